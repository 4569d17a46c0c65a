// SPDX-License-Identifier: GPL-2.0
/*
 * Live add and delete (filter_live.c) on large random sets of every kind: a delete
 * never unmatches another listed item (members, parents and subdomains, prefixes
 * inside others deleted), the bits left are exactly those of the keys the index
 * still holds, a non-member's delete is refused and changes nothing, the shadow
 * kept is the one a rebuild gives, adds match and are attributed, and an add past
 * the rate is refused with nothing changed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bb_hash.h"
#include "filter.h"
#include "list.h"
#include "rng.h"
#include "tap.h"

static char dir[] = "/tmp/bb_test_live.XXXXXX";
static char list_path[600], index_path[600], shadow_path[600];
static __u64 rng_state = 0x6c697665ULL;
static size_t n_lines = 40000;

static __u64 rnd(void)
{
	return splitmix64(&rng_state);
}

/* Every kind: addresses, prefixes long and short, names with parents and
 * subdomains listed too, wildcards, URLs, IPv6. */
static int write_list(void)
{
	FILE *f = fopen(list_path, "w");
	size_t i;

	if (!f)
		return -errno;
	for (i = 0; i < n_lines; i++) {
		__u64 r = rnd();

		switch (i % 10) {
		case 0: fprintf(f, "198.%u.%u.%u\n", 18 + (unsigned)(r & 1), (unsigned)(r >> 8) & 255,
				(unsigned)(r >> 16) & 255); break;
		case 1: fprintf(f, "p%zu.example\n", i); break;
		case 2: fprintf(f, "s.p%zu.example\n", i - 1); break;	/* a parent listed */
		case 3: fprintf(f, "*.w%llx.example\n", (unsigned long long)(r >> 28)); break;
		case 4: fprintf(f, "http://u%llx.example/p/\n", (unsigned long long)(r >> 30)); break;
		case 5: fprintf(f, "2001:db8:%x:%x::/64\n", (unsigned)(r & 0xffff),
				(unsigned)(r >> 16) & 0xffff); break;
		case 6: fprintf(f, "198.18.%u.0/%u\n", (unsigned)(r >> 8) & 255,
				24 + (unsigned)((r >> 16) % 6)); break;	/* inside the /32s' range */
		case 7: if (i % 1000 == 7)
				fprintf(f, "%u.0.0.0/%u\n", 20 + (unsigned)(i / 1000) % 30,
					8 + (unsigned)(r % 9));
			else
				fprintf(f, "2001:db8:1::%llx\n", (unsigned long long)(r >> 40));
			break;
		case 8: fprintf(f, "n%llx.test\n", (unsigned long long)(r >> 24)); break;
		default: fprintf(f, "203.0.113.%u\n", (unsigned)(r & 255)); break;
		}
	}
	return fclose(f) ? -errno : 0;
}

static __u64 image_elements(const struct bb_block *img)
{
	const struct bb_header *hdr = (const void *)&img[BB_HEADER_INDEX];

	return bb_filter_elements(hdr->nblocks, hdr->allow_blocks);
}

/*
 * The blocks and short tables the index on disk and the live entries call for:
 * every distinct non-short key's bits, every short prefix's range. 0 when the
 * image's equal them exactly, else the number of words that differ.
 */
static size_t bits_off(const struct bb_block *img, const struct bb_entry *entries, size_t n,
		       const bool *gone)
{
	const struct bb_header *hdr = (const void *)&img[BB_HEADER_INDEX];
	struct bb_block *want = calloc(hdr->nblocks + 2 * BB_SHORT_BLOCKS, sizeof(*want));
	struct bb_index_view v;
	size_t i, off = 0;
	__u32 b, w;

	if (!want || bb_index_open(index_path, &v)) {
		free(want);
		return (size_t)-1;
	}
	for (i = 0; i < v.n; i++) {
		const struct bb_index_rec *r = &v.recs[i];
		__u64 m[BB_WORDS];

		if ((r->kind == BB_KEY_IP4 || r->kind == BB_KEY_IP6) && r->form <= BB_SHORT_PLEN)
			continue;
		bb_block_masks(r->h, hdr->k, m);
		b = bb_block_of(r->h, hdr->nblocks);
		for (w = 0; w < BB_WORDS; w++)
			want[b].words[w] |= m[w];
	}
	bb_index_close(&v);
	for (i = 0; i < n; i++) {
		const struct bb_entry *e = &entries[i];
		struct bb_block *t = &want[hdr->nblocks + (e->kind == BB_ENTRY_IP4 ? 0 : BB_SHORT_BLOCKS)];
		__u32 mask, first, k;

		if (gone[i] || (e->kind != BB_ENTRY_IP4 && e->kind != BB_ENTRY_IP6) ||
		    e->plen > BB_SHORT_PLEN)
			continue;
		mask = e->plen ? 0xffffU << (BB_SHORT_PLEN - e->plen) : 0;
		first = bb_short_prefix(e->addr) & mask;
		for (k = first; k < first + (1U << (BB_SHORT_PLEN - e->plen)); k++)
			t[k / BB_BLOCK_BITS].words[k % BB_BLOCK_BITS / 64] |= 1ULL << (k % 64);
	}
	for (b = 0; b < hdr->nblocks; b++)
		for (w = 0; w < BB_WORDS; w++)
			off += img[BB_FIRST_BLOCK + b].words[w] != want[b].words[w];
	for (b = 0; b < BB_SHORT_BLOCKS; b++)
		for (w = 0; w < BB_WORDS; w++) {
			off += img[BB_SHORT_V4_INDEX + b].words[w] != want[hdr->nblocks + b].words[w];
			off += img[BB_SHORT_V6_INDEX + b].words[w] !=
			       want[hdr->nblocks + BB_SHORT_BLOCKS + b].words[w];
		}
	free(want);
	return off;
}

static bool same_file(const char *path, const void *bytes, size_t size)
{
	FILE *f = fopen(path, "r");
	char *got = malloc(size + 1);
	bool same = f && got && fread(got, 1, size + 1, f) == size && !memcmp(got, bytes, size);

	if (f)
		fclose(f);
	free(got);
	return same;
}

static void *file_bytes(const char *path, size_t *size)
{
	struct stat st;
	FILE *f = fopen(path, "r");
	void *b = NULL;

	if (f && !fstat(fileno(f), &st)) {
		b = malloc((size_t)st.st_size + 1);
		*size = (size_t)st.st_size;
		if (b && fread(b, 1, *size, f) != *size) {
			free(b);
			b = NULL;
		}
	}
	if (f)
		fclose(f);
	return b;
}

/*
 * What was deleted no longer matches, but where what is still listed covers it (a
 * wider prefix, a parent: asked of a filter of the rest at a rate of 1e-7), or at the
 * filter's rate.
 */
static void check_deleted(const struct bb_block *img, const struct bb_list *list,
			  const bool *gone, size_t n_gone)
{
	size_t i, n = list->n, still = 0;
	struct bb_filter_opts exact = { .seed = 78, .fpr = 1e-7, .threads = 2 };
	struct bb_list rest;
	struct bb_filter rf;
	struct bb_block *rimg = NULL;
	size_t uncovered = 0;

	bb_list_init(&rest);
	for (i = 0; i < n; i++) {
		char text[BB_KEY_MAX + 80];
		const char *why;

		if (gone[i])
			continue;
		bb_entry_text(&list->entries[i], text, sizeof(text));
		bb_list_parse_line(&rest, text, strlen(text), &why);
	}
	if (!bb_filter_build(&rf, &rest, &exact)) {
		rimg = calloc(bb_filter_elements(rf.hdr.nblocks, rf.hdr.allow_blocks),
			      BB_BLOCK_BYTES);
		if (rimg)
			bb_filter_write_image(&rf, rimg);
		bb_filter_free(&rf);
	}
	for (i = 0; rimg && i < n; i++) {
		if (!gone[i] || bb_image_match_entry(rimg, &list->entries[i]))
			continue;
		uncovered++;
		still += bb_image_match_entry(img, &list->entries[i]);
	}
	tap_result(rimg && uncovered > n_gone / 2 && still <= uncovered / 100 + 2,
		   "live: the deleted items stop matching, but for those what is still "
		   "listed covers", "%zu of %zu uncovered still match", still, uncovered);
	free(rimg);
	bb_list_free(&rest);
}

/* The shadow kept is read back, and equals one built from the index. */
static void check_shadow(struct bb_block *img)
{
	struct bb_live a, b;
	int e1 = bb_live_open(&a, img, index_path, shadow_path), e2;

	unlink(shadow_path);
	e2 = bb_live_open(&b, img, index_path, shadow_path);
	tap_result(!e1 && !e2 && !a.shadow_built && b.shadow_built &&
		   a.counts_bytes == b.counts_bytes &&
		   !memcmp(a.counts, b.counts, a.counts_bytes),
		   "live: the shadow kept is read back, the same as one rebuilt", "%d %d",
		   e1, e2);
	if (!e2) {
		/* a failed write of it: the next open sees it lag the index */
		b.meta.changes++;
		bb_live_close(&b);
	}
	if (!e1)
		bb_live_close(&a);
}

/* The capacity: adds past --max-fp are refused whole, nothing changed. */
static void check_capacity(struct bb_block *img, struct bb_block *before)
{
	double fp[BB_CHECK_MAX];
	struct bb_live l;
	size_t i;
	int err;

	size_t isize = 0;
	void *ibytes = file_bytes(index_path, &isize);
	struct bb_list many;
	size_t added = 0;

	bb_list_init(&many);
	for (i = 0; i < 40000; i++) {
		char line[64];
		const char *why;

		snprintf(line, sizeof(line), "m%zu.capacity.test", i);
		bb_list_parse_line(&many, line, strlen(line), &why);
	}
	memcpy(before, img, image_elements(img) * BB_BLOCK_BYTES);
	err = bb_live_open(&l, img, index_path, shadow_path);
	for (i = 0; !err && i < many.n; i++)
		added += bb_live_add(&l, &many.entries[i]) == 1;
	err = err ?: bb_live_commit(&l, index_path, shadow_path, 0.002, fp);
	tap_result(err == -ENOSPC && fp[BB_CHECK_NAME] > 0.002,
		   "live: 40000 more names past --max-fp 0.002: refused, the rate said",
		   "err %d, name check %.4f", err, fp[BB_CHECK_NAME]);
	tap_result(!memcmp(before, img, image_elements(img) * BB_BLOCK_BYTES) &&
		   ibytes && same_file(index_path, ibytes, isize),
		   "live: ... the map and the index untouched", NULL);
	bb_live_close(&l);
	free(ibytes);
	bb_list_free(&many);
}

/* Adds: new items of every kind, a new prefix length, a short prefix; all match. */
static void check_adds(struct bb_block *img, const struct bb_list *list, const bool *gone,
		       size_t n_gone)
{
	double fp[BB_CHECK_MAX];
	struct bb_list extra;
	size_t i, staged, unmatched;
	struct bb_live l;
	int err;

	bb_list_init(&extra);
	for (i = 0; i < 6000; i++) {
		char line[80];
		const char *why;

		switch (i % 6) {
		case 0: snprintf(line, sizeof(line), "a%zu.added.test", i); break;
		case 1: snprintf(line, sizeof(line), "192.0.2.%zu", i % 256); break;
		case 2: snprintf(line, sizeof(line), "*.z%zu.example", i); break;
		case 3: snprintf(line, sizeof(line), "http://v%zu.example/x/", i); break;
		case 4: snprintf(line, sizeof(line), "2001:db8:%zx00::/40", (i / 6) % 256); break;
		default: snprintf(line, sizeof(line), i == 5 ? "100.64.0.0/10" : "198.51.%zu.0/22",
				  (i * 4) % 256); break;
		}
		bb_list_parse_line(&extra, line, strlen(line), &why);
	}
	err = bb_live_open(&l, img, index_path, shadow_path);
	for (i = 0, staged = 0; !err && i < extra.n; i++)
		staged += bb_live_add(&l, &extra.entries[i]) == 1;
	{
		bool grew = l.plens_grown;

		err = err ?: bb_live_commit(&l, index_path, shadow_path, 0.5, fp);
		tap_result(!err && staged == extra.n && grew, "live: 6000 adds of every kind "
			   "committed (a new probe length among them)", "err %d, %zu of %zu", err,
			   staged, extra.n);
	}
	bb_live_close(&l);
	{
		struct bb_index_view v;
		size_t attributed = 0;

		for (i = 0, unmatched = 0; i < extra.n; i++)
			unmatched += !bb_image_match_entry(img, &extra.entries[i]);
		for (i = 0; i < list->n; i++)
			if (!gone[i] && !bb_image_match_entry(img, &list->entries[i]))
				unmatched++;
		tap_result(!unmatched, "live: every added item matches, and every listed one still",
			   "%zu unmatched", unmatched);
		if (!bb_index_open(index_path, &v)) {
			for (i = 0; i < extra.n; i++) {
				const struct bb_index_rec *rec;

				if (bb_image_attribute(img, &v, &extra.entries[i], &rec) &&
				    !strcmp(bb_index_source(&v, rec->src), BB_LIVE_SOURCE) &&
				    !rec->line)
					attributed++;
			}
			tap_result(attributed == extra.n && v.meta.added == extra.n &&
				   v.meta.deleted == n_gone, "live: the index says each was added "
				   "live, and counts the changes", "%zu of %zu; added %llu deleted %llu",
				   attributed, extra.n, (unsigned long long)v.meta.added,
				   (unsigned long long)v.meta.deleted);
			bb_index_close(&v);
		}
	}

	bb_list_free(&extra);
}

static int file_put(const char *path, const void *bytes, size_t size)
{
	FILE *f = fopen(path, "w");
	int err = !f || fwrite(bytes, 1, size, f) != size;

	if (f && fclose(f))
		err = 1;
	return err;
}

/*
 * A kill between an add's bits and its index (fault point add-bits): the bits set,
 * index and shadow as they were. A del of those items finds them held by no record yet
 * set, and clears their uncounted bits: they no longer match, every listed item still
 * does, and a non-member's del is still refused.
 */
static void check_leftovers(struct bb_block *img, const struct bb_list *list, const bool *gone)
{
	size_t index_size = 0, shadow_size = 0, i, leftover = 0, still = 0, unmatched = 0;
	void *index_was = file_bytes(index_path, &index_size);
	void *shadow_was = file_bytes(shadow_path, &shadow_size);
	const struct bb_index_rec *holder;
	struct bb_entry e[400];
	char text[400][64], tb[400][BB_KEY_MAX + 8];
	double fp[BB_CHECK_MAX];
	size_t refused = 0;
	struct bb_live l;
	int err;

	for (i = 0; i < 400; i++) {
		const char *why;

		/* documentation addresses no listed or added prefix covers (RFC 5771, 9637) */
		if (i % 2)
			snprintf(text[i], sizeof(text[i]), "left%zu.crash.test", i);
		else if (i % 4)
			snprintf(text[i], sizeof(text[i]), "3fff::%zx", i);
		else
			snprintf(text[i], sizeof(text[i]), "233.252.0.%zu", i / 4);
		bb_list_parse_item(text[i], &e[i], tb[i], sizeof(tb[i]), &why);
	}
	err = index_was && shadow_was ? 0 : -ENOENT;
	err = err ?: bb_live_open(&l, img, index_path, shadow_path);
	for (i = 0; !err && i < 400; i++)
		err = bb_live_add(&l, &e[i]) == 1 ? 0 : -EINVAL;
	err = err ?: bb_live_commit(&l, index_path, shadow_path, 0.5, fp);
	bb_live_close(&l);
	/* the crash: the index and shadow of before */
	err = err ?: file_put(index_path, index_was, index_size) ?: file_put(shadow_path,
									 shadow_was, shadow_size);
	err = err ?: bb_live_open(&l, img, index_path, shadow_path);
	if (err) {
		tap_result(0, "live: leftovers of a killed add", "err %d", err);
		goto out;
	}
	for (i = 0; i < 400; i++)
		leftover += bb_image_match_entry(img, &e[i]) && bb_live_del(&l, &e[i], &holder) == 2;
	for (i = 0; i < 1000; i++) {
		char t[64], b[BB_KEY_MAX + 8];
		struct bb_entry x;
		const char *why;

		snprintf(t, sizeof(t), "never%zu.crash.test", i);
		if (bb_list_parse_item(t, &x, b, sizeof(b), &why) < 0 ||
		    bb_live_del(&l, &x, &holder) != 0)
			refused++;	/* a non-member staged: wrong */
	}
	err = bb_live_commit(&l, index_path, shadow_path, 0.5, fp);
	bb_live_close(&l);
	for (i = 0; i < 400; i++)
		still += bb_image_match_entry(img, &e[i]);
	for (i = 0; i < list->n; i++)
		if (!gone[i] && !bb_image_match_entry(img, &list->entries[i]))
			unmatched++;
	tap_result(!err && leftover == 400 && !refused, "live: after a killed add, del finds "
		   "its 400 items held by nothing yet set, and no non-member", "err %d, %zu "
		   "found, %zu of 1000 non-members staged", err, leftover, refused);
	tap_result(still <= 2 && !unmatched, "live: their uncounted bits cleared, they no "
		   "longer match; every listed item still does", "%zu still match, %zu listed "
		   "unmatched", still, unmatched);
out:
	free(index_was);
	free(shadow_was);
}

static void test_live(void)
{
	struct bb_filter_opts opts = { .seed = 77, .threads = 2 };
	struct bb_list_opts lo = { .threads = 2 };
	struct bb_list list;
	struct bb_filter f;
	struct bb_index idx;
	struct bb_live l;
	struct bb_block *img, *before;
	double fp[BB_CHECK_MAX];
	bool *gone;
	size_t i, n, staged = 0, refused = 0, unmatched = 0, n_gone = 0;
	size_t parents = 0, subs = 0, widened = 0, off;
	int err;

	snprintf(list_path, sizeof(list_path), "%s/list.txt", dir);
	snprintf(index_path, sizeof(index_path), "%s/index.bin", dir);
	snprintf(shadow_path, sizeof(shadow_path), "%s/shadow.bin", dir);
	bb_list_init(&list);
	err = write_list();
	err = err ?: bb_list_parse_file(&list, list_path, &lo, NULL);
	err = err ?: bb_filter_build(&f, &list, &opts);
	err = err ?: bb_filter_index(&f, &list, 2, &idx);
	if (err) {
		tap_result(0, "live: a filter and its index", "err %d", err);
		return;
	}
	{
		const char *src = list_path;
		struct bb_index_meta meta = { .seed = f.hdr.seed, .generation = 5, .fp = 0.001 };

		err = bb_index_write_meta(&idx, index_path, &src, 1, &meta);
	}
	n = list.n;
	img = calloc(bb_filter_elements(f.hdr.nblocks, f.hdr.allow_blocks), BB_BLOCK_BYTES);
	gone = calloc(n, sizeof(*gone));
	bb_filter_write_image(&f, img);
	((struct bb_header *)img)->generation = 5;
	before = malloc(image_elements(img) * BB_BLOCK_BYTES);
	err = err ?: bb_live_open(&l, img, index_path, shadow_path);
	tap_result(!err && l.shadow_built, "live: opened on the index; no shadow kept, so built "
		   "from it", "err %d", err);
	if (err)
		return;
	tap_result(!bits_off(img, list.entries, n, gone), "live: the loaded filter's bits are "
		   "those of its index's keys (the test's own check)", NULL);

	/* deletes: a third of the members, every kind, parents and subdomains among them */
	for (i = 0; i < n; i++) {
		const struct bb_index_rec *holder;
		const struct bb_entry *e = &list.entries[i];

		if (rnd() % 3)
			continue;
		if (bb_live_del(&l, e, &holder) == 1) {
			gone[i] = true;
			n_gone++;
			parents += e->kind == BB_ENTRY_NAME && !strncmp(e->text, "p", 1);
			subs += e->kind == BB_ENTRY_NAME && !strncmp(e->text, "s.p", 3);
			widened += (e->kind == BB_ENTRY_IP4 || e->kind == BB_ENTRY_IP6) &&
				   e->plen < (e->kind == BB_ENTRY_IP4 ? 32 : 128);
		} else {
			staged++;	/* a member refused: wrong */
		}
	}
	tap_result(!staged && n_gone > n / 4 && parents > 100 && subs > 100 && widened > 100,
		   "live: every member's delete staged (parents, subdomains, prefixes among them)",
		   "%zu refused; %zu deleted, %zu parents, %zu subdomains, %zu prefixes", staged,
		   n_gone, parents, subs, widened);
	/* non-members, and members' relatives that are not listed as such */
	memcpy(before, img, image_elements(img) * BB_BLOCK_BYTES);
	for (i = 0; i < 3000; i++) {
		char text[80], tb[BB_KEY_MAX + 8];
		const struct bb_index_rec *holder;
		struct bb_entry e;
		const char *why;

		switch (i % 4) {
		case 0: snprintf(text, sizeof(text), "q%zu.nonmember.test", i); break;
		case 1: snprintf(text, sizeof(text), "192.0.2.%zu", i % 256); break;
		case 2: snprintf(text, sizeof(text), "x.s.p%zu.example", (i / 10) * 10 + 1); break;
		default: snprintf(text, sizeof(text), "2001:db8:ffff::%zx", i); break;
		}
		if (bb_list_parse_item(text, &e, tb, sizeof(tb), &why) < 0 ||
		    bb_live_del(&l, &e, &holder) != 0)
			refused++;	/* a non-member staged: wrong */
	}
	tap_result(!refused, "live: 3000 non-members' deletes refused (not listed as such)",
		   "%zu staged", refused);
	err = bb_live_commit(&l, index_path, shadow_path, 0.5, fp);
	tap_result(!err, "live: the deletes committed", "err %d", err);
	{
		const struct bb_config *cfg = (const void *)&img[BB_CONFIG_INDEX];
		struct bb_index_view v;
		int e2 = bb_index_open(index_path, &v);

		/* what an event raised before it (struct bb_event's epoch) is told apart by */
		tap_result(!err && !e2 && cfg->confirm_epoch == 1 && v.meta.epoch_known &&
			   v.meta.epoch == 1, "live: the commit moved the epoch on, and the index "
			   "it wrote says it is of that epoch", "err %d, epoch %u, the index's %u (%s)",
			   e2, cfg->confirm_epoch, e2 ? 0 : v.meta.epoch,
			   !e2 && v.meta.epoch_known ? "known" : "unknown");
		if (!e2)
			bb_index_close(&v);
	}

	/* no false negative: every entry not deleted still matches */
	for (i = 0; i < n; i++)
		if (!gone[i] && !bb_image_match_entry(img, &list.entries[i]))
			unmatched++;
	tap_result(!unmatched, "live: after the deletes, every listed item still matches",
		   "%zu of %zu unmatched", unmatched, n - n_gone);
	off = bits_off(img, list.entries, n, gone);
	tap_result(!off, "live: the bits left are exactly the held keys' (blocks and short "
		   "tables)", "%zu words differ", off);
	check_deleted(img, &list, gone, n_gone);
	bb_live_close(&l);

	check_shadow(img);

	check_adds(img, &list, gone, n_gone);
	check_capacity(img, before);
	check_leftovers(img, &list, gone);
	free(before);
	free(gone);
	free(img);
	bb_index_free(&idx);
	bb_filter_free(&f);
	bb_list_free(&list);
	unlink(list_path);
	unlink(index_path);
	unlink(shadow_path);
}

int main(void)
{
	const char *quick = getenv("BB_QUICK");

	if (quick && !strcmp(quick, "1"))
		n_lines /= 8;
	tap_plan_header();
	if (!mkdtemp(dir)) {
		tap_result(0, "a scratch directory", NULL);
		return tap_finish();
	}
	test_live();
	rmdir(dir);
	return tap_finish();
}

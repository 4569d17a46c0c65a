// SPDX-License-Identifier: GPL-2.0
/*
 * The allowlist: its table (insert, test, remove, full), what a filter built with
 * allowlist entries passes and what it does not, in memory and streamed, and the
 * property that matters most: it never passes a listed item it does not hold.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "list.h"
#include "rng.h"
#include "tap.h"

/* Items per property test; BB_QUICK=1 (valgrind, sanitizers) takes a tenth. */
static size_t n_items = 100000;
static __u64 rng_state = 0x616c6c6f776c7374ULL;

static __u64 rnd(void)
{
	return splitmix64(&rng_state);
}

/* ---- the table ---- */

static void test_table(void)
{
	__u32 blocks = bb_allow_blocks_for(0), n = bb_allow_blocks_for(n_items);
	struct bb_block *t = calloc(blocks, sizeof(*t)), *big = calloc(n, sizeof(*big));
	__u64 *h = malloc(n_items * sizeof(*h));
	size_t i, inserted = 0, absent = 0, found = 0, full_at = 0;
	bool ok = true;
	int ret;

	if (!t || !big || !h) {
		tap_result(0, "allowlist table: memory", NULL);
		goto out;
	}
	ok = !bb_allow_test(t, blocks, 42) && bb_allow_insert(t, blocks, 42) == 1 &&
	     bb_allow_insert(t, blocks, 42) == 0 && bb_allow_test(t, blocks, 42) &&
	     !bb_allow_test(t, blocks, 0x1234) && bb_allow_remove(t, blocks, 42) == 1 &&
	     !bb_allow_test(t, blocks, 42) && bb_allow_remove(t, blocks, 42) == 0;
	tap_result(ok, "allowlist table: insert, again (0), test, remove, again (0)", NULL);
	ok = !bb_allow_test(t, blocks, 0) && bb_allow_insert(t, blocks, 0) == 1 &&
	     bb_allow_test(t, blocks, 0) && bb_allow_remove(t, blocks, 0) == 1;
	tap_result(ok, "allowlist table: hash 0 is a key like any (its fingerprint is not 0)",
		   NULL);
	tap_result(blocks >= 64 && n * 8 >= 4 * n_items,
		   "allowlist table: at least 64 blocks, and a quarter full at most", "%u, %u",
		   blocks, n);

	/* n_items random keys: every one in, every one found, no other found */
	for (i = 0; i < n_items; i++) {
		h[i] = rnd();
		ret = bb_allow_insert(big, n, h[i]);
		inserted += ret == 1;
		ok &= ret >= 0;
	}
	for (i = 0; i < n_items; i++)
		found += bb_allow_test(big, n, h[i]);
	for (i = 0; i < 10 * n_items; i++)
		absent += bb_allow_test(big, n, rnd());
	tap_result(ok && inserted == n_items && found == n_items,
		   "allowlist table: random keys at its planned size all go in and are found",
		   "%zu inserted, %zu found of %zu", inserted, found, n_items);
	tap_result(absent == 0, "allowlist table: no key that is not in it is found",
		   "%zu of %zu found", absent, 10 * n_items);
	for (i = 0; i < n_items; i += 2)
		bb_allow_remove(big, n, h[i]);
	for (i = 0, found = 0, absent = 0; i < n_items; i++) {
		if (i % 2)
			found += bb_allow_test(big, n, h[i]);
		else
			absent += bb_allow_test(big, n, h[i]);
	}
	tap_result(found == n_items / 2 && absent == 0,
		   "allowlist table: removing half leaves exactly the other half", "%zu, %zu",
		   found, absent);

	/* the least table filled until a pair of blocks is full: nothing lost before */
	memset(t, 0, blocks * sizeof(*t));
	for (i = 0; i < blocks * 8 && !full_at; i++) {
		h[i] = rnd();
		if (bb_allow_insert(t, blocks, h[i]) == -ENOSPC)
			full_at = i;
	}
	for (i = 0, found = 0; i < full_at; i++)
		found += bb_allow_test(t, blocks, h[i]);
	tap_result(full_at > blocks * 8 / 2 && found == full_at,
		   "allowlist table: two choices fill over half of it before a pair is full, "
		   "every key kept", "full at %zu of %u slots, %zu found", full_at, blocks * 8,
		   found);
out:
	free(t);
	free(big);
	free(h);
}

/* ---- what a built filter passes ---- */

/* Lines to a list, as a list file's lines; each must be one entry. */
static int parse_lines(struct bb_list *list, const char *const *lines)
{
	const char *why;
	size_t i;

	bb_list_init(list);
	for (i = 0; lines[i]; i++)
		if (bb_list_parse_line(list, lines[i], strlen(lines[i]), &why) != 1) {
			printf("# line \"%s\": %s\n", lines[i], why);
			return -1;
		}
	return 0;
}

static struct bb_block *image_of(const struct bb_filter *f)
{
	struct bb_block *img = calloc(bb_filter_elements(f->hdr.nblocks, f->hdr.allow_blocks),
				      sizeof(*img));

	if (img)
		bb_filter_write_image(f, img);
	return img;
}

static const char *const lines[] = {
	"evil.example", "*.wild.example", "192.0.2.0/24", "198.51.100.7", "2001:db8:bad::/48",
	"bad.example/path/", "10.0.0.0/8",
	"@@good.evil.example", "@@*.sub.wild.example", "@@192.0.2.128/25", "@@198.51.100.7",
	"@@2001:db8:bad::1", "@@bad.example/path/ok/", "@@10.1.0.0/16", "@@fine.example",
	NULL,
};

struct item_case {
	const char *item;
	int listed, allowed;	/* what check says: the filter, then the allowlist */
};

static const struct item_case item_cases[] = {
	{ "good.evil.example", 1, 1 },		/* an allowed name under a listed one */
	{ "x.good.evil.example", 1, 1 },	/* and its subdomains */
	{ "evil.example", 1, 0 },
	{ "other.evil.example", 1, 0 },
	{ "a.sub.wild.example", 1, 1 },		/* *.sub.wild.example: its subdomains */
	{ "sub.wild.example", 1, 0 },		/* not itself */
	{ "192.0.2.200", 1, 1 },
	{ "192.0.2.128/26", 1, 1 },		/* a prefix inside the allowed /25 */
	{ "192.0.2.5", 1, 0 },
	{ "192.0.2.0/24", 1, 0 },		/* wider than any allowed prefix */
	{ "198.51.100.7", 1, 1 },
	{ "198.51.100.8", 0, 0 },
	{ "10.1.255.1", 1, 1 },			/* an allowed /16 inside a listed /8 */
	{ "10.2.0.1", 1, 0 },
	{ "2001:db8:bad::1", 1, 1 },
	{ "2001:db8:bad::2", 1, 0 },
	{ "bad.example/path/ok/x", 1, 1 },	/* under the allowed URL */
	{ "bad.example/path/x", 1, 0 },
	{ "bad.example/path/okay", 1, 0 },
	{ "fine.example", 0, 1 },		/* allowed, listed nowhere: never a hit */
};

static void check_items(const char *what, const struct bb_block *img)
{
	char text[BB_KEY_MAX + 64], name[200];
	struct bb_entry e;
	const char *why;
	size_t i;

	for (i = 0; i < sizeof(item_cases) / sizeof(item_cases[0]); i++) {
		const struct item_case *c = &item_cases[i];
		int listed = -1, allowed = -1;

		if (!bb_list_parse_item(c->item, &e, text, sizeof(text), &why)) {
			listed = bb_image_match_entry(img, &e);
			allowed = bb_image_allowed(img, &e);
		}
		snprintf(name, sizeof(name), "%s: %s is %slisted, %sallowed", what, c->item,
			 c->listed ? "" : "not ", c->allowed ? "" : "not ");
		tap_result(listed == c->listed && allowed == c->allowed, name,
			   "listed %d, allowed %d", listed, allowed);
	}
}

static void test_built(void)
{
	struct bb_filter_opts opts = { .seed = 7, .fpr = 1e-6, .threads = 1 };
	const struct bb_allow_header *ah;
	struct bb_filter f;
	struct bb_block *img = NULL;
	struct bb_list list;
	int err;

	err = parse_lines(&list, lines);
	tap_result(!err && list.counts.allow[BB_ENTRY_NAME] == 3 &&
		   list.counts.allow[BB_ENTRY_IP4] == 3 && list.counts.allow[BB_ENTRY_IP6] == 1 &&
		   list.counts.allow[BB_ENTRY_URL] == 1 && list.counts.accepted[BB_ENTRY_NAME] == 2,
		   "@@ lines are allowlist entries, counted apart from block entries", NULL);
	err = err ?: bb_filter_build(&f, &list, &opts);
	img = err ? NULL : image_of(&f);
	tap_result(img != NULL, "a filter with an allowlist builds", "%s", strerror(-err));
	if (!img)
		goto out;
	ah = (const void *)&img[bb_allow_index(f.hdr.nblocks)];
	/* keys: 3 names x 2 (name, parent) - 1 (*.sub: the parent only), 4 addresses, a URL */
	tap_result(ah->items == 10 && ah->n_v4_plens == 3 && ah->n_v6_plens == 1 &&
		   (ah->flags & (BB_HDR_F_NAMES | BB_HDR_F_URLS)) ==
		   (BB_HDR_F_NAMES | BB_HDR_F_URLS),
		   "the allowlist's header: its keys, prefix lengths and kinds",
		   "items %llu, v4 lengths %u, v6 %u, flags %#x", (unsigned long long)ah->items,
		   ah->n_v4_plens, ah->n_v6_plens, ah->flags);
	tap_result(f.keys_by_kind[BB_KEY_NAME] == 1 && f.keys_by_kind[BB_KEY_NAME_PARENT] == 2 &&
		   f.keys_by_kind[BB_KEY_URL] == 1,
		   "allowlist entries set no bit of the filter", "names %llu, parents %llu, urls %llu",
		   (unsigned long long)f.keys_by_kind[BB_KEY_NAME],
		   (unsigned long long)f.keys_by_kind[BB_KEY_NAME_PARENT],
		   (unsigned long long)f.keys_by_kind[BB_KEY_URL]);
	check_items("in memory", img);
out:
	free(img);
	if (!err)
		bb_filter_free(&f);
	bb_list_free(&list);
}

/* The same list streamed: tallied, then each entry set as it comes. */
static void test_streamed(void)
{
	struct bb_filter_opts opts = { .seed = 7, .fpr = 1e-6, .threads = 2 };
	struct bb_key_tally tally = { 0 };
	struct bb_filter_stream *stream;
	struct bb_block *img = NULL;
	struct bb_filter f;
	struct bb_list list;
	__u64 repeats;
	size_t i;
	int err;

	err = parse_lines(&list, lines);
	for (i = 0; !err && i < list.n; i++)
		bb_key_tally_entry(&tally, &list.entries[i]);
	err = err ?: bb_filter_stream_begin(&f, &tally, &opts, &stream);
	if (!err) {
		for (i = 0; i < list.n; i++)
			bb_filter_stream_add(stream, i % 2, &list.entries[i]);
		err = bb_filter_stream_end(stream, &repeats);
		img = err ? NULL : image_of(&f);
		bb_filter_free(&f);
	}
	tap_result(img != NULL, "a streamed filter with an allowlist builds", "%d", err);
	if (img)
		check_items("streamed", img);
	free(img);
	bb_list_free(&list);
}

/*
 * Random sets: half of the listed names and addresses allowed. Every allowed one
 * passes; not one listed item outside the allowlist does (its fingerprints are
 * exact, 64 bits).
 */
static void test_random(void)
{
	struct bb_filter_opts opts = { .seed = 11 };
	size_t i, n = n_items, wrongly = 0, missed = 0, listed_miss = 0;
	char *text = malloc(n * 40);
	struct bb_entry *entries = calloc(2 * n, sizeof(*entries));
	struct bb_list list = { 0 };
	struct bb_block *img = NULL;
	struct bb_filter f;
	int err = -ENOMEM;

	if (!text || !entries)
		goto out;
	for (i = 0; i < n; i++) {
		struct bb_entry *e = &entries[i];
		__u64 r = rnd();

		if (i % 2) {
			e->kind = BB_ENTRY_IP4;
			e->plen = 32;
			memcpy(e->addr, &r, 4);
		} else {
			snprintf(text + i * 40, 40, "n%016llx.example", (unsigned long long)r);
			e->kind = BB_ENTRY_NAME;
			e->text = text + i * 40;
		}
		/* the first half of them allowed too */
		entries[n + i] = *e;
		entries[n + i].flags |= BB_ENTRY_F_ALLOW;
	}
	list.entries = entries;
	list.n = n + n / 2;	/* every item listed, the first n / 2 allowed */
	err = bb_filter_build(&f, &list, &opts);
	img = err ? NULL : image_of(&f);
	if (!img)
		goto out;
	for (i = 0; i < n; i++) {
		int allowed = bb_image_allowed(img, &entries[i]);

		listed_miss += !bb_image_match_entry(img, &entries[i]);
		if (i < n / 2)
			missed += !allowed;
		else
			wrongly += allowed;
	}
	bb_filter_free(&f);
out:
	tap_result(img && !listed_miss && !missed, "random names and addresses: every allowed "
		   "one is allowed, every listed one listed", "err %d; %zu allowed missed, %zu "
		   "listed missed", err, missed, listed_miss);
	tap_result(img && !wrongly, "random names and addresses: no listed item outside the "
		   "allowlist passes", "%zu of %zu", wrongly, n - n / 2);
	free(img);
	free(entries);
	free(text);
}

/* More prefix lengths than the kernel asks: refused, not truncated. */
static void test_too_many_lengths(void)
{
	static const char *const many[] = {
		"192.0.2.0/24", "@@192.0.2.0/25", "@@192.0.2.0/26", "@@192.0.2.0/27",
		"@@192.0.2.0/28", "@@192.0.2.0/29", "@@192.0.2.0/30", "@@192.0.2.0/31",
		"@@192.0.2.0/32", "@@10.0.0.0/8", NULL,
	};
	struct bb_filter_opts opts = { .seed = 1 };
	struct bb_filter f;
	struct bb_list list;
	int err = parse_lines(&list, many);

	err = err ?: bb_filter_build(&f, &list, &opts);
	tap_result(err == -E2BIG, "an allowlist of 9 IPv4 prefix lengths is refused (-E2BIG)",
		   "%d", err);
	if (!err)
		bb_filter_free(&f);
	bb_list_free(&list);
}

int main(void)
{
	const char *quick = getenv("BB_QUICK");

	if (quick && !strcmp(quick, "1"))
		n_items /= 10;
	tap_plan_header();
	test_table();
	test_built();
	test_streamed();
	test_random();
	test_too_many_lengths();
	return tap_finish();
}

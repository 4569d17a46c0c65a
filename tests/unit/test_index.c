// SPDX-License-Identifier: GPL-2.0
/*
 * The key index: every listed entry is attributed to its own list and line (the
 * first line that holds it), built in memory and streamed in many parts on threads
 * alike; written and read back; and at a high false-positive rate, every hit of a
 * non-member is called a false positive while no member ever is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter.h"
#include "list.h"
#include "rng.h"
#include "tap.h"

static char dir[] = "/tmp/bb_test_index.XXXXXX";
static __u64 rng_state = 0x696e646578ULL;
static size_t n_lines = 60000;

static __u64 rnd(void)
{
	return splitmix64(&rng_state);
}

/* A list of every kind, some lines repeated, comments and blanks between. */
static const char *write_list(const char *name, size_t lines, size_t *n_out)
{
	static char path[2][600];
	static int which;
	char *p = path[which++ & 1];
	FILE *f;
	size_t i;

	snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (!f)
		return NULL;
	for (i = 0; i < lines; i++) {
		__u64 r = rnd();

		switch (i % 9) {
		case 0: fprintf(f, "10.%u.%u.%u\n", (unsigned)(r >> 8) & 255,
				(unsigned)(r >> 16) & 255, (unsigned)(r >> 24) & 255); break;
		case 1: fprintf(f, "n%llx.example\n", (unsigned long long)(r >> 20)); break;
		case 2: fprintf(f, "# a comment\n"); break;
		case 3: fprintf(f, "*.w%llx.example\n", (unsigned long long)(r >> 30)); break;
		case 4: fprintf(f, "http://u%llx.example/p/\n", (unsigned long long)(r >> 24)); break;
		case 5: fprintf(f, "2001:db8:%x::/48\n", (unsigned)(r & 0xffff)); break;
		case 6: fprintf(f, "\n"); break;
		case 7: fprintf(f, "172.%u.0.0/%u\n", 16 + (unsigned)(r & 15),
				12 + (unsigned)((r >> 8) % 12)); break;
		default: fprintf(f, "n%llx.example\n", (unsigned long long)(i / 900)); break;
		}
	}
	fclose(f);
	*n_out = lines;
	return p;
}

/* A line-by-line parse of a list, each entry stamped with its line. */
static void parse_lines(const char *path, struct bb_list *ref)
{
	FILE *fh = fopen(path, "r");
	char *line = NULL;
	const char *why;
	size_t cap = 0;
	ssize_t len;
	__u32 no = 0;

	bb_list_init(ref);
	while (fh && (len = getline(&line, &cap, fh)) >= 0) {
		size_t before = ref->n;

		no++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		bb_list_parse_line(ref, line, (size_t)len, &why);
		for (; before < ref->n; before++)
			ref->entries[before].line = no;
	}
	free(line);
	if (fh)
		fclose(fh);
}

/* The first line of a line-by-line parse that parses to e. */
static __u32 first_line_of(const struct bb_list *ref, const struct bb_entry *e)
{
	size_t i;

	for (i = 0; i < ref->n; i++) {
		const struct bb_entry *r = &ref->entries[i];

		if (r->kind == e->kind && r->plen == e->plen && r->flags == e->flags &&
		    !memcmp(r->addr, e->addr, 16) && !r->text == !e->text &&
		    (!r->text || !strcmp(r->text, e->text)))
			return r->line;
	}
	return 0;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct bb_index_rec *x = a, *y = b;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/*
 * Every entry of list, looked up in filter's image through the index written from x:
 * attributed to a record whose list and line hold that key under filter's plan (the
 * entry's own line or a wider one: a covering prefix, a wildcard parent). The keys
 * each line holds come from indexing ref[k], a line-by-line parse of list k.
 */
static size_t misattributed(const struct bb_filter *filter, const struct bb_index *x,
			    const struct bb_list *list, const struct bb_list ref[2],
			    const char *const paths[2], const char *ipath, size_t *wider)
{
	struct bb_block *img = calloc(bb_filter_elements(filter->hdr.nblocks,
							 filter->hdr.allow_blocks), BB_BLOCK_BYTES);
	struct bb_index refidx[2] = { 0 };
	struct bb_index_view v;
	size_t wrong = 0, i;
	int k;

	*wider = 0;
	if (!img || bb_index_write(x, ipath, paths, 2, filter->hdr.seed, 1, 1) ||
	    bb_index_open(ipath, &v)) {
		free(img);
		return list->n + 1;
	}
	bb_filter_write_image(filter, img);
	for (k = 0; k < 2; k++) {
		if (bb_filter_index(filter, &ref[k], 1, &refidx[k]))
			wrong++;
		qsort(refidx[k].recs, refidx[k].n, sizeof(*refidx[k].recs), cmp_rec);
	}
	for (i = 0; i < list->n; i++) {
		const struct bb_entry *e = &list->entries[i];
		const struct bb_index_rec *rec;
		struct bb_index_rec want;

		if (!bb_image_attribute(img, &v, e, &rec) || rec->src > 1 || rec->src > e->src) {
			wrong++;
			continue;
		}
		/* ref entries have src 0: the record is looked up in its own list's */
		want = (struct bb_index_rec){ .h = rec->h, .line = rec->line };
		if (!bsearch(&want, refidx[rec->src].recs, refidx[rec->src].n, sizeof(want),
			     cmp_rec))
			wrong++;
		if (rec->src == e->src && rec->line > e->line)
			(*wider)++;
	}
	for (k = 0; k < 2; k++)
		bb_index_free(&refidx[k]);
	bb_index_close(&v);
	free(img);
	return wrong;
}

struct scan {
	struct bb_key_tally tally[BB_LIST_MAX_THREADS];
	struct bb_filter_stream *stream;
	size_t *base[2], n_parts[2], lines;
	unsigned int src;
};

static void tally_entry(void *ctx, unsigned int thread, const struct bb_entry *e)
{
	bb_key_tally_entry(&((struct scan *)ctx)->tally[thread], e);
}

static void stream_entry(void *ctx, unsigned int thread, const struct bb_entry *e)
{
	bb_filter_stream_add(((struct scan *)ctx)->stream, thread, e);
}

static void stream_part(void *ctx, unsigned int thread, size_t part)
{
	bb_filter_stream_part(((struct scan *)ctx)->stream, thread, part);
}

static void part_lines(void *ctx, size_t part, size_t lines)
{
	struct scan *s = ctx;

	if (part >= s->n_parts[s->src]) {
		size_t *b = realloc(s->base[s->src], (part + 1) * sizeof(size_t));

		if (!b)
			abort();
		s->base[s->src] = b;
		s->n_parts[s->src] = part + 1;
	}
	s->base[s->src][part] = s->lines;
	s->lines += lines;
}

/* The lists streamed in 4 KiB parts on 3 threads into a filter and its index. */
static int stream_lists(const char *const paths[2], struct bb_filter *sf, struct bb_index *sidx)
{
	struct scan *s = calloc(1, sizeof(*s));
	/* as many build threads as parse threads: the stream's contract (filter.h); with
	 * fewer, two parse threads shared the second bit array without atomics and lost
	 * bits now and then (2 keys of 44087, 1 run in 30 under load) */
	struct bb_list_opts lo = { .threads = 3, .part_bytes = 4096 };
	struct bb_filter_opts so = { .seed = 9, .threads = 3, .index = sidx };
	struct bb_list_sink sink = { .entry = tally_entry, .ctx = s };
	struct bb_key_tally sum = { 0 };
	struct bb_list_counts counts;
	unsigned int t;
	__u64 repeats;
	int err = 0, k;

	if (!s)
		return -ENOMEM;
	for (k = 0; k < 2 && !err; k++) {
		lo.file.source = (__u8)k;
		err = bb_list_scan_file(paths[k], &lo, &sink, &counts);
	}
	for (t = 0; t < BB_LIST_MAX_THREADS; t++)
		bb_key_tally_sum(&sum, &s->tally[t]);
	err = err ?: bb_filter_stream_begin(sf, &sum, &so, &s->stream);
	sink = (struct bb_list_sink){ .entry = stream_entry, .ctx = s, .part = stream_part,
				      .part_lines = part_lines };
	for (k = 0; k < 2 && !err; k++) {
		lo.file.source = (__u8)k;
		s->src = (unsigned int)k;
		s->lines = 0;
		err = bb_list_scan_file(paths[k], &lo, &sink, &counts);
	}
	if (s->stream) {
		int e = bb_filter_stream_end(s->stream, &repeats);

		err = err ?: e;
	}
	err = err ?: bb_index_rebase(sidx, s->base, s->n_parts, 2);
	for (k = 0; k < 2; k++)
		free(s->base[k]);
	free(s);
	return err;
}

static void test_index(void)
{
	size_t n, i, wrong, late = 0, wider;
	const char *paths[2];
	struct bb_list list, ref[2];
	struct bb_filter f, sf;
	struct bb_filter_opts opts = { .seed = 9, .threads = 2 };
	struct bb_list_opts lo = { .threads = 3, .part_bytes = 4096 };
	struct bb_index idx, sidx = { 0 };
	struct bb_index_view v;
	char ipath[700];
	int err, k;

	paths[0] = write_list("a.txt", n_lines, &n);
	paths[1] = write_list("b.txt", n_lines / 3, &n);
	bb_list_init(&list);
	for (k = 0, err = 0; k < 2 && !err; k++) {
		lo.file.source = (__u8)k;
		err = bb_list_parse_file(&list, paths[k], &lo, NULL);
	}
	err = err ?: bb_filter_build(&f, &list, &opts);
	err = err ?: bb_filter_index(&f, &list, 2, &idx);
	tap_result(!err && idx.n >= list.n, "index: built on the in-memory filter, a record a key",
		   "err %d, %zu records, %zu entries", err, idx.n, list.n);
	if (err)
		return;
	snprintf(ipath, sizeof(ipath), "%s/index.bin", dir);
	err = bb_index_write(&idx, ipath, paths, 2, f.hdr.seed, 3, 77);
	err = err ?: bb_index_open(ipath, &v);
	tap_result(!err && v.n == idx.n && v.seed == f.hdr.seed && v.generation == 3 &&
		   v.map_id == 77 && v.n_sources == 2 && !strcmp(v.sources[1], paths[1]),
		   "index: written and read back, with its filter's seed, generation, map, lists",
		   "err %d", err);
	if (!err)
		bb_index_close(&v);

	for (k = 0; k < 2; k++)
		parse_lines(paths[k], &ref[k]);
	for (i = 0; i < list.n; i++) {
		const struct bb_entry *e = &list.entries[i];

		if (e->src > 1 || e->line != first_line_of(&ref[e->src], e))
			late++;
	}
	tap_result(!late, "index: every entry's list and line are the first that hold it",
		   "%zu not", late);
	wrong = misattributed(&f, &idx, &list, ref, paths, ipath, &wider);
	tap_result(!wrong, "index: every entry attributed to a list and a line of it that "
		   "holds the key found", "%zu of %zu wrong", wrong, list.n);
	tap_result(wider > 0, "index: ... some by a wider line listed later (a covering "
		   "prefix): the test sees both", "%zu", wider);

	/* non-members at a high rate: a hit the index does not hold is a false positive */
	{
		struct bb_filter_opts dense = { .seed = 9, .fpr = 0.3, .threads = 1 };
		struct bb_filter g;
		struct bb_index gi;
		struct bb_index_view gv;
		struct bb_block *gimg = NULL;
		size_t hits = 0, fp = 0, members_fp = 0;
		char text[64];

		err = bb_filter_build(&g, &list, &dense);
		err = err ?: bb_filter_index(&g, &list, 1, &gi);
		err = err ?: bb_index_write(&gi, ipath, paths, 2, g.hdr.seed, 1, 1);
		err = err ?: bb_index_open(ipath, &gv);
		if (!err)
			gimg = calloc(bb_filter_elements(g.hdr.nblocks, g.hdr.allow_blocks),
				      BB_BLOCK_BYTES);
		if (gimg)
			bb_filter_write_image(&g, gimg);
		for (i = 0; gimg && i < 20000; i++) {
			const struct bb_index_rec *rec;
			struct bb_entry e = { .kind = BB_ENTRY_NAME, .text = text };

			snprintf(text, sizeof(text), "q%zu-%llx.test", i, (unsigned long long)rnd());
			if (bb_image_match_entry(gimg, &e)) {
				hits++;
				fp += !bb_image_attribute(gimg, &gv, &e, &rec);
			}
		}
		for (i = 0; gimg && i < list.n; i++) {
			const struct bb_index_rec *rec;

			members_fp += !bb_image_attribute(gimg, &gv, &list.entries[i], &rec);
		}
		tap_result(gimg && hits > 100 && fp == hits,
			   "index: at a 30% rate, every hit of a non-member is a false positive",
			   "%zu of %zu hits called false positives", fp, hits);
		tap_result(gimg && !members_fp, "index: ... and no member ever is one",
			   "%zu members", members_fp);
		free(gimg);
		if (!err) {
			bb_index_close(&gv);
			bb_index_free(&gi);
			bb_filter_free(&g);
		}
	}

	/* streamed in parts on threads (its own plan: repeats are counted): the same */
	err = stream_lists(paths, &sf, &sidx);
	tap_result(!err && sidx.n >= idx.n, "index: streamed in 4 KiB parts on 3 threads",
		   "err %d, %zu records", err, sidx.n);
	if (!err) {
		wrong = misattributed(&sf, &sidx, &list, ref, paths, ipath, &wider);
		tap_result(!wrong, "index: streamed, every entry attributed to a list and a "
			   "line of it that holds the key found", "%zu of %zu wrong", wrong,
			   list.n);
		bb_filter_free(&sf);
	}
	bb_index_free(&sidx);

	for (k = 0; k < 2; k++)
		bb_list_free(&ref[k]);
	bb_index_free(&idx);
	bb_filter_free(&f);
	bb_list_free(&list);
	for (k = 0; k < 2; k++)
		unlink(paths[k]);
	unlink(ipath);
}

/*
 * bb_index_sort(): by hash, then list and line (a key's first listing first). Hashes
 * that differ in every byte, in a few bytes only, and few hashes for many records (a
 * key listed many times).
 */
static void test_sort(void)
{
	static const __u64 masks[] = { ~0ULL, 0xff00000000ff00ffULL, 0x3fULL };
	size_t n = 200000, i, m, bad;
	struct bb_index x;

	for (m = 0; m < sizeof(masks) / sizeof(masks[0]); m++) {
		memset(&x, 0, sizeof(x));
		x.recs = malloc(n * sizeof(*x.recs));
		if (!x.recs) {
			tap_result(0, "sort: memory", NULL);
			return;
		}
		x.n = x.cap = n;
		for (i = 0; i < n; i++)	/* lines in reverse: the sort orders them */
			x.recs[i] = (struct bb_index_rec){ .h = rnd() & masks[m],
							   .line = (__u32)(n - i) };
		bad = bb_index_sort(&x) ? n : 0;
		for (i = 1; i < n && !bad; i++)
			if (x.recs[i - 1].h > x.recs[i].h ||
			    (x.recs[i - 1].h == x.recs[i].h && x.recs[i - 1].line > x.recs[i].line))
				bad = i;
		tap_result(!bad, "bb_index_sort: by hash, then line",
			   "%zu records, hashes masked with %#llx: first out of order at %zu", n,
			   (unsigned long long)masks[m], bad);
		free(x.recs);
	}
}

int main(void)
{
	const char *quick = getenv("BB_QUICK");

	if (quick && !strcmp(quick, "1"))
		n_lines /= 10;
	tap_plan_header();
	if (!mkdtemp(dir)) {
		tap_result(0, "a scratch directory", NULL);
		return tap_finish();
	}
	test_index();
	test_sort();
	rmdir(dir);
	return tap_finish();
}

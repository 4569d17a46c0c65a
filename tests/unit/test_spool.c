// SPDX-License-Identifier: GPL-2.0
/*
 * The one-pass streamed build (filter_spool.c): records spooled in buckets by hash,
 * each bucket sorted into the index file, the bits set a bucket at a time. Against
 * the in-memory build and the two-pass streamed one: the same image byte for byte,
 * the same index record for record (every repeated line kept, lines across parts and
 * buckets the files'), every listed line named by check's lookup; a bucket's sort
 * against qsort on ties made to hurt; a spool or an index that cannot be written.
 */
#define _GNU_SOURCE	/* O_TMPFILE */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "filter.h"
#include "filter_int.h"
#include "list.h"
#include "rng.h"
#include "tap.h"

#define SEED	0x73706f6fULL

/* Lines per list: 120k; BB_QUICK=1 (valgrind, sanitizers) takes 12k. */
static size_t n_lines = 120000;
static char dir[] = "/tmp/bb_test_spool.XXXXXX";
static const char *spool_dir;	/* tmpfs where there is one, as /run is */
static __u64 rng_state = 0x73706f6f6cULL;

static __u64 rnd(void)
{
	return splitmix64(&rng_state);
}

/*
 * A list of every kind: /32s (10/8, none covered by a prefix), /24s and /20s apart
 * (the plan decides their keys: they wait in the spool), /16s and /12s (the short
 * tables), IPv6 /128s and /48s, names, wildcards, URLs, Adblock rules, one exception
 * (an allowlist entry); comments, blanks, rejects, CRLF. No key repeats, unless
 * repeats: then about a third of the entries are listed again further on. first:
 * where the entries' numbers start, so that lists can be apart.
 */
static const char *write_list(const char *name, size_t lines, bool repeats, __u64 first)
{
	static char path[4][600];
	static unsigned int next;
	char *p = path[next++ % 4];
	FILE *f;
	size_t i;

	snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (!f)
		return NULL;
	for (i = 0; i < lines; i++) {
		/* j: the entry's own number among its kind's, or an earlier one's */
		__u64 r = rnd(), j = first + (repeats && r % 3 == 0 ? (r >> 8) % (i / 12 + 1) :
					      i / 12);

		switch (i % 12) {
		case 0: case 1: case 2:
			j = j * 3 + i % 12;
			fprintf(f, "10.%u.%u.%u\n", (unsigned)(j >> 16) & 255,
				(unsigned)(j >> 8) & 255, (unsigned)j & 255);
			break;
		case 3:
			if (j % 4)
				fprintf(f, "%u.%u.%u.0/24\n", 20 + (unsigned)(j >> 16),
					(unsigned)(j >> 8) & 255, (unsigned)j & 255);
			else
				fprintf(f, "%u.%u.%u.0/20\n", 60 + (unsigned)(j >> 12),
					(unsigned)(j >> 4) & 255, (unsigned)(j & 15) << 4);
			break;
		case 4:
			if (j % 16)
				fprintf(f, "%u.%u.0.0/16\r\n", 100 + (unsigned)(j >> 8) % 100,
					(unsigned)j & 255);
			else
				fprintf(f, "%u.%u.0.0/12\r\n", 200 + (unsigned)(j >> 8) % 50,
					(unsigned)((j >> 4) & 15) << 4);
			break;
		case 5:
			fprintf(f, "2001:db8:%x:%x::1\n", (unsigned)(j >> 16) & 0xffff,
				(unsigned)j & 0xffff);
			break;
		case 6:
			fprintf(f, "2001:db9:%x::/48\n", (unsigned)j & 0xffff);
			break;
		case 7:
			fprintf(f, "h%llx.Example.COM\n", (unsigned long long)j);
			break;
		case 8:
			fprintf(f, "*.w%llx.example.org\n", (unsigned long long)j);
			break;
		case 9:
			fprintf(f, "http://u%llx.example.net/p/%llx\n", (unsigned long long)j,
				(unsigned long long)(j * 7));
			break;
		case 10:
			fprintf(f, "||ads%llx.example.com^\n", (unsigned long long)j);
			break;
		default:
			fprintf(f, "%s\n", i == 11 ? "@@||exception.example^" :
				i % 48 == 23 ? "bad..name" : r & 1 ? "# comment" : "");
		}
	}
	return fclose(f) ? NULL : p;
}

/*
 * An allowlist file (every entry allowed): addresses, a prefix, names; and 3000 more
 * names, so that it is parsed in parts on every thread, its keys coming in any order.
 */
static const char *write_allow(void)
{
	static char path[600];
	unsigned int i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/allow.txt", dir);
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fprintf(f, "10.0.0.7\n10.0.1.0/24\nallowed.example\n*.ok.example\n2001:db8::1\n");
	for (i = 0; i < 3000; i++)
		fprintf(f, "a%u.allowed.example\n", i);
	return fclose(f) ? NULL : path;
}

struct lists {
	const char *path[3];
	bool allow[3];
	unsigned int n;
};

static void list_opts(const struct lists *l, unsigned int k, struct bb_list_opts *o)
{
	o->file = (struct bb_file_opts){ .source = (__u8)k, .allow = l->allow[k] };
}

/* ---- a pass over the lists, as load makes it: the tally, and the spool or the stream ---- */

struct pass {
	struct bb_key_tally tally[BB_LIST_MAX_THREADS];
	struct bb_spool *spool;
	struct bb_filter_stream *stream;
	size_t *base[3], n_parts[3], lines;
	unsigned int src;
};

static void pass_entry(void *ctx, unsigned int thread, const struct bb_entry *e)
{
	struct pass *p = ctx;

	if (p->stream) {
		bb_filter_stream_add(p->stream, thread, e);
		return;
	}
	bb_key_tally_entry(&p->tally[thread], e);
	if (p->spool)
		bb_spool_add(p->spool, thread, e);
}

static void pass_part(void *ctx, unsigned int thread, size_t part)
{
	struct pass *p = ctx;

	if (p->stream)
		bb_filter_stream_part(p->stream, thread, part);
	else if (p->spool)
		bb_spool_part(p->spool, thread, part);
}

static void pass_part_lines(void *ctx, size_t part, size_t lines)
{
	struct pass *p = ctx;

	if (part >= p->n_parts[p->src]) {
		size_t *b = realloc(p->base[p->src], (part + 1) * sizeof(size_t));

		if (!b)
			abort();
		p->base[p->src] = b;
		p->n_parts[p->src] = part + 1;
	}
	p->base[p->src][part] = p->lines;
	p->lines += lines;
}

static int scan_all(struct pass *p, const struct lists *l, struct bb_list_opts *lo)
{
	struct bb_list_sink sink = { .entry = pass_entry, .part = pass_part,
				     .part_lines = pass_part_lines, .ctx = p };
	struct bb_list_counts c;
	unsigned int k;
	int err = 0;

	for (k = 0; k < l->n && !err; k++) {
		list_opts(l, k, lo);
		p->src = k;
		p->lines = 0;
		err = bb_list_scan_file(l->path[k], lo, &sink, &c);
	}
	return err;
}

static void tally_sum(const struct pass *p, struct bb_key_tally *sum)
{
	unsigned int t;

	memset(sum, 0, sizeof(*sum));
	for (t = 0; t < BB_LIST_MAX_THREADS; t++)
		bb_key_tally_sum(sum, &p->tally[t]);
}

static struct bb_block *image_of(const struct bb_filter *filter)
{
	struct bb_block *img = calloc(bb_filter_elements(filter->hdr.nblocks,
							 filter->hdr.allow_blocks), sizeof(*img));

	if (img)
		bb_filter_write_image(filter, img);
	return img;
}

static size_t image_bytes(const struct bb_block *img)
{
	const struct bb_header *hdr = (const void *)&img[BB_HEADER_INDEX];

	return bb_filter_elements(hdr->nblocks, hdr->allow_blocks) * BB_BLOCK_BYTES;
}

static bool same_image(const struct bb_block *a, const struct bb_block *b)
{
	return a && b && image_bytes(a) == image_bytes(b) && !memcmp(a, b, image_bytes(a));
}

/* The in-memory build: every list parsed, built, indexed. */
static int in_memory(const struct lists *l, unsigned int threads, struct bb_block **img,
		     struct bb_index *idx)
{
	struct bb_list_opts lo = { .threads = threads, .part_bytes = 4096 };
	struct bb_filter_opts fo = { .seed = SEED, .threads = threads };
	struct bb_filter f;
	struct bb_list list;
	unsigned int k;
	int err = 0;

	bb_list_init(&list);
	for (k = 0; k < l->n && !err; k++) {
		list_opts(l, k, &lo);
		err = bb_list_parse_file(&list, l->path[k], &lo, NULL);
	}
	err = err ?: bb_filter_build(&f, &list, &fo);
	if (!err) {
		*img = image_of(&f);
		err = bb_filter_index(&f, &list, threads, idx);
		bb_filter_free(&f);
	}
	bb_list_free(&list);
	return err;
}

/* The two-pass stream, with its index (rebased and sorted). */
static int two_pass(const struct lists *l, unsigned int threads, struct bb_block **img,
		    struct bb_index *idx)
{
	struct pass *p = calloc(1, sizeof(*p));
	struct bb_list_opts lo = { .threads = threads, .part_bytes = 4096 };
	struct bb_filter_opts fo = { .seed = SEED, .threads = threads, .index = idx };
	struct bb_key_tally sum;
	struct bb_filter f;
	__u64 repeats;
	unsigned int k;
	int err;

	if (!p)
		return -ENOMEM;
	memset(idx, 0, sizeof(*idx));
	err = scan_all(p, l, &lo);
	tally_sum(p, &sum);
	err = err ?: bb_filter_stream_begin(&f, &sum, &fo, &p->stream);
	err = err ?: scan_all(p, l, &lo);
	if (p->stream) {
		int end = bb_filter_stream_end(p->stream, &repeats);

		err = err ?: end;
		if (!err)
			*img = image_of(&f);
		bb_filter_free(&f);
	}
	err = err ?: bb_index_rebase(idx, p->base, p->n_parts, l->n);
	for (k = 0; k < 3; k++)
		free(p->base[k]);
	free(p);
	return err;
}

/* Where the one-pass build writes to: its spool and its index. */
struct one_pass_files {
	int spool_fd;		/* -1: a new O_TMPFILE in spool_dir */
	int index_fd;		/* -1: the index file at dir/index.bin */
	int index_err, spool_err;	/* what bb_spool_index(), bb_spool_error() said */
	rlim_t index_limit;	/* > 0: the index file's writes fail past it (RLIMIT_FSIZE) */
};

/* The one-pass build: its image, and its index file, written and opened. */
static int one_pass(const struct lists *l, unsigned int threads, struct bb_block **img,
		    struct bb_index_view *view, struct one_pass_files *files)
{
	struct pass *p = calloc(1, sizeof(*p));
	struct bb_list_opts lo = { .threads = threads, .part_bytes = 4096 };
	struct bb_filter_opts fo = { .seed = SEED, .threads = threads };
	struct bb_index_meta meta = { .seed = SEED, .generation = 1, .fp = 0.001 };
	const char *sources[3] = { "a", "b", "c" };
	struct bb_index_file f = { .fd = -1 };
	struct bb_key_tally sum;
	struct bb_filter filter;
	char path[700];
	__u64 n_recs = 0, repeats;
	unsigned int k;
	int fd = files->spool_fd, err;

	if (!p)
		return -ENOMEM;
	if (fd < 0)
		fd = open(spool_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(p);
		return -errno;
	}
	snprintf(path, sizeof(path), "%s/index.bin", dir);
	err = bb_spool_begin(&filter, fd, &fo, &p->spool);
	err = err ?: scan_all(p, l, &lo);
	tally_sum(p, &sum);
	err = err ?: bb_spool_plan(p->spool, &sum, p->base, p->n_parts, l->n);
	files->spool_err = p->spool ? bb_spool_error(p->spool) : 0;
	if (!err && files->index_fd >= 0)
		f.fd = files->index_fd;
	else if (!err)
		err = bb_index_file_create(&f, path);
	if (!err && files->index_limit) {	/* the index's writes fail past it */
		struct rlimit lim = { files->index_limit, RLIM_INFINITY }, was;

		signal(SIGXFSZ, SIG_IGN);
		getrlimit(RLIMIT_FSIZE, &was);
		setrlimit(RLIMIT_FSIZE, &lim);
		files->index_err = bb_spool_index(p->spool, &f, &n_recs);
		setrlimit(RLIMIT_FSIZE, &was);
	} else if (!err) {
		files->index_err = bb_spool_index(p->spool, &f, &n_recs);
	}
	err = err ?: bb_spool_build(p->spool, &sum, &fo, &f, &repeats);
	if (!err)
		*img = image_of(&filter);
	bb_filter_free(&filter);
	bb_spool_free(p->spool);
	if (!err && !files->index_err && files->index_fd < 0) {
		err = bb_index_file_commit(&f, n_recs, sources, l->n, &meta);
		err = err ?: bb_index_open(path, view);
	} else if (files->index_fd < 0) {
		bb_index_file_abort(&f);
	}
	for (k = 0; k < 3; k++)
		free(p->base[k]);
	free(p);
	return err;
}

static bool same_records(const struct bb_index_rec *a, size_t na, const struct bb_index_rec *b,
			 size_t nb)
{
	return na == nb && (!na || !memcmp(a, b, na * sizeof(*a)));
}

/* No key repeats: one pass, two passes and in memory, the same image and index. */
static void test_same(void)
{
	struct lists l = { .path = { write_list("distinct.txt", n_lines, false, 0),
				     write_list("distinct2.txt", n_lines / 10, false, n_lines / 12 + 1) }, .n = 2 };
	unsigned int threads[] = { 1, 2, 3 }, i;
	char name[128];

	for (i = 0; i < 3; i++) {
		struct one_pass_files files = { .spool_fd = -1, .index_fd = -1 };
		struct bb_block *mem = NULL, *two = NULL, *one = NULL;
		struct bb_index mem_idx = { 0 }, two_idx = { 0 };
		struct bb_index_view v = { 0 };
		int e1 = in_memory(&l, threads[i], &mem, &mem_idx);
		int e2 = two_pass(&l, threads[i], &two, &two_idx);
		int e3 = one_pass(&l, threads[i], &one, &v, &files);

		snprintf(name, sizeof(name), "no repeats, %u thread%s, parts of 4 KiB: the "
			 "one-pass image is the in-memory and the two-pass one, byte for byte",
			 threads[i], threads[i] == 1 ? "" : "s");
		tap_result(!e1 && !e2 && !e3 && same_image(one, mem) && same_image(one, two),
			   name, "errors %d %d %d", e1, e2, e3);
		snprintf(name, sizeof(name), "no repeats, %u thread%s: its index file holds the "
			 "in-memory and the two-pass records, in order", threads[i],
			 threads[i] == 1 ? "" : "s");
		tap_result(!e3 && same_records(v.recs, v.n, mem_idx.recs, mem_idx.n) &&
			   same_records(v.recs, v.n, two_idx.recs, two_idx.n) &&
			   v.seed == SEED && v.n_sources == 2, name, "%zu records, %zu in memory, %zu "
			   "two-pass", v.n, mem_idx.n, two_idx.n);
		free(mem);
		free(two);
		free(one);
		bb_index_free(&mem_idx);
		bb_index_free(&two_idx);
		bb_index_close(&v);
	}
}

/* The first line of path that holds the IPv4 /32 text, or 0. */
static __u32 first_line(const char *path, const char *text)
{
	char line[256];
	__u32 no = 0;
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f)) {
		no++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!strcmp(line, text)) {
			fclose(f);
			return no;
		}
	}
	if (f)
		fclose(f);
	return 0;
}

/*
 * Keys repeat, an allowlist beside: the one-pass index is the two-pass one record for
 * record (each repeated line kept); its image the in-memory one's, allowlist and all
 * (both put the allowlist's keys in in the lists' order). Then check's lookup over
 * the written index: every /32 of the list named by the first line that lists it,
 * whichever part and bucket its records were in.
 */
static void test_repeats(void)
{
	struct lists l = { .path = { write_list("repeats.txt", n_lines, true, 0), write_allow(),
				     write_list("repeats2.txt", n_lines / 4, true, n_lines / 12 + 1) },
			   .allow = { false, true, false }, .n = 3 };
	struct one_pass_files files = { .spool_fd = -1, .index_fd = -1 };
	struct bb_block *mem = NULL, *two = NULL, *one = NULL;
	struct bb_index mem_idx = { 0 }, two_idx = { 0 };
	struct bb_index_view v = { 0 };
	size_t checked = 0, wrong = 0, allowed_wrong = 0;
	char line[256], first[160] = "";
	__u32 no = 0;
	FILE *f;
	int e1 = in_memory(&l, 2, &mem, &mem_idx);
	int e2 = two_pass(&l, 3, &two, &two_idx);
	int e3 = one_pass(&l, 3, &one, &v, &files);

	tap_result(!e2 && !e3 && same_records(v.recs, v.n, two_idx.recs, two_idx.n) &&
		   v.n > mem_idx.n, "repeats: the one-pass index holds the two-pass records, "
		   "every repeated line", "errors %d %d; %zu records, two-pass %zu, in memory %zu",
		   e2, e3, v.n, two_idx.n, mem_idx.n);
	/* the same keys (so the same size), the bits of the same keys, the allowlist's
	 * keys inserted in the same order: the image of the two-pass stream on one thread */
	tap_result(!e1 && !e3 && one && two && image_bytes(one) == image_bytes(two),
		   "repeats: the one-pass filter is sized as the two-pass one", NULL);
	f = l.path[0] ? fopen(l.path[0], "r") : NULL;
	while (!e3 && f && fgets(line, sizeof(line), f)) {
		const struct bb_index_rec *rec = NULL;
		struct bb_entry e = { 0 };
		const char *why;
		struct bb_list one_line;

		no++;
		line[strcspn(line, "\r\n")] = '\0';
		if (strncmp(line, "10.", 3) || strchr(line, '/'))
			continue;
		bb_list_init(&one_line);
		if (bb_list_parse_line(&one_line, line, strlen(line), &why) == 1)
			e = one_line.entries[0];
		bb_list_free(&one_line);
		checked++;
		if (!strcmp(line, "10.0.0.7") || !strncmp(line, "10.0.1.", 7)) {
			/* allowed: listed all the same, the allowlist asked after the hit */
			allowed_wrong += !bb_image_allowed(one, &e);
			continue;
		}
		if (bb_image_attribute(one, &v, &e, &rec) != 1 || rec->src != 0 ||
		    rec->line != first_line(l.path[0], line)) {
			if (!wrong++)
				snprintf(first, sizeof(first), "line %u (%s): %s:%u, not %u", no,
					 line, rec ? bb_index_source(&v, rec->src) : "-",
					 rec ? rec->line : 0, first_line(l.path[0], line));
		}
		if (checked > 3000)
			break;	/* first_line() reads the file: enough */
	}
	if (f)
		fclose(f);
	tap_result(checked > 1000 && !wrong && !allowed_wrong, "repeats: check's lookup names "
		   "the first line of every /32 checked, across parts and buckets",
		   "%zu checked, %zu wrong, %zu allowed wrong; first: %s", checked, wrong,
		   allowed_wrong, first);
	free(mem);
	free(two);
	free(one);
	bb_index_free(&mem_idx);
	bb_index_free(&two_idx);
	bb_index_close(&v);
}

/* The image of a one-pass build on one thread against the in-memory one, allowlist too. */
static void test_allowlist_order(void)
{
	struct lists l = { .path = { write_list("allowed.txt", n_lines / 4, false, 0), write_allow() },
			   .allow = { false, true }, .n = 2 };
	struct one_pass_files files = { .spool_fd = -1, .index_fd = -1 };
	struct bb_block *mem = NULL, *one = NULL;
	struct bb_index mem_idx = { 0 };
	struct bb_index_view v = { 0 };
	const struct bb_header *h;
	int e1 = in_memory(&l, 2, &mem, &mem_idx), e2 = one_pass(&l, 3, &one, &v, &files);

	h = one ? (const void *)&one[BB_HEADER_INDEX] : NULL;
	tap_result(!e1 && !e2 && h && h->allow_blocks && same_image(one, mem),
		   "an allowlist beside: the one-pass image is the in-memory one, its allowlist "
		   "keys in the lists' order", "errors %d %d", e1, e2);
	free(mem);
	free(one);
	bb_index_free(&mem_idx);
	bb_index_close(&v);
}

/*
 * The same, its entries handed to the spool in a shuffled order on three threads: the
 * allowlist's keys still go in in the lists' order, whatever order the parse threads
 * met them in (a scan on an idle machine meets them nearly in order).
 */
static void test_allowlist_shuffled(void)
{
	struct lists l = { .path = { write_list("shuffled.txt", n_lines / 8, false, 0),
				     write_allow() }, .allow = { false, true }, .n = 2 };
	struct bb_list_opts lo = { .threads = 2 };
	struct bb_filter_opts fo = { .seed = SEED, .threads = 3 };
	struct bb_block *mem = NULL, *one = NULL;
	struct bb_key_tally tally = { 0 };
	struct bb_filter f, sf;
	struct bb_spool *spool = NULL;
	struct bb_list list;
	size_t *order, i, n;
	__u64 repeats;
	unsigned int k;
	int fd = open(spool_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600), err = fd < 0;

	bb_list_init(&list);
	for (k = 0; k < l.n && !err; k++) {
		list_opts(&l, k, &lo);
		err = bb_list_parse_file(&list, l.path[k], &lo, NULL);
	}
	n = list.n;
	order = malloc((n + 1) * sizeof(*order));
	err = err ?: (order ? 0 : -ENOMEM) ?: bb_filter_build(&f, &list, &fo);
	if (!err) {
		mem = image_of(&f);
		bb_filter_free(&f);
	}
	for (i = 0; !err && i < n; i++)
		order[i] = i;
	for (i = n; !err && i > 1; i--) {	/* Fisher-Yates */
		size_t j = rnd() % i, t = order[i - 1];

		order[i - 1] = order[j];
		order[j] = t;
	}
	err = err ?: bb_spool_begin(&sf, fd, &fo, &spool);
	fd = -1;
	for (i = 0; !err && i < n; i++) {
		bb_key_tally_entry(&tally, &list.entries[order[i]]);
		bb_spool_add(spool, (unsigned int)(i % 3), &list.entries[order[i]]);
	}
	/* lines are the files' already: no parts to rebase */
	err = err ?: bb_spool_plan(spool, &tally, NULL, NULL, 0);
	err = err ?: bb_spool_build(spool, &tally, &fo, NULL, &repeats);
	if (!err)
		one = image_of(&sf);
	if (spool)
		bb_filter_free(&sf);
	bb_spool_free(spool);
	if (fd >= 0)
		close(fd);
	tap_result(!err && same_image(one, mem), "entries met in a shuffled order on three "
		   "threads: the allowlist's keys go in in the lists' order, the image the "
		   "in-memory one's", "err %d", err);
	free(order);
	free(mem);
	free(one);
	bb_list_free(&list);
}

static int rec_cmp(const void *pa, const void *pb)
{
	const struct bb_index_rec *a = pa, *b = pb;

	if (a->h != b->h)
		return a->h < b->h ? -1 : 1;
	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return a->form < b->form ? -1 : a->form > b->form;
}

/*
 * A bucket's sort against qsort: random hashes of one top byte; one key many times
 * (lines, lists and forms apart); hashes alike in their top 32 bits; an empty bucket
 * and a bucket of one.
 */
static void test_bucket_sort(void)
{
	size_t sizes[] = { 0, 1, 33, 5000, 40000 }, i, k, wrong = 0;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i];
		struct bb_index_rec *r = malloc((n + 1) * sizeof(*r));
		struct bb_index_rec *want = malloc((n + 1) * sizeof(*r));
		struct bb_index_rec *scratch = malloc((n + 1) * sizeof(*r));
		struct bb_index_rec *got;
		__u64 top = rnd() & 0xff00000000000000ULL;

		if (!r || !want || !scratch)
			abort();
		for (k = 0; k < n; k++) {
			__u64 x = rnd();

			switch (x % 5) {
			case 0:		/* one key, listed again and again */
				r[k].h = top | 0x123456789abcULL;
				break;
			case 1:		/* alike in the top 32 bits */
				r[k].h = top | 0x00abcdef00000000ULL | (x >> 40);
				break;
			default:
				r[k].h = top | (rnd() >> 8);
			}
			r[k].line = (__u32)(x >> 8) % 50;
			r[k].src = (__u8)((x >> 20) % 3);
			r[k].kind = (__u8)((x >> 24) % 2);
			r[k].form = (__u8)((x >> 28) % 3);
			r[k].pad = 0;
		}
		memcpy(want, r, n * sizeof(*r));
		qsort(want, n, sizeof(*want), rec_cmp);
		got = index_sort_bucket(r, n, scratch);
		wrong += n && memcmp(got, want, n * sizeof(*got));
		free(r);
		free(want);
		free(scratch);
	}
	tap_result(!wrong, "a bucket's sort is qsort's: one key many times, hashes alike in "
		   "their top 32 bits, empty and single buckets", "%zu of 5 sizes wrong", wrong);
}

/*
 * A spool that cannot be written (/dev/full): said after the pass, and the build
 * refuses it (load then parses the lists again). An index that cannot be written:
 * said, and the spool still builds the filter, whole.
 */
static void test_full(void)
{
	struct lists l = { .path = { write_list("full.txt", n_lines / 10, false, 0) }, .n = 1 };
	struct one_pass_files spool_full = { .spool_fd = open("/dev/full", O_RDWR | O_CLOEXEC),
					     .index_fd = -1 };
	struct one_pass_files index_full = { .spool_fd = -1,
					     .index_fd = open("/dev/full", O_RDWR | O_CLOEXEC) };
	/* the list's index is about 16 bytes times 1.5 keys a line: half of it */
	struct one_pass_files half_full = { .spool_fd = -1, .index_fd = -1,
					    .index_limit = n_lines / 10 * 12 };
	struct bb_block *mem = NULL, *one = NULL, *one2 = NULL;
	struct bb_index mem_idx = { 0 };
	struct bb_index_view v = { 0 };
	int e1, e2, e3;

	e1 = in_memory(&l, 2, &mem, &mem_idx);
	e2 = spool_full.spool_fd >= 0 ? one_pass(&l, 2, &one, &v, &spool_full) : -1;
	tap_result(spool_full.spool_err == -ENOSPC && e2 && !one,
		   "a spool in a full directory: said after the pass (-ENOSPC), nothing built",
		   "spool %d, build %d", spool_full.spool_err, e2);
	e3 = index_full.index_fd >= 0 ? one_pass(&l, 2, &one2, &v, &index_full) : -1;
	tap_result(!e1 && !e3 && index_full.index_err == -ENOSPC && same_image(one2, mem),
		   "an index that cannot be written: said (-ENOSPC), the filter built whole "
		   "from the spool", "index %d, build %d", index_full.index_err, e3);
	/* half the index written, the buckets written gone from the spool: the bits of
	 * those from the index file, of the others from the spool */
	free(one2);
	one2 = NULL;
	e3 = one_pass(&l, 2, &one2, &v, &half_full);
	tap_result(!e3 && half_full.index_err == -EFBIG && same_image(one2, mem),
		   "an index cut short halfway: said (-EFBIG), the filter built whole from the "
		   "buckets written and those left in the spool", "index %d, build %d",
		   half_full.index_err, e3);
	if (index_full.index_fd >= 0)
		close(index_full.index_fd);
	free(mem);
	free(one);
	free(one2);
	bb_index_free(&mem_idx);
}

int main(void)
{
	const char *quick = getenv("BB_QUICK");
	char cmd[64];

	if (quick && !strcmp(quick, "1"))
		n_lines = 12000;
	tap_plan_header();
	if (!mkdtemp(dir)) {
		tap_result(0, "mkdtemp", NULL);
		return tap_finish();
	}
	spool_dir = access("/dev/shm", W_OK) ? dir : "/dev/shm";
	test_bucket_sort();
	test_same();
	test_repeats();
	test_allowlist_order();
	test_allowlist_shuffled();
	test_full();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "# could not remove %s\n", dir);
	return tap_finish();
}

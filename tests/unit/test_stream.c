// SPDX-License-Identifier: GPL-2.0
/*
 * The streamed load (bb_list_scan_file + bb_filter_stream_*) against the in-memory one
 * (bb_list_parse_file + bb_filter_build): the same image when no key repeats, every
 * entry matched when keys do repeat, the same counts and reject reports.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter.h"
#include "list.h"
#include "rng.h"
#include "tap.h"

#define SEED 0x5eedULL

/* Lines per large list: 300k; BB_QUICK=1 (valgrind, sanitizers) takes 20k. */
static size_t n_lines = 300000;
static char tmpdir[] = "/tmp/bb_test_stream.XXXXXX";
static __u64 rng_state = 0x2545f4914f6cdd1dULL;

static __u64 rnd(void)
{
	return splitmix64(&rng_state);
}

static const char *write_file(const char *name, const char *text, size_t len)
{
	static char path[4][256];
	static unsigned int next;
	char *p = path[next++ % 4];
	FILE *f;

	snprintf(p, sizeof(path[0]), "%s/%s", tmpdir, name);
	f = fopen(p, "w");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f))
		return NULL;
	return p;
}

struct scan_tally {
	struct bb_key_tally t[BB_LIST_MAX_THREADS];
};

static void tally_entry(void *ctx, unsigned int thread, const struct bb_entry *e)
{
	bb_key_tally_entry(&((struct scan_tally *)ctx)->t[thread], e);
}

static void stream_entry(void *ctx, unsigned int thread, const struct bb_entry *e)
{
	bb_filter_stream_add(ctx, thread, e);
}

/* The image of a filter, malloc'd, bb_filter_elements() blocks. */
static struct bb_block *image_of(const struct bb_filter *filter)
{
	struct bb_block *img = calloc(bb_filter_elements(filter->hdr.nblocks, filter->hdr.allow_blocks), sizeof(*img));

	if (img)
		bb_filter_write_image(filter, img);
	return img;
}

/* Both loads of path, threads threads, pieces of part_bytes; images out (malloc'd). */
static int load_both(const char *path, unsigned int threads, size_t part_bytes,
		     struct bb_block **mem_img, struct bb_block **stream_img,
		     struct bb_list *list, struct bb_list_counts *scan_counts, __u64 *repeats)
{
	struct bb_list_opts lopts = { .threads = threads, .part_bytes = part_bytes };
	struct bb_filter_opts fopts = { .seed = SEED, .threads = threads };
	struct scan_tally *tally = calloc(1, sizeof(*tally));
	struct bb_key_tally sum = { 0 };
	struct bb_filter mem = { 0 }, str = { 0 };
	struct bb_filter_stream *stream;
	struct bb_list_sink sink = { .entry = tally_entry, .ctx = tally };
	struct bb_list_counts again;
	unsigned int t;
	int err;

	*mem_img = *stream_img = NULL;
	bb_list_init(list);
	if (!tally)
		return -1;
	err = bb_list_parse_file(list, path, &lopts, NULL);
	err = err ?: bb_filter_build(&mem, list, &fopts);
	if (!err)
		*mem_img = image_of(&mem);
	err = err ?: bb_list_scan_file(path, &lopts, &sink, scan_counts);
	for (t = 0; t < BB_LIST_MAX_THREADS; t++)
		bb_key_tally_sum(&sum, &tally->t[t]);
	err = err ?: bb_filter_stream_begin(&str, &sum, &fopts, &stream);
	if (!err) {
		sink = (struct bb_list_sink){ .entry = stream_entry, .ctx = stream };
		err = bb_list_scan_file(path, &lopts, &sink, &again);
		if (bb_filter_stream_end(stream, repeats))
			err = err ?: -1;
		if (!err && memcmp(&again, scan_counts, sizeof(again)))
			err = -1;
		if (!err)
			*stream_img = image_of(&str);
	}
	bb_filter_free(&mem);
	bb_filter_free(&str);
	free(tally);
	return err;
}

static size_t image_bytes(const struct bb_block *img)
{
	const struct bb_header *hdr = (const void *)&img[BB_HEADER_INDEX];

	return bb_filter_elements(hdr->nblocks, hdr->allow_blocks) * BB_BLOCK_BYTES;
}

/* A list with no repeated key: every kind, CRLF, comments, rejects, no final newline. */
static char *distinct_list(size_t lines, size_t *len_out)
{
	size_t cap = lines * 64 + 1024, len = 0, i;
	char *buf = malloc(cap);

	if (!buf)
		return NULL;
	len += (size_t)sprintf(buf + len, "# a generated list\r\n\n! adblock comment\n");
	for (i = 0; i < lines; i++) {
		__u64 r = rnd();

		switch (i % 8) {
		case 0:	/* distinct /32s: the index in the low bits */
			len += (size_t)sprintf(buf + len, "10.%u.%u.%u\n", (unsigned)(i >> 16) & 255,
					       (unsigned)(i >> 8) & 255, (unsigned)i & 255);
			break;
		case 1:
			len += (size_t)sprintf(buf + len, "h%zu-%llx.Example.COM\r\n", i,
					       (unsigned long long)(r & 0xffffff));
			break;
		case 2:
			len += (size_t)sprintf(buf + len, "0.0.0.0 hosts%zu.example.net\n", i);
			break;
		case 3:
			len += (size_t)sprintf(buf + len, "*.wild%zu.example.org\n", i);
			break;
		case 4:
			len += (size_t)sprintf(buf + len, "http://u%zu.example.com/p/%llx\n", i,
					       (unsigned long long)(r >> 40));
			break;
		case 5:
			len += (size_t)sprintf(buf + len, "2001:db8:%x:%x::1\n",
					       (unsigned)(i >> 16) & 0xffff, (unsigned)i & 0xffff);
			break;
		case 6:	/* rejects, of several reasons */
			len += (size_t)sprintf(buf + len, "%s\n", r & 1 ? "nodot" : "bad..name.com");
			break;
		default:
			len += (size_t)sprintf(buf + len, "||ads%zu.example.com^\n", i);
			break;
		}
	}
	/* /24s, far from every /32 above, and no final newline */
	for (i = 0; i < 64; i++)
		len += (size_t)sprintf(buf + len, "%s172.16.%zu.0/24", i ? "\n" : "", i);
	*len_out = len;
	return buf;
}

static void test_same_image(void)
{
	struct bb_block *mem_img, *str_img;
	struct bb_list_counts c;
	struct bb_list list;
	__u64 repeats = 0;
	size_t len, i;
	char *text = distinct_list(n_lines / 4, &len);
	const char *path = text ? write_file("distinct.txt", text, len) : NULL;
	unsigned int threads[] = { 1, 2, 3 };
	char name[96];

	for (i = 0; i < 3; i++) {
		int err = path ? load_both(path, threads[i], 64 << 10, &mem_img, &str_img, &list,
					  &c, &repeats) : -1;

		snprintf(name, sizeof(name), "no repeats, %u thread%s: streamed image is the "
			 "in-memory one, byte for byte", threads[i], threads[i] == 1 ? "" : "s");
		ASSERT_TRUE(!err && mem_img && str_img && image_bytes(mem_img) == image_bytes(str_img) &&
			    !memcmp(mem_img, str_img, image_bytes(mem_img)), name);
		snprintf(name, sizeof(name), "no repeats, %u thread%s: the same counts", threads[i],
			 threads[i] == 1 ? "" : "s");
		ASSERT_TRUE(!err && !memcmp(&c, &list.counts, sizeof(c)) && !list.counts.duplicates,
			    name);
		free(mem_img);
		free(str_img);
		bb_list_free(&list);
	}
	free(text);
}

/* Random entries, many repeated: every one matches the streamed filter. */
static void test_no_false_negatives(void)
{
	size_t cap = n_lines * 48, len = 0, i, missed = 0;
	char *buf = malloc(cap);
	struct bb_block *mem_img = NULL, *str_img = NULL;
	struct bb_list_counts c;
	struct bb_list list;
	__u64 repeats = 0;
	const struct bb_header *hm, *hs;
	const char *path;
	int err;

	if (!buf) {
		ASSERT_TRUE(0, "large random list: memory");
		return;
	}
	for (i = 0; i < n_lines; i++) {
		__u64 r = rnd() % (n_lines * 3 / 4);	/* about a third of lines repeat */
		__u64 h = r * 0x9e3779b97f4a7c15ULL;

		if (r % 3 == 0)
			len += (size_t)sprintf(buf + len, "%u.%u.%u.%u\n", (unsigned)(h >> 56),
					       (unsigned)(h >> 48) & 255, (unsigned)(h >> 40) & 255,
					       (unsigned)(h >> 32) & 255);
		else if (r % 3 == 1)
			len += (size_t)sprintf(buf + len, "n%llx.example.com\n",
					       (unsigned long long)(h >> 20));
		else
			len += (size_t)sprintf(buf + len, "%u.%u.%u.0/%u\n", (unsigned)(h >> 56),
					       (unsigned)(h >> 48) & 255, (unsigned)(h >> 40) & 255,
					       18 + (unsigned)(h & 7));
	}
	path = write_file("random.txt", buf, len);
	err = path ? load_both(path, 2, 256 << 10, &mem_img, &str_img, &list, &c, &repeats) : -1;
	ASSERT_TRUE(!err && str_img, "large random list: both loads");
	if (err || !str_img || !mem_img)
		goto out;
	for (i = 0; i < list.n; i++)
		if (!bb_image_match_entry(str_img, &list.entries[i]))
			missed++;
	ASSERT_EQ(missed, 0, "large random list: every listed entry matches the streamed filter");
	hm = (const void *)&mem_img[BB_HEADER_INDEX];
	hs = (const void *)&str_img[BB_HEADER_INDEX];
	ASSERT_TRUE(hs->nblocks >= hm->nblocks && hs->items >= hm->items,
		    "large random list: streamed filter sized for repeats too, never smaller");
	ASSERT_TRUE(c.accepted[BB_ENTRY_IP4] + c.accepted[BB_ENTRY_NAME] ==
		    list.counts.accepted[BB_ENTRY_IP4] + list.counts.accepted[BB_ENTRY_NAME] +
		    list.counts.duplicates && c.duplicates == 0,
		    "large random list: a scan counts repeats as accepted, no duplicates");
	ASSERT_TRUE(repeats >= list.counts.duplicates,
		    "large random list: repeated entries found their bits set");
out:
	free(mem_img);
	free(str_img);
	bb_list_free(&list);
	free(buf);
}

static void null_entry(void *ctx, unsigned int thread, const struct bb_entry *e)
{
	(void)ctx;
	(void)thread;
	(void)e;
}

/* Reports of a scan and a parse of the same file, in pieces of part_bytes. */
static void test_reports(void)
{
	static const char text[] =
		"good.example\r\n"
		"nodot\r\n"
		"\r\n"
		"@@||exception.example^\n"
		"bad..name.example\n"
		"example.com##.ad\n"
		"999.1.1.1\n"
		"0.0.0.0 127.0.0.1 fine.example\n"
		"||x.example^$third-party\n"
		"last.bad..example";
	struct bb_list_sink sink = { .entry = null_entry };
	size_t parts[] = { 0, 16, 40 }, i, k;
	const char *path = write_file("rejects.txt", text, sizeof(text) - 1);
	const char *empty = write_file("empty.txt", "", 0);
	struct bb_list_counts c;
	char name[96];

	for (i = 0; i < 3; i++) {
		for (k = 0; k < 2; k++) {
			char *mem_out = NULL, *scan_out = NULL;
			size_t mem_len = 0, scan_len = 0;
			FILE *mem_f = open_memstream(&mem_out, &mem_len);
			FILE *scan_f = open_memstream(&scan_out, &scan_len);
			struct bb_list_opts o = { .threads = 2, .part_bytes = parts[i],
						  .report_max = k ? 3 : 0 };
			struct bb_list list;
			int e1, e2;

			bb_list_init(&list);
			o.report = mem_f;
			e1 = bb_list_parse_file(&list, path, &o, NULL);
			o.report = scan_f;
			e2 = bb_list_scan_file(path, &o, &sink, &c);
			fclose(mem_f);
			fclose(scan_f);
			snprintf(name, sizeof(name), "pieces of %zu bytes, report_max %d: the same "
				 "reports, lines and counts", parts[i], k ? 3 : 0);
			ASSERT_TRUE(!e1 && !e2 && mem_out && scan_out && !strcmp(mem_out, scan_out) &&
				    !memcmp(&c, &list.counts, sizeof(c)) && c.lines == 10, name);
			if (i == 0 && k == 0)
				ASSERT_TRUE(scan_out && strstr(scan_out, "rejects.txt:10: ") &&
					    strstr(scan_out, "rejects.txt:2: "),
					    "reports name the file and the line, the last one too");
			free(mem_out);
			free(scan_out);
			bb_list_free(&list);
		}
	}
	ASSERT_TRUE(empty && !bb_list_scan_file(empty, NULL, &sink, &c) && c.lines == 0,
		    "an empty file scans to no lines");
	ASSERT_EQ(bb_list_scan_file("/dev/null", NULL, &sink, &c), -EINVAL,
		  "a file that is not regular is refused: it cannot be read twice");
	ASSERT_TRUE(bb_list_scan_file("/nonexistent/list", NULL, &sink, &c) < 0,
		    "a missing file is an error");
}

int main(void)
{
	const char *quick = getenv("BB_QUICK");
	char cmd[64];

	if (quick && !strcmp(quick, "1"))
		n_lines = 20000;
	tap_plan_header();
	if (!mkdtemp(tmpdir)) {
		ASSERT_TRUE(0, "mkdtemp");
		return tap_finish();
	}
	test_reports();
	test_same_image();
	test_no_false_negatives();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		fprintf(stderr, "# could not remove %s\n", tmpdir);
	return tap_finish();
}

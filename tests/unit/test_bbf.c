// SPDX-License-Identifier: GPL-2.0
/*
 * Filter files: a round trip (the image read back byte for byte, its sources, what
 * it matches), and every way a file can be wrong refused with a reason: truncated
 * at every section boundary and inside each section, a byte flipped in each part,
 * the padding, a wrong magic, version, byte order, kind and ABI (the last four with
 * valid checksums, so that the check itself is what refuses them).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "bbf.h"
#include "filter.h"
#include "list.h"
#include "tap.h"

static char dir[] = "/tmp/bb_test_bbf.XXXXXX";
static char good[600], bad[600];
static __u8 *file;		/* the good file's bytes */
static size_t file_size;

static int read_all(const char *path, __u8 **buf, size_t *size)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*size = (size_t)st.st_size;
	*buf = malloc(*size ? *size : 1);
	if (!*buf || read(fd, *buf, *size) != (ssize_t)*size) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int write_all(const char *path, const __u8 *buf, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int ok = fd >= 0 && write(fd, buf, size) == (ssize_t)size;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static struct bb_block *image;
static __u64 image_bytes;

static void test_round_trip(void)
{
	static const char *const lines[] = {
		"192.0.2.0/24", "198.51.100.7", "2001:db8:bad::/48", "evil.example",
		"*.wild.example", "phish.test/login/", "@@good.evil.example", NULL,
	};
	struct bb_filter_opts opts = { .seed = 5 };
	struct bb_index idx = { 0 };
	void *index = NULL;
	size_t index_len = 0;
	char text[BB_KEY_MAX + 64], why[256];
	struct bb_filter f;
	struct bb_list list;
	struct bbf_file bf;
	struct bb_entry e;
	const char *w;
	size_t i;
	int err, ok;

	bb_list_init(&list);
	for (i = 0; lines[i]; i++)
		bb_list_parse_line(&list, lines[i], strlen(lines[i]), &w);
	err = bb_filter_build(&f, &list, &opts);
	image_bytes = err ? 0 : bb_filter_elements(f.hdr.nblocks, f.hdr.allow_blocks) *
			       BB_BLOCK_BYTES;
	image = err ? NULL : calloc(1, image_bytes);
	if (image)
		bb_filter_write_image(&f, image);
	/* with the key index as a third section, which every check below covers too */
	if (image) {
		const char *src = "list.txt";
		struct bb_index_meta meta = { .seed = f.hdr.seed, .fp = 0.001 };

		err = bb_filter_index(&f, &list, 1, &idx);
		err = err ?: bb_index_bytes(&idx, &src, 1, &meta, &index, &index_len);
	}
	err = image ? err ?: bbf_write_index(good, image, image_bytes, "{\"lists\":[]}", index,
					     index_len) : -ENOMEM;
	tap_result(!err && bbf_is(good), "a filter file is written, and known by its magic",
		   "%s", strerror(-err));
	err = err ?: bbf_open(good, &bf, why, sizeof(why));
	tap_result(!err && bf.image_bytes == image_bytes &&
		   !memcmp(bf.image, image, image_bytes) && bf.sources_len == 12 &&
		   !memcmp(bf.sources, "{\"lists\":[]}", 12) && !((uintptr_t)bf.image % 64),
		   "read back: the image byte for byte, 64-byte aligned, and the sources",
		   "%s", why);
	ok = !err;
	for (i = 0; ok && lines[i]; i++) {
		if (bb_list_parse_item(lines[i][0] == '@' ? lines[i] + 2 : lines[i], &e, text,
				       sizeof(text), &w))
			continue;
		ok = bb_image_match_entry(bf.image, &e) == 1;
	}
	tap_result(ok, "read back: the file's image matches every entry of its list", NULL);
	{
		struct bb_index_view v;

		tap_result(!err && bf.index && bf.index_len == index_len &&
			   !bb_index_view_bytes(bf.index, bf.index_len, &v) && v.n == idx.n &&
			   v.seed == f.hdr.seed && v.n_sources == 1 && !strcmp(v.sources[0], "list.txt"),
			   "read back: the key index section, every record, its seed and list", NULL);
	}
	if (!err)
		bbf_close(&bf);
	free(index);
	bb_index_free(&idx);
	tap_result(!read_all(good, &file, &file_size) && file_size > 128,
		   "the good file read whole", NULL);
	tap_result(!bbf_is("/nonexistent/x.bbf") &&
		   bbf_open("/nonexistent/x.bbf", &bf, why, sizeof(why)) == -ENOENT,
		   "a missing file is no filter file", NULL);
	if (image)
		bb_filter_free(&f);
	bb_list_free(&list);
}

/* Write the good file changed by fn, and open it: the error, and its reason in why. */
static int open_changed(size_t cut, long flip, char *why, size_t why_size)
{
	struct bbf_file bf;
	__u8 *b = malloc(file_size);
	int err;

	memcpy(b, file, file_size);
	if (flip >= 0)
		b[flip] ^= 0x10;
	err = write_all(bad, b, cut);
	free(b);
	if (err)
		return -EIO;
	err = bbf_open(bad, &bf, why, why_size);
	if (!err)
		bbf_close(&bf);
	return err;
}

static void test_truncated(void)
{
	const struct bbf_header *h = (const void *)file;
	const struct bbf_section *s = (const void *)(file + sizeof(*h));
	size_t cuts[32], n = 0, i;
	char why[256], name[160];

	cuts[n++] = 0;
	cuts[n++] = 7;
	cuts[n++] = sizeof(*h) - 1;
	cuts[n++] = sizeof(*h);
	cuts[n++] = sizeof(*h) + sizeof(*s);
	for (i = 0; i < h->n_sections && n + 3 < 32; i++) {
		cuts[n++] = s[i].offset;			/* at its start */
		cuts[n++] = s[i].offset + s[i].size / 2;	/* inside it */
		cuts[n++] = s[i].offset + s[i].size - 1;	/* its last byte gone */
	}
	for (i = 0; i < n; i++) {
		int err = open_changed(cuts[i], -1, why, sizeof(why));

		snprintf(name, sizeof(name), "truncated to %zu of %zu bytes: refused", cuts[i],
			 file_size);
		tap_result(err == -EBADMSG && why[0], name, "err %d (%s)", err, why);
	}
	/* and a byte more: not the file its header describes */
	{
		__u8 *b = malloc(file_size + 1);
		struct bbf_file bf;
		int err;

		memcpy(b, file, file_size);
		b[file_size] = 0;
		write_all(bad, b, file_size + 1);
		free(b);
		err = bbf_open(bad, &bf, why, sizeof(why));
		tap_result(err == -EBADMSG, "a byte appended: refused", "err %d (%s)", err, why);
	}
}

static void test_flipped(void)
{
	const struct bbf_header *h = (const void *)file;
	const struct bbf_section *s = (const void *)(file + sizeof(*h));
	struct { const char *what; size_t off; } flips[40];
	size_t n = 0, i;
	char why[256], name[160];

	flips[n++] = (typeof(flips[0])){ "the magic", 2 };
	flips[n++] = (typeof(flips[0])){ "the version", offsetof(struct bbf_header, version) };
	flips[n++] = (typeof(flips[0])){ "the kind", offsetof(struct bbf_header, kind) };
	flips[n++] = (typeof(flips[0])){ "the creation time", offsetof(struct bbf_header, created) };
	flips[n++] = (typeof(flips[0])){ "the file size", offsetof(struct bbf_header, file_size) };
	flips[n++] = (typeof(flips[0])){ "the header checksum",
					 offsetof(struct bbf_header, header_xxh) };
	flips[n++] = (typeof(flips[0])){ "the section table", sizeof(*h) + 9 };
	flips[n++] = (typeof(flips[0])){ "the padding after the table",
					 sizeof(*h) + h->n_sections * sizeof(*s) + 1 };
	for (i = 0; i < h->n_sections; i++) {
		const char *what = s[i].type == BBF_SEC_IMAGE ? "the filter image" : "the sources";

		flips[n++] = (typeof(flips[0])){ what, s[i].offset };
		flips[n++] = (typeof(flips[0])){ what, s[i].offset + s[i].size / 2 };
		flips[n++] = (typeof(flips[0])){ what, s[i].offset + s[i].size - 1 };
		if (i + 1 < h->n_sections && s[i].offset + s[i].size < s[i + 1].offset)
			flips[n++] = (typeof(flips[0])){ "the padding between sections",
							 s[i].offset + s[i].size };
	}
	for (i = 0; i < n; i++) {
		int err = open_changed(file_size, (long)flips[i].off, why, sizeof(why));

		snprintf(name, sizeof(name), "a byte flipped in %s (offset %zu): refused",
			 flips[i].what, flips[i].off);
		tap_result(err < 0 && why[0], name, "err %d (%s)", err, why);
	}
}

/* A header changed and its checksum made right again: refused by what it says. */
static int open_header(void (*change)(struct bbf_header *h), char *why, size_t why_size)
{
	__u8 *b = malloc(file_size);
	struct bbf_header *h = (void *)b;
	struct bbf_file bf;
	int err;

	memcpy(b, file, file_size);
	change(h);
	h->header_xxh = 0;
	h->header_xxh = XXH64(h, sizeof(*h), 0);
	write_all(bad, b, file_size);
	free(b);
	err = bbf_open(bad, &bf, why, why_size);
	if (!err)
		bbf_close(&bf);
	return err;
}

static void magic(struct bbf_header *h) { memcpy(h->magic, "BBFILTEX", 8); }
static void version(struct bbf_header *h) { h->version = BBF_VERSION + 1; }
static void kind(struct bbf_header *h) { h->kind = 7; }
static void endian(struct bbf_header *h)
{
	/* what a machine of the other byte order writes: every field swapped */
	h->byte_order = __builtin_bswap32(h->byte_order);
	h->version = __builtin_bswap32(h->version);
}

static void test_wrong(void)
{
	char why[256];
	int err;

	err = open_header(magic, why, sizeof(why));
	tap_result(err == -EBADMSG && strstr(why, "magic"), "a wrong magic: refused, said so",
		   "err %d (%s)", err, why);
	err = open_header(version, why, sizeof(why));
	tap_result(err == -EPROTO && strstr(why, "version"), "another version: refused, said so",
		   "err %d (%s)", err, why);
	err = open_header(kind, why, sizeof(why));
	tap_result(err == -EPROTO && strstr(why, "kind"), "another kind: refused, said so",
		   "err %d (%s)", err, why);
	err = open_header(endian, why, sizeof(why));
	tap_result(err == -EPROTO && strstr(why, "byte order"),
		   "the other byte order: refused, said so", "err %d (%s)", err, why);

	/* an image of another ABI, every checksum right: refused by the image check */
	{
		__u8 *b = malloc(file_size);
		struct bbf_header *h = (void *)b;
		struct bbf_section *s = (void *)(b + sizeof(*h));
		struct bb_header *ih;
		struct bbf_file bf;

		memcpy(b, file, file_size);
		ih = (void *)(b + s[0].offset);	/* read after the copy: malloc's bytes are not the file's */
		ih->abi_version = BB_ABI_VERSION - 1;
		s[0].xxh = XXH64(ih, s[0].size, 0);
		h->table_xxh = XXH64(s, h->n_sections * sizeof(*s), 0);
		h->header_xxh = 0;
		h->header_xxh = XXH64(h, sizeof(*h), 0);
		write_all(bad, b, file_size);
		free(b);
		err = bbf_open(bad, &bf, why, sizeof(why));
		tap_result(err == -EPROTO && strstr(why, "ABI"),
			   "a filter of another ABI: refused, said so", "err %d (%s)", err, why);
	}
}

static void test_atomic_write(void)
{
	char path[700], why[256];
	struct bbf_file bf;
	int err;

	/* over an existing file: the rename replaces it whole; no temporary is left */
	snprintf(path, sizeof(path), "%s/over.bbf", dir);
	write_all(path, (const __u8 *)"old contents", 12);
	err = bbf_write(path, image, image_bytes, "{}");
	err = err ?: bbf_open(path, &bf, why, sizeof(why));
	tap_result(!err, "written over an older file: the new one, whole", "%d %s", err, why);
	if (!err)
		bbf_close(&bf);
	snprintf(path, sizeof(path), "%s/no-such-dir/x.bbf", dir);
	err = bbf_write(path, image, image_bytes, "{}");
	tap_result(err == -ENOENT, "a file that cannot be written: an error, nothing else",
		   "%d", err);
}

int main(void)
{
	tap_plan_header();
	if (!mkdtemp(dir)) {
		tap_result(0, "a scratch directory", NULL);
		return tap_finish();
	}
	snprintf(good, sizeof(good), "%s/good.bbf", dir);
	snprintf(bad, sizeof(bad), "%s/bad.bbf", dir);
	test_round_trip();
	if (file) {
		test_truncated();
		test_flipped();
		test_wrong();
		test_atomic_write();
	}
	free(file);
	free(image);
	unlink(good);
	unlink(bad);
	{
		char path[700];

		snprintf(path, sizeof(path), "%s/over.bbf", dir);
		unlink(path);
	}
	rmdir(dir);
	return tap_finish();
}

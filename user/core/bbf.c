// SPDX-License-Identifier: GPL-2.0
/* Filter files: a map image with its sources, checksummed, written and read (bbf.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "outfile.h"
#include "bb_hash.h"
#include "bbf.h"
#include "filter.h"

_Static_assert(sizeof(struct bbf_header) == 64, "a filter file's header is 64 bytes");
_Static_assert(sizeof(struct bbf_section) == 32, "a section entry is 32 bytes");

static __u64 align_up(__u64 v)
{
	return (v + BBF_ALIGN - 1) / BBF_ALIGN * BBF_ALIGN;
}

bool bbf_is(const char *path)
{
	char magic[8];
	FILE *f = fopen(path, "rb");
	bool is;

	if (!f)
		return false;
	is = fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
	     !memcmp(magic, BBF_MAGIC, sizeof(magic));
	fclose(f);
	return is;
}

int bbf_write(const char *path, const struct bb_block *image, __u64 image_bytes,
	      const char *sources_json)
{
	return bbf_write_index(path, image, image_bytes, sources_json, NULL, 0);
}

int bbf_write_index(const char *path, const struct bb_block *image, __u64 image_bytes,
		    const char *sources_json, const void *index, size_t index_len)
{
	struct bbf_section sec[3] = { { 0 } };
	unsigned int n_sec = index ? 3 : 2;
	struct bbf_header hdr = { 0 };
	size_t sources_len = strlen(sources_json);
	char tmp[4096];
	__u64 off;
	int fd, err;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	off = align_up(sizeof(hdr) + (index ? 3 : 2) * sizeof(sec[0]));
	sec[0] = (struct bbf_section){ .type = BBF_SEC_IMAGE, .offset = off, .size = image_bytes,
				       .xxh = XXH64(image, image_bytes, 0) };
	off = align_up(off + image_bytes);
	sec[1] = (struct bbf_section){ .type = BBF_SEC_SOURCES, .offset = off,
				       .size = sources_len,
				       .xxh = XXH64(sources_json, sources_len, 0) };
	if (index) {
		off = align_up(off + sources_len);
		sec[2] = (struct bbf_section){ .type = BBF_SEC_INDEX, .offset = off,
					       .size = index_len, .xxh = XXH64(index, index_len, 0) };
	}
	memcpy(hdr.magic, BBF_MAGIC, sizeof(hdr.magic));
	hdr.version = BBF_VERSION;
	hdr.byte_order = BBF_BYTE_ORDER;
	hdr.kind = BBF_KIND_FILTER;
	hdr.abi_version = ((const struct bb_header *)image)->abi_version;
	hdr.created = (__u64)time(NULL);
	hdr.file_size = off + (index ? index_len : sources_len);
	hdr.n_sections = n_sec;
	hdr.table_xxh = XXH64(sec, n_sec * sizeof(sec[0]), 0);
	hdr.header_xxh = XXH64(&hdr, sizeof(hdr), 0);

	fd = bb_tmp_open(tmp, 0644);	/* a filter file is for shipping: readable */
	if (fd < 0)
		return fd;
	/* the gaps are zero: the file is sized first, then the parts written in place */
	err = ftruncate(fd, (off_t)hdr.file_size) ? -errno : 0;
	err = err ?: bb_pwrite_all(fd, &hdr, sizeof(hdr), 0);
	err = err ?: bb_pwrite_all(fd, sec, n_sec * sizeof(sec[0]), sizeof(hdr));
	err = err ?: bb_pwrite_all(fd, image, image_bytes, (off_t)sec[0].offset);
	err = err ?: bb_pwrite_all(fd, sources_json, sources_len, (off_t)sec[1].offset);
	if (index)
		err = err ?: bb_pwrite_all(fd, index, index_len, (off_t)sec[2].offset);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	return bb_tmp_commit(tmp, path, err);
}

#define WHY(...) snprintf(why, why_size, __VA_ARGS__)

/* The image section: a whole filter map of this ABI, its sizes consistent. */
static int check_image(const struct bb_block *image, __u64 bytes, char *why, size_t why_size)
{
	const struct bb_header *h = (const void *)image;

	if (bytes < (__u64)BB_FIRST_BLOCK * BB_BLOCK_BYTES || bytes % BB_BLOCK_BYTES) {
		WHY("the filter image is %llu bytes, not a whole map", (unsigned long long)bytes);
		return -EBADMSG;
	}
	if (h->magic != BB_MAGIC) {
		WHY("the filter image has no filter header");
		return -EBADMSG;
	}
	if (h->abi_version != BB_ABI_VERSION) {
		WHY("the filter is of ABI %u, this bloomblock reads %u: build it again "
		    "with this version", h->abi_version, (unsigned int)BB_ABI_VERSION);
		return -EPROTO;
	}
	if (!bb_k_valid(h->k) || !h->nblocks || h->nblocks > BB_MAX_BLOCKS ||
	    h->allow_blocks > BB_MAX_BLOCKS ||
	    bb_filter_elements(h->nblocks, h->allow_blocks) * BB_BLOCK_BYTES != bytes) {
		WHY("the filter image's header does not match its size");
		return -EBADMSG;
	}
	return 0;
}

/* path mapped read-only into f (map, size); 0 or -errno, the reason in why. */
static int bbf_map(const char *path, struct bbf_file *f, char *why, size_t why_size)
{
	struct stat st;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		WHY("%s", strerror(-err));
		return err;
	}
	f->size = (size_t)st.st_size;
	if (f->size < sizeof(struct bbf_header)) {
		close(fd);
		WHY("%zu bytes: shorter than a filter file's header", f->size);
		return -EBADMSG;
	}
	f->map = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f->map == MAP_FAILED) {
		err = -errno;
		f->map = NULL;
		WHY("cannot map it: %s", strerror(-err));
		return err;
	}
	return 0;
}

/* The file's header h (a copy): magic, byte order, checksum, version, kind, size. */
static int header_check(struct bbf_header h, size_t size, char *why, size_t why_size)
{
	__u64 expect;

	if (memcmp(h.magic, BBF_MAGIC, sizeof(h.magic))) {
		WHY("not a bloomblock filter file (no BBFILTER magic)");
		return -EBADMSG;
	}
	if (h.byte_order != BBF_BYTE_ORDER) {
		WHY(h.byte_order == __builtin_bswap32(BBF_BYTE_ORDER) ?
		    "written on a machine of the other byte order" : "a corrupt byte-order mark");
		return -EPROTO;
	}
	expect = h.header_xxh;
	h.header_xxh = 0;
	if (XXH64(&h, sizeof(h), 0) != expect) {
		WHY("its header is corrupt (checksum)");
		return -EBADMSG;
	}
	if (h.version != BBF_VERSION) {
		WHY("filter file version %u; this bloomblock reads version %u", h.version,
		    (unsigned int)BBF_VERSION);
		return -EPROTO;
	}
	if (h.kind != BBF_KIND_FILTER) {
		WHY("a file of kind %u, not a filter (kind %u)", h.kind,
		    (unsigned int)BBF_KIND_FILTER);
		return -EPROTO;
	}
	if (h.file_size != size) {
		WHY("%zu bytes, its header says %llu: %s", size, (unsigned long long)h.file_size,
		    size < h.file_size ? "truncated" : "bytes after its end");
		return -EBADMSG;
	}
	return 0;
}

/*
 * The section table after header h: every section inside the file, in order, zero
 * padding between, each checksum right; the known ones found (f->image, sources,
 * index). 0 or -EBADMSG, the reason in why.
 */
static int sections_read(struct bbf_file *f, const struct bbf_header *h, char *why,
			 size_t why_size)
{
	const __u8 *b = f->map;
	const struct bbf_section *sec = (const void *)(b + sizeof(*h));
	__u64 end;
	unsigned int i;

	if (!h->n_sections || h->n_sections > BBF_MAX_SECTIONS ||
	    sizeof(*h) + h->n_sections * sizeof(*sec) > f->size) {
		WHY("its section table is corrupt");
		return -EBADMSG;
	}
	if (XXH64(sec, h->n_sections * sizeof(*sec), 0) != h->table_xxh) {
		WHY("its section table is corrupt (checksum)");
		return -EBADMSG;
	}
	end = sizeof(*h) + h->n_sections * sizeof(*sec);
	for (i = 0; i < h->n_sections; i++) {
		__u64 o = sec[i].offset, n = sec[i].size, j;

		if (o % BBF_ALIGN || o < end || o > f->size || n > f->size - o) {
			WHY("section %u lies outside the file", i);
			return -EBADMSG;
		}
		for (j = end; j < o; j++)	/* the padding before it */
			if (b[j]) {
				WHY("a byte between sections is not zero (offset %llu)",
				    (unsigned long long)j);
				return -EBADMSG;
			}
		if (XXH64(b + o, n, 0) != sec[i].xxh) {
			WHY("its %s section is corrupt (checksum)",
			    sec[i].type == BBF_SEC_IMAGE ? "filter" :
			    sec[i].type == BBF_SEC_SOURCES ? "sources" :
			    sec[i].type == BBF_SEC_INDEX ? "index" : "unknown");
			return -EBADMSG;
		}
		if (sec[i].type == BBF_SEC_IMAGE) {
			f->image = (const void *)(b + o);
			f->image_bytes = n;
		} else if (sec[i].type == BBF_SEC_SOURCES) {
			f->sources = (const char *)(b + o);
			f->sources_len = n;
		} else if (sec[i].type == BBF_SEC_INDEX) {
			f->index = b + o;
			f->index_len = n;
		}
		end = o + n;
	}
	if (end != f->size) {
		WHY("bytes after its last section");
		return -EBADMSG;
	}
	if (!f->image) {
		WHY("no filter section");
		return -EBADMSG;
	}
	return 0;
}

int bbf_open(const char *path, struct bbf_file *f, char *why, size_t why_size)
{
	struct bbf_header h;
	int err;

	memset(f, 0, sizeof(*f));
	why[0] = '\0';
	err = bbf_map(path, f, why, why_size);
	if (err)
		return err;
	if (!f->map)	/* never: mmap() maps at a non-NULL address (clang-tidy cannot see it) */
		return -EFAULT;
	memcpy(&h, f->map, sizeof(h));
	err = header_check(h, f->size, why, why_size) ?:
	      sections_read(f, &h, why, why_size) ?:
	      check_image(f->image, f->image_bytes, why, why_size);
	if (err) {
		bbf_close(f);
		return err;
	}
	f->hdr = f->map;
	return 0;
}

void bbf_close(struct bbf_file *f)
{
	if (f->map)
		munmap(f->map, f->size);
	memset(f, 0, sizeof(*f));
}

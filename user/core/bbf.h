/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Filter files (.bbf): a built filter's map image, self-describing, versioned and
 * checksummed, that `load` copies straight into a new map: build once, ship the file
 * to a fleet with the tools it already uses. Layout, little-endian as the machine
 * that wrote it (the reader refuses another byte order):
 *
 *   struct bbf_header                 64 bytes: magic, version, byte order, kind, ...
 *   struct bbf_section [n_sections]   where each section is, its size, its XXH64
 *   the sections, each at a multiple of 64 bytes; the bytes between are zero
 *
 * Sections: BBF_SEC_IMAGE, the map image (include/bloomblock.h: header, config, short
 * tables, bit blocks, allowlist); BBF_SEC_SOURCES, JSON: the lists it was built from
 * (name, bytes, XXH128 digest, what was read) and how; BBF_SEC_INDEX, optional, the
 * key index as its file holds it (filter.h), which load makes the live filter's.
 * Readers skip a section type they do not know, its checksum checked.
 */
#ifndef BB_BBF_H
#define BB_BBF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bloomblock.h"

#define BBF_MAGIC	"BBFILTER"
#define BBF_VERSION	1
#define BBF_BYTE_ORDER	0x01020304U	/* as written; read back swapped: another order */
#define BBF_KIND_FILTER	1
#define BBF_ALIGN	64
#define BBF_MAX_SECTIONS 8

enum bbf_section_type {
	BBF_SEC_IMAGE = 1,
	BBF_SEC_SOURCES = 2,
	BBF_SEC_INDEX = 3,	/* the key index (filter.h), as its file holds it: optional */
};

struct bbf_header {
	char magic[8];
	__u32 version;
	__u32 byte_order;	/* BBF_BYTE_ORDER */
	__u32 kind;		/* BBF_KIND_FILTER */
	__u32 abi_version;	/* the image's BB_ABI_VERSION */
	__u64 created;		/* seconds since the epoch */
	__u64 file_size;
	__u32 n_sections;
	__u32 pad;
	__u64 table_xxh;	/* XXH64 of the section table */
	__u64 header_xxh;	/* XXH64 of this header with this field 0 */
};

struct bbf_section {
	__u32 type;		/* enum bbf_section_type */
	__u32 pad;
	__u64 offset;		/* from the file's start, a multiple of BBF_ALIGN */
	__u64 size;
	__u64 xxh;		/* XXH64 of the section's bytes */
};

/* A filter file read and checked, mapped read-only. */
struct bbf_file {
	void *map;
	size_t size;
	const struct bbf_header *hdr;
	const struct bb_block *image;	/* the map image, 64-byte aligned */
	__u64 image_bytes;
	const char *sources;		/* JSON text, sources_len bytes, not NUL-terminated */
	size_t sources_len;
	const void *index;		/* the key index's bytes, or NULL: none */
	size_t index_len;
};

/* Whether the file at path starts with the filter files' magic. */
bool bbf_is(const char *path);

/*
 * Write image (image_bytes, a whole map image) and the sources' JSON text to path:
 * to a temporary name beside it, then renamed. 0 or -errno.
 */
int bbf_write(const char *path, const struct bb_block *image, __u64 image_bytes,
	      const char *sources_json);
/* The same with the key index's bytes (bb_index_bytes()) as a third section. */
int bbf_write_index(const char *path, const struct bb_block *image, __u64 image_bytes,
		    const char *sources_json, const void *index, size_t index_len);

/*
 * Open and check a filter file: magic, version, byte order, kind, sizes, every
 * checksum, the zero padding, and that the image is a whole filter of this ABI.
 * 0, or -errno with what is wrong in why (why_size bytes): -EBADMSG corrupt or
 * truncated, -EPROTO another version, byte order, kind or ABI.
 */
int bbf_open(const char *path, struct bbf_file *f, char *why, size_t why_size);
void bbf_close(struct bbf_file *f);

#endif /* BB_BBF_H */

/* SPDX-License-Identifier: GPL-2.0 */
/* Lines of a list file: a region read with pread, or a stream, inflated as it is read. */
#ifndef BB_READER_H
#define BB_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "list.h"

#define BB_READER_BUF	(256U << 10)	/* a line longer than this is cut (and rejected) */
#define BB_READER_HEAD	(64U << 10)	/* bytes a format is detected from */

/*
 * A line reader. Lines end at '\n' (the '\n' is not part of the line) or at the end
 * of the input; a line longer than BB_READER_BUF comes back once, cut, with
 * too_long set, and the rest of it is skipped.
 *
 * Region: bytes [start, size) of a regular file, read with pread(), never past size
 * (the file's size when it was opened): a file that ends sooner was truncated while
 * it was read (-ESTALE). Stream: read() from the fd's position, gzip, xz or zstd
 * detected by its magic bytes and inflated; compressed data that is corrupt or ends
 * early is -EBADMSG. Errors stick: every later call returns the same one, and
 * bb_reader_error() says what it was.
 */
struct bb_reader {
	int fd;
	bool region;
	__u64 off;		/* region: the file offset of the next raw read */
	__u64 size;		/* region: read no byte at or past this */
	__u64 soft_end;		/* region: past it, read in small steps (a part's end) */
	__u64 pos_off;		/* the offset of buf[pos] in the (inflated) input */
	enum bb_compression compression;
	void *inflate;		/* the decompressor's state */
	char *in;		/* stream: raw bytes not inflated yet */
	size_t in_pos, in_end;
	bool in_eof;
	char *buf;
	size_t pos, end;	/* buf[pos, end): bytes not returned yet */
	bool eof;		/* no byte after buf[end] */
	bool skipping;		/* dropping the rest of a cut line */
	bool detected;		/* stream: compression looked at */
	bool own_buf;
	int err;
	const char *err_msg;
};

/*
 * Open a region of the regular file fd, size bytes long: the lines that start in
 * [start, soft_end), the last of them read to its end. buf: BB_READER_BUF bytes of
 * the caller's, or NULL for the reader's own.
 */
int bb_reader_region(struct bb_reader *r, int fd, __u64 start, __u64 soft_end, __u64 size,
		     char *buf);
/* Open a stream on fd (stdin, a pipe, a compressed file). */
int bb_reader_stream(struct bb_reader *r, int fd);
void bb_reader_close(struct bb_reader *r);

/*
 * Fill the buffer with the first bytes (up to want, at most BB_READER_BUF) without
 * consuming them: *head, *len. A stream detects its compression here. 0 or -errno.
 */
int bb_reader_peek(struct bb_reader *r, size_t want, const char **head, size_t *len);

/*
 * The next line: 1 (*line, *len, *too_long; valid until the next call), 0 at the end
 * (of a region: no more lines that start before its soft end), -errno.
 */
int bb_reader_next(struct bb_reader *r, const char **line, size_t *len, bool *too_long);

/* The offset, in the inflated input, of the byte the next line starts with. */
static inline __u64 bb_reader_tell(const struct bb_reader *r)
{
	return r->pos_off;
}

/* What went wrong, for "FILE: message". */
const char *bb_reader_error(const struct bb_reader *r);

enum bb_compression bb_compression_of(const void *head, size_t len);

/* Bytes every reader has taken from its files so far: the progress line's. */
extern __u64 bb_read_bytes;

#endif /* BB_READER_H */

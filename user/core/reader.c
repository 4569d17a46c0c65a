/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lines of a list file. A region of a regular file is read with pread() into a buffer
 * of our own, never mapped: a file truncated under a mapping kills the reader with
 * SIGBUS, where a short read is an error we can report. Streams (stdin, pipes,
 * compressed files) are read with read() and inflated by zlib, liblzma or libzstd as
 * they are read, so a compressed list never sits inflated in memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "reader.h"

__u64 bb_read_bytes;

#define IN_BYTES	(128U << 10)	/* compressed bytes read at once */
#define TAIL_STEP	4096		/* past a region's soft end: the last line's bytes */
#define XZ_MEMLIMIT	(256ULL << 20)	/* xz -9 needs 65 MiB; a bomb gets an error */

/* The decompressor's state: one of these, by r->compression. */
struct inflate_state {
	union {
		z_stream gz;
		lzma_stream xz;
		ZSTD_DCtx *zstd;
	};
	bool member_done;	/* gzip: a member ended; another may follow */
	bool frame_open;	/* zstd: inside a frame */
	bool done;		/* the compressed stream ended cleanly */
};

static int fail(struct bb_reader *r, int err, const char *msg)
{
	if (!r->err) {
		r->err = err;
		r->err_msg = msg;
	}
	return r->err;
}

const char *bb_reader_error(const struct bb_reader *r)
{
	if (r->err_msg)
		return r->err_msg;
	return strerror(r->err < 0 ? -r->err : EIO);
}

enum bb_compression bb_compression_of(const void *head, size_t len)
{
	const unsigned char *h = head;

	if (len >= 2 && h[0] == 0x1f && h[1] == 0x8b)
		return BB_COMPRESSION_GZIP;
	if (len >= 6 && !memcmp(h, "\xfd" "7zXZ\0", 6))
		return BB_COMPRESSION_XZ;
	if (len >= 4 && !memcmp(h, "\x28\xb5\x2f\xfd", 4))
		return BB_COMPRESSION_ZSTD;
	return BB_COMPRESSION_NONE;
}

/* Formats we recognise and do not read: a clear error beats a screen of rejects. */
static const char *unread_compression(const unsigned char *h, size_t len)
{
	if (len >= 3 && !memcmp(h, "BZh", 3) && len >= 4 && h[3] >= '1' && h[3] <= '9')
		return "is bzip2-compressed, which is not read: decompress it first";
	if (len >= 4 && !memcmp(h, "PK\3\4", 4))
		return "is a zip archive, which is not read: extract the list first";
	return NULL;
}

static int alloc_buf(struct bb_reader *r, char *buf)
{
	r->own_buf = !buf;
	r->buf = buf ?: malloc(BB_READER_BUF);
	return r->buf ? 0 : -ENOMEM;
}

/* Raw bytes of a region: pread, in steps past the soft end. */
static ssize_t region_read(struct bb_reader *r, char *dst, size_t len)
{
	__u64 left = r->size - r->off;
	ssize_t n;

	if (r->off >= r->size)
		return 0;
	if (len > left)
		len = (size_t)left;
	if (r->off < r->soft_end && len > r->soft_end - r->off)
		len = (size_t)(r->soft_end - r->off);
	else if (r->off >= r->soft_end && len > TAIL_STEP)
		len = TAIL_STEP;
	do
		n = pread(r->fd, dst, len, (off_t)r->off);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return fail(r, -errno, NULL);
	if (n == 0)
		return fail(r, -ESTALE, "changed while it was read: it ends before the size it "
			    "had when opened (truncated or rewritten)");
	r->off += (__u64)n;
	__atomic_fetch_add(&bb_read_bytes, (__u64)n, __ATOMIC_RELAXED);
	return n;
}

static ssize_t fd_read(struct bb_reader *r, char *dst, size_t len)
{
	ssize_t n;

	do
		n = read(r->fd, dst, len);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		__atomic_fetch_add(&bb_read_bytes, (__u64)n, __ATOMIC_RELAXED);
	return n < 0 ? fail(r, -errno, NULL) : n;
}

/* Compressed bytes into r->in when it is empty. 0 or -errno. */
static int refill_in(struct bb_reader *r)
{
	ssize_t n;

	if (r->in_pos < r->in_end || r->in_eof)
		return 0;
	n = fd_read(r, r->in, IN_BYTES);
	if (n < 0)
		return (int)n;
	r->in_pos = 0;
	r->in_end = (size_t)n;
	r->in_eof = n == 0;
	return 0;
}

static int codec_init(struct bb_reader *r)
{
	struct inflate_state *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	r->inflate = s;
	switch (r->compression) {
	case BB_COMPRESSION_GZIP:
		/* 15 + 32: a gzip or zlib header, found by zlib itself */
		if (inflateInit2(&s->gz, 15 + 32) != Z_OK)
			return -ENOMEM;
		break;
	case BB_COMPRESSION_XZ:
		s->xz = (lzma_stream)LZMA_STREAM_INIT;
		if (lzma_stream_decoder(&s->xz, XZ_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK)
			return -ENOMEM;
		break;
	case BB_COMPRESSION_ZSTD:
		s->zstd = ZSTD_createDCtx();
		if (!s->zstd)
			return -ENOMEM;
		break;
	default:
		break;
	}
	return 0;
}

static void codec_free(struct bb_reader *r)
{
	struct inflate_state *s = r->inflate;

	if (!s)
		return;
	switch (r->compression) {
	case BB_COMPRESSION_GZIP:
		inflateEnd(&s->gz);
		break;
	case BB_COMPRESSION_XZ:
		lzma_end(&s->xz);
		break;
	case BB_COMPRESSION_ZSTD:
		ZSTD_freeDCtx(s->zstd);
		break;
	default:
		break;
	}
	free(s);
	r->inflate = NULL;
}

/* One step of the decompressor over r->in into dst. Bytes produced, or -errno. */
static ssize_t codec_step(struct bb_reader *r, char *dst, size_t len)
{
	struct inflate_state *s = r->inflate;
	size_t avail = r->in_end - r->in_pos, used = 0, made = 0;
	const char *corrupt = NULL;

	switch (r->compression) {
	case BB_COMPRESSION_GZIP: {
		int rc;

		if (s->member_done) {
			if (!avail)
				return 0;	/* the caller reads on, or ends cleanly at EOF */
			inflateReset(&s->gz);	/* concatenated members are one stream */
			s->member_done = false;
		}
		s->gz.next_in = (Bytef *)r->in + r->in_pos;
		s->gz.avail_in = (uInt)avail;
		s->gz.next_out = (Bytef *)dst;
		s->gz.avail_out = (uInt)len;
		rc = inflate(&s->gz, Z_NO_FLUSH);
		used = avail - s->gz.avail_in;
		made = len - s->gz.avail_out;
		if (rc == Z_STREAM_END)
			s->member_done = true;
		else if (rc != Z_OK && rc != Z_BUF_ERROR)
			corrupt = "gzip data is corrupt";
		break;
	}
	case BB_COMPRESSION_XZ: {
		lzma_ret rc;

		s->xz.next_in = (const uint8_t *)r->in + r->in_pos;
		s->xz.avail_in = avail;
		s->xz.next_out = (uint8_t *)dst;
		s->xz.avail_out = len;
		rc = lzma_code(&s->xz, r->in_eof && !avail ? LZMA_FINISH : LZMA_RUN);
		used = avail - s->xz.avail_in;
		made = len - s->xz.avail_out;
		if (rc == LZMA_STREAM_END)
			s->done = true;
		else if (rc == LZMA_MEMLIMIT_ERROR)
			corrupt = "xz data needs more than 256 MiB to inflate";
		else if (rc != LZMA_OK && !(rc == LZMA_BUF_ERROR && !made))
			corrupt = "xz data is corrupt";
		break;
	}
	case BB_COMPRESSION_ZSTD: {
		ZSTD_inBuffer in = { r->in + r->in_pos, avail, 0 };
		ZSTD_outBuffer out = { dst, len, 0 };
		size_t rc = ZSTD_decompressStream(s->zstd, &out, &in);

		used = in.pos;
		made = out.pos;
		if (ZSTD_isError(rc))
			corrupt = "zstd data is corrupt";
		else
			s->frame_open = rc != 0;
		break;
	}
	default:
		return -EINVAL;
	}
	r->in_pos += used;
	if (corrupt)
		return fail(r, -EBADMSG, corrupt);
	return (ssize_t)made;
}

/* The compressed stream ended where a stream may end. */
static bool codec_at_end(const struct bb_reader *r)
{
	const struct inflate_state *s = r->inflate;

	switch (r->compression) {
	case BB_COMPRESSION_GZIP:
		return s->member_done;
	case BB_COMPRESSION_XZ:
		return s->done;
	case BB_COMPRESSION_ZSTD:
		return !s->frame_open;
	default:
		return true;
	}
}

/* Inflated bytes into dst: > 0, 0 at the clean end, -errno. */
static ssize_t inflate_read(struct bb_reader *r, char *dst, size_t len)
{
	for (;;) {
		ssize_t n;
		int err = refill_in(r);

		if (err)
			return err;
		if (r->in_eof && r->in_pos == r->in_end && r->compression != BB_COMPRESSION_XZ) {
			if (codec_at_end(r))
				return 0;
		}
		n = codec_step(r, dst, len);
		if (n)
			return n;
		if (r->compression == BB_COMPRESSION_XZ && codec_at_end(r))
			return 0;
		if (r->in_eof && r->in_pos == r->in_end && !codec_at_end(r))
			return fail(r, -EBADMSG, r->compression == BB_COMPRESSION_GZIP ?
				    "gzip data ends early (truncated)" :
				    r->compression == BB_COMPRESSION_XZ ?
				    "xz data ends early (truncated)" :
				    "zstd data ends early (truncated)");
	}
}

/* A stream's first bytes tell its compression; they are read into r->in. */
static int detect(struct bb_reader *r)
{
	const char *why;
	int err;

	r->detected = true;
	r->in = calloc(1, IN_BYTES);	/* zeroed: what no read filled is known */
	if (!r->in)
		return fail(r, -ENOMEM, NULL);
	while (r->in_end < 6 && !r->in_eof) {
		ssize_t n = fd_read(r, r->in + r->in_end, IN_BYTES - r->in_end);

		if (n < 0)
			return (int)n;
		r->in_end += (size_t)n;
		r->in_eof = n == 0;
	}
	why = unread_compression((const unsigned char *)r->in, r->in_end);
	if (why)
		return fail(r, -EBADMSG, why);
	r->compression = bb_compression_of(r->in, r->in_end);
	if (r->compression == BB_COMPRESSION_NONE)
		return 0;
	err = codec_init(r);
	return err ? fail(r, err, NULL) : 0;
}

/* More bytes at buf[end]: > 0, 0 at the end of the input, -errno. */
static ssize_t produce(struct bb_reader *r)
{
	char *dst = r->buf + r->end;
	size_t len = BB_READER_BUF - r->end, n;

	if (r->err)
		return r->err;
	if (r->region)
		return region_read(r, dst, len);
	if (!r->detected) {
		int err = detect(r);

		if (err)
			return err;
	}
	if (r->compression != BB_COMPRESSION_NONE)
		return inflate_read(r, dst, len);
	if (r->in_pos < r->in_end) {
		/* the bytes read to detect the compression come first */
		n = r->in_end - r->in_pos < len ? r->in_end - r->in_pos : len;
		memcpy(dst, r->in + r->in_pos, n);
		r->in_pos += n;
		return (ssize_t)n;
	}
	if (r->in_eof)
		return 0;
	return fd_read(r, dst, len);
}

/* Keep buf[pos, end), moved to the front, and read more after it. 1, 0 (end), -errno. */
static int refill(struct bb_reader *r)
{
	ssize_t n;

	if (r->eof)
		return 0;
	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->end - r->pos);
		r->end -= r->pos;
		r->pos = 0;
	}
	n = produce(r);
	if (n < 0)
		return (int)n;
	if (n == 0) {
		r->eof = true;
		return 0;
	}
	r->end += (size_t)n;
	return 1;
}

/* Drop bytes through the next '\n'. 0 or -errno. */
static int skip_line(struct bb_reader *r)
{
	for (;;) {
		char *nl = memchr(r->buf + r->pos, '\n', r->end - r->pos);
		int rc;

		if (nl) {
			r->pos_off += (size_t)(nl + 1 - (r->buf + r->pos));
			r->pos = (size_t)(nl + 1 - r->buf);
			r->skipping = false;
			return 0;
		}
		r->pos_off += r->end - r->pos;
		r->pos = r->end;
		rc = refill(r);
		if (rc <= 0) {
			r->skipping = false;
			return rc;
		}
	}
}

int bb_reader_region(struct bb_reader *r, int fd, __u64 start, __u64 soft_end, __u64 size,
		     char *buf)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->region = true;
	r->detected = true;
	r->size = size;
	r->soft_end = soft_end;
	if (alloc_buf(r, buf))
		return fail(r, -ENOMEM, NULL);
	if (!start)
		return 0;
	/* start - 1 is a '\n' or the middle of the line before: that line is not ours */
	r->off = r->pos_off = start - 1;
	return skip_line(r);
}

int bb_reader_stream(struct bb_reader *r, int fd)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	if (alloc_buf(r, NULL))
		return fail(r, -ENOMEM, NULL);
	return 0;
}

void bb_reader_close(struct bb_reader *r)
{
	codec_free(r);
	free(r->in);
	if (r->own_buf)
		free(r->buf);
	r->in = r->buf = NULL;
}

int bb_reader_peek(struct bb_reader *r, size_t want, const char **head, size_t *len)
{
	int rc;

	if (want > BB_READER_BUF)
		want = BB_READER_BUF;
	while (r->end - r->pos < want && !r->eof) {
		rc = refill(r);
		if (rc < 0)
			return rc;
	}
	*head = r->buf + r->pos;
	*len = r->end - r->pos;
	return r->err;
}

int bb_reader_next(struct bb_reader *r, const char **line, size_t *len, bool *too_long)
{
	int rc;

	if (r->skipping) {
		rc = skip_line(r);
		if (rc < 0)
			return rc;
	}
	if (r->region && r->pos_off >= r->soft_end)
		return 0;	/* the next line starts in the next region */
	for (;;) {
		char *s = r->buf + r->pos, *nl = memchr(s, '\n', r->end - r->pos);

		if (nl) {
			*line = s;
			*len = (size_t)(nl - s);
			*too_long = false;
			r->pos += *len + 1;
			r->pos_off += *len + 1;
			return 1;
		}
		if (r->pos == 0 && r->end == BB_READER_BUF) {
			/* no '\n' in a full buffer: hand out its start, skip the rest */
			*line = r->buf;
			*len = r->end;
			*too_long = true;
			r->pos_off += r->end;
			r->pos = r->end;
			r->skipping = true;
			return 1;
		}
		rc = refill(r);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			if (r->pos == r->end)
				return 0;
			/* the last line, without a '\n' */
			*line = r->buf + r->pos;
			*len = r->end - r->pos;
			*too_long = false;
			r->pos_off += *len;
			r->pos = r->end;
			return 1;
		}
	}
}

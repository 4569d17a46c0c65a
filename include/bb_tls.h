/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The TLS ClientHello walk to the SNI, resumable from one TCP segment to the next. */
#ifndef BB_TLS_H
#define BB_TLS_H

#include "bloomblock.h"
#include "bb_compat.h"
#include "bb_mem.h"

/*
 * A ClientHello with post-quantum key shares is ~1.8 KB and crosses two or more
 * TCP segments; the SNI may sit in a later one. The walk is a small state machine
 * over stream offsets (offset 0 is the TLS record's first byte): each stage reads
 * one field of a few bytes at w->pos, possibly gathered across segments, and moves
 * pos past what it does not need. When a segment ends mid-walk the state is kept
 * (per flow, in an LRU map) and the next in-order segment continues it. Bounded:
 * BB_TLS_MAX_STEPS fields per segment, BB_TLS_MAX_SEGMENTS segments,
 * BB_TLS_MAX_BYTES of stream.
 */
#define BB_TLS_MAX_STEPS	40
#define BB_TLS_MAX_SEGMENTS	6
#define BB_TLS_MAX_BYTES	16384
#define BB_TLS_BUF		256

#define BB_TLS_EXT_SERVER_NAME	0x0000
#define BB_TLS_EXT_ECH		0xfe0d

enum bb_tls_stage {
	BB_TLS_RECORD,		/* type 22, version 3.x, length */
	BB_TLS_HANDSHAKE,	/* type 1 (ClientHello), length */
	BB_TLS_SESSION_ID,	/* after version and random: its length */
	BB_TLS_CIPHERS,
	BB_TLS_COMPRESSION,
	BB_TLS_EXTENSIONS,	/* total length of the extensions */
	BB_TLS_EXTENSION,	/* one extension header: type, length */
	BB_TLS_SNI_LIST,	/* server_name: list length, name type, name length */
	BB_TLS_SNI_NAME,	/* the name itself, name_len bytes into buf */
};

enum bb_tls_result {
	BB_TLS_MORE,		/* needs the next segment */
	BB_TLS_SNI,		/* buf[0 .. name_len) holds the SNI */
	BB_TLS_NO_SNI,		/* a whole ClientHello without server_name */
	BB_TLS_BAD,		/* not a ClientHello, lying lengths, too long */
};

/* Walk state; lives in the flows map between segments. */
struct bb_tls_walk {
	__u32 next_seq;		/* TCP sequence number of the next byte expected */
	__u32 seg_lo;		/* stream offset of this segment's first byte */
	__u32 pos;		/* stream offset of the field being read */
	__u32 hello_end;	/* stream offset where the ClientHello ends */
	__u32 ext_end;		/* stream offset where the extensions end */
	__u16 name_len;
	__u16 have;		/* bytes of the current field gathered into buf */
	__u8 stage;		/* enum bb_tls_stage */
	__u8 segments;
	__u8 ech;		/* an encrypted_client_hello extension was seen */
	__u8 blocked;		/* a listed SNI: drop this flow's later segments too */
	__u8 buf[BB_TLS_BUF + 8];	/* + 8: a word copied at the last index */
};

/* Flow key of the per-flow walk state: addresses and ports as in the packet. */
struct bb_flow_key {
	__u8 saddr[16];
	__u8 daddr[16];
	__u16 sport;
	__u16 dport;
	__u8 family;		/* 4 or 6 */
	__u8 pad[3];
};

_Static_assert(sizeof(struct bb_flow_key) == 40, "bb_flow_slot() hashes five words");
_Static_assert(__builtin_offsetof(struct bb_flow_key, sport) == 32 &&
	       __builtin_offsetof(struct bb_flow_key, dport) == 34 &&
	       __builtin_offsetof(struct bb_flow_key, family) == 36,
	       "the BPF program writes ports and family as the key's last word");

/*
 * The flow's slot in the count of waiting walks (bb_pending in the BPF program),
 * BB_PENDING_BITS bits of a multiplicative hash of the key's five words.
 */
#define BB_PENDING_BITS 12

static __always_inline __u32 bb_flow_slot(const struct bb_flow_key *k)
{
	const __u8 *b = (const __u8 *)k;
	__u64 x = bb_load64(b) ^ bb_load64(b + 8) ^ bb_load64(b + 16) ^ bb_load64(b + 24) ^
		  bb_load64(b + 32);

	return (x * 0x9e3779b97f4a7c15ULL) >> (64 - BB_PENDING_BITS);
}

static __always_inline __u32 bb_tls_be16(const __u8 *b)
{
	return (__u32)b[0] << 8 | b[1];
}

/* What the turns of a gather share (bb_tls_gather()): the walk, the segment, the field. */
struct bb_tls_gather_ctx {
	struct bb_tls_walk *w;
	const __u8 *data;
	const void *end;
	__u32 seg_len;
	__u32 n;
};

/* A wide gather's turn: eight more bytes, while eight are left. 1: stop. */
static __always_inline long bb_tls_gather_word(__u32 i, void *arg)
{
	struct bb_tls_gather_ctx *g = arg;
	struct bb_tls_walk *w = g->w;
	const __u8 *p;
	__u64 off, v;	/* 64-bit: no zero-extended copy escapes the check */

	(void)i;
	if (w->have >= g->n)
		return 1;
	off = (__u32)(w->pos + w->have - w->seg_lo);
	barrier_var(off);
	if (off >= BB_TLS_MAX_BYTES || off + 8 > g->seg_len)
		return 1;
	p = g->data + off;
	if ((void *)(p + 8) > g->end)
		return 1;
	v = bb_load64(p);
	bb_store64(w->buf + (w->have & (BB_TLS_BUF - 1)), v);
	w->have += 8;
	return 0;
}

/* A gather's turn: one more byte. 1: stop (all there, or the segment's end). */
static __always_inline long bb_tls_gather_byte(__u32 i, void *arg)
{
	struct bb_tls_gather_ctx *g = arg;
	struct bb_tls_walk *w = g->w;
	const __u8 *p;
	__u64 off;

	(void)i;
	if (w->have >= g->n)
		return 1;
	off = (__u32)(w->pos + w->have - w->seg_lo);
	barrier_var(off);
	if (off >= BB_TLS_MAX_BYTES || off >= g->seg_len)
		return 1;
	p = g->data + off;
	if ((void *)(p + 1) > g->end)
		return 1;
	w->buf[w->have & (BB_TLS_BUF - 1)] = *p;
	w->have++;
	return 0;
}

/*
 * Gather n bytes (n <= BB_TLS_BUF) of the field at w->pos into w->buf from the
 * segment of seg_len bytes at data (end bounds it too, for the verifier), which
 * starts at stream offset w->seg_lo. Returns 1 when all n are there. wide (the
 * name, the one long field): eight bytes at a time while eight are left in the
 * segment; the bytes gathered past n are never read. The gather's state is the
 * walk's (w->have, in map memory): each turn of its loops (bb_loop()) is one verifier
 * state.
 */
static __always_inline int bb_tls_gather(struct bb_tls_walk *w, const __u8 *data, const void *end,
					 __u32 seg_len, __u32 n, __u32 bound, int wide)
{
	struct bb_tls_gather_ctx g = { w, data, end, seg_len, n };

	/* a short field wholly in this segment: one word */
	if (!wide && n <= 8 && !w->have) {
		const __u8 *p;
		__u64 off, v;

		off = (__u32)(w->pos - w->seg_lo);
		barrier_var(off);
		if (off < BB_TLS_MAX_BYTES && off + 8 <= seg_len) {
			p = data + off;
			if ((void *)(p + 8) <= end) {
				v = bb_load64(p);
				bb_store64(w->buf, v);
				w->have = 8;
				return 1;
			}
		}
	}
	if (wide) {
		bb_loop_hot(4, BB_TLS_BUF / 8, bb_tls_gather_word, &g);	/* most names: 32 bytes */
		/*
		 * Its last bytes, when the eight that end the field are in this segment: one
		 * word, stored where it ends (the bytes before them in it, gathered already,
		 * are the same bytes of the stream).
		 */
		if (w->have < n && n >= 8 && n - w->have < 8 && w->pos + n - 8 >= w->seg_lo) {
			const __u8 *p;
			__u64 off;

			off = (__u32)(w->pos + n - 8 - w->seg_lo);
			barrier_var(off);
			if (off < BB_TLS_MAX_BYTES && off + 8 <= seg_len) {
				p = data + off;
				if ((void *)(p + 8) <= end) {
					bb_store64(w->buf + ((n - 8) & (BB_TLS_BUF - 1)), bb_load64(p));
					w->have = n;
				}
			}
		}
	}
	if (w->have < n)
		bb_loop(bound, bb_tls_gather_byte, &g);
	return w->have >= n;
}

/* Finish one field: the next one starts at pos. */
static __always_inline void bb_tls_next(struct bb_tls_walk *w, __u8 stage, __u32 pos)
{
	w->stage = stage;
	w->pos = pos;
	w->have = 0;
}

/* What the steps of a walk share (bb_tls_walk()); ret: the walk's result, or -1. */
struct bb_tls_walk_ctx {
	struct bb_tls_walk *w;
	const __u8 *data;
	const void *end;
	__u32 seg_len;
	int ret;
};

#define BB_TLS_END(t, r)	do { (t)->ret = (r); return 1; } while (0)

/* One step of the walk: one field read (or gathered so far). 1: stop (t->ret, or the name). */
static __always_inline long bb_tls_step(__u32 i, void *arg)
{
	struct bb_tls_walk_ctx *t = arg;
	struct bb_tls_walk *w = t->w;
	const __u8 *data = t->data, *b = w->buf;
	const void *end = t->end;
	__u32 seg_len = t->seg_len, len;

	(void)i;
	if (w->stage == BB_TLS_SNI_NAME)
		return 1;
	if (w->pos >= BB_TLS_MAX_BYTES)
		BB_TLS_END(t, BB_TLS_BAD);
	switch (w->stage) {
	case BB_TLS_RECORD:
		if (!bb_tls_gather(w, data, end, seg_len, 5, 5, 0))
			BB_TLS_END(t, BB_TLS_MORE);
		if (b[0] != 22 || b[1] != 3)
			BB_TLS_END(t, BB_TLS_BAD);
		len = bb_tls_be16(b + 3);
		if (len < 4)
			BB_TLS_END(t, BB_TLS_BAD);
		w->hello_end = 5 + len;	/* for now: the record's end */
		bb_tls_next(w, BB_TLS_HANDSHAKE, 5);
		break;
	case BB_TLS_HANDSHAKE:
		if (!bb_tls_gather(w, data, end, seg_len, 4, 4, 0))
			BB_TLS_END(t, BB_TLS_MORE);
		len = (__u32)b[1] << 16 | bb_tls_be16(b + 2);
		/* a ClientHello split over several TLS records is not followed */
		if (b[0] != 1 || 9 + len > w->hello_end)
			BB_TLS_END(t, BB_TLS_BAD);
		w->hello_end = 9 + len;
		bb_tls_next(w, BB_TLS_SESSION_ID, 9 + 2 + 32);	/* skip version, random */
		break;
	case BB_TLS_SESSION_ID:
		if (!bb_tls_gather(w, data, end, seg_len, 1, 1, 0))
			BB_TLS_END(t, BB_TLS_MORE);
		if (b[0] > 32)
			BB_TLS_END(t, BB_TLS_BAD);
		bb_tls_next(w, BB_TLS_CIPHERS, w->pos + 1 + b[0]);
		break;
	case BB_TLS_CIPHERS:
		if (!bb_tls_gather(w, data, end, seg_len, 2, 2, 0))
			BB_TLS_END(t, BB_TLS_MORE);
		len = bb_tls_be16(b);
		if (len < 2 || (len & 1))
			BB_TLS_END(t, BB_TLS_BAD);
		bb_tls_next(w, BB_TLS_COMPRESSION, w->pos + 2 + len);
		break;
	case BB_TLS_COMPRESSION:
		if (!bb_tls_gather(w, data, end, seg_len, 1, 1, 0))
			BB_TLS_END(t, BB_TLS_MORE);
		if (b[0] < 1)
			BB_TLS_END(t, BB_TLS_BAD);
		bb_tls_next(w, BB_TLS_EXTENSIONS, w->pos + 1 + b[0]);
		break;
	case BB_TLS_EXTENSIONS:
		if (w->pos == w->hello_end)
			BB_TLS_END(t, BB_TLS_NO_SNI);	/* no extensions at all */
		if (w->pos + 2 > w->hello_end)
			BB_TLS_END(t, BB_TLS_BAD);
		if (!bb_tls_gather(w, data, end, seg_len, 2, 2, 0))
			BB_TLS_END(t, BB_TLS_MORE);
		w->ext_end = w->pos + 2 + bb_tls_be16(b);
		if (w->ext_end > w->hello_end)
			BB_TLS_END(t, BB_TLS_BAD);
		bb_tls_next(w, BB_TLS_EXTENSION, w->pos + 2);
		break;
	case BB_TLS_EXTENSION:
		if (w->pos == w->ext_end)
			BB_TLS_END(t, BB_TLS_NO_SNI);
		if (w->pos + 4 > w->ext_end)
			BB_TLS_END(t, BB_TLS_BAD);
		if (!bb_tls_gather(w, data, end, seg_len, 4, 4, 0))
			BB_TLS_END(t, BB_TLS_MORE);
		len = bb_tls_be16(b + 2);
		if (w->pos + 4 + len > w->ext_end)
			BB_TLS_END(t, BB_TLS_BAD);
		if (bb_tls_be16(b) == BB_TLS_EXT_ECH)
			w->ech = 1;
		if (bb_tls_be16(b) == BB_TLS_EXT_SERVER_NAME) {
			if (len < 5)
				BB_TLS_END(t, BB_TLS_BAD);
			bb_tls_next(w, BB_TLS_SNI_LIST, w->pos + 4);
		} else {
			bb_tls_next(w, BB_TLS_EXTENSION, w->pos + 4 + len);
		}
		break;
	case BB_TLS_SNI_LIST:
		if (!bb_tls_gather(w, data, end, seg_len, 5, 5, 0))
			BB_TLS_END(t, BB_TLS_MORE);
		len = bb_tls_be16(b + 3);
		/* host_name (0), and a name that fits the list and a key */
		if (b[2] != 0 || len < 1 || len > BB_NAME_MAX + 1 ||
		    3 + len > bb_tls_be16(b) || w->pos + 5 + len > w->ext_end)
			BB_TLS_END(t, BB_TLS_BAD);
		w->name_len = len;
		bb_tls_next(w, BB_TLS_SNI_NAME, w->pos + 5);
		break;
	default:
		BB_TLS_END(t, BB_TLS_BAD);
	}
	return 0;
}

/*
 * Continue the walk over one segment of seg_len bytes. w->seg_lo must be the
 * stream offset of data[0]; on BB_TLS_MORE the caller keeps w for the next segment.
 * At most BB_TLS_MAX_STEPS steps (bb_loop(): the verifier walks a step once), then
 * the name in one long gather.
 */
static __always_inline int bb_tls_walk(struct bb_tls_walk *w, const __u8 *data, const void *end,
				       __u32 seg_len)
{
	struct bb_tls_walk_ctx t = { w, data, end, seg_len, -1 };

	bb_loop_hot(4, BB_TLS_MAX_STEPS, bb_tls_step, &t);	/* a segment's usual fields */
	if (t.ret >= 0)
		return t.ret;
	if (w->stage != BB_TLS_SNI_NAME)
		return BB_TLS_BAD;	/* more extensions than we follow */
	return bb_tls_gather(w, data, end, seg_len, w->name_len, BB_TLS_BUF, 1) ? BB_TLS_SNI : BB_TLS_MORE;
}

/*
 * n bytes of the segment at stream offset pos (below BB_TLS_MAX_BYTES), or NULL:
 * past the segment or the packet. The mask, a no-op, bounds pos for the verifier;
 * the barrier keeps clang from dropping it for the check before it.
 */
static __always_inline const __u8 *bb_tls_at(const __u8 *data, const void *end, __u32 seg_len,
					     __u32 pos, __u32 n)
{
	const __u8 *q;

	if (pos >= BB_TLS_MAX_BYTES || pos + n > seg_len)
		return NULL;
	barrier_var(pos);
	q = data + (pos & (BB_TLS_MAX_BYTES - 1));
	return (void *)(q + n) > end ? NULL : q;
}

/* What the turns of bb_tls_whole()'s loops share. */
struct bb_tls_whole_ctx {
	struct bb_tls_walk *w;
	const __u8 *data;
	const void *end;
	__u32 seg_len;
	__u32 pos;		/* the extension header read next; the name's first byte */
	__u32 ext_end;
	__u32 len;		/* the last header's data length; the name's length */
	__u32 ech;		/* an encrypted_client_hello extension was seen */
	__u32 at;		/* the name's next word, from its start */
	int found;		/* the extensions: the server_name header at pos; the name:
				 * a word past the segment (-1) */
};

/* An extension header: 1 (stop) at the server_name or at anything the walk would judge. */
static __always_inline long bb_tls_whole_ext(__u32 i, void *arg)
{
	struct bb_tls_whole_ctx *x = arg;
	const __u8 *q = bb_tls_at(x->data, x->end, x->seg_len, x->pos, 4);
	__u32 type, len;

	(void)i;
	if (!q || x->pos + 4 > x->ext_end)
		return 1;
	type = __builtin_bswap32(bb_load32(q));	/* type and length, big-endian */
	len = type & 0xffff;
	type >>= 16;
	if (x->pos + 4 + len > x->ext_end)
		return 1;
	x->len = len;
	x->ech |= type == BB_TLS_EXT_ECH;
	if (type == BB_TLS_EXT_SERVER_NAME) {
		x->found = 1;
		return 1;
	}
	x->pos += 4 + len;
	return 0;
}

/* The name's next whole word into the walk's buffer; 1 (stop) past the last one. */
static __always_inline long bb_tls_whole_word(__u32 i, void *arg)
{
	struct bb_tls_whole_ctx *x = arg;
	__u32 at = bb_bounded(x->at, BB_TLS_BUF - 8);
	const __u8 *q;

	(void)i;
	if (at + 8 > x->len || x->at > BB_TLS_BUF - 8)
		return 1;
	q = bb_tls_at(x->data, x->end, x->seg_len, x->pos + at, 8);
	if (!q) {
		x->found = -1;
		return 1;
	}
	bb_store64(x->w->buf + at, bb_load64(q));
	x->at = at + 8;
	return 0;
}

/*
 * The common case, fast: a new ClientHello whose fields, up to the whole SNI, are
 * in this one segment, read at packet offsets with the walk's own checks and
 * limits. BB_TLS_SNI: w->buf[0 .. w->name_len) holds the name and w->ech is set as
 * the walk would set it; the outcome is the walk's. BB_TLS_MORE: anything else
 * (a field past the segment, no SNI, a bad length, more extensions than the walk
 * follows), and the walk decides. w must be fresh (bb_tls_walk() from its start):
 * only the name's bytes in w->buf may be left behind, which the walk overwrites
 * before it reads them. Its two loops are bb_loop_hot()s.
 */
static __always_inline int bb_tls_whole(struct bb_tls_walk *w, const __u8 *data, const void *end,
					__u32 seg_len)
{
	struct bb_tls_whole_ctx x = { .w = w, .data = data, .end = end, .seg_len = seg_len };
	__u32 pos, len, hello_end, ext_end;
	const __u8 *q;

	/* record (5), handshake header (4), version and random (34), session id length */
	if ((void *)(data + 44) > end || seg_len < 44)
		return BB_TLS_MORE;
	if (data[0] != 22 || data[1] != 3 || data[5] != 1)
		return BB_TLS_MORE;
	len = bb_tls_be16(data + 3);
	hello_end = (__u32)data[6] << 16 | bb_tls_be16(data + 7);
	if (len < 4 || 9 + hello_end > 5 + len || data[43] > 32)
		return BB_TLS_MORE;
	hello_end += 9;
	pos = 44 + data[43];		/* the cipher suites' length */
	q = bb_tls_at(data, end, seg_len, pos, 2);
	if (!q)
		return BB_TLS_MORE;
	len = bb_tls_be16(q);
	if (len < 2 || (len & 1))
		return BB_TLS_MORE;
	pos += 2 + len;			/* the compression methods' length */
	q = bb_tls_at(data, end, seg_len, pos, 1);
	if (!q || q[0] < 1)
		return BB_TLS_MORE;
	pos += 1 + q[0];		/* the extensions' length */
	q = bb_tls_at(data, end, seg_len, pos, 2);
	if (!q || pos + 2 > hello_end)
		return BB_TLS_MORE;
	ext_end = pos + 2 + bb_tls_be16(q);
	if (ext_end > hello_end)
		return BB_TLS_MORE;
	/* the walk spends 6 steps to here, then one per extension header and one on
	 * the server_name list, in 40: the server_name must be among the first 33 */
	x.pos = pos + 2;
	x.ext_end = ext_end;
	bb_loop_hot(8, BB_TLS_MAX_STEPS - 7, bb_tls_whole_ext, &x);	/* most: 8 extensions */
	if (x.found != 1 || x.len < 5)
		return BB_TLS_MORE;
	/* the server_name list: its length, name type 0, the name's length */
	pos = x.pos + 4;
	q = bb_tls_at(data, end, seg_len, pos, 5);
	if (!q)
		return BB_TLS_MORE;
	len = bb_tls_be16(q + 3);
	if (q[2] != 0 || len < 1 || len > BB_NAME_MAX + 1 || 3 + len > bb_tls_be16(q) ||
	    pos + 5 + len > ext_end || pos + 5 + len > seg_len || pos + 5 + len > BB_TLS_MAX_BYTES)
		return BB_TLS_MORE;
	/*
	 * The name, eight bytes at a time, then its last word: the eight bytes that end
	 * where the name does (the name often ends the packet), over the word before
	 * it, or shifted down for a name under 8 bytes (the headers precede it).
	 */
	pos += 5;
	x.pos = pos;
	x.len = len;
	x.found = 0;
	x.at = 0;
	bb_loop_hot(4, BB_TLS_BUF / 8, bb_tls_whole_word, &x);	/* most names: 32 bytes */
	if (x.found)
		return BB_TLS_MORE;
	if (len & 7) {
		__u64 v;

		q = bb_tls_at(data, end, seg_len, pos + len - 8, 8);
		if (!q)
			return BB_TLS_MORE;
		v = bb_load64(q);
		if (len < 8)
			bb_store64(w->buf, v >> (8 * (8 - len)));
		else
			bb_store64(w->buf + ((len - 8) & (BB_TLS_BUF - 1)), v);
	}
	w->name_len = len;
	w->ech |= x.ech;
	return BB_TLS_SNI;
}

#endif /* BB_TLS_H */

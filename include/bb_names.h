/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Names in packets: DNS question names, HTTP Host and path, and which keys they probe. */
#ifndef BB_NAMES_H
#define BB_NAMES_H

#include "bloomblock.h"
#include "bb_hash.h"

/*
 * Every name is written into a key buffer as the key it is probed with:
 * key[0] is the kind tag, key[1 .. len] the canonical name (lowercase ASCII, dots,
 * no trailing dot). An HTTP request's path follows its host: key[1 + host_len ..].
 * A parent suffix is probed in place by writing its kind tag over the dot in front
 * of it, so no probe copies bytes. Indices are masked for the verifier; the buffer
 * holds BB_KEYBUF_BYTES so that a hash starting anywhere in the first BB_KEY_MAX
 * bytes stays inside it.
 */
#define BB_KEYBUF_BYTES		1024
#define BB_KEYBUF_MASK		(BB_KEYBUF_BYTES - 1)
#define BB_HTTP_SCAN_MAX	512	/* request bytes searched for the Host header */
#define BB_DNS_HDR_LEN		12

/*
 * The key buffer's layout. Functions take it as bytes (a key starts at key[0]) and
 * reach the state in its tail at these fixed offsets, so that no key, however it
 * grows, can run into them: the asserts below hold the line.
 */
struct bb_keybuf {
	__u8 key[BB_KEYBUF_BYTES - 128];	/* a key, and what a hash of one starting anywhere in its
				 * first BB_KEY_MAX bytes reads, and an HTTP path stored at
				 * up to BB_KEYBUF_BYTES / 2 */
	__u32 n_dots;		/* bb_dots_add(): dots seen */
	__u32 dots[16];		/* ... the last 16 of them, a ring */
	__u32 paths[8];		/* bb_match_url()'s path prefixes (bb_url_path_prefixes()) */
	__u32 at;		/* a walk's position, from one turn of its loop to the next */
	__u8 unused[8];
	__u32 url_paths;	/* bb_url_path_prefixes()'s count */
	__u32 parents;		/* bb_name_parents()'s count */
	__u32 labels;		/* ... and its labels */
	__u32 forget;		/* bb_forget()'s word */
};

#define BB_DOTS_SLOT		__builtin_offsetof(struct bb_keybuf, n_dots)
#define BB_FORGET_SLOT		__builtin_offsetof(struct bb_keybuf, forget)
#define BB_PARENTS_SLOT		__builtin_offsetof(struct bb_keybuf, parents)
#define BB_LABELS_SLOT		__builtin_offsetof(struct bb_keybuf, labels)
#define BB_URL_PATHS_SLOT	__builtin_offsetof(struct bb_keybuf, url_paths)
#define BB_PATHS_SLOT		__builtin_offsetof(struct bb_keybuf, paths)
#define BB_AT_SLOT		__builtin_offsetof(struct bb_keybuf, at)

_Static_assert(sizeof(struct bb_keybuf) == BB_KEYBUF_BYTES, "the key buffer's layout");
_Static_assert(BB_DOTS_SLOT >= 2 * BB_KEY_MAX + 8 && BB_DOTS_SLOT >= BB_KEYBUF_BYTES / 2 + 8,
	       "a key, its hashing slack and an HTTP path end before the state");
_Static_assert(BB_DOTS_SLOT % 8 == 0, "the state's words are aligned");

/*
 * A loop that stops where the data says leaves its index live after it, and the
 * verifier then walks everything that follows once per possible exit: hundreds of
 * times. Passing such a value through memory the verifier does not track (the
 * key buffer's last word, in a map) makes it an unknown scalar, one state for all
 * exits; every access it later bounds is masked or compared anyway. A no-op in
 * userspace.
 */
static __always_inline __u32 bb_forget(__u8 *key, __u32 v)
{
	volatile __u32 *slot = (volatile __u32 *)(key + BB_FORGET_SLOT);

	*slot = v;
	return *slot;
}

/*
 * The dots of the name that bb_dns_qname() or bb_name_finish() wrote last, as
 * they pass them: their count and a ring of the last 16 positions, in the key
 * buffer's tail (past any key and its hashing slack, before bb_forget()'s words).
 * bb_name_parents_recorded() then finds the parents without scanning the name
 * again. A dot at position 1 (a name that starts with one) is not recorded: no
 * parent starts there.
 */
static __always_inline void bb_dots_reset(__u8 *key)
{
	*(volatile __u32 *)(key + BB_DOTS_SLOT) = 0;
}

static __always_inline void bb_dots_add(__u8 *key, __u32 at)
{
	volatile __u32 *n = (volatile __u32 *)(key + BB_DOTS_SLOT);
	__u32 i = *n;

	((__u32 *)(key + __builtin_offsetof(struct bb_keybuf, dots)))[i & 15] = at;
	*n = i + 1;
}

enum bb_name_result {
	BB_NAME_FOUND = 0,	/* key[1 .. len] holds the name */
	BB_NAME_NONE,		/* not a query or request: nothing to check, nothing counted */
	BB_NAME_EMPTY,		/* a query for the root, a request without Host, no SNI */
	BB_NAME_BAD,		/* truncated, malformed or too long: counted as unparsed */
};

static __always_inline __u8 bb_lower(__u8 c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* Bit 7 of each byte of v in 'A'..'Z', exactly. */
static __always_inline __u64 bb_upper_bytes(__u64 v)
{
	__u64 low7 = v & 0x7f7f7f7f7f7f7f7fULL;		/* no carry out of a byte */
	__u64 ge_a = low7 + 0x3f3f3f3f3f3f3f3fULL;	/* bit 7: byte >= 'A' */
	__u64 gt_z = low7 + 0x2525252525252525ULL;	/* bit 7: byte > 'Z' */

	return ge_a & ~gt_z & ~v & 0x8080808080808080ULL;
}

/* bb_lower() on eight bytes at once: bytes 'A'..'Z' get 0x20, no others. */
static __always_inline __u64 bb_lower8(__u64 v)
{
	return v | bb_upper_bytes(v) >> 2;
}

/*
 * The index of the lowest zero byte, from z = (v - 0x01..) & ~v & 0x80.. != 0: its
 * lowest set bit is exact (the borrows only mark bytes above a zero), bit 8i + 7.
 * (1 << 8i) * 0x0001020304050607 has i in its top byte.
 */
static __always_inline __u32 bb_low_zero_byte(__u64 z)
{
	return (__u32)((((z & -z) >> 7) * 0x0001020304050607ULL) >> 56) & 7;
}

/* Bit 7 of the lowest zero byte, and maybe of bytes above it: see bb_low_zero_byte(). */
static __always_inline __u64 bb_zero_bytes(__u64 v)
{
	return (v - 0x0101010101010101ULL) & ~v & 0x8080808080808080ULL;
}

/* The same for bytes below n (n <= 128). */
static __always_inline __u64 bb_bytes_below(__u64 v, __u8 n)
{
	return (v - 0x0101010101010101ULL * n) & ~v & 0x8080808080808080ULL;
}

/* Is one of the eight bytes zero? */
static __always_inline int bb_has_zero8(__u64 v)
{
	return bb_zero_bytes(v) != 0;
}

/* What the turns of bb_dns_qname()'s label walk share. */
struct bb_dns_labels_ctx {
	__u8 *key;
	__u32 raw;	/* the wire name's length, its zero byte included */
	__u32 at;	/* the next length byte's place */
	int bad;
};

/* A label of the wire name: its length byte made a dot, recorded. 1: stop (the end, or bad). */
static __always_inline long bb_dns_label(__u32 i, void *arg)
{
	struct bb_dns_labels_ctx *lc = arg;
	__u8 *key = lc->key;
	__u32 j = lc->at;
	__u8 l = key[j & BB_KEYBUF_MASK];

	(void)i;
	if (!l)
		return 1;
	if (l > 63) {		/* a compression pointer (0xc0) or an extended label type */
		lc->bad = 1;
		return 1;
	}
	if (j) {
		key[j & BB_KEYBUF_MASK] = '.';
		bb_dots_add(key, j);	/* j >= 2: the first label is not empty */
	}
	j += l + 1;
	lc->at = j;
	if (j >= lc->raw) {
		lc->bad = 1;		/* a zero byte inside a label */
		return 1;
	}
	return 0;
}

/*
 * The DNS question name of a query (QR=0, opcode QUERY, one question or more)
 * into key[1 .. *len]. The wire form "\4evil\7example\0" is copied as it is to
 * key[0 ..]: its first length byte lands on the kind tag's place and the later
 * length bytes become dots, in place.
 */
static __always_inline int bb_dns_qname(const __u8 *msg, const void *end, __u8 *key, __u32 *len)
{
	const __u8 *q = msg + BB_DNS_HDR_LEN;
	__u32 i, raw = 0, j, w;

	if ((void *)(msg + BB_DNS_HDR_LEN) > end)
		return BB_NAME_BAD;
	if ((msg[2] & 0x80) || (msg[2] & 0x78))	/* a response, or not a standard query */
		return BB_NAME_NONE;
	if (!msg[4] && !msg[5])			/* no question */
		return BB_NAME_BAD;

	/* copy the wire name, up to its terminating zero byte, lowercase: length bytes
	 * are at most 63, below 'A', and stay as they are. Eight bytes at a time while
	 * eight are in the packet and none is the zero; then byte by byte, at most 8 */
	for (w = 0; w < (BB_NAME_MAX + 2) / 8; w++) {
		__u64 v;

		if ((void *)(q + w * 8 + 8) > end)
			break;
		v = bb_load64(q + w * 8);
		if (bb_has_zero8(v))
			break;
		bb_store64(key + w * 8, bb_lower8(v));
	}
	w = bb_forget(key, w * 8) & 511;	/* one verifier state for every w */
	if ((void *)(q + w + 8) <= end) {
		/* the word with the zero byte (QTYPE and QCLASS follow the name, so it is
		 * usually whole in the packet): copy it all, the zero is its lowest zero */
		__u64 v, z;

		v = bb_load64(q + w);
		z = bb_zero_bytes(v);
		if (z) {
			bb_store64(key + (w & BB_KEYBUF_MASK), bb_lower8(v));
			raw = w + bb_low_zero_byte(z) + 1;
		}
	} else {
		for (i = 0; i < 8; i++) {
			const __u8 *p = q + w + i;

			if ((void *)(p + 1) > end)
				return BB_NAME_BAD;
			key[(w + i) & BB_KEYBUF_MASK] = bb_lower(*p);
			if (!*p) {
				raw = w + i + 1;
				break;
			}
		}
	}
	if (raw > BB_NAME_MAX + 2)
		raw = 0;
	raw = bb_forget(key, raw);
	if (!raw)
		return BB_NAME_BAD;	/* longer than any name */
	if (raw == 1) {
		*len = 0;
		return BB_NAME_EMPTY;	/* the root */
	}

	/* walk the labels: each length byte must land on the next one, the last on 0 */
	bb_dots_reset(key);
	{
		struct bb_dns_labels_ctx lc = { key, raw, 0, 0 };

		bb_loop_hot(4, BB_NAME_MAX, bb_dns_label, &lc);	/* most names: 4 labels */
		if (lc.bad)
			return BB_NAME_BAD;
		j = lc.at;
	}
	if (bb_forget(key, j) != raw - 1)
		return BB_NAME_BAD;
	*len = raw - 2;
	return BB_NAME_FOUND;
}

/* Bit 7 of each zero byte of v, exactly: no borrow runs from one byte into the next. */
static __always_inline __u64 bb_zero_bytes_exact(__u64 v)
{
	return ~(((v & 0x7f7f7f7f7f7f7f7fULL) + 0x7f7f7f7f7f7f7f7fULL) | v) & 0x8080808080808080ULL;
}

/* What the turns of bb_name_finish() share. */
struct bb_name_finish_ctx {
	__u8 *key;
	__u32 n;	/* the name's length */
	__u32 at;	/* the next word's first byte */
	int bad;
};

/* The name's next word: checked, lowercased, its dots recorded. 1: stop (past it, or bad). */
static __always_inline long bb_name_finish_word(__u32 i, void *arg)
{
	struct bb_name_finish_ctx *f = arg;
	__u8 *key = f->key;
	__u32 k, n = f->n, at = f->at;
	__u64 v, keep, dots;

	(void)i;
	if (at > n)
		return 1;
	keep = 0x8080808080808080ULL;	/* bit 7 of the name's bytes in this word */
	if (n - at < 7)
		keep >>= 8 * (7 - (n - at));
	at = bb_bounded(at, 255);
	v = bb_load64(key + at);
	if ((v | bb_bytes_below(v, '!') | bb_zero_bytes(v ^ 0x2f2f2f2f2f2f2f2fULL) |
	     bb_zero_bytes(v ^ 0x7f7f7f7f7f7f7f7fULL)) & keep) {
		f->bad = 1;
		return 1;
	}
	bb_store64(key + at, v | (bb_upper_bytes(v) & keep) >> 2);	/* bb_lower8() */
	/* a dot at position 1 is not recorded: no parent starts there */
	dots = bb_zero_bytes_exact(v ^ 0x2e2e2e2e2e2e2e2eULL) & keep & (at > 1 ? ~0ULL : ~0x80ULL);
	for (k = 0; k < 8; k++) {
		if (!dots)
			break;
		bb_dots_add(key, at + bb_low_zero_byte(dots));
		dots &= dots - 1;
	}
	f->at = at + 8;
	return 0;
}

/*
 * Lowercase key[1 .. len] and drop one trailing dot; reject what no list can hold:
 * a byte below '!', '/', or 0x7f and above. Eight bytes a step (bb_loop_hot()). The
 * borrows of the tests mark only bytes above a true match, so the bytes past the name
 * in its last word cannot make one inside it bad; those bytes are left as they were.
 * The dots are recorded in order.
 */
static __always_inline int bb_name_finish(__u8 *key, __u32 *len)
{
	struct bb_name_finish_ctx f = { key, 0, 1, 0 };
	__u32 n = bb_forget(key, *len);

	if (n && key[n & BB_KEYBUF_MASK] == '.')
		n--;
	if (!n)
		return BB_NAME_EMPTY;
	if (n > BB_NAME_MAX)
		return BB_NAME_BAD;
	bb_dots_reset(key);
	f.n = n;
	bb_loop_hot(4, (BB_NAME_MAX + 7) / 8, bb_name_finish_word, &f);	/* most: 32 bytes */
	if (f.bad)
		return BB_NAME_BAD;
	*len = bb_forget(key, n);
	return BB_NAME_FOUND;
}

/* What the turns of bb_http_request()'s walks share; a position goes in the key's at. */
struct bb_http_ctx {
	const __u8 *req;
	__u8 *key;
	__u32 reqlen;
	__u32 from, to;	/* where a scan is, and where it stops at the latest */
	__u32 at;	/* a copy's next word, from its start */
	int ret;	/* a scan's outcome: BB_NAME_* (or -1: none), a position */
};

/*
 * The request target's next eight bytes: its end is the first byte below '!', which
 * must be the space before " HTTP/1." (a control byte: HTTP/0.9, or not HTTP). Its
 * place into the key's at. 1: stop (h->ret: BB_NAME_FOUND, _NONE, or _BAD for a
 * request that ends first).
 */
static __always_inline long bb_http_target(__u32 i, void *arg)
{
	struct bb_http_ctx *h = arg;
	__u32 at = h->from, k;
	__u64 stop;

	(void)i;
	stop = at < h->reqlen ? bb_bytes_below(bb_load64(h->req + bb_bounded(at, BB_HTTP_SCAN_MAX - 1)),
					       '!') : 0;
	k = at + bb_low_zero_byte(stop);
	if (!stop && at + 8 < h->reqlen) {
		h->from = at + 8;
		return 0;
	}
	if (!stop || k >= h->reqlen)	/* the request's end first; its whole copy: no space */
		h->ret = h->reqlen >= BB_HTTP_SCAN_MAX ? BB_NAME_NONE : BB_NAME_BAD;
	else if (h->req[bb_bounded(k, BB_HTTP_SCAN_MAX - 1)] == ' ')
		h->ret = BB_NAME_FOUND;
	else
		h->ret = BB_NAME_NONE;	/* CR, LF: HTTP/0.9 or not HTTP */
	*(volatile __u32 *)(h->key + BB_AT_SLOT) = k;
	return 1;
}

/* An absolute target's next eight bytes after "http://": the path's start, its first '/'. */
static __always_inline long bb_http_authority(__u32 i, void *arg)
{
	struct bb_http_ctx *h = arg;
	__u32 at = h->from, k;
	__u64 slash;

	(void)i;
	slash = at < h->to ? bb_zero_bytes(bb_load64(h->req + bb_bounded(at, BB_HTTP_SCAN_MAX - 1)) ^
					   0x2f2f2f2f2f2f2f2fULL) : 0;
	k = at + bb_low_zero_byte(slash);
	if (!slash && at + 8 < h->to) {
		h->from = at + 8;
		return 0;
	}
	*(volatile __u32 *)(h->key + BB_AT_SLOT) = slash && k < h->to ? k : h->to;
	return 1;
}

/*
 * A step of the search for the Host header: "\nhost:" in any case. Only a line feed
 * can start it (or the end of the headers): eight bytes a step to the next one, then
 * one 8-byte compare there, not six. Each step moves 8 bytes, or to just past a line
 * feed; the position stays in the key's at between steps. 1: stop (h->ret the value's
 * start, or 0: none).
 */
static __always_inline long bb_http_host(__u32 n, void *arg)
{
	struct bb_http_ctx *h = arg;
	volatile __u32 *at = (volatile __u32 *)(h->key + BB_AT_SLOT);
	__u32 i = *at;
	__u64 v, lf;

	(void)n;
	if (i + 6 > h->reqlen || i >= BB_HTTP_SCAN_MAX - 8)
		return 1;
	/* little-endian; the mask, a no-op here, bounds i for the verifier */
	v = bb_load64(h->req + bb_bounded(i, BB_HTTP_SCAN_MAX - 1));
	lf = bb_zero_bytes(v ^ 0x0a0a0a0a0a0a0a0aULL);
	if (!lf) {
		*at = i + 8;
		return 0;
	}
	i += bb_low_zero_byte(lf);
	if (i + 6 > h->reqlen || i >= BB_HTTP_SCAN_MAX - 8)
		return 1;
	v = bb_load64(h->req + bb_bounded(i, BB_HTTP_SCAN_MAX - 1));
	if (((v | 0x2020202000ULL) & 0xffffffffffffULL) == 0x3a74736f680aULL) {
		h->ret = (int)i + 6;
		return 1;
	}
	if ((v & 0xffff) == 0x0d0a || (v & 0xffff) == 0x0a0a)
		return 1;	/* end of headers */
	*at = i + 1;
	return 0;
}

/*
 * The Host value's next word, copied to the key: up to CR, LF, space, tab or the
 * port's colon (h->ret: its length, at the first word that holds one of them).
 */
static __always_inline long bb_http_value(__u32 i, void *arg)
{
	struct bb_http_ctx *h = arg;
	__u32 w = bb_bounded(h->at, 255);
	__u64 v, stop;

	(void)i;
	v = bb_load64(h->req + bb_bounded(h->from + w, BB_HTTP_SCAN_MAX - 1));
	bb_store64(h->key + 1 + w, v);
	stop = bb_bytes_below(v, 0x21) | bb_zero_bytes(v ^ 0x3a3a3a3a3a3a3a3aULL);
	if (stop) {
		h->ret = (int)(w + bb_low_zero_byte(stop));
		return 1;
	}
	h->at = w + 8;
	return 0;
}

/* The path's next word after the host, while any of it is left (h->to bytes). */
static __always_inline long bb_http_path(__u32 i, void *arg)
{
	struct bb_http_ctx *h = arg;
	__u32 w = bb_bounded(h->at, 255);

	(void)i;
	if (w >= h->to)
		return 1;
	bb_store64(h->key + bb_bounded(h->ret + w, BB_KEYBUF_BYTES / 2 - 1),
		   bb_load64(h->req + bb_bounded(h->from + w, BB_HTTP_SCAN_MAX - 1)));
	h->at = w + 8;
	return 0;
}

/*
 * An HTTP/1.x request: the method, the request target's path (origin form, or the
 * path of an absolute http:// URL) and the Host header's value without its port.
 * req is a copy of the request's first bytes (reqlen of them, at most
 * BB_HTTP_SCAN_MAX); the host goes to key[1 .. *host_len] and the path right after
 * it, cut to what a key can hold (*path_full says whether it was cut). Its walks are
 * bb_loop()s; what each learnt goes through memory (the key's at, bb_forget()) before
 * the next, so that each is one verifier state.
 */
static __always_inline int bb_http_request(const __u8 *req, __u32 reqlen, __u8 *key,
					   __u32 *host_len, __u32 *path_len, int *path_full)
{
	struct bb_http_ctx h = { req, key, 0, 0, 0, 0, -1 };
	__u32 i, path_start = 0, path_end = 0, host_start = 0, n, sp = 0;

	/* method: 3 to 7 uppercase letters and a space */
	for (i = 0; i < 8; i++) {
		__u8 c = req[i];

		if (i >= reqlen)
			return BB_NAME_NONE;
		if (c == ' ') {
			sp = i;
			break;
		}
		if (c < 'A' || c > 'Z')
			return BB_NAME_NONE;
	}
	sp = bb_forget(key, sp);
	if (sp < 3 || sp > 7)
		return BB_NAME_NONE;

	/* request target, then " HTTP/1." */
	path_start = sp + 1;
	h.reqlen = bb_forget(key, reqlen);
	h.from = path_start;
	h.ret = -1;
	bb_loop_hot(4, BB_HTTP_SCAN_MAX / 8 + 1, bb_http_target, &h);	/* most paths: 32 bytes */
	if (h.ret != BB_NAME_FOUND)
		return h.ret < 0 ? BB_NAME_BAD : h.ret;
	path_end = *(volatile __u32 *)(key + BB_AT_SLOT);
	/* what the loops learnt of these would split the verifier's walk from here on */
	path_end = bb_forget(key, path_end);
	reqlen = bb_forget(key, reqlen);
	if (!path_end || path_end + 9 > reqlen || req[(path_end + 1) & (BB_HTTP_SCAN_MAX - 1)] != 'H' ||
	    req[(path_end + 5) & (BB_HTTP_SCAN_MAX - 1)] != '/' ||
	    req[(path_end + 6) & (BB_HTTP_SCAN_MAX - 1)] != '1')
		return BB_NAME_NONE;

	/* absolute form: http://host[:port]/path -> the path; no path is "/" */
	if (path_end - path_start >= 7 && bb_lower(req[path_start]) == 'h' &&
	    req[(path_start + 4) & (BB_HTTP_SCAN_MAX - 1)] == ':' &&
	    req[(path_start + 5) & (BB_HTTP_SCAN_MAX - 1)] == '/') {
		h.from = path_start + 7;
		h.to = path_end;
		*(volatile __u32 *)(key + BB_AT_SLOT) = path_end;
		bb_loop(BB_HTTP_SCAN_MAX / 8 + 1, bb_http_authority, &h);
		path_start = bb_forget(key, *(volatile __u32 *)(key + BB_AT_SLOT));
		path_end = bb_forget(key, path_end);
	} else if (req[path_start & (BB_HTTP_SCAN_MAX - 1)] != '/') {
		path_end = path_start;	/* "*" or authority form: no path to match */
	}

	/* the Host header: "\nhost:" in any case, its value after spaces or a folded line */
	*(volatile __u32 *)(key + BB_AT_SLOT) = bb_forget(key, path_end);
	h.reqlen = bb_forget(key, reqlen);
	h.ret = 0;
	bb_loop_hot(4, BB_HTTP_SCAN_MAX - 8, bb_http_host, &h);	/* Host, often the first line */
	host_start = bb_forget(key, h.ret > 0 ? h.ret : 0);
	reqlen = bb_forget(key, reqlen);
	path_end = bb_forget(key, path_end);
	path_start = bb_forget(key, path_start);
	if (!host_start)
		return path_end + 1 >= reqlen ? BB_NAME_BAD : BB_NAME_EMPTY;
	for (n = 0; n < 16; n++) {	/* at most 16 bytes of space before the value */
		__u8 c;

		i = host_start + n;
		if (i >= reqlen || i >= BB_HTTP_SCAN_MAX)
			return BB_NAME_BAD;
		c = req[i];
		/* spaces, tabs, and obs-fold: CRLF followed by a space or tab */
		if (c == ' ' || c == '\t')
			continue;
		if ((c == '\r' || c == '\n') && i + 2 < reqlen &&
		    (req[(i + 1) & (BB_HTTP_SCAN_MAX - 1)] == ' ' ||
		     req[(i + 1) & (BB_HTTP_SCAN_MAX - 1)] == '\t' ||
		     req[(i + 2) & (BB_HTTP_SCAN_MAX - 1)] == ' ' ||
		     req[(i + 2) & (BB_HTTP_SCAN_MAX - 1)] == '\t'))
			continue;
		break;
	}
	host_start = bb_forget(key, i);
	reqlen = bb_forget(key, reqlen);
	/* the value up to CR, LF, space, tab or the port's colon, eight bytes a step */
	h.from = host_start;
	h.at = 0;
	h.ret = BB_NAME_MAX + 1;
	bb_loop_hot(4, (BB_NAME_MAX + 8) / 8, bb_http_value, &h);	/* most hosts: 32 bytes */
	i = bb_forget(key, (__u32)h.ret);
	/* too long, or no end in the request (what the copy read past it does not count) */
	if (i > BB_NAME_MAX || host_start + i >= reqlen)
		return BB_NAME_BAD;
	*host_len = i;
	path_end = bb_forget(key, path_end);
	path_start = bb_forget(key, path_start);
	i = bb_name_finish(key, host_len);
	if (i != BB_NAME_FOUND)
		return i;

	/* the path after the host, as much as a key can hold */
	n = path_end - path_start;
	*path_full = 1;
	if (1 + *host_len + n > BB_KEY_MAX) {
		n = BB_KEY_MAX - 1 - *host_len;
		*path_full = 0;
	}
	/* eight bytes a step: what goes past the path's end is never read */
	h.from = path_start;
	h.to = n;
	h.at = 0;
	h.ret = (int)(1 + *host_len);
	bb_loop_hot(4, BB_KEY_MAX / 8, bb_http_path, &h);	/* most paths: 32 bytes */
	*path_len = n;
	return BB_NAME_FOUND;
}

/*
 * The dots in front of a name's parents, shortest parent first (two labels, then
 * three, ...), at most max of them, parents of at most max_labels labels. key[1 ..
 * len] is the name. The name itself is not its own parent.
 */
static __always_inline __u32 bb_name_parents(__u8 *key, __u32 len, __u32 *dots, __u32 max,
					     __u32 max_labels)
{
	/*
	 * The counters live in the key buffer's tail, not in registers: as registers
	 * their exact values would split the verifier's walk of this loop into one
	 * path per combination of labels and parents seen so far.
	 */
	volatile __u32 *labels = (volatile __u32 *)(key + BB_LABELS_SLOT);
	volatile __u32 *n = (volatile __u32 *)(key + BB_PARENTS_SLOT);
	__u32 i;

	*labels = 0;
	*n = 0;
	len = bb_forget(key, len);
	if (!max)
		return 0;
	for (i = 0; i < BB_NAME_MAX; i++) {
		__u32 at;

		if (i >= len)
			break;
		at = len - i;
		if (key[at & BB_KEYBUF_MASK] != '.')
			continue;	/* most bytes: no counter read */
		*labels += 1;	/* the suffix after this dot has this many labels */
		if (*labels > max_labels)
			break;
		if (*labels >= 2 && at > 1) {
			dots[*n & 15] = at;
			*n += 1;
			if (*n >= max)
				break;
		}
	}
	return *n;
}

/*
 * bb_name_parents() from the dots the parser recorded: how many parents, by
 * arithmetic, without scanning the name; bb_parent_dot() gives the dot in front of
 * the ith, in the same order (shortest first). With m dots, the parent of L labels
 * starts at the (m - L)th dot; L runs from 2 to min(m, max_labels).
 */
static __always_inline __u32 bb_name_parents_recorded(const __u8 *key, __u32 max,
						      __u32 max_labels)
{
	__u32 m = *(volatile const __u32 *)(key + BB_DOTS_SLOT), n;

	n = m < 2 ? 0 : m - 1;
	if (n > max)
		n = max;
	if (n > max_labels - 1)
		n = max_labels - 1;
	return n;
}

static __always_inline __u32 bb_parent_dot(const __u8 *key, __u32 i)
{
	__u32 m = *(volatile const __u32 *)(key + BB_DOTS_SLOT);

	return ((const __u32 *)(key + __builtin_offsetof(struct bb_keybuf, dots)))[(m - 2 - i) & 15];
}

/* What the turns of bb_url_path_prefixes()'s scans share. */
struct bb_url_paths_ctx {
	__u8 *key;
	__u32 *out;
	__u32 path_off, plen;
	__u32 q;	/* the path's length without its query */
	int full;
};

/* The path's ith byte: is it the query's '?' (its place into the key's at)? 1: stop. */
static __always_inline long bb_url_query(__u32 i, void *arg)
{
	struct bb_url_paths_ctx *u = arg;

	if (i >= u->plen)
		return 1;
	if (u->key[bb_bounded(u->path_off + i, BB_KEYBUF_MASK)] == '?') {
		*(volatile __u32 *)(u->key + BB_AT_SLOT) = i;
		return 1;
	}
	return 0;
}

/* The path's ith byte: a '/' ends a prefix to probe. 1: stop (the query, or enough). */
static __always_inline long bb_url_slash(__u32 i, void *arg)
{
	struct bb_url_paths_ctx *u = arg;
	volatile __u32 *n = (volatile __u32 *)(u->key + BB_URL_PATHS_SLOT);

	if (i >= u->q || *n >= BB_URL_MAX_PATH_PREFIXES)
		return 1;
	if (u->key[bb_bounded(u->path_off + i, BB_KEYBUF_MASK)] == '/' && i + 1 != u->q &&
	    !(u->full && i + 1 == u->plen)) {
		u->out[*n & 7] = i + 1;
		*n += 1;
	}
	return 0;
}

/*
 * The path prefixes a URL probes, as lengths from the path's start at
 * key[path_off]: the whole path with its query (when it was not cut), the path
 * without the query, then prefixes ending in '/', from the root; at most
 * BB_URL_MAX_PATH_PREFIXES, none twice. Two byte scans (bb_loop()).
 */
static __always_inline __u32 bb_url_path_prefixes(__u8 *key, __u32 path_off, __u32 plen,
						  int full, __u32 *out)
{
	/* the count lives in memory: see bb_name_parents() */
	volatile __u32 *n = (volatile __u32 *)(key + BB_URL_PATHS_SLOT);
	struct bb_url_paths_ctx u = { key, out, path_off, 0, 0, full };
	__u32 q;

	plen = bb_forget(key, plen);
	u.plen = plen;
	*(volatile __u32 *)(key + BB_AT_SLOT) = plen;
	bb_loop(BB_KEY_MAX, bb_url_query, &u);
	q = bb_forget(key, *(volatile __u32 *)(key + BB_AT_SLOT));
	plen = bb_forget(key, plen);
	*n = 0;
	if (full && plen) {
		out[0] = plen;
		*n = 1;
	}
	if (q < plen) {
		out[*n & 7] = q;
		*n += 1;
	}
	u.q = q;
	bb_loop(BB_KEY_MAX, bb_url_slash, &u);
	return *n;
}

#endif /* BB_NAMES_H */

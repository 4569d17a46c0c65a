/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Which keys an address, a name and a URL probe, and in what order: the lookups of
 * the packet path, written once and compiled twice, into the BPF programs and into
 * `bloomblock check` (user/filter_image.c), so that check answers what the kernel
 * would answer.
 *
 * The includer says how its side reaches the filter, before including this file:
 *   BB_MATCH_CTX                   its context type
 *   BB_MATCH_HDR(c)                the live header (const struct bb_header *)
 *   BB_MATCH_KEY(c)                the key buffer (__u8 *, BB_KEYBUF_BYTES)
 *   BB_MATCH_STATES(c)             BB_NAME_STATES words for bb_match_name()
 *   BB_MATCH_KINDS(c)              BB_HDR_F_NAMES, BB_HDR_F_URLS: what the table
 *                                  asked holds (the header's flags, or the allowlist's)
 *   bb_match_lookup(c, h)          one Bloom block test of hash h (1: all bits set),
 *                                  or, in a context that asks the allowlist, one
 *                                  allowlist test (1: h's fingerprint is there)
 *   bb_match_short(c, v4, addr)    the exact short table's bit for addr's /16
 * The allowlist is asked after a hit, with the same enumerations for names and URLs
 * (an allowed name passes its subdomains as a listed one blocks them) and its own
 * prefix lengths for addresses (bb_allow_ip4(), bb_allow_ip6()).
 * Every loop is written for the verifier (counts through memory, copies counted
 * down: see bb_xxh64() and bb_forget()); in userspace those are plain loops.
 */
#ifndef BB_MATCH_H
#define BB_MATCH_H

#if !defined(BB_MATCH_CTX) || !defined(BB_MATCH_HDR) || !defined(BB_MATCH_KEY) || \
	!defined(BB_MATCH_STATES) || !defined(BB_MATCH_KINDS)
#error "define BB_MATCH_CTX, BB_MATCH_HDR, BB_MATCH_KEY, BB_MATCH_STATES and BB_MATCH_KINDS first"
#endif

#include "bloomblock.h"
#include "bb_hash.h"
#include "bb_names.h"

static __always_inline int bb_match_lookup(const BB_MATCH_CTX *c, __u64 h);
static __always_inline int bb_match_short(const BB_MATCH_CTX *c, int v4, const __u8 *addr);

/* The IPv4 address at the header's ith prefix length (i < its n_v4_plens). */
static __always_inline int bb_probe_ip4(const BB_MATCH_CTX *c, const __u8 *addr, __u32 i)
{
	const struct bb_header *hdr = BB_MATCH_HDR(c);

	return bb_match_lookup(c, bb_hash_ip4_word(bb_key_ip4_word(addr,
				hdr->v4_plens[bb_bounded(i, BB_MAX_PLENS - 1)]), hdr->seed));
}

static __always_inline int bb_probe_ip6(const BB_MATCH_CTX *c, const __u8 *addr, __u32 i)
{
	const struct bb_header *hdr = BB_MATCH_HDR(c);
	__u32 plen = hdr->v6_plens[bb_bounded(i, BB_MAX_PLENS - 1)];
	__u64 hi, lo;

	bb_key_ip6_words(addr, plen, &hi, &lo);
	return bb_match_lookup(c, bb_hash_ip6_words(hi, lo, plen, hdr->seed));
}

/* An address: the short table, then each probe length the header lists, longest first. */
static __always_inline int bb_match_ip4(const BB_MATCH_CTX *c, const __u8 *addr)
{
	const struct bb_header *hdr = BB_MATCH_HDR(c);
	__u32 i;

	if ((hdr->flags & BB_HDR_F_V4_SHORT) && bb_match_short(c, 1, addr))
		return 1;
	for (i = 0; i < BB_MAX_PLENS; i++) {
		if (i >= hdr->n_v4_plens)
			break;
		if (bb_probe_ip4(c, addr, i))
			return 1;
	}
	return 0;
}

static __always_inline int bb_match_ip6(const BB_MATCH_CTX *c, const __u8 *addr)
{
	const struct bb_header *hdr = BB_MATCH_HDR(c);
	__u32 i;

	if ((hdr->flags & BB_HDR_F_V6_SHORT) && bb_match_short(c, 0, addr))
		return 1;
	for (i = 0; i < BB_MAX_PLENS; i++) {
		if (i >= hdr->n_v6_plens)
			break;
		if (bb_probe_ip6(c, addr, i))
			return 1;
	}
	return 0;
}

/* The allowlist's addresses: addr at each prefix length the allowlist holds. */
static __always_inline int bb_allow_ip4(const BB_MATCH_CTX *c, const struct bb_allow_header *ah,
					const __u8 *addr)
{
	__u64 seed = BB_MATCH_HDR(c)->seed;
	__u32 i;

	for (i = 0; i < BB_ALLOW_MAX_PLENS; i++) {
		if (i >= ah->n_v4_plens)
			break;
		if (bb_match_lookup(c, bb_hash_ip4_word(bb_key_ip4_word(addr, ah->v4_plens[i] & 63),
							seed)))
			return 1;
	}
	return 0;
}

static __always_inline int bb_allow_ip6(const BB_MATCH_CTX *c, const struct bb_allow_header *ah,
					const __u8 *addr)
{
	__u64 seed = BB_MATCH_HDR(c)->seed, hi, lo;
	__u32 i, plen;

	for (i = 0; i < BB_ALLOW_MAX_PLENS; i++) {
		if (i >= ah->n_v6_plens)
			break;
		plen = ah->v6_plens[i] & 0xff;
		bb_key_ip6_words(addr, plen, &hi, &lo);
		if (bb_match_lookup(c, bb_hash_ip6_words(hi, lo, plen, seed)))
			return 1;
	}
	return 0;
}

/* A key starting at key[start] (its kind tag), len bytes. */
static __always_inline int bb_key_hit(const BB_MATCH_CTX *c, __u32 start, __u32 len)
{
	return bb_match_lookup(c, bb_xxh64(BB_MATCH_KEY(c) + (start & (BB_KEY_MAX - 1)), len,
					   BB_MATCH_HDR(c)->seed));
}

/*
 * The name key (kind, key[start .. start + l)), a suffix of the name in key: its
 * hash from the chained state of its whole words (bb_hash_name()).
 */
static __always_inline int bb_name_hit(const BB_MATCH_CTX *c, __u32 kind, __u32 start, __u32 l)
{
	__u64 head = bb_name_head(bb_name_word(BB_MATCH_KEY(c), start), l);

	return bb_match_lookup(c, bb_name_fin(BB_MATCH_STATES(c)[(l / 8) & (BB_NAME_STATES - 1)],
						 head, l, kind));
}

/*
 * key[1 .. len], a name as a parser left it (its dots recorded), is listed, or one
 * of its parents is: the name itself, then its parents shortest first
 * (include/bloomblock.h says which).
 */
static __always_inline int bb_match_name(const BB_MATCH_CTX *c, __u32 len)
{
	__u8 *key = BB_MATCH_KEY(c);
	__u64 *st = BB_MATCH_STATES(c), s;
	__u32 n, i, d, left, end;

	if (!(BB_MATCH_KINDS(c) & BB_HDR_F_NAMES))
		return 0;
	/* len goes through memory before each use: what one probe's hashing learnt of
	 * it would otherwise split the verifier's walk of every probe after it */
	len = bb_forget(key, len);
	end = 1 + len;
	/* the chain over the name's whole words from its end, once for every probe */
	s = bb_name_state0(BB_MATCH_HDR(c)->seed);
	st[0] = s;
	for (i = 0, left = len / 8 + 1; i < BB_NAME_STATES - 1; i++) {
		if (--left == 0)
			break;
		s = bb_name_mix(s, bb_name_word(key, end - 8 * (i + 1)));
		st[i + 1] = s;
	}
	if (bb_name_hit(c, BB_KEY_NAME, 1, bb_forget(key, len)))
		return 1;
	n = bb_name_parents_recorded(key, BB_NAME_MAX_PARENT_LABELS - 1,
				     BB_NAME_MAX_PARENT_LABELS);
	/* counting down a copy of n: see bb_xxh64() for why */
	for (i = 0, left = n + 1; i < BB_NAME_MAX_PARENT_LABELS - 1; i++) {
		if (--left == 0)
			break;
		d = bb_parent_dot(key, i) & (BB_KEY_MAX - 1);
		if (bb_name_hit(c, BB_KEY_NAME_PARENT, d + 1, bb_forget(key, len) - d))
			return 1;
	}
	return 0;
}

/* What the turns of bb_match_url()'s enumeration share. */
struct bb_url_probe_ctx {
	const BB_MATCH_CTX *c;
	__u32 hlen, n_hosts, n_paths;
	int hit;
};

/*
 * The ith probe of a URL: host suffix i / BB_URL_MAX_PATH_PREFIXES (the host itself,
 * then its parents, shortest first: the dots its parser recorded) times path prefix i
 * % BB_URL_MAX_PATH_PREFIXES. 1: stop (a hit, or every host done).
 */
static __always_inline long bb_url_probe(__u32 i, void *arg)
{
	struct bb_url_probe_ctx *u = arg;
	const BB_MATCH_CTX *c = u->c;
	__u8 *key = BB_MATCH_KEY(c);
	const __u32 *paths = (const __u32 *)(key + BB_PATHS_SLOT);
	__u32 host = i / BB_URL_MAX_PATH_PREFIXES, path = i % BB_URL_MAX_PATH_PREFIXES, d;
	int hit;

	if (host >= u->n_hosts)
		return 1;
	if (path >= u->n_paths)
		return 0;
	/* the exact host: its kind tag goes to key[0]; a parent's over the dot before it */
	d = host ? bb_parent_dot(key, host - 1) & (BB_KEY_MAX - 1) : 0;
	key[d] = BB_KEY_URL;
	hit = bb_key_hit(c, d, 1 + u->hlen - d + paths[bb_bounded(path, 7)]);
	key[d] = d ? '.' : 0;
	if (hit) {
		u->hit = 1;
		return 1;
	}
	return 0;
}

/*
 * Host suffixes times path prefixes, Safe-Browsing style; the host is key[1 .. hlen],
 * its dots recorded by its parser (bb_name_finish()). One bb_loop() over the pairs.
 */
static __always_inline int bb_match_url(const BB_MATCH_CTX *c, __u32 hlen, __u32 plen,
					int full)
{
	__u8 *key = BB_MATCH_KEY(c);
	struct bb_url_probe_ctx u = { c, hlen, 0, 0, 0 };

	if (!(BB_MATCH_KINDS(c) & BB_HDR_F_URLS))
		return 0;
	u.n_paths = bb_url_path_prefixes(key, 1 + hlen, plen, full, (__u32 *)(key + BB_PATHS_SLOT));
	u.n_hosts = 1 + bb_name_parents_recorded(key, BB_URL_MAX_HOST_SUFFIXES - 1,
						 BB_URL_MAX_HOST_SUFFIXES);
	bb_loop(BB_URL_MAX_HOST_SUFFIXES * BB_URL_MAX_PATH_PREFIXES, bb_url_probe, &u);
	return u.hit;
}

#endif /* BB_MATCH_H */

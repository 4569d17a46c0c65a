/* SPDX-License-Identifier: GPL-2.0 */
/* The live filter: opened, its lookups (include/bb_match.h over the map), counted into verdicts. */
#ifndef BB_FILTER_BPF_H
#define BB_FILTER_BPF_H

#include "maps.bpf.h"
#include "bb_hash.h"

#define BB_TCP_SYN 0x02

enum bb_direction {
	BB_INGRESS,	/* XDP, tc ingress: the source is the peer */
	BB_EGRESS,	/* tc egress: the destination is the peer */
};

/* What a program decided. */
enum bb_verdict {
	BB_PASS,
	BB_DROP,
	BB_FLAG,	/* pass, and mark at tc */
	BB_TO_DNS,	/* go on: the DNS stage (struct bb_stage in the scratch) */
	BB_TO_TLS,	/* ... the ClientHello stage */
	BB_TO_HTTP,	/* ... the HTTP request stage */
	BB_TO_URL,	/* ... the URL stage (the request in the scratch) */
	BB_ANSWER,	/* a dropped DNS query to answer: the answer stage */
	BB_RESET,	/* a dropped TLS or HTTP segment whose connection to reset */
};

/*
 * What one packet's checks share. A context that asks the allowlist (allow) is a
 * copy of the one whose lookup hit, with the same filter: a verdict never pairs one
 * filter's hit with another one's allowlist.
 */
struct bb_ctx {
	void *filter;
	const struct bb_header *hdr;
	struct bb_stats *st;
	struct bb_scratch *sc;
	const struct bb_allow_header *ah;	/* set in an allowlist context */
	__u32 allow_first, allow_blocks;	/* the allowlist's table in filter */
	int allow;				/* a constant where it is set */
	/* the program's context, for a hit event's interface: an xdp_md when xdp,
	 * else a __sk_buff; hook: enum bb_event_hook */
	void *pctx;
	__u32 hook;
	int xdp;				/* a constant per program */
};

static __always_inline int hash_hit(const struct bb_ctx *c, __u64 h)
{
	__u32 idx = BB_FIRST_BLOCK + bb_block_of(h, c->hdr->nblocks);
	struct bb_block *blk = bpf_map_lookup_elem(c->filter, &idx);

	c->st->lookups++;
	return blk && bb_block_test(blk, h, c->hdr->k);
}

/* Prefixes /16 and shorter: one exact bit, no false positives. */
static __always_inline int short_hit(void *filter, int v4, const __u8 *addr)
{
	__u32 prefix16 = bb_short_prefix(addr), idx = bb_short_index(v4, prefix16);
	struct bb_block *blk = bpf_map_lookup_elem(filter, &idx);

	return blk && bb_short_test(blk, prefix16);
}

/* The lookups of include/bb_match.h, over the live map, each block read counted. */
#define BB_MATCH_CTX		struct bb_ctx
#define BB_MATCH_HDR(c)		((c)->hdr)
#define BB_MATCH_KEY(c)		((c)->sc->key)
#define BB_MATCH_STATES(c)	((c)->sc->name_states)
#define BB_MATCH_KINDS(c)	((c)->allow ? (c)->ah->flags : (c)->hdr->flags)

/* One allowlist test: h's fingerprint in one of its two blocks. */
static __always_inline int allow_hit(const struct bb_ctx *c, __u64 h)
{
	__u64 fp = bb_allow_fp(h);
	__u32 way, i, idx;

	for (way = 0; way < BB_ALLOW_WAYS; way++) {
		const struct bb_block *blk;

		idx = c->allow_first + bb_allow_block_of(h, c->allow_blocks, way);
		blk = bpf_map_lookup_elem(c->filter, &idx);
		if (!blk)
			continue;
		for (i = 0; i < BB_WORDS; i++)
			if (blk->words[i] == fp)
				return 1;
	}
	return 0;
}

static __always_inline int bb_match_lookup(const struct bb_ctx *c, __u64 h)
{
	return c->allow ? allow_hit(c, h) : hash_hit(c, h);
}

static __always_inline int bb_match_short(const struct bb_ctx *c, int v4, const __u8 *addr)
{
	return short_hit(c->filter, v4, addr);
}

#include "bb_match.h"

/* The live filter's header, if there is a valid one. */
static __always_inline int open_filter(struct bb_ctx *c)
{
	__u32 zero = 0;

	c->filter = bpf_map_lookup_elem(&filters, &zero);
	c->hdr = c->filter ? bpf_map_lookup_elem(c->filter, &zero) : NULL;
	return c->hdr && c->hdr->magic == BB_MAGIC && c->hdr->abi_version == BB_ABI_VERSION &&
	       c->hdr->nblocks;
}

/*
 * An allowlist context for c's filter, when its allowlist holds any of kinds
 * (BB_HDR_F_NAMES, BB_HDR_F_URLS; 0: anything).
 */
static __always_inline int allow_open(const struct bb_ctx *c, struct bb_ctx *a, __u32 kinds)
{
	__u32 idx = BB_FIRST_BLOCK + c->hdr->nblocks;

	if (!c->hdr->allow_blocks)
		return 0;
	*a = *c;
	a->allow = 1;
	a->ah = bpf_map_lookup_elem(c->filter, &idx);
	if (!a->ah || !a->ah->items || (kinds && !(a->ah->flags & kinds)))
		return 0;
	a->allow_first = idx + 1;
	a->allow_blocks = c->hdr->allow_blocks;
	return 1;
}


/* 1 when x == y, else 0, for 16-bit values, with no branch (BPF has no conditional set). */
static __always_inline __u64 eq16(__u64 x, __u64 y)
{
	return ((x ^ y) - 1) >> 63;
}

/*
 * Whether port is one of ports (0: unused), with no branch: the dispatch runs for every
 * header layout that reaches it, and a branch per port would be as many verifier states.
 */
static __always_inline int port_in(const __u16 *ports, __u16 port)
{
	__u64 p = port;

	_Static_assert(BB_MAX_PORTS == 4, "port_in() compares four ports");
	return (int)((eq16(ports[0], p) | eq16(ports[1], p) | eq16(ports[2], p) | eq16(ports[3], p)) &
		     (eq16(p, 0) ^ 1));
}

/* Count and turn a hit into a verdict by the filter's mode. */
static __always_inline int verdict(const struct bb_ctx *c, int hit)
{
	if (hit && (c->hdr->flags & BB_HDR_F_DROP)) {
		c->st->dropped++;
		return BB_DROP;
	}
	if (hit)
		c->st->flagged++;
	c->st->passed++;
	return hit ? BB_FLAG : BB_PASS;
}

/* verdict() for a ClientHello or a request: a drop resets the connection with --answer. */
static __always_inline int tcp_verdict(const struct bb_ctx *c, int hit)
{
	int v = verdict(c, hit);

	return v == BB_DROP && (c->hdr->flags & BB_HDR_F_ANSWER) ? BB_RESET : v;
}

#endif /* BB_FILTER_BPF_H */

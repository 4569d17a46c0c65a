/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The benchmark's address sequences and state, shared by bpf/bench.bpf.c and the driver. */
#ifndef BENCH_SEQ_H
#define BENCH_SEQ_H

#include <linux/types.h>

#include "bb_compat.h"

/*
 * Member j (0 <= j < 2^31) of every generated list has the IPv4 address
 * bench_ip4(j, 0), non-member j has bench_ip4(j, 1): one bijection of the 32-bit
 * index (j, or j with the top bit set) onto the whole address space. So members are
 * distinct, non-members are never members, and both are spread over the space and
 * interleaved (a trie walks as deep for a miss as for a hit). Only the CIDR-heavy
 * list can cover a non-member: its prefixes span more than their member address;
 * the exact LPM trie row counts how many. IPv6: bench_addr() puts the IPv4 value in
 * the first 4 bytes (distinct per index) and mixed bits in the other 12.
 *
 * The BPF cold programs derive their address with the very same functions from a
 * per-CPU counter, so the driver knows which runs must hit.
 */
#define BENCH_MISS_BIT		0x80000000U
#define BENCH_M31		0x7fffffffU

/* murmur3's finalizer after an offset: a bijection of 32-bit values. */
static __always_inline __u32 bench_mix32(__u32 x)
{
	x += 0x9e3779b9U;
	x ^= x >> 16;
	x *= 0x85ebca6bU;
	x ^= x >> 13;
	x *= 0xc2b2ae35U;
	x ^= x >> 16;
	return x;
}

/* splitmix64's finalizer: also a bijection. */
static __always_inline __u64 bench_mix64(__u64 z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* IPv4 address of member (miss = 0) or non-member (miss = 1) j, host byte order. */
static __always_inline __u32 bench_ip4(__u32 j, __u32 miss)
{
	return bench_mix32((j & BENCH_M31) | (miss ? BENCH_MISS_BIT : 0));
}

/* 16 bytes, network order: a[0..3] the IPv4 address, a[4..15] more bits for IPv6. */
static __always_inline void bench_addr(__u32 j, __u32 miss, __u8 *a)
{
	__u32 x = __builtin_bswap32(bench_ip4(j, miss));
	__u64 y = bench_mix64((__u64)j << 1 | (miss ? 1 : 0));
	__u32 z = (__u32)(y >> 32) ^ x;

	__builtin_memcpy(a, &x, 4);
	__builtin_memcpy(a + 4, &y, 8);
	__builtin_memcpy(a + 12, &z, 4);
}

/*
 * The CIDR-heavy list: entry j is member j's address masked to bench_cidr_plen(j).
 * The first BENCH_CIDR_SHORT entries are very short prefixes (/8 to /15, in the
 * exact short table); the rest spread geometrically over /17 (rare) to /32 (half
 * of them): sixteen lengths, so the probe plan must fold them into four.
 */
#define BENCH_CIDR_SHORT	16

static __always_inline __u32 bench_cidr_plen(__u32 j)
{
	__u32 h, i;

	if (j < BENCH_CIDR_SHORT)
		return 8 + j / 2;
	h = (__u32)bench_mix64((__u64)j + 0x5bd1e995ULL);
	for (i = 0; i < 15; i++)
		if (h & (1U << i))
			break;
	return 32 - i;
}

static __always_inline __u32 bench_mask4(__u32 plen)
{
	return plen >= 32 ? 0xffffffffU : plen == 0 ? 0 : ~(0xffffffffU >> plen);
}

/* What the cold programs read (the .bss of bpf/bench.bpf.c, set by the driver). */
enum bench_fill_kind {
	BENCH_FILL_HASH,
	BENCH_FILL_LPM,
	BENCH_FILL_LPM_CIDR,
	BENCH_FILL_BLOOM,
	BENCH_FILL_HASH6,
	BENCH_FILL_LPM6,
	BENCH_FILL_MAX,				/* the address rows' comparators: those above */
	BENCH_FILL_BLOOM6 = BENCH_FILL_MAX,	/* table 12's alone */
};

struct bench_cfg {
	__u32 span;		/* the counter wraps here: n for members, more for misses */
	__u32 miss;		/* 1: derive non-members */
	__u32 fill_kind;	/* enum bench_fill_kind, for bench_fill */
	__u32 fill_start;
	__u32 fill_count;
	__u32 fill_errors;	/* updates that failed, summed by bench_fill */
};

/*
 * The lower-bound row's filter (bench_bloom_ideal_hot): a global array of this
 * many blocks, seeded with BENCH_IDEAL_SEED. Powers of two, constants both.
 */
#define BENCH_IDEAL_BLOCKS	(1U << 14)
#define BENCH_IDEAL_SEED	0x6964656164ULL	/* "ideal" */

/*
 * Table 12's programs. Each has a slot per family in bench_whole_progs
 * (BENCH_W_SLOT()): a wrapper per slot rewrites the packet's source and tail-calls
 * the slot's program.
 */
enum bench_whole_slot {
	BENCH_W_EMPTY,		/* bench_empty */
	BENCH_W_LIMIT,		/* one 64-byte read of a filter-sized array */
	BENCH_W_MIN,		/* a minimal blocked Bloom program */
	BENCH_W_BLOOM,		/* the kernel's BPF_MAP_TYPE_BLOOM_FILTER */
	BENCH_W_HASH,		/* an exact BPF_MAP_TYPE_HASH */
	BENCH_W_BB,		/* bloomblock_xdp, the real entry program */
	BENCH_W_MAX,
};

#define BENCH_W_SLOT(prog, v6)	((prog) * 2 + (v6))	/* v6: 0 IPv4, 1 IPv6 */
#define BENCH_W_SLOTS		(BENCH_W_MAX * 2)

/* Per CPU: the counter the cold programs derive their addresses from, and what hit. */
struct bench_cpu {
	__u64 next;
	__u64 runs;
	__u64 hits;
	__u64 pad;
};

/* LPM_TRIE key for IPv4 */
struct bench_lpm_key {
	__u32 prefixlen;
	__u8 addr[4];
};

/* and for IPv6 */
struct bench_lpm6_key {
	__u32 prefixlen;
	__u8 addr[16];
};

#endif /* BENCH_SEQ_H */

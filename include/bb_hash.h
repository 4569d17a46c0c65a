/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The hashes (XXH64, fmix64, the name chain) and the probe scheme, for BPF and userspace. */
#ifndef BB_HASH_H
#define BB_HASH_H

#include "bloomblock.h"
#include "bb_mem.h"

#include "bb_compat.h"

#define BB_XXH_PRIME1 0x9E3779B185EBCA87ULL
#define BB_XXH_PRIME2 0xC2B2AE3D27D4EB4FULL
#define BB_XXH_PRIME3 0x165667B19E3779F9ULL
#define BB_XXH_PRIME4 0x85EBCA77C2B2AE63ULL
#define BB_XXH_PRIME5 0x27D4EB2F165667C5ULL

/*
 * Offsets into the key are masked with BB_HASH_OFF_MASK, a no-op for any key of
 * at most BB_KEY_MAX bytes, so that the verifier sees every read in bounds of a
 * buffer of BB_HASH_BUF bytes. Callers hashing a variable-length key pass such a
 * buffer; fixed-size keys (addresses) fold to constant offsets and need no slack.
 */
#define BB_HASH_OFF_MASK	(BB_KEY_MAX - 1)
#define BB_HASH_BUF		(2 * BB_KEY_MAX)

static __always_inline __u64 bb_rotl64(__u64 x, int r)
{
	return (x << r) | (x >> (64 - r));
}

/*
 * XXH64's reads, little-endian as BPF and x86 are, one load each (include/bb_mem.h).
 * The offset is masked where the verifier sees it (bb_bounded()): the compiler drops
 * a mask it can prove a no-op from the caller's bound on the length, and the 6.1
 * verifier cannot follow the length's division into stripes and words that makes
 * the offset ("math between map_value pointer and register with unbounded min value").
 */
static __always_inline __u64 bb_read64(const __u8 *p, __u32 off)
{
	return bb_load64(p + bb_bounded(off, BB_HASH_OFF_MASK));
}

static __always_inline __u32 bb_read32(const __u8 *p, __u32 off)
{
	return bb_load32(p + bb_bounded(off, BB_HASH_OFF_MASK));
}

/* A word of a name at key[off] for bb_hash_name()'s chain: one load. */
static __always_inline __u64 bb_name_word(const __u8 *key, __u32 off)
{
	return bb_load64(key + (off & BB_HASH_OFF_MASK));
}

static __always_inline __u64 bb_xxh_round(__u64 acc, __u64 input)
{
	acc += input * BB_XXH_PRIME2;
	acc = bb_rotl64(acc, 31);
	return acc * BB_XXH_PRIME1;
}

static __always_inline __u64 bb_xxh_merge(__u64 acc, __u64 val)
{
	acc ^= bb_xxh_round(0, val);
	return acc * BB_XXH_PRIME1 + BB_XXH_PRIME4;
}

/*
 * XXH64(p, len, seed), len <= BB_KEY_MAX. Bit-for-bit equal to libxxhash's XXH64.
 * Every offset after a loop is computed from len, never from where the loop
 * stopped, and each loop counts down a copy (left) rather than comparing with
 * the count itself: the verifier then learns nothing new of len at an exit, and
 * walks what follows once, not once per possible exit.
 */
static __always_inline __u64 bb_xxh64(const __u8 *p, __u32 len, __u64 seed)
{
	__u32 stripes = len / 32, words = (len % 32) / 8, bytes = len % 4, off, i, left;
	__u64 h;

	if (stripes) {
		__u64 v1 = seed + BB_XXH_PRIME1 + BB_XXH_PRIME2;
		__u64 v2 = seed + BB_XXH_PRIME2;
		__u64 v3 = seed;
		__u64 v4 = seed - BB_XXH_PRIME1;

		for (i = 0, left = stripes + 1; i < BB_KEY_MAX / 32; i++) {
			if (--left == 0)
				break;
			v1 = bb_xxh_round(v1, bb_read64(p, i * 32));
			v2 = bb_xxh_round(v2, bb_read64(p, i * 32 + 8));
			v3 = bb_xxh_round(v3, bb_read64(p, i * 32 + 16));
			v4 = bb_xxh_round(v4, bb_read64(p, i * 32 + 24));
		}
		h = bb_rotl64(v1, 1) + bb_rotl64(v2, 7) + bb_rotl64(v3, 12) + bb_rotl64(v4, 18);
		h = bb_xxh_merge(h, v1);
		h = bb_xxh_merge(h, v2);
		h = bb_xxh_merge(h, v3);
		h = bb_xxh_merge(h, v4);
	} else {
		h = seed + BB_XXH_PRIME5;
	}
	h += len;

	off = stripes * 32;
	for (i = 0, left = words + 1; i < 4; i++) {
		if (--left == 0)
			break;
		h ^= bb_xxh_round(0, bb_read64(p, off + i * 8));
		h = bb_rotl64(h, 27) * BB_XXH_PRIME1 + BB_XXH_PRIME4;
	}
	off = stripes * 32 + words * 8;
	if (len & 4) {
		h ^= (__u64)bb_read32(p, off) * BB_XXH_PRIME1;
		h = bb_rotl64(h, 23) * BB_XXH_PRIME2 + BB_XXH_PRIME3;
		off += 4;
	}
	for (i = 0, left = bytes + 1; i < 3; i++) {
		if (--left == 0)
			break;
		h ^= p[bb_bounded(off + i, BB_HASH_OFF_MASK)] * BB_XXH_PRIME5;
		h = bb_rotl64(h, 11) * BB_XXH_PRIME1;
	}

	h ^= h >> 33;
	h *= BB_XXH_PRIME2;
	h ^= h >> 29;
	h *= BB_XXH_PRIME3;
	h ^= h >> 32;
	return h;
}

/*
 * One 64-bit hash per key. The high 32 bits pick the block by multiply-shift (no
 * modulo). The low 32 bits give the bits inside it: a split block (Parquet's
 * split-block Bloom filter, with 64-bit words). Probe i sets one bit in word
 * i % 8, at (lo32 * salt_i) >> 26, each salt its own odd multiplier, so k is 8
 * (one bit per word) or 16 (two). The test is then branch-free: eight loads at
 * fixed offsets, shifts and ANDs, no bit-to-word arithmetic and no early exits
 * to mispredict. Its FPR is a little above free placement of k bits in the
 * block (15.7 against 15.5 bits per key at 0.1%); user/filter.c models it
 * exactly. (Double hashing modulo 512, the first version, has only 512 * 256
 * distinct patterns and doubled the FPR at 0.1%.)
 */
#define BB_WORDS	(BB_BLOCK_BITS / 64)	/* 8 words, one probe each per round */

static __always_inline __u32 bb_block_of(__u64 h, __u32 nblocks)
{
	return (__u32)(((h >> 32) * (__u64)nblocks) >> 32);
}

/*
 * A key's fingerprint in the allowlist (never 0, an empty slot) and its two blocks
 * there (way 0 and 1), from bits of the hash that bb_block_of() does not use alone.
 */
static __always_inline __u64 bb_allow_fp(__u64 h)
{
	return h | 1;
}

static __always_inline __u32 bb_allow_block_of(__u64 h, __u32 allow_blocks, __u32 way)
{
	__u64 bits = way ? (h >> 16) & 0xffffffffULL : h & 0xffffffffULL;

	return (__u32)((bits * (__u64)allow_blocks) >> 32);
}

/*
 * The salts: probe i uses salts[i] in word i % 8. Indexed by constants only, so
 * they compile to immediates.
 */
static const __u32 bb_salts[BB_MAX_K] = {
	0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
	0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U,
	0x9e3779b1U, 0x85ebca77U, 0xc2b2ae3dU, 0x27d4eb2fU,
	0x165667b1U, 0xd3a2646dU, 0xfd7046c5U, 0xb55a4f09U,
};

/* Does k (8 or 16) name a probe count the split block supports? */
static __always_inline int bb_k_valid(__u32 k)
{
	return k == BB_WORDS || k == 2 * BB_WORDS;
}

/*
 * Is every one of the key's k bits set in blk? Bit 0 of each shifted word is
 * the probe's bit; AND them all.
 */
static __always_inline int bb_block_test(const struct bb_block *blk, __u64 h, __u32 k)
{
	__u32 x = (__u32)h;
	__u64 all;

	all = blk->words[0] >> ((x * bb_salts[0]) >> 26);
	all &= blk->words[1] >> ((x * bb_salts[1]) >> 26);
	all &= blk->words[2] >> ((x * bb_salts[2]) >> 26);
	all &= blk->words[3] >> ((x * bb_salts[3]) >> 26);
	all &= blk->words[4] >> ((x * bb_salts[4]) >> 26);
	all &= blk->words[5] >> ((x * bb_salts[5]) >> 26);
	all &= blk->words[6] >> ((x * bb_salts[6]) >> 26);
	all &= blk->words[7] >> ((x * bb_salts[7]) >> 26);
	if (k > BB_WORDS) {
		all &= blk->words[0] >> ((x * bb_salts[8]) >> 26);
		all &= blk->words[1] >> ((x * bb_salts[9]) >> 26);
		all &= blk->words[2] >> ((x * bb_salts[10]) >> 26);
		all &= blk->words[3] >> ((x * bb_salts[11]) >> 26);
		all &= blk->words[4] >> ((x * bb_salts[12]) >> 26);
		all &= blk->words[5] >> ((x * bb_salts[13]) >> 26);
		all &= blk->words[6] >> ((x * bb_salts[14]) >> 26);
		all &= blk->words[7] >> ((x * bb_salts[15]) >> 26);
	}
	return all & 1;
}

/* The key's bits in each of the 8 words, unrolled: the salts become immediates. */
static __always_inline void bb_block_masks(__u64 h, __u32 k, __u64 m[BB_WORDS])
{
	__u32 x = (__u32)h;

	m[0] = 1ULL << ((x * bb_salts[0]) >> 26);
	m[1] = 1ULL << ((x * bb_salts[1]) >> 26);
	m[2] = 1ULL << ((x * bb_salts[2]) >> 26);
	m[3] = 1ULL << ((x * bb_salts[3]) >> 26);
	m[4] = 1ULL << ((x * bb_salts[4]) >> 26);
	m[5] = 1ULL << ((x * bb_salts[5]) >> 26);
	m[6] = 1ULL << ((x * bb_salts[6]) >> 26);
	m[7] = 1ULL << ((x * bb_salts[7]) >> 26);
	if (k > BB_WORDS) {
		m[0] |= 1ULL << ((x * bb_salts[8]) >> 26);
		m[1] |= 1ULL << ((x * bb_salts[9]) >> 26);
		m[2] |= 1ULL << ((x * bb_salts[10]) >> 26);
		m[3] |= 1ULL << ((x * bb_salts[11]) >> 26);
		m[4] |= 1ULL << ((x * bb_salts[12]) >> 26);
		m[5] |= 1ULL << ((x * bb_salts[13]) >> 26);
		m[6] |= 1ULL << ((x * bb_salts[14]) >> 26);
		m[7] |= 1ULL << ((x * bb_salts[15]) >> 26);
	}
}

static __always_inline void bb_block_set(struct bb_block *blk, __u64 h, __u32 k)
{
	__u64 m[BB_WORDS];
	__u32 w;

	bb_block_masks(h, k, m);
	for (w = 0; w < BB_WORDS; w++)
		blk->words[w] |= m[w];
}

/*
 * The IPv4 key (struct bb_key_ip4) as the little-endian word it is hashed as,
 * built in registers: kind, plen, two zero bytes, the address masked to plen.
 * The mask is one shift for every plen 0..32, no branch: ~0 << 32 leaves the
 * low 32 bits zero. (A plen above 32 is never planned; the "& 63" keeps its
 * shift defined.)
 */
static __always_inline __u64 bb_key_ip4_word(const __u8 *addr, __u32 plen)
{
	__u32 a = bb_load32(addr), mask = (__u32)(~0ULL << ((32 - plen) & 63));

	a = __builtin_bswap32(__builtin_bswap32(a) & mask);	/* masked in host order */
	return (__u64)a << 32 | (__u64)(plen & 0xff) << 8 | BB_KEY_IP4;
}

/* Canonical address keys, masked to plen. */
static __always_inline void bb_key_ip4_make(struct bb_key_ip4 *key, const __u8 *addr, __u32 plen)
{
	__u64 w = bb_key_ip4_word(addr, plen);

	__builtin_memcpy(key, &w, sizeof(w));
}

static __always_inline __u64 bb_mask64(__u32 plen)
{
	return plen >= 64 ? ~0ULL : plen == 0 ? 0 : ~0ULL << (64 - plen);
}

/*
 * The address masked to plen, as the two little-endian words of its bytes (what
 * the key holds). Masking by halves, not per byte: a branch per byte on a length
 * the verifier does not know multiplies the paths it walks by the bytes.
 */
static __always_inline void bb_key_ip6_words(const __u8 *addr, __u32 plen, __u64 *hi, __u64 *lo)
{
	*hi = __builtin_bswap64(__builtin_bswap64(bb_load64(addr)) & bb_mask64(plen));
	*lo = __builtin_bswap64(__builtin_bswap64(bb_load64(addr + 8)) &
				bb_mask64(plen > 64 ? plen - 64 : 0));
}

static __always_inline void bb_key_ip6_make(struct bb_key_ip6 *key, const __u8 *addr, __u32 plen)
{
	__u64 hi, lo;

	bb_key_ip6_words(addr, plen, &hi, &lo);
	key->kind = BB_KEY_IP6;
	key->plen = plen;
	key->pad[0] = 0;
	key->pad[1] = 0;
	__builtin_memcpy(key->addr, &hi, 8);
	__builtin_memcpy(key->addr + 8, &lo, 8);
}

/*
 * Address keys are fixed-size (8 and 20 bytes) and on every packet's hot path, so
 * they take a cheaper hash than XXH64: murmur3's fmix64 finaliser (a bijection
 * with full avalanche, as in splitmix64) over the key's first word xor the seed,
 * and chained over the IPv6 key's other words. That is 2 multiplies for an IPv4
 * key against XXH64's 5, and 6 against 10 for IPv6: a third of a hot address
 * check. Distinct IPv4 keys never collide before the block and bit choice.
 * URLs (variable length, up to 255 bytes) keep XXH64; names take bb_hash_name().
 */
static __always_inline __u64 bb_fmix64(__u64 h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

static __always_inline __u64 bb_hash_ip4_word(__u64 w, __u64 seed)
{
	return bb_fmix64(w ^ seed);
}

static __always_inline __u64 bb_hash_ip4(const struct bb_key_ip4 *key, __u64 seed)
{
	__u64 w;

	__builtin_memcpy(&w, key, 8);
	return bb_hash_ip4_word(w, seed);
}

static __always_inline __u64 bb_hash_ip6(const struct bb_key_ip6 *key, __u64 seed)
{
	const __u8 *p = (const __u8 *)key;
	__u64 w0, w1;
	__u32 w2;

	__builtin_memcpy(&w0, p, 8);
	__builtin_memcpy(&w1, p + 8, 8);
	__builtin_memcpy(&w2, p + 16, 4);
	return bb_fmix64(bb_fmix64(bb_fmix64(w0 ^ seed) ^ w1) ^ w2);
}

/*
 * bb_hash_ip6() of the key of (hi, lo, plen) from bb_key_ip6_words(), without the
 * key: its bytes are kind, plen, 2 zeros, then the address, so its words are these.
 */
static __always_inline __u64 bb_hash_ip6_words(__u64 hi, __u64 lo, __u32 plen, __u64 seed)
{
	__u64 w0 = hi << 32 | (__u64)(plen & 0xff) << 8 | BB_KEY_IP6;
	__u64 w1 = hi >> 32 | lo << 32;
	__u32 w2 = lo >> 32;

	return bb_fmix64(bb_fmix64(bb_fmix64(w0 ^ seed) ^ w1) ^ w2);
}

/*
 * Name keys (BB_KEY_NAME, BB_KEY_NAME_PARENT) hash from the name's end, so that
 * one pass gives every suffix's hash: a packet's name is probed with its parents,
 * which are its suffixes. The name's whole 8-byte words, counted from its end,
 * are chained: S_0 from the seed, S_(j+1) = mix(S_j, the j-th word from the end)
 * (XXH64's round). A suffix of l bytes is S_(l/8) finished with its first l%8
 * bytes (its head, zero-padded), its length and its kind, then fmix64. So a
 * packet pays one mix per 8 bytes of its name and one finish per probe, where
 * XXH64 of each probe's key hashed the shared bytes again for every parent.
 */
#define BB_NAME_STATES		32	/* S_0 .. S_31: a name has at most 253 / 8 whole words */

static __always_inline __u64 bb_name_state0(__u64 seed)
{
	return seed ^ BB_XXH_PRIME5;
}

static __always_inline __u64 bb_name_mix(__u64 s, __u64 word)
{
	return bb_xxh_round(s, word);
}

/* The r = l % 8 first bytes of a suffix, from the 8 bytes read at its start. */
static __always_inline __u64 bb_name_head(__u64 first8, __u32 l)
{
	__u32 r = l % 8;

	return r ? first8 & ((1ULL << (8 * r)) - 1) : 0;
}

static __always_inline __u64 bb_name_fin(__u64 s_m, __u64 head, __u32 l, __u32 kind)
{
	return bb_fmix64(bb_name_mix(s_m ^ ((__u64)kind << 56 | l), head));
}

/* The hash of name key (kind, name[0 .. len)): what the BPF side computes in parts. */
static __always_inline __u64 bb_hash_name(__u32 kind, const __u8 *name, __u32 len, __u64 seed)
{
	__u64 s = bb_name_state0(seed), w, head = 0;
	__u32 j;

	for (j = 0; j < len / 8; j++) {
		__builtin_memcpy(&w, name + len - 8 * (j + 1), 8);
		s = bb_name_mix(s, w);
	}
	__builtin_memcpy(&head, name, len % 8);	/* little-endian, as BPF and x86 */
	return bb_name_fin(s, head, len, kind);
}

/* Any key's hash, by its kind tag: what userspace checks images with. */
static __always_inline __u64 bb_key_hash(const void *key, __u32 len, __u64 seed)
{
	const __u8 *p = key;

	if (len == sizeof(struct bb_key_ip4) && p[0] == BB_KEY_IP4)
		return bb_hash_ip4(key, seed);
	if (len == sizeof(struct bb_key_ip6) && p[0] == BB_KEY_IP6)
		return bb_hash_ip6(key, seed);
	if (len >= 1 && (p[0] == BB_KEY_NAME || p[0] == BB_KEY_NAME_PARENT))
		return bb_hash_name(p[0], p + 1, len - 1, seed);
	return bb_xxh64(p, len, seed);
}

/* The short tables: which element holds an address's bit, and which bit. */
static __always_inline __u32 bb_short_prefix(const __u8 *addr)
{
	return (__u32)addr[0] << 8 | addr[1];
}

static __always_inline __u32 bb_short_index(int v4, __u32 prefix16)
{
	return (v4 ? BB_SHORT_V4_INDEX : BB_SHORT_V6_INDEX) + prefix16 / BB_BLOCK_BITS;
}

static __always_inline int bb_short_test(const struct bb_block *blk, __u32 prefix16)
{
	__u32 bit = prefix16 % BB_BLOCK_BITS;

	return (blk->words[bit / 64] >> (bit % 64)) & 1;
}

#endif /* BB_HASH_H */

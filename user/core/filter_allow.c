/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The allowlist's table: exact key fingerprints in blocks of 8, a key in one of two
 * blocks; built with the filter, changed in place in a live map by allow/disallow.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "bb_hash.h"
#include "filter_int.h"

#define ALLOW_MIN_BLOCKS	64	/* 512 slots: room to allow live without a reload */
#define ALLOW_SLOTS		(BB_BLOCK_BITS / 64)

static const struct bb_block *way_block(const struct bb_block *table, __u32 blocks, __u64 h,
				       unsigned int way)
{
	return &table[bb_allow_block_of(h, blocks, way)];
}

int bb_allow_test(const struct bb_block *table, __u32 blocks, __u64 h)
{
	__u64 fp = bb_allow_fp(h);
	unsigned int way, i;

	for (way = 0; blocks && way < BB_ALLOW_WAYS; way++) {
		const struct bb_block *blk = way_block(table, blocks, h, way);

		for (i = 0; i < ALLOW_SLOTS; i++)
			if (__atomic_load_n(&blk->words[i], __ATOMIC_RELAXED) == fp)
				return 1;
	}
	return 0;
}

static unsigned int free_slots(const struct bb_block *blk)
{
	unsigned int i, n = 0;

	for (i = 0; i < ALLOW_SLOTS; i++)
		n += !blk->words[i];
	return n;
}

int bb_allow_insert(struct bb_block *table, __u32 blocks, __u64 h)
{
	struct bb_block *b0, *b1, *blk;
	unsigned int i;

	if (!blocks)
		return -ENOSPC;
	if (bb_allow_test(table, blocks, h))
		return 0;
	/* the emptier of its two blocks: two choices keep the fullest block near the mean */
	b0 = (struct bb_block *)way_block(table, blocks, h, 0);
	b1 = (struct bb_block *)way_block(table, blocks, h, 1);
	blk = free_slots(b1) > free_slots(b0) ? b1 : b0;
	for (i = 0; i < ALLOW_SLOTS; i++) {
		if (!blk->words[i]) {
			/* one aligned store: a packet reading the live table sees 0 or the
			 * fingerprint */
			__atomic_store_n(&blk->words[i], bb_allow_fp(h), __ATOMIC_RELAXED);
			return 1;
		}
	}
	return -ENOSPC;
}

int bb_allow_remove(struct bb_block *table, __u32 blocks, __u64 h)
{
	__u64 fp = bb_allow_fp(h);
	unsigned int way, i;

	for (way = 0; blocks && way < BB_ALLOW_WAYS; way++) {
		struct bb_block *blk = (struct bb_block *)way_block(table, blocks, h, way);

		for (i = 0; i < ALLOW_SLOTS; i++) {
			if (blk->words[i] == fp) {
				__atomic_store_n(&blk->words[i], 0, __ATOMIC_RELAXED);
				return 1;
			}
		}
	}
	return 0;
}

__u32 bb_allow_blocks_for(__u64 keys)
{
	/* a quarter full, and as much again for live additions */
	__u64 blocks = (keys * 4 + ALLOW_SLOTS - 1) / ALLOW_SLOTS;

	return blocks < ALLOW_MIN_BLOCKS ? ALLOW_MIN_BLOCKS :
	       blocks > BB_MAX_BLOCKS ? BB_MAX_BLOCKS : (__u32)blocks;
}

unsigned int bb_allow_keys(const struct bb_entry *e, __u64 seed, __u64 *h)
{
	__u8 key[BB_KEY_MAX];
	size_t len;

	switch (e->kind) {
	case BB_ENTRY_IP4: {
		struct bb_key_ip4 k;

		bb_key_ip4_make(&k, e->addr, e->plen);
		h[0] = bb_hash_ip4(&k, seed);
		return 1;
	}
	case BB_ENTRY_IP6: {
		struct bb_key_ip6 k;

		bb_key_ip6_make(&k, e->addr, e->plen);
		h[0] = bb_hash_ip6(&k, seed);
		return 1;
	}
	case BB_ENTRY_NAME:
		len = strlen(e->text);
		if (len > BB_KEY_MAX - 1)
			len = BB_KEY_MAX - 1;
		if (e->flags & BB_ENTRY_F_SUBDOMAINS_ONLY) {
			h[0] = bb_hash_name(BB_KEY_NAME_PARENT, (const __u8 *)e->text, (__u32)len,
					    seed);
			return 1;
		}
		h[0] = bb_hash_name(BB_KEY_NAME, (const __u8 *)e->text, (__u32)len, seed);
		if (e->flags & BB_ENTRY_F_EXACT)
			return 1;
		h[1] = bb_hash_name(BB_KEY_NAME_PARENT, (const __u8 *)e->text, (__u32)len, seed);
		return 2;
	case BB_ENTRY_URL:
		len = strlen(e->text);
		h[0] = XXH64(key, bb_key_text(key, BB_KEY_URL, e->text, len), seed);
		return 1;
	default:
		return 0;
	}
}

/* The allowlist's prefix lengths of one family, from how many entries have each. */
static int allow_plens(const __u64 *counts, unsigned int width, __u8 *plens, __u8 *n)
{
	int p;

	*n = 0;
	for (p = (int)width; p >= 0; p--) {
		if (!counts[p])
			continue;
		if (*n == BB_ALLOW_MAX_PLENS)
			return -E2BIG;
		plens[(*n)++] = (__u8)p;
	}
	return 0;
}

int allow_table_init(struct bb_filter *filter, const struct bb_key_tally *tally, __u32 blocks)
{
	struct bb_allow_header *ah = &filter->allow_hdr;
	int err;

	memset(ah, 0, sizeof(*ah));
	err = allow_plens(tally->allow_v4_plens, 32, ah->v4_plens, &ah->n_v4_plens);
	err = err ?: allow_plens(tally->allow_v6_plens, 128, ah->v6_plens, &ah->n_v6_plens);
	if (err)
		return err;
	ah->flags = tally->allow_flags;
	free(filter->allow);
	filter->allow = calloc(blocks, sizeof(*filter->allow));
	if (!filter->allow)
		return -ENOMEM;
	filter->hdr.allow_blocks = blocks;
	return 0;
}

int allow_table_add(struct bb_filter *filter, __u64 h)
{
	int ret = bb_allow_insert(filter->allow, filter->hdr.allow_blocks, h);

	if (ret > 0)
		filter->allow_hdr.items++;
	return ret;
}

int allow_table_make(struct bb_filter *filter, const __u64 *hashes, size_t n,
		     const struct bb_key_tally *tally)
{
	__u32 blocks = bb_allow_blocks_for(n);
	size_t i;
	int err;

	for (;;) {
		err = allow_table_init(filter, tally, blocks);
		for (i = 0; i < n && err >= 0; i++)
			err = allow_table_add(filter, hashes[i]);
		if (err != -ENOSPC)
			return err < 0 ? err : 0;
		if (blocks >= BB_MAX_BLOCKS / 2)
			return -E2BIG;
		blocks *= 2;	/* a full pair of blocks: rare at a quarter full */
	}
}

void allow_tally_entry(struct bb_key_tally *t, const struct bb_entry *e)
{
	switch (e->kind) {
	case BB_ENTRY_IP4:
		t->allow_v4_plens[e->plen & 63]++;
		t->allow_keys++;
		break;
	case BB_ENTRY_IP6:
		t->allow_v6_plens[e->plen <= 128 ? e->plen : 128]++;
		t->allow_keys++;
		break;
	case BB_ENTRY_NAME:
		t->allow_flags |= BB_HDR_F_NAMES;
		t->allow_keys += e->flags & (BB_ENTRY_F_SUBDOMAINS_ONLY | BB_ENTRY_F_EXACT) ? 1 : 2;
		break;
	case BB_ENTRY_URL:
		t->allow_flags |= BB_HDR_F_URLS;
		t->allow_keys++;
		break;
	}
}

/* ---- a live image: allow and disallow change it in place, packets reading it ---- */

/* The live image's allowlist header, when it is a filter of this version with one. */
static struct bb_allow_header *live_allow(struct bb_block *image, struct bb_block **table)
{
	const struct bb_header *hdr = (const void *)&image[BB_HEADER_INDEX];

	if (hdr->magic != BB_MAGIC || hdr->abi_version != BB_ABI_VERSION || !hdr->allow_blocks)
		return NULL;
	*table = &image[bb_allow_index(hdr->nblocks) + 1];
	return (void *)&image[bb_allow_index(hdr->nblocks)];
}

/* Record prefix length plen of a family, if new: the slot first, then the count. */
static int live_plen(__u8 *plens, __u8 *n, unsigned int plen)
{
	__u8 have = __atomic_load_n(n, __ATOMIC_ACQUIRE), i;

	for (i = 0; i < have && i < BB_ALLOW_MAX_PLENS; i++)
		if (plens[i] == plen)
			return 0;
	if (have >= BB_ALLOW_MAX_PLENS)
		return -E2BIG;
	plens[have] = (__u8)plen;
	__atomic_store_n(n, have + 1, __ATOMIC_RELEASE);
	return 0;
}

int bb_image_allow_add(struct bb_block *image, const struct bb_entry *e)
{
	const struct bb_header *hdr = (const void *)&image[BB_HEADER_INDEX];
	struct bb_block *table;
	struct bb_allow_header *ah = live_allow(image, &table);
	unsigned int n, i, added = 0;
	bool mine[2] = { false, false };
	__u64 h[2];
	int err = 0, ret;

	if (!ah)
		return -EINVAL;
	n = bb_allow_keys(e, hdr->seed, h);
	if (!n)
		return -EINVAL;
	if (e->kind == BB_ENTRY_IP4)
		err = live_plen(ah->v4_plens, &ah->n_v4_plens, e->plen);
	else if (e->kind == BB_ENTRY_IP6)
		err = live_plen(ah->v6_plens, &ah->n_v6_plens, e->plen);
	else
		__atomic_fetch_or(&ah->flags, e->kind == BB_ENTRY_URL ? BB_HDR_F_URLS :
				  BB_HDR_F_NAMES, __ATOMIC_RELEASE);
	if (err)
		return err;
	/* counted first: a packet reading a count of 0 skips the table, keys or not */
	__atomic_fetch_add(&ah->items, n, __ATOMIC_RELEASE);
	for (i = 0; i < n; i++) {
		ret = bb_allow_insert(table, hdr->allow_blocks, h[i]);
		if (ret < 0) {
			err = ret;
			break;
		}
		mine[i] = ret == 1;
		added += ret;
	}
	if (err) {
		/* full: take back what this entry put in, and leave the rest as it was */
		for (i = 0; i < n; i++)
			if (mine[i])
				bb_allow_remove(table, hdr->allow_blocks, h[i]);
		__atomic_fetch_sub(&ah->items, n, __ATOMIC_RELEASE);
		return err;
	}
	__atomic_fetch_sub(&ah->items, n - added, __ATOMIC_RELEASE);
	return added ? 1 : 0;
}

int bb_image_allow_remove(struct bb_block *image, const struct bb_entry *e)
{
	const struct bb_header *hdr = (const void *)&image[BB_HEADER_INDEX];
	struct bb_block *table;
	struct bb_allow_header *ah = live_allow(image, &table);
	unsigned int n, i, removed = 0;
	__u64 h[2];

	if (!ah)
		return -EINVAL;
	n = bb_allow_keys(e, hdr->seed, h);
	for (i = 0; i < n; i++)
		removed += bb_allow_remove(table, hdr->allow_blocks, h[i]);
	if (removed)
		__atomic_fetch_sub(&ah->items, removed, __ATOMIC_RELEASE);
	return removed ? 1 : 0;
}

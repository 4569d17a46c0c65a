// SPDX-License-Identifier: GPL-2.0
/* The packet path: parse, look the source address up in the Bloom filter, verdict, count. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bloomblock.h"
#include "bb_hash.h"
#include "bb_parse.h"

/*
 * Needs Linux 5.10: BPF_F_INNER_MAP (inner maps of any size, 5.10), BPF_F_MMAPABLE
 * arrays (5.5), XDP bpf_links (5.9), bounded loops (5.3).
 */

/*
 * The live filter is the one in slot 0: a BPF_MAP_TYPE_ARRAY of 64-byte blocks
 * holding header, short prefixes and bit blocks (include/bloomblock.h). Userspace
 * builds a new one of any size and swaps it in with one update of the slot.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct {
		__uint(type, BPF_MAP_TYPE_ARRAY);
		__uint(map_flags, BPF_F_MMAPABLE | BPF_F_INNER_MAP);
		__uint(max_entries, BB_FIRST_BLOCK + 1);
		/* sizes, not BTF types: the blocks are raw bits, and the kernel
		 * wants key and value BTF both or neither */
		__uint(key_size, sizeof(__u32));
		__uint(value_size, sizeof(struct bb_block));
	});
} filters SEC(".maps");

/* Counters with named fields, per CPU; `bloomblock stats` sums them. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bb_stats);
} stats SEC(".maps");

static __always_inline int block_hit(void *filter, const struct bb_header *hdr, __u64 h,
				     struct bb_stats *st)
{
	__u32 idx = BB_FIRST_BLOCK + bb_block_of(h, hdr->nblocks);
	struct bb_block *blk = bpf_map_lookup_elem(filter, &idx);

	st->lookups++;
	return blk && bb_block_test(blk, h, hdr->k);
}

/* Prefixes /16 and shorter: one exact bit, no false positives. */
static __always_inline int short_hit(void *filter, int v4, const __u8 *addr)
{
	__u32 prefix16 = bb_short_prefix(addr), idx = bb_short_index(v4, prefix16);
	struct bb_block *blk = bpf_map_lookup_elem(filter, &idx);

	return blk && bb_short_test(blk, prefix16);
}

static __always_inline int match_ip4(void *filter, const struct bb_header *hdr,
				     const __u8 *addr, struct bb_stats *st)
{
	struct bb_key_ip4 key;
	__u32 i;

	if ((hdr->flags & BB_HDR_F_V4_SHORT) && short_hit(filter, 1, addr))
		return 1;
	for (i = 0; i < BB_MAX_PLENS; i++) {
		if (i >= hdr->n_v4_plens)
			break;
		bb_key_ip4_make(&key, addr, hdr->v4_plens[i]);
		if (block_hit(filter, hdr, bb_xxh64((const __u8 *)&key, sizeof(key), hdr->seed), st))
			return 1;
	}
	return 0;
}

static __always_inline int match_ip6(void *filter, const struct bb_header *hdr,
				     const __u8 *addr, struct bb_stats *st)
{
	struct bb_key_ip6 key;
	__u32 i;

	if ((hdr->flags & BB_HDR_F_V6_SHORT) && short_hit(filter, 0, addr))
		return 1;
	for (i = 0; i < BB_MAX_PLENS; i++) {
		if (i >= hdr->n_v6_plens)
			break;
		bb_key_ip6_make(&key, addr, hdr->v6_plens[i]);
		if (block_hit(filter, hdr, bb_xxh64((const __u8 *)&key, sizeof(key), hdr->seed), st))
			return 1;
	}
	return 0;
}

/* Returns 1 to drop. Every path counts what it did. */
static __always_inline int bloomblock_core(void *data, void *data_end)
{
	struct bb_cursor c = { .pos = data, .end = data_end };
	const struct bb_header *hdr;
	struct bb_packet pkt = {};
	struct bb_stats *st;
	__u32 zero = 0;
	void *filter;
	int ret, hit;

	st = bpf_map_lookup_elem(&stats, &zero);
	if (!st)
		return 0;
	st->packets++;

	ret = bb_parse_packet(&c, &pkt);
	if (pkt.vlans)
		st->vlan++;
	if (ret != BB_PARSE_OK) {
		if (ret == BB_PARSE_NON_IP)
			st->non_ip++;
		else if (ret == BB_PARSE_TRUNCATED)
			st->truncated++;
		else
			st->malformed++;
		goto pass;
	}

	filter = bpf_map_lookup_elem(&filters, &zero);
	hdr = filter ? bpf_map_lookup_elem(filter, &zero) : NULL;
	if (!hdr || hdr->magic != BB_MAGIC || hdr->abi_version != BB_ABI_VERSION ||
	    !hdr->nblocks) {
		st->no_filter++;
		goto pass;
	}

	if (pkt.l3_proto == ETH_P_IP) {
		st->ipv4++;
		hit = match_ip4(filter, hdr, pkt.saddr, st);
		if (hit)
			st->ip4_hits++;
	} else {
		st->ipv6++;
		hit = match_ip6(filter, hdr, pkt.saddr, st);
		if (hit)
			st->ip6_hits++;
	}
	if (hit) {
		if (hdr->flags & BB_HDR_F_DROP) {
			st->dropped++;
			return 1;
		}
		st->flagged++;
	}
pass:
	st->passed++;
	return 0;
}

SEC("xdp")
int bloomblock_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;

	return bloomblock_core(data, data_end) ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

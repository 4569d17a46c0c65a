// SPDX-License-Identifier: GPL-2.0
/* Benchmark programs beside the real ones: the lookups measured are bloomblock.bpf.c's own. */

/*
 * The real program file, included whole: its maps, its static lookup functions
 * (bb_match_ip4, bb_match_ip6, open_filter, ...) and its entry programs are compiled into
 * this object byte for byte as into bloomblock.bpf.o. The driver pushes filters into
 * THIS object's `filters` map and runs `bloomblock_xdp` on crafted packets for the
 * hot and name rows; the programs below add the comparators and the cold regime.
 */
#include "bloomblock.bpf.c"
#include "../bench/bench_seq.h"

/*
 * Comparators for the same IPv4 addresses. The driver creates these maps itself
 * (to size them, and to see what each one costs in memory) and hands them to the
 * skeleton before load; the sizes below are placeholders.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} bench_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct bench_lpm_key);
	__type(value, __u32);
} bench_lpm SEC(".maps");

/* The same two for the IPv6 addresses (bench_addr()'s 16 bytes). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(key_size, 16);
	__type(value, __u32);
} bench_hash6 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct bench_lpm6_key);
	__type(value, __u32);
} bench_lpm6 SEC(".maps");

/* The same trie type holding the CIDR-heavy list: the exact structure for prefixes. */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct bench_lpm_key);
	__type(value, __u32);
} bench_lpm_cidr SEC(".maps");

/* map_extra 0: the kernel's default number of hash functions (5). */
struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 1);
	__type(value, __u32);
} bench_bloom SEC(".maps");

/* The same for the IPv6 addresses (bench_addr()'s 16 bytes): table 12's. */
struct {
	__uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
	__uint(max_entries, 1);
	__uint(value_size, 16);
} bench_bloom6 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bench_cpu);
} bench_state SEC(".maps");

struct bench_cfg bench_cfg;

/*
 * Cold regime: each run takes the next index from the per-CPU counter and derives
 * its address (bench/bench_seq.h). Every cold program does exactly this, then its
 * own lookup, then counts a hit in the same per-CPU slot: the derivation costs the
 * same in every row, and the "derive only" row measures it.
 */
static __always_inline struct bench_cpu *bench_next(__u8 *a)
{
	__u32 zero = 0, span = bench_cfg.span;
	struct bench_cpu *b = bpf_map_lookup_elem(&bench_state, &zero);
	__u64 j;

	if (!b)
		return NULL;
	j = b->next;
	b->next = j + 1 >= span ? 0 : j + 1;
	b->runs++;
	bench_addr((__u32)j, bench_cfg.miss, a);
	return b;
}

/* The real program's lookup, with the context entry_core() builds. */
static __always_inline int bench_bb_match(const __u8 *a, int v4)
{
	struct bb_ctx c = {};

	c.st = stats_of(BB_EV_XDP);
	if (!c.st || !open_filter(&c))
		return 0;
	return v4 ? bb_match_ip4(&c, a) : bb_match_ip6(&c, a);
}

/*
 * What entry_core() does for a source address: the lookup and, on a hit, the
 * decision (hit_decide(): the allowlist's header read, then bb_allow_pass() when it
 * holds keys; the events off). 1 when the address is still blocked. The lookup is
 * bench_bb_match()'s: the two rows differ by the allowlist alone.
 */
static __always_inline int bench_bb_blocked(const __u8 *a)
{
	struct bb_ctx c = {};
	struct bb_hit_seen h;

	c.st = stats_of(BB_EV_XDP);
	if (!c.st || !open_filter(&c))
		return 0;
	return bb_match_ip4(&c, a) && (hit_decide(BB_EV_SRC | 4 << 8, bb_load32(a), 0, 0, BB_EV_XDP, &h) & 1);
}

static __always_inline int bench_lpm_hit(void *map, const __u8 *a)
{
	struct bench_lpm_key key = { .prefixlen = 32 };

	__builtin_memcpy(key.addr, a, 4);
	return bpf_map_lookup_elem(map, &key) != NULL;
}

static __always_inline int bench_lpm6_hit(void *map, const __u8 *a)
{
	struct bench_lpm6_key key = { .prefixlen = 128 };

	__builtin_memcpy(key.addr, a, 16);
	return bpf_map_lookup_elem(map, &key) != NULL;
}

static __always_inline int bench_derived(const __u8 *a)
{
	__u32 v;

	__builtin_memcpy(&v, a, 4);
	return v == 0xffffffffU;	/* never: keeps the derivation live */
}

#define BENCH_COLD(name, hit_expr)						\
SEC("xdp")									\
int name(struct xdp_md *ctx)							\
{										\
	__u8 a[16] __attribute__((aligned(8)));					\
	struct bench_cpu *b = bench_next(a);					\
										\
	if (!b)									\
		return XDP_ABORTED;						\
	b->hits += (hit_expr) ? 1 : 0;						\
	return XDP_PASS;							\
}

BENCH_COLD(bench_derive, bench_derived(a))
BENCH_COLD(bench_hash_cold, bpf_map_lookup_elem(&bench_hash, a) != NULL)
BENCH_COLD(bench_lpm_cold, bench_lpm_hit(&bench_lpm, a))
BENCH_COLD(bench_hash6_cold, bpf_map_lookup_elem(&bench_hash6, a) != NULL)
BENCH_COLD(bench_lpm6_cold, bench_lpm6_hit(&bench_lpm6, a))
BENCH_COLD(bench_lpm_cidr_cold, bench_lpm_hit(&bench_lpm_cidr, a))
BENCH_COLD(bench_bloom_cold, bpf_map_peek_elem(&bench_bloom, a) == 0)
BENCH_COLD(bench_bb_ip4_cold, bench_bb_match(a, 1))
BENCH_COLD(bench_bb_ip6_cold, bench_bb_match(a, 0))
BENCH_COLD(bench_bb_allow_cold, bench_bb_blocked(a))

/* The floor: a program that does nothing. */
SEC("xdp")
int bench_empty(struct xdp_md *ctx)
{
	return XDP_PASS;
}

/*
 * Hot regime (the same packet every run): what entry_core() does before any
 * lookup, parse and count, and then the comparator's lookup of the source address.
 * Hits return XDP_DROP, like the real program, so the driver can check them.
 */
static __always_inline int bench_parse_count(struct xdp_md *ctx, struct bb_packet *pkt)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct bb_cursor cur = { .pos = data, .end = data_end };
	struct bb_stats *st;

	st = stats_of(BB_EV_XDP);
	if (!st)
		return -1;
	st->packets++;
	if (bb_parse_packet(&cur, pkt) != BB_PARSE_OK) {
		st->passed++;
		return -1;
	}
	if (pkt->l3_proto == ETH_P_IP)
		st->ipv4++;
	else
		st->ipv6++;
	st->passed++;
	return 0;
}

SEC("xdp")
int bench_parse(struct xdp_md *ctx)
{
	struct bb_packet pkt;

	bench_parse_count(ctx, &pkt);
	return XDP_PASS;
}

/* A comparator's hot row for one family: ETH_P_IP and 4 bytes, or ETH_P_IPV6 and 16. */
#define BENCH_HOT(name, proto, alen, hit_expr)					\
SEC("xdp")									\
int name(struct xdp_md *ctx)							\
{										\
	struct bb_packet pkt;							\
	__u8 a[16] __attribute__((aligned(8)));	/* helpers take no packet keys */ \
										\
	if (bench_parse_count(ctx, &pkt) || pkt.l3_proto != (proto))		\
		return XDP_PASS;						\
	/* one or two loads each, as bloomblock reads the address (bb_mem.h) */ \
	if ((alen) == 4) {							\
		*(__u32 *)a = bb_load32(pkt.saddr);				\
	} else {								\
		*(__u64 *)a = bb_load64(pkt.saddr);				\
		*(__u64 *)(a + 8) = bb_load64(pkt.saddr + 8);			\
	}									\
	return (hit_expr) ? XDP_DROP : XDP_PASS;				\
}

BENCH_HOT(bench_hash_hot, ETH_P_IP, 4, bpf_map_lookup_elem(&bench_hash, a) != NULL)
BENCH_HOT(bench_lpm_hot, ETH_P_IP, 4, bench_lpm_hit(&bench_lpm, a))
BENCH_HOT(bench_lpm_cidr_hot, ETH_P_IP, 4, bench_lpm_hit(&bench_lpm_cidr, a))
BENCH_HOT(bench_bloom_hot, ETH_P_IP, 4, bpf_map_peek_elem(&bench_bloom, (void *)a) == 0)
BENCH_HOT(bench_hash6_hot, ETH_P_IPV6, 16, bpf_map_lookup_elem(&bench_hash6, a) != NULL)
BENCH_HOT(bench_lpm6_hot, ETH_P_IPV6, 16, bench_lpm6_hit(&bench_lpm6, a))

/*
 * The lower bound of a Bloom check in this program, for the hot table: what
 * bloomblock_xdp would cost with no map lookup at all (a global array, 1 MiB) and
 * the filter's size, seed and k as constants the compiler folds: the key, its
 * hash, the block and the same branch-free split-block test. No real filter can be
 * swapped without a map; this row says how much of the hot rows' cost any Bloom
 * check pays whatever it is kept in. The driver sets the bits of the hot hit.
 */
struct bb_block bench_ideal[BENCH_IDEAL_BLOCKS];

SEC("xdp")
int bench_bloom_ideal_hot(struct xdp_md *ctx)
{
	struct bb_packet pkt;
	__u64 h;

	if (bench_parse_count(ctx, &pkt) || pkt.l3_proto != ETH_P_IP)
		return XDP_PASS;
	h = bb_hash_ip4_word(bb_key_ip4_word(pkt.saddr, 32), BENCH_IDEAL_SEED);
	return bb_block_test(&bench_ideal[bb_block_of(h, BENCH_IDEAL_BLOCKS)], h, BB_WORDS) ?
	       XDP_DROP : XDP_PASS;
}

/*
 * Fill the comparator maps from the kernel side, member j = fill_start + i for
 * i < fill_count: the same sequence, and no syscall per element (the LPM trie and
 * the Bloom filter map have no batch update). Not timed as a load path: the driver
 * times bpf_map_update_batch() into a hash map for that.
 */
struct bench_fill_ctx {
	__u32 start;
	__u32 kind;
	__u32 errors;
};

static long bench_fill_one(__u64 i, void *data)
{
	struct bench_fill_ctx *f = data;
	struct bench_lpm6_key key6;
	struct bench_lpm_key key;
	__u32 j = f->start + (__u32)i, one = 1, plen, x;
	__u8 a[16] __attribute__((aligned(8)));
	long err;

	bench_addr(j, 0, a);
	switch (f->kind) {
	case BENCH_FILL_HASH:
		err = bpf_map_update_elem(&bench_hash, a, &one, BPF_NOEXIST);
		break;
	case BENCH_FILL_LPM:
		key.prefixlen = 32;
		__builtin_memcpy(key.addr, a, 4);
		err = bpf_map_update_elem(&bench_lpm, &key, &one, BPF_ANY);
		break;
	case BENCH_FILL_LPM_CIDR:
		plen = bench_cidr_plen(j);
		x = __builtin_bswap32(bench_ip4(j, 0) & bench_mask4(plen));
		key.prefixlen = plen;
		__builtin_memcpy(key.addr, &x, 4);
		err = bpf_map_update_elem(&bench_lpm_cidr, &key, &one, BPF_ANY);
		break;
	case BENCH_FILL_BLOOM:
		err = bpf_map_push_elem(&bench_bloom, a, BPF_ANY);
		break;
	case BENCH_FILL_BLOOM6:
		err = bpf_map_push_elem(&bench_bloom6, a, BPF_ANY);
		break;
	case BENCH_FILL_HASH6:
		err = bpf_map_update_elem(&bench_hash6, a, &one, BPF_NOEXIST);
		break;
	case BENCH_FILL_LPM6:
		key6.prefixlen = 128;
		__builtin_memcpy(key6.addr, a, 16);
		err = bpf_map_update_elem(&bench_lpm6, &key6, &one, BPF_ANY);
		break;
	default:
		err = -1;
	}
	if (err)
		f->errors++;
	return 0;
}

SEC("xdp")
int bench_fill(struct xdp_md *ctx)
{
	struct bench_fill_ctx f = {
		.start = bench_cfg.fill_start,
		.kind = bench_cfg.fill_kind,
	};

	bpf_loop(bench_cfg.fill_count, bench_fill_one, &f, 0);
	bench_cfg.fill_errors += f.errors;
	return XDP_PASS;
}

/*
 * Hit events (bench/bench_events.c, table 9). Sections "?xdp": not loaded unless that
 * part asks (bpf_program__set_autoload()), so the other parts' skeletons do not verify
 * them. They use bloomblock.bpf.c's own `events` ring, `event_bucket` and scratch.
 */
#define BENCH_SADDR_OFF		(14 + 12)	/* udp_to_discard()'s frame: Ethernet, IPv4 */

/*
 * The cold regime through the entry program: the test packet's IPv4 source becomes
 * the next address of the per-CPU counter (bench_next()); a rewrite of the frame
 * the test run hands every run, so each run checks another address. No checksum is
 * read on the way.
 */
static __always_inline struct bench_cpu *bench_next_src(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	__u8 a[16] __attribute__((aligned(8)));
	struct bench_cpu *b;
	__u32 v;

	if (data + BENCH_SADDR_OFF + 4 > data_end)
		return NULL;
	b = bench_next(a);
	if (!b)
		return NULL;
	v = *(__u32 *)a;
	__builtin_memcpy(BB_ANY_ALIGN(data + BENCH_SADDR_OFF, 4), &v, 4);
	return b;
}

/* The reference of the cold entry rows: the derivation and the rewrite, no check. */
SEC("?xdp")
int bench_xdp_derive(struct xdp_md *ctx)
{
	return bench_next_src(ctx) ? XDP_PASS : XDP_ABORTED;
}

/*
 * bloomblock_xdp's own body (the same address path, bb_addr_xdp() and
 * addr_decide(), then the same inline entry_core() and its tail calls), on the
 * rewritten packet; a drop counts as the counter's hit.
 */
SEC("?xdp")
int bench_xdp_cold(struct xdp_md *ctx)
{
	struct bench_cpu *b = bench_next_src(ctx);
	int v;

	if (!b)
		return XDP_ABORTED;
	v = entry_xdp(ctx);
	if (v == BB_DROP)
		b->hits++;
	return xdp_next(ctx, v);
}

/*
 * The ring buffer alone, hot: parse+count, then what an event does with the ring
 * (event_begin()), a reserve of a struct bb_event and its submit (written: also every
 * byte of it stored, as many as an event of the longest key and frame stores).
 * XDP_DROP when submitted, XDP_PASS when the ring was full.
 */
static __always_inline int bench_ring(struct xdp_md *ctx, int write)
{
	struct bb_packet pkt;
	struct bb_event *ev;

	if (bench_parse_count(ctx, &pkt))
		return XDP_PASS;
	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev)
		return XDP_PASS;
	if (write)
		__builtin_memset(ev, 0, sizeof(*ev));
	bpf_ringbuf_submit(ev, 0);
	return XDP_DROP;
}

SEC("?xdp")
int bench_ring_hot(struct xdp_md *ctx)
{
	return bench_ring(ctx, 0);
}

SEC("?xdp")
int bench_ring_written_hot(struct xdp_md *ctx)
{
	return bench_ring(ctx, 1);
}

/*
 * Steps of an event alone, after parse+count: the fine clock (an event's time before
 * it took the bucket's), the coarse clock (the bucket's and the event's time), and the
 * copy of the frame's first bytes (capture_packet(), here into the scratch).
 */
__u64 bench_sink;	/* keeps a result live */

SEC("?xdp")
int bench_ktime_hot(struct xdp_md *ctx)
{
	struct bb_packet pkt;

	if (bench_parse_count(ctx, &pkt))
		return XDP_PASS;
	bench_sink = bpf_ktime_get_ns();
	return XDP_DROP;
}

/* The coarse clock (the last tick's time): the bucket's and the event's. */
SEC("?xdp")
int bench_ktime_coarse_hot(struct xdp_md *ctx)
{
	struct bb_packet pkt;

	if (bench_parse_count(ctx, &pkt))
		return XDP_PASS;
	bench_sink = bpf_ktime_get_coarse_ns();
	return XDP_DROP;
}

SEC("?xdp")
int bench_capture_hot(struct xdp_md *ctx)
{
	struct bb_scratch *sc;
	struct bb_packet pkt;
	__u32 zero = 0, wire;

	if (bench_parse_count(ctx, &pkt))
		return XDP_PASS;
	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!sc)
		return XDP_PASS;
	return capture_packet(ctx, 1, sc->req, &wire) ? XDP_DROP : XDP_PASS;
}

/* This CPU's event bucket emptied, as a flood leaves it: no credit, as of now. */
SEC("?xdp")
int bench_bucket_empty(struct xdp_md *ctx)
{
	struct bb_event_bucket *b;
	__u32 zero = 0;

	b = bpf_map_lookup_elem(&event_bucket, &zero);
	if (!b)
		return XDP_ABORTED;
	b->last_ns = bpf_ktime_get_coarse_ns();	/* the bucket's own clock */
	b->credit_ns = 0;
	return XDP_PASS;
}

/*
 * The whole program (bench/bench_whole.c, table 12): what a packet pays, as a user
 * would see it. A wrapper writes the next address of the per-CPU counter into the
 * test packet's source and tail-calls one program of bench_whole_progs: the real
 * entry program bloomblock_xdp, or a comparator of the same shape. Every row pays
 * the same wrapper and tail call; hot rows run it with a span of 1 (the same address
 * every run). A slot, a wrapper and a comparator per family: one program asking two
 * maps from one call site (the compiler merges the two families' calls) has its
 * lookup neither inlined nor called directly, but through the map's ops, which no
 * row should pay. Sections "?xdp": only that part loads them.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, BENCH_W_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} bench_whole_progs SEC(".maps");

/*
 * The minimal program's filters, per family: the bloomblock filter's bit blocks,
 * copied in by the driver, in a map made as bloomblock's inner map is (an mmapable
 * array of 64-byte blocks) but looked up directly, so the verifier inlines the
 * lookup. The limit row reads them too. Sized by the driver before load.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bb_block);
} bench_min4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bb_block);
} bench_min6 SEC(".maps");

/* The minimal program's geometry per family ([0] IPv4, [1] IPv6): the filter's, set before load. */
const volatile __u32 bench_min_nblocks[2] = { 1, 1 };
const volatile __u64 bench_min_seed[2];

#define BENCH_W_SADDR4		(14 + 12)	/* udp_to_discard()'s frames: Ethernet, then IP */
#define BENCH_W_SADDR6		(14 + 8)

/* The next address into the packet's source (IPv4: v4); 0, or -1 for a short packet. */
static __always_inline int bench_whole_rewrite(struct xdp_md *ctx, const int v4)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	__u8 a[16] __attribute__((aligned(8)));

	if (data + BENCH_W_SADDR6 + 16 > data_end || !bench_next(a))
		return -1;
	if (v4) {
		__builtin_memcpy(BB_ANY_ALIGN(data + BENCH_W_SADDR4, 4), a, 4);
	} else {
		__builtin_memcpy(BB_ANY_ALIGN(data + BENCH_W_SADDR6, 8), a, 8);
		__builtin_memcpy(BB_ANY_ALIGN(data + BENCH_W_SADDR6 + 8, 8), a + 8, 8);
	}
	return 0;
}

#define BENCH_WHOLE_WRAPPER(name, prog, v4)					\
SEC("?xdp")									\
int name(struct xdp_md *ctx)							\
{										\
	if (bench_whole_rewrite(ctx, v4))					\
		return XDP_ABORTED;						\
	bpf_tail_call_static(ctx, &bench_whole_progs, BENCH_W_SLOT(prog, !(v4)));	\
	return XDP_ABORTED;							\
}

BENCH_WHOLE_WRAPPER(bench_w_empty4, BENCH_W_EMPTY, 1)
BENCH_WHOLE_WRAPPER(bench_w_limit4, BENCH_W_LIMIT, 1)
BENCH_WHOLE_WRAPPER(bench_w_min4, BENCH_W_MIN, 1)
BENCH_WHOLE_WRAPPER(bench_w_bloom4, BENCH_W_BLOOM, 1)
BENCH_WHOLE_WRAPPER(bench_w_hash4, BENCH_W_HASH, 1)
BENCH_WHOLE_WRAPPER(bench_w_bb4, BENCH_W_BB, 1)
BENCH_WHOLE_WRAPPER(bench_w_empty6, BENCH_W_EMPTY, 0)
BENCH_WHOLE_WRAPPER(bench_w_limit6, BENCH_W_LIMIT, 0)
BENCH_WHOLE_WRAPPER(bench_w_min6, BENCH_W_MIN, 0)
BENCH_WHOLE_WRAPPER(bench_w_bloom6, BENCH_W_BLOOM, 0)
BENCH_WHOLE_WRAPPER(bench_w_hash6, BENCH_W_HASH, 0)
BENCH_WHOLE_WRAPPER(bench_w_bb6, BENCH_W_BB, 0)

/*
 * The comparators' parse: Ethernet (no VLAN), the IP header of the family v4 says
 * and its version, the source address; NULL for anything else.
 */
static __always_inline const __u8 *bench_min_parse(struct xdp_md *ctx, const int v4)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;

	if (v4) {
		struct iphdr *ip = data + sizeof(*eth);

		if ((void *)(ip + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP) ||
		    ip->version != 4)
			return NULL;
		return (const __u8 *)&ip->saddr;
	} else {
		struct ipv6hdr *ip6 = data + sizeof(*eth);

		if ((void *)(ip6 + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IPV6) ||
		    ip6->version != 6)
			return NULL;
		return (const __u8 *)&ip6->saddr;
	}
}

/*
 * The limit: one 64-byte read at a place the source picks (one multiply), in the
 * family's filter-sized array. No key, no hash, no bit test: what reading one random
 * line of a filter costs, whatever else a filter does. Its verdict means nothing.
 */
static __always_inline int bench_limit(struct xdp_md *ctx, void *array, const int v4)
{
	const struct bb_block *blk;
	const __u8 *addr = bench_min_parse(ctx, v4);
	__u32 idx;

	if (!addr)
		return XDP_PASS;
	idx = (__u32)(((__u64)(bb_load32(addr) * 0x9e3779b1U) * bench_min_nblocks[!v4]) >> 32);
	blk = bpf_map_lookup_elem(array, &idx);
	if (!blk)
		return XDP_PASS;
	return blk->words[0] | blk->words[1] | blk->words[2] | blk->words[3] | blk->words[4] |
	       blk->words[5] | blk->words[6] | blk->words[7] ? XDP_DROP : XDP_PASS;
}

/*
 * The minimal blocked Bloom program: the comparators' parse, bloomblock's key and
 * hash of the address at its full length, one block of the family's array, the
 * split-block test at k = 8 (bloomblock's at --fp 0.001; the driver checks). No
 * header, no counters, no short table, no probe-length loop: its verdicts are the
 * bloomblock filter's, whose bits it holds.
 */
static __always_inline int bench_min(struct xdp_md *ctx, void *array, const int v4)
{
	const struct bb_block *blk;
	const __u8 *addr = bench_min_parse(ctx, v4);
	__u64 h, hi, lo;
	__u32 idx;

	if (!addr)
		return XDP_PASS;
	if (v4) {
		h = bb_hash_ip4_word(bb_key_ip4_word(addr, 32), bench_min_seed[0]);
	} else {
		bb_key_ip6_words(addr, 128, &hi, &lo);
		h = bb_hash_ip6_words(hi, lo, 128, bench_min_seed[1]);
	}
	idx = bb_block_of(h, bench_min_nblocks[!v4]);
	blk = bpf_map_lookup_elem(array, &idx);
	return blk && bb_block_test(blk, h, BB_WORDS) ? XDP_DROP : XDP_PASS;
}

/*
 * The kernel's maps, asked as table 1b's hot rows ask them: the address copied to
 * the stack (helpers take no packet pointers).
 */
static __always_inline const __u8 *bench_addr_copy(struct xdp_md *ctx, __u8 *a, const int v4)
{
	const __u8 *addr = bench_min_parse(ctx, v4);

	if (!addr)
		return NULL;
	if (v4) {
		*(__u32 *)a = bb_load32(addr);
	} else {
		*(__u64 *)a = bb_load64(addr);
		*(__u64 *)(a + 8) = bb_load64(addr + 8);
	}
	return a;
}

static __always_inline int bench_bloom_peek(struct xdp_md *ctx, void *map, const int v4)
{
	__u8 a[16] __attribute__((aligned(8)));

	if (!bench_addr_copy(ctx, a, v4))
		return XDP_PASS;
	return bpf_map_peek_elem(map, a) == 0 ? XDP_DROP : XDP_PASS;
}

static __always_inline int bench_hash_lookup(struct xdp_md *ctx, void *map, const int v4)
{
	__u8 a[16] __attribute__((aligned(8)));

	if (!bench_addr_copy(ctx, a, v4))
		return XDP_PASS;
	return bpf_map_lookup_elem(map, a) ? XDP_DROP : XDP_PASS;
}

#define BENCH_WHOLE_PROG(name, body)						\
SEC("?xdp")									\
int name(struct xdp_md *ctx)							\
{										\
	return body;								\
}

BENCH_WHOLE_PROG(bench_whole_limit4, bench_limit(ctx, &bench_min4, 1))
BENCH_WHOLE_PROG(bench_whole_limit6, bench_limit(ctx, &bench_min6, 0))
BENCH_WHOLE_PROG(bench_whole_min4, bench_min(ctx, &bench_min4, 1))
BENCH_WHOLE_PROG(bench_whole_min6, bench_min(ctx, &bench_min6, 0))
BENCH_WHOLE_PROG(bench_whole_bloom4, bench_bloom_peek(ctx, &bench_bloom, 1))
BENCH_WHOLE_PROG(bench_whole_bloom6, bench_bloom_peek(ctx, &bench_bloom6, 0))
BENCH_WHOLE_PROG(bench_whole_hash4, bench_hash_lookup(ctx, &bench_hash, 1))
BENCH_WHOLE_PROG(bench_whole_hash6, bench_hash_lookup(ctx, &bench_hash6, 0))

/*
 * Where the whole program's time goes (table 12c): programs between the minimal one
 * and bloomblock_xdp, IPv4, each tail-called in turn from bloomblock_xdp's IPv4
 * slot. split_steps() is the minimal program with bloomblock's steps added one at a
 * time (steps, a constant per program): the filter in the inner map of the
 * `filters` slot (the outer lookup and a call for the block), its header looked up
 * (a second call) and checked and the geometry read from it, the general parse
 * (bb_parse_packet()), the counters entry_core() keeps for an address (the
 * per-CPU stats lookup; packets, ipv4, lookups, and passed or dropped), and
 * bb_match_ip4()'s generality (the short table's flag, the probe-length loop, the
 * key masked to the planned length) through a struct bb_ctx.
 */
#define SPLIT_INNER	(1 << 0)
#define SPLIT_HEADER	(1 << 1)	/* with SPLIT_INNER */
#define SPLIT_PARSE	(1 << 2)
#define SPLIT_COUNTERS	(1 << 3)
#define SPLIT_MATCH	(1 << 4)	/* with all of the above */

static __always_inline int split_steps(struct xdp_md *ctx, const int steps)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct bb_cursor cur = { .pos = data, .end = data_end };
	__u32 zero = 0, idx, nblocks, k = BB_WORDS;
	const struct bb_block *blk;
	__u64 seed, h;
	struct bb_packet pkt;
	const __u8 *addr;
	struct bb_ctx c;
	int hit;

	c.sc = NULL;
	c.allow = 0;
	c.pctx = ctx;
	c.hook = BB_EV_XDP;
	c.xdp = 1;
	if (steps & SPLIT_COUNTERS) {
		c.st = stats_of(BB_EV_XDP);
		if (!c.st)
			return XDP_PASS;
		c.st->packets++;
	}
	if (steps & SPLIT_PARSE) {
		if (bb_parse_packet(&cur, &pkt) != BB_PARSE_OK || pkt.l3_proto != ETH_P_IP)
			return XDP_PASS;
		addr = pkt.saddr;
	} else {
		addr = bench_min_parse(ctx, 1);
		if (!addr)
			return XDP_PASS;
		pkt.l3_proto = ETH_P_IP;
		pkt.saddr = addr;
	}
	if (steps & SPLIT_INNER) {
		c.filter = bpf_map_lookup_elem(&filters, &zero);
		if (!c.filter)
			return XDP_PASS;
	}
	if (steps & SPLIT_HEADER) {
		c.hdr = bpf_map_lookup_elem(c.filter, &zero);
		if (!c.hdr || c.hdr->magic != BB_MAGIC || c.hdr->abi_version != BB_ABI_VERSION ||
		    !c.hdr->nblocks)
			return XDP_PASS;
		nblocks = c.hdr->nblocks;
		seed = c.hdr->seed;
		k = c.hdr->k;
	} else {
		nblocks = bench_min_nblocks[0];
		seed = bench_min_seed[0];
	}
	if (steps & SPLIT_COUNTERS)
		c.st->ipv4++;
	if (steps & SPLIT_MATCH) {
		hit = match_addr(&c, &pkt, addr, (void *)(long)ctx->data_end);
	} else {
		h = bb_hash_ip4_word(bb_key_ip4_word(addr, 32), seed);
		if (steps & SPLIT_INNER) {
			idx = BB_FIRST_BLOCK + bb_block_of(h, nblocks);
			blk = bpf_map_lookup_elem(c.filter, &idx);
		} else {
			idx = bb_block_of(h, nblocks);
			blk = bpf_map_lookup_elem(&bench_min4, &idx);
		}
		if (steps & SPLIT_COUNTERS)
			c.st->lookups++;
		hit = blk && bb_block_test(blk, h, k);
	}
	if (steps & SPLIT_COUNTERS) {
		if (hit)
			c.st->dropped++;
		else
			c.st->passed++;
	}
	return hit ? XDP_DROP : XDP_PASS;
}

#define BENCH_SPLIT(name, steps)						\
SEC("?xdp")									\
int name(struct xdp_md *ctx)							\
{										\
	return split_steps(ctx, steps);						\
}

BENCH_SPLIT(split_inner, SPLIT_INNER)
BENCH_SPLIT(split_header, SPLIT_INNER | SPLIT_HEADER)
BENCH_SPLIT(split_parse, SPLIT_INNER | SPLIT_HEADER | SPLIT_PARSE)
BENCH_SPLIT(split_counters, SPLIT_INNER | SPLIT_HEADER | SPLIT_PARSE | SPLIT_COUNTERS)
BENCH_SPLIT(split_match, SPLIT_INNER | SPLIT_HEADER | SPLIT_PARSE | SPLIT_COUNTERS | SPLIT_MATCH)
BENCH_SPLIT(split_counters_only, SPLIT_COUNTERS)

/* bloomblock's own address path, addr_only(), as the whole program: no entry around it. */
SEC("?xdp")
int split_addr_only(struct xdp_md *ctx)
{
	struct bb_hit_seen h;
	int v = addr_only((void *)(long)ctx->data, (void *)(long)ctx->data_end, BB_INGRESS, BB_EV_XDP,
			  &h);

	return v == BB_GENERAL || (v & (BB_ADDR_HIT | BB_ADDR_EVENT)) ? XDP_ABORTED : xdp_action(v);
}

/*
 * The same, called as bloomblock_xdp calls it (bb_addr_xdp()) from a small entry
 * program that can tail-call: the x86 JIT then keeps a tail-call counter through
 * the program's calls, in every frame's prologue and at every call.
 */
SEC("?xdp")
int split_addr_call(struct xdp_md *ctx)
{
	int v = bb_addr_xdp(ctx);

	if (v == BB_GENERAL || (v & BB_ADDR_HIT)) {
		bpf_tail_call_static(ctx, &url_xdp, BB_URL_SLOT);
		return XDP_ABORTED;
	}
	return xdp_action(v);
}

/*
 * A program built for one filter: what bloomblock would be with the geometry in
 * .rodata and the blocks in a map the program names (inlined lookups, no header, no
 * inner map), swapped by replacing the program rather than a map. The counters and
 * the usual hit's as bloomblock keeps them; the parse as addr_only()'s.
 */
SEC("?xdp")
int split_per_filter(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	const struct bb_block *blk;
	struct bb_stats *st;
	struct iphdr *iph;
	__u32 idx;
	__u64 h;

	if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	iph = (void *)(eth + 1);
	if ((void *)(iph + 1) > data_end || iph->version != 4 || iph->ihl < 5 ||
	    (void *)iph + iph->ihl * 4 > data_end)
		return XDP_PASS;
	st = stats_of(BB_EV_XDP);
	if (!st)
		return XDP_PASS;
	st->packets++;
	st->ipv4++;
	h = bb_hash_ip4_word(bb_key_ip4_word((const __u8 *)&iph->saddr, 32), bench_min_seed[0]);
	idx = bb_block_of(h, bench_min_nblocks[0]);
	st->lookups++;
	blk = bpf_map_lookup_elem(&bench_min4, &idx);
	if (!blk || !bb_block_test(blk, h, BB_WORDS)) {
		st->passed++;
		return XDP_PASS;
	}
	st->ip4_hits++;
	st->dropped++;
	return XDP_DROP;
}

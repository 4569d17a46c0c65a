// SPDX-License-Identifier: GPL-2.0
/* The packet path: parse, look addresses and names up in the Bloom filter, verdict, count. */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#include "bloomblock.h"
#include "bb_hash.h"
#include "bb_names.h"
#include "bb_parse.h"
#include "bb_tls.h"

/*
 * Needs Linux 5.18: bpf_xdp_load_bytes() (a hit event's packet, 5.18), the ring
 * buffer (5.8), BPF_F_INNER_MAP (inner maps of any size, 5.10), calls in
 * programs that also tail-call (x86-64, 5.10), global functions (5.6),
 * BPF_F_MMAPABLE arrays (5.5), XDP bpf_links (5.9), bounded loops (5.3). And a CPU
 * with efficient unaligned access (x86-64, arm64): words are read at any offset
 * (include/bb_mem.h).
 */

/*
 * The live filter is the one in slot 0: a BPF_MAP_TYPE_ARRAY of 64-byte blocks
 * holding header, config, short tables and bit blocks (include/bloomblock.h).
 * Userspace builds a new one of any size and swaps it in with one update of the slot.
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

/*
 * Counters with named fields, per CPU, one slot a hook (BB_STATS_SLOTS: the key is
 * the hook's enum bb_event_hook); `bloomblock stats` sums them.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BB_STATS_SLOTS);
	__type(key, __u32);
	__type(value, struct bb_stats);
} stats SEC(".maps");

/* The counters of hook (enum bb_event_hook) on this CPU; NULL only if the map were gone. */
static __always_inline struct bb_stats *stats_of(__u32 hook)
{
	__u32 slot = hook & (BB_STATS_SLOTS - 1);

	return bpf_map_lookup_elem(&stats, &slot);
}

#ifndef BB_MAX_FLOWS
#define BB_MAX_FLOWS 16384
#endif

/* ClientHello walks waiting for their next segment; the least recent is evicted. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BB_MAX_FLOWS);
	__type(key, struct bb_flow_key);
	__type(value, struct bb_tls_walk);
} flows SEC(".maps");

/*
 * How many walks may be waiting in flows, by a hash of their flow key. A TLS
 * segment whose count is 0 has no walk to go on with and skips the lookup (the
 * LRU hashes the 40-byte key: ~30 ns, an eighth of a ClientHello's cost). A count
 * goes up before its walk is stored and down only when a delete found one; the
 * LRU's evictions do not bring it down, so it can only err high (a lookup more),
 * never low. Per loaded object, as flows is.
 */
__u32 bb_pending[1 << BB_PENDING_BITS];

/* Delete the flow's walk, and count it out if there was one. */
static __always_inline void flow_forget(const struct bb_flow_key *key, __u32 slot)
{
	if (!bpf_map_delete_elem(&flows, key))
		__sync_fetch_and_add(&bb_pending[slot & ((1 << BB_PENDING_BITS) - 1)], -1);
}

/*
 * What the first program's parse learnt of a TLS or HTTP packet, passed on to
 * bb_service_xdp() / bb_service_tc() as arguments: the payload as an offset from
 * the packet's start. That function is verified on its own, from its arguments'
 * types, so these reach its parsers as values the verifier knows nothing of: every
 * header layout is one verifier state there. A TLS packet's flow key is left in
 * the scratch's flow.
 */
struct bb_next {
	int svc;		/* enum bb_service */
	__u32 payload_off;	/* at most BB_PAYLOAD_OFF_MAX */
	__u32 payload_len;
	__u64 seq_flags;	/* TCP: the sequence number, the flags above it */
};

/*
 * Per CPU, too big for the stack: the key buffer, a copy of a request's head, a
 * ClientHello walk, and what an HTTP request's check found for the URL program
 * that it tail-calls (the same CPU runs both, nothing runs between them).
 */
struct bb_scratch {
	__u8 key[BB_KEYBUF_BYTES];
	__u64 name_states[BB_NAME_STATES];	/* bb_match_name(): bb_hash_name() in parts */
	__u8 req[BB_HTTP_SCAN_MAX + 8];
	struct bb_tls_walk walk;
	struct bb_flow_key flow;
	__u32 flow_slot;	/* bb_flow_slot(&flow) */
	__u32 name_len;		/* key[1 .. name_len] */
	__u32 path_len;		/* HTTP: the path after the host */
	__u32 path_full;	/* HTTP: the path was not cut */
	__u32 flow_kept;	/* TLS: the walk is in the flows map */
	__u32 hook;		/* enum bb_event_hook, for the URL program's events */
	__u32 url_event;	/* the URL program's event to raise (bb_event_xdp(), _tc()) */
	/* off the stack of the functions a hit calls, the third and fourth frames of a
	 * call chain that has 512 bytes for all */
	struct bb_confirm_key ckey;	/* bb_confirm()'s */
	struct bb_confirm_val cmark;
	__u8 allow_addr[16];		/* bb_allow_pass()'s */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bb_scratch);
} scratch SEC(".maps");

#define BB_TCP_SYN 0x02

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

/* What bb_allow_pass() is asked about. */
enum bb_allow_what {
	BB_ALLOW_IP4,		/* the address in a */
	BB_ALLOW_IP6,		/* the address in a (bytes 0..7) and b (8..15) */
	BB_ALLOW_NAME,		/* the name in the scratch key buffer */
};

/*
 * After a hit in the filter whose allowlist's map_id is map_id: whether the packet
 * passes after all, because the allowlist holds what hit (counted: allowed). A global
 * function, verified once on its own: its enumerations inline at every hit site
 * would take the entry program past the verifier's budget. It looks the live filter
 * up again, so when that is no longer the one that hit (a reload in between), the
 * live one decides both the hit and the allowance: a verdict never pairs one
 * filter's hit with another one's allowlist.
 */
__noinline int bb_allow_pass(__u32 what, __u64 a, __u64 b, __u32 map_id)
{
	const struct bb_allow_header *ah;
	struct bb_ctx c = {};
	__u32 zero = 0, idx;
	__u8 *addr;
	int hit = 1, ok;

	c.sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!c.sc)
		return 1;
	c.st = stats_of(c.sc->hook);	/* hit_decide() set it */
	if (!c.st || !open_filter(&c))
		return 1;	/* unloaded meanwhile: what no filter does, pass */
	addr = c.sc->allow_addr;
	bb_store64(addr, a);
	bb_store64(addr + 8, b);
	idx = BB_FIRST_BLOCK + c.hdr->nblocks;
	ah = bpf_map_lookup_elem(c.filter, &idx);
	if (!ah || ah->map_id != map_id) {
		/* another filter now: the hit is its to say */
		if (what == BB_ALLOW_NAME)
			hit = bb_match_name(&c, c.sc->name_len);
		else if (what == BB_ALLOW_IP4)
			hit = bb_match_ip4(&c, addr);
		else
			hit = bb_match_ip6(&c, addr);
		if (!hit)
			return 1;
	}
	/* c becomes its own allowlist context: one context on the stack, not two */
	if (what == BB_ALLOW_NAME)
		ok = allow_open(&c, &c, BB_HDR_F_NAMES) && bb_match_name(&c, c.sc->name_len);
	else if (what == BB_ALLOW_IP4)
		ok = allow_open(&c, &c, 0) && bb_allow_ip4(&c, c.ah, addr);
	else
		ok = allow_open(&c, &c, 0) && bb_allow_ip6(&c, c.ah, addr);
	if (ok)
		c.st->allowed++;
	return ok;
}

/* Hit events, for `bloomblock events`: 1 MiB, about 2300 of them. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

/* The rate limit, a token bucket per CPU: credit in nanoseconds of the rate. */
struct bb_event_bucket {
	__u64 last_ns, credit_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bb_event_bucket);
} event_bucket SEC(".maps");

/*
 * Take one cost of credit from bucket b (its cap: burst costs) as of now, a time of
 * the coarse clock (bpf_ktime_get_coarse_ns(): a few ns, where the fine one costs ~35
 * on a VM; the bucket refills in its ticks): 1, or 0 when short.
 */
static __always_inline int bucket_take(struct bb_event_bucket *b, __u64 now, __u64 cost,
				       __u32 burst)
{
	__u64 cap = cost * (burst ? burst : 1);

	if (!b->last_ns)
		b->credit_ns = cap;	/* a full bucket to start */
	else if (now > b->last_ns)
		b->credit_ns += now - b->last_ns;
	if (b->credit_ns > cap)
		b->credit_ns = cap;
	b->last_ns = now;
	if (b->credit_ns < cost)
		return 0;
	b->credit_ns -= cost;
	return 1;
}

/* What a hit's decision looked up (hit_decide()), which its event reuses. */
struct bb_hit_seen {
	void *filter;
	const struct bb_header *hdr;
	const struct bb_allow_header *ah;	/* NULL: no allowlist table */
	struct bb_stats *st;
};

/* n bytes (a multiple of 8) from src to dst, a word at a time. */
static __always_inline void copy_words(void *dst, const void *src, const int n)
{
	int i;

	for (i = 0; i < n; i += 8)
		bb_store64(dst + i, bb_load64(src + i));
}

/*
 * An XDP frame's first bytes (up to BB_EVENT_PKT_MAX, len of them) into dst, read
 * from the packet itself: all of them, or for a shorter frame its head and its tail,
 * one word-copy each that overlap. 0 for a frame shorter than 32 bytes: the helper's.
 */
static __always_inline __u32 capture_xdp(void *data, void *data_end, void *dst, __u32 len)
{
	void *tail;
	__u32 off;

	if (data + BB_EVENT_PKT_MAX <= data_end) {
		copy_words(dst, data, BB_EVENT_PKT_MAX);
		return BB_EVENT_PKT_MAX;
	}
	/* the tail's offset, bounded for the verifier as the compiler does not keep it */
	if (len >= 64 && len < BB_EVENT_PKT_MAX && data + 64 <= data_end) {
		off = len - 64;
		asm volatile("%0 &= 63" : "+r"(off));
		tail = data + off;
		if (tail + 64 > data_end)
			return 0;
		copy_words(dst, data, 64);
		copy_words(dst + off, tail, 64);
		return len;
	}
	if (len >= 32 && len < 64 && data + 32 <= data_end) {
		off = len - 32;
		asm volatile("%0 &= 31" : "+r"(off));
		tail = data + off;
		if (tail + 32 > data_end)
			return 0;
		copy_words(dst, data, 32);
		copy_words(dst + off, tail, 32);
		return len;
	}
	return 0;
}

/*
 * The frame's first bytes (up to BB_EVENT_PKT_MAX) into dst, for an event (pcap files
 * of drops): how many, 0 when none. *wire: the frame's length.
 */
static __always_inline __u32 capture_packet(void *pctx, int xdp, void *dst, __u32 *wire)
{
	void *data, *data_end;
	__u32 len;

	if (xdp) {
		data = (void *)(long)((struct xdp_md *)pctx)->data;
		data_end = (void *)(long)((struct xdp_md *)pctx)->data_end;
		len = data_end - data;
		*wire = len;
		if (len >= 32)
			return capture_xdp(data, data_end, dst, len);
	} else {
		len = ((struct __sk_buff *)pctx)->len;
		*wire = len;
	}
	if (!len)
		return 0;
	if (len > BB_EVENT_PKT_MAX)
		len = BB_EVENT_PKT_MAX;
	/* 1 to 128 in the register the helper gets, as the verifier wants to see it:
	 * the compiler would drop arithmetic it knows is redundant, so it is asm */
	asm volatile("%0 -= 1; %0 &= 127; %0 += 1" : "+r"(len));
	if (xdp ? bpf_xdp_load_bytes(pctx, 0, dst, len) : bpf_skb_load_bytes(pctx, 0, dst, len))
		return 0;
	return len;
}

/*
 * A hit's event begun (what_verdict: enum bb_event_what << 8 | enum bb_event_verdict),
 * when the live filter (h: what the hit's decision looked up) raises events and this
 * CPU's bucket has credit (else counted: events_limited; the ring full: events_lost).
 * The bucket is asked first, so a flood past the limit costs a hit the bucket and no
 * more. The record is reserved and filled in place but for what hit (addresses,
 * ports, the key: the caller's to write), the frame's first bytes loaded straight
 * into it. Its time is the bucket's, the coarse clock's (the last tick: docs/DESIGN.md,
 * Hit events). Only what the record holds is written: the key past key_len and the
 * frame past pkt_len are not (a reader keeps to them). NULL when there is none to
 * raise; else event_end() submits it.
 */
static __always_inline struct bb_event *event_begin(void *pctx, int xdp,
						    const struct bb_hit_seen *h,
						    __u32 what_verdict, __u32 key_len, __u32 hook)
{
	__u32 zero = 0, idx = BB_CONFIG_INDEX, wire;
	const struct bb_config *cfg = bpf_map_lookup_elem(h->filter, &idx);
	struct bb_event_bucket *b = bpf_map_lookup_elem(&event_bucket, &zero);
	struct bb_event *ev;
	__u64 now;

	if (!cfg || !b || !cfg->event_cost_ns)
		return NULL;
	now = bpf_ktime_get_coarse_ns();
	if (!bucket_take(b, now, cfg->event_cost_ns, cfg->event_burst)) {
		h->st->events_limited++;
		return NULL;
	}
	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		h->st->events_lost++;
		return NULL;
	}
	ev->time_ns = now;
	ev->ifindex = xdp ? ((struct xdp_md *)pctx)->ingress_ifindex :
		      ((struct __sk_buff *)pctx)->ifindex;
	ev->hook = (__u8)hook;
	ev->verdict = (__u8)what_verdict;
	ev->what = (__u8)(what_verdict >> 8);
	ev->key_len = key_len < BB_EVENT_KEY_MAX ? (__u16)key_len : BB_EVENT_KEY_MAX;
	ev->pad[0] = ev->pad[1] = 0;
	ev->map_id = h->ah ? h->ah->map_id : 0;
	ev->epoch = cfg->confirm_epoch;
	ev->pad2 = 0;
	ev->pkt_len = (__u16)capture_packet(pctx, xdp, ev->pkt, &wire);
	ev->wire_len = (__u16)wire;
	return ev;
}

static __always_inline void event_end(struct bb_event *ev, const struct bb_hit_seen *h)
{
	bpf_ringbuf_submit(ev, 0);
	h->st->events++;
}

/*
 * A hit's event (event_begin()) whose addresses and ports are the scratch's flow key
 * and whose name (key_len bytes) is the scratch's key buffer.
 */
static __always_inline void event_raise(void *pctx, int xdp, const struct bb_hit_seen *h,
					__u32 what_verdict, __u32 key_len, __u32 hook)
{
	__u32 zero = 0;
	struct bb_scratch *sc = bpf_map_lookup_elem(&scratch, &zero);
	struct bb_event *ev;

	if (!sc)
		return;
	ev = event_begin(pctx, xdp, h, what_verdict, key_len, hook);
	if (!ev)
		return;
	ev->family = sc->flow.family;
	__builtin_memcpy(ev->saddr, sc->flow.saddr, 16);
	__builtin_memcpy(ev->daddr, sc->flow.daddr, 16);
	ev->sport = sc->flow.sport;
	ev->dport = sc->flow.dport;
	/* the key in as few constant-sized copies as hold it: an address has none */
	if (key_len > 128)
		__builtin_memcpy(ev->key, sc->key, BB_EVENT_KEY_MAX);
	else if (key_len > 64)
		__builtin_memcpy(ev->key, sc->key, 128);
	else if (key_len > 32)
		__builtin_memcpy(ev->key, sc->key, 64);
	else if (key_len)
		__builtin_memcpy(ev->key, sc->key, 32);
	event_end(ev, h);
}

/* Confirm mode (include/bloomblock.h): the requests, the answers, the daemon's beat. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);	/* about 3400 requests */
} confirm_ring SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BB_CONFIRM_ENTRIES);
	__type(key, struct bb_confirm_key);
	__type(value, struct bb_confirm_val);
} confirmed SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BB_CONFIRM_ENTRIES);
	__type(key, struct bb_confirm_key);
	__type(value, struct bb_confirm_val);
} unlisted SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bb_confirm_daemon);
} confirm_daemon SEC(".maps");

/* What bb_confirm() decided of a hit. */
enum bb_confirm_result {
	BB_CONFIRM_R_DROP = 1,	/* confirmed listed; or no daemon, and --daemon-down drop */
	BB_CONFIRM_R_PASS,	/* confirmed on no list: a false positive, no event */
	BB_CONFIRM_R_WAIT,	/* passed, not confirmed yet: an "unconfirmed" event */
};

static __always_inline int confirm_fresh(const struct bb_confirm_val *v,
					 const struct bb_header *hdr, const struct bb_config *cfg)
{
	return v->generation == hdr->generation && v->epoch == cfg->confirm_epoch;
}

#define BB_CONFIRM_COUNT	(1U << 16)	/* bb_confirm(): count, decide nothing */

/*
 * Confirm mode: what becomes of a hit the allowlist did not pass. what_family: enum
 * bb_event_what, the address family above it; an address in a (IPv4: its 4 bytes) and
 * b, a name's or URL's key (key_len bytes, as an event's) in the scratch key buffer.
 * With BB_CONFIRM_COUNT (drop and flag mode, while the daemon runs): the same
 * requests and answers, for the hits by list of stats --by-list, and no verdict. A
 * global function, verified once, asked on hits only: a miss costs nothing more.
 */
__noinline int bb_confirm(__u32 what_family, __u64 a, __u64 b, __u32 key_len)
{
	__u32 zero = 0, idx = BB_CONFIG_INDEX, what = what_family & 0xff, len;
	struct bb_scratch *sc = bpf_map_lookup_elem(&scratch, &zero);
	struct bb_stats *st = sc ? stats_of(sc->hook) : NULL;	/* hit_decide()'s, url_core()'s */
	void *filter = bpf_map_lookup_elem(&filters, &zero);
	const struct bb_confirm_daemon *d;
	const struct bb_header *hdr;
	const struct bb_config *cfg;
	struct bb_confirm_val *v, *mark;
	struct bb_confirm_key *k;
	struct bb_confirm_req *req;
	__u64 now = bpf_ktime_get_coarse_ns();
	int pending = 0, count = what_family & BB_CONFIRM_COUNT;

	d = bpf_map_lookup_elem(&confirm_daemon, &zero);
	if (count && (!d || !d->alive_ns || now > d->alive_ns + BB_CONFIRM_ALIVE_NS))
		return 0;	/* no daemon: nothing counts hits by list */
	if (!st || !sc || !filter)
		return BB_CONFIRM_R_WAIT;
	hdr = bpf_map_lookup_elem(filter, &zero);
	cfg = bpf_map_lookup_elem(filter, &idx);
	if (!hdr || !cfg)
		return BB_CONFIRM_R_WAIT;
	k = &sc->ckey;
	mark = &sc->cmark;
	__builtin_memset(k, 0, sizeof(*k));
	if (what == BB_EV_SRC || what == BB_EV_DST) {
		k->kind = ((what_family >> 8) & 0xff) == 4 ? BB_CONFIRM_IP4 : BB_CONFIRM_IP6;
		bb_store64(k->data, a);
		bb_store64(k->data + 8, b);
		key_len = 0;
	} else {
		k->kind = what == BB_EV_URL ? BB_CONFIRM_URL : BB_CONFIRM_NAME;
		len = key_len > 1 ? key_len - 1 : 0;
		if (len > BB_KEY_MAX - 1)
			len = BB_KEY_MAX - 1;
		bb_store64(k->data, bb_xxh64(sc->key + 1, len, hdr->seed ^ k->kind));
	}
	v = bpf_map_lookup_elem(&confirmed, k);
	if (v && confirm_fresh(v, hdr, cfg)) {
		__sync_fetch_and_add(&v->hits, 1);
		return BB_CONFIRM_R_DROP;
	}
	v = bpf_map_lookup_elem(&unlisted, k);
	if (v && confirm_fresh(v, hdr, cfg)) {
		if (v->state == BB_CONFIRM_UNLISTED) {
			__sync_fetch_and_add(&v->hits, 1);
			if (!count)
				st->unlisted++;
			return BB_CONFIRM_R_PASS;
		}
		pending = now - v->time_ns < BB_CONFIRM_RETRY_NS;
	}
	if (count) {
		if (pending)
			return 0;
	} else if (!d || !d->alive_ns || now > d->alive_ns + BB_CONFIRM_ALIVE_NS) {
		st->daemon_down++;
		if (hdr->flags & BB_HDR_F_DOWN_DROP)
			return BB_CONFIRM_R_DROP;
		st->unconfirmed++;
		return BB_CONFIRM_R_WAIT;
	} else {
		st->unconfirmed++;
		if (pending)
			return BB_CONFIRM_R_WAIT;	/* asked already: the answer is on its way */
	}
	__builtin_memset(mark, 0, sizeof(*mark));
	mark->generation = hdr->generation;
	mark->epoch = cfg->confirm_epoch;
	mark->state = BB_CONFIRM_PENDING;
	mark->time_ns = now;
	bpf_map_update_elem(&unlisted, k, mark, BPF_ANY);
	req = bpf_ringbuf_reserve(&confirm_ring, sizeof(*req), 0);
	if (!req) {
		st->confirm_lost++;
		return BB_CONFIRM_R_WAIT;
	}
	req->time_ns = bpf_ktime_get_ns();
	req->generation = hdr->generation;
	req->epoch = cfg->confirm_epoch;
	req->key_len = key_len < BB_EVENT_KEY_MAX ? (__u16)key_len : BB_EVENT_KEY_MAX;
	req->what = (__u8)what;
	req->family = (__u8)((what_family >> 8) & 0xff);
	__builtin_memcpy(&req->ckey, k, sizeof(*k));
	__builtin_memcpy(req->key, sc->key, BB_EVENT_KEY_MAX);
	bpf_ringbuf_submit(req, 0);
	st->confirm_requests++;
	return BB_CONFIRM_R_WAIT;
}

#define BB_DECIDE_FP	(1 << 16)	/* hit_decide(): a confirmed false positive */

/* The verdict a hit's event tells: 0, none (a confirmed false positive). */
static __always_inline __u32 event_verdict(const struct bb_header *hdr, int allowed, int conf)
{
	if (allowed)
		return BB_EV_ALLOWED;
	if (conf == BB_CONFIRM_R_WAIT)
		return BB_EV_UNCONFIRMED;
	if (conf == BB_CONFIRM_R_PASS)
		return 0;
	return hdr->flags & BB_HDR_F_DROP ? BB_EV_DROPPED : BB_EV_FLAGGED;
}

#define BB_DECIDE_EVENTS (1 << 17)	/* hit_decide(): the filter raises events */

/*
 * Whether bloomblock run beats, as bb_confirm() asks before it counts a hit by list:
 * without a daemon (the usual drop or flag mode) a hit makes no call for it.
 */
static __always_inline int confirm_daemon_beats(void)
{
	__u32 zero = 0;
	const struct bb_confirm_daemon *d = bpf_map_lookup_elem(&confirm_daemon, &zero);

	return d && d->alive_ns && bpf_ktime_get_coarse_ns() <= d->alive_ns + BB_CONFIRM_ALIVE_NS;
}

/*
 * After a Bloom hit: counted, and whether it stands. The allowlist is asked
 * (bb_allow_pass()), then in confirm mode the daemon's answers (bb_confirm()).
 * Arguments as bb_confirm()'s; what it looked up into *h, for the event. Returns bit 0
 * set when the hit stands (dropped or flagged by the mode), the event's verdict in
 * bits 8..15 (event_verdict(); 0: none), BB_DECIDE_FP for a confirmed false positive,
 * and BB_DECIDE_EVENTS when the filter raises events (so that the caller need not
 * read its header again).
 */
static __always_inline int hit_decide(__u32 what_family, __u64 a, __u64 b, __u32 key_len,
				      __u32 hook, struct bb_hit_seen *h)
{
	__u32 zero = 0, idx, what = what_family & 0xff, allow_what;
	void *filter = bpf_map_lookup_elem(&filters, &zero);
	struct bb_scratch *sc = bpf_map_lookup_elem(&scratch, &zero);
	const struct bb_allow_header *ah;
	const struct bb_header *hdr;
	struct bb_stats *st = stats_of(hook);
	int allowed = 0, conf = 0, hit;

	hdr = filter ? bpf_map_lookup_elem(filter, &zero) : NULL;
	if (!hdr || !st || !sc)
		return 0;	/* unloaded meanwhile: what no filter does, pass */
	sc->hook = hook;	/* the hook bb_allow_pass() and bb_confirm() count at */
	if (what == BB_EV_SRC && (what_family >> 8) == 4)
		st->ip4_hits++;
	else if (what == BB_EV_SRC)
		st->ip6_hits++;
	else if (what == BB_EV_DST)
		st->ip_dst_hits++;
	else if (what == BB_EV_DNS)
		st->dns_hits++;
	else if (what == BB_EV_SNI)
		st->tls_hits++;
	else
		st->http_hits++;
	if (what == BB_EV_SRC || what == BB_EV_DST)
		allow_what = (what_family >> 8) == 4 ? BB_ALLOW_IP4 : BB_ALLOW_IP6;
	else
		allow_what = BB_ALLOW_NAME;
	idx = BB_FIRST_BLOCK + hdr->nblocks;
	ah = hdr->allow_blocks ? bpf_map_lookup_elem(filter, &idx) : NULL;
	if (ah && ah->items)
		allowed = bb_allow_pass(allow_what, a, b, ah->map_id);
	if (!allowed && (hdr->flags & BB_HDR_F_CONFIRM))
		conf = bb_confirm(what_family, a, b, key_len);
	else if (!allowed && confirm_daemon_beats())
		bb_confirm(what_family | BB_CONFIRM_COUNT, a, b, key_len);	/* by list */
	hit = !allowed && (!conf || conf == BB_CONFIRM_R_DROP);
	h->filter = filter;
	h->hdr = hdr;
	h->ah = ah;
	h->st = st;
	return hit | event_verdict(hdr, allowed, conf) << 8 |
	       (conf == BB_CONFIRM_R_PASS ? BB_DECIDE_FP : 0) |
	       (hdr->flags & BB_HDR_F_EVENTS ? BB_DECIDE_EVENTS : 0);
}

/*
 * A hit, decided (hit_decide()) and its event raised (event_raise()) when the filter
 * has events on and the bucket has credit. The packet's addresses and ports are the
 * scratch's flow key (the caller's to make), its name the scratch's key. A global
 * function per hook family, one call a hit, the context its first argument: the
 * decisions and the event inline at every hit site take the entry programs past the
 * verifier's budget, and a context's fields (the interface) can cost loads. The event
 * reuses what the decision looked up (the filter, its header and allowlist header,
 * the counters): no lookup twice. Returns hit_decide()'s word.
 */
static __always_inline int hit_core(void *pctx, int xdp, __u32 what_family, __u64 a, __u64 b,
				    __u32 key_len)
{
	struct bb_hit_seen h;
	__u32 v;
	int r = hit_decide(what_family & 0xffff, a, b, key_len, (what_family >> 16) & 0xff, &h);

	v = (r >> 8) & 0xff;
	if (v && (r & BB_DECIDE_EVENTS))
		event_raise(pctx, xdp, &h, (what_family & 0xff) << 8 | v, key_len,
			    (what_family >> 16) & 0xff);
	return r & ~BB_DECIDE_EVENTS;
}

__noinline int bb_hit_xdp(struct xdp_md *ctx, __u32 what_family, __u64 a, __u64 b, __u32 key_len)
{
	return hit_core(ctx, 1, what_family | BB_EV_XDP << 16, a, b, key_len);
}

/* The hook (enum bb_event_hook) rides in what_family's third byte. */
__noinline int bb_hit_tc(struct __sk_buff *skb, __u32 what_family, __u64 a, __u64 b, __u32 key_len)
{
	return hit_core(skb, 0, what_family, a, b, key_len);
}

/*
 * An event raised apart from its hit's decision (the URL program's, after its
 * verdict): event_raise() for the filter live now, when it raises events. A global
 * function per hook family, as bb_hit_xdp() and bb_hit_tc().
 */
static __always_inline int event_core(void *pctx, int xdp, __u32 what_verdict, __u32 key_len,
				      __u32 hook)
{
	__u32 zero = 0, idx;
	struct bb_hit_seen h;

	h.filter = bpf_map_lookup_elem(&filters, &zero);
	h.st = stats_of(hook);
	h.hdr = h.filter ? bpf_map_lookup_elem(h.filter, &zero) : NULL;
	if (!h.hdr || !h.st || !(h.hdr->flags & BB_HDR_F_EVENTS))
		return 0;
	idx = BB_FIRST_BLOCK + h.hdr->nblocks;
	h.ah = h.hdr->allow_blocks ? bpf_map_lookup_elem(h.filter, &idx) : NULL;
	event_raise(pctx, xdp, &h, what_verdict, key_len, hook);
	return 0;
}

__noinline int bb_event_xdp(struct xdp_md *ctx, __u32 what_verdict, __u32 key_len)
{
	return event_core(ctx, 1, what_verdict, key_len, BB_EV_XDP);
}

__noinline int bb_event_tc(struct __sk_buff *skb, __u32 what_verdict, __u32 key_len, __u32 hook)
{
	return event_core(skb, 0, what_verdict, key_len, hook);
}

/* A hit of c's packet: bb_hit_xdp() or bb_hit_tc(). */
static __always_inline int hit_call(const struct bb_ctx *c, __u32 what_family, __u64 a, __u64 b,
				    __u32 key_len)
{
	if (c->xdp)
		return bb_hit_xdp(c->pctx, what_family, a, b, key_len);
	return bb_hit_tc(c->pctx, what_family | c->hook << 16, a, b, key_len);
}

static __always_inline void flow_key(struct bb_flow_key *k, const struct bb_packet *pkt);

/*
 * After an address's hit: the flow key for its event (an address hit has no ports:
 * they are 0 in pkt, not read yet), then hit_call().
 */
static __always_inline int addr_hit(struct bb_ctx *c, const struct bb_packet *pkt,
				    const __u8 *addr, __u32 what)
{
	__u32 zero = 0;

	if (!c->sc)
		c->sc = bpf_map_lookup_elem(&scratch, &zero);
	if (c->sc && (c->hdr->flags & BB_HDR_F_EVENTS))
		flow_key(&c->sc->flow, pkt);
	if (pkt->l3_proto == ETH_P_IP)
		return hit_call(c, what | 4 << 8, bb_load32(addr), 0, 0);
	return hit_call(c, what | 6 << 8, bb_load64(addr), bb_load64(addr + 8), 0);
}

static __always_inline int match_addr(const struct bb_ctx *c, const struct bb_packet *pkt,
				      const __u8 *addr)
{
	return pkt->l3_proto == ETH_P_IP ? bb_match_ip4(c, addr) : bb_match_ip6(c, addr);
}

static __always_inline int port_in(const __u16 *ports, __u16 port)
{
	int i;

	for (i = 0; i < BB_MAX_PORTS; i++)
		if (ports[i] && ports[i] == port)
			return 1;
	return 0;
}

/*
 * The protocols' checks find a name and leave it in the scratch key buffer; the
 * return value says what next.
 */
enum bb_found {
	BB_FOUND_NOTHING,	/* pass */
	BB_FOUND_NAME,		/* a name to match */
	BB_FOUND_DROP,		/* drop now: a retransmitted segment of a listed ClientHello */
};

static __always_inline int check_dns(const struct bb_ctx *c, const struct bb_packet *pkt,
				     void *data_end)
{
	__u32 len = 0;
	int ret = bb_dns_qname(pkt->payload, data_end, c->sc->key, &len);

	if (ret == BB_NAME_NONE)
		return BB_FOUND_NOTHING;
	c->st->dns_queries++;
	if (ret == BB_NAME_BAD)
		c->st->dns_unparsed++;
	if (ret != BB_NAME_FOUND)
		return BB_FOUND_NOTHING;
	c->sc->name_len = len;
	return BB_FOUND_NAME;
}

/* QUIC long-header Initial (v1 type 0, v2 type 1): its SNI is encrypted, count it. */
static __always_inline int check_quic(const struct bb_ctx *c, const struct bb_packet *pkt,
				      void *data_end)
{
	const __u8 *p = pkt->payload;
	__u32 version, type;

	if ((void *)(p + 5) > data_end || (p[0] & 0xc0) != 0xc0)
		return 0;
	version = (__u32)p[1] << 24 | (__u32)p[2] << 16 | (__u32)p[3] << 8 | p[4];
	type = (p[0] >> 4) & 3;
	if (!version || (version == 0x6b3343cf ? type != 1 : type != 0))
		return 0;
	c->st->quic_initials++;
	if (!(c->hdr->flags & BB_HDR_F_BLOCK_QUIC))
		return 0;
	if (c->hdr->flags & BB_HDR_F_DROP)
		c->st->quic_dropped++;	/* in flag mode it passes, counted as flagged */
	return 1;
}

/* Copy a finished walk's SNI to the key buffer, to be matched. */
static __always_inline int sni_found(const struct bb_ctx *c, const struct bb_tls_walk *w)
{
	__u32 i, len = w->name_len;

	/* eight bytes at a time; what is copied past len is never read */
	for (i = 0; i < BB_TLS_BUF; i += 8) {
		__u64 v;

		if (i >= len)
			break;
		v = bb_load64(w->buf + (i & (BB_TLS_BUF - 1)));
		bb_store64(c->sc->key + ((1 + i) & (BB_KEYBUF_BYTES / 2 - 1)), v);
		barrier();	/* or clang makes it a memmove, which BPF has not */
	}
	if (bb_name_finish(c->sc->key, &len) != BB_NAME_FOUND) {
		c->st->tls_unparsed++;
		return BB_FOUND_NOTHING;
	}
	c->sc->name_len = len;
	return BB_FOUND_NAME;
}

/* The flow key in five word stores: clang makes a memset and copies 2-byte stores. */
static __always_inline void flow_key(struct bb_flow_key *k, const struct bb_packet *pkt)
{
	__u8 *b = (__u8 *)k;
	__u32 family = pkt->l3_proto == ETH_P_IP ? 4 : 6;

	if (family == 4) {
		bb_store64(b, bb_load32(pkt->saddr));
		bb_store64(b + 8, 0);
		bb_store64(b + 16, bb_load32(pkt->daddr));
		bb_store64(b + 24, 0);
	} else {
		bb_store64(b, bb_load64(pkt->saddr));
		bb_store64(b + 8, bb_load64(pkt->saddr + 8));
		bb_store64(b + 16, bb_load64(pkt->daddr));
		bb_store64(b + 24, bb_load64(pkt->daddr + 8));
	}
	/* sport, dport, family, pad: little-endian, as BPF on x86 */
	bb_store64(b + 32, pkt->sport | (__u32)pkt->dport << 16 | (__u64)family << 32);
}

/* Count a finished walk; an SNI goes on to be matched. */
static __always_inline int tls_result(const struct bb_ctx *c, struct bb_tls_walk *w, int ret)
{
	if (w->ech)
		c->st->tls_ech++;
	if (ret == BB_TLS_SNI) {
		if (w->segments > 1)
			c->st->tls_split++;
		return sni_found(c, w);
	}
	if (ret == BB_TLS_NO_SNI)
		c->st->tls_no_sni++;
	else
		c->st->tls_unparsed++;
	return BB_FOUND_NOTHING;
}

/*
 * A ClientHello, or the next segment of one: the walk goes on where the last
 * segment left it. Segments out of order end the walk, counted as unparsed.
 */
static __always_inline int check_tls(const struct bb_ctx *c, const struct bb_packet *pkt,
				     void *data_end)
{
	struct bb_flow_key *key = &c->sc->flow;
	__u32 slot = c->sc->flow_slot & ((1 << BB_PENDING_BITS) - 1);
	const __u8 *p = pkt->payload;
	struct bb_tls_walk *w = NULL;
	int ret;

	c->sc->flow_kept = 0;
	if (pkt->tcp_flags & BB_TCP_SYN) {
		/* a new connection on this 5-tuple (NAT reuse): no walk carries over */
		if (bb_pending[slot])
			flow_forget(key, slot);
		return BB_FOUND_NOTHING;
	}
	if (!pkt->payload_len)
		return BB_FOUND_NOTHING;
	if (bb_pending[slot])
		w = bpf_map_lookup_elem(&flows, key);
	if (w) {
		if (w->blocked)
			return BB_FOUND_DROP;	/* the listed ClientHello, retransmitted */
		if (pkt->seq != w->next_seq) {
			/* an old segment again: let it be; a gap: the walk is lost */
			if ((__s32)(pkt->seq - w->next_seq) < 0)
				return BB_FOUND_NOTHING;
			c->st->tls_unparsed++;
			flow_forget(key, slot);
			return BB_FOUND_NOTHING;
		}
		w->segments++;
		ret = bb_tls_walk(w, p, data_end, pkt->payload_len);
		if (ret == BB_TLS_MORE) {
			if (w->segments >= BB_TLS_MAX_SEGMENTS) {
				c->st->tls_unparsed++;
				flow_forget(key, slot);
				return BB_FOUND_NOTHING;
			}
			w->seg_lo += pkt->payload_len;
			w->next_seq = pkt->seq + pkt->payload_len;
			return BB_FOUND_NOTHING;
		}
		ret = tls_result(c, w, ret);
		if (ret == BB_FOUND_NAME)
			c->sc->flow_kept = 1;	/* match_found() marks or drops it */
		else
			flow_forget(key, slot);
		return ret;
	}

	/*
	 * A new ClientHello starts with a handshake record: 22, 3, x, length, type 1.
	 * A first segment may end before the type byte (DPI evasion splits at byte 1
	 * or 2): the bytes it has must fit, and the walk checks the rest.
	 */
	if ((void *)(p + 1) > data_end || p[0] != 22)
		return BB_FOUND_NOTHING;
	if (pkt->payload_len >= 2 && ((void *)(p + 2) > data_end || p[1] != 3))
		return BB_FOUND_NOTHING;
	if (pkt->payload_len >= 6 && ((void *)(p + 6) > data_end || p[5] != 1))
		return BB_FOUND_NOTHING;
	c->st->tls_hellos++;
	w = &c->sc->walk;
	__builtin_memset(w, 0, sizeof(*w) - BB_TLS_BUF);
	w->segments = 1;
	/*
	 * The fast path reads through its own copy of the payload pointer (plus an
	 * offset the verifier sees as 0 or 1, always 0) and of its length: what its
	 * checks teach the verifier about them would otherwise split its walk of
	 * bb_tls_walk() into one per way out of bb_tls_whole().
	 */
	ret = bb_tls_whole(w, p + (bb_forget(c->sc->key, 0) & 1), data_end,
			   bb_forget(c->sc->key, pkt->payload_len));
	if (ret == BB_TLS_MORE)
		ret = bb_tls_walk(w, p, data_end, pkt->payload_len);
	if (ret == BB_TLS_MORE) {
		w->seg_lo = pkt->payload_len;
		w->next_seq = pkt->seq + pkt->payload_len;
		__sync_fetch_and_add(&bb_pending[slot], 1);
		if (bpf_map_update_elem(&flows, key, w, BPF_ANY))
			__sync_fetch_and_add(&bb_pending[slot], -1);
		return BB_FOUND_NOTHING;
	}
	return tls_result(c, w, ret);
}

static __always_inline int check_http(const struct bb_ctx *c, const struct bb_packet *pkt,
				      void *data_end)
{
	const __u8 *p = pkt->payload;
	__u32 i, n = pkt->payload_len, hlen = 0, plen = 0;
	int ret, full = 0;

	if (!n)
		return BB_FOUND_NOTHING;
	if (n > BB_HTTP_SCAN_MAX)
		n = BB_HTTP_SCAN_MAX;
	/* eight bytes a step: fewer branches for the verifier to keep pending */
	for (i = 0; i < BB_HTTP_SCAN_MAX / 8; i++) {
		__u64 v;

		if (i * 8 + 8 > n || (void *)(p + i * 8 + 8) > data_end)
			break;
		v = bb_load64(p + i * 8);
		bb_store64(c->sc->req + i * 8, v);
	}
	/* and the last few bytes one by one */
	n = bb_forget(c->sc->key, i * 8);
	if (n <= BB_HTTP_SCAN_MAX - 8) {
		const __u8 *t = p + n;

		for (i = 0; i < 7; i++) {
			if ((void *)(t + i + 1) > data_end || n + i >= pkt->payload_len)
				break;
			c->sc->req[(n + i) & (BB_HTTP_SCAN_MAX - 1)] = t[i];
		}
		n = bb_forget(c->sc->key, n + i);
	}
	ret = bb_http_request(c->sc->req, n, c->sc->key, &hlen, &plen, &full);
	if (ret == BB_NAME_NONE)
		return BB_FOUND_NOTHING;
	c->st->http_requests++;
	if (ret != BB_NAME_FOUND) {
		c->st->http_unparsed++;
		return BB_FOUND_NOTHING;
	}
	c->sc->name_len = hlen;
	c->sc->path_len = plen;
	c->sc->path_full = full;
	return BB_FOUND_NAME;
}

/*
 * Where names are checked (enum bb_service in include/bloomblock.h): a DNS query's
 * in the first program's own code, it is small to find; a ClientHello's or an HTTP
 * request's in a global function the first program calls, verified once on its
 * own (bb_service_xdp()); an HTTP request's URL in a program of its own, reached
 * by a tail call. So each walk stays within the verifier's budget (1M instructions
 * for a program and its functions, 8192 pending branches).
 */
#define BB_PAYLOAD_OFF_MAX 1024	/* headers longer than this: the payload is not read */

/* Parse to L4 and say which service the packet is for, by its destination port. */
static __always_inline int service_of(void *filter, struct bb_scratch *sc, struct bb_cursor *cur,
				      struct bb_packet *pkt, void *data)
{
	const struct bb_config *cfg;
	__u32 idx = BB_CONFIG_INDEX, off;

	if (bb_parse_l4(cur, pkt) != BB_PARSE_OK)
		return BB_SVC_NONE;
	/*
	 * The payload again, as packet start plus a bounded offset that went through
	 * memory: every header layout (VLANs, IP options, IPv6 extensions) then
	 * reaches the name checks as one verifier state, not one each; and the
	 * verifier follows reads at variable offsets only while the bound stays under
	 * 64 KiB, which the sum of the header lengths does not.
	 */
	off = bb_forget(sc->key, pkt->payload - data);
	if (off > BB_PAYLOAD_OFF_MAX)
		return BB_SVC_NONE;
	pkt->payload = data + off;
	pkt->payload_len = bb_forget(sc->key, pkt->payload_len);
	if (pkt->payload_len > 0xffff)
		return BB_SVC_NONE;
	cfg = bpf_map_lookup_elem(filter, &idx);
	if (!cfg)
		return BB_SVC_NONE;
	if (pkt->l4_proto == IPPROTO_UDP) {
		if (port_in(cfg->dns_ports, pkt->dport))
			return BB_SVC_DNS;
		if (port_in(cfg->quic_ports, pkt->dport))
			return BB_SVC_QUIC;
		return BB_SVC_NONE;
	}
	/* bare ACKs go no further; a SYN clears a TLS flow's old walk */
	if (!pkt->payload_len && !(pkt->tcp_flags & BB_TCP_SYN))
		return BB_SVC_NONE;
	if (port_in(cfg->tls_ports, pkt->dport))
		return BB_SVC_TLS;
	if (pkt->payload_len && port_in(cfg->http_ports, pkt->dport))
		return BB_SVC_HTTP;
	return BB_SVC_NONE;
}

enum bb_direction {
	BB_INGRESS,	/* XDP, tc ingress: the source is the peer */
	BB_EGRESS,	/* tc egress: the destination is the peer */
};

/* What a program decided. */
enum bb_verdict {
	BB_PASS,
	BB_DROP,
	BB_FLAG,	/* pass, and mark at tc */
	BB_TAIL,	/* go on: bb_service_*() for next->svc, or the URL program */
	BB_NAME_HIT,	/* a TLS or HTTP name hit: bb_name_*() decides it */
	BB_ANSWER,	/* a dropped DNS query to answer (XDP: the answer program) */
	BB_RESET,	/* a dropped TLS or HTTP segment whose connection to reset */
};

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

/*
 * What becomes of a name that was matched: r, hit_call()'s word (0: no hit). BB_TAIL:
 * an HTTP request whose host is not listed, or is a false positive, for the URL
 * program; an allowed host passes with its URLs.
 */
static __always_inline int name_decided(const struct bb_ctx *c, __u32 svc, int r)
{
	int hit = r & 1;

	/* one way out to the URL program: each costs the verifier a walk of what follows */
	if ((!r || (r & BB_DECIDE_FP)) && svc == BB_SVC_HTTP && (c->hdr->flags & BB_HDR_F_URLS))
		return BB_TAIL;
	if (svc == BB_SVC_TLS && c->sc->flow_kept) {
		struct bb_tls_walk *w = bpf_map_lookup_elem(&flows, &c->sc->flow);

		/* a listed split ClientHello: drop its retransmissions too */
		if (w && hit)
			w->blocked = 1;
		else if (w)
			flow_forget(&c->sc->flow, c->sc->flow_slot);
	}
	return tcp_verdict(c, hit);	/* a DNS query's BB_RESET: BB_ANSWER, in the core */
}

/*
 * Match the name a protocol's check left in the scratch buffer. A DNS query's hit
 * (pkt: its flow key for the event) is decided here; a ClientHello's or a request's
 * is BB_NAME_HIT, decided by bb_name_xdp() or bb_name_tc(), which the entry program
 * calls: from bb_service_*(), the calls a hit makes would take the call chain past
 * its 512 bytes of stack.
 */
static __always_inline int match_found(const struct bb_ctx *c, __u32 svc,
				       const struct bb_packet *pkt)
{
	int r = 0;

	if (bb_match_name(c, c->sc->name_len)) {
		if (!pkt)
			return BB_NAME_HIT;
		if (c->hdr->flags & BB_HDR_F_EVENTS)
			flow_key(&c->sc->flow, pkt);
		/* DNS, SNI, Host: their events' kinds in the order of the services */
		r = hit_call(c, BB_EV_DNS + svc, 0, 0, 1 + c->sc->name_len);
	}
	return name_decided(c, svc, r);
}

/* A ClientHello's or a request's name hit (BB_NAME_HIT), in the scratch: decided. */
static __always_inline int name_core(void *pctx, int xdp, __u32 svc, __u32 hook)
{
	struct bb_ctx c = {};
	__u32 zero = 0;
	int r;

	c.pctx = pctx;
	c.xdp = xdp;
	c.hook = hook;
	c.st = stats_of(hook);
	c.sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!c.st || !c.sc)
		return BB_PASS;
	if (!open_filter(&c))
		return verdict(&c, 0);
	svc = svc == BB_SVC_TLS ? BB_SVC_TLS : BB_SVC_HTTP;
	r = hit_core(pctx, xdp, (BB_EV_DNS + svc) | hook << 16, 0, 0, 1 + c.sc->name_len);
	return name_decided(&c, svc, r);
}

__noinline int bb_name_xdp(struct xdp_md *ctx, __u32 svc)
{
	return name_core(ctx, 1, svc, BB_EV_XDP);
}

/* The hook (enum bb_event_hook) rides in svc's second byte. */
__noinline int bb_name_tc(struct __sk_buff *skb, __u32 svc)
{
	return name_core(skb, 0, svc & 0xff, (svc >> 8) & 0xff);
}

/*
 * What bb_addr_xdp() and bb_addr_tc() found: a verdict (enum bb_verdict), BB_GENERAL,
 * or a hit for the entry program to decide (BB_ADDR_HIT and the bits beside it).
 * Inside them, addr_only()'s usual hit in a filter that raises events is its verdict
 * with BB_ADDR_EVENT and the address's bits, for addr_event() to raise it.
 */
#define BB_GENERAL		(-1)		/* the general path decides: nothing counted */
#define BB_ADDR_HIT		(1 << 8)	/* packets, family, lookups counted */
#define BB_ADDR_HIT_V6		(1 << 9)	/* the address is IPv6 */
#define BB_ADDR_HIT_DROP	(1 << 10)	/* the filter drops hits (BB_HDR_F_DROP) */
#define BB_ADDR_HIT_EVENTS	(1 << 11)	/* the filter raises events (BB_HDR_F_EVENTS) */
#define BB_ADDR_EVENT		(1 << 12)	/* a usual hit decided, its event to raise */
#define BB_ADDR_HIT_OFF(v)	(((v) >> 16) & 63)	/* where the address is in the packet */

/* Where a packet with no VLAN tag holds its addresses: the source, then the destination. */
#define BB_ADDR_OFF(v4, dir)	(14 + ((v4) ? 12 : 8) + ((dir) == BB_INGRESS ? 0 : (v4) ? 4 : 16))

/*
 * A hit that addr_probe() found, decided as hit_decide() and verdict() decide it
 * when it is the usual one: no confirmation to ask, no allowlist entry in the filter
 * that hit, no daemon counting hits by list; with BB_ADDR_EVENT when the filter raises
 * events (what it looked up in *h, for addr_event()). Any other: the word for the
 * entry program to decide it with (BB_ADDR_HIT ..., addr_decide()).
 */
static __always_inline int addr_hit_usual(void *filter, const struct bb_header *hdr,
					  struct bb_stats *st, int dir, const int v4,
					  struct bb_hit_seen *h)
{
	const struct bb_allow_header *ah;
	__u32 flags = hdr->flags, idx;
	int v;

	if (!(flags & BB_HDR_F_CONFIRM)) {
		idx = BB_FIRST_BLOCK + hdr->nblocks;
		ah = hdr->allow_blocks ? bpf_map_lookup_elem(filter, &idx) : NULL;
		if ((!ah || !ah->items) && !confirm_daemon_beats()) {
			if (dir != BB_INGRESS)
				st->ip_dst_hits++;
			else if (v4)
				st->ip4_hits++;
			else
				st->ip6_hits++;
			if (flags & BB_HDR_F_DROP) {
				st->dropped++;
				v = BB_DROP;
			} else {
				st->flagged++;
				st->passed++;
				v = BB_FLAG;
			}
			if (!(flags & BB_HDR_F_EVENTS))
				return v;
			h->filter = filter;
			h->hdr = hdr;
			h->ah = ah;
			h->st = st;
			return v | BB_ADDR_EVENT | (v4 ? 0 : BB_ADDR_HIT_V6) |
			       BB_ADDR_OFF(v4, dir) << 16;
		}
	}
	return BB_ADDR_HIT | (v4 ? 0 : BB_ADDR_HIT_V6) |
	       (flags & BB_HDR_F_DROP ? BB_ADDR_HIT_DROP : 0) |
	       (flags & BB_HDR_F_EVENTS ? BB_ADDR_HIT_EVENTS : 0) | BB_ADDR_OFF(v4, dir) << 16;
}

/*
 * The address at addr (of a packet with no VLAN tag) in the open filter, as
 * bb_match_ip4() and bb_match_ip6() look it up when the filter probes at most one
 * prefix length of the family, counted as bloomblock_core() counts it. Specialised
 * per family (v4 a constant) and holding only the counters, the hash, the filter and
 * its header across the block's lookup: the four registers a call leaves alone.
 */
static __always_inline int addr_probe(void *filter, const struct bb_header *hdr,
				      const __u8 *addr, int dir, const int v4, __u32 hook,
				      struct bb_hit_seen *seen)
{
	__u32 idx, n = v4 ? hdr->n_v4_plens : hdr->n_v6_plens;
	__u32 plen = v4 ? hdr->v4_plens[0] : hdr->v6_plens[0];
	const struct bb_block *blk;
	struct bb_stats *st;
	__u64 h, hi, lo;

	st = stats_of(hook);
	if (n > 1 || !st)
		return BB_GENERAL;
	st->packets++;
	if (v4)
		st->ipv4++;
	else
		st->ipv6++;
	if ((hdr->flags & (v4 ? BB_HDR_F_V4_SHORT : BB_HDR_F_V6_SHORT)) &&
	    short_hit(filter, v4, addr))
		return addr_hit_usual(filter, hdr, st, dir, v4, seen);
	if (!n) {
		st->passed++;
		return BB_PASS;
	}
	if (v4) {
		h = bb_hash_ip4_word(bb_key_ip4_word(addr, plen), hdr->seed);
	} else {
		bb_key_ip6_words(addr, plen, &hi, &lo);
		h = bb_hash_ip6_words(hi, lo, plen, hdr->seed);
	}
	idx = BB_FIRST_BLOCK + bb_block_of(h, hdr->nblocks);
	st->lookups++;
	blk = bpf_map_lookup_elem(filter, &idx);
	if (!blk || !bb_block_test(blk, h, hdr->k)) {
		st->passed++;
		return BB_PASS;
	}
	return addr_hit_usual(filter, hdr, st, dir, v4, seen);
}

/*
 * The packet most links carry, against the filter most lists make: Ethernet with no
 * VLAN tag, an IPv4 or IPv6 header, a valid filter that probes at most one prefix
 * length of the family (a list of /32s or /128s, with or without short prefixes)
 * and whose mode asks for one address of the packet and nothing more (no service
 * ports, not both addresses). Counted and looked up as bloomblock_core() counts and
 * looks it up, in a path of its own: the filter opened first, while only the
 * packet's bounds are live, then addr_probe(); no parse of what a packet's other
 * checks need, no loop around the block. A miss and the usual hit are decided here;
 * any other hit goes back to the entry program (BB_ADDR_HIT ...), which decides it
 * (addr_decide()) in the call chain the general path's hits have. BB_GENERAL, with
 * nothing counted, for any other packet or filter.
 */
static __always_inline int addr_only(void *data, void *data_end, int dir, __u32 hook,
				     struct bb_hit_seen *h)
{
	struct ethhdr *eth = data;
	const struct bb_header *hdr;
	struct ipv6hdr *ip6h;
	struct iphdr *iph;
	__u32 zero = 0;
	void *filter;

	filter = bpf_map_lookup_elem(&filters, &zero);
	if (!filter)
		return BB_GENERAL;
	hdr = bpf_map_lookup_elem(filter, &zero);
	if (!hdr || hdr->magic != BB_MAGIC || hdr->abi_version != BB_ABI_VERSION ||
	    !hdr->nblocks || (hdr->flags & (BB_HDR_F_SERVICES | BB_HDR_F_ADDR_BOTH)))
		return BB_GENERAL;
	if ((void *)(eth + 1) > data_end)
		return BB_GENERAL;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		iph = (void *)(eth + 1);
		if ((void *)(iph + 1) > data_end || iph->version != 4 || iph->ihl < 5 ||
		    (void *)iph + iph->ihl * 4 > data_end)
			return BB_GENERAL;
		if (dir == BB_INGRESS)
			return addr_probe(filter, hdr, (const __u8 *)&iph->saddr, BB_INGRESS, 1,
					  hook, h);
		return addr_probe(filter, hdr, (const __u8 *)&iph->daddr, BB_EGRESS, 1, hook, h);
	}
	if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		ip6h = (void *)(eth + 1);
		if ((void *)(ip6h + 1) > data_end || ip6h->version != 6)
			return BB_GENERAL;
		if (dir == BB_INGRESS)
			return addr_probe(filter, hdr, (const __u8 *)&ip6h->saddr, BB_INGRESS, 0,
					  hook, h);
		return addr_probe(filter, hdr, (const __u8 *)&ip6h->daddr, BB_EGRESS, 0, hook, h);
	}
	return BB_GENERAL;
}

/*
 * The event of a usual hit that addr_only() decided (v: its verdict, BB_ADDR_EVENT and
 * the address's bits; h: what it looked up): event_begin(), its addresses from the
 * packet's (no ports, no key). Returns the verdict.
 */
static __always_inline int addr_event(void *pctx, int xdp, void *data, void *data_end, int v,
				      int dir, __u32 hook, const struct bb_hit_seen *h)
{
	__u32 alen = v & BB_ADDR_HIT_V6 ? 16 : 4, src, what;
	const __u8 *saddr, *daddr;
	struct bb_event *ev;

	/* the source and the destination, one after the other in either header */
	src = BB_ADDR_HIT_OFF(v) - (dir == BB_INGRESS ? 0 : alen);
	v &= 0xff;
	if (src > 63)
		return v;
	saddr = data + src;
	if ((void *)(saddr + 2 * alen) > data_end)
		return v;
	daddr = saddr + alen;
	what = dir == BB_INGRESS ? BB_EV_SRC : BB_EV_DST;
	ev = event_begin(pctx, xdp, h, what << 8 | (v == BB_DROP ? BB_EV_DROPPED : BB_EV_FLAGGED),
			 0, hook);
	if (!ev)
		return v;
	if (alen == 4) {
		ev->family = 4;
		bb_store64(ev->saddr, bb_load32(saddr));
		bb_store64(ev->saddr + 8, 0);
		bb_store64(ev->daddr, bb_load32(daddr));
		bb_store64(ev->daddr + 8, 0);
	} else {
		ev->family = 6;
		bb_store64(ev->saddr, bb_load64(saddr));
		bb_store64(ev->saddr + 8, bb_load64(saddr + 8));
		bb_store64(ev->daddr, bb_load64(daddr));
		bb_store64(ev->daddr + 8, bb_load64(daddr + 8));
	}
	ev->sport = 0;
	ev->dport = 0;
	event_end(ev, h);
	return v;
}

/*
 * addr_only() per hook family: a global function, verified once on its own and
 * compiled apart from the general path, so that neither the compiler's merging of
 * the two nor the verifier's walk of the general path from each of its exits makes
 * the other dearer. A usual hit's event is raised here too (addr_event()).
 */
__noinline int bb_addr_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct bb_hit_seen h;
	int v = addr_only(data, data_end, BB_INGRESS, BB_EV_XDP, &h);

	if (v != BB_GENERAL && !(v & BB_ADDR_HIT) && (v & BB_ADDR_EVENT))
		v = addr_event(ctx, 1, data, data_end, v, BB_INGRESS, BB_EV_XDP, &h);
	return v;
}

__noinline int bb_addr_tc(struct __sk_buff *skb, int dir)
{
	void *data = (void *)(long)skb->data, *data_end = (void *)(long)skb->data_end;
	struct bb_hit_seen h;
	__u32 hook;
	int v;

	dir = dir == BB_INGRESS ? BB_INGRESS : BB_EGRESS;
	hook = dir == BB_INGRESS ? BB_EV_TC_INGRESS : BB_EV_TC_EGRESS;
	v = addr_only(data, data_end, dir, hook, &h);
	if (v != BB_GENERAL && !(v & BB_ADDR_HIT) && (v & BB_ADDR_EVENT))
		v = addr_event(skb, 0, data, data_end, v, dir, hook, &h);
	return v;
}

/*
 * A hit that addr_only() found (v: BB_ADDR_HIT ...): decided as addr_hit() and
 * verdict() decide one, from the entry program, with the event's flow key when the
 * filter raises events. An allowed address or a confirmed false positive passes:
 * with no service ports there is nothing else to check.
 */
static __always_inline int addr_decide(void *pctx, void *data, void *data_end, int v, int dir,
				       __u32 hook, int xdp)
{
	__u32 zero = 0, what = dir == BB_INGRESS ? BB_EV_SRC : BB_EV_DST, alen, src;
	struct bb_scratch *sc;
	const __u8 *addr;
	struct bb_packet pkt;
	struct bb_stats *st;
	__u64 a, b = 0;
	int r;

	alen = v & BB_ADDR_HIT_V6 ? 16 : 4;
	/* the source and the destination, one after the other in either header */
	src = BB_ADDR_HIT_OFF(v) - (dir == BB_INGRESS ? 0 : alen);
	if (src > 63)
		return BB_PASS;
	pkt.saddr = data + src;
	if ((void *)(pkt.saddr + 2 * alen) > data_end)
		return BB_PASS;
	pkt.daddr = pkt.saddr + alen;
	addr = dir == BB_INGRESS ? pkt.saddr : pkt.daddr;
	if (v & BB_ADDR_HIT_V6) {
		a = bb_load64(addr);
		b = bb_load64(addr + 8);
		what |= 6 << 8;
		pkt.l3_proto = ETH_P_IPV6;
	} else {
		a = bb_load32(addr);
		what |= 4 << 8;
		pkt.l3_proto = ETH_P_IP;
	}
	if (v & BB_ADDR_HIT_EVENTS) {
		sc = bpf_map_lookup_elem(&scratch, &zero);
		if (sc) {
			pkt.sport = 0;	/* an address hit's event has no ports */
			pkt.dport = 0;
			flow_key(&sc->flow, &pkt);
		}
	}
	r = xdp ? bb_hit_xdp(pctx, what, a, b, 0) : bb_hit_tc(pctx, what | hook << 16, a, b, 0);
	st = stats_of(hook);
	if (!st)
		return BB_PASS;
	if ((r & 1) && (v & BB_ADDR_HIT_DROP)) {
		st->dropped++;
		return BB_DROP;
	}
	if (r & 1)
		st->flagged++;
	st->passed++;
	return r & 1 ? BB_FLAG : BB_PASS;
}

/*
 * The first program: parse, the address check, a DNS query's name, and for TLS and
 * HTTP what to go on with (*next, BB_TAIL). Every path that ends here counts what
 * it did.
 */
static __always_inline int bloomblock_core(void *data, void *data_end, int dir,
					   struct bb_next *next, void *pctx, __u32 hook, int xdp)
{
	struct bb_cursor cur = { .pos = data, .end = data_end };
	struct bb_packet pkt;
	struct bb_ctx c;
	__u32 zero = 0;
	int ret, hit = 0;

	c.sc = NULL;
	c.allow = 0;
	c.pctx = pctx;
	c.hook = hook;
	c.xdp = xdp;
	c.st = stats_of(hook);
	if (!c.st)
		return BB_PASS;
	c.st->packets++;

	ret = bb_parse_packet(&cur, &pkt);
	if (pkt.vlans)
		c.st->vlan++;
	if (ret != BB_PARSE_OK) {
		if (ret == BB_PARSE_NON_IP)
			c.st->non_ip++;
		else if (ret == BB_PARSE_TRUNCATED)
			c.st->truncated++;
		else
			c.st->malformed++;
		c.st->passed++;
		return BB_PASS;
	}
	if (!open_filter(&c)) {
		c.st->no_filter++;
		c.st->passed++;
		return BB_PASS;
	}

	/* The peer's address: the source at ingress, the destination at egress. */
	if (pkt.l3_proto == ETH_P_IP)
		c.st->ipv4++;
	else
		c.st->ipv6++;
	if (dir == BB_INGRESS || (c.hdr->flags & BB_HDR_F_ADDR_BOTH)) {
		hit = match_addr(&c, &pkt, pkt.saddr);
		if (hit) {
			/* an allowed address is as if unlisted: the other checks go on; so
			 * is a confirmed false positive */
			hit = addr_hit(&c, &pkt, pkt.saddr, BB_EV_SRC) & 1;
		}
	}
	if (!hit && (dir == BB_EGRESS || (c.hdr->flags & BB_HDR_F_ADDR_BOTH))) {
		hit = match_addr(&c, &pkt, pkt.daddr);
		if (hit) {
			hit = addr_hit(&c, &pkt, pkt.daddr, BB_EV_DST) & 1;
		}
	}
	if (!hit && (c.hdr->flags & BB_HDR_F_SERVICES)) {
		c.sc = bpf_map_lookup_elem(&scratch, &zero);
		next->svc = c.sc ? service_of(c.filter, c.sc, &cur, &pkt, data) : BB_SVC_NONE;
		if (next->svc == BB_SVC_QUIC) {
			hit = check_quic(&c, &pkt, data_end);
		} else if (next->svc == BB_SVC_DNS) {
			/* small enough to check here, with no call and no second look
			 * at the filter */
			if (check_dns(&c, &pkt, data_end) == BB_FOUND_NAME) {
				ret = match_found(&c, BB_SVC_DNS, &pkt);
				return ret == BB_RESET ? BB_ANSWER : ret;
			}
		} else if (next->svc != BB_SVC_NONE) {
			next->payload_off = pkt.payload - data;
			next->payload_len = pkt.payload_len;
			next->seq_flags = pkt.seq | (__u64)pkt.tcp_flags << 32;
			if (next->svc == BB_SVC_TLS) {
				flow_key(&c.sc->flow, &pkt);
				c.sc->flow_slot = bb_flow_slot(&c.sc->flow);
			} else if (c.hdr->flags & BB_HDR_F_EVENTS) {
				flow_key(&c.sc->flow, &pkt);	/* an HTTP event's */
			}
			return BB_TAIL;	/* to bb_service_xdp() or bb_service_tc() */
		}
	}
	return verdict(&c, hit);
}

/*
 * A ClientHello's or an HTTP request's name (struct bb_next): find it in the
 * payload the first program found and match it in place; BB_TAIL: an HTTP
 * request's URL next.
 */
static __always_inline int service_core(void *data, void *data_end, int svc, __u32 payload_off,
					__u32 payload_len, __u64 seq_flags,
					void *pctx, __u32 hook, int xdp)
{
	struct bb_packet pkt = {};
	struct bb_ctx c = {};
	__u32 zero = 0;
	int found;

	c.pctx = pctx;
	c.hook = hook;
	c.xdp = xdp;
	c.st = stats_of(hook);
	c.sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!c.st || !c.sc)
		return BB_PASS;
	c.sc->hook = hook;	/* for the URL program's event and counters */
	/*
	 * The bounds service_of() checked, again for this function's verifier walk.
	 * Through memory first, as there: what the parsers' checks would learn of a
	 * copy in a register would split their walk.
	 */
	payload_off = bb_forget(c.sc->key, payload_off);
	payload_len = bb_forget(c.sc->key, payload_len);
	if (payload_off > BB_PAYLOAD_OFF_MAX || payload_len > 0xffff)
		return verdict(&c, 0);
	if (!open_filter(&c) || !(c.hdr->flags & BB_HDR_F_SERVICES))
		return verdict(&c, 0);	/* the filter was swapped meanwhile */
	pkt.payload = data + payload_off;
	pkt.payload_len = payload_len;
	pkt.seq = (__u32)seq_flags;
	pkt.tcp_flags = seq_flags >> 32;
	if (svc == BB_SVC_TLS)
		found = check_tls(&c, &pkt, data_end);
	else
		found = check_http(&c, &pkt, data_end);
	if (found == BB_FOUND_NAME)
		return match_found(&c, svc, NULL);	/* the flow key is core's */
	return tcp_verdict(&c, found == BB_FOUND_DROP);
}

/*
 * The URL program: host suffixes times path prefixes of the request in scratch. A
 * hit passes when the allowlist holds the URL (the same enumeration) or the host.
 */
static __always_inline int url_core(void *pctx, int xdp)
{
	struct bb_ctx c = {}, a;
	__u32 zero = 0;
	int hit, allowed = 0, conf = 0;

	c.pctx = pctx;
	c.xdp = xdp;
	c.sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!c.sc)
		return BB_PASS;
	c.hook = xdp ? BB_EV_XDP : c.sc->hook;	/* service_core()'s */
	c.sc->hook = c.hook;			/* where bb_confirm() counts */
	c.st = stats_of(c.hook);
	if (!c.st)
		return BB_PASS;
	if (!open_filter(&c))
		return verdict(&c, 0);
	hit = bb_match_url(&c, c.sc->name_len, c.sc->path_len, c.sc->path_full);
	if (hit) {
		c.st->url_hits++;
		if (allow_open(&c, &a, BB_HDR_F_URLS | BB_HDR_F_NAMES) &&
		    (bb_match_name(&a, c.sc->name_len) ||
		     bb_match_url(&a, c.sc->name_len, c.sc->path_len, c.sc->path_full))) {
			c.st->allowed++;
			hit = 0;
			allowed = 1;
		}
		if (!allowed && (c.hdr->flags & BB_HDR_F_CONFIRM)) {
			conf = bb_confirm(BB_EV_URL, 0, 0, 1 + c.sc->name_len + c.sc->path_len);
			hit = conf == BB_CONFIRM_R_DROP;
		} else if (!allowed) {
			bb_confirm(BB_EV_URL | BB_CONFIRM_COUNT, 0, 0,
				   1 + c.sc->name_len + c.sc->path_len);
		}
		/* raised after the verdict, from the scratch: a call here, after the
		 * enumerations, would take the program past the verifier's budget */
		if (c.hdr->flags & BB_HDR_F_EVENTS)
			c.sc->url_event = BB_EV_URL << 8 | event_verdict(c.hdr, allowed, conf);
	}
	hit = tcp_verdict(&c, hit);
	if (c.sc->url_event) {
		if ((c.sc->url_event & 0xff) && xdp)
			bb_event_xdp(pctx, c.sc->url_event, 1 + c.sc->name_len + c.sc->path_len);
		else if (c.sc->url_event & 0xff)
			bb_event_tc(pctx, c.sc->url_event, 1 + c.sc->name_len + c.sc->path_len,
				    c.hook);
		c.sc->url_event = 0;
	}
	return hit;
}

/* A tail call that did not happen (no program in the slot): the packet passes. */
static __always_inline int tail_call_failed(__u32 hook)
{
	struct bb_stats *st = stats_of(hook);

	if (st)
		st->passed++;
	return BB_PASS;
}

static __always_inline int xdp_action(int v)
{
	return v == BB_DROP || v == BB_RESET ? XDP_DROP : XDP_PASS;
}

/*
 * The URL program's tail-call table, one per hook family, one slot. Userspace fills
 * it after loading (bb_url_tables_fill()), not libbpf from a static initialiser: an
 * instance loads only the families its hooks need, and a table cannot point at a
 * program that was not loaded.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 3);		/* BB_URL_SLOT, BB_ANSWER_SLOT, BB_RESET_SLOT */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} url_xdp SEC(".maps");

SEC("xdp")
int bloomblock_xdp_url(struct xdp_md *ctx)
{
	int v = url_core(ctx, 1);

	if (v == BB_RESET)
		bpf_tail_call_static(ctx, &url_xdp, BB_RESET_SLOT);
	return xdp_action(v);	/* no reset program: dropped, as without answers */
}

/*
 * Answers (--answer reject|sinkhole): a DNS query the filter dropped is turned into its
 * own answer in place and sent back out of the interface it came in on (XDP_TX). A
 * program of its own, reached by a tail call from the entry program on that verdict
 * only: it re-reads the packet with its own verifier budget, and the entry program,
 * near its budget, pays one call. Never an amplifier: the answer goes to the query's
 * own source, is never longer than the query (the packet is only cut: where a sinkhole
 * record would not fit in the query's own bytes the answer is NOERROR with no record,
 * "no data", which says as much as 0.0.0.0 and agrees with it), leaves at
 * most a rate a CPU (the events' token bucket, its own), and only a plain query is
 * answered (QR 0, opcode QUERY, one question, no answer or authority records, at most
 * the OPT record, which the answer leaves out: no EDNS in, none out); the rest, and
 * a query past the rate, is dropped as without answers, and counted.
 */
#define BB_ANSWER_UDP_MAX	(8 + BB_DNS_HDR_LEN + 256 + 4 + 28)	/* the longest answer */

/*
 * The answers' token bucket, per CPU: the events' (struct bb_event_bucket) and the
 * tick (bpf_jiffies64(), one load) of its last clock read. The coarse clock moves
 * only at a tick, and its read costs a call into the timekeeping code (~30 ns with
 * cold caches, as an answer's are): it is read once a tick, and within the tick the
 * bucket's last reading is the time.
 */
struct bb_answer_bucket {
	struct bb_event_bucket b;
	__u64 jiffies;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bb_answer_bucket);
} answer_bucket SEC(".maps");

/*
 * The interfaces (by index) where a frame sent back with XDP_TX is lost: a veth whose
 * peer runs no XDP program, so no NAPI for XDP frames (load finds them, and fills this).
 * An answer made there passes, marked in its metadata (BB_ANSWER_META), and the tc
 * helper beside XDP sends it back out of the interface: the answer leaves from tc.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u8);
} tx_via_tc SEC(".maps");

#define BB_ANSWER_META	0xbb7e5e71U	/* XDP to tc: "this is an answer: send it back" */
#define BB_META_BYTES	8		/* the metadata XDP leaves the tc helper */


/*
 * The ones' complement sum of len bytes from p onto sum, 16 bytes a step in four
 * 32-bit loads (max16 steps at most), in the CPU's byte order: the sum does not
 * depend on it, so folded (csum_fold()) it is the checksum as the bytes of the
 * packet hold it (RFC 1071), to store as it is.
 */
static __always_inline __u64 csum_span(const __u8 *p, const void *end, __u32 len, __u64 sum,
					const __u32 max16)
{
	__u64 left = len;
	__u32 i;

	for (i = 0; i < max16; i++) {
		if (left < 16 || (void *)(p + 16) > end)
			break;
		sum += (__u64)*(const __u32 *)p + *(const __u32 *)(p + 4) +
		       *(const __u32 *)(p + 8) + *(const __u32 *)(p + 12);
		p += 16;
		left -= 16;
	}
	if (left >= 8 && (void *)(p + 8) <= end) {
		sum += (__u64)*(const __u32 *)p + *(const __u32 *)(p + 4);
		p += 8;
		left -= 8;
	}
	if (left >= 4 && (void *)(p + 4) <= end) {
		sum += *(const __u32 *)p;
		p += 4;
		left -= 4;
	}
	if (left >= 2 && (void *)(p + 2) <= end) {
		sum += *(const __u16 *)p;
		p += 2;
		left -= 2;
	}
	if (left == 1 && (void *)(p + 1) <= end)
		sum += *p;	/* the first byte of a last 16-bit word padded with zero */
	return sum;
}

/* csum_span() of an answer's bytes: up to BB_ANSWER_UDP_MAX. */
static __always_inline __u64 csum_bytes(const __u8 *p, const void *end, __u32 len, __u64 sum)
{
	return csum_span(p, end, len, sum, BB_ANSWER_UDP_MAX / 16 + 1);
}

/* v & mask, done where the verifier sees it (the compiler would fold it into an add) */
static __always_inline __u32 bounded(__u32 v, const __u32 mask)
{
#ifdef __BPF__
	asm volatile("%0 &= %1" : "+r"(v) : "i"(mask));
#else
	v &= mask;	/* the fuzzers' userspace build (tests/fuzz/bpf_user.h) */
#endif
	return v;
}

static __always_inline __u16 csum_fold(__u64 sum)
{
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/* The ones' complement sum of an IPv4 header with no options: its five words. */
static __always_inline __u64 csum_ip4hdr(const bb_iphdr *iph)
{
	const __u32 *w = (const __u32 *)iph;

	return (__u64)w[0] + w[1] + w[2] + w[3] + w[4];
}

/*
 * The ones' complement sum of the UDP pseudo-header of the addresses at addrs (IPv4:
 * the two of 4 bytes; else 16), the protocol and the length, as csum_bytes() sums.
 */
static __always_inline __u64 csum_pseudo(const void *addrs, int v4, __u32 proto_len)
{
	const __u32 *w = addrs;
	__u64 sum = proto_len;

	sum += (__u64)w[0] + w[1];
	if (!v4)
		sum += (__u64)w[2] + w[3] + w[4] + w[5] + w[6] + w[7];
	return sum;
}

/* Two fields of the packet swapped, by their size: 2, 4, 6 (MACs) or 16 bytes. */
static __always_inline void swap16(__u16 *a, __u16 *b)
{
	__u16 t = *a;

	*a = *b;
	*b = t;
}

static __always_inline void swap32(__u32 *a, __u32 *b)
{
	__u32 t = *a;

	*a = *b;
	*b = t;
}

static __always_inline void swap64(__u64 *a, __u64 *b)
{
	__u64 t = *a;

	*a = *b;
	*b = t;
}

/*
 * Where the question of the DNS message at dns_off ends (past its type and class),
 * counted from the message's start; 0 when it is not a plain query's. A global
 * function: the walk's exits are verified once, not once per state of its caller.
 */
static __always_inline int dns_question_end(void *data, void *end, __u32 dns_off)
{
	__u8 *dns = data + bounded(dns_off, 127), *q;
	__u32 i;

	q = dns + BB_DNS_HDR_LEN;
	if ((void *)q > end)
		return 0;
	/* QR 0 and opcode QUERY; one question; nothing else but an OPT record */
	if ((dns[2] & 0xf8) || dns[4] || dns[5] != 1 || dns[6] || dns[7] || dns[8] || dns[9] ||
	    dns[10] || dns[11] > 1)
		return 0;
	/* its name: labels up to the zero */
	for (i = 0; i < 128; i++) {
		__u8 l;

		if ((void *)(q + 1) > end)
			return 0;
		l = *q;
		if (!l)
			break;
		if (l > 63)		/* a pointer: no query has one */
			return 0;
		q += 1 + l;
		if (q - dns > BB_DNS_HDR_LEN + 255)
			return 0;
	}
	if (i == 128 || (void *)(q + 5) > end)
		return 0;
	return (int)(q + 5 - dns);
}

__noinline int bb_dns_question_end(struct xdp_md *ctx, __u32 dns_off)
{
	return dns_question_end((void *)(long)ctx->data, (void *)(long)ctx->data_end, dns_off);
}

__noinline int bb_dns_question_end_tc(struct __sk_buff *skb, __u32 dns_off)
{
	return dns_question_end((void *)(long)skb->data, (void *)(long)skb->data_end, dns_off);
}

/*
 * The query at dns_off (msg_len bytes by the IP header, its question ending at qend)
 * made its own answer in place and turned around: the DNS message, the MACs, the
 * addresses and ports, the lengths, the IPv4 header's checksum; not the cut nor the
 * UDP checksum, which are the hook's. The answer's DNS length, or -1.
 */
static __always_inline int answer_fill(void *data, void *end, __u32 dns_off, __u32 qend,
				       __u32 msg_len, __u32 l3v4s)
{
	__u32 rr = 0, rcode = 3, qtype, len;
	__u32 l3 = bounded(l3v4s, 63), v4 = l3v4s >> 8 & 1, l4 = bounded(dns_off - 8, 127);
	__u32 sinkhole = l3v4s >> 9 & 1;
	bb_ethhdr *eth = data;
	bb_udphdr *uh;
	__u8 *dns, *a;

	if (qend < BB_DNS_HDR_LEN + 5 || qend > msg_len || qend > 300)
		return -1;
	dns = data + bounded(dns_off, 127);
	if ((void *)(dns + BB_DNS_HDR_LEN) > end)
		return -1;
	a = data + bounded(dns_off + qend - 4, 511);	/* the question's type */
	if ((void *)(a + 2) > end)
		return -1;
	qtype = (__u32)a[0] << 8 | a[1];
	a = data + bounded(dns_off + qend, 511);	/* the answer record's place */
	if (sinkhole) {
		rcode = 0;		/* NOERROR: the record, or no data for other types */
		rr = qtype == 1 ? 16 : qtype == 28 ? 28 : 0;
		if (qend + rr > msg_len)	/* it would grow the packet: no data instead */
			rr = 0;
	}
	/* in words, each stored in the packet's byte order (the bytes as RFC 1035 has them) */
	if (rr) {
		if ((void *)(a + 16) > end)
			return -1;
		*(__u16 *)a = bpf_htons(0xc000 | BB_DNS_HDR_LEN);  /* a pointer to the question */
		*(__u16 *)(a + 2) = bpf_htons(qtype);
		*(__u32 *)(a + 4) = bpf_htonl(1 << 16);	/* class IN; the TTL's high half */
		*(__u32 *)(a + 8) = bpf_htonl(BB_ANSWER_TTL << 16 | (rr - 12));  /* its length */
		*(__u32 *)(a + 12) = 0;	/* 0.0.0.0, or :: in 16 bytes of zeros */
		if (rr == 28) {
			if ((void *)(a + 28) > end)
				return -1;
			bb_store64(a + 16, 0);
			*(__u32 *)(a + 24) = 0;
		}
	}
	/* QR; RD as asked; AA, TC 0; RA; the RCODE; one question (as it was), the record
	 * or none, no authority records (as it was), no additional ones */
	*(__u16 *)(dns + 2) = bpf_htons(0x8080 | (dns[2] & 0x01) << 8 | rcode);
	*(__u32 *)(dns + 4) = bpf_htonl(1 << 16 | (rr ? 1 : 0));
	*(__u32 *)(dns + 8) = 0;
	len = qend + rr;

	/* back to where it came from: the addresses and ports swapped */
	if ((void *)(eth + 1) > end)
		return -1;
	swap32((__u32 *)eth->h_dest, (__u32 *)eth->h_source);
	swap16((__u16 *)(eth->h_dest + 4), (__u16 *)(eth->h_source + 4));
	if (v4) {
		bb_iphdr *iph = data + ((l3 - 12) & 63);

		if ((void *)(iph + 1) > end)
			return -1;
		swap32(&iph->saddr, &iph->daddr);
		iph->tot_len = bpf_htons(20 + 8 + len);
		iph->ttl = 64;
		iph->frag_off &= bpf_htons(0x4000);	/* DF as it was; no fragment */
		iph->check = 0;
		iph->check = csum_fold(csum_ip4hdr(iph));
	} else {
		bb_ipv6hdr *ip6h = data + ((l3 - 8) & 63);

		if ((void *)(ip6h + 1) > end)
			return -1;
		swap64((__u64 *)&ip6h->saddr, (__u64 *)&ip6h->daddr);
		swap64((__u64 *)&ip6h->saddr + 1, (__u64 *)&ip6h->daddr + 1);
		ip6h->payload_len = bpf_htons(8 + len);
		ip6h->hop_limit = 64;
	}
	uh = data + l4;
	if ((void *)(uh + 1) > end)
		return -1;
	swap16(&uh->source, &uh->dest);
	uh->len = bpf_htons(8 + len);
	uh->check = 0;
	return (int)len;
}

/*
 * The query at dns_off (msg_len bytes by the IP header, its question ending at qend)
 * made its own answer in place and turned around (answer_fill()), cut to its new end,
 * checksummed: XDP_TX; XDP_DROP when anything does not hold. l3v4s: where its
 * addresses start, bit 8 IPv4, bit 9 a sinkhole answer.
 */
static __always_inline int answer_build(struct xdp_md *ctx, __u32 dns_off, __u32 qend,
					__u32 msg_len, __u32 l3v4s)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	__u32 l3 = bounded(l3v4s, 63), v4 = l3v4s >> 8 & 1, l4 = bounded(dns_off - 8, 127);
	int len = answer_fill(data, end, dns_off, qend, msg_len, l3v4s), cut;
	bb_udphdr *uh;
	__u64 sum;
	__u16 c;

	if (len < 0)
		return XDP_DROP;
	/*
	 * Cut to the answer's end (Ethernet padding too), then the UDP checksum. The
	 * frame is all in data..end: a program not loaded for multi-buffer frames
	 * (xdp.frags) is never given one, and what it tail-calls is of its kind; an
	 * answer as long as its query (no EDNS, no record) needs no cut at all.
	 */
	cut = (int)bounded(l4 + 8 + len, 1023) - (int)(end - data);
	if (cut && bpf_xdp_adjust_tail(ctx, cut))
		return XDP_DROP;
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	if (data + l3 + 32 > end)	/* the addresses: an answer goes on past them */
		return XDP_DROP;
	/* the pseudo-header: the addresses, the protocol, the UDP length */
	sum = csum_pseudo(data + l3, v4, bpf_htons(17) + bpf_htons(8 + len));
	sum = csum_bytes(data + l4, end, 8 + len, sum);
	uh = data + l4;
	if ((void *)(uh + 1) > end)
		return XDP_DROP;
	c = csum_fold(sum);
	uh->check = c ? c : 0xffff;	/* 0 is "no checksum": all ones says zero */
	return XDP_TX;
}

/* Where a query to answer holds what the answer is made from (answer_parse()). */
struct bb_answer_at {
	__u32 l3;		/* its addresses */
	__u32 l4;		/* its UDP header */
	__u32 v4;
	__u32 msg_len;		/* the UDP payload by the IP header, at most the frame's */
};

/*
 * The only frames a DNS query is answered in: Ethernet, up to BB_MAX_VLANS tags, IPv4
 * with no options or IPv6 with no extension header, not a fragment, UDP. Not the
 * general parse (bb_parse_packet(), bb_parse_l4()) and the answer's checks after it,
 * but what they come to, in the answer's own program: the same frames, the same
 * figures, no TCP, no extension headers to walk. 0 for any other frame (answer_unfit).
 * IPv4 options and IPv6 extension headers are not answered: the IPv6 length would
 * leave them out, a routing header's addresses would not be the way back.
 */
static __always_inline int answer_parse(void *data, void *end, struct bb_answer_at *at)
{
	struct bb_cursor cur = { .pos = data, .end = end };
	struct bb_packet pkt;
	bb_udphdr *uh;
	void *l3_end;

	if (bb_parse_eth(&cur, &pkt) != BB_PARSE_OK)
		return 0;
	if (pkt.l3_proto == ETH_P_IP) {
		bb_iphdr *iph = cur.pos;

		if ((void *)(iph + 1) > end || iph->version != 4 || iph->ihl != 5 ||
		    iph->protocol != IPPROTO_UDP || (bpf_ntohs(iph->frag_off) & 0x1fff))
			return 0;
		uh = (void *)(iph + 1);
		l3_end = (void *)iph + bpf_ntohs(iph->tot_len);
		if (l3_end > end || l3_end < (void *)uh)
			l3_end = end;
		at->l3 = (void *)&iph->saddr - data;
		at->v4 = 1;
	} else {
		bb_ipv6hdr *ip6h = cur.pos;

		if ((void *)(ip6h + 1) > end || ip6h->version != 6 || ip6h->nexthdr != IPPROTO_UDP)
			return 0;
		uh = (void *)(ip6h + 1);
		l3_end = (void *)uh + bpf_ntohs(ip6h->payload_len);
		if (l3_end > end)
			l3_end = end;
		at->l3 = (void *)&ip6h->saddr - data;
		at->v4 = 0;
	}
	if ((void *)(uh + 1) > end)
		return 0;
	at->l4 = (void *)uh - data;
	at->msg_len = l3_end > (void *)(uh + 1) ? l3_end - (void *)(uh + 1) : 0;
	return at->l3 <= 63 && at->l4 <= 119 && at->msg_len <= 0xffff;
}

/*
 * The answers' rate by the config of filter (the live one), shared by their programs:
 * 0 when over it (counted).
 */
static __always_inline int answer_take(struct bb_stats *st, void *filter)
{
	__u32 zero = 0, idx = BB_CONFIG_INDEX;
	struct bb_answer_bucket *b = bpf_map_lookup_elem(&answer_bucket, &zero);
	const struct bb_config *cfg = bpf_map_lookup_elem(filter, &idx);
	__u64 tick = bpf_jiffies64(), now;

	if (!b || !cfg)
		return 0;
	now = tick == b->jiffies && b->b.last_ns ? b->b.last_ns : bpf_ktime_get_coarse_ns();
	b->jiffies = tick;
	if (!bucket_take(&b->b, now,
			 cfg->answer_cost_ns ? cfg->answer_cost_ns : 1000000000U / BB_ANSWER_RATE,
			 cfg->answer_burst ? cfg->answer_burst : BB_ANSWER_RATE)) {
		st->answer_limited++;
		return 0;
	}
	return 1;
}

/* answer_take() for the live filter. */
static __always_inline int answer_admit(struct bb_stats *st)
{
	__u32 zero = 0;
	void *filter = bpf_map_lookup_elem(&filters, &zero);

	return filter && answer_take(st, filter);
}

static __always_inline int answer_xdp(struct xdp_md *ctx)
{
	__u32 zero = 0, qend, ifindex;
	struct bb_stats *st = stats_of(BB_EV_XDP);
	void *filter = bpf_map_lookup_elem(&filters, &zero);
	const struct bb_header *hdr;
	struct bb_answer_at at;
	int ret;

	if (!st || !filter)
		return XDP_DROP;
	hdr = bpf_map_lookup_elem(filter, &zero);
	if (!hdr)
		return XDP_DROP;
	if (!answer_parse((void *)(long)ctx->data, (void *)(long)ctx->data_end, &at))
		goto unfit;
	qend = bb_dns_question_end(ctx, at.l4 + 8);
	if (!qend || qend > at.msg_len)
		goto unfit;
	if (!answer_take(st, filter))
		return XDP_DROP;
	ret = answer_build(ctx, at.l4 + 8, qend, at.msg_len, at.l3 | at.v4 << 8 |
			   (hdr->flags & BB_HDR_F_SINKHOLE ? 1U << 9 : 0));
	if (ret != XDP_TX)
		goto unfit;
	/* XDP_TX would be lost here: the tc helper sends it, and counts it (where there
	 * is no metadata, generic XDP, XDP_TX goes through the stack and arrives) */
	ifindex = ctx->ingress_ifindex;
	if (bpf_map_lookup_elem(&tx_via_tc, &ifindex) && !bpf_xdp_adjust_meta(ctx, -BB_META_BYTES)) {
		__u32 *m = (void *)(long)ctx->data_meta;

		if ((void *)(m + 2) > (void *)(long)ctx->data)
			goto unfit;
		m[0] = BB_ANSWER_META;
		return XDP_PASS;
	}
	st->dns_answered++;
	return XDP_TX;
unfit:
	st->answer_unfit++;
	return XDP_DROP;
}

SEC("xdp")
int bloomblock_xdp_answer(struct xdp_md *ctx)
{
	return answer_xdp(ctx);
}

/*
 * Resets (--answer reject|sinkhole): a ClientHello or an HTTP request the filter
 * dropped resets its connection on both sides, client and server, the segment itself
 * made into the resets: never larger than it, only ever to its own two ends, within
 * the answers' rate (the same bucket), and never for a segment that could be an
 * answer itself (only one that carries data and an ACK, without SYN or RST; the
 * resets carry neither data nor anything to answer). The server's reset goes on the
 * segment's way with its own sequence number (the server's next expected: no data of
 * it arrived), the client's goes back with the segment's ACK as its sequence number
 * (the server sent nothing since the handshake): both exact, as RFC 5961 wants a
 * reset that is acted on at once. Neither carries options: a timestamp turned around
 * would be the wrong clock for PAWS (RFC 7323 has a reset without one accepted).
 *
 * An XDP program sends one frame per frame, so at XDP the segment becomes the
 * server's reset and passes (XDP_PASS), carrying in its metadata that the client is
 * owed one, which the small tc ingress program load attaches beside XDP
 * (bloomblock_tc_xdp_reset) sends as a copy turned around. Where the driver keeps
 * no metadata, the segment becomes the client's reset (XDP_TX) and the server's
 * half-open connection stays until its own timeout: counted in tcp_reset_half.
 * At tc both are sent from the one program (bloomblock_tc_reset).
 */
#define BB_RESET_META	0xbb7e5e70U	/* XDP to tc: "and the client's reset" */

struct bb_reset_meta {
	__u32 magic;	/* BB_RESET_META, or BB_ANSWER_META (then len is not read) */
	__u32 len;	/* the payload the reset segment had: the client reset's ACK */
};
_Static_assert(sizeof(struct bb_reset_meta) == BB_META_BYTES, "the metadata's size");

/* May the segment be reset: TCP data with an ACK, no SYN, no RST, no fragment. */
static __always_inline int reset_fits(const struct bb_packet *pkt)
{
	return pkt->l4_proto == IPPROTO_TCP && !pkt->fragment && pkt->payload_len &&
	       pkt->payload_len <= 0xffff && (pkt->tcp_flags & 0x10) && !(pkt->tcp_flags & 0x06);
}

/*
 * The segment at l4 (len bytes of payload by the IP header) made a reset in place,
 * its options and data cut, checksummed: the server's (XDP_PASS) or, with bit 9 of
 * l3v4t, turned around into the client's (XDP_TX). l3v4t: where the addresses start,
 * bit 8 IPv4. XDP_DROP when anything does not hold. A global function.
 */
__noinline int bb_reset_build(struct xdp_md *ctx, __u32 l4, __u32 len, __u32 l3v4t)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	__u32 l3 = bounded(l3v4t, 63), v4 = l3v4t >> 8 & 1, turn = l3v4t >> 9 & 1;
	bb_ethhdr *eth = data;
	bb_tcphdr *th;
	__u32 seq, ack;
	__u64 sum;

	l4 = bounded(l4, 127);
	th = data + l4;
	if ((void *)(th + 1) > end || (void *)(eth + 1) > end)
		return XDP_DROP;
	seq = th->seq;
	ack = th->ack_seq;
	if (turn) {
		swap32((__u32 *)eth->h_dest, (__u32 *)eth->h_source);
		swap16((__u16 *)(eth->h_dest + 4), (__u16 *)(eth->h_source + 4));
		swap16(&th->source, &th->dest);
		th->seq = ack;
		th->ack_seq = bpf_htonl(bpf_ntohl(seq) + len);
	}
	((__u8 *)th)[12] = 5 << 4;	/* 20 bytes: no options */
	((__u8 *)th)[13] = 0x14;	/* RST, ACK */
	th->window = 0;
	th->check = 0;
	th->urg_ptr = 0;
	if (v4) {
		bb_iphdr *iph = data + ((l3 - 12) & 63);
		__u32 hl = bounded(l4 - (l3 - 12), 63);

		if ((void *)(iph + 1) > end)
			return XDP_DROP;
		if (turn) {
			swap32(&iph->saddr, &iph->daddr);
			iph->ttl = 64;
		}
		iph->tot_len = bpf_htons(hl + 20);
		iph->check = 0;
		iph->check = csum_fold(csum_bytes((void *)iph, end, hl, 0));
	} else {
		bb_ipv6hdr *ip6h = data + ((l3 - 8) & 63);

		if ((void *)(ip6h + 1) > end)
			return XDP_DROP;
		if (turn) {
			swap64((__u64 *)&ip6h->saddr, (__u64 *)&ip6h->daddr);
			swap64((__u64 *)&ip6h->saddr + 1, (__u64 *)&ip6h->daddr + 1);
			ip6h->hop_limit = 64;
		}
		ip6h->payload_len = bpf_htons(20);
	}
	if (bpf_xdp_adjust_tail(ctx, (int)(l4 + 20) - (int)bpf_xdp_get_buff_len(ctx)))
		return XDP_DROP;
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	sum = csum_bytes(data + l3, end, v4 ? 8 : 32, bpf_htons(IPPROTO_TCP) + bpf_htons(20));
	sum = csum_bytes(data + l4, end, 20, sum);
	th = data + l4;
	if ((void *)(th + 1) > end)
		return XDP_DROP;
	th->check = csum_fold(sum);
	return turn ? XDP_TX : XDP_PASS;
}

static __always_inline int reset_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct bb_cursor cur = { .pos = data, .end = end };
	__u32 l3, l4, len;
	struct bb_stats *st = stats_of(BB_EV_XDP);
	struct bb_reset_meta *m;
	struct bb_packet pkt;
	int v4, meta, ret;

	if (!st)
		return XDP_DROP;
	if (bb_parse_packet(&cur, &pkt) != BB_PARSE_OK || bb_parse_l4(&cur, &pkt) != BB_PARSE_OK ||
	    !reset_fits(&pkt))
		goto unfit;
	v4 = pkt.l3_proto == ETH_P_IP;
	l3 = (void *)pkt.saddr - data;
	l4 = pkt.l4 - data;
	if (l3 > 63 || l4 > 119 || (!v4 && l4 - (l3 - 8) != 40))
		goto unfit;	/* IPv6 extension headers: not (as answers) */
	len = pkt.payload_len;
	if (!answer_admit(st))
		return XDP_DROP;
	meta = !bpf_xdp_adjust_meta(ctx, -(int)sizeof(*m));
	ret = bb_reset_build(ctx, l4, len, l3 | (__u32)v4 << 8 | (meta ? 0 : 1U << 9));
	if (ret == XDP_DROP)
		goto unfit;
	if (meta) {
		m = (void *)(long)ctx->data_meta;
		if ((void *)(m + 1) > (void *)(long)ctx->data)
			goto unfit;
		m->magic = BB_RESET_META;
		m->len = len;
	} else {
		st->tcp_reset_half++;
	}
	st->tcp_reset++;
	return ret;
unfit:
	st->answer_unfit++;
	return XDP_DROP;
}

SEC("xdp")
int bloomblock_xdp_reset(struct xdp_md *ctx)
{
	return reset_xdp(ctx);
}

/*
 * A TLS or HTTP packet's name: a global function, which the verifier checks once
 * on its own, from its arguments' types alone (the context and scalars: struct
 * bb_next), not once per state of the caller's walk; and a call, not a tail call:
 * a tail call costs ~20 ns, a call a few. BB_TAIL: an HTTP request's URL next.
 */
__noinline int bb_service_xdp(struct xdp_md *ctx, int svc, __u32 payload_off, __u32 payload_len,
			      __u64 seq_flags)
{
	return service_core((void *)(long)ctx->data, (void *)(long)ctx->data_end, svc,
			    payload_off, payload_len, seq_flags, ctx, BB_EV_XDP, 1);
}

SEC("xdp")
int bloomblock_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct bb_next next = { .svc = BB_SVC_NONE };
	int v;

	v = bb_addr_xdp(ctx);
	if (v != BB_GENERAL && (v & BB_ADDR_HIT))
		v = addr_decide(ctx, data, data_end, v, BB_INGRESS, BB_EV_XDP, 1);
	if (v != BB_GENERAL)
		return xdp_action(v);
	v = bloomblock_core(data, data_end, BB_INGRESS, &next, ctx, BB_EV_XDP, 1);
	if (v == BB_TAIL)
		v = bb_service_xdp(ctx, next.svc, next.payload_off, next.payload_len,
				   next.seq_flags);
	if (v == BB_NAME_HIT)
		v = bb_name_xdp(ctx, next.svc);
	if (v == BB_TAIL) {
		bpf_tail_call_static(ctx, &url_xdp, BB_URL_SLOT);
		v = tail_call_failed(BB_EV_XDP);
	}
	if (v == BB_ANSWER) {
		bpf_tail_call_static(ctx, &url_xdp, BB_ANSWER_SLOT);
		v = BB_DROP;	/* no answer program: dropped, as without answers */
	}
	if (v == BB_RESET)
		bpf_tail_call_static(ctx, &url_xdp, BB_RESET_SLOT);
	return xdp_action(v);
}

/*
 * tc: drop, or pass with the configured mark when flagged. A pass is TC_ACT_UNSPEC, not
 * TC_ACT_OK: "no opinion", so the hook's filters after ours (a higher priority number)
 * still run, as they would without bloomblock; TC_ACT_OK would end the classification
 * and skip them. With no filter after ours the packet goes on as with TC_ACT_OK.
 */
static __always_inline int tc_action(struct __sk_buff *skb, int v)
{
	__u32 zero = 0, idx = BB_CONFIG_INDEX;
	const struct bb_config *cfg;
	void *filter;

	if (v == BB_DROP)
		return TC_ACT_SHOT;
	if (v == BB_FLAG) {
		filter = bpf_map_lookup_elem(&filters, &zero);
		cfg = filter ? bpf_map_lookup_elem(filter, &idx) : NULL;
		if (cfg && cfg->mark)
			skb->mark = cfg->mark;
	}
	return TC_ACT_UNSPEC;
}

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 4);	/* BB_URL_SLOT, BB_ANSWER_SLOT, BB_RESET_SLOT, BB_ANSWER_EGRESS_SLOT */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} url_tc SEC(".maps");

SEC("tc")
int bloomblock_tc_url(struct __sk_buff *skb)
{
	int v = url_core(skb, 0);

	if (v == BB_RESET)
		bpf_tail_call_static(skb, &url_tc, BB_RESET_SLOT);
	return tc_action(skb, v == BB_RESET ? BB_DROP : v);
}

/*
 * Resets at tc. A socket buffer's checksums may be the device's work: an offloaded
 * one (CHECKSUM_PARTIAL, what a local socket sends: its field holds the pseudo-header's
 * sum only, for the NIC to finish) or a whole-packet sum a NIC handed up
 * (CHECKSUM_COMPLETE, skb->csum). The kernel's checksum helpers keep both right,
 * where a checksum written whole would break them; so every change here is made
 * through them, and the bytes cut are summed for them (they must be in the linear
 * part: BB_RESET_MAX at most, as tc_run() pulls).
 */
#define BB_RESET_MAX	1920	/* within BB_TC_PULL, past the headers */

/* ones' complement a - b, 16-bit values as the packet holds them: a checksum delta */
static __always_inline __u32 csum_delta16(__u16 a, __u16 b)
{
	return (__u32)a + (__u16)~b;
}

static __always_inline __u32 csum_fold32(__u64 sum)
{
	sum = (sum & 0xffffffff) + (sum >> 32);
	return (__u32)((sum & 0xffffffff) + (sum >> 32));
}

/*
 * The segment at l4 of the IP datagram at ip (bit 8: IPv4) that ends at l3_end made
 * the server's reset in place: its options and data cut, RST and ACK, window 0.
 * 0, or -1 with the packet unfit (the caller drops it). A global function.
 */
__noinline int bb_reset_cut_tc(struct __sk_buff *skb, __u32 l4, __u32 l3_end, __u32 ip_v4)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	__u32 ip = bounded(ip_v4, 127), v4 = ip_v4 >> 8 & 1, n, cut;
	__u16 w12, win, urg, nw12, len0, len1;
	__u8 *th;

	l4 = bounded(l4, 127);
	th = data + l4;
	if ((void *)(th + 20) > end || l3_end < l4 + 20 || l3_end - l4 - 20 > BB_RESET_MAX)
		return -1;
	n = l3_end - l4 - 20;
	if ((void *)(th + 20 + n) > end)
		return -1;	/* not all in the linear part */
	cut = csum_fold32(csum_span(th + 20, end, n, 0, BB_RESET_MAX / 16 + 1));
	w12 = *(__u16 *)(th + 12);
	win = *(__u16 *)(th + 14);
	urg = *(__u16 *)(th + 18);
	th[12] = 5 << 4;	/* no options */
	th[13] = 0x14;		/* RST, ACK */
	nw12 = *(__u16 *)(th + 12);
	*(__u16 *)(th + 14) = 0;
	*(__u16 *)(th + 18) = 0;
	if (v4) {
		bb_iphdr *iph = data + ip;

		if ((void *)(iph + 1) > end)
			return -1;
		len0 = iph->tot_len;
		len1 = bpf_htons(l4 - ip + 20);
		iph->tot_len = len1;
	} else {
		bb_ipv6hdr *ip6h = data + ip;

		if ((void *)(ip6h + 1) > end)
			return -1;
		len0 = ip6h->payload_len;
		len1 = bpf_htons(20);
		ip6h->payload_len = len1;
	}
	if (bpf_skb_change_tail(skb, l4 + 20, 0))
		return -1;
	/* the bytes cut out of the sum (a no-op for an offloaded checksum), and the
	 * field's change into a device's whole-packet sum */
	bpf_l4_csum_replace(skb, l4 + 16, 0, ~cut, 0);
	bpf_csum_update(skb, cut);
	bpf_l4_csum_replace(skb, l4 + 16, w12, nw12, 2);
	bpf_l4_csum_replace(skb, l4 + 16, win, 0, 2);
	bpf_l4_csum_replace(skb, l4 + 16, urg, 0, 2);
	bpf_l4_csum_replace(skb, l4 + 16, bpf_htons(l3_end - l4), bpf_htons(20),
			    BPF_F_PSEUDO_HDR | 2);
	if (v4)
		bpf_l3_csum_replace(skb, ip + 10, len0, len1, 2);
	else
		bpf_csum_update(skb, csum_delta16(len1, len0));	/* no IPv6 checksum */
	return 0;
}

/*
 * A reset (bb_reset_cut_tc()'s) turned around, or back: MACs, addresses and ports
 * swapped (which no sum sees), the sequence number from seq_from to seq_to and the
 * ACK from ack_from to ack_to. 0 or -1.
 */
static __always_inline int reset_turn(struct __sk_buff *skb, __u32 l4, __u32 ip, __u32 v4,
				      __u32 seq_from, __u32 seq_to, __u32 ack_from, __u32 ack_to)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	bb_ethhdr *eth = data;
	bb_tcphdr *th = data + l4;

	if ((void *)(th + 1) > end || (void *)(eth + 1) > end)
		return -1;
	swap32((__u32 *)eth->h_dest, (__u32 *)eth->h_source);
	swap16((__u16 *)(eth->h_dest + 4), (__u16 *)(eth->h_source + 4));
	swap16(&th->source, &th->dest);
	th->seq = seq_to;
	th->ack_seq = ack_to;
	if (v4) {
		bb_iphdr *iph = data + ip;

		if ((void *)(iph + 1) > end)
			return -1;
		swap32(&iph->saddr, &iph->daddr);
	} else {
		bb_ipv6hdr *ip6h = data + ip;

		if ((void *)(ip6h + 1) > end)
			return -1;
		swap64((__u64 *)&ip6h->saddr, (__u64 *)&ip6h->daddr);
		swap64((__u64 *)&ip6h->saddr + 1, (__u64 *)&ip6h->daddr + 1);
	}
	bpf_l4_csum_replace(skb, l4 + 16, seq_from, seq_to, 4);
	bpf_l4_csum_replace(skb, l4 + 16, ack_from, ack_to, 4);
	return 0;
}

/*
 * The server's reset at l4 (len: the data its segment had) sent, as a copy turned
 * around, to the client: out of the device at ingress, into its own stack at egress
 * (bit 9 of ip_v4e; bits 0-7 where the IP header is, bit 8 IPv4). The reset itself
 * stays the server's. 0, or -1 when no copy left. A global function.
 */
__noinline int bb_reset_client_tc(struct __sk_buff *skb, __u32 l4, __u32 len, __u32 ip_v4e)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	__u32 ip = bounded(ip_v4e, 127), v4 = ip_v4e >> 8 & 1, egress = ip_v4e >> 9 & 1;
	__u32 seq, ack, ack1;
	bb_tcphdr *th;
	int err;

	l4 = bounded(l4, 127);
	th = data + l4;
	if ((void *)(th + 1) > end)
		return -1;
	seq = th->seq;
	ack = th->ack_seq;
	ack1 = bpf_htonl(bpf_ntohl(seq) + len);
	if (reset_turn(skb, l4, ip, v4, seq, ack, ack, ack1))
		return -1;
	err = bpf_clone_redirect(skb, skb->ifindex, egress ? BPF_F_INGRESS : 0);
	if (reset_turn(skb, l4, ip, v4, ack, seq, ack1, ack))
		return -1;
	return err ? -1 : 0;
}

/* Where a segment's headers are, for the reset functions; 0 when it cannot be reset. */
static __always_inline int reset_where(struct __sk_buff *skb, struct bb_packet *pkt, __u32 *ip,
				       __u32 *l4, __u32 *l3_end)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct bb_cursor cur = { .pos = data, .end = end };
	__u32 addrs;

	if (bb_parse_packet(&cur, pkt) != BB_PARSE_OK || bb_parse_l4(&cur, pkt) != BB_PARSE_OK)
		return 0;
	addrs = (const void *)pkt->saddr - data;
	asm volatile("" : "+r"(addrs));	/* a scalar before it is taken from: not pointer maths */
	*ip = addrs - (pkt->l3_proto == ETH_P_IP ? 12 : 8);
	*l4 = pkt->l4 - data;
	*l3_end = pkt->l3_end - data;
	/* IPv6 extension headers: not reset (as at XDP) */
	return *ip <= 127 && *l4 <= 127 && pkt->l4_proto == IPPROTO_TCP &&
	       (pkt->l3_proto == ETH_P_IP || *l4 - *ip == 40);
}

static __always_inline int reset_tc(struct __sk_buff *skb)
{
	__u32 zero = 0, ip, l4, l3_end, len, v4, egress;
	struct bb_scratch *sc = bpf_map_lookup_elem(&scratch, &zero);
	struct bb_stats *st = sc ? stats_of(sc->hook) : NULL;	/* the entry program's hook */
	struct bb_packet pkt;

	if (!st || !sc)
		return TC_ACT_SHOT;
	egress = sc->hook == BB_EV_TC_EGRESS;
	if (!reset_where(skb, &pkt, &ip, &l4, &l3_end) || !reset_fits(&pkt))
		goto unfit;
	if (!answer_admit(st))
		return TC_ACT_SHOT;
	v4 = pkt.l3_proto == ETH_P_IP;
	len = pkt.payload_len;
	if (bb_reset_cut_tc(skb, l4, l3_end, ip | v4 << 8))
		goto unfit;
	st->tcp_reset++;
	if (bb_reset_client_tc(skb, l4, len, ip | v4 << 8 | egress << 9))
		st->tcp_reset_half++;
	return TC_ACT_UNSPEC;	/* the server's reset, on the segment's way */
unfit:
	st->answer_unfit++;
	return TC_ACT_SHOT;
}

SEC("tc")
int bloomblock_tc_reset(struct __sk_buff *skb)
{
	return reset_tc(skb);
}

/*
 * DNS answers at tc: the answer made as at XDP (answer_fill()), the packet cut, the UDP
 * checksum as the socket buffer wants it, and sent back: out of the device at ingress
 * (bpf_redirect()), into the local stack at egress (BPF_F_INGRESS: the asking client
 * is local and gets it at once). A checksum the device is to finish
 * (CHECKSUM_PARTIAL: a local socket's query) keeps its pseudo-header sum only, and it
 * stays what the stack and the device expect; there is no telling it from BPF but by
 * its effect, so a helper that changes only a finished checksum is asked first
 * (bpf_l4_csum_replace() by a difference: a no-op on a partial one).
 */
__noinline int bb_answer_build_tc(struct __sk_buff *skb, __u32 dns_off, __u32 qend,
				  __u32 msg_len, __u32 l3v4s)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	__u32 l3 = bounded(l3v4s, 63), v4 = l3v4s >> 8 & 1, l4 = bounded(dns_off - 8, 127);
	__u16 before, after, c;
	bb_udphdr *uh = data + l4;
	int len, partial;
	__u64 sum;

	if ((void *)(uh + 1) > end)
		return -1;
	before = uh->check;
	bpf_l4_csum_replace(skb, l4 + 6, 0, 1, 0);
	data = (void *)(long)skb->data;
	end = (void *)(long)skb->data_end;
	uh = data + l4;
	if ((void *)(uh + 1) > end)
		return -1;
	after = uh->check;
	partial = before == after;
	len = answer_fill(data, end, dns_off, qend, msg_len, l3v4s);
	if (len < 0)
		return -1;
	if (bpf_skb_change_tail(skb, bounded(l4 + 8 + len, 1023), 0))
		return -1;
	data = (void *)(long)skb->data;
	end = (void *)(long)skb->data_end;
	sum = csum_bytes(data + l3, end, v4 ? 8 : 32, bpf_htons(17) + bpf_htons(8 + len));
	if (!partial)
		sum = csum_bytes(data + l4, end, 8 + len, sum);
	uh = data + l4;
	if ((void *)(uh + 1) > end)
		return -1;
	c = csum_fold(sum);
	uh->check = partial ? (__u16)~c : c ? c : 0xffff;
	return 0;
}

static __always_inline int answer_tc(struct __sk_buff *skb, int egress)
{
	__u32 zero = 0, qend;
	struct bb_stats *st = stats_of(egress ? BB_EV_TC_EGRESS : BB_EV_TC_INGRESS);
	void *filter = bpf_map_lookup_elem(&filters, &zero);
	const struct bb_header *hdr;
	struct bb_answer_at at;

	if (!st || !filter)
		return TC_ACT_SHOT;
	hdr = bpf_map_lookup_elem(filter, &zero);
	if (!hdr)
		return TC_ACT_SHOT;
	if (!answer_parse((void *)(long)skb->data, (void *)(long)skb->data_end, &at))
		goto unfit;	/* as at XDP */
	qend = bb_dns_question_end_tc(skb, at.l4 + 8);
	if (!qend || qend > at.msg_len)
		goto unfit;
	if (!answer_take(st, filter))
		return TC_ACT_SHOT;
	if (bb_answer_build_tc(skb, at.l4 + 8, qend, at.msg_len, at.l3 | at.v4 << 8 |
			       (hdr->flags & BB_HDR_F_SINKHOLE ? 1U << 9 : 0)))
		goto unfit;
	st->dns_answered++;
	return bpf_redirect(skb->ifindex, egress ? BPF_F_INGRESS : 0);
unfit:
	st->answer_unfit++;
	return TC_ACT_SHOT;
}

SEC("tc")
int bloomblock_tc_answer_ingress(struct __sk_buff *skb)
{
	return answer_tc(skb, 0);
}

SEC("tc")
int bloomblock_tc_answer_egress(struct __sk_buff *skb)
{
	return answer_tc(skb, 1);
}

/*
 * Beside an XDP attachment, at tc ingress: a server's reset bloomblock_xdp_reset
 * passed with BB_RESET_META in its metadata gets the client's sent. Every other
 * packet passes untouched, at the cost of a look at its metadata.
 */
SEC("tc")
int bloomblock_tc_xdp_reset(struct __sk_buff *skb)
{
	struct bb_reset_meta *m = (void *)(long)skb->data_meta;
	__u32 ip, l4, l3_end, len;
	struct bb_stats *st;
	struct bb_packet pkt;

	if ((void *)(m + 1) > (void *)(long)skb->data ||
	    (m->magic != BB_RESET_META && m->magic != BB_ANSWER_META))
		return TC_ACT_UNSPEC;
	st = stats_of(BB_EV_XDP);	/* the XDP hook's answer, or the half of its reset */
	if (m->magic == BB_ANSWER_META) {
		m->magic = 0;
		if (st)
			st->dns_answered++;
		return bpf_redirect(skb->ifindex, 0);
	}
	len = m->len;
	m->magic = 0;
	if (!reset_where(skb, &pkt, &ip, &l4, &l3_end) || !(pkt.tcp_flags & 0x04) ||
	    bb_reset_client_tc(skb, l4, len, ip | (pkt.l3_proto == ETH_P_IP) << 8)) {
		if (st)
			st->tcp_reset_half++;
	}
	return TC_ACT_UNSPEC;
}

/* bb_service_xdp() for tc; the hook (enum bb_event_hook) rides in svc's second byte. */
__noinline int bb_service_tc(struct __sk_buff *skb, int svc, __u32 payload_off, __u32 payload_len,
			     __u64 seq_flags)
{
	return service_core((void *)(long)skb->data, (void *)(long)skb->data_end, svc & 0xff,
			    payload_off, payload_len, seq_flags, skb, ((__u32)svc >> 8) & 0xff, 0);
}

/*
 * tc sees GSO and GRO packets whose payload may not be in the linear part: pull
 * enough of it for a request's first bytes. Only non-linear packets pay.
 */
#define BB_TC_PULL 2048

static __always_inline int tc_run(struct __sk_buff *skb, int dir)
{
	struct bb_next next = { .svc = BB_SVC_NONE };
	__u32 hook = dir == BB_INGRESS ? BB_EV_TC_INGRESS : BB_EV_TC_EGRESS;
	int v;

	if (skb->data_end - skb->data < skb->len)
		bpf_skb_pull_data(skb, skb->len < BB_TC_PULL ? skb->len : BB_TC_PULL);
	v = bb_addr_tc(skb, dir);
	if (v != BB_GENERAL && (v & BB_ADDR_HIT))
		v = addr_decide(skb, (void *)(long)skb->data, (void *)(long)skb->data_end, v, dir,
				hook, 0);
	if (v != BB_GENERAL)
		return tc_action(skb, v);
	v = bloomblock_core((void *)(long)skb->data, (void *)(long)skb->data_end, dir, &next, skb,
			    hook, 0);
	if (v == BB_TAIL)
		v = bb_service_tc(skb, next.svc | (int)(hook << 8), next.payload_off,
				  next.payload_len, next.seq_flags);
	if (v == BB_NAME_HIT)
		v = bb_name_tc(skb, next.svc | hook << 8);
	if (v == BB_TAIL) {
		bpf_tail_call_static(skb, &url_tc, BB_URL_SLOT);
		v = tail_call_failed(hook);
	}
	if (v == BB_ANSWER) {
		if (dir == BB_INGRESS)
			bpf_tail_call_static(skb, &url_tc, BB_ANSWER_SLOT);
		else
			bpf_tail_call_static(skb, &url_tc, BB_ANSWER_EGRESS_SLOT);
		v = BB_DROP;	/* no answer program: dropped, as without answers */
	}
	if (v == BB_RESET) {
		bpf_tail_call_static(skb, &url_tc, BB_RESET_SLOT);
		v = BB_DROP;	/* no reset program: dropped, as without answers */
	}
	return tc_action(skb, v);
}

SEC("tc")
int bloomblock_tc_ingress(struct __sk_buff *skb)
{
	return tc_run(skb, BB_INGRESS);
}

SEC("tc")
int bloomblock_tc_egress(struct __sk_buff *skb)
{
	return tc_run(skb, BB_EGRESS);
}

char LICENSE[] SEC("license") = "GPL";

/* SPDX-License-Identifier: GPL-2.0 */
/* Hit events: the rate limit, the frame's first bytes, a record reserved and filled in place. */
#ifndef BB_EVENTS_BPF_H
#define BB_EVENTS_BPF_H

#include "filter.bpf.h"
#include "bb_mem.h"

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
	__u32 map_id;		/* the allowlist header's (which filter); 0: no allowlist table.
				 * A value, not the header's pointer: a pointer kept in a struct on
				 * the stack comes back from the 6.1 verifier as a scalar */
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
	ev->map_id = h->map_id;
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
	struct bb_scratch *sc = scratch_get();
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


#endif /* BB_EVENTS_BPF_H */

/* SPDX-License-Identifier: GPL-2.0 */
/* After a Bloom hit: the allowlist, confirm mode and the event, decided in one call. */
#ifndef BB_HIT_BPF_H
#define BB_HIT_BPF_H

#include "events.bpf.h"
#include "confirm.bpf.h"

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
	c.st = stats_of(c.sc->stage.hook);	/* hit_decide() set it */
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
	__u32 zero = 0, what = what_family & 0xff, allow_what;
	void *filter = bpf_map_lookup_elem(&filters, &zero);
	struct bb_scratch *sc = bpf_map_lookup_elem(&scratch, &zero);
	const struct bb_allow_header *ah;
	const struct bb_header *hdr;
	struct bb_stats *st = stats_of(hook);
	int allowed = 0, conf = 0, hit;

	hdr = filter ? bpf_map_lookup_elem(filter, &zero) : NULL;
	if (!hdr || !st || !sc)
		return 0;	/* unloaded meanwhile: what no filter does, pass */
	sc->stage.hook = hook;	/* the hook bb_allow_pass() and bb_confirm() count at */
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
	zero = BB_FIRST_BLOCK + hdr->nblocks;	/* the key's slot again (the stack, above) */
	ah = hdr->allow_blocks ? bpf_map_lookup_elem(filter, &zero) : NULL;
	if (ah && ah->items)
		allowed = bb_allow_pass(allow_what, a, b, ah->map_id);
	if (!allowed && (hdr->flags & BB_HDR_F_CONFIRM))
		conf = bb_confirm(what_family, a, b, key_len);
	else if (!allowed && confirm_daemon_beats())
		bb_confirm(what_family | BB_CONFIRM_COUNT, a, b, key_len);	/* by list */
	hit = !allowed && (!conf || conf == BB_CONFIRM_R_DROP);
	h->filter = filter;
	h->hdr = hdr;
	h->map_id = ah ? ah->map_id : 0;
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
	const struct bb_allow_header *ah;
	__u32 zero = 0, idx;
	struct bb_hit_seen h;

	h.filter = bpf_map_lookup_elem(&filters, &zero);
	h.st = stats_of(hook);
	h.hdr = h.filter ? bpf_map_lookup_elem(h.filter, &zero) : NULL;
	if (!h.hdr || !h.st || !(h.hdr->flags & BB_HDR_F_EVENTS))
		return 0;
	idx = BB_FIRST_BLOCK + h.hdr->nblocks;
	ah = h.hdr->allow_blocks ? bpf_map_lookup_elem(h.filter, &idx) : NULL;
	h.map_id = ah ? ah->map_id : 0;
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

/*
 * A hit of c's packet: bb_hit_xdp() or bb_hit_tc(), by xdp, the program's constant (not
 * c->xdp: c may live on the stack, and the verifier would walk the other family's call).
 */
static __always_inline int hit_call(const struct bb_ctx *c, const int xdp, __u32 what_family,
				    __u64 a, __u64 b, __u32 key_len)
{
	if (xdp)
		return bb_hit_xdp(c->pctx, what_family, a, b, key_len);
	return bb_hit_tc(c->pctx, what_family | c->hook << 16, a, b, key_len);
}

#endif /* BB_HIT_BPF_H */

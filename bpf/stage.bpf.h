/* SPDX-License-Identifier: GPL-2.0 */
/* What the stages share: the start from the scratch, a found name matched, the next tail call. */
#ifndef BB_STAGE_BPF_H
#define BB_STAGE_BPF_H

#include <linux/pkt_cls.h>

#include "hit.bpf.h"
#include "bb_parse.h"

/*
 * The datapath is a chain of programs (docs/DESIGN.md, Packet path): the entry program
 * (parse, the address check, counters) ends every packet that needs nothing more, and
 * tail-calls the stage a packet to a service port needs: DNS, TLS, HTTP, then URL,
 * answers and resets. Each stage is a program of its own, verified alone, and finds in
 * the scratch what the entry program left it (struct bb_stage). The packet was counted
 * (packets, its family, the address's lookups) by the entry program; the stage counts
 * its own checks and the verdict, as the entry program would have.
 */

/*
 * The protocols' checks find a name and leave it in the scratch key buffer; the
 * return value says what next.
 */
enum bb_found {
	BB_FOUND_NOTHING,	/* pass */
	BB_FOUND_NAME,		/* a name to match */
	BB_FOUND_DROP,		/* drop now: a retransmitted segment of a listed ClientHello */
};

/*
 * A stage's start: its context (c, for the hook of pctx's family), the scratch, the
 * counters of the hook the entry program ran at. 0 when one is missing (a map gone):
 * the packet passes, and there are no counters to say so.
 */
static __always_inline int stage_open(struct bb_ctx *c, void *pctx, const int xdp)
{
	c->pctx = pctx;
	c->xdp = xdp;
	c->allow = 0;
	c->ah = NULL;
	c->filter = NULL;
	c->hdr = NULL;
	c->sc = scratch_get();
	if (!c->sc)
		return 0;
	/* at tc the entry program's direction; two values, each a verifier state at most */
	c->hook = xdp ? BB_EV_XDP :
		  c->sc->stage.hook == BB_EV_TC_EGRESS ? BB_EV_TC_EGRESS : BB_EV_TC_INGRESS;
	c->st = stats_of(c->hook);
	return c->st != NULL;
}

/*
 * The payload the entry program found (struct bb_stage) in pkt, its bounds checked again
 * for this program's walk, and the live filter (looked up again: a reload may have
 * swapped it since the entry program looked). 0 when the stage cannot go on: the
 * payload is out of bounds or the filter screens no services now.
 */
static __always_inline int stage_packet(struct bb_ctx *c, void *data, struct bb_packet *pkt)
{
	const struct bb_stage *s = &c->sc->stage;
	__u32 off = s->payload_off, len = s->payload_len;

	if (off > BB_PAYLOAD_OFF_MAX || len > 0xffff)
		return 0;
	pkt->payload = data + off;
	pkt->payload_len = len;
	pkt->seq = s->seq;
	pkt->tcp_flags = s->tcp_flags;
	return open_filter(c) && (c->hdr->flags & BB_HDR_F_SERVICES);
}

/*
 * The name a protocol's check left in the scratch's key buffer, matched with its
 * parents; a hit decided (bb_hit_xdp(), bb_hit_tc(): the allowlist, confirm mode, the
 * event, whose addresses are the scratch's flow key). hit_call()'s word, 0: no hit.
 */
static __always_inline int name_hit(const struct bb_ctx *c, const int xdp, __u32 svc)
{
	if (!bb_match_name(c, c->sc->name_len))
		return 0;
	/* DNS, SNI, Host: their events' kinds in the order of the services */
	return hit_call(c, xdp, BB_EV_DNS + svc, 0, 0, 1 + c->sc->name_len);
}

/* A tail call that did not happen (no program in the slot): the packet passes, counted. */
static __always_inline int tail_call_failed(__u32 hook)
{
	struct bb_stats *st = stats_of(hook);

	if (st)
		st->passed++;
	return BB_PASS;
}

static __always_inline int xdp_action(int v)
{
	return v == BB_DROP || v == BB_RESET || v == BB_ANSWER ? XDP_DROP : XDP_PASS;
}

/*
 * Where a verdict goes next at XDP: the stage it names, by a tail call from which
 * there is no return, or the hook's action. A stage whose slot is empty: a name not
 * checked passes (counted, tail_call_failed()); an answer or a reset not made leaves
 * the drop it answers, as without --answer.
 */
static __always_inline int xdp_next(struct xdp_md *ctx, int v)
{
	switch (v) {
	case BB_TO_DNS:
		bpf_tail_call_static(ctx, &stages_xdp, BB_STAGE_DNS);
		return xdp_action(tail_call_failed(BB_EV_XDP));
	case BB_TO_TLS:
		bpf_tail_call_static(ctx, &stages_xdp, BB_STAGE_TLS);
		return xdp_action(tail_call_failed(BB_EV_XDP));
	case BB_TO_HTTP:
		bpf_tail_call_static(ctx, &stages_xdp, BB_STAGE_HTTP);
		return xdp_action(tail_call_failed(BB_EV_XDP));
	case BB_TO_URL:
		bpf_tail_call_static(ctx, &url_xdp, BB_URL_SLOT);
		return xdp_action(tail_call_failed(BB_EV_XDP));
	case BB_ANSWER:
		bpf_tail_call_static(ctx, &url_xdp, BB_ANSWER_SLOT);
		return XDP_DROP;
	case BB_RESET:
		bpf_tail_call_static(ctx, &url_xdp, BB_RESET_SLOT);
		return XDP_DROP;
	}
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

	if (v == BB_DROP || v == BB_RESET || v == BB_ANSWER)
		return TC_ACT_SHOT;
	if (v == BB_FLAG) {
		filter = bpf_map_lookup_elem(&filters, &zero);
		cfg = filter ? bpf_map_lookup_elem(filter, &idx) : NULL;
		if (cfg && cfg->mark)
			skb->mark = cfg->mark;
	}
	return TC_ACT_UNSPEC;
}

/* xdp_next() at tc, for the programs of hook (the tc egress answers have a slot of their own). */
static __always_inline int tc_next(struct __sk_buff *skb, int v, __u32 hook)
{
	switch (v) {
	case BB_TO_DNS:
		bpf_tail_call_static(skb, &stages_tc, BB_STAGE_DNS);
		return tc_action(skb, tail_call_failed(hook));
	case BB_TO_TLS:
		bpf_tail_call_static(skb, &stages_tc, BB_STAGE_TLS);
		return tc_action(skb, tail_call_failed(hook));
	case BB_TO_HTTP:
		bpf_tail_call_static(skb, &stages_tc, BB_STAGE_HTTP);
		return tc_action(skb, tail_call_failed(hook));
	case BB_TO_URL:
		bpf_tail_call_static(skb, &url_tc, BB_URL_SLOT);
		return tc_action(skb, tail_call_failed(hook));
	case BB_ANSWER:
		if (hook == BB_EV_TC_EGRESS)
			bpf_tail_call_static(skb, &url_tc, BB_ANSWER_EGRESS_SLOT);
		else
			bpf_tail_call_static(skb, &url_tc, BB_ANSWER_SLOT);
		return TC_ACT_SHOT;
	case BB_RESET:
		bpf_tail_call_static(skb, &url_tc, BB_RESET_SLOT);
		return TC_ACT_SHOT;
	}
	return tc_action(skb, v);
}

#endif /* BB_STAGE_BPF_H */

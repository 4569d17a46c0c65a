/* SPDX-License-Identifier: GPL-2.0 */
/* The TLS stage: a ClientHello walked to its SNI, across segments; the name matched. */
#ifndef BB_TLS_BPF_H
#define BB_TLS_BPF_H

#include "stage.bpf.h"

/* Delete the flow's walk, and count it out if there was one. */
static __always_inline void flow_forget(const struct bb_flow_key *key, __u32 slot)
{
	if (!bpf_map_delete_elem(&flows, key))
		__sync_fetch_and_add(&bb_pending[slot & ((1 << BB_PENDING_BITS) - 1)], -1);
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

/*
 * The TLS stage (bloomblock_xdp_tls, bloomblock_tc_tls): a ClientHello, or a later
 * segment of one, to a TLS port; its SNI and the SNI's parents matched, a hit decided.
 * A listed split ClientHello's walk stays in flows, marked, so that its
 * retransmissions drop too. *hook: the hook whose programs run it.
 */
static __always_inline int tls_stage(void *pctx, const int xdp, void *data, void *data_end,
				     __u32 *hook)
{
	struct bb_tls_walk *w;
	struct bb_packet pkt;
	struct bb_ctx c;
	int found, hit;

	*hook = xdp ? BB_EV_XDP : BB_EV_TC_INGRESS;
	if (!stage_open(&c, pctx, xdp))
		return BB_PASS;
	*hook = c.hook;
	if (!stage_packet(&c, data, &pkt))
		return verdict(&c, 0);
	found = check_tls(&c, &pkt, data_end);
	if (found != BB_FOUND_NAME)
		return tcp_verdict(&c, found == BB_FOUND_DROP);
	hit = name_hit(&c, xdp, BB_SVC_TLS) & 1;
	if (c.sc->flow_kept) {
		w = bpf_map_lookup_elem(&flows, &c.sc->flow);
		if (w && hit)
			w->blocked = 1;
		else if (w)
			flow_forget(&c.sc->flow, c.sc->flow_slot);
	}
	return tcp_verdict(&c, hit);
}

#endif /* BB_TLS_BPF_H */

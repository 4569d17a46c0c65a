/* SPDX-License-Identifier: GPL-2.0 */
/* The DNS stage: a query's question name, matched with its parents; a blocked one answered. */
#ifndef BB_DNS_BPF_H
#define BB_DNS_BPF_H

#include "stage.bpf.h"

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

/*
 * The DNS stage (bloomblock_xdp_dns, bloomblock_tc_dns): a query to a DNS port's name
 * and its parents, a hit decided; a query dropped with --answer goes on to the answer
 * stage (BB_ANSWER). *hook: the hook whose programs run it.
 */
static __always_inline int dns_stage(void *pctx, const int xdp, void *data, void *data_end,
				     __u32 *hook)
{
	struct bb_packet pkt;
	struct bb_ctx c;
	int v;

	*hook = xdp ? BB_EV_XDP : BB_EV_TC_INGRESS;
	if (!stage_open(&c, pctx, xdp))
		return BB_PASS;
	*hook = c.hook;
	if (!stage_packet(&c, data, &pkt) || check_dns(&c, &pkt, data_end) != BB_FOUND_NAME)
		return verdict(&c, 0);
	v = verdict(&c, name_hit(&c, xdp, BB_SVC_DNS) & 1);
	return v == BB_DROP && (c.hdr->flags & BB_HDR_F_ANSWER) ? BB_ANSWER : v;
}

#endif /* BB_DNS_BPF_H */

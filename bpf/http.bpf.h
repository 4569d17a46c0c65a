/* SPDX-License-Identifier: GPL-2.0 */
/* The HTTP stage: a request's Host, matched with its parents; on to the URL stage. */
#ifndef BB_HTTP_BPF_H
#define BB_HTTP_BPF_H

#include "stage.bpf.h"

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
 * The HTTP stage (bloomblock_xdp_http, bloomblock_tc_http): a request to an HTTP port,
 * its Host and the Host's parents matched, a hit decided. A request whose host is not
 * listed, or is a confirmed false positive, goes on to the URL stage (BB_TO_URL) when
 * the filter holds URLs; an allowed host passes with its URLs. *hook: the hook whose
 * programs run it.
 */
static __always_inline int http_stage(void *pctx, const int xdp, void *data, void *data_end,
				      __u32 *hook)
{
	struct bb_packet pkt;
	struct bb_ctx c;
	int r;

	*hook = xdp ? BB_EV_XDP : BB_EV_TC_INGRESS;
	if (!stage_open(&c, pctx, xdp))
		return BB_PASS;
	*hook = c.hook;
	if (!stage_packet(&c, data, &pkt) || check_http(&c, &pkt, data_end) != BB_FOUND_NAME)
		return verdict(&c, 0);
	r = name_hit(&c, xdp, BB_SVC_HTTP);
	if ((!r || (r & BB_DECIDE_FP)) && (c.hdr->flags & BB_HDR_F_URLS))
		return BB_TO_URL;
	return tcp_verdict(&c, r & 1);
}

#endif /* BB_HTTP_BPF_H */

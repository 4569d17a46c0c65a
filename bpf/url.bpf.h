/* SPDX-License-Identifier: GPL-2.0 */
/* The URL stage: an HTTP request's host suffixes times its path prefixes. */
#ifndef BB_URL_BPF_H
#define BB_URL_BPF_H

#include "stage.bpf.h"

/*
 * The URL stage (bloomblock_xdp_url, bloomblock_tc_url): host suffixes times path
 * prefixes of the request the HTTP stage left in the scratch. A hit passes when the
 * allowlist holds the URL (the same enumeration) or the host. *hook: the hook whose
 * programs run it.
 */
static __always_inline int url_stage(void *pctx, const int xdp, __u32 *hook)
{
	struct bb_ctx c = {}, a;
	int hit, allowed = 0, conf = 0;

	*hook = xdp ? BB_EV_XDP : BB_EV_TC_INGRESS;
	if (!stage_open(&c, pctx, xdp))
		return BB_PASS;
	*hook = c.hook;
	c.sc->stage.hook = c.hook;		/* where bb_confirm() counts */
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


#endif /* BB_URL_BPF_H */

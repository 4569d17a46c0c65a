// SPDX-License-Identifier: GPL-2.0
/*
 * The datapath's programs, XDP and tc, a stage each: parse, look addresses and names up
 * in the Bloom filter, verdict, count. Each program is verified alone and joined to the
 * next by a tail call through its family's stage table (stages_xdp, stages_tc); what it
 * passes on is in the scratch (struct bb_stage). docs/DESIGN.md, Packet path.
 *
 *   entry (bloomblock_xdp, _tc_ingress, _tc_egress)   entry.bpf.h: the address check,
 *       │                                             the parse, the dispatch by port
 *       ├─ UDP to a DNS port ───► dns     dns.bpf.h     ─► answer   answer.bpf.h
 *       ├─ TCP to a TLS port ───► tls     tls.bpf.h     ─► reset    reset.bpf.h
 *       └─ TCP to an HTTP port ─► http    http.bpf.h    ─► url      url.bpf.h  ─► reset
 *
 * The headers, by role: maps.bpf.h (every map), filter.bpf.h (the live filter's
 * lookups, verdicts), hit.bpf.h (after a hit: the allowlist, confirm.bpf.h, events.bpf.h),
 * stage.bpf.h (what the stages share), csum.bpf.h (checksums); include/ holds what is
 * compiled for userspace too (the parsers, the hashes, the lookups' order).
 *
 * Needs Linux 5.18: bpf_xdp_load_bytes() (a hit event's packet, 5.18), bpf_loop()
 * (5.17), the ring buffer (5.8), BPF_F_INNER_MAP (inner maps of any size, 5.10), calls
 * in programs that also tail-call (x86-64, 5.10), global functions (5.6),
 * BPF_F_MMAPABLE arrays (5.5), XDP bpf_links (5.9). And a CPU with efficient unaligned
 * access (x86-64, arm64): words are read at any offset (include/bb_mem.h).
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#include "entry.bpf.h"
#include "dns.bpf.h"
#include "tls.bpf.h"
#include "http.bpf.h"
#include "url.bpf.h"
#include "answer.bpf.h"
#include "reset.bpf.h"

/* ---- XDP: the entry program and its stages (stages_xdp) ---------------------------- */

SEC("xdp")
int bloomblock_xdp(struct xdp_md *ctx)
{
	return xdp_next(ctx, entry_xdp(ctx));
}

SEC("xdp")
int bloomblock_xdp_dns(struct xdp_md *ctx)
{
	__u32 hook;

	return xdp_next(ctx, dns_stage(ctx, 1, (void *)(long)ctx->data,
				       (void *)(long)ctx->data_end, &hook));
}

SEC("xdp")
int bloomblock_xdp_tls(struct xdp_md *ctx)
{
	__u32 hook;

	return xdp_next(ctx, tls_stage(ctx, 1, (void *)(long)ctx->data,
				       (void *)(long)ctx->data_end, &hook));
}

SEC("xdp")
int bloomblock_xdp_http(struct xdp_md *ctx)
{
	__u32 hook;

	return xdp_next(ctx, http_stage(ctx, 1, (void *)(long)ctx->data,
					(void *)(long)ctx->data_end, &hook));
}

SEC("xdp")
int bloomblock_xdp_url(struct xdp_md *ctx)
{
	__u32 hook;

	return xdp_next(ctx, url_stage(ctx, 1, &hook));
}

SEC("xdp")
int bloomblock_xdp_answer(struct xdp_md *ctx)
{
	return answer_xdp(ctx);
}

SEC("xdp")
int bloomblock_xdp_reset(struct xdp_md *ctx)
{
	return reset_xdp(ctx);
}

/* ---- tc: the entry programs of each direction and their stages (stages_tc) ---------- */

SEC("tc")
int bloomblock_tc_ingress(struct __sk_buff *skb)
{
	return tc_next(skb, entry_tc(skb, BB_INGRESS, BB_EV_TC_INGRESS), BB_EV_TC_INGRESS);
}

SEC("tc")
int bloomblock_tc_egress(struct __sk_buff *skb)
{
	return tc_next(skb, entry_tc(skb, BB_EGRESS, BB_EV_TC_EGRESS), BB_EV_TC_EGRESS);
}

SEC("tc")
int bloomblock_tc_dns(struct __sk_buff *skb)
{
	__u32 hook;
	int v = dns_stage(skb, 0, (void *)(long)skb->data, (void *)(long)skb->data_end, &hook);

	return tc_next(skb, v, hook);
}

SEC("tc")
int bloomblock_tc_tls(struct __sk_buff *skb)
{
	__u32 hook;
	int v = tls_stage(skb, 0, (void *)(long)skb->data, (void *)(long)skb->data_end, &hook);

	return tc_next(skb, v, hook);
}

SEC("tc")
int bloomblock_tc_http(struct __sk_buff *skb)
{
	__u32 hook;
	int v = http_stage(skb, 0, (void *)(long)skb->data, (void *)(long)skb->data_end, &hook);

	return tc_next(skb, v, hook);
}

SEC("tc")
int bloomblock_tc_url(struct __sk_buff *skb)
{
	__u32 hook;
	int v = url_stage(skb, 0, &hook);

	return tc_next(skb, v, hook);
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

SEC("tc")
int bloomblock_tc_reset(struct __sk_buff *skb)
{
	return reset_tc(skb);
}

/* Beside an XDP attachment, at tc ingress: the client's half of XDP's resets. */
SEC("tc")
int bloomblock_tc_xdp_reset(struct __sk_buff *skb)
{
	return reset_beside_xdp(skb);
}

char LICENSE[] SEC("license") = "GPL";

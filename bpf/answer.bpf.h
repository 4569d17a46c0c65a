/* SPDX-License-Identifier: GPL-2.0 */
/* The answer stage: a blocked DNS query turned into its own answer and sent back. */
#ifndef BB_ANSWER_BPF_H
#define BB_ANSWER_BPF_H

#include "stage.bpf.h"
#include "csum.bpf.h"

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

#define BB_ANSWER_META	0xbb7e5e71U	/* XDP to tc: "this is an answer: send it back" */
#define BB_META_BYTES	8		/* the metadata XDP leaves the tc helper */

/*
 * Where the question of the DNS message at dns_off ends (past its type and class),
 * counted from the message's start; 0 when it is not a plain query's. A global
 * function: the walk's exits are verified once, not once per state of its caller.
 */
static __always_inline int dns_question_end(void *data, void *end, __u32 dns_off)
{
	__u8 *dns = data + bb_bounded(dns_off, 127), *q;
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
	__u32 l3 = bb_bounded(l3v4s, 63), v4 = l3v4s >> 8 & 1, l4 = bb_bounded(dns_off - 8, 127);
	__u32 sinkhole = l3v4s >> 9 & 1;
	bb_ethhdr *eth = data;
	bb_udphdr *uh;
	__u8 *dns, *a;

	if (qend < BB_DNS_HDR_LEN + 5 || qend > msg_len || qend > 300)
		return -1;
	dns = data + bb_bounded(dns_off, 127);
	if ((void *)(dns + BB_DNS_HDR_LEN) > end)
		return -1;
	a = data + bb_bounded(dns_off + qend - 4, 511);	/* the question's type */
	if ((void *)(a + 2) > end)
		return -1;
	qtype = (__u32)a[0] << 8 | a[1];
	a = data + bb_bounded(dns_off + qend, 511);	/* the answer record's place */
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
	__u32 l3 = bb_bounded(l3v4s, 63), v4 = l3v4s >> 8 & 1, l4 = bb_bounded(dns_off - 8, 127);
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
	cut = (int)bb_bounded(l4 + 8 + len, 1023) - (int)bb_ptr_off(end, data);
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
		l3_end = (void *)iph + bb_bounded(bpf_ntohs(iph->tot_len), 0xffff);
		if (l3_end > end || l3_end < (void *)uh)
			l3_end = end;
		at->l3 = bb_ptr_off(&iph->saddr, data);
		at->v4 = 1;
	} else {
		bb_ipv6hdr *ip6h = cur.pos;

		if ((void *)(ip6h + 1) > end || ip6h->version != 6 || ip6h->nexthdr != IPPROTO_UDP)
			return 0;
		uh = (void *)(ip6h + 1);
		l3_end = (void *)uh + bb_bounded(bpf_ntohs(ip6h->payload_len), 0xffff);
		if (l3_end > end)
			l3_end = end;
		at->l3 = bb_ptr_off(&ip6h->saddr, data);
		at->v4 = 0;
	}
	if ((void *)(uh + 1) > end)
		return 0;
	at->l4 = bb_ptr_off(uh, data);
	at->msg_len = l3_end > (void *)(uh + 1) ? bb_ptr_off(l3_end, uh + 1) : 0;
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
	__u32 l3 = bb_bounded(l3v4s, 63), v4 = l3v4s >> 8 & 1, l4 = bb_bounded(dns_off - 8, 127);
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
	if (bpf_skb_change_tail(skb, bb_bounded(l4 + 8 + len, 1023), 0))
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

#endif /* BB_ANSWER_BPF_H */

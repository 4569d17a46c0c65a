/* SPDX-License-Identifier: GPL-2.0 */
/* The reset stage: a blocked ClientHello's or request's connection reset on both sides. */
#ifndef BB_RESET_BPF_H
#define BB_RESET_BPF_H

#include "answer.bpf.h"

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
	__u32 l3 = bb_bounded(l3v4t, 63), v4 = l3v4t >> 8 & 1, turn = l3v4t >> 9 & 1;
	bb_ethhdr *eth = data;
	bb_tcphdr *th;
	__u32 seq, ack;
	__u64 sum;

	l4 = bb_bounded(l4, 127);
	if ((void *)(eth + 1) > end)
		return XDP_DROP;
	th = bb_pkt_at(data, l4);
	if ((void *)(th + 1) > end)
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
		__u32 hl = bb_bounded(l4 - (l3 - 12), 63);

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
	l3 = bb_ptr_off(pkt.saddr, data);
	l4 = bb_ptr_off(pkt.l4, data);
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

/*
 * The segment at l4 of the IP datagram at ip (bit 8: IPv4) that ends at l3_end made
 * the server's reset in place: its options and data cut, RST and ACK, window 0.
 * 0, or -1 with the packet unfit (the caller drops it). A global function.
 */
__noinline int bb_reset_cut_tc(struct __sk_buff *skb, __u32 l4, __u32 l3_end, __u32 ip_v4)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	__u32 ip = bb_bounded(ip_v4, 127), v4 = ip_v4 >> 8 & 1, n, cut;
	__u16 w12, win, urg, nw12, len0, len1;
	__u8 *th;

	l4 = bb_bounded(l4, 127);
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
	bb_tcphdr *th = bb_pkt_at(data, l4);

	if ((void *)(eth + 1) > end || (void *)(th + 1) > end)
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
	__u32 ip = bb_bounded(ip_v4e, 127), v4 = ip_v4e >> 8 & 1, egress = ip_v4e >> 9 & 1;
	__u32 seq, ack, ack1;
	bb_tcphdr *th;
	int err;

	l4 = bb_bounded(l4, 127);
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
	addrs = bb_ptr_off(pkt->saddr, data);	/* a scalar before it is taken from */
	*ip = addrs - (pkt->l3_proto == ETH_P_IP ? 12 : 8);
	*l4 = bb_ptr_off(pkt->l4, data);
	*l3_end = bb_ptr_off(pkt->l3_end, data);
	/* IPv6 extension headers: not reset (as at XDP) */
	return *ip <= 127 && *l4 <= 127 && pkt->l4_proto == IPPROTO_TCP &&
	       (pkt->l3_proto == ETH_P_IP || *l4 - *ip == 40);
}

static __always_inline int reset_tc(struct __sk_buff *skb)
{
	__u32 zero = 0, ip, l4, l3_end, len, v4, egress;
	struct bb_scratch *sc = bpf_map_lookup_elem(&scratch, &zero);
	struct bb_stats *st = sc ? stats_of(sc->stage.hook) : NULL;	/* the entry program's hook */
	struct bb_packet pkt;

	if (!st || !sc)
		return TC_ACT_SHOT;
	egress = sc->stage.hook == BB_EV_TC_EGRESS;
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

/*
 * Beside an XDP attachment, at tc ingress (bloomblock_tc_xdp_reset): a server's reset
 * bloomblock_xdp_reset passed with BB_RESET_META in its metadata gets the client's
 * sent; an answer passed with BB_ANSWER_META (tx_via_tc) is sent back. Every other
 * packet passes untouched, at the cost of a look at its metadata.
 */
static __always_inline int reset_beside_xdp(struct __sk_buff *skb)
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

#endif /* BB_RESET_BPF_H */

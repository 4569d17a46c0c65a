/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Packet parsing shared by the BPF programs and userspace tests: explicit bounds, no helpers. */
#ifndef BB_PARSE_H
#define BB_PARSE_H

#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>

#include "bloomblock.h"
#include "bb_compat.h"

#define BB_MAX_VLANS 2

/*
 * Headers at any alignment: in userspace a frame in a plain buffer leaves the IP
 * header 2 bytes off a 4-byte boundary, which is undefined behaviour through the
 * kernel's structs (UBSan says so). A typedef may lower alignment; the BPF side
 * keeps the natural types, its packet data is aligned by the kernel.
 */
#ifdef __BPF__
typedef struct ethhdr bb_ethhdr;
typedef struct iphdr bb_iphdr;
typedef struct ipv6hdr bb_ipv6hdr;
typedef struct tcphdr bb_tcphdr;
typedef struct udphdr bb_udphdr;
#else
typedef struct ethhdr bb_ethhdr __attribute__((aligned(1)));
typedef struct iphdr bb_iphdr __attribute__((aligned(1)));
typedef struct ipv6hdr bb_ipv6hdr __attribute__((aligned(1)));
typedef struct tcphdr bb_tcphdr __attribute__((aligned(1)));
typedef struct udphdr bb_udphdr __attribute__((aligned(1)));
#endif

#define BB_MAX_IPV6_EXT 4	/* extension headers skipped before giving up on L4 */

/* Where the next header starts, and where the packet ends. */
struct bb_cursor {
	void *pos;
	void *end;
};

enum bb_parse_result {
	BB_PARSE_OK = 0,
	BB_PARSE_NON_IP,	/* not IPv4 or IPv6 (ARP, LLDP, a third VLAN tag...) */
	BB_PARSE_TRUNCATED,	/* a header ends past the end of the packet */
	BB_PARSE_MALFORMED,	/* wrong IP version, IHL below 5 */
};

/*
 * What the address check needs from one packet. The addresses point into the
 * packet, not copies: the hot path reads each byte it hashes once. Every field
 * is written by the parse step that owns it before anything reads it, so a
 * caller need not zero the struct (which is ~30 stores per packet).
 */
struct bb_packet {
	__u16 l3_proto;		/* ETH_P_IP or ETH_P_IPV6, host order */
	__u8 vlans;		/* VLAN tags skipped */
	__u8 l4_proto;		/* IPPROTO_*, IPv6: the first next-header */
	const __u8 *saddr;	/* in the packet: 4 or 16 bytes */
	const __u8 *daddr;
	void *l4;		/* first byte after the IP header; after bb_parse_l4(), of the
				 * L4 header (past IPv6 extension headers) */
	void *l3_end;		/* end of the IP datagram: Ethernet padding excluded */
	__u8 fragment;		/* a non-first fragment: no L4 header */
	/* from bb_parse_l4() */
	__u16 sport, dport;	/* host order */
	__u32 seq;		/* TCP sequence number, host order */
	__u8 tcp_flags;
	void *payload;		/* first byte of the TCP or UDP payload */
	__u32 payload_len;	/* its length, by the IP header (no Ethernet padding) */
};

struct bb_vlan_hdr {
	__be16 tci;
	__be16 encap_proto;
};

/* Ethernet and up to BB_MAX_VLANS 802.1Q/802.1ad tags; returns the EtherType, host order. */
static __always_inline int bb_parse_eth(struct bb_cursor *c, struct bb_packet *pkt)
{
	bb_ethhdr *eth = c->pos;
	__u16 proto;
	int i;

	/* the first word (l3_proto, vlans, l4_proto) whole: vlans is read whatever the
	 * parse's outcome, and a word written in part is one clang may keep in a register
	 * it never set, which the verifier refuses to see stored ("!read_ok", -mcpu=v3) */
	pkt->l3_proto = 0;
	pkt->vlans = 0;
	pkt->l4_proto = 0;
	if ((void *)(eth + 1) > c->end)
		return BB_PARSE_TRUNCATED;
	proto = bpf_ntohs(eth->h_proto);
	c->pos = eth + 1;
#ifdef __BPF__
#pragma unroll
#endif
	for (i = 0; i < BB_MAX_VLANS; i++) {
		struct bb_vlan_hdr *vh = c->pos;

		if (proto != ETH_P_8021Q && proto != ETH_P_8021AD)
			break;
		if ((void *)(vh + 1) > c->end)
			return BB_PARSE_TRUNCATED;
		proto = bpf_ntohs(vh->encap_proto);
		c->pos = vh + 1;
		pkt->vlans++;
	}
	pkt->l3_proto = proto;
	if (proto != ETH_P_IP && proto != ETH_P_IPV6)
		return BB_PARSE_NON_IP;
	return BB_PARSE_OK;
}

static __always_inline int bb_parse_ipv4(struct bb_cursor *c, struct bb_packet *pkt)
{
	bb_iphdr *iph = c->pos;
	__u32 hdr_len;

	if ((void *)(iph + 1) > c->end)
		return BB_PARSE_TRUNCATED;
	if (iph->version != 4 || iph->ihl < 5)
		return BB_PARSE_MALFORMED;
	hdr_len = iph->ihl * 4;
	if (c->pos + hdr_len > c->end)
		return BB_PARSE_TRUNCATED;
	pkt->saddr = (const __u8 *)&iph->saddr;
	pkt->daddr = (const __u8 *)&iph->daddr;
	pkt->l4_proto = iph->protocol;
	pkt->fragment = (bpf_ntohs(iph->frag_off) & 0x1fff) != 0;
	/* bounded where the verifier sees it: 6.1 and 6.12 forget a be16's range */
	pkt->l3_end = (void *)iph + bb_bounded(bpf_ntohs(iph->tot_len), 0xffff);
	if (pkt->l3_end > c->end || pkt->l3_end < c->pos + hdr_len)
		pkt->l3_end = c->end;
	c->pos += hdr_len;
	pkt->l4 = c->pos;
	return BB_PARSE_OK;
}

static __always_inline int bb_parse_ipv6(struct bb_cursor *c, struct bb_packet *pkt)
{
	bb_ipv6hdr *ip6h = c->pos;

	if ((void *)(ip6h + 1) > c->end)
		return BB_PARSE_TRUNCATED;
	if (ip6h->version != 6)
		return BB_PARSE_MALFORMED;
	pkt->saddr = (const __u8 *)&ip6h->saddr;
	pkt->daddr = (const __u8 *)&ip6h->daddr;
	pkt->l4_proto = ip6h->nexthdr;
	pkt->fragment = 0;
	c->pos = ip6h + 1;
	pkt->l4 = c->pos;
	pkt->l3_end = c->pos + bb_bounded(bpf_ntohs(ip6h->payload_len), 0xffff);
	if (pkt->l3_end > c->end)
		pkt->l3_end = c->end;
	return BB_PARSE_OK;
}

/* The IPv6 extension headers skipped on the way to L4. */
static __always_inline int bb_ipv6_is_ext(__u8 proto)
{
	return proto == IPPROTO_HOPOPTS || proto == IPPROTO_ROUTING ||
	       proto == IPPROTO_DSTOPTS || proto == IPPROTO_FRAGMENT;
}

/*
 * Skip IPv6 extension headers (hop-by-hop, routing, destination options, fragment)
 * up to BB_MAX_IPV6_EXT; the address check never needs this, the name check does.
 */
static __always_inline int bb_skip_ipv6_ext(struct bb_cursor *c, struct bb_packet *pkt)
{
	int i;

	for (i = 0; i < BB_MAX_IPV6_EXT; i++) {
		__u8 *h = c->pos;

		if (!bb_ipv6_is_ext(pkt->l4_proto))
			return BB_PARSE_OK;
		if ((void *)(h + 8) > c->end)
			return BB_PARSE_TRUNCATED;
		if (pkt->l4_proto == IPPROTO_FRAGMENT) {
			if (((h[2] << 8 | h[3]) & 0xfff8) != 0)
				pkt->fragment = 1;
			c->pos = h + 8;
		} else {
			c->pos = h + (h[1] + 1) * 8;
		}
		pkt->l4_proto = h[0];
	}
	/* BB_MAX_IPV6_EXT headers skipped: what follows them may be L4 */
	return bb_ipv6_is_ext(pkt->l4_proto) ? BB_PARSE_MALFORMED : BB_PARSE_OK;
}

/* TCP or UDP ports and payload; anything else, or a non-first fragment, is not L4. */
static __always_inline int bb_parse_l4(struct bb_cursor *c, struct bb_packet *pkt)
{
	int ret;

	if (pkt->l3_proto == ETH_P_IPV6) {
		ret = bb_skip_ipv6_ext(c, pkt);
		if (ret != BB_PARSE_OK)
			return ret;
		pkt->l4 = c->pos;	/* the answers and resets: where TCP or UDP is */
	}
	if (pkt->fragment)
		return BB_PARSE_NON_IP;
	if (pkt->l4_proto == IPPROTO_TCP) {
		bb_tcphdr *th = c->pos;
		__u32 len;

		if ((void *)(th + 1) > c->end)
			return BB_PARSE_TRUNCATED;
		len = th->doff * 4;
		if (len < sizeof(*th))
			return BB_PARSE_MALFORMED;
		if (c->pos + len > c->end)
			return BB_PARSE_TRUNCATED;
		pkt->sport = bpf_ntohs(th->source);
		pkt->dport = bpf_ntohs(th->dest);
		pkt->seq = bpf_ntohl(th->seq);
		pkt->tcp_flags = ((__u8 *)th)[13];
		pkt->payload = c->pos + len;
		pkt->payload_len = pkt->l3_end > pkt->payload ? pkt->l3_end - pkt->payload : 0;
		return BB_PARSE_OK;
	}
	if (pkt->l4_proto == IPPROTO_UDP) {
		bb_udphdr *uh = c->pos;

		if ((void *)(uh + 1) > c->end)
			return BB_PARSE_TRUNCATED;
		pkt->sport = bpf_ntohs(uh->source);
		pkt->dport = bpf_ntohs(uh->dest);
		pkt->seq = 0;
		pkt->tcp_flags = 0;
		pkt->payload = uh + 1;
		pkt->payload_len = pkt->l3_end > pkt->payload ? pkt->l3_end - pkt->payload : 0;
		return BB_PARSE_OK;
	}
	return BB_PARSE_NON_IP;
}

/* Ethernet, VLANs, IP: everything the address check needs. */
static __always_inline int bb_parse_packet(struct bb_cursor *c, struct bb_packet *pkt)
{
	int ret = bb_parse_eth(c, pkt);

	if (ret != BB_PARSE_OK)
		return ret;
	if (pkt->l3_proto == ETH_P_IP)
		return bb_parse_ipv4(c, pkt);
	return bb_parse_ipv6(c, pkt);
}

#endif /* BB_PARSE_H */

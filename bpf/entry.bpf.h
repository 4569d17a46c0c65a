/* SPDX-License-Identifier: GPL-2.0 */
/* The entry stage: the address check, the general parse, and which stage a packet goes on to. */
#ifndef BB_ENTRY_BPF_H
#define BB_ENTRY_BPF_H

#include "stage.bpf.h"

/*
 * The entry program of each hook (bloomblock_xdp, bloomblock_tc_ingress, _egress) runs
 * three steps, each its own function:
 *
 *   1. the address check (entry_addr_*()): the packet most links carry against the
 *      filter most lists make, in a path of its own that reads the IP header alone
 *      (bb_addr_xdp(), bb_addr_tc()); what it does not decide it leaves, uncounted,
 *      to step 2 (BB_GENERAL). A program built for one filter (its geometry as
 *      load-time constants) replaces this step: docs/DESIGN.md, Packet path.
 *   2. the general path (entry_core()): the whole parse (VLAN tags, IP options, IPv6
 *      extension headers), the filter's every prefix length, both addresses.
 *   3. the dispatch (entry_dispatch()): a packet to a service port goes on to its
 *      stage, by a tail call, with what the stage needs left in the scratch.
 */

/*
 * Whether the IPv6 address at addr is in the packet. The parse checked it; this checks
 * it again where it is read: the 6.1 verifier keeps no link from l3_proto, a field of a
 * struct on the stack, to the header it names, and walks the IPv6 reads of an IPv4
 * packet.
 */
static __always_inline int addr16_in(const __u8 *addr, const void *data_end)
{
	return (const void *)(addr + 16) <= data_end;
}

/*
 * The flow key in five word stores (clang makes a memset and copies 2-byte stores):
 * the addresses, and the ports when the transport header was read (with_ports; an
 * address hit has none: 0).
 */
static __always_inline void flow_key(struct bb_flow_key *k, const struct bb_packet *pkt,
				     const void *data_end, const int with_ports)
{
	__u8 *b = (__u8 *)k;
	__u64 family = pkt->l3_proto == ETH_P_IP ? 4 : 6, s0, s1 = 0, d0, d1 = 0;

	if (family == 4) {
		s0 = bb_load32(pkt->saddr);
		d0 = bb_load32(pkt->daddr);
	} else if (addr16_in(pkt->saddr, data_end) && addr16_in(pkt->daddr, data_end)) {
		s0 = bb_load64(pkt->saddr);
		s1 = bb_load64(pkt->saddr + 8);
		d0 = bb_load64(pkt->daddr);
		d1 = bb_load64(pkt->daddr + 8);
	} else {
		s0 = d0 = 0;
	}
	bb_store64(b, s0);
	bb_store64(b + 8, s1);
	bb_store64(b + 16, d0);
	bb_store64(b + 24, d1);
	/* sport, dport, family, pad: little-endian, as BPF on x86 */
	bb_store64(b + 32, (with_ports ? pkt->sport | (__u32)pkt->dport << 16 : 0) | family << 32);
}

/*
 * After an address's hit: the flow key for its event (an address hit has no ports:
 * it is decided before the transport header is read), then hit_call().
 */
static __always_inline int addr_hit(struct bb_ctx *c, const int xdp, const struct bb_packet *pkt,
				    const __u8 *addr, __u32 what, const void *data_end)
{
	if (!c->sc)
		c->sc = scratch_get();
	if (c->sc && (c->hdr->flags & BB_HDR_F_EVENTS))
		flow_key(&c->sc->flow, pkt, data_end, 0);
	if (pkt->l3_proto == ETH_P_IP)
		return hit_call(c, xdp, what | 4 << 8, bb_load32(addr), 0, 0);
	if (!addr16_in(addr, data_end))
		return 0;
	return hit_call(c, xdp, what | 6 << 8, bb_load64(addr), bb_load64(addr + 8), 0);
}

static __always_inline int match_addr(const struct bb_ctx *c, const struct bb_packet *pkt,
				      const __u8 *addr, const void *data_end)
{
	if (pkt->l3_proto == ETH_P_IP)
		return bb_match_ip4(c, addr);
	return addr16_in(addr, data_end) && bb_match_ip6(c, addr);
}

/* QUIC long-header Initial (v1 type 0, v2 type 1): its SNI is encrypted, count it. */
static __always_inline int check_quic(const struct bb_ctx *c, const struct bb_packet *pkt,
				      void *data_end)
{
	const __u8 *p = pkt->payload;
	__u32 version, type;

	if ((void *)(p + 5) > data_end || (p[0] & 0xc0) != 0xc0)
		return 0;
	version = (__u32)p[1] << 24 | (__u32)p[2] << 16 | (__u32)p[3] << 8 | p[4];
	type = (p[0] >> 4) & 3;
	if (!version || (version == 0x6b3343cf ? type != 1 : type != 0))
		return 0;
	c->st->quic_initials++;
	if (!(c->hdr->flags & BB_HDR_F_BLOCK_QUIC))
		return 0;
	if (c->hdr->flags & BB_HDR_F_DROP)
		c->st->quic_dropped++;	/* in flag mode it passes, counted as flagged */
	return 1;
}


/*
 * What bb_addr_xdp() and bb_addr_tc() found: a verdict (enum bb_verdict), BB_GENERAL,
 * or a hit for the entry program to decide (BB_ADDR_HIT and the bits beside it).
 * Inside them, addr_only()'s usual hit in a filter that raises events is its verdict
 * with BB_ADDR_EVENT and the address's bits, for addr_event() to raise it.
 */
#define BB_GENERAL		(-1)		/* the general path decides: nothing counted */
#define BB_ADDR_HIT		(1 << 8)	/* packets, family, lookups counted */
#define BB_ADDR_HIT_V6		(1 << 9)	/* the address is IPv6 */
#define BB_ADDR_HIT_DROP	(1 << 10)	/* the filter drops hits (BB_HDR_F_DROP) */
#define BB_ADDR_HIT_EVENTS	(1 << 11)	/* the filter raises events (BB_HDR_F_EVENTS) */
#define BB_ADDR_EVENT		(1 << 12)	/* a usual hit decided, its event to raise */
#define BB_ADDR_HIT_OFF(v)	(((v) >> 16) & 63)	/* where the address is in the packet */

/* Where a packet with no VLAN tag holds its addresses: the source, then the destination. */
#define BB_ADDR_OFF(v4, dir)	(14 + ((v4) ? 12 : 8) + ((dir) == BB_INGRESS ? 0 : (v4) ? 4 : 16))

/*
 * A hit that addr_probe() found, decided as hit_decide() and verdict() decide it
 * when it is the usual one: no confirmation to ask, no allowlist entry in the filter
 * that hit, no daemon counting hits by list; with BB_ADDR_EVENT when the filter raises
 * events (what it looked up in *h, for addr_event()). Any other: the word for the
 * entry program to decide it with (BB_ADDR_HIT ..., addr_decide()).
 */
static __always_inline int addr_hit_usual(void *filter, const struct bb_header *hdr,
					  struct bb_stats *st, int dir, const int v4,
					  struct bb_hit_seen *h)
{
	const struct bb_allow_header *ah;
	__u32 flags = hdr->flags, idx;
	int v;

	if (!(flags & BB_HDR_F_CONFIRM)) {
		idx = BB_FIRST_BLOCK + hdr->nblocks;
		ah = hdr->allow_blocks ? bpf_map_lookup_elem(filter, &idx) : NULL;
		if ((!ah || !ah->items) && !confirm_daemon_beats()) {
			if (dir != BB_INGRESS)
				st->ip_dst_hits++;
			else if (v4)
				st->ip4_hits++;
			else
				st->ip6_hits++;
			if (flags & BB_HDR_F_DROP) {
				st->dropped++;
				v = BB_DROP;
			} else {
				st->flagged++;
				st->passed++;
				v = BB_FLAG;
			}
			if (!(flags & BB_HDR_F_EVENTS))
				return v;
			h->filter = filter;
			h->hdr = hdr;
			h->map_id = ah ? ah->map_id : 0;
			h->st = st;
			return v | BB_ADDR_EVENT | (v4 ? 0 : BB_ADDR_HIT_V6) |
			       BB_ADDR_OFF(v4, dir) << 16;
		}
	}
	return BB_ADDR_HIT | (v4 ? 0 : BB_ADDR_HIT_V6) |
	       (flags & BB_HDR_F_DROP ? BB_ADDR_HIT_DROP : 0) |
	       (flags & BB_HDR_F_EVENTS ? BB_ADDR_HIT_EVENTS : 0) | BB_ADDR_OFF(v4, dir) << 16;
}

/*
 * The address at addr (of a packet with no VLAN tag) in the open filter, as
 * bb_match_ip4() and bb_match_ip6() look it up when the filter probes at most one
 * prefix length of the family, counted as bloomblock_core() counts it. Specialised
 * per family (v4 a constant) and holding only the counters, the hash, the filter and
 * its header across the block's lookup: the four registers a call leaves alone.
 */
static __always_inline int addr_probe(void *filter, const struct bb_header *hdr,
				      const __u8 *addr, int dir, const int v4, __u32 hook,
				      struct bb_hit_seen *seen)
{
	__u32 idx, n = v4 ? hdr->n_v4_plens : hdr->n_v6_plens;
	__u32 plen = v4 ? hdr->v4_plens[0] : hdr->v6_plens[0];
	const struct bb_block *blk;
	struct bb_stats *st;
	__u64 h, hi, lo;

	st = stats_of(hook);
	if (n > 1 || !st)
		return BB_GENERAL;
	st->packets++;
	if (v4)
		st->ipv4++;
	else
		st->ipv6++;
	if ((hdr->flags & (v4 ? BB_HDR_F_V4_SHORT : BB_HDR_F_V6_SHORT)) &&
	    short_hit(filter, v4, addr))
		return addr_hit_usual(filter, hdr, st, dir, v4, seen);
	if (!n) {
		st->passed++;
		return BB_PASS;
	}
	if (v4) {
		h = bb_hash_ip4_word(bb_key_ip4_word(addr, plen), hdr->seed);
	} else {
		bb_key_ip6_words(addr, plen, &hi, &lo);
		h = bb_hash_ip6_words(hi, lo, plen, hdr->seed);
	}
	idx = BB_FIRST_BLOCK + bb_block_of(h, hdr->nblocks);
	st->lookups++;
	blk = bpf_map_lookup_elem(filter, &idx);
	if (!blk || !bb_block_test(blk, h, hdr->k)) {
		st->passed++;
		return BB_PASS;
	}
	return addr_hit_usual(filter, hdr, st, dir, v4, seen);
}

/*
 * The packet most links carry, against the filter most lists make: Ethernet with no
 * VLAN tag, an IPv4 or IPv6 header, a valid filter that probes at most one prefix
 * length of the family (a list of /32s or /128s, with or without short prefixes)
 * and whose mode asks for one address of the packet and nothing more (no service
 * ports, not both addresses). Counted and looked up as bloomblock_core() counts and
 * looks it up, in a path of its own: the filter opened first, while only the
 * packet's bounds are live, then addr_probe(); no parse of what a packet's other
 * checks need, no loop around the block. A miss and the usual hit are decided here;
 * any other hit goes back to the entry program (BB_ADDR_HIT ...), which decides it
 * (addr_decide()) in the call chain the general path's hits have. BB_GENERAL, with
 * nothing counted, for any other packet or filter.
 */
static __always_inline int addr_only(void *data, void *data_end, int dir, __u32 hook,
				     struct bb_hit_seen *h)
{
	struct ethhdr *eth = data;
	const struct bb_header *hdr;
	struct ipv6hdr *ip6h;
	struct iphdr *iph;
	__u32 zero = 0;
	void *filter;

	filter = bpf_map_lookup_elem(&filters, &zero);
	if (!filter)
		return BB_GENERAL;
	hdr = bpf_map_lookup_elem(filter, &zero);
	if (!hdr || hdr->magic != BB_MAGIC || hdr->abi_version != BB_ABI_VERSION ||
	    !hdr->nblocks || (hdr->flags & (BB_HDR_F_SERVICES | BB_HDR_F_ADDR_BOTH)))
		return BB_GENERAL;
	if ((void *)(eth + 1) > data_end)
		return BB_GENERAL;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		iph = (void *)(eth + 1);
		if ((void *)(iph + 1) > data_end || iph->version != 4 || iph->ihl < 5 ||
		    (void *)iph + iph->ihl * 4 > data_end)
			return BB_GENERAL;
		if (dir == BB_INGRESS)
			return addr_probe(filter, hdr, (const __u8 *)&iph->saddr, BB_INGRESS, 1,
					  hook, h);
		return addr_probe(filter, hdr, (const __u8 *)&iph->daddr, BB_EGRESS, 1, hook, h);
	}
	if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		ip6h = (void *)(eth + 1);
		if ((void *)(ip6h + 1) > data_end || ip6h->version != 6)
			return BB_GENERAL;
		if (dir == BB_INGRESS)
			return addr_probe(filter, hdr, (const __u8 *)&ip6h->saddr, BB_INGRESS, 0,
					  hook, h);
		return addr_probe(filter, hdr, (const __u8 *)&ip6h->daddr, BB_EGRESS, 0, hook, h);
	}
	return BB_GENERAL;
}

/*
 * The event of a usual hit that addr_only() decided (v: its verdict, BB_ADDR_EVENT and
 * the address's bits; h: what it looked up): event_begin(), its addresses from the
 * packet's (no ports, no key). Returns the verdict.
 */
static __always_inline int addr_event(void *pctx, int xdp, void *data, void *data_end, int v,
				      int dir, __u32 hook, const struct bb_hit_seen *h)
{
	const int v6 = v & BB_ADDR_HIT_V6;
	__u64 s0, s1 = 0, d0, d1 = 0;
	__u32 src, what;
	const __u8 *saddr;
	struct bb_event *ev;

	/*
	 * The source and the destination, one after the other in either header, read
	 * before the ring is asked; each length a constant in the check of the pointer
	 * that is read: the 6.1 verifier proves nothing from a length in a register.
	 */
	src = bb_bounded(BB_ADDR_HIT_OFF(v) - (dir == BB_INGRESS ? 0 : v6 ? 16 : 4), 63);
	v &= 0xff;
	saddr = data + src;
	if (v6) {
		if ((void *)(saddr + 32) > data_end)
			return v;
		s0 = bb_load64(saddr);
		s1 = bb_load64(saddr + 8);
		d0 = bb_load64(saddr + 16);
		d1 = bb_load64(saddr + 24);
	} else {
		if ((void *)(saddr + 8) > data_end)
			return v;
		s0 = bb_load32(saddr);
		d0 = bb_load32(saddr + 4);
	}
	what = dir == BB_INGRESS ? BB_EV_SRC : BB_EV_DST;
	ev = event_begin(pctx, xdp, h, what << 8 | (v == BB_DROP ? BB_EV_DROPPED : BB_EV_FLAGGED),
			 0, hook);
	if (!ev)
		return v;
	ev->family = v6 ? 6 : 4;
	bb_store64(ev->saddr, s0);
	bb_store64(ev->saddr + 8, s1);
	bb_store64(ev->daddr, d0);
	bb_store64(ev->daddr + 8, d1);
	ev->sport = 0;
	ev->dport = 0;
	event_end(ev, h);
	return v;
}

/*
 * addr_only() per hook family: a global function, verified once on its own and
 * compiled apart from the general path, so that neither the compiler's merging of
 * the two nor the verifier's walk of the general path from each of its exits makes
 * the other dearer. A usual hit's event is raised here too (addr_event()).
 */
__noinline int bb_addr_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct bb_hit_seen h;
	int v = addr_only(data, data_end, BB_INGRESS, BB_EV_XDP, &h);

	if (v != BB_GENERAL && !(v & BB_ADDR_HIT) && (v & BB_ADDR_EVENT))
		v = addr_event(ctx, 1, data, data_end, v, BB_INGRESS, BB_EV_XDP, &h);
	return v;
}

__noinline int bb_addr_tc(struct __sk_buff *skb, int dir)
{
	void *data = (void *)(long)skb->data, *data_end = (void *)(long)skb->data_end;
	struct bb_hit_seen h;
	__u32 hook;
	int v;

	dir = dir == BB_INGRESS ? BB_INGRESS : BB_EGRESS;
	hook = dir == BB_INGRESS ? BB_EV_TC_INGRESS : BB_EV_TC_EGRESS;
	v = addr_only(data, data_end, dir, hook, &h);
	if (v != BB_GENERAL && !(v & BB_ADDR_HIT) && (v & BB_ADDR_EVENT))
		v = addr_event(skb, 0, data, data_end, v, dir, hook, &h);
	return v;
}

/*
 * A hit that addr_only() found (v: BB_ADDR_HIT ...): decided as addr_hit() and
 * verdict() decide one, from the entry program, with the event's flow key when the
 * filter raises events. An allowed address or a confirmed false positive passes:
 * with no service ports there is nothing else to check.
 */
static __always_inline int addr_decide(void *pctx, void *data, void *data_end, int v, int dir,
				       __u32 hook, int xdp)
{
	__u32 what = dir == BB_INGRESS ? BB_EV_SRC : BB_EV_DST, src;
	const int v6 = v & BB_ADDR_HIT_V6;
	__u64 s0, s1 = 0, d0, d1 = 0, a, b;
	struct bb_scratch *sc;
	const __u8 *saddr;
	struct bb_stats *st;
	__u8 *k;
	int r;

	/* the source and the destination, one after the other in either header: each
	 * length a constant in the check of the pointer read (addr_event()) */
	src = bb_bounded(BB_ADDR_HIT_OFF(v) - (dir == BB_INGRESS ? 0 : v6 ? 16 : 4), 63);
	saddr = data + src;
	if (v6) {
		if ((void *)(saddr + 32) > data_end)
			return BB_PASS;
		s0 = bb_load64(saddr);
		s1 = bb_load64(saddr + 8);
		d0 = bb_load64(saddr + 16);
		d1 = bb_load64(saddr + 24);
		what |= 6 << 8;
	} else {
		if ((void *)(saddr + 8) > data_end)
			return BB_PASS;
		s0 = bb_load32(saddr);
		d0 = bb_load32(saddr + 4);
		what |= 4 << 8;
	}
	a = dir == BB_INGRESS ? s0 : d0;
	b = dir == BB_INGRESS ? s1 : d1;
	if (v & BB_ADDR_HIT_EVENTS) {
		sc = scratch_get();
		if (sc) {
			/* flow_key()'s words: an address hit's event has no ports */
			k = (__u8 *)&sc->flow;
			bb_store64(k, s0);
			bb_store64(k + 8, s1);
			bb_store64(k + 16, d0);
			bb_store64(k + 24, d1);
			bb_store64(k + 32, (__u64)(v6 ? 6 : 4) << 32);
		}
	}
	r = xdp ? bb_hit_xdp(pctx, what, a, b, 0) : bb_hit_tc(pctx, what | hook << 16, a, b, 0);
	st = stats_of(hook);
	if (!st)
		return BB_PASS;
	if ((r & 1) && (v & BB_ADDR_HIT_DROP)) {
		st->dropped++;
		return BB_DROP;
	}
	if (r & 1)
		st->flagged++;
	st->passed++;
	return r & 1 ? BB_FLAG : BB_PASS;
}

/*
 * Step 3: to L4, and which service the packet is for by its destination port; its
 * payload's offset from the packet's start in *off (at most BB_PAYLOAD_OFF_MAX).
 */
static __always_inline int service_of(void *filter, struct bb_cursor *cur, struct bb_packet *pkt,
				      void *data, __u32 *off)
{
	const struct bb_config *cfg;
	__u32 idx = BB_CONFIG_INDEX;
	__u64 o;

	if (bb_parse_l4(cur, pkt) != BB_PARSE_OK)
		return BB_SVC_NONE;
	o = bb_ptr_off(pkt->payload, data);
	if (o > BB_PAYLOAD_OFF_MAX || pkt->payload_len > 0xffff)
		return BB_SVC_NONE;
	*off = (__u32)o;
	cfg = bpf_map_lookup_elem(filter, &idx);
	if (!cfg)
		return BB_SVC_NONE;
	if (pkt->l4_proto == IPPROTO_UDP) {
		if (port_in(cfg->dns_ports, pkt->dport))
			return BB_SVC_DNS;
		if (port_in(cfg->quic_ports, pkt->dport))
			return BB_SVC_QUIC;
		return BB_SVC_NONE;
	}
	/* bare ACKs go no further; a SYN clears a TLS flow's old walk */
	if (!pkt->payload_len && !(pkt->tcp_flags & BB_TCP_SYN))
		return BB_SVC_NONE;
	if (port_in(cfg->tls_ports, pkt->dport))
		return BB_SVC_TLS;
	if (pkt->payload_len && port_in(cfg->http_ports, pkt->dport))
		return BB_SVC_HTTP;
	return BB_SVC_NONE;
}

/*
 * Step 3, the dispatch: a packet for a service goes on to its stage (BB_TO_DNS,
 * BB_TO_TLS, BB_TO_HTTP), with struct bb_stage in the scratch and the flow key (a
 * ClientHello's walk is kept by it; an event names the packet by it); a QUIC Initial
 * is counted here, a stage of its own would cost more than its check. Anything else
 * ends here, counted.
 */
static __always_inline int entry_dispatch(struct bb_ctx *c, struct bb_cursor *cur,
					  struct bb_packet *pkt, void *data, void *data_end)
{
	struct bb_scratch *sc = c->sc;
	__u32 off = 0;
	int svc;

	svc = service_of(c->filter, cur, pkt, data, &off);
	if (svc == BB_SVC_QUIC)
		return verdict(c, check_quic(c, pkt, data_end));
	if (svc != BB_SVC_DNS && svc != BB_SVC_TLS && svc != BB_SVC_HTTP)
		return verdict(c, 0);
	sc->stage.hook = c->hook;
	sc->stage.svc = svc;
	sc->stage.payload_off = off;
	sc->stage.payload_len = pkt->payload_len;
	sc->stage.seq = pkt->seq;
	sc->stage.tcp_flags = pkt->tcp_flags;
	if (svc == BB_SVC_TLS || (c->hdr->flags & BB_HDR_F_EVENTS))
		flow_key(&sc->flow, pkt, data_end, 1);
	if (svc == BB_SVC_TLS) {
		sc->flow_slot = bb_flow_slot(&sc->flow);
		return BB_TO_TLS;
	}
	return svc == BB_SVC_DNS ? BB_TO_DNS : BB_TO_HTTP;
}

/*
 * Every header layout the parse found (VLAN tags, IP options, the datagram's end at
 * the frame's or before it) made one verifier state: the headers' offsets from the
 * packet's start go through memory the verifier does not track (the scratch,
 * bb_forget()) and the pointers are made again from them, each checked where it is
 * read. Without this the address checks and the dispatch after them are walked once
 * per layout, and again for each outcome of each. 0 if a bound does not hold (it
 * always does: the parse checked them).
 */
static __always_inline int entry_layout(struct bb_scratch *sc, void *data, void *data_end,
					struct bb_cursor *cur, struct bb_packet *pkt)
{
	/* the addresses' offset (under 128) and the transport header's (under 256) in one
	 * word, the datagram's end in another */
	__u32 offs = bb_forget(sc->key, (__u32)bb_ptr_off(pkt->saddr, data) |
					(__u32)bb_ptr_off(pkt->l4, data) << 8);
	__u32 end = bb_forget(sc->key, (__u32)bb_ptr_off(pkt->l3_end, data));
	__u8 *saddr = data + bb_bounded(offs, 127);

	if (pkt->l3_proto == ETH_P_IP) {
		if ((void *)(saddr + 8) > data_end)
			return 0;
		pkt->daddr = saddr + 4;
	} else {
		if ((void *)(saddr + 32) > data_end)
			return 0;
		pkt->daddr = saddr + 16;
	}
	pkt->saddr = saddr;
	pkt->l4 = data + bb_bounded(offs >> 8, 255);
	pkt->l3_end = data + bb_bounded(end, 0x1ffff);	/* compared, never read */
	cur->pos = pkt->l4;
	return 1;
}

/*
 * Step 2, the general path: the whole parse, the live filter, the peer's address (the
 * source at ingress, the destination at egress; both with --addr both) at every prefix
 * length the filter probes, then step 3. Every path that ends here counts what it did.
 */
static __always_inline int entry_core(void *data, void *data_end, int dir, void *pctx,
				      __u32 hook, const int xdp)
{
	struct bb_cursor cur = { .pos = data, .end = data_end };
	struct bb_packet pkt;
	struct bb_ctx c;
	int ret, hit = 0;

	c.sc = NULL;
	c.allow = 0;
	c.pctx = pctx;
	c.hook = hook;
	c.xdp = xdp;
	c.st = stats_of(hook);
	if (!c.st)
		return BB_PASS;
	c.st->packets++;

	ret = bb_parse_packet(&cur, &pkt);
	if (pkt.vlans)
		c.st->vlan++;
	if (ret != BB_PARSE_OK) {
		if (ret == BB_PARSE_NON_IP)
			c.st->non_ip++;
		else if (ret == BB_PARSE_TRUNCATED)
			c.st->truncated++;
		else
			c.st->malformed++;
		c.st->passed++;
		return BB_PASS;
	}
	c.sc = scratch_get();
	if (!open_filter(&c) || !c.sc) {
		c.st->no_filter++;
		c.st->passed++;
		return BB_PASS;
	}
	if (bb_entry_general != !!(c.hdr->flags & (BB_HDR_F_SERVICES | BB_HDR_F_ADDR_BOTH)))
		bb_entry_general = !bb_entry_general;
	if (!entry_layout(c.sc, data, data_end, &cur, &pkt)) {
		c.st->truncated++;
		c.st->passed++;
		return BB_PASS;
	}

	if (pkt.l3_proto == ETH_P_IP)
		c.st->ipv4++;
	else
		c.st->ipv6++;
	if (dir == BB_INGRESS || (c.hdr->flags & BB_HDR_F_ADDR_BOTH)) {
		hit = match_addr(&c, &pkt, pkt.saddr, data_end);
		if (hit) {
			/* an allowed address is as if unlisted: the other checks go on; so
			 * is a confirmed false positive */
			hit = addr_hit(&c, xdp, &pkt, pkt.saddr, BB_EV_SRC, data_end) & 1;
		}
	}
	if (!hit && (dir == BB_EGRESS || (c.hdr->flags & BB_HDR_F_ADDR_BOTH))) {
		hit = match_addr(&c, &pkt, pkt.daddr, data_end);
		if (hit)
			hit = addr_hit(&c, xdp, &pkt, pkt.daddr, BB_EV_DST, data_end) & 1;
	}
	if (!hit && (c.hdr->flags & BB_HDR_F_SERVICES))
		return entry_dispatch(&c, &cur, &pkt, data, data_end);
	return verdict(&c, hit);
}

/* The entry program at XDP: step 1, then, when it leaves the packet, steps 2 and 3. */
static __always_inline int entry_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	int v = bb_entry_general ? BB_GENERAL : bb_addr_xdp(ctx);

	if (v != BB_GENERAL && (v & BB_ADDR_HIT))
		v = addr_decide(ctx, data, data_end, v, BB_INGRESS, BB_EV_XDP, 1);
	if (v == BB_GENERAL)
		v = entry_core(data, data_end, BB_INGRESS, ctx, BB_EV_XDP, 1);
	return v;
}

/*
 * tc sees GSO and GRO packets whose payload may not be in the linear part: pull
 * enough of it for a request's first bytes. Only non-linear packets pay.
 */
#define BB_TC_PULL 2048

/* The entry program at tc, in direction dir: entry_xdp()'s steps. */
static __always_inline int entry_tc(struct __sk_buff *skb, int dir, __u32 hook)
{
	int v;

	if (skb->data_end - skb->data < skb->len)
		bpf_skb_pull_data(skb, skb->len < BB_TC_PULL ? skb->len : BB_TC_PULL);
	v = bb_entry_general ? BB_GENERAL : bb_addr_tc(skb, dir);
	if (v != BB_GENERAL && (v & BB_ADDR_HIT))
		v = addr_decide(skb, (void *)(long)skb->data, (void *)(long)skb->data_end, v, dir,
				hook, 0);
	if (v == BB_GENERAL)
		v = entry_core((void *)(long)skb->data, (void *)(long)skb->data_end, dir, skb,
			       hook, 0);
	return v;
}

#endif /* BB_ENTRY_BPF_H */

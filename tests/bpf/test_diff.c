// SPDX-License-Identifier: GPL-2.0
/*
 * The differential test: random and mutated packets through the real loaded XDP
 * program (BPF_PROG_TEST_RUN) and through the userspace build of the same code (the
 * parsers of include/bb_parse.h, bb_names.h and bb_tls.h, the lookups of
 * include/bb_match.h over the same filter image, through bb_image_match_ip4/6(),
 * bb_image_match_name_key() and bb_image_allowed()), walked in the order
 * bpf/bloomblock.bpf.c walks them. On every packet the verdict and every counter the
 * packet moved must agree (all but lookups, the Bloom blocks read, which the matcher
 * does not count); a disagreement prints the packet in hex and a one-line repro.
 *
 * The packets: DNS queries, TLS ClientHellos (whole, lying in every way the builder
 * lies), HTTP requests, QUIC Initials, SYNs and plain datagrams, over IPv4 (options)
 * and IPv6 (extension headers, fragments), behind 0 to 3 VLAN tags, from listed,
 * allowed and unlisted sources, for listed, allowed, wildcard-covered and unlisted
 * names; then most of them mutated, structure-aware (IP and UDP lengths that lie, an
 * IHL, a DNS label length, a TLS record or handshake length, a TCP data offset or
 * flags, VLAN TPIDs) and blind (truncation, byte flips). Each packet has a 5-tuple of
 * its own, and the flows a ClientHello left pending are cleared after it, so no
 * packet's verdict depends on another's: a split ClientHello's later segments are
 * test_names' to check.
 *
 *   BB_DIFF_PACKETS=N      packets (default 100000; BB_QUICK=1: 20000)
 *   BB_DIFF_PACKET=I       run packet I only (the repro a disagreement prints)
 *   BB_TEST_SEED=S         the generator's seed
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bb_names.h"
#include "bb_parse.h"
#include "bb_tls.h"
#include "filter.h"
#include "list.h"
#include "pins.h"
#include "lib/harness.h"
#include "lib/pkt.h"

#define MAX_FRAME	2048
#define N_STATS		HARNESS_N_STATS

/* The list: addresses and prefixes, names, wildcards, and the allowlist's exceptions. */
static const char *const lines[] = {
	"203.0.113.0/28", "198.51.100.77", "2001:db8:bad::/48", "2001:db8:51::66",
	"blocked.example", "*.wild.example", "bad.test", "ads.tracker.test",
	"@@203.0.113.5", "@@2001:db8:bad::5", "@@ok.blocked.example", "@@safe.bad.test",
	NULL,
};

static const char *const sources4[] = {
	"203.0.113.1", "203.0.113.5", "203.0.113.15", "203.0.113.16", "198.51.100.77",
	"198.51.100.2", "192.0.2.10", "192.0.2.200",
};
static const char *const sources6[] = {
	"2001:db8:bad::1", "2001:db8:bad::5", "2001:db8:bad:ffff::9", "2001:db8:51::66",
	"2001:db8:51::2", "2001:db8:bae::1",
};
static const char *const names[] = {
	"blocked.example", "www.blocked.example", "ok.blocked.example", "a.ok.blocked.example",
	"wild.example", "x.wild.example", "deep.x.wild.example", "bad.test", "safe.bad.test",
	"ads.tracker.test", "tracker.test", "good.example", "BLOCKED.EXAMPLE", "blocked.example.",
	"xn--bcher-kva.example", "a-b.c-d.test", "free.test", "e", "",
	"a.very.long.name.with.many.labels.under.blocked.example",
};

static __u64 rnd(void)
{
	return harness_rng();
}

static const char *pick(const char *const *v, size_t n)
{
	return v[rnd() % n];
}

#define PICK(v)	pick(v, sizeof(v) / sizeof((v)[0]))

/* ---- the packets ---------------------------------------------------------------------- */

enum kind { K_PLAIN, K_DNS, K_TLS, K_HTTP, K_QUIC, K_SYN, K_MAX };

struct gen {
	__u8 frame[MAX_FRAME];
	size_t len;
	enum kind kind;
	size_t l3, l4;		/* where the IP and L4 headers start, as built */
	bool v6;
	int mutations;
};

static void build(struct gen *g, size_t i)
{
	static const char *const ext6[] = { "", "", "", "H", "D", "HD", "h", "F", "f", "HDF" };
	static const __u16 tpids[] = { 0x8100, 0x88a8, 0x9100 };
	__u8 payload[1600];
	struct pkt_frame f = { 0 };
	size_t plen = 0, sni_off, t, ntags = rnd() % 8 < 6 ? 0 : 1 + rnd() % 3;
	char path[64];

	g->kind = (enum kind)(rnd() % K_MAX);
	g->v6 = rnd() % 3 == 0;
	f.net = g->v6 ? PKT_IPV6 : PKT_IPV4;
	f.saddr = rnd() % 3 ? (g->v6 ? "2001:db8:51::2" : "198.51.100.2") :
		  g->v6 ? PICK(sources6) : PICK(sources4);
	f.daddr = g->v6 ? "2001:db8:51::1" : "198.51.100.1";
	if (rnd() % 4 == 0)	/* a listed or unlisted destination, for tc egress */
		f.daddr = g->v6 ? PICK(sources6) : PICK(sources4);
	/* a 5-tuple of its own: no packet meets another's flow */
	f.sport = (__u16)(1024 + i % 60000);
	f.ip_id = PKT_SET((unsigned int)(i & 0xffff));
	for (t = 0; t < ntags; t++)
		f.tags[t] = tpids[rnd() % 3];
	if (!g->v6 && rnd() % 5 == 0)
		f.ihl = PKT_SET(5 + (unsigned int)(rnd() % 4));
	if (g->v6)
		f.ext6 = ext6[rnd() % (sizeof(ext6) / sizeof(ext6[0]))];
	if (!g->v6 && rnd() % 20 == 0)
		f.frag = (__u16)(rnd() % 2 ? 0x2000 : 0x0020);	/* MF, or an offset */

	switch (g->kind) {
	case K_DNS: {
		struct pkt_dns q = { .name = PICK(names), .qtype = rnd() % 4 ? 1 : 28,
				     .flags = rnd() % 8 ? 0 : PKT_SET((unsigned int)(rnd() & 0xff)),
				     .qdcount = rnd() % 10 ? 0 : PKT_SET((unsigned int)(rnd() % 3)),
				     .opt_len = rnd() % 4 ? 0 : 4 + (__u16)(rnd() % 12) };

		f.proto = IPPROTO_UDP;
		f.dport = 53;
		plen = pkt_dns(&q, payload, sizeof(payload));
		break;
	}
	case K_TLS: {
		static const char *const orders[] = { NULL, PKT_EXTS_SNI_FIRST, PKT_EXTS_SNI_LAST,
						      PKT_EXTS_NO_SNI, "SE", "ES", "S" };
		struct pkt_hello h = {
			.sni = PICK(names), .exts = orders[rnd() % 7],
			.lie = rnd() % 3 ? PKT_LIE_NONE : (enum pkt_hello_lie)(rnd() % PKT_LIE_MAX),
			.client = (enum pkt_hello_client)(rnd() % PKT_CLIENT_MAX),
			.padding = (unsigned int)(rnd() % 4 ? 0 : rnd() % 600),
		};

		f.proto = IPPROTO_TCP;
		f.dport = 443;
		f.seq = (__u32)rnd();
		plen = pkt_hello(&h, payload, sizeof(payload), &sni_off);
		break;
	}
	case K_HTTP:
		f.proto = IPPROTO_TCP;
		f.dport = rnd() % 2 ? 80 : 8080;
		snprintf(path, sizeof(path), "/%llx", (unsigned long long)(rnd() & 0xffff));
		plen = pkt_http_get(payload, sizeof(payload), path, PICK(names),
				    rnd() % 2 ? "Accept: */*\r\n" : NULL);
		break;
	case K_QUIC: {
		struct pkt_quic q = { .first = (__u8)(rnd() % 4 ? 0xc3 : rnd()),
				      .version = rnd() % 4 ? 1 : (__u32)rnd() };

		f.proto = IPPROTO_UDP;
		f.dport = 443;
		plen = pkt_quic(&q, payload, sizeof(payload));
		break;
	}
	case K_SYN:
		f.proto = IPPROTO_TCP;
		f.dport = rnd() % 2 ? 443 : 80;
		break;
	default:
		f.proto = rnd() % 2 ? IPPROTO_UDP : IPPROTO_TCP;
		f.dport = (__u16)(rnd() % 4 ? 9 : rnd());
		plen = (size_t)(rnd() % 64);
		memset(payload, 'x', plen);
		break;
	}
	g->len = pkt_frame(&f, payload, plen, g->frame, sizeof(g->frame));
	g->l3 = 14 + 4 * ntags;
	g->l4 = g->l3 + (g->v6 ? 40 + 8 * strlen(f.ext6 ? f.ext6 : "") :
			 4 * (f.ihl ? PKT_FIELD(f.ihl, 5) : 5));
	/* the TCP flags: SYN alone, or data's PSH and ACK */
	if (g->kind == K_SYN && g->l4 + 14 < g->len)
		g->frame[g->l4 + 13] = 0x02;
	else if (f.proto == IPPROTO_TCP && g->l4 + 14 < g->len)
		g->frame[g->l4 + 13] = 0x18;	/* PSH, ACK */
}

/* Structure-aware and blind mutations, 0 to 3 of them. */
static void mutate(struct gen *g)
{
	int n = rnd() % 10 < 4 ? 0 : 1 + (int)(rnd() % 3), m;

	g->mutations = n;
	for (m = 0; m < n && g->len; m++) {
		size_t at;

		switch (rnd() % 10) {
		case 0:	/* cut short: to the Ethernet header at least, the least a test run takes */
			if (g->len > ETH_HLEN)
				g->len = ETH_HLEN + rnd() % (g->len - ETH_HLEN);
			break;
		case 1:	/* a byte flipped anywhere */
			g->frame[rnd() % g->len] ^= (__u8)(1 + rnd() % 255);
			break;
		case 2:	/* the IP length lies */
			at = g->l3 + (g->v6 ? 4 : 2);
			if (at + 2 <= g->len) {
				g->frame[at] = (__u8)rnd();
				g->frame[at + 1] = (__u8)rnd();
			}
			break;
		case 3:	/* the IPv4 IHL or the IP version */
			if (g->l3 < g->len)
				g->frame[g->l3] = (__u8)(rnd() % 2 ? (g->frame[g->l3] & 0xf0) |
							 (rnd() % 16) : rnd());
			break;
		case 4:	/* the UDP length, or the TCP data offset */
			at = g->l4 + (rnd() % 2 ? 4 : 12);
			if (at < g->len)
				g->frame[at] = (__u8)rnd();
			break;
		case 5:	/* the TCP flags */
			at = g->l4 + 13;
			if (at < g->len)
				g->frame[at] = (__u8)rnd();
			break;
		case 6:	/* a byte of the payload's first 64: a label, a record length */
			at = g->l4 + 8 + rnd() % 80;
			if (at < g->len)
				g->frame[at] = (__u8)(rnd() % 2 ? rnd() : rnd() % 70);
			break;
		case 7:	/* a VLAN TPID or the EtherType */
			at = 12 + 4 * (rnd() % 4);
			if (at + 2 <= g->len && at <= g->l3 - 2) {
				static const __u16 types[] = { 0x8100, 0x88a8, 0x0800, 0x86dd,
							       0x0806, 0x9100 };
				__u16 v = types[rnd() % 6];

				g->frame[at] = (__u8)(v >> 8);
				g->frame[at + 1] = (__u8)v;
			}
			break;
		case 8:	/* the IPv6 next header, or the IPv4 protocol */
			at = g->l3 + (g->v6 ? 6 : 9);
			if (at < g->len) {
				static const __u8 protos[] = { 6, 17, 0, 43, 44, 60, 59, 1 };

				g->frame[at] = protos[rnd() % 8];
			}
			break;
		default:	/* bytes appended past the datagram (Ethernet padding) */
			at = g->len + rnd() % 40;
			if (at <= sizeof(g->frame)) {
				memset(g->frame + g->len, (int)(rnd() & 0xff), at - g->len);
				g->len = at;
			}
			break;
		}
	}
}

/* ---- the userspace build of the program's walk ------------------------------------------- */

struct ref {
	struct bb_stats d;	/* the counters it moves */
	bool drop;
	bool pending;		/* a ClientHello walk the kernel keeps for a next segment */
	__u32 name_len;		/* a name extracted (DNS, SNI, Host): key[1 .. name_len] */
	__u8 key[BB_KEYBUF_BYTES];
};

/* A hit of what (an address or a name): counted, asked of the allowlist. */
static bool hit_decided(struct ref *r, __u64 *counter, int allowed)
{
	(*counter)++;
	if (allowed)
		r->d.allowed++;
	return !allowed;
}

/* The peer's address: the source at ingress (XDP, tc ingress), the destination at egress. */
static bool addr_hit(struct ref *r, const struct bb_block *img, const struct bb_packet *pkt,
		     bool egress)
{
	const __u8 *addr = egress ? pkt->daddr : pkt->saddr;
	struct bb_entry e = { 0 };
	bool v4 = pkt->l3_proto == ETH_P_IP;
	int hit = v4 ? bb_image_match_ip4(img, addr) : bb_image_match_ip6(img, addr);

	if (!hit)
		return false;
	e.kind = v4 ? BB_ENTRY_IP4 : BB_ENTRY_IP6;
	e.plen = v4 ? 32 : 128;
	memcpy(e.addr, addr, v4 ? 4 : 16);
	return hit_decided(r, egress ? &r->d.ip_dst_hits : v4 ? &r->d.ip4_hits : &r->d.ip6_hits,
			   bb_image_allowed(img, &e));
}

static bool name_hit(struct ref *r, const struct bb_block *img, const __u8 *key, __u32 len,
		     __u64 *counter)
{
	int allowed, hit = bb_image_match_name_key(img, key, len, &allowed);

	r->name_len = len;	/* the kernel's scratch must hold the same */
	memcpy(r->key, key, sizeof(r->key));
	return hit && hit_decided(r, counter, allowed);
}

static bool port_in(const __u16 *ports, __u16 port)
{
	int i;

	for (i = 0; i < BB_MAX_PORTS; i++)
		if (ports[i] && ports[i] == port)
			return true;
	return false;
}

static bool ref_dns(struct ref *r, const struct bb_block *img, const struct bb_packet *pkt,
		    const __u8 *end)
{
	__u8 key[BB_KEYBUF_BYTES] = { 0 };
	__u32 len = 0;
	int ret = bb_dns_qname(pkt->payload, end, key, &len);

	if (ret == BB_NAME_NONE)
		return false;
	r->d.dns_queries++;
	if (ret == BB_NAME_BAD)
		r->d.dns_unparsed++;
	if (ret != BB_NAME_FOUND)
		return false;
	return name_hit(r, img, key, len, &r->d.dns_hits);
}

static bool ref_tls(struct ref *r, const struct bb_block *img, const struct bb_packet *pkt,
		    const __u8 *end)
{
	const __u8 *p = pkt->payload;
	struct bb_tls_walk w;
	__u8 key[BB_KEYBUF_BYTES] = { 0 };
	__u32 len, i;
	int ret;

	if (pkt->tcp_flags & 0x02 || !pkt->payload_len)
		return false;
	if (p + 1 > end || p[0] != 22)
		return false;
	if (pkt->payload_len >= 2 && (p + 2 > end || p[1] != 3))
		return false;
	if (pkt->payload_len >= 6 && (p + 6 > end || p[5] != 1))
		return false;
	r->d.tls_hellos++;
	memset(&w, 0, sizeof(w));
	w.segments = 1;
	ret = bb_tls_whole(&w, p, end, pkt->payload_len);
	if (ret == BB_TLS_MORE)
		ret = bb_tls_walk(&w, p, end, pkt->payload_len);
	if (ret == BB_TLS_MORE) {
		r->pending = true;
		return false;
	}
	if (w.ech)
		r->d.tls_ech++;
	if (ret == BB_TLS_NO_SNI) {
		r->d.tls_no_sni++;
		return false;
	}
	if (ret != BB_TLS_SNI) {
		r->d.tls_unparsed++;
		return false;
	}
	/* as sni_found() copies it: eight bytes at a time, what is past len too */
	len = w.name_len;
	for (i = 0; i < BB_TLS_BUF && i < len; i += 8)
		memcpy(key + ((1 + i) & (BB_KEYBUF_BYTES / 2 - 1)), w.buf + i, 8);
	if (bb_name_finish(key, &len) != BB_NAME_FOUND) {
		r->d.tls_unparsed++;
		return false;
	}
	return name_hit(r, img, key, len, &r->d.tls_hits);
}

static bool ref_http(struct ref *r, const struct bb_block *img, const struct bb_packet *pkt,
		     const __u8 *end)
{
	__u8 req[BB_HTTP_SCAN_MAX + 8] = { 0 }, key[BB_KEYBUF_BYTES] = { 0 };
	size_t n = pkt->payload_len, have = (size_t)(end - (const __u8 *)pkt->payload);
	__u32 hlen = 0, plen = 0;
	int full = 0, ret;

	if (n > BB_HTTP_SCAN_MAX)
		n = BB_HTTP_SCAN_MAX;
	if (n > have)
		n = have;
	memcpy(req, pkt->payload, n);
	ret = bb_http_request(req, (__u32)n, key, &hlen, &plen, &full);
	if (ret == BB_NAME_NONE)
		return false;
	r->d.http_requests++;
	if (ret != BB_NAME_FOUND) {
		r->d.http_unparsed++;
		return false;
	}
	return name_hit(r, img, key, hlen, &r->d.http_hits);
}

static bool ref_quic(struct ref *r, const struct bb_packet *pkt, const __u8 *end)
{
	const __u8 *p = pkt->payload;
	__u32 version, type;

	if (p + 5 > end || (p[0] & 0xc0) != 0xc0)
		return false;
	version = (__u32)p[1] << 24 | (__u32)p[2] << 16 | (__u32)p[3] << 8 | p[4];
	type = (p[0] >> 4) & 3;
	if (!version || (version == 0x6b3343cf ? type != 1 : type != 0))
		return false;
	r->d.quic_initials++;
	return false;	/* no --block-quic */
}

/*
 * bloomblock_xdp() (or tc_run()), bb_service_*() and bb_name_*() in the order they
 * run; egress: tc egress's, which checks the destination.
 */
static void reference(struct ref *r, const struct bb_block *img, __u8 *frame, size_t len,
		      bool egress)
{
	const struct bb_header *hdr = (const void *)&img[BB_HEADER_INDEX];
	const struct bb_config *cfg = (const void *)&img[BB_CONFIG_INDEX];
	struct bb_cursor cur = { .pos = frame, .end = frame + len };
	const __u8 *end = frame + len;
	struct bb_packet pkt;
	bool hit;
	int ret;

	memset(r, 0, sizeof(*r));
	memset(&pkt, 0, sizeof(pkt));
	r->d.packets = 1;
	ret = bb_parse_packet(&cur, &pkt);
	if (pkt.vlans)
		r->d.vlan = 1;
	if (ret != BB_PARSE_OK) {
		if (ret == BB_PARSE_NON_IP)
			r->d.non_ip = 1;
		else if (ret == BB_PARSE_TRUNCATED)
			r->d.truncated = 1;
		else
			r->d.malformed = 1;
		r->d.passed = 1;
		return;
	}
	if (pkt.l3_proto == ETH_P_IP)
		r->d.ipv4 = 1;
	else
		r->d.ipv6 = 1;
	hit = addr_hit(r, img, &pkt, egress);
	if (!hit && (hdr->flags & BB_HDR_F_SERVICES) && bb_parse_l4(&cur, &pkt) == BB_PARSE_OK &&
	    (size_t)((__u8 *)pkt.payload - frame) <= 1024 && pkt.payload_len <= 0xffff) {
		if (pkt.l4_proto == IPPROTO_UDP) {
			if (port_in(cfg->dns_ports, pkt.dport))
				hit = ref_dns(r, img, &pkt, end);
			else if (port_in(cfg->quic_ports, pkt.dport))
				hit = ref_quic(r, &pkt, end);
		} else if (pkt.payload_len || (pkt.tcp_flags & 0x02)) {
			if (port_in(cfg->tls_ports, pkt.dport))
				hit = ref_tls(r, img, &pkt, end);
			else if (pkt.payload_len && port_in(cfg->http_ports, pkt.dport))
				hit = ref_http(r, img, &pkt, end);
		}
	}
	r->drop = hit;
	if (hit)
		r->d.dropped = 1;
	else
		r->d.passed = 1;
}

/* ---- the comparison -------------------------------------------------------------------- */

/*
 * The kernel's extracted name: struct bb_scratch's key and name_len, found by their
 * offsets in the object's BTF, read from this CPU's slot (the test pins itself to
 * one CPU; a test run runs on the caller's).
 */
static struct {
	int fd, ncpus;
	size_t size, key_off, len_off;
	__u8 *values;
} scratch = { .fd = -1 };

static bool scratch_open(void)
{
	const struct btf *btf = bpf_object__btf(harness.skel->obj);
	const struct btf_member *m;
	const struct btf_type *t;
	int id, i;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, "bb_scratch", BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	if (!t)
		return false;
	scratch.size = (t->size + 7) & ~7U;
	scratch.key_off = scratch.len_off = (size_t)-1;
	for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);

		if (!strcmp(name, "key"))
			scratch.key_off = m->offset / 8;
		else if (!strcmp(name, "name_len"))
			scratch.len_off = m->offset / 8;
	}
	scratch.ncpus = libbpf_num_possible_cpus();
	scratch.values = calloc((size_t)scratch.ncpus, scratch.size);
	scratch.fd = bpf_map__fd(harness.skel->maps.scratch);
	return scratch.values && scratch.ncpus > 0 && scratch.key_off != (size_t)-1 &&
	       scratch.len_off != (size_t)-1;
}

/* Whether this CPU's scratch holds the name r extracted; what it holds, said in msg. */
static bool scratch_agrees(const struct ref *r, int cpu, char *msg, size_t size)
{
	__u32 zero = 0, len;
	const __u8 *v;

	if (bpf_map_lookup_elem(scratch.fd, &zero, scratch.values)) {
		appendf(msg, size, "scratch not read: %s; ", strerror(errno));
		return false;
	}
	v = scratch.values + (size_t)cpu * scratch.size;
	memcpy(&len, v + scratch.len_off, sizeof(len));
	if (len == r->name_len && len < BB_KEYBUF_BYTES &&
	    !memcmp(v + scratch.key_off + 1, r->key + 1, len))
		return true;
	appendf(msg, size, "the kernel extracted %u bytes \"%.*s\", the reference %u \"%.*s\"; ",
		len, (int)(len < 200 ? len : 200), (const char *)v + scratch.key_off + 1,
		r->name_len, (int)(r->name_len < 200 ? r->name_len : 200),
		(const char *)r->key + 1);
	return false;
}

#define HOOKS	3

struct hook {
	const char *name;
	bool skb;	/* a tc program: __sk_buff in, TC_ACT_SHOT or TC_ACT_UNSPEC out */
	bool egress;
	int fd;
};

/*
 * A frame whose EtherType says IPv4 or IPv6 but ends inside that header: a tc test
 * run refuses it (the kernel pulls the IP header to set the skb's network header),
 * though a driver may hand tc one. XDP runs it.
 */
static bool short_ip(const __u8 *f, size_t len)
{
	__u16 type = (__u16)(f[12] << 8 | f[13]);

	return (type == ETH_P_IP && len < ETH_HLEN + 20) ||
	       (type == ETH_P_IPV6 && len < ETH_HLEN + 40);
}

/* Every walk the flows map keeps, deleted (its keys: at most 256 bytes). */
static void flows_clear(int fd)
{
	__u8 next[256];

	while (!bpf_map_get_next_key(fd, NULL, next))
		bpf_map_delete_elem(fd, next);
}

static void hexdump(const __u8 *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("%s%02x", i % 32 ? "" : "\n#   ", p[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	static const char *const kind_names[] = { "plain", "dns", "tls", "http", "quic", "syn" };
	const char *np = getenv("BB_DIFF_PACKETS"), *only = getenv("BB_DIFF_PACKET");
	const char *quick = getenv("BB_QUICK");
	size_t n = np ? strtoul(np, NULL, 0) : quick && !strcmp(quick, "1") ? 20000 : 100000;
	size_t i, disagree = 0, drops = 0, mutated = 0, by_kind[K_MAX] = { 0 }, only_i = 0;
	struct harness_filter hf = { .setup = HARNESS_LIST, .lines = lines,
				     .flags = BB_HDR_F_DROP };
	struct bb_stats moved_any = { 0 };
	struct bb_list list;
	char msg[2048] = "";
	struct hook hooks[HOOKS] = {
		{ "xdp", false, false, -1 }, { "tc ingress", true, false, -1 },
		{ "tc egress", true, true, -1 },
	};
	size_t runs = 0, tc_short = 0, names_compared = 0, h;
	cpu_set_t one;
	int cpu;
	int flows_fd;

	if (!harness_begin(argc, argv, "bloomblock differential BPF_PROG_TEST_RUN"))
		return harness_end();
	if (!harness_load())
		return harness_end();
	hooks[0].fd = bpf_program__fd(harness.skel->progs.bloomblock_xdp);
	hooks[1].fd = bpf_program__fd(harness.skel->progs.bloomblock_tc_ingress);
	hooks[2].fd = bpf_program__fd(harness.skel->progs.bloomblock_tc_egress);
	flows_fd = bpf_map__fd(harness.skel->maps.flows);
	/* one CPU, so the test runs and the scratch read are that CPU's */
	cpu = sched_getcpu();
	CPU_ZERO(&one);
	CPU_SET(cpu < 0 ? 0 : cpu, &one);
	if (!ASSERT_TRUE(cpu >= 0 && !sched_setaffinity(0, sizeof(one), &one) && scratch_open(),
			 "pinned to one CPU; the scratch map's key and name_len found in the BTF"))
		return harness_end();
	bb_list_init(&list);
	if (!ASSERT_EQ(harness_setup_filter(&hf, &list, msg, sizeof(msg)), 0,
		       "the differential filter is live (addresses, names, wildcards, allowlist)")) {
		printf("# %s\n", msg);
		return harness_end();
	}
	if (only) {
		only_i = strtoul(only, NULL, 0);
		n = only_i + 1;
	}
	for (i = 0; i < n; i++) {
		struct gen g;
		struct ref r;
		struct bb_stats delta;
		__u8 copy[MAX_FRAME];
		__u32 retval = 0;
		size_t s;
		bool kdrop;

		build(&g, i);
		mutate(&g);
		if (only && i != only_i)
			continue;
		by_kind[g.kind]++;
		mutated += g.mutations > 0;
		for (h = 0; h < HOOKS; h++) {
			const struct hook *hk = &hooks[h];
			__u32 drop_ret = hk->skb ? TC_ACT_SHOT : XDP_DROP;
			__u32 pass_ret = hk->skb ? (__u32)TC_ACT_UNSPEC : XDP_PASS;

			memcpy(copy, g.frame, g.len);
			reference(&r, harness.img.blocks, copy, g.len, hk->egress);
			memset(msg, 0, sizeof(msg));
			memcpy(copy, g.frame, g.len);
			if (harness_run_counted(hk->fd, hk->skb, copy, g.len, &retval, NULL, &delta)) {
				if (hk->skb && errno == EINVAL && short_ip(g.frame, g.len)) {
					tc_short++;	/* test runs refuse it; tc sees one */
					continue;
				}
				tap_result(0, "BPF_PROG_TEST_RUN runs", "packet %zu at %s, %zu bytes: %s",
					   i, hk->name, g.len, strerror(errno));
				hexdump(g.frame, g.len);
				goto out;
			}
			if (r.pending || g.kind == K_TLS)
				flows_clear(flows_fd);
			kdrop = retval == drop_ret;
			delta.lookups = r.d.lookups = 0;	/* the matcher counts no blocks read */
			harness_stats_compare(&delta, &r.d, msg, sizeof(msg));
			if (r.name_len) {
				names_compared++;
				scratch_agrees(&r, cpu, msg, sizeof(msg));
			}
			if (kdrop != r.drop || (retval != drop_ret && retval != pass_ret))
				appendf(msg, sizeof(msg), "verdict %d, the reference says %s; ",
					(int)retval, r.drop ? "drop" : "pass");
			for (s = 0; s < N_STATS; s++)
				((__u64 *)&moved_any)[s] += ((__u64 *)&delta)[s];
			drops += kdrop;
			runs++;
			if (!msg[0])
				continue;
			if (++disagree <= 5) {
				printf("# packet %zu at %s (%s, %s, %d mutations, %zu bytes) "
				       "disagrees: %s", i, hk->name, kind_names[g.kind],
				       g.v6 ? "IPv6" : "IPv4", g.mutations, g.len, msg);
				hexdump(g.frame, g.len);
				printf("# repro: BB_TEST_SEED=0x%llx BB_DIFF_PACKET=%zu %s\n",
				       (unsigned long long)harness.rng_seed, i, argv[0]);
			}
		}
	}
out:
	printf("# %zu packets: %zu dns, %zu tls, %zu http, %zu quic, %zu syn, %zu plain; "
	       "%zu mutated; %zu dropped\n", n - (only ? only_i : 0), by_kind[K_DNS],
	       by_kind[K_TLS], by_kind[K_HTTP], by_kind[K_QUIC], by_kind[K_SYN], by_kind[K_PLAIN],
	       mutated, drops);
	printf("# counters moved: packets %llu, truncated %llu, malformed %llu, non_ip %llu, "
	       "vlan %llu, dns_queries %llu, dns_unparsed %llu, tls_hellos %llu, tls_unparsed "
	       "%llu, tls_no_sni %llu, http_requests %llu, http_unparsed %llu, quic_initials %llu, "
	       "allowed %llu, ip4_hits %llu, ip6_hits %llu, dns_hits %llu, tls_hits %llu, "
	       "http_hits %llu\n",
	       (unsigned long long)moved_any.packets, (unsigned long long)moved_any.truncated,
	       (unsigned long long)moved_any.malformed, (unsigned long long)moved_any.non_ip,
	       (unsigned long long)moved_any.vlan, (unsigned long long)moved_any.dns_queries,
	       (unsigned long long)moved_any.dns_unparsed, (unsigned long long)moved_any.tls_hellos,
	       (unsigned long long)moved_any.tls_unparsed, (unsigned long long)moved_any.tls_no_sni,
	       (unsigned long long)moved_any.http_requests,
	       (unsigned long long)moved_any.http_unparsed,
	       (unsigned long long)moved_any.quic_initials, (unsigned long long)moved_any.allowed,
	       (unsigned long long)moved_any.ip4_hits, (unsigned long long)moved_any.ip6_hits,
	       (unsigned long long)moved_any.dns_hits, (unsigned long long)moved_any.tls_hits,
	       (unsigned long long)moved_any.http_hits);
	printf("# ... ip_dst_hits %llu\n", (unsigned long long)moved_any.ip_dst_hits);
	printf("# %zu extracted names compared byte for byte with the kernel's scratch\n",
	       names_compared);
	printf("# %zu test runs (every packet at XDP, tc ingress and tc egress; %zu at tc not "
	       "run: test runs refuse a frame cut inside its IP header)\n", runs, tc_short);
	tap_result(!disagree, "differential: the kernel programs (XDP, tc ingress, tc egress) and "
		   "their userspace build agree on every packet's verdict and counters",
		   "%zu of %zu runs disagree", disagree, runs);
	tap_result(only || (drops > n / 20 && mutated > n / 3 && moved_any.allowed &&
			    moved_any.truncated && moved_any.malformed && moved_any.tls_hits &&
			    moved_any.dns_hits && moved_any.http_hits && moved_any.dns_unparsed &&
			    moved_any.tls_unparsed && moved_any.ip_dst_hits),
		   "differential: the packets reach every verdict and every parser's outcome",
		   "%zu dropped, %zu mutated", drops, mutated);
	bb_list_free(&list);
	return harness_end();
}

// SPDX-License-Identifier: GPL-2.0
/* The packet builders of pkt.h: a bounded write cursor, then one function per header. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <linux/if_ether.h>
#include <linux/in.h>

#include "bb_tls.h"
#include "pkt.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * Builders append through a cursor that refuses to pass cap: a write that does
 * not fit marks the cursor full and writes nothing, and the builder returns 0.
 * Length fields are patched in place once what they count is written.
 */
struct pkt_buf {
	__u8 *p;
	size_t len, cap;
	bool full;
};

static __u8 *room(struct pkt_buf *b, size_t n)
{
	__u8 *at;

	if (b->full || n > b->cap - b->len) {
		b->full = true;
		return NULL;
	}
	at = b->p + b->len;
	b->len += n;
	return at;
}

static void put8(struct pkt_buf *b, __u8 v)
{
	__u8 *at = room(b, 1);

	if (at)
		*at = v;
}

static void patch16(struct pkt_buf *b, size_t off, __u16 v)
{
	if (off + 2 > b->len)
		return;
	b->p[off] = v >> 8;
	b->p[off + 1] = v & 0xff;
}

/* Network byte order. */
static void put16(struct pkt_buf *b, __u16 v)
{
	if (room(b, 2))
		patch16(b, b->len - 2, v);
}

static void put32(struct pkt_buf *b, __u32 v)
{
	put16(b, v >> 16);
	put16(b, v & 0xffff);
}

static void put_bytes(struct pkt_buf *b, const void *data, size_t n)
{
	__u8 *at = room(b, n);

	if (at && n)
		memcpy(at, data, n);
}

static void put_fill(struct pkt_buf *b, __u8 c, size_t n)
{
	__u8 *at = room(b, n);

	if (at)
		memset(at, c, n);
}

static size_t done(const struct pkt_buf *b)
{
	return b->full ? 0 : b->len;
}

__u32 pkt_sum16(const __u8 *p, size_t len, __u32 sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (__u32)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (__u32)p[len - 1] << 8;
	return sum;
}

__u16 pkt_csum_fold(__u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/* The IPv4 header checksum (RFC 1071) over len bytes. */
static __u16 ip_checksum(const __u8 *p, size_t len)
{
	return pkt_csum_fold(pkt_sum16(p, len, 0));
}

/* ---- Ethernet to L4 ---- */

/* Locally administered: to 02:00:00:00:00:02, from 02:00:00:00:00:01. */
static const __u8 default_macs[12] = { 0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01 };

static void put_addr(struct pkt_buf *b, const char *text, const __u8 *bin, const char *dflt,
		     bool v6)
{
	__u8 addr[16] = {};

	if (!text && bin)
		memcpy(addr, bin, v6 ? 16 : 4);
	else if (text || dflt)
		inet_pton(v6 ? AF_INET6 : AF_INET, text ? text : dflt, addr);
	put_bytes(b, addr, v6 ? 16 : 4);
}

static void put_eth(struct pkt_buf *b, const struct pkt_frame *f)
{
	static const __u16 own[PKT_OTHER + 1] = {
		[PKT_IPV4] = ETH_P_IP, [PKT_IPV6] = ETH_P_IPV6, [PKT_ARP] = ETH_P_ARP,
	};
	__u16 vlan_id = f->vlan_id ? f->vlan_id : PKT_VLAN_ID;
	unsigned int i;

	put_bytes(b, f->macs ? f->macs : default_macs, 12);
	for (i = 0; i < ARRAY_SIZE(f->tags) && f->tags[i]; i++) {
		put16(b, f->tags[i]);
		put16(b, vlan_id + i);		/* TCI: priority 0, the VLAN id */
	}
	put16(b, f->ethertype ? f->ethertype : own[f->net]);
}

/*
 * IHL is the field as sent; the header has max(20, 4 * IHL) bytes, the ones past
 * 20 NOP options, so that a bad IHL under 5 still comes with a whole base header.
 */
static void put_ipv4(struct pkt_buf *b, const struct pkt_frame *f, __u8 proto, size_t l4_len)
{
	unsigned int ihl = PKT_FIELD(f->ihl, 5) & 0xf;
	size_t at = b->len, hdr_len = ihl < 5 ? 20 : 4 * ihl;

	put8(b, (PKT_FIELD(f->version, 4) << 4 | ihl) & 0xff);
	put8(b, 0);				/* DSCP, ECN */
	put16(b, hdr_len + l4_len);
	put16(b, PKT_FIELD(f->ip_id, PKT_IP_ID));
	put16(b, f->frag);
	put8(b, 64);				/* TTL */
	put8(b, proto);
	put16(b, 0);				/* the checksum, below */
	put_addr(b, f->saddr, f->saddr_bin, NULL, false);
	put_addr(b, f->daddr, f->daddr_bin, PKT_DADDR4, false);
	put_fill(b, 1, hdr_len - 20);
	if (!b->full)
		patch16(b, at + 10, f->ip_csum ? PKT_FIELD(f->ip_csum, 0) :
				    ip_checksum(b->p + at, hdr_len));
}

static __u8 ext6_proto(char c)
{
	switch (c) {
	case 'H':
	case 'h':
		return IPPROTO_HOPOPTS;
	case 'D':
		return IPPROTO_DSTOPTS;
	default:
		return IPPROTO_FRAGMENT;
	}
}

/*
 * Extension headers, 8 bytes each: H hop-by-hop and D destination options, each
 * padded by one PadN; h hop-by-hop padded by six Pad1; F the first fragment
 * (offset 0, more to come); f a later one (offset 256 bytes, the last).
 */
static void put_ipv6(struct pkt_buf *b, const struct pkt_frame *f, __u8 proto, size_t l4_len)
{
	const char *e = f->ext6 ? f->ext6 : "";
	size_t n = strlen(e), i;

	put32(b, PKT_FIELD(f->version, 6) << 28);	/* traffic class, flow label 0 */
	put16(b, 8 * n + l4_len);
	put8(b, n ? ext6_proto(e[0]) : proto);
	put8(b, 64);					/* hop limit */
	put_addr(b, f->saddr, f->saddr_bin, NULL, true);
	put_addr(b, f->daddr, f->daddr_bin, PKT_DADDR6, true);
	for (i = 0; i < n; i++) {
		put8(b, i + 1 < n ? ext6_proto(e[i + 1]) : proto);
		put8(b, 0);				/* length 8 bytes; fragment: reserved */
		if (e[i] == 'F' || e[i] == 'f') {
			put16(b, e[i] == 'F' ? 0x0001 : 0x0100);
			put32(b, 0);			/* identification */
		} else if (e[i] == 'h') {
			put_fill(b, 0, 6);
		} else {
			put8(b, 1);			/* PadN of 4 */
			put8(b, 4);
			put32(b, 0);
		}
	}
}

static void put_arp(struct pkt_buf *b, const struct pkt_frame *f)
{
	put16(b, 1);				/* Ethernet */
	put16(b, ETH_P_IP);
	put8(b, 6);
	put8(b, 4);
	put16(b, 1);				/* request */
	put_bytes(b, (f->macs ? f->macs : default_macs) + 6, 6);
	put_addr(b, f->saddr, f->saddr_bin, NULL, false);
	put_fill(b, 0, 6);			/* target MAC: unknown */
	put_addr(b, f->daddr, f->daddr_bin, PKT_DADDR4, false);
}

/*
 * UDP, or TCP with PSH, ACK: the payload starts where doff says, after zero options
 * or, for a doff under 5, over the last fields of the 20-byte header.
 */
static void put_l4(struct pkt_buf *b, const struct pkt_frame *f, __u8 proto, const void *payload,
		   size_t len)
{
	size_t at = b->len, doff = PKT_FIELD(f->doff, 5);

	put16(b, f->sport);
	put16(b, f->dport);
	if (proto != IPPROTO_TCP) {
		put16(b, 8 + len);
		put16(b, 0);			/* no checksum: the programs do not check it */
		put_bytes(b, payload, len);
		return;
	}
	put32(b, f->seq);
	put32(b, PKT_FIELD(f->ack, 1));
	put8(b, doff << 4);
	put8(b, 0x18);				/* PSH, ACK */
	put16(b, PKT_FIELD(f->window, 64240));
	put32(b, 0);				/* checksum, urgent pointer */
	if (doff > 5)
		put_fill(b, 0, 4 * doff - 20);
	else if (!b->full)
		b->len = at + 4 * doff;
	put_bytes(b, payload, len);
}

size_t pkt_frame(const struct pkt_frame *f, const void *payload, size_t len, __u8 *p,
		 size_t cap)
{
	struct pkt_buf b = { .p = p, .cap = cap };
	__u8 proto = f->proto ? f->proto : IPPROTO_UDP;
	size_t l4_len = (proto == IPPROTO_TCP ? 4 * PKT_FIELD(f->doff, 5) : 8) + len;

	put_eth(&b, f);
	switch (f->net) {
	case PKT_IPV4:
		put_ipv4(&b, f, proto, l4_len);
		put_l4(&b, f, proto, payload, len);
		break;
	case PKT_IPV6:
		put_ipv6(&b, f, proto, l4_len);
		put_l4(&b, f, proto, payload, len);
		break;
	case PKT_ARP:
		put_arp(&b, f);
		put_bytes(&b, payload, len);
		break;
	default:
		put_bytes(&b, payload, len);
		break;
	}
	put_fill(&b, 0, f->padding);
	return done(&b);
}

static const char bench_daddr4[] = "198.51.100.1", bench_daddr6[] = "2001:db8::1";

size_t pkt_udp4(__u8 *p, const __u8 *saddr, __u16 sport, __u16 dport, const void *payload,
		size_t len)
{
	struct pkt_frame f = { .net = PKT_IPV4, .saddr_bin = saddr, .daddr = bench_daddr4,
			       .ip_id = PKT_SET(0), .sport = sport, .dport = dport };

	return pkt_frame(&f, payload, len, p, PKT_MAX);
}

size_t pkt_udp6(__u8 *p, const __u8 *saddr, __u16 sport, __u16 dport, const void *payload,
		size_t len)
{
	struct pkt_frame f = { .net = PKT_IPV6, .saddr_bin = saddr, .daddr = bench_daddr6,
			       .sport = sport, .dport = dport };

	return pkt_frame(&f, payload, len, p, PKT_MAX);
}

size_t pkt_tcp4(__u8 *p, const __u8 *saddr, __u16 sport, __u16 dport, __u32 seq,
		const void *payload, size_t len)
{
	struct pkt_frame f = { .net = PKT_IPV4, .proto = IPPROTO_TCP, .saddr_bin = saddr,
			       .daddr = bench_daddr4, .ip_id = PKT_SET(0), .sport = sport,
			       .dport = dport, .seq = seq };

	return pkt_frame(&f, payload, len, p, PKT_MAX);
}

/* ---- DNS ---- */

/* A DNS name in wire form from a dotted one ("\3www\7example\0"; "" is the root). */
static void put_dns_name(struct pkt_buf *b, const char *dotted)
{
	while (*dotted) {
		const char *dot = strchr(dotted, '.');
		size_t n = dot ? (size_t)(dot - dotted) : strlen(dotted);

		put8(b, n);
		put_bytes(b, dotted, n);
		dotted += n + (dot ? 1 : 0);
	}
	put8(b, 0);
}

size_t pkt_dns(const struct pkt_dns *q, __u8 *p, size_t cap)
{
	struct pkt_buf b = { .p = p, .cap = cap };

	put16(&b, PKT_FIELD(q->id, 0x1234));
	put8(&b, PKT_FIELD(q->flags, 0x01));
	put8(&b, 0);				/* RA, Z, RCODE */
	put16(&b, PKT_FIELD(q->qdcount, 1));
	put_fill(&b, 0, 4);			/* no answers, authorities */
	put16(&b, q->opt_len ? 1 : 0);		/* additionals: the OPT */
	if (q->wire)
		put_bytes(&b, q->wire, q->wire_len);
	else
		put_dns_name(&b, q->name ? q->name : "");
	put16(&b, q->qtype ? q->qtype : 1);	/* A */
	put16(&b, 1);				/* IN */
	if (q->opt_len >= 4) {
		put8(&b, 0);			/* the root */
		put16(&b, 41);			/* OPT */
		put16(&b, 1232);		/* the UDP payload size */
		put32(&b, 0);			/* extended RCODE, version, flags */
		put16(&b, q->opt_len);
		put16(&b, 12);			/* Padding */
		put16(&b, q->opt_len - 4);
		put_fill(&b, 0, q->opt_len - 4);
	}
	return done(&b);
}

/* ---- TLS ClientHello ---- */

static const __u16 browser_suites[] = {
	0x5a5a, 0x1301, 0x1302, 0x1303, 0xc02b, 0xc02f, 0xc02c, 0xc030,
	0xcca9, 0xcca8, 0xc013, 0xc014, 0x009c, 0x009d, 0x002f, 0x0035,
};
static const __u16 bare_suites[] = { 0x1313, 0x1313, 0x1313 };

static const struct hello_client {
	__u8 random;		/* random[i] = random + i */
	__u8 session_id;	/* session_id[i] = session_id + i, for 32 bytes */
	__u8 session_id_33;	/* the byte that PKT_LIE_SESSION_ID_33 adds */
	const __u16 *suites;
	unsigned int n_suites;
} clients[PKT_CLIENT_MAX] = {
	[PKT_CLIENT_BROWSER] = { 0x40, 0x80, 0xa0, browser_suites, ARRAY_SIZE(browser_suites) },
	[PKT_CLIENT_BARE] = { 0x00, 0xa0, 0xa0, bare_suites, ARRAY_SIZE(bare_suites) },
};

static void put_ext(struct pkt_buf *b, __u16 type, const void *data, size_t len)
{
	put16(b, type);
	put16(b, len);
	put_bytes(b, data, len);
}

/* An extension of len bytes of c. */
static void put_ext_fill(struct pkt_buf *b, __u16 type, __u8 c, size_t len)
{
	put16(b, type);
	put16(b, len);
	put_fill(b, c, len);
}

static void put_ech_outer(struct pkt_buf *b)
{
	unsigned int i;

	put16(b, BB_TLS_EXT_ECH);
	put16(b, 42 + 192);
	put8(b, 0);				/* outer */
	put16(b, 1);				/* HKDF-SHA256 */
	put16(b, 1);				/* AES-128-GCM */
	put8(b, 0x2a);				/* config id */
	put16(b, 32);
	put_fill(b, 0xcd, 32);			/* encapsulated key */
	put16(b, 192);
	for (i = 0; i < 192; i++)
		put8(b, 0x30 + i % 64);		/* payload */
}

/* The extensions whose bytes never change, by their letters (put_extension()). */
static const __u8 ext_zero[] = { 0 }, ext_points[] = { 1, 0 }, ext_psk[] = { 1, 1 };
static const __u8 ext_groups[] = { 0, 8, 0x1a, 0x1a, 0x11, 0xec, 0x00, 0x1d, 0x00, 0x17 };
static const __u8 ext_alpn[] = { 0, 12, 2, 'h', '2', 8, 'h', 't', 't', 'p', '/', '1', '.', '1' };
static const __u8 ext_sigalgs[] = { 0, 16, 4, 3, 8, 4, 4, 1, 5, 3, 8, 5, 5, 1, 8, 6, 6, 1 };
static const __u8 ext_versions[] = { 6, 0x2a, 0x2a, 3, 4, 3, 3 }, ext_tls13[] = { 3, 4 };
static const __u8 ext_alps[] = { 0, 3, 2, 'h', '2' };
static const __u8 ext_status[] = { 1, 0, 0, 0, 0 };

static const struct fixed_ext {
	char letter;
	__u16 type;
	const __u8 *data;
	size_t len;
} fixed_exts[] = {
	{ 'B', 0x0017, NULL, 0 },				/* extended_master_secret */
	{ 'R', 0xff01, ext_zero, sizeof(ext_zero) },		/* renegotiation_info */
	{ 'C', 0x000a, ext_groups, sizeof(ext_groups) },	/* supported_groups */
	{ 'O', 0x000b, ext_points, sizeof(ext_points) },	/* ec_point_formats */
	{ 'T', 0x0023, NULL, 0 },				/* session_ticket */
	{ 'A', 0x0010, ext_alpn, sizeof(ext_alpn) },		/* ALPN: h2, http/1.1 */
	{ 'Q', 0x0005, ext_status, sizeof(ext_status) },	/* status_request */
	{ 'W', 0x000d, ext_sigalgs, sizeof(ext_sigalgs) },	/* signature_algorithms */
	{ 'V', 0x002b, ext_versions, sizeof(ext_versions) },	/* supported_versions */
	{ 'v', 0x002b, ext_tls13, sizeof(ext_tls13) },		/* ... of TLS 1.3 alone */
	{ 'M', 0x002d, ext_psk, sizeof(ext_psk) },		/* psk_key_exchange_modes */
	{ 'X', 0x4469, ext_alps, sizeof(ext_alps) },		/* ALPS */
};

/*
 * One extension by its letter: those of fixed_exts, and G GREASE (empty), g GREASE
 * (one byte), S server_name, K key_share (an X25519 or X25519MLKEM768 share), k
 * key_share of opaque bytes, E encrypted_client_hello (outer), e
 * encrypted_client_hello of 40 opaque bytes, P padding. *grease counts the GREASE
 * values used. An unknown letter adds nothing.
 */
static void put_extension(struct pkt_buf *b, const struct pkt_hello *h, char c,
			  unsigned int *grease)
{
	const char *sni = h->sni ? h->sni : "";
	const struct fixed_ext *f;
	size_t n;

	for (f = fixed_exts; f < fixed_exts + ARRAY_SIZE(fixed_exts); f++)
		if (f->letter == c)
			return put_ext(b, f->type, f->data, f->len);
	switch (c) {
	case 'G':
	case 'g':
		n = (*grease)++ % 16;
		return put_ext(b, 0x0a0a + 0x1010 * n, ext_zero, c == 'g');
	case 'S':
		n = strlen(sni);
		put16(b, BB_TLS_EXT_SERVER_NAME);
		put16(b, 5 + n);
		put16(b, 3 + n);		/* the list */
		put8(b, 0);			/* host_name */
		put16(b, n);
		return put_bytes(b, sni, n);
	case 'K':
		n = h->key_share ? h->key_share : 32;
		put16(b, 0x0033);
		put16(b, 6 + n);
		put16(b, 4 + n);		/* the client's shares */
		put16(b, n > 32 ? 0x11ec : 0x001d);	/* X25519MLKEM768 or X25519 */
		put16(b, n);
		return put_fill(b, 0xab, n);
	case 'k':
		return put_ext_fill(b, 0x0033, 0xab, h->key_share);
	case 'E':
		return put_ech_outer(b);
	case 'e':
		return put_ext_fill(b, BB_TLS_EXT_ECH, 0xec, 40);
	case 'P':
		return put_ext_fill(b, 0x0015, 0, h->padding);
	default:
		return;
	}
}

/* Version, random, session id, cipher suites and compression, as the client sends them. */
static void put_hello_head(struct pkt_buf *b, const struct pkt_hello *h)
{
	const struct hello_client *c = &clients[h->client < PKT_CLIENT_MAX ? h->client : 0];
	unsigned int i, n_suites = h->lie == PKT_LIE_CIPHERS_ZERO ? 0 : c->n_suites;

	put16(b, 0x0303);			/* TLS 1.2, as TLS 1.3 clients say too */
	for (i = 0; i < 32; i++)
		put8(b, c->random + i);
	put8(b, h->lie == PKT_LIE_SESSION_ID_33 ? 33 : 32);
	for (i = 0; i < 32; i++)
		put8(b, c->session_id + i);
	if (h->lie == PKT_LIE_SESSION_ID_33)
		put8(b, c->session_id_33);
	put16(b, 2 * n_suites - (h->lie == PKT_LIE_CIPHERS_ODD));
	for (i = 0; i < n_suites; i++)
		put16(b, c->suites[i]);
	if (h->lie == PKT_LIE_NO_COMPRESSION) {
		put8(b, 0);
	} else {
		put8(b, 1);
		put8(b, 0);			/* null */
	}
}

/* The lies told inside the server_name extension at sni_ext, once all is written. */
static void lie_in_sni(struct pkt_buf *b, const struct pkt_hello *h, size_t sni_ext)
{
	size_t n = strlen(h->sni ? h->sni : ""), past_end = b->len - (sni_ext + 9) + 1;

	switch (h->lie) {
	case PKT_LIE_SNI_LIST_SHORT:
		return patch16(b, sni_ext + 4, 3 + n - 1);
	case PKT_LIE_SNI_TYPE:
		b->p[sni_ext + 6] = 1;
		return;
	case PKT_LIE_SNI_EMPTY_NAME:
		return patch16(b, sni_ext + 7, 0);
	case PKT_LIE_SNI_EXT_SHORT:
		return patch16(b, sni_ext + 2, 4);
	case PKT_LIE_SNI_ALL_PAST_END:
		patch16(b, sni_ext + 4, 0xffff);
		/* fall through */
	case PKT_LIE_SNI_NAME_PAST_END:
		return patch16(b, sni_ext + 7, past_end);
	default:
		return;
	}
}

/*
 * Record header (5 bytes), handshake header (4), the head, then the extensions in
 * h->exts order. Lengths are patched once their contents are written, each lie
 * after the true value it replaces.
 */
size_t pkt_hello(const struct pkt_hello *h, __u8 *p, size_t cap, size_t *sni_off)
{
	struct pkt_buf b = { .p = p, .cap = cap };
	const char *e = h->exts ? h->exts : PKT_EXTS_BROWSER;
	size_t exts_at = 0, first_ext = 0, sni_ext = 0;
	unsigned int grease = 0;

	*sni_off = 0;
	put8(&b, h->lie == PKT_LIE_RECORD_TYPE ? 23 : 22);	/* handshake */
	put8(&b, h->lie == PKT_LIE_RECORD_VERSION ? 2 : 3);	/* 3.1 (TLS 1.0), as clients */
	put8(&b, 1);						/* send it in a ClientHello */
	put16(&b, 0);						/* record length */
	put8(&b, h->lie == PKT_LIE_HS_TYPE ? 2 : 1);		/* ClientHello */
	put8(&b, 0);						/* handshake length */
	put16(&b, 0);
	put_hello_head(&b, h);
	if (h->lie != PKT_LIE_NO_EXTENSIONS) {
		exts_at = b.len;
		put16(&b, 0);
		first_ext = b.len;
		for (; *e; e++) {
			if (*e == 'S')
				sni_ext = b.len;
			put_extension(&b, h, *e, &grease);
		}
		patch16(&b, exts_at, b.len - exts_at - 2 + (h->lie == PKT_LIE_EXTS_PAST_HELLO));
		if (h->lie == PKT_LIE_EXTS_ONE_BYTE && b.len >= exts_at + 3) {
			patch16(&b, exts_at, 1);
			b.len = exts_at + 3;
		}
	}
	if (b.full)
		return 0;
	patch16(&b, 7, b.len - 9 + (h->lie == PKT_LIE_HS_PAST_RECORD));
	patch16(&b, 3, h->lie == PKT_LIE_RECORD_SHORT ? 3 : b.len - 5);
	if (sni_ext) {
		*sni_off = sni_ext + 9;
		lie_in_sni(&b, h, sni_ext);
	}
	if (h->lie == PKT_LIE_EXT_PAST_END && first_ext < b.len)
		patch16(&b, first_ext + 2, b.len - first_ext - 4 + 1);
	return b.len;
}

/* ---- QUIC, HTTP ---- */

size_t pkt_quic(const struct pkt_quic *q, __u8 *p, size_t cap)
{
	struct pkt_buf b = { .p = p, .cap = cap };

	put8(&b, q->first);
	put32(&b, q->version);
	put8(&b, 8);				/* DCID length */
	put_fill(&b, 0x77, 8);
	put8(&b, 0);				/* SCID length */
	put8(&b, 0);				/* token length */
	put16(&b, 0x4000 | 1182);		/* length, a 2-byte varint: to byte 1200 */
	put_fill(&b, 0, 1200 - 18);
	return done(&b);
}

size_t pkt_http_get(__u8 *p, size_t cap, const char *path, const char *host,
		    const char *headers)
{
	int n = snprintf((char *)p, cap, "GET %s HTTP/1.1\r\nHost: %s\r\n%s\r\n", path, host,
			 headers ? headers : "");

	return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

size_t pkt_payload(const struct pkt_payload *pl, __u8 *p, size_t cap, size_t *sni_off)
{
	size_t n;

	*sni_off = 0;
	switch (pl->kind) {
	case PKT_DNS:
		return pkt_dns(&pl->dns, p, cap);
	case PKT_HELLO:
		return pkt_hello(&pl->hello, p, cap, sni_off);
	case PKT_QUIC:
		return pkt_quic(&pl->quic, p, cap);
	default:
		n = pl->len ? pl->len : strlen(pl->bytes ? pl->bytes : "");
		if (n > cap)
			return 0;
		if (n)
			memcpy(p, pl->bytes, n);
		return n;
	}
}

// SPDX-License-Identifier: GPL-2.0
/* Crafted packets for the benchmark: Ethernet + IPv4/IPv6 + UDP/TCP, DNS, TLS, HTTP payloads. */
#include <string.h>
#include <linux/if_ether.h>
#include <linux/in.h>

#include "bench.h"
#include "packet_util.h"

static const __u8 dst_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const __u8 src_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const __u8 daddr4[4] = { 198, 51, 100, 1 };	/* documentation range */
static const __u8 daddr6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };

static size_t eth(__u8 *p, __u16 proto)
{
	memcpy(p, dst_mac, 6);
	memcpy(p + 6, src_mac, 6);
	put16(p + 12, proto);
	return ETH_HLEN;
}

static size_t ip4(__u8 *p, const __u8 *saddr, __u8 proto, size_t l4_len)
{
	memset(p, 0, 20);
	p[0] = 0x45;
	put16(p + 2, 20 + l4_len);
	p[8] = 64;
	p[9] = proto;
	memcpy(p + 12, saddr, 4);
	memcpy(p + 16, daddr4, 4);
	put16(p + 10, ip_checksum(p, 20));
	return 20;
}

static size_t ip6(__u8 *p, const __u8 *saddr, __u8 proto, size_t l4_len)
{
	memset(p, 0, 40);
	p[0] = 0x60;
	put16(p + 4, l4_len);
	p[6] = proto;
	p[7] = 64;
	memcpy(p + 8, saddr, 16);
	memcpy(p + 24, daddr6, 16);
	return 40;
}

static size_t udp(__u8 *p, __u16 sport, __u16 dport, const void *payload, size_t len)
{
	put16(p, sport);
	put16(p + 2, dport);
	put16(p + 4, 8 + len);
	put16(p + 6, 0);
	memcpy(p + 8, payload, len);
	return 8 + len;
}

size_t pkt_udp4(__u8 *p, const __u8 *saddr, __u16 sport, __u16 dport, const void *payload,
		size_t len)
{
	size_t off = eth(p, ETH_P_IP);

	if (off + 28 + len > PKT_MAX)
		return 0;
	off += ip4(p + off, saddr, IPPROTO_UDP, 8 + len);
	return off + udp(p + off, sport, dport, payload, len);
}

size_t pkt_udp6(__u8 *p, const __u8 *saddr, __u16 sport, __u16 dport, const void *payload,
		size_t len)
{
	size_t off = eth(p, ETH_P_IPV6);

	if (off + 48 + len > PKT_MAX)
		return 0;
	off += ip6(p + off, saddr, IPPROTO_UDP, 8 + len);
	return off + udp(p + off, sport, dport, payload, len);
}

size_t pkt_tcp4(__u8 *p, const __u8 *saddr, __u16 sport, __u16 dport, __u32 seq,
		const void *payload, size_t len)
{
	size_t off = eth(p, ETH_P_IP);
	__u8 *th;

	if (off + 40 + len > PKT_MAX)
		return 0;
	off += ip4(p + off, saddr, IPPROTO_TCP, 20 + len);
	th = p + off;
	memset(th, 0, 20);
	put16(th, sport);
	put16(th + 2, dport);
	put32(th + 4, seq);
	put32(th + 8, 1);
	th[12] = 5 << 4;
	th[13] = 0x18;	/* PSH, ACK */
	put16(th + 14, 64240);
	memcpy(th + 20, payload, len);
	return off + 20 + len;
}

size_t dns_query(__u8 *p, size_t cap, const char *name)
{
	size_t off;

	if (cap < 12 + strlen(name) + 2 + 4)
		return 0;
	memset(p, 0, 12);
	put16(p, 0x1234);
	put16(p + 2, 0x0100);	/* query, recursion desired */
	put16(p + 4, 1);	/* one question */
	off = 12 + dns_wire_name(p + 12, name);
	put16(p + off, 1);	/* A */
	put16(p + off + 2, 1);	/* IN */
	return off + 4;
}

static size_t ext(__u8 *p, __u16 type, const __u8 *body, size_t len)
{
	put16(p, type);
	put16(p + 2, len);
	memcpy(p + 4, body, len);
	return 4 + len;
}

/*
 * A TLS 1.3 ClientHello as browsers send it, abridged: 32-byte session id, 16 cipher
 * suites, groups, point formats, signature algorithms, versions, an X25519 key
 * share, and then server_name, so a walk skips several extensions to reach it.
 */
size_t tls_client_hello(__u8 *p, size_t cap, const char *sni, size_t *sni_off)
{
	static const __u8 groups[] = { 0, 8, 0, 0x1d, 0, 0x17, 0, 0x18, 0, 0x19 };
	static const __u8 points[] = { 1, 0 };
	static const __u8 sigalgs[] = { 0, 16, 4, 3, 8, 4, 4, 1, 5, 3, 8, 5, 5, 1, 8, 6, 6, 1 };
	static const __u8 versions[] = { 4, 3, 4, 3, 3 };
	__u8 share[2 + 4 + 32], sname[5 + 256];
	size_t n = strlen(sni), off, hs, ext_start, i;

	if (n > 250 || cap < 512)
		return 0;
	p[0] = 22;	/* handshake record */
	p[1] = 3;
	p[2] = 1;
	hs = 5;
	p[hs] = 1;	/* ClientHello */
	off = hs + 4;
	p[off++] = 3;
	p[off++] = 3;
	for (i = 0; i < 32; i++)
		p[off++] = 0xa0 + i;	/* random */
	p[off++] = 32;
	for (i = 0; i < 32; i++)
		p[off++] = 0x50 + i;	/* session id */
	put16(p + off, 32);
	off += 2;
	for (i = 0; i < 16; i++, off += 2)
		put16(p + off, i == 0 ? 0x1301 : i == 1 ? 0x1302 : i == 2 ? 0x1303 : 0xc02b + i);
	p[off++] = 1;
	p[off++] = 0;	/* null compression */
	ext_start = off;
	off += 2;
	off += ext(p + off, 0x000a, groups, sizeof(groups));
	off += ext(p + off, 0x000b, points, sizeof(points));
	off += ext(p + off, 0x000d, sigalgs, sizeof(sigalgs));
	off += ext(p + off, 0x002b, versions, sizeof(versions));
	put16(share, 36);
	put16(share + 2, 0x001d);
	put16(share + 4, 32);
	for (i = 0; i < 32; i++)
		share[6 + i] = 0x11 * (i + 1);
	off += ext(p + off, 0x0033, share, sizeof(share));
	*sni_off = off;
	put16(sname, n + 3);
	sname[2] = 0;	/* host_name */
	put16(sname + 3, n);
	memcpy(sname + 5, sni, n);
	off += ext(p + off, 0x0000, sname, 5 + n);
	put16(p + ext_start, off - ext_start - 2);
	/* handshake and record lengths */
	p[hs + 1] = 0;
	put16(p + hs + 2, off - hs - 4);
	put16(p + 3, off - 5);
	return off;
}

size_t http_request(__u8 *p, size_t cap, const char *host)
{
	int n = snprintf((char *)p, cap,
			 "GET /index.html HTTP/1.1\r\nHost: %s\r\nUser-Agent: bench/1.0\r\n"
			 "Accept: */*\r\n\r\n", host);

	return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

// SPDX-License-Identifier: GPL-2.0
/* The tests' references: frames walked, DNS answers and TCP resets built (ref.h). */
#include <string.h>

#include "lib/pkt.h"
#include "lib/ref.h"

#define ETH_HLEN	14
#define DNS_HDR		12

static __u16 get16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

static __u32 get32(const __u8 *p)
{
	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
}

static void put16(__u8 *p, unsigned int v)
{
	p[0] = (__u8)(v >> 8);
	p[1] = (__u8)v;
}

static void put32(__u8 *p, __u32 v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

static void swap_bytes(__u8 *a, __u8 *b, size_t n)
{
	while (n--) {
		__u8 t = *a;

		*a++ = *b;
		*b++ = t;
	}
}

int ref_parse_ip(const __u8 *f, size_t len, struct ref_frame *r)
{
	size_t pos = ETH_HLEN, hl;
	__u16 type;

	memset(r, 0, sizeof(*r));
	r->len = len;
	if (len < ETH_HLEN)
		return REF_TRUNCATED;
	type = get16(f + 12);
	while ((type == 0x8100 || type == 0x88a8) && r->vlans < 2) {
		if (pos + 4 > len)
			return REF_TRUNCATED;
		type = get16(f + pos + 2);
		pos += 4;
		r->vlans++;
	}
	if (type != 0x0800 && type != 0x86dd)
		return REF_NON_IP;
	r->l3 = pos;
	r->v6 = type == 0x86dd;
	if (!r->v6) {
		if (pos + 20 > len)
			return REF_TRUNCATED;
		hl = (size_t)(f[pos] & 15) * 4;
		if (f[pos] >> 4 != 4 || hl < 20)
			return REF_MALFORMED;
		if (pos + hl > len)
			return REF_TRUNCATED;
		r->proto = f[pos + 9];
		r->fragment = (get16(f + pos + 6) & 0x1fff) != 0;
		r->l3_end = pos + get16(f + pos + 2);
		if (r->l3_end > len || r->l3_end < pos + hl)
			r->l3_end = len;
		r->l4 = pos + hl;
		return REF_OK;
	}
	if (pos + 40 > len)
		return REF_TRUNCATED;
	if (f[pos] >> 4 != 6)
		return REF_MALFORMED;
	r->proto = f[pos + 6];
	r->l4 = pos + 40;
	r->l3_end = r->l4 + get16(f + pos + 4);
	if (r->l3_end > len)
		r->l3_end = len;
	return REF_OK;
}

static bool ext_header(__u8 proto)
{
	return proto == 0 || proto == 43 || proto == 60 || proto == 44;
}

int ref_parse(const __u8 *f, size_t len, struct ref_frame *r)
{
	int ret = ref_parse_ip(f, len, r);
	size_t pos;

	if (ret != REF_OK)
		return ret;
	pos = r->l4;
	/* IPv6: hop-by-hop, routing, destination options, fragment; four at most */
	while (r->v6 && ext_header(r->proto)) {
		if (r->ext == 4)
			return REF_MALFORMED;
		if (pos + 8 > len)
			return REF_TRUNCATED;
		if (r->proto == 44) {
			r->fragment |= (get16(f + pos + 2) & 0xfff8) != 0;
			r->proto = f[pos];
			pos += 8;
		} else {
			r->proto = f[pos];
			pos += ((size_t)f[pos + 1] + 1) * 8;
		}
		r->ext++;
	}
	r->l4 = pos;
	if (r->fragment)
		return REF_NON_IP;
	if (r->proto == 6) {
		size_t off;

		if (pos + 20 > len)
			return REF_TRUNCATED;
		off = (size_t)(f[pos + 12] >> 4) * 4;
		if (off < 20)
			return REF_MALFORMED;
		if (pos + off > len)
			return REF_TRUNCATED;
		r->seq = get32(f + pos + 4);
		r->ack = get32(f + pos + 8);
		r->tcp_flags = f[pos + 13];
		r->payload = pos + off;
	} else if (r->proto == 17) {
		if (pos + 8 > len)
			return REF_TRUNCATED;
		r->payload = pos + 8;
	} else {
		return REF_NON_IP;
	}
	r->sport = get16(f + pos);
	r->dport = get16(f + pos + 2);
	r->payload_len = r->l3_end > r->payload ? r->l3_end - r->payload : 0;
	return REF_OK;
}

/* The pseudo-header's sum: the addresses, the protocol, the L4 length. */
static __u32 pseudo_sum(const __u8 *f, const struct ref_frame *r, __u8 proto, size_t l4_len)
{
	const __u8 *addrs = f + r->l3 + (r->v6 ? 8 : 12);

	return pkt_sum16(addrs, r->v6 ? 32 : 8, proto + (__u32)l4_len);
}

/* The IPv4 header's checksum, written (the header's length, options and all). */
static void ip4_checksum(__u8 *f, const struct ref_frame *r)
{
	size_t hl = (size_t)(f[r->l3] & 15) * 4;

	put16(f + r->l3 + 10, 0);
	put16(f + r->l3 + 10, pkt_csum_fold(pkt_sum16(f + r->l3, hl, 0)));
}

/* The MACs, the IP addresses and the ports turned around. */
static void turn_around(__u8 *f, const struct ref_frame *r)
{
	swap_bytes(f, f + 6, 6);
	if (r->v6)
		swap_bytes(f + r->l3 + 8, f + r->l3 + 24, 16);
	else
		swap_bytes(f + r->l3 + 12, f + r->l3 + 16, 4);
	swap_bytes(f + r->l4, f + r->l4 + 2, 2);
}

/*
 * The question's end, counted from the DNS message's start, when the message is a
 * plain query: QR 0, opcode QUERY, one question, no answer or authority record, one
 * additional record at most (EDNS); a name of labels (no pointer), 255 bytes at most;
 * its type and class within the frame. 0 otherwise.
 */
static size_t question_end(const __u8 *dns, size_t have)
{
	size_t q = DNS_HDR;
	int labels;

	if (have < DNS_HDR)
		return 0;
	if ((dns[2] & 0xf8) || get16(dns + 4) != 1 || get16(dns + 6) || get16(dns + 8) ||
	    get16(dns + 10) > 1)
		return 0;
	for (labels = 0; labels < 128; labels++) {
		if (q + 1 > have)
			return 0;
		if (!dns[q])
			break;
		if (dns[q] > 63)
			return 0;
		q += 1 + (size_t)dns[q];
		if (q > DNS_HDR + 255)
			return 0;
	}
	if (labels == 128 || q + 5 > have)
		return 0;
	return q + 5;
}

size_t ref_dns_answer(const __u8 *in, size_t len, bool sinkhole, __u8 *out, size_t cap)
{
	struct ref_frame r;
	size_t qend, rr = 0, msg, n;
	unsigned int qtype;
	__u8 *dns;

	if (ref_parse(in, len, &r) != REF_OK || r.proto != 17)
		return 0;
	/* IPv4 options and IPv6 extension headers: no answer (a routing header's
	 * addresses would not be the way back) */
	if (r.l4 - r.l3 != (r.v6 ? 40U : 20U))
		return 0;
	qend = question_end(in + r.payload, len - r.payload);
	msg = r.payload_len;
	if (!qend || qend > msg || qend > 300)
		return 0;
	n = r.payload + qend;
	qtype = get16(in + r.payload + qend - 4);
	if (sinkhole) {
		rr = qtype == 1 ? 16 : qtype == 28 ? 28 : 0;
		if (qend + rr > msg)
			rr = 0;		/* it would grow the packet: no data */
	}
	if (n + rr > cap)
		return 0;
	memcpy(out, in, n);
	dns = out + r.payload;
	if (rr) {
		__u8 *a = out + n;

		memset(a, 0, rr);
		a[0] = 0xc0;		/* the question's name */
		a[1] = DNS_HDR;
		put16(a + 2, qtype);
		put16(a + 4, 1);	/* IN */
		put32(a + 6, 2);	/* TTL 2 s (BB_ANSWER_TTL) */
		put16(a + 10, (unsigned int)rr - 12);
	}
	dns[2] = 0x80 | (dns[2] & 1);		/* QR, RD as asked */
	dns[3] = 0x80 | (sinkhole ? 0 : 3);	/* RA; NOERROR or NXDOMAIN */
	put16(dns + 6, rr ? 1 : 0);
	put16(dns + 8, 0);
	put16(dns + 10, 0);
	n += rr;
	turn_around(out, &r);
	if (r.v6) {
		put16(out + r.l3 + 4, (unsigned int)(n - r.l4));
		out[r.l3 + 7] = 64;
	} else {
		put16(out + r.l3 + 2, (unsigned int)(n - r.l3));
		out[r.l3 + 8] = 64;
		put16(out + r.l3 + 6, get16(out + r.l3 + 6) & 0x4000);	/* DF as it was */
		ip4_checksum(out, &r);
	}
	put16(out + r.l4 + 4, (unsigned int)(n - r.l4));
	put16(out + r.l4 + 6, 0);
	{
		__u16 c = pkt_csum_fold(pkt_sum16(out + r.l4, n - r.l4,
						  pseudo_sum(out, &r, 17, n - r.l4)));

		put16(out + r.l4 + 6, c ? c : 0xffff);
	}
	return n;
}

size_t ref_tcp_reset(const __u8 *in, size_t len, enum ref_reset how, __u8 *out, size_t cap)
{
	struct ref_frame r;
	size_t n;
	__u8 *th;

	if (ref_parse(in, len, &r) != REF_OK || r.proto != 6 || !r.payload_len ||
	    !(r.tcp_flags & 0x10) || (r.tcp_flags & 0x06))
		return 0;
	if (r.v6 && r.ext)
		return 0;	/* extension headers: not reset (ref_dns_answer() says why) */
	if ((how == REF_RESET_SERVER_TC || how == REF_RESET_CLIENT_TC) &&
	    (r.l3_end < r.l4 + 20 || r.l3_end - r.l4 - 20 > REF_RESET_TC_MAX))
		return 0;
	n = r.l4 + 20;
	if (n > cap)
		return 0;
	memcpy(out, in, n);
	th = out + r.l4;
	th[12] = 5 << 4;	/* no options */
	th[13] = 0x14;		/* RST, ACK */
	put16(th + 14, 0);	/* window */
	put16(th + 18, 0);	/* urgent pointer */
	if (how == REF_RESET_CLIENT_XDP || how == REF_RESET_CLIENT_TC) {
		turn_around(out, &r);
		put32(th + 4, r.ack);
		put32(th + 8, r.seq + (__u32)r.payload_len);
		if (how == REF_RESET_CLIENT_XDP)
			out[r.l3 + (r.v6 ? 7 : 8)] = 64;
	}
	if (r.v6) {
		put16(out + r.l3 + 4, 20);
	} else {
		put16(out + r.l3 + 2, (unsigned int)(n - r.l3));
		ip4_checksum(out, &r);
	}
	put16(th + 16, 0);
	put16(th + 16, pkt_csum_fold(pkt_sum16(th, 20, pseudo_sum(out, &r, 6, 20))));
	return n;
}

bool ref_checksums_ok(const __u8 *f, size_t len)
{
	struct ref_frame r;
	size_t l4_len;
	__u16 c;

	if (ref_parse(f, len, &r) != REF_OK)
		return false;
	if (!r.v6 && pkt_csum_fold(pkt_sum16(f + r.l3, r.l4 - r.l3, 0)))
		return false;
	if (r.v6 && r.ext)
		return false;	/* not summed here: no reference makes one */
	l4_len = r.l3_end - r.l4;
	if (r.proto == 17 && !r.v6 && !get16(f + r.l4 + 6))
		return true;	/* IPv4 UDP without a checksum */
	c = pkt_csum_fold(pkt_sum16(f + r.l4, l4_len, pseudo_sum(f, &r, r.proto, l4_len)));
	return !c;
}

long ref_differs(const __u8 *got, size_t n, const __u8 *want, size_t wn, bool exact)
{
	size_t skip[2] = { (size_t)-1, (size_t)-1 }, i;
	struct ref_frame r;

	if (!exact && ref_parse(want, wn, &r) == REF_OK) {
		if (!r.v6)
			skip[0] = r.l3 + 10;
		skip[1] = r.l4 + (r.proto == 6 ? 16 : 6);
	}
	for (i = 0; i < n && i < wn; i++) {
		if (i == skip[0] || i == skip[1])
			i++;
		else if (got[i] != want[i])
			return (long)i;
	}
	return n == wn ? -1 : (long)(n < wn ? n : wn);
}

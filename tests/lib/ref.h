/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tests' own references, written from what the program is specified to do and not
 * from its code: a frame walked as include/bb_parse.h's rules say (Ethernet, two VLAN
 * tags at most, IPv4 and IPv6 with four extension headers at most, TCP, UDP), the DNS
 * answer --answer makes of a query, and the TCP resets it makes of a segment. The
 * differential test compares the kernel's answers with these, the answer fuzzer the
 * program's userspace build; every function reads only the len bytes it is given.
 */
#ifndef BB_TEST_REF_H
#define BB_TEST_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

enum ref_parse {
	REF_OK,
	REF_NON_IP,		/* not IPv4 or IPv6, a third tag; no TCP or UDP; a later fragment */
	REF_TRUNCATED,		/* a header runs past the frame */
	REF_MALFORMED,		/* an IP version or IHL wrong, a TCP offset below 5, a fifth
				 * extension header */
};

/* Where a frame's headers are, as offsets into it. */
struct ref_frame {
	size_t len;		/* the frame */
	int vlans;
	size_t l3;		/* the IP header */
	bool v6;
	size_t l3_end;		/* the datagram's end by its header (at most len) */
	__u8 proto;		/* after IPv6 extension headers */
	int ext;		/* IPv6 extension headers skipped */
	bool fragment;		/* a fragment but the first */
	/* ref_parse_l4() */
	size_t l4, payload, payload_len;	/* payload_len by the IP header */
	__u16 sport, dport;
	__u32 seq, ack;
	__u8 tcp_flags;
};

/* Ethernet, VLAN tags and the IP header: enum ref_parse. */
int ref_parse_ip(const __u8 *f, size_t len, struct ref_frame *r);
/* And on to TCP or UDP. */
int ref_parse(const __u8 *f, size_t len, struct ref_frame *r);

/*
 * The answer --answer makes of a DNS query frame (reject: NXDOMAIN; sinkhole: A
 * 0.0.0.0 or AAAA :: where the query's own bytes have room for it, else no data),
 * into out: its length, or 0 when no answer is made (not a plain query, IPv4
 * options, IPv6 extension headers...). Never longer than the query.
 */
size_t ref_dns_answer(const __u8 *in, size_t len, bool sinkhole, __u8 *out, size_t cap);

/* The resets a TCP segment becomes. */
enum ref_reset {
	REF_RESET_SERVER,	/* in place, on the segment's way: RST ACK, its own numbers */
	REF_RESET_CLIENT_XDP,	/* turned around, TTL 64 (XDP_TX of the segment itself) */
	REF_RESET_SERVER_TC,	/* the server's, at tc */
	REF_RESET_CLIENT_TC,	/* turned around, TTL as it was (tc's copy of the server's) */
};

/*
 * 0 when the segment may not be reset (no data, no ACK, SYN or RST, a fragment, IPv6
 * extension headers; at tc, more than REF_RESET_TC_MAX bytes of options and data,
 * which the checksum helpers would have to sum outside the linear part).
 */
#define REF_RESET_TC_MAX	1920
size_t ref_tcp_reset(const __u8 *in, size_t len, enum ref_reset how, __u8 *out, size_t cap);

/*
 * Where got (n bytes) first differs from want (wn; n != wn: the shorter's length), or
 * -1 when they are the same; unless exact, the IPv4 header's and the TCP or UDP
 * checksums are not compared (a tc reset's, which the kernel's helpers adjust from the
 * input's).
 */
long ref_differs(const __u8 *got, size_t n, const __u8 *want, size_t wn, bool exact);

/*
 * Whether a frame's IPv4 header checksum (when IPv4) and its TCP or UDP checksum
 * (over the pseudo-header and the datagram to its IP end) hold.
 */
bool ref_checksums_ok(const __u8 *f, size_t len);

#endif /* BB_TEST_REF_H */

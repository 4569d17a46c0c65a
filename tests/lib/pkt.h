/* SPDX-License-Identifier: GPL-2.0 */
/* Crafted packets for the tests and the benchmark: Ethernet to L4, DNS, TLS, HTTP, QUIC. */
#ifndef BB_TEST_PKT_H
#define BB_TEST_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/*
 * Every builder writes into p, never past cap, and returns the length it wrote;
 * 0 when the packet does not fit. Every byte in [0, length) is written: no
 * builder relies on the caller clearing the buffer.
 *
 * Fields that a test may want at any value, 0 included, take PKT_SET(v); a field
 * left 0 takes its default. Plain non-zero values work too.
 */
#define PKT_SET(v)		((v) | 0x10000)
#define PKT_FIELD(f, dflt)	((f) ? (f) & 0xffff : (dflt))

#define PKT_MAX			2048	/* the benchmark's frame buffers */

/* The defaults: locally administered MACs, documentation addresses. */
#define PKT_DADDR4		"203.0.113.254"
#define PKT_DADDR6		"2001:db8:ffff::fe"
#define PKT_VLAN_ID		100
#define PKT_IP_ID		0x1234
#define PKT_IP_DF		0x4000	/* IPv4 flags and fragment offset: don't fragment */

/* What follows the Ethernet header and its VLAN tags. */
enum pkt_net {
	PKT_IPV4,
	PKT_IPV6,
	PKT_ARP,	/* a request from saddr (source MAC) for daddr; then the payload */
	PKT_OTHER,	/* the payload right after the EtherType (set .ethertype) */
};

/*
 * A frame: Ethernet, 0 to 3 VLAN tags, IPv4 or IPv6, UDP or TCP, the payload.
 * Header fields a test does not set are those of a well-formed packet; the
 * others exist to break them (a bad version or IHL, another EtherType).
 */
struct pkt_frame {
	enum pkt_net net;
	__u8 proto;		/* IPPROTO_UDP or IPPROTO_TCP; 0: UDP */
	const char *saddr;	/* address text; NULL: saddr_bin, else 0.0.0.0 or :: */
	const char *daddr;	/* NULL: daddr_bin, else PKT_DADDR4 or PKT_DADDR6 */
	const __u8 *saddr_bin;	/* 4 or 16 bytes, for callers that hold addresses */
	const __u8 *daddr_bin;
	const __u8 *macs;	/* destination then source, 12 bytes; NULL: 02::02, 02::01 */
	__u16 tags[3];		/* VLAN TPIDs, outermost first; 0 ends */
	__u16 vlan_id;		/* the outermost tag's VLAN id, each inner one +1; 0: 100 */
	__u16 ethertype;	/* 0: the network header's own */

	unsigned int version;	/* the IP version field, PKT_SET(v); 0: 4 or 6 */
	unsigned int ihl;	/* the IHL field, PKT_SET(v); 0: 5; words past 5 are NOP options */
	unsigned int ip_id;	/* IPv4 identification, PKT_SET(v); 0: PKT_IP_ID */
	__u16 frag;		/* IPv4 flags and fragment offset: PKT_IP_DF, an offset */
	unsigned int ip_csum;	/* IPv4 header checksum, PKT_SET(v); 0: computed */
	const char *ext6;	/* IPv6 extension headers, a letter each (put_ipv6() in pkt.c) */

	__u16 sport, dport;
	__u32 seq;		/* TCP */
	unsigned int ack;	/* PKT_SET(v); 0: 1 */
	unsigned int window;	/* PKT_SET(v); 0: 64240 */
	unsigned int doff;	/* TCP header words, options zero; 0: 5 */
	size_t padding;		/* zero bytes after the IP datagram (short-frame padding) */
};

size_t pkt_frame(const struct pkt_frame *f, const void *payload, size_t len, __u8 *p,
		 size_t cap);

/*
 * RFC 1071 for the tests' references: the big-endian 16-bit words of p (an odd last byte
 * padded with zero) added onto sum; and a sum folded and complemented, the checksum.
 */
__u32 pkt_sum16(const __u8 *p, size_t len, __u32 sum);
__u16 pkt_csum_fold(__u32 sum);

/* The benchmark's frames: to 198.51.100.1 or 2001:db8::1, IP ID 0, PKT_MAX at the most. */
size_t pkt_udp4(__u8 *p, const __u8 *saddr, __u16 sport, __u16 dport, const void *payload,
		size_t len);
size_t pkt_udp6(__u8 *p, const __u8 *saddr, __u16 sport, __u16 dport, const void *payload,
		size_t len);
size_t pkt_tcp4(__u8 *p, const __u8 *saddr, __u16 sport, __u16 dport, __u32 seq,
		const void *payload, size_t len);

/* A DNS query: header, one question name, QTYPE A (or qtype), QCLASS IN, maybe an OPT. */
struct pkt_dns {
	const char *name;	/* the question name, dotted ("" is the root) */
	const void *wire;	/* or, if set, the question name as these wire_len bytes */
	size_t wire_len;
	unsigned int id;	/* PKT_SET(v); 0: 0x1234 */
	unsigned int flags;	/* header byte 2, PKT_SET(v); 0: 0x01 (RD, a query) */
	unsigned int qdcount;	/* PKT_SET(v); 0: 1 */
	__u16 qtype;		/* 0: 1, A */
	__u16 opt_len;		/* EDNS: an OPT record with this much RDATA (a Padding
				 * option, at least 4), ARCOUNT 1; 0: none */
};

size_t pkt_dns(const struct pkt_dns *q, __u8 *p, size_t cap);

/* How a ClientHello lies; a test asks for one at a time. */
enum pkt_hello_lie {
	PKT_LIE_NONE,
	PKT_LIE_RECORD_TYPE,		/* record type 23, application data */
	PKT_LIE_RECORD_VERSION,		/* record version 2.x */
	PKT_LIE_RECORD_SHORT,		/* record length 3 */
	PKT_LIE_HS_TYPE,		/* handshake type 2, a ServerHello */
	PKT_LIE_HS_PAST_RECORD,		/* the handshake length runs past the record */
	PKT_LIE_SESSION_ID_33,		/* a session id of 33 bytes */
	PKT_LIE_CIPHERS_ZERO,		/* no cipher suites */
	PKT_LIE_CIPHERS_ODD,		/* cipher suites of an odd length */
	PKT_LIE_NO_COMPRESSION,		/* zero compression methods */
	PKT_LIE_NO_EXTENSIONS,		/* no extensions block at all: valid (TLS 1.2) */
	PKT_LIE_EXTS_PAST_HELLO,	/* the extensions' length runs past the ClientHello */
	PKT_LIE_EXTS_ONE_BYTE,		/* extensions of one byte: no room for a header */
	PKT_LIE_EXT_PAST_END,		/* the first extension runs past the extensions */
	PKT_LIE_SNI_LIST_SHORT,		/* server_name list length one short of its name */
	PKT_LIE_SNI_TYPE,		/* name type 1, not host_name */
	PKT_LIE_SNI_EMPTY_NAME,		/* a name of 0 bytes */
	PKT_LIE_SNI_EXT_SHORT,		/* a server_name extension of 4 bytes */
	PKT_LIE_SNI_NAME_PAST_END,	/* the name length runs past the extensions */
	PKT_LIE_SNI_ALL_PAST_END,	/* that, and the list length 0xffff */
	PKT_LIE_MAX,
};

/*
 * Who sends it: the random, session id and cipher suites before the extensions.
 * The BPF tests and the benchmark send a browser's; the parser unit tests a bare
 * client's, three suites of 0x1313, so that their tables' offsets stay small.
 */
enum pkt_hello_client {
	PKT_CLIENT_BROWSER,
	PKT_CLIENT_BARE,
	PKT_CLIENT_MAX,
};

/* Extension orders: a browser's (SNI second, after GREASE), SNI first, SNI last, none. */
#define PKT_EXTS_BROWSER	"GSBRCOTAQWVMKXg"
#define PKT_EXTS_SNI_FIRST	"SBRCOTAQWVMKXg"
#define PKT_EXTS_SNI_LAST	"GBRCOTAQWVMKXgS"
#define PKT_EXTS_NO_SNI		"GBRCOTAQWVMKXg"

/* A TLS ClientHello record; the extension letters are listed in pkt.c (put_extension()). */
struct pkt_hello {
	const char *sni;	/* the name in 'S' */
	const char *exts;	/* extension order, a letter each; NULL: PKT_EXTS_BROWSER */
	unsigned int key_share;	/* 'K': key exchange bytes (0: 32, X25519); 'k': body bytes */
	unsigned int padding;	/* 'P': bytes */
	enum pkt_hello_lie lie;
	enum pkt_hello_client client;
};

/* *sni_off: where the server name's first byte is; 0 without one. */
size_t pkt_hello(const struct pkt_hello *h, __u8 *p, size_t cap, size_t *sni_off);

/* A QUIC long header, padded to the 1200 bytes an Initial must have. */
struct pkt_quic {
	__u8 first;		/* the first byte: form, type, packet number length */
	__u32 version;
};

size_t pkt_quic(const struct pkt_quic *q, __u8 *p, size_t cap);

/* "GET path HTTP/1.1", Host, then headers (each ending in CRLF), then the empty line. */
size_t pkt_http_get(__u8 *p, size_t cap, const char *path, const char *host,
		    const char *headers);

/* Any of the payloads above, as a table of cases holds them. */
enum pkt_payload_kind {
	PKT_BYTES,	/* bytes as they are: an HTTP request, anything */
	PKT_DNS,
	PKT_HELLO,
	PKT_QUIC,
};

struct pkt_payload {
	enum pkt_payload_kind kind;
	const char *bytes;
	size_t len;		/* PKT_BYTES: bytes of it; 0: strlen */
	struct pkt_dns dns;
	struct pkt_hello hello;
	struct pkt_quic quic;
};

/* *sni_off as pkt_hello() says; 0 for the other kinds. */
size_t pkt_payload(const struct pkt_payload *pl, __u8 *p, size_t cap, size_t *sni_off);

#endif /* BB_TEST_PKT_H */

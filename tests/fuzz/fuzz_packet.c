// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the packet parsers the kernel program runs, in their userspace build (the
 * same headers): Ethernet and VLAN tags, IPv4 and IPv6 (extension headers), TCP and
 * UDP; then on the payload the DNS question, the ClientHello (the one-segment fast
 * path and the walk, whole and split where the input's first byte says), and the HTTP
 * request. Every buffer is an exact copy (AddressSanitizer sees a read one byte
 * past it); the fast path and the walk must agree whenever the fast path answers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bb_names.h"
#include "bb_parse.h"
#include "bb_tls.h"

static __u8 *dup_exact(const __u8 *p, size_t n)
{
	__u8 *c = malloc(n ? n : 1);

	if (c && n)
		memcpy(c, p, n);
	return c;
}

static void payload(const __u8 *p, size_t n, size_t cut)
{
	static __u8 key[BB_KEYBUF_BYTES], req[BB_HTTP_SCAN_MAX + 8];
	struct bb_tls_walk fast, walk, split;
	__u32 len = 0, hlen = 0, plen = 0;
	int full = 0, rf, rw, r = BB_TLS_MORE;
	__u8 *c = dup_exact(p, n);

	if (!c)
		return;
	bb_dns_qname(c, c + n, key, &len);
	memset(&fast, 0, sizeof(fast));
	memset(&walk, 0, sizeof(walk));
	rf = bb_tls_whole(&fast, c, c + n, (__u32)n);
	rw = bb_tls_walk(&walk, c, c + n, (__u32)n);
	if (rf == BB_TLS_SNI && (rw != BB_TLS_SNI || fast.name_len != walk.name_len ||
				 memcmp(fast.buf, walk.buf, fast.name_len) || fast.ech != walk.ech))
		abort();	/* the fast path answered what the walk does not */
	free(c);

	/* the walk over two segments, cut where the input says */
	memset(&split, 0, sizeof(split));
	if (cut > n)
		cut = n;
	c = dup_exact(p, cut);
	if (c) {
		r = bb_tls_walk(&split, c, c + cut, (__u32)cut);
		free(c);
	}
	if (r == BB_TLS_MORE) {
		split.seg_lo += (__u32)cut;
		c = dup_exact(p + cut, n - cut);
		if (c) {
			bb_tls_walk(&split, c, c + (n - cut), (__u32)(n - cut));
			free(c);
		}
	}

	/* the HTTP request: a copy of its first bytes, as the program makes one */
	len = n > BB_HTTP_SCAN_MAX ? BB_HTTP_SCAN_MAX : (__u32)n;
	memset(req, 0, sizeof(req));
	memcpy(req, p, len);
	bb_http_request(req, len, key, &hlen, &plen, &full);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bb_packet pkt;
	struct bb_cursor cur;
	__u8 *frame;
	size_t cut;

	if (size < 1)
		return 0;
	cut = data[0];		/* where the split walk cuts the payload */
	frame = dup_exact(data + 1, size - 1);
	if (!frame)
		return 0;
	cur.pos = frame;
	cur.end = frame + size - 1;
	memset(&pkt, 0, sizeof(pkt));
	if (bb_parse_packet(&cur, &pkt) == BB_PARSE_OK && bb_parse_l4(&cur, &pkt) == BB_PARSE_OK &&
	    pkt.payload && (const __u8 *)pkt.payload <= frame + size - 1) {
		size_t n = (size_t)(frame + size - 1 - (__u8 *)pkt.payload);

		if (n > pkt.payload_len)
			n = pkt.payload_len;
		payload(pkt.payload, n, cut);
	}
	/* and the payload parsers on the raw input too: what a frame's bounds hide */
	payload(data + 1, size - 1, cut);
	free(frame);
	return 0;
}

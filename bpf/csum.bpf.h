/* SPDX-License-Identifier: GPL-2.0 */
/* Internet checksums over packet bytes, and the swaps that turn a packet around. */
#ifndef BB_CSUM_BPF_H
#define BB_CSUM_BPF_H

#include "bb_parse.h"
#include "bb_names.h"

#define BB_ANSWER_UDP_MAX	(8 + BB_DNS_HDR_LEN + 256 + 4 + 28)	/* the longest answer */

/*
 * The ones' complement sum of len bytes from p onto sum, 16 bytes a step in four
 * 32-bit loads (max16 steps at most), in the CPU's byte order: the sum does not
 * depend on it, so folded (csum_fold()) it is the checksum as the bytes of the
 * packet hold it (RFC 1071), to store as it is.
 */
static __always_inline __u64 csum_span(const __u8 *p, const void *end, __u32 len, __u64 sum,
					const __u32 max16)
{
	__u64 left = len;
	__u32 i;

	for (i = 0; i < max16; i++) {
		if (left < 16 || (void *)(p + 16) > end)
			break;
		sum += (__u64)*(const __u32 *)p + *(const __u32 *)(p + 4) +
		       *(const __u32 *)(p + 8) + *(const __u32 *)(p + 12);
		p += 16;
		left -= 16;
	}
	if (left >= 8 && (void *)(p + 8) <= end) {
		sum += (__u64)*(const __u32 *)p + *(const __u32 *)(p + 4);
		p += 8;
		left -= 8;
	}
	if (left >= 4 && (void *)(p + 4) <= end) {
		sum += *(const __u32 *)p;
		p += 4;
		left -= 4;
	}
	if (left >= 2 && (void *)(p + 2) <= end) {
		sum += *(const __u16 *)p;
		p += 2;
		left -= 2;
	}
	if (left == 1 && (void *)(p + 1) <= end)
		sum += *p;	/* the first byte of a last 16-bit word padded with zero */
	return sum;
}

/* csum_span() of an answer's bytes: up to BB_ANSWER_UDP_MAX. */
static __always_inline __u64 csum_bytes(const __u8 *p, const void *end, __u32 len, __u64 sum)
{
	return csum_span(p, end, len, sum, BB_ANSWER_UDP_MAX / 16 + 1);
}


static __always_inline __u16 csum_fold(__u64 sum)
{
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/* The ones' complement sum of an IPv4 header with no options: its five words. */
static __always_inline __u64 csum_ip4hdr(const bb_iphdr *iph)
{
	const __u32 *w = (const __u32 *)iph;

	return (__u64)w[0] + w[1] + w[2] + w[3] + w[4];
}

/*
 * The ones' complement sum of the UDP pseudo-header of the addresses at addrs (IPv4:
 * the two of 4 bytes; else 16), the protocol and the length, as csum_bytes() sums.
 */
static __always_inline __u64 csum_pseudo(const void *addrs, int v4, __u32 proto_len)
{
	const __u32 *w = addrs;
	__u64 sum = proto_len;

	sum += (__u64)w[0] + w[1];
	if (!v4)
		sum += (__u64)w[2] + w[3] + w[4] + w[5] + w[6] + w[7];
	return sum;
}

/* Two fields of the packet swapped, by their size: 2, 4, 6 (MACs) or 16 bytes. */
static __always_inline void swap16(__u16 *a, __u16 *b)
{
	__u16 t = *a;

	*a = *b;
	*b = t;
}

static __always_inline void swap32(__u32 *a, __u32 *b)
{
	__u32 t = *a;

	*a = *b;
	*b = t;
}

static __always_inline void swap64(__u64 *a, __u64 *b)
{
	__u64 t = *a;

	*a = *b;
	*b = t;
}

/* ones' complement a - b, 16-bit values as the packet holds them: a checksum delta */
static __always_inline __u32 csum_delta16(__u16 a, __u16 b)
{
	return (__u32)a + (__u16)~b;
}

static __always_inline __u32 csum_fold32(__u64 sum)
{
	sum = (sum & 0xffffffff) + (sum >> 32);
	return (__u32)((sum & 0xffffffff) + (sum >> 32));
}

#endif /* BB_CSUM_BPF_H */

/* SPDX-License-Identifier: GPL-2.0 */
/* Byte helpers for crafted packets and failure messages, shared by the tests and the benchmark. */
#ifndef BB_PACKET_UTIL_H
#define BB_PACKET_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

/* Network byte order stores. */
static inline void put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static inline void put32(__u8 *p, __u32 v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

/* A DNS name in wire form from a dotted one ("\3www\7example\0"; "" is the root). */
static inline size_t dns_wire_name(__u8 *p, const char *dotted)
{
	size_t off = 0;

	while (*dotted) {
		const char *dot = strchr(dotted, '.');
		size_t n = dot ? (size_t)(dot - dotted) : strlen(dotted);

		p[off++] = n;
		memcpy(p + off, dotted, n);
		off += n;
		dotted += n + (dot ? 1 : 0);
	}
	p[off++] = 0;
	return off;
}

/* The IPv4 header checksum (RFC 1071) over len bytes. */
static inline __u16 ip_checksum(const __u8 *p, size_t len)
{
	__u32 sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/* Append to a message buffer, never past its end. */
static inline void appendf(char *msg, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline void appendf(char *msg, size_t size, const char *fmt, ...)
{
	size_t used = strlen(msg);
	va_list ap;

	if (used + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(msg + used, size - used, fmt, ap);
	va_end(ap);
}

#endif /* BB_PACKET_UTIL_H */

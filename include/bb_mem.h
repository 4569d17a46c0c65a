/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Loads of 4 and 8 bytes and stores of 8 at any address, one instruction each. */
#ifndef BB_MEM_H
#define BB_MEM_H

#include <linux/types.h>

#include "bb_compat.h"

/*
 * clang's BPF backend turns a memcpy from or to a pointer it cannot prove aligned
 * into single-byte accesses: an IPv4 address became 4 byte loads and 6 shifts and
 * ORs, a word of a name 8 loads and 14 ALU ops, an 8-byte store 8 byte stores.
 * These helpers tell it the access is aligned, so it emits one instruction; the
 * verifier accepts unaligned packet and map-value accesses on CPUs with efficient
 * unaligned access (x86-64, arm64: CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS), as
 * long as the program is not loaded with BPF_F_STRICT_ALIGNMENT. Not for the
 * stack: the verifier wants stack accesses aligned. In userspace a memcpy is one
 * instruction already, and the hint would be a lie the compiler may act on.
 */
#ifdef __BPF__
#define BB_ANY_ALIGN(p, n)	__builtin_assume_aligned(p, n)
#else
#define BB_ANY_ALIGN(p, n)	(p)
#endif

static __always_inline __u64 bb_load64(const void *p)
{
	__u64 v;

	__builtin_memcpy(&v, BB_ANY_ALIGN(p, 8), 8);
	return v;
}

static __always_inline __u32 bb_load32(const void *p)
{
	__u32 v;

	__builtin_memcpy(&v, BB_ANY_ALIGN(p, 4), 4);
	return v;
}

static __always_inline void bb_store64(void *p, __u64 v)
{
	__builtin_memcpy(BB_ANY_ALIGN(p, 8), &v, 8);
}

#endif /* BB_MEM_H */

/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the headers compiled on both sides take from libbpf, and their userspace
 * stand-ins: __always_inline and barrier_var() (bpf_helpers.h, BPF only), the byte
 * order (bpf_endian.h, both sides).
 */
#ifndef BB_COMPAT_H
#define BB_COMPAT_H

#ifdef __BPF__
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#else
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
/* Keeps one register for a value the verifier must see bounded; no verifier here. */
#define barrier_var(var) ((void)0)
#endif

#include <bpf/bpf_endian.h>

#endif /* BB_COMPAT_H */

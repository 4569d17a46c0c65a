/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the headers compiled on both sides take from libbpf, and their userspace
 * stand-ins: __always_inline and barrier_var() (bpf_helpers.h, BPF only), the byte
 * order (bpf_endian.h, both sides); and the two idioms every parser uses to be
 * verified on every kernel and compiler of the matrix (docs/KERNELS.md): a bound the
 * verifier sees (bb_bounded()) and a loop it walks once (bb_loop()).
 */
#ifndef BB_COMPAT_H
#define BB_COMPAT_H

#ifdef __BPF__
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#else
#include <linux/types.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
/* Keeps one register for a value the verifier must see bounded; no verifier here. */
#define barrier_var(var) ((void)0)
#endif

#include <bpf/bpf_endian.h>

/*
 * v & mask, done where the verifier sees it: the compiler would fold a mask it can
 * prove a no-op into the add that follows, or drop it. Every value from a packet that
 * moves a pointer goes through it first: a bpf_ntohs() result most of all, which the
 * 6.1 and 6.12 verifiers know nothing of ("math between pkt pointer and register with
 * unbounded min value"). In userspace a plain AND (its value can change: callers take
 * an offset out of a word of flags with it).
 */
static __always_inline __u32 bb_bounded(__u32 v, const __u32 mask)
{
#ifdef __BPF__
	asm volatile("%0 &= %1" : "+r"(v) : "i"(mask));
#else
	v &= mask;
#endif
	return v;
}

/*
 * p - base, two pointers into one object, as a 64-bit value. With ALU32 (-mcpu=v3)
 * clang subtracts the pointers' low halves when only 32 bits of the difference are
 * used, which the verifier refuses ("32-bit pointer arithmetic prohibited"); the
 * barrier keeps the whole subtraction.
 */
static __always_inline __u64 bb_ptr_off(const void *p, const void *base)
{
	__u64 d = (__u64)((const __u8 *)p - (const __u8 *)base);

	barrier_var(d);
	return d;
}

/*
 * data + off, for a header whose pointer the caller compares with data_end itself,
 * after the compiler has lost sight of data: clang 19 drops an Ethernet header's own
 * check as implied by a later header's ("th + 1 <= end" with th = data + l4), and the
 * verifier, which proves each pointer's range on its own, then refuses the Ethernet
 * header's read.
 */
static __always_inline void *bb_pkt_at(void *data, __u32 off)
{
	barrier_var(data);
	return (__u8 *)data + off;
}

/*
 * A loop of at most n turns of fn(i, ctx), i from 0, until fn returns 1 (0: go on);
 * the turns taken. In BPF it is bpf_loop() (Linux 5.17): the verifier walks fn's body
 * as a function of its own, once (6.7 and later: until its state repeats), not once a
 * turn, so a byte walk costs its body, not its body times its bound. fn is
 * `static __always_inline long fn(__u32 i, void *ctx)`: inlined where it is called
 * (bb_loop_hot()'s turns), and, its address taken, a function of its own all the same
 * for bpf_loop() (no warning either where a file includes it unused); ctx points
 * to the caller's stack, and what changes from turn to turn is best kept in map memory
 * (the scratch), which the verifier does not track: then each turn is the same state.
 * In userspace (the tests, the fuzzers, `bloomblock check`) a plain loop.
 */
#ifdef __BPF__
#define bb_loop(n, fn, ctx)	bpf_loop((n), (fn), (ctx), 0)
#else
static inline long bb_loop(__u32 n, long (*fn)(__u32, void *), void *ctx)
{
	__u32 i;

	for (i = 0; i < n; i++)
		if (fn(i, ctx))
			return (long)i + 1;
	return (long)n;
}
#endif

/*
 * bb_loop() whose first `hot` turns run inline, for a walk that is usually short (a
 * name's labels or words, a ClientHello's extensions): the turns a packet usually
 * takes cost no call (a turn of bpf_loop() is one, ~3 ns here), and the verifier walks
 * `hot` copies of the body and one more. fn must not depend on i (the bpf_loop()
 * turns count from 0 again): it keeps its place in ctx or in memory.
 */
#define bb_loop_hot(hot, n, fn, ctx)						\
	({									\
		__u32 bb_turn_;							\
		long bb_ran_ = 0;						\
										\
		for (bb_turn_ = 0; bb_turn_ < (hot); bb_turn_++)		\
			if (fn(bb_turn_, (ctx))) {				\
				bb_ran_ = bb_turn_ + 1;				\
				break;						\
			}							\
		if (!bb_ran_)							\
			bb_ran_ = (hot) + bb_loop((n) - (hot), fn, (ctx));	\
		bb_ran_;							\
	})

#endif /* BB_COMPAT_H */

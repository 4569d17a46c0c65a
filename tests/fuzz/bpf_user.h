/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel program's own code in userspace: what bpf/bloomblock.bpf.c needs of
 * libbpf's bpf_helpers.h and of the kernel, stood in for, so that the file compiles
 * for the host as it is and the fuzzers run its functions (every one, entry programs,
 * tail calls, the answer and reset programs) on a frame in a plain buffer, under
 * AddressSanitizer and UBSan. tests/fuzz/bpf_prog.h includes this, then the program,
 * then the runtime that sets it up.
 *
 * What differs from the kernel, and why it does not change what is fuzzed:
 *  - the contexts (struct xdp_md, struct __sk_buff) hold 64-bit pointers where the
 *    kernel's hold 32-bit offsets the verifier rewrites into pointers;
 *  - the maps are plain memory (bpf_prog.h): arrays, the hash maps as a few slots
 *    searched in turn, a ring that takes every record;
 *  - a tail call is a call and a longjmp back to the entry program's caller, which
 *    is what a tail call that succeeds does to the caller's frame;
 *  - the BPF-only asm statements that tell the verifier a bound it cannot see (in
 *    capture_packet(), capture_xdp() and reset_where()) are left out: each leaves its
 *    value as it was (a length of 1 to 128 the same, an offset the same). bounded(), whose mask
 *    does change values (it takes an offset out of a word of flags), has a C body
 *    for userspace in the program itself;
 *  - the checksum helpers act as on a socket buffer whose checksum is the packet's
 *    own (CHECKSUM_NONE, as a test run's), and bpf_clone_redirect() keeps its copy
 *    for the fuzzer to read;
 *  - the program reads words at any alignment, as BPF on x86-64 and arm64 may: the
 *    fuzzers build it with -fno-sanitize=alignment.
 */
#ifndef BB_BPF_USER_H
#define BB_BPF_USER_H

#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define BB_USER_POISON(p, n)	ASAN_POISON_MEMORY_REGION(p, n)
#define BB_USER_UNPOISON(p, n)	ASAN_UNPOISON_MEMORY_REGION(p, n)
#endif
#endif
#ifndef BB_USER_POISON
#define BB_USER_POISON(p, n)	((void)(p), (void)(n))
#define BB_USER_UNPOISON(p, n)	((void)(p), (void)(n))
#endif

/* ---- the contexts ---------------------------------------------------------------------- */

struct bb_user_xdp {
	__u64 data, data_end, data_meta;
	__u32 ingress_ifindex, rx_queue_index, egress_ifindex;
};

struct bb_user_skb {
	__u64 data, data_end, data_meta;
	__u32 len, ifindex, ingress_ifindex, mark, protocol;
};

#define xdp_md		bb_user_xdp
#define __sk_buff	bb_user_skb

/* ---- bpf_helpers.h ---------------------------------------------------------------------- */

#define __BPF_HELPERS__		/* the real one is BPF's: not read */
#define SEC(name)
#define __uint(name, val)	int (*name)[val]
#define __type(name, val)	typeof(val) *name
#define __array(name, val)	typeof(val) *name[]
#ifndef __noinline
#define __noinline		__attribute__((noinline))
#endif
#undef __always_inline
#define __always_inline		inline __attribute__((always_inline))
#define barrier()		__asm__ __volatile__("" ::: "memory")

/*
 * The program's BPF asm statements, `asm volatile("..." : ...)`, left out: asm is
 * nothing and volatile followed by a parenthesis is nothing, so each becomes an
 * empty statement. volatile as a qualifier (no parenthesis after it) is untouched.
 * Every system header is read before these.
 */
#pragma clang diagnostic ignored "-Wkeyword-macro"
#define asm
#define volatile(...)

/* ---- the runtime's state, which bpf_prog.h fills -------------------------------------------- */

enum bb_user_map_kind {
	BB_UM_ARRAY = 1,	/* values of value_size, max of them (per CPU: one CPU) */
	BB_UM_OUTER,		/* one slot holding an inner array */
	BB_UM_HASH,		/* max slots of key then value, searched in turn */
	BB_UM_RING,
	BB_UM_PROGS,		/* tail-call slots */
};

struct bb_user_map {
	const void *id;		/* the program's map variable; an inner map: itself */
	enum bb_user_map_kind kind;
	__u32 key_size, value_size, max;
	__u8 *values;
	__u8 *used;		/* BB_UM_HASH: slot in use */
	__u64 *age;		/* BB_UM_HASH: last use, for eviction */
	struct bb_user_map *inner;	/* BB_UM_OUTER */
	void *progs[8];		/* BB_UM_PROGS: int (*)(ctx), a slot each */
};

#define BB_USER_MAPS	16
#define BB_USER_RING_MAX 4	/* records kept of each ring, per run */
#define BB_USER_HEAD	64	/* room before the packet: metadata */
#define BB_USER_TAIL	256	/* room after it, poisoned until the packet grows into it */

struct bb_user_ring_rec {
	const void *ring;
	size_t len;
	__u8 data[512];
};

static struct {
	struct bb_user_map maps[BB_USER_MAPS];
	int n_maps;
	/* the packet's buffer: head room, the frame, tail room */
	__u8 *buf;
	size_t cap;		/* bytes after head room */
	__u64 now_ns;
	jmp_buf *jmp;
	int tail_ret, tail_calls;
	bool ring_full;
	bool no_meta;		/* bpf_xdp_adjust_meta() fails, as where a driver keeps none */
	struct bb_user_ring_rec rings[BB_USER_RING_MAX];
	int n_rings;
	__u8 clone[2048 + BB_USER_TAIL];	/* bpf_clone_redirect()'s copy */
	size_t clone_len;
	int clones, redirects;
} bb_user;

static inline struct bb_user_map *bb_user_map_of(const void *map)
{
	int i;

	for (i = 0; i < bb_user.n_maps; i++)
		if (bb_user.maps[i].id == map)
			return &bb_user.maps[i];
	for (i = 0; i < bb_user.n_maps; i++)
		if (bb_user.maps[i].inner == map)
			return bb_user.maps[i].inner;
	return NULL;
}

/* ---- maps ------------------------------------------------------------------------------ */

static inline int bb_user_hash_find(const struct bb_user_map *m, const void *key)
{
	__u32 i;

	for (i = 0; i < m->max; i++)
		if (m->used[i] && !memcmp(m->values + (size_t)i * (m->key_size + m->value_size), key,
					  m->key_size))
			return (int)i;
	return -1;
}

static inline void *bpf_map_lookup_elem(void *map, const void *key)
{
	struct bb_user_map *m = bb_user_map_of(map);
	__u32 idx;
	int i;

	if (!m)
		abort();	/* a map the runtime does not know: bpf_prog.h is behind */
	switch (m->kind) {
	case BB_UM_OUTER:
		memcpy(&idx, key, sizeof(idx));
		return idx == 0 ? m->inner : NULL;
	case BB_UM_ARRAY:
		memcpy(&idx, key, sizeof(idx));
		return idx < m->max ? m->values + (size_t)idx * m->value_size : NULL;
	case BB_UM_HASH:
		i = bb_user_hash_find(m, key);
		if (i < 0)
			return NULL;
		m->age[i] = ++bb_user.now_ns;
		return m->values + (size_t)i * (m->key_size + m->value_size) + m->key_size;
	default:
		abort();
	}
}

static inline long bpf_map_update_elem(void *map, const void *key, const void *value,
				       __u64 flags)
{
	struct bb_user_map *m = bb_user_map_of(map);
	__u32 idx, i, oldest = 0;
	int at;

	(void)flags;
	if (!m)
		abort();
	if (m->kind == BB_UM_ARRAY) {
		memcpy(&idx, key, sizeof(idx));
		if (idx >= m->max)
			return -E2BIG;
		memcpy(m->values + (size_t)idx * m->value_size, value, m->value_size);
		return 0;
	}
	if (m->kind != BB_UM_HASH)
		abort();
	at = bb_user_hash_find(m, key);
	if (at < 0) {
		/* a free slot, else the least recently used (an LRU map's eviction) */
		for (i = 0; i < m->max; i++) {
			if (!m->used[i])
				break;
			if (m->age[i] < m->age[oldest])
				oldest = i;
		}
		at = (int)(i < m->max ? i : oldest);
	}
	m->used[at] = 1;
	m->age[at] = ++bb_user.now_ns;
	memcpy(m->values + (size_t)at * (m->key_size + m->value_size), key, m->key_size);
	memcpy(m->values + (size_t)at * (m->key_size + m->value_size) + m->key_size, value,
	       m->value_size);
	return 0;
}

static inline long bpf_map_delete_elem(void *map, const void *key)
{
	struct bb_user_map *m = bb_user_map_of(map);
	int at;

	if (!m || m->kind != BB_UM_HASH)
		abort();
	at = bb_user_hash_find(m, key);
	if (at < 0)
		return -ENOENT;
	m->used[at] = 0;
	return 0;
}

/* A record reserved exactly (AddressSanitizer sees a write past it), kept on submit. */
static inline void *bpf_ringbuf_reserve(void *ringbuf, __u64 size, __u64 flags)
{
	__u8 *p;

	(void)flags;
	if (bb_user.ring_full || size > sizeof(bb_user.rings[0].data))
		return NULL;
	p = malloc(sizeof(void *) + sizeof(size_t) + size);
	if (!p)
		return NULL;
	memcpy(p, &ringbuf, sizeof(void *));
	memcpy(p + sizeof(void *), &size, sizeof(size_t));
	return p + sizeof(void *) + sizeof(size_t);
}

static inline void bpf_ringbuf_submit(void *data, __u64 flags)
{
	__u8 *p = (__u8 *)data - sizeof(void *) - sizeof(size_t);
	struct bb_user_ring_rec *r;
	size_t size;

	(void)flags;
	if (bb_user.n_rings < BB_USER_RING_MAX) {
		r = &bb_user.rings[bb_user.n_rings++];
		memcpy(&r->ring, p, sizeof(void *));
		memcpy(&size, p + sizeof(void *), sizeof(size_t));
		r->len = size;
		memcpy(r->data, data, size);
	}
	free(p);
}

/* ---- time, tail calls ------------------------------------------------------------------------ */

static inline __u64 bpf_ktime_get_ns(void)
{
	return bb_user.now_ns;
}

static inline __u64 bpf_ktime_get_coarse_ns(void)
{
	return bb_user.now_ns;
}

/* The tick: 4 ms of the runtime's clock (HZ=250), a tick of the coarse clock. */
static inline __u64 bpf_jiffies64(void)
{
	return bb_user.now_ns / 4000000;
}

/* A tail call that succeeds does not come back: its program's verdict is the entry's. */
static inline void bb_user_tail_call(void *ctx, void *map, __u32 slot)
{
	struct bb_user_map *m = bb_user_map_of(map);
	int (*prog)(void *);

	if (!m || m->kind != BB_UM_PROGS)
		abort();
	if (slot >= m->max || slot >= 8 || !m->progs[slot] || ++bb_user.tail_calls > 33)
		return;		/* an empty slot: the caller goes on */
	prog = (int (*)(void *))m->progs[slot];
	bb_user.tail_ret = prog(ctx);
	longjmp(*bb_user.jmp, 1);
}

#define bpf_tail_call_static(ctx, map, slot)	bb_user_tail_call(ctx, map, slot)

/* ---- the packet ------------------------------------------------------------------------------- */

/* Where the frame's bytes are: the context's data and data_end. */
static inline __u8 *bb_user_data(__u64 data)
{
	return (__u8 *)(uintptr_t)data;
}

/* The packet's end moved to data + len, within the buffer (the room after it unpoisoned). */
static inline int bb_user_set_len(__u64 data, __u64 *data_end, __u64 len)
{
	__u8 *start = bb_user.buf + BB_USER_HEAD;
	__u8 *d = bb_user_data(data), *old_end = bb_user_data(*data_end);

	if (d + len > start + bb_user.cap || len < ETH_HLEN)
		return -EINVAL;
	if (d + len > old_end) {
		BB_USER_UNPOISON(old_end, d + len - old_end);
		memset(old_end, 0, d + len - old_end);
	} else {
		BB_USER_POISON(d + len, old_end - (d + len));
	}
	*data_end = (__u64)(uintptr_t)(d + len);
	return 0;
}

static inline long bpf_xdp_adjust_tail(struct bb_user_xdp *ctx, int delta)
{
	__u64 len = ctx->data_end - ctx->data;

	if (delta < 0 && (__u64)-delta > len)
		return -EINVAL;
	return bb_user_set_len(ctx->data, &ctx->data_end, len + delta);
}

static inline __u64 bpf_xdp_get_buff_len(struct bb_user_xdp *ctx)
{
	return ctx->data_end - ctx->data;
}

/* Metadata before the packet: at most 32 bytes, in 4-byte steps, as the kernel allows. */
static inline long bpf_xdp_adjust_meta(struct bb_user_xdp *ctx, int delta)
{
	__u64 meta = ctx->data_meta + delta;

	if (bb_user.no_meta)
		return -EOPNOTSUPP;
	if (delta & 3 || meta > ctx->data || ctx->data - meta > 32 ||
	    meta < (__u64)(uintptr_t)bb_user.buf)
		return -EINVAL;
	BB_USER_UNPOISON(bb_user_data(meta), ctx->data - meta);
	ctx->data_meta = meta;
	return 0;
}

static inline long bb_user_load(__u64 data, __u64 data_end, __u32 off, void *to, __u32 len)
{
	if ((__u64)off + len > data_end - data)
		return -EFAULT;
	memcpy(to, bb_user_data(data) + off, len);
	return 0;
}

static inline long bpf_xdp_load_bytes(struct bb_user_xdp *ctx, __u32 off, void *to, __u32 len)
{
	return bb_user_load(ctx->data, ctx->data_end, off, to, len);
}

static inline long bpf_skb_load_bytes(const void *skb, __u32 off, void *to, __u32 len)
{
	const struct bb_user_skb *s = skb;

	return bb_user_load(s->data, s->data_end, off, to, len);
}

static inline long bpf_skb_pull_data(struct bb_user_skb *skb, __u32 len)
{
	(void)skb;
	(void)len;
	return 0;	/* the frame is linear already */
}

static inline long bpf_skb_change_tail(struct bb_user_skb *skb, __u32 len, __u64 flags)
{
	int err;

	(void)flags;
	err = bb_user_set_len(skb->data, &skb->data_end, len);
	if (!err)
		skb->len = len;
	return err;
}

/* ---- checksums, as the kernel's inet_proto_csum_replace*() on CHECKSUM_NONE ------------------ */

static inline __u32 bb_user_csum_add(__u32 a, __u32 b)
{
	a += b;
	return a + (a < b);
}

static inline __u16 bb_user_csum_fold(__u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/* The 16-bit field at off of the packet, or NULL when it is not all there. */
static inline __u16 *bb_user_field(const struct bb_user_skb *skb, __u32 off)
{
	if ((__u64)off + 2 > skb->data_end - skb->data)
		return NULL;
	return (__u16 *)(void *)(bb_user_data(skb->data) + off);
}

/* *sum with from taken out and to put in (32 bits each; a 16-bit field's zero-extended). */
static inline void bb_user_csum_replace(__u16 *sum, __u32 from, __u32 to)
{
	__u32 s = ~(__u32)*sum;

	s = bb_user_csum_add(s, ~from);
	s = bb_user_csum_add(s, to);
	*sum = bb_user_csum_fold(s);
}

static inline long bpf_l4_csum_replace(struct bb_user_skb *skb, __u32 off, __u64 from, __u64 to,
				       __u64 flags)
{
	__u16 *sum = bb_user_field(skb, off);
	__u32 size = flags & BPF_F_HDR_FIELD_MASK;

	if (!sum)
		return -EFAULT;
	if ((flags & BPF_F_MARK_MANGLED_0) && !*sum)
		return 0;
	switch (size) {
	case 0:		/* to is a difference of sums */
		if (from)
			return -EINVAL;
		*sum = bb_user_csum_fold(bb_user_csum_add((__u32)to, ~(__u32)*sum));
		break;
	case 2:
		bb_user_csum_replace(sum, (__u16)from, (__u16)to);
		break;
	case 4:
		bb_user_csum_replace(sum, (__u32)from, (__u32)to);
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

static inline long bpf_l3_csum_replace(struct bb_user_skb *skb, __u32 off, __u64 from, __u64 to,
				       __u64 flags)
{
	__u16 *sum = bb_user_field(skb, off);
	__u32 size = flags & BPF_F_HDR_FIELD_MASK;

	if (!sum)
		return -EFAULT;
	if (size == 2)
		bb_user_csum_replace(sum, (__u16)from, (__u16)to);
	else if (size == 4)
		bb_user_csum_replace(sum, (__u32)from, (__u32)to);
	else if (size == 0 && !from)
		*sum = bb_user_csum_fold(bb_user_csum_add((__u32)to, ~(__u32)*sum));
	else
		return -EINVAL;
	return 0;
}

static inline __s64 bpf_csum_update(struct bb_user_skb *skb, __u32 csum)
{
	(void)skb;
	(void)csum;
	return 0;	/* CHECKSUM_NONE: no whole-packet sum to keep */
}

/* ---- redirects -------------------------------------------------------------------------------- */

static inline long bpf_clone_redirect(struct bb_user_skb *skb, __u32 ifindex, __u64 flags)
{
	size_t len = skb->data_end - skb->data;

	(void)ifindex;
	(void)flags;
	if (len > sizeof(bb_user.clone))
		return -E2BIG;
	memcpy(bb_user.clone, bb_user_data(skb->data), len);
	bb_user.clone_len = len;
	bb_user.clones++;
	return 0;
}

static inline long bpf_redirect(__u32 ifindex, __u64 flags)
{
	(void)ifindex;
	(void)flags;
	bb_user.redirects++;
	return TC_ACT_REDIRECT;
}

#endif /* BB_BPF_USER_H */

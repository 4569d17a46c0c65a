/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel program, bpf/bloomblock.bpf.c, compiled into the fuzzer that includes
 * this (tests/fuzz/bpf_user.h says how and what differs), and the runtime that runs
 * it: its maps in memory, a filter built from list lines by the project's own
 * builder, and a frame through an entry program at XDP, tc ingress or tc egress, its
 * tail calls (the DNS, TLS, HTTP, URL, answer and reset stages) included. One fuzzer, one program: every
 * map is this file's.
 */
#ifndef BB_BPF_PROG_H
#define BB_BPF_PROG_H

#include "bpf_user.h"
#include "../../bpf/bloomblock.bpf.c"
#undef asm
#undef volatile

#include "filter.h"
#include "list.h"

enum bb_prog_hook { BB_PROG_XDP, BB_PROG_TC_INGRESS, BB_PROG_TC_EGRESS, BB_PROG_HOOKS };

/* What one run did. */
struct bb_prog_run {
	int ret;			/* the program's verdict: XDP_*, TC_ACT_* */
	const __u8 *data;		/* the packet after it, len bytes (valid until the next run) */
	size_t len;
	__u32 meta_len;			/* XDP metadata the program left before it */
	__u8 meta[32];
	struct bb_stats d;		/* the counters it moved */
	__u32 mark;			/* tc: the skb's mark after it */
	const __u8 *clone;		/* tc: bpf_clone_redirect()'s copy, clone_len bytes */
	size_t clone_len;
	int redirects;
};

static struct bb_user_map bb_prog_inner = { .kind = BB_UM_ARRAY,
					    .value_size = sizeof(struct bb_block) };

static inline struct bb_user_map *bb_prog_map(const void *id, enum bb_user_map_kind kind,
				       __u32 key_size, __u32 value_size, __u32 max)
{
	struct bb_user_map *m = &bb_user.maps[bb_user.n_maps++];

	m->id = id;
	m->kind = kind;
	m->key_size = key_size;
	m->value_size = value_size;
	m->max = max;
	if (kind == BB_UM_ARRAY)	/* exactly: AddressSanitizer sees past a value */
		m->values = calloc(max, value_size);
	if (kind == BB_UM_HASH) {
		m->values = calloc(max, key_size + value_size);
		m->used = calloc(max, 1);
		m->age = calloc(max, sizeof(__u64));
	}
	return m;
}

/* The counters summed over the stats map's slots (a slot a hook), into *sum. */
static inline void bb_prog_stats_sum(struct bb_stats *sum)
{
	__u32 slot;
	size_t i;

	memset(sum, 0, sizeof(*sum));
	for (slot = 0; slot < BB_STATS_SLOTS; slot++) {
		const __u64 *c = bpf_map_lookup_elem(&stats, &slot);

		for (i = 0; i < sizeof(*sum) / 8; i++)
			((__u64 *)sum)[i] += c[i];
	}
}

/* The maps, the tail-call slots; once. */
static inline void bb_prog_init(void)
{
	struct bb_user_map *m;

	if (bb_user.n_maps)
		return;
	m = bb_prog_map(&filters, BB_UM_OUTER, 4, 4, 1);
	m->inner = &bb_prog_inner;
	bb_prog_inner.id = &bb_prog_inner;
	bb_prog_map(&stats, BB_UM_ARRAY, 4, sizeof(struct bb_stats), BB_STATS_SLOTS);
	bb_prog_map(&scratch, BB_UM_ARRAY, 4, sizeof(struct bb_scratch), 1);
	bb_prog_map(&event_bucket, BB_UM_ARRAY, 4, sizeof(struct bb_event_bucket), 1);
	bb_prog_map(&answer_bucket, BB_UM_ARRAY, 4, sizeof(struct bb_answer_bucket), 1);
	bb_prog_map(&confirm_daemon, BB_UM_ARRAY, 4, sizeof(struct bb_confirm_daemon), 1);
	bb_prog_map(&flows, BB_UM_HASH, sizeof(struct bb_flow_key), sizeof(struct bb_tls_walk), 8);
	bb_prog_map(&confirmed, BB_UM_HASH, sizeof(struct bb_confirm_key),
		    sizeof(struct bb_confirm_val), 8);
	bb_prog_map(&unlisted, BB_UM_HASH, sizeof(struct bb_confirm_key),
		    sizeof(struct bb_confirm_val), 8);
	/* the interfaces whose answers leave from tc (none here: answers are XDP_TX) */
	bb_prog_map(&tx_via_tc, BB_UM_HASH, sizeof(__u32), sizeof(__u8), 8);
	bb_prog_map(&events, BB_UM_RING, 0, 0, 0);
	bb_prog_map(&confirm_ring, BB_UM_RING, 0, 0, 0);
	m = bb_prog_map(&stages_xdp, BB_UM_PROGS, 4, 4, BB_STAGE_MAX);
	m->progs[BB_STAGE_DNS] = (void *)bloomblock_xdp_dns;
	m->progs[BB_STAGE_TLS] = (void *)bloomblock_xdp_tls;
	m->progs[BB_STAGE_HTTP] = (void *)bloomblock_xdp_http;
	m = bb_prog_map(&url_xdp, BB_UM_PROGS, 4, 4, 3);
	m->progs[BB_URL_SLOT] = (void *)bloomblock_xdp_url;
	m->progs[BB_ANSWER_SLOT] = (void *)bloomblock_xdp_answer;
	m->progs[BB_RESET_SLOT] = (void *)bloomblock_xdp_reset;
	m = bb_prog_map(&stages_tc, BB_UM_PROGS, 4, 4, BB_STAGE_MAX);
	m->progs[BB_STAGE_DNS] = (void *)bloomblock_tc_dns;
	m->progs[BB_STAGE_TLS] = (void *)bloomblock_tc_tls;
	m->progs[BB_STAGE_HTTP] = (void *)bloomblock_tc_http;
	m = bb_prog_map(&url_tc, BB_UM_PROGS, 4, 4, 4);
	m->progs[BB_URL_SLOT] = (void *)bloomblock_tc_url;
	m->progs[BB_ANSWER_SLOT] = (void *)bloomblock_tc_answer_ingress;
	m->progs[BB_RESET_SLOT] = (void *)bloomblock_tc_reset;
	m->progs[BB_ANSWER_EGRESS_SLOT] = (void *)bloomblock_tc_answer_egress;
	bb_user.now_ns = 1000000000ULL;
}

/* A map's values zeroed, its hash slots emptied. */
static inline void bb_prog_map_clear(const void *id)
{
	struct bb_user_map *m = bb_user_map_of(id);

	if (m->kind == BB_UM_ARRAY)
		memset(m->values, 0, (size_t)m->max * m->value_size);
	if (m->kind == BB_UM_HASH)
		memset(m->used, 0, m->max);
}

/* A filter's image, built (bb_prog_build()), to be made live (bb_prog_use()). */
struct bb_prog_image {
	struct bb_block *blocks;	/* element 0 is the header */
	__u32 n;
};

/*
 * lines (NULL-terminated) parsed and built with flags and cfg (NULL: the default
 * ports) as `load` builds, into img. 0, or -errno with what failed in msg.
 */
static inline int bb_prog_build(const char *const *lines, __u32 flags, const struct bb_config *cfg,
			 struct bb_prog_image *img, char *msg, size_t size)
{
	struct bb_filter_opts opts = { .seed = 0x5eed, .flags = flags, .threads = 1 };
	struct bb_filter filter;
	struct bb_list list;
	const char *why = NULL;
	__u64 n;
	size_t i;
	int err = 0;

	bb_prog_init();
	if (cfg)
		opts.config = *cfg;
	bb_list_init(&list);
	for (i = 0; lines[i] && !err; i++)
		if (bb_list_parse_line(&list, lines[i], strlen(lines[i]), &why) != 1) {
			snprintf(msg, size, "line \"%s\": %s", lines[i], why ? why : "-");
			err = -EINVAL;
		}
	if (!err && (err = bb_filter_build(&filter, &list, &opts)))
		snprintf(msg, size, "bb_filter_build: %s", strerror(-err));
	bb_list_free(&list);
	if (err)
		return err;
	n = bb_filter_elements(filter.hdr.nblocks, filter.hdr.allow_blocks);
	img->blocks = calloc(n, sizeof(struct bb_block));
	img->n = (__u32)n;
	if (img->blocks)
		bb_filter_write_image(&filter, img->blocks);
	bb_filter_free(&filter);
	return img->blocks ? 0 : -ENOMEM;
}

/* img the live filter (it stays the caller's). */
static inline void bb_prog_use(const struct bb_prog_image *img)
{
	bb_prog_inner.values = (__u8 *)img->blocks;
	bb_prog_inner.max = img->n;
}

/* What a run leaves that the next would see: walks, confirm marks, buckets, counters. */
static inline void bb_prog_forget(void)
{
	bb_prog_map_clear(&flows);
	bb_prog_map_clear(&unlisted);
	bb_prog_map_clear(&answer_bucket);
	bb_prog_map_clear(&event_bucket);
	bb_prog_map_clear(&stats);
	memset(bb_pending, 0, sizeof(bb_pending));
}

/*
 * frame (len bytes) through prog (NULL: hook's entry program), a program of hook's
 * family, in a buffer of its own sized to it (the room after it poisoned:
 * AddressSanitizer sees a read past the packet). With no_meta, XDP metadata cannot
 * be had (a driver that keeps none).
 */
static inline int bb_prog_run_prog(enum bb_prog_hook hook, void *prog, bool no_meta, const __u8 *frame,
			    size_t len, struct bb_prog_run *out)
{
	static __u8 *buf;
	static size_t buf_cap;
	struct bb_stats before;
	struct bb_user_xdp xdp = { 0 };
	struct bb_user_skb skb = { 0 };
	jmp_buf jb;
	__u8 *data;
	__u32 zero = 0;
	size_t need = BB_USER_HEAD + len + BB_USER_TAIL, s;

	bb_prog_init();
	if (need > buf_cap) {
		free(buf);
		buf = malloc(need);
		buf_cap = buf ? need : 0;
		if (!buf)
			return -ENOMEM;
	}
	/* the room before and after the frame poisoned until the program takes it */
	BB_USER_UNPOISON(buf, buf_cap);
	data = buf + BB_USER_HEAD;
	memcpy(data, frame, len);
	BB_USER_POISON(buf, BB_USER_HEAD);
	BB_USER_POISON(data + len, buf_cap - BB_USER_HEAD - len);
	bb_user.buf = buf;
	bb_user.cap = buf_cap - BB_USER_HEAD;
	bb_user.n_rings = 0;
	bb_user.clone_len = 0;
	bb_user.clones = bb_user.redirects = 0;
	bb_user.tail_calls = 0;
	bb_user.now_ns += 1000;
	bb_prog_stats_sum(&before);
	memset(out, 0, sizeof(*out));
	bb_user.jmp = &jb;
	bb_user.no_meta = no_meta;
	/* a program reached by a tail call finds the hook its caller left in the scratch */
	((struct bb_scratch *)bpf_map_lookup_elem(&scratch, &zero))->stage.hook =
		hook == BB_PROG_XDP ? BB_EV_XDP : hook == BB_PROG_TC_INGRESS ? BB_EV_TC_INGRESS :
		BB_EV_TC_EGRESS;
	if (hook == BB_PROG_XDP) {
		int (*fn)(struct bb_user_xdp *) = prog ? prog : (void *)bloomblock_xdp;

		xdp.data = xdp.data_meta = (__u64)(uintptr_t)data;
		xdp.data_end = xdp.data + len;
		xdp.ingress_ifindex = 1;
		if (setjmp(jb))
			out->ret = bb_user.tail_ret;
		else
			out->ret = fn(&xdp);
		out->data = bb_user_data(xdp.data);
		out->len = xdp.data_end - xdp.data;
		out->meta_len = (__u32)(xdp.data - xdp.data_meta);
		if (out->meta_len <= sizeof(out->meta))
			memcpy(out->meta, bb_user_data(xdp.data_meta), out->meta_len);
	} else {
		skb.data = skb.data_meta = (__u64)(uintptr_t)data;
		skb.data_end = skb.data + len;
		skb.len = (__u32)len;
		skb.ifindex = skb.ingress_ifindex = 1;
		int (*fn)(struct bb_user_skb *) = prog ? prog :
			hook == BB_PROG_TC_INGRESS ? (void *)bloomblock_tc_ingress :
			(void *)bloomblock_tc_egress;

		if (setjmp(jb))
			out->ret = bb_user.tail_ret;
		else
			out->ret = fn(&skb);
		out->data = bb_user_data(skb.data);
		out->len = skb.data_end - skb.data;
		out->mark = skb.mark;
		out->clone = bb_user.clone_len ? bb_user.clone : NULL;
		out->clone_len = bb_user.clone_len;
		out->redirects = bb_user.redirects;
	}
	bb_user.jmp = NULL;
	{
		struct bb_stats after;

		bb_prog_stats_sum(&after);
		for (s = 0; s < sizeof(before) / 8; s++)
			((__u64 *)&out->d)[s] = ((__u64 *)&after)[s] - ((__u64 *)&before)[s];
	}
	return 0;
}

/* frame through hook's entry program. */
static inline int bb_prog_run(enum bb_prog_hook hook, const __u8 *frame, size_t len,
		       struct bb_prog_run *out)
{
	return bb_prog_run_prog(hook, NULL, false, frame, len, out);
}

#endif /* BB_BPF_PROG_H */

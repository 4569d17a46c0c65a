/* SPDX-License-Identifier: GPL-2.0 */
/* Confirm mode: a hit asked of bloomblock run's answers, and a request raised for it. */
#ifndef BB_CONFIRM_BPF_H
#define BB_CONFIRM_BPF_H

#include "filter.bpf.h"

/* What bb_confirm() decided of a hit. */
enum bb_confirm_result {
	BB_CONFIRM_R_DROP = 1,	/* confirmed listed; or no daemon, and --daemon-down drop */
	BB_CONFIRM_R_PASS,	/* confirmed on no list: a false positive, no event */
	BB_CONFIRM_R_WAIT,	/* passed, not confirmed yet: an "unconfirmed" event */
};

static __always_inline int confirm_fresh(const struct bb_confirm_val *v,
					 const struct bb_header *hdr, const struct bb_config *cfg)
{
	return v->generation == hdr->generation && v->epoch == cfg->confirm_epoch;
}

#define BB_CONFIRM_COUNT	(1U << 16)	/* bb_confirm(): count, decide nothing */

/*
 * Confirm mode: what becomes of a hit the allowlist did not pass. what_family: enum
 * bb_event_what, the address family above it; an address in a (IPv4: its 4 bytes) and
 * b, a name's or URL's key (key_len bytes, as an event's) in the scratch key buffer.
 * With BB_CONFIRM_COUNT (drop and flag mode, while the daemon runs): the same
 * requests and answers, for the hits by list of stats --by-list, and no verdict. A
 * global function, verified once, asked on hits only: a miss costs nothing more.
 */
__noinline int bb_confirm(__u32 what_family, __u64 a, __u64 b, __u32 key_len)
{
	__u32 zero = 0, what = what_family & 0xff, len;	/* zero: every lookup's key, one stack slot */
	struct bb_scratch *sc = bpf_map_lookup_elem(&scratch, &zero);
	struct bb_stats *st = sc ? stats_of(sc->stage.hook) : NULL;	/* hit_decide()'s, url_stage()'s */
	void *filter = bpf_map_lookup_elem(&filters, &zero);
	const struct bb_confirm_daemon *d;
	const struct bb_header *hdr;
	const struct bb_config *cfg;
	struct bb_confirm_val *v, *mark;
	struct bb_confirm_key *k;
	struct bb_confirm_req *req;
	__u64 now = bpf_ktime_get_coarse_ns();
	int pending = 0, count = what_family & BB_CONFIRM_COUNT;

	d = bpf_map_lookup_elem(&confirm_daemon, &zero);
	if (count && (!d || !d->alive_ns || now > d->alive_ns + BB_CONFIRM_ALIVE_NS))
		return 0;	/* no daemon: nothing counts hits by list */
	if (!st || !sc || !filter)
		return BB_CONFIRM_R_WAIT;
	hdr = bpf_map_lookup_elem(filter, &zero);
	zero = BB_CONFIG_INDEX;	/* the key's slot again: Linux 6.1 counts this frame's bytes */
	cfg = bpf_map_lookup_elem(filter, &zero);
	if (!hdr || !cfg)
		return BB_CONFIRM_R_WAIT;
	k = &sc->ckey;
	mark = &sc->cmark;
	__builtin_memset(k, 0, sizeof(*k));
	if (what == BB_EV_SRC || what == BB_EV_DST) {
		k->kind = ((what_family >> 8) & 0xff) == 4 ? BB_CONFIRM_IP4 : BB_CONFIRM_IP6;
		bb_store64(k->data, a);
		bb_store64(k->data + 8, b);
		key_len = 0;
	} else {
		k->kind = what == BB_EV_URL ? BB_CONFIRM_URL : BB_CONFIRM_NAME;
		len = key_len > 1 ? key_len - 1 : 0;
		if (len > BB_KEY_MAX - 1)
			len = BB_KEY_MAX - 1;
		bb_store64(k->data, bb_xxh64(sc->key + 1, len, hdr->seed ^ k->kind));
	}
	v = bpf_map_lookup_elem(&confirmed, k);
	if (v && confirm_fresh(v, hdr, cfg)) {
		__sync_fetch_and_add(&v->hits, 1);
		return BB_CONFIRM_R_DROP;
	}
	v = bpf_map_lookup_elem(&unlisted, k);
	if (v && confirm_fresh(v, hdr, cfg)) {
		if (v->state == BB_CONFIRM_UNLISTED) {
			__sync_fetch_and_add(&v->hits, 1);
			if (!count)
				st->unlisted++;
			return BB_CONFIRM_R_PASS;
		}
		pending = now - v->time_ns < BB_CONFIRM_RETRY_NS;
	}
	if (count) {
		if (pending)
			return 0;
	} else if (!d || !d->alive_ns || now > d->alive_ns + BB_CONFIRM_ALIVE_NS) {
		st->daemon_down++;
		if (hdr->flags & BB_HDR_F_DOWN_DROP)
			return BB_CONFIRM_R_DROP;
		st->unconfirmed++;
		return BB_CONFIRM_R_WAIT;
	} else {
		st->unconfirmed++;
		if (pending)
			return BB_CONFIRM_R_WAIT;	/* asked already: the answer is on its way */
	}
	__builtin_memset(mark, 0, sizeof(*mark));
	mark->generation = hdr->generation;
	mark->epoch = cfg->confirm_epoch;
	mark->state = BB_CONFIRM_PENDING;
	mark->time_ns = now;
	bpf_map_update_elem(&unlisted, k, mark, BPF_ANY);
	req = bpf_ringbuf_reserve(&confirm_ring, sizeof(*req), 0);
	if (!req) {
		st->confirm_lost++;
		return BB_CONFIRM_R_WAIT;
	}
	req->time_ns = bpf_ktime_get_ns();
	req->generation = hdr->generation;
	req->epoch = cfg->confirm_epoch;
	req->key_len = key_len < BB_EVENT_KEY_MAX ? (__u16)key_len : BB_EVENT_KEY_MAX;
	req->what = (__u8)what;
	req->family = (__u8)((what_family >> 8) & 0xff);
	__builtin_memcpy(&req->ckey, k, sizeof(*k));
	__builtin_memcpy(req->key, sc->key, BB_EVENT_KEY_MAX);
	bpf_ringbuf_submit(req, 0);
	st->confirm_requests++;
	return BB_CONFIRM_R_WAIT;
}

#endif /* BB_CONFIRM_BPF_H */

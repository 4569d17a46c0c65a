// SPDX-License-Identifier: GPL-2.0
/*
 * Hit events (table 9): what raising them costs a packet. The IPv4 list's filter
 * twice, built the same way, once with BB_HDR_F_EVENTS; the real entry program on
 * each, hot (the same packet every run: bloomblock_xdp) and cold (each run another
 * address: bench_xdp_cold, bloomblock_xdp's body on a rewritten source), with events
 * off and on under three rate configs, round by round. Beside them, after
 * parse+count: the ring buffer alone (a reserve and submit of one event's record,
 * unwritten and written), and steps of an event's path alone (the fine clock, the
 * coarse clock that the bucket and the event's time read, the copy of the frame's
 * first bytes).
 *
 * Every sample runs in test runs of EV_CHUNK runs, and the driver drains the ring
 * after each one: the ring (1 MiB) holds about 2300 events, and a sample of 10^6
 * runs in one test run would time lost events (a failed reserve), not raised ones.
 *
 * So many test runs need the programs kept in the kernel's XDP dispatcher meanwhile
 * (xdp_dispatch_fill()): a test run of XDP with repeat > 1 puts its program into the
 * dispatcher and takes it out again (bpf_prog_change_xdp()), two image updates that
 * each wait for an RCU grace period: 15 to 25 ms a test run here, asleep, and every
 * test run of 2000 runs would start on caches others used meanwhile. A program the
 * dispatcher holds already is only counted again. Each program of the part is
 * attached (generic XDP, a bpf_link) to a veth of a private network namespace, which
 * the driver enters for the part; nothing reaches those veths.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench_parts.h"
#include "pins.h"
#include "bench_seq.h"
#include "bench.skel.h"	/* after bench_seq.h: its .bss holds struct bench_cfg */
#include "pins.h"

#define EV_CHUNK	2000U	/* runs per test run: their events fit the ring */
#define EV_RECORD	((sizeof(struct bb_event) + 8 + 7) / 8 * 8)	/* + the ring's header */
#define EV_MISS_SPAN	BENCH_M31
#define EV_SADDR_OFF	(14 + 12)	/* the frame's IPv4 source, as bpf/bench.bpf.c has it */
#define EV_COST_LIMITED	0xffffffffU	/* the refusal row: one event in 4.3 s, burst 1 */

_Static_assert(EV_RECORD == 464, "an event's record in the ring: 456 bytes and a header");

/* The filters: the IPv4 list's, without and with events. */
enum { EVF_NONE = -1, EVF_PLAIN, EVF_EVENTS, EVF_MAX };

/* What a row writes into the events filter's config before each sample. */
enum ev_config {
	EVC_NONE,	/* not the events filter */
	EVC_ALL,	/* event_cost_ns 1, the largest burst: every event raised */
	EVC_LIMITED,	/* one in 4.3 s, burst 1, the bucket emptied: every event refused */
	EVC_FLOOD,	/* load's default rate and burst, the bucket emptied: a flood */
};

enum ev_prog {
	EVP_EMPTY, EVP_PARSE, EVP_RING, EVP_RING_WRITTEN, EVP_KTIME, EVP_KTIME_COARSE,
	EVP_CAPTURE, EVP_XDP, EVP_DERIVE, EVP_XDP_COLD, EVP_MAX,
};

/* The rows, in the order of a round; each row's reference runs before it. */
enum ev_row {
	EV_HOT_EMPTY, EV_HOT_PARSE, EV_RING, EV_RING_WRITTEN, EV_KTIME, EV_KTIME_COARSE,
	EV_CAPTURE,
	EV_HOT_OFF, EV_HOT_ALL, EV_HOT_LIMITED, EV_HOT_FLOOD,
	EV_COLD_EMPTY, EV_COLD_DERIVE, EV_COLD_OFF, EV_COLD_ALL, EV_COLD_LIMITED,
	EV_COLD_FLOOD, EV_ROWS,
};

static const struct ev_row_def {
	const char *name;
	int prog;		/* enum ev_prog */
	int filter;		/* EVF_* */
	int config;		/* enum ev_config */
	int ref;		/* the row it is read against; -1: none */
	bool cold;
	bool lookup;		/* a verdict to check: the entry's, or the step's (XDP_DROP) */
	bool hit_only;		/* a step of the hit alone: no miss samples */
} rows[EV_ROWS] = {
	[EV_HOT_EMPTY] = { "hot: empty XDP (floor)", EVP_EMPTY, EVF_NONE, EVC_NONE, -1 },
	[EV_HOT_PARSE] = { "hot: parse+count IPv4", EVP_PARSE, EVF_NONE, EVC_NONE,
			   EV_HOT_EMPTY },
	[EV_RING] = { "hot: parse + ring reserve/submit of 456 B (unwritten)", EVP_RING,
		      EVF_NONE, EVC_NONE, EV_HOT_PARSE, false, true, true },
	[EV_RING_WRITTEN] = { "hot: parse + ring reserve, 456 B written, submit",
			      EVP_RING_WRITTEN, EVF_NONE, EVC_NONE, EV_HOT_PARSE, false, true, true },
	[EV_KTIME] = { "hot: parse + bpf_ktime_get_ns() (the fine clock)", EVP_KTIME,
		       EVF_NONE, EVC_NONE, EV_HOT_PARSE, false, true, true },
	[EV_KTIME_COARSE] = { "hot: parse + bpf_ktime_get_coarse_ns() (the event's clock)",
			      EVP_KTIME_COARSE, EVF_NONE, EVC_NONE, EV_HOT_PARSE, false, true,
			      true },
	[EV_CAPTURE] = { "hot: parse + capture_packet() (the frame's first bytes)",
			 EVP_CAPTURE, EVF_NONE, EVC_NONE, EV_HOT_PARSE, false, true, true },
	[EV_HOT_OFF] = { "hot: bloomblock_xdp, events off", EVP_XDP, EVF_PLAIN, EVC_NONE,
			 EV_HOT_PARSE, false, true },
	[EV_HOT_ALL] = { "hot: bloomblock_xdp, events on, every event raised", EVP_XDP,
			 EVF_EVENTS, EVC_ALL, EV_HOT_OFF, false, true },
	[EV_HOT_LIMITED] = { "hot: bloomblock_xdp, events on, every event refused (limit)",
			     EVP_XDP, EVF_EVENTS, EVC_LIMITED, EV_HOT_OFF, false, true },
	[EV_HOT_FLOOD] = { "hot: bloomblock_xdp, events on, a flood at the default rate",
			   EVP_XDP, EVF_EVENTS, EVC_FLOOD, EV_HOT_OFF, false, true },
	[EV_COLD_EMPTY] = { "cold: empty XDP (floor)", EVP_EMPTY, EVF_NONE, EVC_NONE, -1,
			    true },
	[EV_COLD_DERIVE] = { "cold: derive + rewrite the source", EVP_DERIVE, EVF_NONE,
			     EVC_NONE, EV_COLD_EMPTY, true },
	[EV_COLD_OFF] = { "cold: bloomblock_xdp's body, events off", EVP_XDP_COLD, EVF_PLAIN,
			  EVC_NONE, EV_COLD_DERIVE, true, true },
	[EV_COLD_ALL] = { "cold: bloomblock_xdp's body, events on, every event raised",
			  EVP_XDP_COLD, EVF_EVENTS, EVC_ALL, EV_COLD_OFF, true, true },
	[EV_COLD_LIMITED] = { "cold: bloomblock_xdp's body, events on, every event refused",
			      EVP_XDP_COLD, EVF_EVENTS, EVC_LIMITED, EV_COLD_OFF, true, true },
	[EV_COLD_FLOOD] = { "cold: bloomblock_xdp's body, events on, a flood at the default "
			    "rate", EVP_XDP_COLD, EVF_EVENTS, EVC_FLOOD, EV_COLD_OFF, true, true },
};

/* What the counters and the ring saw over a row's samples of one outcome. */
struct ev_counts {
	__u64 runs, hits;		/* hits: ip4_hits (the entry rows), drops (cold) */
	__u64 events, limited, lost;	/* the stats' counters */
	__u64 drained, bad;		/* records the driver read; of them not as raised */
	__u64 wrong;			/* test runs whose (last) verdict was wrong */
	double wall_s;			/* from the bucket emptied (or the sample's start) */
};

#define EV_UNFILLED_CHUNKS	10	/* test runs a sample without the dispatcher filled */

struct ev_run {
	__u32 n;			/* the list's addresses: members 0 .. n - 1 */
	__u32 runs;			/* a sample's: settings.event_runs, fewer unfilled */
	struct xdp_dispatch dispatch;
	struct bench *skel;
	struct bench_filter filters[EVF_MAX];
	int live, filters_fd, stats_fd, state_fd, bucket_fd;
	int prog_fd[EVP_MAX];
	struct ring_buffer *ring;
	int ncpus;
	struct bench_cpu *percpu;
	struct packet pkt[2];		/* the hot hit (member 0) and miss (non-member 0) */
	double ns[EV_ROWS][2][MAX_ROUNDS];
	struct ev_counts counts[EV_ROWS][2];
	double skeleton_load_s;
	/* the ring's callback: the sample's frame, whether records are events to check */
	const struct packet *frame;
	bool check_records, cold;
	__u64 drained, bad;
};

/* ---- the skeleton, the filters, the ring ---- */

static int ev_prog_fd(struct bench *k, int prog)
{
	switch (prog) {
	case EVP_EMPTY: return bpf_program__fd(k->progs.bench_empty);
	case EVP_PARSE: return bpf_program__fd(k->progs.bench_parse);
	case EVP_RING: return bpf_program__fd(k->progs.bench_ring_hot);
	case EVP_RING_WRITTEN: return bpf_program__fd(k->progs.bench_ring_written_hot);
	case EVP_KTIME: return bpf_program__fd(k->progs.bench_ktime_hot);
	case EVP_KTIME_COARSE: return bpf_program__fd(k->progs.bench_ktime_coarse_hot);
	case EVP_CAPTURE: return bpf_program__fd(k->progs.bench_capture_hot);
	case EVP_XDP: return bpf_program__fd(k->progs.bloomblock_xdp);
	case EVP_DERIVE: return bpf_program__fd(k->progs.bench_xdp_derive);
	case EVP_XDP_COLD: return bpf_program__fd(k->progs.bench_xdp_cold);
	}
	return -1;
}

/* The bench skeleton with this part's programs ("?xdp": not loaded by default). */
static int ev_skeleton_load(struct ev_run *run)
{
	struct bpf_program *const mine[] = {
		run->skel->progs.bench_xdp_derive, run->skel->progs.bench_xdp_cold,
		run->skel->progs.bench_ring_hot, run->skel->progs.bench_ring_written_hot,
		run->skel->progs.bench_ktime_hot, run->skel->progs.bench_ktime_coarse_hot,
		run->skel->progs.bench_capture_hot,
		run->skel->progs.bench_bucket_empty,
	};
	size_t i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(mine) && !err; i++)
		err = bpf_program__set_autoload(mine[i], true);
	err = err ?: bench__load(run->skel);
	return err ?: bb_stage_tables_fill(run->skel->obj, BB_FAMILY_ALL);
}

/* A record in the ring: counted, and for the event rows checked against the frame. */
static int ev_record(void *ctx, void *data, size_t size)
{
	struct ev_run *run = ctx;
	const struct bb_event *ev = data;
	const struct packet *p = run->frame;
	size_t keep = p->len < BB_EVENT_PKT_MAX ? p->len : BB_EVENT_PKT_MAX;

	run->drained++;
	if (!run->check_records)
		return 0;
	/* an address hit of the source, dropped, at XDP, with the frame's first bytes;
	 * cold: the source rewritten by the run, in the kept bytes too */
	if (size < sizeof(*ev) || ev->what != BB_EV_SRC || ev->verdict != BB_EV_DROPPED ||
	    ev->hook != BB_EV_XDP || ev->family != 4 || ev->key_len != 0 ||
	    ev->wire_len != p->len || ev->pkt_len != keep ||
	    memcmp(ev->saddr, ev->pkt + EV_SADDR_OFF, 4) ||
	    (!run->cold && memcmp(ev->pkt, p->data, keep)) ||
	    (run->cold && (memcmp(ev->pkt, p->data, EV_SADDR_OFF) ||
			   memcmp(ev->pkt + EV_SADDR_OFF + 4, p->data + EV_SADDR_OFF + 4,
				  keep - EV_SADDR_OFF - 4))))
		run->bad++;
	return 0;
}

/* The two filters must differ by the events flag alone. */
static int ev_filters_build(struct ev_run *run, __u32 n)
{
	const struct bench_filter *a = &run->filters[EVF_PLAIN], *b = &run->filters[EVF_EVENTS];
	struct bb_list list;
	int err, i;

	progress("events: building the IPv4 filter of %u addresses, without and with events",
		 n);
	err = bench_list_ip4(&list, n);
	for (i = 0; i < EVF_MAX && !err; i++)
		err = filter_make(&run->filters[i], &list,
				  BB_HDR_F_DROP | (i == EVF_EVENTS ? BB_HDR_F_EVENTS : 0));
	bb_list_free(&list);
	if (err)
		return err;
	if (a->hdr.nblocks == b->hdr.nblocks && a->hdr.items == b->hdr.items &&
	    a->hdr.k == b->hdr.k && a->hdr.seed == b->hdr.seed &&
	    (a->hdr.flags ^ b->hdr.flags) == BB_HDR_F_EVENTS)
		return 0;
	bench_warn("events: the two filters differ by more than the events flag\n");
	return -EINVAL;
}

static int ev_setup(struct ev_run *run, __u32 n)
{
	double t0 = now_s();
	int err, i, o;

	run->n = n;
	run->live = EVF_NONE;
	run->ncpus = libbpf_num_possible_cpus();
	if (run->ncpus < 1)
		return -EINVAL;
	run->percpu = calloc(run->ncpus, sizeof(*run->percpu));
	if (!run->percpu)
		return -ENOMEM;
	run->skel = bench__open();
	if (!run->skel)
		return -errno;
	err = ev_skeleton_load(run);
	if (err) {
		bench_warn("events: bench skeleton: %s\n", strerror(-err));
		return err;
	}
	run->skeleton_load_s = now_s() - t0;
	run->filters_fd = bpf_map__fd(run->skel->maps.filters);
	run->stats_fd = bpf_map__fd(run->skel->maps.stats);
	run->state_fd = bpf_map__fd(run->skel->maps.bench_state);
	run->bucket_fd = bpf_program__fd(run->skel->progs.bench_bucket_empty);
	for (i = 0; i < EVP_MAX; i++)
		run->prog_fd[i] = ev_prog_fd(run->skel, i);
	xdp_dispatch_fill(&run->dispatch, run->prog_fd, EVP_MAX, "events", "bbev");
	run->runs = settings.event_runs;
	if (!run->dispatch.filled && run->runs > EV_UNFILLED_CHUNKS * EV_CHUNK)
		run->runs = EV_UNFILLED_CHUNKS * EV_CHUNK;	/* 20 ms a test run: minutes */
	if (bpf_map__max_entries(run->skel->maps.events) < EV_CHUNK * EV_RECORD) {
		bench_warn("events: the ring holds fewer than %u events\n", EV_CHUNK);
		return -ENOSPC;
	}
	run->ring = ring_buffer__new(bpf_map__fd(run->skel->maps.events), ev_record, run, NULL);
	if (!run->ring)
		return -errno;
	err = ev_filters_build(run, n);
	if (err)
		return err;
	for (o = 0; o < 2; o++) {
		__u8 a[16];

		bench_addr(0, o, a);
		udp_to_discard(&run->pkt[o], a, false);
	}
	return 0;
}

static void ev_free(struct ev_run *run)
{
	int i;

	xdp_dispatch_free(&run->dispatch);
	ring_buffer__free(run->ring);
	for (i = 0; i < EVF_MAX; i++)
		filter_close(&run->filters[i]);
	bench__destroy(run->skel);
	free(run->percpu);
}

/* ---- one sample ---- */

/* The stats counters of every CPU and hook, summed. */
static int ev_stats(struct ev_run *run, struct bb_stats *sum)
{
	return bb_stats_read_fd(run->stats_fd, sum);
}

/* The cold counter: every CPU starts at next (the rows of a round: the same addresses). */
static int ev_state(struct ev_run *run, bool set, __u64 next, __u64 *runs, __u64 *hits)
{
	__u32 zero = 0;
	int cpu;

	if (bpf_map_lookup_elem(run->state_fd, &zero, run->percpu))
		return -errno;
	*runs = *hits = 0;
	for (cpu = 0; cpu < run->ncpus; cpu++) {
		*runs += run->percpu[cpu].runs;
		*hits += run->percpu[cpu].hits;
		if (set)
			run->percpu[cpu].next = next;
	}
	if (set && bpf_map_update_elem(run->state_fd, &zero, run->percpu, BPF_ANY))
		return -errno;
	return 0;
}

/* The events filter's config for a row, and its bucket emptied where the row says so. */
static int ev_config_set(struct ev_run *run, int config)
{
	__u32 idx = BB_CONFIG_INDEX, ret;
	int fd = run->filters[EVF_EVENTS].fd;
	struct bb_config cfg;
	double ns;

	if (config == EVC_NONE)
		return 0;
	if (bpf_map_lookup_elem(fd, &idx, &cfg))
		return -errno;
	switch (config) {
	case EVC_ALL:
		cfg.event_cost_ns = 1;
		cfg.event_burst = 0xffffffffU;
		break;
	case EVC_LIMITED:
		cfg.event_cost_ns = EV_COST_LIMITED;
		cfg.event_burst = 1;
		break;
	case EVC_FLOOD:
		cfg.event_cost_ns = 1000000000U / BB_EVENT_RATE_DEFAULT;
		cfg.event_burst = BB_EVENT_RATE_DEFAULT;
		break;
	}
	if (bpf_map_update_elem(fd, &idx, &cfg, BPF_ANY))
		return -errno;
	if (config == EVC_ALL)
		return 0;
	/* this CPU's (the driver is pinned: the test runs run on it) */
	return test_run(run->bucket_fd, run->pkt[1].data, run->pkt[1].len, 1, &ns, &ret) ?:
	       (ret == XDP_PASS ? 0 : -EIO);
}

static int ev_filter_live(struct ev_run *run, int f)
{
	int err;

	if (f == EVF_NONE || f == run->live)
		return 0;
	err = filter_slot_set(run->filters_fd, run->filters[f].fd);
	if (!err)
		run->live = f;
	return err;
}

/*
 * One sample of a row, outcome o (0 hit, 1 miss), round r: run->runs runs in test
 * runs of EV_CHUNK, the ring drained after each. Its ns per run, and what the
 * counters and the ring saw into the row's counts.
 */
static int ev_sample(struct ev_run *run, int row, int o, int r)
{
	const struct ev_row_def *d = &rows[row];
	const struct packet *p = &run->pkt[d->cold ? 1 : o];
	__u32 repeat = run->runs, done, chunk, ret;
	struct ev_counts *c = &run->counts[row][o];
	__u64 runs0 = 0, hits0 = 0, runs1 = 0, hits1 = 0;
	struct bb_stats s0, s1;
	double total = 0, ns, t0;
	int err;

	err = ev_filter_live(run, d->filter);
	if (!err && d->cold) {
		__u64 span = o ? EV_MISS_SPAN : run->n;

		run->skel->bss->bench_cfg.span = (__u32)span;
		run->skel->bss->bench_cfg.miss = o;
		err = ev_state(run, true, ((__u64)r * repeat) % span, &runs0, &hits0);
	}
	if (err)
		return err;
	ring_buffer__consume(run->ring);	/* nothing should be left: not counted */
	run->frame = p;
	run->cold = d->cold;
	run->check_records = d->config != EVC_NONE;
	run->drained = run->bad = 0;
	t0 = now_s();
	err = ev_config_set(run, d->config);
	err = err ?: ev_stats(run, &s0);
	for (done = 0; done < repeat && !err; done += chunk) {
		chunk = repeat - done < EV_CHUNK ? repeat - done : EV_CHUNK;
		err = test_run(run->prog_fd[d->prog], p->data, p->len, chunk, &ns, &ret);
		if (err)
			break;
		total += ns * chunk;
		/* the last run's verdict; the ring rows': XDP_PASS when the ring was full */
		if (d->lookup && !d->cold && ret != (o && d->prog == EVP_XDP ? XDP_PASS : XDP_DROP))
			c->wrong++;
		if (ring_buffer__consume(run->ring) < 0)
			err = -EIO;
	}
	c->wall_s += now_s() - t0;
	err = err ?: ev_stats(run, &s1);
	if (!err && d->cold)
		err = ev_state(run, false, 0, &runs1, &hits1);
	if (err)
		return err;
	run->ns[row][o][r] = total / repeat;
	c->runs += repeat;
	c->hits += d->cold ? hits1 - hits0 : s1.ip4_hits - s0.ip4_hits;
	c->events += s1.events - s0.events;
	c->limited += s1.events_limited - s0.events_limited;
	c->lost += s1.events_lost - s0.events_lost;
	c->drained += run->drained;
	c->bad += run->bad;
	return 0;
}

/* Round r: hits then misses, every row in order (each after its reference). */
static int ev_round(struct ev_run *run, int r)
{
	int row, o, err;

	for (o = 0; o < 2; o++)
		for (row = 0; row < EV_ROWS; row++) {
			if (o && rows[row].hit_only)
				continue;
			err = ev_sample(run, row, o, r);
			if (err) {
				bench_warn("events: %s: %s\n", rows[row].name, strerror(-err));
				return err;
			}
		}
	return 0;
}

/* ---- the table ---- */

static void ev_cmp_of(struct ev_cmp *e, const double *a, const double *b, int n)
{
	double x[MAX_ROUNDS];
	struct st3 st;
	int i;

	for (i = 0; i < n; i++)
		x[i] = b[i] > 0 ? a[i] / b[i] : NAN;
	st3_of(&st, x, n);
	*e = (struct ev_cmp){
		.ns = median_of(a, n),
		.ref_ns = median_of(b, n),
		.x = paired(a, b, n, true),
		.extra_ns = paired(a, b, n, false),
		.x_min = st.min,
		.x_max = st.max,
	};
}

/* What a row's counts say is wrong, or "ok". */
static const char *ev_check(const struct ev_run *run, int row, char *buf, size_t size)
{
	const struct ev_row_def *d = &rows[row];
	const struct ev_counts *hit = &run->counts[row][0], *miss = &run->counts[row][1];
	bool ring = d->prog == EVP_RING || d->prog == EVP_RING_WRITTEN;
	size_t k = 0;

	buf[0] = 0;
#define EV_PROBLEM(...)								\
	(k += snprintf(buf + (k < size ? k : size - 1), k < size ? size - k : 1, __VA_ARGS__))
	if (hit->wrong || miss->wrong)
		EV_PROBLEM("%s ", ring ? "RING FULL" : "WRONG VERDICT");
	if (d->hit_only)
		goto out;
	if (d->lookup && hit->hits != hit->runs)
		EV_PROBLEM("CHECK hits %llu/%llu ", (unsigned long long)hit->hits,
			   (unsigned long long)hit->runs);
	if (hit->lost || miss->lost)
		EV_PROBLEM("LOST %llu ", (unsigned long long)(hit->lost + miss->lost));
	if (hit->bad || miss->bad)
		EV_PROBLEM("BAD RECORDS %llu ", (unsigned long long)(hit->bad + miss->bad));
	/* every event raised reached the driver */
	if (hit->drained + miss->drained != hit->events + miss->events)
		EV_PROBLEM("DRAINED %llu ", (unsigned long long)(hit->drained + miss->drained));
	if (d->config == EVC_ALL && (hit->events != hit->hits || hit->limited))
		EV_PROBLEM("NOT ALL RAISED ");
	if (d->config == EVC_LIMITED && hit->events)
		EV_PROBLEM("RAISED %llu ", (unsigned long long)hit->events);
	if (d->config == EVC_FLOOD &&
	    hit->events > hit->wall_s * BB_EVENT_RATE_DEFAULT + settings.rounds)
		EV_PROBLEM("OVER THE RATE ");
out:
	if (ring && hit->drained != hit->runs)
		EV_PROBLEM("DRAINED %llu ", (unsigned long long)hit->drained);
#undef EV_PROBLEM
	return buf[0] ? buf : (d->lookup ? "ok" : "-");
}

/* The hit runs' events; the flood's as a rate over the samples' wall time. */
static const char *ev_events_cell(const struct ev_run *run, int row, char *buf, size_t size)
{
	const struct ev_counts *c = &run->counts[row][0];

	if (rows[row].config == EVC_NONE)
		return rows[row].prog == EVP_RING || rows[row].prog == EVP_RING_WRITTEN ?
		       fmtf(buf, size, "%llu records", (unsigned long long)c->drained) : "-";
	snprintf(buf, size, "%llu / %llu / %llu of %llu", (unsigned long long)c->events,
		 (unsigned long long)c->limited, (unsigned long long)c->lost,
		 (unsigned long long)c->hits);
	if (rows[row].config == EVC_FLOOD && c->wall_s > 0)
		snprintf(buf + strlen(buf), size - strlen(buf), " (%.0f/s)",
			 c->events / c->wall_s);
	return buf;
}

static void ev_rows(const struct ev_run *run, struct event_results *res)
{
	int row, o, n = settings.rounds;
	char nn[16];

	pow10_name(res->n, nn, sizeof(nn));
	for (row = 0; row < EV_ROWS; row++) {
		const struct ev_row_def *d = &rows[row];
		char c[10][BT_CELL], ev[BT_CELL], check[BT_CELL];
		const char *cells[BT_COLS];
		struct st3 st;
		int k = 0;

		cells[k++] = d->name;
		cells[k++] = d->filter == EVF_NONE ? "-" : nn;
		cells[k++] = d->ref < 0 ? "-" : rows[d->ref].name;
		for (o = 0; o < 2; o++) {
			struct ev_cmp e;

			st3_of(&st, run->ns[row][o], n);
			cells[k++] = o && d->hit_only ? "-" : st3_fmt(c[o * 4], BT_CELL, &st, 0);
			if (d->ref < 0 || (o && d->hit_only)) {
				cells[k++] = "-";
				cells[k++] = "-";
				cells[k++] = "-";
				continue;
			}
			ev_cmp_of(&e, run->ns[row][o], run->ns[d->ref][o], n);
			cells[k++] = fmtf(c[o * 4 + 1], BT_CELL, "%.2fx", e.x);
			cells[k++] = fmtf(c[o * 4 + 2], BT_CELL, "%.2fx-%.2fx", e.x_min, e.x_max);
			cells[k++] = fmtf(c[o * 4 + 3], BT_CELL, "%+.0f", e.extra_ns);
		}
		cells[k++] = ev_events_cell(run, row, ev, sizeof(ev));
		cells[k++] = ev_check(run, row, check, sizeof(check));
		table_add(&res->table, cells);
		if (strcmp(cells[k - 1], "ok") && strcmp(cells[k - 1], "-"))
			res->checks_failed++;
	}
}

/* The figures the targets are judged on. */
static void ev_figures(const struct ev_run *run, struct event_results *res)
{
	static const struct {
		size_t off;
		int row, o;
	} cmp[] = {
		{ offsetof(struct event_results, cold_miss), EV_COLD_ALL, 1 },
		{ offsetof(struct event_results, hot_miss), EV_HOT_ALL, 1 },
		{ offsetof(struct event_results, hot_hit), EV_HOT_ALL, 0 },
		{ offsetof(struct event_results, cold_hit), EV_COLD_ALL, 0 },
		{ offsetof(struct event_results, hot_limited), EV_HOT_LIMITED, 0 },
		{ offsetof(struct event_results, cold_limited), EV_COLD_LIMITED, 0 },
		{ offsetof(struct event_results, hot_flood), EV_HOT_FLOOD, 0 },
		{ offsetof(struct event_results, cold_flood), EV_COLD_FLOOD, 0 },
		{ offsetof(struct event_results, ring), EV_RING, 0 },
		{ offsetof(struct event_results, ring_written), EV_RING_WRITTEN, 0 },
		{ offsetof(struct event_results, ktime), EV_KTIME, 0 },
		{ offsetof(struct event_results, ktime_coarse), EV_KTIME_COARSE, 0 },
		{ offsetof(struct event_results, capture), EV_CAPTURE, 0 },
	};
	const struct ev_counts *all[2] = { &run->counts[EV_HOT_ALL][0],
					   &run->counts[EV_COLD_ALL][0] };
	const struct ev_counts *flood = &run->counts[EV_HOT_FLOOD][0];
	size_t i;
	int j;

	for (i = 0; i < ARRAY_SIZE(cmp); i++) {
		const double *a = run->ns[cmp[i].row][cmp[i].o];
		const double *b = run->ns[rows[cmp[i].row].ref][cmp[i].o];

		ev_cmp_of((struct ev_cmp *)((char *)res + cmp[i].off), a, b, settings.rounds);
	}
	for (j = 0; j < 2; j++) {
		res->all_hits += all[j]->hits;
		res->all_raised += all[j]->events;
		res->all_not_raised += all[j]->limited + all[j]->lost;
	}
	res->flood_hits = flood->hits;
	res->flood_raised = flood->events;
	res->flood_wall_s = flood->wall_s;
	res->flood_rate = flood->wall_s > 0 ? flood->events / flood->wall_s : NAN;
}

static void ev_notes(const struct ev_run *run, struct event_results *res)
{
	const struct bench_filter *f = &run->filters[EVF_EVENTS];
	char nn[16];

	pow10_name(res->n, nn, sizeof(nn));
	table_note(&res->table, "The IPv4 list's filter at %s (%u blocks, %llu keys, k=%u), built "
		   "twice by the real builder, in drop mode: once with BB_HDR_F_EVENTS; the bits "
		   "are the same. Hot rows run bloomblock_xdp on member 0 (hit) or non-member 0 "
		   "(miss) every run; cold rows run bench_xdp_cold, bloomblock_xdp's body "
		   "(bloomblock_core() and the calls it makes) after the test packet's source is "
		   "rewritten with the next address of a per-CPU counter, as table 1a derives "
		   "them (every row of a round the same addresses).",
		   nn, f->hdr.nblocks, (unsigned long long)f->hdr.items, f->hdr.k);
	table_note(&res->table, "Events on: every event raised (event_cost_ns 1, burst "
		   "2^32-1); every event refused (one in 4.3 s, burst 1, the CPU's bucket emptied "
		   "before each sample: the events_limited path); a flood at load's default "
		   "(%u a second a CPU, burst %u), the bucket emptied before each sample, as a "
		   "flood that has spent its burst leaves it. Samples of %u runs, in test runs "
		   "of %u whose events fit the 1 MiB ring (%u bytes a "
		   "record), drained by the driver after each; every record read is checked "
		   "against the frame (an address hit of the source, dropped, its first bytes).",
		   BB_EVENT_RATE_DEFAULT, BB_EVENT_RATE_DEFAULT, run->runs, EV_CHUNK,
		   (unsigned)EV_RECORD);
	table_note(&res->table, "Each row is read against the row named beside it, run just "
		   "before it in every round: x and extra ns round by round, then the median; "
		   "rounds' range: the least and greatest of the rounds' ratios. Events: of the "
		   "hit runs, raised / limited / lost of the hits (the flood's raised a second "
		   "of the samples' wall time, drains included). Loading the skeleton with this "
		   "part's programs took %.2fs.", run->skeleton_load_s);
	table_note(&res->table, run->dispatch.filled ? "Every program of the part was in the XDP "
		   "dispatcher throughout (attached to veths of a private network namespace): a "
		   "test run stays in the syscall." : "NOT FILLED: the XDP dispatcher did not hold "
		   "the part's programs (no private network namespace or veths): each test run "
		   "also slept through two dispatcher updates, and samples are shorter.");
}

int events_run(struct event_results *res)
{
	static const char *const columns[] = {
		"row", "n", "against", "hit ns", "x", "rounds' range", "extra ns", "miss ns", "x",
		"rounds' range", "extra ns", "hit runs' events: raised / limited / lost", "check",
		NULL,
	};
	struct ev_run *run = calloc(1, sizeof(*run));
	double t0 = now_s();
	int err, r, i;

	table_init(&res->table, "events", "9. Hit events: what raising them costs a hit, and a "
		   "miss (ns per run, same run, paired)", 3, columns);
	res->n = settings.sizes[settings.nsizes - 1];
	if (!run)
		return -ENOMEM;
	for (i = 0; i < EVF_MAX; i++)
		run->filters[i].fd = -1;
	xdp_dispatch_init(&run->dispatch);
	err = ev_setup(run, res->n);
	if (err)
		goto cleanup;
	progress("events: measuring (%d rounds)", settings.rounds);
	for (r = 0; r < settings.rounds && !err; r++)
		err = ev_round(run, r);
	if (err)
		goto cleanup;
	ev_rows(run, res);
	ev_figures(run, res);
	ev_notes(run, res);
	res->seconds = now_s() - t0;
	table_note(&res->table, "The part took %.1f s.", res->seconds);
	progress("events: done in %.1fs", res->seconds);
cleanup:
	ev_free(run);
	free(run);
	return err;
}

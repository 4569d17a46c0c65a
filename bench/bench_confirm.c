// SPDX-License-Identifier: GPL-2.0
/*
 * Confirm mode (table 10): how fast bloomblock run answers, and the window it trades
 * for never dropping a false positive. The IPv4 list's filter (the largest of
 * settings.sizes) in confirm mode, its key index in memory, the real entry program
 * (bloomblock_xdp in the bench object) and the real confirmer (user/confirm.c)
 * writing the object's own confirmed and unlisted maps.
 *
 * Rows, each a median over the rounds with their range:
 *  - an answer alone, on this one pinned CPU: a request of a listed address (the
 *    index lookup, the write to confirmed, the pending mark deleted), and of a false
 *    positive (an address the filter matches that no list holds: the lookup, the
 *    write to unlisted); the index lookup alone beside them;
 *  - through the ring: CF_RING new listed sources each run once through the program
 *    (each raises a request), then the ring read and every request answered: the
 *    reading and answering timed, as the daemon does them;
 *  - the window: a daemon thread reading the ring (ring_buffer__poll(), woken by the
 *    kernel) and answering, while this thread sends one listed source's packets, one
 *    test run each, until the first is dropped: the time from its first packet and
 *    the packets passed meanwhile; idle, and under a flood of CF_FLOOD new listed
 *    sources' hits between two of its packets (each one a request more).
 * The packets of a window are test runs back to back (a few us each), not a line-rate
 * flow: the time is the figure; the packets at line rate are that time over the
 * flow's packet interval.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench_parts.h"
#include "bench_seq.h"
#include "bench.skel.h"
#include "confirm.h"
#include "pins.h"
#include "lib/pkt.h"

#define CF_ANSWERS	200000U	/* requests answered a sample, alone */
#define CF_FPS		4096U	/* false positives kept at most, cycled through */
#define CF_FP_TRIES	(1U << 25)	/* non-members tried to find them */
#define CF_RING		3000U	/* requests through the ring a sample (it holds ~3360) */
#define CF_WINDOWS	300	/* listed flows timed a round, idle and flooded */
#define CF_FLOOD	8	/* new listed hits between two packets of a timed flow */
#define CF_WINDOW_MAX_S	2.0	/* a flow not dropped by then: a failed check (a lost
				 * request is asked again after BB_CONFIRM_RETRY_NS) */
#define CF_SADDR_OFF	(14 + 12)

enum cf_row { CF_LISTED, CF_FALSE, CF_LOOKUP, CF_THROUGH, CF_ROWS };

struct cf_run {
	struct bench *skel;
	int prog_fd, map_fd;
	struct bb_filter filter;
	bool have_filter;
	struct bb_list list;
	struct bb_index idx;
	void *idx_bytes;
	struct bb_index_view view;
	void *image;
	size_t image_len;
	struct bb_confirmer c;
	struct bb_confirm_req *reqs;	/* CF_ANSWERS listed, then CF_FPS false positives */
	__u8 frame[128];
	size_t frame_len;
	__u32 next_src;			/* the next listed address not yet sent */
	__u32 n_fps;			/* false positives found (CF_FPS at most) */
	__u32 flood_src;		/* the next flood source */
	double flood_sent, flood_s;	/* the flood's new hits, and the time they took */
	double rate[CF_ROWS][MAX_ROUNDS];
	double win_us[2][MAX_ROUNDS * CF_WINDOWS], win_pkts[2][MAX_ROUNDS * CF_WINDOWS];
	int n_win[2];
	int failed;			/* flows never dropped, answers not as expected */
	char why[160];
	/* the daemon thread */
	pthread_t tid;
	volatile int stop;
	struct ring_buffer *rb;
	unsigned long answered;
};

static int cf_answer(void *ctx, void *data, size_t size)
{
	struct cf_run *run = ctx;

	if (size >= sizeof(struct bb_confirm_req) && bb_confirm_answer(&run->c, data) >= 0)
		run->answered++;
	return 0;
}

/*
 * The daemon's thread, on another CPU than the test runs' (as a daemon runs beside
 * the CPUs that take packets): on the same one, the window would be the scheduler's.
 */
static void *cf_daemon(void *arg)
{
	struct cf_run *run = arg;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double beat = 0;
	cpu_set_t set;

	if (ncpu > 1) {
		CPU_ZERO(&set);
		CPU_SET(settings.cpu ? 0 : 1, &set);
		if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
			bench_warn("confirm: the daemon thread stays on the test runs' CPU\n");
	}

	while (!run->stop) {
		ring_buffer__poll(run->rb, 50);
		if (now_s() - beat > 0.25) {
			bb_confirm_beat(&run->c, false);
			beat = now_s();
		}
	}
	return NULL;
}

/*
 * Empty both caches: every sample's sources start unconfirmed. The keys listed
 * first, then deleted: a walk from the start after each delete scans every bucket
 * emptied before it again.
 */
static void cf_forget(struct cf_run *run)
{
	static struct bb_confirm_key keys[BB_CONFIRM_ENTRIES + 64];
	int fds[2] = { run->c.maps.confirmed_fd, run->c.maps.unlisted_fd }, i;
	size_t n, j;

	for (i = 0; i < 2; i++) {
		for (n = 0; n < BB_CONFIRM_ENTRIES + 64 &&
		     !bpf_map_get_next_key(fds[i], n ? &keys[n - 1] : NULL, &keys[n]); n++)
			;
		for (j = 0; j < n; j++)
			bpf_map_delete_elem(fds[i], &keys[j]);
	}
}

/* A request as the program raises it for an IPv4 address. */
static void cf_request(const struct cf_run *run, struct bb_confirm_req *r, const __u8 *addr)
{
	memset(r, 0, sizeof(*r));
	r->time_ns = bb_mono_ns();
	r->generation = run->filter.hdr.generation;
	r->what = BB_EV_SRC;
	r->family = 4;
	r->ckey.kind = BB_CONFIRM_IP4;
	memcpy(r->ckey.data, addr, 4);
}

/* One packet of listed address src (taken modulo the list) through the program. */
static int cf_send(struct cf_run *run, __u32 src, __u32 *verdict)
{
	__u8 a[16];
	double ns;

	bench_addr(src % run->list.n, 0, a);
	memcpy(run->frame + CF_SADDR_OFF, a, 4);
	return test_run(run->prog_fd, run->frame, (__u32)run->frame_len, 1, &ns, verdict);
}

static int cf_setup(struct cf_run *run, __u32 n)
{
	struct bb_filter_opts opts = { .seed = BENCH_SEED, .flags = BB_HDR_F_DROP |
				       BB_HDR_F_CONFIRM };
	const char *sources[] = { "bench-ipv4" };
	struct bb_index_meta meta = { 0 };
	struct pkt_frame spec = { .net = PKT_IPV4, .saddr = "10.0.0.1", .sport = 40000,
				  .dport = 9 };
	size_t len, page = (size_t)sysconf(_SC_PAGESIZE);
	__u32 j, found;
	int err;

	err = skeleton_load(&run->skel);
	if (err)
		return err;
	run->prog_fd = bpf_program__fd(run->skel->progs.bloomblock_xdp);
	err = bench_list_ip4(&run->list, n);
	err = err ?: bb_filter_build(&run->filter, &run->list, &opts);
	if (err)
		return err;
	run->have_filter = true;
	run->filter.hdr.generation = 1;
	err = bb_filter_index(&run->filter, &run->list, 2, &run->idx);
	meta.seed = run->filter.hdr.seed;
	meta.generation = 1;
	err = err ?: bb_index_bytes(&run->idx, sources, 1, &meta, &run->idx_bytes, &len);
	err = err ?: bb_index_view_bytes(run->idx_bytes, len, &run->view);
	if (err)
		return err;
	run->map_fd = filter_map_image(&run->filter, true, NULL);
	if (run->map_fd < 0)
		return run->map_fd;
	len = bb_filter_elements(run->filter.hdr.nblocks, run->filter.hdr.allow_blocks) *
	      BB_BLOCK_BYTES;
	run->image_len = (len + page - 1) / page * page;
	run->image = mmap(NULL, run->image_len, PROT_READ, MAP_SHARED, run->map_fd, 0);
	if (run->image == MAP_FAILED) {
		run->image = NULL;
		return -errno;
	}
	err = filter_slot_set(bpf_map__fd(run->skel->maps.filters), run->map_fd);
	if (err)
		return err;
	run->c.maps.ring_fd = bpf_map__fd(run->skel->maps.confirm_ring);
	run->c.maps.confirmed_fd = bpf_map__fd(run->skel->maps.confirmed);
	run->c.maps.unlisted_fd = bpf_map__fd(run->skel->maps.unlisted);
	run->c.maps.daemon_fd = bpf_map__fd(run->skel->maps.confirm_daemon);
	run->c.image = run->image;
	run->c.index = &run->view;
	run->rb = ring_buffer__new(run->c.maps.ring_fd, cf_answer, run, NULL);
	if (!run->rb)
		return -errno;
	run->frame_len = pkt_frame(&spec, "bench", 5, run->frame, sizeof(run->frame));
	/* the requests answered alone: listed addresses, then false positives */
	run->reqs = calloc(CF_ANSWERS + CF_FPS, sizeof(*run->reqs));
	if (!run->reqs)
		return -ENOMEM;
	for (j = 0; j < CF_ANSWERS; j++) {
		__u8 a[16];

		bench_addr(j % n, 0, a);
		cf_request(run, &run->reqs[j], a);
	}
	for (j = 0, found = 0; found < CF_FPS && j < CF_FP_TRIES; j++) {
		struct bb_entry e = { .kind = BB_ENTRY_IP4, .plen = 32 };

		bench_addr(j, 1, e.addr);
		if (bb_image_match_entry(run->image, &e))
			cf_request(run, &run->reqs[CF_ANSWERS + found++], e.addr);
	}
	run->n_fps = found;
	return bb_confirm_beat(&run->c, false);
}

/* n requests from reqs answered, with want for each; their rate a second. */
static double cf_answers(struct cf_run *run, const struct bb_confirm_req *reqs, __u32 n,
			 __u32 cycle, int want)
{
	double t0;
	__u32 i;
	int bad = 0;

	cf_forget(run);
	t0 = now_s();
	for (i = 0; i < n; i++)
		bad += bb_confirm_answer(&run->c, &reqs[i % cycle]) != want;
	t0 = now_s() - t0;
	if (bad && !run->failed++)
		snprintf(run->why, sizeof(run->why), "%d answers not %d", bad, want);
	return n / t0;
}

static double cf_lookups(struct cf_run *run, __u32 n)
{
	const struct bb_index_rec *rec;
	double t0 = now_s();
	__u32 i, held = 0;

	for (i = 0; i < n; i++) {
		struct bb_entry e = { .kind = BB_ENTRY_IP4, .plen = 32 };

		memcpy(e.addr, run->reqs[i].ckey.data, 4);
		held += (__u32)bb_image_attribute(run->image, &run->view, &e, &rec);
	}
	t0 = now_s() - t0;
	if (held != n && !run->failed++)
		snprintf(run->why, sizeof(run->why), "%u of %u listed held", held, n);
	return n / t0;
}

/* CF_RING new listed sources through the program, then the ring read and answered. */
static double cf_through(struct cf_run *run)
{
	static __u32 r_through;
	__u32 i, v;
	double t0;

	cf_forget(run);
	run->answered = 0;
	bb_confirm_beat(&run->c, false);	/* the daemon "runs": requests are raised */
	for (i = 0; i < CF_RING; i++)
		if (cf_send(run, (r_through++ % (run->list.n / 2)), &v) || v != XDP_PASS)
			run->failed++;
	t0 = now_s();
	ring_buffer__consume(run->rb);
	t0 = now_s() - t0;
	if (run->answered != CF_RING && !run->failed++)
		snprintf(run->why, sizeof(run->why), "through the ring: %lu of %u answered",
			 run->answered, CF_RING);
	return run->answered / t0;
}

/* One listed flow until its first drop, the daemon thread answering; flood: others' hits. */
/* The next window source: the list's second half, round and round (each round forgets). */
static __u32 cf_next(struct cf_run *run)
{
	__u32 half = run->list.n / 2, j = run->next_src++;

	return half + j % (run->list.n - half);
}

static void cf_window(struct cf_run *run, int flood)
{
	__u32 src = cf_next(run), v = XDP_PASS;
	double t0 = now_s(), t = 0;
	unsigned int passed = 0;
	int i;

	while (t < CF_WINDOW_MAX_S) {
		if (cf_send(run, src, &v))
			break;
		t = now_s() - t0;
		if (v == XDP_DROP)
			break;
		passed++;
		/* the flood's sources: the list's first half, new ones (each round forgets) */
		for (i = 0; flood && i < CF_FLOOD; i++)
			cf_send(run, run->flood_src++ % (run->list.n / 2), &v);
		if (flood)
			run->flood_sent += CF_FLOOD;
		v = XDP_PASS;
	}
	if (v != XDP_DROP) {
		if (!run->failed++)
			snprintf(run->why, sizeof(run->why), "a listed flow not dropped in %.1f s",
				 CF_WINDOW_MAX_S);
		return;
	}
	run->win_us[flood][run->n_win[flood]] = t * 1e6;
	run->win_pkts[flood][run->n_win[flood]++] = passed;
}

static int cf_round(struct cf_run *run, int r)
{
	double t0;
	int i;

	run->rate[CF_LISTED][r] = cf_answers(run, run->reqs, CF_ANSWERS, CF_ANSWERS, 1);
	if (run->n_fps)
		run->rate[CF_FALSE][r] = cf_answers(run, run->reqs + CF_ANSWERS, CF_ANSWERS,
						    run->n_fps, 0);
	run->rate[CF_LOOKUP][r] = cf_lookups(run, CF_ANSWERS);
	run->rate[CF_THROUGH][r] = cf_through(run);
	/* the window: the daemon in its thread from here, every source new */
	cf_forget(run);
	run->next_src = run->flood_src = 0;
	run->stop = 0;
	if (pthread_create(&run->tid, NULL, cf_daemon, run))
		return -errno;
	for (i = 0; i < CF_WINDOWS; i++)
		cf_window(run, 0);
	t0 = now_s();
	for (i = 0; i < CF_WINDOWS; i++)
		cf_window(run, 1);
	run->flood_s += now_s() - t0;
	run->stop = 1;
	pthread_join(run->tid, NULL);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double quantile(double *v, int n, double q)
{
	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[(int)(q * (n - 1) + 0.5)];
}

static void cf_free(struct cf_run *run)
{
	ring_buffer__free(run->rb);
	if (run->image)
		munmap(run->image, run->image_len);
	if (run->map_fd > 0)
		close(run->map_fd);
	if (run->have_filter)
		bb_filter_free(&run->filter);
	bb_index_free(&run->idx);
	free(run->idx_bytes);
	bb_list_free(&run->list);
	free(run->reqs);
	if (run->skel)
		bench__destroy(run->skel);
}

int confirm_run(struct confirm_results *res)
{
	static const char *const columns[] = { "row", "n", "figure", "rounds' range", "unit",
					       NULL };
	static const char *const names[CF_ROWS] = {
		"answer, a listed address (lookup, write, mark deleted)",
		"answer, a false positive (lookup, write)",
		"the index lookup alone (bb_image_attribute), listed",
		"through the ring: raised by the program, read, answered",
	};
	struct cf_run *run = calloc(1, sizeof(*run));
	char cells[5][BT_CELL], nn[16];
	const char *row[6];
	double t0 = now_s();
	struct st3 s;
	int err, r, i, k;

	table_init(&res->table, "confirm", "10. Confirm mode: the daemon's answers a second "
		   "(one core), and the window a listed flow passes before its first drop", 2,
		   columns);
	res->n = settings.sizes[settings.nsizes - 1];
	pow10_name(res->n, nn, sizeof(nn));
	if (!run)
		return -ENOMEM;
	run->map_fd = -1;
	progress("confirm: the %s-address filter and its index", nn);
	err = cf_setup(run, res->n);
	if (err) {
		bench_warn("confirm: setup: %s\n", strerror(-err));
		goto cleanup;
	}
	progress("confirm: measuring (%d rounds)", settings.rounds);
	for (r = 0; r < settings.rounds && !err; r++)
		err = cf_round(run, r);
	if (err)
		goto cleanup;
	for (i = 0; i < CF_ROWS; i++) {
		st3_of(&s, run->rate[i], settings.rounds);
		row[0] = names[i];
		row[1] = nn;
		row[2] = fmtf(cells[0], BT_CELL, "%.0f", s.med);
		row[3] = fmtf(cells[1], BT_CELL, "%.0f-%.0f", s.min, s.max);
		row[4] = i == CF_LOOKUP ? "lookups/s" : "answers/s";
		table_add(&res->table, row);
		res->rate[i] = s.med;
		res->rate_min[i] = s.min;
	}
	for (k = 0; k < 2; k++) {
		int n = run->n_win[k];
		const char *what = k ? "window under a flood (8 new listed hits between two "
				       "packets)" : "window, idle: a listed flow's first packet to "
				       "its first drop";

		res->win_us[k] = quantile(run->win_us[k], n, 0.5);
		res->win_us_p99[k] = quantile(run->win_us[k], n, 0.99);
		res->win_us_max[k] = quantile(run->win_us[k], n, 1.0);
		res->win_pkts[k] = quantile(run->win_pkts[k], n, 0.5);
		res->win_pkts_max[k] = quantile(run->win_pkts[k], n, 1.0);
		row[0] = what;
		row[1] = nn;
		row[2] = fmtf(cells[0], BT_CELL, "%.0f", res->win_us[k]);
		row[3] = fmtf(cells[1], BT_CELL, "p99 %.0f, max %.0f", res->win_us_p99[k],
			      res->win_us_max[k]);
		row[4] = "us";
		table_add(&res->table, row);
		row[0] = k ? "... its packets passed meanwhile, flooded" :
			     "... its packets passed meanwhile (test runs back to back)";
		row[2] = fmtf(cells[0], BT_CELL, "%.0f", res->win_pkts[k]);
		row[3] = fmtf(cells[1], BT_CELL, "max %.0f", res->win_pkts_max[k]);
		row[4] = "packets";
		table_add(&res->table, row);
	}
	res->failed = run->failed;
	res->flood_rate = run->flood_s > 0 ? run->flood_sent / run->flood_s : 0;
	table_note(&res->table, "The flood: %.0f new listed hits a second, each a request, "
		   "against the daemon's %.0f answers a second through the ring: past that, "
		   "the ring fills, requests are lost (counted: confirm_lost) and asked again "
		   "%llu ms later, which is what the flooded window's tail is.", res->flood_rate,
		   res->rate[CF_THROUGH], (unsigned long long)(BB_CONFIRM_RETRY_NS / 1000000));
	table_note(&res->table, "%d listed flows timed a round, idle and flooded; a window's "
		   "packets are test runs back to back, so its time is the figure: a flow at 1 "
		   "Mpps passes about its microseconds in packets. Requests alone: %u a sample, "
		   "listed addresses, and false positives: the %u found among %u non-members "
		   "(addresses the filter matches that no list holds), cycled through. Checks: "
		   "%s.", CF_WINDOWS, CF_ANSWERS, run->n_fps, CF_FP_TRIES,
		   run->failed ? run->why : "every answer as expected, every listed flow dropped");
	res->seconds = now_s() - t0;
	table_note(&res->table, "The part took %.1f s.", res->seconds);
	progress("confirm: done in %.1fs", res->seconds);
cleanup:
	cf_free(run);
	free(run);
	return err;
}

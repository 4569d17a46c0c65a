// SPDX-License-Identifier: GPL-2.0
/*
 * The whole program (tables 12a and 12b): what a packet pays for the real entry
 * program, bloomblock_xdp, beside programs of the same shape around other
 * structures. Every row runs a wrapper (bpf/bench.bpf.c) that writes the next
 * address of the per-CPU counter into the test packet's source and tail-calls one
 * program: an empty one, the limit (one random 64-byte read of a filter-sized array),
 * a minimal blocked Bloom program holding bloomblock's own bits, the kernel's Bloom
 * filter map, an exact hash map, and bloomblock_xdp on its real filter. Cold rows
 * take a new address every run, hot rows the same one (the counter's span is 1).
 * Per list size (the last two: 10^6 and 10^7), each family (IPv4, IPv6) and each
 * outcome, every program once a round, in an order that turns by one each round;
 * the ratios are taken round by round, then their median.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bb_hash.h"
#include "bench_parts.h"
#include "bench_seq.h"
#include "bench.skel.h"	/* after bench_seq.h: its .bss holds struct bench_cfg */
#include "pins.h"

#define WHOLE_MISS_SPAN		BENCH_M31	/* non-members: the counter never wraps */
#define WHOLE_BLOOM_K		7		/* the kernel Bloom filter's hash functions */
#define WHOLE_WARMUP_DIV	10		/* a sample's untimed run first: repeat / 10 */

_Static_assert(WHOLE_PROGS == BENCH_W_MAX, "a row per slot of bench_whole_progs");

static const char *const prog_names[WHOLE_PROGS] = {
	[BENCH_W_EMPTY] = "empty XDP",
	[BENCH_W_LIMIT] = "the limit: one random 64-byte read of a filter-sized array",
	[BENCH_W_MIN] = "minimal blocked Bloom program (parse, one 64-byte block, k=8)",
	[BENCH_W_BLOOM] = "kernel BLOOM_FILTER map, k=7",
	[BENCH_W_HASH] = "exact HASH map",
	[BENCH_W_BB] = "bloomblock_xdp, the whole program",
};

/* Short names for table 12b's rows. */
static const char *const prog_short[WHOLE_PROGS] = {
	[BENCH_W_EMPTY] = "empty XDP",
	[BENCH_W_LIMIT] = "the limit",
	[BENCH_W_MIN] = "minimal blocked Bloom",
	[BENCH_W_BLOOM] = "BLOOM_FILTER map",
	[BENCH_W_HASH] = "HASH map",
	[BENCH_W_BB] = "bloomblock_xdp",
};

const char *const whole_outcome_names[WO_MAX] = {
	[WO_HOT_HIT] = "hot hit", [WO_HOT_MISS] = "hot miss",
	[WO_COLD_MISS] = "cold miss", [WO_COLD_HIT] = "cold hit",
};

static const char *const family_names[WHOLE_FAMILIES] = { "IPv4", "IPv6" };

/* The programs with a verdict: a listed source dropped, any other passed. */
static bool has_verdict(int prog)
{
	return prog != BENCH_W_EMPTY && prog != BENCH_W_LIMIT;
}

static bool is_miss(int o)
{
	return o == WO_HOT_MISS || o == WO_COLD_MISS;
}

static bool is_cold(int o)
{
	return o == WO_COLD_MISS || o == WO_COLD_HIT;
}

/* Everything of one list size. */
struct whole_size {
	__u32 n;
	__u32 repeat;
	struct bench *skel;
	struct bench_filter filters[WHOLE_FAMILIES];	/* the IPv4 list's, the IPv6 list's */
	int live;			/* the family whose filter is in the slot; -1: none */
	int wrapper_fd[WHOLE_FAMILIES][WHOLE_PROGS];
	int filters_fd, state_fd;
	int ncpus;
	struct bench_cpu *percpu;
	struct packet pkt[WHOLE_FAMILIES];
	struct xdp_dispatch dispatch;
	double load_s, fill_s;
	double ns[WHOLE_FAMILIES][WHOLE_PROGS][WO_MAX][MAX_ROUNDS];
	/* the verdict checks: single cold runs of members and non-members, drops */
	__u64 check_drops[WHOLE_FAMILIES][WHOLE_PROGS][2];
	__u32 check_runs;
	int hot_wrong[WHOLE_FAMILIES][WHOLE_PROGS][2];	/* samples whose verdict was wrong */
	bool last_wrong;		/* sample(): its last run's verdict was not the outcome's */
	/* the IPv4 programs after the verifier: instructions, JIT bytes, instructions
	 * the verifier walked (of its 1M budget) */
	__u32 prog_insns[WHOLE_PROGS], prog_jited[WHOLE_PROGS], prog_verified[WHOLE_PROGS];
};

/* ---- setting one size up ---- */

/* Every CPU's counter starts at next. */
static int state_start(struct whole_size *s, __u64 next)
{
	__u32 zero = 0;
	int cpu;

	if (bpf_map_lookup_elem(s->state_fd, &zero, s->percpu))
		return -errno;
	for (cpu = 0; cpu < s->ncpus; cpu++)
		s->percpu[cpu].next = next;
	return bpf_map_update_elem(s->state_fd, &zero, s->percpu, BPF_ANY) ? -errno : 0;
}

/* The IPv4 and the IPv6 list's filters, as the address rows build them (drop mode). */
static int filters_build(struct whole_size *s)
{
	struct bb_list list;
	int err, f;

	for (f = 0; f < WHOLE_FAMILIES; f++) {
		const struct bb_header *h = &s->filters[f].hdr;

		err = f ? bench_list_ip6(&list, s->n) : bench_list_ip4(&list, s->n);
		err = err ?: filter_make(&s->filters[f], &list, BB_HDR_F_DROP);
		bb_list_free(&list);
		if (err)
			return err;
		/* the minimal program probes the full length at k = 8: the same verdicts */
		if (h->k != BB_WORDS || (f ? h->n_v6_plens != 1 || h->v6_plens[0] != 128 :
					  h->n_v4_plens != 1 || h->v4_plens[0] != 32)) {
			bench_warn("whole: the %s filter is not one probe at the full length with "
				   "k=%u\n", family_names[f], BB_WORDS);
			return -EINVAL;
		}
	}
	return 0;
}

/* The part's wrappers [family][program], and the programs they tail-call. */
#define WHOLE_PROG_TABLE(k, w, t)						\
	struct bpf_program *w[WHOLE_FAMILIES][WHOLE_PROGS] = {			\
		{ k->progs.bench_w_empty4, k->progs.bench_w_limit4, k->progs.bench_w_min4, \
		  k->progs.bench_w_bloom4, k->progs.bench_w_hash4, k->progs.bench_w_bb4 }, \
		{ k->progs.bench_w_empty6, k->progs.bench_w_limit6, k->progs.bench_w_min6, \
		  k->progs.bench_w_bloom6, k->progs.bench_w_hash6, k->progs.bench_w_bb6 }, \
	};									\
	struct bpf_program *t[WHOLE_FAMILIES][WHOLE_PROGS] = {			\
		{ k->progs.bench_empty, k->progs.bench_whole_limit4,			\
		  k->progs.bench_whole_min4, k->progs.bench_whole_bloom4,		\
		  k->progs.bench_whole_hash4, k->progs.bloomblock_xdp },		\
		{ k->progs.bench_empty, k->progs.bench_whole_limit6,			\
		  k->progs.bench_whole_min6, k->progs.bench_whole_bloom6,		\
		  k->progs.bench_whole_hash6, k->progs.bloomblock_xdp },		\
	}

/* The part's programs: sections "?xdp", which no other part loads; table 12c's too. */
static int autoload_mine(struct bench *k)
{
	WHOLE_PROG_TABLE(k, wrappers, targets);
	struct bpf_program *const split[] = {
		k->progs.split_inner, k->progs.split_header, k->progs.split_parse,
		k->progs.split_counters, k->progs.split_match, k->progs.split_counters_only,
		k->progs.split_addr_only, k->progs.split_addr_call, k->progs.split_per_filter,
	};
	int err = 0, f, p;
	size_t i;

	for (f = 0; f < WHOLE_FAMILIES; f++)
		for (p = 0; p < WHOLE_PROGS && !err; p++) {
			err = bpf_program__set_autoload(wrappers[f][p], true);
			err = err ?: bpf_program__set_autoload(targets[f][p], true);
		}
	for (i = 0; i < ARRAY_SIZE(split) && !err; i++)
		err = bpf_program__set_autoload(split[i], true);
	return err;
}

/* The skeleton with the part's programs, its maps sized for n and the filters. */
static int skeleton_open_load(struct whole_size *s)
{
	struct bench *k = bench__open();
	double t0 = now_s();
	int err, f;

	if (!k)
		return -errno;
	s->skel = k;
	err = autoload_mine(k);
	err = err ?: bpf_map__set_max_entries(k->maps.bench_hash, s->n);
	err = err ?: bpf_map__set_max_entries(k->maps.bench_hash6, s->n);
	err = err ?: bpf_map__set_max_entries(k->maps.bench_bloom, s->n);
	err = err ?: bpf_map__set_max_entries(k->maps.bench_bloom6, s->n);
	err = err ?: bpf_map__set_map_extra(k->maps.bench_bloom, WHOLE_BLOOM_K);
	err = err ?: bpf_map__set_map_extra(k->maps.bench_bloom6, WHOLE_BLOOM_K);
	err = err ?: bpf_map__set_max_entries(k->maps.bench_min4, s->filters[0].hdr.nblocks);
	err = err ?: bpf_map__set_max_entries(k->maps.bench_min6, s->filters[1].hdr.nblocks);
	if (err)
		return err;
	for (f = 0; f < WHOLE_FAMILIES; f++) {
		k->rodata->bench_min_nblocks[f] = s->filters[f].hdr.nblocks;
		k->rodata->bench_min_seed[f] = s->filters[f].hdr.seed;
	}
	err = bench__load(k);
	err = err ?: bb_stage_tables_fill(k->obj, BB_FAMILY_ALL);
	if (err)
		return err;
	s->load_s = now_s() - t0;
	s->filters_fd = bpf_map__fd(k->maps.filters);
	s->state_fd = bpf_map__fd(k->maps.bench_state);
	return 0;
}

/* The filter's bit blocks into the minimal program's array of the same family. */
static int min_copy(const struct bench_filter *f, int min_fd)
{
	size_t page = sysconf(_SC_PAGESIZE), bits = (size_t)f->hdr.nblocks * BB_BLOCK_BYTES;
	size_t flen = bb_filter_elements(f->hdr.nblocks, f->hdr.allow_blocks) * BB_BLOCK_BYTES;
	size_t mlen = (bits + page - 1) / page * page;
	void *src, *dst;

	flen = (flen + page - 1) / page * page;
	src = mmap(NULL, flen, PROT_READ, MAP_SHARED, f->fd, 0);
	if (src == MAP_FAILED)
		return -errno;
	dst = mmap(NULL, mlen, PROT_READ | PROT_WRITE, MAP_SHARED, min_fd, 0);
	if (dst == MAP_FAILED) {
		int err = -errno;

		munmap(src, flen);
		return err;
	}
	memcpy(dst, (char *)src + (size_t)BB_FIRST_BLOCK * BB_BLOCK_BYTES, bits);
	munmap(dst, mlen);
	munmap(src, flen);
	return 0;
}

/*
 * What the verifier made of a program: instructions after it, bytes of JIT image,
 * instructions it walked to accept it (verified_insns, Linux 5.16; 0 before).
 */
static void prog_sizes(int fd, __u32 *insns, __u32 *jited, __u32 *verified)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	*insns = *jited = *verified = 0;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	*insns = info.xlated_prog_len / sizeof(struct bpf_insn);
	*jited = info.jited_prog_len;
	*verified = info.verified_insns;
}

/* The tail-call slots, the wrappers, the maps filled, the packets, the dispatcher. */
static int size_setup(struct whole_size *s)
{
	struct bench *k = s->skel;
	WHOLE_PROG_TABLE(k, wrappers, targets);
	const int fills[] = { BENCH_FILL_HASH, BENCH_FILL_HASH6, BENCH_FILL_BLOOM,
			      BENCH_FILL_BLOOM6 };
	int progs_fd = bpf_map__fd(k->maps.bench_whole_progs), err = 0, f, p, fd;
	double t0 = now_s();
	__u32 slot;
	size_t i;

	for (f = 0; f < WHOLE_FAMILIES; f++)
		for (p = 0; p < WHOLE_PROGS && !err; p++) {
			s->wrapper_fd[f][p] = bpf_program__fd(wrappers[f][p]);
			fd = bpf_program__fd(targets[f][p]);
			slot = BENCH_W_SLOT(p, f);
			if (bpf_map_update_elem(progs_fd, &slot, &fd, BPF_ANY))
				err = -errno;
			if (!f)
				prog_sizes(fd, &s->prog_insns[p], &s->prog_jited[p],
					   &s->prog_verified[p]);
		}
	for (i = 0; i < ARRAY_SIZE(fills) && !err; i++)
		err = comparator_fill(k, fills[i], s->n);
	err = err ?: min_copy(&s->filters[0], bpf_map__fd(k->maps.bench_min4));
	err = err ?: min_copy(&s->filters[1], bpf_map__fd(k->maps.bench_min6));
	if (err)
		return err;
	s->fill_s = now_s() - t0;
	for (f = 0; f < WHOLE_FAMILIES; f++) {
		__u8 a[16];

		bench_addr(0, 0, a);
		udp_to_discard(&s->pkt[f], a, f == 1);
	}
	xdp_dispatch_fill(&s->dispatch, &s->wrapper_fd[0][0], WHOLE_FAMILIES * WHOLE_PROGS,
			  "whole", "bbw");
	return 0;
}

static int filter_live(struct whole_size *s, int f)
{
	int err;

	if (s->live == f)
		return 0;
	err = filter_slot_set(s->filters_fd, s->filters[f].fd);
	if (!err)
		s->live = f;
	return err;
}

/* The counter's span and start for outcome o of round r (-1: the checks' start, 0). */
static void outcome_span(const struct whole_size *s, int o, int r, __u32 *span, __u64 *start)
{
	*span = !is_cold(o) ? 1 : is_miss(o) ? WHOLE_MISS_SPAN : s->n;
	*start = r < 0 || !is_cold(o) ? 0 : ((__u64)r * s->repeat) % *span;
}

/*
 * The verdicts, before any sample: single cold runs of members and of non-members
 * through each wrapper with a verdict (and with a span of 1, the hot packets').
 */
static int verdicts_check(struct whole_size *s)
{
	int f, p, o, err;
	__u32 i, ret, span;
	__u64 start;
	double ns;

	for (f = 0; f < WHOLE_FAMILIES; f++) {
		err = filter_live(s, f);
		if (err)
			return err;
		for (p = 0; p < WHOLE_PROGS; p++) {
			if (!has_verdict(p))
				continue;
			for (o = 0; o < 2; o++) {
				outcome_span(s, o ? WO_COLD_MISS : WO_COLD_HIT, -1, &span, &start);
				s->skel->bss->bench_cfg.span = span;
				s->skel->bss->bench_cfg.miss = o;
				err = state_start(s, start);
				for (i = 0; i < s->check_runs && !err; i++) {
					err = test_run(s->wrapper_fd[f][p], s->pkt[f].data,
						       s->pkt[f].len, 1, &ns, &ret);
					s->check_drops[f][p][o] += !err && ret == XDP_DROP;
				}
				if (err)
					return err;
			}
		}
	}
	return 0;
}

/* One sample: an untimed run from elsewhere in the span first, then the timed one. */
static int sample(struct whole_size *s, int f, int p, int o, int r)
{
	__u32 span, ret, warm = s->repeat / WHOLE_WARMUP_DIV;
	__u64 start;
	double ns;
	int err;

	outcome_span(s, o, r, &span, &start);
	s->skel->bss->bench_cfg.span = span;
	s->skel->bss->bench_cfg.miss = is_miss(o);
	err = filter_live(s, f);
	err = err ?: state_start(s, (start + span / 2) % span);
	err = err ?: test_run(s->wrapper_fd[f][p], s->pkt[f].data, s->pkt[f].len, warm ?: 1, &ns,
			      &ret);
	err = err ?: state_start(s, start);
	err = err ?: test_run(s->wrapper_fd[f][p], s->pkt[f].data, s->pkt[f].len, s->repeat, &ns,
			      &ret);
	if (err)
		return err;
	s->ns[f][p][o][r] = ns;
	s->last_wrong = ret != (is_miss(o) ? XDP_PASS : XDP_DROP);
	if (has_verdict(p) && !is_cold(o) && s->last_wrong)
		s->hot_wrong[f][p][is_miss(o)]++;
	return 0;
}

/* Round r: each family, each outcome, every program, the order turned by r. */
static int round_run(struct whole_size *s, int r)
{
	int f, o, i, p, err;

	for (f = 0; f < WHOLE_FAMILIES; f++)
		for (o = 0; o < WO_MAX; o++)
			for (i = 0; i < WHOLE_PROGS; i++) {
				p = (i + r) % WHOLE_PROGS;
				err = sample(s, f, p, o, r);
				if (err) {
					bench_warn("whole: %s %s %s: %s\n", prog_names[p],
						   family_names[f], whole_outcome_names[o],
						   strerror(-err));
					return err;
				}
			}
	return 0;
}

/* ---- the tables ---- */

static void x_of(struct whole_x *x, const double *a, const double *b, int n)
{
	double v[MAX_ROUNDS];
	struct st3 st;
	int i;

	for (i = 0; i < n; i++)
		v[i] = b[i] > 0 ? a[i] / b[i] : NAN;
	st3_of(&st, v, n);
	*x = (struct whole_x){
		.x = st.med, .x_min = st.min, .x_max = st.max,
		.ns = median_of(a, n), .ref_ns = median_of(b, n),
	};
}

/* A check cell: cold members and non-members dropped, the hot verdicts. */
static const char *check_cell(const struct whole_size *s, int f, int p, char *buf, size_t size)
{
	const __u64 *d = s->check_drops[f][p];
	bool hot_ok = !s->hot_wrong[f][p][0] && !s->hot_wrong[f][p][1];

	if (!has_verdict(p))
		return "-";
	snprintf(buf, size, "%.1f%% / %.3f%%; hot %s", 100.0 * d[0] / s->check_runs,
		 100.0 * d[1] / s->check_runs, hot_ok ? "ok" : "WRONG");
	return buf;
}

static bool check_failed(const struct whole_size *s, int f, int p)
{
	if (!has_verdict(p))
		return false;
	if (s->hot_wrong[f][p][0] || s->hot_wrong[f][p][1] || s->check_drops[f][p][0] != s->check_runs)
		return true;
	/* the minimal program holds bloomblock's bits: the same verdicts, run for run */
	if (p == BENCH_W_MIN && s->check_drops[f][p][1] != s->check_drops[f][BENCH_W_BB][1])
		return true;
	return p == BENCH_W_HASH && s->check_drops[f][p][1];
}

static void ns_rows(const struct whole_size *s, struct whole_results *res)
{
	int f, p, o, n = settings.rounds;
	char nn[16];

	pow10_name(s->n, nn, sizeof(nn));
	for (f = 0; f < WHOLE_FAMILIES; f++)
		for (p = 0; p < WHOLE_PROGS; p++) {
			char c[WO_MAX][BT_CELL], check[BT_CELL];
			const char *cells[BT_COLS];
			struct st3 st;
			int k = 0;

			cells[k++] = prog_names[p];
			cells[k++] = nn;
			cells[k++] = family_names[f];
			for (o = 0; o < WO_MAX; o++) {
				st3_of(&st, s->ns[f][p][o], n);
				cells[k++] = st3_fmt(c[o], BT_CELL, &st, 0);
			}
			cells[k++] = check_cell(s, f, p, check, sizeof(check));
			table_add(&res->ns_table, cells);
			res->checks_failed += check_failed(s, f, p);
		}
}

static const char *x_cell(const struct whole_x *x, char *buf, size_t size)
{
	if (isnan(x->x))
		return "-";
	snprintf(buf, size, "%.2fx (%.2f-%.2f)", x->x, x->x_min, x->x_max);
	return buf;
}

static void x_rows(const struct whole_size *s, struct whole_results *res, bool largest)
{
	int f, p, o, n = settings.rounds;
	char nn[16], what[BT_CELL];

	pow10_name(s->n, nn, sizeof(nn));
	for (f = 0; f < WHOLE_FAMILIES; f++)
		for (p = 0; p < WHOLE_PROGS; p++) {
			char c[WO_MAX][BT_CELL];
			const char *cells[BT_COLS];
			int k = 0;

			if (p == BENCH_W_BB)
				continue;
			cells[k++] = fmtf(what, sizeof(what), "bloomblock_xdp over %s",
					  prog_short[p]);
			cells[k++] = nn;
			cells[k++] = family_names[f];
			for (o = 0; o < WO_MAX; o++) {
				struct whole_x x;

				x_of(&x, s->ns[f][BENCH_W_BB][o], s->ns[f][p][o], n);
				if (largest)
					res->bb[f][p][o] = x;
				cells[k++] = x_cell(&x, c[o], BT_CELL);
			}
			table_add(&res->x_table, cells);
		}
	for (p = BENCH_W_MIN; p <= BENCH_W_BB; p += BENCH_W_BB - BENCH_W_MIN) {
		char c[WO_MAX][BT_CELL];
		const char *cells[BT_COLS];
		int k = 0;

		cells[k++] = fmtf(what, sizeof(what), "%s, IPv6 over IPv4", prog_short[p]);
		cells[k++] = nn;
		cells[k++] = "-";
		for (o = 0; o < WO_MAX; o++) {
			struct whole_x x;

			x_of(&x, s->ns[1][p][o], s->ns[0][p][o], n);
			if (largest && p == BENCH_W_BB)
				res->v6_x_v4[o] = x;
			else if (largest)
				res->min_v6_x_v4[o] = x;
			cells[k++] = x_cell(&x, c[o], BT_CELL);
		}
		table_add(&res->x_table, cells);
	}
}

/* ---- table 12c: where the time goes, IPv4, at each size ---- */

enum split_row {
	SR_MIN, SR_INNER, SR_HEADER, SR_PARSE, SR_COUNTERS, SR_MATCH, SR_COUNTERS_ONLY,
	SR_ADDR_ONLY, SR_ADDR_CALL, SR_BB, SR_PER_FILTER, SR_ROWS,
};

static const char *const split_names[SR_ROWS] = {
	[SR_MIN] = "the minimal blocked Bloom program (the reference)",
	[SR_INNER] = "+ the filter in an inner map: the outer lookup, a call for the block",
	[SR_HEADER] = "+ its header looked up (a second call), checked, the geometry from it",
	[SR_PARSE] = "+ the general parse (bb_parse_packet())",
	[SR_COUNTERS] = "+ the counters: per-CPU stats; packets, ipv4, lookups, passed",
	[SR_MATCH] = "+ bb_match_ip4()'s generality: short-table flag, probe-length loop",
	[SR_COUNTERS_ONLY] = "the minimal program + the counters alone",
	[SR_ADDR_ONLY] = "addr_only(), bloomblock's address path, as the whole program",
	[SR_ADDR_CALL] = "bb_addr_xdp() called from a small entry that can tail-call",
	[SR_BB] = "bloomblock_xdp, the real entry program",
	[SR_PER_FILTER] = "a program per filter: geometry in .rodata, its own map, counters",
};

/* A split row's program for bloomblock_xdp's IPv4 slot; -1: the minimal program's own. */
static int split_prog_fd(struct bench *k, int row)
{
	struct bpf_program *const progs[SR_ROWS] = {
		[SR_INNER] = k->progs.split_inner, [SR_HEADER] = k->progs.split_header,
		[SR_PARSE] = k->progs.split_parse, [SR_COUNTERS] = k->progs.split_counters,
		[SR_MATCH] = k->progs.split_match,
		[SR_COUNTERS_ONLY] = k->progs.split_counters_only,
		[SR_ADDR_ONLY] = k->progs.split_addr_only,
		[SR_ADDR_CALL] = k->progs.split_addr_call, [SR_BB] = k->progs.bloomblock_xdp,
		[SR_PER_FILTER] = k->progs.split_per_filter,
	};

	return progs[row] ? bpf_program__fd(progs[row]) : -1;
}

/*
 * Every split row once per outcome a round (the order turned each round), IPv4:
 * the minimal program through its own wrapper, every other row tail-called from
 * bloomblock_xdp's IPv4 slot, which holds bloomblock_xdp again at the end.
 */
static int split_run(struct whole_size *s, struct whole_results *res)
{
	static double ns[SR_ROWS][WO_MAX][MAX_ROUNDS];
	int progs_fd = bpf_map__fd(s->skel->maps.bench_whole_progs), n = settings.rounds;
	int r, o, i, row, fd, err = 0, wrong[SR_ROWS] = { 0 };
	__u32 slot = BENCH_W_SLOT(BENCH_W_BB, 0);
	char nn[16];

	progress("whole: n=%u: where the time goes (%d rows, %d rounds)", s->n, SR_ROWS, n);
	err = filter_live(s, 0);
	for (r = 0; r < n && !err; r++)
		for (o = 0; o < WO_MAX && !err; o++)
			for (i = 0; i < SR_ROWS && !err; i++) {
				row = (i + r) % SR_ROWS;
				fd = split_prog_fd(s->skel, row);
				if (fd >= 0 && bpf_map_update_elem(progs_fd, &slot, &fd, BPF_ANY))
					err = -errno;
				err = err ?: sample(s, 0, fd >= 0 ? BENCH_W_BB : BENCH_W_MIN, o, r);
				ns[row][o][r] = s->ns[0][fd >= 0 ? BENCH_W_BB : BENCH_W_MIN][o][r];
				wrong[row] += !is_cold(o) && s->last_wrong;
			}
	fd = split_prog_fd(s->skel, SR_BB);
	if (bpf_map_update_elem(progs_fd, &slot, &fd, BPF_ANY) && !err)
		err = -errno;
	if (err)
		return err;
	pow10_name(s->n, nn, sizeof(nn));
	for (row = 0; row < SR_ROWS; row++) {
		char c[WO_MAX][BT_CELL];
		const char *cells[BT_COLS];
		int k = 0;

		cells[k++] = split_names[row];
		cells[k++] = nn;
		for (o = 0; o < WO_MAX; o++) {
			struct whole_x x;

			x_of(&x, ns[row][o], ns[SR_MIN][o], n);
			cells[k++] = row == SR_MIN ? fmtf(c[o], BT_CELL, "%.0f", x.ns) :
				     fmtf(c[o], BT_CELL, "%.0f: %.2fx", x.ns, x.x);
		}
		cells[k++] = wrong[row] ? "WRONG" : "ok";
		table_add(&res->split_table, cells);
		res->checks_failed += wrong[row] != 0;
	}
	table_note(&res->split_table, "IPv4 at %s, after 12a's rounds at that size: %d rounds of "
		   "samples of %u runs as in 12a (the wrapper, a new source per run when cold), "
		   "every row in every round, its order turned each round: medians in ns, and "
		   "over the minimal program's sample of the same round, then the median. The "
		   "'+' rows add bloomblock's steps to the "
		   "minimal program one at a time (bpf/bench.bpf.c, split_steps()); addr_only() "
		   "is bloomblock's own address path (bpf/bloomblock.bpf.c), alone, then as "
		   "bloomblock_xdp calls it; the last row is a design bloomblock does not use "
		   "(docs/BENCHMARKS.md). Check: the hot samples' verdicts.", nn, n, s->repeat);
	return 0;
}

static void size_notes(const struct whole_size *s, struct whole_results *res)
{
	const struct bench_filter *f4 = &s->filters[0], *f6 = &s->filters[1];
	char nn[16];

	pow10_name(s->n, nn, sizeof(nn));
	table_note(&res->ns_table, "At %s: the IPv4 filter %u blocks (%.1f MiB), the IPv6 filter "
		   "%u blocks, k=%u; the minimal program's arrays hold the same blocks. Skeleton "
		   "load %.2fs; the maps filled and the bits copied in %.2fs. After the verifier "
		   "(instructions / JIT bytes): bloomblock_xdp %u / %u (the verifier walked %u "
		   "instructions of its 1M), the minimal program %u / %u, the HASH program %u / "
		   "%u.", nn, f4->hdr.nblocks,
		   f4->hdr.nblocks * (double)BB_BLOCK_BYTES / MIB, f6->hdr.nblocks, f4->hdr.k,
		   s->load_s, s->fill_s, s->prog_insns[BENCH_W_BB], s->prog_jited[BENCH_W_BB],
		   s->prog_verified[BENCH_W_BB], s->prog_insns[BENCH_W_MIN], s->prog_jited[BENCH_W_MIN],
		   s->prog_insns[BENCH_W_HASH], s->prog_jited[BENCH_W_HASH]);
	if (!s->dispatch.filled)
		table_note(&res->ns_table, "At %s NOT FILLED: the XDP dispatcher did not hold the "
			   "wrappers (no private network namespace or veths): each test run also "
			   "slept through two dispatcher updates.", nn);
}

static int size_run(struct whole_size *s, struct whole_results *res, bool largest)
{
	int err, r;

	progress("whole: n=%u: the IPv4 and IPv6 filters", s->n);
	err = filters_build(s);
	err = err ?: skeleton_open_load(s);
	err = err ?: size_setup(s);
	if (err) {
		bench_warn("whole: n=%u: %s\n", s->n, strerror(-err));
		return err;
	}
	progress("whole: n=%u: checking verdicts (%u runs a row)", s->n, s->check_runs);
	err = verdicts_check(s);
	progress("whole: n=%u: measuring (%d rounds)", s->n, settings.rounds);
	for (r = 0; r < settings.rounds && !err; r++)
		err = round_run(s, r);
	if (err)
		return err;
	ns_rows(s, res);
	x_rows(s, res, largest);
	size_notes(s, res);
	return split_run(s, res);
}

static void size_free(struct whole_size *s)
{
	int f;

	xdp_dispatch_free(&s->dispatch);
	bench__destroy(s->skel);
	s->skel = NULL;
	for (f = 0; f < WHOLE_FAMILIES; f++)
		filter_close(&s->filters[f]);
	free(s->percpu);
	s->percpu = NULL;
}

static void notes(struct whole_results *res, __u32 repeat, __u32 checks)
{
	table_note(&res->ns_table, "Each row runs a wrapper that writes the next address of a "
		   "per-CPU counter into the test packet's source (64-byte frames: Ethernet, "
		   "IPv4 or IPv6, UDP to port 9) and tail-calls the row's program from a "
		   "program array: every row pays the same wrapper and tail call. Cold: a new "
		   "address every run (members: hit; non-members: miss; every row of a round "
		   "the same addresses); hot: the same address every run (member 0, non-member "
		   "0). bloomblock_xdp is the real entry program on its real filter (the IPv4 "
		   "list's or the IPv6 list's, swapped into its slot), drop mode.");
	table_note(&res->ns_table, "The comparators parse Ethernet and the IP header to the "
		   "source and look it up: the limit reads one 64-byte block of an array of the "
		   "filter's size at a place the address picks (one multiply); the minimal "
		   "program hashes the address as bloomblock does and tests one block of an "
		   "array holding the filter's own bits at k=8 (no header, no counters, geometry "
		   "as constants); the kernel's BPF_MAP_TYPE_BLOOM_FILTER at k=%d (map_extra) "
		   "and an exact, preallocated BPF_MAP_TYPE_HASH hold the same members.",
		   WHOLE_BLOOM_K);
	table_note(&res->ns_table, "Samples of %u runs, each after an untimed run of a tenth of "
		   "that from elsewhere in the span; medians of %d rounds (min-max), the order "
		   "of the programs turned by one each round; the wrappers kept in the XDP "
		   "dispatcher (attached to veths of a private namespace). Check: of %u single "
		   "cold runs, members dropped / non-members dropped (false positives; the "
		   "minimal program must drop exactly the ones bloomblock drops), and the hot "
		   "samples' verdicts.", repeat, settings.rounds, checks);
	table_note(&res->x_table, "bloomblock_xdp's sample over the other row's of the same "
		   "round, then the median (the least and greatest of the rounds' ratios). The "
		   "IPv6-over-IPv4 rows pair each IPv6 sample with the IPv4 sample of the same "
		   "program, outcome and round.");
}

int whole_run(struct whole_results *res)
{
	static const char *const ns_cols[] = {
		"program", "n", "family", "hot hit ns", "hot miss ns", "cold miss ns",
		"cold hit ns", "check: cold members / non-members dropped", NULL,
	};
	static const char *const x_cols[] = {
		"ratio", "n", "family", "hot hit", "hot miss", "cold miss", "cold hit", NULL,
	};
	static const char *const split_cols[] = {
		"program", "n", "hot hit ns: x minimal", "hot miss", "cold miss", "cold hit",
		"verdicts", NULL,
	};
	struct whole_size *s = NULL;
	double t0 = now_s();
	int err = 0, i, first = settings.nsizes >= 2 ? settings.nsizes - 2 : 0;

	table_init(&res->ns_table, "whole", "12a. The whole program: ns per packet, through a "
		   "wrapper that rewrites the source and tail-calls it", 3, ns_cols);
	table_init(&res->x_table, "whole_x", "12b. bloomblock_xdp over each program, paired "
		   "round by round (median, rounds' range)", 3, x_cols);
	table_init(&res->split_table, "whole_split", "12c. Where the whole program's time goes: "
		   "from the minimal program to bloomblock_xdp, step by step (IPv4)", 2,
		   split_cols);
	res->n = settings.sizes[settings.nsizes - 1];
	for (i = first; i < settings.nsizes && !err; i++) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		s->n = settings.sizes[i];
		s->repeat = settings.cold_repeat;
		s->check_runs = settings.whole_checks;
		s->live = -1;
		s->filters[0].fd = s->filters[1].fd = -1;
		xdp_dispatch_init(&s->dispatch);
		s->ncpus = libbpf_num_possible_cpus();
		s->percpu = calloc(s->ncpus > 0 ? s->ncpus : 1, sizeof(*s->percpu));
		err = s->percpu ? size_run(s, res, i == settings.nsizes - 1) : -ENOMEM;
		size_free(s);
		free(s);
		settle_memory();
	}
	notes(res, settings.cold_repeat, settings.whole_checks);
	res->seconds = now_s() - t0;
	table_note(&res->x_table, "The part took %.1f s.", res->seconds);
	progress("whole: done in %.1fs", res->seconds);
	return err;
}

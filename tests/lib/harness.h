/* SPDX-License-Identifier: GPL-2.0 */
/* The BPF_PROG_TEST_RUN tests' shared parts: skeleton, live filter, counters, tables, subtests. */
#ifndef BB_TEST_HARNESS_H
#define BB_TEST_HARNESS_H

/*
 * Header-only, as tap.h is: tap.h keeps its counters in the file that includes
 * it, so whatever reports a check must be compiled into that file too. One test
 * binary is one file; each function here is defined once, for all of them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bb_hash.h"
#include "bloomblock.skel.h"
#include "filter.h"
#include "list.h"
#include "pins.h"
#include "rng.h"
#include "tap.h"

/* Every filter's seed, and the random data's unless BB_TEST_SEED says another. */
#define HARNESS_SEED		0x626c6f6f6d626c6bULL
#define HARNESS_N_STATS		(sizeof(struct bb_stats) / sizeof(__u64))
#define HARNESS_MAX_SELECT	8

static const char *const harness_stat_names[] = {
#define STAT_NAME(name, help) #name,
	BB_STATS_FIELDS(STAT_NAME)
#undef STAT_NAME
};

/* One skeleton per test binary, its live filter mapped, a reproducible RNG. */
static struct harness {
	struct bloomblock *skel;
	struct bb_instance inst;	/* filters_fd: what bb_filter_push needs */
	int stats_fd;
	struct bb_image img;		/* the live filter, mapped read-only */
	bool live;			/* img holds a filter the program accepts */
	__u64 rng_state, rng_seed;
	unsigned long runs;		/* test runs, every subtest */
	const char *select[HARNESS_MAX_SELECT];	/* -t and BB_SUBTEST; none: run all */
	unsigned int n_select, n_selected;
} harness;

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

static inline __u64 harness_rng(void)
{
	return splitmix64(&harness.rng_state);
}

/* ---- subtests: -t NAME or BB_SUBTEST=NAME runs those whose name contains NAME ---- */

static inline void harness_usage(const char *prog, FILE *out)
{
	fprintf(out, "Usage: %s [-t NAME]...\n"
		"Runs every subtest; with -t (or BB_SUBTEST=NAME), only those whose name\n"
		"contains one NAME: a table (\"TABLE\") or one of its cases (\"TABLE: CASE\").\n"
		"BB_TEST_SEED=N draws other random data.\n", prog);
}

static inline void harness_options(int argc, char **argv)
{
	const char *env = getenv("BB_SUBTEST");
	int opt;

	if (env && *env)
		harness.select[harness.n_select++] = env;
	while ((opt = getopt(argc, argv, "t:h")) != -1) {
		if (opt == 't' && harness.n_select < HARNESS_MAX_SELECT) {
			harness.select[harness.n_select++] = optarg;
			continue;
		}
		harness_usage(argv[0], opt == 'h' ? stdout : stderr);
		exit(opt == 'h' ? 0 : 2);
	}
	if (optind < argc) {
		harness_usage(argv[0], stderr);
		exit(2);
	}
}

static inline bool harness_matches(const char *name)
{
	unsigned int i;

	if (!harness.n_select)
		return true;
	for (i = 0; i < harness.n_select; i++)
		if (strstr(name, harness.select[i]))
			return true;
	return false;
}

/* Should the subtest of this name run? Counts those that do, for harness_end(). */
static inline bool harness_subtest(const char *name)
{
	bool run = harness_matches(name);

	harness.n_selected += run;
	return run;
}

static inline bool harness_selecting(void)
{
	return harness.n_select > 0;
}

/* ---- start and end ---- */

/*
 * The TAP header, the options, the seed. False without root: the test then ends
 * with harness_end(), its one check skipped.
 */
static inline bool harness_begin(int argc, char **argv, const char *what)
{
	const char *seed = getenv("BB_TEST_SEED");
	unsigned int i;

	harness_options(argc, argv);
	tap_plan_header();
	for (i = 0; i < harness.n_select; i++)
		printf("# subtests whose name contains \"%s\"\n", harness.select[i]);
	if (!tap_need_root(what))
		return false;
	harness.rng_seed = seed ? strtoull(seed, NULL, 0) : HARNESS_SEED;
	harness.rng_state = harness.rng_seed;
	harness.inst.filters_fd = harness.inst.stats_fd = harness.inst.prog_fd = -1;
	harness.inst.tc_ingress_fd = harness.inst.tc_egress_fd = -1;
	harness.inst.xdp_reset_fd = -1;
	return true;
}

/* The real object, loaded, its tail-call tables filled as an instance fills them. */
static inline bool harness_load(void)
{
	harness.skel = bloomblock__open_and_load();
	if (harness.skel && bb_stage_tables_fill(harness.skel->obj, BB_FAMILY_ALL)) {
		bloomblock__destroy(harness.skel);
		harness.skel = NULL;
	}
	if (!ASSERT_TRUE(harness.skel, "bloomblock skeleton loads, tail-call tables filled"))
		return false;
	harness.stats_fd = bpf_map__fd(harness.skel->maps.stats);
	harness.inst.filters_fd = bpf_map__fd(harness.skel->maps.filters);
	return true;
}

static inline int harness_end(void)
{
	bb_image_close(&harness.img);
	bloomblock__destroy(harness.skel);
	if (harness_selecting() && !harness.n_selected) {
		printf("# no subtest has such a name\n");
		tap_finish();
		return 1;
	}
	return tap_finish();
}

/* ---- the live filter and the counters ---- */

static inline const struct bb_header *harness_live_header(void)
{
	return harness.live ? (const struct bb_header *)&harness.img.blocks[BB_HEADER_INDEX] : NULL;
}

static inline const struct bb_config *harness_live_config(void)
{
	return harness.live ? (const struct bb_config *)&harness.img.blocks[BB_CONFIG_INDEX] : NULL;
}

static inline int harness_read_stats(struct bb_stats *sum)
{
	return bb_stats_read_fd(harness.stats_fd, sum);
}

/* Every counter of delta against expect; each that differs, said in msg. */
static inline void harness_stats_compare(const struct bb_stats *delta,
					 const struct bb_stats *expect, char *msg, size_t size)
{
	size_t i;

	for (i = 0; i < HARNESS_N_STATS; i++) {
		__u64 d = ((const __u64 *)delta)[i], e = ((const __u64 *)expect)[i];

		if (d != e)
			appendf(msg, size, "%s +%llu, expected +%llu; ", harness_stat_names[i],
				(unsigned long long)d, (unsigned long long)e);
	}
}

/*
 * One test run of a real entry program. tc programs (skb) get an __sk_buff context
 * in and out: its mark is what a flagged packet leaves with.
 */
/* harness_run(), and the packet as the program left it into out (*out_len: its room, then its length). */
static inline int harness_run_out(int prog_fd, bool skb, const __u8 *data, size_t len,
				  __u8 *out, __u32 *out_len, __u32 *retval, __u32 *mark)
{
	struct __sk_buff ctx = {};
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = data,
		.data_size_in = len,
		.data_out = out,
		.data_size_out = out ? *out_len : 0,
		.repeat = 1,
	);
	int err;

	if (skb) {
		opts.ctx_in = &ctx;
		opts.ctx_size_in = sizeof(ctx);
		opts.ctx_out = &ctx;
		opts.ctx_size_out = sizeof(ctx);
	}
	err = bpf_prog_test_run_opts(prog_fd, &opts);
	*retval = opts.retval;
	if (mark)
		*mark = ctx.mark;
	if (out)
		*out_len = opts.data_size_out;
	harness.runs++;
	return err;
}

static inline int harness_run(int prog_fd, bool skb, const __u8 *data, size_t len,
			      __u32 *retval, __u32 *mark)
{
	return harness_run_out(prog_fd, skb, data, len, NULL, NULL, retval, mark);
}

/* harness_run() between two reads of the counters: *delta is what the one packet counted. */
static inline int harness_run_counted(int prog_fd, bool skb, const __u8 *data, size_t len,
				      __u32 *retval, __u32 *mark, struct bb_stats *delta)
{
	struct bb_stats before, after;
	int err;

	err = harness_read_stats(&before);
	err = err ?: harness_run(prog_fd, skb, data, len, retval, mark);
	err = err ?: harness_read_stats(&after);
	if (!err)
		bb_stats_delta(delta, &after, &before);
	return err;
}

/*
 * Bloom blocks the program reads for a source or destination address, as
 * bpf/bloomblock.bpf.c probes it, written again over the live filter: the short
 * table first (no block read), then one block per probe length, longest first,
 * until one hits. *hit: whether one did. The tables state their verdicts by hand;
 * this model says what a packet costs, and is checked against those verdicts.
 */
static inline unsigned int harness_model_addr(const __u8 *addr, bool v4, bool *hit)
{
	const struct bb_header *hdr = harness_live_header();
	const struct bb_block *blocks = harness.img.blocks;
	__u32 prefix16 = bb_short_prefix(addr);
	unsigned int i, n;
	__u64 h;

	*hit = false;
	if (!hdr)
		return 0;
	if ((hdr->flags & (v4 ? BB_HDR_F_V4_SHORT : BB_HDR_F_V6_SHORT)) &&
	    bb_short_test(&blocks[bb_short_index(v4, prefix16)], prefix16)) {
		*hit = true;
		return 0;
	}
	n = v4 ? hdr->n_v4_plens : hdr->n_v6_plens;
	for (i = 0; i < n && i < BB_MAX_PLENS; i++) {
		if (v4) {
			struct bb_key_ip4 key;

			bb_key_ip4_make(&key, addr, hdr->v4_plens[i]);
			h = bb_hash_ip4(&key, hdr->seed);
		} else {
			struct bb_key_ip6 key;

			bb_key_ip6_make(&key, addr, hdr->v6_plens[i]);
			h = bb_hash_ip6(&key, hdr->seed);
		}
		if (bb_block_test(&blocks[BB_FIRST_BLOCK + bb_block_of(h, hdr->nblocks)], h,
				  hdr->k)) {
			*hit = true;
			return i + 1;
		}
	}
	return n;
}

/* ---- filters ---- */

/* How a table's filter comes to be. */
enum harness_setup {
	HARNESS_LIST,		/* build from the lines (or the list given), push */
	HARNESS_KEEP,		/* whatever is live: nothing, for the fresh skeleton */
	HARNESS_BAD_MAGIC,	/* build, break the header, push: the program must refuse it */
	HARNESS_BAD_ABI,
	HARNESS_NO_BLOCKS,
	HARNESS_SLOT_EMPTY,	/* delete the outer slot */
};

struct harness_filter {
	enum harness_setup setup;
	const char *const *lines;	/* NULL-terminated; NULL: the list as it is */
	__u32 flags;			/* BB_HDR_F_*: BB_HDR_F_DROP, or flag mode without */
	const struct bb_config *config;	/* NULL: bb_filter_build()'s defaults */
	double fpr;			/* 0: the default */
};

/* Every line into list; a line that is not one entry is an error, said in msg. */
static inline int harness_parse_lines(struct bb_list *list, const char *const *lines, char *msg,
				      size_t size)
{
	const char *why = NULL;
	size_t i;
	int ret;

	for (i = 0; lines[i]; i++) {
		ret = bb_list_parse_line(list, lines[i], strlen(lines[i]), &why);
		if (ret != 1) {
			snprintf(msg, size, "line \"%s\": %d (%s)", lines[i], ret, why ? why : "-");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Push a built filter into the slot and map the live one into harness.img: the
 * tests' models read the kernel's copy. valid: the program will accept it.
 */
static inline int harness_push_filter(struct bb_filter *filter, bool valid, char *msg,
				      size_t size)
{
	int err;

	harness.live = false;
	bb_image_close(&harness.img);
	err = bb_filter_push(&harness.inst, filter);
	if (err) {
		snprintf(msg, size, "bb_filter_push: %s", strerror(-err));
		return err;
	}
	err = bb_image_open(&harness.inst, &harness.img);
	if (err)
		snprintf(msg, size, "bb_image_open: %s", strerror(-err));
	harness.live = !err && valid;
	return err;
}

static inline int harness_empty_slot(char *msg, size_t size)
{
	__u32 zero = 0;
	int err;

	bb_image_close(&harness.img);
	harness.live = false;
	if (!bpf_map_delete_elem(harness.inst.filters_fd, &zero))
		return 0;
	err = -errno;
	snprintf(msg, size, "deleting the outer slot: %s", strerror(-err));
	return err;
}

/* The filter f describes, live; list gets its lines (the models and checks read it). */
static inline int harness_setup_filter(const struct harness_filter *f, struct bb_list *list,
				       char *msg, size_t size)
{
	struct bb_filter_opts opts = { .fpr = f->fpr, .seed = HARNESS_SEED, .flags = f->flags };
	struct bb_filter filter;
	int err;

	if (f->setup == HARNESS_KEEP)
		return 0;
	if (f->setup == HARNESS_SLOT_EMPTY)
		return harness_empty_slot(msg, size);
	if (f->config)
		opts.config = *f->config;
	if (f->lines) {
		err = harness_parse_lines(list, f->lines, msg, size);
		if (err)
			return err;
	}
	err = bb_filter_build(&filter, list, &opts);
	if (err) {
		snprintf(msg, size, "bb_filter_build: %s", strerror(-err));
		return err;
	}
	if (f->setup == HARNESS_BAD_MAGIC)
		filter.hdr.magic ^= 1;
	else if (f->setup == HARNESS_BAD_ABI)
		filter.hdr.abi_version++;
	else if (f->setup == HARNESS_NO_BLOCKS)
		filter.hdr.nblocks = 0;
	err = harness_push_filter(&filter, f->setup == HARNESS_LIST, msg, size);
	bb_filter_free(&filter);
	return err;
}

/*
 * An --answer filter of lines, live (flags: BB_HDR_F_DROP | BB_HDR_F_ANSWER and what
 * else the test asks), at rate answers a second a CPU (0: the default).
 */
static inline int harness_answer_setup(const char *const *lines, __u32 flags, __u32 rate)
{
	struct bb_config cfg;
	struct harness_filter f = { .lines = lines, .config = &cfg, .flags = flags };
	struct bb_list list;
	char msg[256] = "";
	int err;

	bb_config_defaults(&cfg);
	if (rate) {
		cfg.answer_cost_ns = 1000000000U / rate;
		cfg.answer_burst = rate;
	}
	bb_list_init(&list);
	err = harness_setup_filter(&f, &list, msg, sizeof(msg));
	bb_list_free(&list);
	if (err)
		printf("# setup: %s\n", msg);
	return err;
}

/* The answers' bucket full again: its per-CPU state zeroed (a fresh bucket starts full). */
static inline void harness_answer_refill(void)
{
	const struct bpf_map *map = harness.skel->maps.answer_bucket;
	int fd = bpf_map__fd(map), ncpu = libbpf_num_possible_cpus();
	void *zero = calloc((size_t)ncpu, (bpf_map__value_size(map) + 7) & ~7U);
	__u32 key = 0;

	if (zero)
		bpf_map_update_elem(fd, &key, zero, BPF_ANY);
	free(zero);
}

/* ---- tables: a filter and cases, each case one check named "TABLE: CASE" ---- */

struct harness_table {
	const char *name;
	struct harness_filter filter;
	const void *cases;		/* n_cases of case_size bytes, each opening with its name */
	size_t n_cases, case_size;
	bool check_entries;		/* the runner's after() walks the listed entries */
};

#define HARNESS_CASES(c)	.cases = (c), .n_cases = sizeof(c) / sizeof((c)[0]), \
				.case_size = sizeof((c)[0])

/* What a test does with its tables; before() and after() may be NULL. */
struct harness_runner {
	void (*before)(const struct harness_table *t, const struct bb_list *list);
	void (*run_case)(const struct harness_table *t, const void *c);
	void (*after)(const struct harness_table *t, const struct bb_list *list);
};

static inline const char *harness_case_name(const struct harness_table *t, size_t i)
{
	return *(const char *const *)((const char *)t->cases + i * t->case_size);
}

/* Is case i selected, by its table's name or by its own ("TABLE: CASE")? */
static inline bool harness_case_selected(const struct harness_table *t, size_t i)
{
	char name[400];

	snprintf(name, sizeof(name), "%s: %s", t->name, harness_case_name(t, i));
	return harness_matches(t->name) || harness_matches(name);
}

/*
 * A table runs whole when its name is selected: the filter, before(), every case,
 * after(). Selected by some of its cases' names, it runs the filter and those.
 * A filter that does not come up is one failed check, "TABLE: filter set up".
 */
static inline void harness_run_table(const struct harness_table *t,
				     const struct harness_runner *r)
{
	bool whole = harness_subtest(t->name);
	char name[300], msg[300] = "";
	struct bb_list list;
	size_t i, n = 0;

	for (i = 0; !whole && i < t->n_cases; i++)
		n += harness_case_selected(t, i);
	if (!whole && !n)
		return;
	harness.n_selected += !whole;
	bb_list_init(&list);
	if (harness_setup_filter(&t->filter, &list, msg, sizeof(msg))) {
		snprintf(name, sizeof(name), "%s: filter set up", t->name);
		tap_result(false, name, "%s", msg);
		goto cleanup;
	}
	if (whole && r->before)
		r->before(t, &list);
	for (i = 0; i < t->n_cases; i++)
		if (whole || harness_case_selected(t, i))
			r->run_case(t, (const char *)t->cases + i * t->case_size);
	if (whole && r->after)
		r->after(t, &list);
cleanup:
	bb_list_free(&list);
}

static inline void harness_run_tables(const struct harness_table *tables, size_t n,
				      const struct harness_runner *r)
{
	size_t i;

	for (i = 0; i < n; i++)
		harness_run_table(&tables[i], r);
}

/* ---- properties: many random trials, one check each, the first failure kept ---- */

struct harness_prop {
	const char *what;
	unsigned long runs, misses, errors;
	char first[300];
};

/* Count one trial that held or not (err: the run failed); true on the first failure. */
static inline bool harness_prop_count(struct harness_prop *p, int err, bool held)
{
	p->runs++;
	if (!err && held)
		return false;
	if (err)
		p->errors++;
	else
		p->misses++;
	return p->misses + p->errors == 1;
}

/* Say what the first failure was, and the run's error if it failed. */
static inline void harness_prop_note(struct harness_prop *p, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline void harness_prop_note(struct harness_prop *p, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->first, sizeof(p->first), fmt, ap);
	va_end(ap);
	if (err)
		appendf(p->first, sizeof(p->first), ": %s", strerror(-err));
}

/* "property: WHAT: N runs, CLAIM"; on failure, the seed that reproduces it. */
static inline void harness_prop_report(const struct harness_prop *p, const char *claim)
{
	char name[300];

	snprintf(name, sizeof(name), "property: %s: %lu runs, %s", p->what, p->runs, claim);
	tap_result(!p->misses && !p->errors && p->runs, name,
		   "%lu of %lu failed, %lu test runs failed; first: %s (BB_TEST_SEED=%llu)",
		   p->misses, p->runs, p->errors, p->first[0] ? p->first : "-",
		   (unsigned long long)harness.rng_seed);
}

#endif /* BB_TEST_HARNESS_H */

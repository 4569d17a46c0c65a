// SPDX-License-Identifier: GPL-2.0
/*
 * The load path (table 5): the CLI's loads and nftables' as scripts/bench.sh timed
 * them (its results file), then in this process the steps of a load of each generated
 * list (parse, build, push, and the push's own steps until the filter is live), and a
 * hash map's batch update of the same addresses.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "bench_parts.h"
#include "bench_seq.h"
#include "list.h"
#include "pins.h"

#define PUSH_SAMPLES	9	/* pushes timed step by step (the rows say "9") */
#define MEMCPY_SAMPLES	5	/* and copies into plain memory (the rows say "5") */
#define SWAPS		200	/* swaps of built maps (the row says "200") */

/* ---- the CLI's and nft's loads, from the results file ---- */

static void load_row(struct table *t, const char *what, const char *lines, const char *parse,
		     const char *build, const char *push, const char *total, const char *rate,
		     const char *note)
{
	const char *cells[] = { what, lines, parse, build, push, total, rate, note };

	table_add(t, cells);
}

/* What scripts/bench.sh wrote for one `bloomblock load` (cli_TAG_*); NAN when absent. */
struct cli_load {
	double lines, parse, build, push, wall, peak_rss_kb, filter_bytes;
};

static void cli_load_read(const struct script_results *script, const char *tag,
			  struct cli_load *cl)
{
	char name[64];

#define FIELD(field) (snprintf(name, sizeof(name), "cli_%s_%s", tag, field), \
		      script_number(script, name))
	cl->lines = FIELD("lines");
	cl->parse = FIELD("parse_s");
	cl->build = FIELD("build_s");
	cl->push = FIELD("push_s");
	cl->wall = FIELD("wall_s");
	cl->peak_rss_kb = FIELD("maxrss_kb");
	cl->filter_bytes = FIELD("filter_bytes");
#undef FIELD
}

/* The gzip row's note: beside the plain first load of the same run, its size, wall and sum. */
static void gzip_note(const struct script_results *script, const struct cli_load *cl,
		      char *buf, size_t size)
{
	double plain = script_number(script, "cli_ip4_file_bytes");
	double gz = script_number(script, "cli_ip4_gz_file_bytes");
	const char *streamed = script_value(script, "cli_ip4_gz_streamed");
	char x[16], y[16];

	/* --stream always keeps it on the plain row's two passes; say so if not */
	fmtf(buf, size, "%.1f MiB (%.0f%% of plain); wall %s plain IPv4's, sum %s; peak RSS "
	     "%.0f MiB%s", gz / MIB, 100 * gz / plain,
	     ratio_fmt(x, sizeof(x), cl->wall, script_number(script, "cli_ip4_wall_s")),
	     ratio_fmt(y, sizeof(y), cl->parse + cl->build + cl->push,
		       script_number(script, "cli_ip4_parse_s") +
		       script_number(script, "cli_ip4_build_s") +
		       script_number(script, "cli_ip4_push_s")),
	     cl->peak_rss_kb / 1024, streamed && strcmp(streamed, "true") ? "; not streamed" : "");
}

/* The figures the targets take from the first loads and the reloads. */
static void cli_load_keep(struct load_results *res, const char *tag, const struct cli_load *cl)
{
	struct list_load *first = !strcmp(tag, "ip4") ? &res->ip4 :
				  !strcmp(tag, "names") ? &res->names : NULL;

	if (first) {
		first->cli_wall_s = cl->wall;
		first->cli_sum_s = cl->parse + cl->build + cl->push;
		first->cli_peak_rss = cl->peak_rss_kb * 1024;
		first->cli_filter_bytes = cl->filter_bytes;
	} else if (!strcmp(tag, "reload")) {
		res->ip4.cli_reload_wall_s = cl->wall;
		res->ip4.cli_reload_peak_rss = cl->peak_rss_kb * 1024;
	} else if (!strcmp(tag, "names_reload")) {
		res->names.cli_reload_wall_s = cl->wall;
	}
}

static void cli_row(struct load_results *res, const struct script_results *script,
		    const char *tag, const char *what)
{
	char name[64], c[8][BT_CELL], ln[16];
	struct cli_load cl;

	cli_load_read(script, tag, &cl);
	fmtf(c[0], BT_CELL, "bloomblock load (CLI), %s", what);
	if (isnan(cl.wall)) {
		const char *error = script_value(script, fmtf(name, sizeof(name), "cli_%s_error",
							      tag));

		load_row(&res->table, c[0], "-", "-", "-", "-", "-", "-",
			 error ? error : "not measured");
		return;
	}
	if (!strcmp(tag, "ip4_gz"))
		gzip_note(script, &cl, c[6], BT_CELL);
	else
		fmtf(c[6], BT_CELL, "peak RSS %.0f MiB; wall: process start to exit, filter live",
		     cl.peak_rss_kb / 1024);
	load_row(&res->table, c[0], pow10_name((__u32)cl.lines, ln, sizeof(ln)),
		 fmtf(c[1], BT_CELL, "%.3f", cl.parse), fmtf(c[2], BT_CELL, "%.3f", cl.build),
		 fmtf(c[3], BT_CELL, "%.3f", cl.push),
		 fmtf(c[4], BT_CELL, "%.3f (wall %.3f)", cl.parse + cl.build + cl.push, cl.wall),
		 fmtf(c[5], BT_CELL, "%.2f M/s", cl.lines / cl.wall / 1e6), c[6]);
	cli_load_keep(res, tag, &cl);
}

/*
 * A load's steps, from a run of its own with -d (cmd_load.c, report_steps()): the
 * scan (parse, hash, spool), the index sorted and written, the programs' thread and
 * what the load waited for it, the filter (sized, the bits set in the new map), the
 * attach and swap, the index's header and rename.
 */
static void steps_row(struct load_results *res, const struct script_results *script,
		      const char *tag, const char *what)
{
	char name[64], c[6][BT_CELL];
	double v[7];
	static const char *const field[] = { "parse", "index", "programs", "waited", "filter",
					     "swap", "written" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(field); i++)
		v[i] = script_number(script, fmtf(name, sizeof(name), "cli_%s_steps_%s_s", tag,
						  field[i]));
	fmtf(c[0], BT_CELL, "its steps (-d, a load of its own): %s", what);
	if (isnan(v[0])) {
		load_row(&res->table, c[0], "-", "-", "-", "-", "-", "-", "not measured");
		return;
	}
	fmtf(c[5], BT_CELL, "index %.3f; programs %.3f in their thread, waited %.3f; bits %.3f; "
	     "commit %.3f", v[1], v[2], v[3], v[4], v[6]);
	load_row(&res->table, c[0], "-", fmtf(c[1], BT_CELL, "%.3f", v[0]),
		 fmtf(c[2], BT_CELL, "%.3f", v[1] + v[4]), fmtf(c[3], BT_CELL, "%.3f", v[5]),
		 fmtf(c[4], BT_CELL, "%.3f", v[0] + v[1] + v[3] + v[4] + v[5] + v[6]), "-", c[5]);
}

static void script_rows(struct load_results *res, const struct script_results *script)
{
	static const struct {
		const char *tag, *what;
	} cli_loads[] = {
		{ "ip4", "IPv4: a new instance, key index on, -i a veth (issue 29's case)" },
		{ "ip4_noindex", "IPv4, --no-index (a new instance)" },
		{ "ip4_gz", "IPv4, gzip -6: inflated and parsed in one thread" },
		{ "ip4_1t", "IPv4, --threads 1" },
		{ "names", "hostnames" },
		{ "names_1t", "hostnames, --threads 1" },
		{ "reload", "IPv4, reload onto the live instance" },
		{ "names_reload", "hostnames, reload onto the live instance" },
	};
	char name[64], c[2][BT_CELL], nn[16];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cli_loads); i++)
		cli_row(res, script, cli_loads[i].tag, cli_loads[i].what);
	steps_row(res, script, "ip4_steps", "IPv4, a first load");
	steps_row(res, script, "reload_steps", "IPv4, a reload");
	for (i = 0; i < ARRAY_SIZE(settings.batch_sizes); i++) {
		__u32 n = settings.batch_sizes[i];
		double s = script_number(script, fmtf(name, sizeof(name), "nft_%u_s", n));
		const char *status = script_value(script, fmtf(name, sizeof(name),
							       "nft_%u_status", n));

		load_row(&res->table, "nftables set (nft -f, private netns)",
			 pow10_name(n, nn, sizeof(nn)), "-", "-", "-",
			 isnan(s) ? "-" : fmtf(c[0], BT_CELL, "%.3f", s),
			 isnan(s) ? "-" : fmtf(c[1], BT_CELL, "%.2f M/s", n / s / 1e6),
			 status ? status : "not measured");
	}
}

/* ---- when a swap goes live ---- */

/*
 * The update stores the new map in the outer slot at once, then waits for an RCU
 * grace period before it returns (so that no program still reads the old map when
 * userspace frees it). A watcher on the other CPU reads the slot (userspace lookups
 * of an outer map give the inner map's id) until it shows the new map: that is when
 * packets see it.
 */
struct swap_watch {
	int outer_fd;
	_Atomic __u32 want;	/* the id to wait for; 0 when idle */
	_Atomic int stop;
	double seen;
};

static void *swap_watcher(void *arg)
{
	struct swap_watch *w = arg;
	__u32 zero = 0, id;

	while (!w->stop) {
		if (!w->want)
			continue;
		if (!bpf_map_lookup_elem(w->outer_fd, &zero, &id) && id == w->want) {
			w->seen = now_s();
			w->want = 0;
		}
	}
	return NULL;
}

static __u32 map_id(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/*
 * Swap fds[i % 2] into the slot, n times: how long each update syscall took and
 * how long until the new map was in the slot.
 */
static int swaps_timed(int outer_fd, const int fds[2], double *ret, double *live, int n)
{
	struct swap_watch w = { .outer_fd = outer_fd };
	__u32 ids[2] = { map_id(fds[0]), map_id(fds[1]) };
	pthread_t thread;
	int i, err = 0;

	if (!ids[0] || !ids[1])
		return -ENOENT;
	err = -pthread_create(&thread, NULL, swap_watcher, &w);
	if (err)
		return err;
	for (i = 0; i < n && !err; i++) {
		double t0 = now_s();

		w.want = ids[i % 2];
		err = filter_slot_set(outer_fd, fds[i % 2]);
		ret[i] = now_s() - t0;
		while (!err && w.want)
			;
		live[i] = w.seen - t0;
	}
	w.want = 0;
	w.stop = 1;
	pthread_join(thread, NULL);
	return err;
}

/* An outer map like the CLI's, for bb_filter_push() and the swaps. */
static int outer_create(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, inner_opts,
		    .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	LIBBPF_OPTS(bpf_map_create_opts, outer_opts);
	int inner, outer;

	inner = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bb_tmpl", 4, BB_BLOCK_BYTES,
			       BB_FIRST_BLOCK + 1, &inner_opts);
	if (inner < 0)
		return -errno;
	outer_opts.inner_map_fd = inner;
	outer = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "bb_outer", 4, 4, 1, &outer_opts);
	close(inner);
	return outer < 0 ? -errno : outer;
}

/* ---- the in-process load of one list ---- */

/* What each step of one list's load took, s. */
struct load_times {
	double parse[2], build[2];	/* on 1, then 2 threads */
	double push;			/* bb_filter_push() of the built filter, as a whole */
	double build_in_map, swap;	/* what load does: 2 threads, the bits in the new map */
};

/* The push of the built filter step by step, PUSH_SAMPLES times; then swaps of built maps. */
struct push_steps {
	struct push_times each[PUSH_SAMPLES];
	struct push_times median;	/* step by step */
	struct push_times populate;	/* one more, with MAP_POPULATE */
	double swap_returned[SWAPS], swap_live[SWAPS];	/* sorted */
	double swap_s, swap_live_s;	/* their medians */
};

/* The list parsed on 1 thread, then on 2; the second is kept. */
static int parse_list(struct bb_list *list, const char *path, const char *ln,
		      struct load_times *t)
{
	struct bb_list_counts counts;
	int err, th;
	double t0;

	for (th = 0; th < 2; th++) {
		struct bb_list_opts opts = { .threads = th + 1 };

		bb_list_init(list);
		progress("load path: parsing %s (%s lines), %d thread%s", path, ln, th + 1,
			 th ? "s" : "");
		t0 = now_s();
		err = bb_list_parse_file(list, path, &opts, &counts);
		t->parse[th] = now_s() - t0;
		if (err) {
			bench_warn("%s: %s\n", path, strerror(-err));
			return err;
		}
		if (th == 0)
			bb_list_free(list);
	}
	return 0;
}

/* The filter built on 1 thread, then on 2; the second is kept. */
static int build_filter(struct bb_filter *filter, const struct bb_list *list,
			struct load_times *t)
{
	struct bb_filter_opts opts = { .seed = BENCH_SEED, .flags = BB_HDR_F_DROP };
	int err, th;
	double t0;

	for (th = 0; th < 2; th++) {
		opts.threads = th + 1;
		t0 = now_s();
		err = bb_filter_build(filter, list, &opts);
		t->build[th] = now_s() - t0;
		if (err)
			return err;
		if (th == 0)
			bb_filter_free(filter);
	}
	return 0;
}

/* The push of the built filter, then what load does: build into the new map, swap it in. */
static int push_and_load(struct bb_instance *inst, struct bb_filter *filter,
			 const struct bb_list *list, struct load_times *t)
{
	struct bb_filter_opts opts = { .seed = BENCH_SEED, .flags = BB_HDR_F_DROP, .threads = 2,
				       .blocks_alloc = bb_filter_map_blocks };
	struct bb_filter_map fmap = { .fd = -1 };
	struct bb_filter in_map;
	double t0 = now_s();
	int err;

	err = bb_filter_push(inst, filter);
	t->push = now_s() - t0;
	if (err)
		return err;
	opts.blocks_ctx = &fmap;
	t0 = now_s();
	err = bb_filter_build(&in_map, list, &opts);
	t->build_in_map = now_s() - t0;
	if (err)
		return err;
	t0 = now_s();
	err = bb_filter_swap(inst, &in_map, &fmap);
	t->swap = now_s() - t0;
	bb_filter_free(&in_map);
	bb_filter_map_close(&fmap);
	return err;
}

/* ---- the one pass of a streamed load with the key index, step by step ---- */

/* Its steps, s, on 2 threads: the scan alone, then the load's own steps in order. */
struct one_pass_times {
	double read_parse;	/* the scan with no sink: reading and parsing */
	double scan;		/* with the tally and the spool: hashing and spooling too */
	double index;		/* the plan, the waiting prefixes, each bucket sorted, written */
	double filter;		/* the new map created, the bits set in it from the index */
	double swap;
	__u64 records;
};

struct one_pass_sink {
	struct bb_key_tally tally[BB_LIST_MAX_THREADS];
	struct bb_spool *spool;
	size_t *base, n_parts, lines;
};

static void one_pass_nothing(void *ctx, unsigned int thread, const struct bb_entry *e)
{
	(void)ctx, (void)thread, (void)e;
}

static void one_pass_entry(void *ctx, unsigned int thread, const struct bb_entry *e)
{
	struct one_pass_sink *s = ctx;

	bb_key_tally_entry(&s->tally[thread], e);
	bb_spool_add(s->spool, thread, e);
}

static void one_pass_part(void *ctx, unsigned int thread, size_t part)
{
	bb_spool_part(((struct one_pass_sink *)ctx)->spool, thread, part);
}

static void one_pass_part_lines(void *ctx, size_t part, size_t lines)
{
	struct one_pass_sink *s = ctx;

	if (part >= s->n_parts) {
		size_t *b = realloc(s->base, (part + 1) * sizeof(*b));

		if (!b)
			return;	/* lines left in their parts: the times stand */
		s->base = b;
		s->n_parts = part + 1;
	}
	s->base[part] = s->lines;
	s->lines += lines;
}

/*
 * What load does with a large list and the key index (load_steps.c), its steps timed
 * one by one on 2 threads, the spool and the index file in a directory of tmpfs (as
 * the state directory in /run is). The scan is timed alone first, with no sink: the
 * difference is the hashing and the spooling.
 */
static int one_pass_load(struct bb_instance *inst, const char *path, struct one_pass_times *t)
{
	struct bb_list_opts lo = { .threads = 2 };
	struct bb_filter_opts fo = { .seed = BENCH_SEED, .flags = BB_HDR_F_DROP, .threads = 2,
				     .blocks_alloc = bb_filter_map_blocks };
	struct bb_list_sink sink = { .entry = one_pass_nothing };
	struct one_pass_sink *s = calloc(1, sizeof(*s));
	struct bb_filter_map fmap = { .fd = -1 };
	struct bb_index_file f = { .fd = -1 };
	struct bb_key_tally sum = { 0 };
	const char *base = getenv("TMPDIR");
	char dir[512], file[600];
	struct bb_filter filter;
	struct bb_list_counts c;
	unsigned int i;
	double t0;
	int fd, err;

	if (!s)
		return -ENOMEM;
	snprintf(dir, sizeof(dir), "%s/bbbench-load.XXXXXX", base && *base ? base : "/dev/shm");
	if (!mkdtemp(dir)) {
		free(s);
		return -errno;
	}
	snprintf(file, sizeof(file), "%s/index.bin", dir);
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	err = fd < 0 ? -errno : bb_spool_begin(&filter, fd, &fo, &s->spool);
	t0 = now_s();
	err = err ?: bb_list_scan_file(path, &lo, &sink, &c);
	t->read_parse = now_s() - t0;
	sink = (struct bb_list_sink){ .entry = one_pass_entry, .part = one_pass_part,
				      .part_lines = one_pass_part_lines, .ctx = s };
	t0 = now_s();
	err = err ?: bb_list_scan_file(path, &lo, &sink, &c);
	t->scan = now_s() - t0;
	for (i = 0; i < BB_LIST_MAX_THREADS; i++)
		bb_key_tally_sum(&sum, &s->tally[i]);
	t0 = now_s();
	err = err ?: bb_spool_plan(s->spool, &sum, &s->base, &s->n_parts, 1);
	err = err ?: bb_spool_error(s->spool);
	err = err ?: bb_index_file_create(&f, file);
	err = err ?: bb_spool_index(s->spool, &f, &t->records);
	t->index = now_s() - t0;
	fo.blocks_ctx = &fmap;
	t0 = now_s();
	err = err ?: bb_spool_build(s->spool, &sum, &fo, &f, &(__u64){ 0 });
	t->filter = now_s() - t0;
	t0 = now_s();
	err = err ?: bb_filter_swap(inst, &filter, &fmap);
	t->swap = now_s() - t0;
	if (s->spool)
		bb_filter_free(&filter);
	bb_spool_free(s->spool);
	bb_index_file_abort(&f);
	bb_filter_map_close(&fmap);
	rmdir(dir);
	free(s->base);
	free(s);
	return err;
}

static void one_pass_rows(struct table *table, const char *what, const char *ln, __u32 lines,
			  const struct one_pass_times *t)
{
	double total = t->scan + t->index + t->filter + t->swap;
	char c[8][BT_CELL];

	load_row(table, fmtf(c[0], BT_CELL, "in-process %s, the scan alone: reading and parsing, "
			     "2 threads", what), ln, fmtf(c[1], BT_CELL, "%.3f", t->read_parse),
		 "-", "-", fmtf(c[4], BT_CELL, "%.3f", t->read_parse),
		 fmtf(c[5], BT_CELL, "%.2f M/s", lines / t->read_parse / 1e6),
		 "bb_list_scan_file, entries to a sink that does nothing");
	load_row(table, fmtf(c[0], BT_CELL, "in-process %s, one pass with the key index, 2 "
			     "threads (load's streamed path)", what), ln,
		 fmtf(c[1], BT_CELL, "%.3f", t->scan), fmtf(c[2], BT_CELL, "%.3f",
							 t->index + t->filter),
		 fmtf(c[3], BT_CELL, "%.3f", t->swap), fmtf(c[4], BT_CELL, "%.3f", total),
		 fmtf(c[5], BT_CELL, "%.2f M/s", lines / total / 1e6),
		 fmtf(c[6], BT_CELL, "hash+spool %.3f (scan less scan alone), index sort+write "
		      "%.3f, bits %.3f", t->scan - t->read_parse, t->index, t->filter));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Each step's median over n pushes. */
static struct push_times push_median(const struct push_times *t, int n)
{
	double v[4][PUSH_SAMPLES];
	int i;

	for (i = 0; i < n; i++) {
		v[0][i] = t[i].create;
		v[1][i] = t[i].map;
		v[2][i] = t[i].copy;
		v[3][i] = t[i].unmap;
	}
	return (struct push_times){ .create = median_of(v[0], n), .map = median_of(v[1], n),
				    .copy = median_of(v[2], n), .unmap = median_of(v[3], n) };
}

/*
 * The push's steps by the same recipe, PUSH_SAMPLES times (a push takes a few ms:
 * one alone is at the mercy of the host), one with MAP_POPULATE; then SWAPS swaps of
 * two of those maps.
 */
static int push_step_by_step(int outer_fd, struct bb_filter *filter, struct push_steps *steps)
{
	int i, err = 0, fd_a = -1, fd_b = -1;

	for (i = 0; i < PUSH_SAMPLES; i++) {
		int fd = filter_map_image(filter, false, &steps->each[i]);

		if (fd < 0) {
			err = fd;
			goto cleanup;
		}
		if (fd_a < 0)
			fd_a = fd;
		else
			close(fd);
	}
	steps->median = push_median(steps->each, PUSH_SAMPLES);
	fd_b = filter_map_image(filter, true, &steps->populate);
	if (fd_b < 0) {
		err = fd_b;
		goto cleanup;
	}
	err = swaps_timed(outer_fd, (int[2]){ fd_a, fd_b }, steps->swap_returned,
			  steps->swap_live, SWAPS);
	if (err)
		goto cleanup;
	qsort(steps->swap_live, SWAPS, sizeof(steps->swap_live[0]), cmp_double);
	qsort(steps->swap_returned, SWAPS, sizeof(steps->swap_returned[0]), cmp_double);
	steps->swap_s = steps->swap_returned[SWAPS / 2];
	steps->swap_live_s = steps->swap_live[SWAPS / 2];
cleanup:
	if (fd_a >= 0)
		close(fd_a);
	if (fd_b >= 0)
		close(fd_b);
	return err;
}

static void in_process_rows(struct table *table, const char *what, const char *ln,
			    __u32 lines, const struct bb_list *list,
			    const struct bb_filter *filter, const struct load_times *t)
{
	double total_1t = t->parse[0] + t->build[0] + t->push;
	double total_2t = t->parse[1] + t->build[1] + t->push;
	double total_load = t->parse[1] + t->build_in_map + t->swap;
	char c[8][BT_CELL];

	load_row(table, fmtf(c[0], BT_CELL, "in-process %s, 1 thread (parse, build)", what), ln,
		 fmtf(c[1], BT_CELL, "%.3f", t->parse[0]), fmtf(c[2], BT_CELL, "%.3f", t->build[0]),
		 fmtf(c[3], BT_CELL, "%.3f", t->push), fmtf(c[4], BT_CELL, "%.3f", total_1t),
		 fmtf(c[5], BT_CELL, "%.2f M/s", lines / total_1t / 1e6),
		 fmtf(c[6], BT_CELL, "%zu entries, %llu keys; parse %.2f M lines/s", list->n,
		      (unsigned long long)filter->hdr.items, lines / t->parse[0] / 1e6));
	load_row(table, fmtf(c[0], BT_CELL, "in-process %s, 2 threads", what), ln,
		 fmtf(c[1], BT_CELL, "%.3f", t->parse[1]), fmtf(c[2], BT_CELL, "%.3f", t->build[1]),
		 fmtf(c[3], BT_CELL, "%.3f", t->push), fmtf(c[4], BT_CELL, "%.3f", total_2t),
		 fmtf(c[5], BT_CELL, "%.2f M/s", lines / total_2t / 1e6),
		 fmtf(c[6], BT_CELL, "scaling 1 -> 2 threads: parse %.2fx, build %.2fx",
		      t->parse[0] / t->parse[1], t->build[0] / t->build[1]));
	load_row(table, fmtf(c[0], BT_CELL, "in-process %s, 2 threads, bits set in the new map "
			     "(load)", what), ln,
		 fmtf(c[1], BT_CELL, "%.3f", t->parse[1]),
		 fmtf(c[2], BT_CELL, "%.3f", t->build_in_map), fmtf(c[3], BT_CELL, "%.3f", t->swap),
		 fmtf(c[4], BT_CELL, "%.3f", total_load),
		 fmtf(c[5], BT_CELL, "%.2f M/s", lines / total_load / 1e6),
		 "build includes creating the map; push: header and swap, no copy");
}

/* The image copied into fresh anonymous memory, then again once it is mapped: medians. */
static int memcpy_times(const struct bb_filter *filter, size_t bytes, double *fresh_s,
			double *warm_s)
{
	size_t page = sysconf(_SC_PAGESIZE), len = (bytes + page - 1) / page * page;
	double fresh[MEMCPY_SAMPLES], warm[MEMCPY_SAMPLES], t0;
	int i;

	for (i = 0; i < MEMCPY_SAMPLES; i++) {
		void *dst = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				 -1, 0);

		if (dst == MAP_FAILED)
			return -errno;
		t0 = now_s();
		bb_filter_write_image(filter, dst);
		fresh[i] = now_s() - t0;
		t0 = now_s();
		bb_filter_write_image(filter, dst);
		warm[i] = now_s() - t0;
		munmap(dst, len);
	}
	*fresh_s = median_of(fresh, MEMCPY_SAMPLES);
	*warm_s = median_of(warm, MEMCPY_SAMPLES);
	return 0;
}

/* Until live, bb_filter_push()'s order: create and mmap, copy, swap; munmap after it. */
static double push_until_live(const struct push_times *p, const struct push_steps *steps)
{
	return p->create + p->map + p->copy + steps->swap_live_s;
}

static void push_figures_of(struct push_figures *push, const struct push_steps *steps,
			    size_t bytes, double memcpy_warm_s)
{
	double share[PUSH_SAMPLES];
	int i;

	for (i = 0; i < PUSH_SAMPLES; i++)
		share[i] = steps->each[i].copy / push_until_live(&steps->each[i], steps);
	push->bytes = bytes;
	push->copy_s = steps->median.copy;
	push->live_s = push_until_live(&steps->median, steps);
	st3_of(&push->copy_share, share, PUSH_SAMPLES);
	push->memcpy_warm_s = memcpy_warm_s;
}

/* The IPv4 list's push, step by step, beside a reload's swap and plain copies. */
static int push_rows(struct load_results *res, const struct bb_filter *filter,
		     const struct push_steps *steps, double push_s)
{
	const struct push_times *pt = &steps->median, *pop = &steps->populate;
	size_t bytes = bb_filter_elements(filter->hdr.nblocks, filter->hdr.allow_blocks) * BB_BLOCK_BYTES;
	const struct push_figures *push = &res->push;
	double fresh_s = 0, warm_s = 0, pop_live = push_until_live(pop, steps);
	struct table *t = &res->table;
	char c[8][BT_CELL];
	int err;

	err = memcpy_times(filter, bytes, &fresh_s, &warm_s);
	if (err)
		return err;
	push_figures_of(&res->push, steps, bytes, warm_s);
	load_row(t, "push, step by step (same recipe as bb_filter_push): until live, median of 9",
		 "-", "-", "-", fmtf(c[1], BT_CELL, "%.4f", push->live_s),
		 fmtf(c[2], BT_CELL, "%.4f", push->live_s),
		 fmtf(c[3], BT_CELL, "copy %.2f GB/s", bytes / pt->copy / 1e9),
		 fmtf(c[4], BT_CELL, "%zu B: create %.1f + mmap %.1f + copy %.1f + live %.3f ms "
		      "(copy %.0f%%, %.0f-%.0f%%)", bytes, 1e3 * pt->create, 1e3 * pt->map,
		      1e3 * pt->copy, 1e3 * steps->swap_live_s, 100 * push->copy_share.med,
		      100 * push->copy_share.min, 100 * push->copy_share.max));
	load_row(t, "the same with MAP_POPULATE (not what bb_filter_push does)", "-", "-", "-",
		 fmtf(c[1], BT_CELL, "%.4f", pop_live), fmtf(c[2], BT_CELL, "%.4f", pop_live),
		 fmtf(c[3], BT_CELL, "copy %.2f GB/s", bytes / pop->copy / 1e9),
		 fmtf(c[4], BT_CELL, "create %.1f ms + mmap(MAP_POPULATE) %.1f + copy %.1f + swap "
		      "until live", 1e3 * pop->create, 1e3 * pop->map, 1e3 * pop->copy));
	load_row(t, "bb_filter_push() as a whole, until it returns", "-", "-", "-",
		 fmtf(c[1], BT_CELL, "%.4f", push_s), fmtf(c[2], BT_CELL, "%.4f", push_s), "-",
		 "includes the swap's wait for an RCU grace period (next row)");
	load_row(t, "reload: swap of an already-built filter (median of 200)", "-", "-", "-",
		 fmtf(c[1], BT_CELL, "%.4f", steps->swap_live_s),
		 fmtf(c[5], BT_CELL, "%.4f", steps->swap_live_s), "-",
		 fmtf(c[2], BT_CELL, "live after %.3f ms (min %.3f, max %.3f); the syscall returns "
		      "after %.1f ms (min %.1f, max %.1f): it waits for an RCU grace period, idle",
		      1e3 * steps->swap_live_s, 1e3 * steps->swap_live[0],
		      1e3 * steps->swap_live[SWAPS - 1], 1e3 * steps->swap_s,
		      1e3 * steps->swap_returned[0], 1e3 * steps->swap_returned[SWAPS - 1]));
	load_row(t, "memcpy of the image into fresh memory (page faults), median of 5", "-", "-",
		 "-", fmtf(c[1], BT_CELL, "%.4f", fresh_s), fmtf(c[5], BT_CELL, "%.4f", fresh_s),
		 fmtf(c[2], BT_CELL, "%.2f GB/s", bytes / fresh_s / 1e9),
		 fmtf(c[3], BT_CELL, "same bytes; the copy into the map: %.2fx its speed",
		      fresh_s / pt->copy));
	load_row(t, "memcpy of the image, memory already mapped, median of 5", "-", "-", "-",
		 fmtf(c[1], BT_CELL, "%.4f", warm_s), fmtf(c[5], BT_CELL, "%.4f", warm_s),
		 fmtf(c[2], BT_CELL, "%.2f GB/s", bytes / warm_s / 1e9),
		 fmtf(c[3], BT_CELL, "same bytes; the copy into the map: %.2fx its speed",
		      warm_s / pt->copy));
	return 0;
}

/* One generated list loaded in this process: its rows, and its push's if it is IPv4. */
static int load_list(struct load_results *res, const char *path, bool names)
{
	struct bb_instance inst = { .filters_fd = -1, .stats_fd = -1, .prog_fd = -1,
				    .tc_ingress_fd = -1, .tc_egress_fd = -1,
				    .xdp_reset_fd = -1 };
	struct list_load *figures = names ? &res->names : &res->ip4;
	const char *what = names ? "hostnames" : "IPv4";
	struct push_steps steps = { 0 };
	struct one_pass_times one = { 0 };
	struct load_times t = { 0 };
	struct bb_filter filter;
	struct bb_list list;
	char ln[16];
	int err;

	pow10_name(res->lines, ln, sizeof(ln));
	inst.filters_fd = outer_create();
	if (inst.filters_fd < 0)
		return inst.filters_fd;
	progress("load path: %s (%s lines) in one pass with the key index", path, ln);
	err = one_pass_load(&inst, path, &one);
	if (err)
		bench_warn("%s: one pass: %s\n", path, strerror(-err));
	else
		one_pass_rows(&res->table, what, ln, res->lines, &one);
	err = parse_list(&list, path, ln, &t);
	if (err)
		goto free_list;
	err = build_filter(&filter, &list, &t);
	if (err)
		goto free_list;
	err = push_and_load(&inst, &filter, &list, &t);
	err = err ?: push_step_by_step(inst.filters_fd, &filter, &steps);
	if (err)
		goto free_filter;
	in_process_rows(&res->table, what, ln, res->lines, &list, &filter, &t);
	figures->in_process_1t_s = t.parse[0] + t.build[0] + t.push;
	figures->in_process_2t_s = t.parse[1] + t.build_in_map + t.swap;
	if (!names)
		err = push_rows(res, &filter, &steps, t.push);
free_filter:
	bb_filter_free(&filter);
free_list:
	bb_list_free(&list);
	close(inst.filters_fd);
	return err;
}

/* ---- a hash map's batch update, for comparison ---- */

static int hash_batch(struct table *table, __u32 n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 *keys = malloc((size_t)n * 4), *values = malloc((size_t)n * 4), j, count = n;
	char c[6][BT_CELL], nn[16];
	double t0, t_create, t_batch;
	int fd = -1, err = 0;

	if (!keys || !values) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (j = 0; j < n; j++) {
		__u8 a[16];

		bench_addr(j, 0, a);
		memcpy(&keys[j], a, 4);
		values[j] = 1;
	}
	t0 = now_s();
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "bench_batch", 4, 4, n, NULL);
	t_create = now_s() - t0;
	if (fd < 0) {
		err = -errno;
		goto cleanup;
	}
	t0 = now_s();
	err = bpf_map_update_batch(fd, keys, values, &count, &opts);
	t_batch = now_s() - t0;
	if (err || count != n) {
		err = err ?: -EIO;
		bench_warn("bpf_map_update_batch: %u of %u: %s\n", count, n, strerror(-err));
		goto cleanup;
	}
	load_row(table, "BPF_MAP_TYPE_HASH, bpf_map_update_batch", pow10_name(n, nn, sizeof(nn)),
		 "-", fmtf(c[0], BT_CELL, "%.3f (create)", t_create),
		 fmtf(c[1], BT_CELL, "%.3f (batch)", t_batch),
		 fmtf(c[2], BT_CELL, "%.3f", t_create + t_batch),
		 fmtf(c[3], BT_CELL, "%.2f M/s", n / (t_create + t_batch) / 1e6),
		 "one syscall; addresses in memory, no parsing");
cleanup:
	if (fd >= 0)
		close(fd);
	free(keys);
	free(values);
	return err;
}

/* The generated lists, unpinned: the load path runs on every CPU, as the CLI does. */
static int in_process_loads(struct load_results *res)
{
	char path[512];
	cpu_set_t all, one;
	int i, err;

	CPU_ZERO(&all);
	for (i = 0; i < sysconf(_SC_NPROCESSORS_ONLN) && i < CPU_SETSIZE; i++)
		CPU_SET(i, &all);
	if (sched_setaffinity(0, sizeof(all), &all))
		bench_warn("cannot unpin for the load path: %s\n", strerror(errno));
	snprintf(path, sizeof(path), "%s/ip4.txt", settings.lists_dir);
	err = load_list(res, path, false);
	snprintf(path, sizeof(path), "%s/names.txt", settings.lists_dir);
	err = err ?: load_list(res, path, true);
	CPU_ZERO(&one);
	CPU_SET(settings.cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
	return err;
}

int load_run(struct load_results *res, const struct script_results *script)
{
	static const char *const load_cols[] = {
		"what", "lines/keys", "parse s", "build s", "push s", "total s", "rate", "note",
		NULL,
	};
	size_t i;
	int err = 0;

	table_init(&res->table, "load", "5. Load path", 1, load_cols);
	res->lines = settings.batch_sizes[1];
	script_rows(res, script);
	if (settings.lists_dir)
		err = in_process_loads(res);
	for (i = 0; i < ARRAY_SIZE(settings.batch_sizes) && !err; i++)
		err = hash_batch(&res->table, settings.batch_sizes[i]);
	return err;
}

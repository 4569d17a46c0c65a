// SPDX-License-Identifier: GPL-2.0
/*
 * `make bench`'s driver: per-packet cost (BPF_PROG_TEST_RUN), memory, measured FPR and
 * the load path of bloomblock next to a hash map, an LPM trie, the kernel's Bloom
 * filter map and nftables, all in one run. This file takes the options, sets the run
 * up and calls each part in turn: the address rows (bench_addr.c), the name rows
 * (bench_names.c), the load path (bench_load.c), the veth part's table (veth.c), live
 * add and delete and filter files (bench_live.c), the false-positive rate of each
 * check (bench_fpr.c), what hit events cost (bench_events.c), then the targets and
 * the report (bench_report.c).
 * docs/BENCHMARKS.md explains every number.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "bench_parts.h"

struct bench_settings settings;

/* The modes that do one thing and exit, and --profile's options. */
struct modes {
	const char *gen, *gen_nft, *profile, *line_map, *veth_tx, *xdp_drop;
	double seconds;
	bool sizes;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench [--quick] [--out DIR] [--lists DIR] [--load-results FILE]\n"
		"             [--rounds N] [--cpu N] [--only PART,...]\n"
		"                                  --only: addr, names, load, veth, live,\n"
		"                                  fpr, events, confirm, daemon, whole,\n"
		"                                  answers; the targets of those parts alone\n"
		"       bench --gen DIR LINES      write DIR/ip4.txt and DIR/names.txt\n"
		"       bench --gen-nft FILE N     write an nftables set of N addresses\n"
		"       bench --sizes              print the load-path and nft sizes of a mode\n"
		"       bench --profile ROW [--seconds S] [--cpu N] [--line-map FILE]\n"
		"                                  run one row (empty, parse, ip4-hit, ip4-miss,\n"
		"                                  ip4-cold, dns, tls, http, and -hit of those"
		" three;\n"
		"                                  ip4-hit-event, dns-drop, dns-reject,"
		" dns-sinkhole)\n"
		"                                  for perf record -C N;\n"
		"                                  --line-map: where its source lines are in the\n"
		"                                  JIT images (scripts/profile.sh)\n"
		"       bench --veth-tx IF MAC SRC N  send N UDP frames from SRC out of veth IF\n"
		"                                  to its peer's MAC (live-frames test run);\n"
		"                                  prints ns per packet, send and receive\n"
		"       bench --xdp-drop IF        attach a drop-everything XDP program to IF\n"
		"Normally run by scripts/bench.sh (make bench); needs root.\n");
}

/* --only's comma-separated parts into settings.parts; -1 for an unknown one. */
static int parse_parts(const char *arg)
{
	static const struct {
		const char *name;
		unsigned int part;
	} parts[] = {
		{ "addr", PART_ADDR }, { "names", PART_NAMES }, { "load", PART_LOAD },
		{ "veth", PART_VETH }, { "live", PART_LIVE }, { "fpr", PART_FPR },
		{ "events", PART_EVENTS }, { "confirm", PART_CONFIRM }, { "daemon", PART_DAEMON },
		{ "whole", PART_WHOLE }, { "answers", PART_ANSWERS },
	};
	char buf[128], *tok, *save = NULL;
	size_t i;

	snprintf(buf, sizeof(buf), "%s", arg);
	settings.parts = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < ARRAY_SIZE(parts) && strcmp(tok, parts[i].name); i++)
			;
		if (i == ARRAY_SIZE(parts)) {
			bench_warn("--only: no part \"%s\" (addr, names, load, veth, live, fpr, "
				   "events, confirm, daemon, whole)\n", tok);
			return -1;
		}
		settings.parts |= parts[i].part;
	}
	return settings.parts ? 0 : -1;
}

/* 0, or the exit code: 2 for a usage error, 0 with *done for --help. */
static int parse_options(int argc, char **argv, struct modes *m, bool *done)
{
	static const struct option long_opts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "out", required_argument, NULL, 'o' },
		{ "lists", required_argument, NULL, 'l' },
		{ "load-results", required_argument, NULL, 'r' },
		{ "rounds", required_argument, NULL, 'R' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "only", required_argument, NULL, 'O' },
		{ "gen", required_argument, NULL, 'g' },
		{ "gen-nft", required_argument, NULL, 'n' },
		{ "sizes", no_argument, NULL, 's' },
		{ "profile", required_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 'S' },
		{ "line-map", required_argument, NULL, 'L' },
		{ "veth-tx", required_argument, NULL, 'T' },
		{ "xdp-drop", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int opt;

	settings.out_dir = "bench-results";
	settings.rounds = 0;
	settings.cpu = -1;
	settings.parts = PART_ALL;
	m->seconds = 10;
	while ((opt = getopt_long(argc, argv, "qo:l:r:R:c:O:g:n:sp:S:L:T:D:h", long_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'q': settings.quick = true; break;
		case 'o': settings.out_dir = optarg; break;
		case 'l': settings.lists_dir = optarg; break;
		case 'r': settings.load_results = optarg; break;
		case 'R': settings.rounds = atoi(optarg); break;
		case 'c': settings.cpu = atoi(optarg); break;
		case 'O':
			if (parse_parts(optarg))
				return 2;
			break;
		case 'g': m->gen = optarg; break;
		case 'n': m->gen_nft = optarg; break;
		case 's': m->sizes = true; break;
		case 'p': m->profile = optarg; break;
		case 'S': m->seconds = atof(optarg); break;
		case 'L': m->line_map = optarg; break;
		case 'T': m->veth_tx = optarg; break;
		case 'D': m->xdp_drop = optarg; break;
		case 'h': usage(stdout); *done = true; return 0;
		default: usage(stderr); return 2;
		}
	}
	return 0;
}

/* --veth-tx IF MAC SRC N: one timed send, its ns per packet on stdout. */
static int veth_tx_mode(const char *ifname, int argc, char **argv)
{
	double ns;
	int err;

	if (optind + 3 > argc) {
		usage(stderr);
		return 2;
	}
	err = bench_veth_tx(ifname, argv[optind], argv[optind + 1],
			    (__u32)strtoul(argv[optind + 2], NULL, 0), &ns);
	if (err) {
		bench_warn("--veth-tx %s: %s\n", ifname, strerror(-err));
		return 1;
	}
	printf("%.2f\n", ns);
	return 0;
}

/* --gen DIR LINES or --gen-nft FILE N: the generated lists as files. */
static int gen_mode(const struct modes *m, int argc, char **argv)
{
	char path[512];
	int err;
	__u32 n;

	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	n = (__u32)strtoul(argv[optind], NULL, 0);
	if (m->gen_nft) {
		err = bench_write_nft_file(m->gen_nft, n);
	} else {
		snprintf(path, sizeof(path), "%s/ip4.txt", m->gen);
		err = bench_write_ip4_file(path, n);
		snprintf(path, sizeof(path), "%s/names.txt", m->gen);
		err = err ?: bench_write_names_file(path, n);
	}
	if (err)
		bench_warn("writing lists: %s\n", strerror(-err));
	return err ? 1 : 0;
}

/* The sizes and repeats of a mode: --quick's smoke run, or the full run. */
static void set_mode(void)
{
	if (settings.quick) {
		settings.sizes[0] = 10000;
		settings.sizes[1] = 100000;
		settings.nsizes = 2;
		settings.cold_repeat = settings.hot_repeat = 100000;
		settings.name_repeat = 50000;
		settings.split_pairs = 300;
		settings.fpr_lookups = 100000;
		settings.names_n = 10000;
		settings.batch_sizes[0] = 10000;
		settings.batch_sizes[1] = 100000;
		settings.live_keys = 1000000;
		settings.live_items = 10000;
		settings.fpr_check_entries = 100000;
		settings.fpr_check_queries = 200000;
		settings.event_runs = 40000;
		settings.whole_checks = 2000;
		settings.rounds = settings.rounds ?: 3;
	} else {
		settings.sizes[0] = 10000;
		settings.sizes[1] = 1000000;
		settings.sizes[2] = 10000000;
		settings.nsizes = 3;
		settings.cold_repeat = settings.hot_repeat = 1000000;
		settings.name_repeat = 200000;
		settings.split_pairs = 2000;
		settings.fpr_lookups = 1000000;
		settings.names_n = 1000000;
		settings.batch_sizes[0] = 1000000;
		settings.batch_sizes[1] = 10000000;
		settings.live_keys = 10000000;
		settings.live_items = 100000;
		settings.fpr_check_entries = 1000000;
		settings.fpr_check_queries = 1000000;
		settings.event_runs = 1000000;
		settings.whole_checks = 20000;
		settings.rounds = settings.rounds ?: 7;
	}
}

/* One CPU: per-CPU counters stay in one slot, and the rows share the same core. */
static void pin_to_cpu(void)
{
	cpu_set_t set;

	if (settings.cpu < 0)
		settings.cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	CPU_ZERO(&set);
	CPU_SET(settings.cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		bench_warn("cannot pin to CPU %d: %s\n", settings.cpu, strerror(errno));
}

/*
 * Every part in turn (those of --only), then the targets on their figures, then the
 * report. The parts' results are static: each holds its tables, tens of KiB.
 */
static int run_all(void)
{
	static struct addr_results addr;
	static struct name_results names;
	static struct load_results load;
	static struct live_results live;
	static struct fpr_results fpr;
	static struct event_results events;
	static struct confirm_results confirm;
	static struct whole_results whole;
	static struct script_results script;
	static struct table veth, daemon, answers, targets;
	const struct {
		struct table *t;
		unsigned int part;
	} all[] = {
		{ &addr.cold_table, PART_ADDR }, { &addr.hot_table, PART_ADDR },
		{ &addr.allow_table, PART_ADDR }, { &names.table, PART_NAMES },
		{ &answers, PART_ANSWERS },
		{ &addr.memory_table, PART_ADDR }, { &addr.fpr_table, PART_ADDR },
		{ &load.table, PART_LOAD }, { &veth, PART_VETH }, { &daemon, PART_DAEMON },
		{ &live.live_table, PART_LIVE }, { &live.bbf_table, PART_LIVE },
		{ &fpr.table, PART_FPR }, { &events.table, PART_EVENTS },
		{ &confirm.table, PART_CONFIRM }, { &whole.ns_table, PART_WHOLE },
		{ &whole.x_table, PART_WHOLE }, { &whole.split_table, PART_WHOLE },
		{ &targets, PART_ALL },
	};
	struct table *tables[ARRAY_SIZE(all)];
	unsigned int parts = settings.parts;
	int err = 0, i, n = 0;

	if (parts & PART_ADDR) {
		err = addr_run(&addr);
		settle_memory();
	}
	if (!err && (parts & PART_NAMES))
		err = names_run(&names);
	if (!err && (parts & PART_ANSWERS))
		err = answer_run(&answers);
	if (settings.load_results && (parts & (PART_LOAD | PART_DAEMON | PART_VETH)))
		script_results_read(&script, settings.load_results);
	if (!err && (parts & PART_DAEMON))
		daemon_report(&daemon, &script);
	if (!err && (parts & PART_VETH))
		veth_report(&veth, &script);
	if (!err && (parts & PART_LOAD))
		err = load_run(&load, &script);
	if (!err && (parts & PART_LIVE)) {
		settle_memory();
		err = live_run(&live);
	}
	if (!err && (parts & PART_FPR))
		err = fpr_run(&fpr);
	if (!err && (parts & PART_EVENTS))
		err = events_run(&events);
	if (!err && (parts & PART_CONFIRM))
		err = confirm_run(&confirm);
	if (!err && (parts & PART_WHOLE)) {
		settle_memory();
		err = whole_run(&whole);
	}
	if (err) {
		bench_warn("stopped: %s\n", strerror(-err));
		return 1;
	}
	report_targets(&targets, parts & PART_ADDR ? &addr : NULL,
		       parts & PART_NAMES ? &names : NULL, parts & PART_LOAD ? &load : NULL,
		       parts & PART_LIVE ? &live : NULL, parts & PART_FPR ? &fpr : NULL,
		       parts & PART_EVENTS ? &events : NULL, parts & PART_CONFIRM ? &confirm : NULL,
		       parts & PART_WHOLE ? &whole : NULL);
	for (i = 0; i < (int)ARRAY_SIZE(all); i++)
		if (all[i].part & parts)
			tables[n++] = all[i].t;
	fflush(stderr);
	report_print(stdout, tables, n);
	fflush(stdout);
	err = report_write_files(tables, n);
	for (i = 0; i < n; i++)
		table_free(tables[i]);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct modes m = { 0 };
	bool done = false;
	int err;

	err = parse_options(argc, argv, &m, &done);
	if (err || done)
		return err;
	if (m.xdp_drop) {
		err = bench_xdp_drop_attach(m.xdp_drop);
		if (err)
			bench_warn("--xdp-drop %s: %s\n", m.xdp_drop, strerror(-err));
		return err ? 1 : 0;
	}
	if (m.veth_tx)
		return veth_tx_mode(m.veth_tx, argc, argv);
	if (m.gen || m.gen_nft)
		return gen_mode(&m, argc, argv);
	set_mode();
	if (m.sizes) {
		/* for scripts/bench.sh: load-path lines, then the nft sizes */
		printf("%u %u %u\n", settings.batch_sizes[1], settings.batch_sizes[0],
		       settings.batch_sizes[1]);
		return 0;
	}
	if (settings.rounds < 1 || settings.rounds > MAX_ROUNDS) {
		bench_warn("--rounds: 1 to %d\n", MAX_ROUNDS);
		return 2;
	}
	if (geteuid()) {
		bench_warn("needs root (BPF_PROG_TEST_RUN, map creation)\n");
		return 1;
	}
	pin_to_cpu();
	libbpf_set_print(NULL);
	if (m.profile)
		return profile_run(m.profile, m.seconds, m.line_map) ? 1 : 0;
	return run_all();
}

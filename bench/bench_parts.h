/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver's parts and what passes between them: the run's settings (bench.c), the
 * filters and test runs every part times with (bench_bpf.c), what scripts/bench.sh
 * measured (script_results.c), and per part its tables and the figures the targets are
 * judged on (struct addr_results, struct name_results, struct load_results, struct
 * live_results, struct fpr_results, struct event_results).
 */
#ifndef BENCH_PARTS_H
#define BENCH_PARTS_H

#include "bench.h"
#include "filter.h"

#define MAX_SIZES		3
#define BENCH_SEED		0x62656e6368ULL	/* "bench": filters are reproducible */
#define MIB			(1024.0 * 1024.0)

struct bench;	/* the skeleton of bpf/bench.bpf.c (bench.skel.h) */

/* ---- the run's settings: the options and what --quick or the full run sets (bench.c) ---- */

struct bench_settings {
	bool quick;
	const char *out_dir;		/* the Markdown and CSV files */
	const char *lists_dir;		/* the generated lists of the in-process load path */
	const char *load_results;	/* what scripts/bench.sh measured */
	int rounds;			/* samples per figure */
	int cpu;			/* the one CPU the test runs are pinned to */
	__u32 sizes[MAX_SIZES];		/* the address rows' list sizes, the last the largest */
	int nsizes;
	__u32 cold_repeat, hot_repeat, name_repeat;	/* test runs per sample */
	__u32 split_pairs;		/* new flows per sample of a split ClientHello */
	__u32 fpr_lookups;		/* cold non-member lookups per structure */
	__u32 names_n;			/* generated names (and addresses) of the name rows */
	/* the hash map's batch rows and the nft sets; the last also the load path's lines */
	__u32 batch_sizes[2];
	__u32 live_keys, live_items;	/* the live rows' filter, and items per add or del */
	__u32 fpr_check_entries;	/* the per-check FPR rows' lists */
	__u32 fpr_check_queries;	/* ... and random non-members a row */
	__u32 event_runs;		/* the events part's runs per sample (EV_CHUNK a test run) */
	__u32 whole_checks;		/* the whole part's single runs a verdict check */
	unsigned int parts;		/* --only: the parts to run (enum bench_part bits) */
};

/* The driver's parts, for --only: each one's tables, and the targets judged on it. */
enum bench_part {
	PART_ADDR = 1 << 0,	/* tables 1a, 1b, 1c, 3, 4 */
	PART_NAMES = 1 << 1,	/* table 2 */
	PART_LOAD = 1 << 2,	/* table 5 (with scripts/bench.sh's results) */
	PART_LIVE = 1 << 3,	/* tables 7a and 7b */
	PART_FPR = 1 << 4,	/* table 8 */
	PART_EVENTS = 1 << 5,	/* table 9 */
	PART_CONFIRM = 1 << 6,	/* table 10 */
	PART_DAEMON = 1 << 7,	/* table 11, from scripts/bench.sh's results */
	PART_WHOLE = 1 << 8,	/* tables 12a, 12b and 12c */
	PART_VETH = 1 << 9,	/* table 6, from scripts/bench.sh's results */
	PART_ANSWERS = 1 << 10,	/* table 2b */
	PART_ALL = (1 << 11) - 1,
};

/* Set by main() before any part runs; read-only after. */
extern struct bench_settings settings;

/* ---- what every part runs on (bench_bpf.c) ---- */

/* One BPF_PROG_TEST_RUN: average ns per run over repeat runs; retval may be NULL. */
int test_run(int prog_fd, const void *data, __u32 len, __u32 repeat, double *ns,
	     __u32 *retval);

/* The bench skeleton opened and loaded (the verifier walks every bloomblock program). */
int skeleton_load(struct bench **skel);

/*
 * A comparator map of a loaded skeleton filled with members 0..n-1 of the kind's
 * sequence (enum bench_fill_kind, bench_seq.h) by bench_fill, a bpf_loop program.
 */
int comparator_fill(struct bench *skel, int kind, __u32 n);

/* A bloomblock filter built by the real builder (bb_filter_build), in an inner map of its own. */
struct bench_filter {
	int fd;				/* the inner map; -1 when none */
	long long memlock;		/* bytes, as the kernel accounts it */
	long long sys_kb;		/* MemAvailable before and after its map */
	struct bb_header hdr;
	struct bb_plan plan;
	__u64 allow_items;		/* keys in its allowlist */
};

int filter_make(struct bench_filter *f, const struct bb_list *list, __u32 flags);
void filter_close(struct bench_filter *f);
/* Put an inner map into slot 0 of an outer map (a skeleton's `filters`). */
int filter_slot_set(int outer_fd, int inner_fd);
/* The per-packet FPR the filter plans: one trial per probe length of the family. */
double filter_fpr_per_packet(const struct bench_filter *f, bool ipv4);

/* Where the time of a push goes: create the map, mmap it, copy the image, munmap. */
struct push_times {
	double create, map, copy, unmap;
};

/*
 * The inner map as bb_filter_push() makes it, with the time of each step (t may be
 * NULL); populate: map all pages at mmap time (MAP_POPULATE), not one fault per page.
 * Sets filter->allow_hdr.map_id to the new map's id, as bb_filter_swap() does.
 * Returns the map's fd, or a negative errno.
 */
int filter_map_image(struct bb_filter *filter, bool populate, struct push_times *t);

/*
 * The kernel's XDP dispatcher kept holding a part's programs. A test run of XDP with
 * repeat > 1 puts its program into the dispatcher and takes it out again
 * (bpf_prog_change_xdp()): two image updates, each waiting for an RCU grace period,
 * 15 to 25 ms a test run here, asleep, after which the run starts on caches others
 * used meanwhile. A program the dispatcher holds already is only counted again: each
 * one is attached to a veth of a private network namespace (nothing reaches them),
 * which the driver enters until xdp_dispatch_free() takes it back.
 */
#define XDP_DISPATCH_MAX	16

struct xdp_dispatch {
	int old_ns;			/* the driver's own network namespace; -1: not left */
	int links[XDP_DISPATCH_MAX];
	int n;
	bool filled;			/* every program attached */
};

void xdp_dispatch_init(struct xdp_dispatch *d);
/* part: for messages; prefix: the veths' names (PREFIX0, PREFIX1, ...). */
void xdp_dispatch_fill(struct xdp_dispatch *d, const int *prog_fds, int n, const char *part,
		       const char *prefix);
void xdp_dispatch_free(struct xdp_dispatch *d);

/* ---- what scripts/bench.sh measured: its results file of "name value" lines ---- */

struct script_results {
	struct {
		char name[64], value[128];
	} line[256];
	int n;
};

/* A file that cannot be read gives no lines: every row it feeds says "not measured". */
void script_results_read(struct script_results *r, const char *path);
const char *script_value(const struct script_results *r, const char *name);
/* The value as a number; NAN when absent or not a number. */
double script_number(const struct script_results *r, const char *name);

/* ---- the address rows (bench_addr.c): tables 1a, 1b, 1c, 3 and 4 ---- */

/* Cache-cold, bloomblock's IPv4 filter and its comparators: medians and net of derive, ns. */
struct addr_cold {
	double bloomblock_ns, hash_ns, bloom_ns;
	double bloomblock_net_ns, hash_net_ns, bloom_net_ns;
	/* bloomblock over the HASH and BLOOM_FILTER rows, round by round, then the median */
	double bloomblock_x_hash, bloomblock_x_bloom;
};

/* Hot, IPv4: medians in ns, and each lookup row over parse+count, paired. */
struct addr_hot {
	double bloomblock_ns, parse_ns;
	double bloomblock_x_parse, ideal_x_parse, hash_x_parse;
};

/* bloomblock's IPv4 filter against the IPv4 hash map. */
struct addr_memory {
	double hash_bytes, bloomblock_bytes;	/* memlock */
	double bloomblock_bits_per_entry;
	double fpr_measured, fpr_planned;	/* per packet */
};

/*
 * bloomblock's IPv4 filter with ADDR_ALLOW_N allowlisted addresses against the same
 * filter without, one regime (cold, hot): medians in ns, and over the plain row
 * round by round, then the median (ratio, and difference in ns) and the range.
 */
#define ADDR_ALLOW_N		100000

struct addr_allow {
	double allow_ns, plain_ns;
	double x_plain, extra_ns;
	double x_min, x_max;		/* the rounds' ratios: how far noise takes them */
};

struct addr_results {
	struct table cold_table, hot_table, allow_table, memory_table, fpr_table;
	__u32 n;			/* the largest list size: the figures below are at it */
	struct addr_cold cold[2];	/* [0] members (hit), [1] non-members (miss) */
	struct addr_hot hot[2];
	struct addr_allow allow_cold[2], allow_hot[2];	/* [hit, miss] */
	struct addr_memory memory;
};

/* Every list size of settings.sizes, one after the other. */
int addr_run(struct addr_results *res);

/* ---- the name rows (bench_names.c): table 2 ---- */

enum name_proto { PROTO_DNS, PROTO_TLS, PROTO_TLS_SPLIT, PROTO_HTTP, PROTO_MAX };

extern const char *const proto_names[PROTO_MAX];

struct name_figures {
	double ns;		/* median */
	double x_ipv4_check;	/* over the IPv4 check run just before, paired */
};

struct name_results {
	struct table table;
	struct name_figures four_labels[PROTO_MAX][2];	/* [proto][hit, miss] */
	double ipv4_check_ns;	/* the IPv4 check (a miss) beside them, median */
};

int names_run(struct name_results *res);

/* ---- the answer rows (bench_answer.c): table 2b ---- */

int answer_run(struct table *t);

/* A name row's packet; a split ClientHello is two segments. */
struct name_pkt {
	__u8 data[PKT_MAX];
	size_t len;
	__u8 seg2[PKT_MAX];	/* split: the second segment */
	size_t len2;
};

/* The name a row asks for: "bb-hit.example" or a subdomain (hit), else a miss's variant. */
void name_for(char *buf, size_t size, int labels, bool hit, int variant);
/* The packet of one protocol that carries name, from a source no list holds. */
int name_pkt_build(struct name_pkt *p, enum name_proto proto, const char *name);

/* ---- the load path (bench_load.c): table 5 ---- */

/* One list's loads: the CLI's (scripts/bench.sh) and the in-process path's. */
struct list_load {
	double cli_wall_s;		/* first load: process start to exit, filter live */
	double cli_sum_s;		/* its own parse + build + push */
	double cli_reload_wall_s;
	double cli_reload_peak_rss;	/* bytes */
	double cli_peak_rss;		/* bytes */
	double cli_filter_bytes;
	double in_process_1t_s;		/* parse + build + push on 1 thread */
	double in_process_2t_s;		/* parse, build into the new map, swap: 2 threads */
};

/* The push of the built IPv4 filter, step by step, until live. */
struct push_figures {
	double bytes;
	double live_s, copy_s;		/* medians: until live, and its copy */
	struct st3 copy_share;		/* the copy's share of each push until live */
	double memcpy_warm_s;		/* the same bytes into memory already mapped */
};

struct load_results {
	struct table table;
	__u32 lines;			/* of each generated list */
	struct list_load ip4, names;
	struct push_figures push;
};

/*
 * The CLI's and nft's rows from script, then the in-process rows (if settings.lists_dir),
 * then a hash map's batch update of the same addresses.
 */
int load_run(struct load_results *res, const struct script_results *script);

/* ---- live add and delete, filter files (bench_live.c): tables 7a and 7b ---- */

/* One kind of change, over the rounds: each step's seconds, and the whole. */
struct live_op {
	struct st3 open, stage, commit, total;
	bool shadow_built;		/* the open built the shadow (every round) */
};

struct live_results {
	struct table live_table, bbf_table;
	__u32 keys, items;		/* settings.live_keys, live_items */
	/* table 7a: [0] the first add after a load (no shadow kept), [1] an add, [2] a del */
	struct live_op op[3];
	double shadow_build_s;		/* its open over a kept shadow's, round by round */
	double index_bytes, shadow_bytes;	/* the files after the last round */
	double keys_held;		/* the index's records then */
	double plain_shadow_bytes;	/* the shadow of the filter sized for keys alone */
	double fp_after;		/* the worst check's rate after the last commit */
	/* table 7b: medians, s, and the ratios round by round */
	double bbf_bytes;		/* the image */
	double bbf_load_s;		/* bbf_open (every checksum) + copy into fresh memory */
	double memcpy_fresh_s, memcpy_warm_s;
	double rebuild_s;		/* bb_filter_build of the same list, 2 threads */
	double bbf_x_memcpy;		/* bbf_load_s over memcpy_fresh_s, paired */
	double bbf_x_rebuild;		/* bbf_load_s over rebuild_s, medians */
};

/* The 10^7-key (settings.live_keys) IPv4 filter: live changes, then its filter file. */
int live_run(struct live_results *res);

/* ---- the false-positive rate of one check, by kind (bench_fpr.c): table 8 ---- */

#define FPR_LISTS		5	/* IPv4 /32s, CIDR-heavy, names, URLs, mixed */

struct fpr_results {
	struct table table;
	__u32 entries, queries;		/* settings.fpr_check_entries, fpr_check_queries */
	int rows, passed;		/* rows, and those not significantly above --fp */
	__u64 bad;			/* queries not parsed as their kind (must be 0) */
	__u64 covered;			/* address queries a listed prefix covers: left out */
	__u64 members, found;		/* members matched, over every list and --fp */
	double highest_x;		/* the highest measured rate over its --fp */
	char highest[200];		/* ... that row */
	__u64 keys[FPR_LISTS];
	unsigned int addr_plens[FPR_LISTS];
	char list_notes[FPR_LISTS][160];
	double seconds;
};

/* Each list at each --fp: its members, and random non-members of each check kind. */
int fpr_run(struct fpr_results *res);

/* ---- hit events (bench_events.c): table 9 ---- */

/*
 * A row against its reference (events on against off, the ring against parse+count),
 * one outcome: medians in ns, the ratio and the difference round by round, then the
 * median, and the range of the rounds' ratios.
 */
struct ev_cmp {
	double ns, ref_ns;
	double x, extra_ns;
	double x_min, x_max;
};

struct event_results {
	struct table table;
	__u32 n;			/* the IPv4 list's size: the largest of settings.sizes */
	/* events on (every event raised) against off: misses, then hits */
	struct ev_cmp cold_miss, hot_miss, hot_hit, cold_hit;
	/* every event refused by the limit; a flood at the default rate: against off */
	struct ev_cmp hot_limited, cold_limited, hot_flood, cold_flood;
	/* the ring alone against parse+count: reserve + submit, and the record written;
	 * the clock read and the frame's copy of an event's path, alone */
	struct ev_cmp ring, ring_written, ktime, ktime_coarse, capture;
	__u64 all_hits, all_raised, all_not_raised;	/* the every-event rows' hit runs */
	__u64 flood_hits, flood_raised;
	double flood_wall_s;		/* the flood's samples, from each bucket's emptying */
	double flood_rate;		/* events a second of them */
	int checks_failed;		/* rows whose check is not ok */
	double seconds;
};

/* The IPv4 filter without and with events, hot and cold, events off and on. */
int events_run(struct event_results *res);

/* ---- confirm mode (bench_confirm.c): table 10 ---- */

struct confirm_results {
	struct table table;
	__u32 n;
	/* answers a second, medians and the lowest round: listed, false positive, the
	 * lookup alone, through the ring */
	double rate[4], rate_min[4];
	/* the window, idle [0] and flooded [1]: us median and p99, packets median, max */
	double win_us[2], win_us_p99[2], win_us_max[2], win_pkts[2], win_pkts_max[2];
	double flood_rate;		/* the flood's new listed hits a second */
	int failed;
	double seconds;
};

int confirm_run(struct confirm_results *res);

/* ---- the whole program (bench_whole.c): tables 12a, 12b and 12c ---- */

/* The rows' programs: enum bench_whole_slot (bench_seq.h), BENCH_W_EMPTY .. BENCH_W_BB. */
#define WHOLE_PROGS		6
#define WHOLE_FAMILIES		2	/* IPv4, IPv6 */

enum whole_outcome { WO_HOT_HIT, WO_HOT_MISS, WO_COLD_MISS, WO_COLD_HIT, WO_MAX };

extern const char *const whole_outcome_names[WO_MAX];

/* One row over another, round by round: the median, the rounds' range, both medians. */
struct whole_x {
	double x, x_min, x_max;
	double ns, ref_ns;
};

struct whole_results {
	struct table ns_table, x_table, split_table;
	__u32 n;			/* the largest size: the figures below are at it */
	/* bloomblock_xdp over each program, [family][program][outcome] */
	struct whole_x bb[WHOLE_FAMILIES][WHOLE_PROGS][WO_MAX];
	struct whole_x v6_x_v4[WO_MAX];	/* bloomblock_xdp, IPv6 over IPv4 */
	struct whole_x min_v6_x_v4[WO_MAX];	/* the minimal program's */
	int checks_failed;
	double seconds;
};

/* The last two list sizes (10^6 and 10^7), each family, every program, round by round. */
int whole_run(struct whole_results *res);

/* ---- the veth part's table (veth.c): table 6, from script ---- */

void veth_report(struct table *table, const struct script_results *script);

/* ---- the daemon's table (daemon.c): table 11, from script ---- */

void daemon_report(struct table *table, const struct script_results *script);

/* ---- the targets and the report (bench_report.c) ---- */

/* The targets of the parts that ran (settings.parts); the others' are not judged. */
void report_targets(struct table *table, const struct addr_results *addr,
		    const struct name_results *names, const struct load_results *load,
		    const struct live_results *live, const struct fpr_results *fpr,
		    const struct event_results *events, const struct confirm_results *confirm,
		    const struct whole_results *whole);
/* The header and every table as text on f. */
void report_print(FILE *f, struct table *const *tables, int n);
/* The same as Markdown and CSV in settings.out_dir: stamped, and as latest. */
int report_write_files(struct table *const *tables, int n);

/* ---- --profile (bench_profile.c): one row in a loop, for perf ---- */

int profile_run(const char *row, double seconds, const char *line_map);

#endif /* BENCH_PARTS_H */

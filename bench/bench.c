// SPDX-License-Identifier: GPL-2.0
/*
 * `make bench`'s driver: per-packet cost (BPF_PROG_TEST_RUN), memory, measured FPR and
 * the load path of bloomblock next to a hash map, an LPM trie, the kernel's Bloom
 * filter map and nftables, all in one run. docs/BENCHMARKS.md explains every number.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bb_hash.h"
#include "bench.h"
#include "bench_seq.h"
#include "bench.skel.h"	/* after bench_seq.h: its .bss holds struct bench_cfg */
#include "filter.h"
#include "list.h"
#include "pins.h"

#define BENCH_SEED	0x62656e6368ULL	/* "bench": filters are reproducible */
#define MAX_ROUNDS	15
#define MAX_SIZES	3
#define MISS_SPAN	BENCH_M31	/* non-members: the counter practically never wraps */
#define FPR_START	(1U << 30)	/* FPR runs use non-members no timed run used */
#define DISCARD_PORT	9
#define MIB		(1024.0 * 1024.0)

static struct {
	bool quick;
	const char *out_dir;
	const char *lists_dir;
	const char *load_results;
	int rounds, cpu, ncpus;
	__u32 sizes[MAX_SIZES];
	int nsizes;
	__u32 cold_repeat, hot_repeat, name_repeat, split_pairs, fpr_lookups, names_n;
	__u32 batch_sizes[2];
} cfg;

/* Every figure the targets are judged on, filled as the sections run. */
static struct {
	__u32 n_max;				/* the largest list size measured */
	double cold[16][2], cold_net[16][2];	/* [row][hit=0/miss=1] at n_max, ns */
	/* bloomblock IPv4 over the HASH and BLOOM_FILTER rows, round by round, median */
	double cold_x_hash[2], cold_x_bloom[2];
	double hot[16][2], hot_x_parse[16][2], hot_net[16][2];
	double name4[4][2], name4_x[4][2];	/* [dns, tls, tls split, http][hit/miss] */
	double ipv4_ref;			/* the IPv4 check (a miss) beside the names */
	double bb_bits, hash_bytes, bb_bytes, bb_fpr_measured, bb_fpr_plan;
	double load_ip4_1t, load_ip4_2t, load_names_1t, load_names_2t;	/* parse+build+push, s */
	double cli_ip4_wall, cli_names_wall, cli_ip4_sum, cli_names_sum;
	double cli_ip4_reload_wall, cli_names_reload_wall;
	double cli_ip4_rss, cli_names_rss, cli_ip4_filter, cli_names_filter;	/* bytes */
	double push_live_s, push_copy_s, swap_s, swap_live_s, memcpy_fresh_s, memcpy_warm_s;
	double push_share, push_share_min, push_share_max;	/* the copy's, over the pushes */
	double push_bytes;
	__u32 load_lines;
} key;

static struct table t_cold, t_hot, t_names, t_mem, t_fpr, t_load, t_veth, t_targets;

/* ---- small helpers ---- */

static void warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("bench: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("  .. ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static const char *pow10_name(__u32 n, char *buf, size_t size)
{
	int e = 0;
	__u32 m = n;

	while (m >= 10 && m % 10 == 0) {
		m /= 10;
		e++;
	}
	if (m == 1 && e >= 3)
		snprintf(buf, size, "10^%d", e);
	else
		snprintf(buf, size, "%u", n);
	return buf;
}

static char *fmtf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static char *fmtf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return buf;
}

static double median_of(const double *v, int n)
{
	struct st3 s;

	st3_of(&s, v, n);
	return s.med;
}

/*
 * Wait while the kernel is still freeing the maps of the last step (RCU, workqueues):
 * it competes for the CPUs and makes MemAvailable deltas lie.
 */
static void settle_memory(void)
{
	long long prev = mem_available_kb(), cur;
	double t0 = now_s();

	for (;;) {
		usleep(250000);
		cur = mem_available_kb();
		if (cur - prev < 4096 || now_s() - t0 > 60)
			break;
		prev = cur;
	}
}

/* One BPF_PROG_TEST_RUN: average ns per run over repeat runs. */
static int test_run(int prog_fd, const void *data, __u32 len, __u32 repeat, double *ns,
		    __u32 *retval)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = data,
		.data_size_in = len,
		.repeat = repeat,
	);
	int err = bpf_prog_test_run_opts(prog_fd, &opts);

	if (err)
		return err;
	*ns = opts.duration;
	if (retval)
		*retval = opts.retval;
	return 0;
}

/* ---- the cold programs' per-CPU counter ---- */

static struct bench_cpu *percpu;

static int state_read(int fd, __u64 *runs, __u64 *hits)
{
	__u32 zero = 0;
	int cpu;

	if (bpf_map_lookup_elem(fd, &zero, percpu))
		return -errno;
	*runs = *hits = 0;
	for (cpu = 0; cpu < cfg.ncpus; cpu++) {
		*runs += percpu[cpu].runs;
		*hits += percpu[cpu].hits;
	}
	return 0;
}

/* Every CPU starts at index next: the rows of one round derive the same addresses. */
static int state_start(int fd, __u64 next)
{
	__u32 zero = 0;
	int cpu;

	if (bpf_map_lookup_elem(fd, &zero, percpu))
		return -errno;
	for (cpu = 0; cpu < cfg.ncpus; cpu++)
		percpu[cpu].next = next;
	return bpf_map_update_elem(fd, &zero, percpu, BPF_ANY) ? -errno : 0;
}

/* ---- bloomblock filters: built by the real builder, one inner map each, kept ---- */

struct bbf {
	int fd;				/* the inner map */
	__u64 list_entries;
	size_t bytes;			/* map image */
	long long memlock, sys_kb;
	struct bb_header hdr;
	struct bb_plan plan;
	double build_s;
};

/*
 * The inner map as bb_filter_push() makes it, with the timing of each step;
 * populate: map all pages at mmap time (MAP_POPULATE) instead of one fault per page.
 */
/* Where the time of a push goes: create the map, mmap it, copy the image, munmap. */
struct push_times {
	double create, map, copy, unmap;
};

#define PUSH_SAMPLES	9	/* pushes timed step by step (the tables say "9"); memcpy: 5 */

static int bbf_map(const struct bb_filter *filter, bool populate, struct push_times *t)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	__u64 elements = bb_filter_elements(filter->hdr.nblocks);
	size_t size = elements * BB_BLOCK_BYTES, page = sysconf(_SC_PAGESIZE);
	size_t map_len = (size + page - 1) / page * page;
	double t0 = now_s(), t1, t2, t3;
	void *mem;
	int fd;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bb_filter", sizeof(__u32), BB_BLOCK_BYTES,
			    (__u32)elements, &opts);
	if (fd < 0)
		return -errno;
	t1 = now_s();
	mem = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | (populate ? MAP_POPULATE : 0), fd, 0);
	if (mem == MAP_FAILED) {
		int err = -errno;

		close(fd);
		return err;
	}
	t2 = now_s();
	bb_filter_write_image(filter, mem);
	t3 = now_s();
	munmap(mem, map_len);
	if (t)
		*t = (struct push_times){ .create = t1 - t0, .map = t2 - t1, .copy = t3 - t2,
					  .unmap = now_s() - t3 };
	return fd;
}

static int bbf_make(struct bbf *f, const struct bb_list *list, __u32 flags)
{
	struct bb_filter_opts opts = { .seed = BENCH_SEED, .flags = flags };
	struct bb_filter filter;
	long long m0;
	double t0 = now_s();
	int err;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	err = bb_filter_build(&filter, list, &opts);
	if (err) {
		warnx("bb_filter_build: %s\n", strerror(-err));
		return err;
	}
	f->build_s = now_s() - t0;
	filter.hdr.generation = 1;
	m0 = mem_available_kb();
	f->fd = bbf_map(&filter, false, NULL);
	f->sys_kb = m0 - mem_available_kb();
	if (f->fd < 0) {
		err = f->fd;
		warnx("filter map: %s\n", strerror(-err));
	}
	f->list_entries = list->n;
	f->bytes = bb_filter_elements(filter.hdr.nblocks) * BB_BLOCK_BYTES;
	f->hdr = filter.hdr;
	f->plan = filter.plan;
	f->memlock = f->fd >= 0 ? map_memlock(f->fd) : -1;
	bb_filter_free(&filter);
	return err;
}

static void bbf_close(struct bbf *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

static int slot_set(int outer_fd, int inner_fd)
{
	__u32 zero = 0;

	return bpf_map_update_elem(outer_fd, &zero, &inner_fd, BPF_ANY) ? -errno : 0;
}

/* Per packet (key) FPR of a non-member address: one trial per probe length. */
static double bbf_fpr_packet(const struct bbf *f, int v4)
{
	double p = bb_blocked_fpr((double)f->hdr.items, f->hdr.nblocks, f->hdr.k);
	unsigned int probes = v4 ? f->hdr.n_v4_plens : f->hdr.n_v6_plens;

	return 1.0 - pow(1.0 - p, probes);
}

/* ---- section 1, 3, 4: one list size ---- */

enum cold_row {
	C_EMPTY, C_DERIVE, C_HASH, C_LPM, C_BLOOM, C_BB4, C_HASH6, C_LPM6, C_BB6, C_BBCIDR,
	C_LPMCIDR, C_MAX,
};

enum hot_row {
	H_EMPTY, H_PARSE4, H_PARSE6, H_HASH, H_LPM, H_BLOOM, H_IDEAL, H_BB4, H_HASH6, H_LPM6,
	H_BB6, H_BBCIDR, H_LPMCIDR, H_MAX,
};

enum filter_kind { F_NONE = -1, F_V4, F_V6, F_CIDR, F_MAX };

struct size_run {
	__u32 n;
	struct bench *skel;
	int cmp_fd[BENCH_FILL_MAX];	/* the comparator maps (cmp_maps[]) */
	long long sys_kb[BENCH_FILL_MAX];	/* and what each took: create + fill */
	int state_fd, outer_fd;
	struct bbf filt[F_MAX];
	double load_s;
	__u32 cidr_hit_j, cidr_miss_j;
	/* each sample, and the floor (empty) and reference (derive, parse) run just before it */
	double cold[C_MAX][2][MAX_ROUNDS], cold_floor[C_MAX][2][MAX_ROUNDS];
	double cold_ref[C_MAX][2][MAX_ROUNDS];
	__u64 cold_runs[C_MAX][2], cold_hits[C_MAX][2];
	double hot[H_MAX][2][MAX_ROUNDS], hot_floor[H_MAX][2][MAX_ROUNDS];
	double hot_ref[H_MAX][2][MAX_ROUNDS];
	int hot_bad[H_MAX][2];
	__u64 fpr_runs[C_MAX], fpr_hits[C_MAX];
};

static int fill_map(struct size_run *s, enum bench_fill_kind kind, __u32 n)
{
	const __u32 chunk = 1U << 20;
	__u8 pkt[64] = { 0 };
	double ns;
	__u32 done, ret;
	int err, fd = bpf_program__fd(s->skel->progs.bench_fill);

	s->skel->bss->bench_cfg.fill_kind = kind;
	s->skel->bss->bench_cfg.fill_errors = 0;
	for (done = 0; done < n; done += chunk) {
		s->skel->bss->bench_cfg.fill_start = done;
		s->skel->bss->bench_cfg.fill_count = n - done < chunk ? n - done : chunk;
		err = test_run(fd, pkt, sizeof(pkt), 1, &ns, &ret);
		if (err)
			return err;
	}
	if (s->skel->bss->bench_cfg.fill_errors) {
		warnx("fill %d: %u updates failed\n", kind, s->skel->bss->bench_cfg.fill_errors);
		return -EIO;
	}
	return 0;
}

/* The comparator maps, by the fill kind that fills them; named as in bpf/bench.bpf.c. */
static const struct {
	const char *name;
	enum bpf_map_type type;
	__u32 key_size;
	__u32 flags;
} cmp_maps[BENCH_FILL_MAX] = {
	[BENCH_FILL_HASH] = { "bench_hash", BPF_MAP_TYPE_HASH, 4, 0 },
	[BENCH_FILL_LPM] = { "bench_lpm", BPF_MAP_TYPE_LPM_TRIE, sizeof(struct bench_lpm_key),
			     BPF_F_NO_PREALLOC },
	[BENCH_FILL_LPM_CIDR] = { "bench_lpm_cidr", BPF_MAP_TYPE_LPM_TRIE,
				  sizeof(struct bench_lpm_key), BPF_F_NO_PREALLOC },
	/* key size 0, map_extra 0: the kernel's default of 5 hash functions */
	[BENCH_FILL_BLOOM] = { "bench_bloom", BPF_MAP_TYPE_BLOOM_FILTER, 0, 0 },
	[BENCH_FILL_HASH6] = { "bench_hash6", BPF_MAP_TYPE_HASH, 16, 0 },
	[BENCH_FILL_LPM6] = { "bench_lpm6", BPF_MAP_TYPE_LPM_TRIE, sizeof(struct bench_lpm6_key),
			      BPF_F_NO_PREALLOC },
};

static int create_maps(struct size_run *s)
{
	int i;

	for (i = 0; i < BENCH_FILL_MAX; i++) {
		LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = cmp_maps[i].flags);
		long long m0 = mem_available_kb();

		s->cmp_fd[i] = bpf_map_create(cmp_maps[i].type, cmp_maps[i].name,
					      cmp_maps[i].key_size, 4, s->n, &opts);
		s->sys_kb[i] = m0 - mem_available_kb();
		if (s->cmp_fd[i] < 0) {
			warnx("comparator map %s for n=%u: %s\n", cmp_maps[i].name, s->n,
			      strerror(errno));
			return -ENOMEM;
		}
	}
	return 0;
}

/* The lower-bound row's one member: the hot hit's address, as a /32 key. */
static void ideal_fill(struct bench *skel)
{
	__u8 a[16];
	__u64 h;

	bench_addr(0, 0, a);
	h = bb_hash_ip4_word(bb_key_ip4_word(a, 32), BENCH_IDEAL_SEED);
	bb_block_set(&skel->bss->bench_ideal[bb_block_of(h, BENCH_IDEAL_BLOCKS)], h, BB_WORDS);
}

static int load_skeleton(struct size_run *s)
{
	double t0 = now_s();
	int err, i;

	s->skel = bench__open();
	if (!s->skel)
		return -errno;
	for (i = 0; i < BENCH_FILL_MAX; i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(s->skel->obj, cmp_maps[i].name);

		err = map ? bpf_map__reuse_fd(map, s->cmp_fd[i]) : -ENOENT;
		if (err)
			return err;
	}
	err = bench__load(s->skel);
	err = err ?: bb_url_tables_fill(s->skel->obj, BB_FAMILY_ALL);
	if (err)
		return err;
	s->load_s = now_s() - t0;
	ideal_fill(s->skel);
	s->state_fd = bpf_map__fd(s->skel->maps.bench_state);
	s->outer_fd = bpf_map__fd(s->skel->maps.filters);
	return 0;
}

static void size_run_free(struct size_run *s)
{
	int i;

	for (i = 0; i < F_MAX; i++)
		bbf_close(&s->filt[i]);
	bench__destroy(s->skel);
	s->skel = NULL;
	for (i = 0; i < BENCH_FILL_MAX; i++) {
		if (s->cmp_fd[i] >= 0)
			close(s->cmp_fd[i]);
		s->cmp_fd[i] = -1;
	}
}

static int cold_prog(const struct size_run *s, int row, int *slot)
{
	const struct bench *k = s->skel;

	*slot = F_NONE;
	switch (row) {
	case C_EMPTY: return bpf_program__fd(k->progs.bench_empty);
	case C_DERIVE: return bpf_program__fd(k->progs.bench_derive);
	case C_HASH: return bpf_program__fd(k->progs.bench_hash_cold);
	case C_LPM: return bpf_program__fd(k->progs.bench_lpm_cold);
	case C_HASH6: return bpf_program__fd(k->progs.bench_hash6_cold);
	case C_LPM6: return bpf_program__fd(k->progs.bench_lpm6_cold);
	case C_LPMCIDR: return bpf_program__fd(k->progs.bench_lpm_cidr_cold);
	case C_BLOOM: return bpf_program__fd(k->progs.bench_bloom_cold);
	case C_BB4: *slot = F_V4; return bpf_program__fd(k->progs.bench_bb_ip4_cold);
	case C_BB6: *slot = F_V6; return bpf_program__fd(k->progs.bench_bb_ip6_cold);
	case C_BBCIDR: *slot = F_CIDR; return bpf_program__fd(k->progs.bench_bb_ip4_cold);
	}
	return -1;
}

static const char *const cold_names[C_MAX] = {
	[C_EMPTY] = "empty XDP (floor)",
	[C_DERIVE] = "derive only (counter + address)",
	[C_HASH] = "BPF_MAP_TYPE_HASH",
	[C_LPM] = "BPF_MAP_TYPE_LPM_TRIE",
	[C_BLOOM] = "BPF_MAP_TYPE_BLOOM_FILTER (k=5)",
	[C_BB4] = "bloomblock IPv4",
	[C_HASH6] = "BPF_MAP_TYPE_HASH IPv6",
	[C_LPM6] = "BPF_MAP_TYPE_LPM_TRIE IPv6",
	[C_BB6] = "bloomblock IPv6",
	[C_BBCIDR] = "bloomblock CIDR-heavy",
	[C_LPMCIDR] = "LPM_TRIE CIDR-heavy",
};

static const char *const hot_names[H_MAX] = {
	[H_EMPTY] = "empty XDP (floor)",
	[H_PARSE4] = "parse+count IPv4",
	[H_PARSE6] = "parse+count IPv6",
	[H_HASH] = "parse + HASH",
	[H_LPM] = "parse + LPM_TRIE",
	[H_BLOOM] = "parse + BLOOM_FILTER",
	[H_IDEAL] = "parse + Bloom test, no map (lower bound)",
	[H_BB4] = "bloomblock_xdp IPv4",
	[H_HASH6] = "parse + HASH IPv6",
	[H_LPM6] = "parse + LPM_TRIE IPv6",
	[H_BB6] = "bloomblock_xdp IPv6",
	[H_BBCIDR] = "bloomblock_xdp CIDR-heavy",
	[H_LPMCIDR] = "parse + LPM_TRIE CIDR-heavy",
};

struct hot_pkt {
	__u8 data[PKT_MAX];
	size_t len;
};

/* Is the address (host order) inside a prefix of the n-entry CIDR-heavy list? */
static bool cidr_covered(__u32 addr, __u32 n)
{
	__u32 j;

	for (j = 0; j < n; j++) {
		__u32 mask = bench_mask4(bench_cidr_plen(j));

		if ((addr & mask) == (bench_ip4(j, 0) & mask))
			return true;
	}
	return false;
}

/* The member with the shortest long prefix: its hit comes at the last probe length. */
static __u32 cidr_worst_member(__u32 n)
{
	__u32 j, best = BENCH_CIDR_SHORT, lim = n < 200000 ? n : 200000;

	for (j = BENCH_CIDR_SHORT; j < lim; j++)
		if (bench_cidr_plen(j) < bench_cidr_plen(best))
			best = j;
	return best;
}

static int hot_prog(const struct size_run *s, int row, int *slot, int *pkt_kind, bool *lookup)
{
	const struct bench *k = s->skel;

	*slot = F_NONE;
	*pkt_kind = F_V4;
	*lookup = true;
	switch (row) {
	case H_EMPTY: *lookup = false; return bpf_program__fd(k->progs.bench_empty);
	case H_PARSE4: *lookup = false; return bpf_program__fd(k->progs.bench_parse);
	case H_PARSE6:
		*lookup = false;
		*pkt_kind = F_V6;
		return bpf_program__fd(k->progs.bench_parse);
	case H_HASH: return bpf_program__fd(k->progs.bench_hash_hot);
	case H_LPM: return bpf_program__fd(k->progs.bench_lpm_hot);
	case H_BLOOM: return bpf_program__fd(k->progs.bench_bloom_hot);
	case H_IDEAL: return bpf_program__fd(k->progs.bench_bloom_ideal_hot);
	case H_HASH6: *pkt_kind = F_V6; return bpf_program__fd(k->progs.bench_hash6_hot);
	case H_LPM6: *pkt_kind = F_V6; return bpf_program__fd(k->progs.bench_lpm6_hot);
	case H_LPMCIDR: *pkt_kind = F_CIDR; return bpf_program__fd(k->progs.bench_lpm_cidr_hot);
	case H_BB4: *slot = F_V4; return bpf_program__fd(k->progs.bloomblock_xdp);
	case H_BB6: *slot = F_V6; *pkt_kind = F_V6; return bpf_program__fd(k->progs.bloomblock_xdp);
	case H_BBCIDR:
		*slot = F_CIDR;
		*pkt_kind = F_CIDR;
		return bpf_program__fd(k->progs.bloomblock_xdp);
	}
	return -1;
}

/* One cold run of a row from index start; what hit goes to the row's counters. */
static int cold_one(struct size_run *s, int row, __u64 start, double *ns, int *live)
{
	__u8 dummy[64] = { 0 };
	__u64 runs0, hits0, runs1, hits1;
	int slot, err, fd = cold_prog(s, row, &slot);

	if (slot != F_NONE && slot != *live) {
		err = slot_set(s->outer_fd, s->filt[slot].fd);
		if (err)
			return err;
		*live = slot;
	}
	err = state_start(s->state_fd, start);
	err = err ?: state_read(s->state_fd, &runs0, &hits0);
	err = err ?: test_run(fd, dummy, sizeof(dummy), cfg.cold_repeat, ns, NULL);
	err = err ?: state_read(s->state_fd, &runs1, &hits1);
	if (err)
		return err;
	s->cold_runs[row][s->skel->bss->bench_cfg.miss] += runs1 - runs0;
	s->cold_hits[row][s->skel->bss->bench_cfg.miss] += hits1 - hits0;
	return 0;
}

/* Median over the rounds of a / b, or of a - b, sample by sample. */
static double paired(const double *a, const double *b, int n, bool ratio)
{
	double v[MAX_ROUNDS];
	int i;

	for (i = 0; i < n; i++)
		v[i] = ratio ? (b[i] > 0 ? a[i] / b[i] : NAN) : a[i] - b[i];
	return median_of(v, n);
}

static int measure_size(struct size_run *s)
{
	static struct hot_pkt pk[F_MAX][2];	/* [v4, v6, cidr][hit, miss] */
	__u8 dummy[64] = { 0 }, payload[16] = "bloomblock bench";
	int r, row, o, err, slot = F_NONE, live = -2;

	for (o = 0; o < 2; o++) {
		__u8 a[16];

		bench_addr(0, o, a);
		pk[F_V4][o].len = pkt_udp4(pk[F_V4][o].data, a, 40000, DISCARD_PORT, payload,
					   sizeof(payload));
		pk[F_V6][o].len = pkt_udp6(pk[F_V6][o].data, a, 40000, DISCARD_PORT, payload,
					   sizeof(payload));
		bench_addr(o ? s->cidr_miss_j : s->cidr_hit_j, o, a);
		pk[F_CIDR][o].len = pkt_udp4(pk[F_CIDR][o].data, a, 40000, DISCARD_PORT, payload,
					     sizeof(payload));
	}

	for (r = 0; r < cfg.rounds; r++) {
		/*
		 * cold: hits, then misses; every row of a round derives the same addresses.
		 * Each row runs right after an empty and a derive-only run: the ratios and
		 * differences are taken pair by pair, so slow drift of the machine (other
		 * work on the host, the other vCPU) cancels.
		 */
		for (o = 0; o < 2; o++) {
			__u64 span = o ? MISS_SPAN : s->n;
			__u64 start = ((__u64)r * cfg.cold_repeat) % span;

			s->skel->bss->bench_cfg.span = span;
			s->skel->bss->bench_cfg.miss = o;
			for (row = 0; row < C_MAX; row++) {
				err = cold_one(s, C_EMPTY, start, &s->cold_floor[row][o][r], &live);
				err = err ?: cold_one(s, C_DERIVE, start, &s->cold_ref[row][o][r],
						      &live);
				err = err ?: cold_one(s, row, start, &s->cold[row][o][r], &live);
				if (err) {
					warnx("cold %s: %s\n", cold_names[row], strerror(-err));
					return err;
				}
			}
		}
		/* hot: the same packet every run; each row right after empty and parse+count */
		for (row = 0; row < H_MAX; row++) {
			for (o = 0; o < 2; o++) {
				int parse_fd = bpf_program__fd(s->skel->progs.bench_parse);
				int empty_fd = bpf_program__fd(s->skel->progs.bench_empty);
				int pkt_kind, fd;
				const struct hot_pkt *p;
				bool lookup;
				__u32 ret;

				fd = hot_prog(s, row, &slot, &pkt_kind, &lookup);
				p = &pk[pkt_kind][o];
				if (slot != F_NONE && slot != live) {
					err = slot_set(s->outer_fd, s->filt[slot].fd);
					if (err)
						return err;
					live = slot;
				}
				err = test_run(empty_fd, p->data, p->len, cfg.hot_repeat,
					       &s->hot_floor[row][o][r], NULL);
				err = err ?: test_run(parse_fd, p->data, p->len, cfg.hot_repeat,
						      &s->hot_ref[row][o][r], NULL);
				err = err ?: test_run(fd, p->data, p->len, cfg.hot_repeat,
						      &s->hot[row][o][r], &ret);
				if (err) {
					warnx("hot %s: %s\n", hot_names[row], strerror(-err));
					return err;
				}
				if (lookup && ret != (o ? XDP_PASS : XDP_DROP))
					s->hot_bad[row][o]++;
			}
		}
	}

	/* Section 4: cold non-members, none of them used by a timed run. */
	s->skel->bss->bench_cfg.span = MISS_SPAN;
	s->skel->bss->bench_cfg.miss = 1;
	for (row = C_HASH; row < C_MAX; row++) {
		int fd = cold_prog(s, row, &slot);
		__u64 runs0, hits0, runs1, hits1;
		double ns;

		if (slot != F_NONE && slot != live) {
			err = slot_set(s->outer_fd, s->filt[slot].fd);
			if (err)
				return err;
			live = slot;
		}
		err = state_start(s->state_fd, FPR_START);
		err = err ?: state_read(s->state_fd, &runs0, &hits0);
		err = err ?: test_run(fd, dummy, sizeof(dummy), cfg.fpr_lookups, &ns, NULL);
		err = err ?: state_read(s->state_fd, &runs1, &hits1);
		if (err)
			return err;
		s->fpr_runs[row] = runs1 - runs0;
		s->fpr_hits[row] = hits1 - hits0;
	}
	return 0;
}

/*
 * Non-member lookups that the CIDR-heavy list really covers (the exact trie says
 * which, on the same addresses) are hits, not false positives.
 */
static __u64 fpr_covered(const struct size_run *s, int row)
{
	return row == C_BBCIDR || row == C_LPMCIDR ? s->fpr_hits[C_LPMCIDR] : 0;
}

static double fpr_of(const struct size_run *s, int row)
{
	__u64 covered = fpr_covered(s, row), runs = s->fpr_runs[row] - covered;

	return runs ? (double)(s->fpr_hits[row] - covered) / runs : NAN;
}

static void report_size(struct size_run *s, bool largest)
{
	char nn[16], c[8][BT_CELL];
	int row, o, n = cfg.rounds;

	pow10_name(s->n, nn, sizeof(nn));
	for (row = 0; row < C_MAX; row++) {
		const char *cells[12];
		char verdict[BT_CELL] = "";
		struct st3 st[2];
		int i = 0;

		cells[i++] = cold_names[row];
		cells[i++] = nn;
		for (o = 0; o < 2; o++) {
			double x_empty = paired(s->cold[row][o], s->cold_floor[row][o], n, true);
			double net = paired(s->cold[row][o], s->cold_ref[row][o], n, false);

			st3_of(&st[o], s->cold[row][o], n);
			cells[i++] = st3_fmt(c[o * 3], BT_CELL, &st[o], 0);
			cells[i++] = fmtf(c[o * 3 + 1], BT_CELL, "%.2fx", x_empty);
			cells[i++] = row < C_HASH ? "-" : fmtf(c[o * 3 + 2], BT_CELL, "%.0f", net);
			if (largest) {
				key.cold[row][o] = st[o].med;
				key.cold_net[row][o] = net;
			}
		}
		if (largest && row == C_BB4) {
			for (o = 0; o < 2; o++) {
				key.cold_x_hash[o] = paired(s->cold[C_BB4][o], s->cold[C_HASH][o], n,
							    true);
				key.cold_x_bloom[o] = paired(s->cold[C_BB4][o], s->cold[C_BLOOM][o],
							     n, true);
			}
		}
		/* what the per-CPU counter saw: every member found; non-members hit only as
		 * false positives, or (CIDR) when a listed prefix covers them */
		if (row >= C_HASH) {
			double hit = s->cold_runs[row][0] ?
				     (double)s->cold_hits[row][0] / s->cold_runs[row][0] : NAN;
			double fp = s->cold_runs[row][1] ?
				    (double)s->cold_hits[row][1] / s->cold_runs[row][1] : NAN;

			snprintf(verdict, sizeof(verdict), "%s%.1f%% / %.3f%%",
				 hit == 1.0 ? "" : "CHECK ", 100 * hit, 100 * fp);
		}
		cells[i++] = verdict;
		table_add(&t_cold, cells);
	}

	for (row = 0; row < H_MAX; row++) {
		const char *cells[12];
		struct st3 st[2];
		int i = 0;

		cells[i++] = hot_names[row];
		cells[i++] = nn;
		for (o = 0; o < 2; o++) {
			double x_empty = paired(s->hot[row][o], s->hot_floor[row][o], n, true);
			double x_parse = paired(s->hot[row][o], s->hot_ref[row][o], n, true);
			double net = paired(s->hot[row][o], s->hot_floor[row][o], n, false);

			st3_of(&st[o], s->hot[row][o], n);
			cells[i++] = st3_fmt(c[o * 4], BT_CELL, &st[o], 0);
			cells[i++] = fmtf(c[o * 4 + 1], BT_CELL, "%.2fx", x_empty);
			cells[i++] = row == H_EMPTY ? "-" : fmtf(c[o * 4 + 2], BT_CELL, "%.2fx",
								  x_parse);
			cells[i++] = row == H_EMPTY ? "-" :
				     fmtf(c[o * 4 + 3], BT_CELL, "%.0f", net);
			if (largest) {
				key.hot[row][o] = st[o].med;
				key.hot_x_parse[row][o] = x_parse;
				key.hot_net[row][o] = net;
			}
		}
		cells[i++] = s->hot_bad[row][0] || s->hot_bad[row][1] ? "WRONG VERDICT" :
			     row <= H_PARSE6 ? "-" : "ok";
		table_add(&t_hot, cells);
	}

	/* Section 3: memory */
#define CMP_MEM(kind) map_memlock(s->cmp_fd[kind]), s->sys_kb[kind]
	{
		struct {
			const char *name;
			long long memlock, sys_kb;
			__u64 entries;
			double fpr;
			const char *note;
		} m[] = {
			{ "BPF_MAP_TYPE_HASH (4-byte key, 4-byte value)", CMP_MEM(BENCH_FILL_HASH),
			  s->n, 0, "exact" },
			{ "BPF_MAP_TYPE_LPM_TRIE (/32s)", CMP_MEM(BENCH_FILL_LPM), s->n, 0, "exact" },
			{ "BPF_MAP_TYPE_LPM_TRIE (CIDR-heavy)", CMP_MEM(BENCH_FILL_LPM_CIDR), s->n, 0,
			  "exact" },
			{ "BPF_MAP_TYPE_BLOOM_FILTER (k=5)", CMP_MEM(BENCH_FILL_BLOOM), s->n,
			  fpr_of(s, C_BLOOM), "" },
			{ "bloomblock IPv4", s->filt[F_V4].memlock, s->filt[F_V4].sys_kb, s->n,
			  fpr_of(s, C_BB4), "" },
			{ "bloomblock IPv6", s->filt[F_V6].memlock, s->filt[F_V6].sys_kb, s->n,
			  fpr_of(s, C_BB6), "" },
			{ "bloomblock CIDR-heavy", s->filt[F_CIDR].memlock,
			  s->filt[F_CIDR].sys_kb, s->n, fpr_of(s, C_BBCIDR), "" },
			{ "BPF_MAP_TYPE_HASH (16-byte key, 4-byte value)", CMP_MEM(BENCH_FILL_HASH6),
			  s->n, 0, "exact" },
			{ "BPF_MAP_TYPE_LPM_TRIE (/128s)", CMP_MEM(BENCH_FILL_LPM6), s->n, 0, "exact" },
		};
		double hash_memlock = (double)m[0].memlock;
		size_t i;

		for (i = 0; i < ARRAY_SIZE(m); i++) {
			const char *cells[12];
			char note[BT_CELL];
			int k = 0;
			double per = (double)m[i].memlock / m[i].entries;
			double fpr = m[i].fpr;

			cells[k++] = m[i].name;
			cells[k++] = nn;
			cells[k++] = fmtf(c[0], BT_CELL, "%lld", m[i].memlock);
			cells[k++] = fmtf(c[1], BT_CELL, "%.2f", per);
			/* below a MiB the allocator's per-CPU lists hide it; below 0, a free
			 * elsewhere overlapped */
			if (m[i].sys_kb < -1024)
				cells[k++] = "noise (<0)";
			else if (m[i].sys_kb < 1024)
				cells[k++] = "~0 (< 1 MiB)";
			else
				cells[k++] = fmtf(c[2], BT_CELL, "%.2f",
						  m[i].sys_kb * 1024.0 / m[i].entries);
			cells[k++] = fmtf(c[3], BT_CELL, "%.2f", per * 8);
			cells[k++] = ratio_fmt(c[4], BT_CELL, hash_memlock, (double)m[i].memlock);
			if (m[i].note[0]) {
				cells[k++] = "0 (exact)";
				cells[k++] = "-";
			} else {
				cells[k++] = fmtf(c[5], BT_CELL, "%.5f%%", 100 * fpr);
				cells[k++] = fpr > 0 ? fmtf(c[6], BT_CELL, "%.2f", log2(1 / fpr)) :
					     "-";
			}
			note[0] = 0;
			if (i >= 4 && i < 4 + F_MAX) {
				const struct bbf *f = &s->filt[i - 4];
				unsigned int probes = i == 5 ? f->hdr.n_v6_plens :
						      f->hdr.n_v4_plens;
				bool short_table = f->hdr.flags &
						   (BB_HDR_F_V4_SHORT | BB_HDR_F_V6_SHORT);

				snprintf(note, sizeof(note), "k=%u, %.2f bits/key planned, %llu "
					 "keys, %u probe length%s%s", f->hdr.k,
					 f->plan.bits_per_key, (unsigned long long)f->hdr.items,
					 probes, probes == 1 ? "" : "s",
					 short_table ? " + short table" : "");
			}
			cells[k++] = note;
			table_add(&t_mem, cells);
		}
		if (largest) {
			key.hash_bytes = hash_memlock;
			key.bb_bytes = (double)m[4].memlock;
			key.bb_bits = (double)m[4].memlock * 8 / s->n;
			key.bb_fpr_measured = m[4].fpr;
			key.bb_fpr_plan = bbf_fpr_packet(&s->filt[F_V4], 1);
		}
	}

#undef CMP_MEM

	/* Section 4: FPR */
	{
		struct {
			int row;
			const char *name;
			double predicted;
			char how[BT_CELL];
		} fp[] = {
			{ C_BB4, "bloomblock IPv4", bbf_fpr_packet(&s->filt[F_V4], 1), "" },
			{ C_BB6, "bloomblock IPv6", bbf_fpr_packet(&s->filt[F_V6], 0), "" },
			{ C_BBCIDR, "bloomblock CIDR-heavy", bbf_fpr_packet(&s->filt[F_CIDR], 1),
			  "" },
			{ C_BLOOM, "BPF_MAP_TYPE_BLOOM_FILTER (k=5)", 0, "" },
			{ C_HASH, "BPF_MAP_TYPE_HASH", 0, "exact" },
			{ C_LPM, "BPF_MAP_TYPE_LPM_TRIE", 0, "exact" },
			{ C_HASH6, "BPF_MAP_TYPE_HASH IPv6", 0, "exact" },
			{ C_LPM6, "BPF_MAP_TYPE_LPM_TRIE IPv6", 0, "exact" },
			{ C_LPMCIDR, "LPM_TRIE CIDR-heavy", 0, "exact" },
		};
		double bits = 7.0 * s->n, pow2 = 64;
		size_t i;

		/* kernel/bpf/bloom_filter.c: n * k * 7 / 5 bits, rounded up to a power of 2 */
		while (pow2 < bits)
			pow2 *= 2;
		fp[3].predicted = pow(1 - exp(-5.0 * s->n / pow2), 5);
		snprintf(fp[3].how, sizeof(fp[3].how), "classic formula, m=%.0f bits, k=5", pow2);
		for (i = 0; i < 3; i++) {
			const struct bbf *f = &s->filt[fp[i].row == C_BB6 ? F_V6 :
						      fp[i].row == C_BBCIDR ? F_CIDR : F_V4];

			double p = bb_blocked_fpr((double)f->hdr.items, f->hdr.nblocks, f->hdr.k);

			snprintf(fp[i].how, sizeof(fp[i].how),
				 "blocked formula %.5f%%/key x %u probe lengths", 100 * p,
				 fp[i].row == C_BB6 ? f->hdr.n_v6_plens : f->hdr.n_v4_plens);
		}
		for (i = 0; i < ARRAY_SIZE(fp); i++) {
			const char *cells[12];
			int fr = fp[i].row, k = 0;
			__u64 covered = fpr_covered(s, fr);
			double meas = fpr_of(s, fr);

			cells[k++] = fp[i].name;
			cells[k++] = nn;
			cells[k++] = fmtf(c[0], BT_CELL, "%llu",
					  (unsigned long long)s->fpr_runs[fr]);
			cells[k++] = fmtf(c[1], BT_CELL, "%llu",
					  (unsigned long long)s->fpr_hits[fr]);
			cells[k++] = fmtf(c[2], BT_CELL, "%llu", (unsigned long long)covered);
			cells[k++] = fmtf(c[3], BT_CELL, "%.5f%%", 100 * meas);
			cells[k++] = fmtf(c[4], BT_CELL, "%.5f%%", 100 * fp[i].predicted);
			cells[k++] = fp[i].predicted > 0 ? ratio_fmt(c[5], BT_CELL, meas,
								     fp[i].predicted) : "-";
			cells[k++] = fp[i].how;
			table_add(&t_fpr, cells);
		}
	}
}

static int run_size(__u32 n, bool largest)
{
	struct size_run *s = calloc(1, sizeof(*s));
	struct bb_list list;
	double t0;
	int err, i;

	if (!s)
		return -ENOMEM;
	s->n = n;
	for (i = 0; i < BENCH_FILL_MAX; i++)
		s->cmp_fd[i] = -1;
	for (i = 0; i < F_MAX; i++)
		s->filt[i].fd = -1;
	settle_memory();
	progress("n=%u: comparator maps", n);
	err = create_maps(s);
	err = err ?: load_skeleton(s);
	if (err) {
		warnx("bench skeleton (n=%u): %s\n", n, strerror(-err));
		goto cleanup;
	}
	progress("n=%u: skeleton loaded (all programs verified) in %.2fs; filling", n, s->load_s);
	for (i = 0; i < BENCH_FILL_MAX; i++) {
		long long m0 = mem_available_kb();

		t0 = now_s();
		err = fill_map(s, i, n);
		if (err) {
			warnx("fill %s: %s\n", cmp_maps[i].name, strerror(-err));
			goto cleanup;
		}
		s->sys_kb[i] += m0 - mem_available_kb();
		progress("n=%u: %s filled in %.2fs", n, cmp_maps[i].name, now_s() - t0);
	}
	progress("n=%u: building bloomblock filters", n);
	err = bench_list_ip4(&list, n);
	err = err ?: bbf_make(&s->filt[F_V4], &list, BB_HDR_F_DROP);
	bb_list_free(&list);
	if (!err) {
		err = bench_list_ip6(&list, n);
		err = err ?: bbf_make(&s->filt[F_V6], &list, BB_HDR_F_DROP);
		bb_list_free(&list);
	}
	if (!err) {
		err = bench_list_cidr(&list, n);
		err = err ?: bbf_make(&s->filt[F_CIDR], &list, BB_HDR_F_DROP);
		bb_list_free(&list);
	}
	if (err)
		goto cleanup;
	s->cidr_hit_j = cidr_worst_member(n);
	for (s->cidr_miss_j = 0; cidr_covered(bench_ip4(s->cidr_miss_j, 1), n); s->cidr_miss_j++)
		;
	progress("n=%u: measuring (%d rounds)", n, cfg.rounds);
	t0 = now_s();
	err = measure_size(s);
	if (err)
		goto cleanup;
	progress("n=%u: measured in %.1fs", n, now_s() - t0);
	report_size(s, largest);
	if (largest) {
		const struct bb_header *h = &s->filt[F_CIDR].hdr;
		char nn[16], plens[64] = "";
		int p;

		for (p = 0; p < h->n_v4_plens && p < BB_MAX_PLENS; p++)
			snprintf(plens + strlen(plens), sizeof(plens) - strlen(plens), "%s/%u",
				 p ? " " : "", h->v4_plens[p]);
		table_note(&t_cold, "CIDR-heavy list at %s: %d very short prefixes (/8-/15) in the "
			   "short table, the rest /17-/32 (half /32, a quarter /31, ...); "
			   "probe lengths %s, %llu keys after expansion. The hot CIDR hit is "
			   "member %u, a /%u: it hits at the last probe length.",
			   pow10_name(n, nn, sizeof(nn)),
			   BENCH_CIDR_SHORT, plens, (unsigned long long)h->items, s->cidr_hit_j,
			   bench_cidr_plen(s->cidr_hit_j));
		table_note(&t_cold, "Loading the bench skeleton (the verifier walks every "
			   "bloomblock program too) took %.2fs.", s->load_s);
	}
cleanup:
	size_run_free(s);
	free(s);
	return err;
}

/* ---- section 2: names ---- */

enum proto { P_DNS, P_TLS, P_SPLIT, P_HTTP, P_MAX };

static const char *const proto_names[P_MAX] = {
	"DNS query", "TLS ClientHello (one segment)", "TLS ClientHello split (2 segments)",
	"HTTP request",
};

static const int label_counts[3] = { 2, 4, 8 };

/* hit: the list holds "bb-hit.example"; the packet asks for it or a subdomain */
static void name_for(char *buf, size_t size, int labels, bool hit, int variant)
{
	static const char *const prefix[3] = { "", "www.cdn.", "a.b.c.d.e.f." };
	int i = labels == 2 ? 0 : labels == 4 ? 1 : 2;

	if (hit)
		snprintf(buf, size, "%sbb-hit.example", prefix[i]);
	else
		snprintf(buf, size, "%sbb-miss%d.example", prefix[i], variant);
}

/* Bloom lookups a name makes: the name, then its strict parents of 2.. labels. */
static int name_probes(int labels, bool hit)
{
	if (hit)
		return labels == 2 ? 1 : 2;
	return 1 + (labels - 2 < BB_NAME_MAX_PARENT_LABELS - 1 ? labels - 2 : 9);
}

struct name_pkt {
	__u8 data[PKT_MAX];
	size_t len;
	__u8 seg2[PKT_MAX];	/* split: the second segment */
	size_t len2;
};

static int build_name_pkt(struct name_pkt *p, enum proto pr, const char *name)
{
	__u8 payload[1024], miss_src[16];
	size_t n, sni_off = 0, split;

	bench_addr(7, 1, miss_src);	/* a source no list holds */
	switch (pr) {
	case P_DNS:
		n = dns_query(payload, sizeof(payload), name);
		p->len = pkt_udp4(p->data, miss_src, 5353, 53, payload, n);
		break;
	case P_TLS:
		n = tls_client_hello(payload, sizeof(payload), name, &sni_off);
		p->len = pkt_tcp4(p->data, miss_src, 40000, 443, 1000, payload, n);
		break;
	case P_SPLIT:
		n = tls_client_hello(payload, sizeof(payload), name, &sni_off);
		/* the cut falls inside the key share: the SNI comes in segment 2 */
		split = sni_off - 16;
		p->len = pkt_tcp4(p->data, miss_src, 40000, 443, 1000, payload, split);
		p->len2 = pkt_tcp4(p->seg2, miss_src, 40000, 443, 1000 + split, payload + split,
				   n - split);
		break;
	case P_HTTP:
		n = http_request(payload, sizeof(payload), name);
		p->len = pkt_tcp4(p->data, miss_src, 40000, 80, 1000, payload, n);
		break;
	default:
		return -EINVAL;
	}
	return p->len ? 0 : -EINVAL;
}

/* A split hello, new flow (source port) each time: ns of both segments, or < 0. */
static double run_split(int prog_fd, struct name_pkt *p, __u16 sport, __u32 *ret2)
{
	const size_t sport_off = 14 + 20;
	double ns1, ns2;
	__u32 ret1;

	p->data[sport_off] = p->seg2[sport_off] = sport >> 8;
	p->data[sport_off + 1] = p->seg2[sport_off + 1] = sport & 0xff;
	if (test_run(prog_fd, p->data, p->len, 1, &ns1, &ret1) ||
	    test_run(prog_fd, p->seg2, p->len2, 1, &ns2, ret2))
		return -1;
	return ret1 == XDP_PASS ? ns1 + ns2 : -1;
}

/*
 * One sample of a name row, right after an empty run (*floor) and an IPv4 check of
 * the unlisted source (*ref). A split hello: split_pairs new flows, the mean of both
 * segments' runs.
 */
static int name_sample(int xdp_fd, int empty_fd, struct name_pkt *p, enum proto pr, int miss,
		       const struct hot_pkt *ip4_miss, __u16 *sport, int *bad, double *ns,
		       double *floor, double *ref)
{
	__u32 want = miss ? XDP_PASS : XDP_DROP, ret, k;
	double v, sum = 0;
	int err;

	err = test_run(empty_fd, ip4_miss->data, ip4_miss->len, cfg.name_repeat, floor, NULL);
	err = err ?: test_run(xdp_fd, ip4_miss->data, ip4_miss->len, cfg.name_repeat, ref, NULL);
	if (err)
		return err;
	if (pr != P_SPLIT) {
		err = test_run(xdp_fd, p->data, p->len, cfg.name_repeat, ns, &ret);
		if (!err && ret != want)
			(*bad)++;
		return err;
	}
	for (k = 0; k < cfg.split_pairs; k++) {
		v = run_split(xdp_fd, p, *sport, &ret);
		*sport = *sport == 65535 ? 1024 : *sport + 1;
		if (v < 0 || ret != want)
			(*bad)++;
		sum += v > 0 ? v : 0;
	}
	*ns = sum / cfg.split_pairs;
	return 0;
}

/* The packet for one name row; a miss name that is a false positive is replaced. */
static int pick_name_pkt(int xdp_fd, struct name_pkt *p, enum proto pr, int labels, bool hit,
			 __u16 *sport)
{
	char name[128];
	int variant, err;
	__u32 ret;
	double v;

	for (variant = 0; variant < 50; variant++) {
		name_for(name, sizeof(name), labels, hit, variant);
		err = build_name_pkt(p, pr, name);
		if (err)
			return err;
		if (pr == P_SPLIT)
			v = run_split(xdp_fd, p, (*sport)++, &ret);
		else if (test_run(xdp_fd, p->data, p->len, 1, &v, &ret))
			v = -1;
		if (hit || (v >= 0 && ret == XDP_PASS))
			break;
	}
	return 0;
}

/*
 * The name-screening filter: generated names (parsed as list lines, the real
 * canonicalisation), "bb-hit.example", and IPv4 members appended as entries;
 * names 0: the addresses alone.
 */
static int names_list(struct bb_list *list, __u32 names, __u32 ips)
{
	struct bb_entry *e;
	char name[128];
	size_t n0;
	__u32 j;

	bb_list_init(list);
	for (j = 0; names && j <= names; j++) {
		if (j < names)
			bench_name(j, name, sizeof(name));
		else
			strcpy(name, "bb-hit.example");
		if (bb_list_parse_line(list, name, strlen(name), NULL) < 0) {
			warnx("generated name %s rejected\n", name);
			return -EINVAL;
		}
	}
	n0 = list->n;
	e = realloc(list->entries, (n0 + ips) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	list->entries = e;
	for (j = 0; j < ips; j++) {
		memset(&e[n0 + j], 0, sizeof(*e));
		e[n0 + j].kind = BB_ENTRY_IP4;
		e[n0 + j].plen = 32;
		bench_addr(j, 0, e[n0 + j].addr);
		memset(e[n0 + j].addr + 4, 0, 12);
	}
	list->n = list->cap = n0 + ips;
	return 0;
}

static int run_names(void)
{
	struct bench *skel = NULL;
	struct bb_list list;
	struct bbf filt = { .fd = -1 };
	static struct name_pkt pkts[P_MAX][3][2];
	static double ns[P_MAX][3][2][MAX_ROUNDS], nfloor[P_MAX][3][2][MAX_ROUNDS];
	static double nref[P_MAX][3][2][MAX_ROUNDS];
	static double ref[2][MAX_ROUNDS], empty[MAX_ROUNDS], empty1[MAX_ROUNDS];
	static int bad[P_MAX][3][2];
	struct hot_pkt ip4[2];
	__u8 payload[16] = "bloomblock bench";
	char nn[16], c[8][BT_CELL];
	int err, r, pr, l, o, xdp_fd, empty_fd;
	__u32 ret;
	__u16 sport = 1024;
	double t0, v = 0;

	progress("names: filter of %u names + %u IPv4 addresses", cfg.names_n, cfg.names_n);
	t0 = now_s();
	err = names_list(&list, cfg.names_n, cfg.names_n);
	if (err)
		goto cleanup;
	progress("names: list parsed in %.2fs", now_s() - t0);

	skel = bench__open_and_load();
	if (!skel) {
		err = -errno;
		warnx("bench skeleton: %s\n", strerror(-err));
		goto cleanup;
	}
	err = bb_url_tables_fill(skel->obj, BB_FAMILY_ALL);
	if (err)
		goto cleanup;
	err = bbf_make(&filt, &list, BB_HDR_F_DROP);
	err = err ?: slot_set(bpf_map__fd(skel->maps.filters), filt.fd);
	if (err)
		goto cleanup;
	xdp_fd = bpf_program__fd(skel->progs.bloomblock_xdp);
	empty_fd = bpf_program__fd(skel->progs.bench_empty);

	for (o = 0; o < 2; o++) {
		__u8 a[16];

		bench_addr(0, o, a);
		ip4[o].len = pkt_udp4(ip4[o].data, a, 40000, DISCARD_PORT, payload,
				      sizeof(payload));
	}
	for (pr = 0; pr < P_MAX; pr++)
		for (l = 0; l < 3; l++)
			for (o = 0; o < 2; o++) {
				err = pick_name_pkt(xdp_fd, &pkts[pr][l][o], pr, label_counts[l],
						    !o, &sport);
				if (err)
					goto cleanup;
			}

	progress("names: measuring (%d rounds)", cfg.rounds);
	for (r = 0; r < cfg.rounds && !err; r++) {
		double sum = 0;
		__u32 k;

		/* the floor of a repeat=1 run, as the split pairs are measured */
		for (k = 0; k < 2 * cfg.split_pairs && !err; k++) {
			err = test_run(empty_fd, ip4[1].data, ip4[1].len, 1, &v, NULL);
			sum += v;
		}
		empty1[r] = sum / (2 * cfg.split_pairs);
		err = err ?: test_run(empty_fd, ip4[1].data, ip4[1].len, cfg.name_repeat, &empty[r],
				      NULL);
		for (o = 0; o < 2 && !err; o++) {
			err = test_run(xdp_fd, ip4[o].data, ip4[o].len, cfg.name_repeat, &ref[o][r],
				       &ret);
			if (!err && ret != (o ? XDP_PASS : XDP_DROP))
				warnx("IPv4 reference: wrong verdict %u\n", ret);
		}
		/* each name row right after an empty run and an IPv4 check (a miss) */
		for (pr = 0; pr < P_MAX && !err; pr++)
			for (l = 0; l < 3 && !err; l++)
				for (o = 0; o < 2 && !err; o++) {
					err = name_sample(xdp_fd, empty_fd, &pkts[pr][l][o], pr, o,
							  &ip4[1], &sport, &bad[pr][l][o],
							  &ns[pr][l][o][r], &nfloor[pr][l][o][r],
							  &nref[pr][l][o][r]);
					if (pr == P_SPLIT)
						nfloor[pr][l][o][r] = 2 * empty1[r];
				}
	}
	if (err) {
		warnx("names: test run: %s\n", strerror(-err));
		goto cleanup;
	}

	/* report */
	pow10_name(cfg.names_n, nn, sizeof(nn));
	{
		const char *cells[12];
		struct st3 st[2];
		int k, n = cfg.rounds;

		k = 0;
		st3_of(&st[0], empty, n);
		cells[k++] = "empty XDP (floor)";
		cells[k++] = "-";
		cells[k++] = st3_fmt(c[0], BT_CELL, &st[0], 0);
		cells[k++] = "1.00x";
		cells[k++] = "-";
		cells[k++] = "-";
		cells[k++] = st3_fmt(c[1], BT_CELL, &st[0], 0);
		cells[k++] = "1.00x";
		cells[k++] = "-";
		cells[k++] = "-";
		cells[k++] = "-";
		table_add(&t_names, cells);
		k = 0;
		st3_of(&st[0], empty1, n);
		cells[k++] = "empty XDP, repeat=1 (floor of the split rows)";
		cells[k++] = "-";
		cells[k++] = st3_fmt(c[0], BT_CELL, &st[0], 0);
		cells[k++] = fmtf(c[1], BT_CELL, "%.2fx", paired(empty1, empty, n, true));
		cells[k++] = "-";
		cells[k++] = "-";
		cells[k++] = st3_fmt(c[2], BT_CELL, &st[0], 0);
		cells[k++] = c[1];
		cells[k++] = "-";
		cells[k++] = "-";
		cells[k++] = "-";
		table_add(&t_names, cells);
		k = 0;
		st3_of(&st[0], ref[0], n);
		st3_of(&st[1], ref[1], n);
		cells[k++] = "IPv4 source check (bloomblock_xdp, same filter)";
		cells[k++] = "-";
		cells[k++] = st3_fmt(c[0], BT_CELL, &st[0], 0);
		cells[k++] = fmtf(c[1], BT_CELL, "%.2fx", paired(ref[0], empty, n, true));
		cells[k++] = "-";
		cells[k++] = "1";
		cells[k++] = st3_fmt(c[2], BT_CELL, &st[1], 0);
		cells[k++] = fmtf(c[3], BT_CELL, "%.2fx", paired(ref[1], empty, n, true));
		cells[k++] = "1.00x";
		cells[k++] = "1";
		cells[k++] = "ok";
		table_add(&t_names, cells);

		for (pr = 0; pr < P_MAX; pr++)
			for (l = 0; l < 3; l++) {
				char labels[8];

				k = 0;
				cells[k++] = proto_names[pr];
				cells[k++] = fmtf(labels, sizeof(labels), "%d", label_counts[l]);
				for (o = 0; o < 2; o++) {
					double x_floor = paired(ns[pr][l][o], nfloor[pr][l][o], n,
								true);
					double x_ip4 = paired(ns[pr][l][o], nref[pr][l][o], n,
							      true);

					st3_of(&st[o], ns[pr][l][o], n);
					cells[k++] = st3_fmt(c[o * 4], BT_CELL, &st[o], 0);
					cells[k++] = fmtf(c[o * 4 + 1], BT_CELL, "%.2fx", x_floor);
					/* split samples are repeat=1 runs: not comparable */
					cells[k++] = pr == P_SPLIT ? "-" :
						     fmtf(c[o * 4 + 2], BT_CELL, "%.2fx", x_ip4);
					cells[k++] = fmtf(c[o * 4 + 3], BT_CELL, "%d",
							  name_probes(label_counts[l], !o));
					if (label_counts[l] == 4) {
						key.name4[pr][o] = st[o].med;
						key.name4_x[pr][o] = x_ip4;
					}
				}
				cells[k++] = bad[pr][l][0] || bad[pr][l][1] ? "WRONG VERDICT" :
					     "ok";
				table_add(&t_names, cells);
			}
		key.ipv4_ref = median_of(ref[1], n);
		table_note(&t_names, "Filter: %s generated names (2-4 labels) + %s IPv4 "
			   "addresses + `bb-hit.example`, %llu keys, k=%u. Hits ask for "
			   "`bb-hit.example` or a subdomain of it (the name's own key, then its "
			   "2-label parent); misses for `bb-miss0.example` and subdomains (the "
			   "name and every strict parent of 2+ labels). Each packet runs the real "
			   "`bloomblock_xdp`: parse, the source-address check, the protocol's check "
			   "(DNS in the program itself, TLS and HTTP in a function it calls), which "
			   "finds the name and matches it. Each sample runs "
			   "right after an empty run and an IPv4 check (a miss, same filter); the "
			   "ratios are taken sample by sample. Split rows (2 runs of repeat=1, a "
			   "new flow each, %u per round) are to twice the repeat=1 floor, which "
			   "includes the timer read.",
			   nn, nn, (unsigned long long)filt.hdr.items, filt.hdr.k, cfg.split_pairs);
	}
	err = 0;
cleanup:
	bbf_close(&filt);
	bench__destroy(skel);
	bb_list_free(&list);
	return err;
}

/*
 * Where each loaded program's source lines sit in its JIT image: one line
 * "ADDRESS FILE:LINE" per BTF line record, from the kernel's jited_line_info. perf
 * samples of a program can then be put on source lines (scripts/profile.sh):
 * Debian's bpftool has no libbfd, so `bpftool prog dump jited` cannot.
 */
static int write_line_map(struct bpf_object *obj, const char *path)
{
	struct bpf_program *prog;
	FILE *f = fopen(path, "w");
	int err = 0;

	if (!f)
		return -errno;
	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info), n, i;
		struct bpf_line_info *li = NULL;
		__u64 *jl = NULL;
		struct btf *btf = NULL;
		int fd = bpf_program__fd(prog);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		n = info.nr_line_info < info.nr_jited_line_info ? info.nr_line_info :
		    info.nr_jited_line_info;
		li = calloc(n ? n : 1, info.line_info_rec_size);
		jl = calloc(n ? n : 1, info.jited_line_info_rec_size);
		if (!li || !jl) {
			err = -ENOMEM;
		} else {
			struct bpf_prog_info q = {
				.nr_line_info = n,
				.line_info_rec_size = info.line_info_rec_size,
				.line_info = (__u64)(unsigned long)li,
				.nr_jited_line_info = n,
				.jited_line_info_rec_size = info.jited_line_info_rec_size,
				.jited_line_info = (__u64)(unsigned long)jl,
			};

			len = sizeof(q);
			if (!bpf_obj_get_info_by_fd(fd, &q, &len))
				btf = btf__load_from_kernel_by_id(info.btf_id);
			for (i = 0; btf && i < n; i++) {
				const struct bpf_line_info *r = (const void *)((const char *)li +
								i * info.line_info_rec_size);
				const char *file = btf__name_by_offset(btf, r->file_name_off);
				const char *base = file ? strrchr(file, '/') : NULL;

				fprintf(f, "%016llx %s:%u\n", (unsigned long long)jl[i],
					base ? base + 1 : file ? file : "?",
					BPF_LINE_INFO_LINE_NUM(r->line_col));
			}
			btf__free(btf);
		}
		free(li);
		free(jl);
	}
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/*
 * For profiling (docs/BENCHMARKS.md): run one row for a while, so that
 * `perf record -C CPU` can sample it. A 10^5-name + 10^6-address filter.
 */
static int profile_run(const char *what, double seconds, const char *line_map)
{
	static const char *const whats[] = {
		"empty", "parse", "ip4-hit", "ip4-miss", "ip4-cold", "dns", "tls", "http",
		"dns-hit", "tls-hit", "http-hit", NULL,
	};
	struct bench *skel = NULL;
	struct bbf filt = { .fd = -1 };
	static struct name_pkt p;
	struct bb_list list;
	__u8 payload[16] = "bloomblock bench", a[16];
	double t0, ns, sum = 0, least = 1e30;
	unsigned long calls = 0;
	int err, fd, w;
	__u32 ret;
	char name[64];

	for (w = 0; whats[w] && strcmp(whats[w], what); w++)
		;
	if (!whats[w]) {
		warnx("--profile: one of empty, parse, ip4-hit, ip4-miss, ip4-cold, dns, tls, "
		      "http, dns-hit, tls-hit, http-hit\n");
		return -EINVAL;
	}
	/* the address rows on an address-only filter, as in the table */
	err = names_list(&list, w >= 5 ? 100000 : 0, 1000000);
	skel = err ? NULL : bench__open_and_load();
	if (!skel) {
		err = err ?: -errno;
		goto cleanup;
	}
	err = bb_url_tables_fill(skel->obj, BB_FAMILY_ALL);
	if (err)
		goto cleanup;
	err = bbf_make(&filt, &list, BB_HDR_F_DROP);
	err = err ?: slot_set(bpf_map__fd(skel->maps.filters), filt.fd);
	if (err)
		goto cleanup;
	fd = bpf_program__fd(skel->progs.bloomblock_xdp);
	bench_addr(0, strcmp(what, "ip4-hit") ? 1 : 0, a);
	p.len = pkt_udp4(p.data, a, 40000, DISCARD_PORT, payload, sizeof(payload));
	if (!strcmp(what, "empty")) {
		fd = bpf_program__fd(skel->progs.bench_empty);
	} else if (!strcmp(what, "parse")) {
		fd = bpf_program__fd(skel->progs.bench_parse);
	} else if (!strcmp(what, "ip4-cold")) {
		fd = bpf_program__fd(skel->progs.bench_bb_ip4_cold);
		skel->bss->bench_cfg.span = 1000000;
	} else if (w >= 5) {
		/* 4 labels, as in the target: a miss (3 probes) or a hit (2) */
		name_for(name, sizeof(name), 4, w >= 8, 0);
		err = build_name_pkt(&p, (w - 5) % 3 == 0 ? P_DNS : (w - 5) % 3 == 1 ? P_TLS : P_HTTP,
				     name);
		if (err)
			goto cleanup;
	}
	if (line_map) {
		err = write_line_map(skel->obj, line_map);
		if (err)
			goto cleanup;
	}
	fprintf(stderr, "bench: profiling %s on CPU %d for %.0fs\n", what, cfg.cpu, seconds);
	t0 = now_s();
	while (now_s() - t0 < seconds) {
		err = test_run(fd, p.data, p.len, 100000, &ns, &ret);
		if (err)
			goto cleanup;
		sum += ns;
		least = ns < least ? ns : least;
		calls++;
	}
	/* the least call is the steadiest figure on a busy host */
	printf("%s: %.1f ns per run (mean of %lu calls of 10^5 runs; least %.1f), verdict %u\n",
	       what, sum / calls, calls, least, ret);
cleanup:
	bbf_close(&filt);
	bench__destroy(skel);
	bb_list_free(&list);
	return err;
}

/* ---- section 5: the load path, in this process ---- */

/*
 * When does a swap go live? The update stores the new map in the outer slot at
 * once, then waits for an RCU grace period before it returns (so that no
 * program still reads the old map when userspace frees it). A watcher on the
 * other CPU reads the slot (userspace lookups of an outer map give the inner
 * map's id) until it shows the new map: that is when packets see it.
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
		err = slot_set(outer_fd, fds[i % 2]);
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

static void load_row(const char *what, const char *lines, const char *parse, const char *build,
		     const char *push, const char *total, const char *rate, const char *note)
{
	const char *cells[] = { what, lines, parse, build, push, total, rate, note };

	table_add(&t_load, cells);
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

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int load_list(const char *path, bool names, __u32 lines)
{
	struct bb_list_counts fc;
	struct bb_filter_opts opts = { .seed = BENCH_SEED, .flags = BB_HDR_F_DROP };
	struct bb_instance inst = { .filters_fd = -1, .stats_fd = -1, .prog_fd = -1,
				    .tc_ingress_fd = -1, .tc_egress_fd = -1 };
	struct bb_filter filter, in_map;
	struct bb_filter_map fmap = { .fd = -1 };
	struct bb_list list;
	char c[10][BT_CELL], ln[16];
	double t0, t_parse[2], t_build[2], t_push, swaps[200], live[200];
	double t_in_map = 0, t_swap_in_map = 0;
	struct push_times pt = { 0 }, pt_pop = { 0 }, pts[PUSH_SAMPLES];
	int err, th, i, fd_a = -1, fd_b = -1;
	const char *what = names ? "hostnames" : "IPv4";

	pow10_name(lines, ln, sizeof(ln));
	/* 1 then 2 parse threads; the second list is the one built */
	for (th = 0; th < 2; th++) {
		struct bb_list_opts lopts = { .threads = th + 1 };

		bb_list_init(&list);
		progress("load path: parsing %s (%s lines), %d thread%s", path, ln, th + 1,
			 th ? "s" : "");
		t0 = now_s();
		err = bb_list_parse_file(&list, path, &lopts, &fc);
		t_parse[th] = now_s() - t0;
		if (err) {
			warnx("%s: %s\n", path, strerror(-err));
			goto cleanup;
		}
		if (th == 0)
			bb_list_free(&list);
	}
	for (th = 0; th < 2; th++) {
		opts.threads = th + 1;
		t0 = now_s();
		err = bb_filter_build(&filter, &list, &opts);
		t_build[th] = now_s() - t0;
		if (err)
			goto cleanup;
		if (th == 0)
			bb_filter_free(&filter);
	}
	inst.filters_fd = outer_create();
	if (inst.filters_fd < 0) {
		err = inst.filters_fd;
		goto free_filter;
	}
	/* the push of a built filter: new map, mmap, copy, swap */
	t0 = now_s();
	err = bb_filter_push(&inst, &filter);
	t_push = now_s() - t0;
	if (err)
		goto free_filter;
	/* what load does: build (2 threads) with the bits set in the new map, then swap */
	opts.threads = 2;
	opts.blocks_alloc = bb_filter_map_blocks;
	opts.blocks_ctx = &fmap;
	t0 = now_s();
	err = bb_filter_build(&in_map, &list, &opts);
	t_in_map = now_s() - t0;
	if (err)
		goto free_filter;
	t0 = now_s();
	err = bb_filter_swap(&inst, &in_map, &fmap);
	t_swap_in_map = now_s() - t0;
	bb_filter_free(&in_map);
	bb_filter_map_close(&fmap);
	if (err)
		goto free_filter;
	/*
	 * its steps, by the same recipe, PUSH_SAMPLES times (a push takes a few ms: one
	 * alone is at the mercy of the host); then swaps of already-built maps
	 */
	for (i = 0; i < PUSH_SAMPLES; i++) {
		int fd = bbf_map(&filter, false, &pts[i]);

		if (fd < 0) {
			err = fd;
			goto free_filter;
		}
		if (fd_a < 0)
			fd_a = fd;
		else
			close(fd);
	}
	pt = push_median(pts, PUSH_SAMPLES);
	fd_b = bbf_map(&filter, true, &pt_pop);
	if (fd_a < 0 || fd_b < 0) {
		err = fd_a < 0 ? fd_a : fd_b;
		goto free_filter;
	}
	err = swaps_timed(inst.filters_fd, (int[2]){ fd_a, fd_b }, swaps, live,
			  (int)ARRAY_SIZE(swaps));
	if (err)
		goto free_filter;
	qsort(live, ARRAY_SIZE(live), sizeof(live[0]), cmp_dbl);
	qsort(swaps, ARRAY_SIZE(swaps), sizeof(swaps[0]), cmp_dbl);

	load_row(fmtf(c[0], BT_CELL, "in-process %s, 1 thread (parse, build)", what), ln,
		 fmtf(c[1], BT_CELL, "%.3f", t_parse[0]), fmtf(c[2], BT_CELL, "%.3f", t_build[0]),
		 fmtf(c[3], BT_CELL, "%.3f", t_push),
		 fmtf(c[4], BT_CELL, "%.3f", t_parse[0] + t_build[0] + t_push),
		 fmtf(c[5], BT_CELL, "%.2f M/s", lines / (t_parse[0] + t_build[0] + t_push) / 1e6),
		 fmtf(c[6], BT_CELL, "%zu entries, %llu keys; parse %.2f M lines/s", list.n,
		      (unsigned long long)filter.hdr.items, lines / t_parse[0] / 1e6));
	load_row(fmtf(c[0], BT_CELL, "in-process %s, 2 threads", what), ln,
		 fmtf(c[1], BT_CELL, "%.3f", t_parse[1]), fmtf(c[2], BT_CELL, "%.3f", t_build[1]),
		 fmtf(c[3], BT_CELL, "%.3f", t_push),
		 fmtf(c[4], BT_CELL, "%.3f", t_parse[1] + t_build[1] + t_push),
		 fmtf(c[5], BT_CELL, "%.2f M/s", lines / (t_parse[1] + t_build[1] + t_push) / 1e6),
		 fmtf(c[6], BT_CELL, "scaling 1 -> 2 threads: parse %.2fx, build %.2fx",
		      t_parse[0] / t_parse[1], t_build[0] / t_build[1]));
	load_row(fmtf(c[0], BT_CELL, "in-process %s, 2 threads, bits set in the new map (load)",
		      what), ln,
		 fmtf(c[1], BT_CELL, "%.3f", t_parse[1]), fmtf(c[2], BT_CELL, "%.3f", t_in_map),
		 fmtf(c[3], BT_CELL, "%.3f", t_swap_in_map),
		 fmtf(c[4], BT_CELL, "%.3f", t_parse[1] + t_in_map + t_swap_in_map),
		 fmtf(c[5], BT_CELL, "%.2f M/s",
		      lines / (t_parse[1] + t_in_map + t_swap_in_map) / 1e6),
		 "build includes creating the map; push: header and swap, no copy");
	if (names) {
		key.load_names_1t = t_parse[0] + t_build[0] + t_push;
		key.load_names_2t = t_parse[1] + t_in_map + t_swap_in_map;
	} else {
		key.load_ip4_1t = t_parse[0] + t_build[0] + t_push;
		key.load_ip4_2t = t_parse[1] + t_in_map + t_swap_in_map;
	}

	if (!names) {
		size_t bytes = bb_filter_elements(filter.hdr.nblocks) * BB_BLOCK_BYTES;
		size_t page = sysconf(_SC_PAGESIZE), len = (bytes + page - 1) / page * page;
		double t_fresh, t_warm, fresh[5], warm[5], share[PUSH_SAMPLES];
		struct st3 sh;

		for (i = 0; i < 5; i++) {
			void *dst = mmap(NULL, len, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (dst == MAP_FAILED) {
				err = -errno;
				goto free_filter;
			}
			t0 = now_s();
			bb_filter_write_image(&filter, dst);
			fresh[i] = now_s() - t0;
			t0 = now_s();
			bb_filter_write_image(&filter, dst);
			warm[i] = now_s() - t0;
			munmap(dst, len);
		}
		t_fresh = median_of(fresh, 5);
		t_warm = median_of(warm, 5);
		key.push_copy_s = pt.copy;
		key.memcpy_fresh_s = t_fresh;
		key.memcpy_warm_s = t_warm;
		key.push_bytes = bytes;
		key.swap_s = swaps[ARRAY_SIZE(swaps) / 2];
		key.swap_live_s = live[ARRAY_SIZE(live) / 2];
		/* bb_filter_push()'s order: create and mmap, copy, swap; munmap after it */
		key.push_live_s = pt.create + pt.map + pt.copy + key.swap_live_s;
		for (i = 0; i < PUSH_SAMPLES; i++)
			share[i] = pts[i].copy / (pts[i].create + pts[i].map + pts[i].copy +
						  key.swap_live_s);
		st3_of(&sh, share, PUSH_SAMPLES);
		key.push_share = sh.med;
		key.push_share_min = sh.min;
		key.push_share_max = sh.max;
		load_row("push, step by step (same recipe as bb_filter_push): until live, median "
			 "of 9", "-",
			 "-", "-", fmtf(c[1], BT_CELL, "%.4f", key.push_live_s),
			 fmtf(c[2], BT_CELL, "%.4f", key.push_live_s),
			 fmtf(c[3], BT_CELL, "copy %.2f GB/s", bytes / pt.copy / 1e9),
			 fmtf(c[4], BT_CELL, "%zu B: create %.1f + mmap %.1f + copy %.1f + live %.3f ms "
			      "(copy %.0f%%, %.0f-%.0f%%)", bytes, 1e3 * pt.create, 1e3 * pt.map,
			      1e3 * pt.copy, 1e3 * key.swap_live_s, 100 * key.push_share,
			      100 * key.push_share_min, 100 * key.push_share_max));
		load_row("the same with MAP_POPULATE (not what bb_filter_push does)", "-", "-", "-",
			 fmtf(c[1], BT_CELL, "%.4f", pt_pop.create + pt_pop.map + pt_pop.copy +
			      key.swap_live_s),
			 fmtf(c[2], BT_CELL, "%.4f", pt_pop.create + pt_pop.map + pt_pop.copy +
			      key.swap_live_s),
			 fmtf(c[3], BT_CELL, "copy %.2f GB/s", bytes / pt_pop.copy / 1e9),
			 fmtf(c[4], BT_CELL, "create %.1f ms + mmap(MAP_POPULATE) %.1f + copy %.1f "
			      "+ swap until live", 1e3 * pt_pop.create, 1e3 * pt_pop.map,
			      1e3 * pt_pop.copy));
		load_row("bb_filter_push() as a whole, until it returns", "-", "-", "-",
			 fmtf(c[1], BT_CELL, "%.4f", t_push), fmtf(c[2], BT_CELL, "%.4f", t_push),
			 "-", "includes the swap's wait for an RCU grace period (next row)");
		load_row("reload: swap of an already-built filter (median of 200)", "-", "-", "-",
			 fmtf(c[1], BT_CELL, "%.4f", key.swap_live_s),
			 fmtf(c[5], BT_CELL, "%.4f", key.swap_live_s),
			 "-", fmtf(c[2], BT_CELL, "live after %.3f ms (min %.3f, max %.3f); the "
				   "syscall returns after %.1f ms (min %.1f, max %.1f): it waits for "
				   "an RCU grace period, idle", 1e3 * key.swap_live_s, 1e3 * live[0],
				   1e3 * live[ARRAY_SIZE(live) - 1], 1e3 * key.swap_s,
				   1e3 * swaps[0], 1e3 * swaps[ARRAY_SIZE(swaps) - 1]));
		load_row("memcpy of the image into fresh memory (page faults), median of 5", "-",
			 "-", "-",
			 fmtf(c[1], BT_CELL, "%.4f", t_fresh), fmtf(c[5], BT_CELL, "%.4f", t_fresh),
			 fmtf(c[2], BT_CELL, "%.2f GB/s", bytes / t_fresh / 1e9),
			 fmtf(c[3], BT_CELL, "same bytes; the copy into the map: %.2fx its speed",
			      t_fresh / pt.copy));
		load_row("memcpy of the image, memory already mapped, median of 5", "-", "-", "-",
			 fmtf(c[1], BT_CELL, "%.4f", t_warm), fmtf(c[5], BT_CELL, "%.4f", t_warm),
			 fmtf(c[2], BT_CELL, "%.2f GB/s", bytes / t_warm / 1e9),
			 fmtf(c[3], BT_CELL, "same bytes; the copy into the map: %.2fx its speed",
			      t_warm / pt.copy));
	}
free_filter:
	bb_filter_free(&filter);
cleanup:
	if (fd_a >= 0)
		close(fd_a);
	if (fd_b >= 0)
		close(fd_b);
	if (inst.filters_fd >= 0)
		close(inst.filters_fd);
	bb_list_free(&list);
	return err;
}

static int hash_batch(__u32 n)
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
		warnx("bpf_map_update_batch: %u of %u: %s\n", count, n, strerror(-err));
		goto cleanup;
	}
	load_row("BPF_MAP_TYPE_HASH, bpf_map_update_batch", pow10_name(n, nn, sizeof(nn)), "-",
		 fmtf(c[0], BT_CELL, "%.3f (create)", t_create),
		 fmtf(c[1], BT_CELL, "%.3f (batch)", t_batch),
		 fmtf(c[2], BT_CELL, "%.3f", t_create + t_batch),
		 fmtf(c[3], BT_CELL, "%.2f M/s", n / (t_create + t_batch) / 1e6),
		 fmtf(c[4], BT_CELL, "one syscall; addresses in memory, no parsing"));
cleanup:
	if (fd >= 0)
		close(fd);
	free(keys);
	free(values);
	return err;
}

/* ---- load-path figures measured by scripts/bench.sh: "key value" lines ---- */

static struct {
	char k[64], v[128];
} ext[128];
static int n_ext;

static void ext_read(const char *path)
{
	char line[256];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && n_ext < (int)ARRAY_SIZE(ext)) {
		if (sscanf(line, "%63s %127[^\n]", ext[n_ext].k, ext[n_ext].v) == 2)
			n_ext++;
	}
	fclose(f);
}

static const char *ext_get(const char *k)
{
	int i;

	for (i = 0; i < n_ext; i++)
		if (!strcmp(ext[i].k, k))
			return ext[i].v;
	return NULL;
}

static double ext_num(const char *k)
{
	const char *v = ext_get(k);
	char *end;
	double d;

	if (!v)
		return NAN;
	d = strtod(v, &end);
	return end == v ? NAN : d;
}

static void cli_rows(const char *tag, const char *what)
{
	char k[64], c[8][BT_CELL], ln[16];
	double lines, parse, build, push, wall, rss, filter;

#define EXT(field) (snprintf(k, sizeof(k), "cli_%s_%s", tag, field), ext_num(k))
	lines = EXT("lines");
	parse = EXT("parse_s");
	build = EXT("build_s");
	push = EXT("push_s");
	wall = EXT("wall_s");
	rss = EXT("maxrss_kb");
	filter = EXT("filter_bytes");
#undef EXT
	if (isnan(wall)) {
		snprintf(k, sizeof(k), "cli_%s_error", tag);
		load_row(fmtf(c[0], BT_CELL, "bloomblock load (CLI), %s", what), "-", "-", "-", "-",
			 "-", "-", ext_get(k) ? ext_get(k) : "not measured");
		return;
	}
	if (!strcmp(tag, "ip4_gz")) {
		/* beside the plain first load of the same run: its size, its wall and its sum */
		double plain = ext_num("cli_ip4_file_bytes"), gz = ext_num("cli_ip4_gz_file_bytes");
		const char *streamed = ext_get("cli_ip4_gz_streamed");
		char x[16], y[16];

		/* --stream always keeps it on the plain row's two passes; say so if not */
		fmtf(c[6], BT_CELL, "%.1f MiB (%.0f%% of plain); wall %s plain IPv4's, sum %s; "
		     "peak RSS %.0f MiB%s", gz / MIB, 100 * gz / plain,
		     ratio_fmt(x, sizeof(x), wall, ext_num("cli_ip4_wall_s")),
		     ratio_fmt(y, sizeof(y), parse + build + push,
			       ext_num("cli_ip4_parse_s") + ext_num("cli_ip4_build_s") +
			       ext_num("cli_ip4_push_s")),
		     rss / 1024, streamed && strcmp(streamed, "true") ? "; not streamed" : "");
	} else {
		fmtf(c[6], BT_CELL, "peak RSS %.0f MiB; wall: process start to exit, filter live",
		     rss / 1024);
	}
	load_row(fmtf(c[0], BT_CELL, "bloomblock load (CLI), %s", what),
		 pow10_name((__u32)lines, ln, sizeof(ln)), fmtf(c[1], BT_CELL, "%.3f", parse),
		 fmtf(c[2], BT_CELL, "%.3f", build), fmtf(c[3], BT_CELL, "%.3f", push),
		 fmtf(c[4], BT_CELL, "%.3f (wall %.3f)", parse + build + push, wall),
		 fmtf(c[5], BT_CELL, "%.2f M/s", lines / wall / 1e6), c[6]);
	if (!strcmp(tag, "ip4")) {
		key.cli_ip4_wall = wall;
		key.cli_ip4_sum = parse + build + push;
		key.cli_ip4_rss = rss * 1024;
		key.cli_ip4_filter = filter;
	} else if (!strcmp(tag, "reload")) {
		key.cli_ip4_reload_wall = wall;
	} else if (!strcmp(tag, "names_reload")) {
		key.cli_names_reload_wall = wall;
	} else if (!strcmp(tag, "names")) {
		key.cli_names_wall = wall;
		key.cli_names_sum = parse + build + push;
		key.cli_names_rss = rss * 1024;
		key.cli_names_filter = filter;
	}
}

static void ext_rows(void)
{
	char k[64], c[4][BT_CELL], nn[16];
	int i;

	cli_rows("ip4", "IPv4");
	cli_rows("ip4_gz", "IPv4, gzip -6: inflated and parsed in one thread");
	cli_rows("ip4_1t", "IPv4, --threads 1");
	cli_rows("names", "hostnames");
	cli_rows("names_1t", "hostnames, --threads 1");
	cli_rows("reload", "IPv4, reload onto the live instance");
	cli_rows("names_reload", "hostnames, reload onto the live instance");
	for (i = 0; i < 2; i++) {
		__u32 n = cfg.batch_sizes[i];
		double s;
		const char *st;

		snprintf(k, sizeof(k), "nft_%u_s", n);
		s = ext_num(k);
		snprintf(k, sizeof(k), "nft_%u_status", n);
		st = ext_get(k);
		load_row("nftables set (nft -f, private netns)", pow10_name(n, nn, sizeof(nn)), "-",
			 "-", "-", isnan(s) ? "-" : fmtf(c[0], BT_CELL, "%.3f", s),
			 isnan(s) ? "-" : fmtf(c[1], BT_CELL, "%.2f M/s", n / s / 1e6),
			 st ? st : "not measured");
	}
}

/* The samples scripts/bench.sh wrote for one veth row: "veth_ROW_ns x1 x2 ...". */
static int veth_samples(const char *row, double *v, int max)
{
	char k[64], *end;
	const char *p;
	int n = 0;

	snprintf(k, sizeof(k), "veth_%s_ns", row);
	for (p = ext_get(k); p && n < max; p = end) {
		v[n] = strtod(p, &end);
		if (end == p)
			break;
		n++;
	}
	return n;
}

/* Section 6, the optional veth part: one row per receiver, paired with the floor. */
static void veth_rows(void)
{
	static const struct {
		const char *row, *name, *note;
	} rows[] = {
		{ "floor", "XDP_DROP only (the floor)", "a two-instruction program: sender and veth" },
		{ "bloomblock", "bloomblock (XDP, native, drop mode)", "the list as a Bloom filter" },
		{ "xdp-filter", "xdp-filter (XDP, native; exact hash map)",
		  "one address: xdp-filter adds them one by one" },
		{ "nft", "nftables set, netdev ingress hook (GRO on)", "the list as an ipv4_addr set" },
	};
	double floor[MAX_ROUNDS], v[MAX_ROUNDS], net[MAX_ROUNDS];
	double list = ext_num("veth_list"), pkts = ext_num("veth_packets");
	char c[4][BT_CELL], nn[16];
	int nf = veth_samples("floor", floor, MAX_ROUNDS), i, j, n;

	for (i = 0; i < (int)ARRAY_SIZE(rows); i++) {
		struct st3 st, sn;

		n = veth_samples(rows[i].row, v, MAX_ROUNDS);
		if (!n)
			continue;
		st3_of(&st, v, n);
		for (j = 0; j < n && j < nf; j++)
			net[j] = v[j] - floor[j];
		st3_of(&sn, net, j);
		table_add(&t_veth, (const char *[]){
			rows[i].name,
			i == 2 ? "1" : isnan(list) ? "-" : fmtf(nn, sizeof(nn), "%.0f", list),
			st3_fmt(c[0], BT_CELL, &st, 1),
			fmtf(c[1], BT_CELL, "%.2f", 1e3 / st.med),
			i && j ? st3_fmt(c[2], BT_CELL, &sn, 1) : "-",
			rows[i].note,
		});
	}
	if (!isnan(pkts))
		table_note(&t_veth, "Each sample: %.0f frames of one listed source (203.0.113.7) from a "
			   "live-frames sender (BPF_PROG_RUN, XDP_TX) out of one veth into its "
			   "peer, in the benchmark's own namespace; sender and receiver run in one "
			   "syscall on one CPU, so ns per packet is CPU per packet, both sides. "
			   "Rows interleaved round by round; net: minus the floor of the same round.",
			   pkts);
}

/* ---- targets ---- */

#define LOAD_RSS_CONST_MIB	24	/* the constant of the streamed load's memory bound */

static void target(const char *what, const char *measured, const char *limit, bool met)
{
	const char *cells[] = { what, measured, limit, met ? "met" : "NOT MET" };

	table_add(&t_targets, cells);
}

static void targets(void)
{
	char m[BT_CELL], nn[16];
	int o;

	pow10_name(key.n_max, nn, sizeof(nn));
	for (o = 0; o < 2; o++) {
		double bb = key.cold[C_BB4][o], hash = key.cold[C_HASH][o];
		double bloom = key.cold[C_BLOOM][o];
		double bb_net = key.cold_net[C_BB4][o], hash_net = key.cold_net[C_HASH][o];
		double bloom_net = key.cold_net[C_BLOOM][o];
		char what[BT_CELL];

		/* the verdict on the ratio taken round by round (the rows of a round run
		 * back to back), as the hot and name targets are: on a shared host the
		 * medians of two rows can come from different minutes */
		snprintf(what, sizeof(what), "cold IPv4 check at %s (%s) <= 0.5x HASH", nn,
			 o ? "miss" : "hit");
		snprintf(m, sizeof(m), "%.2fx (paired); medians %.0f vs %.0f ns, net of derive "
			 "%.0f vs %.0f", key.cold_x_hash[o], bb, hash, bb_net, hash_net);
		target(what, m, "<= 0.50x", key.cold_x_hash[o] <= 0.5);
		snprintf(what, sizeof(what), "cold IPv4 check at %s (%s) < BLOOM_FILTER map", nn,
			 o ? "miss" : "hit");
		snprintf(m, sizeof(m), "%.2fx (paired); medians %.0f vs %.0f ns, net of derive "
			 "%.0f vs %.0f", key.cold_x_bloom[o], bb, bloom, bb_net, bloom_net);
		target(what, m, "< 1.00x", key.cold_x_bloom[o] < 1);
	}
	for (o = 0; o < 2; o++) {
		double x = key.hot_x_parse[H_BB4][o];
		char what[BT_CELL];

		snprintf(what, sizeof(what), "hot IPv4 check (%s) within 1.5x of parse+count",
			 o ? "miss" : "hit");
		snprintf(m, sizeof(m), "%.0f vs %.0f ns: %.2fx (paired); Bloom test without a "
			 "map %.2fx, exact HASH %.2fx", key.hot[H_BB4][o], key.hot[H_PARSE4][o],
			 x, key.hot_x_parse[H_IDEAL][o], key.hot_x_parse[H_HASH][o]);
		target(what, m, "<= 1.50x", x <= 1.5);
	}
	{
		static const int protos[3] = { P_DNS, P_TLS, P_HTTP };
		int i;

		for (i = 0; i < 3; i++)
			for (o = 0; o < 2; o++) {
				double v = key.name4[protos[i]][o], x = key.name4_x[protos[i]][o];
				char what[BT_CELL];

				snprintf(what, sizeof(what), "%s, 4 labels (%s) within 3x of the "
					 "IPv4 check", proto_names[protos[i]], o ? "miss" : "hit");
				snprintf(m, sizeof(m), "%.0f vs %.0f ns: %.2fx (paired)", v,
					 key.ipv4_ref, x);
				target(what, m, "<= 3.00x", x <= 3);
			}
	}
	snprintf(m, sizeof(m), "%.2f bits/entry (memlock) at %s; FPR measured %.4f%%, planned "
		 "%.4f%%", key.bb_bits, nn, 100 * key.bb_fpr_measured, 100 * key.bb_fpr_plan);
	target("at 0.1% FPR at most 16 bits per entry", m, "<= 16", key.bb_bits <= 16);
	snprintf(m, sizeof(m), "HASH %.0f bytes / bloomblock %.0f bytes = %.1fx", key.hash_bytes,
		 key.bb_bytes, key.hash_bytes / key.bb_bytes);
	target(">= 40x less memory than the hash map", m, ">= 40x",
	       key.hash_bytes / key.bb_bytes >= 40);
	{
		char ln[16], what[BT_CELL];

		pow10_name(key.load_lines, ln, sizeof(ln));
		snprintf(what, sizeof(what), "%s-line IPv4 list parsed+built+live < 3 s", ln);
		/* the verdict: the CLI's first load, process start to filter live (programs
		 * loaded and verified, attached); a reload and the in-memory path beside it */
		snprintf(m, sizeof(m), "CLI first load %.2fs (sum %.2fs), reload %.2fs; "
			 "in-memory 1t %.2fs, 2t %.2fs",
			 key.cli_ip4_wall, key.cli_ip4_sum, key.cli_ip4_reload_wall,
			 key.load_ip4_1t, key.load_ip4_2t);
		target(what, m, "< 3 s", key.cli_ip4_wall < 3);
		snprintf(what, sizeof(what), "%s-line hostname list parsed+built+live < 3 s", ln);
		snprintf(m, sizeof(m), "CLI first load %.2fs (sum %.2fs), reload %.2fs; "
			 "in-memory 1t %.2fs, 2t %.2fs",
			 key.cli_names_wall, key.cli_names_sum, key.cli_names_reload_wall,
			 key.load_names_1t, key.load_names_2t);
		target(what, m, "< 3 s", key.cli_names_wall < 3);
		/* the streamed load's bound (docs/DESIGN.md): the filter mapped, plus a constant */
		snprintf(what, sizeof(what), "%s-line lists: load peak RSS <= 2 x filter + %u MiB",
			 ln, LOAD_RSS_CONST_MIB);
		snprintf(m, sizeof(m), "IPv4 %.0f MiB (filter %.1f MiB), hostnames %.0f MiB "
			 "(filter %.1f MiB)", key.cli_ip4_rss / MIB, key.cli_ip4_filter / MIB,
			 key.cli_names_rss / MIB, key.cli_names_filter / MIB);
		target(what, m, "<= 2 x filter + const",
		       key.cli_ip4_rss <= 2 * key.cli_ip4_filter + LOAD_RSS_CONST_MIB * MIB &&
		       key.cli_names_rss <= 2 * key.cli_names_filter + LOAD_RSS_CONST_MIB * MIB);
	}
	snprintf(m, sizeof(m), "live after %.1f ms: copy %.1f ms, %.0f%% (%.0f-%.0f%%), %.2f GB/s; "
		 "memcpy %.2f mapped", 1e3 * key.push_live_s, 1e3 * key.push_copy_s,
		 100 * key.push_share, 100 * key.push_share_min, 100 * key.push_share_max,
		 key.push_bytes / key.push_copy_s / 1e9, key.push_bytes / key.memcpy_warm_s / 1e9);
	target("push of a built filter until live dominated by the copy (median of 9 pushes)", m, "copy >= 50% of it", key.push_share >= 0.5);
}

/* ---- the report ---- */

static void machine(FILE *f, bool md)
{
	char line[256], model[200] = "unknown", l3[32] = "?";
	struct utsname u;
	long long mem_kb = 0;
	FILE *p;

	p = fopen("/proc/cpuinfo", "r");
	if (p) {
		while (fgets(line, sizeof(line), p))
			if (sscanf(line, "model name : %199[^\n]", model) == 1)
				break;
		fclose(p);
	}
	p = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
	if (p) {
		if (fscanf(p, "%31s", l3) != 1)
			strcpy(l3, "?");
		fclose(p);
	}
	p = fopen("/proc/meminfo", "r");
	if (p) {
		if (fscanf(p, "MemTotal: %lld kB", &mem_kb) != 1)
			mem_kb = 0;
		fclose(p);
	}
	uname(&u);
	fprintf(f, "%sCPU: %s, %ld online CPUs (runs pinned to CPU %d), L3 %s; memory %.1f GiB\n",
		md ? "- " : "", model, sysconf(_SC_NPROCESSORS_ONLN), cfg.cpu, l3,
		mem_kb / 1048576.0);
	fprintf(f, "%sKernel: %s %s %s (%s)\n", md ? "- " : "", u.sysname, u.release, u.version,
		u.machine);
	{
		char clock[64] = "?", hyp[64] = "";
		int stats = -1;

		p = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
		if (p) {
			if (fscanf(p, "%d", &stats) != 1)
				stats = -1;
			fclose(p);
		}
		p = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
		if (p) {
			if (fscanf(p, "%63s", clock) != 1)
				strcpy(clock, "?");
			fclose(p);
		}
		p = fopen("/sys/hypervisor/type", "r");
		if (p) {
			if (fscanf(p, "%63s", hyp) != 1)
				hyp[0] = 0;
			fclose(p);
		}
		fprintf(f, "%skernel.bpf_stats_enabled=%d%s; clocksource %s%s%s\n", md ? "- " : "",
			stats, stats == 1 ? " (every program run reads sched_clock() twice: "
			"part of every figure, the empty floor included)" : "", clock,
			hyp[0] ? "; hypervisor " : "", hyp);
	}
	fprintf(f, "%sRun: %s mode, %d rounds per figure (median, min-max); cold repeat %u, hot "
		"repeat %u, name repeat %u; %s; commit %s\n", md ? "- " : "",
		cfg.quick ? "QUICK (smoke: small sizes)" : "full", cfg.rounds, cfg.cold_repeat,
		cfg.hot_repeat, cfg.name_repeat, getenv("BENCH_DATE") ? getenv("BENCH_DATE") : "",
		getenv("BENCH_COMMIT") ? getenv("BENCH_COMMIT") : "?");
}

static struct table *all_tables[] = { &t_cold, &t_hot, &t_names, &t_mem, &t_fpr, &t_load,
				      &t_veth, &t_targets };

static int write_results(void)
{
	char path[512], stamp[32];
	time_t t = time(NULL);
	FILE *f;
	size_t i;
	int pass;

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&t));
	for (pass = 0; pass < 4; pass++) {
		bool csv = pass % 2, latest = pass >= 2;

		snprintf(path, sizeof(path), "%s/%s%s.%s", cfg.out_dir,
			 latest ? "latest" : "bench-", latest ? "" : stamp, csv ? "csv" : "md");
		f = fopen(path, "w");
		if (!f) {
			warnx("%s: %s\n", path, strerror(errno));
			return -errno;
		}
		if (csv) {
			table_print_csv_header(f);
			for (i = 0; i < ARRAY_SIZE(all_tables); i++)
				table_print_csv(f, all_tables[i]);
		} else {
			fprintf(f, "## bloomblock benchmark%s\n\n", cfg.quick ? " (quick)" : "");
			machine(f, true);
			for (i = 0; i < ARRAY_SIZE(all_tables); i++)
				table_print_md(f, all_tables[i]);
		}
		fclose(f);
		if (!latest)
			fprintf(stderr, "bench: wrote %s\n", path);
	}
	return 0;
}

static void init_tables(void)
{
	static const char *const cold_cols[] = {
		"row", "n", "hit ns", "hit x empty", "hit net ns", "miss ns", "miss x empty",
		"miss net ns", "members found / non-members hit", NULL,
	};
	static const char *const hot_cols[] = {
		"row", "n", "hit ns", "x empty", "x parse", "hit net ns", "miss ns", "x empty",
		"x parse", "miss net ns", "verdicts", NULL,
	};
	static const char *const name_cols[] = {
		"row", "labels", "hit ns", "x floor", "x IPv4 check", "probes", "miss ns",
		"x floor", "x IPv4 check", "probes", "verdicts", NULL,
	};
	static const char *const mem_cols[] = {
		"structure", "n", "memlock bytes", "bytes/entry", "bytes/entry (MemAvailable)",
		"bits/entry", "x less than HASH", "FPR measured", "log2(1/FPR) bound bits", "note",
		NULL,
	};
	static const char *const fpr_cols[] = {
		"structure", "n", "non-member lookups", "hits", "of them covered by a listed CIDR",
		"measured FPR", "predicted FPR", "measured / predicted", "prediction", NULL,
	};
	static const char *const load_cols[] = {
		"what", "lines/keys", "parse s", "build s", "push s", "total s", "rate", "note",
		NULL,
	};
	static const char *const target_cols[] = { "target", "measured", "limit", "verdict",
						   NULL };
	static const char *const veth_cols[] = {
		"receiver", "list", "ns per packet", "Mpps", "net of floor ns", "note", NULL,
	};

	table_init(&t_cold, "cold", "1a. Source-address check, cache-cold: each run a different "
		   "address (ns per run)", 2, cold_cols);
	table_note(&t_cold, "Each run derives its address from a per-CPU counter (members: hit, "
		   "non-members: miss), spread over the address space; every row of a round "
		   "derives the same addresses. \"net\" subtracts the \"derive only\" row. "
		   "Last column: share of member runs that hit (must be 100%%) / of non-member "
		   "runs that hit: false positives, and for the CIDR-heavy list also non-members "
		   "that a listed prefix really covers (the exact LPM_TRIE CIDR-heavy row counts "
		   "those).");
	table_init(&t_hot, "hot", "1b. Source-address check, hot: the same packet every run (ns "
		   "per run)", 2, hot_cols);
	table_note(&t_hot, "\"parse + X\" rows parse and count exactly as bloomblock_core() "
		   "does, then look the source up in X; bloomblock_xdp rows run the real entry "
		   "program. \"x parse\" is to parse+count of the same family.");
	table_init(&t_names, "names", "2. Name screening through the real program, hot (ns per "
		   "packet)", 2, name_cols);
	table_init(&t_mem, "memory", "3. Memory per entry", 2, mem_cols);
	table_note(&t_mem, "memlock: the kernel's accounting of each map (fdinfo). MemAvailable: "
		   "the system's available memory before and after creating and filling the map "
		   "(noisy for small maps; other activity on the machine shows up here). "
		   "bloomblock's FPR is per packet (one trial per probe length); its bound is "
		   "log2(1/FPR) for the FPR measured.");
	table_init(&t_fpr, "fpr", "4. False-positive rate of cold non-member lookups", 2,
		   fpr_cols);
	table_note(&t_fpr, "Non-members no timed run used, one lookup each. bloomblock's FPR is "
		   "per packet: one Bloom trial per probe length of the family (the short table "
		   "is exact). For the CIDR-heavy list, non-members inside a listed prefix are "
		   "true hits (the exact trie finds the same ones) and are left out of its FPR.");
	table_init(&t_load, "load", "5. Load path", 1, load_cols);
	table_init(&t_veth, "veth", "6. veth throughput: XDP drop against an nftables set drop", 1,
		   veth_cols);
	table_init(&t_targets, "targets", "Targets (same run)", 1, target_cols);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench [--quick] [--out DIR] [--lists DIR] [--load-results FILE]\n"
		"             [--rounds N] [--cpu N]\n"
		"       bench --gen DIR LINES      write DIR/ip4.txt and DIR/names.txt\n"
		"       bench --gen-nft FILE N     write an nftables set of N addresses\n"
		"       bench --sizes              print the load-path and nft sizes of a mode\n"
		"       bench --profile ROW [--seconds S] [--cpu N] [--line-map FILE]\n"
		"                                  run one row (empty, parse, ip4-hit, ip4-miss,\n"
		"                                  ip4-cold, dns, tls, http, and -hit of those three)\n"
		"                                  for perf record -C N;\n"
		"                                  --line-map: where its source lines are in the\n"
		"                                  JIT images (scripts/profile.sh)\n"
		"       bench --veth-tx IF MAC SRC N  send N UDP frames from SRC out of veth IF\n"
		"                                  to its peer's MAC (live-frames test run);\n"
		"                                  prints ns per packet, send and receive\n"
		"       bench --xdp-drop IF        attach a drop-everything XDP program to IF\n"
		"Normally run by scripts/bench.sh (make bench); needs root.\n");
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "out", required_argument, NULL, 'o' },
		{ "lists", required_argument, NULL, 'l' },
		{ "load-results", required_argument, NULL, 'r' },
		{ "rounds", required_argument, NULL, 'R' },
		{ "cpu", required_argument, NULL, 'c' },
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
	const char *gen = NULL, *gen_nft = NULL, *profile = NULL, *line_map = NULL;
	const char *veth_tx = NULL, *xdp_drop = NULL;
	double seconds = 10;
	bool sizes = false;
	int opt, err = 0, i;
	cpu_set_t set;

	cfg.out_dir = "bench-results";
	cfg.rounds = 0;
	cfg.cpu = -1;
	while ((opt = getopt_long(argc, argv, "qo:l:r:R:c:g:n:sp:S:L:T:D:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'q': cfg.quick = true; break;
		case 'o': cfg.out_dir = optarg; break;
		case 'l': cfg.lists_dir = optarg; break;
		case 'r': cfg.load_results = optarg; break;
		case 'R': cfg.rounds = atoi(optarg); break;
		case 'c': cfg.cpu = atoi(optarg); break;
		case 'g': gen = optarg; break;
		case 'n': gen_nft = optarg; break;
		case 's': sizes = true; break;
		case 'p': profile = optarg; break;
		case 'S': seconds = atof(optarg); break;
		case 'L': line_map = optarg; break;
		case 'T': veth_tx = optarg; break;
		case 'D': xdp_drop = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (xdp_drop) {
		err = bench_xdp_drop_attach(xdp_drop);
		if (err)
			warnx("--xdp-drop %s: %s\n", xdp_drop, strerror(-err));
		return err ? 1 : 0;
	}
	if (veth_tx) {
		double ns;

		if (optind + 3 > argc) {
			usage(stderr);
			return 2;
		}
		err = bench_veth_tx(veth_tx, argv[optind], argv[optind + 1],
				    (__u32)strtoul(argv[optind + 2], NULL, 0), &ns);
		if (err) {
			warnx("--veth-tx %s: %s\n", veth_tx, strerror(-err));
			return 1;
		}
		printf("%.2f\n", ns);
		return 0;
	}
	if (gen || gen_nft) {
		char path[512];
		__u32 n;

		if (optind >= argc) {
			usage(stderr);
			return 2;
		}
		n = (__u32)strtoul(argv[optind], NULL, 0);
		if (gen_nft) {
			err = bench_write_nft_file(gen_nft, n);
		} else {
			snprintf(path, sizeof(path), "%s/ip4.txt", gen);
			err = bench_write_ip4_file(path, n);
			snprintf(path, sizeof(path), "%s/names.txt", gen);
			err = err ?: bench_write_names_file(path, n);
		}
		if (err)
			warnx("writing lists: %s\n", strerror(-err));
		return err ? 1 : 0;
	}
	if (cfg.quick) {
		cfg.sizes[0] = 10000;
		cfg.sizes[1] = 100000;
		cfg.nsizes = 2;
		cfg.cold_repeat = cfg.hot_repeat = 100000;
		cfg.name_repeat = 50000;
		cfg.split_pairs = 300;
		cfg.fpr_lookups = 100000;
		cfg.names_n = 10000;
		cfg.batch_sizes[0] = 10000;
		cfg.batch_sizes[1] = 100000;
		cfg.rounds = cfg.rounds ?: 3;
	} else {
		cfg.sizes[0] = 10000;
		cfg.sizes[1] = 1000000;
		cfg.sizes[2] = 10000000;
		cfg.nsizes = 3;
		cfg.cold_repeat = cfg.hot_repeat = 1000000;
		cfg.name_repeat = 200000;
		cfg.split_pairs = 2000;
		cfg.fpr_lookups = 1000000;
		cfg.names_n = 1000000;
		cfg.batch_sizes[0] = 1000000;
		cfg.batch_sizes[1] = 10000000;
		cfg.rounds = cfg.rounds ?: 7;
	}
	if (sizes) {
		/* for scripts/bench.sh: load-path lines, then the nft sizes */
		printf("%u %u %u\n", cfg.batch_sizes[1], cfg.batch_sizes[0], cfg.batch_sizes[1]);
		return 0;
	}
	if (cfg.rounds < 1 || cfg.rounds > MAX_ROUNDS) {
		warnx("--rounds: 1 to %d\n", MAX_ROUNDS);
		return 2;
	}
	if (geteuid()) {
		warnx("needs root (BPF_PROG_TEST_RUN, map creation)\n");
		return 1;
	}
	cfg.ncpus = libbpf_num_possible_cpus();
	percpu = calloc(cfg.ncpus > 0 ? cfg.ncpus : 1, sizeof(*percpu));
	if (!percpu)
		return 1;
	/* one CPU: per-CPU counters stay in one slot, and the rows share the same core */
	if (cfg.cpu < 0)
		cfg.cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	CPU_ZERO(&set);
	CPU_SET(cfg.cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		warnx("cannot pin to CPU %d: %s\n", cfg.cpu, strerror(errno));
	libbpf_set_print(NULL);
	if (profile)
		return profile_run(profile, seconds, line_map) ? 1 : 0;
	init_tables();
	key.n_max = cfg.sizes[cfg.nsizes - 1];

	for (i = 0; i < cfg.nsizes && !err; i++)
		err = run_size(cfg.sizes[i], i == cfg.nsizes - 1);
	settle_memory();
	err = err ?: run_names();
	if (!err) {
		if (cfg.load_results)
			ext_read(cfg.load_results);
		key.load_lines = cfg.batch_sizes[1];
		ext_rows();
		veth_rows();
		if (cfg.lists_dir) {
			char path[512];
			cpu_set_t all;

			/* the load path runs on every CPU, as the CLI does: threads scale */
			CPU_ZERO(&all);
			for (i = 0; i < sysconf(_SC_NPROCESSORS_ONLN) && i < CPU_SETSIZE; i++)
				CPU_SET(i, &all);
			if (sched_setaffinity(0, sizeof(all), &all))
				warnx("cannot unpin for the load path: %s\n", strerror(errno));
			snprintf(path, sizeof(path), "%s/ip4.txt", cfg.lists_dir);
			err = load_list(path, false, key.load_lines);
			snprintf(path, sizeof(path), "%s/names.txt", cfg.lists_dir);
			err = err ?: load_list(path, true, key.load_lines);
			sched_setaffinity(0, sizeof(set), &set);
		}
		for (i = 0; i < 2 && !err; i++)
			err = hash_batch(cfg.batch_sizes[i]);
	}
	if (err) {
		warnx("stopped: %s\n", strerror(-err));
		return 1;
	}
	targets();

	fflush(stderr);
	printf("\nbloomblock benchmark%s\n", cfg.quick ? " (quick)" : "");
	machine(stdout, false);
	for (i = 0; i < (int)ARRAY_SIZE(all_tables); i++)
		table_print_text(stdout, all_tables[i]);
	fflush(stdout);
	err = write_results();
	for (i = 0; i < (int)ARRAY_SIZE(all_tables); i++)
		table_free(all_tables[i]);
	free(percpu);
	return err ? 1 : 0;
}

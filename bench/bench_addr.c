// SPDX-License-Identifier: GPL-2.0
/*
 * The address rows: bloomblock's source-address check against a hash map, an LPM trie
 * and the kernel's Bloom filter map, at each list size. Per size: the comparator maps
 * and bloomblock's filters, then round by round the cache-cold runs (table 1a) and the
 * hot runs (1b), then what an allowlist adds to the IPv4 check (1c), each structure's
 * memory (3) and its FPR on cold non-members (4).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bb_hash.h"
#include "bench_parts.h"
#include "bench_seq.h"
#include "bench.skel.h"	/* after bench_seq.h: its .bss holds struct bench_cfg */
#include "pins.h"

#define MISS_SPAN	BENCH_M31	/* non-members: the counter practically never wraps */
#define FPR_START	(1U << 30)	/* FPR runs use non-members no timed run used */
/* The allowlist: the last non-members below 2^31, past every timed and FPR run's. */
#define ALLOW_START	(BENCH_M31 + 1 - ADDR_ALLOW_N)

_Static_assert(ADDR_ALLOW_N == 100000, "the allowlist rows' names say 10^5");
_Static_assert(FPR_START < ALLOW_START, "the FPR runs start below the allowlist");

enum cold_row {
	COLD_EMPTY, COLD_DERIVE, COLD_HASH, COLD_LPM, COLD_BLOOM, COLD_BB_IP4, COLD_BB_ALLOW,
	COLD_HASH6, COLD_LPM6, COLD_BB_IP6, COLD_BB_CIDR, COLD_LPM_CIDR, COLD_MAX,
};

enum hot_row {
	HOT_EMPTY, HOT_PARSE4, HOT_PARSE6, HOT_HASH, HOT_LPM, HOT_BLOOM, HOT_IDEAL, HOT_BB_IP4,
	HOT_BB_ALLOW, HOT_HASH6, HOT_LPM6, HOT_BB_IP6, HOT_BB_CIDR, HOT_LPM_CIDR, HOT_MAX,
};

/*
 * bloomblock's filters of one size, and the hot packets' kinds: one per list. ALLOW
 * is the IPv4 list and ADDR_ALLOW_N allowlisted non-members: the same Bloom bits.
 * Its rows come right after the plain IPv4 rows in every round (the enums' order),
 * so that the two are compared back to back (table 1c).
 */
enum filter_kind {
	FILTER_NONE = -1, FILTER_IP4, FILTER_IP6, FILTER_CIDR, FILTER_ALLOW, FILTER_MAX
};

static const char *const cold_names[COLD_MAX] = {
	[COLD_EMPTY] = "empty XDP (floor)",
	[COLD_DERIVE] = "derive only (counter + address)",
	[COLD_HASH] = "BPF_MAP_TYPE_HASH",
	[COLD_LPM] = "BPF_MAP_TYPE_LPM_TRIE",
	[COLD_BLOOM] = "BPF_MAP_TYPE_BLOOM_FILTER (k=5)",
	[COLD_BB_IP4] = "bloomblock IPv4",
	[COLD_BB_ALLOW] = "bloomblock IPv4 + 10^5 allowlist",
	[COLD_HASH6] = "BPF_MAP_TYPE_HASH IPv6",
	[COLD_LPM6] = "BPF_MAP_TYPE_LPM_TRIE IPv6",
	[COLD_BB_IP6] = "bloomblock IPv6",
	[COLD_BB_CIDR] = "bloomblock CIDR-heavy",
	[COLD_LPM_CIDR] = "LPM_TRIE CIDR-heavy",
};

static const char *const hot_names[HOT_MAX] = {
	[HOT_EMPTY] = "empty XDP (floor)",
	[HOT_PARSE4] = "parse+count IPv4",
	[HOT_PARSE6] = "parse+count IPv6",
	[HOT_HASH] = "parse + HASH",
	[HOT_LPM] = "parse + LPM_TRIE",
	[HOT_BLOOM] = "parse + BLOOM_FILTER",
	[HOT_IDEAL] = "parse + Bloom test, no map (lower bound)",
	[HOT_BB_IP4] = "bloomblock_xdp IPv4",
	[HOT_BB_ALLOW] = "bloomblock_xdp IPv4 + 10^5 allowlist",
	[HOT_HASH6] = "parse + HASH IPv6",
	[HOT_LPM6] = "parse + LPM_TRIE IPv6",
	[HOT_BB_IP6] = "bloomblock_xdp IPv6",
	[HOT_BB_CIDR] = "bloomblock_xdp CIDR-heavy",
	[HOT_LPM_CIDR] = "parse + LPM_TRIE CIDR-heavy",
};

/* The comparator maps, by the fill kind that fills them; named as in bpf/bench.bpf.c. */
static const struct {
	const char *name;
	enum bpf_map_type type;
	__u32 key_size;
	__u32 flags;
} comparators[BENCH_FILL_MAX] = {
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

/* One row's samples, [hit, miss][round], and the runs just before each. */
struct row_samples {
	double ns[2][MAX_ROUNDS];
	double floor[2][MAX_ROUNDS];	/* the empty program */
	double ref[2][MAX_ROUNDS];	/* cold: derive only; hot: parse+count */
};

/* Everything of one list size: its maps, its skeleton, its filters, its samples. */
struct size_run {
	__u32 n;
	struct bench *skel;
	int comparator_fd[BENCH_FILL_MAX];
	long long sys_kb[BENCH_FILL_MAX];	/* what each comparator took: create + fill */
	int state_fd, filters_fd;
	struct bench_cpu *percpu;	/* bench_state's value: one slot per possible CPU */
	int ncpus;
	struct bench_filter filters[FILTER_MAX];
	int live;			/* the filter in the filters slot, or FILTER_NONE */
	double skeleton_load_s;
	__u32 cidr_hit_j, cidr_miss_j;	/* the hot CIDR packets' sources */
	struct packet hot_pkt[FILTER_MAX][2];	/* [list][hit, miss] */
	struct row_samples cold[COLD_MAX], hot[HOT_MAX];
	__u64 cold_runs[COLD_MAX][2], cold_hits[COLD_MAX][2];	/* what the counter saw */
	int hot_bad[HOT_MAX][2];	/* runs with the wrong verdict */
	__u64 fpr_runs[COLD_MAX], fpr_hits[COLD_MAX];
};

/* ---- the cold programs' per-CPU counter ---- */

static int state_read(struct size_run *s, __u64 *runs, __u64 *hits)
{
	__u32 zero = 0;
	int cpu;

	if (bpf_map_lookup_elem(s->state_fd, &zero, s->percpu))
		return -errno;
	*runs = *hits = 0;
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		*runs += s->percpu[cpu].runs;
		*hits += s->percpu[cpu].hits;
	}
	return 0;
}

/* Every CPU starts at index next: the rows of one round derive the same addresses. */
static int state_start(struct size_run *s, __u64 next)
{
	__u32 zero = 0;
	int cpu;

	if (bpf_map_lookup_elem(s->state_fd, &zero, s->percpu))
		return -errno;
	for (cpu = 0; cpu < s->ncpus; cpu++)
		s->percpu[cpu].next = next;
	return bpf_map_update_elem(s->state_fd, &zero, s->percpu, BPF_ANY) ? -errno : 0;
}

/* ---- one size's maps, skeleton and filters ---- */

static int fill_map(struct size_run *s, enum bench_fill_kind kind, __u32 n)
{
	return comparator_fill(s->skel, kind, n);
}

static int create_comparators(struct size_run *s)
{
	int i;

	for (i = 0; i < BENCH_FILL_MAX; i++) {
		LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = comparators[i].flags);
		long long m0 = mem_available_kb();

		s->comparator_fd[i] = bpf_map_create(comparators[i].type, comparators[i].name,
						     comparators[i].key_size, 4, s->n, &opts);
		s->sys_kb[i] = m0 - mem_available_kb();
		if (s->comparator_fd[i] < 0) {
			bench_warn("comparator map %s for n=%u: %s\n", comparators[i].name, s->n,
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

/* The skeleton with the comparators created at this size (bpf_map__reuse_fd). */
static int load_skeleton(struct size_run *s)
{
	double t0 = now_s();
	int err, i;

	s->skel = bench__open();
	if (!s->skel)
		return -errno;
	for (i = 0; i < BENCH_FILL_MAX; i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(s->skel->obj,
								   comparators[i].name);

		err = map ? bpf_map__reuse_fd(map, s->comparator_fd[i]) : -ENOENT;
		if (err)
			return err;
	}
	err = bench__load(s->skel);
	err = err ?: bb_stage_tables_fill(s->skel->obj, BB_FAMILY_ALL);
	if (err)
		return err;
	s->skeleton_load_s = now_s() - t0;
	ideal_fill(s->skel);
	s->state_fd = bpf_map__fd(s->skel->maps.bench_state);
	s->filters_fd = bpf_map__fd(s->skel->maps.filters);
	return 0;
}

static int size_run_init(struct size_run *s, __u32 n)
{
	int i;

	s->n = n;
	s->live = FILTER_NONE;
	for (i = 0; i < BENCH_FILL_MAX; i++)
		s->comparator_fd[i] = -1;
	for (i = 0; i < FILTER_MAX; i++)
		s->filters[i].fd = -1;
	s->ncpus = libbpf_num_possible_cpus();
	s->percpu = calloc(s->ncpus > 0 ? s->ncpus : 1, sizeof(*s->percpu));
	return s->percpu ? 0 : -ENOMEM;
}

static void size_run_free(struct size_run *s)
{
	int i;

	for (i = 0; i < FILTER_MAX; i++)
		filter_close(&s->filters[i]);
	bench__destroy(s->skel);
	s->skel = NULL;
	for (i = 0; i < BENCH_FILL_MAX; i++) {
		if (s->comparator_fd[i] >= 0)
			close(s->comparator_fd[i]);
		s->comparator_fd[i] = -1;
	}
	free(s->percpu);
	s->percpu = NULL;
}

/* The comparators created, the skeleton loaded on them, then each filled. */
static int setup_comparators(struct size_run *s)
{
	double t0;
	int err, i;

	progress("n=%u: comparator maps", s->n);
	err = create_comparators(s);
	err = err ?: load_skeleton(s);
	if (err) {
		bench_warn("bench skeleton (n=%u): %s\n", s->n, strerror(-err));
		return err;
	}
	progress("n=%u: skeleton loaded (all programs verified) in %.2fs; filling", s->n,
		 s->skeleton_load_s);
	for (i = 0; i < BENCH_FILL_MAX; i++) {
		long long m0 = mem_available_kb();

		t0 = now_s();
		err = fill_map(s, i, s->n);
		if (err) {
			bench_warn("fill %s: %s\n", comparators[i].name, strerror(-err));
			return err;
		}
		s->sys_kb[i] += m0 - mem_available_kb();
		progress("n=%u: %s filled in %.2fs", s->n, comparators[i].name, now_s() - t0);
	}
	return 0;
}

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

/* The IPv4 list, then ADDR_ALLOW_N allowlisted non-members no run looks up. */
static int list_ip4_allow(struct bb_list *list, __u32 n)
{
	return bench_list_ip4(list, n) ?: bench_list_allow_ip4(list, ALLOW_START, ADDR_ALLOW_N);
}

/*
 * The allowlisted filter must differ from the IPv4 one by its allowlist alone (the
 * allowlist's entries are not Bloom keys), holding every allowlisted address.
 */
static int allow_filter_check(const struct size_run *s)
{
	const struct bench_filter *ip4 = &s->filters[FILTER_IP4], *al = &s->filters[FILTER_ALLOW];

	if (al->hdr.nblocks == ip4->hdr.nblocks && al->hdr.items == ip4->hdr.items &&
	    al->hdr.k == ip4->hdr.k && al->allow_items == ADDR_ALLOW_N)
		return 0;
	bench_warn("n=%u: the allowlisted filter is not the IPv4 one plus %u allowlist keys "
		   "(%u/%u blocks, %llu/%llu keys, %llu allowed)\n", s->n, ADDR_ALLOW_N,
		   al->hdr.nblocks, ip4->hdr.nblocks, (unsigned long long)al->hdr.items,
		   (unsigned long long)ip4->hdr.items, (unsigned long long)al->allow_items);
	return -EINVAL;
}

/* bloomblock's four filters of this size, and the CIDR list's hot hit and miss. */
static int build_filters(struct size_run *s)
{
	int (*const lists[FILTER_MAX])(struct bb_list *, __u32) = {
		[FILTER_IP4] = bench_list_ip4,
		[FILTER_IP6] = bench_list_ip6,
		[FILTER_CIDR] = bench_list_cidr,
		[FILTER_ALLOW] = list_ip4_allow,
	};
	struct bb_list list;
	int err = 0, i;

	progress("n=%u: building bloomblock filters", s->n);
	for (i = 0; i < FILTER_MAX && !err; i++) {
		err = lists[i](&list, s->n);
		err = err ?: filter_make(&s->filters[i], &list, BB_HDR_F_DROP);
		bb_list_free(&list);
	}
	err = err ?: allow_filter_check(s);
	if (err)
		return err;
	s->cidr_hit_j = cidr_worst_member(s->n);
	for (s->cidr_miss_j = 0; cidr_covered(bench_ip4(s->cidr_miss_j, 1), s->n);
	     s->cidr_miss_j++)
		;
	return 0;
}

/* The hot packets: the first member and non-member of each list, from UDP. */
static void build_hot_packets(struct size_run *s)
{
	int o;

	for (o = 0; o < 2; o++) {
		__u8 a[16];

		bench_addr(0, o, a);
		udp_to_discard(&s->hot_pkt[FILTER_IP4][o], a, false);
		udp_to_discard(&s->hot_pkt[FILTER_IP6][o], a, true);
		bench_addr(o ? s->cidr_miss_j : s->cidr_hit_j, o, a);
		udp_to_discard(&s->hot_pkt[FILTER_CIDR][o], a, false);
		/* the IPv4 list's: member 0 is not allowed, so it is still dropped */
		s->hot_pkt[FILTER_ALLOW][o] = s->hot_pkt[FILTER_IP4][o];
	}
}

/* ---- the runs ---- */

/* The program of a cold row; *slot: the filter it needs in the filters slot. */
static int cold_prog(const struct size_run *s, int row, int *slot)
{
	const struct bench *k = s->skel;

	*slot = FILTER_NONE;
	switch (row) {
	case COLD_EMPTY: return bpf_program__fd(k->progs.bench_empty);
	case COLD_DERIVE: return bpf_program__fd(k->progs.bench_derive);
	case COLD_HASH: return bpf_program__fd(k->progs.bench_hash_cold);
	case COLD_LPM: return bpf_program__fd(k->progs.bench_lpm_cold);
	case COLD_HASH6: return bpf_program__fd(k->progs.bench_hash6_cold);
	case COLD_LPM6: return bpf_program__fd(k->progs.bench_lpm6_cold);
	case COLD_LPM_CIDR: return bpf_program__fd(k->progs.bench_lpm_cidr_cold);
	case COLD_BLOOM: return bpf_program__fd(k->progs.bench_bloom_cold);
	case COLD_BB_IP4: *slot = FILTER_IP4; return bpf_program__fd(k->progs.bench_bb_ip4_cold);
	case COLD_BB_ALLOW:
		*slot = FILTER_ALLOW;
		return bpf_program__fd(k->progs.bench_bb_allow_cold);
	case COLD_BB_IP6: *slot = FILTER_IP6; return bpf_program__fd(k->progs.bench_bb_ip6_cold);
	case COLD_BB_CIDR: *slot = FILTER_CIDR; return bpf_program__fd(k->progs.bench_bb_ip4_cold);
	}
	return -1;
}

/*
 * The program of a hot row; *slot: the filter it needs, *pkt_kind: its packets' list,
 * *lookup: whether it looks the source up (and so has a verdict to check).
 */
static int hot_prog(const struct size_run *s, int row, int *slot, int *pkt_kind, bool *lookup)
{
	const struct bench *k = s->skel;

	*slot = FILTER_NONE;
	*pkt_kind = FILTER_IP4;
	*lookup = true;
	switch (row) {
	case HOT_EMPTY: *lookup = false; return bpf_program__fd(k->progs.bench_empty);
	case HOT_PARSE4: *lookup = false; return bpf_program__fd(k->progs.bench_parse);
	case HOT_PARSE6:
		*lookup = false;
		*pkt_kind = FILTER_IP6;
		return bpf_program__fd(k->progs.bench_parse);
	case HOT_HASH: return bpf_program__fd(k->progs.bench_hash_hot);
	case HOT_LPM: return bpf_program__fd(k->progs.bench_lpm_hot);
	case HOT_BLOOM: return bpf_program__fd(k->progs.bench_bloom_hot);
	case HOT_IDEAL: return bpf_program__fd(k->progs.bench_bloom_ideal_hot);
	case HOT_HASH6: *pkt_kind = FILTER_IP6; return bpf_program__fd(k->progs.bench_hash6_hot);
	case HOT_LPM6: *pkt_kind = FILTER_IP6; return bpf_program__fd(k->progs.bench_lpm6_hot);
	case HOT_LPM_CIDR:
		*pkt_kind = FILTER_CIDR;
		return bpf_program__fd(k->progs.bench_lpm_cidr_hot);
	case HOT_BB_IP4: *slot = FILTER_IP4; return bpf_program__fd(k->progs.bloomblock_xdp);
	case HOT_BB_ALLOW:
		*slot = FILTER_ALLOW;
		*pkt_kind = FILTER_ALLOW;
		return bpf_program__fd(k->progs.bloomblock_xdp);
	case HOT_BB_IP6:
		*slot = FILTER_IP6;
		*pkt_kind = FILTER_IP6;
		return bpf_program__fd(k->progs.bloomblock_xdp);
	case HOT_BB_CIDR:
		*slot = FILTER_CIDR;
		*pkt_kind = FILTER_CIDR;
		return bpf_program__fd(k->progs.bloomblock_xdp);
	}
	return -1;
}

/* Put the filter a row needs into the filters slot, unless it is there already. */
static int filter_live(struct size_run *s, int slot)
{
	int err;

	if (slot == FILTER_NONE || slot == s->live)
		return 0;
	err = filter_slot_set(s->filters_fd, s->filters[slot].fd);
	if (!err)
		s->live = slot;
	return err;
}

/* One cold run of a row from index start; what hit goes to the row's counters. */
static int cold_one(struct size_run *s, int row, __u64 start, double *ns)
{
	__u8 dummy[64] = { 0 };
	__u64 runs0, hits0, runs1, hits1;
	int slot, err, fd = cold_prog(s, row, &slot);
	__u32 miss = s->skel->bss->bench_cfg.miss;

	err = filter_live(s, slot);
	err = err ?: state_start(s, start);
	err = err ?: state_read(s, &runs0, &hits0);
	err = err ?: test_run(fd, dummy, sizeof(dummy), settings.cold_repeat, ns, NULL);
	err = err ?: state_read(s, &runs1, &hits1);
	if (err)
		return err;
	s->cold_runs[row][miss] += runs1 - runs0;
	s->cold_hits[row][miss] += hits1 - hits0;
	return 0;
}

/*
 * Round r of the cold rows: hits, then misses; every row of a round derives the same
 * addresses. Each row runs right after an empty and a derive-only run: the ratios and
 * differences are taken pair by pair, so slow drift of the machine (other work on the
 * host, the other vCPU) cancels.
 */
static int cold_round(struct size_run *s, int r)
{
	int row, o, err;

	for (o = 0; o < 2; o++) {
		__u64 span = o ? MISS_SPAN : s->n;
		__u64 start = ((__u64)r * settings.cold_repeat) % span;

		s->skel->bss->bench_cfg.span = span;
		s->skel->bss->bench_cfg.miss = o;
		for (row = 0; row < COLD_MAX; row++) {
			struct row_samples *rs = &s->cold[row];

			err = cold_one(s, COLD_EMPTY, start, &rs->floor[o][r]);
			err = err ?: cold_one(s, COLD_DERIVE, start, &rs->ref[o][r]);
			err = err ?: cold_one(s, row, start, &rs->ns[o][r]);
			if (err) {
				bench_warn("cold %s: %s\n", cold_names[row], strerror(-err));
				return err;
			}
		}
	}
	return 0;
}

/* Round r of the hot rows: the same packet every run; each right after empty and parse. */
static int hot_round(struct size_run *s, int r)
{
	int parse_fd = bpf_program__fd(s->skel->progs.bench_parse);
	int empty_fd = bpf_program__fd(s->skel->progs.bench_empty);
	bool lookup;
	int row, o, err;

	for (row = 0; row < HOT_MAX; row++) {
		struct row_samples *rs = &s->hot[row];

		for (o = 0; o < 2; o++) {
			int slot, pkt_kind, fd = hot_prog(s, row, &slot, &pkt_kind, &lookup);
			const struct packet *p = &s->hot_pkt[pkt_kind][o];
			__u32 ret;

			err = filter_live(s, slot);
			if (err)
				return err;
			err = test_run(empty_fd, p->data, p->len, settings.hot_repeat,
				       &rs->floor[o][r], NULL);
			err = err ?: test_run(parse_fd, p->data, p->len, settings.hot_repeat,
					      &rs->ref[o][r], NULL);
			err = err ?: test_run(fd, p->data, p->len, settings.hot_repeat,
					      &rs->ns[o][r], &ret);
			if (err) {
				bench_warn("hot %s: %s\n", hot_names[row], strerror(-err));
				return err;
			}
			if (lookup && ret != (o ? XDP_PASS : XDP_DROP))
				s->hot_bad[row][o]++;
		}
	}
	return 0;
}

/* Table 4's lookups: cold non-members, none of them used by a timed run. */
static int fpr_lookups(struct size_run *s)
{
	__u8 dummy[64] = { 0 };
	int row, err;

	s->skel->bss->bench_cfg.span = MISS_SPAN;
	s->skel->bss->bench_cfg.miss = 1;
	for (row = COLD_HASH; row < COLD_MAX; row++) {
		int slot, fd = cold_prog(s, row, &slot);
		__u64 runs0, hits0, runs1, hits1;
		double ns;

		err = filter_live(s, slot);
		err = err ?: state_start(s, FPR_START);
		err = err ?: state_read(s, &runs0, &hits0);
		err = err ?: test_run(fd, dummy, sizeof(dummy), settings.fpr_lookups, &ns, NULL);
		err = err ?: state_read(s, &runs1, &hits1);
		if (err)
			return err;
		s->fpr_runs[row] = runs1 - runs0;
		s->fpr_hits[row] = hits1 - hits0;
	}
	return 0;
}

static int measure_size(struct size_run *s)
{
	double t0 = now_s();
	int r, err = 0;

	progress("n=%u: measuring (%d rounds)", s->n, settings.rounds);
	build_hot_packets(s);
	for (r = 0; r < settings.rounds && !err; r++) {
		err = cold_round(s, r);
		err = err ?: hot_round(s, r);
	}
	err = err ?: fpr_lookups(s);
	if (!err)
		progress("n=%u: measured in %.1fs", s->n, now_s() - t0);
	return err;
}

/* ---- the rows ---- */

/*
 * Non-member lookups that the CIDR-heavy list really covers (the exact trie says
 * which, on the same addresses) are hits, not false positives.
 */
static __u64 fpr_covered(const struct size_run *s, int row)
{
	return row == COLD_BB_CIDR || row == COLD_LPM_CIDR ? s->fpr_hits[COLD_LPM_CIDR] : 0;
}

static double fpr_of(const struct size_run *s, int row)
{
	__u64 covered = fpr_covered(s, row), runs = s->fpr_runs[row] - covered;

	return runs ? (double)(s->fpr_hits[row] - covered) / runs : NAN;
}

/*
 * What the per-CPU counter saw in a cold row: every member found; non-members hit
 * only as false positives, or (CIDR) when a listed prefix covers them.
 */
static void cold_found(const struct size_run *s, int row, char *buf, size_t size)
{
	double hit = s->cold_runs[row][0] ? (double)s->cold_hits[row][0] / s->cold_runs[row][0] :
					    NAN;
	double fp = s->cold_runs[row][1] ? (double)s->cold_hits[row][1] / s->cold_runs[row][1] :
					   NAN;

	snprintf(buf, size, "%s%.1f%% / %.3f%%", hit == 1.0 ? "" : "CHECK ", 100 * hit, 100 * fp);
}

static void cold_rows(const struct size_run *s, struct addr_results *res, bool largest)
{
	double median[COLD_MAX][2], net[COLD_MAX][2];
	char nn[16], c[6][BT_CELL];
	int row, o, n = settings.rounds;

	pow10_name(s->n, nn, sizeof(nn));
	for (row = 0; row < COLD_MAX; row++) {
		const struct row_samples *rs = &s->cold[row];
		char found[BT_CELL] = "";
		const char *cells[12];
		struct st3 st;
		int i = 0;

		cells[i++] = cold_names[row];
		cells[i++] = nn;
		for (o = 0; o < 2; o++) {
			st3_of(&st, rs->ns[o], n);
			median[row][o] = st.med;
			net[row][o] = paired(rs->ns[o], rs->ref[o], n, false);
			cells[i++] = st3_fmt(c[o * 3], BT_CELL, &st, 0);
			cells[i++] = fmtf(c[o * 3 + 1], BT_CELL, "%.2fx",
					  paired(rs->ns[o], rs->floor[o], n, true));
			cells[i++] = row < COLD_HASH ? "-" :
				     fmtf(c[o * 3 + 2], BT_CELL, "%.0f", net[row][o]);
		}
		if (row >= COLD_HASH)
			cold_found(s, row, found, sizeof(found));
		cells[i++] = found;
		table_add(&res->cold_table, cells);
	}
	if (!largest)
		return;
	for (o = 0; o < 2; o++) {
		const double *bb = s->cold[COLD_BB_IP4].ns[o];

		res->cold[o] = (struct addr_cold){
			.bloomblock_ns = median[COLD_BB_IP4][o],
			.hash_ns = median[COLD_HASH][o],
			.bloom_ns = median[COLD_BLOOM][o],
			.bloomblock_net_ns = net[COLD_BB_IP4][o],
			.hash_net_ns = net[COLD_HASH][o],
			.bloom_net_ns = net[COLD_BLOOM][o],
			.bloomblock_x_hash = paired(bb, s->cold[COLD_HASH].ns[o], n, true),
			.bloomblock_x_bloom = paired(bb, s->cold[COLD_BLOOM].ns[o], n, true),
		};
	}
}

static void hot_rows(const struct size_run *s, struct addr_results *res, bool largest)
{
	double median[HOT_MAX][2], x_parse[HOT_MAX][2];
	char nn[16], c[8][BT_CELL];
	int row, o, n = settings.rounds;

	pow10_name(s->n, nn, sizeof(nn));
	for (row = 0; row < HOT_MAX; row++) {
		const struct row_samples *rs = &s->hot[row];
		const char *cells[12];
		struct st3 st;
		int i = 0;

		cells[i++] = hot_names[row];
		cells[i++] = nn;
		for (o = 0; o < 2; o++) {
			st3_of(&st, rs->ns[o], n);
			median[row][o] = st.med;
			x_parse[row][o] = paired(rs->ns[o], rs->ref[o], n, true);
			cells[i++] = st3_fmt(c[o * 4], BT_CELL, &st, 0);
			cells[i++] = fmtf(c[o * 4 + 1], BT_CELL, "%.2fx",
					  paired(rs->ns[o], rs->floor[o], n, true));
			cells[i++] = row == HOT_EMPTY ? "-" :
				     fmtf(c[o * 4 + 2], BT_CELL, "%.2fx", x_parse[row][o]);
			cells[i++] = row == HOT_EMPTY ? "-" :
				     fmtf(c[o * 4 + 3], BT_CELL, "%.0f",
					  paired(rs->ns[o], rs->floor[o], n, false));
		}
		cells[i++] = s->hot_bad[row][0] || s->hot_bad[row][1] ? "WRONG VERDICT" :
			     row <= HOT_PARSE6 ? "-" : "ok";
		table_add(&res->hot_table, cells);
	}
	if (!largest)
		return;
	for (o = 0; o < 2; o++)
		res->hot[o] = (struct addr_hot){
			.bloomblock_ns = median[HOT_BB_IP4][o],
			.parse_ns = median[HOT_PARSE4][o],
			.bloomblock_x_parse = x_parse[HOT_BB_IP4][o],
			.ideal_x_parse = x_parse[HOT_IDEAL][o],
			.hash_x_parse = x_parse[HOT_HASH][o],
		};
}

/*
 * The allowlisted filter's row over the plain IPv4 row, one regime and outcome: the
 * ratio and the difference taken round by round (the two run one after the other in
 * every round), then the median, as every paired figure of the bench; and the range
 * of the rounds' ratios, which is what noise does to them.
 */
static void allow_of(struct addr_allow *a, const struct row_samples *allow,
		     const struct row_samples *plain, int o)
{
	double x[MAX_ROUNDS];
	int r, n = settings.rounds;
	struct st3 st;

	for (r = 0; r < n; r++)
		x[r] = plain->ns[o][r] > 0 ? allow->ns[o][r] / plain->ns[o][r] : NAN;
	st3_of(&st, x, n);
	*a = (struct addr_allow){
		.allow_ns = median_of(allow->ns[o], n),
		.plain_ns = median_of(plain->ns[o], n),
		.x_plain = paired(allow->ns[o], plain->ns[o], n, true),
		.extra_ns = paired(allow->ns[o], plain->ns[o], n, false),
		.x_min = st.min,
		.x_max = st.max,
	};
}

static void allow_row(struct table *t, const char *what, const char *nn,
		      const struct row_samples *allow, const struct row_samples *plain, int o,
		      const char *check, struct addr_allow *a)
{
	char c[6][BT_CELL];
	const char *cells[12];
	struct st3 st;
	int i = 0;

	allow_of(a, allow, plain, o);
	cells[i++] = what;
	cells[i++] = nn;
	st3_of(&st, plain->ns[o], settings.rounds);
	cells[i++] = st3_fmt(c[0], BT_CELL, &st, 0);
	st3_of(&st, allow->ns[o], settings.rounds);
	cells[i++] = st3_fmt(c[1], BT_CELL, &st, 0);
	cells[i++] = fmtf(c[2], BT_CELL, "%.2fx", a->x_plain);
	cells[i++] = fmtf(c[3], BT_CELL, "%.2fx-%.2fx", a->x_min, a->x_max);
	cells[i++] = fmtf(c[4], BT_CELL, "%+.0f", a->extra_ns);
	cells[i++] = check;
	table_add(t, cells);
}

/* Table 1c: what the allowlist adds, cold and hot, to a hit and to a miss. */
static void allow_rows(const struct size_run *s, struct addr_results *res, bool largest)
{
	static const char *const what[2][2] = {
		{ "cold, hit: a member, the allowlist asked", "cold, miss: a non-member" },
		{ "hot, hit: bloomblock_xdp, a member, asked", "hot, miss: bloomblock_xdp" },
	};
	struct addr_allow a[2][2];
	char nn[16], check[2][2][BT_CELL];
	int o;

	pow10_name(s->n, nn, sizeof(nn));
	for (o = 0; o < 2; o++) {
		__u64 runs = s->cold_runs[COLD_BB_ALLOW][o], hits = s->cold_hits[COLD_BB_ALLOW][o];
		double blocked = runs ? (double)hits / runs : NAN;

		/* what the allowlisted row's counter saw: members all still blocked */
		snprintf(check[0][o], BT_CELL, "%sblocked %.*f%%",
			 o || blocked == 1.0 ? "" : "CHECK ", o ? 3 : 1, 100 * blocked);
		snprintf(check[1][o], BT_CELL, "%s", s->hot_bad[HOT_BB_ALLOW][o] ?
			 "WRONG VERDICT" : "ok");
		allow_row(&res->allow_table, what[0][o], nn, &s->cold[COLD_BB_ALLOW],
			  &s->cold[COLD_BB_IP4], o, check[0][o], &a[0][o]);
	}
	for (o = 0; o < 2; o++)
		allow_row(&res->allow_table, what[1][o], nn, &s->hot[HOT_BB_ALLOW],
			  &s->hot[HOT_BB_IP4], o, check[1][o], &a[1][o]);
	if (!largest)
		return;
	for (o = 0; o < 2; o++) {
		res->allow_cold[o] = a[0][o];
		res->allow_hot[o] = a[1][o];
	}
}

/* A structure of table 3: a comparator map (exact, but the Bloom map) or a filter. */
struct memory_entry {
	const char *name;
	long long memlock, sys_kb;
	bool exact;
	double fpr;				/* measured; not for exact ones */
	const struct bench_filter *filter;	/* bloomblock's: its plan in the note */
	bool ipv6;
};

static void memory_row(struct table *t, const char *nn, __u32 n, const struct memory_entry *m,
		       double hash_memlock)
{
	char c[7][BT_CELL], note[BT_CELL] = "";
	double per = (double)m->memlock / n;
	const char *cells[12];
	int k = 0;

	cells[k++] = m->name;
	cells[k++] = nn;
	cells[k++] = fmtf(c[0], BT_CELL, "%lld", m->memlock);
	cells[k++] = fmtf(c[1], BT_CELL, "%.2f", per);
	/* below a MiB the allocator's per-CPU lists hide it; below 0, a free elsewhere
	 * overlapped */
	if (m->sys_kb < -1024)
		cells[k++] = "noise (<0)";
	else if (m->sys_kb < 1024)
		cells[k++] = "~0 (< 1 MiB)";
	else
		cells[k++] = fmtf(c[2], BT_CELL, "%.2f", m->sys_kb * 1024.0 / n);
	cells[k++] = fmtf(c[3], BT_CELL, "%.2f", per * 8);
	cells[k++] = ratio_fmt(c[4], BT_CELL, hash_memlock, (double)m->memlock);
	if (m->exact) {
		cells[k++] = "0 (exact)";
		cells[k++] = "-";
	} else {
		cells[k++] = fmtf(c[5], BT_CELL, "%.5f%%", 100 * m->fpr);
		cells[k++] = m->fpr > 0 ? fmtf(c[6], BT_CELL, "%.2f", log2(1 / m->fpr)) : "-";
	}
	if (m->filter) {
		const struct bb_header *h = &m->filter->hdr;
		unsigned int probes = m->ipv6 ? h->n_v6_plens : h->n_v4_plens;
		bool short_table = h->flags & (BB_HDR_F_V4_SHORT | BB_HDR_F_V6_SHORT);

		snprintf(note, sizeof(note), "k=%u, %.2f bits/key planned, %llu keys, %u probe "
			 "length%s%s", h->k, m->filter->plan.bits_per_key,
			 (unsigned long long)h->items, probes, probes == 1 ? "" : "s",
			 short_table ? " + short table" : "");
	}
	cells[k++] = note;
	table_add(t, cells);
}

static void memory_rows(const struct size_run *s, struct addr_results *res, bool largest)
{
#define COMPARATOR(kind) map_memlock(s->comparator_fd[kind]), s->sys_kb[kind]
#define FILTER(kind) s->filters[kind].memlock, s->filters[kind].sys_kb
	const struct memory_entry m[] = {
		{ "BPF_MAP_TYPE_HASH (4-byte key, 4-byte value)", COMPARATOR(BENCH_FILL_HASH),
		  .exact = true },
		{ "BPF_MAP_TYPE_LPM_TRIE (/32s)", COMPARATOR(BENCH_FILL_LPM), .exact = true },
		{ "BPF_MAP_TYPE_LPM_TRIE (CIDR-heavy)", COMPARATOR(BENCH_FILL_LPM_CIDR),
		  .exact = true },
		{ "BPF_MAP_TYPE_BLOOM_FILTER (k=5)", COMPARATOR(BENCH_FILL_BLOOM),
		  .fpr = fpr_of(s, COLD_BLOOM) },
		{ "bloomblock IPv4", FILTER(FILTER_IP4), .fpr = fpr_of(s, COLD_BB_IP4),
		  .filter = &s->filters[FILTER_IP4] },
		{ "bloomblock IPv6", FILTER(FILTER_IP6), .fpr = fpr_of(s, COLD_BB_IP6),
		  .filter = &s->filters[FILTER_IP6], .ipv6 = true },
		{ "bloomblock CIDR-heavy", FILTER(FILTER_CIDR), .fpr = fpr_of(s, COLD_BB_CIDR),
		  .filter = &s->filters[FILTER_CIDR] },
		{ "BPF_MAP_TYPE_HASH (16-byte key, 4-byte value)", COMPARATOR(BENCH_FILL_HASH6),
		  .exact = true },
		{ "BPF_MAP_TYPE_LPM_TRIE (/128s)", COMPARATOR(BENCH_FILL_LPM6), .exact = true },
	};
#undef COMPARATOR
#undef FILTER
	const struct memory_entry *hash = &m[0], *bb = &m[4];
	char nn[16];
	size_t i;

	pow10_name(s->n, nn, sizeof(nn));
	for (i = 0; i < ARRAY_SIZE(m); i++)
		memory_row(&res->memory_table, nn, s->n, &m[i], (double)hash->memlock);
	if (largest)
		res->memory = (struct addr_memory){
			.hash_bytes = (double)hash->memlock,
			.bloomblock_bytes = (double)bb->memlock,
			.bloomblock_bits_per_entry = (double)bb->memlock * 8 / s->n,
			.fpr_measured = bb->fpr,
			.fpr_planned = filter_fpr_per_packet(bb->filter, true),
		};
}

/* A structure of table 4: what it predicts (bloomblock's and the Bloom map) and how. */
struct fpr_entry {
	int row;
	const char *name;
	double predicted;
	char how[BT_CELL];
};

static void fpr_row(struct table *t, const struct size_run *s, const char *nn,
		    const struct fpr_entry *fp)
{
	char c[6][BT_CELL];
	double measured = fpr_of(s, fp->row);
	const char *cells[12];
	int k = 0;

	cells[k++] = fp->name;
	cells[k++] = nn;
	cells[k++] = fmtf(c[0], BT_CELL, "%llu", (unsigned long long)s->fpr_runs[fp->row]);
	cells[k++] = fmtf(c[1], BT_CELL, "%llu", (unsigned long long)s->fpr_hits[fp->row]);
	cells[k++] = fmtf(c[2], BT_CELL, "%llu", (unsigned long long)fpr_covered(s, fp->row));
	cells[k++] = fmtf(c[3], BT_CELL, "%.5f%%", 100 * measured);
	cells[k++] = fmtf(c[4], BT_CELL, "%.5f%%", 100 * fp->predicted);
	cells[k++] = fp->predicted > 0 ? ratio_fmt(c[5], BT_CELL, measured, fp->predicted) : "-";
	cells[k++] = fp->how;
	table_add(t, cells);
}

/* bloomblock's prediction: the blocked formula per key, one trial per probe length. */
static void fpr_bloomblock(struct fpr_entry *fp, const struct bench_filter *f, bool ipv6)
{
	double p = bb_blocked_fpr((double)f->hdr.items, f->hdr.nblocks, f->hdr.k);

	fp->predicted = filter_fpr_per_packet(f, !ipv6);
	snprintf(fp->how, sizeof(fp->how), "blocked formula %.5f%%/key x %u probe lengths",
		 100 * p, ipv6 ? f->hdr.n_v6_plens : f->hdr.n_v4_plens);
}

static void fpr_rows(const struct size_run *s, struct addr_results *res)
{
	struct fpr_entry fp[] = {
		{ COLD_BB_IP4, "bloomblock IPv4" },
		{ COLD_BB_ALLOW, "bloomblock IPv4 + 10^5 allowlist" },
		{ COLD_BB_IP6, "bloomblock IPv6" },
		{ COLD_BB_CIDR, "bloomblock CIDR-heavy" },
		{ COLD_BLOOM, "BPF_MAP_TYPE_BLOOM_FILTER (k=5)" },
		{ COLD_HASH, "BPF_MAP_TYPE_HASH", 0, "exact" },
		{ COLD_LPM, "BPF_MAP_TYPE_LPM_TRIE", 0, "exact" },
		{ COLD_HASH6, "BPF_MAP_TYPE_HASH IPv6", 0, "exact" },
		{ COLD_LPM6, "BPF_MAP_TYPE_LPM_TRIE IPv6", 0, "exact" },
		{ COLD_LPM_CIDR, "LPM_TRIE CIDR-heavy", 0, "exact" },
	};
	double bits = 7.0 * s->n, pow2 = 64;
	char nn[16];
	size_t i;

	fpr_bloomblock(&fp[0], &s->filters[FILTER_IP4], false);
	fpr_bloomblock(&fp[1], &s->filters[FILTER_ALLOW], false);
	fpr_bloomblock(&fp[2], &s->filters[FILTER_IP6], true);
	fpr_bloomblock(&fp[3], &s->filters[FILTER_CIDR], false);
	/* kernel/bpf/bloom_filter.c: n * k * 7 / 5 bits, rounded up to a power of 2 */
	while (pow2 < bits)
		pow2 *= 2;
	fp[4].predicted = pow(1 - exp(-5.0 * s->n / pow2), 5);
	snprintf(fp[4].how, sizeof(fp[4].how), "classic formula, m=%.0f bits, k=5", pow2);
	pow10_name(s->n, nn, sizeof(nn));
	for (i = 0; i < ARRAY_SIZE(fp); i++)
		fpr_row(&res->fpr_table, s, nn, &fp[i]);
}

/* Under table 1a, from the largest size: the CIDR-heavy list's plan, the skeleton's load. */
static void cold_notes(const struct size_run *s, struct table *t)
{
	const struct bb_header *h = &s->filters[FILTER_CIDR].hdr;
	char nn[16], plens[64] = "";
	int p;

	for (p = 0; p < h->n_v4_plens && p < BB_MAX_PLENS; p++)
		snprintf(plens + strlen(plens), sizeof(plens) - strlen(plens), "%s/%u",
			 p ? " " : "", h->v4_plens[p]);
	table_note(t, "CIDR-heavy list at %s: %d very short prefixes (/8-/15) in the short "
		   "table, the rest /17-/32 (half /32, a quarter /31, ...); probe lengths %s, "
		   "%llu keys after expansion. The hot CIDR hit is member %u, a /%u: it hits at "
		   "the last probe length.", pow10_name(s->n, nn, sizeof(nn)), BENCH_CIDR_SHORT,
		   plens, (unsigned long long)h->items, s->cidr_hit_j,
		   bench_cidr_plen(s->cidr_hit_j));
	table_note(t, "Loading the bench skeleton (the verifier walks every bloomblock program "
		   "too) took %.2fs.", s->skeleton_load_s);
}

/* Under table 1c, from the largest size: the allowlist's size and the maps' memlock. */
static void allow_notes(const struct size_run *s, struct table *t)
{
	const struct bench_filter *ip4 = &s->filters[FILTER_IP4], *al = &s->filters[FILTER_ALLOW];
	char nn[16];

	table_note(t, "At %s: the allowlist holds %llu keys in %u blocks (%.1f MiB, after the "
		   "bits); the filter's map takes %lld bytes of memlock against %lld without it. "
		   "The Bloom bits are the same: %u blocks, %llu keys, k=%u.",
		   pow10_name(s->n, nn, sizeof(nn)), (unsigned long long)al->allow_items,
		   al->hdr.allow_blocks, al->hdr.allow_blocks * (double)BB_BLOCK_BYTES / MIB,
		   al->memlock, ip4->memlock, al->hdr.nblocks,
		   (unsigned long long)al->hdr.items, al->hdr.k);
}

/* One list size: its rows in tables 1a to 4; the figures, if it is the largest. */
static int run_size(__u32 n, bool largest, struct addr_results *res)
{
	struct size_run *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	err = size_run_init(s, n);
	if (!err) {
		settle_memory();
		err = setup_comparators(s);
	}
	err = err ?: build_filters(s);
	err = err ?: measure_size(s);
	if (!err) {
		cold_rows(s, res, largest);
		hot_rows(s, res, largest);
		allow_rows(s, res, largest);
		memory_rows(s, res, largest);
		fpr_rows(s, res);
		if (largest) {
			cold_notes(s, &res->cold_table);
			allow_notes(s, &res->allow_table);
		}
	}
	size_run_free(s);
	free(s);
	return err;
}

static void addr_tables_init(struct addr_results *res)
{
	static const char *const cold_cols[] = {
		"row", "n", "hit ns", "hit x empty", "hit net ns", "miss ns", "miss x empty",
		"miss net ns", "members found / non-members hit", NULL,
	};
	static const char *const hot_cols[] = {
		"row", "n", "hit ns", "x empty", "x parse", "hit net ns", "miss ns", "x empty",
		"x parse", "miss net ns", "verdicts", NULL,
	};
	static const char *const allow_cols[] = {
		"row", "n", "no allowlist ns", "allowlist ns", "x no allowlist", "rounds' range",
		"extra ns", "check", NULL,
	};
	static const char *const memory_cols[] = {
		"structure", "n", "memlock bytes", "bytes/entry", "bytes/entry (MemAvailable)",
		"bits/entry", "x less than HASH", "FPR measured", "log2(1/FPR) bound bits", "note",
		NULL,
	};
	static const char *const fpr_cols[] = {
		"structure", "n", "non-member lookups", "hits", "of them covered by a listed CIDR",
		"measured FPR", "predicted FPR", "measured / predicted", "prediction", NULL,
	};

	table_init(&res->cold_table, "cold", "1a. Source-address check, cache-cold: each run a "
		   "different address (ns per run)", 2, cold_cols);
	table_note(&res->cold_table, "Each run derives its address from a per-CPU counter "
		   "(members: hit, non-members: miss), spread over the address space; every row "
		   "of a round derives the same addresses. \"net\" subtracts the \"derive only\" "
		   "row. Last column: share of member runs that hit (must be 100%%) / of "
		   "non-member runs that hit: false positives, and for the CIDR-heavy list also "
		   "non-members that a listed prefix really covers (the exact LPM_TRIE "
		   "CIDR-heavy row counts those).");
	table_init(&res->hot_table, "hot", "1b. Source-address check, hot: the same packet every "
		   "run (ns per run)", 2, hot_cols);
	table_note(&res->hot_table, "\"parse + X\" rows parse and count exactly as "
		   "bloomblock_core() does, then look the source up in X; bloomblock_xdp rows run "
		   "the real entry program. \"x parse\" is to parse+count of the same family.");
	table_init(&res->allow_table, "allow", "1c. The allowlist's cost: bloomblock IPv4 with "
		   "10^5 allowlisted addresses against without (ns per run, same run)", 2,
		   allow_cols);
	table_note(&res->allow_table, "\"bloomblock IPv4 + 10^5 allowlist\" (tables 1a, 1b) "
		   "is the IPv4 list's filter, built the same way, with 10^5 allowlisted /32s: "
		   "non-members that no timed or FPR run derives (indices 2^31 - 10^5 to "
		   "2^31 - 1). Its cold program looks up as \"bloomblock IPv4\" does and, on a "
		   "hit, asks the allowlist as bloomblock_core() does (addr_allowed(): its "
		   "header, then bb_allow_pass()); the hot rows run bloomblock_xdp on each "
		   "filter. A miss never reads the allowlist; a member's hit asks it and is "
		   "still blocked. Each pair runs back to back in every round: \"x no "
		   "allowlist\" and \"extra ns\" are taken round by round, then the median; "
		   "\"rounds' range\" is the least and greatest of the rounds' ratios. Check: "
		   "the share of runs still blocked (members must be 100%%; non-members only as "
		   "false positives), or the hot verdicts.");
	table_init(&res->memory_table, "memory", "3. Memory per entry", 2, memory_cols);
	table_note(&res->memory_table, "memlock: the kernel's accounting of each map (fdinfo). "
		   "MemAvailable: the system's available memory before and after creating and "
		   "filling the map (noisy for small maps; other activity on the machine shows up "
		   "here). bloomblock's FPR is per packet (one trial per probe length); its bound "
		   "is log2(1/FPR) for the FPR measured.");
	table_init(&res->fpr_table, "fpr", "4. False-positive rate of cold non-member lookups", 2,
		   fpr_cols);
	table_note(&res->fpr_table, "Non-members no timed run used, one lookup each. "
		   "bloomblock's FPR is per packet: one Bloom trial per probe length of the family "
		   "(the short table is exact). For the CIDR-heavy list, non-members inside a "
		   "listed prefix are true hits (the exact trie finds the same ones) and are left "
		   "out of its FPR.");
}

/*
 * The non-members each use derives must not overlap for any settings: the timed
 * misses from index 0 (round r from r * cold_repeat, without wrapping), the FPR runs
 * from FPR_START, the allowlist from ALLOW_START. Else a timed miss could be an
 * allowed address, and the FPR runs would look up addresses a timed run had.
 */
static int index_ranges_check(void)
{
	__u64 timed_end = (__u64)settings.rounds * settings.cold_repeat;
	__u64 fpr_end = (__u64)FPR_START + settings.fpr_lookups;

	if (timed_end <= FPR_START && fpr_end <= ALLOW_START)
		return 0;
	bench_warn("non-member indices overlap: timed [0, %llu), FPR [%u, %llu), allowlist "
		   "[%u, 2^31)\n", (unsigned long long)timed_end, FPR_START,
		   (unsigned long long)fpr_end, ALLOW_START);
	return -ERANGE;
}

int addr_run(struct addr_results *res)
{
	int i, err;

	addr_tables_init(res);
	err = index_ranges_check();
	res->n = settings.sizes[settings.nsizes - 1];
	for (i = 0; i < settings.nsizes && !err; i++)
		err = run_size(settings.sizes[i], i == settings.nsizes - 1, res);
	return err;
}

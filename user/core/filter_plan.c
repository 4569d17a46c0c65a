/* SPDX-License-Identifier: GPL-2.0 */
/* Sizing a blocked Bloom filter by its own FPR formula; which prefix lengths to probe. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>
#include <xxhash.h>

#include "bb_hash.h"
#include "bb_names.h"
#include "filter_int.h"

/*
 * FPR of one block holding j keys, for every j. A split block (include/bb_hash.h):
 * each key sets c = k / 8 bits in each of the 8 words, drawn independently and
 * uniformly from its 64, so after t = j*c draws a word's number s of set bits
 * follows the occupancy distribution, which a small dynamic program computes
 * exactly. A query hits a word with probability E[(s/64)^c] and the block when
 * it hits all 8 (the words are independent given j). Using the expected s instead
 * would understate the FPR (the function is convex in s). Tables are built once
 * per k, as far as asked.
 */
#define FPR_JMAX 1024	/* keys per block; past that the FPR is near 1 anyway */
#define WORD_BITS 64

static pthread_mutex_t fpr_lock = PTHREAD_MUTEX_INITIALIZER;	/* the tables: any thread */
static double *fpr_table[BB_MAX_K + 1];
static unsigned int fpr_table_len[BB_MAX_K + 1];	/* entries 0..len-1 computed */
static double fpr_occ[BB_MAX_K + 1][WORD_BITS + 1];	/* one word after len-1 keys */

static int fpr_table_grow(__u32 k, unsigned int jmax)
{
	unsigned int j, t, s, len = fpr_table_len[k], want, c = k / BB_WORDS;
	double *occ = fpr_occ[k], *table, pw[WORD_BITS + 1];

	if (jmax < len)
		return 0;
	want = jmax + 1 < 2 * len ? 2 * len : jmax + 1;
	if (want > FPR_JMAX + 1)
		want = FPR_JMAX + 1;
	table = realloc(fpr_table[k], want * sizeof(*table));
	if (!table)
		return -ENOMEM;
	fpr_table[k] = table;
	for (s = 0; s <= WORD_BITS; s++)
		pw[s] = pow((double)s / WORD_BITS, c);
	for (j = len; j < want; j++) {
		double p = 0;

		if (j == 0) {
			occ[0] = 1;
		} else {
			/* one more draw: a set bit again with s/64, a new one otherwise */
			for (t = 0; t < c; t++) {
				for (s = WORD_BITS; s > 0; s--)
					occ[s] = (occ[s] * s + occ[s - 1] * (WORD_BITS - s + 1)) *
						 (1.0 / WORD_BITS);
				occ[0] = 0;
			}
		}
		for (s = 1; s <= WORD_BITS; s++)
			p += occ[s] * pw[s];
		table[j] = pow(p, BB_WORDS);
	}
	fpr_table_len[k] = want;
	return 0;
}

/* FPR of a blocked Bloom filter: the per-block FPR, Poisson-weighted over block loads. */
double bb_blocked_fpr(double n, __u32 nblocks, __u32 k)
{
	double lambda = n / nblocks, log_pmf, fpr = 0, mass = 0;
	unsigned int j, jmax;

	if (n <= 0)
		return 0;
	if (!bb_k_valid(k))
		return 1;
	jmax = (unsigned int)(lambda + 12 * sqrt(lambda) + 30);
	pthread_mutex_lock(&fpr_lock);	/* the daemon's /metrics thread asks too */
	if (jmax > FPR_JMAX || fpr_table_grow(k, jmax) || jmax >= fpr_table_len[k]) {
		pthread_mutex_unlock(&fpr_lock);
		return 1;	/* blocks this full are useless anyway */
	}
	log_pmf = -lambda;	/* j = 0 */
	for (j = 0; j <= jmax; j++) {
		if (j > 0)
			log_pmf += log(lambda) - log((double)j);
		mass += exp(log_pmf);
		fpr += exp(log_pmf) * fpr_table[k][j];
	}
	pthread_mutex_unlock(&fpr_lock);
	/* The tail past jmax is below 1e-20: count it as always-positive to stay safe. */
	return fpr + (mass < 1 ? 1 - mass : 0);
}

double bb_classic_fpr(double n, double bits, __u32 k)
{
	return pow(1.0 - exp(-(double)k * n / bits), k);
}

__u64 bb_hash_map_bytes(__u64 n, __u32 key_size, __u32 value_size)
{
	/* kernel/bpf/hashtab.c: 48-byte htab_elem + key + value rounded to 8, per
	 * entry; a 16-byte bucket per power-of-two slot; ~1 KiB of struct bpf_htab.
	 * Checked against the memlock bpftool prints on this kernel.
	 */
	__u64 buckets = 1;

	while (buckets < n)
		buckets <<= 1;
	return 1040 + 16 * buckets + n * (48 + ((key_size + 7) & ~7U) + ((value_size + 7) & ~7U));
}

static __u32 blocks_for(__u64 n, double target, __u32 k)
{
	/* Start from half the classic filter's optimal size: blocks this full are
	 * cheap to evaluate, and the answer is never below it.
	 */
	double classic_bits = -(double)n * log(target) / (M_LN2 * M_LN2);
	__u64 lo = 1, hi = (__u64)fmax(1, classic_bits / BB_BLOCK_BITS / 2);

	if (hi > BB_MAX_BLOCKS)
		return 0;

	while (bb_blocked_fpr(n, hi, k) > target) {
		if (hi >= BB_MAX_BLOCKS)
			return 0;
		hi = hi * 2 > BB_MAX_BLOCKS ? BB_MAX_BLOCKS : hi * 2;
	}
	while (lo < hi) {
		__u64 mid = (lo + hi) / 2;

		if (bb_blocked_fpr(n, mid, k) <= target)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int bb_plan_make(__u64 n, double target, struct bb_plan *plan)
{
	__u32 k, best_k = 0, best_blocks = 0;

	if (!(target > 0 && target < 1))
		return -EINVAL;
	memset(plan, 0, sizeof(*plan));
	for (k = BB_WORDS; k <= BB_MAX_K; k += BB_WORDS) {
		__u32 blocks = n ? blocks_for(n, target, k) : 1;

		if (blocks && (!best_blocks || blocks < best_blocks)) {
			best_blocks = blocks;
			best_k = k;
		}
	}
	if (!best_blocks)
		return -E2BIG;
	plan->n = n;
	plan->target_fpr = target;
	plan->k = best_k;
	plan->nblocks = best_blocks;
	plan->bits = (__u64)best_blocks * BB_BLOCK_BITS;
	plan->fpr = bb_blocked_fpr(n, best_blocks, best_k);
	plan->classic_fpr = bb_classic_fpr(n, plan->bits, best_k);
	/* the map holds an allowlist always: the least one when no list has entries for it */
	plan->map_bytes = bb_filter_elements(best_blocks, bb_allow_blocks_for(0)) * BB_BLOCK_BYTES;
	plan->bits_per_key = n ? (double)plan->bits / n : 0;
	plan->bound_bits_per_key = plan->fpr > 0 ? log2(1 / plan->fpr) : 0;
	plan->hash_map_bytes = bb_hash_map_bytes(n, 4, 8);
	return 0;
}

const char *bb_check_name(enum bb_check check)
{
	static const char *const names[BB_CHECK_MAX] = { "address", "name", "url" };

	return (unsigned int)check < BB_CHECK_MAX ? names[check] : "?";
}

double bb_key_fpr_for(double check_fpr, unsigned int probes)
{
	/* -expm1(log1p(-x) / n): exact where 1 - (1 - x)^(1/n) would lose every digit */
	return probes <= 1 ? check_fpr : -expm1(log1p(-check_fpr) / probes);
}

double bb_check_fpr(double key_fpr, unsigned int probes)
{
	return -expm1(probes * log1p(-key_fpr));
}

void bb_check_probes(__u32 flags, unsigned int v4_plens, unsigned int v6_plens,
		     unsigned int probes[BB_CHECK_MAX])
{
	unsigned int addr = v4_plens > v6_plens ? v4_plens : v6_plens;

	/* the short tables are exact: they add no false positive */
	probes[BB_CHECK_ADDR] = addr * (flags & BB_HDR_F_ADDR_BOTH ? 2 : 1);
	probes[BB_CHECK_NAME] = flags & BB_HDR_F_NAMES ? BB_NAME_PROBES : 0;
	probes[BB_CHECK_URL] = flags & BB_HDR_F_URLS ?
			       BB_URL_PROBES + (flags & BB_HDR_F_NAMES ? BB_NAME_PROBES : 0) : 0;
}

int bb_plan_checks(__u64 n, __u64 capacity, double check_fpr,
		   const unsigned int probes[BB_CHECK_MAX], struct bb_plan *plan)
{
	unsigned int most = 1, c;
	int err;

	if (!(check_fpr > 0 && check_fpr < 1))
		return -EINVAL;
	for (c = 0; c < BB_CHECK_MAX; c++)
		if (probes[c] > most)
			most = probes[c];
	err = bb_plan_make(capacity > n ? capacity : n, bb_key_fpr_for(check_fpr, most), plan);
	if (err)
		return err;
	/* what the filter will hold, not the room it has, sets the rates at load */
	plan->n = n;
	plan->fpr = bb_blocked_fpr((double)n, plan->nblocks, plan->k);
	plan->bits_per_key = n ? (double)plan->bits / n : 0;
	plan->bound_bits_per_key = plan->fpr > 0 ? log2(1 / plan->fpr) : 0;
	plan->capacity = capacity > n ? capacity : 0;
	plan->check_target = check_fpr;
	for (c = 0; c < BB_CHECK_MAX; c++) {
		plan->check_probes[c] = probes[c];
		plan->check_fpr[c] = probes[c] ? bb_check_fpr(plan->fpr, probes[c]) : 0;
	}
	return 0;
}

/* Keys that prefixes of length p expand to when probed at length l (saturating). */
static double expansion(__u64 count, unsigned int p, unsigned int l)
{
	return ldexp((double)count, (int)(l - p));
}

int bb_plen_plan_make(const __u64 *counts, unsigned int width, struct bb_plen_plan *plan)
{
	/* cost[j][c]: least keys covering present lengths 0..j with c probe lengths, the
	 * longest being len[j]. Only present lengths need be candidates: moving a probe
	 * length down to the longest present length below it never costs more.
	 */
	double cost[129][BB_MAX_PLENS + 1], hard_cap, budget;
	int from[129][BB_MAX_PLENS + 1];
	unsigned int len[129], m = 0, p, c, i, j;

	memset(plan, 0, sizeof(*plan));
	for (p = 0; p <= width; p++) {
		if (!counts[p])
			continue;
		if (p <= BB_SHORT_PLEN) {
			plan->short_prefixes += counts[p];
			continue;
		}
		plan->prefixes += counts[p];
		len[m++] = p;
	}
	if (!m)
		return 0;

	for (j = 0; j < m; j++) {
		for (c = 0; c <= BB_MAX_PLENS; c++) {
			cost[j][c] = INFINITY;
			from[j][c] = -1;
		}
		/* one length covers 0..j */
		cost[j][1] = 0;
		for (i = 0; i <= j; i++)
			cost[j][1] += expansion(counts[len[i]], len[i], len[j]);
		for (c = 2; c <= BB_MAX_PLENS; c++) {
			for (i = 0; i < j; i++) {
				double seg = 0;
				unsigned int q;

				for (q = i + 1; q <= j; q++)
					seg += expansion(counts[len[q]], len[q], len[j]);
				if (cost[i][c - 1] + seg < cost[j][c]) {
					cost[j][c] = cost[i][c - 1] + seg;
					from[j][c] = (int)i;
				}
			}
		}
	}

	/* Fewest lookups whose expansion stays within a modest memory budget. */
	budget = fmax(2.0 * plan->prefixes, plan->prefixes + 65536.0);
	hard_cap = fmax(16.0 * plan->prefixes, 1 << 24);
	for (c = 1; c <= BB_MAX_PLENS; c++)
		if (cost[m - 1][c] <= budget)
			break;
	if (c > BB_MAX_PLENS) {
		/* No count fits the budget: take the cheapest, within the hard cap. */
		c = 1;
		for (i = 2; i <= BB_MAX_PLENS; i++)
			if (cost[m - 1][i] < cost[m - 1][c])
				c = i;
		if (cost[m - 1][c] > hard_cap)
			return -E2BIG;
	}

	plan->expanded = cost[m - 1][c];
	for (j = m - 1, i = 0; i < c; i++) {
		plan->plens[i] = len[j];
		if (from[j][c - i] >= 0)
			j = from[j][c - i];
	}
	plan->n_plens = c;
	return 0;
}

/* The probe length a prefix of length p is stored at: the shortest one >= p. */
unsigned int plen_for(const struct bb_plen_plan *plan, unsigned int p)
{
	unsigned int i, best = 0;

	for (i = 0; i < plan->n_plens; i++)
		if (plan->plens[i] >= p && (!best || plan->plens[i] < best))
			best = plan->plens[i];
	return best;
}

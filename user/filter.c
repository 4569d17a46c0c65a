/* SPDX-License-Identifier: GPL-2.0 */
/* Blocked Bloom filter: sizing by the blocked FPR formula, prefix planning, building. */
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
#include "filter.h"

#define BB_BUILD_MAX_THREADS 64

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
	if (jmax > FPR_JMAX || fpr_table_grow(k, jmax) || jmax >= fpr_table_len[k])
		return 1;	/* blocks this full are useless anyway */
	log_pmf = -lambda;	/* j = 0 */
	for (j = 0; j <= jmax; j++) {
		if (j > 0)
			log_pmf += log(lambda) - log((double)j);
		mass += exp(log_pmf);
		fpr += exp(log_pmf) * fpr_table[k][j];
	}
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
	plan->map_bytes = bb_filter_elements(best_blocks) * BB_BLOCK_BYTES;
	plan->bits_per_key = n ? (double)plan->bits / n : 0;
	plan->bound_bits_per_key = plan->fpr > 0 ? log2(1 / plan->fpr) : 0;
	plan->hash_map_bytes = bb_hash_map_bytes(n, 4, 8);
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
static unsigned int plen_for(const struct bb_plen_plan *plan, unsigned int p)
{
	unsigned int i, best = 0;

	for (i = 0; i < plan->n_plens; i++)
		if (plan->plens[i] >= p && (!best || plan->plens[i] < best))
			best = plan->plens[i];
	return best;
}

__u32 bb_key_text(__u8 *key, enum bb_key_kind kind, const char *text, size_t len)
{
	if (len > BB_KEY_MAX - 1)
		len = BB_KEY_MAX - 1;
	key[0] = kind;
	memcpy(key + 1, text, len);
	return len + 1;
}

/* Add 1 to the address (network byte order) at bit position plen: the next prefix. */
static void addr_step(__u8 *addr, unsigned int bytes, unsigned int plen)
{
	unsigned int byte = (plen - 1) / 8, bit = 7 - (plen - 1) % 8;
	unsigned int carry = 1U << bit;

	(void)bytes;
	for (;;) {
		unsigned int sum = addr[byte] + carry;

		addr[byte] = sum & 0xff;
		if (!(sum >> 8) || byte == 0)
			break;
		carry = 1;
		byte--;
	}
}

#define STREAM_BATCH		32	/* hashes whose blocks are fetched ahead */
#define SORT_BUCKET_BITS	8
#define SORT_BUCKETS		(1U << SORT_BUCKET_BITS)

/*
 * One thread's share of the build: a range of entries, hashed twice. The first time
 * counts the keys in each bucket of hashes (their top byte); the second writes each
 * hash into its bucket's place, so the sort needs no scatter and no second buffer.
 */
struct build_job {
	struct bb_filter *filter;
	const struct bb_entry *entries;
	size_t lo, hi;			/* entries */
	__u64 seed;
	__u64 *hashes;			/* NULL: count only */
	size_t count[SORT_BUCKETS];	/* keys of this range in each bucket */
	size_t at[SORT_BUCKETS];	/* where this range's next key of a bucket goes */
	__u64 keys_by_kind[BB_KEY_KIND_MAX];
	__u32 flags;
	/* a streamed build: hashes wait in a batch, their blocks prefetched, then set in
	 * blocks (the filter's, or the stream's second copy), atomically when shared */
	struct bb_block *blocks;
	bool stream, atomic;
	unsigned int n_batch;
	__u64 batch[STREAM_BATCH];
	__u64 repeats;			/* keys whose bits were all set already */
};

/*
 * Set a key's k bits in blk; true when one of them was clear. With atomic, other
 * threads set bits in the same blocks: a word whose bits are all set already is
 * left alone (bits are never cleared, so a plain read that sees them set is
 * right), the others get a locked OR. Its old value is not asked for: x86 has no
 * fetch-or, and asking turns `lock or` into a compare-exchange loop. A word that
 * another thread set in between makes the key look fresh: that only moves the
 * approximate repeat count.
 */
static bool block_set_fresh(struct bb_block *blk, __u64 h, __u32 k, bool atomic)
{
	__u64 m[BB_WORDS], fresh = 0;
	__u32 w;

	bb_block_masks(h, k, m);
	if (!atomic) {
		for (w = 0; w < BB_WORDS; w++) {
			fresh |= m[w] & ~blk->words[w];
			blk->words[w] |= m[w];
		}
		return fresh != 0;
	}
	for (w = 0; w < BB_WORDS; w++) {
		if ((__atomic_load_n(&blk->words[w], __ATOMIC_RELAXED) & m[w]) == m[w])
			continue;
		fresh = 1;
		__atomic_fetch_or(&blk->words[w], m[w], __ATOMIC_RELAXED);
	}
	return fresh != 0;
}

static void batch_flush(struct build_job *job)
{
	const struct bb_filter *filter = job->filter;
	unsigned int i;

	for (i = 0; i < job->n_batch; i++) {
		__u64 h = job->batch[i];

		if (!block_set_fresh(&job->blocks[bb_block_of(h, filter->hdr.nblocks)], h,
				     filter->hdr.k, job->atomic))
			job->repeats++;
	}
	job->n_batch = 0;
}

static void key_push(struct build_job *job, __u64 h)
{
	unsigned int b = h >> (64 - SORT_BUCKET_BITS);

	if (job->stream) {
		/* the block is a cache miss: ask for it now, set it a batch later */
		__builtin_prefetch(&job->blocks[bb_block_of(h, job->filter->hdr.nblocks)], 1);
		job->batch[job->n_batch++] = h;
		if (job->n_batch == STREAM_BATCH)
			batch_flush(job);
	} else if (job->hashes)
		job->hashes[job->at[b]++] = h;
	else
		job->count[b]++;
}

static void add_ip(struct build_job *job, const struct bb_entry *e)
{
	struct bb_filter *filter = job->filter;
	bool v4 = e->kind == BB_ENTRY_IP4;
	unsigned int bytes = v4 ? 4 : 16, l, p = e->plen;
	const struct bb_plen_plan *plan = v4 ? &filter->v4 : &filter->v6;
	__u64 count, i;
	__u8 addr[16];

	memcpy(addr, e->addr, bytes);
	if (p <= BB_SHORT_PLEN) {
		struct bb_block *table = v4 ? filter->short_v4 : filter->short_v6;
		__u32 mask = p ? 0xffffU << (BB_SHORT_PLEN - p) : 0;
		__u32 first = bb_short_prefix(addr) & mask, n = 1U << (BB_SHORT_PLEN - p);

		/* threads share the short tables: short prefixes are few, atomics cheap */
		for (i = first; i < first + n; i++)
			__atomic_fetch_or(&table[i / BB_BLOCK_BITS].words[i % BB_BLOCK_BITS / 64],
					  1ULL << (i % 64), __ATOMIC_RELAXED);
		job->flags |= v4 ? BB_HDR_F_V4_SHORT : BB_HDR_F_V6_SHORT;
		return;
	}
	l = plen_for(plan, p);
	count = 1ULL << (l - p);
	for (i = 0; i < count; i++) {
		if (v4) {
			struct bb_key_ip4 key;

			bb_key_ip4_make(&key, addr, l);
			key_push(job, bb_hash_ip4(&key, job->seed));
		} else {
			struct bb_key_ip6 key;

			bb_key_ip6_make(&key, addr, l);
			key_push(job, bb_hash_ip6(&key, job->seed));
		}
		if (i + 1 < count)
			addr_step(addr, bytes, l);
	}
	job->keys_by_kind[v4 ? BB_KEY_IP4 : BB_KEY_IP6] += count;
}

/*
 * Keys of kinds[0..n) on the same text. Names hash the text in place; a URL's key
 * is the text behind its kind tag, copied once.
 */
static void add_text(struct build_job *job, const enum bb_key_kind *kinds, unsigned int n,
		     const char *text)
{
	size_t len = strlen(text);
	__u8 key[BB_KEY_MAX];
	unsigned int i;

	if (len > BB_KEY_MAX - 1)
		len = BB_KEY_MAX - 1;	/* as bb_key_text() cuts */
	for (i = 0; i < n; i++) {
		job->keys_by_kind[kinds[i]]++;
		if (kinds[i] == BB_KEY_URL)
			key_push(job, XXH64(key, bb_key_text(key, kinds[i], text, len), job->seed));
		else
			key_push(job, bb_hash_name(kinds[i], (const __u8 *)text, (__u32)len,
						   job->seed));
	}
}

/* The keys of one entry. */
static void add_entry(struct build_job *job, const struct bb_entry *e)
{
	static const enum bb_key_kind name_kinds[] = { BB_KEY_NAME, BB_KEY_NAME_PARENT };
	static const enum bb_key_kind url_kinds[] = { BB_KEY_URL };

	switch (e->kind) {
	case BB_ENTRY_IP4:
	case BB_ENTRY_IP6:
		add_ip(job, e);
		break;
	case BB_ENTRY_NAME:
		/* "evil.example" is the name itself and the parent of its subdomains;
		 * "*.evil.example" is only the parent, an exact name only itself.
		 */
		job->flags |= BB_HDR_F_NAMES;
		if (e->flags & BB_ENTRY_F_SUBDOMAINS_ONLY)
			add_text(job, name_kinds + 1, 1, e->text);
		else if (e->flags & BB_ENTRY_F_EXACT)
			add_text(job, name_kinds, 1, e->text);
		else
			add_text(job, name_kinds, 2, e->text);
		break;
	case BB_ENTRY_URL:
		job->flags |= BB_HDR_F_URLS;
		add_text(job, url_kinds, 1, e->text);
		break;
	}
}

static void *hash_keys(void *arg)
{
	struct build_job *job = arg;
	size_t i;

	memset(job->keys_by_kind, 0, sizeof(job->keys_by_kind));
	for (i = job->lo; i < job->hi; i++)
		add_entry(job, &job->entries[i]);
	return NULL;
}

/* Run fn(args[t]) on threads threads, the caller being one of them. */
static void run_threads(void *(*fn)(void *), void *args, size_t arg_size, unsigned int threads)
{
	pthread_t tids[BB_BUILD_MAX_THREADS];
	bool started[BB_BUILD_MAX_THREADS] = { false };
	unsigned int t;

	for (t = 1; t < threads; t++)
		started[t] = !pthread_create(&tids[t], NULL, fn, (char *)args + t * arg_size);
	fn(args);
	for (t = 1; t < threads; t++) {
		if (started[t])
			pthread_join(tids[t], NULL);
		else
			fn((char *)args + t * arg_size);
	}
}

/* ---- sorting the key hashes, bucket by bucket ---- */

#define SORT_DIGITS		3	/* 8-bit LSD passes over bits 32..55 */

struct sort_job {
	__u64 *v;
	const size_t *start;		/* bucket b is v[start[b] .. start[b + 1]) */
	unsigned int b_lo, b_hi;	/* buckets this thread sorts */
	size_t *unique;			/* per bucket: distinct hashes, at the bucket's start */
	__u64 *scratch;			/* as large as the largest bucket */
};

/* LSD radix sort of each bucket through scratch, then drop repeats. */
static void *sort_buckets(void *arg)
{
	struct sort_job *job = arg;
	unsigned int b, d;

	for (b = job->b_lo; b < job->b_hi; b++) {
		size_t lo = job->start[b], n = job->start[b + 1] - lo, i, out;
		__u64 *src = job->v + lo, *dst = job->scratch, *t;

		for (d = 0; d < SORT_DIGITS; d++) {
			unsigned int shift = 32 + 8 * d;
			size_t count[256] = { 0 }, sum = 0;

			for (i = 0; i < n; i++)
				count[(src[i] >> shift) & 0xff]++;
			for (i = 0; i < 256; i++) {
				size_t c = count[i];

				count[i] = sum;
				sum += c;
			}
			for (i = 0; i < n; i++)
				dst[count[(src[i] >> shift) & 0xff]++] = src[i];
			t = src;
			src = dst;
			dst = t;
		}
		/*
		 * An odd number of passes: the bucket is in scratch, sorted by the top 32
		 * bits, which decide the block. Hashes that share them (about n^2 / 2^33
		 * pairs) are sorted in full here, so that equal hashes are neighbours; then
		 * the distinct ones go back to the bucket's start.
		 */
		for (i = 1; i < n; i++) {
			__u64 x = src[i];
			size_t j = i;

			while (j > 0 && src[j - 1] >> 32 == x >> 32 && src[j - 1] > x) {
				src[j] = src[j - 1];
				j--;
			}
			src[j] = x;
		}
		for (i = 0, out = 0; i < n; i++)
			if (!out || src[i] != dst[out - 1])
				dst[out++] = src[i];
		job->unique[b] = out;
	}
	return NULL;
}

/*
 * Sort the hashes, already grouped by their top byte (start[] says where each
 * bucket is), and drop repeats: a repeated key sets no new bit. Returns the number
 * of distinct hashes, now at the front of v in ascending order. Hashes are uniform,
 * so buckets are even and fit in cache; threads take buckets by count.
 */
static int sort_unique(__u64 *v, const size_t *start, unsigned int threads, size_t *unique_out)
{
	struct sort_job jobs[BB_BUILD_MAX_THREADS];
	size_t unique[SORT_BUCKETS], n = start[SORT_BUCKETS], largest = 0, out, b;
	unsigned int t;
	int err = 0;

	for (b = 0; b < SORT_BUCKETS; b++)
		if (start[b + 1] - start[b] > largest)
			largest = start[b + 1] - start[b];
	for (t = 0, b = 0; t < threads; t++) {
		jobs[t] = (struct sort_job){ .v = v, .start = start, .unique = unique };
		jobs[t].scratch = malloc((largest ? largest : 1) * sizeof(*v));
		if (!jobs[t].scratch)
			err = -ENOMEM;
		jobs[t].b_lo = b;
		while (b < SORT_BUCKETS && (t + 1 == threads || start[b] < n / threads * (t + 1)))
			b++;
		jobs[t].b_hi = b;
	}
	if (!err)
		run_threads(sort_buckets, jobs, sizeof(jobs[0]), threads);
	for (t = 0; t < threads; t++)
		free(jobs[t].scratch);
	if (err)
		return err;
	for (b = 0, out = 0; b < SORT_BUCKETS; b++) {
		if (out != start[b])
			memmove(v + out, v + start[b], unique[b] * sizeof(*v));
		out += unique[b];
	}
	*unique_out = out;
	return 0;
}

struct set_job {
	struct bb_block *blocks;
	const __u64 *hashes;
	size_t n;
	__u32 nblocks, k;
};

static void *set_bits(void *arg)
{
	struct set_job *job = arg;
	size_t i;

	for (i = 0; i < job->n; i++)
		bb_block_set(&job->blocks[bb_block_of(job->hashes[i], job->nblocks)],
			     job->hashes[i], job->k);
	return NULL;
}

static int set_all_bits(struct bb_filter *filter, const __u64 *hashes, size_t n,
			unsigned int threads)
{
	struct set_job jobs[BB_BUILD_MAX_THREADS];
	pthread_t tids[BB_BUILD_MAX_THREADS];
	unsigned int t, started = 0;
	size_t lo = 0;

	/*
	 * Hashes are sorted and the block index is monotonic in the hash, so slices
	 * cut between blocks touch disjoint blocks: no two threads write one block.
	 */
	for (t = 0; t < threads; t++) {
		size_t hi = t + 1 == threads ? n : n / threads * (t + 1);
		__u32 nb = filter->hdr.nblocks;

		while (hi < n && hi > lo && bb_block_of(hashes[hi], nb) == bb_block_of(hashes[hi - 1], nb))
			hi++;
		jobs[t] = (struct set_job){
			.blocks = filter->blocks, .hashes = hashes + lo, .n = hi - lo,
			.nblocks = nb, .k = filter->hdr.k,
		};
		if (t + 1 < threads && pthread_create(&tids[t], NULL, set_bits, &jobs[t]) == 0)
			started++;
		else
			set_bits(&jobs[t]);
		lo = hi;
	}
	for (t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	return 0;
}

void bb_config_defaults(struct bb_config *config)
{
	memset(config, 0, sizeof(*config));
	config->dns_ports[0] = 53;
	config->tls_ports[0] = 443;
	config->http_ports[0] = 80;
	config->http_ports[1] = 8080;
	config->quic_ports[0] = 443;
}

struct plen_job {
	const struct bb_entry *entries;
	size_t lo, hi;
	__u64 v4[33], v6[129];
	bool bad;		/* an entry no list parse makes */
};

static void *count_plens(void *arg)
{
	struct plen_job *job = arg;
	size_t i;

	for (i = job->lo; i < job->hi; i++) {
		const struct bb_entry *e = &job->entries[i];

		if (e->kind >= BB_ENTRY_KIND_MAX || (e->kind == BB_ENTRY_IP4 && e->plen > 32) ||
		    (e->kind == BB_ENTRY_IP6 && e->plen > 128))
			job->bad = true;
		else if (e->kind == BB_ENTRY_IP4)
			job->v4[e->plen]++;
		else if (e->kind == BB_ENTRY_IP6)
			job->v6[e->plen]++;
	}
	return NULL;
}

static unsigned int build_threads(unsigned int threads)
{
	if (!threads) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		threads = cpus > 0 ? (unsigned int)cpus : 1;
	}
	return threads > BB_BUILD_MAX_THREADS ? BB_BUILD_MAX_THREADS : threads;
}

static __u64 filter_seed(__u64 seed)
{
	while (!seed && getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		;
	return seed;
}

static void filter_config(struct bb_filter *filter, const struct bb_filter_opts *opts)
{
	filter->hdr.flags = opts->flags;
	filter->config = opts->config;
	if (!filter->config.dns_ports[0] && !filter->config.tls_ports[0] &&
	    !filter->config.http_ports[0] && !filter->config.quic_ports[0]) {
		bb_config_defaults(&filter->config);
		filter->config.mark = opts->config.mark;
	}
}

/*
 * Plan the filter for keys keys, get its blocks (opts->blocks_alloc, or calloc) and
 * fill in the header; hdr.flags already holds what the keys need.
 */
static int filter_size(struct bb_filter *filter, __u64 keys, __u64 seed, double fpr,
		       const struct bb_filter_opts *opts)
{
	int err = bb_plan_make(keys, fpr, &filter->plan);

	if (err)
		return err;
	if (opts->blocks_alloc) {
		filter->blocks = opts->blocks_alloc(opts->blocks_ctx, filter->plan.nblocks);
	} else {
		filter->blocks = calloc(filter->plan.nblocks, sizeof(*filter->blocks));
		filter->blocks_owned = true;
	}
	if (!filter->blocks)
		return -ENOMEM;

	filter->hdr.magic = BB_MAGIC;
	filter->hdr.abi_version = BB_ABI_VERSION;
	filter->hdr.k = filter->plan.k;
	filter->hdr.nblocks = filter->plan.nblocks;
	filter->hdr.seed = seed;
	filter->hdr.items = keys;
	memcpy(filter->hdr.v4_plens, filter->v4.plens, BB_MAX_PLENS);
	memcpy(filter->hdr.v6_plens, filter->v6.plens, BB_MAX_PLENS);
	filter->hdr.n_v4_plens = filter->v4.n_plens;
	filter->hdr.n_v6_plens = filter->v6.n_plens;
	/* service ports matter only when there are names to find or QUIC to drop */
	if (filter->hdr.flags & (BB_HDR_F_NAMES | BB_HDR_F_URLS | BB_HDR_F_BLOCK_QUIC))
		filter->hdr.flags |= BB_HDR_F_SERVICES;
	return 0;
}

int bb_filter_build(struct bb_filter *filter, const struct bb_list *list,
		    const struct bb_filter_opts *opts)
{
	struct build_job *jobs;
	struct plen_job *plens = NULL;
	__u64 v4_counts[33] = { 0 }, v6_counts[129] = { 0 }, seed = opts->seed, *hashes = NULL;
	double fpr = opts->fpr > 0 ? opts->fpr : BB_FPR_DEFAULT;
	unsigned int threads = opts->threads, t, p, b;
	size_t keys = 0, unique, start[SORT_BUCKETS + 1];
	int err = 0;

	memset(filter, 0, sizeof(*filter));
	threads = build_threads(threads);
	if (list->n < 4096 * (size_t)threads)
		threads = 1;	/* not worth a thread */
	seed = filter_seed(seed);

	/* 1. The probe lengths, from how many prefixes of each length there are. */
	plens = calloc(threads, sizeof(*plens));
	if (!plens)
		return -ENOMEM;
	for (t = 0; t < threads; t++) {
		plens[t].entries = list->entries;
		plens[t].lo = list->n / threads * t;
		plens[t].hi = t + 1 == threads ? list->n : list->n / threads * (t + 1);
	}
	run_threads(count_plens, plens, sizeof(*plens), threads);
	for (t = 0; t < threads; t++) {
		if (plens[t].bad)
			err = -EINVAL;
		for (p = 0; p <= 32; p++)
			v4_counts[p] += plens[t].v4[p];
		for (p = 0; p <= 128; p++)
			v6_counts[p] += plens[t].v6[p];
	}
	free(plens);
	err = err ?: bb_plen_plan_make(v4_counts, 32, &filter->v4);
	err = err ?: bb_plen_plan_make(v6_counts, 128, &filter->v6);
	if (err)
		return err;

	filter_config(filter, opts);

	/* 2. Every key's hash, each thread for a range of entries, grouped by bucket. */
	jobs = calloc(threads, sizeof(*jobs));
	if (!jobs)
		return -ENOMEM;
	for (t = 0; t < threads; t++) {
		jobs[t] = (struct build_job){
			.filter = filter, .entries = list->entries, .seed = seed,
			.lo = list->n / threads * t,
			.hi = t + 1 == threads ? list->n : list->n / threads * (t + 1),
		};
	}
	run_threads(hash_keys, jobs, sizeof(jobs[0]), threads);
	for (b = 0; b < SORT_BUCKETS; b++) {
		start[b] = keys;
		for (t = 0; t < threads; t++) {
			jobs[t].at[b] = keys;
			keys += jobs[t].count[b];
		}
	}
	start[SORT_BUCKETS] = keys;
	hashes = malloc((keys ? keys : 1) * sizeof(*hashes));
	if (!hashes) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (t = 0; t < threads; t++)
		jobs[t].hashes = hashes;
	run_threads(hash_keys, jobs, sizeof(jobs[0]), threads);
	for (t = 0; t < threads; t++) {
		filter->hdr.flags |= jobs[t].flags;
		for (p = 0; p < BB_KEY_KIND_MAX; p++)
			filter->keys_by_kind[p] += jobs[t].keys_by_kind[p];
	}

	/* 3. Sorted, repeats dropped: the filter is sized for the distinct keys. */
	err = sort_unique(hashes, start, threads, &unique);
	if (err)
		goto cleanup;
	err = filter_size(filter, unique, seed, fpr, opts);
	if (err)
		goto cleanup;
	/* 4. The bits. */
	err = set_all_bits(filter, hashes, unique, threads);
cleanup:
	free(jobs);
	free(hashes);
	if (err)
		bb_filter_free(filter);
	return err;
}

/* ---- a streamed build: counted first, then every key's bits set as it comes ---- */

void bb_key_tally_entry(struct bb_key_tally *tally, const struct bb_entry *e)
{
	switch (e->kind) {
	case BB_ENTRY_IP4:
		if (e->plen <= 32)
			tally->v4_plens[e->plen]++;
		else
			tally->bad = true;
		break;
	case BB_ENTRY_IP6:
		if (e->plen <= 128)
			tally->v6_plens[e->plen]++;
		else
			tally->bad = true;
		break;
	case BB_ENTRY_NAME:
		if (e->flags & BB_ENTRY_F_SUBDOMAINS_ONLY)
			tally->parents_only++;
		else if (e->flags & BB_ENTRY_F_EXACT)
			tally->exact_only++;
		else
			tally->names++;
		break;
	case BB_ENTRY_URL:
		tally->urls++;
		break;
	default:
		tally->bad = true;
	}
}

void bb_key_tally_sum(struct bb_key_tally *sum, const struct bb_key_tally *add)
{
	unsigned int p;

	for (p = 0; p <= 32; p++)
		sum->v4_plens[p] += add->v4_plens[p];
	for (p = 0; p <= 128; p++)
		sum->v6_plens[p] += add->v6_plens[p];
	sum->names += add->names;
	sum->parents_only += add->parents_only;
	sum->exact_only += add->exact_only;
	sum->urls += add->urls;
	sum->bad |= add->bad;
}

/* Keys that prefixes longer than BB_SHORT_PLEN expand to under plan. */
static __u64 expanded_keys(const __u64 *counts, unsigned int width,
			   const struct bb_plen_plan *plan)
{
	unsigned int p;
	__u64 keys = 0;

	for (p = BB_SHORT_PLEN + 1; p <= width; p++)
		if (counts[p])
			keys += counts[p] << (plen_for(plan, p) - p);
	return keys;
}

/*
 * Threads set bits without atomics: a locked OR per word serialises the memory
 * pipeline, and with it a 2-thread build ran no faster than 1. Thread 0 sets its
 * keys' bits in the filter; the others in a second, private copy (atomically only
 * when more than one shares it), ORed into the filter at the end. The copy costs
 * one filter's size of memory, within the stated 2 x filter.
 */
struct bb_filter_stream {
	struct bb_filter *filter;
	struct bb_block *second;	/* NULL with one thread */
	size_t second_len;
	struct build_job jobs[BB_BUILD_MAX_THREADS];
};

int bb_filter_stream_begin(struct bb_filter *filter, const struct bb_key_tally *tally,
			   const struct bb_filter_opts *opts, struct bb_filter_stream **out)
{
	double fpr = opts->fpr > 0 ? opts->fpr : BB_FPR_DEFAULT;
	unsigned int threads = build_threads(opts->threads), t, p;
	struct bb_filter_stream *stream;
	__u64 seed, keys;
	int err;

	memset(filter, 0, sizeof(*filter));
	*out = NULL;
	if (tally->bad)
		return -EINVAL;
	seed = filter_seed(opts->seed);
	err = bb_plen_plan_make(tally->v4_plens, 32, &filter->v4);
	err = err ?: bb_plen_plan_make(tally->v6_plens, 128, &filter->v6);
	if (err)
		return err;
	filter_config(filter, opts);
	filter->keys_by_kind[BB_KEY_IP4] = expanded_keys(tally->v4_plens, 32, &filter->v4);
	filter->keys_by_kind[BB_KEY_IP6] = expanded_keys(tally->v6_plens, 128, &filter->v6);
	filter->keys_by_kind[BB_KEY_NAME] = tally->names + tally->exact_only;
	filter->keys_by_kind[BB_KEY_NAME_PARENT] = tally->names + tally->parents_only;
	filter->keys_by_kind[BB_KEY_URL] = tally->urls;
	for (p = 0, keys = 0; p < BB_KEY_KIND_MAX; p++)
		keys += filter->keys_by_kind[p];
	/* the flags the in-memory build sets as it meets the entries */
	for (p = 0; p <= BB_SHORT_PLEN; p++) {
		if (tally->v4_plens[p])
			filter->hdr.flags |= BB_HDR_F_V4_SHORT;
		if (tally->v6_plens[p])
			filter->hdr.flags |= BB_HDR_F_V6_SHORT;
	}
	if (tally->names || tally->parents_only || tally->exact_only)
		filter->hdr.flags |= BB_HDR_F_NAMES;
	if (tally->urls)
		filter->hdr.flags |= BB_HDR_F_URLS;

	stream = calloc(1, sizeof(*stream));
	if (!stream)
		return -ENOMEM;
	/* sized for every key counted: a repeated one costs room, never a miss */
	err = filter_size(filter, keys, seed, fpr, opts);
	if (err) {
		free(stream);
		bb_filter_free(filter);
		return err;
	}
	stream->filter = filter;
	if (threads > 1) {
		stream->second_len = (size_t)filter->hdr.nblocks * BB_BLOCK_BYTES;
		stream->second = mmap(NULL, stream->second_len, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (stream->second == MAP_FAILED) {
			free(stream);
			bb_filter_free(filter);
			return -ENOMEM;
		}
		/* random writes all over it: huge pages spare the TLB, where there are any */
		madvise(stream->second, stream->second_len, MADV_HUGEPAGE);
	}
	for (t = 0; t < BB_BUILD_MAX_THREADS; t++)
		stream->jobs[t] = (struct build_job){
			.filter = filter, .seed = seed, .stream = true,
			.blocks = t == 0 || !stream->second ? filter->blocks : stream->second,
			.atomic = t > 0 && threads > 2,
		};
	*out = stream;
	return 0;
}

void bb_filter_stream_add(struct bb_filter_stream *stream, unsigned int thread,
			  const struct bb_entry *e)
{
	add_entry(&stream->jobs[thread % BB_BUILD_MAX_THREADS], e);
}

__u64 bb_filter_stream_end(struct bb_filter_stream *stream)
{
	__u64 repeats = 0, *dst, *src;
	unsigned int t;
	size_t i;

	if (!stream)
		return 0;
	for (t = 0; t < BB_BUILD_MAX_THREADS; t++) {
		batch_flush(&stream->jobs[t]);
		repeats += stream->jobs[t].repeats;
	}
	if (stream->second) {
		dst = (__u64 *)stream->filter->blocks;
		src = (__u64 *)stream->second;
		for (i = 0; i < stream->second_len / sizeof(*dst); i++)
			dst[i] |= src[i];
		munmap(stream->second, stream->second_len);
	}
	free(stream);
	return repeats;
}

void bb_filter_free(struct bb_filter *filter)
{
	if (filter->blocks_owned)
		free(filter->blocks);
	filter->blocks = NULL;
	filter->blocks_owned = false;
}

void bb_filter_write_image(const struct bb_filter *filter, struct bb_block *dst)
{
	/* bits first, header last: a reader that checks the magic sees a whole image */
	if (filter->blocks != &dst[BB_FIRST_BLOCK])	/* else built in place */
		memcpy(&dst[BB_FIRST_BLOCK], filter->blocks,
		       (size_t)filter->hdr.nblocks * BB_BLOCK_BYTES);
	memcpy(&dst[BB_CONFIG_INDEX], &filter->config, BB_BLOCK_BYTES);
	memcpy(&dst[BB_SHORT_V4_INDEX], filter->short_v4, sizeof(filter->short_v4));
	memcpy(&dst[BB_SHORT_V6_INDEX], filter->short_v6, sizeof(filter->short_v6));
	memcpy(&dst[BB_HEADER_INDEX], &filter->hdr, BB_BLOCK_BYTES);
}

/* ---- queries on a map image: the BPF program's logic, for `check` and tests ---- */

static const struct bb_header *image_header(const struct bb_block *image)
{
	const struct bb_header *hdr = (const void *)&image[BB_HEADER_INDEX];

	if (hdr->magic != BB_MAGIC || hdr->abi_version != BB_ABI_VERSION || !hdr->nblocks ||
	    !bb_k_valid(hdr->k))
		return NULL;
	return hdr;
}

static int image_test_hash(const struct bb_block *image, const struct bb_header *hdr, __u64 h)
{
	return bb_block_test(&image[BB_FIRST_BLOCK + bb_block_of(h, hdr->nblocks)], h, hdr->k);
}

int bb_image_match_key(const struct bb_block *image, const void *key, __u32 len)
{
	const struct bb_header *hdr = image_header(image);

	return hdr && image_test_hash(image, hdr, bb_key_hash(key, len, hdr->seed));
}

static int match_ip(const struct bb_block *image, const __u8 *addr, bool v4, int max_plen)
{
	const struct bb_header *hdr = image_header(image);
	const __u8 *plens;
	unsigned int n, i;

	if (!hdr)
		return 0;
	/* the /16 bit covers addr/max_plen only when max_plen >= 16 */
	if (hdr->flags & (v4 ? BB_HDR_F_V4_SHORT : BB_HDR_F_V6_SHORT) && max_plen >= BB_SHORT_PLEN &&
	    bb_short_test(&image[bb_short_index(v4, bb_short_prefix(addr))], bb_short_prefix(addr)))
		return 1;
	plens = v4 ? hdr->v4_plens : hdr->v6_plens;
	n = v4 ? hdr->n_v4_plens : hdr->n_v6_plens;
	for (i = 0; i < n && i < BB_MAX_PLENS; i++) {
		if (plens[i] > max_plen)
			continue;
		if (v4) {
			struct bb_key_ip4 key;

			bb_key_ip4_make(&key, addr, plens[i]);
			if (image_test_hash(image, hdr, bb_hash_ip4(&key, hdr->seed)))
				return 1;
		} else {
			struct bb_key_ip6 key;

			bb_key_ip6_make(&key, addr, plens[i]);
			if (image_test_hash(image, hdr, bb_hash_ip6(&key, hdr->seed)))
				return 1;
		}
	}
	return 0;
}

int bb_image_match_ip4(const struct bb_block *image, const __u8 addr[4])
{
	return match_ip(image, addr, true, 32);
}

int bb_image_match_ip6(const struct bb_block *image, const __u8 addr[16])
{
	return match_ip(image, addr, false, 128);
}

/* Prefix addr/plen, plen <= 16: every one of its /16 bits is set in the short table. */
static int short_covers(const struct bb_block *image, const struct bb_header *hdr,
			const __u8 *addr, bool v4, unsigned int plen)
{
	__u32 mask = plen ? 0xffffU << (BB_SHORT_PLEN - plen) : 0;
	__u32 first = bb_short_prefix(addr) & mask, n = 1U << (BB_SHORT_PLEN - plen), i;

	if (!(hdr->flags & (v4 ? BB_HDR_F_V4_SHORT : BB_HDR_F_V6_SHORT)))
		return 0;
	for (i = first; i < first + n; i++)
		if (!bb_short_test(&image[bb_short_index(v4, i)], i))
			return 0;
	return 1;
}

/*
 * Is the whole prefix addr/plen listed? Prefixes /16 and shorter: when the short
 * table covers them. Longer ones: when a stored prefix at or above them covers them,
 * or when every one of their expansions to the next probe length is present (at
 * most 2^16 probes).
 */
static int match_prefix(const struct bb_block *image, const __u8 *addr_in, bool v4,
			unsigned int plen)
{
	const struct bb_header *hdr = image_header(image);
	unsigned int bytes = v4 ? 4 : 16, width = v4 ? 32 : 128, i, l = 0;
	const __u8 *plens;
	__u8 addr[16];
	__u64 count, j;

	if (!hdr)
		return 0;
	if (plen <= BB_SHORT_PLEN)
		return short_covers(image, hdr, addr_in, v4, plen);
	if (plen >= width || match_ip(image, addr_in, v4, plen))
		return plen >= width ? match_ip(image, addr_in, v4, width) : 1;
	plens = v4 ? hdr->v4_plens : hdr->v6_plens;
	for (i = 0; i < (v4 ? hdr->n_v4_plens : hdr->n_v6_plens); i++)
		if (plens[i] > plen && (!l || plens[i] < l))
			l = plens[i];
	if (!l || l - plen > 16)
		return 0;
	memcpy(addr, addr_in, bytes);
	count = 1ULL << (l - plen);
	for (j = 0; j < count; j++) {
		if (!match_ip(image, addr, v4, l))
			return 0;
		if (j + 1 < count)
			addr_step(addr, bytes, l);
	}
	return 1;
}

/* A key at key[start], len bytes: the BPF side's key_hit(). */
static int image_key_hit(const struct bb_block *image, const __u8 *key, __u32 start, __u32 len)
{
	return bb_image_match_key(image, key + start, len);
}

/*
 * key[1 .. len] as the kernel matches a name from a packet: the name, then the
 * parents bb_name_parents() picks. With subdomains_only (a "*.name" query), the
 * name itself is probed as a parent: is every subdomain of it listed?
 */
static int match_name_key(const struct bb_block *image, __u8 *key, __u32 len, bool subdomains_only)
{
	__u32 dots[16], n, i;

	key[0] = subdomains_only ? BB_KEY_NAME_PARENT : BB_KEY_NAME;
	if (image_key_hit(image, key, 0, 1 + len))
		return 1;
	n = bb_name_parents(key, len, dots, BB_NAME_MAX_PARENT_LABELS - 1,
			    BB_NAME_MAX_PARENT_LABELS);
	for (i = 0; i < n; i++) {
		int hit;

		key[dots[i]] = BB_KEY_NAME_PARENT;
		hit = image_key_hit(image, key, dots[i], 1 + len - dots[i]);
		key[dots[i]] = '.';
		if (hit)
			return 1;
	}
	return 0;
}

static int match_name(const struct bb_block *image, const char *name, bool subdomains_only)
{
	__u8 key[BB_KEYBUF_BYTES] = { 0 };
	size_t len = strlen(name);

	if (len > BB_NAME_MAX)
		return 0;
	memcpy(key + 1, name, len);
	return match_name_key(image, key, len, subdomains_only);
}

/* A URL "host/path" as the kernel matches an HTTP request for it. */
static int match_url(const struct bb_block *image, const char *url)
{
	const char *slash = strchr(url, '/');
	__u8 key[BB_KEYBUF_BYTES] = { 0 };
	__u32 hlen, plen, starts[16], paths[8], n_hosts, n_paths, i, j;
	int full = 1;

	if (!slash)
		return match_name(image, url, false);
	hlen = slash - url;
	plen = strlen(slash);
	if (hlen > BB_NAME_MAX)
		return 0;
	if (1 + hlen + plen > BB_KEY_MAX) {
		plen = BB_KEY_MAX - 1 - hlen;
		full = 0;
	}
	memcpy(key + 1, url, hlen);
	memcpy(key + 1 + hlen, slash, plen);
	if (match_name_key(image, key, hlen, false))
		return 1;
	n_paths = bb_url_path_prefixes(key, 1 + hlen, plen, full, paths);
	starts[0] = 0;
	n_hosts = 1 + bb_name_parents(key, hlen, starts + 1, BB_URL_MAX_HOST_SUFFIXES - 1,
				      BB_URL_MAX_HOST_SUFFIXES);
	for (i = 0; i < n_hosts; i++) {
		__u32 d = starts[i];
		__u8 saved = key[d];
		int hit = 0;

		key[d] = BB_KEY_URL;
		for (j = 0; j < n_paths && !hit; j++)
			hit = image_key_hit(image, key, d, 1 + hlen - d + paths[j]);
		key[d] = saved;
		if (hit)
			return 1;
	}
	return 0;
}

int bb_image_match_entry(const struct bb_block *image, const struct bb_entry *entry)
{
	switch (entry->kind) {
	case BB_ENTRY_IP4:
		return match_prefix(image, entry->addr, true, entry->plen);
	case BB_ENTRY_IP6:
		return match_prefix(image, entry->addr, false, entry->plen);
	case BB_ENTRY_NAME:
		return match_name(image, entry->text, entry->flags & BB_ENTRY_F_SUBDOMAINS_ONLY);
	case BB_ENTRY_URL:
		return match_url(image, entry->text);
	default:
		return 0;
	}
}

/* SPDX-License-Identifier: GPL-2.0 */
/* Building a filter in memory: every entry's keys hashed on threads, sorted by block, set. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>
#include <xxhash.h>

#include "fault.h"
#include "bb_hash.h"
#include "bb_names.h"
#include "filter_int.h"


__u32 bb_key_text(__u8 *key, enum bb_key_kind kind, const char *text, size_t len)
{
	if (len > BB_KEY_MAX - 1)
		len = BB_KEY_MAX - 1;
	key[0] = kind;
	memcpy(key + 1, text, len);
	return len + 1;
}

/* Add 1 to the address (network byte order) at bit position plen: the next prefix. */
void addr_step(__u8 *addr, unsigned int bytes, unsigned int plen)
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


/*
 * Set a key's k bits in blk; true when one of them was clear. With atomic, other
 * threads set bits in the same blocks: a word whose bits are all set already is
 * left alone (bits are never cleared, so a plain read that sees them set is
 * right), the others get a locked OR. Its old value is not asked for: x86 has no
 * fetch-or, and asking turns `lock or` into a compare-exchange loop. A word that
 * another thread set in between makes the key look fresh: that only moves the
 * approximate repeat count.
 */
bool block_set_fresh(struct bb_block *blk, __u64 h, __u32 k, bool atomic)
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

void batch_flush(struct build_job *job)
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

static void key_push(struct build_job *job, __u64 h, enum bb_key_kind kind)
{
	unsigned int b = h >> (64 - SORT_BUCKET_BITS);

	if (job->spool) {
		spool_record(job, h, kind);	/* its bits once the filter is sized */
		return;
	}
	if (job->index) {
		index_push(job, h, kind);
		if (job->index_only)
			return;
	}

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
	if (p <= BB_SHORT_PLEN && job->index_only) {
		/* exact in the short table; the index keeps the prefix as its own key */
		index_push(job, bb_prefix_hash(e, job->seed), v4 ? BB_KEY_IP4 : BB_KEY_IP6);
		return;
	}
	if (p <= BB_SHORT_PLEN) {
		struct bb_block *table = v4 ? filter->short_v4 : filter->short_v6;
		__u32 mask = p ? 0xffffU << (BB_SHORT_PLEN - p) : 0;
		__u32 first = bb_short_prefix(addr) & mask, n = 1U << (BB_SHORT_PLEN - p);

		/* threads share the short tables: short prefixes are few, atomics cheap */
		for (i = first; i < first + n; i++)
			__atomic_fetch_or(&table[i / BB_BLOCK_BITS].words[i % BB_BLOCK_BITS / 64],
					  1ULL << (i % 64), __ATOMIC_RELAXED);
		job->flags |= v4 ? BB_HDR_F_V4_SHORT : BB_HDR_F_V6_SHORT;
		if (job->spool)
			spool_record(job, bb_prefix_hash(e, job->seed), v4 ? BB_KEY_IP4 : BB_KEY_IP6);
		else if (job->index)
			index_push(job, bb_prefix_hash(e, job->seed), v4 ? BB_KEY_IP4 : BB_KEY_IP6);
		return;
	}
	l = plen_for(plan, p);
	if (job->defer) {
		/* no plan yet: the longest length listed is always probed, so a whole
		 * address is its own key; a shorter prefix waits for the plan */
		if (p != bytes * 8) {
			spool_defer(job, e);
			return;
		}
		l = p;
	}
	count = 1ULL << (l - p);
	for (i = 0; i < count; i++) {
		if (v4) {
			struct bb_key_ip4 key;

			bb_key_ip4_make(&key, addr, l);
			key_push(job, bb_hash_ip4(&key, job->seed), BB_KEY_IP4);
		} else {
			struct bb_key_ip6 key;

			bb_key_ip6_make(&key, addr, l);
			key_push(job, bb_hash_ip6(&key, job->seed), BB_KEY_IP6);
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
			key_push(job, XXH64(key, bb_key_text(key, kinds[i], text, len), job->seed),
				 kinds[i]);
		else
			key_push(job, bb_hash_name(kinds[i], (const __u8 *)text, (__u32)len,
						   job->seed), kinds[i]);
	}
}

/* The keys of one entry. */
void add_entry(struct build_job *job, const struct bb_entry *e)
{
	static const enum bb_key_kind name_kinds[] = { BB_KEY_NAME, BB_KEY_NAME_PARENT };
	static const enum bb_key_kind url_kinds[] = { BB_KEY_URL };

	if (e->flags & BB_ENTRY_F_ALLOW)
		return;		/* the allowlist's: not in the Bloom filter */
	job->cur_src = e->src;
	job->cur_line = e->line;
	job->cur_form = e->kind == BB_ENTRY_NAME ?
		(e->flags & BB_ENTRY_F_SUBDOMAINS_ONLY ? BB_FORM_SUBDOMAINS :
		 e->flags & BB_ENTRY_F_EXACT ? BB_FORM_EXACT : BB_FORM_NAME) :
		e->kind == BB_ENTRY_URL ? 0 : e->plen;
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
void run_threads(void *(*fn)(void *), void *args, size_t arg_size, unsigned int threads)
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

	for (i = 0; i < job->n; i++) {
		if (i == job->n / 2)
			bb_fault_point("fill");	/* half the bits in the new map */
		bb_block_set(&job->blocks[bb_block_of(job->hashes[i], job->nblocks)],
			     job->hashes[i], job->k);
	}
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
	config->event_cost_ns = 1000000000U / BB_EVENT_RATE_DEFAULT;
	config->event_burst = BB_EVENT_RATE_DEFAULT;
	config->answer_cost_ns = 1000000000U / BB_ANSWER_RATE;
	config->answer_burst = BB_ANSWER_RATE;
}

struct plen_job {
	const struct bb_entry *entries;
	size_t lo, hi;
	__u64 v4[33], v6[129];
	struct bb_key_tally allow;	/* the allowlist's entries */
	bool bad;		/* an entry no list parse makes */
};

/* The allowlist's keys (few: one thread) into its table. */
static int allow_build(struct bb_filter *filter, const struct bb_list *list,
		       const struct bb_key_tally *tally, __u64 seed)
{
	__u64 *hashes = NULL;
	size_t i, n = 0;
	int err;

	if (tally->allow_keys) {
		hashes = malloc(tally->allow_keys * sizeof(*hashes));
		if (!hashes)
			return -ENOMEM;
		for (i = 0; i < list->n; i++)
			if (list->entries[i].flags & BB_ENTRY_F_ALLOW)
				n += bb_allow_keys(&list->entries[i], seed, hashes + n);
	}
	err = allow_table_make(filter, hashes, n, tally);
	free(hashes);
	return err;
}

static void *count_plens(void *arg)
{
	struct plen_job *job = arg;
	size_t i;

	for (i = job->lo; i < job->hi; i++) {
		const struct bb_entry *e = &job->entries[i];

		if (e->kind >= BB_ENTRY_KIND_MAX || (e->kind == BB_ENTRY_IP4 && e->plen > 32) ||
		    (e->kind == BB_ENTRY_IP6 && e->plen > 128))
			job->bad = true;
		else if (e->flags & BB_ENTRY_F_ALLOW)
			allow_tally_entry(&job->allow, e);
		else if (e->kind == BB_ENTRY_IP4)
			job->v4[e->plen]++;
		else if (e->kind == BB_ENTRY_IP6)
			job->v6[e->plen]++;
	}
	return NULL;
}

unsigned int build_threads(unsigned int threads)
{
	if (!threads) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		threads = cpus > 0 ? (unsigned int)cpus : 1;
	}
	return threads > BB_BUILD_MAX_THREADS ? BB_BUILD_MAX_THREADS : threads;
}

__u64 filter_seed(__u64 seed)
{
	while (!seed && getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		;
	return seed;
}

void filter_config(struct bb_filter *filter, const struct bb_filter_opts *opts)
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
int filter_size(struct bb_filter *filter, __u64 keys, __u64 seed, double fpr,
		       const struct bb_filter_opts *opts)
{
	unsigned int probes[BB_CHECK_MAX];
	int err;

	/* service ports matter only when there are names to find or QUIC to drop */
	if (filter->hdr.flags & (BB_HDR_F_NAMES | BB_HDR_F_URLS | BB_HDR_F_BLOCK_QUIC))
		filter->hdr.flags |= BB_HDR_F_SERVICES;
	/* sized so that each check of a packet, at its most probes, has the rate fpr:
	 * the checks its keys need, and those it makes room for (load --room) */
	bb_check_probes(filter->hdr.flags |
			(filter->hdr.flags & BB_HDR_F_ROOM_NAMES ? BB_HDR_F_NAMES : 0) |
			(filter->hdr.flags & BB_HDR_F_ROOM_URLS ? BB_HDR_F_URLS : 0),
			filter->v4.n_plens, filter->v6.n_plens, probes);
	err = bb_plan_checks(keys, opts->capacity, fpr, probes, &filter->plan);
	if (err)
		return err;
	if (opts->blocks_alloc) {
		filter->blocks = opts->blocks_alloc(opts->blocks_ctx, filter->plan.nblocks,
						    filter->hdr.allow_blocks);
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
	return 0;
}

int bb_filter_build(struct bb_filter *filter, const struct bb_list *list,
		    const struct bb_filter_opts *opts)
{
	struct build_job *jobs;
	struct plen_job *plens = NULL;
	__u64 v4_counts[33] = { 0 }, v6_counts[129] = { 0 }, seed = opts->seed, *hashes = NULL;
	struct bb_key_tally allow = { 0 };
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
		bb_key_tally_sum(&allow, &plens[t].allow);
	}
	free(plens);
	err = err ?: bb_plen_plan_make(v4_counts, 32, &filter->v4);
	err = err ?: bb_plen_plan_make(v6_counts, 128, &filter->v6);
	/* 1b. The allowlist, whose size the map needs before the bits have it. */
	err = err ?: allow_build(filter, list, &allow, seed);
	if (err) {
		bb_filter_free(filter);
		return err;
	}

	filter_config(filter, opts);

	/* 2. Every key's hash, each thread for a range of entries, grouped by bucket. */
	jobs = calloc(threads, sizeof(*jobs));
	if (!jobs) {
		bb_filter_free(filter);
		return -ENOMEM;
	}
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

void bb_filter_free(struct bb_filter *filter)
{
	if (filter->blocks_owned)
		free(filter->blocks);
	filter->blocks = NULL;
	filter->blocks_owned = false;
	free(filter->allow);
	filter->allow = NULL;
}

void bb_filter_write_image(const struct bb_filter *filter, struct bb_block *dst)
{
	__u64 allow = bb_allow_index(filter->hdr.nblocks);

	/* bits first, header last: a reader that checks the magic sees a whole image */
	if (filter->blocks != &dst[BB_FIRST_BLOCK])	/* else built in place */
		memcpy(&dst[BB_FIRST_BLOCK], filter->blocks,
		       (size_t)filter->hdr.nblocks * BB_BLOCK_BYTES);
	bb_fault_point("allow");	/* the filter's bits written, not the allowlist */
	if (filter->hdr.allow_blocks) {
		memcpy(&dst[allow], &filter->allow_hdr, BB_BLOCK_BYTES);
		memcpy(&dst[allow + 1], filter->allow,
		       (size_t)filter->hdr.allow_blocks * BB_BLOCK_BYTES);
	}
	memcpy(&dst[BB_CONFIG_INDEX], &filter->config, BB_BLOCK_BYTES);
	memcpy(&dst[BB_SHORT_V4_INDEX], filter->short_v4, sizeof(filter->short_v4));
	memcpy(&dst[BB_SHORT_V6_INDEX], filter->short_v6, sizeof(filter->short_v6));
	memcpy(&dst[BB_HEADER_INDEX], &filter->hdr, BB_BLOCK_BYTES);
}

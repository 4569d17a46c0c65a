/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the filter's files share, and nothing else includes: filter_plan.c (sizing,
 * the blocked formula, prefix plans), filter_build.c (keys, hashes, the in-memory
 * build), filter_stream.c (the streamed build), filter_image.c (queries on an image).
 */
#ifndef BB_FILTER_INT_H
#define BB_FILTER_INT_H

#include "filter.h"

#define BB_BUILD_MAX_THREADS 64

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
	/* the key index (filter_index.c): every key pushed is recorded with where its
	 * entry came from; index_only: recorded, nothing else */
	struct bb_index *index;
	bool index_only;
	__u8 cur_src, cur_form;
	__u32 cur_line;
	/* a one-pass build (filter_spool.c): every key's record to the spool, no bits;
	 * defer: the plan is not made yet, so prefixes it decides wait in the spool */
	struct bb_spool_writer *spool;
	bool defer;
};

/* Key h of kind, from the job's current entry, into its spool (filter_spool.c). */
void spool_record(struct build_job *job, __u64 h, enum bb_key_kind kind);
/* An address prefix whose keys the plan decides, kept in the spool until it is made. */
void spool_defer(struct build_job *job, const struct bb_entry *e);
/*
 * Set a key's k bits in blk; true when one of them was clear. atomic: other threads
 * may set bits in the same block meanwhile.
 */
bool block_set_fresh(struct bb_block *blk, __u64 h, __u32 k, bool atomic);
/*
 * Sort a bucket of the index (records whose hashes agree in their top byte) in the
 * index's order: two 11-bit LSD passes through scratch (n records) on the next 22
 * bits, a cache-sized bucket streamed twice instead of the in-place sort's random
 * swaps (18 ns a record here, against 27 for three 8-bit passes and 57 for the
 * in-place sort); then the records alike in their top 30 bits (about n^2 / 2^23
 * pairs: 180 in a bucket of 10^7 / 256), in full. Returns where the sorted records
 * are: r or scratch.
 */
struct bb_index_rec *index_sort_bucket(struct bb_index_rec *r, size_t n,
				       struct bb_index_rec *scratch);
/*
 * A streamed build's filter from its tally, once planned: config and header flags
 * (opts', then what the entries need), keys by kind. Returns the keys to size for.
 */
__u64 stream_shape(struct bb_filter *filter, const struct bb_key_tally *tally,
		   const struct bb_filter_opts *opts);

/* Record key h of kind in the job's index, from its current entry. -ENOMEM sticks. */
void index_push(struct build_job *job, __u64 h, enum bb_key_kind kind);

/* The probe length prefixes of length p expand to under plan; 0: none (short). */
unsigned int plen_for(const struct bb_plen_plan *plan, unsigned int p);
/* Add 1 to the address (network byte order) at bit position plen: the next prefix. */
void addr_step(__u8 *addr, unsigned int bytes, unsigned int plen);
/* The keys of one entry, to the job: hashed, counted, or (streamed) set. */
void add_entry(struct build_job *job, const struct bb_entry *e);
/* A streamed job's waiting hashes, set. */
void batch_flush(struct build_job *job);
unsigned int build_threads(unsigned int threads);
/* seed, or a random one for 0. */
__u64 filter_seed(__u64 seed);
/* The header's flags and config from opts. */
void filter_config(struct bb_filter *filter, const struct bb_filter_opts *opts);
/* Plan for keys at fpr and get the blocks (opts->blocks_alloc, or calloc). */
int filter_size(struct bb_filter *filter, __u64 keys, __u64 seed, double fpr,
		const struct bb_filter_opts *opts);
/*
 * The allowlist (filter_allow.c). init: its header from tally (prefix lengths,
 * kinds) and an empty table of blocks blocks. add: one key's hash, as
 * bb_allow_insert(), counted in the header. make: init, then every hash of
 * hashes[0..n), the table doubled while a pair of blocks overflows.
 */
int allow_table_init(struct bb_filter *filter, const struct bb_key_tally *tally, __u32 blocks);
int allow_table_add(struct bb_filter *filter, __u64 h);
int allow_table_make(struct bb_filter *filter, const __u64 *hashes, size_t n,
		     const struct bb_key_tally *tally);
/* Count an allowlist entry's keys, prefix length and kind into t. */
void allow_tally_entry(struct bb_key_tally *t, const struct bb_entry *e);

/* fn on each of threads args (arg_size bytes apart), the caller's thread among them. */
void run_threads(void *(*fn)(void *), void *args, size_t arg_size, unsigned int threads);

#endif /* BB_FILTER_INT_H */

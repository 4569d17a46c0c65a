/* SPDX-License-Identifier: GPL-2.0 */
/* Blocked Bloom filter: sizing, the blocked FPR formula, prefix planning and building. */
#ifndef BB_FILTER_H
#define BB_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bloomblock.h"
#include "list.h"

#define BB_FPR_DEFAULT 0.001

/* What `bloomblock plan` prints: the filter for n keys at a target FPR. */
struct bb_plan {
	__u64 n;		/* keys */
	double target_fpr;
	__u32 k;
	__u32 nblocks;
	double fpr;		/* predicted by the blocked formula, per key lookup */
	double classic_fpr;	/* what the classic formula would claim for the same m, k */
	__u64 bits;		/* nblocks * 512 */
	__u64 map_bytes;	/* whole map: header, short block and bit blocks */
	double bits_per_key;
	double bound_bits_per_key;	/* information-theoretic bound log2(1/fpr) */
	__u64 hash_map_bytes;	/* a BPF_MAP_TYPE_HASH holding the same keys (4-byte key) */
};

/* FPR of a blocked Bloom filter: Poisson-weighted over block loads. */
double bb_blocked_fpr(double n, __u32 nblocks, __u32 k);
double bb_classic_fpr(double n, double bits, __u32 k);
/* Smallest filter (then smallest k) whose blocked FPR is at most target_fpr. */
int bb_plan_make(__u64 n, double target_fpr, struct bb_plan *plan);
/* Memory a BPF hash map with n entries uses (kernel htab accounting, as bpftool shows). */
__u64 bb_hash_map_bytes(__u64 n, __u32 key_size, __u32 value_size);

/* Probe lengths chosen for one address family. */
struct bb_plen_plan {
	__u8 plens[BB_MAX_PLENS];	/* longest first */
	__u8 n_plens;
	__u64 prefixes;			/* entries longer than BB_SHORT_PLEN */
	__u64 short_prefixes;		/* entries of BB_SHORT_PLEN or shorter */
	double expanded;		/* keys after expansion to the probe lengths */
};

/*
 * Choose at most BB_MAX_PLENS probe lengths for prefixes longer than BB_SHORT_PLEN,
 * the fewest that keep expansion within budget. counts[p] = prefixes of length p.
 * Returns 0 or -E2BIG when even BB_MAX_PLENS lengths would expand past the hard cap.
 */
int bb_plen_plan_make(const __u64 *counts, unsigned int width, struct bb_plen_plan *plan);

struct bb_filter {
	struct bb_header hdr;
	struct bb_config config;
	struct bb_block short_v4[BB_SHORT_BLOCKS];	/* exact tables, prefixes /0../16 */
	struct bb_block short_v6[BB_SHORT_BLOCKS];
	struct bb_block *blocks;	/* hdr.nblocks */
	bool blocks_owned;		/* calloc'd here; else the caller's (a mapped map) */
	struct bb_plan plan;
	struct bb_plen_plan v4, v6;
	__u64 keys_by_kind[BB_KEY_KIND_MAX];
};

struct bb_filter_opts {
	double fpr;		/* target per key; 0 means BB_FPR_DEFAULT */
	__u64 seed;		/* 0: random */
	__u32 flags;		/* header flags to set, e.g. BB_HDR_F_DROP */
	unsigned int threads;	/* 0: one per online CPU */
	struct bb_config config;	/* ports and mark; all-zero ports: the defaults */
	/*
	 * Where the bit blocks go. NULL: calloc'd, freed by bb_filter_free(). Else called
	 * once, when the size is known: zeroed memory for nblocks blocks that the caller
	 * owns, such as the new map itself (bb_filter_map_create()), or NULL.
	 */
	struct bb_block *(*blocks_alloc)(void *ctx, __u32 nblocks);
	void *blocks_ctx;
};

/* DNS 53, TLS 443, HTTP 80 and 8080, QUIC 443. */
void bb_config_defaults(struct bb_config *config);

/* Build a filter from parsed entries. Returns 0 or -errno (-E2BIG: too large). */
int bb_filter_build(struct bb_filter *filter, const struct bb_list *list,
		    const struct bb_filter_opts *opts);
void bb_filter_free(struct bb_filter *filter);

/*
 * A streamed build, for lists too large to hold: a first pass over the lists tallies
 * what the plan needs, a second one adds each entry's keys as it is parsed, storing
 * nothing per key. There is no de-duplication, so the filter is sized for every key
 * counted, repeats included: never smaller than bb_filter_build() makes for the same
 * entries, and, when no key repeats, the same image byte for byte.
 */
struct bb_key_tally {
	__u64 v4_plens[33];	/* IPv4 entries by prefix length */
	__u64 v6_plens[129];
	__u64 names;		/* names: two keys each, the name and the parent */
	__u64 parents_only;	/* "*.name": the parent key only */
	__u64 exact_only;	/* an exact name: the name key only */
	__u64 urls;
	bool bad;		/* an entry no list parse makes */
};

void bb_key_tally_entry(struct bb_key_tally *tally, const struct bb_entry *e);
void bb_key_tally_sum(struct bb_key_tally *sum, const struct bb_key_tally *add);

struct bb_filter_stream;

/*
 * Plan and size the filter for the tallied entries and get its blocks (zeroed, from
 * opts->blocks_alloc or calloc). opts->threads bounds how many threads may call
 * bb_filter_stream_add() at once. Returns 0 or -errno (-E2BIG: too large).
 */
int bb_filter_stream_begin(struct bb_filter *filter, const struct bb_key_tally *tally,
			   const struct bb_filter_opts *opts, struct bb_filter_stream **stream);
/* Set the bits of e's keys; thread is the caller's own number, below opts->threads. */
void bb_filter_stream_add(struct bb_filter_stream *stream, unsigned int thread,
			  const struct bb_entry *e);
/*
 * Set what is still pending and free the stream. Returns the keys that found all
 * their bits set already: repeated keys and Bloom collisions alike, and, when threads
 * race on one block, not exactly either. An estimate, not a duplicate count.
 */
__u64 bb_filter_stream_end(struct bb_filter_stream *stream);

/* Size of the whole map image (header + short block + blocks) in 64-byte elements. */
static inline __u64 bb_filter_elements(__u32 nblocks)
{
	return (__u64)nblocks + BB_FIRST_BLOCK;
}

/*
 * Write the map image (header, short tables, bit blocks) to dst, bb_filter_elements()
 * long. Blocks built in place at dst[BB_FIRST_BLOCK] are not copied.
 */
void bb_filter_write_image(const struct bb_filter *filter, struct bb_block *dst);

/*
 * Query a filter image laid out as in the map (element 0 header, 1 short block,
 * then bit blocks): the same logic the BPF program runs. Returns 1 for
 * "listed (maybe)", 0 for "not listed".
 */
int bb_image_match_ip4(const struct bb_block *image, const __u8 addr[4]);
int bb_image_match_ip6(const struct bb_block *image, const __u8 addr[16]);
int bb_image_match_key(const struct bb_block *image, const void *key, __u32 len);
/*
 * Match an entry as `check` asks: an address or prefix; a name with the parents the
 * kernel probes; a URL as an HTTP request for it (host, then host suffixes times
 * path prefixes). The same enumerations as the BPF side (include/bb_names.h).
 */
int bb_image_match_entry(const struct bb_block *image, const struct bb_entry *entry);

/* Key encodings of names and URLs: kind tag then text. Returns the key length. */
__u32 bb_key_text(__u8 *key, enum bb_key_kind kind, const char *text, size_t len);

#endif /* BB_FILTER_H */

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
#define BB_EVENT_RATE_DEFAULT 1000	/* hit events a second a CPU, and the burst */

/*
 * The checks a packet gets, and the keys each probes at most (include/bloomblock.h):
 * its address at each probe length of its family (both addresses with
 * BB_HDR_F_ADDR_BOTH); a name and its parents; an HTTP request's host as a name,
 * then its host suffixes times path prefixes. --fp is the false-positive rate of one
 * check at that count: a key's rate p with 1 - (1 - p)^probes = fp.
 */
enum bb_check { BB_CHECK_ADDR, BB_CHECK_NAME, BB_CHECK_URL, BB_CHECK_MAX };

#define BB_NAME_PROBES		BB_NAME_MAX_PARENT_LABELS
#define BB_URL_PROBES		(BB_URL_MAX_HOST_SUFFIXES * BB_URL_MAX_PATH_PREFIXES)

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
	/* sized per check (filter_size(), bb_plan_checks()): the check rate asked for,
	 * each check's probes and its predicted rate */
	double check_target;
	unsigned int check_probes[BB_CHECK_MAX];
	double check_fpr[BB_CHECK_MAX];
	__u64 capacity;		/* keys sized for, when more than n (--capacity) */
};

/*
 * Plan for n keys (or capacity, when more) so that every check of probes[] keys has
 * the rate check_fpr at most. 0, -EINVAL, -E2BIG.
 */
int bb_plan_checks(__u64 n, __u64 capacity, double check_fpr,
		   const unsigned int probes[BB_CHECK_MAX], struct bb_plan *plan);


const char *bb_check_name(enum bb_check check);	/* "address", "name", "url" */
/* The key rate that gives a check of probes keys the rate check_fpr, and back. */
double bb_key_fpr_for(double check_fpr, unsigned int probes);
double bb_check_fpr(double key_fpr, unsigned int probes);
/*
 * The most keys each check probes under a filter with these header flags and
 * numbers of IPv4 and IPv6 probe lengths; 0: the check never hits (nothing of its
 * kind is listed).
 */
void bb_check_probes(__u32 flags, unsigned int v4_plens, unsigned int v6_plens,
		     unsigned int probes[BB_CHECK_MAX]);
/*
 * The key FPR estimated from what an image's bit blocks hold: the mean over blocks
 * of the chance that a random key finds its bits set there.
 */
double bb_image_key_fpr(const struct bb_block *image);
/* The bits an image's bit blocks have set (its fill is that over nblocks * 512). */
__u64 bb_image_bits_set(const struct bb_block *image);

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
	struct bb_allow_header allow_hdr;
	struct bb_block *allow;		/* hdr.allow_blocks blocks, malloc'd: the allowlist */
	struct bb_plan plan;
	struct bb_plen_plan v4, v6;
	__u64 keys_by_kind[BB_KEY_KIND_MAX];
};

struct bb_filter_opts {
	double fpr;		/* target per check of a packet (enum bb_check); 0 means
				 * BB_FPR_DEFAULT */
	__u64 capacity;		/* keys to size for, at least: room to grow; 0: none */
	struct bb_index *index;	/* a streamed build records its keys here (unsorted,
				 * lines in parts: bb_index_rebase()); NULL: not */
	__u64 seed;		/* 0: random */
	__u32 flags;		/* header flags to set, e.g. BB_HDR_F_DROP */
	unsigned int threads;	/* 0: one per online CPU */
	struct bb_config config;	/* ports and mark; all-zero ports: the defaults */
	/*
	 * Where the bit blocks go. NULL: calloc'd, freed by bb_filter_free(). Else called
	 * once, when the size is known: zeroed memory for a map of nblocks bit blocks and
	 * allow_blocks allowlist blocks that the caller owns, such as the new map itself
	 * (bb_filter_map_create()), its bit blocks returned; or NULL.
	 */
	struct bb_block *(*blocks_alloc)(void *ctx, __u32 nblocks, __u32 allow_blocks);
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
	__u64 allow_keys;	/* the allowlist's keys */
	__u64 allow_v4_plens[33], allow_v6_plens[129];	/* its addresses by length */
	__u32 allow_flags;	/* BB_HDR_F_NAMES, BB_HDR_F_URLS */
	bool bad;		/* an entry no list parse makes */
};

void bb_key_tally_entry(struct bb_key_tally *tally, const struct bb_entry *e);
void bb_key_tally_sum(struct bb_key_tally *sum, const struct bb_key_tally *add);

struct bb_filter_stream;

/*
 * Plan and size the filter for the tallied entries and get its blocks (zeroed, from
 * opts->blocks_alloc or calloc). opts->threads bounds how many threads may call
 * bb_filter_stream_add() at once, numbered 0 .. opts->threads - 1: a thread number
 * past it shares a bit array with another without atomics, and bits are lost (load
 * parses and builds on the same count). Returns 0 or -errno (-E2BIG: too large).
 */
int bb_filter_stream_begin(struct bb_filter *filter, const struct bb_key_tally *tally,
			   const struct bb_filter_opts *opts, struct bb_filter_stream **stream);
/*
 * Set the bits of e's keys (an allowlist entry's go to the allowlist); thread is the
 * caller's own number, below opts->threads.
 */
void bb_filter_stream_add(struct bb_filter_stream *stream, unsigned int thread,
			  const struct bb_entry *e);
/*
 * Set what is still pending and free the stream. *repeats: the keys that found all
 * their bits set already: repeated keys and Bloom collisions alike, and, when threads
 * race on one block, not exactly either. An estimate, not a duplicate count. Returns
 * 0, or -ENOSPC when an allowlist key found no room (the tally was not this list's).
 */
int bb_filter_stream_end(struct bb_filter_stream *stream, __u64 *repeats);
/* The part (its ordinal in the file) whose entries come next on thread: for the index. */
void bb_filter_stream_part(struct bb_filter_stream *stream, unsigned int thread, size_t part);
/*
 * A streamed build's index, its lines made lines of the files: base[src][part] is
 * the number of lines of list src before its part part (parts[src] of them); then
 * sorted.
 */
int bb_index_rebase(struct bb_index *x, size_t *const *base, const size_t *parts,
		    unsigned int n_src);

/*
 * Size of the whole map image (header, config, short tables, bit blocks and, when
 * there is one, the allowlist's header and table) in 64-byte elements.
 */
static inline __u64 bb_filter_elements(__u32 nblocks, __u32 allow_blocks)
{
	return (__u64)nblocks + BB_FIRST_BLOCK + (allow_blocks ? 1 + (__u64)allow_blocks : 0);
}

/* Where the allowlist's header is: right after the bit blocks. */
static inline __u64 bb_allow_index(__u32 nblocks)
{
	return (__u64)nblocks + BB_FIRST_BLOCK;
}

/*
 * The allowlist's table: blocks of 8 fingerprints (include/bloomblock.h). Insert the
 * key of hash h: 1 added, 0 there already, -ENOSPC when its blocks are full. Remove:
 * 1 removed, 0 not there. Test: 1 there. Each is one aligned 8-byte access per slot,
 * so a live map can be changed while packets read it.
 */
int bb_allow_insert(struct bb_block *table, __u32 blocks, __u64 h);
int bb_allow_remove(struct bb_block *table, __u32 blocks, __u64 h);
int bb_allow_test(const struct bb_block *table, __u32 blocks, __u64 h);
/* Blocks for keys allowlist keys, with room for as many added live (at least 64). */
__u32 bb_allow_blocks_for(__u64 keys);

/*
 * The hashes of an entry's allowlist keys (an address at its own prefix length, a
 * name's name and parent keys, a URL's key) under seed: their count (at most 2).
 */
unsigned int bb_allow_keys(const struct bb_entry *e, __u64 seed, __u64 *h);

/*
 * Write the map image (header, short tables, bit blocks, allowlist) to dst,
 * bb_filter_elements() long. Blocks built in place at dst[BB_FIRST_BLOCK] are not
 * copied.
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
/*
 * A filter's description from its image (a filter file's): header, config,
 * allowlist header, probe lengths and the plan's figures. No blocks: it owns no
 * memory, and bb_filter_free() need not be called.
 */
void bb_filter_from_image(struct bb_filter *f, const struct bb_block *image);

/*
 * Whether the allowlist lets an entry through, as the kernel asks it after a hit:
 * the same enumeration over the allowlist's keys (addresses at its own prefix
 * lengths). 1 allowed, 0 not.
 */
int bb_image_allowed(const struct bb_block *image, const struct bb_entry *entry);
/*
 * A name as a packet's parser left it in a key buffer (BB_KEYBUF_BYTES, its length
 * len as bb_dns_qname(), bb_name_finish() or bb_http_request() give it), matched as the
 * kernel matches it (bb_match_name(), the same enumeration): 1 listed, 0 not; and
 * *allowed, when listed, whether the allowlist lets it through. For the differential
 * test, which asks this of what the kernel asked its own copy.
 */
int bb_image_match_name_key(const struct bb_block *image, const __u8 *keybuf, __u32 len,
			    int *allowed);
/*
 * An HTTP request's URL as the URL program matches it (bb_match_url(): host suffixes
 * times path prefixes), the host key[1 .. hlen] and the path after it as
 * bb_http_request() left them: 1 listed, 0 not; *allowed, when listed, whether the
 * allowlist holds the host or the URL. For the differential test too.
 */
int bb_image_match_url_key(const struct bb_block *image, const __u8 *keybuf, __u32 hlen,
			   __u32 plen, int full, int *allowed);

/*
 * Change the allowlist of a live image (the live map, mapped writable) in place, as
 * packets read it: each store is one aligned word. Add an entry's keys (its prefix
 * length recorded): 1 added, 0 there already, -ENOSPC no room (nothing changed: a
 * load sizes the table anew), -E2BIG a prefix length past BB_ALLOW_MAX_PLENS, -EINVAL
 * no allowlist (another version's filter). Remove: 1 removed, 0 not there.
 */
int bb_image_allow_add(struct bb_block *image, const struct bb_entry *e);
int bb_image_allow_remove(struct bb_block *image, const struct bb_entry *e);

/*
 * The key index (filter_index.c): every key a filter holds, by hash, with where its
 * entry came from. A record's line is the line in its list; in a streamed build,
 * the line in a part of it (the run it is in says which) until bb_index_rebase()
 * makes it the file's. Its form tells apart the entries that make the same key: an
 * address key of a /32 and of the /24 expanded to it, a name's parent key of
 * "name" and of "*.name" (enum bb_index_form).
 */
struct bb_index_rec {
	__u64 h;
	__u32 line;		/* 0: added live (bloomblock add) */
	__u8 src;		/* bb_entry.src: which list */
	__u8 kind;		/* enum bb_key_kind */
	__u8 form;		/* an address: its entry's prefix length; a name: enum
				 * bb_index_form; a URL: 0 */
	__u8 pad;
};

enum bb_index_form {
	BB_FORM_NAME		= 0,	/* "name": the name and its subdomains */
	BB_FORM_SUBDOMAINS	= 1,	/* "*.name": its subdomains only */
	BB_FORM_EXACT		= 2,	/* the name alone */
};

/* The records from first on (to the next run's first) are of part part of a list. */
struct bb_index_run {
	size_t first, part;
};

struct bb_index {
	struct bb_index_rec *recs;
	size_t n, cap;
	struct bb_index_run *runs;	/* a streamed build's, until bb_index_rebase() */
	size_t n_runs, cap_runs;
	int err;		/* an allocation failed: the index is incomplete */
};

#define BB_INDEX_MAX_SOURCES	256

/* What an index file says of itself and its filter. */
struct bb_index_meta {
	__u64 seed, generation;	/* its filter's */
	__u32 map_id;
	__u64 changes;		/* live adds and deletes written since the load */
	__u64 added, deleted;	/* entries added and deleted live */
	double fp;		/* the load's --fp: add's --max-fp is twice it */
	/* the filter's live-change epoch (bb_config.confirm_epoch) this state of the
	 * index is of: 0 at the load, an add or del writes the one it moves the filter on
	 * to. Known when read from an index written so (an older one has none). */
	__u32 epoch;
	bool epoch_known;
};

/* A written index, mapped read-only. */
struct bb_index_view {
	void *map;
	size_t size;
	const struct bb_index_rec *recs;	/* sorted by h */
	size_t n;
	struct bb_index_meta meta;
	__u64 seed, generation;			/* meta's, for short */
	__u32 map_id;
	const char *sources[BB_INDEX_MAX_SOURCES];
	unsigned int n_sources;
};

/* The hash of an address prefix as its own key: how the index keeps short prefixes. */
__u64 bb_prefix_hash(const struct bb_entry *e, __u64 seed);
/* The index of an in-memory build's filter: every entry's keys again, on threads, sorted. */
int bb_filter_index(const struct bb_filter *filter, const struct bb_list *list,
		    unsigned int threads, struct bb_index *out);
/* Move from's records to the end of to's. */
int bb_index_append(struct bb_index *to, struct bb_index *from);
/* The records pushed from now on are of part part (a streamed build). */
void bb_index_part(struct bb_index *x, size_t part);
/* By hash, then list and line; in place. */
int bb_index_sort(struct bb_index *x);
void bb_index_free(struct bb_index *x);
/* Written to a temporary name beside path, then renamed. */
int bb_index_write(const struct bb_index *x, const char *path, const char *const *sources,
		   unsigned int n_sources, __u64 seed, __u64 generation, __u32 map_id);
int bb_index_write_meta(const struct bb_index *x, const char *path, const char *const *sources,
			unsigned int n_sources, const struct bb_index_meta *meta);
/* The same as a file's bytes, malloc'd: a filter file's index section. */
int bb_index_bytes(const struct bb_index *x, const char *const *sources, unsigned int n_sources,
		   const struct bb_index_meta *m, void **out, size_t *len);
/* A view of an index's bytes in memory, checked (its map stays NULL: nothing to close). */
int bb_index_view_bytes(const void *bytes, size_t size, struct bb_index_view *v);
/* The records of hash h in recs[0..n) sorted by h: their count, the first at *first. */
size_t bb_index_find_in(const struct bb_index_rec *recs, size_t n, __u64 h, size_t *first);
int bb_index_open(const char *path, struct bb_index_view *v);
void bb_index_close(struct bb_index_view *v);
/* The records of hash h: their count, the first at *first. */
size_t bb_index_find(const struct bb_index_view *v, __u64 h, size_t *first);
const char *bb_index_source(const struct bb_index_view *v, unsigned int src);
/* 1 when v is the index of the filter in image: the same seed, generation and map. */
int bb_index_describes(const struct bb_index_view *v, const struct bb_block *image);
/*
 * Which list holds what the kernel would match for an entry: the same lookups as
 * bb_image_match_entry(), a key counting only when the index holds it too. 1 with
 * *rec the first record found; 0 when no key the lookups probe is in the index (a
 * hit of bb_image_match_entry() is then a false positive).
 */
int bb_image_attribute(const struct bb_block *image, const struct bb_index_view *index,
		       const struct bb_entry *entry, const struct bb_index_rec **rec);
/*
 * The list entry a record of the index holds, as its list writes it, for the query
 * it matched (what bb_image_attribute() found for query): the prefix of an address
 * ("198.51.96.0/20"), the name or parent of a name ("tracker.example",
 * "*.tracker.example"), the host suffix and path prefix of a URL. 0, or -ENOENT.
 */
int bb_index_entry_text(const struct bb_entry *query, const struct bb_index_rec *rec,
			__u64 seed, char *out, size_t size);

/*
 * Live add and delete (filter_live.c): the live map, writable; the index, in memory;
 * the counting shadow, a 4-bit count a bit of the blocks. bb_live_add() and
 * bb_live_del() stage, bb_live_commit() changes the map and writes index and shadow.
 */
#define BB_LIVE_SOURCE	"bloomblock add"	/* the index's source of what add added */

struct bb_live {
	struct bb_block *image;
	struct bb_filter shape;		/* the live plan: seed, probe lengths, flags */
	struct bb_index index;		/* sorted by h */
	char *sources[BB_INDEX_MAX_SOURCES];
	unsigned int n_sources;
	struct bb_index_meta meta;
	__u8 *counts;			/* the shadow */
	size_t counts_bytes;
	bool shadow_built;		/* built from the index: none kept, or stale */
	/* this run's */
	struct bb_index adds;		/* records to add */
	struct bb_index leftovers;	/* records no one holds, set: a crash's (del) */
	__u8 *dead;			/* a bit a record of index: deleted */
	size_t n_dead;
	struct bb_entry *short_adds, *short_dels;	/* prefixes /16 and shorter */
	size_t n_short_adds, n_short_dels;
	bool plens_grown;
	__u32 flags_new;
	__u64 keys_added, keys_removed;	/* distinct keys set, cleared */
	__u64 bits_cleared;		/* the leftovers' bits cleared */
};

/* -ESTALE: the index is not the live filter's; -ENOENT: there is none. */
int bb_live_open(struct bb_live *l, struct bb_block *image, const char *index_path,
		 const char *shadow_path);
void bb_live_close(struct bb_live *l);
/*
 * Stage entry e: 1 staged, 0 held already; -ERANGE no probe length fits it and the
 * header has no room for another (a reload), -E2BIG too many keys (a reload).
 */
int bb_live_add(struct bb_live *l, const struct bb_entry *e);
/*
 * Stage e's delete: 1 staged; 0 the index does not hold it as such, with *holder the
 * record of what matches it instead (a wider prefix, a parent name), or NULL; 2 nothing
 * holds it yet it is set, what a killed add or delete left: its bits that no held key
 * counts are cleared at commit.
 */
int bb_live_del(struct bb_live *l, const struct bb_entry *e, const struct bb_index_rec **holder);
/*
 * Apply what is staged, in crash-safe order, and write index and shadow. -ENOSPC:
 * the adds would take a check's rate (fp_check, each) over max_fp; nothing changed.
 */
int bb_live_commit(struct bb_live *l, const char *index_path, const char *shadow_path,
		   double max_fp, double fp_check[BB_CHECK_MAX]);

/* Key encodings of names and URLs: kind tag then text. Returns the key length. */
__u32 bb_key_text(__u8 *key, enum bb_key_kind kind, const char *text, size_t len);

#endif /* BB_FILTER_H */

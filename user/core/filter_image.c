/* SPDX-License-Identifier: GPL-2.0 */
/* Queries on a filter image (a mapped live map): the kernel's own lookups, for check and the tests. */
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

/* ---- queries on a map image: the BPF program's logic, for `check` and tests ---- */

static const struct bb_header *image_header(const struct bb_block *image)
{
	const struct bb_header *hdr = (const void *)&image[BB_HEADER_INDEX];

	if (hdr->magic != BB_MAGIC || hdr->abi_version != BB_ABI_VERSION || !hdr->nblocks ||
	    !bb_k_valid(hdr->k))
		return NULL;
	return hdr;
}

/*
 * Attribution (bb_image_attribute()): while it runs, a key hits only when its bits are
 * set and the index holds it, and the short tables' bits count only for a prefix the
 * index holds; of the first key found, its first listing is kept. One query at a time
 * a thread: the daemon attributes the hit events on one thread (events_hub.c) while it
 * confirms hits on another (confirm.c).
 */
static __thread struct {
	const struct bb_index_view *index;
	const struct bb_index_rec *found;
} attr;

/* A key the index holds: its first listing (the lowest list, then line) is kept. */
static int index_hit(__u64 h)
{
	const struct bb_index_rec *r, *best;
	size_t first, n;

	n = bb_index_find(attr.index, h, &first);
	if (!n)
		return 0;
	if (attr.found)
		return 1;
	best = r = &attr.index->recs[first];
	for (; n--; r++)
		if (r->src < best->src || (r->src == best->src && r->line < best->line))
			best = r;
	attr.found = best;
	return 1;
}

static int image_test_hash(const struct bb_block *image, const struct bb_header *hdr, __u64 h)
{
	if (!bb_block_test(&image[BB_FIRST_BLOCK + bb_block_of(h, hdr->nblocks)], h, hdr->k))
		return 0;
	return !attr.index || index_hit(h);
}

/* Attribution of a short table's hit: the listed prefix of addr at /16 or shorter. */
static int short_listed(const __u8 *addr_in, bool v4, int max_plen, __u64 seed)
{
	struct bb_entry e = { .kind = v4 ? BB_ENTRY_IP4 : BB_ENTRY_IP6 };
	int p;

	memcpy(e.addr, addr_in, v4 ? 4 : 16);
	for (p = max_plen < BB_SHORT_PLEN ? max_plen : BB_SHORT_PLEN; p >= 0; p--) {
		e.plen = (__u8)p;
		if (index_hit(bb_prefix_hash(&e, seed)))
			return 1;
	}
	return 0;
}

void bb_filter_from_image(struct bb_filter *f, const struct bb_block *image)
{
	const struct bb_header *hdr = (const void *)&image[BB_HEADER_INDEX];
	unsigned int probes[BB_CHECK_MAX];

	memset(f, 0, sizeof(*f));
	f->hdr = *hdr;
	memcpy(&f->config, &image[BB_CONFIG_INDEX], sizeof(f->config));
	if (hdr->allow_blocks)
		memcpy(&f->allow_hdr, &image[bb_allow_index(hdr->nblocks)], sizeof(f->allow_hdr));
	memcpy(f->v4.plens, hdr->v4_plens, BB_MAX_PLENS);
	memcpy(f->v6.plens, hdr->v6_plens, BB_MAX_PLENS);
	f->v4.n_plens = hdr->n_v4_plens;
	f->v6.n_plens = hdr->n_v6_plens;
	bb_check_probes(hdr->flags, hdr->n_v4_plens, hdr->n_v6_plens, probes);
	/* the plan's figures from what the header says; the rate asked is not known here */
	f->plan.n = hdr->items;
	f->plan.k = hdr->k;
	f->plan.nblocks = hdr->nblocks;
	f->plan.bits = (__u64)hdr->nblocks * BB_BLOCK_BITS;
	f->plan.fpr = bb_blocked_fpr((double)hdr->items, hdr->nblocks, hdr->k);
	f->plan.bits_per_key = hdr->items ? (double)f->plan.bits / hdr->items : 0;
	f->plan.map_bytes = bb_filter_elements(hdr->nblocks, hdr->allow_blocks) * BB_BLOCK_BYTES;
	for (unsigned int c = 0; c < BB_CHECK_MAX; c++) {
		f->plan.check_probes[c] = probes[c];
		f->plan.check_fpr[c] = probes[c] ? bb_check_fpr(f->plan.fpr, probes[c]) : 0;
	}
}

double bb_image_key_fpr(const struct bb_block *image)
{
	const struct bb_header *hdr = image_header(image);
	double pw[65], sum = 0;
	unsigned int s, w;
	__u32 b;

	if (!hdr)
		return 0;
	/* a key sets k / 8 bits in each word: it finds them set with (bits set / 64)^that */
	for (s = 0; s <= 64; s++)
		pw[s] = pow(s / 64.0, hdr->k / BB_WORDS);
	for (b = 0; b < hdr->nblocks; b++) {
		const struct bb_block *blk = &image[BB_FIRST_BLOCK + b];
		double p = 1;

		for (w = 0; w < BB_WORDS && p > 0; w++)
			p *= pw[__builtin_popcountll(blk->words[w])];
		sum += p;
	}
	return sum / hdr->nblocks;
}

__u64 bb_image_bits_set(const struct bb_block *image)
{
	const struct bb_header *hdr = image_header(image);
	__u64 n = 0;
	unsigned int w;
	__u32 b;

	for (b = 0; hdr && b < hdr->nblocks; b++)
		for (w = 0; w < BB_WORDS; w++)
			n += (__u64)__builtin_popcountll(image[BB_FIRST_BLOCK + b].words[w]);
	return n;
}

int bb_image_match_key(const struct bb_block *image, const void *key, __u32 len)
{
	const struct bb_header *hdr = image_header(image);

	return hdr && image_test_hash(image, hdr, bb_key_hash(key, len, hdr->seed));
}

/*
 * Is addr listed at a prefix length no longer than max_plen (a prefix shorter than an
 * address: what covers all of addr/max_plen)? The kernel asks whole addresses only, by
 * bb_match_ip4/6() below; this is the part of a prefix query it has no twin of.
 */
static int match_within(const struct bb_block *image, const __u8 *addr, bool v4, int max_plen)
{
	const struct bb_header *hdr = image_header(image);
	const __u8 *plens;
	unsigned int n, i;

	if (!hdr)
		return 0;
	/* the /16 bit covers addr/max_plen only when max_plen >= 16 */
	if (hdr->flags & (v4 ? BB_HDR_F_V4_SHORT : BB_HDR_F_V6_SHORT) && max_plen >= BB_SHORT_PLEN &&
	    bb_short_test(&image[bb_short_index(v4, bb_short_prefix(addr))], bb_short_prefix(addr)) &&
	    (!attr.index || short_listed(addr, v4, max_plen, hdr->seed)))
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

/* Prefix addr/plen, plen <= 16: every one of its /16 bits is set in the short table. */
static int short_covers(const struct bb_block *image, const struct bb_header *hdr,
			const __u8 *addr, bool v4, unsigned int plen)
{
	__u32 mask = plen ? 0xffffU << (BB_SHORT_PLEN - plen) : 0;
	__u32 first = bb_short_prefix(addr) & mask, n = 1U << (BB_SHORT_PLEN - plen), i;

	if (!(hdr->flags & (v4 ? BB_HDR_F_V4_SHORT : BB_HDR_F_V6_SHORT)))
		return 0;
	if (attr.index)
		return short_listed(addr, v4, (int)plen, hdr->seed);
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
	if (plen >= width)
		return v4 ? bb_image_match_ip4(image, addr_in) : bb_image_match_ip6(image, addr_in);
	if (match_within(image, addr_in, v4, plen))
		return 1;
	plens = v4 ? hdr->v4_plens : hdr->v6_plens;
	for (i = 0; i < (v4 ? hdr->n_v4_plens : hdr->n_v6_plens); i++)
		if (plens[i] > plen && (!l || plens[i] < l))
			l = plens[i];
	if (!l || l - plen > 16)
		return 0;
	memcpy(addr, addr_in, bytes);
	count = 1ULL << (l - plen);
	for (j = 0; j < count; j++) {
		if (!match_within(image, addr, v4, l))
			return 0;
		if (j + 1 < count)
			addr_step(addr, bytes, l);
	}
	return 1;
}

/*
 * The packet path's own lookups (include/bb_match.h) over an image: check asks the
 * code the kernel runs, not a copy of it.
 */
struct image_match {
	const struct bb_block *image;
	const struct bb_header *hdr;
	__u8 *key;		/* BB_KEYBUF_BYTES, zeroed */
	__u64 *states;		/* BB_NAME_STATES */
	const struct bb_allow_header *ah;	/* asking the allowlist; NULL: the filter */
};

#define BB_MATCH_CTX		struct image_match
#define BB_MATCH_HDR(c)		((c)->hdr)
#define BB_MATCH_KEY(c)		((c)->key)
#define BB_MATCH_STATES(c)	((c)->states)
#define BB_MATCH_KINDS(c)	((c)->ah ? (c)->ah->flags : (c)->hdr->flags)

/* The allowlist's header in an image, if it has one. */
static const struct bb_allow_header *image_allow(const struct bb_block *image,
						 const struct bb_header *hdr)
{
	return hdr && hdr->allow_blocks ?
	       (const void *)&image[bb_allow_index(hdr->nblocks)] : NULL;
}

static __always_inline int bb_match_lookup(const struct image_match *c, __u64 h)
{
	if (c->ah)
		return bb_allow_test(&c->image[bb_allow_index(c->hdr->nblocks) + 1],
				     c->hdr->allow_blocks, h);
	return image_test_hash(c->image, c->hdr, h);
}

static __always_inline int bb_match_short(const struct image_match *c, int v4, const __u8 *addr)
{
	__u32 prefix16 = bb_short_prefix(addr);

	return bb_short_test(&c->image[bb_short_index(v4, prefix16)], prefix16) &&
	       (!attr.index || short_listed(addr, v4, BB_SHORT_PLEN, c->hdr->seed));
}

#include "bb_match.h"

/* A whole address as the kernel matches it: bb_match_ip4/6(), over the image. */
int bb_image_match_ip4(const struct bb_block *image, const __u8 addr[4])
{
	struct image_match m = { image, image_header(image), NULL, NULL, NULL };

	return m.hdr && bb_match_ip4(&m, addr);
}

int bb_image_match_ip6(const struct bb_block *image, const __u8 addr[16])
{
	struct image_match m = { image, image_header(image), NULL, NULL, NULL };

	return m.hdr && bb_match_ip6(&m, addr);
}

/* A name as a packet's parser leaves it in the key buffer (lowercase, dots recorded). */
static int name_into_key(__u8 *key, const char *name, size_t len, __u32 *out)
{
	__u32 n = (__u32)len;

	memset(key, 0, BB_KEYBUF_BYTES);
	if (len > BB_NAME_MAX)
		return -1;
	memcpy(key + 1, name, len);
	if (bb_name_finish(key, &n) != BB_NAME_FOUND)
		return -1;
	*out = n;
	return 0;
}

/*
 * A name as the kernel matches it in a DNS query, a ClientHello's SNI or an HTTP
 * Host. With subdomains_only ("*.name" in a list), a subdomain of it: "*.name",
 * which the kernel matches as any subdomain, through name's parent key.
 */
static int match_name(const struct bb_block *image, const char *name, bool subdomains_only,
		      bool allow)
{
	__u8 key[BB_KEYBUF_BYTES];
	__u64 states[BB_NAME_STATES];
	struct image_match m = { image, image_header(image), key, states, NULL };
	char sub[BB_NAME_MAX + 3];
	__u32 len;

	if (!m.hdr || (allow && !(m.ah = image_allow(image, m.hdr))))
		return 0;
	if (subdomains_only) {
		snprintf(sub, sizeof(sub), "*.%s", name);
		name = sub;
	}
	if (name_into_key(key, name, strlen(name), &len))
		return 0;
	return bb_match_name(&m, len);
}

/*
 * A URL "host/path" as the kernel matches a cleartext HTTP request for it: its Host
 * as a name, then (the URL program) host suffixes times path prefixes. The path is
 * cut where a key ends, as bb_http_request() cuts it.
 */
static int match_url(const struct bb_block *image, const char *url, bool allow)
{
	__u8 key[BB_KEYBUF_BYTES];
	__u64 states[BB_NAME_STATES];
	struct image_match m = { image, image_header(image), key, states, NULL };
	size_t hlen = strcspn(url, "/"), plen = strlen(url + hlen);
	__u32 n;
	int full = 1;

	if (!m.hdr || (allow && !(m.ah = image_allow(image, m.hdr))))
		return 0;
	if (!url[hlen])
		return match_name(image, url, false, allow);
	if (1 + hlen + plen > BB_KEY_MAX) {
		plen = hlen < BB_KEY_MAX - 1 ? BB_KEY_MAX - 1 - hlen : 0;
		full = 0;
	}
	if (name_into_key(key, url, hlen, &n) || n != hlen)
		return 0;
	memcpy(key + 1 + hlen, url + hlen, plen);
	if (bb_match_name(&m, n))
		return 1;
	return bb_match_url(&m, n, (__u32)plen, full);
}

int bb_image_match_entry(const struct bb_block *image, const struct bb_entry *entry)
{
	switch (entry->kind) {
	case BB_ENTRY_IP4:
		return match_prefix(image, entry->addr, true, entry->plen);
	case BB_ENTRY_IP6:
		return match_prefix(image, entry->addr, false, entry->plen);
	case BB_ENTRY_NAME:
		return match_name(image, entry->text, entry->flags & BB_ENTRY_F_SUBDOMAINS_ONLY,
				  false);
	case BB_ENTRY_URL:
		return match_url(image, entry->text, false);
	default:
		return 0;
	}
}

int bb_image_attribute(const struct bb_block *image, const struct bb_index_view *index,
		       const struct bb_entry *entry, const struct bb_index_rec **rec)
{
	int hit;

	attr.index = index;
	attr.found = NULL;
	hit = bb_image_match_entry(image, entry);
	*rec = hit ? attr.found : NULL;
	attr.index = NULL;
	attr.found = NULL;
	return hit && *rec;
}

/*
 * An address or prefix addr/plen is allowed when an allowed prefix covers it: one
 * of the allowlist's lengths, no longer than plen, holds addr at that length. A
 * whole address asks what the kernel asks (bb_allow_ip4/6()).
 */
static int allow_prefix(const struct bb_block *image, const __u8 *addr, bool v4,
			unsigned int plen)
{
	const struct bb_header *hdr = image_header(image);
	struct image_match m = { image, hdr, NULL, NULL, image_allow(image, hdr) };
	const __u8 *plens;
	unsigned int n, i;

	if (!m.ah || !m.ah->items)
		return 0;
	if (plen == (v4 ? 32U : 128U))
		return v4 ? bb_allow_ip4(&m, m.ah, addr) : bb_allow_ip6(&m, m.ah, addr);
	plens = v4 ? m.ah->v4_plens : m.ah->v6_plens;
	n = v4 ? m.ah->n_v4_plens : m.ah->n_v6_plens;
	for (i = 0; i < n && i < BB_ALLOW_MAX_PLENS; i++) {
		__u64 h;

		if (plens[i] > plen)
			continue;
		if (v4) {
			struct bb_key_ip4 key;

			bb_key_ip4_make(&key, addr, plens[i]);
			h = bb_hash_ip4(&key, hdr->seed);
		} else {
			struct bb_key_ip6 key;

			bb_key_ip6_make(&key, addr, plens[i]);
			h = bb_hash_ip6(&key, hdr->seed);
		}
		if (bb_match_lookup(&m, h))
			return 1;
	}
	return 0;
}

int bb_image_match_name_key(const struct bb_block *image, const __u8 *keybuf, __u32 len,
			    int *allowed)
{
	__u8 key[BB_KEYBUF_BYTES];
	__u64 states[BB_NAME_STATES];
	struct image_match m = { image, image_header(image), key, states, NULL };
	int hit;

	*allowed = 0;
	if (!m.hdr)
		return 0;
	memcpy(key, keybuf, sizeof(key));
	hit = bb_match_name(&m, len);
	/* then the allowlist, as bb_allow_pass() asks it: when it holds names */
	m.ah = image_allow(image, m.hdr);
	if (hit && m.ah && m.ah->items && (m.ah->flags & BB_HDR_F_NAMES)) {
		memcpy(key, keybuf, sizeof(key));
		*allowed = bb_match_name(&m, len);
	}
	return hit;
}

int bb_image_match_url_key(const struct bb_block *image, const __u8 *keybuf, __u32 hlen,
			   __u32 plen, int full, int *allowed)
{
	__u8 key[BB_KEYBUF_BYTES];
	__u64 states[BB_NAME_STATES];
	struct image_match m = { image, image_header(image), key, states, NULL };
	int hit;

	*allowed = 0;
	if (!m.hdr)
		return 0;
	memcpy(key, keybuf, sizeof(key));
	hit = bb_match_url(&m, hlen, plen, full);
	/* then the allowlist, as the URL program asks it: the host, or the URL */
	m.ah = image_allow(image, m.hdr);
	if (hit && m.ah && m.ah->items && (m.ah->flags & (BB_HDR_F_URLS | BB_HDR_F_NAMES))) {
		memcpy(key, keybuf, sizeof(key));
		*allowed = bb_match_name(&m, hlen) || bb_match_url(&m, hlen, plen, full);
	}
	return hit;
}

int bb_image_allowed(const struct bb_block *image, const struct bb_entry *entry)
{
	const struct bb_header *hdr = image_header(image);
	const struct bb_allow_header *ah = image_allow(image, hdr);

	if (!ah || !ah->items)
		return 0;
	switch (entry->kind) {
	case BB_ENTRY_IP4:
		return allow_prefix(image, entry->addr, true, entry->plen);
	case BB_ENTRY_IP6:
		return allow_prefix(image, entry->addr, false, entry->plen);
	case BB_ENTRY_NAME:
		return match_name(image, entry->text, entry->flags & BB_ENTRY_F_SUBDOMAINS_ONLY,
				  true);
	case BB_ENTRY_URL:
		return match_url(image, entry->text, true);
	default:
		return 0;
	}
}

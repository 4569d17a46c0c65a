/* SPDX-License-Identifier: GPL-2.0 */
/* The list's storage: entries, their texts in an arena, the de-duplication set; counting. */
#include <errno.h>
#include <stdlib.h>

#include <xxhash.h>

#include "list_int.h"

#define ARENA_CHUNK	(1U << 20)
#define SET_MIN_SLOTS	64

/*
 * Entry texts live in chunks that never move: entries point into them, so a
 * growing realloc'd buffer would leave those pointers dangling.
 */
struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	char data[];
};

/*
 * The de-duplication set: open addressing, linear probing. A slot holds the top
 * 32 bits of the entry's hash and its index + 1 (0 is an empty slot), so a probe
 * rarely touches an entry and growing never rehashes text. The set is cut into
 * shards by the hash's top bits, each growing on its own, so that parse threads
 * can de-duplicate a file's entries in parallel, one thread per shard, and each
 * shard still sees its entries in file order (list_file.c).
 */

/* XXH3 (libxxhash): a few ns for an address or a name. */
uint64_t entry_hash(const struct bb_entry *e, size_t tlen)
{
	uint64_t meta = (uint64_t)e->kind | (uint64_t)e->plen << 8 | (uint64_t)e->flags << 16;

	if (e->text)
		return XXH3_64bits_withSeed(e->text, tlen, meta);
	return XXH3_64bits_withSeed(e->addr, sizeof(e->addr), meta);
}

static bool entry_equal(const struct bb_entry *a, const struct bb_entry *b)
{
	if (a->kind != b->kind || a->plen != b->plen || a->flags != b->flags)
		return false;
	if (a->text || b->text)
		return a->text && b->text && !strcmp(a->text, b->text);
	return !memcmp(a->addr, b->addr, sizeof(a->addr));
}

int shard_grow_to(struct set_shard *s, size_t want)
{
	size_t n = s->nslots ? s->nslots * 2 : SET_MIN_SLOTS, i, j;
	uint64_t *slots;

	while (want * 10 > n * 7)
		n *= 2;
	slots = malloc(n * sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	/*
	 * Written, not calloc'd: a calloc'd page is first mapped to the zero page by a
	 * probe's read, and its first write then costs a copy-on-write fault and a TLB
	 * flush on every CPU the process runs on. explicit_bzero(), because the compiler
	 * turns malloc() + memset() back into calloc().
	 */
	explicit_bzero(slots, n * sizeof(*slots));
	for (i = 0; i < s->nslots; i++) {
		uint64_t v = s->slots[i];

		if (!v)
			continue;
		for (j = (v >> 32) & (n - 1); slots[j]; j = (j + 1) & (n - 1))
			;
		slots[j] = v;
	}
	free(s->slots);
	s->slots = slots;
	s->nslots = n;
	return 0;
}

static struct set_shard *shard_of(struct list_priv *p, uint64_t h)
{
	return &(p->part ? p->part_slots : p->shards)[h >> (64 - SET_SHARD_BITS)];
}

int shard_insert(struct set_shard *s, const struct bb_entry *entries, uint64_t h,
		 const struct bb_entry *e, size_t idx)
{
	uint64_t tag = h >> 32;
	size_t j;

	if ((s->used + 1) * 10 > s->nslots * 7 && shard_grow_to(s, s->used + 1))
		return -ENOMEM;
	for (j = tag & (s->nslots - 1); s->slots[j]; j = (j + 1) & (s->nslots - 1)) {
		if ((s->slots[j] >> 32) == tag &&
		    entry_equal(&entries[(s->slots[j] & 0xffffffffU) - 1], e))
			return 0;
	}
	s->slots[j] = (tag << 32) | (uint64_t)(idx + 1);
	s->used++;
	return 1;
}

static char *arena_copy(struct list_priv *p, const char *s, size_t len)
{
	struct arena_chunk *c = p->arena;
	char *dst;

	if (!c || c->size - c->used < len + 1) {
		/* Small lists stay small: chunks double from 64 KiB up to ARENA_CHUNK. */
		size_t size = c ? c->size * 2 : ARENA_CHUNK / 16;

		if (size > ARENA_CHUNK)
			size = ARENA_CHUNK;
		if (size < len + 1)
			size = len + 1;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->next = p->arena;
		c->used = 0;
		c->size = size;
		p->arena = c;
	}
	dst = c->data + c->used;
	memcpy(dst, s, len);
	dst[len] = '\0';
	c->used += len + 1;
	return dst;
}

void arena_adopt(struct list_priv *to, struct list_priv *from)
{
	struct arena_chunk *c;

	while ((c = from->arena)) {
		from->arena = c->next;
		c->next = to->arena;
		to->arena = c;
	}
}

struct list_priv *list_priv(struct bb_list *list)
{
	if (!list->priv)
		list->priv = calloc(1, sizeof(struct list_priv));
	return list->priv;
}

int list_reserve(struct bb_list *list, size_t more)
{
	struct bb_entry *ne;
	size_t cap = list->cap ? list->cap : 1024;

	if (list->n + more <= list->cap)
		return 0;
	if (list->n + more > 0xfffffffeU)
		return -ENOMEM;
	while (cap < list->n + more)
		cap *= 2;
	ne = realloc(list->entries, cap * sizeof(*ne));
	if (!ne)
		return -ENOMEM;
	list->entries = ne;
	list->cap = cap;
	return 0;
}

/*
 * Append e unless an equal entry is there. 1: added, 0: duplicate, -ENOMEM.
 * A parse thread's part list appends everything with its hash: the file's owner
 * de-duplicates all parts at once, in file order (list_file.c).
 */
static int list_add(struct bb_list *list, const struct bb_entry *e)
{
	struct list_priv *p = list_priv(list);
	size_t tlen = e->text ? strlen(e->text) : 0;
	struct bb_entry *ne;
	uint64_t h;
	int err;

	if (!p || list_reserve(list, 1))
		return -ENOMEM;
	h = entry_hash(e, tlen);
	ne = &list->entries[list->n];
	*ne = *e;
	if (e->text) {
		/* a duplicate's copy stays unused in the arena: duplicates are rare */
		ne->text = arena_copy(p, e->text, tlen);
		if (!ne->text)
			return -ENOMEM;
	}
	if (p->part) {
		struct set_shard *s = shard_of(p, h);

		if (s->used == s->nslots) {
			size_t cap = s->nslots ? 2 * s->nslots : 256;
			uint64_t *v = realloc(s->slots, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			s->slots = v;
			s->nslots = cap;
		}
		s->slots[s->used++] = (h & ~0xffffffffULL) | (list->n + 1);
	} else {
		err = shard_insert(shard_of(p, h), list->entries, h, ne, list->n);
		if (err <= 0)
			return err;
	}
	list->n++;
	return 1;
}

void bb_list_init(struct bb_list *list)
{
	/* The set and arena come with the first entry: init cannot fail. */
	memset(list, 0, sizeof(*list));
}

void list_priv_free(struct list_priv *p)
{
	size_t i;

	while (p->arena) {
		struct arena_chunk *next = p->arena->next;

		free(p->arena);
		p->arena = next;
	}
	for (i = 0; i < SET_SHARDS; i++) {
		free(p->shards[i].slots);
		free(p->part_slots[i].slots);
	}
	fmt_seq_free(p->seq);
	free(p);
}

void bb_list_free(struct bb_list *list)
{
	if (list->priv)
		list_priv_free(list->priv);
	free(list->entries);
	memset(list, 0, sizeof(*list));
}

/* The host of a URL entry as an entry of its own: a name, or an address. */
static int url_host(const struct bb_entry *url, struct bb_entry *host, char *text)
{
	size_t hlen = strcspn(url->text, "/");

	memset(host, 0, sizeof(*host));
	if (url->text[0] == '[')
		return parse_addr(url->text + 1, hlen - 2, host, false, NULL);
	if (looks_ipv4(url->text, hlen))
		return parse_addr(url->text, hlen, host, false, NULL);
	memcpy(text, url->text, hlen);
	text[hlen] = '\0';
	host->kind = BB_ENTRY_NAME;
	host->text = text;
	return 0;
}

static void note_first(struct bb_list *list, enum bb_line_class class)
{
	struct list_priv *p = list->priv;

	if (!p || !p->line || p->first[class].line)
		return;
	p->first[class].line = list->counts.lines;
	bb_escape_text(p->line, p->line_len, p->first[class].text, sizeof(p->first[class].text));
}

/* ---- the guard: prefixes too wide to load, and what a block entry covers ---- */

/* IPv4 space that is not global unicast (RFC 6890), as [first, first + 2^(32 - plen)). */
static const struct { __u32 first; __u8 plen; } v4_reserved[] = {
	{ 0x00000000, 8 },	/* 0.0.0.0/8 */
	{ 0x0a000000, 8 },	/* 10.0.0.0/8 */
	{ 0x64400000, 10 },	/* 100.64.0.0/10 */
	{ 0x7f000000, 8 },	/* 127.0.0.0/8 */
	{ 0xa9fe0000, 16 },	/* 169.254.0.0/16 */
	{ 0xac100000, 12 },	/* 172.16.0.0/12 */
	{ 0xc0000000, 24 },	/* 192.0.0.0/24 */
	{ 0xc0000200, 24 },	/* 192.0.2.0/24 */
	{ 0xc0586300, 24 },	/* 192.88.99.0/24 */
	{ 0xc0a80000, 16 },	/* 192.168.0.0/16 */
	{ 0xc6120000, 15 },	/* 198.18.0.0/15 */
	{ 0xc6336400, 24 },	/* 198.51.100.0/24 */
	{ 0xcb007100, 24 },	/* 203.0.113.0/24 */
	{ 0xe0000000, 4 },	/* 224.0.0.0/4 */
	{ 0xf0000000, 4 },	/* 240.0.0.0/4 */
};

/* Addresses of a /plen starting at first that are global unicast. */
static __u64 v4_global(__u32 first, unsigned int plen)
{
	__u64 lo = first, hi = lo + (1ULL << (32 - plen)), n = hi - lo;
	size_t i;

	for (i = 0; i < sizeof(v4_reserved) / sizeof(v4_reserved[0]); i++) {
		__u64 rlo = v4_reserved[i].first, rhi = rlo + (1ULL << (32 - v4_reserved[i].plen));
		__u64 a = lo > rlo ? lo : rlo, b = hi < rhi ? hi : rhi;

		if (a < b)
			n -= b - a;	/* the reserved ranges are disjoint */
	}
	return n;
}

bool bb_entry_wide(const struct bb_entry *e)
{
	return (e->kind == BB_ENTRY_IP4 || e->kind == BB_ENTRY_IP6) && e->plen < 8;
}

bool bb_entry_too_wide(const struct bb_entry *e)
{
	unsigned int m;

	if (e->kind == BB_ENTRY_IP4)
		return e->plen < 8 &&
		       v4_global((__u32)e->addr[0] << 24 | (__u32)e->addr[1] << 16 |
				 (__u32)e->addr[2] << 8 | e->addr[3], e->plen) > 1ULL << 24;
	/* IPv6: a /8 is 2^120 addresses; anything shorter that reaches into 2000::/3
	 * covers at least 2^121 of it */
	m = e->plen < 3 ? (0xffU << (8 - e->plen)) & 0xff : 0xe0;
	return e->kind == BB_ENTRY_IP6 && e->plen < 8 && !((e->addr[0] ^ 0x20) & m);
}

bool bb_entry_overlaps(const struct bb_entry *a, const struct bb_entry *b)
{
	unsigned int bits = a->plen < b->plen ? a->plen : b->plen, i;

	if (a->kind != b->kind || (a->kind != BB_ENTRY_IP4 && a->kind != BB_ENTRY_IP6))
		return false;
	for (i = 0; i < bits / 8; i++)
		if (a->addr[i] != b->addr[i])
			return false;
	return bits % 8 == 0 ||
	       !((a->addr[i] ^ b->addr[i]) & (__u8)(0xff << (8 - bits % 8)));
}

/* A block entry: refused when too wide, noted when it covers what load watches. */
static int guard_check(struct bb_list *list, struct list_priv *p, const struct bb_entry *e)
{
	const char *unused;
	unsigned int i;

	if (!p->conf || (e->kind != BB_ENTRY_IP4 && e->kind != BB_ENTRY_IP6))
		return 0;
	if (p->conf->refuse_wide && bb_entry_too_wide(e))
		return count_reject(list, reject(BB_REJECT_TOO_WIDE, p->why ? p->why : &unused,
						 "covers more global unicast space than a /8: it "
						 "would cut this host off (load --allow-wide)"));
	if (bb_entry_wide(e))
		list->counts.wide_reserved++;
	if (e->plen >= 8 && !(p->conf->watch_first[e->kind == BB_ENTRY_IP6][e->addr[0] / 64] &
			      1ULL << (e->addr[0] % 64)))
		return 0;	/* no watched address starts with its first byte */
	for (i = 0; i < p->conf->n_watch && p->line; i++) {
		if (p->watched[i].line || !bb_entry_overlaps(e, &p->conf->watch[i]))
			continue;
		p->watched[i].line = list->counts.lines;
		bb_escape_text(p->line, p->line_len, p->watched[i].text,
			       sizeof(p->watched[i].text));
	}
	return 0;
}

int add_counted(struct bb_list *list, const struct bb_entry *e)
{
	struct list_priv *p = list->priv;
	char host_text[BB_NAME_MAX + 1];
	struct bb_entry host, allowed, placed;
	size_t *counted;
	int err;

	if (e->kind == BB_ENTRY_URL && p && p->conf && p->conf->urls_as_hosts &&
	    !url_host(e, &host, host_text)) {
		list->counts.widened++;
		e = &host;
	}
	if (p && ((p->conf && p->conf->allow) || p->allow_line) &&
	    !(e->flags & BB_ENTRY_F_ALLOW)) {
		/* an --allow list's entries, or a line the list marks as an exception */
		allowed = *e;
		allowed.flags |= BB_ENTRY_F_ALLOW;
		e = &allowed;
	}
	if (p && !(e->flags & BB_ENTRY_F_ALLOW)) {
		err = guard_check(list, p, e);
		if (err)
			return err;
	}
	/* where it came from: the list, and the line (a part's, until the parts merge) */
	placed = *e;
	placed.line = (__u32)list->counts.lines;
	placed.src = p && p->conf ? p->conf->source : 0;
	e = &placed;
	counted = e->flags & BB_ENTRY_F_ALLOW ? list->counts.allow : list->counts.accepted;
	if (p && p->sink) {
		/* a scan: no set, so every valid entry counts as accepted */
		p->sink->entry(p->sink->ctx, p->thread, e);
		counted[e->kind]++;
		return 1;
	}
	err = list_add(list, e);
	if (err < 0)
		return BB_LIST_NOMEM;
	if (err)
		counted[e->kind]++;
	else
		list->counts.duplicates++;
	return 1;
}

int count_reject(struct bb_list *list, int err)
{
	if (err < 0 && err >= -BB_REJECT_REASON_MAX) {
		list->counts.rejected[-err - 1]++;
		note_first(list, BB_CLASS_REJECTED);
	}
	return err;
}

int count_skip(struct bb_list *list, enum bb_skip_reason reason)
{
	list->counts.skipped[reason]++;
	note_first(list, BB_CLASS_SKIPPED);
	return 0;
}

int count_preamble(struct bb_list *list)
{
	list->counts.preamble++;
	note_first(list, BB_CLASS_PREAMBLE);
	return 0;
}

void counts_sub(struct bb_list_counts *d, const struct bb_list_counts *a,
		const struct bb_list_counts *b)
{
	size_t i;

	d->lines = a->lines - b->lines;
	for (i = 0; i < BB_ENTRY_KIND_MAX; i++) {
		d->accepted[i] = a->accepted[i] - b->accepted[i];
		d->allow[i] = a->allow[i] - b->allow[i];
	}
	d->duplicates = a->duplicates - b->duplicates;
	d->wide_reserved = a->wide_reserved - b->wide_reserved;
	d->blank = a->blank - b->blank;
	d->comments = a->comments - b->comments;
	d->preamble = a->preamble - b->preamble;
	for (i = 0; i < BB_REJECT_REASON_MAX; i++)
		d->rejected[i] = a->rejected[i] - b->rejected[i];
	for (i = 0; i < BB_SKIP_REASON_MAX; i++)
		d->skipped[i] = a->skipped[i] - b->skipped[i];
	d->ranges = a->ranges - b->ranges;
	d->widened = a->widened - b->widened;
}

void bb_list_counts_add(struct bb_list_counts *sum, const struct bb_list_counts *c)
{
	size_t i;

	sum->lines += c->lines;
	for (i = 0; i < BB_ENTRY_KIND_MAX; i++) {
		sum->accepted[i] += c->accepted[i];
		sum->allow[i] += c->allow[i];
	}
	sum->duplicates += c->duplicates;
	sum->wide_reserved += c->wide_reserved;
	sum->blank += c->blank;
	sum->comments += c->comments;
	sum->preamble += c->preamble;
	for (i = 0; i < BB_REJECT_REASON_MAX; i++)
		sum->rejected[i] += c->rejected[i];
	for (i = 0; i < BB_SKIP_REASON_MAX; i++)
		sum->skipped[i] += c->skipped[i];
	sum->ranges += c->ranges;
	sum->widened += c->widened;
}

size_t bb_list_rejected_total(const struct bb_list_counts *counts)
{
	size_t i, total = 0;

	for (i = 0; i < BB_REJECT_REASON_MAX; i++)
		total += counts->rejected[i];
	return total;
}

size_t bb_list_skipped_total(const struct bb_list_counts *counts)
{
	size_t i, total = 0;

	for (i = 0; i < BB_SKIP_REASON_MAX; i++)
		total += counts->skipped[i];
	return total;
}

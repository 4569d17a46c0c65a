// SPDX-License-Identifier: GPL-2.0
/*
 * Live add and delete (bloomblock add, del): what the filter holds is the key index
 * (exact, filter_index.c); how many held keys set each bit of its blocks is the
 * counting shadow, a 4-bit count a bit that saturates at 15 and then sticks. An add
 * sets its keys' bits and counts them; a delete takes its records out of the index,
 * and a key no record holds any more has its counts taken down, a bit cleared only
 * when its count reaches zero: a bit another held key sets is never cleared, so a
 * delete never unmatches another listed item. Deleting what the index does not hold
 * is refused: decrementing a non-member's counts is how a counting filter makes
 * false negatives.
 *
 * Order on disk and in the map, so that a crash anywhere costs false positives, never
 * a false negative: an add sets its bits, then writes the index, then the shadow; a
 * delete writes the index, then takes counts down and clears bits, then writes the
 * shadow. The shadow carries the index's change count: one that lags is rebuilt from
 * the index (which is the truth about keys) when next opened.
 *
 * What a crash leaves behind, a killed add's bits before its index or a killed
 * delete's after, is a key set in the map that no record holds: a false positive that
 * `del` clears. Its bits that no held key counts are cleared, and only those, so no
 * held key loses one (tests/e2e/test_faults_e2e.sh kills add and del at both points).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "outfile.h"
#include "filter.h"
#include "filter_int.h"
#include "bb_hash.h"

#define SHADOW_MAGIC	"BBSHADW1"
#define COUNT_MAX	15
#define COUNTS_PER_BLOCK	BB_BLOCK_BITS
#define BYTES_PER_BLOCK	(COUNTS_PER_BLOCK / 2)	/* two 4-bit counts a byte */

struct shadow_file_header {
	char magic[8];
	__u64 seed, generation;
	__u32 map_id, nblocks;
	__u32 k, pad;
	__u64 changes;		/* the index's: which state of it these counts are of */
	__u8 pad2[16];
};

_Static_assert(sizeof(struct shadow_file_header) == 64, "the shadow header is 64 bytes");

static struct bb_header *live_header(const struct bb_live *l)
{
	return (struct bb_header *)&l->image[BB_HEADER_INDEX];
}

static unsigned int count_get(const __u8 *c, size_t i)
{
	return i & 1 ? c[i / 2] >> 4 : c[i / 2] & 15;
}

static void count_set(__u8 *c, size_t i, unsigned int v)
{
	c[i / 2] = i & 1 ? (__u8)((c[i / 2] & 0x0f) | v << 4) : (__u8)((c[i / 2] & 0xf0) | v);
}

/* An address record of a prefix /16 or shorter: a short table's, not the blocks'. */
static bool rec_short(const struct bb_index_rec *r)
{
	return (r->kind == BB_KEY_IP4 || r->kind == BB_KEY_IP6) && r->form <= BB_SHORT_PLEN;
}

/* Count key h's bits up (+1) or down (-1); down, clear in the map those at zero. */
static void key_count(struct bb_live *l, __u64 h, int dir)
{
	const struct bb_header *hdr = live_header(l);
	__u32 b = bb_block_of(h, hdr->nblocks);
	struct bb_block *blk = &l->image[BB_FIRST_BLOCK + b];
	__u64 m[BB_WORDS];
	unsigned int w;

	bb_block_masks(h, hdr->k, m);
	for (w = 0; w < BB_WORDS; w++) {
		__u64 bits = m[w];

		while (bits) {
			unsigned int bit = (unsigned int)__builtin_ctzll(bits);
			size_t i = (size_t)b * COUNTS_PER_BLOCK + (size_t)w * 64 + bit;
			unsigned int c = count_get(l->counts, i);

			bits &= bits - 1;
			if (dir > 0) {
				if (c < COUNT_MAX)
					count_set(l->counts, i, c + 1);
				__atomic_fetch_or(&blk->words[w], 1ULL << bit, __ATOMIC_RELAXED);
			} else if (c && c < COUNT_MAX) {
				count_set(l->counts, i, c - 1);
				if (c == 1)
					__atomic_fetch_and(&blk->words[w], ~(1ULL << bit),
							   __ATOMIC_RELAXED);
			}
		}
	}
}

/* Whether key h is set in the map with a bit no held key counts: a crash's leftover. */
static bool key_leftover(const struct bb_live *l, __u64 h)
{
	const struct bb_header *hdr = live_header(l);
	__u32 b = bb_block_of(h, hdr->nblocks);
	const struct bb_block *blk = &l->image[BB_FIRST_BLOCK + b];
	__u64 m[BB_WORDS];
	bool uncounted = false;
	unsigned int w;

	bb_block_masks(h, hdr->k, m);
	for (w = 0; w < BB_WORDS; w++) {
		__u64 bits = m[w];

		if ((__atomic_load_n(&blk->words[w], __ATOMIC_RELAXED) & bits) != bits)
			return false;	/* not matched: nothing to clear */
		while (bits) {
			unsigned int bit = (unsigned int)__builtin_ctzll(bits);

			bits &= bits - 1;
			if (!count_get(l->counts, (size_t)b * COUNTS_PER_BLOCK + (size_t)w * 64 + bit))
				uncounted = true;
		}
	}
	return uncounted;
}

/* Clear key h's bits that no held key counts; the number cleared. */
static unsigned int key_clear_uncounted(struct bb_live *l, __u64 h)
{
	const struct bb_header *hdr = live_header(l);
	__u32 b = bb_block_of(h, hdr->nblocks);
	struct bb_block *blk = &l->image[BB_FIRST_BLOCK + b];
	unsigned int w, cleared = 0;
	__u64 m[BB_WORDS];

	bb_block_masks(h, hdr->k, m);
	for (w = 0; w < BB_WORDS; w++) {
		__u64 bits = m[w], clear = 0;

		while (bits) {
			unsigned int bit = (unsigned int)__builtin_ctzll(bits);

			bits &= bits - 1;
			if (!count_get(l->counts, (size_t)b * COUNTS_PER_BLOCK + (size_t)w * 64 + bit))
				clear |= 1ULL << bit;
		}
		if (clear) {
			__atomic_fetch_and(&blk->words[w], ~clear, __ATOMIC_RELAXED);
			cleared += (unsigned int)__builtin_popcountll(clear);
		}
	}
	return cleared;
}

/* Count up the bits of key h in counts (the shadow of block b): 8 or 16 of them. */
static inline void count_key(__u8 *counts, __u64 h, __u32 k)
{
	__u32 x = (__u32)h, bit[2 * BB_WORDS];
	unsigned int i;

	for (i = 0; i < k; i++) {
		size_t at;
		unsigned int c, shift;

		bit[i] = (i % BB_WORDS) * 64 + ((x * bb_salts[i]) >> 26);
		if (i >= BB_WORDS && bit[i] == bit[i - BB_WORDS])
			continue;	/* the same bit twice: a key counts once */
		at = bit[i] / 2;
		shift = (bit[i] & 1) * 4;
		c = counts[at] >> shift & 15;
		if (c < COUNT_MAX)
			counts[at] = (__u8)(counts[at] + (1U << shift));
	}
}

struct build_part {
	const struct bb_live *l;
	size_t lo, hi;		/* records; the blocks they touch are theirs alone */
};

static void *build_range(void *arg)
{
	const struct build_part *p = arg;
	const struct bb_live *l = p->l;
	const struct bb_header *hdr = live_header(l);
	size_t i;

	for (i = p->lo; i < p->hi; i++) {
		const struct bb_index_rec *r = &l->index.recs[i];

		if (rec_short(r) || (i && l->index.recs[i - 1].h == r->h))
			continue;
		count_key(l->counts + (size_t)bb_block_of(r->h, hdr->nblocks) * BYTES_PER_BLOCK,
			  r->h, hdr->k);
	}
	return NULL;
}

/*
 * The counts of every distinct held key's bits, from the index alone, on threads:
 * the records are sorted by hash and a block is a range of hashes, so each thread
 * takes a run of records whose blocks no other thread touches.
 */
static void shadow_build(struct bb_live *l)
{
	const struct bb_header *hdr = live_header(l);
	struct build_part parts[BB_BUILD_MAX_THREADS] = { { 0 } };
	pthread_t tid[BB_BUILD_MAX_THREADS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int t, n = cpus > 0 ? (unsigned int)cpus : 1;
	size_t at = 0;

	memset(l->counts, 0, l->counts_bytes);
	if (n > BB_BUILD_MAX_THREADS)
		n = BB_BUILD_MAX_THREADS;
	if (l->index.n < 4096)
		n = 1;
	for (t = 0; t < n; t++) {
		size_t hi = t + 1 == n ? l->index.n : l->index.n / n * (t + 1);

		if (hi < at)
			hi = at;
		/* end at a block boundary, so no two threads share a block */
		while (hi < l->index.n && hi > at &&
		       bb_block_of(l->index.recs[hi].h, hdr->nblocks) ==
		       bb_block_of(l->index.recs[hi - 1].h, hdr->nblocks))
			hi++;
		parts[t] = (struct build_part){ .l = l, .lo = at, .hi = hi };
		at = hi;
	}
	for (t = 1; t < n; t++)
		if (pthread_create(&tid[t], NULL, build_range, &parts[t]))
			build_range(&parts[t]), tid[t] = 0;
	build_range(&parts[0]);
	for (t = 1; t < n; t++)
		if (tid[t])
			pthread_join(tid[t], NULL);
	l->shadow_built = true;
}

/* The shadow file, when it is of this filter and of the index as it is: 0, else <0. */
static int shadow_read(struct bb_live *l, const char *path)
{
	const struct bb_header *hdr = live_header(l);
	struct shadow_file_header h;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	ssize_t got;

	if (fd < 0)
		return -errno;
	got = read(fd, &h, sizeof(h));
	if (got != (ssize_t)sizeof(h) || memcmp(h.magic, SHADOW_MAGIC, 8) ||
	    h.seed != l->meta.seed || h.generation != l->meta.generation ||
	    h.map_id != l->meta.map_id || h.nblocks != hdr->nblocks || h.k != hdr->k ||
	    h.changes != l->meta.changes)
		err = -ESTALE;
	if (!err) {
		size_t done = 0;

		while (done < l->counts_bytes) {
			got = read(fd, l->counts + done, l->counts_bytes - done);
			if (got <= 0) {
				err = -EBADMSG;
				break;
			}
			done += (size_t)got;
		}
	}
	close(fd);
	return err;
}

static int shadow_write(const struct bb_live *l, const char *path)
{
	const struct bb_header *hdr = live_header(l);
	struct shadow_file_header h = { .seed = l->meta.seed, .generation = l->meta.generation,
					.map_id = l->meta.map_id, .nblocks = hdr->nblocks,
					.k = hdr->k, .changes = l->meta.changes };
	char tmp[4096];
	FILE *f;
	int err = 0;

	memcpy(h.magic, SHADOW_MAGIC, 8);
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = bb_tmp_fopen(tmp, 0600);
	if (!f)
		return -errno;
	errno = 0;	/* a short write's own reason, said as it is */
	if (fwrite(&h, sizeof(h), 1, f) != 1 ||
	    fwrite(l->counts, 1, l->counts_bytes, f) != l->counts_bytes)
		err = errno ? -errno : -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return bb_tmp_commit(tmp, path, err);
}

int bb_live_open(struct bb_live *l, struct bb_block *image, const char *index_path,
		 const char *shadow_path)
{
	struct bb_index_view v;
	unsigned int i;
	int err;

	memset(l, 0, sizeof(*l));
	l->image = image;
	err = bb_index_open(index_path, &v);
	if (err)
		return err;
	if (!bb_index_describes(&v, image)) {
		bb_index_close(&v);
		return -ESTALE;
	}
	l->meta = v.meta;
	l->index.recs = malloc((v.n ? v.n : 1) * sizeof(*l->index.recs));
	for (i = 0; i < v.n_sources; i++)
		l->sources[i] = strdup(v.sources[i]);
	l->n_sources = v.n_sources;
	if (l->index.recs)
		memcpy(l->index.recs, v.recs, v.n * sizeof(*v.recs));
	l->index.n = l->index.cap = v.n;
	bb_index_close(&v);
	for (i = 0; i < l->n_sources; i++)
		if (!l->sources[i])
			err = -ENOMEM;
	bb_filter_from_image(&l->shape, image);
	l->counts_bytes = (size_t)live_header(l)->nblocks * BYTES_PER_BLOCK;
	l->counts = malloc(l->counts_bytes ? l->counts_bytes : 1);
	l->dead = calloc(l->index.n / 8 + 1, 1);
	if (err || !l->index.recs || !l->counts || !l->dead) {
		bb_live_close(l);
		return -ENOMEM;
	}
	if (shadow_read(l, shadow_path))
		shadow_build(l);
	return 0;
}

void bb_live_close(struct bb_live *l)
{
	unsigned int i;

	bb_index_free(&l->index);
	bb_index_free(&l->adds);
	bb_index_free(&l->leftovers);
	for (i = 0; i < l->n_sources; i++)
		free(l->sources[i]);
	free(l->counts);
	free(l->dead);
	free(l->short_dels);
	free(l->short_adds);
	memset(l, 0, sizeof(*l));
}

static bool is_dead(const struct bb_live *l, size_t i)
{
	return l->dead[i / 8] >> (i % 8) & 1;
}

/*
 * The records an entry makes under the live filter's plan, in out (form and kind
 * set; line 0). An address longer than /16 needs a probe length at least its own: the
 * shortest one within 8 bits of it, else (may_grow) a new length when the header has
 * room (noted in l->shape, written at commit), else the shortest longer one; none at
 * all is -ERANGE. More than 2^16 keys for one entry: -E2BIG.
 */
static int entry_records(struct bb_live *l, const struct bb_entry *e, struct bb_index *out,
			 bool may_grow)
{
	struct build_job job = { .filter = &l->shape, .seed = l->meta.seed, .index = out,
				 .index_only = true };

	if ((e->kind == BB_ENTRY_IP4 || e->kind == BB_ENTRY_IP6) && e->plen > BB_SHORT_PLEN) {
		struct bb_plen_plan *plan = e->kind == BB_ENTRY_IP4 ? &l->shape.v4 : &l->shape.v6;
		unsigned int len = plen_for(plan, e->plen);

		if ((!len || len - e->plen > 8) && may_grow && plan->n_plens < BB_MAX_PLENS) {
			/* appended: the kernel probes every length whatever their order */
			plan->plens[plan->n_plens++] = e->plen;
			l->plens_grown = true;
			len = e->plen;
		}
		if (!len)
			return -ERANGE;
		if (len - e->plen > 16)
			return -E2BIG;
	}
	add_entry(&job, e);
	return out->err;
}

/* Whether the index holds h in form (this run's deletes aside). */
static bool held(const struct bb_live *l, __u64 h, __u8 form)
{
	size_t first, n, i;

	n = bb_index_find_in(l->index.recs, l->index.n, h, &first);
	for (i = first; i < first + n; i++)
		if (l->index.recs[i].form == form && !is_dead(l, i))
			return true;
	return false;
}

static int recs_push(struct bb_index *x, const struct bb_index_rec *r)
{
	if (x->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 256;
		struct bb_index_rec *v = realloc(x->recs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		x->recs = v;
		x->cap = cap;
	}
	x->recs[x->n++] = *r;
	return 0;
}

static unsigned int live_source(struct bb_live *l)
{
	unsigned int i;

	for (i = 0; i < l->n_sources; i++)
		if (!strcmp(l->sources[i], BB_LIVE_SOURCE))
			return i;
	if (l->n_sources == BB_INDEX_MAX_SOURCES)
		return BB_INDEX_MAX_SOURCES - 1;
	l->sources[l->n_sources] = strdup(BB_LIVE_SOURCE);
	return l->sources[l->n_sources] ? l->n_sources++ : 0;
}

int bb_live_add(struct bb_live *l, const struct bb_entry *e)
{
	struct bb_index recs = { 0 };
	unsigned int src;
	size_t i, fresh = 0;
	int err;

	if (e->flags & BB_ENTRY_F_ALLOW)
		return -EINVAL;
	err = entry_records(l, e, &recs, true);
	if (err) {
		bb_index_free(&recs);
		return err;
	}
	src = live_source(l);
	for (i = 0; i < recs.n && !err; i++) {
		struct bb_index_rec r = recs.recs[i];

		if (held(l, r.h, r.form))
			continue;
		r.src = (__u8)src;
		r.line = 0;
		err = recs_push(&l->adds, &r);
		fresh++;
	}
	bb_index_free(&recs);
	if (err)
		return err;
	if (!fresh)
		return 0;
	l->meta.added++;
	if (e->kind == BB_ENTRY_NAME) {
		l->flags_new |= BB_HDR_F_NAMES;
	} else if (e->kind == BB_ENTRY_URL) {
		l->flags_new |= BB_HDR_F_URLS;
	} else if (e->plen <= BB_SHORT_PLEN) {
		struct bb_entry *d = realloc(l->short_adds, (l->n_short_adds + 1) * sizeof(*d));

		if (!d)
			return -ENOMEM;
		l->short_adds = d;
		d[l->n_short_adds++] = *e;
		l->flags_new |= e->kind == BB_ENTRY_IP4 ? BB_HDR_F_V4_SHORT : BB_HDR_F_V6_SHORT;
	}
	return 1;
}

int bb_live_del(struct bb_live *l, const struct bb_entry *e, const struct bb_index_rec **holder)
{
	struct bb_index recs = { 0 };
	size_t i, j, first, n;
	int err;

	*holder = NULL;
	if (e->flags & BB_ENTRY_F_ALLOW)
		return -EINVAL;
	err = entry_records(l, e, &recs, false);
	if (err == -ERANGE || err == -E2BIG)
		err = 0;	/* no such length probed: it cannot be held as such */
	if (err) {
		bb_index_free(&recs);
		return err;
	}
	/* every key of the entry held in the entry's own form, or nothing changes */
	for (i = 0; i < recs.n; i++)
		if (!held(l, recs.recs[i].h, recs.recs[i].form))
			break;
	if (!recs.n || i < recs.n) {
		/* what holds what it matches instead: a wider prefix, a parent name */
		struct bb_index_view v = { .recs = l->index.recs, .n = l->index.n,
					   .n_sources = l->n_sources };

		for (j = 0; j < l->n_sources; j++)
			v.sources[j] = l->sources[j];
		if (!bb_image_attribute(l->image, &v, e, holder))
			*holder = NULL;
		/* nothing holds it, yet it is set: what a killed add or delete left */
		for (i = 0, n = 0; !*holder && i < recs.n && !err; i++)
			if (!rec_short(&recs.recs[i]) && !held(l, recs.recs[i].h, recs.recs[i].form) &&
			    key_leftover(l, recs.recs[i].h)) {
				err = recs_push(&l->leftovers, &recs.recs[i]);
				n++;
			}
		bb_index_free(&recs);
		return err ?: n ? 2 : 0;
	}
	for (i = 0; i < recs.n; i++) {
		n = bb_index_find_in(l->index.recs, l->index.n, recs.recs[i].h, &first);
		for (j = first; j < first + n; j++)
			if (l->index.recs[j].form == recs.recs[i].form && !is_dead(l, j)) {
				l->dead[j / 8] |= (__u8)(1U << (j % 8));
				l->n_dead++;
			}
	}
	bb_index_free(&recs);
	if (e->plen <= BB_SHORT_PLEN && (e->kind == BB_ENTRY_IP4 || e->kind == BB_ENTRY_IP6)) {
		struct bb_entry *d = realloc(l->short_dels, (l->n_short_dels + 1) * sizeof(*d));

		if (!d)
			return -ENOMEM;
		l->short_dels = d;
		d[l->n_short_dels++] = *e;
	}
	l->meta.deleted++;
	return 1;
}

/* The blocked filter's per-key rate with each block's words as given: its mean. */
static double block_fp(const __u64 *words, const double *pw)
{
	double p = 1;
	unsigned int w;

	for (w = 0; w < BB_WORDS && p > 0; w++)
		p *= pw[__builtin_popcountll(words[w])];
	return p;
}

/* Whether recs[0..n), sorted by h, end with r's key in r's form among their last. */
static bool kept_already(const struct bb_index_rec *recs, size_t n, const struct bb_index_rec *r)
{
	while (n-- > 0 && recs[n].h == r->h)
		if (recs[n].form == r->form)
			return true;
	return false;
}

static int cmp_h(const void *a, const void *b)
{
	const struct bb_index_rec *x = a, *y = b;

	return x->h < y->h ? -1 : x->h > y->h;
}

/* The per-check rates the filter would have with this run's adds; the worst of them. */
static double fp_after_adds(struct bb_live *l, double fp_check[BB_CHECK_MAX])
{
	const struct bb_header *hdr = live_header(l);
	unsigned int probes[BB_CHECK_MAX], s, c;
	double pw[65], sum = 0, worst = 0, key_fp;
	size_t i, j;
	__u32 b;

	for (s = 0; s <= 64; s++)
		pw[s] = pow(s / 64.0, hdr->k / BB_WORDS);
	for (b = 0; b < hdr->nblocks; b++)
		sum += block_fp(l->image[BB_FIRST_BLOCK + b].words, pw);
	/* the adds by block: each block touched, before and after */
	for (i = 0; i < l->adds.n; i = j) {
		__u64 words[BB_WORDS], m[BB_WORDS];
		unsigned int w;

		b = bb_block_of(l->adds.recs[i].h, hdr->nblocks);
		memcpy(words, l->image[BB_FIRST_BLOCK + b].words, sizeof(words));
		for (j = i; j < l->adds.n && bb_block_of(l->adds.recs[j].h, hdr->nblocks) == b;
		     j++) {
			if (rec_short(&l->adds.recs[j]))
				continue;
			bb_block_masks(l->adds.recs[j].h, hdr->k, m);
			for (w = 0; w < BB_WORDS; w++)
				words[w] |= m[w];
		}
		sum += block_fp(words, pw) - block_fp(l->image[BB_FIRST_BLOCK + b].words, pw);
	}
	key_fp = hdr->nblocks ? sum / hdr->nblocks : 0;
	bb_check_probes(hdr->flags | l->flags_new, l->shape.v4.n_plens, l->shape.v6.n_plens,
			probes);
	for (c = 0; c < BB_CHECK_MAX; c++) {
		fp_check[c] = probes[c] ? bb_check_fpr(key_fp, probes[c]) : 0;
		if (fp_check[c] > worst)
			worst = fp_check[c];
	}
	return worst;
}

/* A short table's bit for /16 value v of a family: held by any prefix the index has. */
static bool short_covered(const struct bb_live *l, const __u8 *addr, bool v4)
{
	struct bb_entry e = { .kind = v4 ? BB_ENTRY_IP4 : BB_ENTRY_IP6 };
	int q;

	for (q = BB_SHORT_PLEN; q >= 0; q--) {
		size_t first, n;

		memset(e.addr, 0, sizeof(e.addr));
		memcpy(e.addr, addr, 2);
		if (q < 16) {
			__u32 x = bb_short_prefix(addr) & (q ? 0xffffU << (16 - q) : 0);

			e.addr[0] = (__u8)(x >> 8);
			e.addr[1] = (__u8)x;
		}
		e.plen = (__u8)q;
		n = bb_index_find_in(l->index.recs, l->index.n, bb_prefix_hash(&e, l->meta.seed),
				     &first);
		for (; n--; first++)
			if (l->index.recs[first].form == q)
				return true;
	}
	return false;
}

static void short_set(struct bb_live *l, const struct bb_entry *e, bool on)
{
	bool v4 = e->kind == BB_ENTRY_IP4;
	struct bb_block *table = &l->image[v4 ? BB_SHORT_V4_INDEX : BB_SHORT_V6_INDEX];
	__u32 mask = e->plen ? 0xffffU << (BB_SHORT_PLEN - e->plen) : 0;
	__u32 first = bb_short_prefix(e->addr) & mask, n = 1U << (BB_SHORT_PLEN - e->plen), i;

	for (i = first; i < first + n; i++) {
		__u64 *word = &table[i / BB_BLOCK_BITS].words[i % BB_BLOCK_BITS / 64];
		__u8 a[2] = { (__u8)(i >> 8), (__u8)i };

		if (on)
			__atomic_fetch_or(word, 1ULL << (i % 64), __ATOMIC_RELAXED);
		else if (!short_covered(l, a, v4))
			__atomic_fetch_and(word, ~(1ULL << (i % 64)), __ATOMIC_RELAXED);
	}
}

/*
 * The live header's probe lengths grown as the shape's: the new ones were appended,
 * so they are stored past the old, then the count; the kernel sees the old lengths
 * or all of them, never fewer.
 */
static void plens_write(__u8 *live, __u8 *n_live, const struct bb_plen_plan *plan)
{
	unsigned int i;

	for (i = *n_live; i < plan->n_plens; i++)
		__atomic_store_n(&live[i], plan->plens[i], __ATOMIC_RELAXED);
	__atomic_store_n(n_live, plan->n_plens, __ATOMIC_RELEASE);
}

/* The adds merged into the index in place, from the back: no second copy of it. */
static int merge_adds(struct bb_live *l)
{
	size_t n = l->index.n + l->adds.n, i = l->index.n, j = l->adds.n, o = n;
	struct bb_index_rec *r = realloc(l->index.recs, (n ? n : 1) * sizeof(*r));

	if (!r)
		return -ENOMEM;
	while (j > 0) {
		if (i > 0 && r[i - 1].h > l->adds.recs[j - 1].h)
			r[--o] = r[--i];
		else
			r[--o] = l->adds.recs[--j];
	}
	l->index.recs = r;
	l->index.n = l->index.cap = n;
	bb_index_free(&l->adds);
	free(l->dead);
	l->dead = calloc(n / 8 + 1, 1);
	return l->dead ? 0 : -ENOMEM;
}

/*
 * The epoch this commit moves the filter on to (at its end): what the index it writes
 * is of, so that an event raised before it (include/bloomblock.h, struct bb_event) is
 * never attributed by an index that no longer holds what it hit.
 */
static __u32 next_epoch(const struct bb_live *l)
{
	return __atomic_load_n(&((const struct bb_config *)&l->image[BB_CONFIG_INDEX])->confirm_epoch,
			       __ATOMIC_ACQUIRE) + 1;
}

int bb_live_commit(struct bb_live *l, const char *index_path, const char *shadow_path,
		   double max_fp, double fp_check[BB_CHECK_MAX])
{
	struct bb_header *hdr = live_header(l);
	const char *sources[BB_INDEX_MAX_SOURCES];
	__u64 gone = 0, fresh = 0;
	bool indexed;
	size_t i, o;
	unsigned int s;
	int err;

	for (s = 0; s < l->n_sources; s++)
		sources[s] = l->sources[s];
	memset(fp_check, 0, BB_CHECK_MAX * sizeof(*fp_check));
	if (!l->adds.n && !l->n_dead && !l->leftovers.n)
		return 0;
	indexed = l->adds.n || l->n_dead;	/* leftovers alone change no record */
	if (l->adds.n) {
		qsort(l->adds.recs, l->adds.n, sizeof(*l->adds.recs), cmp_h);
		/* one record of each key and form: an item given twice is added once */
		for (i = 0, o = 0; i < l->adds.n; i++)
			if (!kept_already(l->adds.recs, o, &l->adds.recs[i]))
				l->adds.recs[o++] = l->adds.recs[i];
		l->adds.n = o;
		if (fp_after_adds(l, fp_check) > max_fp)
			return -ENOSPC;	/* nothing changed yet */
		/* bits first: a crash from here on costs false positives only */
		for (i = 0; i < l->adds.n; i++) {
			const struct bb_index_rec *r = &l->adds.recs[i];
			size_t first;

			if (rec_short(r) || (i && l->adds.recs[i - 1].h == r->h) ||
			    bb_index_find_in(l->index.recs, l->index.n, r->h, &first))
				continue;
			key_count(l, r->h, +1);
			fresh++;
		}
		for (i = 0; i < l->n_short_adds; i++)
			short_set(l, &l->short_adds[i], true);
		if (l->plens_grown) {
			plens_write(hdr->v4_plens, &hdr->n_v4_plens, &l->shape.v4);
			plens_write(hdr->v6_plens, &hdr->n_v6_plens, &l->shape.v6);
		}
		err = merge_adds(l);
		if (err)
			return err;
	}
	if (l->flags_new)
		__atomic_fetch_or(&hdr->flags, l->flags_new, __ATOMIC_RELEASE);
	__atomic_fetch_add(&hdr->items, fresh, __ATOMIC_RELAXED);

	bb_fault_point("add-bits");	/* the adds' bits set, the index not written */
	/* deletes: the index without them, written first; then counts and bits */
	if (l->n_dead) {
		struct bb_index_rec *gone_keys = malloc(l->n_dead * sizeof(*gone_keys));
		size_t n_gone = 0;

		if (!gone_keys)
			return -ENOMEM;
		for (i = 0, o = 0; i < l->index.n; i++) {
			if (is_dead(l, i)) {
				gone_keys[n_gone++] = l->index.recs[i];
				continue;
			}
			l->index.recs[o++] = l->index.recs[i];
		}
		l->index.n = o;
		memset(l->dead, 0, o / 8 + 1);
		l->n_dead = 0;
		l->meta.changes++;
		l->meta.epoch = next_epoch(l);
		err = bb_index_write_meta(&l->index, index_path, sources, l->n_sources, &l->meta);
		if (err) {
			free(gone_keys);
			return err;
		}
		bb_fault_point("del-index");	/* the index without them, their bits set */
		for (i = 0; i < n_gone; i++) {
			size_t first;

			if (rec_short(&gone_keys[i]) || (i && gone_keys[i - 1].h == gone_keys[i].h) ||
			    bb_index_find_in(l->index.recs, l->index.n, gone_keys[i].h, &first))
				continue;
			key_count(l, gone_keys[i].h, -1);
			gone++;
		}
		free(gone_keys);
		for (i = 0; i < l->n_short_dels; i++)
			short_set(l, &l->short_dels[i], false);
		__atomic_fetch_sub(&hdr->items, gone < hdr->items ? gone : hdr->items,
				   __ATOMIC_RELAXED);
	} else if (indexed) {
		l->meta.changes++;
		l->meta.epoch = next_epoch(l);
		err = bb_index_write_meta(&l->index, index_path, sources, l->n_sources, &l->meta);
		if (err)
			return err;
	}
	/* last, what nothing counts: the bits this run's adds set are counted by now */
	for (i = 0; i < l->leftovers.n; i++)
		l->bits_cleared += key_clear_uncounted(l, l->leftovers.recs[i].h);
	l->leftovers.n = 0;
	/* the index as it is now written: what confirm mode confirmed is asked again */
	__atomic_fetch_add(&((struct bb_config *)&l->image[BB_CONFIG_INDEX])->confirm_epoch, 1,
			   __ATOMIC_RELEASE);
	l->keys_added += fresh;
	l->keys_removed += gone;
	bb_fault_point("live-shadow");	/* the map and index changed, the shadow lags */
	return shadow_write(l, shadow_path);
}

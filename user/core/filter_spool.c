// SPDX-License-Identifier: GPL-2.0
/*
 * A streamed build in one pass (filter.h, "A streamed build in one pass"): each key
 * hashed as its entry is parsed, its index record written to a spool file in buckets
 * by the hash's top byte; then each bucket sorted into the index file, and the
 * filter's bits set a bucket at a time.
 *
 * The spool is one sparse file: bucket b's records from b << SPOOL_REGION_SHIFT on,
 * appended as each writer's chunk for the bucket fills, at an offset reserved with
 * one atomic add. A bucket is then read with one pread, and freed with one hole
 * punched. A record's line is its line in the part of the file its entry was parsed
 * in (the parts are parsed on threads, in any order): each chunk keeps the runs of
 * its records by part, and the plan makes the lines the file's once every part's
 * first line is known.
 */
#define _GNU_SOURCE	/* fallocate(): a bucket's records freed once they are the index's */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault.h"
#include "outfile.h"
#include "bb_hash.h"
#include "filter_int.h"

#define SPOOL_BUCKET_BITS	8
#define SPOOL_BUCKETS		(1U << SPOOL_BUCKET_BITS)
#define SPOOL_CHUNK		512	/* records a writer holds for a bucket: 8 KiB a write */
#define SPOOL_CHUNK_RUNS	8	/* parts one chunk's records may come from */
#define SPOOL_REGION_SHIFT	34	/* 16 GiB of records a bucket; 257 regions: 4 TiB */
#define SPOOL_PREFIXES		SPOOL_BUCKETS	/* the region of the prefixes that wait */
#define SPOOL_PREFIX_CHUNK	128
#define SPOOL_READ		8192	/* records the build reads at once: 128 KiB */
#define SPOOL_FILE_LINES	UINT64_MAX	/* a run whose lines are the file's already */
#define SPOOL_NOWHERE		UINT64_MAX	/* a bucket not in the index file */

/* A prefix whose keys the plan decides (longer than /16, not a whole address). */
struct spool_prefix {
	__u8 addr[16];
	__u64 part;
	__u32 line;
	__u8 kind, plen, src, pad;
};

_Static_assert(sizeof(struct spool_prefix) == 32, "a waiting prefix is 32 bytes");

/* Records of one part of a list, in a bucket's region: their lines count from its start. */
struct spool_run {
	__u64 first;	/* the run's first record in the region */
	__u64 part;	/* SPOOL_FILE_LINES: the lines are the file's */
	__u32 bucket, n;
};

/* A writer's records of one bucket, not written yet, and their runs. */
struct spool_chunk {
	unsigned int n_runs;
	struct {
		unsigned int first;
		__u64 part;
	} runs[SPOOL_CHUNK_RUNS];
	struct bb_index_rec recs[SPOOL_CHUNK];
};

/* An allowlist key, put in the table after the pass in the order of the lists' lines. */
struct spool_allow {
	__u64 h, part;
	__u32 line;
	__u8 src, nth;
};

/* One thread's: what it parses goes through its job to its chunks. */
struct bb_spool_writer {
	struct bb_spool *spool;
	struct build_job job;
	__u64 part;
	struct spool_run *runs;
	size_t n_runs, cap_runs;
	struct spool_allow *allow;
	size_t n_allow, cap_allow;
	struct spool_prefix prefixes[SPOOL_PREFIX_CHUNK];
	unsigned int n_prefixes;
	/* what every record looks at, apart from the chunks, so that it stays in cache:
	 * each chunk's records, and the part of its last run */
	unsigned int n[SPOOL_BUCKETS];
	__u64 run_part[SPOOL_BUCKETS];
	struct spool_chunk chunks[SPOOL_BUCKETS];
};

struct bb_spool {
	struct bb_filter *filter;
	int fd;
	__u64 seed;
	unsigned int threads;
	int err;				/* the first write that failed (atomic) */
	__u64 n[SPOOL_BUCKETS + 1];		/* records of each region; prefixes (atomic) */
	struct bb_spool_writer *writers[BB_BUILD_MAX_THREADS];
	/* after the plan */
	struct spool_run *runs;			/* by bucket: runs[run_start[b] ..) */
	size_t run_start[SPOOL_BUCKETS + 1];
	size_t *const *base;			/* bb_spool_plan()'s */
	const size_t *parts;
	unsigned int n_src;
	__u64 *allow;				/* the allowlist's hashes, in the lists' order */
	size_t n_allow;
	/* the index: where each bucket's records go in its file; where they are once
	 * written there (and gone from the spool), else SPOOL_NOWHERE */
	__u64 index_to[SPOOL_BUCKETS], index_at[SPOOL_BUCKETS];
	unsigned int next;			/* the next bucket a thread takes (atomic) */
};

static off_t region(unsigned int r)
{
	return (off_t)((__u64)r << SPOOL_REGION_SHIFT);
}

/* A write failed: the spool cannot build the filter. The first reason is kept. */
static void spool_fail(struct bb_spool *s, int err)
{
	int none = 0;

	__atomic_compare_exchange_n(&s->err, &none, err, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
}

static bool spool_failed(struct bb_spool *s)
{
	return __atomic_load_n(&s->err, __ATOMIC_RELAXED) != 0;
}

/* n items of size bytes at the end of region r, the space reserved by one atomic add. */
static __u64 region_append(struct bb_spool *s, unsigned int r, const void *items, size_t n,
			   size_t size)
{
	__u64 first = __atomic_fetch_add(&s->n[r], n, __ATOMIC_RELAXED);
	int err;

	if (spool_failed(s))
		return first;
	if ((first + n) * size > 1ULL << SPOOL_REGION_SHIFT)
		err = -EFBIG;
	else
		err = bb_pwrite_all(s->fd, items, n * size, region(r) + (off_t)(first * size));
	if (err)
		spool_fail(s, err);
	return first;
}

static void *grow(void *v, size_t *cap, size_t size)
{
	size_t more = *cap ? 2 * *cap : 256;
	void *p = realloc(v, more * size);

	if (p)
		*cap = more;
	return p;
}

/* Bucket b's chunk to its region, its runs to the writer's list. */
static void chunk_write(struct bb_spool_writer *w, unsigned int b)
{
	struct spool_chunk *c = &w->chunks[b];
	__u64 first;
	unsigned int i;

	if (!w->n[b])
		return;
	first = region_append(w->spool, b, c->recs, w->n[b], sizeof(c->recs[0]));
	for (i = 0; i < c->n_runs; i++) {
		unsigned int end = i + 1 < c->n_runs ? c->runs[i + 1].first : w->n[b];

		if (w->n_runs == w->cap_runs) {
			struct spool_run *r = grow(w->runs, &w->cap_runs, sizeof(*r));

			if (!r) {
				spool_fail(w->spool, -ENOMEM);
				break;
			}
			w->runs = r;
		}
		w->runs[w->n_runs++] = (struct spool_run){
			.first = first + c->runs[i].first, .part = c->runs[i].part,
			.bucket = b, .n = end - c->runs[i].first };
	}
	w->n[b] = c->n_runs = 0;
}

static void prefixes_write(struct bb_spool_writer *w)
{
	if (w->n_prefixes)
		region_append(w->spool, SPOOL_PREFIXES, w->prefixes, w->n_prefixes,
			      sizeof(w->prefixes[0]));
	w->n_prefixes = 0;
}

/* Bucket b's next records are of the writer's part: a run of their own. */
static void run_start(struct bb_spool_writer *w, unsigned int b)
{
	struct spool_chunk *c = &w->chunks[b];

	if (c->n_runs == SPOOL_CHUNK_RUNS)
		chunk_write(w, b);
	c->runs[c->n_runs].first = w->n[b];
	c->runs[c->n_runs++].part = w->part;
	w->run_part[b] = w->part;
}

void spool_record(struct build_job *job, __u64 h, enum bb_key_kind kind)
{
	struct bb_spool_writer *w = job->spool;
	unsigned int b = (unsigned int)(h >> (64 - SPOOL_BUCKET_BITS));

	if (!w->n[b] || w->run_part[b] != w->part)
		run_start(w, b);
	w->chunks[b].recs[w->n[b]++] = (struct bb_index_rec){
		.h = h, .line = job->cur_line, .src = job->cur_src, .kind = (__u8)kind,
		.form = job->cur_form };
	if (w->n[b] == SPOOL_CHUNK)
		chunk_write(w, b);
}

void spool_defer(struct build_job *job, const struct bb_entry *e)
{
	struct bb_spool_writer *w = job->spool;
	struct spool_prefix *p = &w->prefixes[w->n_prefixes++];

	*p = (struct spool_prefix){ .part = w->part, .line = e->line, .kind = e->kind,
				    .plen = e->plen, .src = e->src };
	memcpy(p->addr, e->addr, sizeof(p->addr));
	if (w->n_prefixes == SPOOL_PREFIX_CHUNK)
		prefixes_write(w);
}

/* Thread t's writer, made on its first entry (only thread t touches it). */
static struct bb_spool_writer *writer(struct bb_spool *s, unsigned int t)
{
	struct bb_spool_writer **w = &s->writers[t % BB_BUILD_MAX_THREADS];

	if (!*w) {
		*w = calloc(1, sizeof(**w));
		if (!*w) {
			spool_fail(s, -ENOMEM);
			return NULL;
		}
		(*w)->spool = s;
		(*w)->job = (struct build_job){ .filter = s->filter, .seed = s->seed,
						.spool = *w, .defer = true };
	}
	return *w;
}

int bb_spool_begin(struct bb_filter *filter, int fd, const struct bb_filter_opts *opts,
		   struct bb_spool **out)
{
	struct bb_spool *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s) {
		close(fd);
		return -ENOMEM;
	}
	memset(filter, 0, sizeof(*filter));
	s->filter = filter;
	s->fd = fd;
	s->seed = filter_seed(opts->seed);
	s->threads = build_threads(opts->threads);
	memset(s->index_at, 0xff, sizeof(s->index_at));	/* SPOOL_NOWHERE: nothing indexed */
	*out = s;
	return 0;
}

void bb_spool_add(struct bb_spool *s, unsigned int thread, const struct bb_entry *e)
{
	struct bb_spool_writer *w = writer(s, thread);
	__u64 h[2];
	unsigned int n, i;

	if (!w)
		return;
	if (!(e->flags & BB_ENTRY_F_ALLOW)) {
		add_entry(&w->job, e);
		return;
	}
	n = bb_allow_keys(e, s->seed, h);
	for (i = 0; i < n; i++) {
		if (w->n_allow == w->cap_allow) {
			struct spool_allow *a = grow(w->allow, &w->cap_allow, sizeof(*a));

			if (!a) {
				spool_fail(s, -ENOMEM);
				return;
			}
			w->allow = a;
		}
		w->allow[w->n_allow++] = (struct spool_allow){ .h = h[i], .part = w->part,
							       .line = e->line, .src = e->src,
							       .nth = (__u8)i };
	}
}

void bb_spool_part(struct bb_spool *s, unsigned int thread, size_t part)
{
	struct bb_spool_writer *w = writer(s, thread);

	if (w)
		w->part = part;
}

int bb_spool_error(const struct bb_spool *s)
{
	return s->err;
}

/* A line of part part of list src, made the list's. */
static __u32 rebase(const struct bb_spool *s, unsigned int src, __u64 part, __u32 line)
{
	if (part == SPOOL_FILE_LINES || src >= s->n_src || part >= s->parts[src])
		return line;
	return line + (__u32)s->base[src][part];
}

static void flush_writers(struct bb_spool *s)
{
	unsigned int t, b;

	for (t = 0; t < BB_BUILD_MAX_THREADS; t++) {
		if (!s->writers[t])
			continue;
		for (b = 0; b < SPOOL_BUCKETS; b++)
			chunk_write(s->writers[t], b);
		prefixes_write(s->writers[t]);
	}
}

/* One thread's share of the waiting prefixes: their keys, now that there is a plan. */
struct expand_job {
	struct bb_spool *s;
	struct bb_spool_writer *w;
	__u64 lo, hi;
};

static void *expand_prefixes(void *arg)
{
	struct expand_job *job = arg;
	struct bb_spool *s = job->s;
	struct spool_prefix buf[SPOOL_PREFIX_CHUNK];
	__u64 i, j, k;

	job->w->job.defer = false;
	job->w->part = SPOOL_FILE_LINES;	/* lines made the file's as they are read */
	for (i = job->lo; i < job->hi && !spool_failed(s); i += k) {
		k = job->hi - i < SPOOL_PREFIX_CHUNK ? job->hi - i : SPOOL_PREFIX_CHUNK;
		if (bb_pread_all(s->fd, buf, k * sizeof(buf[0]),
				 region(SPOOL_PREFIXES) + (off_t)(i * sizeof(buf[0])))) {
			spool_fail(s, -EIO);
			break;
		}
		for (j = 0; j < k; j++) {
			struct bb_entry e = { .kind = buf[j].kind, .plen = buf[j].plen,
					      .src = buf[j].src,
					      .line = rebase(s, buf[j].src, buf[j].part, buf[j].line) };

			memcpy(e.addr, buf[j].addr, sizeof(e.addr));
			add_entry(&job->w->job, &e);
		}
	}
	return NULL;
}

/* The writers' runs, by bucket. */
static int gather_runs(struct bb_spool *s)
{
	size_t count[SPOOL_BUCKETS] = { 0 }, at[SPOOL_BUCKETS], total = 0, i;
	unsigned int t, b;

	for (t = 0; t < BB_BUILD_MAX_THREADS; t++)
		for (i = 0; s->writers[t] && i < s->writers[t]->n_runs; i++)
			count[s->writers[t]->runs[i].bucket]++;
	for (b = 0; b < SPOOL_BUCKETS; b++) {
		s->run_start[b] = at[b] = total;
		total += count[b];
	}
	s->run_start[SPOOL_BUCKETS] = total;
	s->runs = malloc((total ? total : 1) * sizeof(*s->runs));
	if (!s->runs)
		return -ENOMEM;
	for (t = 0; t < BB_BUILD_MAX_THREADS; t++) {
		struct bb_spool_writer *w = s->writers[t];

		for (i = 0; w && i < w->n_runs; i++)
			s->runs[at[w->runs[i].bucket]++] = w->runs[i];
		if (w) {
			free(w->runs);
			w->runs = NULL;
			w->n_runs = w->cap_runs = 0;
		}
	}
	return 0;
}

static int allow_before(const struct spool_allow *a, const struct spool_allow *b)
{
	if (a->src != b->src)
		return a->src < b->src;
	if (a->line != b->line)
		return a->line < b->line;
	return a->nth < b->nth;
}

static int allow_cmp(const void *pa, const void *pb)
{
	const struct spool_allow *a = pa, *b = pb;

	return allow_before(a, b) ? -1 : allow_before(b, a);
}

/*
 * The allowlist's keys in the order of the lists' lines, as the in-memory build
 * inserts them: the order decides a key's slot, so the same order gives the same
 * table byte for byte.
 */
static int gather_allow(struct bb_spool *s)
{
	struct spool_allow *all;
	size_t n = 0, i;
	unsigned int t;

	for (t = 0; t < BB_BUILD_MAX_THREADS; t++)
		n += s->writers[t] ? s->writers[t]->n_allow : 0;
	all = malloc((n ? n : 1) * sizeof(*all));
	s->allow = malloc((n ? n : 1) * sizeof(*s->allow));
	if (!all || !s->allow) {
		free(all);
		return -ENOMEM;
	}
	for (t = 0, n = 0; t < BB_BUILD_MAX_THREADS; t++) {
		struct bb_spool_writer *w = s->writers[t];

		for (i = 0; w && i < w->n_allow; i++) {
			all[n] = w->allow[i];
			all[n].line = rebase(s, all[n].src, all[n].part, all[n].line);
			n++;
		}
		if (w) {
			free(w->allow);
			w->allow = NULL;
			w->n_allow = w->cap_allow = 0;
		}
	}
	qsort(all, n, sizeof(*all), allow_cmp);
	for (i = 0; i < n; i++)
		s->allow[i] = all[i].h;
	s->n_allow = n;
	free(all);
	return 0;
}

int bb_spool_plan(struct bb_spool *s, const struct bb_key_tally *tally,
		  size_t *const *base, const size_t *parts, unsigned int n_src)
{
	struct expand_job jobs[BB_BUILD_MAX_THREADS];
	unsigned int threads = s->threads, t;
	__u64 n;
	int err;

	s->base = base;
	s->parts = parts;
	s->n_src = n_src;
	if (tally->bad)
		return -EINVAL;
	err = bb_plen_plan_make(tally->v4_plens, 32, &s->filter->v4);
	err = err ?: bb_plen_plan_make(tally->v6_plens, 128, &s->filter->v6);
	if (err)
		return err;
	flush_writers(s);
	/* the waiting prefixes' keys, on threads when there are many */
	n = s->n[SPOOL_PREFIXES];
	if (n < 4096 * (__u64)threads)
		threads = 1;
	for (t = 0; t < threads && n && !spool_failed(s); t++)
		jobs[t] = (struct expand_job){ .s = s, .w = writer(s, t), .lo = n / threads * t,
					       .hi = t + 1 == threads ? n : n / threads * (t + 1) };
	if (n && !spool_failed(s))
		run_threads(expand_prefixes, jobs, sizeof(jobs[0]), threads);
	flush_writers(s);
	if (n)
		fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			  region(SPOOL_PREFIXES), (off_t)(n * sizeof(struct spool_prefix)));
	err = gather_runs(s);
	err = err ?: gather_allow(s);
	if (err)
		spool_fail(s, err);
	return 0;
}

/* ---- the index: a bucket at a time, its lines made the files', sorted, written ---- */

struct bucket_job {
	struct bb_spool *s;
	const struct bb_index_file *f;
	struct bb_index_rec *buf, *scratch;
	size_t cap;
	int err;
};

/* Bucket b's records into job->buf, read from the spool. */
static int bucket_read(struct bucket_job *job, unsigned int b)
{
	struct bb_spool *s = job->s;
	size_t n = s->n[b];

	if (n > job->cap) {
		free(job->buf);
		free(job->scratch);
		job->buf = malloc(n * sizeof(*job->buf));
		job->scratch = malloc(n * sizeof(*job->scratch));
		job->cap = job->buf && job->scratch ? n : 0;
		if (!job->cap)
			return -ENOMEM;
	}
	return n ? bb_pread_all(s->fd, job->buf, n * sizeof(*job->buf), region(b)) : 0;
}

static void *index_buckets(void *arg)
{
	struct bucket_job *job = arg;
	struct bb_spool *s = job->s;
	struct bb_index_rec *sorted;
	unsigned int b;
	size_t r, i;

	while (!job->err && (b = __atomic_fetch_add(&s->next, 1, __ATOMIC_RELAXED)) <
	       SPOOL_BUCKETS) {
		job->err = bucket_read(job, b);
		for (r = s->run_start[b]; !job->err && r < s->run_start[b + 1]; r++) {
			const struct spool_run *run = &s->runs[r];

			for (i = run->first; i < run->first + run->n; i++)
				job->buf[i].line = rebase(s, job->buf[i].src, run->part,
							  job->buf[i].line);
		}
		if (job->err)
			break;
		sorted = index_sort_bucket(job->buf, s->n[b], job->scratch);
		job->err = bb_pwrite_all(job->f->fd, sorted, s->n[b] * sizeof(*sorted),
					 (off_t)s->index_to[b]);
		if (job->err)
			break;
		/* its sorted records are the index's now: the spool's copy goes */
		s->index_at[b] = s->index_to[b];
		fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, region(b),
			  (off_t)(s->n[b] * sizeof(*job->buf)));
	}
	return NULL;
}

int bb_spool_index(struct bb_spool *s, struct bb_index_file *f, __u64 *n_recs)
{
	struct bucket_job jobs[BB_BUILD_MAX_THREADS];
	__u64 at = BB_INDEX_RECS_OFFSET;
	unsigned int threads = s->threads, t, b;
	int err = 0;

	for (b = 0; b < SPOOL_BUCKETS; b++) {
		s->index_to[b] = at;
		s->index_at[b] = SPOOL_NOWHERE;
		at += s->n[b] * sizeof(struct bb_index_rec);
	}
	*n_recs = (at - BB_INDEX_RECS_OFFSET) / sizeof(struct bb_index_rec);
	if (spool_failed(s))
		return s->err;
	if (*n_recs < 4096 * (__u64)threads)
		threads = 1;
	for (t = 0; t < threads; t++)
		jobs[t] = (struct bucket_job){ .s = s, .f = f };
	s->next = 0;
	run_threads(index_buckets, jobs, sizeof(jobs[0]), threads);
	/* a bucket not written (a write failed) is still in the spool, for the bits */
	for (t = 0; t < threads; t++) {
		err = err ?: jobs[t].err;
		free(jobs[t].buf);
		free(jobs[t].scratch);
	}
	return err;
}

/* ---- the bits: a bucket at a time, in the blocks its hashes pick ---- */

struct bits_job {
	struct bb_spool *s;
	const struct bb_index_file *f;
	__u64 repeats;
	int err;
};

/* Whether a record sets bits: not a prefix of /16 or shorter (exact in the short tables). */
static bool sets_bits(const struct bb_index_rec *r)
{
	return (r->kind != BB_KEY_IP4 && r->kind != BB_KEY_IP6) || r->form > BB_SHORT_PLEN;
}

static void *bits_buckets(void *arg)
{
	struct bits_job *job = arg;
	struct bb_spool *s = job->s;
	const struct bb_filter *filter = s->filter;
	__u32 nblocks = filter->hdr.nblocks, k = filter->hdr.k, lo, hi, blk;
	struct bb_index_rec *buf = malloc(SPOOL_READ * sizeof(*buf));
	unsigned int b;
	__u64 i, j, n;

	if (!buf) {
		job->err = -ENOMEM;
		return NULL;
	}
	while (!job->err && (b = __atomic_fetch_add(&s->next, 1, __ATOMIC_RELAXED)) <
	       SPOOL_BUCKETS) {
		bool in_index = job->f && s->index_at[b] != SPOOL_NOWHERE;
		int fd = in_index ? job->f->fd : s->fd;
		off_t at = in_index ? (off_t)s->index_at[b] : region(b);

		if (b == SPOOL_BUCKETS / 2)
			bb_fault_point("fill");	/* half the bits in the new map */
		/* a bucket's hashes pick a range of blocks; only its first and last may be
		 * the neighbouring buckets' too, and take their bits atomically */
		lo = bb_block_of((__u64)b << (64 - SPOOL_BUCKET_BITS), nblocks);
		hi = bb_block_of((((__u64)b + 1) << (64 - SPOOL_BUCKET_BITS)) - 1, nblocks);
		for (i = 0; i < s->n[b] && !job->err; i += n) {
			n = s->n[b] - i < SPOOL_READ ? s->n[b] - i : SPOOL_READ;
			job->err = bb_pread_all(fd, buf, n * sizeof(*buf),
						at + (off_t)(i * sizeof(*buf)));
			for (j = 0; j < n && !job->err; j++) {
				if (!sets_bits(&buf[j]))
					continue;
				blk = bb_block_of(buf[j].h, nblocks);
				if (!block_set_fresh(&filter->blocks[blk], buf[j].h, k,
						     blk == lo || blk == hi))
					job->repeats++;
			}
		}
	}
	free(buf);
	return NULL;
}

int bb_spool_build(struct bb_spool *s, const struct bb_key_tally *tally,
		   const struct bb_filter_opts *opts, const struct bb_index_file *f,
		   __u64 *repeats)
{
	struct bits_job jobs[BB_BUILD_MAX_THREADS];
	struct bb_filter *filter = s->filter;
	double fpr = opts->fpr > 0 ? opts->fpr : BB_FPR_DEFAULT;
	unsigned int threads = s->threads, t;
	__u64 keys, n = 0;
	int err;

	*repeats = 0;
	if (spool_failed(s))
		return s->err;
	keys = stream_shape(filter, tally, opts);
	/* the allowlist, whose size the map needs before the bits have it */
	err = allow_table_make(filter, s->allow, s->n_allow, tally);
	/* sized for every key counted: a repeated one costs room, never a miss */
	err = err ?: filter_size(filter, keys, s->seed, fpr, opts);
	if (err)
		return err;
	for (t = 0; t < SPOOL_BUCKETS; t++)
		n += s->n[t];
	if (n < 4096 * (__u64)threads)
		threads = 1;
	for (t = 0; t < threads; t++)
		jobs[t] = (struct bits_job){ .s = s, .f = f };
	s->next = 0;
	run_threads(bits_buckets, jobs, sizeof(jobs[0]), threads);
	for (t = 0; t < threads; t++) {
		err = err ?: jobs[t].err;
		*repeats += jobs[t].repeats;
	}
	return err;
}

void bb_spool_free(struct bb_spool *s)
{
	unsigned int t;

	if (!s)
		return;
	for (t = 0; t < BB_BUILD_MAX_THREADS; t++) {
		if (!s->writers[t])
			continue;
		free(s->writers[t]->runs);
		free(s->writers[t]->allow);
		free(s->writers[t]);
	}
	free(s->runs);
	free(s->allow);
	close(s->fd);
	free(s);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The key index: every key a filter holds, by its 64-bit hash, with the list and the
 * line it came from. Built with the filter (or, streamed, while its bits are set),
 * sorted, written beside the live filter; check and, later, hit events look keys up
 * in it to say which list holds a hit, or that none does: a false positive.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "outfile.h"
#include "bb_hash.h"
#include "filter_int.h"

__u64 bb_prefix_hash(const struct bb_entry *e, __u64 seed)
{
	if (e->kind == BB_ENTRY_IP4) {
		struct bb_key_ip4 k;

		bb_key_ip4_make(&k, e->addr, e->plen);
		return bb_hash_ip4(&k, seed);
	} else {
		struct bb_key_ip6 k;

		bb_key_ip6_make(&k, e->addr, e->plen);
		return bb_hash_ip6(&k, seed);
	}
}

void index_push(struct build_job *job, __u64 h, enum bb_key_kind kind)
{
	struct bb_index *x = job->index;

	if (x->err)
		return;
	if (x->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 4096;
		struct bb_index_rec *r = realloc(x->recs, cap * sizeof(*r));

		if (!r) {
			x->err = -ENOMEM;
			return;
		}
		x->recs = r;
		x->cap = cap;
	}
	x->recs[x->n++] = (struct bb_index_rec){ .h = h, .line = job->cur_line,
						 .src = job->cur_src, .kind = (__u8)kind,
						 .form = job->cur_form };
}

void bb_index_part(struct bb_index *x, size_t part)
{
	if (x->err)
		return;
	if (x->n_runs && x->runs[x->n_runs - 1].first == x->n) {
		x->runs[x->n_runs - 1].part = part;	/* an empty run: replaced */
		return;
	}
	if (x->n_runs == x->cap_runs) {
		size_t cap = x->cap_runs ? 2 * x->cap_runs : 64;
		struct bb_index_run *r = realloc(x->runs, cap * sizeof(*r));

		if (!r) {
			x->err = -ENOMEM;
			return;
		}
		x->runs = r;
		x->cap_runs = cap;
	}
	x->runs[x->n_runs++] = (struct bb_index_run){ .first = x->n, .part = part };
}

void bb_index_free(struct bb_index *x)
{
	free(x->runs);
	free(x->recs);
	memset(x, 0, sizeof(*x));
}

int bb_index_append(struct bb_index *to, struct bb_index *from)
{
	struct bb_index_rec *r;

	if (from->err)
		return from->err;
	if (!from->n)
		return 0;
	if (!to->recs && !to->runs) {	/* the first part: its arrays, not a copy */
		*to = *from;
		to->cap = to->n;
		memset(from, 0, sizeof(*from));
		return 0;
	}
	r = realloc(to->recs, (to->n + from->n) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	memcpy(r + to->n, from->recs, from->n * sizeof(*r));
	to->recs = r;
	if (from->n_runs) {
		struct bb_index_run *runs = realloc(to->runs, (to->n_runs + from->n_runs) *
						    sizeof(*runs));
		size_t i;

		if (!runs)
			return -ENOMEM;
		for (i = 0; i < from->n_runs; i++)
			runs[to->n_runs + i] = (struct bb_index_run){
				.first = to->n + from->runs[i].first, .part = from->runs[i].part };
		to->runs = runs;
		to->n_runs += from->n_runs;
		to->cap_runs = to->n_runs;
	}
	to->n += from->n;
	to->cap = to->n;
	bb_index_free(from);
	return 0;
}

/* The index's order: by hash, then by list and line (a key's first listing first). */
static int rec_before(const struct bb_index_rec *a, const struct bb_index_rec *b)
{
	if (a->h != b->h)
		return a->h < b->h;
	if (a->src != b->src)
		return a->src < b->src;
	return a->line < b->line;
}

static int rec_cmp(const void *pa, const void *pb)
{
	const struct bb_index_rec *a = pa, *b = pb;

	return rec_before(a, b) ? -1 : rec_before(b, a);
}

static void insertion_sort(struct bb_index_rec *r, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		struct bb_index_rec v = r[i];

		for (j = i; j > 0 && rec_before(&v, &r[j - 1]); j--)
			r[j] = r[j - 1];
		r[j] = v;
	}
}

/*
 * In place, byte `byte` of the hash and those below it (MSD radix, "American flag"):
 * the records go to their byte's bucket by cycles of swaps, then each bucket is
 * sorted by the next byte. Small ranges by insertion; records whose hashes are all
 * alike (one key listed many times) by qsort on list and line. No second buffer:
 * a 10^7-key load's index is 160 MB, and load's memory is bounded by the filter's.
 */
static void radix_sort(struct bb_index_rec *r, size_t n, int byte)
{
	size_t count[256] = { 0 }, head[256], tail[256], i, sum = 0;
	unsigned int shift = 8 * (unsigned int)byte, b;

	if (n <= 32) {
		insertion_sort(r, n);
		return;
	}
	if (byte < 0) {
		qsort(r, n, sizeof(*r), rec_cmp);
		return;
	}
	for (i = 0; i < n; i++)
		count[(r[i].h >> shift) & 0xff]++;
	for (b = 0; b < 256; b++) {
		head[b] = sum;
		sum += count[b];
		tail[b] = sum;
	}
	for (b = 0; b < 256; b++) {
		while (head[b] < tail[b]) {
			struct bb_index_rec v = r[head[b]];
			unsigned int d = (v.h >> shift) & 0xff;

			while (d != b) {	/* v to its bucket, what was there onwards */
				struct bb_index_rec w = r[head[d]];

				r[head[d]++] = v;
				v = w;
				d = (v.h >> shift) & 0xff;
			}
			r[head[b]++] = v;
		}
	}
	for (b = 0, sum = 0; b < 256; sum += count[b], b++)
		if (count[b] > 1)
			radix_sort(r + sum, count[b], byte - 1);
}

int bb_index_sort(struct bb_index *x)
{
	radix_sort(x->recs, x->n, 7);
	return 0;
}

int bb_index_rebase(struct bb_index *x, size_t *const *base, const size_t *parts,
		    unsigned int n_src)
{
	size_t i, run;

	for (run = 0; run < x->n_runs; run++) {
		size_t end = run + 1 < x->n_runs ? x->runs[run + 1].first : x->n;
		size_t part = x->runs[run].part;

		for (i = x->runs[run].first; i < end; i++) {
			struct bb_index_rec *r = &x->recs[i];

			if (r->src < n_src && part < parts[r->src])
				r->line += (__u32)base[r->src][part];
		}
	}
	free(x->runs);
	x->runs = NULL;
	x->n_runs = x->cap_runs = 0;
	return bb_index_sort(x);
}

/* ---- the in-memory build's index: one more pass over the entries, on threads ---- */

static void *index_keys(void *arg)
{
	struct build_job *job = arg;
	size_t i;

	for (i = job->lo; i < job->hi; i++)
		add_entry(job, &job->entries[i]);
	return NULL;
}

int bb_filter_index(const struct bb_filter *filter, const struct bb_list *list,
		    unsigned int threads, struct bb_index *out)
{
	struct build_job *jobs;
	struct bb_index *parts;
	unsigned int t;
	int err = 0;

	memset(out, 0, sizeof(*out));
	threads = build_threads(threads);
	if (list->n < 4096 * (size_t)threads)
		threads = 1;
	jobs = calloc(threads, sizeof(*jobs));
	parts = calloc(threads, sizeof(*parts));
	if (!jobs || !parts) {
		free(jobs);
		free(parts);
		return -ENOMEM;
	}
	for (t = 0; t < threads; t++)
		jobs[t] = (struct build_job){
			.filter = (struct bb_filter *)filter, .entries = list->entries,
			.seed = filter->hdr.seed, .index = &parts[t], .index_only = true,
			.lo = list->n / threads * t,
			.hi = t + 1 == threads ? list->n : list->n / threads * (t + 1),
		};
	run_threads(index_keys, jobs, sizeof(jobs[0]), threads);
	for (t = 0; t < threads; t++) {
		int e = bb_index_append(out, &parts[t]);

		err = err ?: e;
		bb_index_free(&parts[t]);
	}
	free(jobs);
	free(parts);
	err = err ?: bb_index_sort(out);
	if (err)
		bb_index_free(out);
	return err;
}

/* ---- the index file ---- */

#define INDEX_MAGIC	"BBINDEX1"

struct index_file_header {
	char magic[8];
	__u64 n_recs;
	__u64 seed;		/* the filter's: the same key hashes */
	__u64 generation;	/* the filter it describes */
	__u32 map_id;
	__u32 n_sources;
	__u64 sources_bytes;	/* the sources' names, NUL-terminated, after the records */
	__u64 changes, added, deleted;	/* bb_index_meta */
	double fp;
	__u32 epoch;		/* bb_index_meta's, when flags has INDEX_F_EPOCH */
	__u32 flags;
	__u8 pad[40];
};

#define INDEX_F_EPOCH	1U	/* epoch is written (an older index has zeros there) */

_Static_assert(sizeof(struct index_file_header) == 128, "the index header is 128 bytes");
_Static_assert(sizeof(struct bb_index_rec) == 16, "an index record is 16 bytes");

int bb_index_write(const struct bb_index *x, const char *path, const char *const *sources,
		   unsigned int n_sources, __u64 seed, __u64 generation, __u32 map_id)
{
	struct bb_index_meta m = { .seed = seed, .generation = generation, .map_id = map_id };

	return bb_index_write_meta(x, path, sources, n_sources, &m);
}

static void meta_header(struct index_file_header *h, const struct bb_index *x,
			const char *const *sources, unsigned int n_sources,
			const struct bb_index_meta *m)
{
	unsigned int i;

	*h = (struct index_file_header){ .n_recs = x->n, .seed = m->seed,
					 .generation = m->generation, .map_id = m->map_id,
					 .n_sources = n_sources, .changes = m->changes,
					 .added = m->added, .deleted = m->deleted, .fp = m->fp,
					 .epoch = m->epoch, .flags = INDEX_F_EPOCH };
	memcpy(h->magic, INDEX_MAGIC, sizeof(h->magic));
	for (i = 0; i < n_sources; i++)
		h->sources_bytes += strlen(sources[i]) + 1;
}

int bb_index_write_meta(const struct bb_index *x, const char *path, const char *const *sources,
			unsigned int n_sources, const struct bb_index_meta *m)
{
	struct index_file_header h;
	char tmp[4096];
	unsigned int i;
	FILE *f;
	int err = 0;

	meta_header(&h, x, sources, n_sources, m);
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = bb_tmp_fopen(tmp, 0600);
	if (!f)
		return -errno;
	errno = 0;	/* a short write's own reason (ENOSPC, EDQUOT), said as it is */
	if (fwrite(&h, sizeof(h), 1, f) != 1 ||
	    (x->n && fwrite(x->recs, sizeof(*x->recs), x->n, f) != x->n))
		err = errno ? -errno : -EIO;
	for (i = 0; !err && i < n_sources; i++)
		if (fwrite(sources[i], strlen(sources[i]) + 1, 1, f) != 1)
			err = errno ? -errno : -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return bb_tmp_commit(tmp, path, err);
}

int bb_index_bytes(const struct bb_index *x, const char *const *sources, unsigned int n_sources,
		   const struct bb_index_meta *m, void **out, size_t *len)
{
	struct index_file_header h;
	unsigned int i;
	char *b, *p;

	meta_header(&h, x, sources, n_sources, m);
	*len = sizeof(h) + x->n * sizeof(*x->recs) + h.sources_bytes;
	b = malloc(*len);
	if (!b)
		return -ENOMEM;
	memcpy(b, &h, sizeof(h));
	if (x->n)
		memcpy(b + sizeof(h), x->recs, x->n * sizeof(*x->recs));
	p = b + sizeof(h) + x->n * sizeof(*x->recs);
	for (i = 0; i < n_sources; i++) {
		size_t n = strlen(sources[i]) + 1;

		memcpy(p, sources[i], n);
		p += n;
	}
	*out = b;
	return 0;
}

/* An index's bytes, checked; v points into them. */
static int view_bytes(struct bb_index_view *v, const void *bytes, size_t size)
{
	const struct index_file_header *h = bytes;
	const char *s, *end;
	unsigned int i;

	if (size < sizeof(*h) || memcmp(h->magic, INDEX_MAGIC, 8) ||
	    h->n_sources > BB_INDEX_MAX_SOURCES ||
	    h->n_recs > (size - sizeof(*h)) / sizeof(struct bb_index_rec) ||
	    sizeof(*h) + h->n_recs * sizeof(struct bb_index_rec) + h->sources_bytes != size)
		return -EBADMSG;
	v->recs = (const void *)(h + 1);
	v->n = h->n_recs;
	v->meta = (struct bb_index_meta){ .seed = h->seed, .generation = h->generation,
					  .map_id = h->map_id, .changes = h->changes,
					  .added = h->added, .deleted = h->deleted, .fp = h->fp,
					  .epoch = h->epoch,
					  .epoch_known = !!(h->flags & INDEX_F_EPOCH) };
	v->seed = h->seed;
	v->generation = h->generation;
	v->map_id = h->map_id;
	s = (const char *)(v->recs + v->n);
	end = (const char *)bytes + size;
	for (i = 0; i < h->n_sources; i++) {
		const char *z = memchr(s, '\0', (size_t)(end - s));

		if (!z)
			return -EBADMSG;
		v->sources[i] = s;
		s = z + 1;
	}
	v->n_sources = h->n_sources;
	return 0;
}

int bb_index_view_bytes(const void *bytes, size_t size, struct bb_index_view *v)
{
	int err;

	memset(v, 0, sizeof(*v));
	err = view_bytes(v, bytes, size);
	if (err)
		memset(v, 0, sizeof(*v));
	return err;
}

int bb_index_open(const char *path, struct bb_index_view *v)
{
	struct stat st;
	int fd, err;

	memset(v, 0, sizeof(*v));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(struct index_file_header)) {
		close(fd);
		return -EBADMSG;
	}
	v->size = (size_t)st.st_size;
	v->map = mmap(NULL, v->size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (v->map == MAP_FAILED) {
		v->map = NULL;
		return -errno;
	}
	err = view_bytes(v, v->map, v->size);
	if (err)
		bb_index_close(v);
	return err;
}

void bb_index_close(struct bb_index_view *v)
{
	if (v->map)
		munmap(v->map, v->size);
	memset(v, 0, sizeof(*v));
}

size_t bb_index_find_in(const struct bb_index_rec *recs, size_t n_recs, __u64 h, size_t *first)
{
	size_t lo = 0, hi = n_recs, n = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (recs[mid].h < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (lo + n < n_recs && recs[lo + n].h == h)
		n++;
	return n;
}

size_t bb_index_find(const struct bb_index_view *v, __u64 h, size_t *first)
{
	return bb_index_find_in(v->recs, v->n, h, first);
}

const char *bb_index_source(const struct bb_index_view *v, unsigned int src)
{
	return src < v->n_sources ? v->sources[src] : "?";
}

int bb_index_describes(const struct bb_index_view *v, const struct bb_block *image)
{
	const struct bb_header *hdr = (const void *)&image[BB_HEADER_INDEX];
	const struct bb_allow_header *ah = hdr->allow_blocks ?
		(const void *)&image[bb_allow_index(hdr->nblocks)] : NULL;

	return v->seed == hdr->seed && v->generation == hdr->generation &&
	       (!ah || v->map_id == ah->map_id);
}

/* The address of query at plen bits, as a list writes it: "198.51.96.0/20". */
static void prefix_text(const struct bb_entry *query, unsigned int plen, char *out, size_t size)
{
	bool v4 = query->kind == BB_ENTRY_IP4;
	unsigned int bytes = v4 ? 4 : 16, full = v4 ? 32 : 128, i;
	char addr[INET6_ADDRSTRLEN];
	__u8 a[16] = { 0 };

	if (plen > full)
		plen = full;
	memcpy(a, query->addr, bytes);
	for (i = 0; i < bytes; i++)
		if (8 * (i + 1) > plen)
			a[i] &= (__u8)(plen > 8 * i ? 0xff << (8 - (plen - 8 * i)) : 0);
	inet_ntop(v4 ? AF_INET : AF_INET6, a, addr, sizeof(addr));
	if (plen == full)
		snprintf(out, size, "%s", addr);
	else
		snprintf(out, size, "%s/%u", addr, plen);
}

int bb_index_entry_text(const struct bb_entry *query, const struct bb_index_rec *rec,
			__u64 seed, char *out, size_t size)
{
	const char *text = query->text, *host;
	size_t hlen, len, s, e;
	__u8 key[BB_KEY_MAX];

	out[0] = '\0';
	if (rec->kind == BB_KEY_IP4 || rec->kind == BB_KEY_IP6) {
		if (query->kind != BB_ENTRY_IP4 && query->kind != BB_ENTRY_IP6)
			return -ENOENT;
		prefix_text(query, rec->form, out, size);
		return 0;
	}
	if (!text)
		return -ENOENT;
	host = text;
	hlen = strcspn(text, "/");
	len = strlen(text);
	/* the name, then each parent: the one whose key the record holds */
	for (s = 0; s < hlen; s++) {
		if (s && host[s - 1] != '.')
			continue;
		if (rec->kind == BB_KEY_URL) {
			/* its URL keys: the host suffix and each prefix of the path */
			for (e = hlen; e <= len && e - s < BB_KEY_MAX - 1; e++) {
				__u32 n = bb_key_text(key, BB_KEY_URL, host + s, e - s);

				if (XXH64(key, n, seed) == rec->h) {
					snprintf(out, size, "%.*s", (int)(e - s), host + s);
					return 0;
				}
			}
			continue;
		}
		if (bb_hash_name(rec->kind, (const __u8 *)host + s, (__u32)(hlen - s), seed) !=
		    rec->h)
			continue;
		snprintf(out, size, "%s%.*s", rec->kind == BB_KEY_NAME_PARENT &&
			 rec->form == BB_FORM_SUBDOMAINS ? "*." : "", (int)(hlen - s), host + s);
		return 0;
	}
	return -ENOENT;
}

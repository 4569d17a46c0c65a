/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A list file, read: its format told, its lines parsed by threads in parts cut at line
 * boundaries (or in order, for a stream or a format with state across lines), the
 * parts merged and de-duplicated in file order, the rejects reported in line order.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "list_int.h"
#include "reader.h"

#define PART_MIN_BYTES	(256U << 10)	/* smaller files are one piece, one thread */
#define PARTS_PER_THREAD 8
#define SCAN_PART_BYTES	(1U << 20)	/* pieces of a file that a scan cuts */

int bb_list_parse_line(struct bb_list *list, const char *line, size_t len, const char **why)
{
	list->counts.lines++;
	return fmt_parse_line(list, line, len, why);
}

/* A rejected line of a part, reported once every part is parsed. */
struct reject_note {
	size_t lineno;		/* within the part */
	const char *why;	/* reasons are string constants */
	size_t text_off;	/* its first bytes, in the part's note text */
	size_t text_len;
	bool cut;		/* the line was longer than REPORT_TEXT_MAX */
};

/* One piece of a file, parsed by one thread: the lines that start in [start, end). */
struct file_part {
	__u64 start, end;
	struct bb_list list;	/* its entries in file order, not de-duplicated */
	size_t first;		/* where its entries go in the file's list */
	size_t line_base;	/* the lines of the parts before it (gather_parts()) */
	struct reject_note *notes;
	size_t n_notes, cap_notes;
	char *note_text;
	size_t text_len, text_cap;
	size_t unnoted;		/* rejects past report_max in this part */
	int err;
	const char *err_msg;
};

struct parse_job {
	struct bb_list *list;		/* the file's list: de-duplication */
	struct file_part *parts;
	size_t n_parts;
	size_t next_part;		/* atomic: parts go to whichever thread is free */
	size_t report_max;		/* notes kept per part; 0: all */
	bool report;
	unsigned int threads;
	size_t first;			/* index in list->entries of the file's first entry */
	unsigned char *dup;		/* per entry of the file: a duplicate */
	int err;			/* de-duplication: -ENOMEM */
	const struct bb_list_sink *sink;	/* a scan: entries to it, nothing stored */
	const struct fmt_conf *conf;
	int fd;				/* parts: a regular file, read with pread */
	__u64 size;
	struct bb_reader *stream;	/* else: the one part's reader, already peeked */
	struct bb_file_info *info;
	__u64 max_entries, max_bytes;	/* bb_list_opts' bounds; 0: none */
	__u64 entry_lines;		/* atomic: lines that held an entry, every part's */
	char entries_msg[128], bytes_msg[128];	/* what each bound says when passed */
};

static int note_reject(struct file_part *part, const char *why, const char *line, size_t len)
{
	size_t keep = len > REPORT_TEXT_MAX ? REPORT_TEXT_MAX : len;

	if (part->n_notes == part->cap_notes) {
		size_t cap = part->cap_notes ? 2 * part->cap_notes : 64;
		struct reject_note *n = realloc(part->notes, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		part->notes = n;
		part->cap_notes = cap;
	}
	if (part->text_len + keep > part->text_cap) {
		size_t cap = part->text_cap ? 2 * part->text_cap : 4096;
		char *t;

		while (cap < part->text_len + keep)
			cap *= 2;
		t = realloc(part->note_text, cap);
		if (!t)
			return -ENOMEM;
		part->note_text = t;
		part->text_cap = cap;
	}
	memcpy(part->note_text + part->text_len, line, keep);
	part->notes[part->n_notes++] = (struct reject_note){
		part->list.counts.lines, why, part->text_len, keep, len > keep };
	part->text_len += keep;
	return 0;
}

static void parse_lines(struct parse_job *job, struct file_part *part, struct bb_reader *r)
{
	struct list_priv *p = part->list.priv;
	const char *line, *why;
	bool too_long;
	size_t len;
	int rc;

	for (;;) {
		rc = bb_reader_next(r, &line, &len, &too_long);
		if (rc <= 0) {
			part->err = rc;
			part->err_msg = rc ? bb_reader_error(r) : NULL;
			return;
		}
		if (job->max_bytes && r->pos_off > job->max_bytes) {	/* a stream's, inflated */
			part->err = -EFBIG;
			part->err_msg = job->bytes_msg;
			return;
		}
		/* a CR before the '\n' is the line's: the parsers treat it as a space */
		why = "rejected";
		p->line = line;
		p->line_len = len;
		p->why = &why;
		if (too_long) {
			part->list.counts.lines++;
			rc = count_reject(&part->list, reject(BB_REJECT_TOO_LONG, &why,
							      "line longer than 4096 bytes"));
		} else {
			rc = bb_list_parse_line(&part->list, line, len, &why);
		}
		p->line = NULL;
		p->why = NULL;
		if (rc == BB_LIST_NOMEM) {
			part->err = -ENOMEM;
			return;
		}
		if (rc == 1 && job->max_entries &&
		    __atomic_add_fetch(&job->entry_lines, 1, __ATOMIC_RELAXED) > job->max_entries) {
			part->err = -E2BIG;
			part->err_msg = job->entries_msg;
			return;
		}
		if (rc >= 0 || !job->report)
			continue;
		if (job->report_max && part->n_notes >= job->report_max)
			part->unnoted++;
		else if (note_reject(part, why, line, len))
			part->err = -ENOMEM;
	}
}

static void parse_part(struct parse_job *job, struct file_part *part, unsigned int thread,
		       char *buf)
{
	struct list_priv *p = calloc(1, sizeof(*p));
	struct bb_reader region, *r = job->stream;

	bb_list_init(&part->list);
	if (!p || (fmt_sequential(job->conf->format) && fmt_seq_new(p))) {
		free(p);
		part->err = -ENOMEM;
		return;
	}
	p->part = true;
	p->sink = job->sink;
	p->thread = thread;
	if (job->sink && job->sink->part)
		job->sink->part(job->sink->ctx, thread, (size_t)(part - job->parts));
	p->conf = job->conf;
	part->list.priv = p;
	if (!r) {
		r = &region;
		part->err = bb_reader_region(r, job->fd, part->start, part->end, job->size, buf);
		if (part->err)
			part->err_msg = bb_reader_error(r);
	}
	if (!part->err)
		parse_lines(job, part, r);
	if (!part->err && p->seq)
		part->err = fmt_seq_end(&part->list, job->info) ? -ENOMEM : 0;
	if (r == &region)
		bb_reader_close(r);
}

static void *parse_worker(void *arg)
{
	struct parse_job *job = ((void **)arg)[0];
	unsigned int thread = (unsigned int)(uintptr_t)((void **)arg)[1];
	char *buf = job->stream ? NULL : malloc(BB_READER_BUF);
	size_t i;

	if (!job->stream && !buf) {
		__atomic_store_n(&job->err, -ENOMEM, __ATOMIC_RELAXED);
		return NULL;
	}
	while ((i = __atomic_fetch_add(&job->next_part, 1, __ATOMIC_RELAXED)) < job->n_parts)
		parse_part(job, &job->parts[i], thread, buf);
	free(buf);
	return NULL;
}

/* Room in a shard for more entries, so that inserting them never rehashes. */
static int shard_reserve(struct set_shard *s, size_t more)
{
	if ((s->used + more) * 10 > s->nslots * 7)
		return shard_grow_to(s, s->used + more);
	return 0;
}

/*
 * Thread t owns the set shards s with s % threads == t, and inserts one shard at a
 * time, each from every part in file order: a shard's table stays in cache, where
 * inserting entry by entry would jump across the whole set each time.
 */
static void *dedup_worker(void *arg)
{
	struct parse_job *job = ((void **)arg)[0];
	unsigned int t = (unsigned int)(uintptr_t)((void **)arg)[1];
	struct list_priv *p = job->list->priv;
	const struct bb_entry *entries = job->list->entries;
	size_t sh, i, k, more;

	for (sh = t; sh < SET_SHARDS; sh += job->threads) {
		struct set_shard *s = &p->shards[sh];

		for (i = 0, more = 0; i < job->n_parts; i++)
			more += ((struct list_priv *)job->parts[i].list.priv)->part_slots[sh].used;
		if (shard_reserve(s, more)) {
			__atomic_store_n(&job->err, -ENOMEM, __ATOMIC_RELAXED);
			return NULL;
		}
		for (i = 0; i < job->n_parts; i++) {
			const struct set_shard *ps =
				&((struct list_priv *)job->parts[i].list.priv)->part_slots[sh];
			size_t first = job->parts[i].first;

			for (k = 0; k < ps->used; k++) {
				uint64_t v = ps->slots[k];
				size_t e = first + (v & 0xffffffffU) - 1;

				if (k + 8 < ps->used)
					__builtin_prefetch(&s->slots[(ps->slots[k + 8] >> 32) &
								     (s->nslots - 1)]);
				/* reserved above: no growth, never -ENOMEM */
				if (!shard_insert(s, entries, v, &entries[e], e))
					job->dup[e - job->first] = 1;
			}
		}
	}
	return NULL;
}

/* Thread t copies every threads-th part's entries to their place in the list. */
static void *copy_worker(void *arg)
{
	struct parse_job *job = ((void **)arg)[0];
	unsigned int t = (unsigned int)(uintptr_t)((void **)arg)[1];
	size_t i;

	for (i = t; i < job->n_parts; i += job->threads) {
		struct bb_list *pl = &job->parts[i].list;

		if (pl->n) {
			struct bb_entry *e = &job->list->entries[job->parts[i].first];
			size_t k;

			memcpy(e, pl->entries, pl->n * sizeof(*pl->entries));
			for (k = 0; k < pl->n; k++)	/* a line in the part: one in the file */
				e[k].line += (__u32)job->parts[i].line_base;
		}
		free(pl->entries);
		pl->entries = NULL;
	}
	return NULL;
}

/* Run fn on up to threads threads, the caller's own thread being one of them. */
static void run_threads(void *(*fn)(void *), struct parse_job *job, unsigned int threads)
{
	void *args[BB_LIST_MAX_THREADS][2];
	pthread_t tids[BB_LIST_MAX_THREADS];
	bool started[BB_LIST_MAX_THREADS] = { false };
	unsigned int t;

	if (!threads)
		threads = 1;
	for (t = 0; t < threads; t++) {
		args[t][0] = job;
		args[t][1] = (void *)(uintptr_t)t;
	}
	for (t = 1; t < threads; t++)
		started[t] = !pthread_create(&tids[t], NULL, fn, args[t]);
	fn(args[0]);
	for (t = 1; t < threads; t++) {
		if (started[t])
			pthread_join(tids[t], NULL);
		else
			fn(args[t]);	/* no thread: do its share here */
	}
}

/* Close the gaps duplicates leave, and point the set at the entries' new places. */
static int drop_duplicates(struct parse_job *job, size_t total)
{
	struct bb_list *list = job->list;
	struct list_priv *p = list->priv;
	size_t i, k, w, dups = 0;
	__u32 *remap;

	for (i = 0; i < total; i++) {
		if (!job->dup[i])
			continue;
		const struct bb_entry *e = &list->entries[job->first + i];

		(e->flags & BB_ENTRY_F_ALLOW ? list->counts.allow : list->counts.accepted)[e->kind]--;
		list->counts.duplicates++;
		dups++;
	}
	if (!dups)
		return 0;
	remap = malloc(total * sizeof(*remap));
	if (!remap)
		return -ENOMEM;
	for (i = 0, w = job->first; i < total; i++) {
		if (job->dup[i])
			continue;
		remap[i] = (__u32)w;
		list->entries[w++] = list->entries[job->first + i];
	}
	list->n = w;
	for (i = 0; i < SET_SHARDS; i++) {
		struct set_shard *s = &p->shards[i];

		for (k = 0; k < s->nslots; k++) {
			uint64_t v = s->slots[k], idx = (v & 0xffffffffU) - 1;

			if (v && idx >= job->first)
				s->slots[k] = (v & ~0xffffffffULL) |
					      (remap[idx - job->first] + 1);
		}
	}
	free(remap);
	return 0;
}

/*
 * The parts' entries into the list, in file order, then the duplicates out: an
 * entry is a duplicate when an equal one came before it, in this file or an earlier
 * one. The same verdicts as adding them one by one, with one thread per set shard.
 */
static int merge_parts(struct parse_job *job)
{
	struct bb_list *list = job->list;
	struct list_priv *p = list_priv(list);
	size_t total = 0, i;
	int err;

	if (!p)
		return -ENOMEM;
	for (i = 0; i < job->n_parts; i++)
		total += job->parts[i].list.n;
	if (!total)
		return 0;
	err = list_reserve(list, total);
	if (err)
		return err;
	job->first = list->n;
	for (i = 0; i < job->n_parts; i++) {
		struct bb_list *pl = &job->parts[i].list;

		job->parts[i].first = list->n;
		list->n += pl->n;
		/* the texts stay where they are: their chunks join the list's arena */
		arena_adopt(p, pl->priv);
	}
	/* the copy in parallel too: its page faults are most of its cost */
	run_threads(copy_worker, job, job->threads);
	job->dup = calloc(total, 1);
	if (!job->dup)
		return -ENOMEM;
	run_threads(dedup_worker, job, job->threads);
	if (job->err)
		return job->err;
	return drop_duplicates(job, total);
}

unsigned int bb_list_threads(unsigned int threads)
{
	long cpus;

	if (!threads) {
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
		threads = cpus > 0 ? (unsigned int)cpus : 1;
	}
	return threads > BB_LIST_MAX_THREADS ? BB_LIST_MAX_THREADS : threads;
}

static void report_reject(const struct bb_list_opts *opts, const char *path, size_t lineno,
			  const char *why, const char *line, size_t len, bool cut)
{
	char text[4 * REPORT_TEXT_MAX + 1];

	if (!opts || !opts->report)
		return;	/* notes are kept only when reporting: never here */
	while (!cut && len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	bb_escape_text(line, len, text, sizeof(text));
	fprintf(opts->report, "%s:%zu: %s (%s%s)\n", path, lineno, why, text, cut ? "..." : "");
}

/* The parts' counts, reports in line order and first lines of each class, summed. */
static int gather_parts(struct parse_job *job, const char *name, const struct bb_list_opts *opts)
{
	struct bb_list *list = job->list;
	size_t i, k, base = 0, shown = 0, unshown = 0;
	int err = 0;

	for (i = 0; i < job->n_parts; i++) {
		struct file_part *part = &job->parts[i];
		const struct list_priv *pp = part->list.priv;

		if (part->err && !err) {
			err = part->err;
			if (opts && opts->report && err != -ENOMEM)
				fprintf(opts->report, "%s: %s\n", name,
					part->err_msg ?: strerror(-err));
		}
		bb_list_counts_add(&list->counts, &part->list.counts);
		part->line_base = base;
		if (job->sink && job->sink->part_lines)
			job->sink->part_lines(job->sink->ctx, i, part->list.counts.lines);
		for (k = 0; k < part->n_notes; k++) {
			const struct reject_note *n = &part->notes[k];

			if (job->report_max && shown >= job->report_max) {
				unshown++;
				continue;
			}
			report_reject(opts, name, base + n->lineno, n->why,
				      part->note_text + n->text_off, n->text_len, n->cut);
			shown++;
		}
		unshown += part->unnoted;
		for (k = 0; job->info && pp && k < BB_CLASS_MAX; k++) {
			if (job->info->first[k].line || !pp->first[k].line)
				continue;
			job->info->first[k].line = base + pp->first[k].line;
			memcpy(job->info->first[k].text, pp->first[k].text,
			       sizeof(job->info->first[k].text));
		}
		for (k = 0; job->info && pp && k < BB_WATCH_MAX; k++) {
			if (job->info->watched[k].line || !pp->watched[k].line)
				continue;
			job->info->watched[k].line = base + pp->watched[k].line;
			memcpy(job->info->watched[k].text, pp->watched[k].text,
			       sizeof(job->info->watched[k].text));
		}
		base += part->list.counts.lines;
	}
	if (job->report && unshown && opts)
		fprintf(opts->report, "%s: %zu more rejected lines not shown\n", name, unshown);
	return err;
}

/* Cut a region of size bytes into the job's parts; line boundaries are the reader's. */
static int cut_parts(struct parse_job *job, const struct bb_list_opts *opts)
{
	size_t part_bytes = opts && opts->part_bytes ? opts->part_bytes : 0, i;

	if (job->stream || fmt_sequential(job->conf->format)) {
		job->n_parts = 1;
	} else if (job->sink) {
		/* a scan keeps nothing per entry: small parts, the same memory any size */
		part_bytes = part_bytes ?: SCAN_PART_BYTES;
		job->n_parts = (size_t)((job->size + part_bytes - 1) / part_bytes);
	} else {
		/* small files: one part; else several a thread, so a slow thread takes fewer */
		job->n_parts = (size_t)(job->size / (part_bytes ?: PART_MIN_BYTES));
		if (job->n_parts > (size_t)PARTS_PER_THREAD * job->threads && !part_bytes)
			job->n_parts = (size_t)PARTS_PER_THREAD * job->threads;
	}
	if (job->n_parts < 1)
		job->n_parts = 1;
	if (job->threads > job->n_parts)
		job->threads = (unsigned int)job->n_parts;
	job->parts = calloc(job->n_parts, sizeof(*job->parts));
	if (!job->parts)
		return -ENOMEM;
	for (i = 0; i < job->n_parts; i++) {
		job->parts[i].start = job->size / job->n_parts * i;
		job->parts[i].end = i + 1 == job->n_parts ? UINT64_MAX :
				    job->size / job->n_parts * (i + 1);
	}
	return 0;
}

/* Parse every part of the job, then gather, merge (unless a scan) and free them. */
static int run_job(struct parse_job *job, const char *name, const struct bb_list_opts *opts)
{
	size_t i;
	int err = cut_parts(job, opts);

	if (!err) {
		run_threads(parse_worker, job, job->threads);
		err = job->err;
	}
	if (job->parts) {
		int gathered = gather_parts(job, name, opts);

		if (gathered)
			err = gathered;
		if (!err && !job->sink)
			err = merge_parts(job);
		for (i = 0; i < job->n_parts; i++) {
			free(job->parts[i].notes);
			free(job->parts[i].note_text);
			bb_list_free(&job->parts[i].list);
		}
	}
	free(job->parts);
	free(job->dup);
	return err;
}

/* The head of the file a format is told from: pread, or the stream's first bytes. */
static int read_head(struct parse_job *job, bool regular, struct bb_reader *stream, char *buf,
		     const char **head, size_t *len, bool *whole)
{
	ssize_t n;

	if (!regular) {
		int err = bb_reader_peek(stream, BB_READER_HEAD, head, len);

		/* cppcheck-suppress nullPointer ; a stream is given whenever !regular */
		*whole = stream->eof;
		return err;
	}
	do
		n = pread(job->fd, buf, BB_READER_HEAD, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno ? -errno : -EIO;
	*head = buf;
	*len = (size_t)n;
	*whole = (__u64)n >= job->size;
	return 0;
}

/* The file's stat did not change while it was read: same size, same modification. */
static bool unchanged(int fd, const struct stat *before)
{
	struct stat now;

	return !fstat(fd, &now) && now.st_size == before->st_size &&
	       now.st_mtim.tv_sec == before->st_mtim.tv_sec &&
	       now.st_mtim.tv_nsec == before->st_mtim.tv_nsec;
}

static void fill_info(struct bb_file_info *info, const struct fmt_conf *conf,
		      enum bb_compression compression)
{
	info->format = conf->format;
	info->compression = compression;
	if (conf->format == BB_FORMAT_CSV && strtol(conf->column_name, NULL, 10) == conf->column + 1)
		snprintf(info->column, sizeof(info->column), "%d", conf->column + 1);
	else if (conf->format == BB_FORMAT_CSV)
		snprintf(info->column, sizeof(info->column), "%s (column %d)", conf->column_name,
			 conf->column + 1);
	else if (conf->format == BB_FORMAT_JSON)
		snprintf(info->column, sizeof(info->column), "%s", conf->column_name);
}

/*
 * Open, tell the format and the compression, parse. A regular file that is not
 * compressed is read in parts with pread; anything else is one stream.
 */
static int parse_path(struct bb_list *list, const char *path, const struct bb_list_opts *opts,
		      const struct bb_list_sink *sink, bool need_regular)
{
	static const struct bb_file_opts plain_opts = { 0 };
	bool is_stdin = !strcmp(path, "-"), regular, whole = false;
	const char *name = is_stdin ? "<stdin>" : path, *head = NULL, *why = NULL;
	FILE *report = opts ? opts->report : NULL;
	struct parse_job job = {
		.list = list, .report = report != NULL, .report_max = opts ? opts->report_max : 0,
		.threads = bb_list_threads(opts ? opts->threads : 0), .sink = sink,
		.info = opts ? opts->info : NULL,
	};
	enum bb_compression compression = BB_COMPRESSION_NONE;
	char content_why[sizeof(((struct bb_file_info *)0)->content_why)];
	enum bb_content content;
	struct fmt_conf *conf = NULL;
	struct bb_reader stream;
	char *head_buf = NULL;
	struct stat st;
	size_t hlen = 0;
	int err;

	memset(&stream, 0, sizeof(stream));
	if (job.info)
		memset(job.info, 0, sizeof(*job.info));
	job.fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	if (job.fd < 0 || fstat(job.fd, &st)) {
		err = -errno;
		goto out;
	}
	if (need_regular && !S_ISREG(st.st_mode)) {
		if (report)
			fprintf(report, "%s: not a regular file: cannot be read twice\n", name);
		err = -EINVAL;
		goto out_quiet;
	}
	job.size = (__u64)st.st_size;
	regular = S_ISREG(st.st_mode) && st.st_size > 0;
	job.max_entries = opts ? opts->max_entries : 0;
	job.entry_lines = opts ? opts->entries_before : 0;
	job.max_bytes = opts ? opts->max_bytes : 0;
	snprintf(job.entries_msg, sizeof(job.entries_msg), "more than %llu entries, the most a "
		 "load reads (--max-entries): refused", (unsigned long long)job.max_entries);
	snprintf(job.bytes_msg, sizeof(job.bytes_msg), "more than %llu bytes (inflated, if "
		 "compressed), the most a list may be (--max-list-size): refused",
		 (unsigned long long)job.max_bytes);
	if (regular && job.max_bytes && job.size > job.max_bytes) {
		if (report)
			fprintf(report, "%s: %s\n", name, job.bytes_msg);
		err = -EFBIG;
		goto out_quiet;
	}
	head_buf = calloc(1, BB_READER_HEAD);	/* zeroed: what pread did not fill is known */
	conf = malloc(sizeof(*conf));
	if (!head_buf || !conf) {
		err = -ENOMEM;
		goto out;
	}
	if (regular) {
		err = read_head(&job, true, NULL, head_buf, &head, &hlen, &whole);
		if (err)
			goto out;
		compression = bb_compression_of(head, hlen);
		/* compressed (or another archive: the stream says which): one stream */
		if (compression != BB_COMPRESSION_NONE || (hlen >= 3 && !memcmp(head, "BZh", 3)) ||
		    (hlen >= 4 && !memcmp(head, "PK\3\4", 4)))
			regular = false;
	}
	if (!regular) {
		job.stream = &stream;
		err = bb_reader_stream(&stream, job.fd);
		err = err ?: read_head(&job, false, &stream, NULL, &head, &hlen, &whole);
		if (err) {
			if (report)
				fprintf(report, "%s: %s\n", name, bb_reader_error(&stream));
			goto out_quiet;
		}
		compression = stream.compression;
	}
	/* binary data, an HTML page, a JSON error body: never read as a list */
	content = bb_content_of(head, hlen, whole, content_why, sizeof(content_why));
	if (content != BB_CONTENT_LIST) {
		if (job.info) {
			job.info->content = content;
			job.info->compression = compression;
			memcpy(job.info->content_why, content_why, sizeof(content_why));
		}
		if (report)
			fprintf(report, "%s: %s, not a list\n", name, content_why);
		err = -EMEDIUMTYPE;
		goto out_quiet;
	}
	err = fmt_detect(head, hlen, whole, opts ? &opts->file : &plain_opts, conf, &why);
	if (err) {
		if (report)
			fprintf(report, "%s: %s\n", name, why ? why : strerror(-err));
		goto out_quiet;
	}
	job.conf = conf;
	if (regular)
		posix_fadvise(job.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	err = run_job(&job, name, opts);
	if (err)
		goto out_quiet;	/* gather_parts() said what */
	if (S_ISREG(st.st_mode) && !unchanged(job.fd, &st)) {
		err = -ESTALE;
		if (report)
			fprintf(report, "%s: changed while it was read (rewritten in place): "
				"load it again\n", name);
		goto out_quiet;
	}
	if (job.info)
		fill_info(job.info, conf, compression);
	goto out_quiet;
out:
	if (report && err)
		fprintf(report, "%s: %s\n", name, strerror(-err));
out_quiet:
	if (job.stream)
		bb_reader_close(job.stream);
	if (!is_stdin && job.fd >= 0)
		close(job.fd);
	free(head_buf);
	free(conf);
	return err;
}

int bb_list_parse_file(struct bb_list *list, const char *path, const struct bb_list_opts *opts,
		       struct bb_list_counts *file_counts)
{
	struct bb_list_counts before = list->counts;
	int err = parse_path(list, path, opts, NULL, false);

	if (file_counts)
		counts_sub(file_counts, &list->counts, &before);
	return err;
}

int bb_list_scan_file(const char *path, const struct bb_list_opts *opts,
		      const struct bb_list_sink *sink, struct bb_list_counts *counts)
{
	struct bb_list parts_sum;
	int err;

	bb_list_init(&parts_sum);
	err = parse_path(&parts_sum, path, opts, sink, true);
	*counts = parts_sum.counts;
	bb_list_free(&parts_sum);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The steps load and build share (load.h): every list parsed, or streamed in two
 * passes, and its summary printed; the filter built (into the new map for load, in
 * memory for build); its key index. The commands call these; they never call each
 * other.
 */
#define _GNU_SOURCE	/* O_TMPFILE: the spool's file, gone with the process */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "load.h"
#include "outfile.h"
#include "progress.h"
#include "reader.h"
#include "state.h"

/* --stream auto: lists this large in all are streamed, smaller ones held in memory */
#define STREAM_MIN_BYTES	(1U << 20)
/* A compressed file's bytes, as a guess of what they inflate to: lists shrink 3-10x. */
#define COMPRESSED_RATIO	8

double load_elapsed(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) + (now.tv_nsec - since->tv_nsec) / 1e9;
}

static bool compressed(const char *path)
{
	unsigned char head[8] = { 0 };
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(head, 1, sizeof(head), f) : 0;

	if (f)
		fclose(f);
	return bb_compression_of(head, n) != BB_COMPRESSION_NONE;
}

/*
 * Stream when every list is a regular file (it can be read twice) and, for auto,
 * large: a compressed file counts as what it will likely inflate to.
 */
static bool want_stream(enum stream_when when, const struct list_args *la)
{
	unsigned long long total = 0;
	struct stat st;
	int i;

	if (when == STREAM_NEVER)
		return false;
	for (i = 0; i < la->n; i++) {
		const char *path = la->v[i].path;

		if (!strcmp(path, "-") || stat(path, &st) || !S_ISREG(st.st_mode))
			return false;
		total += (unsigned long long)st.st_size * (compressed(path) ? COMPRESSED_RATIO : 1);
	}
	return when == STREAM_ALWAYS || total >= STREAM_MIN_BYTES;
}

/* A pass of a streamed load over one list. */
struct stream_pass {
	struct bb_filter_stream *stream;	/* the second pass's */
	struct load_run *run;
	unsigned int src;	/* the list being scanned */
	size_t lines;		/* its lines in the parts so far */
};

/*
 * The first pass of a streamed load: each parse thread tallies on its own; with the
 * spool, each entry's keys are hashed and spooled too, and there is no second pass.
 */
static void tally_entry(void *ctx, unsigned int thread, const struct bb_entry *e)
{
	struct load_run *run = ((struct stream_pass *)ctx)->run;

	bb_key_tally_entry(&run->tallies[thread], e);
	if (run->spool)
		bb_spool_add(run->spool, thread, e);
}

static void tally_part(void *ctx, unsigned int thread, size_t part)
{
	struct load_run *run = ((struct stream_pass *)ctx)->run;

	if (run->spool)
		bb_spool_part(run->spool, thread, part);
}

static void stream_entry(void *ctx, unsigned int thread, const struct bb_entry *e)
{
	bb_filter_stream_add(((struct stream_pass *)ctx)->stream, thread, e);
}

static void stream_part(void *ctx, unsigned int thread, size_t part)
{
	bb_filter_stream_part(((struct stream_pass *)ctx)->stream, thread, part);
}

/* A part's lines, in order: where the next part's lines start, for the index. */
static void stream_part_lines(void *ctx, size_t part, size_t lines)
{
	struct stream_pass *sp = ctx;
	struct load_run *run = sp->run;
	size_t **base = &run->part_base[sp->src], *n = &run->n_parts[sp->src];

	if (part >= *n) {
		size_t *b = realloc(*base, (part + 1) * sizeof(**base));

		if (!b) {
			run->index.err = -ENOMEM;
			return;
		}
		*base = b;
		*n = part + 1;
	}
	(*base)[part] = sp->lines;
	sp->lines += lines;
}

/*
 * The spool's file: unnamed in the state directory, so that it goes with the process
 * however that ends. Where the file system has no O_TMPFILE, a name unlinked at once
 * (a kill in between leaves index.bin.tmp, which the next command sweeps).
 */
static int spool_file(void)
{
	char path[512];
	int fd = open(bb_state_dir(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd >= 0 ? fd : -errno;
	if (bb_state_path(path, sizeof(path), BB_STATE_INDEX ".tmp"))
		return -ENAMETOOLONG;
	fd = bb_tmp_open(path, 0600);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/*
 * A streamed load that keeps the index parses its lists once: the spool (filter.h).
 * Without one (--no-index, build, no spool file), the lists are parsed twice.
 */
static void spool_start(struct load_run *run)
{
	int fd, err;

	if (!run->streamed || run->o->no_index || run->o->build)
		return;
	fd = spool_file();
	err = fd < 0 ? fd : bb_spool_begin(&run->filter, fd, &run->fopts, &run->spool);
	if (err && bb_msg.debug)
		pr_info("no spool in %s (%s): the lists are parsed twice\n", bb_state_dir(),
			strerror(-err));
}

/*
 * 1. Every list parsed (or, streamed, scanned: counted and reported, nothing kept but
 * the spool's records), each one's summary printed. Nothing live is touched.
 */
int load_parse_lists(struct load_run *run)
{
	const struct list_args *la = &run->o->lists;
	struct timespec t0;
	size_t entries = 0, rejected;
	int i, err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* a filter file's allowlists are few and small: held in memory */
	run->streamed = !run->from_bbf && want_stream((enum stream_when)run->o->stream, la);
	if (run->streamed) {
		run->tallies = calloc(BB_LIST_MAX_THREADS, sizeof(*run->tallies));
		run->file_counts = calloc((unsigned int)la->n, sizeof(*run->file_counts));
		if (!run->tallies || !run->file_counts) {
			pr_err("out of memory\n");
			return -ENOMEM;
		}
		spool_start(run);
	}
	for (i = 0; i < la->n; i++) {
		struct stream_pass sp = { .run = run, .src = la->v[i].read.source };
		struct bb_list_sink sink = { .entry = tally_entry, .part = tally_part,
					     .part_lines = stream_part_lines, .ctx = &sp };

		run->lopts.entries_before = load_entries_read(&run->list.counts);
		struct bb_list_counts fc;
		struct bb_file_info info;
		json_t *file_json;

		if (run->from_bbf && i == run->bbf_index) {
			load_report_bbf(run, la->v[i].path);	/* read on its own */
			continue;
		}
		run->lopts.file = la->v[i].read;
		run->lopts.info = &info;
		if (run->streamed) {
			err = bb_list_scan_file(la->v[i].path, &run->lopts, &sink, &fc);
			run->file_counts[i] = fc;
			bb_list_counts_add(&run->list.counts, &fc);
		} else {
			err = bb_list_parse_file(&run->list, la->v[i].path, &run->lopts, &fc);
		}
		/* the reload guard: what is no list, what mostly does not read */
		reload_guard_list(&run->refusal, load_list_name(la->v[i].path), la->v[i].origin,
				  err, &fc, &info, run->o->allow_shrink);
		if (err == -EMEDIUMTYPE) {
			/* binary data, an HTML page, a JSON error body: said above, as such */
			pr_err("refused: %s: it is %s, not a list\n", load_list_name(la->v[i].path),
			       bb_content_what(info.content));
			run->lopts.info = NULL;
			return err;
		}
		if (err) {
			/* the parser said what in the file; this is what the load came to */
			pr_err("load stopped at %s: %s\n", load_list_name(la->v[i].path),
			       err == -ESTALE ? "it changed while it was read" :
			       err == -EBADMSG ? "its compressed data is corrupt or cut short" :
			       err == -E2BIG ? "the lists hold more entries than --max-entries" :
			       err == -EFBIG ? "it is larger than --max-list-size" :
			       strerror(-err));
			run->lopts.info = NULL;	/* info is this function's */
			return err;
		}
		file_json = load_report_file(la->v[i].path, &fc, &info, run->streamed);
		load_report_watched(file_json, la->v[i].path, &info, &run->guard, run->guard_on);
		json_object_set_new(file_json, "origin", json_string(la->v[i].origin));
		json_array_append_new(run->files_json, file_json);
	}
	run->lopts.info = NULL;
	/* run's arrays are cmd_load()'s to free: the analyzer loses them across the call */
	for (i = 0; run->streamed && i < BB_LIST_MAX_THREADS; i++)	/* NOLINT(clang-analyzer-unix.Malloc) */
		bb_key_tally_sum(&run->tally, &run->tallies[i]);
	for (i = 0; i < BB_ENTRY_KIND_MAX; i++)
		entries += run->list.counts.accepted[i];
	run->t_parse = load_elapsed(&t0);
	rejected = bb_list_rejected_total(&run->list.counts);
	if (run->o->strict && rejected) {
		pr_err("--strict: %zu rejected line%s (above)\n", rejected, rejected == 1 ? "" : "s");
		run->refusal.check = RELOAD_OK;	/* --strict's failure, not the guard's */
		return -EINVAL;
	}
	if (run->refusal.check == RELOAD_REJECTS) {
		pr_err("refused: %s\n", run->refusal.why);
		return -EINVAL;
	}
	if (!entries && !run->from_bbf) {
		pr_err("no usable entries in");
		for (i = 0; i < la->n; i++)
			pr_info(" %s", load_list_name(la->v[i].path));
		pr_info("\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * The second pass of a streamed load: every file parsed again, each entry's keys set
 * in the filter. A file must parse as it did in the first pass, or the filter planned
 * from that pass would not be this list's: then -ESTALE.
 */
static int stream_build(struct load_run *run)
{
	const struct list_args *la = &run->o->lists;
	struct bb_list_opts quiet = run->lopts;
	struct stream_pass sp = { .run = run };
	struct bb_list_sink sink = { .entry = stream_entry, .ctx = &sp, .part = stream_part,
				     .part_lines = stream_part_lines };
	struct bb_filter_stream *stream;
	int i, err, end;

	quiet.report = NULL;	/* the first pass reported */
	quiet.info = NULL;
	quiet.max_entries = 0;	/* the first pass kept to it; a file that grew is -ESTALE */
	quiet.entries_before = 0;
	run->fopts.index = run->o->no_index ? NULL : &run->index;
	err = bb_filter_stream_begin(&run->filter, &run->tally, &run->fopts, &stream);
	run->fopts.index = NULL;
	if (err)
		return err;
	sp.stream = stream;
	for (i = 0; i < la->n && !err; i++) {
		struct bb_list_counts again;

		sp.src = la->v[i].read.source;
		sp.lines = 0;
		quiet.file = la->v[i].read;
		err = bb_list_scan_file(la->v[i].path, &quiet, &sink, &again);
		if (!err && memcmp(&again, &run->file_counts[i], sizeof(again)))
			err = -ESTALE;
		if (err)
			pr_err("%s: %s\n", load_list_name(la->v[i].path), err == -ESTALE ?
			       "changed between the two passes of a streamed load: load it again" :
			       strerror(-err));
	}
	end = bb_filter_stream_end(stream, &run->repeats);
	if (!err && end)
		pr_err("the allowlist found no room for a key: the lists changed between the "
		       "two passes of a streamed load: load them again\n");
	return err ?: end;
}

static void build_error(int err)
{
	if (err == -E2BIG)
		pr_err("the list is too large or its prefix lengths too spread to build a "
		       "bounded filter\n");
	else if (err && err != -ESTALE)
		pr_err("cannot build the filter: %s\n", strerror(-err));
}

int load_index_spool(struct load_run *run)
{
	struct timespec t0;
	char path[512];
	int err;

	if (!run->spool)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = bb_spool_plan(run->spool, &run->tally, run->part_base, run->n_parts,
			    BB_INDEX_MAX_SOURCES);
	if (err) {
		build_error(err);
		return err;
	}
	run->index_err = bb_spool_error(run->spool);
	if (!run->index_err) {
		run->index_err = bb_state_path(path, sizeof(path), BB_STATE_INDEX);
		run->index_err = run->index_err ?: bb_index_file_create(&run->index_file, path);
		run->index_err = run->index_err ?: bb_spool_index(run->spool, &run->index_file,
								  &run->index_recs);
	}
	if (bb_spool_error(run->spool)) {
		/* records lost (a full state directory): two passes, as without a spool */
		if (bb_msg.debug)
			pr_info("the spool could not be written (%s): the lists are parsed "
				"again\n", strerror(-bb_spool_error(run->spool)));
		bb_index_file_abort(&run->index_file);
		bb_spool_free(run->spool);
		run->spool = NULL;
		run->index_err = 0;
	}
	run->t_index = load_elapsed(&t0);
	run->t_build += run->t_index;
	return 0;
}

/* 4. Build, setting the bits straight into the new map. */
int load_build_filter(struct load_run *run)
{
	struct timespec t0;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!run->o->build) {
		/* straight into the new map; build keeps it in memory, for the file */
		run->fopts.blocks_alloc = bb_filter_map_blocks;
		run->fopts.blocks_ctx = &run->fmap;
	}
	if (run->spool) {
		err = bb_spool_build(run->spool, &run->tally, &run->fopts,
				     run->index_file.fd >= 0 ? &run->index_file : NULL,
				     &run->repeats);
		/* its records are the index's now, or lost with it: the spool goes */
		bb_spool_free(run->spool);
		run->spool = NULL;
		if (run->index_err)
			bb_index_file_abort(&run->index_file);
	} else if (run->streamed) {
		err = stream_build(run);
	} else {
		err = bb_filter_build(&run->filter, &run->list, &run->fopts);
	}
	build_error(err);
	run->t_bits = load_elapsed(&t0);
	run->t_build += run->t_bits;
	return err;
}

/*
 * 6. The key index of the filter now live (what check and hit events attribute a hit
 * with): built on the in-memory list, or from the streamed pass's records, and
 * written to the state directory with the live generation and map. A failure here
 * leaves the new filter live and says the index is missing: `check` then says so.
 */
int load_index(struct load_run *run, const char **sources, unsigned int *n_src,
	       struct bb_index_meta *meta)
{
	const struct list_args *la = &run->o->lists;
	unsigned int i;

	*n_src = 0;
	for (i = 0; i < (unsigned int)la->n && i < BB_INDEX_MAX_SOURCES; i++)
		sources[(*n_src)++] = load_list_name(la->v[i].path);
	*meta = (struct bb_index_meta){ .seed = run->filter.hdr.seed,
					.generation = run->filter.hdr.generation,
					.map_id = run->filter.allow_hdr.map_id,
					.fp = run->fopts.fpr ? run->fopts.fpr : BB_FPR_DEFAULT };
	if (run->index_file.fd >= 0 || run->index_err)
		return run->index_err;	/* the spool's: sorted and written before the build */
	if (run->streamed)
		return run->index.err ?: bb_index_rebase(&run->index, run->part_base, run->n_parts,
							 BB_INDEX_MAX_SOURCES);
	return bb_filter_index(&run->filter, &run->list, run->o->threads, &run->index);
}

/* Entries the lists read so far hold (new, duplicate, allowlist): --max-entries counts them. */
__u64 load_entries_read(const struct bb_list_counts *c)
{
	__u64 n = c->duplicates;
	int k;

	for (k = 0; k < BB_ENTRY_KIND_MAX; k++)
		n += c->accepted[k] + c->allow[k];
	return n;
}

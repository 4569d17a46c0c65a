// SPDX-License-Identifier: GPL-2.0
/*
 * Live changes and filter files (tables 7a and 7b), on a settings.live_keys-key IPv4
 * filter (10^7; 10^6 in --quick). 7a: what bloomblock add and del do to the live
 * filter, through the library (filter_live.c): the key index as load writes it, then
 * round by round the first add after a load (no counting shadow kept: the open builds
 * it from the index), an add and a del of settings.live_items items (10^5; 10^4), each
 * open + stage + commit. 7b: the same list's filter as a filter file (.bbf): its open
 * (every checksum) and copy into fresh memory, beside a memcpy of the same bytes and a
 * rebuild from the list, all in this run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "bench_parts.h"
#include "bench_seq.h"
#include "bbf.h"
#include "pins.h"

#define LIVE_GENERATION	1	/* the image's and the index's */
#define LIVE_FP		0.001	/* the load's --fp in the index: add's --max-fp is twice it */
#define REBUILDS	3	/* rebuilds of the filter timed (the row says "3") */
#define BBF_SAMPLES	7	/* filter-file loads and copies timed (the rows say "7") */
#define SHADOW_HEADER	64	/* the shadow file's header (filter_live.c) */

enum { OP_FIRST_ADD, OP_ADD, OP_DEL, OP_MAX };

/* Where the part's files go: a directory of its own under $TMPDIR, else /dev/shm, a
 * tmpfs as /run (the CLI's state directory) is on a Debian install. */
struct live_files {
	char dir[256], index[320], shadow[320], bbf[320];
	char fs[32];			/* the directory's file system, for the notes */
};

/* One change's steps, s. */
struct op_times {
	double open, stage, commit;
};

/* ---- the part's setting: files, CPUs, items ---- */

static int files_make(struct live_files *f)
{
	const char *base = getenv("TMPDIR");
	struct statfs sfs;

	snprintf(f->dir, sizeof(f->dir), "%s/bbbench-live.XXXXXX", base && *base ? base : "/dev/shm");
	if (!mkdtemp(f->dir))
		return -errno;
	snprintf(f->index, sizeof(f->index), "%s/index.bin", f->dir);
	snprintf(f->shadow, sizeof(f->shadow), "%s/shadow.bin", f->dir);
	snprintf(f->bbf, sizeof(f->bbf), "%s/ip4.bbf", f->dir);
	if (statfs(f->dir, &sfs))
		snprintf(f->fs, sizeof(f->fs), "?");
	else if (sfs.f_type == 0x01021994)
		snprintf(f->fs, sizeof(f->fs), "tmpfs");
	else if (sfs.f_type == 0xEF53)
		snprintf(f->fs, sizeof(f->fs), "ext4");
	else
		snprintf(f->fs, sizeof(f->fs), "fs 0x%lx", (unsigned long)sfs.f_type);
	return 0;
}

static void files_remove(const struct live_files *f)
{
	const char *const paths[] = { f->index, f->shadow, f->bbf };
	char tmp[400];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		unlink(paths[i]);
		snprintf(tmp, sizeof(tmp), "%s.tmp", paths[i]);
		unlink(tmp);
	}
	rmdir(f->dir);
}

static double file_bytes(const char *path)
{
	struct stat st;

	return stat(path, &st) ? NAN : (double)st.st_size;
}

/* On every CPU, as the CLI runs (the load path does the same); back on one after. */
static void cpus_all(bool all)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	if (all) {
		for (i = 0; i < sysconf(_SC_NPROCESSORS_ONLN) && i < CPU_SETSIZE; i++)
			CPU_SET(i, &set);
	} else {
		CPU_SET(settings.cpu, &set);
	}
	if (sched_setaffinity(0, sizeof(set), &set))
		bench_warn("live rows: cannot set the CPUs: %s\n", strerror(errno));
}

/* n IPv4 /32s, as bench_list_ip4() makes them: members (miss 0) or non-members from first. */
static struct bb_entry *ip4_items(__u32 first, __u32 n, __u32 miss)
{
	struct bb_entry *e = calloc(n ? n : 1, sizeof(*e));
	__u32 j;

	for (j = 0; e && j < n; j++) {
		e[j].kind = BB_ENTRY_IP4;
		e[j].plen = 32;
		e[j].line = j + 1;
		bench_addr(first + j, miss, e[j].addr);
		memset(e[j].addr + 4, 0, 12);
	}
	return e;
}

/* ---- 7a: live add and delete ---- */

/*
 * One bloomblock add or del through the library: open (index read, shadow read or
 * built), stage every item, commit with add's default --max-fp (twice the load's
 * --fp). The close (frees) is left out: the CLI exits there.
 */
static int live_change(const struct live_files *f, struct bb_block *img,
		       const struct bb_entry *items, __u32 n, bool del, struct op_times *t,
		       bool *built, double *fp_worst)
{
	double fp[BB_CHECK_MAX], t0 = now_s(), max_fp;
	struct bb_live l;
	__u32 i, staged = 0;
	int err, c;

	err = bb_live_open(&l, img, f->index, f->shadow);
	t->open = now_s() - t0;
	if (err) {
		bench_warn("bb_live_open: %s\n", strerror(-err));
		return err;
	}
	*built = l.shadow_built;
	max_fp = 2 * (l.meta.fp > 0 ? l.meta.fp : BB_FPR_DEFAULT);
	t0 = now_s();
	for (i = 0; i < n && !err; i++) {
		const struct bb_index_rec *holder;
		int r = del ? bb_live_del(&l, &items[i], &holder) : bb_live_add(&l, &items[i]);

		if (r < 0)
			err = r;
		else
			staged += (__u32)r;
	}
	t->stage = now_s() - t0;
	if (!err && staged != n) {
		bench_warn("live %s: %u of %u items staged\n", del ? "del" : "add", staged, n);
		err = -EIO;
	}
	t0 = now_s();
	err = err ?: bb_live_commit(&l, f->index, f->shadow, max_fp, fp);
	t->commit = now_s() - t0;
	if (err)
		bench_warn("live %s of %u items: %s (worst check's rate %.5f, max %.5f)\n",
			   del ? "del" : "add", n, strerror(-err), fp[BB_CHECK_ADDR], max_fp);
	for (c = 0, *fp_worst = 0; c < BB_CHECK_MAX; c++)
		if (fp[c] > *fp_worst)
			*fp_worst = fp[c];
	bb_live_close(&l);
	return err;
}

/* The key index of the filter, as load writes it: built on 2 threads, then the file. */
static int index_write(const struct live_files *f, const struct bb_filter *filter,
		       const struct bb_list *list, double *build_s, double *write_s)
{
	const char *src = "bench ip4";
	struct bb_index_meta meta = { .seed = filter->hdr.seed, .generation = LIVE_GENERATION,
				      .fp = LIVE_FP };
	struct bb_index idx = { 0 };
	double t0 = now_s();
	int err;

	err = bb_filter_index(filter, list, 2, &idx);
	*build_s = now_s() - t0;
	t0 = now_s();
	err = err ?: bb_index_write_meta(&idx, f->index, &src, 1, &meta);
	*write_s = now_s() - t0;
	bb_index_free(&idx);
	return err;
}

/* Every item added in the last round matches in the image (no false negative). */
static __u32 unmatched(const struct bb_block *img, const struct bb_entry *items, __u32 n)
{
	__u32 i, miss = 0;

	for (i = 0; i < n; i++)
		miss += !bb_image_match_entry(img, &items[i]);
	return miss;
}

struct live_samples {
	double open[OP_MAX][MAX_ROUNDS], stage[OP_MAX][MAX_ROUNDS], commit[OP_MAX][MAX_ROUNDS];
	double total[OP_MAX][MAX_ROUNDS];
	bool built[OP_MAX][MAX_ROUNDS];
};

/*
 * Round r: the shadow removed (as load does), the first add of batch 2r (its open
 * builds the shadow); an add of batch 2r+1 and a del of members r*items.. (the shadow
 * the last commit wrote read back). Net, each round lists items more keys.
 */
static int live_rounds(const struct live_files *f, struct bb_block *img, __u32 items,
		       struct live_samples *s, struct live_results *res, __u32 *missing)
{
	static const char *const names[OP_MAX] = { "first add", "add", "del" };
	int r, op, err = 0;
	double fp;

	for (r = 0; r < settings.rounds && !err; r++) {
		for (op = 0; op < OP_MAX && !err; op++) {
			bool del = op == OP_DEL;
			__u32 first = del ? (__u32)r * items : (__u32)(2 * r + op) * items;
			struct bb_entry *e = ip4_items(first, items, !del);
			struct op_times t = { 0 };

			if (!e)
				return -ENOMEM;
			if (op == OP_FIRST_ADD)
				unlink(f->shadow);
			progress("live rows: round %d, %s of %u items", r + 1, names[op], items);
			err = live_change(f, img, e, items, del, &t, &s->built[op][r],
					  del ? &fp : &res->fp_after);	/* a del's is 0 */
			s->open[op][r] = t.open;
			s->stage[op][r] = t.stage;
			s->commit[op][r] = t.commit;
			s->total[op][r] = t.open + t.stage + t.commit;
			if (!err && op == OP_ADD && r == settings.rounds - 1)
				*missing = unmatched(img, e, items);
			free(e);
		}
	}
	return err;
}

static void live_row(struct table *t, const char *what, const char *keys, const char *items,
		     const char *open, const char *stage, const char *commit, const char *total,
		     const char *rate, const char *note)
{
	const char *cells[] = { what, keys, items, open, stage, commit, total, rate, note };

	table_add(t, cells);
}

static void op_rows(struct live_results *res, const struct live_samples *s, __u32 missing)
{
	static const char *const what[OP_MAX] = {
		"first add after a load: no shadow kept, the open builds it from the index",
		"add of new IPv4 /32s (shadow kept)",
		"del of listed IPv4 /32s (shadow kept)",
	};
	char c[8][BT_CELL], kn[16], in[16];
	int op, n = settings.rounds, r;

	pow10_name(res->keys, kn, sizeof(kn));
	pow10_name(res->items, in, sizeof(in));
	for (op = 0; op < OP_MAX; op++) {
		struct live_op *o = &res->op[op];

		st3_of(&o->open, s->open[op], n);
		st3_of(&o->stage, s->stage[op], n);
		st3_of(&o->commit, s->commit[op], n);
		st3_of(&o->total, s->total[op], n);
		for (r = 0, o->shadow_built = true; r < n; r++)
			o->shadow_built &= s->built[op][r] == (op == OP_FIRST_ADD);
		if (op == OP_FIRST_ADD)
			fmtf(c[6], BT_CELL, "shadow build %.3f s (its open over a kept shadow's, "
			     "paired)%s", res->shadow_build_s, o->shadow_built ? "" :
			     "; NOT as expected: shadow kept or built");
		else if (op == OP_ADD)
			fmtf(c[6], BT_CELL, "last round's %u items: %u unmatched; worst rate %.4f%%%s",
			     res->items, missing, 100 * res->fp_after,
			     o->shadow_built ? "" : "; shadow NOT read back");
		else
			fmtf(c[6], BT_CELL, "every item staged (held by the index)%s",
			     o->shadow_built ? "" : "; shadow NOT read back");
		live_row(&res->live_table, what[op], kn, in, st3_fmt(c[0], BT_CELL, &o->open, 3),
			 st3_fmt(c[1], BT_CELL, &o->stage, 3), st3_fmt(c[2], BT_CELL, &o->commit, 3),
			 st3_fmt(c[3], BT_CELL, &o->total, 3),
			 fmtf(c[4], BT_CELL, "%.0f k/s", res->items / o->total.med / 1e3), c[6]);
	}
}

/* Table 7a; the list's filter as load builds it with room for the rounds' adds. */
static int live_part(struct live_results *res, const struct live_files *f,
		     const struct bb_list *list)
{
	struct bb_filter_opts opts = { .seed = BENCH_SEED, .flags = BB_HDR_F_DROP, .threads = 2,
				       .capacity = (__u64)res->keys +
						   (__u64)settings.rounds * res->items };
	struct live_samples *s = calloc(1, sizeof(*s));
	double index_s = 0, write_s = 0, d[MAX_ROUNDS];
	struct bb_index_view v;
	struct bb_block *img = NULL;
	struct bb_filter filter;
	__u32 missing = 0;
	char c[8][BT_CELL], kn[16];
	size_t bytes;
	int err, r;

	if (!s)
		return -ENOMEM;
	progress("live rows: building the %u-key filter and its index", res->keys);
	err = bb_filter_build(&filter, list, &opts);
	if (err) {
		free(s);
		return err;
	}
	err = index_write(f, &filter, list, &index_s, &write_s);
	bytes = bb_filter_elements(filter.hdr.nblocks, filter.hdr.allow_blocks) * BB_BLOCK_BYTES;
	img = err ? NULL : calloc(1, bytes);
	if (!err && !img)
		err = -ENOMEM;
	if (!err) {
		bb_filter_write_image(&filter, img);
		((struct bb_header *)img)->generation = LIVE_GENERATION;
		live_row(&res->live_table, "the key index as load writes it (bb_filter_index on 2 "
			 "threads, then its file)", pow10_name(res->keys, kn, sizeof(kn)), "-", "-",
			 fmtf(c[0], BT_CELL, "%.3f (index)", index_s),
			 fmtf(c[1], BT_CELL, "%.3f (write)", write_s),
			 fmtf(c[2], BT_CELL, "%.3f", index_s + write_s),
			 fmtf(c[3], BT_CELL, "%.2f M keys/s", res->keys / (index_s + write_s) / 1e6),
			 fmtf(c[4], BT_CELL, "%.1f MB file, %.2f B/key; in %s", file_bytes(f->index) / 1e6,
			      file_bytes(f->index) / res->keys, f->fs));
		err = live_rounds(f, img, res->items, s, res, &missing);
	}
	if (!err) {
		for (r = 0; r < settings.rounds; r++)
			d[r] = s->open[OP_FIRST_ADD][r] - s->open[OP_ADD][r];
		res->shadow_build_s = median_of(d, settings.rounds);
		op_rows(res, s, missing);
		res->index_bytes = file_bytes(f->index);
		res->shadow_bytes = file_bytes(f->shadow);
		if (!bb_index_open(f->index, &v)) {
			res->keys_held = (double)v.n;
			bb_index_close(&v);
		}
		table_note(&res->live_table, "The library's path of bloomblock add and del "
			   "(filter_live.c) on a %u-key IPv4 filter (the IPv4 list's members, built "
			   "on 2 threads with --capacity %llu: room for the rounds' adds) in memory, "
			   "its index and counting shadow files in %s (%s). Each change: "
			   "bb_live_open (the index read; the shadow read, or built from the index "
			   "when none is kept), bb_live_add or bb_live_del of each item (entries in "
			   "memory: the CLI's parse of the items is not in it), bb_live_commit with "
			   "add's default --max-fp (%.3g, twice the load's --fp); the close is not. "
			   "%d rounds (median, min-max), each: the shadow removed, as a load does, "
			   "then the first add of %u non-members; an add of %u more; a del of %u "
			   "members. After the rounds the index holds %.0f records: its file %.0f B "
			   "(%.2f B/key), the shadow %.0f B (%.2f B/key: 4 bits a bit of the blocks). "
			   "Sized for the keys alone (table 7b's filter) the shadow would be %.0f B "
			   "(%.2f B/key).", res->keys, (unsigned long long)opts.capacity, f->dir,
			   f->fs, 2 * LIVE_FP, settings.rounds, res->items, res->items, res->items,
			   res->keys_held, res->index_bytes, res->index_bytes / res->keys_held,
			   res->shadow_bytes, res->shadow_bytes / res->keys_held,
			   res->plain_shadow_bytes, res->plain_shadow_bytes / res->keys);
	}
	free(img);
	free(s);
	bb_filter_free(&filter);
	return err;
}

/* ---- 7b: the filter file ---- */

struct bbf_samples {
	double fresh[BBF_SAMPLES], warm[BBF_SAMPLES], open[BBF_SAMPLES];
	double load[BBF_SAMPLES], as_load[BBF_SAMPLES], cold[BBF_SAMPLES];
	double rebuild[REBUILDS];
	double write_s;
	bool same;		/* the copies equal the image */
};

static void *fresh_memory(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* The file's pages out of the page cache (it was fsync'd: they are clean). */
static void file_evict(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
}

/* bbf_open, then (dst not NULL) a copy of its image into fresh memory; s until copied. */
static int bbf_load(const char *path, const void *image, size_t bytes, bool copy, double *s,
		    bool *same)
{
	size_t page = sysconf(_SC_PAGESIZE), len = (bytes + page - 1) / page * page;
	double t0 = now_s();
	struct bbf_file bf;
	char why[256];
	void *dst = NULL;
	int err;

	err = bbf_open(path, &bf, why, sizeof(why));
	if (err) {
		bench_warn("%s: %s\n", path, why);
		return err;
	}
	if (copy) {
		dst = fresh_memory(len);
		if (dst)
			memcpy(dst, bf.image, bf.image_bytes);
	}
	*s = now_s() - t0;
	if (copy && (!dst || bf.image_bytes != bytes || memcmp(dst, image, bytes)))
		*same = false;
	if (dst)
		munmap(dst, len);
	bbf_close(&bf);
	return copy && !dst ? -ENOMEM : 0;
}

/* What load does with a filter file: open and check it, a new map, the image copied in. */
static int bbf_as_load(const char *path, double *s)
{
	struct bb_filter_map fmap = { .fd = -1 };
	const struct bb_header *h;
	double t0 = now_s();
	struct bbf_file bf;
	char why[256];
	int err;

	err = bbf_open(path, &bf, why, sizeof(why));
	if (err) {
		bench_warn("%s: %s\n", path, why);
		return err;
	}
	h = (const void *)bf.image;
	err = bb_filter_map_create(&fmap, h->nblocks, h->allow_blocks);
	if (!err)
		memcpy(fmap.mem, bf.image, bf.image_bytes);
	*s = now_s() - t0;
	bb_filter_map_close(&fmap);
	bbf_close(&bf);
	return err;
}

/* BBF_SAMPLES rounds, each of every row in turn. */
static int bbf_rounds(const char *path, const void *image, size_t bytes, struct bbf_samples *s)
{
	size_t page = sysconf(_SC_PAGESIZE), len = (bytes + page - 1) / page * page;
	int i, err = 0;
	double t0;

	s->same = true;
	for (i = 0; i < BBF_SAMPLES && !err; i++) {
		void *dst = fresh_memory(len);

		if (!dst)
			return -ENOMEM;
		t0 = now_s();
		memcpy(dst, image, bytes);
		s->fresh[i] = now_s() - t0;
		t0 = now_s();
		memcpy(dst, image, bytes);
		s->warm[i] = now_s() - t0;
		munmap(dst, len);
		err = bbf_load(path, image, bytes, false, &s->open[i], &s->same);
		err = err ?: bbf_load(path, image, bytes, true, &s->load[i], &s->same);
		err = err ?: bbf_as_load(path, &s->as_load[i]);
		file_evict(path);
		err = err ?: bbf_load(path, image, bytes, true, &s->cold[i], &s->same);
	}
	return err;
}

static void bbf_row(struct table *t, const char *what, size_t bytes, const double *v, int n,
		    const double *fresh, double rebuild_s, const char *note)
{
	char c[6][BT_CELL];
	struct st3 st;
	const char *cells[7];

	st3_of(&st, v, n);
	cells[0] = what;
	cells[1] = fmtf(c[0], BT_CELL, "%zu", bytes);
	cells[2] = st3_fmt(c[1], BT_CELL, &st, 4);
	cells[3] = fmtf(c[2], BT_CELL, "%.2f", bytes / st.med / 1e9);
	cells[4] = fresh ? fmtf(c[3], BT_CELL, "%.2fx", paired(v, fresh, n, true)) : "-";
	cells[5] = ratio_fmt(c[4], BT_CELL, st.med, rebuild_s);
	cells[6] = note;
	table_add(t, cells);
}

/* Table 7b: the same list's filter as load builds it (sized for its keys), as a .bbf. */
static int bbf_part(struct live_results *res, const struct live_files *f,
		    const struct bb_list *list)
{
	struct bb_filter_opts opts = { .seed = BENCH_SEED, .flags = BB_HDR_F_DROP, .threads = 2 };
	struct bbf_samples *s = calloc(1, sizeof(*s));
	struct bb_filter filter;
	struct table *t = &res->bbf_table;
	void *image = NULL;
	char note[BT_CELL];
	size_t bytes = 0;
	double t0;
	int i, err = 0;

	if (!s)
		return -ENOMEM;
	for (i = 0; i < REBUILDS && !err; i++) {
		progress("filter file rows: rebuild %d of %d", i + 1, REBUILDS);
		if (i)
			bb_filter_free(&filter);
		t0 = now_s();
		err = bb_filter_build(&filter, list, &opts);
		s->rebuild[i] = now_s() - t0;
	}
	if (err) {
		free(s);
		return err;
	}
	res->plain_shadow_bytes = SHADOW_HEADER + (double)filter.hdr.nblocks * (BB_BLOCK_BITS / 2);
	bytes = bb_filter_elements(filter.hdr.nblocks, filter.hdr.allow_blocks) * BB_BLOCK_BYTES;
	image = calloc(1, bytes);
	if (!image)
		err = -ENOMEM;
	if (!err) {
		bb_filter_write_image(&filter, image);
		t0 = now_s();
		err = bbf_write(f->bbf, image, bytes, "{\"bloomblock\":\"bench\",\"lists\":[]}");
		s->write_s = now_s() - t0;
	}
	if (!err) {
		progress("filter file rows: %d rounds of loads and copies", BBF_SAMPLES);
		err = bbf_rounds(f->bbf, image, bytes, s);
	}
	if (!err) {
		res->bbf_bytes = bytes;
		res->rebuild_s = median_of(s->rebuild, REBUILDS);
		res->memcpy_fresh_s = median_of(s->fresh, BBF_SAMPLES);
		res->memcpy_warm_s = median_of(s->warm, BBF_SAMPLES);
		res->bbf_load_s = median_of(s->load, BBF_SAMPLES);
		res->bbf_x_memcpy = paired(s->load, s->fresh, BBF_SAMPLES, true);
		res->bbf_x_rebuild = res->bbf_load_s / res->rebuild_s;
		bbf_row(t, "rebuild from the list: bb_filter_build, 2 threads, entries in memory "
			"(3)", bytes, s->rebuild, REBUILDS, NULL, res->rebuild_s,
			fmtf(note, BT_CELL, "%u keys; no parse (the CLI's loads: table 5)",
			     res->keys));
		bbf_row(t, "bbf_write: checksums, write, fsync (once)", bytes, &s->write_s, 1, NULL,
			res->rebuild_s, fmtf(note, BT_CELL, "%.0f B file in %s", file_bytes(f->bbf),
					     f->fs));
		bbf_row(t, "memcpy of the image into fresh memory (page faults), median of 7", bytes,
			s->fresh, BBF_SAMPLES, s->fresh, res->rebuild_s, "the baseline");
		bbf_row(t, "memcpy of the image, memory already mapped", bytes, s->warm,
			BBF_SAMPLES, s->fresh, res->rebuild_s, "no page faults");
		bbf_row(t, "bbf_open alone: the file mapped, every checksum", bytes, s->open,
			BBF_SAMPLES, s->fresh, res->rebuild_s, "file in the page cache");
		bbf_row(t, "bbf_open + copy into fresh memory the map's size", bytes, s->load,
			BBF_SAMPLES, s->fresh, res->rebuild_s, s->same ? "the target's figure; "
			"copies equal the image" : "the target's figure; a copy DIFFERS");
		bbf_row(t, "as load does: bbf_open + a new map (bb_filter_map_create) + copy",
			bytes, s->as_load, BBF_SAMPLES, s->fresh, res->rebuild_s,
			"the map: created, zeroed, mapped by the kernel");
		bbf_row(t, "bbf_open + copy, the file's pages evicted first (POSIX_FADV_DONTNEED)",
			bytes, s->cold, BBF_SAMPLES, s->fresh, res->rebuild_s,
			fmtf(note, BT_CELL, "read from %s", f->fs));
		table_note(t, "The IPv4 list's %u-key filter as load builds it (sized for its keys), "
			   "written once with bbf_write to %s (%s). Then 7 rounds, each of every row "
			   "in turn: a memcpy of the image into fresh anonymous memory (page faults) "
			   "and again into the same memory; bbf_open alone (the file mapped, "
			   "magic, sizes and every XXH64 checked); bbf_open and a copy of its image "
			   "into fresh memory the map's size (the target's figure); what load does "
			   "with a filter file (bbf_open, bb_filter_map_create, the copy into the "
			   "map); and bbf_open + copy after the file's pages were dropped from the "
			   "page cache. Medians (min-max); x memcpy fresh: over the memcpy into fresh "
			   "memory of the same round, then the median; x rebuild: the medians' ratio "
			   "to the rebuild (bb_filter_build of the list's entries, 2 threads, "
			   "median of 3).", res->keys, f->bbf, f->fs);
	}
	free(image);
	free(s);
	bb_filter_free(&filter);
	return err;
}

int live_run(struct live_results *res)
{
	static const char *const live_cols[] = {
		"what", "keys", "items", "open s", "stage s", "commit s", "total s", "rate",
		"note", NULL,
	};
	static const char *const bbf_cols[] = {
		"what", "bytes", "s", "GB/s", "x memcpy fresh", "x rebuild", "note", NULL,
	};
	struct live_files f;
	struct bb_list list;
	char title[200], kn[16], in[16];
	int err;

	res->keys = settings.live_keys;
	res->items = settings.live_items;
	pow10_name(res->keys, kn, sizeof(kn));
	pow10_name(res->items, in, sizeof(in));
	table_init(&res->live_table, "live", fmtf(title, sizeof(title), "7a. Live add and "
		   "delete: %s items into a live %s-key IPv4 filter (s, median of %d rounds, "
		   "min-max)", in, kn, settings.rounds), 1, live_cols);
	table_init(&res->bbf_table, "bbf", fmtf(title, sizeof(title), "7b. Loading a filter "
		   "file (.bbf) of %s keys against a memcpy and a rebuild (same run)", kn), 1,
		   bbf_cols);
	if ((__u64)settings.rounds * res->items > res->keys ||
	    (__u64)2 * settings.rounds * res->items >= 1U << 31)
		return -ERANGE;
	err = files_make(&f);
	if (err) {
		bench_warn("live rows: a temp dir: %s\n", strerror(-err));
		return err;
	}
	cpus_all(true);
	err = bench_list_ip4(&list, res->keys);
	if (!err) {
		__u32 j;

		for (j = 0; j < res->keys; j++)
			list.entries[j].line = j + 1;	/* as a parsed list's */
		/* 7b first: its filter gives the shadow's size for the keys alone */
		err = bbf_part(res, &f, &list);
		err = err ?: live_part(res, &f, &list);
	}
	bb_list_free(&list);
	cpus_all(false);
	files_remove(&f);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * progcheck: does this kernel's verifier accept each program of these BPF objects,
 * and how much of its budget does each take? Each program is loaded on its own, from
 * a fresh open of its object with every other program's autoload off: libbpf creates
 * the object's maps as the loader's skeleton does (the filters' map-in-map, the
 * tail-call program arrays, the per-CPU scratch, .rodata/.bss), gives the program the
 * type and expected attach type of its section, and the kernel verifies it alone. An
 * extension (freplace/FUNC) is loaded against a target program: by default the first
 * program of freplace_target.bpf.o beside its object.
 *
 *   progcheck [OPTIONS] OBJ.bpf.o...             (root, or CAP_BPF + CAP_PERFMON)
 *     --max-pct P          a program that walks more than P% of the verifier's
 *                          1,000,000 instructions fails (the budget test)
 *     --log-lines N        lines of the verifier log shown for a refusal (default 30)
 *     --freplace-target OBJ[:PROG]   the program extensions attach to
 *     -d, --debug          libbpf's own messages on stderr
 *
 * Prints TAP, a line a program:
 *   ok N OBJ:PROG verified_insns=X (Y% of 1M) verifier_ms=T TYPE
 *   not ok N OBJ:PROG refused: ERROR      then, as TAP comments, the function the
 *       verifier was in, the failing source line (file:line from the object's BTF line
 *       info when the kernel's log does not name it), its message and the log's tail
 *   ok N OBJ:PROG # SKIP the kernel refuses extension programs: ...
 * and closes with "# progcheck: N verified, N failed, N skipped". Exit status 0 when
 * nothing failed, 1 otherwise, 2 for a usage error.
 *
 * verified_insns is the kernel's own count (bpf_prog_info, Linux 5.16+); older kernels
 * give 0 and the figure is read from the log's "processed N insns" line instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gelf.h>
#include <libelf.h>

#define VERIFIER_LIMIT 1000000u
/* Linux < 6.4 fails a load whose level-1 log overflows (ENOSPC); later ones keep its end */
#define LOG_BYTES (256u << 20)
#define MAX_PROGS 128
/* a refusal shows the source line it failed at and the distinct ones before it */
#define MAX_SRC_LINES 5

static char *log_buf;
static bool debug;
static double max_pct;
static int log_lines = 30;
static const char *freplace_target;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return debug ? vfprintf(stderr, fmt, ap) : 0;
}

/* The freplace target, loaded once: its object stays open while extensions load. */
static struct bpf_object *target_obj;
static int target_fd = -1;

static int target_load(const char *ext_path, char *err_msg, size_t err_len)
{
	char path[4096], *prog_name;
	struct bpf_program *prog;

	if (target_fd >= 0)
		return 0;
	if (freplace_target) {
		snprintf(path, sizeof(path), "%s", freplace_target);
	} else {
		char dir[4096];

		snprintf(dir, sizeof(dir), "%s", ext_path);
		snprintf(path, sizeof(path), "%s/freplace_target.bpf.o", dirname(dir));
	}
	prog_name = strrchr(path, ':');
	if (prog_name)
		*prog_name++ = '\0';
	target_obj = bpf_object__open_file(path, NULL);
	if (!target_obj || bpf_object__load(target_obj)) {
		snprintf(err_msg, err_len, "cannot load the freplace target %.300s: %s", path,
			 strerror(errno));
		return -errno;
	}
	prog = prog_name ? bpf_object__find_program_by_name(target_obj, prog_name) :
			   bpf_object__next_program(target_obj, NULL);
	if (!prog) {
		snprintf(err_msg, err_len, "%.300s has no program %.100s", path, prog_name ?: "");
		return -ENOENT;
	}
	target_fd = bpf_program__fd(prog);
	return 0;
}

struct result {
	int err;
	__u32 verified_insns;
	unsigned long verifier_us;
	char stack[48];		/* the log's "stack depth": each frame's bytes, A+B+C */
	char type[32];
	char msg[512];		/* why it did not load, when it is not the verifier */
};

/*
 * Load the idx-th program of path alone, the verifier's log at level (4: statistics
 * only, 1: every instruction walked) into log_buf.
 */
static void load_one(const char *path, int idx, __u32 level, struct result *res)
{
	struct bpf_program *prog, *me = NULL;
	struct bpf_object *obj;
	struct bpf_prog_info info = {};
	__u32 info_len = sizeof(info);
	int i = 0;

	memset(res, 0, sizeof(*res));
	log_buf[0] = '\0';
	obj = bpf_object__open_file(path, NULL);
	if (!obj) {
		res->err = -errno;
		snprintf(res->msg, sizeof(res->msg), "cannot open: %s", strerror(errno));
		return;
	}
	bpf_object__for_each_program(prog, obj) {
		bpf_program__set_autoload(prog, i == idx);
		if (i++ == idx)
			me = prog;
	}
	snprintf(res->type, sizeof(res->type), "%s",
		 libbpf_bpf_prog_type_str(bpf_program__type(me)) ?: "unknown");
	if (bpf_program__type(me) == BPF_PROG_TYPE_EXT) {
		const char *func = strchr(bpf_program__section_name(me), '/');

		res->err = target_load(path, res->msg, sizeof(res->msg));
		if (res->err)
			goto cleanup;
		bpf_program__set_attach_target(me, target_fd, func ? func + 1 : NULL);
	}
	bpf_program__set_log_buf(me, log_buf, LOG_BYTES);
	bpf_program__set_log_level(me, level);
	if (bpf_object__load(obj)) {
		res->err = -errno;
		goto cleanup;
	}
	if (!bpf_obj_get_info_by_fd(bpf_program__fd(me), &info, &info_len))
		res->verified_insns = info.verified_insns;
	if (!res->verified_insns) {	/* before 5.16: the log's count */
		const char *p = strstr(log_buf, "processed ");

		if (p)
			res->verified_insns = strtoul(p + strlen("processed "), NULL, 10);
	}
	{
		const char *p = strstr(log_buf, "verification time ");

		if (p)
			res->verifier_us = strtoul(p + strlen("verification time "), NULL, 10);
		/* "stack depth 64+256+32": each frame's, the main program's first */
		p = strstr(log_buf, "stack depth ");
		if (p)
			sscanf(p + strlen("stack depth "), "%47[0-9+]", res->stack);
	}
cleanup:
	bpf_object__close(obj);
}

/* The start of the line before p in buf (p itself if it starts buf). */
static const char *line_before(const char *buf, const char *p)
{
	if (p > buf)
		p--;
	while (p > buf && p[-1] != '\n')
		p--;
	return p;
}

static const char *line_end(const char *p)
{
	const char *e = strchr(p, '\n');

	return e ? e : p + strlen(p);
}

/* Trailing newlines, NULs and blanks off the log. */
static size_t log_len(const char *s)
{
	size_t len = strlen(s);

	while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
		len--;
	return len;
}

/*
 * The .BTF.ext line info of an object, searched by source text: where the kernel's log
 * prints a source line without its file and line (Linux < 6.8), the object's own line
 * info says where that text is. Returns how many places were written into out.
 */
struct btf_ext_header {
	__u16 magic;
	__u8 version;
	__u8 flags;
	__u32 hdr_len;
	__u32 func_info_off;
	__u32 func_info_len;
	__u32 line_info_off;
	__u32 line_info_len;
};

struct line_info {
	__u32 insn_off;
	__u32 file_name_off;
	__u32 line_off;
	__u32 line_col;
};

static int elf_section(Elf *elf, const char *name, Elf_Data **data)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			return -1;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name)) {
			*data = elf_getdata(scn, NULL);
			return *data ? 0 : -1;
		}
	}
	return -1;
}

static int source_places(const char *path, const char *text, size_t text_len, char *out,
			 size_t out_len)
{
	Elf_Data *ext_data, *btf_data;
	const struct btf_ext_header *hdr;
	struct btf *btf = NULL;
	const __u8 *p, *end;
	Elf *elf = NULL;
	int fd, found = 0;
	size_t used = 0, cwd_len;
	char cwd[4096];

	cwd_len = getcwd(cwd, sizeof(cwd)) ? strlen(cwd) : 0;

	out[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_section(elf, ".BTF.ext", &ext_data) || elf_section(elf, ".BTF", &btf_data))
		goto cleanup;
	btf = btf__new(btf_data->d_buf, btf_data->d_size);
	hdr = ext_data->d_buf;
	if (!btf || ext_data->d_size < sizeof(*hdr) || hdr->magic != 0xeB9F ||
	    (size_t)hdr->hdr_len + hdr->line_info_off + hdr->line_info_len > ext_data->d_size)
		goto cleanup;
	p = (const __u8 *)ext_data->d_buf + hdr->hdr_len + hdr->line_info_off;
	end = p + hdr->line_info_len;
	{
		__u32 rec_size = *(const __u32 *)p;

		for (p += 4; p + 8 <= end;) {	/* a section: name, count, records */
			__u32 n = ((const __u32 *)p)[1];

			p += 8;
			for (; n && p + rec_size <= end; n--, p += rec_size) {
				const struct line_info *li = (const void *)p;
				const char *line = btf__str_by_offset(btf, li->line_off);
				const char *file = btf__str_by_offset(btf, li->file_name_off);
				char place[512];

				while (line && (*line == ' ' || *line == '\t'))
					line++;
				if (!line || !file || strlen(line) != text_len ||
				    strncmp(line, text, text_len))
					continue;
				if (cwd_len && !strncmp(file, cwd, cwd_len) && file[cwd_len] == '/')
					file += cwd_len + 1;
				snprintf(place, sizeof(place), "%s:%u", file, li->line_col >> 10);
				if (strstr(out, place))
					continue;
				used += snprintf(out + used, out_len - used, "%s%s",
						 found ? ", " : "", place);
				found++;
				if (used >= out_len - 1 || found == 4)
					goto cleanup;
			}
		}
	}
cleanup:
	btf__free(btf);
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

/* One source line of the log, with its file and line: the kernel's, or the object's. */
static void print_source_line(const char *path, const char *what, const char *src)
{
	const char *e = line_end(src);
	char places[1024];

	printf("#   %s %.*s", what, (int)(e - src), src);
	if (!memmem(src, e - src, " @ ", 3) &&
	    source_places(path, src, e - src, places, sizeof(places)))
		printf(" @ %s", places);
	printf("\n");
}

/* The refusal as TAP comments: where, what, and the log's last lines. */
static void print_refusal(const char *path, const char *log)
{
	size_t len = log_len(log);
	const char *p, *func = NULL, *msg = NULL, *tail, *srcs[MAX_SRC_LINES];
	int n = 0, n_src = 0, i;

	/* the last global function the verifier started on, unless it passed it */
	for (p = log; (p = strstr(p, "Validating ")) && p < log + len; p++)
		func = p;
	if (func && strstr(func, "is global and valid"))
		func = NULL;
	if (func)
		printf("#   in: %.*s\n", (int)(line_end(func) - func), func);
	/*
	 * The source lines the log shows ("; TEXT", or "; TEXT @ FILE:LINE" from 6.8 on):
	 * the last is where it failed; the distinct ones before it, how it got there.
	 */
	for (p = log; p < log + len; p = line_end(p) + 1) {
		if (p[0] == ';' && p[1] == ' ' && line_end(p) - p > 2 && p[2] != ' ') {
			if (n_src == MAX_SRC_LINES)
				memmove(srcs, srcs + 1, sizeof(srcs[0]) * --n_src);
			if (!n_src || strncmp(srcs[n_src - 1], p + 2, line_end(p) - p - 2))
				srcs[n_src++] = p + 2;
		}
		if (!*line_end(p))
			break;
	}
	for (i = n_src - 1; i >= 0; i--)
		print_source_line(path, i == n_src - 1 ? "at:" : "from:", srcs[i]);
	/* the message: the last line before the statistics that close the log */
	p = log + len;
	while (p > log) {
		p = line_before(log, p);
		if (strncmp(p, "processed ", 10) && strncmp(p, "verification time", 17) &&
		    strncmp(p, "stack depth", 11) && strncmp(p, "mark_precise", 12) &&
		    strncmp(p, "-- END PROG LOAD LOG --", 23)) {
			msg = p;
			break;
		}
	}
	if (msg)
		printf("#   error: %.*s\n", (int)(line_end(msg) - msg), msg);
	for (tail = log + len; tail > log && n < log_lines; n++)
		tail = line_before(log, tail);
	if (tail < log + len)
		printf("#   verifier log, last %d lines:\n", n);
	for (p = tail; p < log + len; p = line_end(p) + 1)
		printf("#   | %.*s\n", (int)(line_end(p) - p), p);
}

struct prog_ref {
	const char *path;
	int idx;		/* -1: the object did not open, for open_err */
	int open_err;
	char name[128];
};

static const char *obj_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: progcheck [--max-pct P] [--log-lines N] [--freplace-target OBJ[:PROG]]"
		   " [-d] OBJ.bpf.o...\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "max-pct", required_argument, NULL, 'm' },
		{ "log-lines", required_argument, NULL, 'l' },
		{ "freplace-target", required_argument, NULL, 't' },
		{ "debug", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	static struct prog_ref progs[MAX_PROGS];
	int nprogs = 0, passed = 0, failed = 0, skipped = 0, c, i;

	while ((c = getopt_long(argc, argv, "dh", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			max_pct = strtod(optarg, NULL);
			break;
		case 'l':
			log_lines = atoi(optarg);
			break;
		case 't':
			freplace_target = optarg;
			break;
		case 'd':
			debug = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	log_buf = malloc(LOG_BYTES);
	if (!log_buf) {
		fprintf(stderr, "progcheck: out of memory\n");
		return 1;
	}
	libbpf_set_print(libbpf_print);

	/* every program first, for the plan line */
	for (i = optind; i < argc && nprogs < MAX_PROGS; i++) {
		struct bpf_object *obj = bpf_object__open_file(argv[i], NULL);
		struct bpf_program *prog;
		int idx = 0;

		if (!obj) {	/* one failing line for the object */
			progs[nprogs].path = argv[i];
			progs[nprogs].open_err = errno;
			progs[nprogs++].idx = -1;
			continue;
		}
		bpf_object__for_each_program(prog, obj) {
			if (nprogs == MAX_PROGS)
				break;
			progs[nprogs].path = argv[i];
			progs[nprogs].idx = idx++;
			snprintf(progs[nprogs++].name, sizeof(progs[0].name), "%s",
				 bpf_program__name(prog));
		}
		bpf_object__close(obj);
	}
	printf("1..%d\n", nprogs);
	fflush(stdout);

	for (i = 0; i < nprogs; i++) {
		const struct prog_ref *ref = &progs[i];
		struct result res;
		double pct;

		if (ref->idx < 0) {
			printf("not ok %d %s: cannot open: %s\n", i + 1, obj_name(ref->path),
			       strerror(ref->open_err));
			failed++;
			continue;
		}
		load_one(ref->path, ref->idx, 4, &res);
		if (!res.err) {
			pct = 100.0 * res.verified_insns / VERIFIER_LIMIT;
			if (max_pct > 0 && pct > max_pct) {
				printf("not ok %d %s:%s verified_insns=%u (%.1f%% of 1M): over the "
				       "budget of %g%%\n", i + 1, obj_name(ref->path), ref->name,
				       res.verified_insns, pct, max_pct);
				failed++;
			} else {
				printf("ok %d %s:%s verified_insns=%u (%.1f%% of 1M) verifier_ms=%lu"
				       " %s%s%s\n", i + 1, obj_name(ref->path), ref->name,
				       res.verified_insns, pct, res.verifier_us / 1000, res.type,
				       res.stack[0] ? " stack=" : "", res.stack);
				passed++;
			}
			fflush(stdout);
			continue;
		}
		if (res.msg[0]) {	/* refused before the verifier ran */
			printf("not ok %d %s:%s %s\n", i + 1, obj_name(ref->path), ref->name,
			       res.msg);
			failed++;
			continue;
		}
		if (res.err == -EPERM && !strcmp(res.type, "ext")) {
			printf("ok %d %s:%s # SKIP the kernel refuses extension (freplace) programs:"
			       " %s\n", i + 1, obj_name(ref->path), ref->name, strerror(EPERM));
			skipped++;
			continue;
		}
		printf("not ok %d %s:%s refused: %s (%d)\n", i + 1, obj_name(ref->path), ref->name,
		       strerror(-res.err), res.err);
		/*
		 * The statistics-only log has the message but not the instructions; the full
		 * one shows where. A program too large for the verifier gains nothing from
		 * it (its log would be the whole walk), so the short one stands.
		 */
		if (res.err != -E2BIG && !strstr(log_buf, "too large")) {
			struct result full;
			char *short_log = strdup(log_buf);

			load_one(ref->path, ref->idx, 1, &full);
			if (full.err == -ENOSPC && short_log) {	/* < 6.4: the log overflowed */
				printf("#   (the full log overflowed %u MiB: the short one)\n",
				       LOG_BYTES >> 20);
				snprintf(log_buf, LOG_BYTES, "%s", short_log);
			}
			free(short_log);
		}
		print_refusal(ref->path, log_buf[0] ? log_buf : "(no verifier log: -d shows "
							       "libbpf's messages)");
		failed++;
		fflush(stdout);
	}
	printf("# progcheck: %d verified, %d failed, %d skipped\n", passed, failed, skipped);
	if (target_obj)
		bpf_object__close(target_obj);
	free(log_buf);
	return failed ? 1 : 0;
}

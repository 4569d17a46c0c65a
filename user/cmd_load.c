// SPDX-License-Identifier: GPL-2.0
/* bloomblock load / unload: parse, build, attach, swap; and detach. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/stat.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "common.h"
#include "filter.h"
#include "list.h"
#include "options.h"
#include "pins.h"
#include "reader.h"

#define MAX_IFACES 16
/* --stream auto: lists this large in all are streamed, smaller ones held in memory */
#define STREAM_MIN_BYTES (1U << 20)

enum stream_when { STREAM_AUTO, STREAM_ALWAYS, STREAM_NEVER };

static void load_usage(FILE *out)
{
	fprintf(out,
		"Usage: bloomblock load LIST... [-i IFACE]... [OPTIONS]\n"
		"\n"
		"Build a Bloom filter from the blocklist files (\"-\" is stdin), attach it at XDP\n"
		"to each IFACE, and from then on drop (or flag) every packet whose source address\n"
		"is listed. On an instance that is already loaded, the new filter is built in\n"
		"full and swapped in with one atomic update; any failure leaves the old one live.\n"
		"Without -i, only the filter of the running instance is replaced.\n"
		"\n"
		"  -i, --interface IFACE   attach to IFACE (repeatable)\n"
		"  -m, --mode MODE         drop (default) or flag: count hits and pass them;\n"
		"                          a reload without --mode keeps the live mode\n"
		"      --fp P              target false-positive rate per key (default 0.001)\n"
		"      --strict            any rejected line is fatal\n"
		"      --format NAME       read the lists after it as NAME, not as detected from\n"
		"                          their content: auto (default), plain, hosts, adblock,\n"
		"                          p2p, dnsmasq, unbound, rpz, json, csv, ipset\n"
		"      --column NAME|N     CSV: the column (header name or 1-based number) to\n"
		"                          read; JSON lines: the key (default: chosen from the\n"
		"                          header, the keys or the content)\n"
		"      --urls-as-hosts     a URL entry blocks its whole host (DNS, TLS, HTTP),\n"
		"                          not only cleartext HTTP to that URL;\n"
		"                          --no-urls-as-hosts: not (the default)\n"
		"      --ipset-set NAMES   ipset files: load only these sets (comma-separated;\n"
		"                          default: every set)\n"
		"      --hook HOOK         where to attach on each -i: xdp (default: ingress),\n"
		"                          tc-ingress, tc-egress (a client or gateway screening\n"
		"                          what it sends); repeatable\n"
		"      --xdp-mode MODE     auto (default: native, else generic), native, generic\n"
		"      --addr WHICH        peer (default: the source at ingress, the destination\n"
		"                          at egress) or both\n"
		"      --dns-ports LIST    UDP ports of DNS queries to screen (default 53)\n"
		"      --tls-ports LIST    TCP ports of TLS ClientHellos (default 443)\n"
		"      --http-ports LIST   TCP ports of HTTP/1.x requests (default 80,8080)\n"
		"      --quic-ports LIST   UDP ports of QUIC Initials, counted (default 443)\n"
		"      --block-quic        drop QUIC Initials, so clients fall back to TCP+TLS\n"
		"      --mark N            in flag mode at tc, set this skb mark on hits\n"
		"  -v, --verbose           report every rejected line (default: the first 20 a file)\n"
		"      --seed N            hash seed (default: random), for reproducible filters\n"
		"  -t, --threads N         threads to parse and build with (default: one per\n"
		"                          online CPU)\n"
		"      --stream WHEN       auto (default: when the lists are regular files of\n"
		"                          1 MiB or more in all, a compressed one counted as\n"
		"                          8 times its size), always (regular files) or\n"
		"                          never: parse the files twice, count, then set bits,\n"
		"                          storing no entry; duplicates are then not looked for\n"
		"On a reload, --mode, --addr, ports, --mark and --block-quic keep their live values\n"
		"unless given. --format, --column, --urls-as-hosts and --ipset-set apply to the\n"
		"lists after them on the command line; given after the last list, to every list\n"
		"that none preceded. Lists may be gzip, xz or zstd compressed (told by their\n"
		"content). docs/FORMATS.md describes every format.\n");
}

/* The words of the options that name one of a few choices, in their enums' order. */
static const char *const mode_words[] = { "drop", "flag", NULL };
static const char *const xdp_mode_words[] = { "auto", "native", "generic", NULL };
static const char *const hook_words[] = { "xdp", "tc-ingress", "tc-egress", NULL };
static const char *const addr_words[] = { "peer", "both", NULL };
static const char *const stream_words[] = { "auto", "always", "never", NULL };

/* "53", "80,8080": at most BB_MAX_PORTS ports, 1..65535. */
static int parse_ports(const char *s, __u16 *ports)
{
	char *end;
	int n = 0;

	memset(ports, 0, BB_MAX_PORTS * sizeof(*ports));
	while (*s) {
		unsigned long v;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = strtoul(s, &end, 10);
		if (v < 1 || v > 65535 || n == BB_MAX_PORTS || (*end && *end != ',') ||
		    (*end == ',' && !end[1]))
			return -EINVAL;
		ports[n++] = (__u16)v;
		s = *end ? end + 1 : end;
	}
	return n ? 0 : -EINVAL;
}

/*
 * The pinned instance, opened or created (loading and verifying the programs takes
 * about a second) in a thread of its own while the lists are parsed.
 */
struct instance_job {
	struct bb_instance inst;
	bool may_create;	/* interfaces given: a missing instance is created */
	unsigned int families;	/* the program families the hooks need */
	bool tried_create, created;
	int err;
};

static void *instance_worker(void *arg)
{
	struct instance_job *job = arg;

	job->err = bb_instance_open(bb_opts.pin_dir, &job->inst);
	if (job->err == -ENOENT && job->may_create) {
		job->tried_create = true;
		job->err = bb_instance_create(bb_opts.pin_dir, &job->inst, job->families);
		job->created = !job->err;
	}
	return NULL;
}

static double elapsed(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) + (now.tv_nsec - since->tv_nsec) / 1e9;
}

/* "FILE (hosts, gzip): ", what a summary line starts with. */
static void print_file_head(const char *what, const struct bb_file_info *info)
{
	pr_info("%s (%s", what, bb_list_format_name(info->format));
	if (info->compression != BB_COMPRESSION_NONE)
		pr_info(", %s", bb_compression_name(info->compression));
	if (info->column[0])
		pr_info(", %s %s", info->format == BB_FORMAT_JSON ? "key" : "column", info->column);
	pr_info("): ");
}

static void print_counts(const char *what, const struct bb_list_counts *c,
			 const struct bb_file_info *info, bool streamed)
{
	char dups[48];
	size_t r;

	if (streamed)
		snprintf(dups, sizeof(dups), "duplicates not looked for (streamed)");
	else
		snprintf(dups, sizeof(dups), "%zu duplicates", c->duplicates);
	if (info)
		print_file_head(what, info);
	else
		pr_info("%s: ", what);
	pr_info("%zu line%s: ipv4 %zu, ipv6 %zu, names %zu, urls %zu", c->lines,
		c->lines == 1 ? "" : "s", c->accepted[BB_ENTRY_IP4], c->accepted[BB_ENTRY_IP6],
		c->accepted[BB_ENTRY_NAME], c->accepted[BB_ENTRY_URL]);
	if (c->ranges)
		pr_info(" (%zu address range%s as CIDRs)", c->ranges, c->ranges == 1 ? "" : "s");
	if (c->widened)
		pr_info(" (%zu URL%s widened to host blocks)", c->widened, c->widened == 1 ? "" : "s");
	pr_info("; %s, %zu comments, %zu blank, %zu hosts-file preamble", dups, c->comments,
		c->blank, c->preamble);
	if (bb_list_skipped_total(c)) {
		const char *sep = " (";

		pr_info(", %zu skipped", bb_list_skipped_total(c));
		for (r = 0; r < BB_SKIP_REASON_MAX; r++) {
			if (!c->skipped[r])
				continue;
			pr_info("%s%s %zu", sep, bb_skip_reason_name(r), c->skipped[r]);
			sep = ", ";
		}
		pr_info(")");
	}
	pr_info(", %zu rejected", bb_list_rejected_total(c));
	if (bb_list_rejected_total(c)) {
		const char *sep = " (";

		for (r = 0; r < BB_REJECT_REASON_MAX; r++) {
			if (!c->rejected[r])
				continue;
			pr_info("%s%s %zu", sep, bb_reject_reason_name(r), c->rejected[r]);
			sep = ", ";
		}
		pr_info(")");
	}
	pr_info("\n");
}

/* The lines of a class, counted. */
static size_t class_count(const struct bb_list_counts *c, enum bb_line_class class)
{
	switch (class) {
	case BB_CLASS_PREAMBLE:
		return c->preamble;
	case BB_CLASS_SKIPPED:
		/* the sets --ipset-set left out were left out on purpose */
		return bb_list_skipped_total(c) - c->skipped[BB_SKIP_OTHER_SET];
	default:
		return bb_list_rejected_total(c);
	}
}

/*
 * Most of the lines that are not blank or comments in one class that holds no entry:
 * almost always a format read wrong. The warning's text, or NULL.
 */
static const char *misread_warning(const char *what, const struct bb_list_counts *c,
				   const struct bb_file_info *info, char *buf, size_t size)
{
	size_t content = c->lines - c->blank - c->comments, n;
	int k;

	for (k = 0; k < BB_CLASS_MAX; k++) {
		n = class_count(c, k);
		if (!n || n * 2 <= content || !info->first[k].line)
			continue;
		snprintf(buf, size, "%s: %zu of %zu lines are %s, the first line %zu (%s): is it "
			 "not %s? Name its format with --format", what, n, content,
			 bb_line_class_name(k), info->first[k].line, info->first[k].text,
			 bb_list_format_name(info->format));
		return buf;
	}
	return NULL;
}

/* ipset files: the sets, what each holds and whether it was loaded. */
static void print_sets(const char *what, const struct bb_file_info *info, json_t *sets)
{
	unsigned int i;

	if (!info->n_sets)
		return;
	pr_info("  sets:");
	for (i = 0; i < info->n_sets; i++) {
		pr_info("%s %s %zu%s", i ? "," : "", info->sets[i].name, info->sets[i].entries,
			info->sets[i].chosen ? "" : " (not loaded)");
		json_array_append_new(sets, json_pack("{s:s, s:I, s:b}", "name", info->sets[i].name,
						      "entries", (json_int_t)info->sets[i].entries,
						      "loaded", info->sets[i].chosen));
	}
	pr_info("%s\n", info->more_sets ? ", and more" : "");
	if (info->missing_set)
		pr_warn("%s: no set %.*s in it (--ipset-set)\n", what,
			(int)strcspn(info->missing_set, ","), info->missing_set);
}

static json_t *counts_json(const struct bb_list_counts *c, bool streamed)
{
	json_t *accepted = json_object(), *rejected = json_object(), *skipped = json_object();
	size_t i;

	for (i = 0; i < BB_ENTRY_KIND_MAX; i++)
		json_object_set_new(accepted, bb_entry_kind_name(i), json_integer(c->accepted[i]));
	for (i = 0; i < BB_REJECT_REASON_MAX; i++)
		json_object_set_new(rejected, bb_reject_reason_name(i),
				    json_integer(c->rejected[i]));
	for (i = 0; i < BB_SKIP_REASON_MAX; i++)
		json_object_set_new(skipped, bb_skip_reason_name(i), json_integer(c->skipped[i]));
	/* streamed: no set, so no duplicate count (null), and "accepted" counts repeats */
	return json_pack("{s:I, s:o, s:o, s:I, s:I, s:I, s:o, s:o, s:I, s:I}",
			 "lines", (json_int_t)c->lines, "accepted", accepted, "duplicates",
			 streamed ? json_null() : json_integer((json_int_t)c->duplicates),
			 "comments", (json_int_t)c->comments, "blank", (json_int_t)c->blank,
			 "preamble", (json_int_t)c->preamble, "rejected", rejected,
			 "skipped", skipped, "ranges", (json_int_t)c->ranges,
			 "urls_widened", (json_int_t)c->widened);
}

/* The summary of one file: a line, the sets of an ipset file, a warning; and its JSON. */
static json_t *report_file(const char *path, const struct bb_list_counts *c,
			   const struct bb_file_info *info, bool streamed)
{
	json_t *sets = json_array(), *warnings = json_array();
	const char *warn;
	char buf[512];

	print_counts(path, c, info, streamed);
	print_sets(path, info, sets);
	warn = misread_warning(path, c, info, buf, sizeof(buf));
	if (warn) {
		pr_warn("%s\n", warn);
		json_array_append_new(warnings, json_string(warn));
	}
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "file", path,
			 "format", bb_list_format_name(info->format), "compression",
			 info->compression ? json_string(bb_compression_name(info->compression)) :
			 json_null(), "column", info->column[0] ? json_string(info->column) :
			 json_null(), "counts", counts_json(c, streamed), "sets", sets,
			 "warnings", warnings);
}

/* The first pass of a streamed load: each parse thread tallies on its own. */
static void tally_entry(void *ctx, unsigned int thread, const struct bb_entry *e)
{
	bb_key_tally_entry(&((struct bb_key_tally *)ctx)[thread], e);
}

/* The second pass: each entry's keys set in the new map as it is parsed. */
static void stream_entry(void *ctx, unsigned int thread, const struct bb_entry *e)
{
	bb_filter_stream_add(ctx, thread, e);
}

/* One list of the command line, and how it is read. */
struct list_arg {
	const char *path;
	struct bb_file_opts read;
};

/* A compressed file's bytes, as a guess of what they inflate to: lists shrink 3-10x. */
#define COMPRESSED_RATIO 8

static bool compressed(const char *path)
{
	unsigned char head[8];
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
static bool want_stream(enum stream_when when, const struct list_arg *lists, int n)
{
	unsigned long long total = 0;
	struct stat st;
	int i;

	if (when == STREAM_NEVER)
		return false;
	for (i = 0; i < n; i++) {
		if (!strcmp(lists[i].path, "-") || stat(lists[i].path, &st) || !S_ISREG(st.st_mode))
			return false;
		total += (unsigned long long)st.st_size *
			 (compressed(lists[i].path) ? COMPRESSED_RATIO : 1);
	}
	return when == STREAM_ALWAYS || total >= STREAM_MIN_BYTES;
}

/*
 * The second pass of a streamed load: every file parsed again, each entry's keys set
 * in the filter. A file must parse as it did in the first pass, or the filter planned
 * from that pass would not be this list's: then -ESTALE.
 */
static int stream_build(struct bb_filter *filter, const struct bb_key_tally *tally,
			const struct bb_filter_opts *fopts, const struct bb_list_opts *lopts,
			const struct list_arg *lists, int n, const struct bb_list_counts *first,
			__u64 *repeats)
{
	struct bb_list_opts quiet = *lopts;
	struct bb_filter_stream *stream;
	struct bb_list_sink sink = { .entry = stream_entry };
	int i, err;

	quiet.report = NULL;	/* the first pass reported */
	quiet.info = NULL;
	err = bb_filter_stream_begin(filter, tally, fopts, &stream);
	if (err)
		return err;
	sink.ctx = stream;
	for (i = 0; i < n && !err; i++) {
		struct bb_list_counts again;

		quiet.file = lists[i].read;
		err = bb_list_scan_file(lists[i].path, &quiet, &sink, &again);
		if (!err && memcmp(&again, &first[i], sizeof(again))) {
			pr_err("%s changed while it was loaded\n", lists[i].path);
			err = -ESTALE;
		}
		if (err && err != -ESTALE)
			pr_err("%s: %s\n", lists[i].path, strerror(-err));
	}
	*repeats = bb_filter_stream_end(stream);
	return err;
}

/*
 * The options that say how lists read apply to the lists after them; one given after
 * the last list applies to every list that none preceded.
 */
enum { READ_FORMAT, READ_COLUMN, READ_URLS, READ_SETS, READ_MAX };

struct list_args {
	struct list_arg *v;
	bool (*given)[READ_MAX];	/* per list: the option was given before it */
	int n;
	struct bb_file_opts cur;	/* as given so far */
	bool cur_given[READ_MAX];
	bool trail_given[READ_MAX];	/* given after the last list so far */
};

static void list_args_add(struct list_args *la, const char *path)
{
	la->v[la->n].path = path;
	la->v[la->n].read = la->cur;
	memcpy(la->given[la->n], la->cur_given, sizeof(la->cur_given));
	memset(la->trail_given, 0, sizeof(la->trail_given));
	la->n++;
}

static void list_args_given(struct list_args *la, int which)
{
	la->cur_given[which] = la->trail_given[which] = true;
}

/* What was given after the last list goes to the lists that nothing preceded. */
static void list_args_finish(struct list_args *la)
{
	int i;

	for (i = 0; i < la->n; i++) {
		struct bb_file_opts *r = &la->v[i].read;
		const bool *g = la->given[i];

		if (!g[READ_FORMAT] && la->trail_given[READ_FORMAT])
			r->format = la->cur.format;
		if (!g[READ_COLUMN] && la->trail_given[READ_COLUMN])
			r->column = la->cur.column;
		if (!g[READ_URLS] && la->trail_given[READ_URLS])
			r->urls_as_hosts = la->cur.urls_as_hosts;
		if (!g[READ_SETS] && la->trail_given[READ_SETS])
			r->sets = la->cur.sets;
	}
}

static void print_plens(const char *family, const struct bb_plen_plan *p)
{
	unsigned int i;

	if (!p->n_plens && !p->short_prefixes)
		return;
	pr_info("  %s probes:", family);
	for (i = 0; i < p->n_plens; i++)
		pr_info(" /%u", p->plens[i]);
	pr_info(" (at most %u Bloom lookup%s per packet)", p->n_plens, p->n_plens == 1 ? "" : "s");
	if (p->short_prefixes)
		pr_info(", %llu prefixes /16 or shorter in the exact short table",
			(unsigned long long)p->short_prefixes);
	pr_info("\n");
}

int cmd_load(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "interface", required_argument, NULL, 'i' },
		{ "mode", required_argument, NULL, 'm' },
		{ "fp", required_argument, NULL, 'f' },
		{ "strict", no_argument, NULL, 's' },
		{ "xdp-mode", required_argument, NULL, 'x' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "seed", required_argument, NULL, 'S' },
		{ "hook", required_argument, NULL, 'H' },
		{ "addr", required_argument, NULL, 'A' },
		{ "dns-ports", required_argument, NULL, 'D' },
		{ "tls-ports", required_argument, NULL, 'T' },
		{ "http-ports", required_argument, NULL, 'W' },
		{ "quic-ports", required_argument, NULL, 'Q' },
		{ "block-quic", no_argument, NULL, 'B' },
		{ "mark", required_argument, NULL, 'M' },
		{ "threads", required_argument, NULL, 't' },
		{ "stream", required_argument, NULL, 'R' },
		{ "format", required_argument, NULL, 'F' },
		{ "column", required_argument, NULL, 'C' },
		{ "urls-as-hosts", no_argument, NULL, 'U' },
		{ "no-urls-as-hosts", no_argument, NULL, 'u' },
		{ "ipset-set", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	bool hooks[BB_HOOK_MAX] = { false }, any_hook = false, given[BB_MAX_PORTS + 8] = { false };
	struct bb_config cfg;
	__u32 extra_flags = 0;
	const char *ifnames[MAX_IFACES];
	int ifindexes[MAX_IFACES], n_ifaces = 0, opt, i, c, err, ret = BB_EXIT_ERROR;
	struct bb_filter_opts fopts = { .fpr = BB_FPR_DEFAULT };
	struct bb_list_opts lopts = { .report = stderr, .report_max = 20 };
	enum bb_xdp_mode xdp_mode = BB_XDP_AUTO, used;
	struct instance_job ij = { .inst = { .filters_fd = -1, .stats_fd = -1, .prog_fd = -1,
					     .tc_ingress_fd = -1, .tc_egress_fd = -1 } };
	struct bb_instance *inst = &ij.inst;
	struct bb_filter_map fmap = { .fd = -1 };
	struct bb_filter filter = { 0 };
	pthread_t instance_tid;
	bool instance_thread = false;
	struct bb_list list;
	bool strict = false, mode_given = false, created = false, streamed = false;
	enum stream_when stream_when = STREAM_AUTO;
	struct bb_key_tally *tallies = NULL, tally = { 0 };
	struct bb_list_counts *file_counts = NULL;
	size_t entries;
	__u64 repeats = 0;
	bool attached_now[MAX_IFACES] = { false }, tc_attached_now[MAX_IFACES][2] = { { false } };
	struct timespec t0;
	double t_parse, t_build, t_push;
	json_t *files_json = NULL;
	char size_buf[32];
	struct list_args la = { .v = calloc((size_t)argc, sizeof(*la.v)),
				.given = calloc((size_t)argc, sizeof(*la.given)) };
	struct list_arg *lists = la.v;

	if (!la.v || !la.given) {
		pr_err("out of memory\n");
		free(la.v);
		free(la.given);
		return BB_EXIT_ERROR;
	}
	/* "-": lists come back in their place among the options (case 1) */
	while ((opt = getopt_long(argc, argv, "-i:m:vt:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 1:
			list_args_add(&la, optarg);
			break;
		case 'F':
			c = bb_list_format_parse(optarg);
			if (c < 0) {
				pr_err("--format: no format '%s' (auto, plain, hosts, adblock, p2p, "
				       "dnsmasq, unbound, rpz, json, csv, ipset)\n", optarg);
				goto out_usage;
			}
			la.cur.format = (enum bb_list_format)c;
			list_args_given(&la, READ_FORMAT);
			break;
		case 'C':
			if (!*optarg || strlen(optarg) > BB_LIST_COLUMN_MAX) {
				pr_err("--column wants a column name or number, at most %d bytes\n",
				       BB_LIST_COLUMN_MAX);
				goto out_usage;
			}
			la.cur.column = optarg;
			list_args_given(&la, READ_COLUMN);
			break;
		case 'U':
		case 'u':
			la.cur.urls_as_hosts = opt == 'U';
			list_args_given(&la, READ_URLS);
			break;
		case 'P':
			la.cur.sets = optarg;
			list_args_given(&la, READ_SETS);
			break;
		case 'i':
			if (n_ifaces == MAX_IFACES) {
				pr_err("at most %d interfaces per load\n", MAX_IFACES);
				goto out_usage;
			}
			ifnames[n_ifaces++] = optarg;
			break;
		case 'm':
			if ((c = bb_parse_choice("--mode", optarg, mode_words)) < 0)
				goto out_usage;
			fopts.flags = c == 0 ? BB_HDR_F_DROP : 0;
			mode_given = true;
			break;
		case 'f':
			if (bb_parse_fpr(optarg, &fopts.fpr))
				goto out_usage;
			break;
		case 's':
			strict = true;
			break;
		case 'x':
			if ((c = bb_parse_choice("--xdp-mode", optarg, xdp_mode_words)) < 0)
				goto out_usage;
			xdp_mode = (enum bb_xdp_mode)c;
			break;
		case 'v':
			lopts.report_max = 0;
			break;
		case 'S': {
			char *end;

			errno = 0;
			fopts.seed = strtoull(optarg, &end, 0);
			if (end == optarg || *end || errno || !fopts.seed) {
				pr_err("--seed wants a non-zero number, not '%s'\n", optarg);
				goto out_usage;
			}
			break;
		}
		case 'H':
			if ((c = bb_parse_choice("--hook", optarg, hook_words)) < 0)
				goto out_usage;
			hooks[c] = true;
			any_hook = true;
			break;
		case 'A':
			if ((c = bb_parse_choice("--addr", optarg, addr_words)) < 0)
				goto out_usage;
			if (c)
				extra_flags |= BB_HDR_F_ADDR_BOTH;
			given[0] = true;
			break;
		case 'D':
		case 'T':
		case 'W':
		case 'Q': {
			__u16 *ports = opt == 'D' ? fopts.config.dns_ports : opt == 'T' ?
				       fopts.config.tls_ports : opt == 'W' ?
				       fopts.config.http_ports : fopts.config.quic_ports;

			if (parse_ports(optarg, ports)) {
				pr_err("ports are a comma-separated list of at most %d ports "
				       "1-65535, not '%s'\n", BB_MAX_PORTS, optarg);
				goto out_usage;
			}
			given[opt == 'D' ? 1 : opt == 'T' ? 2 : opt == 'W' ? 3 : 4] = true;
			break;
		}
		case 'B':
			extra_flags |= BB_HDR_F_BLOCK_QUIC;
			given[5] = true;
			break;
		case 'M': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 0);

			if (*end || end == optarg || v > 0xffffffffUL) {
				pr_err("--mark wants a 32-bit number, not '%s'\n", optarg);
				goto out_usage;
			}
			fopts.config.mark = (__u32)v;
			given[6] = true;
			break;
		}
		case 't': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || end == optarg || v > BB_LIST_MAX_THREADS) {
				pr_err("--threads wants a number 0-%d (0: one per online CPU), "
				       "not '%s'\n", BB_LIST_MAX_THREADS, optarg);
				goto out_usage;
			}
			lopts.threads = fopts.threads = (unsigned int)v;
			break;
		}
		case 'R':
			if ((c = bb_parse_choice("--stream", optarg, stream_words)) < 0)
				goto out_usage;
			stream_when = (enum stream_when)c;
			break;
		case 'h':
			load_usage(stdout);
			ret = BB_EXIT_OK;
			goto out_args;
		default:
			load_usage(stderr);
			goto out_usage;
		}
	}
	list_args_finish(&la);
	if (!la.n) {
		pr_err("load needs at least one blocklist file\n");
		load_usage(stderr);
		goto out_usage;
	}
	if (bb_require_root() || bb_require_bpffs(bb_opts.pin_dir))
		goto out_args;
	if (!any_hook)
		hooks[BB_HOOK_XDP] = true;
	for (i = 0; i < n_ifaces; i++)
		if (bb_require_ifindex(ifnames[i], &ifindexes[i]))
			goto out_args;

	/*
	 * 1. Parse everything, while another thread opens the instance or loads the
	 * programs and pins them. Nothing live is touched until the filter is complete.
	 */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	bb_list_init(&list);
	ij.may_create = n_ifaces > 0;
	ij.families = (hooks[BB_HOOK_XDP] ? BB_FAMILY_XDP : 0) |
		      (hooks[BB_HOOK_TC_INGRESS] || hooks[BB_HOOK_TC_EGRESS] ? BB_FAMILY_TC : 0);
	instance_thread = !pthread_create(&instance_tid, NULL, instance_worker, &ij);
	if (!instance_thread)
		instance_worker(&ij);
	files_json = json_array();
	streamed = want_stream(stream_when, lists, la.n);
	if (streamed) {
		tallies = calloc(BB_LIST_MAX_THREADS, sizeof(*tallies));
		file_counts = calloc((unsigned int)la.n, sizeof(*file_counts));
		if (!tallies || !file_counts) {
			pr_err("out of memory; the live filter is unchanged\n");
			goto no_filter;
		}
	}
	for (i = 0; i < la.n; i++) {
		struct bb_list_counts fc;
		struct bb_file_info info;

		lopts.file = lists[i].read;
		lopts.info = &info;
		if (streamed) {
			/* first pass: count and report, keep nothing */
			struct bb_list_sink sink = { .entry = tally_entry, .ctx = tallies };

			err = bb_list_scan_file(lists[i].path, &lopts, &sink, &fc);
			file_counts[i] = fc;
			bb_list_counts_add(&list.counts, &fc);
		} else {
			err = bb_list_parse_file(&list, lists[i].path, &lopts, &fc);
		}
		if (err) {
			/* the parser said which file and why */
			pr_err("load stopped; the live filter is unchanged\n");
			goto no_filter;
		}
		json_array_append_new(files_json, report_file(lists[i].path, &fc, &info, streamed));
	}
	lopts.info = NULL;
	for (i = 0; streamed && i < BB_LIST_MAX_THREADS; i++)
		bb_key_tally_sum(&tally, &tallies[i]);
	for (i = 0, entries = 0; i < BB_ENTRY_KIND_MAX; i++)
		entries += list.counts.accepted[i];
	t_parse = elapsed(&t0);
	if (strict && bb_list_rejected_total(&list.counts)) {
		pr_err("--strict: %zu rejected line%s (above); the live filter is unchanged\n",
		       bb_list_rejected_total(&list.counts),
		       bb_list_rejected_total(&list.counts) == 1 ? "" : "s");
		goto no_filter;
	}
	if (!entries) {
		pr_err("no usable entries in");
		for (i = 0; i < la.n; i++)
			pr_info(" %s", lists[i].path);
		pr_info("; the live filter is unchanged\n");
		goto no_filter;
	}

	/* 2. The instance: the pinned one, or the programs just loaded and pinned. */
	if (instance_thread)
		pthread_join(instance_tid, NULL);
	instance_thread = false;
	created = ij.created;
	err = ij.err;
	if (err && ij.tried_create) {
		goto cleanup;	/* bb_instance_create() said why */
	} else if (err == -ENOENT) {
		pr_err("nothing is loaded under %s yet: give an interface with -i\n",
		       bb_opts.pin_dir);
		ret = BB_EXIT_USAGE;
		goto cleanup;
	} else if (err) {
		pr_err("cannot open the pinned state in %s: %s\n", bb_opts.pin_dir, strerror(-err));
		goto cleanup;
	}
	/*
	 * What was not given keeps its live value on a reload; else the defaults. An
	 * instance loaded by another bloomblock version runs programs that refuse this
	 * version's filter (they would pass every packet, counting no_filter): refuse to
	 * swap one in. Its live filter says which version loaded it.
	 */
	bb_config_defaults(&cfg);
	if (!created) {
		struct bb_image live;

		if (bb_image_open(inst, &live) == 0) {
			const struct bb_header *hdr = (const void *)live.blocks;
			__u32 abi = hdr->magic == BB_MAGIC ? hdr->abi_version : BB_ABI_VERSION;

			if (abi != BB_ABI_VERSION) {
				bb_image_close(&live);
				pr_err("the instance in %s was loaded by another bloomblock version "
				       "(filter ABI %u, this one %u): unload it (bloomblock unload "
				       "--all) and load again; the live filter is unchanged\n",
				       bb_opts.pin_dir, abi, BB_ABI_VERSION);
				goto cleanup;
			}
			if (!mode_given)
				fopts.flags = hdr->flags & BB_HDR_F_DROP;
			if (!given[0])
				extra_flags |= hdr->flags & BB_HDR_F_ADDR_BOTH;
			if (!given[5])
				extra_flags |= hdr->flags & BB_HDR_F_BLOCK_QUIC;
			memcpy(&cfg, &live.blocks[BB_CONFIG_INDEX], sizeof(cfg));
			bb_image_close(&live);
		}
		/* a hook of a family the instance has not loaded yet (tc after XDP, or XDP
		 * after tc) */
		if (n_ifaces > 0) {
			err = bb_instance_add(inst, ij.families);
			if (err) {
				pr_err("the live filter is unchanged\n");
				goto cleanup;
			}
		}
	} else if (!mode_given) {
		fopts.flags = BB_HDR_F_DROP;
	}
	fopts.flags |= extra_flags;
	if (given[1])
		memcpy(cfg.dns_ports, fopts.config.dns_ports, sizeof(cfg.dns_ports));
	if (given[2])
		memcpy(cfg.tls_ports, fopts.config.tls_ports, sizeof(cfg.tls_ports));
	if (given[3])
		memcpy(cfg.http_ports, fopts.config.http_ports, sizeof(cfg.http_ports));
	if (given[4])
		memcpy(cfg.quic_ports, fopts.config.quic_ports, sizeof(cfg.quic_ports));
	if (given[6])
		cfg.mark = fopts.config.mark;
	fopts.config = cfg;

	/* 3. Build, setting the bits straight into the new map. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fopts.blocks_alloc = bb_filter_map_blocks;
	fopts.blocks_ctx = &fmap;
	if (streamed)
		err = stream_build(&filter, &tally, &fopts, &lopts, lists, la.n, file_counts,
				   &repeats);
	else
		err = bb_filter_build(&filter, &list, &fopts);
	if (err) {
		if (err == -E2BIG)
			pr_err("the list is too large or its prefix lengths too spread to build a "
			       "bounded filter; the live filter is unchanged\n");
		else if (err == -ESTALE)
			pr_err("a list changed between the two passes of a streamed load; load it "
			       "again; the live filter is unchanged\n");
		else
			pr_err("cannot build the filter: %s; the live filter is unchanged\n",
			       strerror(-err));
		goto rollback;
	}
	t_build = elapsed(&t0);

	/*
	 * 4. Attach where not attached yet, then swap. A new instance gets its filter
	 * first, so a fresh attachment never runs without one; on an existing instance
	 * the swap comes last, so a failed attach leaves the old filter and its
	 * interfaces exactly as they were.
	 */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (created) {
		err = bb_filter_swap(inst, &filter, &fmap);
		if (err)
			goto rollback;
	}
	for (i = 0; i < n_ifaces; i++) {
		int egress;

		for (egress = 0; egress < 2; egress++) {
			if (!hooks[egress ? BB_HOOK_TC_EGRESS : BB_HOOK_TC_INGRESS] ||
			    bb_tc_attached(bb_opts.pin_dir, ifindexes[i], egress))
				continue;
			err = bb_tc_attach(inst, ifindexes[i], egress);
			if (err)
				goto rollback;
			tc_attached_now[i][egress] = true;
			pr_info("%s: attached (tc %s)\n", ifnames[i], egress ? "egress" : "ingress");
		}
		if (!hooks[BB_HOOK_XDP])
			continue;
		if (bb_attached(bb_opts.pin_dir, ifnames[i])) {
			enum bb_xdp_mode now = bb_xdp_mode_of(ifindexes[i]);

			if (xdp_mode != BB_XDP_AUTO && now != BB_XDP_AUTO && now != xdp_mode)
				pr_warn("%s is attached in %s XDP mode already; --xdp-mode %s takes "
					"effect after: bloomblock unload -i %s\n", ifnames[i],
					bb_xdp_mode_name(now), bb_xdp_mode_name(xdp_mode), ifnames[i]);
			continue;
		}
		err = bb_attach(inst, ifnames[i], ifindexes[i], xdp_mode, &used);
		if (err)
			goto rollback;
		attached_now[i] = true;
		pr_info("%s: attached (%s XDP)\n", ifnames[i], bb_xdp_mode_name(used));
	}
	if (!created) {
		err = bb_filter_swap(inst, &filter, &fmap);
		if (err)
			goto rollback;
	}
	t_push = elapsed(&t0);

	pr_info("filter: %llu keys in %u blocks, %s, %.2f bits/key, k=%u, "
		"predicted FPR %.3g per key lookup; generation %llu, mode %s\n",
		(unsigned long long)filter.hdr.items, filter.hdr.nblocks,
		bb_human_bytes(filter.plan.map_bytes, size_buf, sizeof(size_buf)),
		filter.plan.bits_per_key, filter.hdr.k,
		filter.plan.fpr, (unsigned long long)filter.hdr.generation,
		filter.hdr.flags & BB_HDR_F_DROP ? "drop" : "flag");
	if (streamed)
		pr_info("  streamed: sized for every valid entry, repeats included; %llu keys "
			"found their bits set already (repeated entries or Bloom collisions: "
			"approximate)\n", (unsigned long long)repeats);
	print_plens("IPv4", &filter.v4);
	print_plens("IPv6", &filter.v6);
	pr_info("timing: parse %.3fs, build %.3fs, push %.3fs\n", t_parse, t_build, t_push);
	if (bb_opts.json) {
		json_t *j = json_pack(
			"{s:o, s:o, s:{s:I, s:I, s:I, s:I, s:f, s:f, s:s, s:I}, "
			"s:{s:f, s:f, s:f}}",
			"files", files_json, "total", counts_json(&list.counts, streamed),
			"filter", "keys", (json_int_t)filter.hdr.items,
			"blocks", (json_int_t)filter.hdr.nblocks,
			"bytes", (json_int_t)filter.plan.map_bytes,
			"k", (json_int_t)filter.hdr.k, "bits_per_key", filter.plan.bits_per_key,
			"fpr", filter.plan.fpr,
			"mode", filter.hdr.flags & BB_HDR_F_DROP ? "drop" : "flag",
			"generation", (json_int_t)filter.hdr.generation,
			"seconds", "parse", t_parse, "build", t_build, "push", t_push);

		if (j) {
			json_object_set_new(j, "streamed", json_boolean(streamed));
			if (streamed)
				json_object_set_new(json_object_get(j, "filter"),
						    "repeated_or_colliding_keys",
						    json_integer((json_int_t)repeats));
		}
		bb_json_print(j);
		files_json = NULL;
	}
	ret = BB_EXIT_OK;
	goto cleanup;

rollback:
	for (i = 0; i < n_ifaces; i++) {
		if (attached_now[i])
			bb_detach(bb_opts.pin_dir, ifnames[i]);
		if (tc_attached_now[i][0])
			bb_tc_detach(bb_opts.pin_dir, ifindexes[i], 0);
		if (tc_attached_now[i][1])
			bb_tc_detach(bb_opts.pin_dir, ifindexes[i], 1);
	}
	if (created) {
		bb_instance_close(inst);
		bb_instance_remove(bb_opts.pin_dir);
	} else {
		pr_err("the live filter is unchanged\n");
	}
	goto cleanup;

no_filter:
	/* the instance thread may have pinned a new instance: no filter for it */
	if (instance_thread)
		pthread_join(instance_tid, NULL);
	instance_thread = false;
	if (ij.created) {
		bb_instance_close(inst);
		bb_instance_remove(bb_opts.pin_dir);
	}
cleanup:
	if (instance_thread)
		pthread_join(instance_tid, NULL);
	json_decref(files_json);
	bb_filter_free(&filter);
	bb_filter_map_close(&fmap);
	bb_instance_close(inst);
	bb_list_free(&list);
	free(tallies);
	free(file_counts);
out_args:
	free(la.v);
	free(la.given);
	return ret;
out_usage:
	ret = BB_EXIT_USAGE;
	goto out_args;
}

static void unload_usage(FILE *out)
{
	fprintf(out,
		"Usage: bloomblock unload -i IFACE... | --all\n"
		"\n"
		"Detach bloomblock from the interfaces. When no interface is left, or with --all,\n"
		"the pinned filter and counters are removed too.\n"
		"\n"
		"  -i, --interface IFACE   detach from IFACE (repeatable)\n"
		"  -a, --all               detach everywhere and remove all state\n");
}

int cmd_unload(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "interface", required_argument, NULL, 'i' },
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct bb_attachment att[64];
	const char *ifnames[MAX_IFACES];
	int n_ifaces = 0, opt, i, n, err, ret = BB_EXIT_OK;
	bool all = false;

	while ((opt = getopt_long(argc, argv, "i:ah", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			if (n_ifaces == MAX_IFACES)
				return BB_EXIT_USAGE;
			ifnames[n_ifaces++] = optarg;
			break;
		case 'a':
			all = true;
			break;
		case 'h':
			unload_usage(stdout);
			return BB_EXIT_OK;
		default:
			unload_usage(stderr);
			return BB_EXIT_USAGE;
		}
	}
	if (optind != argc || (!all && !n_ifaces) || (all && n_ifaces)) {
		unload_usage(stderr);
		return BB_EXIT_USAGE;
	}
	if (bb_require_root() || bb_require_bpffs(bb_opts.pin_dir))
		return BB_EXIT_ERROR;

	if (access(bb_opts.pin_dir, F_OK)) {
		if (all) {
			pr_info("nothing is loaded under %s\n", bb_opts.pin_dir);
			return BB_EXIT_OK;
		}
		pr_err("nothing is loaded under %s\n", bb_opts.pin_dir);
		return BB_EXIT_ERROR;
	}
	if (all) {
		n = bb_attachments(bb_opts.pin_dir, att, 64);
		for (i = 0; i < n; i++) {
			if (att[i].hook == BB_HOOK_XDP)
				bb_detach(bb_opts.pin_dir, att[i].ifname);
			else
				bb_tc_detach(bb_opts.pin_dir, att[i].ifindex,
					     att[i].hook == BB_HOOK_TC_EGRESS);
		}
	}
	for (i = 0; i < n_ifaces; i++) {
		int ifindex = (int)if_nametoindex(ifnames[i]), tc_gone = 0;

		if (ifindex) {
			tc_gone += !bb_tc_detach(bb_opts.pin_dir, ifindex, 0);
			tc_gone += !bb_tc_detach(bb_opts.pin_dir, ifindex, 1);
		}
		err = bb_detach(bb_opts.pin_dir, ifnames[i]);
		if (err == -ENOENT && tc_gone) {
			pr_info("%s: detached\n", ifnames[i]);
		} else if (err == -ENOENT) {
			pr_err("%s: bloomblock is not attached there (bloomblock status)\n",
			       ifnames[i]);
			ret = BB_EXIT_ERROR;
		} else if (err) {
			pr_err("%s: cannot detach: %s\n", ifnames[i], strerror(-err));
			ret = BB_EXIT_ERROR;
		} else {
			pr_info("%s: detached\n", ifnames[i]);
		}
	}
	if (all || bb_attachments(bb_opts.pin_dir, att, 64) == 0) {
		err = bb_instance_remove(bb_opts.pin_dir);
		if (err) {
			pr_err("cannot remove %s: %s\n", bb_opts.pin_dir, strerror(-err));
			ret = BB_EXIT_ERROR;
		} else if (all) {
			pr_info("removed %s\n", bb_opts.pin_dir);
		}
	}
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * bloomblock load: a pipeline. Options from a table into struct load_opts; then parse
 * the lists while a thread opens or creates the instance; open it; merge the live
 * config; build the filter straight into a new map; attach where needed and swap;
 * report. Nothing live changes before the swap, and any failure undoes what the run
 * itself made.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "guard.h"
#include "load.h"
#include "state.h"
#include "options.h"
#include "reader.h"

/* --stream auto: lists this large in all are streamed, smaller ones held in memory */
#define STREAM_MIN_BYTES	(1U << 20)
/* A compressed file's bytes, as a guess of what they inflate to: lists shrink 3-10x. */
#define COMPRESSED_RATIO	8

/* ---- options ---- */

static const char *const mode_words[] = { "drop", "flag", NULL };
static const char *const xdp_mode_words[] = { "auto", "native", "generic", NULL };
static const char *const addr_words[] = { "peer", "both", NULL };
static const char *const stream_words[] = { "auto", "always", "never", NULL };

/* "53", "80,8080": at most BB_MAX_PORTS ports, 1..65535. */
static int opt_ports(void *opts, const struct bb_option *o, const char *arg)
{
	__u16 *ports = BB_OPT_FIELD(opts, o, __u16);
	const char *s = arg;
	char *end;
	int n = 0;

	memset(ports, 0, BB_MAX_PORTS * sizeof(*ports));
	while (*s) {
		unsigned long v;

		if (*s < '0' || *s > '9')
			break;
		v = strtoul(s, &end, 10);
		if (v < 1 || v > 65535 || n == BB_MAX_PORTS || (*end && *end != ',') ||
		    (*end == ',' && !end[1]))
			break;
		ports[n++] = (__u16)v;
		s = *end ? end + 1 : end;
	}
	if (*s || !n) {
		pr_err("--%s is a comma-separated list of at most %d ports 1-65535, not '%s'\n",
		       o->name, BB_MAX_PORTS, arg);
		return -EINVAL;
	}
	return 0;
}

static int opt_seed(void *opts, const struct bb_option *o, const char *arg)
{
	char *end;
	__u64 v;

	(void)o;
	errno = 0;
	v = strtoull(arg, &end, 0);
	if (end == arg || *end || errno || !v || arg[0] == '-') {
		pr_err("--seed wants a non-zero number, not '%s'\n", arg);
		return -EINVAL;
	}
	((struct load_opts *)opts)->seed = v;
	return 0;
}

static int opt_capacity(void *opts, const struct bb_option *o, const char *arg)
{
	__u64 n;

	(void)o;
	if (bb_parse_count(arg, &n)) {
		pr_err("--capacity wants a count of keys (1000000, 1e6, 10M), not '%s'\n", arg);
		return -EINVAL;
	}
	((struct load_opts *)opts)->capacity = n;
	return 0;
}

static int opt_threads(void *opts, const struct bb_option *o, const char *arg)
{
	unsigned long v;
	char *end;

	(void)o;
	v = strtoul(arg, &end, 10);
	if (*end || end == arg || v > BB_LIST_MAX_THREADS || arg[0] == '-') {
		pr_err("--threads wants a number 0-%d (0: one per online CPU), not '%s'\n",
		       BB_LIST_MAX_THREADS, arg);
		return -EINVAL;
	}
	((struct load_opts *)opts)->threads = (unsigned int)v;
	return 0;
}

static void list_given(struct load_opts *lo, int which)
{
	lo->lists.cur_given[which] = lo->lists.trail_given[which] = true;
}

static int opt_format(void *opts, const struct bb_option *o, const char *arg)
{
	struct load_opts *lo = opts;
	int c = bb_list_format_parse(arg);

	(void)o;
	if (c < 0) {
		pr_err("--format: no format '%s' (auto, plain, hosts, adblock, p2p, dnsmasq, "
		       "unbound, rpz, json, csv, ipset)\n", arg);
		return -EINVAL;
	}
	lo->lists.cur.format = (enum bb_list_format)c;
	list_given(lo, READ_FORMAT);
	return 0;
}

static int opt_column(void *opts, const struct bb_option *o, const char *arg)
{
	struct load_opts *lo = opts;

	(void)o;
	if (!*arg || strlen(arg) > BB_LIST_COLUMN_MAX) {
		pr_err("--column wants a column name or number, at most %d bytes\n",
		       BB_LIST_COLUMN_MAX);
		return -EINVAL;
	}
	lo->lists.cur.column = arg;
	list_given(lo, READ_COLUMN);
	return 0;
}

static int opt_urls(void *opts, const struct bb_option *o, const char *arg)
{
	struct load_opts *lo = opts;

	(void)arg;
	lo->lists.cur.urls_as_hosts = o->data != NULL;
	list_given(lo, READ_URLS);
	return 0;
}

static int list_arg_add(void *ctx, const char *path);

/* --allow FILE: a list in its place, read as the options before it say, all allowed. */
static int opt_allow(void *opts, const struct bb_option *o, const char *arg)
{
	struct load_opts *lo = opts;
	bool was = lo->lists.cur.allow;
	int err;

	(void)o;
	lo->lists.cur.allow = true;
	lo->lists.cur_origin = "allow";
	err = list_arg_add(lo, arg);
	lo->lists.cur.allow = was;
	lo->lists.cur_origin = NULL;
	return err;
}

static int opt_sets(void *opts, const struct bb_option *o, const char *arg)
{
	struct load_opts *lo = opts;

	(void)o;
	lo->lists.cur.sets = arg;
	list_given(lo, READ_SETS);
	return 0;
}

#define F(field)	offsetof(struct load_opts, field)
#define G(field)	offsetof(struct load_opts, given.field)
#define NG		BB_OPT_NO_GIVEN

/* load's options, in the order of its help. The daemon's config file reads them too. */
static const struct bb_option load_options[] = {
	{ "interface", 'i', "IFACE", "attach to IFACE (repeatable)", bb_opt_iface, F(targets),
	  NG, NULL },
	{ "hook", 0, "HOOK", "where to attach on each -i: xdp (default: ingress),\n"
	  "tc-ingress, tc-egress (a client or gateway screening\nwhat it sends); repeatable",
	  bb_opt_hook, F(targets), NG, NULL },
	{ "allow", 0, "FILE", "an allowlist: what it lists passes, whatever the\n"
	  "blocklists hold (any list format; repeatable)", opt_allow, 0, NG, NULL },
	{ "allow-wide", 0, NULL, "load prefixes over more global unicast space than a /8\n"
	  "(default: rejected, they would cut the host off)", bb_opt_flag, F(allow_wide), NG,
	  NULL },
	{ "no-guard", 0, NULL, "drop what the host needs too: its interfaces' addresses,\n"
	  "gateways, resolvers, loopback, link-local (default:\nnever dropped; it holds for "
	  "later loads)", bb_opt_flag, F(no_guard), G(guard), NULL },
	{ "guard", 0, NULL, "the guard on again (after --no-guard)", bb_opt_flag, F(guard),
	  G(guard), NULL },
	{ "mode", 'm', "MODE", "drop (default) or flag: count hits and pass them",
	  bb_opt_choice, F(mode), G(mode), mode_words },
	{ "fp", 0, "P", "false-positive rate of one check of a packet (its address,\n"
	  "its name, its URL), at the most keys that check probes\n(default 0.001)", bb_opt_fpr,
	  F(fpr), NG, NULL },
	{ "capacity", 0, "N", "size the filter for N keys at least: room to grow", opt_capacity,
	  F(capacity), NG, NULL },
	{ "strict", 0, NULL, "any rejected line is fatal", bb_opt_flag, F(strict), NG, NULL },
	{ "xdp-mode", 0, "MODE", "auto (default: native, else generic), native, generic",
	  bb_opt_choice, F(xdp_mode), NG, xdp_mode_words },
	{ "addr", 0, "WHICH", "peer (default: the source at ingress, the destination\n"
	  "at egress) or both", bb_opt_choice, F(addr), G(addr), addr_words },
	{ "dns-ports", 0, "LIST", "UDP ports of DNS queries to screen (default 53)", opt_ports,
	  F(dns_ports), G(dns_ports), NULL },
	{ "tls-ports", 0, "LIST", "TCP ports of TLS ClientHellos (default 443)", opt_ports,
	  F(tls_ports), G(tls_ports), NULL },
	{ "http-ports", 0, "LIST", "TCP ports of HTTP/1.x requests (default 80,8080)",
	  opt_ports, F(http_ports), G(http_ports), NULL },
	{ "quic-ports", 0, "LIST", "UDP ports of QUIC Initials, counted (default 443)",
	  opt_ports, F(quic_ports), G(quic_ports), NULL },
	{ "block-quic", 0, NULL, "drop QUIC Initials, so clients fall back to TCP+TLS",
	  bb_opt_flag, F(block_quic), G(block_quic), NULL },
	{ "mark", 0, "N", "in flag mode at tc, set this skb mark on hits", bb_opt_u32, F(mark),
	  G(mark), NULL },
	{ "format", 0, "NAME", "read the lists after it as NAME, not as detected from\n"
	  "their content: auto (default), plain, hosts, adblock,\n"
	  "p2p, dnsmasq, unbound, rpz, json, csv, ipset", opt_format, 0, NG, NULL },
	{ "column", 0, "NAME|N", "CSV: the column (header name or 1-based number) to\n"
	  "read; JSON lines: the key (default: chosen from the\nheader, the keys or the content)",
	  opt_column, 0, NG, NULL },
	{ "urls-as-hosts", 0, NULL, "a URL entry blocks its whole host (DNS, TLS, HTTP),\n"
	  "not only cleartext HTTP to that URL", opt_urls, 0, NG, "" },
	{ "no-urls-as-hosts", 0, NULL, "a URL entry is a URL entry (the default)", opt_urls, 0,
	  NG, NULL },
	{ "ipset-set", 0, "NAMES", "ipset files: load only these sets (comma-separated;\n"
	  "default: every set)", opt_sets, 0, NG, NULL },
	{ "verbose", 'v', NULL, "report every rejected line (default: the first 20 a file)",
	  bb_opt_flag, F(verbose), NG, NULL },
	{ "seed", 0, "N", "hash seed (default: random), for reproducible filters", opt_seed,
	  F(seed), NG, NULL },
	{ "threads", 't', "N", "threads to parse and build with (default: one per\n"
	  "online CPU)", opt_threads, F(threads), NG, NULL },
	{ "stream", 0, "WHEN", "auto (default: when the lists are regular files of\n"
	  "1 MiB or more in all, a compressed one counted as\n"
	  "8 times its size), always (regular files) or\n"
	  "never: parse the files twice, count, then set bits,\n"
	  "storing no entry; duplicates are then not looked for", bb_opt_choice, F(stream), NG,
	  stream_words },
	BB_OPT_END
};

#undef F
#undef G
#undef NG

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
		"\n");
	bb_options_usage(out, load_options);
	fprintf(out,
		"On a reload, --mode, --addr, ports, --mark and --block-quic keep their live values\n"
		"unless given. --format, --column, --urls-as-hosts and --ipset-set apply to the\n"
		"lists after them on the command line; given after the last list, to every list\n"
		"that none preceded. Lists may be gzip, xz or zstd compressed (told by their\n"
		"content). docs/FORMATS.md describes every format.\n"
		"The allowlist is read only after a hit: every --allow file, every list's own\n"
		"exceptions (Adblock @@, rpz-passthru, transparent zones, ipset nomatch) and\n"
		"what `bloomblock allow` keeps in the state directory, %s.\n",
		bb_state_dir());
}

/* A list, in its place on the command line: it reads as the options before it say. */
static int list_arg_add(void *ctx, const char *path)
{
	struct list_args *la = &((struct load_opts *)ctx)->lists;

	if (la->n == la->cap) {
		int cap = la->cap ? 2 * la->cap : 16;
		struct list_arg *v = realloc(la->v, (size_t)cap * sizeof(*v));
		bool (*g)[READ_MAX] = realloc(la->given, (size_t)cap * sizeof(*g));

		if (v)
			la->v = v;
		if (g)
			la->given = g;
		if (!v || !g) {
			pr_err("out of memory\n");
			return -ENOMEM;
		}
		la->cap = cap;
	}
	la->v[la->n].path = path;
	la->v[la->n].origin = la->cur_origin ? la->cur_origin : "list";
	la->v[la->n].read = la->cur;
	memcpy(la->given[la->n], la->cur_given, sizeof(la->cur_given));
	memset(la->trail_given, 0, sizeof(la->trail_given));
	la->n++;
	return 0;
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

/* The command line into o. -1: go on; else the exit status (help, usage). */
static int load_parse_args(int argc, char **argv, struct load_opts *o)
{
	int err, i;

	memset(o, 0, sizeof(*o));
	o->fpr = BB_FPR_DEFAULT;
	err = bb_options_parse(argc, argv, load_options, o, list_arg_add, o);
	if (err == -EAGAIN) {
		load_usage(stdout);
		return BB_EXIT_OK;
	}
	if (err == -ENOMEM)
		return BB_EXIT_ERROR;
	if (err) {
		load_usage(stderr);
		return BB_EXIT_USAGE;
	}
	list_args_finish(&o->lists);
	if (!o->lists.n) {
		pr_err("load needs at least one blocklist file\n");
		load_usage(stderr);
		return BB_EXIT_USAGE;
	}
	if (!o->targets.any_hook)
		o->targets.hooks[BB_HOOK_XDP] = true;
	if (bb_require_root() || bb_require_bpf_caps() || bb_require_bpffs(bb_opts.pin_dir))
		return BB_EXIT_ERROR;
	for (i = 0; i < o->targets.n_ifaces; i++)
		if (bb_require_ifindex(o->targets.ifnames[i], &o->targets.ifindexes[i]))
			return BB_EXIT_ERROR;
	return -1;
}

/* ---- the steps ---- */

static double elapsed(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) + (now.tv_nsec - since->tv_nsec) / 1e9;
}

/*
 * The pinned instance, opened or created (loading and verifying the programs takes
 * about a second) in a thread of its own while the lists are parsed.
 */
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

static void instance_start(struct load_run *run)
{
	const struct load_opts *o = run->o;

	run->ij.may_create = true;	/* without -i: built and pinned, attached nowhere */
	run->ij.families = (o->targets.hooks[BB_HOOK_XDP] ? BB_FAMILY_XDP : 0) |
			   (o->targets.hooks[BB_HOOK_TC_INGRESS] || o->targets.hooks[BB_HOOK_TC_EGRESS] ?
			    BB_FAMILY_TC : 0);
	run->instance_thread = !pthread_create(&run->instance_tid, NULL, instance_worker,
					       &run->ij);
	if (!run->instance_thread)
		instance_worker(&run->ij);
}

static void instance_join(struct load_run *run)
{
	if (run->instance_thread)
		pthread_join(run->instance_tid, NULL);
	run->instance_thread = false;
}

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

/*
 * 1. Every list parsed (or, streamed, scanned: counted and reported, nothing kept),
 * each one's summary printed. Nothing live is touched.
 */
static int parse_lists(struct load_run *run)
{
	const struct list_args *la = &run->o->lists;
	struct timespec t0;
	size_t entries = 0, rejected;
	int i, err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	run->streamed = want_stream((enum stream_when)run->o->stream, la);
	if (run->streamed) {
		run->tallies = calloc(BB_LIST_MAX_THREADS, sizeof(*run->tallies));
		run->file_counts = calloc((unsigned int)la->n, sizeof(*run->file_counts));
		if (!run->tallies || !run->file_counts) {
			pr_err("out of memory\n");
			return -ENOMEM;
		}
	}
	for (i = 0; i < la->n; i++) {
		struct bb_list_sink sink = { .entry = tally_entry, .ctx = run->tallies };
		struct bb_list_counts fc;
		struct bb_file_info info;
		json_t *file_json;

		run->lopts.file = la->v[i].read;
		run->lopts.info = &info;
		if (run->streamed) {
			err = bb_list_scan_file(la->v[i].path, &run->lopts, &sink, &fc);
			run->file_counts[i] = fc;
			bb_list_counts_add(&run->list.counts, &fc);
		} else {
			err = bb_list_parse_file(&run->list, la->v[i].path, &run->lopts, &fc);
		}
		if (err) {
			/* the parser said what in the file; this is what the load came to */
			pr_err("load stopped at %s: %s\n", load_list_name(la->v[i].path),
			       err == -ESTALE ? "it changed while it was read" :
			       err == -EBADMSG ? "its compressed data is corrupt or cut short" :
			       strerror(-err));
			return err;
		}
		file_json = load_report_file(la->v[i].path, &fc, &info, run->streamed);
		load_report_watched(file_json, la->v[i].path, &info, &run->guard, run->guard_on);
		json_object_set_new(file_json, "origin", json_string(la->v[i].origin));
		json_array_append_new(run->files_json, file_json);
	}
	run->lopts.info = NULL;
	for (i = 0; run->streamed && i < BB_LIST_MAX_THREADS; i++)
		bb_key_tally_sum(&run->tally, &run->tallies[i]);
	for (i = 0; i < BB_ENTRY_KIND_MAX; i++)
		entries += run->list.counts.accepted[i];
	run->t_parse = elapsed(&t0);
	rejected = bb_list_rejected_total(&run->list.counts);
	if (run->o->strict && rejected) {
		pr_err("--strict: %zu rejected line%s (above)\n", rejected, rejected == 1 ? "" : "s");
		return -EINVAL;
	}
	if (!entries) {
		pr_err("no usable entries in");
		for (i = 0; i < la->n; i++)
			pr_info(" %s", load_list_name(la->v[i].path));
		pr_info("\n");
		return -EINVAL;
	}
	return 0;
}

/* 2. The instance: the pinned one, or the programs just loaded and pinned. */
static int open_instance(struct load_run *run)
{
	int err;

	instance_join(run);
	err = run->ij.err;
	if (err && run->ij.tried_create)
		return err;	/* bb_instance_create() said why */
	if (err) {
		pr_err("cannot open the pinned state in %s: %s\n", bb_opts.pin_dir, strerror(-err));
		return err;
	}
	/* a hook of a family the instance has not loaded yet (tc after XDP, or XDP after tc) */
	if (!run->ij.created && run->o->targets.n_ifaces > 0)
		return bb_instance_add(&run->ij.inst, run->ij.families);
	return 0;
}

/* The live filter's flags and config, or -ENOENT when there is none. */
static int live_config(struct load_run *run, __u32 *flags, struct bb_config *cfg)
{
	struct bb_image live;
	const struct bb_header *hdr;
	__u32 abi;

	if (run->ij.created || bb_image_open(&run->ij.inst, &live))
		return -ENOENT;
	hdr = (const void *)live.blocks;
	abi = hdr->magic == BB_MAGIC ? hdr->abi_version : BB_ABI_VERSION;
	*flags = hdr->flags;
	memcpy(cfg, &live.blocks[BB_CONFIG_INDEX], sizeof(*cfg));
	bb_image_close(&live);
	if (abi != BB_ABI_VERSION) {
		/* its programs would refuse this version's filter and pass every packet */
		pr_err("the instance in %s was loaded by another bloomblock version (filter ABI "
		       "%u, this one %u): unload it (bloomblock unload --all) and load again\n",
		       bb_opts.pin_dir, abi, BB_ABI_VERSION);
		return -EPROTO;
	}
	return 0;
}

/* 3. What was not given keeps its live value on a reload; else the defaults. */
static int merge_config(struct load_run *run)
{
	const struct load_opts *o = run->o;
	struct bb_filter_opts *f = &run->fopts;
	struct bb_config *cfg = &f->config;
	__u32 live = BB_HDR_F_DROP;
	int err;

	bb_config_defaults(cfg);
	err = live_config(run, &live, cfg);
	if (err == -EPROTO)
		return err;
	f->flags = (o->given.mode ? (o->mode == 0 ? BB_HDR_F_DROP : 0) : live & BB_HDR_F_DROP) |
		   (o->given.addr ? (o->addr ? BB_HDR_F_ADDR_BOTH : 0) :
		    live & BB_HDR_F_ADDR_BOTH) |
		   (o->given.block_quic ? BB_HDR_F_BLOCK_QUIC : live & BB_HDR_F_BLOCK_QUIC);
	if (o->given.dns_ports)
		memcpy(cfg->dns_ports, o->dns_ports, sizeof(cfg->dns_ports));
	if (o->given.tls_ports)
		memcpy(cfg->tls_ports, o->tls_ports, sizeof(cfg->tls_ports));
	if (o->given.http_ports)
		memcpy(cfg->http_ports, o->http_ports, sizeof(cfg->http_ports));
	if (o->given.quic_ports)
		memcpy(cfg->quic_ports, o->quic_ports, sizeof(cfg->quic_ports));
	if (o->given.mark)
		cfg->mark = o->mark;
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
	struct bb_list_sink sink = { .entry = stream_entry };
	struct bb_filter_stream *stream;
	int i, err, end;

	quiet.report = NULL;	/* the first pass reported */
	quiet.info = NULL;
	err = bb_filter_stream_begin(&run->filter, &run->tally, &run->fopts, &stream);
	if (err)
		return err;
	sink.ctx = stream;
	for (i = 0; i < la->n && !err; i++) {
		struct bb_list_counts again;

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

/* 4. Build, setting the bits straight into the new map. */
static int build_filter(struct load_run *run)
{
	struct timespec t0;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	run->fopts.blocks_alloc = bb_filter_map_blocks;
	run->fopts.blocks_ctx = &run->fmap;
	if (run->streamed)
		err = stream_build(run);
	else
		err = bb_filter_build(&run->filter, &run->list, &run->fopts);
	if (err == -E2BIG)
		pr_err("the list is too large or its prefix lengths too spread to build a "
		       "bounded filter\n");
	else if (err && err != -ESTALE)
		pr_err("cannot build the filter: %s\n", strerror(-err));
	run->t_build = elapsed(&t0);
	return err;
}

/* Attach the hooks asked for on one interface, where this instance is not yet. */
static int attach_iface(struct load_run *run, int i)
{
	const struct load_opts *o = run->o;
	enum bb_xdp_mode used, now;
	int egress, err;

	for (egress = 0; egress < 2; egress++) {
		if (!o->targets.hooks[egress ? BB_HOOK_TC_EGRESS : BB_HOOK_TC_INGRESS] ||
		    bb_tc_attached(bb_opts.pin_dir, o->targets.ifindexes[i], egress))
			continue;
		err = bb_tc_attach(&run->ij.inst, o->targets.ifindexes[i], egress);
		if (err)
			return err;
		run->tc_attached_now[i][egress] = true;
		pr_info("%s: attached (tc %s)\n", o->targets.ifnames[i], egress ? "egress" : "ingress");
	}
	if (!o->targets.hooks[BB_HOOK_XDP])
		return 0;
	if (bb_attached(bb_opts.pin_dir, o->targets.ifnames[i])) {
		now = bb_xdp_mode_of(o->targets.ifindexes[i]);
		if (o->xdp_mode != BB_XDP_AUTO && now != BB_XDP_AUTO &&
		    now != (enum bb_xdp_mode)o->xdp_mode)
			pr_warn("%s is attached in %s XDP mode already; --xdp-mode %s takes effect "
				"after: bloomblock unload -i %s\n", o->targets.ifnames[i],
				bb_xdp_mode_name(now), bb_xdp_mode_name(o->xdp_mode), o->targets.ifnames[i]);
		return 0;
	}
	err = bb_attach(&run->ij.inst, o->targets.ifnames[i], o->targets.ifindexes[i],
			(enum bb_xdp_mode)o->xdp_mode, &used);
	if (err)
		return err;
	run->attached_now[i] = true;
	pr_info("%s: attached (%s XDP)\n", o->targets.ifnames[i], bb_xdp_mode_name(used));
	return 0;
}

/*
 * 5. Attach where not attached yet, and swap. A new instance gets its filter first,
 * so a fresh attachment never runs without one; on an existing instance the swap
 * comes last, so a failed attach leaves the old filter and its interfaces as they were.
 */
static int attach_and_swap(struct load_run *run)
{
	struct timespec t0;
	int i, err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (run->ij.created) {
		err = bb_filter_swap(&run->ij.inst, &run->filter, &run->fmap);
		if (err)
			return err;
	}
	for (i = 0; i < run->o->targets.n_ifaces; i++) {
		err = attach_iface(run, i);
		if (err)
			return err;
	}
	if (!run->ij.created) {
		err = bb_filter_swap(&run->ij.inst, &run->filter, &run->fmap);
		if (err)
			return err;
	}
	run->t_push = elapsed(&t0);
	return 0;
}

/*
 * A failed run: detach what it attached, remove an instance it created (the instance
 * thread may have pinned one), and say what is live now.
 */
static void undo(struct load_run *run)
{
	const struct load_opts *o = run->o;
	int i;

	instance_join(run);
	for (i = 0; i < o->targets.n_ifaces; i++) {
		if (run->attached_now[i])
			bb_detach(bb_opts.pin_dir, o->targets.ifnames[i]);
		if (run->tc_attached_now[i][0])
			bb_tc_detach(bb_opts.pin_dir, o->targets.ifindexes[i], 0);
		if (run->tc_attached_now[i][1])
			bb_tc_detach(bb_opts.pin_dir, o->targets.ifindexes[i], 1);
	}
	if (run->ij.created) {
		bb_instance_close(&run->ij.inst);
		bb_instance_remove(bb_opts.pin_dir);
		pr_info("nothing was loaded\n");
	} else if (!run->ij.err) {
		pr_info("the live filter is unchanged\n");
	}
}

/*
 * The guard, before any list is read: what the host needs (for the interfaces being
 * attached and those attached already), written to the state directory and read as
 * one more allowlist unless it is off; watched in every list either way, and wide
 * prefixes refused unless --allow-wide. --no-guard holds for later loads (guard.off)
 * until --guard.
 */
static int guard_setup(struct load_run *run, struct load_opts *o, char *path, size_t size)
{
	struct bb_attachment att[BB_MAX_TARGETS * 3];
	const char *ifnames[BB_MAX_TARGETS * 4];
	char off_path[512];
	unsigned int n = 0;
	int i, j, n_att, err;

	err = bb_state_path(off_path, sizeof(off_path), BB_GUARD_OFF);
	err = err ?: bb_state_path(path, size, BB_GUARD_FILE);
	if (err)
		return err;
	if (o->given.guard) {
		if (o->no_guard && !o->guard) {
			FILE *f = fopen(off_path, "w");

			if (f)
				fclose(f);
		} else {
			unlink(off_path);
		}
	}
	run->guard_on = access(off_path, F_OK) != 0;
	for (i = 0; i < o->targets.n_ifaces; i++)
		ifnames[n++] = o->targets.ifnames[i];
	n_att = bb_attachments(bb_opts.pin_dir, att, (int)(sizeof(att) / sizeof(att[0])));
	for (i = 0; i < n_att && n < sizeof(ifnames) / sizeof(ifnames[0]); i++) {
		for (j = 0; j < (int)n && strcmp(ifnames[j], att[i].ifname); j++)
			;
		if (j == (int)n && att[i].ifindex)
			ifnames[n++] = att[i].ifname;
	}
	bb_guard_collect(&run->guard, ifnames, n, NULL);
	for (i = 0; i < o->lists.n; i++) {
		o->lists.v[i].read.refuse_wide = !o->allow_wide;
		o->lists.v[i].read.watch = run->guard.watch;
		o->lists.v[i].read.n_watch = run->guard.n;
	}
	if (!run->guard_on) {
		unlink(path);
		return 0;
	}
	err = bb_guard_write(&run->guard, path);
	if (err) {
		pr_err("cannot write %s: %s\n", path, strerror(-err));
		return err;
	}
	o->lists.cur = (struct bb_file_opts){ .format = BB_FORMAT_PLAIN, .allow = true };
	o->lists.cur_origin = "guard";
	err = list_arg_add(o, path);
	o->lists.cur_origin = NULL;
	return err;
}

/* The items `bloomblock allow` keeps, when there are any: one more allowlist. */
static int add_kept_allowlist(struct load_opts *o, char *path, size_t size)
{
	struct bb_file_opts saved = o->lists.cur;
	int err = bb_state_path(path, size, BB_STATE_ALLOW);

	if (err || access(path, F_OK))
		return 0;
	o->lists.cur = (struct bb_file_opts){ .format = BB_FORMAT_PLAIN, .allow = true };
	o->lists.cur_origin = "kept";
	err = list_arg_add(o, path);
	o->lists.cur = saved;
	o->lists.cur_origin = NULL;
	return err;
}

int cmd_load(int argc, char **argv)
{
	struct load_opts o;
	struct load_run run = {
		.o = &o, .lopts = { .report = stderr, .report_max = 20 },
		.ij = { .inst = { .filters_fd = -1, .stats_fd = -1, .prog_fd = -1,
				  .tc_ingress_fd = -1, .tc_egress_fd = -1 } },
		.fmap = { .fd = -1 },
	};
	int ret = load_parse_args(argc, argv, &o), err;
	char allow_path[512], guard_path[512];
	struct bb_attachment att[1];

	if (ret >= 0)
		goto out;
	run.lopts.report_max = o.verbose ? 0 : 20;
	run.lopts.threads = run.fopts.threads = o.threads;
	run.fopts.fpr = o.fpr;
	run.fopts.capacity = o.capacity;
	run.fopts.seed = o.seed;
	bb_list_init(&run.list);
	run.files_json = json_array();
	/* under the lock, the allowlist `allow` keeps is the one the new filter gets */
	run.lock = bb_state_lock();
	if (run.lock < 0) {
		ret = BB_EXIT_ERROR;
		json_decref(run.files_json);
		goto out;
	}
	err = guard_setup(&run, &o, guard_path, sizeof(guard_path));
	err = err ?: add_kept_allowlist(&o, allow_path, sizeof(allow_path));
	if (err) {
		ret = BB_EXIT_ERROR;
		json_decref(run.files_json);
		close(run.lock);
		goto out;
	}
	instance_start(&run);
	err = parse_lists(&run);
	err = err ?: open_instance(&run);
	err = err ?: merge_config(&run);
	err = err ?: build_filter(&run);
	err = err ?: attach_and_swap(&run);
	if (err) {
		undo(&run);
		ret = BB_EXIT_ERROR;
	} else {
		load_report_filter(&run);
		if (bb_attachments(bb_opts.pin_dir, att, 1) == 0)
			pr_info("staged under %s, attached nowhere: load -i IFACE attaches it\n",
				bb_opts.pin_dir);
		ret = BB_EXIT_OK;
	}
	instance_join(&run);
	json_decref(run.files_json);
	bb_filter_free(&run.filter);
	bb_filter_map_close(&run.fmap);
	bb_instance_close(&run.ij.inst);
	bb_list_free(&run.list);
	free(run.tallies);
	free(run.file_counts);
	close(run.lock);
out:
	free(o.lists.v);
	free(o.lists.given);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * load's and build's options: one table, the parsers of its values, the lists in
 * their places on the command line, and the checks before anything runs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "options.h"
#include "state.h"

/* ---- options ---- */

static const char *const mode_words[] = { "drop", "flag", "confirm", NULL };
static const char *const down_words[] = { "pass", "drop", NULL };
static const char *const answer_words[] = { "drop", "reject", "sinkhole", NULL };
static const char *const xdp_mode_words[] = { "auto", "native", "generic", NULL };
static const char *const xdp_attach_words[] = { "auto", "link", "libxdp", NULL };
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

/* --room names,urls: kinds to size for that the lists may not hold (header flags). */
static int opt_room(void *opts, const struct bb_option *o, const char *arg)
{
	__u32 *room = BB_OPT_FIELD(opts, o, __u32);
	char buf[64], *save = NULL, *w;

	(void)o;
	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		goto bad;
	*room = 0;
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!strcmp(w, "names"))
			*room |= BB_HDR_F_ROOM_NAMES;
		else if (!strcmp(w, "urls"))
			*room |= BB_HDR_F_ROOM_URLS;
		else if (strcmp(w, "none"))
			goto bad;
	}
	return 0;
bad:
	pr_err("--room is names, urls, both (names,urls) or none, not '%s'\n", arg);
	return -EINVAL;
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

static int opt_max_entries(void *opts, const struct bb_option *o, const char *arg)
{
	__u64 n;

	(void)o;
	if (bb_parse_count(arg, &n)) {
		pr_err("--max-entries wants a count (50000000, 5e7, 50M; 0: no bound), not '%s'\n",
		       arg);
		return -EINVAL;
	}
	((struct load_opts *)opts)->max_entries = n;
	return 0;
}

static int opt_max_list_size(void *opts, const struct bb_option *o, const char *arg)
{
	unsigned long long n = 0;

	(void)o;
	if (strcmp(arg, "0") && bb_parse_size(arg, &n)) {
		pr_err("--max-list-size wants a size (4G, 512M, 1048576; 0: no bound), not '%s'\n",
		       arg);
		return -EINVAL;
	}
	((struct load_opts *)opts)->max_list_size = n;
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

/* What load does on this host: where it attaches, and the guard. The daemon's config too. */
const struct bb_option load_host_options[] = {
	{ "interface", 'i', "IFACE", "attach to IFACE (repeatable)", bb_opt_iface, F(targets),
	  NG, NULL },
	{ "hook", 0, "HOOK", "where to attach on each -i: xdp (default: ingress),\n"
	  "tc-ingress, tc-egress (a client or gateway screening\nwhat it sends); repeatable",
	  bb_opt_hook, F(targets), NG, NULL },
	{ "allow-wide", 0, NULL, "load prefixes over more global unicast space than a /8\n"
	  "(default: rejected, they would cut the host off)", bb_opt_flag, F(allow_wide), NG,
	  NULL },
	{ "no-guard", 0, NULL, "drop what the host needs too: its interfaces' addresses,\n"
	  "gateways, resolvers, loopback, link-local (default:\nnever dropped; it holds for "
	  "later loads)", bb_opt_flag, F(no_guard), G(guard), NULL },
	{ "guard", 0, NULL, "the guard on again (after --no-guard)", bb_opt_flag, F(guard),
	  G(guard), NULL },
	{ "xdp-mode", 0, "MODE", "auto (default: native, else generic), native, generic",
	  bb_opt_choice, F(xdp_mode), NG, xdp_mode_words },
	{ "xdp-attach", 0, "HOW", "auto (default: through libxdp's dispatcher where the\n"
	  "kernel allows freplace, beside other libxdp programs; else a\n"
	  "bpf_link), link (a bpf_link of its own), libxdp (libxdp, which\n"
	  "attaches it alone where the kernel refuses freplace)", bb_opt_choice,
	  F(xdp_attach), NG, xdp_attach_words },
	{ "force", 0, NULL, "replace an XDP program bloomblock did not attach (default:\n"
	  "refused, naming it and how to remove it)", bb_opt_flag, F(force), NG, NULL },
	BB_OPT_END
};

/*
 * How lists are read and what the filter does: load's, build's (a filter file's
 * defaults) and the daemon's config's. In the order of their help.
 */
const struct bb_option load_filter_options[] = {
	{ "allow", 0, "FILE", "an allowlist: what it lists passes, whatever the\n"
	  "blocklists hold (any list format; repeatable)", opt_allow, 0, NG, NULL },
	{ "no-index", 0, NULL, "keep no key index (16 bytes a key in the state directory):\n"
	  "check then cannot say which list and line hold a hit", bb_opt_flag, F(no_index), NG,
	  NULL },
	{ "mode", 'm', "MODE", "drop (default); flag: count hits and pass them; confirm:\n"
	  "drop a hit once bloomblock run found it on a list\n(a false positive is never "
	  "dropped; until then it passes)", bb_opt_choice, F(mode), G(mode), mode_words },
	{ "daemon-down", 0, "WHAT", "confirm mode, while bloomblock run is not running: pass\n"
	  "(default) or drop the hits not confirmed yet", bb_opt_choice, F(daemon_down),
	  G(daemon_down), down_words },
	{ "answer", 0, "HOW", "a blocked DNS query: drop (default), reject\n"
	  "(answer NXDOMAIN from the kernel) or sinkhole (answer\nA 0.0.0.0 / AAAA ::, TTL 2 s); "
	  "with either, a blocked\nTLS or HTTP connection is reset on both sides",
	  bb_opt_choice, F(answer), G(answer), answer_words },
	{ "answer-rate", 0, "N", "answers a second a CPU at most; past it a query is\n"
	  "dropped unanswered (default 1000)", bb_opt_u32, F(answer_rate), G(answer_rate),
	  NULL },
	{ "fp", 0, "P", "false-positive rate of one check of a packet (its address,\n"
	  "its name, its URL), at the most keys that check probes\n(default 0.001)", bb_opt_fpr,
	  F(fpr), NG, NULL },
	{ "capacity", 0, "N", "size the filter for N keys at least: room to grow", opt_capacity,
	  F(capacity), NG, NULL },
	{ "room", 0, "KINDS", "size the filter for name or URL checks too (names,urls,\n"
	  "or none) though the lists hold none yet: room for `add`\nto add them live "
	  "(kept by reloads unless given)", opt_room, F(room), G(room), NULL },
	{ "strict", 0, NULL, "any rejected line is fatal", bb_opt_flag, F(strict), NG, NULL },
	{ "allow-shrink", 0, NULL, "load a filter of less than half the live one's keys,\n"
	  "or a list more than half of whose lines do not read\n(default: refused, the live "
	  "filter kept)", bb_opt_flag, F(allow_shrink), NG, NULL },
	{ "max-entries", 0, "N", "refuse lists of more than N entries in all (default\n"
	  "50M; 0: no bound): what parsing them may take is bounded", opt_max_entries,
	  F(max_entries), NG, NULL },
	{ "max-list-size", 0, "SIZE", "refuse a list larger than SIZE, inflated if it is\n"
	  "compressed (default 4G; 0: no bound)", opt_max_list_size, F(max_list_size), NG,
	  NULL },
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
	{ "events", 0, "RATE", "hit events a second a CPU at most, into the ring buffer\n"
	  "bloomblock events reads (default 1000; 0: none)", bb_opt_u32, F(events_rate),
	  G(events), NULL },
	{ "events-burst", 0, "N", "events a CPU may raise at once above the rate\n"
	  "(default: the rate)", bb_opt_u32, F(events_burst), G(events_burst), NULL },
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

/* build's own. */
const struct bb_option build_options[] = {
	{ "output", 'o', "FILE", "the filter file to write (.bbf)", bb_opt_string, F(output), NG,
	  NULL },
	BB_OPT_END
};


#undef F
#undef G
#undef NG

const char load_notes[] =
	"On a reload, --mode, --addr, ports, --mark and --block-quic keep their live values\n"
	"unless given. --format, --column, --urls-as-hosts and --ipset-set apply to the\n"
	"lists after them on the command line; given after the last list, to every list\n"
	"that none preceded. Lists may be gzip, xz or zstd compressed (told by their\n"
	"content). docs/FORMATS.md describes every format.\n"
	"The allowlist is read only after a hit: every --allow file, every list's own\n"
	"exceptions (Adblock @@, rpz-passthru, transparent zones, ipset nomatch) and\n"
	"what `bloomblock allow` keeps in the state directory.\n";

/* A list, in its place on the command line: it reads as the options before it say. */
int list_arg_add(void *ctx, const char *path)
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
	/* which list an index record names: its place on the command line */
	la->v[la->n].read.source = (__u8)(la->n < 255 ? la->n : 255);
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
int load_parse_args(const struct bb_command *cmd, int argc, char **argv, struct load_opts *o)
{
	bool build = cmd == &cmd_build_def;
	int ret, i;

	memset(o, 0, sizeof(*o));
	o->build = build;
	o->fpr = BB_FPR_DEFAULT;
	o->max_entries = BB_MAX_ENTRIES_DEFAULT;
	o->max_list_size = BB_MAX_LIST_SIZE_DEFAULT;
	ret = bb_command_parse(cmd, argc, argv, o, list_arg_add, o);
	if (ret >= 0)
		return ret;
	list_args_finish(&o->lists);
	if (o->given.answer_rate && (!o->answer_rate || o->answer_rate > 1000000))
		return bb_usage_error(cmd, "--answer-rate is 1 to 1000000 answers a second a CPU");
	if (o->events_rate > 1000000 || (o->given.events_burst && !o->events_burst))
		return bb_usage_error(cmd, "--events is at most 1000000 a second a CPU, "
				      "--events-burst at least 1");
	if (!o->lists.n)
		return bb_usage_error(cmd, "needs at least one blocklist file%s",
				      build ? " and -o FILE.bbf" : "");
	if (build && !o->output)
		return bb_usage_error(cmd, "needs -o FILE.bbf, the file to write");
	if (build)
		return -1;	/* nothing is loaded: no root, no bpffs */
	if (!o->targets.any_hook)
		o->targets.hooks[BB_HOOK_XDP] = true;
	if (bb_require_root() || bb_require_bpf_caps() || bb_require_bpffs(bb_opts.pin_dir))
		return BB_EXIT_ERROR;
	for (i = 0; i < o->targets.n_ifaces; i++)
		if (bb_require_ifindex(o->targets.ifnames[i], &o->targets.ifindexes[i]))
			return BB_EXIT_ERROR;
	return -1;
}

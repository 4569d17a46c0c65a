// SPDX-License-Identifier: GPL-2.0
/*
 * Every list format, on fixtures written for the project (tests/lists/): the format
 * each is detected as, the count of every kind of line, entries that must be there
 * and entries that must not; options that override detection; compressed input,
 * streams, truncation while a file is read, reports that escape what they echo.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "list.h"
#include "reader.h"
#include "lib/counts.h"
#include "tap.h"

static char fixtures[512] = "tests/lists";
static char tmpdir[] = "/tmp/bb_test_formats.XXXXXX";


struct file_case {
	const char *file;
	struct bb_file_opts opts;
	enum bb_list_format format;	/* what it must be read as */
	struct counts want;
};

#define REJ(r, n)	[BB_REJECT_##r] = n
#define SKIP(r, n)	[BB_SKIP_##r] = n

static const struct file_case file_cases[] = {
	{ "scores.tsv", { 0 }, BB_FORMAT_PLAIN,
	  { .lines = 8, .ip4 = 4, .ip6 = 2, .comments = 2 } },
	{ "columns.txt", { 0 }, BB_FORMAT_PLAIN,
	  { .lines = 16, .ip4 = 11, .ip6 = 1, .comments = 1, .preamble = 2,
	    .rejected = { REJ(HOSTS_MAPPING, 1) } } },
	{ "hosts.txt", { 0 }, BB_FORMAT_HOSTS,
	  { .lines = 41, .names = 16, .dups = 1, .blank = 2, .comments = 4, .preamble = 18,
	    .rejected = { REJ(IP_AS_NAME, 1), REJ(BAD_NAME, 1) } } },
	{ "adblock.txt", { 0 }, BB_FORMAT_ADBLOCK,
	  { .lines = 27, .ip4 = 2, .ip6 = 1, .names = 5, .urls = 3, .allow = 1, .comments = 3,
	    .rejected = { REJ(OPTIONS, 3), REJ(PATTERN, 6), REJ(COSMETIC, 2),
			  REJ(SINGLE_LABEL, 1) } } },
	{ "urls.txt", { 0 }, BB_FORMAT_PLAIN,
	  { .lines = 19, .urls = 14, .dups = 2,
	    .rejected = { REJ(BAD_NAME, 1), REJ(SYNTAX, 1), REJ(SINGLE_LABEL, 1) } } },
	{ "urls.txt", { .urls_as_hosts = true }, BB_FORMAT_PLAIN,
	  { .lines = 19, .ip4 = 2, .ip6 = 1, .names = 10, .dups = 3, .widened = 16,
	    .rejected = { REJ(BAD_NAME, 1), REJ(SYNTAX, 1), REJ(SINGLE_LABEL, 1) } } },
	{ "ranges.p2p", { 0 }, BB_FORMAT_P2P,
	  { .lines = 12, .ip4 = 9, .ip6 = 1, .ranges = 5, .blank = 1, .comments = 1,
	    .rejected = { REJ(BAD_ADDRESS, 2) } } },
	{ "ranges.txt", { 0 }, BB_FORMAT_PLAIN,
	  { .lines = 8, .ip4 = 8, .ip6 = 2, .names = 1, .ranges = 4, .comments = 1 } },
	{ "dnsmasq.conf", { 0 }, BB_FORMAT_DNSMASQ,
	  { .lines = 30, .names = 14, .allow = 1, .comments = 5,
	    .skipped = { SKIP(ANSWER, 3), SKIP(DIRECTIVE, 3) },
	    .rejected = { REJ(UNSUPPORTED, 1), REJ(BAD_NAME, 1), REJ(SINGLE_LABEL, 1),
			  REJ(SYNTAX, 2), REJ(BAD_ADDRESS, 1) } } },
	{ "unbound.conf", { 0 }, BB_FORMAT_UNBOUND,
	  { .lines = 34, .names = 14, .allow = 2, .comments = 1,
	    .skipped = { SKIP(ANSWER, 7), SKIP(DIRECTIVE, 6) },
	    .rejected = { REJ(SYNTAX, 2), REJ(SINGLE_LABEL, 1), REJ(UNSUPPORTED, 1) } } },
	{ "policy.rpz", { 0 }, BB_FORMAT_RPZ,
	  { .lines = 41, .ip4 = 2, .ip6 = 2, .names = 10, .allow = 1, .dups = 1, .comments = 7,
	    .skipped = { SKIP(DIRECTIVE, 7), SKIP(ANSWER, 4), SKIP(TRIGGER, 3) },
	    .rejected = { REJ(BAD_ADDRESS, 1), REJ(SYNTAX, 1), REJ(UNSUPPORTED, 1),
			  REJ(BAD_NAME, 1) } } },
	/* absolute owners and no $ORIGIN: the owners are the triggers themselves */
	{ "absolute.rpz", { 0 }, BB_FORMAT_RPZ,
	  { .lines = 23, .ip4 = 1, .names = 8, .allow = 1, .comments = 8,
	    .skipped = { SKIP(DIRECTIVE, 3), SKIP(ANSWER, 1) },
	    .rejected = { REJ(BAD_NAME, 1) } } },
	{ "drop.json", { 0 }, BB_FORMAT_JSON,
	  { .lines = 10, .ip4 = 3, .ip6 = 1, .dups = 1, .skipped = { SKIP(DIRECTIVE, 1) },
	    .rejected = { REJ(SYNTAX, 3), REJ(BAD_NAME, 1) } } },
	{ "domains.json", { 0 }, BB_FORMAT_JSON,
	  { .lines = 4, .names = 3, .skipped = { SKIP(DIRECTIVE, 1) } } },
	{ "domains.json", { .column = "url" }, BB_FORMAT_JSON,
	  { .lines = 4, .urls = 1, .skipped = { SKIP(DIRECTIVE, 3) } } },
	{ "feed.csv", { 0 }, BB_FORMAT_CSV,
	  { .lines = 14, .ip4 = 3, .ip6 = 1, .dups = 1, .comments = 5,
	    .skipped = { SKIP(DIRECTIVE, 1) },
	    .rejected = { REJ(SYNTAX, 2), REJ(BAD_ADDRESS, 1) } } },
	{ "urlhaus.csv", { 0 }, BB_FORMAT_CSV,
	  { .lines = 14, .urls = 8, .comments = 4,
	    .rejected = { REJ(UNSUPPORTED, 1), REJ(SYNTAX, 1) } } },
	{ "semicolon.csv", { 0 }, BB_FORMAT_PLAIN,
	  { .lines = 3, .rejected = { REJ(SYNTAX, 1), REJ(BAD_NAME, 2) } } },
	{ "semicolon.csv", { .format = BB_FORMAT_CSV }, BB_FORMAT_CSV,
	  { .lines = 3, .names = 2, .skipped = { SKIP(DIRECTIVE, 1) } } },
	{ "semicolon.csv", { .format = BB_FORMAT_CSV, .column = "1" }, BB_FORMAT_CSV,
	  { .lines = 3, .names = 2, .skipped = { SKIP(DIRECTIVE, 1) } } },
	{ "sets.ipset", { 0 }, BB_FORMAT_IPSET,
	  { .lines = 20, .ip4 = 7, .ip6 = 2, .allow = 1, .dups = 1, .ranges = 1,
	    .skipped = { SKIP(DIRECTIVE, 6) },
	    .rejected = { REJ(UNSUPPORTED, 2), REJ(BAD_ADDRESS, 1) } } },
	{ "sets.ipset", { .sets = "BLOCK4,BLOCK6" }, BB_FORMAT_IPSET,
	  { .lines = 20, .ip4 = 4, .ip6 = 2, .allow = 1,
	    .skipped = { SKIP(DIRECTIVE, 6), SKIP(OTHER_SET, 5) },
	    .rejected = { REJ(UNSUPPORTED, 1), REJ(BAD_ADDRESS, 1) } } },
	/* told what it is, a file is read so, whatever it looks like */
	/* plain: "0.0.0.0 #disabled.example" is the address 0.0.0.0 */
	{ "hosts.txt", { .format = BB_FORMAT_PLAIN }, BB_FORMAT_PLAIN,
	  { .lines = 41, .ip4 = 1, .names = 16, .dups = 1, .blank = 2, .comments = 4,
	    .preamble = 17,
	    .rejected = { REJ(IP_AS_NAME, 1), REJ(BAD_NAME, 1) } } },
	{ "dnsmasq.conf", { .format = BB_FORMAT_PLAIN }, BB_FORMAT_PLAIN,
	  { .lines = 30, .names = 1, .comments = 5,
	    .rejected = { REJ(BAD_NAME, 22), REJ(PATTERN, 1), REJ(SINGLE_LABEL, 1) } } },
};

static void fixture(char *out, size_t size, const char *file)
{
	snprintf(out, size, "%s/%s", fixtures, file);
}

static int parse(struct bb_list *list, const char *path, const struct bb_file_opts *fo,
		 struct bb_list_counts *c, struct bb_file_info *info, FILE *report,
		 unsigned int threads, size_t part_bytes)
{
	struct bb_list_opts o = { .report = report, .threads = threads, .part_bytes = part_bytes,
				  .info = info };

	if (fo)
		o.file = *fo;
	bb_list_init(list);
	return bb_list_parse_file(list, path, &o, c);
}

static void test_file_cases(void)
{
	size_t i;

	for (i = 0; i < sizeof(file_cases) / sizeof(file_cases[0]); i++) {
		const struct file_case *fc = &file_cases[i];
		struct bb_list_counts c;
		struct bb_file_info info;
		struct bb_list list;
		char path[600], name[200], diff[200] = "";
		int err;

		fixture(path, sizeof(path), fc->file);
		err = parse(&list, path, &fc->opts, &c, &info, NULL, 1, 0);
		snprintf(name, sizeof(name), "%s%s%s%s: read as %s", fc->file,
			 fc->opts.format ? " --format " : "",
			 fc->opts.format ? bb_list_format_name(fc->opts.format) : "",
			 fc->opts.urls_as_hosts ? " --urls-as-hosts" : fc->opts.sets ? " --ipset-set" :
			 fc->opts.column ? " --column" : "", bb_list_format_name(fc->format));
		ASSERT_TRUE(!err && info.format == fc->format, name);
		snprintf(name + strlen(name) - strlen(bb_list_format_name(fc->format)) - 8, 60,
			 ": counts");
		tap_result(!err && counts_match(&c, &fc->want, diff, sizeof(diff)), name,
			   "parse returned %d; %s", err, diff);
		bb_list_free(&list);
	}
}

/* ---- entries that must be there, and must not ---- */

struct entry_check {
	const char *file;
	const char *item;	/* an address, CIDR, name or host/path as the list stores it */
	enum bb_entry_kind kind;
	int flags;		/* -1: any */
	bool present;
	const char *why;
};

#define HAS(f, i, k, fl, w)	{ f, i, BB_ENTRY_##k, fl, true, w }
#define NOT(f, i, k, w)		{ f, i, BB_ENTRY_##k, -1, false, w }
#define NOTF(f, i, k, fl, w)	{ f, i, BB_ENTRY_##k, fl, false, w }
#define SUB			BB_ENTRY_F_SUBDOMAINS_ONLY
#define EXACT			BB_ENTRY_F_EXACT
#define ALLOW			BB_ENTRY_F_ALLOW

static const struct entry_check entry_checks[] = {
	HAS("scores.tsv", "192.0.2.1", IP4, 0, "the address before a score"),
	HAS("scores.tsv", "203.0.113.0/24", IP4, 0, "a CIDR before a score"),
	HAS("scores.tsv", "2001:db8:1::/48", IP6, 0, "an IPv6 CIDR before a score"),
	HAS("columns.txt", "192.0.2.13", IP4, 0, "the address before a CSV remainder"),
	HAS("columns.txt", "192.0.2.0/24", IP4, 0, "ADDR NETMASK is a CIDR"),
	HAS("columns.txt", "10.0.0.0/8", IP4, 0, "a CIDR before a word"),
	NOT("columns.txt", "203.0.113.9", IP4, "a public address mapping names"),
	NOT("columns.txt", "mapped.example", NAME, "a name mapped to a public address"),
	NOT("columns.txt", "router.lan", NAME, "a local name's mapping"),
	HAS("hosts.txt", "buildhost.cdn.example", NAME, 0, "a name under the host's own"),
	HAS("hosts.txt", "c.multi.example", NAME, 0, "the third name of a line"),
	HAS("hosts.txt", "upper.example", NAME, 0, "a name lowercased, its dot dropped"),
	HAS("hosts.txt", "last-line.example", NAME, 0, "the last line, no newline"),
	HAS("hosts.txt", "crlf.example", NAME, 0, "a CRLF line"),
	NOT("hosts.txt", "localhost", NAME, "localhost"),
	NOT("hosts.txt", "buildhost", NAME, "the machine's own name"),
	NOT("hosts.txt", "198.51.100.53", IP4, "an address named as a host"),
	NOT("hosts.txt", "0.0.0.0", IP4, "0.0.0.0 0.0.0.0, 0.0.0.0 #disabled.example"),
	NOT("hosts.txt", "disabled.example", NAME, "a name commented out"),
	HAS("adblock.txt", "2001:db8::9", IP6, 0, "||[IPv6]^"),
	HAS("unbound.conf", "inf.example", NAME, 0, "an inform_redirect to a sinkhole"),
	HAS("policy.rpz", "absw.example", NAME, SUB, "an absolute wildcard owner"),
	HAS("adblock.txt", "shared-host.example/malware/payload.exe", URL, 0, "a path rule"),
	NOT("adblock.txt", "shared-host.example", NAME, "the host of a path rule"),
	HAS("adblock.txt", "allowed.example", NAME, ALLOW, "an @@ exception: allowed"),
	NOTF("adblock.txt", "allowed.example", NAME, 0, "an @@ exception: not blocked"),
	NOT("adblock.txt", "exception.example", NAME, "an @@ exception with options"),
	NOT("adblock.txt", "third.example", NAME, "a $third-party rule"),
	HAS("urls.txt", "big-site.example/", URL, 0, "a URL without a path is a URL"),
	NOT("urls.txt", "big-site.example", NAME, "a URL's host without --urls-as-hosts"),
	NOT("urls.txt", "search.example", NAME, "a URL's host without --urls-as-hosts"),
	HAS("urls.txt", "192.0.2.40/", URL, 0, "an IP URL without a path"),
	NOT("urls.txt", "192.0.2.40", IP4, "an IP URL's host"),
	HAS("urls.txt", "[2001:db8::41]/a", URL, 0, "an IPv6 URL"),
	HAS("ranges.p2p", "203.0.113.6/31", IP4, 0, "the middle CIDR of a P2P range"),
	HAS("ranges.p2p", "198.51.100.16/28", IP4, 0, "a description with a colon"),
	HAS("ranges.p2p", "203.0.113.250", IP4, 0, "description:ADDRESS, as I2P writes it"),
	HAS("ranges.p2p", "198.51.100.0/30", IP4, 0, "description:CIDR"),
	HAS("ranges.p2p", "2001:db8::1", IP6, 0, "an IPv6 address is not a P2P line"),
	HAS("ranges.txt", "198.51.100.6", IP4, 0, "the last address of a range"),
	HAS("ranges.txt", "2001:db8::1:0", IP6, 0, "the last address of an IPv6 range"),
	HAS("ranges.txt", "203.0.113.7", IP4, 0, "an IPv4-mapped IPv6 address"),
	HAS("ranges.txt", "1-800-flowers.example", NAME, 0, "a name with dashes after digits"),
	HAS("dnsmasq.conf", "three.example", NAME, 0, "the third name of a rule"),
	HAS("dnsmasq.conf", "wild.example", NAME, SUB, "*.name: its subdomains"),
	HAS("dnsmasq.conf", "jx.test", NAME, 0, "jx.test"),
	HAS("dnsmasq.conf", "cqmjjx.test", NAME, 0, "cqmjjx.test, not under jx.test"),
	NOT("dnsmasq.conf", "router.example", NAME, "a local answer"),
	NOT("dnsmasq.conf", "corp.example", NAME, "a forward"),
	HAS("dnsmasq.conf", "not-blocked.example", NAME, ALLOW, "server=/name/#: allowed"),
	NOTF("dnsmasq.conf", "not-blocked.example", NAME, 0, "server=/name/#: not blocked"),
	HAS("unbound.conf", "null.example", NAME, 0, "a zone with a trailing dot"),
	HAS("unbound.conf", "comment.example", NAME, 0, "a zone before a comment"),
	HAS("unbound.conf", "sink.example", NAME, 0, "a redirect to a sinkhole"),
	HAS("unbound.conf", "sink-first.example", NAME, 0, "a sinkhole, then its redirect"),
	HAS("unbound.conf", "alone.example", NAME, EXACT, "a sinkhole answer alone"),
	NOT("unbound.conf", "walled.example", NAME, "a redirect to an address"),
	HAS("unbound.conf", "pass.example", NAME, ALLOW, "a transparent zone: allowed"),
	HAS("unbound.conf", "typepass.example", NAME, ALLOW, "a typetransparent zone: allowed"),
	NOTF("unbound.conf", "pass.example", NAME, 0, "a transparent zone: not blocked"),
	NOT("unbound.conf", "www.static.example", NAME, "a static zone's answer"),
	HAS("policy.rpz", "nx.example", NAME, EXACT, "a QNAME trigger"),
	HAS("policy.rpz", "nx.example", NAME, SUB, "its *. twin"),
	HAS("policy.rpz", "exact.example", NAME, EXACT, "a trigger without its twin"),
	NOTF("policy.rpz", "exact.example", NAME, 0, "exact.example with its subdomains"),
	NOTF("policy.rpz", "exact.example", NAME, SUB, "exact.example's subdomains"),
	NOTF("policy.rpz", "wild.example", NAME, EXACT, "wild.example itself"),
	HAS("policy.rpz", "wild.example", NAME, SUB, "a wildcard without its name"),
	HAS("policy.rpz", "mixed.example", NAME, EXACT, "an owner in mixed case"),
	HAS("policy.rpz", "abs.example", NAME, EXACT, "an absolute owner in the zone"),
	HAS("policy.rpz", "rpz-public-resolver.example", NAME, EXACT, "a label that starts rpz-"),
	HAS("policy.rpz", "192.0.2.1", IP4, 0, "an rpz-ip trigger"),
	HAS("policy.rpz", "198.51.100.0/24", IP4, 0, "an rpz-ip /24"),
	HAS("policy.rpz", "2001:db8::1", IP6, 0, "an IPv6 rpz-ip with zz"),
	HAS("policy.rpz", "2001:db8:1::/48", IP6, 0, "an IPv6 rpz-ip /48 with zz"),
	HAS("policy.rpz", "pass.example", NAME, ALLOW | EXACT, "rpz-passthru.: allowed"),
	NOTF("policy.rpz", "pass.example", NAME, EXACT, "rpz-passthru.: not blocked"),
	HAS("absolute.rpz", "ads.tracker.example", NAME, EXACT, "an absolute owner, no $ORIGIN"),
	HAS("absolute.rpz", "ads.tracker.example", NAME, SUB, "... its absolute *. twin"),
	HAS("absolute.rpz", "phish.example", NAME, EXACT, "an absolute owner in mixed case"),
	HAS("absolute.rpz", "exact.abs.test", NAME, EXACT, "an absolute trigger alone"),
	NOTF("absolute.rpz", "exact.abs.test", NAME, SUB, "... not its subdomains"),
	HAS("absolute.rpz", "wild.abs.test", NAME, SUB, "an absolute wildcard alone"),
	HAS("absolute.rpz", "drop.abs.test", NAME, EXACT, "an absolute rpz-drop."),
	HAS("absolute.rpz", "pass.abs.test", NAME, ALLOW | EXACT, "an absolute rpz-passthru."),
	HAS("absolute.rpz", "203.0.113.9", IP4, 0, "an absolute rpz-ip trigger"),
	HAS("absolute.rpz", "relative.abs.test", NAME, EXACT, "a relative owner beside them"),
	NOT("absolute.rpz", "local.abs.test", NAME, "absolute local data"),
	NOT("absolute.rpz", "localhost", NAME, "the SOA's and NS's data"),
	NOT("policy.rpz", "local.example", NAME, "local data"),
	NOT("policy.rpz", "ns.rpz.test", NAME, "the zone's NS"),
	NOT("policy.rpz", "ns.evil.example", NAME, "an nsdname trigger"),
	NOT("policy.rpz", "192.0.2.7", IP4, "a client-ip trigger"),
	HAS("drop.json", "203.0.113.0/26", IP4, 0, "an escaped slash"),
	HAS("drop.json", "2001:db8::/32", IP6, 0, "spaces between tokens"),
	HAS("domains.json", "other.example", NAME, 0, "a name canonical"),
	HAS("feed.csv", "198.51.100.50", IP4, 0, "a row with quotes in another field"),
	HAS("feed.csv", "2001:db8::50", IP6, 0, "an IPv6 row"),
	HAS("urlhaus.csv", "192.0.2.60/bins/x86", URL, 0, "a URL column"),
	HAS("urlhaus.csv", "whole-host.example/", URL, 0, "a URL without a path"),
	NOT("urlhaus.csv", "multi-line.example/a", URL, "a URL cut by a newline"),
	HAS("sets.ipset", "203.0.113.77", IP4, 0, "a bare address in a hash:net set"),
	HAS("sets.ipset", "198.51.100.128/25", IP4, 0, "an entry with options"),
	HAS("sets.ipset", "203.0.113.64/29", IP4, 0, "a range in a hash:ip set"),
	HAS("sets.ipset", "203.0.113.0/28", IP4, ALLOW, "a nomatch entry: allowed"),
	NOTF("sets.ipset", "203.0.113.0/28", IP4, 0, "a nomatch entry: not blocked"),
	NOT("sets.ipset", "192.0.2.5", IP4, "an entry with a port"),
};

static const struct bb_entry *find(const struct bb_list *list, enum bb_entry_kind kind, int flags,
				   const char *item)
{
	struct bb_entry want;
	char text[BB_KEY_MAX + 1];
	size_t i;

	memset(&want, 0, sizeof(want));
	if (kind == BB_ENTRY_IP4 || kind == BB_ENTRY_IP6) {
		if (bb_list_parse_item(item, &want, text, sizeof(text), NULL))
			return NULL;
	}
	for (i = 0; i < list->n; i++) {
		const struct bb_entry *e = &list->entries[i];

		if (e->kind != kind || (flags >= 0 && e->flags != flags))
			continue;
		if (e->text ? !strcmp(e->text, item) :
		    e->plen == want.plen && !memcmp(e->addr, want.addr, 16))
			return e;
	}
	return NULL;
}

static void test_entries(void)
{
	size_t i;

	for (i = 0; i < sizeof(entry_checks) / sizeof(entry_checks[0]); i++) {
		const struct entry_check *ec = &entry_checks[i];
		struct bb_list list;
		char path[600], name[300];

		fixture(path, sizeof(path), ec->file);
		parse(&list, path, NULL, NULL, NULL, NULL, 1, 0);
		snprintf(name, sizeof(name), "%s: %s %s (%s)", ec->file, ec->item,
			 ec->present ? "listed" : "not listed", ec->why);
		ASSERT_TRUE(!find(&list, ec->kind, ec->flags, ec->item) == !ec->present, name);
		bb_list_free(&list);
	}
}

/* ---- a file in pieces, threads, parses as it does whole ---- */

static bool lists_equal(const struct bb_list *a, const struct bb_list *b)
{
	size_t i;

	if (a->n != b->n || memcmp(&a->counts, &b->counts, sizeof(a->counts)))
		return false;
	for (i = 0; i < a->n; i++) {
		const struct bb_entry *x = &a->entries[i], *y = &b->entries[i];

		if (x->kind != y->kind || x->plen != y->plen || x->flags != y->flags ||
		    memcmp(x->addr, y->addr, 16) || !x->text != !y->text ||
		    (x->text && strcmp(x->text, y->text)))
			return false;
	}
	return true;
}

static void test_pieces(void)
{
	static const size_t sizes[] = { 1, 7, 64 };
	size_t i, k;

	for (i = 0; i < sizeof(file_cases) / sizeof(file_cases[0]); i++) {
		const struct file_case *fc = &file_cases[i];
		char path[600], name[200], *want = NULL, *got = NULL;
		size_t wlen = 0, glen = 0;
		bool same = true;

		if (i && !strcmp(fc->file, file_cases[i - 1].file))
			continue;
		fixture(path, sizeof(path), fc->file);
		for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			struct bb_list whole, cut;
			FILE *w = open_memstream(&want, &wlen), *g = open_memstream(&got, &glen);

			parse(&whole, path, &fc->opts, NULL, NULL, w, 1, 0);
			parse(&cut, path, &fc->opts, NULL, NULL, g, 3, sizes[k]);
			fclose(w);
			fclose(g);
			same &= lists_equal(&whole, &cut) && want && got && !strcmp(want, got);
			bb_list_free(&whole);
			bb_list_free(&cut);
			free(want);
			free(got);
			want = got = NULL;
		}
		snprintf(name, sizeof(name), "%s: in pieces of 1, 7 and 64 bytes on 3 threads, the "
			 "same entries, counts and reports", fc->file);
		ASSERT_TRUE(same, name);
	}
}

/* ---- a scan (the first pass of a streamed load) counts what a parse counts ---- */

/* Per thread: the sink is called from every parse thread at once. */
static void count_entry(void *ctx, unsigned int thread, const struct bb_entry *e)
{
	(void)e;
	((size_t *)ctx)[thread]++;
}

static void test_scans(void)
{
	size_t i;

	for (i = 0; i < sizeof(file_cases) / sizeof(file_cases[0]); i++) {
		const struct file_case *fc = &file_cases[i];
		struct bb_list_opts o = { .file = fc->opts, .threads = 2, .part_bytes = 16 };
		struct bb_list_counts c, s;
		struct bb_list list;
		size_t per_thread[BB_LIST_MAX_THREADS] = { 0 }, sunk = 0;
		struct bb_list_sink sink = { count_entry, per_thread };
		char path[600], name[200];
		int e1, e2, k;

		fixture(path, sizeof(path), fc->file);
		e1 = parse(&list, path, &fc->opts, &c, NULL, NULL, 2, 16);
		e2 = bb_list_scan_file(path, &o, &sink, &s);
		for (k = 0; k < BB_LIST_MAX_THREADS; k++)
			sunk += per_thread[k];
		/* a scan has no set: a duplicate counts as accepted */
		s.accepted[BB_ENTRY_NAME] -= c.duplicates;
		for (k = 0; k < BB_ENTRY_KIND_MAX && c.duplicates; k++)
			if (s.accepted[k] > c.accepted[k])
				s.accepted[k] = c.accepted[k];
		s.duplicates = c.duplicates;
		snprintf(name, sizeof(name), "%s (case %zu): a scan counts the lines as a parse does "
			 "and sends every entry", fc->file, i);
		ASSERT_TRUE(!e1 && !e2 && s.lines == c.lines && s.comments == c.comments &&
			    s.preamble == c.preamble && !memcmp(s.rejected, c.rejected,
								 sizeof(s.rejected)) &&
			    !memcmp(s.skipped, c.skipped, sizeof(s.skipped)) &&
			    sunk == list.n + c.duplicates, name);
		bb_list_free(&list);
	}
}

/* ---- compressed input ---- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

static int spit(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	int err = !f || fwrite(data, 1, len, f) != len;

	if (f)
		err |= fclose(f);
	return err ? -EIO : 0;
}

/* gzip (level, one member), xz or zstd of data, malloc'd. */
static char *compress_as(enum bb_compression c, const char *data, size_t len, size_t *out_len)
{
	size_t cap = len + len / 2 + 4096;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	if (c == BB_COMPRESSION_GZIP) {
		z_stream z = { 0 };

		deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
		z.next_in = (Bytef *)data;
		z.avail_in = (uInt)len;
		z.next_out = (Bytef *)out;
		z.avail_out = (uInt)cap;
		deflate(&z, Z_FINISH);
		*out_len = cap - z.avail_out;
		deflateEnd(&z);
	} else if (c == BB_COMPRESSION_XZ) {
		*out_len = 0;
		if (lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, (const uint8_t *)data, len,
					    (uint8_t *)out, out_len, cap) != LZMA_OK) {
			free(out);
			return NULL;
		}
	} else {
		/* with a checksum, as the zstd tool writes it: corruption is then found */
		ZSTD_CCtx *cc = ZSTD_createCCtx();

		ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
		*out_len = ZSTD_compress2(cc, out, cap, data, len);
		ZSTD_freeCCtx(cc);
		if (ZSTD_isError(*out_len)) {
			free(out);
			return NULL;
		}
	}
	return out;
}

/* The path parsed from a pipe (a stream, not a regular file): a child writes it in. */
static int parse_piped(struct bb_list *list, const char *data, size_t len,
		       struct bb_list_counts *c, struct bb_file_info *info, FILE *report)
{
	char path[64];
	int fds[2], err, status;
	pid_t pid;

	if (pipe(fds))
		return -errno;
	pid = fork();
	if (pid == 0) {
		size_t off = 0;

		close(fds[0]);
		while (off < len) {
			ssize_t n = write(fds[1], data + off, len - off > 4096 ? 4096 : len - off);

			if (n <= 0)
				_exit(1);
			off += (size_t)n;
		}
		_exit(0);
	}
	close(fds[1]);
	snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
	err = parse(list, path, NULL, c, info, report, 2, 0);
	close(fds[0]);
	waitpid(pid, &status, 0);
	return err;
}

static void test_compressed(void)
{
	static const enum bb_compression kinds[] = { BB_COMPRESSION_GZIP, BB_COMPRESSION_XZ,
						     BB_COMPRESSION_ZSTD };
	char src[600], path[700], name[200], rep[512];
	struct bb_list plain, list;
	struct bb_list_counts pc, c;
	struct bb_file_info info;
	size_t len, zlen, i;
	char *data, *z;
	FILE *report;
	int err;

	fixture(src, sizeof(src), "hosts.txt");
	data = slurp(src, &len);
	parse(&plain, src, NULL, &pc, NULL, NULL, 1, 0);
	for (i = 0; data && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const char *kind = bb_compression_name(kinds[i]);

		z = compress_as(kinds[i], data, len, &zlen);
		snprintf(path, sizeof(path), "%s/hosts.%s", tmpdir, kind);
		err = z ? spit(path, z, zlen) : -ENOMEM;
		err = err ?: parse(&list, path, NULL, &c, &info, NULL, 2, 0);
		snprintf(name, sizeof(name), "%s: detected by its bytes, read as hosts", kind);
		ASSERT_TRUE(!err && info.compression == kinds[i] && info.format == BB_FORMAT_HOSTS,
			    name);
		snprintf(name, sizeof(name), "%s: the same entries and counts as the plain file",
			 kind);
		ASSERT_TRUE(!err && lists_equal(&plain, &list), name);
		bb_list_free(&list);

		err = z ? parse_piped(&list, z, zlen, &c, &info, NULL) : -ENOMEM;
		snprintf(name, sizeof(name), "%s from a pipe: the same entries", kind);
		ASSERT_TRUE(!err && info.compression == kinds[i] && lists_equal(&plain, &list), name);
		bb_list_free(&list);

		/* cut short, and corrupt: a clear error, nothing half-read kept quiet */
		snprintf(path, sizeof(path), "%s/cut.%s", tmpdir, kind);
		spit(path, z, zlen - 9);
		report = fmemopen(rep, sizeof(rep), "w");
		err = parse(&list, path, NULL, &c, NULL, report, 1, 0);
		fclose(report);
		snprintf(name, sizeof(name), "%s cut short: -EBADMSG, \"truncated\" with the name",
			 kind);
		ASSERT_TRUE(err == -EBADMSG && strstr(rep, path) && strstr(rep, "truncated"), name);
		bb_list_free(&list);
		if (zlen > 40) {
			z[zlen / 2] ^= 0x55;
			z[zlen / 2 + 1] ^= 0xaa;
		}
		spit(path, z, zlen);
		err = parse(&list, path, NULL, &c, NULL, NULL, 1, 0);
		snprintf(name, sizeof(name), "%s corrupt: an error, not a silent partial list",
			 kind);
		ASSERT_TRUE(err == -EBADMSG, name);
		bb_list_free(&list);
		free(z);
	}
	/* two gzip members: one stream (gzip -c a b > ab.gz) */
	if (data) {
		size_t l1, l2;
		char *a = compress_as(BB_COMPRESSION_GZIP, data, len / 2, &l1);
		char *b = compress_as(BB_COMPRESSION_GZIP, data + len / 2, len - len / 2, &l2);
		char *ab = malloc(l1 + l2);

		memcpy(ab, a, l1);
		memcpy(ab + l1, b, l2);
		snprintf(path, sizeof(path), "%s/two.gz", tmpdir);
		spit(path, ab, l1 + l2);
		err = parse(&list, path, NULL, &c, NULL, NULL, 1, 0);
		ASSERT_TRUE(!err && lists_equal(&plain, &list),
			    "gzip of two members: read as one stream");
		bb_list_free(&list);
		free(a);
		free(b);
		free(ab);
	}
	snprintf(path, sizeof(path), "%s/list.bz2", tmpdir);
	spit(path, "BZh91AY&SY\0\0\0", 13);
	report = fmemopen(rep, sizeof(rep), "w");
	err = parse(&list, path, NULL, &c, NULL, report, 1, 0);
	fclose(report);
	ASSERT_TRUE(err == -EBADMSG && strstr(rep, "bzip2"), "bzip2: refused, and said so");
	bb_list_free(&list);
	bb_list_free(&plain);
	free(data);
}

/* ---- a plain stream, long lines, NUL bytes, a file that changes while read ---- */

static void test_streams(void)
{
	static const char text[] = "# a stream\nevil.example\n192.0.2.1\t5\n";
	struct bb_list list;
	struct bb_list_counts c;
	struct bb_file_info info;
	int err = parse_piped(&list, text, sizeof(text) - 1, &c, &info, NULL);

	ASSERT_TRUE(!err && list.n == 2 && c.lines == 3 && info.format == BB_FORMAT_PLAIN &&
		    info.compression == BB_COMPRESSION_NONE, "a plain stream from a pipe");
	bb_list_free(&list);
}

static void test_long_lines(void)
{
	size_t len = 3 * BB_READER_BUF + 100, i;
	char *data = malloc(len + 64), path[700], rep[2048];
	struct bb_list list;
	struct bb_list_counts c;
	FILE *report;
	int err;

	if (!data) {
		ASSERT_TRUE(0, "long lines: memory");
		return;
	}
	/* a line three reader buffers long, between two good ones; a NUL in another */
	i = (size_t)sprintf(data, "first.example\n");
	memset(data + i, 'a', len - i);
	i = len;
	i += (size_t)sprintf(data + i, "\nsecond.example\nnul.exa");
	data[i++] = '\0';
	i += (size_t)sprintf(data + i, "mple\nthird.example\n");
	snprintf(path, sizeof(path), "%s/long.txt", tmpdir);
	spit(path, data, i);
	for (int threads = 1; threads <= 3; threads += 2) {
		char name[120];

		report = fmemopen(rep, sizeof(rep), "w");
		err = parse(&list, path, NULL, &c, NULL, report, (unsigned int)threads,
			    threads == 1 ? 0 : 4096);
		fclose(report);
		snprintf(name, sizeof(name), "a line of %zu bytes (%d thread%s): rejected whole, the "
			 "lines after it read", len, threads, threads == 1 ? "" : "s");
		ASSERT_TRUE(!err && c.lines == 5 && list.n == 3 &&
			    c.rejected[BB_REJECT_TOO_LONG] == 1 && c.rejected[BB_REJECT_SYNTAX] == 1 &&
			    strstr(rep, ":2: line longer than 4096 bytes (aaaa") &&
			    strstr(rep, ":4: NUL byte in line (nul.exa\\x00mple)"), name);
		bb_list_free(&list);
	}
	free(data);
}

struct truncate_ctx {
	const char *path;
	size_t entries;
	bool rewrite;		/* same size, new content, not shorter */
};

static void truncate_entry(void *ctx, unsigned int thread, const struct bb_entry *e)
{
	struct truncate_ctx *t = ctx;

	(void)thread;
	(void)e;
	if (t->entries++ != 10)
		return;
	if (t->rewrite) {
		int fd = open(t->path, O_WRONLY);

		if (fd >= 0) {
			/* a different mtime than when the load opened it */
			struct timespec ts[2] = { { 0, UTIME_OMIT }, { 1, 0 } };

			if (pwrite(fd, "x", 1, 0) != 1 || futimens(fd, ts))
				fprintf(stderr, "# rewrite failed\n");
			close(fd);
		}
	} else if (truncate(t->path, 100)) {
		fprintf(stderr, "# truncate failed\n");
	}
}

/* A cron job rewriting the list mid-load: an error, never SIGBUS, never half a list. */
static void test_changed_while_read(void)
{
	char path[700], rep[1024];
	size_t i, len = 0;
	int k;

	for (k = 0; k < 2; k++) {
		char *data = malloc(2 << 20);
		struct truncate_ctx t = { path, 0, k == 1 };
		struct bb_list_sink sink = { truncate_entry, &t };
		struct bb_list_opts o = { .threads = 1 };
		struct bb_list_counts c;
		FILE *report;
		int err;

		for (i = 0, len = 0; data && len < (2 << 20) - 32; i++)
			len += (size_t)sprintf(data + len, "host%zu.example\n", i);
		snprintf(path, sizeof(path), "%s/changing.txt", tmpdir);
		spit(path, data, len);
		report = fmemopen(rep, sizeof(rep), "w");
		o.report = report;
		err = bb_list_scan_file(path, &o, &sink, &c);
		fclose(report);
		ASSERT_TRUE(err == -ESTALE && strstr(rep, path) && strstr(rep, "changed while it was read"),
			    k ? "a file rewritten in place while read: -ESTALE, said so"
			      : "a file truncated while read: -ESTALE, said so");
		free(data);
	}
	/* a region read past the file's end is the same error */
	{
		struct bb_reader r;
		const char *line;
		bool too_long;
		int fd, rc = 0;

		spit(path, "a.example\nb.example\n", 20);
		fd = open(path, O_RDONLY);
		bb_reader_region(&r, fd, 0, UINT64_MAX, 1 << 20, NULL);
		while ((rc = bb_reader_next(&r, &line, &len, &too_long)) > 0)
			;
		ASSERT_TRUE(rc == -ESTALE && strstr(bb_reader_error(&r), "truncated"),
			    "reader: a file shorter than its size at open: -ESTALE");
		bb_reader_close(&r);
		close(fd);
	}
}

/* ---- reports and summaries ---- */

static void test_escaping(void)
{
	static const struct {
		const char *in;
		size_t len;
		const char *out;
	} cases[] = {
		{ "plain text", 10, "plain text" },
		{ "tab\there", 8, "tab\\x09here" },
		{ "esc\x1b[31mred", 11, "esc\\x1b[31mred" },
		{ "b\xc3\xbc" "cher", 7, "b\xc3\xbc" "cher" },
		{ "bad\xff\xfe", 5, "bad\\xff\\xfe" },
		{ "cut\xc3", 4, "cut\\xc3" },
		{ "c1\xc2\x9b", 4, "c1\\xc2\\x9b" },
		{ "back\\slash", 10, "back\\x5cslash" },
		{ "nul\0x", 5, "nul\\x00x" },
		{ "\xed\xa0\x80", 3, "\\xed\\xa0\\x80" },
	};
	char out[64], rep[512], path[700];
	struct bb_list list;
	size_t i;
	bool ok = true;
	FILE *report;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bb_escape_text(cases[i].in, cases[i].len, out, sizeof(out));
		if (strcmp(out, cases[i].out)) {
			ok = false;
			printf("# escape case %zu: \"%s\", expected \"%s\"\n", i, out, cases[i].out);
		}
	}
	ASSERT_TRUE(ok, "escaping: control bytes, invalid UTF-8, C1, backslash; UTF-8 kept");
	ASSERT_EQ(bb_escape_text("\x01\x02\x03", 3, out, 9), 2, "escaping: a cut never splits one");
	snprintf(path, sizeof(path), "%s/controls.txt", tmpdir);
	spit(path, "ev\x1b]0;owned\x07il.example\nb\xc3\xbc" "d!.example\n", 33);
	report = fmemopen(rep, sizeof(rep), "w");
	parse(&list, path, NULL, NULL, NULL, report, 1, 0);
	fclose(report);
	ASSERT_TRUE(!strchr(rep, '\x1b') && !strchr(rep, '\x07') &&
		    strstr(rep, "(ev\\x1b]0;owned\\x07il.example)") && strstr(rep, "b\xc3\xbc" "d!"),
		    "a reject report escapes control bytes, keeps UTF-8");
	bb_list_free(&list);
}

static void test_info(void)
{
	char path[700], rep[1024];
	struct bb_list list;
	struct bb_list_counts c;
	struct bb_file_info info;
	struct bb_file_opts fo = { .sets = "BLOCK4,NOSUCH" };
	FILE *report;
	int err;

	fixture(path, sizeof(path), "sets.ipset");
	err = parse(&list, path, &fo, &c, &info, NULL, 1, 0);
	ASSERT_TRUE(!err && info.n_sets == 6 && !strcmp(info.sets[0].name, "BLOCK4") &&
		    info.sets[0].entries == 6 && info.sets[0].chosen && !info.sets[2].chosen &&
		    info.sets[5].entries == 1 && !strcmp(info.sets[5].name, "NOCREATE"),
		    "ipset: every set named, its add lines counted, the chosen ones marked");
	ASSERT_TRUE(info.missing_set && !strncmp(info.missing_set, "NOSUCH", 6),
		    "ipset: a chosen set the file lacks is named");
	bb_list_free(&list);

	fixture(path, sizeof(path), "feed.csv");
	parse(&list, path, NULL, &c, &info, NULL, 1, 0);
	ASSERT_STREQ(info.column, "dst_ip (column 2)", "csv: the column read, by header name");
	bb_list_free(&list);
	fixture(path, sizeof(path), "urlhaus.csv");
	parse(&list, path, NULL, &c, &info, NULL, 1, 0);
	ASSERT_STREQ(info.column, "url (column 3)", "csv: a header written as a comment");
	bb_list_free(&list);
	fixture(path, sizeof(path), "drop.json");
	parse(&list, path, NULL, &c, &info, NULL, 1, 0);
	ASSERT_STREQ(info.column, "cidr", "json: the key read");
	bb_list_free(&list);

	fo = (struct bb_file_opts){ .format = BB_FORMAT_CSV, .column = "no_such_column" };
	fixture(path, sizeof(path), "feed.csv");
	report = fmemopen(rep, sizeof(rep), "w");
	err = parse(&list, path, &fo, &c, &info, report, 1, 0);
	fclose(report);
	ASSERT_TRUE(err == -EINVAL && strstr(rep, path) && strstr(rep, "no such column"),
		    "csv: --column the header lacks is an error naming the file");
	bb_list_free(&list);

	/* RPZ: the owners read as the triggers themselves, counted for the summary */
	fixture(path, sizeof(path), "absolute.rpz");
	parse(&list, path, NULL, &c, &info, NULL, 1, 0);
	ASSERT_EQ(info.rpz_absolute, 10,
		  "rpz: absolute owners with no $ORIGIN counted as read as triggers");
	bb_list_free(&list);
	fixture(path, sizeof(path), "policy.rpz");
	parse(&list, path, NULL, &c, &info, NULL, 1, 0);
	ASSERT_EQ(info.rpz_absolute, 0, "rpz: none with an $ORIGIN");
	bb_list_free(&list);

	/* the first line of each class, for the summary's warning */
	fixture(path, sizeof(path), "hosts.txt");
	parse(&list, path, NULL, &c, &info, NULL, 3, 64);
	ASSERT_TRUE(info.first[BB_CLASS_PREAMBLE].line == 4 &&
		    !strcmp(info.first[BB_CLASS_PREAMBLE].text, "127.0.0.1 localhost") &&
		    info.first[BB_CLASS_REJECTED].line == 26 && !info.first[BB_CLASS_SKIPPED].line,
		    "the first preamble and rejected lines, found across pieces");
	bb_list_free(&list);
}

/* ---- what is no list: binary data, an HTML page, a JSON error body ---- */

struct content_case {
	const char *name;
	const char *head;
	size_t len;		/* 0: strlen(head) */
	bool whole;
	enum bb_content want;
	const char *why;	/* a part of what it is said to be; NULL: none said */
};

#define T(s)	s, sizeof(s) - 1

static const struct content_case content_cases[] = {
	{ "a plain list", T("192.0.2.1\nevil.example\n"), true, BB_CONTENT_LIST, NULL },
	{ "a hosts file, its comment in UTF-8", T("# listé\n0.0.0.0 evil.example\n"), true,
	  BB_CONTENT_LIST, NULL },
	{ "a Latin-1 comment in a list", T("# list\xe9 par moi\n192.0.2.1\n203.0.113.9\n"),
	  true, BB_CONTENT_LIST, NULL },
	{ "a head cut inside a UTF-8 character", T("evil.example\n# caf\xc3"), false,
	  BB_CONTENT_LIST, NULL },
	{ "JSON lines, an object a line", T("{\"cidr\":\"192.0.2.0/24\",\"message\":\"x\"}\n"),
	  true, BB_CONTENT_LIST, NULL },
	{ "a JSON object with an entry key", T("{\"ip\": \"192.0.2.1\", \"error\": null}"), true,
	  BB_CONTENT_LIST, NULL },
	{ "an Adblock list", T("[Adblock Plus 2.0]\n||evil.example^\n##.ad\n"), true,
	  BB_CONTENT_LIST, NULL },
	{ "a NUL byte", T("evil.example\n\0x\n"), true, BB_CONTENT_BINARY,
	  "binary data (a NUL byte at offset 13)" },
	{ "NUL bytes", T("ab\0\0\0cd"), true, BB_CONTENT_BINARY,
	  "binary data (3 NUL bytes, the first at offset 2)" },
	{ "UTF-16 with its byte-order mark", T("\xff\xfe""e\0v\0"), true, BB_CONTENT_BINARY,
	  "UTF-16" },
	{ "control bytes and no NUL", T("\x01\x02\x03\x04\x05\x06 evil.example\n"), true,
	  BB_CONTENT_BINARY, "6 of its first 20 bytes are neither text nor UTF-8, the first at "
	  "offset 0" },
	{ "bytes of no UTF-8 sequence", T("\x91\x98\xb1\x93\xdd\xcf\xee\xe7\x9a\xcb"), true,
	  BB_CONTENT_BINARY, "binary data (" },
	{ "an HTML page with a title",
	  T("<!DOCTYPE html>\n<html><head><title>502  Bad\nGateway</title></head>\n"), true,
	  BB_CONTENT_HTML, "an HTML page, titled \"502 Bad Gateway\"" },
	{ "an HTML page after a BOM and blank lines",
	  T("\xef\xbb\xbf\n\n  <html>\n<body>Forbidden</body></html>"), true, BB_CONTENT_HTML,
	  "an HTML page (<html>)" },
	{ "an HTML page cut by the head's end", T("<HTML><HEAD><TITLE>Moved</TITLE>"), false,
	  BB_CONTENT_HTML, "titled \"Moved\"" },
	{ "XML", T("<?xml version=\"1.0\"?>\n<rss></rss>"), true, BB_CONTENT_HTML,
	  "markup, HTML or XML" },
	{ "a JSON error body", T("{\"error\":\"rate limit exceeded\",\"status\":429}\n"), true,
	  BB_CONTENT_JSON_ERROR, "a JSON error body, error \"rate limit exceeded\"" },
	{ "a JSON error body over lines",
	  T("{\n  \"message\": \"Not Found\",\n"
	    "  \"documentation_url\": \"https://x.example\"\n}\n"),
	  true, BB_CONTENT_JSON_ERROR, "message \"Not Found\"" },
	{ "a JSON error object of objects", T("{\"errors\":[{\"code\":\"UNAUTHORIZED\"}]}"), true,
	  BB_CONTENT_JSON_ERROR, "errors [{\"code\":\"UNAUTHORIZED\"}]" },
	{ "a JSON error body not whole in the head", T("{\"error\":\"x\"}"), false,
	  BB_CONTENT_LIST, NULL },
};

/* The head of a file told apart, then whole files: refused, said, in info. */
static void test_content(void)
{
	char why[256], path[700], rep[1024], name[200];
	struct bb_file_info info;
	struct bb_list_counts c;
	struct bb_list list;
	size_t i, zlen;
	FILE *report;
	char *z;
	int err;

	for (i = 0; i < sizeof(content_cases) / sizeof(content_cases[0]); i++) {
		const struct content_case *cc = &content_cases[i];
		enum bb_content got = bb_content_of(cc->head, cc->len, cc->whole, why, sizeof(why));

		snprintf(name, sizeof(name), "content: %s is %s", cc->name,
			 bb_content_name(cc->want));
		tap_result(got == cc->want && (cc->why ? strstr(why, cc->why) != NULL : !why[0]),
			   name, "got %s, \"%s\"", bb_content_name(got), why);
	}

	/* a file: refused with -EMEDIUMTYPE, named as what it is, never as a format */
	snprintf(path, sizeof(path), "%s/page.txt", tmpdir);
	spit(path, T("<!DOCTYPE html>\n<title>404 Not Found</title>\nevil.example\n"));
	report = fmemopen(rep, sizeof(rep), "w");
	err = parse(&list, path, NULL, &c, &info, report, 1, 0);
	fclose(report);
	ASSERT_TRUE(err == -EMEDIUMTYPE && info.content == BB_CONTENT_HTML && !list.n &&
		    strstr(rep, "page.txt: an HTML page, titled \"404 Not Found\", not a list\n"),
		    "an HTML page: refused, said so, no entry");
	bb_list_free(&list);
	snprintf(path, sizeof(path), "%s/junk.bin", tmpdir);
	spit(path, T("\x91'\x98)2\x99" "d\x7f\xb1\x93\xdd\n\0\x1f\xe7*||\n"));
	report = fmemopen(rep, sizeof(rep), "w");
	err = parse(&list, path, NULL, &c, &info, report, 1, 0);
	fclose(report);
	ASSERT_TRUE(err == -EMEDIUMTYPE && info.content == BB_CONTENT_BINARY &&
		    strstr(rep, "junk.bin: binary data (a NUL byte at offset 12), not a list\n") &&
		    !strstr(rep, "adblock") && !strstr(rep, "plain") && !strstr(rep, ":1:"),
		    "binary data: reported as binary, never as a format, no line reported");
	bb_list_free(&list);
	/* inflated first: binary data inside gzip is binary */
	z = compress_as(BB_COMPRESSION_GZIP, "evil.example\n\0\0\0\0", 17, &zlen);
	snprintf(path, sizeof(path), "%s/junk.gz", tmpdir);
	if (z)
		spit(path, z, zlen);
	free(z);
	err = parse(&list, path, NULL, &c, &info, NULL, 1, 0);
	ASSERT_TRUE(err == -EMEDIUMTYPE && info.content == BB_CONTENT_BINARY &&
		    info.compression == BB_COMPRESSION_GZIP,
		    "binary data in gzip: told from what it inflates to");
	bb_list_free(&list);
	/* told to read a format, it is still no list */
	{
		struct bb_file_opts fo = { .format = BB_FORMAT_HOSTS };
		struct bb_list_opts o = { .file = fo, .info = &info };
		struct bb_list_sink sink = { count_entry, NULL };
		size_t per_thread[BB_LIST_MAX_THREADS] = { 0 };

		snprintf(path, sizeof(path), "%s/error.json", tmpdir);
		spit(path, T("{\"message\": \"Bad credentials\"}\n"));
		err = parse(&list, path, &fo, &c, &info, NULL, 1, 0);
		ASSERT_TRUE(err == -EMEDIUMTYPE && info.content == BB_CONTENT_JSON_ERROR,
			    "a JSON error body under --format hosts: refused");
		bb_list_free(&list);
		sink.ctx = per_thread;
		err = bb_list_scan_file(path, &o, &sink, &c);
		ASSERT_TRUE(err == -EMEDIUMTYPE && info.content == BB_CONTENT_JSON_ERROR &&
			    strstr(info.content_why, "Bad credentials"),
			    "... and by a scan (a streamed load, a feed's check), why in info");
	}
}

/* ---- a list that mostly does not read: the lines that say so, counted ---- */

struct unreadable_case {
	const char *file;	/* a fixture, or NULL: text below */
	const char *text;
	bool mostly;
	const char *why;
};

static const struct unreadable_case unreadable_cases[] = {
	/* real formats whose rejects are constructs the filter cannot follow */
	{ "adblock.txt", NULL, false, NULL },
	{ "dnsmasq.conf", NULL, false, NULL },
	{ "policy.rpz", NULL, false, NULL },
	/* a hosts file's preamble, comments: not lines that fail to read */
	{ "hosts.txt", NULL, false, NULL },
	{ NULL, "# a list of mostly comments\n# one\n# two\n# three\n\n192.0.2.1\n", false, NULL },
	{ NULL, "||a.example^$third-party\n||b.example^$script\n/ads/*\n##.ad\nc.example\n", false,
	  NULL },
	/* half is not more than half */
	{ NULL, "192.0.2.1\nnot a list line\n", false, NULL },
	/* text that is no list: an error message, a traceback */
	{ NULL, "Traceback (most recent call last):\n  File \"x.py\", line 3\nValueError: x\n"
	  "404 Not Found\nForbidden\nevil.example\n", true,
	  "5 of its 6 lines that are not blank or comments (83%, more than half) do not read "
	  "as plain" },
	{ "semicolon.csv", NULL, true, "3 of its 3 lines" },
};

static void test_unreadable(void)
{
	char path[700], why[256], name[200];
	struct bb_file_info info;
	struct bb_list_counts c;
	struct bb_list list;
	size_t i;

	for (i = 0; i < sizeof(unreadable_cases) / sizeof(unreadable_cases[0]); i++) {
		const struct unreadable_case *uc = &unreadable_cases[i];
		bool got;

		if (uc->file) {
			fixture(path, sizeof(path), uc->file);
		} else {
			snprintf(path, sizeof(path), "%s/unreadable-%zu.txt", tmpdir, i);
			spit(path, uc->text, strlen(uc->text));
		}
		why[0] = '\0';
		parse(&list, path, NULL, &c, &info, NULL, 1, 0);
		got = bb_list_mostly_unreadable(&c, bb_list_format_name(info.format), why,
						sizeof(why));
		snprintf(name, sizeof(name), "unreadable: %s: %s", uc->file ? uc->file :
			 uc->why ? "text that is no list" : "a list", uc->mostly ?
			 "mostly does not read" : "reads");
		tap_result(got == uc->mostly && (!uc->why || strstr(why, uc->why)), name,
			   "got %d, \"%s\"", got, why);
		bb_list_free(&list);
	}
}

int main(void)
{
	const char *dir = getenv("BB_FIXTURES");
	char cmd[128];

	if (dir && *dir)
		snprintf(fixtures, sizeof(fixtures), "%s", dir);
	tap_plan_header();
	if (!mkdtemp(tmpdir)) {
		ASSERT_TRUE(0, "mkdtemp");
		return tap_finish();
	}
	test_file_cases();
	test_entries();
	test_pieces();
	test_scans();
	test_compressed();
	test_streams();
	test_long_lines();
	test_changed_while_read();
	test_escaping();
	test_info();
	test_content();
	test_unreadable();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		fprintf(stderr, "# could not remove %s\n", tmpdir);
	return tap_finish();
}

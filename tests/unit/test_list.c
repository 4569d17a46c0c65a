/* SPDX-License-Identifier: GPL-2.0 */
/* Unit tests of the blocklist parser: line formats, canonical names, the real lists. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "list.h"
#include "reader.h"
#include "lib/counts.h"
#include "rng.h"
#include "tap.h"

#define R(reason)	(-(1 + (reason)))

/* What a line that adds no entry was counted as. */
enum counted {
	C_ENTRY,
	C_BLANK,
	C_COMMENT,
	C_PREAMBLE,
	C_REJECT,
	C_ALLOW,	/* an allowlist entry */
};

struct line_case {
	const char *line;
	int ret;		/* 1 entry, 0 nothing, R(reason) rejected */
	enum counted counted;
	enum bb_entry_kind kind;
	int plen;
	const char *addr;	/* IP entries: the expected (masked) address */
	const char *text;	/* NAME and URL entries */
	int flags;
};

#define ENTRY_IP(l, k, p, a)	{ l, 1, C_ENTRY, k, p, a, NULL, 0 }
#define ENTRY_NAME(l, t)	{ l, 1, C_ENTRY, BB_ENTRY_NAME, 0, NULL, t, 0 }
#define ENTRY_URL(l, t)		{ l, 1, C_ENTRY, BB_ENTRY_URL, 0, NULL, t, 0 }
#define NONE(l, c)		{ l, 0, c, 0, 0, NULL, NULL, 0 }
#define REJECT(l, r)		{ l, R(r), C_REJECT, 0, 0, NULL, NULL, 0 }

static const struct line_case line_cases[] = {
	/* blank and comments */
	NONE("", C_BLANK),
	NONE("   \t ", C_BLANK),
	NONE("\r", C_BLANK),
	NONE("\xef\xbb\xbf", C_BLANK),
	NONE("# hosts comment", C_COMMENT),
	NONE("; Spamhaus DROP List 2025/01/17", C_COMMENT),
	NONE("! Title: NoCoin Filter List", C_COMMENT),
	NONE("[Adblock Plus 2.0]", C_COMMENT),
	NONE("\t\t\t\t\t# up CSS on livejournal ", C_COMMENT),
	NONE("\xef\xbb\xbf# comment after a BOM\r", C_COMMENT),
	NONE("; EOF", C_COMMENT),

	/* addresses and CIDRs */
	ENTRY_IP("192.0.2.1", BB_ENTRY_IP4, 32, "192.0.2.1"),
	ENTRY_IP("192.0.2.1/24", BB_ENTRY_IP4, 24, "192.0.2.0"),
	ENTRY_IP("10.255.0.0/8", BB_ENTRY_IP4, 8, "10.0.0.0"),
	ENTRY_IP("0.0.0.0/0", BB_ENTRY_IP4, 0, "0.0.0.0"),
	ENTRY_IP("1.10.16.0/20 ; SBL256894", BB_ENTRY_IP4, 20, "1.10.16.0"),
	ENTRY_IP("2001:db8::1", BB_ENTRY_IP6, 128, "2001:db8::1"),
	ENTRY_IP("2001:db8::1/32", BB_ENTRY_IP6, 32, "2001:db8::"),
	ENTRY_IP("2001:678:6c4::/48 ; SBL626637", BB_ENTRY_IP6, 48, "2001:678:6c4::"),
	ENTRY_IP("2602:ffa0::/36\r", BB_ENTRY_IP6, 36, "2602:ffa0::"),
	ENTRY_IP("[2001:db8::2]", BB_ENTRY_IP6, 128, "2001:db8::2"),
	REJECT("300.1.1.1", BB_REJECT_BAD_ADDRESS),
	REJECT("1.2.3.4/33", BB_REJECT_BAD_ADDRESS),
	REJECT("1.2.3.4/", BB_REJECT_BAD_ADDRESS),
	REJECT("1.2.3.4/024", BB_REJECT_BAD_ADDRESS),
	REJECT("1.2.3", BB_REJECT_BAD_ADDRESS),
	REJECT("01.2.3.4", BB_REJECT_BAD_ADDRESS),
	REJECT("2001:db8::/129", BB_REJECT_BAD_ADDRESS),
	REJECT("2001:db8:::1", BB_REJECT_BAD_ADDRESS),
	REJECT("fe80::1%lo0", BB_REJECT_BAD_ADDRESS),

	/* names */
	ENTRY_NAME("evil.example", "evil.example"),
	ENTRY_NAME("EVIL.Example.", "evil.example"),
	ENTRY_NAME("evil.example\r", "evil.example"),
	ENTRY_NAME("\xef\xbb\xbf" "evil.example\r", "evil.example"),
	ENTRY_NAME(" \tevil.example\t ", "evil.example"),
	ENTRY_NAME("evil.example # inline comment", "evil.example"),
	ENTRY_NAME("ghm_bulgaria.hit.gemius.pl", "ghm_bulgaria.hit.gemius.pl"),
	ENTRY_NAME("secret.xn--oogle-wmc.com", "secret.xn--oogle-wmc.com"),
	ENTRY_NAME("b\xc3\xbc" "cher.example", "xn--bcher-kva.example"),
	ENTRY_NAME("B\xc3\x9c" "CHER.Example.", "xn--bcher-kva.example"),
	ENTRY_NAME("038d159d-b3bc-44dd-a0c4-bec68c0c4123.random.bb2023.duckdns.org",
		   "038d159d-b3bc-44dd-a0c4-bec68c0c4123.random.bb2023.duckdns.org"),
	{ "*.evil.example", 1, C_ENTRY, BB_ENTRY_NAME, 0, NULL, "evil.example",
	  BB_ENTRY_F_SUBDOMAINS_ONLY },
	REJECT("notevil", BB_REJECT_SINGLE_LABEL),
	REJECT("*.com", BB_REJECT_SINGLE_LABEL),
	REJECT("ev!l.example", BB_REJECT_BAD_NAME),
	REJECT("a..b.example", BB_REJECT_BAD_NAME),
	REJECT("xn--a.\xff\xfe.example", BB_REJECT_BAD_NAME),

	/* hosts files */
	ENTRY_NAME("0.0.0.0 evil.example", "evil.example"),
	ENTRY_NAME("127.0.0.1 analytics.163.com", "analytics.163.com"),
	ENTRY_NAME("0.0.0.0\tevil.example", "evil.example"),
	ENTRY_NAME(":: evil.example", "evil.example"),
	ENTRY_NAME("0.0.0.0 Evil.Example.\r", "evil.example"),
	ENTRY_NAME("0.0.0.0 jackbootedroom.com  ## phishing", "jackbootedroom.com"),
	ENTRY_NAME("0.0.0.0 fgoogle.com  # misspelling", "fgoogle.com"),
	ENTRY_NAME("0.0.0.0 evil.example#no space", "evil.example"),
	ENTRY_NAME("0.0.0.0 -x3.vindicosuite.com", "-x3.vindicosuite.com"),
	NONE("0.0.0.0 0.0.0.0", C_PREAMBLE),
	NONE("127.0.0.1 localhost", C_PREAMBLE),
	NONE("127.0.0.1  localhost", C_PREAMBLE),
	NONE("::1  localhost", C_PREAMBLE),
	NONE("127.0.0.1 localhost.localdomain", C_PREAMBLE),
	NONE("127.0.0.1 local", C_PREAMBLE),
	NONE("255.255.255.255 broadcasthost", C_PREAMBLE),
	NONE("::1 ip6-loopback", C_PREAMBLE),
	NONE("fe80::1%lo0 localhost", C_PREAMBLE),
	NONE("ff00::0 ip6-mcastprefix", C_PREAMBLE),
	NONE("ff02::1 ip6-allnodes", C_PREAMBLE),
	NONE("127.0.1.1 hercules", C_PREAMBLE),
	NONE("127.0.0.53 hercules", C_PREAMBLE),
	NONE("127.0.1.1 hercules.iad.appboy.com", C_PREAMBLE),
	NONE("0.0.0.0 wpad", C_PREAMBLE),
	NONE("0.0.0.0 WPAD.", C_PREAMBLE),
	REJECT("0.0.0.0 130.211.230.53", BB_REJECT_IP_AS_NAME),
	REJECT("::1 ::1", BB_REJECT_IP_AS_NAME),
	REJECT("300.0.0.1 evil.example", BB_REJECT_BAD_ADDRESS),
	REJECT("0.0.0.0 ev!l.example", BB_REJECT_BAD_NAME),
	REJECT("evil.example other.example", BB_REJECT_SYNTAX),

	/* an address with more columns: the address is the entry, the rest data */
	ENTRY_IP("192.0.2.1\t12", BB_ENTRY_IP4, 32, "192.0.2.1"),
	ENTRY_IP("192.0.2.1 3", BB_ENTRY_IP4, 32, "192.0.2.1"),
	ENTRY_IP("198.51.100.7   0.75", BB_ENTRY_IP4, 32, "198.51.100.7"),
	ENTRY_IP("198.51.100.0/24\t2021-01-05", BB_ENTRY_IP4, 24, "198.51.100.0"),
	ENTRY_IP("203.0.113.5 2021-01-05 07:44:46 SBL123", BB_ENTRY_IP4, 32, "203.0.113.5"),
	ENTRY_IP("192.0.2.1,2021-01-05,malware", BB_ENTRY_IP4, 32, "192.0.2.1"),
	ENTRY_IP("192.0.2.1;SBL1", BB_ENTRY_IP4, 32, "192.0.2.1"),
	ENTRY_IP("2001:db8::5|high", BB_ENTRY_IP6, 128, "2001:db8::5"),
	ENTRY_IP("192.0.2.1 SBL123", BB_ENTRY_IP4, 32, "192.0.2.1"),
	ENTRY_IP("2001:db8::/32 17", BB_ENTRY_IP6, 32, "2001:db8::"),
	ENTRY_IP("10.1.2.3 5", BB_ENTRY_IP4, 32, "10.1.2.3"),
	ENTRY_IP("192.0.2.1 255.255.255.0", BB_ENTRY_IP4, 24, "192.0.2.0"),
	ENTRY_IP("192.0.2.1 0.0.0.0", BB_ENTRY_IP4, 0, "0.0.0.0"),
	ENTRY_IP("192.0.2.1 255.0.255.0", BB_ENTRY_IP4, 32, "192.0.2.1"),
	REJECT("203.0.113.9 evil.example", BB_REJECT_HOSTS_MAPPING),
	REJECT("203.0.113.9 www.evil.example evil.example", BB_REJECT_HOSTS_MAPPING),
	REJECT("2001:db8::9 evil.example", BB_REJECT_HOSTS_MAPPING),
	NONE("10.1.2.3 router.lan", C_PREAMBLE),
	NONE("192.168.1.1 router", C_PREAMBLE),
	ENTRY_IP("198.51.100.0/24 evil.example", BB_ENTRY_IP4, 24, "198.51.100.0"),
	ENTRY_IP("10.0.0.0/8 bogon", BB_ENTRY_IP4, 8, "10.0.0.0"),
	ENTRY_IP("0.0.0.0/8 reserved", BB_ENTRY_IP4, 8, "0.0.0.0"),
	REJECT("fe80::1%eth0 5", BB_REJECT_BAD_ADDRESS),

	/* ranges, IPv4-mapped IPv6 */
	ENTRY_IP("192.0.2.0-192.0.2.255", BB_ENTRY_IP4, 24, "192.0.2.0"),
	ENTRY_IP("192.0.2.4 - 192.0.2.7", BB_ENTRY_IP4, 30, "192.0.2.4"),
	ENTRY_IP("192.0.2.9-192.0.2.9", BB_ENTRY_IP4, 32, "192.0.2.9"),
	ENTRY_IP("0.0.0.0-255.255.255.255", BB_ENTRY_IP4, 0, "0.0.0.0"),
	ENTRY_IP("2001:db8::-2001:db8::ffff", BB_ENTRY_IP6, 112, "2001:db8::"),
	ENTRY_IP("192.0.2.0-192.0.2.255 # a comment", BB_ENTRY_IP4, 24, "192.0.2.0"),
	ENTRY_IP("192.0.2.0-192.0.2.255\t7", BB_ENTRY_IP4, 24, "192.0.2.0"),
	REJECT("192.0.2.9-192.0.2.1", BB_REJECT_BAD_ADDRESS),
	REJECT("192.0.2.1-2001:db8::1", BB_REJECT_BAD_ADDRESS),
	REJECT("192.0.2.1-192.0.2.300", BB_REJECT_BAD_ADDRESS),
	ENTRY_IP("::ffff:192.0.2.1", BB_ENTRY_IP4, 32, "192.0.2.1"),
	ENTRY_IP("::FFFF:192.0.2.0/120", BB_ENTRY_IP4, 24, "192.0.2.0"),
	ENTRY_IP("::ffff:0:0/96", BB_ENTRY_IP4, 0, "0.0.0.0"),
	ENTRY_IP("::ffff:0:0/80", BB_ENTRY_IP6, 80, "::"),
	ENTRY_IP("::ffff:c000:201", BB_ENTRY_IP4, 32, "192.0.2.1"),

	/* names a list holds that look like other things */
	ENTRY_NAME("_dmarc.evil.example", "_dmarc.evil.example"),
	ENTRY_NAME("_sip._tcp.evil.example", "_sip._tcp.evil.example"),
	ENTRY_NAME("1-800-flowers.example", "1-800-flowers.example"),
	ENTRY_NAME("111.190.202.64.host.secureserver.net",
		   "111.190.202.64.host.secureserver.net"),

	/* URLs */
	/* a URL without a path is still a URL: every path of the host, HTTP only */
	ENTRY_URL("http://evil.example", "evil.example/"),
	ENTRY_URL("https://evil.example/", "evil.example/"),
	ENTRY_URL("https://xn--bankofamerica-yhc.ph", "xn--bankofamerica-yhc.ph/"),
	ENTRY_URL("evil.example/", "evil.example/"),
	ENTRY_URL("HTTP://Evil.Example:8080/Path/To?Q=1#frag", "evil.example/Path/To?Q=1"),
	ENTRY_URL("https://instagramrecovery.blogspot.com/?m=1",
		  "instagramrecovery.blogspot.com/?m=1"),
	ENTRY_URL("https://evil.example?m=1", "evil.example/?m=1"),
	ENTRY_URL("http://trackingnumbers.org/go-fedex.html", "trackingnumbers.org/go-fedex.html"),
	ENTRY_URL("http://user@evil.example/a", "evil.example/a"),
	ENTRY_URL("https://x.edgeone.dev/?eta=t@a.net", "x.edgeone.dev/?eta=t@a.net"),
	ENTRY_URL("https://od.example/matpwp#/main?type=x", "od.example/matpwp"),
	ENTRY_URL("http://192.0.2.7/", "192.0.2.7/"),
	ENTRY_URL("http://192.0.2.7/x.exe", "192.0.2.7/x.exe"),
	ENTRY_URL("http://[2001:DB8::1]:80/a", "[2001:db8::1]/a"),
	ENTRY_URL("evil.example/phish/", "evil.example/phish/"),
	REJECT("ftp://evil.example/", BB_REJECT_SYNTAX),
	REJECT("http://localhost/", BB_REJECT_SINGLE_LABEL),
	REJECT("http://evil.example:80x/", BB_REJECT_SYNTAX),
	REJECT("http:///path", BB_REJECT_SYNTAX),

	/* Adblock */
	ENTRY_NAME("||evil.example^", "evil.example"),
	ENTRY_IP("||45.15.156.210^", BB_ENTRY_IP4, 32, "45.15.156.210"),
	ENTRY_NAME("||wegrowcoaching.com^$all", "wegrowcoaching.com"),
	ENTRY_NAME("||evil.example^$document", "evil.example"),
	ENTRY_NAME("||freecontent.date", "freecontent.date"),
	ENTRY_URL("||bitbucket.org/a/b%c3%b3.zip^$all", "bitbucket.org/a/b%c3%b3.zip"),
	ENTRY_URL("||cdn.glitch.global/2b1c/sun.dll?v=1731154698549^$all",
		  "cdn.glitch.global/2b1c/sun.dll?v=1731154698549"),
	ENTRY_URL("||abcocomputers.com/?u=script^$all", "abcocomputers.com/?u=script"),
	ENTRY_URL("||shrink-service.it/js/cM.js", "shrink-service.it/js/cM.js"),
	ENTRY_URL("|http://evil.example/a|", "evil.example/a"),
	ENTRY_URL("|https://evil.example/b^", "evil.example/b"),
	REJECT("||2miners.com^$third-party", BB_REJECT_OPTIONS),
	REJECT("||35.194.26.233^$third-party", BB_REJECT_OPTIONS),
	REJECT("||go.megabanners.cf^$websocket", BB_REJECT_OPTIONS),
	REJECT("||authedwebmine.cz^$third-party,domain=~webmine.cz", BB_REJECT_OPTIONS),
	REJECT("||uptostream.*/assets/$subdocument", BB_REJECT_OPTIONS),
	REJECT("||evil.example^$all,third-party", BB_REJECT_OPTIONS),
	REJECT("||dekoder.ws^*?proxy=", BB_REJECT_PATTERN),
	REJECT("||kinokongo.cc^*.php", BB_REJECT_PATTERN),
	REJECT("||evil.example:8080^", BB_REJECT_PATTERN),
	REJECT("||com^", BB_REJECT_SINGLE_LABEL),
	/* exceptions: what the rule would block, allowed; narrowed ones are not */
	REJECT("@@||api.nyda.pro^$websocket", BB_REJECT_OPTIONS),
	REJECT("@@||lags.win/ctf$websocket", BB_REJECT_OPTIONS),
	{ "@@||good.example^", 1, C_ALLOW, BB_ENTRY_NAME, 0, NULL, "good.example",
	  BB_ENTRY_F_ALLOW },
	{ "@@||192.0.2.9^", 1, C_ALLOW, BB_ENTRY_IP4, 32, "192.0.2.9", NULL, BB_ENTRY_F_ALLOW },
	{ "@@||good.example/safe/", 1, C_ALLOW, BB_ENTRY_URL, 0, NULL, "good.example/safe/",
	  BB_ENTRY_F_ALLOW },
	{ "@@good.example", 1, C_ALLOW, BB_ENTRY_NAME, 0, NULL, "good.example",
	  BB_ENTRY_F_ALLOW },
	REJECT("@@", BB_REJECT_EXCEPTION),
	REJECT("@@@@||good.example^", BB_REJECT_EXCEPTION),
	REJECT("example.com##.ad", BB_REJECT_COSMETIC),
	REJECT("example.com#@#.ad", BB_REJECT_COSMETIC),
	REJECT("example.com#?#div:has(> a)", BB_REJECT_COSMETIC),
	REJECT("example.com#$#body { x: y }", BB_REJECT_COSMETIC),
	REJECT("-coin-hive.js", BB_REJECT_PATTERN),
	REJECT("-monero-miner-", BB_REJECT_PATTERN),
	REJECT("/crypto-miner/*", BB_REJECT_PATTERN),
	REJECT("/bootstrap.wasm$third-party", BB_REJECT_PATTERN),
	REJECT(".aspx?poolid=", BB_REJECT_PATTERN),
	REJECT("?*.spacepools.", BB_REJECT_PATTERN),
	REJECT("=ws://*?pool=", BB_REJECT_PATTERN),
	REJECT("/^https?:\\/\\/([0-9a-z\\.-_]+)\\.(bid|cf)\\.\\/(.*)/$script,third-party",
	       BB_REJECT_PATTERN),
	REJECT("|http://evil.example/*.js", BB_REJECT_PATTERN),
	REJECT("$websocket,domain=a.example|b.example", BB_REJECT_PATTERN),
	REJECT("$csp=child-src 'none'; frame-src *; worker-src 'none',domain=a.example",
	       BB_REJECT_PATTERN),
};

static void addr_bytes(const char *text, __u8 *out)
{
	memset(out, 0, 16);
	if (inet_pton(AF_INET, text, out) != 1 && inet_pton(AF_INET6, text, out) != 1)
		fprintf(stderr, "bad address in test table: %s\n", text);
}

static size_t counted(const struct bb_list_counts *c, enum counted what)
{
	switch (what) {
	case C_ENTRY:
		return c->accepted[BB_ENTRY_IP4] + c->accepted[BB_ENTRY_IP6] +
		       c->accepted[BB_ENTRY_NAME] + c->accepted[BB_ENTRY_URL];
	case C_BLANK:
		return c->blank;
	case C_COMMENT:
		return c->comments;
	case C_PREAMBLE:
		return c->preamble;
	case C_REJECT:
		return bb_list_rejected_total(c);
	case C_ALLOW:
		return c->allow[BB_ENTRY_IP4] + c->allow[BB_ENTRY_IP6] +
		       c->allow[BB_ENTRY_NAME] + c->allow[BB_ENTRY_URL];
	}
	return 0;
}

/* Why the entry a line gave differs from the case, or NULL when it matches. */
static const char *entry_mismatch(const struct line_case *tc, const struct bb_list *list)
{
	const struct bb_entry *e;
	__u8 addr[16];

	if (tc->ret != 1)
		return list->n ? "an entry was added" : NULL;
	if (list->n != 1)
		return "not exactly one entry";
	e = &list->entries[0];
	if (e->kind != tc->kind)
		return "kind";
	if (e->flags != tc->flags)
		return "flags";
	if (tc->kind == BB_ENTRY_IP4 || tc->kind == BB_ENTRY_IP6) {
		addr_bytes(tc->addr, addr);
		if (e->plen != tc->plen)
			return "prefix length";
		if (memcmp(e->addr, addr, 16) || e->text)
			return "address";
		return NULL;
	}
	if (!e->text || strcmp(e->text, tc->text))
		return "text";
	return NULL;
}

static void test_line_table(void)
{
	size_t i;

	for (i = 0; i < sizeof(line_cases) / sizeof(line_cases[0]); i++) {
		const struct line_case *tc = &line_cases[i];
		const char *why = NULL, *bad;
		struct bb_list list;
		char name[200];
		int ret;

		bb_list_init(&list);
		ret = bb_list_parse_line(&list, tc->line, strlen(tc->line), &why);
		bad = entry_mismatch(tc, &list);
		if (!bad && counted(&list.counts, tc->counted) != 1)
			bad = "counted in the wrong category";
		if (!bad && tc->counted == C_ALLOW && counted(&list.counts, C_ENTRY))
			bad = "an allowlist entry counted as a block entry too";
		if (!bad && list.counts.lines != 1)
			bad = "line not counted";
		if (!bad && ret < 0 && (!why || !*why))
			bad = "reject without a reason";
		snprintf(name, sizeof(name), "line %zu: %.60s", i, tc->line);
		for (char *p = name; *p; p++)
			if (*p == '\r' || *p == '\t' || *p == '#')
				*p = ' ';
		tap_result(ret == tc->ret && !bad, name,
			   "returned %d (%s), expected %d; %s; text %s", ret, ret < 0 ? why : "-",
			   tc->ret, bad ? bad : "entry ok",
			   list.n && list.entries[0].text ? list.entries[0].text : "(none)");
		bb_list_free(&list);
	}
}

/* Cases built at run time: lengths at the limits. */
static void test_lengths(void)
{
	char line[5000], label[80], name[300], url[400];
	struct bb_list list;
	const char *why;
	int ret;

	memset(label, 'a', 63);
	strcpy(label + 63, ".example");
	bb_list_init(&list);
	ret = bb_list_parse_line(&list, label, strlen(label), &why);
	ASSERT_EQ(ret, 1, "63-byte label accepted");
	memset(label, 'a', 64);
	strcpy(label + 64, ".example");
	ret = bb_list_parse_line(&list, label, strlen(label), &why);
	ASSERT_EQ(ret, R(BB_REJECT_BAD_NAME), "64-byte label rejected");

	/* 63 + 1 + 63 + 1 + 63 + 1 + 61 = 253 bytes */
	memset(name, 'b', 253);
	name[63] = name[127] = name[191] = '.';
	name[253] = '\0';
	ret = bb_list_parse_line(&list, name, strlen(name), &why);
	ASSERT_EQ(ret, 1, "253-byte name accepted");
	ASSERT_EQ(strlen(list.entries[list.n - 1].text), 253, "253-byte name kept whole");
	name[253] = 'b';
	name[254] = '\0';
	ret = bb_list_parse_line(&list, name, strlen(name), &why);
	ASSERT_EQ(ret, R(BB_REJECT_BAD_NAME), "254-byte name rejected");

	/* "evil.example/" is 13 bytes: a path of 242 bytes makes a 255-byte URL key text. */
	strcpy(url, "http://evil.example/");
	memset(url + 20, 'p', 242);
	url[262] = '\0';
	ret = bb_list_parse_line(&list, url, strlen(url), &why);
	ASSERT_EQ(ret, 1, "255-byte URL text accepted");
	url[262] = 'p';
	url[263] = '\0';
	ret = bb_list_parse_line(&list, url, strlen(url), &why);
	ASSERT_EQ(ret, R(BB_REJECT_TOO_LONG), "256-byte URL text rejected");

	memset(line, 'x', 4097);
	memcpy(line, "0.0.0.0 a.", 10);
	ret = bb_list_parse_line(&list, line, 4097, &why);
	ASSERT_EQ(ret, R(BB_REJECT_TOO_LONG), "4097-byte line rejected");
	ASSERT_EQ(list.counts.rejected[BB_REJECT_TOO_LONG], 2, "too_long counted twice");
	bb_list_free(&list);
}

struct item_case {
	const char *item;
	int ret;
	enum bb_entry_kind kind;
	int plen;
	const char *text;
	int flags;
};

static const struct item_case item_cases[] = {
	{ "192.0.2.1", 0, BB_ENTRY_IP4, 32, NULL, 0 },
	{ " 192.0.2.99/24 ", 0, BB_ENTRY_IP4, 24, NULL, 0 },
	{ "2001:db8::/32", 0, BB_ENTRY_IP6, 32, NULL, 0 },
	{ "Evil.Example.", 0, BB_ENTRY_NAME, 0, "evil.example", 0 },
	{ "*.evil.example", 0, BB_ENTRY_NAME, 0, "evil.example", BB_ENTRY_F_SUBDOMAINS_ONLY },
	{ "http://evil.example/phish/login?x=1", 0, BB_ENTRY_URL, 0,
	  "evil.example/phish/login?x=1", 0 },
	{ "evil.example/phish/", 0, BB_ENTRY_URL, 0, "evil.example/phish/", 0 },
	{ "localhost", 0, BB_ENTRY_NAME, 0, "localhost", 0 },	/* a question, not an entry */
	{ "-x3.vindicosuite.com", 0, BB_ENTRY_NAME, 0, "-x3.vindicosuite.com", 0 },
	{ "300.1.1.1", R(BB_REJECT_BAD_ADDRESS), 0, 0, NULL, 0 },
	{ "ev!l.example", R(BB_REJECT_BAD_NAME), 0, 0, NULL, 0 },
	{ "", R(BB_REJECT_SYNTAX), 0, 0, NULL, 0 },
};

static void test_items(void)
{
	size_t i;

	for (i = 0; i < sizeof(item_cases) / sizeof(item_cases[0]); i++) {
		const struct item_case *tc = &item_cases[i];
		struct bb_entry e;
		char text[BB_KEY_MAX + 1], name[100];
		const char *why = NULL;
		int ret = bb_list_parse_item(tc->item, &e, text, sizeof(text), &why);
		bool ok = ret == tc->ret;

		if (ok && !ret)
			ok = e.kind == tc->kind && e.flags == tc->flags &&
			     (tc->text ? e.text && !strcmp(e.text, tc->text) && e.text == text :
					 e.plen == tc->plen && !e.text);
		if (ok && ret)
			ok = why && *why;
		snprintf(name, sizeof(name), "item %zu: \"%s\"", i, tc->item);
		tap_result(ok, name, "returned %d (%s), expected %d; kind %d text %s", ret,
			   ret ? why : "-", tc->ret, e.kind, !ret && e.text ? e.text : "(none)");
	}
}

static void test_names(void)
{
	static const char *const kinds[] = { "ipv4", "ipv6", "name", "url" };
	static const char *const reasons[] = {
		"syntax", "bad_address", "bad_name", "single_label", "exception", "options",
		"cosmetic", "pattern", "too_long", "ip_as_name", "hosts_mapping", "unsupported",
		"too_wide",
	};
	static const char *const skips[] = {
		"directive", "answer", "trigger", "other_set",
	};
	char out[BB_NAME_MAX + 1];
	const char *why = NULL;
	bool ok = true;
	int i;

	for (i = 0; i < BB_ENTRY_KIND_MAX; i++)
		ok &= !strcmp(bb_entry_kind_name(i), kinds[i]);
	ASSERT_TRUE(ok, "entry kind names");
	ok = true;
	for (i = 0; i < BB_REJECT_REASON_MAX; i++)
		ok &= !strcmp(bb_reject_reason_name(i), reasons[i]);
	ASSERT_TRUE(ok, "reject reason names");
	ok = true;
	for (i = 0; i < BB_SKIP_REASON_MAX; i++)
		ok &= !strcmp(bb_skip_reason_name(i), skips[i]);
	ASSERT_TRUE(ok, "skip reason names");

	ASSERT_EQ(bb_name_canonical("M\xc3\xbcnchen.DE", 11, out, sizeof(out), &why), 0,
		  "canonical IDN accepted");
	ASSERT_STREQ(out, "xn--mnchen-3ya.de", "canonical IDN is punycode");
	why = NULL;
	ASSERT_EQ(bb_name_canonical("a\xe2\x80\x8d" "b.example", 12, out, sizeof(out), &why),
		  R(BB_REJECT_BAD_NAME), "canonical rejects a ZWJ outside its context");
	ASSERT_TRUE(why && strstr(why, "IDN"), "IDN failure says why");
	ASSERT_EQ(bb_name_canonical("evil.example", 12, out, 5, &why), R(BB_REJECT_TOO_LONG),
		  "canonical respects the output size");
}

/* ---- files ---- */

static char lists_dir[1024];

static void list_path(char *out, size_t size, const char *file)
{
	snprintf(out, size, "%s/%s", lists_dir, file);
}

struct file_case {
	const char *file;
	size_t lines, ip4, ip6, names, urls, dups, blank, comments, preamble;
	size_t rejected[BB_REJECT_REASON_MAX];
	enum bb_list_format format;	/* what it is detected as */
	size_t skipped[BB_SKIP_REASON_MAX];
};

/*
 * Expected counts, derived with awk/grep on the files and checked against the
 * README (see the report of the change that added them):
 * - stevenblack: 60,603 hosts lines = 16 preamble lines (localhost... 0.0.0.0 0.0.0.0,
 *   hercules x2) + 60,587 "0.0.0.0 name" (the README's "unique domains"). Of those,
 *   "0.0.0.0 wpad" is a single label (preamble) and "0.0.0.0 130.211.230.53" an IP:
 *   60,585 names.
 * - urlhaus ublock: 3,509 path rules, one 445 bytes long: 3,508 URLs, 1 too long;
 *   619 bare names + ||wegrowcoaching.com^$all = 620 names.
 * - nocoin-adblock: 212 "||" rules = 58 names (47 "||x^", 11 "||x") + 1 IP + 5 paths
 *   + 145 with options + 3 wildcards; 97 generic rules (72 + 25 with options) and the
 *   3 wildcards are patterns; 25 comments = 24 "!" + the [Adblock Plus 2.0] header;
 *   8 "@@" exceptions, every one narrowed by $websocket: options, not allowlist
 *   entries (allowing the whole host would unblock more than the list does).
 * - phishunt: 602 bare origins (URL entries for the whole host, "host/"); 176 with
 *   path/query, one 1,059-byte URL too long: 777 URLs.
 */
static const struct file_case file_cases[] = {
	{ "stevenblack-unified-hosts.ohnx-2019.hosts", 62986, 0, 0, 60585, 0, 0, 179, 2204, 17,
	  { [BB_REJECT_IP_AS_NAME] = 1 }, BB_FORMAT_HOSTS, { 0 } },
	{ "adaway-hosts.txt", 10607, 0, 0, 6540, 0, 0, 2023, 2042, 2, { 0 }, BB_FORMAT_HOSTS,
	  { 0 } },
	{ "nocoin-hosts.txt", 324, 0, 0, 313, 0, 0, 1, 10, 0, { 0 }, BB_FORMAT_HOSTS, { 0 } },
	{ "urlhaus-filter-hosts.txt", 2695, 0, 0, 2689, 0, 0, 0, 6, 0, { 0 }, BB_FORMAT_HOSTS,
	  { 0 } },
	{ "urlhaus-filter-domains.txt", 25774, 23079, 0, 2689, 0, 0, 0, 6, 0, { 0 },
	  BB_FORMAT_PLAIN, { 0 } },
	{ "urlhaus-filter-agh-online.adblock.txt", 2859, 2234, 0, 619, 0, 0, 0, 6, 0, { 0 },
	  BB_FORMAT_ADBLOCK, { 0 } },
	{ "urlhaus-filter-online.ublock.txt", 6369, 2234, 0, 620, 3508, 0, 0, 6, 0,
	  { [BB_REJECT_TOO_LONG] = 1 }, BB_FORMAT_ADBLOCK, { 0 } },
	{ "nocoin-adblock.txt", 358, 1, 0, 58, 5, 0, 16, 25, 0,
	  { [BB_REJECT_OPTIONS] = 153, [BB_REJECT_PATTERN] = 100 },
	  BB_FORMAT_ADBLOCK, { 0 } },
	{ "spamhaus-drop.txt", 1390, 1385, 0, 0, 0, 0, 0, 5, 0, { 0 }, BB_FORMAT_PLAIN, { 0 } },
	{ "spamhaus-dropv6.txt", 83, 0, 78, 0, 0, 0, 0, 5, 0, { 0 }, BB_FORMAT_PLAIN, { 0 } },
	{ "phishunt-urls.txt", 778, 0, 0, 0, 777, 0, 0, 0, 0, { [BB_REJECT_TOO_LONG] = 1 },
	  BB_FORMAT_PLAIN, { 0 } },
	/*
	 * MORE-FORMATS.md:
	 * - Spamhaus DROP JSON: 1,670 records, one CIDR twice (62.60.226.0/24), and the
	 *   metadata line: 1,669 entries, 1 duplicate, 1 directive.
	 * - Feodo CSV: 8 '#' lines + the '# END' footer, the uncommented header row, 750
	 *   rows of 728 distinct addresses.
	 * - anti-AD dnsmasq: 4 "#KEY=value" lines, 33,820 distinct address=/name/ lines.
	 * - URLhaus Unbound: 6 comments, 2,689 always_nxdomain zones.
	 * - HaGeZi RPZ: $TTL, SOA, NS; 13 comments; 1,480 names, each as "name" (exact)
	 *   and "*.name" (its subdomains): 2,960 entries.
	 * - ipdeny ipset: 11 create lines, 18,765 adds in 11 sets, 84 prefixes in two sets.
	 * - duhow: 4,321 addresses + 131 CIDRs, 46 comments (27 commented-out addresses),
	 *   7 blank.
	 */
	{ "spamhaus-drop-v4.2026-07-24.json", 1671, 1669, 0, 0, 0, 1, 0, 0, 0, { 0 },
	  BB_FORMAT_JSON, { [BB_SKIP_DIRECTIVE] = 1 } },
	{ "feodo-ipblocklist.2021-12-20.csv", 760, 728, 0, 0, 0, 22, 0, 9, 0, { 0 },
	  BB_FORMAT_CSV, { [BB_SKIP_DIRECTIVE] = 1 } },
	{ "anti-ad-dnsmasq.2020-03-25.conf", 33824, 0, 0, 33820, 0, 0, 0, 4, 0, { 0 },
	  BB_FORMAT_DNSMASQ, { 0 } },
	{ "urlhaus-filter-unbound.conf", 2695, 0, 0, 2689, 0, 0, 0, 6, 0, { 0 },
	  BB_FORMAT_UNBOUND, { 0 } },
	{ "hagezi-doh-rpz.zone", 2976, 0, 0, 2960, 0, 0, 0, 13, 0, { 0 }, BB_FORMAT_RPZ,
	  { [BB_SKIP_DIRECTIVE] = 3 } },
	{ "ipdeny-countries.ipset", 18776, 18681, 0, 0, 0, 84, 0, 0, 0, { 0 }, BB_FORMAT_IPSET,
	  { [BB_SKIP_DIRECTIVE] = 11 } },
	{ "urlhaus-filter-hosts.txt.gz", 2695, 0, 0, 2689, 0, 0, 0, 6, 0, { 0 }, BB_FORMAT_HOSTS,
	  { 0 } },
	{ "duhow-blocklist-source.txt", 4505, 4452, 0, 0, 0, 0, 7, 46, 0, { 0 }, BB_FORMAT_PLAIN,
	  { 0 } },
};

/*
 * fc's counts as counts_match() takes them; the allowlist, ranges and widened URLs
 * are not asserted for the real files (taken as counted).
 */
static bool counts_equal(const struct bb_list_counts *c, const struct file_case *fc, char *diff,
			 size_t size)
{
	struct counts w = {
		.lines = fc->lines, .ip4 = fc->ip4, .ip6 = fc->ip6, .names = fc->names,
		.urls = fc->urls, .dups = fc->dups, .blank = fc->blank, .comments = fc->comments,
		.preamble = fc->preamble, .ranges = c->ranges, .widened = c->widened,
		.allow = c->allow[BB_ENTRY_IP4] + c->allow[BB_ENTRY_IP6] +
			 c->allow[BB_ENTRY_NAME] + c->allow[BB_ENTRY_URL],
	};

	memcpy(w.rejected, fc->rejected, sizeof(w.rejected));
	memcpy(w.skipped, fc->skipped, sizeof(w.skipped));
	return counts_match(c, &w, diff, size);
}

static size_t counts_sum(const struct bb_list_counts *c)
{
	return c->accepted[0] + c->accepted[1] + c->accepted[2] + c->accepted[3] + c->duplicates +
	       c->blank + c->comments + c->preamble + bb_list_rejected_total(c) +
	       bb_list_skipped_total(c);
}

static const struct bb_entry *find_entry(const struct bb_list *list, enum bb_entry_kind kind,
					 const char *text)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		if (list->entries[i].kind == kind && list->entries[i].text &&
		    !strcmp(list->entries[i].text, text))
			return &list->entries[i];
	return NULL;
}

static void test_real_lists(void)
{
	size_t i;

	for (i = 0; i < sizeof(file_cases) / sizeof(file_cases[0]); i++) {
		const struct file_case *fc = &file_cases[i];
		struct bb_list_counts c;
		struct bb_file_info info;
		struct bb_list list;
		char path[1200], name[200], diff[200] = "";
		int ret;

		list_path(path, sizeof(path), fc->file);
		bb_list_init(&list);
		ret = bb_list_parse_file(&list, path, &(struct bb_list_opts){ .info = &info }, &c);
		snprintf(name, sizeof(name), "%s: read as %s", fc->file,
			 bb_list_format_name(fc->format));
		ASSERT_TRUE(ret == 0 && info.format == fc->format, name);
		snprintf(name, sizeof(name), "%s: counts", fc->file);
		tap_result(ret == 0 && counts_equal(&c, fc, diff, sizeof(diff)), name,
			   "parse returned %d; %s", ret, diff);
		snprintf(name, sizeof(name), "%s: every line counted once", fc->file);
		ASSERT_EQ(counts_sum(&c), c.lines, name);
		snprintf(name, sizeof(name), "%s: list counts equal file counts", fc->file);
		ASSERT_TRUE(!memcmp(&c, &list.counts, sizeof(c)), name);
		snprintf(name, sizeof(name), "%s: one entry per accepted line", fc->file);
		ASSERT_EQ(list.n, fc->ip4 + fc->ip6 + fc->names + fc->urls, name);
		bb_list_free(&list);
	}
}

/* Spot checks in the parsed lists: what must be there, and what must never be. */
static void test_list_contents(void)
{
	struct bb_list list;
	char path[1200], *line = NULL;
	size_t cap = 0, checked = 0, i;
	bool ok = true;
	FILE *f;

	bb_list_init(&list);
	list_path(path, sizeof(path), "stevenblack-unified-hosts.ohnx-2019.hosts");
	bb_list_parse_file(&list, path, NULL, NULL);
	/* The first entry's text sits in the first arena chunk: still intact at the end. */
	ASSERT_STREQ(list.n ? list.entries[0].text : NULL, "102.112.2o7.net",
		     "stevenblack: first entry intact after 60k more");
	ASSERT_TRUE(find_entry(&list, BB_ENTRY_NAME, "hercules.iad.appboy.com"),
		    "stevenblack: hercules.iad.appboy.com listed");
	ASSERT_TRUE(!find_entry(&list, BB_ENTRY_NAME, "hercules"), "stevenblack: hercules not");
	ASSERT_TRUE(!find_entry(&list, BB_ENTRY_NAME, "localhost"), "stevenblack: localhost not");
	ASSERT_TRUE(!find_entry(&list, BB_ENTRY_NAME, "wpad"), "stevenblack: wpad not");
	ASSERT_TRUE(find_entry(&list, BB_ENTRY_NAME, "-x3.vindicosuite.com"),
		    "stevenblack: -x3.vindicosuite.com listed");
	ASSERT_TRUE(find_entry(&list, BB_ENTRY_NAME, "ghm_bulgaria.hit.gemius.pl"),
		    "stevenblack: underscore name listed");
	ASSERT_TRUE(find_entry(&list, BB_ENTRY_NAME, "jackbootedroom.com"),
		    "stevenblack: name before an inline comment listed");
	for (i = 0; i < list.n; i++)
		ok &= list.entries[i].kind == BB_ENTRY_NAME;
	ASSERT_TRUE(ok, "stevenblack: no IP entries (0.0.0.0 0.0.0.0 is preamble)");
	bb_list_free(&list);

	/* The hosts of @@ exceptions must never become block entries. */
	bb_list_init(&list);
	list_path(path, sizeof(path), "nocoin-adblock.txt");
	bb_list_parse_file(&list, path, NULL, NULL);
	f = fopen(path, "r");
	ok = f != NULL;
	while (f && getline(&line, &cap, f) > 0) {
		size_t n;

		if (strncmp(line, "@@||", 4))
			continue;
		n = strcspn(line + 4, "^/$?\r\n");
		line[4 + n] = '\0';
		checked++;
		for (i = 0; i < list.n; i++)
			if (list.entries[i].text && !strncmp(list.entries[i].text, line + 4, n) &&
			    (list.entries[i].text[n] == '\0' || list.entries[i].text[n] == '/'))
				ok = false;
	}
	if (f)
		fclose(f);
	ASSERT_TRUE(ok && checked == 8, "nocoin-adblock: no entry for the 8 @@ exception hosts");
	ASSERT_TRUE(find_entry(&list, BB_ENTRY_URL, "shrink-service.it/js/cM.js"),
		    "nocoin-adblock: path rule is a URL, case kept");
	ASSERT_TRUE(!find_entry(&list, BB_ENTRY_NAME, "2miners.com"),
		    "nocoin-adblock: $third-party host not listed");
	bb_list_free(&list);

	/* Path rules on shared hosts must not block the whole host. */
	bb_list_init(&list);
	list_path(path, sizeof(path), "urlhaus-filter-online.ublock.txt");
	bb_list_parse_file(&list, path, NULL, NULL);
	f = fopen(path, "r");
	ok = f != NULL;
	checked = 0;
	while (f && getline(&line, &cap, f) > 0) {
		size_t n = strcspn(line, "/\r\n");

		if (strncmp(line, "||", 2) || line[n] != '/')
			continue;
		line[n] = '\0';
		checked++;
		if (find_entry(&list, BB_ENTRY_NAME, line + 2))
			ok = false;
	}
	if (f)
		fclose(f);
	ASSERT_TRUE(ok && checked == 3509, "ublock: no path rule's host is a NAME entry");
	ASSERT_TRUE(!find_entry(&list, BB_ENTRY_NAME, "bitbucket.org"),
		    "ublock: bitbucket.org is not a NAME entry");
	ASSERT_TRUE(find_entry(&list, BB_ENTRY_URL,
			       "bitbucket.org/javamagazine/magdownloads/downloads/"
			       "utilities-windowtimer-ptimer.zip"),
		    "ublock: bitbucket.org path is a URL entry");
	ASSERT_TRUE(find_entry(&list, BB_ENTRY_NAME, "wegrowcoaching.com"),
		    "ublock: ||host^$all is a NAME entry");
	free(line);
	bb_list_free(&list);
}

/*
 * The same entries in the same order. With lines: at the same lines too (a line in a
 * piece must become the line in the file; a line-by-line parse counts lines from
 * the list's first file, so only a one-file list compares them).
 */
static bool entries_equal_at(const struct bb_list *a, const struct bb_list *b, size_t *at,
			     bool lines)
{
	size_t i;

	for (i = 0; i < a->n && i < b->n; i++) {
		const struct bb_entry *x = &a->entries[i], *y = &b->entries[i];

		if (x->kind != y->kind || x->plen != y->plen || x->flags != y->flags ||
		    (lines && x->line != y->line) || x->src != y->src ||
		    memcmp(x->addr, y->addr, sizeof(x->addr)) || !x->text != !y->text ||
		    (x->text && strcmp(x->text, y->text))) {
			*at = i;
			return false;
		}
	}
	*at = i;
	return a->n == b->n;
}

static bool entries_equal(const struct bb_list *a, const struct bb_list *b, size_t *at)
{
	return entries_equal_at(a, b, at, false);
}

static const struct bb_entry *find_addr(const struct bb_list *list, const char *item)
{
	char text[BB_KEY_MAX + 1];
	struct bb_entry want;
	size_t i;

	if (bb_list_parse_item(item, &want, text, sizeof(text), NULL))
		return NULL;
	for (i = 0; i < list->n; i++)
		if (list->entries[i].kind == want.kind && list->entries[i].plen == want.plen &&
		    !memcmp(list->entries[i].addr, want.addr, 16))
			return &list->entries[i];
	return NULL;
}

static const struct bb_entry *find_flags(const struct bb_list *list, const char *name, int flags)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		if (list->entries[i].kind == BB_ENTRY_NAME && list->entries[i].flags == flags &&
		    !strcmp(list->entries[i].text, name))
			return &list->entries[i];
	return NULL;
}

static void parse_real(struct bb_list *list, const char *file)
{
	char path[1200];

	list_path(path, sizeof(path), file);
	bb_list_init(list);
	bb_list_parse_file(list, path, NULL, NULL);
}

/* The traps MORE-FORMATS.md names, in the files of the formats it adds. */
static void test_more_contents(void)
{
	struct bb_list list, other;
	struct bb_list_counts c;
	size_t i, exact = 0, sub = 0, at;
	char path[1200];

	parse_real(&list, "anti-ad-dnsmasq.2020-03-25.conf");
	ASSERT_TRUE(find_entry(&list, BB_ENTRY_NAME, "jx.cn") &&
		    find_entry(&list, BB_ENTRY_NAME, "c.wechat.jx.cn") &&
		    find_entry(&list, BB_ENTRY_NAME, "cqmjjx.cn") &&
		    find_entry(&list, BB_ENTRY_NAME, "xn--2qux23c9ziyrq.icu"),
		    "dnsmasq: jx.cn, the name under it, cqmjjx.cn, a punycode name");
	bb_list_free(&list);

	parse_real(&list, "hagezi-doh-rpz.zone");
	for (i = 0; i < list.n; i++) {
		exact += list.entries[i].flags == BB_ENTRY_F_EXACT;
		sub += list.entries[i].flags == BB_ENTRY_F_SUBDOMAINS_ONLY;
	}
	ASSERT_TRUE(exact == 1480 && sub == 1480, "rpz: 1,480 names, each exact and as *.name");
	ASSERT_TRUE(find_flags(&list, "rpz-public-resolver1.rrdns.pch.net", BB_ENTRY_F_EXACT) &&
		    find_flags(&list, "rpz-public-resolver1.rrdns.pch.net",
			       BB_ENTRY_F_SUBDOMAINS_ONLY),
		    "rpz: a name that starts with rpz- is an ordinary trigger");
	ASSERT_TRUE(!find_entry(&list, BB_ENTRY_NAME, "localhost") &&
		    !find_entry(&list, BB_ENTRY_NAME, "root.localhost"),
		    "rpz: the SOA's and NS's localhost. are no entries");
	bb_list_free(&list);

	/* the Unbound zones are the hosts file's names, one for one */
	parse_real(&list, "urlhaus-filter-hosts.txt");
	list_path(path, sizeof(path), "urlhaus-filter-unbound.conf");
	bb_list_parse_file(&list, path, NULL, &c);
	ASSERT_TRUE(c.duplicates == 2689 && c.accepted[BB_ENTRY_NAME] == 0,
		    "unbound: every zone is a name of the hosts file");
	bb_list_free(&list);

	parse_real(&list, "urlhaus-filter-hosts.txt");
	parse_real(&other, "urlhaus-filter-hosts.txt.gz");
	ASSERT_TRUE(entries_equal(&list, &other, &at) &&
		    !memcmp(&list.counts, &other.counts, sizeof(c)),
		    "gzip: the same entries and counts as the file it inflates to");
	bb_list_free(&list);
	bb_list_free(&other);

	parse_real(&list, "spamhaus-drop-v4.2026-07-24.json");
	ASSERT_TRUE(find_addr(&list, "62.60.226.0/24") && find_addr(&list, "23.143.16.0/24") &&
		    find_addr(&list, "41.71.150.0/24"),
		    "json: the twice-listed CIDR, the rir:null record, a CIDR inside another");
	bb_list_free(&list);

	parse_real(&list, "feodo-ipblocklist.2021-12-20.csv");
	ASSERT_TRUE(find_addr(&list, "217.17.56.163") && find_addr(&list, "51.178.161.32") &&
		    !find_entry(&list, BB_ENTRY_NAME, "dst_ip"),
		    "csv: the addresses of column dst_ip, and not its header");
	bb_list_free(&list);

	parse_real(&list, "ipdeny-countries.ipset");
	ASSERT_TRUE(find_addr(&list, "92.119.90.16") && find_addr(&list, "178.248.237.18") &&
		    find_addr(&list, "119.161.128.0/17"),
		    "ipset: bare addresses of a hash:net set as /32s, and networks");
	bb_list_free(&list);

	parse_real(&list, "duhow-blocklist-source.txt");
	ASSERT_TRUE(!find_addr(&list, "218.92.0.22") && find_addr(&list, "218.92.0.34") &&
		    find_addr(&list, "103.0.0.0/8") && find_addr(&list, "49.245.62.0"),
		    "duhow: a commented-out address is none, an active twin is; /8; a .0 host");
	bb_list_free(&list);
}

static int write_temp(char *path, size_t size, const char *data, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	FILE *f;
	int fd;

	snprintf(path, size, "%s/test_list.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -errno;
	}
	fwrite(data, 1, len, f);
	fclose(f);
	return 0;
}

static void test_files(void)
{
	static const char crlf_bom[] = "\xef\xbb\xbf# list\r\nevil.example\r\n\r\n"
				       "0.0.0.0 other.example  # x\r\n192.0.2.0/24 ; SBL1\r\n";
	static const char first[] = "evil.example\n192.0.2.1\nhttp://evil.example/a\n";
	static const char second[] = "EVIL.example.\n0.0.0.0 evil.example\n192.0.2.1/32\n"
				     "||evil.example/a^\n*.evil.example\nnew.example";
	char path1[1300], path2[1300], rep[4096];
	struct bb_list_counts c;
	struct bb_list list;
	FILE *report;
	int ret;

	bb_list_init(&list);
	ret = write_temp(path1, sizeof(path1), crlf_bom, sizeof(crlf_bom) - 1);
	ASSERT_EQ(ret, 0, "temp file written");
	ret = bb_list_parse_file(&list, path1, NULL, &c);
	ASSERT_TRUE(ret == 0 && c.lines == 5 && c.comments == 1 && c.blank == 1 &&
		    c.accepted[BB_ENTRY_NAME] == 2 && c.accepted[BB_ENTRY_IP4] == 1 &&
		    bb_list_rejected_total(&c) == 0, "CRLF + BOM file");
	ASSERT_STREQ(list.n == 3 ? list.entries[1].text : NULL, "other.example",
		     "CRLF + BOM file: hosts name");
	unlink(path1);
	bb_list_free(&list);

	/* The second file repeats the first one's entries in other spellings. */
	bb_list_init(&list);
	write_temp(path1, sizeof(path1), first, sizeof(first) - 1);
	write_temp(path2, sizeof(path2), second, sizeof(second) - 1);
	ret = bb_list_parse_file(&list, path1, NULL, &c);
	ASSERT_TRUE(ret == 0 && list.n == 3 && c.duplicates == 0, "duplicates: first file");
	ret = bb_list_parse_file(&list, path2, NULL, &c);
	ASSERT_EQ(c.duplicates, 4, "duplicates: across files");
	ASSERT_EQ(c.lines, 6, "duplicates: final line without newline counted");
	ASSERT_EQ(c.accepted[BB_ENTRY_NAME], 2, "duplicates: *.name and the last line are new");
	ASSERT_STREQ(list.entries[list.n - 1].text, "new.example",
		     "final line without newline parsed");
	ASSERT_EQ(list.counts.duplicates, 4, "duplicates: summed over files");
	ASSERT_EQ(bb_list_parse_line(&list, "evil.example", 12, NULL), 1, "duplicate returns 1");
	ASSERT_EQ(list.n, 5, "duplicate not appended");
	unlink(path1);
	unlink(path2);
	bb_list_free(&list);

	bb_list_init(&list);
	report = fmemopen(rep, sizeof(rep), "w");
	ret = bb_list_parse_file(&list, "/nonexistent/list.txt",
				 &(struct bb_list_opts){ report, 0 }, &c);
	fclose(report);
	ASSERT_EQ(ret, -ENOENT, "missing file: -ENOENT");
	ASSERT_STREQ(rep, "/nonexistent/list.txt: No such file or directory\n",
		     "missing file: reported with its name");
	bb_list_free(&list);
}

/* Real lists across files: duplicates, reports. */
static void test_real_files(void)
{
	char path[1200], path1[1300], rep[4096];
	struct bb_list_counts c;
	struct bb_list list;
	FILE *report;
	int ret;

	/* Cross-file duplicates on real lists: the domains list holds every hosts name. */
	bb_list_init(&list);
	list_path(path, sizeof(path), "urlhaus-filter-hosts.txt");
	bb_list_parse_file(&list, path, NULL, NULL);
	list_path(path, sizeof(path), "urlhaus-filter-domains.txt");
	bb_list_parse_file(&list, path, NULL, &c);
	ASSERT_TRUE(c.duplicates == 2689 && c.accepted[BB_ENTRY_NAME] == 0 &&
		    c.accepted[BB_ENTRY_IP4] == 23079,
		    "urlhaus hosts then domains: 2689 duplicates");
	ASSERT_EQ(list.counts.lines, 2695 + 25774, "urlhaus: lines summed");
	bb_list_free(&list);

	/* Reports: at most report_max lines, then how many were not shown. */
	bb_list_init(&list);
	report = fmemopen(rep, sizeof(rep), "w");
	list_path(path, sizeof(path), "nocoin-adblock.txt");
	ret = bb_list_parse_file(&list, path, &(struct bb_list_opts){ report, 2 }, NULL);
	fclose(report);
	snprintf(path1, sizeof(path1), "%s:13: ", path);
	ASSERT_TRUE(ret == 0 && !strncmp(rep, path1, strlen(path1)) &&
		    strstr(rep, "(||23.83.114.131^$third-party)\n"),
		    "report: file:line: reason (text)");
	snprintf(path1, sizeof(path1), "%s: 251 more rejected lines not shown\n", path);
	ASSERT_TRUE(strstr(rep, path1) && strstr(rep, path1) + strlen(path1) == rep + strlen(rep),
		    "report: 251 more not shown, last");
	ASSERT_EQ(strchr(strchr(rep, '\n') + 1, '\n') + 1 - rep, strstr(rep, path1) - rep,
		  "report: exactly 2 lines shown");
	bb_list_free(&list);

}


/* ---- a file cut into pieces parses as it does line by line ---- */

/*
 * The reference: getline() and bb_list_parse_line(), one line after the other, with
 * the reports the parser prints (file:line: reason (text), the first report_max).
 */
static int parse_reference(struct bb_list *list, const char *path, size_t report_max,
			   char *rep, size_t rep_size)
{
	FILE *f = fopen(path, "r"), *out = fmemopen(rep, rep_size, "w");
	size_t cap = 0, lineno = 0, shown = 0, unshown = 0;
	char *line = NULL, text[4 * 160 + 1];
	ssize_t n;

	if (!f || !out) {
		if (f)
			fclose(f);
		if (out)
			fclose(out);
		return -1;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		size_t len = (size_t)n;
		const char *why = "rejected";

		lineno++;
		if (len && line[len - 1] == '\n')
			len--;
		if (bb_list_parse_line(list, line, len, &why) >= 0)
			continue;
		if (report_max && shown >= report_max) {
			unshown++;
			continue;
		}
		shown++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		/* what a report shows: 160 bytes at most, escaped */
		bb_escape_text(line, len > 160 ? 160 : len, text, sizeof(text));
		fprintf(out, "%s:%zu: %s (%s%s)\n", path, lineno, why, text, len > 160 ? "..." : "");
	}
	if (unshown)
		fprintf(out, "%s: %zu more rejected lines not shown\n", path, unshown);
	free(line);
	fclose(f);
	fclose(out);
	return 0;
}


/*
 * Parse path twice more on top of the same first file: line by line, and mapped in
 * pieces of part_bytes by threads threads. Entries, counts, return and reports must
 * be identical.
 */
static void check_pieces(const char *label, const char *first, const char *path,
			 size_t part_bytes, unsigned int threads, size_t report_max)
{
	static char want[1 << 16], got[1 << 16];
	struct bb_list ref, cut;
	struct bb_list_counts c;
	char name[400];
	FILE *report;
	size_t at = 0;
	int ret;

	bb_list_init(&ref);
	bb_list_init(&cut);
	memset(want, 0, sizeof(want));
	memset(got, 0, sizeof(got));
	if (first) {
		parse_reference(&ref, first, report_max, got, sizeof(got));
		bb_list_parse_file(&cut, first, &(struct bb_list_opts){ .threads = threads,
					.part_bytes = part_bytes }, NULL);
	}
	parse_reference(&ref, path, report_max, want, sizeof(want));
	report = fmemopen(got, sizeof(got), "w");
	ret = bb_list_parse_file(&cut, path, &(struct bb_list_opts){
		report, report_max, threads, part_bytes }, &c);
	fclose(report);
	snprintf(name, sizeof(name), "%s, pieces of %zu bytes, %u threads: entries", label,
		 part_bytes, threads);
	tap_result(ret == 0 && entries_equal_at(&ref, &cut, &at, !first), name,
		   "ret %d; %zu and %zu entries, first difference at %zu", ret, ref.n, cut.n, at);
	snprintf(name, sizeof(name), "%s, pieces of %zu bytes, %u threads: counts", label,
		 part_bytes, threads);
	ASSERT_TRUE(!memcmp(&ref.counts, &cut.counts, sizeof(ref.counts)), name);
	snprintf(name, sizeof(name), "%s, pieces of %zu bytes, %u threads: reports", label,
		 part_bytes, threads);
	tap_result(!strcmp(want, got), name, "expected:\n%s\ngot:\n%s", want, got);
	/* the set must still work line by line after a mapped parse */
	snprintf(name, sizeof(name), "%s, pieces of %zu bytes, %u threads: set after", label,
		 part_bytes, threads);
	at = cut.n;
	bb_list_parse_line(&cut, "set-check.example", 17, NULL);
	bb_list_parse_line(&cut, "set-check.example", 17, NULL);
	ASSERT_EQ(cut.n, at + 1 - (ref.n && find_entry(&ref, BB_ENTRY_NAME,
							 "set-check.example") != NULL), name);
	bb_list_free(&ref);
	bb_list_free(&cut);
}

static void test_pieces(void)
{
	static const struct {
		const char *label, *data;
	} crafted[] = {
		{ "empty file", "" },
		{ "one newline", "\n" },
		{ "no final newline", "evil.example\n192.0.2.1\n300.1.1.1" },
		{ "CRLF", "# x\r\nevil.example\r\n\r\n0.0.0.0 a.example b.example\r\nbad!.example\r\n"
			  "192.0.2.0/24 ; SBL\r\n" },
		{ "errors at every line",
		  "300.1.1.1\n@@||x.example^\nnotevil\n1.2.3.4/33\n##.ad\nev!l.example\n"
		  "0.0.0.0 1.2.3.4\n*.com\n01.2.3.4\n" },
		{ "duplicates across pieces",
		  "a.example\nb.example\n192.0.2.1\nA.EXAMPLE.\n0.0.0.0 b.example c.example a.example\n"
		  "192.0.2.1/32\n*.a.example\n||a.example^\nc.example\n2001:db8::1\n2001:DB8::1\n" },
		{ "hosts lines of many names",
		  "0.0.0.0 a.example b.example c.example d.example e.example f.example\n"
		  "0.0.0.0 g.example h.example localhost 1.2.3.4 i.example\n"
		  "127.0.0.1 j.example k.example\n" },
		{ "NUL bytes and a long line", NULL },
	};
	static const size_t sizes[] = { 1, 5, 16, 64 };
	char path[1300], path2[1300], *data;
	size_t i, j, len;
	unsigned int threads;

	for (i = 0; i < sizeof(crafted) / sizeof(crafted[0]); i++) {
		if (crafted[i].data) {
			write_temp(path, sizeof(path), crafted[i].data, strlen(crafted[i].data));
		} else {
			/* a NUL in the head is binary data, no list (bb_content_of()): past it,
			 * a line with a NUL byte is rejected, however the file is cut */
			data = malloc(BB_READER_HEAD + 6000);
			memcpy(data, "b.example\n", 10);
			len = 10;
			memset(data + len, 'x', BB_READER_HEAD);
			len += BB_READER_HEAD;
			memcpy(data + len, "\na.exa\0mple\nc.example\n\0\n192.0.2.9\n", 35);
			len += 35;
			write_temp(path, sizeof(path), data, len);
			free(data);
		}
		for (j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++)
			for (threads = 1; threads <= 3; threads++)
				if (crafted[i].data || sizes[j] >= 16)	/* 64 KiB in bytes: slow */
					check_pieces(crafted[i].label, NULL, path, sizes[j], threads,
						     j % 2 ? 2 : 0);
		unlink(path);
	}
	/* A second file: duplicates of the first one's entries, cut in pieces. */
	write_temp(path, sizeof(path), "a.example\n192.0.2.1\n", 20);
	write_temp(path2, sizeof(path2), "x.example\na.example\n192.0.2.1\nA.example\nx.example\n",
		   50);
	for (j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++)
		check_pieces("second file", path, path2, sizes[j], 2, 0);
	unlink(path);
	unlink(path2);

}

static void test_real_pieces(void)
{
	static const char *const real[] = {
		"stevenblack-unified-hosts.ohnx-2019.hosts", "urlhaus-filter-online.ublock.txt",
		"nocoin-adblock.txt", "spamhaus-dropv6.txt", "phishunt-urls.txt",
		"duhow-blocklist-source.txt",
	};
	char path[1300], real_path[1200], name[300];
	size_t i, at;

	/* every real file, in its own format: cut in pieces on threads as whole */
	for (i = 0; i < sizeof(file_cases) / sizeof(file_cases[0]); i++) {
		struct bb_list whole, cut;

		list_path(real_path, sizeof(real_path), file_cases[i].file);
		bb_list_init(&whole);
		bb_list_init(&cut);
		bb_list_parse_file(&whole, real_path, &(struct bb_list_opts){ .threads = 1 }, NULL);
		bb_list_parse_file(&cut, real_path,
				   &(struct bb_list_opts){ .threads = 3, .part_bytes = 777 }, NULL);
		snprintf(name, sizeof(name), "%s: in pieces of 777 bytes on 3 threads, the same "
			 "entries and counts", file_cases[i].file);
		ASSERT_TRUE(entries_equal(&whole, &cut, &at) &&
			    !memcmp(&whole.counts, &cut.counts, sizeof(whole.counts)), name);
		bb_list_free(&whole);
		bb_list_free(&cut);
	}

	for (i = 0; i < sizeof(real) / sizeof(real[0]); i++) {
		list_path(real_path, sizeof(real_path), real[i]);
		check_pieces(real[i], NULL, real_path, 4096, 2, 20);
		check_pieces(real[i], NULL, real_path, 777, 3, 0);
	}
	/* urlhaus hosts then domains: 2689 cross-file duplicates, cut in pieces */
	list_path(path, sizeof(path), "urlhaus-filter-hosts.txt");
	list_path(real_path, sizeof(real_path), "urlhaus-filter-domains.txt");
	check_pieces("urlhaus hosts then domains", path, real_path, 1024, 2, 20);
}

/*
 * The fast path for bare names and addresses (parse_plain()) gives what the general
 * path gives. A line "X # c" is never on the fast path (a space), and its comment
 * goes before the general path parses X: so for random X of name bytes (upper
 * case, digits, dots, dashes, underscores; long labels, long names, dotted quads,
 * trailing dots) both lines must give the same entry or the same reject.
 */
static void random_plain_line(__u64 *rng, char *out, size_t *len)
{
	static const char bytes[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				    "....-_";
	__u64 r = splitmix64(rng);
	size_t n, i;

	switch (r % 8) {
	case 0:		/* a dotted quad, maybe with leading zeros or a part too big */
		n = (size_t)sprintf(out, "%u.%u.%u.%u", (unsigned)(splitmix64(rng) % 300),
				    (unsigned)(splitmix64(rng) % 260), (unsigned)(splitmix64(rng) % 10),
				    (unsigned)(splitmix64(rng) % 256));
		if (r & 0x100)
			out[n++] = (r & 0x200) ? '.' : '0';
		break;
	case 1:		/* long labels: 60..66 bytes */
		n = 0;
		for (i = 0; i < 1 + (r >> 8) % 3; i++) {
			size_t l = 60 + splitmix64(rng) % 7;

			memset(out + n, 'a' + (int)i, l);
			n += l;
			out[n++] = '.';
		}
		n -= (r & 0x1000) ? 0 : 1;
		break;
	case 2:		/* long names: 240..260 bytes of 9-byte labels */
		n = 240 + (r >> 8) % 21;
		for (i = 0; i < n; i++)
			out[i] = i % 10 == 9 ? '.' : 'x';
		break;
	case 3:		/* digits and dots alone: quads with leading zeros, parts missing
			 * or too many, empty parts, four-digit parts */
		n = 0;
		for (i = 0; i < 3 + (r >> 8) % 3; i++) {	/* 3 to 5 parts of 0 to 4 digits */
			size_t d, digits = splitmix64(rng) % 8 ? 1 + splitmix64(rng) % 3 :
					   splitmix64(rng) % 5;

			if (i)
				out[n++] = '.';
			for (d = 0; d < digits; d++)
				out[n++] = (char)('0' + splitmix64(rng) % (d ? 10 : r & 0x800 ? 3 : 10));
		}
		break;
	default:	/* anything of name bytes, 1..40 */
		n = 1 + (r >> 8) % 40;
		for (i = 0; i < n; i++)
			out[i] = bytes[splitmix64(rng) % (sizeof(bytes) - 1)];
	}
	out[n] = '\0';
	*len = n;
}

static void test_plain_fast_path(void)
{
	size_t lines = 200000, i, differ = 0, fast = 0;
	char first[400] = "", line[320], commented[330];
	__u64 rng = 0x706c61696e;

	for (i = 0; i < lines; i++) {
		struct bb_list a, b;
		const char *why_a = NULL, *why_b = NULL;
		size_t len;
		int ra, rb;
		bool same;

		random_plain_line(&rng, line, &len);
		snprintf(commented, sizeof(commented), "%s # c", line);
		bb_list_init(&a);
		bb_list_init(&b);
		ra = bb_list_parse_line(&a, line, len, &why_a);
		rb = bb_list_parse_line(&b, commented, strlen(commented), &why_b);
		same = ra == rb && a.n == b.n && !memcmp(&a.counts, &b.counts, sizeof(a.counts));
		if (same && a.n == 1) {
			const struct bb_entry *x = &a.entries[0], *y = &b.entries[0];

			same = x->kind == y->kind && x->plen == y->plen && x->flags == y->flags &&
			       !memcmp(x->addr, y->addr, sizeof(x->addr)) &&
			       (!x->text) == (!y->text) && (!x->text || !strcmp(x->text, y->text));
			fast += x->kind == BB_ENTRY_NAME || x->kind == BB_ENTRY_IP4;
		}
		if (same && a.n == 0)
			same = (why_a && why_b && !strcmp(why_a, why_b)) || (!why_a && !why_b);
		if (!same && !differ++)
			snprintf(first, sizeof(first), "\"%s\": %d %zu (%s) against %d %zu (%s)", line,
				 ra, a.n, why_a ? why_a : "-", rb, b.n, why_b ? why_b : "-");
		bb_list_free(&a);
		bb_list_free(&b);
	}
	tap_result(!differ && fast > lines / 4, "plain-fast-path-equals-general-path",
		   "%zu of %zu random lines differ (%zu entries); first: %s", differ, lines, fast,
		   first);
}

int main(void)
{
	const char *dir = getenv("BB_LISTS_DIR");

	snprintf(lists_dir, sizeof(lists_dir), "%s", dir && *dir ? dir : "../shared/lists");
	tap_plan_header();
	test_line_table();
	test_lengths();
	test_items();
	test_names();
	test_plain_fast_path();
	test_files();
	test_pieces();
	if (access(lists_dir, R_OK)) {
		/* a plain clone outside the workspace: the real lists are not there */
		tap_skip("the real public lists (counts, contents, pieces)",
			 "no ../shared/lists here (a plain clone): set BB_LISTS_DIR to test them");
		return tap_finish();
	}
	test_real_lists();
	test_list_contents();
	test_more_contents();
	test_real_files();
	test_real_pieces();
	return tap_finish();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The guard: which prefixes are too wide to load, which overlap, what the host
 * needs (routes and resolvers from fixture files in tests/guard/, loopback's own
 * addresses), and the notes a list gets, with their lines, when it covers them.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guard.h"
#include "list.h"
#include "rng.h"
#include "tap.h"

static char fixtures[512] = "tests/guard";

static struct bb_entry entry(const char *text)
{
	char buf[64], *slash;
	struct bb_entry e = { 0 };

	snprintf(buf, sizeof(buf), "%s", text);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, buf, e.addr) == 1) {
		e.kind = BB_ENTRY_IP4;
		e.plen = slash ? (__u8)atoi(slash + 1) : 32;
	} else {
		inet_pton(AF_INET6, buf, e.addr);
		e.kind = BB_ENTRY_IP6;
		e.plen = slash ? (__u8)atoi(slash + 1) : 128;
	}
	return e;
}

static void test_wide(void)
{
	static const struct { const char *prefix; bool too_wide, wide; } cases[] = {
		{ "0.0.0.0/0", true, true },
		{ "0.0.0.0/1", true, true },		/* half the space */
		{ "2.0.0.0/7", true, true },		/* two /8s of global unicast */
		{ "103.0.0.0/8", false, false },	/* one /8: a country list's */
		{ "224.0.0.0/3", false, true },		/* multicast and 240/4: reserved */
		{ "224.0.0.0/4", false, true },
		{ "0.0.0.0/8", false, false },
		{ "10.0.0.0/7", false, true },		/* 10/8 reserved, 11/8 not: one /8 */
		{ "8.0.0.0/6", true, true },
		{ "192.0.2.0/24", false, false },
		{ "::/0", true, true },
		{ "2000::/3", true, true },
		{ "2000::/7", true, true },
		{ "2000::/8", false, false },
		{ "fc00::/7", false, true },		/* unique local */
		{ "ff00::/8", false, false },
		{ "::/2", true, true },			/* reaches into 2000::/3 */
		{ "4000::/2", false, true },		/* does not */
		{ "8000::/1", false, true },
	};
	char name[120];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bb_entry e = entry(cases[i].prefix);

		snprintf(name, sizeof(name), "%s is %stoo wide, %swide", cases[i].prefix,
			 cases[i].too_wide ? "" : "not ", cases[i].wide ? "" : "not ");
		tap_result(bb_entry_too_wide(&e) == cases[i].too_wide &&
			   bb_entry_wide(&e) == cases[i].wide, name, "too wide %d, wide %d",
			   bb_entry_too_wide(&e), bb_entry_wide(&e));
	}
}

static void test_overlaps(void)
{
	static const struct { const char *a, *b; bool overlap; } cases[] = {
		{ "192.0.2.0/24", "192.0.2.77", true },
		{ "192.0.2.77", "192.0.2.0/24", true },
		{ "192.0.2.0/25", "192.0.2.128/25", false },
		{ "192.0.2.0/23", "192.0.3.1", true },
		{ "192.0.2.1", "192.0.2.1", true },
		{ "192.0.2.1", "192.0.2.2", false },
		{ "0.0.0.0/0", "203.0.113.9", true },
		{ "2001:db8::/32", "2001:db8:1::1", true },
		{ "2001:db8::/33", "2001:db8:8000::1", false },
		{ "192.0.2.1", "2001:db8::1", false },
	};
	char name[120];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bb_entry a = entry(cases[i].a), b = entry(cases[i].b);

		snprintf(name, sizeof(name), "%s and %s %s", cases[i].a, cases[i].b,
			 cases[i].overlap ? "overlap" : "do not overlap");
		tap_result(bb_entry_overlaps(&a, &b) == cases[i].overlap, name, NULL);
	}
}

static int find(const struct bb_guard *g, const char *text, bool allowed)
{
	struct bb_entry e = entry(text);
	unsigned int i;

	for (i = 0; i < g->n; i++)
		if (g->watch[i].kind == e.kind && g->watch[i].plen == e.plen &&
		    !memcmp(g->watch[i].addr, e.addr, 16) && g->allowed[i] == allowed)
			return (int)i;
	return -1;
}

static void test_collect(void)
{
	static const char *const lo[] = { "lo" };
	char route4[600], route6[600], resolv[600];
	struct bb_guard_paths paths = { route4, route6, resolv };
	struct bb_guard g;
	int i;

	snprintf(route4, sizeof(route4), "%s/route", fixtures);
	snprintf(route6, sizeof(route6), "%s/ipv6_route", fixtures);
	snprintf(resolv, sizeof(resolv), "%s/resolv.conf", fixtures);
	bb_guard_collect(&g, lo, 1, &paths);
	tap_result(find(&g, "127.0.0.0/8", true) >= 0 && find(&g, "::1", true) >= 0,
		   "guard: loopback", NULL);
	tap_result(find(&g, "169.254.0.0/16", true) >= 0 && find(&g, "fe80::/10", true) >= 0,
		   "guard: link-local", NULL);
	i = find(&g, "192.0.2.1", true);
	tap_result(i >= 0 && strstr(g.why[i], "gateway") && strstr(g.why[i], "eth0"),
		   "guard: the IPv4 default gateway (via eth0), from the route table", "%s",
		   i >= 0 ? g.why[i] : "missing");
	tap_result(find(&g, "198.51.100.7", true) >= 0, "guard: a second default route's gateway",
		   NULL);
	tap_result(find(&g, "192.0.2.0/24", true) < 0 && find(&g, "192.0.2.0", true) < 0,
		   "guard: a route that is no default route adds nothing", NULL);
	i = find(&g, "2001:db8::1", true);
	tap_result(i >= 0 && strstr(g.why[i], "gateway"), "guard: the IPv6 default gateway",
		   NULL);
	tap_result(find(&g, "192.0.2.53", true) >= 0 && find(&g, "2001:db8::53", true) >= 0 &&
		   find(&g, "fe80::53", true) >= 0, "guard: every nameserver of resolv.conf, "
		   "a zone index dropped", NULL);
	tap_result(find(&g, "127.0.0.1", true) >= 0,
		   "guard: the attached interface's own address (lo's 127.0.0.1)", NULL);
	i = find(&g, "127.0.0.0/8", false);
	tap_result(i < 0, "guard: a network already allowed is not watched twice", NULL);
	for (i = 0; i < (int)g.n; i++)
		if (!strcmp(g.why[i], "loopback") && g.allowed[i] == false)
			break;
	tap_result(i == (int)g.n, "guard: no item both allowed and only watched", NULL);

	paths = (struct bb_guard_paths){ "/nonexistent/route", "/nonexistent/r6",
					 "/nonexistent/resolv" };
	bb_guard_collect(&g, NULL, 0, &paths);
	tap_result(g.n == 4, "guard: unreadable files leave loopback and link-local", "%u", g.n);
}

/* A list read with the guard: wide prefixes refused, watched ones noted by line. */
static void test_list_notes(void)
{
	struct bb_guard g = { .n = 3 };
	struct bb_list_opts opts = { 0 };
	struct bb_file_info info;
	struct bb_list_counts c;
	struct bb_list list;
	char path[600];
	int err;

	g.watch[0] = entry("192.0.2.53");
	g.allowed[0] = true;
	g.watch[1] = entry("198.51.100.0/24");
	g.watch[2] = entry("192.0.2.200");
	g.allowed[2] = true;
	snprintf(path, sizeof(path), "%s/watched.txt", fixtures);
	opts.info = &info;
	opts.file.refuse_wide = true;
	opts.file.watch = g.watch;
	opts.file.n_watch = g.n;
	bb_list_init(&list);
	err = bb_list_parse_file(&list, path, &opts, &c);
	tap_result(!err && c.rejected[BB_REJECT_TOO_WIDE] == 1 && c.wide_reserved == 1 &&
		   c.accepted[BB_ENTRY_IP4] == 4 && c.accepted[BB_ENTRY_IP6] == 1,
		   "guard: 0.0.0.0/0 is refused as too_wide, 224.0.0.0/3 loads, noted",
		   "err %d, too_wide %zu, wide %zu, ipv4 %zu", err,
		   c.rejected[BB_REJECT_TOO_WIDE], c.wide_reserved, c.accepted[BB_ENTRY_IP4]);
	tap_result(info.watched[0].line == 3 && !strcmp(info.watched[0].text, "192.0.2.0/25"),
		   "guard: the line of 192.0.2.0/25, which covers a watched resolver",
		   "line %zu (%s)", info.watched[0].line, info.watched[0].text);
	tap_result(info.watched[1].line == 4, "guard: the line of an entry in a watched network",
		   "line %zu", info.watched[1].line);
	tap_result(info.watched[2].line == 0, "guard: nothing noted for what no line covers",
		   "line %zu", info.watched[2].line);
	bb_list_free(&list);

	/* without the guard's options: every prefix loads, nothing is noted */
	memset(&opts, 0, sizeof(opts));
	opts.info = &info;
	bb_list_init(&list);
	err = bb_list_parse_file(&list, path, &opts, &c);
	tap_result(!err && !c.rejected[BB_REJECT_TOO_WIDE] && c.accepted[BB_ENTRY_IP4] == 5 &&
		   !info.watched[0].line, "guard: off, 0.0.0.0/0 loads as it is (--allow-wide)",
		   NULL);
	bb_list_free(&list);
}

#define NOTES_ROUNDS	32
#define NOTES_LINES	4000
#define NOTES_WATCHED	6

/* One round of test_notes_random(): 1 when every note is right, 0 when one is not. */
static int notes_round(__u64 *rng, const char *path, struct bb_entry *lines, char *first,
		       size_t size)
{
	struct bb_entry watch[NOTES_WATCHED];
	struct bb_list_opts opts = { 0 };
	struct bb_file_info info;
	size_t want[NOTES_WATCHED] = { 0 }, i;
	char text[64];
	struct bb_list_counts c;
	struct bb_list list;
	unsigned int w, b;
	int err, right = 1;
	FILE *f = fopen(path, "w");

	if (!f)
		return 0;
	for (w = 0; w < NOTES_WATCHED; w++) {
		watch[w] = (struct bb_entry){ .kind = w % 3 ? BB_ENTRY_IP4 : BB_ENTRY_IP6 };
		for (b = 0; b < 16; b++)
			watch[w].addr[b] = (__u8)splitmix64(rng);
		watch[w].plen = (__u8)(w == 1 ? splitmix64(rng) % 8 :	/* /0 to /7 */
				       watch[w].kind == BB_ENTRY_IP4 ? 8 + splitmix64(rng) % 25 :
				       8 + splitmix64(rng) % 121);
	}
	for (i = 0; i < NOTES_LINES; i++) {
		struct bb_entry *e = &lines[i];
		__u64 r = splitmix64(rng);
		const struct bb_entry *near = &watch[r % NOTES_WATCHED];

		e->kind = r & 0x100 ? BB_ENTRY_IP6 : BB_ENTRY_IP4;
		for (b = 0; b < 16; b++)
			e->addr[b] = (__u8)splitmix64(rng);
		if (r & 0x200 && near->kind == e->kind)	/* near a watched prefix */
			memcpy(e->addr, near->addr, 1 + (r >> 12) % 3);
		e->plen = (__u8)(e->kind == BB_ENTRY_IP4 ? 8 + (r >> 24) % 25 : 8 + (r >> 24) % 121);
		if ((r >> 16) % 1024 == 1)
			e->plen = (__u8)(6 + (r >> 24) % 2);	/* wider than a /8 */
		for (b = e->plen; b < (e->kind == BB_ENTRY_IP4 ? 32U : 128U); b++)
			e->addr[b / 8] &= (__u8)~(0x80 >> (b % 8));
		inet_ntop(e->kind == BB_ENTRY_IP4 ? AF_INET : AF_INET6, e->addr, text, sizeof(text));
		fprintf(f, "%s/%u\n", text, e->plen);
	}
	if (fclose(f))
		return 0;
	opts.info = &info;
	opts.file.watch = watch;
	opts.file.n_watch = NOTES_WATCHED;
	bb_list_init(&list);
	err = bb_list_parse_file(&list, path, &opts, &c);
	bb_list_free(&list);
	for (w = 0; w < NOTES_WATCHED; w++) {
		for (i = 0; i < NOTES_LINES && !want[w]; i++)
			if (bb_entry_overlaps(&lines[i], &watch[w]))
				want[w] = i + 1;
		if (!err && info.watched[w].line == want[w])
			continue;
		if (right && !*first)
			snprintf(first, size, "watched %u (/%u): line %zu, not %zu (err %d)", w,
				 watch[w].plen, info.watched[w].line, want[w], err);
		right = 0;
	}
	return right;
}

/*
 * The notes, against every entry compared with every watched prefix: random
 * addresses and prefixes of both families (a few /6 and /7, some sharing a watched
 * prefix's first byte) in a file, random watched prefixes (one of /0 to /7 a round),
 * and for each the first line whose entry overlaps it (bb_entry_overlaps()), or none.
 */
static void test_notes_random(void)
{
	char path[] = "/tmp/bb_test_guard.XXXXXX", first[160] = "";
	struct bb_entry *lines = calloc(NOTES_LINES, sizeof(*lines));
	__u64 rng = 0x6775617264;
	int fd = mkstemp(path), round, right = 0;

	for (round = 0; round < NOTES_ROUNDS && fd >= 0 && lines; round++)
		right += notes_round(&rng, path, lines, first, sizeof(first));
	tap_result(right == NOTES_ROUNDS, "guard: random prefixes: each watched one noted at "
		   "the first line that overlaps it, or none", "%d of %d rounds right; %s", right,
		   NOTES_ROUNDS, first);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	free(lines);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		snprintf(fixtures, sizeof(fixtures), "%s", argv[1]);
	tap_plan_header();
	test_wide();
	test_overlaps();
	test_collect();
	test_list_notes();
	test_notes_random();
	return tap_finish();
}

// SPDX-License-Identifier: GPL-2.0
/* Names through BPF_PROG_TEST_RUN at XDP and tc: DNS, TLS SNI (split too), HTTP, URLs, QUIC. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bb_hash.h"
#include "bb_tls.h"
#include "filter.h"
#include "list.h"
#include "pins.h"
#include "lib/harness.h"
#include "lib/pkt.h"

/*
 * Each table is a filter (list lines, mode, ports) and cases. A case is one
 * payload (a DNS query, a ClientHello, an HTTP request, a QUIC packet) sent as one
 * packet or as TCP segments of it, through the real entry programs (bloomblock_xdp,
 * bloomblock_tc_ingress, bloomblock_tc_egress) over IPv4 and IPv6; each step says
 * what that packet must do to the verdict and to every counter (summed over CPUs).
 * A case states hits and service counters once: the runner turns a hit into
 * dropped or flagged (and the tc mark) by the table's mode, so the same cases run in
 * drop and in flag mode. Bloom blocks read are predicted by a model of the probe
 * order that include/bloomblock.h promises, written here again over the live map,
 * and `bloomblock check` (bb_image_match_entry) must agree with every name verdict.
 */

#define TABLE_FPR		1e-6	/* crafted misses must not be false positives */
#define TEST_MARK		0xb10cU	/* skb mark of flagged packets at tc */
#define MAX_FRAME		4096
#define MAX_PAYLOAD		3072
#define MAX_STEPS		8

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

enum hook {
	HOOK_XDP,
	HOOK_TC_INGRESS,
	HOOK_TC_EGRESS,
	HOOK_MAX,
};

static const char *const hook_names[HOOK_MAX] = { "xdp", "tc ingress", "tc egress" };

#define ON_XDP		(1U << HOOK_XDP)
#define ON_TC_IN	(1U << HOOK_TC_INGRESS)
#define ON_TC_EG	(1U << HOOK_TC_EGRESS)
#define ON_INGRESS	(ON_XDP | ON_TC_IN)
#define ON_ALL		(ON_XDP | ON_TC_IN | ON_TC_EG)
#define FAM_V4		1U
#define FAM_V6		2U
#define FAM_ALL		(FAM_V4 | FAM_V6)

/* What this test adds to the harness: the entry programs, flow state, the default ports. */
static struct {
	int prog_fd[HOOK_MAX];
	int flows_fd;
	struct bb_config ports;		/* bb_config_defaults(), flagged packets marked TEST_MARK */
} env;

/*
 * Forget every ClientHello walk: each run starts without flow state. The counts
 * of waiting walks go to 0 with them (deletes from here do not count them out).
 */
static void flows_clear(void)
{
	struct bb_flow_key key;

	while (!bpf_map_get_next_key(env.flows_fd, NULL, &key))
		if (bpf_map_delete_elem(env.flows_fd, &key))
			break;
	memset(harness.skel->bss->bb_pending, 0, sizeof(harness.skel->bss->bb_pending));
}

/*
 * Since flows_clear(), the programs counted every walk they stored in its slot
 * and counted out every one they deleted: each slot's count must equal the walks
 * in flows that hash to it (nothing was evicted). Too low would let a split
 * ClientHello's next segment skip its walk.
 */
static void pending_check(char *msg, size_t size)
{
	static __u32 want[1 << BB_PENDING_BITS];
	struct bb_flow_key key, next, *prev = NULL;
	__u32 i;

	memset(want, 0, sizeof(want));
	while (!bpf_map_get_next_key(env.flows_fd, prev, &next)) {
		want[bb_flow_slot(&next)]++;
		key = next;
		prev = &key;
	}
	for (i = 0; i < 1U << BB_PENDING_BITS; i++)
		if (harness.skel->bss->bb_pending[i] != want[i]) {
			appendf(msg, size, "waiting walks counted %u in slot %u, flows holds %u; ",
				harness.skel->bss->bb_pending[i], i, want[i]);
			return;
		}
}

/* One test run of a real entry program; the tc ones leave a mark. */
static int run_prog(enum hook h, const __u8 *frame, size_t len, __u32 *retval, __u32 *mark)
{
	return harness_run(env.prog_fd[h], h != HOOK_XDP, frame, len, retval, mark);
}

/* ---- frames ---- */

#define PEER4		"198.51.100.7"		/* the other end: not listed */
#define HOST4		"203.0.113.9"
#define LISTED4		"192.0.2.1"		/* listed in the address tables */
#define PEER6		"2001:db8:100::7"
#define HOST6		"2001:db8:200::9"
#define LISTED6		"2001:db8::1"

/*
 * The frame f says, with one 802.1Q tag or none, and IPv4 (don't fragment, ip_opts
 * words of options) or IPv6 (ip_opts extension headers: hop-by-hop, then
 * destination options, 8 at the most).
 */
static size_t build_frame(const struct pkt_frame *f, bool vlan, unsigned int ip_opts,
			  const __u8 *payload, size_t len, __u8 *p)
{
	struct pkt_frame g = *f;
	char ext6[9] = "";
	unsigned int i;

	if (vlan)
		g.tags[0] = ETH_P_8021Q;
	if (g.net == PKT_IPV4) {
		g.frag = PKT_IP_DF;
		g.ihl = ip_opts ? 5 + ip_opts : 0;
	}
	for (i = 0; g.net == PKT_IPV6 && i < ip_opts && i + 1 < sizeof(ext6); i++)
		ext6[i] = i ? 'D' : 'H';
	g.ext6 = ext6;
	return pkt_frame(&g, payload, len, p, MAX_FRAME);
}

/* Into a buffer of MAX_PAYLOAD bytes, as every payload here is. */
static size_t build_payload(const struct pkt_payload *pl, __u8 *p, size_t *sni_off)
{
	return pkt_payload(pl, p, MAX_PAYLOAD, sni_off);
}

/* ---- the model: what the program reads, and whether it hits ---- */

/* Bloom blocks read for one address (harness_model_addr()). */
static unsigned int model_addr(const char *text, bool v6, bool *hit)
{
	__u8 addr[16] = {};

	inet_pton(v6 ? AF_INET6 : AF_INET, text, addr);
	return harness_model_addr(addr, !v6, hit);
}

static bool probe(__u8 kind, const char *text, size_t len)
{
	__u8 key[BB_KEY_MAX + 1];

	if (1 + len > BB_KEY_MAX)
		return false;
	key[0] = kind;
	memcpy(key + 1, text, len);
	return bb_image_match_key(harness.img.blocks, key, 1 + len);
}

/*
 * Where the strict parents of name[0 .. len) start, shortest first: parents of two
 * labels, three, ... up to max_labels, at most max of them (include/bloomblock.h).
 * Written from that promise, not from bb_name_parents().
 */
static unsigned int parents_of(const char *name, size_t len, unsigned int max,
			       unsigned int max_labels, size_t *starts)
{
	unsigned int labels = 0, n = 0;
	size_t i;

	for (i = len; i-- > 0 && n < max;) {
		if (name[i] != '.')
			continue;
		if (++labels > max_labels)
			break;
		if (labels >= 2 && i > 0)
			starts[n++] = i + 1;
	}
	return n;
}

/* Blocks read to match a name: the name, then its parents until one hits. */
static unsigned int model_name(const char *name, bool *hit)
{
	size_t len = strlen(name), starts[16];
	unsigned int n, i, lookups = 1;

	*hit = false;
	if (!(harness_live_header()->flags & BB_HDR_F_NAMES))
		return 0;
	if (probe(BB_KEY_NAME, name, len)) {
		*hit = true;
		return lookups;
	}
	n = parents_of(name, len, BB_NAME_MAX_PARENT_LABELS - 1, BB_NAME_MAX_PARENT_LABELS,
		       starts);
	for (i = 0; i < n; i++) {
		lookups++;
		if (probe(BB_KEY_NAME_PARENT, name + starts[i], len - starts[i])) {
			*hit = true;
			break;
		}
	}
	return lookups;
}

/*
 * Blocks read to match a URL after its host missed: the host and its parents of 2..5
 * labels, times the path with its query, without it, and prefixes ending in '/'.
 */
static unsigned int model_url(const char *host, const char *path, bool *hit)
{
	size_t hlen = strlen(host), plen = strlen(path), q, hosts[8], paths[8], i, j;
	unsigned int n_hosts, n_paths = 0, lookups = 0;
	bool full = 1 + hlen + plen <= BB_KEY_MAX;
	char text[2 * BB_KEY_MAX];

	*hit = false;
	if (!(harness_live_header()->flags & BB_HDR_F_URLS))
		return 0;
	if (!full)
		plen = BB_KEY_MAX - 1 - hlen;
	q = strcspn(path, "?");
	if (q > plen)
		q = plen;
	if (full && plen)
		paths[n_paths++] = plen;
	if (q < plen)
		paths[n_paths++] = q;
	for (i = 0; i < q && n_paths < BB_URL_MAX_PATH_PREFIXES; i++)
		if (path[i] == '/' && i + 1 != q && !(full && i + 1 == plen))
			paths[n_paths++] = i + 1;
	hosts[0] = 0;
	n_hosts = 1 + parents_of(host, hlen, BB_URL_MAX_HOST_SUFFIXES - 1,
				 BB_URL_MAX_HOST_SUFFIXES, hosts + 1);
	for (i = 0; i < n_hosts; i++) {
		for (j = 0; j < n_paths; j++) {
			int n = snprintf(text, sizeof(text), "%s%.*s", host + hosts[i],
					 (int)paths[j], path);

			lookups++;
			if (probe(BB_KEY_URL, text, n)) {
				*hit = true;
				return lookups;
			}
		}
	}
	return lookups;
}

/*
 * `bloomblock check ITEM` on the live filter: bb_image_match_entry(); with allow,
 * whether its allowlist passes it: bb_image_allowed().
 */
static int check_item(const char *item, bool allow, const char **why)
{
	char text[BB_KEY_MAX + 64];
	struct bb_entry entry;
	int err = bb_list_parse_item(item, &entry, text, sizeof(text), why);

	if (err)
		return -1;
	return allow ? bb_image_allowed(harness.img.blocks, &entry) :
	       bb_image_match_entry(harness.img.blocks, &entry);
}

/* ---- tables ---- */

struct step {
	bool set;
	int from, to;		/* payload bytes [from, to) as positions (POS_*); 0, 0: all */
	int seq_skew;		/* added to the TCP sequence number: a gap */
	bool hit;		/* a hit: dropped in drop mode, flagged in flag mode */
	bool by_state;		/* the hit is the flow's earlier verdict or QUIC blocking */
	bool src_hit;		/* the source address hit: ip4_hits or ip6_hits */
	bool src_allowed;	/* it hit, and the allowlist passed it: the checks go on */
	bool dst_allowed;	/* the destination the same */
	bool allowed;		/* the name or URL hit, and the allowlist passed it */
	const char *seen;	/* the canonical name the program matches; NULL: none */
	const char *path;	/* HTTP: the request's path, for the URL probes */
	int lookups;		/* LK(n): exactly n blocks read; 0: as the model says */
	struct bb_stats delta;	/* what the packet counts besides packets, ipvN, vlan, verdict */
};

/* Positions in a payload: absolute, from the SNI name's first byte, from the end. */
#define POS_SNI		100000
#define POS_END		200000
#define SNI(d)		(POS_SNI + (d))
#define END		POS_END

struct name_case {
	const char *name;
	struct pkt_payload pl;
	__u8 proto;		/* 0: by payload (UDP for DNS and QUIC, TCP otherwise) */
	__u16 dport;		/* 0: by payload (53; 443 for TLS and QUIC; 80) */
	bool vlan, src_listed, dst_listed;
	unsigned int ip_opts;	/* IPv4: words of options; IPv6: extension headers */
	unsigned int hooks, families;	/* 0: every hook, both families */
	size_t sni_after;	/* the case needs the SNI name to start at this byte or later */
	struct step steps[MAX_STEPS];
};

#define DNS(n, ...)	.pl = { .kind = PKT_DNS, .dns = { .name = (n), __VA_ARGS__ } }
#define DNS_WIRE(b)	.pl = { .kind = PKT_DNS, .dns = { .wire = (b), .wire_len = sizeof(b) - 1 } }
#define HELLO(...)	.pl = { .kind = PKT_HELLO, .hello = { __VA_ARGS__ } }
#define BYTES(s)	.pl = { .kind = PKT_BYTES, .bytes = (s) }
#define QUIC(f, v)	.pl = { .kind = PKT_QUIC, .quic = { .first = (f), .version = (v) } }

#define ONE(...)	.steps = { { .set = true, __VA_ARGS__ } }
#define SEGS(...)	.steps = { __VA_ARGS__ }
#define SEG(f, t, ...)	{ .set = true, .from = (f), .to = (t), __VA_ARGS__ }
#define LK(n)		.lookups = (n) + 1

/* What one packet counts, by outcome. */
#define QUIET		.delta = { 0 }
#define DNS_HIT(n)	.hit = true, .seen = (n), .delta = { .dns_queries = 1, .dns_hits = 1 }
#define DNS_MISS(n)	.seen = (n), .delta = { .dns_queries = 1 }
#define DNS_NONAME	.delta = { .dns_queries = 1 }
#define DNS_BAD		.delta = { .dns_queries = 1, .dns_unparsed = 1 }
#define TLS_HIT(n, ...)	.hit = true, .seen = (n), \
			.delta = { .tls_hellos = 1, .tls_hits = 1, __VA_ARGS__ }
#define TLS_MISS(n, ...) .seen = (n), .delta = { .tls_hellos = 1, __VA_ARGS__ }
#define TLS_NO_SNI	.delta = { .tls_hellos = 1, .tls_no_sni = 1 }
#define TLS_BAD		.delta = { .tls_hellos = 1, .tls_unparsed = 1 }
#define TLS_WAIT	.delta = { .tls_hellos = 1 }	/* a first segment: the walk waits */
#define TLS_MORE	.delta = { 0 }			/* a middle segment */
#define SPLIT_HIT(n, ...) .hit = true, .seen = (n), \
			.delta = { .tls_split = 1, .tls_hits = 1, __VA_ARGS__ }
#define SPLIT_MISS(n, ...) .seen = (n), .delta = { .tls_split = 1, __VA_ARGS__ }
#define SPLIT_BAD	.delta = { .tls_unparsed = 1 }
#define FLOW_HIT	.hit = true, .by_state = true, .delta = { 0 }
#define HTTP_HIT(h, p)	.hit = true, .seen = (h), .path = (p), \
			.delta = { .http_requests = 1, .http_hits = 1 }
#define URL_HIT(h, p)	.hit = true, .seen = (h), .path = (p), \
			.delta = { .http_requests = 1, .url_hits = 1 }
#define HTTP_MISS(h, p)	.seen = (h), .path = (p), .delta = { .http_requests = 1 }
#define HTTP_BAD	.delta = { .http_requests = 1, .http_unparsed = 1 }
#define QUIC_SEEN	.delta = { .quic_initials = 1 }
#define QUIC_DROP	.hit = true, .by_state = true, \
			.delta = { .quic_initials = 1, .quic_dropped = 1 }
/* in flag mode a blocked Initial passes: flagged, not counted as dropped */
#define QUIC_FLAG	.hit = true, .by_state = true, .delta = { .quic_initials = 1 }
#define SRC_HIT		.hit = true, .src_hit = true, .delta = { 0 }
/* a hit the allowlist passes: counted as a hit, and allowed */
#define DNS_ALLOWED(n)	.allowed = true, .seen = (n), .delta = { .dns_queries = 1, .dns_hits = 1 }
#define TLS_ALLOWED(n)	.allowed = true, .seen = (n), .delta = { .tls_hellos = 1, .tls_hits = 1 }
#define HTTP_ALLOWED(h, p) .allowed = true, .seen = (h), .path = (p), \
			.delta = { .http_requests = 1, .http_hits = 1 }
#define URL_ALLOWED(h, p) .allowed = true, .seen = (h), .path = (p), \
			.delta = { .http_requests = 1, .url_hits = 1 }
#define DST_HIT		.hit = true, .delta = { .ip_dst_hits = 1 }

/* Names made at start: a 63-byte label, 253 and 254 bytes, a 64-byte label. */
static char label63_name[80], label64_name[80], name253[256], name254[256];
/* An HTTP request whose Host is past the bytes read; one whose path is longer than a key. */
static char late_host_req[900], long_path[320], long_path_req[600];
/* 32 and 33 GREASE extensions before the SNI: the last that one walk follows, and one more. */
static char grease32_exts[40], grease33_exts[40];

#define TEN_LABELS	"l1.l2.l3.l4.l5.l6.l7.l8.ten.example"
#define ELEVEN_LABELS	"m1.m2.m3.m4.m5.m6.m7.m8.m9.eleven.example"
#define TWELVE_UNDER	"a.b.c.d.e.f.g.h.i.j.parent.example"

static const char *const name_list[] = {
	"evil.example", "*.wild.example", "phish.test/login/", "files.test/x/evil.zip",
	TEN_LABELS, ELEVEN_LABELS, "parent.example", "b\xc3\xbc" "cher.example",
	"a.b.c.deep.test/x/", "q.r.s.t.deep.test/x/", NULL,
};

static const struct name_case dns_cases[] = {
	{ "listed name",		DNS("evil.example"),	ONE(DNS_HIT("evil.example"), LK(1)) },
	{ "subdomain of a listed name",	DNS("www.evil.example"),
	  ONE(DNS_HIT("www.evil.example"), LK(2)) },
	{ "deep subdomain: the 2-label parent is probed first", DNS("a.b.c.evil.example"),
	  ONE(DNS_HIT("a.b.c.evil.example"), LK(2)) },
	{ "not-listed sibling notevil.example", DNS("notevil.example"),
	  ONE(DNS_MISS("notevil.example"), LK(1)) },
	{ "not listed: evil.example.org", DNS("evil.example.org"),
	  ONE(DNS_MISS("evil.example.org"), LK(2)) },
	{ "upper case EVIL.Example",	DNS("EVIL.Example"),	ONE(DNS_HIT("evil.example")) },
	{ "upper case subdomain WWW.EVIL.EXAMPLE", DNS("WWW.EVIL.EXAMPLE"),
	  ONE(DNS_HIT("www.evil.example")) },
	{ "63-byte label under a listed name", DNS(label63_name), ONE(DNS_HIT(label63_name)) },
	{ "253-byte name under a listed name", DNS(name253),	ONE(DNS_HIT(name253), LK(2)) },
	{ "254-byte name: longer than any name", DNS(name254),	ONE(DNS_BAD) },
	{ "empty (root) name",		DNS(""),		ONE(DNS_NONAME) },
	{ "label length 64",		DNS(label64_name),	ONE(DNS_BAD) },
	{ "compression pointer as the question name", DNS_WIRE("\xc0\x0c"), ONE(DNS_BAD) },
	{ "compression pointer after a label", DNS_WIRE("\x03www\xc0\x0c"), ONE(DNS_BAD) },
	{ "a zero byte inside a label", DNS_WIRE("\x04" "ev\0l\x07" "example\0"), ONE(DNS_BAD) },
	{ "truncated question: no terminating zero", DNS_WIRE("\x04" "evil\x07" "exam"),
	  ONE(DNS_BAD) },
	{ "header only, no question",	DNS("evil.example"),	ONE(DNS_BAD, .to = 12) },
	{ "shorter than a header",	DNS("evil.example"),	ONE(DNS_BAD, .to = 11) },
	{ "question count 0",		DNS("evil.example", .qdcount = PKT_SET(0)), ONE(DNS_BAD) },
	{ "response (QR=1): not a query", DNS("evil.example", .flags = PKT_SET(0x81)), ONE(QUIET) },
	{ "opcode UPDATE: not a standard query", DNS("evil.example", .flags = PKT_SET(0x28)),
	  ONE(QUIET) },
	{ "no recursion desired is still a query", DNS("evil.example", .flags = PKT_SET(0)),
	  ONE(DNS_HIT("evil.example")) },
	{ "*.wild.example: a.wild.example hits", DNS("a.wild.example"),
	  ONE(DNS_HIT("a.wild.example"), LK(2)) },
	{ "*.wild.example: x.y.wild.example hits", DNS("x.y.wild.example"),
	  ONE(DNS_HIT("x.y.wild.example"), LK(2)) },
	{ "*.wild.example: wild.example itself misses", DNS("wild.example"),
	  ONE(DNS_MISS("wild.example"), LK(1)) },
	{ "a listed name of 10 labels matches itself", DNS(TEN_LABELS),
	  ONE(DNS_HIT(TEN_LABELS), LK(1)) },
	{ "a subdomain of a 10-label name: its longest parent probe hits", DNS("x." TEN_LABELS),
	  ONE(DNS_HIT("x." TEN_LABELS), LK(10)) },
	{ "a listed name of 11 labels matches itself", DNS(ELEVEN_LABELS),
	  ONE(DNS_HIT(ELEVEN_LABELS), LK(1)) },
	{ "a subdomain of an 11-label name is not probed that deep", DNS("x." ELEVEN_LABELS),
	  ONE(DNS_MISS("x." ELEVEN_LABELS), LK(10)) },
	{ "12 labels under a listed 2-label parent: shortest parent first", DNS(TWELVE_UNDER),
	  ONE(DNS_HIT(TWELVE_UNDER), LK(2)) },
	{ "URL entries never block their host: files.test", DNS("files.test"),
	  ONE(DNS_MISS("files.test"), LK(1)) },
	{ "URL entries never block their host: www.phish.test", DNS("www.phish.test"),
	  ONE(DNS_MISS("www.phish.test"), LK(2)) },
	{ "URL entries never block their host: a.b.c.deep.test", DNS("a.b.c.deep.test"),
	  ONE(DNS_MISS("a.b.c.deep.test"), LK(4)) },
	{ "IDN in punycode: bücher.example", DNS("xn--bcher-kva.example"),
	  ONE(DNS_HIT("xn--bcher-kva.example")) },
	{ "listed name in 802.1Q",	DNS("evil.example"), .vlan = true,
	  ONE(DNS_HIT("evil.example")) },
	{ "listed name after IPv4 options / an IPv6 hop-by-hop header", DNS("evil.example"),
	  .ip_opts = 1, ONE(DNS_HIT("evil.example")) },
	{ "after 4 words of IPv4 options / 4 IPv6 extension headers", DNS("evil.example"),
	  .ip_opts = 4, ONE(DNS_HIT("evil.example")) },
	{ "after 5 IPv6 extension headers: more than followed, not read", DNS("evil.example"),
	  .ip_opts = 5, .families = FAM_V6, ONE(QUIET) },
	{ "to port 5353 (not a DNS port here)", DNS("evil.example"), .dport = 5353, ONE(QUIET) },
	{ "DNS over TCP is not read",	DNS("evil.example"), .proto = IPPROTO_TCP, ONE(QUIET) },
};

static const struct name_case tls_cases[] = {
	{ "SNI first",			HELLO(.sni = "evil.example", .exts = PKT_EXTS_SNI_FIRST),
	  ONE(TLS_HIT("evil.example"), LK(1)) },
	{ "SNI after one GREASE extension", HELLO(.sni = "evil.example"),
	  ONE(TLS_HIT("evil.example")) },
	{ "SNI after three GREASE extensions", HELLO(.sni = "evil.example", .exts = "GgGSBVK"),
	  ONE(TLS_HIT("evil.example")) },
	{ "SNI last",			HELLO(.sni = "evil.example", .exts = PKT_EXTS_SNI_LAST),
	  ONE(TLS_HIT("evil.example")) },
	{ "SNI subdomain",		HELLO(.sni = "www.evil.example"),
	  ONE(TLS_HIT("www.evil.example"), LK(2)) },
	{ "SNI not listed: notevil.example", HELLO(.sni = "notevil.example"),
	  ONE(TLS_MISS("notevil.example"), LK(1)) },
	{ "SNI in upper case",		HELLO(.sni = "EVIL.EXAMPLE"),	ONE(TLS_HIT("evil.example")) },
	{ "SNI with a trailing dot",	HELLO(.sni = "evil.example."),	ONE(TLS_HIT("evil.example")) },
	{ "SNI a.wild.example",		HELLO(.sni = "a.wild.example"),
	  ONE(TLS_HIT("a.wild.example")) },
	{ "SNI wild.example",		HELLO(.sni = "wild.example"),
	  ONE(TLS_MISS("wild.example")) },
	{ "SNI files.test: a URL entry does not block the host", HELLO(.sni = "files.test"),
	  ONE(TLS_MISS("files.test")) },
	{ "SNI of 12 labels under a listed parent", HELLO(.sni = TWELVE_UNDER),
	  ONE(TLS_HIT(TWELVE_UNDER), LK(2)) },
	{ "SNI that is no hostname (a space)", HELLO(.sni = "evil example"), ONE(TLS_BAD) },
	{ "no SNI",			HELLO(.sni = "evil.example", .exts = PKT_EXTS_NO_SNI),
	  ONE(TLS_NO_SNI) },
	{ "an empty extensions block",	HELLO(.sni = "evil.example", .exts = ""), ONE(TLS_NO_SNI) },
	{ "no extensions block at all", HELLO(.sni = "evil.example", .lie = PKT_LIE_NO_EXTENSIONS),
	  ONE(TLS_NO_SNI) },
	{ "an extension's length runs past the extensions",
	  HELLO(.sni = "evil.example", .lie = PKT_LIE_EXT_PAST_END), ONE(TLS_BAD) },
	{ "the extensions' length runs past the ClientHello",
	  HELLO(.sni = "evil.example", .lie = PKT_LIE_EXTS_PAST_HELLO), ONE(TLS_BAD) },
	{ "the handshake length runs past the record",
	  HELLO(.sni = "evil.example", .lie = PKT_LIE_HS_PAST_RECORD), ONE(TLS_BAD) },
	{ "SNI list length inconsistent with the name",
	  HELLO(.sni = "evil.example", .lie = PKT_LIE_SNI_LIST_SHORT), ONE(TLS_BAD) },
	{ "SNI name length runs past the extensions",
	  HELLO(.sni = "evil.example", .exts = PKT_EXTS_SNI_LAST, .lie = PKT_LIE_SNI_NAME_PAST_END),
	  ONE(TLS_BAD) },
	{ "SNI name type 1",		HELLO(.sni = "evil.example", .lie = PKT_LIE_SNI_TYPE),
	  ONE(TLS_BAD) },
	{ "server_name extension of 4 bytes",
	  HELLO(.sni = "evil.example", .lie = PKT_LIE_SNI_EXT_SHORT), ONE(TLS_BAD) },
	{ "session id of 33 bytes",	HELLO(.sni = "evil.example", .lie = PKT_LIE_SESSION_ID_33),
	  ONE(TLS_BAD) },
	{ "cipher suites of odd length", HELLO(.sni = "evil.example", .lie = PKT_LIE_CIPHERS_ODD),
	  ONE(TLS_BAD) },
	{ "no compression methods",	HELLO(.sni = "evil.example", .lie = PKT_LIE_NO_COMPRESSION),
	  ONE(TLS_BAD) },
	{ "truncated record, cut before the SNI: the walk waits", HELLO(.sni = "evil.example"),
	  ONE(TLS_WAIT, .to = SNI(-9)) },
	{ "truncated record, cut inside the SNI: the walk waits", HELLO(.sni = "evil.example"),
	  ONE(TLS_WAIT, .to = SNI(11)) },
	{ "truncated to its record header (5 bytes): counted, the walk waits",
	  HELLO(.sni = "evil.example"), ONE(TLS_WAIT, .to = 5) },
	{ "truncated to its first byte: counted, the walk waits",
	  HELLO(.sni = "evil.example"), ONE(TLS_WAIT, .to = 1) },
	{ "a first byte that is no handshake record: not counted",
	  BYTES("\x17"), .dport = 443, ONE(QUIET) },
	{ "22, then not version 3: not counted", BYTES("\x16\x02"), .dport = 443, ONE(QUIET) },
	{ "ECH before the SNI, outer SNI listed", HELLO(.sni = "evil.example", .exts = "GECSBVK"),
	  ONE(TLS_HIT("evil.example", .tls_ech = 1)) },
	{ "ECH before the SNI, outer SNI not listed",
	  HELLO(.sni = "public.example", .exts = "GBVKES"),
	  ONE(TLS_MISS("public.example", .tls_ech = 1)) },
	/* the walk stops at the SNI: an ECH extension after it is not seen, nor counted */
	{ "ECH after the SNI is not seen", HELLO(.sni = "evil.example", .exts = "GSBVKE"),
	  ONE(TLS_HIT("evil.example")) },
	{ "32 extensions before the SNI: the most one segment's walk follows",
	  HELLO(.sni = "evil.example", .exts = grease32_exts), ONE(TLS_HIT("evil.example")) },
	{ "33 extensions before the SNI: more than one segment's walk follows",
	  HELLO(.sni = "evil.example", .exts = grease33_exts), ONE(TLS_BAD) },
	{ "application data record: not a ClientHello",
	  HELLO(.sni = "evil.example", .lie = PKT_LIE_RECORD_TYPE), ONE(QUIET) },
	{ "ServerHello: not a ClientHello", HELLO(.sni = "evil.example", .lie = PKT_LIE_HS_TYPE),
	  ONE(QUIET) },
	{ "SNI in 802.1Q",		HELLO(.sni = "evil.example"), .vlan = true,
	  ONE(TLS_HIT("evil.example")) },
	{ "SNI after IPv4 options / 4 IPv6 extension headers", HELLO(.sni = "evil.example"),
	  .ip_opts = 4, ONE(TLS_HIT("evil.example")) },
	{ "TCP to 443 without payload",	BYTES(""), ONE(QUIET) },
	{ "HTTP request to 443: not TLS", BYTES("GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n"),
	  .dport = 443, ONE(QUIET) },
	{ "ClientHello to port 8443 (not a TLS port here)", HELLO(.sni = "evil.example"),
	  .dport = 8443, ONE(QUIET) },
	{ "ClientHello over UDP 443 is not TLS", HELLO(.sni = "evil.example"),
	  .proto = IPPROTO_UDP, ONE(QUIET) },
};

/* The big one: a 1216-byte X25519MLKEM768 key share and padding before the SNI. */
#define BIG_HELLO(n, ...) HELLO(.sni = (n), .exts = "GBRCOTAQWVMKXP" __VA_ARGS__ "S", \
				.key_share = 1216, .padding = 256)

static const struct name_case split_cases[] = {
	{ "2 segments, split inside the name; both retransmitted after the hit",
	  HELLO(.sni = "evil.example"),
	  SEGS(SEG(0, SNI(3), TLS_WAIT), SEG(SNI(3), END, SPLIT_HIT("evil.example"), LK(1)),
	       SEG(SNI(3), END, FLOW_HIT), SEG(0, SNI(3), FLOW_HIT)) },
	{ "2 segments, split inside the server_name header", HELLO(.sni = "evil.example"),
	  SEGS(SEG(0, SNI(-6), TLS_WAIT), SEG(SNI(-6), END, SPLIT_HIT("evil.example"))) },
	{ "2 segments, split after the handshake type (6 bytes)", HELLO(.sni = "evil.example"),
	  SEGS(SEG(0, 6, TLS_WAIT), SEG(6, END, SPLIT_HIT("evil.example"))) },
	{ "2 segments, split inside the record header (5 bytes)", HELLO(.sni = "evil.example"),
	  SEGS(SEG(0, 5, TLS_WAIT), SEG(5, END, SPLIT_HIT("evil.example"))) },
	{ "2 segments, the first of 1 byte", HELLO(.sni = "evil.example"),
	  SEGS(SEG(0, 1, TLS_WAIT), SEG(1, END, SPLIT_HIT("evil.example"))) },
	{ "2 segments, the first of 2 bytes", HELLO(.sni = "evil.example"),
	  SEGS(SEG(0, 2, TLS_WAIT), SEG(2, END, SPLIT_HIT("evil.example"))) },
	{ "2 segments, split right after the name: the first one hits",
	  HELLO(.sni = "evil.example"),
	  SEGS(SEG(0, SNI(12), TLS_HIT("evil.example")), SEG(SNI(12), END, QUIET)) },
	{ "3 segments in order", HELLO(.sni = "evil.example"),
	  SEGS(SEG(0, 40, TLS_WAIT), SEG(40, SNI(2), TLS_MORE),
	       SEG(SNI(2), END, SPLIT_HIT("evil.example"))) },
	{ "3 segments, the second completes the SNI; the third is dropped too",
	  HELLO(.sni = "evil.example"),
	  SEGS(SEG(0, 40, TLS_WAIT), SEG(40, SNI(20), SPLIT_HIT("evil.example")),
	       SEG(SNI(20), END, FLOW_HIT)) },
	{ "3 segments, SNI last", HELLO(.sni = "www.evil.example", .exts = PKT_EXTS_SNI_LAST),
	  SEGS(SEG(0, 100, TLS_WAIT), SEG(100, SNI(-2), TLS_MORE),
	       SEG(SNI(-2), END, SPLIT_HIT("www.evil.example"), LK(2))) },
	{ "2 segments, not listed: passes and the flow is forgotten",
	  HELLO(.sni = "notevil.example"),
	  SEGS(SEG(0, SNI(3), TLS_WAIT), SEG(SNI(3), END, SPLIT_MISS("notevil.example")),
	       SEG(SNI(3), END, QUIET)) },
	{ "out of order: a gap in sequence numbers ends the walk", HELLO(.sni = "evil.example"),
	  SEGS(SEG(0, SNI(3), TLS_WAIT), SEG(SNI(3), END, SPLIT_BAD, .seq_skew = 100),
	       SEG(SNI(3), END, QUIET)) },
	{ "the first segment again before the second: ignored", HELLO(.sni = "evil.example"),
	  SEGS(SEG(0, SNI(3), TLS_WAIT), SEG(0, SNI(3), QUIET),
	       SEG(SNI(3), END, SPLIT_HIT("evil.example"))) },
	{ "2 segments without SNI", HELLO(.sni = "evil.example", .exts = PKT_EXTS_NO_SNI),
	  SEGS(SEG(0, 60, TLS_WAIT), SEG(60, END, .delta = { .tls_no_sni = 1 })) },
	{ "2 segments, a lying SNI list length in the second",
	  HELLO(.sni = "evil.example", .lie = PKT_LIE_SNI_LIST_SHORT),
	  SEGS(SEG(0, 50, TLS_WAIT), SEG(50, END, SPLIT_BAD)) },
	{ "2 segments, ECH in the first, SNI in the second",
	  HELLO(.sni = "evil.example", .exts = "GBVEKS"),
	  SEGS(SEG(0, SNI(-20), TLS_WAIT), SEG(SNI(-20), END,
	       SPLIT_HIT("evil.example", .tls_ech = 1))) },
	{ "6 segments, the sixth completes the SNI", HELLO(.sni = "evil.example"),
	  SEGS(SEG(0, 6, TLS_WAIT), SEG(6, 20, TLS_MORE), SEG(20, 40, TLS_MORE),
	       SEG(40, 60, TLS_MORE), SEG(60, SNI(1), TLS_MORE),
	       SEG(SNI(1), END, SPLIT_HIT("evil.example"))) },
	{ "7 segments: the walk gives up at the sixth", HELLO(.sni = "evil.example"),
	  SEGS(SEG(0, 6, TLS_WAIT), SEG(6, 20, TLS_MORE), SEG(20, 40, TLS_MORE),
	       SEG(40, 60, TLS_MORE), SEG(60, 80, TLS_MORE), SEG(80, SNI(1), SPLIT_BAD),
	       SEG(SNI(1), END, QUIET)) },
	{ "1.7 KB ClientHello, 1216-byte key share, split at MSS 1460", BIG_HELLO("evil.example"),
	  .sni_after = 1460,
	  SEGS(SEG(0, 1460, TLS_WAIT), SEG(1460, END, SPLIT_HIT("evil.example"))) },
	{ "1.7 KB ClientHello, split at 1460, not listed", BIG_HELLO("notevil.example"),
	  .sni_after = 1460,
	  SEGS(SEG(0, 1460, TLS_WAIT), SEG(1460, END, SPLIT_MISS("notevil.example"))) },
	{ "1.9 KB ClientHello with ECH, split at 1460", BIG_HELLO("evil.example", "E"),
	  .sni_after = 1460,
	  SEGS(SEG(0, 1460, TLS_WAIT), SEG(1460, END, SPLIT_HIT("evil.example", .tls_ech = 1))) },
};

#define REQ(host_line)	"GET / HTTP/1.1\r\n" host_line "\r\nUser-Agent: t\r\nAccept: */*\r\n\r\n"
#define REQ_PATH(path, host) "GET " path " HTTP/1.1\r\nHost: " host "\r\nAccept: */*\r\n\r\n"

static const struct name_case http_cases[] = {
	{ "Host listed",		BYTES(REQ("Host: evil.example")),
	  ONE(HTTP_HIT("evil.example", "/"), LK(1)) },
	{ "Host listed, port 8080",	BYTES(REQ("Host: evil.example")), .dport = 8080,
	  ONE(HTTP_HIT("evil.example", "/")) },
	{ "Host with a port: evil.example:8080", BYTES(REQ("Host: evil.example:8080")),
	  .dport = 8080, ONE(HTTP_HIT("evil.example", "/")) },
	{ "lower-case host:",		BYTES(REQ("host: evil.example")),
	  ONE(HTTP_HIT("evil.example", "/")) },
	{ "HOST: EVIL.EXAMPLE",		BYTES(REQ("HOST: EVIL.EXAMPLE")),
	  ONE(HTTP_HIT("evil.example", "/")) },
	{ "odd spacing: Host:   evil.example", BYTES(REQ("Host:   evil.example")),
	  ONE(HTTP_HIT("evil.example", "/")) },
	{ "a tab before the value",	BYTES(REQ("Host:\tevil.example")),
	  ONE(HTTP_HIT("evil.example", "/")) },
	{ "no space before the value",	BYTES(REQ("Host:evil.example")),
	  ONE(HTTP_HIT("evil.example", "/")) },
	{ "header folding (obs-fold): Host:\\r\\n evil.example", BYTES(REQ("Host:\r\n evil.example")),
	  ONE(HTTP_HIT("evil.example", "/")) },
	{ "Host with a trailing dot",	BYTES(REQ("Host: evil.example.")),
	  ONE(HTTP_HIT("evil.example", "/")) },
	{ "Host a subdomain",		BYTES(REQ("Host: www.evil.example")),
	  ONE(HTTP_HIT("www.evil.example", "/"), LK(2)) },
	{ "Host after other headers",
	  BYTES("GET / HTTP/1.1\r\nUser-Agent: t\r\nAccept: */*\r\nHost: evil.example\r\n\r\n"),
	  ONE(HTTP_HIT("evil.example", "/")) },
	{ "LF line ends",		BYTES("GET / HTTP/1.1\nHost: evil.example\n\n"),
	  ONE(HTTP_HIT("evil.example", "/")) },
	{ "HTTP/1.0",			BYTES("GET / HTTP/1.0\r\nHost: evil.example\r\n\r\n"),
	  ONE(HTTP_HIT("evil.example", "/")) },
	{ "POST",			BYTES("POST /form HTTP/1.1\r\nHost: evil.example\r\n"
					      "Content-Length: 0\r\n\r\n"),
	  ONE(HTTP_HIT("evil.example", "/form")) },
	{ "OPTIONS (7 letters)",	BYTES("OPTIONS * HTTP/1.1\r\nHost: evil.example\r\n\r\n"),
	  ONE(HTTP_HIT("evil.example", "")) },
	{ "CONNECT: authority form",	BYTES("CONNECT evil.example:443 HTTP/1.1\r\n"
					      "Host: evil.example:443\r\n\r\n"),
	  ONE(HTTP_HIT("evil.example", "")) },
	{ "Host not listed",		BYTES(REQ("Host: notevil.example")),
	  ONE(HTTP_MISS("notevil.example", "/"), LK(2)) },
	{ "no Host",			BYTES("GET / HTTP/1.1\r\nUser-Agent: t\r\n\r\n"), ONE(HTTP_BAD) },
	{ "X-Host is not Host",		BYTES("GET / HTTP/1.1\r\nX-Host: evil.example\r\n\r\n"),
	  ONE(HTTP_BAD) },
	{ "empty Host",			BYTES(REQ("Host: ")),	ONE(HTTP_BAD) },
	{ "Host that is no hostname",	BYTES(REQ("Host: evil/example")), ONE(HTTP_BAD) },
	{ "Host past the bytes read",	BYTES(late_host_req),	ONE(HTTP_BAD) },
	{ "request line cut before the version", BYTES("GET /index.html"), ONE(HTTP_BAD) },
	{ "lower-case method: not HTTP", BYTES("get / HTTP/1.1\r\nHost: evil.example\r\n\r\n"),
	  ONE(QUIET) },
	{ "HTTP/2 preface: not HTTP/1.x", BYTES("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), ONE(QUIET) },
	{ "a TLS ClientHello to port 80: not HTTP", HELLO(.sni = "evil.example"), .dport = 80,
	  ONE(QUIET) },
	{ "URL prefix on phish.test: /login/page?x=1",
	  BYTES(REQ_PATH("/login/page?x=1", "phish.test")),
	  ONE(URL_HIT("phish.test", "/login/page?x=1"), LK(5)) },
	{ "URL prefix on www.phish.test", BYTES(REQ_PATH("/login/page?x=1", "www.phish.test")),
	  ONE(URL_HIT("www.phish.test", "/login/page?x=1"), LK(10)) },
	{ "URL prefix itself: /login/",	BYTES(REQ_PATH("/login/", "phish.test")),
	  ONE(URL_HIT("phish.test", "/login/")) },
	{ "path prefix miss: /loginx",	BYTES(REQ_PATH("/loginx", "phish.test")),
	  ONE(HTTP_MISS("phish.test", "/loginx"), LK(3)) },
	{ "path prefix miss: /login without the slash", BYTES(REQ_PATH("/login", "phish.test")),
	  ONE(HTTP_MISS("phish.test", "/login")) },
	{ "phish.test / is not blocked", BYTES(REQ_PATH("/", "phish.test")),
	  ONE(HTTP_MISS("phish.test", "/")) },
	{ "files.test/x/evil.zip hits",	BYTES(REQ_PATH("/x/evil.zip", "files.test")),
	  ONE(URL_HIT("files.test", "/x/evil.zip"), LK(2)) },
	{ "files.test/x/evil.zip?dl=1 hits", BYTES(REQ_PATH("/x/evil.zip?dl=1", "files.test")),
	  ONE(URL_HIT("files.test", "/x/evil.zip?dl=1"), LK(3)) },
	{ "files.test/x/other misses",	BYTES(REQ_PATH("/x/other", "files.test")),
	  ONE(HTTP_MISS("files.test", "/x/other")) },
	{ "files.test/ misses: a URL entry never blocks the host", BYTES(REQ("Host: files.test")),
	  ONE(HTTP_MISS("files.test", "/")) },
	{ "URL of a 5-label host, from its subdomain: the longest host suffix probed",
	  BYTES(REQ_PATH("/x/y", "w.a.b.c.deep.test")),
	  ONE(URL_HIT("w.a.b.c.deep.test", "/x/y")) },
	{ "URL of a 5-label host, from 2 labels below", BYTES(REQ_PATH("/x/", "v.w.a.b.c.deep.test")),
	  ONE(URL_HIT("v.w.a.b.c.deep.test", "/x/")) },
	{ "URL of a 6-label host, on that host", BYTES(REQ_PATH("/x/y", "q.r.s.t.deep.test")),
	  ONE(URL_HIT("q.r.s.t.deep.test", "/x/y")) },
	{ "URL of a 6-label host, from its subdomain: not probed that deep",
	  BYTES(REQ_PATH("/x/y", "w.q.r.s.t.deep.test")),
	  ONE(HTTP_MISS("w.q.r.s.t.deep.test", "/x/y")) },
	{ "absolute form: GET http://phish.test/login/a",
	  BYTES("GET http://phish.test/login/a HTTP/1.1\r\nHost: phish.test\r\n\r\n"),
	  ONE(URL_HIT("phish.test", "/login/a")) },
	{ "absolute form with a port",
	  BYTES("GET http://phish.test:8080/login/a HTTP/1.1\r\nHost: phish.test:8080\r\n\r\n"),
	  .dport = 8080, ONE(URL_HIT("phish.test", "/login/a")) },
	{ "absolute form without a path",
	  BYTES("GET http://evil.example HTTP/1.1\r\nHost: evil.example\r\n\r\n"),
	  ONE(HTTP_HIT("evil.example", "/")) },
	/* the Host header names the host; the absolute URL's host is not read */
	{ "absolute form without Host",	BYTES("GET http://phish.test/login/a HTTP/1.1\r\n\r\n"),
	  ONE(HTTP_BAD) },
	{ "a path longer than a key: its prefixes still hit", BYTES(long_path_req),
	  ONE(URL_HIT("phish.test", long_path)) },
	{ "Host in 802.1Q, after IPv4 options / IPv6 hop-by-hop",
	  BYTES(REQ("Host: evil.example")), .vlan = true, .ip_opts = 1,
	  ONE(HTTP_HIT("evil.example", "/")) },
	{ "HTTP to port 8081 (not an HTTP port)", BYTES(REQ("Host: evil.example")),
	  .dport = 8081, ONE(QUIET) },
};

static const struct name_case quic_cases[] = {
	{ "QUIC v1 Initial",		QUIC(0xc0, 1),		ONE(QUIC_SEEN) },
	{ "QUIC v1 Initial, 4-byte packet number", QUIC(0xc3, 1), ONE(QUIC_SEEN) },
	{ "QUIC v2 Initial (type 1)",	QUIC(0xd0, 0x6b3343cf),	ONE(QUIC_SEEN) },
	{ "QUIC v1 0-RTT",		QUIC(0xd0, 1),		ONE(QUIET) },
	{ "QUIC v1 Handshake",		QUIC(0xe0, 1),		ONE(QUIET) },
	{ "QUIC v2 Initial type 0 is 0-RTT", QUIC(0xc0, 0x6b3343cf), ONE(QUIET) },
	{ "version negotiation",	QUIC(0xc0, 0),		ONE(QUIET) },
	{ "short header",		QUIC(0x40, 1),		ONE(QUIET) },
	{ "Initial to port 4433",	QUIC(0xc0, 1), .dport = 4433, ONE(QUIET) },
};

static const struct name_case quic_block_cases[] = {
	{ "QUIC v1 Initial",		QUIC(0xc0, 1),		ONE(QUIC_DROP) },
	{ "QUIC v2 Initial",		QUIC(0xd0, 0x6b3343cf),	ONE(QUIC_DROP) },
	{ "QUIC v1 Handshake passes",	QUIC(0xe0, 1),		ONE(QUIET) },
	{ "short header passes",	QUIC(0x40, 1),		ONE(QUIET) },
};

static const struct name_case quic_flag_cases[] = {
	{ "QUIC v1 Initial",		QUIC(0xc0, 1),		ONE(QUIC_FLAG) },
	{ "QUIC v2 Initial",		QUIC(0xd0, 0x6b3343cf),	ONE(QUIC_FLAG) },
	{ "QUIC v1 Handshake passes",	QUIC(0xe0, 1),		ONE(QUIET) },
};

/* A datagram to the discard port: no service, only the addresses. */
#define NO_SERVICE	BYTES("ping"), .proto = IPPROTO_UDP, .dport = 9

static const char *const addr_list[] = { LISTED4, LISTED6, "evil.example", NULL };

static const struct name_case direction_cases[] = {
	{ "from a listed address: ingress checks the source", NO_SERVICE, .src_listed = true,
	  .hooks = ON_INGRESS, ONE(SRC_HIT, LK(1)) },
	{ "from a listed address: egress checks the destination", NO_SERVICE,
	  .src_listed = true, .hooks = ON_TC_EG, ONE(QUIET, LK(1)) },
	{ "to a listed address: egress drops", NO_SERVICE, .dst_listed = true,
	  .hooks = ON_TC_EG, ONE(DST_HIT, LK(1)) },
	{ "to a listed address: ingress passes", NO_SERVICE, .dst_listed = true,
	  .hooks = ON_INGRESS, ONE(QUIET, LK(1)) },
	{ "a listed name to a listed address at ingress: the name hits", DNS("evil.example"),
	  .dst_listed = true, .hooks = ON_INGRESS, ONE(DNS_HIT("evil.example"), LK(2)) },
	{ "a listed address at egress is decided before the name", DNS("evil.example"),
	  .dst_listed = true, .hooks = ON_TC_EG, ONE(DST_HIT, LK(1)) },
	{ "neither address listed, a listed name", DNS("www.evil.example"),
	  ONE(DNS_HIT("www.evil.example"), LK(3)) },
};

static const struct name_case both_cases[] = {
	{ "from a listed address",	NO_SERVICE, .src_listed = true, ONE(SRC_HIT, LK(1)) },
	{ "to a listed address",	NO_SERVICE, .dst_listed = true, ONE(DST_HIT, LK(2)) },
	{ "neither",			NO_SERVICE,		ONE(QUIET, LK(2)) },
	{ "neither, a listed name",	DNS("evil.example"),	ONE(DNS_HIT("evil.example"), LK(3)) },
};

static const struct bb_config custom_ports = {
	.dns_ports = { 5353 }, .tls_ports = { 8443 }, .http_ports = { 8000, 8001 },
	.mark = TEST_MARK,
};

static const struct name_case port_cases[] = {
	{ "DNS to 53 is not seen",	DNS("evil.example"),	ONE(QUIET) },
	{ "DNS to 5353",		DNS("evil.example"), .dport = 5353,
	  ONE(DNS_HIT("evil.example")) },
	{ "TLS to 443 is not seen",	HELLO(.sni = "evil.example"), ONE(QUIET) },
	{ "TLS to 8443",		HELLO(.sni = "evil.example"), .dport = 8443,
	  ONE(TLS_HIT("evil.example")) },
	{ "HTTP to 80 is not seen",	BYTES(REQ("Host: evil.example")), ONE(QUIET) },
	{ "HTTP to 8001",		BYTES(REQ("Host: evil.example")), .dport = 8001,
	  ONE(HTTP_HIT("evil.example", "/")) },
	{ "QUIC to 443 is not seen (no QUIC port)", QUIC(0xc0, 1), ONE(QUIET) },
};

/* Addresses only: no name is listed, so no service is read. */
static const char *const addresses_only[] = { LISTED4, NULL };

static const struct name_case no_names_cases[] = {
	{ "DNS query is not read",	DNS("evil.example"),	ONE(QUIET) },
	{ "ClientHello is not read",	HELLO(.sni = "evil.example"), ONE(QUIET) },
	{ "HTTP request is not read",	BYTES(REQ("Host: evil.example")), ONE(QUIET) },
	{ "QUIC Initial is not counted", QUIC(0xc0, 1),		ONE(QUIET) },
	{ "the address still hits",	NO_SERVICE, .src_listed = true, .hooks = ON_INGRESS,
	  .families = FAM_V4, ONE(SRC_HIT) },
};

/*
 * The allowlist: exceptions under listed names, URLs and addresses (Adblock's @@, as
 * every list format's exceptions become), each passing what it matches and no more.
 */
static const char *const allow_list[] = {
	"evil.example", "*.wild.example", "phish.test/login/", "safe.test/bad/", LISTED4,
	LISTED6, "@@good.evil.example", "@@*.ok.wild.example", "@@phish.test/login/ok/",
	"@@safe.test", "@@" LISTED4, "@@" LISTED6, NULL,
};

static const struct name_case allow_cases[] = {
	{ "DNS: an allowed name under a listed one", DNS("good.evil.example"),
	  ONE(DNS_ALLOWED("good.evil.example")) },
	{ "DNS: a subdomain of an allowed name", DNS("x.good.evil.example"),
	  ONE(DNS_ALLOWED("x.good.evil.example")) },
	{ "DNS: the listed name itself still hits", DNS("evil.example"),
	  ONE(DNS_HIT("evil.example")) },
	{ "DNS: a sibling of the allowed name still hits", DNS("bad.evil.example"),
	  ONE(DNS_HIT("bad.evil.example")) },
	{ "DNS: notgood.evil.example is not good.evil.example", DNS("notgood.evil.example"),
	  ONE(DNS_HIT("notgood.evil.example")) },
	{ "DNS: *.ok.wild.example passes its subdomains", DNS("a.ok.wild.example"),
	  ONE(DNS_ALLOWED("a.ok.wild.example")) },
	{ "DNS: *.ok.wild.example does not pass ok.wild.example", DNS("ok.wild.example"),
	  ONE(DNS_HIT("ok.wild.example")) },
	{ "DNS: upper case GOOD.EVIL.EXAMPLE", DNS("GOOD.EVIL.EXAMPLE"),
	  ONE(DNS_ALLOWED("good.evil.example")) },
	{ "DNS in 802.1Q", DNS("good.evil.example"), .vlan = true,
	  ONE(DNS_ALLOWED("good.evil.example")) },
	{ "TLS: an allowed SNI", HELLO(.sni = "good.evil.example"),
	  ONE(TLS_ALLOWED("good.evil.example")) },
	{ "TLS: a listed SNI beside it", HELLO(.sni = "bad.evil.example"),
	  ONE(TLS_HIT("bad.evil.example")) },
	{ "TLS split in two: allowed, the walk forgotten", HELLO(.sni = "good.evil.example"),
	  .hooks = ON_INGRESS,
	  SEGS(SEG(0, SNI(3), TLS_WAIT), SEG(SNI(3), 0, .allowed = true,
	       .seen = "good.evil.example", .delta = { .tls_split = 1, .tls_hits = 1 })) },
	{ "HTTP: an allowed Host", BYTES(REQ("Host: good.evil.example")),
	  ONE(HTTP_ALLOWED("good.evil.example", "/")) },
	{ "HTTP: an allowed Host passes its URLs too", BYTES(REQ_PATH("/bad/x", "safe.test")),
	  ONE(URL_ALLOWED("safe.test", "/bad/x")) },
	{ "HTTP: an allowed URL under a listed one", BYTES(REQ_PATH("/login/ok/", "phish.test")),
	  ONE(URL_ALLOWED("phish.test", "/login/ok/")) },
	{ "HTTP: a path under the allowed URL", BYTES(REQ_PATH("/login/ok/more?q=1", "phish.test")),
	  ONE(URL_ALLOWED("phish.test", "/login/ok/more?q=1")) },
	{ "HTTP: the listed URL beside it", BYTES(REQ_PATH("/login/x", "phish.test")),
	  ONE(URL_HIT("phish.test", "/login/x")) },
	{ "HTTP: /login/okay is not under /login/ok/", BYTES(REQ_PATH("/login/okay", "phish.test")),
	  ONE(URL_HIT("phish.test", "/login/okay")) },
	{ "HTTP: /login/ok is not under /login/ok/", BYTES(REQ_PATH("/login/ok", "phish.test")),
	  ONE(URL_HIT("phish.test", "/login/ok")) },
	{ "an allowed source: passes, counted", NO_SERVICE, .src_listed = true,
	  .hooks = ON_INGRESS, ONE(.src_allowed = true, .delta = { 0 }) },
	{ "an allowed source still asks its DNS query's name", DNS("evil.example"),
	  .src_listed = true, .hooks = ON_INGRESS,
	  ONE(DNS_HIT("evil.example"), .src_allowed = true) },
	{ "egress: an allowed destination passes", NO_SERVICE, .dst_listed = true,
	  .hooks = ON_TC_EG, ONE(.dst_allowed = true, .delta = { 0 }) },
	{ "egress: to an allowed destination, an allowed name", DNS("good.evil.example"),
	  .dst_listed = true, .hooks = ON_TC_EG,
	  ONE(DNS_ALLOWED("good.evil.example"), .dst_allowed = true) },
};

/* A table's filter: name lines, a mode, the ports (default: env.ports). */
#define TABLE(n, l, f, c) \
	{ .name = n, .filter = { .lines = l, .flags = f, .config = &env.ports, .fpr = TABLE_FPR }, \
	  HARNESS_CASES(c) }
#define TABLE_PORTS(n, l, f, c, ports) \
	{ .name = n, .filter = { .lines = l, .flags = f, .config = ports, .fpr = TABLE_FPR }, \
	  HARNESS_CASES(c) }
#define DROP		BB_HDR_F_DROP
#define FLAG		0

static const struct harness_table tables[] = {
	TABLE("DNS, drop mode", name_list, DROP, dns_cases),
	TABLE("TLS, drop mode", name_list, DROP, tls_cases),
	TABLE("TLS split, drop mode", name_list, DROP, split_cases),
	TABLE("HTTP, drop mode", name_list, DROP, http_cases),
	TABLE("QUIC", name_list, DROP, quic_cases),
	TABLE("QUIC blocked", name_list, DROP | BB_HDR_F_BLOCK_QUIC, quic_block_cases),
	TABLE("QUIC blocked, addresses only", addresses_only, DROP | BB_HDR_F_BLOCK_QUIC,
	      quic_block_cases),
	TABLE("DNS, flag mode", name_list, FLAG, dns_cases),
	TABLE("TLS, flag mode", name_list, FLAG, tls_cases),
	TABLE("TLS split, flag mode", name_list, FLAG, split_cases),
	TABLE("HTTP, flag mode", name_list, FLAG, http_cases),
	TABLE("QUIC blocked, flag mode", name_list, FLAG | BB_HDR_F_BLOCK_QUIC, quic_flag_cases),
	TABLE("addresses by direction", addr_list, DROP, direction_cases),
	TABLE("addresses by direction, flag mode", addr_list, FLAG, direction_cases),
	TABLE("addresses both ways (BB_HDR_F_ADDR_BOTH)", addr_list, DROP | BB_HDR_F_ADDR_BOTH,
	      both_cases),
	TABLE_PORTS("custom ports", name_list, DROP, port_cases, &custom_ports),
	TABLE_PORTS("custom ports, flag mode", name_list, FLAG, port_cases, &custom_ports),
	TABLE("addresses only", addresses_only, DROP, no_names_cases),
	TABLE("allowlist, drop mode", allow_list, DROP, allow_cases),
	TABLE("allowlist, flag mode", allow_list, FLAG, allow_cases),
};

/* ---- filters ---- */

static int setup_filter(const char *const *lines, __u32 flags, double fpr, struct bb_list *list,
			char *msg, size_t size)
{
	struct harness_filter f = { .lines = lines, .flags = flags, .config = &env.ports,
				    .fpr = fpr };

	return harness_setup_filter(&f, list, msg, size);
}

/* ---- running cases ---- */

static size_t resolve_pos(int pos, size_t sni_off, size_t total)
{
	long v;

	if (pos >= POS_END - POS_SNI / 2)
		v = (long)total + (pos - POS_END);
	else if (pos >= POS_SNI / 2)
		v = (long)sni_off + (pos - POS_SNI);
	else
		v = pos;
	return v < 0 ? 0 : (size_t)v > total ? total : (size_t)v;
}

/* One packet: where it goes and what it carries. */
struct run_ctx {
	const struct name_case *c;
	enum hook hook;
	bool v6;
	__u16 sport;
	__u32 isn;		/* the TCP sequence number of payload byte 0 */
};

static void frame_for(const struct run_ctx *r, struct pkt_frame *f)
{
	const struct name_case *c = r->c;
	enum pkt_payload_kind k = c->pl.kind;

	memset(f, 0, sizeof(*f));
	f->net = r->v6 ? PKT_IPV6 : PKT_IPV4;
	f->proto = c->proto ? c->proto :
		   (k == PKT_DNS || k == PKT_QUIC) ? IPPROTO_UDP : IPPROTO_TCP;
	f->dport = c->dport ? c->dport : k == PKT_DNS ? 53 :
		   (k == PKT_HELLO || k == PKT_QUIC) ? 443 : 80;
	f->sport = r->sport;
	f->saddr = c->src_listed ? (r->v6 ? LISTED6 : LISTED4) : (r->v6 ? PEER6 : PEER4);
	f->daddr = c->dst_listed ? (r->v6 ? LISTED6 : LISTED4) : (r->v6 ? HOST6 : HOST4);
}

/*
 * What a step must do: the counters, the verdict, the mark. Lookups come from the
 * model (or LK(n), which the model must agree with); the model's hit must be the
 * step's hit unless the hit comes from state.
 */
static void expect_step(const struct run_ctx *r, const struct pkt_frame *f, const struct step *s,
			struct bb_stats *e, char *msg, size_t size)
{
	const struct bb_header *hdr = harness_live_header();
	bool ingress = r->hook != HOOK_TC_EGRESS, both = hdr->flags & BB_HDR_F_ADDR_BOTH;
	bool addr_hit = false, name_hit = false, url_hit = false, drop = hdr->flags & BB_HDR_F_DROP;
	unsigned int lookups = 0;

	*e = s->delta;
	e->packets = 1;
	e->ipv4 = !r->v6;
	e->ipv6 = r->v6;
	e->vlan = r->c->vlan;
	if (s->src_hit || s->src_allowed) {
		e->ip4_hits = !r->v6;
		e->ip6_hits = r->v6;
	}
	e->allowed = s->src_allowed + s->dst_allowed + s->allowed;
	e->ip_dst_hits += s->dst_allowed;
	e->dropped = s->hit && drop;
	e->flagged = s->hit && !drop;
	e->passed = !e->dropped;

	if (ingress || both) {
		lookups += model_addr(f->saddr, r->v6, &addr_hit);
		/* an allowed source is as if unlisted: the other checks go on */
		if (addr_hit && check_item(f->saddr, true, NULL) == 1) {
			addr_hit = false;
			if (!s->src_allowed)
				appendf(msg, size, "the allowlist holds the source; ");
		} else if (s->src_allowed) {
			appendf(msg, size, "the allowlist does not pass the source; ");
		}
	}
	if (!addr_hit && (!ingress || both)) {
		lookups += model_addr(f->daddr, r->v6, &addr_hit);
		if (addr_hit && check_item(f->daddr, true, NULL) == 1) {
			addr_hit = false;
			if (!s->dst_allowed)
				appendf(msg, size, "the allowlist holds the destination; ");
		} else if (s->dst_allowed) {
			appendf(msg, size, "the allowlist does not pass the destination; ");
		}
	}
	if (s->seen) {
		lookups += model_name(s->seen, &name_hit);
		if (!name_hit && s->path)
			lookups += model_url(s->seen, s->path, &url_hit);
	}
	if (s->lookups && (unsigned int)s->lookups - 1 != lookups)
		appendf(msg, size, "the model reads %u blocks, the case says %d; ", lookups,
			s->lookups - 1);
	e->lookups = s->lookups ? (unsigned int)s->lookups - 1 : lookups;
	if (!s->by_state && (addr_hit || name_hit || url_hit) != (s->hit || s->allowed))
		appendf(msg, size, "the model of the filter says %s; ",
			addr_hit || name_hit || url_hit ? "listed" : "not listed");
	if (s->seen && s->path && !name_hit && (url_hit != !!s->delta.url_hits))
		appendf(msg, size, "the model says the URL %s; ", url_hit ? "hits" : "misses");
}

/* Run one packet and compare verdict, mark and every counter. */
static bool run_step(const struct run_ctx *r, const struct step *s, const __u8 *payload,
		     size_t len, __u32 seq, char *msg, size_t size)
{
	const struct bb_config *cfg = harness_live_config();
	struct bb_stats delta, expect;
	static __u8 frame[MAX_FRAME];
	struct pkt_frame f;
	__u32 retval, mark, want, want_mark = 0;
	size_t flen;
	int err;

	frame_for(r, &f);
	f.seq = seq;
	flen = build_frame(&f, r->c->vlan, r->c->ip_opts, payload, len, frame);
	expect_step(r, &f, s, &expect, msg, size);

	err = harness_run_counted(env.prog_fd[r->hook], r->hook != HOOK_XDP, frame, flen, &retval,
				  &mark, &delta);
	if (err) {
		appendf(msg, size, "test run failed: %s; ", strerror(-err));
		return false;
	}
	if (r->hook == HOOK_XDP) {
		want = expect.dropped ? XDP_DROP : XDP_PASS;
	} else {
		want = expect.dropped ? TC_ACT_SHOT : (__u32)TC_ACT_UNSPEC;	/* pass: the next filter's */
		if (expect.flagged && cfg)
			want_mark = cfg->mark;
	}
	if (retval != want)
		appendf(msg, size, "verdict %u, expected %u; ", retval, want);
	if (r->hook != HOOK_XDP && mark != want_mark)
		appendf(msg, size, "mark %#x, expected %#x; ", mark, want_mark);
	harness_stats_compare(&delta, &expect, msg, size);
	return !msg[0];
}

/* `bloomblock check` on what each step's packet names must say what the kernel did. */
static void check_agreement(const struct name_case *c, char *msg, size_t size)
{
	char item[BB_KEY_MAX * 2];
	const char *why = NULL;
	size_t i;

	for (i = 0; i < MAX_STEPS && c->steps[i].set; i++) {
		const struct step *s = &c->steps[i];
		int got;

		if (!s->seen)
			continue;
		snprintf(item, sizeof(item), "%s%s", s->seen, s->path && *s->path ? s->path : "");
		if (strlen(item) > BB_KEY_MAX - 1)
			continue;	/* longer than any list entry: `check` refuses it */
		got = check_item(item, false, &why);
		if (got < 0)
			appendf(msg, size, "check \"%.60s\": not an item (%s); ", item,
				why ? why : "-");
		else if (got != ((s->hit && !s->by_state) || s->allowed))
			appendf(msg, size, "check \"%.60s\" says %s, the case expects %s; ", item,
				got ? "listed" : "not listed", s->hit ? "a hit" : "no hit");
		else if (check_item(item, true, &why) != s->allowed)
			appendf(msg, size, "check \"%.60s\" says %sallowed, the case expects "
				"otherwise; ", item, s->allowed ? "not " : "");
	}
}

static void run_case(const struct harness_table *t, const void *case_data)
{
	const struct name_case *c = case_data;
	unsigned int hooks = c->hooks ? c->hooks : ON_ALL, fams = c->families ?: FAM_ALL;
	static __u8 payload[MAX_PAYLOAD];
	char name[300], msg[1200] = "", one[600];
	size_t total, sni_off, i;
	bool ok = true;
	int h, fam;

	total = build_payload(&c->pl, payload, &sni_off);
	if (c->sni_after && sni_off < c->sni_after) {
		appendf(msg, sizeof(msg), "the SNI starts at byte %zu, the case needs %zu or later",
			sni_off, c->sni_after);
		ok = false;
	}
	for (h = 0; ok && h < HOOK_MAX; h++) {
		if (!(hooks & (1U << h)))
			continue;
		for (fam = 0; ok && fam < 2; fam++) {
			struct run_ctx r = {
				.c = c, .hook = h, .v6 = fam, .sport = 40000 + h * 2 + fam,
				.isn = 0x10000000U + (__u32)harness_rng() % 0x70000000U,
			};

			if (!(fams & (1U << fam)))
				continue;
			flows_clear();
			for (i = 0; ok && i < MAX_STEPS && c->steps[i].set; i++) {
				const struct step *s = &c->steps[i];
				size_t from = resolve_pos(s->from, sni_off, total);
				size_t to = s->to ? resolve_pos(s->to, sni_off, total) : total;

				one[0] = 0;
				if (from > to) {
					appendf(one, sizeof(one), "segment [%zu, %zu) ", from, to);
					ok = false;
				} else {
					ok = run_step(&r, s, payload + from, to - from,
						      r.isn + from + s->seq_skew, one, sizeof(one));
				}
				if (!ok)
					appendf(msg, sizeof(msg), "%s IPv%d, packet %zu of %zu bytes "
						"[%zu, %zu): %s", hook_names[h], fam ? 6 : 4, i + 1,
						to - from, from, to, one);
			}
			one[0] = 0;
			if (ok)
				pending_check(one, sizeof(one));
			if (one[0]) {
				appendf(msg, sizeof(msg), "%s IPv%d, after the packets: %s",
					hook_names[h], fam ? 6 : 4, one);
				ok = false;
			}
		}
	}
	/* and `bloomblock check` on each name the packets carry says what they did */
	one[0] = 0;
	check_agreement(c, one, sizeof(one));
	if (one[0]) {
		appendf(msg, sizeof(msg), "%s", one);
		ok = false;
	}
	snprintf(name, sizeof(name), "%s: %s", t->name, c->name);
	tap_result(ok, name, "%s", msg);
}

/* Before a table's cases: every listed entry is listed for `bloomblock check` too. */
static void check_entries(const struct harness_table *t, const struct bb_list *list)
{
	char name[200], msg[300] = "";
	size_t i;

	for (i = 0; i < list->n; i++) {
		const struct bb_entry *e = &list->entries[i];

		if (e->flags & BB_ENTRY_F_ALLOW) {
			if (bb_image_allowed(harness.img.blocks, e) != 1)
				appendf(msg, sizeof(msg), "entry %zu (%s) not allowed; ", i,
					e->text ? e->text : "address");
		} else if (bb_image_match_entry(harness.img.blocks, e) != 1) {
			appendf(msg, sizeof(msg), "entry %zu (%s) not listed; ", i,
				e->text ? e->text : "address");
		}
	}
	snprintf(name, sizeof(name), "%s: bb_image_match_entry() finds every listed entry, "
		 "bb_image_allowed() every allowed one", t->name);
	tap_result(!msg[0], name, "%s", msg);
}

static const struct harness_runner runner = {
	.before = check_entries,
	.run_case = run_case,
};

/* ---- sweeps: every cut and split of one payload ---- */

/*
 * A case built on the fly: one payload, one or more steps. The sweeps below state
 * every expectation as a step, so they go through the same checks as the tables.
 */
static bool sweep_run(const struct name_case *c, enum hook h, bool v6, char *msg, size_t size)
{
	static __u8 payload[MAX_PAYLOAD];
	struct run_ctx r = { .c = c, .hook = h, .v6 = v6, .sport = 41000, .isn = 0x20000000U };
	size_t total, sni_off, i;
	char one[600];

	total = build_payload(&c->pl, payload, &sni_off);
	flows_clear();
	for (i = 0; i < MAX_STEPS && c->steps[i].set; i++) {
		const struct step *s = &c->steps[i];
		size_t from = resolve_pos(s->from, sni_off, total);
		size_t to = s->to ? resolve_pos(s->to, sni_off, total) : total;

		one[0] = 0;
		if (!run_step(&r, s, payload + from, to - from, r.isn + from, one, sizeof(one))) {
			snprintf(msg, size, "packet %zu [%zu, %zu): %s", i + 1, from, to, one);
			return false;
		}
	}
	one[0] = 0;
	pending_check(one, sizeof(one));
	if (one[0])
		snprintf(msg, size, "after the packets: %s", one);
	return !one[0];
}

static void sweep_report(const char *what, enum hook h, bool v6, unsigned long runs,
			 unsigned long failed, const char *first)
{
	char name[200];

	snprintf(name, sizeof(name), "sweep: %s, %s IPv%d (%lu cases)", what, hook_names[h],
		 v6 ? 6 : 4, runs);
	tap_result(!failed && runs, name, "%lu failed; first: %s", failed, first);
}

/* A ClientHello in two segments, split at every byte; and cut at every length. */
static void sweep_tls(void)
{
	struct name_case c = { .pl = { .kind = PKT_HELLO, .hello = { .sni = "evil.example" } } };
	__u8 payload[MAX_PAYLOAD];
	size_t total, sni_off, sni_end, k;
	char msg[800], first[800];
	unsigned long runs, failed;
	int h, fam;

	total = build_payload(&c.pl, payload, &sni_off);
	sni_end = sni_off + strlen(c.pl.hello.sni);
	for (h = 0; h < HOOK_MAX; h++) {
		for (fam = 0; fam < 2; fam++) {
			runs = failed = 0;
			first[0] = 0;
			for (k = 1; k < total; k++) {
				struct step *s1 = &c.steps[0], *s2 = &c.steps[1];

				memset(c.steps, 0, sizeof(c.steps));
				*s1 = (struct step){ .set = true, .to = k, TLS_WAIT };
				*s2 = (struct step){ .set = true, .from = k, .to = END,
						     SPLIT_HIT("evil.example") };
				if (k >= sni_end) {
					*s1 = (struct step){ .set = true, .to = k,
							     TLS_HIT("evil.example") };
					*s2 = (struct step){ .set = true, .from = k, .to = END, QUIET };
				}
				msg[0] = 0;
				runs++;
				if (!sweep_run(&c, h, fam, msg, sizeof(msg)) && !failed++)
					snprintf(first, sizeof(first), "split at %zu: %s", k, msg);
			}
			sweep_report("ClientHello split in 2 at every byte", h, fam, runs, failed,
				     first);
		}
	}

	/* cut at every length, one segment: waits until the name is whole */
	for (fam = 0; fam < 2; fam++) {
		runs = failed = 0;
		first[0] = 0;
		for (k = 1; k <= total; k++) {
			memset(c.steps, 0, sizeof(c.steps));
			c.steps[0] = k >= sni_end ?
				(struct step){ .set = true, .to = k, TLS_HIT("evil.example") } :
				(struct step){ .set = true, .to = k, TLS_WAIT };
			msg[0] = 0;
			runs++;
			if (!sweep_run(&c, HOOK_XDP, fam, msg, sizeof(msg)) && !failed++)
				snprintf(first, sizeof(first), "cut at %zu: %s", k, msg);
		}
		sweep_report("ClientHello cut at every length", HOOK_XDP, fam, runs, failed, first);
	}

	/* three segments: every pair of cuts, two bytes apart */
	for (fam = 0; fam < 2; fam++) {
		size_t k2;

		runs = failed = 0;
		first[0] = 0;
		for (k = 1; k < total; k += 2) {
			for (k2 = k + 1; k2 < total; k2 += 2) {
				struct step *s = c.steps;

				memset(c.steps, 0, sizeof(c.steps));
				if (k >= sni_end) {
					s[0] = (struct step){ .set = true, .to = k,
							      TLS_HIT("evil.example") };
					s[1] = (struct step){ .set = true, .from = k, .to = k2, QUIET };
					s[2] = (struct step){ .set = true, .from = k2, .to = END,
							      QUIET };
				} else if (k2 >= sni_end) {
					s[0] = (struct step){ .set = true, .to = k, TLS_WAIT };
					s[1] = (struct step){ .set = true, .from = k, .to = k2,
							      SPLIT_HIT("evil.example") };
					s[2] = (struct step){ .set = true, .from = k2, .to = END,
							      FLOW_HIT };
				} else {
					s[0] = (struct step){ .set = true, .to = k, TLS_WAIT };
					s[1] = (struct step){ .set = true, .from = k, .to = k2,
							      TLS_MORE };
					s[2] = (struct step){ .set = true, .from = k2, .to = END,
							      SPLIT_HIT("evil.example") };
				}
				msg[0] = 0;
				runs++;
				if (!sweep_run(&c, HOOK_XDP, fam, msg, sizeof(msg)) && !failed++)
					snprintf(first, sizeof(first), "split at %zu, %zu: %s", k,
						 k2, msg);
			}
		}
		sweep_report("ClientHello split in 3 at every other pair of bytes", HOOK_XDP, fam,
			     runs, failed, first);
	}
}

/* A DNS query and an HTTP request cut at every length: a hit only when the name is whole. */
static void sweep_cuts(void)
{
	static const char req[] = "GET /a HTTP/1.1\r\nHost: www.evil.example\r\nAccept: */*\r\n\r\n";
	struct name_case dns = { .pl = { .kind = PKT_DNS, .dns = { .name = "www.evil.example" } } };
	struct name_case http = { .pl = { .kind = PKT_BYTES, .bytes = req } };
	size_t k, qname_end = 12 + 18, host_end = strstr(req, "\r\nAccept") - req;
	size_t target_end = strchr(req + 4, ' ') - req;
	__u8 payload[MAX_PAYLOAD];
	char msg[800], first[800];
	unsigned long runs, failed;
	size_t total, sni_off;
	int fam;

	total = build_payload(&dns.pl, payload, &sni_off);
	for (fam = 0; fam < 2; fam++) {
		runs = failed = 0;
		first[0] = 0;
		for (k = 0; k <= total; k++) {
			memset(dns.steps, 0, sizeof(dns.steps));
			/* positions from the end: .to = 0 would mean all of it */
			dns.steps[0] = k >= qname_end ?
				(struct step){ .set = true, .to = END - (int)(total - k),
					       DNS_HIT("www.evil.example") } :
				(struct step){ .set = true, .to = END - (int)(total - k), DNS_BAD };
			msg[0] = 0;
			runs++;
			if (!sweep_run(&dns, HOOK_XDP, fam, msg, sizeof(msg)) && !failed++)
				snprintf(first, sizeof(first), "cut at %zu: %s", k, msg);
		}
		sweep_report("DNS query cut at every length", HOOK_XDP, fam, runs, failed, first);
	}

	total = strlen(req);
	for (fam = 0; fam < 2; fam++) {
		runs = failed = 0;
		first[0] = 0;
		for (k = 1; k <= total; k++) {
			struct step *s = &http.steps[0];

			memset(http.steps, 0, sizeof(http.steps));
			/*
			 * Not a request until a method and its space (4 bytes); a target that
			 * runs to the end is unparsed (< 7); with its space but without room
			 * for " HTTP/1.x" it is not a request again (< 15); then unparsed
			 * until the Host value has its line end.
			 */
			if (k < 4 || (k >= target_end + 1 && k < target_end + 9))
				*s = (struct step){ .set = true, .to = k, QUIET };
			else if (k <= host_end)
				*s = (struct step){ .set = true, .to = k, HTTP_BAD };
			else
				*s = (struct step){ .set = true, .to = k,
						    HTTP_HIT("www.evil.example", "/a") };
			msg[0] = 0;
			runs++;
			if (!sweep_run(&http, HOOK_XDP, fam, msg, sizeof(msg)) && !failed++)
				snprintf(first, sizeof(first), "cut at %zu: %s", k, msg);
		}
		sweep_report("HTTP request cut at every length", HOOK_XDP, fam, runs, failed,
			     first);
	}
}

/* ---- the property test: many random names, no false negative ---- */

#define PROP_NAMES		20000
#define PROP_SAMPLE_EVERY	10	/* every 10th name also as SNI and HTTP Host */
#define PROP_NON_MEMBERS	20000

static void random_label(char *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = 'a' + harness_rng() % 26;
	out[n] = 0;
}

/* 2-5 labels of 1-12 random lowercase letters. */
static void random_name(char *out, size_t size)
{
	unsigned int labels = 2 + harness_rng() % 4, i;
	char label[16];

	out[0] = 0;
	for (i = 0; i < labels; i++) {
		random_label(label, 1 + harness_rng() % 12);
		appendf(out, size, "%s%s", i ? "." : "", label);
	}
}

/* A packet through one program: is it dropped? */
static int prop_run(enum hook h, bool v6, const struct pkt_payload *pl, __u16 dport,
		    bool *dropped)
{
	static __u8 payload[MAX_PAYLOAD], frame[MAX_FRAME];
	struct pkt_frame f = {
		.net = v6 ? PKT_IPV6 : PKT_IPV4,
		.proto = pl->kind == PKT_DNS ? IPPROTO_UDP : IPPROTO_TCP,
		.saddr = v6 ? PEER6 : PEER4, .daddr = v6 ? HOST6 : HOST4,
		.sport = 42000, .dport = dport, .seq = 1,
	};
	size_t sni_off, len = build_payload(pl, payload, &sni_off);
	__u32 retval, mark;
	int err;

	len = build_frame(&f, false, 0, payload, len, frame);
	err = run_prog(h, frame, len, &retval, &mark);
	*dropped = h == HOOK_XDP ? retval == XDP_DROP : retval == TC_ACT_SHOT;
	return err;
}

/* One packet that carries a listed name: it must be dropped. */
static void prop_expect(struct harness_prop *p, int err, bool dropped, const char *name)
{
	if (harness_prop_count(p, err, dropped))
		harness_prop_note(p, err, "%s", name);
}

static void property_test(void)
{
	struct harness_prop dns_listed = { "DNS queries for listed names (XDP)" };
	struct harness_prop dns_sub = { "DNS queries for random subdomains of them (XDP)" };
	struct harness_prop sni = { "a sample as TLS SNI (XDP, tc ingress)" };
	struct harness_prop host = { "a sample as HTTP Host (XDP, tc egress)" };
	char line[300], sub[300], req[400], path[24], msg[300] = "", first_disagree[400] = "";
	unsigned long disagree = 0, fp_hits = 0;
	struct bb_stats before, after, delta;
	char (*names)[256] = NULL;
	struct bb_list list;
	const char *why;
	size_t i, n = 0;
	bool dropped;
	int err;

	if (!harness_subtest("property"))
		return;
	bb_list_init(&list);
	names = calloc(PROP_NAMES, sizeof(*names));
	if (!names) {
		tap_result(false, "property: memory for 20,000 names", NULL);
		goto cleanup;
	}
	for (i = 0; i < PROP_NAMES; i++) {
		random_name(names[n], sizeof(names[n]));
		err = bb_list_parse_line(&list, names[n], strlen(names[n]), &why);
		if (err == 1)
			n++;
		else if (!msg[0])
			snprintf(msg, sizeof(msg), "\"%s\": %d (%s)", names[n], err,
				 why ? why : "-");
	}
	if (!tap_result(n == PROP_NAMES && list.n >= PROP_NAMES * 99 / 100,
			"property: 20,000 random names parse as list lines",
			"%zu of %d; %zu entries; first refused: %s", n, PROP_NAMES, list.n, msg))
		goto cleanup;
	err = setup_filter(NULL, BB_HDR_F_DROP, 0, &list, msg, sizeof(msg));
	if (!tap_result(!err, "property: filter of the random names built and pushed", "%s", msg))
		goto cleanup;

	if (harness_read_stats(&before))
		goto cleanup;
	for (i = 0; i < n; i++) {
		struct pkt_payload pl = { .kind = PKT_DNS, .dns = { .name = names[i] } };
		char label[16];

		err = prop_run(HOOK_XDP, i & 1, &pl, 53, &dropped);
		prop_expect(&dns_listed, err, dropped, names[i]);

		/* one or two more labels in front */
		random_label(label, 1 + harness_rng() % 10);
		snprintf(sub, sizeof(sub), "%s", label);
		if (harness_rng() & 1) {
			random_label(label, 1 + harness_rng() % 10);
			appendf(sub, sizeof(sub), ".%s", label);
		}
		appendf(sub, sizeof(sub), ".%s", names[i]);
		pl.dns.name = sub;
		err = prop_run(HOOK_XDP, !(i & 1), &pl, 53, &dropped);
		prop_expect(&dns_sub, err, dropped, sub);

		if (i % PROP_SAMPLE_EVERY)
			continue;
		pl = (struct pkt_payload){ .kind = PKT_HELLO,
					   .hello = { .sni = i % 20 ? names[i] : sub } };
		err = prop_run(i % 3 ? HOOK_XDP : HOOK_TC_INGRESS, i & 2, &pl, 443, &dropped);
		prop_expect(&sni, err, dropped, pl.hello.sni);
		snprintf(path, sizeof(path), "/%zu", i);
		pkt_http_get((__u8 *)req, sizeof(req), path, i % 20 ? names[i] : sub, NULL);
		pl = (struct pkt_payload){ .kind = PKT_BYTES, .bytes = req };
		err = prop_run(i % 3 ? HOOK_XDP : HOOK_TC_EGRESS, i & 4, &pl, 80, &dropped);
		prop_expect(&host, err, dropped, req);
	}
	if (harness_read_stats(&after))
		goto cleanup;
	bb_stats_delta(&delta, &after, &before);
	harness_prop_report(&dns_listed, "all dropped");
	harness_prop_report(&dns_sub, "all dropped");
	harness_prop_report(&sni, "all dropped");
	harness_prop_report(&host, "all dropped");
	tap_result(delta.dns_queries == 2 * n && delta.dns_hits == 2 * n &&
		   delta.tls_hellos == sni.runs && delta.tls_hits == sni.runs &&
		   delta.http_requests == host.runs && delta.http_hits == host.runs &&
		   delta.dropped == delta.packets && !delta.dns_unparsed && !delta.passed,
		   "property: counters of the member runs",
		   "dns_queries +%llu dns_hits +%llu (expected %zu) tls_hits +%llu http_hits +%llu "
		   "dropped +%llu of %llu", (unsigned long long)delta.dns_queries,
		   (unsigned long long)delta.dns_hits, 2 * n, (unsigned long long)delta.tls_hits,
		   (unsigned long long)delta.http_hits, (unsigned long long)delta.dropped,
		   (unsigned long long)delta.packets);

	/* Names not listed: the kernel and `bloomblock check` must say the same, exactly. */
	for (i = 0; i < PROP_NON_MEMBERS; i++) {
		struct pkt_payload pl = { .kind = PKT_DNS, .dns = { .name = line } };
		int listed;

		random_name(line, sizeof(line));
		err = prop_run(HOOK_XDP, i & 1, &pl, 53, &dropped);
		listed = check_item(line, false, &why);
		fp_hits += dropped;
		if ((err || listed != dropped) && !disagree++)
			snprintf(first_disagree, sizeof(first_disagree),
				 "%s: BPF %s, check %d%s%s", line, dropped ? "drop" : "pass",
				 listed, err ? ", " : "", err ? strerror(-err) : "");
	}
	tap_result(!disagree, "property: BPF and bb_image_match_entry() agree on 20,000 random "
		   "names", "%lu disagree; first: %s", disagree, first_disagree);
	/* at the default 0.1% per key and up to 4 probes a name, a few dozen at most */
	tap_result(fp_hits < PROP_NON_MEMBERS / 100, "property: random names rarely hit",
		   "%lu of %d dropped", fp_hits, PROP_NON_MEMBERS);
cleanup:
	free(names);
	bb_list_free(&list);
}

/* ---- main ---- */

/* A dotted name of exactly len bytes ending in suffix, labels of at most 63 bytes. */
static void make_name(char *out, size_t len, const char *suffix)
{
	size_t left = len - strlen(suffix), off = 0, l;
	char c = 'a';

	while (left > 0) {
		l = left - 1 > 63 ? 63 : left - 1;
		if (left - (l + 1) == 1)
			l--;
		memset(out + off, c++, l);
		out[off + l] = '.';
		off += l + 1;
		left -= l + 1;
	}
	strcpy(out + off, suffix);
}

static void make_names(void)
{
	size_t i;

	make_name(label63_name, 63 + 1 + strlen("evil.example"), "evil.example");
	memset(label64_name, 'q', 64);
	strcpy(label64_name + 64, ".evil.example");
	make_name(name253, 253, "evil.example");
	make_name(name254, 254, "evil.example");
	snprintf(late_host_req, sizeof(late_host_req), "GET / HTTP/1.1\r\nCookie: %0600d\r\n"
		 "Host: evil.example\r\n\r\n", 0);
	strcpy(long_path, "/login/");
	for (i = strlen(long_path); i < 300; i++)
		long_path[i] = 'a' + i % 26;
	long_path[300] = 0;
	snprintf(long_path_req, sizeof(long_path_req), "GET %s HTTP/1.1\r\nHost: phish.test\r\n\r\n",
		 long_path);
	memset(grease32_exts, 'G', 32);
	strcpy(grease32_exts + 32, "SVK");
	memset(grease33_exts, 'G', 33);
	strcpy(grease33_exts + 33, "SVK");
}

/* The sweeps: one filter, then every cut and split of a few payloads. */
static void sweeps(void)
{
	struct bb_list list;
	char msg[300] = "";

	if (!harness_subtest("sweep"))
		return;
	bb_list_init(&list);
	if (!setup_filter(name_list, BB_HDR_F_DROP, TABLE_FPR, &list, msg, sizeof(msg))) {
		sweep_tls();
		sweep_cuts();
	} else {
		tap_result(false, "sweeps: filter set up", "%s", msg);
	}
	bb_list_free(&list);
}

int main(int argc, char **argv)
{
	if (!harness_begin(argc, argv, "bloomblock names BPF_PROG_TEST_RUN"))
		return harness_end();
	make_names();
	tap_result(strlen(name253) == 253 && strlen(name254) == 254 &&
		   strlen(label63_name) == 63 + 13, "test names have the lengths they claim",
		   "%zu, %zu, %zu", strlen(name253), strlen(name254), strlen(label63_name));
	bb_config_defaults(&env.ports);
	env.ports.mark = TEST_MARK;	/* every port set: bb_filter_build() keeps them */
	if (!harness_load())
		return harness_end();
	env.prog_fd[HOOK_XDP] = bpf_program__fd(harness.skel->progs.bloomblock_xdp);
	env.prog_fd[HOOK_TC_INGRESS] = bpf_program__fd(harness.skel->progs.bloomblock_tc_ingress);
	env.prog_fd[HOOK_TC_EGRESS] = bpf_program__fd(harness.skel->progs.bloomblock_tc_egress);
	env.flows_fd = bpf_map__fd(harness.skel->maps.flows);

	harness_run_tables(tables, ARRAY_SIZE(tables), &runner);
	sweeps();
	property_test();
	printf("# %lu test runs\n", harness.runs);
	return harness_end();
}

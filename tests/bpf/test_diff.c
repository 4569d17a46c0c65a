// SPDX-License-Identifier: GPL-2.0
/*
 * The differential test: random and mutated packets through the real loaded XDP
 * program (BPF_PROG_TEST_RUN) and through the userspace build of the same code (the
 * parsers of include/bb_parse.h, bb_names.h and bb_tls.h, the lookups of
 * include/bb_match.h over the same filter image, through bb_image_match_ip4/6(),
 * bb_image_match_name_key(), bb_image_match_url_key() and bb_image_allowed()), walked
 * in the order bpf/bloomblock.bpf.c walks them, and the tests' own answer and reset
 * builders (tests/lib/ref.c). On every packet the verdict, every counter the packet
 * moved (all but lookups, the Bloom blocks read, which the matcher does not count),
 * the name the kernel extracted, the packet it sent (an answer, a reset; else the
 * packet untouched) and the confirmation requests it raised must agree; a
 * disagreement prints the packet in hex and a one-line repro.
 *
 * The packets: DNS queries, TLS ClientHellos (whole, lying in every way the builder
 * lies), HTTP requests (listed hosts and listed URLs), QUIC Initials, SYNs and plain
 * datagrams, over IPv4 (options) and IPv6 (extension headers, fragments), behind 0 to
 * 3 VLAN tags, from listed, allowed and unlisted sources, for listed, allowed,
 * wildcard-covered and unlisted names; then most of them mutated, structure-aware (IP
 * and UDP lengths that lie, an IHL, a DNS label length, a TLS record or handshake
 * length, a TCP data offset or flags, VLAN TPIDs) and blind (truncation, byte flips).
 * Each packet has a 5-tuple of its own, the flows a ClientHello left pending are
 * cleared after it and so are the confirmations it asked for, so no packet's verdict
 * depends on another's: a split ClientHello's later segments are test_names' to
 * check.
 *
 * The filter's mode changes every PHASE_PACKETS packets (phases[]): drop, flag (tc
 * marks), --answer reject and sinkhole (DNS answers and TCP resets, their bytes
 * compared), --block-quic, confirm mode with the daemon's beat (answers prefilled,
 * requests read from the ring) and without it (--daemon-down pass and drop).
 *
 *   BB_DIFF_PACKETS=N      packets (default 100000; BB_QUICK=1: 20000)
 *   BB_DIFF_PACKET=I       run packet I only (the repro a disagreement prints)
 *   BB_TEST_SEED=S         the generator's seed
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bb_names.h"
#include "bb_parse.h"
#include "bb_tls.h"
#include "filter.h"
#include "list.h"
#include "pins.h"
#include "lib/harness.h"
#include "lib/netns.h"
#include "lib/pkt.h"
#include "lib/ref.h"

#define MAX_FRAME	2048
#define N_STATS		HARNESS_N_STATS

/* The list: addresses and prefixes, names, wildcards, and the allowlist's exceptions. */
static const char *const lines[] = {
	"203.0.113.0/28", "198.51.100.77", "2001:db8:bad::/48", "2001:db8:51::66",
	"blocked.example", "*.wild.example", "bad.test", "ads.tracker.test",
	"url.example/bad/", "url.example/a/b.html", "blocked.example/x/",
	"@@203.0.113.5", "@@2001:db8:bad::5", "@@ok.blocked.example", "@@safe.bad.test",
	"@@url.example/bad/ok/",
	NULL,
};

static const char *const sources4[] = {
	"203.0.113.1", "203.0.113.5", "203.0.113.15", "203.0.113.16", "198.51.100.77",
	"198.51.100.2", "192.0.2.10", "192.0.2.200",
};
static const char *const sources6[] = {
	"2001:db8:bad::1", "2001:db8:bad::5", "2001:db8:bad:ffff::9", "2001:db8:51::66",
	"2001:db8:51::2", "2001:db8:bae::1",
};
static const char *const names[] = {
	"blocked.example", "www.blocked.example", "ok.blocked.example", "a.ok.blocked.example",
	"wild.example", "x.wild.example", "deep.x.wild.example", "bad.test", "safe.bad.test",
	"ads.tracker.test", "tracker.test", "good.example", "BLOCKED.EXAMPLE", "blocked.example.",
	"xn--bcher-kva.example", "a-b.c-d.test", "free.test", "e", "",
	"a.very.long.name.with.many.labels.under.blocked.example",
	"url.example", "www.url.example",
};
static const char *const paths[] = {
	"/", "/bad/", "/bad/x", "/bad/ok/y", "/bad?q=1", "/a/b.html", "/a/b.html?x=1", "/a/",
	"/x/y/z", "/BAD/x",
};

static __u64 rnd(void)
{
	return harness_rng();
}

static const char *pick(const char *const *v, size_t n)
{
	return v[rnd() % n];
}

#define PICK(v)	pick(v, sizeof(v) / sizeof((v)[0]))

/* ---- the packets ---------------------------------------------------------------------- */

enum kind { K_PLAIN, K_DNS, K_TLS, K_HTTP, K_QUIC, K_SYN, K_MAX };

struct gen {
	__u8 frame[MAX_FRAME];
	size_t len;
	enum kind kind;
	size_t l3, l4;		/* where the IP and L4 headers start, as built */
	bool v6;
	int mutations;
};

static void build(struct gen *g, size_t i)
{
	static const char *const ext6[] = { "", "", "", "H", "D", "HD", "h", "F", "f", "HDF" };
	static const __u16 tpids[] = { 0x8100, 0x88a8, 0x9100 };
	__u8 payload[1600];
	struct pkt_frame f = { 0 };
	size_t plen = 0, sni_off, t, ntags = rnd() % 8 < 6 ? 0 : 1 + rnd() % 3;
	char path[64];

	g->kind = (enum kind)(rnd() % K_MAX);
	g->v6 = rnd() % 3 == 0;
	f.net = g->v6 ? PKT_IPV6 : PKT_IPV4;
	f.saddr = rnd() % 3 ? (g->v6 ? "2001:db8:51::2" : "198.51.100.2") :
		  g->v6 ? PICK(sources6) : PICK(sources4);
	f.daddr = g->v6 ? "2001:db8:51::1" : "198.51.100.1";
	if (rnd() % 4 == 0)	/* a listed or unlisted destination, for tc egress */
		f.daddr = g->v6 ? PICK(sources6) : PICK(sources4);
	/* a 5-tuple of its own: no packet meets another's flow */
	f.sport = (__u16)(1024 + i % 60000);
	f.ip_id = PKT_SET((unsigned int)(i & 0xffff));
	for (t = 0; t < ntags; t++)
		f.tags[t] = tpids[rnd() % 3];
	if (!g->v6 && rnd() % 5 == 0)
		f.ihl = PKT_SET(5 + (unsigned int)(rnd() % 4));
	if (g->v6)
		f.ext6 = ext6[rnd() % (sizeof(ext6) / sizeof(ext6[0]))];
	if (!g->v6 && rnd() % 20 == 0)
		f.frag = (__u16)(rnd() % 2 ? 0x2000 : 0x0020);	/* MF, or an offset */

	switch (g->kind) {
	case K_DNS: {
		struct pkt_dns q = { .name = PICK(names), .qtype = rnd() % 4 ? 1 : 28,
				     .flags = rnd() % 8 ? 0 : PKT_SET((unsigned int)(rnd() & 0xff)),
				     .qdcount = rnd() % 10 ? 0 : PKT_SET((unsigned int)(rnd() % 3)),
				     .opt_len = rnd() % 4 ? 0 : 4 + (__u16)(rnd() % 12) };

		f.proto = IPPROTO_UDP;
		f.dport = 53;
		plen = pkt_dns(&q, payload, sizeof(payload));
		break;
	}
	case K_TLS: {
		static const char *const orders[] = { NULL, PKT_EXTS_SNI_FIRST, PKT_EXTS_SNI_LAST,
						      PKT_EXTS_NO_SNI, "SE", "ES", "S" };
		struct pkt_hello h = {
			.sni = PICK(names), .exts = orders[rnd() % 7],
			.lie = rnd() % 3 ? PKT_LIE_NONE : (enum pkt_hello_lie)(rnd() % PKT_LIE_MAX),
			.client = (enum pkt_hello_client)(rnd() % PKT_CLIENT_MAX),
			.padding = (unsigned int)(rnd() % 4 ? 0 : rnd() % 600),
		};

		f.proto = IPPROTO_TCP;
		f.dport = 443;
		f.seq = (__u32)rnd();
		plen = pkt_hello(&h, payload, sizeof(payload), &sni_off);
		break;
	}
	case K_HTTP:
		f.proto = IPPROTO_TCP;
		f.dport = rnd() % 2 ? 80 : 8080;
		if (rnd() % 2)
			snprintf(path, sizeof(path), "%s", PICK(paths));
		else
			snprintf(path, sizeof(path), "/%llx", (unsigned long long)(rnd() & 0xffff));
		plen = pkt_http_get(payload, sizeof(payload), path, PICK(names),
				    rnd() % 2 ? "Accept: */*\r\n" : NULL);
		break;
	case K_QUIC: {
		struct pkt_quic q = { .first = (__u8)(rnd() % 4 ? 0xc3 : rnd()),
				      .version = rnd() % 4 ? 1 : (__u32)rnd() };

		f.proto = IPPROTO_UDP;
		f.dport = 443;
		plen = pkt_quic(&q, payload, sizeof(payload));
		break;
	}
	case K_SYN:
		f.proto = IPPROTO_TCP;
		f.dport = rnd() % 2 ? 443 : 80;
		break;
	default:
		f.proto = rnd() % 2 ? IPPROTO_UDP : IPPROTO_TCP;
		f.dport = (__u16)(rnd() % 4 ? 9 : rnd());
		plen = (size_t)(rnd() % 64);
		memset(payload, 'x', plen);
		break;
	}
	g->len = pkt_frame(&f, payload, plen, g->frame, sizeof(g->frame));
	g->l3 = 14 + 4 * ntags;
	g->l4 = g->l3 + (g->v6 ? 40 + 8 * strlen(f.ext6 ? f.ext6 : "") :
			 4 * (f.ihl ? PKT_FIELD(f.ihl, 5) : 5));
	/* the TCP flags: SYN alone, or data's PSH and ACK */
	if (g->kind == K_SYN && g->l4 + 14 < g->len)
		g->frame[g->l4 + 13] = 0x02;
	else if (f.proto == IPPROTO_TCP && g->l4 + 14 < g->len)
		g->frame[g->l4 + 13] = 0x18;	/* PSH, ACK */
}

/* Structure-aware and blind mutations, 0 to 3 of them. */
static void mutate(struct gen *g)
{
	int n = rnd() % 10 < 4 ? 0 : 1 + (int)(rnd() % 3), m;

	g->mutations = n;
	for (m = 0; m < n && g->len; m++) {
		size_t at;

		switch (rnd() % 10) {
		case 0:	/* cut short: to the Ethernet header at least, the least a test run takes */
			if (g->len > ETH_HLEN)
				g->len = ETH_HLEN + rnd() % (g->len - ETH_HLEN);
			break;
		case 1:	/* a byte flipped anywhere */
			g->frame[rnd() % g->len] ^= (__u8)(1 + rnd() % 255);
			break;
		case 2:	/* the IP length lies */
			at = g->l3 + (g->v6 ? 4 : 2);
			if (at + 2 <= g->len) {
				g->frame[at] = (__u8)rnd();
				g->frame[at + 1] = (__u8)rnd();
			}
			break;
		case 3:	/* the IPv4 IHL or the IP version */
			if (g->l3 < g->len)
				g->frame[g->l3] = (__u8)(rnd() % 2 ? (g->frame[g->l3] & 0xf0) |
							 (rnd() % 16) : rnd());
			break;
		case 4:	/* the UDP length, or the TCP data offset */
			at = g->l4 + (rnd() % 2 ? 4 : 12);
			if (at < g->len)
				g->frame[at] = (__u8)rnd();
			break;
		case 5:	/* the TCP flags */
			at = g->l4 + 13;
			if (at < g->len)
				g->frame[at] = (__u8)rnd();
			break;
		case 6:	/* a byte of the payload's first 64: a label, a record length */
			at = g->l4 + 8 + rnd() % 80;
			if (at < g->len)
				g->frame[at] = (__u8)(rnd() % 2 ? rnd() : rnd() % 70);
			break;
		case 7:	/* a VLAN TPID or the EtherType */
			at = 12 + 4 * (rnd() % 4);
			if (at + 2 <= g->len && at <= g->l3 - 2) {
				static const __u16 types[] = { 0x8100, 0x88a8, 0x0800, 0x86dd,
							       0x0806, 0x9100 };
				__u16 v = types[rnd() % 6];

				g->frame[at] = (__u8)(v >> 8);
				g->frame[at + 1] = (__u8)v;
			}
			break;
		case 8:	/* the IPv6 next header, or the IPv4 protocol */
			at = g->l3 + (g->v6 ? 6 : 9);
			if (at < g->len) {
				static const __u8 protos[] = { 6, 17, 0, 43, 44, 60, 59, 1 };

				g->frame[at] = protos[rnd() % 8];
			}
			break;
		default:	/* bytes appended past the datagram (Ethernet padding) */
			at = g->len + rnd() % 40;
			if (at <= sizeof(g->frame)) {
				memset(g->frame + g->len, (int)(rnd() & 0xff), at - g->len);
				g->len = at;
			}
			break;
		}
	}
}

/* ---- the userspace build of the program's walk ------------------------------------------- */

/* The filter's modes, PHASE_PACKETS packets each, in turn. */
struct phase {
	const char *name;
	__u32 flags;
	bool daemon;		/* confirm mode: the daemon's beat is fresh */
};

static const struct phase phases[] = {
	{ "drop", BB_HDR_F_DROP, false },
	{ "flag, --block-quic", BB_HDR_F_BLOCK_QUIC, false },
	{ "--answer reject, --block-quic",
	  BB_HDR_F_DROP | BB_HDR_F_ANSWER | BB_HDR_F_BLOCK_QUIC, false },
	{ "--answer sinkhole", BB_HDR_F_DROP | BB_HDR_F_ANSWER | BB_HDR_F_SINKHOLE, false },
	{ "confirm", BB_HDR_F_DROP | BB_HDR_F_CONFIRM, true },
	{ "confirm, daemon down", BB_HDR_F_DROP | BB_HDR_F_CONFIRM, false },
	{ "confirm, daemon down, --daemon-down drop",
	  BB_HDR_F_DROP | BB_HDR_F_CONFIRM | BB_HDR_F_DOWN_DROP, false },
	{ "confirm, --answer reject", BB_HDR_F_DROP | BB_HDR_F_CONFIRM | BB_HDR_F_ANSWER, true },
};

#define N_PHASES	(sizeof(phases) / sizeof(phases[0]))
#define PHASE_PACKETS	2000
#define MARK		0x2a
#define MAX_REQS	4

/* Confirm mode's answers, prefilled in both maps: names and addresses as packets hold them. */
static const char *const confirmed_names[] = { "bad.test", "x.wild.example" };
static const char *const unlisted_names[] = { "ads.tracker.test", "www.blocked.example" };
static const char *const confirmed_addrs[] = { "198.51.100.77", "2001:db8:bad::1" };
static const char *const unlisted_addrs[] = { "203.0.113.1", "2001:db8:51::66" };
static const char *const unlisted_urls[] = { "url.example/a/b.html" };

/* What the kernel sends a request for, and the request. */
struct ref_req {
	struct bb_confirm_key ckey;
	__u8 what, family;
	__u16 key_len;
	__u8 key[BB_EVENT_KEY_MAX];
};

struct ref {
	struct bb_stats d;	/* the counters it moves */
	bool drop;
	__u32 ret;		/* the verdict: XDP_*, TC_ACT_* */
	bool pending;		/* a ClientHello walk the kernel keeps for a next segment */
	__u32 name_len;		/* a name extracted (DNS, SNI, Host): key[1 .. name_len] */
	__u8 key[BB_KEYBUF_BYTES];
	__u32 mark;		/* tc: the mark a flag sets */
	/* the packet it sends: an answer or a reset; out_exact: checksums compared too */
	__u8 out[MAX_FRAME];
	size_t out_len;
	bool out_exact;
	struct ref_req reqs[MAX_REQS];
	int n_reqs;
};

/* What a packet's walk knows: the filter, its mode, the hook. */
struct walk {
	const struct bb_block *img;
	const struct bb_header *hdr;
	const struct bb_config *cfg;
	const struct phase *ph;
	bool egress, tc;
};

/* A confirm key's bytes: an address (IPv4 zero-padded), or a key's hash. */
static void ckey_make(struct bb_confirm_key *k, __u32 kind, const __u8 *addr, const __u8 *key,
		      __u32 len, __u64 seed)
{
	memset(k, 0, sizeof(*k));
	k->kind = kind;
	if (addr) {
		memcpy(k->data, addr, kind == BB_CONFIRM_IP4 ? 4 : 16);
	} else {
		__u64 h = bb_xxh64(key, len > BB_KEY_MAX - 1 ? BB_KEY_MAX - 1 : len, seed ^ kind);

		memcpy(k->data, &h, 8);
	}
}

/* The prefilled answers: 1 listed, 2 unlisted, 0 neither (asked of the daemon). */
static struct {
	struct bb_confirm_key keys[16];
	int state[16];
	int n;
} answers;

static int answer_of(const struct bb_confirm_key *k)
{
	int i;

	for (i = 0; i < answers.n; i++)
		if (!memcmp(&answers.keys[i], k, sizeof(*k)))
			return answers.state[i];
	return 0;
}

/*
 * After a hit (counted by the caller) of what (enum bb_event_what), family 4 or 6 for
 * an address at addr, else the name or URL in key[1 .. key_len - 1]: the allowlist's
 * answer, then in confirm mode the daemon's. Whether the hit stands; *fp: a confirmed
 * false positive (its HTTP request goes on to the URL program).
 */
static bool decided(struct ref *r, const struct walk *w, int allowed, __u8 what, __u8 family,
		    const __u8 *addr, const __u8 *key, __u32 key_len, bool *fp)
{
	struct bb_confirm_key k;
	struct ref_req *q;
	__u32 kind = addr ? (family == 4 ? BB_CONFIRM_IP4 : BB_CONFIRM_IP6) :
		     what == BB_EV_URL ? BB_CONFIRM_URL : BB_CONFIRM_NAME;
	int ans;

	*fp = false;
	if (allowed) {
		r->d.allowed++;
		return false;
	}
	if (!(w->hdr->flags & BB_HDR_F_CONFIRM))
		return true;	/* no daemon beats here: nothing counts hits by list */
	ckey_make(&k, kind, addr, key ? key + 1 : NULL, key_len ? key_len - 1 : 0, w->hdr->seed);
	ans = answer_of(&k);
	if (ans == 1)
		return true;
	if (ans == 2) {
		r->d.unlisted++;
		*fp = true;
		return false;
	}
	if (!w->ph->daemon) {
		r->d.daemon_down++;
		if (w->hdr->flags & BB_HDR_F_DOWN_DROP)
			return true;
		r->d.unconfirmed++;
		return false;
	}
	r->d.unconfirmed++;
	r->d.confirm_requests++;
	if (r->n_reqs < MAX_REQS) {
		q = &r->reqs[r->n_reqs++];
		memset(q, 0, sizeof(*q));
		q->ckey = k;
		q->what = what;
		q->family = addr ? family : 0;
		q->key_len = addr ? 0 : (__u16)(key_len < BB_EVENT_KEY_MAX ? key_len : BB_EVENT_KEY_MAX);
		if (!addr)
			memcpy(q->key, key, BB_EVENT_KEY_MAX);
	}
	return false;
}

/* The peer's address: the source at ingress (XDP, tc ingress), the destination at egress. */
static bool addr_hit(struct ref *r, const struct walk *w, const struct bb_packet *pkt)
{
	const __u8 *addr = w->egress ? pkt->daddr : pkt->saddr;
	struct bb_entry e = { 0 };
	bool v4 = pkt->l3_proto == ETH_P_IP, fp;
	int hit = v4 ? bb_image_match_ip4(w->img, addr) : bb_image_match_ip6(w->img, addr);

	if (!hit)
		return false;
	e.kind = v4 ? BB_ENTRY_IP4 : BB_ENTRY_IP6;
	e.plen = v4 ? 32 : 128;
	memcpy(e.addr, addr, v4 ? 4 : 16);
	(*(w->egress ? &r->d.ip_dst_hits : v4 ? &r->d.ip4_hits : &r->d.ip6_hits))++;
	return decided(r, w, bb_image_allowed(w->img, &e), w->egress ? BB_EV_DST : BB_EV_SRC,
		       v4 ? 4 : 6, addr, NULL, 0, &fp);
}

/* A name's hit (DNS, SNI, Host): *hitp whether it was one at all, *fp a confirmed FP. */
static bool name_hit(struct ref *r, const struct walk *w, const __u8 *key, __u32 len,
		     __u64 *counter, __u8 what, bool *any, bool *fp)
{
	int allowed, hit = bb_image_match_name_key(w->img, key, len, &allowed);

	r->name_len = len;	/* the kernel's scratch must hold the same */
	memcpy(r->key, key, sizeof(r->key));
	*any = hit;
	*fp = false;
	if (!hit)
		return false;
	(*counter)++;
	return decided(r, w, allowed, what, 0, NULL, key, 1 + len, fp);
}

static bool port_in(const __u16 *ports, __u16 port)
{
	int i;

	for (i = 0; i < BB_MAX_PORTS; i++)
		if (ports[i] && ports[i] == port)
			return true;
	return false;
}

/* What a program's verdict counts: dropped, or passed (and flagged). */
static void count_verdict(struct ref *r, const struct walk *w, bool hit)
{
	if (hit && (w->hdr->flags & BB_HDR_F_DROP)) {
		r->d.dropped++;
		r->drop = true;
		return;
	}
	if (hit) {
		r->d.flagged++;
		r->mark = w->tc ? MARK : 0;
	}
	r->d.passed++;
}

/* A DNS query dropped with --answer: the answer program's answer, or it is dropped unfit. */
static void answer(struct ref *r, const struct walk *w, const __u8 *frame, size_t len)
{
	r->out_len = ref_dns_answer(frame, len, w->hdr->flags & BB_HDR_F_SINKHOLE, r->out,
				    sizeof(r->out));
	r->out_exact = true;
	if (r->out_len)
		r->d.dns_answered++;
	else
		r->d.answer_unfit++;
}

/* A TLS or HTTP segment dropped with --answer: reset (the server's), or dropped unfit. */
static void reset(struct ref *r, const struct walk *w, const __u8 *frame, size_t len)
{
	r->out_len = ref_tcp_reset(frame, len, w->tc ? REF_RESET_SERVER_TC : REF_RESET_SERVER,
				   r->out, sizeof(r->out));
	/* at tc the checksums are the input's, adjusted by the kernel's helpers */
	r->out_exact = !w->tc || ref_checksums_ok(frame, len);
	if (r->out_len)
		r->d.tcp_reset++;
	else
		r->d.answer_unfit++;
}

/* A TCP verdict: with --answer, a drop resets. */
static void tcp_verdict(struct ref *r, const struct walk *w, bool hit, const __u8 *frame,
			size_t len)
{
	count_verdict(r, w, hit);
	if (r->drop && (w->hdr->flags & BB_HDR_F_ANSWER))
		reset(r, w, frame, len);
}

static void ref_dns(struct ref *r, const struct walk *w, const struct bb_packet *pkt,
		    const __u8 *frame, size_t len)
{
	__u8 key[BB_KEYBUF_BYTES] = { 0 };
	__u32 n = 0;
	int ret = bb_dns_qname(pkt->payload, frame + len, key, &n);
	bool hit = false, any, fp;

	if (ret != BB_NAME_NONE) {
		r->d.dns_queries++;
		if (ret == BB_NAME_BAD)
			r->d.dns_unparsed++;
		if (ret == BB_NAME_FOUND)
			hit = name_hit(r, w, key, n, &r->d.dns_hits, BB_EV_DNS, &any, &fp);
	}
	count_verdict(r, w, hit);
	if (r->drop && (w->hdr->flags & BB_HDR_F_ANSWER))
		answer(r, w, frame, len);
}

static void ref_tls(struct ref *r, const struct walk *w, const struct bb_packet *pkt,
		    const __u8 *frame, size_t len)
{
	const __u8 *p = pkt->payload, *end = frame + len;
	struct bb_tls_walk tw;
	__u8 key[BB_KEYBUF_BYTES] = { 0 };
	__u32 n, i;
	int ret;
	bool hit = false, any, fp;

	if (pkt->tcp_flags & 0x02 || !pkt->payload_len || p + 1 > end || p[0] != 22 ||
	    (pkt->payload_len >= 2 && (p + 2 > end || p[1] != 3)) ||
	    (pkt->payload_len >= 6 && (p + 6 > end || p[5] != 1))) {
		tcp_verdict(r, w, false, frame, len);
		return;
	}
	r->d.tls_hellos++;
	memset(&tw, 0, sizeof(tw));
	tw.segments = 1;
	ret = bb_tls_whole(&tw, p, end, pkt->payload_len);
	if (ret == BB_TLS_MORE)
		ret = bb_tls_walk(&tw, p, end, pkt->payload_len);
	if (ret == BB_TLS_MORE) {
		r->pending = true;
	} else {
		if (tw.ech)
			r->d.tls_ech++;
		if (ret == BB_TLS_NO_SNI) {
			r->d.tls_no_sni++;
		} else if (ret != BB_TLS_SNI) {
			r->d.tls_unparsed++;
		} else {
			/* as sni_found() copies it: eight bytes at a time, what is past len too */
			n = tw.name_len;
			for (i = 0; i < BB_TLS_BUF && i < n; i += 8)
				memcpy(key + ((1 + i) & (BB_KEYBUF_BYTES / 2 - 1)), tw.buf + i, 8);
			if (bb_name_finish(key, &n) != BB_NAME_FOUND)
				r->d.tls_unparsed++;
			else
				hit = name_hit(r, w, key, n, &r->d.tls_hits, BB_EV_SNI, &any, &fp);
		}
	}
	tcp_verdict(r, w, hit, frame, len);
}

static void ref_http(struct ref *r, const struct walk *w, const struct bb_packet *pkt,
		     const __u8 *frame, size_t len)
{
	__u8 req[BB_HTTP_SCAN_MAX + 8] = { 0 }, key[BB_KEYBUF_BYTES] = { 0 };
	size_t n = pkt->payload_len, have = (size_t)(frame + len - (const __u8 *)pkt->payload);
	__u32 hlen = 0, plen = 0;
	int full = 0, ret, allowed;
	bool hit = false, any = false, fp = false;

	if (n > BB_HTTP_SCAN_MAX)
		n = BB_HTTP_SCAN_MAX;
	if (n > have)
		n = have;
	memcpy(req, pkt->payload, n);
	ret = bb_http_request(req, (__u32)n, key, &hlen, &plen, &full);
	if (ret != BB_NAME_NONE) {
		r->d.http_requests++;
		if (ret != BB_NAME_FOUND)
			r->d.http_unparsed++;
		else
			hit = name_hit(r, w, key, hlen, &r->d.http_hits, BB_EV_HOST, &any, &fp);
	}
	/* a host no list holds, or a confirmed false positive: the URL program */
	if (ret == BB_NAME_FOUND && (!any || fp) && (w->hdr->flags & BB_HDR_F_URLS)) {
		hit = bb_image_match_url_key(w->img, key, hlen, plen, full, &allowed);
		if (hit) {
			r->d.url_hits++;
			hit = decided(r, w, allowed, BB_EV_URL, 0, NULL, key, 1 + hlen + plen, &fp);
		}
	}
	tcp_verdict(r, w, hit, frame, len);
}

/* A QUIC Initial: counted, with --block-quic a hit. */
static bool ref_quic(struct ref *r, const struct walk *w, const struct bb_packet *pkt,
		     const __u8 *end)
{
	const __u8 *p = pkt->payload;
	__u32 version, type;

	if (p + 5 > end || (p[0] & 0xc0) != 0xc0)
		return false;
	version = (__u32)p[1] << 24 | (__u32)p[2] << 16 | (__u32)p[3] << 8 | p[4];
	type = (p[0] >> 4) & 3;
	if (!version || (version == 0x6b3343cf ? type != 1 : type != 0))
		return false;
	r->d.quic_initials++;
	if (!(w->hdr->flags & BB_HDR_F_BLOCK_QUIC))
		return false;
	if (w->hdr->flags & BB_HDR_F_DROP)
		r->d.quic_dropped++;
	return true;
}

/* The verdict as the hook returns it. */
static __u32 hook_ret(const struct ref *r, const struct walk *w)
{
	if (r->out_len)		/* an answer sent back, a reset on its way */
		return w->tc ? (r->d.dns_answered ? TC_ACT_REDIRECT : (__u32)TC_ACT_UNSPEC) :
			       r->d.dns_answered ? XDP_TX : XDP_PASS;
	if (w->tc)
		return r->drop ? TC_ACT_SHOT : (__u32)TC_ACT_UNSPEC;
	return r->drop ? XDP_DROP : XDP_PASS;
}

/*
 * bloomblock_xdp() (or tc_run()), bb_service_*(), bb_name_*(), the URL, answer and
 * reset programs in the order they run; egress: tc egress's, which checks the
 * destination.
 */
static void reference(struct ref *r, const struct walk *w, __u8 *frame, size_t len)
{
	struct bb_cursor cur = { .pos = frame, .end = frame + len };
	const __u8 *end = frame + len;
	struct bb_packet pkt;
	bool hit;
	int ret;

	memset(r, 0, offsetof(struct ref, out));
	r->out_len = 0;
	r->n_reqs = 0;
	memset(&pkt, 0, sizeof(pkt));
	r->d.packets = 1;
	ret = bb_parse_packet(&cur, &pkt);
	if (pkt.vlans)
		r->d.vlan = 1;
	if (ret != BB_PARSE_OK) {
		if (ret == BB_PARSE_NON_IP)
			r->d.non_ip = 1;
		else if (ret == BB_PARSE_TRUNCATED)
			r->d.truncated = 1;
		else
			r->d.malformed = 1;
		r->d.passed = 1;
		r->ret = hook_ret(r, w);
		return;
	}
	if (pkt.l3_proto == ETH_P_IP)
		r->d.ipv4 = 1;
	else
		r->d.ipv6 = 1;
	hit = addr_hit(r, w, &pkt);
	if (!hit && (w->hdr->flags & BB_HDR_F_SERVICES) && bb_parse_l4(&cur, &pkt) == BB_PARSE_OK &&
	    (size_t)((__u8 *)pkt.payload - frame) <= 1024 && pkt.payload_len <= 0xffff) {
		if (pkt.l4_proto == IPPROTO_UDP) {
			if (port_in(w->cfg->dns_ports, pkt.dport)) {
				ref_dns(r, w, &pkt, frame, len);
				r->ret = hook_ret(r, w);
				return;
			}
			if (port_in(w->cfg->quic_ports, pkt.dport))
				hit = ref_quic(r, w, &pkt, end);
		} else if (pkt.payload_len || (pkt.tcp_flags & 0x02)) {
			if (port_in(w->cfg->tls_ports, pkt.dport)) {
				ref_tls(r, w, &pkt, frame, len);
				r->ret = hook_ret(r, w);
				return;
			}
			if (pkt.payload_len && port_in(w->cfg->http_ports, pkt.dport)) {
				ref_http(r, w, &pkt, frame, len);
				r->ret = hook_ret(r, w);
				return;
			}
		}
	}
	count_verdict(r, w, hit);
	r->ret = hook_ret(r, w);
}

/* ---- the comparison -------------------------------------------------------------------- */

/*
 * The kernel's extracted name: struct bb_scratch's key and name_len, found by their
 * offsets in the object's BTF, read from this CPU's slot (the test pins itself to
 * one CPU; a test run runs on the caller's).
 */
static struct {
	int fd, ncpus;
	size_t size, key_off, len_off;
	__u8 *values;
} scratch = { .fd = -1 };

static bool scratch_open(void)
{
	const struct btf *btf = bpf_object__btf(harness.skel->obj);
	const struct btf_member *m;
	const struct btf_type *t;
	int id, i;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, "bb_scratch", BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	if (!t)
		return false;
	scratch.size = (t->size + 7) & ~7U;
	scratch.key_off = scratch.len_off = (size_t)-1;
	for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);

		if (!strcmp(name, "key"))
			scratch.key_off = m->offset / 8;
		else if (!strcmp(name, "name_len"))
			scratch.len_off = m->offset / 8;
	}
	scratch.ncpus = libbpf_num_possible_cpus();
	scratch.values = calloc((size_t)scratch.ncpus, scratch.size);
	scratch.fd = bpf_map__fd(harness.skel->maps.scratch);
	return scratch.values && scratch.ncpus > 0 && scratch.key_off != (size_t)-1 &&
	       scratch.len_off != (size_t)-1;
}

/* Whether this CPU's scratch holds the name r extracted; what it holds, said in msg. */
static bool scratch_agrees(const struct ref *r, int cpu, char *msg, size_t size)
{
	__u32 zero = 0, len;
	const __u8 *v;

	if (bpf_map_lookup_elem(scratch.fd, &zero, scratch.values)) {
		appendf(msg, size, "scratch not read: %s; ", strerror(errno));
		return false;
	}
	v = scratch.values + (size_t)cpu * scratch.size;
	memcpy(&len, v + scratch.len_off, sizeof(len));
	if (len == r->name_len && len < BB_KEYBUF_BYTES &&
	    !memcmp(v + scratch.key_off + 1, r->key + 1, len))
		return true;
	appendf(msg, size, "the kernel extracted %u bytes \"%.*s\", the reference %u \"%.*s\"; ",
		len, (int)(len < 200 ? len : 200), (const char *)v + scratch.key_off + 1,
		r->name_len, (int)(r->name_len < 200 ? r->name_len : 200),
		(const char *)r->key + 1);
	return false;
}

#define HOOKS	3

struct hook {
	const char *name;
	bool skb;	/* a tc program: __sk_buff in, TC_ACT_SHOT or TC_ACT_UNSPEC out */
	bool egress;
	int fd;
};

/*
 * A frame whose EtherType says IPv4 or IPv6 but ends inside that header: a tc test
 * run refuses it (the kernel pulls the IP header to set the skb's network header),
 * though a driver may hand tc one. XDP runs it.
 */
static bool short_ip(const __u8 *f, size_t len)
{
	__u16 type = (__u16)(f[12] << 8 | f[13]);

	return (type == ETH_P_IP && len < ETH_HLEN + 20) ||
	       (type == ETH_P_IPV6 && len < ETH_HLEN + 40);
}

/* Every walk the flows map keeps, deleted (its keys: at most 256 bytes). */
static void flows_clear(int fd)
{
	__u8 next[256];

	while (!bpf_map_get_next_key(fd, NULL, next))
		bpf_map_delete_elem(fd, next);
}

static void hexdump(const __u8 *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("%s%02x", i % 32 ? "" : "\n#   ", p[i]);
	printf("\n");
}

/* ---- the phases: a filter per mode, confirm mode's maps --------------------------------- */

static struct {
	int confirmed_fd, unlisted_fd, daemon_fd;
	struct ring_buffer *ring;
	struct bb_confirm_req got[MAX_REQS];
	int n_got;
} cm;

static int ring_got(void *ctx, void *data, size_t size)
{
	(void)ctx;
	if (cm.n_got < MAX_REQS && size >= sizeof(cm.got[0]))
		memcpy(&cm.got[cm.n_got], data, sizeof(cm.got[0]));
	cm.n_got++;
	return 0;
}

/* The daemon's beat: fresh for ten minutes (alive), or none. */
static int daemon_beat(bool alive)
{
	struct bb_confirm_daemon d = { 0 };
	struct timespec ts;
	__u32 zero = 0;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (alive)
		d.alive_ns = (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec + 600000000000ULL;
	return bpf_map_update_elem(cm.daemon_fd, &zero, &d, BPF_ANY);
}

/* A name's or a URL's key as a parser leaves it: key[1 .. len]. */
static __u32 text_key(__u8 *key, const char *text)
{
	__u32 n = (__u32)strlen(text);

	memset(key, 0, BB_KEYBUF_BYTES);
	memcpy(key + 1, text, n);
	return n;
}

/* One prefilled answer, in its map and in the reference's table. */
static int prefill(const struct bb_header *hdr, const char *text, bool addr, bool url,
		   bool listed)
{
	struct bb_confirm_val v = { .generation = hdr->generation, .state = listed ?
				    BB_CONFIRM_LISTED : BB_CONFIRM_UNLISTED };
	__u8 key[BB_KEYBUF_BYTES], a[16];
	struct bb_confirm_key k;

	if (addr) {
		bool v4 = inet_pton(AF_INET, text, a) == 1;

		if (!v4 && inet_pton(AF_INET6, text, a) != 1)
			return -1;
		ckey_make(&k, v4 ? BB_CONFIRM_IP4 : BB_CONFIRM_IP6, a, NULL, 0, hdr->seed);
	} else {
		__u32 n = text_key(key, text);

		ckey_make(&k, url ? BB_CONFIRM_URL : BB_CONFIRM_NAME, NULL, key + 1, n, hdr->seed);
	}
	if (answers.n >= 16)
		return -1;
	answers.keys[answers.n] = k;
	answers.state[answers.n++] = listed ? 1 : 2;
	return bpf_map_update_elem(listed ? cm.confirmed_fd : cm.unlisted_fd, &k, &v, BPF_ANY);
}

static void map_clear(int fd)
{
	__u8 next[64];

	while (!bpf_map_get_next_key(fd, NULL, next))
		bpf_map_delete_elem(fd, next);
}

/* The filter of phase ph live, its config (ports, mark, an answer rate no test reaches). */
static int phase_begin(const struct phase *ph, struct bb_list *list, char *msg, size_t size)
{
	struct bb_config cfg;
	struct harness_filter hf = { .setup = HARNESS_LIST, .lines = lines, .flags = ph->flags,
				     .config = &cfg };
	const struct bb_header *hdr;
	size_t i;
	int err;

	bb_config_defaults(&cfg);
	cfg.mark = MARK;
	cfg.answer_cost_ns = 1;
	cfg.answer_burst = 2000000000U;
	bb_list_free(list);
	bb_list_init(list);
	err = harness_setup_filter(&hf, list, msg, size);
	if (err)
		return err;
	hdr = (const void *)&harness.img.blocks[BB_HEADER_INDEX];
	map_clear(cm.confirmed_fd);
	map_clear(cm.unlisted_fd);
	answers.n = 0;
	err = daemon_beat(ph->daemon);
	for (i = 0; !err && i < 2; i++)
		err = prefill(hdr, confirmed_names[i], false, false, true) ?:
		      prefill(hdr, unlisted_names[i], false, false, false) ?:
		      prefill(hdr, confirmed_addrs[i], true, false, true) ?:
		      prefill(hdr, unlisted_addrs[i], true, false, false);
	err = err ?: prefill(hdr, unlisted_urls[0], false, true, false);
	harness_answer_refill();
	if (err)
		snprintf(msg, size, "confirm mode's maps: %s", strerror(errno));
	return err;
}

/* Requests against what the reference asked: msg says what differs. */
static void reqs_compare(const struct ref *r, char *msg, size_t size)
{
	int i;

	if (cm.n_got != r->n_reqs) {
		appendf(msg, size, "%d confirmation requests, the reference %d; ", cm.n_got,
			r->n_reqs);
		return;
	}
	for (i = 0; i < r->n_reqs && i < MAX_REQS; i++) {
		const struct bb_confirm_req *g = &cm.got[i];
		const struct ref_req *q = &r->reqs[i];

		/* the key after its first byte, which a request does not set (the kind
		 * tag a probe writes there is the program's to restore, or not) */
		if (memcmp(&g->ckey, &q->ckey, sizeof(q->ckey)) || g->what != q->what ||
		    g->family != q->family || g->key_len != q->key_len ||
		    (q->key_len > 1 && memcmp(g->key + 1, q->key + 1, q->key_len - 1u)))
			appendf(msg, size, "request %d: kind %u what %u family %u key_len %u "
				"\"%.*s\"%s, the reference kind %u what %u family %u key_len %u "
				"\"%.*s\"; ", i, g->ckey.kind, g->what, g->family, g->key_len,
				g->key_len > 1 ? g->key_len - 1 : 0, (const char *)g->key + 1,
				memcmp(&g->ckey, &q->ckey, sizeof(q->ckey)) ? " (another key)" : "",
				q->ckey.kind, q->what, q->family, q->key_len,
				q->key_len > 1 ? q->key_len - 1 : 0, (const char *)q->key + 1);
	}
}

/* What a run of the differential test has seen so far. */
struct diff_run {
	struct hook hooks[HOOKS];
	int flows_fd, cpu;
	const char *prog;		/* argv[0], for the repro line */
	size_t disagree, drops, mutated, runs, tc_short;
	size_t names_compared, answers_cmp, resets_cmp, reqs_cmp;
	struct bb_stats moved_any;	/* every counter any run moved, summed */
};

static const char *const kind_names[] = { "plain", "dns", "tls", "http", "quic", "syn" };

/* The programs, the confirm mock's maps and ring, and this process on one CPU. */
static bool diff_setup(struct diff_run *d)
{
	static const struct hook hooks[HOOKS] = {
		{ "xdp", false, false, -1 }, { "tc ingress", true, false, -1 },
		{ "tc egress", true, true, -1 },
	};
	cpu_set_t one;

	if (!ASSERT_TRUE(netns_own(), "a network namespace of its own, its loopback up"))
		return false;
	if (!harness_load())
		return false;
	memcpy(d->hooks, hooks, sizeof(hooks));
	d->hooks[0].fd = bpf_program__fd(harness.skel->progs.bloomblock_xdp);
	d->hooks[1].fd = bpf_program__fd(harness.skel->progs.bloomblock_tc_ingress);
	d->hooks[2].fd = bpf_program__fd(harness.skel->progs.bloomblock_tc_egress);
	d->flows_fd = bpf_map__fd(harness.skel->maps.flows);
	cm.confirmed_fd = bpf_map__fd(harness.skel->maps.confirmed);
	cm.unlisted_fd = bpf_map__fd(harness.skel->maps.unlisted);
	cm.daemon_fd = bpf_map__fd(harness.skel->maps.confirm_daemon);
	cm.ring = ring_buffer__new(bpf_map__fd(harness.skel->maps.confirm_ring), ring_got, NULL,
				   NULL);
	/* one CPU, so the test runs and the scratch read are that CPU's */
	d->cpu = sched_getcpu();
	CPU_ZERO(&one);
	CPU_SET(d->cpu < 0 ? 0 : d->cpu, &one);
	return ASSERT_TRUE(d->cpu >= 0 && !sched_setaffinity(0, sizeof(one), &one) &&
			   scratch_open() && cm.ring, "pinned to one CPU; the scratch map's key "
			   "and name_len found in the BTF; the confirm ring open");
}

/*
 * The packet sent, checked against the reference's answer or reset, else the packet
 * that came (an XDP reset carries the client's due in its metadata, before it:
 * BB_RESET_META, then the segment's payload length).
 */
static void sent_compare(const struct diff_run *d, const struct gen *g, const struct ref *r,
			 bool xdp, __u32 retval, const __u8 *out, __u32 out_len, char *msg,
			 size_t size)
{
	const __u8 *sent = out;
	__u32 sent_len = out_len;
	long at;

	if (xdp && r->d.tcp_reset && retval == XDP_PASS) {
		struct ref_frame rf;
		__u32 meta[2] = { 0, 0 };

		if (out_len >= 8)
			memcpy(meta, out, 8);
		ref_parse(g->frame, g->len, &rf);
		if (meta[0] != 0xbb7e5e70U || meta[1] != rf.payload_len)
			appendf(msg, size, "the reset's metadata %#x %u, not BB_RESET_META %zu; ",
				meta[0], meta[1], rf.payload_len);
		sent += 8;
		sent_len = out_len >= 8 ? out_len - 8 : 0;
	}
	at = r->out_len ? ref_differs(sent, sent_len, r->out, r->out_len, r->out_exact) :
	     ref_differs(sent, sent_len, g->frame, g->len, true);
	if (at < 0)
		return;
	appendf(msg, size, "the packet after it (%u bytes) differs from the reference's (%zu) "
		"at byte %ld; ", sent_len, r->out_len ? r->out_len : g->len, at);
	if (d->disagree < 5) {
		printf("# sent:");
		hexdump(sent, sent_len);
		if (r->out_len) {
			printf("# the reference's:");
			hexdump(r->out, r->out_len);
		}
	}
}

/*
 * Packet i (g) through hook hk and through the reference: what differs into msg. 1: run
 * and compared; 0: a frame test runs refuse at tc (counted); -1: the test run failed.
 */
static int diff_one(struct diff_run *d, const struct phase *ph, const struct gen *g,
		    size_t i, const struct hook *hk, char *msg, size_t size)
{
	struct walk w = { 0 };
	struct ref r;
	struct bb_stats delta, after;
	__u8 copy[MAX_FRAME], out[MAX_FRAME + 64];
	__u32 retval = 0, mark = 0, out_len = sizeof(out);
	size_t s;

	w.img = harness.img.blocks;
	w.hdr = (const void *)&w.img[BB_HEADER_INDEX];
	w.cfg = (const void *)&w.img[BB_CONFIG_INDEX];
	w.ph = ph;
	w.egress = hk->egress;
	w.tc = hk->skb;
	memcpy(copy, g->frame, g->len);
	reference(&r, &w, copy, g->len);
	memset(msg, 0, size);
	memcpy(copy, g->frame, g->len);
	cm.n_got = 0;
	if (harness_read_stats(&delta) ||
	    harness_run_out(hk->fd, hk->skb, copy, g->len, out, &out_len, &retval, &mark)) {
		if (hk->skb && errno == EINVAL && short_ip(g->frame, g->len)) {
			d->tc_short++;	/* test runs refuse it; tc sees one */
			return 0;
		}
		tap_result(0, "BPF_PROG_TEST_RUN runs", "packet %zu at %s, %zu bytes: %s", i,
			   hk->name, g->len, strerror(errno));
		hexdump(g->frame, g->len);
		return -1;
	}
	harness_read_stats(&after);
	bb_stats_delta(&delta, &after, &delta);
	if (r.pending || g->kind == K_TLS)
		flows_clear(d->flows_fd);
	if (ph->flags & BB_HDR_F_CONFIRM) {
		int q;

		ring_buffer__consume(cm.ring);
		reqs_compare(&r, msg, size);
		d->reqs_cmp += cm.n_got;
		/* their pending marks gone: no packet waits on another's */
		for (q = 0; q < cm.n_got && q < MAX_REQS; q++)
			bpf_map_delete_elem(cm.unlisted_fd, &cm.got[q].ckey);
	}
	delta.lookups = r.d.lookups = 0;	/* the matcher counts no blocks read */
	harness_stats_compare(&delta, &r.d, msg, size);
	if (r.name_len) {
		d->names_compared++;
		scratch_agrees(&r, d->cpu, msg, size);
	}
	if (retval != r.ret)
		appendf(msg, size, "verdict %d, the reference %d; ", (int)retval, (int)r.ret);
	if (hk->skb && mark != r.mark)
		appendf(msg, size, "mark %#x, the reference %#x; ", mark, r.mark);
	sent_compare(d, g, &r, !hk->skb, retval, out, out_len, msg, size);
	d->answers_cmp += r.out_len && r.d.dns_answered;
	d->resets_cmp += r.out_len && r.d.tcp_reset;
	for (s = 0; s < N_STATS; s++)
		((__u64 *)&d->moved_any)[s] += ((__u64 *)&delta)[s];
	d->drops += retval == (hk->skb ? TC_ACT_SHOT : XDP_DROP);
	d->runs++;
	return 1;
}

/* What the run covered: the packets by kind and phase, and every counter it moved. */
static void diff_report(const struct diff_run *d, size_t packets, const size_t *by_kind,
			const size_t *by_phase)
{
	const struct bb_stats *m = &d->moved_any;
	size_t i;

	printf("# %zu packets: %zu dns, %zu tls, %zu http, %zu quic, %zu syn, %zu plain; "
	       "%zu mutated; %zu dropped\n", packets, by_kind[K_DNS], by_kind[K_TLS],
	       by_kind[K_HTTP], by_kind[K_QUIC], by_kind[K_SYN], by_kind[K_PLAIN], d->mutated,
	       d->drops);
	for (i = 0; i < N_PHASES; i++)
		printf("# phase %s: %zu packets\n", phases[i].name, by_phase[i]);
	printf("# counters moved: packets %llu, truncated %llu, malformed %llu, non_ip %llu, "
	       "vlan %llu, dns_queries %llu, dns_unparsed %llu, tls_hellos %llu, tls_unparsed "
	       "%llu, tls_no_sni %llu, http_requests %llu, http_unparsed %llu, quic_initials %llu, "
	       "allowed %llu, ip4_hits %llu, ip6_hits %llu, dns_hits %llu, tls_hits %llu, "
	       "http_hits %llu\n",
	       (unsigned long long)m->packets, (unsigned long long)m->truncated,
	       (unsigned long long)m->malformed, (unsigned long long)m->non_ip,
	       (unsigned long long)m->vlan, (unsigned long long)m->dns_queries,
	       (unsigned long long)m->dns_unparsed, (unsigned long long)m->tls_hellos,
	       (unsigned long long)m->tls_unparsed, (unsigned long long)m->tls_no_sni,
	       (unsigned long long)m->http_requests, (unsigned long long)m->http_unparsed,
	       (unsigned long long)m->quic_initials, (unsigned long long)m->allowed,
	       (unsigned long long)m->ip4_hits, (unsigned long long)m->ip6_hits,
	       (unsigned long long)m->dns_hits, (unsigned long long)m->tls_hits,
	       (unsigned long long)m->http_hits);
	printf("# ... ip_dst_hits %llu, url_hits %llu, flagged %llu, quic_dropped %llu, "
	       "dns_answered %llu, tcp_reset %llu, tcp_reset_half %llu, answer_unfit %llu, "
	       "confirm_requests %llu, unconfirmed %llu, unlisted %llu, daemon_down %llu\n",
	       (unsigned long long)m->ip_dst_hits, (unsigned long long)m->url_hits,
	       (unsigned long long)m->flagged, (unsigned long long)m->quic_dropped,
	       (unsigned long long)m->dns_answered, (unsigned long long)m->tcp_reset,
	       (unsigned long long)m->tcp_reset_half, (unsigned long long)m->answer_unfit,
	       (unsigned long long)m->confirm_requests, (unsigned long long)m->unconfirmed,
	       (unsigned long long)m->unlisted, (unsigned long long)m->daemon_down);
	printf("# %zu extracted names compared byte for byte with the kernel's scratch; %zu DNS "
	       "answers and %zu resets with the reference's; %zu confirmation requests\n",
	       d->names_compared, d->answers_cmp, d->resets_cmp, d->reqs_cmp);
	printf("# %zu test runs (every packet at XDP, tc ingress and tc egress; %zu at tc not "
	       "run: test runs refuse a frame cut inside its IP header)\n", d->runs, d->tc_short);
}

int main(int argc, char **argv)
{
	const char *np = getenv("BB_DIFF_PACKETS"), *only = getenv("BB_DIFF_PACKET");
	const char *quick = getenv("BB_QUICK");
	size_t n = np ? strtoul(np, NULL, 0) : quick && !strcmp(quick, "1") ? 20000 : 100000;
	size_t i, by_kind[K_MAX] = { 0 }, only_i = 0, by_phase[N_PHASES] = { 0 }, h;
	size_t phase = (size_t)-1;
	struct diff_run d = { .prog = argv[0] };
	const struct bb_stats *m = &d.moved_any;
	struct bb_list list;
	char msg[2048] = "";

	if (!harness_begin(argc, argv, "bloomblock differential BPF_PROG_TEST_RUN"))
		return harness_end();
	if (!diff_setup(&d))
		return harness_end();
	bb_list_init(&list);
	if (only) {
		only_i = strtoul(only, NULL, 0);
		n = only_i + 1;
	}
	for (i = 0; i < n; i++) {
		const struct phase *ph = &phases[i / PHASE_PACKETS % N_PHASES];
		struct gen g;

		build(&g, i);
		mutate(&g);
		if (only && i != only_i)
			continue;
		if (phase != i / PHASE_PACKETS % N_PHASES) {
			phase = i / PHASE_PACKETS % N_PHASES;
			if (phase_begin(ph, &list, msg, sizeof(msg))) {
				tap_result(0, "the phase's filter is live", "%s: %s", ph->name, msg);
				goto out;
			}
		}
		by_kind[g.kind]++;
		by_phase[phase]++;
		d.mutated += g.mutations > 0;
		for (h = 0; h < HOOKS; h++) {
			int r = diff_one(&d, ph, &g, i, &d.hooks[h], msg, sizeof(msg));

			if (r < 0)
				goto out;
			if (!r || !msg[0])
				continue;
			if (++d.disagree <= 5) {
				printf("# packet %zu at %s, %s (%s, %s, %d mutations, %zu bytes) "
				       "disagrees: %s", i, d.hooks[h].name, ph->name,
				       kind_names[g.kind], g.v6 ? "IPv6" : "IPv4", g.mutations, g.len,
				       msg);
				hexdump(g.frame, g.len);
				printf("# repro: BB_TEST_SEED=0x%llx BB_DIFF_PACKET=%zu %s\n",
				       (unsigned long long)harness.rng_seed, i, d.prog);
			}
		}
	}
out:
	daemon_beat(false);
	diff_report(&d, n - (only ? only_i : 0), by_kind, by_phase);
	tap_result(!d.disagree, "differential: the kernel programs (XDP, tc ingress, tc egress) "
		   "and their userspace build agree on every packet's verdict, counters, name, "
		   "packet sent and confirmation requests", "%zu of %zu runs disagree", d.disagree,
		   d.runs);
	tap_result(only || (d.drops > n / 20 && d.mutated > n / 3 && m->allowed &&
			    m->truncated && m->malformed && m->tls_hits && m->dns_hits &&
			    m->http_hits && m->dns_unparsed && m->tls_unparsed && m->ip_dst_hits &&
			    m->url_hits && m->flagged && m->quic_dropped && m->dns_answered &&
			    m->tcp_reset && m->answer_unfit && m->confirm_requests && m->unlisted &&
			    m->daemon_down),
		   "differential: the packets reach every verdict and every parser's, answer's "
		   "and confirmation's outcome", "%zu dropped, %zu mutated", d.drops, d.mutated);
	ring_buffer__free(cm.ring);
	bb_list_free(&list);
	return harness_end();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzers' seeds (tests/fuzz/seeds/NAME/), written with the tests' own builders
 * (tests/lib/pkt.c). fuzz_packet: a cut byte, then a frame: DNS queries, ClientHellos
 * of a browser and a bare client, HTTP requests, a QUIC Initial; IPv4 and IPv6, VLAN
 * tags, TCP options, an IPv6 extension header. fuzz_quic and fuzz_answer: a mode byte
 * (their files say its bits), then a frame: QUIC Initials of versions 1 and 2 and
 * others, short headers, to the QUIC port and others; DNS queries for listed names (A,
 * AAAA, TXT, EDNS) and ClientHello and HTTP segments of listed names, at every hook,
 * through the entry program and straight into the answer and reset programs.
 * fuzz_probe: list lines and queries of every kind. Run by hand when the builders
 * change:
 *   .output/tests/fuzz_seeds tests/fuzz/seeds
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/if_ether.h>
#include <linux/in.h>

#include "lib/pkt.h"

static char dir[400];
static int n, failed;

/* dir/NAME, made; its seeds numbered from 0. */
static void seeds_of(const char *root, const char *name)
{
	snprintf(dir, sizeof(dir), "%s/%s", root, name);
	mkdir(dir, 0755);
	n = 0;
}

static void write_seed(const char *what, const void *p, size_t len)
{
	char path[512];
	FILE *out;

	snprintf(path, sizeof(path), "%s/%02d-%s", dir, n++, what);
	out = fopen(path, "w");
	if (!out || !len || fwrite(p, 1, len, out) != len) {
		perror(path);
		failed = 1;
	}
	if (out)
		fclose(out);
}

/* A first byte, then the frame. */
static void seed(const char *what, struct pkt_frame f, const __u8 *pl, size_t len, __u8 cut)
{
	__u8 buf[PKT_MAX + 1];
	size_t flen = pkt_frame(&f, pl, len, buf + 1, sizeof(buf) - 1);

	buf[0] = cut;
	if (!flen) {
		fprintf(stderr, "%s: no frame\n", what);
		failed = 1;
		return;
	}
	write_seed(what, buf, flen + 1);
}

static void packet_seeds(void)
{
	__u8 pl[PKT_MAX];
	size_t len, off;
	int v6, vlan;

	for (v6 = 0; v6 < 2; v6++)
		for (vlan = 0; vlan < 2; vlan++) {
			struct pkt_frame f = { .net = v6 ? PKT_IPV6 : PKT_IPV4,
					       .saddr = v6 ? "2001:db8::2" : "198.51.100.2",
					       .sport = 40000 };
			struct pkt_dns d = { .name = "www.blocked.example", .opt_len = vlan ? 12 : 0 };
			struct pkt_hello h = { .sni = "blocked.example",
					       .client = vlan ? PKT_CLIENT_BARE : PKT_CLIENT_BROWSER };
			struct pkt_quic q = { .first = 0xc3, .version = 1 };

			if (vlan)
				f.tags[0] = ETH_P_8021Q;
			f.dport = 53;
			len = pkt_dns(&d, pl, sizeof(pl));
			seed("dns", f, pl, len, 0);
			f.proto = IPPROTO_TCP;
			f.dport = 443;
			f.doff = vlan ? 8 : 0;
			len = pkt_hello(&h, pl, sizeof(pl), &off);
			seed("tls", f, pl, len, (__u8)(off + 2));	/* the split walk cuts in the name */
			f.dport = 80;
			len = pkt_http_get(pl, sizeof(pl), "/a/b?c", "www.blocked.example",
					   "User-Agent: x\r\n");
			seed("http", f, pl, len, 20);
			f.proto = 0;
			f.dport = 443;
			f.doff = 0;
			len = pkt_quic(&q, pl, sizeof(pl));
			seed("quic", f, pl, len, 0);
		}
	{
		struct pkt_frame f = { .net = PKT_IPV6, .proto = IPPROTO_TCP, .ext6 = "hd",
				       .sport = 40000, .dport = 443 };
		struct pkt_hello h = { .sni = "x.example", .exts = PKT_EXTS_SNI_LAST };

		len = pkt_hello(&h, pl, sizeof(pl), &off);
		seed("tls-ext6", f, pl, len, 60);
	}
}

/*
 * fuzz_quic's mode byte: the hook (bits 0-1), --block-quic (2), drop mode (3),
 * --addr-both (4), other ports (5).
 */
static void quic_seeds(void)
{
	static const struct { __u8 first; __u32 version; __u16 dport; const char *what; } q[] = {
		{ 0xc3, 1, 443, "v1" }, { 0xd3, 0x6b3343cf, 443, "v2" },
		{ 0xc3, 0x6b3343cf, 443, "v2-type0" }, { 0xe3, 1, 443, "v1-handshake" },
		{ 0x43, 1, 443, "short" }, { 0xc3, 0, 443, "negotiation" },
		{ 0xc3, 0xff00001d, 443, "draft29" }, { 0xc3, 1, 8443, "v1-8443" },
		{ 0xc3, 1, 53, "v1-dns-port" },
	};
	__u8 pl[PKT_MAX];
	size_t i, len;
	int v6;

	for (i = 0; i < sizeof(q) / sizeof(q[0]); i++)
		for (v6 = 0; v6 < 2; v6++) {
			struct pkt_quic p = { .first = q[i].first, .version = q[i].version };
			struct pkt_frame f = { .net = v6 ? PKT_IPV6 : PKT_IPV4,
					       .saddr = v6 ? "2001:db8::2" : "198.51.100.2",
					       .sport = 40000, .dport = q[i].dport };
			/* XDP, tc ingress, tc egress; blocked in drop mode, flagged, other ports */
			__u8 mode = (__u8)((i + v6) % 3 | (i % 2 ? 0x0c : 0x04) | (i == 7 ? 0x20 : 0));

			if (i % 3 == 2)
				f.tags[0] = 0x8100;
			if (v6 && i == 4)
				f.ext6 = "H";
			len = pkt_quic(&p, pl, sizeof(pl));
			seed(q[i].what, f, pl, len, mode);
		}
	{
		/* a listed source's: the address hits first */
		struct pkt_quic p = { .first = 0xc3, .version = 1 };
		struct pkt_frame f = { .net = PKT_IPV4, .saddr = "203.0.113.7", .sport = 40000,
				       .dport = 443 };

		len = pkt_quic(&p, pl, sizeof(pl));
		seed("v1-listed-source", f, pl, len, 0x0c);
	}
}

/*
 * fuzz_answer's mode byte: the hook (bits 0-1), sinkhole (2), straight into a program
 * (3), the reset program (4), XDP without metadata (5).
 */
static void answer_seeds(void)
{
	static const char *const names[] = { "blocked.example", "www.blocked.example",
					     "a.wild.example", "ok.blocked.example" };
	static const __u16 qtypes[] = { 1, 28, 16 };
	__u8 pl[PKT_MAX];
	size_t len, off, i;
	unsigned int hook;

	for (i = 0; i < 12; i++) {
		bool v6 = i % 2, vlan = i % 3 == 1;
		struct pkt_dns d = { .name = names[i % 4], .qtype = qtypes[i % 3],
				     .opt_len = i % 4 == 3 ? 12 : 0 };
		struct pkt_frame f = { .net = v6 ? PKT_IPV6 : PKT_IPV4,
				       .saddr = v6 ? "2001:db8:51::2" : "198.51.100.2",
				       .daddr = v6 ? "2001:db8:51::1" : "198.51.100.1",
				       .sport = 40000, .dport = 53 };

		if (vlan)
			f.tags[0] = 0x8100;
		len = pkt_dns(&d, pl, sizeof(pl));
		/* every hook, reject and sinkhole, through the entry and straight in */
		seed("dns", f, pl, len, (__u8)(i % 3 | (i % 2 ? 4 : 0) | (i >= 6 ? 8 : 0)));
	}
	for (hook = 0; hook < 3; hook++) {
		struct pkt_frame f = { .net = hook == 1 ? PKT_IPV6 : PKT_IPV4, .proto = 6,
				       .saddr = hook == 1 ? "2001:db8:51::2" : "198.51.100.2",
				       .daddr = hook == 1 ? "2001:db8:51::1" : "198.51.100.1",
				       .sport = 40000, .dport = 443, .seq = 0x10203040, .ack = 0x7080,
				       .doff = hook == 2 ? 8 : 0 };
		struct pkt_hello h = { .sni = "blocked.example" };

		len = pkt_hello(&h, pl, sizeof(pl), &off);
		seed("tls", f, pl, len, (__u8)hook);
		seed("tls-reset", f, pl, len, (__u8)(hook | 0x18 | (hook ? 0 : 0x20)));
		f.dport = 80;
		len = pkt_http_get(pl, sizeof(pl), "/bad/x", "url.example", "Accept: */*\r\n");
		seed("http-url", f, pl, len, (__u8)hook);
		len = pkt_http_get(pl, sizeof(pl), "/", "www.blocked.example", NULL);
		seed("http-reset", f, pl, len, (__u8)(hook | 0x18));
	}
}

static void text_seed(const char *what, const char *text)
{
	write_seed(what, text, strlen(text));
}

/* fuzz_probe: list lines (items) and '?' queries. */
static void probe_seeds(void)
{
	text_seed("names", "blocked.example\n*.wild.example\nads.tracker.test\n"
		  "?www.blocked.example\n?wild.example\n?a.b.wild.example\n?tracker.test\n");
	text_seed("hosts", "0.0.0.0 tracker.test\n127.0.0.1 a.b.c.d.e.f.g.h.i.example\n"
		  "?x.a.b.c.d.e.f.g.h.i.example\n?x.tracker.test\n");
	text_seed("adblock", "||ads.example^\n@@||ok.ads.example^\n||xn--bcher-kva.example^\n"
		  "?ok.ads.example\n?b.xn--bcher-kva.example\n");
	text_seed("ipv4", "203.0.113.0/24\n198.51.100.7\n10.0.0.0/8\n192.0.2.128/25\n"
		  "?203.0.113.255\n?198.51.100.8\n?10.255.0.1\n?192.0.2.127\n");
	text_seed("ipv6", "2001:db8:bad::/48\n2001:db8::1\n2001:db8:f00::/40\n"
		  "?2001:db8:bad:ffff::1\n?2001:db8::2\n?2001:db8:fff::\n");
	text_seed("urls", "url.example/bad/\nhttp://a.example/x/y?z=1\nb.example/file.html\n"
		  "?url.example/bad/deeper/x\n?www.a.example/x/y?z=1\n?b.example/file.html?q\n");
	text_seed("rpz", "$ORIGIN rpz.example.\nexact.example CNAME .\n*.sub.example CNAME .\n"
		  "?exact.example\n?x.exact.example\n?y.sub.example\n");
	text_seed("raw", "blocked.example\n!\x10\x20\x30" "blocked.example.....\n");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s SEEDS_DIR (tests/fuzz/seeds)\n", argv[0]);
		return 2;
	}
	seeds_of(argv[1], "fuzz_packet");
	packet_seeds();
	seeds_of(argv[1], "fuzz_quic");
	quic_seeds();
	seeds_of(argv[1], "fuzz_answer");
	answer_seeds();
	seeds_of(argv[1], "fuzz_probe");
	probe_seeds();
	return failed;
}

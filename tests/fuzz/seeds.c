// SPDX-License-Identifier: GPL-2.0
/*
 * The packet fuzzer's seeds (tests/fuzz/seeds/fuzz_packet/), written with the tests'
 * own builders (tests/lib/pkt.c): a cut byte, then a frame. DNS queries, ClientHellos
 * of a browser and a bare client, HTTP requests, a QUIC Initial; IPv4 and IPv6, VLAN
 * tags, TCP options, an IPv6 extension header. Run by hand when the builders change:
 *   .output/tests/fuzz_seeds tests/fuzz/seeds/fuzz_packet
 */
#include <stdio.h>
#include <string.h>
#include <linux/if_ether.h>
#include <linux/in.h>

#include "lib/pkt.h"

static const char *dir;
static int n;

static void seed(const char *what, struct pkt_frame f, const __u8 *pl, size_t len, __u8 cut)
{
	__u8 buf[PKT_MAX + 1];
	char path[512];
	size_t flen = pkt_frame(&f, pl, len, buf + 1, sizeof(buf) - 1);
	FILE *out;

	buf[0] = cut;
	snprintf(path, sizeof(path), "%s/%02d-%s", dir, n++, what);
	out = fopen(path, "w");
	if (!out || !flen || fwrite(buf, 1, flen + 1, out) != flen + 1) {
		perror(path);
		return;
	}
	fclose(out);
}

int main(int argc, char **argv)
{
	__u8 pl[PKT_MAX];
	size_t len, off;
	int v6, vlan;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
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
	return 0;
}

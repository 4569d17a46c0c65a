// SPDX-License-Identifier: GPL-2.0
/*
 * bbverdict: what a pinned XDP program says to one packet an item makes, through
 * BPF_PROG_TEST_RUN: the fault tests ask the very program the interface runs, many
 * times a second, without sending a packet anywhere. An item is an address (a UDP
 * datagram from it to port 9, IPv4 or IPv6) or dns:NAME (a DNS query for NAME from
 * 198.51.100.2). Prints "ITEM VERDICT" a line, VERDICT one of aborted, drop, pass,
 * tx, redirect; exits 1 when the program cannot be run.
 *
 *   bbverdict PROG_PIN ITEM...
 *   bbverdict id:PROG_ID ITEM...
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "lib/pkt.h"

static const char *verdict_name(__u32 ret)
{
	static const char *const names[] = { "aborted", "drop", "pass", "tx", "redirect" };

	return ret < sizeof(names) / sizeof(names[0]) ? names[ret] : "unknown";
}

static size_t item_frame(const char *item, __u8 *p, size_t cap)
{
	struct pkt_frame f = { .net = PKT_IPV4, .saddr = item, .daddr = "198.51.100.1",
			       .sport = 40000, .dport = 9 };
	__u8 payload[512], addr[16];
	size_t len = 4;

	memset(payload, 'x', len);
	if (!strncmp(item, "dns:", 4)) {
		struct pkt_dns q = { .name = item + 4 };

		f.saddr = "198.51.100.2";
		f.dport = 53;
		len = pkt_dns(&q, payload, sizeof(payload));
		if (!len)
			return 0;
	} else if (inet_pton(AF_INET6, item, addr) == 1) {
		f.net = PKT_IPV6;
		f.daddr = "2001:db8:51::1";
	} else if (inet_pton(AF_INET, item, addr) != 1) {
		return 0;
	}
	return pkt_frame(&f, payload, len, p, cap);
}

int main(int argc, char **argv)
{
	__u8 frame[PKT_MAX], out[PKT_MAX];
	int fd, i;

	if (argc < 3) {
		fprintf(stderr, "usage: bbverdict PROG_PIN|id:PROG_ID ITEM...\n");
		return 2;
	}
	fd = strncmp(argv[1], "id:", 3) ? bpf_obj_get(argv[1]) :
	     bpf_prog_get_fd_by_id((__u32)strtoul(argv[1] + 3, NULL, 10));
	if (fd < 0) {
		fprintf(stderr, "bbverdict: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (i = 2; i < argc; i++) {
		size_t len = item_frame(argv[i], frame, sizeof(frame));
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = len,
			    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);

		if (!len) {
			fprintf(stderr, "bbverdict: %s: not an address or dns:NAME\n", argv[i]);
			return 2;
		}
		if (bpf_prog_test_run_opts(fd, &opts)) {
			fprintf(stderr, "bbverdict: %s: test run: %s\n", argv[i], strerror(errno));
			return 1;
		}
		printf("%s %s\n", argv[i], verdict_name(opts.retval));
	}
	close(fd);
	return 0;
}

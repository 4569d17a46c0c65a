// SPDX-License-Identifier: GPL-2.0
/*
 * BPF_PROG_TEST_RUN of --answer and TCP: a blocked ClientHello or HTTP request through
 * the real entry programs (and their tail call to the reset program) becomes the
 * server's reset, byte for byte the reference this file builds on its own (tests/lib/
 * pkt.c's frame cut after a 20-byte TCP header, RST and ACK, window 0, the IP length
 * and both checksums computed here), for IPv4 and IPv6, with and without a VLAN tag,
 * with and without TCP options, TLS and HTTP, at XDP (with the metadata that asks the
 * tc helper for the client's reset) and at tc ingress and egress; at tc the client's
 * reset, the copy sent turned around, is captured on this test's own loopback (a
 * network namespace of its own) and compared too. Never longer than the segment; what
 * is not a data segment with an ACK (a RST, no ACK), or comes from a listed source,
 * is dropped unreset; a flood is reset within the rate. TAP output; root.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "filter.h"
#include "list.h"
#include "pins.h"
#include "lib/harness.h"
#include "lib/netns.h"
#include "lib/pkt.h"

#define CLIENT4		"198.51.100.2"
#define LISTED4		"198.51.100.3"
#define SERVER4		"198.51.100.1"
#define CLIENT6		"2001:db8:51::2"
#define SERVER6		"2001:db8:51::1"
#define SEQ		0x10203040U
#define ACK		0x7080U		/* pkt.c's acks are 16-bit */

#define ANSWER_FLAGS	(BB_HDR_F_DROP | BB_HDR_F_ANSWER)

static const char *const lines[] = { "blocked.example", LISTED4, NULL };
static const __u8 macs[12] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2 };
static int xdp_fd, tc_in_fd, tc_eg_fd, cap_fd = -1;

enum hook { HOOK_XDP, HOOK_TC_IN, HOOK_TC_EG };
static const char *const hook_names[] = { "XDP", "tc ingress", "tc egress" };

struct seg {
	bool v6, vlan, http;
	unsigned int doff;	/* TCP header words: 0 or 5 plain, 8 with 12 bytes of options */
	const char *ext6;	/* IPv6 extension headers (pkt.c's letters) */
	const char *src;	/* NULL: the client */
	__u8 flags;		/* TCP flags; 0: ACK|PSH */
	size_t padding;
};

/* The segment's TCP checksum, which pkt.c leaves 0: the kernel's helpers update it. */
static void tcp_checksum(const struct seg *s, __u8 *p, size_t n)
{
	size_t l3 = 14 + (s->vlan ? 4 : 0);
	size_t l4 = l3 + (s->v6 ? 40 + 8 * (s->ext6 ? strlen(s->ext6) : 0) : 20);
	size_t seg = n - s->padding - l4;
	__u32 sum = s->v6 ? pkt_sum16(p + l3 + 8, 32, IPPROTO_TCP + (__u32)seg) :
			    pkt_sum16(p + l3 + 12, 8, IPPROTO_TCP + (__u32)seg);

	p[l4 + 16] = p[l4 + 17] = 0;
	sum = pkt_csum_fold(pkt_sum16(p + l4, seg, sum));
	p[l4 + 16] = sum >> 8;
	p[l4 + 17] = sum & 0xff;
}

static size_t seg_frame(const struct seg *s, __u8 *p, size_t cap, size_t *payload_len)
{
	__u8 pl[1500];
	size_t n;
	struct pkt_frame f = { .net = s->v6 ? PKT_IPV6 : PKT_IPV4, .proto = IPPROTO_TCP,
			       .macs = macs, .saddr = s->src ? s->src : s->v6 ? CLIENT6 : CLIENT4,
			       .daddr = s->v6 ? SERVER6 : SERVER4, .sport = 40000,
			       .dport = s->http ? 80 : 443, .seq = SEQ, .ack = ACK,
			       .doff = s->doff, .padding = s->padding, .ext6 = s->ext6 };

	if (s->vlan)
		f.tags[0] = ETH_P_8021Q;
	if (s->http) {
		n = pkt_http_get(pl, sizeof(pl), "/", "www.blocked.example", "Accept: */*\r\n");
	} else {
		struct pkt_hello h = { .sni = "blocked.example" };
		size_t sni_off;

		n = pkt_hello(&h, pl, sizeof(pl), &sni_off);
	}
	*payload_len = n;
	n = pkt_frame(&f, pl, n, p, cap);
	if (n && s->flags)
		p[n - *payload_len - s->padding - (s->doff > 5 ? s->doff * 4 : 20) + 13] = s->flags;
	if (n)
		tcp_checksum(s, p, n);
	return n;
}

static void put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void put32(__u8 *p, __u32 v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

static void swap_bytes(__u8 *a, __u8 *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		__u8 t = a[i];

		a[i] = b[i];
		b[i] = t;
	}
}

/*
 * The reset the kernel should make of the segment in (len bytes, payload_len of data):
 * the server's, or the client's (turned around: MACs, addresses and ports swapped,
 * SEQ from the segment's ACK, the ACK past its data). Its length.
 */
static size_t reference(const struct seg *s, const __u8 *in, size_t payload_len, bool client,
			__u8 *out)
{
	size_t l3 = 14 + (s->vlan ? 4 : 0), ihl = s->v6 ? 40 : 20, l4 = l3 + ihl, n = l4 + 20;
	__u8 *th = out + l4;
	__u32 sum, seq, ack;

	memcpy(out, in, n);
	seq = (__u32)th[4] << 24 | (__u32)th[5] << 16 | (__u32)th[6] << 8 | th[7];
	ack = (__u32)th[8] << 24 | (__u32)th[9] << 16 | (__u32)th[10] << 8 | th[11];
	th[12] = 5 << 4;
	th[13] = 0x14;
	put16(th + 14, 0);
	put16(th + 16, 0);
	put16(th + 18, 0);
	if (client) {
		swap_bytes(out, out + 6, 6);
		swap_bytes(th, th + 2, 2);
		put32(th + 4, ack);
		put32(th + 8, seq + (__u32)payload_len);
		swap_bytes(out + l3 + (s->v6 ? 8 : 12), out + l3 + (s->v6 ? 24 : 16), s->v6 ? 16 : 4);
	}
	if (s->v6) {
		put16(out + l3 + 4, 20);
		sum = pkt_sum16(out + l3 + 8, 32, IPPROTO_TCP + 20);
	} else {
		put16(out + l3 + 2, (__u16)(ihl + 20));
		put16(out + l3 + 10, 0);
		put16(out + l3 + 10, pkt_csum_fold(pkt_sum16(out + l3, ihl, 0)));
		sum = pkt_sum16(out + l3 + 12, 8, IPPROTO_TCP + 20);
	}
	put16(th + 16, pkt_csum_fold(pkt_sum16(th, 20, sum)));
	return n;
}

static int run_out(int fd, const __u8 *in, size_t len, __u8 *out, __u32 *out_len, __u32 *ret)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = in, .data_size_in = len,
		    .data_out = out, .data_size_out = out ? *out_len : 0, .repeat = 1);
	int err = bpf_prog_test_run_opts(fd, &opts);

	*ret = opts.retval;
	if (out)
		*out_len = opts.data_size_out;
	harness.runs++;
	return err ? -errno : 0;
}



/*
 * This test's own network namespace, its loopback up, and a packet socket on it: the
 * copies tc sends with bpf_clone_redirect() (test runs put the skb on loopback) stay
 * here, and are read back.
 */
static bool capture_open(void)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	if (!netns_own())
		return false;
	cap_fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));
	sll.sll_ifindex = (int)if_nametoindex("lo");
	return cap_fd >= 0 && !bind(cap_fd, (struct sockaddr *)&sll, sizeof(sll));
}

static void capture_drain(void)
{
	__u8 buf[2048];

	while (recv(cap_fd, buf, sizeof(buf), 0) > 0)
		;
}

/*
 * Is want among the frames captured since the last drain (vlan: want has a tag after
 * the MACs, which a frame received, not sent, holds in its metadata)? How many were.
 */
static bool captured(const __u8 *want, size_t len, bool vlan, int *frames)
{
	__u8 untagged[PKT_MAX];
	struct pollfd pfd = { .fd = cap_fd, .events = POLLIN };
	bool found = false;
	__u8 buf[2048];
	ssize_t n;

	*frames = 0;
	poll(&pfd, 1, 50);
	while ((n = recv(cap_fd, buf, sizeof(buf), 0)) > 0) {
		(*frames)++;
		if ((size_t)n == len && !memcmp(buf, want, len))
			found = true;
		else if (vlan && (size_t)n == len - 4 && len <= sizeof(untagged) &&
			 (memcpy(untagged, want, 12), memcpy(untagged + 12, want + 16, len - 16),
			  !memcmp(buf, untagged, len - 4)))
			found = true;	/* received: the tag is the skb's, not the frame's */
		else if (getenv("BB_TEST_DUMP")) {
			ssize_t i;

			printf("# frame %zd:", n);
			for (i = 0; i < n; i++)
				printf("%s%02x", i % 16 ? " " : "\n#  ", buf[i]);
			printf("\n# want %zu:", len);
			for (i = 0; i < (ssize_t)len; i++)
				printf("%s%02x", i % 16 ? " " : "\n#  ", want[i]);
			printf("\n");
		}
	}
	return found;
}

static void reset_case(enum hook hook, const struct seg *s)
{
	static const __u32 meta_magic = 0xbb7e5e70U;
	__u8 in[PKT_MAX], out[PKT_MAX + 64], want[PKT_MAX], cwant[PKT_MAX];
	__u32 out_len = sizeof(out), ret = 0, want_ret;
	size_t payload_len, len = seg_frame(s, in, sizeof(in), &payload_len), wlen, cwlen, off = 0;
	struct bb_stats before, after, d;
	char name[200], msg[400] = "";
	int fd = hook == HOOK_XDP ? xdp_fd : hook == HOOK_TC_IN ? tc_in_fd : tc_eg_fd, frames = 0;
	int err;

	snprintf(name, sizeof(name), "%s: %s, %s, %s, %s%s: the server's reset is the reference%s",
		 hook_names[hook], s->http ? "HTTP request" : "ClientHello", s->v6 ? "IPv6" : "IPv4",
		 s->vlan ? "VLAN" : "no VLAN", s->doff > 5 ? "TCP options" : "no options",
		 s->padding ? ", Ethernet padding" : "",
		 hook == HOOK_XDP ? ", the client's asked for in the metadata" :
		 ", and so is the client's copy");
	wlen = reference(s, in, payload_len, false, want);
	cwlen = reference(s, in, payload_len, true, cwant);
	harness_answer_refill();
	capture_drain();
	harness_read_stats(&before);
	err = run_out(fd, in, len, out, &out_len, &ret);
	harness_read_stats(&after);
	bb_stats_delta(&d, &after, &before);
	want_ret = hook == HOOK_XDP ? XDP_PASS : (__u32)TC_ACT_UNSPEC;
	if (err)
		appendf(msg, sizeof(msg), "test run: %s; ", strerror(-err));
	if (ret != want_ret)
		appendf(msg, sizeof(msg), "verdict %d, expected %d; ", (int)ret, (int)want_ret);
	if (hook == HOOK_XDP) {
		__u32 m[2];

		/* XDP test runs return the metadata before the frame */
		off = out_len >= wlen + 8 ? out_len - wlen : 0;
		if (off != 8)
			appendf(msg, sizeof(msg), "%zu bytes of metadata, expected 8; ", off);
		else if (memcpy(m, out, 8), m[0] != meta_magic || m[1] != payload_len)
			appendf(msg, sizeof(msg), "metadata %08x %u, expected %08x %zu; ", m[0], m[1],
				meta_magic, payload_len);
	}
	if (out_len - off != wlen || memcmp(out + off, want, wlen)) {
		size_t i;

		for (i = 0; i < wlen && i < out_len - off && out[off + i] == want[i]; i++)
			;
		appendf(msg, sizeof(msg), "%zu bytes, expected %zu; first difference at %zu "
			"(%02x%02x, expected %02x%02x); ", out_len - off, wlen, i, out[off + i],
			out[off + i + 1], want[i], i + 1 < wlen ? want[i + 1] : 0);
	}
	if (out_len - off > len)
		appendf(msg, sizeof(msg), "longer than the segment; ");
	if (hook != HOOK_XDP && !captured(cwant, cwlen, s->vlan, &frames))
		appendf(msg, sizeof(msg), "the client's reset not among the %d frames sent; ", frames);
	if (d.tcp_reset != 1 || d.dropped != 1 || d.tcp_reset_half || d.answer_unfit)
		appendf(msg, sizeof(msg), "tcp_reset +%llu dropped +%llu tcp_reset_half +%llu "
			"answer_unfit +%llu; ", (unsigned long long)d.tcp_reset,
			(unsigned long long)d.dropped, (unsigned long long)d.tcp_reset_half,
			(unsigned long long)d.answer_unfit);
	tap_result(!msg[0], name, "%s", msg);
}

static void reset_tables(void)
{
	enum hook hook;
	int v6, vlan, http, opts;

	if (!ASSERT_EQ(harness_answer_setup(lines, ANSWER_FLAGS, 0), 0,
		       "a filter with --answer reject"))
		return;
	for (hook = HOOK_XDP; hook <= HOOK_TC_EG; hook++)
		for (v6 = 0; v6 < 2; v6++)
			for (vlan = 0; vlan < 2; vlan++)
				for (http = 0; http < 2; http++)
					for (opts = 0; opts < 2; opts++) {
						struct seg s = { .v6 = v6, .vlan = vlan, .http = http,
								 .doff = opts ? 8 : 5 };

						reset_case(hook, &s);
					}
	for (hook = HOOK_XDP; hook <= HOOK_TC_EG; hook++) {
		struct seg s = { .http = true, .padding = 8 };	/* bytes past the datagram */

		reset_case(hook, &s);
	}
}

/* A blocked segment that must not be reset: dropped, counted as want says. */
static void unreset(enum hook hook, const char *what, const struct seg *s, bool unfit)
{
	__u8 in[PKT_MAX];
	__u32 ret = 0, want = hook == HOOK_XDP ? XDP_DROP : (__u32)TC_ACT_SHOT;
	size_t payload_len, len = seg_frame(s, in, sizeof(in), &payload_len);
	struct bb_stats before, after, d;
	int fd = hook == HOOK_XDP ? xdp_fd : hook == HOOK_TC_IN ? tc_in_fd : tc_eg_fd, frames;
	int err;

	harness_answer_refill();
	capture_drain();
	harness_read_stats(&before);
	err = run_out(fd, in, len, NULL, NULL, &ret);
	harness_read_stats(&after);
	bb_stats_delta(&d, &after, &before);
	captured(in, 0, false, &frames);
	tap_result(!err && ret == want && !d.tcp_reset && d.dropped == 1 &&
		   d.answer_unfit == (unfit ? 1U : 0U) && !frames, what,
		   "%s: verdict %d, tcp_reset +%llu, dropped +%llu, answer_unfit +%llu, %d frames sent",
		   hook_names[hook], (int)ret, (unsigned long long)d.tcp_reset,
		   (unsigned long long)d.dropped, (unsigned long long)d.answer_unfit, frames);
}

static void refusals(void)
{
	enum hook hook;

	if (!ASSERT_EQ(harness_answer_setup(lines, ANSWER_FLAGS, 0), 0,
		       "a filter with --answer reject"))
		return;
	for (hook = HOOK_XDP; hook <= HOOK_TC_EG; hook++) {
		struct seg listed = { .src = LISTED4 }, rst = { .flags = 0x14 }, noack = { .flags = 0x08 };
		char what[160];

		snprintf(what, sizeof(what), "%s: a listed source's ClientHello: dropped, not reset",
			 hook_names[hook]);
		if (hook != HOOK_TC_EG)
			unreset(hook, what, &listed, false);
		snprintf(what, sizeof(what), "%s: a blocked ClientHello in a RST segment: no reset "
			 "for a reset", hook_names[hook]);
		unreset(hook, what, &rst, true);
		snprintf(what, sizeof(what), "%s: ... without an ACK: none", hook_names[hook]);
		unreset(hook, what, &noack, true);
		/* the reset's IPv6 length left them out: a reset no end reads (fuzz_answer) */
		{
			struct seg ext = { .v6 = true, .ext6 = "H" };

			snprintf(what, sizeof(what), "%s: an IPv6 ClientHello behind a hop-by-hop "
				 "header: dropped, not reset", hook_names[hook]);
			unreset(hook, what, &ext, true);
		}
	}
}

/* A flood: within the answers' rate, the rest dropped, counted. */
static void flood(void)
{
	struct seg s = { 0 };
	__u8 in[PKT_MAX];
	size_t payload_len, len = seg_frame(&s, in, sizeof(in), &payload_len);
	struct bb_stats before, after, d;
	__u32 ret;
	int i, n = 1000;

	if (!ASSERT_EQ(harness_answer_setup(lines, ANSWER_FLAGS, 100), 0,
		       "a filter with --answer-rate 100"))
		return;
	harness_answer_refill();
	harness_read_stats(&before);
	for (i = 0; i < n; i++)
		run_out(xdp_fd, in, len, NULL, NULL, &ret);
	harness_read_stats(&after);
	bb_stats_delta(&d, &after, &before);
	tap_result(d.tcp_reset >= 100 && d.tcp_reset < 200 &&
		   d.answer_limited == (__u64)n - d.tcp_reset && d.dropped == (__u64)n,
		   "a flood of 1000 blocked ClientHellos at 100 answers a second: the burst reset, "
		   "the rest dropped (answer_limited)", "reset %llu, limited %llu, dropped %llu",
		   (unsigned long long)d.tcp_reset, (unsigned long long)d.answer_limited,
		   (unsigned long long)d.dropped);
}

int main(int argc, char **argv)
{
	if (!harness_begin(argc, argv, "bloomblock resets BPF_PROG_TEST_RUN"))
		return harness_end();
	if (!ASSERT_TRUE(capture_open(), "a network namespace of its own, a packet socket on lo"))
		return harness_end();
	if (!harness_load())
		return harness_end();
	xdp_fd = bpf_program__fd(harness.skel->progs.bloomblock_xdp);
	tc_in_fd = bpf_program__fd(harness.skel->progs.bloomblock_tc_ingress);
	tc_eg_fd = bpf_program__fd(harness.skel->progs.bloomblock_tc_egress);
	if (harness_subtest("resets"))
		reset_tables();
	if (harness_subtest("refusals"))
		refusals();
	if (harness_subtest("flood"))
		flood();
	printf("# %lu test runs\n", harness.runs);
	if (cap_fd >= 0)
		close(cap_fd);
	return harness_end();
}

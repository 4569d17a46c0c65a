// SPDX-License-Identifier: GPL-2.0
/*
 * BPF_PROG_TEST_RUN of --answer: a blocked DNS query through the real XDP entry
 * program (and its tail call to the answer program) comes back as its answer, byte
 * for byte the reference this file builds on its own (tests/lib/pkt.c's frame, the
 * DNS message written here, the UDP checksum computed here), for IPv4 and IPv6, with
 * and without a VLAN tag, with and without EDNS, A and AAAA, reject and sinkhole; a
 * sinkhole record that would not fit in the query becomes "no data"; the answer is
 * never longer than the query; what is not a plain query, is truncated or malformed,
 * or comes from a listed source is dropped unanswered; a flood is answered within the
 * rate and the rest dropped, counted; at tc ingress and egress the same answers,
 * redirected.
 */
#define _GNU_SOURCE	/* sched_getcpu(), CPU_SET() */
#include <arpa/inet.h>
#include <sched.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bb_names.h"
#include "filter.h"
#include "list.h"
#include "pins.h"
#include "lib/harness.h"
#include "lib/pkt.h"

#define CLIENT4		"198.51.100.2"
#define LISTED4		"198.51.100.3"
#define SERVER4		"198.51.100.1"
#define CLIENT6		"2001:db8:51::2"
#define SERVER6		"2001:db8:51::1"

#define ANSWER_FLAGS	(BB_HDR_F_DROP | BB_HDR_F_ANSWER)

static const char *const lines[] = { "blocked.example", LISTED4, NULL };
static const __u8 query_macs[12] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2 };
static const __u8 reply_macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };
static int xdp_fd, tc_fd, tc_eg_fd;
static const char *const hook_names[] = { "XDP", "tc ingress", "tc egress" };

/* What one query is. */
struct query {
	bool v6, vlan;
	__u16 qtype;		/* 1 A, 28 AAAA, 16 TXT */
	__u16 opt_len;		/* EDNS: the OPT's RDATA; 0: no EDNS */
	const char *name;
	const char *src;	/* NULL: the client */
};

static size_t query_frame(const struct query *q, __u8 *p, size_t cap, __u8 *dns, size_t *dns_len)
{
	struct pkt_dns d = { .name = q->name ? q->name : "blocked.example", .qtype = q->qtype,
			     .opt_len = q->opt_len };
	struct pkt_frame f = { .net = q->v6 ? PKT_IPV6 : PKT_IPV4, .macs = query_macs,
			       .saddr = q->src ? q->src : q->v6 ? CLIENT6 : CLIENT4,
			       .daddr = q->v6 ? SERVER6 : SERVER4, .sport = 40000, .dport = 53 };

	if (q->vlan)
		f.tags[0] = ETH_P_8021Q;
	*dns_len = pkt_dns(&d, dns, 512);
	return pkt_frame(&f, dns, *dns_len, p, cap);
}

/*
 * The answer, built here: the query's DNS message with the header's flags and counts
 * as RFC 1035 has them for this answer, the question kept, the OPT left out, the
 * sinkhole record after it where it fits; then the frame turned around, and its UDP
 * checksum.
 */
static size_t reference(const struct query *q, bool sinkhole, const __u8 *qdns, size_t qlen,
			__u8 *p, size_t cap)
{
	__u8 dns[600];
	size_t qend = BB_DNS_HDR_LEN, n, l3, l4;
	size_t rr = 0;
	int rcode = 3;
	struct pkt_frame f = { .net = q->v6 ? PKT_IPV6 : PKT_IPV4, .macs = reply_macs,
			       .saddr = q->v6 ? SERVER6 : SERVER4,
			       .daddr = q->v6 ? CLIENT6 : CLIENT4, .sport = 53, .dport = 40000 };

	while (qdns[qend])
		qend += 1 + qdns[qend];
	qend += 1 + 4;
	memcpy(dns, qdns, qend);
	if (sinkhole) {
		rcode = 0;
		rr = q->qtype == 1 || !q->qtype ? 16 : q->qtype == 28 ? 28 : 0;
		if (qend + rr > qlen)	/* no room: no data (NOERROR, no record) */
			rr = 0;
	}
	dns[2] = 0x80 | (qdns[2] & 1);
	dns[3] = 0x80 | rcode;
	dns[6] = 0;
	dns[7] = rr ? 1 : 0;
	dns[10] = dns[11] = 0;
	if (rr) {
		__u8 *a = dns + qend;

		memset(a, 0, rr);
		a[0] = 0xc0;
		a[1] = 12;
		a[3] = rr == 16 ? 1 : 28;
		a[5] = 1;
		a[9] = 2;		/* TTL 2 s */
		a[11] = rr - 12;
	}
	if (q->vlan)
		f.tags[0] = ETH_P_8021Q;
	n = pkt_frame(&f, dns, qend + rr, p, cap);
	l3 = 14 + (q->vlan ? 4 : 0);
	l4 = l3 + (q->v6 ? 40 : 20);
	/* the pseudo-header, then the datagram: the checksum over it with its field 0 */
	{
		size_t ulen = n - l4;
		__u32 s = pkt_sum16(p + l3 + (q->v6 ? 8 : 12), q->v6 ? 32 : 8, 17 + ulen);
		__u16 c = pkt_csum_fold(pkt_sum16(p + l4, ulen, s));

		c = c ? c : 0xffff;
		p[l4 + 6] = c >> 8;
		p[l4 + 7] = c & 0xff;
	}
	return n;
}

static int run_out(int fd, const __u8 *in, size_t len, __u8 *out, __u32 *out_len, __u32 *ret,
		   unsigned int repeat)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = in, .data_size_in = len,
		    .data_out = out, .data_size_out = out ? *out_len : 0,
		    .repeat = repeat ? repeat : 1);
	int err = bpf_prog_test_run_opts(fd, &opts);

	*ret = opts.retval;
	if (out)
		*out_len = opts.data_size_out;
	harness.runs += opts.repeat;
	return err ? -errno : 0;
}



/*
 * One query of the table at a hook (0 XDP, 1 tc ingress, 2 tc egress): the kernel's
 * answer against the reference. At tc the answer is redirected (out of the device at
 * ingress, into the stack at egress), which a test run reports and does not do.
 */
static void answer_case(const struct query *q, bool sinkhole, int hook)
{
	int fd = hook == 0 ? xdp_fd : hook == 1 ? tc_fd : tc_eg_fd;
	__u32 want_ret = hook ? TC_ACT_REDIRECT : XDP_TX;
	__u8 in[PKT_MAX], out[PKT_MAX], want[PKT_MAX], dns[600];
	__u32 out_len = sizeof(out), ret = 0;
	size_t dns_len, len = query_frame(q, in, sizeof(in), dns, &dns_len), wlen;
	struct bb_stats before, after, d;
	char name[160], msg[256] = "";
	int err;

	snprintf(name, sizeof(name), "%s, %s: %s, %s, %s, %s: %s", hook_names[hook],
		 sinkhole ? "sinkhole" : "reject",
		 q->v6 ? "IPv6" : "IPv4", q->vlan ? "VLAN" : "no VLAN",
		 q->opt_len > 4 ? "EDNS with padding" : q->opt_len ? "EDNS" : "no EDNS",
		 q->qtype == 28 ? "AAAA" : q->qtype == 16 ? "TXT" : "A",
		 "the answer is the reference, byte for byte");
	wlen = reference(q, sinkhole, dns, dns_len, want, sizeof(want));
	harness_read_stats(&before);
	err = run_out(fd, in, len, out, &out_len, &ret, 1);
	harness_read_stats(&after);
	bb_stats_delta(&d, &after, &before);
	if (err)
		appendf(msg, sizeof(msg), "test run: %s; ", strerror(-err));
	if (ret != want_ret)
		appendf(msg, sizeof(msg), "verdict %u, expected %u; ", ret, want_ret);
	if (out_len != wlen || memcmp(out, want, wlen)) {
		size_t i;

		for (i = 0; i < wlen && i < out_len && out[i] == want[i]; i++)
			;
		appendf(msg, sizeof(msg), "%u bytes, expected %zu; first difference at %zu; ",
			out_len, wlen, i);
	}
	if (out_len > len)
		appendf(msg, sizeof(msg), "longer than the query (%u > %zu); ", out_len, len);
	if (d.dns_answered != 1 || d.dropped != 1 || d.dns_hits != 1)
		appendf(msg, sizeof(msg), "dns_answered +%llu dropped +%llu dns_hits +%llu; ",
			(unsigned long long)d.dns_answered, (unsigned long long)d.dropped,
			(unsigned long long)d.dns_hits);
	tap_result(!msg[0], name, "%s", msg);
}

static void answer_tables(void)
{
	static const __u16 qtypes[] = { 1, 28, 16 };
	unsigned int m, v6, vlan, edns, t;
	int hook;

	for (m = 0; m < 2; m++) {
		__u32 flags = ANSWER_FLAGS | (m ? BB_HDR_F_SINKHOLE : 0);

		if (!ASSERT_EQ(harness_answer_setup(lines, flags, 1000000), 0,
			       m ? "a sinkhole filter is live" : "a reject filter is live"))
			return;
		for (v6 = 0; v6 < 2; v6++)
			for (vlan = 0; vlan < 2; vlan++)
				for (edns = 0; edns < 3; edns++)
					for (t = 0; t < sizeof(qtypes) / sizeof(qtypes[0]); t++) {
						/* EDNS 0: none; 1: a bare OPT (room for no
						 * record); 2: with 40 bytes of padding */
						struct query q = { .v6 = v6, .vlan = vlan,
							.qtype = qtypes[t],
							.opt_len = edns == 1 ? 4 :
								   edns == 2 ? 44 : 0 };

						if (!m && t == 2)
							continue;
						for (hook = 0; hook < 3; hook++)
							answer_case(&q, m, hook);
					}
	}
}

/* A frame that must get no answer: dropped (or passed: pass), answer_unfit if unfit. */
static void unanswered_as(const char *name, const __u8 *in, size_t len, bool unfit, __u32 want)
{
	__u32 ret = 0, out_len = PKT_MAX;
	__u8 out[PKT_MAX];
	struct bb_stats before, after, d;
	int err;

	harness_read_stats(&before);
	err = run_out(xdp_fd, in, len, out, &out_len, &ret, 1);
	harness_read_stats(&after);
	bb_stats_delta(&d, &after, &before);
	tap_result(!err && ret == want && !d.dns_answered && d.answer_unfit == (unfit ? 1 : 0),
		   name, "err %d, verdict %u, dns_answered +%llu, answer_unfit +%llu", err, ret,
		   (unsigned long long)d.dns_answered, (unsigned long long)d.answer_unfit);
}

static void unanswered(const char *name, const __u8 *in, size_t len, bool unfit)
{
	unanswered_as(name, in, len, unfit, XDP_DROP);
}

static void refusals(void)
{
	__u8 in[PKT_MAX], dns[600];
	struct query q = { 0 };
	size_t dns_len, len;
	struct pkt_frame f = { .net = PKT_IPV4, .macs = query_macs, .saddr = CLIENT4,
			       .daddr = SERVER4, .sport = 40000, .dport = 53 };
	struct pkt_dns d = { .name = "blocked.example" };

	if (!ASSERT_EQ(harness_answer_setup(lines, ANSWER_FLAGS, 1000000), 0,
		       "a reject filter is live again"))
		return;
	/* a listed source: the address check drops it first, no answer */
	q.src = LISTED4;
	len = query_frame(&q, in, sizeof(in), dns, &dns_len);
	unanswered("a listed source's query: dropped, not answered", in, len, false);

	/* two questions */
	d.qdcount = PKT_SET(2);
	dns_len = pkt_dns(&d, dns, sizeof(dns));
	len = pkt_frame(&f, dns, dns_len, in, sizeof(in));
	unanswered("two questions: dropped unanswered (answer_unfit)", in, len, true);

	/* an answer record in the query */
	d.qdcount = 0;
	dns_len = pkt_dns(&d, dns, sizeof(dns));
	dns[7] = 1;
	len = pkt_frame(&f, dns, dns_len, in, sizeof(in));
	unanswered("ANCOUNT 1 in a query: dropped unanswered", in, len, true);

	/* the question cut before its type and class (the UDP length says so too) */
	dns_len = pkt_dns(&d, dns, sizeof(dns));
	len = pkt_frame(&f, dns, dns_len - 3, in, sizeof(in));
	unanswered("a question cut before its class: dropped unanswered", in, len, true);

	/* IPv4 options */
	dns_len = pkt_dns(&d, dns, sizeof(dns));
	f.ihl = PKT_SET(6);
	len = pkt_frame(&f, dns, dns_len, in, sizeof(in));
	unanswered("IPv4 with options: dropped unanswered", in, len, true);
	f.ihl = 0;

	/* IPv6 extension headers: the answer's IPv6 length left them out, which made it
	 * one no client reads (found by fuzz_answer) */
	{
		static const char *const exts[] = { "H", "D", "HD", "F" };
		size_t e;

		for (e = 0; e < sizeof(exts) / sizeof(exts[0]); e++) {
			struct pkt_frame f6 = { .net = PKT_IPV6, .macs = query_macs,
						.saddr = CLIENT6, .daddr = SERVER6, .sport = 40000,
						.dport = 53, .ext6 = exts[e] };
			char what[120];

			dns_len = pkt_dns(&d, dns, sizeof(dns));
			len = pkt_frame(&f6, dns, dns_len, in, sizeof(in));
			snprintf(what, sizeof(what), "IPv6 with extension headers \"%s\": dropped "
				 "unanswered", exts[e]);
			unanswered(what, in, len, true);
		}
	}

	/* a compression pointer in the question */
	{
		static const __u8 wire[] = { 7, 'b', 'l', 'o', 'c', 'k', 'e', 'd', 0xc0, 12 };

		d.wire = wire;
		d.wire_len = sizeof(wire);
		dns_len = pkt_dns(&d, dns, sizeof(dns));
		len = pkt_frame(&f, dns, dns_len, in, sizeof(in));
		unanswered_as("a pointer in the question: its name is not read (dns_unparsed), "
			      "passed unanswered", in, len, false, XDP_PASS);
		d.wire = NULL;
	}
	/* a response is never answered: QR set */
	d.flags = PKT_SET(0x81);
	dns_len = pkt_dns(&d, dns, sizeof(dns));
	len = pkt_frame(&f, dns, dns_len, in, sizeof(in));
	{
		__u32 ret = 0;
		struct bb_stats before, after, delta;

		harness_read_stats(&before);
		run_out(xdp_fd, in, len, NULL, NULL, &ret, 1);
		harness_read_stats(&after);
		bb_stats_delta(&delta, &after, &before);
		tap_result(ret == XDP_PASS && !delta.dns_answered, "a DNS response (QR 1) for the "
			   "name is neither checked nor answered: passed", "verdict %u", ret);
	}
	d.flags = 0;
}

/*
 * A flood: answered up to the bucket (its burst), the rest dropped and counted. One
 * test run a query: a repeated run would see its own answer (a response) the second
 * time.
 */
static void flood(void)
{
	__u8 in[PKT_MAX], dns[600];
	struct query q = { 0 };
	size_t dns_len, len = query_frame(&q, in, sizeof(in), dns, &dns_len);
	struct bb_stats before, after, d;
	struct timespec t0, t1;
	cpu_set_t was, one;
	double secs;
	__u32 ret = 0;
	int i, n = 3000, cpu = sched_getcpu();

	if (!ASSERT_EQ(harness_answer_setup(lines, ANSWER_FLAGS, 100), 0,
		       "a reject filter at 100 answers a second"))
		return;
	/* the bucket is per CPU: every run on this one, or a move to another CPU would
	 * find that CPU's bucket full */
	CPU_ZERO(&one);
	CPU_SET(cpu < 0 ? 0 : cpu, &one);
	if (!ASSERT_TRUE(!sched_getaffinity(0, sizeof(was), &was) &&
			 !sched_setaffinity(0, sizeof(one), &one), "the flood pinned to one CPU"))
		return;
	harness_answer_refill();
	harness_read_stats(&before);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++)
		run_out(xdp_fd, in, len, NULL, NULL, &ret, 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	harness_read_stats(&after);
	bb_stats_delta(&d, &after, &before);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	/* the burst (100), and what refilled over the flood's time, on the coarse clock */
	tap_result(d.dns_answered >= 100 && (double)d.dns_answered <= 100 + 100 * secs + 2 &&
		   d.answer_limited == (__u64)n - d.dns_answered && d.dropped == (__u64)n,
		   "a flood of 3000 blocked queries at 100 answers a second: the burst answered "
		   "and the refill, the rest dropped (answer_limited)",
		   "answered %llu in %.3f s, limited %llu, dropped %llu",
		   (unsigned long long)d.dns_answered, secs, (unsigned long long)d.answer_limited,
		   (unsigned long long)d.dropped);

	/* the bucket refills with time (its clock is read once a tick: it moves on) */
	nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	harness_read_stats(&before);
	for (i = 0; i < 100; i++)
		run_out(xdp_fd, in, len, NULL, NULL, &ret, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	harness_read_stats(&after);
	bb_stats_delta(&d, &after, &before);
	secs = (double)(t0.tv_sec - t1.tv_sec) + (double)(t0.tv_nsec - t1.tv_nsec) / 1e9;
	tap_result(d.dns_answered >= 5 && (double)d.dns_answered <= 100 * secs + 2 &&
		   d.answer_limited == 100 - d.dns_answered,
		   "after the flood, 100 ms later: what refilled meanwhile answered (about 10), "
		   "the rest limited", "answered %llu of 100, %.3f s after the flood",
		   (unsigned long long)d.dns_answered, secs);
	sched_setaffinity(0, sizeof(was), &was);
}

int main(int argc, char **argv)
{
	if (!harness_begin(argc, argv, "bloomblock answers BPF_PROG_TEST_RUN"))
		return harness_end();
	if (!harness_load())
		return harness_end();
	xdp_fd = bpf_program__fd(harness.skel->progs.bloomblock_xdp);
	tc_fd = bpf_program__fd(harness.skel->progs.bloomblock_tc_ingress);
	tc_eg_fd = bpf_program__fd(harness.skel->progs.bloomblock_tc_egress);
	if (harness_subtest("answers"))
		answer_tables();
	if (harness_subtest("refusals"))
		refusals();
	if (harness_subtest("flood"))
		flood();
	printf("# %lu test runs\n", harness.runs);
	return harness_end();
}

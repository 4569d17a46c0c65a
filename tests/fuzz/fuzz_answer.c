// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the answer builders. The kernel program's own code (its userspace build,
 * tests/fuzz/bpf_prog.h) with --answer reject or sinkhole, on any frame: through the
 * entry program (a listed name's query is answered, a listed TLS or HTTP connection
 * reset) or straight into the DNS answer program or the reset program at XDP, tc
 * ingress or tc egress; and the tests' own reference builders (tests/lib/ref.c) on
 * the same frame. Either the program refuses (dropped, counted unfit or limited) or
 * what it sends is never longer than the frame, its checksums hold, and it is byte
 * for byte what the reference builds; and the reference answers exactly where the
 * program does. An abort otherwise. At tc a reset's checksums are the input's
 * adjusted, as the kernel's helpers keep an offloaded one: they hold when the
 * input's did, and are not compared when they did not.
 *
 * The first byte: the hook (bits 0-1), sinkhole (2), straight into a program (3),
 * which one: the reset program (4), XDP without metadata (5, the reset turned
 * around there); the rest the frame.
 */
#include "bpf_prog.h"

#include "lib/ref.h"

static const char *const lines[] = {
	"blocked.example", "*.wild.example", "198.51.100.3", "2001:db8:bad::/48",
	"url.example/bad/", "@@ok.blocked.example", NULL,
};

static struct bb_prog_image images[2];

static void use_filter(bool sinkhole)
{
	char msg[256];

	if (!images[sinkhole].blocks &&
	    bb_prog_build(lines, BB_HDR_F_DROP | BB_HDR_F_ANSWER |
			  (sinkhole ? BB_HDR_F_SINKHOLE : 0), NULL, &images[sinkhole], msg,
			  sizeof(msg))) {
		fprintf(stderr, "fuzz_answer: %s\n", msg);
		abort();
	}
	bb_prog_use(&images[sinkhole]);
}

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_answer: %s\n", what);
	abort();
}

static void hexdump(const char *what, const __u8 *p, size_t n)
{
	size_t i;

	fprintf(stderr, "%s, %zu bytes:", what, n);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s%02x", i % 32 ? "" : "\n  ", p[i]);
	fprintf(stderr, "\n");
}

/* got (n bytes) against want (wn): ref_differs() */
static void same(const __u8 *got, size_t n, const __u8 *want, size_t wn, bool exact,
		 const char *what)
{
	long at = ref_differs(got, n, want, wn, exact);

	if (at < 0)
		return;
	fprintf(stderr, "fuzz_answer: %zu bytes, the reference %zu; byte %ld differs\n", n, wn,
		at);
	hexdump("got", got, n);
	hexdump("want", want, wn);
	fail(what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static __u8 want[2048 + 64], want2[2048 + 64];
	enum bb_prog_hook hook;
	struct bb_prog_run run;
	bool sinkhole, direct, reset, no_meta, tc, sums_in;
	size_t wn, wn2;
	void *prog = NULL;
	unsigned int mode;

	if (size < 1 + 14 || size > 1 + 2048)
		return 0;
	mode = data[0];
	hook = (enum bb_prog_hook)((mode & 3) % BB_PROG_HOOKS);
	tc = hook != BB_PROG_XDP;
	sinkhole = mode & 4;
	direct = mode & 8;
	reset = mode & 16;
	no_meta = mode & 32;
	data++;
	size--;
	use_filter(sinkhole);
	if (direct && reset)
		prog = tc ? (void *)bloomblock_tc_reset : (void *)bloomblock_xdp_reset;
	else if (direct)
		prog = hook == BB_PROG_XDP ? (void *)bloomblock_xdp_answer :
		       hook == BB_PROG_TC_INGRESS ? (void *)bloomblock_tc_answer_ingress :
		       (void *)bloomblock_tc_answer_egress;
	bb_prog_forget();
	bb_prog_run_prog(hook, prog, no_meta, data, size, &run);

	if (run.len > size || run.clone_len > size)
		fail("an answer longer than the frame");
	if (run.d.answer_limited)
		fail("limited, with a full bucket");
	sums_in = ref_checksums_ok(data, size);

	/* a DNS answer: the reference's, byte for byte */
	wn = ref_dns_answer(data, size, sinkhole, want, sizeof(want));
	if (run.d.dns_answered) {
		if (run.ret != (tc ? TC_ACT_REDIRECT : XDP_TX))
			fail("answered, not sent back");
		if (!wn)
			fail("answered where the reference does not answer");
		same(run.data, run.len, want, wn, true, "the answer is not the reference's");
		if (!ref_checksums_ok(run.data, run.len))
			fail("an answer's checksums do not hold");
	} else if (wn && (direct ? !reset : run.d.answer_unfit)) {
		/* the answer program ran (through the entry only for a UDP query), refused */
		fail("refused where the reference answers");
	}

	/* a reset: the server's in place (and at tc the client's, a copy), or at XDP
	 * without metadata the client's turned around */
	wn = ref_tcp_reset(data, size, tc ? REF_RESET_SERVER_TC : no_meta ? REF_RESET_CLIENT_XDP :
			   REF_RESET_SERVER, want, sizeof(want));
	if (run.d.tcp_reset) {
		if (!wn)
			fail("reset where the reference does not");
		same(run.data, run.len, want, wn, !tc || sums_in, "the reset is not the reference's");
		if ((!tc || sums_in) && !ref_checksums_ok(run.data, run.len))
			fail("a reset's checksums do not hold");
		if (!tc && run.ret != (no_meta ? XDP_TX : XDP_PASS))
			fail("a reset's verdict");
		if (!tc && !no_meta && (run.meta_len != 8 || run.d.tcp_reset_half))
			fail("the client's reset not asked of tc");
		if (tc) {
			if (run.ret != TC_ACT_UNSPEC || !run.clone)
				fail("a tc reset without the client's");
			wn2 = ref_tcp_reset(data, size, REF_RESET_CLIENT_TC, want2, sizeof(want2));
			same(run.clone, run.clone_len, want2, wn2, sums_in,
			     "the client's reset is not the reference's");
		}
	} else if (wn && (direct ? reset : run.d.answer_unfit)) {
		fail("not reset where the reference resets");
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* XXH64 of include/bb_hash.h, run in the kernel and in userspace, against libxxhash. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xxhash.h>

#include "bb_hash.h"
#include "rng.h"
#include "tap.h"
#include "xxhash_test.skel.h"

/* 257 lengths x 40 inputs = 10,280 inputs, each hashed by BPF, bb_xxh64() and XXH64(). */
#define INPUTS_PER_LENGTH	40
#define MIN_INPUTS		10000

/*
 * Lengths grouped by the code path of bb_xxh64() they exercise: no input, the
 * byte tail, the 4-byte tail, 8-byte lanes, one 32-byte stripe, several stripes,
 * and BB_KEY_MAX itself (every stripe of the bounded loop).
 */
struct length_bucket {
	const char *name;
	__u32 lo, hi;
};

static const struct length_bucket buckets[] = {
	{ "length 0",				0,	0 },
	{ "lengths 1..3 (byte tail)",		1,	3 },
	{ "lengths 4..7 (4-byte tail)",		4,	7 },
	{ "lengths 8..31 (8-byte lanes)",	8,	31 },
	{ "lengths 32..63 (one stripe)",	32,	63 },
	{ "lengths 64..255 (several stripes)",	64,	255 },
	{ "length 256 (BB_KEY_MAX)",		256,	256 },
};

static __u64 rng_state;

/* splitmix64: reproducible from the seed printed with any failure */
static __u64 rng_next(void)
{
	return splitmix64(&rng_state);
}

/*
 * Input number i of a length: the first few are edge cases (seed 0, all-ones seed,
 * zero bytes, 0xff bytes), the rest random. Bytes past len are random too, so an
 * implementation that reads past the key would disagree with XXH64().
 */
static void make_input(__u8 *buf, unsigned int i, __u64 *seed)
{
	size_t j;

	for (j = 0; j < BB_HASH_BUF; j++)
		buf[j] = (__u8)rng_next();
	switch (i) {
	case 0:
		*seed = 0;
		break;
	case 1:
		*seed = ~0ULL;
		break;
	case 2:
		*seed = rng_next();
		memset(buf, 0, BB_KEY_MAX);
		break;
	case 3:
		*seed = 0;
		memset(buf, 0xff, BB_KEY_MAX);
		break;
	default:
		*seed = i % 8 == 4 ? 0 : rng_next();
		break;
	}
}

static int run_prog(int prog_fd, __u32 *retval)
{
	__u8 packet[64] = {};	/* an XDP test run wants at least an Ethernet header */
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = packet,
		.data_size_in = sizeof(packet),
		.repeat = 1,
	);
	int err = bpf_prog_test_run_opts(prog_fd, &opts);

	*retval = opts.retval;
	return err;
}

/* First mismatch of one implementation in one bucket. */
struct mismatch {
	unsigned int count;
	unsigned int not_run;	/* inputs whose test run failed: nothing compared */
	__u32 len;
	__u64 seed, got, want;
	__u8 head[8];
};

static void note_mismatch(struct mismatch *m, const __u8 *buf, __u32 len, __u64 seed, __u64 got,
			  __u64 want)
{
	if (!m->count++) {
		m->len = len;
		m->seed = seed;
		m->got = got;
		m->want = want;
		memcpy(m->head, buf, sizeof(m->head));
	}
}

static void report(const char *impl, const struct length_bucket *b, const struct mismatch *m,
		   unsigned int inputs, __u64 rng_seed)
{
	char name[128];

	snprintf(name, sizeof(name), "%s equals XXH64() for %s, %u inputs", impl, b->name, inputs);
	tap_result(!m->count && !m->not_run, name,
		   "%u not run; %u mismatches; first: len %u seed %#llx: got %#llx, XXH64 %#llx; "
		   "input starts %02x %02x %02x %02x %02x %02x %02x %02x (BB_TEST_SEED=%llu)",
		   m->not_run, m->count, m->len, (unsigned long long)m->seed,
		   (unsigned long long)m->got, (unsigned long long)m->want, m->head[0], m->head[1],
		   m->head[2], m->head[3], m->head[4], m->head[5], m->head[6], m->head[7],
		   (unsigned long long)rng_seed);
}

int main(void)
{
	const char *env = getenv("BB_TEST_SEED");
	__u64 rng_seed = env ? strtoull(env, NULL, 0) : 0x626c6f6f6dULL;
	unsigned int total = 0, run_failures = 0, lengths_seen = 0;
	int first_run_err = 0, prog_fd;
	__u32 first_bad_retval = 0, retval;
	struct xxhash_test *skel;
	__u8 buf[BB_HASH_BUF];
	size_t bi;
	int err;

	tap_plan_header();
	rng_state = rng_seed;

	/* The reference itself: the published XXH64 test vector of the empty input. */
	ASSERT_EQ(XXH64("", 0, 0), 0xef46db3751d8e999ULL, "libxxhash XXH64(\"\", 0) test vector");

	if (!tap_need_root("xxhash BPF_PROG_TEST_RUN"))
		return tap_finish();
	skel = xxhash_test__open_and_load();
	if (!ASSERT_TRUE(skel, "xxhash_test skeleton loads"))
		return tap_finish();
	prog_fd = bpf_program__fd(skel->progs.xxhash_test);

	for (bi = 0; bi < sizeof(buckets) / sizeof(buckets[0]); bi++) {
		const struct length_bucket *b = &buckets[bi];
		struct mismatch bpf_mm = {}, user_mm = {};
		unsigned int inputs = 0, i;
		__u32 len;

		for (len = b->lo; len <= b->hi; len++, lengths_seen++) {
			for (i = 0; i < INPUTS_PER_LENGTH; i++, inputs++) {
				__u64 seed, want, got;

				make_input(buf, i, &seed);
				want = XXH64(buf, len, seed);

				got = bb_xxh64(buf, len, seed);
				if (got != want)
					note_mismatch(&user_mm, buf, len, seed, got, want);

				memcpy(skel->bss->input, buf, sizeof(buf));
				skel->bss->input_len = len;
				skel->bss->seed = seed;
				/* a run that writes no result mismatches */
				skel->bss->result = ~want;
				err = run_prog(prog_fd, &retval);
				if (err || retval != XDP_PASS) {
					bpf_mm.not_run++;
					if (!run_failures++) {
						first_run_err = err;
						first_bad_retval = retval;
					}
					continue;
				}
				got = skel->bss->result;
				if (got != want)
					note_mismatch(&bpf_mm, buf, len, seed, got, want);
			}
		}
		total += inputs;
		report("BPF bb_xxh64()", b, &bpf_mm, inputs, rng_seed);
		report("userspace bb_xxh64()", b, &user_mm, inputs, rng_seed);
	}

	tap_result(!run_failures, "every BPF test run succeeds with XDP_PASS",
		   "%u runs failed; first: err %d (%s), retval %u", run_failures, first_run_err,
		   strerror(-first_run_err), first_bad_retval);
	tap_result(total >= MIN_INPUTS && lengths_seen == BB_KEY_MAX + 1,
		   "at least 10,000 inputs, every length 0..256",
		   "%u inputs over %u lengths", total, lengths_seen);

	/* The program's own bound: a length past BB_KEY_MAX is refused, not hashed. */
	skel->bss->input_len = BB_KEY_MAX + 1;
	skel->bss->result = 0x5a5a5a5a5a5a5a5aULL;
	err = run_prog(prog_fd, &retval);
	ASSERT_TRUE(!err && retval == XDP_ABORTED && skel->bss->result == 0x5a5a5a5a5a5a5a5aULL,
		    "length BB_KEY_MAX + 1 is refused (XDP_ABORTED, result untouched)");

	xxhash_test__destroy(skel);
	return tap_finish();
}

// SPDX-License-Identifier: GPL-2.0
/* Filter sizing, prefix planning, building: no false negatives, and the FPR we print. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "bb_hash.h"
#include "filter.h"
#include "rng.h"
#include "tap.h"

/* Keys per property test: 1M; BB_QUICK=1 (valgrind, sanitizers) takes 50k. */
static size_t n_keys = 1000000;

static __u64 rng_state = 0x9e3779b97f4a7c15ULL;

static __u64 rnd(void)
{
	return splitmix64(&rng_state);
}

/* A list built by hand: bb_filter_build only reads entries and n. */
struct test_list {
	struct bb_list list;
	char *text;
};

static void test_list_alloc(struct test_list *tl, size_t n, size_t text_bytes)
{
	memset(tl, 0, sizeof(*tl));
	tl->list.entries = calloc(n, sizeof(struct bb_entry));
	tl->text = text_bytes ? malloc(text_bytes) : NULL;
}

static void test_list_free(struct test_list *tl)
{
	free(tl->list.entries);
	free(tl->text);
}

static struct bb_block *build_image(struct bb_filter *f, const struct bb_list *list, double fpr,
				    int *err)
{
	struct bb_filter_opts opts = { .fpr = fpr, .seed = 42, .flags = BB_HDR_F_DROP };
	struct bb_block *image;

	*err = bb_filter_build(f, list, &opts);
	if (*err)
		return NULL;
	image = malloc(bb_filter_elements(f->hdr.nblocks, f->hdr.allow_blocks) * BB_BLOCK_BYTES);
	if (image)
		bb_filter_write_image(f, image);
	return image;
}

static void test_plan(void)
{
	struct bb_plan plan;
	int err;

	err = bb_plan_make(1000000, 0.001, &plan);
	ASSERT_EQ(err, 0, "plan-1M-0.1%");
	tap_result(plan.fpr <= 0.001, "plan-meets-target", "fpr %g", plan.fpr);
	tap_result(plan.bits_per_key <= 16, "plan-at-most-16-bits-per-key", "%.2f bits/key",
		   plan.bits_per_key);
	tap_result(bb_blocked_fpr(1000000, plan.nblocks - 1, plan.k) > 0.001, "plan-is-smallest",
		   "one block fewer still meets the target");
	tap_result(plan.fpr > plan.classic_fpr, "blocked-fpr-above-classic",
		   "blocked %g classic %g", plan.fpr, plan.classic_fpr);
	tap_result(plan.hash_map_bytes > 40 * (plan.bits / 8), "plan-40x-below-hash-map",
		   "hash map %llu bytes, filter bits %llu bytes", (unsigned long long)plan.hash_map_bytes,
		   (unsigned long long)plan.bits / 8);
	/* The kernel's own accounting, read off bpftool on this kernel for 1024 and 2^20. */
	ASSERT_EQ(bb_hash_map_bytes(1024, 8, 4), 82960, "hash-map-bytes-1024");
	ASSERT_EQ(bb_hash_map_bytes(1048576, 8, 4), 83887120, "hash-map-bytes-1M");
	ASSERT_EQ(bb_plan_make(10, 0, &plan), -EINVAL, "plan-rejects-fp-0");
	ASSERT_EQ(bb_plan_make(10, 1, &plan), -EINVAL, "plan-rejects-fp-1");
	err = bb_plan_make(0, 0.001, &plan);
	tap_result(!err && plan.nblocks == 1, "plan-empty", "err %d blocks %u", err,
		   plan.nblocks);
	/* split blocks: one bit per word down to ~0.02%, two below (docs/DESIGN.md) */
	err = bb_plan_make(1000000, 0.001, &plan);
	tap_result(!err && plan.k == 8, "plan-k8-at-0.1%", "k %u", plan.k);
	err = bb_plan_make(1000000, 0.0001, &plan);
	tap_result(!err && plan.k == 16, "plan-k16-at-0.01%", "k %u", plan.k);
	tap_result(bb_blocked_fpr(1000000, plan.nblocks, 8) > 0.0001, "plan-k16-is-smaller",
		   "k=8 at k=16's size: fpr %g", bb_blocked_fpr(1000000, plan.nblocks, 8));
	tap_result(bb_blocked_fpr(1000, 100, 9) == 1 && bb_blocked_fpr(1000, 100, 4) == 1,
		   "fpr-of-unsupported-k-is-1", "k must be 8 or 16");
}

static const struct plen_case {
	const char *name;
	unsigned int width;
	struct { unsigned int plen; __u64 count; } in[8];
	unsigned int want[BB_MAX_PLENS];	/* 0-terminated, longest first */
	__u64 want_short;
	int want_err;
} plen_cases[] = {
	{ "plens-v4-hosts-only", 32, { { 32, 1000 } }, { 32 }, 0, 0 },
	{ "plens-v4-one-24", 32, { { 32, 1000 }, { 24, 1 } }, { 32 }, 0, 0 },
	{ "plens-v4-many-24s", 32, { { 32, 1000 }, { 24, 100000 } }, { 32, 24 }, 0, 0 },
	{ "plens-v4-short", 32, { { 3, 1 }, { 8, 2 }, { 32, 10 } }, { 32 }, 3, 0 },
	{ "plens-v4-only-short", 32, { { 8, 5 } }, { 0 }, 5, 0 },
	{ "plens-v6-spread", 128, { { 128, 100 }, { 64, 100 }, { 48, 100 }, { 32, 100 } },
	  { 128, 64, 48, 32 }, 0, 0 },
	{ "plens-v6-short-16", 128, { { 128, 1 }, { 96, 1 }, { 64, 1 }, { 40, 1 }, { 10, 1 },
				      { 16, 1 } }, { 128, 96, 64, 40 }, 2, 0 },
	/* five lengths 25 apart: any merge expands one prefix 2^25 times, past the cap */
	{ "plens-v6-too-spread", 128, { { 117, 1 }, { 92, 1 }, { 67, 1 }, { 42, 1 }, { 17, 1 } },
	  { 0 }, 0, -E2BIG },
};

static void test_plen_plan(void)
{
	size_t c;

	for (c = 0; c < sizeof(plen_cases) / sizeof(plen_cases[0]); c++) {
		const struct plen_case *pc = &plen_cases[c];
		__u64 counts[129] = { 0 };
		struct bb_plen_plan plan;
		unsigned int i, n = 0;
		bool same = true;
		int err;

		for (i = 0; i < 8 && pc->in[i].count; i++)
			counts[pc->in[i].plen] = pc->in[i].count;
		err = bb_plen_plan_make(counts, pc->width, &plan);
		while (n < BB_MAX_PLENS && pc->want[n])
			n++;
		if (!err) {
			same = plan.n_plens == n && plan.short_prefixes == pc->want_short;
			for (i = 0; same && i < n; i++)
				same = plan.plens[i] == pc->want[i];
		}
		tap_result(err == pc->want_err && (err || same), pc->name,
			   "err %d (want %d), %u lengths (want %u), first /%u, short %llu", err,
			   pc->want_err, plan.n_plens, n, plan.plens[0],
			   (unsigned long long)plan.short_prefixes);
	}
}

/* 1M random keys of each kind in, every one found: a Bloom filter never forgets. */
static void test_no_false_negatives(double fpr)
{
	static const char *const names[] = { "ipv4", "ipv6", "name", "url" };
	enum bb_entry_kind kind;

	for (kind = BB_ENTRY_IP4; kind < BB_ENTRY_KIND_MAX; kind++) {
		struct test_list tl;
		struct bb_filter f;
		struct bb_block *image;
		size_t i, misses = 0, first_miss = 0;
		char *t;
		char tname[64];
		int err;

		test_list_alloc(&tl, n_keys, (size_t)n_keys * 48);
		t = tl.text;
		for (i = 0; i < n_keys; i++) {
			struct bb_entry *e = &tl.list.entries[i];
			__u64 r = rnd(), r2 = rnd();

			e->kind = kind;
			if (kind == BB_ENTRY_IP4) {
				e->plen = 32;
				memcpy(e->addr, &r, 4);
			} else if (kind == BB_ENTRY_IP6) {
				e->plen = 128;
				memcpy(e->addr, &r, 8);
				memcpy(e->addr + 8, &r2, 8);
			} else {
				e->text = t;
				t += sprintf(t, kind == BB_ENTRY_NAME ? "h%llx.x%llx.example" :
					     "h%llx.test/p/%llx", (unsigned long long)(r >> 20),
					     (unsigned long long)(r2 >> 40)) + 1;
			}
		}
		tl.list.n = n_keys;
		image = build_image(&f, &tl.list, fpr, &err);
		for (i = 0; image && i < n_keys; i++) {
			if (!bb_image_match_entry(image, &tl.list.entries[i]) && !misses++)
				first_miss = i;
		}
		snprintf(tname, sizeof(tname), "no-false-negatives-%zuk-%s-k%u", n_keys / 1000,
			 names[kind], image ? f.plan.k : 0);
		tap_result(image && misses == 0, tname, "err %d, %zu of %zu listed %s not found "
			   "(first: #%zu)", err, misses, n_keys, names[kind], first_miss);
		free(image);
		bb_filter_free(&f);
		test_list_free(&tl);
	}
}

/* Random CIDRs of every length: every address inside hits, the neighbours outside don't. */
static void test_prefixes(void)
{
	struct test_list tl;
	struct bb_filter f;
	struct bb_block *image;
	size_t i, n = 20000, misses = 0, outside_hits = 0, outside = 0;
	int err;

	test_list_alloc(&tl, n, 0);
	for (i = 0; i < n; i++) {
		struct bb_entry *e = &tl.list.entries[i];
		__u32 a = (__u32)rnd(), plen = 9 + rnd() % 24;	/* /9../32 */

		a &= plen == 32 ? ~0U : ~(~0U >> plen);
		e->kind = BB_ENTRY_IP4;
		e->plen = plen;
		a = __builtin_bswap32(a);
		memcpy(e->addr, &a, 4);
	}
	tl.list.n = n;
	image = build_image(&f, &tl.list, 0.001, &err);
	for (i = 0; image && i < n; i++) {
		const struct bb_entry *e = &tl.list.entries[i];
		__u32 base, last, inside, x;

		memcpy(&base, e->addr, 4);
		base = __builtin_bswap32(base);
		last = base | (e->plen == 32 ? 0 : ~0U >> e->plen);
		inside = base + (__u32)(rnd() % ((__u64)last - base + 1));
		x = __builtin_bswap32(base);
		misses += !bb_image_match_ip4(image, (__u8 *)&x);
		x = __builtin_bswap32(last);
		misses += !bb_image_match_ip4(image, (__u8 *)&x);
		x = __builtin_bswap32(inside);
		misses += !bb_image_match_ip4(image, (__u8 *)&x);
		misses += !bb_image_match_entry(image, e);
		x = __builtin_bswap32(last + 1);	/* may be inside another prefix: counted only */
		outside++;
		outside_hits += bb_image_match_ip4(image, (__u8 *)&x);
	}
	tap_result(image && misses == 0, "cidr-every-length-no-false-negatives",
		   "err %d, %zu misses", err, misses);
	tap_result(image && f.v4.n_plens <= BB_MAX_PLENS, "cidr-bounded-probes",
		   "%u probe lengths", f.v4.n_plens);
	/* Random /9s cover 1/512 of the space each, so many neighbours are listed too. */
	tap_result(outside_hits < outside, "cidr-neighbours-not-all-listed", "%zu of %zu",
		   outside_hits, outside);
	free(image);
	bb_filter_free(&f);
	test_list_free(&tl);
}

/*
 * The FPR we print is the FPR users get: hits of n non-members against the plan's
 * prediction. Tolerance: the measured count is binomial around the prediction, so
 * |measured - predicted| <= 5 sigma, plus 3% of the prediction for the model's
 * approximations.
 */
static void fpr_result(const char *name, bool built, size_t hits, size_t n,
		       const struct bb_plan *plan)
{
	double measured = (double)hits / n, predicted = plan->fpr;
	double tolerance = 5 * sqrt(predicted * (1 - predicted) / n) + 0.03 * predicted;

	tap_result(built && fabs(measured - predicted) <= tolerance, name,
		   "measured %.6f, predicted %.6f (k=%u, %.2f bits/key), tolerance %.6f", measured,
		   predicted, plan->k, plan->bits_per_key, tolerance);
}

/* Names and URLs: 1M members, 1M non-members, one key per lookup. */
static void test_fpr(bool names, double target)
{
	struct test_list tl;
	struct bb_filter f;
	struct bb_block *image;
	size_t i, hits = 0, n = n_keys;
	char *t, name[64];
	int err;

	test_list_alloc(&tl, n, n * 24);
	t = tl.text;
	for (i = 0; i < n; i++) {
		tl.list.entries[i].kind = names ? BB_ENTRY_NAME : BB_ENTRY_URL;
		tl.list.entries[i].text = t;
		t += sprintf(t, names ? "m%zu.example" : "m%zu.example/", i) + 1;
	}
	tl.list.n = n;
	image = build_image(&f, &tl.list, target, &err);
	for (i = 0; image && i < n; i++) {
		__u8 key[BB_KEY_MAX];
		char buf[32];
		int len = sprintf(buf, names ? "n%zu.test" : "n%zu.test/", i);

		hits += bb_image_match_key(image, key, bb_key_text(key, names ? BB_KEY_NAME :
								   BB_KEY_URL, buf, len));
	}
	snprintf(name, sizeof(name), "fpr-%s-measured-matches-predicted-at-%g",
		 names ? "names" : "urls", target);
	fpr_result(name, image, hits, n, &f.plan);
	snprintf(name, sizeof(name), "fpr-%s-predicted-meets-target-%g", names ? "names" : "urls",
		 target);
	tap_result(f.plan.fpr <= target, name, "predicted %g", f.plan.fpr);
	free(image);
	bb_filter_free(&f);
	test_list_free(&tl);
}

/* A measured rate against a predicted one: within 5 sigma and 10%. */
static void rate_result(const char *name, bool built, size_t hits, size_t n, double predicted,
			double asked)
{
	double measured = (double)hits / n;
	double tolerance = 5 * sqrt(predicted * (1 - predicted) / n) + 0.1 * predicted;

	tap_result(built && fabs(measured - predicted) <= tolerance && predicted <= asked * 1.0001,
		   name, "measured %.6f, predicted %.6f, asked %g, tolerance %.6f", measured,
		   predicted, asked, tolerance);
}

/*
 * --fp is the rate of one check of a packet at its most probes: a filter of addresses,
 * names and URLs at 1% is asked with non-members that probe the most keys (names of
 * 12 labels: 10 probes; URLs of 6-label hosts and 4-directory paths with a query: the
 * host's 10, then 5 x 6), through the kernel's own enumeration (bb_image_match_entry).
 */
static void test_fpr_per_check(void)
{
	size_t n = n_keys / 10, queries = n_keys / 5, i, hits[BB_CHECK_MAX] = { 0 };
	struct bb_filter_opts opts = { .fpr = 0.01, .seed = 7 };
	struct test_list tl;
	struct bb_filter f;
	struct bb_block *image = NULL;
	char *t, text[200];
	int err;

	test_list_alloc(&tl, 3 * n, 3 * n * 40);
	for (i = 0, t = tl.text; i < 3 * n; i++) {
		struct bb_entry *e = &tl.list.entries[i];
		__u32 x = htonl(0x0a000000U + (__u32)i);

		if (i % 3 == 0) {
			e->kind = BB_ENTRY_IP4;
			e->plen = 32;
			memcpy(e->addr, &x, 4);
			continue;
		}
		e->kind = i % 3 == 1 ? BB_ENTRY_NAME : BB_ENTRY_URL;
		e->text = t;
		t += sprintf(t, i % 3 == 1 ? "m%zu.example" : "u%zu.example/x/", i) + 1;
	}
	tl.list.n = 3 * n;
	err = bb_filter_build(&f, &tl.list, &opts);
	if (!err) {
		image = malloc(bb_filter_elements(f.hdr.nblocks, f.hdr.allow_blocks) *
			       BB_BLOCK_BYTES);
		if (image)
			bb_filter_write_image(&f, image);
	}
	tap_result(image && f.plan.check_probes[BB_CHECK_ADDR] == 1 &&
		   f.plan.check_probes[BB_CHECK_NAME] == BB_NAME_PROBES &&
		   f.plan.check_probes[BB_CHECK_URL] == BB_NAME_PROBES + BB_URL_PROBES,
		   "per check: a mixed filter's checks probe 1, 10 and 40 keys at most",
		   "err %d; %u, %u, %u", err, f.plan.check_probes[0], f.plan.check_probes[1],
		   f.plan.check_probes[2]);
	for (i = 0; image && i < queries; i++) {
		struct bb_entry q = { .kind = BB_ENTRY_IP4, .plen = 32 };
		__u32 x = htonl(0x0b000000U + (__u32)i);

		memcpy(q.addr, &x, 4);
		hits[BB_CHECK_ADDR] += bb_image_match_entry(image, &q);
		snprintf(text, sizeof(text), "a%zu.b.c.d.e.f.g.h.i.j.k.q%zu.test", i, i);
		q = (struct bb_entry){ .kind = BB_ENTRY_NAME, .text = text };
		hits[BB_CHECK_NAME] += bb_image_match_entry(image, &q);
		snprintf(text, sizeof(text), "h%zu.s.t.u.v.w%zu.test/a/b/c/d/page?q=%zu", i, i, i);
		q = (struct bb_entry){ .kind = BB_ENTRY_URL, .text = text };
		hits[BB_CHECK_URL] += bb_image_match_entry(image, &q);
	}
	rate_result("per check: random addresses hit at the predicted address rate, <= 1%",
		    image, hits[BB_CHECK_ADDR], queries, f.plan.check_fpr[BB_CHECK_ADDR], 0.01);
	rate_result("per check: random 12-label names hit at the predicted name rate, <= 1%",
		    image, hits[BB_CHECK_NAME], queries, f.plan.check_fpr[BB_CHECK_NAME], 0.01);
	rate_result("per check: random deep URLs hit at the predicted URL rate, <= 1%", image,
		    hits[BB_CHECK_URL], queries, f.plan.check_fpr[BB_CHECK_URL], 0.01);
	tap_result(image && fabs(bb_image_key_fpr(image) - f.plan.fpr) < 0.2 * f.plan.fpr,
		   "per check: the key rate from the bits set is the predicted one, within 20%",
		   "from the bits %g, predicted %g", image ? bb_image_key_fpr(image) : 0,
		   f.plan.fpr);
	free(image);
	if (!err)
		bb_filter_free(&f);
	test_list_free(&tl);
}

/* --capacity: sized for more keys than it holds, at a lower rate for those it holds. */
static void test_capacity(void)
{
	struct bb_filter_opts opts = { .fpr = 0.001, .seed = 7 }, big = opts;
	struct bb_filter f, g;
	struct test_list tl;
	size_t i, n = 10000;
	int err;

	test_list_alloc(&tl, n, 1);
	for (i = 0; i < n; i++) {
		__u32 x = htonl(0x0a000000U + (__u32)i);

		tl.list.entries[i].kind = BB_ENTRY_IP4;
		tl.list.entries[i].plen = 32;
		memcpy(tl.list.entries[i].addr, &x, 4);
	}
	tl.list.n = n;
	big.capacity = 4 * n;
	err = bb_filter_build(&f, &tl.list, &opts);
	err = err ?: bb_filter_build(&g, &tl.list, &big);
	tap_result(!err && g.hdr.nblocks > 3 * f.hdr.nblocks && g.plan.capacity == 4 * n &&
		   g.hdr.items == n && g.plan.fpr < f.plan.fpr / 10,
		   "--capacity 4N: about 4x the blocks, the keys it holds at a far lower rate",
		   "blocks %u vs %u, fpr %g vs %g", g.hdr.nblocks, f.hdr.nblocks, g.plan.fpr,
		   f.plan.fpr);
	if (!err) {
		bb_filter_free(&f);
		bb_filter_free(&g);
	}
	test_list_free(&tl);
}

/*
 * The same for the address hash (fmix64, not XXH64), on the most regular input
 * there is: members a run of consecutive addresses, non-members the run right
 * after it, so that members and non-members differ in the last bits only.
 */
static void test_fpr_addr(bool v4, double target)
{
	struct test_list tl;
	struct bb_filter f;
	struct bb_block *image;
	size_t i, hits = 0, n = n_keys;
	char name[64];
	int err;

	test_list_alloc(&tl, n, 1);
	for (i = 0; i < n; i++) {
		struct bb_entry *e = &tl.list.entries[i];
		__u32 x = htonl(0x0a000000U + (__u32)i);	/* 10.0.0.0 up */

		e->kind = v4 ? BB_ENTRY_IP4 : BB_ENTRY_IP6;
		e->plen = v4 ? 32 : 128;
		if (!v4) {
			e->addr[0] = 0x20;		/* 2001:db8::/32 up */
			e->addr[1] = 0x01;
			e->addr[2] = 0x0d;
			e->addr[3] = 0xb8;
		}
		memcpy(e->addr + (v4 ? 0 : 12), &x, 4);
	}
	tl.list.n = n;
	image = build_image(&f, &tl.list, target, &err);
	for (i = 0; image && i < n; i++) {
		__u8 addr[16] = { 0x20, 0x01, 0x0d, 0xb8 };
		__u32 x = htonl(0x0a000000U + (__u32)(n + i));

		memcpy(addr + (v4 ? 0 : 12), &x, 4);
		hits += v4 ? bb_image_match_ip4(image, addr) : bb_image_match_ip6(image, addr);
	}
	snprintf(name, sizeof(name), "fpr-%s-consecutive-matches-predicted-at-%g",
		 v4 ? "ipv4" : "ipv6", target);
	fpr_result(name, image, hits, n, &f.plan);
	free(image);
	bb_filter_free(&f);
	test_list_free(&tl);
}

/* The header's XXH64 compiled for userspace equals libxxhash on every length. */
static void test_hash_userspace(void)
{
	__u8 buf[BB_HASH_BUF] = { 0 };
	size_t len, rep, bad = 0, bad_len = 0;

	for (len = 0; len <= BB_KEY_MAX; len++) {
		for (rep = 0; rep < 8; rep++) {
			__u64 seed = rep ? rnd() : 0;
			size_t i;

			for (i = 0; i < len; i++)
				buf[i] = (__u8)rnd();
			if (bb_xxh64(buf, len, seed) != XXH64(buf, len, seed) && !bad++)
				bad_len = len;
		}
	}
	tap_result(!bad, "xxh64-header-equals-libxxhash", "%zu mismatches, first at len %zu",
		   bad, bad_len);
}

/*
 * The BPF side hashes an IPv6 address from two words, without building the key
 * (bb_hash_ip6_words()); userspace builds the key (bb_key_ip6_make(), then
 * bb_hash_ip6()). Both on random addresses, every prefix length, random seeds.
 */
static void test_hash_ip6_words(void)
{
	unsigned int plen, rep, bad = 0, bad_plen = 0;

	for (plen = 0; plen <= 128; plen++) {
		for (rep = 0; rep < 200; rep++) {
			struct bb_key_ip6 key;
			__u8 addr[16];
			__u64 seed = rnd(), hi, lo;
			size_t i;

			for (i = 0; i < sizeof(addr); i++)
				addr[i] = (__u8)rnd();
			bb_key_ip6_make(&key, addr, plen);
			bb_key_ip6_words(addr, plen, &hi, &lo);
			if (bb_hash_ip6_words(hi, lo, plen, seed) != bb_hash_ip6(&key, seed) && !bad++)
				bad_plen = plen;
		}
	}
	tap_result(!bad, "IPv6: the hash from two words equals the hash of the key",
		   "%u mismatches, first at /%u", bad, bad_plen);
}

/*
 * The name hash the BPF side computes in parts (bpf/bloomblock.bpf.c match_name()):
 * the chain over the whole name's words from its end, then one finish per suffix.
 * Every suffix's hash from those parts equals bb_hash_name() of the suffix alone.
 */
static void test_name_hash_suffixes(void)
{
	__u8 key[BB_HASH_BUF] = { 0 };
	__u64 st[BB_NAME_STATES];
	size_t names = n_keys / 10, n, bad = 0, probes = 0;
	__u32 bad_len = 0;

	for (n = 0; n < names; n++) {
		__u32 len = 1 + rnd() % BB_NAME_MAX, end = 1 + len, i, start;
		__u64 seed = rnd(), s = bb_name_state0(seed);

		for (i = 1; i <= len; i++)
			key[i] = "abcdefghijklmnopqrstuvwxyz0123456789-."[rnd() % 38];
		st[0] = s;
		for (i = 0; i < len / 8; i++) {
			s = bb_name_mix(s, bb_read64(key, end - 8 * (i + 1)));
			st[i + 1] = s;
		}
		for (start = 1; start <= len; start += 1 + rnd() % 9) {
			__u32 l = end - start, kind = rnd() & 1 ? BB_KEY_NAME : BB_KEY_NAME_PARENT;
			__u64 parts = bb_name_fin(st[l / 8], bb_name_head(bb_read64(key, start), l), l,
						  kind);

			probes++;
			if (parts != bb_hash_name(kind, key + start, l, seed) && !bad++)
				bad_len = l;
		}
	}
	tap_result(!bad, "name-hash-suffixes-from-one-chain", "%zu of %zu suffixes differ, first "
		   "of %u bytes", bad, probes, bad_len);
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Distinct name keys get distinct 64-bit hashes: names that differ in one byte, in
 * length only by a trailing byte, or in kind. Any repeat among these 4n hashes
 * would be a 1-in-2^40 accident, or a flaw of the hash.
 */
static void test_name_hash_distinct(void)
{
	size_t n = n_keys / 4, i, m = 0, repeats = 0;
	__u64 *h = malloc(4 * n * sizeof(*h));
	char name[64];

	for (i = 0; h && i < n; i++) {
		int len = sprintf(name, "h%zu.example", i);

		h[m++] = bb_hash_name(BB_KEY_NAME, (const __u8 *)name, len, 1);
		h[m++] = bb_hash_name(BB_KEY_NAME_PARENT, (const __u8 *)name, len, 1);
		name[len] = 'a';	/* one byte longer */
		h[m++] = bb_hash_name(BB_KEY_NAME, (const __u8 *)name, len + 1, 1);
		name[0] = 'g';		/* the first byte differs */
		h[m++] = bb_hash_name(BB_KEY_NAME, (const __u8 *)name, len, 1);
	}
	if (h)
		qsort(h, m, sizeof(*h), cmp_u64);
	for (i = 1; i < m; i++)
		repeats += h[i] == h[i - 1];
	tap_result(h && !repeats, "name-hash-distinct-keys", "%zu repeats among %zu hashes",
		   repeats, m);
	free(h);
}

static struct bb_block *blocks_in(void *ctx, __u32 nblocks, __u32 allow_blocks)
{
	struct bb_block **mem = ctx;

	*mem = calloc(bb_filter_elements(nblocks, allow_blocks), BB_BLOCK_BYTES);
	return *mem ? *mem + BB_FIRST_BLOCK : NULL;
}

/*
 * Threads change nothing: the same list and seed give the same image, byte for byte,
 * with 1, 2 and 3 threads, and with the bits set in place in a caller's image. The
 * list mixes every kind, short and long prefixes, and keys that repeat (a name and
 * its "*." form share the parent key; overlapping prefixes share expansions).
 */
static void test_threads(void)
{
	size_t n = n_keys / 4, i, bytes = 0, starred = 0, plain = 0;
	struct bb_block *ref = NULL, *img, *mem;
	struct test_list tl;
	unsigned int threads;
	char name[80];
	char *t;
	int err;

	test_list_alloc(&tl, n, n * 40);
	t = tl.text;
	for (i = 0; i < n; i++) {
		struct bb_entry *e = &tl.list.entries[i];
		__u64 r = rnd();

		switch (i % 6) {
		case 0:
			e->kind = BB_ENTRY_IP4;
			e->plen = 32;
			memcpy(e->addr, &r, 4);
			break;
		case 1:
			e->kind = BB_ENTRY_IP4;
			e->plen = i % 600 == 1 ? 12 : 22 + r % 3;	/* short, and expanded */
			memcpy(e->addr, &r, 4);
			e->addr[3] = 0;
			e->addr[2] &= 0xfc;
			if (e->plen == 12)
				e->addr[1] &= 0xf0, e->addr[2] = 0;
			break;
		case 2:
			e->kind = BB_ENTRY_IP6;
			e->plen = 48;
			memcpy(e->addr, &r, 6);
			break;
		case 3:
		case 4:
			e->kind = BB_ENTRY_NAME;
			/* case 4 repeats case 3's name as "*.": one key more, not two */
			e->flags = i % 6 == 4 ? BB_ENTRY_F_SUBDOMAINS_ONLY : 0;
			e->text = i % 6 == 4 ? tl.list.entries[i - 1].text : t;
			starred += i % 6 == 4;
			plain += i % 6 == 3;
			if (i % 6 == 3)
				t += sprintf(t, "n%llx.example", (unsigned long long)(r >> 24)) + 1;
			break;
		default:
			e->kind = BB_ENTRY_URL;
			e->text = t;
			t += sprintf(t, "u%llx.test/p", (unsigned long long)(r >> 40)) + 1;
			break;
		}
	}
	tl.list.n = n;
	for (threads = 1; threads <= 3; threads++) {
		struct bb_filter_opts opts = { .seed = 7, .threads = threads };
		struct bb_filter f;

		err = bb_filter_build(&f, &tl.list, &opts);
		img = err ? NULL : malloc(bb_filter_elements(f.hdr.nblocks, f.hdr.allow_blocks) * BB_BLOCK_BYTES);
		if (img)
			bb_filter_write_image(&f, img);
		if (!ref) {
			ref = img;
			bytes = img ? bb_filter_elements(f.hdr.nblocks, f.hdr.allow_blocks) * BB_BLOCK_BYTES : 0;
			/* each "*." entry repeats the parent key of the name before it */
			__u64 all = f.keys_by_kind[BB_KEY_NAME] + f.keys_by_kind[BB_KEY_NAME_PARENT] +
				    f.keys_by_kind[BB_KEY_IP4] + f.keys_by_kind[BB_KEY_IP6] +
				    f.keys_by_kind[BB_KEY_URL];

			tap_result(img && f.keys_by_kind[BB_KEY_NAME_PARENT] == plain + starred &&
				   f.hdr.items <= all - starred, "threads: repeated keys counted once",
				   "%llu parent keys, %llu items of %llu keys, %zu starred",
				   (unsigned long long)f.keys_by_kind[BB_KEY_NAME_PARENT],
				   (unsigned long long)f.hdr.items, (unsigned long long)all, starred);
		} else {
			snprintf(name, sizeof(name), "threads: %u threads, the same image", threads);
			ASSERT_TRUE(img && !memcmp(img, ref, bytes), name);
			free(img);
		}
		bb_filter_free(&f);

		/* in place: the caller's memory, not copied by write_image */
		mem = NULL;
		opts.blocks_alloc = blocks_in;
		opts.blocks_ctx = &mem;
		err = bb_filter_build(&f, &tl.list, &opts);
		if (!err)
			bb_filter_write_image(&f, mem);
		snprintf(name, sizeof(name), "threads: %u threads, built in place, the same image",
			 threads);
		ASSERT_TRUE(!err && mem && f.blocks == mem + BB_FIRST_BLOCK && ref &&
			    !memcmp(mem, ref, bytes), name);
		bb_filter_free(&f);
		free(mem);
	}
	free(ref);
	test_list_free(&tl);
}

int main(void)
{
	const char *quick = getenv("BB_QUICK");

	if (quick && !strcmp(quick, "1"))
		n_keys = 50000;
	tap_plan_header();
	test_hash_userspace();
	test_hash_ip6_words();
	test_name_hash_suffixes();
	test_name_hash_distinct();
	test_plan();
	test_plen_plan();
	test_prefixes();
	test_no_false_negatives(0.001);
	test_no_false_negatives(0.0001);
	test_threads();
	test_fpr(false, 0.01);
	test_fpr(false, 0.001);
	test_fpr(false, 0.0001);	/* k = 16 */
	test_fpr(true, 0.01);		/* names: bb_hash_name(), not XXH64 */
	test_fpr(true, 0.001);
	test_fpr_addr(true, 0.01);
	test_fpr_addr(true, 0.001);
	test_fpr_addr(false, 0.01);
	test_fpr_addr(false, 0.001);
	test_fpr_addr(true, 0.0001);
	test_fpr_per_check();
	test_capacity();
	return tap_finish();
}

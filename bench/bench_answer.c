// SPDX-License-Identifier: GPL-2.0
/*
 * The answer rows (table 2b): what answering a blocked DNS query from the kernel
 * (--answer reject, sinkhole) costs against dropping it, and that a miss costs the
 * same with answers on, through the real bloomblock_xdp and its tail call to the
 * answer program. Every run is one test run (repeat 1): an answered query is turned
 * into its answer in the kernel's copy, so a repeated run would see a response the
 * second time. Each round runs every row's runs back to back, rows interleaved; a
 * row's figure is the median of its rounds' medians, ratios paired round by round.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench_parts.h"
#include "pins.h"
#include "bench_seq.h"
#include "bench.skel.h"

enum answer_row { ROW_DROP, ROW_REJECT, ROW_SINKHOLE, ROW_MISS_OFF, ROW_MISS_ON, ROW_MAX };

static const struct {
	const char *name;
	__u32 flags;		/* the filter's */
	bool hit;
	__u32 want;		/* its verdict */
} rows[ROW_MAX] = {
	[ROW_DROP] = { "blocked query, dropped (--answer drop)", BB_HDR_F_DROP, true, XDP_DROP },
	[ROW_REJECT] = { "blocked query, answered NXDOMAIN (reject)",
			 BB_HDR_F_DROP | BB_HDR_F_ANSWER, true, XDP_TX },
	[ROW_SINKHOLE] = { "blocked query, answered A 0.0.0.0 (sinkhole)",
			   BB_HDR_F_DROP | BB_HDR_F_ANSWER | BB_HDR_F_SINKHOLE, true, XDP_TX },
	[ROW_MISS_OFF] = { "unlisted query, --answer drop", BB_HDR_F_DROP, false, XDP_PASS },
	[ROW_MISS_ON] = { "unlisted query, --answer reject", BB_HDR_F_DROP | BB_HDR_F_ANSWER,
			  false, XDP_PASS },
};

/* The median of runs single test runs of one packet; -1 on an error or a wrong verdict. */
static double single_runs(int fd, const struct name_pkt *p, __u32 want, int runs, double *v)
{
	__u32 ret;
	int i;

	for (i = 0; i < runs; i++)
		if (test_run(fd, p->data, p->len, 1, &v[i], &ret) || ret != want) {
			bench_warn("answers: verdict %u, expected %u\n", ret, want);
			return -1;
		}
	return median_of(v, runs);
}

int answer_run(struct table *t)
{
	static const char *const cols[] = { "what", "ns (median, min-max)", "x dropped (paired)",
					    "target", "", NULL };
	const int runs = settings.quick ? 500 : 3000, n = settings.rounds;
	struct bench_filter filters[ROW_MAX] = { 0 };
	struct name_pkt pkt[2];
	struct bench *skel = NULL;
	double ns[ROW_MAX][MAX_ROUNDS], *v = calloc((size_t)runs, sizeof(*v));
	struct pkt_dns q = { .name = "bb-hit.example", .opt_len = 44 };
	__u8 dns[512], miss_src[16];
	struct bb_list list;
	char c[4][BT_CELL];
	int err, r, i, xdp_fd;
	size_t len;

	table_init(t, "answers", "2b. answers: a blocked DNS query answered from the kernel, "
		   "against dropped (ns a query, repeat 1)", 1, cols);
	if (!v)
		return -ENOMEM;
	bb_list_init(&list);
	err = bench_list_names(&list, settings.names_n / 100, 0);
	err = err ?: skeleton_load(&skel);
	for (i = 0; !err && i < ROW_MAX; i++) {
		__u32 idx = BB_CONFIG_INDEX;
		struct bb_config cfg;

		err = filter_make(&filters[i], &list, rows[i].flags);
		/* the rate at its most (10^6 a second a CPU): the bucket is asked, never empty */
		if (!err && !bpf_map_lookup_elem(filters[i].fd, &idx, &cfg)) {
			cfg.answer_cost_ns = 1000;
			cfg.answer_burst = 1000000;
			err = bpf_map_update_elem(filters[i].fd, &idx, &cfg, BPF_ANY) ? -errno : 0;
		}
	}
	if (err)
		goto out;
	xdp_fd = bpf_program__fd(skel->progs.bloomblock_xdp);
	bench_addr(7, 1, miss_src);	/* a source no list holds */
	/* an EDNS query with room for the sinkhole's record: every row answers its best */
	for (i = 0; i < 2; i++) {
		q.name = i ? "bb-miss0.example" : "bb-hit.example";
		len = pkt_dns(&q, dns, sizeof(dns));
		pkt[i].len = pkt_udp4(pkt[i].data, miss_src, 5353, 53, dns, len);
	}
	progress("answers: %d rounds of %d single runs a row", n, runs);
	for (r = 0; r < n && !err; r++)
		for (i = 0; i < ROW_MAX && !err; i++) {
			err = filter_slot_set(bpf_map__fd(skel->maps.filters), filters[i].fd);
			ns[i][r] = err ? -1 : single_runs(xdp_fd, &pkt[rows[i].hit ? 0 : 1],
							  rows[i].want, runs, v);
			if (ns[i][r] < 0 && !err) {
				struct bb_stats st;

				bb_stats_read_fd(bpf_map__fd(skel->maps.stats), &st);
				bench_warn("answers: %s: a wrong verdict or a failed run (answered "
					   "%llu, unfit %llu, limited %llu)\n", rows[i].name,
					   (unsigned long long)st.dns_answered,
					   (unsigned long long)st.answer_unfit,
					   (unsigned long long)st.answer_limited);
				err = -EINVAL;
			}
		}
	if (err)
		goto out;
	for (i = 0; i < ROW_MAX; i++) {
		struct st3 st;
		double x = i == ROW_MISS_ON ? paired(ns[i], ns[ROW_MISS_OFF], n, true) :
			   paired(ns[i], ns[ROW_DROP], n, true);
		bool judged = i == ROW_REJECT || i == ROW_SINKHOLE || i == ROW_MISS_ON;
		double limit = i == ROW_MISS_ON ? 1.10 : 1.5;

		st3_of(&st, ns[i], n);
		table_add(t, (const char *[]){
			rows[i].name, st3_fmt(c[0], BT_CELL, &st, 0),
			i == ROW_DROP || i == ROW_MISS_OFF ? "1.00x" :
				fmtf(c[1], BT_CELL, "%.2fx%s", x, i == ROW_MISS_ON ?
				     " (of the miss off)" : ""),
			!judged ? "-" : i == ROW_MISS_ON ? "unchanged (<= 1.10x)" : "<= 1.5x",
			!judged ? "" : x <= limit ? "met" : "NOT met",
		});
	}
	table_note(t, "The real bloomblock_xdp on a filter of %u generated names, its answer "
		   "program in its tail-call table as an instance has it; a DNS query (EDNS with "
		   "40 bytes of padding: room for a sinkhole record) for a listed name, and one "
		   "for an unlisted name, from a source no list holds; --answer-rate at its most "
		   "(10^6), so the bucket is asked and never empty. Each figure: the median "
		   "over %d rounds of the median of %d single test runs (the kernel's "
		   "duration of one run, its clock reads included, so the same in every row).",
		   settings.names_n / 100, n, runs);
out:
	for (i = 0; i < ROW_MAX; i++)
		if (filters[i].fd > 0)
			filter_close(&filters[i]);
	bench__destroy(skel);
	bb_list_free(&list);
	free(v);
	return err;
}

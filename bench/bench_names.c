// SPDX-License-Identifier: GPL-2.0
/*
 * The name rows (table 2): DNS queries, TLS ClientHellos (one segment and split in
 * two) and HTTP requests for names of 2, 4 and 8 labels, from a source no list holds,
 * through the real bloomblock_xdp on a filter of generated names and addresses. Each
 * sample is paired with an empty run and the IPv4 check (a miss) just before it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>

#include "bench_parts.h"
#include "bench_seq.h"
#include "bench.skel.h"	/* after bench_seq.h: its .bss holds struct bench_cfg */

#define LABEL_COUNTS	3

const char *const proto_names[PROTO_MAX] = {
	[PROTO_DNS] = "DNS query",
	[PROTO_TLS] = "TLS ClientHello (one segment)",
	[PROTO_TLS_SPLIT] = "TLS ClientHello split (2 segments)",
	[PROTO_HTTP] = "HTTP request",
};

static const int label_counts[LABEL_COUNTS] = { 2, 4, 8 };

/* One row's samples, by round, with the empty run and the IPv4 check just before each. */
struct name_row_samples {
	double ns[MAX_ROUNDS], floor[MAX_ROUNDS], ref[MAX_ROUNDS];
	int bad;		/* runs with the wrong verdict */
};

struct name_run {
	struct bench *skel;
	struct bench_filter filter;
	int xdp_fd, empty_fd;
	__u16 sport;		/* the next split ClientHello's flow */
	struct packet ip4[2];	/* the IPv4 check: a listed, an unlisted source */
	struct name_pkt pkts[PROTO_MAX][LABEL_COUNTS][2];	/* [proto][labels][hit, miss] */
	struct name_row_samples rows[PROTO_MAX][LABEL_COUNTS][2];
	double ip4_check[2][MAX_ROUNDS];
	double empty[MAX_ROUNDS], empty_repeat1[MAX_ROUNDS];
};

void name_for(char *buf, size_t size, int labels, bool hit, int variant)
{
	static const char *const prefix[LABEL_COUNTS] = { "", "www.cdn.", "a.b.c.d.e.f." };
	int i = labels == 2 ? 0 : labels == 4 ? 1 : 2;

	if (hit)
		snprintf(buf, size, "%sbb-hit.example", prefix[i]);
	else
		snprintf(buf, size, "%sbb-miss%d.example", prefix[i], variant);
}

/* Bloom lookups a name makes: the name, then its strict parents of 2.. labels. */
static int name_probes(int labels, bool hit)
{
	if (hit)
		return labels == 2 ? 1 : 2;
	return 1 + (labels - 2 < BB_NAME_MAX_PARENT_LABELS - 1 ? labels - 2 : 9);
}

int name_pkt_build(struct name_pkt *p, enum name_proto proto, const char *name)
{
	__u8 payload[1024], miss_src[16];
	size_t n, sni_off = 0, split;

	bench_addr(7, 1, miss_src);	/* a source no list holds */
	switch (proto) {
	case PROTO_DNS:
		n = dns_query(payload, sizeof(payload), name);
		p->len = pkt_udp4(p->data, miss_src, 5353, 53, payload, n);
		break;
	case PROTO_TLS:
		n = tls_client_hello(payload, sizeof(payload), name, &sni_off);
		p->len = pkt_tcp4(p->data, miss_src, 40000, 443, 1000, payload, n);
		break;
	case PROTO_TLS_SPLIT:
		n = tls_client_hello(payload, sizeof(payload), name, &sni_off);
		/* the cut falls inside the key share: the SNI comes in segment 2 */
		split = sni_off - 16;
		p->len = pkt_tcp4(p->data, miss_src, 40000, 443, 1000, payload, split);
		p->len2 = pkt_tcp4(p->seg2, miss_src, 40000, 443, 1000 + split, payload + split,
				   n - split);
		break;
	case PROTO_HTTP:
		n = http_request(payload, sizeof(payload), name);
		p->len = pkt_tcp4(p->data, miss_src, 40000, 80, 1000, payload, n);
		break;
	default:
		return -EINVAL;
	}
	return p->len ? 0 : -EINVAL;
}

/* A split hello, new flow (source port) each time: ns of both segments, or < 0. */
static double run_split(int prog_fd, struct name_pkt *p, __u16 sport, __u32 *ret2)
{
	const size_t sport_off = 14 + 20;
	double ns1, ns2;
	__u32 ret1;

	p->data[sport_off] = p->seg2[sport_off] = sport >> 8;
	p->data[sport_off + 1] = p->seg2[sport_off + 1] = sport & 0xff;
	if (test_run(prog_fd, p->data, p->len, 1, &ns1, &ret1) ||
	    test_run(prog_fd, p->seg2, p->len2, 1, &ns2, ret2))
		return -1;
	return ret1 == XDP_PASS ? ns1 + ns2 : -1;
}

/* The packet of one name row; a miss name that is a false positive is replaced. */
static int pick_name_pkt(struct name_run *run, struct name_pkt *p, enum name_proto proto,
			 int labels, bool hit)
{
	char name[128];
	int variant, err;
	__u32 ret;
	double v;

	for (variant = 0; variant < 50; variant++) {
		name_for(name, sizeof(name), labels, hit, variant);
		err = name_pkt_build(p, proto, name);
		if (err)
			return err;
		if (proto == PROTO_TLS_SPLIT)
			v = run_split(run->xdp_fd, p, run->sport++, &ret);
		else if (test_run(run->xdp_fd, p->data, p->len, 1, &v, &ret))
			v = -1;
		if (hit || (v >= 0 && ret == XDP_PASS))
			break;
	}
	return 0;
}

/* The filter, the skeleton with it in the filters slot, and every row's packet. */
static int names_setup(struct name_run *run)
{
	struct bb_list list;
	int err, pr, l, o;
	double t0;

	progress("names: filter of %u names + %u IPv4 addresses", settings.names_n,
		 settings.names_n);
	t0 = now_s();
	err = bench_list_names(&list, settings.names_n, settings.names_n);
	if (err)
		goto cleanup;
	progress("names: list parsed in %.2fs", now_s() - t0);
	err = skeleton_load(&run->skel);
	if (err) {
		bench_warn("bench skeleton: %s\n", strerror(-err));
		goto cleanup;
	}
	err = filter_make(&run->filter, &list, BB_HDR_F_DROP);
	err = err ?: filter_slot_set(bpf_map__fd(run->skel->maps.filters), run->filter.fd);
	if (err)
		goto cleanup;
	run->xdp_fd = bpf_program__fd(run->skel->progs.bloomblock_xdp);
	run->empty_fd = bpf_program__fd(run->skel->progs.bench_empty);
	for (o = 0; o < 2; o++) {
		__u8 a[16];

		bench_addr(0, o, a);
		udp_to_discard(&run->ip4[o], a, false);
	}
	for (pr = 0; pr < PROTO_MAX && !err; pr++)
		for (l = 0; l < LABEL_COUNTS && !err; l++)
			for (o = 0; o < 2 && !err; o++)
				err = pick_name_pkt(run, &run->pkts[pr][l][o], pr, label_counts[l],
						    !o);
cleanup:
	bb_list_free(&list);
	return err;
}

/*
 * One sample of a name row, right after an empty run and an IPv4 check of the
 * unlisted source. A split hello: split_pairs new flows, the mean of both segments'
 * runs, against twice the repeat=1 floor.
 */
static int name_sample(struct name_run *run, int pr, int l, int o, int r)
{
	struct name_row_samples *rs = &run->rows[pr][l][o];
	struct name_pkt *p = &run->pkts[pr][l][o];
	const struct packet *ip4_miss = &run->ip4[1];
	__u32 want = o ? XDP_PASS : XDP_DROP, ret, k;
	double v, sum = 0;
	int err;

	err = test_run(run->empty_fd, ip4_miss->data, ip4_miss->len, settings.name_repeat,
		       &rs->floor[r], NULL);
	err = err ?: test_run(run->xdp_fd, ip4_miss->data, ip4_miss->len, settings.name_repeat,
			      &rs->ref[r], NULL);
	if (err)
		return err;
	if (pr != PROTO_TLS_SPLIT) {
		err = test_run(run->xdp_fd, p->data, p->len, settings.name_repeat, &rs->ns[r],
			       &ret);
		if (!err && ret != want)
			rs->bad++;
		return err;
	}
	for (k = 0; k < settings.split_pairs; k++) {
		v = run_split(run->xdp_fd, p, run->sport, &ret);
		run->sport = run->sport == 65535 ? 1024 : run->sport + 1;
		if (v < 0 || ret != want)
			rs->bad++;
		sum += v > 0 ? v : 0;
	}
	rs->ns[r] = sum / settings.split_pairs;
	rs->floor[r] = 2 * run->empty_repeat1[r];
	return 0;
}

/* Round r: the floors, the IPv4 check, then every name row. */
static int names_round(struct name_run *run, int r)
{
	const struct packet *ip4_miss = &run->ip4[1];
	int err = 0, pr, l, o;
	double sum = 0, v = 0;
	__u32 k, ret;

	/* the floor of a repeat=1 run, as the split pairs are measured */
	for (k = 0; k < 2 * settings.split_pairs && !err; k++) {
		err = test_run(run->empty_fd, ip4_miss->data, ip4_miss->len, 1, &v, NULL);
		sum += v;
	}
	run->empty_repeat1[r] = sum / (2 * settings.split_pairs);
	err = err ?: test_run(run->empty_fd, ip4_miss->data, ip4_miss->len, settings.name_repeat,
			      &run->empty[r], NULL);
	for (o = 0; o < 2 && !err; o++) {
		err = test_run(run->xdp_fd, run->ip4[o].data, run->ip4[o].len,
			       settings.name_repeat, &run->ip4_check[o][r], &ret);
		if (!err && ret != (o ? XDP_PASS : XDP_DROP))
			bench_warn("IPv4 reference: wrong verdict %u\n", ret);
	}
	for (pr = 0; pr < PROTO_MAX && !err; pr++)
		for (l = 0; l < LABEL_COUNTS && !err; l++)
			for (o = 0; o < 2 && !err; o++)
				err = name_sample(run, pr, l, o, r);
	return err;
}

/* The rows every name row is read against: the two floors and the IPv4 check. */
static void reference_rows(const struct name_run *run, struct table *t)
{
	char c[4][BT_CELL];
	struct st3 st[2];
	int n = settings.rounds;

	st3_of(&st[0], run->empty, n);
	table_add(t, (const char *[]){
		"empty XDP (floor)", "-", st3_fmt(c[0], BT_CELL, &st[0], 0), "1.00x", "-", "-",
		st3_fmt(c[1], BT_CELL, &st[0], 0), "1.00x", "-", "-", "-",
	});
	st3_of(&st[0], run->empty_repeat1, n);
	fmtf(c[1], BT_CELL, "%.2fx", paired(run->empty_repeat1, run->empty, n, true));
	table_add(t, (const char *[]){
		"empty XDP, repeat=1 (floor of the split rows)", "-",
		st3_fmt(c[0], BT_CELL, &st[0], 0), c[1], "-", "-",
		st3_fmt(c[2], BT_CELL, &st[0], 0), c[1], "-", "-", "-",
	});
	st3_of(&st[0], run->ip4_check[0], n);
	st3_of(&st[1], run->ip4_check[1], n);
	table_add(t, (const char *[]){
		"IPv4 source check (bloomblock_xdp, same filter)", "-",
		st3_fmt(c[0], BT_CELL, &st[0], 0),
		fmtf(c[1], BT_CELL, "%.2fx", paired(run->ip4_check[0], run->empty, n, true)),
		"-", "1", st3_fmt(c[2], BT_CELL, &st[1], 0),
		fmtf(c[3], BT_CELL, "%.2fx", paired(run->ip4_check[1], run->empty, n, true)),
		"1.00x", "1", "ok",
	});
}

/* A row per protocol and label count; the 4-label figures go to the targets. */
static void name_rows(const struct name_run *run, struct name_results *res)
{
	char c[8][BT_CELL], labels[8];
	int pr, l, o, n = settings.rounds;

	for (pr = 0; pr < PROTO_MAX; pr++)
		for (l = 0; l < LABEL_COUNTS; l++) {
			const char *cells[12];
			struct st3 st;
			int k = 0;

			cells[k++] = proto_names[pr];
			cells[k++] = fmtf(labels, sizeof(labels), "%d", label_counts[l]);
			for (o = 0; o < 2; o++) {
				const struct name_row_samples *rs = &run->rows[pr][l][o];
				double x_floor = paired(rs->ns, rs->floor, n, true);
				double x_ip4 = paired(rs->ns, rs->ref, n, true);

				st3_of(&st, rs->ns, n);
				cells[k++] = st3_fmt(c[o * 4], BT_CELL, &st, 0);
				cells[k++] = fmtf(c[o * 4 + 1], BT_CELL, "%.2fx", x_floor);
				/* split samples are repeat=1 runs: not comparable */
				cells[k++] = pr == PROTO_TLS_SPLIT ? "-" :
					     fmtf(c[o * 4 + 2], BT_CELL, "%.2fx", x_ip4);
				cells[k++] = fmtf(c[o * 4 + 3], BT_CELL, "%d",
						  name_probes(label_counts[l], !o));
				if (label_counts[l] == 4)
					res->four_labels[pr][o] = (struct name_figures){
						.ns = st.med,
						.x_ipv4_check = x_ip4,
					};
			}
			cells[k++] = run->rows[pr][l][0].bad || run->rows[pr][l][1].bad ?
				     "WRONG VERDICT" : "ok";
			table_add(&res->table, cells);
		}
	res->ipv4_check_ns = median_of(run->ip4_check[1], n);
}

static void names_note(const struct name_run *run, struct table *t)
{
	char nn[16];

	pow10_name(settings.names_n, nn, sizeof(nn));
	table_note(t, "Filter: %s generated names (2-4 labels) + %s IPv4 addresses + "
		   "`bb-hit.example`, %llu keys, k=%u. Hits ask for `bb-hit.example` or a "
		   "subdomain of it (the name's own key, then its 2-label parent); misses for "
		   "`bb-miss0.example` and subdomains (the name and every strict parent of 2+ "
		   "labels). Each packet runs the real `bloomblock_xdp`: parse, the "
		   "source-address check, the protocol's check (DNS in the program itself, TLS "
		   "and HTTP in a function it calls), which finds the name and matches it. Each "
		   "sample runs right after an empty run and an IPv4 check (a miss, same "
		   "filter); the ratios are taken sample by sample. Split rows (2 runs of "
		   "repeat=1, a new flow each, %u per round) are to twice the repeat=1 floor, "
		   "which includes the timer read.", nn, nn,
		   (unsigned long long)run->filter.hdr.items, run->filter.hdr.k,
		   settings.split_pairs);
}

int names_run(struct name_results *res)
{
	static const char *const columns[] = {
		"row", "labels", "hit ns", "x floor", "x IPv4 check", "probes", "miss ns",
		"x floor", "x IPv4 check", "probes", "verdicts", NULL,
	};
	struct name_run *run = calloc(1, sizeof(*run));
	int err, r;

	table_init(&res->table, "names", "2. Name screening through the real program, hot (ns "
		   "per packet)", 2, columns);
	if (!run)
		return -ENOMEM;
	run->filter.fd = -1;
	run->sport = 1024;
	err = names_setup(run);
	if (err)
		goto cleanup;
	progress("names: measuring (%d rounds)", settings.rounds);
	for (r = 0; r < settings.rounds && !err; r++)
		err = names_round(run, r);
	if (err) {
		bench_warn("names: test run: %s\n", strerror(-err));
		goto cleanup;
	}
	reference_rows(run, &res->table);
	name_rows(run, res);
	names_note(run, &res->table);
cleanup:
	filter_close(&run->filter);
	bench__destroy(run->skel);
	free(run);
	return err;
}

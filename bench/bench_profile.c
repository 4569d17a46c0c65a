// SPDX-License-Identifier: GPL-2.0
/*
 * --profile (docs/BENCHMARKS.md, scripts/profile.sh): one row run in a loop on one
 * CPU, so that `perf record -C CPU` can sample it, and --line-map: where each loaded
 * program's source lines sit in its JIT image, to put those samples on lines.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bench_parts.h"
#include "bench_seq.h"
#include "bench.skel.h"	/* after bench_seq.h: its .bss holds struct bench_cfg */

/*
 * The rows, in this order: from "dns" on, name rows; from "dns-hit" on, their hits;
 * then the hit with its event raised (table 9) and the blocked query dropped or
 * answered (table 2b).
 */
static const char *const profile_rows[] = {
	"empty", "parse", "ip4-hit", "ip4-miss", "ip4-cold", "dns", "tls", "http",
	"dns-hit", "tls-hit", "http-hit", "ip4-hit-event", "dns-drop", "dns-reject",
	"dns-sinkhole", NULL,
};

#define FIRST_NAME_ROW		5
#define FIRST_NAME_HIT_ROW	8
#define EVENT_ROW		11	/* events on, every event raised, the ring drained */
#define FIRST_ANSWER_ROW	12	/* single runs: an answered query is changed in place */
#define EVENT_CHUNK		2000	/* runs a test run: their events fit the ring */

/* The filter's flags for a row, and its config's rates (answer rows: at their most). */
static __u32 profile_flags(int row)
{
	static const __u32 answer[3] = { 0, BB_HDR_F_ANSWER, BB_HDR_F_ANSWER | BB_HDR_F_SINKHOLE };

	if (row == EVENT_ROW)
		return BB_HDR_F_DROP | BB_HDR_F_EVENTS;
	if (row >= FIRST_ANSWER_ROW)
		return BB_HDR_F_DROP | answer[row - FIRST_ANSWER_ROW];
	return BB_HDR_F_DROP;
}

static int profile_config(const struct bench_filter *f, int row)
{
	__u32 idx = BB_CONFIG_INDEX;
	struct bb_config cfg;

	if (row < EVENT_ROW)
		return 0;
	if (bpf_map_lookup_elem(f->fd, &idx, &cfg))
		return -errno;
	cfg.event_cost_ns = 1;		/* every event raised, as table 9's row */
	cfg.event_burst = 0xffffffffU;
	cfg.answer_cost_ns = 1000;	/* 10^6 a second: as table 2b's rows */
	cfg.answer_burst = 1000000;
	return bpf_map_update_elem(f->fd, &idx, &cfg, BPF_ANY) ? -errno : 0;
}

/* One program's "ADDRESS FILE:LINE" lines: its BTF line records with their JIT addresses. */
static int write_prog_lines(FILE *f, int fd, const struct bpf_prog_info *info, __u32 n)
{
	struct bpf_line_info *li = calloc(n ? n : 1, info->line_info_rec_size);
	__u64 *jl = calloc(n ? n : 1, info->jited_line_info_rec_size);
	struct bpf_prog_info q = {
		.nr_line_info = n,
		.line_info_rec_size = info->line_info_rec_size,
		.line_info = (__u64)(unsigned long)li,
		.nr_jited_line_info = n,
		.jited_line_info_rec_size = info->jited_line_info_rec_size,
		.jited_line_info = (__u64)(unsigned long)jl,
	};
	__u32 len = sizeof(q), i;
	struct btf *btf = NULL;
	int err = 0;

	if (!li || !jl) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (!bpf_obj_get_info_by_fd(fd, &q, &len))
		btf = btf__load_from_kernel_by_id(info->btf_id);
	for (i = 0; btf && i < n; i++) {
		const struct bpf_line_info *r = (const void *)((const char *)li +
							       i * info->line_info_rec_size);
		const char *file = btf__name_by_offset(btf, r->file_name_off);
		const char *base = file ? strrchr(file, '/') : NULL;

		fprintf(f, "%016llx %s:%u\n", (unsigned long long)jl[i],
			base ? base + 1 : file ? file : "?", BPF_LINE_INFO_LINE_NUM(r->line_col));
	}
	btf__free(btf);
cleanup:
	free(li);
	free(jl);
	return err;
}

/*
 * Where each loaded program's source lines sit in its JIT image: one line
 * "ADDRESS FILE:LINE" per BTF line record, from the kernel's jited_line_info. perf
 * samples of a program can then be put on source lines (scripts/profile.sh):
 * Debian's bpftool has no libbfd, so `bpftool prog dump jited` cannot.
 */
static int write_line_map(struct bpf_object *obj, const char *path)
{
	struct bpf_program *prog;
	FILE *f = fopen(path, "w");
	int err = 0;

	if (!f)
		return -errno;
	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info), n;
		int fd = bpf_program__fd(prog), e;

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		n = info.nr_line_info < info.nr_jited_line_info ? info.nr_line_info :
		    info.nr_jited_line_info;
		e = write_prog_lines(f, fd, &info, n);
		err = err ?: e;
	}
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/* The row's program and packet: bloomblock_xdp on an address or a 4-label name, or not. */
static int profile_prog(struct bench *skel, int row, struct packet *p, int *fd)
{
	static const enum name_proto protos[3] = { PROTO_DNS, PROTO_TLS, PROTO_HTTP };
	const char *what = profile_rows[row];
	static struct name_pkt name_pkt;
	char name[64];
	__u8 a[16];
	int err;

	*fd = bpf_program__fd(skel->progs.bloomblock_xdp);
	bench_addr(0, strncmp(what, "ip4-hit", 7) ? 1 : 0, a);
	udp_to_discard(p, a, false);
	if (!strcmp(what, "empty")) {
		*fd = bpf_program__fd(skel->progs.bench_empty);
	} else if (!strcmp(what, "parse")) {
		*fd = bpf_program__fd(skel->progs.bench_parse);
	} else if (!strcmp(what, "ip4-cold")) {
		*fd = bpf_program__fd(skel->progs.bench_bb_ip4_cold);
		skel->bss->bench_cfg.span = 1000000;
	} else if (row >= FIRST_ANSWER_ROW) {
		/* table 2b's query: EDNS with room for the sinkhole's record */
		struct pkt_dns q = { .name = "bb-hit.example", .opt_len = 44 };
		__u8 dns[512];
		size_t len = pkt_dns(&q, dns, sizeof(dns));

		bench_addr(7, 1, a);	/* a source no list holds */
		p->len = pkt_udp4(p->data, a, 5353, 53, dns, len);
	} else if (row >= FIRST_NAME_ROW && row != EVENT_ROW) {
		/* 4 labels, as in the target: a miss (3 probes) or a hit (2) */
		name_for(name, sizeof(name), 4, row >= FIRST_NAME_HIT_ROW, 0);
		err = name_pkt_build(&name_pkt, protos[(row - FIRST_NAME_ROW) % 3], name);
		if (err)
			return err;
		memcpy(p->data, name_pkt.data, name_pkt.len);
		p->len = name_pkt.len;
	}
	return 0;
}

static int ring_count(void *ctx, void *data, size_t size)
{
	(void)data;
	(void)size;
	++*(unsigned long *)ctx;
	return 0;
}

/*
 * Test runs for the given seconds, of 10^5 runs; the least call is the steadiest on a
 * busy host. The event row: of EVENT_CHUNK, the ring drained after each (ring non-NULL);
 * the answer rows: of one run.
 */
static int profile_loop(const char *what, int fd, const struct packet *p, double seconds,
			__u32 repeat, struct ring_buffer *ring)
{
	double t0, ns, sum = 0, least = 1e30;
	unsigned long calls = 0;
	__u32 ret;
	int err;

	fprintf(stderr, "bench: profiling %s on CPU %d for %.0fs\n", what, settings.cpu, seconds);
	t0 = now_s();
	while (now_s() - t0 < seconds) {
		err = test_run(fd, p->data, p->len, repeat, &ns, &ret);
		if (err)
			return err;
		if (ring)
			ring_buffer__consume(ring);
		sum += ns;
		least = ns < least ? ns : least;
		calls++;
	}
	printf("%s: %.1f ns per run (mean of %lu calls of %u runs; least %.1f), verdict %u\n",
	       what, sum / calls, calls, repeat, least, ret);
	return 0;
}

/*
 * A 10^5-name + 10^6-address filter; the address rows on the addresses alone, as in
 * the table; the answer rows on table 2b's 10^4 names. The event row's program is in
 * the XDP dispatcher meanwhile (xdp_dispatch_fill()), as table 9's.
 */
int profile_run(const char *what, double seconds, const char *line_map)
{
	struct bench_filter filter = { .fd = -1 };
	struct xdp_dispatch dispatch;
	struct ring_buffer *ring = NULL;
	unsigned long records = 0;
	struct bench *skel = NULL;
	struct packet p;
	struct bb_list list;
	int err, row, fd;
	__u32 repeat;

	for (row = 0; profile_rows[row] && strcmp(profile_rows[row], what); row++)
		;
	if (!profile_rows[row]) {
		bench_warn("--profile: one of empty, parse, ip4-hit, ip4-miss, ip4-cold, dns, tls, "
			   "http, dns-hit, tls-hit, http-hit, ip4-hit-event, dns-drop, dns-reject, "
			   "dns-sinkhole\n");
		return -EINVAL;
	}
	xdp_dispatch_init(&dispatch);
	repeat = row == EVENT_ROW ? EVENT_CHUNK : row >= FIRST_ANSWER_ROW ? 1 : 100000;
	err = bench_list_names(&list, row >= FIRST_ANSWER_ROW ? 10000 :
			       row >= FIRST_NAME_ROW && row != EVENT_ROW ? 100000 : 0,
			       row >= FIRST_ANSWER_ROW ? 0 : 1000000);
	err = err ?: skeleton_load(&skel);
	err = err ?: filter_make(&filter, &list, profile_flags(row));
	err = err ?: profile_config(&filter, row);
	err = err ?: filter_slot_set(bpf_map__fd(skel->maps.filters), filter.fd);
	err = err ?: profile_prog(skel, row, &p, &fd);
	if (!err && row == EVENT_ROW) {
		ring = ring_buffer__new(bpf_map__fd(skel->maps.events), ring_count, &records,
					NULL);
		err = ring ? 0 : -errno;
		if (!err)
			xdp_dispatch_fill(&dispatch, &fd, 1, "profile", "bbpr");
	}
	if (!err && line_map)
		err = write_line_map(skel->obj, line_map);
	err = err ?: profile_loop(what, fd, &p, seconds, repeat, ring);
	if (ring)
		printf("%s: %lu events read from the ring\n", what, records);
	xdp_dispatch_free(&dispatch);
	ring_buffer__free(ring);
	filter_close(&filter);
	bench__destroy(skel);
	bb_list_free(&list);
	return err;
}

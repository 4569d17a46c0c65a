// SPDX-License-Identifier: GPL-2.0
/*
 * The veth throughput part (scripts/bench.sh, docs/BENCHMARKS.md): a bounded
 * sender and a drop-everything XDP floor, and table 6 from what the script measured
 * with them. Both run inside the benchmark's own network namespace, on its own veth
 * pair; the packets never leave it.
 *
 * The sender is BPF_PROG_RUN in live-frames mode (Linux 5.18): a two-instruction
 * XDP program returns XDP_TX for `packets` copies of one frame "received" on
 * IFNAME, which the kernel turns into a transmit out of IFNAME, to its veth
 * peer. The peer's receive (its XDP program, or its stack with GRO on) runs in
 * the same syscall on the same CPU, so the wall time per packet is the CPU time
 * of sending and receiving one packet. (xdp-trafficgen does the same, but
 * Debian 12's build fails to load on this kernel: it probes a tracepoint that
 * is gone.)
 */
#include <errno.h>
#include <math.h>
#include <net/if.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench_parts.h"

#define VETH_SPORT	40000
#define VETH_DPORT	9	/* discard */

/* A program that returns `action`: r0 = action; exit. */
static int action_prog(int action)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = action },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, action == XDP_TX ? "bench_tx" : "bench_drop",
			       "GPL", insns, ARRAY_SIZE(insns), NULL);

	return fd < 0 ? -errno : fd;
}

static int parse_mac(const char *s, __u8 *mac)
{
	unsigned int b[6];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
		return -EINVAL;
	for (i = 0; i < 6; i++)
		mac[i] = (__u8)b[i];
	return 0;
}

int bench_veth_tx(const char *ifname, const char *dst_mac, const char *saddr, __u32 packets,
		  double *ns_per_packet)
{
	static __u8 frame[PKT_MAX];
	__u8 payload[16] = "bloomblock bench", src[4];
	struct xdp_md ctx = { 0 };
	struct timespec t0, t1;
	int fd, err;
	size_t len;

	if (inet_pton(AF_INET, saddr, src) != 1)
		return -EINVAL;
	len = pkt_udp4(frame, src, VETH_SPORT, VETH_DPORT, payload, sizeof(payload));
	err = parse_mac(dst_mac, frame);	/* the peer's MAC: its stack takes it as its own */
	if (err || !len)
		return err ?: -EINVAL;
	ctx.data_end = (__u32)len;
	ctx.ingress_ifindex = if_nametoindex(ifname);
	if (!ctx.ingress_ifindex)
		return -errno;
	fd = action_prog(XDP_TX);
	if (fd < 0)
		return fd;
	{
		LIBBPF_OPTS(bpf_test_run_opts, opts,
			.data_in = frame,
			.data_size_in = (__u32)len,
			.ctx_in = &ctx,
			.ctx_size_in = sizeof(ctx),
			.repeat = packets,
			.flags = BPF_F_TEST_XDP_LIVE_FRAMES,
		);

		clock_gettime(CLOCK_MONOTONIC, &t0);
		err = bpf_prog_test_run_opts(fd, &opts);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (err)
			err = -errno;
	}
	close(fd);
	*ns_per_packet = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / packets;
	return err;
}

/* Attach a drop-everything XDP program (native mode); `ip link set IF xdp off` detaches. */
int bench_xdp_drop_attach(const char *ifname)
{
	int ifindex = (int)if_nametoindex(ifname), fd, err;

	if (!ifindex)
		return -errno;
	fd = action_prog(XDP_DROP);
	if (fd < 0)
		return fd;
	err = bpf_xdp_attach(ifindex, fd, XDP_FLAGS_DRV_MODE, NULL);
	close(fd);	/* the attachment holds the program */
	return err;
}

/* The samples scripts/bench.sh wrote for one row: "veth_ROW_ns x1 x2 ...". */
static int veth_samples(const struct script_results *script, const char *row, double *v,
			int max)
{
	char name[64], *end;
	const char *p;
	int n = 0;

	snprintf(name, sizeof(name), "veth_%s_ns", row);
	for (p = script_value(script, name); p && n < max; p = end) {
		v[n] = strtod(p, &end);
		if (end == p)
			break;
		n++;
	}
	return n;
}

/* One row per receiver that has samples, each paired with the floor of its round. */
void veth_report(struct table *table, const struct script_results *script)
{
	static const char *const veth_cols[] = {
		"receiver", "list", "ns per packet", "Mpps, sender on the same core",
		"net of floor ns", "its own work alone, Mpps a core (1000 / net)", "note", NULL,
	};
	static const struct {
		const char *row, *name, *note;
	} rows[] = {
		{ "floor", "XDP_DROP only (the floor)",
		  "a two-instruction program: sender and veth" },
		{ "bloomblock", "bloomblock (XDP, native, drop mode)",
		  "the list as a Bloom filter" },
		{ "xdp-filter", "xdp-filter (XDP, native; exact hash map)",
		  "one address: xdp-filter adds them one by one" },
		{ "nft", "nftables set, netdev ingress hook (GRO on)",
		  "the list as an ipv4_addr set" },
	};
	double floor[MAX_ROUNDS], v[MAX_ROUNDS], net[MAX_ROUNDS];
	double list = script_number(script, "veth_list");
	double packets = script_number(script, "veth_packets");
	int nf = veth_samples(script, "floor", floor, MAX_ROUNDS), i, j, n;
	char c[5][BT_CELL], nn[16];
	struct st3 sf;

	table_init(table, "veth", "6. veth throughput: XDP drop against an nftables set drop", 1,
		   veth_cols);
	for (i = 0; i < (int)ARRAY_SIZE(rows); i++) {
		struct st3 st, sn;

		n = veth_samples(script, rows[i].row, v, MAX_ROUNDS);
		if (!n)
			continue;
		st3_of(&st, v, n);
		for (j = 0; j < n && j < nf; j++)
			net[j] = v[j] - floor[j];
		st3_of(&sn, net, j);
		table_add(table, (const char *[]){
			rows[i].name,
			/* xdp-filter holds the one address: its CLI adds them one call each */
			i == 2 ? "1" : isnan(list) ? "-" : fmtf(nn, sizeof(nn), "%.0f", list),
			st3_fmt(c[0], BT_CELL, &st, 1),
			fmtf(c[1], BT_CELL, "%.2f", 1e3 / st.med),
			i && j ? st3_fmt(c[2], BT_CELL, &sn, 1) : "-",
			i && j && sn.med > 0 ? fmtf(c[3], BT_CELL, "%.1f", 1e3 / sn.med) : "-",
			rows[i].note,
		});
	}
	st3_of(&sf, floor, nf);
	if (nf)
		table_note(table, "The floor is the limit of this setup: the sender (one live-frames "
			   "test run) and the veth pair take %.1f ns a frame with a receiver that "
			   "drops everything at once, %.2f Mpps a core, and no receiver can show more "
			   "here; a row's Mpps is its sender and receiver together on one core. The "
			   "receiver's own work, net of the floor, is what a core doing nothing else "
			   "would pay per packet over a drop-everything program: 1000 / net is that "
			   "work's bound in Mpps a core (the NIC driver's own per-packet cost comes on "
			   "top, as the floor's receive half does here).", sf.med, 1e3 / sf.med);
	if (!isnan(packets))
		table_note(table, "Each sample: %.0f frames of one listed source (203.0.113.7) "
			   "from a live-frames sender (BPF_PROG_RUN, XDP_TX) out of one veth into "
			   "its peer, in the benchmark's own namespace; sender and receiver run in "
			   "one syscall on one CPU, so ns per packet is CPU per packet, both "
			   "sides. Rows interleaved round by round; net: minus the floor of the "
			   "same round.", packets);
}

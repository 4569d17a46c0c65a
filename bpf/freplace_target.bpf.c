// SPDX-License-Identifier: GPL-2.0
/*
 * The freplace probe's target (user/xdp_compat.c): an XDP program with a global
 * function, what libxdp's dispatcher is, in miniature. freplace_ext.bpf.c replaces
 * the function. Loaded, asked and closed; never attached.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

__noinline int probe_slot(struct xdp_md *ctx)
{
	return ctx ? XDP_PASS : XDP_ABORTED;
}

SEC("xdp")
int freplace_target(struct xdp_md *ctx)
{
	return probe_slot(ctx);
}

char LICENSE[] SEC("license") = "GPL";

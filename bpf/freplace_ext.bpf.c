// SPDX-License-Identifier: GPL-2.0
/*
 * The freplace probe's extension (user/xdp_compat.c): a program of type EXT that
 * replaces freplace_target's probe_slot(), as libxdp's dispatcher is extended by each
 * program it runs. Whether the kernel loads it is whether the dispatcher can work.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("freplace/probe_slot")
int freplace_ext(struct xdp_md *ctx)
{
	return ctx ? XDP_PASS : XDP_ABORTED;
}

char LICENSE[] SEC("license") = "GPL";

// SPDX-License-Identifier: GPL-2.0
/* Runs include/bb_hash.h's XXH64 in the kernel so a test can compare it with libxxhash. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bb_hash.h"

__u8 input[BB_HASH_BUF];
__u32 input_len;
__u64 seed;
__u64 result;

SEC("xdp")
int xxhash_test(struct xdp_md *ctx)
{
	__u32 len = input_len;

	if (len > BB_KEY_MAX)
		return XDP_ABORTED;
	result = bb_xxh64(input, len, seed);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

// SPDX-License-Identifier: GPL-2.0
/*
 * Another tc program, for the test that shares a tc hook with bloomblock
 * (tests/e2e/test_hook_e2e.sh): it counts the packets it sees and lets the next filter
 * decide (TC_ACT_UNSPEC), so that a test can see which packets reached it.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} seen SEC(".maps");

SEC("tc")
int tc_count(struct __sk_buff *skb)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&seen, &zero);

	(void)skb;
	if (n)
		__sync_fetch_and_add(n, 1);
	return TC_ACT_UNSPEC;
}

char LICENSE[] SEC("license") = "GPL";

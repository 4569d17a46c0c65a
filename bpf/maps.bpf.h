/* SPDX-License-Identifier: GPL-2.0 */
/* Every map of the programs: the filter slot, counters, scratch, flows, rings, buckets, stage tables. */
#ifndef BB_MAPS_BPF_H
#define BB_MAPS_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bloomblock.h"
#include "bb_names.h"
#include "bb_tls.h"

/*
 * The live filter is the one in slot 0: a BPF_MAP_TYPE_ARRAY of 64-byte blocks
 * holding header, config, short tables and bit blocks (include/bloomblock.h).
 * Userspace builds a new one of any size and swaps it in with one update of the slot.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct {
		__uint(type, BPF_MAP_TYPE_ARRAY);
		__uint(map_flags, BPF_F_MMAPABLE | BPF_F_INNER_MAP);
		__uint(max_entries, BB_FIRST_BLOCK + 1);
		/* sizes, not BTF types: the blocks are raw bits, and the kernel
		 * wants key and value BTF both or neither */
		__uint(key_size, sizeof(__u32));
		__uint(value_size, sizeof(struct bb_block));
	});
} filters SEC(".maps");

/*
 * Counters with named fields, per CPU, one slot a hook (BB_STATS_SLOTS: the key is
 * the hook's enum bb_event_hook); `bloomblock stats` sums them.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BB_STATS_SLOTS);
	__type(key, __u32);
	__type(value, struct bb_stats);
} stats SEC(".maps");

/* The counters of hook (enum bb_event_hook) on this CPU; NULL only if the map were gone. */
static __always_inline struct bb_stats *stats_of(__u32 hook)
{
	__u32 slot = hook & (BB_STATS_SLOTS - 1);

	return bpf_map_lookup_elem(&stats, &slot);
}

#ifndef BB_MAX_FLOWS
#define BB_MAX_FLOWS 16384
#endif

/* ClientHello walks waiting for their next segment; the least recent is evicted. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BB_MAX_FLOWS);
	__type(key, struct bb_flow_key);
	__type(value, struct bb_tls_walk);
} flows SEC(".maps");

/*
 * How many walks may be waiting in flows, by a hash of their flow key. A TLS
 * segment whose count is 0 has no walk to go on with and skips the lookup (the
 * LRU hashes the 40-byte key: ~30 ns, an eighth of a ClientHello's cost). A count
 * goes up before its walk is stored and down only when a delete found one; the
 * LRU's evictions do not bring it down, so it can only err high (a lookup more),
 * never low. Per loaded object, as flows is.
 */
__u32 bb_pending[1 << BB_PENDING_BITS];

/*
 * A hint for the entry program, never a verdict: the live filter screens services (or
 * both addresses), so the address path (bb_addr_xdp(), bb_addr_tc()) would open it only
 * to leave every packet to the general path. The general path keeps it (writing it
 * only when it changes: one cache line every CPU reads), and the entry program then
 * goes straight there. Wrong for a moment after a reload, it costs a packet the other
 * path's time, never its verdict: both decide as the filter says.
 */
__u32 bb_entry_general;

/*
 * What the entry program leaves the stage it tail-calls (docs/DESIGN.md, Packet path):
 * which packet, where its payload is, whose counters. The stage reads these from the
 * scratch, not from registers: a tail call keeps only the context, and a value that
 * comes out of map memory is one verifier state for every header layout that led to
 * it. Each stage checks the bounds again before it moves a pointer by them.
 */
struct bb_stage {
	__u32 hook;		/* enum bb_event_hook: whose counters; at tc, which direction */
	__u32 svc;		/* enum bb_service the packet is for */
	__u32 payload_off;	/* the TCP or UDP payload, from the packet's start */
	__u32 payload_len;	/* its length by the IP header (no Ethernet padding) */
	__u32 seq;		/* TCP: the sequence number, host order */
	__u32 tcp_flags;	/* TCP: the flags byte */
};

#define BB_PAYLOAD_OFF_MAX 1024	/* headers longer than this: the payload is not read */

/*
 * Per CPU, too big for the stack, and the one way state goes from program to program:
 * the same CPU runs a tail-call chain back to back and nothing runs between its
 * programs. The key buffer, a copy of a request's head, a ClientHello walk, the
 * stage's state (struct bb_stage), and what an HTTP request's check found for the
 * URL stage.
 */
struct bb_scratch {
	__u8 key[BB_KEYBUF_BYTES];
	__u64 name_states[BB_NAME_STATES];	/* bb_match_name(): bb_hash_name() in parts */
	__u8 req[BB_HTTP_SCAN_MAX + 8];
	struct bb_tls_walk walk;
	struct bb_flow_key flow;	/* the packet's addresses and ports: TLS's flows key,
					 * a hit event's */
	struct bb_stage stage;		/* the entry program's, for the stage it calls */
	__u32 flow_slot;	/* bb_flow_slot(&flow) */
	__u32 name_len;		/* key[1 .. name_len] */
	__u32 path_len;		/* HTTP: the path after the host */
	__u32 path_full;	/* HTTP: the path was not cut */
	__u32 flow_kept;	/* TLS: the walk is in the flows map */
	__u32 url_event;	/* the URL stage's event to raise (bb_event_xdp(), _tc()) */
	/* off the stack of the functions a hit calls, the third and fourth frames of a
	 * call chain that has 512 bytes for all */
	struct bb_confirm_key ckey;	/* bb_confirm()'s */
	struct bb_confirm_val cmark;
	__u8 allow_addr[16];		/* bb_allow_pass()'s */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bb_scratch);
} scratch SEC(".maps");

/* This CPU's scratch; NULL only if the map were gone. */
static __always_inline struct bb_scratch *scratch_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&scratch, &zero);
}

/* Hit events, for `bloomblock events`: 1 MiB, about 2300 of them. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

/* The rate limit, a token bucket per CPU: credit in nanoseconds of the rate. */
struct bb_event_bucket {
	__u64 last_ns, credit_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bb_event_bucket);
} event_bucket SEC(".maps");

/* Confirm mode (include/bloomblock.h): the requests, the answers, the daemon's beat. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);	/* about 3400 requests */
} confirm_ring SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BB_CONFIRM_ENTRIES);
	__type(key, struct bb_confirm_key);
	__type(value, struct bb_confirm_val);
} confirmed SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, BB_CONFIRM_ENTRIES);
	__type(key, struct bb_confirm_key);
	__type(value, struct bb_confirm_val);
} unlisted SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bb_confirm_daemon);
} confirm_daemon SEC(".maps");

/*
 * The answers' token bucket, per CPU: the events' (struct bb_event_bucket) and the
 * tick (bpf_jiffies64(), one load) of its last clock read. The coarse clock moves
 * only at a tick, and its read costs a call into the timekeeping code (~30 ns with
 * cold caches, as an answer's are): it is read once a tick, and within the tick the
 * bucket's last reading is the time.
 */
struct bb_answer_bucket {
	struct bb_event_bucket b;
	__u64 jiffies;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bb_answer_bucket);
} answer_bucket SEC(".maps");

/*
 * The interfaces (by index) where a frame sent back with XDP_TX is lost: a veth whose
 * peer runs no XDP program, so no NAPI for XDP frames (load finds them, and fills this).
 * An answer made there passes, marked in its metadata (BB_ANSWER_META), and the tc
 * helper beside XDP sends it back out of the interface: the answer leaves from tc.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u8);
} tx_via_tc SEC(".maps");

/*
 * The tail-call tables (include/bloomblock.h, enum bb_stage_slot and BB_URL_SLOT ...),
 * two per hook family (a tail call cannot cross program types): the name stages the
 * entry program goes on to, and what follows a name's check. Userspace fills them after
 * loading (bb_stage_tables_fill()), not libbpf from a static initialiser: an instance
 * loads only the families its hooks need, and a table cannot point at a program that was
 * not loaded. Pinned, or the kernel empties a table when its loader exits; a pin deleted
 * by hand empties one table, and the other's stages go on.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, BB_STAGE_MAX);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} stages_xdp SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 3);		/* BB_URL_SLOT, BB_ANSWER_SLOT, BB_RESET_SLOT */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} url_xdp SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, BB_STAGE_MAX);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} stages_tc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 4);	/* BB_URL_SLOT, BB_ANSWER_SLOT, BB_RESET_SLOT, BB_ANSWER_EGRESS_SLOT */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} url_tc SEC(".maps");

#endif /* BB_MAPS_BPF_H */

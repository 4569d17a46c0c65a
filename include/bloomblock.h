/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* bloomblock ABI: everything the BPF programs and userspace must agree on. */
#ifndef BLOOMBLOCK_H
#define BLOOMBLOCK_H

#ifdef __BPF__
#include <linux/types.h>
#else
#include <linux/types.h>
#include <stddef.h>
#endif

/*
 * The filter is one BPF_MAP_TYPE_ARRAY of 64-byte blocks (one cache line each):
 *
 *   element 0                 struct bb_header
 *   element 1                 struct bb_config: service ports, mark (read only for
 *                             TCP/UDP packets to a service port)
 *   elements 2 .. 129         IPv4 short table: an exact bitmap over the first 16
 *                             address bits; bit b set when every address whose first
 *                             16 bits are b is listed (prefixes /0../16)
 *   elements 130 .. 257       IPv6 short table, the same
 *   elements 258 ..           struct bb_block: the blocked Bloom filter's bits
 *   then                      struct bb_allow_header, then the allowlist's table:
 *                             allow_blocks blocks of 8 key fingerprints (every
 *                             filter has one, empty or not, so that one can be
 *                             added to live)
 *
 * Header, short tables, bits and allowlist live in one map, so a reload that swaps
 * the map in the one-slot outer map switches all of them together.
 */
#define BB_MAGIC		0x4b4c424d4f4f4c42ULL	/* "BLOOMBLK" little-endian */
#define BB_ABI_VERSION		10
#define BB_BLOCK_BYTES		64
#define BB_BLOCK_BITS		512
#define BB_HEADER_INDEX		0
#define BB_SHORT_PLEN		16	/* prefixes this short or shorter live in the short tables */
#define BB_SHORT_BLOCKS		((1U << BB_SHORT_PLEN) / BB_BLOCK_BITS)	/* 128 per family */
#define BB_CONFIG_INDEX		1
#define BB_SHORT_V4_INDEX	2
#define BB_SHORT_V6_INDEX	(BB_SHORT_V4_INDEX + BB_SHORT_BLOCKS)
#define BB_FIRST_BLOCK		(BB_SHORT_V6_INDEX + BB_SHORT_BLOCKS)

#define BB_MAX_K		16	/* probe bits per key: 8 or 16, include/bb_hash.h */
#ifndef BB_MAX_PLENS
#define BB_MAX_PLENS		4	/* Bloom probes per address family, whatever the list */
#endif
#ifndef BB_MAX_BLOCKS
#define BB_MAX_BLOCKS		(1U << 28)	/* 16 GiB of filter: a sanity bound, not a target */
#endif

/* struct bb_header.flags */
enum bb_header_flags {
	BB_HDR_F_DROP		= 1U << 0,	/* drop hits; without it hits are flagged and pass */
	BB_HDR_F_V4_SHORT	= 1U << 1,	/* the IPv4 short table holds a prefix */
	BB_HDR_F_V6_SHORT	= 1U << 2,	/* the IPv6 short table holds a prefix */
	BB_HDR_F_NAMES		= 1U << 3,	/* hostnames are present */
	BB_HDR_F_URLS		= 1U << 4,	/* URLs are present */
	BB_HDR_F_ADDR_BOTH	= 1U << 5,	/* check source and destination in both directions */
	BB_HDR_F_BLOCK_QUIC	= 1U << 6,	/* drop QUIC Initials: clients fall back to TCP */
	BB_HDR_F_SERVICES	= 1U << 7,	/* element 1 holds ports: screen DNS, TLS, HTTP */
	BB_HDR_F_EVENTS		= 1U << 8,	/* raise hit events (bb_config's rate) */
	BB_HDR_F_CONFIRM	= 1U << 9,	/* drop a hit once `bloomblock run` confirmed it */
	BB_HDR_F_DOWN_DROP	= 1U << 10,	/* confirm mode, no daemon: drop hits unconfirmed */
	BB_HDR_F_ANSWER		= 1U << 11,	/* a dropped DNS query is answered (XDP): NXDOMAIN */
	BB_HDR_F_SINKHOLE	= 1U << 12,	/* ... with A 0.0.0.0 / AAAA :: where it fits */
	/* userspace's alone: sized for name or URL checks it has no keys of yet, so that
	 * `add` can add them live (load --room); the kernel reads NAMES and URLS */
	BB_HDR_F_ROOM_NAMES	= 1U << 13,
	BB_HDR_F_ROOM_URLS	= 1U << 14,
};

#define BB_MAX_PORTS		4	/* per service */

/*
 * Element 1. Which destination ports carry DNS queries, TLS ClientHellos and
 * HTTP requests (host byte order, 0 = unused), and the mark tc sets in flag mode.
 */
struct bb_config {
	__u16 dns_ports[BB_MAX_PORTS];
	__u16 tls_ports[BB_MAX_PORTS];
	__u16 http_ports[BB_MAX_PORTS];
	__u16 quic_ports[BB_MAX_PORTS];
	__u32 mark;		/* skb->mark for flagged packets at tc; 0: leave it */
	/* hit events (BB_HDR_F_EVENTS), a token bucket per CPU: one event costs
	 * event_cost_ns of credit, which grows with time up to event_burst events' */
	__u32 event_cost_ns;	/* 10^9 / events a second a CPU; 0: none */
	__u32 event_burst;
	/* confirm mode: bumped by every live change of what the filter holds (add,
	 * del), so that what was confirmed before is asked again */
	__u32 confirm_epoch;
	/* answers (BB_HDR_F_ANSWER), a token bucket per CPU as the events' */
	__u32 answer_cost_ns;	/* 10^9 / answers a second a CPU */
	__u32 answer_burst;
	__u32 pad[2];
};

/* Element 0. Every field a lookup needs, in one cache line. */
struct bb_header {
	__u64 magic;
	__u32 abi_version;
	__u32 flags;		/* enum bb_header_flags */
	__u32 k;		/* probe bits per key, 8 or 16 (bb_k_valid) */
	__u32 nblocks;		/* bit blocks, elements BB_FIRST_BLOCK.. */
	__u64 seed;		/* XXH64 seed of every key */
	__u64 items;		/* keys inserted (after CIDR expansion and de-duplication) */
	__u64 generation;	/* bumped by every load or reload */
	__u8 v4_plens[BB_MAX_PLENS];	/* IPv4 prefix lengths probed, longest first */
	__u8 v6_plens[BB_MAX_PLENS];	/* IPv6 prefix lengths probed, longest first */
	__u8 n_v4_plens;
	__u8 n_v6_plens;
	__u8 pad[2];
	__u32 allow_blocks;	/* the allowlist's table; 0: no allowlist */
};

/*
 * The allowlist: exact, small, read only after a Bloom hit (a miss costs nothing
 * more). A key is allowed when its 64-bit fingerprint (bb_allow_fp() of the hash the
 * probe computed) sits in one of the 16 slots of its two blocks (bb_allow_block_of()
 * ways 0 and 1); 0 is an empty slot. Addresses are keyed at their own prefix
 * lengths, not the filter's probe lengths: an allowed /8 is one key.
 */
#define BB_ALLOW_MAX_PLENS	8	/* prefix lengths of allowed addresses, per family */
#define BB_ALLOW_WAYS		2	/* blocks a fingerprint may sit in */

struct bb_allow_header {
	__u64 items;			/* keys; 0: an empty allowlist, never read */
	__u32 flags;			/* BB_HDR_F_NAMES, BB_HDR_F_URLS: kinds present */
	__u32 map_id;			/* the kernel's id of the map holding it: which
					 * filter a hit came from, told apart from the
					 * one live when the allowlist is asked */
	__u8 v4_plens[BB_ALLOW_MAX_PLENS];	/* IPv4 prefix lengths present */
	__u8 v6_plens[BB_ALLOW_MAX_PLENS];
	__u8 n_v4_plens;
	__u8 n_v6_plens;
	__u8 pad[26];
};

/* Bloom filter elements: one key sets k bits of one block. */
struct bb_block {
	__u64 words[BB_BLOCK_BITS / 64];
};

/*
 * Keys. The first byte is a kind tag, so an IPv4 address, an IPv6 address and a
 * name with the same bytes never collide by construction. Addresses carry their
 * prefix length and are masked to it. Names are canonical: lowercase ASCII,
 * no trailing dot, IDN as punycode.
 */
enum bb_key_kind {
	BB_KEY_IP4		= 1,
	BB_KEY_IP6		= 2,
	BB_KEY_NAME		= 3,	/* the name itself: "evil.example" */
	BB_KEY_NAME_PARENT	= 4,	/* a strict parent of the name: matches subdomains */
	BB_KEY_URL		= 5,	/* host "/" path prefix */
	BB_KEY_KIND_MAX,
};

/*
 * Names in packets are matched by probing the name itself (BB_KEY_NAME) and then
 * its parents (BB_KEY_NAME_PARENT) from the shortest: two labels, three, ... up to
 * BB_NAME_MAX_PARENT_LABELS labels. A listed name of up to that many labels so
 * matches every subdomain however deep; a longer listed name matches itself only.
 * URLs: the exact host and up to BB_URL_MAX_HOST_SUFFIXES - 1 parents of at least two
 * labels (the last five labels first), times the path with query, without it, and
 * up to BB_URL_MAX_PATH_PREFIXES - 2 prefixes ending in '/', as Safe Browsing does.
 */
#define BB_NAME_MAX_PARENT_LABELS	10
#define BB_URL_MAX_HOST_SUFFIXES	5
#define BB_URL_MAX_PATH_PREFIXES	6

struct bb_key_ip4 {
	__u8 kind;		/* BB_KEY_IP4 */
	__u8 plen;
	__u8 pad[2];
	__u8 addr[4];		/* network byte order, masked to plen */
};

struct bb_key_ip6 {
	__u8 kind;		/* BB_KEY_IP6 */
	__u8 plen;
	__u8 pad[2];
	__u8 addr[16];		/* network byte order, masked to plen */
};

#define BB_NAME_MAX		253	/* dotted form, no trailing dot */
#define BB_KEY_MAX		256	/* longest key in bytes, kind tag included */

/*
 * Per-CPU counters, element 0 of the stats map. Named fields, so that
 * `bpftool map dump` prints the names; the list below is the one place that
 * names them (userspace prints the same names and descriptions).
 * Only ever add fields at the end.
 */
#define BB_STATS_FIELDS(X)							\
	X(packets,	"every packet the program saw")				\
	X(ipv4,		"IPv4 packets checked")					\
	X(ipv6,		"IPv6 packets checked")					\
	X(vlan,		"packets with one or two VLAN tags")			\
	X(non_ip,	"passed: not IPv4 or IPv6")				\
	X(truncated,	"passed: a header ends past the packet")		\
	X(malformed,	"passed: a header is inconsistent (IP version, IHL)")	\
	X(no_filter,	"passed: no valid filter loaded")			\
	X(lookups,	"Bloom filter blocks read")				\
	X(ip4_hits,	"IPv4 source listed (maybe)")				\
	X(ip6_hits,	"IPv6 source listed (maybe)")				\
	X(dropped,	"hits dropped (drop mode; confirm mode: confirmed)")				\
	X(flagged,	"hits passed and counted (flag mode)")			\
	X(passed,	"packets not dropped")					\
	X(dns_queries,	"DNS queries seen (to a DNS port, QR=0)")		\
	X(dns_hits,	"DNS query names listed (maybe)")			\
	X(dns_unparsed,	"DNS queries whose name could not be read")		\
	X(tls_hellos,	"TLS ClientHellos seen")				\
	X(tls_split,	"ClientHellos read across more than one segment")	\
	X(tls_hits,	"ClientHello SNIs listed (maybe)")			\
	X(tls_no_sni,	"ClientHellos without SNI")				\
	X(tls_ech,	"ClientHellos with Encrypted ClientHello (outer SNI read)") \
	X(tls_unparsed,	"ClientHellos not read: malformed, out of order, too long") \
	X(http_requests, "HTTP/1.x requests seen")				\
	X(http_hits,	"HTTP Host names listed (maybe)")			\
	X(url_hits,	"HTTP URLs listed (maybe)")				\
	X(http_unparsed, "HTTP requests whose Host could not be read")		\
	X(quic_initials, "QUIC Initial packets seen (SNI encrypted)")		\
	X(quic_dropped,	"QUIC Initials dropped (--block-quic)")			\
	X(ip_dst_hits,	"destination address listed (maybe)")			\
	X(allowed,	"hits passed: the allowlist holds the item")		\
	X(events,	"hit events raised into the ring buffer")		\
	X(events_limited, "hit events not raised: over the rate limit")	\
	X(events_lost,	"hit events lost: the ring buffer was full")		\
	X(confirm_requests, "hits sent to bloomblock run to confirm (confirm mode)") \
	X(confirm_lost,	"confirmations not asked: their ring was full")	\
	X(unconfirmed,	"hits passed: not confirmed yet (confirm mode)")	\
	X(unlisted,	"hits passed: confirmed on no list, a false positive")	\
	X(daemon_down,	"hits while bloomblock run was not running (confirm mode)") \
	X(dns_answered,	"blocked DNS queries answered (--answer reject, sinkhole)") \
	X(answer_limited, "blocked queries and connections dropped unanswered: over the answers' rate") \
	X(answer_unfit,	"blocked queries and segments dropped unanswered: not a plain query or segment") \
	X(tcp_reset,	"blocked TLS and HTTP connections reset (--answer reject, sinkhole)") \
	X(tcp_reset_half, "... of them, reset on one side only: the client's or the server's reset not sent")

struct bb_stats {
#define BB_STATS_MEMBER(name, help) __u64 name;
	BB_STATS_FIELDS(BB_STATS_MEMBER)
#undef BB_STATS_MEMBER
};

/*
 * A hit event (the events ring buffer, `bloomblock events`): what hit, where, and
 * what became of the packet. The addresses and ports are the packet's (an address
 * hit has no ports: it is decided before the transport header is read); key is the
 * key buffer the hit was found in (its kind tag, then the name; a URL's host then its
 * path), key_len bytes of it, 0 for an address hit.
 */
#define BB_EVENT_KEY_MAX	256
#define BB_EVENT_PKT_MAX	128	/* the packet's first bytes kept: headers and a name */

enum bb_event_what {
	BB_EV_SRC = 1,		/* the source address */
	BB_EV_DST,		/* the destination address */
	BB_EV_DNS,		/* a DNS query's name */
	BB_EV_SNI,		/* a TLS ClientHello's server name */
	BB_EV_HOST,		/* an HTTP request's Host */
	BB_EV_URL,		/* an HTTP request's URL */
};

enum bb_event_verdict {
	BB_EV_DROPPED = 1,
	BB_EV_FLAGGED,		/* passed and counted (flag mode), marked at tc */
	BB_EV_ALLOWED,		/* passed: the allowlist holds it */
	BB_EV_UNCONFIRMED,	/* passed: confirm mode, not confirmed yet */
};

enum bb_event_hook {
	BB_EV_XDP = 1,
	BB_EV_TC_INGRESS,
	BB_EV_TC_EGRESS,
};

/*
 * The stats map's slots: the counters of each hook at the key of its enum
 * bb_event_hook value, so that they can be told apart by hook (/metrics' hook
 * label); slot 0 is no hook's and stays zero. Totals (stats) sum the slots.
 */
#define BB_STATS_SLOTS		4
_Static_assert((BB_STATS_SLOTS & (BB_STATS_SLOTS - 1)) == 0,
	       "a power of two: the programs mask a hook into a slot (stats_of())");

struct bb_event {
	__u64 time_ns;		/* bpf_ktime_get_coarse_ns(): CLOCK_MONOTONIC, a tick's */
	__u32 ifindex;
	__u8 hook;		/* enum bb_event_hook */
	__u8 verdict;		/* enum bb_event_verdict */
	__u8 what;		/* enum bb_event_what */
	__u8 family;		/* 4 or 6 */
	__u8 saddr[16];		/* IPv4 in the first 4 bytes */
	__u8 daddr[16];
	__u16 sport, dport;	/* host byte order */
	__u16 key_len;
	__u8 pad[2];
	__u32 map_id;		/* the filter's (its allowlist header's), 0: none */
	__u16 pkt_len;		/* bytes of pkt kept, from the frame's start */
	__u16 wire_len;		/* the frame's length */
	__u32 epoch;		/* the filter's live changes at the hit (bb_config.confirm_epoch):
				 * with map_id, which state of the key index to attribute it by */
	__u32 pad2;
	__u8 key[BB_EVENT_KEY_MAX];
	__u8 pkt[BB_EVENT_PKT_MAX];
};

/*
 * Confirm mode (BB_HDR_F_CONFIRM): a hit the allowlist did not pass is dropped only
 * once `bloomblock run` has found it in the key index. The program looks what hit up
 * in two exact LRU maps: confirmed (listed: drop) and unlisted (a false positive:
 * pass, no event; or a confirmation pending). Neither: it passes, marked pending in
 * unlisted, and a request goes into the confirm ring for the daemon, which answers by
 * writing one of the two maps. An answer counts only for the filter (generation) and
 * the live changes (bb_config.confirm_epoch) it was given for. The daemon's heartbeat
 * (struct bb_confirm_daemon) says whether it runs: when it is older than
 * BB_CONFIRM_ALIVE_NS, a hit neither map answers passes, or drops with
 * BB_HDR_F_DOWN_DROP.
 */
#define BB_CONFIRM_ENTRIES	65536		/* of each map */
#define BB_CONFIRM_ALIVE_NS	2000000000ULL	/* a heartbeat older: the daemon is down */
#define BB_CONFIRM_BEAT_NS	250000000ULL	/* how often the daemon beats */
#define BB_CONFIRM_RETRY_NS	100000000ULL	/* a pending confirmation asked again after */

enum bb_confirm_kind {
	BB_CONFIRM_IP4 = 1,
	BB_CONFIRM_IP6,
	BB_CONFIRM_NAME,	/* DNS, SNI, Host: one name, whichever protocol carried it */
	BB_CONFIRM_URL,
};

/* What hit: an address, or the XXH64 of a name's or URL's key after its kind tag
 * (the filter's seed xor kind), as the program and the daemon see it. */
struct bb_confirm_key {
	__u32 kind;		/* enum bb_confirm_kind */
	__u32 pad;
	__u8 data[16];		/* the address; a hash in the first 8 bytes */
};

enum bb_confirm_state {
	BB_CONFIRM_LISTED = 1,	/* in confirmed */
	BB_CONFIRM_UNLISTED,	/* in unlisted: no list holds it */
	BB_CONFIRM_PENDING,	/* in unlisted: asked, not answered yet */
};

struct bb_confirm_val {
	__u64 generation;	/* the filter's it holds for */
	__u32 epoch;		/* bb_config.confirm_epoch it holds for */
	__u32 state;		/* enum bb_confirm_state */
	__u64 time_ns;		/* pending: when asked (coarse clock); else answered */
	__u64 hits;		/* listed: packets dropped by it */
	__u32 src, line;	/* listed: which list (the index's source) and line */
};

/* A request in the confirm ring. */
struct bb_confirm_req {
	__u64 time_ns;		/* bpf_ktime_get_ns() */
	__u64 generation;
	__u32 epoch;
	__u16 key_len;		/* a name's or URL's: key as in struct bb_event */
	__u8 what;		/* enum bb_event_what */
	__u8 family;		/* an address's: 4 or 6 */
	struct bb_confirm_key ckey;
	__u8 key[BB_EVENT_KEY_MAX];
};

/* The daemon's heartbeat and tallies, one element, written by the daemon only. */
struct bb_confirm_daemon {
	__u64 alive_ns;		/* CLOCK_MONOTONIC of its last beat; 0: it stopped */
	__u64 started_ns;
	__u32 pid;
	__u32 pad;
	__u64 listed, unlisted;	/* answers given */
	__u64 stale;		/* requests of a filter no longer live */
	__u64 lat_sum_ns, lat_max_ns;	/* from a request's raising to its answer */
	__u64 pad2;
};

/* Pinned objects, relative to the pin directory. */
#define BB_PIN_DIR_DEFAULT	"/sys/fs/bpf/bloomblock"
#define BB_PIN_FILTERS		"filters"	/* outer ARRAY_OF_MAPS, one slot */
#define BB_PIN_INSTANCE		"instance"	/* ARRAY of one struct bb_instance_rec (userspace's) */
#define BB_PIN_STATS		"stats"		/* PERCPU_ARRAY of struct bb_stats */
#define BB_PIN_EVENTS		"events"	/* RINGBUF of struct bb_event */
#define BB_PIN_EVENT_BUCKET	"event_bucket"	/* the events' rate limit, per CPU */
#define BB_PIN_TX_VIA_TC	"tx_via_tc"	/* HASH ifindex -> 1: answers there leave from tc */
#define BB_PIN_CONFIRM_RING	"confirm_ring"	/* RINGBUF of struct bb_confirm_req */
#define BB_PIN_CONFIRMED	"confirmed"	/* LRU_HASH: bb_confirm_key -> bb_confirm_val */
#define BB_PIN_UNLISTED		"unlisted"	/* LRU_HASH, the same */
#define BB_PIN_CONFIRM_DAEMON	"confirm_daemon"	/* ARRAY of struct bb_confirm_daemon */
#define BB_PIN_PROG_XDP		"prog_xdp"
#define BB_PIN_PROG_TC_INGRESS	"prog_tc_ingress"
#define BB_PIN_PROG_TC_EGRESS	"prog_tc_egress"
#define BB_PIN_PROG_XDP_RESET	"prog_xdp_reset"	/* tc ingress, beside XDP */
/* The tail-call tables: pinned, or the kernel empties them when the loader exits. */
#define BB_PIN_STAGES_XDP	"stages_xdp"	/* enum bb_stage_slot: the XDP name stages */
#define BB_PIN_STAGES_TC	"stages_tc"	/* ... the tc ones */
#define BB_PIN_URL_XDP		"url_xdp"	/* BB_URL_SLOT ...: the XDP URL, answer, reset */
#define BB_PIN_URL_TC		"url_tc"	/* ... the tc ones */
#define BB_PIN_LINK_PREFIX	"link_xdp_"	/* + interface name */
/* An XDP attachment made through libxdp (load --xdp-attach): the program libxdp loaded,
 * pinned as PREFIX + interface name + ":" + the network namespace's inode */
#define BB_PIN_LIBXDP_PREFIX	"libxdp_xdp_"
/* A tc attachment's record: its program pinned again as PREFIX + interface name + ":" + the
 * network namespace's inode (a tc filter is no link: nothing else says where it is) */
#define BB_PIN_TC_INGRESS_PREFIX "tc_ingress_"
#define BB_PIN_TC_EGRESS_PREFIX	"tc_egress_"
#define BB_TC_PRIORITY		0xb10c	/* tc filter priority; the handle comes from the pin dir */
#define BB_TC_PRIORITY_XDP_RESET	0xb10d	/* beside XDP: the reset helper's (tc ingress) */

/* Name of the maps and programs in the BPF object, as bpftool shows them. */
#define BB_MAP_FILTERS		"filters"
#define BB_MAP_STATS		"stats"
#define BB_MAP_EVENTS		"events"

#ifndef __BPF__
_Static_assert(sizeof(struct bb_header) == BB_BLOCK_BYTES, "header is one block");
_Static_assert(sizeof(struct bb_allow_header) == BB_BLOCK_BYTES, "allow header is one block");
_Static_assert(sizeof(struct bb_config) == BB_BLOCK_BYTES, "config is one block");
_Static_assert(sizeof(struct bb_block) == BB_BLOCK_BYTES, "bit block is one cache line");
_Static_assert(sizeof(struct bb_key_ip4) == 8, "IPv4 key is 8 bytes");
_Static_assert(sizeof(struct bb_key_ip6) == 20, "IPv6 key is 20 bytes");
_Static_assert(sizeof(struct bb_stats) % 8 == 0, "stats are u64 counters");
_Static_assert(sizeof(struct bb_event) == 456, "an event is 456 bytes");
_Static_assert(sizeof(struct bb_confirm_req) == 304, "a confirm request is 304 bytes");
_Static_assert(sizeof(struct bb_confirm_val) == 40, "a confirm answer is 40 bytes");
#endif

/*
 * The services a packet's name is checked for, each in a stage of its own (a program
 * the entry program tail-calls: docs/DESIGN.md, Packet path); QUIC is counted in the
 * entry program.
 */
enum bb_service {
	BB_SVC_NONE = -1,
	BB_SVC_DNS,
	BB_SVC_TLS,
	BB_SVC_HTTP,
	BB_SVC_QUIC,
	BB_SVC_MAX,
};

/*
 * The tail-call tables, two per hook family, which userspace fills
 * (bb_stage_tables_fill()). A packet to a service port goes from the entry program to
 * its name stage through stages_xdp or stages_tc (pinned as BB_PIN_STAGES_XDP, _TC);
 * what follows a name's check (the URL stage, an answer, a reset) through url_xdp or
 * url_tc (BB_PIN_URL_XDP, _TC), the tables of those programs before the stages.
 */
enum bb_stage_slot {
	BB_STAGE_DNS,		/* a DNS query's name */
	BB_STAGE_TLS,		/* a ClientHello's SNI */
	BB_STAGE_HTTP,		/* an HTTP request's Host */
	BB_STAGE_MAX,
};

#define BB_URL_SLOT	0	/* the URL stage's slot in url_xdp, url_tc */
#define BB_ANSWER_SLOT	1	/* XDP, tc ingress: the DNS answer program's */
#define BB_RESET_SLOT	2	/* XDP and tc: the TCP reset program's */
#define BB_ANSWER_EGRESS_SLOT 3	/* tc egress: the DNS answer program's */
#define BB_ANSWER_TTL	2	/* seconds: a sinkhole answer's TTL (Pi-hole's default) */
#define BB_ANSWER_RATE	1000	/* answers a second a CPU, by default; bursts as many */

#endif /* BLOOMBLOCK_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the kernel program's own code (bpf/bloomblock.bpf.c, compiled for
 * userspace: tests/fuzz/bpf_prog.h) on any frame, at XDP, tc ingress or tc egress,
 * in drop or flag mode, with --block-quic or not, --addr-both or not, the default
 * ports or others: the entry programs and whatever they call or tail-call. What the
 * QUIC Initial check (service_of(), check_quic()) did is held to its specification,
 * written again here over the tests' own frame walk (tests/lib/ref.c): an Initial
 * (long header, version 1 type 0 or version 2 type 1) in a UDP datagram to a QUIC
 * port, not a DNS one, its header within 1024 bytes of the frame's start, is counted
 * (quic_initials) unless the peer's address hit first, and with --block-quic dropped
 * in drop mode (quic_dropped) or flagged; a listed address always hits. Anything
 * else an abort. The first byte: the hook (bits 0-1), --block-quic (2), drop mode
 * (3), --addr-both (4), other ports (5); the rest the frame.
 */
#include "bpf_prog.h"

#include "lib/ref.h"

static const char *const lines[] = {
	"blocked.example", "*.wild.example", "203.0.113.0/24", "2001:db8:bad::/48",
	"@@203.0.113.5", "@@ok.blocked.example", NULL,
};

static struct bb_prog_image images[16];

static bool port_in_cfg(const __u16 *ports, __u16 port)
{
	int i;

	for (i = 0; i < BB_MAX_PORTS; i++)
		if (ports[i] && ports[i] == port)
			return true;
	return false;
}

/* The filter for mode bits 2-5, built once. */
static const struct bb_config *use_filter(unsigned int mode)
{
	static struct bb_config cfgs[16];
	unsigned int v = (mode >> 2) & 15;
	__u32 flags = (v & 1 ? BB_HDR_F_BLOCK_QUIC : 0) | (v & 2 ? BB_HDR_F_DROP : 0) |
		      (v & 4 ? BB_HDR_F_ADDR_BOTH : 0);
	char msg[256];

	if (!images[v].blocks) {
		bb_config_defaults(&cfgs[v]);
		cfgs[v].mark = 0x77;
		if (v & 8) {
			cfgs[v].quic_ports[1] = 8443;
			cfgs[v].dns_ports[1] = 443;	/* a port both DNS's and QUIC's: DNS wins */
		}
		if (bb_prog_build(lines, flags, &cfgs[v], &images[v], msg, sizeof(msg))) {
			fprintf(stderr, "fuzz_quic: %s\n", msg);
			abort();
		}
	}
	bb_prog_use(&images[v]);
	return &cfgs[v];
}

/* Whether the address at a is listed and not allowed: the list above, by prefix. */
static bool listed(const __u8 *a, bool v6)
{
	static const __u8 bad6[6] = { 0x20, 0x01, 0x0d, 0xb8, 0x0b, 0xad };

	if (v6)
		return !memcmp(a, bad6, 6);
	return a[0] == 203 && a[1] == 0 && a[2] == 113 && a[3] != 5;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bb_prog_run run;
	const struct bb_config *cfg;
	struct ref_frame r;
	enum bb_prog_hook hook;
	unsigned int mode;
	bool egress, both, initial = false, peer_listed = false, drop_mode, block;
	__u64 addr_hits;
	int ip;

	if (size < 1 + ETH_HLEN || size > 1 + 2048)
		return 0;
	mode = data[0];
	hook = (enum bb_prog_hook)((mode & 3) % BB_PROG_HOOKS);
	egress = hook == BB_PROG_TC_EGRESS;
	both = mode & 16;
	block = mode & 4;
	drop_mode = mode & 8;
	cfg = use_filter(mode);
	data++;
	size--;
	bb_prog_forget();
	bb_prog_run(hook, data, size, &run);

	/* the specification, over the tests' own walk of the frame */
	ip = ref_parse_ip(data, size, &r);
	if (ip == REF_OK) {
		const __u8 *src = data + r.l3 + (r.v6 ? 8 : 12), *dst = src + (r.v6 ? 16 : 4);

		peer_listed = ((!egress || both) && listed(src, r.v6)) ||
			      ((egress || both) && listed(dst, r.v6));
		if (ref_parse(data, size, &r) == REF_OK && r.proto == 17 && r.payload <= 1024 &&
		    !port_in_cfg(cfg->dns_ports, r.dport) && port_in_cfg(cfg->quic_ports, r.dport) &&
		    r.payload + 5 <= size) {
			const __u8 *p = data + r.payload;
			__u32 version = (__u32)p[1] << 24 | (__u32)p[2] << 16 | (__u32)p[3] << 8 | p[4];
			unsigned int type = (p[0] >> 4) & 3;

			initial = (p[0] & 0xc0) == 0xc0 && version &&
				  type == (version == 0x6b3343cf ? 1U : 0U);
		}
	}
	addr_hits = run.d.ip4_hits + run.d.ip6_hits + run.d.ip_dst_hits;
	if (run.d.packets != 1)
		abort();
	if (peer_listed && !addr_hits)
		abort();	/* a listed address missed */
	if (!addr_hits && run.d.quic_initials != initial)
		abort();	/* an Initial missed, or counted where there is none */
	if (run.d.quic_dropped != (run.d.quic_initials && block && drop_mode))
		abort();
	if (run.d.quic_initials && block) {
		bool dropped = hook == BB_PROG_XDP ? run.ret == XDP_DROP : run.ret == TC_ACT_SHOT;

		if (dropped != drop_mode || (!drop_mode && !run.d.flagged))
			abort();
		if (hook != BB_PROG_XDP && !drop_mode && run.mark != cfg->mark)
			abort();	/* flagged at tc: marked */
	}
	if (ip != REF_OK && (run.d.ipv4 || run.d.ipv6))
		abort();	/* checked what the walk says is not IP */
	return 0;
}

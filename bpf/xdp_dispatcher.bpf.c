// SPDX-License-Identifier: GPL-2.0
/*
 * The dispatcher libxdp loads for bloomblock in place of its own (user/kernel/
 * xdp_libxdp.c hands libxdp this object as xdp-dispatcher.o, through
 * LIBXDP_OBJECT_PATH): the interface of <xdp/prog_dispatcher.h>, version 2, as
 * libxdp 1.3 reads it (its config first and alone in .rodata, one function a slot,
 * prog0 to prog9, replaced by the programs it attaches, the version in the metadata
 * section, an xdp_pass program for its compatibility check), with one thing more: each
 * slot is declared to change packet data. The kernel (6.12 on) lets an extension
 * replace a function only when the function says what the extension does, and
 * bloomblock's entry program changes packet data (its tail calls, its answers); the
 * dispatcher of Debian 12's libxdp (1.3.1) does not say it, and refuses it. Programs
 * that do not change packet data take these slots as they take libxdp's own.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <xdp/prog_dispatcher.h>

/* libxdp writes it before load: how many slots run, and what each one's verdict does. */
static volatile const struct xdp_dispatcher_config conf = {};

/*
 * A slot. Its body runs only while no program replaces it, which libxdp never leaves
 * so: it says to go on. The tail moved by nothing, on a path the verifier cannot rule
 * out, is the slot's declaration that it changes packet data.
 */
#define DISPATCHER_SLOT(n)							\
__attribute__((noinline)) int prog##n(struct xdp_md *ctx)			\
{										\
	volatile int verdict = XDP_DISPATCHER_RETVAL;				\
										\
	if (!ctx)								\
		return XDP_ABORTED;						\
	bpf_xdp_adjust_tail(ctx, 0);						\
	return verdict;								\
}

DISPATCHER_SLOT(0)
DISPATCHER_SLOT(1)
DISPATCHER_SLOT(2)
DISPATCHER_SLOT(3)
DISPATCHER_SLOT(4)
DISPATCHER_SLOT(5)
DISPATCHER_SLOT(6)
DISPATCHER_SLOT(7)
DISPATCHER_SLOT(8)
DISPATCHER_SLOT(9)
_Static_assert(MAX_DISPATCHER_ACTIONS == 10, "one slot an action of the config");

/* What libxdp's newer versions probe extensions against; kept for them. */
__attribute__((noinline)) int compat_test(struct xdp_md *ctx)
{
	volatile int verdict = XDP_DISPATCHER_RETVAL;

	if (!ctx)
		return XDP_ABORTED;
	return verdict;
}

/* Slot n, when the config enables it: its verdict ends the run unless it chains on. */
#define DISPATCHER_RUN(n)							\
	do {									\
		if (conf.num_progs_enabled <= (n))				\
			return XDP_PASS;					\
		verdict = prog##n(ctx);						\
		if (!((1U << verdict) & conf.chain_call_actions[n]))		\
			return verdict;						\
	} while (0)

SEC("xdp")
int xdp_dispatcher(struct xdp_md *ctx)
{
	int verdict;

	DISPATCHER_RUN(0);
	DISPATCHER_RUN(1);
	DISPATCHER_RUN(2);
	DISPATCHER_RUN(3);
	DISPATCHER_RUN(4);
	DISPATCHER_RUN(5);
	DISPATCHER_RUN(6);
	DISPATCHER_RUN(7);
	DISPATCHER_RUN(8);
	DISPATCHER_RUN(9);
	/* every slot ran and chained on: compat_test is kept referenced, never run */
	if (conf.num_progs_enabled > MAX_DISPATCHER_ACTIONS)
		return compat_test(ctx);
	return XDP_PASS;
}

/* libxdp's compatibility check loads this and an extension of it. */
SEC("xdp")
int xdp_pass(struct xdp_md *ctx)
{
	(void)ctx;
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
__uint(dispatcher_version, XDP_DISPATCHER_VERSION) SEC(XDP_METADATA_SECTION);

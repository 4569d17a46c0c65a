/* SPDX-License-Identifier: GPL-2.0 */
/*
 * XDP through libxdp (xdp_libxdp.c): in libxdp's dispatcher beside other programs
 * where the kernel allows freplace, else alone in libxdp's own fallback.
 */
#ifndef BB_XDP_LIBXDP_H
#define BB_XDP_LIBXDP_H

#include <stdbool.h>

#include "attach.h"

/*
 * bloomblock's run priority in the dispatcher: libxdp runs lower numbers first and
 * gives a program without one 50, so a blocklist drops before a program at libxdp's
 * default sees the packet; what it passes goes on down the chain.
 */
#define BB_LIBXDP_RUN_PRIO	20

/*
 * A copy of the instance's entry program (inst_prog_fd's, on its maps) attached to
 * ifindex by libxdp, in mode (auto: native, else generic; *used says which): its fd,
 * or -errno (-EEXIST/-EBUSY: an XDP program libxdp cannot share the hook with is there).
 */
int bb_libxdp_attach(int inst_prog_fd, int ifindex, enum bb_xdp_mode mode,
		     enum bb_xdp_mode *used);

/* Where libxdp runs a program on an interface. */
struct bb_libxdp_place {
	bool dispatcher;	/* in libxdp's dispatcher; false: alone (its fallback) */
	int programs;		/* the dispatcher's programs, ours among them */
	unsigned int prio;	/* ours, in the dispatcher */
	enum bb_xdp_mode mode;
};

/* Where prog_fd's program runs on ifindex: 0, or -ENOENT when it does not. */
int bb_libxdp_where(int prog_fd, int ifindex, struct bb_libxdp_place *at);
/* prog_fd's program detached from ifindex by libxdp (the others stay). 0 or -errno. */
int bb_libxdp_detach(int prog_fd, int ifindex);

#endif /* BB_XDP_LIBXDP_H */

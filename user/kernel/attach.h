/* SPDX-License-Identifier: GPL-2.0 */
/* XDP attachments as pinned bpf_links, one per interface. */
#ifndef BB_ATTACH_H
#define BB_ATTACH_H

#include <stdbool.h>
#include <linux/types.h>

#include "pins.h"

enum bb_xdp_mode {
	BB_XDP_AUTO,		/* native, else generic */
	BB_XDP_NATIVE,
	BB_XDP_GENERIC,
};

/* Where a program runs. */
enum bb_hook {
	BB_HOOK_XDP,
	BB_HOOK_TC_INGRESS,
	BB_HOOK_TC_EGRESS,
	BB_HOOK_MAX,
};

const char *bb_hook_name(enum bb_hook hook);	/* "xdp", "tc-ingress", "tc-egress" */

#define BB_MAX_TARGETS	16	/* interfaces per command */

/* Where a command acts: -i IFACE (repeatable) and --hook HOOK (repeatable). */
struct bb_targets {
	const char *ifnames[BB_MAX_TARGETS];
	int ifindexes[BB_MAX_TARGETS];	/* filled by the command, not the parser */
	int n_ifaces;
	bool hooks[BB_HOOK_MAX];
	bool any_hook;			/* a --hook was given */
};

struct bb_attachment {
	enum bb_hook hook;
	char ifname[32];	/* from the pin's name (XDP, a recorded tc filter) */
	char pin[80];		/* the link's pin, a tc filter's record; "": a tc filter no
				 * record names (attached before records), found here */
	unsigned long long netns;	/* the network namespace attached in; 0 unknown */
	bool elsewhere;		/* another network namespace's interface */
	int ifindex;		/* 0 when the interface is gone (in its namespace: a tc
				 * filter of another's is asked there) */
	__u32 link_id;		/* 0 for one made through libxdp */
	__u32 prog_id;
	enum bb_xdp_mode mode;	/* as the kernel reports it; BB_XDP_AUTO: unknown */
	bool libxdp;		/* XDP through libxdp (its pin: BB_PIN_LIBXDP_PREFIX) */
	bool dispatcher;	/* ... in libxdp's dispatcher (false: alone, its fallback) */
	int programs;		/* ... the dispatcher's programs, ours among them */
	unsigned int prio;	/* ... our run priority there */
};

const char *bb_xdp_mode_name(enum bb_xdp_mode mode);
/* The mode our program runs in on ifindex, from the kernel; BB_XDP_AUTO if unknown. */
enum bb_xdp_mode bb_xdp_mode_of(int ifindex);

/* This network namespace, as /proc/self/ns/net's inode number says it. */
unsigned long long bb_netns_id(void);
/* Detach one attachment bb_attachments() listed, another namespace's too. */
int bb_detach_pin(const char *pin_dir, const struct bb_attachment *a);
/* Is ifname (of this network namespace) attached by this instance? */
int bb_attached(const char *pin_dir, const char *ifname);
/* How load attaches at XDP (--xdp-attach). */
enum bb_xdp_attach {
	BB_XDP_ATTACH_AUTO,	/* libxdp where the kernel allows freplace, else a link */
	BB_XDP_ATTACH_LINK,	/* a bpf_link of our own, pinned */
	BB_XDP_ATTACH_LIBXDP,	/* libxdp: its dispatcher, or alone in its fallback */
};

/*
 * Attach the instance's program to ifname: a pinned bpf_link, or (libxdp) a copy
 * libxdp loads and attaches, pinned (xdp_libxdp.h). *used says which mode. An XDP
 * program bloomblock did not attach is never replaced (nor one libxdp cannot share
 * the hook with): -EBUSY, said with the program (id, name) and how to remove it for
 * the way it is attached; unless force, which detaches it first (said too).
 */
int bb_attach(const struct bb_instance *inst, const char *ifname, int ifindex,
	      enum bb_xdp_mode mode, enum bb_xdp_mode *used, bool force, bool libxdp);
/*
 * With it, at tc ingress: the reset helper (BB_TC_PRIORITY_XDP_RESET), attached when
 * the instance has one; its program id on ifindex, 0 when there is none.
 */
__u32 bb_xdp_reset_attached(const char *pin_dir, int ifindex);
/* The reset helper attached again where it is missing (removed by hand), said. */
void bb_xdp_reset_ensure(const struct bb_instance *inst, const char *ifname, int ifindex);
/* Detach ifname (and its reset helper) and remove its link pin. -ENOENT when it was not attached. */
int bb_detach(const char *pin_dir, const char *ifname);

/*
 * tc: a cls_bpf filter in the clsact qdisc (created when missing), with a handle
 * derived from the pin dir so that instances never touch each other's filters.
 * Filters are netlink objects, not links: they stay until detached.
 */
int bb_tc_attach(const struct bb_instance *inst, int ifindex, int egress);
/*
 * A tc attachment's record (BB_PIN_TC_*_PREFIX): the program pinned again under the
 * interface's name and this network namespace's inode, as an XDP link's pin says
 * them, so that status and unload find it from any namespace. bb_tc_attach() makes
 * it; made here too for a filter attached before records. Forget: removed.
 */
int bb_tc_record(const struct bb_instance *inst, int ifindex, int egress);
void bb_tc_forget(const char *pin_dir, const char *ifname, int egress);
/* The program id our filter runs on ifindex's hook, 0 when there is none. */
__u32 bb_tc_attached(const char *pin_dir, int ifindex, int egress);
int bb_tc_detach(const char *pin_dir, int ifindex, int egress);
/*
 * Orphans: every tc filter of this network namespace at bloomblock's priorities
 * (BB_TC_PRIORITY, BB_TC_PRIORITY_XDP_RESET) with pin_dir's handle that runs a
 * bloomblock program, removed whatever holds or records it (an instance whose pin
 * dir went, a record deleted), on every interface or only_ifindex's; the qdisc too
 * when that empties it. The count removed, said in said ("IFACE HOOK, ...").
 */
int bb_tc_sweep(const char *pin_dir, int only_ifindex, char *said, size_t size);
/*
 * fn(arg) in the network namespace whose inode is netns (this one's: called here):
 * entered through ip netns's name for it or a process in it, then left. -ENOENT when
 * it cannot be found; else fn's value.
 */
int bb_in_netns(unsigned long long netns, int (*fn)(void *arg), void *arg);
/* The same in the namespace of the fd fd (a /proc/PID/ns/net or /run/netns/NAME). */
int bb_in_netns_fd(int fd, int (*fn)(void *arg), void *arg);
/*
 * Remove ifindex's clsact qdisc when no filter is left on it, ours or anyone's:
 * load adds it when it is missing, and an empty one should not outlive us. 0 or -errno.
 */
int bb_tc_release(int ifindex);

/* The instance's attachments, XDP and tc; returns their count or -errno. */
int bb_attachments(const char *pin_dir, struct bb_attachment *out, int max);

#endif /* BB_ATTACH_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * Attach and detach: the XDP program as bpf_links pinned next to the maps, the tc
 * programs as cls_bpf filters recorded by a pin of their own; and both in another
 * network namespace, entered for the purpose.
 */
#define _GNU_SOURCE	/* setns() */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "msg.h"
#include "xdp_libxdp.h"

unsigned long long bb_netns_id(void)
{
	static unsigned long long id;
	struct stat st;

	if (!id && !stat("/proc/self/ns/net", &st))
		id = (unsigned long long)st.st_ino;
	return id;
}

/*
 * An XDP link's pin: link_xdp_IFNAME:NETNS, the network namespace (its inode, as
 * /proc/PID/ns/net names it) the interface was attached in, so that two namespaces'
 * eth0 are two attachments, each found, said and detached where it is. ':' is never
 * in an interface name. A pin from before (link_xdp_IFNAME) is this namespace's.
 */
static int link_pin_name(char *buf, size_t size, const char *ifname)
{
	int n = snprintf(buf, size, "%s%s:%llu", BB_PIN_LINK_PREFIX, ifname, bb_netns_id());

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* A libxdp attachment's pin: libxdp_xdp_IFNAME:NETNS, in pin_dir. */
static int libxdp_pin_path(char *buf, size_t size, const char *pin_dir, const char *ifname)
{
	char name[80];
	int n = snprintf(name, sizeof(name), "%s%s:%llu", BB_PIN_LIBXDP_PREFIX, ifname,
			 bb_netns_id());

	if (n < 0 || (size_t)n >= sizeof(name))
		return -ENAMETOOLONG;
	return bb_pin_path(buf, size, pin_dir, name);
}

/* This namespace's pin for ifname: the one that exists (a pin from before too). */
static int link_pin_path(char *buf, size_t size, const char *pin_dir, const char *ifname)
{
	char name[80];
	int err = link_pin_name(name, sizeof(name), ifname);

	err = err ?: bb_pin_path(buf, size, pin_dir, name);
	if (!err && access(buf, F_OK)) {
		char legacy[80], path[512];

		snprintf(legacy, sizeof(legacy), "%s%s", BB_PIN_LINK_PREFIX, ifname);
		if (!bb_pin_path(path, sizeof(path), pin_dir, legacy) && !access(path, F_OK))
			snprintf(buf, size, "%s", path);
	}
	return err;
}

/*
 * A handle on the network namespace whose inode is netns: ip netns's name for it, or
 * a process's in it. -ENOENT when none is found (the namespace is gone, or held only
 * where this cannot see it).
 */
static int netns_open(unsigned long long netns)
{
	static const char *const dirs[] = { "/run/netns", "/proc" };
	char path[300];
	struct stat st;
	size_t d;

	for (d = 0; d < 2; d++) {
		DIR *dir = opendir(dirs[d]);
		struct dirent *de;
		int fd = -1;

		while (dir && fd < 0 && (de = readdir(dir))) {
			if (de->d_name[0] == '.' || (d == 1 && !isdigit((unsigned char)de->d_name[0])))
				continue;
			snprintf(path, sizeof(path), d ? "%s/%s/ns/net" : "%s/%s", dirs[d],
				 de->d_name);
			if (!stat(path, &st) && (unsigned long long)st.st_ino == netns)
				fd = open(path, O_RDONLY | O_CLOEXEC);
		}
		if (dir)
			closedir(dir);
		if (fd >= 0)
			return fd;
	}
	return -ENOENT;
}

int bb_in_netns_fd(int fd, int (*fn)(void *arg), void *arg)
{
	int self, ret;

	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0 || setns(fd, CLONE_NEWNET)) {
		ret = -errno;
		if (self >= 0)
			close(self);
		return ret;
	}
	ret = fn(arg);
	if (setns(self, CLONE_NEWNET)) {
		/* nothing after this may act on the wrong namespace's interfaces */
		pr_err("cannot return to this network namespace: %s\n", strerror(errno));
		exit(1);	/* the commands' BB_EXIT_ERROR */
	}
	close(self);
	return ret;
}

int bb_in_netns(unsigned long long netns, int (*fn)(void *arg), void *arg)
{
	int fd, ret;

	if (!netns || netns == bb_netns_id())
		return fn(arg);
	fd = netns_open(netns);
	if (fd < 0)
		return fd;
	ret = bb_in_netns_fd(fd, fn, arg);
	close(fd);
	return ret;
}

const char *bb_hook_name(enum bb_hook hook)
{
	static const char *const names[] = { "xdp", "tc-ingress", "tc-egress" };

	return hook < BB_HOOK_MAX ? names[hook] : "unknown";
}

/* FNV-1a of the pin dir: the tc filter handle of this instance, never 0. */
static __u32 tc_handle(const char *pin_dir)
{
	__u32 h = 2166136261U;

	for (; *pin_dir; pin_dir++)
		h = (h ^ (__u8)*pin_dir) * 16777619U;
	return h % 0xfffeU + 1;
}

/* A tc attachment's record in pin_dir: tc_ingress_IFNAME:NETNS or tc_egress_IFNAME:NETNS. */
static int tc_record_path(char *buf, size_t size, const char *pin_dir, const char *ifname,
			  int egress, unsigned long long netns)
{
	char name[80];
	int n = snprintf(name, sizeof(name), "%s%s:%llu", egress ? BB_PIN_TC_EGRESS_PREFIX :
			 BB_PIN_TC_INGRESS_PREFIX, ifname, netns);

	if (n < 0 || (size_t)n >= sizeof(name))
		return -ENAMETOOLONG;
	return bb_pin_path(buf, size, pin_dir, name);
}

int bb_tc_record(const struct bb_instance *inst, int ifindex, int egress)
{
	char ifname[IF_NAMESIZE], path[512];
	int fd = egress ? inst->tc_egress_fd : inst->tc_ingress_fd, err;

	if (!if_indextoname((unsigned int)ifindex, ifname))
		return -errno;
	err = tc_record_path(path, sizeof(path), inst->pin_dir, ifname, egress, bb_netns_id());
	if (err)
		return err;
	if (!access(path, F_OK))
		return 0;
	if (bpf_obj_pin(fd, path)) {
		err = -errno;
		pr_err("cannot record the tc attachment at %s: %s\n", path, strerror(-err));
	}
	return err;
}

void bb_tc_forget(const char *pin_dir, const char *ifname, int egress)
{
	char path[512];

	if (!tc_record_path(path, sizeof(path), pin_dir, ifname, egress, bb_netns_id()))
		unlink(path);
}

int bb_tc_attach(const struct bb_instance *inst, int ifindex, int egress)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = egress ? BPF_TC_EGRESS : BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = tc_handle(inst->pin_dir),
		    .priority = BB_TC_PRIORITY,
		    .prog_fd = egress ? inst->tc_egress_fd : inst->tc_ingress_fd);
	int err;

	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST) {
		pr_err("cannot add the clsact qdisc: %s\n", strerror(-err));
		return err;
	}
	err = bpf_tc_attach(&hook, &opts);
	if (err) {
		pr_err("cannot attach to tc %s: %s\n", egress ? "egress" : "ingress",
		       strerror(-err));
		return err;
	}
	/* recorded, or not attached: a filter no record names is found only where it is */
	err = bb_tc_record(inst, ifindex, egress);
	if (err) {
		opts.prog_fd = opts.flags = opts.prog_id = 0;
		bpf_tc_detach(&hook, &opts);
	}
	return err;
}

__u32 bb_tc_attached(const char *pin_dir, int ifindex, int egress)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = egress ? BPF_TC_EGRESS : BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = tc_handle(pin_dir), .priority = BB_TC_PRIORITY);

	if (bpf_tc_query(&hook, &opts))
		return 0;
	return opts.prog_id;
}

int bb_tc_detach(const char *pin_dir, int ifindex, int egress)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = egress ? BPF_TC_EGRESS : BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = tc_handle(pin_dir), .priority = BB_TC_PRIORITY);
	char ifname[IF_NAMESIZE];
	int err;

	if (!bb_tc_attached(pin_dir, ifindex, egress))
		return -ENOENT;
	err = bpf_tc_detach(&hook, &opts);
	if (!err && if_indextoname((unsigned int)ifindex, ifname))
		bb_tc_forget(pin_dir, ifname, egress);
	return err;
}

/* The program a tc filter of ours (prio at the instance's handle) runs: is it bloomblock's? */
static bool ours(__u32 prog_id)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	bool yes = false;
	int fd = bpf_prog_get_fd_by_id(prog_id);

	if (fd < 0)
		return false;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len))
		yes = !strncmp(info.name, "bloomblock_tc_", 14);
	close(fd);
	return yes;
}

int bb_tc_sweep(const char *pin_dir, int only_ifindex, char *said, size_t size)
{
	static const struct { int egress; __u32 prio; const char *what; } hooks[] = {
		{ 0, BB_TC_PRIORITY, "tc ingress" }, { 1, BB_TC_PRIORITY, "tc egress" },
		{ 0, BB_TC_PRIORITY_XDP_RESET, "the reset helper at tc ingress" },
	};
	struct if_nameindex *ifs = if_nameindex(), *i;
	int removed = 0;
	size_t h;

	said[0] = '\0';
	for (i = ifs; i && i->if_index; i++) {
		int here = 0;

		if (only_ifindex && (int)i->if_index != only_ifindex)
			continue;
		for (h = 0; h < sizeof(hooks) / sizeof(hooks[0]); h++) {
			LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = (int)i->if_index,
				    .attach_point = hooks[h].egress ? BPF_TC_EGRESS : BPF_TC_INGRESS);
			LIBBPF_OPTS(bpf_tc_opts, opts, .handle = tc_handle(pin_dir),
				    .priority = hooks[h].prio);
			LIBBPF_OPTS(bpf_tc_opts, del, .handle = tc_handle(pin_dir),
				    .priority = hooks[h].prio);

			if (bpf_tc_query(&hook, &opts) || !ours(opts.prog_id) ||
			    bpf_tc_detach(&hook, &del))
				continue;
			removed++;
			here++;
			snprintf(said + strlen(said), size - strlen(said), "%s%s %s",
				 said[0] ? ", " : "", i->if_name, hooks[h].what);
		}
		if (here)
			bb_tc_release((int)i->if_index);	/* the qdisc, when it is empty now */
	}
	if (ifs)
		if_freenameindex(ifs);
	return removed;
}

/*
 * The tc filters on one direction of ifindex's clsact qdisc, anyone's: a netlink
 * dump, counting the filters themselves (a handle), not the protocol heads they hang
 * from. -errno when it cannot be asked; 0 when there is no clsact qdisc.
 */
static int tc_filter_count(int ifindex, int egress)
{
	struct {
		struct nlmsghdr n;
		struct tcmsg t;
	} req = {
		.n = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)),
		       .nlmsg_type = RTM_GETTFILTER, .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		       .nlmsg_seq = 1 },
		.t = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex,
		       .tcm_parent = TC_H_MAKE(TC_H_CLSACT,
					       egress ? TC_H_MIN_EGRESS : TC_H_MIN_INGRESS) },
	};
	char buf[16384];
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), count = 0;

	if (fd < 0)
		return -errno;
	if (send(fd, &req, req.n.nlmsg_len, 0) < 0) {
		count = -errno;
		goto out;
	}
	for (;;) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;

		if (len < 0) {
			count = -errno;
			goto out;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_DONE)
				goto out;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				count = e->error == -EINVAL || e->error == -ENOENT ? 0 : e->error;
				goto out;
			}
			if (h->nlmsg_type == RTM_NEWTFILTER &&
			    ((const struct tcmsg *)NLMSG_DATA(h))->tcm_handle)
				count++;
		}
	}
out:
	close(fd);
	return count;
}

int bb_tc_release(int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);
	int in = tc_filter_count(ifindex, 0), eg = tc_filter_count(ifindex, 1);

	if (in || eg)
		return in < 0 ? in : eg < 0 ? eg : 0;	/* another filter still uses it */
	return bpf_tc_hook_destroy(&hook);
}

const char *bb_xdp_mode_name(enum bb_xdp_mode mode)
{
	switch (mode) {
	case BB_XDP_NATIVE:
		return "native";
	case BB_XDP_GENERIC:
		return "generic";
	default:
		return "unknown";
	}
}

enum bb_xdp_mode bb_xdp_mode_of(int ifindex)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, opts);

	if (ifindex <= 0 || bpf_xdp_query(ifindex, 0, &opts))
		return BB_XDP_AUTO;
	if (opts.attach_mode == XDP_ATTACHED_DRV)
		return BB_XDP_NATIVE;
	if (opts.attach_mode == XDP_ATTACHED_SKB)
		return BB_XDP_GENERIC;
	return BB_XDP_AUTO;
}

int bb_attached(const char *pin_dir, const char *ifname)
{
	char path[512];

	if (!libxdp_pin_path(path, sizeof(path), pin_dir, ifname) && !access(path, F_OK))
		return 1;
	if (link_pin_path(path, sizeof(path), pin_dir, ifname))
		return 0;
	return access(path, F_OK) == 0;
}

static int link_create(int prog_fd, int ifindex, __u32 flags)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = flags);
	int fd = bpf_link_create(prog_fd, ifindex, BPF_XDP, &opts);

	return fd < 0 ? -errno : fd;
}

/* What holds an interface's XDP hook when it is not ours. */
struct foreign {
	__u32 prog_id, link_id;
	char name[BPF_OBJ_NAME_LEN];
	__u8 attach_mode;		/* XDP_ATTACHED_* */
	char owner[512];		/* another bloomblock instance's pin dir, if one */
};

/*
 * The bpf_link of ifindex's XDP program prog_id, if one holds it: its id, else 0. An
 * ifindex is only this network namespace's, and a link says no namespace: the program
 * (ids are global) tells it from another namespace's link on the same ifindex.
 */
static __u32 xdp_link_of(int ifindex, __u32 prog_id)
{
	__u32 id = 0;

	while (!bpf_link_get_next_id(id, &id)) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_link_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.type == BPF_LINK_TYPE_XDP &&
		    (int)info.xdp.ifindex == ifindex && info.prog_id == prog_id) {
			close(fd);
			return id;
		}
		close(fd);
	}
	return 0;
}

/* A bloomblock pin dir under /sys/fs/bpf holding link_id for ifname, into out. */
static void link_owner(__u32 link_id, const char *ifname, char *out, size_t size)
{
	DIR *dir = opendir("/sys/fs/bpf");
	struct dirent *de;

	out[0] = '\0';
	while (dir && (de = readdir(dir))) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);
		char path[512], pin_dir[300];
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(pin_dir, sizeof(pin_dir), "/sys/fs/bpf/%s", de->d_name);
		if (link_pin_path(path, sizeof(path), pin_dir, ifname))
			continue;
		fd = bpf_obj_get(path);
		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.id == link_id)
			snprintf(out, size, "%s", pin_dir);
		close(fd);
		if (out[0])
			break;
	}
	if (dir)
		closedir(dir);
}

static int foreign_of(int ifindex, const char *ifname, struct foreign *f)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	int fd;

	memset(f, 0, sizeof(*f));
	if (bpf_xdp_query(ifindex, 0, &q) || !q.prog_id)
		return -ENOENT;
	f->prog_id = q.prog_id;
	f->attach_mode = q.attach_mode;
	fd = bpf_prog_get_fd_by_id(q.prog_id);
	if (fd >= 0) {
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			snprintf(f->name, sizeof(f->name), "%s", info.name);
		close(fd);
	}
	f->link_id = xdp_link_of(ifindex, q.prog_id);
	if (f->link_id)
		link_owner(f->link_id, ifname, f->owner, sizeof(f->owner));
	return 0;
}

/* The refusal, with the way to remove what is there that works for how it got there. */
static void foreign_say(const char *ifname, const struct foreign *f)
{
	pr_err("%s already has an XDP program bloomblock did not attach: id %u, \"%s\"%s; it "
	       "is left alone\n", ifname, f->prog_id, f->name,
	       f->attach_mode == XDP_ATTACHED_SKB ? " (generic mode)" :
	       f->attach_mode == XDP_ATTACHED_HW ? " (offloaded)" : "");
	if (f->owner[0])
		pr_info("  another bloomblock instance holds it: bloomblock --pin-dir %s unload -i "
			"%s\n", f->owner, ifname);
	else if (f->link_id)
		pr_info("  a bpf_link holds it (id %u), kept by a process or a pin: bpftool link "
			"show id %u, then stop that process or bpftool link detach id %u\n",
			f->link_id, f->link_id, f->link_id);
	else if (!strcmp(f->name, "xdp_dispatcher"))
		pr_info("  libxdp's dispatcher (xdp-loader): xdp-loader unload %s --all\n", ifname);
	else if (!strncmp(f->name, "xdpfilt_", 8))
		pr_info("  xdp-filter's: xdp-filter unload %s\n", ifname);
	else
		pr_info("  remove it: ip link set dev %s %s off\n", ifname,
			f->attach_mode == XDP_ATTACHED_SKB ? "xdpgeneric" :
			f->attach_mode == XDP_ATTACHED_HW ? "xdpoffload" : "xdpdrv");
	pr_info("  or load --force to replace it\n");
}

/* --force: what is there detached, by its link or by netlink. */
static int foreign_detach(int ifindex, const char *ifname, const struct foreign *f)
{
	int err = 0, fd;

	if (f->link_id) {
		fd = bpf_link_get_fd_by_id(f->link_id);
		err = fd < 0 ? -errno : bpf_link_detach(fd) ? -errno : 0;
		if (fd >= 0)
			close(fd);
	} else {
		err = bpf_xdp_detach(ifindex, f->attach_mode == XDP_ATTACHED_SKB ?
				     XDP_FLAGS_SKB_MODE : f->attach_mode == XDP_ATTACHED_HW ?
				     XDP_FLAGS_HW_MODE : XDP_FLAGS_DRV_MODE, NULL);
	}
	if (err)
		pr_err("--force: cannot detach program %u from %s: %s\n", f->prog_id, ifname,
		       strerror(-err));
	else
		pr_warn("%s: replaced XDP program %u \"%s\"%s (--force)\n", ifname, f->prog_id,
			f->name, f->owner[0] ? ", another bloomblock instance's" : "");
	return err;
}

/*
 * Beside an XDP attachment, at tc ingress: the program that sends a reset's client
 * half (bloomblock_tc_xdp_reset; an XDP program sends one frame for one). A filter of
 * the instance's handle one priority after its own tc filter's. Without it a reset
 * reaches the server only: said, and the attachment stands.
 */
static void xdp_reset_attach(const struct bb_instance *inst, const char *ifname, int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = tc_handle(inst->pin_dir),
		    .priority = BB_TC_PRIORITY_XDP_RESET, .prog_fd = inst->xdp_reset_fd,
		    .flags = BPF_TC_F_REPLACE);
	int err;

	if (inst->xdp_reset_fd < 0)
		return;		/* an instance from before resets */
	err = bpf_tc_hook_create(&hook);
	if (!err || err == -EEXIST)
		err = bpf_tc_attach(&hook, &opts);
	if (err)
		pr_warn("%s: cannot attach the reset helper to tc ingress (%s): a blocked TLS or "
			"HTTP connection is reset on the server's side only\n", ifname,
			strerror(-err));
}

static void xdp_reset_detach(const char *pin_dir, int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = tc_handle(pin_dir),
		    .priority = BB_TC_PRIORITY_XDP_RESET);
	LIBBPF_OPTS(bpf_tc_opts, query, .handle = tc_handle(pin_dir),
		    .priority = BB_TC_PRIORITY_XDP_RESET);

	if (ifindex <= 0 || bpf_tc_query(&hook, &query))
		return;
	bpf_tc_detach(&hook, &opts);
	bb_tc_release(ifindex);
}

__u32 bb_xdp_reset_attached(const char *pin_dir, int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = tc_handle(pin_dir),
		    .priority = BB_TC_PRIORITY_XDP_RESET);

	if (ifindex <= 0 || bpf_tc_query(&hook, &opts))
		return 0;
	return opts.prog_id;
}

void bb_xdp_reset_ensure(const struct bb_instance *inst, const char *ifname, int ifindex)
{
	if (inst->xdp_reset_fd < 0 || bb_xdp_reset_attached(inst->pin_dir, ifindex))
		return;
	xdp_reset_attach(inst, ifname, ifindex);
	if (bb_xdp_reset_attached(inst->pin_dir, ifindex))
		pr_info("%s: the reset helper was missing at tc ingress: attached again\n", ifname);
}

/* Our program attached to ifindex by a bpf_link (auto: native, else generic): its fd. */
static int link_attach(int prog_fd, int ifindex, enum bb_xdp_mode mode, enum bb_xdp_mode *used)
{
	int fd = -EINVAL;

	if (mode == BB_XDP_AUTO || mode == BB_XDP_NATIVE) {
		fd = link_create(prog_fd, ifindex, XDP_FLAGS_DRV_MODE);
		*used = BB_XDP_NATIVE;
	}
	if (fd < 0 && (mode == BB_XDP_GENERIC || (mode == BB_XDP_AUTO && fd != -EBUSY &&
						   fd != -EEXIST))) {
		fd = link_create(prog_fd, ifindex, XDP_FLAGS_SKB_MODE);
		*used = BB_XDP_GENERIC;
	}
	return fd;
}

int bb_attach(const struct bb_instance *inst, const char *ifname, int ifindex,
	      enum bb_xdp_mode mode, enum bb_xdp_mode *used, bool force, bool libxdp)
{
	struct foreign f;
	char path[512];
	int fd, err;

	err = libxdp ? libxdp_pin_path(path, sizeof(path), inst->pin_dir, ifname) :
	      link_pin_path(path, sizeof(path), inst->pin_dir, ifname);
	if (err)
		return err;
	fd = libxdp ? bb_libxdp_attach(inst->prog_fd, ifindex, mode, used) :
	     link_attach(inst->prog_fd, ifindex, mode, used);
	if ((fd == -EBUSY || fd == -EEXIST) && !foreign_of(ifindex, ifname, &f)) {
		if (!force) {
			foreign_say(ifname, &f);
			return -EBUSY;
		}
		if (foreign_detach(ifindex, ifname, &f))
			return -EBUSY;
		return bb_attach(inst, ifname, ifindex, mode, used, false, libxdp);
	}
	if (fd < 0) {
		if (fd == -EBUSY || fd == -EEXIST)
			pr_err("%s already has an XDP program bloomblock did not attach, which it "
			       "cannot name\n", ifname);
		else
			pr_err("cannot attach XDP to %s%s: %s\n", ifname,
			       libxdp ? " through libxdp" : "", strerror(-fd));
		return fd;
	}
	if (bpf_obj_pin(fd, path)) {
		err = -errno;
		pr_err("cannot pin the %s at %s: %s\n", libxdp ? "program" : "link", path,
		       strerror(-err));
		if (libxdp)
			bb_libxdp_detach(fd, ifindex);
		else
			bpf_link_detach(fd);
		close(fd);
		return err;
	}
	close(fd);
	xdp_reset_attach(inst, ifname, ifindex);
	return 0;
}

/* The reset helper beside an XDP attachment, detached (bb_in_netns()'s fn). */
struct reset_off {
	const char *pin_dir, *ifname;
	const char *path;	/* a libxdp attachment's pin */
};

static int reset_off_here(void *arg)
{
	const struct reset_off *r = arg;

	xdp_reset_detach(r->pin_dir, (int)if_nametoindex(r->ifname));
	return 0;
}

/*
 * The program of libxdp attachment's pin (path) detached from ifname, of this
 * namespace, by libxdp, and the pin removed. Not attached there any more (the
 * interface gone, and the program with it): the pin is removed all the same.
 */
static int libxdp_detach_pin(const char *path, const char *ifname)
{
	int fd = bpf_obj_get(path), err = 0;

	if (fd >= 0) {
		err = bb_libxdp_detach(fd, (int)if_nametoindex(ifname));
		close(fd);
		if (err == -ENOENT)
			err = 0;
	}
	if (err) {
		pr_err("libxdp cannot detach bloomblock from %s: %s\n", ifname, strerror(-err));
		return err;
	}
	return unlink(path) ? -errno : 0;
}

static int libxdp_off_here(void *arg)
{
	const struct reset_off *r = arg;

	xdp_reset_detach(r->pin_dir, (int)if_nametoindex(r->ifname));
	return libxdp_detach_pin(r->path, r->ifname);
}

int bb_detach_pin(const char *pin_dir, const struct bb_attachment *a)
{
	struct reset_off r = { pin_dir, a->ifname, NULL };
	char path[512];
	int fd, err;

	if (!a->elsewhere)
		return bb_detach(pin_dir, a->ifname);
	err = bb_pin_path(path, sizeof(path), pin_dir, a->pin);
	if (err)
		return err;
	if (a->libxdp) {
		/* detached there by libxdp; a namespace that cannot be entered is gone,
		 * and its interfaces' programs with it */
		r.path = path;
		err = bb_in_netns(a->netns, libxdp_off_here, &r);
		return err == -ENOENT ? (unlink(path) ? -errno : 0) : err;
	}
	/* another namespace's: its link goes with the pin; its tc reset helper is
	 * detached there, when that namespace can be entered (else it is gone, and
	 * the helper with it) */
	bb_in_netns(a->netns, reset_off_here, &r);
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		bpf_link_detach(fd);
		close(fd);
	}
	return unlink(path) ? -errno : 0;
}

int bb_detach(const char *pin_dir, const char *ifname)
{
	char path[512];
	int fd, err = 0;

	xdp_reset_detach(pin_dir, (int)if_nametoindex(ifname));
	if (!libxdp_pin_path(path, sizeof(path), pin_dir, ifname) && !access(path, F_OK))
		return libxdp_detach_pin(path, ifname);
	err = link_pin_path(path, sizeof(path), pin_dir, ifname);
	if (err)
		return err;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	/* Fails harmlessly when the interface is gone: its link died with it. */
	bpf_link_detach(fd);
	close(fd);
	if (unlink(path))
		err = -errno;
	return err;
}

/* What a record's interface is in its namespace (bb_in_netns()): its index, our program. */
struct tc_where {
	const char *pin_dir;
	struct bb_attachment *a;
};

static int tc_where_is(void *arg)
{
	struct tc_where *w = arg;

	w->a->ifindex = (int)if_nametoindex(w->a->ifname);
	w->a->prog_id = w->a->ifindex ? bb_tc_attached(w->pin_dir, w->a->ifindex,
						       w->a->hook == BB_HOOK_TC_EGRESS) : 0;
	return 0;
}

/*
 * A record's pin name (PREFIX + IFNAME:NETNS, the prefix prefix bytes long) into a,
 * zeroed first, at hook: false when it is not a name bloomblock makes.
 */
static bool record_of(struct bb_attachment *a, const char *name, size_t prefix,
		      enum bb_hook hook)
{
	char *colon;

	if (strlen(name) >= sizeof(a->pin))
		return false;
	memset(a, 0, sizeof(*a));
	a->hook = hook;
	memcpy(a->pin, name, strlen(name) + 1);
	snprintf(a->ifname, sizeof(a->ifname), "%s", name + prefix);
	colon = strrchr(a->ifname, ':');
	if (!colon)
		return false;
	*colon = '\0';
	a->netns = strtoull(colon + 1, NULL, 10);
	a->elsewhere = a->netns != bb_netns_id();
	return true;
}

/* The tc records of pin_dir into out[count ..]: the new count. */
static int tc_records(const char *pin_dir, struct bb_attachment *out, int count, int max)
{
	size_t in = strlen(BB_PIN_TC_INGRESS_PREFIX), eg = strlen(BB_PIN_TC_EGRESS_PREFIX);
	DIR *dir = opendir(pin_dir);
	struct dirent *de;

	while (dir && (de = readdir(dir)) && count < max) {
		struct bb_attachment *a = &out[count];
		struct tc_where w = { pin_dir, a };
		bool egress = !strncmp(de->d_name, BB_PIN_TC_EGRESS_PREFIX, eg);

		if (!egress && strncmp(de->d_name, BB_PIN_TC_INGRESS_PREFIX, in))
			continue;
		if (!record_of(a, de->d_name, egress ? eg : in,
			       egress ? BB_HOOK_TC_EGRESS : BB_HOOK_TC_INGRESS))
			continue;
		/* another namespace's is asked there; one that cannot be entered is gone */
		if (bb_in_netns(a->netns, tc_where_is, &w))
			a->ifindex = 0;
		count++;
	}
	if (dir)
		closedir(dir);
	return count;
}

/* A libxdp record's interface, in its namespace (bb_in_netns()): where our program runs. */
struct libxdp_where {
	const char *path;
	struct bb_attachment *a;
};

static int libxdp_where_is(void *arg)
{
	struct libxdp_where *w = arg;
	struct bb_attachment *a = w->a;
	struct bb_libxdp_place at;
	int fd = bpf_obj_get(w->path);

	a->ifindex = (int)if_nametoindex(a->ifname);
	if (fd < 0)
		return -errno;
	if (bb_libxdp_where(fd, a->ifindex, &at)) {
		a->ifindex = 0;		/* not attached there any more: gone */
	} else {
		a->mode = at.mode;
		a->dispatcher = at.dispatcher;
		a->programs = at.programs;
		a->prio = at.prio;
	}
	close(fd);
	return 0;
}

/* The XDP attachments made through libxdp, by their pins, into out[count ..]: the new count. */
static int libxdp_records(const char *pin_dir, struct bb_attachment *out, int count, int max)
{
	size_t prefix = strlen(BB_PIN_LIBXDP_PREFIX);
	DIR *dir = opendir(pin_dir);
	struct dirent *de;

	while (dir && (de = readdir(dir)) && count < max) {
		struct bb_attachment *a = &out[count];
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		char path[512];
		struct libxdp_where w = { path, a };
		int fd;

		if (strncmp(de->d_name, BB_PIN_LIBXDP_PREFIX, prefix) ||
		    bb_pin_path(path, sizeof(path), pin_dir, de->d_name) ||
		    !record_of(a, de->d_name, prefix, BB_HOOK_XDP))
			continue;
		a->libxdp = true;
		fd = bpf_obj_get(path);
		memset(&info, 0, sizeof(info));
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			a->prog_id = info.id;
		if (fd >= 0)
			close(fd);
		/* asked where it is; a namespace that cannot be entered is gone */
		if (bb_in_netns(a->netns, libxdp_where_is, &w))
			a->ifindex = 0;
		count++;
	}
	if (dir)
		closedir(dir);
	return count;
}

int bb_attachments(const char *pin_dir, struct bb_attachment *out, int max)
{
	size_t prefix = strlen(BB_PIN_LINK_PREFIX);
	struct dirent *de;
	int count = 0;
	DIR *dir;

	dir = opendir(pin_dir);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(dir)) && count < max) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);
		struct bb_attachment *a = &out[count];
		char path[512], *colon;
		int fd;

		if (strncmp(de->d_name, BB_PIN_LINK_PREFIX, prefix))
			continue;
		if (strlen(de->d_name) >= sizeof(a->pin))
			continue;	/* not a name bloomblock makes */
		memset(a, 0, sizeof(*a));
		a->hook = BB_HOOK_XDP;
		memcpy(a->pin, de->d_name, strlen(de->d_name) + 1);
		snprintf(a->ifname, sizeof(a->ifname), "%s", de->d_name + prefix);
		colon = strchr(a->ifname, ':');
		if (colon) {
			*colon = '\0';
			a->netns = strtoull(colon + 1, NULL, 10);
		}
		a->elsewhere = a->netns && a->netns != bb_netns_id();
		if (bb_pin_path(path, sizeof(path), pin_dir, de->d_name))
			continue;
		fd = bpf_obj_get(path);
		if (fd >= 0) {
			if (!bpf_obj_get_info_by_fd(fd, &info, &len)) {
				a->link_id = info.id;
				a->prog_id = info.prog_id;
				a->ifindex = (int)info.xdp.ifindex;
				/* the mode is asked of this namespace's interfaces only */
				a->mode = a->elsewhere ? BB_XDP_AUTO : bb_xdp_mode_of(a->ifindex);
			}
			close(fd);
		}
		count++;
	}
	closedir(dir);
	count = libxdp_records(pin_dir, out, count, max);

	/* tc filters: by their records (this namespace's and others'), then asked of every
	 * interface of this namespace for one no record names (attached before records) */
	int recorded = count = tc_records(pin_dir, out, count, max);
	struct if_nameindex *ifs = if_nameindex(), *i;

	for (i = ifs; i && i->if_index && count < max; i++) {
		int egress, r;

		for (egress = 0; egress < 2 && count < max; egress++) {
			__u32 prog_id = bb_tc_attached(pin_dir, (int)i->if_index, egress);

			for (r = 0; r < recorded; r++)
				if (out[r].hook == (egress ? BB_HOOK_TC_EGRESS : BB_HOOK_TC_INGRESS) &&
				    !out[r].elsewhere && out[r].ifindex == (int)i->if_index)
					break;
			if (!prog_id || r < recorded)
				continue;
			memset(&out[count], 0, sizeof(out[count]));
			out[count].hook = egress ? BB_HOOK_TC_EGRESS : BB_HOOK_TC_INGRESS;
			snprintf(out[count].ifname, sizeof(out[count].ifname), "%s", i->if_name);
			out[count].ifindex = (int)i->if_index;
			out[count].prog_id = prog_id;
			out[count].netns = bb_netns_id();
			count++;
		}
	}
	if (ifs)
		if_freenameindex(ifs);
	return count;
}

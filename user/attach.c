// SPDX-License-Identifier: GPL-2.0
/* Attach and detach the XDP program as bpf_links pinned next to the maps. */
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "common.h"

static int link_pin_path(char *buf, size_t size, const char *pin_dir, const char *ifname)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%s", BB_PIN_LINK_PREFIX, ifname);
	return bb_pin_path(buf, size, pin_dir, name);
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

int bb_attach(const struct bb_instance *inst, const char *ifname, int ifindex,
	      enum bb_xdp_mode mode, enum bb_xdp_mode *used)
{
	char path[512];
	int fd = -EINVAL, err;

	err = link_pin_path(path, sizeof(path), inst->pin_dir, ifname);
	if (err)
		return err;
	if (mode == BB_XDP_AUTO || mode == BB_XDP_NATIVE) {
		fd = link_create(inst->prog_fd, ifindex, XDP_FLAGS_DRV_MODE);
		*used = BB_XDP_NATIVE;
	}
	if (fd < 0 && (mode == BB_XDP_GENERIC || (mode == BB_XDP_AUTO && fd != -EBUSY &&
						   fd != -EEXIST))) {
		fd = link_create(inst->prog_fd, ifindex, XDP_FLAGS_SKB_MODE);
		*used = BB_XDP_GENERIC;
	}
	if (fd < 0) {
		if (fd == -EBUSY || fd == -EEXIST)
			pr_err("%s already has an XDP program that is not ours; remove it first "
			       "(ip link set dev %s xdp off)\n", ifname, ifname);
		else
			pr_err("cannot attach XDP to %s: %s\n", ifname, strerror(-fd));
		return fd;
	}
	if (bpf_obj_pin(fd, path)) {
		err = -errno;
		pr_err("cannot pin the link at %s: %s\n", path, strerror(-err));
		bpf_link_detach(fd);
		close(fd);
		return err;
	}
	close(fd);
	return 0;
}

int bb_detach(const char *pin_dir, const char *ifname)
{
	char path[512];
	int fd, err = 0;

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
		char path[512];
		int fd;

		if (strncmp(de->d_name, BB_PIN_LINK_PREFIX, prefix))
			continue;
		memset(a, 0, sizeof(*a));
		snprintf(a->ifname, sizeof(a->ifname), "%s", de->d_name + prefix);
		if (bb_pin_path(path, sizeof(path), pin_dir, de->d_name))
			continue;
		fd = bpf_obj_get(path);
		if (fd >= 0) {
			if (!bpf_obj_get_info_by_fd(fd, &info, &len)) {
				a->link_id = info.id;
				a->prog_id = info.prog_id;
				a->ifindex = (int)info.xdp.ifindex;
				a->mode = bb_xdp_mode_of(a->ifindex);
			}
			close(fd);
		}
		count++;
	}
	closedir(dir);
	return count;
}

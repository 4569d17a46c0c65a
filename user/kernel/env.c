// SPDX-License-Identifier: GPL-2.0
/* What the host must offer: root and capabilities, a BPF filesystem, the interface; libbpf's messages. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdbool.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <bpf/libbpf.h>

#include "env.h"
#include "msg.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif

static bool has_cap(const struct __user_cap_data_struct *data, int cap)
{
	return data[cap / 32].effective & (1U << (cap % 32));
}

int bb_require_root(void)
{
	static const struct { int cap; const char *name; } caps[] = {
		{ CAP_BPF, "CAP_BPF" }, { CAP_PERFMON, "CAP_PERFMON" },
		{ CAP_NET_ADMIN, "CAP_NET_ADMIN" }, { CAP_SYS_ADMIN, "CAP_SYS_ADMIN" },
	};
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = { { 0 } };
	char lacks[96] = "";
	size_t i;

	if (geteuid() == 0)
		return 0;
	/* what it lacks, by name: a user's process has none of them, one with file or
	 * ambient capabilities some, and root's files (pins, state) stay root's anyway */
	if (!syscall(SYS_capget, &hdr, data))
		for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
			if (!has_cap(data, caps[i].cap))
				snprintf(lacks + strlen(lacks), sizeof(lacks) - strlen(lacks), " %s",
					 caps[i].name);
	pr_err("bloomblock needs root, with CAP_BPF, CAP_PERFMON, CAP_NET_ADMIN and "
	       "CAP_SYS_ADMIN; this process (uid %u) is not root%s%s: run it with sudo\n",
	       (unsigned int)geteuid(), lacks[0] ? " and lacks" : "", lacks);
	return -EPERM;
}

int bb_require_bpf_caps(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = { { 0 } };
	bool admin, bpf, perfmon, net;

	if (syscall(SYS_capget, &hdr, data))
		return 0;	/* cannot tell: the kernel will say */
	admin = has_cap(data, CAP_SYS_ADMIN);
	bpf = admin || has_cap(data, CAP_BPF);
	perfmon = admin || has_cap(data, CAP_PERFMON);
	net = has_cap(data, CAP_NET_ADMIN);
	if (bpf && perfmon && net)
		return 0;
	/* root in a container or a unit that dropped them: the kernel would say EPERM */
	pr_err("loading needs the capabilities CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN (or "
	       "CAP_SYS_ADMIN for the first two); this process lacks%s%s%s: grant them (a "
	       "systemd unit: AmbientCapabilities=CAP_BPF CAP_PERFMON CAP_NET_ADMIN CAP_SYS_ADMIN, the last for "
	       "opening the live filter by its map id)\n",
	       bpf ? "" : " CAP_BPF", perfmon ? "" : " CAP_PERFMON", net ? "" : " CAP_NET_ADMIN");
	return -EPERM;
}

const char *bb_pin_dir_canonical(const char *in)
{
	static char out[256];
	char buf[PATH_MAX], cwd[PATH_MAX], *comp[128], *save = NULL, *t;
	size_t n = 0, i, len = 0;

	int w;

	if (in[0] != '/' && getcwd(cwd, sizeof(cwd)))
		w = snprintf(buf, sizeof(buf), "%s/%s", cwd, in);
	else
		w = snprintf(buf, sizeof(buf), "%s", in);
	if (w < 0 || (size_t)w >= sizeof(buf))
		return in;	/* too long to be a pin dir: said where it is used */
	/* lexically: no empty, "." or ".." component, no trailing slash */
	for (t = strtok_r(buf, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
		if (!strcmp(t, "."))
			continue;
		if (!strcmp(t, "..")) {
			if (n)
				n--;
			continue;
		}
		if (n < sizeof(comp) / sizeof(comp[0]))
			comp[n++] = t;
	}
	out[0] = 0;
	for (i = 0; i < n && len < sizeof(out); i++)
		len += (size_t)snprintf(out + len, sizeof(out) - len, "/%s", comp[i]);
	if (!n)
		snprintf(out, sizeof(out), "/");
	return out;
}

/* The name ip netns gave this network namespace (/run/netns/NAME), or "". */
static void netns_name(char *name, size_t size)
{
	struct stat self, st;
	struct dirent *d;
	char path[300];
	DIR *dir;

	name[0] = '\0';
	if (stat("/proc/self/ns/net", &self) || !(dir = opendir("/run/netns")))
		return;
	while ((d = readdir(dir))) {
		snprintf(path, sizeof(path), "/run/netns/%s", d->d_name);
		if (d->d_name[0] != '.' && !stat(path, &st) && st.st_ino == self.st_ino) {
			snprintf(name, size, "%s", d->d_name);
			break;
		}
	}
	closedir(dir);
}

int bb_require_bpffs(const char *pin_dir)
{
	char buf[PATH_MAX], name[256], *dir;
	struct statfs st;

	snprintf(buf, sizeof(buf), "%s", pin_dir);
	dir = dirname(buf);
	if (statfs(dir, &st) == 0 && st.f_type == BPF_FS_MAGIC)
		return 0;
	netns_name(name, sizeof(name));
	if (access(dir, F_OK))
		pr_err("%s: %s does not exist; the pin directory must be on a BPF filesystem, "
		       "e.g. under /sys/fs/bpf\n", pin_dir, dir);
	else if (!strcmp(dir, "/sys/fs/bpf") && name[0])
		/* ip netns exec: a mount namespace of its own with a fresh /sys, which hides
		 * the host's bpffs; a mount there would hide the pins for good */
		pr_err("%s is not on a BPF filesystem here: this runs in the network namespace "
		       "%s, and ip netns exec gives what it runs a /sys of its own, which hides "
		       "the host's /sys/fs/bpf and the pins in it; do not mount a new one there "
		       "(its pins would not be the host's): run bloomblock with nsenter "
		       "--net=/run/netns/%s, which changes the network namespace only\n", pin_dir,
		       name, name);
	else if (!strcmp(dir, "/sys/fs/bpf"))
		pr_err("%s is not on a BPF filesystem: mount it with: mount -t bpf bpf /sys/fs/bpf\n",
		       pin_dir);
	else	/* never advise to mount over a directory of the system (/, /tmp, /run) */
		pr_err("%s is not on a BPF filesystem: %s is not one; put the pin directory under "
		       "/sys/fs/bpf (mounted with: mount -t bpf bpf /sys/fs/bpf), e.g. "
		       "--pin-dir /sys/fs/bpf/%s\n", pin_dir, dir, strrchr(pin_dir, '/') ?
		       strrchr(pin_dir, '/') + 1 : pin_dir);
	return -ENOENT;
}

int bb_require_ifindex(const char *ifname, int *ifindex)
{
	unsigned int idx = if_nametoindex(ifname);

	if (!idx) {
		pr_err("no interface named '%s' (see: ip link show)\n", ifname);
		return -ENODEV;
	}
	*ifindex = (int)idx;
	return 0;
}

/* The last program the kernel refused, and its verifier log's last line (libbpf's WARN). */
static struct bb_refusal refusal;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBBPF_WARN && !bb_msg.debug)
		return 0;
	/* netlink's answers to tc queries of interfaces without our filter: expected */
	if (!bb_msg.debug && strstr(fmt, "Kernel error message:"))
		return 0;
	if (!bb_msg.debug && (strstr(fmt, "PROG LOAD LOG") || strstr(fmt, "failed to load") ||
			      strstr(fmt, "load failed"))) {
		va_list cp;
		char *text;
		bool noted = false;
		int n;

		va_copy(cp, ap);
		n = vsnprintf(NULL, 0, fmt, cp);
		va_end(cp);
		text = n >= 0 ? malloc((size_t)n + 1) : NULL;
		if (text) {
			va_copy(cp, ap);
			vsnprintf(text, (size_t)n + 1, fmt, cp);
			va_end(cp);
			noted = bb_refusal_note(&refusal, text);
			free(text);
		}
		if (noted)
			return 0;
	}
	return vfprintf(stderr, fmt, ap);
}

const char *bb_kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	return u.release;
}

const char *bb_libbpf_refusal(char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s%s", refusal.prog[0] ? "program " : "", refusal.prog,
		 refusal.prog[0] && refusal.last[0] ? ": " : "", refusal.last);
	return buf[0] ? buf : NULL;
}

void bb_libbpf_setup(void)
{
	libbpf_set_print(libbpf_print);
}


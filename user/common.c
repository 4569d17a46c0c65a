// SPDX-License-Identifier: GPL-2.0
/* Messages, checks and JSON output shared by every command. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/libbpf.h>

#include "common.h"

struct bb_global bb_opts = {
	.pin_dir = "/sys/fs/bpf/bloomblock",
};

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
}

void pr_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("Error: ", fmt, ap);
	va_end(ap);
}

void pr_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("Warning: ", fmt, ap);
	va_end(ap);
}

/* Progress and summaries go to stderr, so stdout stays clean for -j. */
void pr_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void bb_json_print(json_t *value)
{
	size_t flags = bb_opts.pretty ? JSON_INDENT(2) : JSON_COMPACT;

	flags |= JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6);
	json_dumpf(value, stdout, flags);
	fputc('\n', stdout);
	json_decref(value);
}

const char *bb_human_bytes(unsigned long long bytes, char *buf, size_t size)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	unsigned int u = 0;

	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%llu bytes", bytes);
	else
		snprintf(buf, size, "%.1f %s", v, units[u]);
	return buf;
}

int bb_require_root(void)
{
	if (geteuid() == 0)
		return 0;
	pr_err("bloomblock needs root (CAP_BPF and CAP_NET_ADMIN): run it with sudo\n");
	return -EPERM;
}

int bb_require_bpffs(const char *pin_dir)
{
	char buf[PATH_MAX], *dir;
	struct statfs st;

	snprintf(buf, sizeof(buf), "%s", pin_dir);
	dir = dirname(buf);
	if (statfs(dir, &st) == 0 && st.f_type == BPF_FS_MAGIC)
		return 0;
	if (access(dir, F_OK))
		pr_err("%s: %s does not exist; the pin directory must be on a BPF filesystem, "
		       "e.g. under /sys/fs/bpf\n", pin_dir, dir);
	else
		pr_err("%s is not on a BPF filesystem; mount one with: mount -t bpf bpf %s\n",
		       pin_dir, dir);
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

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBBPF_WARN && !bb_opts.debug)
		return 0;
	/* netlink's answers to tc queries of interfaces without our filter: expected */
	if (!bb_opts.debug && strstr(fmt, "Kernel error message:"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void bb_libbpf_setup(void)
{
	libbpf_set_print(libbpf_print);
}

// SPDX-License-Identifier: GPL-2.0
/* Messages, checks and JSON output shared by every command. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <bpf/libbpf.h>

#include "bloomblock.h"
#include "common.h"
#include "outfile.h"
#include "filter.h"

struct bb_global bb_opts = {
	.pin_dir = "/sys/fs/bpf/bloomblock",
};

/*
 * Under -j, the first error is also kept, so that a command that fails before it
 * prints its JSON prints {"error": ...} instead, as bpftool does. An error message
 * may be finished by pr_info() calls: it is kept until its newline.
 */
static char first_error[512];
static bool error_open, json_printed;

static void keep_error(const char *fmt, va_list ap)
{
	size_t used = strlen(first_error);

	if (used + 1 < sizeof(first_error))
		vsnprintf(first_error + used, sizeof(first_error) - used, fmt, ap);
	used = strlen(first_error);
	error_open = !used || first_error[used - 1] != '\n';
	if (!error_open)
		first_error[used - 1] = '\0';
}

/* Whether the next message starts a line: a syslog prefix goes only there. */
static bool line_start = true;

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	char buf[4096];
	int n;

	if (!bb_opts.syslog) {
		fputs(prefix, stderr);
		vfprintf(stderr, fmt, ap);
		return;
	}
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (line_start)
		fputs(prefix, stderr);
	fputs(buf, stderr);
	if (n > 0)
		line_start = (size_t)n < sizeof(buf) ? buf[n - 1] == '\n' : true;
}

void pr_err(const char *fmt, ...)
{
	va_list ap;

	if (bb_opts.json && !first_error[0]) {
		va_start(ap, fmt);
		keep_error(fmt, ap);
		va_end(ap);
	}
	va_start(ap, fmt);
	vmsg(bb_opts.syslog ? "<3>" : "Error: ", fmt, ap);
	va_end(ap);
}

void bb_json_error_flush(void)
{
	if (!bb_opts.json || json_printed || !first_error[0])
		return;
	bb_json_print(json_pack("{s:s}", "error", first_error));
}

void pr_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(bb_opts.syslog ? "<4>" : "Warning: ", fmt, ap);
	va_end(ap);
}

/* Progress and summaries go to stderr, so stdout stays clean for -j. */
void pr_info(const char *fmt, ...)
{
	va_list ap;

	if (error_open) {
		va_start(ap, fmt);
		keep_error(fmt, ap);
		va_end(ap);
	}
	va_start(ap, fmt);
	vmsg(bb_opts.syslog ? "<6>" : "", fmt, ap);
	va_end(ap);
}

const char *bb_mode_name(unsigned int hdr_flags)
{
	return hdr_flags & BB_HDR_F_CONFIRM ? "confirm" : hdr_flags & BB_HDR_F_DROP ? "drop" :
	       "flag";
}

void bb_json_print(json_t *value)
{
	size_t flags = bb_opts.pretty ? JSON_INDENT(2) : JSON_COMPACT;

	json_printed = true;

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
	else if (!strcmp(dir, "/sys/fs/bpf"))
		pr_err("%s is not on a BPF filesystem: mount it with: mount -t bpf bpf /sys/fs/bpf\n",
		       pin_dir);
	else	/* never advice to mount over a directory of the system (/, /tmp, /run) */
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

json_t *bb_checks_json(const unsigned int *probes, const double *fpr)
{
	json_t *o = json_object();
	unsigned int c;

	for (c = 0; c < BB_CHECK_MAX; c++)
		json_object_set_new(o, bb_check_name(c), probes[c] ? json_real(fpr[c]) : json_null());
	return o;
}

void bb_stdin_items(void (*fn)(void *ctx, const char *item), void *ctx)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, stdin)) > 0) {
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' ||
			       line[len - 1] == ' ' || line[len - 1] == '\t'))
			line[--len] = 0;
		if (len && line[0] != '#')
			fn(ctx, line);
	}
	free(line);
}

int bb_json_write(json_t *j, const char *path, size_t flags)
{
	char tmp[PATH_MAX];
	FILE *f;
	int err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = bb_tmp_fopen(tmp, 0600);
	if (!f)
		return -errno;
	errno = 0;	/* a short write's own reason, said as it is */
	if (json_dumpf(j, f, flags) || fflush(f))
		err = errno ? -errno : -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return bb_tmp_commit(tmp, path, err);
}

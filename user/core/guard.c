// SPDX-License-Identifier: GPL-2.0
/* The guard: the host's own addresses, gateways, resolvers, loopback and link-local. */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"
#include "guard.h"

/* One item, unless an equal one is there or there is no room. */
static void add(struct bb_guard *g, enum bb_entry_kind kind, const void *addr, unsigned int plen,
		bool allowed, const char *why)
{
	struct bb_entry e = { .kind = kind, .plen = (__u8)plen };
	unsigned int bytes = kind == BB_ENTRY_IP4 ? 4 : 16, i;

	memcpy(e.addr, addr, bytes);
	/* the prefix itself: host bits cleared */
	for (i = plen; i < bytes * 8; i++)
		e.addr[i / 8] &= (__u8)~(0x80 >> (i % 8));
	for (i = 0; i < g->n; i++)
		if (g->watch[i].kind == kind && g->watch[i].plen == plen &&
		    !memcmp(g->watch[i].addr, e.addr, 16))
			return;
	if (g->n == BB_WATCH_MAX)
		return;
	g->watch[g->n] = e;
	g->allowed[g->n] = allowed;
	snprintf(g->why[g->n], sizeof(g->why[0]), "%s", why);
	g->n++;
}

static void add_text(struct bb_guard *g, const char *text, unsigned int plen, bool allowed,
		     const char *why)
{
	__u8 a[16] = { 0 };

	if (inet_pton(AF_INET, text, a) == 1)
		add(g, BB_ENTRY_IP4, a, plen > 32 ? 32 : plen, allowed, why);
	else if (inet_pton(AF_INET6, text, a) == 1)
		add(g, BB_ENTRY_IP6, a, plen, allowed, why);
}

static unsigned int mask_len(const __u8 *m, unsigned int bytes)
{
	unsigned int n = 0, i;

	for (i = 0; i < bytes * 8 && (m[i / 8] & (0x80 >> (i % 8))); i++)
		n++;
	return n;
}

static bool is_named(const char *name, const char *const *ifnames, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, ifnames[i]))
			return true;
	return false;
}

/* The interfaces' addresses (allowed) and networks (watched). */
static void interfaces(struct bb_guard *g, const char *const *ifnames, unsigned int n)
{
	struct ifaddrs *ifa, *i;
	char why[64];

	if (!n || getifaddrs(&ifa))
		return;
	for (i = ifa; i; i = i->ifa_next) {
		const __u8 *addr, *mask;
		unsigned int bytes, plen;
		enum bb_entry_kind kind;

		if (!i->ifa_addr || !i->ifa_name || !is_named(i->ifa_name, ifnames, n))
			continue;
		if (i->ifa_addr->sa_family == AF_INET) {
			addr = (const __u8 *)&((struct sockaddr_in *)i->ifa_addr)->sin_addr;
			mask = i->ifa_netmask ?
			       (const __u8 *)&((struct sockaddr_in *)i->ifa_netmask)->sin_addr : NULL;
			bytes = 4;
			kind = BB_ENTRY_IP4;
		} else if (i->ifa_addr->sa_family == AF_INET6) {
			addr = (const __u8 *)&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
			mask = i->ifa_netmask ?
			       (const __u8 *)&((struct sockaddr_in6 *)i->ifa_netmask)->sin6_addr :
			       NULL;
			bytes = 16;
			kind = BB_ENTRY_IP6;
		} else {
			continue;
		}
		snprintf(why, sizeof(why), "%s's address", i->ifa_name);
		add(g, kind, addr, bytes * 8, true, why);
		plen = mask ? mask_len(mask, bytes) : bytes * 8;
		if (plen < bytes * 8 && !(kind == BB_ENTRY_IP6 && addr[0] == 0xfe &&
					  (addr[1] & 0xc0) == 0x80)) {
			snprintf(why, sizeof(why), "%s's network", i->ifa_name);
			add(g, kind, addr, plen, false, why);
		}
	}
	freeifaddrs(ifa);
}

/*
 * /proc/net/route: a default route's gateway, printed as the u32 of its bytes in the
 * host's order: read back as one, its bytes in memory are the address (x86, arm64).
 */
static void gateways4(struct bb_guard *g, const char *path)
{
	char line[512], ifname[64], why[96];
	unsigned int dst, gw, flags, mask;
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %x %x %x %*s %*s %*s %x", ifname, &dst, &gw, &flags,
			   &mask) != 5 || dst || mask || !gw)
			continue;
		snprintf(why, sizeof(why), "the default gateway (via %s)", ifname);
		add(g, BB_ENTRY_IP4, &gw, 32, true, why);	/* gw's bytes: network order */
	}
	fclose(f);
}

/* /proc/net/ipv6_route: destination, its length, source, its length, next hop, ... */
static void gateways6(struct bb_guard *g, const char *path)
{
	char line[512], dst[33], hop[33], ifname[64], why[96];
	unsigned int plen, i, b;
	FILE *f = fopen(path, "r");
	__u8 a[16];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%32s %x %*s %*s %32s %*s %*s %*s %*s %63s", dst, &plen, hop,
			   ifname) != 4 || plen || strspn(dst, "0") != 32 || strspn(hop, "0") == 32)
			continue;
		for (i = 0; i < 16 && sscanf(hop + 2 * (size_t)i, "%2x", &b) == 1; i++)
			a[i] = (__u8)b;
		if (i < 16)
			continue;
		snprintf(why, sizeof(why), "the default gateway (via %s)", ifname);
		add(g, BB_ENTRY_IP6, a, 128, true, why);
	}
	fclose(f);
}

static void resolvers(struct bb_guard *g, const char *path)
{
	char line[512], addr[128];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *pct;

		if (sscanf(line, " nameserver %127s", addr) != 1)
			continue;
		pct = strchr(addr, '%');	/* fe80::1%eth0: the zone is no part of it */
		if (pct)
			*pct = '\0';
		add_text(g, addr, 128, true, "a resolver in /etc/resolv.conf");
	}
	fclose(f);
}

void bb_guard_collect(struct bb_guard *g, const char *const *ifnames, unsigned int n,
		      const struct bb_guard_paths *paths)
{
	static const struct bb_guard_paths system = {
		"/proc/net/route", "/proc/net/ipv6_route", "/etc/resolv.conf",
	};

	memset(g, 0, sizeof(*g));
	add_text(g, "127.0.0.0", 8, true, "loopback");
	add_text(g, "::1", 128, true, "loopback");
	add_text(g, "169.254.0.0", 16, true, "link-local");
	add_text(g, "fe80::", 10, true, "link-local");
	interfaces(g, ifnames, n);
	if (!paths)
		paths = &system;
	gateways4(g, paths->route4 ?: system.route4);
	gateways6(g, paths->route6 ?: system.route6);
	resolvers(g, paths->resolv ?: system.resolv);
}

int bb_guard_write(const struct bb_guard *g, const char *path)
{
	char tmp[600];
	unsigned int i;
	FILE *f;
	int err;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = bb_tmp_fopen(tmp, 0600);
	if (!f)
		return -errno;
	fprintf(f, "# bloomblock's guard: what this host needs, never dropped (load --no-guard)\n");
	for (i = 0; i < g->n; i++) {
		char text[80];

		if (!g->allowed[i])
			continue;
		bb_entry_text(&g->watch[i], text, sizeof(text));
		fprintf(f, "%-40s # %s\n", text, g->why[i]);
	}
	if (fflush(f) || ferror(f)) {
		err = -errno;
		fclose(f);
		unlink(tmp);
		return err ? err : -EIO;
	}
	if (fclose(f) || rename(tmp, path)) {
		err = -errno;
		unlink(tmp);
		return err;
	}
	return 0;
}

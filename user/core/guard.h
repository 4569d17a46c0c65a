/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guard: what the host needs to reach (its interfaces' addresses, its default
 * gateways, its resolvers, loopback, link-local) is never dropped: an implicit
 * allowlist, written to the state directory for every load to read. The host's own
 * networks are watched too: a list that covers them gets a warning, no more.
 */
#ifndef BB_GUARD_H
#define BB_GUARD_H

#include <stdbool.h>

#include "list.h"

#define BB_GUARD_FILE	"guard.list"	/* the implicit allowlist, as a plain list */
#define BB_GUARD_OFF	"guard.off"	/* present: --no-guard was given, and holds */

struct bb_guard {
	struct bb_entry watch[BB_WATCH_MAX];	/* what a list should not cover */
	char why[BB_WATCH_MAX][64];		/* "bbd0's address", "a resolver (...)" */
	bool allowed[BB_WATCH_MAX];		/* in the implicit allowlist; else a
						 * network of the host: a warning only */
	unsigned int n;
};

/* Where the routes and resolvers are read; NULL fields: the system's. */
struct bb_guard_paths {
	const char *route4;	/* /proc/net/route */
	const char *route6;	/* /proc/net/ipv6_route */
	const char *resolv;	/* /etc/resolv.conf */
};

/*
 * What the host needs, for the interfaces ifnames[0..n) (those attached, and those
 * being attached): their addresses and networks, the default gateways, the
 * resolvers, loopback and link-local. Never fails: what cannot be read is left out,
 * and there is room for BB_WATCH_MAX items. paths: NULL for the system's files.
 */
void bb_guard_collect(struct bb_guard *g, const char *const *ifnames, unsigned int n,
		      const struct bb_guard_paths *paths);

/* Write the allowed items to path as a plain list, each with its reason. 0 or -errno. */
int bb_guard_write(const struct bb_guard *g, const char *path);

#endif /* BB_GUARD_H */

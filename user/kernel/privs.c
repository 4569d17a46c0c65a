// SPDX-License-Identifier: GPL-2.0
/*
 * Capabilities dropped after start (privs.h), with libcap. Why each kept one stays:
 *   CAP_BPF        a reload's child load creates maps and loads programs; the daemon
 *                  reads its rings and maps
 *   CAP_PERFMON    the verifier's pointer arithmetic in the programs a reload loads
 *   CAP_NET_ADMIN  attaching (a reload re-attaches the tc helper, on_exit = detach
 *                  detaches)
 *   CAP_SYS_ADMIN  opening the live filter by its map id (BPF_MAP_GET_FD_BY_ID), which
 *                  the daemon's metrics and a reload's swap do
 * the same four as scripts/bloomblock@.service's bounding set; what root has beyond
 * them (CAP_DAC_OVERRIDE, CAP_SYS_MODULE, CAP_SYS_PTRACE, CAP_SETUID, ...) goes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "privs.h"

static const cap_value_t kept[] = { CAP_BPF, CAP_NET_ADMIN, CAP_PERFMON, CAP_SYS_ADMIN };

static bool is_kept(cap_value_t c, bool bind_low)
{
	size_t i;

	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (kept[i] == c)
			return true;
	return bind_low && c == CAP_NET_BIND_SERVICE;
}

int bb_caps_drop(bool bind_low, char *said, size_t size)
{
	cap_t now = cap_get_proc(), want = cap_init();
	cap_flag_value_t setpcap = CAP_CLEAR;
	cap_value_t c, last = (cap_value_t)cap_max_bits() - 1;
	unsigned int bound = 0, gone = 0;
	int err = 0;

	said[0] = '\0';
	if (!now || !want) {
		err = -errno;
		goto out;
	}
	cap_get_flag(now, CAP_SETPCAP, CAP_EFFECTIVE, &setpcap);
	/* the bounding set first: dropping from it takes CAP_SETPCAP, still held here */
	for (c = 0; c <= last && setpcap == CAP_SET; c++) {
		if (is_kept(c, bind_low) || CAP_IS_SUPPORTED(c) != 1 || cap_get_bound(c) != 1)
			continue;
		if (cap_drop_bound(c)) {
			err = -errno;
			goto out;
		}
		bound++;
	}
	/* then the process's own sets: the kept ones it has, nothing else */
	for (c = 0; c <= last; c++) {
		cap_flag_value_t p = CAP_CLEAR, i = CAP_CLEAR;

		cap_get_flag(now, c, CAP_PERMITTED, &p);
		cap_get_flag(now, c, CAP_INHERITABLE, &i);
		if (p != CAP_SET)
			continue;
		if (!is_kept(c, bind_low)) {
			gone++;
			continue;
		}
		cap_set_flag(want, CAP_PERMITTED, 1, &c, CAP_SET);
		cap_set_flag(want, CAP_EFFECTIVE, 1, &c, CAP_SET);
		if (i == CAP_SET)	/* an ambient capability needs it, to reach a child */
			cap_set_flag(want, CAP_INHERITABLE, 1, &c, CAP_SET);
	}
	if (cap_set_proc(want) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		err = -errno;
		goto out;
	}
	snprintf(said, size, "kept CAP_BPF CAP_NET_ADMIN CAP_PERFMON CAP_SYS_ADMIN%s; dropped "
		 "%u others%s, no new privileges", bind_low ? " CAP_NET_BIND_SERVICE" : "", gone,
		 bound ? " (the bounding set too)" : "");
out:
	cap_free(now);
	cap_free(want);
	return err;
}

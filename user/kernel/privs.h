/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Least privilege for bloomblock run: once it has attached and opened what it serves,
 * it keeps the capabilities a reload and its own reads need and drops the rest, from
 * its bounding set too, so that neither it nor a child it runs can take them back.
 */
#ifndef BB_PRIVS_H
#define BB_PRIVS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Keep CAP_BPF, CAP_NET_ADMIN, CAP_PERFMON and CAP_SYS_ADMIN (and CAP_NET_BIND_SERVICE
 * when bind_low: /metrics on a port below 1024), drop every other from the effective,
 * permitted and inheritable sets and, with CAP_SETPCAP, from the bounding set; set
 * no-new-privileges. Call it while the process has one thread (capabilities are a
 * thread's). What was kept and dropped goes to said. 0, or -errno.
 */
int bb_caps_drop(bool bind_low, char *said, size_t size);

#endif /* BB_PRIVS_H */

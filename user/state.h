/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The instance's files beside its pins (a BPF filesystem holds no regular files):
 * the lock that orders loads and live changes, and the items `allow` added live.
 */
#ifndef BB_STATE_H
#define BB_STATE_H

#include <stdbool.h>
#include <stddef.h>


#define BB_STATE_ROOT		"/run/bloomblock"
#define BB_STATE_ALLOW		"allow.list"	/* one item a line, a plain list */

/*
 * The state directory: --state-dir, else BB_STATE_ROOT/ and the pin directory's path
 * with '/' as '-' (/sys/fs/bpf/bloomblock: /run/bloomblock/sys-fs-bpf-bloomblock).
 */
const char *bb_state_dir(void);
/* A file in it. -ENAMETOOLONG when the path does not fit. */
int bb_state_path(char *buf, size_t size, const char *name);

/*
 * Take the instance's lock (made, with the directory, when missing): a load holds it
 * from reading the live allowlist's file to the swap; allow and disallow while they
 * change the live map and the file. Returns the lock's fd (close() releases it), or
 * -errno, said.
 */
int bb_state_lock(void);

/* Remove the state directory and what is in it. 0 also when there was none. */
int bb_state_remove(void);

#endif /* BB_STATE_H */

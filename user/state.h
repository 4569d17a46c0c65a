/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The instance's files beside its pins (a BPF filesystem holds no regular files):
 * the lock that orders loads and live changes, and the items `allow` added live.
 */
#ifndef BB_STATE_H
#define BB_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "bloomblock.h"

struct bb_index_view;

#define BB_STATE_ROOT		"/run/bloomblock"
#define BB_STATE_ALLOW		"allow.list"	/* one item a line, a plain list */
#define BB_STATE_INDEX		"index.bin"	/* the live filter's key index (filter.h) */
#define BB_STATE_SHADOW		"shadow.bin"	/* its counting shadow (filter_live.c) */
#define BB_STATE_LOADED		"loaded.json"	/* what the last load loaded, when, from what */
#define BB_STATE_RUN		"run.json"	/* the daemon's loads: the last one's result */

/*
 * The state directory: --state-dir, else BB_STATE_ROOT/ and the pin directory's path
 * with '/' as '-' (/sys/fs/bpf/bloomblock: /run/bloomblock/sys-fs-bpf-bloomblock).
 */
const char *bb_state_dir(void);
/* A file in it. -ENAMETOOLONG when the path does not fit. */
int bb_state_path(char *buf, size_t size, const char *name);
/*
 * The key index load wrote, opened when it is the index of the filter in image (the
 * same seed, generation and map): 0, or <0 with *v empty (none, or another filter's).
 */
int bb_state_index(const struct bb_block *image, struct bb_index_view *v);

/*
 * Take the instance's lock (made, with the directory, when missing): a load holds it
 * from reading the live allowlist's file to the swap; allow and disallow while they
 * change the live map and the file. Returns the lock's fd (close() releases it), or
 * -errno, said.
 */
int bb_state_lock(void);

/* mkdir -p dir: made 0700, its parents 0755. 0, or -errno. */
int bb_state_mkdirs(const char *dir);

/* Remove the state directory and what is in it. 0 also when there was none. */
int bb_state_remove(void);

#endif /* BB_STATE_H */

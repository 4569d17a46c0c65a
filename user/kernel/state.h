/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The instance's files beside its pins (a BPF filesystem holds no regular files):
 * the lock that orders loads and live changes, the items `allow` added live, the key
 * index, the daemon's records. Only these names are ever removed, and the directory
 * only when bloomblock made it.
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
#define BB_STATE_RUN_LOCK	"run.lock"	/* held by the one bloomblock run of an instance */
#define BB_STATE_FEEDS		"feeds.json"	/* every feed's last fetch */
#define BB_STATE_FEED_DIR	"feeds"		/* the feeds' copies, by default */
#define BB_STATE_XDP		"xdp.json"	/* how load attached at XDP, and why */
#define BB_STATE_EVENTS		"events.sock"	/* the events' owner serves the other readers */
#define BB_STATE_REFUSED	"refused.json"	/* the last load, refused by the reload guard */
#define BB_STATE_MADE		".bloomblock"	/* present: bloomblock made this directory */

/*
 * Where the instance at pin_dir keeps its state: state_dir when given (--state-dir, a
 * config's state_dir), else where the instance records it (bb_state_record()), else
 * BB_STATE_ROOT/ and the pin directory's path with '/' as '-' (/sys/fs/bpf/bloomblock:
 * /run/bloomblock/sys-fs-bpf-bloomblock). Settled at the first bb_state_dir() after.
 */
void bb_state_init(const char *pin_dir, const char *state_dir);
const char *bb_state_dir(void);
/* Whether it was given, not found in the record or by default. */
bool bb_state_dir_given(void);
/*
 * Write where the state lives into the instance's record (pins.h): a load or the
 * daemon with a state directory given, so that a command given only the pin dir finds
 * it. -EEXIST, said, when the record names another directory (two locks would not
 * order anything); 0 when there is nothing to record.
 */
int bb_state_record(void);
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

/*
 * mkdir -p dir: made 0700, its parents 0755; the directory itself, when this made
 * it, marked (BB_STATE_MADE) as bloomblock's to remove. 0, or -errno.
 */
int bb_state_mkdirs(const char *dir);

/*
 * Remove the state directory's files, by name (BB_STATE_*, their .tmp, the feeds'
 * copies feeds.json names), and the directory when bloomblock made it and nothing
 * else is in it. A file of anyone else stays, as does a directory bloomblock did not
 * make. 0 also when there was none.
 */
int bb_state_remove(void);
/* The same for a directory a failed first load made: only when it holds nothing else. */
void bb_state_remove_made(void);

#endif /* BB_STATE_H */

/* SPDX-License-Identifier: GPL-2.0 */
/* The daemon's config file: bloomblock run --config FILE (config.c). */
#ifndef BB_CONFIG_H
#define BB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "fetch.h"

#define BB_RUN_MAX_ARGS		256	/* load's options a config gives, as arguments */
#define BB_RUN_MAX_LISTS	64	/* list and allow keys */
#define BB_RUN_CONFIG_MAX	(1 << 20)	/* bytes of a config file at most */
#define BB_RUN_MAX_FILES	4096	/* files their globs match, in all */

struct bb_run_config {
	char *argv[BB_RUN_MAX_ARGS];	/* load's options: "--mode", "confirm", ... */
	int argc;
	int arg_line[BB_RUN_MAX_ARGS];	/* the line of the file each came from */
	struct {
		char *pattern;		/* a path or a glob */
		bool allow;		/* allow = ...: an allowlist */
		bool url;		/* an http(s) URL: a feed (feed.h) */
		int line;		/* in the file */
	} lists[BB_RUN_MAX_LISTS];
	size_t n_lists;
	char pin_dir[256], state_dir[256];	/* "": the default */
	char metrics[128];			/* ADDR:PORT, "off"; "": not said (the default) */
	double refresh_s;			/* 0: no refresh but SIGHUP */
	bool detach_on_exit;			/* on_exit = detach */
	bool no_watch;				/* watch = no: changed files not noticed */
	char feed_dir[256];			/* feeds' copies; "": the state dir's feeds/ */
	char feed_cafile[256];
	struct bb_feed_opts feed;		/* feed_timeout, feed_max_size, ... */
};

/*
 * Read and check path: 0, or -errno with every problem said as
 * "FILE:LINE: KEY: reason" (or the file's own error). rc is empty on failure.
 */
int bb_run_config_read(const char *path, struct bb_run_config *rc);
/*
 * What run will do with rc (read from path), checked against this host (config_check.c):
 * each list and allowlist path or glob gives readable files, each feed's URL parses,
 * each interface exists in this network namespace. Every problem said as
 * "FILE:LINE: KEY VALUE: what"; their number (0: run can load it).
 */
int bb_run_config_check(const char *path, const struct bb_run_config *rc);
/*
 * load's arguments for rc: its options, then its lists and allowlists with their
 * globs expanded now, a feed as its last good copy (left out while it has none).
 * argv and the strings stay valid until the next call.
 */
int bb_run_config_argv(const struct bb_run_config *rc, char ***argv, int *argc);
/* Where rc's feeds keep their copies: feed_dir, or the state directory's feeds/. */
const char *bb_run_feed_dir(const struct bb_run_config *rc);
void bb_run_config_free(struct bb_run_config *rc);

#endif /* BB_CONFIG_H */

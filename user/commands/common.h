/* SPDX-License-Identifier: GPL-2.0 */
/* What every command shares: messages, exit codes, global options, JSON output. */
#ifndef BB_COMMON_H
#define BB_COMMON_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include "env.h"
#include "msg.h"
#include "outfile.h"

enum bb_exit {
	BB_EXIT_OK	= 0,
	BB_EXIT_ERROR	= 1,
	BB_EXIT_USAGE	= 2,
};

/* The options every command takes (-j, -p, -d and the like: bb_msg, msg.h). */
struct bb_global {
	const char *pin_dir;	/* --pin-dir */
	const char *state_dir;	/* --state-dir; NULL: from the pin directory (state.h) */
};

extern struct bb_global bb_opts;

/*
 * Each line of stdin as an item: trailing blanks and line ends cut, empty lines and
 * "#" comments skipped (what allow and add read from "-").
 */
void bb_stdin_items(void (*fn)(void *ctx, const char *item), void *ctx);


/* {"address": rate or null, "name": ..., "url": ...}: a rate per check (filter.h). */
json_t *bb_checks_json(const unsigned int *probes, const double *fpr);

/* "drop", "flag" or "confirm": a filter header's mode (its flags). */
const char *bb_mode_name(unsigned int hdr_flags);

/* The commands (options.h): each one's name, help, options and run(). */
struct bb_command;
extern const struct bb_command cmd_load_def, cmd_build_def, cmd_info_def, cmd_unload_def,
	cmd_status_def, cmd_stats_def, cmd_check_def, cmd_events_def, cmd_top_def,
	cmd_allow_def, cmd_disallow_def, cmd_add_def, cmd_del_def, cmd_plan_def;

#endif /* BB_COMMON_H */

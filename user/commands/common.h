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

int cmd_load(int argc, char **argv);
int cmd_unload(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_allow(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_disallow(int argc, char **argv);
int cmd_add(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_del(int argc, char **argv);

#endif /* BB_COMMON_H */

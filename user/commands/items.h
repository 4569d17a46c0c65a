/* SPDX-License-Identifier: GPL-2.0 */
/* The items add, del, allow, disallow and check take: the command line, checked whole. */
#ifndef BB_ITEMS_H
#define BB_ITEMS_H

#include "options.h"

/*
 * cmd's command line: options into opts, items into a (initialised here; the
 * caller frees it). Every item but "-" (stdin) is parsed before anything is done, so
 * that a typo changes nothing: each one that cannot be parsed is said, and the
 * command ends with a usage error. -1 to go on, or the exit status.
 */
int bb_items_parse(const struct bb_command *cmd, int argc, char **argv, void *opts,
		   struct bb_args *a);

#endif /* BB_ITEMS_H */

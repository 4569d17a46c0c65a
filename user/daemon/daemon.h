/* SPDX-License-Identifier: GPL-2.0 */
/* bloomblock run: the daemon (run.c), the layer above the commands. */
#ifndef BB_DAEMON_H
#define BB_DAEMON_H

struct bb_command;
extern const struct bb_command cmd_run_def;

#endif /* BB_DAEMON_H */

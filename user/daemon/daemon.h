/* SPDX-License-Identifier: GPL-2.0 */
/* bloomblock run: the daemon (run.c), the layer above the commands. */
#ifndef BB_DAEMON_H
#define BB_DAEMON_H

int cmd_run(int argc, char **argv);

#endif /* BB_DAEMON_H */

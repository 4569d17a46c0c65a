// SPDX-License-Identifier: GPL-2.0
/* bloomblock: the command line. Global options, then one command (options.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "daemon.h"
#include "options.h"
#include "state.h"

#define BB_VERSION "0.1.0"

static const struct bb_command *const commands[] = {
	&cmd_load_def, &cmd_build_def, &cmd_info_def, &cmd_unload_def, &cmd_status_def,
	&cmd_stats_def, &cmd_check_def, &cmd_events_def, &cmd_top_def, &cmd_allow_def,
	&cmd_disallow_def, &cmd_add_def, &cmd_del_def, &cmd_run_def, &cmd_plan_def,
};
#define N_COMMANDS	(sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	size_t i;

	fprintf(out,
		"Usage: bloomblock [OPTIONS] COMMAND [ARGS]\n"
		"\n"
		"Drop or flag packets from and to blocklisted addresses, names and URLs, at XDP\n"
		"or tc, with a Bloom filter.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-9s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(out, "\nOptions (before or after the command):\n");
	bb_options_usage(out, bb_global_options);
	fprintf(out,
		"  -V, --version           print the version\n"
		"  -h, --help              this help; COMMAND --help for a command's\n"
		"\n"
		"Exit status: 0 ok, 1 error, 2 usage (check: 1 when an item is not blocked).\n");
}

int main(int argc, char **argv)
{
	const struct bb_command *cmd = NULL;
	size_t i;
	int first, ret;

	/* a child of bloomblock run: its messages with syslog priorities, as the daemon's */
	if (getenv("BB_SYSLOG"))
		bb_msg.syslog = true;
	for (i = 1; i < (size_t)argc && argv[i][0] == '-' && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			printf("bloomblock %s\n", BB_VERSION);
			return BB_EXIT_OK;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return BB_EXIT_OK;
		}
	}
	first = bb_global_parse(argc, argv);
	if (first < 0)
		return BB_EXIT_USAGE;
	if (first >= argc) {
		pr_err("no command given\n");
		fprintf(stderr, "see bloomblock --help\n");
		return BB_EXIT_USAGE;
	}
	if (!strcmp(argv[first], "help")) {
		usage(stdout);
		return BB_EXIT_OK;
	}
	for (i = 0; i < N_COMMANDS && !cmd; i++)
		if (!strcmp(argv[first], commands[i]->name))
			cmd = commands[i];
	if (!cmd) {
		pr_err("'%s' is not a command\n", argv[first]);
		fprintf(stderr, "see bloomblock --help\n");
		return BB_EXIT_USAGE;
	}
	bb_libbpf_setup();
	/* the command parses its own arguments, the global options among them: the
	 * instance's location is settled by the first look at it, after that */
	ret = cmd->run(argc - first, argv + first);
	if (ret)
		bb_json_error_flush();
	return ret;
}

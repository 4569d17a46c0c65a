// SPDX-License-Identifier: GPL-2.0
/* bloomblock: the command line. Global options, then one command. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "daemon.h"
#include "state.h"

#define BB_VERSION "0.1.0"

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "load",	cmd_load,	"build a filter from blocklists, attach it, or swap it in" },
	{ "build",	cmd_build,	"build a filter into a file (.bbf) that load copies in as it is" },
	{ "info",	cmd_info,	"what a filter file holds" },
	{ "unload",	cmd_unload,	"detach from an interface (--all: everywhere, remove state)" },
	{ "status",	cmd_status,	"what is attached, and the live filter's parameters" },
	{ "stats",	cmd_stats,	"counters, summed over CPUs" },
	{ "check",	cmd_check,	"ask the live filter whether items are listed" },
	{ "events",	cmd_events,	"the hits the filter saw: what, where, which list and line" },
	{ "top",	cmd_top,	"the top blocked names and sources and hits per list, live" },
	{ "allow",	cmd_allow,	"let items through the live filter, now and after reloads" },
	{ "disallow",	cmd_disallow,	"take items out of the live allowlist" },
	{ "add",	cmd_add,	"block items in the live filter now, until the next load" },
	{ "del",	cmd_del,	"take listed items out of the live filter, until the next load" },
	{ "run",	cmd_run,	"serve the instance: confirm hits (--mode confirm), in the foreground" },
	{ "plan",	cmd_plan,	"size a filter for N items at a target false-positive rate" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out,
		"Usage: bloomblock [OPTIONS] COMMAND [ARGS]\n"
		"\n"
		"Drop or flag packets from blocklisted sources at XDP, with a Bloom filter.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out,
		"\n"
		"Options:\n"
		"  -j, --json          JSON output\n"
		"  -p, --pretty        indented JSON (implies -j)\n"
		"      --pin-dir DIR   where the state is pinned (default %s)\n"
		"      --state-dir DIR its lock and live allowlist (default: %s/ and the\n"
		"                      pin directory's path, '/' as '-')\n"
		"  -d, --debug         show libbpf's messages and the verifier log\n"
		"  -V, --version       print the version\n"
		"  -h, --help          this help; COMMAND --help for a command's\n"
		"\n"
		"Exit status: 0 ok, 1 error, 2 usage (check: 1 when an item is not blocked).\n",
		bb_opts.pin_dir, BB_STATE_ROOT);
}

/*
 * Global options may also follow the command (`bloomblock stats -j`), as operators
 * type them. Take them out of the command's arguments; "--" ends the scan.
 */
static int take_global_opts(int argc, char **argv, int first)
{
	int in, out;

	for (in = out = first; in < argc; in++) {
		const char *a = argv[in];

		if (!strcmp(a, "--")) {
			while (in < argc)
				argv[out++] = argv[in++];
			break;
		}
		if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			bb_msg.json = true;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--pretty")) {
			bb_msg.json = bb_msg.pretty = true;
		} else if (!strcmp(a, "-d") || !strcmp(a, "--debug")) {
			bb_msg.debug = true;
		} else if (!strncmp(a, "--pin-dir=", 10)) {
			bb_opts.pin_dir = a + 10;
		} else if (!strcmp(a, "--pin-dir") && in + 1 < argc) {
			bb_opts.pin_dir = argv[++in];
		} else if (!strncmp(a, "--state-dir=", 12)) {
			bb_opts.state_dir = a + 12;
		} else if (!strcmp(a, "--state-dir") && in + 1 < argc) {
			bb_opts.state_dir = argv[++in];
		} else {
			argv[out++] = argv[in];
		}
	}
	argv[out] = NULL;
	return out;
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "pin-dir", required_argument, NULL, 'P' },
		{ "state-dir", required_argument, NULL, 'S' },
		{ "debug", no_argument, NULL, 'd' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	size_t i;
	int opt;

	/* a child of bloomblock run: its messages with syslog priorities, as the daemon's */
	if (getenv("BB_SYSLOG"))
		bb_msg.syslog = true;

	/* '+': stop at the command, whose own options follow it */
	while ((opt = getopt_long(argc, argv, "+jpdVh", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			bb_msg.json = true;
			break;
		case 'p':
			bb_msg.json = bb_msg.pretty = true;
			break;
		case 'P':
			bb_opts.pin_dir = optarg;
			break;
		case 'S':
			bb_opts.state_dir = optarg;
			break;
		case 'd':
			bb_msg.debug = true;
			break;
		case 'V':
			printf("bloomblock %s\n", BB_VERSION);
			return BB_EXIT_OK;
		case 'h':
			usage(stdout);
			return BB_EXIT_OK;
		default:
			usage(stderr);
			return BB_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return BB_EXIT_USAGE;
	}
	if (!strcmp(argv[optind], "help")) {
		usage(stdout);
		return BB_EXIT_OK;
	}
	argc = take_global_opts(argc, argv, optind + 1);
	bb_opts.pin_dir = bb_pin_dir_canonical(bb_opts.pin_dir);
	bb_state_init(bb_opts.pin_dir, bb_opts.state_dir);
	bb_libbpf_setup();
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[optind], commands[i].name)) {
			argc -= optind;
			argv += optind;
			int ret;

			optind = 0;	/* reset getopt for the command's own options */
			ret = commands[i].run(argc, argv);
			if (ret)
				bb_json_error_flush();
			return ret;
		}
	}
	pr_err("unknown command '%s' (bloomblock --help lists them)\n", argv[optind]);
	return BB_EXIT_USAGE;
}

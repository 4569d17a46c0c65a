/* SPDX-License-Identifier: GPL-2.0 */
/* What every command shares: messages, exit codes, global options, JSON output. */
#ifndef BB_COMMON_H
#define BB_COMMON_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

enum bb_exit {
	BB_EXIT_OK	= 0,
	BB_EXIT_ERROR	= 1,
	BB_EXIT_USAGE	= 2,
};

struct bb_global {
	const char *pin_dir;	/* --pin-dir */
	const char *state_dir;	/* --state-dir; NULL: from the pin directory (state.h) */
	bool json;		/* -j */
	bool pretty;		/* -p */
	bool debug;		/* -d: libbpf's own messages */
	bool syslog;		/* messages with syslog priority prefixes (<3> ...): run's */
};

extern struct bb_global bb_opts;

void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print a JSON value to stdout (compact, or indented with -p) and free it. */
void bb_json_print(json_t *value);
/* Under -j, when a command printed no JSON: its first error as {"error": ...}. */
void bb_json_error_flush(void);

/* Checks with a message saying what to do. Return 0 or -errno. */
int bb_require_root(void);
/*
 * Each line of stdin as an item: trailing blanks and line ends cut, empty lines and
 * "#" comments skipped (what allow and add read from "-").
 */
void bb_stdin_items(void (*fn)(void *ctx, const char *item), void *ctx);
/* The capabilities that loading programs and attaching them take (root may lack them). */
int bb_require_bpf_caps(void);
/*
 * A pin directory as one spelling: absolute, no empty, "." or ".." component, no
 * trailing slash (/sys/fs/bpf//x/ is /sys/fs/bpf/x), so that one instance is never
 * taken for several (its state directory and tc handle come from it). A static buffer.
 */
const char *bb_pin_dir_canonical(const char *in);

/* j into path as outfile.h says (PATH.tmp, mode 0600, renamed): 0 or -errno. */
int bb_json_write(json_t *j, const char *path, size_t flags);
int bb_require_bpffs(const char *pin_dir);
int bb_require_ifindex(const char *ifname, int *ifindex);

/* {"address": rate or null, "name": ..., "url": ...}: a rate per check (filter.h). */
json_t *bb_checks_json(const unsigned int *probes, const double *fpr);
/* "1.5 KiB", "18.4 MiB": for people; JSON prints bytes. */
const char *bb_human_bytes(unsigned long long bytes, char *buf, size_t size);

/* "drop", "flag" or "confirm": a filter header's mode (its flags). */
const char *bb_mode_name(unsigned int hdr_flags);

/* Set up libbpf's message callback (quiet unless -d). */
void bb_libbpf_setup(void);

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
int cmd_run(int argc, char **argv);

#endif /* BB_COMMON_H */

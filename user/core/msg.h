/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Messages to stderr and JSON to stdout, for every layer: how they are written is set
 * once, by the command line (main.c) or the daemon, in bb_msg.
 */
#ifndef BB_MSG_H
#define BB_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

struct bb_msg_opts {
	bool json;		/* -j: stdout is one JSON value; the first error kept for it */
	bool pretty;		/* -p: that value indented */
	bool debug;		/* -d: libbpf's and libxdp's own messages, and more of ours */
	bool syslog;		/* syslog priority prefixes (<3> ...): the daemon's children */
};

extern struct bb_msg_opts bb_msg;

void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print a JSON value to stdout (compact, or indented with -p) and free it. */
void bb_json_print(json_t *value);
/* Under -j, when a command printed no JSON: its first error as {"error": ...}. */
void bb_json_error_flush(void);

/* "1.5 KiB", "18.4 MiB": for people; JSON prints bytes. */
const char *bb_human_bytes(unsigned long long bytes, char *buf, size_t size);


/* What libbpf said of a program the kernel refused: its name, the verifier's last line. */
struct bb_refusal {
	char prog[64];
	char last[256];
};

/*
 * One of libbpf's messages (text, formatted) noted in r when it is about a refused
 * program: "prog 'NAME': failed to load" names it, the log between "-- BEGIN PROG
 * LOAD LOG --" and "-- END ..." gives its last line (not the verifier's statistics).
 * True when text was such a message.
 */
bool bb_refusal_note(struct bb_refusal *r, const char *text);

#endif /* BB_MSG_H */

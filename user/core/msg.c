// SPDX-License-Identifier: GPL-2.0
/* Messages to stderr (errors, warnings, progress) and JSON to stdout, for every layer. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "msg.h"

struct bb_msg_opts bb_msg;

/*
 * Under -j, the first error is also kept, so that a command that fails before it
 * prints its JSON prints {"error": ...} instead, as bpftool does. An error message
 * may be finished by pr_info() calls: it is kept until its newline.
 */
static char first_error[512];
static bool error_open, json_printed;

static void keep_error(const char *fmt, va_list ap)
{
	size_t used = strlen(first_error);

	if (used + 1 < sizeof(first_error))
		vsnprintf(first_error + used, sizeof(first_error) - used, fmt, ap);
	used = strlen(first_error);
	error_open = !used || first_error[used - 1] != '\n';
	if (!error_open)
		first_error[used - 1] = '\0';
}

/* Whether the next message starts a line: a syslog prefix goes only there. */
static bool line_start = true;

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	char buf[4096];
	int n;

	if (!bb_msg.syslog) {
		fputs(prefix, stderr);
		vfprintf(stderr, fmt, ap);
		return;
	}
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (line_start)
		fputs(prefix, stderr);
	fputs(buf, stderr);
	if (n > 0)
		line_start = (size_t)n < sizeof(buf) ? buf[n - 1] == '\n' : true;
}

void pr_err(const char *fmt, ...)
{
	va_list ap;

	if (bb_msg.json && !first_error[0]) {
		va_start(ap, fmt);
		keep_error(fmt, ap);
		va_end(ap);
	}
	va_start(ap, fmt);
	vmsg(bb_msg.syslog ? "<3>" : "Error: ", fmt, ap);
	va_end(ap);
}

void bb_json_error_flush(void)
{
	if (!bb_msg.json || json_printed || !first_error[0])
		return;
	bb_json_print(json_pack("{s:s}", "error", first_error));
}

void pr_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(bb_msg.syslog ? "<4>" : "Warning: ", fmt, ap);
	va_end(ap);
}

/* Progress and summaries go to stderr, so stdout stays clean for -j. */
void pr_info(const char *fmt, ...)
{
	va_list ap;

	if (error_open) {
		va_start(ap, fmt);
		keep_error(fmt, ap);
		va_end(ap);
	}
	va_start(ap, fmt);
	vmsg(bb_msg.syslog ? "<6>" : "", fmt, ap);
	va_end(ap);
}

void bb_json_print(json_t *value)
{
	size_t flags = bb_msg.pretty ? JSON_INDENT(2) : JSON_COMPACT;

	json_printed = true;

	flags |= JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6);
	json_dumpf(value, stdout, flags);
	fputc('\n', stdout);
	json_decref(value);
}

const char *bb_human_bytes(unsigned long long bytes, char *buf, size_t size)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	unsigned int u = 0;

	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%llu bytes", bytes);
	else
		snprintf(buf, size, "%.1f %s", v, units[u]);
	return buf;
}


bool bb_refusal_note(struct bb_refusal *r, const char *text)
{
	const char *p = strstr(text, "prog '"), *q, *end, *line;

	if (p && strstr(text, "failed to load")) {
		p += strlen("prog '");
		q = strchr(p, '\'');
		snprintf(r->prog, sizeof(r->prog), "%.*s", q ? (int)(q - p) : 0, p);
		return true;
	}
	p = strstr(text, "-- BEGIN PROG LOAD LOG --");
	if (!p)
		return strstr(text, "BPF program load failed") != NULL;
	end = strstr(p, "-- END PROG LOAD LOG --");
	end = end ? end : p + strlen(p);
	r->last[0] = '\0';
	for (line = strchr(p, '\n'); line && line < end; line = strchr(line + 1, '\n')) {
		const char *next = strchr(line + 1, '\n');
		int n = (int)((next && next < end ? next : end) - (line + 1));

		if (n > 0 && strncmp(line + 1, "processed ", 10) &&
		    strncmp(line + 1, "verification time", 17) && strncmp(line + 1, "stack depth", 11))
			snprintf(r->last, sizeof(r->last), "%.*s", n, line + 1);
	}
	return true;
}

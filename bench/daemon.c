// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's table (table 11), from what scripts/bench.sh measured of bloomblock run
 * --config in the benchmark's namespace: its start with a feed of the whole IPv4 list,
 * its CPU over 10 idle seconds, a refresh the feed's server answered 304, and GET
 * /metrics. Each row beside its target (the service issue's): /metrics under 10 ms,
 * idle CPU near zero (under 1% of one CPU), a 304 refresh that builds nothing.
 */
#include <math.h>
#include <stdio.h>

#include "bench.h"
#include "bench_parts.h"

static const char *num(char *buf, const struct script_results *s, const char *name,
		       const char *fmt)
{
	double v = script_number(s, name);

	return isnan(v) ? "not measured" : fmtf(buf, BT_CELL, fmt, v);
}

static const char *verdict(double v, double limit, bool below)
{
	if (isnan(v))
		return "not measured";
	return (below ? v < limit : v <= limit) ? "met" : "NOT met";
}

void daemon_report(struct table *table, const struct script_results *s)
{
	static const char *const cols[] = { "what", "value", "target", "", NULL };
	double med = script_number(s, "daemon_metrics_med_ms");
	double p99 = script_number(s, "daemon_metrics_p99_ms");
	double idle = script_number(s, "daemon_idle_cpu_pct");
	double gens = script_number(s, "daemon_304_generations");
	double answers = script_number(s, "daemon_304_answer");
	char c[8][BT_CELL];
	const char *status = script_value(s, "daemon_status");

	table_init(table, "daemon", "11. the daemon: a feed's start, idle CPU, a 304 refresh, "
		   "GET /metrics", 1, cols);
	table_add(table, (const char *[]){ "start: fetch the feed, load, serve (s)",
		num(c[0], s, "daemon_start_s", "%.2f"), "-", "" });
	table_add(table, (const char *[]){ "idle CPU over 10 s (% of one CPU)",
		num(c[1], s, "daemon_idle_cpu_pct", "%.3f"), "< 1", verdict(idle, 1, true) });
	table_add(table, (const char *[]){ "refresh, the server answered 304 (s)",
		num(c[2], s, "daemon_304_s", "%.3f"), "-",
		isnan(answers) ? "not measured" : answers >= 1 ? "304 seen" : "NO 304 seen" });
	table_add(table, (const char *[]){ "... generations it made",
		num(c[3], s, "daemon_304_generations", "%.0f"), "0", verdict(gens, 0, false) });
	table_add(table, (const char *[]){ "GET /metrics, median (ms)",
		num(c[4], s, "daemon_metrics_med_ms", "%.2f"), "< 10", verdict(med, 10, true) });
	table_add(table, (const char *[]){ "GET /metrics, p99 (ms)",
		num(c[5], s, "daemon_metrics_p99_ms", "%.2f"), "< 10", verdict(p99, 10, true) });
	table_add(table, (const char *[]){ "GET /metrics, its size (bytes / families)",
		fmtf(c[6], BT_CELL, "%.0f / %.0f", script_number(s, "daemon_metrics_bytes"),
		     script_number(s, "daemon_metrics_families")), "-", "" });
	if (status)
		table_note(table, "Not measured: %s.", status);
	table_note(table, "bloomblock run --config in the benchmark's namespace, its one list "
		   "a feed of the %.0f-address IPv4 list served on the namespace's loopback by "
		   "tests/tools/feedsrv; /metrics: %.0f GETs with curl, one at a time "
		   "(time_total). Idle: utime + stime of all its threads, before its first "
		   "refresh.", script_number(s, "daemon_feed_entries"),
		   script_number(s, "daemon_metrics_gets"));
}

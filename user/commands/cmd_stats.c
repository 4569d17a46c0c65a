// SPDX-License-Identifier: GPL-2.0
/* bloomblock status and stats: what is attached, the live filter, the counters. */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "attach.h"
#include "common.h"
#include "confirm.h"
#include "feed.h"
#include "filter.h"
#include "guard.h"
#include "metrics.h"
#include "options.h"
#include "pins.h"
#include "reload_guard.h"
#include "state.h"
#include "xdp_compat.h"

static const struct counter {
	const char *name;
	const char *help;
	size_t offset;
} counters[] = {
#define BB_STATS_ROW(field, text) { #field, text, offsetof(struct bb_stats, field) },
	BB_STATS_FIELDS(BB_STATS_ROW)
#undef BB_STATS_ROW
};

static int open_instance(struct bb_instance *inst)
{
	int err;

	if (bb_require_root() || bb_require_bpffs(bb_opts.pin_dir))
		return -EPERM;
	err = bb_instance_open(bb_opts.pin_dir, inst);
	if (err == -ENOENT)
		pr_err("nothing is loaded under %s (bloomblock load LIST -i IFACE)\n",
		       bb_opts.pin_dir);
	else if (err == -EUCLEAN)
		bb_instance_say_damaged(bb_opts.pin_dir);
	else if (err)
		pr_err("cannot open %s: %s\n", bb_opts.pin_dir, strerror(-err));
	return err;
}

/* stats' options: one view at a time. */
struct stats_opts {
	bool by_hook, by_list, prometheus;
	double watch;
	long count;
};

static const struct bb_opt_range watch_range = { 0.1, 86400 }, count_range = { 1, 1e18 };

#define F(field)	offsetof(struct stats_opts, field)
static const struct bb_option stats_options[] = {
	{ "by-hook", 0, NULL, "each counter at each hook beside the total (-j: an object\n"
	  "a hook)", bb_opt_flag, F(by_hook), BB_OPT_NO_GIVEN, NULL },
	{ "by-list", 0, NULL, "while bloomblock run runs (any mode): the items that hit\n"
	  "and the packets they dropped (or flagged), by the list\nthat holds them, and the "
	  "false positives", bb_opt_flag, F(by_list), BB_OPT_NO_GIVEN, NULL },
	{ "prometheus", 0, NULL, "the same numbers and the filter's, in Prometheus's text\n"
	  "format (node_exporter's textfile collector reads it)", bb_opt_flag, F(prometheus),
	  BB_OPT_NO_GIVEN, NULL },
	{ "watch", 0, "SEC", "every SEC seconds, each counter's total and its rate a\n"
	  "second over the interval (-j: one JSON object a line an\ninterval), until Ctrl-C "
	  "or --count N intervals", bb_opt_double, F(watch), BB_OPT_NO_GIVEN, &watch_range },
	{ "count", 'n', "N", "with --watch: stop after N intervals", bb_opt_long, F(count),
	  BB_OPT_NO_GIVEN, &count_range },
	BB_OPT_END
};
#undef F

/*
 * stats --by-hook: each counter's total and its part at each hook (the stats map's
 * slots), a column a hook; "any" too when an instance an earlier version loaded
 * counted in slot 0. -j: {"total": {...}, "xdp": {...}, ...}.
 */
static int stats_by_hook(const struct bb_instance *inst)
{
	static const char *const names[BB_STATS_SLOTS] = { "any", "xdp", "tc-ingress", "tc-egress" };
	struct bb_stats s[BB_STATS_SLOTS], sum = { 0 };
	bool any;
	size_t i, width = 0;
	__u32 h;
	int err = 0;

	for (h = 0; !err && h < BB_STATS_SLOTS; h++)
		err = bb_stats_read_hook_fd(inst->stats_fd, h, &s[h]);
	if (err) {
		pr_err("cannot read the counters: %s\n", strerror(-err));
		return BB_EXIT_ERROR;
	}
	for (h = 0; h < BB_STATS_SLOTS; h++)	/* the total of these reads: the columns add up */
		for (i = 0; i < sizeof(sum) / sizeof(__u64); i++)
			((__u64 *)&sum)[i] += ((const __u64 *)&s[h])[i];
	any = memcmp(&s[0], &(struct bb_stats){ 0 }, sizeof(s[0])) != 0;
	if (bb_msg.json) {
		json_t *obj = json_object(), *o;

		for (h = 0; h <= BB_STATS_SLOTS; h++) {
			const struct bb_stats *c = h == BB_STATS_SLOTS ? &sum : &s[h];

			if (!h && !any)
				continue;
			o = json_object();
			for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
				json_object_set_new(o, counters[i].name, json_integer(
					*(const __u64 *)((const char *)c + counters[i].offset)));
			json_object_set_new(obj, h == BB_STATS_SLOTS ? "total" : names[h], o);
		}
		bb_json_print(obj);
		return BB_EXIT_OK;
	}
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		if (strlen(counters[i].name) > width)
			width = strlen(counters[i].name);
	printf("%-*s %15s %15s %15s %15s", (int)width, "counter", "total", names[1], names[2],
	       names[3]);
	if (any)
		printf(" %15s", names[0]);
	printf("\n");
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		printf("%-*s %15llu", (int)width, counters[i].name,
		       (unsigned long long)*(const __u64 *)((const char *)&sum + counters[i].offset));
		for (h = 1; h <= (any ? BB_STATS_SLOTS : BB_STATS_SLOTS - 1); h++)	/* any last */
			printf(" %15llu", (unsigned long long)*(const __u64 *)(
				(const char *)&s[h % BB_STATS_SLOTS] + counters[i].offset));
		printf("\n");
	}
	return BB_EXIT_OK;
}

/*
 * stats --by-list: bloomblock run's answers for the live filter, by list: every item
 * it found listed keeps its list (the key index's source) and counts the packets that
 * hit it since (dropped, or flagged in flag mode); in confirm mode the answers decide
 * the verdicts too, in drop and flag mode they only count. Exact for the items the
 * confirmed map holds (the BB_CONFIRM_ENTRIES most recently answered).
 */
static int stats_by_list(const struct bb_instance *inst)
{
	static struct bb_by_list bl;
	struct bb_confirm_maps m = { -1, -1, -1, -1 };
	const struct bb_header *hdr;
	struct bb_index_view index;
	struct bb_image img;
	struct bb_stats sum;
	struct bb_confirm_daemon d;
	unsigned int s;
	int ret = BB_EXIT_ERROR;
	bool have_index;

	if (bb_image_open(inst, &img)) {
		pr_err("cannot read the live filter\n");
		return BB_EXIT_ERROR;
	}
	hdr = (const void *)img.blocks;
	have_index = !bb_state_index(img.blocks, &index);
	if (bb_confirm_daemon_pin(bb_opts.pin_dir, &d) || !d.started_ns) {
		pr_err("hits are counted by list while bloomblock run runs, and it never ran for "
		       "%s: start it (bloomblock top shows hits per list from the hit events "
		       "meanwhile)\n", bb_opts.pin_dir);
		goto out;
	}
	if (!have_index) {
		pr_err("no key index of the live filter in %s: no list to count by\n",
		       bb_state_dir());
		goto out;
	}
	if (bb_confirm_maps_open(bb_opts.pin_dir, &m) || bb_stats_read(inst, &sum) ||
	    bb_confirm_by_list(&m, hdr->generation, &bl))
		goto out;
	if (bb_msg.json) {
		json_t *lists = json_array();

		for (s = 0; s < index.n_sources; s++)
			json_array_append_new(lists, json_pack("{s:s, s:I, s:I}", "file",
				bb_index_source(&index, s), "items", (json_int_t)bl.items[s],
				"dropped", (json_int_t)bl.hits[s]));
		bb_json_print(json_pack("{s:s, s:I, s:s, s:o, s:{s:I, s:I}, s:I, s:I}",
			"mode", bb_mode_name(hdr->flags),
			"generation", (json_int_t)hdr->generation,
			"daemon", bb_confirm_daemon_state(&d, bb_mono_ns()), "lists", lists,
			"false_positives", "items", (json_int_t)bl.fp_items,
			"packets", (json_int_t)bl.fp_hits,
			"unconfirmed", (json_int_t)sum.unconfirmed,
			"cache_entries", (json_int_t)BB_CONFIRM_ENTRIES));
	} else {
		printf("%-50s %10s %12s\n", "list", "items", hdr->flags & BB_HDR_F_DROP ?
		       "dropped" : "flagged");
		for (s = 0; s < index.n_sources; s++)
			printf("%-50s %10llu %12llu\n", bb_index_source(&index, s),
			       (unsigned long long)bl.items[s], (unsigned long long)bl.hits[s]);
		printf("%-50s %10llu %12llu\n", "(all lists)", (unsigned long long)bl.total_items,
		       (unsigned long long)bl.total_hits);
		printf("%-50s %10llu %12s  (%llu packets %s)\n",
		       "(false positives: on no list)", (unsigned long long)bl.fp_items, "-",
		       (unsigned long long)bl.fp_hits, hdr->flags & BB_HDR_F_CONFIRM ? "passed" :
		       hdr->flags & BB_HDR_F_DROP ? "dropped" : "flagged");
		if (hdr->flags & BB_HDR_F_CONFIRM)
			printf("%-50s %10s %12s  (%llu packets passed)\n", "(not confirmed yet)",
			       "-", "-", (unsigned long long)sum.unconfirmed);
		printf("Items bloomblock run answered for this filter (generation %llu; it is %s), "
		       "of the %u its maps hold at most; the packets each %s once answered.\n",
		       (unsigned long long)hdr->generation, bb_confirm_daemon_state(&d, bb_mono_ns()),
		       (unsigned int)BB_CONFIRM_ENTRIES, hdr->flags & BB_HDR_F_DROP ? "dropped" :
		       "flagged");
	}
	ret = BB_EXIT_OK;
out:
	bb_confirm_maps_close(&m);
	if (have_index)
		bb_index_close(&index);
	bb_image_close(&img);
	return ret;
}

static volatile sig_atomic_t watch_stop;

static void watch_signal(int sig)
{
	(void)sig;
	watch_stop = 1;
}

/*
 * stats --watch: the counters every interval, with their rates over it. On a
 * terminal the table is redrawn in place; piped, one block (or JSON line) an
 * interval. The rates are over the time measured between two reads, not the one
 * asked for.
 */
static int stats_watch(const struct bb_instance *inst, double interval, long count)
{
	const size_t n = sizeof(counters) / sizeof(counters[0]);
	struct sigaction sa = { .sa_handler = watch_signal };
	struct bb_stats prev, now;
	bool tty = isatty(STDOUT_FILENO) && !bb_msg.json;
	__u64 t_prev, t_now;
	size_t i, width = 0;
	long done = 0;
	int err;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (i = 0; i < n; i++)
		if (strlen(counters[i].name) > width)
			width = strlen(counters[i].name);
	err = bb_stats_read(inst, &prev);
	if (err) {
		pr_err("cannot read the counters: %s\n", strerror(-err));
		return BB_EXIT_ERROR;
	}
	t_prev = bb_mono_ns();
	while (!watch_stop && (!count || done < count)) {
		struct timespec ts = { (time_t)interval,
				       (long)((interval - (double)(time_t)interval) * 1e9) };
		double secs;

		if (nanosleep(&ts, NULL) && watch_stop)
			break;
		err = bb_stats_read(inst, &now);
		if (err) {
			pr_err("cannot read the counters: %s\n", strerror(-err));
			return BB_EXIT_ERROR;
		}
		t_now = bb_mono_ns();
		secs = (double)(t_now - t_prev) / 1e9;
		if (bb_msg.json) {
			json_t *totals = json_object(), *rates = json_object();

			for (i = 0; i < n; i++) {
				__u64 a = *(__u64 *)((char *)&prev + counters[i].offset);
				__u64 b = *(__u64 *)((char *)&now + counters[i].offset);

				json_object_set_new(totals, counters[i].name, json_integer((json_int_t)b));
				json_object_set_new(rates, counters[i].name,
						    json_real(b >= a && secs > 0 ? (double)(b - a) / secs : 0));
			}
			json_t *j = json_pack("{s:f, s:o, s:o}", "interval_s", secs, "totals", totals,
					      "per_second", rates);

			json_dumpf(j, stdout, JSON_COMPACT);
			json_decref(j);
			putchar('\n');
		} else {
			if (tty)
				fputs("\033[H\033[2J", stdout);
			printf("%-*s %15s %12s   (over %.2f s; Ctrl-C stops)\n", (int)width, "counter",
			       "total", "per second", secs);
			for (i = 0; i < n; i++) {
				__u64 a = *(__u64 *)((char *)&prev + counters[i].offset);
				__u64 b = *(__u64 *)((char *)&now + counters[i].offset);

				printf("%-*s %15llu %12.1f\n", (int)width, counters[i].name,
				       (unsigned long long)b,
				       b >= a && secs > 0 ? (double)(b - a) / secs : 0.0);
			}
			if (!tty)
				putchar('\n');
		}
		fflush(stdout);
		prev = now;
		t_prev = t_now;
		done++;
	}
	return BB_EXIT_OK;
}

static int cmd_stats(int argc, char **argv)
{
	struct stats_opts so = { 0 };
	struct bb_instance inst;
	struct bb_stats sum;
	size_t i, width = 0;
	int err;

	err = bb_command_parse(&cmd_stats_def, argc, argv, &so, NULL, NULL);
	if (err >= 0)
		return err;
	if (so.by_hook + so.by_list + so.prometheus + (so.watch > 0) > 1)
		return bb_usage_error(&cmd_stats_def, "--by-hook, --by-list, --prometheus and "
				      "--watch are one at a time");
	if (so.count && !so.watch)
		return bb_usage_error(&cmd_stats_def, "--count is for --watch");
	if (open_instance(&inst))
		return BB_EXIT_ERROR;
	if (so.prometheus) {
		err = bb_metrics_write(stdout, &inst);
		bb_instance_close(&inst);
		if (err)
			pr_err("cannot read the instance's numbers: %s\n", strerror(-err));
		return err ? BB_EXIT_ERROR : BB_EXIT_OK;
	}
	if (so.by_hook || so.by_list || so.watch) {
		err = so.by_hook ? stats_by_hook(&inst) :
		      so.by_list ? stats_by_list(&inst) : stats_watch(&inst, so.watch, so.count);
		bb_instance_close(&inst);
		return err;
	}
	err = bb_stats_read(&inst, &sum);
	bb_instance_close(&inst);
	if (err) {
		pr_err("cannot read the counters: %s\n", strerror(-err));
		return BB_EXIT_ERROR;
	}
	if (bb_msg.json) {
		json_t *obj = json_object();

		for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
			json_object_set_new(obj, counters[i].name,
					    json_integer(*(__u64 *)((char *)&sum + counters[i].offset)));
		bb_json_print(obj);
		return BB_EXIT_OK;
	}
	/* the name column as wide as the longest name, so that the numbers line up */
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		if (strlen(counters[i].name) > width)
			width = strlen(counters[i].name);
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		printf("%-*s %15llu  %s\n", (int)width, counters[i].name,
		       (unsigned long long)*(__u64 *)((char *)&sum + counters[i].offset),
		       counters[i].help);
	return BB_EXIT_OK;
}

static json_t *plens_json(const __u8 *plens, unsigned int n)
{
	json_t *arr = json_array();
	unsigned int i;

	for (i = 0; i < n && i < BB_MAX_PLENS; i++)
		json_array_append_new(arr, json_integer(plens[i]));
	return arr;
}

static void print_probes(const char *family, const __u8 *plens, unsigned int n, bool short_table)
{
	unsigned int i;

	printf("%-13s", family);
	for (i = 0; i < n && i < BB_MAX_PLENS; i++)
		printf("/%u ", plens[i]);
	if (short_table)
		printf("+ short prefixes (exact table)");
	if (!n && !short_table)
		printf("no entries");
	printf("\n");
}

static const char *guard_off_path(void)
{
	static char path[512];

	if (bb_state_path(path, sizeof(path), BB_GUARD_OFF))
		path[0] = '\0';
	return path;
}

/* The items `bloomblock allow` keeps (state.h): lines that are not comments; 0: none. */
static long kept_items(void)
{
	char path[512], *line = NULL;
	size_t cap = 0;
	long n = 0;
	FILE *f;

	if (bb_state_path(path, sizeof(path), BB_STATE_ALLOW))
		return 0;
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0)
		n += line[0] != '#' && line[0] != '\n';
	free(line);
	fclose(f);
	return n;
}

/*
 * The guard as the last load left it: on or off, and what it keeps reachable
 * (guard.list: "ITEM # why" lines). Into items (JSON) or printed.
 */
static bool guard_items(json_t *items)
{
	char path[512], *line = NULL;
	size_t cap = 0;
	bool on;
	FILE *f;

	if (bb_state_path(path, sizeof(path), BB_GUARD_OFF))
		return false;
	on = access(path, F_OK) != 0;
	if (bb_state_path(path, sizeof(path), BB_GUARD_FILE))
		return on;
	f = on ? fopen(path, "r") : NULL;
	while (f && getline(&line, &cap, f) > 0) {
		char *hash = strchr(line, '#'), *end;

		if (line[0] == '#' || !hash)
			continue;
		*hash = '\0';
		for (end = hash; end > line && (end[-1] == ' ' || end[-1] == '\t'); end--)
			*(end - 1) = '\0';
		hash++;
		hash += strspn(hash, " ");
		hash[strcspn(hash, "\n")] = '\0';
		if (items)
			json_array_append_new(items, json_pack("{s:s, s:s}", "item", line,
							       "why", hash));
		else
			printf("             %-30s %s\n", line, hash);
	}
	free(line);
	if (f)
		fclose(f);
	return on;
}

/* The key index, when it is the live filter's: null otherwise. */
static json_t *index_json(const struct bb_index_view *v, long shadow_bytes, __u32 nblocks)
{
	json_t *lists, *j;
	unsigned int i;

	if (!v->map)
		return json_null();
	lists = json_array();
	for (i = 0; i < v->n_sources; i++)
		json_array_append_new(lists, json_string(v->sources[i]));
	j = json_pack("{s:I, s:I, s:o, s:I, s:I, s:I, s:o}", "keys", (json_int_t)v->n, "bytes",
		      (json_int_t)v->size, "lists", lists, "added_live", (json_int_t)v->meta.added,
		      "deleted_live", (json_int_t)v->meta.deleted, "changes",
		      (json_int_t)v->meta.changes, "shadow_bytes",
		      shadow_bytes >= 0 ? json_integer(shadow_bytes) : json_null());
	/* the shadow holds a count a bit of the filter's blocks */
	if (j)
		json_object_set_new(j, "shadow_counts", shadow_bytes >= 0 ?
				    json_integer((json_int_t)nblocks * BB_BLOCK_BITS) : json_null());
	return j;
}

/* What the last load says it loaded, when it made the live filter: NULL otherwise. */
static json_t *loaded_json(const struct bb_header *hdr)
{
	char path[512];
	json_t *j;

	if (bb_state_path(path, sizeof(path), BB_STATE_LOADED))
		return NULL;
	j = json_load_file(path, 0, NULL);
	if (j && json_integer_value(json_object_get(j, "generation")) !=
		 (json_int_t)hdr->generation) {
		json_decref(j);
		j = NULL;
	}
	return j;
}

/* "entries      ipv4 N, ipv6 N, ...": a loaded.json count by kind, as the lists gave it. */
static void print_entries(const char *what, json_t *by_kind)
{
	const char *kind;
	json_t *n;
	int shown = 0;

	if (!json_is_object(by_kind))
		return;
	printf("%-12s", what);
	json_object_foreach(by_kind, kind, n)
		printf("%s%s %lld", shown++ ? ", " : " ", kind, (long long)json_integer_value(n));
	printf(" (as loaded)\n");
}

/* The index's records by key kind (a key listed twice counts once). */
static void keys_by_kind(const struct bb_index_view *v, __u64 n[BB_KEY_KIND_MAX])
{
	size_t i;

	memset(n, 0, BB_KEY_KIND_MAX * sizeof(*n));
	for (i = 0; i < v->n; i++)
		if ((!i || v->recs[i - 1].h != v->recs[i].h) && v->recs[i].kind < BB_KEY_KIND_MAX)
			n[v->recs[i].kind]++;
}

static const char *const key_kind_names[BB_KEY_KIND_MAX] = {
	[BB_KEY_IP4] = "ipv4", [BB_KEY_IP6] = "ipv6", [BB_KEY_NAME] = "names",
	[BB_KEY_NAME_PARENT] = "name_parents", [BB_KEY_URL] = "urls",
};

/* The shadow file's size when it is kept (it may lag: add and del rebuild it), or -1. */
static long shadow_size(void)
{
	char path[512];
	struct stat st;

	if (bb_state_path(path, sizeof(path), BB_STATE_SHADOW) || stat(path, &st))
		return -1;
	return (long)st.st_size;
}

/*
 * Keys the filter takes before add refuses: the most n at which every check's rate
 * stays within twice the load's --fp (add's default --max-fp), less what it holds.
 */
static __u64 room_left(const struct bb_header *hdr, const unsigned int probes[BB_CHECK_MAX],
		       double fp)
{
	__u64 lo = 0, hi = (__u64)hdr->nblocks * BB_BLOCK_BITS;
	unsigned int c;

	while (lo < hi) {
		__u64 mid = lo + (hi - lo + 1) / 2;
		double key = bb_blocked_fpr((double)mid, hdr->nblocks, hdr->k), worst = 0;

		for (c = 0; c < BB_CHECK_MAX; c++)
			if (probes[c] && bb_check_fpr(key, probes[c]) > worst)
				worst = bb_check_fpr(key, probes[c]);
		if (worst <= 2 * fp)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo > hdr->items ? lo - hdr->items : 0;
}

/* What status shows, read once; printed as text or JSON. */
struct status_view {
	struct bb_attachment att[64];
	int n;
	struct bb_image img;
	const struct bb_header *hdr;
	const struct bb_allow_header *ah;
	const struct bb_config *cfg;
	struct bb_index_view index;
	double fpr, fill_fpr, check_fpr[BB_CHECK_MAX], check_fill[BB_CHECK_MAX];
	double fill;		/* the fraction of the bit blocks' bits set */
	__u64 bits_set;
	unsigned int probes[BB_CHECK_MAX];
	long kept;
	struct bb_confirm_daemon daemon;	/* confirm mode's (confirm.h) */
	bool have_daemon;
	__u64 now;
};

/* Confirm mode's daemon, as status -j says it. */
static json_t *confirm_json(const struct status_view *v)
{
	const struct bb_confirm_daemon *d = &v->daemon;
	__u64 answers = d->listed + d->unlisted;

	return json_pack("{s:s, s:s, s:I, s:f, s:I, s:I, s:I, s:f, s:f}",
		"daemon", v->have_daemon ? bb_confirm_daemon_state(d, v->now) : "never",
		"when_down", v->hdr->flags & BB_HDR_F_DOWN_DROP ? "drop" : "pass",
		"pid", (json_int_t)d->pid,
		"beat_age_s", d->alive_ns && v->now > d->alive_ns ?
			      (double)(v->now - d->alive_ns) / 1e9 : 0.0,
		"listed", (json_int_t)d->listed, "unlisted", (json_int_t)d->unlisted,
		"stale", (json_int_t)d->stale,
		"latency_avg_us", answers ? (double)d->lat_sum_ns / (double)answers / 1e3 : 0.0,
		"latency_max_us", (double)d->lat_max_ns / 1e3);
}

/* Confirm mode's lines of status. */
static void confirm_text(const struct status_view *v)
{
	const struct bb_confirm_daemon *d = &v->daemon;
	const char *state = v->have_daemon ? bb_confirm_daemon_state(d, v->now) : "never";
	__u64 answers = d->listed + d->unlisted;
	bool down_drop = v->hdr->flags & BB_HDR_F_DOWN_DROP;

	if (!strcmp(state, "running"))
		printf("daemon       running (pid %u, beat %.1f s ago): %llu listed, %llu false "
		       "positives confirmed, %.0f us from a hit to its answer on average, %.0f "
		       "at most\n", d->pid,
		       v->now > d->alive_ns ? (double)(v->now - d->alive_ns) / 1e9 : 0.0,
		       (unsigned long long)d->listed, (unsigned long long)d->unlisted,
		       answers ? (double)d->lat_sum_ns / (double)answers / 1e3 : 0.0,
		       (double)d->lat_max_ns / 1e3);
	else
		printf("daemon       not running (%s): start bloomblock run\n",
		       !strcmp(state, "stopped") ? "it stopped" : "never started");
	printf("when down    hits not confirmed %s; what was confirmed holds\n",
	       down_drop ? "drop (--daemon-down drop)" : "pass (--daemon-down pass, the default)");
}

/* --answer as the filter's flags say it: drop, reject or sinkhole. */
static const char *answer_name(__u32 flags)
{
	return !(flags & BB_HDR_F_ANSWER) ? "drop" : flags & BB_HDR_F_SINKHOLE ? "sinkhole" :
	       "reject";
}

/* feeds.json: what the daemon's feeds did last ("" when the path does not fit). */
static const char *feeds_path(void)
{
	static char path[512];

	return bb_state_path(path, sizeof(path), BB_STATE_FEEDS) ? "" : path;
}

/* xdp.json: how load attached at XDP and whether freplace works here, or NULL. */
static json_t *xdp_json(void)
{
	char path[512];

	return bb_state_path(path, sizeof(path), BB_STATE_XDP) ? NULL :
	       json_load_file(path, 0, NULL);
}

/* run.json: the daemon's loads (cmd_run.c), or NULL. */
static json_t *run_json(void)
{
	char path[512];

	return bb_state_path(path, sizeof(path), BB_STATE_RUN) ? NULL :
	       json_load_file(path, 0, NULL);
}

/* "reloads      the last at TIME (why): ok; N ok, N failed since the daemon started" */
static void reloads_text(void)
{
	json_t *r = run_json();
	time_t t;
	struct tm tm;
	char when[40];

	if (!r)
		return;
	t = (time_t)json_integer_value(json_object_get(r, "time"));
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	printf("reloads      the last at %s (%s): %s; %lld ok, %lld failed since bloomblock run "
	       "(pid %lld) started\n", when,
	       json_string_value(json_object_get(r, "why")) ?: "?",
	       json_is_true(json_object_get(r, "ok")) ? "ok" : "FAILED, the filter before stays",
	       (long long)json_integer_value(json_object_get(r, "ok_total")),
	       (long long)json_integer_value(json_object_get(r, "failed_total")),
	       (long long)json_integer_value(json_object_get(r, "pid")));
	json_decref(r);
}

/* status -j: everything the text says, as one object. */
static void status_json(const struct status_view *v)
{
	const struct bb_attachment *att = v->att;
	const struct bb_header *hdr = v->hdr;
	const struct bb_allow_header *ah = v->ah;
	const struct bb_config *cfg = v->cfg;
	struct bb_image img = v->img;
	struct bb_index_view index = v->index;
	const unsigned int *probes = v->probes;
	const double *check_fpr = v->check_fpr, *check_fill = v->check_fill;
	double fpr = v->fpr, fill_fpr = v->fill_fpr;
	long kept = v->kept;
	int n = v->n, i;
	json_t *ifaces = json_array();

	for (i = 0; i < n; i++)
		json_array_append_new(ifaces, json_pack("{s:s, s:i, s:s, s:s, s:s, s:I, s:I, s:I, "
							"s:b, s:b, s:i, s:i}",
			"ifname", att[i].ifname, "ifindex", att[i].ifindex,
			"hook", bb_hook_name(att[i].hook),
			"xdp_mode", att[i].hook == BB_HOOK_XDP ?
				    bb_xdp_mode_name(att[i].mode) : "none",
			"attach", att[i].hook != BB_HOOK_XDP ? "tc" : att[i].libxdp ?
				  "libxdp" : "bpf_link",
			"link_id", (json_int_t)att[i].link_id,
			"prog_id", (json_int_t)att[i].prog_id,
			"netns", (json_int_t)(att[i].netns ? att[i].netns : bb_netns_id()),
			"other_netns", att[i].elsewhere,
			"libxdp_dispatcher", att[i].dispatcher,
			"libxdp_programs", att[i].programs,
			"libxdp_run_prio", (int)att[i].prio));
	json_t *j = json_pack("{s:s, s:o, s:{s:I, s:I, s:s, s:I, s:I, s:I, s:I, s:f, "
				"s:o, s:o}}",
		"pin_dir", bb_opts.pin_dir, "interfaces", ifaces,
		"filter", "map_id", (json_int_t)img.map_id,
		"generation", (json_int_t)hdr->generation,
		"mode", bb_mode_name(hdr->flags),
		"keys", (json_int_t)hdr->items, "blocks", (json_int_t)hdr->nblocks,
		"bytes", (json_int_t)img.map_size, "k", (json_int_t)hdr->k, "fpr", fpr,
		"ipv4_prefix_lengths", plens_json(hdr->v4_plens, hdr->n_v4_plens),
		"ipv6_prefix_lengths", plens_json(hdr->v6_plens, hdr->n_v6_plens));

	if (j)
		json_object_set_new(j, "allowlist", json_pack(
			"{s:I, s:I, s:o, s:o, s:s, s:I}", "keys", (json_int_t)ah->items,
			"slots", (json_int_t)hdr->allow_blocks * 8,
			"ipv4_prefix_lengths", plens_json(ah->v4_plens, ah->n_v4_plens),
			"ipv6_prefix_lengths", plens_json(ah->v6_plens, ah->n_v6_plens),
			"state_dir", bb_state_dir(), "kept_items", (json_int_t)kept));
	if (j) {
		json_t *items = json_array(), *filter = json_object_get(j, "filter");
		bool on = guard_items(items);

		json_object_set_new(filter, "bits_set", json_integer((json_int_t)v->bits_set));
		json_object_set_new(filter, "fill", json_real(v->fill));
		json_object_set_new(filter, "fpr_from_fill", json_real(fill_fpr));
		json_object_set_new(filter, "fpr_per_check",
				    bb_checks_json(probes, check_fpr));
		json_object_set_new(filter, "fpr_per_check_from_fill",
				    bb_checks_json(probes, check_fill));

		json_object_set_new(j, "guard", json_pack("{s:b, s:o}", "on", on,
							  "items", items));
		json_object_set_new(j, "index", index_json(&index, shadow_size(), hdr->nblocks));
		json_object_set_new(j, "events", json_pack("{s:b, s:I, s:I}", "on",
			(hdr->flags & BB_HDR_F_EVENTS) && cfg->event_cost_ns,
			"rate", (json_int_t)(cfg->event_cost_ns ?
					     1000000000U / cfg->event_cost_ns : 0),
			"burst", (json_int_t)cfg->event_burst));
		json_object_set_new(j, "loaded", loaded_json(hdr) ?: json_null());
		json_object_set_new(j, "answer", json_pack("{s:s, s:I}", "mode",
			answer_name(hdr->flags), "rate", (json_int_t)(cfg->answer_cost_ns ?
			1000000000U / cfg->answer_cost_ns : BB_ANSWER_RATE)));
		json_object_set_new(j, "feeds", bb_feeds_status_json(feeds_path()));
		json_object_set_new(j, "xdp_attach", xdp_json() ?: json_null());
		json_object_set_new(j, "reloads", run_json() ?: json_null());
		json_object_set_new(j, "refused", reload_refusal_json());
		json_object_set_new(j, "confirm", hdr->flags & BB_HDR_F_CONFIRM ?
				    confirm_json(v) : json_null());
		if (index.map) {
			json_t *kinds = json_object();
			__u64 by[BB_KEY_KIND_MAX];

			keys_by_kind(&index, by);
			for (i = 1; i < BB_KEY_KIND_MAX; i++)
				json_object_set_new(kinds, key_kind_names[i],
						    json_integer((json_int_t)by[i]));
			json_object_set_new(filter, "keys_by_kind", kinds);
			json_object_set_new(filter, "room_left", json_integer((json_int_t)
				room_left(hdr, probes, index.meta.fp)));
		}
	}
	bb_json_print(j);
	(void)cfg;
}

/* status: an XDP attachment made through libxdp (this namespace's). */
static void libxdp_text(const struct bb_attachment *a)
{
	if (!a->ifindex) {
		printf("interface    %s (xdp, through libxdp, prog %u) - gone: the interface, or "
		       "the program detached by another tool; unload forgets it\n", a->ifname,
		       a->prog_id);
		return;
	}
	if (a->dispatcher)
		printf("interface    %s (ifindex %d, xdp %s, libxdp's dispatcher: run priority "
		       "%u, %d program%s in all, prog %u)\n", a->ifname, a->ifindex,
		       bb_xdp_mode_name(a->mode), a->prio, a->programs, a->programs == 1 ? "" : "s",
		       a->prog_id);
	else
		printf("interface    %s (ifindex %d, xdp %s, through libxdp, alone, prog %u)\n",
		       a->ifname, a->ifindex, bb_xdp_mode_name(a->mode), a->prog_id);
}

/* status: the attachments, the filter, the allowlist, the state, the guard. */
/* One line an attachment: this namespace's, or another's, said as such. */
static void interfaces_text(const struct bb_attachment *att, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (att[i].elsewhere && att[i].hook == BB_HOOK_XDP) {
			char how[32];

			if (att[i].libxdp)
				snprintf(how, sizeof(how), "through libxdp");
			else
				snprintf(how, sizeof(how), "link %u", att[i].link_id);
			printf("interface    %s in another network namespace (net:[%llu]; xdp, %s, "
			       "prog %u)%s: status and unload -i act on it there\n", att[i].ifname,
			       att[i].netns, how, att[i].prog_id, att[i].ifindex ? "" :
			       att[i].libxdp ? " - gone (the interface or its namespace)" :
			       " - interface gone, link is dead");
			continue;
		}
		if (att[i].elsewhere) {
			printf("interface    %s in another network namespace (net:[%llu]; %s, prog "
			       "%u)%s: status and unload -i act on it there\n", att[i].ifname,
			       att[i].netns, bb_hook_name(att[i].hook), att[i].prog_id,
			       att[i].ifindex ? "" : " - gone (the interface or its namespace), or "
			       "that namespace not found from here");
			continue;
		}
		if (att[i].hook != BB_HOOK_XDP && !att[i].prog_id) {
			printf("interface    %s (%s) - %s; load attaches it again, unload forgets "
			       "it\n", att[i].ifname, bb_hook_name(att[i].hook), att[i].ifindex ?
			       "its filter is gone (removed by hand?)" : "interface gone");
			continue;
		}
		if (att[i].libxdp) {
			libxdp_text(&att[i]);
			continue;
		}
		printf("interface    %s (ifindex %d, %s%s%s, link %u, prog %u)%s\n", att[i].ifname,
		       att[i].ifindex, bb_hook_name(att[i].hook),
		       att[i].hook == BB_HOOK_XDP ? " " : "",
		       att[i].hook == BB_HOOK_XDP ? bb_xdp_mode_name(att[i].mode) : "",
		       att[i].link_id, att[i].prog_id,
		       att[i].ifindex ? "" : " - interface gone, link is dead");
	}
	if (n <= 0)
		printf("interface    none\n");
}

/* status: how the filter answers a hit (mode, answers, confirmations). */
static void verdicts_text(const struct status_view *v)
{
	const struct bb_header *hdr = v->hdr;
	const struct bb_config *cfg = v->cfg;
	int i;

	printf("mode         %s%s\n", bb_mode_name(hdr->flags), hdr->flags & BB_HDR_F_CONFIRM ?
	       ": a hit drops once bloomblock run found it on a list" : "");
	if (hdr->flags & BB_HDR_F_ANSWER) {
		printf("answers      %s: a blocked DNS query at XDP gets %s from the kernel, and at tc; "
		       "a blocked TLS or HTTP connection is reset on both sides; "
		       "at most %u answers a second a CPU\n", answer_name(hdr->flags),
		       hdr->flags & BB_HDR_F_SINKHOLE ? "A 0.0.0.0 / AAAA :: (NXDOMAIN where that "
		       "would not fit)" : "NXDOMAIN", cfg->answer_cost_ns ?
		       1000000000U / cfg->answer_cost_ns : BB_ANSWER_RATE);
		for (i = 0; i < v->n; i++)
			if (v->att[i].hook == BB_HOOK_XDP && v->att[i].ifindex > 0 &&
			    !v->att[i].elsewhere &&
			    !bb_xdp_reset_attached(bb_opts.pin_dir, v->att[i].ifindex))
				printf("             %s: no reset helper at tc ingress: a blocked "
				       "connection is reset on the server's side only (load again)\n",
				       v->att[i].ifname);
	} else {
		printf("answers      drop: blocked DNS queries and TLS/HTTP connections get no answer "
		       "(--answer reject or sinkhole)\n");
	}
	if (hdr->flags & BB_HDR_F_CONFIRM)
		confirm_text(v);
	else if (v->have_daemon && !strcmp(bb_confirm_daemon_state(&v->daemon, v->now), "running"))
		printf("daemon       running (pid %u): counting hits by list (stats --by-list)\n",
		       v->daemon.pid);
}

/* status: what was loaded, from where, when (loaded.json). */
static void loaded_text(const struct bb_header *hdr)
{
	json_t *ld = loaded_json(hdr), *lists = ld ? json_object_get(ld, "lists") : NULL;
	const char *file = ld ? json_string_value(json_object_get(ld, "filter_file")) : NULL;
	size_t k;

	if (!ld) {
		printf("loaded       not known (no %s for this filter)\n", BB_STATE_LOADED);
		return;
	}
	printf("loaded       %s from ", json_string_value(json_object_get(ld, "time_utc")) ?: "?");
	if (file)
		printf("the filter file %s%s", file, json_array_size(lists) ? ", with " : "");
	for (k = 0; k < json_array_size(lists); k++)
		printf("%s%s", k ? ", " : "", json_string_value(json_array_get(lists, k)) ?: "?");
	printf("\n");
	print_entries("entries", json_object_get(ld, "entries"));
	print_entries("allowlisted", json_object_get(ld, "allow_entries"));
	if (json_integer_value(json_object_get(ld, "capacity")) > 0)
		printf("capacity     sized for %lld keys\n",
		       (long long)json_integer_value(json_object_get(ld, "capacity")));
	json_decref(ld);
}

/* status: the filter itself: generation, keys, size, fill, rates, probes, allowlist. */
static void filter_text(const struct status_view *v)
{
	const struct bb_header *hdr = v->hdr;
	const struct bb_allow_header *ah = v->ah;
	const unsigned int *probes = v->probes;
	int i, n_checks;

	printf("generation   %llu (map id %u)\n", (unsigned long long)hdr->generation,
	       v->img.map_id);
	printf("keys         %llu", (unsigned long long)hdr->items);
	if (v->index.map) {
		__u64 by[BB_KEY_KIND_MAX];
		int shown = 0;

		keys_by_kind(&v->index, by);
		for (i = 1; i < BB_KEY_KIND_MAX; i++)
			if (by[i])
				printf("%s%s %llu", shown++ ? ", " : " (", key_kind_names[i],
				       (unsigned long long)by[i]);
		printf("%s; room for about %llu more before add refuses", shown ? ")" : "",
		       (unsigned long long)room_left(hdr, probes, v->index.meta.fp));
	}
	printf("\n");
	printf("size         %zu bytes, %u blocks, k=%u\n", v->img.map_size, hdr->nblocks, hdr->k);
	printf("fill         %.4g (%llu of %llu bits set)\n", v->fill,
	       (unsigned long long)v->bits_set, (unsigned long long)hdr->nblocks * BB_BLOCK_BITS);
	printf("FPR          %.3g per key lookup, predicted; %.3g from the bits set\n", v->fpr,
	       v->fill_fpr);
	printf("per check   ");
	for (i = 0, n_checks = 0; i < BB_CHECK_MAX; i++)
		if (probes[i])
			printf("%s %s %.3g (%.3g from the bits; %u probe%s)", n_checks++ ? "," : "",
			       bb_check_name(i), v->check_fpr[i], v->check_fill[i], probes[i],
			       probes[i] == 1 ? "" : "s");
	printf("%s\n", n_checks ? "" : " none");
	print_probes("IPv4", hdr->v4_plens, hdr->n_v4_plens, hdr->flags & BB_HDR_F_V4_SHORT);
	print_probes("IPv6", hdr->v6_plens, hdr->n_v6_plens, hdr->flags & BB_HDR_F_V6_SHORT);
	printf("allowlist    %llu keys in %u slots", (unsigned long long)ah->items,
	       hdr->allow_blocks * 8);
	if (ah->n_v4_plens || ah->n_v6_plens) {
		printf(", prefixes");
		for (i = 0; i < ah->n_v4_plens && i < BB_ALLOW_MAX_PLENS; i++)
			printf(" /%u", ah->v4_plens[i]);
		for (i = 0; i < ah->n_v6_plens && i < BB_ALLOW_MAX_PLENS; i++)
			printf(" /%u (v6)", ah->v6_plens[i]);
	}
	printf("; %ld item%s kept by `bloomblock allow`\n", v->kept, v->kept == 1 ? "" : "s");
}

/* status: what userspace keeps beside the filter: events, the state dir, index, shadow, guard. */
static void state_text(const struct status_view *v)
{
	const struct bb_header *hdr = v->hdr;
	const struct bb_index_view *index = &v->index;

	if ((hdr->flags & BB_HDR_F_EVENTS) && v->cfg->event_cost_ns)
		printf("events       on: at most %u a second a CPU, bursts of %u (bloomblock "
		       "events reads them)\n", 1000000000U / v->cfg->event_cost_ns,
		       v->cfg->event_burst);
	else
		printf("events       off (load --events RATE turns them on)\n");
	printf("state dir    %s\n", bb_state_dir());
	if (index->map) {
		long sb = shadow_size();

		printf("index        %zu keys from %u list%s, %zu bytes (%zu a key): check names "
		       "the list and line of a hit\n", index->n, index->n_sources,
		       index->n_sources == 1 ? "" : "s", index->size,
		       index->n ? index->size / index->n : 0);
		printf("live changes %llu added, %llu deleted since the load\n",
		       (unsigned long long)index->meta.added, (unsigned long long)index->meta.deleted);
		if (sb >= 0)
			printf("shadow       %ld bytes, %llu counts (%.1f bytes a key): the counts "
			       "add and del keep\n", sb,
			       (unsigned long long)hdr->nblocks * BB_BLOCK_BITS,
			       hdr->items ? (double)sb / (double)hdr->items : 0.0);
		else
			printf("shadow       none yet: the first add or del builds it from the index\n");
	} else {
		printf("index        none of this filter: check cannot name the list of a hit\n");
	}
	if (access(guard_off_path(), F_OK))
		printf("guard        on: never dropped (load --no-guard to turn it off)\n");
	else
		printf("guard        off (load --guard to turn it on)\n");
	guard_items(NULL);
}

static void status_text(const struct status_view *v)
{
	int i;

	printf("pin dir      %s\n", bb_opts.pin_dir);
	interfaces_text(v->att, v->n);
	for (i = 0; i < v->n && v->att[i].hook != BB_HOOK_XDP; i++)
		;
	if (i < v->n) {
		char xdp[512];

		if (bb_xdp_compat_text(xdp, sizeof(xdp))[0])
			printf("xdp attach   %s\n", xdp);
	}
	verdicts_text(v);
	loaded_text(v->hdr);
	bb_feeds_status_text(stdout, feeds_path());
	reloads_text();
	reload_refusal_status_text(stdout);
	filter_text(v);
	state_text(v);
}

static int cmd_status(int argc, char **argv)
{
	static const struct bb_allow_header no_allowlist;
	struct status_view v = { 0 };
	struct bb_instance inst;
	const struct bb_header *hdr;
	double fpr;
	int err, i;

	err = bb_command_parse(&cmd_status_def, argc, argv, NULL, NULL, NULL);
	if (err >= 0)
		return err;
	if (open_instance(&inst))
		return BB_EXIT_ERROR;
	v.n = bb_attachments(bb_opts.pin_dir, v.att, 64);
	{
		char said[512];

		if (bb_instance_check(&inst, said, sizeof(said)))
			pr_warn("the instance under %s is damaged or half made: %s; bloomblock "
				"load repairs it\n", bb_opts.pin_dir, said);
	}
	err = bb_image_open(&inst, &v.img);
	bb_instance_close(&inst);
	if (err == -ENOENT) {
		/* programs and maps pinned, no filter swapped in: a first load cut short */
		pr_err("%s holds a half-made instance, with no filter, attached %s (a first load "
		       "killed before its swap): bloomblock load LIST -i IFACE finishes it, "
		       "bloomblock unload --all removes it\n", bb_opts.pin_dir,
		       v.n > 0 ? "somewhere" : "nowhere");
		return BB_EXIT_ERROR;
	}
	if (err) {
		pr_err("no live filter in %s: %s\n", bb_opts.pin_dir, strerror(-err));
		return BB_EXIT_ERROR;
	}
	v.hdr = hdr = (const void *)v.img.blocks;
	v.cfg = (const void *)&v.img.blocks[BB_CONFIG_INDEX];
	v.fpr = fpr = bb_blocked_fpr(hdr->items, hdr->nblocks, hdr->k);
	v.ah = hdr->allow_blocks && (size_t)bb_filter_elements(hdr->nblocks, hdr->allow_blocks) *
	       BB_BLOCK_BYTES <= v.img.map_size ?
	       (const void *)&v.img.blocks[bb_allow_index(hdr->nblocks)] : &no_allowlist;
	v.kept = kept_items();
	bb_state_index(v.img.blocks, &v.index);
	v.have_daemon = !bb_confirm_daemon_pin(bb_opts.pin_dir, &v.daemon);
	v.now = bb_mono_ns();
	v.fill_fpr = bb_image_key_fpr(v.img.blocks);
	v.bits_set = bb_image_bits_set(v.img.blocks);
	v.fill = hdr->nblocks ? (double)v.bits_set / ((double)hdr->nblocks * BB_BLOCK_BITS) : 0;
	bb_check_probes(hdr->flags, hdr->n_v4_plens, hdr->n_v6_plens, v.probes);
	for (i = 0; i < BB_CHECK_MAX; i++) {
		v.check_fpr[i] = v.probes[i] ? bb_check_fpr(fpr, v.probes[i]) : 0;
		v.check_fill[i] = v.probes[i] ? bb_check_fpr(v.fill_fpr, v.probes[i]) : 0;
	}
	if (bb_msg.json)
		status_json(&v);
	else
		status_text(&v);
	bb_index_close(&v.index);
	bb_image_close(&v.img);
	return BB_EXIT_OK;
}

const struct bb_command cmd_stats_def = {
	.name = "stats",
	.synopsis = "[--by-hook | --by-list | --prometheus | --watch SEC [-n N]]",
	.summary = "counters, summed over CPUs and hooks",
	.help = "The counters of the live instance, summed over CPUs and hooks. The same\n"
		"numbers, per CPU and hook, without bloomblock:\n"
		"  bpftool map dump pinned PIN_DIR/" BB_PIN_STATS "\n"
		"whose keys are the hooks: 1 xdp, 2 tc-ingress, 3 tc-egress; key 0 counts\n"
		"for no hook (an instance an earlier version loaded counted every hook there).\n",
	.groups = { stats_options },
	.run = cmd_stats,
};

const struct bb_command cmd_status_def = {
	.name = "status",
	.synopsis = "",
	.summary = "what is attached where, the live filter, the daemon's feeds and loads",
	.help = "The interfaces bloomblock is attached to and the live filter's parameters,\n"
		"what the last load loaded, and what bloomblock run did last (its feeds, its\n"
		"reloads).\n",
	.run = cmd_status,
};

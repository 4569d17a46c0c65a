// SPDX-License-Identifier: GPL-2.0
/*
 * The reload guard: what keeps a reload from swapping a good filter for what a cron
 * job's failed download left in the list's place. A list that is binary data, an HTML
 * page or a JSON error body (told by its reader, list_content.c) is refused; so is a
 * list more than half of whose lines do not read as entries, and a new filter that
 * keeps less than half of the live filter's keys. --allow-shrink lets the last two
 * through, a deliberate change; nothing lets the first three through: they are never
 * lists. A refusal leaves the live filter as it was and is recorded in the state
 * directory (refused.json) until a load goes through, for status and /metrics.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "outfile.h"
#include "reload_guard.h"
#include "state.h"

const char *reload_check_name(enum reload_check check)
{
	static const char *const names[RELOAD_CHECK_MAX] = {
		[RELOAD_OK] = "", [RELOAD_BINARY] = "binary", [RELOAD_HTML] = "html",
		[RELOAD_JSON_ERROR] = "json_error", [RELOAD_REJECTS] = "rejects",
		[RELOAD_SHRINK] = "shrink",
	};

	return check < RELOAD_CHECK_MAX ? names[check] : "";
}

static enum reload_check check_of(enum bb_content content)
{
	return content == BB_CONTENT_BINARY ? RELOAD_BINARY : content == BB_CONTENT_HTML ?
	       RELOAD_HTML : content == BB_CONTENT_JSON_ERROR ? RELOAD_JSON_ERROR : RELOAD_OK;
}

bool reload_guard_list(struct reload_refusal *r, const char *name, const char *origin, int err,
		       const struct bb_list_counts *c, const struct bb_file_info *info,
		       bool allow_shrink)
{
	char why[256];

	if (r->check != RELOAD_OK)
		return true;
	if (err == -EMEDIUMTYPE) {
		r->check = check_of(info->content);
		snprintf(r->list, sizeof(r->list), "%s", name);
		snprintf(r->why, sizeof(r->why), "%s: %s, not a list", name, info->content_why);
		return true;
	}
	/* bloomblock's own files (the guard's list, the kept allowlist) are no download */
	if (err || !strcmp(origin, "guard") || !strcmp(origin, "kept") ||
	    !bb_list_mostly_unreadable(c, bb_list_format_name(info->format), why, sizeof(why)))
		return false;
	if (allow_shrink) {
		pr_warn("%s: %s: loaded all the same (--allow-shrink)\n", name, why);
		return false;
	}
	r->check = RELOAD_REJECTS;
	snprintf(r->list, sizeof(r->list), "%s", name);
	snprintf(r->why, sizeof(r->why), "%s: %s: is it a list? --allow-shrink loads it all "
		 "the same", name, why);
	return true;
}

/* What the live filter's last load built, when loaded.json describes this filter; else 0. */
static __u64 loaded_keys(__u64 generation)
{
	char path[512];
	json_t *j;
	__u64 keys = 0;

	if (bb_state_path(path, sizeof(path), BB_STATE_LOADED))
		return 0;
	j = json_load_file(path, 0, NULL);
	if ((__u64)json_integer_value(json_object_get(j, "generation")) == generation)
		keys = (__u64)json_integer_value(json_object_get(j, "keys"));
	json_decref(j);
	return keys;
}

int reload_guard_shrink(struct reload_refusal *r, const struct bb_instance *inst,
			const struct bb_filter *f, bool allow_shrink)
{
	const struct bb_header *hdr;
	struct bb_image live;
	__u64 now, built, keys, kept = f->hdr.items;

	if (bb_image_open(inst, &live))
		return 0;	/* no live filter: nothing to shrink from */
	hdr = (const void *)live.blocks;
	now = hdr->magic == BB_MAGIC ? hdr->items : 0;
	built = hdr->magic == BB_MAGIC ? loaded_keys(hdr->generation) : 0;
	bb_image_close(&live);
	keys = built && built < now ? built : now;
	if (keys < RELOAD_SHRINK_MIN_KEYS || kept * 2 >= keys)
		return 0;
	if (allow_shrink) {
		pr_warn("the new filter keeps %llu of the live filter's %llu keys (%.1f%%): loaded "
			"all the same (--allow-shrink)\n", (unsigned long long)kept,
			(unsigned long long)keys, 100.0 * (double)kept / (double)keys);
		return 0;
	}
	r->check = RELOAD_SHRINK;
	r->list[0] = '\0';
	snprintf(r->why, sizeof(r->why), "the new filter keeps %llu of the live filter's %llu "
		 "keys (%.1f%%, less than half): a list cut short, emptied or replaced? "
		 "--allow-shrink loads it all the same", (unsigned long long)kept,
		 (unsigned long long)keys, 100.0 * (double)kept / (double)keys);
	pr_err("refused: %s\n", r->why);
	return -ERANGE;
}

void reload_refusal_save(const struct reload_refusal *r)
{
	char path[512], when[32];
	time_t now = time(NULL);
	struct tm tm;
	json_t *j;

	if (r->check == RELOAD_OK || bb_state_path(path, sizeof(path), BB_STATE_REFUSED))
		return;
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	j = json_pack("{s:I, s:s, s:s, s:s?, s:s}", "time", (json_int_t)now, "time_utc", when,
		      "check", reload_check_name(r->check), "list", r->list[0] ? r->list : NULL,
		      "message", r->why);
	if (!j || bb_json_write(j, path, JSON_COMPACT))
		pr_warn("%s could not be written: status cannot say the load was refused\n", path);
	json_decref(j);
}

void reload_refusal_clear(void)
{
	char path[512];

	if (!bb_state_path(path, sizeof(path), BB_STATE_REFUSED))
		unlink(path);
}

json_t *reload_refusal_json(void)
{
	char path[512];
	json_t *j;

	if (bb_state_path(path, sizeof(path), BB_STATE_REFUSED))
		return json_null();
	j = json_load_file(path, 0, NULL);
	return json_is_object(j) ? j : (json_decref(j), json_null());
}

/* "refused      2026-12-03 12:00:00 UTC: MESSAGE; the filter loaded before stays" */
void reload_refusal_status_text(FILE *out)
{
	json_t *j = reload_refusal_json();
	time_t t = (time_t)json_integer_value(json_object_get(j, "time"));
	struct tm tm;
	char when[40];

	if (json_is_object(j)) {
		gmtime_r(&t, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
		fprintf(out, "refused      the last load, at %s: %s; the filter before it stays\n",
			when, json_string_value(json_object_get(j, "message")) ?: "?");
	}
	json_decref(j);
}

void reload_refusal_metrics(FILE *out)
{
	json_t *j = reload_refusal_json();
	const char *check = json_string_value(json_object_get(j, "check")) ?: "";
	int k;

	fprintf(out, "# HELP bloomblock_reload_refused 1 while the last load was refused by this "
		"check of the reload guard (the filter before it stays live)\n"
		"# TYPE bloomblock_reload_refused gauge\n");
	for (k = RELOAD_BINARY; k < RELOAD_CHECK_MAX; k++)
		fprintf(out, "bloomblock_reload_refused{check=\"%s\"} %d\n", reload_check_name(k),
			!strcmp(check, reload_check_name(k)));
	fprintf(out, "# HELP bloomblock_reload_refused_timestamp_seconds when the last load "
		"was refused (Unix time); 0 when it was not\n"
		"# TYPE bloomblock_reload_refused_timestamp_seconds gauge\n"
		"bloomblock_reload_refused_timestamp_seconds %lld\n",
		(long long)json_integer_value(json_object_get(j, "time")));
	json_decref(j);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * What the daemon records of its feeds (feed.h): each feed's name and copy, and
 * feeds.json, where status and the metrics read what each did last.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <jansson.h>
#include <xxhash.h>

#include "feed.h"
#include "msg.h"
#include "outfile.h"

bool bb_feed_is_url(const char *s)
{
	return !strncasecmp(s, "http://", 7) || !strncasecmp(s, "https://", 8);
}

/* The copy's name: 8 hex digits of the URL's hash, then its last path segment, tamed. */
static void feed_name(const char *url, char *out, size_t size)
{
	const char *p = strstr(url, "://"), *seg = NULL, *end;
	size_t o, n;

	p = p ? p + 3 : url;
	end = p + strcspn(p, "?#");
	for (; p < end; p++)
		if (*p == '/')
			seg = p + 1;
	o = (size_t)snprintf(out, size, "%08llx-", (unsigned long long)(XXH64(url, strlen(url), 0)
									 & 0xffffffffULL));
	n = seg ? (size_t)(end - seg) : 0;
	for (; seg && n-- && o + 1 < size && o < 72; seg++) {
		char c = *seg;

		out[o++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_' ? c : '_';
	}
	if (out[o - 1] == '-' || out[o - 1] == '.')
		o += (size_t)snprintf(out + o, size - o, "feed");
	out[o] = '\0';
}

int bb_feed_init(struct bb_feed *f, const char *url, const char *dir)
{
	size_t n = strlen(url);

	memset(f, 0, sizeof(*f));
	if (n >= sizeof(f->url))
		return -ENAMETOOLONG;
	memcpy(f->url, url, n + 1);
	feed_name(url, f->name, sizeof(f->name));
	if (snprintf(f->file, sizeof(f->file), "%s/%s", dir, f->name) >= (int)sizeof(f->file))
		return -ENAMETOOLONG;
	return 0;
}

bool bb_feed_has_copy(const struct bb_feed *f)
{
	struct stat st;

	return !stat(f->file, &st) && S_ISREG(st.st_mode);
}

const char *bb_feed_result_name(enum bb_feed_result r)
{
	switch (r) {
	case BB_FEED_UPDATED:	return "updated";
	case BB_FEED_UNCHANGED:	return "unchanged";
	case BB_FEED_FAILED:	return "failed";
	default:		return "never";
	}
}

static json_t *feed_json(const struct bb_feed *f)
{
	char hash[20];

	snprintf(hash, sizeof(hash), "%016llx", f->hash);
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:s, s:I, s:I, s:I, s:I, s:i, s:s, s:s, "
			 "s:s}",
			 "url", f->url, "name", f->name, "file", f->file, "etag", f->etag,
			 "last_modified", f->last_modified, "bytes", (json_int_t)f->bytes,
			 "entries", (json_int_t)f->entries,
			 "hash", hash, "fetched", (json_int_t)f->fetched,
			 "changed", (json_int_t)f->changed, "attempted", (json_int_t)f->attempted,
			 "stale_since", (json_int_t)f->stale_since, "failures", (int)f->failures,
			 "result", bb_feed_result_name(f->result), "error", f->error,
			 "refused", f->refused);
}

int bb_feeds_save(const char *path, const struct bb_feed *f, size_t n)
{
	json_t *arr = json_array(), *root;
	size_t i;
	int err = 0;

	for (i = 0; arr && i < n; i++)
		json_array_append_new(arr, feed_json(&f[i]));
	root = json_pack("{s:o}", "feeds", arr);
	err = root ? bb_json_write(root, path, JSON_INDENT(1)) : -ENOMEM;
	json_decref(root);
	if (err)
		pr_err("%s: %s\n", path, strerror(-err));
	return err;
}

static void str_of(json_t *o, const char *key, char *out, size_t size)
{
	const char *s = json_string_value(json_object_get(o, key));

	snprintf(out, size, "%s", s ? s : "");
}

static long long int_of(json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

int bb_feeds_load(const char *path, struct bb_feed *f, size_t max)
{
	char hash[20];
	json_t *root, *arr, *j;
	size_t i, n = 0;

	root = json_load_file(path, 0, NULL);
	if (!root)
		return 0;
	arr = json_object_get(root, "feeds");
	json_array_foreach(arr, i, j) {
		const char *r = json_string_value(json_object_get(j, "result"));

		if (n >= max)
			break;
		memset(&f[n], 0, sizeof(f[n]));
		str_of(j, "url", f[n].url, sizeof(f[n].url));
		str_of(j, "name", f[n].name, sizeof(f[n].name));
		str_of(j, "file", f[n].file, sizeof(f[n].file));
		str_of(j, "etag", f[n].etag, sizeof(f[n].etag));
		str_of(j, "last_modified", f[n].last_modified, sizeof(f[n].last_modified));
		str_of(j, "error", f[n].error, sizeof(f[n].error));
		str_of(j, "refused", f[n].refused, sizeof(f[n].refused));
		str_of(j, "hash", hash, sizeof(hash));
		f[n].hash = strtoull(hash, NULL, 16);
		f[n].bytes = (unsigned long long)int_of(j, "bytes");
		f[n].entries = (unsigned long long)int_of(j, "entries");
		f[n].fetched = (time_t)int_of(j, "fetched");
		f[n].changed = (time_t)int_of(j, "changed");
		f[n].attempted = (time_t)int_of(j, "attempted");
		f[n].stale_since = (time_t)int_of(j, "stale_since");
		f[n].failures = (unsigned int)int_of(j, "failures");
		f[n].result = !r ? BB_FEED_NEVER : !strcmp(r, "updated") ? BB_FEED_UPDATED :
			      !strcmp(r, "unchanged") ? BB_FEED_UNCHANGED :
			      !strcmp(r, "failed") ? BB_FEED_FAILED : BB_FEED_NEVER;
		if (f[n].url[0] && f[n].file[0])
			n++;
	}
	json_decref(root);
	return (int)n;
}

/* "2026-12-01 18:00:02 UTC" */
static const char *utc(time_t t, char *buf, size_t size)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%d %H:%M:%S UTC", &tm);
	return buf;
}

bool bb_feed_stale(const struct bb_feed *f)
{
	return f->stale_since != 0;
}

void bb_feeds_status_text(FILE *out, const char *path)
{
	struct bb_feed *f = calloc(BB_FEEDS_MAX, sizeof(*f));
	int n = f ? bb_feeds_load(path, f, BB_FEEDS_MAX) : 0, i;
	time_t now = time(NULL);
	char t1[40], t2[40], sz[32];

	for (i = 0; i < n; i++) {
		const struct bb_feed *e = &f[i];

		fprintf(out, "feed         %s: ", e->url);
		if (!bb_feed_has_copy(e))
			fprintf(out, "NO COPY YET (%u failed fetch%s: %s): left out of the filter\n",
				e->failures, e->failures == 1 ? "" : "es", e->error);
		else if (bb_feed_stale(e))
			fprintf(out, "STALE since %s (%u failed fetch%s, the last: %s); its last good "
				"copy stays (%llu entries, from %s)\n", utc(e->stale_since, t1,
				sizeof(t1)), e->failures, e->failures == 1 ? "" : "es", e->error,
				e->entries, utc(e->changed, t2, sizeof(t2)));
		else
			fprintf(out, "fresh: %llu entries, %s; checked %lld s ago (%s), this copy "
				"from %s\n", e->entries, bb_human_bytes(e->bytes, sz, sizeof(sz)),
				(long long)(now - e->attempted), bb_feed_result_name(e->result),
				utc(e->changed, t1, sizeof(t1)));
	}
	free(f);
}

json_t *bb_feeds_status_json(const char *path)
{
	struct bb_feed *f = calloc(BB_FEEDS_MAX, sizeof(*f));
	int n = f ? bb_feeds_load(path, f, BB_FEEDS_MAX) : 0, i;
	json_t *arr = json_array();

	for (i = 0; i < n; i++) {
		json_t *j = feed_json(&f[i]);

		json_object_set_new(j, "stale", json_boolean(bb_feed_stale(&f[i])));
		json_object_set_new(j, "copy", json_boolean(bb_feed_has_copy(&f[i])));
		json_array_append_new(arr, j);
	}
	free(f);
	return arr;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Feeds: lists the daemon fetches by http(s) URL (daemon/fetch.c). Each has a last
 * good copy in the feed directory, which is what load reads; a fetch replaces it only
 * with a whole, parseable copy that did not shrink too much. What each feed did last
 * is kept in the state directory's feeds.json, where status and the metrics find it
 * (feed_record.c).
 */
#ifndef BB_FEED_H
#define BB_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include <jansson.h>


#define BB_FEED_NAME_MAX	80
#define BB_FEEDS_MAX		64	/* feeds an instance has (its config's list keys) */

enum bb_feed_result {
	BB_FEED_NEVER,		/* not fetched yet */
	BB_FEED_UPDATED,	/* a new copy, checked: the lists changed */
	BB_FEED_UNCHANGED,	/* 304, or the same bytes again: nothing to load */
	BB_FEED_FAILED,		/* no new copy: the last good one stays (if there is one) */
};

/* One feed: what feeds.json keeps. Times are Unix seconds, 0 for never. */
struct bb_feed {
	char url[1024];
	char name[BB_FEED_NAME_MAX];	/* its copy's file name: hash-basename */
	char file[640];			/* its last good copy's path */
	char etag[256], last_modified[64];
	unsigned long long bytes, entries, hash;	/* of the last good copy */
	time_t fetched;		/* last time the server answered well (200 or 304) */
	time_t changed;		/* last time a new copy was taken */
	time_t attempted;	/* last fetch */
	time_t stale_since;	/* the first failed fetch since the last good one; 0: fresh */
	unsigned int failures;	/* failed fetches in a row */
	enum bb_feed_result result;	/* of the last fetch */
	char error[1024];	/* why it failed; "" */
	char refused[16];	/* the check that refused its last fetch's body, its copy kept:
				 * "binary", "html", "json_error", "rejects", "shrink"; "" */
};

/* Whether a list names a feed: http:// or https://. */
bool bb_feed_is_url(const char *s);
/* The feed of url, its copy in dir: name and file set, the rest empty. */
int bb_feed_init(struct bb_feed *f, const char *url, const char *dir);
/* Whether its last good copy exists (load can read it). */
bool bb_feed_has_copy(const struct bb_feed *f);

/* feeds.json at path: n feeds written (atomically), or read into at most max (the count). */
int bb_feeds_save(const char *path, const struct bb_feed *f, size_t n);
int bb_feeds_load(const char *path, struct bb_feed *f, size_t max);

/* Stale: its last fetch failed (the last good copy, if any, is what is loaded). */
bool bb_feed_stale(const struct bb_feed *f);
/* status: a line a feed of feeds.json; status -j: them as an array. */
void bb_feeds_status_text(FILE *out, const char *path);
json_t *bb_feeds_status_json(const char *path);

const char *bb_feed_result_name(enum bb_feed_result r);	/* "updated"... */

#endif /* BB_FEED_H */

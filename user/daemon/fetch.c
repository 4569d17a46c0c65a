// SPDX-License-Identifier: GPL-2.0
/*
 * Feeds (feed.h): lists fetched by URL with libcurl. A fetch is a conditional request
 * (If-None-Match with the ETag the server gave, If-Modified-Since with its
 * Last-Modified), bounded in time and size, retried with back-off when the failure
 * may pass (no connection, a timeout, a cut transfer, a 5xx, 408, 429). Its body goes
 * to a temporary file beside the copy and becomes the copy only when it is whole (the
 * length the server announced, compressed data that ends where it should), reads as
 * a list with some entry in it, and did not lose more than max_shrink of the entries
 * the last good copy has: a feed whose server breaks, or sends an error page with a
 * 200, keeps its last good copy and is stale until a good fetch. Nothing here loads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <curl/curl.h>
#include <jansson.h>
#include <xxhash.h>

#include "outfile.h"
#include "common.h"
#include "fetch.h"
#include "list.h"
#include "state.h"

void bb_feed_opts_default(struct bb_feed_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->timeout_s = 300;
	o->connect_timeout_s = 15;
	o->max_bytes = 1ULL << 30;
	o->retries = 3;
	o->retry_wait_s = 10;
	o->max_shrink = 0.5;
}

int bb_feed_global_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) ? -EIO : 0;
}

void bb_feed_global_cleanup(void)
{
	curl_global_cleanup();
}

/* One transfer's state. */
struct xfer {
	const struct bb_feed_opts *o;
	int fd;
	unsigned long long bytes;
	XXH64_state_t *hash;
	bool too_big, write_failed;
	char etag[256], last_modified[64];
};

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
	struct xfer *x = ctx;
	size_t len = size * n, done = 0;

	if (x->bytes + len > x->o->max_bytes) {
		x->too_big = true;
		return 0;
	}
	while (done < len) {
		ssize_t w = write(x->fd, data + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			x->write_failed = true;
			return 0;
		}
		done += (size_t)w;
	}
	XXH64_update(x->hash, data, len);
	x->bytes += len;
	return len;
}

/* "Name: value\r\n" into out when the header is name; a new status line clears both. */
static void header_value(const char *h, size_t len, const char *name, char *out, size_t size)
{
	size_t nl = strlen(name), vl;

	if (len <= nl + 1 || strncasecmp(h, name, nl) || h[nl] != ':')
		return;
	h += nl + 1;
	len -= nl + 1;
	while (len && (*h == ' ' || *h == '\t'))
		h++, len--;
	while (len && (h[len - 1] == '\r' || h[len - 1] == '\n' || h[len - 1] == ' '))
		len--;
	vl = len < size ? len : size - 1;
	memcpy(out, h, vl);
	out[vl] = '\0';
}

static size_t on_header(char *data, size_t size, size_t n, void *ctx)
{
	struct xfer *x = ctx;
	size_t len = size * n;

	if (len >= 5 && !strncmp(data, "HTTP/", 5)) {	/* a redirect's headers are not ours */
		x->etag[0] = '\0';
		x->last_modified[0] = '\0';
	}
	header_value(data, len, "ETag", x->etag, sizeof(x->etag));
	header_value(data, len, "Last-Modified", x->last_modified, sizeof(x->last_modified));
	return len;
}

static int on_progress(void *ctx, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	const struct xfer *x = ctx;

	(void)dt, (void)dn, (void)ut, (void)un;
	return x->o->stop && *x->o->stop;
}

/* What one try came to. */
enum try_result {
	TRY_BODY,	/* a 200: the body is in the temporary file */
	TRY_NOT_MODIFIED,
	TRY_AGAIN,	/* failed; a retry may do better */
	TRY_FAIL,	/* failed; a retry would not */
};

static enum try_result try_once(CURL *c, struct bb_feed *f, struct xfer *x, char *why,
				size_t why_size)
{
	struct curl_slist *hdrs = NULL;
	char line[400];
	CURLcode cc;
	long code = 0;

	if (f->etag[0] && bb_feed_has_copy(f)) {
		snprintf(line, sizeof(line), "If-None-Match: %s", f->etag);
		hdrs = curl_slist_append(hdrs, line);
	}
	if (f->last_modified[0] && bb_feed_has_copy(f)) {
		snprintf(line, sizeof(line), "If-Modified-Since: %s", f->last_modified);
		hdrs = curl_slist_append(hdrs, line);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	cc = curl_easy_perform(c);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(hdrs);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (x->too_big || cc == CURLE_FILESIZE_EXCEEDED) {
		snprintf(why, why_size, "larger than feed_max_size (%llu bytes)", x->o->max_bytes);
		return TRY_FAIL;
	}
	if (x->write_failed) {
		snprintf(why, why_size, "writing %s: %s", f->file, strerror(errno));
		return TRY_FAIL;
	}
	if (cc == CURLE_ABORTED_BY_CALLBACK) {
		snprintf(why, why_size, "stopped");
		return TRY_FAIL;
	}
	if (cc == CURLE_PARTIAL_FILE) {
		snprintf(why, why_size, "the transfer was cut short after %llu bytes", x->bytes);
		return TRY_AGAIN;
	}
	if (cc != CURLE_OK) {
		snprintf(why, why_size, "%s", curl_easy_strerror(cc));
		return cc == CURLE_UNSUPPORTED_PROTOCOL || cc == CURLE_URL_MALFORMAT ||
		       cc == CURLE_TOO_MANY_REDIRECTS ? TRY_FAIL : TRY_AGAIN;
	}
	if (code == 304)
		return TRY_NOT_MODIFIED;
	if (code == 200)
		return TRY_BODY;
	snprintf(why, why_size, "HTTP %ld", code);
	return code >= 500 || code == 408 || code == 429 ? TRY_AGAIN : TRY_FAIL;
}

static void no_entry(void *ctx, unsigned int thread, const struct bb_entry *e)
{
	(void)ctx, (void)thread, (void)e;
}

/*
 * The entries a file holds, as load would read it (formats detected), its counts and
 * what it was read as. <0: unreadable (-EMEDIUMTYPE: no list, info says what).
 */
static long long count_entries(const char *path, struct bb_list_counts *c,
			       struct bb_file_info *info)
{
	const struct bb_list_sink sink = { .entry = no_entry };
	struct bb_list_opts lo = { .threads = 1, .info = info };
	unsigned int k;
	long long n = 0;
	int err;

	memset(c, 0, sizeof(*c));
	err = bb_list_scan_file(path, &lo, &sink, c);
	if (err)
		return err;
	for (k = 0; k < BB_ENTRY_KIND_MAX; k++)
		n += (long long)(c->accepted[k] + c->allow[k]);
	return n;
}

/*
 * A 200's body in tmp, checked against the copy: 0 to take it, else why not in why.
 * The reload guard's checks, as load makes them (reload_guard.c), so that a copy
 * taken is one load takes: no list (binary data, an HTML page, a JSON error body),
 * mostly lines that do not read; then the feed's own shrink bound.
 */
static int body_check(struct bb_feed *f, const struct bb_feed_opts *o, const char *tmp,
		      long long *entries, char *why, size_t why_size)
{
	struct bb_list_counts c;
	struct bb_file_info info;
	char said[256];

	*entries = count_entries(tmp, &c, &info);
	if (*entries == -EBADMSG || *entries == -ESTALE) {
		snprintf(why, why_size, "its compressed data is corrupt or cut short");
		return -EBADMSG;
	}
	if (*entries == -EMEDIUMTYPE) {
		snprintf(f->refused, sizeof(f->refused), "%s", bb_content_name(info.content));
		snprintf(why, why_size, "refused: %s, not a list", info.content_why);
		return -EMEDIUMTYPE;
	}
	if (*entries < 0) {
		snprintf(why, why_size, "cannot read it as a list: %s", strerror((int)-*entries));
		return (int)*entries;
	}
	if (!o->allow_shrink &&
	    bb_list_mostly_unreadable(&c, bb_list_format_name(info.format), said, sizeof(said))) {
		snprintf(f->refused, sizeof(f->refused), "rejects");
		snprintf(why, why_size, "refused: %s", said);
		return -EMEDIUMTYPE;
	}
	if (*entries == 0) {
		snprintf(why, why_size, "no usable entries in it");
		return -ENODATA;
	}
	if (bb_feed_has_copy(f) && f->entries &&
	    (double)*entries < (double)f->entries * (1.0 - o->max_shrink)) {
		snprintf(f->refused, sizeof(f->refused), "shrink");
		snprintf(why, why_size, "refused: it shrank from %llu to %lld entries, more than "
			 "feed_max_shrink (%g%%) allows", f->entries, *entries, o->max_shrink * 100);
		return -ERANGE;
	}
	return 0;
}

/* Wait secs, or less when stopped. */
static void wait_for(double secs, volatile sig_atomic_t *stop)
{
	while (secs > 0 && !(stop && *stop)) {
		double step = secs < 0.1 ? secs : 0.1;

		usleep((useconds_t)(step * 1e6));
		secs -= step;
	}
}

static CURL *easy_new(struct bb_feed *f, const struct bb_feed_opts *o, struct xfer *x)
{
	CURL *c = curl_easy_init();

	if (!c)
		return NULL;
	curl_easy_setopt(c, CURLOPT_URL, f->url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "bloomblock (feed refresh)");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");	/* gzip on the wire, if offered */
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(o->connect_timeout_s * 1000));
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(o->timeout_s * 1000));
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)o->max_bytes);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, x);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	if (o->cafile)
		curl_easy_setopt(c, CURLOPT_CAINFO, o->cafile);
	return c;
}

/* Whether a body is the copy's bytes again (a server that sends no validators). */
static bool same_as_copy(const struct bb_feed *f, const struct xfer *x)
{
	return bb_feed_has_copy(f) && x->bytes == f->bytes && XXH64_digest(x->hash) == f->hash;
}

/* A good body in tmp: made the copy (0), the same bytes again (1), or -errno with why. */
static int take_copy(struct bb_feed *f, const char *tmp, const struct xfer *x,
		     long long entries, char *why, size_t why_size)
{
	unsigned long long h = XXH64_digest(x->hash);

	if (same_as_copy(f, x)) {
		unlink(tmp);		/* nothing to load */
		return 1;
	}
	if (rename(tmp, f->file)) {
		snprintf(why, why_size, "%s: %s", f->file, strerror(errno));
		return -errno;
	}
	f->hash = h;
	f->bytes = x->bytes;
	f->entries = (unsigned long long)entries;
	return 0;
}

/* One fetch with its retries: the result, why in why when it failed. */
static enum bb_feed_result fetch(struct bb_feed *f, const struct bb_feed_opts *o, char *why,
				 size_t why_size)
{
	struct xfer x = { .o = o, .fd = -1 };
	char tmp[sizeof(f->file) + 8];
	enum try_result t = TRY_FAIL;
	unsigned int attempt;
	double wait = o->retry_wait_s;
	long long entries = 0;
	CURL *c;
	int err;

	snprintf(tmp, sizeof(tmp), "%s.part", f->file);
	x.hash = XXH64_createState();
	c = x.hash ? easy_new(f, o, &x) : NULL;
	if (!c) {
		snprintf(why, why_size, "%s", strerror(ENOMEM));
		XXH64_freeState(x.hash);
		return BB_FEED_FAILED;
	}
	for (attempt = 0; attempt <= o->retries; attempt++) {
		if (attempt) {
			wait_for(wait, o->stop);
			wait *= 2;
			if (o->stop && *o->stop)
				break;
		}
		x.fd = bb_tmp_open(tmp, 0600);
		if (x.fd < 0) {
			snprintf(why, why_size, "%s: %s", tmp, strerror(-x.fd));
			break;
		}
		x.bytes = 0;
		x.too_big = x.write_failed = false;
		XXH64_reset(x.hash, 0);
		t = try_once(c, f, &x, why, why_size);
		if (t == TRY_BODY && (fsync(x.fd) || close(x.fd))) {
			x.fd = -1;
			snprintf(why, why_size, "%s: %s", tmp, strerror(errno));
			t = TRY_FAIL;
		} else if (t != TRY_BODY) {
			close(x.fd);
		}
		x.fd = -1;
		if (t == TRY_BODY && same_as_copy(f, &x))
			break;		/* checked when it was taken: not read again */
		if (t == TRY_BODY) {
			err = body_check(f, o, tmp, &entries, why, why_size);
			if (!err)
				break;
			t = err == -EBADMSG ? TRY_AGAIN : TRY_FAIL;
		}
		if (t != TRY_AGAIN)
			break;
		if (attempt < o->retries)
			pr_warn("feed %s: %s; again in %gs (try %u of %u)\n", f->url, why, wait,
				attempt + 2, o->retries + 1);
	}
	curl_easy_cleanup(c);
	if (t == TRY_BODY) {
		err = take_copy(f, tmp, &x, entries, why, why_size);
		if (err >= 0) {
			snprintf(f->etag, sizeof(f->etag), "%s", x.etag);
			snprintf(f->last_modified, sizeof(f->last_modified), "%s", x.last_modified);
		}
		XXH64_freeState(x.hash);
		return err < 0 ? BB_FEED_FAILED : err ? BB_FEED_UNCHANGED : BB_FEED_UPDATED;
	}
	unlink(tmp);
	XXH64_freeState(x.hash);
	return t == TRY_NOT_MODIFIED ? BB_FEED_UNCHANGED : BB_FEED_FAILED;
}

enum bb_feed_result bb_feed_fetch(struct bb_feed *f, const struct bb_feed_opts *o)
{
	char why[sizeof(f->error)] = "";
	time_t now = time(NULL);

	f->attempted = now;
	f->refused[0] = '\0';	/* said again by this fetch's body check, if it refuses */
	f->result = fetch(f, o, why, sizeof(why));
	if (f->result == BB_FEED_FAILED) {
		f->failures++;
		if (!f->stale_since)
			f->stale_since = now;
		snprintf(f->error, sizeof(f->error), "%s", why);
		pr_err("feed %s: %s: %s\n", f->url, why, bb_feed_has_copy(f) ?
		       "its last good copy stays" : "no copy of it yet, so it is left out");
		return f->result;
	}
	f->fetched = now;
	if (f->result == BB_FEED_UPDATED)
		f->changed = now;
	if (f->stale_since)
		pr_info("feed %s: fresh again after %u failed fetch%s\n", f->url, f->failures,
			f->failures == 1 ? "" : "es");
	f->failures = 0;
	f->stale_since = 0;
	f->error[0] = '\0';
	if (f->result == BB_FEED_UPDATED)
		pr_info("feed %s: new copy, %llu entries in %llu bytes\n", f->url, f->entries,
			f->bytes);
	return f->result;
}


// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's config file (config.h): an INI file read with inih, one [instance]
 * section. Its keys are the daemon's own (interface, hook, mode, list, allow, refresh,
 * pin_dir, state_dir, metrics, on_exit, watch, and the feed_* keys of feeds) and every option of load under the same name,
 * '_' for '-': each is checked as it is read, with the value parser load uses, so that
 * a bad config names its file, line and key before anything is loaded, every one of
 * them. What the keys name on this host (files, feeds, interfaces) is config_check.c's.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <ini.h>

#include "common.h"
#include "config.h"
#include "load.h"
#include "options.h"
#include "state.h"

/* inih's handler: one key; 0 (an error, said) stops nothing but fails the parse. */
struct reader {
	struct bb_run_config *rc;
	const char *path;
	int line;		/* inih tells a handler no line: counted from its calls */
	bool failed;		/* a problem was said */
};

static int arg_push(struct bb_run_config *rc, const char *a)
{
	if (rc->argc >= BB_RUN_MAX_ARGS - 1)
		return -E2BIG;
	rc->argv[rc->argc] = strdup(a);
	if (!rc->argv[rc->argc])
		return -ENOMEM;
	rc->argc++;
	return 0;
}

static int bad(struct reader *r, const char *key, const char *fmt, const char *what)
{
	char msg[400];

	snprintf(msg, sizeof(msg), fmt, what);
	pr_err("%s:%d: %s: %s\n", r->path, r->line, key, msg);	/* each one, not the first */
	r->failed = true;
	return 0;
}

/* "30m", "1h", "90s", "2d", "0" or "off" -> seconds. */
static int parse_duration(const char *v, double *secs)
{
	char *end;
	double n;

	if (!strcmp(v, "off") || !strcmp(v, "0")) {
		*secs = 0;
		return 0;
	}
	n = strtod(v, &end);
	if (end == v || n <= 0)
		return -EINVAL;
	if (!*end || !strcmp(end, "s"))
		*secs = n;
	else if (!strcmp(end, "m"))
		*secs = n * 60;
	else if (!strcmp(end, "h"))
		*secs = n * 3600;
	else if (!strcmp(end, "d"))
		*secs = n * 86400;
	else
		return -EINVAL;
	return *secs >= 1 ? 0 : -EINVAL;
}

static bool truthy(const char *v)
{
	return !strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "1");
}

static bool falsy(const char *v)
{
	return !strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "0");
}

/* The feed_* keys: how feeds are fetched (feed.h). */
static int feed_key(struct reader *r, const char *name, const char *value)
{
	struct bb_feed_opts *o = &r->rc->feed;
	char *end;
	double d;

	if (!strcmp(name, "feed_dir") || !strcmp(name, "feed_cafile")) {
		char *dst = name[5] == 'd' ? r->rc->feed_dir : r->rc->feed_cafile;

		if (value[0] != '/' || strlen(value) >= sizeof(r->rc->feed_dir))
			return bad(r, name, "an absolute path, not '%s'", value);
		snprintf(dst, sizeof(r->rc->feed_dir), "%s", value);
		return 1;	/* o->cafile: set by its user, as rc may move */
	}
	if (!strcmp(name, "feed_timeout") || !strcmp(name, "feed_connect_timeout") ||
	    !strcmp(name, "feed_retry_wait")) {
		double *dst = name[5] == 't' ? &o->timeout_s : name[5] == 'c' ?
			      &o->connect_timeout_s : &o->retry_wait_s;

		if (parse_duration(value, dst) || *dst <= 0)
			return bad(r, name, "a duration (30s, 5m), not '%s'", value);
		return 1;
	}
	if (!strcmp(name, "feed_max_size"))
		return bb_parse_size(value, &o->max_bytes) ?
		       bad(r, name, "a size in bytes (4096, 64K, 256M, 1G), not '%s'", value) : 1;
	if (!strcmp(name, "feed_retries")) {
		unsigned long n = strtoul(value, &end, 10);

		if (end == value || *end || n > 20)
			return bad(r, name, "a number of retries, 0 to 20, not '%s'", value);
		o->retries = (unsigned int)n;
		return 1;
	}
	if (!strcmp(name, "feed_max_shrink")) {
		d = strtod(value, &end);
		if (end != value && !strcmp(end, "%"))
			d /= 100;
		else if (end == value || *end)
			d = -1;
		if (d < 0 || d > 1)
			return bad(r, name, "a fraction (0.5) or a percentage (50%%) a feed may "
				   "shrink by, not '%s'", value);
		o->max_shrink = d;
		return 1;
	}
	return bad(r, name, "no such key (feed_dir, feed_timeout, feed_connect_timeout, "
		   "feed_max_size, feed_retries, feed_retry_wait, feed_max_shrink, "
		   "feed_cafile)%s", "");
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct reader *r = user;
	struct bb_run_config *rc = r->rc;
	const struct bb_option *opt;
	struct load_opts scratch;
	char flag[80];

	if (strcmp(section, "instance"))
		return bad(r, name, "in section [%s]: the keys go in [instance]", section);
	if (!strcmp(name, "pin_dir") || !strcmp(name, "state_dir")) {
		char *dst = name[0] == 'p' ? rc->pin_dir : rc->state_dir;

		if (value[0] != '/' || strlen(value) >= sizeof(rc->pin_dir))
			return bad(r, name, "an absolute path, not '%s'", value);
		snprintf(dst, sizeof(rc->pin_dir), "%s", value);
		return 1;
	}
	if (!strcmp(name, "metrics")) {
		if (!strcmp(value, "off")) {
			snprintf(rc->metrics, sizeof(rc->metrics), "off");
			return 1;
		}
		if (!strchr(value, ':') || strlen(value) >= sizeof(rc->metrics))
			return bad(r, name, "ADDR:PORT or off, not '%s'", value);
		snprintf(rc->metrics, sizeof(rc->metrics), "%s", value);
		return 1;
	}
	if (!strcmp(name, "refresh"))
		return parse_duration(value, &rc->refresh_s) ?
		       bad(r, name, "a duration (90s, 30m, 1h, 1d) or off, not '%s'", value) : 1;
	if (!strcmp(name, "on_exit")) {
		if (strcmp(value, "keep") && strcmp(value, "detach"))
			return bad(r, name, "keep or detach, not '%s'", value);
		rc->detach_on_exit = !strcmp(value, "detach");
		return 1;
	}
	if (!strcmp(name, "watch")) {
		if (!truthy(value) && !falsy(value))
			return bad(r, name, "yes or no, not '%s'", value);
		rc->no_watch = falsy(value);
		return 1;
	}
	if (!strncmp(name, "feed_", 5))
		return feed_key(r, name, value);
	if (!strcmp(name, "list") || !strcmp(name, "allow")) {
		bool url = bb_feed_is_url(value);

		if (!*value)
			return bad(r, name, "a path, a glob or an http(s) URL%s", "");
		if (url && (strlen(value) >= sizeof(((struct bb_feed *)0)->url) ||
			    strcspn(value, " \t\"'") != strlen(value) || !value[strcspn(value, ":") + 3]))
			return bad(r, name, "'%s' is not a URL a feed can have", value);
		if (rc->n_lists >= BB_RUN_MAX_LISTS)
			return bad(r, name, "at most %s lists and allowlists", "64");
		rc->lists[rc->n_lists].allow = name[0] == 'a';
		rc->lists[rc->n_lists].url = url;
		rc->lists[rc->n_lists].line = r->line;
		rc->lists[rc->n_lists].pattern = strdup(value);
		if (!rc->lists[rc->n_lists].pattern)
			return bad(r, name, "%s", strerror(ENOMEM));
		rc->n_lists++;
		return 1;
	}
	/* interface, hook, mode and the rest: load's own options, checked by its parsers */
	opt = bb_command_option(&cmd_load_def, name);
	if (!opt || !strcmp(opt->name, "output"))
		return bad(r, name, "no such key (the daemon's keys, or load's options with "
			   "'_' for '-')%s", "");
	memset(&scratch, 0, sizeof(scratch));
	if (!opt->arg && !truthy(value) && !falsy(value))
		return bad(r, name, "yes or no, not '%s'", value);
	if (!opt->arg && falsy(value))
		return 1;
	if (!strcmp(opt->name, "allow-shrink"))
		rc->feed.allow_shrink = true;	/* the feeds' body check lets it through too */
	if (opt->parse(&scratch, opt, opt->arg ? value : NULL))
		return bad(r, name, "'%s': load refuses this value (said above)", value);
	snprintf(flag, sizeof(flag), "--%s", opt->name);
	if (arg_push(rc, flag) || (opt->arg && arg_push(rc, value)))
		return bad(r, name, "%s", "too many options");
	rc->arg_line[rc->argc - 1] = rc->arg_line[rc->argc - 1 - (opt->arg != NULL)] = r->line;
	return 1;
}

/* inih reads lines with fgets: the handler is called in line order; the line is counted here. */
static char *counting_reader(char *str, int num, void *stream)
{
	struct { FILE *f; struct reader *r; } *s = stream;

	s->r->line++;
	return fgets(str, num, s->f);
}

int bb_run_config_read(const char *path, struct bb_run_config *rc)
{
	struct reader r = { .rc = rc, .path = path };
	struct { FILE *f; struct reader *r; } stream = { fopen(path, "r"), &r };
	struct stat st;
	int ret;

	memset(rc, 0, sizeof(*rc));
	bb_feed_opts_default(&rc->feed);
	if (!stream.f) {
		pr_err("%s: %s\n", path, strerror(errno));
		return -errno;
	}
	/* a config is a screen of keys: anything larger is not one (a list given by mistake) */
	if (!fstat(fileno(stream.f), &st) && S_ISREG(st.st_mode) &&
	    st.st_size > BB_RUN_CONFIG_MAX) {
		pr_err("%s: %lld bytes, not a config file (at most %d KiB)\n", path,
		       (long long)st.st_size, BB_RUN_CONFIG_MAX >> 10);
		fclose(stream.f);
		return -EFBIG;
	}
	ret = ini_parse_stream(counting_reader, &stream, on_key, &r);
	fclose(stream.f);
	if (!r.failed && ret > 0)
		pr_err("%s:%d: not a key = value line, a [section] or a comment\n", path, ret);
	if (ret || r.failed) {
		bb_run_config_free(rc);
		return -EINVAL;
	}
	if (!rc->n_lists) {
		pr_err("%s: no list: a config names at least one (list = PATH)\n", path);
		bb_run_config_free(rc);
		return -EINVAL;
	}
	return 0;
}

int bb_run_config_argv(const struct bb_run_config *rc, char ***argv, int *argc)
{
	static char *v[BB_RUN_MAX_ARGS + 2 * BB_RUN_MAX_FILES];
	static glob_t globs[BB_RUN_MAX_LISTS];
	static size_t n_globs;
	const size_t max = sizeof(v) / sizeof(v[0]) - 1;
	size_t l, k, n = 0;
	int i;

	for (l = 0; l < n_globs; l++)
		globfree(&globs[l]);
	n_globs = 0;
	for (i = 0; i < rc->argc; i++)
		v[n++] = rc->argv[i];
	for (l = 0; l < rc->n_lists; l++) {
		if (rc->lists[l].url) {
			static char copies[BB_RUN_MAX_LISTS][sizeof(((struct bb_feed *)0)->file)];
			struct bb_feed f;

			if (bb_feed_init(&f, rc->lists[l].pattern, bb_run_feed_dir(rc)) ||
			    !bb_feed_has_copy(&f))
				continue;	/* no copy yet: said when its fetch failed */
			if (n + 2 > max)
				return -E2BIG;
			memcpy(copies[l], f.file, sizeof(copies[l]));
			if (rc->lists[l].allow)
				v[n++] = (char *)"--allow";
			v[n++] = copies[l];
			continue;
		}
		/* a pattern that matches nothing stays as it is: load then says it is missing */
		if (glob(rc->lists[l].pattern, GLOB_NOCHECK, NULL, &globs[n_globs]))
			return -ENOMEM;
		for (k = 0; k < globs[n_globs].gl_pathc; k++) {
			if (n + 2 > max)
				return -E2BIG;
			if (rc->lists[l].allow)
				v[n++] = (char *)"--allow";
			v[n++] = globs[n_globs].gl_pathv[k];
		}
		n_globs++;
	}
	v[n] = NULL;
	*argv = v;
	*argc = (int)n;
	return 0;
}

const char *bb_run_feed_dir(const struct bb_run_config *rc)
{
	static char dir[512];

	if (rc->feed_dir[0])
		return rc->feed_dir;
	snprintf(dir, sizeof(dir), "%s/%s", bb_state_dir(), BB_STATE_FEED_DIR);
	return dir;
}

void bb_run_config_free(struct bb_run_config *rc)
{
	size_t i;
	int a;

	for (a = 0; a < rc->argc; a++)
		free(rc->argv[a]);
	for (i = 0; i < rc->n_lists; i++)
		free(rc->lists[i].pattern);
	rc->argc = 0;
	rc->n_lists = 0;
}

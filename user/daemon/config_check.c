// SPDX-License-Identifier: GPL-2.0
/*
 * What run will do with a config, checked on this host before it does it (config.h):
 * a config that reads well may still name a list that is not there, a glob that
 * matches nothing, a file that cannot be read, a feed whose URL does not parse, an
 * interface this network namespace lacks. --check-config says every one of them, and
 * run refuses to start with any, before it makes anything.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <curl/curl.h>

#include "common.h"
#include "config.h"

/* One problem, said: "FILE:LINE: KEY VALUE: what". */
static void problem(const char *path, int line, const char *key, const char *value,
		    const char *what)
{
	pr_err("%s:%d: %s %s: %s\n", path, line, key, value, what);
}

/* A file a list key names, as load will open it: NULL when it reads, else why not. */
static const char *unreadable(const char *file, char *buf, size_t size)
{
	struct stat st;
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		snprintf(buf, size, "%s", strerror(errno));
		return buf;
	}
	if (fstat(fd, &st) || S_ISDIR(st.st_mode)) {
		snprintf(buf, size, "%s", S_ISDIR(st.st_mode) ? "a directory, not a list file" :
			 strerror(errno));
		close(fd);
		return buf;
	}
	close(fd);
	return NULL;
}

/* A feed's URL as libcurl will fetch it: NULL when it parses as http(s) with a host. */
static const char *bad_url(const char *url, char *buf, size_t size)
{
	CURLU *u = curl_url();
	CURLUcode uc;
	char *host = NULL;
	bool bad;

	if (!u)
		return strerror(ENOMEM);
	uc = curl_url_set(u, CURLUPART_URL, url, 0);
	if (!uc)
		uc = curl_url_get(u, CURLUPART_HOST, &host, 0);
	bad = uc || !host || !host[0];
	if (uc)
		snprintf(buf, size, "not a URL a feed can have: %s", curl_url_strerror(uc));
	else if (bad)
		snprintf(buf, size, "not a URL a feed can have: no host");
	curl_free(host);
	curl_url_cleanup(u);
	return bad ? buf : NULL;
}

/* A list or allow key: its feed's URL, or its path or glob's files. The problems. */
static int check_list(const char *path, int line, const char *key, const char *pattern,
		      bool url)
{
	char why[256];
	const char *bad;
	glob_t g;
	size_t k;
	int n = 0, rc;

	if (url) {
		bad = bad_url(pattern, why, sizeof(why));
		if (bad)
			problem(path, line, key, pattern, bad);
		return bad != NULL;
	}
	if (!strpbrk(pattern, "*?[")) {
		bad = unreadable(pattern, why, sizeof(why));
		if (bad)
			problem(path, line, key, pattern, bad);
		return bad != NULL;
	}
	rc = glob(pattern, 0, NULL, &g);
	if (rc == GLOB_NOMATCH) {
		problem(path, line, key, pattern, "no file matches it");
		return 1;
	}
	if (rc) {
		problem(path, line, key, pattern, rc == GLOB_NOSPACE ? strerror(ENOMEM) :
			"cannot read the directories it names");
		return 1;
	}
	for (k = 0; k < g.gl_pathc; k++) {
		bad = unreadable(g.gl_pathv[k], why, sizeof(why));
		if (bad) {
			char what[600];

			snprintf(what, sizeof(what), "%s: %s", g.gl_pathv[k], bad);
			problem(path, line, key, pattern, what);
			n++;
		}
	}
	globfree(&g);
	return n;
}

int bb_run_config_check(const char *path, const struct bb_run_config *rc)
{
	int n = 0, i;
	size_t l;

	for (l = 0; l < rc->n_lists; l++)
		n += check_list(path, rc->lists[l].line, rc->lists[l].allow ? "allow" : "list",
				rc->lists[l].pattern, rc->lists[l].url);
	for (i = 0; i + 1 < rc->argc; i++) {
		if (strcmp(rc->argv[i], "--interface"))
			continue;
		if (strlen(rc->argv[i + 1]) >= IF_NAMESIZE || !if_nametoindex(rc->argv[i + 1])) {
			problem(path, rc->arg_line[i], "interface", rc->argv[i + 1],
				"no such interface in this network namespace");
			n++;
		}
	}
	return n;
}

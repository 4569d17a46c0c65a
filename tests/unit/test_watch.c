// SPDX-License-Identifier: GPL-2.0
/*
 * user/watch.c: a Kubernetes ConfigMap's symlink swap (..data renamed over) noticed as
 * one burst, a rename over a file (rsync) and a write in place too; nothing from a
 * directory not watched, or no longer watched; a directory written without pause
 * still reported within its bound; missing and repeated directories; stop. No root.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "watch.h"

#define QUIET_MS	100

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned int bursts;

static void on_burst(void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&mu);
	bursts++;
	pthread_mutex_unlock(&mu);
}

static unsigned int bursts_now(void)
{
	unsigned int n;

	pthread_mutex_lock(&mu);
	n = bursts;
	pthread_mutex_unlock(&mu);
	return n;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Until the bursts reach want (3 s at most), then a quiet while: the count then. */
static unsigned int settle(unsigned int want)
{
	int i;

	for (i = 0; i < 300 && bursts_now() < want; i++)
		sleep_ms(10);
	sleep_ms(4 * QUIET_MS);
	return bursts_now();
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char root[] = "/tmp/bbwatch.XXXXXX";

/* p = root/rel */
static char *at(char *p, size_t size, const char *rel)
{
	snprintf(p, size, "%s/%s", root, rel);
	return p;
}

/* A ConfigMap volume as kubelet lays it out: cm/list.txt -> ..data/list.txt, ..data -> ..TS. */
static void configmap_publish(const char *ts, const char *old_ts, const char *text)
{
	char a[512], b[600];

	mkdir(at(a, sizeof(a), ts), 0755);
	snprintf(b, sizeof(b), "%s/list.txt", a);
	write_file(b, text);
	unlink(at(a, sizeof(a), "cm/..data_tmp"));
	if (symlink(strrchr(ts, '/') + 1, a))
		return;
	rename(a, at(b, sizeof(b), "cm/..data"));
	if (old_ts) {
		char f[600];

		snprintf(f, sizeof(f), "%s/list.txt", at(a, sizeof(a), old_ts));
		unlink(f);
		rmdir(a);
	}
}

int main(void)
{
	struct bb_watch w;
	char cm[512], other[512], p[512], q[512];
	char *dirs[4];
	int i, n;

	tap_plan_header();
	if (!mkdtemp(root)) {
		tap_result(0, "a scratch directory", "mkdtemp: %s", strerror(errno));
		return tap_finish();
	}
	mkdir(at(cm, sizeof(cm), "cm"), 0755);
	mkdir(at(other, sizeof(other), "other"), 0755);
	configmap_publish("cm/..2026_01_01", NULL, "192.0.2.1\n");
	if (symlink("..data/list.txt", at(p, sizeof(p), "cm/list.txt")))
		tap_result(0, "the ConfigMap's file link", "symlink: %s", strerror(errno));

	ASSERT_EQ(bb_watch_start(&w, QUIET_MS, on_burst, NULL), 0, "bb_watch_start");
	dirs[0] = cm;
	dirs[1] = at(p, sizeof(p), "missing");
	dirs[2] = cm;
	n = bb_watch_dirs(&w, dirs, 3);
	ASSERT_EQ(n, 1, "a missing directory is left out, one named twice is watched once");
	ASSERT_EQ(settle(0), 0, "no burst before anything changed");

	configmap_publish("cm/..2026_01_02", "cm/..2026_01_01", "192.0.2.2\n");
	ASSERT_EQ(settle(1), 1, "a ConfigMap swap (..data renamed over): exactly one burst");

	write_file(at(p, sizeof(p), "other/list.txt"), "192.0.2.3\n");
	ASSERT_EQ(settle(1), 1, "a file written in a directory not watched: no burst");

	write_file(at(p, sizeof(p), "cm/plain.txt.tmp"), "192.0.2.4\n");
	rename(p, at(q, sizeof(q), "cm/plain.txt"));
	ASSERT_EQ(settle(2), 2, "a rename over a file (rsync's way): one burst");

	dirs[0] = other;
	ASSERT_EQ(bb_watch_dirs(&w, dirs, 1), 1, "watch another directory instead");
	configmap_publish("cm/..2026_01_03", "cm/..2026_01_02", "192.0.2.5\n");
	ASSERT_EQ(settle(2), 2, "the directory no longer watched: no burst");
	write_file(at(p, sizeof(p), "other/list.txt"), "192.0.2.6\n");
	ASSERT_EQ(settle(3), 3, "a write in place in the new one: one burst");

	/* written every 30 ms for 2 s: never quiet, reported all the same (10 x quiet) */
	for (i = 0; i < 66; i++) {
		write_file(at(p, sizeof(p), "other/busy.log"), "x\n");
		sleep_ms(30);
		if (i == 45)	/* 1.35 s on: past 10 x 100 ms */
			ASSERT_TRUE(bursts_now() >= 4, "a directory never quiet is reported within "
				    "10 x the quiet time");
	}
	settle(5);

	ASSERT_EQ(bb_watch_dirs(&w, NULL, 0), 0, "watch nothing");
	n = (int)bursts_now();
	write_file(at(p, sizeof(p), "other/list.txt"), "192.0.2.7\n");
	ASSERT_EQ(settle(0), n, "nothing watched: no burst");
	bb_watch_stop(&w);
	ASSERT_EQ(w.running, 0, "bb_watch_stop");
	bb_watch_stop(&w);	/* twice is harmless */

	snprintf(p, sizeof(p), "rm -rf '%s'", root);
	if (system(p))
		fprintf(stderr, "# could not remove %s\n", root);
	return tap_finish();
}

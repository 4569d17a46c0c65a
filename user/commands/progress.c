// SPDX-License-Identifier: GPL-2.0
/*
 * The progress line: a thread that redraws "reading lists: N MB of M MB (P%)" on
 * stderr every BB_PROGRESS_MS milliseconds (default 250), from the first update on
 * (after the same delay: a load that takes less shows nothing), and clears it at
 * the end. Only on a terminal: a pipe or a file never sees it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "progress.h"

static struct {
	pthread_t tid;
	bool running, stop, shown;
	__u64 total, start_bytes;
	long interval_ms;
	struct timespec t0;
	pthread_mutex_t lock;
	pthread_cond_t cond;
} pg = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static void draw(void)
{
	__u64 done = __atomic_load_n(&bb_read_bytes, __ATOMIC_RELAXED) - pg.start_bytes;
	struct timespec now;
	char a[32], b[32];
	double secs;
	unsigned int pass = pg.total ? (unsigned int)(done / pg.total) + 1 : 1;
	__u64 in_pass = pg.total ? done % pg.total : done;

	clock_gettime(CLOCK_MONOTONIC, &now);
	secs = (double)(now.tv_sec - pg.t0.tv_sec) + (double)(now.tv_nsec - pg.t0.tv_nsec) / 1e9;
	fprintf(stderr, "\r\033[Kreading lists%s: %s of %s (%.0f%%), %.1fs",
		pass > 1 ? " again (the streamed build)" : "",
		bb_human_bytes(in_pass, a, sizeof(a)), bb_human_bytes(pg.total, b, sizeof(b)),
		pg.total ? 100.0 * (double)in_pass / (double)pg.total : 0.0, secs);
	fflush(stderr);
	pg.shown = true;
}

static void *loop(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pg.lock);
	while (!pg.stop) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += pg.interval_ms * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&pg.cond, &pg.lock, &until);
		if (!pg.stop)
			draw();
	}
	pthread_mutex_unlock(&pg.lock);
	return NULL;
}

void bb_progress_start(__u64 total)
{
	const char *ms = getenv("BB_PROGRESS_MS");

	if (pg.running || !isatty(STDERR_FILENO) || bb_msg.json)
		return;
	pg.interval_ms = ms ? atol(ms) : 250;
	if (pg.interval_ms < 10)
		pg.interval_ms = 10;
	pg.total = total;
	pg.start_bytes = __atomic_load_n(&bb_read_bytes, __ATOMIC_RELAXED);
	pg.stop = pg.shown = false;
	clock_gettime(CLOCK_MONOTONIC, &pg.t0);
	pg.running = !pthread_create(&pg.tid, NULL, loop, NULL);
}

void bb_progress_stop(void)
{
	if (!pg.running)
		return;
	pthread_mutex_lock(&pg.lock);
	pg.stop = true;
	pthread_cond_signal(&pg.cond);
	pthread_mutex_unlock(&pg.lock);
	pthread_join(pg.tid, NULL);
	pg.running = false;
	if (pg.shown)
		fprintf(stderr, "\r\033[K");
}

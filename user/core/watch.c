// SPDX-License-Identifier: GPL-2.0
/*
 * Directories watched with inotify (watch.h). The directory, not the file: a file
 * replaced by a rename (rsync, an editor, a ConfigMap's ..data symlink swapped) is a
 * new inode that a watch on the old one would never see. Events are only a hint that
 * something may have changed: the caller compares what it depends on (run compares the
 * files' stat) and reloads only when that differs, so events of files it does not
 * read cost a few stat() calls, never a reload.
 */
#define _GNU_SOURCE	/* pipe2() */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "watch.h"

#define WATCH_MASK	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | \
			 IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
#define WATCH_MAX_BURST	10	/* a burst is reported at the latest this many quiet_ms on */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Every event queued read: how many say something may have changed (IN_IGNORED does not). */
static int drain(int fd)
{
	char buf[16 * (sizeof(struct inotify_event) + NAME_MAX + 1)]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	int news = 0;

	for (;;) {
		ssize_t len = read(fd, buf, sizeof(buf));
		const char *p;

		if (len <= 0)
			return len < 0 && errno != EAGAIN && errno != EINTR ? -errno : news;
		for (p = buf; p < buf + len;) {
			const struct inotify_event *ev = (const void *)p;

			if (!(ev->mask & IN_IGNORED))
				news++;	/* IN_Q_OVERFLOW too: events were lost, so look */
			p += sizeof(*ev) + ev->len;
		}
	}
}

static void *watch_thread(void *arg)
{
	struct bb_watch *w = arg;
	struct pollfd p[2] = { { .fd = w->fd, .events = POLLIN },
			       { .fd = w->stop_pipe[0], .events = POLLIN } };
	long long first = 0, due = 0;
	bool pending = false;

	for (;;) {
		long long now = now_ms();
		int n, timeout = pending ? (int)(due > now ? due - now : 0) : -1;

		if (pending && due <= now) {
			pending = false;
			w->changed(w->ctx);
			continue;
		}
		n = poll(p, 2, timeout);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && p[1].revents)
			break;
		if (n > 0 && (p[0].revents & POLLIN) && drain(w->fd) > 0) {
			now = now_ms();
			if (!pending)
				first = now;
			pending = true;
			due = now + w->quiet_ms;
			if (due > first + (long long)WATCH_MAX_BURST * w->quiet_ms)
				due = first + (long long)WATCH_MAX_BURST * w->quiet_ms;
		}
	}
	return NULL;
}

int bb_watch_start(struct bb_watch *w, unsigned int quiet_ms, void (*changed)(void *ctx),
		   void *ctx)
{
	sigset_t block, old;
	int err;

	memset(w, 0, sizeof(*w));
	w->stop_pipe[0] = w->stop_pipe[1] = -1;
	w->quiet_ms = quiet_ms;
	w->changed = changed;
	w->ctx = ctx;
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0 || pipe2(w->stop_pipe, O_CLOEXEC)) {
		err = -errno;
		goto fail;
	}
	pthread_mutex_init(&w->mu, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	err = -pthread_create(&w->thread, NULL, watch_thread, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_mutex_destroy(&w->mu);
		goto fail;
	}
	w->running = true;
	return 0;
fail:
	if (w->fd >= 0)
		close(w->fd);
	if (w->stop_pipe[0] >= 0) {
		close(w->stop_pipe[0]);
		close(w->stop_pipe[1]);
	}
	w->fd = -1;
	return err;
}

int bb_watch_dirs(struct bb_watch *w, char *const *dirs, size_t n)
{
	int fresh[BB_WATCH_MAX_DIRS];
	size_t i, j, n_fresh = 0;

	if (!w->running)
		return -EINVAL;
	pthread_mutex_lock(&w->mu);
	for (i = 0; i < n && n_fresh < BB_WATCH_MAX_DIRS; i++) {
		int wd = inotify_add_watch(w->fd, dirs[i], WATCH_MASK);

		if (wd < 0)
			continue;	/* missing, or not a directory: nothing to watch there */
		for (j = 0; j < n_fresh && fresh[j] != wd; j++)
			;
		if (j == n_fresh)	/* the same directory twice has one wd */
			fresh[n_fresh++] = wd;
	}
	for (i = 0; i < w->n_wds; i++) {
		for (j = 0; j < n_fresh && fresh[j] != w->wds[i]; j++)
			;
		if (j == n_fresh)
			inotify_rm_watch(w->fd, w->wds[i]);
	}
	memcpy(w->wds, fresh, n_fresh * sizeof(fresh[0]));
	w->n_wds = n_fresh;
	pthread_mutex_unlock(&w->mu);
	return (int)n_fresh;
}

void bb_watch_stop(struct bb_watch *w)
{
	if (!w->running)
		return;
	if (write(w->stop_pipe[1], "x", 1) < 0)
		pthread_cancel(w->thread);	/* cannot happen with an open pipe; never hang */
	pthread_join(w->thread, NULL);
	close(w->fd);
	close(w->stop_pipe[0]);
	close(w->stop_pipe[1]);
	pthread_mutex_destroy(&w->mu);
	w->fd = -1;
	w->running = false;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Directories watched for changes with inotify (watch.c): what bloomblock run uses to
 * notice a config, list or filter file replaced under it, by an editor, rsync's rename,
 * or the symlink swap of a Kubernetes ConfigMap (its ..data link renamed over).
 */
#ifndef BB_WATCH_H
#define BB_WATCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#define BB_WATCH_MAX_DIRS	128

struct bb_watch {
	int fd;				/* inotify */
	int stop_pipe[2];		/* written to stop the thread */
	pthread_t thread;
	bool running;
	unsigned int quiet_ms;		/* a burst of events ends after this long without one */
	void (*changed)(void *ctx);	/* called on the watch's thread, once a burst */
	void *ctx;
	pthread_mutex_t mu;		/* wds: set by bb_watch_dirs() on any thread */
	int wds[BB_WATCH_MAX_DIRS];
	size_t n_wds;
};

/*
 * A thread that calls changed(ctx) once after each burst of events in the watched
 * directories: when quiet_ms passed without another (or 10 x quiet_ms after the burst's
 * first event, so that a directory written without pause is still reported). Nothing
 * is watched until bb_watch_dirs(). The thread blocks SIGTERM, SIGINT and SIGHUP: they
 * stay the caller's. 0, or -errno.
 */
int bb_watch_start(struct bb_watch *w, unsigned int quiet_ms, void (*changed)(void *ctx),
		   void *ctx);
/*
 * Watch exactly these directories from now on: the new ones added first, then the
 * ones no longer named dropped, so that no event falls between. A directory that does
 * not exist is left out. The number watched, or -errno.
 */
int bb_watch_dirs(struct bb_watch *w, char *const *dirs, size_t n);
/* The thread stopped and everything closed; a watch never started is left alone. */
void bb_watch_stop(struct bb_watch *w);

#endif /* BB_WATCH_H */

// SPDX-License-Identifier: GPL-2.0
/* The instance's state directory: its lock, the live allowlist's file. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "filter.h"
#include "guard.h"
#include "state.h"
#include "xdp_compat.h"

const char *bb_state_dir(void)
{
	static char dir[512];
	size_t o, i;

	if (bb_opts.state_dir)
		return bb_opts.state_dir;
	o = (size_t)snprintf(dir, sizeof(dir), "%s/", BB_STATE_ROOT);
	for (i = 0; bb_opts.pin_dir[i] == '/'; i++)
		;
	for (; bb_opts.pin_dir[i] && o + 1 < sizeof(dir); i++)
		dir[o++] = bb_opts.pin_dir[i] == '/' ? '-' : bb_opts.pin_dir[i];
	while (o > 0 && dir[o - 1] == '-')
		o--;
	dir[o] = '\0';
	return dir;
}

int bb_state_path(char *buf, size_t size, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", bb_state_dir(), name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* mkdir -p of the state directory, mode 0700: what it holds steers the filter. */
int bb_state_mkdirs(const char *dir)
{
	char path[512];
	size_t i;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	for (i = 1; path[i]; i++) {
		if (path[i] != '/')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		path[i] = '/';
	}
	if (mkdir(path, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/*
 * What a command killed while it wrote left: NAME.tmp of the files written only under
 * the lock (bb_tmp_open() writes NAME.tmp and renames it over NAME). Whoever holds the
 * lock is the one writer, so such a file is no one's: gone, and a shadow's can be
 * megabytes. run.json and feeds.json are the daemon's, written without this lock.
 */
static void sweep_tmp(void)
{
	static const char *const locked[] = {
		BB_STATE_ALLOW, BB_STATE_INDEX, BB_STATE_SHADOW, BB_STATE_LOADED,
		BB_STATE_XDP, BB_GUARD_FILE,
	};
	char path[512];
	size_t i;

	for (i = 0; i < sizeof(locked) / sizeof(locked[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "%s.tmp", locked[i]);
		if (!bb_state_path(path, sizeof(path), name) && !unlink(path) && bb_opts.debug)
			pr_info("%s: removed, left by a command killed as it wrote\n", path);
	}
}

/*
 * The instance's lock: load, add, del, allow and unload hold it while they change
 * anything, so they take turns. unload removes the state directory, lock file and
 * all, under it: a command that waited holds a lock on a file that is gone, so it
 * checks, once it has it, that its file is still the one at the path, and else
 * takes the new one. Once held, what a killed command left half-written is removed.
 */
int bb_state_lock(void)
{
	struct stat held, at;
	char path[512];
	int fd, err, tries;

	for (tries = 0; tries < 100; tries++) {
		err = bb_state_mkdirs(bb_state_dir());
		err = err ?: bb_state_path(path, sizeof(path), "lock");
		if (err) {
			pr_err("cannot make the state directory %s: %s\n", bb_state_dir(),
			       strerror(-err));
			return err;
		}
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0 || flock(fd, LOCK_EX) || fstat(fd, &held)) {
			err = -errno;
			pr_err("cannot lock %s: %s\n", path, strerror(-err));
			if (fd >= 0)
				close(fd);
			return err;
		}
		if (!stat(path, &at) && at.st_dev == held.st_dev && at.st_ino == held.st_ino) {
			sweep_tmp();
			return fd;
		}
		close(fd);	/* removed while we waited: the lock is the new file's */
	}
	pr_err("cannot lock %s: it keeps being removed\n", path);
	return -EAGAIN;
}

int bb_state_remove(void)
{
	const char *dir = bb_state_dir();
	char path[768];
	struct dirent *d;
	DIR *dp = opendir(dir);
	int err = 0;

	if (!dp)
		return errno == ENOENT ? 0 : -errno;
	while ((d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (unlink(path) && !err)
			err = -errno;
	}
	closedir(dp);
	if (rmdir(dir) && !err)
		err = -errno;
	return err;
}

int bb_state_index(const struct bb_block *image, struct bb_index_view *v)
{
	char path[512];
	int err;

	memset(v, 0, sizeof(*v));
	err = bb_state_path(path, sizeof(path), BB_STATE_INDEX);
	err = err ?: bb_index_open(path, v);
	if (!err && !bb_index_describes(v, image)) {
		bb_index_close(v);
		err = -ESTALE;
	}
	return err;
}

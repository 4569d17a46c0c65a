// SPDX-License-Identifier: GPL-2.0
/* The instance's state directory: where it is, its lock, and removing only what is ours. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <jansson.h>

#include "filter.h"
#include "guard.h"
#include "msg.h"
#include "pins.h"
#include "state.h"

/* Where: as given to bb_state_init(), and the directory it settles on. */
static struct {
	char pin_dir[256];
	const char *given;
	char dir[512];
	bool settled;
} where = { .pin_dir = BB_PIN_DIR_DEFAULT };

void bb_state_init(const char *pin_dir, const char *state_dir)
{
	snprintf(where.pin_dir, sizeof(where.pin_dir), "%s", pin_dir);
	where.given = state_dir;
	where.settled = false;
}

bool bb_state_dir_given(void)
{
	return where.given != NULL;
}

/* BB_STATE_ROOT/ and the pin directory's path, '/' as '-'. */
static void default_dir(char *dir, size_t size)
{
	const char *p = where.pin_dir;
	size_t o, i;

	o = (size_t)snprintf(dir, size, "%s/", BB_STATE_ROOT);
	for (i = 0; p[i] == '/'; i++)
		;
	for (; p[i] && o + 1 < size; i++)
		dir[o++] = p[i] == '/' ? '-' : p[i];
	while (o > 0 && dir[o - 1] == '-')
		o--;
	dir[o] = '\0';
}

const char *bb_state_dir(void)
{
	struct bb_instance_rec rec;

	if (where.given)
		return where.given;
	if (where.settled)
		return where.dir;
	if (!bb_instance_record_read(where.pin_dir, &rec) && rec.state_dir[0])
		snprintf(where.dir, sizeof(where.dir), "%s", rec.state_dir);
	else
		default_dir(where.dir, sizeof(where.dir));
	where.settled = true;
	return where.dir;
}

int bb_state_path(char *buf, size_t size, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", bb_state_dir(), name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/*
 * Whether a state directory given agrees with the one the instance records: 0 (also
 * when nothing is given or recorded), or -EEXIST, said. rec: the record, read.
 */
static int record_agrees(struct bb_instance_rec *rec)
{
	int err = bb_instance_record_read(where.pin_dir, rec);

	if (err) {
		memset(rec, 0, sizeof(*rec));
		return err == -ENOENT ? 0 : err;
	}
	if (!where.given || !rec->state_dir[0] || !strcmp(rec->state_dir, where.given))
		return 0;
	pr_err("the instance at %s keeps its state in %s, not %s: give that --state-dir (or "
	       "none), or unload --all first\n", where.pin_dir, rec->state_dir, where.given);
	return -EEXIST;
}

int bb_state_record(void)
{
	struct bb_instance_rec rec;
	int err;

	if (!where.given)
		return 0;
	err = record_agrees(&rec);
	if (err || rec.state_dir[0])
		return err;
	if (strlen(where.given) >= sizeof(rec.state_dir)) {
		pr_err("--state-dir %s: longer than %zu bytes\n", where.given,
		       sizeof(rec.state_dir) - 1);
		return -ENAMETOOLONG;
	}
	snprintf(rec.state_dir, sizeof(rec.state_dir), "%s", where.given);
	err = bb_instance_record_write(where.pin_dir, &rec);
	if (err)
		pr_err("cannot record the state directory in %s: %s\n", where.pin_dir,
		       strerror(-err));
	return err;
}

/* A marker in a directory this made: what lets bb_state_remove() take it away. */
static void mark_made(const char *dir)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, BB_STATE_MADE);
	f = fopen(path, "wx");
	if (!f)
		return;
	fprintf(f, "bloomblock made this directory for the instance at %s; `bloomblock "
		"unload --all` removes its files and, when nothing else is left, it.\n",
		where.pin_dir);
	fclose(f);
	chmod(path, 0600);
}

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
	if (!mkdir(path, 0700))
		mark_made(path);
	else if (errno != EEXIST)
		return -errno;
	return 0;
}

/* The files bloomblock writes in a state directory, and nothing else. */
static const char *const state_files[] = {
	"lock", BB_STATE_RUN_LOCK, BB_STATE_ALLOW, BB_STATE_INDEX, BB_STATE_SHADOW,
	BB_STATE_LOADED, BB_STATE_RUN, BB_STATE_FEEDS, BB_STATE_XDP, BB_STATE_EVENTS,
	BB_GUARD_FILE, BB_GUARD_OFF, BB_STATE_REFUSED,
};
#define N_STATE_FILES	(sizeof(state_files) / sizeof(state_files[0]))

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
		BB_STATE_XDP, BB_GUARD_FILE, BB_STATE_REFUSED,
	};
	char path[512];
	size_t i;

	for (i = 0; i < sizeof(locked) / sizeof(locked[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "%s.tmp", locked[i]);
		if (!bb_state_path(path, sizeof(path), name) && !unlink(path) && bb_msg.debug)
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
	struct bb_instance_rec rec;
	struct stat held, at;
	char path[512];
	int fd, err, tries;

	/* never a second directory, and lock, for one instance */
	err = record_agrees(&rec);
	if (err)
		return err;
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

/* unlink(path), ENOENT not an error: 0 or -errno. */
static int remove_file(const char *path)
{
	return unlink(path) && errno != ENOENT ? -errno : 0;
}

/*
 * dir, when bloomblock made it (its marker) and nothing else is in it now: the
 * marker and the directory removed. 0, or -errno.
 */
static int remove_made_dir(const char *dir)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", dir, BB_STATE_MADE);
	if (access(path, F_OK))
		return 0;	/* not ours: it stays */
	if (unlink(path))
		return -errno;
	if (rmdir(dir)) {
		int err = errno;

		mark_made(dir);	/* someone else's files are in it: it stays, still ours */
		return err == ENOTEMPTY || err == EEXIST ? 0 : -err;
	}
	return 0;
}

/*
 * The feeds' copies in the state directory's feeds/ that feeds.json names (and their
 * .tmp), and that directory if ours. Copies in a feed_dir of the config's stay.
 */
static int remove_feed_copies(void)
{
	char path[600], dir[600];
	json_t *root, *feed;
	size_t i, len;
	int err = 0;

	if (bb_state_path(path, sizeof(path), BB_STATE_FEEDS) ||
	    bb_state_path(dir, sizeof(dir), BB_STATE_FEED_DIR))
		return 0;
	len = strlen(dir);
	root = json_load_file(path, 0, NULL);
	json_array_foreach(json_object_get(root, "feeds"), i, feed) {
		const char *file = json_string_value(json_object_get(feed, "file"));
		char tmp[600];

		if (!file || strncmp(file, dir, len) || file[len] != '/' || strchr(file + len + 1, '/'))
			continue;
		snprintf(tmp, sizeof(tmp), "%s.tmp", file);
		err = err ?: remove_file(file) ?: remove_file(tmp);
	}
	json_decref(root);
	return err ?: remove_made_dir(dir);
}

int bb_state_remove(void)
{
	const char *dir = bb_state_dir();
	char path[600];
	size_t i;
	int err;

	if (access(dir, F_OK))
		return errno == ENOENT ? 0 : -errno;
	err = remove_feed_copies();
	for (i = 0; i < N_STATE_FILES; i++) {
		char tmp[64];

		snprintf(tmp, sizeof(tmp), "%s.tmp", state_files[i]);
		if (!bb_state_path(path, sizeof(path), state_files[i]))
			err = err ?: remove_file(path);
		if (!bb_state_path(path, sizeof(path), tmp))
			err = err ?: remove_file(path);
	}
	return err ?: remove_made_dir(dir);
}

void bb_state_remove_made(void)
{
	const char *dir = bb_state_dir();
	char path[600];
	struct dirent *d;
	DIR *dp;
	bool others = false;

	snprintf(path, sizeof(path), "%s/%s", dir, BB_STATE_MADE);
	dp = access(path, F_OK) ? NULL : opendir(dir);
	if (!dp)
		return;
	while (!others && (d = readdir(dp)))	/* only the lock and the marker: nothing kept */
		others = strcmp(d->d_name, ".") && strcmp(d->d_name, "..") &&
			 strcmp(d->d_name, "lock") && strcmp(d->d_name, BB_STATE_MADE);
	closedir(dp);
	if (!others)
		bb_state_remove();
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

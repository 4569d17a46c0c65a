// SPDX-License-Identifier: GPL-2.0
/* Output files written beside their place and renamed over it (outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <jansson.h>

#include "outfile.h"

int bb_tmp_open(const char *tmp, mode_t mode)
{
	int fd;

	if (unlink(tmp) && errno != ENOENT)	/* a stale one, or a link: unlink never follows */
		return -errno;
	/* read and write: the key index is read back as it is built in place */
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	return fd < 0 ? -errno : fd;
}

FILE *bb_tmp_fopen(const char *tmp, mode_t mode)
{
	int fd = bb_tmp_open(tmp, mode);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}


int bb_tmp_commit(const char *tmp, const char *path, int err)
{
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int bb_pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

int bb_pread_all(int fd, void *buf, size_t len, off_t off)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

int bb_json_write(json_t *j, const char *path, size_t flags)
{
	char tmp[PATH_MAX];
	FILE *f;
	int err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = bb_tmp_fopen(tmp, 0600);
	if (!f)
		return -errno;
	errno = 0;	/* a short write's own reason, said as it is */
	if (json_dumpf(j, f, flags) || fflush(f))
		err = errno ? -errno : -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return bb_tmp_commit(tmp, path, err);
}

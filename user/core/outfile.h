/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output files are written whole beside their place, then renamed over it, so readers
 * see the old file or the new one and a crash leaves at most a stale PATH.tmp, which
 * the next write replaces. The temporary file is created anew: a stale one, or a
 * symlink planted in its place, is unlinked first (unlink never follows a link), and
 * it is opened O_EXCL | O_NOFOLLOW, so nothing is ever written through a link.
 */
#ifndef BB_OUTFILE_H
#define BB_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>
#include <jansson.h>

/* tmp created anew with mode: an fd, or -errno. */
int bb_tmp_open(const char *tmp, mode_t mode);
/* The same as a FILE opened for writing; NULL with errno set. */
FILE *bb_tmp_fopen(const char *tmp, mode_t mode);
/* tmp, written and closed (err: how that went), renamed over path, or removed: err, or -errno. */
int bb_tmp_commit(const char *tmp, const char *path, int err);

/* All of buf written at off (EINTR and short writes retried): 0, or -errno. */
int bb_pwrite_all(int fd, const void *buf, size_t len, off_t off);
/* len bytes read at off into buf: 0, -errno, or -EIO when the file ends before them. */
int bb_pread_all(int fd, void *buf, size_t len, off_t off);

/* j into path the same way (PATH.tmp, mode 0600, renamed): 0 or -errno. */
int bb_json_write(json_t *j, const char *path, size_t flags);

#endif /* BB_OUTFILE_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * The hit events for every reader (events_hub.h): the ring's one owner, a thread that
 * reads it and serves the readers over the state directory's socket; and a reader,
 * which follows the owner from one to the next, or owns the ring when no one does.
 */
#define _GNU_SOURCE	/* accept4(), pipe2(), struct ucred */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "confirm.h"
#include "event_log.h"
#include "events_hub.h"
#include "msg.h"
#include "pins.h"
#include "state.h"

#define TICK_MS			200	/* an owner checks its socket is its own this often */
#define HANDOVER_WAIT_MS	2000	/* the daemon waits for a reader's answer */
#define FLUSH_WAIT_MS		1000	/* a stopping owner waits for slow readers */
#define HELLO_WAIT_MS		5000	/* a reader waits for an owner's first word */
#define ACK_EVERY		64	/* a taking reader says what it took, this often */

/* ---- the socket, its directory's lock ---- */

/* Where the socket is: its path, and the address to bind or connect to. */
struct hub_where {
	char dir[512];
	char path[600];
	struct sockaddr_un sa;
	socklen_t sa_len;
	int dirfd;		/* the directory, open: locked, and the address when long */
};

/*
 * The state directory opened and locked (flock, the directory itself: no file of its
 * own), and the socket's address: its path, or through /proc/self/fd/ when the path is
 * longer than an address holds. 0, or -errno.
 */
static int where_lock(struct hub_where *w)
{
	const char *name = w->path;
	char alt[64];
	size_t len;

	w->dirfd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->dirfd < 0)
		return -errno;
	while (flock(w->dirfd, LOCK_EX))
		if (errno != EINTR) {
			int err = -errno;

			close(w->dirfd);
			w->dirfd = -1;
			return err;
		}
	if (strlen(w->path) >= sizeof(w->sa.sun_path)) {
		snprintf(alt, sizeof(alt), "/proc/self/fd/%d/%s", w->dirfd, BB_STATE_EVENTS);
		name = alt;
	}
	memset(&w->sa, 0, sizeof(w->sa));
	w->sa.sun_family = AF_UNIX;
	len = strlen(name);
	memcpy(w->sa.sun_path, name, len + 1);
	w->sa_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + 1);
	return 0;
}

static void where_unlock(struct hub_where *w)
{
	if (w->dirfd >= 0)
		close(w->dirfd);	/* the lock with it */
	w->dirfd = -1;
}

static int where_init(struct hub_where *w)
{
	w->dirfd = -1;
	snprintf(w->dir, sizeof(w->dir), "%s", bb_state_dir());
	return bb_state_path(w->path, sizeof(w->path), BB_STATE_EVENTS);
}

/*
 * A connection to whoever serves the socket (its pid in *pid, when given): its fd, or
 * -errno (-ECONNREFUSED, -ENOENT: no one; the socket is then a killed owner's).
 */
static int where_connect(const struct hub_where *w, pid_t *pid)
{
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), err;
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)&w->sa, w->sa_len)) {
		err = -errno;
		close(fd);
		return err;
	}
	/* the directory is root's 0700: only another of ours can serve there; checked */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) || cred.uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	if (pid)
		*pid = cred.pid;
	return fd;
}

static struct bb_hub_head head_of(__u16 type, __u64 seq, __u64 count)
{
	return (struct bb_hub_head){ .magic = BB_HUB_MAGIC, .version = BB_HUB_VERSION,
				     .type = type, .seq = seq, .count = count,
				     .pid = (__u32)getpid() };
}

/* One message of just a head: 0, or -errno (-EAGAIN: no room now, with dontwait). */
static int send_head(int fd, __u16 type, __u64 seq, __u64 count, bool dontwait)
{
	struct bb_hub_head h = head_of(type, seq, count);

	if (send(fd, &h, sizeof(h), MSG_NOSIGNAL | (dontwait ? MSG_DONTWAIT : 0)) < 0)
		return -errno;
	return 0;
}

static bool head_ok(const struct bb_hub_head *h, ssize_t n)
{
	return n >= (ssize_t)sizeof(*h) && h->magic == BB_HUB_MAGIC &&
	       h->version == BB_HUB_VERSION &&
	       (h->type == BB_HUB_EVENT ? n == sizeof(struct bb_hub_event) : n == sizeof(*h));
}

/* ---- the owner ---- */

struct hub_reader {
	int fd;
	int from;		/* enum bb_events_from; 0: not asked yet */
	__u64 cursor;		/* the next seq it is owed */
	__u64 end;		/* BB_EVENTS_TAKE: the last seq it is owed, then END */
	bool ended, want_out;
};

enum hub_why {
	HUB_STOP = 1,		/* asked to (bb_events_hub_stop()) */
	HUB_HANDED,		/* the daemon took the ring */
	HUB_LOST,		/* the socket's path is no longer ours */
};

struct bb_events_hub {
	pthread_t thread;
	bool running;
	int wake[2];			/* a byte written to wake[1]: stop */
	bool daemon;
	struct hub_where where;
	struct bb_instance inst;
	int ring_fd;
	struct ring_buffer *rb;		/* while it reads the ring */
	int listen_fd;			/* -1: it does not own the ring */
	dev_t dev;			/* the socket it bound, by its inode */
	ino_t ino;
	__u64 owned_from;		/* the first seq read since it bound it */
	struct bb_event_log log;
	struct bb_attributor attr;
	struct hub_reader readers[BB_HUB_MAX_READERS];
	unsigned int n_readers;
	__u64 bad_size;			/* records of another size: another version's */
	int said;			/* the daemon's last failure to own the ring, said */
};

/* Whether the socket at the path is still the one this hub bound. */
static bool path_ours(const struct bb_events_hub *h)
{
	struct stat st;

	return !lstat(h->where.path, &st) && st.st_dev == h->dev && st.st_ino == h->ino;
}

static int on_ring_event(void *ctx, void *data, size_t size)
{
	struct bb_events_hub *h = ctx;
	struct bb_hub_event *m;
	__u64 seq;

	if (size != sizeof(struct bb_event)) {
		if (!h->bad_size++)
			pr_warn("events: a record of %zu bytes, not %zu: the programs are another "
				"bloomblock version's (unload --all and load again)\n", size,
				sizeof(struct bb_event));
		return 0;
	}
	m = bb_event_log_push(&h->log, &seq);
	if (!m)
		return -ENOMEM;
	m->head = head_of(BB_HUB_EVENT, seq, 0);
	memcpy(&m->ev, data, sizeof(m->ev));
	/* attributed as it is read, by the index of the filter it was raised under */
	bb_event_attribute(&h->attr, &m->ev, &m->attr);
	return 0;
}

static int ring_start(struct bb_events_hub *h)
{
	if (h->rb)
		return 0;
	h->rb = ring_buffer__new(h->ring_fd, on_ring_event, h, NULL);
	if (!h->rb) {
		int err = -errno;

		pr_err("cannot read the events ring: %s\n", strerror(-err));
		return err;
	}
	return 0;
}

static void ring_stop(struct bb_events_hub *h)
{
	ring_buffer__free(h->rb);
	h->rb = NULL;
}

/* What the ring holds, read into the log, while the socket is ours (else nothing). */
static void ring_read(struct bb_events_hub *h)
{
	int err;

	if (!h->rb || !path_ours(h))
		return;
	err = ring_buffer__consume(h->rb);
	if (err < 0 && err != -EINTR)
		pr_warn("events: reading the ring: %s\n", strerror(-err));
}

/*
 * The socket bound at its path, under the lock w holds (a stale socket replaced): 0, or
 * -errno, said.
 */
static int hub_bind(struct bb_events_hub *h, const struct hub_where *w)
{
	struct stat st;
	int fd, err;

	if (!lstat(w->path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			pr_err("%s: not a socket, and not bloomblock's to remove: events cannot be "
			       "shared between readers until it is moved away\n", w->path);
			return -EEXIST;
		}
		if (unlink(w->path) && errno != ENOENT) {	/* a killed owner's */
			err = -errno;
			pr_err("%s: cannot remove a stale socket: %s\n", w->path, strerror(-err));
			return err;
		}
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (const struct sockaddr *)&w->sa, w->sa_len) ||
	    chmod(w->path, 0600) || listen(fd, BB_HUB_MAX_READERS) || lstat(w->path, &st)) {
		err = -errno;
		pr_err("%s: cannot serve the events there: %s\n", w->path, strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	h->listen_fd = fd;
	h->dev = st.st_dev;
	h->ino = st.st_ino;
	h->owned_from = h->log.next;	/* what a reader resumes from (the daemon's log goes on) */
	return 0;
}

static void reader_drop(struct bb_events_hub *h, unsigned int i)
{
	close(h->readers[i].fd);
	h->readers[i] = h->readers[--h->n_readers];
}

/* A reader's socket has no room now: it is written again when it drains. */
static bool is_full(int err)
{
	return err == -EAGAIN || err == -EWOULDBLOCK || err == -ENOBUFS;
}

/*
 * What reader rd is owed, sent until its socket is full (then it waits for POLLOUT): a
 * reader never holds the owner up, and the log never waits for a reader (one it moved
 * past sees the gap in the numbers). -EPIPE when the reader is gone.
 */
static int reader_flush(struct bb_events_hub *h, struct hub_reader *rd)
{
	const struct bb_hub_event *m;
	int err = 0;

	rd->want_out = false;
	if (!rd->from)
		return 0;
	bb_event_log_catch_up(&h->log, &rd->cursor);
	for (;;) {
		if (rd->from == BB_EVENTS_TAKE && rd->cursor > rd->end) {
			if (rd->ended)
				return 0;
			err = send_head(rd->fd, BB_HUB_END, rd->end, 0, true);
			if (!err)
				rd->ended = true;
			break;
		}
		m = bb_event_log_get(&h->log, rd->cursor);
		if (!m)
			return 0;
		if (send(rd->fd, m, sizeof(*m), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
			err = -errno;
			break;
		}
		rd->cursor++;
	}
	if (is_full(err)) {
		rd->want_out = true;
		return 0;
	}
	return err ? -EPIPE : 0;
}

static void flush_all(struct bb_events_hub *h)
{
	unsigned int i;

	for (i = 0; i < h->n_readers;)
		if (reader_flush(h, &h->readers[i]))
			reader_drop(h, i);
		else
			i++;
}

/*
 * A stopping owner's last words to its readers, within FLUSH_WAIT_MS: to each what it
 * is owed, then BYE with the last event read, then the end. One still behind then
 * (stopped, or far too slow) gets BYE after what it took, if its socket has room for it,
 * and counts what it missed from it; else it says that what it missed is not known.
 */
static void say_bye(struct bb_events_hub *h)
{
	__u64 until = bb_mono_ns() + FLUSH_WAIT_MS * 1000000ULL, now;
	struct pollfd pfd[BB_HUB_MAX_READERS];
	unsigned int i, n;
	int err;

	for (;;) {
		for (i = 0; i < h->n_readers;) {
			struct hub_reader *rd = &h->readers[i];

			err = reader_flush(h, rd);
			if (!err && !rd->want_out) {
				err = send_head(rd->fd, BB_HUB_BYE, h->log.next - 1, 0, true);
				if (!err)
					err = -ESHUTDOWN;	/* said: it goes */
				else if (is_full(err))
					rd->want_out = true;
			}
			if (err && !is_full(err)) {
				reader_drop(h, i);
				continue;
			}
			i++;
		}
		now = bb_mono_ns();
		if (!h->n_readers || now >= until)
			break;
		for (i = 0, n = 0; i < h->n_readers; i++)
			pfd[n++] = (struct pollfd){ .fd = h->readers[i].fd, .events = POLLOUT };
		poll(pfd, n, (int)((until - now) / 1000000ULL) + 1);
	}
	while (h->n_readers) {	/* behind: told how far, when there is room for that */
		send_head(h->readers[0].fd, BB_HUB_BYE, h->log.next - 1, 0, true);
		reader_drop(h, 0);
	}
}

/*
 * The ring no longer read here, the listening socket closed, the readers told
 * (say_bye()). The events the ring still holds wait there for the next owner.
 */
static void hub_release(struct bb_events_hub *h)
{
	ring_stop(h);
	if (h->listen_fd >= 0)
		close(h->listen_fd);
	h->listen_fd = -1;
	say_bye(h);
}

/* The socket removed, when it is still ours: under the lock, if it comes soon (else the
 * next owner finds it stale and removes it). */
static void hub_unlink(struct bb_events_hub *h)
{
	int tries, fd = open(h->where.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return;
	for (tries = 0; tries < 10; tries++) {
		if (!flock(fd, LOCK_EX | LOCK_NB)) {
			if (path_ours(h))
				unlink(h->where.path);
			break;
		}
		usleep(10000);
	}
	close(fd);
}

/* A reader's request, ack, or the daemon's handover: HUB_HANDED when handed over. */
static int reader_input(struct bb_events_hub *h, unsigned int i)
{
	struct hub_reader *rd = &h->readers[i];
	struct bb_hub_head m;
	__u64 lost = 0;
	ssize_t n = recv(rd->fd, &m, sizeof(m), MSG_DONTWAIT);
	int daemon_fd;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0 || !head_ok(&m, n)) {
		reader_drop(h, i);
		return 0;
	}
	switch (m.type) {
	case BB_HUB_REQUEST:
		if (rd->from || m.count < BB_EVENTS_TAKE || m.count > BB_EVENTS_RESUME ||
		    ring_start(h)) {
			reader_drop(h, i);
			return 0;
		}
		rd->from = (int)m.count;
		if (rd->from == BB_EVENTS_TAKE || rd->from == BB_EVENTS_FOLLOW)
			ring_read(h);	/* what the ring holds now: not left out for a poll */
		rd->cursor = rd->from == BB_EVENTS_NEW ? h->log.next :
			     rd->from == BB_EVENTS_RESUME ? h->owned_from : h->log.taken + 1;
		lost = bb_event_log_catch_up(&h->log, &rd->cursor);
		rd->end = h->log.next - 1;
		if (send_head(rd->fd, BB_HUB_HELLO, rd->cursor, lost, true))
			reader_drop(h, i);
		return 0;
	case BB_HUB_ACK:
		bb_event_log_take(&h->log, m.seq);
		return 0;
	case BB_HUB_HANDOVER:
		if (h->daemon) {	/* only the daemon asks; a daemon hands over to no one */
			reader_drop(h, i);
			return 0;
		}
		/* it waits for HANDED, the lock held: the others reconnect to it after */
		daemon_fd = rd->fd;
		h->readers[i] = h->readers[--h->n_readers];
		hub_release(h);
		send_head(daemon_fd, BB_HUB_HANDED, h->log.next - 1, 0, true);
		close(daemon_fd);
		return HUB_HANDED;
	default:
		reader_drop(h, i);
		return 0;
	}
}

static void reader_accept(struct bb_events_hub *h)
{
	struct ucred cred;
	socklen_t len;
	int fd;

	while ((fd = accept4(h->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		len = sizeof(cred);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) || cred.uid != geteuid()) {
			close(fd);	/* another user's: the socket's mode keeps them out too */
			continue;
		}
		if (h->n_readers == BB_HUB_MAX_READERS) {
			send_head(fd, BB_HUB_BUSY, 0, BB_HUB_MAX_READERS, true);
			close(fd);
			continue;
		}
		h->readers[h->n_readers++] = (struct hub_reader){ .fd = fd };
	}
}

/* Serve until stopped, handed over, or the path is no longer ours: why. */
static int hub_serve(struct bb_events_hub *h)
{
	struct pollfd pfd[3 + BB_HUB_MAX_READERS];
	unsigned int i, n, first;
	int why, ready;

	if (h->daemon && ring_start(h))	/* a reader's hub reads once its reader asked */
		return HUB_LOST;
	for (;;) {
		if (!path_ours(h))
			return HUB_LOST;
		n = 0;
		pfd[n++] = (struct pollfd){ .fd = h->wake[0], .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = h->listen_fd, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = h->rb ? ring_buffer__epoll_fd(h->rb) : -1,
					    .events = POLLIN };
		first = n;
		for (i = 0; i < h->n_readers; i++)
			pfd[n++] = (struct pollfd){ .fd = h->readers[i].fd,
						    .events = (short)(POLLIN |
						    (h->readers[i].want_out ? POLLOUT : 0)) };
		ready = poll(pfd, n, TICK_MS);
		if (ready < 0 && errno != EINTR)
			return HUB_LOST;
		if (!ready)	/* a tick with nothing waiting: an old filter's image let go */
			bb_attributor_idle(&h->attr);
		if (pfd[0].revents)
			return HUB_STOP;
		if (pfd[2].revents)
			ring_read(h);
		/* from the last: a reader dropped takes the place of the last one */
		for (i = n - first; i-- > 0;)
			if (pfd[first + i].revents & (POLLIN | POLLHUP | POLLERR)) {
				why = reader_input(h, i);
				if (why)
					return why;
			}
		if (pfd[1].revents)
			reader_accept(h);
		flush_all(h);
	}
}

static void hub_free(struct bb_events_hub *h)
{
	ring_stop(h);
	if (h->listen_fd >= 0)
		close(h->listen_fd);
	while (h->n_readers)
		reader_drop(h, 0);
	if (h->ring_fd >= 0)
		close(h->ring_fd);
	bb_attributor_close(&h->attr);
	bb_event_log_free(&h->log);
	bb_instance_close(&h->inst);
	close(h->wake[0]);
	close(h->wake[1]);
	free(h);
}

/* A hub of the instance at pin_dir, its ring opened, not serving yet: 0, or -errno (said). */
static int hub_new(struct bb_events_hub **out, const char *pin_dir, bool daemon)
{
	struct bb_events_hub *h = calloc(1, sizeof(*h));
	char path[512];
	int err;

	*out = NULL;
	if (!h)
		return -ENOMEM;
	h->daemon = daemon;
	h->listen_fd = h->ring_fd = h->wake[0] = h->wake[1] = -1;
	bb_event_log_init(&h->log, sizeof(struct bb_hub_event), BB_HUB_LOG);
	err = where_init(&h->where);
	if (!err && pipe2(h->wake, O_CLOEXEC | O_NONBLOCK))
		err = errno ? -errno : -EMFILE;
	if (err) {
		free(h);
		return err;
	}
	err = bb_instance_open(pin_dir, &h->inst);
	if (err) {
		pr_err("%s: no instance to read the events of: %s\n", pin_dir, strerror(-err));
		hub_free(h);
		return err;
	}
	bb_attributor_init(&h->attr, &h->inst);
	h->ring_fd = bb_pin_path(path, sizeof(path), pin_dir, BB_PIN_EVENTS) ? -ENAMETOOLONG :
		     bpf_obj_get(path);
	if (h->ring_fd < 0) {
		pr_err("%s: no events ring here (an instance loaded by an older bloomblock: "
		       "unload --all and load again)\n", path);
		hub_free(h);
		return -ENOENT;
	}
	*out = h;
	return 0;
}

/*
 * The daemon's way to the ring, the lock held: a reader that owns it is asked to hand
 * it over (its answer waited for, HANDOVER_WAIT_MS at most: one that does not answer
 * is taken over anyway, and stops reading the ring when it finds the path not its own),
 * then the socket bound. 0, or -errno.
 */
static int daemon_take(struct bb_events_hub *h)
{
	struct hub_where *w = &h->where;
	struct pollfd pfd;
	struct bb_hub_head m;
	pid_t pid = 0;
	__u64 until;
	int fd, err;

	if (access(w->dir, F_OK))
		return -ENOENT;		/* not made again here: unload removed it */
	err = where_lock(w);
	if (err)
		return err;
	fd = where_connect(w, &pid);
	if (fd >= 0 && !send_head(fd, BB_HUB_HANDOVER, 0, 0, false)) {
		until = bb_mono_ns() + HANDOVER_WAIT_MS * 1000000ULL;
		pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
		while (bb_mono_ns() < until &&
		       poll(&pfd, 1, (int)((until - bb_mono_ns()) / 1000000ULL) + 1) > 0) {
			ssize_t n = recv(fd, &m, sizeof(m), 0);

			if (n <= 0 || (head_ok(&m, n) && m.type == BB_HUB_HANDED))
				break;
		}
		pr_info("events: the ring taken over from the reader that read it (pid %d)\n",
			(int)pid);
	}
	if (fd >= 0)
		close(fd);
	err = hub_bind(h, w);
	where_unlock(w);
	return err;
}

/* The daemon's try to own the ring: 0, or -errno, said when it differs from *said. */
static int daemon_try(struct bb_events_hub *h, int *said)
{
	int err = daemon_take(h);

	if (err && err != *said)
		pr_warn("events: cannot serve them to readers from %s: %s; trying again every "
			"second\n", h->where.path, strerror(-err));
	*said = err;
	return err;
}

static void *hub_main(void *arg)
{
	struct bb_events_hub *h = arg;
	struct pollfd pfd = { .fd = h->wake[0], .events = POLLIN };
	int why = 0, said = h->said;

	for (;;) {
		if (h->listen_fd < 0) {		/* the daemon's, not owning it (yet) */
			if (daemon_try(h, &said)) {
				if (poll(&pfd, 1, 1000) > 0)
					break;
				continue;
			}
		}
		why = hub_serve(h);
		hub_release(h);
		if (why == HUB_STOP || !h->daemon)
			break;
		pr_warn("events: %s is no longer this daemon's socket: taking it again\n",
			h->where.path);
	}
	if (why == HUB_STOP && h->dev)
		hub_unlink(h);
	return NULL;
}

static int hub_run(struct bb_events_hub *h)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);	/* the signals stay the main thread's */
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&h->thread, NULL, hub_main, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pr_err("cannot start the events' thread: %s\n", strerror(err));
		return -err;
	}
	h->running = true;
	return 0;
}

int bb_events_hub_daemon(struct bb_events_hub **hub, const char *pin_dir)
{
	int err = hub_new(hub, pin_dir, true);

	if (!err) {
		/* at once: the ring is the daemon's when it says it serves (or said why not) */
		daemon_try(*hub, &(*hub)->said);
		err = hub_run(*hub);
		if (err) {
			hub_free(*hub);
			*hub = NULL;
		}
	}
	return err;
}

void bb_events_hub_stop(struct bb_events_hub *h)
{
	if (!h)
		return;
	if (h->running) {
		if (write(h->wake[1], "x", 1) < 0)
			pr_warn("events: cannot stop their thread: %s\n", strerror(errno));
		pthread_join(h->thread, NULL);
	}
	hub_free(h);
}

/* ---- a reader ---- */

struct bb_events_reader {
	char pin_dir[256];
	struct hub_where where;
	int from;			/* enum bb_events_from: what it asked first */
	bool takes;			/* it takes what it reads (acks it) */
	int fd;				/* to the owner */
	struct bb_events_hub *own;	/* the owner, when it is this process */
	__u64 expect;			/* the next seq from this owner */
	__u64 last, acked;		/* the last seq returned; the last one acked */
	bool bye, ended;
	struct bb_events_tally tally;
	struct bb_hub_event msg;
};

static void reader_ack(struct bb_events_reader *r)
{
	if (r->takes && r->fd >= 0 && r->last > r->acked &&
	    !send_head(r->fd, BB_HUB_ACK, r->last, 0, true))
		r->acked = r->last;
}

/* The owner's first word, HELLO_WAIT_MS at most: 0, or -errno. */
static int reader_hello(struct bb_events_reader *r, enum bb_events_from asked)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	struct bb_hub_head *h = &r->msg.head;
	ssize_t n;
	int got = poll(&pfd, 1, HELLO_WAIT_MS);

	if (got <= 0)
		return got ? -errno : -ETIMEDOUT;
	n = recv(r->fd, &r->msg, sizeof(r->msg), 0);
	if (n <= 0)
		return n ? -errno : -ECONNRESET;
	if (!head_ok(h, n))
		return -EPROTO;
	if (h->type == BB_HUB_BUSY)
		return -EBUSY;
	if (h->type != BB_HUB_HELLO)
		return -EPROTO;
	r->expect = h->seq;
	r->last = r->acked = h->seq - 1;
	r->bye = r->ended = false;
	r->tally.owner = (pid_t)h->pid;
	if (asked == BB_EVENTS_RESUME)
		r->tally.lost_handover += h->count;
	else
		r->tally.not_kept += h->count;
	return 0;
}

/*
 * Connected to the ring's owner, asking for asked; this process owns the ring (a hub
 * of its own) when no one serves the socket. first: the state directory made when
 * missing (else it is gone: an unload). 0, or -errno, said.
 */
static int reader_attach(struct bb_events_reader *r, enum bb_events_from asked, bool first)
{
	struct hub_where *w = &r->where;
	int fd, err;

	if (!first && access(w->dir, F_OK)) {
		pr_err("events: %s is gone (the instance unloaded?)\n", w->dir);
		return -ENOENT;
	}
	err = first ? bb_state_mkdirs(w->dir) : 0;
	err = err ?: where_lock(w);
	if (err) {
		pr_err("events: %s: %s\n", w->dir, strerror(-err));
		return err;
	}
	fd = where_connect(w, NULL);
	if (fd == -ECONNREFUSED || fd == -ENOENT) {	/* no one, or a killed owner's socket */
		struct bb_events_hub *own = NULL;

		err = hub_new(&own, r->pin_dir, false);	/* each failure said */
		if (!err && own) {
			err = hub_bind(own, w) ?: hub_run(own);
			if (err)
				hub_free(own);
			else
				r->own = own;
		}
		fd = err ?: where_connect(w, NULL);
		if (fd >= 0)
			r->tally.owned++;
		else if (!err)
			pr_err("events: %s: %s\n", w->path, strerror(-fd));
	} else if (fd < 0) {
		pr_err("events: cannot reach the ring's owner at %s: %s\n", w->path,
		       strerror(-fd));
	}
	where_unlock(w);
	if (fd < 0)
		return fd;
	r->fd = fd;
	err = send_head(fd, BB_HUB_REQUEST, 0, (__u64)asked, false);
	err = err ?: reader_hello(r, asked);
	if (err) {
		close(fd);
		r->fd = -1;
	}
	if (err == -EBUSY)
		pr_err("events: the ring's owner serves %u readers already\n", BB_HUB_MAX_READERS);
	else if (err == -EPROTO && !first)
		;	/* an owner on its way out: the next one is tried */
	else if (err == -EPROTO)
		pr_err("events: %s answers in another protocol (another bloomblock version "
		       "reads the ring?)\n", w->path);
	else if (err == -ETIMEDOUT)
		pr_err("events: the ring's owner at %s does not answer\n", w->path);
	else if (err && (first || err != -ECONNRESET))
		pr_err("events: %s: %s\n", w->path, strerror(-err));
	return err;
}

/* The owner went (BYE, or the end of its socket): the next one found, or become. */
static int reader_reattach(struct bb_events_reader *r)
{
	int err = 0, tries;

	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->tally.handovers++;
	if (!r->bye)
		r->tally.vanished++;
	if (r->own) {		/* ours stopped (handed to the daemon, or its path lost) */
		bb_events_hub_stop(r->own);
		r->own = NULL;
	}
	for (tries = 0; tries < 5; tries++) {
		err = reader_attach(r, r->from == BB_EVENTS_TAKE ? BB_EVENTS_TAKE :
				    BB_EVENTS_RESUME, false);
		if (err != -ECONNRESET && err != -EPROTO)
			break;
		usleep(100000);	/* an owner on its way out: the next one soon */
	}
	if (err == -ECONNRESET || err == -EPROTO)
		pr_err("events: the ring's owners keep going away: stopped\n");
	return err;
}

int bb_events_open(struct bb_events_reader **out, const char *pin_dir, enum bb_events_from from)
{
	struct bb_events_reader *r = calloc(1, sizeof(*r));
	int err;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	snprintf(r->pin_dir, sizeof(r->pin_dir), "%s", pin_dir);
	r->from = from;
	r->takes = from == BB_EVENTS_TAKE || from == BB_EVENTS_FOLLOW;
	r->fd = -1;
	err = where_init(&r->where);
	if (err)
		pr_err("events: the state directory's path is too long\n");
	err = err ?: reader_attach(r, from, true);
	if (err) {
		bb_events_close(r);
		return err;
	}
	*out = r;
	return 0;
}

int bb_events_next(struct bb_events_reader *r, struct bb_events_rec *rec, int timeout_ms)
{
	__u64 until = timeout_ms < 0 ? 0 : bb_mono_ns() + (__u64)timeout_ms * 1000000ULL;
	struct bb_hub_head *h = &r->msg.head;
	struct pollfd pfd;
	ssize_t n;
	int err, wait;

	for (;;) {
		if (r->ended)
			return -ENODATA;
		if (r->fd < 0) {
			err = reader_reattach(r);
			if (err)
				return err;
		}
		n = recv(r->fd, &r->msg, sizeof(r->msg), MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
			wait = timeout_ms < 0 ? -1 : until > bb_mono_ns() ?
			       (int)((until - bb_mono_ns() + 999999) / 1000000ULL) : 0;
			pfd = (struct pollfd){ .fd = r->fd, .events = POLLIN };
			err = poll(&pfd, 1, wait);
			if (err < 0 && errno == EINTR)
				return 0;	/* a signal: the caller looks at why */
			if (err <= 0) {
				reader_ack(r);
				return err ? -errno : 0;
			}
			continue;
		}
		if (n <= 0) {		/* the owner went */
			close(r->fd);
			r->fd = -1;
			continue;
		}
		if (!head_ok(h, n))
			continue;
		switch (h->type) {
		case BB_HUB_EVENT:
			if (h->seq < r->expect)
				continue;
			r->tally.lost_behind += h->seq - r->expect;
			r->expect = h->seq + 1;
			r->last = h->seq;
			r->tally.received++;
			rec->seq = h->seq;
			rec->ev = r->msg.ev;
			rec->attr = r->msg.attr;
			if (r->last - r->acked >= ACK_EVERY)
				reader_ack(r);
			return 1;
		case BB_HUB_END:
			r->ended = true;
			reader_ack(r);
			return -ENODATA;
		case BB_HUB_BYE:
			if (h->seq >= r->expect)
				r->tally.lost_handover += h->seq - r->expect + 1;
			r->bye = true;
			continue;
		default:
			continue;
		}
	}
}

const struct bb_events_tally *bb_events_tally(const struct bb_events_reader *r)
{
	return &r->tally;
}

void bb_events_close(struct bb_events_reader *r)
{
	if (!r)
		return;
	reader_ack(r);
	if (r->fd >= 0)
		close(r->fd);
	bb_events_hub_stop(r->own);	/* the next reader to come owns the ring */
	free(r);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * bloomblock run: the long-running half of an instance. Here it serves the instance
 * load made (its pin directory): in confirm mode it answers the programs' requests
 * against the exact key index, so that a hit drops only once a list is known to hold
 * it, and it beats a heartbeat the programs read to know it runs. In drop and flag
 * mode the same answers only count hits by list (stats --by-list). In the foreground,
 * logs on stderr with syslog priorities; SIGTERM and SIGINT stop it cleanly.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common.h"
#include "confirm.h"
#include "pins.h"
#include "state.h"

#define BB_STATE_RUN_LOCK	"run.lock"	/* held by the one bloomblock run of an instance */

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: bloomblock run [-v] [--pin-dir DIR] [--state-dir DIR]\n"
		"\n"
		"Serve the instance load made, in the foreground, until SIGTERM or SIGINT. In\n"
		"confirm mode (load --mode confirm) it confirms each hit against the key index:\n"
		"a listed item is dropped from then on, a false positive passes and raises no\n"
		"more events. While it is not running, hits nothing confirmed yet pass (or drop:\n"
		"load --daemon-down drop); status says which. In every mode it attributes hits\n"
		"to their lists for stats --by-list. One run an instance.\n"
		"  -v, --verbose   log every answer\n");
}

struct serve {
	struct bb_confirmer c;
	unsigned long answered, errors;
	int last_err;
};

static int on_request(void *ctx, void *data, size_t size)
{
	struct serve *s = ctx;
	int err;

	if (size < sizeof(struct bb_confirm_req))
		return 0;
	err = bb_confirm_answer(&s->c, data);
	if (err >= 0) {
		s->answered++;
	} else if (err != -ESTALE && err != -ENOENT) {
		s->errors++;
		if (err != s->last_err)
			pr_warn("a confirmation failed: %s\n", strerror(-err));
	}
	if (err == -ENOENT && s->last_err != -ENOENT)
		pr_warn("no key index of the live filter in %s: hits cannot be confirmed "
			"(load again without --no-index)\n", bb_state_dir());
	if (err < 0)
		s->last_err = err;
	else
		s->last_err = 0;
	return 0;
}

/* The run lock: one daemon an instance. Its fd, or -1 (said). */
static int run_lock(void)
{
	char path[512], pid[32];
	int fd, lock = bb_state_lock();	/* makes the directory, orders with load */

	if (lock < 0)
		return -1;
	fd = bb_state_path(path, sizeof(path), BB_STATE_RUN_LOCK) ? -1 :
	     open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	close(lock);
	if (fd < 0) {
		pr_err("%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);

		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		pr_err("bloomblock run serves %s already (pid %s)\n", bb_opts.pin_dir,
		       pid[0] ? pid : "?");
		close(fd);
		return -1;
	}
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, strlen(pid), 0) < 0)
		pr_warn("%s: %s\n", path, strerror(errno));
	return fd;
}

static void say_mode(const struct bb_instance *inst)
{
	struct bb_image img;
	const struct bb_header *hdr;

	if (bb_image_open(inst, &img))
		return;
	hdr = (const void *)img.blocks;
	if (!(hdr->flags & BB_HDR_F_CONFIRM))
		pr_info("the live filter is in %s mode: its hits are counted by list (stats "
			"--by-list), not confirmed (load --mode confirm for that)\n",
			bb_mode_name(hdr->flags));
	bb_image_close(&img);
}

int cmd_run(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct serve s = { 0 };
	struct bb_instance inst;
	struct ring_buffer *rb = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	__u64 next_beat = 0, now;
	int opt, err, lock = -1, ret = BB_EXIT_ERROR;

	while ((opt = getopt_long(argc, argv, "vh", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'v':
			s.c.verbose = true;
			break;
		case 'h':
			usage(stdout);
			return BB_EXIT_OK;
		default:
			usage(stderr);
			return BB_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return BB_EXIT_USAGE;
	}
	bb_opts.syslog = true;
	if (bb_require_root() || bb_require_bpffs(bb_opts.pin_dir))
		return BB_EXIT_USAGE;
	err = bb_instance_open(bb_opts.pin_dir, &inst);
	if (err) {
		pr_err("nothing is loaded under %s: %s (bloomblock load first)\n", bb_opts.pin_dir,
		       strerror(-err));
		return BB_EXIT_USAGE;
	}
	s.c.inst = &inst;
	s.c.maps.ring_fd = s.c.maps.confirmed_fd = s.c.maps.unlisted_fd = s.c.maps.daemon_fd = -1;
	if (bb_confirm_maps_open(bb_opts.pin_dir, &s.c.maps))
		goto out;
	lock = run_lock();
	if (lock < 0)
		goto out;
	rb = ring_buffer__new(s.c.maps.ring_fd, on_request, &s, NULL);
	if (!rb) {
		pr_err("cannot read the confirm ring: %s\n", strerror(errno));
		goto out;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* the first beat only once the ring is read: a request from then on is answered */
	err = bb_confirm_beat(&s.c, false);
	if (err) {
		pr_err("cannot write the heartbeat: %s\n", strerror(-err));
		goto out;
	}
	pr_info("serving %s (pid %d): confirming hits against the key index in %s\n",
		bb_opts.pin_dir, (int)getpid(), bb_state_dir());
	say_mode(&inst);
	next_beat = bb_mono_ns() + BB_CONFIRM_BEAT_NS;
	while (!stop_sig) {
		err = ring_buffer__poll(rb, (int)(BB_CONFIRM_BEAT_NS / 1000000ULL));
		if (err < 0 && err != -EINTR) {
			pr_err("reading the confirm ring: %s\n", strerror(-err));
			break;
		}
		now = bb_mono_ns();
		if (now >= next_beat) {
			err = bb_confirm_beat(&s.c, false);
			if (err) {
				pr_err("cannot write the heartbeat: %s\n", strerror(-err));
				break;
			}
			next_beat = now + BB_CONFIRM_BEAT_NS;
		}
	}
	if (stop_sig) {
		ring_buffer__consume(rb);	/* what was asked before the signal */
		ret = BB_EXIT_OK;
	}
	/* stopped: the programs know at once, not after the heartbeat ages */
	bb_confirm_beat(&s.c, true);
	pr_info("stopped%s: %llu listed, %llu false positives confirmed; %llu stale "
		"requests, %lu errors\n", stop_sig == SIGTERM ? " (SIGTERM)" :
		stop_sig == SIGINT ? " (SIGINT)" : "", (unsigned long long)s.c.tally.listed,
		(unsigned long long)s.c.tally.unlisted, (unsigned long long)s.c.tally.stale,
		s.errors);
out:
	ring_buffer__free(rb);
	bb_confirmer_close(&s.c);
	bb_confirm_maps_close(&s.c.maps);
	if (lock >= 0)
		close(lock);
	bb_instance_close(&inst);
	return ret;
}

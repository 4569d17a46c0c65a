// SPDX-License-Identifier: GPL-2.0
/*
 * bloomblock run: the long-running half of an instance. Here it serves the instance
 * load made (its pin directory): in confirm mode it answers the programs' requests
 * against the exact key index, so that a hit drops only once a list is known to hold
 * it, and it beats a heartbeat the programs read to know it runs. In drop and flag
 * mode the same answers only count hits by list (stats --by-list). In the foreground,
 * logs on stderr with syslog priorities; SIGTERM and SIGINT stop it cleanly.
 *
 * With --config it also makes the instance: it loads the config's lists at start,
 * again on SIGHUP, and every refresh that found a list changed, fetching the lists
 * given by URL (feeds, feed.c) first. That work runs on a thread of its own, so
 * that the ring is read and the heartbeat beaten while a feed downloads or a load
 * builds: what the programs ask is answered throughout. It also watches the
 * directories of the config and its lists (watch.h; watch = no: not): a file replaced
 * there, by an editor, rsync or a Kubernetes ConfigMap's symlink swap, is loaded as on
 * SIGHUP, once what it changed is on disk.
 */
#define _GNU_SOURCE	/* fexecve(), environ */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <microhttpd.h>
#include <systemd/sd-daemon.h>

#include "common.h"
#include "daemon.h"
#include "options.h"
#include "config.h"
#include "confirm.h"
#include "events_hub.h"
#include "fetch.h"
#include "metrics.h"
#include "pins.h"
#include "privs.h"
#include "state.h"
#include "watch.h"

/* where /metrics is served when nothing says: this namespace's loopback only */
#define BB_METRICS_DEFAULT	"127.0.0.1:9420"

#define BB_RUN_WATCH_QUIET_MS	500	/* a change is loaded once its files are this long quiet */

static volatile sig_atomic_t stop_sig, hup;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		hup = 1;
	else
		stop_sig = sig;
}

/* The config (--config), kept across SIGHUPs: bb_opts points into it. */
static struct bb_run_config config;
static const char *config_path;

/*
 * This very binary, opened at start: the children run it even when the file was
 * replaced since (an upgrade), as exec of /proc/self/exe would; and through an fd, a
 * tool that runs us (valgrind) runs it too, where /proc/self/exe would be the tool.
 */
static int self_fd = -1;

/*
 * bloomblock ARGS... as a child (this same binary), its messages with syslog
 * prefixes on our stderr: the exit status, or -1. A load that fails leaves the
 * previous filter working, and this daemon with it.
 */
static int spawn(char **args)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (!pid) {	/* BB_SYSLOG=1 is in our environment (cmd_run) */
		if (self_fd >= 0)
			fexecve(self_fd, args, environ);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The global options for a child: the pin and state directories of this instance. */
static int child_args(char **args, int max, const char *cmd)
{
	int n = 0;

	args[n++] = (char *)"bloomblock";
	args[n++] = (char *)"--pin-dir";
	args[n++] = (char *)bb_opts.pin_dir;
	if (bb_opts.state_dir) {
		args[n++] = (char *)"--state-dir";
		args[n++] = (char *)bb_opts.state_dir;
	}
	args[n++] = (char *)cmd;
	return n < max ? n : -1;
}

/* sig with path's stat mixed in (through symlinks: a swapped link is a new inode). */
static unsigned long long stat_mix(unsigned long long sig, const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return (sig ^ 0xdeadULL) * 1099511628211ULL;	/* missing is a state too */
	sig = (sig ^ (unsigned long long)st.st_mtim.tv_sec) * 1099511628211ULL;
	sig = (sig ^ (unsigned long long)st.st_mtim.tv_nsec) * 1099511628211ULL;
	sig = (sig ^ (unsigned long long)st.st_size) * 1099511628211ULL;
	sig = (sig ^ (unsigned long long)st.st_ino) * 1099511628211ULL;
	return (sig ^ (unsigned long long)st.st_dev) * 1099511628211ULL;
}

/* A signature of the config's lists as they are on disk: what a refresh compares. */
static unsigned long long lists_signature(void)
{
	unsigned long long sig = 1469598103934665603ULL;
	char **argv;
	int argc, i;

	if (bb_run_config_argv(&config, &argv, &argc))
		return 0;
	for (i = 0; i < argc; i++)
		if (argv[i][0] != '-' && !access(argv[i], F_OK))
			sig = stat_mix(sig, argv[i]);
	return sig;
}

/* The config file and the lists as last read: what a watched change is compared with. */
static struct {
	unsigned long long conf, lists;
} seen;

static unsigned long long config_signature(void)
{
	return stat_mix(1469598103934665603ULL, config_path);
}

/* The config's feeds and what each did last: the worker's alone once it runs. */
static struct bb_feed *feeds;
static size_t n_feeds;

/*
 * After the config is read: its feeds, each with what it did last (from the feeds
 * before, else from feeds.json), their directory made. 0, or -errno (said).
 */
static int feeds_setup(void)
{
	struct bb_feed *fresh = calloc(BB_RUN_MAX_LISTS, sizeof(*fresh));
	bool kept = feeds != NULL;	/* the feeds before, else a new array for feeds.json's */
	struct bb_feed *old = kept ? feeds : calloc(BB_RUN_MAX_LISTS, sizeof(*old));
	size_t n_old = kept ? n_feeds : 0, l, i, n = 0;
	const char *dir = bb_run_feed_dir(&config);
	int err = 0;

	if (!fresh || !old) {
		free(fresh);
		if (!kept)
			free(old);
		return -ENOMEM;
	}
	if (!kept) {
		char path[512];
		int got = bb_state_path(path, sizeof(path), BB_STATE_FEEDS) ? 0 :
			  bb_feeds_load(path, old, BB_RUN_MAX_LISTS);

		n_old = got > 0 ? (size_t)got : 0;
	}
	for (l = 0; l < config.n_lists && !err; l++) {
		if (!config.lists[l].url)
			continue;
		err = bb_feed_init(&fresh[n], config.lists[l].pattern, dir);
		for (i = 0; i < n_old && !err; i++)
			if (!strcmp(old[i].url, fresh[n].url) && !strcmp(old[i].file, fresh[n].file))
				fresh[n] = old[i];
		n++;
	}
	free(old);
	feeds = fresh;
	n_feeds = n;
	config.feed.cafile = config.feed_cafile[0] ? config.feed_cafile : NULL;
	config.feed.stop = &stop_sig;
	if (!err && n)	/* the state directory first: its own mode (0700), not a parent's */
		err = bb_state_mkdirs(bb_state_dir()) ?: bb_state_mkdirs(dir);
	if (err)
		pr_err("feeds in %s: %s\n", dir, strerror(-err));
	return err;
}

/* Every feed fetched; feeds.json written. What they did, as "feeds: 1 updated, ...". */
static void feeds_fetch(char *said, size_t size)
{
	unsigned int by[BB_FEED_FAILED + 1] = { 0 };
	char path[512];
	size_t i;

	for (i = 0; i < n_feeds && !stop_sig; i++)
		by[bb_feed_fetch(&feeds[i], &config.feed)]++;
	if (n_feeds && !bb_state_path(path, sizeof(path), BB_STATE_FEEDS))
		bb_feeds_save(path, feeds, n_feeds);
	if (n_feeds)
		snprintf(said, size, "feeds: %u updated, %u unchanged, %u failed; ",
			 by[BB_FEED_UPDATED], by[BB_FEED_UNCHANGED], by[BB_FEED_FAILED]);
	else if (size)
		said[0] = 0;
}

/* The daemon's loads: the last one's time and result, and the counts (run.json). */
static struct {
	time_t time;
	const char *why;
	int status;
	unsigned long ok, failed;
} reloads;

static void reloads_save(void)
{
	char path[512];
	json_t *j = json_pack("{s:I, s:s, s:b, s:i, s:I, s:I, s:i}", "time",
			      (json_int_t)reloads.time, "why", reloads.why, "ok", !reloads.status,
			      "status", reloads.status, "ok_total", (json_int_t)reloads.ok,
			      "failed_total", (json_int_t)reloads.failed, "pid", (int)getpid());

	if (j && !bb_state_path(path, sizeof(path), BB_STATE_RUN)) {
		int err = bb_json_write(j, path, 0);

		if (err)
			pr_warn("%s: %s\n", path, strerror(-err));
	}
	json_decref(j);
}

/* load with the config's options and lists, as a child. 0, or its exit status. */
static int config_load(const char *why)
{
	static char *args[BB_RUN_MAX_ARGS + 2 * BB_RUN_MAX_FILES + 16];
	char **largv;
	int largc, n, i, rc;

	seen.lists = lists_signature();	/* before: a change while it loads is loaded next */
	if (bb_run_config_argv(&config, &largv, &largc))
		return -1;
	n = child_args(args, 16, "load");
	for (i = 0; i < largc && n < (int)(sizeof(args) / sizeof(args[0])) - 1; i++)
		args[n++] = largv[i];
	args[n] = NULL;
	for (i = config.argc; i < largc && !strcmp(largv[i], "--allow"); i++)
		;
	if (i == largc) {
		pr_err("%s: no list to load (every feed failed, and has no copy yet)\n", why);
		rc = BB_EXIT_ERROR;
	} else {
		rc = spawn(args);
	}
	if (rc)
		pr_err("%s: load failed (exit %d): the previous filter, if any, stays live\n", why,
		       rc);
	else
		pr_info("%s: loaded %s\n", why, config_path);
	reloads.time = time(NULL);
	reloads.why = why;
	reloads.status = rc;
	if (rc)
		reloads.failed++;
	else
		reloads.ok++;
	reloads_save();
	return rc;
}

/*
 * The first load failed and no instance is there: what this run wrote for it (the
 * feeds' records and copies in the state directory, run.json; the load removed its
 * own) goes, by name, and the state directory with it when bloomblock made it and
 * nothing else is in it. An instance that was there keeps its state.
 */
static void start_failed(void)
{
	struct bb_instance inst;
	int err = bb_instance_open_pins(bb_opts.pin_dir, &inst);

	if (!err)
		bb_instance_close(&inst);
	if (err != -ENOENT)
		return;
	if (!bb_state_remove())
		pr_info("start: nothing is loaded; the state files it wrote in %s are removed\n",
			bb_state_dir());
}

struct serve {
	struct bb_confirmer c;
	unsigned long answered, errors;
	int last_err;
};

/* GET /metrics: the instance's numbers, made fresh for each scrape. */
static enum MHD_Result on_http(void *cls, struct MHD_Connection *conn, const char *url,
			       const char *method, const char *version, const char *data,
			       size_t *size, void **state)
{
	const struct bb_instance *inst = cls;
	struct MHD_Response *resp;
	enum MHD_Result ret;
	unsigned int code = MHD_HTTP_OK;
	char *body = NULL;
	size_t len = 0;
	FILE *f;

	(void)version;
	(void)data;
	(void)size;
	(void)state;
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		code = MHD_HTTP_METHOD_NOT_ALLOWED;
		body = strdup("GET /metrics\n");
	} else if (strcmp(url, "/metrics")) {
		code = MHD_HTTP_NOT_FOUND;
		body = strdup("bloomblock serves /metrics\n");
	} else {
		f = open_memstream(&body, &len);
		if (!f || bb_metrics_write(f, inst))
			code = MHD_HTTP_INTERNAL_SERVER_ERROR;
		if (f)
			fclose(f);
	}
	len = body ? strlen(body) : 0;
	resp = MHD_create_response_from_buffer(len, body ? body : (char *)"", body ?
					       MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (!resp) {
		free(body);	/* not taken over */
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
	ret = MHD_queue_response(conn, code, resp);
	MHD_destroy_response(resp);
	/* cppcheck-suppress memleak ; MHD_RESPMEM_MUST_FREE: the response frees body */
	return ret;
}

/* --metrics ADDR:PORT ([v6]:PORT) into a socket address. 0, or -EINVAL (said). */
static int metrics_addr(const char *arg, struct sockaddr_storage *ss)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	char host[INET6_ADDRSTRLEN + 2], *end;
	const char *colon = strrchr(arg, ':');
	unsigned long port;
	size_t hl;

	memset(ss, 0, sizeof(*ss));
	port = colon ? strtoul(colon + 1, &end, 10) : 0;
	hl = colon ? (size_t)(colon - arg) : 0;
	if (!colon || *end || !port || port > 65535 || !hl || hl >= sizeof(host))
		goto bad;
	memcpy(host, arg, hl);
	host[hl] = '\0';
	if (host[0] == '[' && host[hl - 1] == ']') {
		host[hl - 1] = '\0';
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((__u16)port);
		if (inet_pton(AF_INET6, host + 1, &v6->sin6_addr) == 1)
			return 0;
	} else {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((__u16)port);
		if (inet_pton(AF_INET, host, &v4->sin_addr) == 1)
			return 0;
	}
bad:
	pr_err("--metrics: ADDR:PORT wanted (127.0.0.1:9420, [::1]:9420), not %s\n", arg);
	return -EINVAL;
}

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

/* What run's command line says. */
struct run_opts {
	const char *metrics;	/* ADDR:PORT, "off", or NULL: not given */
	struct sockaddr_storage maddr;
	bool metrics_default;	/* nothing said where: BB_METRICS_DEFAULT, if it is free */
	bool verbose, check_only;
};

static int opt_metrics(void *opts, const struct bb_option *o, const char *arg)
{
	struct run_opts *ro = opts;

	(void)o;
	ro->metrics = arg;
	return strcmp(arg, "off") && metrics_addr(arg, &ro->maddr) ? -EINVAL : 0;
}

static int opt_config(void *opts, const struct bb_option *o, const char *arg)
{
	(void)opts, (void)o;
	config_path = arg;
	return 0;
}

static const struct bb_option run_options[] = {
	{ "verbose", 'v', NULL, "log every answer", bb_opt_flag,
	  offsetof(struct run_opts, verbose), BB_OPT_NO_GIVEN, NULL },
	{ "config", 'c', "FILE", "an INI file, [instance]: interface, hook, mode, list,\n"
	  "allow (paths or globs), refresh (30m), pin_dir, state_dir,\nmetrics, on_exit "
	  "(keep, detach), watch (yes, no), and\nload's options ('_' for '-'); run loads it "
	  "first, again\non SIGHUP, every refresh its lists changed, and when the\nconfig or "
	  "a list is replaced (watch = yes: inotify on\ntheir directories)", opt_config, 0,
	  BB_OPT_NO_GIVEN, NULL },
	{ "check-config", 0, NULL, "with --config: check it (file, line, key; its lists,\n"
	  "feeds, allowlists and interfaces) and exit", bb_opt_flag,
	  offsetof(struct run_opts, check_only), BB_OPT_NO_GIVEN, NULL },
	{ "metrics", 0, "ADDR:PORT", "serve GET /metrics (Prometheus's text format, as stats\n"
	  "--prometheus prints it) there; an IPv6 address in\nbrackets; off: nowhere. Default: "
	  BB_METRICS_DEFAULT "\n(in run's network namespace; taken already: a warning,\nand "
	  "none)", opt_metrics, 0, BB_OPT_NO_GIVEN, NULL },
	BB_OPT_END
};

/* The command line into o. -1: go on; else the exit status. */
static int run_args(int argc, char **argv, struct run_opts *o)
{
	int ret = bb_command_parse(&cmd_run_def, argc, argv, o, NULL, NULL);

	if (ret >= 0)
		return ret;
	if (o->check_only && !config_path)
		return bb_usage_error(&cmd_run_def, "--check-config checks a --config FILE");
	return -1;
}

/*
 * --config: read and checked; with --check-config that is all (the exit status).
 * Else its directories and metrics address taken, unless given. -1: go on.
 */
static int run_config(struct run_opts *o)
{
	int problems;

	if (!config_path)
		return -1;
	seen.conf = config_signature();
	if (bb_run_config_read(config_path, &config))
		return BB_EXIT_USAGE;
	/* what it names on this host: every problem said, before anything is made */
	problems = bb_run_config_check(config_path, &config);
	if (problems) {
		pr_err("%s: %d problem%s (above): %s\n", config_path, problems,
		       problems == 1 ? "" : "s", o->check_only ? "run would fail" :
		       "nothing started");
		bb_run_config_free(&config);
		return BB_EXIT_ERROR;
	}
	if (o->check_only) {
		pr_info("%s: good: %zu list%s and allowlist%s\n", config_path, config.n_lists,
			config.n_lists == 1 ? "" : "s", config.n_lists == 1 ? "" : "s");
		bb_run_config_free(&config);
		return BB_EXIT_OK;
	}
	if (config.pin_dir[0])
		bb_opts.pin_dir = bb_pin_dir_canonical(config.pin_dir);
	if (config.state_dir[0])
		bb_opts.state_dir = config.state_dir;
	bb_state_init(bb_opts.pin_dir, bb_opts.state_dir);
	if (!o->metrics && config.metrics[0]) {
		o->metrics = config.metrics;
		if (strcmp(o->metrics, "off") && metrics_addr(o->metrics, &o->maddr))
			return BB_EXIT_USAGE;
	}
	return -1;
}

/* Where /metrics is served: where --metrics or the config said, off, or by default. -1. */
static int metrics_choice(struct run_opts *o)
{
	if (!o->metrics) {
		o->metrics = BB_METRICS_DEFAULT;
		o->metrics_default = true;
		metrics_addr(o->metrics, &o->maddr);
	} else if (!strcmp(o->metrics, "off")) {
		o->metrics = NULL;
	}
	return -1;
}

static void watch_update(void);

/*
 * SIGHUP, or a changed config file (why: "change"): the config read again, its feeds
 * fetched, and loaded; a bad one changes nothing.
 */
static void run_hup(unsigned long long *sig, const char *why)
{
	struct bb_run_config fresh;

	seen.conf = config_signature();	/* a bad config is not read again until it changes */
	if (bb_run_config_read(config_path, &fresh)) {	/* the worker runs with --config only */
		pr_err("%s: %s is not good (said above): the running config stays\n", why,
		       config_path);
		return;
	}
	/* the pin and state directories stay: the instance is this one */
	memcpy(fresh.pin_dir, config.pin_dir, sizeof(fresh.pin_dir));
	memcpy(fresh.state_dir, config.state_dir, sizeof(fresh.state_dir));
	bb_run_config_free(&config);
	memcpy(&config, &fresh, sizeof(config));
	watch_update();		/* the lists may be elsewhere now */
	sd_notify(0, "RELOADING=1");
	if (!feeds_setup()) {
		char said[128];

		feeds_fetch(said, sizeof(said));
		if (said[0])
			pr_info("%s: %sloading\n", why, said);
	}
	if (!config_load(why))
		*sig = lists_signature();
	sd_notifyf(0, "READY=1\nSTATUS=serving %s; reloaded on %s", bb_opts.pin_dir, why);
}

/*
 * Something moved in a watched directory: the config read again and loaded when it
 * changed (as on SIGHUP), else the lists loaded when one changed; else nothing. A load
 * that fails is not tried again until a file changes again (or the next refresh).
 */
static void run_change(unsigned long long *sig)
{
	if (config_signature() != seen.conf) {
		pr_info("change: %s changed: reading it again\n", config_path);
		run_hup(sig, "change");
	} else if (lists_signature() != seen.lists) {
		pr_info("change: a list changed: loading\n");
		watch_update();	/* a glob may match more files, a link lead elsewhere */
		sd_notify(0, "RELOADING=1");
		if (!config_load("change"))
			*sig = lists_signature();
		sd_notifyf(0, "READY=1\nSTATUS=serving %s; reloaded on a change", bb_opts.pin_dir);
	}
}

/* A refresh: the feeds fetched, and a load when a list or a feed's copy changed. */
static void run_refresh(unsigned long long *sig)
{
	static unsigned long refreshes;
	unsigned long long cur;
	__u64 t0 = bb_mono_ns();
	char said[128];

	feeds_fetch(said, sizeof(said));
	cur = lists_signature();
	if (cur == *sig) {
		pr_info("refresh %lu (%.3f s): %sno list changed: nothing to load\n", ++refreshes,
			(double)(bb_mono_ns() - t0) / 1e9, said);
		return;
	}
	pr_info("refresh %lu: %slists changed: loading\n", ++refreshes, said);
	if (!config_load("refresh"))
		*sig = cur;
}

/*
 * The worker: SIGHUPs, changes and refreshes, one at a time, off the thread that
 * answers the ring. Signals go to the main thread only (blocked here); it wakes this
 * one, and so does the watch's thread.
 */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	bool hup, changed, stop, running;
	unsigned long long sig;		/* the lists as last loaded */
} work = { .mu = PTHREAD_MUTEX_INITIALIZER };

static struct bb_watch watch;

static void *worker(void *arg)
{
	struct timespec at;
	bool sighup, changed;

	(void)arg;
	pthread_mutex_lock(&work.mu);
	while (!work.stop) {
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_sec += config.refresh_s > 0 ? (time_t)config.refresh_s : 0;
		while (!work.stop && !work.hup && !work.changed) {
			if (config.refresh_s <= 0)
				pthread_cond_wait(&work.cv, &work.mu);
			else if (pthread_cond_timedwait(&work.cv, &work.mu, &at) == ETIMEDOUT)
				break;
		}
		if (work.stop)
			break;
		sighup = work.hup;
		changed = work.changed;
		work.hup = work.changed = false;
		pthread_mutex_unlock(&work.mu);
		if (sighup)
			run_hup(&work.sig, "SIGHUP");
		else if (changed)
			run_change(&work.sig);
		else
			run_refresh(&work.sig);
		pthread_mutex_lock(&work.mu);
	}
	pthread_mutex_unlock(&work.mu);
	return NULL;
}

/* The watch's thread, after a burst of events: the worker looks (run_change()). */
static void on_change(void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&work.mu);
	work.changed = true;
	pthread_cond_signal(&work.cv);
	pthread_mutex_unlock(&work.mu);
}

/* dir_add(..., path): path's directory into dirs (n of them), once. */
static void dir_add(char **dirs, char (*store)[PATH_MAX], size_t *n, const char *path)
{
	char *slash;
	size_t i;

	if (*n >= BB_WATCH_MAX_DIRS)
		return;
	snprintf(store[*n], PATH_MAX, "%s", path);
	slash = strrchr(store[*n], '/');
	if (!slash)
		snprintf(store[*n], PATH_MAX, ".");
	else
		slash[slash == store[*n]] = '\0';	/* "/x" is in "/" */
	if (strpbrk(store[*n], "*?["))
		return;		/* a glob's directory part: its matches' are added */
	for (i = 0; i < *n && strcmp(dirs[i], store[*n]); i++)
		;
	if (i == *n) {
		dirs[*n] = store[*n];
		(*n)++;
	}
}

/* path's directory, and the directory its symlinks lead to when that is another. */
static void dirs_of(char **dirs, char (*store)[PATH_MAX], size_t *n, const char *path)
{
	char real[PATH_MAX];

	dir_add(dirs, store, n, path);
	if (realpath(path, real))
		dir_add(dirs, store, n, real);
}

/*
 * What the watch looks at: the directories of the config file and of each list and
 * allowlist (a glob's, and each file it matches), where their symlinks lead too; not
 * the feeds' copies, which run writes itself. Nothing with watch = no.
 */
static void watch_update(void)
{
	static char store[BB_WATCH_MAX_DIRS][PATH_MAX];
	char *dirs[BB_WATCH_MAX_DIRS];
	size_t n = 0, l, k;
	int got;

	if (!watch.running)
		return;
	if (!config.no_watch)
		dirs_of(dirs, store, &n, config_path);
	for (l = 0; l < config.n_lists && !config.no_watch; l++) {
		glob_t g;

		if (config.lists[l].url)
			continue;
		dir_add(dirs, store, &n, config.lists[l].pattern);
		if (glob(config.lists[l].pattern, 0, NULL, &g))
			continue;
		for (k = 0; k < g.gl_pathc; k++)
			dirs_of(dirs, store, &n, g.gl_pathv[k]);
		globfree(&g);
	}
	got = bb_watch_dirs(&watch, dirs, n);
	if (got < 0)
		pr_warn("cannot watch the config's directories: %s\n", strerror(-got));
}

static int worker_start(unsigned long long sig)
{
	pthread_condattr_t ca;
	sigset_t block, old;
	int err;

	work.sig = sig;
	/* before the worker, which calls watch_update() too after a SIGHUP */
	err = bb_watch_start(&watch, BB_RUN_WATCH_QUIET_MS, on_change, NULL);
	if (err)	/* SIGHUP and refresh still work */
		pr_warn("cannot watch for changed files: %s\n", strerror(-err));
	watch_update();
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&work.cv, &ca);
	pthread_condattr_destroy(&ca);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	err = pthread_create(&work.thread, NULL, worker, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pr_err("cannot start the refresh thread: %s\n", strerror(err));
		return -err;
	}
	work.running = true;
	return 0;
}

static void worker_poke(bool stop)
{
	if (stop)
		bb_watch_stop(&watch);	/* first: it wakes the worker */
	if (!work.running)
		return;
	pthread_mutex_lock(&work.mu);
	if (stop)
		work.stop = true;
	else
		work.hup = true;
	pthread_cond_signal(&work.cv);
	pthread_mutex_unlock(&work.mu);
	if (stop) {
		pthread_join(work.thread, NULL);
		work.running = false;
	}
}

/*
 * Until a signal stops it: requests answered, the heartbeat beaten, SIGHUP handed to
 * the worker. 0 when a signal stopped it.
 */
static int serve_loop(struct serve *s, struct ring_buffer *rb)
{
	__u64 now, next_beat = bb_mono_ns() + BB_CONFIRM_BEAT_NS;
	__u64 wd_ns = 0, next_wd = 0;
	uint64_t wd_usec;
	int err;

	/* systemd's watchdog (WatchdogSec=): a ping at half its interval, beside the beat */
	if (sd_watchdog_enabled(0, &wd_usec) > 0)
		wd_ns = wd_usec * 1000 / 2;

	while (!stop_sig) {
		if (hup) {
			hup = 0;
			if (config_path)
				worker_poke(false);
			else
				pr_info("SIGHUP: no --config to read again\n");
		}
		err = ring_buffer__poll(rb, (int)(BB_CONFIRM_BEAT_NS / 1000000ULL));
		if (err < 0 && err != -EINTR) {
			pr_err("reading the confirm ring: %s\n", strerror(-err));
			return err;
		}
		now = bb_mono_ns();
		if (wd_ns && now >= next_wd) {
			sd_notify(0, "WATCHDOG=1");
			next_wd = now + wd_ns;
		}
		if (now >= next_beat) {
			bb_confirmer_tidy(&s->c);
			err = bb_confirm_beat(&s->c, false);
			if (err) {
				pr_err("cannot write the heartbeat: %s\n", strerror(-err));
				return err;
			}
			next_beat = now + BB_CONFIRM_BEAT_NS;
		}
	}
	ring_buffer__consume(rb);	/* what was asked before the signal */
	return 0;
}

/* on_exit = detach, after a clean stop: the instance unloaded. */
static void run_detach(void)
{
	char *args[16];
	int n = child_args(args, 15, "unload");

	args[n++] = (char *)"--all";
	args[n] = NULL;
	if (spawn(args))
		pr_err("on_exit = detach: unload --all failed\n");
	else
		pr_info("on_exit = detach: detached and removed %s\n", bb_opts.pin_dir);
}

/* Drop every capability but those a reload needs (and a low port's, for /metrics). */
static int caps_keep(const struct run_opts *o)
{
	char said[200];
	int err, port = o->maddr.ss_family == AF_INET6 ?
			ntohs(((const struct sockaddr_in6 *)&o->maddr)->sin6_port) :
			ntohs(((const struct sockaddr_in *)&o->maddr)->sin_port);

	err = bb_caps_drop(o->metrics && port < 1024, said, sizeof(said));
	if (err) {
		pr_err("cannot drop capabilities: %s\n", strerror(-err));
		return err;
	}
	pr_info("capabilities: %s\n", said);
	return 0;
}

/*
 * /metrics served on o->maddr (*http), when asked. The default address taken (another
 * instance's daemon may have it) is a warning and none is served: serving the filter
 * comes first; an address asked for that cannot be served is an error.
 */
static int metrics_start(struct run_opts *o, struct bb_instance *inst, struct MHD_Daemon **http)
{
	*http = NULL;
	if (!o->metrics)
		return 0;
	*http = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
				 (o->metrics_default ? 0 : MHD_USE_ERROR_LOG) |
				 (o->maddr.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				 0, NULL, NULL, on_http, inst,
				 MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&o->maddr,
				 MHD_OPTION_CONNECTION_TIMEOUT, 10U, MHD_OPTION_END);
	if (!*http && o->metrics_default) {
		pr_warn("/metrics: cannot serve on %s, the default: %s; going on without "
			"(metrics = ADDR:PORT or off in the config, or --metrics)\n",
			o->metrics, strerror(errno));
		o->metrics = NULL;
		return 0;
	}
	if (!*http) {
		pr_err("--metrics %s: cannot serve there: %s\n", o->metrics, strerror(errno));
		return -EADDRNOTAVAIL;
	}
	pr_info("serving /metrics on http://%s/metrics\n", o->metrics);
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	struct run_opts o = { 0 };
	struct MHD_Daemon *http = NULL;
	struct bb_events_hub *events = NULL;
	struct serve s = { 0 };
	struct bb_instance inst;
	struct ring_buffer *rb = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long long sig = 0;
	int err, lock = -1, ret = BB_EXIT_ERROR;

	ret = run_args(argc, argv, &o);
	ret = ret < 0 ? run_config(&o) : ret;
	ret = ret < 0 ? metrics_choice(&o) : ret;
	if (ret >= 0)
		return ret;
	ret = BB_EXIT_ERROR;
	s.c.verbose = o.verbose;
	bb_msg.syslog = true;
	setenv("BB_SYSLOG", "1", 1);	/* for the loads: before any thread */
	self_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (bb_require_root() || bb_require_bpffs(bb_opts.pin_dir))
		return BB_EXIT_ERROR;
	if (config_path) {
		char said[128];

		if (bb_feed_global_init() || feeds_setup())
			goto out_config;
		feeds_fetch(said, sizeof(said));
		if (said[0])
			pr_info("start: %sloading\n", said);
		if (config_load("start")) {
			start_failed();
			goto out_config;
		}
		sig = lists_signature();
	}
	err = bb_instance_open(bb_opts.pin_dir, &inst);
	if (err == -EUCLEAN) {
		bb_instance_say_damaged(bb_opts.pin_dir);
		return BB_EXIT_ERROR;
	}
	if (err) {
		pr_err("nothing is loaded under %s: %s (bloomblock load first)\n", bb_opts.pin_dir,
		       strerror(-err));
		return BB_EXIT_ERROR;
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
	sigaction(SIGHUP, &sa, NULL);
	/* the first beat only once the ring is read: a request from then on is answered */
	err = bb_confirm_beat(&s.c, false);
	if (err) {
		pr_err("cannot write the heartbeat: %s\n", strerror(-err));
		goto out;
	}
	/* the capabilities a reload needs, no more: while this is the only thread */
	if (caps_keep(&o) || metrics_start(&o, &inst, &http)) {
		bb_confirm_beat(&s.c, true);
		goto out;
	}
	/* the hit events' ring is this daemon's while it runs: it serves every reader */
	if (bb_events_hub_daemon(&events, bb_opts.pin_dir))
		pr_warn("the hit events are not served to readers by this daemon (said above)\n");
	pr_info("serving %s (pid %d): confirming hits against the key index in %s\n",
		bb_opts.pin_dir, (int)getpid(), bb_state_dir());
	say_mode(&inst);
	/* systemd (Type=notify): ready once requests are answered and /metrics served */
	sd_notifyf(0, "READY=1\nSTATUS=serving %s%s%s", bb_opts.pin_dir,
		   o.metrics ? ", /metrics on " : "", o.metrics ? o.metrics : "");
	if (config_path && worker_start(sig))
		goto out;
	if (!serve_loop(&s, rb))
		ret = BB_EXIT_OK;
	sd_notify(0, "STOPPING=1");
	worker_poke(true);
	/* stopped: the programs know at once, not after the heartbeat ages */
	bb_confirm_beat(&s.c, true);
	pr_info("stopped%s: %llu listed, %llu false positives confirmed; %llu stale "
		"requests, %lu errors\n", stop_sig == SIGTERM ? " (SIGTERM)" :
		stop_sig == SIGINT ? " (SIGINT)" : "", (unsigned long long)s.c.tally.listed,
		(unsigned long long)s.c.tally.unlisted, (unsigned long long)s.c.tally.stale,
		s.errors);
out:
	worker_poke(true);
	bb_events_hub_stop(events);	/* the readers told; the next owns the ring */
	if (http)
		MHD_stop_daemon(http);
	ring_buffer__free(rb);
	bb_confirmer_close(&s.c);
	bb_confirm_maps_close(&s.c.maps);
	if (lock >= 0)
		close(lock);
	bb_instance_close(&inst);
	if (ret == BB_EXIT_OK && config_path && config.detach_on_exit)
		run_detach();
out_config:
	bb_run_config_free(&config);
	free(feeds);
	feeds = NULL;
	if (config_path)
		bb_feed_global_cleanup();
	return ret;
}

const struct bb_command cmd_run_def = {
	.name = "run",
	.synopsis = "[-v] [--config FILE [--check-config]] [--metrics ADDR:PORT]",
	.summary = "serve the instance: its config, feeds, confirmations, /metrics",
	.help = "Serve the instance load made, in the foreground, until SIGTERM or SIGINT. In\n"
		"confirm mode (load --mode confirm) it confirms each hit against the key index:\n"
		"a listed item is dropped from then on, a false positive passes and raises no\n"
		"more events. While it is not running, hits nothing confirmed yet pass (or drop:\n"
		"load --daemon-down drop); status says which. In every mode it attributes hits\n"
		"to their lists for stats --by-list. One run an instance.\n",
	.groups = { run_options },
	.run = cmd_run,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * bloomblock events: the hit events the programs raise into the pinned ring buffer,
 * one line each (JSON lines with -j), each attributed through the key index: the
 * list and line that hold what hit, or a false positive.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common.h"
#include "options.h"
#include "filter.h"
#include "list.h"
#include "pcap_out.h"
#include "pins.h"
#include "state.h"

static const char *const what_names[] = {
	[BB_EV_SRC] = "src", [BB_EV_DST] = "dst", [BB_EV_DNS] = "dns",
	[BB_EV_SNI] = "sni", [BB_EV_HOST] = "host", [BB_EV_URL] = "url",
};
static const char *const verdict_names[] = {
	[BB_EV_DROPPED] = "dropped", [BB_EV_FLAGGED] = "flagged", [BB_EV_ALLOWED] = "allowed",
	[BB_EV_UNCONFIRMED] = "unconfirmed",
};
static const char *const hook_names[] = {
	[BB_EV_XDP] = "xdp", [BB_EV_TC_INGRESS] = "tc-ingress", [BB_EV_TC_EGRESS] = "tc-egress",
};

#define NAME_OF(table, i) \
	((i) < sizeof(table) / sizeof((table)[0]) && (table)[i] ? (table)[i] : "?")

struct run {
	unsigned int kinds, verdicts;	/* bit masks; 0: any */
	int ifindex[16], n_ifindex;
	long count, left;
	struct bb_instance inst;
	struct bb_image img;
	struct bb_index_view index;
	bool have_img, have_index;
	__u32 map_id;
	__u64 mono_to_real_ns;
	__u64 last_ns;			/* the time of the event read before */
	struct bb_pcap *pcap;		/* --pcap: every event's packet, as it was */
	unsigned long dumped;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int name_bit(const char *const *table, size_t n, const char *arg, unsigned int *mask)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (table[i] && !strcmp(table[i], arg)) {
			*mask |= 1U << i;
			return 0;
		}
	return -EINVAL;
}

/* The live filter and its index, (re)opened when an event is of another filter. */
static void open_live(struct run *r, __u32 map_id)
{
	if (r->have_img && r->map_id == map_id)
		return;
	if (r->have_index)
		bb_index_close(&r->index);
	if (r->have_img)
		bb_image_close(&r->img);
	r->have_img = r->have_index = false;
	if (bb_image_open(&r->inst, &r->img))
		return;
	r->have_img = true;
	r->map_id = map_id;
	r->have_index = !bb_state_index(r->img.blocks, &r->index);
}

/* What hit, as an entry the image is asked about; its text in buf. */
static int event_entry(const struct bb_event *ev, struct bb_entry *e, char *buf, size_t size)
{
	size_t len;

	memset(e, 0, sizeof(*e));
	if (ev->what == BB_EV_SRC || ev->what == BB_EV_DST) {
		const __u8 *a = ev->what == BB_EV_SRC ? ev->saddr : ev->daddr;

		e->kind = ev->family == 4 ? BB_ENTRY_IP4 : BB_ENTRY_IP6;
		e->plen = ev->family == 4 ? 32 : 128;
		memcpy(e->addr, a, ev->family == 4 ? 4 : 16);
		inet_ntop(ev->family == 4 ? AF_INET : AF_INET6, a, buf, (socklen_t)size);
		return 0;
	}
	len = ev->key_len > 1 ? ev->key_len - 1 : 0;
	if (len >= size)
		len = size - 1;
	memcpy(buf, ev->key + 1, len);
	buf[len] = '\0';
	e->kind = ev->what == BB_EV_URL ? BB_ENTRY_URL : BB_ENTRY_NAME;
	e->text = buf;
	return len ? 0 : -EINVAL;
}

static void addr_text(const struct bb_event *ev, const __u8 *a, __u16 port, char *out,
		      size_t size)
{
	char ip[INET6_ADDRSTRLEN];

	inet_ntop(ev->family == 4 ? AF_INET : AF_INET6, a, ip, sizeof(ip));
	if (!port)
		snprintf(out, size, "%s", ip);
	else if (ev->family == 4)
		snprintf(out, size, "%s:%u", ip, port);
	else
		snprintf(out, size, "[%s]:%u", ip, port);
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct run *r = ctx;
	const struct bb_event *ev = data;
	char item[BB_EVENT_KEY_MAX + 64], src[64], dst[64], when[40], ifname[IF_NAMESIZE] = "?";
	char source[600] = "";
	const struct bb_index_rec *rec = NULL;
	struct bb_entry e;
	__u64 real;
	time_t secs;
	struct tm tm;
	int i, listed = -1;

	if (size < sizeof(*ev))
		return 0;
	if ((r->kinds && !(r->kinds & 1U << ev->what)) ||
	    (r->verdicts && !(r->verdicts & 1U << ev->verdict)))
		return 0;
	for (i = 0; i < r->n_ifindex; i++)
		if (r->ifindex[i] == (int)ev->ifindex)
			break;
	if (r->n_ifindex && i == r->n_ifindex)
		return 0;
	if (!if_indextoname(ev->ifindex, ifname))
		snprintf(ifname, sizeof(ifname), "if%u", ev->ifindex);
	if (event_entry(ev, &e, item, sizeof(item)))
		snprintf(item, sizeof(item), "?");
	open_live(r, ev->map_id);
	if (r->have_img && r->have_index) {
		listed = bb_image_attribute(r->img.blocks, &r->index, &e, &rec);
		if (listed)
			snprintf(source, sizeof(source), rec->line ? "%s:%u" : "%s",
				 bb_index_source(&r->index, rec->src), rec->line);
	}
	addr_text(ev, ev->saddr, ev->sport, src, sizeof(src));
	addr_text(ev, ev->daddr, ev->dport, dst, sizeof(dst));
	/*
	 * The kernel's time of an event is the coarse clock's (the last tick, 4 ms at
	 * HZ=250): printed to the millisecond, and never before the event read ahead of
	 * it (another CPU may have read its time a tick before reserving its record).
	 */
	real = ev->time_ns + r->mono_to_real_ns;
	if (real < r->last_ns)
		real = r->last_ns;
	r->last_ns = real;
	secs = (time_t)(real / 1000000000ULL);
	gmtime_r(&secs, &tm);
	i = (int)strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + i, sizeof(when) - (size_t)i, ".%03lluZ",
		 (unsigned long long)(real % 1000000000ULL / 1000000));
	if (r->pcap && ev->pkt_len) {
		bb_pcap_write(r->pcap, (long long)(real / 1000), ev->pkt, ev->pkt_len,
			      ev->wire_len > ev->pkt_len ? ev->wire_len : ev->pkt_len);
		r->dumped++;
	}
	if (bb_msg.json) {
		json_t *j = json_pack("{s:s, s:I, s:s, s:i, s:s, s:s, s:s, s:s, s:i, s:s, s:s, "
				      "s:i, s:i}",
			"time", when, "time_ns", (json_int_t)real, "interface", ifname,
			"ifindex", (int)ev->ifindex, "hook", NAME_OF(hook_names, ev->hook),
			"verdict", NAME_OF(verdict_names, ev->verdict),
			"kind", NAME_OF(what_names, ev->what), "item", item,
			"family", ev->family, "src", src, "dst", dst, "sport", ev->sport,
			"dport", ev->dport);

		if (j) {
			json_object_set_new(j, "false_positive",
					    listed < 0 ? json_null() : json_boolean(!listed));
			json_object_set_new(j, "listed_in", listed > 0 ?
					    json_pack("{s:s, s:i}", "file",
						      bb_index_source(&r->index, rec->src),
						      "line", (int)rec->line) : json_null());
			json_dumpf(j, stdout, JSON_COMPACT);
			putchar('\n');
			json_decref(j);
		}
	} else {
		printf("%s %s %s %s %s %s %s > %s: %s%s%s\n", when, ifname,
		       NAME_OF(hook_names, ev->hook), NAME_OF(verdict_names, ev->verdict),
		       NAME_OF(what_names, ev->what), item, src, dst,
		       listed < 0 ? "listed (maybe)" : listed ? "listed (" :
		       "a false positive: no list holds it", listed > 0 ? source : "",
		       listed > 0 ? ")" : "");
	}
	fflush(stdout);
	if (r->count && --r->left <= 0) {
		stop = 1;
		return -ECANCELED;	/* stop consuming: what is left stays in the ring */
	}
	return 0;
}

/* What events was asked for: its options. */
struct events_args {
	const char *pcap_path;
	double timeout;		/* --follow: seconds, 0 for none */
	bool follow;
	long count;
	unsigned int kinds, verdicts;
	int ifindex[16], n_ifindex;
};

static int opt_kind(void *opts, const struct bb_option *o, const char *arg)
{
	(void)o;
	if (!name_bit(what_names, sizeof(what_names) / sizeof(what_names[0]), arg,
		      &((struct events_args *)opts)->kinds))
		return 0;
	pr_err("--kind is src, dst, dns, sni, host or url, not '%s'\n", arg);
	return -EINVAL;
}

static int opt_verdict(void *opts, const struct bb_option *o, const char *arg)
{
	(void)o;
	if (!name_bit(verdict_names, sizeof(verdict_names) / sizeof(verdict_names[0]), arg,
		      &((struct events_args *)opts)->verdicts))
		return 0;
	pr_err("--verdict is dropped, flagged, allowed or unconfirmed, not '%s'\n", arg);
	return -EINVAL;
}

static int opt_interface(void *opts, const struct bb_option *o, const char *arg)
{
	struct events_args *a = opts;

	(void)o;
	if (a->n_ifindex == 16 || !(a->ifindex[a->n_ifindex] = (int)if_nametoindex(arg))) {
		pr_err("--interface %s: %s\n", arg, a->n_ifindex == 16 ? "at most 16" :
		       "no such interface here");
		return -EINVAL;
	}
	a->n_ifindex++;
	return 0;
}

static const struct bb_opt_range count_range = { 1, 1e18 }, timeout_range = { 0.001, 1e9 };

#define BB_STR(x)	#x
#define BB_XSTR(x)	BB_STR(x)
#define F(field)	offsetof(struct events_args, field)
#define NG		BB_OPT_NO_GIVEN
static const struct bb_option events_options[] = {
	{ "follow", 'f', NULL, "wait for more (until interrupted, -n or --timeout)",
	  bb_opt_flag, F(follow), NG, NULL },
	{ "count", 'n', "N", "stop after N events", bb_opt_long, F(count), NG, &count_range },
	{ "timeout", 0, "S", "with --follow: stop after S seconds", bb_opt_double, F(timeout),
	  NG, &timeout_range },
	{ "kind", 0, "K", "src, dst, dns, sni, host, url (repeatable)", opt_kind, 0, NG, NULL },
	{ "verdict", 0, "V", "dropped, flagged, allowed, unconfirmed (repeatable)", opt_verdict,
	  0, NG, NULL },
	{ "interface", 0, "IFACE", "events of IFACE only (repeatable)", opt_interface, 0, NG,
	  NULL },
	{ "pcap", 0, "FILE", "also write each event's packet (its first bytes, at most\n"
	  BB_XSTR(BB_EVENT_PKT_MAX) ") to FILE, a pcap file tcpdump and\nWireshark read",
	  bb_opt_string,
	  F(pcap_path), NG, NULL },
	BB_OPT_END
};
#undef F

/* events' options into r and a: -1 to go on, or the exit status. */
static int events_args(int argc, char **argv, struct run *r, struct events_args *a)
{
	int ret = bb_command_parse(&cmd_events_def, argc, argv, a, NULL, NULL);

	if (ret >= 0)
		return ret;
	r->count = a->count;
	r->kinds = a->kinds;
	r->verdicts = a->verdicts;
	memcpy(r->ifindex, a->ifindex, sizeof(r->ifindex));
	r->n_ifindex = a->n_ifindex;
	return -1;
}

/* What the ring holds now, or (--follow) until a signal, --count or --timeout. */
static int events_read(struct ring_buffer *rb, const struct events_args *a)
{
	struct timespec t0, now;
	int err;

	if (!a->follow)
		return ring_buffer__consume(rb);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (err = 0; !stop && err >= 0;) {
		err = ring_buffer__poll(rb, 200);
		if (err == -EINTR)
			err = 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (a->timeout > 0 && (double)(now.tv_sec - t0.tv_sec) +
		    (double)(now.tv_nsec - t0.tv_nsec) / 1e9 >= a->timeout)
			break;
	}
	return err;
}

static int cmd_events(int argc, char **argv)
{
	struct events_args a = { 0 };
	struct run r = { 0 };
	struct ring_buffer *rb = NULL;
	struct timespec mono, real;
	char path[512];
	int fd, err, ret = BB_EXIT_OK;

	err = events_args(argc, argv, &r, &a);
	if (err >= 0)
		return err;
	if (bb_require_root() || bb_require_bpffs(bb_opts.pin_dir) ||
	    bb_instance_open_said(bb_opts.pin_dir, &r.inst))
		return BB_EXIT_ERROR;
	fd = bb_pin_path(path, sizeof(path), bb_opts.pin_dir, BB_PIN_EVENTS) ? -1 :
	     bpf_obj_get(path);
	if (fd < 0) {
		pr_err("%s: no events ring here (an instance loaded by an older bloomblock: "
		       "unload --all and load again)\n", path);
		bb_instance_close(&r.inst);
		return BB_EXIT_ERROR;
	}
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	r.mono_to_real_ns = (__u64)real.tv_sec * 1000000000ULL + (__u64)real.tv_nsec -
			    ((__u64)mono.tv_sec * 1000000000ULL + (__u64)mono.tv_nsec);
	r.left = r.count;
	if (a.pcap_path) {
		char why[256];

		r.pcap = bb_pcap_open(a.pcap_path, BB_EVENT_PKT_MAX, why, sizeof(why));
		if (!r.pcap) {
			pr_err("%s: %s\n", a.pcap_path, why);
			ret = BB_EXIT_ERROR;
			goto out;
		}
	}
	rb = ring_buffer__new(fd, on_event, &r, NULL);
	if (!rb) {
		pr_err("cannot read the events ring: %s\n", strerror(errno));
		ret = BB_EXIT_ERROR;
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	err = events_read(rb, &a);
	if (err < 0 && err != -EINTR && err != -ECANCELED) {
		pr_err("reading the events ring: %s\n", strerror(-err));
		ret = BB_EXIT_ERROR;
	}
out:
	ring_buffer__free(rb);
	close(fd);
	if (r.pcap) {
		bb_pcap_close(r.pcap);
		if (!bb_msg.json)
			pr_info("%s: %lu packet%s, their first %u bytes at most\n", a.pcap_path,
				r.dumped, r.dumped == 1 ? "" : "s", BB_EVENT_PKT_MAX);
	}
	if (r.have_index)
		bb_index_close(&r.index);
	if (r.have_img)
		bb_image_close(&r.img);
	bb_instance_close(&r.inst);
	return ret;
}

/* ---- bloomblock top: the events of an interval, counted ---- */

struct tally_row {
	char key[BB_EVENT_KEY_MAX + 64];
	char kind[8];
	unsigned long hits, dropped;
};

struct tally {
	struct tally_row *v;
	size_t n, cap;
};

static struct tally_row *tally_add(struct tally *t, const char *key, const char *kind,
				   bool dropped)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].key, key) && !strcmp(t->v[i].kind, kind))
			break;
	if (i == t->n) {
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 64;
			struct tally_row *v = realloc(t->v, cap * sizeof(*v));

			if (!v)
				return NULL;
			t->v = v;
			t->cap = cap;
		}
		memset(&t->v[i], 0, sizeof(t->v[i]));
		snprintf(t->v[i].key, sizeof(t->v[i].key), "%s", key);
		snprintf(t->v[i].kind, sizeof(t->v[i].kind), "%s", kind);
		t->n++;
	}
	t->v[i].hits++;
	t->v[i].dropped += dropped;
	return &t->v[i];
}

static int cmp_hits(const void *a, const void *b)
{
	const struct tally_row *x = a, *y = b;

	if (x->hits != y->hits)
		return x->hits < y->hits ? 1 : -1;
	return strcmp(x->key, y->key);
}

struct top_run {
	struct run r;
	struct tally names, sources, lists;
	unsigned long events, false_positives;
};

static int on_top_event(void *ctx, void *data, size_t size)
{
	struct top_run *t = ctx;
	const struct bb_event *ev = data;
	char item[BB_EVENT_KEY_MAX + 64], src[64], list[600] = "";
	const struct bb_index_rec *rec = NULL;
	bool dropped;
	struct bb_entry e;

	if (size < sizeof(*ev))
		return 0;
	dropped = ev->verdict == BB_EV_DROPPED;
	if (event_entry(ev, &e, item, sizeof(item)))
		snprintf(item, sizeof(item), "?");
	open_live(&t->r, ev->map_id);
	if (t->r.have_img && t->r.have_index) {
		if (bb_image_attribute(t->r.img.blocks, &t->r.index, &e, &rec))
			snprintf(list, sizeof(list), "%s", bb_index_source(&t->r.index, rec->src));
		else
			snprintf(list, sizeof(list), "(a false positive: no list)");
	} else {
		snprintf(list, sizeof(list), "(no key index)");
	}
	if (!rec && t->r.have_index)
		t->false_positives++;
	inet_ntop(ev->family == 4 ? AF_INET : AF_INET6, ev->saddr, src, sizeof(src));
	if (ev->what != BB_EV_SRC && ev->what != BB_EV_DST)
		tally_add(&t->names, item, NAME_OF(what_names, ev->what), dropped);
	tally_add(&t->sources, src, "", dropped);
	tally_add(&t->lists, list, "", dropped);
	t->events++;
	return 0;
}

static json_t *rows_json(struct tally *t, size_t limit, double secs, const char *what)
{
	json_t *a = json_array();
	size_t i;

	if (t->n)	/* none: t->v may be NULL, which qsort() may not be given */
		qsort(t->v, t->n, sizeof(*t->v), cmp_hits);
	for (i = 0; i < t->n && i < limit; i++) {
		json_t *o = json_pack("{s:s, s:I, s:I, s:f}", what, t->v[i].key, "hits",
				      (json_int_t)t->v[i].hits, "dropped",
				      (json_int_t)t->v[i].dropped, "per_second",
				      (double)t->v[i].hits / secs);

		if (t->v[i].kind[0])
			json_object_set_new(o, "kind", json_string(t->v[i].kind));
		json_array_append_new(a, o);
	}
	return a;
}

static void rows_print(struct tally *t, size_t limit, double secs, const char *title)
{
	size_t i;

	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_hits);
	printf("\n%-52s %8s %8s %9s\n", title, "hits", "dropped", "per s");
	for (i = 0; i < t->n && i < limit; i++) {
		char label[sizeof(t->v[i].key) + sizeof(t->v[i].kind) + 2];

		snprintf(label, sizeof(label), "%s%s%s", t->v[i].kind[0] ? t->v[i].kind : "",
			 t->v[i].kind[0] ? " " : "", t->v[i].key);
		printf("%-52.52s %8lu %8lu %9.1f\n", label, t->v[i].hits, t->v[i].dropped,
		       (double)t->v[i].hits / secs);
	}
	if (!t->n)
		printf("(none)\n");
}

static void tally_reset(struct tally *t)
{
	t->n = 0;
}

/* One update of top: the interval's tallies (sorted here) and the counters' change (s0 to s1). */
static void top_report(struct top_run *t, const struct bb_stats *s0,
		       const struct bb_stats *s1, double secs, double interval, size_t limit,
		       bool tty)
{
	time_t now = time(NULL);
	char when[32];

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	if (bb_msg.json) {
		json_t *j = json_pack("{s:s, s:f, s:I, s:I, s:I, s:I, s:I, s:I}", "time", when,
			"interval", secs, "events", (json_int_t)t->events,
			"false_positives", (json_int_t)t->false_positives,
			"dropped", (json_int_t)(s1->dropped - s0->dropped),
			"packets", (json_int_t)(s1->packets - s0->packets),
			"events_limited", (json_int_t)(s1->events_limited - s0->events_limited),
			"events_lost", (json_int_t)(s1->events_lost - s0->events_lost));

		json_object_set_new(j, "names", rows_json(&t->names, limit, secs, "name"));
		json_object_set_new(j, "sources", rows_json(&t->sources, limit, secs, "address"));
		json_object_set_new(j, "lists", rows_json(&t->lists, limit, secs, "list"));
		json_dumpf(j, stdout, JSON_COMPACT);
		putchar('\n');
		json_decref(j);
		return;
	}
	if (tty)
		printf("\033[H\033[2J");
	printf("bloomblock top  %s  every %.1fs  %s\n", when, interval, bb_opts.pin_dir);
	printf("packets %.0f/s  dropped %.0f/s  events %.0f/s  (limited %llu, lost %llu; "
	       "false positives %lu)\n",
	       (double)(s1->packets - s0->packets) / secs,
	       (double)(s1->dropped - s0->dropped) / secs, (double)t->events / secs,
	       (unsigned long long)(s1->events_limited - s0->events_limited),
	       (unsigned long long)(s1->events_lost - s0->events_lost), t->false_positives);
	rows_print(&t->names, limit, secs, "top blocked names");
	rows_print(&t->sources, limit, secs, "top sources");
	rows_print(&t->lists, limit, secs, "hits per list");
}

/* top's options. */
struct top_opts {
	double interval;
	long rounds, limit;
};

static const struct bb_opt_range interval_range = { 0.1, 3600 }, rows_range = { 1, 1e18 };

static const struct bb_option top_options[] = {
	{ "interval", 0, "S", "seconds between updates (default 2)", bb_opt_double,
	  offsetof(struct top_opts, interval), NG, &interval_range },
	{ "count", 'n', "N", "N updates, then exit (-n 1: one, for scripts)", bb_opt_long,
	  offsetof(struct top_opts, rounds), NG, &count_range },
	{ "limit", 0, "ROWS", "rows of each table (default 10)", bb_opt_long,
	  offsetof(struct top_opts, limit), NG, &rows_range },
	BB_OPT_END
};
#undef NG

static int cmd_top(int argc, char **argv)
{
	struct top_opts to = { .interval = 2, .limit = 10 };
	struct top_run t = { 0 };
	struct ring_buffer *rb = NULL;
	struct bb_stats s0, s1;
	bool tty = isatty(STDOUT_FILENO);
	char path[512];
	int fd, err, ret = BB_EXIT_OK;
	long round;

	err = bb_command_parse(&cmd_top_def, argc, argv, &to, NULL, NULL);
	if (err >= 0)
		return err;
	if (bb_require_root() || bb_require_bpffs(bb_opts.pin_dir) ||
	    bb_instance_open_said(bb_opts.pin_dir, &t.r.inst))
		return BB_EXIT_ERROR;
	fd = bb_pin_path(path, sizeof(path), bb_opts.pin_dir, BB_PIN_EVENTS) ? -1 :
	     bpf_obj_get(path);
	rb = fd < 0 ? NULL : ring_buffer__new(fd, on_top_event, &t, NULL);
	if (!rb) {
		pr_err("%s: cannot read the events ring\n", path);
		ret = BB_EXIT_ERROR;
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (round = 0; !stop && (!to.rounds || round < to.rounds); round++) {
		struct timespec a, b;
		double secs;

		tally_reset(&t.names);
		tally_reset(&t.sources);
		tally_reset(&t.lists);
		t.events = t.false_positives = 0;
		bb_stats_read(&t.r.inst, &s0);
		clock_gettime(CLOCK_MONOTONIC, &a);
		do {
			err = ring_buffer__poll(rb, 100);
			clock_gettime(CLOCK_MONOTONIC, &b);
			secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
		} while (!stop && (err >= 0 || err == -EINTR) && secs < to.interval);
		ring_buffer__consume(rb);
		bb_stats_read(&t.r.inst, &s1);
		top_report(&t, &s0, &s1, secs, to.interval, (size_t)to.limit, tty);
		fflush(stdout);
	}
out:
	ring_buffer__free(rb);
	if (fd >= 0)
		close(fd);
	free(t.names.v);
	free(t.sources.v);
	free(t.lists.v);
	if (t.r.have_index)
		bb_index_close(&t.r.index);
	if (t.r.have_img)
		bb_image_close(&t.r.img);
	bb_instance_close(&t.r.inst);
	return ret;
}

const struct bb_command cmd_events_def = {
	.name = "events",
	.synopsis = "[-f] [-n N] [--timeout S] [--kind K]... [--verdict V]... [--interface IFACE]...\n"
		    "[--pcap FILE]",
	.summary = "the hits the filter saw: what, where, which list and line",
	.help = "The hit events the programs raised (load --events: at most RATE a second a\n"
		"CPU; what the limit or a full ring lost is counted in stats: events_limited,\n"
		"events_lost), one line each, oldest first, each with the list and line that\n"
		"hold what hit, or \"a false positive\" when no list does. Reading takes them\n"
		"out of the ring. -j: JSON lines.\n",
	.groups = { events_options },
	.run = cmd_events,
};

const struct bb_command cmd_top_def = {
	.name = "top",
	.synopsis = "[--interval S] [-n N] [--limit ROWS]",
	.summary = "the top blocked names and sources and hits per list, live",
	.help = "What the filter blocks, live: every S seconds the top blocked names and\n"
		"sources and the hits per list, from the hit events (reading takes them out\n"
		"of the ring, as events does), with rates; -j: a JSON object an update. On a\n"
		"terminal it redraws in place (plain ANSI).\n",
	.groups = { top_options },
	.run = cmd_top,
};

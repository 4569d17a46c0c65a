// SPDX-License-Identifier: GPL-2.0
/*
 * bloomblock events: the hit events the programs raise into the pinned ring buffer,
 * one line each (JSON lines with -j), each attributed through the key index as it was
 * when the event was raised: the list and line that hold what hit, or a false
 * positive. bloomblock top: the same events, counted. Both read them through the
 * ring's owner (kernel/events_hub.h), so that every reader gets every event.
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

#include "common.h"
#include "event_attr.h"
#include "events_hub.h"
#include "options.h"
#include "pcap_out.h"
#include "pins.h"

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
	struct bb_events_tally said;	/* the losses said so far */
	int ifindex_named;		/* the interface named last, asked again each second */
	char ifname[IF_NAMESIZE];
	__u64 ifname_ns;
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

/*
 * What the events' reader lost since it last said, said (on stderr: stdout stays the
 * events'): a reader that fell behind, an owner that stopped, one that was killed.
 */
static void say_losses(const struct bb_events_tally *t, struct bb_events_tally *said)
{
	if (t->lost_behind > said->lost_behind)
		pr_warn("events: %llu lost: this reader fell behind the ring's owner (pid %d), "
			"which keeps the last %u\n",
			(unsigned long long)(t->lost_behind - said->lost_behind), (int)t->owner,
			BB_HUB_LOG);
	if (t->lost_handover > said->lost_handover)
		pr_warn("events: %llu lost: read by a ring's owner that stopped before it sent "
			"them here\n",
			(unsigned long long)(t->lost_handover - said->lost_handover));
	if (t->vanished > said->vanished)
		pr_warn("events: the ring's owner went without a word (killed? or this reader "
			"took nothing for a second): what it had read and not sent here is not "
			"known; now %s\n", t->owner == getpid() ?
			"reading the ring here" : "served by the next owner");
	if (t->not_kept > said->not_kept)
		pr_info("events: %llu older ones no reader took were not kept (the owner keeps "
			"the last %u)\n", (unsigned long long)(t->not_kept - said->not_kept),
			BB_HUB_LOG);
	*said = *t;
}

/* What the event's attribution says, as events prints it after the item. */
static void attr_text(const struct bb_event_attr *a, const struct bb_event *ev, char *out,
		      size_t size)
{
	char where[BB_ATTR_SOURCE_MAX + 16];

	snprintf(where, sizeof(where), a->line ? "%s:%u" : "%s", a->source, a->line);
	switch (a->state) {
	case BB_ATTR_LISTED:
		snprintf(out, size, "listed (%s)", where);
		break;
	case BB_ATTR_UNLISTED:
		snprintf(out, size, "a false positive: no list holds it");
		break;
	case BB_ATTR_CHANGED:
		snprintf(out, size, "listed when raised? not known: the filter changed since "
			 "(live changes %u -> %u); now: %s%s%s", ev->epoch, a->index_epoch,
			 a->now_listed ? "listed (" : "not listed", a->now_listed ? where : "",
			 a->now_listed ? ")" : "");
		break;
	case BB_ATTR_RELOADED:
		snprintf(out, size, "listed when raised? not known: the filter was reloaded since");
		break;
	default:
		snprintf(out, size, "listed (maybe)");
	}
}

static const char *const attr_names[] = {
	[BB_ATTR_NO_INDEX] = "no_index", [BB_ATTR_LISTED] = "listed",
	[BB_ATTR_UNLISTED] = "false_positive", [BB_ATTR_CHANGED] = "changed",
	[BB_ATTR_RELOADED] = "reloaded",
};

/* The attribution's JSON fields, into j. */
static void attr_json(json_t *j, const struct bb_event_attr *a, const struct bb_event *ev)
{
	json_t *in = a->state == BB_ATTR_LISTED || (a->state == BB_ATTR_CHANGED && a->now_listed) ?
		     json_pack("{s:s, s:i}", "file", a->source, "line", (int)a->line) : json_null();

	json_object_set_new(j, "attribution", json_string(NAME_OF(attr_names, a->state)));
	json_object_set_new(j, "false_positive", a->state == BB_ATTR_LISTED ? json_false() :
			    a->state == BB_ATTR_UNLISTED ? json_true() : json_null());
	json_object_set_new(j, "live_changes", json_integer(ev->epoch));
	if (a->state == BB_ATTR_CHANGED) {
		json_object_set_new(j, "index_live_changes", json_integer(a->index_epoch));
		json_object_set_new(j, "listed_in", json_null());
		json_object_set_new(j, "now_listed_in", in);
	} else {
		json_object_set_new(j, "listed_in", in);
	}
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

/* One event shown (when the filters let it through): 1 when --count is reached. */
static int show_event(struct run *r, const struct bb_events_rec *rec)
{
	const struct bb_event *ev = &rec->ev;
	char item[BB_EVENT_KEY_MAX + 64], src[64], dst[64], when[40], ifname[IF_NAMESIZE] = "?";
	char said[BB_ATTR_SOURCE_MAX + 200];
	struct bb_entry e;
	__u64 real;
	time_t secs;
	struct tm tm;
	int i;

	if ((r->kinds && !(r->kinds & 1U << ev->what)) ||
	    (r->verdicts && !(r->verdicts & 1U << ev->verdict)))
		return 0;
	for (i = 0; i < r->n_ifindex; i++)
		if (r->ifindex[i] == (int)ev->ifindex)
			break;
	if (r->n_ifindex && i == r->n_ifindex)
		return 0;
	/* a flood's events are of one interface: its name asked once a second, not each */
	if ((int)ev->ifindex != r->ifindex_named || ev->time_ns - r->ifname_ns > 1000000000ULL) {
		if (!if_indextoname(ev->ifindex, r->ifname))
			snprintf(r->ifname, sizeof(r->ifname), "if%u", ev->ifindex);
		r->ifindex_named = (int)ev->ifindex;
		r->ifname_ns = ev->time_ns;
	}
	snprintf(ifname, sizeof(ifname), "%s", r->ifname);
	if (bb_event_entry(ev, &e, item, sizeof(item)))
		snprintf(item, sizeof(item), "?");
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
			attr_json(j, &rec->attr, ev);
			json_dumpf(j, stdout, JSON_COMPACT);
			putchar('\n');
			json_decref(j);
		}
	} else {
		attr_text(&rec->attr, ev, said, sizeof(said));
		printf("%s %s %s %s %s %s %s > %s: %s\n", when, ifname,
		       NAME_OF(hook_names, ev->hook), NAME_OF(verdict_names, ev->verdict),
		       NAME_OF(what_names, ev->what), item, src, dst, said);
	}
	fflush(stdout);
	return r->count && --r->left <= 0;	/* what is left stays untaken */
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

/*
 * The events no reader took yet, or (--follow) those and each as it comes, until a
 * signal, --count or --timeout: 0, or -errno (said).
 */
static int events_read(struct run *r, struct bb_events_reader *rd, const struct events_args *a)
{
	struct bb_events_rec rec;
	struct timespec t0, now;
	int got;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop) {
		got = bb_events_next(rd, &rec, 200);
		say_losses(bb_events_tally(rd), &r->said);
		if (got == -ENODATA)
			return 0;	/* without -f: all there was */
		if (got < 0)
			return got;
		if (got && show_event(r, &rec))
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (a->follow && a->timeout > 0 && (double)(now.tv_sec - t0.tv_sec) +
		    (double)(now.tv_nsec - t0.tv_nsec) / 1e9 >= a->timeout)
			break;
	}
	return 0;
}

static int cmd_events(int argc, char **argv)
{
	struct events_args a = { 0 };
	struct run r = { 0 };
	struct bb_events_reader *rd = NULL;
	struct timespec mono, real;
	int err, ret = BB_EXIT_OK;

	err = events_args(argc, argv, &r, &a);
	if (err >= 0)
		return err;
	if (bb_require_root() || bb_require_bpffs(bb_opts.pin_dir) ||
	    bb_instance_open_said(bb_opts.pin_dir, &r.inst))
		return BB_EXIT_ERROR;
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
	if (bb_events_open(&rd, bb_opts.pin_dir, a.follow ? BB_EVENTS_FOLLOW : BB_EVENTS_TAKE)) {
		ret = BB_EXIT_ERROR;	/* said */
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (events_read(&r, rd, &a))
		ret = BB_EXIT_ERROR;	/* said */
out:
	if (r.pcap) {
		const struct bb_events_tally *t = rd ? bb_events_tally(rd) : NULL;
		__u64 lost = t ? t->lost_behind + t->lost_handover : 0;

		bb_pcap_close(r.pcap);
		if (!bb_msg.json)
			pr_info("%s: %lu packet%s, their first %u bytes at most%s\n", a.pcap_path,
				r.dumped, r.dumped == 1 ? "" : "s", BB_EVENT_PKT_MAX,
				lost ? "; events lost by this reader: said above" : "");
	}
	bb_events_close(rd);
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
	__u64 lost;		/* events this reader lost in the interval (said on stderr) */
};

static void on_top_event(struct top_run *t, const struct bb_events_rec *rec)
{
	const struct bb_event *ev = &rec->ev;
	const struct bb_event_attr *a = &rec->attr;
	char item[BB_EVENT_KEY_MAX + 64], src[64], list[BB_ATTR_SOURCE_MAX + 64];
	bool dropped;
	struct bb_entry e;

	dropped = ev->verdict == BB_EV_DROPPED;
	if (bb_event_entry(ev, &e, item, sizeof(item)))
		snprintf(item, sizeof(item), "?");
	if (a->state == BB_ATTR_LISTED)
		snprintf(list, sizeof(list), "%s", a->source);
	else if (a->state == BB_ATTR_UNLISTED)
		snprintf(list, sizeof(list), "(a false positive: no list)");
	else if (a->state == BB_ATTR_CHANGED)
		snprintf(list, sizeof(list), "(changed since raised: not known)");
	else if (a->state == BB_ATTR_RELOADED)
		snprintf(list, sizeof(list), "(reloaded since raised: not known)");
	else
		snprintf(list, sizeof(list), "(no key index)");
	if (a->state == BB_ATTR_UNLISTED)
		t->false_positives++;
	inet_ntop(ev->family == 4 ? AF_INET : AF_INET6, ev->saddr, src, sizeof(src));
	if (ev->what != BB_EV_SRC && ev->what != BB_EV_DST)
		tally_add(&t->names, item, NAME_OF(what_names, ev->what), dropped);
	tally_add(&t->sources, src, "", dropped);
	tally_add(&t->lists, list, "", dropped);
	t->events++;
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
		json_t *j = json_pack("{s:s, s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "time", when,
			"interval", secs, "events", (json_int_t)t->events,
			"events_missed", (json_int_t)t->lost,
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
	if (t->lost)
		printf("missed here: %llu events (this view fell behind, or the events' owner "
		       "changed)\n", (unsigned long long)t->lost);
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
	struct bb_events_reader *rd = NULL;
	struct bb_stats s0, s1;
	bool tty = isatty(STDOUT_FILENO);
	int err, ret = BB_EXIT_OK;
	long round;

	err = bb_command_parse(&cmd_top_def, argc, argv, &to, NULL, NULL);
	if (err >= 0)
		return err;
	if (bb_require_root() || bb_require_bpffs(bb_opts.pin_dir) ||
	    bb_instance_open_said(bb_opts.pin_dir, &t.r.inst))
		return BB_EXIT_ERROR;
	if (bb_events_open(&rd, bb_opts.pin_dir, BB_EVENTS_NEW)) {
		ret = BB_EXIT_ERROR;	/* said */
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (round = 0; !stop && (!to.rounds || round < to.rounds); round++) {
		struct timespec a, b;
		double secs;

		const struct bb_events_tally *tl = bb_events_tally(rd);
		__u64 lost0 = tl->lost_behind + tl->lost_handover;
		struct bb_events_rec rec;

		tally_reset(&t.names);
		tally_reset(&t.sources);
		tally_reset(&t.lists);
		t.events = t.false_positives = 0;
		bb_stats_read(&t.r.inst, &s0);
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (secs = 0; !stop && secs < to.interval;) {
			err = bb_events_next(rd, &rec, (int)((to.interval - secs) * 1000) + 1);
			if (err < 0) {
				ret = BB_EXIT_ERROR;	/* said */
				goto out;
			}
			if (err)
				on_top_event(&t, &rec);
			say_losses(tl, &t.r.said);
			clock_gettime(CLOCK_MONOTONIC, &b);
			secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
		}
		t.lost = tl->lost_behind + tl->lost_handover - lost0;
		bb_stats_read(&t.r.inst, &s1);
		top_report(&t, &s0, &s1, secs, to.interval, (size_t)to.limit, tty);
		fflush(stdout);
	}
out:
	bb_events_close(rd);
	free(t.names.v);
	free(t.sources.v);
	free(t.lists.v);
	bb_instance_close(&t.r.inst);
	return ret;
}

const struct bb_command cmd_events_def = {
	.name = "events",
	.synopsis = "[-f] [-n N] [--timeout S] [--kind K]... [--verdict V]... [--interface IFACE]... [--pcap FILE]",
	.summary = "the hits the filter saw: what, where, which list and line",
	.help = "The hit events the programs raised (load --events: at most RATE a second a\n"
		"CPU; what the limit or a full ring lost is counted in stats: events_limited,\n"
		"events_lost), one line each, oldest first, each with the list and line that\n"
		"held what hit when it was raised, or \"a false positive\" when no list did.\n"
		"Without -f: the events no reader took yet. Every reader running gets every\n"
		"event: one reads the ring (bloomblock run when it runs, else the first\n"
		"reader) and serves the others; a reader that falls behind is told what it\n"
		"lost. -j: JSON lines.\n",
	.groups = { events_options },
	.run = cmd_events,
};

const struct bb_command cmd_top_def = {
	.name = "top",
	.synopsis = "[--interval S] [-n N] [--limit ROWS]",
	.summary = "the top blocked names and sources and hits per list, live",
	.help = "What the filter blocks, live: every S seconds the top blocked names and\n"
		"sources and the hits per list, with rates, from the hit events (each one,\n"
		"beside any other reader; it takes none from events); -j: a JSON object an\n"
		"update. On a terminal it redraws in place (plain ANSI).\n",
	.groups = { top_options },
	.run = cmd_top,
};

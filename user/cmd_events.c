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
#include "filter.h"
#include "list.h"
#include "pins.h"
#include "state.h"

static const char *const what_names[] = {
	[BB_EV_SRC] = "src", [BB_EV_DST] = "dst", [BB_EV_DNS] = "dns",
	[BB_EV_SNI] = "sni", [BB_EV_HOST] = "host", [BB_EV_URL] = "url",
};
static const char *const verdict_names[] = {
	[BB_EV_DROPPED] = "dropped", [BB_EV_FLAGGED] = "flagged", [BB_EV_ALLOWED] = "allowed",
};
static const char *const hook_names[] = {
	[BB_EV_XDP] = "xdp", [BB_EV_TC_INGRESS] = "tc-ingress", [BB_EV_TC_EGRESS] = "tc-egress",
};

#define NAME_OF(table, i) \
	((i) < sizeof(table) / sizeof(table[0]) && table[i] ? table[i] : "?")

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: bloomblock events [-f] [-n N] [--timeout S] [--kind K] [--verdict V]\n"
		"                         [--interface IFACE]\n"
		"\n"
		"The hit events the programs raised (load --events: at most RATE a second a\n"
		"CPU; what the limit or a full ring lost is counted in stats: events_limited,\n"
		"events_lost), one line each, oldest first, each with the list and line that\n"
		"hold what hit, or \"a false positive\" when no list does. Reading takes them\n"
		"out of the ring.\n"
		"  -f, --follow       wait for more (until interrupted, -n or --timeout)\n"
		"  -n, --count N      stop after N events\n"
		"      --timeout S    with --follow: stop after S seconds\n"
		"      --kind K       src, dst, dns, sni, host, url (repeatable)\n"
		"      --verdict V    dropped, flagged, allowed (repeatable)\n"
		"      --interface I  events of interface I only (repeatable)\n"
		"-j: JSON lines.\n");
}

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
	real = ev->time_ns + r->mono_to_real_ns;
	secs = (time_t)(real / 1000000000ULL);
	gmtime_r(&secs, &tm);
	i = (int)strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + i, sizeof(when) - (size_t)i, ".%06lluZ",
		 (unsigned long long)(real % 1000000000ULL / 1000));
	if (bb_opts.json) {
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

int cmd_events(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "follow", no_argument, NULL, 'f' },
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "kind", required_argument, NULL, 'k' },
		{ "verdict", required_argument, NULL, 'v' },
		{ "interface", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run r = { 0 };
	struct ring_buffer *rb = NULL;
	struct timespec mono, real;
	double timeout = 0;
	bool follow = false;
	char path[512], *end;
	int opt, fd, err, ret = BB_EXIT_OK;

	while ((opt = getopt_long(argc, argv, "fn:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			follow = true;
			break;
		case 'n':
			r.count = strtol(optarg, &end, 10);
			if (*end || r.count <= 0) {
				pr_err("--count: a number above 0\n");
				return BB_EXIT_USAGE;
			}
			break;
		case 't':
			timeout = strtod(optarg, &end);
			if (*end || timeout <= 0) {
				pr_err("--timeout: seconds above 0\n");
				return BB_EXIT_USAGE;
			}
			break;
		case 'k':
			if (name_bit(what_names, sizeof(what_names) / sizeof(what_names[0]), optarg,
				     &r.kinds)) {
				pr_err("--kind: src, dst, dns, sni, host or url, not %s\n", optarg);
				return BB_EXIT_USAGE;
			}
			break;
		case 'v':
			if (name_bit(verdict_names, sizeof(verdict_names) / sizeof(verdict_names[0]),
				     optarg, &r.verdicts)) {
				pr_err("--verdict: dropped, flagged or allowed, not %s\n", optarg);
				return BB_EXIT_USAGE;
			}
			break;
		case 'i':
			if (r.n_ifindex == 16 || !(r.ifindex[r.n_ifindex] = (int)if_nametoindex(optarg))) {
				pr_err("--interface %s: no such interface here\n", optarg);
				return BB_EXIT_USAGE;
			}
			r.n_ifindex++;
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
	if (bb_require_root() || bb_require_bpffs(bb_opts.pin_dir))
		return BB_EXIT_USAGE;
	err = bb_instance_open(bb_opts.pin_dir, &r.inst);
	if (err) {
		pr_err("nothing is loaded under %s: %s\n", bb_opts.pin_dir, strerror(-err));
		return BB_EXIT_USAGE;
	}
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
	rb = ring_buffer__new(fd, on_event, &r, NULL);
	if (!rb) {
		pr_err("cannot read the events ring: %s\n", strerror(errno));
		ret = BB_EXIT_ERROR;
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!follow) {
		err = ring_buffer__consume(rb);
	} else {
		struct timespec t0, now;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (err = 0; !stop && err >= 0;) {
			err = ring_buffer__poll(rb, 200);
			if (err == -EINTR)
				err = 0;
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (timeout > 0 && (double)(now.tv_sec - t0.tv_sec) +
			    (double)(now.tv_nsec - t0.tv_nsec) / 1e9 >= timeout)
				break;
		}
	}
	if (err < 0 && err != -EINTR && err != -ECANCELED) {
		pr_err("reading the events ring: %s\n", strerror(-err));
		ret = BB_EXIT_ERROR;
	}
out:
	ring_buffer__free(rb);
	close(fd);
	if (r.have_index)
		bb_index_close(&r.index);
	if (r.have_img)
		bb_image_close(&r.img);
	bb_instance_close(&r.inst);
	return ret;
}

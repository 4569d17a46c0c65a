// SPDX-License-Identifier: GPL-2.0
/*
 * No false negatives under hostile input: large random lists of every kind through
 * the real loaded XDP program (BPF_PROG_TEST_RUN), after a build, a reload, live adds
 * and live deletes. A list holds IPv4 and IPv6 addresses and prefixes of every length
 * (/1 to /32; /1 to /64 and /128: lengths spread over all 128 make no bounded filter,
 * which load refuses saying so), names of every shape up to the limits (63-byte labels,
 * 253-byte names, many labels, digits and hyphens, punycode), wildcards (*.name) and
 * URLs with every path shape (a bare host, /, a file, a directory, deep paths, query
 * strings). Every item probes the program with what it must drop:
 *
 *   - an address or prefix: a datagram from its first and last address and from a
 *     random one inside it;
 *   - a name: a DNS query for it and for a subdomain, and a ClientHello naming it;
 *     a wildcard: a query for a subdomain;
 *   - a URL: an HTTP request for it;
 *
 * and every probe must be dropped, whatever else the list holds: a miss is a false
 * negative, said with the item and the probe. The phases: the list built and swapped
 * in; built again under another seed and swapped in (a reload); 2000 more items added
 * live (bb_live_add(), as `bloomblock add` does, over the live map); then a third of
 * the original items and half of the added ones deleted live: what is still listed
 * must still be dropped.
 *
 *   BB_NOFN_ITEMS=N   items of each kind (default 2000; BB_QUICK=1: 400)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bb_names.h"
#include "filter.h"
#include "list.h"
#include "pins.h"
#include "lib/harness.h"
#include "lib/pkt.h"

#define MAX_FRAME	2048
/* the names' and URLs' probes come from it: in 128.0.0.0/1, which no listed prefix is */
#define SOURCE4		"192.0.2.254"

static char dir[] = "/tmp/bb_test_nofn.XXXXXX";
static char index_path[600], shadow_path[600];

static __u64 rnd(void)
{
	return harness_rng();
}

/* ---- the items -------------------------------------------------------------------------- */

static void label(char *out, size_t len)
{
	static const char first[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	static const char inner[] = "abcdefghijklmnopqrstuvwxyz0123456789-";
	size_t i;

	for (i = 0; i < len; i++)
		out[i] = i == 0 || i + 1 == len ? first[rnd() % (sizeof(first) - 1)] :
			 inner[rnd() % (sizeof(inner) - 1)];
	out[len] = '\0';
}

/* A name of some shape: short, long labels, many labels, at the 253-byte limit. */
static void name_make(char *out, size_t cap, size_t i)
{
	char l[64];
	size_t o = 0, labels, n;

	switch (i % 6) {
	case 0:	labels = 2; break;
	case 1: labels = 3 + rnd() % 3; break;
	case 2: labels = 8 + rnd() % 20; break;	/* many labels */
	default: labels = 2 + rnd() % 4; break;
	}
	for (n = 0; n < labels; n++) {
		size_t len = i % 6 == 3 ? 63 : i % 6 == 4 ? 30 + rnd() % 34 : 1 + rnd() % 12;

		if (n + 1 == labels) {
			snprintf(out + o, cap - o, "%s", rnd() % 2 ? "test" : "example");
			return;
		}
		if (i % 6 == 5 && n == 0) {
			snprintf(l, sizeof(l), "xn--%s", "bcher-kva");
		} else {
			label(l, len);
		}
		if (o + strlen(l) + 10 >= cap || o + strlen(l) + 10 > 245)
			break;
		o += (size_t)snprintf(out + o, cap - o, "%s.", l);
	}
	snprintf(out + o, cap - o, "%s", "test");
}

struct item {
	char text[300];		/* the list line */
	char canon[320];	/* the entry it makes, as bloomblock writes it: items of one */
	struct bb_entry e;
	unsigned int labels;	/* a name's */
	bool deleted;
};

static struct item *items;
static size_t n_items;

static void item_add(const char *text)
{
	struct item *it = &items[n_items];
	char tb[BB_KEY_MAX + 64];
	const char *why;

	snprintf(it->text, sizeof(it->text), "%s", text);
	if (bb_list_parse_item(it->text, &it->e, tb, sizeof(tb), &why) < 0) {
		printf("# not an item: %s (%s)\n", text, why ? why : "?");
		return;
	}
	bb_entry_text(&it->e, it->canon, sizeof(it->canon));
	it->labels = 1;
	for (; *text; text++)
		it->labels += *text == '.';
	it->e.text = NULL;	/* the probes need no text of it */
	n_items++;
}

static void items_make(size_t per_kind, bool added)
{
	char t[300], name[260];
	size_t i;

	for (i = 0; i < per_kind; i++) {
		unsigned int plen = 1 + (unsigned int)(i % 32);
		/* in 0.0.0.0/1, so that however short, no prefix covers the names' source */
		__u32 a = (__u32)rnd() & 0x7fffffffU;
		__u8 a6[16];
		char s6[64];
		size_t b;

		/* IPv4, every length: the bits past the prefix random too (the parser masks) */
		snprintf(t, sizeof(t), "%u.%u.%u.%u/%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255,
			 a & 255, added ? 32 : plen);
		item_add(t);
		/* IPv6, every length */
		for (b = 0; b < 16; b++)
			a6[b] = (__u8)rnd();
		a6[0] = 0x20;
		a6[1] = 0x01;
		a6[2] = 0x0d;
		a6[3] = 0xb8;	/* 2001:db8::/32, whatever the length */
		inet_ntop(AF_INET6, a6, s6, sizeof(s6));
		snprintf(t, sizeof(t), "%s/%u", s6, added ? 128 :
			 i % 5 == 4 ? 128 : 1 + (unsigned int)(i % 64));
		item_add(t);
		/* names, wildcards */
		name_make(name, sizeof(name), i);
		item_add(name);
		if (i % 4 == 0) {
			name_make(name, 200, i + 1);
			snprintf(t, sizeof(t), "*.%s", name);
			item_add(t);
		}
		/* URLs of every path shape */
		name_make(name, 120, i % 3);
		switch (i % 7) {
		case 0: snprintf(t, sizeof(t), "http://%s/", name); break;
		case 1: snprintf(t, sizeof(t), "http://%s/index.html", name); break;
		case 2: snprintf(t, sizeof(t), "http://%s/dir/", name); break;
		case 3: snprintf(t, sizeof(t), "http://%s/a/b/c/d/e/f/g.php", name); break;
		case 4: snprintf(t, sizeof(t), "http://%s/x%llx?q=%llu", name,
				 (unsigned long long)rnd(), (unsigned long long)(rnd() % 1000)); break;
		case 5: snprintf(t, sizeof(t), "%s/path/to/file.bin", name); break;
		default: snprintf(t, sizeof(t), "http://%s/%s/", name, "long-directory-name"); break;
		}
		if (!added || i % 2)
			item_add(t);
	}
}

/* ---- the probes ---------------------------------------------------------------------------- */

static __u32 run_frame(int fd, const __u8 *frame, size_t len)
{
	__u32 retval = XDP_PASS;

	if (!len || harness_run(fd, false, frame, len, &retval, NULL))
		return 0xffffffff;
	return retval;
}

static __u32 probe_addr(int fd, const struct bb_entry *e, int which)
{
	bool v4 = e->kind == BB_ENTRY_IP4;
	unsigned int bits = v4 ? 32 : 128, b;
	__u8 addr[16], frame[MAX_FRAME], pl[4] = { 'n', 'o', 'f', 'n' };
	struct pkt_frame f = { .net = v4 ? PKT_IPV4 : PKT_IPV6, .saddr_bin = addr,
			       .sport = 40000, .dport = 9 };

	memcpy(addr, e->addr, sizeof(addr));
	/* the first address (which 0), the last (1), a random one (2) of the prefix */
	for (b = e->plen; b < bits; b++) {
		int set = which == 1 ? 1 : which == 2 ? (int)(rnd() & 1) : 0;

		if (set)
			addr[b / 8] |= (__u8)(0x80 >> (b % 8));
		else
			addr[b / 8] &= (__u8)~(0x80 >> (b % 8));
	}
	return run_frame(fd, frame, pkt_frame(&f, pl, sizeof(pl), frame, sizeof(frame)));
}

static __u32 probe_dns(int fd, const char *name)
{
	struct pkt_dns q = { .name = name };
	struct pkt_frame f = { .net = PKT_IPV4, .saddr = SOURCE4, .sport = 40001, .dport = 53 };
	__u8 payload[600], frame[MAX_FRAME];
	size_t n = pkt_dns(&q, payload, sizeof(payload));

	return n ? run_frame(fd, frame, pkt_frame(&f, payload, n, frame, sizeof(frame))) : 0xffffffff;
}

static __u32 probe_tls(int fd, const char *name, __u16 sport)
{
	struct pkt_hello h = { .sni = name };
	struct pkt_frame f = { .net = PKT_IPV4, .proto = IPPROTO_TCP, .saddr = SOURCE4,
			       .sport = sport, .dport = 443, .seq = 1 };
	__u8 payload[1600], frame[MAX_FRAME];
	size_t off, n = pkt_hello(&h, payload, sizeof(payload), &off);
	size_t len = pkt_frame(&f, payload, n, frame, sizeof(frame));

	if (len > 34 + 20)
		frame[14 + 20 + 13] = 0x18;	/* PSH, ACK */
	return n ? run_frame(fd, frame, len) : 0xffffffff;
}

static __u32 probe_http(int fd, const char *url, __u16 sport)
{
	const char *host = url, *path;
	char h[260];
	struct pkt_frame f = { .net = PKT_IPV4, .proto = IPPROTO_TCP, .saddr = SOURCE4,
			       .sport = sport, .dport = 80, .seq = 1 };
	__u8 payload[1200], frame[MAX_FRAME];
	size_t n, len;

	if (!strncmp(host, "http://", 7))
		host += 7;
	path = strchr(host, '/');
	snprintf(h, sizeof(h), "%.*s", (int)(path ? path - host : (long)strlen(host)), host);
	n = pkt_http_get(payload, sizeof(payload), path ? path : "/", h, NULL);
	len = pkt_frame(&f, payload, n, frame, sizeof(frame));
	if (len > 34 + 20)
		frame[14 + 20 + 13] = 0x18;
	return n ? run_frame(fd, frame, len) : 0xffffffff;
}

/* Every probe of every item not deleted: dropped. The misses, counted and the first said. */
static size_t probe_all(int fd, const char *phase, size_t *probes)
{
	size_t i, missed = 0, said = 0;

	*probes = 0;
	for (i = 0; i < n_items; i++) {
		const struct item *it = &items[i];
		char sub[320], what[80] = "";
		__u32 v;
		int k;

		if (it->deleted)
			continue;
		for (k = 0; k < 4; k++) {
			const char *text = it->text;

			switch (it->e.kind) {
			case BB_ENTRY_IP4:
			case BB_ENTRY_IP6:
				if (k == 3)
					continue;
				v = probe_addr(fd, &it->e, k);
				snprintf(what, sizeof(what), "a datagram from its %s address",
					 k == 0 ? "first" : k == 1 ? "last" : "a random");
				break;
			case BB_ENTRY_NAME:
				/* subdomains match while the listed name has at most
				 * BB_NAME_MAX_PARENT_LABELS labels (docs/DESIGN.md): past
				 * that it matches only itself */
				if (text[0] == '*') {	/* a wildcard: its subdomains */
					if (k > 1 || it->labels - 1 > BB_NAME_MAX_PARENT_LABELS)
						continue;
					snprintf(sub, sizeof(sub), "%s%s", k ? "deep.er." : "w",
						 text + 1);
					v = k ? probe_tls(fd, sub, (__u16)(2000 + i % 50000)) :
						probe_dns(fd, sub);
					snprintf(what, sizeof(what), "%s for %s", k ? "a ClientHello" :
						 "a DNS query", sub);
					break;
				}
				if (k == 0) {
					v = probe_dns(fd, text);
					snprintf(what, sizeof(what), "a DNS query for it");
				} else if (k == 1) {
					snprintf(sub, sizeof(sub), "sub.%s", text);
					if (strlen(sub) > 253 || it->labels > BB_NAME_MAX_PARENT_LABELS)
						continue;
					v = probe_dns(fd, sub);
					snprintf(what, sizeof(what), "a DNS query for sub.");
				} else if (k == 2) {
					v = probe_tls(fd, text, (__u16)(2000 + i % 50000));
					snprintf(what, sizeof(what), "a ClientHello naming it");
				} else {
					continue;
				}
				break;
			case BB_ENTRY_URL:
				if (k)
					continue;
				v = probe_http(fd, text, (__u16)(2000 + i % 50000));
				snprintf(what, sizeof(what), "an HTTP request for it");
				break;
			default:
				continue;
			}
			(*probes)++;
			if (v == XDP_DROP)
				continue;
			missed++;
			if (said++ < 5)
				printf("# %s: %s: %s passed (verdict %u): a false negative\n", phase,
				       text, what, v);
		}
	}
	return missed;
}

/* ---- the phases ------------------------------------------------------------------------------ */

static int build_push(__u64 seed, struct bb_filter *f, struct bb_list *list)
{
	struct bb_filter_opts opts = { .seed = seed, .threads = 2, .flags = BB_HDR_F_DROP };
	const struct bb_header *hdr;
	struct bb_index idx;
	char msg[256] = "";
	size_t i;
	int err;

	bb_list_init(list);
	for (i = 0; i < n_items; i++)
		if (!items[i].deleted &&
		    bb_list_parse_line(list, items[i].text, strlen(items[i].text), NULL) != 1)
			printf("# not a line: %s\n", items[i].text);
	err = bb_filter_build(f, list, &opts);
	err = err ?: harness_push_filter(f, true, msg, sizeof(msg));
	if (err) {
		printf("# %s (%d)\n", msg, err);
		return err;
	}
	/* the key index of what is live, as load writes it: what add and del go by */
	err = bb_filter_index(f, list, 2, &idx);
	if (!err) {
		const char *src = "nofn";
		struct bb_index_meta meta = { .seed = f->hdr.seed, .fp = 0.001 };

		hdr = harness_live_header();
		meta.generation = hdr->generation;
		if (hdr->allow_blocks)
			meta.map_id = ((const struct bb_allow_header *)
				       &harness.img.blocks[bb_allow_index(hdr->nblocks)])->map_id;
		err = bb_index_write_meta(&idx, index_path, &src, 1, &meta);
		bb_index_free(&idx);
	}
	unlink(shadow_path);
	return err;
}

/* Live adds or deletes over the live map, as bloomblock add and del do: 0 or -errno. */
static int live_change(size_t from, size_t to, bool add, size_t every)
{
	double fp[BB_CHECK_MAX];
	struct bb_image img;
	struct bb_live l;
	size_t i;
	int err = bb_image_open_writable(&harness.inst, &img);

	if (err)
		return err;
	err = bb_live_open(&l, img.mem, index_path, shadow_path);
	if (err) {
		bb_image_close(&img);
		return err;
	}
	for (i = from; i < to && !err; i++) {
		struct item *it = &items[i];
		char tb[BB_KEY_MAX + 64];
		const char *why;
		struct bb_entry e;
		const struct bb_index_rec *holder;
		int r;

		if (every && i % every)
			continue;
		bb_list_parse_item(it->text, &e, tb, sizeof(tb), &why);
		r = add ? bb_live_add(&l, &e) : bb_live_del(&l, &e, &holder);
		if (r < 0) {
			err = r;
		} else if (!add && r == 1) {
			size_t j;

			/* every item that is this entry goes with it (two /1s are one) */
			for (j = 0; j < n_items; j++)
				if (!strcmp(items[j].canon, it->canon))
					items[j].deleted = true;
		}
	}
	err = err ?: bb_live_commit(&l, index_path, shadow_path, 0.9, fp);
	bb_live_close(&l);
	bb_image_close(&img);
	return err;
}

int main(int argc, char **argv)
{
	const char *ni = getenv("BB_NOFN_ITEMS"), *quick = getenv("BB_QUICK");
	size_t per = ni ? strtoul(ni, NULL, 0) : quick && !strcmp(quick, "1") ? 400 : 2000;
	size_t base, probes, missed, n_del = 0, i;
	struct bb_filter f;
	struct bb_list list;
	int xdp_fd, err;

	if (!harness_begin(argc, argv, "bloomblock no-false-negative BPF_PROG_TEST_RUN"))
		return harness_end();
	if (!harness_load())
		return harness_end();
	if (!ASSERT_TRUE(mkdtemp(dir), "a scratch directory"))
		return harness_end();
	snprintf(index_path, sizeof(index_path), "%s/index.bin", dir);
	snprintf(shadow_path, sizeof(shadow_path), "%s/shadow.bin", dir);
	xdp_fd = bpf_program__fd(harness.skel->progs.bloomblock_xdp);
	items = calloc(per * 8 + 16, sizeof(*items));
	if (!ASSERT_TRUE(items, "room for the items"))
		return harness_end();
	items_make(per, false);
	base = n_items;
	printf("# %zu items: addresses and prefixes of every length, names, wildcards, URLs\n",
	       base);

	err = build_push(HARNESS_SEED, &f, &list);
	ASSERT_EQ(err, 0, "the random list built and swapped in");
	missed = probe_all(xdp_fd, "built", &probes);
	tap_result(!err && !missed, "no false negative after a build", "%zu of %zu probes passed",
		   missed, probes);
	printf("# %zu probes\n", probes);
	bb_filter_free(&f);
	bb_list_free(&list);

	err = build_push(HARNESS_SEED ^ 0x5eed, &f, &list);
	missed = probe_all(xdp_fd, "reloaded", &probes);
	tap_result(!err && !missed, "no false negative after a reload (another seed, swapped in)",
		   "%zu of %zu probes passed", missed, probes);
	bb_filter_free(&f);
	bb_list_free(&list);

	items_make(per / 4, true);
	err = live_change(base, n_items, true, 0);
	missed = probe_all(xdp_fd, "added", &probes);
	tap_result(!err && !missed, "no false negative after live adds, old items and new",
		   "err %d; %zu of %zu probes passed (%zu added)", err, missed, probes,
		   n_items - base);

	err = live_change(0, base, false, 3);
	err = err ?: live_change(base, n_items, false, 2);
	for (i = 0; i < n_items; i++)
		n_del += items[i].deleted;
	printf("# %zu items added live, %zu deleted\n", n_items - base, n_del);
	missed = probe_all(xdp_fd, "deleted", &probes);
	tap_result(!err && !missed && n_del > n_items / 5, "no false negative after live deletes: "
		   "what is still listed still drops", "err %d; %zu of %zu probes passed (%zu "
		   "deleted)", err, missed, probes, n_del);

	unlink(index_path);
	unlink(shadow_path);
	rmdir(dir);
	free(items);
	return harness_end();
}

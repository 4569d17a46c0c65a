// SPDX-License-Identifier: GPL-2.0
/*
 * The instance's numbers in Prometheus's text exposition format (version 0.0.4):
 * what `stats --prometheus` prints for node_exporter's textfile collector, and what
 * the daemon's /metrics will serve. Every name starts bloomblock_; counters end
 * _total; every family has its HELP and TYPE lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>

#include "attach.h"
#include "common.h"
#include "confirm.h"
#include "feed.h"
#include "filter.h"
#include "metrics.h"
#include "pins.h"
#include "reload_guard.h"
#include "state.h"

static const struct {
	const char *name, *help;
	size_t offset;
} counters[] = {
#define BB_METRIC_ROW(field, text) { #field, text, offsetof(struct bb_stats, field) },
	BB_STATS_FIELDS(BB_METRIC_ROW)
#undef BB_METRIC_ROW
};

/* A label value or HELP text, escaped as the format wants (\\, \n; and \" in labels). */
static void put_escaped(FILE *f, const char *s, bool label)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (label && *s == '"')
			fputs("\\\"", f);
		else
			fputc(*s, f);
	}
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s ", name);
	put_escaped(f, help, false);
	fprintf(f, "\n# TYPE %s %s\n", name, type);
}

/* The feeds bloomblock run fetches (feeds.json): a family each, a list label each. */
static void feeds(FILE *f)
{
	static const struct {
		const char *name, *type, *help;
	} fam[] = {
		{ "bloomblock_feed_stale", "gauge", "1 while a feed's last fetch failed and its "
		  "last good copy (if any) is what is loaded" },
		{ "bloomblock_feed_age_seconds", "gauge", "seconds since the feed's server last "
		  "answered well (200 or 304)" },
		{ "bloomblock_feed_stale_since_timestamp_seconds", "gauge", "when the feed's "
		  "fetches began to fail (Unix time); 0 while fresh" },
		{ "bloomblock_feed_last_success_timestamp_seconds", "gauge", "when the feed's "
		  "server last answered well (Unix time)" },
		{ "bloomblock_feed_failures", "gauge", "the feed's failed fetches in a row" },
		{ "bloomblock_feed_entries", "gauge", "entries in the feed's last good copy" },
		{ "bloomblock_feed_bytes", "gauge", "bytes of the feed's last good copy" },
		{ "bloomblock_feed_refused", "gauge", "1 while the feed's last fetch was refused by "
		  "the reload guard (binary data, an HTML page, a JSON error body, lines that do "
		  "not read, a shrink) and its last good copy (if any) is what is loaded" },
	};
	struct bb_feed *fd = calloc(BB_FEEDS_MAX, sizeof(*fd));
	char path[512];
	int n = fd && !bb_state_path(path, sizeof(path), BB_STATE_FEEDS) ?
		bb_feeds_load(path, fd, BB_FEEDS_MAX) : 0, i;
	time_t now = time(NULL);
	size_t k;

	for (k = 0; n > 0 && k < sizeof(fam) / sizeof(fam[0]); k++) {
		family(f, fam[k].name, fam[k].type, fam[k].help);
		for (i = 0; i < n; i++) {
			const struct bb_feed *e = &fd[i];
			long long v[] = { bb_feed_stale(e), e->fetched ? now - e->fetched : -1,
					  e->stale_since, e->fetched, e->failures,
					  (long long)e->entries, (long long)e->bytes,
					  e->refused[0] != '\0' };

			if (v[k] < 0)
				continue;	/* an age of what was never fetched */
			fprintf(f, "%s{list=\"", fam[k].name);
			put_escaped(f, e->url, true);
			fprintf(f, "\"} %lld\n", v[k]);
		}
	}
	free(fd);
}

/* The daemon's loads (run.json): the last one's time and result, and their counts. */
static void reloads(FILE *f)
{
	char path[512];
	json_t *r;

	if (bb_state_path(path, sizeof(path), BB_STATE_RUN) ||
	    !(r = json_load_file(path, 0, NULL)))
		return;
	family(f, "bloomblock_last_reload_timestamp_seconds", "gauge",
	       "when bloomblock run last loaded its config's lists (Unix time)");
	fprintf(f, "bloomblock_last_reload_timestamp_seconds %lld\n",
		(long long)json_integer_value(json_object_get(r, "time")));
	family(f, "bloomblock_last_reload_success", "gauge",
	       "1 when bloomblock run's last load succeeded; 0: it failed and the filter before "
	       "stays");
	fprintf(f, "bloomblock_last_reload_success %d\n", json_is_true(json_object_get(r, "ok")));
	family(f, "bloomblock_reloads_total", "counter",
	       "loads bloomblock run made (start, SIGHUP, refresh), by result");
	fprintf(f, "bloomblock_reloads_total{result=\"ok\"} %lld\n",
		(long long)json_integer_value(json_object_get(r, "ok_total")));
	fprintf(f, "bloomblock_reloads_total{result=\"failed\"} %lld\n",
		(long long)json_integer_value(json_object_get(r, "failed_total")));
	json_decref(r);
}

/*
 * The FPR from the bits set: a walk of every block (20 MB at 10^7 keys, most of a
 * scrape's time), so kept for the filter it was taken of: its map, its generation and
 * its epoch (live add and del move it on; nothing else changes the bits). /metrics is
 * served from one thread.
 */
static double fill_fpr(const struct bb_image *img)
{
	static struct {
		bool valid;
		__u32 map_id, epoch;
		__u64 generation;
		double fpr;
	} kept;
	const struct bb_header *hdr = (const void *)img->blocks;
	__u32 epoch = __atomic_load_n(&((const struct bb_config *)&img->blocks[BB_CONFIG_INDEX])
				      ->confirm_epoch, __ATOMIC_ACQUIRE);

	if (!kept.valid || kept.map_id != img->map_id || kept.generation != hdr->generation ||
	    kept.epoch != epoch) {
		kept.fpr = bb_image_key_fpr(img->blocks);
		kept.map_id = img->map_id;
		kept.generation = hdr->generation;
		kept.epoch = epoch;
		kept.valid = true;
	}
	return kept.fpr;
}

/*
 * The counters are a per-CPU array an instance with a slot a hook (BB_STATS_SLOTS,
 * bpf/bloomblock.bpf.c): each series is one hook's, labelled with the hook and the
 * interfaces attached at it now (several: their sum, in one series; none: ""). An
 * instance an earlier version loaded counts every hook in slot 0: hook "any".
 */
#define PER_HOOK	"; by hook, and the interfaces attached at it (bloomblock_attached_info)"

struct hook_series {
	struct bb_stats s;
	const char *hook;
	char labels[512];	/* interface="...",hook="..." */
};

/*
 * The interfaces attached at hook (all: BB_HOOK_MAX), comma-separated, escaped as a
 * label value (an interface's name may hold " and \\), into ifs.
 */
static void hook_interfaces(const struct bb_attachment *att, int n_att, int hook, char *ifs,
			    size_t size)
{
	size_t o = 0;
	const char *c;
	int i;

	for (i = 0; i < n_att; i++) {
		if ((hook != BB_HOOK_MAX && (int)att[i].hook != hook) ||
		    o + 2 * strlen(att[i].ifname) + 2 >= size)
			continue;
		if (o)
			ifs[o++] = ',';
		for (c = att[i].ifname; *c; c++) {
			if (*c == '"' || *c == '\\')
				ifs[o++] = '\\';
			ifs[o++] = *c;
		}
	}
	ifs[o] = '\0';
}

/*
 * The series: each hook's counters and labels, then slot 0's ("any") when it counted
 * anything. Returns how many, or -errno.
 */
static int hook_series(const struct bb_instance *inst, const struct bb_attachment *att, int n_att,
		       struct hook_series *hs)
{
	static const int hooks[] = { BB_HOOK_XDP, BB_HOOK_TC_INGRESS, BB_HOOK_TC_EGRESS, BB_HOOK_MAX };
	static const struct bb_stats zero;
	char ifs[256];
	int n = 0, err;
	size_t h;

	for (h = 0; h < sizeof(hooks) / sizeof(hooks[0]); h++) {
		/* slot: the hook's enum bb_event_hook; slot 0 for "any" */
		err = bb_stats_read_hook_fd(inst->stats_fd, hooks[h] == BB_HOOK_MAX ? 0 : hooks[h] + 1,
					    &hs[n].s);
		if (err)
			return err;
		if (hooks[h] == BB_HOOK_MAX && !memcmp(&hs[n].s, &zero, sizeof(zero)))
			continue;
		hs[n].hook = hooks[h] == BB_HOOK_MAX ? "any" : bb_hook_name(hooks[h]);
		hook_interfaces(att, n_att, hooks[h], ifs, sizeof(ifs));
		snprintf(hs[n].labels, sizeof(hs[n].labels), "interface=\"%s\",hook=\"%s\"", ifs,
			 hs[n].hook);
		n++;
	}
	return n;
}

/* One counter family, a series a hook. */
static void counter_family(FILE *f, size_t c, const struct hook_series *hs, int n)
{
	char name[96], help[512];
	int i;

	snprintf(name, sizeof(name), "bloomblock_%s_total", counters[c].name);
	snprintf(help, sizeof(help), "%s" PER_HOOK, counters[c].help);
	family(f, name, "counter", help);
	for (i = 0; i < n; i++)
		fprintf(f, "%s{%s} %llu\n", name, hs[i].labels,
			(unsigned long long)*(const __u64 *)((const char *)&hs[i].s +
							     counters[c].offset));
}

/* The hits by what was checked: one family with a kind label, a series a hook and kind. */
static void hits_by_kind(FILE *f, const struct hook_series *hs, int n)
{
	static const struct {
		const char *kind;
		size_t offset;
	} rows[] = {
		{ "ipv4_source", offsetof(struct bb_stats, ip4_hits) },
		{ "ipv6_source", offsetof(struct bb_stats, ip6_hits) },
		{ "destination", offsetof(struct bb_stats, ip_dst_hits) },
		{ "dns", offsetof(struct bb_stats, dns_hits) },
		{ "sni", offsetof(struct bb_stats, tls_hits) },
		{ "host", offsetof(struct bb_stats, http_hits) },
		{ "url", offsetof(struct bb_stats, url_hits) },
	};
	size_t r;
	int i;

	family(f, "bloomblock_hits_total", "counter",
	       "Bloom filter hits (maybe listed), by what was checked" PER_HOOK);
	for (i = 0; i < n; i++)
		for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
			fprintf(f, "bloomblock_hits_total{%s,kind=\"%s\"} %llu\n", hs[i].labels,
				rows[r].kind,
				(unsigned long long)*(const __u64 *)((const char *)&hs[i].s +
								     rows[r].offset));
}

static void by_list(FILE *f, const struct bb_header *hdr, const struct bb_index_view *index)
{
	static struct bb_by_list bl;
	struct bb_confirm_maps m = { -1, -1, -1, -1 };
	unsigned int s;

	if (!index->map)
		return;
	if (bb_confirm_maps_open(bb_opts.pin_dir, &m))
		return;
	if (!bb_confirm_by_list(&m, hdr->generation, &bl)) {
		family(f, "bloomblock_list_items", "gauge",
		       "items of a list that hit since bloomblock run answered for them");
		for (s = 0; s < index->n_sources; s++) {
			fputs("bloomblock_list_items{list=\"", f);
			put_escaped(f, bb_index_source(index, s), true);
			fprintf(f, "\"} %llu\n", (unsigned long long)bl.items[s]);
		}
		family(f, "bloomblock_list_hits_total", "counter",
		       "packets that hit a list's items once answered (dropped, or flagged)");
		for (s = 0; s < index->n_sources; s++) {
			fputs("bloomblock_list_hits_total{list=\"", f);
			put_escaped(f, bb_index_source(index, s), true);
			fprintf(f, "\"} %llu\n", (unsigned long long)bl.hits[s]);
		}
		family(f, "bloomblock_false_positive_items", "gauge",
		       "items the filter matched that no list holds, as answered");
		fprintf(f, "bloomblock_false_positive_items %llu\n",
			(unsigned long long)bl.fp_items);
		family(f, "bloomblock_false_positive_hits_total", "counter",
		       "packets of those items once answered");
		fprintf(f, "bloomblock_false_positive_hits_total %llu\n",
			(unsigned long long)bl.fp_hits);
	}
	bb_confirm_maps_close(&m);
}

int bb_metrics_write(FILE *f, const struct bb_instance *inst)
{
	struct hook_series hs[BB_STATS_SLOTS];
	struct bb_attachment att[64];
	const struct bb_allow_header *ah = NULL;
	const struct bb_header *hdr;
	struct bb_confirm_daemon d;
	struct bb_index_view index;
	struct bb_image img;
	int n, n_att, err;
	char path[512];
	json_t *loaded;
	size_t i;

	n_att = bb_attachments(bb_opts.pin_dir, att, 64);
	n = hook_series(inst, att, n_att > 0 ? n_att : 0, hs);
	if (n < 0)
		return n;
	err = bb_image_open(inst, &img);
	if (err)
		return err;
	hdr = (const void *)img.blocks;
	if (hdr->allow_blocks && (size_t)bb_filter_elements(hdr->nblocks, hdr->allow_blocks) *
	    BB_BLOCK_BYTES <= img.map_size)
		ah = (const void *)&img.blocks[bb_allow_index(hdr->nblocks)];
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		counter_family(f, i, hs, n);
	hits_by_kind(f, hs, n);

	family(f, "bloomblock_attached_info", "gauge",
	       "an interface and hook the instance's program is attached to: the counters are "
	       "by hook, summed over the interfaces at it (one instance per interface gives "
	       "figures per interface)");
	for (i = 0; n_att > 0 && i < (size_t)n_att; i++) {
		fputs("bloomblock_attached_info{interface=\"", f);
		put_escaped(f, att[i].ifname, true);
		fprintf(f, "\",hook=\"%s\",xdp_mode=\"%s\"} 1\n", bb_hook_name(att[i].hook),
			att[i].hook == BB_HOOK_XDP ? bb_xdp_mode_name(att[i].mode) : "none");
	}
	family(f, "bloomblock_filter_info", "gauge", "the live filter's mode");
	fprintf(f, "bloomblock_filter_info{mode=\"%s\"} 1\n", bb_mode_name(hdr->flags));
	family(f, "bloomblock_filter_keys", "gauge", "keys in the live filter");
	fprintf(f, "bloomblock_filter_keys %llu\n", (unsigned long long)hdr->items);
	family(f, "bloomblock_filter_bytes", "gauge", "bytes of the live filter map");
	fprintf(f, "bloomblock_filter_bytes %zu\n", img.map_size);
	family(f, "bloomblock_filter_generation", "gauge",
	       "the live filter's generation: one more on every load");
	fprintf(f, "bloomblock_filter_generation %llu\n", (unsigned long long)hdr->generation);
	family(f, "bloomblock_filter_fpr_estimated", "gauge",
	       "false-positive rate of one key lookup, predicted from keys and size");
	fprintf(f, "bloomblock_filter_fpr_estimated %.6g\n",
		bb_blocked_fpr(hdr->items, hdr->nblocks, hdr->k));
	family(f, "bloomblock_filter_fpr_from_fill", "gauge",
	       "false-positive rate of one key lookup, from the bits set");
	fprintf(f, "bloomblock_filter_fpr_from_fill %.6g\n", fill_fpr(&img));
	family(f, "bloomblock_allowlist_keys", "gauge", "keys in the live filter's allowlist");
	fprintf(f, "bloomblock_allowlist_keys %llu\n", ah ? (unsigned long long)ah->items : 0ULL);
	if (!bb_state_path(path, sizeof(path), BB_STATE_LOADED) &&
	    (loaded = json_load_file(path, 0, NULL))) {
		if (json_integer_value(json_object_get(loaded, "generation")) ==
		    (json_int_t)hdr->generation) {
			family(f, "bloomblock_last_load_timestamp_seconds", "gauge",
			       "when the live filter was loaded (Unix time)");
			fprintf(f, "bloomblock_last_load_timestamp_seconds %lld\n",
				(long long)json_integer_value(json_object_get(loaded, "time")));
		}
		json_decref(loaded);
	}
	feeds(f);
	reloads(f);
	reload_refusal_metrics(f);
	family(f, "bloomblock_daemon_up", "gauge",
	       "1 while bloomblock run beats its heartbeat for the instance");
	fprintf(f, "bloomblock_daemon_up %d\n", !bb_confirm_daemon_pin(bb_opts.pin_dir, &d) &&
		bb_confirm_alive(&d, bb_mono_ns()));
	if (!bb_state_index(img.blocks, &index)) {
		by_list(f, hdr, &index);
		bb_index_close(&index);
	}
	bb_image_close(&img);
	return ferror(f) ? -EIO : 0;
}

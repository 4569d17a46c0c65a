// SPDX-License-Identifier: GPL-2.0
/*
 * Confirm mode's answers (confirm.h): a request's item looked up in the key index
 * with the kernel's own lookups, the answer written where the program looks first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <bpf/bpf.h>

#include "msg.h"
#include "confirm.h"
#include "state.h"

#define REOPEN_NS	10000000ULL	/* a missing index is looked for every 10 ms at most */

__u64 bb_mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (__u64)t.tv_sec * 1000000000ULL + (__u64)t.tv_nsec;
}

bool bb_confirm_alive(const struct bb_confirm_daemon *d, __u64 now)
{
	return d->alive_ns && now <= d->alive_ns + BB_CONFIRM_ALIVE_NS;
}

static int open_pin(const char *pin_dir, const char *name)
{
	char path[512];
	int fd;

	if (bb_pin_path(path, sizeof(path), pin_dir, name))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	if (fd < 0) {
		fd = -errno;
		pr_err("%s: %s (an instance loaded by an older bloomblock: unload --all and "
		       "load again)\n", path, strerror(-fd));
	}
	return fd;
}

int bb_confirm_maps_open(const char *pin_dir, struct bb_confirm_maps *m)
{
	m->ring_fd = open_pin(pin_dir, BB_PIN_CONFIRM_RING);
	m->confirmed_fd = m->ring_fd < 0 ? -1 : open_pin(pin_dir, BB_PIN_CONFIRMED);
	m->unlisted_fd = m->confirmed_fd < 0 ? -1 : open_pin(pin_dir, BB_PIN_UNLISTED);
	m->daemon_fd = m->unlisted_fd < 0 ? -1 : open_pin(pin_dir, BB_PIN_CONFIRM_DAEMON);
	if (m->daemon_fd >= 0)
		return 0;
	int err = m->ring_fd < 0 ? m->ring_fd : m->confirmed_fd < 0 ? m->confirmed_fd :
		  m->unlisted_fd < 0 ? m->unlisted_fd : m->daemon_fd;

	bb_confirm_maps_close(m);
	return err;
}

void bb_confirm_maps_close(struct bb_confirm_maps *m)
{
	int *fds[] = { &m->ring_fd, &m->confirmed_fd, &m->unlisted_fd, &m->daemon_fd };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

int bb_confirm_daemon_read(int daemon_fd, struct bb_confirm_daemon *d)
{
	__u32 zero = 0;

	memset(d, 0, sizeof(*d));
	return bpf_map_lookup_elem(daemon_fd, &zero, d) ? -errno : 0;
}

int bb_confirm_daemon_pin(const char *pin_dir, struct bb_confirm_daemon *d)
{
	char path[512];
	int fd, err;

	memset(d, 0, sizeof(*d));
	if (bb_pin_path(path, sizeof(path), pin_dir, BB_PIN_CONFIRM_DAEMON))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	err = bb_confirm_daemon_read(fd, d);
	close(fd);
	return err;
}

const char *bb_confirm_daemon_state(const struct bb_confirm_daemon *d, __u64 now)
{
	if (bb_confirm_alive(d, now))
		return "running";
	return d->started_ns ? "stopped" : "never";
}

/* What a request asks about, as an entry the image is asked about; text in buf. */
static int req_entry(const struct bb_confirm_req *req, struct bb_entry *e, char *buf,
		     size_t size)
{
	size_t len;

	memset(e, 0, sizeof(*e));
	if (req->ckey.kind == BB_CONFIRM_IP4 || req->ckey.kind == BB_CONFIRM_IP6) {
		bool v4 = req->ckey.kind == BB_CONFIRM_IP4;

		e->kind = v4 ? BB_ENTRY_IP4 : BB_ENTRY_IP6;
		e->plen = v4 ? 32 : 128;
		memcpy(e->addr, req->ckey.data, v4 ? 4 : 16);
		inet_ntop(v4 ? AF_INET : AF_INET6, req->ckey.data, buf, (socklen_t)size);
		return 0;
	}
	if (req->ckey.kind != BB_CONFIRM_NAME && req->ckey.kind != BB_CONFIRM_URL)
		return -EINVAL;
	len = req->key_len > 1 ? req->key_len - 1U : 0;
	if (len >= size)
		len = size - 1;
	memcpy(buf, req->key + 1, len);
	buf[len] = '\0';
	e->kind = req->ckey.kind == BB_CONFIRM_URL ? BB_ENTRY_URL : BB_ENTRY_NAME;
	e->text = buf;
	return len ? 0 : -EINVAL;
}

static void close_view(struct bb_confirmer *c)
{
	if (c->have_view)
		bb_index_close(&c->view);
	c->have_view = false;
	if (c->inst)
		c->index = NULL;
}

/*
 * The instance's live filter as of the request, and its index as of its live changes
 * now: the epoch is read before the index is, and add and del write the index before
 * they move the epoch on, so an answer never pairs an old index with a new epoch.
 */
static int confirmer_sync(struct bb_confirmer *c, const struct bb_confirm_req *req)
{
	const struct bb_header *hdr;
	__u32 epoch;
	int err;

	if (!c->inst) {
		hdr = (const void *)c->image;
		c->generation = hdr->generation;
		c->epoch = __atomic_load_n(&((const struct bb_config *)
					     &c->image[BB_CONFIG_INDEX])->confirm_epoch,
					   __ATOMIC_ACQUIRE);
		if (req->generation != hdr->generation)
			return -ESTALE;
		return c->index ? 0 : -ENOENT;
	}
	if (!c->have_img || c->generation != req->generation) {
		close_view(c);
		if (c->have_img)
			bb_image_close(&c->img);
		c->have_img = false;
		err = bb_image_open(c->inst, &c->img);
		if (err)
			return err;
		c->have_img = true;
		c->image = c->img.blocks;
		c->generation = ((const struct bb_header *)c->image)->generation;
		c->reopen_after_ns = 0;
	}
	if (c->generation != req->generation)
		return -ESTALE;
	epoch = __atomic_load_n(&((const struct bb_config *)&c->image[BB_CONFIG_INDEX])
				->confirm_epoch, __ATOMIC_ACQUIRE);
	if (c->have_view && epoch == c->epoch)
		return 0;
	close_view(c);
	if (bb_mono_ns() < c->reopen_after_ns)
		return -ENOENT;
	err = bb_state_index(c->image, &c->view);
	if (err) {
		c->reopen_after_ns = bb_mono_ns() + REOPEN_NS;
		return -ENOENT;
	}
	c->have_view = true;
	c->index = &c->view;
	c->epoch = epoch;
	return 0;
}

void bb_confirmer_tidy(struct bb_confirmer *c)
{
	__u32 zero = 0, live;

	if (!c->inst || !c->have_img ||
	    bpf_map_lookup_elem(c->inst->filters_fd, &zero, &live) || live == c->img.map_id)
		return;
	close_view(c);
	bb_image_close(&c->img);
	c->have_img = false;
}

int bb_confirm_answer(struct bb_confirmer *c, const struct bb_confirm_req *req)
{
	const struct bb_index_rec *rec = NULL;
	struct bb_confirm_val val = { 0 };
	char text[BB_EVENT_KEY_MAX + 64];
	struct bb_entry e;
	__u64 now, lat;
	int err, listed;

	err = confirmer_sync(c, req);
	if (err == -ESTALE)
		c->tally.stale++;
	if (err)
		return err;
	if (req_entry(req, &e, text, sizeof(text)))
		return -EINVAL;
	listed = bb_image_attribute(c->image, c->index, &e, &rec);
	now = bb_mono_ns();
	val.generation = c->generation;
	val.epoch = c->epoch;
	val.state = listed ? BB_CONFIRM_LISTED : BB_CONFIRM_UNLISTED;
	val.time_ns = now;
	if (listed) {
		val.src = rec->src;
		val.line = rec->line;
	}
	if (bpf_map_update_elem(listed ? c->maps.confirmed_fd : c->maps.unlisted_fd, &req->ckey,
				&val, BPF_ANY))
		return -errno;
	if (listed)	/* its pending mark: the negative cache is for negatives */
		bpf_map_delete_elem(c->maps.unlisted_fd, &req->ckey);
	if (listed)
		c->tally.listed++;
	else
		c->tally.unlisted++;
	lat = now > req->time_ns ? now - req->time_ns : 0;
	c->tally.lat_sum_ns += lat;
	if (lat > c->tally.lat_max_ns)
		c->tally.lat_max_ns = lat;
	if (c->verbose && listed)
		pr_info("%s %s: listed (%s:%u), dropped from now on; %.0f us after the hit\n",
			e.kind == BB_ENTRY_URL ? "url" : e.kind == BB_ENTRY_NAME ? "name" : "address",
			text, bb_index_source(c->index, rec->src), rec->line, (double)lat / 1e3);
	else if (c->verbose)
		pr_info("%s %s: on no list, a false positive: it passes; %.0f us after the hit\n",
			e.kind == BB_ENTRY_URL ? "url" : e.kind == BB_ENTRY_NAME ? "name" : "address",
			text, (double)lat / 1e3);
	return listed;
}

int bb_confirm_beat(struct bb_confirmer *c, bool stopping)
{
	__u32 zero = 0;
	__u64 now = bb_mono_ns();

	if (!c->tally.started_ns)
		c->tally.started_ns = now;
	c->tally.pid = (__u32)getpid();
	c->tally.alive_ns = stopping ? 0 : now;
	return bpf_map_update_elem(c->maps.daemon_fd, &zero, &c->tally, BPF_ANY) ? -errno : 0;
}

/* The keys of a map, walked first and read after: a walk from the start after each. */
static size_t map_keys(int fd, struct bb_confirm_key *keys, size_t max)
{
	size_t n = 0;

	while (n < max && !bpf_map_get_next_key(fd, n ? &keys[n - 1] : NULL, &keys[n]))
		n++;
	return n;
}

int bb_confirm_by_list(const struct bb_confirm_maps *m, __u64 generation, struct bb_by_list *out)
{
	const size_t max = BB_CONFIRM_ENTRIES + 64;
	struct bb_confirm_key *keys = calloc(max, sizeof(*keys));
	struct bb_confirm_val v;
	size_t n, i;

	_Static_assert(BB_INDEX_MAX_SOURCES == 256, "bb_by_list holds 256 sources");
	memset(out, 0, sizeof(*out));
	if (!keys)
		return -ENOMEM;
	n = map_keys(m->confirmed_fd, keys, max);
	for (i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(m->confirmed_fd, &keys[i], &v) ||
		    v.generation != generation || v.src >= BB_INDEX_MAX_SOURCES)
			continue;
		out->items[v.src]++;
		out->hits[v.src] += v.hits;
		out->total_items++;
		out->total_hits += v.hits;
	}
	n = map_keys(m->unlisted_fd, keys, max);
	for (i = 0; i < n; i++)
		if (!bpf_map_lookup_elem(m->unlisted_fd, &keys[i], &v) &&
		    v.generation == generation && v.state == BB_CONFIRM_UNLISTED) {
			out->fp_items++;
			out->fp_hits += v.hits;
		}
	free(keys);
	return 0;
}

void bb_confirmer_close(struct bb_confirmer *c)
{
	close_view(c);
	if (c->have_img)
		bb_image_close(&c->img);
	c->have_img = false;
}

// SPDX-License-Identifier: GPL-2.0
/* Hit events attributed by the index of the filter and live changes they were raised under. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>

#include "confirm.h"
#include "event_attr.h"
#include "state.h"

#define REOPEN_NS	1000000000ULL	/* a missing index is looked for once a second */

void bb_attributor_init(struct bb_attributor *a, const struct bb_instance *inst)
{
	memset(a, 0, sizeof(*a));
	a->inst = inst;
}

static void close_view(struct bb_attributor *a)
{
	if (a->have_view)
		bb_index_close(&a->view);
	a->have_view = false;
}

void bb_attributor_close(struct bb_attributor *a)
{
	close_view(a);
	if (a->have_img)
		bb_image_close(&a->img);
	a->have_img = false;
}

void bb_attributor_idle(struct bb_attributor *a)
{
	__u32 zero = 0, live = 0;

	if (a->have_img && (bpf_map_lookup_elem(a->inst->filters_fd, &zero, &live) ||
			    live != a->img.map_id))
		bb_attributor_close(a);
}

int bb_event_entry(const struct bb_event *ev, struct bb_entry *e, char *buf, size_t size)
{
	size_t len;

	memset(e, 0, sizeof(*e));
	if (ev->what == BB_EV_SRC || ev->what == BB_EV_DST) {
		const __u8 *addr = ev->what == BB_EV_SRC ? ev->saddr : ev->daddr;

		e->kind = ev->family == 4 ? BB_ENTRY_IP4 : BB_ENTRY_IP6;
		e->plen = ev->family == 4 ? 32 : 128;
		memcpy(e->addr, addr, ev->family == 4 ? 4 : 16);
		inet_ntop(ev->family == 4 ? AF_INET : AF_INET6, addr, buf, (socklen_t)size);
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

static __u32 live_epoch(const struct bb_image *img)
{
	return __atomic_load_n(&((const struct bb_config *)&img->blocks[BB_CONFIG_INDEX])
			       ->confirm_epoch, __ATOMIC_ACQUIRE);
}

/*
 * The filter of map_id (0: whichever is live) and its index as of its live changes
 * now: false when another filter is live. The image of an event's filter is kept while
 * its events come, a reload's new filter opened at the first event of it. The index is
 * opened again when the live changes moved on; add and del write it before they move
 * the epoch on, and write in it the epoch they move on to (an older index has none: the
 * epoch read before it is opened stands for it).
 */
static bool attributor_sync(struct bb_attributor *a, __u32 map_id)
{
	__u32 epoch;

	if (!a->have_img || (map_id && a->img.map_id != map_id)) {
		bb_attributor_close(a);
		if (bb_image_open(a->inst, &a->img))
			return false;
		a->have_img = true;
		a->reopen_after_ns = 0;
	}
	if (map_id && a->img.map_id != map_id)
		return false;
	epoch = live_epoch(&a->img);
	if (a->have_view && epoch == a->live_epoch)
		return true;
	close_view(a);
	if (bb_mono_ns() < a->reopen_after_ns)
		return true;
	if (bb_state_index(a->img.blocks, &a->view)) {
		a->reopen_after_ns = bb_mono_ns() + REOPEN_NS;
		return true;
	}
	a->have_view = true;
	a->live_epoch = epoch;
	a->view_epoch = a->view.meta.epoch_known ? a->view.meta.epoch : epoch;
	return true;
}

static void said_source(struct bb_event_attr *out, const struct bb_index_view *v,
			const struct bb_index_rec *rec)
{
	snprintf(out->source, sizeof(out->source), "%s", bb_index_source(v, rec->src));
	out->line = rec->line;
}

void bb_event_attribute(struct bb_attributor *a, const struct bb_event *ev,
			struct bb_event_attr *out)
{
	const struct bb_index_rec *rec = NULL;
	char text[BB_EVENT_KEY_MAX + 64];
	struct bb_entry e;
	int listed;

	memset(out, 0, sizeof(*out));
	if (!attributor_sync(a, ev->map_id)) {
		out->state = a->have_img ? BB_ATTR_RELOADED : BB_ATTR_NO_INDEX;
		return;
	}
	if (!a->have_view || bb_event_entry(ev, &e, text, sizeof(text)))
		return;		/* BB_ATTR_NO_INDEX */
	listed = bb_image_attribute(a->img.blocks, &a->view, &e, &rec);
	/*
	 * The index holds what the filter held from its epoch on, until the next change
	 * that wrote one: an event of that epoch or after is told by it exactly (a change
	 * that wrote no index, a crash's leftovers cleared, changed no record), one from
	 * before is not.
	 */
	if (ev->epoch >= a->view_epoch) {
		out->state = listed ? BB_ATTR_LISTED : BB_ATTR_UNLISTED;
	} else {
		out->state = BB_ATTR_CHANGED;
		out->now_listed = listed > 0;
		out->index_epoch = a->view_epoch;
	}
	if (listed)
		said_source(out, &a->view, rec);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A hit event attributed as `check` attributes an item (bb_image_attribute(): the list
 * and line that hold it, or a false positive), by the key index of the filter and the
 * live changes it was raised under (struct bb_event's map_id and epoch), not by
 * whatever is live when it is read: a drop recorded before a `del` is never called a
 * false positive. When that index is gone (a reload since) or has moved on (an add or
 * del since), the attribution says so, and what the index says now.
 */
#ifndef BB_EVENT_ATTR_H
#define BB_EVENT_ATTR_H

#include <stdbool.h>
#include <stddef.h>

#include "bloomblock.h"
#include "filter.h"
#include "list.h"
#include "pins.h"

enum bb_attr_state {
	BB_ATTR_NO_INDEX = 0,	/* no key index of that filter: listed, maybe */
	BB_ATTR_LISTED,		/* a list held it when it was raised: source, line */
	BB_ATTR_UNLISTED,	/* no list held it when it was raised: a false positive */
	BB_ATTR_CHANGED,	/* live changes since it was raised: not known then; what the
				 * index says now in now_listed, source, line */
	BB_ATTR_RELOADED,	/* another filter is live now: not known */
};

#define BB_ATTR_SOURCE_MAX	240

/* What an event's attribution found; fixed-size, as it travels to readers (events_hub.h). */
struct bb_event_attr {
	__u8 state;		/* enum bb_attr_state */
	__u8 now_listed;	/* BB_ATTR_CHANGED: 1 when a list holds it now */
	__u16 pad;
	__u32 line;		/* of source; 0: none (an item added live) */
	__u32 index_epoch;	/* BB_ATTR_CHANGED: the live changes the index is of */
	__u32 pad2;
	char source[BB_ATTR_SOURCE_MAX];	/* the list file, NUL-terminated (cut) */
};

/* The filter and index events are attributed by: kept while events of that filter come. */
struct bb_attributor {
	const struct bb_instance *inst;
	struct bb_image img;
	struct bb_index_view view;
	bool have_img, have_view;
	__u32 view_epoch;	/* the live changes the index opened is of */
	__u32 live_epoch;	/* the filter's when it was opened: moved on, it is opened again */
	__u64 reopen_after_ns;	/* a missing index is looked for again then */
};

/* Attributions by the instance's live filter and its index, opened as events need them. */
void bb_attributor_init(struct bb_attributor *a, const struct bb_instance *inst);
void bb_attributor_close(struct bb_attributor *a);
/*
 * Called when no event is waiting: the image of a filter no longer live is let go (a
 * reload's old filter is freed by the kernel only when no one maps it any more).
 */
void bb_attributor_idle(struct bb_attributor *a);
/* What hit, as an entry to ask about (its text in buf): 0, or -EINVAL when none is told. */
int bb_event_entry(const struct bb_event *ev, struct bb_entry *e, char *buf, size_t size);
/* ev attributed into *out. */
void bb_event_attribute(struct bb_attributor *a, const struct bb_event *ev,
			struct bb_event_attr *out);

#endif /* BB_EVENT_ATTR_H */

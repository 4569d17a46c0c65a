// SPDX-License-Identifier: GPL-2.0
/* The events' owner's history: numbered records in a ring, readers as cursors (event_log.h). */
#include <stdlib.h>

#include "event_log.h"

void bb_event_log_init(struct bb_event_log *log, size_t rec_size, size_t cap)
{
	*log = (struct bb_event_log){ .rec_size = rec_size, .cap = cap ? cap : 1, .next = 1 };
}

void bb_event_log_free(struct bb_event_log *log)
{
	free(log->recs);
	log->recs = NULL;
}

void *bb_event_log_push(struct bb_event_log *log, __u64 *seq)
{
	void *slot;

	if (!log->recs) {	/* at the first event: a daemon no event ever reaches keeps none */
		log->recs = calloc(log->cap, log->rec_size);
		if (!log->recs)
			return NULL;
	}
	slot = log->recs + (size_t)(log->next % log->cap) * log->rec_size;
	*seq = log->next++;
	return slot;
}

__u64 bb_event_log_oldest(const struct bb_event_log *log)
{
	return log->next - 1 > log->cap ? log->next - log->cap : 1;
}

const void *bb_event_log_get(const struct bb_event_log *log, __u64 seq)
{
	if (!log->recs || seq < bb_event_log_oldest(log) || seq >= log->next)
		return NULL;
	return log->recs + (size_t)(seq % log->cap) * log->rec_size;
}

__u64 bb_event_log_catch_up(const struct bb_event_log *log, __u64 *cursor)
{
	__u64 oldest = bb_event_log_oldest(log), lost;

	if (*cursor >= oldest)
		return 0;
	lost = oldest - *cursor;
	*cursor = oldest;
	return lost;
}

void bb_event_log_take(struct bb_event_log *log, __u64 upto)
{
	if (upto >= log->next)
		upto = log->next - 1;
	if (upto > log->taken)
		log->taken = upto;
}

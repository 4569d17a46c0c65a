/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hit events' history that their owner keeps for every reader it serves
 * (kernel/events_hub.c): the last records read from the ring, each numbered as it came
 * (its seq, from 1), in one ring of fixed size. A reader is a cursor into it, the next
 * seq it is owed: the log never waits for a reader, and one it moved past is owed what
 * it no longer holds, which it is told (bb_event_log_catch_up()). What readers that
 * take events (events, with or without -f) have taken is one more cursor: what such a
 * reader is owed first. No libbpf: unit-tested alone (tests/unit/test_event_log.c).
 */
#ifndef BB_EVENT_LOG_H
#define BB_EVENT_LOG_H

#include <stddef.h>
#include <linux/types.h>

struct bb_event_log {
	unsigned char *recs;	/* cap records of rec_size bytes; made at the first push */
	size_t rec_size, cap;
	__u64 next;		/* the seq the next record gets; the first is 1 */
	__u64 taken;		/* records up to this seq were taken */
};

/* An empty log of at most cap records of rec_size bytes (nothing allocated yet). */
void bb_event_log_init(struct bb_event_log *log, size_t rec_size, size_t cap);
void bb_event_log_free(struct bb_event_log *log);
/*
 * The slot of the next record, seq log->next (*seq), to be filled by the caller; the
 * oldest record goes when the log is full. NULL when it cannot be allocated.
 */
void *bb_event_log_push(struct bb_event_log *log, __u64 *seq);
/* The oldest seq the log holds; log->next when it holds none. */
__u64 bb_event_log_oldest(const struct bb_event_log *log);
/* The record of seq, or NULL when the log does not hold it (gone, or not yet). */
const void *bb_event_log_get(const struct bb_event_log *log, __u64 seq);
/*
 * A cursor (the next seq a reader is owed) moved on to the oldest record held when the
 * log moved past it: the records it lost so, 0 when none.
 */
__u64 bb_event_log_catch_up(const struct bb_event_log *log, __u64 *cursor);
/* Records up to seq upto taken (never beyond what was pushed, never back). */
void bb_event_log_take(struct bb_event_log *log, __u64 upto);

#endif /* BB_EVENT_LOG_H */

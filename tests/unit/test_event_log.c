// SPDX-License-Identifier: GPL-2.0
/*
 * user/core/event_log.c, the events' owner's history: records numbered from 1 in a ring
 * of fixed size; a reader's cursor that the ring moved past is told how many it lost;
 * the taken cursor never moves back or beyond what was pushed. No root.
 */
#include <stdio.h>
#include <string.h>

#include "event_log.h"
#include "tap.h"

struct rec {
	__u64 seq;
	char text[24];
};

/* Push n records, each holding its own seq. */
static void push(struct bb_event_log *log, unsigned int n)
{
	while (n--) {
		__u64 seq;
		struct rec *r = bb_event_log_push(log, &seq);

		if (!r)
			return;
		r->seq = seq;
		snprintf(r->text, sizeof(r->text), "event %llu", (unsigned long long)seq);
	}
}

/* Whether the log holds exactly the seqs from..to, each its own record. */
static int holds(const struct bb_event_log *log, __u64 from, __u64 to)
{
	__u64 s;

	if (bb_event_log_get(log, from - 1) || bb_event_log_get(log, to + 1))
		return 0;
	for (s = from; s <= to; s++) {
		const struct rec *r = bb_event_log_get(log, s);

		if (!r || r->seq != s)
			return 0;
	}
	return 1;
}

int main(void)
{
	struct bb_event_log log;
	__u64 cursor, lost;

	tap_plan_header();
	bb_event_log_init(&log, sizeof(struct rec), 8);
	ASSERT_EQ(bb_event_log_oldest(&log), 1, "empty: the oldest is the next, 1");
	ASSERT_TRUE(!bb_event_log_get(&log, 1) && !log.recs, "empty: holds nothing, allocates nothing");

	push(&log, 5);
	ASSERT_TRUE(holds(&log, 1, 5) && log.next == 6, "5 pushed: seqs 1 to 5, each its own record");
	cursor = 1;
	lost = bb_event_log_catch_up(&log, &cursor);
	ASSERT_TRUE(!lost && cursor == 1, "a reader owed seq 1 lost nothing");

	push(&log, 7);
	ASSERT_TRUE(holds(&log, 5, 12) && bb_event_log_oldest(&log) == 5,
		    "12 pushed into 8: the last 8 held (5 to 12), the oldest gone");
	lost = bb_event_log_catch_up(&log, &cursor);
	ASSERT_TRUE(lost == 4 && cursor == 5,
		    "a reader still owed seq 1 is told it lost 4, and is owed 5 next");
	cursor = 13;
	ASSERT_TRUE(!bb_event_log_catch_up(&log, &cursor) && cursor == 13,
		    "a reader owed what is not pushed yet lost nothing");

	bb_event_log_take(&log, 9);
	ASSERT_EQ(log.taken, 9, "taken up to 9");
	bb_event_log_take(&log, 3);
	ASSERT_EQ(log.taken, 9, "taken never moves back");
	bb_event_log_take(&log, 100);
	ASSERT_EQ(log.taken, 12, "taken never passes what was pushed");

	push(&log, 8 * 1000 + 3);
	ASSERT_TRUE(holds(&log, log.next - 8, log.next - 1),
		    "after many rounds of the ring: still the last 8, in order");
	bb_event_log_free(&log);
	return tap_finish();
}

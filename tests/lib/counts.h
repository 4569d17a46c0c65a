/* SPDX-License-Identifier: GPL-2.0 */
/* A list file's expected counts, and their comparison with what the parser counted. */
#ifndef TESTS_LIB_COUNTS_H
#define TESTS_LIB_COUNTS_H

#include <stdbool.h>
#include <stdio.h>

#include "list.h"

struct counts {
	size_t lines, ip4, ip6, names, urls, allow, dups, blank, comments, preamble, ranges,
	       widened;
	size_t rejected[BB_REJECT_REASON_MAX];
	size_t skipped[BB_SKIP_REASON_MAX];
};

/* c against w, every count; on the first that differs, false and what it was in diff. */
static inline bool counts_match(const struct bb_list_counts *c, const struct counts *w,
				char *diff, size_t size)
{
	size_t i;

#define CHECK(got, want, what) do { \
		if ((got) != (want)) { \
			snprintf(diff, size, "%s: got %zu, expected %zu", what, (size_t)(got), \
				 (size_t)(want)); \
			return false; \
		} \
	} while (0)
	CHECK(c->lines, w->lines, "lines");
	CHECK(c->accepted[BB_ENTRY_IP4], w->ip4, "ipv4");
	CHECK(c->accepted[BB_ENTRY_IP6], w->ip6, "ipv6");
	CHECK(c->accepted[BB_ENTRY_NAME], w->names, "names");
	CHECK(c->accepted[BB_ENTRY_URL], w->urls, "urls");
	CHECK(c->allow[BB_ENTRY_IP4] + c->allow[BB_ENTRY_IP6] + c->allow[BB_ENTRY_NAME] +
	      c->allow[BB_ENTRY_URL], w->allow, "allowlist entries");
	CHECK(c->duplicates, w->dups, "duplicates");
	CHECK(c->blank, w->blank, "blank");
	CHECK(c->comments, w->comments, "comments");
	CHECK(c->preamble, w->preamble, "preamble");
	CHECK(c->ranges, w->ranges, "ranges");
	CHECK(c->widened, w->widened, "widened");
	for (i = 0; i < BB_REJECT_REASON_MAX; i++)
		CHECK(c->rejected[i], w->rejected[i], bb_reject_reason_name(i));
	for (i = 0; i < BB_SKIP_REASON_MAX; i++)
		CHECK(c->skipped[i], w->skipped[i], bb_skip_reason_name(i));
#undef CHECK
	return true;
}

#endif /* TESTS_LIB_COUNTS_H */

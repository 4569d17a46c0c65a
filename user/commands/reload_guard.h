/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reload guard (reload_guard.c): a load that would swap a good filter for what a
 * broken download, an error page or a wrong file gives is refused, and the live
 * filter stays. Which check refused the last load, recorded in the state directory
 * (refused.json) for status and /metrics.
 */
#ifndef BB_RELOAD_GUARD_H
#define BB_RELOAD_GUARD_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include "filter.h"
#include "list.h"
#include "pins.h"

/*
 * The shrink check guards a live filter of this many keys or more: a hand-kept list
 * changes by large parts, and what a small filter loses is little. The other checks
 * hold at any size.
 */
#define RELOAD_SHRINK_MIN_KEYS	1000

/* The checks, in the order a load meets them. */
enum reload_check {
	RELOAD_OK,
	RELOAD_BINARY,		/* a list is binary data */
	RELOAD_HTML,		/* ... an HTML page */
	RELOAD_JSON_ERROR,	/* ... a JSON error body */
	RELOAD_REJECTS,		/* more than half of a list's lines do not read */
	RELOAD_SHRINK,		/* the new filter keeps less than half of the live one's keys */
	RELOAD_CHECK_MAX,
};

struct reload_refusal {
	enum reload_check check;	/* RELOAD_OK: nothing refused */
	char list[512];			/* the list it is about; "": the whole filter */
	char why[512];			/* what the message says after "refused: " */
};

/* "binary", "html", "json_error", "rejects", "shrink" ("" for RELOAD_OK). */
const char *reload_check_name(enum reload_check check);

/*
 * One list, read (err 0) or refused by its reader (-EMEDIUMTYPE: what it is, in info):
 * a refusal kept in r, unless one is there already. A list that mostly does not read
 * is refused unless allow_shrink, then only said. Only a user's lists: not the guard's
 * nor the kept allowlist (origin "guard", "kept"). True when r holds a refusal now.
 */
bool reload_guard_list(struct reload_refusal *r, const char *name, const char *origin, int err,
		       const struct bb_list_counts *c, const struct bb_file_info *info,
		       bool allow_shrink);

/*
 * The new filter f against the live one of inst: refused (-ERANGE, said, r set) when
 * it keeps less than half the keys of the live filter (at least
 * RELOAD_SHRINK_MIN_KEYS), unless allow_shrink. The live filter's keys: the fewer of
 * what its load built (loaded.json, when it describes it) and what it holds now, so
 * that neither items `add` made live (gone at any load) nor items `del` took out count.
 */
int reload_guard_shrink(struct reload_refusal *r, const struct bb_instance *inst,
			const struct bb_filter *f, bool allow_shrink);

/* refused.json: a refused load's record written (a reload: an instance was live), or the
 * record removed (a load went through). */
void reload_refusal_save(const struct reload_refusal *r);
void reload_refusal_clear(void);

/* What status, status -j and /metrics say of it. */
void reload_refusal_status_text(FILE *out);
json_t *reload_refusal_json(void);		/* null when the last load was not refused */
void reload_refusal_metrics(FILE *out);

#endif /* BB_RELOAD_GUARD_H */

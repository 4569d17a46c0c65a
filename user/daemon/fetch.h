/* SPDX-License-Identifier: GPL-2.0 */
/* Fetching feeds with libcurl (fetch.c): conditional, bounded, retried, checked. */
#ifndef BB_FETCH_H
#define BB_FETCH_H

#include <signal.h>

#include "feed.h"

/* How feeds are fetched: the config's feed_* keys. */
struct bb_feed_opts {
	double timeout_s;		/* a whole transfer; default 300 */
	double connect_timeout_s;	/* default 15 */
	unsigned long long max_bytes;	/* default 1 GiB */
	unsigned int retries;		/* tries after the first; default 3 */
	double retry_wait_s;		/* before the first retry, doubled each time;
					 * default 10 */
	double max_shrink;		/* fraction of its entries a new copy may lose;
					 * default 0.5 */
	bool allow_shrink;		/* the config's allow_shrink: a body most of whose
					 * lines do not read is taken all the same */
	const char *cafile;		/* https: the CAs to trust; NULL: the system's */
	volatile sig_atomic_t *stop;	/* set: transfers and waits stop at once */
};

void bb_feed_opts_default(struct bb_feed_opts *o);

/*
 * Fetch f: a conditional request (its ETag, Last-Modified), retried with back-off on
 * errors worth retrying; a 200's body checked (whole, within max_bytes, a list: not
 * binary data, an HTML page or a JSON error body, and not mostly lines that do not
 * read; not shrunk by more than max_shrink, some entry in it) and then made the copy;
 * a body refused by those checks names the check in f->refused. The result is
 * f->result; f's fields are updated either way.
 */
enum bb_feed_result bb_feed_fetch(struct bb_feed *f, const struct bb_feed_opts *o);

/* libcurl's global set-up: once, before threads; and its undoing, after them. */
int bb_feed_global_init(void);
void bb_feed_global_cleanup(void);

#endif /* BB_FETCH_H */

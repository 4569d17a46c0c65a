/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Confirm mode's other half (include/bloomblock.h): the requests the programs raise
 * for a hit, answered against the exact key index, and the daemon's heartbeat. Used
 * by `bloomblock run`, by the tests and by the benchmark, over fds of their maps.
 */
#ifndef BB_CONFIRM_H
#define BB_CONFIRM_H

#include <stdbool.h>
#include <stddef.h>

#include "bloomblock.h"
#include "filter.h"
#include "pins.h"

/* The maps a confirmer reads and writes: the instance's pins, or a test's skeleton's. */
struct bb_confirm_maps {
	int ring_fd, confirmed_fd, unlisted_fd, daemon_fd;
};

/*
 * Where the confirmer finds the live filter and its index. With inst set, the
 * instance's: reopened whenever a request is of another generation or its live
 * changes moved on (the epoch). Without, image and index as given (tests, bench).
 */
struct bb_confirmer {
	struct bb_confirm_maps maps;
	struct bb_instance *inst;
	const struct bb_block *image;		/* given, or the opened img's */
	const struct bb_index_view *index;	/* given, or the opened view; NULL: none */
	struct bb_image img;
	struct bb_index_view view;
	bool have_img, have_view;
	__u64 generation;			/* of image */
	__u32 epoch;				/* of the index opened */
	__u64 reopen_after_ns;			/* a missing index is looked for again then */
	struct bb_confirm_daemon tally;		/* what the heartbeat publishes */
	bool verbose;				/* each answer to stderr */
};

/* The instance's four confirm pins. -errno, said, when one is missing. */
int bb_confirm_maps_open(const char *pin_dir, struct bb_confirm_maps *m);
void bb_confirm_maps_close(struct bb_confirm_maps *m);
/* The daemon's element: 0, or -errno. */
int bb_confirm_daemon_read(int daemon_fd, struct bb_confirm_daemon *d);

/* The instance's daemon element, its pin opened quietly: 0, or -errno. */
int bb_confirm_daemon_pin(const char *pin_dir, struct bb_confirm_daemon *d);
/* "running", "stopped" or "never": what the element says at now. */
const char *bb_confirm_daemon_state(const struct bb_confirm_daemon *d, __u64 now);

/* CLOCK_MONOTONIC in ns: what bpf_ktime_get_ns() reads. */
__u64 bb_mono_ns(void);

/* Whether a heartbeat says the daemon is running at now (bb_mono_ns()). */
bool bb_confirm_alive(const struct bb_confirm_daemon *d, __u64 now);

/*
 * One request answered: its item looked up in the index through the same lookups as
 * the kernel's (bb_image_attribute()), its answer written to confirmed (listed) or
 * unlisted (no list holds it). 1 answered listed, 0 unlisted, -ESTALE for a request of
 * a filter no longer live (dropped: the next hit asks again), -ENOENT without an index
 * (unanswered: the pending mark expires and the next hit asks again), other -errno.
 */
int bb_confirm_answer(struct bb_confirmer *c, const struct bb_confirm_req *req);

/* The heartbeat: the tallies and now into the daemon's element (alive_ns 0: stopped). */
int bb_confirm_beat(struct bb_confirmer *c, bool stopping);

/* The answers for the filter of one generation, summed by the index source they hold. */
struct bb_by_list {
	__u64 items[256], hits[256];	/* BB_INDEX_MAX_SOURCES: listed items, their hits */
	__u64 total_items, total_hits;
	__u64 fp_items, fp_hits;	/* answered unlisted: false positives */
};

/* m's confirmed and unlisted entries of generation into out: 0, or -errno. */
int bb_confirm_by_list(const struct bb_confirm_maps *m, __u64 generation, struct bb_by_list *out);

/* What the confirmer opened. */
void bb_confirmer_close(struct bb_confirmer *c);
/*
 * Let go of a filter that is no longer live (its image and index), so that a reload's
 * old map is freed at once, not at the next request: the beat calls it.
 */
void bb_confirmer_tidy(struct bb_confirmer *c);

#endif /* BB_CONFIRM_H */

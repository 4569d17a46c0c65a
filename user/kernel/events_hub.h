/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hit events for every reader at once (docs/DESIGN.md, "Several readers"). A BPF
 * ring buffer hands each record to one consumer, so one process owns the instance's
 * `events` ring: `bloomblock run` while it runs, else the first reader. The owner reads
 * it on a thread of its own, attributes each event as it reads it (event_attr.h: by the
 * index of the filter and live changes it was raised under), numbers it and keeps the
 * last BB_HUB_LOG of them (core/event_log.h), and serves them to every reader over the
 * Unix socket BB_STATE_EVENTS in the state directory (0600, in the 0700 directory; a
 * peer of another user is refused). Every reader, the owner's own one too, reads from
 * that socket; none waits for another, and none is kept waiting by a slow one: a reader
 * the log moved past is told how many it lost.
 *
 * Ownership: the socket's path is the owner's name, bound under a lock (flock on the
 * state directory) by whoever finds no one serving it: a stale socket a killed owner
 * left (connect refused) is removed first, a path that is no socket never. When the
 * owner stops, its readers see the end and the first to take the lock owns the ring
 * next; the rest read from it. The daemon asks a reader that owns the ring to hand it
 * over (the reader stops reading the ring, tells its readers the last event it read,
 * and answers), then binds the path itself; an owner that finds the path no longer its
 * own socket stops reading the ring at once.
 */
#ifndef BB_EVENTS_HUB_H
#define BB_EVENTS_HUB_H

#include <stdbool.h>
#include <sys/types.h>

#include "bloomblock.h"
#include "event_attr.h"

#define BB_HUB_LOG		4096	/* events the owner keeps for its readers */
#define BB_HUB_MAX_READERS	32	/* readers an owner serves at once */

/* ---- the wire: fixed-size messages on a SOCK_SEQPACKET socket ---- */

#define BB_HUB_MAGIC		0x56454242U	/* "BBEV" */
#define BB_HUB_VERSION		1

enum bb_hub_type {
	/* reader to owner */
	BB_HUB_REQUEST = 1,	/* the first: count says which events (enum bb_events_from) */
	BB_HUB_ACK,		/* the events up to seq were taken (taking readers) */
	BB_HUB_HANDOVER,	/* the daemon: stop reading the ring, it is mine */
	/* owner to reader */
	BB_HUB_HELLO,		/* seq: the first event's to come; count: of those asked for,
				 * how many are no longer kept; pid: the owner's */
	BB_HUB_EVENT,		/* struct bb_hub_event */
	BB_HUB_END,		/* BB_EVENTS_TAKE: no more; seq: the last one owed */
	BB_HUB_BYE,		/* the owner stops; seq: the last event it read from the ring */
	BB_HUB_HANDED,		/* to the daemon: the ring no longer read here; seq: as BYE */
	BB_HUB_BUSY,		/* refused: BB_HUB_MAX_READERS read already */
};

struct bb_hub_head {
	__u32 magic;
	__u16 version;
	__u16 type;		/* enum bb_hub_type */
	__u64 seq;		/* an event's number, from 1, in this owner's reading */
	__u64 count;
	__u32 pid;
	__u32 pad;
};

struct bb_hub_event {
	struct bb_hub_head head;
	struct bb_event_attr attr;
	struct bb_event ev;
};

_Static_assert(sizeof(struct bb_hub_head) == 32, "a message's head is 32 bytes");
_Static_assert(sizeof(struct bb_hub_event) == 32 + 256 + sizeof(struct bb_event),
	       "an event's message: head, attribution, event, no hole");

/* ---- the owner ---- */

struct bb_events_hub;

/*
 * bloomblock run's: the instance's ring owned from now on (taken at once from a reader
 * that owns it, before this returns), served on a thread, and taken again whenever it
 * finds it no longer owns it (a state directory removed and made again). 0, or -errno
 * (said): no ring to serve.
 */
int bb_events_hub_daemon(struct bb_events_hub **hub, const char *pin_dir);
/* Stop: the readers told the last event read, the socket removed when still ours. */
void bb_events_hub_stop(struct bb_events_hub *hub);

/* ---- a reader ---- */

enum bb_events_from {
	BB_EVENTS_TAKE = 1,	/* the events no reader took yet, then the end (events) */
	BB_EVENTS_FOLLOW,	/* the same, then each as it comes (events -f) */
	BB_EVENTS_NEW,		/* each from now on, none taken (top) */
	BB_EVENTS_RESUME,	/* after a handover: every event the new owner read since */
};

/* One event as a reader gets it. */
struct bb_events_rec {
	__u64 seq;
	struct bb_event ev;
	struct bb_event_attr attr;
};

/* What a reader lost, and how its owners changed. */
struct bb_events_tally {
	__u64 received;
	__u64 lost_behind;	/* the owner's log moved past this reader: it fell behind */
	__u64 lost_handover;	/* read by an owner that stopped, not sent before it did */
	__u64 not_kept;		/* untaken, older than the owner's log (TAKE, FOLLOW) */
	unsigned int handovers;	/* owners that stopped under it */
	unsigned int vanished;	/* ... of them without a word (killed): their loss unknown */
	unsigned int owned;	/* times this process owned the ring */
	pid_t owner;		/* the owner now; this process's pid when it owns it */
};

struct bb_events_reader;

/*
 * A reader of the instance at pin_dir (state directory: state.h's): connected to the
 * owner, or owning the ring when no one does (a thread of this process, until close).
 * 0, or -errno (said).
 */
int bb_events_open(struct bb_events_reader **r, const char *pin_dir, enum bb_events_from from);
/*
 * The next event into *rec, waiting timeout_ms at most (-1: no limit): 1, 0 when none
 * came, -ENODATA at the end of what BB_EVENTS_TAKE owed, other -errno (said). An owner
 * that stops is followed to the next (or this process owns the ring); what that lost
 * is in the tally.
 */
int bb_events_next(struct bb_events_reader *r, struct bb_events_rec *rec, int timeout_ms);
const struct bb_events_tally *bb_events_tally(const struct bb_events_reader *r);
/* The events returned taken (a taking reader's), the owner left, or stopped when ours. */
void bb_events_close(struct bb_events_reader *r);

#endif /* BB_EVENTS_HUB_H */

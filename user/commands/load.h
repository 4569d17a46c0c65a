/* SPDX-License-Identifier: GPL-2.0 */
/* bloomblock load, inside: its options as given, the state of one run, the summaries it prints. */
#ifndef BB_LOAD_H
#define BB_LOAD_H

#include <pthread.h>
#include <time.h>
#include <stdbool.h>

#include "attach.h"
#include "common.h"
#include "bbf.h"
#include "filter.h"
#include "guard.h"
#include "list.h"
#include "options.h"
#include "pins.h"
#include "reload_guard.h"

enum stream_when { STREAM_AUTO, STREAM_ALWAYS, STREAM_NEVER };

/* One list of the command line, and how it is read. */
struct list_arg {
	const char *path;
	struct bb_file_opts read;
	const char *origin;	/* "list", "allow" (--allow), "guard", "kept" (allow.list) */
};

/*
 * The options that say how lists read apply to the lists after them; one given after
 * the last list applies to every list that none preceded.
 */
enum { READ_FORMAT, READ_COLUMN, READ_URLS, READ_SETS, READ_MAX };

struct list_args {
	struct list_arg *v;
	bool (*given)[READ_MAX];	/* per list: the option was given before it */
	int n, cap;
	struct bb_file_opts cur;	/* as given so far */
	bool cur_given[READ_MAX];
	const char *cur_origin;		/* the next list's origin; NULL: "list" */
	bool trail_given[READ_MAX];	/* given after the last list so far */
};

/* load's options, as given: each field set from the option table in cmd_load.c. */
/* The bounds a load reads its lists within (docs/RELIABILITY.md, "Bounded by design"). */
#define BB_MAX_ENTRIES_DEFAULT		50000000ULL	/* a few GiB of memory parsed */
#define BB_MAX_LIST_SIZE_DEFAULT	(4ULL << 30)	/* 4 GiB a list, inflated */

struct bb_list_counts;
/* Entries the counts say were read (new, duplicate, allowlist): what --max-entries bounds. */
__u64 load_entries_read(const struct bb_list_counts *c);

struct load_opts {
	struct bb_targets targets;	/* -i, --hook; no hook given: xdp */
	int xdp_mode;			/* enum bb_xdp_mode */
	int xdp_attach;			/* enum bb_xdp_attach: --xdp-attach */
	int mode;			/* 0 drop, 1 flag, 2 confirm */
	int daemon_down;		/* confirm mode: 0 pass, 1 drop */
	int answer;			/* 0 drop, 1 reject, 2 sinkhole (DNS, at XDP) */
	__u32 answer_rate;		/* --answer-rate: answers a second a CPU */
	int addr;			/* 0 peer, 1 both */
	bool block_quic;
	__u32 mark;
	__u32 events_rate, events_burst;	/* --events, --events-burst */
	__u16 dns_ports[BB_MAX_PORTS], tls_ports[BB_MAX_PORTS], http_ports[BB_MAX_PORTS],
	      quic_ports[BB_MAX_PORTS];
	double fpr;			/* per check of a packet (enum bb_check) */
	__u64 capacity;			/* --capacity: keys to size for, at least */
	__u32 room;			/* --room: BB_HDR_F_ROOM_* */
	__u64 max_entries;		/* --max-entries: entries a load reads; 0: no bound */
	unsigned long long max_list_size;	/* --max-list-size: bytes of a list; 0: none */
	__u64 seed;			/* 0: random */
	unsigned int threads;		/* 0: one per online CPU */
	int stream;			/* enum stream_when */
	bool strict, verbose;
	bool allow_shrink;		/* --allow-shrink: the reload guard's shrink and rejects */
	bool allow_wide;		/* --allow-wide */
	bool force;			/* --force: replace an XDP program bloomblock did not attach */
	bool build;			/* bloomblock build: no instance, a file */
	const char *output;		/* build -o FILE */
	bool no_guard, guard;		/* --no-guard, --guard: given.guard says which came */
	bool no_index;			/* --no-index: keep no key index (check cannot attribute) */
	/* What a reload keeps from the live filter unless it is given. */
	struct {
		bool mode, addr, block_quic, mark, dns_ports, tls_ports, http_ports,
		     quic_ports, guard, events, events_burst, daemon_down, answer, answer_rate,
		     room;
	} given;
	struct list_args lists;
};

/* The instance, opened or created in a thread while the lists are parsed. */
struct instance_job {
	struct bb_instance inst;
	bool may_create;	/* interfaces given: a missing instance is created */
	unsigned int families;	/* the program families the hooks need */
	bool tried_create, created;
	int err;
	double seconds;		/* how long it took (a first load: the verifier's time) */
};

/* One run of load: what every step reads and leaves for the next. */
struct load_run {
	const struct load_opts *o;
	struct instance_job ij;
	pthread_t instance_tid;
	bool instance_thread;	/* the thread is still to be joined */
	struct bb_list list;
	struct bb_list_opts lopts;
	bool streamed;
	struct bb_key_tally *tallies, tally;	/* streamed: per parse thread, summed */
	struct bb_list_counts *file_counts;	/* streamed: the first pass's, per list */
	struct bb_filter_opts fopts;
	struct bb_filter filter;
	struct bb_filter_map fmap;
	__u64 repeats;				/* streamed: keys that found their bits set */
	bool attached_now[BB_MAX_TARGETS], tc_attached_now[BB_MAX_TARGETS][2];
	double t_parse, t_build, t_push;
	json_t *files_json;
	int lock;		/* the state directory's lock (state.h), held to the swap */
	struct bbf_file bbf;	/* a filter file loaded in place of lists */
	bool from_bbf;
	int bbf_index;		/* its place among the lists */
	struct bb_index index;	/* the key index, written after the swap */
	/* streamed with the index: one pass, the records spooled (filter.h); the index
	 * sorted into index_file before the build, committed after the swap */
	struct bb_spool *spool;
	struct bb_index_file index_file;
	__u64 index_recs;
	int index_err;		/* why index_file is not whole, or 0 */
	double t_index, t_bits, t_wait, t_commit;	/* the steps inside build, for -d */
	size_t *part_base[BB_INDEX_MAX_SOURCES];	/* streamed: each list's parts' first
							 * lines, for the index */
	size_t n_parts[BB_INDEX_MAX_SOURCES];
	struct bb_guard guard;	/* what the host needs (guard.h) */
	bool guard_on;
	struct reload_refusal refusal;	/* what the reload guard refused (reload_guard.h) */
};

/*
 * load's options in groups (load_args.c): the host's (where it attaches, the guard),
 * the filter's (how lists are read, what it does: build's and the daemon's too), and
 * build's own; the notes after load's help.
 */
extern const struct bb_option load_host_options[], load_filter_options[], build_options[];
extern const char load_notes[];
/* The command line of load or build into o. -1: go on; else the exit status. */
int load_parse_args(const struct bb_command *cmd, int argc, char **argv, struct load_opts *o);
/* A list, in its place on the command line: it reads as the options before it say. */
int list_arg_add(void *ctx, const char *path);
/*
 * The steps load and build share (load_steps.c): every list parsed and its summary
 * printed; the filter built (into the new map for load, in memory for build).
 */
int load_parse_lists(struct load_run *run);
/* A filter file's line in the summary, and its object in the JSON's files. */
void load_report_bbf(struct load_run *run, const char *path);
int load_build_filter(struct load_run *run);
/*
 * A one-pass streamed load's plan and index (the spool's buckets sorted and written
 * to the index file), before the build: on a first load, while the programs are
 * still being verified. A spool that could not be written is dropped, the build
 * then parsing the lists again (two passes). 0, or the plan's error.
 */
int load_index_spool(struct load_run *run);
/* The key index of what run built (streamed records rebased, or one more pass), with
 * the lists' names and the index's header. */
int load_index(struct load_run *run, const char **sources, unsigned int *n_src,
	       struct bb_index_meta *meta);

/* The summary of one file: its line, an ipset file's sets, a warning; its JSON. */
json_t *load_report_file(const char *path, const struct bb_list_counts *c,
			 const struct bb_file_info *info, bool streamed);
json_t *load_counts_json(const struct bb_list_counts *c, bool streamed);
/*
 * The block entries of a file that share an address with what the guard watches
 * (the first line for each), as warnings, into its JSON's "warnings" too.
 */
void load_report_watched(json_t *file, const char *path, const struct bb_file_info *info,
			 const struct bb_guard *g, bool guard_on);
/* The new filter: keys, size, FPR, probes, timing (and the whole run's JSON). */
void load_report_filter(struct load_run *run);

/* Seconds since since (CLOCK_MONOTONIC): a step's time in the summary. */
double load_elapsed(const struct timespec *since);

/* The name a list goes by in messages: "<stdin>" for "-". */
const char *load_list_name(const char *path);

#endif /* BB_LOAD_H */

/* SPDX-License-Identifier: GPL-2.0 */
/* The pinned instance under --pin-dir: maps, program, links; and the filter swap. */
#ifndef BB_PINS_H
#define BB_PINS_H

#include <stdbool.h>
#include <stddef.h>

#include "bloomblock.h"
#include "filter.h"

struct bpf_object;

/*
 * The programs come in two families, XDP and tc, each an entry program (two at tc),
 * the URL program it tail-calls and the table that holds it. An instance loads the families its
 * hooks need, and another one when a later load asks for a hook of it: verifying a
 * family takes the kernel most of a second.
 */
enum bb_family {
	BB_FAMILY_XDP = 1,
	BB_FAMILY_TC = 2,
	BB_FAMILY_ALL = BB_FAMILY_XDP | BB_FAMILY_TC,
};

struct bb_instance {
	char pin_dir[256];
	int filters_fd;		/* outer ARRAY_OF_MAPS */
	int stats_fd;		/* PERCPU_ARRAY of struct bb_stats */
	int prog_fd;		/* XDP program; -1: the XDP family is not loaded */
	int tc_ingress_fd;	/* tc programs; -1: the tc family is not loaded */
	int tc_egress_fd;
	int xdp_reset_fd;	/* beside XDP, at tc ingress: the client's reset; -1: none */
};

/* The families an instance has loaded. */
unsigned int bb_instance_families(const struct bb_instance *inst);

/* A read-only view of the live filter map. */
struct bb_image {
	const struct bb_block *blocks;	/* element 0 is the header */
	struct bb_block *mem;		/* the same, writable: bb_image_open_writable() */
	size_t map_size;
	__u32 map_id;
};

int bb_pin_path(char *buf, size_t size, const char *pin_dir, const char *name);
/*
 * fn(map_fd, its kernel name (15 characters at most), arg) for each map the program
 * prog_fd holds, until fn returns a negative errno, which is returned; else 0.
 */
int bb_prog_maps(int prog_fd, int (*fn)(int map_fd, const char *name, void *arg), void *arg);

/*
 * Open the pinned instance. -ENOENT when there is none; -EUCLEAN when the pin dir holds
 * pins but not those an instance needs (deleted by hand, or a load killed half way).
 */
int bb_instance_open(const char *pin_dir, struct bb_instance *inst);
/* The same, -ENOENT for both. */
int bb_instance_open_pins(const char *pin_dir, struct bb_instance *inst);
/*
 * Pins deleted by hand, restored from what is left: the program an XDP link runs, the
 * maps each pinned program holds (they live on while it does). The number restored
 * (their names in said, comma-separated), or -errno.
 */
int bb_instance_repair(const char *pin_dir, char *said, size_t size);
/*
 * A tail-call table whose last pin went is emptied by the kernel: its programs loaded
 * again into it (the entry programs attached run on). The families refilled, or -errno.
 */
int bb_instance_refill(struct bb_instance *inst);
/* What of an open instance is damaged, said in said: 0 when nothing. */
int bb_instance_check(const struct bb_instance *inst, char *said, size_t size);
/* bb_instance_open(), its failure said: damaged, or nothing loaded (and why). */
int bb_instance_open_said(const char *pin_dir, struct bb_instance *inst);
/* The error for -EUCLEAN: what is wrong, and what repairs or removes it. */
void bb_instance_say_damaged(const char *pin_dir);
/* Load the programs of families (enum bb_family) and pin them and the maps. */
int bb_instance_create(const char *pin_dir, struct bb_instance *inst, unsigned int families);
/* Load the families of families that inst has not, sharing its pinned maps. */
int bb_instance_add(struct bb_instance *inst, unsigned int families);
/*
 * Fill the tail-call tables of families in a loaded object (the instance's, or a
 * test's or the benchmark's skeleton, which hold the same programs).
 */
int bb_stage_tables_fill(struct bpf_object *obj, unsigned int families);
void bb_instance_close(struct bb_instance *inst);
/*
 * Remove the instance's pins, by name (the maps', the programs', the attachments'
 * records), and the directory when bloomblock made it and nothing else is in it: a
 * pin of anyone else stays, and so does its directory.
 */
int bb_instance_remove(const char *pin_dir);
/* Whether name is one of an instance's pins (bb_instance_remove() takes it). */
bool bb_instance_pin_name(const char *name);

/*
 * What the instance records of itself, in a map of its own pinned beside it (a BPF
 * filesystem holds no files): whether bloomblock made the pin directory, and where
 * the state directory is when one was given (state.h).
 */
struct bb_instance_rec {
	__u32 magic;			/* BB_INSTANCE_REC_MAGIC */
	__u32 flags;			/* BB_INSTANCE_F_* */
	char state_dir[248];		/* "": the default one */
};
#define BB_INSTANCE_REC_MAGIC	0x62626972	/* "bbir" */
#define BB_INSTANCE_F_PIN_DIR_MADE	(1U << 0)

/* The record: 0, -ENOENT when there is none (an instance of an earlier version). */
int bb_instance_record_read(const char *pin_dir, struct bb_instance_rec *rec);
/* The record written, its map made and pinned when missing. 0 or -errno. */
int bb_instance_record_write(const char *pin_dir, const struct bb_instance_rec *rec);

/* A new filter map, mapped writable: the inner map bb_filter_swap() puts live. */
struct bb_filter_map {
	int fd;
	struct bb_block *mem;	/* element 0 is the header */
	size_t map_len;
	__u32 nblocks, allow_blocks;
};

int bb_filter_map_create(struct bb_filter_map *map, __u32 nblocks, __u32 allow_blocks);
void bb_filter_map_close(struct bb_filter_map *map);
/*
 * For bb_filter_opts.blocks_alloc, with blocks_ctx a struct bb_filter_map: create the
 * map when the builder knows the size, and have the bits set straight into it.
 */
struct bb_block *bb_filter_map_blocks(void *map, __u32 nblocks, __u32 allow_blocks);

/*
 * Write filter's image into map (the bits only when not built there), then swap map
 * into the outer slot: the one step packets can see. Nothing live changes on failure.
 * header.generation is set to the live one plus one. The map stays the caller's.
 */
int bb_filter_swap(struct bb_instance *inst, struct bb_filter *filter, struct bb_filter_map *map);
/*
 * Swap in a map whose image is written already (a filter file's, copied): its
 * generation (the live one plus one) and its allowlist's map id set first.
 */
int bb_map_swap(struct bb_instance *inst, struct bb_filter_map *map);

/* bb_filter_map_create(), bb_filter_swap(), bb_filter_map_close(): for a built filter. */
int bb_filter_push(struct bb_instance *inst, struct bb_filter *filter);

/* Map the live filter read-only. -ENOENT when the slot is empty. */
int bb_image_open(const struct bb_instance *inst, struct bb_image *img);
/* Map it writable, for what changes it in place (allow, disallow). */
int bb_image_open_writable(const struct bb_instance *inst, struct bb_image *img);
void bb_image_close(struct bb_image *img);

/* Sum the per-CPU counters of the stats map stats_fd, over its slots (every hook's). */
int bb_stats_read_fd(int stats_fd, struct bb_stats *sum);
/*
 * Sum those of one hook (enum bb_event_hook): its slot. Zeros for a map with no such
 * slot; slot 0 is no hook's, where an instance an earlier version loaded counts every
 * hook.
 */
int bb_stats_read_hook_fd(int stats_fd, __u32 hook, struct bb_stats *sum);
static inline int bb_stats_read(const struct bb_instance *inst, struct bb_stats *sum)
{
	return bb_stats_read_fd(inst->stats_fd, sum);
}
/* d = after - before, counter by counter. */
void bb_stats_delta(struct bb_stats *d, const struct bb_stats *after,
		    const struct bb_stats *before);

#endif /* BB_PINS_H */

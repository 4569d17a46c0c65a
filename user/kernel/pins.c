// SPDX-License-Identifier: GPL-2.0
/* The pinned instance: create or reopen it, swap filters in, read counters. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "env.h"
#include "fault.h"
#include "bloomblock.skel.h"
#include "msg.h"
#include "pins.h"

int bb_pin_path(char *buf, size_t size, const char *pin_dir, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", pin_dir, name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int open_pin(const char *pin_dir, const char *name)
{
	char path[512];
	int fd;

	if (bb_pin_path(path, sizeof(path), pin_dir, name))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

static void instance_reset(struct bb_instance *inst, const char *pin_dir)
{
	memset(inst, 0, sizeof(*inst));
	snprintf(inst->pin_dir, sizeof(inst->pin_dir), "%s", pin_dir);
	inst->filters_fd = inst->stats_fd = inst->prog_fd = -1;
	inst->tc_ingress_fd = inst->tc_egress_fd = inst->xdp_reset_fd = -1;
}

/* A pinned program, or -1 when its family is not loaded; other errors go to *err. */
static int open_prog_pin(const char *pin_dir, const char *name, int *err)
{
	int fd = open_pin(pin_dir, name);

	if (fd < 0 && fd != -ENOENT && !*err)
		*err = fd;
	return fd < 0 ? -1 : fd;
}

unsigned int bb_instance_families(const struct bb_instance *inst)
{
	return (inst->prog_fd >= 0 ? BB_FAMILY_XDP : 0) |
	       (inst->tc_ingress_fd >= 0 && inst->tc_egress_fd >= 0 ? BB_FAMILY_TC : 0);
}

/* Whether the pin dir holds any pin of an instance (a half-made or damaged one if so). */
static bool pins_left(const char *pin_dir)
{
	DIR *dir = opendir(pin_dir);
	struct dirent *de;
	bool any = false;

	while (dir && !any && (de = readdir(dir)))
		any = bb_instance_pin_name(de->d_name) && strcmp(de->d_name, BB_PIN_INSTANCE);
	if (dir)
		closedir(dir);
	return any;
}

int bb_instance_open(const char *pin_dir, struct bb_instance *inst)
{
	int err = bb_instance_open_pins(pin_dir, inst);

	return err == -ENOENT && pins_left(pin_dir) ? -EUCLEAN : err;
}

int bb_instance_open_pins(const char *pin_dir, struct bb_instance *inst)
{
	int err;

	instance_reset(inst, pin_dir);
	inst->filters_fd = open_pin(pin_dir, BB_PIN_FILTERS);
	if (inst->filters_fd < 0) {
		err = inst->filters_fd;
		goto cleanup;
	}
	inst->stats_fd = open_pin(pin_dir, BB_PIN_STATS);
	if (inst->stats_fd < 0) {
		err = inst->stats_fd;
		goto cleanup;
	}
	err = 0;
	inst->prog_fd = open_prog_pin(pin_dir, BB_PIN_PROG_XDP, &err);
	inst->xdp_reset_fd = open_prog_pin(pin_dir, BB_PIN_PROG_XDP_RESET, &err);
	inst->tc_ingress_fd = open_prog_pin(pin_dir, BB_PIN_PROG_TC_INGRESS, &err);
	inst->tc_egress_fd = open_prog_pin(pin_dir, BB_PIN_PROG_TC_EGRESS, &err);
	if (!err && !bb_instance_families(inst))
		err = -ENOENT;	/* half removed: no program left */
	if (err)
		goto cleanup;
	return 0;
cleanup:
	bb_instance_close(inst);
	return err;
}

/* What each family's tail-call tables hold, slot by slot (include/bloomblock.h). */
static const struct {
	unsigned int family;
	const char *table, *prog;
	__u32 slot;
} stage_tables[] = {
	{ BB_FAMILY_XDP, "stages_xdp", "bloomblock_xdp_dns", BB_STAGE_DNS },
	{ BB_FAMILY_XDP, "stages_xdp", "bloomblock_xdp_tls", BB_STAGE_TLS },
	{ BB_FAMILY_XDP, "stages_xdp", "bloomblock_xdp_http", BB_STAGE_HTTP },
	{ BB_FAMILY_XDP, "url_xdp", "bloomblock_xdp_url", BB_URL_SLOT },
	{ BB_FAMILY_XDP, "url_xdp", "bloomblock_xdp_answer", BB_ANSWER_SLOT },
	{ BB_FAMILY_XDP, "url_xdp", "bloomblock_xdp_reset", BB_RESET_SLOT },
	{ BB_FAMILY_TC, "stages_tc", "bloomblock_tc_dns", BB_STAGE_DNS },
	{ BB_FAMILY_TC, "stages_tc", "bloomblock_tc_tls", BB_STAGE_TLS },
	{ BB_FAMILY_TC, "stages_tc", "bloomblock_tc_http", BB_STAGE_HTTP },
	{ BB_FAMILY_TC, "url_tc", "bloomblock_tc_url", BB_URL_SLOT },
	{ BB_FAMILY_TC, "url_tc", "bloomblock_tc_reset", BB_RESET_SLOT },
	{ BB_FAMILY_TC, "url_tc", "bloomblock_tc_answer_ingress", BB_ANSWER_SLOT },
	{ BB_FAMILY_TC, "url_tc", "bloomblock_tc_answer_egress", BB_ANSWER_EGRESS_SLOT },
};

int bb_stage_tables_fill(struct bpf_object *obj, unsigned int families)
{
	size_t i;

	for (i = 0; i < sizeof(stage_tables) / sizeof(stage_tables[0]); i++) {
		struct bpf_map *table;
		struct bpf_program *prog;
		int fd;

		if (!(families & stage_tables[i].family))
			continue;
		table = bpf_object__find_map_by_name(obj, stage_tables[i].table);
		prog = bpf_object__find_program_by_name(obj, stage_tables[i].prog);
		fd = prog ? bpf_program__fd(prog) : -1;
		if (!table || fd < 0)
			return -ENOENT;
		if (bpf_map_update_elem(bpf_map__fd(table), &stage_tables[i].slot, &fd, BPF_ANY))
			return -errno;
	}
	return 0;
}

/*
 * Which family a program of the object belongs to, by its section; and the tc program
 * that sends the client's reset beside an XDP attachment (bloomblock_tc_xdp_reset) is
 * the XDP family's.
 */
static unsigned int prog_family(const struct bpf_program *prog)
{
	if (!strcmp(bpf_program__name(prog), "bloomblock_tc_xdp_reset"))
		return BB_FAMILY_XDP;
	return strcmp(bpf_program__section_name(prog), "xdp") ? BB_FAMILY_TC : BB_FAMILY_XDP;
}

/*
 * Whether map's pin (if any) is a map this version's programs can share: its type and
 * sizes as the object defines them. libbpf refuses one that is not, and the load then
 * fails as "invalid argument": said here instead, with what differs and what to do.
 * An instance an earlier version made keeps its maps across loads (its filter is
 * swapped, its maps stay), so only loading more programs into it meets this.
 */
static int pinned_map_fits(const struct bpf_map *map, const char *pin_dir)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	const char *path = bpf_map__pin_path(map);
	int fd = path ? bpf_obj_get(path) : -1, err = 0;

	if (fd < 0)
		return 0;	/* none yet: made and pinned by the load */
	if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
	    (info.type != bpf_map__type(map) || info.key_size != bpf_map__key_size(map) ||
	     info.value_size != bpf_map__value_size(map) ||
	     info.max_entries != bpf_map__max_entries(map))) {
		pr_err("%s: made by another version of bloomblock (%u entries of %u bytes; this "
		       "version's: %u of %u): its programs cannot share it. Run `bloomblock "
		       "--pin-dir %s unload --all` and load again (the counters start anew)\n",
		       path, info.max_entries, info.value_size, bpf_map__max_entries(map),
		       bpf_map__value_size(map), pin_dir);
		err = -EINVAL;
	}
	close(fd);
	return err;
}

/* bb_prog_maps()'s fn: the program's scratch map reused by the map in arg (a skeleton's). */
static int reuse_scratch(int map_fd, const char *name, void *arg)
{
	return strcmp(name, "scratch") ? 0 : bpf_map__reuse_fd(arg, map_fd);
}

/*
 * What the programs call that a kernel may lack, probed before the load (never
 * guessed from a version): a kernel without one is refused with its name and the
 * Linux version that brought it, not with the verifier's "unknown func". BB_TEST_LACKS
 * (tests only) names one to take as missing.
 */
static int features_check(unsigned int families)
{
	static const struct {
		enum bpf_prog_type type;
		enum bpf_func_id id;
		unsigned int families;
		const char *name, *since;
	} features[] = {
		{ BPF_PROG_TYPE_XDP, BPF_FUNC_ringbuf_reserve, BB_FAMILY_ALL,
		  "BPF ring buffers (bpf_ringbuf_reserve())", "5.8" },
		{ BPF_PROG_TYPE_XDP, BPF_FUNC_loop, BB_FAMILY_XDP, "bpf_loop()", "5.17" },
		{ BPF_PROG_TYPE_SCHED_CLS, BPF_FUNC_loop, BB_FAMILY_TC, "bpf_loop()", "5.17" },
		{ BPF_PROG_TYPE_XDP, BPF_FUNC_xdp_load_bytes, BB_FAMILY_XDP,
		  "bpf_xdp_load_bytes()", "5.18" },
	};
	const char *lacks = getenv("BB_TEST_LACKS");
	size_t i;
	int have;

	for (i = 0; i < sizeof(features) / sizeof(features[0]); i++) {
		if (!(families & features[i].families))
			continue;
		have = lacks && !strcmp(lacks, features[i].name) ? 0 :
		       libbpf_probe_bpf_helper(features[i].type, features[i].id, NULL);
		if (have == 0) {	/* < 0: the probe itself failed; the load will say why */
			pr_err("this kernel (%s) lacks %s, which bloomblock's programs call: Linux "
			       "%s or later has it\n", bb_kernel_release(), features[i].name,
			       features[i].since);
			return -EOPNOTSUPP;
		}
	}
	return 0;
}

/*
 * Load the programs of families, sharing the pinned maps (libbpf reuses a map whose
 * pin path exists, and pins the others), fill their tail-call tables and pin their
 * entry programs into inst.
 */
static int load_families(struct bb_instance *inst, unsigned int families, bool pin_entries)
{
	static const struct { const char *map, *pin; } pins[] = {
		{ "filters", BB_PIN_FILTERS },
		{ "stats", BB_PIN_STATS },
		/* one ring of hit events and one rate limit for every hook's programs */
		{ "events", BB_PIN_EVENTS },
		{ "event_bucket", BB_PIN_EVENT_BUCKET },
		/* where XDP's answers leave from tc (load fills it) */
		{ "tx_via_tc", BB_PIN_TX_VIA_TC },
		/* confirm mode's, shared with bloomblock run */
		{ "confirm_ring", BB_PIN_CONFIRM_RING },
		{ "confirmed", BB_PIN_CONFIRMED },
		{ "unlisted", BB_PIN_UNLISTED },
		{ "confirm_daemon", BB_PIN_CONFIRM_DAEMON },
		/* pinned, or the kernel empties the tail-call tables when we exit */
		{ "stages_xdp", BB_PIN_STAGES_XDP },
		{ "stages_tc", BB_PIN_STAGES_TC },
		{ "url_xdp", BB_PIN_URL_XDP },
		{ "url_tc", BB_PIN_URL_TC },
	};
	const char *pin_dir = inst->pin_dir;
	struct bpf_program *prog;
	struct bloomblock *skel;
	char path[512];
	size_t i;
	int err = 0;

	skel = bloomblock__open();
	if (!skel) {
		err = -errno;
		pr_err("cannot open the BPF object: %s\n", strerror(-err));
		return err;
	}
	for (i = 0; !err && i < sizeof(pins) / sizeof(pins[0]); i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(skel->obj, pins[i].map);

		err = map ? bb_pin_path(path, sizeof(path), pin_dir, pins[i].pin) : -ENOENT;
		err = err ?: bpf_map__set_pin_path(map, path);
	}
	bpf_object__for_each_program(prog, skel->obj)
		err = err ?: bpf_program__set_autoload(prog, families & prog_family(prog)) ?:
			     /*
			      * No expected attach type (libbpf gives SEC("xdp") BPF_XDP): a
			      * kernel with the tail-call owner check (Linux 6.1.y, 6.12.y
			      * stable) lets a program tail-call into a prog array only when
			      * its expected attach type is the array's owner's, and libxdp's
			      * copy of the entry program, an extension, has none.
			      */
			     bpf_program__set_expected_attach_type(prog, 0);
	for (i = 0; !err && i < sizeof(pins) / sizeof(pins[0]); i++)
		err = pinned_map_fits(bpf_object__find_map_by_name(skel->obj, pins[i].map), pin_dir);
	/*
	 * A refill's stages read what the live entry program writes: its scratch (struct
	 * bb_stage), not one of their own. One family at a time (bb_instance_refill()).
	 */
	if (!err && !pin_entries)
		err = bb_prog_maps(families & BB_FAMILY_XDP ? inst->prog_fd : inst->tc_ingress_fd,
				   reuse_scratch, skel->maps.scratch);
	if (err)
		goto cleanup;
	err = features_check(families);
	if (err)
		goto cleanup;
	err = bloomblock__load(skel);
	if (err) {
		char why[400];

		if (bb_libbpf_refusal(why, sizeof(why)))
			pr_err("the kernel (%s) refused the BPF %s (%s); -d shows the verifier's "
			       "whole log\n", bb_kernel_release(), why, strerror(-err));
		else
			pr_err("the kernel (%s) refused the BPF programs: %s (-d shows the "
			       "verifier's log)\n", bb_kernel_release(), strerror(-err));
		goto cleanup;
	}
	err = bb_stage_tables_fill(skel->obj, families);
	if (err) {
		pr_err("cannot fill the tail-call tables: %s\n", strerror(-err));
		goto cleanup;
	}
	if (!pin_entries)	/* a refill: the tables hold the new programs, the old run on */
		goto cleanup;
	if (families & BB_FAMILY_XDP) {
		err = bb_pin_path(path, sizeof(path), pin_dir, BB_PIN_PROG_XDP);
		err = err ?: bpf_program__pin(skel->progs.bloomblock_xdp, path);
		err = err ?: bb_pin_path(path, sizeof(path), pin_dir, BB_PIN_PROG_XDP_RESET);
		err = err ?: bpf_program__pin(skel->progs.bloomblock_tc_xdp_reset, path);
		inst->prog_fd = err ? -1 : dup(bpf_program__fd(skel->progs.bloomblock_xdp));
		inst->xdp_reset_fd = err ? -1 :
			dup(bpf_program__fd(skel->progs.bloomblock_tc_xdp_reset));
	}
	if (!err && (families & BB_FAMILY_TC)) {
		err = bb_pin_path(path, sizeof(path), pin_dir, BB_PIN_PROG_TC_INGRESS);
		err = err ?: bpf_program__pin(skel->progs.bloomblock_tc_ingress, path);
		err = err ?: bb_pin_path(path, sizeof(path), pin_dir, BB_PIN_PROG_TC_EGRESS);
		err = err ?: bpf_program__pin(skel->progs.bloomblock_tc_egress, path);
		if (!err) {
			inst->tc_ingress_fd = dup(bpf_program__fd(skel->progs.bloomblock_tc_ingress));
			inst->tc_egress_fd = dup(bpf_program__fd(skel->progs.bloomblock_tc_egress));
		}
	}
	if (err) {
		pr_err("cannot pin the programs in %s: %s\n", pin_dir, strerror(-err));
		goto cleanup;
	}
	if (inst->filters_fd < 0)
		inst->filters_fd = dup(bpf_map__fd(skel->maps.filters));
	if (inst->stats_fd < 0)
		inst->stats_fd = dup(bpf_map__fd(skel->maps.stats));
	if (inst->filters_fd < 0 || inst->stats_fd < 0 ||
	    ((families & BB_FAMILY_XDP) && inst->prog_fd < 0) ||
	    ((families & BB_FAMILY_TC) && (inst->tc_ingress_fd < 0 || inst->tc_egress_fd < 0)))
		err = -errno;
cleanup:
	bloomblock__destroy(skel);
	return err;
}

int bb_instance_create(const char *pin_dir, struct bb_instance *inst, unsigned int families)
{
	bool had_pins = pins_left(pin_dir);
	int err;

	struct bb_instance_rec rec;
	bool made;

	instance_reset(inst, pin_dir);
	made = !mkdir(pin_dir, 0700);
	if (!made && errno != EEXIST) {
		err = -errno;
		pr_err("cannot create %s: %s\n", pin_dir, strerror(-err));
		return err;
	}
	if (bb_instance_record_read(pin_dir, &rec))
		memset(&rec, 0, sizeof(rec));
	if (made)
		rec.flags |= BB_INSTANCE_F_PIN_DIR_MADE;
	err = bb_instance_record_write(pin_dir, &rec);
	if (err) {
		pr_err("cannot pin the instance's record in %s: %s\n", pin_dir, strerror(-err));
		if (made)
			rmdir(pin_dir);
		return err;
	}
	err = load_families(inst, families, true);
	if (err) {
		bb_instance_close(inst);
		/* a half-made instance's pins stay (unload removes them), ours go */
		if (!had_pins)
			bb_instance_remove(pin_dir);
	}
	return err;
}

/* The pin each of the programs' maps has, by the map's name (the kernel's, 15 chars). */
static const struct { const char *map, *pin; } instance_maps[] = {
	{ "filters", BB_PIN_FILTERS }, { "stats", BB_PIN_STATS }, { "events", BB_PIN_EVENTS },
	{ "event_bucket", BB_PIN_EVENT_BUCKET }, { "tx_via_tc", BB_PIN_TX_VIA_TC },
	{ "confirm_ring", BB_PIN_CONFIRM_RING },
	{ "confirmed", BB_PIN_CONFIRMED }, { "unlisted", BB_PIN_UNLISTED },
	{ "confirm_daemon", BB_PIN_CONFIRM_DAEMON }, { "stages_xdp", BB_PIN_STAGES_XDP },
	{ "stages_tc", BB_PIN_STAGES_TC }, { "url_xdp", BB_PIN_URL_XDP }, { "url_tc", BB_PIN_URL_TC },
};

/* fd pinned as name where nothing is: 1 pinned, 0 there already, -errno. */
static int repin(const char *pin_dir, const char *name, int fd, char *said, size_t size)
{
	char path[512];
	size_t len;

	if (bb_pin_path(path, sizeof(path), pin_dir, name))
		return -ENAMETOOLONG;
	if (!access(path, F_OK))
		return 0;
	if (bpf_obj_pin(fd, path))
		return -errno;
	len = strlen(said);
	snprintf(said + len, size - len, "%s%s", len ? ", " : "", name);
	return 1;
}

int bb_prog_maps(int prog_fd, int (*fn)(int map_fd, const char *name, void *arg), void *arg)
{
	__u32 ids[64] = { 0 }, len, i, n;	/* zeroed: valgrind cannot see the kernel fill it */
	struct bpf_prog_info info;
	int err = 0;

	memset(&info, 0, sizeof(info));
	info.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	info.map_ids = (__u64)(unsigned long)ids;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	n = info.nr_map_ids < 64 ? info.nr_map_ids : 64;
	for (i = 0; i < n && err >= 0; i++) {
		struct bpf_map_info mi;
		__u32 mlen = sizeof(mi);
		int fd = bpf_map_get_fd_by_id(ids[i]);

		if (fd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		if (!bpf_obj_get_info_by_fd(fd, &mi, &mlen))
			err = fn(fd, mi.name, arg);
		close(fd);
	}
	return err < 0 ? err : 0;
}

/* What repin_maps() pins again, and how many. */
struct repin_ctx {
	const char *pin_dir;
	char *said;
	size_t size;
	int restored;
};

static int repin_one(int map_fd, const char *name, void *arg)
{
	struct repin_ctx *c = arg;
	size_t m;
	int r;

	for (m = 0; m < sizeof(instance_maps) / sizeof(instance_maps[0]); m++) {
		if (strcmp(name, instance_maps[m].map))
			continue;
		r = repin(c->pin_dir, instance_maps[m].pin, map_fd, c->said, c->size);
		if (r < 0)
			return r;
		c->restored += r > 0;
	}
	return 0;
}

/* The maps a program holds, pinned again where their pins are gone. */
static int repin_maps(const char *pin_dir, int prog_fd, char *said, size_t size)
{
	struct repin_ctx c = { pin_dir, said, size, 0 };
	int err = bb_prog_maps(prog_fd, repin_one, &c);

	return err ?: c.restored;
}

int bb_instance_repair(const char *pin_dir, char *said, size_t size)
{
	static const char *const progs[] = {
		BB_PIN_PROG_XDP, BB_PIN_PROG_XDP_RESET, BB_PIN_PROG_TC_INGRESS,
		BB_PIN_PROG_TC_EGRESS,
	};
	size_t prefix = strlen(BB_PIN_LINK_PREFIX), p;
	int restored = 0, err = 0, r, fd;
	struct dirent *de;
	char path[512];
	DIR *dir;

	said[0] = '\0';
	dir = opendir(pin_dir);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	/* the programs the XDP links run and the tc records hold: a deleted program pin
	 * comes back from them */
	while ((de = readdir(dir)) && !err) {
		struct bpf_link_info li;
		__u32 len = sizeof(li);
		int link;

		if (bb_pin_path(path, sizeof(path), pin_dir, de->d_name))
			continue;
		if (!strncmp(de->d_name, BB_PIN_TC_INGRESS_PREFIX,
			     strlen(BB_PIN_TC_INGRESS_PREFIX)) ||
		    !strncmp(de->d_name, BB_PIN_TC_EGRESS_PREFIX, strlen(BB_PIN_TC_EGRESS_PREFIX))) {
			fd = bpf_obj_get(path);
			if (fd >= 0) {
				r = repin(pin_dir, de->d_name[3] == 'e' ? BB_PIN_PROG_TC_EGRESS :
					  BB_PIN_PROG_TC_INGRESS, fd, said, size);
				err = r < 0 ? r : 0;
				restored += r > 0;
				close(fd);
			}
			continue;
		}
		if (strncmp(de->d_name, BB_PIN_LINK_PREFIX, prefix))
			continue;
		link = bpf_obj_get(path);
		memset(&li, 0, sizeof(li));
		if (link >= 0 && !bpf_obj_get_info_by_fd(link, &li, &len)) {
			fd = bpf_prog_get_fd_by_id(li.prog_id);
			if (fd >= 0) {
				r = repin(pin_dir, BB_PIN_PROG_XDP, fd, said, size);
				err = r < 0 ? r : 0;
				restored += r > 0;
				close(fd);
			}
		}
		if (link >= 0)
			close(link);
	}
	closedir(dir);
	/* the maps every pinned program holds */
	for (p = 0; p < sizeof(progs) / sizeof(progs[0]) && !err; p++) {
		if (bb_pin_path(path, sizeof(path), pin_dir, progs[p]))
			continue;
		fd = bpf_obj_get(path);
		if (fd < 0)
			continue;
		r = repin_maps(pin_dir, fd, said, size);
		err = r < 0 ? r : 0;
		restored += r > 0 ? r : 0;
		close(fd);
	}
	return err ?: restored;
}

/* The families of inst one of whose tail-call tables has lost its programs (BB_FAMILY_*). */
static unsigned int tables_emptied(const struct bb_instance *inst)
{
	static const struct { unsigned int family; const char *pin; __u32 slot; } tables[] = {
		{ BB_FAMILY_XDP, BB_PIN_STAGES_XDP, BB_STAGE_DNS },
		{ BB_FAMILY_XDP, BB_PIN_URL_XDP, BB_URL_SLOT },
		{ BB_FAMILY_TC, BB_PIN_STAGES_TC, BB_STAGE_DNS },
		{ BB_FAMILY_TC, BB_PIN_URL_TC, BB_URL_SLOT },
	};
	unsigned int families = bb_instance_families(inst), empty = 0, i;

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		__u32 id;
		int fd;

		if (!(families & tables[i].family))
			continue;
		fd = open_pin(inst->pin_dir, tables[i].pin);
		if (fd < 0 || (bpf_map_lookup_elem(fd, &tables[i].slot, &id) && errno == ENOENT))
			empty |= tables[i].family;
		if (fd >= 0)
			close(fd);
	}
	return empty;
}

int bb_instance_refill(struct bb_instance *inst)
{
	unsigned int empty = tables_emptied(inst);
	int err = 0;

	/* a family at a time: each reuses its own entry program's scratch */
	if (empty & BB_FAMILY_XDP)
		err = load_families(inst, BB_FAMILY_XDP, false);
	if (!err && (empty & BB_FAMILY_TC))
		err = load_families(inst, BB_FAMILY_TC, false);
	return err ?: (int)empty;
}

int bb_instance_check(const struct bb_instance *inst, char *said, size_t size)
{
	unsigned int families = bb_instance_families(inst), empty = tables_emptied(inst), n = 0;
	char path[512];
	size_t i, len;

	said[0] = '\0';
	for (i = 0; i < sizeof(instance_maps) / sizeof(instance_maps[0]); i++) {
		if (((!strcmp(instance_maps[i].pin, BB_PIN_STAGES_XDP) ||
		      !strcmp(instance_maps[i].pin, BB_PIN_URL_XDP)) && !(families & BB_FAMILY_XDP)) ||
		    ((!strcmp(instance_maps[i].pin, BB_PIN_STAGES_TC) ||
		      !strcmp(instance_maps[i].pin, BB_PIN_URL_TC)) && !(families & BB_FAMILY_TC)))
			continue;
		if (bb_pin_path(path, sizeof(path), inst->pin_dir, instance_maps[i].pin) ||
		    !access(path, F_OK))
			continue;
		len = strlen(said);
		snprintf(said + len, size - len, "%s%s", n++ ? ", " : "pins gone: ",
			 instance_maps[i].pin);
	}
	if (empty) {
		len = strlen(said);
		snprintf(said + len, size - len, "%stail-call table%s emptied (%s%s%s): name "
			 "(DNS, TLS, HTTP), URL, answer or reset verdicts are off", n ? "; " : "",
			 empty == 3 ? "s" : "", empty & BB_FAMILY_XDP ? "the XDP family's" : "",
			 empty == 3 ? ", " : "", empty & BB_FAMILY_TC ? "the tc family's" : "");
		n++;
	}
	return (int)n;
}

int bb_instance_open_said(const char *pin_dir, struct bb_instance *inst)
{
	int err = bb_instance_open(pin_dir, inst);

	if (err == -EUCLEAN)
		bb_instance_say_damaged(pin_dir);
	else if (err)
		pr_err("nothing is loaded under %s: %s\n", pin_dir, strerror(-err));
	return err;
}

void bb_instance_say_damaged(const char *pin_dir)
{
	pr_err("the instance under %s is damaged or half made: pins of it are gone (deleted "
	       "by hand, or a load killed before it ended); bloomblock load repairs it, "
	       "bloomblock unload --all removes what is left\n", pin_dir);
}

/*
 * A family added to a live instance: its programs are pinned only once they are
 * loaded and their table filled, so a failure leaves what was there as it was,
 * apart from pins it made, which it removes.
 */
int bb_instance_add(struct bb_instance *inst, unsigned int families)
{
	unsigned int missing = families & ~bb_instance_families(inst);
	int err;

	if (!missing)
		return 0;
	err = load_families(inst, missing, true);
	if (err) {
		char path[512];

		if ((missing & BB_FAMILY_XDP) && inst->prog_fd < 0) {
			if (!bb_pin_path(path, sizeof(path), inst->pin_dir, BB_PIN_PROG_XDP))
				unlink(path);
			if (!bb_pin_path(path, sizeof(path), inst->pin_dir, BB_PIN_PROG_XDP_RESET))
				unlink(path);
		}
		if ((missing & BB_FAMILY_TC) && (inst->tc_ingress_fd < 0 || inst->tc_egress_fd < 0)) {
			if (!bb_pin_path(path, sizeof(path), inst->pin_dir, BB_PIN_PROG_TC_INGRESS))
				unlink(path);
			if (!bb_pin_path(path, sizeof(path), inst->pin_dir, BB_PIN_PROG_TC_EGRESS))
				unlink(path);
		}
	}
	return err;
}

void bb_instance_close(struct bb_instance *inst)
{
	if (inst->filters_fd >= 0)
		close(inst->filters_fd);
	if (inst->stats_fd >= 0)
		close(inst->stats_fd);
	if (inst->prog_fd >= 0)
		close(inst->prog_fd);
	if (inst->tc_ingress_fd >= 0)
		close(inst->tc_ingress_fd);
	if (inst->tc_egress_fd >= 0)
		close(inst->tc_egress_fd);
	if (inst->xdp_reset_fd >= 0)
		close(inst->xdp_reset_fd);
	inst->filters_fd = inst->stats_fd = inst->prog_fd = -1;
	inst->tc_ingress_fd = inst->tc_egress_fd = inst->xdp_reset_fd = -1;
}

/* The fixed names of an instance's pins; the attachments' records go by prefix. */
static const char *const pin_names[] = {
	BB_PIN_FILTERS, BB_PIN_INSTANCE, BB_PIN_STATS, BB_PIN_EVENTS, BB_PIN_EVENT_BUCKET,
	BB_PIN_TX_VIA_TC,
	BB_PIN_CONFIRM_RING, BB_PIN_CONFIRMED, BB_PIN_UNLISTED, BB_PIN_CONFIRM_DAEMON,
	BB_PIN_PROG_XDP, BB_PIN_PROG_TC_INGRESS, BB_PIN_PROG_TC_EGRESS, BB_PIN_PROG_XDP_RESET,
	BB_PIN_STAGES_XDP, BB_PIN_STAGES_TC, BB_PIN_URL_XDP, BB_PIN_URL_TC,
};
static const char *const pin_prefixes[] = {
	BB_PIN_LINK_PREFIX, BB_PIN_LIBXDP_PREFIX, BB_PIN_TC_INGRESS_PREFIX,
	BB_PIN_TC_EGRESS_PREFIX,
};

bool bb_instance_pin_name(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(pin_names) / sizeof(pin_names[0]); i++)
		if (!strcmp(name, pin_names[i]))
			return true;
	for (i = 0; i < sizeof(pin_prefixes) / sizeof(pin_prefixes[0]); i++)
		if (!strncmp(name, pin_prefixes[i], strlen(pin_prefixes[i])) &&
		    name[strlen(pin_prefixes[i])])
			return true;
	return false;
}

int bb_instance_remove(const char *pin_dir)
{
	struct bb_instance_rec rec;
	bool made = true;	/* no record: an instance of an earlier version, which made it */
	struct dirent *de;
	char path[512];
	int err = 0;
	DIR *dir;

	if (!bb_instance_record_read(pin_dir, &rec))
		made = rec.flags & BB_INSTANCE_F_PIN_DIR_MADE;
	dir = opendir(pin_dir);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(dir))) {
		if (!bb_instance_pin_name(de->d_name))
			continue;	/* not ours: it stays */
		if (bb_pin_path(path, sizeof(path), pin_dir, de->d_name) ||
		    (unlink(path) && errno != ENOENT))
			err = err ?: -errno;
	}
	closedir(dir);
	if (made && rmdir(pin_dir) && errno != ENOTEMPTY && errno != EEXIST && !err)
		err = -errno;
	return err;
}

int bb_instance_record_read(const char *pin_dir, struct bb_instance_rec *rec)
{
	__u32 key = 0;
	int fd = open_pin(pin_dir, BB_PIN_INSTANCE), err = 0;

	memset(rec, 0, sizeof(*rec));
	if (fd < 0)
		return fd;
	if (bpf_map_lookup_elem(fd, &key, rec))
		err = -errno;
	else if (rec->magic != BB_INSTANCE_REC_MAGIC)
		err = -ENOENT;
	rec->state_dir[sizeof(rec->state_dir) - 1] = '\0';
	close(fd);
	return err;
}

int bb_instance_record_write(const char *pin_dir, const struct bb_instance_rec *rec)
{
	struct bb_instance_rec r = *rec;
	char path[512];
	__u32 key = 0;
	int fd = open_pin(pin_dir, BB_PIN_INSTANCE), err = 0;

	r.magic = BB_INSTANCE_REC_MAGIC;
	if (fd == -ENOENT) {
		fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bb_instance", sizeof(key), sizeof(r), 1,
				    NULL);
		if (fd < 0)
			return -errno;
		err = bb_pin_path(path, sizeof(path), pin_dir, BB_PIN_INSTANCE);
		if (!err && bpf_obj_pin(fd, path))
			err = -errno;
	}
	if (fd < 0)
		return fd;
	if (!err && bpf_map_update_elem(fd, &key, &r, BPF_ANY))
		err = -errno;
	close(fd);
	return err;
}

static int live_filter_fd(const struct bb_instance *inst, __u32 *id)
{
	__u32 zero = 0;
	int fd;

	if (bpf_map_lookup_elem(inst->filters_fd, &zero, id))
		return -errno;
	fd = bpf_map_get_fd_by_id(*id);
	if (fd >= 0)
		return fd;
	fd = -errno;
	if (fd == -EPERM)	/* the callers say what failed; this says why */
		pr_err("opening the live filter by its map id takes CAP_SYS_ADMIN (the kernel's "
		       "rule for BPF_MAP_GET_FD_BY_ID); this process lacks it\n");
	return fd;
}

int bb_filter_map_create(struct bb_filter_map *map, __u32 nblocks, __u32 allow_blocks)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	__u64 elements = bb_filter_elements(nblocks, allow_blocks);
	size_t size = elements * BB_BLOCK_BYTES, page = sysconf(_SC_PAGESIZE);
	void *mem;
	int err;

	map->fd = -1;
	map->mem = NULL;
	map->nblocks = nblocks;
	map->allow_blocks = allow_blocks;
	map->map_len = (size + page - 1) / page * page;
	map->fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bb_filter", sizeof(__u32), BB_BLOCK_BYTES,
				 (__u32)elements, &opts);
	if (map->fd < 0) {
		err = -errno;
		pr_err("cannot create a filter map of %zu bytes: %s\n", size, strerror(-err));
		return err;
	}
	/* The kernel maps every page of the array at mmap time: no faults while filling. */
	mem = mmap(NULL, map->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, map->fd, 0);
	if (mem == MAP_FAILED) {
		err = -errno;
		pr_err("cannot map the new filter: %s\n", strerror(-err));
		bb_filter_map_close(map);
		return err;
	}
	map->mem = mem;
	return 0;
}

void bb_filter_map_close(struct bb_filter_map *map)
{
	if (map->mem)
		munmap(map->mem, map->map_len);
	if (map->fd >= 0)
		close(map->fd);
	map->mem = NULL;
	map->fd = -1;
}

struct bb_block *bb_filter_map_blocks(void *map_ptr, __u32 nblocks, __u32 allow_blocks)
{
	struct bb_filter_map *map = map_ptr;

	if (bb_filter_map_create(map, nblocks, allow_blocks))
		return NULL;
	return &map->mem[BB_FIRST_BLOCK];
}

int bb_map_swap(struct bb_instance *inst, struct bb_filter_map *map)
{
	struct bb_header *hdr = (void *)&map->mem[BB_HEADER_INDEX];
	struct bpf_map_info info = {};
	__u32 zero = 0, len = sizeof(info);
	struct bb_image live;
	int err;

	if (!map->mem)
		return -EINVAL;
	hdr->generation = 1;
	if (bb_image_open(inst, &live) == 0) {
		hdr->generation = ((const struct bb_header *)live.blocks)->generation + 1;
		bb_image_close(&live);
	}
	/* which map this is, for a verdict to tell a hit's filter from the live one */
	if (bpf_obj_get_info_by_fd(map->fd, &info, &len)) {
		err = -errno;
		pr_err("cannot read the new filter map's id: %s\n", strerror(-err));
		return err;
	}
	if (map->allow_blocks)
		((struct bb_allow_header *)&map->mem[bb_allow_index(map->nblocks)])->map_id = info.id;

	/* The swap: packets see the old filter or this one, never a mix. */
	bb_fault_point("swap");
	if (bpf_map_update_elem(inst->filters_fd, &zero, &map->fd, BPF_ANY)) {
		err = -errno;
		pr_err("cannot swap the new filter in: %s\n", strerror(-err));
		return err;
	}
	return 0;
}

int bb_filter_swap(struct bb_instance *inst, struct bb_filter *filter, struct bb_filter_map *map)
{
	const struct bb_header *hdr = (const void *)&map->mem[BB_HEADER_INDEX];
	int err;

	if (!map->mem || map->nblocks != filter->hdr.nblocks ||
	    map->allow_blocks != filter->hdr.allow_blocks)
		return -EINVAL;
	/* the bits (unless built in place), the rest, the header last */
	bb_filter_write_image(filter, map->mem);
	err = bb_map_swap(inst, map);
	filter->hdr.generation = hdr->generation;
	if (map->allow_blocks)
		filter->allow_hdr.map_id =
			((const struct bb_allow_header *)&map->mem[bb_allow_index(map->nblocks)])->map_id;
	return err;
}

int bb_filter_push(struct bb_instance *inst, struct bb_filter *filter)
{
	struct bb_filter_map map;
	int err;

	err = bb_filter_map_create(&map, filter->hdr.nblocks, filter->hdr.allow_blocks);
	if (err)
		return err;
	err = bb_filter_swap(inst, filter, &map);
	bb_filter_map_close(&map);
	return err;
}

static int image_map(const struct bb_instance *inst, struct bb_image *img, int prot)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	size_t page = sysconf(_SC_PAGESIZE);
	void *mem;
	int fd, err;

	memset(img, 0, sizeof(*img));
	fd = live_filter_fd(inst, &img->map_id);
	if (fd < 0)
		return fd;
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		goto cleanup;
	}
	img->map_size = (size_t)info.max_entries * info.value_size;
	mem = mmap(NULL, (img->map_size + page - 1) / page * page, prot, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		err = -errno;
		goto cleanup;
	}
	img->blocks = mem;
	if (prot & PROT_WRITE)
		img->mem = mem;
	err = 0;
cleanup:
	close(fd);
	return err;
}

int bb_image_open(const struct bb_instance *inst, struct bb_image *img)
{
	return image_map(inst, img, PROT_READ);
}

int bb_image_open_writable(const struct bb_instance *inst, struct bb_image *img)
{
	return image_map(inst, img, PROT_READ | PROT_WRITE);
}

void bb_image_close(struct bb_image *img)
{
	size_t page = sysconf(_SC_PAGESIZE);

	if (img->blocks)
		munmap((void *)img->blocks, (img->map_size + page - 1) / page * page);
	img->blocks = NULL;
}

void bb_stats_delta(struct bb_stats *d, const struct bb_stats *after,
		    const struct bb_stats *before)
{
	size_t i;

	for (i = 0; i < sizeof(*d) / sizeof(__u64); i++)
		((__u64 *)d)[i] = ((const __u64 *)after)[i] - ((const __u64 *)before)[i];
}

/* Add the per-CPU counters of stats_fd's slot to *sum: 0, -ENOENT (no such slot), or -errno. */
static int stats_add_slot(int stats_fd, __u32 slot, struct bb_stats *percpu, int ncpus,
			  struct bb_stats *sum)
{
	int cpu;
	size_t i;

	if (bpf_map_lookup_elem(stats_fd, &slot, percpu))
		return -errno;
	for (cpu = 0; cpu < ncpus; cpu++)
		for (i = 0; i < sizeof(*sum) / sizeof(__u64); i++)
			((__u64 *)sum)[i] += ((__u64 *)&percpu[cpu])[i];
	return 0;
}

/*
 * Sum the counters of the slots first .. last of stats_fd, over CPUs. A map with fewer
 * slots (an instance an earlier version loaded: one, every hook's) has zeros in the
 * others.
 */
static int stats_read_slots(int stats_fd, __u32 first, __u32 last, struct bb_stats *sum)
{
	int ncpus = libbpf_num_possible_cpus(), err = 0;
	struct bb_stats *percpu;
	__u32 slot;

	if (ncpus < 0)
		return ncpus;
	percpu = calloc(ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	memset(sum, 0, sizeof(*sum));
	for (slot = first; !err && slot <= last; slot++) {
		err = stats_add_slot(stats_fd, slot, percpu, ncpus, sum);
		if (err == -ENOENT && slot > 0)
			err = 0;
	}
	free(percpu);
	return err;
}

int bb_stats_read_fd(int stats_fd, struct bb_stats *sum)
{
	return stats_read_slots(stats_fd, 0, BB_STATS_SLOTS - 1, sum);
}

int bb_stats_read_hook_fd(int stats_fd, __u32 hook, struct bb_stats *sum)
{
	if (hook >= BB_STATS_SLOTS)
		return -EINVAL;
	return stats_read_slots(stats_fd, hook, hook, sum);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * bloomblock load: a pipeline. Options from a table into struct load_opts; then parse
 * the lists while a thread opens or creates the instance; open it; merge the live
 * config; build the filter straight into a new map; attach where needed and swap;
 * report. Nothing live changes before the swap, and any failure undoes what the run
 * itself made.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "fault.h"
#include "guard.h"
#include "load.h"
#include "state.h"
#include "options.h"
#include "progress.h"
#include "reader.h"
#include "veth.h"
#include "xdp_compat.h"

/*
 * The pinned instance, opened or created (loading and verifying the programs takes
 * about a second) in a thread of its own while the lists are parsed.
 */
static void *instance_worker(void *arg)
{
	struct instance_job *job = arg;
	struct timespec t0;
	char said[256];
	int restored;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* pins deleted by hand: back from the programs and links that hold them */
	restored = bb_instance_repair(bb_opts.pin_dir, said, sizeof(said));
	if (restored > 0)
		pr_warn("%s: pins were gone, now restored: %s\n", bb_opts.pin_dir, said);
	else if (restored < 0)
		pr_warn("%s: pins are gone and could not be restored: %s\n", bb_opts.pin_dir,
			strerror(-restored));
	/* what cannot be restored (no program left) is made anew, reusing the maps left */
	job->err = bb_instance_open_pins(bb_opts.pin_dir, &job->inst);
	if (job->err == -ENOENT && job->may_create) {
		job->tried_create = true;
		job->err = bb_instance_create(bb_opts.pin_dir, &job->inst, job->families);
		job->created = !job->err;
	}
	job->seconds = load_elapsed(&t0);
	return NULL;
}

static void instance_start(struct load_run *run)
{
	const struct load_opts *o = run->o;

	run->ij.may_create = true;	/* without -i: built and pinned, attached nowhere */
	run->ij.families = (o->targets.hooks[BB_HOOK_XDP] ? BB_FAMILY_XDP : 0) |
			   (o->targets.hooks[BB_HOOK_TC_INGRESS] || o->targets.hooks[BB_HOOK_TC_EGRESS] ?
			    BB_FAMILY_TC : 0);
	run->instance_thread = !pthread_create(&run->instance_tid, NULL, instance_worker,
					       &run->ij);
	if (!run->instance_thread)
		instance_worker(&run->ij);
}

static void instance_join(struct load_run *run)
{
	if (run->instance_thread)
		pthread_join(run->instance_tid, NULL);
	run->instance_thread = false;
}

/* 2. The instance: the pinned one, or the programs just loaded and pinned. */
static int open_instance(struct load_run *run)
{
	struct timespec t0;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	instance_join(run);
	run->t_wait = load_elapsed(&t0);
	err = run->ij.err;
	if (err && run->ij.tried_create)
		return err;	/* bb_instance_create() said why */
	if (err) {
		pr_err("cannot open the pinned state in %s: %s\n", bb_opts.pin_dir, strerror(-err));
		return err;
	}
	/* a tail-call table emptied by the kernel when its pin was deleted by hand */
	if (!run->ij.created) {
		int refilled = bb_instance_refill(&run->ij.inst);

		if (refilled < 0) {
			pr_err("a tail-call table of %s lost its programs, and they cannot be "
			       "loaded again: %s\n", bb_opts.pin_dir, strerror(-refilled));
			return refilled;
		}
		if (refilled)
			pr_warn("%s: the tail-call table%s had lost %s programs (a pin deleted by "
				"hand): loaded again\n", bb_opts.pin_dir, refilled == 3 ? "s" : "",
				refilled == 3 ? "their" : "its");
	}
	/* where its state lives, when given, so that commands given only the pin dir find it */
	err = bb_state_record();
	if (err)
		return err;
	/* a hook of a family the instance has not loaded yet (tc after XDP, or XDP after tc) */
	if (!run->ij.created && run->o->targets.n_ifaces > 0)
		return bb_instance_add(&run->ij.inst, run->ij.families);
	return 0;
}

/* The live filter's flags and config, or -ENOENT when there is none. */
static int live_config(struct load_run *run, __u32 *flags, struct bb_config *cfg)
{
	struct bb_image live;
	const struct bb_header *hdr;
	__u32 abi;

	if (run->ij.created || bb_image_open(&run->ij.inst, &live))
		return -ENOENT;
	hdr = (const void *)live.blocks;
	abi = hdr->magic == BB_MAGIC ? hdr->abi_version : BB_ABI_VERSION;
	*flags = hdr->flags;
	memcpy(cfg, &live.blocks[BB_CONFIG_INDEX], sizeof(*cfg));
	bb_image_close(&live);
	if (abi != BB_ABI_VERSION) {
		/* its programs would refuse this version's filter and pass every packet */
		pr_err("the instance in %s was loaded by another bloomblock version (filter ABI "
		       "%u, this one %u): unload it (bloomblock unload --all) and load again\n",
		       bb_opts.pin_dir, abi, BB_ABI_VERSION);
		return -EPROTO;
	}
	return 0;
}

/* 3. What was not given keeps its live value on a reload; else the defaults. */
static int merge_config(struct load_run *run)
{
	const struct load_opts *o = run->o;
	struct bb_filter_opts *f = &run->fopts;
	struct bb_config *cfg = &f->config;
	__u32 live = BB_HDR_F_DROP | BB_HDR_F_EVENTS, mode;
	int err;

	bb_config_defaults(cfg);
	err = live_config(run, &live, cfg);
	if (err == -EPROTO)
		return err;
	if (err && run->from_bbf) {
		/* a new instance: the filter file's own mode and ports, unless given */
		live = ((const struct bb_header *)run->bbf.image)->flags;
		memcpy(cfg, &run->bbf.image[BB_CONFIG_INDEX], sizeof(*cfg));
	}
	mode = BB_HDR_F_DROP | BB_HDR_F_CONFIRM;
	if (o->given.mode)
		mode = o->mode == 0 ? BB_HDR_F_DROP : o->mode == 1 ? 0 :
		       BB_HDR_F_DROP | BB_HDR_F_CONFIRM;
	else
		mode &= live;
	if (o->given.daemon_down ? o->daemon_down != 0 : (live & BB_HDR_F_DOWN_DROP) != 0)
		mode |= BB_HDR_F_DOWN_DROP;
	if (o->given.answer)
		mode |= (o->answer ? BB_HDR_F_ANSWER : 0) | (o->answer == 2 ? BB_HDR_F_SINKHOLE : 0);
	else
		mode |= live & (BB_HDR_F_ANSWER | BB_HDR_F_SINKHOLE);
	if (o->given.answer_rate) {
		cfg->answer_cost_ns = 1000000000U / o->answer_rate;
		cfg->answer_burst = o->answer_rate;
	}
	f->flags = mode |
		   (o->given.addr ? (o->addr ? BB_HDR_F_ADDR_BOTH : 0) :
		    live & BB_HDR_F_ADDR_BOTH) |
		   (o->given.block_quic ? BB_HDR_F_BLOCK_QUIC : live & BB_HDR_F_BLOCK_QUIC) |
		   (o->given.events ? (o->events_rate ? BB_HDR_F_EVENTS : 0) :
		    live & BB_HDR_F_EVENTS) |
		   (o->given.room ? o->room : live & (BB_HDR_F_ROOM_NAMES | BB_HDR_F_ROOM_URLS));
	if (o->given.events) {
		cfg->event_cost_ns = o->events_rate ? 1000000000U / o->events_rate : 0;
		if (!o->given.events_burst)
			cfg->event_burst = o->events_rate;
	}
	if (o->given.events_burst)
		cfg->event_burst = o->events_burst;
	if (!cfg->event_cost_ns && (f->flags & BB_HDR_F_EVENTS)) {
		/* a filter file from before events had none: the defaults */
		cfg->event_cost_ns = 1000000000U / BB_EVENT_RATE_DEFAULT;
		cfg->event_burst = BB_EVENT_RATE_DEFAULT;
	}
	if (o->given.dns_ports)
		memcpy(cfg->dns_ports, o->dns_ports, sizeof(cfg->dns_ports));
	if (o->given.tls_ports)
		memcpy(cfg->tls_ports, o->tls_ports, sizeof(cfg->tls_ports));
	if (o->given.http_ports)
		memcpy(cfg->http_ports, o->http_ports, sizeof(cfg->http_ports));
	if (o->given.quic_ports)
		memcpy(cfg->quic_ports, o->quic_ports, sizeof(cfg->quic_ports));
	if (o->given.mark)
		cfg->mark = o->mark;
	if ((f->flags & BB_HDR_F_CONFIRM) && o->no_index && !o->build) {
		pr_err("--mode confirm needs the key index, where bloomblock run confirms "
		       "hits: drop --no-index\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * Answers (--answer) leave an XDP hook with XDP_TX, which a veth whose peer runs no XDP
 * program loses (veth.h): for each interface the filter is at XDP on, this load's and
 * those attached before, the instance's tx_via_tc map says whether its answers leave
 * from tc instead (the tc helper beside XDP sends them), so that every answer counted
 * is one a client receives. Kept for every load, so that a later --answer finds it.
 */
static void answers_route(const struct load_run *run)
{
	const struct load_opts *o = run->o;
	struct bb_attachment att[64];
	const char *names[BB_MAX_TARGETS + 64];
	char peer[IF_NAMESIZE], path[512];
	int n = 0, i, k, lost, fd;
	__u8 one = 1;

	if (o->build || bb_pin_path(path, sizeof(path), bb_opts.pin_dir, BB_PIN_TX_VIA_TC) ||
	    (fd = bpf_obj_get(path)) < 0)
		return;	/* an instance without it: an earlier version's, XDP_TX as before */
	for (i = 0; o->targets.hooks[BB_HOOK_XDP] && i < o->targets.n_ifaces; i++)
		names[n++] = o->targets.ifnames[i];
	k = bb_attachments(bb_opts.pin_dir, att, 64);
	for (i = 0; i < k; i++)
		if (att[i].hook == BB_HOOK_XDP && !att[i].elsewhere)
			names[n++] = att[i].ifname;
	for (i = 0; i < n; i++) {
		__u32 ifindex = if_nametoindex(names[i]);

		lost = bb_veth_tx_lost(names[i], peer);
		if (lost < 0 && bb_msg.debug)
			pr_info("%s: cannot tell whether its veth peer runs XDP: %s\n", names[i],
				strerror(-lost));
		if (!ifindex || lost < 0)
			continue;
		if (lost <= 0) {
			bpf_map_delete_elem(fd, &ifindex);
			continue;
		}
		bpf_map_update_elem(fd, &ifindex, &one, BPF_ANY);
		if (run->fopts.flags & BB_HDR_F_ANSWER)
			pr_info("%s: a veth whose peer%s%s runs no XDP program, so XDP_TX would not "
				"reach it: its DNS answers leave from tc\n", names[i],
				peer[0] ? " " : "", peer);
	}
	close(fd);
}

/* Attach the hooks asked for on one interface, where this instance is not yet. */
static int attach_iface(struct load_run *run, int i)
{
	const struct load_opts *o = run->o;
	enum bb_xdp_mode used, now;
	int egress, err;
	bool libxdp;

	for (egress = 0; egress < 2; egress++) {
		if (!o->targets.hooks[egress ? BB_HOOK_TC_EGRESS : BB_HOOK_TC_INGRESS])
			continue;
		if (bb_tc_attached(bb_opts.pin_dir, o->targets.ifindexes[i], egress)) {
			/* attached before records were kept: recorded now */
			if ((egress ? run->ij.inst.tc_egress_fd : run->ij.inst.tc_ingress_fd) >= 0)
				bb_tc_record(&run->ij.inst, o->targets.ifindexes[i], egress);
			continue;
		}
		err = bb_tc_attach(&run->ij.inst, o->targets.ifindexes[i], egress);
		if (err)
			return err;
		run->tc_attached_now[i][egress] = true;
		pr_info("%s: attached (tc %s)\n", o->targets.ifnames[i], egress ? "egress" : "ingress");
	}
	if (!o->targets.hooks[BB_HOOK_XDP])
		return 0;
	if (bb_attached(bb_opts.pin_dir, o->targets.ifnames[i])) {
		now = bb_xdp_mode_of(o->targets.ifindexes[i]);
		if (o->xdp_mode != BB_XDP_AUTO && now != BB_XDP_AUTO &&
		    now != (enum bb_xdp_mode)o->xdp_mode)
			pr_warn("%s is attached in %s XDP mode already; --xdp-mode %s takes effect "
				"after: bloomblock unload -i %s\n", o->targets.ifnames[i],
				bb_xdp_mode_name(now), bb_xdp_mode_name(o->xdp_mode), o->targets.ifnames[i]);
		bb_xdp_reset_ensure(&run->ij.inst, o->targets.ifnames[i], o->targets.ifindexes[i]);
		return 0;
	}
	libxdp = o->xdp_attach == BB_XDP_ATTACH_LIBXDP ||
		 (o->xdp_attach == BB_XDP_ATTACH_AUTO && bb_xdp_dispatcher_works());
	err = bb_attach(&run->ij.inst, o->targets.ifnames[i], o->targets.ifindexes[i],
			(enum bb_xdp_mode)o->xdp_mode, &used, o->force, libxdp);
	if (err)
		return err;
	run->attached_now[i] = true;
	pr_info("%s: attached (%s XDP%s)\n", o->targets.ifnames[i], bb_xdp_mode_name(used),
		libxdp ? ", through libxdp" : "");
	bb_xdp_compat_save(libxdp);	/* for status: how, and whether the dispatcher can be */
	return 0;
}

/* The swap of a built filter, or of a filter file's image copied into the map. */
static int swap(struct load_run *run)
{
	int err;

	if (!run->from_bbf)
		return bb_filter_swap(&run->ij.inst, &run->filter, &run->fmap);
	err = bb_map_swap(&run->ij.inst, &run->fmap);
	run->filter.hdr.generation = ((const struct bb_header *)run->fmap.mem)->generation;
	if (run->filter.hdr.allow_blocks)	/* the map's id, as the swap set it */
		run->filter.allow_hdr.map_id = ((const struct bb_allow_header *)
			&run->fmap.mem[bb_allow_index(run->filter.hdr.nblocks)])->map_id;
	return err;
}

/*
 * 5. Attach where not attached yet, and swap. A new instance gets its filter first,
 * so a fresh attachment never runs without one; on an existing instance the swap
 * comes last, so a failed attach leaves the old filter and its interfaces as they were.
 */
static int attach_and_swap(struct load_run *run)
{
	struct timespec t0;
	int i, err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (run->ij.created) {
		err = swap(run);
		if (err)
			return err;
	}
	for (i = 0; i < run->o->targets.n_ifaces; i++) {
		err = attach_iface(run, i);
		if (err)
			return err;
	}
	if (!run->ij.created) {
		err = swap(run);
		if (err)
			return err;
	}
	run->t_push = load_elapsed(&t0);
	return 0;
}

/*
 * A failed run: detach what it attached, remove an instance it created (the instance
 * thread may have pinned one), and say what is live now.
 */
/*
 * A first load that failed leaves nothing behind: with no instance, none of the state
 * files it wrote (the lock, the guard's list) nor the directory, when it made it.
 */
static void undo_state(void)
{
	struct bb_instance inst;

	if (bb_instance_open_pins(bb_opts.pin_dir, &inst) == -ENOENT)
		bb_state_remove();
	else
		bb_instance_close(&inst);
}

static void undo(struct load_run *run)
{
	const struct load_opts *o = run->o;
	int i;

	instance_join(run);
	for (i = 0; i < o->targets.n_ifaces; i++) {
		if (run->attached_now[i])
			bb_detach(bb_opts.pin_dir, o->targets.ifnames[i]);
		if (run->tc_attached_now[i][0])
			bb_tc_detach(bb_opts.pin_dir, o->targets.ifindexes[i], 0);
		if (run->tc_attached_now[i][1])
			bb_tc_detach(bb_opts.pin_dir, o->targets.ifindexes[i], 1);
	}
	if (run->ij.created) {
		bb_instance_close(&run->ij.inst);
		bb_instance_remove(bb_opts.pin_dir);
		pr_info("nothing was loaded\n");
	} else if (!run->ij.err) {
		pr_info("the live filter is unchanged\n");
	}
	undo_state();
}

/*
 * The guard, before any list is read: what the host needs (for the interfaces being
 * attached and those attached already), written to the state directory and read as
 * one more allowlist unless it is off; watched in every list either way, and wide
 * prefixes refused unless --allow-wide. --no-guard holds for later loads (guard.off)
 * until --guard.
 */
static int guard_setup(struct load_run *run, struct load_opts *o, char *path, size_t size)
{
	struct bb_attachment att[BB_MAX_TARGETS * 3];
	const char *ifnames[BB_MAX_TARGETS * 4];
	char off_path[512];
	unsigned int n = 0;
	int i, j, n_att, err;

	err = bb_state_path(off_path, sizeof(off_path), BB_GUARD_OFF);
	err = err ?: bb_state_path(path, size, BB_GUARD_FILE);
	if (err)
		return err;
	if (o->given.guard) {
		if (o->no_guard && !o->guard) {
			int fd = open(off_path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

			if (fd >= 0)
				close(fd);
		} else {
			unlink(off_path);
		}
	}
	run->guard_on = access(off_path, F_OK) != 0;
	for (i = 0; i < o->targets.n_ifaces; i++)
		ifnames[n++] = o->targets.ifnames[i];
	n_att = bb_attachments(bb_opts.pin_dir, att, (int)(sizeof(att) / sizeof(att[0])));
	for (i = 0; i < n_att && n < sizeof(ifnames) / sizeof(ifnames[0]); i++) {
		for (j = 0; j < (int)n && strcmp(ifnames[j], att[i].ifname); j++)
			;
		if (j == (int)n && att[i].ifindex && !att[i].elsewhere)
			ifnames[n++] = att[i].ifname;
	}
	bb_guard_collect(&run->guard, ifnames, n, NULL);
	for (i = 0; i < o->lists.n; i++) {
		o->lists.v[i].read.refuse_wide = !o->allow_wide;
		o->lists.v[i].read.watch = run->guard.watch;
		o->lists.v[i].read.n_watch = run->guard.n;
	}
	if (!run->guard_on) {
		unlink(path);
		return 0;
	}
	err = bb_guard_write(&run->guard, path);
	if (err) {
		pr_err("cannot write %s: %s\n", path, strerror(-err));
		return err;
	}
	o->lists.cur = (struct bb_file_opts){ .format = BB_FORMAT_PLAIN, .allow = true };
	o->lists.cur_origin = "guard";
	err = list_arg_add(o, path);
	o->lists.cur_origin = NULL;
	return err;
}

/*
 * A filter file among the lists: it is loaded alone (--allow files beside it), its
 * image checked, mapped, and copied into the new map in place of a build.
 */
static int bbf_detect(struct load_run *run)
{
	const struct list_args *la = &run->o->lists;
	int i, n_lists = 0;
	char why[256];
	int err;

	run->bbf_index = -1;
	for (i = 0; i < la->n; i++) {
		if (strcmp(la->v[i].origin, "list"))
			continue;
		n_lists++;
		if (strcmp(la->v[i].path, "-") && bbf_is(la->v[i].path))
			run->bbf_index = i;
	}
	if (run->bbf_index < 0)
		return 0;
	if (n_lists > 1) {
		pr_err("%s is a filter file: it is loaded alone (with --allow files, not "
		       "blocklists)\n", la->v[run->bbf_index].path);
		return -EINVAL;
	}
	err = bbf_open(la->v[run->bbf_index].path, &run->bbf, why, sizeof(why));
	if (err) {
		pr_err("%s: %s\n", la->v[run->bbf_index].path, why);
		return err;
	}
	run->from_bbf = true;
	return 0;
}

/*
 * 4, for a filter file: its image copied into the new map, the live or given mode,
 * address policy and ports put in, and this host's allowlists (the guard, the kept
 * items, --allow files: parsed as usual) added to its allowlist.
 */
static int bbf_copy(struct load_run *run)
{
	const struct bb_header *fh = (const void *)run->bbf.image;
	const __u32 given = BB_HDR_F_DROP | BB_HDR_F_ADDR_BOTH | BB_HDR_F_BLOCK_QUIC |
			    BB_HDR_F_EVENTS | BB_HDR_F_CONFIRM | BB_HDR_F_DOWN_DROP |
			    BB_HDR_F_ANSWER | BB_HDR_F_SINKHOLE;
	struct timespec t0;
	struct bb_header *h;
	size_t i, added = 0;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = bb_filter_map_create(&run->fmap, fh->nblocks, fh->allow_blocks);
	if (err)
		return err;
	memcpy(run->fmap.mem, run->bbf.image, run->bbf.image_bytes);
	h = (void *)run->fmap.mem;
	h->flags = (h->flags & ~(given | BB_HDR_F_SERVICES)) | (run->fopts.flags & given);
	if (h->flags & (BB_HDR_F_NAMES | BB_HDR_F_URLS | BB_HDR_F_BLOCK_QUIC))
		h->flags |= BB_HDR_F_SERVICES;
	memcpy(&run->fmap.mem[BB_CONFIG_INDEX], &run->fopts.config, BB_BLOCK_BYTES);
	for (i = 0; i < run->list.n; i++) {
		err = bb_image_allow_add(run->fmap.mem, &run->list.entries[i]);
		if (err == -ENOSPC || err == -E2BIG) {
			pr_err("the filter file's allowlist has no room for this host's allowlist "
			       "(%zu of %zu entries in): build it with --capacity, or from the "
			       "lists here\n", added, run->list.n);
			return err;
		}
		if (err < 0)
			return err;
		added++;
	}
	bb_filter_from_image(&run->filter, run->fmap.mem);
	run->t_build = load_elapsed(&t0);
	return 0;
}

/* A filter file's index, when it has one and it is of its image: made the live one's. */
static int bbf_index(struct load_run *run, const char *path)
{
	struct bb_index_view v;
	struct bb_index_meta meta;
	struct bb_index x = { 0 };
	int err;

	if (!run->bbf.index)
		return -ENOENT;
	err = bb_index_view_bytes(run->bbf.index, run->bbf.index_len, &v);
	if (err || v.seed != run->filter.hdr.seed)
		return err ?: -ESTALE;
	meta = v.meta;
	meta.generation = run->filter.hdr.generation;
	meta.map_id = run->filter.allow_hdr.map_id;
	x.recs = (struct bb_index_rec *)v.recs;	/* written, not changed */
	x.n = v.n;
	return bb_index_write_meta(&x, path, v.sources, v.n_sources, &meta);
}

static void write_index(struct load_run *run)
{
	const char *sources[BB_INDEX_MAX_SOURCES];
	struct bb_index_meta meta;
	char path[512];
	unsigned int n_src;
	int err;

	if (!bb_state_path(path, sizeof(path), BB_STATE_SHADOW))
		unlink(path);	/* the old filter's counts: add and del build them anew */
	if (bb_state_path(path, sizeof(path), BB_STATE_INDEX))
		return;
	if (run->o->no_index) {
		unlink(path);	/* an old one would mislead */
		return;
	}
	if (run->from_bbf) {
		err = bbf_index(run, path);
		if (err) {
			unlink(path);
			pr_warn("%s: %s: check cannot say which list holds a hit\n",
				load_list_name(run->o->lists.v[run->bbf_index].path),
				err == -ENOENT ? "the filter file holds no key index" :
				"its key index is not of its filter");
		}
		return;
	}
	err = load_index(run, sources, &n_src, &meta);
	if (!err && run->index_file.fd >= 0)	/* the spool's, its records written */
		err = bb_index_file_commit(&run->index_file, run->index_recs, sources, n_src,
					   &meta);
	else
		err = err ?: bb_index_write_meta(&run->index, path, sources, n_src, &meta);
	if (err) {
		bb_index_file_abort(&run->index_file);
		unlink(path);
		pr_warn("the key index could not be written (%s): check cannot say which list "
			"holds a hit\n", strerror(-err));
	}
}

/*
 * 7. What was loaded, when, from what (loaded.json in the state directory), for
 * status: the lists, or the filter file, with the generation it made, and the keys
 * the filter was sized for.
 */
static void write_loaded(struct load_run *run)
{
	const struct list_args *la = &run->o->lists;
	json_t *lists = json_array(), *j;
	char path[512], when[32];
	time_t now = time(NULL);
	struct tm tm;
	int i;

	if (bb_state_path(path, sizeof(path), BB_STATE_LOADED))
		return;
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	for (i = 0; i < la->n; i++)
		if (!(run->from_bbf && i == run->bbf_index))
			json_array_append_new(lists, json_string(load_list_name(la->v[i].path)));
	j = json_pack("{s:I, s:s, s:I, s:I, s:o, s:s?}", "time", (json_int_t)now, "time_utc",
		      when, "generation", (json_int_t)run->filter.hdr.generation, "map_id",
		      (json_int_t)run->filter.allow_hdr.map_id, "lists", lists, "filter_file",
		      run->from_bbf ? load_list_name(la->v[run->bbf_index].path) : NULL);
	if (j) {
		/* entries by kind as the lists gave them (a filter file's: its info says) */
		json_t *block = json_object(), *allow = json_object();

		for (i = 0; i < BB_ENTRY_KIND_MAX; i++) {
			json_object_set_new(block, bb_entry_kind_name(i), json_integer(
				(json_int_t)run->list.counts.accepted[i]));
			json_object_set_new(allow, bb_entry_kind_name(i), json_integer(
				(json_int_t)run->list.counts.allow[i]));
		}
		json_object_set_new(j, "entries", run->from_bbf ? (json_decref(block), json_null()) :
				    block);
		json_object_set_new(j, "allow_entries", allow);
		/* the keys it was sized for: --capacity, else what it holds (0: not known) */
		json_object_set_new(j, "capacity", json_integer((json_int_t)
			(run->filter.plan.capacity ?: run->filter.plan.n)));
		/* the keys it holds, as its lists made them: what the reload guard compares */
		json_object_set_new(j, "keys", json_integer((json_int_t)run->filter.hdr.items));
	}
	if (!j || bb_json_write(j, path, JSON_COMPACT)) {
		pr_warn("%s could not be written: status cannot say what was loaded\n", path);
	}
	json_decref(j);
}

/*
 * -d: where the time went, step by step (docs/BENCHMARKS.md, "Where each second and
 * each MiB goes"). The programs load (and, on a first load, verify) in a thread of
 * their own during the parse; waited is what the load then waited for them.
 */
static void report_steps(const struct load_run *run)
{
	if (!bb_msg.debug)
		return;
	pr_info("steps: parse %.3fs; index %.3fs; programs %.3fs in their thread, waited "
		"%.3fs; filter %.3fs; attach and swap %.3fs; index written %.3fs\n",
		run->t_parse, run->t_index, run->ij.seconds, run->t_wait, run->t_bits,
		run->t_push, run->t_commit);
}

/* The lists' sizes, for the progress line (a stream's is not known: 0). */
static __u64 lists_bytes(const struct list_args *la)
{
	struct stat st;
	__u64 total = 0;
	int i;

	for (i = 0; i < la->n; i++)
		if (strcmp(la->v[i].path, "-") && !stat(la->v[i].path, &st))
			total += (__u64)st.st_size;
	return total;
}

/* The items `bloomblock allow` keeps, when there are any: one more allowlist. */
static int add_kept_allowlist(struct load_opts *o, char *path, size_t size)
{
	struct bb_file_opts saved = o->lists.cur;
	int err = bb_state_path(path, size, BB_STATE_ALLOW);

	if (err || access(path, F_OK))
		return 0;
	o->lists.cur = (struct bb_file_opts){ .format = BB_FORMAT_PLAIN, .allow = true };
	o->lists.cur_origin = "kept";
	err = list_arg_add(o, path);
	o->lists.cur = saved;
	o->lists.cur_origin = NULL;
	return err;
}

static int cmd_load(int argc, char **argv)
{
	struct load_opts o;
	struct load_run run = {
		.o = &o, .lopts = { .report = stderr, .report_max = 20 },
		.ij = { .inst = { .filters_fd = -1, .stats_fd = -1, .prog_fd = -1,
				  .tc_ingress_fd = -1, .tc_egress_fd = -1,
				  .xdp_reset_fd = -1 } },
		.fmap = { .fd = -1 }, .index_file = { .fd = -1 },
	};
	int ret = load_parse_args(&cmd_load_def, argc, argv, &o), err;
	char allow_path[512], guard_path[512];
	struct bb_attachment att[1];
	int i;

	if (ret >= 0)
		goto out;
	run.lopts.report_max = o.verbose ? 0 : 20;
	run.lopts.threads = run.fopts.threads = o.threads;
	run.lopts.max_entries = o.max_entries;
	run.lopts.max_bytes = o.max_list_size;
	run.fopts.fpr = o.fpr;
	run.fopts.capacity = o.capacity;
	run.fopts.seed = o.seed;
	bb_list_init(&run.list);
	run.files_json = json_array();
	/* under the lock, the allowlist `allow` keeps is the one the new filter gets */
	run.lock = bb_state_lock();
	if (run.lock < 0) {
		ret = BB_EXIT_ERROR;
		json_decref(run.files_json);
		goto out;
	}
	err = bbf_detect(&run);
	err = err ?: guard_setup(&run, &o, guard_path, sizeof(guard_path));
	err = err ?: add_kept_allowlist(&o, allow_path, sizeof(allow_path));
	if (err) {
		ret = BB_EXIT_ERROR;
		json_decref(run.files_json);
		undo_state();
		close(run.lock);
		goto out;
	}
	instance_start(&run);
	bb_progress_start(lists_bytes(&o.lists));
	err = load_parse_lists(&run);
	err = err ?: load_index_spool(&run);
	err = err ?: open_instance(&run);
	err = err ?: merge_config(&run);
	err = err ?: (run.from_bbf ? bbf_copy(&run) : load_build_filter(&run));
	bb_progress_stop();
	/* the reload guard: a filter much smaller than the live one is refused */
	err = err ?: (run.ij.created ? 0 : reload_guard_shrink(&run.refusal, &run.ij.inst,
							       &run.filter, o.allow_shrink));
	if (!err)
		answers_route(&run);
	err = err ?: attach_and_swap(&run);
	if (err) {
		undo(&run);
		/* a reload refused: said in status and /metrics until a load goes through */
		if (run.refusal.check != RELOAD_OK && !run.ij.created && !run.ij.err)
			reload_refusal_save(&run.refusal);
		ret = BB_EXIT_ERROR;
	} else {
		struct timespec t0;

		reload_refusal_clear();
		bb_fault_point("swapped");	/* live, its index and loaded.json not written */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		write_index(&run);
		run.t_commit = load_elapsed(&t0);
		write_loaded(&run);
		load_report_filter(&run);
		report_steps(&run);
		if (bb_attachments(bb_opts.pin_dir, att, 1) == 0)
			pr_info("staged under %s, attached nowhere: load -i IFACE attaches it\n",
				bb_opts.pin_dir);
		ret = BB_EXIT_OK;
	}
	instance_join(&run);
	json_decref(run.files_json);
	bb_filter_free(&run.filter);
	bb_filter_map_close(&run.fmap);
	bb_instance_close(&run.ij.inst);
	bb_list_free(&run.list);
	free(run.tallies);
	free(run.file_counts);
	bbf_close(&run.bbf);
	bb_spool_free(run.spool);
	bb_index_file_abort(&run.index_file);	/* a run that failed before the commit */
	bb_index_free(&run.index);
	for (i = 0; i < BB_INDEX_MAX_SOURCES; i++)
		free(run.part_base[i]);
	close(run.lock);
out:
	free(o.lists.v);
	free(o.lists.given);
	return ret;
}

const struct bb_command cmd_load_def = {
	.name = "load",
	.synopsis = "LIST... [-i IFACE]... [OPTIONS]\nFILE.bbf [--allow FILE]... [-i IFACE]... [OPTIONS]",
	.summary = "build a filter from blocklists, attach it, or swap it in",
	.help = "Build a Bloom filter from the blocklist files (\"-\" is stdin), attach it at\n"
		"XDP to each IFACE, and from then on drop (or flag) every packet whose source\n"
		"address is listed. On an instance that is already loaded, the new filter is\n"
		"built in full and swapped in with one atomic update; any failure leaves the\n"
		"old one live. Without -i, only the filter of the running instance is replaced\n"
		"(on a new instance: built and pinned, attached nowhere). A filter file from\n"
		"`bloomblock build` is copied straight into the new map, its lists not needed.\n",
	.notes = load_notes,
	.groups = { load_host_options, load_filter_options },
	.run = cmd_load,
};

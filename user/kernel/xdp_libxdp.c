// SPDX-License-Identifier: GPL-2.0
/*
 * XDP through libxdp (xdp_libxdp.h). libxdp loads a copy of the instance's entry
 * program, bloomblock_xdp, on the instance's own maps, and attaches it: where the
 * kernel allows freplace, as an extension of the dispatcher (ours: quiet_begin()
 * says why), beside the other
 * programs libxdp manages (xdp-loader's, xdp-filter's), in the order of their run
 * priorities; where it does not, alone, in libxdp's own fallback. The copy is pinned
 * in the pin dir (BB_PIN_LIBXDP_PREFIX): that pin is the attachment's record, as a
 * bpf_link's pin is for a plain attachment.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "msg.h"
#include "pins.h"
#include "xdp_libxdp.h"
#include "bloomblock.skel.h"
#include "xdp_dispatcher.skel.h"

/*
 * libxdp's warnings are said as ours; its info and debug lines (the fallback) with -d,
 * and libbpf's while libxdp works (its dispatcher's compatibility check loads programs
 * the kernel may refuse: that refusal is the fallback, said by status).
 */
static int libxdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBXDP_WARN && !bb_msg.debug)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return bb_msg.debug ? vfprintf(stderr, fmt, ap) : 0;
}

/*
 * While libxdp works: its printer and a quiet libbpf, and our dispatcher as the one
 * it loads (bpf/xdp_dispatcher.bpf.c: libxdp's own, in Debian 12's 1.3.1, does not say
 * that its slots change packet data, and kernels from 6.12 then refuse bloomblock in
 * it). libxdp reads xdp-dispatcher.o from LIBXDP_OBJECT_PATH: the object, embedded in
 * this program, is written to a directory of this call's own, which the variable names
 * until quiet_end() restores it and removes the directory. Calls nest (detach asks
 * where): the outermost does the work.
 */
struct quiet {
	libxdp_print_fn_t xdp;
	libbpf_print_fn_t bpf;
	char dir[64], file[96];
	char *env_before;
	bool outer;
};

static int quiet_depth;

static void dispatcher_begin(struct quiet *q)
{
	const char *env = getenv("LIBXDP_OBJECT_PATH");
	size_t size;
	const void *obj = xdp_dispatcher__elf_bytes(&size);
	FILE *f;

	q->env_before = env ? strdup(env) : NULL;
	snprintf(q->dir, sizeof(q->dir), "/tmp/bloomblock-libxdp.XXXXXX");
	if (!mkdtemp(q->dir)) {
		q->dir[0] = '\0';
		return;	/* libxdp's own dispatcher, then: as before */
	}
	snprintf(q->file, sizeof(q->file), "%s/xdp-dispatcher.o", q->dir);
	f = fopen(q->file, "wxe");
	if (!f || fwrite(obj, 1, size, f) != size) {
		if (f)
			fclose(f);
		unlink(q->file);
		rmdir(q->dir);
		q->dir[0] = '\0';
		return;
	}
	fclose(f);
	setenv("LIBXDP_OBJECT_PATH", q->dir, 1);
}

static void dispatcher_end(struct quiet *q)
{
	if (q->dir[0]) {
		unlink(q->file);
		rmdir(q->dir);
		if (q->env_before)
			setenv("LIBXDP_OBJECT_PATH", q->env_before, 1);
		else
			unsetenv("LIBXDP_OBJECT_PATH");
	}
	free(q->env_before);
}

static struct quiet quiet_begin(void)
{
	struct quiet q = { libxdp_set_print(libxdp_print), libbpf_set_print(libbpf_quiet) };

	q.outer = quiet_depth++ == 0;
	if (q.outer)
		dispatcher_begin(&q);
	return q;
}

static void quiet_end(struct quiet q)
{
	if (q.outer)
		dispatcher_end(&q);
	quiet_depth--;
	libxdp_set_print(q.xdp);
	libbpf_set_print(q.bpf);
}

/* The object's map of name (the kernel's, 15 characters), made that map. */
static int reuse_one(int map_fd, const char *name, void *arg)
{
	struct bpf_object *obj = arg;
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj)
		if (!strncmp(name, bpf_map__name(map), BPF_OBJ_NAME_LEN - 1))
			return bpf_map__reuse_fd(map, map_fd);
	return 0;
}

/*
 * Every map of obj that prog_fd (the instance's entry program) holds is that map, by
 * its name; the object's other maps are not created.
 */
static int maps_of(struct bpf_object *obj, int prog_fd)
{
	struct bpf_map *map;
	int err = bb_prog_maps(prog_fd, reuse_one, obj);

	bpf_object__for_each_map(map, obj)
		if (!err && bpf_map__fd(map) < 0)
			err = bpf_map__set_autocreate(map, false);
	return err;
}

/* libxdp's attach of a copy of bloomblock_xdp in mode: its fd, or -errno. */
static int attach_copy(int inst_prog_fd, int ifindex, enum xdp_attach_mode mode)
{
	struct bloomblock *skel = bloomblock__open();
	struct xdp_program *xp = NULL;
	struct bpf_program *prog;
	int err, fd = -1;

	if (!skel)
		return -errno;
	/* no expected attach type, as the instance's programs (pins.c): libxdp's copy,
	 * an extension or (where the kernel refuses those) a plain XDP program, must
	 * match the owner of the prog arrays it tail-calls through */
	bpf_object__for_each_program(prog, skel->obj)
		if (bpf_program__set_autoload(prog, prog == skel->progs.bloomblock_xdp) ||
		    bpf_program__set_expected_attach_type(prog, 0))
			break;
	err = maps_of(skel->obj, inst_prog_fd);
	if (!err) {
		LIBBPF_OPTS(xdp_program_opts, opts, .obj = skel->obj,
			    .prog_name = "bloomblock_xdp");

		xp = xdp_program__create(&opts);
		err = (int)libxdp_get_error(xp);
		if (err)
			xp = NULL;
	}
	err = err ?: xdp_program__set_run_prio(xp, BB_LIBXDP_RUN_PRIO);
	/* a packet bloomblock passes goes on to the programs after it; a drop, an
	 * answer (XDP_TX) or an abort ends the chain */
	err = err ?: xdp_program__set_chain_call_enabled(xp, XDP_PASS, true);
	err = err ?: xdp_program__attach(xp, ifindex, mode, 0);
	if (!err) {
		fd = dup(xdp_program__fd(xp));
		err = fd < 0 ? -errno : 0;
	}
	xdp_program__close(xp);
	bloomblock__destroy(skel);
	return err ?: fd;
}

int bb_libxdp_attach(int inst_prog_fd, int ifindex, enum bb_xdp_mode mode,
		     enum bb_xdp_mode *used)
{
	struct quiet q = quiet_begin();
	int fd = -EINVAL;

	if (mode == BB_XDP_AUTO || mode == BB_XDP_NATIVE) {
		fd = attach_copy(inst_prog_fd, ifindex, XDP_MODE_NATIVE);
		*used = BB_XDP_NATIVE;
	}
	if (fd < 0 && (mode == BB_XDP_GENERIC || (mode == BB_XDP_AUTO && fd != -EBUSY &&
						   fd != -EEXIST))) {
		fd = attach_copy(inst_prog_fd, ifindex, XDP_MODE_SKB);
		*used = BB_XDP_GENERIC;
	}
	quiet_end(q);
	return fd;
}

static __u32 prog_id_of(int fd)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

int bb_libxdp_where(int prog_fd, int ifindex, struct bb_libxdp_place *at)
{
	struct quiet q = quiet_begin();
	struct xdp_multiprog *mp;
	struct xdp_program *p = NULL;
	__u32 id = prog_id_of(prog_fd);
	int err = -ENOENT;

	memset(at, 0, sizeof(*at));
	mp = ifindex > 0 && id ? xdp_multiprog__get_from_ifindex(ifindex) : NULL;
	if (!mp || libxdp_get_error(mp)) {
		quiet_end(q);
		return -ENOENT;
	}
	at->mode = xdp_multiprog__attach_mode(mp) == XDP_MODE_SKB ? BB_XDP_GENERIC :
		   BB_XDP_NATIVE;
	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
		if (p && xdp_program__id(p) == id)
			err = 0;
	} else {
		at->dispatcher = true;
		at->programs = xdp_multiprog__program_count(mp);
		while ((p = xdp_multiprog__next_prog(p, mp)))
			if (xdp_program__id(p) == id) {
				at->prio = xdp_program__run_prio(p);
				err = 0;
				break;
			}
	}
	xdp_multiprog__close(mp);
	quiet_end(q);
	return err;
}

int bb_libxdp_detach(int prog_fd, int ifindex)
{
	struct quiet q = quiet_begin();
	struct bb_libxdp_place at;
	struct xdp_program *xp;
	int err = bb_libxdp_where(prog_fd, ifindex, &at);

	if (err) {
		quiet_end(q);
		return err;	/* not attached there (the interface gone, or detached) */
	}
	xp = xdp_program__from_id(prog_id_of(prog_fd));
	err = (int)libxdp_get_error(xp);
	if (!err) {
		err = xdp_program__detach(xp, ifindex, at.mode == BB_XDP_GENERIC ? XDP_MODE_SKB :
					  XDP_MODE_NATIVE, 0);
		xdp_program__close(xp);
	}
	quiet_end(q);
	return err;
}

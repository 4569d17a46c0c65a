// SPDX-License-Identifier: GPL-2.0
/*
 * What every part runs on: the one BPF_PROG_TEST_RUN call, the bench skeleton, and
 * bloomblock filters built by the real builder into inner maps of their own, the way
 * bb_filter_push() makes them, for a skeleton's `filters` slot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <net/if.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench_parts.h"
#include "bench_seq.h"
#include "bench.skel.h"	/* after bench_seq.h: its .bss holds struct bench_cfg */
#include "pins.h"

int test_run(int prog_fd, const void *data, __u32 len, __u32 repeat, double *ns,
	     __u32 *retval)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.data_in = data,
		.data_size_in = len,
		.repeat = repeat,
	);
	int err = bpf_prog_test_run_opts(prog_fd, &opts);

	if (err)
		return err;
	*ns = opts.duration;
	if (retval)
		*retval = opts.retval;
	return 0;
}

/* The URL program's tables are filled as the CLI fills them, or its programs cannot run. */
int skeleton_load(struct bench **skel)
{
	int err;

	*skel = bench__open_and_load();
	if (!*skel)
		return -errno;
	err = bb_stage_tables_fill((*skel)->obj, BB_FAMILY_ALL);
	if (err) {
		bench__destroy(*skel);
		*skel = NULL;
	}
	return err;
}

int comparator_fill(struct bench *skel, int kind, __u32 n)
{
	const __u32 chunk = 1U << 20;
	__u8 pkt[64] = { 0 };
	double ns;
	__u32 done, ret;
	int err, fd = bpf_program__fd(skel->progs.bench_fill);

	skel->bss->bench_cfg.fill_kind = kind;
	skel->bss->bench_cfg.fill_errors = 0;
	for (done = 0; done < n; done += chunk) {
		skel->bss->bench_cfg.fill_start = done;
		skel->bss->bench_cfg.fill_count = n - done < chunk ? n - done : chunk;
		err = test_run(fd, pkt, sizeof(pkt), 1, &ns, &ret);
		if (err)
			return err;
	}
	if (skel->bss->bench_cfg.fill_errors) {
		bench_warn("fill %d: %u updates failed\n", kind, skel->bss->bench_cfg.fill_errors);
		return -EIO;
	}
	return 0;
}

int filter_map_image(struct bb_filter *filter, bool populate, struct push_times *t)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	__u64 elements = bb_filter_elements(filter->hdr.nblocks, filter->hdr.allow_blocks);
	size_t size = elements * BB_BLOCK_BYTES, page = sysconf(_SC_PAGESIZE);
	size_t map_len = (size + page - 1) / page * page;
	double t0 = now_s(), t1, t2, t3;
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	void *mem;
	int fd, err;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "bb_filter", sizeof(__u32), BB_BLOCK_BYTES,
			    (__u32)elements, &opts);
	if (fd < 0)
		return -errno;
	t1 = now_s();
	mem = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | (populate ? MAP_POPULATE : 0), fd, 0);
	if (mem == MAP_FAILED) {
		err = -errno;
		close(fd);
		return err;
	}
	/*
	 * The map's id in the allowlist's header, as bb_filter_swap() writes it: a hit
	 * in a filter whose id is not the live map's is taken for a reload in between,
	 * and bb_allow_pass() looks the address up again (a Bloom probe more per hit).
	 * In the mmap step: one syscall, as in bb_filter_swap() before its copy.
	 */
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		munmap(mem, map_len);
		close(fd);
		return err;
	}
	filter->allow_hdr.map_id = info.id;
	t2 = now_s();
	bb_filter_write_image(filter, mem);
	t3 = now_s();
	munmap(mem, map_len);
	if (t)
		*t = (struct push_times){ .create = t1 - t0, .map = t2 - t1, .copy = t3 - t2,
					  .unmap = now_s() - t3 };
	return fd;
}

int filter_make(struct bench_filter *f, const struct bb_list *list, __u32 flags)
{
	struct bb_filter_opts opts = { .seed = BENCH_SEED, .flags = flags };
	struct bb_filter filter;
	long long m0;
	int err;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	err = bb_filter_build(&filter, list, &opts);
	if (err) {
		bench_warn("bb_filter_build: %s\n", strerror(-err));
		return err;
	}
	filter.hdr.generation = 1;
	m0 = mem_available_kb();
	f->fd = filter_map_image(&filter, false, NULL);
	f->sys_kb = m0 - mem_available_kb();
	if (f->fd < 0) {
		err = f->fd;
		bench_warn("filter map: %s\n", strerror(-err));
	}
	f->hdr = filter.hdr;
	f->plan = filter.plan;
	f->allow_items = filter.allow_hdr.items;
	f->memlock = f->fd >= 0 ? map_memlock(f->fd) : -1;
	bb_filter_free(&filter);
	return err;
}

void filter_close(struct bench_filter *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

int filter_slot_set(int outer_fd, int inner_fd)
{
	__u32 zero = 0;

	return bpf_map_update_elem(outer_fd, &zero, &inner_fd, BPF_ANY) ? -errno : 0;
}

double filter_fpr_per_packet(const struct bench_filter *f, bool ipv4)
{
	double p = bb_blocked_fpr((double)f->hdr.items, f->hdr.nblocks, f->hdr.k);
	unsigned int probes = ipv4 ? f->hdr.n_v4_plens : f->hdr.n_v6_plens;

	return 1.0 - pow(1.0 - p, probes);
}

void xdp_dispatch_init(struct xdp_dispatch *d)
{
	int i;

	d->old_ns = -1;
	d->n = 0;
	d->filled = false;
	for (i = 0; i < XDP_DISPATCH_MAX; i++)
		d->links[i] = -1;
}

/*
 * Each program attached (generic XDP, a bpf_link) to a veth of a new network
 * namespace, this thread's (the driver is one thread), which it stays in until
 * xdp_dispatch_free(). On any failure the part goes on without: d->filled says so.
 */
void xdp_dispatch_fill(struct xdp_dispatch *d, const int *prog_fds, int n, const char *part,
		       const char *prefix)
{
	char cmd[160], name[IFNAMSIZ];
	int i, pairs = (n + 1) / 2;

	xdp_dispatch_init(d);
	if (n > XDP_DISPATCH_MAX)
		return;
	d->n = n;
	d->old_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (d->old_ns < 0 || unshare(CLONE_NEWNET)) {
		bench_warn("%s: no private network namespace (%s): test runs without the "
			   "dispatcher filled\n", part, strerror(errno));
		if (d->old_ns >= 0)
			close(d->old_ns);
		d->old_ns = -1;
		return;
	}
	for (i = 0; i < pairs; i++) {
		snprintf(cmd, sizeof(cmd), "ip link add %s%d type veth peer name %s%d "
			 ">/dev/null 2>&1", prefix, 2 * i, prefix, 2 * i + 1);
		if (system(cmd)) {
			bench_warn("%s: cannot create veths (ip link add): test runs without "
				   "the dispatcher filled\n", part);
			return;
		}
	}
	for (i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = XDP_FLAGS_SKB_MODE);
		unsigned int ifindex;

		snprintf(name, sizeof(name), "%s%d", prefix, i);
		ifindex = if_nametoindex(name);
		d->links[i] = ifindex ? bpf_link_create(prog_fds[i], ifindex, BPF_XDP, &opts) : -1;
		if (d->links[i] < 0) {
			bench_warn("%s: cannot attach to %s: test runs without the dispatcher "
				   "filled\n", part, name);
			return;
		}
	}
	d->filled = true;
}

/* The links closed, the namespace left (and with the veths, gone). */
void xdp_dispatch_free(struct xdp_dispatch *d)
{
	int i;

	for (i = 0; i < XDP_DISPATCH_MAX; i++)
		if (d->links[i] >= 0)
			close(d->links[i]);
	if (d->old_ns >= 0) {
		if (setns(d->old_ns, CLONE_NEWNET))
			bench_warn("cannot go back to the network namespace: %s\n",
				   strerror(errno));
		close(d->old_ns);
	}
	xdp_dispatch_init(d);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * bloomblock unload: detach, from some hooks of some interfaces or from everything, and
 * remove the pinned state when nothing is left attached. It succeeds when, afterwards,
 * bloomblock is attached nowhere it was asked to leave: unloading twice is no error.
 */
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <unistd.h>

#include "attach.h"
#include "common.h"
#include "options.h"
#include "state.h"

#define MAX_ATTACHMENTS	64

struct unload_opts {
	struct bb_targets targets;	/* no hook given: every hook */
	bool all;
};

static const struct bb_option unload_options[] = {
	{ "interface", 'i', "IFACE", "detach from IFACE (repeatable)", bb_opt_iface,
	  offsetof(struct unload_opts, targets), BB_OPT_NO_GIVEN, NULL },
	{ "hook", 0, "HOOK", "only from this hook: xdp, tc-ingress, tc-egress\n"
	  "(repeatable; default: every hook)", bb_opt_hook, offsetof(struct unload_opts, targets),
	  BB_OPT_NO_GIVEN, NULL },
	{ "all", 'a', NULL, "detach everywhere and remove all state", bb_opt_flag,
	  offsetof(struct unload_opts, all), BB_OPT_NO_GIVEN, NULL },
	BB_OPT_END
};

/*
 * Detach one tc hook of ifname (this network namespace's), and its record; the qdisc
 * goes when it is left empty. 1 detached, 0 not there.
 */
static int tc_off(const char *ifname, int egress)
{
	int ifindex = (int)if_nametoindex(ifname);
	int err = ifindex ? bb_tc_detach(bb_opts.pin_dir, ifindex, egress) : -ENOENT;

	bb_tc_forget(bb_opts.pin_dir, ifname, egress);	/* a stale record too */
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	bb_tc_release(ifindex);
	return 1;
}

/* tc_off() in a recorded attachment's namespace (bb_in_netns()'s fn). */
struct tc_off_args {
	const struct bb_attachment *a;
	int ret;
};

static int tc_off_there(void *arg)
{
	struct tc_off_args *t = arg;

	t->ret = tc_off(t->a->ifname, t->a->hook == BB_HOOK_TC_EGRESS);
	return 0;
}

/*
 * bloomblock's tc filters with this pin dir's handle that nothing of the instance
 * names (its pin dir gone, or records deleted), removed from this namespace's
 * interfaces (ifindex's only, when not 0), and said.
 */
static void sweep(int ifindex)
{
	char said[1024];
	int n = bb_tc_sweep(bb_opts.pin_dir, ifindex, said, sizeof(said));

	if (n > 0)
		pr_info("removed %d tc filter%s of this pin dir's (bloomblock's priority and "
			"handle) that no instance held: %s\n", n, n == 1 ? "" : "s", said);
}

/* Whether ifname is attached in another network namespace (which, in *netns). */
static bool elsewhere(const char *ifname, unsigned long long *netns)
{
	struct bb_attachment att[MAX_ATTACHMENTS];
	int n = bb_attachments(bb_opts.pin_dir, att, MAX_ATTACHMENTS), i;

	for (i = 0; i < n; i++)
		if (att[i].elsewhere && !strcmp(att[i].ifname, ifname)) {
			*netns = att[i].netns;
			return true;
		}
	return false;
}

/* The hooks asked for on one interface. 0, or -errno (said). */
static int unload_iface(const struct unload_opts *u, const char *ifname)
{
	int ifindex = (int)if_nametoindex(ifname), gone = 0, err = 0, e, egress;
	unsigned long long netns;

	for (egress = 0; egress < 2; egress++) {
		if (u->targets.any_hook && !u->targets.hooks[egress ? BB_HOOK_TC_EGRESS : BB_HOOK_TC_INGRESS])
			continue;
		e = tc_off(ifname, egress);
		gone += e > 0;
		err = err ?: e < 0 ? e : 0;
	}
	if (!u->targets.any_hook || u->targets.hooks[BB_HOOK_XDP]) {
		e = bb_detach(bb_opts.pin_dir, ifname);
		gone += !e;
		if (e && e != -ENOENT)
			err = err ?: e;
	}
	if (err)
		pr_err("%s: cannot detach: %s\n", ifname, strerror(-err));
	else if (gone)
		pr_info("%s: detached\n", ifname);
	else if (elsewhere(ifname, &netns))
		pr_warn("%s: attached in another network namespace (net:[%llu]), not this one's "
			"%s: unload it there (nsenter --net=... bloomblock unload -i %s), or "
			"unload --all\n", ifname, netns, ifname, ifname);
	else if (!ifindex)
		pr_warn("%s: no such interface, and nothing of bloomblock attached to it\n",
			ifname);
	else
		pr_info("%s: bloomblock is not attached there%s\n", ifname,
			u->targets.any_hook ? " (at those hooks)" : "");
	return err;
}

static void unload_everything(void)
{
	struct bb_attachment att[MAX_ATTACHMENTS];
	int n = bb_attachments(bb_opts.pin_dir, att, MAX_ATTACHMENTS), i;

	for (i = 0; i < n; i++) {
		struct tc_off_args t = { &att[i], 0 };

		if (att[i].hook == BB_HOOK_XDP)
			bb_detach_pin(bb_opts.pin_dir, &att[i]);
		else if (att[i].elsewhere && bb_in_netns(att[i].netns, tc_off_there, &t))
			pr_warn("%s (tc %s) in network namespace net:[%llu]: that namespace is "
				"gone, and its filter with it\n", att[i].ifname,
				att[i].hook == BB_HOOK_TC_EGRESS ? "egress" : "ingress", att[i].netns);
		else if (!att[i].elsewhere)
			tc_off(att[i].ifname, att[i].hook == BB_HOOK_TC_EGRESS);
	}
	sweep(0);
}

static int cmd_unload(int argc, char **argv)
{
	struct bb_attachment att[MAX_ATTACHMENTS];
	struct unload_opts u = { 0 };
	int i, err, lock, ret = BB_EXIT_OK;

	ret = bb_command_parse(&cmd_unload_def, argc, argv, &u, NULL, NULL);
	if (ret >= 0)
		return ret;
	ret = BB_EXIT_OK;
	if ((!u.all && !u.targets.n_ifaces) || (u.all && (u.targets.n_ifaces || u.targets.any_hook)))
		return bb_usage_error(&cmd_unload_def, "wants -i IFACE (and --hook), or --all");
	if (bb_require_root() || bb_require_bpffs(bb_opts.pin_dir))
		return BB_EXIT_ERROR;
	if (access(bb_opts.pin_dir, F_OK)) {
		pr_info("nothing is loaded under %s\n", bb_opts.pin_dir);
		/* but its tc filters may have outlived it (the pin dir removed by hand) */
		if (u.all)
			sweep(0);
		for (i = 0; i < u.targets.n_ifaces; i++)
			if ((err = (int)if_nametoindex(u.targets.ifnames[i])))
				sweep(err);
		return BB_EXIT_OK;
	}
	/* in turn with load, add, del and allow: none of them half done under it */
	lock = bb_state_lock();
	if (lock < 0)
		return BB_EXIT_ERROR;
	if (u.all)
		unload_everything();
	for (i = 0; i < u.targets.n_ifaces; i++)
		if (unload_iface(&u, u.targets.ifnames[i]))
			ret = BB_EXIT_ERROR;
	if (u.all || bb_attachments(bb_opts.pin_dir, att, MAX_ATTACHMENTS) == 0) {
		err = bb_instance_remove(bb_opts.pin_dir);
		if (err) {
			pr_err("cannot remove %s: %s\n", bb_opts.pin_dir, strerror(-err));
			ret = BB_EXIT_ERROR;
		} else if (u.all) {
			pr_info("removed %s\n", bb_opts.pin_dir);
		}
		/* the instance's lock and kept allowlist go with it */
		if (!err && (err = bb_state_remove())) {
			pr_err("cannot remove %s: %s\n", bb_state_dir(), strerror(-err));
			ret = BB_EXIT_ERROR;
		}
	}
	close(lock);
	return ret;
}

const struct bb_command cmd_unload_def = {
	.name = "unload",
	.synopsis = "-i IFACE... [--hook HOOK]...\n--all",
	.summary = "detach from an interface (--all: everywhere, and remove the instance)",
	.help = "Detach bloomblock from the interfaces. When no interface is left, or with\n"
		"--all, the pinned filter and counters are removed too, and a clsact qdisc\n"
		"that no filter uses any more with them; and the state directory's files,\n"
		"by name: a file bloomblock did not write stays, and so does a directory it\n"
		"did not make.\n",
	.groups = { unload_options },
	.run = cmd_unload,
};

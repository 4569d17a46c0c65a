// SPDX-License-Identifier: GPL-2.0
/*
 * bloomblock add / del: change what the live filter blocks, at once, with no rebuild
 * (filter_live.c). The change lasts until the next load, which builds from its lists.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load.h"
#include "common.h"
#include "filter.h"
#include "list.h"
#include "pins.h"
#include "state.h"

static void usage(FILE *out, bool add)
{
	if (add)
		fprintf(out,
			"Usage: bloomblock add [--max-fp P] [-f LIST]... [ITEM...]   (ITEM \"-\": stdin)\n"
			"\n"
			"Block addresses, prefixes, names (\"*.name\": the subdomains only) and URLs\n"
			"in the live filter at once, with no rebuild; until the next load, which\n"
			"builds from its lists. -f LIST reads a list file (any format load reads).\n"
			"Refused, with nothing changed, when a check of a packet would then be a\n"
			"false positive more often than --max-fp (default: twice the load's --fp):\n"
			"load again, with --capacity, to make room.\n"
			"Exit status: 0 every item added (or held already), 1 any not (the rate,\n"
			"a prefix length the filter cannot take without a reload), 2 an item that\n"
			"cannot be parsed, nothing loaded, no key index (load --no-index).\n");
	else
		fprintf(out,
			"Usage: bloomblock del [-f LIST]... [ITEM...]   (ITEM \"-\": stdin)\n"
			"\n"
			"Take listed items out of the live filter at once, until the next load. Only\n"
			"what a list holds as such can be deleted (the key index says): deleting\n"
			"what it does not hold is refused, since it would unblock listed items. A\n"
			"bit is cleared only when no listed item sets it, so nothing else listed is\n"
			"ever unblocked; to pass an item a wider prefix or a parent name blocks, use\n"
			"bloomblock allow.\n"
			"Exit status: 0 every item deleted, 1 any not listed as such, 2 as add.\n");
}

struct run {
	bool add;
	struct bb_live live;
	json_t *results;
	bool quiet;		/* from a file or stdin: say only what failed */
	size_t done, held, failed;
	bool bad;
};

static void result(struct run *r, const char *item, const char *what, const char *note,
		   bool ok)
{
	if (r->results)
		json_array_append_new(r->results, json_pack("{s:s, s:s, s:s?}", "item", item,
							    "result", what, "note", note));
	else if (!r->quiet || !ok)
		printf("%s: %s%s%s\n", item, what, note ? ": " : "", note ? note : "");
}

static void one_entry(struct run *r, const char *item, const struct bb_entry *e)
{
	const struct bb_index_rec *holder;
	char note[700];
	int ret;

	if (e->flags & BB_ENTRY_F_ALLOW) {
		result(r, item, r->add ? "not added" : "not deleted",
		       "an allowlist entry: bloomblock allow/disallow", false);
		r->failed++;
		return;
	}
	if (r->add) {
		ret = bb_live_add(&r->live, e);
		if (ret > 0) {
			r->done++;
			result(r, item, "added", NULL, true);
		} else if (!ret) {
			r->held++;
			result(r, item, "listed already", NULL, true);
		} else {
			r->failed++;
			result(r, item, "not added", ret == -ERANGE ?
			       "the live filter probes no prefix length that holds it, and has "
			       "room for no more: load again" : ret == -E2BIG ?
			       "it would take over 65536 keys at the lengths the live filter "
			       "probes: load again" : strerror(-ret), false);
		}
		return;
	}
	ret = bb_live_del(&r->live, e, &holder);
	if (ret == 2) {
		r->done++;
		result(r, item, "deleted", "no list held it, yet the filter matched it: what an "
		       "interrupted add or del left, cleared", true);
		return;
	}
	if (ret > 0) {
		r->done++;
		result(r, item, "deleted", NULL, true);
		return;
	}
	r->failed++;
	if (ret < 0) {
		result(r, item, "not deleted", strerror(-ret), false);
		return;
	}
	if (holder) {
		if (holder->line)
			snprintf(note, sizeof(note), "what blocks it is listed at %s:%u (a wider "
				 "prefix, a parent name): del that, or allow this",
				 holder->src < r->live.n_sources ? r->live.sources[holder->src] :
				 "?", holder->line);
		else
			snprintf(note, sizeof(note), "what blocks it was added live (a wider "
				 "prefix, a parent name): del that, or allow this");
		result(r, item, "not listed as such", note, false);
	} else {
		result(r, item, "not listed", "no list holds it; a false positive is passed "
		       "with bloomblock allow", false);
	}
}

static void one_item(struct run *r, const char *item)
{
	char text[BB_KEY_MAX + 64];
	const char *why = NULL;
	struct bb_entry e;

	if (bb_list_parse_item(item, &e, text, sizeof(text), &why) < 0) {
		why = why ? why : "not an address, prefix, name or URL";
		pr_err("%s: %s\n", item, why);
		if (r->results)
			json_array_append_new(r->results, json_pack("{s:s, s:s}", "item", item,
								    "error", why));
		r->bad = true;
		return;
	}
	one_entry(r, item, &e);
}

static void stdin_item(void *ctx, const char *item)
{
	one_item(ctx, item);
}

static int one_file(struct run *r, const char *path)
{
	struct bb_list_opts lo = { .report = stderr, .max_entries = BB_MAX_ENTRIES_DEFAULT,
				   .max_bytes = BB_MAX_LIST_SIZE_DEFAULT };
	struct bb_list list;
	char text[BB_KEY_MAX + 80];
	size_t i;
	int err;

	bb_list_init(&list);
	err = bb_list_parse_file(&list, path, &lo, NULL);
	if (err) {
		bb_list_free(&list);
		r->bad = true;
		return err;
	}
	for (i = 0; i < list.n; i++) {
		bb_entry_text(&list.entries[i], text, sizeof(text));
		one_entry(r, text, &list.entries[i]);
	}
	bb_list_free(&list);
	return 0;
}

/* What add or del was asked: its items (argv[1..n_items]), files and --max-fp. */
struct items_args {
	const char *files[64];
	int n_files, n_items;
	double max_fp;		/* 0: twice the planned rate */
};

/*
 * add's or del's arguments into a, the items moved to argv[1..]: not getopt, as an
 * item may start with '-' (as for check). 0, or the exit code (-1: --help, answered).
 */
static int items_args(int argc, char **argv, bool add, struct items_args *a)
{
	bool items_only = false;
	char *end;
	int i, n = 0;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!items_only && (!strcmp(arg, "-h") || !strcmp(arg, "--help"))) {
			usage(stdout, add);
			return -1;
		}
		if (!items_only && !strcmp(arg, "--")) {
			items_only = true;
			continue;
		}
		if (!items_only && (!strcmp(arg, "-f") || !strcmp(arg, "--file"))) {
			if (i + 1 == argc || a->n_files == 64) {
				usage(stderr, add);
				return BB_EXIT_USAGE;
			}
			a->files[a->n_files++] = argv[++i];
			continue;
		}
		if (!items_only && add && !strcmp(arg, "--max-fp")) {
			if (i + 1 == argc || (a->max_fp = strtod(argv[i + 1], &end), *end) ||
			    !(a->max_fp > 0 && a->max_fp < 1)) {
				pr_err("--max-fp: a rate above 0 and below 1\n");
				return BB_EXIT_USAGE;
			}
			i++;
			continue;
		}
		argv[++n] = argv[i];
	}
	a->n_items = n;
	if (!n && !a->n_files) {
		usage(stderr, add);
		return BB_EXIT_USAGE;
	}
	return 0;
}

/*
 * inst's live filter (under the lock), its index and shadow opened into r->live;
 * inst is closed. 0, or the exit code.
 */
static int items_open(struct run *r, struct bb_instance *inst, struct bb_image *img,
		      char *index_path, char *shadow_path, size_t path_size)
{
	int err;

	err = bb_image_open_writable(inst, img);
	bb_instance_close(inst);
	if (err) {
		pr_err("no live filter under %s: %s\n", bb_opts.pin_dir, strerror(-err));
		return BB_EXIT_USAGE;
	}
	err = bb_state_path(index_path, path_size, BB_STATE_INDEX);
	err = err ?: bb_state_path(shadow_path, path_size, BB_STATE_SHADOW);
	err = err ?: bb_live_open(&r->live, img->mem, index_path, shadow_path);
	if (err) {
		pr_err("%s needs the live filter's key index, and %s/%s %s: load again%s\n",
		       r->add ? "add" : "del", bb_state_dir(), BB_STATE_INDEX,
		       err == -ENOENT ? "is missing" : err == -ESTALE ?
		       "is another filter's" : strerror(-err),
		       err == -ENOENT ? " without --no-index (a filter file holds none yet)" : "");
		bb_image_close(img);
		return BB_EXIT_USAGE;
	}
	if (r->live.shadow_built && bb_msg.debug)
		pr_info("the counting shadow was built from the key index\n");
	return 0;
}

/* The changes in r->live made live (bb_live_commit()), and said; the exit code. */
static int items_commit(struct run *r, const char *index_path, const char *shadow_path,
			double max_fp, int n_files)
{
	double fp_check[BB_CHECK_MAX];
	unsigned int c;
	__u64 keys;
	int err;

	if (!max_fp)
		max_fp = 2 * (r->live.meta.fp > 0 ? r->live.meta.fp : BB_FPR_DEFAULT);
	err = bb_live_commit(&r->live, index_path, shadow_path, max_fp, fp_check);
	if (err == -ENOSPC) {
		pr_err("nothing added: a check of a packet would then be a false positive ");
		for (c = 0; c < BB_CHECK_MAX; c++)
			if (fp_check[c] > 0)
				fprintf(stderr, "%s%s %.3g", c ? ", " : "", bb_check_name(c),
					fp_check[c]);
		fprintf(stderr, " of the time, over --max-fp %.3g: load again with more "
			"--capacity\n", max_fp);
		return BB_EXIT_ERROR;
	}
	if (err) {
		pr_err("%s: %s (a crash-safe order: at worst a false positive, never a "
		       "miss)\n", r->add ? "add" : "del", strerror(-err));
		return BB_EXIT_ERROR;
	}
	keys = r->add ? r->live.keys_added : r->live.keys_removed;
	if (r->quiet || n_files)
		pr_info("%s %zu item%s, %zu %s; %llu key%s %s\n", r->add ? "added" : "deleted",
			r->done, r->done == 1 ? "" : "s", r->add ? r->held : r->failed,
			r->add ? "listed already" : "not listed", (unsigned long long)keys,
			keys == 1 ? "" : "s", r->add ? "set" : "cleared");
	return r->failed ? BB_EXIT_ERROR : BB_EXIT_OK;
}

static int run_items(int argc, char **argv, bool add)
{
	struct items_args a = { .n_files = 0 };
	struct run r = { .add = add };
	char index_path[512], shadow_path[512];
	struct bb_instance inst;
	struct bb_image img;
	int i, lock, ret;

	ret = items_args(argc, argv, add, &a);
	if (ret)
		return ret < 0 ? BB_EXIT_OK : ret;
	if (bb_require_root() || bb_require_bpffs(bb_opts.pin_dir))
		return BB_EXIT_USAGE;
	ret = bb_instance_open_said(bb_opts.pin_dir, &inst);
	if (ret)
		return ret == -EUCLEAN ? BB_EXIT_ERROR : BB_EXIT_USAGE;
	lock = bb_state_lock();	/* a load swaps filters under it: this changes the live one */
	if (lock < 0) {
		bb_instance_close(&inst);
		return BB_EXIT_ERROR;
	}
	ret = items_open(&r, &inst, &img, index_path, shadow_path, sizeof(index_path));
	if (ret) {
		close(lock);
		return ret;
	}
	if (bb_msg.json)
		r.results = json_array();
	for (i = 0; i < a.n_files; i++) {
		r.quiet = true;
		if (one_file(&r, a.files[i]))
			pr_err("%s: not read, nothing of it %s\n", a.files[i],
			       add ? "added" : "deleted");
	}
	for (i = 1; i <= a.n_items; i++) {
		r.quiet = a.n_files > 0 || !strcmp(argv[i], "-");
		if (strcmp(argv[i], "-"))
			one_item(&r, argv[i]);
		else
			bb_stdin_items(stdin_item, &r);
	}
	if (r.bad) {
		pr_err("nothing %s: an item could not be parsed\n", add ? "added" : "deleted");
		ret = BB_EXIT_USAGE;
	} else {
		ret = items_commit(&r, index_path, shadow_path, a.max_fp, a.n_files);
	}
	if (r.results)
		bb_json_print(r.results);
	bb_live_close(&r.live);
	bb_image_close(&img);
	close(lock);
	return ret;
}

int cmd_add(int argc, char **argv)
{
	return run_items(argc, argv, true);
}

int cmd_del(int argc, char **argv)
{
	return run_items(argc, argv, false);
}

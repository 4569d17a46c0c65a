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

static int run_items(int argc, char **argv, bool add)
{
	struct run r = { .add = add };
	double max_fp = 0, fp_check[BB_CHECK_MAX];
	const char *files[64];
	char index_path[512], shadow_path[512];
	struct bb_instance inst;
	struct bb_image img;
	int i, n = 0, n_files = 0, lock, err, ret;
	bool items_only = false;
	char *end;

	/* Not getopt: an item may start with '-', as for check. */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!items_only && (!strcmp(a, "-h") || !strcmp(a, "--help"))) {
			usage(stdout, add);
			return BB_EXIT_OK;
		}
		if (!items_only && !strcmp(a, "--")) {
			items_only = true;
			continue;
		}
		if (!items_only && (!strcmp(a, "-f") || !strcmp(a, "--file"))) {
			if (i + 1 == argc || n_files == 64) {
				usage(stderr, add);
				return BB_EXIT_USAGE;
			}
			files[n_files++] = argv[++i];
			continue;
		}
		if (!items_only && add && !strcmp(a, "--max-fp")) {
			if (i + 1 == argc || (max_fp = strtod(argv[i + 1], &end), *end) ||
			    !(max_fp > 0 && max_fp < 1)) {
				pr_err("--max-fp: a rate above 0 and below 1\n");
				return BB_EXIT_USAGE;
			}
			i++;
			continue;
		}
		argv[++n] = argv[i];
	}
	argc = n + 1;
	if (argc < 2 && !n_files) {
		usage(stderr, add);
		return BB_EXIT_USAGE;
	}
	if (bb_require_root() || bb_require_bpffs(bb_opts.pin_dir))
		return BB_EXIT_USAGE;
	err = bb_instance_open_said(bb_opts.pin_dir, &inst);
	if (err)
		return err == -EUCLEAN ? BB_EXIT_ERROR : BB_EXIT_USAGE;
	lock = bb_state_lock();	/* a load swaps filters under it: this changes the live one */
	if (lock < 0) {
		bb_instance_close(&inst);
		return BB_EXIT_ERROR;
	}
	err = bb_image_open_writable(&inst, &img);
	bb_instance_close(&inst);
	if (err) {
		pr_err("no live filter under %s: %s\n", bb_opts.pin_dir, strerror(-err));
		close(lock);
		return BB_EXIT_USAGE;
	}
	err = bb_state_path(index_path, sizeof(index_path), BB_STATE_INDEX);
	err = err ?: bb_state_path(shadow_path, sizeof(shadow_path), BB_STATE_SHADOW);
	err = err ?: bb_live_open(&r.live, img.mem, index_path, shadow_path);
	if (err) {
		pr_err("%s needs the live filter's key index, and %s/%s %s: load again%s\n",
		       add ? "add" : "del", bb_state_dir(), BB_STATE_INDEX,
		       err == -ENOENT ? "is missing" : err == -ESTALE ?
		       "is another filter's" : strerror(-err),
		       err == -ENOENT ? " without --no-index (a filter file holds none yet)" : "");
		bb_image_close(&img);
		close(lock);
		return BB_EXIT_USAGE;
	}
	if (r.live.shadow_built && bb_opts.debug)
		pr_info("the counting shadow was built from the key index\n");
	if (bb_opts.json)
		r.results = json_array();
	for (i = 0; i < n_files; i++) {
		r.quiet = true;
		if (one_file(&r, files[i]))
			pr_err("%s: not read, nothing of it %s\n", files[i], add ? "added" : "deleted");
	}
	for (i = 1; i < argc; i++) {
		r.quiet = n_files > 0 || !strcmp(argv[i], "-");
		if (strcmp(argv[i], "-"))
			one_item(&r, argv[i]);
		else
			bb_stdin_items(stdin_item, &r);
	}
	if (!max_fp)
		max_fp = 2 * (r.live.meta.fp > 0 ? r.live.meta.fp : BB_FPR_DEFAULT);
	ret = r.bad ? BB_EXIT_USAGE : r.failed ? BB_EXIT_ERROR : BB_EXIT_OK;
	if (r.bad) {
		pr_err("nothing %s: an item could not be parsed\n", add ? "added" : "deleted");
		goto out;
	}
	err = bb_live_commit(&r.live, index_path, shadow_path, max_fp, fp_check);
	if (err == -ENOSPC) {
		unsigned int c;

		pr_err("nothing added: a check of a packet would then be a false positive ");
		for (c = 0; c < BB_CHECK_MAX; c++)
			if (fp_check[c] > 0)
				fprintf(stderr, "%s%s %.3g", c ? ", " : "", bb_check_name(c),
					fp_check[c]);
		fprintf(stderr, " of the time, over --max-fp %.3g: load again with more "
			"--capacity\n", max_fp);
		ret = BB_EXIT_ERROR;
		goto out;
	}
	if (err) {
		pr_err("%s: %s (a crash-safe order: at worst a false positive, never a "
		       "miss)\n", add ? "add" : "del", strerror(-err));
		ret = BB_EXIT_ERROR;
		goto out;
	}
	if (r.quiet || n_files)
		pr_info("%s %zu item%s, %zu %s; %llu key%s %s\n", add ? "added" : "deleted",
			r.done, r.done == 1 ? "" : "s", add ? r.held : r.failed, add ? "listed already" : "not listed",
			(unsigned long long)(add ? r.live.keys_added : r.live.keys_removed),
			(add ? r.live.keys_added : r.live.keys_removed) == 1 ? "" : "s",
			add ? "set" : "cleared");
out:
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

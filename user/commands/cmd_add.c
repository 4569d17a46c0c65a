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
#include "items.h"
#include "filter.h"
#include "list.h"
#include "pins.h"
#include "state.h"

/*
 * One item's outcome, kept until the commit says whether the staged changes went
 * live: only then is anything said, so that "added" is never printed for what a
 * refused commit did not add.
 */
struct outcome {
	char *item;
	const char *what;	/* "added", "listed already", "not added", ... */
	char *note;
	bool ok, staged;	/* staged: its change waits for the commit */
	bool quiet;		/* from a file or stdin: said only when it failed */
};

struct run {
	bool add;
	struct bb_live live;
	struct outcome *v;
	size_t n, cap;
	size_t done, held, failed;
	bool quiet;		/* the items now from a file or stdin */
	bool bad_file;		/* a file not read, or with lines that are no item */
	bool nomem;
};

static void result(struct run *r, const char *item, const char *what, const char *note,
		   bool ok)
{
	struct outcome *o;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct outcome *v = realloc(r->v, cap * sizeof(*v));

		if (!v) {
			r->nomem = true;
			return;
		}
		r->v = v;
		r->cap = cap;
	}
	o = &r->v[r->n++];
	*o = (struct outcome){ .item = strdup(item), .what = what,
			       .note = note ? strdup(note) : NULL, .ok = ok,
			       .staged = ok && (!strcmp(what, "added") || !strcmp(what, "deleted")),
			       .quiet = r->quiet };
	if (!o->item)
		r->nomem = true;
}

/* What each item came to, now that the commit said: stdout (or -j), in order. */
static void results_say(struct run *r)
{
	json_t *arr = bb_msg.json ? json_array() : NULL;
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct outcome *o = &r->v[i];

		if (arr)
			json_array_append_new(arr, json_pack("{s:s, s:s, s:b, s:s?}", "item",
							     o->item, "result", o->what, "done",
							     o->ok, "note", o->note));
		else if (!(o->quiet && o->ok))
			printf("%s: %s%s%s\n", o->item, o->what, o->note ? ": " : "",
			       o->note ? o->note : "");
	}
	if (arr)
		bb_json_print(arr);
}

/* The commit refused: each staged change is undone, and says why. */
static void results_refused(struct run *r, const char *why)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		struct outcome *o = &r->v[i];

		if (!o->staged)
			continue;
		o->what = r->add ? "not added" : "not deleted";
		o->ok = false;
		free(o->note);
		o->note = strdup(why);
		r->done--;
		r->failed++;
	}
}

static void results_free(struct run *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->v[i].item);
		free(r->v[i].note);
	}
	free(r->v);
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
		/* a line of stdin: the command line's were checked before */
		r->failed++;
		result(r, item, r->add ? "not added" : "not deleted", why ? why :
		       "not an address, prefix, name or URL", false);
		return;
	}
	one_entry(r, item, &e);
}

static void stdin_item(void *ctx, const char *item)
{
	one_item(ctx, item);
}

/* A list file's entries, each an item; its lines that are none said by the parser. */
static int one_file(struct run *r, const char *path)
{
	struct bb_list_opts lo = { .report = stderr, .max_entries = BB_MAX_ENTRIES_DEFAULT,
				   .max_bytes = BB_MAX_LIST_SIZE_DEFAULT };
	struct bb_list list;
	char text[BB_KEY_MAX + 80];
	size_t i, rejected;
	int err;

	bb_list_init(&list);
	err = bb_list_parse_file(&list, path, &lo, NULL);
	if (err) {
		bb_list_free(&list);
		r->bad_file = true;
		return err;
	}
	rejected = bb_list_rejected_total(&list.counts);
	if (rejected) {
		pr_warn("%s: %zu line%s %s no item (above): not %s\n", path, rejected,
			rejected == 1 ? "" : "s", rejected == 1 ? "is" : "are",
			r->add ? "added" : "deleted");
		r->bad_file = true;
	}
	for (i = 0; i < list.n; i++) {
		bb_entry_text(&list.entries[i], text, sizeof(text));
		one_entry(r, text, &list.entries[i]);
	}
	bb_list_free(&list);
	return 0;
}

/* add's and del's options. */
struct items_opts {
	const char *files[64];
	int n_files;
	double max_fp;		/* 0: twice the planned rate */
};

static int opt_file(void *opts, const struct bb_option *o, const char *arg)
{
	struct items_opts *io = opts;

	(void)o;
	if (io->n_files == 64) {
		pr_err("-f: at most 64 files\n");
		return -EINVAL;
	}
	io->files[io->n_files++] = arg;
	return 0;
}

static int opt_max_fp(void *opts, const struct bb_option *o, const char *arg)
{
	double *v = BB_OPT_FIELD(opts, o, double);
	char *end;

	*v = strtod(arg, &end);
	if (*end || end == arg || !(*v > 0 && *v < 1)) {
		pr_err("--max-fp: a rate above 0 and below 1, not '%s'\n", arg);
		return -EINVAL;
	}
	return 0;
}

static const struct bb_option del_options[] = {
	{ "file", 'f', "LIST", "the entries of a list file (any format load reads;\n"
	  "repeatable)", opt_file, 0, BB_OPT_NO_GIVEN, NULL },
	BB_OPT_END
};

static const struct bb_option add_options[] = {
	{ "file", 'f', "LIST", "the entries of a list file (any format load reads;\n"
	  "repeatable)", opt_file, 0, BB_OPT_NO_GIVEN, NULL },
	{ "max-fp", 0, "P", "refuse what would make a check of a packet a false\n"
	  "positive more often than P (default: twice load's --fp)", opt_max_fp,
	  offsetof(struct items_opts, max_fp), BB_OPT_NO_GIVEN, NULL },
	BB_OPT_END
};

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
		return BB_EXIT_ERROR;
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
		return BB_EXIT_ERROR;
	}
	if (r->live.shadow_built && bb_msg.debug)
		pr_info("the counting shadow was built from the key index\n");
	return 0;
}

/*
 * Why the commit refused the adds: each check over max_fp, and whether the live
 * filter was sized for that check at all (a kind it holds no keys of: --room), or is
 * full (--capacity).
 */
static void refused_why(const struct run *r, const double *fp_check, double max_fp, char *why,
			size_t size)
{
	static const char *const kinds[BB_CHECK_MAX] = { "addresses", "names", "URLs" };
	static const char *const rooms[BB_CHECK_MAX] = { "", "names", "urls" };
	const struct bb_header *hdr = (const void *)&r->live.image[BB_HEADER_INDEX];
	static const __u32 kind_flag[BB_CHECK_MAX] = { 0, BB_HDR_F_NAMES | BB_HDR_F_ROOM_NAMES,
						       BB_HDR_F_URLS | BB_HDR_F_ROOM_URLS };
	size_t used = 0;
	unsigned int c;

	why[0] = '\0';
	for (c = 0; c < BB_CHECK_MAX && used < size; c++) {
		bool new_kind = kind_flag[c] && !(hdr->flags & kind_flag[c]);

		if (!(fp_check[c] > max_fp))
			continue;
		used += (size_t)snprintf(why + used, size - used, "%s%s check of a packet would "
					 "be a false positive %.3g of the time, over --max-fp "
					 "%.3g: ", used ? "; " : "", bb_check_name(c),
					 fp_check[c], max_fp);
		if (used >= size)
			break;
		if (new_kind)
			used += (size_t)snprintf(why + used, size - used, "the live filter holds "
						 "no %s and was sized without room for them: "
						 "load again with --room %s (or with %s in a "
						 "list)", kinds[c], rooms[c], kinds[c]);
		else
			used += (size_t)snprintf(why + used, size - used, "the live filter is "
						 "full: load again with more --capacity");
	}
}

/* The changes in r->live made live (bb_live_commit()); the exit code. */
static int items_commit(struct run *r, const char *index_path, const char *shadow_path,
			double max_fp)
{
	double fp_check[BB_CHECK_MAX];
	char why[1024];
	int err;

	if (!max_fp)
		max_fp = 2 * (r->live.meta.fp > 0 ? r->live.meta.fp : BB_FPR_DEFAULT);
	err = bb_live_commit(&r->live, index_path, shadow_path, max_fp, fp_check);
	if (err == -ENOSPC) {
		refused_why(r, fp_check, max_fp, why, sizeof(why));
		results_refused(r, why);
		pr_err("nothing added: %s\n", why);
		return BB_EXIT_ERROR;
	}
	if (err) {
		snprintf(why, sizeof(why), "%s (a crash-safe order: at worst a false positive, "
			 "never a miss)", strerror(-err));
		results_refused(r, why);
		pr_err("%s: %s\n", r->add ? "add" : "del", why);
		return BB_EXIT_ERROR;
	}
	return r->failed ? BB_EXIT_ERROR : BB_EXIT_OK;
}

/* The totals, for items from files and stdin (whose every line is not said). */
static void items_summary(const struct run *r)
{
	__u64 keys = r->add ? r->live.keys_added : r->live.keys_removed;

	if (r->add)
		pr_info("added %zu item%s, %zu listed already, %zu not added; %llu key%s set\n",
			r->done, r->done == 1 ? "" : "s", r->held, r->failed,
			(unsigned long long)keys, keys == 1 ? "" : "s");
	else
		pr_info("deleted %zu item%s, %zu not deleted; %llu key%s cleared\n", r->done,
			r->done == 1 ? "" : "s", r->failed, (unsigned long long)keys,
			keys == 1 ? "" : "s");
}

static int run_items(const struct bb_command *cmd, int argc, char **argv, bool add)
{
	struct items_opts io = { .n_files = 0 };
	struct run r = { .add = add };
	char index_path[512], shadow_path[512];
	struct bb_instance inst;
	struct bb_image img;
	struct bb_args a;
	bool any_quiet = false;
	int i, lock, ret;

	ret = bb_items_parse(cmd, argc, argv, &io, &a);
	if (ret < 0 && !a.n && !io.n_files)
		ret = bb_usage_error(cmd, "names no item (and no -f LIST)");
	if (ret >= 0)
		goto out_args;
	ret = BB_EXIT_ERROR;
	if (bb_require_root() || bb_require_bpffs(bb_opts.pin_dir) ||
	    bb_instance_open_said(bb_opts.pin_dir, &inst))
		goto out_args;
	lock = bb_state_lock();	/* a load swaps filters under it: this changes the live one */
	if (lock < 0) {
		bb_instance_close(&inst);
		goto out_args;
	}
	ret = items_open(&r, &inst, &img, index_path, shadow_path, sizeof(index_path));
	if (ret) {
		close(lock);
		goto out_args;
	}
	for (i = 0; i < io.n_files; i++) {
		r.quiet = any_quiet = true;
		if (one_file(&r, io.files[i]))
			pr_err("%s: not read, nothing of it %s\n", io.files[i],
			       add ? "added" : "deleted");
	}
	for (i = 0; i < a.n; i++) {
		r.quiet = io.n_files > 0 || !strcmp(a.v[i], "-");
		any_quiet |= r.quiet;
		if (strcmp(a.v[i], "-"))
			one_item(&r, a.v[i]);
		else
			bb_stdin_items(stdin_item, &r);
	}
	if (r.nomem) {
		pr_err("out of memory: nothing %s\n", add ? "added" : "deleted");
		ret = BB_EXIT_ERROR;
	} else {
		ret = items_commit(&r, index_path, shadow_path, io.max_fp);
		results_say(&r);
		if (any_quiet)
			items_summary(&r);
		if (r.bad_file)
			ret = BB_EXIT_ERROR;
	}
	results_free(&r);
	bb_live_close(&r.live);
	bb_image_close(&img);
	close(lock);
out_args:
	bb_args_free(&a);
	return ret;
}

static int cmd_add(int argc, char **argv)
{
	return run_items(&cmd_add_def, argc, argv, true);
}

static int cmd_del(int argc, char **argv)
{
	return run_items(&cmd_del_def, argc, argv, false);
}

const struct bb_command cmd_add_def = {
	.name = "add",
	.synopsis = "[--max-fp P] [-f LIST]... [ITEM...]   (ITEM \"-\": stdin)",
	.summary = "block items in the live filter now, until the next load",
	.help = "Block addresses, prefixes, names (\"*.name\": the subdomains only) and URLs\n"
		"in the live filter at once, with no rebuild; until the next load, which\n"
		"builds from its lists. Each item's line says what was done: added, listed\n"
		"already, or not added and why. Refused, with nothing changed, when a check of\n"
		"a packet would then be a false positive more often than --max-fp: load again\n"
		"with more --capacity, or, for a kind the filter holds none of (a URL added to\n"
		"a filter of addresses), with --room. Items that start with '-' follow \"--\".\n",
	.notes = "Exit status: 0 every item added (or listed already); 1 any not (the rate, a\n"
		 "prefix length the filter cannot take without a reload, a line of a file or\n"
		 "stdin that is no item), or an error (not root, nothing loaded, no key index:\n"
		 "load --no-index); 2 a usage error: an item that cannot be parsed, and\n"
		 "nothing is done.\n",
	.groups = { add_options },
	.run = cmd_add,
};

const struct bb_command cmd_del_def = {
	.name = "del",
	.synopsis = "[-f LIST]... [ITEM...]   (ITEM \"-\": stdin)",
	.summary = "take listed items out of the live filter, until the next load",
	.help = "Take listed items out of the live filter at once, until the next load. Only\n"
		"what a list holds as such can be deleted (the key index says): deleting\n"
		"what it does not hold is refused, since it would unblock listed items. A\n"
		"bit is cleared only when no listed item sets it, so nothing else listed is\n"
		"ever unblocked; to pass an item a wider prefix or a parent name blocks, use\n"
		"bloomblock allow.\n",
	.notes = "Exit status: 0 every item deleted; 1 any not listed as such, or an error; 2 a\n"
		 "usage error (nothing is done).\n",
	.groups = { del_options },
	.run = cmd_del,
};

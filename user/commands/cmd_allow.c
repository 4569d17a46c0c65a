// SPDX-License-Identifier: GPL-2.0
/*
 * bloomblock allow / disallow: change the live allowlist in place, at once, and keep
 * the change in the state directory's allow.list, which every load reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault.h"
#include "outfile.h"
#include "common.h"
#include "items.h"
#include "filter.h"
#include "list.h"
#include "pins.h"
#include "state.h"

/* The items kept in allow.list, one a line as bb_entry_text() wrote them. */
struct kept {
	char **v;
	size_t n, cap;
	bool changed;
};

static int kept_add(struct kept *k, const char *text)
{
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 16;
		char **v = realloc(k->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		k->v = v;
		k->cap = cap;
	}
	k->v[k->n] = strdup(text);
	if (!k->v[k->n])
		return -ENOMEM;
	k->n++;
	return 0;
}

static ssize_t kept_find(const struct kept *k, const char *text)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		if (!strcmp(k->v[i], text))
			return (ssize_t)i;
	return -1;
}

static void kept_free(struct kept *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		free(k->v[i]);
	free(k->v);
}

static int kept_read(struct kept *k)
{
	char path[512], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int err = bb_state_path(path, sizeof(path), BB_STATE_ALLOW);

	if (err)
		return err;
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (!err && (len = getline(&line, &cap, f)) > 0) {
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len && line[0] != '#')
			err = kept_add(k, line);
	}
	free(line);
	fclose(f);
	return err;
}

/* The file anew, written to a temporary name and renamed: a reader sees old or new. */
static int kept_write(const struct kept *k)
{
	char path[512], tmp[530];
	size_t i;
	FILE *f;
	int err = bb_state_path(path, sizeof(path), BB_STATE_ALLOW);

	if (err)
		return err;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = bb_tmp_fopen(tmp, 0600);
	if (!f)
		return -errno;
	fprintf(f, "# bloomblock allow: items kept for every load (bloomblock disallow to "
		"take one out)\n");
	for (i = 0; i < k->n; i++)
		fprintf(f, "%s\n", k->v[i]);
	if (fflush(f) || ferror(f)) {
		err = -errno;
		fclose(f);
		unlink(tmp);
		return err ? err : -EIO;
	}
	if (fclose(f) || rename(tmp, path)) {
		err = -errno;
		unlink(tmp);
		return err;
	}
	return 0;
}

struct run {
	bool allow;
	struct bb_image img;
	struct kept kept;
	json_t *results;
	bool failed;
};

static void result(struct run *r, const char *item, const char *what, const char *note)
{
	if (r->results)
		json_array_append_new(r->results, json_pack("{s:s, s:s, s:s?}", "item", item,
							    "result", what, "note", note));
	else
		printf("%s: %s%s%s\n", item, what, note ? ": " : "", note ? note : "");
}

/* Whether text, read as a line of a list, is the entry e again. */
static bool kept_reads_back(const char *text, const struct bb_entry *e)
{
	struct bb_list list;
	const char *why;
	bool same;

	bb_list_init(&list);
	same = bb_list_parse_line(&list, text, strlen(text), &why) == 1 && list.n == 1 &&
	       list.entries[0].kind == e->kind && list.entries[0].plen == e->plen &&
	       (list.entries[0].flags & ~BB_ENTRY_F_ALLOW) == (e->flags & ~BB_ENTRY_F_ALLOW) &&
	       !memcmp(list.entries[0].addr, e->addr, sizeof(e->addr)) &&
	       (!e->text || (list.entries[0].text && !strcmp(list.entries[0].text, e->text)));
	bb_list_free(&list);
	return same;
}

static void one(struct run *r, const char *item)
{
	char text[BB_KEY_MAX + 64], kept_text[BB_KEY_MAX + 80];
	const char *why = NULL;
	struct bb_entry e;
	ssize_t at;
	int ret;

	if (bb_list_parse_item(item, &e, text, sizeof(text), &why) < 0) {
		/* a line of stdin: the command line's were checked before */
		result(r, item, r->allow ? "not allowed" : "not taken out", why ? why :
		       "not an address, prefix, name or URL");
		r->failed = true;
		return;
	}
	e.flags |= BB_ENTRY_F_ALLOW;
	bb_entry_text(&e, kept_text, sizeof(kept_text));
	if (r->allow && !kept_reads_back(kept_text, &e)) {
		/* a load reads allow.list as a list: what a list line cannot say, it would lose */
		result(r, item, "not allowed", "a list cannot hold it as it is, so a reload "
		       "would drop it");
		r->failed = true;
		return;
	}
	at = kept_find(&r->kept, kept_text);
	if (r->allow) {
		ret = bb_image_allow_add(r->img.mem, &e);
		if (ret == -ENOSPC) {
			result(r, item, "not allowed", "the allowlist is full: load again, and the "
			       "new filter's allowlist is sized for what it holds");
			r->failed = true;
			return;
		}
		if (ret == -E2BIG) {
			result(r, item, "not allowed", "the allowlist holds prefixes of 8 lengths "
			       "of this family already, its most");
			r->failed = true;
			return;
		}
		if (ret < 0) {
			result(r, item, "not allowed", strerror(-ret));
			r->failed = true;
			return;
		}
		if (at < 0) {
			if (kept_add(&r->kept, kept_text)) {
				pr_err("out of memory\n");
				r->failed = true;
				return;
			}
			r->kept.changed = true;
		}
		result(r, item, ret ? "allowed" : "allowed already", NULL);
		return;
	}
	ret = bb_image_allow_remove(r->img.mem, &e);
	if (at >= 0) {
		free(r->kept.v[at]);
		memmove(&r->kept.v[at], &r->kept.v[at + 1],
			(r->kept.n - (size_t)at - 1) * sizeof(r->kept.v[0]));
		r->kept.n--;
		r->kept.changed = true;
	}
	if (ret < 0) {
		result(r, item, "not taken out", strerror(-ret));
		r->failed = true;
	} else if (!ret && at < 0) {
		result(r, item, "not allowed", NULL);
		r->failed = true;
	} else if (at < 0) {
		result(r, item, "taken out", "until the next load: a list given to load "
		       "allows it (load --allow, or a list's own exception)");
	} else {
		result(r, item, "taken out", NULL);
	}
}

static void stdin_item(void *ctx, const char *item)
{
	one(ctx, item);
	bb_fault_point("allow-item");	/* some of the items in the live allowlist */
}

static int list_kept(void)
{
	struct kept k = { 0 };
	json_t *items = bb_msg.json ? json_array() : NULL;
	size_t i;
	int err = kept_read(&k);

	if (err) {
		pr_err("cannot read %s/%s: %s\n", bb_state_dir(), BB_STATE_ALLOW, strerror(-err));
		kept_free(&k);	/* what was read before the error */
		json_decref(items);
		return BB_EXIT_ERROR;
	}
	for (i = 0; i < k.n; i++) {
		if (items)
			json_array_append_new(items, json_string(k.v[i]));
		else
			printf("%s\n", k.v[i]);
	}
	if (items)
		bb_json_print(items);
	else if (!k.n)
		pr_info("no items kept (%s/%s)\n", bb_state_dir(), BB_STATE_ALLOW);
	kept_free(&k);
	return BB_EXIT_OK;
}

/* allow's own option. */
struct allow_opts {
	bool list;
};

static const struct bb_option allow_options[] = {
	{ "list", 'l', NULL, "print the items kept, and nothing else", bb_opt_flag,
	  offsetof(struct allow_opts, list), BB_OPT_NO_GIVEN, NULL },
	BB_OPT_END
};

static int run_items(const struct bb_command *cmd, int argc, char **argv, bool allow)
{
	struct run r = { .allow = allow };
	struct allow_opts ao = { 0 };
	struct bb_instance inst;
	struct bb_args a;
	int i, lock, err, ret;

	ret = bb_items_parse(cmd, argc, argv, &ao, &a);
	if (ret < 0 && ao.list && a.n)
		ret = bb_usage_error(cmd, "--list takes no item");
	if (ret < 0 && !ao.list && !a.n)
		ret = bb_usage_error(cmd, "names no item");
	if (ret >= 0 || ao.list) {
		bb_args_free(&a);
		return ret >= 0 ? ret : list_kept();
	}
	if (bb_require_root() || bb_require_bpffs(bb_opts.pin_dir)) {
		bb_args_free(&a);
		return BB_EXIT_ERROR;
	}
	err = bb_instance_open_said(bb_opts.pin_dir, &inst);
	if (err) {
		bb_args_free(&a);
		return BB_EXIT_ERROR;
	}
	/* a load swaps filters under the lock: this changes the one it left live */
	lock = bb_state_lock();
	if (lock < 0) {
		bb_instance_close(&inst);
		bb_args_free(&a);
		return BB_EXIT_ERROR;
	}
	err = bb_image_open_writable(&inst, &r.img);
	bb_instance_close(&inst);
	if (err) {
		pr_err("no live filter under %s: %s\n", bb_opts.pin_dir, strerror(-err));
		ret = BB_EXIT_ERROR;
		goto out;
	}
	err = kept_read(&r.kept);
	if (err) {
		pr_err("cannot read %s/%s: %s\n", bb_state_dir(), BB_STATE_ALLOW, strerror(-err));
		ret = BB_EXIT_ERROR;
		goto out;
	}
	if (bb_msg.json)
		r.results = json_array();
	for (i = 0; i < a.n; i++) {
		if (strcmp(a.v[i], "-"))
			one(&r, a.v[i]);
		else
			bb_stdin_items(stdin_item, &r);
	}
	bb_fault_point("allow-kept");	/* the live allowlist changed, allow.list not */
	if (r.kept.changed) {
		err = kept_write(&r.kept);
		if (err) {
			pr_err("the live filter has the change, but %s/%s could not be written (%s): "
			       "the next load will not\n", bb_state_dir(), BB_STATE_ALLOW,
			       strerror(-err));
			r.failed = true;
		}
	}
	if (r.results)
		bb_json_print(r.results);
	ret = r.failed ? BB_EXIT_ERROR : BB_EXIT_OK;
out:
	kept_free(&r.kept);
	bb_image_close(&r.img);
	close(lock);
	bb_args_free(&a);
	return ret;
}

static int cmd_allow(int argc, char **argv)
{
	return run_items(&cmd_allow_def, argc, argv, true);
}

static int cmd_disallow(int argc, char **argv)
{
	return run_items(&cmd_disallow_def, argc, argv, false);
}

const struct bb_command cmd_allow_def = {
	.name = "allow",
	.synopsis = "ITEM...   (ITEM \"-\": one item a line from stdin)\n--list",
	.summary = "let items through the live filter, now and after reloads",
	.help = "Let addresses, prefixes, names and URLs through the live filter whatever\n"
		"the lists hold: a false positive, or a host that must never be blocked.\n"
		"It takes effect at once, with no reload, and lasts: the items are kept in\n"
		"the state directory's " BB_STATE_ALLOW ", which every load reads as an allowlist.\n"
		"An allowed name passes its subdomains too (\"*.name\": the subdomains only),\n"
		"an allowed prefix every address in it, an allowed URL (http://host/path/)\n"
		"the requests under it; an allowed host passes its URLs. The allowlist is\n"
		"exact and read only after a hit, so it costs a miss nothing. Each item's\n"
		"line says what was done: allowed, allowed already, or not allowed and why.\n"
		"Items that start with '-' follow \"--\".\n",
	.notes = "Exit status: 0 every item allowed; 1 any not (full, too many prefix lengths,\n"
		 "a line of stdin that cannot be parsed), or an error (not root, nothing\n"
		 "loaded); 2 a usage error: an item that cannot be parsed, and nothing is done.\n",
	.groups = { allow_options },
	.run = cmd_allow,
};

const struct bb_command cmd_disallow_def = {
	.name = "disallow",
	.synopsis = "ITEM...   (ITEM \"-\": one item a line from stdin)",
	.summary = "take items out of the live allowlist",
	.help = "Take items out of the live allowlist, at once, and out of the state\n"
		"directory's " BB_STATE_ALLOW ". An item allowed by a list (load --allow, a\n"
		"list's own exceptions) is taken out of the live filter until the next load\n"
		"reads that list again.\n",
	.notes = "Exit status: 0 every item taken out; 1 any that was not allowed, or an error;\n"
		 "2 a usage error (nothing is done).\n",
	.run = cmd_disallow,
};

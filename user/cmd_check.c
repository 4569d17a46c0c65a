// SPDX-License-Identifier: GPL-2.0
/* bloomblock check: ask the live filter, with the kernel's own matching logic. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "filter.h"
#include "list.h"
#include "pins.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: bloomblock check ITEM...   (ITEM \"-\": one item a line from stdin)\n"
		"\n"
		"Ask the live filter whether each address, CIDR prefix, name or URL is listed.\n"
		"One line per item: \"listed (maybe)\" - a Bloom filter can err that way, at the\n"
		"FPR that status shows - or \"not listed\", which is certain.\n"
		"Exit status, like grep: 0 when every item is listed, 1 when any is not,\n"
		"2 on any error: an item that cannot be parsed, nothing loaded, not root.\n");
}

/* Returns 1 listed, 0 not listed, <0 bad item. */
static int check_one(const struct bb_image *img, const char *item, json_t *results)
{
	char text[BB_KEY_MAX + 64];
	struct bb_entry entry;
	const char *why = NULL;
	int listed;

	if (bb_list_parse_item(item, &entry, text, sizeof(text), &why) < 0) {
		why = why ? why : "not an address, prefix, name or URL";
		pr_err("%s: %s\n", item, why);
		if (results)
			json_array_append_new(results, json_pack("{s:s, s:s}", "item", item,
								 "error", why));
		return -EINVAL;
	}
	listed = bb_image_match_entry(img->blocks, &entry);
	if (results)
		json_array_append_new(results, json_pack("{s:s, s:s, s:b}", "item", item,
							 "kind", bb_entry_kind_name(entry.kind),
							 "listed", listed));
	else
		printf("%s: %s\n", item, listed ? "listed (maybe)" : "not listed");
	return listed;
}

int cmd_check(int argc, char **argv)
{
	bool any_missing = false, bad = false, items_only = false;
	struct bb_instance inst;
	json_t *results = NULL;
	struct bb_image img;
	int i, n = 0, err;

	/*
	 * Not getopt: an item may start with '-' (-x.example is a name). Only -h/--help
	 * before the first item is an option; "--" is allowed, and not needed.
	 */
	for (i = 1; i < argc; i++) {
		if (!items_only && !n && (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))) {
			usage(stdout);
			return BB_EXIT_OK;
		}
		if (!items_only && !strcmp(argv[i], "--")) {
			items_only = true;
			continue;
		}
		argv[++n] = argv[i];
	}
	argc = n + 1;
	if (argc < 2) {
		usage(stderr);
		return BB_EXIT_USAGE;
	}
	if (bb_require_root() || bb_require_bpffs(bb_opts.pin_dir))
		return BB_EXIT_USAGE;
	err = bb_instance_open(bb_opts.pin_dir, &inst);
	if (!err) {
		err = bb_image_open(&inst, &img);
		bb_instance_close(&inst);
	}
	if (err) {
		pr_err("no live filter under %s: %s\n", bb_opts.pin_dir, strerror(-err));
		return BB_EXIT_USAGE;
	}
	if (bb_opts.json)
		results = json_array();

	for (i = 1; i < argc; i++) {
		int r;

		if (strcmp(argv[i], "-")) {
			r = check_one(&img, argv[i], results);
			bad |= r < 0;
			any_missing |= r == 0;
			continue;
		}
		char *line = NULL;
		size_t cap = 0;
		ssize_t len;

		while ((len = getline(&line, &cap, stdin)) > 0) {
			while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' ||
				       line[len - 1] == ' ' || line[len - 1] == '\t'))
				line[--len] = 0;
			if (!len)
				continue;
			r = check_one(&img, line, results);
			bad |= r < 0;
			any_missing |= r == 0;
		}
		free(line);
	}
	bb_image_close(&img);
	if (results)
		bb_json_print(results);
	if (bad)
		return BB_EXIT_USAGE;
	return any_missing ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/* The items of add, del, allow, disallow and check, checked before any is acted on. */
#include <string.h>

#include "common.h"
#include "items.h"
#include "list.h"

int bb_items_parse(const struct bb_command *cmd, int argc, char **argv, void *opts,
		   struct bb_args *a)
{
	char text[BB_KEY_MAX + 64];
	struct bb_entry e;
	int i, ret, bad = 0;

	if (bb_args_init(a, argc))
		return BB_EXIT_ERROR;
	ret = bb_command_parse(cmd, argc, argv, opts, bb_args_add, a);
	if (ret >= 0)
		return ret;
	for (i = 0; i < a->n; i++) {
		const char *why = NULL;

		if (!strcmp(a->v[i], "-") ||
		    bb_list_parse_item(a->v[i], &e, text, sizeof(text), &why) >= 0)
			continue;
		pr_err("%s: %s: %s\n", cmd->name, a->v[i],
		       why ? why : "not an address, prefix, name or URL");
		bad++;
	}
	if (!bad)
		return -1;
	fprintf(stderr, "nothing done: %d item%s cannot be parsed; see bloomblock %s --help\n",
		bad, bad == 1 ? "" : "s", cmd->name);
	return BB_EXIT_USAGE;
}

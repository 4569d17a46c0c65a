// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: one list line (bb_list_parse_line(): plain, hosts, Adblock), and one item as
 * `check` reads it (bb_list_parse_item()). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "list.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bb_list list;
	struct bb_entry e;
	const char *why;
	char text[BB_KEY_MAX + 1], *item;

	bb_list_init(&list);
	bb_list_parse_line(&list, (const char *)data, size, &why);
	bb_list_free(&list);
	item = malloc(size + 1);
	if (!item)
		return 0;
	memcpy(item, data, size);
	item[size] = 0;
	bb_list_parse_item(item, &e, text, sizeof(text), &why);
	free(item);
	return 0;
}

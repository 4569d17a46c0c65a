/* SPDX-License-Identifier: GPL-2.0 */
/* What the BPF_PROG_TEST_RUN tests share: list lines in, a filter pushed live and mapped. */
#ifndef BB_TEST_BPF_HARNESS_H
#define BB_TEST_BPF_HARNESS_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bloomblock.skel.h"
#include "filter.h"
#include "list.h"
#include "pins.h"

/* The real object, loaded, its tail-call tables filled as an instance fills them. */
static struct bloomblock *harness_skeleton(void)
{
	struct bloomblock *skel = bloomblock__open_and_load();

	if (skel && bb_services_fill(skel->obj, BB_FAMILY_ALL)) {
		bloomblock__destroy(skel);
		skel = NULL;
	}
	return skel;
}

/* Every line into list; a line that is not one entry is an error, said in msg. */
static int harness_parse_lines(struct bb_list *list, const char *const *lines, char *msg,
			       size_t size)
{
	const char *why = NULL;
	size_t i;
	int ret;

	for (i = 0; lines[i]; i++) {
		ret = bb_list_parse_line(list, lines[i], strlen(lines[i]), &why);
		if (ret != 1) {
			snprintf(msg, size, "line \"%s\": %d (%s)", lines[i], ret, why ? why : "-");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Push a built filter into inst's slot and map the live one into img (closed
 * first): the tests' models read the kernel's copy.
 */
static int harness_push_filter(struct bb_instance *inst, struct bb_image *img,
			       struct bb_filter *filter, char *msg, size_t size)
{
	int err;

	bb_image_close(img);
	err = bb_filter_push(inst, filter);
	if (err) {
		snprintf(msg, size, "bb_filter_push: %s", strerror(-err));
		return err;
	}
	err = bb_image_open(inst, img);
	if (err)
		snprintf(msg, size, "bb_image_open: %s", strerror(-err));
	return err;
}

#endif /* BB_TEST_BPF_HARNESS_H */

// SPDX-License-Identifier: GPL-2.0
/* What the commands share: the global options, items from stdin, JSON files. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <bpf/libbpf.h>

#include "bloomblock.h"
#include "common.h"
#include "outfile.h"
#include "filter.h"

struct bb_global bb_opts = {
	.pin_dir = "/sys/fs/bpf/bloomblock",
};

const char *bb_mode_name(unsigned int hdr_flags)
{
	return hdr_flags & BB_HDR_F_CONFIRM ? "confirm" : hdr_flags & BB_HDR_F_DROP ? "drop" :
	       "flag";
}

json_t *bb_checks_json(const unsigned int *probes, const double *fpr)
{
	json_t *o = json_object();
	unsigned int c;

	for (c = 0; c < BB_CHECK_MAX; c++)
		json_object_set_new(o, bb_check_name(c), probes[c] ? json_real(fpr[c]) : json_null());
	return o;
}

void bb_stdin_items(void (*fn)(void *ctx, const char *item), void *ctx)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, stdin)) > 0) {
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' ||
			       line[len - 1] == ' ' || line[len - 1] == '\t'))
			line[--len] = 0;
		if (len && line[0] != '#')
			fn(ctx, line);
	}
	free(line);
}

// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the config file (bb_run_config_read(), libinih under it) and the load
 * arguments it makes (bb_run_config_argv()). */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct bb_run_config rc;
	char **argv = NULL;
	int argc = 0;
	FILE *out;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/bb-fuzz-config.%d", (int)getpid());
	out = fopen(path, "w");
	if (!out)
		return 0;
	if (size)
		fwrite(data, 1, size, out);
	fclose(out);
	if (!bb_run_config_read(path, &rc)) {
		bb_run_config_argv(&rc, &argv, &argc);	/* its strings are its own */
		bb_run_config_free(&rc);
	}
	unlink(path);
	return 0;
}

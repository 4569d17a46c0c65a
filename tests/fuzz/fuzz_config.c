// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the config file (bb_run_config_read(), libinih under it) and the load
 * arguments it makes (bb_run_config_argv()). */
#include <stdint.h>
#include <unistd.h>

#include "config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("config", data, size);
	struct bb_run_config rc;
	char **argv = NULL;
	int argc = 0;

	if (!path)
		return 0;
	if (!bb_run_config_read(path, &rc)) {
		bb_run_config_argv(&rc, &argv, &argc);	/* its strings are its own */
		bb_run_config_free(&rc);
	}
	unlink(path);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: a .bbf filter file opened (bbf_open(): header, sections, checksums). */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "bbf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct bbf_file f;
	char why[256];
	FILE *out;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/bb-fuzz-bbf.%d", (int)getpid());
	out = fopen(path, "w");
	if (!out)
		return 0;
	if (size)
		fwrite(data, 1, size, out);
	fclose(out);
	if (!bbf_open(path, &f, why, sizeof(why)))
		bbf_close(&f);
	unlink(path);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: a .bbf filter file opened (bbf_open(): header, sections, checksums). */
#include <stdint.h>
#include <unistd.h>

#include "bbf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("bbf", data, size);
	struct bbf_file f;
	char why[256];

	if (!path)
		return 0;
	if (!bbf_open(path, &f, why, sizeof(why)))
		bbf_close(&f);
	unlink(path);
	return 0;
}

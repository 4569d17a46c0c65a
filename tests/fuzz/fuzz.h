/* SPDX-License-Identifier: GPL-2.0 */
/* What the fuzzers that read files share: the input written to a file of their own. */
#ifndef BB_FUZZ_H
#define BB_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* data into /tmp/bb-fuzz-WHAT.PID (the same path each call): the path, or NULL. */
static inline const char *fuzz_file(const char *what, const uint8_t *data, size_t size)
{
	static char path[96];
	FILE *out;

	snprintf(path, sizeof(path), "/tmp/bb-fuzz-%s.%d", what, (int)getpid());
	out = fopen(path, "w");
	if (!out)
		return NULL;
	if (size && fwrite(data, 1, size, out) != size) {
		fclose(out);
		return NULL;
	}
	return fclose(out) ? NULL : path;
}

#endif /* BB_FUZZ_H */

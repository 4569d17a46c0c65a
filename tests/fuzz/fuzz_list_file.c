// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: a whole list file, in the format the input's first byte names (or
 * detected: auto), gzip, xz and zstd too (found by their magic bytes), read by
 * bb_list_parse_file() on one thread and, for a regular file, cut in small parts on
 * two (the parts' parse must find what one thread finds).
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz.h"
#include "list.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bb_list one, two;
	struct bb_list_opts o1 = { .threads = 1 }, o2 = { .threads = 2, .part_bytes = 64 };
	const char *path;

	if (size < 1 || !(path = fuzz_file("list", data + 1, size - 1)))
		return 0;
	o1.file.format = o2.file.format = (enum bb_list_format)(data[0] % BB_FORMAT_MAX);
	bb_list_init(&one);
	bb_list_init(&two);
	if (!bb_list_parse_file(&one, path, &o1, NULL) &&
	    !bb_list_parse_file(&two, path, &o2, NULL) && one.n != two.n)
		abort();	/* the parts' parse found another number of entries */
	bb_list_free(&one);
	bb_list_free(&two);
	unlink(path);
	return 0;
}

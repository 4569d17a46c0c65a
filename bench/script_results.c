// SPDX-License-Identifier: GPL-2.0
/*
 * What scripts/bench.sh measured before the driver runs (the CLI's loads, nft -f, the
 * veth part): a file of "name value" lines, the value the rest of the line.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_parts.h"

void script_results_read(struct script_results *r, const char *path)
{
	char text[256];
	FILE *f = fopen(path, "r");

	r->n = 0;
	if (!f)
		return;
	while (fgets(text, sizeof(text), f) && r->n < (int)ARRAY_SIZE(r->line)) {
		if (sscanf(text, "%63s %127[^\n]", r->line[r->n].name, r->line[r->n].value) == 2)
			r->n++;
	}
	fclose(f);
}

const char *script_value(const struct script_results *r, const char *name)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->line[i].name, name))
			return r->line[i].value;
	return NULL;
}

double script_number(const struct script_results *r, const char *name)
{
	const char *v = script_value(r, name);
	char *end;
	double d;

	if (!v)
		return NAN;
	d = strtod(v, &end);
	return end == v ? NAN : d;
}

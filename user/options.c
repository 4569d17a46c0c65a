// SPDX-License-Identifier: GPL-2.0
/* Parsing of option values shared by several commands. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "options.h"

int bb_parse_count(const char *s, __u64 *n)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': v *= 1e3; end++; break;
	case 'M': v *= 1e6; end++; break;
	case 'G': v *= 1e9; end++; break;
	}
	if (*end || v < 0 || v > 1e12 || v != floor(v))
		return -EINVAL;
	*n = (__u64)v;
	return 0;
}

int bb_parse_fpr(const char *s, double *fpr)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end != s && *end == '%') {
		v /= 100;
		end++;
	}
	if (end == s || *end || errno || !(v > 0 && v < 1)) {
		pr_err("--fp wants a false-positive rate between 0 and 1 (0.001 or 0.1%%), not "
		       "'%s'\n", s);
		return -EINVAL;
	}
	*fpr = v;
	return 0;
}

int bb_parse_choice(const char *opt, const char *arg, const char *const *words)
{
	char list[128] = "";
	size_t len = 0;
	int i, n;

	for (n = 0; words[n]; n++)
		if (!strcmp(arg, words[n]))
			return n;
	for (i = 0; i < n && len < sizeof(list); i++)
		len += snprintf(list + len, sizeof(list) - len, "%s%s",
				i == 0 ? "" : i == n - 1 ? " or " : ", ", words[i]);
	pr_err("%s is %s, not '%s'\n", opt, list, arg);
	return -EINVAL;
}

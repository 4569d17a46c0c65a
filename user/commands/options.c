// SPDX-License-Identifier: GPL-2.0
/* Option tables: getopt_long built from them, help printed from them; shared value parsers. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attach.h"
#include "common.h"
#include "options.h"

#define MAX_OPTIONS	64
#define HELP_COLUMN	26	/* where help text starts */

int bb_parse_count(const char *s, __u64 *n)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno == EINVAL)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': v *= 1e3; end++; break;
	case 'M': v *= 1e6; end++; break;
	case 'G': v *= 1e9; end++; break;
	}
	if (*end || v < 0 || v != floor(v))
		return -EINVAL;
	if (errno == ERANGE || v > 1e12)
		return -ERANGE;
	*n = (__u64)v;
	return 0;
}

int bb_parse_size(const char *v, unsigned long long *bytes)
{
	char *end;
	double n = strtod(v, &end);
	double mul = !*end ? 1 : !strcmp(end, "K") || !strcmp(end, "k") ? 1024 :
		     !strcmp(end, "M") ? 1048576.0 : !strcmp(end, "G") ? 1073741824.0 : 0;

	if (end == v || n < 1 || !mul || n * mul > 1e15)
		return -EINVAL;
	*bytes = (unsigned long long)(n * mul);
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
	if (v >= 0.5) {
		pr_err("--fp %s: a filter that calls half of all unlisted items listed would "
		       "drop or flag them; give a rate below 0.5 (default 0.001)\n", s);
		return -EINVAL;
	}
	if (v > 0.05)
		pr_warn("--fp %s: %.0f%% of the unlisted items looked up will be called listed\n",
			s, v * 100);
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

int bb_opt_flag(void *opts, const struct bb_option *o, const char *arg)
{
	(void)arg;
	*BB_OPT_FIELD(opts, o, bool) = true;
	return 0;
}

int bb_opt_choice(void *opts, const struct bb_option *o, const char *arg)
{
	char name[64];
	int c;

	snprintf(name, sizeof(name), "--%s", o->name);
	c = bb_parse_choice(name, arg, o->data);
	if (c < 0)
		return c;
	*BB_OPT_FIELD(opts, o, int) = c;
	return 0;
}

int bb_opt_string(void *opts, const struct bb_option *o, const char *arg)
{
	*BB_OPT_FIELD(opts, o, const char *) = arg;
	return 0;
}

int bb_opt_u32(void *opts, const struct bb_option *o, const char *arg)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 0);
	if (*end || end == arg || errno || v > 0xffffffffUL || arg[0] == '-') {
		pr_err("--%s wants a 32-bit number, not '%s'\n", o->name, arg);
		return -EINVAL;
	}
	*BB_OPT_FIELD(opts, o, __u32) = (__u32)v;
	return 0;
}

int bb_opt_fpr(void *opts, const struct bb_option *o, const char *arg)
{
	/* cppcheck-suppress invalidPointerCast ; the option's double field, at its offset */
	return bb_parse_fpr(arg, BB_OPT_FIELD(opts, o, double));
}

int bb_opt_iface(void *opts, const struct bb_option *o, const char *arg)
{
	struct bb_targets *t = BB_OPT_FIELD(opts, o, struct bb_targets);

	if (t->n_ifaces == BB_MAX_TARGETS) {
		pr_err("at most %d interfaces at once\n", BB_MAX_TARGETS);
		return -EINVAL;
	}
	t->ifnames[t->n_ifaces++] = arg;
	return 0;
}

int bb_opt_hook(void *opts, const struct bb_option *o, const char *arg)
{
	static const char *const words[] = { "xdp", "tc-ingress", "tc-egress", NULL };
	struct bb_targets *t = BB_OPT_FIELD(opts, o, struct bb_targets);
	int c = bb_parse_choice("--hook", arg, words);

	if (c < 0)
		return c;
	t->hooks[c] = t->any_hook = true;
	return 0;
}

static size_t table_len(const struct bb_option *table)
{
	size_t n = 0;

	while (table[n].name)
		n++;
	return n;
}

int bb_options_parse(int argc, char **argv, const struct bb_option *table, void *opts,
		     int (*positional)(void *ctx, const char *arg), void *ctx)
{
	struct option longs[MAX_OPTIONS + 2];
	char shorts[3 * MAX_OPTIONS + 4] = "-";	/* "-": arguments in their place */
	size_t n = table_len(table), i, s = 1;
	int opt, idx, err;

	if (n > MAX_OPTIONS)
		return -E2BIG;
	for (i = 0; i < n; i++) {
		longs[i] = (struct option){ table[i].name,
					    table[i].arg ? required_argument : no_argument, NULL,
					    (int)(256 + i) };
		if (table[i].short_name) {
			shorts[s++] = (char)table[i].short_name;
			if (table[i].arg)
				shorts[s++] = ':';
		}
	}
	longs[n] = (struct option){ "help", no_argument, NULL, 'h' };
	longs[n + 1] = (struct option){ 0 };
	shorts[s++] = 'h';
	shorts[s] = '\0';
	optind = 0;	/* a fresh scan: glibc reads the optstring's "-" only then */
	while ((opt = getopt_long(argc, argv, shorts, longs, &idx)) != -1) {
		const struct bb_option *o = NULL;

		if (opt == 'h')
			return -EAGAIN;
		if (opt == '?' || opt == ':')
			return -EINVAL;
		if (opt == 1) {
			err = positional ? positional(ctx, optarg) : -EINVAL;
			if (err)
				return err;
			continue;
		}
		if (opt >= 256)
			o = &table[opt - 256];
		for (i = 0; !o && i < n; i++)
			if (table[i].short_name == opt)
				o = &table[i];
		if (!o)
			return -EINVAL;
		err = o->parse(opts, o, o->arg ? optarg : NULL);
		if (err)
			return err;
		if (o->given != BB_OPT_NO_GIVEN)
			*(bool *)((char *)opts + o->given) = true;
	}
	return 0;
}

const struct bb_option *bb_option_find(const struct bb_option *table, const char *name)
{
	size_t i, k;

	for (i = 0; table[i].name; i++) {
		const char *a = table[i].name;

		for (k = 0; a[k] && name[k]; k++)
			if (a[k] != name[k] && !(a[k] == '-' && name[k] == '_'))
				break;
		if (!a[k] && !name[k])
			return &table[i];
	}
	return NULL;
}

void bb_options_usage(FILE *out, const struct bb_option *table)
{
	size_t i;

	for (i = 0; table[i].name; i++) {
		const struct bb_option *o = &table[i];
		const char *h = o->help;
		int w;

		w = o->short_name ? fprintf(out, "  -%c, --%s", o->short_name, o->name) :
				    fprintf(out, "      --%s", o->name);
		if (o->arg)
			w += fprintf(out, " %s", o->arg);
		/* the help's lines, the first after the option or under it when it is long */
		while (h && *h) {
			size_t len = strcspn(h, "\n");

			if (w >= HELP_COLUMN - 1) {
				fputc('\n', out);
				w = 0;
			}
			fprintf(out, "%*s%.*s\n", HELP_COLUMN - w, "", (int)len, h);
			w = 0;
			h += len + (h[len] == '\n');
		}
		if (!o->help)
			fputc('\n', out);
	}
	fprintf(out, "  -h, --help%*sthis help\n\n", HELP_COLUMN - 12, "");
}

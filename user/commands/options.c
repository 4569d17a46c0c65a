// SPDX-License-Identifier: GPL-2.0
/* Option tables: getopt_long built from them, help printed from them; shared value parsers. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "attach.h"
#include "common.h"
#include "options.h"
#include "state.h"

#define MAX_OPTIONS	80
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
		pr_err("--fp wants a false-positive rate above 0 and below 0.5 (0.001 or 0.1%%), "
		       "not '%s'\n", s);
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

/* "from 0.1 to 3600" or "1 or more": the bounds of r, as an error says them. */
static void range_text(const struct bb_opt_range *r, char *buf, size_t size)
{
	if (r->max >= 1e18)
		snprintf(buf, size, "%g or more", r->min);
	else
		snprintf(buf, size, "from %g to %g", r->min, r->max);
}

int bb_opt_double(void *opts, const struct bb_option *o, const char *arg)
{
	const struct bb_opt_range *r = o->data;
	char *end, bounds[64];
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno || !(v >= r->min && v <= r->max)) {
		range_text(r, bounds, sizeof(bounds));
		pr_err("--%s is a number %s, not '%s'\n", o->name, bounds, arg);
		return -EINVAL;
	}
	*BB_OPT_FIELD(opts, o, double) = v;
	return 0;
}

int bb_opt_long(void *opts, const struct bb_option *o, const char *arg)
{
	const struct bb_opt_range *r = o->data;
	char *end, bounds[64];
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (end == arg || *end || errno || !((double)v >= r->min && (double)v <= r->max)) {
		range_text(r, bounds, sizeof(bounds));
		pr_err("--%s is a whole number %s, not '%s'\n", o->name, bounds, arg);
		return -EINVAL;
	}
	*BB_OPT_FIELD(opts, o, long) = v;
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

/* The global options' parsers: they set bb_opts and bb_msg, whatever the command's opts. */
static int opt_json(void *opts, const struct bb_option *o, const char *arg)
{
	(void)opts, (void)o, (void)arg;
	bb_msg.json = true;
	return 0;
}

static int opt_pretty(void *opts, const struct bb_option *o, const char *arg)
{
	(void)opts, (void)o, (void)arg;
	bb_msg.json = bb_msg.pretty = true;
	return 0;
}

static int opt_debug(void *opts, const struct bb_option *o, const char *arg)
{
	(void)opts, (void)o, (void)arg;
	bb_msg.debug = true;
	return 0;
}

static int opt_pin_dir(void *opts, const struct bb_option *o, const char *arg)
{
	(void)opts, (void)o;
	bb_opts.pin_dir = arg;
	return 0;
}

static int opt_state_dir(void *opts, const struct bb_option *o, const char *arg)
{
	(void)opts, (void)o;
	bb_opts.state_dir = arg;
	return 0;
}

const struct bb_option bb_global_options[] = {
	{ "json", 'j', NULL, "JSON output", opt_json, 0, BB_OPT_NO_GIVEN, NULL },
	{ "pretty", 'p', NULL, "indented JSON (implies -j)", opt_pretty, 0, BB_OPT_NO_GIVEN,
	  NULL },
	{ "pin-dir", 0, "DIR", "where the instance is pinned (default " BB_PIN_DIR_DEFAULT ")",
	  opt_pin_dir, 0, BB_OPT_NO_GIVEN, NULL },
	{ "state-dir", 0, "DIR", "its lock, key index and records (default: where the\n"
	  "instance records it, else " BB_STATE_ROOT "/ and the pin\ndirectory's path, '/' as "
	  "'-')", opt_state_dir, 0, BB_OPT_NO_GIVEN, NULL },
	{ "debug", 'd', NULL, "libbpf's and libxdp's messages, the verifier's log",
	  opt_debug, 0, BB_OPT_NO_GIVEN, NULL },
	BB_OPT_END
};

/* The rows a parse reads: the command's groups, then the global ones. */
struct rows {
	const struct bb_option *v[MAX_OPTIONS];
	size_t n;
};

static int rows_add(struct rows *r, const struct bb_option *g)
{
	size_t i;

	for (i = 0; g[i].name; i++) {
		if (r->n == MAX_OPTIONS)
			return -E2BIG;
		r->v[r->n++] = &g[i];
	}
	return 0;
}

static int rows_of(const struct bb_command *cmd, struct rows *r)
{
	size_t k;
	int err = 0;

	r->n = 0;
	for (k = 0; cmd && k < BB_CMD_GROUPS && cmd->groups[k] && !err; k++)
		err = rows_add(r, cmd->groups[k]);
	return err ?: rows_add(r, bb_global_options);
}

/* What getopt_long reads, built from rows: optstring mode '-' or '+'. */
static void getopt_tables(const struct rows *r, char mode, struct option *longs, char *shorts)
{
	size_t i, s = 0;

	shorts[s++] = mode;
	shorts[s++] = ':';	/* a missing argument is ':', not '?' */
	for (i = 0; i < r->n; i++) {
		longs[i] = (struct option){ r->v[i]->name,
					    r->v[i]->arg ? required_argument : no_argument, NULL,
					    (int)(256 + i) };
		if (r->v[i]->short_name) {
			shorts[s++] = (char)r->v[i]->short_name;
			if (r->v[i]->arg)
				shorts[s++] = ':';
		}
	}
	longs[r->n] = (struct option){ "help", no_argument, NULL, 'h' };
	longs[r->n + 1] = (struct option){ 0 };
	shorts[s++] = 'h';
	shorts[s] = '\0';
}

/* The row of an option getopt_long returned (a long one's index, or a short name). */
static const struct bb_option *row_of(const struct rows *r, int opt)
{
	size_t i;

	if (opt >= 256 && (size_t)(opt - 256) < r->n)
		return r->v[opt - 256];
	for (i = 0; i < r->n; i++)
		if (r->v[i]->short_name == opt)
			return r->v[i];
	return NULL;
}

/* "--name" of the option getopt_long stopped at: argv[optind - 1], or -c. */
static void bad_option(char *buf, size_t size, char **argv, int opt)
{
	const char *a = optind > 0 ? argv[optind - 1] : NULL;

	if (a && a[0] == '-' && a[1] == '-')
		snprintf(buf, size, "%.*s", (int)strcspn(a, "="), a);
	else
		snprintf(buf, size, "-%c", opt ? opt : '?');
}

static void see_help(const struct bb_command *cmd)
{
	fprintf(stderr, "see bloomblock%s%s --help\n", cmd ? " " : "", cmd ? cmd->name : "");
}

int bb_usage_error(const struct bb_command *cmd, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	pr_err("%s%s%s\n", cmd ? cmd->name : "", cmd ? ": " : "", buf);
	see_help(cmd);
	return BB_EXIT_USAGE;
}

/*
 * The getopt_long loop over rows: options into opts, other arguments to positional.
 * -1 to go on, or the exit status.
 */
static int parse_rows(const struct bb_command *cmd, const struct rows *r, char mode, int argc,
		      char **argv, void *opts, int (*positional)(void *ctx, const char *arg),
		      void *ctx)
{
	struct option longs[MAX_OPTIONS + 2];
	char shorts[3 * MAX_OPTIONS + 6], bad[64];
	int opt, err;

	getopt_tables(r, mode, longs, shorts);
	optind = 0;	/* a fresh scan: glibc reads the optstring's mode only then */
	opterr = 0;	/* its messages are ours, in one form */
	while ((opt = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct bb_option *o;

		if (opt == 'h') {
			if (cmd)
				bb_command_help(stdout, cmd);
			return BB_EXIT_OK;
		}
		if (opt == '?' || opt == ':') {
			/* the argument: a cluster's (-x.example) is still argv[optind] */
			const char *a = optind < argc && argv[optind][0] == '-' &&
					argv[optind][1] == optopt ? argv[optind] :
					optind > 0 && optind <= argc ? argv[optind - 1] : "";

			bad_option(bad, sizeof(bad), argv, optopt);
			return bb_usage_error(cmd, opt == ':' ? "%s needs a value" :
					      positional && strchr(a, '.') ?
					      "%s is not an option (an argument that starts with "
					      "'-' follows --)" : "%s is not an option", bad);
		}
		if (opt == 1) {
			err = positional ? positional(ctx, optarg) : -EINVAL;
			if (err == -EINVAL && !positional)
				return bb_usage_error(cmd, "takes no argument ('%s')", optarg);
			if (err)
				goto failed;
			continue;
		}
		o = row_of(r, opt);
		if (!o)
			return bb_usage_error(cmd, "-%c is not an option", opt);
		err = o->parse(opts, o, o->arg ? optarg : NULL);
		if (err)
			goto failed;
		if (opts && o->given != BB_OPT_NO_GIVEN)
			*(bool *)((char *)opts + o->given) = true;
	}
	return -1;
failed:
	if (err != -EINVAL)
		return BB_EXIT_ERROR;
	see_help(cmd);	/* the parser said what */
	return BB_EXIT_USAGE;
}

int bb_command_parse(const struct bb_command *cmd, int argc, char **argv, void *opts,
		     int (*positional)(void *ctx, const char *arg), void *ctx)
{
	struct rows r;
	int ret, err;

	if (rows_of(cmd, &r))
		return BB_EXIT_ERROR;
	ret = parse_rows(cmd, &r, '-', argc, argv, opts, positional, ctx);
	if (ret >= 0)
		return ret;
	for (; optind < argc; optind++) {	/* after "--": arguments, all */
		if (!positional)
			return bb_usage_error(cmd, "takes no argument ('%s')", argv[optind]);
		err = positional(ctx, argv[optind]);
		if (err) {
			if (err != -EINVAL)
				return BB_EXIT_ERROR;
			see_help(cmd);
			return BB_EXIT_USAGE;
		}
	}
	/* the instance, as named now that every global option is read */
	bb_opts.pin_dir = bb_pin_dir_canonical(bb_opts.pin_dir);
	bb_state_init(bb_opts.pin_dir, bb_opts.state_dir);
	return -1;
}

int bb_global_parse(int argc, char **argv)
{
	struct rows r;
	int ret;

	if (rows_of(NULL, &r))
		return -1;
	ret = parse_rows(NULL, &r, '+', argc, argv, NULL, NULL, NULL);
	return ret >= 0 ? -1 : optind;
}

const struct bb_option *bb_command_option(const struct bb_command *cmd, const char *name)
{
	const struct bb_option *g;
	size_t i, k, c;

	for (k = 0; k < BB_CMD_GROUPS && (g = cmd->groups[k]); k++) {
		for (i = 0; g[i].name; i++) {
			const char *a = g[i].name;

			for (c = 0; a[c] && name[c]; c++)
				if (a[c] != name[c] && !(a[c] == '-' && name[c] == '_'))
					break;
			if (!a[c] && !name[c])
				return &g[i];
		}
	}
	return NULL;
}

int bb_args_init(struct bb_args *a, int argc)
{
	a->n = 0;
	a->max = argc > 0 ? argc : 1;
	a->v = calloc((size_t)a->max, sizeof(*a->v));
	if (!a->v) {
		pr_err("out of memory\n");
		return -ENOMEM;
	}
	return 0;
}

int bb_args_add(void *args, const char *arg)
{
	struct bb_args *a = args;

	if (a->n == a->max)
		return -ENOMEM;
	a->v[a->n++] = arg;
	return 0;
}

void bb_args_free(struct bb_args *a)
{
	free(a->v);
	a->v = NULL;
	a->n = 0;
}

void bb_command_help(FILE *out, const struct bb_command *cmd)
{
	const char *s = cmd->synopsis ? cmd->synopsis : "";
	bool first = true;
	size_t k;

	while (first || *s) {
		size_t len = strcspn(s, "\n");

		fprintf(out, "%s bloomblock %s%s%.*s\n", first ? "Usage:" : "      ", cmd->name,
			len ? " " : "", (int)len, s);
		s += len + (s[len] == '\n');
		first = false;
	}
	if (cmd->help)
		fprintf(out, "\n%s", cmd->help);
	fprintf(out, "\nOptions:\n");
	for (k = 0; k < BB_CMD_GROUPS && cmd->groups[k]; k++)
		bb_options_usage(out, cmd->groups[k]);
	fprintf(out, "  -h, --help%*sthis help\n", HELP_COLUMN - 12, "");
	fprintf(out, "Global options, before or after the command: -j, -p, -d, --pin-dir DIR,\n"
		"--state-dir DIR (bloomblock --help)\n");
	if (cmd->notes)
		fprintf(out, "\n%s", cmd->notes);
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
}

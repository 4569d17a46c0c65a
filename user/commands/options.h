/* SPDX-License-Identifier: GPL-2.0 */
/* Options as tables: each one's name, argument, help, parser and field; values the commands share. */
#ifndef BB_OPTIONS_H
#define BB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

/* "1000000", "1e6", "10M" -> n. Returns 0, -EINVAL or -ERANGE (over 10^12). */
int bb_parse_count(const char *s, __u64 *n);
/* "256M", "1G", "4096": bytes (K, M, G are powers of 1024). -EINVAL. */
int bb_parse_size(const char *v, unsigned long long *bytes);
/* A false-positive rate, 0 < p < 0.5; prints what is wrong, warns above 5%. */
int bb_parse_fpr(const char *s, double *fpr);

/*
 * One of words (NULL-terminated) -> its index; else prints "--opt is a, b or c,
 * not 'arg'" and returns -EINVAL.
 */
int bb_parse_choice(const char *opt, const char *arg, const char *const *words);

/*
 * An option of a command, in a table the command's parser, its help and (for load)
 * the daemon's config file all read: one place says what an option is. parse() sets
 * the field at offset in the command's struct of options from arg (NULL for an
 * option without one), printing what is wrong and returning -EINVAL; the bool at
 * given (when not BB_OPT_NO_GIVEN) is set when the option is given.
 */
struct bb_option {
	const char *name;	/* --name */
	int short_name;		/* -c, or 0 */
	const char *arg;	/* the argument's name in the help ("IFACE"); NULL: none */
	const char *help;	/* one or more lines, '\n' between them */
	int (*parse)(void *opts, const struct bb_option *o, const char *arg);
	size_t offset;		/* of the field parse() sets */
	size_t given;		/* of its "was given" bool, or BB_OPT_NO_GIVEN */
	const void *data;	/* what parse() needs besides: the words of a choice */
};

#define BB_OPT_NO_GIVEN	((size_t)-1)
#define BB_OPT_END	{ NULL, 0, NULL, NULL, NULL, 0, 0, NULL }

/* The field and the "was given" bool of an option, in the struct opts points to. */
#define BB_OPT_FIELD(opts, o, type)	((type *)((char *)(opts) + (o)->offset))

/* Parsers of the common kinds of value. */
int bb_opt_flag(void *opts, const struct bb_option *o, const char *arg);	/* bool = true */
int bb_opt_choice(void *opts, const struct bb_option *o, const char *arg);	/* int: index */
int bb_opt_string(void *opts, const struct bb_option *o, const char *arg);	/* const char * */
int bb_opt_u32(void *opts, const struct bb_option *o, const char *arg);	/* __u32, 0x too */
int bb_opt_fpr(void *opts, const struct bb_option *o, const char *arg);	/* double */
/* -i IFACE and --hook HOOK into a struct bb_targets (attach.h) at offset. */
int bb_opt_iface(void *opts, const struct bb_option *o, const char *arg);
int bb_opt_hook(void *opts, const struct bb_option *o, const char *arg);

/*
 * Parse argv[1..] against table with getopt_long. Arguments that are not options
 * go to positional(ctx, arg) in their place among the options ("-" included).
 * "--help"/"-h" is -EAGAIN (the caller prints its help); a bad option or value
 * -EINVAL (said); 0 done.
 */
int bb_options_parse(int argc, char **argv, const struct bb_option *table, void *opts,
		     int (*positional)(void *ctx, const char *arg), void *ctx);

/* The option of table named name ('-' and '_' alike, as a config file writes it). */
const struct bb_option *bb_option_find(const struct bb_option *table, const char *name);

/* "  -i, --interface IFACE   attach to IFACE (repeatable)": one line or more each. */
void bb_options_usage(FILE *out, const struct bb_option *table);

#endif /* BB_OPTIONS_H */

/* SPDX-License-Identifier: GPL-2.0 */
/* Commands and their options as tables: one parser, one help printer; values the commands share. */
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
#define BB_OPT_FIELD(opts, o, type)	((type *)(void *)((char *)(opts) + (o)->offset))

/* Parsers of the common kinds of value. */
int bb_opt_flag(void *opts, const struct bb_option *o, const char *arg);	/* bool = true */
int bb_opt_choice(void *opts, const struct bb_option *o, const char *arg);	/* int: index */
int bb_opt_string(void *opts, const struct bb_option *o, const char *arg);	/* const char * */
int bb_opt_u32(void *opts, const struct bb_option *o, const char *arg);	/* __u32, 0x too */
int bb_opt_fpr(void *opts, const struct bb_option *o, const char *arg);	/* double */
/* A number within bounds (data: a struct bb_opt_range): a double, or a long integer. */
struct bb_opt_range {
	double min, max;
};
int bb_opt_double(void *opts, const struct bb_option *o, const char *arg);
int bb_opt_long(void *opts, const struct bb_option *o, const char *arg);
/* -i IFACE and --hook HOOK into a struct bb_targets (attach.h) at offset. */
int bb_opt_iface(void *opts, const struct bb_option *o, const char *arg);
int bb_opt_hook(void *opts, const struct bb_option *o, const char *arg);

/*
 * A command: what it is called, what it takes, its help, and its options as groups of
 * rows (its own, and groups it shares with other commands: load, build and run share
 * load's). Every command is parsed by bb_command_parse() and helped by
 * bb_command_help(), and every one also takes the global options (bb_global_options),
 * before or after its name.
 */
#define BB_CMD_GROUPS	4
struct bb_command {
	const char *name;
	const char *synopsis;	/* what follows the name in "Usage:"; lines '\n'-separated */
	const char *summary;	/* one line, for bloomblock --help */
	const char *help;	/* what it does (paragraphs), before its options */
	const char *notes;	/* after its options, or NULL */
	const struct bb_option *groups[BB_CMD_GROUPS];	/* NULL-terminated */
	int (*run)(int argc, char **argv);
};

/* -j, -p, -d, --pin-dir, --state-dir: every command's, set into bb_opts and bb_msg. */
extern const struct bb_option bb_global_options[];

/*
 * Parse argv[1..] (argv[0] is the command's name) against cmd's rows and the global
 * ones; each argument that is not an option goes to positional(ctx, arg) in its place
 * ("-" included; after "--", every one). Returns -1 to go on, or the exit status the
 * command returns: BB_EXIT_OK after --help, BB_EXIT_USAGE after a usage error (said in
 * one line, then "see bloomblock CMD --help"), BB_EXIT_ERROR when positional() failed
 * for another reason than -EINVAL (which is a usage error it said).
 */
int bb_command_parse(const struct bb_command *cmd, int argc, char **argv, void *opts,
		     int (*positional)(void *ctx, const char *arg), void *ctx);

/* Usage, help, options (the command's own, then a line for the global ones), notes. */
void bb_command_help(FILE *out, const struct bb_command *cmd);

/*
 * A usage error found after parsing: "Error: CMD: what" and the "see --help" line.
 * Returns BB_EXIT_USAGE.
 */
int bb_usage_error(const struct bb_command *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The option named name among cmd's own rows, not the global ones ('-' and '_' alike,
 * as a config file writes it).
 */
const struct bb_option *bb_command_option(const struct bb_command *cmd, const char *name);

/*
 * The global options before the command: argv[1..] up to the first argument that is
 * not one of them. The index of the command's name, or -1 after a usage error (said).
 */
int bb_global_parse(int argc, char **argv);

/* The arguments that are not options, in order: bb_args_add() as the positional. */
struct bb_args {
	const char **v;
	int n, max;
};
/* Room for every argument of argv: 0, or -ENOMEM (said). */
int bb_args_init(struct bb_args *a, int argc);
int bb_args_add(void *args, const char *arg);
void bb_args_free(struct bb_args *a);

/* "  -i, --interface IFACE   attach to IFACE (repeatable)": one line or more each. */
void bb_options_usage(FILE *out, const struct bb_option *table);

#endif /* BB_OPTIONS_H */

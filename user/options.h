/* SPDX-License-Identifier: GPL-2.0 */
/* Option values the commands share: counts, rates, modes. */
#ifndef BB_OPTIONS_H
#define BB_OPTIONS_H

#include <linux/types.h>

/* "1000000", "1e6", "10M" -> n. Returns 0 or -EINVAL. */
int bb_parse_count(const char *s, __u64 *n);
/* A false-positive rate, 0 < p < 1; prints what is wrong. */
int bb_parse_fpr(const char *s, double *fpr);

/*
 * One of words (NULL-terminated) -> its index; else prints "--opt is a, b or c,
 * not 'arg'" and returns -EINVAL.
 */
int bb_parse_choice(const char *opt, const char *arg, const char *const *words);

#endif /* BB_OPTIONS_H */

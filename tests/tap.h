/* SPDX-License-Identifier: GPL-2.0 */
/* A kselftest-style TAP harness: one "ok N name" line per check, detail only on failure. */
#ifndef BB_TAP_H
#define BB_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int tap_count, tap_failed, tap_skipped;

static inline void tap_plan_header(void)
{
	printf("TAP version 13\n");
	fflush(stdout);
}

static inline int tap_result(int pass, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record one check; on failure print the detail as a TAP diagnostic. */
static inline int tap_result(int pass, const char *name, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (pass) {
		printf("ok %d %s\n", tap_count, name);
	} else {
		tap_failed++;
		printf("not ok %d %s\n", tap_count, name);
		if (fmt) {
			printf("# ");
			va_start(ap, fmt);
			vprintf(fmt, ap);
			va_end(ap);
			printf("\n");
		}
	}
	fflush(stdout);
	return pass;
}

/* A skip is a failure in CI (CI=true): there every test must run. */
static inline void tap_skip(const char *name, const char *reason)
{
	const char *ci = getenv("CI");

	tap_count++;
	if (ci && !strcmp(ci, "true")) {
		tap_failed++;
		printf("not ok %d %s # skipped in CI: %s\n", tap_count, name, reason);
	} else {
		tap_skipped++;
		printf("ok %d %s # SKIP %s\n", tap_count, name, reason);
	}
	fflush(stdout);
}

static inline int tap_finish(void)
{
	printf("1..%d\n", tap_count);
	printf("# %d passed, %d failed, %d skipped\n", tap_count - tap_failed - tap_skipped,
	       tap_failed, tap_skipped);
	return tap_failed ? 1 : 0;
}

#define ASSERT_TRUE(cond, name) \
	tap_result(!!(cond), name, "%s:%d: expected true: %s", __FILE__, __LINE__, #cond)
#define ASSERT_EQ(a, b, name) ({ \
	long long __a = (long long)(a), __b = (long long)(b); \
	tap_result(__a == __b, name, "%s:%d: %s == %lld, expected %s == %lld", __FILE__, \
		   __LINE__, #a, __a, #b, __b); })
#define ASSERT_STREQ(a, b, name) ({ \
	const char *__a = (a), *__b = (b); \
	tap_result(__a && __b && !strcmp(__a, __b), name, "%s:%d: \"%s\", expected \"%s\"", \
		   __FILE__, __LINE__, __a ? __a : "(null)", __b ? __b : "(null)"); })

/* Root and bpffs are needed for BPF tests; without them, skip (a failure in CI). */
static inline int tap_need_root(const char *name)
{
	if (geteuid() == 0)
		return 1;
	tap_skip(name, "needs root");
	return 0;
}

#endif /* BB_TAP_H */

// SPDX-License-Identifier: GPL-2.0
/* Fault points (fault.h): SIGKILL at the Nth pass of the point BB_FAULT names. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"

static const char *fault_spec;	/* BB_FAULT up to its ':', NULL when unset */
static size_t fault_len;
static long fault_left;		/* passes until the kill */
static pthread_once_t fault_once = PTHREAD_ONCE_INIT;

static void fault_read(void)
{
	const char *spec = getenv("BB_FAULT"), *colon;

	if (!spec || !*spec)
		return;
	colon = strchr(spec, ':');
	fault_len = colon ? (size_t)(colon - spec) : strlen(spec);
	fault_left = colon ? strtol(colon + 1, NULL, 10) : 1;
	fault_spec = spec;
}

void bb_fault_point(const char *point)
{
	pthread_once(&fault_once, fault_read);	/* points are passed on build threads too */
	if (!fault_spec || strlen(point) != fault_len || memcmp(point, fault_spec, fault_len))
		return;
	if (__atomic_sub_fetch(&fault_left, 1, __ATOMIC_ACQ_REL) <= 0)
		raise(SIGKILL);
}

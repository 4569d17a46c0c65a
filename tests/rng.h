/* SPDX-License-Identifier: GPL-2.0 */
/* Reproducible test data: splitmix64 over a state each test seeds and owns. */
#ifndef BB_TEST_RNG_H
#define BB_TEST_RNG_H

#include <linux/types.h>

static inline __u64 splitmix64(__u64 *state)
{
	__u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif /* BB_TEST_RNG_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A test program's own network namespace, its loopback up: where bpf_clone_redirect()
 * in a test run puts a packet (the skb's device is lo), seen by nothing else. Needs
 * _GNU_SOURCE (unshare()) before the first system header.
 */
#ifndef BB_TESTS_NETNS_H
#define BB_TESTS_NETNS_H

#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

static inline bool netns_own(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s;

	if (unshare(CLONE_NEWNET)) {
		printf("# unshare(CLONE_NEWNET): %s\n", strerror(errno));
		return false;
	}
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0) {
		if (s >= 0)
			close(s);
		return false;
	}
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0) {
		close(s);
		return false;
	}
	close(s);
	return true;
}

#endif /* BB_TESTS_NETNS_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packets to a pcap file, written by libpcap (kept apart: libpcap's bpf.h and the
 * kernel's linux/bpf.h define the same names).
 */
#ifndef BB_PCAP_OUT_H
#define BB_PCAP_OUT_H

#include <stddef.h>

struct bb_pcap;

/* An Ethernet capture of frames cut at snaplen; NULL with why said. */
struct bb_pcap *bb_pcap_open(const char *path, unsigned int snaplen, char *why, size_t size);
void bb_pcap_write(struct bb_pcap *p, long long usec, const void *data, unsigned int caplen,
		   unsigned int len);
void bb_pcap_close(struct bb_pcap *p);

#endif /* BB_PCAP_OUT_H */

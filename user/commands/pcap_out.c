// SPDX-License-Identifier: GPL-2.0
/* Packets to a pcap file, with libpcap: what tcpdump -r and Wireshark read. */
#include <stdio.h>
#include <stdlib.h>
#include <pcap/pcap.h>

#include "pcap_out.h"

struct bb_pcap {
	pcap_t *dead;
	pcap_dumper_t *out;
};

struct bb_pcap *bb_pcap_open(const char *path, unsigned int snaplen, char *why, size_t size)
{
	struct bb_pcap *p = calloc(1, sizeof(*p));

	if (!p) {
		snprintf(why, size, "out of memory");
		return NULL;
	}
	p->dead = pcap_open_dead(DLT_EN10MB, (int)snaplen);
	p->out = p->dead ? pcap_dump_open(p->dead, path) : NULL;
	if (!p->out) {
		snprintf(why, size, "%s", p->dead ? pcap_geterr(p->dead) : "no pcap handle");
		bb_pcap_close(p);
		return NULL;
	}
	return p;
}

void bb_pcap_write(struct bb_pcap *p, long long usec, const void *data, unsigned int caplen,
		   unsigned int len)
{
	struct pcap_pkthdr h = { .caplen = caplen, .len = len };

	h.ts.tv_sec = (time_t)(usec / 1000000);
	h.ts.tv_usec = (suseconds_t)(usec % 1000000);
	pcap_dump((u_char *)p->out, &h, data);
}

void bb_pcap_close(struct bb_pcap *p)
{
	if (!p)
		return;
	if (p->out)
		pcap_dump_close(p->out);
	if (p->dead)
		pcap_close(p->dead);
	free(p);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether this kernel lets libxdp's dispatcher work: it runs each program as an
 * extension (freplace) of one of its global functions (xdp_compat.c).
 */
#ifndef BB_XDP_COMPAT_H
#define BB_XDP_COMPAT_H

#include <stdbool.h>
#include <stddef.h>


/*
 * Load a tiny XDP program with a global function and an extension that replaces it:
 * true when the kernel takes both; else false with its refusal in why.
 */
bool bb_xdp_freplace_probe(char *why, size_t size);
/* The probe's answer, asked once a process: may libxdp's dispatcher work here? */
bool bb_xdp_dispatcher_works(void);
/* Record how load attached at XDP (a plain bpf_link, or libxdp) and what the probe found. */
void bb_xdp_compat_save(bool libxdp);
/* status: the recorded line ("" when none) and its JSON ({} when none). */
const char *bb_xdp_compat_text(char *buf, size_t size);

#endif /* BB_XDP_COMPAT_H */

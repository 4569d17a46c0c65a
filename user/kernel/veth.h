/* SPDX-License-Identifier: GPL-2.0 */
/* Whether XDP_TX can leave a veth: its peer must run NAPI (veth.c). */
#ifndef BB_VETH_H
#define BB_VETH_H

#include <net/if.h>
#include <stddef.h>

/*
 * 1 when ifname (of this network namespace) is a veth whose peer has no XDP program,
 * so runs no NAPI for XDP frames: a frame sent back with XDP_TX is lost there; 0 when it is not (or
 * is no veth); -errno when it cannot tell (the peer's namespace not found). The peer's
 * name, when found, into peer (IF_NAMESIZE bytes at least).
 */
int bb_veth_tx_lost(const char *ifname, char peer[IF_NAMESIZE]);

#endif /* BB_VETH_H */

/* SPDX-License-Identifier: GPL-2.0 */
/* The benchmark driver's parts: result tables, packet builders, generated lists, helpers. */
#ifndef BENCH_H
#define BENCH_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "list.h"
#include "lib/pkt.h"

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* ---- results: tables of text cells, printed as text, Markdown and CSV (table.c) ---- */

#define BT_COLS			12
#define BT_CELL			96

struct bt_row {
	char cell[BT_COLS][BT_CELL];
};

struct table {
	char id[32];		/* CSV: which table a line belongs to */
	char title[200];
	char notes[4096];	/* paragraphs printed under the table */
	int ncols, nkeys;	/* the first nkeys columns name the row */
	char col[BT_COLS][BT_CELL];
	struct bt_row *rows;
	int nrows, cap;
};

/* cols: NULL-terminated column names. */
void table_init(struct table *t, const char *id, const char *title, int nkeys,
		const char *const *cols);
/* One row of ncols cells. */
void table_add(struct table *t, const char *const *cells);
void table_note(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void table_free(struct table *t);
void table_print_text(FILE *f, const struct table *t);
void table_print_md(FILE *f, const struct table *t);
/* Tidy CSV: table,row,column,value,min,max ("m (lo-hi)" cells are split). */
void table_print_csv_header(FILE *f);
void table_print_csv(FILE *f, const struct table *t);

/* ---- statistics over a few runs ---- */

struct st3 {
	double med, min, max;
	int n;
};

void st3_of(struct st3 *s, const double *v, int n);
/* "med (min-max)" with the given number of decimals; "-" when empty. */
const char *st3_fmt(char *buf, size_t size, const struct st3 *s, int decimals);
/* a / b as "0.42x"; "-" when either is missing. */
const char *ratio_fmt(char *buf, size_t size, double a, double b);

double now_s(void);
long long mem_available_kb(void);
/* The map's memlock as the kernel accounts it (fdinfo), bytes; -1 when unknown. */
long long map_memlock(int fd);

/* ---- packets: the frames of tests/lib/pkt.h (pkt_udp4() ...), and the name rows' payloads ---- */

/* A DNS query for name: A, recursion desired. */
static inline size_t dns_query(__u8 *p, size_t cap, const char *name)
{
	struct pkt_dns q = { .name = name };

	return pkt_dns(&q, p, cap);
}

/*
 * A browser's ClientHello, abridged: groups, point formats, signature algorithms,
 * versions, an X25519 key share, then server_name, so a walk skips several
 * extensions to reach it. *sni_off: where the server_name extension starts.
 */
static inline size_t tls_client_hello(__u8 *p, size_t cap, const char *sni, size_t *sni_off)
{
	struct pkt_hello h = { .sni = sni, .exts = "COWVKS" };
	size_t name_off, n = pkt_hello(&h, p, cap, &name_off);

	*sni_off = n ? name_off - 9 : 0;	/* type, lengths, name type */
	return n;
}

static inline size_t http_request(__u8 *p, size_t cap, const char *host)
{
	static const char headers[] = "User-Agent: bench/1.0\r\nAccept: */*\r\n";

	return pkt_http_get(p, cap, "/index.html", host, headers);
}

/* ---- generated lists (lists.c): the sequences of bench_seq.h ---- */

/* Entries built directly (no text parsing): member addresses, or the CIDR-heavy list. */
int bench_list_ip4(struct bb_list *list, __u32 n);
int bench_list_ip6(struct bb_list *list, __u32 n);
int bench_list_cidr(struct bb_list *list, __u32 n);
/* Hostname j of the generated name lists: 2 to 4 labels, distinct. */
void bench_name(__u32 j, char *buf, size_t size);
/* Text files: one IPv4 address or one name per line; an nftables set of n addresses. */
int bench_write_ip4_file(const char *path, __u32 n);
int bench_write_names_file(const char *path, __u32 n);
int bench_write_nft_file(const char *path, __u32 n);

/* ---- the veth part (veth.c): a bounded sender, a drop-only XDP floor ---- */

/* Send `packets` UDP frames from saddr out of ifname to the peer's dst_mac. */
int bench_veth_tx(const char *ifname, const char *dst_mac, const char *saddr, __u32 packets,
		  double *ns_per_packet);
int bench_xdp_drop_attach(const char *ifname);

#endif /* BENCH_H */

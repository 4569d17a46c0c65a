/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benchmark driver's building blocks, which know nothing of its parts: result
 * tables, statistics and formatting, packet builders, generated lists, the veth part's
 * sender. What the parts pass each other is in bench_parts.h.
 */
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

#define BT_COLS			13
#define BT_CELL			96

struct bt_row {
	char cell[BT_COLS][BT_CELL];
};

struct table {
	char id[32];		/* CSV: which table a line belongs to */
	char title[200];
	char notes[4096];	/* paragraphs printed under the table */
	int ncols, name_cols;	/* the first name_cols columns name the row */
	char col[BT_COLS][BT_CELL];
	struct bt_row *rows;
	int nrows, cap;
};

/* cols: NULL-terminated column names. */
void table_init(struct table *t, const char *id, const char *title, int name_cols,
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

#define MAX_ROUNDS		15	/* samples per figure at the most (--rounds) */

struct st3 {
	double med, min, max;
	int n;
};

void st3_of(struct st3 *s, const double *v, int n);
/* "med (min-max)" with the given number of decimals; "-" when empty. */
const char *st3_fmt(char *buf, size_t size, const struct st3 *s, int decimals);
/* a / b as "0.42x"; "-" when either is missing. */
const char *ratio_fmt(char *buf, size_t size, double a, double b);
double median_of(const double *v, int n);
/* The median over n rounds of a / b (ratio) or of a - b, sample by sample. */
double paired(const double *a, const double *b, int n, bool ratio);
/* printf into buf, which it returns: a table cell in one expression. */
char *fmtf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "10^6" for a power of ten from 1000 on, else the number. */
const char *pow10_name(__u32 n, char *buf, size_t size);

/* ---- small system helpers ---- */

/* "bench: " and the message on stderr. */
void bench_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "  .. " and the message on stderr: where a long run is. */
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double now_s(void);
long long mem_available_kb(void);
/* Wait while the kernel still frees the last step's maps (MemAvailable still rising). */
void settle_memory(void);
/* The map's memlock as the kernel accounts it (fdinfo), bytes; -1 when unknown. */
long long map_memlock(int fd);

/* ---- packets: the frames of tests/lib/pkt.h (pkt_udp4() ...), and the name rows' payloads ---- */

/* One frame for a test run. */
struct packet {
	__u8 data[PKT_MAX];
	size_t len;
};

#define DISCARD_PORT		9

/* UDP from saddr (IPv4: its first 4 bytes) to the discard port: the address rows' packet. */
static inline void udp_to_discard(struct packet *p, const __u8 *saddr, bool ipv6)
{
	static const __u8 payload[16] = "bloomblock bench";

	if (ipv6)
		p->len = pkt_udp6(p->data, saddr, 40000, DISCARD_PORT, payload, sizeof(payload));
	else
		p->len = pkt_udp4(p->data, saddr, 40000, DISCARD_PORT, payload, sizeof(payload));
}

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
/*
 * Append count allowlist entries (BB_ENTRY_F_ALLOW): the /32s of non-members start,
 * start + 1, ...: never members, so no member is allowed.
 */
int bench_list_allow_ip4(struct bb_list *list, __u32 start, __u32 count);
/*
 * The name rows' list: `names` generated names and "bb-hit.example", parsed as list
 * lines (the real canonicalisation), then `ips` IPv4 members as entries; names 0: the
 * addresses alone.
 */
int bench_list_names(struct bb_list *list, __u32 names, __u32 ips);
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

// SPDX-License-Identifier: GPL-2.0
/* Generated lists: the member sequences of bench_seq.h as list entries and as text files. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_seq.h"

/*
 * Entries are written straight into the list, as bb_list_parse_line() would leave
 * them (canonical, host bits cleared): parsing 10^7 text lines takes seconds and is
 * measured on its own in the load-path section. The sequences are bijective, so
 * there are no duplicates to remove, except in the CIDR list, where two members may
 * mask to the same prefix; bb_filter_build() drops repeated keys itself.
 */
static int list_alloc(struct bb_list *list, __u32 n)
{
	bb_list_init(list);
	list->entries = calloc(n ? n : 1, sizeof(*list->entries));
	if (!list->entries)
		return -ENOMEM;
	list->n = list->cap = n;
	return 0;
}

int bench_list_ip4(struct bb_list *list, __u32 n)
{
	__u32 j;

	if (list_alloc(list, n))
		return -ENOMEM;
	for (j = 0; j < n; j++) {
		struct bb_entry *e = &list->entries[j];

		e->kind = BB_ENTRY_IP4;
		e->plen = 32;
		bench_addr(j, 0, e->addr);
		memset(e->addr + 4, 0, 12);
	}
	list->counts.accepted[BB_ENTRY_IP4] = n;
	return 0;
}

int bench_list_allow_ip4(struct bb_list *list, __u32 start, __u32 count)
{
	struct bb_entry *e;
	__u32 j;

	e = realloc(list->entries, (list->n + count) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	list->entries = e;
	e += list->n;
	for (j = 0; j < count; j++) {
		memset(&e[j], 0, sizeof(e[j]));
		e[j].kind = BB_ENTRY_IP4;
		e[j].plen = 32;
		e[j].flags = BB_ENTRY_F_ALLOW;
		bench_addr(start + j, 1, e[j].addr);
		memset(e[j].addr + 4, 0, 12);
	}
	list->n = list->cap = list->n + count;
	list->counts.allow[BB_ENTRY_IP4] += count;
	return 0;
}

int bench_list_ip6(struct bb_list *list, __u32 n)
{
	__u32 j;

	if (list_alloc(list, n))
		return -ENOMEM;
	for (j = 0; j < n; j++) {
		struct bb_entry *e = &list->entries[j];

		e->kind = BB_ENTRY_IP6;
		e->plen = 128;
		bench_addr(j, 0, e->addr);
	}
	list->counts.accepted[BB_ENTRY_IP6] = n;
	return 0;
}

int bench_list_cidr(struct bb_list *list, __u32 n)
{
	__u32 j;

	if (list_alloc(list, n))
		return -ENOMEM;
	for (j = 0; j < n; j++) {
		struct bb_entry *e = &list->entries[j];
		__u32 plen = bench_cidr_plen(j);
		__u32 a = htonl(bench_ip4(j, 0) & bench_mask4(plen));

		e->kind = BB_ENTRY_IP4;
		e->plen = plen;
		memcpy(e->addr, &a, 4);
	}
	list->counts.accepted[BB_ENTRY_IP4] = n;
	return 0;
}

int bench_list_names(struct bb_list *list, __u32 names, __u32 ips)
{
	struct bb_entry *e;
	char name[128];
	size_t n0;
	__u32 j;

	bb_list_init(list);
	for (j = 0; names && j <= names; j++) {
		if (j < names)
			bench_name(j, name, sizeof(name));
		else
			strcpy(name, "bb-hit.example");
		if (bb_list_parse_line(list, name, strlen(name), NULL) < 0) {
			bench_warn("generated name %s rejected\n", name);
			return -EINVAL;
		}
	}
	n0 = list->n;
	e = realloc(list->entries, (n0 + ips) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	list->entries = e;
	for (j = 0; j < ips; j++) {
		memset(&e[n0 + j], 0, sizeof(*e));
		e[n0 + j].kind = BB_ENTRY_IP4;
		e[n0 + j].plen = 32;
		bench_addr(j, 0, e[n0 + j].addr);
		memset(e[n0 + j].addr + 4, 0, 12);
	}
	list->n = list->cap = n0 + ips;
	return 0;
}

static const char *const words[16] = {
	"ads", "track", "cdn", "metrics", "pixel", "static", "img", "api",
	"telemetry", "click", "stats", "beacon", "media", "promo", "tag", "sync",
};
static const char *const tlds[8] = { "com", "net", "org", "io", "info", "xyz", "biz", "co" };

/* Base 36 of a 64-bit value: distinct values, distinct labels. */
static size_t base36(__u64 v, char *out)
{
	char tmp[16];
	size_t n = 0, i;

	do {
		tmp[n++] = "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36];
		v /= 36;
	} while (v);
	for (i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = 0;
	return n;
}

void bench_name(__u32 j, char *buf, size_t size)
{
	__u64 h = bench_mix64(j);
	char label[16];

	base36(h, label);
	switch (j % 3) {
	case 0:
		snprintf(buf, size, "%s.%s", label, tlds[(h >> 8) & 7]);
		break;
	case 1:
		snprintf(buf, size, "%s.%s.%s", label, words[(h >> 12) & 15], tlds[(h >> 8) & 7]);
		break;
	default:
		snprintf(buf, size, "%s.%s.%s.%s", label, words[(h >> 16) & 15],
			 words[(h >> 12) & 15], tlds[(h >> 8) & 7]);
		break;
	}
}

static FILE *open_out(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f)
		setvbuf(f, NULL, _IOFBF, 1 << 20);
	return f;
}

static int close_out(FILE *f)
{
	int err = ferror(f) ? -EIO : 0;

	if (fclose(f) && !err)
		err = -errno;
	return err;
}

static void ip4_text(__u32 j, char *buf)
{
	__u32 a = bench_ip4(j, 0);

	sprintf(buf, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
}

int bench_write_ip4_file(const char *path, __u32 n)
{
	FILE *f = open_out(path);
	char text[16];
	__u32 j;

	if (!f)
		return -errno;
	fprintf(f, "# bloomblock benchmark: %u generated IPv4 addresses\n", n);
	for (j = 0; j < n; j++) {
		ip4_text(j, text);
		fputs(text, f);
		fputc('\n', f);
	}
	return close_out(f);
}

int bench_write_names_file(const char *path, __u32 n)
{
	FILE *f = open_out(path);
	char name[64];
	__u32 j;

	if (!f)
		return -errno;
	fprintf(f, "# bloomblock benchmark: %u generated hostnames\n", n);
	for (j = 0; j < n; j++) {
		bench_name(j, name, sizeof(name));
		fputs(name, f);
		fputc('\n', f);
	}
	return close_out(f);
}

/* One table, one set; elements added in statements of 100,000, one transaction. */
int bench_write_nft_file(const char *path, __u32 n)
{
	FILE *f = open_out(path);
	char text[16];
	__u32 j;

	if (!f)
		return -errno;
	fprintf(f, "table ip bbbench {\n\tset blocked {\n\t\ttype ipv4_addr\n\t}\n}\n");
	for (j = 0; j < n; j++) {
		if (j % 100000 == 0)
			fprintf(f, "%sadd element ip bbbench blocked { ", j ? " }\n" : "");
		else
			fputs(", ", f);
		ip4_text(j, text);
		fputs(text, f);
	}
	if (n)
		fputs(" }\n", f);
	return close_out(f);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the probe enumeration (include/bb_match.h), the keys the packet path asks
 * of the filter for an address, a name and its parents, an HTTP request's host
 * suffixes times path prefixes. The input is lines: items (any list format, parsed by
 * the list parser) and queries ("?" then an address, a name, or host/path). The items
 * are built into a filter by the project's builder, and its every key kept exactly
 * (the builder's add_entry() into a key index, as bb_filter_index() does, sorted here
 * by qsort: its radix sort's 64K buckets would make a run of a few keys slow), so
 * that a lookup here hits only what the filter holds for an item and never a false
 * positive. The enumeration runs with a key
 * buffer and name states of exactly their size (AddressSanitizer sees a read past
 * them), through the packet parsers (a DNS question, an HTTP request) as the kernel
 * runs it. An abort when:
 *  - an item's own query misses: an address's first, last and some address of its
 *    prefix, a name, a subdomain of a name or of "*.name" (parents of 2 to
 *    BB_NAME_MAX_PARENT_LABELS labels), a URL as a request for it, with a query
 *    string, under a path that ends in '/', from a subdomain of its host (host
 *    parents of 2 to 5 labels);
 *  - an address or a name query hits though no item covers it: the enumeration
 *    asked a key it should not;
 * and on any read out of bounds. Lines that start with '!' are raw key buffers: the
 * enumeration over bytes no parser wrote (lengths from their first bytes), which must
 * stay in bounds too.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bb_names.h"
#include "filter.h"
#include "filter_int.h"
#include "list.h"

struct probe {
	const struct bb_header *hdr;
	const struct bb_filter *f;
	const struct bb_index *x;
	__u8 *key;		/* BB_KEYBUF_BYTES, malloc'd exactly */
	__u64 *states;		/* BB_NAME_STATES, malloc'd exactly */
};

#define BB_MATCH_CTX		struct probe
#define BB_MATCH_HDR(c)		((c)->hdr)
#define BB_MATCH_KEY(c)		((c)->key)
#define BB_MATCH_STATES(c)	((c)->states)
#define BB_MATCH_KINDS(c)	((c)->hdr->flags)

/* A key the filter holds: exactly, from the index of every key it was built with. */
static __always_inline int bb_match_lookup(const struct probe *c, __u64 h)
{
	size_t lo = 0, hi = c->x->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->x->recs[mid].h < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->x->n && c->x->recs[lo].h == h;
}

static __always_inline int bb_match_short(const struct probe *c, int v4, const __u8 *addr)
{
	__u32 p = bb_short_prefix(addr);

	return bb_short_test(&(v4 ? c->f->short_v4 : c->f->short_v6)[p / BB_BLOCK_BITS], p);
}

#include "bb_match.h"

#define MAX_ITEMS	8
#define MAX_QUERIES	8

static struct probe pr;
static const struct bb_list *items;

static void fail(const char *what, const char *q)
{
	fprintf(stderr, "fuzz_probe: %s: \"%s\"\n", what, q);
	abort();
}

/* ---- names --------------------------------------------------------------------------- */

static unsigned int labels(const char *s, size_t n)
{
	unsigned int l = 1;
	size_t i;

	for (i = 0; i < n; i++)
		l += s[i] == '.';
	return l;
}

/* Whether an item covers the name q (n bytes): it, or it as a parent of 2 to 10 labels. */
static bool name_covered(const char *q, size_t n)
{
	size_t i;

	for (i = 0; i < items->n; i++) {
		const struct bb_entry *e = &items->entries[i];
		size_t l;

		if (e->kind != BB_ENTRY_NAME || (e->flags & BB_ENTRY_F_ALLOW))
			continue;
		l = strlen(e->text);
		if (!(e->flags & BB_ENTRY_F_SUBDOMAINS_ONLY) && l == n && !memcmp(q, e->text, n))
			return true;
		if (!(e->flags & BB_ENTRY_F_EXACT) && n > l + 1 && q[n - l - 1] == '.' &&
		    !memcmp(q + n - l, e->text, l) && labels(e->text, l) >= 2 &&
		    labels(e->text, l) <= BB_NAME_MAX_PARENT_LABELS)
			return true;
	}
	return false;
}

/* The name as a parser leaves it: 1 listed, 0 not, -1 no name (bb_name_finish() refused). */
static int name_query(const char *name, size_t n, __u32 *len)
{
	memset(pr.key, 0, BB_KEYBUF_BYTES);
	if (n > BB_NAME_MAX + 1)
		return -1;
	memcpy(pr.key + 1, name, n);
	*len = (__u32)n;
	if (bb_name_finish(pr.key, len) != BB_NAME_FOUND)
		return -1;
	return bb_match_name(&pr, *len);
}

/* The same name as a DNS query's question: the same answer. */
static int dns_query(const char *name, size_t n)
{
	__u8 msg[BB_DNS_HDR_LEN + 300] = { 0x12, 0x34, 0x01, 0, 0, 1 }, *w = msg + BB_DNS_HDR_LEN;
	size_t i, start = 0;
	__u32 len = 0;

	if (n > 253)
		return -1;
	for (i = 0; i <= n; i++) {
		if (i < n && name[i] != '.')
			continue;
		if (i - start > 63 || i == start)
			return -1;
		*w++ = (__u8)(i - start);
		memcpy(w, name + start, i - start);
		w += i - start;
		start = i + 1;
	}
	*w++ = 0;
	memset(w, 0, 4);
	memset(pr.key, 0, BB_KEYBUF_BYTES);
	if (bb_dns_qname(msg, w + 4, pr.key, &len) != BB_NAME_FOUND)
		return -1;
	return bb_match_name(&pr, len);
}

static void check_name(const char *q, size_t n, bool must)
{
	__u32 len;
	int hit = name_query(q, n, &len), dns;

	if (hit < 0)
		return;
	if (must && !hit)
		fail("a name an item covers missed", q);
	if (hit != name_covered((const char *)pr.key + 1, len))
		fail(hit ? "a name no item covers hit" : "a name an item covers missed", q);
	dns = dns_query((const char *)pr.key + 1, len);
	if (dns >= 0 && dns != hit)
		fail("as a DNS question, another answer", q);
}

/* ---- addresses ----------------------------------------------------------------------- */

static bool addr_covered(const __u8 *a, bool v4)
{
	size_t i;

	for (i = 0; i < items->n; i++) {
		const struct bb_entry *e = &items->entries[i];
		unsigned int full = e->plen / 8, rest = e->plen % 8;

		if (e->kind != (v4 ? BB_ENTRY_IP4 : BB_ENTRY_IP6) || (e->flags & BB_ENTRY_F_ALLOW))
			continue;
		if (memcmp(a, e->addr, full))
			continue;
		if (rest && ((a[full] ^ e->addr[full]) & (0xff << (8 - rest))))
			continue;
		return true;
	}
	return false;
}

static void check_addr(const __u8 *a, bool v4, bool must, const char *what)
{
	int hit = v4 ? bb_match_ip4(&pr, a) : bb_match_ip6(&pr, a);

	if (must && !hit)
		fail("an address its item covers missed", what);
	if (hit != addr_covered(a, v4))
		fail(hit ? "an address no item covers hit" : "an address an item covers missed",
		     what);
}

/* The first, the last and some (by salt) address of an item's prefix. */
static void addr_item(const struct bb_entry *e, __u32 salt)
{
	bool v4 = e->kind == BB_ENTRY_IP4;
	unsigned int bytes = v4 ? 4 : 16, b;
	__u8 a[16];
	int which;

	for (which = 0; which < 3; which++) {
		memcpy(a, e->addr, bytes);
		for (b = e->plen; b < bytes * 8; b++) {
			unsigned int on = which == 1 || (which == 2 && ((salt >> (b % 32)) & 1));

			if (on)
				a[b / 8] |= (__u8)(0x80 >> (b % 8));
		}
		check_addr(a, v4, true, v4 ? "an IPv4 item" : "an IPv6 item");
	}
}

/* ---- URLs ---------------------------------------------------------------------------- */

/* An HTTP request for host and path (with its query), through the request parser. */
static int http_query(const char *host, size_t hlen_in, const char *path)
{
	__u8 req[BB_HTTP_SCAN_MAX + 8] = { 0 };
	__u32 hlen = 0, plen = 0;
	int full = 0, n;

	n = snprintf((char *)req, sizeof(req) - 8, "GET %s HTTP/1.1\r\nHost: %.*s\r\n\r\n", path,
		     (int)hlen_in, host);
	if (n < 0 || (size_t)n >= BB_HTTP_SCAN_MAX)
		return -1;
	memset(pr.key, 0, BB_KEYBUF_BYTES);
	if (bb_http_request(req, (__u32)n, pr.key, &hlen, &plen, &full) != BB_NAME_FOUND)
		return -1;
	return bb_match_name(&pr, hlen) || bb_match_url(&pr, hlen, plen, full);
}

static unsigned int count(const char *s, char c)
{
	unsigned int n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

/* A listed URL "host/path", and what must match it with it. */
static void url_item(const struct bb_entry *e)
{
	const char *t = e->text, *path = strchr(t, '/');
	char p[600];
	size_t hlen;

	if (!path || strlen(t) > 200)
		return;		/* longer ones are cut where a key ends: not asked here */
	hlen = (size_t)(path - t);
	if (!http_query(t, hlen, path))
		fail("a URL's own request missed", t);
	if (!strchr(path, '?')) {
		snprintf(p, sizeof(p), "%s?x=1", path);
		if (!http_query(t, hlen, p))
			fail("a URL with a query string missed", t);
	}
	if (path[strlen(path) - 1] == '/' && !strchr(path, '?') && count(path, '/') <= 4) {
		snprintf(p, sizeof(p), "%sleaf.html", path);
		if (!http_query(t, hlen, p))
			fail("a path under a URL's directory missed", t);
	}
	if (labels(t, hlen) >= 2 && labels(t, hlen) <= 5 && count(path, '?') == 0) {
		char host[300];

		snprintf(host, sizeof(host), "www.%.*s", (int)hlen, t);
		if (!http_query(host, hlen + 4, path))
			fail("a URL from a subdomain of its host missed", t);
	}
}

/* ---- raw key buffers ------------------------------------------------------------------- */

static void raw(const __u8 *b, size_t n)
{
	__u32 len, hlen, plen;

	if (n < 4)
		return;
	memset(pr.key, 0, BB_KEYBUF_BYTES);
	memcpy(pr.key, b + 3, n - 3 < BB_KEYBUF_BYTES ? n - 3 : BB_KEYBUF_BYTES);
	/* what a parser may leave: a name of 253 bytes at most, a key of BB_KEY_MAX */
	len = b[0] % (BB_NAME_MAX + 1);
	bb_match_name(&pr, len);
	hlen = b[1] % (BB_NAME_MAX + 1);
	plen = b[2] % (BB_KEY_MAX - hlen);
	bb_match_url(&pr, hlen, plen, b[2] & 1);
}

/* ---- the run --------------------------------------------------------------------------- */

static int rec_cmp(const void *a, const void *b)
{
	__u64 x = ((const struct bb_index_rec *)a)->h, y = ((const struct bb_index_rec *)b)->h;

	return x < y ? -1 : x > y;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	pr.key = malloc(BB_KEYBUF_BYTES);
	pr.states = malloc(BB_NAME_STATES * sizeof(__u64));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bb_filter_opts opts = { .seed = 0x5eed, .threads = 1 };
	const char *queries[MAX_QUERIES], *raws[MAX_QUERIES];
	size_t qlen[MAX_QUERIES], rlen[MAX_QUERIES], nq = 0, nr = 0, i, n_items = 0;
	struct bb_filter filter;
	struct bb_index x = { 0 };
	struct bb_list list;
	const char *why;
	char *text, *line, *save = NULL;

	if (size > 4096)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	bb_list_init(&list);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t n = strlen(line);

		if (line[0] == '!' && nr < MAX_QUERIES)
			raws[nr] = line + 1, rlen[nr++] = n - 1;
		else if (line[0] == '?' && nq < MAX_QUERIES)
			queries[nq] = line + 1, qlen[nq++] = n - 1;
		else if (n_items < MAX_ITEMS)
			n_items += bb_list_parse_line(&list, line, n, &why) == 1;
	}
	if (!list.n || bb_filter_build(&filter, &list, &opts))
		goto out;
	{
		struct build_job job = { .filter = &filter, .entries = list.entries,
					 .seed = filter.hdr.seed, .index = &x, .index_only = true };

		for (i = 0; i < list.n; i++)
			add_entry(&job, &list.entries[i]);
		if (x.err)
			goto built;
		if (x.n)
			qsort(x.recs, x.n, sizeof(x.recs[0]), rec_cmp);
	}
	pr.hdr = &filter.hdr;
	pr.f = &filter;
	pr.x = &x;
	items = &list;
	for (i = 0; i < list.n; i++) {
		const struct bb_entry *e = &list.entries[i];
		char sub[300];

		if (e->flags & BB_ENTRY_F_ALLOW)
			continue;
		switch (e->kind) {
		case BB_ENTRY_IP4:
		case BB_ENTRY_IP6:
			addr_item(e, (__u32)(size * 2654435761U));
			break;
		case BB_ENTRY_NAME:
			if (!(e->flags & BB_ENTRY_F_SUBDOMAINS_ONLY))
				check_name(e->text, strlen(e->text), true);
			snprintf(sub, sizeof(sub), "x1.%s", e->text);
			check_name(sub, strlen(sub), !(e->flags & BB_ENTRY_F_EXACT) &&
				   labels(e->text, strlen(e->text)) <= BB_NAME_MAX_PARENT_LABELS &&
				   labels(e->text, strlen(e->text)) >= 2 && strlen(sub) <= BB_NAME_MAX);
			break;
		case BB_ENTRY_URL:
			url_item(e);
			break;
		}
	}
	for (i = 0; i < nr; i++)
		raw((const __u8 *)raws[i], rlen[i]);
	for (i = 0; i < nq; i++) {
		const char *q = queries[i];
		char buf[300];
		__u8 a[16];

		if (qlen[i] >= sizeof(buf))
			continue;
		memcpy(buf, q, qlen[i]);
		buf[qlen[i]] = '\0';
		if (inet_pton(AF_INET, buf, a) == 1)
			check_addr(a, true, false, buf);
		else if (inet_pton(AF_INET6, buf, a) == 1)
			check_addr(a, false, false, buf);
		else if (strchr(buf, '/'))
			http_query(buf, strcspn(buf, "/"), buf + strcspn(buf, "/"));
		else
			check_name(buf, qlen[i], false);
	}
	bb_index_free(&x);
built:
	bb_filter_free(&filter);
out:
	bb_list_free(&list);
	free(text);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which format a file is, told from its first lines, never from its name: feeds are
 * saved under any name (a hosts file called list.txt, a zone called feed.conf). Each
 * line votes for the format whose shape it has; a resolver, zone, JSON, ipset or P2P
 * format wins with more than half of the lines, CSV with a comma-separated layout
 * that holds entries, else the most common of hosts, Adblock and plain (which read
 * alike). The CSV column and the JSON key are chosen here too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "list_int.h"

#define DETECT_LINES	512	/* content lines looked at */
#define CSV_ROWS	200	/* rows a CSV column is chosen from */

/* CSV header names of an entry column, in order of preference. */
static const char *const csv_columns[] = {
	"ip", "ip_address", "ipaddress", "ip_addr", "dst_ip", "dstip", "src_ip", "srcip",
	"address", "addr", "cidr", "network", "prefix", "subnet", "url", "uri", "host",
	"hostname", "domain", "domain_name", "fqdn", "dns", "ioc", "ioc_value", "indicator",
	"value", NULL,
};

struct sample {
	const char *line[DETECT_LINES];
	size_t len[DETECT_LINES];
	size_t n;
	const char *comment_before;	/* the last '#' line before the first content line */
	size_t comment_len;
};

enum vote {
	V_PLAIN, V_HOSTS, V_ADBLOCK, V_P2P, V_DNSMASQ, V_UNBOUND, V_RPZ, V_JSON, V_IPSET, V_MAX,
};

static const enum bb_list_format vote_format[V_MAX] = {
	[V_PLAIN] = BB_FORMAT_PLAIN, [V_HOSTS] = BB_FORMAT_HOSTS, [V_ADBLOCK] = BB_FORMAT_ADBLOCK,
	[V_P2P] = BB_FORMAT_P2P, [V_DNSMASQ] = BB_FORMAT_DNSMASQ, [V_UNBOUND] = BB_FORMAT_UNBOUND,
	[V_RPZ] = BB_FORMAT_RPZ, [V_JSON] = BB_FORMAT_JSON, [V_IPSET] = BB_FORMAT_IPSET,
};

/* The content lines of the head (not blank, not a '#' or ';' comment). */
static void sample_lines(const char *head, size_t len, bool whole, struct sample *sm)
{
	const char *p = head, *end = head + len;

	memset(sm, 0, sizeof(*sm));
	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	while (p < end && sm->n < DETECT_LINES) {
		const char *nl = mem_find(p, (size_t)(end - p), '\n'), *s = p;
		size_t n;

		if (!nl && !whole)
			break;	/* cut by the head's end */
		n = (size_t)((nl ?: end) - p);
		p = nl ? nl + 1 : end;
		while (n && is_space(s[n - 1]))
			n--;
		while (n && is_space(*s)) {
			s++;
			n--;
		}
		if (!n)
			continue;
		if (s[0] == '#' || s[0] == ';') {
			if (!sm->n && s[0] == '#') {
				sm->comment_before = s;
				sm->comment_len = n;
			}
			continue;
		}
		sm->line[sm->n] = s;
		sm->len[sm->n++] = n;
	}
}

/* A zone-file record: [owner] [ttl] [class] TYPE data, TYPE a type RPZ zones hold. */
static bool zone_shaped(const char *s, size_t len)
{
	static const char *const types[] = { "SOA", "NS", "CNAME", "A", "AAAA", "TXT", "PTR",
					      "MX", "DNAME", NULL };
	const char *tok[8];
	size_t tlen[8], n = zone_tokens(s, s + len, tok, tlen, 8), i, k;

	for (i = 0; i < n && i < 4; i++) {
		for (k = 0; types[k]; k++)
			if (token_is(tok[i], tlen[i], types[k]) && i + 1 < n)
				return i == 0 || i == 1 || is_ttl(tok[i - 1], tlen[i - 1]) ||
				       is_class(tok[i - 1], tlen[i - 1]);
	}
	return false;
}

static enum vote line_vote(const char *s, size_t len)
{
	const char *p = s, *tok;
	size_t n = next_token(&p, s + len, &tok), n2;
	const char *colon = mem_find(s, len, ':');
	bool letter = false;

	if (s[0] == '{' || (s[0] == '[' && len > 1 && (s[1] == '"' || s[1] == '{')))
		return V_JSON;	/* an array on one line too: read as JSON, it is refused */
	if (s[0] == '$')
		return V_RPZ;
	if (s[0] == '!' || adblock_header(s, len) ||
	    (len >= 2 && (!memcmp(s, "||", 2) || !memcmp(s, "@@", 2))) || s[0] == '|' ||
	    s[len - 1] == '^' || memmem(s, len, "##", 2) || mem_find(s, len, '$'))
		return V_ADBLOCK;
	if (has_prefix_ci(s, len, "address=") || has_prefix_ci(s, len, "server=/") ||
	    has_prefix_ci(s, len, "local=/"))
		return V_DNSMASQ;
	if (colon && option_shaped(s, (size_t)(colon - s)) &&
	    (has_prefix_ci(s, len, "local-zone:") || has_prefix_ci(s, len, "local-data") ||
	     has_prefix_ci(s, len, "server:") || has_prefix_ci(s, len, "forward-")))
		return V_UNBOUND;
	if (zone_shaped(s, len))
		return V_RPZ;
	if ((token_is(tok, n, "create") || token_is(tok, n, "add") || token_is(tok, n, "-A") ||
	     token_is(tok, n, "-N")) && next_token(&p, s + len, &tok))
		return V_IPSET;
	if (token_is(tok, n, "COMMIT"))
		return V_IPSET;
	if (p2p_range(s, len))
		return V_P2P;
	if ((looks_ipv4(tok, n) || looks_ipv6(tok, n)) && (n2 = next_token(&p, s + len, &tok))) {
		size_t i;

		/* ADDR name: a hosts line (or a local name's); ADDR 12: a score column */
		for (i = 0; i < n2; i++)
			letter |= (tok[i] | 0x20) >= 'a' && (tok[i] | 0x20) <= 'z';
		if (letter && !looks_ipv6(tok, n2))
			return V_HOSTS;
	}
	return V_PLAIN;
}

/* The kind of entry a CSV value is, without a list: -1 for none. */
static int value_kind(const char *s, size_t len)
{
	char text[BB_KEY_MAX + 1];
	struct bb_entry e, last;
	int err;

	while (len && is_space(*s)) {
		s++;
		len--;
	}
	while (len && is_space(s[len - 1]))
		len--;
	if (!len || len > LINE_MAX_BYTES)
		return -1;
	if (parse_range(s, len, &e, &last, &err, NULL))
		return err ? -1 : e.kind;
	return parse_entry(s, len, &e, text, sizeof(text), true, false, NULL) ? -1 : e.kind;
}

/* The rows of a sample that split into the same number of fields by delim. */
static size_t csv_layout(const struct sample *sm, char delim, int *fields)
{
	size_t i, same = 0;
	int f0 = -1;

	for (i = 0; i < sm->n; i++) {
		int f = csv_field(sm->line[i], sm->len[i], delim, -1, NULL, 0, NULL);

		if (f < 2)
			continue;
		if (f0 < 0)
			f0 = f;
		same += f == f0;
	}
	*fields = f0;
	return same;
}

/* Field i of a row, unquoted. */
static size_t row_field(const char *s, size_t len, char delim, int i, char *out, size_t size)
{
	size_t n = 0;

	if (csv_field(s, len, delim, i, out, size, &n) <= i)
		return 0;
	return n;
}

static int csv_column_by_name(struct fmt_conf *c, const char *hdr, size_t hlen, int fields,
			      const char *want)
{
	char name[BB_LIST_COLUMN_MAX + 1];
	int i, k;

	for (k = 0; want ? k == 0 : csv_columns[k] != NULL; k++) {
		for (i = 0; i < fields; i++) {
			size_t n = row_field(hdr, hlen, c->delim, i, name, sizeof(name));

			while (n && is_space(name[n - 1]))
				name[--n] = '\0';
			if (n && !strcasecmp(name, want ? want : csv_columns[k])) {
				c->column = i;
				snprintf(c->column_name, sizeof(c->column_name), "%s", name);
				return 0;
			}
		}
	}
	return -ENOENT;
}

/* The column most rows hold an entry in. */
static int csv_column_by_content(struct fmt_conf *c, const struct sample *sm, size_t first,
				 int fields)
{
	char value[LINE_MAX_BYTES + 1];
	size_t rows = 0, best_hits = 0, r;
	int i, best = -1;

	for (i = 0; i < fields; i++) {
		size_t hits = 0;

		for (r = first, rows = 0; r < sm->n && rows < CSV_ROWS; r++, rows++) {
			size_t n = row_field(sm->line[r], sm->len[r], c->delim, i, value,
					     sizeof(value));

			hits += n && value_kind(value, n) >= 0;
		}
		if (hits > best_hits) {
			best_hits = hits;
			best = i;
		}
	}
	if (best < 0 || best_hits * 2 <= rows)
		return -ENOENT;
	c->column = best;
	snprintf(c->column_name, sizeof(c->column_name), "%d", best + 1);
	return 0;
}

/*
 * The delimiter, the header (the first row when none of its fields is an entry, or a
 * '#' comment just before the rows with as many fields) and the column.
 */
static int csv_setup(struct fmt_conf *c, const struct sample *sm, const char *column,
		     bool given, const char **why)
{
	static const char delims[] = { ',', ';', '\t', '|' };
	char value[LINE_MAX_BYTES + 1];
	const char *hdr = NULL;
	size_t hlen = 0, best = 0, first = 0, i;
	int fields = 0, f, k;
	bool header = true;

	c->delim = ',';
	for (i = 0; i < (given ? sizeof(delims) : 1); i++) {
		size_t same = csv_layout(sm, delims[i], &f);

		if (same > best) {
			best = same;
			fields = f;
			c->delim = delims[i];
		}
	}
	if (fields < 1)
		fields = 1;
	if (sm->n) {
		for (k = 0; k < fields && header; k++) {
			size_t n = row_field(sm->line[0], sm->len[0], c->delim, k, value,
					     sizeof(value));

			header = !n || value_kind(value, n) < 0;
		}
		header &= csv_field(sm->line[0], sm->len[0], c->delim, -1, NULL, 0, NULL) ==
			  fields;
	}
	if (sm->n && header) {
		hdr = sm->line[0];
		hlen = sm->len[0];
		first = 1;
		memcpy(c->header, hdr, hlen);
		c->header_len = hlen;
	} else if (sm->comment_before) {
		/* "# id,dateadded,url,...": URLhaus writes its header as a comment */
		hdr = sm->comment_before + 1;
		hlen = sm->comment_len - 1;
		while (hlen && is_space(*hdr)) {
			hdr++;
			hlen--;
		}
		if (csv_field(hdr, hlen, c->delim, -1, NULL, 0, NULL) != fields)
			hdr = NULL;
	}
	if (column) {
		char *end;
		long n = strtol(column, &end, 10);

		if (!*end && n >= 1 && n <= 1000) {
			c->column = (int)n - 1;
			snprintf(c->column_name, sizeof(c->column_name), "%ld", n);
			return 0;
		}
		if (hdr && !csv_column_by_name(c, hdr, hlen, fields, column))
			return 0;
		*why = hdr ? "the CSV header has no such column (--column)" :
		       "the CSV file has no header to find the column by name: give its number";
		return -EINVAL;
	}
	if (hdr && !csv_column_by_name(c, hdr, hlen, fields, NULL))
		return 0;
	if (!csv_column_by_content(c, sm, first, fields))
		return 0;
	*why = "no CSV column holds addresses, names or URLs: name one with --column";
	return -EINVAL;
}

/* The first key of json_keys[] that an object of the head has. */
static void json_setup(struct fmt_conf *c, const struct sample *sm)
{
	size_t i, k;

	for (i = 0; i < sm->n && !c->column_name[0]; i++) {
		json_error_t jerr;
		json_t *obj = json_loadb(sm->line[i], sm->len[i], 0, &jerr);

		for (k = 0; obj && json_is_object(obj) && json_keys[k]; k++) {
			if (json_object_get(obj, json_keys[k])) {
				snprintf(c->column_name, sizeof(c->column_name), "%s", json_keys[k]);
				break;
			}
		}
		json_decref(obj);
	}
}

static enum bb_list_format vote(const struct sample *sm, struct fmt_conf *c)
{
	size_t votes[V_MAX] = { 0 }, i, same;
	int v, best = V_PLAIN, fields;

	for (i = 0; i < sm->n; i++)
		votes[line_vote(sm->line[i], sm->len[i])]++;
	for (v = V_P2P; v < V_MAX; v++)
		if (votes[v] * 2 > sm->n && votes[v] > votes[best])
			best = v;
	if (best != V_PLAIN)
		return vote_format[best];
	/* commas in nearly every line, as many in each, and a column of entries */
	same = csv_layout(sm, ',', &fields);
	if (sm->n && same * 10 >= sm->n * 8 && votes[V_ADBLOCK] * 2 <= sm->n) {
		const char *why;
		struct fmt_conf csv = *c;

		if (!csv_setup(&csv, sm, NULL, false, &why)) {
			*c = csv;
			return BB_FORMAT_CSV;
		}
	}
	if (votes[V_HOSTS] > votes[V_PLAIN] && votes[V_HOSTS] >= votes[V_ADBLOCK])
		return BB_FORMAT_HOSTS;
	/* "! Title:" or "[Adblock Plus 2.0]" first: Adblock's own header, whatever follows */
	if (votes[V_ADBLOCK] > votes[V_PLAIN] ||
	    (sm->n && (sm->line[0][0] == '!' || sm->line[0][0] == '[') &&
	     line_vote(sm->line[0], sm->len[0]) == V_ADBLOCK))
		return BB_FORMAT_ADBLOCK;
	return BB_FORMAT_PLAIN;
}

/* conf->watch_first: each first byte an address of a watched prefix may start with. */
static void watch_first_bytes(struct fmt_conf *conf)
{
	unsigned int i, b;

	for (i = 0; i < conf->n_watch; i++) {
		const struct bb_entry *w = &conf->watch[i];
		unsigned int family = w->kind == BB_ENTRY_IP6, span;

		if (w->kind != BB_ENTRY_IP4 && w->kind != BB_ENTRY_IP6)
			continue;
		span = w->plen < 8 ? 1U << (8 - w->plen) : 1;
		for (b = w->addr[0] & ~(span - 1); b < (w->addr[0] & ~(span - 1)) + span; b++)
			conf->watch_first[family][b / 64] |= 1ULL << (b % 64);
	}
}

int fmt_detect(const char *head, size_t len, bool whole, const struct bb_file_opts *opts,
	       struct fmt_conf *conf, const char **why)
{
	struct sample *sm = malloc(sizeof(*sm));
	int err = 0;

	if (!sm)
		return -ENOMEM;
	memset(conf, 0, sizeof(*conf));
	conf->urls_as_hosts = opts->urls_as_hosts;
	conf->sets = opts->sets;
	conf->allow = opts->allow;
	conf->source = opts->source;
	conf->refuse_wide = opts->refuse_wide;
	conf->watch = opts->watch;
	conf->n_watch = opts->n_watch < BB_WATCH_MAX ? opts->n_watch : BB_WATCH_MAX;
	watch_first_bytes(conf);
	conf->column_given = opts->column != NULL;
	sample_lines(head, len, whole, sm);
	conf->format = opts->format != BB_FORMAT_AUTO ? opts->format : vote(sm, conf);
	if (conf->format == BB_FORMAT_CSV && (opts->format == BB_FORMAT_CSV || opts->column))
		err = csv_setup(conf, sm, opts->column, opts->format == BB_FORMAT_CSV, why);
	if (conf->format == BB_FORMAT_JSON) {
		if (opts->column)
			snprintf(conf->column_name, sizeof(conf->column_name), "%s", opts->column);
		else
			json_setup(conf, sm);
	}
	free(sm);
	return err;
}

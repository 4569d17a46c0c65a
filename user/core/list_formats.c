/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The formats of resolvers, zones and feeds: dnsmasq, Unbound, RPZ zone files, JSON
 * lines, CSV, ipset save files; and how a file's format is told from its first lines.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>
#include <xxhash.h>

#include "list_int.h"

#define DETECT_LINES	512	/* content lines a format is told from */
#define RPZ_TOKENS	16

/* ---- state across lines ---- */

/* Unbound: a redirect zone and a sinkhole local-data for a name make a block. */
struct zone_rec {
	char *name;
	size_t line;
	bool redirect;		/* local-zone: "name" redirect */
	bool sinkhole;		/* local-data: "name A 0.0.0.0" (or ::, 127.0.0.1, ::1) */
	uint64_t hash;
};

struct ipset_rec {
	char name[32];
	char type[32];
	size_t entries;
	bool chosen, created;
};

struct fmt_seq {
	/* RPZ */
	char origin[BB_NAME_MAX + 1];	/* canonical, no trailing dot; "" the root */
	bool origin_known;
	char owner[BB_NAME_MAX + 2];	/* the last owner, as written (for blank owners) */
	int paren;			/* inside ( ... ): lines continue one record */
	size_t absolute;		/* absolute owners read as the triggers themselves: no
					 * $ORIGIN or SOA said the zone's name */
	/* Unbound */
	struct zone_rec *zones;
	size_t n_zones, cap_zones;	/* open addressing, cap a power of two */
	/* ipset */
	struct ipset_rec sets[BB_LIST_MAX_SETS];
	unsigned int n_sets;
	bool more_sets;
};

bool fmt_sequential(enum bb_list_format format)
{
	return format == BB_FORMAT_RPZ || format == BB_FORMAT_UNBOUND || format == BB_FORMAT_IPSET;
}

int fmt_seq_new(struct list_priv *p)
{
	p->seq = calloc(1, sizeof(*p->seq));
	return p->seq ? 0 : -ENOMEM;
}

void fmt_seq_free(struct fmt_seq *seq)
{
	size_t i;

	if (!seq)
		return;
	for (i = 0; i < seq->cap_zones; i++)
		free(seq->zones[i].name);
	free(seq->zones);
	free(seq);
}

/*
 * Line preparation every format shares: too long, NUL bytes, a BOM, blank lines, and
 * a comment: a line whose first byte (after spaces) is one of comment.
 * 1: go on with *s, *len trimmed; else *rc is the line's result.
 */
static int prep(struct bb_list *list, const char **s, size_t *len, bool keep_lead,
		const char *comment, int *rc, const char **why)
{
	size_t i;

	if (*len > LINE_MAX_BYTES) {
		*rc = count_reject(list, reject(BB_REJECT_TOO_LONG, why,
						"line longer than 4096 bytes"));
		return 0;
	}
	if (memchr(*s, '\0', *len)) {
		*rc = count_reject(list, reject(BB_REJECT_SYNTAX, why, "NUL byte in line"));
		return 0;
	}
	if (*len >= 3 && !memcmp(*s, "\xef\xbb\xbf", 3)) {
		*s += 3;
		*len -= 3;
	}
	while (*len && is_space((*s)[*len - 1]))
		(*len)--;
	while (!keep_lead && *len && is_space(**s)) {
		(*s)++;
		(*len)--;
	}
	for (i = 0; i < *len && is_space((*s)[i]); i++)
		;
	if (i == *len) {
		list->counts.blank++;
		*rc = 0;
		return 0;
	}
	if (comment && strchr(comment, (*s)[i])) {
		list->counts.comments++;
		*rc = 0;
		return 0;
	}
	return 1;
}

/* An option name as resolvers write them: lowercase letters, digits, '-'. */
bool option_shaped(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return false;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || is_digit(s[i]) || s[i] == '-'))
			return false;
	return true;
}

/* One name of a resolver rule as an entry: "*.x" the subdomains, else x and them. */
static int add_rule_name(struct bb_list *list, const char *s, size_t len, __u8 flags,
			 const char **why)
{
	char text[BB_NAME_MAX + 1];
	struct bb_entry e;
	int err;

	if (len > 2 && s[0] == '*' && s[1] == '.') {
		s += 2;
		len -= 2;
		flags |= BB_ENTRY_F_SUBDOMAINS_ONLY;
	}
	if (len == 1 && (s[0] == '.' || s[0] == '#' || s[0] == '*'))
		return count_reject(list, reject(BB_REJECT_UNSUPPORTED, why,
						 "a rule for every name would block everything"));
	err = parse_name(s, len, &e, text, sizeof(text), true, why);
	if (err)
		return count_reject(list, err);
	e.flags = flags;
	return add_counted(list, &e);
}

/* ---- dnsmasq: address=/a/b/ANSWER, server=/a/ANSWER, local=/a/ ---- */

static int dnsmasq_line(struct bb_list *list, const char *s, size_t len, const char **why)
{
	const char *eq, *v, *end, *last, *d;
	struct bb_entry ans;
	size_t klen, alen;
	bool address;
	int rc = 0, first_err = 0, any = 0;
	__u8 flags = 0;

	if (!prep(list, &s, &len, false, "#", &rc, why))
		return rc;
	end = s + len;
	eq = mem_find(s, len, '=');
	klen = eq ? (size_t)(eq - s) : len;
	while (klen && is_space(s[klen - 1]))
		klen--;
	address = token_is(s, klen, "address");
	if (!address && !token_is(s, klen, "server") && !token_is(s, klen, "local")) {
		if (!option_shaped(s, klen))
			return count_reject(list, reject(BB_REJECT_SYNTAX, why,
							 "not a dnsmasq option line"));
		return count_skip(list, BB_SKIP_DIRECTIVE);	/* cache-size=, conf-file=... */
	}
	for (v = eq ? eq + 1 : end; v < end && is_space(*v); v++)
		;
	if (v == end || *v != '/')
		return count_skip(list, BB_SKIP_DIRECTIVE);	/* server=192.0.2.53: upstream */
	for (last = end - 1; last > v && *last != '/'; last--)
		;
	if (last == v)
		return count_reject(list, reject(BB_REJECT_SYNTAX, why,
						 "dnsmasq rule without a closing '/'"));
	alen = (size_t)(end - last - 1);
	if (alen && !(alen == 1 && last[1] == '#')) {
		const char *hash = mem_find(last + 1, alen, '#');	/* server=/x/IP#port */

		if (!address)
			return count_skip(list, BB_SKIP_ANSWER);	/* forwarded, not blocked */
		if (parse_addr(last + 1, hash ? (size_t)(hash - last - 1) : alen, &ans, false, why))
			return count_reject(list, reject(BB_REJECT_BAD_ADDRESS, why,
							 "dnsmasq answer is not an address"));
		if (!addr_is_sinkhole(&ans))
			return count_skip(list, BB_SKIP_ANSWER);	/* a local answer */
	} else if (alen && !address) {
		flags = BB_ENTRY_F_ALLOW;	/* server=/x/#: resolved as usual, an exception */
	}
	/* NXDOMAIN (no answer), the null address (#), a sinkhole: every name a block */
	for (d = v + 1; d < last; ) {
		const char *slash = mem_find(d, (size_t)(last - d), '/') ?: last;
		int err;

		if (slash > d) {
			err = add_rule_name(list, d, (size_t)(slash - d), flags, why);
			if (err == BB_LIST_NOMEM)
				return err;
			if (err < 0)
				first_err = first_err ?: err;
			else
				any = 1;
		}
		d = slash + 1;
	}
	if (!first_err && !any)
		return count_reject(list, reject(BB_REJECT_SYNTAX, why, "dnsmasq rule without a name"));
	return first_err ?: any;
}

/* ---- Unbound: local-zone: "name" type; local-data: "name A 0.0.0.0" ---- */

static const char *const unbound_blocking[] = {
	"deny", "refuse", "static", "always_refuse", "always_nxdomain", "always_nodata",
	"always_deny", "always_null", "inform_deny", NULL,
};
static const char *const unbound_passing[] = {
	"transparent", "typetransparent", "always_transparent", "inform", NULL,
};

static bool word_in(const char *s, size_t len, const char *const *words)
{
	for (; *words; words++)
		if (token_is(s, len, *words))
			return true;
	return false;
}

/* A value, quoted or not: its text without the quotes. */
static size_t unquote_token(const char **s, const char *end, const char **tok)
{
	const char *p = *s, *q;

	while (p < end && is_space(*p))
		p++;
	if (p < end && *p == '"') {
		q = mem_find(p + 1, (size_t)(end - p - 1), '"');
		if (!q)
			q = end;
		*tok = p + 1;
		*s = q < end ? q + 1 : end;
		return (size_t)(q - p - 1);
	}
	*s = p;
	return next_token(s, end, tok);
}

static uint64_t name_hash(const char *name)
{
	return XXH3_64bits(name, strlen(name));
}

/* The record of a name, made if new (BB_LIST_NOMEM when it cannot be). */
static struct zone_rec *zone_rec(struct fmt_seq *q, const char *name)
{
	uint64_t h = name_hash(name);
	size_t i, mask;

	if ((q->n_zones + 1) * 2 > q->cap_zones) {
		size_t cap = q->cap_zones ? q->cap_zones * 2 : 64;
		struct zone_rec *z = calloc(cap, sizeof(*z));

		if (!z)
			return NULL;
		for (i = 0; i < q->cap_zones; i++) {
			size_t j;

			if (!q->zones[i].name)
				continue;
			for (j = q->zones[i].hash & (cap - 1); z[j].name; j = (j + 1) & (cap - 1))
				;
			z[j] = q->zones[i];
		}
		free(q->zones);
		q->zones = z;
		q->cap_zones = cap;
	}
	mask = q->cap_zones - 1;
	for (i = h & mask; q->zones[i].name; i = (i + 1) & mask)
		if (q->zones[i].hash == h && !strcmp(q->zones[i].name, name))
			return &q->zones[i];
	q->zones[i].name = strdup(name);
	if (!q->zones[i].name)
		return NULL;
	q->zones[i].hash = h;
	q->n_zones++;
	return &q->zones[i];
}

/* local-data: "name [ttl] [class] A 0.0.0.0": a sinkhole answer for name, or not. */
static bool unbound_sinkhole_data(const char *rr, size_t len, char *name, size_t size)
{
	const char *p = rr, *end = rr + len, *tok, *type = NULL, *more;
	struct bb_entry a;
	size_t n, tlen = 0, i;

	n = next_token(&p, end, &tok);
	if (!n || bb_name_canonical(tok, n, name, size, NULL))
		return false;
	for (i = 0; i < 3 && (tlen = next_token(&p, end, &type)); i++)
		if (token_is(type, tlen, "A") || token_is(type, tlen, "AAAA"))
			break;
	if (i == 3 || !tlen)
		return false;
	n = next_token(&p, end, &tok);
	return n && !next_token(&p, end, &more) && !parse_addr(tok, n, &a, false, NULL) &&
	       addr_is_sinkhole(&a) && (a.kind == BB_ENTRY_IP4) == (tlen == 1);
}

static int unbound_line(struct bb_list *list, const char *s, size_t len, const char **why)
{
	struct fmt_seq *q = list_priv(list)->seq;
	char name[BB_NAME_MAX + 1];
	const char *colon, *v, *end, *tok, *type, *c;
	bool quoted = false;
	size_t klen, n, tlen;
	int rc = 0;

	if (!prep(list, &s, &len, false, "#", &rc, why))
		return rc;
	for (c = s; c < s + len; c++) {
		/* a comment may follow a value, outside quotes */
		if (*c == '"')
			quoted = !quoted;
		else if (*c == '#' && !quoted)
			break;
	}
	end = c;
	while (end > s && is_space(end[-1]))
		end--;
	colon = mem_find(s, (size_t)(end - s), ':');
	klen = colon ? (size_t)(colon - s) : 0;
	if (!colon || !option_shaped(s, klen))
		return count_reject(list, reject(BB_REJECT_SYNTAX, why,
						 "not an Unbound \"key: value\" line"));
	v = colon + 1;
	if (token_is(s, klen, "include") || token_is(s, klen, "include-toplevel"))
		return count_reject(list, reject(BB_REJECT_UNSUPPORTED, why,
						 "include: is not followed: load that file too"));
	if (token_is(s, klen, "local-data-ptr"))
		return count_skip(list, BB_SKIP_ANSWER);
	if (token_is(s, klen, "local-data")) {
		n = unquote_token(&v, end, &tok);
		if (unbound_sinkhole_data(tok, n, name, sizeof(name))) {
			struct zone_rec *z = zone_rec(q, name);

			if (!z)
				return BB_LIST_NOMEM;
			if (!z->sinkhole && !z->redirect)
				z->line = list->counts.lines;
			z->sinkhole = true;
		}
		/* an answer now; a block at the end, if it is a sinkhole (fmt_seq_end()) */
		return count_skip(list, BB_SKIP_ANSWER);
	}
	if (!token_is(s, klen, "local-zone"))
		return count_skip(list, BB_SKIP_DIRECTIVE);	/* server:, forward-zone:... */
	n = unquote_token(&v, end, &tok);
	tlen = next_token(&v, end, &type);
	if (!n || !tlen)
		return count_reject(list, reject(BB_REJECT_SYNTAX, why,
						 "local-zone needs a name and a type"));
	if (word_in(type, tlen, unbound_blocking))
		return add_rule_name(list, tok, n, 0, why);
	if (word_in(type, tlen, unbound_passing))
		return add_rule_name(list, tok, n, BB_ENTRY_F_ALLOW, why);	/* an exception */
	if (token_is(type, tlen, "nodefault") || token_is(type, tlen, "noview"))
		return count_skip(list, BB_SKIP_DIRECTIVE);
	if (!token_is(type, tlen, "redirect") && !token_is(type, tlen, "inform_redirect"))
		return count_reject(list, reject(BB_REJECT_SYNTAX, why, "unknown local-zone type"));
	rc = bb_name_canonical(tok, n, name, sizeof(name), why);
	if (rc)
		return count_reject(list, rc);
	{
		struct zone_rec *z = zone_rec(q, name);

		if (!z)
			return BB_LIST_NOMEM;
		z->redirect = true;
		z->line = list->counts.lines;
	}
	/* a redirect answers with its local-data: a block only with a sinkhole one */
	return count_skip(list, BB_SKIP_ANSWER);
}

/*
 * At the end of the file: a redirect zone with a sinkhole answer blocks its name and
 * its subdomains; a sinkhole answer alone (an implicit transparent zone) the name. The
 * line that now makes the entry was counted an answer when it was read.
 */
static int unbound_end(struct bb_list *list)
{
	struct fmt_seq *q = list_priv(list)->seq;
	size_t i;

	for (i = 0; i < q->cap_zones; i++) {
		const struct zone_rec *z = &q->zones[i];
		struct bb_entry e = { .kind = BB_ENTRY_NAME, .text = z->name };
		int err;

		if (!z->name || !z->sinkhole || !strchr(z->name, '.'))
			continue;	/* a single label stays an answer: lists refuse TLDs */
		if (!z->redirect)
			e.flags = BB_ENTRY_F_EXACT;
		list->counts.skipped[BB_SKIP_ANSWER]--;
		err = add_counted(list, &e);
		if (err < 0)
			return err;
	}
	return 0;
}

/* ---- RPZ zone files ---- */

/* Tokens of a zone-file line: quoted strings whole; ';' ends the line. */
size_t zone_tokens(const char *s, const char *end, const char **tok, size_t *tlen,
			  size_t max)
{
	size_t n = 0;

	while (n < max) {
		while (s < end && is_space(*s))
			s++;
		if (s == end || *s == ';')
			break;
		tok[n] = s;
		if (*s == '"') {
			const char *q = mem_find(s + 1, (size_t)(end - s - 1), '"');

			s = q ? q + 1 : end;
		} else if (*s == '(' || *s == ')') {
			s++;
		} else {
			while (s < end && !is_space(*s) && *s != ';' && *s != '(' && *s != ')')
				s++;
		}
		tlen[n] = (size_t)(s - tok[n]);
		n++;
	}
	return n;
}

bool is_ttl(const char *s, size_t len)
{
	size_t i;

	if (!len || !is_digit(s[0]))
		return false;
	for (i = 0; i < len; i++)
		if (!is_digit(s[i]) && !strchr("smhdwSMHDW", s[i]))
			return false;
	return true;
}

bool is_class(const char *s, size_t len)
{
	return token_is(s, len, "IN") || token_is(s, len, "CH") || token_is(s, len, "HS") ||
	       token_is(s, len, "CS");
}

/* An absolute name (trailing dot) relative to the origin: 1, 0 outside it. */
static int strip_origin(const struct fmt_seq *q, const char *abs, size_t len, char *rel,
			size_t size)
{
	char canon[BB_NAME_MAX + 3];
	size_t olen = strlen(q->origin), clen, star = 0;

	if (len == 1)
		return 0;	/* "." is the root */
	if (len > 2 && abs[0] == '*' && abs[1] == '.') {
		/* a wildcard owner: "*." stays, the rest is a name (dig axfr writes these) */
		memcpy(canon, "*.", 2);
		star = 2;
	}
	if (bb_name_canonical(abs + star, len - star, canon + star, sizeof(canon) - star, NULL))
		return -1;
	clen = strlen(canon);
	if (!olen) {
		if (clen + 1 > size)
			return -1;
		memcpy(rel, canon, clen + 1);	/* the root's names are absolute */
		return 1;
	}
	if (clen <= olen + 1 || canon[clen - olen - 1] != '.' ||
	    strcmp(canon + clen - olen, q->origin)) {
		if (olen && !strcmp(canon, q->origin) && size) {
			rel[0] = '\0';	/* the apex */
			return 1;
		}
		return 0;
	}
	if (clen - olen - 1 + 1 > size)
		return -1;
	memcpy(rel, canon, clen - olen - 1);
	rel[clen - olen - 1] = '\0';
	return 1;
}

/* The labels of an rpz-ip trigger, "32.1.2.0.192" or "128.1.zz.db8.2001", as an entry. */
static int rpz_ip(const char *labels, struct bb_entry *e, const char **why)
{
	const char *parts[10], *p = labels;
	char text[64] = "";
	size_t n = 0, i, o = 0;
	unsigned long plen;
	char *end;
	bool v4 = true;

	while (n < 10) {
		parts[n++] = p;
		p = strchr(p, '.');
		if (!p)
			break;
		p++;
	}
	plen = strtoul(parts[0], &end, 10);
	if (n < 2 || n == 10 || *end != '.' || end == parts[0])
		return reject(BB_REJECT_BAD_ADDRESS, why, "bad rpz-ip trigger");
	for (i = 1; i < n && v4; i++) {
		size_t l = strcspn(parts[i], ".");

		v4 = n == 5 && l && l <= 3 && strspn(parts[i], "0123456789") == l;
	}
	for (i = n - 1; i >= 1; i--) {
		size_t l = strcspn(parts[i], ".");

		if (o + l + 3 >= sizeof(text))
			return reject(BB_REJECT_BAD_ADDRESS, why, "bad rpz-ip trigger");
		if (!v4 && l == 2 && !strncmp(parts[i], "zz", 2)) {
			memcpy(text + o, "::", 2);
			o += 2;
			continue;
		}
		if (o && !(o >= 2 && !memcmp(text + o - 2, "::", 2)))
			text[o++] = v4 ? '.' : ':';
		memcpy(text + o, parts[i], l);
		o += l;
	}
	o += (size_t)snprintf(text + o, sizeof(text) - o, "/%lu", plen);
	if (parse_addr(text, o, e, false, why) || (e->kind == BB_ENTRY_IP4) != v4)
		return reject(BB_REJECT_BAD_ADDRESS, why, "bad rpz-ip trigger");
	return 0;
}

/* What a policy record does: 1 blocks, 2 passes (an exception), or 0 and the skip it is. */
static int rpz_action(const char *type, size_t tlen, const char *rdata, size_t rlen,
		      enum bb_skip_reason *skip)
{
	if (!token_is(type, tlen, "CNAME")) {
		*skip = BB_SKIP_ANSWER;	/* A, AAAA, TXT...: local data */
		return 0;
	}
	if (token_is(rdata, rlen, ".") || token_is(rdata, rlen, "*.") ||
	    token_is(rdata, rlen, "rpz-drop.") || token_is(rdata, rlen, "rpz-drop"))
		return 1;	/* NXDOMAIN, NODATA, drop */
	if (token_is(rdata, rlen, "rpz-passthru.") || token_is(rdata, rlen, "rpz-passthru"))
		return 2;
	*skip = BB_SKIP_ANSWER;	/* rpz-tcp-only., a walled garden's name */
	return 0;
}

/* $ORIGIN, $TTL, $INCLUDE... */
static int rpz_directive(struct bb_list *list, struct fmt_seq *q, const char **tok,
			 const size_t *tlen, size_t n, const char **why)
{
	char rel[BB_NAME_MAX + 1];

	if (token_is(tok[0], tlen[0], "$TTL"))
		return count_skip(list, BB_SKIP_DIRECTIVE);
	if (!token_is(tok[0], tlen[0], "$ORIGIN"))
		return count_reject(list, reject(BB_REJECT_UNSUPPORTED, why,
						 "zone-file directive not followed ($INCLUDE, "
						 "$GENERATE)"));
	if (n < 2)
		return count_reject(list, reject(BB_REJECT_SYNTAX, why, "$ORIGIN without a name"));
	if (tok[1][tlen[1] - 1] != '.') {
		/* relative to the origin before it */
		char joined[2 * BB_NAME_MAX + 2];

		snprintf(joined, sizeof(joined), "%.*s%s%s", (int)tlen[1], tok[1],
			 q->origin[0] ? "." : "", q->origin);
		if (bb_name_canonical(joined, strlen(joined), rel, sizeof(rel), why))
			return count_reject(list, reject(BB_REJECT_BAD_NAME, why, "bad $ORIGIN"));
	} else if (tlen[1] == 1) {
		rel[0] = '\0';
	} else if (bb_name_canonical(tok[1], tlen[1], rel, sizeof(rel), why)) {
		return count_reject(list, reject(BB_REJECT_BAD_NAME, why, "bad $ORIGIN"));
	}
	memcpy(q->origin, rel, sizeof(q->origin));
	q->origin_known = true;
	return count_skip(list, BB_SKIP_DIRECTIVE);
}

/* The trigger an owner names, relative to the origin: 1 (rel set), 0 the apex, <0 reject. */
static int rpz_owner(struct bb_list *list, struct fmt_seq *q, const char *owner, size_t olen,
		     char *rel, size_t size, const char **why)
{
	int in;

	if (olen == 1 && owner[0] == '@')
		return 0;
	if (owner[olen - 1] != '.') {
		if (olen >= size)
			return count_reject(list, reject(BB_REJECT_BAD_NAME, why,
							 "name longer than 253 bytes"));
		memcpy(rel, owner, olen);
		rel[olen] = '\0';
		return 1;
	}
	/*
	 * No $ORIGIN and no SOA: the publisher left the zone's name to the resolver's
	 * config, and its owners are the triggers themselves, as resolvers read such feeds
	 * (the origin is "" until one is known: strip_origin() keeps the whole name).
	 */
	in = strip_origin(q, owner, olen, rel, size);
	if (in < 0)
		return count_reject(list, reject(BB_REJECT_BAD_NAME, why, "bad owner name"));
	if (!in)
		return count_reject(list, reject(BB_REJECT_SYNTAX, why,
						 "owner name outside the zone's $ORIGIN"));
	q->absolute += !q->origin_known;
	return rel[0] ? 1 : 0;
}

/* A policy record: trigger (owner) and action. */
static int rpz_policy(struct bb_list *list, const char *rel, const char *type, size_t tlen,
		      const char *rdata, size_t rlen, const char **why)
{
	const char *last = strrchr(rel, '.');
	const char *label = last ? last + 1 : rel;
	enum bb_skip_reason skip = BB_SKIP_ANSWER;
	struct bb_entry e;
	int err, blocks;
	__u8 flags;

	if (!strcasecmp(label, "rpz-nsdname") || !strcasecmp(label, "rpz-nsip") ||
	    !strcasecmp(label, "rpz-client-ip"))
		return count_skip(list, BB_SKIP_TRIGGER);
	blocks = rpz_action(type, tlen, rdata, rlen, &skip);
	if (!blocks)
		return count_skip(list, skip);
	flags = blocks == 2 ? BB_ENTRY_F_ALLOW : 0;	/* rpz-passthru: an exception */
	if (!strcasecmp(label, "rpz-ip")) {
		char labels[BB_NAME_MAX + 1];

		if (!last)
			return count_reject(list, reject(BB_REJECT_BAD_ADDRESS, why,
							 "bad rpz-ip trigger"));
		snprintf(labels, sizeof(labels), "%.*s", (int)(last - rel), rel);
		err = rpz_ip(labels, &e, why);
		if (err)
			return count_reject(list, err);
		e.flags |= flags;
		return add_counted(list, &e);
	}
	if (rel[0] == '*' && rel[1] == '.')
		return add_rule_name(list, rel, strlen(rel), flags, why);
	return add_rule_name(list, rel, strlen(rel), flags | BB_ENTRY_F_EXACT, why);
}

static int rpz_line(struct bb_list *list, const char *s, size_t len, const char **why)
{
	struct fmt_seq *q = list_priv(list)->seq;
	const char *tok[RPZ_TOKENS], *end, *type, *owner;
	size_t tlen[RPZ_TOKENS], n, i, t, olen;
	char rel[BB_NAME_MAX + 1];
	bool blank_owner;
	int rc = 0, paren = 0;

	if (!prep(list, &s, &len, true, NULL, &rc, why))
		return rc;
	blank_owner = is_space(s[0]);
	end = s + len;
	n = zone_tokens(s, end, tok, tlen, RPZ_TOKENS);
	for (i = 0; i < n; i++)
		paren += tok[i][0] == '(' ? 1 : tok[i][0] == ')' ? -1 : 0;
	if (q->paren) {
		/* the rest of a record written over several lines (an SOA) */
		q->paren = q->paren + paren > 0 ? q->paren + paren : 0;
		return n ? count_skip(list, BB_SKIP_DIRECTIVE) : (list->counts.comments++, 0);
	}
	q->paren = paren > 0 ? paren : 0;
	if (!n || tok[0][0] == '#') {
		/* ';' starts a comment; '#' is no zone syntax, but generators write it so */
		list->counts.comments++;
		return 0;
	}
	if (tok[0][0] == '$')
		return rpz_directive(list, q, tok, tlen, n, why);
	if (blank_owner) {
		owner = q->owner;
		olen = strlen(q->owner);
		t = 0;
	} else {
		owner = tok[0];
		olen = tlen[0];
		t = 1;
		if (olen >= sizeof(q->owner))
			return count_reject(list, reject(BB_REJECT_BAD_NAME, why,
							 "name longer than 253 bytes"));
		memcpy(q->owner, owner, olen);
		q->owner[olen] = '\0';
		owner = q->owner;
	}
	while (t < n && (is_ttl(tok[t], tlen[t]) || is_class(tok[t], tlen[t])))
		t++;
	if (t >= n || !olen)
		return count_reject(list, reject(BB_REJECT_SYNTAX, why,
						 "not a zone-file record (owner, type, data)"));
	type = tok[t];
	if (token_is(type, tlen[t], "SOA")) {
		if (!q->origin_known && owner[olen - 1] == '.' &&
		    !bb_name_canonical(owner, olen, rel, sizeof(rel), NULL)) {
			memcpy(q->origin, rel, sizeof(q->origin));
			q->origin_known = true;
		}
		return count_skip(list, BB_SKIP_DIRECTIVE);
	}
	rc = rpz_owner(list, q, owner, olen, rel, sizeof(rel), why);
	if (rc <= 0)
		return rc < 0 ? rc : count_skip(list, BB_SKIP_DIRECTIVE);	/* the apex: NS */
	if (token_is(type, tlen[t], "NS"))
		return count_skip(list, BB_SKIP_DIRECTIVE);
	return rpz_policy(list, rel, type, tlen[t], t + 1 < n ? tok[t + 1] : "",
			  t + 1 < n ? tlen[t + 1] : 0, why);
}

/* ---- JSON lines ---- */

/* Keys that hold an entry, in the order they are looked for. */
const char *const json_keys[] = {
	"cidr", "ip", "ip_address", "ipaddress", "address", "addr", "network", "prefix",
	"subnet", "domain", "hostname", "host", "fqdn", "url", "ioc", "indicator", "value", NULL,
};

static int json_value(struct bb_list *list, json_t *v, const char **why)
{
	size_t i;
	int rc = 0, first_err = 0;

	if (json_is_string(v))
		return add_token(list, json_string_value(v), json_string_length(v), why);
	if (json_is_array(v) && json_array_size(v)) {
		for (i = 0; i < json_array_size(v); i++) {
			json_t *item = json_array_get(v, i);

			rc = json_is_string(item) ?
			     add_token(list, json_string_value(item), json_string_length(item), why) :
			     count_reject(list, reject(BB_REJECT_SYNTAX, why,
						       "JSON array item is not a string"));
			if (rc == BB_LIST_NOMEM)
				return rc;
			if (rc < 0)
				first_err = first_err ?: rc;
		}
		return first_err ?: 1;
	}
	return count_reject(list, reject(BB_REJECT_SYNTAX, why, json_is_null(v) ?
					 "the entry's JSON value is null" :
					 "the entry's JSON value is not a string"));
}

static int json_line(struct bb_list *list, const char *s, size_t len, const char **why)
{
	const struct fmt_conf *c = list_priv(list)->conf;
	json_t *obj, *v = NULL;
	json_error_t jerr;
	size_t i;
	int rc = 0;

	if (!prep(list, &s, &len, false, "#", &rc, why))
		return rc;
	if (s[0] != '{')
		return count_reject(list, reject(BB_REJECT_SYNTAX, why, s[0] == '[' ?
						 "a JSON array, not JSON lines (one object a line)" :
						 "not a JSON object"));
	obj = json_loadb(s, len, 0, &jerr);
	if (!obj || !json_is_object(obj)) {
		json_decref(obj);
		return count_reject(list, reject(BB_REJECT_SYNTAX, why,
						 "not a valid JSON object on one line"));
	}
	if (c->column_name[0])
		v = json_object_get(obj, c->column_name);
	for (i = 0; !v && !c->column_given && json_keys[i]; i++)
		v = json_object_get(obj, json_keys[i]);
	rc = v ? json_value(list, v, why) : count_skip(list, BB_SKIP_DIRECTIVE);
	json_decref(obj);
	return rc;
}

/* ---- CSV ---- */

int csv_field(const char *s, size_t len, char delim, int col, char *out, size_t size,
		     size_t *out_len)
{
	const char *end = s + len;
	int f = 0;

	if (out_len)
		*out_len = 0;
	for (;;) {
		size_t o = 0;

		while (s < end && (*s == ' ' || *s == '\t') && delim != '\t')
			s++;
		if (s < end && *s == '"') {
			for (s++;; s++) {
				if (s == end)
					return -1;
				if (*s == '"') {
					if (s + 1 < end && s[1] == '"') {
						s++;
					} else {
						s++;
						break;
					}
				}
				if (f == col && o + 1 < size)
					out[o++] = *s;
			}
			while (s < end && *s != delim)
				s++;
		} else {
			const char *d = s < end ? mem_find(s, (size_t)(end - s), delim) : NULL;

			if (!d)
				d = end;

			for (; s < d; s++)
				if (f == col && o + 1 < size)
					out[o++] = *s;
		}
		if (f == col) {
			out[o] = '\0';
			if (out_len)
				*out_len = o;
		}
		f++;
		if (s >= end)
			return f;
		s++;	/* the delimiter */
	}
}

static int csv_line(struct bb_list *list, const char *s, size_t len, const char **why)
{
	const struct fmt_conf *c = list_priv(list)->conf;
	char value[LINE_MAX_BYTES + 1];
	size_t vlen;
	int rc = 0, fields;

	if (!prep(list, &s, &len, false, "#", &rc, why))
		return rc;
	if (c->header_len && len == c->header_len && !memcmp(s, c->header, len))
		return count_skip(list, BB_SKIP_DIRECTIVE);
	fields = csv_field(s, len, c->delim, c->column, value, sizeof(value), &vlen);
	if (fields < 0)
		return count_reject(list, reject(BB_REJECT_UNSUPPORTED, why,
						 "a quoted CSV field that goes on past its line"));
	if (fields <= c->column)
		return count_reject(list, reject(BB_REJECT_SYNTAX, why,
						 "CSV row too short: the column is missing"));
	return add_token(list, value, vlen, why);
}

/* ---- ipset save files ---- */

static bool set_chosen(const char *sets, const char *name, size_t len)
{
	const char *p = sets;

	if (!sets)
		return true;
	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == len && !strncmp(p, name, len))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

static struct ipset_rec *ipset_set(struct fmt_seq *q, const char *sets, const char *name,
				   size_t len)
{
	unsigned int i;

	if (len >= sizeof(q->sets[0].name))
		len = sizeof(q->sets[0].name) - 1;
	for (i = 0; i < q->n_sets; i++)
		if (strlen(q->sets[i].name) == len && !strncmp(q->sets[i].name, name, len))
			return &q->sets[i];
	if (q->n_sets == BB_LIST_MAX_SETS) {
		q->more_sets = true;
		return NULL;
	}
	memcpy(q->sets[q->n_sets].name, name, len);
	q->sets[q->n_sets].chosen = set_chosen(sets, name, len);
	return &q->sets[q->n_sets++];
}

/* Set types whose entries are more than an address or a network. */
static bool ipset_type_plain(const char *type)
{
	return !type[0] || !strcmp(type, "hash:ip") || !strcmp(type, "hash:net") ||
	       !strcmp(type, "bitmap:ip");
}

static int ipset_line(struct bb_list *list, const char *s, size_t len, const char **why)
{
	struct list_priv *p = list_priv(list);
	const char *end, *cmd, *name, *entry, *opt;
	size_t clen, nlen, elen, olen;
	struct ipset_rec *set;
	bool chosen, nomatch = false;
	int rc = 0;

	if (!prep(list, &s, &len, false, "#", &rc, why))
		return rc;
	end = s + len;
	clen = next_token(&s, end, &cmd);
	nlen = next_token(&s, end, &name);
	if (token_is(cmd, clen, "COMMIT") || token_is(cmd, clen, "flush") ||
	    token_is(cmd, clen, "-F"))
		return count_skip(list, BB_SKIP_DIRECTIVE);
	if (token_is(cmd, clen, "create") || token_is(cmd, clen, "-N") || token_is(cmd, clen, "n")) {
		const char *type;
		size_t tlen = next_token(&s, end, &type);

		if (!nlen || !tlen)
			return count_reject(list, reject(BB_REJECT_SYNTAX, why,
							 "ipset create needs a name and a type"));
		set = ipset_set(p->seq, p->conf->sets, name, nlen);
		if (set) {
			snprintf(set->type, sizeof(set->type), "%.*s", (int)tlen, type);
			set->created = true;
		}
		return count_skip(list, BB_SKIP_DIRECTIVE);
	}
	if (!token_is(cmd, clen, "add") && !token_is(cmd, clen, "-A") && !token_is(cmd, clen, "a"))
		return count_reject(list, reject(BB_REJECT_UNSUPPORTED, why,
						 "an ipset command other than create and add"));
	elen = next_token(&s, end, &entry);
	if (!nlen || !elen)
		return count_reject(list, reject(BB_REJECT_SYNTAX, why,
						 "ipset add needs a set and an entry"));
	set = ipset_set(p->seq, p->conf->sets, name, nlen);
	chosen = set ? set->chosen : set_chosen(p->conf->sets, name, nlen);
	if (set)
		set->entries++;
	if (!chosen)
		return count_skip(list, BB_SKIP_OTHER_SET);
	while ((olen = next_token(&s, end, &opt)))
		if (token_is(opt, olen, "nomatch"))
			nomatch = true;	/* an exception inside the set's ranges */
	if ((set && !ipset_type_plain(set->type)) || mem_find(entry, elen, ','))
		return count_reject(list, reject(BB_REJECT_UNSUPPORTED, why,
						 "an entry with a port, an interface or a second "
						 "address: the filter matches whole addresses"));
	p->allow_line = nomatch;
	rc = add_token(list, entry, elen, why);
	p->allow_line = false;
	return rc;
}

static void ipset_end(struct bb_list *list, struct bb_file_info *info)
{
	const struct fmt_seq *q = list_priv(list)->seq;
	const char *sets = list_priv(list)->conf->sets, *p = sets;
	unsigned int i;

	if (!info)
		return;
	info->n_sets = q->n_sets;
	info->more_sets = q->more_sets;
	info->sets_picked = sets && *sets;
	for (i = 0; i < q->n_sets; i++) {
		memcpy(info->sets[i].name, q->sets[i].name, sizeof(info->sets[i].name));
		info->sets[i].entries = q->sets[i].entries;
		info->sets[i].chosen = q->sets[i].chosen;
	}
	while (p && *p) {
		size_t n = strcspn(p, ",");
		bool found = false;

		for (i = 0; i < q->n_sets; i++)
			found |= strlen(q->sets[i].name) == n && !strncmp(q->sets[i].name, p, n);
		if (!found && !q->more_sets) {
			info->missing_set = p;
			break;
		}
		p += n + (p[n] == ',');
	}
}

int fmt_seq_end(struct bb_list *list, struct bb_file_info *info)
{
	struct list_priv *p = list_priv(list);

	if (!p->seq)
		return 0;
	if (p->conf->format == BB_FORMAT_UNBOUND)
		return unbound_end(list);
	if (p->conf->format == BB_FORMAT_IPSET)
		ipset_end(list, info);
	if (p->conf->format == BB_FORMAT_RPZ && info)
		info->rpz_absolute = p->seq->absolute;
	return 0;
}

int fmt_parse_line(struct bb_list *list, const char *s, size_t len, const char **why)
{
	const struct fmt_conf *c = list_priv(list)->conf;

	switch (c ? c->format : BB_FORMAT_PLAIN) {
	case BB_FORMAT_ADBLOCK:
	case BB_FORMAT_HOSTS:
		return plain_parse_line(list, s, len, c->format, why);
	case BB_FORMAT_P2P:
		return p2p_parse_line(list, s, len, why);
	case BB_FORMAT_DNSMASQ:
		return dnsmasq_line(list, s, len, why);
	case BB_FORMAT_UNBOUND:
		return unbound_line(list, s, len, why);
	case BB_FORMAT_RPZ:
		return rpz_line(list, s, len, why);
	case BB_FORMAT_JSON:
		return json_line(list, s, len, why);
	case BB_FORMAT_CSV:
		return csv_line(list, s, len, why);
	case BB_FORMAT_IPSET:
		return ipset_line(list, s, len, why);
	default:
		return plain_parse_line(list, s, len, BB_FORMAT_PLAIN, why);
	}
}

/* SPDX-License-Identifier: GPL-2.0 */
/* One entry's syntax: addresses, CIDRs, ranges, names, URLs, Adblock rules; the names of it all. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>

#include "list_int.h"

/* Adblock options that do not narrow what a rule blocks. */
static const char *const adblock_whole_options[] = { "all", "document", "doc", "important" };

bool mem_has_any(const char *s, size_t len, const char *set)
{
	/* one memchr per wanted byte: vectorised, far faster than strchr per byte */
	for (; *set; set++)
		if (memchr(s, *set, len))
			return true;
	return false;
}

size_t next_token(const char **s, const char *end, const char **tok)
{
	const char *p = *s;

	while (p < end && is_space(*p))
		p++;
	*tok = p;
	while (p < end && !is_space(*p))
		p++;
	*s = p;
	return (size_t)(p - *tok);
}

/* ---- addresses ---- */

/* Only digits, dots and a prefix: meant as an IPv4 address, valid or not. */
bool looks_ipv4(const char *s, size_t len)
{
	size_t i;

	if (!len || !is_digit(s[0]))
		return false;
	for (i = 0; i < len; i++)
		if (!is_digit(s[i]) && s[i] != '.' && s[i] != '/')
			return false;
	return true;
}

/* A colon and nothing but hex digits, dots, a prefix or a zone: meant as IPv6. */
bool looks_ipv6(const char *s, size_t len)
{
	bool colon = false;
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == ':')
			colon = true;
		else if (s[i] == '%')
			return colon;	/* a zone id may hold any interface name */
		else if (!is_hex(s[i]) && s[i] != '.' && s[i] != '/')
			return false;
	}
	return colon;
}

void mask_addr(__u8 *addr, unsigned int plen, unsigned int bits)
{
	unsigned int i;

	for (i = plen; i < bits; i++)
		addr[i / 8] &= (__u8)~(0x80U >> (i % 8));
}

/* ::ffff:a.b.c.d is a.b.c.d, and ::ffff:a.b.c.0/120 is a.b.c.0/24. */
static bool unmap_ipv4(struct bb_entry *e, unsigned int *bits)
{
	static const __u8 mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (memcmp(e->addr, mapped, sizeof(mapped)) || e->plen < 96)
		return false;
	memmove(e->addr, e->addr + 12, 4);
	memset(e->addr + 4, 0, 12);
	e->kind = BB_ENTRY_IP4;
	e->plen -= 96;
	*bits = 32;
	return true;
}

/*
 * An address with an optional /prefix, strictly (inet_pton: no leading zeros, no
 * short forms). Host bits are cleared: lists write 192.0.2.1/24 for 192.0.2.0/24.
 * A zone id (fe80::1%lo0) is accepted only when allow_zone, and dropped.
 */
int parse_addr(const char *s, size_t len, struct bb_entry *e, bool allow_zone, const char **why)
{
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash = mem_find(s, len, '/');
	const char *pct = mem_find(s, len, '%');
	size_t alen = slash ? (size_t)(slash - s) : len;
	unsigned int plen = 0, bits;
	size_t i;

	memset(e, 0, sizeof(*e));
	if (pct && (!allow_zone || slash))
		return reject(BB_REJECT_BAD_ADDRESS, why, "address with a zone id (%...)");
	if (pct)
		alen = (size_t)(pct - s);
	if (alen == 0 || alen >= sizeof(buf))
		return reject(BB_REJECT_BAD_ADDRESS, why, "not a valid IP address");
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	if (inet_pton(AF_INET, buf, e->addr) == 1) {
		e->kind = BB_ENTRY_IP4;
		bits = 32;
	} else if (inet_pton(AF_INET6, buf, e->addr) == 1) {
		e->kind = BB_ENTRY_IP6;
		bits = 128;
	} else {
		return reject(BB_REJECT_BAD_ADDRESS, why, "not a valid IP address");
	}
	e->plen = (__u8)bits;
	if (slash) {
		len -= alen + 1;
		s = slash + 1;
		if (len == 0 || len > 3)
			return reject(BB_REJECT_BAD_ADDRESS, why, "bad CIDR prefix length");
		for (i = 0; i < len; i++) {
			if (!is_digit(s[i]))
				return reject(BB_REJECT_BAD_ADDRESS, why, "bad CIDR prefix length");
			plen = plen * 10 + (unsigned int)(s[i] - '0');
		}
		if (plen > bits || (len > 1 && s[0] == '0'))
			return reject(BB_REJECT_BAD_ADDRESS, why, "CIDR prefix length out of range");
		e->plen = (__u8)plen;
	}
	if (e->kind == BB_ENTRY_IP6)
		unmap_ipv4(e, &bits);
	mask_addr(e->addr, e->plen, bits);
	return 0;
}

bool addr_is_sinkhole(const struct bb_entry *e)
{
	static const __u8 zero[16], loop6[16] = { [15] = 1 };
	static const __u8 loop4[4] = { 127, 0, 0, 1 };

	if (e->kind == BB_ENTRY_IP4)
		return !memcmp(e->addr, zero, 4) || !memcmp(e->addr, loop4, 4);
	return !memcmp(e->addr, zero, 16) || !memcmp(e->addr, loop6, 16);
}

bool addr_is_local(const struct bb_entry *e)
{
	static const __u8 zero[16], loop6[16] = { [15] = 1 };
	const __u8 *a = e->addr;

	if (e->kind == BB_ENTRY_IP4)
		return a[0] == 0 || a[0] == 127 || a[0] == 10 || (a[0] == 172 && (a[1] & 0xf0) == 16) ||
		       (a[0] == 192 && a[1] == 168) || (a[0] == 169 && a[1] == 254) ||
		       (a[0] == 100 && (a[1] & 0xc0) == 64) || a[0] >= 224;
	return !memcmp(a, zero, 16) || !memcmp(a, loop6, 16) || (a[0] == 0xfe && (a[1] & 0xc0) == 0x80) ||
	       (a[0] & 0xfe) == 0xfc || a[0] == 0xff;
}

/* An address as a number, for comparing range ends and cutting ranges into CIDRs. */
static unsigned __int128 addr_value(const __u8 *addr, unsigned int bytes)
{
	unsigned __int128 v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++)
		v = v << 8 | addr[i];
	return v;
}

/* A whole address, valid or not: a dotted quad's shape, or IPv6's. */
static bool looks_address(const char *s, size_t len)
{
	size_t dots = 0, i;

	if (looks_ipv6(s, len))
		return !mem_find(s, len, '%');
	if (!looks_ipv4(s, len) || mem_find(s, len, '/'))
		return false;
	for (i = 0; i < len; i++)
		dots += s[i] == '.';
	return dots == 3;
}

int parse_range(const char *s, size_t len, struct bb_entry *first, struct bb_entry *last,
		int *err, const char **why)
{
	const char *dash = mem_find(s, len, '-'), *a_end, *b;
	size_t alen, blen;

	if (!dash)
		return 0;
	for (a_end = dash; a_end > s && is_space(a_end[-1]); a_end--)
		;
	for (b = dash + 1; b < s + len && is_space(*b); b++)
		;
	alen = (size_t)(a_end - s);
	blen = (size_t)(s + len - b);
	if (!looks_address(s, alen) || !looks_address(b, blen))
		return 0;	/* not two addresses: a name (1-800-x.example) */
	*err = parse_addr(s, alen, first, false, why);
	if (!*err)
		*err = parse_addr(b, blen, last, false, why);
	if (*err)
		return 1;
	if (first->kind != last->kind)
		*err = reject(BB_REJECT_BAD_ADDRESS, why,
			      "bad address range: its ends are of two address families");
	else if (addr_value(first->addr, 16) > addr_value(last->addr, 16))
		*err = reject(BB_REJECT_BAD_ADDRESS, why, "bad address range: its end is below its start");
	return 1;
}

/* 2^bits - 1, for bits up to 128. */
static unsigned __int128 low_mask(unsigned int bits)
{
	return bits >= 128 ? ~(unsigned __int128)0 : ((unsigned __int128)1 << bits) - 1;
}

int add_range(struct bb_list *list, const struct bb_entry *first, const struct bb_entry *last)
{
	unsigned int bits = first->kind == BB_ENTRY_IP4 ? 32 : 128, bytes = bits / 8, size, i;
	unsigned __int128 lo = addr_value(first->addr, bytes), hi = addr_value(last->addr, bytes);
	struct bb_entry e = *first;
	int err;

	list->counts.ranges++;
	for (;;) {
		/* the largest block aligned at lo that ends at hi or before, in host bits */
		for (size = 0; size < bits; size++)
			if ((lo & low_mask(size + 1)) || hi - lo < low_mask(size + 1))
				break;
		e.plen = (__u8)(bits - size);
		for (i = 0; i < bytes; i++)
			e.addr[i] = (__u8)(lo >> (8 * (bytes - 1 - i)));
		err = add_counted(list, &e);
		if (err < 0)
			return err;
		if (hi - lo <= low_mask(size))
			return 1;
		lo += low_mask(size) + 1;
	}
}

/* ---- names and URLs ---- */

/* A canonical name; in a list a single label would match a whole TLD. */
int parse_name(const char *s, size_t len, struct bb_entry *e, char *text, size_t size,
	       bool list_mode, const char **why)
{
	int err;

	memset(e, 0, sizeof(*e));
	err = bb_name_canonical(s, len, text, size, why);
	if (err)
		return err;
	if (list_mode && !strchr(text, '.'))
		return reject(BB_REJECT_SINGLE_LABEL, why,
			      "single-label name would match a whole top-level domain");
	e->kind = BB_ENTRY_NAME;
	e->text = text;
	return 0;
}

/*
 * host + path (+ query) as one URL entry: "host/path?query", host canonical, path and
 * query byte for byte. An empty path or "/" alone lists the whole site: still a URL
 * entry (cleartext HTTP to that host), unless bare_is_host (Adblock's ||host^, which
 * blocks the host outright).
 */
static int host_path_entry(const char *host, size_t hlen, const char *path, size_t plen,
			   struct bb_entry *e, char *text, size_t size, bool list_mode,
			   bool bare_is_host, const char **why)
{
	char hostbuf[BB_NAME_MAX + 3];
	bool slash, bare;
	size_t tlen, i;
	int err;

	if (hlen == 0)
		return reject(BB_REJECT_SYNTAX, why, "URL without a host");
	for (i = 0; i < plen; i++)
		if ((unsigned char)path[i] <= ' ' || path[i] == 0x7f)
			return reject(BB_REJECT_SYNTAX, why, "control character in URL");
	bare = plen == 0 || (plen == 1 && path[0] == '/');
	if (host[0] == '[' || looks_ipv4(host, hlen)) {
		bool v6 = host[0] == '[';
		char abuf[INET6_ADDRSTRLEN];

		if (v6 && (hlen < 3 || host[hlen - 1] != ']'))
			return reject(BB_REJECT_BAD_ADDRESS, why, "bad IPv6 literal in URL");
		err = parse_addr(v6 ? host + 1 : host, v6 ? hlen - 2 : hlen, e, false, why);
		if (err)
			return err;
		if (e->plen != (e->kind == BB_ENTRY_IP4 ? 32 : 128))
			return reject(BB_REJECT_BAD_ADDRESS, why, "bad IP literal in URL host");
		if (bare && bare_is_host)
			return 0;
		/* The host text of an IP literal is its canonical form, IPv6 in brackets. */
		inet_ntop(e->kind == BB_ENTRY_IP6 ? AF_INET6 : AF_INET, e->addr, abuf,
			  sizeof(abuf));
		snprintf(hostbuf, sizeof(hostbuf), e->kind == BB_ENTRY_IP6 ? "[%s]" : "%s", abuf);
	} else if (bare && bare_is_host) {
		return parse_name(host, hlen, e, text, size, list_mode, why);
	} else {
		err = parse_name(host, hlen, e, hostbuf, sizeof(hostbuf), list_mode, why);
		if (err)
			return err;
	}
	memset(e, 0, sizeof(*e));
	slash = plen == 0 || path[0] != '/';
	tlen = strlen(hostbuf) + slash + plen;
	if (tlen > TEXT_MAX)
		return reject(BB_REJECT_TOO_LONG, why, "URL longer than 255 bytes");
	if (tlen + 1 > size)
		return reject(BB_REJECT_TOO_LONG, why, "URL longer than the text buffer");
	i = strlen(hostbuf);
	memcpy(text, hostbuf, i);
	if (slash)
		text[i++] = '/';
	memcpy(text + i, path, plen);
	text[tlen] = '\0';
	e->kind = BB_ENTRY_URL;
	e->text = text;
	return 0;
}

/* http://[user@]host[:port]/path?query#fragment */
static int parse_url(const char *s, size_t len, struct bb_entry *e, char *text, size_t size,
		     bool list_mode, const char **why)
{
	const char *p = mem_find(s, len, ':'), *end = s + len, *auth, *auth_end, *host, *host_end;
	const char *at, *q, *frag;

	if (!has_prefix_ci(s, len, "http://") && !has_prefix_ci(s, len, "https://"))
		return reject(BB_REJECT_SYNTAX, why, "URL scheme is not http or https");
	auth = p + 3;
	for (auth_end = auth; auth_end < end; auth_end++)
		if (*auth_end == '/' || *auth_end == '?' || *auth_end == '#')
			break;
	host = auth;
	for (at = auth; at < auth_end; at++)
		if (*at == '@')
			host = at + 1;
	host_end = auth_end;
	if (host < host_end && host[0] == '[') {
		q = mem_find(host, (size_t)(host_end - host), ']');
		if (!q)
			return reject(BB_REJECT_BAD_ADDRESS, why, "bad IPv6 literal in URL");
		p = q + 1;
	} else {
		p = mem_find(host, (size_t)(host_end - host), ':') ?: host_end;
	}
	if (p < host_end) {
		/* A port: the host is listed whatever port it serves on. */
		if (*p != ':' || p + 1 == host_end)
			return reject(BB_REJECT_SYNTAX, why, "bad port in URL");
		for (q = p + 1; q < host_end; q++)
			if (!is_digit(*q))
				return reject(BB_REJECT_SYNTAX, why, "bad port in URL");
		host_end = p;
	}
	frag = mem_find(auth_end, (size_t)(end - auth_end), '#');
	if (frag)
		end = frag;
	return host_path_entry(host, (size_t)(host_end - host), auth_end,
			       (size_t)(end - auth_end), e, text, size, list_mode, false, why);
}

/* Every $option is one that keeps the rule meaning "all of this host/path". */
static bool adblock_options_whole(const char *s, size_t len)
{
	size_t i, n;

	while (len) {
		const char *comma = mem_find(s, len, ',');
		size_t olen = comma ? (size_t)(comma - s) : len;
		bool ok = false;

		for (i = 0; i < sizeof(adblock_whole_options) / sizeof(adblock_whole_options[0]);
		     i++) {
			n = strlen(adblock_whole_options[i]);
			if (olen == n && !strncasecmp(s, adblock_whole_options[i], n))
				ok = true;
		}
		if (!ok)
			return false;
		if (!comma)
			return true;
		s = comma + 1;
		len -= olen + 1;
	}
	return false;	/* "$" with nothing after it */
}

/* ||host^, ||host/path^, options after $. */
static int parse_adblock_anchored(const char *s, size_t len, struct bb_entry *e, char *text,
				  size_t size, bool list_mode, const char **why)
{
	const char *dollar = NULL, *host_end;
	size_t i;

	s += 2;
	len -= 2;
	for (i = len; i > 0; i--) {
		if (s[i - 1] == '$') {
			dollar = s + i - 1;
			break;
		}
	}
	if (dollar) {
		if (!adblock_options_whole(dollar + 1, (size_t)(s + len - dollar - 1)))
			return reject(BB_REJECT_OPTIONS, why, "Adblock options narrow the rule: "
				      "blocking the whole host would over-block");
		len = (size_t)(dollar - s);
	}
	/* A trailing end anchor, then the separator that ends a host or a path. */
	if (len && s[len - 1] == '|')
		len--;
	if (len && s[len - 1] == '^')
		len--;
	if (len == 0)
		return reject(BB_REJECT_SYNTAX, why, "empty Adblock rule");
	if (mem_has_any(s, len, "*^|"))
		return reject(BB_REJECT_PATTERN, why, "Adblock wildcard pattern");
	host_end = s;
	if (s[0] == '[') {
		/* ||[2001:db8::1]^: the colons are the address's */
		host_end = mem_find(s, len, ']');
		if (!host_end)
			return reject(BB_REJECT_BAD_ADDRESS, why, "bad IPv6 literal in Adblock rule");
		host_end++;
	}
	for (; host_end < s + len; host_end++)
		if (*host_end == '/' || *host_end == '?' || *host_end == ':')
			break;
	if (host_end < s + len && *host_end == ':')
		return reject(BB_REJECT_PATTERN, why, "Adblock rule for one port");
	return host_path_entry(s, (size_t)(host_end - s), host_end, (size_t)(s + len - host_end), e,
			       text, size, list_mode, true, why);
}

int parse_entry(const char *s, size_t len, struct bb_entry *e, char *text, size_t size,
		bool list_mode, bool adblock, const char **why)
{
	const char *slash, *colon;
	int err;

	memset(e, 0, sizeof(*e));
	if (len >= 2 && s[0] == '|' && s[1] == '|')
		return parse_adblock_anchored(s, len, e, text, size, list_mode, why);
	if (s[0] == '|') {
		/* |http://x/path| is a URL when it has no wildcard, separator or option. */
		s++;
		len--;
		if (len && s[len - 1] == '|')
			len--;
		if (len && s[len - 1] == '^')
			len--;
		if (mem_has_any(s, len, "*^|$") || !mem_find(s, len, ':'))
			return reject(BB_REJECT_PATTERN, why, "Adblock anchored pattern");
		return parse_url(s, len, e, text, size, list_mode, why);
	}
	colon = mem_find(s, len, ':');
	if (colon && (size_t)(s + len - colon) >= 3 && !memcmp(colon, "://", 3)) {
		/* "=ws://" with a wildcard after it is a URL-part pattern, not a URL. */
		if (mem_has_any(s, (size_t)(colon - s), "*^|$=?/"))
			return reject(BB_REJECT_PATTERN, why, "Adblock URL-part pattern");
		return parse_url(s, len, e, text, size, list_mode, why);
	}
	if (looks_ipv4(s, len) || looks_ipv6(s, len))
		return parse_addr(s, len, e, false, why);
	if (len > 2 && s[0] == '*' && s[1] == '.' && !mem_has_any(s + 2, len - 2, "*^|$/?")) {
		err = parse_name(s + 2, len - 2, e, text, size, list_mode, why);
		if (!err)
			e->flags = BB_ENTRY_F_SUBDOMAINS_ONLY;
		return err;
	}
	/*
	 * In a list, a token that starts like a URL fragment (-coin-hive.js, /ads/) is an
	 * Adblock pattern; one that starts with '_' is a name (_dmarc.example), but for
	 * Adblock lists, which write fragments so.
	 */
	if (mem_has_any(s, len, "*^|$") ||
	    (list_mode && (strchr("-./?=&:", s[0]) || (adblock && s[0] == '_'))))
		return reject(BB_REJECT_PATTERN, why, "Adblock URL-part pattern");
	slash = mem_find(s, len, '/');
	if (!slash)
		slash = mem_find(s, len, '?');
	if (slash)
		return host_path_entry(s, (size_t)(slash - s), slash, (size_t)(s + len - slash), e,
				       text, size, list_mode, false, why);
	return parse_name(s, len, e, text, size, list_mode, why);
}

int bb_list_parse_item(const char *item, struct bb_entry *entry, char *text_buf, size_t text_size,
		       const char **why)
{
	size_t len = strlen(item);

	while (len && is_space(*item)) {
		item++;
		len--;
	}
	while (len && is_space(item[len - 1]))
		len--;
	memset(entry, 0, sizeof(*entry));
	if (!len)
		return reject(BB_REJECT_SYNTAX, why, "empty item");
	if (len > LINE_MAX_BYTES)
		return reject(BB_REJECT_TOO_LONG, why, "item longer than 4096 bytes");
	return parse_entry(item, len, entry, text_buf, text_size, false, false, why);
}

/* ---- text for people ---- */

/* The length of the valid UTF-8 sequence at s (1..4), or 0: not one, or a C1 control. */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	__u32 cp;
	size_t n, i;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;	/* continuation bytes, overlong leads, past U+10FFFF */
	n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	if (left < n)
		return 0;
	cp = s[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return n;
}

size_t bb_escape_text(const char *in, size_t len, char *out, size_t size)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, o = 0;

	if (!size)
		return 0;
	while (i < len) {
		size_t n = s[i] >= 0x80 ? utf8_len(s + i, len - i) : 0;

		if (n) {
			if (o + n >= size)
				break;
			memcpy(out + o, s + i, n);
			o += n;
			i += n;
		} else if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\') {
			if (o + 1 >= size)
				break;
			out[o++] = (char)s[i++];
		} else {
			if (o + 4 >= size)
				break;
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", s[i++]);
		}
	}
	out[o] = '\0';
	return i;
}

/* ---- names of it all ---- */

const char *bb_entry_kind_name(enum bb_entry_kind kind)
{
	static const char *const names[BB_ENTRY_KIND_MAX] = {
		[BB_ENTRY_IP4] = "ipv4",
		[BB_ENTRY_IP6] = "ipv6",
		[BB_ENTRY_NAME] = "name",
		[BB_ENTRY_URL] = "url",
	};

	return (unsigned int)kind < BB_ENTRY_KIND_MAX ? names[kind] : "unknown";
}

const char *bb_reject_reason_name(enum bb_reject_reason reason)
{
	static const char *const names[BB_REJECT_REASON_MAX] = {
		[BB_REJECT_SYNTAX] = "syntax",
		[BB_REJECT_BAD_ADDRESS] = "bad_address",
		[BB_REJECT_BAD_NAME] = "bad_name",
		[BB_REJECT_SINGLE_LABEL] = "single_label",
		[BB_REJECT_EXCEPTION] = "exception",
		[BB_REJECT_OPTIONS] = "options",
		[BB_REJECT_COSMETIC] = "cosmetic",
		[BB_REJECT_PATTERN] = "pattern",
		[BB_REJECT_TOO_LONG] = "too_long",
		[BB_REJECT_IP_AS_NAME] = "ip_as_name",
		[BB_REJECT_HOSTS_MAPPING] = "hosts_mapping",
		[BB_REJECT_UNSUPPORTED] = "unsupported",
		[BB_REJECT_TOO_WIDE] = "too_wide",
	};

	return (unsigned int)reason < BB_REJECT_REASON_MAX ? names[reason] : "unknown";
}

const char *bb_skip_reason_name(enum bb_skip_reason reason)
{
	static const char *const names[BB_SKIP_REASON_MAX] = {
		[BB_SKIP_DIRECTIVE] = "directive",
		[BB_SKIP_ANSWER] = "answer",
		[BB_SKIP_TRIGGER] = "trigger",
		[BB_SKIP_OTHER_SET] = "other_set",
	};

	return (unsigned int)reason < BB_SKIP_REASON_MAX ? names[reason] : "unknown";
}

const char *bb_line_class_name(enum bb_line_class class)
{
	static const char *const names[BB_CLASS_MAX] = {
		[BB_CLASS_PREAMBLE] = "hosts-file preamble",
		[BB_CLASS_SKIPPED] = "skipped",
		[BB_CLASS_REJECTED] = "rejected",
	};

	return (unsigned int)class < BB_CLASS_MAX ? names[class] : "unknown";
}

static const char *const format_names[BB_FORMAT_MAX] = {
	[BB_FORMAT_AUTO] = "auto",
	[BB_FORMAT_PLAIN] = "plain",
	[BB_FORMAT_HOSTS] = "hosts",
	[BB_FORMAT_ADBLOCK] = "adblock",
	[BB_FORMAT_P2P] = "p2p",
	[BB_FORMAT_DNSMASQ] = "dnsmasq",
	[BB_FORMAT_UNBOUND] = "unbound",
	[BB_FORMAT_RPZ] = "rpz",
	[BB_FORMAT_JSON] = "json",
	[BB_FORMAT_CSV] = "csv",
	[BB_FORMAT_IPSET] = "ipset",
};

const char *bb_list_format_name(enum bb_list_format format)
{
	return (unsigned int)format < BB_FORMAT_MAX ? format_names[format] : "unknown";
}

int bb_list_format_parse(const char *name)
{
	int i;

	for (i = 0; i < BB_FORMAT_MAX; i++)
		if (!strcasecmp(name, format_names[i]))
			return i;
	return -1;
}

const char *bb_compression_name(enum bb_compression compression)
{
	static const char *const names[BB_COMPRESSION_MAX] = {
		[BB_COMPRESSION_NONE] = "none",
		[BB_COMPRESSION_GZIP] = "gzip",
		[BB_COMPRESSION_XZ] = "xz",
		[BB_COMPRESSION_ZSTD] = "zstd",
	};

	return (unsigned int)compression < BB_COMPRESSION_MAX ? names[compression] : "unknown";
}

void bb_entry_text(const struct bb_entry *e, char *buf, size_t size)
{
	char addr[INET6_ADDRSTRLEN];

	switch (e->kind) {
	case BB_ENTRY_IP4:
	case BB_ENTRY_IP6:
		inet_ntop(e->kind == BB_ENTRY_IP4 ? AF_INET : AF_INET6, e->addr, addr, sizeof(addr));
		if (e->plen == (e->kind == BB_ENTRY_IP4 ? 32 : 128))
			snprintf(buf, size, "%s", addr);
		else
			snprintf(buf, size, "%s/%u", addr, e->plen);
		break;
	case BB_ENTRY_URL:
		snprintf(buf, size, "http://%s", e->text);	/* not read as a CIDR */
		break;
	default:
		snprintf(buf, size, "%s%s", e->flags & BB_ENTRY_F_SUBDOMAINS_ONLY ? "*." : "",
			 e->text);
		break;
	}
}

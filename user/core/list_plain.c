/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Plain lines: what plain lists, hosts files and Adblock lists hold, one parser for all
 * three because real lists mix them (URLhaus's uBlock list has bare addresses among
 * its Adblock rules); and PeerGuardian's P2P lines.
 */
#include <stdlib.h>

#include "list_int.h"

/* Names that every hosts file starts with: the machine's own, not block entries. */
static const char *const hosts_preamble[] = {
	"localhost", "localhost.localdomain", "local", "broadcasthost", "ip6-localhost",
	"ip6-loopback", "ip6-localnet", "ip6-mcastprefix", "ip6-allnodes", "ip6-allrouters",
	"ip6-allhosts", "0.0.0.0",
};

static bool is_hosts_preamble(const char *s, size_t len)
{
	size_t i;

	if (len && s[len - 1] == '.')
		len--;
	for (i = 0; i < sizeof(hosts_preamble) / sizeof(hosts_preamble[0]); i++)
		if (strlen(hosts_preamble[i]) == len && !strncasecmp(s, hosts_preamble[i], len))
			return true;
	return false;
}

/* Strip an inline comment: " #..." or " ;..." after an entry. */
static size_t strip_inline_comment(const char *s, size_t len)
{
	size_t i;

	for (i = 1; i < len; i++)
		if ((s[i] == '#' || s[i] == ';') && is_space(s[i - 1]))
			return i;
	return len;
}

/* example.com##.ad, ##, #@#, #?#, #$#, #%# and their #@ exceptions. */
static bool is_cosmetic(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i++) {
		if (s[i] != '#')
			continue;
		if (s[i + 1] == '#')
			return true;
		if (i + 2 < len && strchr("@?$%", s[i + 1]) && s[i + 1] && s[i + 2] == '#')
			return true;
		if (i + 3 < len && s[i + 1] == '@' && strchr("?$%", s[i + 2]) && s[i + 2] &&
		    s[i + 3] == '#')
			return true;
	}
	return false;
}

/* A token a hosts file could mean as a name: name bytes with a letter (or IDN). */
static bool name_shaped(const char *s, size_t len, bool *dotted)
{
	bool letter = false;
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
			letter = true;
		else if (c >= 0x80)
			letter = true;
		else if (c == '.')
			*dotted |= i + 1 < len;
		else if (!is_digit((char)c) && c != '-' && c != '_')
			return false;
	}
	return letter;
}

/* The tokens after a hosts-style address are names (and at least one is dotted). */
static bool rest_is_names(const char *rest, const char *end, bool *dotted)
{
	const char *tok;
	size_t n;
	bool any = false;

	*dotted = false;
	while ((n = next_token(&rest, end, &tok))) {
		if (!name_shaped(tok, n, dotted))
			return false;
		any = true;
	}
	return any;
}

/* 255.255.255.0 and its kin: 1: a netmask (*plen), 0: not one. */
static int netmask_plen(const char *s, size_t len, unsigned int *plen)
{
	struct bb_entry m;
	__u32 v;

	if (!looks_ipv4(s, len) || mem_find(s, len, '/') || parse_addr(s, len, &m, false, NULL) ||
	    m.kind != BB_ENTRY_IP4)
		return 0;
	v = (__u32)m.addr[0] << 24 | (__u32)m.addr[1] << 16 | (__u32)m.addr[2] << 8 | m.addr[3];
	if (v & (~v >> 1))
		return 0;	/* a 1 after a 0: not contiguous (0 is fine: /0) */
	*plen = (unsigned int)__builtin_popcount(v);
	return 1;
}

/* A sinkhole line's names: each one an entry. */
static int parse_hosts_names(struct bb_list *list, const char *rest, const char *end,
			     const char **why)
{
	char text[BB_NAME_MAX + 1];
	const char *tok, *hash;
	struct bb_entry e;
	bool any = false;
	int first_err = 0, err;
	size_t tlen;

	while ((tlen = next_token(&rest, end, &tok))) {
		/* In a hosts file '#' starts a comment anywhere. */
		hash = mem_find(tok, tlen, '#');
		if (hash)
			tlen = (size_t)(hash - tok);
		if (tlen == 0)
			break;
		if (is_hosts_preamble(tok, tlen)) {
			count_preamble(list);
		} else if (looks_ipv4(tok, tlen) || looks_ipv6(tok, tlen)) {
			err = reject(BB_REJECT_IP_AS_NAME, why,
				     "hosts line names an IP address, not a host");
			count_reject(list, err);
			first_err = first_err ?: err;
		} else if (!mem_find(tok, tlen - (tok[tlen - 1] == '.'), '.')) {
			/* A single label is the machine's own name (hercules, wpad), or a TLD. */
			count_preamble(list);
		} else {
			err = parse_name(tok, tlen, &e, text, sizeof(text), true, why);
			if (err) {
				count_reject(list, err);
				first_err = first_err ?: err;
			} else {
				err = add_counted(list, &e);
				if (err < 0)
					return err;
				any = true;
			}
		}
		if (hash)
			break;
	}
	return first_err ?: any;
}

/*
 * ADDR followed by more: a hosts line when ADDR is a sinkhole (0.0.0.0 name...); a
 * local name's mapping (127.0.1.1 hercules, ff02::1 ip6-allnodes) when ADDR is local
 * and names follow; a mapping of names to a public address, which blocks nothing,
 * rejected so that it is seen; ADDR NETMASK; or else ADDR (or a CIDR, or a range)
 * with data after it (a score, a date, a reason): the address is the entry.
 */
static int parse_address_fields(struct bb_list *list, const char *tok, size_t tlen,
				const char *rest, const char *end, const char **why)
{
	struct bb_entry e, last;
	unsigned int plen;
	const char *t2, *p;
	bool dotted, names;
	size_t n2;
	int err;

	if (parse_range(tok, tlen, &e, &last, &err, why))
		return err ? count_reject(list, err) : add_range(list, &e, &last);
	err = parse_addr(tok, tlen, &e, true, why);
	if (err)
		return count_reject(list, err);
	if (mem_find(tok, tlen, '/'))
		return add_counted(list, &e);	/* a prefix is no hosts line: data follows */
	names = rest_is_names(rest, end, &dotted);
	if (addr_is_sinkhole(&e) && !mem_find(tok, tlen, '%'))
		return parse_hosts_names(list, rest, end, why);
	if (names && addr_is_local(&e))
		return count_preamble(list);
	if (mem_find(tok, tlen, '%'))
		return count_reject(list, reject(BB_REJECT_BAD_ADDRESS, why,
						 "address with a zone id (%...)"));
	if (names && dotted)
		return count_reject(list, reject(BB_REJECT_HOSTS_MAPPING, why,
						 "hosts line maps names to a public address, not "
						 "a sinkhole (0.0.0.0): not a block"));
	p = rest;
	n2 = next_token(&p, end, &t2);
	if (e.kind == BB_ENTRY_IP4 && e.plen == 32 && netmask_plen(t2, n2, &plen) &&
	    !next_token(&p, end, &t2)) {
		e.plen = (__u8)plen;
		mask_addr(e.addr, plen, 32);
	}
	return add_counted(list, &e);
}

/* A sinkhole address alone, in a hosts file: a hosts line with no name (a disabled one). */
static bool bare_sinkhole(const struct bb_entry *e)
{
	return (e->kind == BB_ENTRY_IP4 || e->kind == BB_ENTRY_IP6) &&
	       e->plen == (e->kind == BB_ENTRY_IP4 ? 32 : 128) && addr_is_sinkhole(e);
}

/* An address followed by a field separator (1.2.3.4,2021-01-05,...): its length, or 0. */
static size_t address_before_separator(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == ',' || s[i] == ';' || s[i] == '|')
			break;
		if (!is_hex(s[i]) && s[i] != '.' && s[i] != ':' && s[i] != '/')
			return 0;
	}
	return i < len && (looks_ipv4(s, i) || looks_ipv6(s, i)) ? i : 0;
}

/*
 * One token: a range, a bracketed IPv6 address, or any entry. In a hosts file a
 * sinkhole address alone is a line whose names were commented out.
 */
static int token_entry(struct bb_list *list, const char *s, size_t len, bool adblock,
		       bool hosts, const char **why)
{
	char text[BB_KEY_MAX + 1];
	struct bb_entry e, last;
	size_t alen;
	int err;

	if (parse_range(s, len, &e, &last, &err, why))
		return err ? count_reject(list, err) : add_range(list, &e, &last);
	alen = address_before_separator(s, len);
	if (alen)
		len = alen;	/* a CSV remainder after an address: data */
	if (len >= 2 && s[0] == '[' && s[len - 1] == ']')
		err = parse_addr(s + 1, len - 2, &e, false, why);
	else
		err = parse_entry(s, len, &e, text, sizeof(text), true, adblock, why);
	if (err)
		return count_reject(list, err);
	if (hosts && bare_sinkhole(&e))
		return count_preamble(list);
	return add_counted(list, &e);
}

int add_token(struct bb_list *list, const char *s, size_t len, const char **why)
{
	while (len && is_space(*s)) {
		s++;
		len--;
	}
	while (len && is_space(s[len - 1]))
		len--;
	if (!len)
		return count_reject(list, reject(BB_REJECT_SYNTAX, why, "empty value"));
	if (len > LINE_MAX_BYTES)
		return count_reject(list, reject(BB_REJECT_TOO_LONG, why,
						 "value longer than 4096 bytes"));
	if (memchr(s, '\0', len))
		return count_reject(list, reject(BB_REJECT_SYNTAX, why, "NUL byte in value"));
	return token_entry(list, s, len, false, false, why);
}

/*
 * Bytes of a hostname as lists write it (what name_check() accepts, in any case),
 * by class: any such byte, a digit or dot (an IPv4 address has only those), a dot,
 * an upper-case letter.
 */
enum { PLAIN_NAME = 1, PLAIN_IP4 = 2, PLAIN_DOT = 4, PLAIN_UPPER = 8, PLAIN_RANGE = 16,
       PLAIN_DASH = 32 };

/* PLAIN_RANGE: the bytes of an IPv4 range (1.2.3.4-1.2.3.9), which is no name. */
static const __u8 plain_class[256] = {
	['a' ... 'z'] = PLAIN_NAME, ['A' ... 'Z'] = PLAIN_NAME | PLAIN_UPPER,
	['0' ... '9'] = PLAIN_NAME | PLAIN_IP4 | PLAIN_RANGE,
	['.'] = PLAIN_NAME | PLAIN_IP4 | PLAIN_DOT | PLAIN_RANGE,
	['-'] = PLAIN_NAME | PLAIN_RANGE | PLAIN_DASH, ['_'] = PLAIN_NAME,
};

/*
 * A strict dotted quad as inet_pton() reads it; false: anything else. Four parts of
 * one to three digits, no leading zero, none above 255, a dot between them, nothing
 * after: an octet at a time, since most lines of an address list come here.
 */
static bool plain_ip4(const char *s, size_t len, struct bb_entry *e)
{
	const char *p = s, *end = s + len;
	unsigned int part, v;

	memset(e, 0, sizeof(*e));
	for (part = 0; part < 4; part++) {
		if (part && (p == end || *p++ != '.'))
			return false;
		if (p == end || !is_digit(*p))
			return false;
		v = (unsigned int)(*p++ - '0');
		if (v && p < end && is_digit(*p)) {	/* "0" is one digit: "01" is no part */
			v = v * 10 + (unsigned int)(*p++ - '0');
			if (p < end && is_digit(*p))
				v = v * 10 + (unsigned int)(*p++ - '0');
		}
		if ((p < end && is_digit(*p)) || v > 255)
			return false;	/* a leading zero, four digits, or past 255 */
		e->addr[part] = (__u8)v;
	}
	if (p != end)
		return false;
	e->kind = BB_ENTRY_IP4;
	e->plen = 32;
	return true;
}

/*
 * The two line shapes of big lists, a bare IPv4 address and a bare hostname, and
 * nothing else: each gives the entry, or the reject, that the general path gives
 * (see parse_entry() and name_check()), without its scans for comments, Adblock
 * syntax and URLs. One pass over the bytes classifies them, lowercases the name
 * into text and checks its labels; a list is parsed twice when streamed, and
 * this is most of a pass. A reject is only given once every byte is known to be
 * a name byte: any other byte sends the line to the general path, whatever came
 * before it. 1: done, *e or *err set; 0: not this shape, take the general path.
 */
static int parse_plain(const char *s, size_t len, struct bb_entry *e, char *text, size_t size,
		       int *err, const char **why)
{
	size_t name_len = len, label = 0, i;
	const char *loop_why = NULL;
	bool dot = false, copy;
	__u8 all = PLAIN_NAME | PLAIN_IP4 | PLAIN_RANGE, any = 0;

	if (!plain_class[(unsigned char)s[0]] || s[0] == '-' || s[0] == '.' || s[0] == '_')
		return 0;	/* the general path calls some of these patterns */
	if (s[len - 1] == '.')
		name_len--;	/* one trailing dot: the root */
	copy = name_len + 1 <= size;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		__u8 cls = plain_class[c];

		all &= cls;
		any |= cls;
		if (!cls)
			return 0;
		if (copy && i < name_len)
			text[i] = (char)(c | (cls & PLAIN_UPPER) << 2);	/* 'A' | 0x20 = 'a' */
		if (loop_why || i >= name_len)
			continue;
		if (cls & PLAIN_DOT) {
			if (label == 0)
				loop_why = "empty label in name";
			label = 0;
			dot = true;
		} else if (++label > 63) {
			loop_why = "label longer than 63 bytes";
		}
	}
	if ((all & PLAIN_RANGE) && (any & PLAIN_DASH))
		return 0;	/* maybe a range: the general path knows */
	if (all & PLAIN_IP4) {
		if (!plain_ip4(s, len, e))
			return 0;
		*err = 0;
		return 1;
	}
	memset(e, 0, sizeof(*e));
	if (name_len == 0)
		*err = reject(BB_REJECT_BAD_NAME, why, "empty name");
	else if (name_len > BB_NAME_MAX)
		*err = reject(BB_REJECT_BAD_NAME, why, "name longer than 253 bytes");
	else if (!copy)
		*err = reject(BB_REJECT_TOO_LONG, why, "name longer than the output buffer");
	else if (loop_why || label == 0)
		*err = reject(BB_REJECT_BAD_NAME, why, loop_why ?: "empty label in name");
	else if (!dot)
		*err = reject(BB_REJECT_SINGLE_LABEL, why,
			      "single-label name would match a whole top-level domain");
	else
		*err = 0;
	if (*err)
		return 1;
	text[name_len] = '\0';
	e->kind = BB_ENTRY_NAME;
	e->text = text;
	return 1;
}

bool adblock_header(const char *s, size_t len)
{
	bool letter = false;
	size_t i;

	if (len < 3 || s[0] != '[' || s[len - 1] != ']')
		return false;
	for (i = 1; i + 1 < len; i++) {
		char c = s[i];

		if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
			letter = true;
		else if (!is_digit(c) && !strchr(" .+-_", c))
			return false;
	}
	return letter;
}


int plain_parse_line(struct bb_list *list, const char *s, size_t len,
		     enum bb_list_format format, const char **why)
{
	bool adblock = format == BB_FORMAT_ADBLOCK, hosts = format == BB_FORMAT_HOSTS;
	char text[BB_KEY_MAX + 1];
	struct bb_entry e;
	const char *tok_end;
	int err;

	if (len > LINE_MAX_BYTES)
		return count_reject(list, reject(BB_REJECT_TOO_LONG, why,
						 "line longer than 4096 bytes"));
	if (len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3)) {
		s += 3;
		len -= 3;
	}
	while (len && is_space(*s)) {
		s++;
		len--;
	}
	while (len && is_space(s[len - 1]))
		len--;
	if (!len) {
		list->counts.blank++;
		return 0;
	}
	/*
	 * A bare IPv4 address, most lines of an address list, is a strict dotted quad:
	 * what parse_plain() makes of one, without classing its bytes first. Anything
	 * else starting with a digit (a CIDR, a range, a name) goes on as before.
	 */
	if (is_digit(s[0]) && plain_ip4(s, len, &e))
		return hosts && bare_sinkhole(&e) ? count_preamble(list) : add_counted(list, &e);
	/* the fast path takes name bytes only: a line with a NUL never passes it */
	if (parse_plain(s, len, &e, text, sizeof(text), &err, why)) {
		if (!err && hosts && bare_sinkhole(&e))
			return count_preamble(list);
		return err ? count_reject(list, err) : add_counted(list, &e);
	}
	if (memchr(s, '\0', len))
		return count_reject(list, reject(BB_REJECT_SYNTAX, why, "NUL byte in line"));
	if (s[0] == '#' || s[0] == ';' || s[0] == '!' || adblock_header(s, len)) {
		list->counts.comments++;
		return 0;
	}
	if (len >= 2 && s[0] == '@' && s[1] == '@') {
		struct list_priv *p = list_priv(list);

		if (len == 2 || s[2] == '@')
			return count_reject(list, reject(BB_REJECT_EXCEPTION, why,
							 "an exception (@@) of nothing"));
		/* @@rule: what the rule would block, an allowlist entry */
		p->allow_line = true;
		err = plain_parse_line(list, s + 2, len - 2, format, why);
		p->allow_line = false;
		return err;
	}
	len = strip_inline_comment(s, len);
	while (len && is_space(s[len - 1]))
		len--;
	if (is_cosmetic(s, len))
		return count_reject(list, reject(BB_REJECT_COSMETIC, why,
						 "Adblock element-hiding rule"));
	for (tok_end = s; tok_end < s + len && !is_space(*tok_end); tok_end++)
		;
	if (tok_end < s + len) {
		size_t tlen = (size_t)(tok_end - s);
		struct bb_entry last;

		/* "A - B": a range written with spaces */
		if (parse_range(s, len, &e, &last, &err, why))
			return err ? count_reject(list, err) : add_range(list, &e, &last);
		if (looks_ipv4(s, tlen) || looks_ipv6(s, tlen) ||
		    (mem_find(s, tlen, '-') && parse_range(s, tlen, &e, &last, &err, NULL)))
			return parse_address_fields(list, s, tlen, tok_end, s + len, why);
		if (address_before_separator(s, tlen))
			return token_entry(list, s, tlen, adblock, false, why);
		/* Several fields without an address: an Adblock rule with spaces, or junk. */
		err = 0;
		if (mem_has_any(s, len, "$^*|"))
			err = parse_entry(s, len, &e, text, sizeof(text), true, adblock, why);
		if (!err)
			err = reject(BB_REJECT_SYNTAX, why,
				     "several fields, and the first is not an address");
		return count_reject(list, err);
	}
	return token_entry(list, s, len, adblock, hosts, why);
}

const char *p2p_range(const char *s, size_t len)
{
	const char *colon = NULL, *p;
	size_t i, dots = 0;

	for (i = len; i > 0; i--) {
		if (s[i - 1] == ':') {
			colon = s + i - 1;
			break;
		}
	}
	if (!colon || colon == s)
		return NULL;
	for (p = colon + 1; p < s + len; p++) {
		if (!is_digit(*p) && *p != '.' && *p != '-' && *p != '/' && !is_space(*p))
			return NULL;
		dots += *p == '.';
	}
	p = colon + 1;
	/* a dotted quad, a range of two or a CIDR: not the tail of an IPv6 address */
	return p < s + len && is_digit(*p) && dots >= 3 ? p : NULL;
}

int p2p_parse_line(struct bb_list *list, const char *s, size_t len, const char **why)
{
	struct bb_entry first, last;
	const char *range;
	size_t n = len;
	int err;

	while (n && is_space(s[n - 1]))
		n--;
	range = n && s[0] != '#' && len <= LINE_MAX_BYTES && !memchr(s, '\0', len) ?
		p2p_range(s, n) : NULL;
	if (!range)
		return plain_parse_line(list, s, len, BB_FORMAT_PLAIN, why);
	/* description:A-B, or (as I2P writes them) description:A and description:A/N */
	if (parse_range(range, (size_t)(s + n - range), &first, &last, &err, why)) {
		if (err)
			return count_reject(list, err);
		return add_range(list, &first, &last);
	}
	err = parse_addr(range, (size_t)(s + n - range), &first, false, why);
	if (err)
		return count_reject(list, reject(BB_REJECT_BAD_ADDRESS, why, mem_find(range,
						 (size_t)(s + n - range), '-') ? "bad P2P range" :
						 "bad address after a P2P description"));
	return add_counted(list, &first);
}

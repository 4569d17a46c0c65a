/* SPDX-License-Identifier: GPL-2.0 */
/* Blocklist parsing: every line format we accept, the de-duplication set and the text arena. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "list.h"

#define LINE_MAX_BYTES	4096		/* longer lines are rejected, not truncated */
#define TEXT_MAX	(BB_KEY_MAX - 1)	/* a key is a kind tag plus the text */
#define ARENA_CHUNK	(1U << 20)
#define SET_MIN_SLOTS	64
#define SET_SHARD_BITS	6
#define SET_SHARDS	(1U << SET_SHARD_BITS)
#define REPORT_TEXT_MAX	160		/* bytes of a rejected line echoed in a report */
#define PART_MIN_BYTES	(256U << 10)	/* smaller files are one piece, one thread */
#define PARTS_PER_THREAD 8
#define SCAN_PART_BYTES	(1U << 20)	/* pieces of a file that bb_list_scan_file() cuts */

/* -ENOMEM from bb_list_parse_line must not read as a reject reason. */
_Static_assert(BB_REJECT_REASON_MAX < ENOMEM, "reject codes and -ENOMEM do not overlap");

/*
 * Entry texts live in chunks that never move: entries point into them, so a
 * growing realloc'd buffer would leave those pointers dangling.
 */
struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	char data[];
};

/*
 * The de-duplication set: open addressing, linear probing. A slot holds the top
 * 32 bits of the entry's hash and its index + 1 (0 is an empty slot), so a probe
 * rarely touches an entry and growing never rehashes text. The set is cut into
 * shards by the hash's top bits, each growing on its own, so that parse threads
 * can de-duplicate a file's entries in parallel, one thread per shard, and each
 * shard still sees its entries in file order.
 */
struct set_shard {
	uint64_t *slots;
	size_t nslots, used;
};

struct list_priv {
	struct arena_chunk *arena;
	struct set_shard shards[SET_SHARDS];
	bool part;		/* one parse thread's part of a file: no set, slots kept */
	struct set_shard part_slots[SET_SHARDS];	/* part: slot values by shard, in
							 * order, the index part-local */
	const struct bb_list_sink *sink;	/* a scan: entries go here, not stored */
	unsigned int thread;			/* the scan thread parsing this part */
};

/* Names that every hosts file starts with: the machine's own, not block entries. */
static const char *const hosts_preamble[] = {
	"localhost", "localhost.localdomain", "local", "broadcasthost", "ip6-localhost",
	"ip6-loopback", "ip6-localnet", "ip6-mcastprefix", "ip6-allnodes", "ip6-allrouters",
	"ip6-allhosts", "0.0.0.0",
};

/* Adblock options that do not narrow what a rule blocks. */
static const char *const adblock_whole_options[] = { "all", "document", "doc", "important" };

static int reject(enum bb_reject_reason reason, const char **why, const char *msg)
{
	if (why)
		*why = msg;
	return -(1 + (int)reason);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool has_prefix_ci(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !strncasecmp(s, prefix, n);
}

static const char *mem_find(const char *s, size_t len, char c)
{
	return memchr(s, c, len);
}

static bool mem_has_any(const char *s, size_t len, const char *set)
{
	/* one memchr per wanted byte: vectorised, far faster than strchr per byte */
	for (; *set; set++)
		if (memchr(s, *set, len))
			return true;
	return false;
}

/* ---- addresses ---- */

/* Only digits, dots and a prefix: meant as an IPv4 address, valid or not. */
static bool looks_ipv4(const char *s, size_t len)
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
static bool looks_ipv6(const char *s, size_t len)
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

static void mask_addr(__u8 *addr, unsigned int plen, unsigned int bits)
{
	unsigned int i;

	for (i = plen; i < bits; i++)
		addr[i / 8] &= (__u8)~(0x80U >> (i % 8));
}

/*
 * An address with an optional /prefix, strictly (inet_pton: no leading zeros, no
 * short forms). Host bits are cleared: lists write 192.0.2.1/24 for 192.0.2.0/24.
 * A zone id (fe80::1%lo0) is accepted only when allow_zone, and dropped.
 */
static int parse_addr(const char *s, size_t len, struct bb_entry *e, bool allow_zone,
		      const char **why)
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
	if (!slash) {
		e->plen = (__u8)bits;
		return 0;
	}
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
	mask_addr(e->addr, plen, bits);
	return 0;
}

static bool addr_is_sinkhole(const struct bb_entry *e)
{
	static const __u8 zero[16], loop6[16] = { [15] = 1 };
	static const __u8 loop4[4] = { 127, 0, 0, 1 };

	if (e->kind == BB_ENTRY_IP4)
		return !memcmp(e->addr, zero, 4) || !memcmp(e->addr, loop4, 4);
	return !memcmp(e->addr, zero, 16) || !memcmp(e->addr, loop6, 16);
}

/* ---- names and URLs ---- */

/* A canonical name; in a list a single label would match a whole TLD. */
static int parse_name(const char *s, size_t len, struct bb_entry *e, char *text, size_t size,
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
 * host + path (+ query) as one URL entry: "host/path?query", host canonical,
 * path and query byte for byte. An empty path or "/" alone lists the whole site.
 */
static int host_path_entry(const char *host, size_t hlen, const char *path, size_t plen,
			   struct bb_entry *e, char *text, size_t size, bool list_mode,
			   const char **why)
{
	char hostbuf[BB_NAME_MAX + 1];
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
		if (e->plen != (v6 ? 128 : 32) || (v6 && e->kind != BB_ENTRY_IP6))
			return reject(BB_REJECT_BAD_ADDRESS, why, "bad IP literal in URL host");
		if (bare)
			return 0;
		/* The host text of an IP literal is its canonical form, IPv6 in brackets. */
		inet_ntop(v6 ? AF_INET6 : AF_INET, e->addr, abuf, sizeof(abuf));
		snprintf(hostbuf, sizeof(hostbuf), v6 ? "[%s]" : "%s", abuf);
	} else if (bare) {
		return parse_name(host, hlen, e, text, size, list_mode, why);
	} else {
		err = parse_name(host, hlen, e, hostbuf, sizeof(hostbuf), list_mode, why);
		if (err)
			return err;
	}
	memset(e, 0, sizeof(*e));
	slash = path[0] != '/';
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
			       (size_t)(end - auth_end), e, text, size, list_mode, why);
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
	for (host_end = s; host_end < s + len; host_end++)
		if (*host_end == '/' || *host_end == '?' || *host_end == ':')
			break;
	if (host_end < s + len && *host_end == ':')
		return reject(BB_REJECT_PATTERN, why, "Adblock rule for one port");
	return host_path_entry(s, (size_t)(host_end - s), host_end, (size_t)(s + len - host_end), e,
			       text, size, list_mode, why);
}

/*
 * One item alone: an address or CIDR, a URL, an Adblock rule, *.name, host/path
 * or a name. list_mode is stricter about what a name may be: in a list, a token
 * that starts like an Adblock URL fragment (-coin-hive.js) is a pattern.
 */
static int parse_entry(const char *s, size_t len, struct bb_entry *e, char *text, size_t size,
		       bool list_mode, const char **why)
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
	if (mem_has_any(s, len, "*^|$") || (list_mode && strchr("-./?=&:_", s[0])))
		return reject(BB_REJECT_PATTERN, why, "Adblock URL-part pattern");
	slash = mem_find(s, len, '/');
	if (!slash)
		slash = mem_find(s, len, '?');
	if (slash)
		return host_path_entry(s, (size_t)(slash - s), slash, (size_t)(s + len - slash), e,
				       text, size, list_mode, why);
	return parse_name(s, len, e, text, size, list_mode, why);
}

/* ---- the list: arena, set, counts ---- */

/* XXH3 (libxxhash): a few ns for an address or a name, where byte-wise FNV took 25. */
static uint64_t entry_hash(const struct bb_entry *e, size_t tlen)
{
	uint64_t meta = (uint64_t)e->kind | (uint64_t)e->plen << 8 | (uint64_t)e->flags << 16;

	if (e->text)
		return XXH3_64bits_withSeed(e->text, tlen, meta);
	return XXH3_64bits_withSeed(e->addr, sizeof(e->addr), meta);
}

static bool entry_equal(const struct bb_entry *a, const struct bb_entry *b)
{
	if (a->kind != b->kind || a->plen != b->plen || a->flags != b->flags)
		return false;
	if (a->text || b->text)
		return a->text && b->text && !strcmp(a->text, b->text);
	return !memcmp(a->addr, b->addr, sizeof(a->addr));
}

/* Grow a shard to hold want entries at most 70% full. */
static int shard_grow_to(struct set_shard *s, size_t want)
{
	size_t n = s->nslots ? s->nslots * 2 : SET_MIN_SLOTS, i, j;
	uint64_t *slots;

	while (want * 10 > n * 7)
		n *= 2;
	slots = malloc(n * sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	/*
	 * Written, not calloc'd: a calloc'd page is first mapped to the zero page by a
	 * probe's read, and its first write then costs a copy-on-write fault and a TLB
	 * flush on every CPU the process runs on. explicit_bzero(), because the compiler
	 * turns malloc() + memset() back into calloc().
	 */
	explicit_bzero(slots, n * sizeof(*slots));
	for (i = 0; i < s->nslots; i++) {
		uint64_t v = s->slots[i];

		if (!v)
			continue;
		for (j = (v >> 32) & (n - 1); slots[j]; j = (j + 1) & (n - 1))
			;
		slots[j] = v;
	}
	free(s->slots);
	s->slots = slots;
	s->nslots = n;
	return 0;
}

static struct set_shard *shard_of(struct list_priv *p, uint64_t h)
{
	return &(p->part ? p->part_slots : p->shards)[h >> (64 - SET_SHARD_BITS)];
}

/*
 * Find e (hash h) in its shard, or insert it as entry index idx. 1: inserted,
 * 0: an equal entry is there, -ENOMEM. Only the thread that owns the shard calls this.
 */
static int shard_insert(struct set_shard *s, const struct bb_entry *entries, uint64_t h,
			const struct bb_entry *e, size_t idx)
{
	uint64_t tag = h >> 32;
	size_t j;

	if ((s->used + 1) * 10 > s->nslots * 7 && shard_grow_to(s, s->used + 1))
		return -ENOMEM;
	for (j = tag & (s->nslots - 1); s->slots[j]; j = (j + 1) & (s->nslots - 1)) {
		if ((s->slots[j] >> 32) == tag &&
		    entry_equal(&entries[(s->slots[j] & 0xffffffffU) - 1], e))
			return 0;
	}
	s->slots[j] = (tag << 32) | (uint64_t)(idx + 1);
	s->used++;
	return 1;
}

static char *arena_copy(struct list_priv *p, const char *s, size_t len)
{
	struct arena_chunk *c = p->arena;
	char *dst;

	if (!c || c->size - c->used < len + 1) {
		/* Small lists stay small: chunks double from 64 KiB up to ARENA_CHUNK. */
		size_t size = c ? c->size * 2 : ARENA_CHUNK / 16;

		if (size > ARENA_CHUNK)
			size = ARENA_CHUNK;
		if (size < len + 1)
			size = len + 1;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->next = p->arena;
		c->used = 0;
		c->size = size;
		p->arena = c;
	}
	dst = c->data + c->used;
	memcpy(dst, s, len);
	dst[len] = '\0';
	c->used += len + 1;
	return dst;
}

static struct list_priv *list_priv(struct bb_list *list)
{
	if (!list->priv)
		list->priv = calloc(1, sizeof(struct list_priv));
	return list->priv;
}

/* Room for more entries. */
static int list_reserve(struct bb_list *list, size_t more)
{
	struct bb_entry *ne;
	size_t cap = list->cap ? list->cap : 1024;

	if (list->n + more <= list->cap)
		return 0;
	if (list->n + more > 0xfffffffeU)
		return -ENOMEM;
	while (cap < list->n + more)
		cap *= 2;
	ne = realloc(list->entries, cap * sizeof(*ne));
	if (!ne)
		return -ENOMEM;
	list->entries = ne;
	list->cap = cap;
	return 0;
}

/*
 * Append e unless an equal entry is there. 1: added, 0: duplicate, -ENOMEM.
 * A parse thread's part list appends everything with its hash: the file's owner
 * de-duplicates all parts at once, in file order (dedup_parts()).
 */
static int list_add(struct bb_list *list, const struct bb_entry *e)
{
	struct list_priv *p = list_priv(list);
	size_t tlen = e->text ? strlen(e->text) : 0;
	struct bb_entry *ne;
	uint64_t h;
	int err;

	if (!p || list_reserve(list, 1))
		return -ENOMEM;
	h = entry_hash(e, tlen);
	ne = &list->entries[list->n];
	*ne = *e;
	if (e->text) {
		/* a duplicate's copy stays unused in the arena: duplicates are rare */
		ne->text = arena_copy(p, e->text, tlen);
		if (!ne->text)
			return -ENOMEM;
	}
	if (p->part) {
		struct set_shard *s = shard_of(p, h);

		if (s->used == s->nslots) {
			size_t cap = s->nslots ? 2 * s->nslots : 256;
			uint64_t *v = realloc(s->slots, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			s->slots = v;
			s->nslots = cap;
		}
		s->slots[s->used++] = (h & ~0xffffffffULL) | (list->n + 1);
	} else {
		err = shard_insert(shard_of(p, h), list->entries, h, ne, list->n);
		if (err <= 0)
			return err;
	}
	list->n++;
	return 1;
}

void bb_list_init(struct bb_list *list)
{
	/* The set and arena come with the first entry: init cannot fail. */
	memset(list, 0, sizeof(*list));
}

static void list_priv_free(struct list_priv *p)
{
	size_t i;

	while (p->arena) {
		struct arena_chunk *next = p->arena->next;

		free(p->arena);
		p->arena = next;
	}
	for (i = 0; i < SET_SHARDS; i++) {
		free(p->shards[i].slots);
		free(p->part_slots[i].slots);
	}
	free(p);
}

void bb_list_free(struct bb_list *list)
{
	if (list->priv)
		list_priv_free(list->priv);
	free(list->entries);
	memset(list, 0, sizeof(*list));
}

/* Add one parsed entry and count it. 1 (added or duplicate) or -ENOMEM. */
static int add_counted(struct bb_list *list, const struct bb_entry *e)
{
	struct list_priv *p = list->priv;
	int err;

	if (p && p->sink) {
		/* a scan: no set, so every valid entry counts as accepted */
		p->sink->entry(p->sink->ctx, p->thread, e);
		list->counts.accepted[e->kind]++;
		return 1;
	}
	err = list_add(list, e);

	if (err < 0)
		return err;
	if (err)
		list->counts.accepted[e->kind]++;
	else
		list->counts.duplicates++;
	return 1;
}

static int count_reject(struct bb_list *list, int err)
{
	if (err < 0 && err >= -BB_REJECT_REASON_MAX)
		list->counts.rejected[-err - 1]++;
	return err;
}

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

/* ADDR name...: each name of a sinkhole line is an entry; other lines map local names. */
static int parse_hosts_line(struct bb_list *list, const char *addr, size_t alen,
			    const char *rest, size_t rlen, const char **why)
{
	char text[BB_NAME_MAX + 1];
	const char *end = rest + rlen, *tok, *hash;
	struct bb_entry e;
	bool any = false;
	int first_err = 0, err;
	size_t tlen;

	err = parse_addr(addr, alen, &e, true, why);
	if (err)
		return count_reject(list, err);
	if (e.plen != (e.kind == BB_ENTRY_IP4 ? 32 : 128))
		return count_reject(list, reject(BB_REJECT_SYNTAX, why,
						 "hosts line with a prefix length"));
	if (!addr_is_sinkhole(&e)) {
		list->counts.preamble++;
		return 0;
	}
	while (rest < end) {
		while (rest < end && is_space(*rest))
			rest++;
		for (tok = rest; rest < end && !is_space(*rest); rest++)
			;
		tlen = (size_t)(rest - tok);
		/* In a hosts file '#' starts a comment anywhere. */
		hash = mem_find(tok, tlen, '#');
		if (hash)
			tlen = (size_t)(hash - tok);
		if (tlen == 0) {
			if (hash)
				break;
			continue;
		}
		if (is_hosts_preamble(tok, tlen)) {
			list->counts.preamble++;
		} else if (looks_ipv4(tok, tlen) || looks_ipv6(tok, tlen)) {
			err = reject(BB_REJECT_IP_AS_NAME, why,
				     "hosts line names an IP address, not a host");
			count_reject(list, err);
			first_err = first_err ?: err;
		} else if (!mem_find(tok, tlen - (tok[tlen - 1] == '.'), '.')) {
			/* A single label is the machine's own name (hercules, wpad), or a TLD. */
			list->counts.preamble++;
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
 * Bytes of a hostname as lists write it (what name_check() accepts, in any case),
 * by class: any such byte, a digit or dot (an IPv4 address has only those), a dot,
 * an upper-case letter.
 */
enum { PLAIN_NAME = 1, PLAIN_IP4 = 2, PLAIN_DOT = 4, PLAIN_UPPER = 8 };

static const __u8 plain_class[256] = {
	['a' ... 'z'] = PLAIN_NAME, ['A' ... 'Z'] = PLAIN_NAME | PLAIN_UPPER,
	['0' ... '9'] = PLAIN_NAME | PLAIN_IP4, ['.'] = PLAIN_NAME | PLAIN_IP4 | PLAIN_DOT,
	['-'] = PLAIN_NAME, ['_'] = PLAIN_NAME,
};

/* A strict dotted quad as inet_pton() reads it; false: anything else. */
static bool plain_ip4(const char *s, size_t len, struct bb_entry *e)
{
	unsigned int part = 0, digits = 0, value = 0;
	size_t i;

	memset(e, 0, sizeof(*e));
	for (i = 0; i <= len; i++) {
		if (i < len && is_digit(s[i])) {
			if (digits && value == 0)
				return false;	/* leading zero */
			value = value * 10 + (unsigned int)(s[i] - '0');
			if (++digits > 3 || value > 255)
				return false;
			continue;
		}
		if (!digits || part > 3 || (i < len && part == 3))
			return false;
		e->addr[part++] = (__u8)value;
		digits = value = 0;
	}
	if (part != 4)
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
	__u8 all = PLAIN_NAME | PLAIN_IP4;

	if (!plain_class[(unsigned char)s[0]] || s[0] == '-' || s[0] == '.' || s[0] == '_')
		return 0;	/* the general path calls these patterns */
	if (s[len - 1] == '.')
		name_len--;	/* one trailing dot: the root */
	copy = name_len + 1 <= size;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		__u8 cls = plain_class[c];

		all &= cls;
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

static int parse_line_body(struct bb_list *list, const char *s, size_t len, const char **why)
{
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
	if (parse_plain(s, len, &e, text, sizeof(text), &err, why))
		return err ? count_reject(list, err) : add_counted(list, &e);
	if (s[0] == '#' || s[0] == ';' || s[0] == '!' || (s[0] == '[' && s[len - 1] == ']' &&
							   !looks_ipv6(s + 1, len - 2))) {
		list->counts.comments++;
		return 0;
	}
	if (len >= 2 && s[0] == '@' && s[1] == '@')
		return count_reject(list, reject(BB_REJECT_EXCEPTION, why,
						 "Adblock exception (@@) is never a block entry"));
	len = strip_inline_comment(s, len);
	while (len && is_space(s[len - 1]))
		len--;
	if (is_cosmetic(s, len))
		return count_reject(list, reject(BB_REJECT_COSMETIC, why,
						 "Adblock element-hiding rule"));
	for (tok_end = s; tok_end < s + len && !is_space(*tok_end); tok_end++)
		;
	if (tok_end < s + len && !looks_ipv4(s, (size_t)(tok_end - s)) &&
	    !looks_ipv6(s, (size_t)(tok_end - s))) {
		/* Several fields without an address: an Adblock rule with spaces, or junk. */
		err = 0;
		if (mem_has_any(s, len, "$^*|"))
			err = parse_entry(s, len, &e, text, sizeof(text), true, why);
		if (!err)
			err = reject(BB_REJECT_SYNTAX, why,
				     "several fields, and the first is not an address");
		return count_reject(list, err);
	}
	if (tok_end < s + len)
		return parse_hosts_line(list, s, (size_t)(tok_end - s), tok_end,
					(size_t)(s + len - tok_end), why);
	if (s[0] == '[' && s[len - 1] == ']')
		err = parse_addr(s + 1, len - 2, &e, false, why);
	else
		err = parse_entry(s, len, &e, text, sizeof(text), true, why);
	if (err)
		return count_reject(list, err);
	return add_counted(list, &e);
}

int bb_list_parse_line(struct bb_list *list, const char *line, size_t len, const char **why)
{
	list->counts.lines++;
	return parse_line_body(list, line, len, why);
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
	return parse_entry(item, len, entry, text_buf, text_size, false, why);
}

static void counts_sub(struct bb_list_counts *d, const struct bb_list_counts *a,
		       const struct bb_list_counts *b)
{
	size_t i;

	d->lines = a->lines - b->lines;
	for (i = 0; i < BB_ENTRY_KIND_MAX; i++)
		d->accepted[i] = a->accepted[i] - b->accepted[i];
	d->duplicates = a->duplicates - b->duplicates;
	d->blank = a->blank - b->blank;
	d->comments = a->comments - b->comments;
	d->preamble = a->preamble - b->preamble;
	for (i = 0; i < BB_REJECT_REASON_MAX; i++)
		d->rejected[i] = a->rejected[i] - b->rejected[i];
}

static void report_reject(const struct bb_list_opts *opts, const char *path, size_t lineno,
			  const char *why, const char *line, size_t len)
{
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	if (len > REPORT_TEXT_MAX)
		fprintf(opts->report, "%s:%zu: %s (%.*s...)\n", path, lineno, why,
			REPORT_TEXT_MAX, line);
	else
		fprintf(opts->report, "%s:%zu: %s (%.*s)\n", path, lineno, why, (int)len, line);
}

/* A rejected line of a part, reported once every part is parsed. */
struct reject_note {
	size_t lineno;		/* within the part */
	const char *why;	/* reasons are string constants */
	const char *line;	/* into the mapped file */
	size_t len;
};

/* One piece of a mapped file, cut at line boundaries, parsed by one thread. */
struct file_part {
	const char *start, *end;
	struct bb_list list;	/* its entries in file order, not de-duplicated */
	size_t first;		/* where its entries go in the file's list */
	struct reject_note *notes;
	size_t n_notes, cap_notes;
	size_t unnoted;		/* rejects past report_max in this part */
	int err;
};

struct parse_job {
	struct bb_list *list;		/* the file's list: de-duplication */
	struct file_part *parts;
	size_t n_parts;
	size_t next_part;		/* atomic: parts go to whichever thread is free */
	size_t report_max;		/* notes kept per part; 0: all */
	bool report;
	unsigned int threads;
	size_t first;			/* index in list->entries of the file's first entry */
	unsigned char *dup;		/* per entry of the file: a duplicate */
	int err;			/* de-duplication: -ENOMEM */
	const struct bb_list_sink *sink;	/* a scan: entries to it, nothing stored */
};

static void parse_part(struct parse_job *job, struct file_part *part, unsigned int thread)
{
	const char *s = part->start, *end = part->end, *nl, *why;
	struct list_priv *p = calloc(1, sizeof(*p));
	int rc;

	bb_list_init(&part->list);
	if (!p) {
		part->err = -ENOMEM;
		return;
	}
	p->part = true;
	p->sink = job->sink;
	p->thread = thread;
	part->list.priv = p;
	while (s < end) {
		size_t len;

		nl = memchr(s, '\n', (size_t)(end - s));
		len = nl ? (size_t)(nl - s) : (size_t)(end - s);
		why = "rejected";
		rc = bb_list_parse_line(&part->list, s, len, &why);
		if (rc == -ENOMEM) {
			part->err = rc;
			return;
		}
		if (rc < 0 && job->report) {
			if (job->report_max && part->n_notes >= job->report_max) {
				part->unnoted++;
			} else {
				if (part->n_notes == part->cap_notes) {
					size_t cap = part->cap_notes ? 2 * part->cap_notes : 64;
					struct reject_note *n = realloc(part->notes,
									cap * sizeof(*n));

					if (!n) {
						part->err = -ENOMEM;
						return;
					}
					part->notes = n;
					part->cap_notes = cap;
				}
				part->notes[part->n_notes++] = (struct reject_note){
					part->list.counts.lines, why, s, len };
			}
		}
		s = nl ? nl + 1 : end;
	}
}

static void *parse_worker(void *arg)
{
	struct parse_job *job = ((void **)arg)[0];
	unsigned int thread = (unsigned int)(uintptr_t)((void **)arg)[1];
	size_t page = (size_t)sysconf(_SC_PAGESIZE), i;

	while ((i = __atomic_fetch_add(&job->next_part, 1, __ATOMIC_RELAXED)) < job->n_parts) {
		struct file_part *part = &job->parts[i];
		uintptr_t lo = ((uintptr_t)part->start + page - 1) & ~(page - 1);
		uintptr_t hi = (uintptr_t)part->end & ~(page - 1);

		parse_part(job, part, thread);
		/*
		 * Parsed: its pages leave our resident set (they stay in the page cache, and
		 * a report of a rejected line reads them back from there).
		 */
		if (hi > lo)
			madvise((void *)lo, hi - lo, MADV_DONTNEED);
	}
	return NULL;
}

/* Room in a shard for more entries, so that inserting them never rehashes. */
static int shard_reserve(struct set_shard *s, size_t more)
{
	if ((s->used + more) * 10 > s->nslots * 7)
		return shard_grow_to(s, s->used + more);
	return 0;
}

/*
 * Thread t owns the set shards s with s % threads == t, and inserts one shard at a
 * time, each from every part in file order: a shard's table stays in cache, where
 * inserting entry by entry would jump across the whole set each time.
 */
static void *dedup_worker(void *arg)
{
	struct parse_job *job = ((void **)arg)[0];
	unsigned int t = (unsigned int)(uintptr_t)((void **)arg)[1];
	struct list_priv *p = job->list->priv;
	const struct bb_entry *entries = job->list->entries;
	size_t sh, i, k, more;

	for (sh = t; sh < SET_SHARDS; sh += job->threads) {
		struct set_shard *s = &p->shards[sh];

		for (i = 0, more = 0; i < job->n_parts; i++)
			more += ((struct list_priv *)job->parts[i].list.priv)->part_slots[sh].used;
		if (shard_reserve(s, more)) {
			__atomic_store_n(&job->err, -ENOMEM, __ATOMIC_RELAXED);
			return NULL;
		}
		for (i = 0; i < job->n_parts; i++) {
			const struct set_shard *ps =
				&((struct list_priv *)job->parts[i].list.priv)->part_slots[sh];
			size_t first = job->parts[i].first;

			for (k = 0; k < ps->used; k++) {
				uint64_t v = ps->slots[k];
				size_t e = first + (v & 0xffffffffU) - 1;

				if (k + 8 < ps->used)
					__builtin_prefetch(&s->slots[(ps->slots[k + 8] >> 32) &
								     (s->nslots - 1)]);
				/* reserved above: no growth, never -ENOMEM */
				if (!shard_insert(s, entries, v, &entries[e], e))
					job->dup[e - job->first] = 1;
			}
		}
	}
	return NULL;
}

/* Thread t copies every threads-th part's entries to their place in the list. */
static void *copy_worker(void *arg)
{
	struct parse_job *job = ((void **)arg)[0];
	unsigned int t = (unsigned int)(uintptr_t)((void **)arg)[1];
	size_t i;

	for (i = t; i < job->n_parts; i += job->threads) {
		struct bb_list *pl = &job->parts[i].list;

		if (pl->n)
			memcpy(&job->list->entries[job->parts[i].first], pl->entries,
			       pl->n * sizeof(*pl->entries));
		free(pl->entries);
		pl->entries = NULL;
	}
	return NULL;
}

/* Run fn on up to threads threads, the caller's own thread being one of them. */
static void run_threads(void *(*fn)(void *), void **args, unsigned int threads)
{
	pthread_t tids[BB_LIST_MAX_THREADS];
	bool started[BB_LIST_MAX_THREADS] = { false };
	unsigned int t;

	for (t = 1; t < threads; t++)
		started[t] = !pthread_create(&tids[t], NULL, fn, args[t]);
	fn(args[0]);
	for (t = 1; t < threads; t++) {
		if (started[t])
			pthread_join(tids[t], NULL);
		else
			fn(args[t]);	/* no thread: do its share here */
	}
}

/*
 * The parts' entries into the list, in file order, then the duplicates out: an
 * entry is a duplicate when an equal one came before it, in this file or an earlier
 * one. The same verdicts as adding them one by one, with one thread per set shard.
 */
static int merge_parts(struct parse_job *job)
{
	struct bb_list *list = job->list;
	struct list_priv *p = list_priv(list);
	void *args[BB_LIST_MAX_THREADS][2], *argp[BB_LIST_MAX_THREADS];
	size_t total = 0, i, k, w, dups = 0;
	unsigned int t;
	__u32 *remap = NULL;
	int err;

	if (!p)
		return -ENOMEM;
	for (i = 0; i < job->n_parts; i++)
		total += job->parts[i].list.n;
	if (!total)
		return 0;
	err = list_reserve(list, total);
	if (err)
		return err;
	job->first = list->n;
	for (i = 0; i < job->n_parts; i++) {
		struct bb_list *pl = &job->parts[i].list;
		struct list_priv *pp = pl->priv;
		struct arena_chunk *c;

		job->parts[i].first = list->n;
		list->n += pl->n;
		/* the texts stay where they are: their chunks join the list's arena */
		while ((c = pp->arena)) {
			pp->arena = c->next;
			c->next = p->arena;
			p->arena = c;
		}
	}
	for (t = 0; t < job->threads; t++) {
		args[t][0] = job;
		args[t][1] = (void *)(uintptr_t)t;
		argp[t] = args[t];
	}
	/* the copy in parallel too: its page faults are most of its cost */
	run_threads(copy_worker, argp, job->threads);
	job->dup = calloc(total, 1);
	if (!job->dup)
		return -ENOMEM;
	run_threads(dedup_worker, argp, job->threads);
	if (job->err)
		return job->err;

	for (i = 0; i < total; i++) {
		if (!job->dup[i])
			continue;
		list->counts.accepted[list->entries[job->first + i].kind]--;
		list->counts.duplicates++;
		dups++;
	}
	if (!dups)
		return 0;
	/* Close the gaps, and point the set at the entries' new places. */
	remap = malloc(total * sizeof(*remap));
	if (!remap)
		return -ENOMEM;
	for (i = 0, w = job->first; i < total; i++) {
		if (job->dup[i])
			continue;
		remap[i] = (__u32)w;
		list->entries[w++] = list->entries[job->first + i];
	}
	list->n = w;
	for (i = 0; i < SET_SHARDS; i++) {
		struct set_shard *s = &p->shards[i];

		for (k = 0; k < s->nslots; k++) {
			uint64_t v = s->slots[k], idx = (v & 0xffffffffU) - 1;

			if (v && idx >= job->first)
				s->slots[k] = (v & ~0xffffffffULL) |
					      (remap[idx - job->first] + 1);
		}
	}
	free(remap);
	return 0;
}

/* Cut [data, data + size) into n parts at line boundaries. */
static void cut_parts(struct file_part *parts, size_t n, const char *data, size_t size)
{
	const char *end = data + size, *prev = data;
	size_t i;

	for (i = 0; i < n; i++) {
		const char *cut = i + 1 == n ? end : data + size / n * (i + 1);

		if (cut < prev)
			cut = prev;
		if (cut > data && cut < end && cut[-1] != '\n') {
			const char *nl = memchr(cut, '\n', (size_t)(end - cut));

			cut = nl ? nl + 1 : end;
		}
		memset(&parts[i], 0, sizeof(parts[i]));
		parts[i].start = prev;
		parts[i].end = cut;
		prev = cut;
	}
}

unsigned int bb_list_threads(unsigned int threads)
{
	long cpus;

	if (!threads) {
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
		threads = cpus > 0 ? (unsigned int)cpus : 1;
	}
	return threads > BB_LIST_MAX_THREADS ? BB_LIST_MAX_THREADS : threads;
}

/*
 * A regular file: mapped, cut into parts at line boundaries, the parts parsed by
 * threads into lists of their own, then merged and de-duplicated in file order.
 * Reports and counts come out as a line-by-line parse would give them.
 */
static int parse_mapped(struct bb_list *list, const char *name, const char *data, size_t size,
			const struct bb_list_opts *opts, const struct bb_list_sink *sink)
{
	struct parse_job job = {
		.list = list, .report = opts && opts->report,
		.report_max = opts ? opts->report_max : 0,
		.threads = bb_list_threads(opts ? opts->threads : 0),
		.sink = sink,
	};
	void *args[BB_LIST_MAX_THREADS][2], *argp[BB_LIST_MAX_THREADS];
	size_t i, k, base = 0, shown = 0, unshown = 0, r;
	size_t part_bytes = opts && opts->part_bytes ? opts->part_bytes : 0;
	unsigned int t;
	int err = 0;

	if (sink) {
		/*
		 * A scan keeps nothing per entry; the mapped pages of a part leave the
		 * resident set when it is parsed, so the parts are small: at most threads
		 * times SCAN_PART_BYTES of the file is resident at once.
		 */
		job.n_parts = (size + (part_bytes ?: SCAN_PART_BYTES) - 1) /
			      (part_bytes ?: SCAN_PART_BYTES);
	} else {
		/* Small files: one part, no thread. Else several parts per thread, so a
		 * thread slowed by other work takes fewer of them.
		 */
		job.n_parts = size / (part_bytes ?: PART_MIN_BYTES);
		if (job.n_parts > PARTS_PER_THREAD * job.threads && !part_bytes)
			job.n_parts = PARTS_PER_THREAD * job.threads;
	}
	if (job.n_parts < 1)
		job.n_parts = 1;
	if (job.threads > job.n_parts)
		job.threads = (unsigned int)job.n_parts;
	job.parts = calloc(job.n_parts, sizeof(*job.parts));
	if (!job.parts)
		return -ENOMEM;
	cut_parts(job.parts, job.n_parts, data, size);
	for (t = 0; t < job.threads; t++) {
		args[t][0] = &job;
		args[t][1] = (void *)(uintptr_t)t;
		argp[t] = args[t];
	}
	run_threads(parse_worker, argp, job.threads);

	for (i = 0; i < job.n_parts; i++) {
		struct file_part *part = &job.parts[i];
		const struct bb_list_counts *c = &part->list.counts;

		err = err ?: part->err;
		list->counts.lines += c->lines;
		for (k = 0; k < BB_ENTRY_KIND_MAX; k++)
			list->counts.accepted[k] += c->accepted[k];
		list->counts.blank += c->blank;
		list->counts.comments += c->comments;
		list->counts.preamble += c->preamble;
		for (r = 0; r < BB_REJECT_REASON_MAX; r++)
			list->counts.rejected[r] += c->rejected[r];
		for (k = 0; k < part->n_notes; k++) {
			const struct reject_note *n = &part->notes[k];

			if (opts->report_max && shown >= opts->report_max) {
				unshown++;
				continue;
			}
			report_reject(opts, name, base + n->lineno, n->why, n->line, n->len);
			shown++;
		}
		unshown += part->unnoted;
		base += c->lines;
	}
	if (!err && !sink)
		err = merge_parts(&job);
	if (job.report && unshown)
		fprintf(opts->report, "%s: %zu more rejected lines not shown\n", name, unshown);
	for (i = 0; i < job.n_parts; i++) {
		free(job.parts[i].notes);
		bb_list_free(&job.parts[i].list);
	}
	free(job.parts);
	free(job.dup);
	return err;
}

/* stdin, pipes: line by line. */
static int parse_stream(struct bb_list *list, const char *name, FILE *f,
			const struct bb_list_opts *opts)
{
	size_t cap = 0, lineno = 0, reported = 0, unreported = 0;
	FILE *report = opts ? opts->report : NULL;
	char *line = NULL;
	const char *why;
	ssize_t n;
	int err = 0, rc;

	errno = 0;
	while ((n = getline(&line, &cap, f)) >= 0) {
		size_t len = (size_t)n;

		lineno++;
		if (len && line[len - 1] == '\n')
			len--;
		why = "rejected";
		rc = bb_list_parse_line(list, line, len, &why);
		if (rc == -ENOMEM) {
			err = rc;
			break;
		}
		if (rc >= 0 || !report)
			continue;
		if (opts->report_max && reported >= opts->report_max) {
			unreported++;
			continue;
		}
		report_reject(opts, name, lineno, why, line, len);
		reported++;
	}
	if (!err && ferror(f)) {
		err = errno ? -errno : -EIO;
		if (report)
			fprintf(report, "%s: %s\n", name, strerror(-err));
	}
	if (report && unreported)
		fprintf(report, "%s: %zu more rejected lines not shown\n", name, unreported);
	free(line);
	return err;
}

int bb_list_parse_file(struct bb_list *list, const char *path, const struct bb_list_opts *opts,
		       struct bb_list_counts *file_counts)
{
	struct bb_list_counts before = list->counts;
	bool is_stdin = !strcmp(path, "-");
	const char *name = is_stdin ? "<stdin>" : path;
	FILE *report = opts ? opts->report : NULL;
	struct stat st;
	void *data;
	FILE *f;
	int err;

	f = is_stdin ? stdin : fopen(path, "r");
	if (!f) {
		err = -errno;
		if (report)
			fprintf(report, "%s: %s\n", name, strerror(-err));
		return err;
	}
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size == 0 ||
	    (data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fileno(f), 0)) ==
	    MAP_FAILED) {
		err = parse_stream(list, name, f, opts);
	} else {
		madvise(data, (size_t)st.st_size, MADV_SEQUENTIAL);
		err = parse_mapped(list, name, data, (size_t)st.st_size, opts, NULL);
		munmap(data, (size_t)st.st_size);
	}
	if (!is_stdin)
		fclose(f);
	if (file_counts)
		counts_sub(file_counts, &list->counts, &before);
	return err;
}

int bb_list_scan_file(const char *path, const struct bb_list_opts *opts,
		      const struct bb_list_sink *sink, struct bb_list_counts *counts)
{
	FILE *report = opts ? opts->report : NULL;
	struct bb_list parts_sum;
	struct stat st;
	void *data = NULL;
	int fd, err;

	memset(counts, 0, sizeof(*counts));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		if (report)
			fprintf(report, "%s: %s\n", path, strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		if (report)
			fprintf(report, "%s: not a regular file: cannot be read twice\n", path);
		close(fd);
		return -EINVAL;
	}
	if (st.st_size) {
		data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (data == MAP_FAILED) {
			err = -errno;
			if (report)
				fprintf(report, "%s: %s\n", path, strerror(-err));
			close(fd);
			return err;
		}
	}
	close(fd);
	if (!data)
		return 0;	/* an empty file: no lines */
	madvise(data, (size_t)st.st_size, MADV_SEQUENTIAL);
	bb_list_init(&parts_sum);
	err = parse_mapped(&parts_sum, path, data, (size_t)st.st_size, opts, sink);
	*counts = parts_sum.counts;
	bb_list_free(&parts_sum);
	munmap(data, (size_t)st.st_size);
	return err;
}

size_t bb_list_rejected_total(const struct bb_list_counts *counts)
{
	size_t i, total = 0;

	for (i = 0; i < BB_REJECT_REASON_MAX; i++)
		total += counts->rejected[i];
	return total;
}

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
	};

	return (unsigned int)reason < BB_REJECT_REASON_MAX ? names[reason] : "unknown";
}

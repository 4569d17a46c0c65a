/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the list modules share, and nothing else includes: list_syntax.c (one entry's
 * syntax), list_plain.c (plain, hosts, Adblock and P2P lines), list_formats.c (the
 * resolver, zone, JSON, CSV and ipset formats, and detection), list_set.c (the
 * de-duplication set and text arena), list_file.c (reading a file in parts).
 */
#ifndef BB_LIST_INT_H
#define BB_LIST_INT_H

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "list.h"

#define LINE_MAX_BYTES	4096		/* longer lines are rejected, not truncated */
#define TEXT_MAX	(BB_KEY_MAX - 1)	/* a key is a kind tag plus the text */
#define SET_SHARD_BITS	6
#define SET_SHARDS	(1U << SET_SHARD_BITS)
#define REPORT_TEXT_MAX	160		/* bytes of a rejected line echoed in a report */

_Static_assert(BB_REJECT_REASON_MAX + 1 < -BB_LIST_NOMEM, "reject codes and BB_LIST_NOMEM differ");

/* ---- char classes ---- */

static inline bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline bool has_prefix_ci(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !strncasecmp(s, prefix, n);
}

static inline bool token_is(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && !strncasecmp(s, word, len);
}

static inline const char *mem_find(const char *s, size_t len, char c)
{
	return memchr(s, c, len);
}

bool mem_has_any(const char *s, size_t len, const char *set);

/* The next whitespace-separated token from *s (< end): its length, 0 at the end. */
size_t next_token(const char **s, const char *end, const char **tok);

static inline int reject(enum bb_reject_reason reason, const char **why, const char *msg)
{
	if (why)
		*why = msg;
	return -(1 + (int)reason);
}

/* ---- one entry's syntax (list_syntax.c) ---- */

bool looks_ipv4(const char *s, size_t len);
bool looks_ipv6(const char *s, size_t len);
void mask_addr(__u8 *addr, unsigned int plen, unsigned int bits);
/* ADDR[/PLEN]; an IPv4-mapped IPv6 address is the IPv4 one; a zone id when allow_zone. */
int parse_addr(const char *s, size_t len, struct bb_entry *e, bool allow_zone, const char **why);
bool addr_is_sinkhole(const struct bb_entry *e);
/* Loopback, private, link-local, multicast, broadcast, unspecified: a local name's. */
bool addr_is_local(const struct bb_entry *e);
int parse_name(const char *s, size_t len, struct bb_entry *e, char *text, size_t size,
	       bool list_mode, const char **why);
/*
 * One item alone: an address or CIDR, a URL, an Adblock rule, *.name, host/path or a
 * name. list_mode is stricter about what a name may be; adblock also calls a token
 * that starts with '_' a pattern (Adblock lists write URL fragments so).
 */
int parse_entry(const char *s, size_t len, struct bb_entry *e, char *text, size_t size,
		bool list_mode, bool adblock, const char **why);

/*
 * An address range A-B (or "A - B"): 1 it is one (*first, *last set, or *err a
 * reject), 0 it is not one (a name such as a-b.example).
 */
int parse_range(const char *s, size_t len, struct bb_entry *first, struct bb_entry *last,
		int *err, const char **why);
/* The entries of a range, the fewest CIDRs; counted as one range line. 1 or BB_LIST_NOMEM. */
int add_range(struct bb_list *list, const struct bb_entry *first, const struct bb_entry *last);

/* ---- counting and adding (list_set.c) ---- */

struct arena_chunk;

struct set_shard {
	uint64_t *slots;
	size_t nslots, used;
};

struct fmt_conf;
struct fmt_seq;

/* The first line of a class in one part: part-local line number and its text. */
struct class_first {
	size_t line;
	char text[BB_LIST_NOTE_TEXT + 1];
};

struct list_priv {
	struct arena_chunk *arena;
	struct set_shard shards[SET_SHARDS];
	bool part;		/* one parse thread's part of a file: no set, slots kept */
	struct set_shard part_slots[SET_SHARDS];	/* part: slot values by shard, in
							 * order, the index part-local */
	const struct bb_list_sink *sink;	/* a scan: entries go here, not stored */
	unsigned int thread;			/* the scan thread parsing this part */
	const struct fmt_conf *conf;		/* how this file's lines read; NULL: plain */
	struct fmt_seq *seq;			/* state across lines, sequential formats */
	bool allow_line;			/* the line's entries are allowlist entries
						 * (an Adblock @@ rule, an ipset nomatch) */
	const char **why;			/* the line's reason, for add_counted() */
	struct class_first watched[BB_WATCH_MAX];	/* bb_file_info.watched, part-local */
	const char *line;			/* the line being parsed, for first[] */
	size_t line_len;
	struct class_first first[BB_CLASS_MAX];
};

struct list_priv *list_priv(struct bb_list *list);
void list_priv_free(struct list_priv *p);
/* Room for more entries: 0 or -ENOMEM. */
int list_reserve(struct bb_list *list, size_t more);
/* The texts of from's entries now belong to to. */
void arena_adopt(struct list_priv *to, struct list_priv *from);
uint64_t entry_hash(const struct bb_entry *e, size_t tlen);
/* Grow a shard to hold want entries at most 70% full. 0 or -ENOMEM. */
int shard_grow_to(struct set_shard *s, size_t want);
/*
 * Find e (hash h) in its shard, or insert it as entry index idx. 1: inserted,
 * 0: an equal entry is there, -ENOMEM. Only the thread that owns the shard calls this.
 */
int shard_insert(struct set_shard *s, const struct bb_entry *entries, uint64_t h,
		 const struct bb_entry *e, size_t idx);
/* Add one parsed entry and count it. 1 (added or duplicate) or BB_LIST_NOMEM. */
int add_counted(struct bb_list *list, const struct bb_entry *e);
/* Count a reject (err from reject()), and pass it on. */
int count_reject(struct bb_list *list, int err);
/* Count a skip: 0. */
int count_skip(struct bb_list *list, enum bb_skip_reason reason);
/* Count a preamble name: 0. */
int count_preamble(struct bb_list *list);
void counts_sub(struct bb_list_counts *d, const struct bb_list_counts *a,
		const struct bb_list_counts *b);

/*
 * One token as its own entry: an address, CIDR, range, name, *.name or URL, parsed and
 * added (a CSV field, a JSON value, an ipset entry). Returns as bb_list_parse_line().
 */
int add_token(struct bb_list *list, const char *s, size_t len, const char **why);

/* ---- lines by format (list_plain.c, list_formats.c) ---- */

/* How a file's lines read: fixed before its first line is parsed. */
struct fmt_conf {
	enum bb_list_format format;
	bool urls_as_hosts;
	char delim;				/* CSV */
	int column;				/* CSV: 0-based field */
	char column_name[BB_LIST_COLUMN_MAX + 1];	/* CSV header name, JSON key */
	bool column_given;			/* --column: JSON reads only that key */
	char header[LINE_MAX_BYTES + 1];	/* CSV: the header row; skipped wherever */
	size_t header_len;
	const char *sets;			/* ipset: sets to load, comma-separated */
	bool allow;				/* every entry is an allowlist entry */
	__u8 source;
	bool refuse_wide;
	const struct bb_entry *watch;
	unsigned int n_watch;
	/*
	 * The first bytes of the addresses watch covers, a bit each, per family (IPv4,
	 * IPv6): an entry of /8 or longer whose first byte has no bit overlaps none of
	 * them, and is not compared with each (most lines of an address list).
	 */
	__u64 watch_first[2][4];
};

/* A format needs its lines in order, in one part (its state spans lines). */
bool fmt_sequential(enum bb_list_format format);

/*
 * Decide how the file reads from its first bytes (head, len; all of it when
 * whole) and opts: conf filled. 0, or -EINVAL with *why (a CSV without a column that
 * holds entries, a --column the header lacks).
 */
int fmt_detect(const char *head, size_t len, bool whole, const struct bb_file_opts *opts,
	       struct fmt_conf *conf, const char **why);

/* One line in the list's format (list_priv(list)->conf). As bb_list_parse_line(). */
int fmt_parse_line(struct bb_list *list, const char *s, size_t len, const char **why);

/* The state of a sequential format, and its end: what it held back, now counted. */
int fmt_seq_new(struct list_priv *p);
int fmt_seq_end(struct bb_list *list, struct bb_file_info *info);
void fmt_seq_free(struct fmt_seq *seq);

/*
 * The plain line parser. format ADBLOCK calls "_x" a pattern; HOSTS calls a sinkhole
 * address alone ("0.0.0.0 #disabled.example") preamble; anything else is plain.
 */
int plain_parse_line(struct bb_list *list, const char *s, size_t len,
		     enum bb_list_format format, const char **why);
/* "[Adblock Plus 2.0]": a header line of an Adblock list. */
bool adblock_header(const char *s, size_t len);
/* A P2P line (description:A-B), or else a plain one. */
int p2p_parse_line(struct bb_list *list, const char *s, size_t len, const char **why);
/* Helpers of the formats that detection uses too (list_formats.c). */
bool option_shaped(const char *s, size_t len);
/* The tokens of a zone-file line, at most max; quoted strings whole, ';' ends it. */
size_t zone_tokens(const char *s, const char *end, const char **tok, size_t *tlen, size_t max);
bool is_ttl(const char *s, size_t len);
bool is_class(const char *s, size_t len);
/*
 * Field col of a CSV row (quoted fields, "" in them) unquoted into out (col < 0: none).
 * Returns the row's field count, or -1 when a quote is not closed on the line.
 */
int csv_field(const char *s, size_t len, char delim, int col, char *out, size_t size,
	      size_t *out_len);
extern const char *const json_keys[];	/* keys that hold an entry, in the order looked for */

/* PeerGuardian's "description:A-B": the range's start in s, or NULL. */
const char *p2p_range(const char *s, size_t len);

#endif /* BB_LIST_INT_H */

/* SPDX-License-Identifier: GPL-2.0 */
/* Blocklist files: lines in many formats in, canonical entries out. No libbpf here. */
#ifndef BB_LIST_H
#define BB_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "bloomblock.h"

enum bb_entry_kind {
	BB_ENTRY_IP4,
	BB_ENTRY_IP6,
	BB_ENTRY_NAME,		/* a hostname: matches itself and its subdomains */
	BB_ENTRY_URL,		/* host + path prefix, cleartext HTTP only */
	BB_ENTRY_KIND_MAX,
};

/* struct bb_entry.flags */
enum bb_entry_flags {
	BB_ENTRY_F_SUBDOMAINS_ONLY = 1U << 0,	/* "*.evil.example": not evil.example itself */
	BB_ENTRY_F_EXACT	= 1U << 1,	/* the name alone, not its subdomains (an RPZ
						 * QNAME trigger without its "*." twin) */
	BB_ENTRY_F_ALLOW	= 1U << 2,	/* an allowlist entry: what it matches passes,
						 * whatever else is listed */
};

struct bb_entry {
	__u8 kind;		/* enum bb_entry_kind */
	__u8 plen;		/* IP: prefix length, 32 or 128 for one address */
	__u8 flags;		/* enum bb_entry_flags */
	__u8 src;		/* the list it came from: bb_file_opts.source */
	__u8 addr[16];		/* IP: network byte order, host bits cleared; IPv4 in addr[0..3] */
	__u32 line;		/* its line in that list, 1-based (a scan's: in its part) */
	const char *text;	/* NAME: canonical name; URL: canonical "host/path"; else NULL */
};

/* Why a line was not turned into an entry. Each reason is counted. */
enum bb_reject_reason {
	BB_REJECT_SYNTAX,	/* not any format we know */
	BB_REJECT_BAD_ADDRESS,	/* looks like an address or CIDR but is not a valid one */
	BB_REJECT_BAD_NAME,	/* bad hostname: label length, characters, IDN conversion */
	BB_REJECT_SINGLE_LABEL,	/* a single-label name would match a whole TLD */
	BB_REJECT_EXCEPTION,	/* Adblock "@@" exception: never a block entry */
	BB_REJECT_OPTIONS,	/* Adblock rule with options we cannot express ($third-party...) */
	BB_REJECT_COSMETIC,	/* Adblock element hiding (##, #@#, #?#...) */
	BB_REJECT_PATTERN,	/* Adblock URL fragment or wildcard pattern, regex */
	BB_REJECT_TOO_LONG,	/* line, name or URL longer than we can key */
	BB_REJECT_IP_AS_NAME,	/* hosts line names an IP address, not a host */
	BB_REJECT_HOSTS_MAPPING, /* hosts line maps names to a public address: not a block */
	BB_REJECT_UNSUPPORTED,	/* a format's construct the filter cannot express or follow
				 * ($INCLUDE, an ipset entry with a port, a line-spanning CSV
				 * field, a rule for every name) */
	BB_REJECT_TOO_WIDE,	/* a prefix over more global unicast space than a /8, which
				 * would cut the host off (bb_file_opts.refuse_wide) */
	BB_REJECT_REASON_MAX,
};

/*
 * Lines that a format defines and that are understood, but hold no block: counted,
 * never reported one by one.
 */
enum bb_skip_reason {
	BB_SKIP_DIRECTIVE,	/* structure: SOA, NS, $TTL, server:, ipset create, a CSV header
				 * row, a JSON metadata line, a resolver option */
	BB_SKIP_ANSWER,		/* a local answer or a forward, not a block: dnsmasq
				 * address=/name/192.0.2.1, RPZ local data, a redirect */
	BB_SKIP_TRIGGER,	/* an RPZ trigger a packet filter cannot see: rpz-nsdname,
				 * rpz-nsip, rpz-client-ip */
	BB_SKIP_OTHER_SET,	/* an ipset entry of a set not chosen (--ipset-set) */
	BB_SKIP_REASON_MAX,
};

struct bb_list_counts {
	size_t lines;
	size_t accepted[BB_ENTRY_KIND_MAX];	/* new entries, by kind */
	size_t allow[BB_ENTRY_KIND_MAX];	/* new allowlist entries, by kind */
	size_t duplicates;			/* valid entries already seen */
	size_t blank;
	size_t comments;			/* #, ;, !, [Adblock Plus 2.0] headers */
	size_t preamble;			/* localhost, broadcasthost, 0.0.0.0, local hosts lines */
	size_t rejected[BB_REJECT_REASON_MAX];
	size_t skipped[BB_SKIP_REASON_MAX];
	size_t ranges;				/* lines of address ranges (A-B), each one or
						 * more CIDR entries */
	size_t widened;				/* URL entries made host entries (urls_as_hosts) */
	size_t wide_reserved;			/* prefixes wider than a /8 of reserved space
						 * (multicast, 240.0.0.0/4...): loaded, noted */
};

/* How a file is read. Detected from its content unless given (--format). */
enum bb_list_format {
	BB_FORMAT_AUTO,
	BB_FORMAT_PLAIN,	/* addresses, CIDRs, ranges, names, URLs, one a line */
	BB_FORMAT_HOSTS,	/* 0.0.0.0 name... (read as plain: lists mix them) */
	BB_FORMAT_ADBLOCK,	/* ||name^, @@, ! comments (read as plain, "_x" is a pattern) */
	BB_FORMAT_P2P,		/* PeerGuardian: description:A-B */
	BB_FORMAT_DNSMASQ,	/* address=/name/, server=/name/, local=/name/ */
	BB_FORMAT_UNBOUND,	/* local-zone: "name" type */
	BB_FORMAT_RPZ,		/* a DNS response policy zone file */
	BB_FORMAT_JSON,		/* JSON lines: an object per line (Spamhaus DROP) */
	BB_FORMAT_CSV,		/* comma-separated values, a column by header name */
	BB_FORMAT_IPSET,	/* ipset save: create, add SET ENTRY */
	BB_FORMAT_MAX,
};

enum bb_compression {
	BB_COMPRESSION_NONE,
	BB_COMPRESSION_GZIP,
	BB_COMPRESSION_XZ,
	BB_COMPRESSION_ZSTD,
	BB_COMPRESSION_MAX,
};

#define BB_LIST_MAX_THREADS	64
#define BB_LIST_MAX_SETS	64	/* ipset sets told apart in one file */
#define BB_LIST_COLUMN_MAX	64	/* a CSV column's or JSON key's name */
#define BB_LIST_NOTE_TEXT	80	/* bytes of a line kept in a bb_file_info note */

/* What one file is read as: set per file by the caller. */
struct bb_file_opts {
	enum bb_list_format format;	/* BB_FORMAT_AUTO: detect from the content */
	const char *column;		/* CSV: a header name or a 1-based number; JSON: a
					 * key; NULL: chosen from the header or the keys */
	bool urls_as_hosts;		/* a URL entry blocks its whole host instead */
	const char *sets;		/* ipset: comma-separated set names to load; NULL: all */
	bool allow;			/* an allowlist: every entry is an allowlist entry */
	__u8 source;			/* the entries' src: which list, for the key index */
	bool refuse_wide;		/* reject a block prefix over more global unicast
					 * space than a /8 (bb_entry_too_wide()) */
	const struct bb_entry *watch;	/* addresses and prefixes a block entry should not
					 * cover: the first line that does is noted */
	unsigned int n_watch;		/* at most BB_WATCH_MAX */
};

#define BB_WATCH_MAX	32

/*
 * Whether a block prefix covers more global unicast space than a /8 of its family:
 * IPv4 outside 0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.0.0/24,
 * 192.0.2/24, 192.88.99/24, 192.168/16, 198.18/15, 198.51.100/24, 203.0.113/24,
 * 224/4 and 240/4; IPv6 inside 2000::/3. Wide: shorter than a /8 at all.
 */
bool bb_entry_too_wide(const struct bb_entry *e);
bool bb_entry_wide(const struct bb_entry *e);
/* One entry as a list line that reads back as the same entry ("192.0.2.0/24", "*.x"). */
void bb_entry_text(const struct bb_entry *e, char *buf, size_t size);
/* Whether two address entries (a prefix each) share an address. */
bool bb_entry_overlaps(const struct bb_entry *a, const struct bb_entry *b);

/*
 * What a file is when it is no list, told from its first bytes (inflated) before any
 * format, whatever --format says: such a file is refused, never read as a list.
 */
enum bb_content {
	BB_CONTENT_LIST,	/* text: read in its format */
	BB_CONTENT_BINARY,	/* NUL bytes, UTF-16, or more than 1 byte in 8 no text holds */
	BB_CONTENT_HTML,	/* markup: an HTML page (a server's error or login page) */
	BB_CONTENT_JSON_ERROR,	/* the whole file one JSON object with "error", "message"...
				 * and no key a JSON list holds entries in */
	BB_CONTENT_MAX,
};

/*
 * What head[0..len) is (whole: it is the whole file). When not a list, why is set to
 * what it is, for a message that goes on ", not a list": "binary data (a NUL byte at
 * offset 17)", "an HTML page, titled "502 Bad Gateway"", "a JSON error body,
 * message "Not Found"".
 */
enum bb_content bb_content_of(const char *head, size_t len, bool whole, char *why,
			      size_t size);
const char *bb_content_name(enum bb_content content);	/* "list", "binary", "html"... */
const char *bb_content_what(enum bb_content content);	/* "binary data", "an HTML page"... */

/*
 * The rejected lines of c that are no entry of their format at all (syntax, a bad
 * address or name, a lone label, too long); not those the format reads and the filter
 * cannot follow (Adblock options and cosmetic rules, $INCLUDE, hosts mappings...).
 */
size_t bb_list_unreadable(const struct bb_list_counts *c);
/*
 * More than half of c's lines that are not blank or comments (entries, preamble,
 * skipped lines and rejects) are unreadable: true, and why ("6 of its 7 lines that
 * are not blank or comments (86%, more than half) do not read as FORMAT").
 */
bool bb_list_mostly_unreadable(const struct bb_list_counts *c, const char *format, char *why,
			       size_t size);

/* A line worth naming in a summary: the first of its class. */
struct bb_list_note {
	size_t line;			/* 1-based; 0: no such line */
	char text[BB_LIST_NOTE_TEXT + 1];	/* escaped, cut */
};

enum bb_line_class {
	BB_CLASS_PREAMBLE,
	BB_CLASS_SKIPPED,
	BB_CLASS_REJECTED,
	BB_CLASS_MAX,
};

/* What a file was read as, for the summary. */
struct bb_file_info {
	enum bb_list_format format;
	enum bb_compression compression;
	char column[BB_LIST_COLUMN_MAX + 32];	/* CSV or JSON: the column read, "" */
	struct bb_list_note first[BB_CLASS_MAX];	/* the first line of each class */
	struct bb_list_note watched[BB_WATCH_MAX];	/* the first block entry sharing an
							 * address with opts watch[i] */
	unsigned int n_sets;				/* ipset: the sets of the file */
	struct {
		char name[32];
		size_t entries;		/* its add lines */
		bool chosen;
	} sets[BB_LIST_MAX_SETS];
	bool more_sets;			/* more than BB_LIST_MAX_SETS */
	bool sets_picked;		/* --ipset-set chose; false: every set is loaded */
	const char *missing_set;	/* a --ipset-set name the file does not have */
	enum bb_content content;	/* not a list: what it is, and why (the parse
					 * failed with -EMEDIUMTYPE) */
	char content_why[192];
	size_t rpz_absolute;		/* RPZ: absolute owners read as the triggers
					 * themselves, the zone having no $ORIGIN or SOA */
};

struct bb_list_opts {
	FILE *report;		/* where "file:line: reason" goes; NULL: nowhere */
	size_t report_max;	/* reports printed per file before "... N more"; 0: all */
	unsigned int threads;	/* parse threads for a regular file; 0: one per online CPU */
	size_t part_bytes;	/* size of the pieces a file is cut into; 0: 256 KiB (tests
				 * cut small files into many) */
	struct bb_file_opts file;	/* how to read the file */
	struct bb_file_info *info;	/* out, when not NULL: what the file was read as */
	/*
	 * Bounds (0: none): the lines that hold an entry, and the bytes (inflated) of the
	 * file. Past one, the parse stops with -E2BIG or -EFBIG, said with the file's name:
	 * what a list can take of memory is bounded, and a decompression bomb stops.
	 */
	__u64 max_entries;
	__u64 max_bytes;
	__u64 entries_before;	/* read by the files before this one, for max_entries */
};

struct bb_list {
	struct bb_entry *entries;
	size_t n, cap;
	struct bb_list_counts counts;	/* summed over every file parsed */
	void *priv;			/* de-duplication set, string storage */
};

void bb_list_init(struct bb_list *list);
void bb_list_free(struct bb_list *list);

/*
 * Parse one file ("-" is stdin) and append its entries. Counts go to list->counts
 * and, for this file alone, to *file_counts when not NULL; what it was read as to
 * opts->info. Returns 0, or -errno when the file cannot be read (reported with its
 * name): -ESTALE when it was truncated or rewritten while it was read, -EBADMSG when
 * its compressed data is corrupt or cut short; -EMEDIUMTYPE when it is no list
 * (bb_content_of(): binary data, an HTML page, a JSON error body; reported as
 * "FILE: WHAT, not a list", and in opts->info); -ENOMEM when memory runs out.
 * Rejected lines are not errors here: the caller decides (--strict).
 * The format is opts->file.format, or detected from the first 64 KiB of content;
 * gzip, xz and zstd input is detected by its magic bytes and inflated as it is read.
 * A regular, uncompressed file in a format without state across lines is read in
 * pieces cut at line boundaries by opts->threads threads; entries, counts, duplicates
 * and reports (in line order, the first report_max) are the same as a line-by-line
 * parse gives. Lines of any length are read; one over 4096 bytes is rejected whole.
 */
int bb_list_parse_file(struct bb_list *list, const char *path, const struct bb_list_opts *opts,
		       struct bb_list_counts *file_counts);

/*
 * Where a scan sends entries: entry() is called for each one, from the parse thread
 * numbered thread (0 .. bb_list_threads(opts->threads) - 1), with e and its text
 * valid only during the call. Calls from different threads run concurrently.
 */
struct bb_list_sink {
	void (*entry)(void *ctx, unsigned int thread, const struct bb_entry *e);
	/* (ctx, then) optional: the part of the file (its ordinal) whose entries come next on
	 * thread, their lines counted from the part's start; and once every part is
	 * parsed, each part's number of lines, in order, so that a line in a part can be
	 * made a line in the file.
	 */
	void *ctx;
	void (*part)(void *ctx, unsigned int thread, size_t part);
	void (*part_lines)(void *ctx, size_t part, size_t lines);
};

/*
 * Parse a regular file as bb_list_parse_file() does, threads and reports alike, but
 * store nothing: every valid entry goes to sink, and counts as accepted (there is
 * no set, so duplicates are not found: counts->duplicates stays 0). Memory does not
 * grow with the file. Returns 0, -EINVAL for a file that is not regular (it could not
 * be read a second time), or -errno as bb_list_parse_file() (reported with the name).
 */
int bb_list_scan_file(const char *path, const struct bb_list_opts *opts,
		      const struct bb_list_sink *sink, struct bb_list_counts *counts);

/*
 * Parse one line (no line terminator needed; CR, BOM handled) in the plain format:
 * what plain lists, hosts files and Adblock lists hold. Appends the entries the
 * line holds. Returns 1 for an entry added or a duplicate, 0 for a line that holds no
 * entry (blank, comment, preamble), or -(1 + enum bb_reject_reason) for a rejected
 * line; on reject *why (if not NULL) is set to a human-readable reason.
 * BB_LIST_NOMEM (below every reject code) when memory runs out.
 * A line from hosts files may carry one address and several names; every name
 * is added, and counted on its own (accepted, duplicate, preamble or rejected). An
 * address range (A-B) is added as the fewest CIDRs that cover it exactly.
 */
int bb_list_parse_line(struct bb_list *list, const char *line, size_t len, const char **why);
#define BB_LIST_NOMEM	(-4096)

/*
 * Parse one item as the user types it to `bloomblock check`: IP, CIDR, name, *.name,
 * URL (http://host/path or host/path). The text goes to text_buf (BB_KEY_MAX + 1
 * bytes is enough). Returns 0 or -(1 + enum bb_reject_reason). Unlike a list line, a
 * single-label name is accepted: it is a question, not an entry.
 */
int bb_list_parse_item(const char *item, struct bb_entry *entry, char *text_buf, size_t text_size,
		       const char **why);

/* Threads to use: threads, or one per online CPU for 0; at most BB_LIST_MAX_THREADS. */
unsigned int bb_list_threads(unsigned int threads);

size_t bb_list_rejected_total(const struct bb_list_counts *counts);
size_t bb_list_skipped_total(const struct bb_list_counts *counts);
void bb_list_counts_add(struct bb_list_counts *sum, const struct bb_list_counts *c);
const char *bb_entry_kind_name(enum bb_entry_kind kind);	/* "ipv4", "ipv6", "name", "url" */
const char *bb_reject_reason_name(enum bb_reject_reason reason);	/* snake_case */
const char *bb_skip_reason_name(enum bb_skip_reason reason);	/* snake_case */
const char *bb_line_class_name(enum bb_line_class class);	/* "hosts-file preamble"... */
const char *bb_list_format_name(enum bb_list_format format);	/* "plain", "rpz"... */
const char *bb_compression_name(enum bb_compression compression);	/* "gzip"..., "none" */
/* A format by its name (bb_list_format_name(), "auto" too); -1: no such format. */
int bb_list_format_parse(const char *name);

/*
 * Text for a terminal or a log: printable ASCII and valid UTF-8 as they are, every
 * other byte (control bytes, invalid UTF-8, backslash too) as \xNN. Writes at most
 * size - 1 bytes and a NUL; a cut never splits an escape or a character. Returns the
 * input bytes written out.
 */
size_t bb_escape_text(const char *in, size_t len, char *out, size_t size);

/*
 * Canonical hostname: lowercase ASCII, no trailing dot, IDN to punycode (libidn2).
 * Returns 0, or -(1 + BB_REJECT_BAD_NAME) (characters, label or name length, IDNA)
 * or -(1 + BB_REJECT_TOO_LONG) (out_size too small) with *why set. Single labels
 * are valid here: refusing them in a list is the list's policy.
 */
int bb_name_canonical(const char *in, size_t len, char *out, size_t out_size, const char **why);

#endif /* BB_LIST_H */

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
};

struct bb_entry {
	__u8 kind;		/* enum bb_entry_kind */
	__u8 plen;		/* IP: prefix length, 32 or 128 for one address */
	__u8 flags;		/* enum bb_entry_flags */
	__u8 pad;
	__u8 addr[16];		/* IP: network byte order, host bits cleared; IPv4 in addr[0..3] */
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
	BB_REJECT_REASON_MAX,
};

struct bb_list_counts {
	size_t lines;
	size_t accepted[BB_ENTRY_KIND_MAX];	/* new entries, by kind */
	size_t duplicates;			/* valid entries already seen */
	size_t blank;
	size_t comments;			/* #, ;, !, [Adblock Plus 2.0] headers */
	size_t preamble;			/* localhost, broadcasthost, 0.0.0.0, local hosts lines */
	size_t rejected[BB_REJECT_REASON_MAX];
};

#define BB_LIST_MAX_THREADS 64

struct bb_list_opts {
	FILE *report;		/* where "file:line: reason" goes; NULL: nowhere */
	size_t report_max;	/* reports printed per file before "... N more"; 0: all */
	unsigned int threads;	/* parse threads for a regular file; 0: one per online CPU */
	size_t part_bytes;	/* size of the pieces a file is cut into; 0: 256 KiB (tests
				 * cut small files into many) */
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
 * and, for this file alone, to *file_counts when not NULL. Returns 0, or -errno
 * when the file cannot be read (reported with its name) or memory runs out.
 * Rejected lines are not errors here: the caller decides (--strict).
 * A regular file is mapped and parsed by opts->threads threads, each taking pieces
 * cut at line boundaries; entries, counts, duplicates and reports (in line order,
 * the first report_max) are the same as a line-by-line parse gives.
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
	void *ctx;
};

/*
 * Parse a regular file as bb_list_parse_file() does, threads and reports alike, but
 * store nothing: every valid entry goes to sink, and counts as accepted (there is
 * no set, so duplicates are not found: counts->duplicates stays 0). Memory does not
 * grow with the file: it is mapped, and a piece's pages leave the resident set once
 * parsed. Returns 0, -EINVAL for a file that is not regular (it could not be read a
 * second time), or -errno (reported with the file's name).
 */
int bb_list_scan_file(const char *path, const struct bb_list_opts *opts,
		      const struct bb_list_sink *sink, struct bb_list_counts *counts);

/*
 * Parse one line (no line terminator needed; CR, BOM handled). Appends at most one
 * entry. Returns 1 for an entry added or a duplicate, 0 for a line that holds no
 * entry (blank, comment, preamble), or -(1 + enum bb_reject_reason) for a rejected
 * line; on reject *why (if not NULL) is set to a human-readable reason. -ENOMEM
 * (below every reject code) when memory runs out.
 * A line from hosts files may carry one address and several names; every name
 * is added, and counted on its own (accepted, duplicate, preamble or rejected).
 */
int bb_list_parse_line(struct bb_list *list, const char *line, size_t len, const char **why);

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
const char *bb_entry_kind_name(enum bb_entry_kind kind);	/* "ipv4", "ipv6", "name", "url" */
const char *bb_reject_reason_name(enum bb_reject_reason reason);	/* snake_case */

/*
 * Canonical hostname: lowercase ASCII, no trailing dot, IDN to punycode (libidn2).
 * Returns 0, or -(1 + BB_REJECT_BAD_NAME) (characters, label or name length, IDNA)
 * or -(1 + BB_REJECT_TOO_LONG) (out_size too small) with *why set. Single labels
 * are valid here: refusing them in a list is the list's policy.
 */
int bb_name_canonical(const char *in, size_t len, char *out, size_t out_size, const char **why);

#endif /* BB_LIST_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a file is when it is no list, told from its head before any format: binary
 * data, an HTML page, a JSON error body. That is what a server sends in place of a
 * list (an error or login page with a 200, an API's error object), what a cut or
 * corrupted download leaves, what a wrong path names. Read as a list, each gives a
 * few entries out of its junk, or a format it is not (binary data reads as Adblock),
 * and a reload would swap a good filter for it. And the lines of a list that do not
 * read as entries of its format at all, against those it holds: a list that is mostly
 * such lines is not the list it was. The reload guard (load, the daemon's feeds)
 * refuses what these find.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "list_int.h"

#define QUOTE_MAX	60	/* bytes of a title, a line or a message quoted */

/* Whether s[0..len) holds needle, ASCII case folded. */
static const char *find_ci(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle), i;

	for (i = 0; i + n <= len; i++)
		if (!strncasecmp(s + i, needle, n))
			return s + i;
	return NULL;
}

/*
 * The bytes that no text holds: control bytes other than tab, newline, vertical tab,
 * form feed and carriage return, DEL, and bytes of no valid UTF-8 sequence. A
 * sequence cut by the end of a head that is not the whole file is not counted.
 */
static size_t not_text(const unsigned char *p, size_t len, bool whole, size_t *first)
{
	size_t i = 0, bad = 0, n, k;

	while (i < len) {
		unsigned char c = p[i];
		bool ok = true;

		if (c < 0x80) {
			ok = c >= 0x20 ? c != 0x7f : (c >= '\t' && c <= '\r');
			n = 1;
		} else {
			n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 :
			    c >= 0xf0 && c <= 0xf4 ? 4 : 0;
			if (n && i + n > len && !whole)
				break;	/* cut by the head's end */
			ok = n && i + n <= len;
			for (k = 1; ok && k < n; k++)
				ok = (p[i + k] & 0xc0) == 0x80;
			/* overlong or surrogate three- and four-byte forms */
			if (ok && n == 3)
				ok = !(c == 0xe0 && p[i + 1] < 0xa0) && !(c == 0xed && p[i + 1] > 0x9f);
			if (ok && n == 4)
				ok = !(c == 0xf0 && p[i + 1] < 0x90) && !(c == 0xf4 && p[i + 1] > 0x8f);
			if (!ok)
				n = 1;
		}
		if (!ok && !bad++)
			*first = i;
		i += n;
	}
	return bad;
}

/* text[0..len), escaped and cut, whitespace runs made one space, into out. */
static void quote(const char *text, size_t len, char *out, size_t size)
{
	char flat[QUOTE_MAX + 1] = "";
	size_t i, o = 0;

	for (i = 0; i < len && o < QUOTE_MAX; i++) {
		bool space = is_space(text[i]) || text[i] == '\n' || text[i] == '\r';

		if (space && (!o || flat[o - 1] == ' '))
			continue;
		flat[o++] = space ? ' ' : text[i];
	}
	while (o && flat[o - 1] == ' ')
		o--;
	bb_escape_text(flat, o, out, size);
	o = strlen(out);
	if (i < len && o + 4 < size)
		memcpy(out + o, "...", 4);
}

/*
 * Markup: the first byte of content is '<' and a tag follows. No list format starts
 * so. An HTML page is named by its title, which says what the server meant (a 404, a
 * login, a gateway's error); else by its first line.
 */
static bool markup(const char *s, size_t len, char *why, size_t size)
{
	const char *title, *end;
	char text[4 * QUOTE_MAX + 8];
	bool html;

	if (len < 2 || s[0] != '<' ||
	    !(s[1] == '!' || s[1] == '?' || ((s[1] | 0x20) >= 'a' && (s[1] | 0x20) <= 'z')))
		return false;
	html = find_ci(s, len, "<html") || find_ci(s, len, "<!doctype html") ||
	       find_ci(s, len, "<head") || find_ci(s, len, "<body") || find_ci(s, len, "<title");
	title = find_ci(s, len, "<title");
	if (title)
		title = mem_find(title, (size_t)(s + len - title), '>');
	end = title ? mem_find(title, (size_t)(s + len - title), '<') : NULL;
	if (title && end && end > title + 1) {
		quote(title + 1, (size_t)(end - title - 1), text, sizeof(text));
		snprintf(why, size, "an HTML page, titled \"%s\"", text);
		return true;
	}
	end = mem_find(s, len, '\n');
	quote(s, end ? (size_t)(end - s) : len, text, sizeof(text));
	snprintf(why, size, "%s (%s)", html ? "an HTML page" : "markup, HTML or XML", text);
	return true;
}

/* The keys of an API's error object; none of them holds a list's entry. */
static const char *const error_keys[] = { "error", "errors", "message", "detail", "fault", NULL };

/*
 * A JSON error body: the whole file one JSON object (what an API answers a bad key,
 * a rate limit or a missing path with) that has an error key and no key a JSON list
 * reads entries from. A JSON-lines list is one object a line, each with an entry key.
 */
static bool json_error(const char *s, size_t len, bool whole, char *why, size_t size)
{
	char text[4 * QUOTE_MAX + 8];
	json_t *obj, *v = NULL;
	const char *key = NULL;
	size_t k;

	if (!whole || !len || s[0] != '{')
		return false;
	obj = json_loadb(s, len, 0, NULL);
	if (!json_is_object(obj)) {
		json_decref(obj);
		return false;
	}
	for (k = 0; json_keys[k]; k++) {
		if (json_object_get(obj, json_keys[k])) {
			json_decref(obj);
			return false;
		}
	}
	for (k = 0; error_keys[k] && !v; k++) {
		key = error_keys[k];
		v = json_object_get(obj, key);
	}
	if (v) {
		char *dump = json_is_string(v) ? NULL : json_dumps(v, JSON_COMPACT);
		const char *t = dump ? dump : json_string_value(v);

		quote(t ? t : "", t ? strlen(t) : 0, text, sizeof(text));
		snprintf(why, size, json_is_string(v) ? "a JSON error body, %s \"%s\"" :
			 "a JSON error body, %s %s", key, text);
		free(dump);
	}
	json_decref(obj);
	return v != NULL;
}

enum bb_content bb_content_of(const char *head, size_t len, bool whole, char *why, size_t size)
{
	const unsigned char *p = (const unsigned char *)head;
	const char *nul = memchr(head, '\0', len), *s = head;
	size_t first = 0, bad, n = len, nuls = 0, i;

	if (size)
		why[0] = '\0';
	if (len >= 2 && ((p[0] == 0xff && p[1] == 0xfe) || (p[0] == 0xfe && p[1] == 0xff))) {
		snprintf(why, size, "binary data (UTF-16 text, which lists are not: convert it "
			 "to UTF-8)");
		return BB_CONTENT_BINARY;
	}
	if (nul) {
		for (i = (size_t)(nul - head); i < len; i++)
			nuls += !head[i];
		if (nuls == 1)
			snprintf(why, size, "binary data (a NUL byte at offset %zu)",
				 (size_t)(nul - head));
		else
			snprintf(why, size, "binary data (%zu NUL bytes, the first at offset %zu)",
				 nuls, (size_t)(nul - head));
		return BB_CONTENT_BINARY;
	}
	/* more than one byte in eight no text holds: Latin-1 comments stay well under */
	bad = not_text(p, len, whole, &first);
	if (bad && bad * 8 > len) {
		snprintf(why, size, "binary data (%zu of its first %zu bytes are neither text nor "
			 "UTF-8, the first at offset %zu)", bad, len, first);
		return BB_CONTENT_BINARY;
	}
	if (n >= 3 && !memcmp(s, "\xef\xbb\xbf", 3)) {
		s += 3;
		n -= 3;
	}
	while (n && (is_space(*s) || *s == '\n' || *s == '\r')) {
		s++;
		n--;
	}
	if (markup(s, n, why, size))
		return BB_CONTENT_HTML;
	if (json_error(s, n, whole, why, size))
		return BB_CONTENT_JSON_ERROR;
	return BB_CONTENT_LIST;
}

const char *bb_content_what(enum bb_content content)
{
	static const char *const what[BB_CONTENT_MAX] = {
		[BB_CONTENT_LIST] = "a list", [BB_CONTENT_BINARY] = "binary data",
		[BB_CONTENT_HTML] = "an HTML page", [BB_CONTENT_JSON_ERROR] = "a JSON error body",
	};

	return content < BB_CONTENT_MAX ? what[content] : "?";
}

const char *bb_content_name(enum bb_content content)
{
	static const char *const names[BB_CONTENT_MAX] = {
		[BB_CONTENT_LIST] = "list", [BB_CONTENT_BINARY] = "binary",
		[BB_CONTENT_HTML] = "html", [BB_CONTENT_JSON_ERROR] = "json_error",
	};

	return content < BB_CONTENT_MAX ? names[content] : "?";
}

/*
 * Rejects that say a line is no entry of the format at all: not its syntax, an
 * address or a name that is none, a lone word, a line too long. Not those of lines
 * the format reads and the filter cannot follow (Adblock options, patterns, cosmetic
 * rules and exceptions, $INCLUDE, hosts mappings, wide prefixes): a real Adblock list
 * may be mostly those.
 */
size_t bb_list_unreadable(const struct bb_list_counts *c)
{
	return c->rejected[BB_REJECT_SYNTAX] + c->rejected[BB_REJECT_BAD_ADDRESS] +
	       c->rejected[BB_REJECT_BAD_NAME] + c->rejected[BB_REJECT_SINGLE_LABEL] +
	       c->rejected[BB_REJECT_TOO_LONG];
}

bool bb_list_mostly_unreadable(const struct bb_list_counts *c, const char *format, char *why,
			       size_t size)
{
	size_t content = c->lines - c->blank - c->comments, bad = bb_list_unreadable(c);

	if (!bad || bad * 2 <= content)
		return false;
	if (content < bad)
		content = bad;	/* a hosts line counts each of its names */
	snprintf(why, size, "%zu of its %zu lines that are not blank or comments (%.0f%%, more "
		 "than half) do not read as %s", bad, content, 100.0 * (double)bad / (double)content,
		 format);
	return true;
}

// SPDX-License-Identifier: GPL-2.0
/* The packet parsers the BPF programs run, compiled in userspace: tables of crafted buffers. */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_ether.h>
#include <linux/in.h>

#include "bb_names.h"
#include "bb_parse.h"
#include "bb_tls.h"
#include "lib/pkt.h"
#include "rng.h"
#include "tap.h"

/*
 * Every buffer a parser reads is allocated to its exact length, so that under
 * ASan (make asan) a read one byte past the end fails the run. Where the BPF side
 * hands a parser a fixed scratch buffer (the HTTP request copy), the test does the
 * same and fills the bytes past the request with a request of another host: a
 * parser that used them would answer differently.
 */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define DNS_ID		0xbeef	/* the queries' ID: nothing reads it */

static const char *const name_results[] = { "FOUND", "NONE", "EMPTY", "BAD" };
static const char *const tls_results[] = { "MORE", "SNI", "NO_SNI", "BAD" };

static __u64 rng_state = 0x7061727365727321ULL;

static __u64 rng_next(void)
{
	return splitmix64(&rng_state);
}

static __u8 *dup_exact(const __u8 *p, size_t len)
{
	__u8 *copy = malloc(len ? len : 1);

	if (copy && len)
		memcpy(copy, p, len);
	return copy;
}

/* ---- DNS question names ---- */

struct dns_case {
	const char *name;
	const char *dotted;	/* the question name, dotted; NULL: wire */
	const char *wire;	/* or as wire bytes */
	size_t wire_len;
	unsigned int flags;	/* header byte 2, PKT_SET(v); default 0x01 */
	unsigned int qdcount;	/* PKT_SET(v); default 1 */
	size_t cut;		/* message cut to this many bytes; 0: whole */
	int result;
	const char *canonical;	/* FOUND: key[1 .. len] */
};

static char dns_long63[80], dns_long64[80], dns_253[256], dns_254[256], dns_upper253[256];

#define WIRE(b)		.wire = (b), .wire_len = sizeof(b) - 1

static const struct dns_case dns_cases[] = {
	{ "a name",			"evil.example", .result = BB_NAME_FOUND,
	  .canonical = "evil.example" },
	{ "upper case is lowered",	"WwW.EVIL.Example", .result = BB_NAME_FOUND,
	  .canonical = "www.evil.example" },
	{ "one label",			"localhost", .result = BB_NAME_FOUND, .canonical = "localhost" },
	{ "digits, hyphen, underscore stay", "_dmarc.a-1.example", .result = BB_NAME_FOUND,
	  .canonical = "_dmarc.a-1.example" },
	{ "63-byte label",		dns_long63, .result = BB_NAME_FOUND, .canonical = dns_long63 },
	{ "253-byte name",		dns_253, .result = BB_NAME_FOUND, .canonical = dns_253 },
	{ "253-byte name in upper case", dns_upper253, .result = BB_NAME_FOUND,
	  .canonical = dns_253 },
	{ "254-byte name",		dns_254, .result = BB_NAME_BAD },
	{ "64-byte label",		dns_long64, .result = BB_NAME_BAD },
	{ "root",			"", .result = BB_NAME_EMPTY },
	{ "compression pointer",	WIRE("\xc0\x0c"), .result = BB_NAME_BAD },
	{ "compression pointer after a label", WIRE("\x03www\xc0\x0c"), .result = BB_NAME_BAD },
	{ "extended label type 0x40",	WIRE("\x41" "a\0"), .result = BB_NAME_BAD },
	{ "zero byte inside a label",	WIRE("\x04" "ev\0l\x07" "example\0"), .result = BB_NAME_BAD },
	{ "label length past the name's end", WIRE("\x05" "evil\0"), .result = BB_NAME_BAD },
	{ "a dot inside a label is kept as it is", WIRE("\x03" "a.b\x07" "example\0"),
	  .result = BB_NAME_FOUND, .canonical = "a.b.example" },
	{ "no terminating zero",	WIRE("\x04" "evil\x07" "exam"), .cut = 12 + 10,
	  .result = BB_NAME_BAD },
	{ "header only",		"evil.example", .cut = 12, .result = BB_NAME_BAD },
	{ "shorter than a header",	"evil.example", .cut = 5, .result = BB_NAME_BAD },
	{ "no question",		"evil.example", .qdcount = PKT_SET(0),
	  .result = BB_NAME_BAD },
	{ "two questions: the first is read", "evil.example", .qdcount = PKT_SET(2),
	  .result = BB_NAME_FOUND, .canonical = "evil.example" },
	{ "response",			"evil.example", .flags = PKT_SET(0x81),
	  .result = BB_NAME_NONE },
	{ "opcode IQUERY",		"evil.example", .flags = PKT_SET(0x08),
	  .result = BB_NAME_NONE },
	{ "opcode UPDATE",		"evil.example", .flags = PKT_SET(0x28),
	  .result = BB_NAME_NONE },
	{ "truncated flag (TC) is still a query", "evil.example", .flags = PKT_SET(0x03),
	  .result = BB_NAME_FOUND, .canonical = "evil.example" },
	{ "response to the root",	"", .flags = PKT_SET(0x80), .result = BB_NAME_NONE },
};

/* Run bb_dns_qname on an exact copy; *name gets key[1 .. len] on FOUND. */
static int dns_run(const __u8 *msg, size_t len, char *name, __u32 *name_len)
{
	static __u8 key[BB_KEYBUF_BYTES];
	__u8 *copy = dup_exact(msg, len);
	int ret;

	memset(key, 0xee, sizeof(key));
	*name_len = 0;
	ret = bb_dns_qname(copy, copy + len, key, name_len);
	if (ret == BB_NAME_FOUND && *name_len <= BB_NAME_MAX) {
		memcpy(name, key + 1, *name_len);
		name[*name_len] = 0;
	}
	free(copy);
	return ret;
}

/* The word-at-a-time helpers equal their byte versions, every byte value in every lane. */
static void test_words(void)
{
	unsigned int b, lane, bad_lower = 0, bad_zero = 0;

	for (b = 0; b < 256; b++) {
		for (lane = 0; lane < 8; lane++) {
			__u8 in[8], want[8], got[8];
			__u64 v;
			unsigned int i;

			for (i = 0; i < 8; i++)
				in[i] = i == lane ? (__u8)b : (__u8)(rng_next() | 1);
			for (i = 0; i < 8; i++)
				want[i] = bb_lower(in[i]);
			memcpy(&v, in, 8);
			v = bb_lower8(v);
			memcpy(got, &v, 8);
			bad_lower += memcmp(got, want, 8) != 0;
			memcpy(&v, in, 8);
			bad_zero += bb_has_zero8(v) != (memchr(in, 0, 8) != NULL);
		}
	}
	tap_result(!bad_lower, "bb_lower8 equals bb_lower on every byte in every lane",
		   "%u wrong", bad_lower);
	tap_result(!bad_zero, "bb_has_zero8 finds a zero byte in every lane, no other",
		   "%u wrong", bad_zero);
}

/*
 * bb_low_zero_byte() gives the first zero byte of a word, whatever the bytes after
 * it (zeros, 0x01 whose borrow marks them too, anything), nonzero bytes before it.
 */
static void test_low_zero_byte(void)
{
	unsigned int first, rep, bad = 0, got = 0;

	for (first = 0; first < 8; first++) {
		for (rep = 0; rep < 20000; rep++) {
			__u8 in[8];
			__u64 v, z;
			unsigned int i;

			for (i = 0; i < 8; i++) {
				__u8 r = (__u8)rng_next();

				if (i < first)
					in[i] = r | (rep & 1);	/* some 0x01: a borrow source */
				else
					in[i] = i == first ? 0 : rep % 3 == 0 ? 1 : rep % 3 == 1 ? 0 : r;
				if (i < first && !in[i])
					in[i] = 1;
			}
			memcpy(&v, in, 8);
			z = (v - 0x0101010101010101ULL) & ~v & 0x8080808080808080ULL;
			got = bb_low_zero_byte(z);
			bad += got != first;
		}
	}
	tap_result(!bad, "bb_low_zero_byte finds the first zero byte of a word",
		   "%u wrong (last answer %u)", bad, got);
}

static void test_dns(void)
{
	char name[512];
	__u8 buf[600];
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(dns_cases); i++) {
		const struct dns_case *c = &dns_cases[i];
		struct pkt_dns q = { .name = c->dotted, .wire = c->wire, .wire_len = c->wire_len,
				     .id = DNS_ID, .flags = c->flags, .qdcount = c->qdcount };
		char tname[200];
		__u32 nlen;
		int ret;

		len = pkt_dns(&q, buf, sizeof(buf));
		if (c->cut)
			len = c->cut;
		ret = dns_run(buf, len, name, &nlen);
		snprintf(tname, sizeof(tname), "bb_dns_qname: %s", c->name);
		if (ret != c->result)
			tap_result(false, tname, "result %s, expected %s", name_results[ret & 3],
				   name_results[c->result]);
		else if (ret == BB_NAME_FOUND)
			tap_result(nlen == strlen(c->canonical) && !strcmp(name, c->canonical),
				   tname, "\"%.*s\" (%u bytes), expected \"%s\"", (int)nlen, name,
				   nlen, c->canonical);
		else
			tap_result(true, tname, NULL);
	}
}

/* cut at every length: a name only once its terminating zero is in */
static void test_dns_cuts(void)
{
	static const char *const names[] = { "www.evil.example", dns_253, "" };
	char name[512], msg[400];
	unsigned long bad = 0;
	__u8 buf[600];
	size_t i, k;

	msg[0] = 0;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		struct pkt_dns q = { .name = names[i], .id = DNS_ID };
		size_t full = pkt_dns(&q, buf, sizeof(buf));
		size_t wire_end = full - 4;

		for (k = 0; k <= full; k++) {
			int want = k < wire_end ? BB_NAME_BAD :
				   names[i][0] ? BB_NAME_FOUND : BB_NAME_EMPTY;
			__u32 nlen;
			int ret = dns_run(buf, k, name, &nlen);

			if (ret != want && !bad++)
				snprintf(msg, sizeof(msg), "%.40s cut at %zu: %s, expected %s",
					 names[i], k, name_results[ret & 3],
					 name_results[want]);
		}
	}
	tap_result(!bad, "bb_dns_qname: cut at every length, a name only when whole",
		   "%lu wrong; first: %s", bad, msg);
}

/*
 * Random questions: whatever comes out is a dotted name of labels 1..63 bytes,
 * at most 253 bytes, lowercase, and it is the wire name read back.
 */
static void test_dns_random(void)
{
	unsigned long runs = 0, wrong = 0, found = 0;
	char name[512], msg[400];
	__u8 buf[600];
	size_t len, k;

	msg[0] = 0;
	for (k = 0; k < 200000; k++) {
		size_t wire_len = rng_next() % 300, j, cut;
		__u8 wire[300];
		struct pkt_dns q = { .wire = wire, .wire_len = wire_len, .id = DNS_ID };
		__u32 nlen;
		int ret;

		for (j = 0; j < wire_len; j++) {
			__u64 r = rng_next();

			/* mostly letters, some label lengths, zeros, pointers */
			wire[j] = r % 8 == 0 ? (r >> 8) % 64 : r % 8 == 1 ? 0 :
				  r % 8 == 2 ? (__u8)(r >> 8) : 'A' + (r >> 8) % 58;
		}
		/* a fair share of well-formed names */
		if (k % 2) {
			size_t at = 0;

			while (at + 1 < wire_len) {
				size_t l = 1 + rng_next() % 20;

				if (at + 1 + l >= wire_len)
					break;
				wire[at] = l;
				at += l + 1;
			}
			if (at < wire_len)
				wire[at] = 0;
		}
		len = pkt_dns(&q, buf, sizeof(buf));
		cut = rng_next() % 4 ? len : rng_next() % (len + 1);
		ret = dns_run(buf, cut, name, &nlen);
		runs++;
		if (ret != BB_NAME_FOUND)
			continue;
		found++;
		/* the wire labels, lowercased, joined by dots: nothing else */
		{
			char want[600];
			size_t at = 12, w = 0, l;
			bool ok = true;

			while (ok && at < cut && buf[at]) {
				l = buf[at];
				ok = l <= 63 && at + 1 + l < cut;
				for (j = 0; ok && j < l; j++) {
					__u8 ch = buf[at + 1 + j];

					want[w++] = ch >= 'A' && ch <= 'Z' ? ch + 32 : ch;
				}
				at += l + 1;
				if (ok && at < cut && buf[at])
					want[w++] = '.';
			}
			want[w] = 0;
			ok = ok && w == nlen && w <= BB_NAME_MAX && !memcmp(want, name, w);
			if (!ok && !wrong++)
				snprintf(msg, sizeof(msg), "%u bytes, the wire says %zu",
					 nlen, w);
		}
	}
	tap_result(!wrong && found > 1000, "bb_dns_qname: 200,000 random questions, every "
		   "name found reads back as its wire form", "%lu of %lu found wrong (%lu "
		   "runs); first: %s", wrong, found, runs, msg);
}

/* ---- HTTP requests ---- */

struct http_case {
	const char *name;
	const char *req;
	int result;
	const char *host;	/* FOUND: the Host, canonical */
	const char *path;	/* FOUND: the path after the host */
	int full;		/* FOUND: the path was not cut */
};

static char http_long_path[400], http_long_req[600], http_late_host[700], http_host_at_504[600];
static char http_long_host[300], http_long_host_req[400], http_host254_req[400];
static char http_host253[260];

static const struct http_case http_cases[] = {
	{ "origin form",	"GET /a/b?c=d HTTP/1.1\r\nHost: evil.example\r\n\r\n",
	  BB_NAME_FOUND, "evil.example", "/a/b?c=d", 1 },
	{ "Host with a port",	"GET / HTTP/1.1\r\nHost: evil.example:8080\r\n\r\n",
	  BB_NAME_FOUND, "evil.example", "/", 1 },
	{ "lower-case host:",	"GET / HTTP/1.1\r\nhost: evil.example\r\n\r\n",
	  BB_NAME_FOUND, "evil.example", "/", 1 },
	{ "mixed case HoSt: and value", "GET / HTTP/1.1\r\nHoSt: EVIL.Example\r\n\r\n",
	  BB_NAME_FOUND, "evil.example", "/", 1 },
	{ "spaces before the value", "GET / HTTP/1.1\r\nHost:    evil.example\r\n\r\n",
	  BB_NAME_FOUND, "evil.example", "/", 1 },
	{ "16 spaces before the value: too many, an empty value",
	  "GET / HTTP/1.1\r\nHost:                evil.example\r\n\r\n", BB_NAME_EMPTY },
	{ "15 spaces before the value",
	  "GET / HTTP/1.1\r\nHost:               evil.example\r\n\r\n",
	  BB_NAME_FOUND, "evil.example", "/", 1 },
	{ "a tab",		"GET / HTTP/1.1\r\nHost:\tevil.example\r\n\r\n",
	  BB_NAME_FOUND, "evil.example", "/", 1 },
	{ "obs-fold CRLF SP",	"GET / HTTP/1.1\r\nHost:\r\n evil.example\r\n\r\n",
	  BB_NAME_FOUND, "evil.example", "/", 1 },
	{ "obs-fold CRLF TAB",	"GET / HTTP/1.1\r\nHost:\r\n\tevil.example\r\n\r\n",
	  BB_NAME_FOUND, "evil.example", "/", 1 },
	{ "trailing spaces after the value", "GET / HTTP/1.1\r\nHost: evil.example  \r\n\r\n",
	  BB_NAME_FOUND, "evil.example", "/", 1 },
	{ "trailing dot",	"GET / HTTP/1.1\r\nHost: evil.example.\r\n\r\n",
	  BB_NAME_FOUND, "evil.example", "/", 1 },
	{ "the first of two Host headers", "GET / HTTP/1.1\r\nHost: a.example\r\n"
	  "Host: evil.example\r\n\r\n", BB_NAME_FOUND, "a.example", "/", 1 },
	{ "Host after other headers", "GET / HTTP/1.1\r\nUser-Agent: x\r\nAccept: */*\r\n"
	  "Host: evil.example\r\n\r\n", BB_NAME_FOUND, "evil.example", "/", 1 },
	{ "LF line ends",	"GET / HTTP/1.1\nHost: evil.example\n\n",
	  BB_NAME_FOUND, "evil.example", "/", 1 },
	{ "X-Host is not Host",	"GET / HTTP/1.1\r\nX-Host: evil.example\r\n\r\n", BB_NAME_EMPTY },
	{ "Host after the end of headers is not read",
	  "GET / HTTP/1.1\r\nUser-Agent: x\r\n\r\nHost: evil.example\r\n", BB_NAME_EMPTY },
	{ "no Host, no headers", "GET / HTTP/1.1\r\n\r\n", BB_NAME_EMPTY },
	{ "no Host, request line only", "GET / HTTP/1.1", BB_NAME_EMPTY },
	{ "no Host, request line and one byte", "GET / HTTP/1.1\r", BB_NAME_EMPTY },
	{ "request line cut before the version", "GET /index.html", BB_NAME_BAD },
	{ "empty Host",		"GET / HTTP/1.1\r\nHost: \r\nAccept: */*\r\n\r\n", BB_NAME_EMPTY },
	{ "Host value cut",	"GET / HTTP/1.1\r\nHost: evil.exa", BB_NAME_BAD },
	{ "Host value without its line end", "GET / HTTP/1.1\r\nHost: evil.example", BB_NAME_BAD },
	{ "Host with a slash",	"GET / HTTP/1.1\r\nHost: evil/example\r\n\r\n", BB_NAME_BAD },
	{ "Host with DEL",	"GET / HTTP/1.1\r\nHost: evil\x7f.example\r\n\r\n", BB_NAME_BAD },
	{ "Host 253 bytes",	http_host254_req, BB_NAME_FOUND, http_host253, "/", 1 },
	{ "Host 254 bytes",	http_long_host_req, BB_NAME_BAD },
	{ "HTTP/1.0",		"GET / HTTP/1.0\r\nHost: evil.example\r\n\r\n",
	  BB_NAME_FOUND, "evil.example", "/", 1 },
	{ "HTTP/2 preface",	"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", BB_NAME_NONE },
	{ "HTTP/0.9",		"GET /\r\n", BB_NAME_NONE },
	{ "lower-case method",	"get / HTTP/1.1\r\nHost: evil.example\r\n\r\n", BB_NAME_NONE },
	{ "two-letter method",	"GE / HTTP/1.1\r\nHost: evil.example\r\n\r\n", BB_NAME_NONE },
	{ "eight-letter method", "ABCDEFGH / HTTP/1.1\r\nHost: evil.example\r\n\r\n",
	  BB_NAME_NONE },
	{ "seven-letter method", "OPTIONS * HTTP/1.1\r\nHost: evil.example\r\n\r\n",
	  BB_NAME_FOUND, "evil.example", "", 1 },
	{ "TLS bytes",		"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", BB_NAME_NONE },
	{ "CONNECT authority form", "CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443"
	  "\r\n\r\n", BB_NAME_FOUND, "evil.example", "", 1 },
	{ "absolute form",	"GET http://phish.test/login/a?b HTTP/1.1\r\nHost: phish.test\r\n\r\n",
	  BB_NAME_FOUND, "phish.test", "/login/a?b", 1 },
	{ "absolute form with a port", "GET http://phish.test:81/x HTTP/1.1\r\nHost: phish.test"
	  "\r\n\r\n", BB_NAME_FOUND, "phish.test", "/x", 1 },
	{ "absolute form without a path", "GET http://phish.test HTTP/1.1\r\nHost: phish.test\r\n"
	  "\r\n", BB_NAME_FOUND, "phish.test", "", 1 },
	{ "absolute form in upper case", "GET HTTP://phish.test/x HTTP/1.1\r\nHost: phish.test"
	  "\r\n\r\n", BB_NAME_FOUND, "phish.test", "/x", 1 },
	{ "absolute form: the Host header names the host",
	  "GET http://phish.test/x HTTP/1.1\r\nHost: other.example\r\n\r\n",
	  BB_NAME_FOUND, "other.example", "/x", 1 },
	{ "a path longer than a key is cut", http_long_req, BB_NAME_FOUND, "phish.test",
	  http_long_path, 0 },
	{ "Host past the bytes read", http_late_host, BB_NAME_EMPTY },
	{ "Host line at byte 504: past where the search stops", http_host_at_504, BB_NAME_EMPTY },
	{ "control character in the target", "GET /a\tb HTTP/1.1\r\nHost: evil.example\r\n\r\n",
	  BB_NAME_NONE },
};

/* key[1 .. host_len] and the path after it, or a description of what differed. */
static bool http_check(const struct http_case *c, const __u8 *tail_fill, char *msg, size_t size)
{
	static __u8 req[BB_HTTP_SCAN_MAX + 8], key[BB_KEYBUF_BYTES];
	size_t len = strlen(c->req), i;
	__u32 reqlen = len > BB_HTTP_SCAN_MAX ? BB_HTTP_SCAN_MAX : len, hlen = 0, plen = 0;
	size_t want_plen = c->path ? strlen(c->path) : 0;
	int full = -1, ret;

	for (i = 0; i < sizeof(req); i++)
		req[i] = tail_fill[i % 24];
	memcpy(req, c->req, reqlen);
	memset(key, 0xee, sizeof(key));
	ret = bb_http_request(req, reqlen, key, &hlen, &plen, &full);
	if (ret != c->result) {
		snprintf(msg, size, "result %s, expected %s", name_results[ret & 3],
			 name_results[c->result]);
		return false;
	}
	if (ret != BB_NAME_FOUND)
		return true;
	if (!c->full && want_plen > BB_KEY_MAX - 1 - strlen(c->host))
		want_plen = BB_KEY_MAX - 1 - strlen(c->host);
	if (hlen != strlen(c->host) || memcmp(key + 1, c->host, hlen)) {
		snprintf(msg, size, "host \"%.*s\", expected \"%s\"", (int)hlen, key + 1, c->host);
		return false;
	}
	if (plen != want_plen || memcmp(key + 1 + hlen, c->path, plen) || full != c->full) {
		snprintf(msg, size, "path \"%.*s\" (%u bytes, full %d), expected %zu bytes, full %d",
			 (int)(plen > 80 ? 80 : plen), key + 1 + hlen, plen, full, want_plen,
			 c->full);
		return false;
	}
	return true;
}

static void test_http(void)
{
	static const __u8 zeros[24];
	const __u8 *decoy = (const __u8 *)"\r\nHost: decoy.example\r\n\n";
	char msg[300], name[200];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(http_cases); i++) {
		char decoy_msg[300] = "";
		bool ok;

		msg[0] = 0;
		ok = http_check(&http_cases[i], zeros, msg, sizeof(msg));
		if (ok && !http_check(&http_cases[i], decoy, decoy_msg, sizeof(decoy_msg))) {
			ok = false;
			snprintf(msg, sizeof(msg), "with a decoy after the request: %.200s",
				 decoy_msg);
		}
		snprintf(name, sizeof(name), "bb_http_request: %s", http_cases[i].name);
		tap_result(ok, name, "%s", msg);
	}
}

/*
 * The word-at-a-time scans: the Host line's line feed at every alignment (a padding
 * header of 0 to 23 bytes before it), host values of every length from 1 to 40 and
 * 245 to 256, with and without a port, the line end right after the value or cut
 * off; each with zeros and with a decoy after the request.
 */
static void test_http_alignments(void)
{
	static const __u8 zeros[24];
	const __u8 *decoy = (const __u8 *)"\r\nHost: decoy.example\r\n\n";
	static char req[700], host[300], path[40];
	unsigned int pad, hl, form, runs = 0, bad = 0;
	char first[400] = "";

	for (pad = 0; pad < 24; pad++) {
		for (hl = 1; hl <= 256; hl++) {
			if (hl > 40 && hl < 245)
				continue;
			for (form = 0; form < 3; form++) {
				struct http_case c = { "alignment", req, BB_NAME_FOUND, host, path, 1 };
				char msg[300] = "";
				unsigned int i;

				for (i = 0; i < hl; i++)	/* labels of 9, then a dot */
					host[i] = i % 10 == 9 && i + 1 < hl ? '.' : 'a' + i % 26;
				host[hl] = 0;
				snprintf(path, sizeof(path), "/p%u", pad);
				snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nX: %.*s\r\nHost: %s%s",
					 path, (int)pad, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", host,
					 form == 0 ? "\r\n\r\n" : form == 1 ? ":8080\r\n\r\n" : "");
				if (hl > BB_NAME_MAX || form == 2)
					c.result = BB_NAME_BAD;	/* too long; no end to the value */
				c.full = 1 + hl + strlen(path) <= BB_KEY_MAX;	/* else cut */
				if (strlen(req) > BB_HTTP_SCAN_MAX)
					continue;
				runs++;
				if ((!http_check(&c, zeros, msg, sizeof(msg)) ||
				     !http_check(&c, decoy, msg, sizeof(msg))) && !bad++)
					snprintf(first, sizeof(first), "pad %u, host %u bytes, form %u: %s",
						 pad, hl, form, msg);
			}
		}
	}
	tap_result(!bad && runs > 3000, "bb_http_request: the Host line at every alignment, "
		   "values of every length", "%u of %u wrong; first: %s", bad, runs, first);
}

/* ---- TLS ClientHello walk ---- */

/*
 * The ClientHellos of these tables: a bare client's (three suites), extensions by
 * pkt.h's letters: G GREASE, S server_name, k a key share of opaque bytes, e an
 * opaque ECH extension, v supported_versions.
 */
#define HELLO(e, ...)	{ .client = PKT_CLIENT_BARE, .exts = (e), __VA_ARGS__ }
#define EVIL(e, ...)	HELLO(e, .sni = "evil.example", __VA_ARGS__)
#define GREASE8		"GGGGGGGG"
#define GREASE32	GREASE8 GREASE8 GREASE8 GREASE8

/*
 * The walk as bpf/bloomblock.bpf.c drives it: segment after segment, each an exact
 * copy, seg_lo advanced by each segment's length while the walk wants more.
 * cuts[] are the segment ends (the last is the length). *seg: the segment it ended in.
 */
static int tls_segments(const __u8 *hello, const size_t *cuts, size_t n_cuts,
			struct bb_tls_walk *w, size_t *seg)
{
	size_t lo = 0, i;
	int ret = BB_TLS_MORE;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < n_cuts; i++) {
		size_t n = cuts[i] - lo;
		__u8 *copy = dup_exact(hello + lo, n);

		*seg = i;
		ret = bb_tls_walk(w, copy, copy + n, n);
		free(copy);
		if (ret != BB_TLS_MORE)
			return ret;
		w->seg_lo += n;
		lo = cuts[i];
	}
	return ret;
}

/* The ClientHello under test: room for the one whose key share passes 16 KB. */
static __u8 tls_hello[20000];

struct tls_case {
	const char *name;
	struct pkt_hello h;
	int result;
	bool ech;		/* w->ech after the walk */
};

static const struct tls_case tls_cases[] = {
	{ "SNI only",			EVIL("S"), BB_TLS_SNI },
	{ "SNI after GREASE",		EVIL("GGGS"), BB_TLS_SNI },
	{ "SNI after a key share",	EVIL("kS", .key_share = 1220), BB_TLS_SNI },
	{ "SNI first, extensions after it", EVIL("Svvvvv"), BB_TLS_SNI },
	{ "SNI of 253 bytes",		HELLO("GS", .sni = http_host253), BB_TLS_SNI },
	{ "ECH before the SNI",		HELLO("eS", .sni = "public.example"), BB_TLS_SNI, true },
	{ "ECH without SNI",		HELLO("e"), BB_TLS_NO_SNI, true },
	{ "no SNI",			HELLO("GGvv"), BB_TLS_NO_SNI },
	{ "empty extensions",		HELLO(""), BB_TLS_NO_SNI },
	{ "no extensions",		EVIL("S", .lie = PKT_LIE_NO_EXTENSIONS), BB_TLS_NO_SNI },
	{ "32 extensions before the SNI", EVIL(GREASE32 "S"), BB_TLS_SNI },
	{ "33 extensions before the SNI: more than one walk follows", EVIL(GREASE32 "GS"),
	  BB_TLS_BAD },
	{ "record type 23",		EVIL("S", .lie = PKT_LIE_RECORD_TYPE), BB_TLS_BAD },
	{ "record version 2",		EVIL("S", .lie = PKT_LIE_RECORD_VERSION), BB_TLS_BAD },
	{ "record length 3",		EVIL("S", .lie = PKT_LIE_RECORD_SHORT), BB_TLS_BAD },
	{ "handshake type 2",		EVIL("S", .lie = PKT_LIE_HS_TYPE), BB_TLS_BAD },
	{ "handshake past the record",	EVIL("S", .lie = PKT_LIE_HS_PAST_RECORD), BB_TLS_BAD },
	{ "session id 33",		EVIL("S", .lie = PKT_LIE_SESSION_ID_33), BB_TLS_BAD },
	{ "no cipher suites",		EVIL("S", .lie = PKT_LIE_CIPHERS_ZERO), BB_TLS_BAD },
	{ "odd cipher suites length",	EVIL("S", .lie = PKT_LIE_CIPHERS_ODD), BB_TLS_BAD },
	{ "no compression methods",	EVIL("S", .lie = PKT_LIE_NO_COMPRESSION), BB_TLS_BAD },
	{ "extensions past the ClientHello", EVIL("S", .lie = PKT_LIE_EXTS_PAST_HELLO),
	  BB_TLS_BAD },
	{ "extensions of one byte",	EVIL("S", .lie = PKT_LIE_EXTS_ONE_BYTE), BB_TLS_BAD },
	{ "an extension past the extensions", EVIL("GS", .lie = PKT_LIE_EXT_PAST_END),
	  BB_TLS_BAD },
	{ "SNI list too short for its name", EVIL("S", .lie = PKT_LIE_SNI_LIST_SHORT), BB_TLS_BAD },
	{ "SNI name type 1",		EVIL("S", .lie = PKT_LIE_SNI_TYPE), BB_TLS_BAD },
	{ "SNI name of 0 bytes",	EVIL("S", .lie = PKT_LIE_SNI_EMPTY_NAME), BB_TLS_BAD },
	{ "server_name extension of 4 bytes", EVIL("S", .lie = PKT_LIE_SNI_EXT_SHORT), BB_TLS_BAD },
	{ "SNI name past the extensions", EVIL("S", .lie = PKT_LIE_SNI_ALL_PAST_END), BB_TLS_BAD },
};

/*
 * bb_tls_whole() against bb_tls_walk() on the same one segment. Whenever the fast
 * path answers, the walk gives the same name and the same ECH flag; and on every
 * well-formed hello, it does answer (a name that ends the packet included: the
 * bench's hits once took the walk, 100 ns more, because theirs did). Then names of
 * every length, last in the hello; then mutated hellos: 1 to 3 random bytes changed
 * in the fields the fast path reads, or the segment cut short.
 */
static int tls_compare(const __u8 *seg, size_t n, bool *answered, char *msg, size_t size)
{
	struct bb_tls_walk fast, walk;
	__u8 *copy = dup_exact(seg, n);
	int rf, rw;

	memset(&fast, 0, sizeof(fast));
	memset(&walk, 0, sizeof(walk));
	rf = bb_tls_whole(&fast, copy, copy + n, (__u32)n);
	rw = bb_tls_walk(&walk, copy, copy + n, (__u32)n);
	free(copy);
	*answered = rf == BB_TLS_SNI;
	if (rf == BB_TLS_MORE)
		return 0;
	if (rf != BB_TLS_SNI || rw != BB_TLS_SNI || fast.name_len != walk.name_len ||
	    memcmp(fast.buf, walk.buf, fast.name_len) || fast.ech != walk.ech) {
		snprintf(msg, size, "fast %s (name %u bytes, ech %u), walk %s (name %u, ech %u)",
			 tls_results[rf & 3], fast.name_len, fast.ech, tls_results[rw & 3],
			 walk.name_len, walk.ech);
		return -1;
	}
	return 0;
}

static void test_tls_whole(void)
{
	static __u8 mutated[20000];
	unsigned int i, rep, differ = 0, declined = 0, answered_n = 0, mutations = 0;
	char msg[300] = "", first[400] = "";
	size_t len, sni_off;
	bool answered;

	for (i = 0; i < ARRAY_SIZE(tls_cases); i++) {
		const struct tls_case *c = &tls_cases[i];

		len = pkt_hello(&c->h, tls_hello, sizeof(tls_hello), &sni_off);
		if (tls_compare(tls_hello, len, &answered, msg, sizeof(msg)) && !differ++)
			snprintf(first, sizeof(first), "%s: %s", c->name, msg);
		answered_n += answered;
		/* a whole, valid hello: the fast path must take it */
		if (c->result == BB_TLS_SNI && !answered && !declined++ && !differ)
			snprintf(first, sizeof(first), "%s: the fast path declined it", c->name);
	}
	tap_result(!differ && !declined && answered_n > 0,
		   "bb_tls_whole: the walk's answer on every table hello, and every good one taken",
		   "%u differ, %u declined, %u answered; first: %s", differ, declined, answered_n,
		   first);

	/* names of 1 to 254 bytes, last in the hello (so ending the packet) or not */
	differ = declined = answered_n = 0;
	first[0] = 0;
	for (i = 1; i <= BB_NAME_MAX + 1; i++) {
		char sni[BB_NAME_MAX + 2];
		unsigned int after;

		for (rep = 0; rep < i; rep++)
			sni[rep] = 'a' + rep % 26;
		sni[i] = 0;
		for (after = 0; after < 2; after++) {
			struct pkt_hello h = HELLO(after ? "Sv" : "S", .sni = sni);

			len = pkt_hello(&h, tls_hello, sizeof(tls_hello), &sni_off);
			if (tls_compare(tls_hello, len, &answered, msg, sizeof(msg)) && !differ++)
				snprintf(first, sizeof(first), "%u bytes: %s", i, msg);
			answered_n += answered;
			if (!answered && !declined++ && !differ)
				snprintf(first, sizeof(first), "%u bytes, %u extensions after it: "
					 "declined", i, after);
		}
	}
	tap_result(!differ && !declined && answered_n == 2 * (BB_NAME_MAX + 1),
		   "bb_tls_whole: takes names of every length, ending the packet or not",
		   "%u differ, %u declined, %u answered; first: %s", differ, declined, answered_n,
		   first);

	differ = 0;
	first[0] = 0;
	for (i = 0; i < ARRAY_SIZE(tls_cases); i++) {
		const struct tls_case *c = &tls_cases[i];
		size_t span;

		if (c->result != BB_TLS_SNI)
			continue;
		len = pkt_hello(&c->h, tls_hello, sizeof(tls_hello), &sni_off);
		span = sni_off + strlen(c->h.sni) + 4;
		for (rep = 0; rep < 3000; rep++) {
			size_t n = len, k, flips = 1 + rng_next() % 3;

			memcpy(mutated, tls_hello, len);
			if (rep % 4 == 0) {
				n = rng_next() % (len + 1);	/* the segment cut short */
			} else {
				for (k = 0; k < flips; k++)
					mutated[rng_next() % (span < len ? span : len)] = (__u8)rng_next();
			}
			mutations++;
			if (tls_compare(mutated, n, &answered, msg, sizeof(msg)) && !differ++)
				snprintf(first, sizeof(first), "%s, mutation %u: %s", c->name, rep, msg);
		}
	}
	tap_result(!differ && mutations > 10000,
		   "bb_tls_whole: the walk's answer on mutated and cut hellos, whenever it answers",
		   "%u of %u differ; first: %s", differ, mutations, first);
}

static void test_tls(void)
{
	struct bb_tls_walk w;
	char name[200];
	size_t i, len, sni_off, seg, cut;
	int ret;

	for (i = 0; i < ARRAY_SIZE(tls_cases); i++) {
		const struct tls_case *c = &tls_cases[i];
		bool ok;

		len = pkt_hello(&c->h, tls_hello, sizeof(tls_hello), &sni_off);
		cut = len;
		ret = tls_segments(tls_hello, &cut, 1, &w, &seg);
		snprintf(name, sizeof(name), "bb_tls_walk: %s", c->name);
		ok = ret == c->result && w.ech == c->ech;
		if (ok && ret == BB_TLS_SNI)
			ok = w.name_len == strlen(c->h.sni) && !memcmp(w.buf, c->h.sni, w.name_len);
		tap_result(ok, name, "%s, expected %s; ech %u; name \"%.*s\"", tls_results[ret & 3],
			   tls_results[c->result], w.ech, ret == BB_TLS_SNI ? w.name_len : 0,
			   w.buf);
	}

	/* the name's length: up to 254 bytes (253 and a trailing dot) fits a key */
	{
		char sni[300];
		struct pkt_hello h = HELLO("S", .sni = sni);
		int r254, r255;

		memset(sni, 'a', 255);
		sni[254] = 0;
		len = pkt_hello(&h, tls_hello, sizeof(tls_hello), &sni_off);
		cut = len;
		r254 = tls_segments(tls_hello, &cut, 1, &w, &seg);
		sni[254] = 'a';
		sni[255] = 0;
		len = pkt_hello(&h, tls_hello, sizeof(tls_hello), &sni_off);
		cut = len;
		r255 = tls_segments(tls_hello, &cut, 1, &w, &seg);
		tap_result(r254 == BB_TLS_SNI && r255 == BB_TLS_BAD,
			   "bb_tls_walk: a 254-byte SNI is read, a 255-byte one is not",
			   "254: %s, 255: %s", tls_results[r254 & 3], tls_results[r255 & 3]);
	}

	/* a field past BB_TLS_MAX_BYTES of stream is never read */
	{
		struct pkt_hello h = EVIL("kS", .key_share = 16400);

		len = pkt_hello(&h, tls_hello, sizeof(tls_hello), &sni_off);
		cut = len;
		ret = tls_segments(tls_hello, &cut, 1, &w, &seg);
		tap_result(ret == BB_TLS_BAD, "bb_tls_walk: an SNI past 16 KB of stream is not read",
			   "%s", tls_results[ret & 3]);
	}
}

/*
 * Split in two at every byte, in three at every pair, and one byte a segment:
 * the SNI comes out whole, in the segment that holds its last byte; every
 * earlier segment wants more.
 */
static void test_tls_splits(void)
{
	static const struct tls_case specs[] = {
		{ "GREASE, SNI, versions", HELLO("GGSvv", .sni = "www.evil.example"), BB_TLS_SNI },
		{ "ECH, a key share, SNI", EVIL("ekS", .key_share = 300), BB_TLS_SNI, true },
	};
	size_t len, sni_off, seg, k, k2, s, cuts[3], sni_seg;
	unsigned long runs = 0, bad = 0;
	struct bb_tls_walk w;
	char msg[300] = "";
	int ret;

	for (s = 0; s < ARRAY_SIZE(specs); s++) {
		size_t last = 0;

		len = pkt_hello(&specs[s].h, tls_hello, sizeof(tls_hello), &sni_off);
		last = sni_off + strlen(specs[s].h.sni) - 1;	/* the name's last byte */
		for (k = 1; k < len; k++) {
			cuts[0] = k;
			cuts[1] = len;
			sni_seg = last < k ? 0 : 1;
			ret = tls_segments(tls_hello, cuts, 2, &w, &seg);
			runs++;
			if ((ret != BB_TLS_SNI || seg != sni_seg ||
			     memcmp(w.buf, specs[s].h.sni, w.name_len) ||
			     w.name_len != strlen(specs[s].h.sni)) && !bad++)
				snprintf(msg, sizeof(msg), "hello %zu split at %zu: %s in "
					 "segment %zu", s, k, tls_results[ret & 3], seg + 1);
		}
		for (k = 1; k < len; k += 3) {
			for (k2 = k + 1; k2 < len; k2 += 3) {
				cuts[0] = k;
				cuts[1] = k2;
				cuts[2] = len;
				sni_seg = last < k ? 0 : last < k2 ? 1 : 2;
				ret = tls_segments(tls_hello, cuts, 3, &w, &seg);
				runs++;
				if ((ret != BB_TLS_SNI || seg != sni_seg ||
				     memcmp(w.buf, specs[s].h.sni, w.name_len)) && !bad++)
					snprintf(msg, sizeof(msg), "hello %zu split at %zu, "
						 "%zu: %s in segment %zu", s, k, k2,
						 tls_results[ret & 3], seg + 1);
			}
		}
	}
	tap_result(!bad, "bb_tls_walk: split in 2 at every byte and in 3 at every third "
		   "pair, the SNI comes out whole in the segment that completes it",
		   "%lu of %lu wrong; first: %s", bad, runs, msg);

	/* one byte a segment */
	for (s = 0, bad = 0; s < ARRAY_SIZE(specs); s++) {
		size_t *each;

		len = pkt_hello(&specs[s].h, tls_hello, sizeof(tls_hello), &sni_off);
		each = calloc(len, sizeof(*each));
		if (!each)
			break;
		for (k = 0; k < len; k++)
			each[k] = k + 1;
		ret = tls_segments(tls_hello, each, len, &w, &seg);
		if (ret != BB_TLS_SNI || seg != sni_off + strlen(specs[s].h.sni) - 1 ||
		    w.name_len != strlen(specs[s].h.sni) ||
		    memcmp(w.buf, specs[s].h.sni, w.name_len) || w.ech != specs[s].ech) {
			bad++;
			snprintf(msg, sizeof(msg), "hello %zu: %s in segment %zu, the name "
				 "ends in %zu", s, tls_results[ret & 3], seg + 1,
				 sni_off + strlen(specs[s].h.sni));
		}
		free(each);
	}
	tap_result(!bad, "bb_tls_walk: one byte a segment, the SNI comes out at its last "
		   "byte", "%s", msg);
}

/* the step budget is per segment: 33 extensions before the SNI pass in two */
static void test_tls_budget(void)
{
	struct pkt_hello h = EVIL(GREASE32 "GS");
	size_t len, sni_off, seg, cuts[2];
	struct bb_tls_walk w;
	int ret;

	len = pkt_hello(&h, tls_hello, sizeof(tls_hello), &sni_off);
	cuts[0] = sni_off - 9 - 4 * 10;
	cuts[1] = len;
	ret = tls_segments(tls_hello, cuts, 2, &w, &seg);
	tap_result(ret == BB_TLS_SNI && seg == 1, "bb_tls_walk: the step budget is per "
		   "segment (33 extensions before the SNI, in two segments)", "%s in %zu",
		   tls_results[ret & 3], seg + 1);
}

/* malformed ClientHellos: cut anywhere, they never turn into an SNI */
static void test_tls_malformed(void)
{
	size_t i, len, sni_off, seg, k;
	unsigned long runs = 0, wrong = 0;
	struct bb_tls_walk w;
	char msg[300] = "";
	int ret;

	for (i = 0; i < ARRAY_SIZE(tls_cases); i++) {
		const struct tls_case *c = &tls_cases[i];

		if (c->result != BB_TLS_BAD || c->h.lie == PKT_LIE_NONE)
			continue;	/* the step budget is per segment: not a lie */
		len = pkt_hello(&c->h, tls_hello, sizeof(tls_hello), &sni_off);
		for (k = 1; k < len; k++) {
			size_t cuts[2] = { k, len };

			ret = tls_segments(tls_hello, cuts, 2, &w, &seg);
			runs++;
			if (ret != BB_TLS_BAD && !wrong++)
				snprintf(msg, sizeof(msg), "%s split at %zu: %s", c->name, k,
					 tls_results[ret & 3]);
		}
	}
	tap_result(!wrong && runs, "bb_tls_walk: every malformed ClientHello split at every "
		   "byte is still malformed", "%lu of %lu wrong; first: %s", wrong, runs,
		   msg);
}

/* random bytes after a record header: bounded, never past the buffers (ASan) */
static void test_tls_flipped(void)
{
	size_t len, sni_off, seg, k;
	unsigned long sni = 0;
	struct bb_tls_walk w;
	int ret;

	for (k = 0; k < 100000; k++) {
		char exts[16];
		struct pkt_hello h = EVIL(exts);
		size_t cuts[3], flips = 1 + rng_next() % 4, f;

		/* 0 to 4 GREASE extensions before the SNI, 0 to 2 after it */
		snprintf(exts, sizeof(exts), "%.*sS%.*s", (int)(k % 5), "GGGG",
			 (int)(k % 3), "vv");
		len = pkt_hello(&h, tls_hello, sizeof(tls_hello), &sni_off);
		for (f = 0; f < flips; f++)
			tls_hello[rng_next() % len] = rng_next();
		cuts[0] = 1 + rng_next() % (len - 1);
		cuts[1] = cuts[0] + rng_next() % (len - cuts[0]);
		cuts[2] = len;
		ret = tls_segments(tls_hello, cuts, 3, &w, &seg);
		if (ret == BB_TLS_SNI)
			sni++;
	}
	tap_result(sni > 0, "bb_tls_walk: 100,000 ClientHellos with random bytes flipped, "
		   "random segments", "%lu SNIs", sni);
}

/* ---- bb_name_parents, bb_url_path_prefixes, bb_name_finish ---- */

struct parents_case {
	const char *name;
	__u32 max, max_labels;
	unsigned int n;
	__u32 dots[10];		/* key offsets of the dots in front of each parent */
};

static const struct parents_case parents_cases[] = {
	{ "evil.example",		9, 10, 0 },
	{ "www.evil.example",		9, 10, 1, { 4 } },
	{ "a.b.c.example",		9, 10, 2, { 4, 2 } },
	{ "a.b.c.d.e.f.g.h.i.j.k.l",	9, 10, 9, { 20, 18, 16, 14, 12, 10, 8, 6, 4 } },
	{ "a.b.c.d.e.f.g.h.i.j.k.l",	4, 5, 4, { 20, 18, 16, 14 } },
	{ "a.b.c.d.e.f.g.h.i.j.k.l",	9, 3, 2, { 20, 18 } },
	{ "a.b.c.d.e.f.g.h.i.j.k.l",	1, 10, 1, { 20 } },
	{ "example",			9, 10, 0 },
	{ "",				9, 10, 0 },
	{ ".example",			9, 10, 0 },
	{ "x..example",			9, 10, 1, { 2 } },
};

static void test_parents(void)
{
	static __u8 key[BB_KEYBUF_BYTES];
	char name[200], msg[200];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(parents_cases); i++) {
		const struct parents_case *c = &parents_cases[i];
		__u32 dots[16], n, j;
		bool ok;

		memset(key, 0, sizeof(key));
		memcpy(key + 1, c->name, strlen(c->name));
		n = bb_name_parents(key, strlen(c->name), dots, c->max, c->max_labels);
		ok = n == c->n;
		for (j = 0; ok && j < n; j++)
			ok = dots[j] == c->dots[j];
		msg[0] = 0;
		for (j = 0; j < n && j < 16; j++)
			snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), " %u", dots[j]);
		snprintf(name, sizeof(name), "bb_name_parents: \"%s\", at most %u, up to %u labels",
			 c->name, c->max, c->max_labels);
		tap_result(ok, name, "%u parents at%s, expected %u", n, msg, c->n);
	}
}

/*
 * The parents matched from the dots the parsers record are the ones the scan
 * finds: 100,000 random names (1 to 14 labels, some empty, some leading dots)
 * through bb_name_finish(), and the same names as DNS questions.
 */
static void test_parents_recorded(void)
{
	static __u8 key[BB_KEYBUF_BYTES], msg[600];
	unsigned long names = 0, dns = 0, bad = 0;
	int k;

	for (k = 0; k < 100000; k++) {
		unsigned int labels = 1 + rng_next() % 14, l, j;
		char name[300];
		size_t len = 0;

		for (l = 0; l < labels; l++) {
			unsigned int ll = rng_next() % 10 == 0 ? 0 : 1 + rng_next() % 12;

			if (l)
				name[len++] = '.';
			for (j = 0; j < ll; j++)
				name[len++] = "aBc-9xYz"[rng_next() % 8];
		}
		name[len] = 0;
		for (int dns_way = 0; dns_way < 2; dns_way++) {
			__u32 dots[16], n, n2, i, nlen = len;
			int ret;

			memset(key, 0, sizeof(key));
			if (!dns_way) {
				memcpy(key + 1, name, len);
				ret = bb_name_finish(key, &nlen);
			} else {
				size_t at;

				if (len == 0 || strstr(name, "..") || name[0] == '.' ||
				    name[len - 1] == '.')
					continue;	/* no empty labels on the wire */
				at = pkt_dns(&(struct pkt_dns){ .name = name, .id = DNS_ID }, msg,
					     sizeof(msg));
				ret = bb_dns_qname(msg, msg + at, key, &nlen);
			}
			if (ret != BB_NAME_FOUND)
				continue;
			dns_way ? dns++ : names++;
			n = bb_name_parents(key, nlen, dots, BB_NAME_MAX_PARENT_LABELS - 1,
					    BB_NAME_MAX_PARENT_LABELS);
			n2 = bb_name_parents_recorded(key, BB_NAME_MAX_PARENT_LABELS - 1,
						      BB_NAME_MAX_PARENT_LABELS);
			if (n != n2) {
				bad++;
				continue;
			}
			for (i = 0; i < n; i++)
				if (bb_parent_dot(key, i) != dots[i]) {
					bad++;
					break;
				}
		}
	}
	tap_result(!bad && names > 50000 && dns > 20000,
		   "bb_name_parents_recorded equals the scan (bb_name_finish, bb_dns_qname)",
		   "%lu names, %lu DNS names, %lu differ", names, dns, bad);
}

struct prefix_case {
	const char *path;
	int full;
	unsigned int n;
	__u32 lens[8];
};

static const struct prefix_case prefix_cases[] = {
	{ "/",				1, 1, { 1 } },
	{ "/a",				1, 2, { 2, 1 } },
	{ "/a/b/c?x=1",			1, 5, { 10, 6, 1, 3, 5 } },
	{ "/a/b/",			1, 3, { 5, 1, 3 } },
	{ "/a/b/?q",			1, 4, { 7, 5, 1, 3 } },
	{ "/x/evil.zip",		1, 3, { 11, 1, 3 } },
	{ "/login/page?x=1",		1, 4, { 15, 11, 1, 7 } },
	{ "/1/2/3/4/5/6/7/8",		1, 6, { 16, 1, 3, 5, 7, 9 } },
	{ "/1/2/3/4/5/6/7/8?q",		1, 6, { 18, 16, 1, 3, 5, 7 } },
	{ "/a/b/c",			0, 3, { 1, 3, 5 } },
	{ "/a/b/",			0, 2, { 1, 3 } },
	{ "/a?b/c",			1, 3, { 6, 2, 1 } },
	{ "?x",				1, 2, { 2, 0 } },
	{ "",				1, 0 },
	{ "",				0, 0 },
};

static void test_prefixes(void)
{
	static __u8 key[BB_KEYBUF_BYTES];
	char name[200], msg[200];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prefix_cases); i++) {
		const struct prefix_case *c = &prefix_cases[i];
		__u32 out[8], n, j, plen = strlen(c->path);
		bool ok;

		memset(key, 0, sizeof(key));
		memcpy(key + 20, c->path, plen);
		n = bb_url_path_prefixes(key, 20, plen, c->full, out);
		ok = n == c->n;
		for (j = 0; ok && j < n; j++)
			ok = out[j] == c->lens[j];
		msg[0] = 0;
		for (j = 0; j < n && j < 8; j++)
			snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), " %u", out[j]);
		snprintf(name, sizeof(name), "bb_url_path_prefixes: \"%s\"%s", c->path,
			 c->full ? "" : " (cut)");
		tap_result(ok, name, "%u lengths:%s, expected %u", n, msg, c->n);
	}
}

struct finish_case {
	const char *in;
	int result;
	const char *out;
};

static const struct finish_case finish_cases[] = {
	{ "Evil.Example.",	BB_NAME_FOUND, "evil.example" },
	{ "evil.example",	BB_NAME_FOUND, "evil.example" },
	{ "_sip._tcp.example",	BB_NAME_FOUND, "_sip._tcp.example" },
	{ "",			BB_NAME_EMPTY },
	{ ".",			BB_NAME_EMPTY },
	{ "evil..",		BB_NAME_FOUND, "evil." },
	{ "evil example",	BB_NAME_BAD },
	{ "evil/example",	BB_NAME_BAD },
	{ "evil\texample",	BB_NAME_BAD },
	{ "evil\x7f" "example",	BB_NAME_BAD },
	{ "\xc3\xa9vil.example", BB_NAME_BAD },
};

static void test_finish(void)
{
	static __u8 key[BB_KEYBUF_BYTES];
	char name[200], big[300];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(finish_cases); i++) {
		const struct finish_case *c = &finish_cases[i];
		__u32 len = strlen(c->in);
		int ret;
		bool ok;

		memset(key, 0, sizeof(key));
		memcpy(key + 1, c->in, len);
		ret = bb_name_finish(key, &len);
		ok = ret == c->result;
		if (ok && ret == BB_NAME_FOUND)
			ok = len == strlen(c->out) && !memcmp(key + 1, c->out, len);
		snprintf(name, sizeof(name), "bb_name_finish: \"%s\"", c->in);
		tap_result(ok, name, "%s \"%.*s\"", name_results[ret & 3], (int)len, key + 1);
	}
	/* 253 bytes, and 254 with a trailing dot, are names; 254 without is not */
	{
		__u32 l253 = 253, l254dot = 254, l254 = 254;
		int r1, r2, r3;

		memset(big, 'a', sizeof(big));
		memset(key, 0, sizeof(key));
		memcpy(key + 1, big, 254);
		r3 = bb_name_finish(key, &l254);
		key[254] = '.';
		r2 = bb_name_finish(key, &l254dot);
		r1 = bb_name_finish(key, &l253);
		tap_result(r1 == BB_NAME_FOUND && r2 == BB_NAME_FOUND && l254dot == 253 &&
			   r3 == BB_NAME_BAD, "bb_name_finish: 253 bytes, 254 with a trailing dot; "
			   "not 254", "%s, %s (%u), %s", name_results[r1 & 3], name_results[r2 & 3],
			   l254dot, name_results[r3 & 3]);
	}
}

/* bb_name_finish() a byte at a time, as it was: the reference for the property below. */
static int finish_bytewise(__u8 *key, __u32 *len, __u32 *dots, __u32 *n_dots)
{
	__u32 i, n = *len;

	*n_dots = 0;
	if (n && key[n] == '.')
		n--;
	if (!n)
		return BB_NAME_EMPTY;
	if (n > BB_NAME_MAX)
		return BB_NAME_BAD;
	for (i = 1; i <= n; i++) {
		__u8 c = key[i];

		if (c <= ' ' || c == '/' || c >= 0x7f)
			return BB_NAME_BAD;
		key[i] = bb_lower(c);
		if (c == '.' && i > 1)
			dots[(*n_dots)++ & 15] = i;
	}
	*len = n;
	return BB_NAME_FOUND;
}

/*
 * The word-at-a-time bb_name_finish() against the byte loop, on random names of 0
 * to 260 bytes: mostly name bytes, upper case and dots, sometimes any byte at all,
 * with random bytes after the name. The same result and length; when found, the
 * same name, the same recorded dots, and the bytes after the name untouched.
 */
static void test_finish_words(void)
{
	static const char alpha[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.";
	static __u8 key[BB_KEYBUF_BYTES], want[BB_KEYBUF_BYTES];
	unsigned int run, bad = 0, found = 0, rejected = 0;
	char first[300] = "";

	for (run = 0; run < 200000; run++) {
		__u32 len = rng_next() % 261, wlen, got_len, dots[16], n_dots, i, m;
		int wr, gr, odd = rng_next() % 4 == 0;

		for (i = 0; i < sizeof(key); i++)
			key[i] = (__u8)rng_next();
		for (i = 1; i <= len; i++)
			key[i] = odd && rng_next() % 16 == 0 ? (__u8)rng_next() :
				 alpha[rng_next() % (sizeof(alpha) - 1)];
		if (len && rng_next() % 4 == 0)
			key[len] = '.';
		memcpy(want, key, sizeof(key));
		wlen = got_len = len;
		wr = finish_bytewise(want, &wlen, dots, &n_dots);
		gr = bb_name_finish(key, &got_len);
		found += wr == BB_NAME_FOUND;
		rejected += wr == BB_NAME_BAD;
		if (wr != gr || (wr == BB_NAME_FOUND && got_len != wlen)) {
			if (!bad++)
				snprintf(first, sizeof(first), "%u bytes: %s (%u) against %s (%u)", len,
					 name_results[gr & 3], got_len, name_results[wr & 3], wlen);
			continue;
		}
		if (wr != BB_NAME_FOUND)
			continue;
		m = *(__u32 *)(key + BB_DOTS_SLOT);
		for (i = 0; i < 16 && i < m; i++)
			if (((__u32 *)(key + BB_DOTS_SLOT + 4))[i] != dots[i])
				break;
		if (memcmp(key + 1, want + 1, wlen) || m != n_dots || i < (m < 16 ? m : 16) ||
		    memcmp(key + 1 + wlen, want + 1 + wlen, 16)) {
			if (!bad++)
				snprintf(first, sizeof(first), "%u bytes \"%.*s\": name, dots (%u, "
					 "want %u) or the bytes after it differ", len, (int)wlen,
					 want + 1, m, n_dots);
		}
	}
	tap_result(!bad && found > 50000 && rejected > 10000,
		   "bb_name_finish: eight bytes a step equals the byte loop on 200,000 random names",
		   "%u differ (%u found, %u rejected); first: %s", bad, found, rejected, first);
}

/* ---- Ethernet to L4 ---- */

struct frame_case {
	const char *name;
	struct pkt_frame f;
	size_t payload;		/* bytes of payload */
	int cut;		/* frame cut by this many bytes */
	int parse;		/* bb_parse_packet */
	int l4;			/* bb_parse_l4 */
};

/*
 * From 40000 to 443, nothing in the headers the parsers do not read (no MACs, no
 * IP ID or checksum, no TCP acknowledgement or window), a sequence number to find.
 */
static const __u8 no_macs[12];

#define FRAME		.macs = no_macs, .vlan_id = 10, .ip_id = PKT_SET(0), \
			.ip_csum = PKT_SET(0), .sport = 40000, .dport = 443, .seq = 0x12000034, \
			.ack = PKT_SET(0), .window = PKT_SET(0)
#define V4(...)		{ .net = PKT_IPV4, .saddr = "192.0.0.1", .daddr = "203.0.0.9", FRAME, \
			  __VA_ARGS__ }
#define V6(...)		{ .net = PKT_IPV6, .saddr = "2001::1", .daddr = "2001::9", FRAME, \
			  __VA_ARGS__ }
#define TCP		.proto = IPPROTO_TCP
#define DOT1AD		.tags = { ETH_P_8021AD }
#define QINQ		.tags = { ETH_P_8021AD, ETH_P_8021Q }

static const struct frame_case frame_cases[] = {
	{ "IPv4 UDP",			V4(), .payload = 20 },
	{ "IPv4 TCP",			V4(TCP), .payload = 20 },
	{ "IPv4 TCP with options (doff 8)", V4(TCP, .doff = 8), .payload = 20 },
	{ "IPv4 TCP doff 4",		V4(TCP, .doff = 4), .payload = 20,
	  .l4 = BB_PARSE_MALFORMED },
	{ "IPv4 IHL 15",		V4(.ihl = 15), .payload = 20 },
	{ "IPv4 in QinQ",		V4(QINQ), .payload = 20 },
	{ "IPv4 with Ethernet padding: payload by the IP length", V4(.padding = 20), .payload = 4 },
	{ "IPv4 non-first fragment",	V4(.frag = 0x0010), .payload = 20, .l4 = BB_PARSE_NON_IP },
	{ "IPv4 TCP header cut",	V4(TCP), .payload = 0, .cut = 1, .l4 = BB_PARSE_TRUNCATED },
	{ "IPv4 TCP options cut",	V4(TCP, .doff = 8), .payload = 0, .cut = 1,
	  .l4 = BB_PARSE_TRUNCATED },
	{ "IPv4 UDP header cut",	V4(), .payload = 0, .cut = 1, .l4 = BB_PARSE_TRUNCATED },
	{ "IPv6 UDP",			V6(), .payload = 20 },
	{ "IPv6 TCP in 802.1Q",		V6(TCP, DOT1AD), .payload = 20 },
	{ "IPv6 one hop-by-hop header",	V6(.ext6 = "h"), .payload = 20 },
	{ "IPv6 four extension headers", V6(.ext6 = "hhhF"), .payload = 20 },
	{ "IPv6 five extension headers: more than followed", V6(.ext6 = "hhhhh"), .payload = 20,
	  .l4 = BB_PARSE_MALFORMED },
	{ "IPv6 first fragment",	V6(TCP, .ext6 = "F"), .payload = 20 },
	{ "IPv6 later fragment",	V6(.ext6 = "f"), .payload = 20, .l4 = BB_PARSE_NON_IP },
	{ "IPv6 extension header cut",	V6(.ext6 = "h"), .payload = 0, .cut = 12,
	  .l4 = BB_PARSE_TRUNCATED },
	{ "IPv6 with Ethernet padding",	V6(.padding = 30), .payload = 3 },
};

static unsigned int tags_of(const struct pkt_frame *f)
{
	unsigned int n = 0;

	while (n < ARRAY_SIZE(f->tags) && f->tags[n])
		n++;
	return n;
}

static void test_frames(void)
{
	__u8 frame[1024], payload[64];
	char name[200];
	size_t i;

	memset(payload, 'p', sizeof(payload));
	for (i = 0; i < ARRAY_SIZE(frame_cases); i++) {
		const struct frame_case *c = &frame_cases[i];
		size_t len = pkt_frame(&c->f, payload, c->payload, frame, sizeof(frame));
		size_t poff = len - c->f.padding - c->payload;
		bool tcp = c->f.proto == IPPROTO_TCP;
		struct bb_packet pkt = {};
		struct bb_cursor cur;
		__u8 *copy;
		int parse, l4 = -1;
		bool ok;

		len -= c->cut;
		copy = dup_exact(frame, len);
		cur.pos = copy;
		cur.end = copy + len;
		parse = bb_parse_packet(&cur, &pkt);
		if (parse == BB_PARSE_OK)
			l4 = bb_parse_l4(&cur, &pkt);
		ok = parse == c->parse && l4 == c->l4 && pkt.vlans == tags_of(&c->f);
		if (ok && l4 == BB_PARSE_OK)
			ok = pkt.sport == 40000 && pkt.dport == 443 &&
			     (__u8 *)pkt.payload == copy + poff && pkt.payload_len == c->payload &&
			     pkt.l4_proto == (tcp ? IPPROTO_TCP : IPPROTO_UDP) &&
			     (!tcp || (pkt.seq == 0x12000034 && pkt.tcp_flags == 0x18));
		snprintf(name, sizeof(name), "bb_parse_packet/bb_parse_l4: %s", c->name);
		tap_result(ok, name, "parse %d (expected %d), l4 %d (expected %d), vlans %u, "
			   "ports %u>%u, payload at %td (expected %zu), %u bytes (expected %zu)",
			   parse, c->parse, l4, c->l4, pkt.vlans, pkt.sport, pkt.dport,
			   pkt.payload ? (__u8 *)pkt.payload - copy : -1, poff, pkt.payload_len,
			   c->payload);
		free(copy);
	}
}

/* ---- main ---- */

static void make_strings(void)
{
	size_t i;

	memset(dns_long63, 'a', 63);
	strcpy(dns_long63 + 63, ".example");
	memset(dns_long64, 'a', 64);
	strcpy(dns_long64 + 64, ".example");
	/* 253 bytes: three labels of 63, one of 59, dots between */
	for (i = 0; i < 253; i++)
		dns_253[i] = (i + 1) % 64 == 0 ? '.' : 'a' + i % 26;
	dns_253[253] = 0;
	memcpy(dns_254, dns_253, 253);
	strcpy(dns_254 + 253, "b");
	for (i = 0; i < 253; i++)
		dns_upper253[i] = dns_253[i] == '.' ? '.' : dns_253[i] - 'a' + 'A';
	memset(http_host253, 'h', 253);
	for (i = 50; i < 253; i += 50)
		http_host253[i] = '.';
	http_host253[253] = 0;
	snprintf(http_host254_req, sizeof(http_host254_req), "GET / HTTP/1.1\r\nHost: %s\r\n\r\n",
		 http_host253);
	memset(http_long_host, 'h', 254);
	http_long_host[254] = 0;
	snprintf(http_long_host_req, sizeof(http_long_host_req),
		 "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", http_long_host);
	strcpy(http_long_path, "/login/");
	for (i = 7; i < 300; i++)
		http_long_path[i] = 'a' + i % 26;
	http_long_path[300] = 0;
	snprintf(http_long_req, sizeof(http_long_req), "GET %s HTTP/1.1\r\nHost: phish.test\r\n\r\n",
		 http_long_path);
	snprintf(http_late_host, sizeof(http_late_host), "GET / HTTP/1.1\r\nCookie: %0500d\r\n"
		 "Host: evil.example\r\n\r\n", 0);
	/* "\nHost:" at byte 504: inside the 512 bytes read, past where the search stops */
	snprintf(http_host_at_504, sizeof(http_host_at_504), "GET / HTTP/1.1\r\nCookie: %0*d\r\n"
		 "Host: e.x\r\n", 504 - 25, 0);
}

int main(void)
{
	tap_plan_header();
	make_strings();
	tap_result(strlen(dns_253) == 253 && strlen(dns_254) == 254 &&
		   strchr(http_host_at_504, '\n') && strstr(http_host_at_504, "\nHost:") -
		   http_host_at_504 == 504, "test strings have the lengths they claim",
		   "%zu %zu %td", strlen(dns_253), strlen(dns_254),
		   strstr(http_host_at_504, "\nHost:") - http_host_at_504);
	test_words();
	test_low_zero_byte();
	test_dns();
	test_dns_cuts();
	test_dns_random();
	test_http();
	test_http_alignments();
	test_tls();
	test_tls_splits();
	test_tls_budget();
	test_tls_malformed();
	test_tls_flipped();
	test_tls_whole();
	test_parents();
	test_parents_recorded();
	test_prefixes();
	test_finish();
	test_finish_words();
	test_frames();
	return tap_finish();
}

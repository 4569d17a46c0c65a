/* SPDX-License-Identifier: GPL-2.0 */
/* Hostname canonicalisation: lowercase ASCII, no trailing dot, IDN as punycode. */
#include <stdlib.h>
#include <string.h>

#include <idn2.h>

#include "list.h"

/* Longest input we hand to libidn2; anything longer cannot become a valid name anyway. */
#define NAME_IN_MAX	1024

static int name_reject(enum bb_reject_reason reason, const char **why, const char *msg)
{
	if (why)
		*why = msg;
	return -(1 + (int)reason);
}

static bool name_char_ok(unsigned char c)
{
	/*
	 * Letters, digits, '-' and '_': '_' is not valid in a hostname but real lists
	 * carry it (ghm_bulgaria.hit.gemius.pl) and resolvers answer for it.
	 */
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* Check an ASCII name already lowercased in place: labels 1..63, total <= 253. */
static int name_check(const char *name, size_t len, const char **why)
{
	size_t label = 0, i;

	if (len == 0)
		return name_reject(BB_REJECT_BAD_NAME, why, "empty name");
	if (len > BB_NAME_MAX)
		return name_reject(BB_REJECT_BAD_NAME, why, "name longer than 253 bytes");
	for (i = 0; i < len; i++) {
		if (name[i] == '.') {
			if (label == 0)
				return name_reject(BB_REJECT_BAD_NAME, why, "empty label in name");
			label = 0;
			continue;
		}
		if (!name_char_ok((unsigned char)name[i]))
			return name_reject(BB_REJECT_BAD_NAME, why,
					   "character not allowed in a hostname");
		if (++label > 63)
			return name_reject(BB_REJECT_BAD_NAME, why, "label longer than 63 bytes");
	}
	if (label == 0)
		return name_reject(BB_REJECT_BAD_NAME, why, "empty label in name");
	return 0;
}

/* Non-ASCII input: UTS #46 non-transitional mapping (lowercases too), then punycode. */
static int name_idn(const char *in, size_t len, char *out, size_t out_size, const char **why)
{
	char buf[NAME_IN_MAX + 1];
	char *ascii = NULL;
	size_t alen;
	int rc;

	if (len > NAME_IN_MAX)
		return name_reject(BB_REJECT_BAD_NAME, why, "name longer than 253 bytes");
	if (memchr(in, '\0', len))
		return name_reject(BB_REJECT_BAD_NAME, why, "character not allowed in a hostname");
	memcpy(buf, in, len);
	buf[len] = '\0';
	rc = idn2_to_ascii_8z(buf, &ascii, IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT);
	if (rc != IDN2_OK)
		return name_reject(BB_REJECT_BAD_NAME, why,
				   "internationalised name has no valid punycode form (IDNA)");
	alen = strlen(ascii);
	if (alen && ascii[alen - 1] == '.')
		alen--;
	if (alen + 1 > out_size) {
		idn2_free(ascii);
		return name_reject(BB_REJECT_BAD_NAME, why, "name longer than 253 bytes");
	}
	memcpy(out, ascii, alen);
	out[alen] = '\0';
	idn2_free(ascii);
	rc = name_check(out, alen, why);
	return rc;
}

int bb_name_canonical(const char *in, size_t len, char *out, size_t out_size, const char **why)
{
	bool ascii = true;
	size_t i;

	/* One trailing dot is the absolute form of the same name. */
	if (len && in[len - 1] == '.')
		len--;
	for (i = 0; i < len; i++) {
		if ((unsigned char)in[i] >= 0x80) {
			ascii = false;
			break;
		}
	}
	if (!ascii)
		return name_idn(in, len, out, out_size, why);
	if (len > BB_NAME_MAX)
		return name_reject(BB_REJECT_BAD_NAME, why, "name longer than 253 bytes");
	if (len + 1 > out_size)
		return name_reject(BB_REJECT_TOO_LONG, why, "name longer than the output buffer");
	for (i = 0; i < len; i++) {
		char c = in[i];

		out[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
	}
	out[len] = '\0';
	return name_check(out, len, why);
}

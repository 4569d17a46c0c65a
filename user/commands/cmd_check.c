// SPDX-License-Identifier: GPL-2.0
/* bloomblock check: ask the live filter, with the kernel's own matching logic. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"
#include "filter.h"
#include "list.h"
#include "pins.h"
#include "state.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: bloomblock check ITEM...   (ITEM \"-\": one item a line from stdin)\n"
		"\n"
		"Ask the live filter whether each address, CIDR prefix, name or URL is listed,\n"
		"with the kernel's own lookups: a name as DNS, TLS and HTTP see it, an http://\n"
		"URL (or host/path) as a cleartext request, an https:// URL by its host (the\n"
		"SNI: an HTTPS path is never seen). One line per item: \"listed (maybe)\" - a\n"
		"Bloom filter can err that way, at the FPR that status shows - or \"not\n"
		"listed\", which is certain; and where the kernel looks for it. A listed item\n"
		"the allowlist holds is \"allowed\": the kernel passes it.\n"
		"Exit status, like grep: 0 when every item is blocked (listed, not allowed),\n"
		"1 when any is not,\n"
		"2 on any error: an item that cannot be parsed, nothing loaded, not root.\n");
}

/* "TCP 80, 8080": the screened ports of a service, from the live config. */
static void ports_text(char *buf, size_t size, const char *proto, const __u16 *ports)
{
	size_t used = (size_t)snprintf(buf, size, "%s", proto), i;

	for (i = 0; i < BB_MAX_PORTS && ports[i] && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%u", i ? ", " : " ", ports[i]);
}

/* Where the kernel looks at a name: DNS queries, ClientHello SNIs, HTTP Hosts. */
static void name_where(const struct bb_config *cfg, char *buf, size_t size, json_t *seen)
{
	char dns[48], tls[48], http[48];

	ports_text(dns, sizeof(dns), "UDP", cfg->dns_ports);
	ports_text(tls, sizeof(tls), "TCP", cfg->tls_ports);
	ports_text(http, sizeof(http), "TCP", cfg->http_ports);
	snprintf(buf, size, "in DNS queries (%s), TLS SNI (%s), HTTP Host (%s)", dns, tls, http);
	if (seen) {
		json_array_append_new(seen, json_string("dns"));
		json_array_append_new(seen, json_string("tls"));
		json_array_append_new(seen, json_string("http"));
	}
}

/* The host of a "host/path" URL entry as an entry of its own: a name or an address. */
static int url_host_entry(const struct bb_entry *url, struct bb_entry *host, char *text,
			  size_t size)
{
	size_t hlen = strcspn(url->text, "/");
	const char *why;

	if (hlen + 1 > size)
		return -1;
	memcpy(text, url->text, hlen);
	text[hlen] = '\0';
	if (text[0] == '[') {
		text[hlen - 1] = '\0';
		return bb_list_parse_item(text + 1, host, text + hlen + 1, size - hlen - 1, &why);
	}
	return bb_list_parse_item(text, host, text + hlen + 1, size - hlen - 1, &why);
}

/*
 * What the kernel would do with one item: addresses and prefixes as packets' peers;
 * a name in DNS, TLS and HTTP (when the filter holds names at all); an http:// URL
 * (or host/path) as a cleartext request: its Host, then the URL; an https:// URL by
 * its host alone, as the ClientHello's SNI: the path of HTTPS is never seen.
 * Returns 1 listed, 0 not listed, <0 bad item.
 */
static int check_one(const struct bb_image *img, const struct bb_index_view *index,
		     const char *item, json_t *results)
{
	const struct bb_header *hdr = (const void *)&img->blocks[BB_HEADER_INDEX];
	const struct bb_config *cfg = (const void *)&img->blocks[BB_CONFIG_INDEX];
	char text[BB_KEY_MAX + 64], host_text[BB_KEY_MAX + 64], where[256] = "";
	bool https = !strncasecmp(item, "https://", 8);
	json_t *seen = results ? json_array() : NULL;
	struct bb_entry entry, host;
	const char *why = NULL, *by, *status;
	const struct bb_index_rec *rec = NULL;
	char source[600] = "";
	int listed, allowed;

	if (bb_list_parse_item(item, &entry, text, sizeof(text), &why) < 0) {
		why = why ? why : "not an address, prefix, name or URL";
		pr_err("%s: %s\n", item, why);
		if (results)
			json_array_append_new(results, json_pack("{s:s, s:s}", "item", item,
								 "error", why));
		json_decref(seen);
		return -EINVAL;
	}
	if (entry.kind == BB_ENTRY_URL && https &&
	    !url_host_entry(&entry, &host, host_text, sizeof(host_text))) {
		char tls[48];

		entry = host;
		ports_text(tls, sizeof(tls), "TCP", cfg->tls_ports);
		snprintf(where, sizeof(where), "by its host, as the TLS SNI (%s) shows it: the "
			 "path of an HTTPS URL is never seen", tls);
		if (seen && entry.kind == BB_ENTRY_NAME)
			json_array_append_new(seen, json_string("tls"));
	}
	switch (entry.kind) {
	case BB_ENTRY_NAME:
		by = "name";
		if (!(hdr->flags & BB_HDR_F_NAMES))
			snprintf(where + strlen(where), sizeof(where) - strlen(where), "%s",
				 where[0] ? "; the filter holds no names" : "the filter holds no names");
		else if (!where[0])
			name_where(cfg, where, sizeof(where), seen);
		break;
	case BB_ENTRY_URL:
		by = "url";
		if (!(hdr->flags & (BB_HDR_F_NAMES | BB_HDR_F_URLS))) {
			snprintf(where, sizeof(where), "the filter holds no names or URLs");
		} else {
			char http[48];

			ports_text(http, sizeof(http), "TCP", cfg->http_ports);
			snprintf(where, sizeof(where), "in cleartext HTTP requests (%s)", http);
			if (seen)
				json_array_append_new(seen, json_string("http"));
		}
		break;
	default:
		by = "address";
		if (seen)
			json_array_append_new(seen, json_string("address"));
		break;
	}
	listed = bb_image_match_entry(img->blocks, &entry);
	/* the kernel asks the allowlist only after a hit */
	allowed = listed && bb_image_allowed(img->blocks, &entry);
	/* which list holds it, when the index says; else a false positive */
	if (listed && index && bb_image_attribute(img->blocks, index, &entry, &rec))
		snprintf(source, sizeof(source), rec->line ? "%s:%u" : "%s",
			 bb_index_source(index, rec->src), rec->line);
	if (listed && !rec && index)
		status = allowed ? "allowed (a false positive, and the allowlist passes it)" :
			 "listed, a false positive: no list holds it";
	else if (allowed)
		status = "allowed (listed, and the allowlist passes it)";
	else
		status = listed ? "listed" : "not listed";
	if (results) {
		json_t *o = json_pack("{s:s, s:s, s:b, s:b, s:s, s:o, s:s?}", "item", item, "kind",
				      bb_entry_kind_name(entry.kind), "listed", listed,
				      "allowed", allowed, "by", by, "seen_in", seen,
				      "note", where[0] ? where : NULL);

		if (listed && index) {
			json_object_set_new(o, "false_positive", json_boolean(!rec));
			json_object_set_new(o, "listed_in", rec ?
					    json_pack("{s:s, s:i}", "file",
						      bb_index_source(index, rec->src), "line",
						      (int)rec->line) : json_null());
		}
		json_array_append_new(results, o);
	} else {
		printf("%s: %s%s%s%s%s%s\n", item, status, source[0] ? " (" : "", source,
		       source[0] ? ")" : listed && !index ? " (maybe)" : "", where[0] ? ": " : "",
		       where);
	}
	return listed && !allowed;
}

int cmd_check(int argc, char **argv)
{
	bool any_missing = false, bad = false, items_only = false;
	const struct bb_index_view *index;
	struct bb_index_view index_view;
	struct bb_instance inst;
	json_t *results = NULL;
	struct bb_image img;
	int i, n = 0, err;

	/*
	 * Not getopt: an item may start with '-' (-x.example is a name). Only -h/--help
	 * before the first item is an option; "--" is allowed, and not needed.
	 */
	for (i = 1; i < argc; i++) {
		if (!items_only && !n && (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))) {
			usage(stdout);
			return BB_EXIT_OK;
		}
		if (!items_only && !strcmp(argv[i], "--")) {
			items_only = true;
			continue;
		}
		argv[++n] = argv[i];
	}
	argc = n + 1;
	if (argc < 2) {
		usage(stderr);
		return BB_EXIT_USAGE;
	}
	if (bb_require_root() || bb_require_bpffs(bb_opts.pin_dir))
		return BB_EXIT_USAGE;
	err = bb_instance_open(bb_opts.pin_dir, &inst);
	if (!err) {
		err = bb_image_open(&inst, &img);
		bb_instance_close(&inst);
	}
	if (err == -EUCLEAN) {
		bb_instance_say_damaged(bb_opts.pin_dir);
		return BB_EXIT_ERROR;
	}
	if (err) {
		pr_err("no live filter under %s: %s\n", bb_opts.pin_dir, strerror(-err));
		return BB_EXIT_USAGE;
	}
	if (bb_msg.json)
		results = json_array();
	index = bb_state_index(img.blocks, &index_view) ? NULL : &index_view;

	for (i = 1; i < argc; i++) {
		int r;

		if (strcmp(argv[i], "-")) {
			r = check_one(&img, index, argv[i], results);
			bad |= r < 0;
			any_missing |= r == 0;
			continue;
		}
		char *line = NULL;
		size_t cap = 0;
		ssize_t len;

		while ((len = getline(&line, &cap, stdin)) > 0) {
			while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' ||
				       line[len - 1] == ' ' || line[len - 1] == '\t'))
				line[--len] = 0;
			if (!len)
				continue;
			r = check_one(&img, index, line, results);
			bad |= r < 0;
			any_missing |= r == 0;
		}
		free(line);
	}
	bb_image_close(&img);
	bb_index_close(&index_view);
	if (results)
		bb_json_print(results);
	if (bad)
		return BB_EXIT_USAGE;
	return any_missing ? 1 : 0;
}

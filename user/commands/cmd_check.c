// SPDX-License-Identifier: GPL-2.0
/* bloomblock check: ask the live filter, with the kernel's own matching logic. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"
#include "options.h"
#include "filter.h"
#include "list.h"
#include "pins.h"
#include "state.h"

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
	char source[600] = "", matched[BB_KEY_MAX + 8] = "";
	bool show_matched = false;
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
	if (listed && index && bb_image_attribute(img->blocks, index, &entry, &rec)) {
		snprintf(source, sizeof(source), rec->line ? "%s:%u" : "%s",
			 bb_index_source(index, rec->src), rec->line);
		bb_index_entry_text(&entry, rec, hdr->seed, matched, sizeof(matched));
		/* said in text only when it is not the item itself: a parent, a prefix */
		show_matched = matched[0] && strcasecmp(matched, item) &&
			       !(entry.text && !strcmp(matched, entry.text));
	}
	if (listed && !rec && index)
		status = allowed ? "allowed (a false positive, and the allowlist passes it)" :
			 "listed, a false positive: no list holds it";
	else if (allowed)
		status = "allowed (listed, and the allowlist passes it)";
	else
		status = listed ? show_matched ? "listed:" : "listed" : "not listed";
	if (results) {
		json_t *o = json_pack("{s:s, s:s, s:b, s:b, s:s, s:o, s:s?}", "item", item, "kind",
				      bb_entry_kind_name(entry.kind), "listed", listed,
				      "allowed", allowed, "by", by, "seen_in", seen,
				      "note", where[0] ? where : NULL);

		if (listed && index) {
			json_object_set_new(o, "false_positive", json_boolean(!rec));
			json_object_set_new(o, "matched", matched[0] ? json_string(matched) :
					    json_null());
			json_object_set_new(o, "listed_in", rec ?
					    json_pack("{s:s, s:i}", "file",
						      bb_index_source(index, rec->src), "line",
						      (int)rec->line) : json_null());
		}
		json_array_append_new(results, o);
	} else {
		printf("%s: %s%s%s%s%s%s%s%s\n", item, status, show_matched ? " " : "",
		       show_matched ? matched : "", source[0] ? " (" : "", source,
		       source[0] ? ")" : listed && !index ? " (maybe)" : "", where[0] ? ": " : "",
		       where);
	}
	return listed && !allowed;
}

static int cmd_check(int argc, char **argv)
{
	bool any_missing = false, bad = false;
	const struct bb_index_view *index;
	struct bb_index_view index_view;
	struct bb_instance inst;
	json_t *results = NULL;
	struct bb_image img;
	struct bb_args a;
	int i, err, ret;

	if (bb_args_init(&a, argc))
		return BB_EXIT_ERROR;
	ret = bb_command_parse(&cmd_check_def, argc, argv, NULL, bb_args_add, &a);
	if (ret < 0 && !a.n)
		ret = bb_usage_error(&cmd_check_def, "names no item");
	if (ret >= 0) {
		bb_args_free(&a);
		return ret;
	}
	if (bb_require_root() || bb_require_bpffs(bb_opts.pin_dir)) {
		bb_args_free(&a);
		return BB_EXIT_ERROR;
	}
	err = bb_instance_open(bb_opts.pin_dir, &inst);
	if (!err) {
		err = bb_image_open(&inst, &img);
		bb_instance_close(&inst);
	}
	if (err == -EUCLEAN)
		bb_instance_say_damaged(bb_opts.pin_dir);
	else if (err)
		pr_err("no live filter under %s: %s\n", bb_opts.pin_dir, strerror(-err));
	if (err) {
		bb_args_free(&a);
		return BB_EXIT_ERROR;
	}
	if (bb_msg.json)
		results = json_array();
	index = bb_state_index(img.blocks, &index_view) ? NULL : &index_view;

	for (i = 0; i < a.n; i++) {
		int r;

		if (strcmp(a.v[i], "-")) {
			r = check_one(&img, index, a.v[i], results);
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
	bb_args_free(&a);
	if (results)
		bb_json_print(results);
	if (bad)
		return BB_EXIT_USAGE;
	return any_missing ? BB_EXIT_ERROR : BB_EXIT_OK;
}

const struct bb_command cmd_check_def = {
	.name = "check",
	.synopsis = "ITEM...   (ITEM \"-\": one item a line from stdin)",
	.summary = "ask the live filter whether items are listed, and which entry holds them",
	.help = "Ask the live filter whether each address, CIDR prefix, name or URL is listed,\n"
		"with the kernel's own lookups: a name as DNS, TLS and HTTP see it, an http://\n"
		"URL (or host/path) as a cleartext request, an https:// URL by its host (the\n"
		"SNI: an HTTPS path is never seen). One line per item: \"listed\", the entry that\n"
		"matched and the list and line that hold it (a parent name, a wider prefix);\n"
		"\"listed (maybe)\" when no list holds it (a Bloom filter errs that way, at the\n"
		"FPR status shows); or \"not listed\", which is certain. A listed item the\n"
		"allowlist holds is \"allowed\": the kernel passes it. Items that start with\n"
		"'-' follow \"--\".\n",
	.notes = "Exit status: 0 when every item is blocked (listed, not allowed); 1 when any is\n"
		 "not, or on an error (not root, nothing loaded); 2 on a usage error, an item\n"
		 "that cannot be parsed among them.\n",
	.run = cmd_check,
};

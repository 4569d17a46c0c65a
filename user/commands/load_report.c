// SPDX-License-Identifier: GPL-2.0
/* What bloomblock load prints: a summary per file, warnings, the new filter; and their JSON. */
#include <string.h>

#include "load.h"
#include "state.h"

const char *load_list_name(const char *path)
{
	return strcmp(path, "-") ? path : "<stdin>";
}

/* "FILE (hosts, gzip): ", what a summary line starts with. */
static void print_file_head(const char *what, const struct bb_file_info *info)
{
	pr_info("%s (%s", what, bb_list_format_name(info->format));
	if (info->compression != BB_COMPRESSION_NONE)
		pr_info(", %s", bb_compression_name(info->compression));
	if (info->column[0])
		pr_info(", %s %s", info->format == BB_FORMAT_JSON ? "key" : "column", info->column);
	pr_info("): ");
}

static void print_counts(const char *what, const struct bb_list_counts *c,
			 const struct bb_file_info *info, bool streamed)
{
	char dups[48];
	size_t r;

	if (streamed)
		snprintf(dups, sizeof(dups), "duplicates not looked for (streamed)");
	else
		snprintf(dups, sizeof(dups), "%zu duplicates", c->duplicates);
	if (info)
		print_file_head(what, info);
	else
		pr_info("%s: ", what);
	pr_info("%zu line%s: ipv4 %zu, ipv6 %zu, names %zu, urls %zu", c->lines,
		c->lines == 1 ? "" : "s", c->accepted[BB_ENTRY_IP4], c->accepted[BB_ENTRY_IP6],
		c->accepted[BB_ENTRY_NAME], c->accepted[BB_ENTRY_URL]);
	if (c->allow[BB_ENTRY_IP4] + c->allow[BB_ENTRY_IP6] + c->allow[BB_ENTRY_NAME] +
	    c->allow[BB_ENTRY_URL])
		pr_info("; allowlist ipv4 %zu, ipv6 %zu, names %zu, urls %zu",
			c->allow[BB_ENTRY_IP4], c->allow[BB_ENTRY_IP6], c->allow[BB_ENTRY_NAME],
			c->allow[BB_ENTRY_URL]);
	if (c->ranges)
		pr_info(" (%zu address range%s as CIDRs)", c->ranges, c->ranges == 1 ? "" : "s");
	if (c->widened)
		pr_info(" (%zu URL%s widened to host blocks)", c->widened, c->widened == 1 ? "" : "s");
	if (c->wide_reserved)
		pr_info(" (%zu prefix%s wider than a /8, of reserved space)", c->wide_reserved,
			c->wide_reserved == 1 ? "" : "es");
	pr_info("; %s, %zu comments, %zu blank, %zu hosts-file preamble", dups, c->comments,
		c->blank, c->preamble);
	if (bb_list_skipped_total(c)) {
		const char *sep = " (";

		pr_info(", %zu skipped", bb_list_skipped_total(c));
		for (r = 0; r < BB_SKIP_REASON_MAX; r++) {
			if (!c->skipped[r])
				continue;
			pr_info("%s%s %zu", sep, bb_skip_reason_name(r), c->skipped[r]);
			sep = ", ";
		}
		pr_info(")");
	}
	pr_info(", %zu rejected", bb_list_rejected_total(c));
	if (bb_list_rejected_total(c)) {
		const char *sep = " (";

		for (r = 0; r < BB_REJECT_REASON_MAX; r++) {
			if (!c->rejected[r])
				continue;
			pr_info("%s%s %zu", sep, bb_reject_reason_name(r), c->rejected[r]);
			sep = ", ";
		}
		pr_info(")");
	}
	pr_info("\n");
}

/* The lines of a class, counted. */
static size_t class_count(const struct bb_list_counts *c, enum bb_line_class class)
{
	switch (class) {
	case BB_CLASS_PREAMBLE:
		return c->preamble;
	case BB_CLASS_SKIPPED:
		/* the sets --ipset-set left out were left out on purpose */
		return bb_list_skipped_total(c) - c->skipped[BB_SKIP_OTHER_SET];
	default:
		return bb_list_rejected_total(c);
	}
}

/*
 * Most of the lines that are not blank or comments in one class that holds no entry:
 * almost always a format read wrong. The warning's text, or NULL.
 */
static const char *misread_warning(const char *what, const struct bb_list_counts *c,
				   const struct bb_file_info *info, char *buf, size_t size)
{
	size_t content = c->lines - c->blank - c->comments, n;
	int k;

	for (k = 0; k < BB_CLASS_MAX; k++) {
		n = class_count(c, k);
		if (!n || n * 2 <= content || !info->first[k].line)
			continue;
		snprintf(buf, size, "%s: %zu of %zu lines are %s, the first line %zu (%s): is it "
			 "not %s? Name its format with --format", what, n, content,
			 bb_line_class_name(k), info->first[k].line, info->first[k].text,
			 bb_list_format_name(info->format));
		return buf;
	}
	return NULL;
}

/* ipset files: the sets, what each holds and whether it was loaded. */
static void print_sets(const char *what, const struct bb_file_info *info, json_t *sets)
{
	unsigned int i;

	if (!info->n_sets)
		return;
	pr_info("  sets:");
	for (i = 0; i < info->n_sets; i++) {
		pr_info("%s %s %zu%s", i ? "," : "", info->sets[i].name, info->sets[i].entries,
			info->sets[i].chosen ? "" : " (not loaded)");
		json_array_append_new(sets, json_pack("{s:s, s:I, s:b}", "name", info->sets[i].name,
						      "entries", (json_int_t)info->sets[i].entries,
						      "loaded", info->sets[i].chosen));
	}
	pr_info("%s\n", info->more_sets ? ", and more" : "");
	if (info->missing_set)
		pr_warn("%s: no set %.*s in it (--ipset-set)\n", what,
			(int)strcspn(info->missing_set, ","), info->missing_set);
}

json_t *load_counts_json(const struct bb_list_counts *c, bool streamed)
{
	json_t *accepted = json_object(), *rejected = json_object(), *skipped = json_object();
	json_t *allow = json_object(), *j;
	size_t i;

	for (i = 0; i < BB_ENTRY_KIND_MAX; i++) {
		json_object_set_new(accepted, bb_entry_kind_name(i), json_integer(c->accepted[i]));
		json_object_set_new(allow, bb_entry_kind_name(i), json_integer(c->allow[i]));
	}
	for (i = 0; i < BB_REJECT_REASON_MAX; i++)
		json_object_set_new(rejected, bb_reject_reason_name(i),
				    json_integer(c->rejected[i]));
	for (i = 0; i < BB_SKIP_REASON_MAX; i++)
		json_object_set_new(skipped, bb_skip_reason_name(i), json_integer(c->skipped[i]));
	/* streamed: no set, so no duplicate count (null), and "accepted" counts repeats */
	j = json_pack("{s:I, s:o, s:o, s:I, s:I, s:I, s:o, s:o, s:I, s:I}",
		      "lines", (json_int_t)c->lines, "accepted", accepted, "duplicates",
		      streamed ? json_null() : json_integer((json_int_t)c->duplicates),
		      "comments", (json_int_t)c->comments, "blank", (json_int_t)c->blank,
		      "preamble", (json_int_t)c->preamble, "rejected", rejected,
		      "skipped", skipped, "ranges", (json_int_t)c->ranges,
		      "urls_widened", (json_int_t)c->widened);
	json_object_set_new(j, "allowlist", allow);
	json_object_set_new(j, "wide_reserved", json_integer((json_int_t)c->wide_reserved));
	return j;
}

json_t *load_report_file(const char *path, const struct bb_list_counts *c,
			 const struct bb_file_info *info, bool streamed)
{
	json_t *sets = json_array(), *warnings = json_array(), *j;
	const char *warn;
	char buf[512];

	path = load_list_name(path);
	print_counts(path, c, info, streamed);
	print_sets(path, info, sets);
	if (info->rpz_absolute)
		pr_info("  rpz: no $ORIGIN or SOA names the zone: %zu absolute owner%s read as the "
			"triggers themselves\n", info->rpz_absolute, info->rpz_absolute == 1 ? "" : "s");
	warn = misread_warning(path, c, info, buf, sizeof(buf));
	if (warn) {
		pr_warn("%s\n", warn);
		json_array_append_new(warnings, json_string(warn));
	}
	if (info->n_sets > 1 && !info->sets_picked) {
		snprintf(buf, sizeof(buf), "%s: its %u%s sets are loaded as one blocklist; a file "
			 "of country or reputation sets blocks every one of them: --ipset-set "
			 "NAME[,NAME...] picks", path, info->n_sets, info->more_sets ? "+" : "");
		pr_warn("%s\n", buf);
		json_array_append_new(warnings, json_string(buf));
	}
	j = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "file", path,
		      "format", bb_list_format_name(info->format), "compression",
		      info->compression ? json_string(bb_compression_name(info->compression)) :
		      json_null(), "column", info->column[0] ? json_string(info->column) :
		      json_null(), "counts", load_counts_json(c, streamed), "sets", sets,
		      "warnings", warnings);
	if (j && info->format == BB_FORMAT_RPZ)	/* owners that are the triggers themselves */
		json_object_set_new(j, "rpz_absolute_owners",
				    json_integer((json_int_t)info->rpz_absolute));
	return j;
}

void load_report_watched(json_t *file, const char *path, const struct bb_file_info *info,
			 const struct bb_guard *g, bool guard_on)
{
	json_t *warnings = json_object_get(file, "warnings");
	char text[80], msg[512];
	unsigned int i;

	path = load_list_name(path);
	for (i = 0; i < g->n; i++) {
		if (!info->watched[i].line)
			continue;
		bb_entry_text(&g->watch[i], text, sizeof(text));
		if (!g->allowed[i])
			snprintf(msg, sizeof(msg), "%s:%zu: %s lies in %s, %s: blocked, as listed "
				 "(a warning only)", path, info->watched[i].line,
				 info->watched[i].text, text, g->why[i]);
		else if (guard_on)
			snprintf(msg, sizeof(msg), "%s:%zu: %s covers %s, %s: the guard keeps it "
				 "reachable (load --no-guard to drop it)", path,
				 info->watched[i].line, info->watched[i].text, text, g->why[i]);
		else
			snprintf(msg, sizeof(msg), "%s:%zu: %s covers %s, %s: dropped, the guard is "
				 "off (load --guard)", path, info->watched[i].line,
				 info->watched[i].text, text, g->why[i]);
		pr_warn("%s\n", msg);
		json_array_append_new(warnings, json_string(msg));
	}
}

static void print_plens(const char *family, const struct bb_plen_plan *p)
{
	unsigned int i;

	if (!p->n_plens && !p->short_prefixes)
		return;
	pr_info("  %s probes:", family);
	for (i = 0; i < p->n_plens; i++)
		pr_info(" /%u", p->plens[i]);
	if (p->n_plens)
		pr_info(" (at most %u Bloom lookup%s per packet)", p->n_plens,
			p->n_plens == 1 ? "" : "s");
	else
		pr_info(" none");
	if (p->short_prefixes)
		pr_info("%s%llu prefix%s /16 or shorter in the exact short table",
			p->n_plens ? ", " : "; ", (unsigned long long)p->short_prefixes,
			p->short_prefixes == 1 ? "" : "es");
	pr_info("\n");
}

/* "FPR per check: address 0.001 (1 probe), name ..." and the room sized for. */
static void print_checks(const struct bb_plan *p)
{
	const char *sep = "";
	unsigned int c;

	pr_info("  predicted FPR per check of a packet:");
	for (c = 0; c < BB_CHECK_MAX; c++) {
		if (!p->check_probes[c])
			continue;
		pr_info("%s %s %.3g (%u probe%s)", sep, bb_check_name(c), p->check_fpr[c],
			p->check_probes[c], p->check_probes[c] == 1 ? "" : "s");
		sep = ",";
	}
	if (!sep[0])
		pr_info(" none (no key a packet probes)");
	if (p->check_target > 0)
		pr_info("; asked %g (--fp)", p->check_target);
	pr_info("\n");
	if (p->capacity)
		pr_info("  sized for %llu keys (--capacity): room for %llu more\n",
			(unsigned long long)p->capacity,
			(unsigned long long)(p->capacity - p->n));
}

void load_report_filter(struct load_run *run)
{
	const struct bb_filter *f = &run->filter;
	const char *mode = bb_mode_name(f->hdr.flags);
	__u64 bytes = bb_filter_elements(f->hdr.nblocks, f->hdr.allow_blocks) * BB_BLOCK_BYTES;
	char size_buf[32];
	json_t *j;

	pr_info("filter: %llu keys in %u blocks, %s, %.2f bits/key, k=%u, "
		"predicted FPR %.3g per key lookup; ", (unsigned long long)f->hdr.items,
		f->hdr.nblocks, bb_human_bytes(bytes, size_buf, sizeof(size_buf)),
		f->plan.bits_per_key, f->hdr.k, f->plan.fpr);
	if (run->o->build)
		pr_info("mode %s, unless a load says otherwise\n", mode);
	else
		pr_info("generation %llu, mode %s\n", (unsigned long long)f->hdr.generation, mode);
	if (run->streamed)
		pr_info("  streamed: sized for every valid entry, repeats included; %llu keys "
			"found their bits set already (repeated entries or Bloom collisions: "
			"approximate)\n", (unsigned long long)run->repeats);
	print_checks(&f->plan);
	print_plens("IPv4", &f->v4);
	print_plens("IPv6", &f->v6);
	if (f->allow_hdr.items)
		pr_info("  allowlist: %llu keys, asked after a hit only\n",
			(unsigned long long)f->allow_hdr.items);
	pr_info("timing: parse %.3fs, build %.3fs, push %.3fs\n", run->t_parse, run->t_build,
		run->t_push);
	if (!bb_msg.json)
		return;
	j = json_pack("{s:o, s:o, s:{s:I, s:I, s:I, s:I, s:f, s:f, s:s, s:I}, s:{s:f, s:f, s:f}, "
		      "s:b}",
		      "files", run->files_json, "total",
		      load_counts_json(&run->list.counts, run->streamed),
		      "filter", "keys", (json_int_t)f->hdr.items,
		      "blocks", (json_int_t)f->hdr.nblocks, "bytes", (json_int_t)bytes,
		      "k", (json_int_t)f->hdr.k, "bits_per_key", f->plan.bits_per_key,
		      "fpr", f->plan.fpr, "mode", mode,
		      "generation", (json_int_t)f->hdr.generation,
		      "seconds", "parse", run->t_parse, "build", run->t_build, "push", run->t_push,
		      "streamed", run->streamed);
	run->files_json = NULL;	/* the pack took it */
	if (j) {
		json_t *filter = json_object_get(j, "filter");

		json_object_set_new(filter, "allowlist_keys",
				    json_integer((json_int_t)f->allow_hdr.items));
		json_object_set_new(filter, "fpr_per_check",
				    bb_checks_json(f->plan.check_probes, f->plan.check_fpr));
		json_object_set_new(filter, "fp_asked", json_real(f->plan.check_target));
		json_object_set_new(filter, "capacity",
				    json_integer((json_int_t)(f->plan.capacity ?: f->plan.n)));
	}
	if (j && run->streamed)
		json_object_set_new(json_object_get(j, "filter"), "repeated_or_colliding_keys",
				    json_integer((json_int_t)run->repeats));
	bb_json_print(j);
}

void load_report_bbf(struct load_run *run, const char *path)
{
	json_t *sources = run->bbf.sources ? json_loadb(run->bbf.sources, run->bbf.sources_len,
							0, NULL) : NULL;
	json_t *lists = sources ? json_object_get(sources, "lists") : NULL;
	const struct bb_header *h = (const void *)run->bbf.image;
	time_t created = (time_t)run->bbf.hdr->created;
	char when[32];
	size_t i;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&created));
	pr_info("%s (a filter file, built %s): %llu keys", path, when,
		(unsigned long long)h->items);
	for (i = 0; lists && i < json_array_size(lists); i++)
		pr_info("%s %s", i ? "," : "; from",
			json_string_value(json_object_get(json_array_get(lists, i), "file")) ?: "?");
	pr_info("\n");
	json_array_append_new(run->files_json, json_pack("{s:s, s:s, s:s, s:I, s:o}", "file", path,
		"origin", "filter_file", "built", when, "keys", (json_int_t)h->items,
		"sources", sources ? sources : json_null()));
}

/* ---- info ---- */

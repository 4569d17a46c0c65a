// SPDX-License-Identifier: GPL-2.0
/*
 * bloomblock build: the filter load would build, written to a filter file (bbf.h)
 * with its sources; bloomblock info: what a filter file holds.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "bbf.h"
#include "load.h"
#include "options.h"

#define BB_VERSION_TEXT "0.1.0"

/* A list's size and XXH128 digest, into its JSON; stdin has neither. */
static void add_digest(json_t *file_json, const char *path)
{
	struct stat st;
	void *map;
	int fd;

	if (!strcmp(path, "-"))
		goto none;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		goto none;
	}
	map = st.st_size ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	close(fd);
	if (map == MAP_FAILED)
		goto none;
	{
		XXH128_hash_t d = XXH3_128bits(map, (size_t)st.st_size);
		char hex[33];

		snprintf(hex, sizeof(hex), "%016llx%016llx", (unsigned long long)d.high64,
			 (unsigned long long)d.low64);
		json_object_set_new(file_json, "bytes", json_integer((json_int_t)st.st_size));
		json_object_set_new(file_json, "xxh128", json_string(hex));
	}
	if (map)
		munmap(map, (size_t)st.st_size);
	return;
none:
	json_object_set_new(file_json, "bytes", json_null());
	json_object_set_new(file_json, "xxh128", json_null());
}

/* The sources section: what the file was built from, and how. */
static char *sources_json(const struct load_run *run)
{
	const struct load_opts *o = run->o;
	char when[32];
	time_t now = time(NULL);
	json_t *j, *files = json_array();
	size_t i;
	char *text;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	for (i = 0; i < json_array_size(run->files_json); i++)
		json_array_append(files, json_array_get(run->files_json, i));
	j = json_pack("{s:s, s:s, s:o, s:f, s:I, s:b}", "bloomblock", BB_VERSION_TEXT,
		      "built", when, "lists", files, "fp", o->fpr,
		      "capacity", (json_int_t)o->capacity, "streamed", run->streamed);
	text = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	return text;
}

static int cmd_build(int argc, char **argv)
{
	struct load_opts o;
	struct load_run run = {
		.o = &o, .lopts = { .report = stderr, .report_max = 20 },
		.fmap = { .fd = -1 }, .lock = -1, .bbf_index = -1, .index_file = { .fd = -1 },
	};
	int ret = load_parse_args(&cmd_build_def, argc, argv, &o), err, i;
	struct bb_block *image = NULL;
	char *sources = NULL, size_buf[32];
	void *index = NULL;
	size_t index_len = 0;
	__u64 bytes = 0;

	if (ret >= 0)
		goto out;
	for (i = 0; i < o.lists.n; i++)
		if (strcmp(o.lists.v[i].path, "-") && bbf_is(o.lists.v[i].path)) {
			pr_err("%s is a filter file already: build reads lists\n",
			       o.lists.v[i].path);
			ret = BB_EXIT_USAGE;
			goto out;
		}
	run.lopts.report_max = o.verbose ? 0 : 20;
	run.lopts.threads = run.fopts.threads = o.threads;
	run.lopts.max_entries = o.max_entries;
	run.lopts.max_bytes = o.max_list_size;
	run.fopts.fpr = o.fpr;
	run.fopts.capacity = o.capacity;
	run.fopts.seed = o.seed;
	/* the file's own defaults; a load may override them */
	bb_config_defaults(&run.fopts.config);
	run.fopts.flags = (o.given.mode && o.mode == 1 ? 0 : BB_HDR_F_DROP) |
			  (o.given.mode && o.mode == 2 ? BB_HDR_F_CONFIRM : 0) |
			  (o.daemon_down ? BB_HDR_F_DOWN_DROP : 0) |
			  (o.answer ? BB_HDR_F_ANSWER : 0) | (o.answer == 2 ? BB_HDR_F_SINKHOLE : 0) |
			  (o.addr ? BB_HDR_F_ADDR_BOTH : 0) |
			  (o.block_quic ? BB_HDR_F_BLOCK_QUIC : 0) |
			  (o.given.events && !o.events_rate ? 0 : BB_HDR_F_EVENTS);
	if (o.given.events && o.events_rate)
		run.fopts.config.event_cost_ns = 1000000000U / o.events_rate;
	if (o.given.answer_rate) {
		run.fopts.config.answer_cost_ns = 1000000000U / o.answer_rate;
		run.fopts.config.answer_burst = o.answer_rate;
	}
	if (o.given.dns_ports)
		memcpy(run.fopts.config.dns_ports, o.dns_ports, sizeof(o.dns_ports));
	if (o.given.tls_ports)
		memcpy(run.fopts.config.tls_ports, o.tls_ports, sizeof(o.tls_ports));
	if (o.given.http_ports)
		memcpy(run.fopts.config.http_ports, o.http_ports, sizeof(o.http_ports));
	if (o.given.quic_ports)
		memcpy(run.fopts.config.quic_ports, o.quic_ports, sizeof(o.quic_ports));
	run.fopts.config.mark = o.mark;
	bb_list_init(&run.list);
	run.files_json = json_array();
	for (i = 0; i < o.lists.n; i++)
		o.lists.v[i].read.refuse_wide = !o.allow_wide;
	err = load_parse_lists(&run);
	for (i = 0; !err && i < o.lists.n; i++)
		add_digest(json_array_get(run.files_json, (size_t)i), o.lists.v[i].path);
	err = err ?: load_build_filter(&run);
	if (!err) {
		bytes = bb_filter_elements(run.filter.hdr.nblocks, run.filter.hdr.allow_blocks) *
			BB_BLOCK_BYTES;
		image = calloc(1, bytes);
		sources = sources_json(&run);
		err = image && sources ? 0 : -ENOMEM;
	}
	if (!err && !o.no_index) {
		const char *names[BB_INDEX_MAX_SOURCES];
		struct bb_index_meta meta;
		unsigned int n_names;

		err = load_index(&run, names, &n_names, &meta);
		err = err ?: bb_index_bytes(&run.index, names, n_names, &meta, &index, &index_len);
	}
	if (!err) {
		bb_filter_write_image(&run.filter, image);
		err = bbf_write_index(o.output, image, bytes, sources, index, index_len);
		if (err)
			pr_err("cannot write %s: %s\n", o.output, strerror(-err));
	}
	if (!err) {
		load_report_filter(&run);
		pr_info("wrote %s: %s (a filter file; bloomblock load %s -i IFACE)\n", o.output,
			bb_human_bytes(bytes, size_buf, sizeof(size_buf)), o.output);
	}
	ret = err ? BB_EXIT_ERROR : BB_EXIT_OK;
	free(image);
	free(index);
	bb_index_free(&run.index);
	for (i = 0; i < BB_INDEX_MAX_SOURCES; i++)
		free(run.part_base[i]);
	free(sources);
	json_decref(run.files_json);
	bb_filter_free(&run.filter);
	bb_list_free(&run.list);
	free(run.tallies);
	free(run.file_counts);
out:
	free(o.lists.v);
	free(o.lists.given);
	return ret;
}

static const char *yes(__u32 flags, __u32 f)
{
	return flags & f ? "yes" : "no";
}

static int cmd_info(int argc, char **argv)
{
	struct bbf_file f;
	struct bb_filter v;
	char why[256], when[32], size_buf[32];
	json_t *sources = NULL, *lists;
	struct bb_index_view iv = { 0 };
	struct bb_args a;
	const char *file;
	time_t created;
	size_t i;
	unsigned int c;
	int err;

	if (bb_args_init(&a, argc))
		return BB_EXIT_ERROR;
	err = bb_command_parse(&cmd_info_def, argc, argv, NULL, bb_args_add, &a);
	file = a.n == 1 ? a.v[0] : NULL;
	bb_args_free(&a);
	if (err >= 0)
		return err;
	if (!file)
		return bb_usage_error(&cmd_info_def, "takes one filter file");
	err = bbf_open(file, &f, why, sizeof(why));
	if (err) {
		pr_err("%s: %s\n", file, why);
		return BB_EXIT_ERROR;
	}
	bb_filter_from_image(&v, f.image);
	if (f.index && bb_index_view_bytes(f.index, f.index_len, &iv))
		memset(&iv, 0, sizeof(iv));
	created = (time_t)f.hdr->created;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&created));
	if (f.sources)
		sources = json_loadb(f.sources, f.sources_len, 0, NULL);
	lists = sources ? json_object_get(sources, "lists") : NULL;
	if (bb_msg.json) {
		json_t *j = json_pack("{s:s, s:i, s:s, s:i, s:I, s:{s:I, s:I, s:I, s:I, s:f, s:o, "
				      "s:s, s:b, s:b}, s:I, s:o}",
			"file", file, "version", (int)f.hdr->version, "built", when,
			"abi_version", (int)f.hdr->abi_version, "bytes", (json_int_t)f.size,
			"filter", "keys", (json_int_t)v.hdr.items, "blocks", (json_int_t)v.hdr.nblocks,
			"k", (json_int_t)v.hdr.k, "bytes", (json_int_t)f.image_bytes,
			"fpr", v.plan.fpr,
			"fpr_per_check", bb_checks_json(v.plan.check_probes, v.plan.check_fpr),
			"mode", bb_mode_name(v.hdr.flags),
			"names", (v.hdr.flags & BB_HDR_F_NAMES) != 0,
			"urls", (v.hdr.flags & BB_HDR_F_URLS) != 0,
			"allowlist_keys", (json_int_t)v.allow_hdr.items,
			"sources", sources ? json_incref(sources) : json_null());

		if (j)
			json_object_set_new(j, "index", iv.recs ? json_pack("{s:I, s:I}", "keys",
					    (json_int_t)iv.n, "bytes", (json_int_t)f.index_len) :
					    json_null());
		bb_json_print(j);
	} else {
		printf("file         %s: bloomblock filter file, version %u, %s\n", file,
		       f.hdr->version, bb_human_bytes(f.size, size_buf, sizeof(size_buf)));
		printf("built        %s%s%s\n", when, sources ? " by bloomblock " : "",
		       sources ? json_string_value(json_object_get(sources, "bloomblock")) ?: "?" :
		       "");
		printf("filter       ABI %u, %llu keys in %u blocks, k=%u, FPR %.3g per key\n",
		       f.hdr->abi_version, (unsigned long long)v.hdr.items, v.hdr.nblocks, v.hdr.k,
		       v.plan.fpr);
		printf("per check   ");
		for (c = 0; c < BB_CHECK_MAX; c++)
			if (v.plan.check_probes[c])
				printf(" %s %.3g (%u probe%s)", bb_check_name(c), v.plan.check_fpr[c],
				       v.plan.check_probes[c], v.plan.check_probes[c] == 1 ? "" : "s");
		printf("\n");
		printf("holds        addresses%s%s; mode %s; allowlist %llu keys\n",
		       v.hdr.flags & BB_HDR_F_NAMES ? ", names" : "",
		       v.hdr.flags & BB_HDR_F_URLS ? ", URLs" : "",
		       bb_mode_name(v.hdr.flags),
		       (unsigned long long)v.allow_hdr.items);
		if (iv.recs)
			printf("index        %zu keys, %zu bytes: check names the list and line of "
			       "a hit\n", iv.n, f.index_len);
		else
			printf("index        none (built with --no-index, or by an older bloomblock)\n");
		printf("probes       IPv4 %u lengths, IPv6 %u; short tables: IPv4 %s, IPv6 %s\n",
		       v.hdr.n_v4_plens, v.hdr.n_v6_plens, yes(v.hdr.flags, BB_HDR_F_V4_SHORT),
		       yes(v.hdr.flags, BB_HDR_F_V6_SHORT));
		for (i = 0; lists && i < json_array_size(lists); i++) {
			json_t *l = json_array_get(lists, i);
			const char *digest = json_string_value(json_object_get(l, "xxh128"));

			printf("%-12s %s (%s)%s%s\n", i ? "" : "built from",
			       json_string_value(json_object_get(l, "file")) ?: "?",
			       json_string_value(json_object_get(l, "format")) ?: "?",
			       digest ? ", xxh128 " : "", digest ? digest : "");
		}
	}
	json_decref(sources);
	bbf_close(&f);
	return BB_EXIT_OK;
}

const struct bb_command cmd_build_def = {
	.name = "build",
	.synopsis = "LIST... -o FILE.bbf [OPTIONS]",
	.summary = "build a filter into a file (.bbf) that load copies in as it is",
	.help = "Build the filter load would build from the lists (and --allow files), and\n"
		"write it to a filter file: self-describing, versioned, checksummed, with\n"
		"the names and digests of its lists. `bloomblock load FILE.bbf -i IFACE`\n"
		"loads it on any machine without the lists; `bloomblock info FILE.bbf` says\n"
		"what it holds. Needs no root: nothing is loaded. --mode, --addr, ports,\n"
		"--mark and --block-quic are the file's defaults; load may override them.\n"
		"The guard and the items `allow` keeps are the loading host's, added at\n"
		"load. The file is written to a temporary name and renamed.\n",
	.notes = load_notes,
	.groups = { build_options, load_filter_options },
	.run = cmd_build,
};

const struct bb_command cmd_info_def = {
	.name = "info",
	.synopsis = "FILE.bbf",
	.summary = "what a filter file holds",
	.help = "What a filter file holds: its version, when it was built, the filter (keys,\n"
		"size, FPR per check, mode), its allowlist, and the lists it was built from\n"
		"with their digests. -j: JSON. Exit status 1 for a file that is not a whole,\n"
		"valid filter file.\n",
	.run = cmd_info,
};

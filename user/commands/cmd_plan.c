// SPDX-License-Identifier: GPL-2.0
/* bloomblock plan: what a filter for N keys at a target FPR costs. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "bb_hash.h"
#include "filter.h"
#include "options.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: bloomblock plan -n N [--fp P] [--kind address|name|url | --probes N]\n"
		"\n"
		"Size a blocked Bloom filter for N keys at a target false-positive rate of\n"
		"one check of a packet (default 0.001), as load sizes it, and compare it\n"
		"with an exact BPF hash map. A check probes up to: an address 1 key per\n"
		"probe length (1 to 4), a name %u (itself and its parents), an HTTP request\n"
		"%u (its host as a name, then host suffixes times path prefixes).\n"
		"\n"
		"  -n, --items N   keys to hold (after CIDR expansion; 1e6 and 10M work)\n"
		"      --fp P      target false-positive rate per check, 0 < P < 0.5\n"
		"      --kind K    the check: address (default, 1 probe), name or url\n"
		"      --probes N  the keys a check probes, instead of --kind\n",
		(unsigned int)BB_NAME_PROBES, (unsigned int)(BB_URL_PROBES + BB_NAME_PROBES));
}

int cmd_plan(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "items", required_argument, NULL, 'n' },
		{ "fp", required_argument, NULL, 'f' },
		{ "kind", required_argument, NULL, 'k' },
		{ "probes", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static const char *const kinds[] = { "address", "name", "url", NULL };
	unsigned int probes[BB_CHECK_MAX] = { 1, 0, 0 };
	double fpr = BB_FPR_DEFAULT;
	struct bb_plan plan;
	char *end;
	unsigned long v;
	unsigned int most, i;
	char size_buf[32];
	__u64 n = 0;
	bool have_n = false;
	int opt, err;

	while ((opt = getopt_long(argc, argv, "n:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			err = bb_parse_count(optarg, &n);
			if (err == -ERANGE) {
				pr_err("-n %s: more items than any filter here holds (at most "
				       "10^12)\n", optarg);
				return BB_EXIT_USAGE;
			}
			if (err) {
				pr_err("-n wants a whole number of items, not '%s'\n", optarg);
				return BB_EXIT_USAGE;
			}
			have_n = true;
			break;
		case 'f':
			if (bb_parse_fpr(optarg, &fpr))
				return BB_EXIT_USAGE;
			break;
		case 'k':
			err = bb_parse_choice("--kind", optarg, kinds);
			if (err < 0)
				return BB_EXIT_USAGE;
			memset(probes, 0, sizeof(probes));
			probes[err] = err == BB_CHECK_ADDR ? 1 : err == BB_CHECK_NAME ? BB_NAME_PROBES :
				      BB_URL_PROBES + BB_NAME_PROBES;
			break;
		case 'p':
			v = strtoul(optarg, &end, 10);
			if (*end || end == optarg || !v || v > 1000 || optarg[0] == '-') {
				pr_err("--probes wants a number 1-1000, not '%s'\n", optarg);
				return BB_EXIT_USAGE;
			}
			memset(probes, 0, sizeof(probes));
			probes[BB_CHECK_ADDR] = (unsigned int)v;
			break;
		case 'h':
			usage(stdout);
			return BB_EXIT_OK;
		default:
			usage(stderr);
			return BB_EXIT_USAGE;
		}
	}
	if (have_n && n == 0) {
		pr_err("-n wants at least 1 item\n");
		return BB_EXIT_USAGE;
	}
	if (!have_n || optind != argc) {
		usage(stderr);
		return BB_EXIT_USAGE;
	}
	err = bb_plan_checks(n, 0, fpr, probes, &plan);
	for (most = 1, i = 0; i < BB_CHECK_MAX; i++)
		if (probes[i] > most)
			most = probes[i];
	if (err) {
		pr_err("no filter of at most %u blocks reaches FPR %g for %llu items\n",
		       BB_MAX_BLOCKS, fpr, (unsigned long long)n);
		return BB_EXIT_ERROR;
	}
	if (bb_msg.json) {
		bb_json_print(json_pack("{s:I, s:f, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:I, "
					"s:I, s:f}",
					"items", (json_int_t)plan.n,
					"target_fpr", plan.target_fpr,
					"k", (json_int_t)plan.k,
					"blocks", (json_int_t)plan.nblocks,
					"bits", (json_int_t)plan.bits,
					"bytes", (json_int_t)plan.map_bytes,
					"bits_per_item", plan.bits_per_key,
					"bound_bits_per_item", plan.bound_bits_per_key,
					"fpr", plan.fpr,
					"classic_formula_fpr", plan.classic_fpr,
					"hash_map_bytes", (json_int_t)plan.hash_map_bytes,
					"check_probes", (json_int_t)most,
					"check_fpr", bb_check_fpr(plan.fpr, most)));
		return BB_EXIT_OK;
	}
	printf("items            %llu\n", (unsigned long long)plan.n);
	printf("target FPR       %g per check of %u probe%s: %.3g per key\n", fpr, most,
	       most == 1 ? "" : "s", plan.target_fpr);
	printf("k                %u probe bits, %u in each 64-bit word of one 64-byte block\n", plan.k,
	       plan.k / BB_WORDS);
	printf("blocks           %u x 512 bits\n", plan.nblocks);
	printf("bits             %llu\n", (unsigned long long)plan.bits);
	printf("bytes            %llu (%s, with header)\n", (unsigned long long)plan.map_bytes,
	       bb_human_bytes(plan.map_bytes, size_buf, sizeof(size_buf)));
	printf("bits per item    %.2f (bound for this FPR: %.2f)\n", plan.bits_per_key,
	       plan.bound_bits_per_key);
	printf("predicted FPR    %.6g (blocked formula; the classic one would say %.6g)\n",
	       plan.fpr, plan.classic_fpr);
	if (most > 1)
		printf("per check        %.6g (%u probes)\n", bb_check_fpr(plan.fpr, most), most);
	printf("exact hash map   %llu bytes (BPF_MAP_TYPE_HASH, 4-byte key): %.1fx more\n",
	       (unsigned long long)plan.hash_map_bytes,
	       plan.map_bytes ? (double)plan.hash_map_bytes / plan.map_bytes : 0);
	return BB_EXIT_OK;
}

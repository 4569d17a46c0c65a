// SPDX-License-Identifier: GPL-2.0
/* bloomblock plan: what a filter for N keys at a target FPR costs. */
#include <errno.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "common.h"
#include "bb_hash.h"
#include "filter.h"
#include "options.h"

_Static_assert(BB_NAME_PROBES == 10 && BB_URL_PROBES + BB_NAME_PROBES == 40,
	       "plan's help says 10 and 40");

/* plan's options. */
struct plan_opts {
	__u64 n;
	bool have_n;
	double fpr;
	unsigned int probes[BB_CHECK_MAX];
};

static int opt_items(void *opts, const struct bb_option *o, const char *arg)
{
	struct plan_opts *p = opts;
	int err = bb_parse_count(arg, &p->n);

	(void)o;
	if (err == -ERANGE)
		pr_err("-n %s: more items than any filter here holds (at most 10^12)\n", arg);
	else if (err || !p->n)
		pr_err("-n wants a whole number of items, at least 1, not '%s'\n", arg);
	p->have_n = true;
	return err || !p->n ? -EINVAL : 0;
}

static int opt_kind(void *opts, const struct bb_option *o, const char *arg)
{
	static const char *const kinds[] = { "address", "name", "url", NULL };
	unsigned int *probes = ((struct plan_opts *)opts)->probes;
	int k = bb_parse_choice("--kind", arg, kinds);

	(void)o;
	if (k < 0)
		return k;
	memset(probes, 0, BB_CHECK_MAX * sizeof(*probes));
	probes[k] = k == BB_CHECK_ADDR ? 1 : k == BB_CHECK_NAME ? BB_NAME_PROBES :
		    BB_URL_PROBES + BB_NAME_PROBES;
	return 0;
}

static int opt_probes(void *opts, const struct bb_option *o, const char *arg)
{
	unsigned int *probes = ((struct plan_opts *)opts)->probes;
	unsigned long v;
	char *end;

	(void)o;
	v = strtoul(arg, &end, 10);
	if (*end || end == arg || !v || v > 1000 || arg[0] == '-') {
		pr_err("--probes wants a number 1-1000, not '%s'\n", arg);
		return -EINVAL;
	}
	memset(probes, 0, BB_CHECK_MAX * sizeof(*probes));
	probes[BB_CHECK_ADDR] = (unsigned int)v;
	return 0;
}

static const struct bb_option plan_options[] = {
	{ "items", 'n', "N", "keys to hold (after CIDR expansion; 1e6 and 10M work)",
	  opt_items, 0, BB_OPT_NO_GIVEN, NULL },
	{ "fp", 0, "P", "target false-positive rate per check, 0 < P < 0.5\n"
	  "(default 0.001)", bb_opt_fpr, offsetof(struct plan_opts, fpr), BB_OPT_NO_GIVEN, NULL },
	{ "kind", 0, "K", "the check: address (default, 1 probe), name or url", opt_kind, 0,
	  BB_OPT_NO_GIVEN, NULL },
	{ "probes", 0, "N", "the keys a check probes, instead of --kind", opt_probes, 0,
	  BB_OPT_NO_GIVEN, NULL },
	BB_OPT_END
};

static int cmd_plan(int argc, char **argv)
{
	struct plan_opts po = { .fpr = BB_FPR_DEFAULT, .probes = { 1, 0, 0 } };
	unsigned int *probes = po.probes, most, i;
	double fpr;
	struct bb_plan plan;
	char size_buf[32];
	__u64 n;
	int err;

	err = bb_command_parse(&cmd_plan_def, argc, argv, &po, NULL, NULL);
	if (err >= 0)
		return err;
	if (!po.have_n)
		return bb_usage_error(&cmd_plan_def, "needs -n N, the items to hold");
	n = po.n;
	fpr = po.fpr;
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

const struct bb_command cmd_plan_def = {
	.name = "plan",
	.synopsis = "-n N [--fp P] [--kind address|name|url | --probes N]",
	.summary = "size a filter for N items at a target false-positive rate",
	.help = "Size a blocked Bloom filter for N keys at a target false-positive rate of\n"
		"one check of a packet (default 0.001), as load sizes it, and compare it\n"
		"with an exact BPF hash map. A check probes up to: an address 1 key per\n"
		"probe length (1 to 4), a name 10 (itself and its parents), an HTTP request\n"
		"40 (its host as a name, then host suffixes times path prefixes).\n",
	.groups = { plan_options },
	.run = cmd_plan,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * Table 8: the false-positive rate of one check of a packet, by kind, against the rate
 * bloomblock prints. `load --fp P` sizes the filter so that one check (an address at
 * every probe length; a name and its parents, up to BB_NAME_PROBES keys; a URL: its
 * host as a name, then host suffixes times path prefixes, up to 40 keys) is a false
 * positive at most P of the time at its most probes (user/filter.h). For each kind of
 * list, a filter of settings.fpr_check_entries entries (10^6; 10^5 in --quick) at each
 * --fp of fpr_targets[], asked settings.fpr_check_queries (10^6; 2 * 10^5 in --quick)
 * random non-members of each check kind at 0.001, a fifth of that at 0.01 (as many
 * false positives expected), made from text by bb_list_parse_item() and matched with
 * bb_image_match_entry(), the kernel's own enumeration of keys. Each row: the check's
 * most probes and those of its queries, the rate the plan prints (check_fpr[]), the
 * rate from the bits set (bb_image_key_fpr(), bb_check_fpr()), the measured rate with
 * its 95% interval, and whether it is not above --fp; and every member matched.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_parts.h"
#include "bench_seq.h"

#define FPR_Z		1.96		/* the 95% interval's normal quantile */
#define FPR_THREADS	8		/* query threads at the most (one per online CPU) */
#define QUERY_SEED	0x66707271ULL	/* "fprq": the queries are reproducible */

/* The --fp asked, and the share of settings.fpr_check_queries each asks: as many false
 * positives expected at each (10^3 at full size). */
static const struct {
	double fp;
	unsigned int divisor;
} fpr_targets[] = { { 0.001, 1 }, { 0.01, 5 } };

/* The lists: what each filter holds. */
enum fpr_list { L_IP4, L_CIDR, L_NAMES, L_URLS, L_MIXED, L_MAX = FPR_LISTS };

static const char *const list_names[FPR_LISTS] = {
	"IPv4 /32s", "IPv4 CIDR-heavy", "hostnames", "URLs", "mixed (a third each)",
};
static const char *const list_brief[FPR_LISTS] = { "IPv4", "CIDR", "names", "URLs", "mixed" };

/* The queries: random non-members, each of one check kind. */
enum fpr_query { Q_ADDR, Q_NAME_SHORT, Q_NAME_DEEP, Q_URL, Q_MAX };

static const struct {
	const char *what, *brief;
	enum bb_check check;
} queries[Q_MAX] = {
	[Q_ADDR] = { "address: random IPv4", "address", BB_CHECK_ADDR },
	[Q_NAME_SHORT] = { "name: 2-5 labels", "name 2-5", BB_CHECK_NAME },
	[Q_NAME_DEEP] = { "name: 11-13 labels (every probe)", "name 11-13", BB_CHECK_NAME },
	[Q_URL] = { "URL: 11-12-label host, deep path (every probe)", "URL", BB_CHECK_URL },
};

/* Which queries ask which list: the checks its filter makes. */
static const bool list_asks[L_MAX][Q_MAX] = {
	[L_IP4] = { [Q_ADDR] = true },
	[L_CIDR] = { [Q_ADDR] = true },
	[L_NAMES] = { [Q_NAME_SHORT] = true, [Q_NAME_DEEP] = true },
	[L_URLS] = { [Q_URL] = true },
	[L_MIXED] = { [Q_ADDR] = true, [Q_NAME_SHORT] = true, [Q_NAME_DEEP] = true,
		      [Q_URL] = true },
};

static const char *const words[8] = { "ads", "cdn", "track", "static", "img", "api", "media",
				      "sync" };
static const char *const list_tlds[8] = { "com", "net", "org", "io", "info", "xyz", "biz",
					  "co" };
/* the queries' TLDs: the lists' and others */
static const char *const query_tlds[16] = {
	"com", "net", "org", "io", "info", "xyz", "biz", "co",
	"de", "uk", "ru", "cn", "example", "test", "online", "site",
};

static __u64 rnd(__u64 *s)
{
	return bench_mix64((*s)++);
}

/* Base 36 of v: the members' labels. No '-': a query's labels all have one. */
static size_t base36(__u64 v, char *out)
{
	char tmp[16];
	size_t n = 0, i;

	do {
		tmp[n++] = "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36];
		v /= 36;
	} while (v);
	for (i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = 0;
	return n;
}

/* ---- the lists ---- */

/* URL j of the generated URL lists: a site's root, a directory, a page with a query. */
static void member_url(__u32 j, char *buf, size_t size)
{
	__u64 h = bench_mix64((__u64)j ^ 0x75726cULL);
	char label[16], page[16];

	base36(h, label);
	base36(h >> 40, page);
	switch (j % 3) {
	case 0:
		snprintf(buf, size, "%s.%s/", label, list_tlds[(h >> 8) & 7]);
		break;
	case 1:
		snprintf(buf, size, "%s.%s.%s/%s/", label, words[(h >> 12) & 7],
			 list_tlds[(h >> 8) & 7], words[(h >> 16) & 7]);
		break;
	default:
		snprintf(buf, size, "%s.%s.%s/%s/%s.php?id=%u", label, words[(h >> 12) & 7],
			 list_tlds[(h >> 8) & 7], words[(h >> 16) & 7], page, j);
		break;
	}
}

/* names generated names and urls URLs parsed as list lines, then ips IPv4 /32 members. */
static int list_text(struct bb_list *list, __u32 names, __u32 urls, __u32 ips)
{
	struct bb_entry *e;
	char line[256];
	size_t n0;
	__u32 j;

	bb_list_init(list);
	for (j = 0; j < names + urls; j++) {
		if (j < names)
			bench_name(j, line, sizeof(line));
		else
			member_url(j - names, line, sizeof(line));
		if (bb_list_parse_line(list, line, strlen(line), NULL) != 1) {
			bench_warn("fpr rows: generated line %s rejected\n", line);
			return -EINVAL;
		}
	}
	if (list->n != (size_t)names + urls) {
		bench_warn("fpr rows: %zu entries from %u lines\n", list->n, names + urls);
		return -EINVAL;
	}
	n0 = list->n;
	e = realloc(list->entries, (n0 + ips ? n0 + ips : 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	list->entries = e;
	for (j = 0; j < ips; j++) {
		memset(&e[n0 + j], 0, sizeof(*e));
		e[n0 + j].kind = BB_ENTRY_IP4;
		e[n0 + j].plen = 32;
		bench_addr(j, 0, e[n0 + j].addr);
	}
	list->n = list->cap = n0 + ips;
	return 0;
}

static int list_make(struct bb_list *list, enum fpr_list l, __u32 n)
{
	switch (l) {
	case L_IP4:
		return bench_list_ip4(list, n);
	case L_CIDR:
		return bench_list_cidr(list, n);
	case L_NAMES:
		return list_text(list, n, 0, 0);
	case L_URLS:
		return list_text(list, 0, n, 0);
	default:
		return list_text(list, n / 3, n / 3, n - 2 * (n / 3));
	}
}

/*
 * The list's IPv4 prefixes by length, sorted: whether a listed prefix covers an
 * address (a true hit, not a false positive), asked as an exact trie would be.
 */
struct cover {
	__u32 *pfx[33];
	size_t n[33];
};

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

static int cover_make(struct cover *c, const struct bb_list *list)
{
	size_t i, at[33] = { 0 };
	unsigned int p;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < list->n; i++)
		if (list->entries[i].kind == BB_ENTRY_IP4)
			c->n[list->entries[i].plen]++;
	for (p = 0; p <= 32; p++)
		if (c->n[p] && !(c->pfx[p] = malloc(c->n[p] * sizeof(__u32))))
			return -ENOMEM;
	for (i = 0; i < list->n; i++) {
		const struct bb_entry *e = &list->entries[i];
		__u32 a;

		if (e->kind != BB_ENTRY_IP4)
			continue;
		memcpy(&a, e->addr, 4);
		c->pfx[e->plen][at[e->plen]++] = __builtin_bswap32(a) & bench_mask4(e->plen);
	}
	for (p = 0; p <= 32; p++)
		if (c->n[p])
			qsort(c->pfx[p], c->n[p], sizeof(__u32), cmp_u32);
	return 0;
}

static bool cover_has(const struct cover *c, __u32 a)
{
	unsigned int p;

	for (p = 0; p <= 32; p++) {
		__u32 key = a & bench_mask4(p);

		if (c->n[p] && bsearch(&key, c->pfx[p], c->n[p], sizeof(__u32), cmp_u32))
			return true;
	}
	return false;
}

static void cover_free(struct cover *c)
{
	unsigned int p;

	for (p = 0; p <= 32; p++)
		free(c->pfx[p]);
}

/* ---- the queries ---- */

/*
 * A random label of lo to hi (at most 12) letters and digits with a '-' inside: no
 * member's label has one, so no name, parent, host suffix or URL key a query probes
 * is listed.
 */
static char *rand_label(__u64 *s, char *out, unsigned int lo, unsigned int hi)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	__u64 r = rnd(s), c = rnd(s);
	unsigned int len = lo + (unsigned int)(r % (hi - lo + 1)), i;

	for (i = 0; i < len; i++, c /= 36)
		out[i] = alnum[c % 36];
	out[1 + (r >> 32) % (len - 2)] = '-';
	return out + len;
}

/* A name of labels labels (random ones, then a TLD) at out; its end. */
static char *rand_name(__u64 *s, char *out, unsigned int labels, unsigned int lo,
		       unsigned int hi)
{
	unsigned int i;

	for (i = 0; i + 1 < labels; i++) {
		out = rand_label(s, out, lo, hi);
		*out++ = '.';
	}
	return out + sprintf(out, "%s", query_tlds[rnd(s) % 16]);
}

/* Query i of kind q as text, as a user would type it to `bloomblock check`. */
static void query_text(enum fpr_query q, __u64 i, char *out)
{
	__u64 s = bench_mix64(QUERY_SEED ^ ((__u64)q << 56) ^ i);
	unsigned int d, dirs;
	__u32 a;
	char *p;

	switch (q) {
	case Q_ADDR:
		/* a non-member address (bench_seq.h): any of 2^31, spread */
		a = bench_ip4((__u32)rnd(&s), 1);
		sprintf(out, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
		break;
	case Q_NAME_SHORT:
		rand_name(&s, out, 2 + (unsigned int)(rnd(&s) % 4), 4, 12);
		break;
	case Q_NAME_DEEP:
		rand_name(&s, out, 11 + (unsigned int)(rnd(&s) % 3), 3, 6);
		break;
	default:
		p = out + sprintf(out, "http://");
		p = rand_name(&s, p, 11 + (unsigned int)(rnd(&s) % 2), 3, 5);
		dirs = 3 + (unsigned int)(rnd(&s) % 3);
		for (d = 0; d < dirs; d++) {
			*p++ = '/';
			p = rand_label(&s, p, 3, 6);
		}
		sprintf(p, "/p%llu.html?id=%llu", (unsigned long long)(rnd(&s) % 100000),
			(unsigned long long)(rnd(&s) % 1000000));
		break;
	}
}

/* Labels of a name. */
static unsigned int labels_of(const char *name, size_t len)
{
	unsigned int n = 1;
	size_t i;

	for (i = 0; i < len; i++)
		n += name[i] == '.';
	return n;
}

/* Keys a name of that many labels probes: itself, then parents of 2 labels and more. */
static unsigned int name_probes(unsigned int labels)
{
	unsigned int parents = labels > 2 ? labels - 2 : 0;

	return 1 + (parents < BB_NAME_PROBES - 1 ? parents : BB_NAME_PROBES - 1);
}

/* Path prefixes a URL's path probes, as bb_url_path_prefixes() counts them (not cut). */
static unsigned int url_paths(const char *path)
{
	size_t plen = strlen(path), q = strcspn(path, "?"), i;
	unsigned int n = plen ? 1 : 0;

	if (q < plen)
		n++;
	for (i = 0; i < q && n < BB_URL_MAX_PATH_PREFIXES; i++)
		if (path[i] == '/' && i + 1 != q && i + 1 != plen)
			n++;
	return n;
}

/*
 * Keys the check of entry e makes in a filter of these header flags and IPv4 probe
 * lengths, when nothing hits (include/bloomblock.h, include/bb_match.h): an address
 * one per probe length (the short table is exact); a name itself and its parents; a
 * URL its host as a name (when names are listed), then host suffixes times paths.
 */
static unsigned int entry_probes(const struct bb_entry *e, __u32 flags, unsigned int v4_plens)
{
	size_t hlen;
	unsigned int h, hosts;

	switch (e->kind) {
	case BB_ENTRY_IP4:
		return v4_plens;
	case BB_ENTRY_NAME:
		h = labels_of(e->text, strlen(e->text));
		return flags & BB_HDR_F_NAMES ? name_probes(h) : 0;
	case BB_ENTRY_URL:
		hlen = strcspn(e->text, "/");
		h = labels_of(e->text, hlen);
		hosts = 1 + (h > 2 ? (h - 2 < BB_URL_MAX_HOST_SUFFIXES - 1 ? h - 2 :
				      BB_URL_MAX_HOST_SUFFIXES - 1) : 0);
		return (flags & BB_HDR_F_NAMES ? name_probes(h) : 0) +
		       (flags & BB_HDR_F_URLS ? hosts * url_paths(e->text + hlen) : 0);
	default:
		return 0;
	}
}

/* ---- the checks, on every CPU ---- */

/* One thread's share: queries [from, to) of one kind, or members [from, to) of a list. */
struct work {
	const struct bb_block *image;
	const struct bb_list *list;	/* members: matched, not queried */
	const struct cover *cover;
	enum fpr_query q;
	double key_fpr;			/* from the bits */
	__u64 from, to;
	/* out */
	__u64 asked, hits, covered, bad;
	__u64 members[BB_ENTRY_KIND_MAX], found[BB_ENTRY_KIND_MAX];
	unsigned int probes_min, probes_max;
	double probes_sum, expected_sum;
};

static void *work_run(void *arg)
{
	struct work *w = arg;
	const struct bb_header *hdr = (const void *)w->image;
	__u64 i;

	w->probes_min = ~0U;
	for (i = w->from; i < w->to; i++) {
		char text[512], tb[BB_KEY_MAX + 1];
		const char *why;
		struct bb_entry e;
		unsigned int probes;
		__u32 a;

		if (w->list) {
			const struct bb_entry *m = &w->list->entries[i];

			w->members[m->kind]++;
			w->found[m->kind] += bb_image_match_entry(w->image, m) == 1;
			continue;
		}
		query_text(w->q, i, text);
		if (bb_list_parse_item(text, &e, tb, sizeof(tb), &why) < 0 ||
		    e.kind != (w->q == Q_ADDR ? BB_ENTRY_IP4 : w->q == Q_URL ? BB_ENTRY_URL :
			       BB_ENTRY_NAME)) {
			w->bad++;
			continue;
		}
		if (e.kind == BB_ENTRY_IP4) {
			memcpy(&a, e.addr, 4);
			if (cover_has(w->cover, __builtin_bswap32(a))) {
				w->covered++;
				continue;
			}
		}
		probes = entry_probes(&e, hdr->flags, hdr->n_v4_plens);
		w->probes_min = probes < w->probes_min ? probes : w->probes_min;
		w->probes_max = probes > w->probes_max ? probes : w->probes_max;
		w->probes_sum += probes;
		w->expected_sum += bb_check_fpr(w->key_fpr, probes);
		w->asked++;
		w->hits += bb_image_match_entry(w->image, &e) == 1;
	}
	return NULL;
}

/* Split [0, n) over the CPUs, run, sum into *sum. */
static int work_all(const struct work *proto, __u64 n, struct work *sum)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct work w[FPR_THREADS];
	pthread_t tid[FPR_THREADS];
	int t, nt = cpus < 1 ? 1 : cpus > FPR_THREADS ? FPR_THREADS : (int)cpus, err = 0;
	unsigned int k;

	for (t = 0; t < nt; t++) {
		w[t] = *proto;
		w[t].from = n * t / nt;
		w[t].to = n * (t + 1) / nt;
		if (pthread_create(&tid[t], NULL, work_run, &w[t])) {
			err = -EAGAIN;
			break;
		}
	}
	nt = t;
	*sum = *proto;
	sum->probes_min = ~0U;
	for (t = 0; t < nt; t++) {
		pthread_join(tid[t], NULL);
		sum->asked += w[t].asked;
		sum->hits += w[t].hits;
		sum->covered += w[t].covered;
		sum->bad += w[t].bad;
		for (k = 0; k < BB_ENTRY_KIND_MAX; k++) {
			sum->members[k] += w[t].members[k];
			sum->found[k] += w[t].found[k];
		}
		if (w[t].asked && w[t].probes_min < sum->probes_min)
			sum->probes_min = w[t].probes_min;
		if (w[t].probes_max > sum->probes_max)
			sum->probes_max = w[t].probes_max;
		sum->probes_sum += w[t].probes_sum;
		sum->expected_sum += w[t].expected_sum;
	}
	return err;
}

/* On every CPU for this part, as the live rows; back on the one after. */
static void cpus_all(bool all)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	if (all) {
		for (i = 0; i < sysconf(_SC_NPROCESSORS_ONLN) && i < CPU_SETSIZE; i++)
			CPU_SET(i, &set);
	} else {
		CPU_SET(settings.cpu, &set);
	}
	if (sched_setaffinity(0, sizeof(set), &set))
		bench_warn("fpr rows: cannot set the CPUs: %s\n", strerror(errno));
}

/* ---- the rows ---- */

/* The Wilson score interval of x in n at FPR_Z. */
static void wilson(__u64 x, __u64 n, double *lo, double *hi)
{
	double p, z2 = FPR_Z * FPR_Z, d, c, h;

	*lo = 0;
	*hi = 1;
	if (!n)
		return;
	p = (double)x / n;
	d = 1 + z2 / n;
	c = (p + z2 / (2.0 * n)) / d;
	h = FPR_Z * sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / d;
	*lo = x ? fmax(0, c - h) : 0;
	*hi = fmin(1, c + h);
}

static enum bb_entry_kind query_kind(enum fpr_query q)
{
	return q == Q_ADDR ? BB_ENTRY_IP4 : q == Q_URL ? BB_ENTRY_URL : BB_ENTRY_NAME;
}

static void fpr_row(struct fpr_results *res, enum fpr_list l, enum fpr_query q, double target,
		    const struct bb_plan *plan, double key_bits, const struct work *sum,
		    const struct work *members)
{
	enum bb_check c = queries[q].check;
	enum bb_entry_kind k = query_kind(q);
	char cells[13][BT_CELL];
	const char *cp[13];
	double measured = sum->asked ? (double)sum->hits / sum->asked : 0, lo, hi;
	bool ok;
	int i;

	wilson(sum->hits, sum->asked, &lo, &hi);
	ok = sum->asked && !sum->bad && lo <= target;
	snprintf(cells[0], BT_CELL, "%s", list_names[l]);
	snprintf(cells[1], BT_CELL, "%g", target);
	snprintf(cells[2], BT_CELL, "%s", queries[q].what);
	snprintf(cells[3], BT_CELL, "%u", plan->check_probes[c]);
	if (sum->probes_min == sum->probes_max)
		snprintf(cells[4], BT_CELL, "%u", sum->probes_max);
	else
		snprintf(cells[4], BT_CELL, "%.2f (%u-%u)", sum->asked ? sum->probes_sum /
			 sum->asked : 0, sum->probes_min, sum->probes_max);
	snprintf(cells[5], BT_CELL, "%.4f", 100 * plan->check_fpr[c]);
	snprintf(cells[6], BT_CELL, "%.4f", 100 * bb_check_fpr(key_bits, plan->check_probes[c]));
	snprintf(cells[7], BT_CELL, "%.4f", sum->asked ? 100 * sum->expected_sum / sum->asked : 0);
	snprintf(cells[8], BT_CELL, "%llu", (unsigned long long)sum->asked);
	snprintf(cells[9], BT_CELL, "%llu", (unsigned long long)sum->hits);
	snprintf(cells[10], BT_CELL, "%.4f (%.4f-%.4f)", 100 * measured, 100 * lo, 100 * hi);
	snprintf(cells[11], BT_CELL, "%s", ok ? "yes" : "NO");
	snprintf(cells[12], BT_CELL, "%llu / %llu", (unsigned long long)members->found[k],
		 (unsigned long long)members->members[k]);
	for (i = 0; i < 13; i++)
		cp[i] = cells[i];
	table_add(&res->table, cp);

	/* the row whose measured rate is the highest over its --fp */
	if (!res->rows || measured / target > res->highest_x) {
		res->highest_x = measured / target;
		snprintf(res->highest, sizeof(res->highest), "%s list, %s at %g: %.4f%% "
			 "(%.4f-%.4f)", list_brief[l], queries[q].brief, target, 100 * measured,
			 100 * lo, 100 * hi);
	}
	res->rows++;
	res->passed += ok;
	res->bad += sum->bad;
	res->covered += sum->covered;
}

/* One list at one --fp: build, match every member, ask each query kind. */
static int fpr_list_run(struct fpr_results *res, enum fpr_list l, const struct bb_list *list,
			const struct cover *cover, double target, __u32 queries_n)
{
	struct bb_filter_opts opts = { .fpr = target, .seed = BENCH_SEED, .flags = BB_HDR_F_DROP };
	struct work proto = { 0 }, members, sum;
	struct bb_block *image;
	struct bb_filter f;
	struct bb_plan plan;
	double key_bits, t0 = now_s(), t1;
	unsigned int k;
	int err, q;

	err = bb_filter_build(&f, list, &opts);
	if (err) {
		bench_warn("fpr rows: building %s: %s\n", list_names[l], strerror(-err));
		return err;
	}
	image = malloc(bb_filter_elements(f.hdr.nblocks, f.hdr.allow_blocks) * BB_BLOCK_BYTES);
	if (!image) {
		bb_filter_free(&f);
		return -ENOMEM;
	}
	bb_filter_write_image(&f, image);
	plan = f.plan;
	key_bits = bb_image_key_fpr(image);
	bb_filter_free(&f);

	proto.image = image;
	proto.cover = cover;
	proto.key_fpr = key_bits;
	proto.list = list;
	t1 = now_s();
	err = work_all(&proto, list->n, &members);
	progress("fpr rows: %s at %g, built in %.2f s, members matched in %.2f s", list_names[l],
		 target, t1 - t0, now_s() - t1);
	for (k = 0; k < BB_ENTRY_KIND_MAX; k++) {
		res->members += members.members[k];
		res->found += members.found[k];
	}
	proto.list = NULL;
	for (q = 0; !err && q < Q_MAX; q++) {
		if (!list_asks[l][q])
			continue;
		double tq = now_s();

		proto.q = q;
		err = work_all(&proto, queries_n, &sum);
		if (!err)
			fpr_row(res, l, q, target, &plan, key_bits, &sum, &members);
		progress("fpr rows: %s at %g, %s: %.1f s", list_names[l], target, queries[q].what,
			 now_s() - tq);
	}
	snprintf(res->list_notes[l] + strlen(res->list_notes[l]),
		 sizeof(res->list_notes[l]) - strlen(res->list_notes[l]), "%sk=%u, %.2f bits/key "
		 "at %g", res->list_notes[l][0] ? "; " : "", plan.k, plan.bits_per_key, target);
	res->keys[l] = plan.n;
	res->addr_plens[l] = plan.check_probes[BB_CHECK_ADDR];
	free(image);
	return err;
}

int fpr_run(struct fpr_results *res)
{
	static const char *const cols[] = {
		"list", "--fp", "check (random non-members)", "probes (plan)", "probes (queries)",
		"printed %", "from the bits %", "expected %", "non-members", "hits",
		"measured % (95% CI)", "<= --fp", "members matched", NULL,
	};
	char title[200], nn[16], qn[16], qn2[16];
	double t0 = now_s();
	int err = 0, l;
	size_t t;

	memset(res, 0, sizeof(*res));
	res->entries = settings.fpr_check_entries;
	res->queries = settings.fpr_check_queries;
	pow10_name(res->entries, nn, sizeof(nn));
	pow10_name(res->queries, qn, sizeof(qn));
	pow10_name(res->queries / fpr_targets[1].divisor, qn2, sizeof(qn2));
	table_init(&res->table, "fpr_check", fmtf(title, sizeof(title), "8. False-positive rate "
		   "of one check of a packet, by kind: %s-entry filters, %s random non-members "
		   "a row at --fp %g, %s at %g", nn, qn, fpr_targets[0].fp, qn2,
		   fpr_targets[1].fp), 3, cols);
	cpus_all(true);
	for (l = 0; !err && l < L_MAX; l++) {
		struct bb_list list;
		struct cover cover;

		double tl = now_s();

		err = list_make(&list, l, res->entries);
		err = err ?: cover_make(&cover, &list);
		progress("fpr rows: %s, made in %.2f s", list_names[l], now_s() - tl);
		for (t = 0; !err && t < ARRAY_SIZE(fpr_targets); t++)
			err = fpr_list_run(res, l, &list, &cover, fpr_targets[t].fp,
					   res->queries / fpr_targets[t].divisor);
		cover_free(&cover);
		bb_list_free(&list);
	}
	cpus_all(false);
	res->seconds = now_s() - t0;
	if (err)
		return err;
	table_note(&res->table, "Each list's filter is built by bb_filter_build at each --fp "
		   "(seed fixed, drop mode) and written as its image. Every member is matched "
		   "(members matched: of the row's kind; must be all). Queries are random "
		   "non-members of one check kind, made from text by bb_list_parse_item and "
		   "matched by bb_image_match_entry: the keys the kernel probes, in its order. "
		   "Their labels all hold a '-', which no member's does, so no key a query "
		   "probes is listed; an address a listed prefix covers is a true hit, left out "
		   "(%llu of the CIDR-heavy list's queries, both --fp).",
		   (unsigned long long)res->covered);
	table_note(&res->table, "probes (plan): the check's most keys, for which --fp sizes the "
		   "filter; probes (queries): what these queries make, mean (min-max). printed: "
		   "the plan's check rate, as load prints it; from the bits: bb_check_fpr of the "
		   "key rate the set bits give (bb_image_key_fpr), as stats prints it; expected: "
		   "the mean over the queries of the same for each one's probes. measured: "
		   "hits / non-members, its 95%% Wilson interval; <= --fp: the interval's low end "
		   "is not above --fp (not significantly above it).");
	for (l = 0; l < L_MAX; l++)
		table_note(&res->table, "%s: %llu keys%s; %s.", list_names[l],
			   (unsigned long long)res->keys[l], l == L_CIDR ?
			   fmtf(title, sizeof(title), ", %u probe lengths and the short table",
				res->addr_plens[l]) : "", res->list_notes[l]);
	if (res->bad)
		table_note(&res->table, "%llu queries were NOT parsed as their kind: their rows "
			   "say NO.", (unsigned long long)res->bad);
	table_note(&res->table, "The part took %.1f s on %ld CPUs.", res->seconds,
		   sysconf(_SC_NPROCESSORS_ONLN));
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 */
/* A streamed build: the entries tallied in a first pass, each key's bits set as it comes in the second. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>
#include <xxhash.h>

#include "bb_hash.h"
#include "bb_names.h"
#include "filter_int.h"

/* ---- a streamed build: counted first, then every key's bits set as it comes ---- */

void bb_key_tally_entry(struct bb_key_tally *tally, const struct bb_entry *e)
{
	if (e->flags & BB_ENTRY_F_ALLOW) {
		if ((e->kind == BB_ENTRY_IP4 && e->plen > 32) ||
		    (e->kind == BB_ENTRY_IP6 && e->plen > 128) || e->kind >= BB_ENTRY_KIND_MAX)
			tally->bad = true;
		else
			allow_tally_entry(tally, e);
		return;
	}
	switch (e->kind) {
	case BB_ENTRY_IP4:
		if (e->plen <= 32)
			tally->v4_plens[e->plen]++;
		else
			tally->bad = true;
		break;
	case BB_ENTRY_IP6:
		if (e->plen <= 128)
			tally->v6_plens[e->plen]++;
		else
			tally->bad = true;
		break;
	case BB_ENTRY_NAME:
		if (e->flags & BB_ENTRY_F_SUBDOMAINS_ONLY)
			tally->parents_only++;
		else if (e->flags & BB_ENTRY_F_EXACT)
			tally->exact_only++;
		else
			tally->names++;
		break;
	case BB_ENTRY_URL:
		tally->urls++;
		break;
	default:
		tally->bad = true;
	}
}

void bb_key_tally_sum(struct bb_key_tally *sum, const struct bb_key_tally *add)
{
	unsigned int p;

	for (p = 0; p <= 32; p++)
		sum->v4_plens[p] += add->v4_plens[p];
	for (p = 0; p <= 128; p++)
		sum->v6_plens[p] += add->v6_plens[p];
	sum->names += add->names;
	sum->parents_only += add->parents_only;
	sum->exact_only += add->exact_only;
	sum->urls += add->urls;
	sum->allow_keys += add->allow_keys;
	for (p = 0; p <= 32; p++)
		sum->allow_v4_plens[p] += add->allow_v4_plens[p];
	for (p = 0; p <= 128; p++)
		sum->allow_v6_plens[p] += add->allow_v6_plens[p];
	sum->allow_flags |= add->allow_flags;
	sum->bad |= add->bad;
}

/* Keys that prefixes longer than BB_SHORT_PLEN expand to under plan. */
static __u64 expanded_keys(const __u64 *counts, unsigned int width,
			   const struct bb_plen_plan *plan)
{
	unsigned int p;
	__u64 keys = 0;

	for (p = BB_SHORT_PLEN + 1; p <= width; p++)
		if (counts[p])
			keys += counts[p] << (plen_for(plan, p) - p);
	return keys;
}

__u64 stream_shape(struct bb_filter *filter, const struct bb_key_tally *tally,
		   const struct bb_filter_opts *opts)
{
	unsigned int p;
	__u64 keys;

	filter_config(filter, opts);
	filter->keys_by_kind[BB_KEY_IP4] = expanded_keys(tally->v4_plens, 32, &filter->v4);
	filter->keys_by_kind[BB_KEY_IP6] = expanded_keys(tally->v6_plens, 128, &filter->v6);
	filter->keys_by_kind[BB_KEY_NAME] = tally->names + tally->exact_only;
	filter->keys_by_kind[BB_KEY_NAME_PARENT] = tally->names + tally->parents_only;
	filter->keys_by_kind[BB_KEY_URL] = tally->urls;
	for (p = 0, keys = 0; p < BB_KEY_KIND_MAX; p++)
		keys += filter->keys_by_kind[p];
	/* the flags the in-memory build sets as it meets the entries */
	for (p = 0; p <= BB_SHORT_PLEN; p++) {
		if (tally->v4_plens[p])
			filter->hdr.flags |= BB_HDR_F_V4_SHORT;
		if (tally->v6_plens[p])
			filter->hdr.flags |= BB_HDR_F_V6_SHORT;
	}
	if (tally->names || tally->parents_only || tally->exact_only)
		filter->hdr.flags |= BB_HDR_F_NAMES;
	if (tally->urls)
		filter->hdr.flags |= BB_HDR_F_URLS;
	return keys;
}

/*
 * Threads set bits without atomics: a locked OR per word serialises the memory
 * pipeline, and with it a 2-thread build ran no faster than 1. Thread 0 sets its
 * keys' bits in the filter; the others in a second, private copy (atomically only
 * when more than one shares it), ORed into the filter at the end. The copy costs
 * one filter's size of memory, within the stated 2 x filter.
 */
struct bb_filter_stream {
	struct bb_filter *filter;
	struct bb_block *second;	/* NULL with one thread */
	size_t second_len;
	pthread_mutex_t allow_lock;	/* the allowlist's entries are few: one lock */
	int allow_err;
	struct bb_index *index;		/* opts->index: where the jobs' records go */
	struct bb_index job_index[BB_BUILD_MAX_THREADS];
	struct build_job jobs[BB_BUILD_MAX_THREADS];
};

int bb_filter_stream_begin(struct bb_filter *filter, const struct bb_key_tally *tally,
			   const struct bb_filter_opts *opts, struct bb_filter_stream **out)
{
	double fpr = opts->fpr > 0 ? opts->fpr : BB_FPR_DEFAULT;
	unsigned int threads = build_threads(opts->threads), t;
	struct bb_filter_stream *stream;
	__u64 seed, keys;
	int err;

	memset(filter, 0, sizeof(*filter));
	*out = NULL;
	if (tally->bad)
		return -EINVAL;
	seed = filter_seed(opts->seed);
	err = bb_plen_plan_make(tally->v4_plens, 32, &filter->v4);
	err = err ?: bb_plen_plan_make(tally->v6_plens, 128, &filter->v6);
	if (err)
		return err;
	keys = stream_shape(filter, tally, opts);

	/* the allowlist, with room for every key tallied: its size goes into the map's */
	err = allow_table_init(filter, tally, bb_allow_blocks_for(tally->allow_keys));
	if (err) {
		bb_filter_free(filter);
		return err;
	}
	stream = calloc(1, sizeof(*stream));
	if (!stream) {
		bb_filter_free(filter);
		return -ENOMEM;
	}
	pthread_mutex_init(&stream->allow_lock, NULL);
	/* sized for every key counted: a repeated one costs room, never a miss */
	err = filter_size(filter, keys, seed, fpr, opts);
	if (err) {
		free(stream);
		bb_filter_free(filter);
		return err;
	}
	stream->filter = filter;
	if (threads > 1) {
		stream->second_len = (size_t)filter->hdr.nblocks * BB_BLOCK_BYTES;
		stream->second = mmap(NULL, stream->second_len, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (stream->second == MAP_FAILED) {
			free(stream);
			bb_filter_free(filter);
			return -ENOMEM;
		}
		/* random writes all over it: huge pages spare the TLB, where there are any */
		madvise(stream->second, stream->second_len, MADV_HUGEPAGE);
	}
	stream->index = opts->index;
	for (t = 0; t < BB_BUILD_MAX_THREADS; t++)
		stream->jobs[t] = (struct build_job){
			.filter = filter, .seed = seed, .stream = true,
			.blocks = t == 0 || !stream->second ? filter->blocks : stream->second,
			.atomic = t > 0 && threads > 2,
			.index = opts->index ? &stream->job_index[t] : NULL,
		};
	*out = stream;
	return 0;
}

void bb_filter_stream_add(struct bb_filter_stream *stream, unsigned int thread,
			  const struct bb_entry *e)
{
	__u64 h[2];
	unsigned int n, i;
	int err;

	if (!(e->flags & BB_ENTRY_F_ALLOW)) {
		add_entry(&stream->jobs[thread % BB_BUILD_MAX_THREADS], e);
		return;
	}
	n = bb_allow_keys(e, stream->filter->hdr.seed, h);
	pthread_mutex_lock(&stream->allow_lock);
	for (i = 0; i < n; i++) {
		err = allow_table_add(stream->filter, h[i]);
		if (err < 0)
			stream->allow_err = err;
	}
	pthread_mutex_unlock(&stream->allow_lock);
}

void bb_filter_stream_part(struct bb_filter_stream *stream, unsigned int thread, size_t part)
{
	if (stream->index)
		bb_index_part(&stream->job_index[thread % BB_BUILD_MAX_THREADS], part);
}

int bb_filter_stream_end(struct bb_filter_stream *stream, __u64 *repeats)
{
	__u64 *dst, *src;
	unsigned int t;
	size_t i;
	int err;

	*repeats = 0;
	if (!stream)
		return 0;
	for (t = 0; t < BB_BUILD_MAX_THREADS; t++) {
		batch_flush(&stream->jobs[t]);
		*repeats += stream->jobs[t].repeats;
	}
	if (stream->second) {
		dst = (__u64 *)stream->filter->blocks;
		src = (__u64 *)stream->second;
		for (i = 0; i < stream->second_len / sizeof(*dst); i++)
			dst[i] |= src[i];
		munmap(stream->second, stream->second_len);
	}
	err = stream->allow_err;
	for (t = 0; t < BB_BUILD_MAX_THREADS; t++) {
		int e = stream->index ? bb_index_append(stream->index, &stream->job_index[t]) : 0;

		err = err ?: e;
		bb_index_free(&stream->job_index[t]);
	}
	pthread_mutex_destroy(&stream->allow_lock);
	free(stream);
	return err;
}

/* SPDX-License-Identifier: MIT */
/* The latency histogram (see hist.h): buckets, merging, percentiles, the log2 summary. */
#include <math.h>
#include <string.h>

#include "common/hist.h"

void rblk_hist_init(struct rblk_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned rblk_hist_index(uint64_t v)
{
	unsigned msb, shift;

	if (v < 2 * RBLK_HIST_SUB)
		return (unsigned)v;
	msb = 63 - (unsigned)__builtin_clzll(v);
	shift = msb - RBLK_HIST_SUB_BITS;
	return (shift + 1) * RBLK_HIST_SUB + (unsigned)((v >> shift) & (RBLK_HIST_SUB - 1));
}

uint64_t rblk_hist_lower(unsigned i)
{
	unsigned shift;

	if (i < 2 * RBLK_HIST_SUB)
		return i;
	shift = i / RBLK_HIST_SUB - 1;
	return (uint64_t)(RBLK_HIST_SUB + i % RBLK_HIST_SUB) << shift;
}

uint64_t rblk_hist_upper(unsigned i)
{
	if (i < 2 * RBLK_HIST_SUB)
		return i;
	return rblk_hist_lower(i) + ((uint64_t)1 << (i / RBLK_HIST_SUB - 1)) - 1;
}

void rblk_hist_merge(struct rblk_hist *dst, const struct rblk_hist *src)
{
	for (unsigned i = 0; i < RBLK_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

double rblk_hist_mean(const struct rblk_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0;
}

uint64_t rblk_hist_pct(const struct rblk_hist *h, double p)
{
	uint64_t rank, seen = 0;

	if (!h->count || p <= 0)
		return 0;
	if (p > 100)
		p = 100;
	rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (!rank)
		rank = 1;
	for (unsigned i = 0; i < RBLK_HIST_BUCKETS; i++) {
		uint64_t lo, hi, mid;

		seen += h->b[i];
		if (seen < rank)
			continue;
		lo = rblk_hist_lower(i);
		hi = rblk_hist_upper(i);
		mid = lo + (hi - lo) / 2;
		if (mid < h->min)
			mid = h->min;
		if (mid > h->max)
			mid = h->max;
		return mid;
	}
	return h->max;
}

void rblk_hist_log2(const struct rblk_hist *h, uint64_t out[64])
{
	memset(out, 0, 64 * sizeof(out[0]));
	for (unsigned i = 0; i < RBLK_HIST_BUCKETS; i++) {
		uint64_t lo = rblk_hist_lower(i);

		if (h->b[i])
			out[lo ? 63 - __builtin_clzll(lo) : 0] += h->b[i];
	}
}

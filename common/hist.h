/* SPDX-License-Identifier: MIT */
/*
 * The latency histogram of every rblk benchmark (`rblk bench`, bench/):
 * one increment per I/O, nothing allocated, and percentiles within 1/32 of
 * the truth, so that the tool and the benchmark programs report figures
 * computed the same way.
 *
 * Values below 64 get a bucket each; above, every power of two is split into
 * 32 linear sub-buckets (HDR-histogram style). Values are nanoseconds.
 */
#ifndef RBLK_COMMON_HIST_H
#define RBLK_COMMON_HIST_H

#include <stdint.h>

#define RBLK_HIST_SUB_BITS 5
#define RBLK_HIST_SUB (1u << RBLK_HIST_SUB_BITS)
#define RBLK_HIST_BUCKETS ((64 - RBLK_HIST_SUB_BITS + 1) * RBLK_HIST_SUB)

struct rblk_hist {
	uint64_t count, sum, min, max;
	uint64_t b[RBLK_HIST_BUCKETS];
};

void rblk_hist_init(struct rblk_hist *h);
unsigned rblk_hist_index(uint64_t v);
/* Smallest and largest value of bucket @i. */
uint64_t rblk_hist_lower(unsigned i);
uint64_t rblk_hist_upper(unsigned i);
static inline void rblk_hist_add(struct rblk_hist *h, uint64_t v)
{
	h->b[rblk_hist_index(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}
void rblk_hist_merge(struct rblk_hist *dst, const struct rblk_hist *src);
double rblk_hist_mean(const struct rblk_hist *h);
/*
 * The @p-th percentile (0 < p <= 100): the middle of the bucket holding the
 * ceil(p/100 * count)-th smallest value, clamped to [min, max]. 0 if empty.
 */
uint64_t rblk_hist_pct(const struct rblk_hist *h, double p);
/* Counts per power of two: out[k] = values in [2^k, 2^(k+1)) (out[0] also holds 0). */
void rblk_hist_log2(const struct rblk_hist *h, uint64_t out[64]);

#endif

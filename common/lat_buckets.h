/* SPDX-License-Identifier: MIT */
/*
 * The latency buckets of the target's per-namespace histograms, shared by
 * the target (which counts into them on the I/O path) and rblk-target's
 * metrics and RPC (which name them): 10 us to 10 s in 1-2.5-5 steps, the
 * upper bounds inclusive as Prometheus' "le" wants, and one last bucket for
 * anything slower.
 */
#ifndef RBLK_COMMON_LAT_BUCKETS_H
#define RBLK_COMMON_LAT_BUCKETS_H

#include <stdint.h>

#define RBLK_LAT_BOUNDS 19
#define RBLK_LAT_BUCKETS (RBLK_LAT_BOUNDS + 1) /* the last: above 10 s */

/* Upper bounds in ns, ascending. */
static const uint64_t rblk_lat_bound_ns[RBLK_LAT_BOUNDS] = {
	10000, 25000, 50000, 100000, 250000, 500000,
	1000000, 2500000, 5000000, 10000000, 25000000, 50000000,
	100000000, 250000000, 500000000,
	1000000000, 2500000000, 5000000000, 10000000000,
};

/*
 * The bucket of a latency: the first whose bound is >= ns. A scan, not a
 * logarithm: I/O latencies sit in the first few buckets, so it ends after
 * two or three compares, with no floating point on the I/O path.
 */
static inline unsigned rblk_lat_bucket(uint64_t ns)
{
	unsigned i = 0;

	while (i < RBLK_LAT_BOUNDS && ns > rblk_lat_bound_ns[i])
		i++;
	return i;
}

#endif

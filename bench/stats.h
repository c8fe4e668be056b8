/* SPDX-License-Identifier: MIT */
/*
 * The figures every rblk benchmark reports: one run's result, a latency
 * histogram cheap enough to feed on every I/O, medians over repetitions, and
 * their JSON form.
 */
#ifndef RBLK_BENCH_STATS_H
#define RBLK_BENCH_STATS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct rblk_bench_result {
	bool ok;
	double iops, mbps, lat_avg_us, lat_p50_us, lat_p99_us, cpu_pct;
};

/* Log-linear: 32 sub-buckets per power of two of nanoseconds (~3%). */
#define RBLK_HIST_SUB_BITS 5
#define RBLK_HIST_SUB (1u << RBLK_HIST_SUB_BITS)
#define RBLK_HIST_BUCKETS (64 * RBLK_HIST_SUB)

struct rblk_bench_hist {
	uint64_t count[RBLK_HIST_BUCKETS];
	uint64_t n;
	double sum;
};

static inline void rblk_bench_hist_add(struct rblk_bench_hist *h, uint64_t ns)
{
	unsigned b = (unsigned)ns, msb;

	if (ns >= RBLK_HIST_SUB) {
		msb = 63 - __builtin_clzll(ns);
		b = (msb - RBLK_HIST_SUB_BITS + 1) * RBLK_HIST_SUB +
		    ((ns >> (msb - RBLK_HIST_SUB_BITS)) & (RBLK_HIST_SUB - 1));
	}
	h->count[b]++;
	h->n++;
	h->sum += ns;
}

/* The pct-th percentile in nanoseconds (middle of its bucket); 0 if empty. */
double rblk_bench_hist_pct(const struct rblk_bench_hist *h, double pct);

uint64_t rblk_bench_now_ns(void);
/* User + system CPU seconds of this process so far. */
double rblk_bench_cpu_seconds(void);

/* Field by field median of the runs that worked. */
struct rblk_bench_result rblk_bench_median(const struct rblk_bench_result *r, int n);
json_object *rblk_bench_result_json(const struct rblk_bench_result *r);
/* {"reps": [...], "median": {...}} */
json_object *rblk_bench_reps_json(const struct rblk_bench_result *reps, int n,
				  const struct rblk_bench_result *median);

#endif

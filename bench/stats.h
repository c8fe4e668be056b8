/* SPDX-License-Identifier: MIT */
/*
 * The figures every rblk benchmark reports: one run's result, medians over
 * repetitions, and their JSON form. Latencies go through common/hist.h, the
 * histogram `rblk bench` uses too.
 */
#ifndef RBLK_BENCH_STATS_H
#define RBLK_BENCH_STATS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/hist.h"

struct rblk_bench_result {
	bool ok;
	double iops, mbps, lat_avg_us, lat_p50_us, lat_p99_us, cpu_pct;
};

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

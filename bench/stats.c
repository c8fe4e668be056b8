/* SPDX-License-Identifier: MIT */
/*
 * Benchmark figures: clocks, medians over repetitions, JSON. Shared by the programs in bench/.
 */
#include <stddef.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "bench/stats.h"

uint64_t rblk_bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

double rblk_bench_cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of(const struct rblk_bench_result *r, int n, size_t field)
{
	double v[64];
	int k = 0;

	for (int i = 0; i < n && k < 64; i++)
		if (r[i].ok)
			v[k++] = *(const double *)((const char *)&r[i] + field);
	if (!k)
		return 0;
	qsort(v, k, sizeof(v[0]), cmp_double);
	return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

struct rblk_bench_result rblk_bench_median(const struct rblk_bench_result *r, int n)
{
	struct rblk_bench_result m = { .ok = false };

	for (int i = 0; i < n; i++)
		m.ok |= r[i].ok;
	m.iops = median_of(r, n, offsetof(struct rblk_bench_result, iops));
	m.mbps = median_of(r, n, offsetof(struct rblk_bench_result, mbps));
	m.lat_avg_us = median_of(r, n, offsetof(struct rblk_bench_result, lat_avg_us));
	m.lat_p50_us = median_of(r, n, offsetof(struct rblk_bench_result, lat_p50_us));
	m.lat_p99_us = median_of(r, n, offsetof(struct rblk_bench_result, lat_p99_us));
	m.cpu_pct = median_of(r, n, offsetof(struct rblk_bench_result, cpu_pct));
	return m;
}

json_object *rblk_bench_result_json(const struct rblk_bench_result *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "ok", json_object_new_boolean(r->ok));
	json_object_object_add(o, "iops", json_object_new_double(r->iops));
	json_object_object_add(o, "mb_per_s", json_object_new_double(r->mbps));
	json_object_object_add(o, "lat_avg_us", json_object_new_double(r->lat_avg_us));
	json_object_object_add(o, "lat_p50_us", json_object_new_double(r->lat_p50_us));
	json_object_object_add(o, "lat_p99_us", json_object_new_double(r->lat_p99_us));
	json_object_object_add(o, "cpu_pct", json_object_new_double(r->cpu_pct));
	return o;
}

json_object *rblk_bench_reps_json(const struct rblk_bench_result *reps, int n,
				  const struct rblk_bench_result *median)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();

	for (int i = 0; i < n; i++)
		json_object_array_add(a, rblk_bench_result_json(&reps[i]));
	json_object_object_add(o, "reps", a);
	json_object_object_add(o, "median", rblk_bench_result_json(median));
	return o;
}

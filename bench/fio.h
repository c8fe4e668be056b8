/* SPDX-License-Identifier: MIT */
/*
 * Running Debian's fio as the reference side of a benchmark, and reading its
 * JSON output (json-c).
 */
#ifndef RBLK_BENCH_FIO_H
#define RBLK_BENCH_FIO_H

#include "bench/stats.h"

/*
 * Runs argv (argv[0] is the fio binary, NULL-terminated; it must include
 * --output-format=json, and --lat_percentiles=1 for p50/p99) and fills res
 * from jobs[0].read. 0, or -errno (fio missing or failed: -EIO).
 */
int rblk_bench_fio_run(const char *const *argv, struct rblk_bench_result *res);
/* The same from fio's output text (warning lines before the JSON are fine). */
int rblk_bench_fio_parse(const char *text, struct rblk_bench_result *res);
/* argv as one shell-like line, for reports. */
void rblk_bench_fio_cmdline(const char *const *argv, char *buf, size_t len);

#endif

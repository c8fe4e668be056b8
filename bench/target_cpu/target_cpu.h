/* SPDX-License-Identifier: MIT */
/*
 * target_cpu's figures and their report (report.c): what one measurement
 * window gives, per poll group and in total, the medians over repetitions,
 * the text lines and the JSON document.
 */
#ifndef RBLK_BENCH_TARGET_CPU_H
#define RBLK_BENCH_TARGET_CPU_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define TC_MAX_GROUPS 64
#define TC_MAX_REPS 100

/* One poll group thread over one window. */
struct tc_group {
	uint64_t ios;
	double cpu_ns;                /* the thread's CPU time */
	uint64_t fabric_ticks;        /* of which inside the fabric's entry points (TSC) */
	double fabric_ns;             /* the same in ns (tc_fig_derive) */
	uint64_t fabric_calls;
	uint64_t preempted;           /* fabric calls left out: switched out meanwhile */
	uint64_t preempted_ticks;
};

/* One window: the groups and the figures derived from them (see --help). */
struct tc_fig {
	double wall_s;
	uint64_t ios;
	double iops;
	double ns_per_io;             /* (CPU - fabric) / I/Os, over all groups */
	double fabric_ns_per_io;
	double cpu_ns_per_io;         /* CPU / I/Os, fabric included */
	double iops_per_core;         /* 1e9 / ns_per_io */
	double util;                  /* CPU / (wall x groups): ~1 when nothing else ran */
	double fabric_calls_per_io;
	double preempted_calls;       /* sum over the groups */
	unsigned ngroups;
	struct tc_group g[TC_MAX_GROUPS];
};

/* Derives the figures of f from its groups and wall time. */
void tc_fig_derive(struct tc_fig *f, double ticks_per_ns);

struct tc_case {
	unsigned npg;
	unsigned nreps;
	struct tc_fig rep[TC_MAX_REPS];
	struct tc_fig med;            /* each figure's median over the reps (no groups) */
};

void tc_case_median(struct tc_case *c);

struct tc_config {
	const char *workload;
	const char *op;               /* "read", "write", "verify (50% writes)" */
	uint32_t bs;
	unsigned qd;
	bool incapsule;               /* writes in the capsule (else keyed SGL + RDMA READ) */
	uint32_t icd_bytes;
	const char *ns_path;
	double seconds;
	double warmup_s;
	unsigned reps;
	unsigned srq_depth;
	bool latency_stats;           /* --latency-stats */
	double tsc_ghz;
	double timer_ns;              /* cost of timing one fabric call, in all */
	double timer_outside_ns;      /* ... of which outside the timed window */
	double load1;                 /* 1-minute load average at start */
	unsigned ncpus;
	uint64_t verified;            /* blocks read back with their stamp (verify) */
};

void tc_print_fig(FILE *f, const char *label, const struct tc_fig *fig);
/* The JSON document: the configuration, every rep and group, medians, scaling (< 0: none). */
int tc_write_json(const char *path, const struct tc_config *cfg, const struct tc_case *cases,
		  unsigned ncases, double scaling);

#endif

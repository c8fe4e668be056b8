/* SPDX-License-Identifier: MIT */
/*
 * The `rblk bench` I/O engine: --numjobs threads, each with its own
 * --qpairs queue pairs and --qd I/Os in flight spread over them, timing every I/O into a histogram, while the
 * calling thread samples throughput in short windows (for the peak) and
 * draws the progress line.
 */
#ifndef RBLK_CLI_BENCH_RUN_H
#define RBLK_CLI_BENCH_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include <rblk/initiator.h>

#include "cli/bench.h"

enum bench_rw {
	BENCH_READ,
	BENCH_WRITE,
	BENCH_RW,		/* sequential, mixed by rwmixread */
	BENCH_RANDREAD,
	BENCH_RANDWRITE,
	BENCH_RANDRW,
};

/* "read", "randwrite", ... */
const char *rblk_cli_bench_rw_str(enum bench_rw rw);
int rblk_cli_bench_rw_parse(const char *s, enum bench_rw *out);
bool rblk_cli_bench_rw_writes(enum bench_rw rw, unsigned rwmixread);

#define BENCH_QPAIRS_MAX 16	/* queue pairs per job */

struct bench_params {
	enum bench_rw rw;
	unsigned rwmixread;	/* % reads for rw/randrw */
	uint32_t bs;
	unsigned qd, numjobs;
	unsigned qpairs;	/* per job, 1..BENCH_QPAIRS_MAX; slots use them in turn */
	double time;		/* seconds; ignored by a one-pass run */
	bool one_pass;		/* write the region once, sequentially (the --verify fill) */
	uint64_t start, size;	/* byte region */
	bool verify;		/* writes carry the pattern, reads check it */
	uint64_t seed;
	bool busy_poll;		/* never sleep waiting for completions */
	bool progress;		/* progress line on stderr */
	const char *label;	/* for the progress line */
};

enum { BENCH_DIR_READ = 0, BENCH_DIR_WRITE = 1 };

struct bench_result {
	uint64_t ios[2], bytes[2];
	struct rblk_hist lat[2];
	double seconds;
	double peak_bps;		/* best window's bytes/s */
	uint64_t verify_checked, verify_bad, first_bad_off;
	int err;			/* first failure: -errno, or -EREMOTEIO with status */
	uint16_t status;
	uint64_t err_off;
	char err_what[64];
};

/* Runs one benchmark; 0 when it ran (check r->err and r->verify_bad), -errno on setup failure. */
int rblk_cli_bench_run(struct rblk_ctrl *ctrl, struct rblk_ns *ns, const struct bench_params *p,
		       struct bench_result *r);
/* Asks a running benchmark to stop early (signal-safe). */
void rblk_cli_bench_interrupt(void);
bool rblk_cli_bench_interrupted(void);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * `rblk bench` building blocks that need no target, so they are unit-tested
 * on their own:
 *   - the latency histogram's summary, log2 rows and JSON as the tool shows
 *     them (the histogram itself is common/hist.c) (cli/bench_stats.c)
 *   - the data pattern --verify writes and checks (cli/bench_stats.c)
 *   - named figures, saved as a JSON baseline and compared against one with a
 *     threshold                                   (cli/baseline.c)
 *   - "is it really RDMA?": the port counters of the RDMA device that carries
 *     the connection, before and after, against the bytes moved (cli/counters.c)
 */
#ifndef RBLK_CLI_BENCH_H
#define RBLK_CLI_BENCH_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "common/hist.h"
#include "transport/rdma.h"

/* ---- latency histogram (common/hist.h), as the tool shows it ---------------- */

/* Latency summary {"min","avg","p50","p99","p99.9","max"} in microseconds. */
struct json_object *rblk_cli_hist_json(const struct rblk_hist *h);
/* The log2 histogram as rows "[lo, hi) us  count  pct  bar" (non-empty rows only). */
void rblk_cli_hist_print(FILE *f, const struct rblk_hist *h, const char *indent);
/* [{"from_us","to_us","count","pct"}] for the non-empty log2 rows. */
struct json_object *rblk_cli_hist_log2_json(const struct rblk_hist *h);

/* ---- the verify pattern ------------------------------------------------------- */

/*
 * Fills @len bytes (a multiple of 8) with the pattern for namespace byte
 * offset @off: every 8-byte word is a hash of (seed, its own offset), so any
 * block read back tells whether it holds what was written there.
 */
void rblk_cli_pattern_fill(void *buf, uint64_t off, uint32_t len, uint64_t seed);
/* Offset within @buf of the first word that differs from the pattern; @len if none. */
uint32_t rblk_cli_pattern_check(const void *buf, uint64_t off, uint32_t len, uint64_t seed);

/* ---- figures and baselines ----------------------------------------------------- */

enum cli_better {
	CLI_HIGHER_IS_BETTER = 1,
	CLI_LOWER_IS_BETTER = -1,
};

struct cli_figure {
	char name[64];		/* "randread.iops", "sweep.4096.bw_peak_MBps" */
	double value;
	char unit[16];
	enum cli_better better;
};

struct cli_figures {
	struct cli_figure *f;
	unsigned n, cap;
};

void rblk_cli_figures_init(struct cli_figures *fs);
void rblk_cli_figures_free(struct cli_figures *fs);
int rblk_cli_figures_add(struct cli_figures *fs, const char *name, double value, const char *unit,
			 enum cli_better better);
const struct cli_figure *rblk_cli_figures_find(const struct cli_figures *fs, const char *name);

/*
 * {"rblk_bench_baseline": 1, "version", "params": @params, "figures": {NAME:
 * {"value", "unit", "better"}}}; takes a reference on @params (may be NULL).
 */
struct json_object *rblk_cli_baseline_json(const struct cli_figures *fs, struct json_object *params);
/* Writes the baseline to @path (temp file + rename). 0 or -errno. */
int rblk_cli_baseline_save(const char *path, const struct cli_figures *fs, struct json_object *params);
/*
 * Reads a baseline file. 0, -errno (cannot read), or -EINVAL with a reason
 * in @why. *params (may be NULL) gets a new reference to its "params".
 */
int rblk_cli_baseline_load(const char *path, struct cli_figures *fs, struct json_object **params,
			   char *why, size_t whylen);

struct cli_delta {
	const struct cli_figure *base, *cur;
	double change_pct;	/* (cur - base) / base * 100; +/-inf when base is 0 */
	bool flagged;		/* |change| > threshold */
	bool worse;		/* flagged, in the bad direction */
};

/*
 * One delta per figure present in both sets (in @cur's order), into @out
 * (room for cur->n). Returns how many were flagged worse; *n gets the count.
 */
unsigned rblk_cli_baseline_compare(const struct cli_figures *base, const struct cli_figures *cur,
				   double threshold_pct, struct cli_delta *out, unsigned *n);
void rblk_cli_baseline_print(FILE *f, const struct cli_delta *d, unsigned n, double threshold_pct);
struct json_object *rblk_cli_baseline_compare_json(const struct cli_delta *d, unsigned n,
						   double threshold_pct, const char *file);

/* ---- "is it really RDMA?" ---------------------------------------------------- */

enum cli_rdma_verdict {
	CLI_RDMA_OK,		/* the device counted at least the bytes moved */
	CLI_RDMA_MISMATCH,	/* it did not: the data went some other way */
	CLI_RDMA_UNKNOWN,	/* no device found, or no counter can tell */
};

struct cli_rdma_check {
	bool have_dev;
	char dev[RBLK_DEV_NAME_MAX];
	unsigned port;
	char local[64];			/* the local address that selected the device */
	unsigned mtu;			/* active MTU in bytes, 0 unknown */
	struct rblk_port_counters before, after, delta;
	struct rblk_port_bytes bytes;
	bool have_bytes;
	uint64_t data_tx, data_rx;	/* payload written / read by the benchmark */
	uint64_t errors;		/* sum of error-counter increments */
	char error_names[160];
	enum cli_rdma_verdict verdict;
	char why[512];
};

/* The local address the kernel picks to reach @traddr:@port (a UDP connect: nothing is sent). */
int rblk_cli_route_source(const char *traddr, const char *port, struct sockaddr_storage *out);
/*
 * Finds the RDMA device and port that carry traffic to @traddr:@port (from
 * @host_traddr when given, else the address the kernel routes from) and
 * reads its counters. Never fails: without a device the check says why.
 */
void rblk_cli_rdma_check_begin(struct cli_rdma_check *c, const char *sysfs_root, const char *traddr,
			       const char *port, const char *host_traddr);
/* Reads the counters again and decides (rblk_cli_rdma_verdict). */
void rblk_cli_rdma_check_end(struct cli_rdma_check *c, const char *sysfs_root, uint64_t data_tx,
			     uint64_t data_rx);
/* The decision from c->delta, c->mtu, c->data_tx/rx alone (tests call it directly). */
void rblk_cli_rdma_verdict(struct cli_rdma_check *c);
const char *rblk_cli_rdma_verdict_str(enum cli_rdma_verdict v);
void rblk_cli_rdma_check_print(FILE *f, const struct cli_rdma_check *c);
struct json_object *rblk_cli_rdma_check_json(const struct cli_rdma_check *c);

#endif

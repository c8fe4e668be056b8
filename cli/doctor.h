/* SPDX-License-Identifier: MIT */
/*
 * `rblk doctor`: checks this host's RDMA setup and says what to do about
 * each problem. Every check reads files under a root (default "/": /sys,
 * /proc, /dev), so tests run it over a fake tree.
 *
 * Checks (the field guide's list): RDMA devices; per port its state,
 * physical state, link layer, rate, MTU, GIDs and their types, the netdev
 * behind it and its state; error counters; RLIMIT_MEMLOCK against what a
 * default initiator and target pin; hugepages; the kernel modules (ib_uverbs,
 * rdma_ucm, rdma_rxe, nbd); /dev/infiniband/uverbs* and rdma_cm access; and,
 * with -a ADDR, which device carries traffic to ADDR.
 */
#ifndef RBLK_CLI_DOCTOR_H
#define RBLK_CLI_DOCTOR_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum cli_verdict {
	CLI_OK,
	CLI_WARN,
	CLI_FAIL,
};

struct cli_check {
	char name[96];		/* "rxe0 port 1 state", "memlock" */
	enum cli_verdict v;
	char detail[320];	/* what was found */
	char fix[320];		/* what to do ("" when nothing) */
};

struct cli_doctor {
	char sys[512], proc[512], dev[512];	/* root + "/sys", ... */
	bool real_root;				/* "/": verbs and rdma_cm may be asked too */
	struct cli_check *c;
	unsigned n, cap;
	struct json_object *devices;		/* inventory for -o json */
	unsigned ndevs;
};

/* "OK", "WARN", "FAIL". */
const char *rblk_cli_verdict_str(enum cli_verdict v);

/* Runs every check over @root ("/" or a fake tree); @addr (may be NULL) adds the route check. */
int rblk_cli_doctor_run(struct cli_doctor *d, const char *root, const char *addr);
void rblk_cli_doctor_free(struct cli_doctor *d);
/* The first check whose name starts with @prefix, or NULL. */
const struct cli_check *rblk_cli_doctor_find(const struct cli_doctor *d, const char *prefix);
unsigned rblk_cli_doctor_count(const struct cli_doctor *d, enum cli_verdict v);
void rblk_cli_doctor_print(FILE *f, const struct cli_doctor *d);
struct json_object *rblk_cli_doctor_json(const struct cli_doctor *d);

/* Adds a check (cli/doctor_checks.c uses it). */
void rblk_cli_check(struct cli_doctor *d, enum cli_verdict v, const char *name, const char *fix,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The individual checks (cli/doctor_checks.c). */
void rblk_cli_doctor_devices(struct cli_doctor *d);
void rblk_cli_doctor_memlock(struct cli_doctor *d);
void rblk_cli_doctor_hugepages(struct cli_doctor *d);
void rblk_cli_doctor_modules(struct cli_doctor *d);
void rblk_cli_doctor_dev_nodes(struct cli_doctor *d);
void rblk_cli_doctor_route(struct cli_doctor *d, const char *addr);

/* Estimates of what a default initiator / rblk-target pins (bytes) for @cpus CPUs. */
uint64_t rblk_cli_memlock_initiator(unsigned cpus);
uint64_t rblk_cli_memlock_target(unsigned cpus);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * rblk-target's command line: getopt_long over the flags, the quick-export
 * flags (--listen, --subsystem, --ns, --allow-host, --allow-any-host) turned
 * into the same configuration model a JSON file produces (config.h), and the
 * target-wide option flags. Kept apart from main.c so it is unit-testable.
 */
#ifndef RBLK_TARGET_ARGS_H
#define RBLK_TARGET_ARGS_H

#include <stdbool.h>
#include <stdio.h>

#include "common/log.h"
#include "daemon/config.h"

/* Exit codes, documented in rblk-target(8). */
enum {
	RBLK_EXIT_OK = 0,
	RBLK_EXIT_FAILURE = 1, /* could not start or run: RDMA device, memlock, backend, ... */
	RBLK_EXIT_USAGE = 2,   /* invalid flags or configuration: nothing was started */
};

struct rblk_tgt_args {
	const char *config_path;  /* --config */
	const char *save_path;    /* --save */
	const char *pidfile;      /* --pidfile */
	enum rblk_cfg_mode mode;  /* --abort-on-error (default) / --best-effort */
	bool check_only;          /* --check */
	bool help, version;
	bool log_level_set;
	enum rblk_log_level log_level;
	bool log_time;            /* --log-time: lines start with the local time */
	unsigned stats_interval;  /* --stats-interval seconds; 0 = off */
	/* Objects from the quick flags and target options from the option flags. */
	struct rblk_config *flags;
};

/*
 * Parses argv. Messages name the flag and its value and go to @err.
 * Returns 0, -EINVAL (usage error: exit RBLK_EXIT_USAGE) or -ENOMEM.
 * Free with rblk_tgt_args_free() in every case.
 */
int rblk_tgt_args_parse(int argc, char **argv, struct rblk_tgt_args *a, FILE *err);
void rblk_tgt_args_free(struct rblk_tgt_args *a);
void rblk_tgt_usage(FILE *out);

/*
 * "ADDR", "ADDR:PORT", "[V6ADDR]:PORT", "[V6ADDR]" or a bare IPv6 literal.
 * @addr gets the literal without brackets; @port 4420 when absent.
 * 0 or -EINVAL with the reason in @why.
 */
int rblk_tgt_parse_listen(const char *s, char *addr, size_t addrlen, bool *ipv6,
			  uint16_t *port, char *why, size_t whylen);
/* rblk_size_parse() (common/parse.h) within 0..@max (and 32 bits): "131072", "128k", "1M". */
int rblk_tgt_parse_size(const char *s, uint64_t max, uint32_t *out);

#endif

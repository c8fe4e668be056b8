/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for the target library (include/rblk/target.h) for the config
 * and daemon tests: it keeps subsystems, namespaces, hosts and listeners in
 * plain arrays, records every call as one line in fake_log, and fails a
 * chosen call on request (fake_fail(), or RBLK_FAKE_FAIL=PREFIX:ERRNO in the
 * environment of rblk-target-fake). No RDMA, no threads, no files.
 */
#ifndef RBLK_TEST_CONFIG_FAKE_TARGET_H
#define RBLK_TEST_CONFIG_FAKE_TARGET_H

#include <rblk/target.h>

/* Every call, one per line: "add_subsys NQN any=0", "add_ns NQN 1 /p ro=0", ... */
extern char fake_log[16384];

/* Empties the fake target, the log and any armed failure. */
void fake_reset(void);
/* The next call whose log line starts with @prefix returns @err (once). */
void fake_fail(const char *prefix, int err);
/* What rblk_target_stats_json() returns until fake_reset() (NULL: no controllers). */
void fake_set_stats(const char *json);
/* Counts of what the fake target holds now. */
int fake_nr_ns(const char *nqn);
int fake_nr_listeners(void);
/* The fake target handle to pass to rblk_config_apply(). */
struct rblk_target *fake_target(void);

#endif

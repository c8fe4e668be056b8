/* SPDX-License-Identifier: MIT */
/*
 * What rblk-target does between parsing its flags and creating the target:
 * the configuration (file plus quick flags) built and validated, the
 * start-up check (rblk_config_preflight()) and the locked-memory check.
 * One function for a start and for --check, so --check refuses exactly what
 * a start would, and one mapping from its errors to exit codes.
 */
#ifndef RBLK_TARGET_STARTUP_H
#define RBLK_TARGET_STARTUP_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon/args.h"

/*
 * The --config file (if any) plus the quick flags, validated as one
 * configuration (what a reload re-reads, too). 0, -EINVAL/-EBADMSG (invalid;
 * messages logged), -ENOENT and other -errno (the file), or -ENOMEM.
 */
int rblk_tgt_build_config(const struct rblk_tgt_args *a, struct rblk_config **out);
/*
 * rblk_tgt_build_config(), then rblk_config_preflight(), then whether
 * RLIMIT_MEMLOCK allows what the poll groups will register. On success
 * *out is the configuration to start. Errors as rblk_tgt_exit_code() maps
 * them: -ENOMEM for too little lockable memory (or memory), any other
 * -errno for an invalid configuration.
 */
int rblk_tgt_prepare(const struct rblk_tgt_args *a, struct rblk_config **out);
/*
 * The exit status for a failed rblk_tgt_prepare(): RBLK_EXIT_USAGE (2) for a
 * configuration error, so systemd does not restart into the same error
 * (RestartPreventExitStatus=2); RBLK_EXIT_FAILURE (1) for -ENOMEM, which a
 * change of the host or its limits can fix. 0 for 0.
 */
int rblk_tgt_exit_code(int err);
/* The management socket's path: x-rblk.rpc_socket / --rpc-socket, the default, or NULL ("none"). */
const char *rblk_tgt_rpc_path(const struct rblk_config *cfg);
/*
 * Whether a configuration with no subsystem or no port may start: the
 * socket is on, and there is no --config file or the socket was named
 * (--rpc-socket, x-rblk.rpc_socket).
 */
bool rblk_tgt_may_start_empty(const struct rblk_tgt_args *a, const struct rblk_config *cfg);
/* What the poll groups will register for @o: the RLIMIT_MEMLOCK need. */
size_t rblk_tgt_memlock_need(const struct rblk_target_opts *o);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The management methods (docs/rpc.md), over the running configuration of
 * live.h: SPDK's nvmf_* names and parameter names where SPDK has the
 * operation, rblk_* for the rest. Changes (rpc_nvmf.c) copy the running
 * configuration, change the copy, validate it as a configuration file is
 * validated and apply the difference as a SIGHUP reload does; reports
 * (rpc_nvmf_get.c) read the running configuration and the target's
 * statistics.
 */
#ifndef RBLK_TARGET_RPC_NVMF_H
#define RBLK_TARGET_RPC_NVMF_H

#include "daemon/live.h"
#include "daemon/rpc.h"

/* The methods, for a struct rblk_rpc_table whose ctx is a struct rblk_tgt_live. */
extern const struct rblk_rpc_method rblk_rpc_nvmf_methods[];
extern const size_t rblk_rpc_nvmf_nr_methods;

/* Reports (rpc_nvmf_get.c). */
int rblk_rpc_get_subsystems(void *ctx, struct json_object *params, struct json_object **result,
			    struct rblk_rpc_err *e);
int rblk_rpc_get_controllers(void *ctx, struct json_object *params, struct json_object **result,
			     struct rblk_rpc_err *e);
int rblk_rpc_get_qpairs(void *ctx, struct json_object *params, struct json_object **result,
			struct rblk_rpc_err *e);
int rblk_rpc_get_stats(void *ctx, struct json_object *params, struct json_object **result,
		       struct rblk_rpc_err *e);
int rblk_rpc_ns_get_stats(void *ctx, struct json_object *params, struct json_object **result,
			  struct rblk_rpc_err *e);

/* SPDK's listen_address object: {"trtype": "RDMA", "adrfam", "traddr", "trsvcid"}. */
struct json_object *rblk_rpc_listen_json(const struct rblk_cfg_port *p);

#endif

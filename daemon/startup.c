/* SPDX-License-Identifier: MIT */
/*
 * rblk-target's way from flags to a configuration it may start (see
 * startup.h). Kept out of main.c so the path both a start and --check take
 * is unit-tested as it is, over the fake target.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "daemon/rpc.h"
#include "daemon/startup.h"
#include "transport/mr_pool.h"

int rblk_tgt_build_config(const struct rblk_tgt_args *a, struct rblk_config **out)
{
	struct rblk_config *cfg = NULL, *flags = NULL;
	unsigned nerr = 0;
	bool from_flags = a->flags->nr_subsys || a->flags->nr_ports || a->flags->nr_hosts;
	size_t file_ports, file_subsys;
	int ret;

	if (a->config_path) {
		ret = rblk_config_load(a->config_path, a->mode, &cfg, &nerr);
		if (ret) {
			if (ret == -EINVAL || ret == -EBADMSG)
				RBLK_ERR("%s: %u error%s; nothing from it is applied%s", a->config_path,
					 nerr, nerr == 1 ? "" : "s",
					 a->mode == RBLK_CFG_STRICT && ret == -EINVAL
						 ? " (--best-effort skips invalid entries instead)"
						 : "");
			return ret;
		}
		if (nerr)
			RBLK_WARN("%s: %u invalid entr%s skipped (--best-effort)", a->config_path,
				  nerr, nerr == 1 ? "y" : "ies");
	} else if ((ret = rblk_config_new(&cfg))) {
		return ret;
	}
	file_ports = cfg->nr_ports;
	file_subsys = cfg->nr_subsys;
	if ((ret = rblk_config_dup(a->flags, &flags)) || (ret = rblk_config_merge(cfg, flags)))
		goto fail;
	/*
	 * The flags' listeners export every subsystem and the flags'
	 * subsystems are exported on every listener, the file's included; the
	 * file's own ports keep exactly the links the file gives them.
	 */
	rblk_config_renumber_ports(cfg, file_ports);
	if ((ret = rblk_config_link_all(cfg, file_ports, file_subsys)))
		goto fail;
	/* The file was validated on its own; the flags, and their clashes with it, now. */
	if (from_flags && (ret = rblk_config_validate(cfg, a->mode, &nerr)))
		goto fail;
	*out = cfg;
	return 0;
fail:
	rblk_config_free(cfg);
	return ret;
}

static unsigned online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

/*
 * Per group a shared pool of I/O units, the shared receives (capsule +
 * in-capsule data; without them, one queue's worth) and one queue's
 * responses: the least a working target needs.
 */
size_t rblk_tgt_memlock_need(const struct rblk_target_opts *o)
{
	unsigned groups = o->num_poll_groups ? o->num_poll_groups : online_cpus();
	uint32_t units = o->num_shared_buffers ? o->num_shared_buffers : o->max_queue_depth;
	size_t pool = rblk_mr_pool_bytes_needed(o->io_unit_size, units);
	uint32_t nrecv = o->srq_depth ? o->srq_depth : o->max_queue_depth;
	size_t recv = rblk_mr_pool_bytes_needed(64, nrecv) +
		      (o->in_capsule_data_size
			       ? rblk_mr_pool_bytes_needed(o->in_capsule_data_size, nrecv) : 0);
	size_t rsp = rblk_mr_pool_bytes_needed(16, o->max_queue_depth);

	return groups * (pool + recv + rsp);
}

int rblk_tgt_prepare(const struct rblk_tgt_args *a, struct rblk_config **out)
{
	struct rblk_target_opts opts;
	struct rblk_config *cfg = NULL;
	char msg[512];
	unsigned nerr = 0;
	int ret;

	ret = rblk_tgt_build_config(a, &cfg);
	if (ret)
		return ret;
	ret = rblk_config_preflight(cfg, a->mode, a->config_path, rblk_tgt_may_start_empty(a, cfg),
				    &nerr);
	if (ret) {
		RBLK_ERR("not started: %u problem%s in the configuration (see above)", nerr,
			 nerr == 1 ? "" : "s");
		goto fail;
	}
	/* Only now: the options are known to be in range, so the sum cannot wrap. */
	rblk_config_target_opts(cfg, &opts);
	ret = rblk_memlock_check(rblk_tgt_memlock_need(&opts), msg, sizeof(msg));
	if (ret) {
		RBLK_ERR("%s; or lower --poll-groups, --queue-depth or --max-io-size", msg);
		ret = -ENOMEM;
		goto fail;
	}
	RBLK_INFO("%s", msg);
	*out = cfg;
	return 0;
fail:
	rblk_config_free(cfg);
	return ret;
}

const char *rblk_tgt_rpc_path(const struct rblk_config *cfg)
{
	const char *p = cfg->tgt.rpc_socket;

	if (!p)
		return RBLK_RPC_DEFAULT_SOCKET;
	return strcmp(p, "none") == 0 ? NULL : p;
}

bool rblk_tgt_may_start_empty(const struct rblk_tgt_args *a, const struct rblk_config *cfg)
{
	/*
	 * Without a file, or with the socket asked for by name, as SPDK's
	 * target: an empty start waiting for its configuration. A file that
	 * exports nothing, with the default socket, is still the mistake it
	 * always was.
	 */
	return rblk_tgt_rpc_path(cfg) && (!a->config_path || cfg->tgt.rpc_socket);
}

int rblk_tgt_exit_code(int err)
{
	if (!err)
		return RBLK_EXIT_OK;
	return err == -ENOMEM ? RBLK_EXIT_FAILURE : RBLK_EXIT_USAGE;
}

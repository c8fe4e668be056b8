/* SPDX-License-Identifier: MIT */
/*
 * The start-up check of rblk-target's configuration (see config.h): what
 * must hold before the target is created, beyond the model's own
 * consistency (config_check.c). The target options against the library's
 * own rules (rblk_target_opts_check(), what rblk_target_create() checks),
 * each enabled namespace's path opened in its mode (rblk_ns_path_check(),
 * the rules the namespace open applies), listener addresses, and something
 * to export and somewhere to listen.
 *
 * rblk-target runs it on every start and for --check, so --check refuses
 * what a start would refuse, and a start fails before anything is opened.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "daemon/config.h"

/* The library's field -> what a rblk-target user sets it with. */
static const struct {
	const char *field;
	const char *names;
} opt_names[] = {
	{ "num_poll_groups", "--poll-groups, x-rblk.poll_groups" },
	{ "max_queue_depth", "--queue-depth, x-rblk.max_queue_depth" },
	{ "max_admin_queue_depth", "x-rblk.max_aq_depth" },
	{ "max_io_queues", "x-rblk.max_io_qpairs_per_ctrlr" },
	{ "in_capsule_data_size",
	  "--in-capsule, x-rblk.in_capsule_data_size, ports[].param.inline_data_size" },
	{ "max_io_size", "--max-io-size, x-rblk.max_io_size" },
	{ "io_unit_size", "x-rblk.io_unit_size" },
	{ "num_shared_buffers", "x-rblk.num_shared_buffers; 0 means --queue-depth units" },
	{ "srq_depth", "--srq-depth, x-rblk.srq_depth; 0 means a receive queue per connection" },
	{ "poll_mode", "--poll-mode, x-rblk.poll_mode" },
	{ "connect_timeout_ms", "--connect-timeout, x-rblk.connect_timeout_ms" },
	{ "max_pending_queues", "--max-pending, x-rblk.max_pending_queues" },
	{ "max_pending_per_addr", "--max-pending-per-addr, x-rblk.max_pending_per_addr" },
	{ "max_ctrls_per_host", "--max-ctrls-per-host, x-rblk.max_ctrls_per_host" },
	{ "max_queues", "--max-queues, x-rblk.max_queues" },
};

static void check_target_opts(const struct rblk_config *cfg, unsigned *errors)
{
	struct rblk_target_opts o;
	const char *field = NULL, *names = NULL;
	char why[256];

	rblk_config_target_opts(cfg, &o);
	if (!rblk_target_opts_check(&o, &field, why, sizeof(why)))
		return;
	for (size_t i = 0; field && i < sizeof(opt_names) / sizeof(opt_names[0]); i++)
		if (!strcmp(opt_names[i].field, field))
			names = opt_names[i].names;
	/* kato_check_ms and threads have no flag or key: the library's name it is. */
	RBLK_ERR("target option %s%s%s: %s", names ? "(" : "", names ? names : "", names ? ")" : "",
		 why);
	(*errors)++;
}

static void check_ports(struct rblk_config *cfg, enum rblk_cfg_mode mode, unsigned *errors)
{
	for (size_t i = 0; i < cfg->nr_ports;) {
		const struct rblk_cfg_port *p = &cfg->ports[i];
		uint8_t bin[16];

		if (p->traddr && inet_pton(p->ipv6 ? AF_INET6 : AF_INET, p->traddr, bin) == 1) {
			i++;
			continue;
		}
		rblk_cfg_error(mode, errors, "port", "%s: \"%s\" is not an %s address to listen on",
			       p->where, p->traddr ? p->traddr : "", p->ipv6 ? "IPv6" : "IPv4");
		if (mode == RBLK_CFG_BEST_EFFORT)
			rblk_config_del_port(cfg, i);
		else
			i++;
	}
}

/*
 * Best effort keeps a namespace that does not open: the start skips it with
 * the same message (as nvmetcli restore would) and --save keeps it, so it
 * is retried by the next reload or restart.
 */
static void check_namespaces(const struct rblk_config *cfg, enum rblk_cfg_mode mode,
			     unsigned *errors)
{
	for (size_t s = 0; s < cfg->nr_subsys; s++) {
		const struct rblk_cfg_subsys *ss = &cfg->subsys[s];
		size_t enabled = 0;

		for (size_t n = 0; n < ss->nr_ns; n++) {
			const struct rblk_cfg_ns *ns = &ss->ns[n];
			char why[512];

			if (!ns->enable)
				continue;
			enabled++;
			if (!rblk_ns_path_check(ns->path, ns->read_only, ns->block_size, why,
						    sizeof(why)))
				continue;
			if (mode == RBLK_CFG_STRICT) {
				RBLK_ERR("%s (nsid %u of %s): %s", ns->where, ns->nsid, ss->nqn, why);
				(*errors)++;
			} else {
				RBLK_WARN("%s (nsid %u of %s): %s; it will not be exported", ns->where,
					  ns->nsid, ss->nqn, why);
			}
		}
		if (!enabled)
			RBLK_WARN("%s (%s) has no enabled namespace: hosts can connect but see no "
				  "storage", ss->where, ss->nqn);
	}
}

int rblk_config_preflight(struct rblk_config *cfg, enum rblk_cfg_mode mode, const char *source,
			  bool may_be_empty, unsigned *nerrors)
{
	unsigned errors = 0;

	if (!source)
		source = "the configuration";
	check_target_opts(cfg, &errors);
	check_ports(cfg, mode, &errors);
	check_namespaces(cfg, mode, &errors);
	/*
	 * A daemon with nothing to export, or nowhere to listen, serves nobody,
	 * unless it is to be configured through its management socket.
	 */
	if (!cfg->nr_subsys && !may_be_empty) {
		RBLK_ERR("%s: nothing to export: no subsystems; add one to \"subsystems\" (an NQN, "
			 "its namespaces and allowed hosts), or give --subsystem NQN --ns PATH",
			 source);
		errors++;
	}
	if (!cfg->nr_ports && !may_be_empty) {
		RBLK_ERR("%s: nothing to listen on: no ports; add one to \"ports\" (addr.traddr, "
			 "addr.trsvcid and the subsystems it exports), or give --listen ADDR[:PORT]",
			 source);
		errors++;
	}
	if (nerrors)
		*nerrors = errors;
	return errors ? -EINVAL : 0;
}

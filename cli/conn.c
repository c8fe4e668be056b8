/* SPDX-License-Identifier: MIT */
/*
 * Connecting for the verbs: rblk_connect / rblk_ns_open with the error
 * reports every verb wants, the namespace choice when -N is not given, and
 * the options every verb shares (-o, -v).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rblk/common.h>

#include "cli/cli.h"
#include "cli/args.h"

const char rblk_cli_common_help[] =
	"Output:\n"
	"  -o, --output-format=FMT       normal (default) or json (stdout: JSON only)\n"
	"  -v, --verbose                 more log messages on stderr (repeat for debug)\n"
	"  -h, --help                    this help\n";

int rblk_cli_common_opt(int opt, const char *arg, enum cli_fmt *fmt)
{
	enum rblk_log_level l;

	switch (opt) {
	case 'o':
		if (rblk_cli_parse_format(arg, fmt))
			return rblk_cli_usage_err("unknown output format '%s' (normal or json)", arg);
		return 1;
	case 'v':
		l = rblk_log_get_level();
		if (l < RBLK_LOG_DEBUG)
			rblk_log_set_level(l + 1);
		return 1;
	default:
		return 0;
	}
}

int rblk_cli_connect(const struct rblk_connect_opts *opts, struct rblk_ctrl **ctrl)
{
	uint16_t status = 0;
	int ret = rblk_connect(opts, ctrl, &status);

	if (!ret)
		return CLI_EXIT_OK;
	*ctrl = NULL;
	return rblk_cli_report(CLI_OP_CONNECT, ret, status, "cannot connect to %s at %s:%s",
			       opts->subnqn, opts->traddr, opts->trsvcid ? opts->trsvcid : "4420");
}

int rblk_cli_pick_nsid(struct rblk_ctrl *ctrl, const struct cli_conn *c, uint32_t *nsid)
{
	uint32_t ids[16];
	char list[160];
	size_t o = 0;
	int n;

	if (c->have_nsid) {
		*nsid = c->nsid;
		return CLI_EXIT_OK;
	}
	n = rblk_ctrl_list_ns(ctrl, ids, 16);
	if (n < 0)
		return rblk_cli_report(CLI_OP_NS, n, 0, "cannot list the active namespaces");
	if (n == 1) {
		*nsid = ids[0];
		return CLI_EXIT_OK;
	}
	if (n == 0) {
		rblk_cli_err("the subsystem has no active namespace");
		return CLI_EXIT_NOT_FOUND;
	}
	list[0] = '\0';
	for (int i = 0; i < n && o < sizeof(list) - 12; i++)
		o += snprintf(list + o, sizeof(list) - o, "%s%u", i ? ", " : "", ids[i]);
	return rblk_cli_usage_err("the subsystem has several namespaces (%s%s): choose one with -N NSID",
				  list, n == 16 ? ", ..." : "");
}

int rblk_cli_mpath_connect(const struct rblk_connect_opts *paths, unsigned n, const struct cli_conn *c,
			   struct rblk_mpath **mp, struct rblk_ns **ns, struct rblk_ctrl **ctrl)
{
	struct rblk_mpath_opts mo;
	uint16_t status = 0;
	int ret;

	rblk_mpath_opts_init(&mo);
	mo.paths = paths;
	mo.npaths = n;
	mo.nsid = c->have_nsid ? c->nsid : 0;
	mo.iopolicy = c->iopolicy;
	ret = rblk_mpath_connect(&mo, mp, &status);
	if (ret)
		return rblk_cli_report(CLI_OP_CONNECT, ret, status, "cannot connect to %s on any of its %u paths",
				       paths[0].subnqn, n);
	*ns = rblk_mpath_ns(*mp);
	*ctrl = NULL;
	for (unsigned i = 0; i < n && !*ctrl; i++)
		*ctrl = rblk_mpath_path_ctrl(*mp, i);
	return CLI_EXIT_OK;
}

int rblk_cli_open_ns(struct rblk_ctrl *ctrl, uint32_t nsid, struct rblk_ns **ns)
{
	int ret = rblk_ns_open(ctrl, nsid, ns);

	if (!ret)
		return CLI_EXIT_OK;
	*ns = NULL;
	if (ret == -ENOENT || ret == -ENODEV || ret == -ENXIO) {
		rblk_cli_err("namespace %u is not an active namespace of the subsystem", nsid);
		rblk_cli_err("hint: `rblk list` shows the active namespaces");
		return CLI_EXIT_NOT_FOUND;
	}
	return rblk_cli_report(CLI_OP_NS, ret, 0, "cannot open namespace %u", nsid);
}

int rblk_cli_connect_ns(const struct rblk_connect_opts *popts, unsigned npaths,
			const struct cli_conn *c, struct rblk_mpath **mp, struct rblk_ctrl **ctrl,
			struct rblk_ns **ns, uint32_t *nsid)
{
	int ret;

	*mp = NULL;
	*ctrl = NULL;
	*ns = NULL;
	if (npaths > 1) {
		ret = rblk_cli_mpath_connect(popts, npaths, c, mp, ns, ctrl);
		if (!ret)
			*nsid = rblk_ns_id(*ns);
		return ret;
	}
	ret = rblk_cli_connect(&popts[0], ctrl);
	if (ret)
		return ret;
	ret = rblk_cli_pick_nsid(*ctrl, c, nsid);
	if (!ret)
		ret = rblk_cli_open_ns(*ctrl, *nsid, ns);
	return ret;
}

void rblk_cli_disconnect_ns(struct rblk_mpath *mp, struct rblk_ctrl *ctrl, struct rblk_ns *ns)
{
	/* A multipath head's namespace lives as long as the head. */
	if (mp) {
		rblk_mpath_disconnect(mp);
		return;
	}
	if (ns)
		rblk_ns_close(ns);
	if (ctrl)
		rblk_disconnect(ctrl);
}

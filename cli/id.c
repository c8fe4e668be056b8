/* SPDX-License-Identifier: MIT */
/*
 * `rblk id-ctrl`, `rblk id-ns` and `rblk list`: connect, read the Identify
 * data the library keeps, print it (cli/output_id.c), disconnect.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/args.h"
#include "cli/output.h"

enum id_verb {
	ID_CTRL,
	ID_NS,
	ID_LIST,
};

static const char *const verb_name[] = { "id-ctrl", "id-ns", "list" };

static void usage(FILE *f, enum id_verb v)
{
	static const char *const what[] = {
		"Prints the Identify Controller data of the controller rblk gets when it\n"
		"connects to SUBNQN (nvme id-ctrl's fields and JSON keys).\n",
		"Prints the Identify Namespace data of namespace NSID (nvme id-ns's fields\n"
		"and JSON keys). Without -N, the subsystem's only namespace.\n",
		"Lists the active namespaces of SUBNQN with their size, usage, LBA format,\n"
		"and the controller's model, serial number and firmware (nvme list's JSON\n"
		"keys where they apply).\n",
	};

	fprintf(f, "Usage: rblk %s -t rdma -a ADDR [-s PORT] -n SUBNQN%s [-o json]\n\n%s\n",
		verb_name[v], v == ID_NS ? " [-N NSID]" : "", what[v]);
	fputs(rblk_cli_conn_help, f);
	if (v == ID_NS)
		fprintf(f, "Namespace:\n"
			   "  -N, --namespace-id=NSID       namespace (also --nsid, or ns= in -r)\n");
	fputs(rblk_cli_common_help, f);
	fputc('\n', f);
	rblk_cli_print_exit_codes(f);
	fprintf(f, "\nExamples:\n  rblk %s -t rdma -a 192.0.2.10 -s 4420 -n nqn.2024-01.io.example:disk0%s\n"
		   "  rblk %s -r 'trtype=RDMA traddr=192.0.2.10 trsvcid=4420 "
		   "subnqn=nqn.2024-01.io.example:disk0%s' -o json\n",
		verb_name[v], v == ID_NS ? " -N 1" : "", verb_name[v], v == ID_NS ? " ns=1" : "");
}

static int show_list(struct rblk_ctrl *ctrl, const struct rblk_connect_opts *opts, enum cli_fmt fmt)
{
	const char *svc = opts->trsvcid ? opts->trsvcid : "4420";
	struct cli_list_row *rows;
	uint32_t *ids;
	int n, ret = CLI_EXIT_OK;

	ids = calloc(1024, sizeof(*ids));
	rows = calloc(1024, sizeof(*rows));
	if (!ids || !rows) {
		free(ids);
		free(rows);
		rblk_cli_err("out of memory");
		return CLI_EXIT_FAILURE;
	}
	n = rblk_ctrl_list_ns(ctrl, ids, 1024);
	if (n < 0) {
		ret = rblk_cli_report(CLI_OP_NS, n, 0, "cannot list the active namespaces");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		struct rblk_ns *ns;

		ret = rblk_cli_open_ns(ctrl, ids[i], &ns);
		if (ret)
			goto out;
		rblk_cli_list_row_ctrl(&rows[i], rblk_ctrl_identify(ctrl));
		rblk_cli_list_row_ns(&rows[i], ids[i], rblk_ns_identify(ns));
		rblk_ns_close(ns);
	}
	if (fmt == CLI_FMT_JSON) {
		struct json_object *o = rblk_cli_list_json(opts->subnqn, opts->traddr, svc, rows, n);

		rblk_cli_json_print(rblk_cli_out, o);
		json_object_put(o);
	} else {
		rblk_cli_list_print(rblk_cli_out, opts->subnqn, opts->traddr, svc, rows, n);
	}
out:
	free(ids);
	free(rows);
	return ret;
}

static int run(int argc, char **argv, enum id_verb v)
{
	static const struct option longopts[] = {
		CLI_CONN_LONGOPTS,
		CLI_COMMON_LONGOPTS,
		{ "namespace-id", required_argument, NULL, 'N' },
		{ "nsid", required_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 },
	};
	struct rblk_connect_opts opts;
	enum cli_fmt fmt = CLI_FMT_NORMAL;
	struct rblk_ctrl *ctrl = NULL;
	struct rblk_ns *ns = NULL;
	struct cli_conn c;
	char why[96];
	uint32_t nsid;
	int opt, ret;

	rblk_cli_conn_init(&c);
	while ((opt = getopt_long(argc, argv, ":" CLI_CONN_SHORTOPTS CLI_COMMON_SHORTOPTS "N:",
				  longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(rblk_cli_out, v);
			ret = CLI_EXIT_OK;
			goto out;
		}
		if (opt == '?' || opt == ':') {
			ret = rblk_cli_bad_option(opt, argc, argv);
			goto out;
		}
		if (opt == 'N') {
			if (v != ID_NS) {
				ret = rblk_cli_usage_err("-N is for id-ns");
				goto out;
			}
			if (rblk_nsid_parse(optarg, &c.nsid, why, sizeof(why))) {
				ret = rblk_cli_usage_err("invalid namespace ID '%s': it %s", optarg, why);
				goto out;
			}
			c.have_nsid = true;
			continue;
		}
		ret = rblk_cli_conn_opt(&c, opt, optarg);
		if (!ret)
			ret = rblk_cli_common_opt(opt, optarg, &fmt);
		if (ret != 1)
			goto out;
	}
	if (optind < argc) {
		ret = rblk_cli_usage_err("unexpected argument '%s'", argv[optind]);
		goto out;
	}
	ret = rblk_cli_conn_finish(&c, NULL, &opts);
	if (ret)
		goto out;
	ret = rblk_cli_connect(&opts, &ctrl);
	if (ret)
		goto out;

	switch (v) {
	case ID_CTRL:
		if (fmt == CLI_FMT_JSON) {
			struct json_object *o = rblk_cli_id_ctrl_json(rblk_ctrl_identify(ctrl));

			rblk_cli_json_print(rblk_cli_out, o);
			json_object_put(o);
		} else {
			rblk_cli_id_ctrl_print(rblk_cli_out, rblk_ctrl_identify(ctrl));
		}
		break;
	case ID_NS:
		ret = rblk_cli_pick_nsid(ctrl, &c, &nsid);
		if (!ret)
			ret = rblk_cli_open_ns(ctrl, nsid, &ns);
		if (ret)
			break;
		if (fmt == CLI_FMT_JSON) {
			struct json_object *o = rblk_cli_id_ns_json(rblk_ns_identify(ns));

			rblk_cli_json_print(rblk_cli_out, o);
			json_object_put(o);
		} else {
			rblk_cli_id_ns_print(rblk_cli_out, nsid, rblk_ns_identify(ns));
		}
		rblk_ns_close(ns);
		break;
	case ID_LIST:
		ret = show_list(ctrl, &opts, fmt);
		break;
	}
	rblk_disconnect(ctrl);
out:
	rblk_cli_conn_fini(&c);
	return ret;
}

int rblk_cli_id_ctrl(int argc, char **argv)
{
	return run(argc, argv, ID_CTRL);
}

int rblk_cli_id_ns(int argc, char **argv)
{
	return run(argc, argv, ID_NS);
}

int rblk_cli_list(int argc, char **argv)
{
	return run(argc, argv, ID_LIST);
}

/* SPDX-License-Identifier: MIT */
/*
 * `rblk discover`: read a discovery controller's log page and print it the
 * way `nvme discover` does (normal blocks or {"genctr", "records"}).
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/args.h"
#include "cli/output.h"
#include "protocol/nvme_status.h"

static void usage(FILE *f)
{
	fprintf(f, "Usage: rblk discover -t rdma -a ADDR [-s PORT] [-q HOSTNQN] [-I HOSTID]\n"
		   "                     [-w HOST_TRADDR] [-n NQN] [-o json]\n\n"
		   "Connects to the discovery controller at ADDR:PORT (the well-known NQN\n"
		   "%s unless -n names another), reads the whole\n"
		   "discovery log and prints one block per entry, as nvme discover.\n\n",
		RBLK_DISCOVERY_NQN);
	fputs(rblk_cli_conn_help, f);
	fputs(rblk_cli_common_help, f);
	fputc('\n', f);
	rblk_cli_print_exit_codes(f);
	fprintf(f, "\nExamples:\n"
		   "  rblk discover -t rdma -a 192.0.2.10 -s 4420\n"
		   "  rblk discover -a 192.0.2.10 -o json | jq -r '.records[].subnqn'\n"
		   "  rblk discover -r 'trtype=RDMA adrfam=IPv4 traddr=192.0.2.10 trsvcid=4420'\n");
}

int rblk_cli_discover(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_CONN_LONGOPTS,
		CLI_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct rblk_disc_entry *entries = NULL;
	struct rblk_connect_opts opts;
	enum cli_fmt fmt = CLI_FMT_NORMAL;
	struct cli_conn c;
	uint16_t status = 0;
	uint64_t genctr = 0;
	unsigned n = 0;
	int opt, ret;

	rblk_cli_conn_init(&c);
	while ((opt = getopt_long(argc, argv, ":" CLI_CONN_SHORTOPTS CLI_COMMON_SHORTOPTS, longopts,
				  NULL)) != -1) {
		if (opt == 'h') {
			usage(rblk_cli_out);
			ret = CLI_EXIT_OK;
			goto out;
		}
		if (opt == '?' || opt == ':') {
			ret = rblk_cli_bad_option(opt, argc, argv);
			goto out;
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
	ret = rblk_cli_conn_finish(&c, RBLK_DISCOVERY_NQN, &opts);
	if (ret)
		goto out;
	ret = rblk_discover(&opts, &entries, &n, &genctr, &status);
	if (ret) {
		ret = rblk_cli_report(CLI_OP_CONNECT, ret, status, "discovery at %s:%s failed",
				      opts.traddr, opts.trsvcid ? opts.trsvcid : "4420");
		/* An NVM subsystem has no discovery log: say so rather than leave the user
		 * with a bare Invalid Log Page. */
		if (c.subnqn && strcmp(c.subnqn, RBLK_DISCOVERY_NQN) &&
		    ((status & 0x7ff) == NVME_SC_INVALID_LOG_PAGE ||
		     (status & 0x7ff) == NVME_SC_INVALID_FIELD))
			fprintf(stderr, "rblk discover: %s is not a discovery subsystem; leave out -n "
					"to ask the target's discovery controller\n", c.subnqn);
		goto out;
	}
	if (fmt == CLI_FMT_JSON) {
		struct json_object *o = rblk_cli_disc_json(entries, n, genctr);

		rblk_cli_json_print(rblk_cli_out, o);
		json_object_put(o);
	} else {
		rblk_cli_disc_print(rblk_cli_out, entries, n, genctr);
	}
	free(entries);
	ret = CLI_EXIT_OK;
out:
	rblk_cli_conn_fini(&c);
	return ret;
}

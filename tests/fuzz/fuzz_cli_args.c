/* SPDX-License-Identifier: MIT */
/*
 * Drives the rblk tool's command-line parsing (cli/args.c) the way every
 * connecting verb runs it: an argv built from the input goes through
 * getopt_long with the connection and common options, each option through
 * rblk_cli_conn_opt / rblk_cli_common_opt (and -N through
 * rblk_nsid_parse), then rblk_cli_conn_finish fills the connect
 * options. No verb body runs, so nothing connects. Every argument is also
 * given to the number parsers. Checks: accepted numbers are within their
 * ranges; finish succeeds exactly when an address and a subsystem NQN were
 * given, and the options it fills are the strings parsed.
 *
 * Input: the argv strings, separated by NUL bytes (at most 24).
 */
#include <errno.h>
#include <math.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "fuzz.h"

#define MAX_ARGS 24

static const struct option longopts[] = {
	CLI_CONN_LONGOPTS,
	CLI_COMMON_LONGOPTS,
	{ "namespace-id", required_argument, NULL, 'N' },
	{ NULL, 0, NULL, 0 },
};

static void numbers(const char *s)
{
	uint64_t size;
	uint32_t nsid;
	double secs;
	long v;
	enum cli_fmt fmt;
	uint16_t port;

	if (rblk_nsid_parse(s, &nsid, NULL, 0) == 0)
		FUZZ_CHECK(nsid >= 1 && nsid <= 0xFFFFFFFE);
	/* the port rule: decimal digits only, no leading zero, 1..65535 */
	if (rblk_port_parse(s, &port, NULL, 0) == 0)
		FUZZ_CHECK(port >= 1 && s[0] != '0' && !s[strspn(s, "0123456789")] &&
			   strtoul(s, NULL, 10) == port);
	if (rblk_cli_parse_long(s, -5, 70000, &v) == 0)
		FUZZ_CHECK(v >= -5 && v <= 70000);
	if (rblk_cli_parse_seconds(s, &secs) == 0)
		FUZZ_CHECK(secs >= 0 && isfinite(secs));
	if (rblk_size_parse(s, &size, NULL, 0) == 0 && !s[strspn(s, "0123456789")])
		FUZZ_CHECK(size == strtoull(s, NULL, 10)); /* plain decimal, never octal */
	if (rblk_cli_parse_format(s, &fmt) == 0)
		FUZZ_CHECK(fmt == CLI_FMT_NORMAL || fmt == CLI_FMT_JSON);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	char *copy, *argv[MAX_ARGS + 2];
	struct rblk_connect_opts opts;
	enum cli_fmt fmt = CLI_FMT_NORMAL;
	struct cli_conn c;
	int argc = 1, opt, ret = CLI_EXIT_OK;
	uint32_t nsid;

	if (!null)
		null = fopen("/dev/null", "w");
	rblk_cli_errf = rblk_cli_out = null;
	copy = malloc(size + 1);
	FUZZ_CHECK(copy != NULL);
	memcpy(copy, data, size);
	copy[size] = '\0';
	argv[0] = "rblk";
	for (size_t i = 0; i < size && argc <= MAX_ARGS; i++) {
		argv[argc++] = copy + i;
		i += strlen(copy + i);
	}
	argv[argc] = NULL;
	for (int i = 1; i < argc; i++)
		numbers(argv[i]);

	rblk_cli_conn_init(&c);
	rblk_cli_getopt_reset();
	while (ret == CLI_EXIT_OK &&
	       (opt = getopt_long(argc, argv, ":" CLI_CONN_SHORTOPTS CLI_COMMON_SHORTOPTS "N:",
				  longopts, NULL)) != -1) {
		int r = rblk_cli_conn_opt(&c, opt, optarg);

		if (r == 0)
			r = rblk_cli_common_opt(opt, optarg, &fmt);
		if (r == 1)
			continue;
		if (r)
			ret = r;
		else if (opt == 'N')
			ret = rblk_nsid_parse(optarg, &nsid, NULL, 0) ? CLI_EXIT_USAGE : CLI_EXIT_OK;
		else if (opt == 'h')
			continue;
		else
			ret = rblk_cli_bad_option(opt, argc, argv);
	}
	if (ret == CLI_EXIT_OK) {
		/* usable: an address and an NQN; one path only (several are for attach, read and write); no lone controller secret */
		bool usable = c.traddr && c.subnqn && !(c.dhchap_ctrl_secret && !c.dhchap_secret);
		struct rblk_connect_opts paths[RBLK_MPATH_MAX_PATHS];
		unsigned n = 0;

		FUZZ_CHECK(c.npaths <= RBLK_MPATH_MAX_PATHS);
		ret = rblk_cli_conn_finish_paths(&c, paths, &n);
		FUZZ_CHECK((ret == CLI_EXIT_OK) == usable);
		if (ret == CLI_EXIT_OK) {
			FUZZ_CHECK(n >= 1 && n == (c.npaths > 1 ? c.npaths : 1));
			for (unsigned i = 0; i < n; i++)
				FUZZ_CHECK(paths[i].traddr && paths[i].subnqn == c.subnqn);
		}
		ret = rblk_cli_conn_finish(&c, NULL, &opts);
		FUZZ_CHECK((ret == CLI_EXIT_OK) == (usable && c.npaths <= 1));
		if (ret == CLI_EXIT_OK) {
			FUZZ_CHECK(opts.traddr == c.traddr && opts.subnqn == c.subnqn);
			FUZZ_CHECK(!c.have_nsid || (c.nsid >= 1 && c.nsid <= 0xFFFFFFFE));
		}
	} else {
		FUZZ_CHECK(ret == CLI_EXIT_USAGE);
	}
	rblk_cli_conn_fini(&c);
	free(copy);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	static const char *const seeds[][12] = {
		{ "-t", "rdma", "-a", "10.99.0.1", "-s", "4420", "-n", "nqn.2024-01.io.rblk:disk0",
		  "-Q", "128", "-i", "4" },
		{ "-r", "trtype=RDMA adrfam=IPv4 traddr=10.99.0.1 trsvcid=4420 subnqn=nqn.2024-01.io.rblk:disk0 ns=1",
		  "-o", "json", "-v", "-N", "0x2" },
		{ "--traddr=fe80::1%eth0", "--nqn", "nqn.2024-01.io.rblk:d", "--keep-alive-tmo", "5",
		  "--ctrl-loss-tmo", "-1", "--hostid", "5b0c1d7e-0000-4000-8000-000000000001" },
		{ "-a", "::1", "-k", "x", "-Q" },
		{ "1k", "4MiB", "0x10", "0.5", "18446744073709551616", "-3" },
	};
	size_t off = 0;

	if (idx >= sizeof(seeds) / sizeof(seeds[0]))
		return 0;
	for (unsigned i = 0; i < 12 && seeds[idx][i]; i++) {
		size_t n = strlen(seeds[idx][i]) + 1;

		if (off + n > max)
			return 0;
		memcpy(buf + off, seeds[idx][i], n);
		off += n;
	}
	return off - 1; /* the last NUL is implied */
}

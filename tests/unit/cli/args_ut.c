/* SPDX-License-Identifier: MIT */
/* Tests for cli/args.c: numbers, formats, connection flags, transport IDs. */
#include <errno.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/args.h"
#include "ut.h"

static void test_parse_long_and_seconds(void)
{
	long l;
	double d;

	CU_ASSERT_EQUAL(rblk_cli_parse_long("16", 16, 1024, &l), 0);
	CU_ASSERT_EQUAL(l, 16);
	CU_ASSERT_EQUAL(rblk_cli_parse_long("15", 16, 1024, &l), -ERANGE);
	CU_ASSERT_EQUAL(rblk_cli_parse_long("1025", 16, 1024, &l), -ERANGE);
	CU_ASSERT_EQUAL(rblk_cli_parse_long("12a", 0, 100, &l), -EINVAL);
	CU_ASSERT_EQUAL(rblk_cli_parse_long("-1", -1, 100, &l), 0);
	CU_ASSERT_EQUAL(l, -1);
	CU_ASSERT_EQUAL(rblk_cli_parse_seconds("2.5", &d), 0);
	CU_ASSERT_DOUBLE_EQUAL(d, 2.5, 1e-9);
	CU_ASSERT_EQUAL(rblk_cli_parse_seconds("10s", &d), 0);
	CU_ASSERT_DOUBLE_EQUAL(d, 10.0, 1e-9);
	CU_ASSERT_EQUAL(rblk_cli_parse_seconds("-1", &d), -ERANGE);
	CU_ASSERT_EQUAL(rblk_cli_parse_seconds("1m", &d), -EINVAL);
}

static void test_format_and_uuid(void)
{
	enum cli_fmt f = CLI_FMT_NORMAL;

	CU_ASSERT_EQUAL(rblk_cli_parse_format("json", &f), 0);
	CU_ASSERT_EQUAL(f, CLI_FMT_JSON);
	CU_ASSERT_EQUAL(rblk_cli_parse_format("normal", &f), 0);
	CU_ASSERT_EQUAL(f, CLI_FMT_NORMAL);
	CU_ASSERT_EQUAL(rblk_cli_parse_format("JSON", &f), -EINVAL);
	CU_ASSERT_EQUAL(rblk_cli_parse_format("binary", &f), -EINVAL);
}

static void test_trid_key_value(void)
{
	struct cli_conn c;
	char why[160];

	rblk_cli_conn_init(&c);
	CU_ASSERT_EQUAL(rblk_cli_conn_trid(&c,
					    "trtype=RDMA adrfam=IPv4 traddr=10.99.0.1 trsvcid=4421 "
					    "subnqn=nqn.2016-06.io.spdk:cnode1 ns=2",
					    why, sizeof(why)),
			0);
	CU_ASSERT_STRING_EQUAL(c.transport, "rdma");
	CU_ASSERT_STRING_EQUAL(c.traddr, "10.99.0.1");
	CU_ASSERT_STRING_EQUAL(c.trsvcid, "4421");
	/* the NQN keeps its own colon: only the first separator splits */
	CU_ASSERT_STRING_EQUAL(c.subnqn, "nqn.2016-06.io.spdk:cnode1");
	CU_ASSERT_TRUE(c.have_nsid);
	CU_ASSERT_EQUAL(c.nsid, 2);
	rblk_cli_conn_fini(&c);
}

static void test_trid_key_colon_value_and_ipv6(void)
{
	struct cli_conn c;
	char why[160];

	rblk_cli_conn_init(&c);
	CU_ASSERT_EQUAL(rblk_cli_conn_trid(&c,
					    "trtype:RDMA adrfam:IPv6 traddr:fe80::1%veth0 trsvcid:4420 "
					    "subnqn:nqn.2016-06.io.spdk:cnode1 hostaddr=fe80::2",
					    why, sizeof(why)),
			0);
	CU_ASSERT_STRING_EQUAL(c.traddr, "fe80::1%veth0");
	CU_ASSERT_STRING_EQUAL(c.subnqn, "nqn.2016-06.io.spdk:cnode1");
	CU_ASSERT_STRING_EQUAL(c.host_traddr, "fe80::2");
	CU_ASSERT_FALSE(c.have_nsid);
	rblk_cli_conn_fini(&c);
}

static void test_trid_errors_leave_conn_unchanged(void)
{
	static const struct {
		const char *trid, *why;
	} bad[] = {
		{ "trtype=TCP traddr=1.2.3.4", "only RDMA" },
		{ "traddr=1.2.3.4 color=blue", "unknown key 'color'" },
		{ "traddr", "not KEY=VALUE" },
		{ "traddr=", "empty value" },
		{ "trsvcid=70000", "trsvcid '70000': must be a decimal number 1-65535" },
		{ "trsvcid=0x1144", "trsvcid '0x1144': must be a decimal number 1-65535" },
		{ "ns=0", "namespace ID" },
		{ "traddr=1.2.3.4 traddr=1.2.3.5", "traddr is given twice" },
		{ "traddr=1.2.3.4,1.2.3.5", "one traddr and trsvcid per -r" },
		{ "trsvcid=4420,4421", "one traddr and trsvcid per -r" },
		{ "adrfam=IPv6 traddr=10.0.0.1", "does not match" },
		{ "adrfam=IB", "IPv4 or IPv6" },
	};
	struct cli_conn c;
	char why[160];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rblk_cli_conn_init(&c);
		c.traddr = "keep";
		why[0] = '\0';
		CU_ASSERT_EQUAL(rblk_cli_conn_trid(&c, bad[i].trid, why, sizeof(why)), -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, bad[i].why));
		CU_ASSERT_STRING_EQUAL(c.traddr, "keep");
		CU_ASSERT_EQUAL(c.n_trid, 0);
		rblk_cli_conn_fini(&c);
	}
}

static char errbuf[4096];

static void capture_err(void)
{
	static FILE *f;

	if (f)
		fclose(f);
	memset(errbuf, 0, sizeof(errbuf));
	f = fmemopen(errbuf, sizeof(errbuf) - 1, "w");
	setvbuf(f, NULL, _IONBF, 0);
	rblk_cli_errf = f;
	rblk_cli_verb = "test";
}

static void test_conn_opt_values(void)
{
	struct cli_conn c;

	capture_err();
	rblk_cli_conn_init(&c);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 't', "rdma"), 1);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 't', "tcp"), CLI_EXIT_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "only the rdma transport"));
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "Try 'rblk test --help'"));
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 's', "4420"), 1);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 's', "0"), CLI_EXIT_USAGE);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 's', "http"), CLI_EXIT_USAGE);
	/* base 0 took this as 4420, and the initiator then refused it */
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 's', "0x1144"), CLI_EXIT_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "invalid value '0x1144' for -s: the port must be a "
					      "decimal number 1-65535"));
	CU_ASSERT_STRING_EQUAL(c.trsvcid, "4420");
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'n', "nqn.2024-01.io.example:a b"), CLI_EXIT_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "for -n: the NQN contains a space"));
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'q', ""), CLI_EXIT_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "for -q: the NQN is empty"));
	CU_ASSERT_PTR_NULL(c.subnqn);
	CU_ASSERT_PTR_NULL(c.hostnqn);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'Q', "16"), 1);
	CU_ASSERT_EQUAL(c.queue_size, 16);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'Q', "8"), CLI_EXIT_USAGE);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'Q', "2048"), CLI_EXIT_USAGE);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'i', "0"), CLI_EXIT_USAGE);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'l', "-1"), 1);
	CU_ASSERT_EQUAL(c.ctrl_loss_tmo, -1);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'l', "-2"), CLI_EXIT_USAGE);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'c', "0"), CLI_EXIT_USAGE);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'k', "0"), 1);
	CU_ASSERT_EQUAL(c.kato, 0);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'I', "not-a-uuid"), CLI_EXIT_USAGE);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'I', "5b0c1d7e-0000-4000-8000-000000000001"), 1);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'x', "whatever"), 0);
	/* long-only ones */
	CU_ASSERT_EQUAL(c.io_timeout, -2);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, CLI_OPT_IO_TIMEOUT, "0"), CLI_EXIT_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "for --io-timeout"));
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, CLI_OPT_IO_TIMEOUT, "4294968"), CLI_EXIT_USAGE);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, CLI_OPT_IO_TIMEOUT, "-1"), 1);
	CU_ASSERT_EQUAL(c.io_timeout, -1);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, CLI_OPT_IO_TIMEOUT, "12"), 1);
	CU_ASSERT_EQUAL(c.io_timeout, 12);
	CU_ASSERT_EQUAL(c.iopolicy, RBLK_MPATH_IOPOLICY_FIRST);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, CLI_OPT_IOPOLICY, "numa"), CLI_EXIT_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "for --iopolicy: first, round-robin or queue-depth"));
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, CLI_OPT_IOPOLICY, "queue-depth"), 1);
	CU_ASSERT_EQUAL(c.iopolicy, RBLK_MPATH_IOPOLICY_QUEUE_DEPTH);
	rblk_cli_conn_fini(&c);
}

static void test_conn_order_later_wins(void)
{
	struct cli_conn c;

	capture_err();
	rblk_cli_conn_init(&c);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'r', "traddr=10.0.0.1 subnqn=nqn.a:b"), 1);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'a', "10.0.0.2"), 1);
	CU_ASSERT_STRING_EQUAL(c.traddr, "10.0.0.2");
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'r', "traddr=10.0.0.3"), 1);
	CU_ASSERT_STRING_EQUAL(c.traddr, "10.0.0.3");
	CU_ASSERT_STRING_EQUAL(c.subnqn, "nqn.a:b");	/* first -r's string still alive */
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'r', "hostid=5b0c1d7e-0000-4000-8000-000000000001"), 1);
	CU_ASSERT_STRING_EQUAL(c.hostid, "5b0c1d7e-0000-4000-8000-000000000001");
	CU_ASSERT_EQUAL(c.n_trid, 3);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'r', "bogus"), CLI_EXIT_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "invalid transport ID 'bogus'"));
	rblk_cli_conn_fini(&c);
}

static void test_conn_finish(void)
{
	struct rblk_connect_opts o;
	struct cli_conn c;

	capture_err();
	rblk_cli_conn_init(&c);
	CU_ASSERT_EQUAL(rblk_cli_conn_finish(&c, NULL, &o), CLI_EXIT_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "no target address"));
	c.traddr = "10.0.0.1";
	CU_ASSERT_EQUAL(rblk_cli_conn_finish(&c, NULL, &o), CLI_EXIT_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "no subsystem NQN"));
	CU_ASSERT_EQUAL(rblk_cli_conn_finish(&c, RBLK_DISCOVERY_NQN, &o), CLI_EXIT_OK);
	CU_ASSERT_STRING_EQUAL(o.subnqn, RBLK_DISCOVERY_NQN);
	CU_ASSERT_STRING_EQUAL(o.trsvcid, "4420");	/* the library's default stays */
	CU_ASSERT_EQUAL(o.queue_size, 128);
	CU_ASSERT_EQUAL(o.ctrl_loss_tmo, 600);
	CU_ASSERT_EQUAL(o.io_timeout_ms, 30000);
	c.subnqn = "nqn.a:b";
	c.io_timeout = -1;
	c.trsvcid = "4421";
	c.queue_size = 32;
	c.nr_io_queues = 2;
	c.kato = 0;
	c.ctrl_loss_tmo = -1;
	c.reconnect_delay = 3;
	CU_ASSERT_EQUAL(rblk_cli_conn_finish(&c, RBLK_DISCOVERY_NQN, &o), CLI_EXIT_OK);
	CU_ASSERT_STRING_EQUAL(o.subnqn, "nqn.a:b");
	CU_ASSERT_STRING_EQUAL(o.trsvcid, "4421");
	CU_ASSERT_EQUAL(o.queue_size, 32);
	CU_ASSERT_EQUAL(o.nr_io_queues, 2);
	CU_ASSERT_EQUAL(o.keep_alive_tmo, 0);
	CU_ASSERT_EQUAL(o.ctrl_loss_tmo, -1);
	CU_ASSERT_EQUAL(o.reconnect_delay, 3);
	CU_ASSERT_EQUAL(o.io_timeout_ms, UINT32_MAX);
	c.io_timeout = 7;
	CU_ASSERT_EQUAL(rblk_cli_conn_finish(&c, RBLK_DISCOVERY_NQN, &o), CLI_EXIT_OK);
	CU_ASSERT_EQUAL(o.io_timeout_ms, 7000);
	rblk_cli_conn_fini(&c);
}

/* -a ADDR [-s PORT] pairs: each -s goes with the -a before it; one before any -a is everyone's. */
static void test_conn_paths(void)
{
	struct rblk_connect_opts o[RBLK_MPATH_MAX_PATHS], one;
	struct cli_conn c;
	unsigned n = 0;

	capture_err();
	rblk_cli_conn_init(&c);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'n', "nqn.a:b"), 1);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 's', "4430"), 1);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'a', "10.0.0.1"), 1);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'a', "10.0.0.2"), 1);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 's', "4421"), 1);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 's', "4422"), CLI_EXIT_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "one -s per -a"));
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'a', "10.0.0.3"), 1);
	CU_ASSERT_EQUAL(rblk_cli_conn_finish_paths(&c, o, &n), CLI_EXIT_OK);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_STRING_EQUAL(o[0].traddr, "10.0.0.1");
	CU_ASSERT_STRING_EQUAL(o[0].trsvcid, "4430");
	CU_ASSERT_STRING_EQUAL(o[1].traddr, "10.0.0.2");
	CU_ASSERT_STRING_EQUAL(o[1].trsvcid, "4421");
	CU_ASSERT_STRING_EQUAL(o[2].traddr, "10.0.0.3");
	CU_ASSERT_STRING_EQUAL(o[2].trsvcid, "4430");
	CU_ASSERT_STRING_EQUAL(o[2].subnqn, "nqn.a:b");
	/* Verbs that take one path refuse several. */
	CU_ASSERT_EQUAL(rblk_cli_conn_finish(&c, NULL, &one), CLI_EXIT_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "rblk attach"));
	rblk_cli_conn_fini(&c);

	/* One -a with its -s after it: today's single path. */
	rblk_cli_conn_init(&c);
	c.subnqn = "nqn.a:b";
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'a', "10.0.0.1"), 1);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 's', "4425"), 1);
	CU_ASSERT_EQUAL(rblk_cli_conn_finish(&c, NULL, &one), CLI_EXIT_OK);
	CU_ASSERT_STRING_EQUAL(one.trsvcid, "4425");
	CU_ASSERT_EQUAL(rblk_cli_conn_finish_paths(&c, o, &n), CLI_EXIT_OK);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_STRING_EQUAL(o[0].trsvcid, "4425");
	/* -r's address replaces the -a before it. */
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'a', "10.0.0.2"), 1);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'r', "traddr=10.0.0.9"), 1);
	CU_ASSERT_EQUAL(rblk_cli_conn_finish_paths(&c, o, &n), CLI_EXIT_OK);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_STRING_EQUAL(o[0].traddr, "10.0.0.9");
	for (int i = 0; i < RBLK_MPATH_MAX_PATHS; i++)
		rblk_cli_conn_opt(&c, 'a', "10.0.0.5");
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'a', "10.0.0.6"), CLI_EXIT_USAGE);
	rblk_cli_conn_fini(&c);
}

static void test_conn_dhchap(void)
{
	const char *secret = "DHHC-1:00:AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAl7OaH:";
	struct rblk_connect_opts o;
	struct cli_conn c;

	capture_err();
	rblk_cli_conn_init(&c);
	c.traddr = "10.0.0.1";
	c.subnqn = "nqn.a:b";
	CU_ASSERT_EQUAL(rblk_cli_conn_finish(&c, NULL, &o), CLI_EXIT_OK);
	CU_ASSERT_PTR_NULL(o.dhchap_secret);
	CU_ASSERT_PTR_NULL(o.dhchap_ctrl_secret);
	/* Checked as DHHC-1 when given, never repeated in the message. */
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'S', "DHHC-1:01:AAAA:"), CLI_EXIT_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "not a DHHC-1 secret"));
	CU_ASSERT_PTR_NULL(strstr(errbuf, "AAAA"));
	CU_ASSERT_PTR_NULL(c.dhchap_secret);
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'C', secret), 1);
	CU_ASSERT_EQUAL(rblk_cli_conn_finish(&c, NULL, &o), CLI_EXIT_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "--dhchap-ctrl-secret needs --dhchap-secret"));
	CU_ASSERT_EQUAL(rblk_cli_conn_opt(&c, 'S', secret), 1);
	CU_ASSERT_EQUAL(rblk_cli_conn_finish(&c, NULL, &o), CLI_EXIT_OK);
	CU_ASSERT_PTR_EQUAL(o.dhchap_secret, secret);
	CU_ASSERT_PTR_EQUAL(o.dhchap_ctrl_secret, secret);
	rblk_cli_conn_fini(&c);
}

static void test_exit_codes(void)
{
	/* An authentication refusal is the target refusing, with a hint. */
	CU_ASSERT_EQUAL(rblk_cli_exit_code(CLI_OP_CONNECT, -EACCES, 0), CLI_EXIT_REFUSED);
	CU_ASSERT_EQUAL(rblk_cli_exit_code(CLI_OP_CONNECT, 0, 0), CLI_EXIT_OK);
	CU_ASSERT_EQUAL(rblk_cli_exit_code(CLI_OP_CONNECT, -EHOSTUNREACH, 0), CLI_EXIT_UNREACHABLE);
	CU_ASSERT_EQUAL(rblk_cli_exit_code(CLI_OP_CONNECT, -ETIMEDOUT, 0), CLI_EXIT_UNREACHABLE);
	CU_ASSERT_EQUAL(rblk_cli_exit_code(CLI_OP_CONNECT, -ECONNREFUSED, 0), CLI_EXIT_UNREACHABLE);
	CU_ASSERT_EQUAL(rblk_cli_exit_code(CLI_OP_CONNECT, -ENODEV, 0), CLI_EXIT_UNREACHABLE);
	/* unknown NQN (Connect Invalid Parameters) vs refused host (Invalid Host) */
	CU_ASSERT_EQUAL(rblk_cli_exit_code(CLI_OP_CONNECT, -EREMOTEIO, 0x4182), CLI_EXIT_NOT_FOUND);
	CU_ASSERT_EQUAL(rblk_cli_exit_code(CLI_OP_CONNECT, -EREMOTEIO, 0x4184), CLI_EXIT_REFUSED);
	CU_ASSERT_EQUAL(rblk_cli_exit_code(CLI_OP_IO, -EREMOTEIO, 0x4080), CLI_EXIT_REFUSED);
	CU_ASSERT_EQUAL(rblk_cli_exit_code(CLI_OP_IO, -EREMOTEIO, 0x400b), CLI_EXIT_NOT_FOUND);
	CU_ASSERT_EQUAL(rblk_cli_exit_code(CLI_OP_NS, -ENOENT, 0), CLI_EXIT_NOT_FOUND);
	CU_ASSERT_EQUAL(rblk_cli_exit_code(CLI_OP_IO, -EIO, 0), CLI_EXIT_FAILURE);
	CU_ASSERT_EQUAL(rblk_cli_exit_code(CLI_OP_IO, -EHOSTUNREACH, 0), CLI_EXIT_FAILURE);
	CU_ASSERT_EQUAL(rblk_cli_exit_code(CLI_OP_CONNECT, -EINVAL, 0), CLI_EXIT_USAGE);
}

static void test_report_names_status(void)
{
	capture_err();
	CU_ASSERT_EQUAL(rblk_cli_report(CLI_OP_CONNECT, -EREMOTEIO, 0x4184, "cannot connect to %s", "x"),
			CLI_EXIT_REFUSED);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "rblk test: cannot connect to x: NVMe status: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "(0x4184)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "allowed hosts"));
	capture_err();
	CU_ASSERT_EQUAL(rblk_cli_report(CLI_OP_CONNECT, -EHOSTUNREACH, 0, "cannot connect"),
			CLI_EXIT_UNREACHABLE);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "No route to host"));
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "rblk doctor"));
}

static void test_exit_code_table(void)
{
	char buf[2048];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	rblk_cli_print_exit_codes(f);
	fclose(f);
	for (int i = 0; i <= 6; i++) {
		char line[8];

		snprintf(line, sizeof(line), "  %d  ", i);
		CU_ASSERT_PTR_NOT_NULL(strstr(buf, line));
		CU_ASSERT_STRING_NOT_EQUAL(rblk_cli_exit_str(i), "?");
	}
	CU_ASSERT_STRING_EQUAL(rblk_cli_exit_str(7), "?");
}

static const struct ut_case cases[] = {
	UT_CASE(test_parse_long_and_seconds),
	UT_CASE(test_format_and_uuid),
	UT_CASE(test_trid_key_value),
	UT_CASE(test_trid_key_colon_value_and_ipv6),
	UT_CASE(test_trid_errors_leave_conn_unchanged),
	UT_CASE(test_conn_opt_values),
	UT_CASE(test_conn_order_later_wins),
	UT_CASE(test_conn_finish),
	UT_CASE(test_conn_paths),
	UT_CASE(test_conn_dhchap),
	UT_CASE(test_exit_codes),
	UT_CASE(test_report_names_status),
	UT_CASE(test_exit_code_table),
	UT_END,
};

UT_MAIN("cli/args", cases)

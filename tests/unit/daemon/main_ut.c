/* SPDX-License-Identifier: MIT */
/*
 * Tests for rblk-target's command line (daemon/args.c, split out of
 * main.c): the quick-export flags and their options, --listen forms, target
 * option flags, and every usage error with the flag and value in its message.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_target.h"
#include "daemon/args.h"
#include "ut.h"

#define SUB0 "nqn.2024-01.io.rblk:disk0"
#define SUB1 "nqn.2024-01.io.rblk:disk1"
#define HOST1 "nqn.2014-08.org.nvmexpress:uuid:5b0c1d7e-0000-4000-8000-000000000001"

static char errbuf[4096];
static struct rblk_tgt_args args;

/* Parses the NULL-terminated arguments after "rblk-target"; messages land in errbuf. */
static int parse(const char *first, ...)
{
	char *argv[64];
	int argc = 0, ret;
	va_list ap;
	FILE *err;

	rblk_tgt_args_free(&args);
	argv[argc++] = "rblk-target";
	va_start(ap, first);
	for (const char *s = first; s && argc < 63; s = va_arg(ap, const char *))
		argv[argc++] = (char *)s;
	va_end(ap);
	argv[argc] = NULL;
	errbuf[0] = '\0';
	err = fmemopen(errbuf, sizeof(errbuf), "w");
	ret = rblk_tgt_args_parse(argc, argv, &args, err);
	fclose(err);
	return ret;
}

static bool err_has(const char *s)
{
	if (strstr(errbuf, s))
		return true;
	fprintf(stderr, "\n  expected: %s\n  got: %s", s, errbuf);
	return false;
}

static void test_quick_export(void)
{
	struct rblk_config *f;

	CU_ASSERT_EQUAL_FATAL(parse("--listen", "10.99.0.1", "--subsystem", SUB0, "--ns",
				    "/dev/vdb", "--ns", "/srv/b.img,ro,nsid=5", "--allow-host",
				    HOST1, "--subsystem", SUB1, "--ns", "mem:1G", "--allow-any-host",
				    NULL), 0);
	CU_ASSERT_STRING_EQUAL(errbuf, "");
	f = args.flags;
	CU_ASSERT_EQUAL_FATAL(f->nr_ports, 1);
	CU_ASSERT_STRING_EQUAL(f->ports[0].traddr, "10.99.0.1");
	CU_ASSERT_EQUAL(f->ports[0].trsvcid, 4420);
	CU_ASSERT_EQUAL(f->ports[0].portid, 1);
	CU_ASSERT_EQUAL(f->ports[0].nr_subsys, 2); /* linked to every flag subsystem */
	CU_ASSERT_EQUAL_FATAL(f->nr_subsys, 2);
	CU_ASSERT_STRING_EQUAL(f->subsys[0].nqn, SUB0);
	CU_ASSERT_EQUAL_FATAL(f->subsys[0].nr_ns, 2);
	CU_ASSERT_STRING_EQUAL(f->subsys[0].ns[0].path, "/dev/vdb");
	CU_ASSERT_EQUAL(f->subsys[0].ns[0].nsid, 1);
	CU_ASSERT_FALSE(f->subsys[0].ns[0].read_only);
	CU_ASSERT_STRING_EQUAL(f->subsys[0].ns[1].path, "/srv/b.img");
	CU_ASSERT_EQUAL(f->subsys[0].ns[1].nsid, 5);
	CU_ASSERT_TRUE(f->subsys[0].ns[1].read_only);
	CU_ASSERT_STRING_EQUAL(f->subsys[0].ns[1].where, "--ns /srv/b.img,ro,nsid=5");
	CU_ASSERT_EQUAL_FATAL(f->subsys[0].nr_hosts, 1);
	CU_ASSERT_STRING_EQUAL(f->subsys[0].hosts[0], HOST1);
	CU_ASSERT_FALSE(f->subsys[0].allow_any_host);
	CU_ASSERT_EQUAL(f->nr_hosts, 1); /* --allow-host also declares the host */
	CU_ASSERT_TRUE(f->subsys[1].allow_any_host);
	CU_ASSERT_EQUAL(f->subsys[1].ns[0].nsid, 1);
	/* The result passes the same validation as a config file. */
	CU_ASSERT_EQUAL(rblk_config_validate(f, RBLK_CFG_STRICT, NULL), 0);
	CU_ASSERT_EQUAL(args.mode, RBLK_CFG_STRICT);
}

/*
 * The quick flags reach the target API like a file does: TREQ 0x04 (nvmet's
 * default), a linked_only listener, and the subsystem linked to it.
 */
static void test_quick_export_applies(void)
{
	struct rblk_config_diff d;

	CU_ASSERT_EQUAL_FATAL(parse("--listen", "10.99.0.1:4421", "--subsystem", SUB0, "--ns",
				    "/dev/vdb", "--allow-any-host", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_validate(args.flags, RBLK_CFG_STRICT, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_diff(NULL, args.flags, &d), 0);
	fake_reset();
	CU_ASSERT_EQUAL(rblk_config_apply(fake_target(), &d, true), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(fake_log, "listen 10.99.0.1 4421 portid=1 treq=4 rdma=1 "
						"linked_only=1\nlink 1 " SUB0 "\n"));
	rblk_config_diff_free(&d);
}

static char logbuf[4096];
static int nr_warn;

static void capture(enum rblk_log_level level, const char *msg, void *arg)
{
	size_t len = strlen(logbuf);

	(void)arg;
	nr_warn += level == RBLK_LOG_WARN;
	snprintf(logbuf + len, sizeof(logbuf) - len, "%s: %s\n", rblk_log_level_str(level), msg);
}

/* nvmetcli's names work as flags too (blktests' "blktests-subsystem-1"), with one warning each. */
static void test_quick_export_any_name(void)
{
	logbuf[0] = '\0';
	nr_warn = 0;
	rblk_log_set_handler(capture, NULL);
	CU_ASSERT_EQUAL_FATAL(parse("--listen", "10.99.0.1", "--subsystem", "blktests-subsystem-1",
				    "--ns", "/dev/vdb", "--allow-host", "blktests-host", NULL), 0);
	CU_ASSERT_STRING_EQUAL(errbuf, "");
	CU_ASSERT_STRING_EQUAL(args.flags->subsys[0].nqn, "blktests-subsystem-1");
	CU_ASSERT_STRING_EQUAL(args.flags->subsys[0].hosts[0], "blktests-host");
	CU_ASSERT_EQUAL(rblk_config_validate(args.flags, RBLK_CFG_STRICT, NULL), 0);
	CU_ASSERT_EQUAL(nr_warn, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(logbuf, "warn: --subsystem blktests-subsystem-1: "
					      "\"blktests-subsystem-1\" is not an NVMe-form NQN"));
	CU_ASSERT_PTR_NOT_NULL(strstr(logbuf, "warn: --allow-host blktests-host: \"blktests-host\" "
					      "is not an NVMe-form NQN"));
	rblk_log_set_handler(NULL, NULL);
}

static void test_ns_options(void)
{
	struct rblk_cfg_ns *ns;

	CU_ASSERT_EQUAL_FATAL(parse("--listen", "10.0.0.1", "--subsystem", SUB0, "--ns",
				    "/a,nsid=2,uuid=0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0,"
				    "nguid=00112233445566778899aabbccddeeff,backend=aio,bs=4k",
				    "--ns", "/b", "--ns", "/c,rw", "--ns", "/d,nsid=0x10", NULL), 0);
	ns = &args.flags->subsys[0].ns[0];
	CU_ASSERT_EQUAL(ns->nsid, 2);
	CU_ASSERT_TRUE(ns->has_uuid);
	CU_ASSERT_EQUAL(ns->uuid[0], 0x0f);
	CU_ASSERT_TRUE(ns->has_nguid);
	CU_ASSERT_EQUAL(ns->nguid[15], 0xff);
	CU_ASSERT_STRING_EQUAL(ns->backend, "aio");
	CU_ASSERT_EQUAL(ns->block_size, 4096);
	/* Automatic ids fill the gaps around explicit ones. */
	CU_ASSERT_EQUAL(args.flags->subsys[0].ns[1].nsid, 1);
	CU_ASSERT_EQUAL(args.flags->subsys[0].ns[2].nsid, 3);
	/* the NSID rule of rblk -N: hex after 0x */
	CU_ASSERT_EQUAL(args.flags->subsys[0].ns[3].nsid, 16);
}

static void test_listen_forms(void)
{
	static const struct {
		const char *in, *addr;
		bool ipv6;
		uint16_t port;
	} ok[] = {
		{ "10.0.0.1", "10.0.0.1", false, 4420 },
		{ "10.0.0.1:4421", "10.0.0.1", false, 4421 },
		{ "0.0.0.0:1", "0.0.0.0", false, 1 },
		{ "[fe80::1]:4420", "fe80::1", true, 4420 },
		{ "[::]", "::", true, 4420 },
		{ "[2001:db8::7]:65535", "2001:db8::7", true, 65535 },
		{ "fd00::2", "fd00::2", true, 4420 },
	};
	static const struct {
		const char *in, *why;
	} bad[] = {
		{ "10.0.0.1:44x0", "port \"44x0\" must be a decimal number 1-65535" },
		{ "10.0.0.1:0", "port \"0\" must be a decimal number 1-65535" },
		{ "10.0.0.1:65536", "port \"65536\" must be" },
		{ "10.0.0.1:0x1144", "port \"0x1144\" must be" },
		{ "10.0.0.1:04420", "without leading zeros" },
		{ "10.0.0.1:", "port \"\" is empty" },
		{ "10.0.0.300", "\"10.0.0.300\" is not an IPv4 address" },
		{ "host.example", "\"host.example\" is not an IPv4 address" },
		{ "[fe80::1", "an IPv6 address goes inside [ ]" },
		{ "[fe80::1]4420", "expected :PORT after ]" },
		{ "[10.0.0.1]", "\"10.0.0.1\" is not an IPv6 address" },
		{ ":4420", "missing or overlong address" },
		{ "fe80::zz", "\"fe80::zz\" is not an IPv6 address" },
	};
	char addr[64], why[160];
	bool v6;
	uint16_t port;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		CU_ASSERT_EQUAL(rblk_tgt_parse_listen(ok[i].in, addr, sizeof(addr), &v6, &port, why,
						      sizeof(why)), 0);
		CU_ASSERT_STRING_EQUAL(addr, ok[i].addr);
		CU_ASSERT_EQUAL(v6, ok[i].ipv6);
		CU_ASSERT_EQUAL(port, ok[i].port);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		CU_ASSERT_EQUAL(rblk_tgt_parse_listen(bad[i].in, addr, sizeof(addr), &v6, &port, why,
						      sizeof(why)), -EINVAL);
		if (!strstr(why, bad[i].why))
			fprintf(stderr, "\n  %s: got \"%s\"\n", bad[i].in, why);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, bad[i].why));
	}
	/* Through the flag: the message names the flag and the value. */
	CU_ASSERT_EQUAL(parse("--listen", "10.0.0.1:44x0", "--subsystem", SUB0, NULL), -EINVAL);
	CU_ASSERT(err_has("rblk-target: --listen 10.0.0.1:44x0: port \"44x0\" must be a decimal number 1-65535"));
	CU_ASSERT_EQUAL(parse("--listen", "[fd00::1]:4421", "--listen", "10.0.0.2",
			      "--subsystem", SUB0, NULL), 0);
	CU_ASSERT_EQUAL(args.flags->nr_ports, 2);
	CU_ASSERT_TRUE(args.flags->ports[0].ipv6);
	CU_ASSERT_EQUAL(args.flags->ports[0].trsvcid, 4421);
	CU_ASSERT_EQUAL(args.flags->ports[1].portid, 2);
}

static void test_target_options(void)
{
	struct rblk_cfg_tgt *t;

	CU_ASSERT_EQUAL_FATAL(parse("-c", "/etc/rblk/config.json", "--backend", "aio",
				    "--poll-groups", "4", "--poll-mode", "event", "--queue-depth",
				    "256", "--in-capsule", "16k", "--max-io-size", "1M", "--srq-depth", "0",
				    "--log-level", "debug", "--log-time", "--stats-interval", "5", "--pidfile",
				    "/run/rblk.pid", "--foreground", "--best-effort", "--save",
				    "/tmp/x.json", "--check", "--ceph-conf", "/etc/ceph/c.conf",
				    "--rbd-id", "gw1", "--rbd-keyring", "/etc/ceph/k", NULL), 0);
	t = &args.flags->tgt;
	CU_ASSERT_STRING_EQUAL(t->rbd_conf, "/etc/ceph/c.conf");
	CU_ASSERT_STRING_EQUAL(t->rbd_id, "gw1");
	CU_ASSERT_STRING_EQUAL(t->rbd_keyring, "/etc/ceph/k");
	CU_ASSERT_STRING_EQUAL(args.config_path, "/etc/rblk/config.json");
	CU_ASSERT_STRING_EQUAL(t->backend, "aio");
	CU_ASSERT_EQUAL(t->num_poll_groups, 4);
	CU_ASSERT_TRUE(t->has_poll_mode);
	CU_ASSERT_EQUAL(t->poll_mode, RBLK_POLL_EVENT);
	CU_ASSERT_EQUAL(t->max_queue_depth, 256);
	CU_ASSERT_TRUE(t->has_in_capsule_data_size);
	CU_ASSERT_EQUAL(t->in_capsule_data_size, 16384);
	CU_ASSERT_EQUAL(t->max_io_size, 1u << 20);
	CU_ASSERT_TRUE(t->has_srq_depth); /* 0 is a choice: no shared receive queue */
	CU_ASSERT_EQUAL(t->srq_depth, 0);
	CU_ASSERT_TRUE(args.log_level_set);
	CU_ASSERT_EQUAL(args.log_level, RBLK_LOG_DEBUG);
	CU_ASSERT_TRUE(args.log_time);
	CU_ASSERT_EQUAL(args.stats_interval, 5);
	CU_ASSERT_STRING_EQUAL(args.pidfile, "/run/rblk.pid");
	CU_ASSERT_EQUAL(args.mode, RBLK_CFG_BEST_EFFORT);
	CU_ASSERT_STRING_EQUAL(args.save_path, "/tmp/x.json");
	CU_ASSERT_TRUE(args.check_only);
	/* --config alone needs no quick flags; --abort-on-error restores strict. */
	CU_ASSERT_EQUAL(parse("--config", "c.json", "--best-effort", "--abort-on-error", NULL), 0);
	CU_ASSERT_EQUAL(args.mode, RBLK_CFG_STRICT);
	CU_ASSERT_EQUAL(parse("--help", NULL), 0);
	CU_ASSERT_TRUE(args.help);
	CU_ASSERT_EQUAL(parse("-V", NULL), 0);
	CU_ASSERT_TRUE(args.version);
}

/* The admission-control flags: into the config, and from there into the target's options. */
static void test_admission_flags(void)
{
	struct rblk_target_opts o;
	struct rblk_config *file, *flags;
	struct rblk_cfg_tgt *t;

	CU_ASSERT_EQUAL_FATAL(parse("--config", "c.json", "--connect-timeout", "2500",
				    "--max-pending", "100", "--max-pending-per-addr", "4",
				    "--max-ctrls-per-host", "65519", "--max-queues", "1048576",
				    NULL), 0);
	CU_ASSERT_STRING_EQUAL(errbuf, "");
	t = &args.flags->tgt;
	CU_ASSERT_EQUAL(t->connect_timeout_ms, 2500);
	CU_ASSERT_EQUAL(t->max_pending_queues, 100);
	CU_ASSERT_EQUAL(t->max_pending_per_addr, 4);
	CU_ASSERT_EQUAL(t->max_ctrls_per_host, 65519);
	CU_ASSERT_EQUAL(t->max_queues, 1048576);
	/* As the daemon does: the flags merged over a file's x-rblk. */
	CU_ASSERT_EQUAL_FATAL(rblk_config_parse("{\"x-rblk\": {\"max_queues\": 64,"
						" \"max_pending_queues\": 9, \"connect_timeout_ms\": 700}}",
						"c.json", RBLK_CFG_STRICT, &file, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_dup(args.flags, &flags), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_merge(file, flags), 0);
	rblk_config_target_opts(file, &o);
	CU_ASSERT_EQUAL(o.connect_timeout_ms, 2500);
	CU_ASSERT_EQUAL(o.max_pending_queues, 100);
	CU_ASSERT_EQUAL(o.max_pending_per_addr, 4);
	CU_ASSERT_EQUAL(o.max_ctrls_per_host, 65519);
	CU_ASSERT_EQUAL(o.max_queues, 1048576);
	rblk_config_free(file);
	/* The lower ends; a flag not given leaves the file's value. */
	CU_ASSERT_EQUAL_FATAL(parse("--config", "c.json", "--connect-timeout", "100",
				    "--max-pending", "1", "--max-pending-per-addr", "65536",
				    "--max-queues", "2", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_parse("{\"x-rblk\": {\"max_ctrls_per_host\": 7}}",
						"c.json", RBLK_CFG_STRICT, &file, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_dup(args.flags, &flags), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_merge(file, flags), 0);
	rblk_config_target_opts(file, &o);
	CU_ASSERT_EQUAL(o.connect_timeout_ms, 100);
	CU_ASSERT_EQUAL(o.max_pending_queues, 1);
	CU_ASSERT_EQUAL(o.max_pending_per_addr, 65536);
	CU_ASSERT_EQUAL(o.max_ctrls_per_host, 7);
	CU_ASSERT_EQUAL(o.max_queues, 2);
	rblk_config_free(file);
}

static void test_sizes(void)
{
	uint32_t v;

	CU_ASSERT_EQUAL(rblk_tgt_parse_size("131072", 1u << 30, &v), 0);
	CU_ASSERT_EQUAL(v, 131072);
	CU_ASSERT_EQUAL(rblk_tgt_parse_size("128k", 1u << 30, &v), 0);
	CU_ASSERT_EQUAL(v, 131072);
	CU_ASSERT_EQUAL(rblk_tgt_parse_size("2MiB", 1u << 30, &v), 0);
	CU_ASSERT_EQUAL(v, 2u << 20);
	CU_ASSERT_EQUAL(rblk_tgt_parse_size("1G", 1u << 30, &v), 0);
	CU_ASSERT_EQUAL(rblk_tgt_parse_size("2G", 1u << 30, &v), -EINVAL);
	CU_ASSERT_EQUAL(rblk_tgt_parse_size("12q", 1u << 30, &v), -EINVAL);
	CU_ASSERT_EQUAL(rblk_tgt_parse_size("-1", 1u << 30, &v), -EINVAL);
	CU_ASSERT_EQUAL(rblk_tgt_parse_size("", 1u << 30, &v), -EINVAL);
}

/* Every usage error: -EINVAL (exit 2) and a message naming the flag and value. */
static void test_usage_errors(void)
{
	static const struct {
		const char *a[8];
		const char *msg;
	} cases[] = {
		{ { "--ns", "/dev/vdb" }, "--ns /dev/vdb: give --subsystem NQN before it" },
		{ { "--allow-host", HOST1 }, "--allow-host " HOST1 ": give --subsystem NQN before it" },
		{ { "--allow-any-host" }, "--allow-any-host: give --subsystem NQN before it" },
		{ { "--subsystem", "my disk" }, "--subsystem my disk: not a valid NQN: it contains a space" },
		{ { "--subsystem", "" }, "--subsystem : not a valid NQN: it is empty" },
		{ { "--subsystem", SUB0, "--subsystem", SUB0 }, "--subsystem " SUB0 ": given twice" },
		{ { "--subsystem", SUB0, "--ns", "/a,nsid=0" }, "--ns /a,nsid=0: nsid 0 is not a valid namespace id (1..4294967294)" },
		{ { "--subsystem", SUB0, "--ns", "/a,nsid=x" }, "--ns /a,nsid=x: nsid x is not a valid namespace id" },
		{ { "--subsystem", SUB0, "--ns", "/a,nsid=+1" }, "--ns /a,nsid=+1: nsid +1 is not a valid namespace id" },
		{ { "--subsystem", SUB0, "--ns", "/a,nsid=2", "--ns", "/b,nsid=2" }, "--ns /b,nsid=2: nsid 2 is already used by --ns /a,nsid=2" },
		{ { "--subsystem", SUB0, "--ns", "/a,uuid=nope" }, "--ns /a,uuid=nope: uuid nope is not a UUID" },
		{ { "--subsystem", SUB0, "--ns", "/a,fast" }, "--ns /a,fast: unknown option \"fast\"" },
		{ { "--subsystem", SUB0, "--ns", "/a,backend=spdk" }, "--ns /a,backend=spdk: backend spdk is not" },
		{ { "--subsystem", SUB0, "--ns", "/a,bs=1000" }, "--ns /a,bs=1000: bs 1000 is not a block size" },
		{ { "--subsystem", SUB0, "--ns", "/a,bs=8k" }, "--ns /a,bs=8k: bs 8k is not a block size (512..4096" },
		{ { "--subsystem", SUB0, "--ns", ",ro" }, "--ns ,ro: missing path" },
		{ { "--subsystem", SUB0, "--allow-host", "me\tyou" }, "--allow-host me\tyou: not a valid NQN: it contains control characters" },
		{ { "--subsystem", SUB0, "--allow-any-host", "--allow-host", HOST1 }, "already allows any host" },
		{ { "--subsystem", SUB0, "--allow-host", HOST1, "--allow-any-host" }, "--allow-any-host: " SUB0 " already has --allow-host entries" },
		{ { "--backend", "spdk" }, "--backend spdk: not \"uring\" or \"aio\"" },
		{ { "--rbd-id", "" }, "--rbd-id: empty" },
		{ { "--poll-groups", "0" }, "--poll-groups 0: not a number in 1..1024" },
		{ { "--poll-groups", "many" }, "--poll-groups many: not a number in 1..1024" },
		{ { "--poll-mode", "lazy" }, "--poll-mode lazy: not adaptive, busy or event" },
		{ { "--queue-depth", "1" }, "--queue-depth 1: not a number in 2..65535" },
		/* 65536 wrapped a queue's 16-bit depth to 0. */
		{ { "--queue-depth", "65536" }, "--queue-depth 65536: not a number in 2..65535" },
		{ { "--in-capsule", "2M" }, "--in-capsule 2M: not a size in 0..1048576 bytes" },
		{ { "--srq-depth", "15" }, "--srq-depth 15: 0 (no shared receive queue) or 16..65536" },
		{ { "--srq-depth", "65537" }, "--srq-depth 65537: not a number in 0..65536" },
		{ { "--max-io-size", "1k" }, "--max-io-size 1k: not a size in 8192..16777216 bytes" },
		{ { "--connect-timeout", "99" }, "--connect-timeout 99: not a number in 100..600000" },
		{ { "--connect-timeout", "600001" }, "--connect-timeout 600001: not a number in 100..600000" },
		{ { "--connect-timeout", "10s" }, "--connect-timeout 10s: not a number in 100..600000" },
		{ { "--max-pending", "0" }, "--max-pending 0: not a number in 1..65536" },
		{ { "--max-pending", "65537" }, "--max-pending 65537: not a number in 1..65536" },
		{ { "--max-pending-per-addr", "0" }, "--max-pending-per-addr 0: not a number in 1..65536" },
		{ { "--max-pending-per-addr", "-1" }, "--max-pending-per-addr -1: not a number in 1..65536" },
		{ { "--max-ctrls-per-host", "0" }, "--max-ctrls-per-host 0: not a number in 1..65519" },
		{ { "--max-ctrls-per-host", "65520" }, "--max-ctrls-per-host 65520: not a number in 1..65519" },
		{ { "--max-queues", "1" }, "--max-queues 1: not a number in 2..1048576" },
		{ { "--max-queues", "1048577" }, "--max-queues 1048577: not a number in 2..1048576" },
		{ { "--max-queues" }, "--max-queues: needs a value" },
		{ { "--log-level", "loud" }, "--log-level loud: not err, warn, notice, info or debug" },
		{ { "--stats-interval", "0" }, "--stats-interval 0: not a number in 1..86400" },
		{ { "--frobnicate" }, "--frobnicate: unknown option" },
		{ { "-x" }, "-x: unknown option" },
		{ { "--listen" }, "--listen: needs a value" },
		{ { "-c", "a.json", "extra" }, "extra: unexpected argument" },
		{ { "--listen", "10.0.0.1", "--rpc-socket", "none" },
		  "nothing to export: give --config FILE" },
		{ { "--subsystem", SUB0, "--ns", "/a", "--rpc-socket", "none" },
		  "no --listen ADDR[:PORT] given" },
		{ { "--rpc-socket", "" }, "--rpc-socket: empty" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const *a = cases[i].a;

		CU_ASSERT_EQUAL(parse(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], NULL), -EINVAL);
		CU_ASSERT(err_has(cases[i].msg));
		CU_ASSERT(strncmp(errbuf, "rblk-target: ", 13) == 0);
	}
}

static void test_flag_clash_with_validation(void)
{
	/* A subsystem NQN from the flags that a config file also defines: caught
	 * by the shared validation, which quotes the flag. */
	struct rblk_config *file, *flags;

	CU_ASSERT_EQUAL_FATAL(parse("--listen", "10.0.0.1", "--subsystem", SUB0, "--ns", "/a",
				    "--allow-any-host", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_new(&file), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_dup(args.flags, &flags), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_merge(file, flags), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_dup(args.flags, &flags), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_merge(file, flags), 0);
	CU_ASSERT_EQUAL(rblk_config_validate(file, RBLK_CFG_STRICT, NULL), -EINVAL);
	rblk_config_free(file);
}

static void test_usage_text(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	rblk_tgt_usage(f);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "--config FILE"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "Examples:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "--connect-timeout MS"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "--max-pending N"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "--rpc-socket PATH"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "rblk-target rpc METHOD"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "--max-pending-per-addr N"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "--max-ctrls-per-host N"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "--max-queues N"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "nvme connect -t rdma -a 10.99.0.1 -s 4420 -n"));
	free(buf);
}

static int fini(void)
{
	rblk_tgt_args_free(&args);
	return 0;
}

static const struct ut_case cases[] = {
	UT_CASE(test_quick_export),
	UT_CASE(test_quick_export_applies),
	UT_CASE(test_quick_export_any_name),
	UT_CASE(test_ns_options),
	UT_CASE(test_listen_forms),
	UT_CASE(test_target_options),
	UT_CASE(test_admission_flags),
	UT_CASE(test_sizes),
	UT_CASE(test_usage_errors),
	UT_CASE(test_flag_clash_with_validation),
	UT_CASE(test_usage_text),
	UT_END,
};

UT_MAIN_INIT("target/args", cases, NULL, fini)

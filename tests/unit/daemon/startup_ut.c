/* SPDX-License-Identifier: MIT */
/*
 * Tests for daemon/startup.c and the start-up check it runs
 * (daemon/config_preflight.c): command lines parsed as rblk-target parses
 * them, then rblk_tgt_prepare(), the one function both a start and --check
 * go through, and the exit status each refusal maps to.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_target.h"
#include "daemon/startup.h"
#include "ut.h"

#define SUB0 "nqn.2024-01.io.rblk:disk0"

static char logbuf[16384];
static char dir[] = "/tmp/rblk-startup-ut.XXXXXX";
static char img[64], empty_json[64];

static void capture(enum rblk_log_level level, const char *msg, void *arg)
{
	size_t len = strlen(logbuf);

	(void)arg;
	snprintf(logbuf + len, sizeof(logbuf) - len, "%s: %s\n", rblk_log_level_str(level), msg);
}

static bool logged(const char *s)
{
	if (strstr(logbuf, s))
		return true;
	fprintf(stderr, "\n  expected in log: %s\n  log was:\n%s", s, logbuf);
	return false;
}

/*
 * rblk-target ARGS... up to rblk_tgt_prepare(): its return, *cfg on
 * success. Small pools (--poll-groups 1 --queue-depth 16) so that the
 * locked-memory check passes under any ulimit.
 */
static int prepare(struct rblk_config **cfg, const char *first, ...)
{
	char *argv[32] = { "rblk-target", "--poll-groups", "1", "--queue-depth", "16" };
	struct rblk_tgt_args a;
	int argc = 5, ret;
	va_list ap;

	va_start(ap, first);
	for (const char *s = first; s && argc < 31; s = va_arg(ap, const char *))
		argv[argc++] = (char *)s;
	va_end(ap);
	argv[argc] = NULL;
	logbuf[0] = '\0';
	*cfg = NULL;
	ret = rblk_tgt_args_parse(argc, argv, &a, stderr);
	if (!ret)
		ret = rblk_tgt_prepare(&a, cfg);
	rblk_tgt_args_free(&a);
	return ret;
}

static void test_empty_config_refused(void)
{
	struct rblk_config *cfg;
	int ret = prepare(&cfg, "--config", empty_json, "--check", NULL);

	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_EQUAL(rblk_tgt_exit_code(ret), 2);
	CU_ASSERT_PTR_NULL(cfg);
	CU_ASSERT(logged("nothing to export: no subsystems; add one to \"subsystems\""));
	CU_ASSERT(logged("nothing to listen on: no ports; add one to \"ports\""));
	CU_ASSERT(logged(empty_json));
}

static void test_in_capsule_3_refused(void)
{
	struct rblk_config *cfg;
	int ret = prepare(&cfg, "--listen", "10.99.0.1", "--subsystem", SUB0, "--ns", img,
			  "--allow-any-host", "--in-capsule", "3", NULL);

	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_EQUAL(rblk_tgt_exit_code(ret), 2);
	CU_ASSERT(logged("target option (--in-capsule, x-rblk.in_capsule_data_size, "
			 "ports[].param.inline_data_size): in_capsule_data_size 3: must be a "
			 "multiple of 16 in 0..131072"));
}

/* A pool that cannot hold one largest transfer (1 MiB in 128 KiB units). */
static void test_small_pool_refused(void)
{
	struct rblk_config *cfg;
	int ret = prepare(&cfg, "--listen", "10.99.0.1", "--subsystem", SUB0, "--ns", img,
			  "--allow-any-host", "--max-io-size", "1M", "--queue-depth", "4", NULL);

	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT(logged("(x-rblk.num_shared_buffers; 0 means --queue-depth units): "
			 "num_shared_buffers 4: the buffer pool"));
	CU_ASSERT(logged("must be 8..1048576 units"));
}

/*
 * The admission flags at their extremes pass the library's own check; a
 * value past it (as a config built in code could hold) names flag and key.
 */
static void test_admission_limits_checked(void)
{
	struct rblk_config *cfg;
	unsigned errors = 0;
	int ret = prepare(&cfg, "--listen", "10.99.0.1", "--subsystem", SUB0, "--ns", img,
			  "--allow-any-host", "--connect-timeout", "600000", "--max-pending", "1",
			  "--max-pending-per-addr", "65536", "--max-ctrls-per-host", "65519",
			  "--max-queues", "2", NULL);

	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_EQUAL(cfg->tgt.max_queues, 2);
	cfg->tgt.max_ctrls_per_host = 65520;
	logbuf[0] = '\0';
	CU_ASSERT_EQUAL(rblk_config_preflight(cfg, RBLK_CFG_STRICT, NULL, false, &errors), -EINVAL);
	CU_ASSERT_EQUAL(errors, 1);
	CU_ASSERT(logged("target option (--max-ctrls-per-host, x-rblk.max_ctrls_per_host): "
			 "max_ctrls_per_host 65520: must be in 1..65519"));
	cfg->tgt.max_ctrls_per_host = 0;
	cfg->tgt.connect_timeout_ms = 99;
	CU_ASSERT_EQUAL(rblk_config_preflight(cfg, RBLK_CFG_STRICT, NULL, false, NULL), -EINVAL);
	CU_ASSERT(logged("(--connect-timeout, x-rblk.connect_timeout_ms): connect_timeout_ms 99"));
	rblk_config_free(cfg);
}

static void test_missing_ns_path_refused(void)
{
	struct rblk_config *cfg;
	int ret = prepare(&cfg, "--listen", "10.99.0.1", "--subsystem", SUB0, "--ns",
			  "/nonexistent/rblk.img,ro", "--allow-any-host", NULL);

	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_EQUAL(rblk_tgt_exit_code(ret), 2);
	CU_ASSERT(logged("--ns /nonexistent/rblk.img,ro (nsid 1 of " SUB0 "): "
			 "/nonexistent/rblk.img: No such file or directory"));
	/* Best effort: warned, left for the start to skip (and --save to keep). */
	ret = prepare(&cfg, "--best-effort", "--listen", "10.99.0.1", "--subsystem", SUB0, "--ns",
		      "/nonexistent/rblk.img", "--ns", img, "--allow-any-host", NULL);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT(logged("it will not be exported"));
	CU_ASSERT_EQUAL(cfg->subsys[0].nr_ns, 2);
	rblk_config_free(cfg);
}

static void test_valid_config_accepted(void)
{
	struct rblk_config *cfg;
	char ro[128];

	snprintf(ro, sizeof(ro), "%s,ro", img);
	CU_ASSERT_EQUAL_FATAL(prepare(&cfg, "--listen", "10.99.0.1", "--subsystem", SUB0, "--ns",
				      img, "--ns", ro, "--ns", "mem:1M", "--allow-any-host",
				      "--in-capsule", "4k", NULL), 0);
	CU_ASSERT_EQUAL(cfg->nr_subsys, 1);
	CU_ASSERT_EQUAL(cfg->nr_ports, 1);
	CU_ASSERT_EQUAL(cfg->subsys[0].nr_ns, 3);
	CU_ASSERT_EQUAL(cfg->tgt.in_capsule_data_size, 4096);
	CU_ASSERT_PTR_NULL(strstr(logbuf, "err: "));
	rblk_config_free(cfg);
}

static void test_exit_codes(void)
{
	CU_ASSERT_EQUAL(rblk_tgt_exit_code(0), RBLK_EXIT_OK);
	CU_ASSERT_EQUAL(rblk_tgt_exit_code(-EINVAL), 2);
	CU_ASSERT_EQUAL(rblk_tgt_exit_code(-EBADMSG), 2);   /* not JSON */
	CU_ASSERT_EQUAL(rblk_tgt_exit_code(-ENOENT), 2);    /* no such --config file */
	CU_ASSERT_EQUAL(rblk_tgt_exit_code(-ENOMEM), 1);    /* RLIMIT_MEMLOCK, or memory */
	CU_ASSERT_EQUAL(RBLK_EXIT_USAGE, 2);
	CU_ASSERT_EQUAL(RBLK_EXIT_FAILURE, 1);
}

static int setup(void)
{
	int fd;

	rblk_log_set_handler(capture, NULL);
	rblk_log_set_level(RBLK_LOG_INFO);
	if (!mkdtemp(dir))
		return 1;
	snprintf(img, sizeof(img), "%s/a.img", dir);
	snprintf(empty_json, sizeof(empty_json), "%s/empty.json", dir);
	fd = open(img, O_CREAT | O_WRONLY, 0600);
	if (fd < 0 || ftruncate(fd, 1 << 20) < 0)
		return 1;
	close(fd);
	fd = open(empty_json, O_CREAT | O_WRONLY, 0600);
	if (fd < 0 || write(fd, "{}\n", 3) != 3)
		return 1;
	close(fd);
	return 0;
}

static int teardown(void)
{
	unlink(img);
	unlink(empty_json);
	rmdir(dir);
	return 0;
}

static const struct ut_case cases[] = {
	UT_CASE(test_empty_config_refused),
	UT_CASE(test_in_capsule_3_refused),
	UT_CASE(test_small_pool_refused),
	UT_CASE(test_admission_limits_checked),
	UT_CASE(test_missing_ns_path_refused),
	UT_CASE(test_valid_config_accepted),
	UT_CASE(test_exit_codes),
	UT_END,
};

UT_MAIN_INIT("daemon/startup", cases, setup, teardown)

/* SPDX-License-Identifier: MIT */
/*
 * Tests for daemon/live.c, the one path from a new configuration to the
 * running target (SIGHUP reload and management requests): what each mode
 * applies, refuses and saves, over the fake target.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fake_target.h"
#include "daemon/live.h"
#include "ut.h"

#define SUB0 "nqn.2024-01.io.rblk:disk0"

static char dir[] = "/tmp/rblk-live-ut.XXXXXX";
static char save_path[64];

static void quiet(enum rblk_log_level level, const char *msg, void *arg)
{
	(void)level;
	(void)msg;
	(void)arg;
}

/* One subsystem with a mem namespace; with a port at 10.0.0.@port_octet when nonzero. */
static struct rblk_config *make(int port_octet, bool second_ns)
{
	struct rblk_config *cfg;
	struct rblk_cfg_subsys *ss;
	struct rblk_cfg_ns *ns;
	struct rblk_cfg_port *p;
	char addr[32];

	CU_ASSERT_EQUAL_FATAL(rblk_config_new(&cfg), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_config_add_subsys(cfg, "t", SUB0, &ss), 0);
	ss->allow_any_host = true;
	for (uint32_t i = 1; i <= (second_ns ? 2u : 1u); i++) {
		CU_ASSERT_EQUAL_FATAL(rblk_cfg_subsys_add_ns(ss, "t", &ns), 0);
		ns->nsid = i;
		ns->path = strdup("mem:1M");
	}
	if (port_octet) {
		CU_ASSERT_EQUAL_FATAL(rblk_config_add_port(cfg, "t", &p), 0);
		snprintf(addr, sizeof(addr), "10.0.0.%d", port_octet);
		p->traddr = strdup(addr);
		p->portid = 1;
		CU_ASSERT_EQUAL_FATAL(rblk_cfg_port_link(p, SUB0), 0);
	}
	CU_ASSERT_EQUAL_FATAL(rblk_config_validate(cfg, RBLK_CFG_STRICT, NULL), 0);
	return cfg;
}

static bool has_listener(const struct rblk_config *cfg, const char *traddr)
{
	for (size_t i = 0; i < cfg->nr_ports; i++)
		if (strcmp(cfg->ports[i].traddr, traddr) == 0)
			return true;
	return false;
}

static void start(struct rblk_tgt_live *l, int port_octet)
{
	char why[256];

	fake_reset();
	unlink(save_path);
	CU_ASSERT_EQUAL_FATAL(rblk_config_new(&l->running), 0);
	l->tgt = fake_target();
	l->save_path = save_path;
	CU_ASSERT_EQUAL_FATAL(rblk_tgt_live_apply(l, make(port_octet, false), RBLK_LIVE_RELOAD,
						  NULL, NULL, why, sizeof(why)), 0);
	fake_log[0] = '\0';
	unlink(save_path);
}

static void test_request_applies_and_saves(void)
{
	struct rblk_tgt_live l;
	size_t changes = 0, failed = 9;
	char why[256];

	start(&l, 1);
	CU_ASSERT_EQUAL(rblk_tgt_live_apply(&l, make(1, true), RBLK_LIVE_REQUEST, &changes,
					    &failed, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(changes, 1);
	CU_ASSERT_EQUAL(failed, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(fake_log, "add_ns " SUB0 " 2 mem:1M"));
	CU_ASSERT_EQUAL(l.running->subsys[0].nr_ns, 2);
	CU_ASSERT_EQUAL(access(save_path, R_OK), 0);
	rblk_config_free(l.running);
}

static void test_request_refuses_restart(void)
{
	struct rblk_tgt_live l;
	char why[256];

	/* Moving the listener needs a restart: a request changes nothing at all. */
	start(&l, 1);
	CU_ASSERT_EQUAL(rblk_tgt_live_apply(&l, make(2, true), RBLK_LIVE_REQUEST, NULL, NULL, why,
					    sizeof(why)), -EBUSY);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "needs a restart: listener 10.0.0.1 port 4420 removed"));
	CU_ASSERT_STRING_EQUAL(fake_log, "");
	CU_ASSERT_EQUAL(l.running->subsys[0].nr_ns, 1);
	CU_ASSERT_STRING_EQUAL(l.running->ports[0].traddr, "10.0.0.1");
	CU_ASSERT_NOT_EQUAL(access(save_path, R_OK), 0);
	rblk_config_free(l.running);
}

static void test_reload_applies_what_it_can(void)
{
	struct rblk_tgt_live l;
	size_t changes = 0, failed = 0;
	char why[256];

	/* The same change on SIGHUP: the namespace is added, the move waits for a restart. */
	start(&l, 1);
	rblk_tgt_live_apply(&l, make(2, true), RBLK_LIVE_RELOAD, &changes, &failed, why,
			    sizeof(why));
	CU_ASSERT_PTR_NOT_NULL(strstr(fake_log, "add_ns " SUB0 " 2"));
	CU_ASSERT_EQUAL(l.running->subsys[0].nr_ns, 2);
	/* The old listener still runs, so the running configuration keeps it; the file
	 * has what was asked for. */
	CU_ASSERT(has_listener(l.running, "10.0.0.1"));
	CU_ASSERT_EQUAL(access(save_path, R_OK), 0);
	rblk_config_free(l.running);
}

static void test_request_failure_not_saved(void)
{
	struct rblk_tgt_live l;
	size_t failed = 0;
	char why[256];

	start(&l, 1);
	fake_fail("add_ns", -EIO);
	CU_ASSERT_EQUAL(rblk_tgt_live_apply(&l, make(1, true), RBLK_LIVE_REQUEST, NULL, &failed,
					    why, sizeof(why)), -EIO);
	CU_ASSERT_EQUAL(failed, 1);
	CU_ASSERT_STRING_EQUAL(why, SUB0 ": add namespace 2 (mem:1M): Input/output error");
	CU_ASSERT_EQUAL(l.running->subsys[0].nr_ns, 1);
	CU_ASSERT_NOT_EQUAL(access(save_path, R_OK), 0);
	rblk_config_free(l.running);
}

static int setup(void)
{
	rblk_log_set_handler(quiet, NULL);
	if (!mkdtemp(dir))
		return 1;
	snprintf(save_path, sizeof(save_path), "%s/saved.json", dir);
	return 0;
}

static int teardown(void)
{
	unlink(save_path);
	rmdir(dir);
	return 0;
}

static const struct ut_case cases[] = {
	UT_CASE(test_request_applies_and_saves),
	UT_CASE(test_request_refuses_restart),
	UT_CASE(test_reload_applies_what_it_can),
	UT_CASE(test_request_failure_not_saved),
	UT_END,
};

UT_MAIN_INIT("daemon/live", cases, setup, teardown)

/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/subsys.c: subsystem options, the host ACL, cntlid
 * allocation (cyclic, 1..0xFFEF, Controller Busy when exhausted), the
 * namespace table (nsid allocation, limits), and removing a subsystem that
 * has connected controllers.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "test_transport.h"
#include "ut.h"

static struct tt_env *env;

static void setup(void)
{
	env = tt_env_create(NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
}

static void teardown(void)
{
	tt_env_destroy(env);
	env = NULL;
}

static void test_subsystem_opts(void)
{
	struct rblk_subsystem_opts o;
	struct rblk_subsystem *ss;

	setup();
	rblk_subsystem_opts_init(&o);
	CU_ASSERT_EQUAL(rblk_target_add_subsystem(env->tgt, &o, &ss), -EINVAL);
	o.nqn = "not an nqn";
	CU_ASSERT_EQUAL(rblk_target_add_subsystem(env->tgt, &o, &ss), -EINVAL);
	o.nqn = NVME_DISC_SUBSYS_NAME;
	CU_ASSERT_EQUAL(rblk_target_add_subsystem(env->tgt, &o, &ss), -EINVAL);
	o.nqn = TT_SUBNQN;
	o.serial = "012345678901234567890"; /* 21 */
	CU_ASSERT_EQUAL(rblk_target_add_subsystem(env->tgt, &o, &ss), -EINVAL);
	o.serial = "bad\tserial";
	CU_ASSERT_EQUAL(rblk_target_add_subsystem(env->tgt, &o, &ss), -EINVAL);
	o.serial = "SN-1";
	o.model = "Model X";
	o.max_namespaces = 70000;
	CU_ASSERT_EQUAL(rblk_target_add_subsystem(env->tgt, &o, &ss), -EINVAL);
	o.max_namespaces = 2;
	CU_ASSERT_EQUAL_FATAL(rblk_target_add_subsystem(env->tgt, &o, &ss), 0);
	CU_ASSERT_STRING_EQUAL(ss->serial, "SN-1");
	CU_ASSERT_STRING_EQUAL(ss->model, "Model X");
	CU_ASSERT_EQUAL(ss->max_nsid, 2);
	CU_ASSERT_FALSE(ss->allow_any_host);
	CU_ASSERT_EQUAL(rblk_target_add_subsystem(env->tgt, &o, &ss), -EEXIST);
	CU_ASSERT_PTR_EQUAL(rblk_target_find_subsystem(env->tgt, TT_SUBNQN), ss);
	CU_ASSERT_PTR_NULL(rblk_target_find_subsystem(env->tgt, NVME_DISC_SUBSYS_NAME));
	CU_ASSERT_PTR_NULL(rblk_target_find_subsystem(env->tgt, TT_SUBNQN2));
	CU_ASSERT_EQUAL(rblk_target_remove_subsystem(env->tgt, TT_SUBNQN2), -ENOENT);
	CU_ASSERT_EQUAL(rblk_target_remove_subsystem(env->tgt, TT_SUBNQN), 0);
	CU_ASSERT_PTR_NULL(rblk_target_find_subsystem(env->tgt, TT_SUBNQN));
	teardown();
}

static void test_host_acl(void)
{
	struct rblk_subsystem *ss;

	setup();
	ss = tt_add_subsys(env, TT_SUBNQN, NULL, NULL);
	CU_ASSERT_TRUE(rblk_subsys_host_allowed(ss, TT_HOSTNQN));
	CU_ASSERT_EQUAL(rblk_subsystem_set_allow_any_host(ss, false), 0);
	CU_ASSERT_FALSE(rblk_subsys_host_allowed(ss, TT_HOSTNQN));
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(ss, TT_HOSTNQN), 0);
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(ss, TT_HOSTNQN), -EEXIST);
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(ss, "junk host"), -EINVAL);
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(ss, ""), -EINVAL);
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(ss, NULL), -EINVAL);
	CU_ASSERT_TRUE(rblk_subsys_host_allowed(ss, TT_HOSTNQN));
	CU_ASSERT_FALSE(rblk_subsys_host_allowed(ss, TT_HOSTNQN2));
	CU_ASSERT_EQUAL(rblk_subsystem_disallow_host(ss, TT_HOSTNQN2), -ENOENT);
	CU_ASSERT_EQUAL(rblk_subsystem_disallow_host(ss, TT_HOSTNQN), 0);
	CU_ASSERT_FALSE(rblk_subsys_host_allowed(ss, TT_HOSTNQN));
	/* The discovery subsystem admits everyone. */
	CU_ASSERT_TRUE(rblk_subsys_host_allowed(env->tgt->disc, TT_HOSTNQN2));
	teardown();
}

static char logbuf[8192];
static int nr_warn, nr_err;

static void capture(enum rblk_log_level level, const char *msg, void *arg)
{
	size_t len = strlen(logbuf);

	(void)arg;
	nr_warn += level == RBLK_LOG_WARN;
	nr_err += level == RBLK_LOG_ERR;
	snprintf(logbuf + len, sizeof(logbuf) - len, "%s: %s\n", rblk_log_level_str(level), msg);
}

static void log_capture(void)
{
	logbuf[0] = '\0';
	nr_warn = nr_err = 0;
	rblk_log_set_handler(capture, NULL);
}

/*
 * nvmet's NQN policy: any 1..223 bytes of printable ASCII without spaces is
 * a subsystem or host name (kernel configs use "testnqn"); a name not of the
 * NVMe form gets one warning, however often it is used.
 */
static void test_nqn_policy(void)
{
	struct rblk_subsystem_opts o;
	struct rblk_subsystem *ss;
	char big[260];

	setup();
	log_capture();
	rblk_subsystem_opts_init(&o);
	o.nqn = "testnqn";
	CU_ASSERT_EQUAL_FATAL(rblk_target_add_subsystem(env->tgt, &o, &ss), 0);
	CU_ASSERT_PTR_EQUAL(rblk_target_find_subsystem(env->tgt, "testnqn"), ss);
	CU_ASSERT_EQUAL(nr_warn, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(logbuf, "warn: subsystem: \"testnqn\" is not an NVMe-form NQN "
					      "(nqn.yyyy-mm.reverse.domain[:name] or "
					      "nqn.2014-08.org.nvmexpress:uuid:UUID): it does not start "
					      "with \"nqn.\"; accepted, as nvmet accepts it\n"));
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(ss, "blktests-host-7"), 0);
	CU_ASSERT_TRUE(rblk_subsys_host_allowed(ss, "blktests-host-7"));
	CU_ASSERT_EQUAL(nr_warn, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(logbuf, "warn: allowed host: \"blktests-host-7\" is not an "
					      "NVMe-form NQN"));
	/* Once per name: removed and added again, allowed again: no new warning. */
	CU_ASSERT_EQUAL(rblk_subsystem_disallow_host(ss, "blktests-host-7"), 0);
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(ss, "blktests-host-7"), 0);
	CU_ASSERT_EQUAL(rblk_target_remove_subsystem(env->tgt, "testnqn"), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_target_add_subsystem(env->tgt, &o, &ss), 0);
	CU_ASSERT_EQUAL(nr_warn, 2);
	/* NVMe-form names: no warning. */
	o.nqn = TT_SUBNQN;
	CU_ASSERT_EQUAL_FATAL(rblk_target_add_subsystem(env->tgt, &o, &ss), 0);
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(ss, TT_HOSTNQN), 0);
	CU_ASSERT_EQUAL(nr_warn, 2);
	CU_ASSERT_EQUAL(nr_err, 0);

	/* Still errors, each with its reason. */
	o.nqn = "";
	CU_ASSERT_EQUAL(rblk_target_add_subsystem(env->tgt, &o, &ss), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(logbuf, "err: subsystem NQN \"\" is empty\n"));
	o.nqn = "my disk";
	CU_ASSERT_EQUAL(rblk_target_add_subsystem(env->tgt, &o, &ss), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(logbuf, "err: subsystem NQN \"my disk\" contains a space\n"));
	o.nqn = "disk\x01";
	CU_ASSERT_EQUAL(rblk_target_add_subsystem(env->tgt, &o, &ss), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(logbuf, "contains control characters\n"));
	o.nqn = "disk\xe9";
	CU_ASSERT_EQUAL(rblk_target_add_subsystem(env->tgt, &o, &ss), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(logbuf, "contains a byte that is not ASCII (0xe9)\n"));
	memset(big, 'n', 224);
	big[224] = '\0';
	o.nqn = big;
	CU_ASSERT_EQUAL(rblk_target_add_subsystem(env->tgt, &o, &ss), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(logbuf, "is 224 bytes long (at most 223)\n"));
	big[223] = '\0';
	CU_ASSERT_EQUAL(rblk_target_add_subsystem(env->tgt, &o, &ss), 0);
	CU_ASSERT_EQUAL(rblk_subsystem_allow_host(ss, big), 0);
	/* The discovery NQN stays the built-in subsystem's. */
	o.nqn = NVME_DISC_SUBSYS_NAME;
	CU_ASSERT_EQUAL(rblk_target_add_subsystem(env->tgt, &o, &ss), -EINVAL);
	CU_ASSERT_EQUAL(nr_warn, 3); /* the 223-byte name, once */
	rblk_log_set_handler(NULL, NULL);
	teardown();
}

static void test_cntlid_allocation(void)
{
	struct rblk_subsystem *ss;
	struct rblk_tgt_ctrl *c[4];
	uint8_t hostid[16] = { 0 };

	setup();
	ss = tt_add_subsys(env, TT_SUBNQN, NULL, NULL);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL_FATAL(rblk_tgt_ctrl_create(ss, TT_HOSTNQN, hostid, 0, &c[i]), 0);
	CU_ASSERT_EQUAL(c[0]->cntlid, 1);
	CU_ASSERT_EQUAL(c[1]->cntlid, 2);
	CU_ASSERT_EQUAL(c[2]->cntlid, 3);
	CU_ASSERT_PTR_EQUAL(rblk_subsys_get_ctrl(ss, 2, TT_HOSTNQN), c[1]);
	rblk_tgt_ctrl_put(c[1]);
	CU_ASSERT_PTR_NULL(rblk_subsys_get_ctrl(ss, 2, TT_HOSTNQN2));
	CU_ASSERT_PTR_NULL(rblk_subsys_get_ctrl(ss, 9, TT_HOSTNQN));
	/* Cyclic: a freed cntlid is not handed out again at once. */
	rblk_tgt_ctrl_put(c[1]);
	CU_ASSERT_EQUAL(ss->nr_ctrls, 2);
	CU_ASSERT_EQUAL_FATAL(rblk_tgt_ctrl_create(ss, TT_HOSTNQN, hostid, 0, &c[1]), 0);
	CU_ASSERT_EQUAL(c[1]->cntlid, 4);
	/* Wrap-around at 0xFFEF skips ids in use. */
	ss->next_cntlid = 0xFFEF;
	CU_ASSERT_EQUAL_FATAL(rblk_tgt_ctrl_create(ss, TT_HOSTNQN, hostid, 0, &c[3]), 0);
	CU_ASSERT_EQUAL(c[3]->cntlid, 0xFFEF);
	rblk_tgt_ctrl_put(c[3]);
	CU_ASSERT_EQUAL_FATAL(rblk_tgt_ctrl_create(ss, TT_HOSTNQN, hostid, 0, &c[3]), 0);
	CU_ASSERT_EQUAL(c[3]->cntlid, 2); /* 1 is taken */
	for (int i = 0; i < 4; i++)
		rblk_tgt_ctrl_put(c[i]);
	CU_ASSERT_EQUAL(ss->nr_ctrls, 0);
	teardown();
}

static void test_cntlid_exhausted(void)
{
	struct rblk_subsystem *ss;
	struct tt_queue *q;
	struct nvme_cqe cqe;

	setup();
	ss = tt_add_subsys(env, TT_SUBNQN, NULL, NULL);
	q = tt_queue_create(env, 0, 32);
	ss->nr_ctrls = NVMF_CNTLID_MAX; /* pretend every id is in use */
	CU_ASSERT_EQUAL(tt_connect(q, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe),
			NVME_SC_CONNECT_CTRL_BUSY | NVME_SC_DNR);
	ss->nr_ctrls = 0;
	tt_queue_destroy(q);
	teardown();
}

static void test_namespace_table(void)
{
	struct rblk_subsystem_opts so;
	struct rblk_ns_opts no;
	struct rblk_subsystem *ss;
	uint32_t nsid;

	setup();
	rblk_subsystem_opts_init(&so);
	so.nqn = TT_SUBNQN;
	so.max_namespaces = 3;
	CU_ASSERT_EQUAL_FATAL(rblk_target_add_subsystem(env->tgt, &so, &ss), 0);
	rblk_ns_opts_init(&no);
	no.path = "mem:64K";
	no.nsid = 2;
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &no, &nsid), 0);
	CU_ASSERT_EQUAL(nsid, 2);
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &no, &nsid), -EEXIST);
	no.nsid = 4;
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &no, &nsid), -EINVAL);
	/* 0 = lowest free. */
	no.nsid = 0;
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &no, &nsid), 0);
	CU_ASSERT_EQUAL(nsid, 1);
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &no, &nsid), 0);
	CU_ASSERT_EQUAL(nsid, 3);
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &no, &nsid), -ENOSPC);
	CU_ASSERT_EQUAL(ss->nr_ns, 3);
	CU_ASSERT_EQUAL(rblk_subsystem_remove_namespace(ss, 2), 0);
	CU_ASSERT_EQUAL(rblk_subsystem_remove_namespace(ss, 2), -ENOENT);
	CU_ASSERT_EQUAL(rblk_subsystem_remove_namespace(ss, 0), -ENOENT);
	CU_ASSERT_PTR_NULL(rblk_subsys_get_ns(ss, 2));
	CU_ASSERT_PTR_NULL(rblk_subsys_get_ns(ss, 0));
	CU_ASSERT_PTR_NULL(rblk_subsys_get_ns(ss, 0xFFFFFFFF));
	{
		struct rblk_tgt_ns *ns = rblk_subsys_get_ns(ss, 3);

		CU_ASSERT_PTR_NOT_NULL_FATAL(ns);
		CU_ASSERT_EQUAL(atomic_load(&ns->refs), 2);
		rblk_tgt_ns_put(ns);
	}
	/* Namespaces belong to NVM subsystems only. */
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(env->tgt->disc, &no, &nsid), -EINVAL);
	teardown();
}

struct remover {
	struct rblk_target *tgt;
	int ret;
	_Atomic bool done;
};

static void *remove_thread(void *arg)
{
	struct remover *rm = arg;

	rm->ret = rblk_target_remove_subsystem(rm->tgt, TT_SUBNQN);
	rm->done = true;
	return NULL;
}

static void test_remove_with_controllers(void)
{
	struct remover rm = { 0 };
	struct tt_queue *aq, *iq;
	struct nvme_cqe cqe;
	uint16_t cntlid;
	pthread_t th;

	setup();
	CU_ASSERT_PTR_NOT_NULL_FATAL(tt_add_subsys(env, TT_SUBNQN, "mem:64K", NULL));
	aq = tt_queue_create(env, 0, 32);
	cntlid = tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 0);
	iq = tt_queue_create(env, 1, 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 31, cntlid, 0, 0, NULL), 0);
	rm.tgt = env->tgt;
	pthread_create(&th, NULL, remove_thread, &rm);
	/* The removal asks the transport to disconnect, then waits for the queues. */
	for (int i = 0; i < 2000 && !(aq->disconnects && iq->disconnects); i++)
		usleep(1000);
	CU_ASSERT_EQUAL(aq->disconnects, 1);
	CU_ASSERT_EQUAL(iq->disconnects, 1);
	CU_ASSERT_FALSE(rm.done);
	tt_queue_destroy(iq);
	tt_queue_destroy(aq);
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(rm.ret, 0);
	aq = tt_queue_create(env, 0, 32);
	CU_ASSERT_EQUAL(tt_connect(aq, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, &cqe),
			NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), 0x00010100);
	tt_queue_destroy(aq);
	teardown();
}

static const struct ut_case cases[] = {
	UT_CASE(test_subsystem_opts),
	UT_CASE(test_host_acl),
	UT_CASE(test_nqn_policy),
	UT_CASE(test_cntlid_allocation),
	UT_CASE(test_cntlid_exhausted),
	UT_CASE(test_namespace_table),
	UT_CASE(test_remove_with_controllers),
	UT_END,
};

UT_MAIN("target/subsys", cases)

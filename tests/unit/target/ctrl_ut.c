/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/ctrl.c: asynchronous events (AER held until an event,
 * completed through the admin queue's mailbox with the right DW0, masking
 * until the log is read, the AER limit, teardown), keep-alive expiry (only
 * the expired controller's queues are disconnected, traffic re-arms it),
 * and admin queue loss.
 */
#include <string.h>

#include "test_transport.h"
#include "ut.h"

static struct tt_env *env;
static struct tt_queue *aq;
static struct rblk_subsystem *ss;
static uint16_t cntlid;

static void setup(uint32_t kato)
{
	env = tt_env_create(NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	ss = tt_add_subsys(env, TT_SUBNQN, "mem:1M", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ss);
	aq = tt_queue_create(env, 0, 32);
	cntlid = tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, kato);
	CU_ASSERT_NOT_EQUAL_FATAL(cntlid, 0);
}

static void teardown(void)
{
	tt_queue_destroy(aq);
	aq = NULL;
	tt_env_destroy(env);
	env = NULL;
}

static struct tt_req *send_aer(struct tt_queue *q, uint16_t cid)
{
	struct nvme_sqe sqe;
	struct tt_req *tr;

	tt_sqe(&sqe, NVME_ADMIN_ASYNC_EVENT, cid, 0);
	tr = tt_send(q, &sqe, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tr);
	tt_pump(q->env);
	return tr;
}

static void add_ns(uint32_t nsid)
{
	struct rblk_ns_opts o;

	rblk_ns_opts_init(&o);
	o.path = "mem:64K";
	o.nsid = nsid;
	CU_ASSERT_EQUAL(rblk_subsystem_add_namespace(ss, &o, NULL), 0);
	tt_pump(env);
}

static void test_aer_completed_by_ns_add(void)
{
	struct tt_req *tr;
	uint32_t list[1024];

	setup(5000);
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_ASYNC_EVENT, NVME_AEN_CFG_NS_ATTR, NULL), 0);
	tr = send_aer(aq, 31);
	CU_ASSERT_FALSE(tr->done); /* held indefinitely */
	add_ns(2);
	CU_ASSERT_TRUE_FATAL(tr->done);
	CU_ASSERT_EQUAL(tt_status(&tr->cqe), 0);
	CU_ASSERT_EQUAL(rblk_le32(tr->cqe.dw0), 0x00040002);
	CU_ASSERT_EQUAL(rblk_le16(tr->cqe.cid), 31);
	tt_req_release(tr);

	/* Masked until the host reads log 04h without RAE. */
	tr = send_aer(aq, 31);
	add_ns(3);
	CU_ASSERT_FALSE(tr->done);
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_CHANGED_NS, 0xFFFFFFFF, 0, 4096, true, list), 0);
	CU_ASSERT_EQUAL(rblk_le32(list[0]), 2);
	CU_ASSERT_EQUAL(rblk_le32(list[1]), 3);
	add_ns(4);
	CU_ASSERT_FALSE(tr->done); /* RAE kept it masked */
	CU_ASSERT_EQUAL(tt_get_log(aq, NVME_LOG_CHANGED_NS, 0xFFFFFFFF, 0, 4096, false, list), 0);
	CU_ASSERT_EQUAL(rblk_le32(list[0]), 4);
	CU_ASSERT_EQUAL(rblk_subsystem_remove_namespace(ss, 4), 0);
	tt_pump(env);
	CU_ASSERT_TRUE(tr->done);
	CU_ASSERT_EQUAL(rblk_le32(tr->cqe.dw0), 0x00040002);
	tt_req_release(tr);
	teardown();
}

static void test_aer_needs_aec(void)
{
	struct tt_req *tr;

	setup(5000);
	tr = send_aer(aq, 31);
	add_ns(2);
	CU_ASSERT_FALSE(tr->done);
	/* The change is still in the log for a later read. */
	CU_ASSERT_EQUAL(aq->sq.ctrl->nr_changed_ns, 1);
	teardown();
	/* Torn down with the queue: completed (aborted) back to the transport. */
}

static void test_event_before_aer(void)
{
	struct tt_req *tr;

	setup(5000);
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_ASYNC_EVENT, NVME_AEN_CFG_NS_ATTR, NULL), 0);
	add_ns(2);
	/* The event waits for the AER, which then completes at once. */
	tr = send_aer(aq, 31);
	CU_ASSERT_TRUE(tr->done);
	CU_ASSERT_EQUAL(rblk_le32(tr->cqe.dw0), 0x00040002);
	tt_req_release(tr);
	teardown();
}

static void test_aer_limit_and_teardown(void)
{
	struct tt_req *tr[5];

	setup(5000);
	for (int i = 0; i < 4; i++) {
		tr[i] = send_aer(aq, (uint16_t)(100 + i));
		CU_ASSERT_FALSE(tr[i]->done);
	}
	tr[4] = send_aer(aq, 104);
	CU_ASSERT_TRUE_FATAL(tr[4]->done);
	CU_ASSERT_EQUAL(TT_SC(tt_status(&tr[4]->cqe)), NVME_SC_AER_LIMIT | NVME_SC_DNR);
	tt_req_release(tr[4]);

	/* Losing the admin queue hands the held AERs back, aborted. */
	rblk_sq_teardown(&aq->sq);
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_TRUE(tr[i]->done);
		CU_ASSERT_EQUAL(tt_status(&tr[i]->cqe), NVME_SC_ABORT_QUEUE | NVME_SC_DNR);
	}
	teardown();
}

static void test_aer_oldest_first(void)
{
	struct tt_req *a, *b;

	setup(5000);
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_ASYNC_EVENT, NVME_AEN_CFG_NS_ATTR, NULL), 0);
	a = send_aer(aq, 1);
	b = send_aer(aq, 2);
	add_ns(2);
	CU_ASSERT_TRUE(a->done);
	CU_ASSERT_FALSE(b->done);
	tt_req_release(a);
	teardown();
}

/* ------------------------------------------------------------------------ */

static void test_kato_expiry_disconnects_only_that_ctrl(void)
{
	struct tt_queue *iq, *aq2, *iq2;
	uint64_t last, csts;

	setup(1000);
	iq = tt_queue_create(env, 1, 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid, 0, 0, NULL), 0);
	aq2 = tt_queue_create(env, 0, 32);
	{
		uint16_t c2 = tt_admin_bringup(aq2, TT_SUBNQN, TT_HOSTNQN2, 1000);

		CU_ASSERT_NOT_EQUAL_FATAL(c2, 0);
		iq2 = tt_queue_create(env, 1, 0);
		CU_ASSERT_EQUAL_FATAL(tt_connect(iq2, TT_SUBNQN, TT_HOSTNQN2, 1, 127, c2, 0, 0,
						 NULL), 0);
	}
	/* Make ctrl 2 look recently active and ctrl 1 idle. */
	last = rblk_clock_ms();
	atomic_store(&aq->sq.last_cmd_ms, last);
	atomic_store(&iq->sq.last_cmd_ms, last);
	atomic_store(&aq2->sq.last_cmd_ms, last + 5000);
	atomic_store(&iq2->sq.last_cmd_ms, last + 5000);

	/*
	 * Within twice the KATO: nothing, a KATO and more of silence included (a
	 * fabric blip). The admin queue's next look is just past the deadline;
	 * the tick on an I/O queue never checks.
	 */
	CU_ASSERT_EQUAL(rblk_sq_tick(&aq->sq, last + 1000), last + 2001);
	CU_ASSERT_EQUAL(rblk_sq_tick(&aq->sq, last + 1500), last + 2001);
	CU_ASSERT_EQUAL(rblk_sq_tick(&aq->sq, last + 2000), last + 2001);
	CU_ASSERT_EQUAL(rblk_sq_tick(&iq->sq, last + 100000), UINT64_MAX);
	CU_ASSERT_EQUAL(aq->disconnects + iq->disconnects, 0);

	CU_ASSERT_EQUAL(rblk_sq_tick(&aq->sq, last + 2001), UINT64_MAX);
	CU_ASSERT_EQUAL(rblk_sq_tick(&aq2->sq, last + 2001), last + 7001);
	CU_ASSERT_EQUAL(aq->disconnects, 1);
	CU_ASSERT_EQUAL(iq->disconnects, 1);
	CU_ASSERT_EQUAL(aq2->disconnects, 0);
	CU_ASSERT_EQUAL(iq2->disconnects, 0);
	CU_ASSERT_TRUE(aq->sq.ctrl->csts & NVME_CSTS_CFS);
	CU_ASSERT_EQUAL(tt_prop_get(aq2, NVME_REG_CSTS, false, &csts), 0);
	CU_ASSERT_EQUAL(csts, NVME_CSTS_RDY);
	/* Once is enough. */
	CU_ASSERT_EQUAL(rblk_sq_tick(&aq->sq, last + 9000), UINT64_MAX);
	CU_ASSERT_EQUAL(aq->disconnects, 1);

	tt_queue_destroy(iq);
	tt_queue_destroy(iq2);
	tt_queue_destroy(aq2);
	teardown();
}

static void test_kato_traffic_rearms(void)
{
	struct tt_queue *iq;
	uint64_t t0;

	setup(1500); /* rounded up to 2 s, as nvmet */
	iq = tt_queue_create(env, 1, 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid, 0, 0, NULL), 0);
	t0 = rblk_clock_ms();
	atomic_store(&aq->sq.last_cmd_ms, t0);
	atomic_store(&iq->sq.last_cmd_ms, t0);
	/* 2 s, twice: the deadline is 4 s after the last command. */
	CU_ASSERT_EQUAL(rblk_sq_tick(&aq->sq, t0 + 1900), t0 + 4001);
	CU_ASSERT_EQUAL(aq->disconnects, 0);
	/* I/O traffic counts (TBKAS): no Keep Alive needed, and it moves the deadline. */
	atomic_store(&iq->sq.last_cmd_ms, t0 + 1500);
	CU_ASSERT_EQUAL(rblk_sq_tick(&aq->sq, t0 + 4001), t0 + 5501);
	CU_ASSERT_EQUAL(rblk_sq_tick(&aq->sq, t0 + 5000), t0 + 5501);
	CU_ASSERT_EQUAL(aq->disconnects, 0);
	rblk_sq_tick(&aq->sq, t0 + 5501);
	CU_ASSERT_EQUAL(aq->disconnects, 1);
	CU_ASSERT_EQUAL(iq->disconnects, 1);
	tt_queue_destroy(iq);
	teardown();
}

static void test_kato_zero_never_expires(void)
{
	setup(0);
	rblk_sq_tick(&aq->sq, rblk_clock_ms() + 10ull * 24 * 3600 * 1000);
	CU_ASSERT_EQUAL(aq->disconnects, 0);
	teardown();
}

/* The largest KATO a host can ask for: rounding it up to seconds must not wrap to 0. */
static void test_kato_max_does_not_wrap(void)
{
	uint64_t t0;

	setup(UINT32_MAX);
	t0 = rblk_clock_ms();
	atomic_store(&aq->sq.last_cmd_ms, t0);
	rblk_sq_tick(&aq->sq, t0 + 1000);
	CU_ASSERT_EQUAL(aq->disconnects, 0);
	rblk_sq_tick(&aq->sq, t0 + 2 * 4294968000ull);
	CU_ASSERT_EQUAL(aq->disconnects, 0);
	rblk_sq_tick(&aq->sq, t0 + 2 * 4294968000ull + 1);
	CU_ASSERT_EQUAL(aq->disconnects, 1);
	teardown();
}

static void test_kato_set_features_applies(void)
{
	uint64_t t0;

	setup(0);
	CU_ASSERT_EQUAL(tt_set_features(aq, NVME_FEAT_KATO, 1000, NULL), 0);
	t0 = rblk_clock_ms();
	atomic_store(&aq->sq.last_cmd_ms, t0);
	rblk_sq_tick(&aq->sq, t0 + 2000);
	CU_ASSERT_EQUAL(aq->disconnects, 0);
	rblk_sq_tick(&aq->sq, t0 + 2001);
	CU_ASSERT_EQUAL(aq->disconnects, 1);
	teardown();
}

static void test_discovery_default_kato(void)
{
	struct tt_queue *dq;
	uint64_t t0;

	setup(0);
	dq = tt_queue_create(env, 0, 32);
	CU_ASSERT_NOT_EQUAL_FATAL(tt_admin_bringup(dq, NVME_DISC_SUBSYS_NAME, TT_HOSTNQN, 0), 0);
	t0 = rblk_clock_ms();
	atomic_store(&dq->sq.last_cmd_ms, t0);
	rblk_sq_tick(&dq->sq, t0 + 240000);
	CU_ASSERT_EQUAL(dq->disconnects, 0);
	rblk_sq_tick(&dq->sq, t0 + 240001);
	CU_ASSERT_EQUAL(dq->disconnects, 1);
	tt_queue_destroy(dq);
	teardown();
}

static void test_admin_loss_disconnects_io(void)
{
	struct tt_queue *iq1, *iq2;

	setup(5000);
	iq1 = tt_queue_create(env, 1, 0);
	iq2 = tt_queue_create(env, 2, 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(iq1, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(iq2, TT_SUBNQN, TT_HOSTNQN, 2, 127, cntlid, 0, 0, NULL), 0);
	/* An I/O queue going away alone leaves the others be. */
	tt_queue_destroy(iq2);
	CU_ASSERT_EQUAL(iq1->disconnects, 0);
	CU_ASSERT_EQUAL(aq->disconnects, 0);
	tt_queue_destroy(aq);
	aq = NULL;
	CU_ASSERT_EQUAL(iq1->disconnects, 1);
	/* The controller lives until its last queue is gone. */
	CU_ASSERT_EQUAL(ss->nr_ctrls, 1);
	tt_queue_destroy(iq1);
	CU_ASSERT_EQUAL(ss->nr_ctrls, 0);
	teardown();
}

static const struct ut_case cases[] = {
	UT_CASE(test_aer_completed_by_ns_add),
	UT_CASE(test_aer_needs_aec),
	UT_CASE(test_event_before_aer),
	UT_CASE(test_aer_limit_and_teardown),
	UT_CASE(test_aer_oldest_first),
	UT_CASE(test_kato_expiry_disconnects_only_that_ctrl),
	UT_CASE(test_kato_max_does_not_wrap),
	UT_CASE(test_kato_traffic_rearms),
	UT_CASE(test_kato_zero_never_expires),
	UT_CASE(test_kato_set_features_applies),
	UT_CASE(test_discovery_default_kato),
	UT_CASE(test_admin_loss_disconnects_io),
	UT_END,
};

UT_MAIN("target/ctrl", cases)

/* SPDX-License-Identifier: MIT */
/*
 * Tests for initiator/queue.c's completion-channel wakeups (rblk_hq_arm,
 * rblk_hq_consume_wakeup, rblk_hq_drain_wakeups): a busy poller must make no
 * system call, a sleeper must never miss a wakeup nor find one left behind.
 * The three CQ calls are replaced at link time (-Wl,--wrap, see
 * CMakeLists.txt), so each "system call" is counted and scripted here.
 */
#include <errno.h>
#include <string.h>

#include "initiator/queue.h"
#include "transport/rdma.h"
#include "ut.h"

static struct {
	int notify_calls, event_calls, poll_calls;
	int events_ready;	/* wakeups waiting on the "channel" */
	int cqes;		/* completions the next poll returns */
} F;

int __wrap_rblk_cq_req_notify(struct rblk_cq *cq, bool solicited_only);
int __wrap_rblk_cq_get_event(struct rblk_cq *cq);
int __wrap_rblk_cq_poll(struct rblk_cq *cq, struct rblk_wc *wc, int n);

int __wrap_rblk_cq_req_notify(struct rblk_cq *cq, bool solicited_only)
{
	(void)cq;
	(void)solicited_only;
	F.notify_calls++;
	return 0;
}

int __wrap_rblk_cq_get_event(struct rblk_cq *cq)
{
	(void)cq;
	F.event_calls++;
	if (!F.events_ready)
		return 0;	/* EAGAIN */
	F.events_ready--;
	return 1;
}

/* Completions of an earlier connection (stale epoch): reaped and ignored. */
int __wrap_rblk_cq_poll(struct rblk_cq *cq, struct rblk_wc *wc, int n)
{
	int k = F.cqes < n ? F.cqes : n;

	(void)cq;
	F.poll_calls++;
	for (int i = 0; i < k; i++) {
		memset(&wc[i], 0, sizeof(wc[i]));
		wc[i].wr_id = 1ull << 62 | 4ull << 32 | (uint64_t)i;
	}
	F.cqes -= k;
	return k;
}

static void hq_init(struct rblk_hq *hq)
{
	memset(hq, 0, sizeof(*hq));
	memset(&F, 0, sizeof(F));
	hq->qid = 1;
	hq->epoch = 5;
	hq->cq = (struct rblk_cq *)&F;	/* never dereferenced: the calls are wrapped */
}

/* A spinning poller arms once per idle spell, then makes no call at all. */
static void test_arm_once_per_idle_spell(void)
{
	struct rblk_hq hq;

	hq_init(&hq);
	CU_ASSERT_EQUAL(rblk_hq_arm(&hq), 0);
	CU_ASSERT_TRUE(hq.cq_armed);
	for (int i = 0; i < 100; i++) {
		CU_ASSERT_EQUAL(rblk_hq_process(&hq, 32), 0);
		CU_ASSERT_EQUAL(rblk_hq_arm(&hq), 0);
		rblk_hq_consume_wakeup(&hq);
	}
	CU_ASSERT_EQUAL(F.notify_calls, 1);
	CU_ASSERT_EQUAL(F.event_calls, 0);	/* nothing reaped: nothing fired */
	CU_ASSERT_TRUE(hq.cq_armed);
	CU_ASSERT_FALSE(hq.cq_fired);
}

/* Reaping while armed means the wakeup fired: one read consumes it, then a new arm. */
static void test_consume_after_reap(void)
{
	struct rblk_hq hq;

	hq_init(&hq);
	rblk_hq_arm(&hq);
	F.cqes = 3;
	F.events_ready = 1;
	CU_ASSERT_EQUAL(rblk_hq_process(&hq, 32), 3);
	CU_ASSERT_TRUE(hq.cq_fired);
	rblk_hq_consume_wakeup(&hq);
	CU_ASSERT_EQUAL(F.event_calls, 1);	/* one arm, one wakeup, one read */
	CU_ASSERT_EQUAL(F.events_ready, 0);
	CU_ASSERT_FALSE(hq.cq_armed);
	CU_ASSERT_FALSE(hq.cq_fired);
	rblk_hq_consume_wakeup(&hq);
	CU_ASSERT_EQUAL(F.event_calls, 1);
	CU_ASSERT_EQUAL(rblk_hq_arm(&hq), 0);
	CU_ASSERT_EQUAL(F.notify_calls, 2);
}

/*
 * The wakeup may be queued a moment after the completion is visible: an empty
 * read keeps the state, and the next poll reads it, so it is never left on
 * the channel to keep a sleeper's fd readable.
 */
static void test_late_wakeup_is_read_later(void)
{
	struct rblk_hq hq;

	hq_init(&hq);
	rblk_hq_arm(&hq);
	F.cqes = 1;
	rblk_hq_process(&hq, 32);
	rblk_hq_consume_wakeup(&hq);
	CU_ASSERT_EQUAL(F.event_calls, 1);
	CU_ASSERT_TRUE(hq.cq_armed);
	CU_ASSERT_TRUE(hq.cq_fired);
	/* still armed: no second arm while its wakeup is outstanding */
	rblk_hq_arm(&hq);
	CU_ASSERT_EQUAL(F.notify_calls, 1);
	F.events_ready = 1;
	rblk_hq_consume_wakeup(&hq);
	CU_ASSERT_EQUAL(F.event_calls, 2);
	CU_ASSERT_EQUAL(F.events_ready, 0);
	CU_ASSERT_FALSE(hq.cq_armed);
}

/*
 * The bug this guards against: a wakeup that came late was read at the end
 * of a poll that had already decided not to arm (still armed then), so the
 * poll returned 0 with the CQ unarmed and a sleeper waited for its timeout.
 * rblk_hq_arm_idle() reads it first, then arms.
 */
static void test_idle_arm_after_late_wakeup(void)
{
	struct rblk_hq hq;

	hq_init(&hq);
	CU_ASSERT_TRUE(rblk_hq_arm_idle(&hq));	/* idle: armed */
	CU_ASSERT_EQUAL(F.notify_calls, 1);
	F.cqes = 1;
	rblk_hq_process(&hq, 32);
	rblk_hq_consume_wakeup(&hq);		/* the wakeup is not queued yet */
	CU_ASSERT_TRUE(hq.cq_armed);
	F.events_ready = 1;			/* now it is */
	CU_ASSERT_TRUE(rblk_hq_arm_idle(&hq));	/* read, then armed again */
	CU_ASSERT_EQUAL(F.events_ready, 0);
	CU_ASSERT_EQUAL(F.notify_calls, 2);
	CU_ASSERT_TRUE(hq.cq_armed);
	CU_ASSERT_FALSE(hq.cq_fired);
	/* still armed, nothing fired: no call at all */
	CU_ASSERT_FALSE(rblk_hq_arm_idle(&hq));
	CU_ASSERT_EQUAL(F.notify_calls, 2);
	CU_ASSERT_EQUAL(F.event_calls, 2);
}

/* Completions reaped while not armed raise no wakeup: nothing to read. */
static void test_reap_unarmed_reads_nothing(void)
{
	struct rblk_hq hq;

	hq_init(&hq);
	F.cqes = 5;
	CU_ASSERT_EQUAL(rblk_hq_process(&hq, 32), 5);
	CU_ASSERT_FALSE(hq.cq_fired);
	rblk_hq_consume_wakeup(&hq);
	CU_ASSERT_EQUAL(F.event_calls, 0);
}

/* The slow paths read whatever is there; a wakeup read ends the armed spell. */
static void test_drain(void)
{
	struct rblk_hq hq;

	hq_init(&hq);
	rblk_hq_drain_wakeups(&hq);
	CU_ASSERT_EQUAL(F.event_calls, 1);
	rblk_hq_arm(&hq);
	rblk_hq_drain_wakeups(&hq);
	CU_ASSERT_TRUE(hq.cq_armed);	/* armed, nothing fired yet */
	F.events_ready = 1;
	rblk_hq_drain_wakeups(&hq);
	CU_ASSERT_FALSE(hq.cq_armed);
	CU_ASSERT_EQUAL(F.events_ready, 0);
	CU_ASSERT_EQUAL(F.event_calls, 4);	/* each drain reads until empty */
}

/* A queue without a CQ yet (before its first connection). */
static void test_no_cq(void)
{
	struct rblk_hq hq;

	hq_init(&hq);
	hq.cq = NULL;
	CU_ASSERT_EQUAL(rblk_hq_arm(&hq), 0);
	CU_ASSERT_FALSE(hq.cq_armed);
	rblk_hq_drain_wakeups(&hq);
	CU_ASSERT_EQUAL(rblk_hq_process(&hq, 32), 0);
	CU_ASSERT_EQUAL(F.notify_calls + F.event_calls + F.poll_calls, 0);
}

static const struct ut_case cases[] = {
	UT_CASE(test_arm_once_per_idle_spell),
	UT_CASE(test_consume_after_reap),
	UT_CASE(test_late_wakeup_is_read_later),
	UT_CASE(test_idle_arm_after_late_wakeup),
	UT_CASE(test_reap_unarmed_reads_nothing),
	UT_CASE(test_drain),
	UT_CASE(test_no_cq),
	UT_END,
};

UT_MAIN("initiator/queue (wakeups)", cases)

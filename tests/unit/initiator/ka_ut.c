/* SPDX-License-Identifier: MIT */
/*
 * Tests for initiator/ka.c: a Keep Alive every KATO/2, one at a time; no
 * answer within KATO is a lost connection; a late answer is looked for every
 * so often, never in a loop (the due time must not stay in the past, or the
 * controller thread's poll timeout is 0 and it spins until KATO runs out).
 * The admin queue has no QP here: a "sent" Keep Alive waits in its queue.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "initiator/ctrl.h"
#include "ut.h"

static struct rblk_ctrl C;
static struct nvme_sqe sqes[4];

static void env_init(uint32_t kato_ms)
{
	struct rblk_hq *a = &C.admin;

	memset(&C, 0, sizeof(C));
	memset(sqes, 0, sizeof(sqes));
	pthread_mutex_init(&C.lock, NULL);
	atomic_init(&C.state, RBLK_CTRL_LIVE);
	atomic_init(&C.ka_next_ms, UINT64_MAX);
	C.wake_fd = -1;
	C.kato_ms = kato_ms;
	a->ctrl = &C;
	a->qid = 0;
	a->depth = 3;
	pthread_mutex_init(&a->lock, NULL);
	CU_ASSERT_EQUAL_FATAL(rblk_slots_init(&a->slots, 4, 1), 0);
	for (unsigned i = 0; i < 4; i++)
		a->slots.s[i].sqe = &sqes[i];
	a->state = RBLK_HQ_LIVE;
}

static void env_fini(void)
{
	rblk_slots_fini(&C.admin.slots);
}

static unsigned queued(void)
{
	unsigned n = 0;

	for (struct rblk_slot *s = C.admin.queued_head; s; s = s->next)
		n++;
	return n;
}

/* KATO 5 s: the first Keep Alive at 2.5 s, and only one until it is answered. */
static void test_cadence(void)
{
	env_init(5000);
	rblk_ka_start(&C, 1000);
	CU_ASSERT_EQUAL(rblk_ka_deadline(&C), 3500);
	CU_ASSERT_EQUAL(rblk_ka_tick_locked(&C, 2000), 0);
	CU_ASSERT_EQUAL(queued(), 0);
	CU_ASSERT_EQUAL(rblk_ka_tick_locked(&C, 3500), 0);
	CU_ASSERT_EQUAL(queued(), 1);
	CU_ASSERT_TRUE(C.ka_outstanding);
	CU_ASSERT_EQUAL(C.admin.queued_head->sqe->opc, NVME_ADMIN_KEEP_ALIVE);
	CU_ASSERT_EQUAL(rblk_ka_deadline(&C), 6000);
	CU_ASSERT_EQUAL(rblk_ka_tick_locked(&C, 4000), 0);
	CU_ASSERT_EQUAL(queued(), 1);
	env_fini();
}

/* No answer: rechecked every 100 ms from the due time, lost at KATO, no busy loop. */
static void test_late_answer_rechecked_not_spun(void)
{
	uint64_t now, d;
	unsigned ticks = 0;

	env_init(5000);
	rblk_ka_start(&C, 0);
	CU_ASSERT_EQUAL(rblk_ka_tick_locked(&C, 2500), 0);	/* sent at 2.5 s */
	/* The controller thread's loop: sleep until the deadline, tick. */
	for (now = 5000; ticks < 1000; ticks++) {
		int ret = rblk_ka_tick_locked(&C, now);

		if (ret) {
			CU_ASSERT_EQUAL(ret, -ETIMEDOUT);
			break;
		}
		d = rblk_ka_deadline(&C);
		CU_ASSERT(d > now);	/* a deadline in the past is a spinning thread */
		if (d <= now)
			break;
		now = d;
	}
	CU_ASSERT_EQUAL(now, 7500);	/* sent + KATO */
	CU_ASSERT(ticks >= 20 && ticks <= 30);	/* every 100 ms, not every call */
	CU_ASSERT_EQUAL(queued(), 1);	/* and never a second Keep Alive meanwhile */
	env_fini();
}

/* KATO 0: no Keep Alive at all. */
static void test_kato_zero(void)
{
	env_init(0);
	rblk_ka_start(&C, 0);
	CU_ASSERT_EQUAL(rblk_ka_deadline(&C), UINT64_MAX);
	CU_ASSERT_EQUAL(rblk_ka_tick_locked(&C, 1000000), 0);
	CU_ASSERT_EQUAL(queued(), 0);
	env_fini();
}

static const struct ut_case cases[] = {
	UT_CASE(test_cadence),
	UT_CASE(test_late_answer_rechecked_not_spun),
	UT_CASE(test_kato_zero),
	UT_END,
};

UT_MAIN("initiator/ka", cases)

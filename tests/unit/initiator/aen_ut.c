/* SPDX-License-Identifier: MIT */
/*
 * Tests for initiator/aen.c: which notices the host turns on, one
 * Asynchronous Event Request outstanding at a time, what each kind of
 * completion records and whom it wakes, and when no request is sent again.
 * The admin queue has no QP here: a posted request waits in its queue.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "initiator/ctrl.h"
#include "protocol/nvme_id.h"
#include "protocol/nvme_log.h"
#include "protocol/nvme_status.h"
#include "ut.h"

static struct rblk_ctrl C;
static struct nvme_sqe sqes[4];
static int head_fd;

static void env_init(void)
{
	struct rblk_hq *a = &C.admin;

	memset(&C, 0, sizeof(C));
	memset(sqes, 0, sizeof(sqes));
	pthread_mutex_init(&C.lock, NULL);
	atomic_init(&C.state, RBLK_CTRL_LIVE);
	C.wake_fd = eventfd(0, EFD_NONBLOCK);
	head_fd = eventfd(0, EFD_NONBLOCK);
	CU_ASSERT_FATAL(C.wake_fd >= 0 && head_fd >= 0);
	atomic_init(&C.event_fd, head_fd);
	a->ctrl = &C;
	a->depth = 3;
	pthread_mutex_init(&a->lock, NULL);
	CU_ASSERT_EQUAL_FATAL(rblk_slots_init(&a->slots, 4, 1), 0);
	for (unsigned i = 0; i < 4; i++)
		a->slots.s[i].sqe = &sqes[i];
	a->state = RBLK_HQ_LIVE;
	C.aer_on = true;
}

static void env_fini(void)
{
	rblk_slots_fini(&C.admin.slots);
	close(C.wake_fd);
	close(head_fd);
}

static unsigned queued_aers(void)
{
	unsigned n = 0;

	for (struct rblk_slot *s = C.admin.queued_head; s; s = s->next)
		n += s->sqe->opc == NVME_ADMIN_ASYNC_EVENT;
	return n;
}

/* How many times @fd was written since the last call (0 when never). */
static uint64_t taken(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/* Only the notices the host acts on, and only those the controller offers. */
static void test_config(void)
{
	CU_ASSERT_EQUAL(rblk_aen_config(0), 0);
	CU_ASSERT_EQUAL(rblk_aen_config(0xFFFFFFFF), NVME_AEN_CFG_NS_ATTR | NVME_AEN_CFG_ANA_CHANGE);
	CU_ASSERT_EQUAL(rblk_aen_config(NVME_CTRL_OAES_ANA_CHANGE | NVME_CTRL_OAES_FW_ACT),
			NVME_AEN_CFG_ANA_CHANGE);
	CU_ASSERT_EQUAL(rblk_aen_config(NVME_CTRL_OAES_DISC_CHANGE), 0);
}

/* One request at a time, and none when the connection does not want them. */
static void test_one_outstanding(void)
{
	env_init();
	rblk_aen_post_locked(&C);
	CU_ASSERT_EQUAL(queued_aers(), 1);
	CU_ASSERT_TRUE(C.aer_outstanding);
	rblk_aen_post_locked(&C);
	CU_ASSERT_EQUAL(queued_aers(), 1);
	env_fini();

	env_init();
	C.aer_on = false;	/* a discovery or oneshot controller */
	rblk_aen_post_locked(&C);
	CU_ASSERT_EQUAL(queued_aers(), 0);
	CU_ASSERT_FALSE(C.aer_outstanding);
	env_fini();
}

/* An ANA change notice counts, wakes the head at once and the controller thread (next request). */
static void test_ana_notice(void)
{
	env_init();
	rblk_aen_post_locked(&C);
	rblk_aen_complete_locked(&C, 0, 0,
				 nvme_aen_dw0(NVME_AER_TYPE_NOTICE, NVME_AER_NOTICE_ANA, NVME_LOG_ANA));
	CU_ASSERT_FALSE(C.aer_outstanding);
	CU_ASSERT_EQUAL(atomic_load(&C.ana_events), 1);
	CU_ASSERT_EQUAL(taken(head_fd), 1);
	CU_ASSERT_EQUAL(taken(C.wake_fd), 1);
	CU_ASSERT_EQUAL(atomic_load(&C.aen_pending), 0);	/* the head reads the log, not us */
	rblk_aen_complete_locked(&C, 0, 0,
				 nvme_aen_dw0(NVME_AER_TYPE_NOTICE, NVME_AER_NOTICE_ANA, NVME_LOG_ANA));
	CU_ASSERT_EQUAL(atomic_load(&C.ana_events), 2);
	CU_ASSERT_EQUAL(taken(head_fd), 1);
	env_fini();
}

/* A namespace notice is work for the controller thread; no head is bothered. */
static void test_ns_notice(void)
{
	env_init();
	rblk_aen_complete_locked(&C, 0, 0,
				 nvme_aen_dw0(NVME_AER_TYPE_NOTICE, NVME_AER_NOTICE_NS_CHANGED,
					      NVME_LOG_CHANGED_NS));
	CU_ASSERT_NOT_EQUAL(atomic_load(&C.aen_pending), 0);
	CU_ASSERT_EQUAL(atomic_load(&C.ana_events), 0);
	CU_ASSERT_EQUAL(taken(head_fd), 0);
	CU_ASSERT_EQUAL(taken(C.wake_fd), 1);
	env_fini();
}

/* Error and health events are kept for the thread (it reads their log page). */
static void test_error_and_smart_events(void)
{
	uint32_t ns_only;

	env_init();
	rblk_aen_complete_locked(&C, 0, 0,
				 nvme_aen_dw0(NVME_AER_TYPE_NOTICE, NVME_AER_NOTICE_NS_CHANGED, 4));
	ns_only = atomic_exchange(&C.aen_pending, 0);
	rblk_aen_complete_locked(&C, 0, 0, nvme_aen_dw0(NVME_AER_TYPE_ERROR, 0x01, NVME_LOG_ERROR));
	CU_ASSERT_NOT_EQUAL(atomic_load(&C.aen_pending), 0);
	CU_ASSERT_NOT_EQUAL(atomic_load(&C.aen_pending), ns_only);
	atomic_store(&C.aen_pending, 0);
	rblk_aen_complete_locked(&C, 0, 0, nvme_aen_dw0(NVME_AER_TYPE_SMART, 0x01, NVME_LOG_SMART));
	CU_ASSERT_NOT_EQUAL(atomic_load(&C.aen_pending), 0);
	CU_ASSERT_NOT_EQUAL(atomic_load(&C.aen_pending), ns_only);
	CU_ASSERT_EQUAL(atomic_load(&C.ana_events), 0);
	env_fini();
}

/*
 * The connection went (the queue completes the request with -ENOTCONN):
 * nothing happened, and the next connection asks again. Driven through the
 * queue, so the request's own completion function is what is tested.
 */
static void test_connection_loss_keeps_asking(void)
{
	env_init();
	rblk_aen_post_locked(&C);
	rblk_hq_fail_queued(&C.admin, -ENOTCONN);
	CU_ASSERT_EQUAL(queued_aers(), 0);
	CU_ASSERT_FALSE(C.aer_outstanding);
	CU_ASSERT_EQUAL(atomic_load(&C.ana_events), 0);
	CU_ASSERT_EQUAL(taken(C.wake_fd), 0);
	CU_ASSERT_TRUE(C.aer_on);
	rblk_aen_post_locked(&C);
	CU_ASSERT_EQUAL(queued_aers(), 1);
	env_fini();
}

/* An error status (aborted, or over the limit): no more requests on this connection. */
static void test_error_status_stops(void)
{
	env_init();
	rblk_aen_post_locked(&C);
	rblk_aen_complete_locked(&C, 0, NVME_SC_ABORT_REQ, 0);
	CU_ASSERT_FALSE(C.aer_on);
	CU_ASSERT_EQUAL(atomic_load(&C.ana_events), 0);
	rblk_hq_fail_queued(&C.admin, -ENOTCONN);	/* drop the one in the queue */
	rblk_aen_post_locked(&C);
	CU_ASSERT_EQUAL(queued_aers(), 0);
	env_fini();
}

/* The controller thread watches the admin CQ only while a request is out. */
static void test_watch_only_while_outstanding(void)
{
	env_init();
	CU_ASSERT_FALSE(rblk_aen_watch_locked(&C));
	rblk_aen_post_locked(&C);
	CU_ASSERT_TRUE(rblk_aen_watch_locked(&C));
	C.admin.state = RBLK_HQ_FAILED;
	CU_ASSERT_FALSE(rblk_aen_watch_locked(&C));
	env_fini();
}

static const struct ut_case cases[] = {
	UT_CASE(test_config),
	UT_CASE(test_one_outstanding),
	UT_CASE(test_ana_notice),
	UT_CASE(test_ns_notice),
	UT_CASE(test_error_and_smart_events),
	UT_CASE(test_connection_loss_keeps_asking),
	UT_CASE(test_error_status_stops),
	UT_CASE(test_watch_only_while_outstanding),
	UT_END,
};

UT_MAIN("initiator/aen", cases)

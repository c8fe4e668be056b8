/* SPDX-License-Identifier: MIT */
/*
 * Tests for initiator/reconnect.c: the reconnect state machine stepped one
 * transition at a time with a fake clock (milliseconds), with the kernel's
 * reconnect_delay / ctrl_loss_tmo semantics.
 */
#include <errno.h>

#include "initiator/reconnect.h"
#include "ut.h"

static void test_init(void)
{
	struct rblk_rc rc;

	CU_ASSERT_EQUAL(rblk_rc_init(&rc, 0, 600), -EINVAL);
	CU_ASSERT_EQUAL(rblk_rc_init(&rc, -1, 600), -EINVAL);
	CU_ASSERT_EQUAL(rblk_rc_init(&rc, 10, 600), 0);
	CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_LIVE);
	CU_ASSERT_EQUAL(rc.max_reconnects, 60);
	CU_ASSERT_EQUAL(rc.delay_ms, 10000);
	rblk_rc_init(&rc, 10, 5);
	CU_ASSERT_EQUAL(rc.max_reconnects, 1);	/* DIV_ROUND_UP */
	rblk_rc_init(&rc, 3, 10);
	CU_ASSERT_EQUAL(rc.max_reconnects, 4);
	rblk_rc_init(&rc, 1, -1);
	CU_ASSERT_EQUAL(rc.max_reconnects, -1);
	rblk_rc_init(&rc, 10, 0);
	CU_ASSERT_EQUAL(rc.max_reconnects, 0);
	CU_ASSERT_EQUAL(rblk_rc_deadline(&rc), UINT64_MAX);
}

static void test_live_ignores_noise(void)
{
	struct rblk_rc rc;

	rblk_rc_init(&rc, 10, 600);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_TICK, 5), RBLK_RC_ACT_NONE);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONNECTED, 6), RBLK_RC_ACT_NONE);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONNECT_FAILED, 7), RBLK_RC_ACT_NONE);
	CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_LIVE);
}

/* Loss at t=1000, delay 10 s, 3 attempts (ctrl_loss_tmo 25 s): all fail -> LOST. */
static void test_loss_then_lost(void)
{
	struct rblk_rc rc;

	rblk_rc_init(&rc, 10, 25);
	CU_ASSERT_EQUAL(rc.max_reconnects, 3);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONN_LOST, 1000), RBLK_RC_ACT_TEARDOWN);
	CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_RECONNECTING);
	CU_ASSERT_EQUAL(rblk_rc_deadline(&rc), 11000);
	/* More losses from other queues while reconnecting change nothing. */
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONN_LOST, 1001), RBLK_RC_ACT_NONE);
	CU_ASSERT_EQUAL(rblk_rc_deadline(&rc), 11000);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_TICK, 10999), RBLK_RC_ACT_NONE);

	for (int i = 0; i < 3; i++) {
		uint64_t t = 11000 + (uint64_t)i * 12000;

		CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_TICK, t), RBLK_RC_ACT_CONNECT);
		CU_ASSERT_TRUE(rc.attempting);
		CU_ASSERT_EQUAL(rblk_rc_deadline(&rc), UINT64_MAX);
		/* While the attempt runs, ticks wait for its result. */
		CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_TICK, t + 500), RBLK_RC_ACT_NONE);
		if (i < 2) {
			CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONNECT_FAILED, t + 2000),
					RBLK_RC_ACT_NONE);
			CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_RECONNECTING);
			CU_ASSERT_EQUAL(rc.nr_reconnects, i + 1);
			/* The next attempt a full delay after this one ended. */
			CU_ASSERT_EQUAL(rblk_rc_deadline(&rc), t + 12000);
		} else {
			CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONNECT_FAILED, t + 2000),
					RBLK_RC_ACT_FAIL_IO);
			CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_LOST);
		}
	}
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_TICK, 100000), RBLK_RC_ACT_NONE);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONN_LOST, 100001), RBLK_RC_ACT_NONE);
	CU_ASSERT_EQUAL(rblk_rc_deadline(&rc), UINT64_MAX);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_DELETE, 100002), RBLK_RC_ACT_NONE);
	CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_DELETING);
}

/*
 * Attempts that each take 80 s (a CM waiting out a total outage), delay 2 s,
 * ctrl_loss_tmo 120 s: 60 attempts by count, but the one that fails past 120 s
 * after the loss is the last. Counted alone they would take 82 minutes.
 */
static void test_slow_attempts_bounded_by_time(void)
{
	struct rblk_rc rc;

	rblk_rc_init(&rc, 2, 120);
	CU_ASSERT_EQUAL(rc.max_reconnects, 60);
	CU_ASSERT_EQUAL(rc.loss_ms, 120000);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONN_LOST, 1000), RBLK_RC_ACT_TEARDOWN);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_TICK, 3000), RBLK_RC_ACT_CONNECT);
	/* 82 s after the loss: time left, attempts left. */
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONNECT_FAILED, 83000), RBLK_RC_ACT_NONE);
	CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_RECONNECTING);
	CU_ASSERT_EQUAL(rblk_rc_deadline(&rc), 85000);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_TICK, 85000), RBLK_RC_ACT_CONNECT);
	/* 164 s: past the 120 s, with 58 attempts still "left". */
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONNECT_FAILED, 165000), RBLK_RC_ACT_FAIL_IO);
	CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_LOST);
	CU_ASSERT_EQUAL(rc.nr_reconnects, 2);

	/* An attempt that succeeds past the time still counts: nothing failed. */
	rblk_rc_init(&rc, 2, 120);
	rblk_rc_step(&rc, RBLK_RC_EV_CONN_LOST, 0);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_TICK, 2000), RBLK_RC_ACT_CONNECT);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONNECTED, 200000), RBLK_RC_ACT_RESUME);
	CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_LIVE);

	/* Forever stays forever however long the attempts take. */
	rblk_rc_init(&rc, 2, -1);
	CU_ASSERT_EQUAL(rc.loss_ms, UINT64_MAX);
	rblk_rc_step(&rc, RBLK_RC_EV_CONN_LOST, 0);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_TICK, 2000), RBLK_RC_ACT_CONNECT);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONNECT_FAILED, 86400000), RBLK_RC_ACT_NONE);
	CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_RECONNECTING);
}

static void test_reconnect_succeeds(void)
{
	struct rblk_rc rc;

	rblk_rc_init(&rc, 2, 600);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONN_LOST, 0), RBLK_RC_ACT_TEARDOWN);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_TICK, 2000), RBLK_RC_ACT_CONNECT);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONNECT_FAILED, 2100), RBLK_RC_ACT_NONE);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_TICK, 4099), RBLK_RC_ACT_NONE);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_TICK, 4100), RBLK_RC_ACT_CONNECT);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONNECTED, 4200), RBLK_RC_ACT_RESUME);
	CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_LIVE);
	CU_ASSERT_EQUAL(rc.nr_reconnects, 0);
	CU_ASSERT_EQUAL(rc.lost_at_ms, 0);
	/* A second loss starts counting again. */
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONN_LOST, 9000), RBLK_RC_ACT_TEARDOWN);
	CU_ASSERT_EQUAL(rc.lost_at_ms, 9000);
	CU_ASSERT_EQUAL(rblk_rc_deadline(&rc), 11000);
}

static void test_no_reconnect(void)
{
	struct rblk_rc rc;

	/* ctrl_loss_tmo 0: down, then lost at the next tick, never an attempt. */
	rblk_rc_init(&rc, 10, 0);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONN_LOST, 500), RBLK_RC_ACT_TEARDOWN);
	CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_RECONNECTING);
	CU_ASSERT_EQUAL(rblk_rc_deadline(&rc), 500);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_TICK, 500), RBLK_RC_ACT_FAIL_IO);
	CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_LOST);
}

static void test_forever(void)
{
	struct rblk_rc rc;
	uint64_t t = 0;

	rblk_rc_init(&rc, 1, -1);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONN_LOST, t), RBLK_RC_ACT_TEARDOWN);
	for (int i = 0; i < 1000; i++) {
		t += 1000;
		CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_TICK, t), RBLK_RC_ACT_CONNECT);
		CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONNECT_FAILED, t), RBLK_RC_ACT_NONE);
	}
	CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_RECONNECTING);
	CU_ASSERT_EQUAL(rc.nr_reconnects, 1000);
}

static void test_delete(void)
{
	struct rblk_rc rc;

	rblk_rc_init(&rc, 10, 600);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_DELETE, 0), RBLK_RC_ACT_NONE);
	CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_DELETING);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONN_LOST, 1), RBLK_RC_ACT_NONE);
	CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_DELETING);

	/* Deleted while reconnecting: the kept I/O must fail. */
	rblk_rc_init(&rc, 10, 600);
	rblk_rc_step(&rc, RBLK_RC_EV_CONN_LOST, 0);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_TICK, 10000), RBLK_RC_ACT_CONNECT);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_DELETE, 10001), RBLK_RC_ACT_FAIL_IO);
	CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_DELETING);
	/* The attempt's late result is ignored. */
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONNECTED, 10002), RBLK_RC_ACT_NONE);
	CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_DELETING);
}

static void test_unexpected_results(void)
{
	struct rblk_rc rc;

	rblk_rc_init(&rc, 10, 600);
	rblk_rc_step(&rc, RBLK_RC_EV_CONN_LOST, 0);
	/* No attempt running: a result is noise. */
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONNECTED, 1), RBLK_RC_ACT_NONE);
	CU_ASSERT_EQUAL(rblk_rc_step(&rc, RBLK_RC_EV_CONNECT_FAILED, 2), RBLK_RC_ACT_NONE);
	CU_ASSERT_EQUAL(rc.state, RBLK_CTRL_RECONNECTING);
	CU_ASSERT_EQUAL(rc.nr_reconnects, 0);
}

static void test_names(void)
{
	CU_ASSERT_STRING_EQUAL(rblk_ctrl_state_str(RBLK_CTRL_LIVE), "live");
	CU_ASSERT_STRING_EQUAL(rblk_ctrl_state_str(RBLK_CTRL_RECONNECTING), "reconnecting");
	CU_ASSERT_STRING_EQUAL(rblk_ctrl_state_str(RBLK_CTRL_DELETING), "deleting");
	CU_ASSERT_STRING_EQUAL(rblk_ctrl_state_str(RBLK_CTRL_LOST), "lost");
	CU_ASSERT_STRING_EQUAL(rblk_ctrl_state_str((enum rblk_ctrl_state)99), "?");
	for (int e = RBLK_RC_EV_CONN_LOST; e <= RBLK_RC_EV_DELETE; e++)
		CU_ASSERT_STRING_NOT_EQUAL(rblk_rc_event_str((enum rblk_rc_event)e), "?");
	for (int a = RBLK_RC_ACT_NONE; a <= RBLK_RC_ACT_FAIL_IO; a++)
		CU_ASSERT_STRING_NOT_EQUAL(rblk_rc_action_str((enum rblk_rc_action)a), "?");
}

static const struct ut_case cases[] = {
	UT_CASE(test_init),
	UT_CASE(test_live_ignores_noise),
	UT_CASE(test_loss_then_lost),
	UT_CASE(test_slow_attempts_bounded_by_time),
	UT_CASE(test_reconnect_succeeds),
	UT_CASE(test_no_reconnect),
	UT_CASE(test_forever),
	UT_CASE(test_delete),
	UT_CASE(test_unexpected_results),
	UT_CASE(test_names),
	UT_END,
};

UT_MAIN("initiator/reconnect", cases)

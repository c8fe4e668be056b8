/* SPDX-License-Identifier: MIT */
/*
 * Tests for cli/io_park.c against a queue pair stub that keeps the library's
 * rules: a full queue pair answers -EAGAIN, a lost controller -ENOTCONN on
 * submit, and rblk_poll() says -ENOTCONN only when it holds no request.
 */
#include <errno.h>
#include <string.h>

#include "cli/io_park.h"
#include "ut.h"

#define CAP 2

struct rblk_qpair {
	struct rblk_io *held[8];
	rblk_io_cb cb[8];
	void *arg[8];
	unsigned n;
	bool lost;
	int fail_submit;	/* next submit fails with this */
};

static struct rblk_qpair Q;

int rblk_submit(struct rblk_qpair *qp, struct rblk_io *io, rblk_io_cb cb, void *arg)
{
	if (qp->fail_submit) {
		int e = qp->fail_submit;

		qp->fail_submit = 0;
		return e;
	}
	if (qp->lost)
		return -ENOTCONN;
	if (qp->n == CAP)
		return -EAGAIN;
	qp->held[qp->n] = io;
	qp->cb[qp->n] = cb;
	qp->arg[qp->n++] = arg;
	return 0;
}

/* Completes everything held: with -ENOTCONN once lost, else success. */
int rblk_poll(struct rblk_qpair *qp, unsigned max)
{
	unsigned n = qp->n;

	(void)max;
	if (!n)
		return qp->lost ? -ENOTCONN : 0;
	qp->n = 0;
	for (unsigned i = 0; i < n; i++)
		qp->cb[i](qp->held[i], 0, qp->lost ? -ENOTCONN : 0, qp->arg[i]);
	return (int)n;
}

struct slot {
	struct rblk_park_slot ps;
	unsigned answers;
	int err;
};

static struct slot S[4];
static struct rblk_park P;
static unsigned order[16], norder;

static void done(struct rblk_io *io, uint16_t status, int err, void *arg)
{
	struct slot *s = (struct slot *)io;

	CU_ASSERT_PTR_EQUAL(arg, &P);
	CU_ASSERT_EQUAL(status, 0);
	s->answers++;
	s->err = err;
	order[norder++] = (unsigned)(s - S);
}

static void setup(void)
{
	memset(&Q, 0, sizeof(Q));
	memset(S, 0, sizeof(S));
	norder = 0;
	rblk_park_init(&P, &Q, S, sizeof(S[0]), 4, done, &P);
}

static void test_full_queue_parks_in_order(void)
{
	setup();
	for (unsigned i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(rblk_park_start(&P, &S[i].ps), 0);
	CU_ASSERT_EQUAL(S[0].ps.state, RBLK_PARK_SUBMITTED);
	CU_ASSERT_EQUAL(S[2].ps.state, RBLK_PARK_PARKED);
	CU_ASSERT_EQUAL(S[3].ps.state, RBLK_PARK_PARKED);
	CU_ASSERT_TRUE(rblk_park_waiting(&P));
	/* 0 and 1 complete, 2 and 3 go in, in the order they came */
	CU_ASSERT_EQUAL(rblk_park_poll(&P, 0), 2);
	CU_ASSERT_FALSE(rblk_park_waiting(&P));
	CU_ASSERT_PTR_EQUAL(Q.held[0], &S[2].ps.io);
	CU_ASSERT_PTR_EQUAL(Q.held[1], &S[3].ps.io);
	CU_ASSERT_EQUAL(rblk_park_poll(&P, 0), 2);
	for (unsigned i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(order[i], i);
		CU_ASSERT_EQUAL(S[i].answers, 1);
		CU_ASSERT_EQUAL(S[i].ps.state, RBLK_PARK_FREE);
	}
}

static void test_start_refuses_busy_slot(void)
{
	setup();
	CU_ASSERT_EQUAL(rblk_park_start(&P, &S[0].ps), 0);
	CU_ASSERT_EQUAL(rblk_park_start(&P, &S[0].ps), -EBUSY);
	Q.fail_submit = -EINVAL;
	CU_ASSERT_EQUAL(rblk_park_start(&P, &S[1].ps), -EINVAL);
	CU_ASSERT_EQUAL(S[1].ps.state, RBLK_PARK_FREE);
	CU_ASSERT_EQUAL(S[1].answers, 0);	/* refused at start: the caller answers */
}

/* A parked request whose resubmission fails is answered once, with that error. */
static void test_parked_resubmit_fails(void)
{
	setup();
	for (unsigned i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(rblk_park_start(&P, &S[i].ps), 0);
	Q.lost = true;
	CU_ASSERT_EQUAL(rblk_park_poll(&P, 0), 3);
	CU_ASSERT_EQUAL(S[2].answers, 1);
	CU_ASSERT_EQUAL(S[2].err, -ENOTCONN);
	CU_ASSERT_EQUAL(S[2].ps.state, RBLK_PARK_FREE);
	CU_ASSERT_EQUAL(rblk_park_poll(&P, 0), -ENOTCONN);
}

static void test_fail_parked_leaves_submitted(void)
{
	setup();
	for (unsigned i = 0; i < 3; i++)
		rblk_park_start(&P, &S[i].ps);
	CU_ASSERT_EQUAL(rblk_park_fail_parked(&P, -EIO), 1);
	CU_ASSERT_EQUAL(S[2].answers, 1);
	CU_ASSERT_EQUAL(S[2].err, -EIO);
	CU_ASSERT_EQUAL(S[0].answers, 0);
	CU_ASSERT_EQUAL(S[0].ps.state, RBLK_PARK_SUBMITTED);
	CU_ASSERT_EQUAL(rblk_park_poll(&P, 0), 2);
	CU_ASSERT_EQUAL(S[0].answers, 1);
}

/* Given up on: answered now, and the library's late callback changes nothing. */
static void test_abandon_swallows_late_callback(void)
{
	setup();
	for (unsigned i = 0; i < 3; i++)
		rblk_park_start(&P, &S[i].ps);
	CU_ASSERT_EQUAL(rblk_park_abandon(&P, -EIO), 3);
	CU_ASSERT_EQUAL(S[0].ps.state, RBLK_PARK_ABANDONED);
	CU_ASSERT_EQUAL(rblk_park_start(&P, &S[0].ps), -EBUSY);
	CU_ASSERT_EQUAL(rblk_park_poll(&P, 0), 2);	/* the library calls back */
	for (unsigned i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(S[i].answers, 1);
		CU_ASSERT_EQUAL(S[i].err, -EIO);
		CU_ASSERT_EQUAL(S[i].ps.state, RBLK_PARK_FREE);
	}
}

static void test_state_names(void)
{
	CU_ASSERT_STRING_EQUAL(rblk_park_state_str(RBLK_PARK_FREE), "free");
	CU_ASSERT_STRING_EQUAL(rblk_park_state_str(RBLK_PARK_ABANDONED), "abandoned");
	CU_ASSERT_STRING_EQUAL(rblk_park_state_str((enum rblk_park_state)99), "?");
}

static const struct ut_case cases[] = {
	UT_CASE(test_full_queue_parks_in_order),
	UT_CASE(test_start_refuses_busy_slot),
	UT_CASE(test_parked_resubmit_fails),
	UT_CASE(test_fail_parked_leaves_submitted),
	UT_CASE(test_abandon_swallows_late_callback),
	UT_CASE(test_state_names),
	UT_END,
};

UT_MAIN("cli/io_park", cases)

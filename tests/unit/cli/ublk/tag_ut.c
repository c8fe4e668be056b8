/* SPDX-License-Identifier: MIT */
/* Tests for cli/ublk/tag.c: the per-tag state machine, one transition at a time. */
#include <errno.h>
#include <string.h>

#include "cli/ublk/tag.h"
#include "cli/ublk/uapi.h"
#include "ut.h"

static void test_request_round_trip(void)
{
	struct rblk_ublk_tag t = { 0 };

	CU_ASSERT_EQUAL(t.state, RBLK_UBLK_TAG_IDLE);
	CU_ASSERT_EQUAL(rblk_ublk_tag_fetch_sent(&t), 0);
	CU_ASSERT_EQUAL(t.state, RBLK_UBLK_TAG_FETCHING);
	CU_ASSERT_EQUAL(rblk_ublk_tag_cqe(&t, UBLK_IO_RES_OK), 1);
	CU_ASSERT_EQUAL(t.state, RBLK_UBLK_TAG_IN_BACKEND);
	CU_ASSERT_EQUAL(rblk_ublk_tag_done(&t, 4096), 0);
	CU_ASSERT_EQUAL(t.state, RBLK_UBLK_TAG_COMMIT_QUEUED);
	CU_ASSERT_EQUAL(t.result, 4096);
	CU_ASSERT_EQUAL(rblk_ublk_tag_commit_sent(&t), 0);
	CU_ASSERT_EQUAL(t.state, RBLK_UBLK_TAG_FETCHING);
	/* the commit also fetched: the next request comes on the same tag */
	CU_ASSERT_EQUAL(rblk_ublk_tag_cqe(&t, UBLK_IO_RES_OK), 1);
	CU_ASSERT_EQUAL(rblk_ublk_tag_done(&t, -EIO), 0);
	CU_ASSERT_EQUAL(t.result, -EIO);
	CU_ASSERT_EQUAL(rblk_ublk_tag_commit_sent(&t), 0);
	CU_ASSERT_EQUAL(t.state, RBLK_UBLK_TAG_FETCHING);
}

static void test_abort_ends_the_tag(void)
{
	struct rblk_ublk_tag t = { 0 };

	rblk_ublk_tag_fetch_sent(&t);
	CU_ASSERT_EQUAL(rblk_ublk_tag_cqe(&t, UBLK_IO_RES_ABORT), 0);
	CU_ASSERT_EQUAL(t.state, RBLK_UBLK_TAG_ABORTED);
	/* nothing moves an aborted tag */
	CU_ASSERT_EQUAL(rblk_ublk_tag_cqe(&t, UBLK_IO_RES_OK), -EINVAL);
	CU_ASSERT_EQUAL(rblk_ublk_tag_fetch_sent(&t), -EINVAL);
	CU_ASSERT_EQUAL(rblk_ublk_tag_done(&t, 0), -EINVAL);
	CU_ASSERT_EQUAL(rblk_ublk_tag_commit_sent(&t), -EINVAL);
	CU_ASSERT_EQUAL(t.state, RBLK_UBLK_TAG_ABORTED);
}

static void test_refused_command_ends_the_tag(void)
{
	struct rblk_ublk_tag t = { 0 };

	rblk_ublk_tag_fetch_sent(&t);
	CU_ASSERT_EQUAL(rblk_ublk_tag_cqe(&t, -EINVAL), 0);
	CU_ASSERT_EQUAL(t.state, RBLK_UBLK_TAG_ABORTED);
}

static void test_events_out_of_order_are_refused(void)
{
	struct rblk_ublk_tag t = { 0 };

	/* IDLE: only fetch_sent */
	CU_ASSERT_EQUAL(rblk_ublk_tag_cqe(&t, UBLK_IO_RES_OK), -EINVAL);
	CU_ASSERT_EQUAL(rblk_ublk_tag_done(&t, 0), -EINVAL);
	CU_ASSERT_EQUAL(rblk_ublk_tag_commit_sent(&t), -EINVAL);
	CU_ASSERT_EQUAL(t.state, RBLK_UBLK_TAG_IDLE);
	/* FETCHING: not done, not commit_sent, not fetch_sent again */
	rblk_ublk_tag_fetch_sent(&t);
	CU_ASSERT_EQUAL(rblk_ublk_tag_fetch_sent(&t), -EINVAL);
	CU_ASSERT_EQUAL(rblk_ublk_tag_done(&t, 0), -EINVAL);
	CU_ASSERT_EQUAL(rblk_ublk_tag_commit_sent(&t), -EINVAL);
	CU_ASSERT_EQUAL(t.state, RBLK_UBLK_TAG_FETCHING);
	/* IN_BACKEND: a second completion from the kernel is a bug, not a request */
	rblk_ublk_tag_cqe(&t, UBLK_IO_RES_OK);
	CU_ASSERT_EQUAL(rblk_ublk_tag_cqe(&t, UBLK_IO_RES_OK), -EINVAL);
	CU_ASSERT_EQUAL(rblk_ublk_tag_commit_sent(&t), -EINVAL);
	CU_ASSERT_EQUAL(t.state, RBLK_UBLK_TAG_IN_BACKEND);
	/* COMMIT_QUEUED: the backend cannot finish twice */
	rblk_ublk_tag_done(&t, 512);
	CU_ASSERT_EQUAL(rblk_ublk_tag_done(&t, 1024), -EINVAL);
	CU_ASSERT_EQUAL(t.result, 512);
	CU_ASSERT_EQUAL(rblk_ublk_tag_cqe(&t, UBLK_IO_RES_OK), -EINVAL);
	CU_ASSERT_EQUAL(t.state, RBLK_UBLK_TAG_COMMIT_QUEUED);
}

static void test_state_names(void)
{
	CU_ASSERT_STRING_EQUAL(rblk_ublk_tag_state_str(RBLK_UBLK_TAG_IDLE), "idle");
	CU_ASSERT_STRING_EQUAL(rblk_ublk_tag_state_str(RBLK_UBLK_TAG_FETCHING), "fetching");
	CU_ASSERT_STRING_EQUAL(rblk_ublk_tag_state_str(RBLK_UBLK_TAG_IN_BACKEND), "in-backend");
	CU_ASSERT_STRING_EQUAL(rblk_ublk_tag_state_str(RBLK_UBLK_TAG_COMMIT_QUEUED), "commit-queued");
	CU_ASSERT_STRING_EQUAL(rblk_ublk_tag_state_str(RBLK_UBLK_TAG_ABORTED), "aborted");
	CU_ASSERT_STRING_EQUAL(rblk_ublk_tag_state_str((enum rblk_ublk_tag_state)42), "?");
}

static const struct ut_case cases[] = {
	UT_CASE(test_request_round_trip),
	UT_CASE(test_abort_ends_the_tag),
	UT_CASE(test_refused_command_ends_the_tag),
	UT_CASE(test_events_out_of_order_are_refused),
	UT_CASE(test_state_names),
	UT_END,
};

UT_MAIN("cli/ublk/tag", cases)

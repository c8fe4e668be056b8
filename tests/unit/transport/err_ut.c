/* SPDX-License-Identifier: MIT */
/* Tests for transport/err.h: rdma-core's four error conventions become -errno. */
#include <errno.h>

#include "transport/err.h"
#include "ut.h"

static void test_positive_errno_return(void)
{
	errno = 0;
	CU_ASSERT_EQUAL(err_ret(0), 0);
	CU_ASSERT_EQUAL(err_ret(ENOMEM), -ENOMEM);	/* ibv_post_send: SQ full */
	CU_ASSERT_EQUAL(err_ret(EINVAL), -EINVAL);
}

static void test_minus_one_with_errno(void)
{
	errno = EAGAIN;
	CU_ASSERT_EQUAL(err_ret(-1), -EAGAIN);	/* rdma_get_cm_event on a non-blocking fd */
	errno = 0;
	CU_ASSERT_EQUAL(err_ret(-1), -EIO);	/* a provider that forgot errno */
}

static void test_negative_errno_return(void)
{
	errno = EPERM;
	CU_ASSERT_EQUAL(err_ret(-ENODEV), -ENODEV);
}

static void test_null_with_errno(void)
{
	errno = ENODEV;
	CU_ASSERT_EQUAL(err_errno(), -ENODEV);
	errno = 0;
	CU_ASSERT_EQUAL(err_errno(), -EIO);
}

static const struct ut_case cases[] = {
	UT_CASE(test_positive_errno_return),
	UT_CASE(test_minus_one_with_errno),
	UT_CASE(test_negative_errno_return),
	UT_CASE(test_null_with_errno),
	UT_END,
};

UT_MAIN("transport/err", cases)

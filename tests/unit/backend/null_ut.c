/* SPDX-License-Identifier: MIT */
/*
 * Tests for backend/null.c: every operation succeeds, reads give zeroes
 * (whatever the buffer held before, whatever was written), and the usual
 * validation still applies to its capacity.
 */
#include "backend/internal.h"
#include "bdev_helpers.h"

static void test_null_device(void)
{
	struct rblk_bdev_opts o = { .size = sizeof(o), .engine = "null", .capacity = 1 << 20 };
	struct rblk_bqueue_opts qo = { .size = sizeof(qo), .engine = "null", .depth = 8 };
	struct rblk_bdev *bdev = NULL;
	struct rblk_bqueue *q = NULL;
	char *buf = ut_alloc(8192);
	struct iovec iov[2] = { { buf, 4096 }, { buf + 4096, 4096 } };
	struct ut_req req;

	CU_ASSERT_EQUAL_FATAL(rblk_bdev_open(&o, &bdev), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_bqueue_create(&qo, &q), 0);
	CU_ASSERT_EQUAL(bdev->size, 1 << 20);
	CU_ASSERT_STRING_EQUAL(bdev->engine, "null");

	ut_fill(buf, 8192, 1);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_WRITE, buf, 0, 8192, RBLK_BIO_FUA), 0);
	CU_ASSERT_EQUAL(ut_check(buf, 8192, 1), 0); /* writes leave the buffer alone */
	ut_bio_init(&req.bio, RBLK_BIO_READ, bdev, 0, 8192, iov, 2);
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);
	CU_ASSERT_TRUE(ut_is_zero(buf, 8192));
	CU_ASSERT_EQUAL(ut_op(q, bdev, RBLK_BIO_FLUSH, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ut_op(q, bdev, RBLK_BIO_WRITE_ZEROES, 0, 1 << 20, 0), 0);
	CU_ASSERT_EQUAL(ut_op(q, bdev, RBLK_BIO_DISCARD, 4096, 4096, 0), 0);
	CU_ASSERT_EQUAL(ut_op(q, bdev, RBLK_BIO_DISCARD, 1 << 20, 4096, 0), -ERANGE);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, 100, 512, 0), -EINVAL);

	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
	free(buf);
}

static const struct ut_case cases[] = {
	UT_CASE(test_null_device),
	UT_END,
};

UT_MAIN("backend/null", cases)

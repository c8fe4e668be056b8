/* SPDX-License-Identifier: MIT */
/*
 * Tests for backend/aio.c: the shared kernel-engine cases (engine_cases.h)
 * on Linux AIO, plus what is aio's own: flush through IOCB_CMD_FDSYNC, and
 * buffers/bdev registration accepted as no-ops.
 */
#define ENGINE "aio"
#include "engine_cases.h"

static void test_registration_is_accepted_and_ignored(void)
{
	char *buf = ut_alloc(8192);
	struct iovec reg = { buf, 8192 };

	CU_ASSERT_EQUAL(rblk_bqueue_register_buffers(q, &reg, 1), 0);
	CU_ASSERT_EQUAL(rblk_bqueue_register_bdev(q, bdev), 0);
	CU_ASSERT_EQUAL(bdev->refs, 1);
	/* A buf_index is harmless: the data still moves. */
	{
		struct iovec iov = { buf, 4096 };
		struct ut_req req;

		ut_fill(buf, 4096, 61);
		ut_bio_init(&req.bio, RBLK_BIO_WRITE, bdev, 40 << 20, 4096, &iov, 1);
		req.bio.buf_index = 0;
		CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);
		memset(buf, 0, 4096);
		req.bio.op = RBLK_BIO_READ;
		CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);
		CU_ASSERT_EQUAL(ut_check(buf, 4096, 61), 0);
	}
	rblk_bqueue_unregister_bdev(q, bdev);
	free(buf);
}

static const struct ut_case cases[] = {
	ENGINE_CASES,
	UT_CASE(test_registration_is_accepted_and_ignored),
	UT_END,
};

UT_MAIN_INIT("backend/aio", cases, suite_setup, suite_teardown)

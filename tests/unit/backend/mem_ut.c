/* SPDX-License-Identifier: MIT */
/*
 * Tests for backend/mem.c: the RAM disk starts zeroed, keeps what is written,
 * zeroes on write-zeroes and discard (including whole pages given back with
 * madvise and the partial pages around them), and checks its capacity.
 */
#include "backend/internal.h"
#include "bdev_helpers.h"

#define CAP (8u << 20)

static struct rblk_bdev *bdev;
static struct rblk_bqueue *q;

static int setup(void)
{
	struct rblk_bdev_opts o = { .size = sizeof(o), .engine = "mem", .capacity = CAP,
				    .path = "ram0" };
	struct rblk_bqueue_opts qo = { .size = sizeof(qo), .engine = "mem", .depth = 16 };

	if (rblk_bdev_open(&o, &bdev) || rblk_bqueue_create(&qo, &q))
		return 1;
	return 0;
}

static int teardown(void)
{
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
	return 0;
}

static void test_geometry_and_caps(void)
{
	CU_ASSERT_EQUAL(bdev->size, CAP);
	CU_ASSERT_EQUAL(rblk_bdev_block_size(bdev), 512);
	CU_ASSERT_EQUAL(bdev->fd, -1);
	CU_ASSERT_STRING_EQUAL(bdev->engine, "mem");
	CU_ASSERT_STRING_EQUAL(bdev->path, "ram0");
	CU_ASSERT_FALSE(bdev->caps.write_cache);
	CU_ASSERT_TRUE(bdev->caps.can_discard);
	CU_ASSERT_TRUE(bdev->caps.discard_zeroes);
}

static void test_capacity_checked(void)
{
	struct rblk_bdev_opts o = { .size = sizeof(o), .engine = "mem" };
	struct rblk_bdev *b = NULL;

	CU_ASSERT_EQUAL(rblk_bdev_open(&o, &b), -EINVAL);
	o.capacity = 1000;
	CU_ASSERT_EQUAL(rblk_bdev_open(&o, &b), -EINVAL);
	o.capacity = 8192;
	o.block_size = 4096;
	CU_ASSERT_EQUAL_FATAL(rblk_bdev_open(&o, &b), 0);
	CU_ASSERT_STRING_EQUAL(b->path, "mem"); /* no label given */
	rblk_bdev_close(b);
}

static void test_starts_zeroed(void)
{
	char *buf = ut_alloc(65536);

	memset(buf, 0xee, 65536);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, CAP - 65536, 65536, 0), 0);
	CU_ASSERT_TRUE(ut_is_zero(buf, 65536));
	free(buf);
}

static void test_round_trip_scattered(void)
{
	char *w = ut_alloc(3 * 4096), *r = ut_alloc(3 * 4096);
	struct iovec wv[3] = { { w, 512 }, { w + 512, 8192 }, { w + 8704, 3584 } };
	struct iovec rv[2] = { { r, 4096 }, { r + 4096, 8192 } };
	struct ut_req req;

	ut_fill(w, 3 * 4096, 11);
	ut_bio_init(&req.bio, RBLK_BIO_WRITE, bdev, 1 << 20, 3 * 4096, wv, 3);
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);
	ut_bio_init(&req.bio, RBLK_BIO_READ, bdev, 1 << 20, 3 * 4096, rv, 2);
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);
	CU_ASSERT_EQUAL(ut_check(r, 3 * 4096, 11), 0);
	free(w);
	free(r);
}

static void zeroes_case(enum rblk_bio_op op)
{
	uint64_t off = 3 * 4096 + 512, len = 5 * 4096; /* partial pages at both ends */
	char *buf = ut_alloc(16 * 4096);

	ut_fill(buf, 16 * 4096, 5);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_WRITE, buf, 0, 16 * 4096, 0), 0);
	CU_ASSERT_EQUAL(ut_op(q, bdev, op, off, len, 0), 0);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, 0, 16 * 4096, 0), 0);
	CU_ASSERT_EQUAL(ut_check(buf, off, 5), 0);
	CU_ASSERT_TRUE(ut_is_zero(buf + off, len));
	CU_ASSERT_EQUAL(ut_check(buf + off + len, 16 * 4096 - off - len, 5 + off + len), 0);
	free(buf);
}

static void test_write_zeroes(void)
{
	zeroes_case(RBLK_BIO_WRITE_ZEROES);
}

static void test_discard(void)
{
	zeroes_case(RBLK_BIO_DISCARD);
}

static void test_flush_and_fua(void)
{
	char *buf = ut_alloc(4096);

	ut_fill(buf, 4096, 9);
	CU_ASSERT_EQUAL(ut_op(q, bdev, RBLK_BIO_FLUSH, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_WRITE, buf, 0, 4096, RBLK_BIO_FUA), 0);
	memset(buf, 0, 4096);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, 0, 4096, 0), 0);
	CU_ASSERT_EQUAL(ut_check(buf, 4096, 9), 0);
	free(buf);
}

/* A mem bdev goes through a kernel engine's queue just the same. */
static void test_served_by_any_queue(void)
{
	static const char *const engines[] = { "aio", "uring", "null" };
	char *buf = ut_alloc(4096);

	for (size_t i = 0; i < 3; i++) {
		struct rblk_bqueue_opts qo = { .size = sizeof(qo), .engine = engines[i] };
		struct rblk_bqueue *other = NULL;

		if (rblk_bqueue_create(&qo, &other))
			continue; /* uring blocked here: covered elsewhere */
		ut_fill(buf, 4096, 20 + i);
		CU_ASSERT_EQUAL(ut_rw(other, bdev, RBLK_BIO_WRITE, buf, 8192, 4096, 0), 0);
		memset(buf, 0, 4096);
		CU_ASSERT_EQUAL(ut_rw(other, bdev, RBLK_BIO_READ, buf, 8192, 4096, 0), 0);
		CU_ASSERT_EQUAL(ut_check(buf, 4096, 20 + i), 0);
		rblk_bqueue_destroy(other);
	}
	free(buf);
}

static const struct ut_case cases[] = {
	UT_CASE(test_geometry_and_caps),
	UT_CASE(test_capacity_checked),
	UT_CASE(test_starts_zeroed),
	UT_CASE(test_round_trip_scattered),
	UT_CASE(test_write_zeroes),
	UT_CASE(test_discard),
	UT_CASE(test_flush_and_fua),
	UT_CASE(test_served_by_any_queue),
	UT_END,
};

UT_MAIN_INIT("backend/mem", cases, setup, teardown)

/* SPDX-License-Identifier: MIT */
/*
 * Tests for backend/uring.c: the shared kernel-engine cases (engine_cases.h)
 * on io_uring, plus what is uring's own: fixed buffers (READ_FIXED /
 * WRITE_FIXED, and the checks on buf_index), fixed-file slots and the eventfd
 * switch (rblk_bqueue_eventfd_enable). Exits 77
 * when io_uring cannot be set up on this machine.
 */
#define ENGINE "uring"
#include "engine_cases.h"

static void test_fixed_buffers(void)
{
	enum { SZ = 256 * 1024 };
	char *pool = ut_alloc(2 * SZ);
	struct iovec reg[2] = { { pool, SZ }, { pool + SZ, SZ } };
	struct iovec iov;
	struct ut_req req;

	CU_ASSERT_EQUAL_FATAL(rblk_bqueue_register_buffers(q, reg, 2), 0);
	/* A 128 KiB slice of buffer 1, written and read back through it. */
	iov = (struct iovec){ pool + SZ + 65536, 131072 };
	ut_fill(iov.iov_base, 131072, 31);
	ut_bio_init(&req.bio, RBLK_BIO_WRITE, bdev, 44 << 20, 131072, &iov, 1);
	req.bio.buf_index = 1;
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);
	req.bio.flags = RBLK_BIO_FUA;
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);
	req.bio.flags = 0;
	memset(iov.iov_base, 0, 131072);
	req.bio.op = RBLK_BIO_READ;
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), 0);
	CU_ASSERT_EQUAL(ut_check(iov.iov_base, 131072, 31), 0);
	/* The same bytes through a plain read agree. */
	{
		char *check = ut_alloc(131072);

		CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, check, 44 << 20, 131072, 0), 0);
		CU_ASSERT_EQUAL(ut_check(check, 131072, 31), 0);
		free(check);
	}

	/* Wrong index, unknown index, a slice running out of its buffer. */
	req.bio.buf_index = 0;
	CU_ASSERT_EQUAL(rblk_bqueue_submit(q, &req.bio), -EINVAL);
	req.bio.buf_index = 2;
	CU_ASSERT_EQUAL(rblk_bqueue_submit(q, &req.bio), -EINVAL);
	iov.iov_base = pool + 2 * SZ - 65536;
	req.bio.buf_index = 1;
	CU_ASSERT_EQUAL(rblk_bqueue_submit(q, &req.bio), -EINVAL);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight(q), 0);

	/* Not while I/O is in flight. */
	iov = (struct iovec){ pool, 4096 };
	req.bio.len = 4096;
	req.bio.buf_index = 0;
	req.calls = 0;
	CU_ASSERT_EQUAL(rblk_bqueue_submit(q, &req.bio), 0);
	CU_ASSERT_EQUAL(rblk_bqueue_register_buffers(q, reg, 1), -EBUSY);
	CU_ASSERT_EQUAL(ut_wait_all(q, &req, 1), 0);
	CU_ASSERT_EQUAL(req.bio.res, 0);

	CU_ASSERT_EQUAL(rblk_bqueue_register_buffers(q, NULL, 0), 0);
	free(pool);
}

/*
 * A device limit under the transfer: the engine issues it in parts, all at
 * once (seen in priv.parts before the first poll), and the bytes land where
 * one request would have put them, fixed buffer or not, FUA or not.
 */
static void test_split_transfers(void)
{
	enum { SZ = 262144, LEN = 196608 };
	char *pool = ut_alloc(SZ), *check = ut_alloc(LEN);
	struct iovec reg = { pool, SZ }, iov = { pool + 4096, LEN };
	struct ut_req req;

	CU_ASSERT_EQUAL_FATAL(rblk_bqueue_register_buffers(q, &reg, 1), 0);
	bdev->limits.max_io_size = 65536;
	ut_fill(iov.iov_base, LEN, 57);
	ut_bio_init(&req.bio, RBLK_BIO_WRITE, bdev, 20 << 20, LEN, &iov, 1);
	req.bio.buf_index = 0;
	req.bio.flags = RBLK_BIO_FUA;
	req.calls = 0;
	CU_ASSERT_EQUAL_FATAL(rblk_bqueue_submit(q, &req.bio), 0);
	CU_ASSERT_EQUAL(req.bio.priv.parts, 3);
	CU_ASSERT_EQUAL(ut_wait_all(q, &req, 1), 0);
	CU_ASSERT_EQUAL(req.calls, 1);
	CU_ASSERT_EQUAL(req.bio.res, 0);
	CU_ASSERT_EQUAL(req.bio.priv.parts, 0);

	/* Read back unfixed (plain READ parts), then as one request. */
	memset(iov.iov_base, 0, LEN);
	ut_bio_init(&req.bio, RBLK_BIO_READ, bdev, 20 << 20, LEN, &iov, 1);
	req.calls = 0;
	CU_ASSERT_EQUAL_FATAL(rblk_bqueue_submit(q, &req.bio), 0);
	CU_ASSERT_EQUAL(req.bio.priv.parts, 3);
	CU_ASSERT_EQUAL(ut_wait_all(q, &req, 1), 0);
	CU_ASSERT_EQUAL(req.bio.res, 0);
	CU_ASSERT_EQUAL(ut_check(iov.iov_base, LEN, 57), 0);
	bdev->limits.max_io_size = 0;
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, check, 20 << 20, LEN, 0), 0);
	CU_ASSERT_EQUAL(ut_check(check, LEN, 57), 0);

	/*
	 * A part the file cannot fill fails the whole read: the file ends 64 KiB
	 * into it (bdev->size told otherwise, as after a shrink behind our back).
	 */
	bdev->limits.max_io_size = 65536;
	bdev->size += LEN;
	ut_bio_init(&req.bio, RBLK_BIO_READ, bdev, bdev->size - 2 * LEN + 65536, LEN, &iov, 1);
	req.calls = 0;
	CU_ASSERT_EQUAL(ut_bio_run(q, &req), -EIO);
	bdev->size -= LEN;
	bdev->limits.max_io_size = 0;
	CU_ASSERT_EQUAL(rblk_bqueue_register_buffers(q, NULL, 0), 0);
	free(check);
	free(pool);
}

static void test_fixed_file_slots(void)
{
	char *buf = ut_alloc(65536);
	struct rblk_bdev *other;

	CU_ASSERT_EQUAL_FATAL(rblk_bqueue_register_bdev(q, bdev), 0);
	CU_ASSERT_EQUAL(bdev->refs, 2);
	CU_ASSERT_EQUAL(rblk_bqueue_register_bdev(q, bdev), 0); /* idempotent */
	CU_ASSERT_EQUAL(bdev->refs, 2);
	round_trip(q, bdev, 46 << 20, 17);
	zero_middle(q, bdev, RBLK_BIO_WRITE_ZEROES, 48 << 20, 65536, 4096, 8192, 0);
	zero_middle(q, bdev, RBLK_BIO_DISCARD, 48 << 20, 65536, 4096, 8192, 0);
	CU_ASSERT_EQUAL(ut_op(q, bdev, RBLK_BIO_FLUSH, 0, 0, 0), 0);
	rblk_bqueue_unregister_bdev(q, bdev);
	CU_ASSERT_EQUAL(bdev->refs, 1);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, 46 << 20, 65536, 0), 0);
	CU_ASSERT_EQUAL(ut_check(buf, 65536, 17), 0);

	/*
	 * Closed while a queue holds it: the object and its id (the slot) live
	 * on until that queue lets go, so no new bdev can land in the stale slot.
	 */
	{
		struct rblk_bqueue *q2 = queue_new(8);
		struct rblk_bdev *next, *third;
		unsigned id;

		other = bdev_new(path, false);
		CU_ASSERT_PTR_NOT_NULL_FATAL(other);
		CU_ASSERT_EQUAL(rblk_bqueue_register_bdev(q2, other), 0);
		id = other->id;
		rblk_bdev_close(other);
		next = bdev_new(path, true);
		CU_ASSERT_NOT_EQUAL(next->id, id);
		CU_ASSERT_EQUAL(ut_rw(q2, next, RBLK_BIO_READ, buf, 46 << 20, 65536, 0), 0);
		CU_ASSERT_EQUAL(ut_check(buf, 65536, 17), 0);
		rblk_bqueue_destroy(q2); /* drops the last reference */
		third = bdev_new(path, true);
		CU_ASSERT_EQUAL(third->id, id); /* lowest free id again */
		rblk_bdev_close(third);
		rblk_bdev_close(next);
	}
	free(buf);
}

/* The eventfd switched off while the owner polls, on before it sleeps: no system call. */
static void test_eventfd_toggle(void)
{
	struct rblk_bqueue *q2 = queue_new(8);
	char *buf = ut_alloc(4096);
	uint64_t v;
	int efd, r;

	efd = rblk_bqueue_eventfd(q2);
	CU_ASSERT_TRUE_FATAL(efd >= 0);
	r = rblk_bqueue_eventfd_enable(q2, false);
	if (r == -EOPNOTSUPP) {
		ut_skip("this kernel's io_uring has no IORING_CQ_EVENTFD_DISABLED (5.8)");
		goto out;
	}
	CU_ASSERT_EQUAL_FATAL(r, 0);
	CU_ASSERT_EQUAL(ut_rw(q2, bdev, RBLK_BIO_READ, buf, 0, 4096, 0), 0);
	CU_ASSERT_EQUAL(read(efd, &v, sizeof(v)), -1); /* off: not signalled */
	CU_ASSERT_EQUAL(errno, EAGAIN);
	CU_ASSERT_EQUAL(rblk_bqueue_eventfd_enable(q2, true), 0);
	CU_ASSERT_EQUAL(ut_rw(q2, bdev, RBLK_BIO_READ, buf, 0, 4096, 0), 0);
	CU_ASSERT_EQUAL(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v)); /* on: signalled */
	CU_ASSERT_TRUE(v >= 1);
out:
	rblk_bqueue_destroy(q2);
	free(buf);
}

static const struct ut_case cases[] = {
	ENGINE_CASES,
	UT_CASE(test_fixed_buffers),
	UT_CASE(test_split_transfers),
	UT_CASE(test_fixed_file_slots),
	UT_CASE(test_eventfd_toggle),
	UT_END,
};

int main(void)
{
	char why[200];

	if (rblk_uring_ops.probe(why, sizeof(why)) < 0) {
		printf("uring tests skipped: %s\n", why);
		return UT_SKIP;
	}
	return ut_run("backend/uring", cases, suite_setup, suite_teardown);
}

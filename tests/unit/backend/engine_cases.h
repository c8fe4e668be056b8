/* SPDX-License-Identifier: MIT */
/*
 * The cases every kernel engine must pass, included by uring_ut.c and
 * aio_ut.c with ENGINE defined. Real files under /var/tmp (or RBLK_TEST_DIR),
 * O_DIRECT where the file system allows it, a tmpfs file for the buffered and
 * no-ZERO_RANGE paths, and a loop block device when the machine has one.
 */
#ifndef RBLK_UT_ENGINE_CASES_H
#define RBLK_UT_ENGINE_CASES_H

#include <poll.h>

#include "backend/internal.h"
#include "bdev_helpers.h"

#ifndef ENGINE
#error "define ENGINE before including engine_cases.h"
#endif

#define FILE_SIZE (64u << 20)

static char path[256];
static struct rblk_bdev *bdev;
static struct rblk_bqueue *q;

static struct rblk_bqueue *queue_new(unsigned depth)
{
	struct rblk_bqueue_opts o = { .size = sizeof(o), .engine = ENGINE, .depth = depth };
	struct rblk_bqueue *nq = NULL;

	CU_ASSERT_EQUAL(rblk_bqueue_create(&o, &nq), 0);
	return nq;
}

static struct rblk_bdev *bdev_new(const char *p, bool ro)
{
	struct rblk_bdev_opts o = { .size = sizeof(o), .engine = ENGINE, .path = p,
				    .read_only = ro };
	struct rblk_bdev *b = NULL;

	CU_ASSERT_EQUAL(rblk_bdev_open(&o, &b), 0);
	return b;
}

static int suite_setup(void)
{
	struct rblk_bdev_opts o = { .size = sizeof(o), .engine = ENGINE };
	struct rblk_bqueue_opts qo = { .size = sizeof(qo), .engine = ENGINE, .depth = 256 };

	if (ut_mkfile(ut_dir(), FILE_SIZE, path))
		return 1;
	o.path = path;
	if (rblk_bdev_open(&o, &bdev) || rblk_bqueue_create(&qo, &q))
		return 1;
	return 0;
}

static int suite_teardown(void)
{
	rblk_bqueue_destroy(q);
	rblk_bdev_close(bdev);
	unlink(path);
	return 0;
}

static void test_direct_on_real_file(void)
{
	/* /var/tmp is a disk file system: O_DIRECT must be in use. */
	CU_ASSERT_TRUE(bdev->direct);
	CU_ASSERT_STRING_EQUAL(bdev->engine, ENGINE);
	CU_ASSERT_STRING_EQUAL(rblk_bqueue_engine(q), ENGINE);
}

/* Writes a pattern with bios of several shapes, reads it back another way. */
static void round_trip(struct rblk_bqueue *rq, struct rblk_bdev *b, uint64_t base, uint64_t seed)
{
	const uint64_t len = 1 << 20;
	char *w = ut_alloc(len), *r = ut_alloc(len);
	/* 200704 bytes starting at w + 4096, in four uneven pieces. */
	struct iovec wv[4] = { { w + 4096, 4096 }, { w + 8192, 61440 }, { w + 69632, 131072 },
			       { w + 200704, 4096 } };
	struct iovec rv[2] = { { r, 512 * 1024 }, { r + 512 * 1024, 512 * 1024 } };
	struct ut_req req;

	ut_fill(w, len, seed);
	/* 4 KiB, then a 4-element vector, then one 128 KiB, then the rest in one. */
	CU_ASSERT_EQUAL(ut_rw(rq, b, RBLK_BIO_WRITE, w, base, 4096, 0), 0);
	ut_bio_init(&req.bio, RBLK_BIO_WRITE, b, base + 4096, 200704, wv, 4);
	CU_ASSERT_EQUAL(ut_bio_run(rq, &req), 0);
	CU_ASSERT_EQUAL(ut_rw(rq, b, RBLK_BIO_WRITE, w + 204800, base + 204800, 131072, 0), 0);
	CU_ASSERT_EQUAL(ut_rw(rq, b, RBLK_BIO_WRITE, w + 335872, base + 335872, len - 335872, 0),
			0);

	memset(r, 0, len);
	ut_bio_init(&req.bio, RBLK_BIO_READ, b, base, len, rv, 2);
	CU_ASSERT_EQUAL(ut_bio_run(rq, &req), 0);
	CU_ASSERT_EQUAL(ut_check(r, len, seed), 0);
	free(w);
	free(r);
}

static void test_round_trip(void)
{
	round_trip(q, bdev, 3 << 20, 100);
}

/* What one queue wrote, a new queue and a new open read back. */
static void test_round_trip_across_queues_and_opens(void)
{
	struct rblk_bqueue *q2 = queue_new(8);
	struct rblk_bdev *b2 = bdev_new(path, true);
	char *buf = ut_alloc(65536);

	ut_fill(buf, 65536, 42);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_WRITE, buf, 8 << 20, 65536, 0), 0);
	memset(buf, 0, 65536);
	CU_ASSERT_EQUAL(ut_rw(q2, b2, RBLK_BIO_READ, buf, 8 << 20, 65536, 0), 0);
	CU_ASSERT_EQUAL(ut_check(buf, 65536, 42), 0);
	rblk_bqueue_destroy(q2);
	rblk_bdev_close(b2);
	free(buf);
}

static void test_flush(void)
{
	char *buf = ut_alloc(4096);

	ut_fill(buf, 4096, 1);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_WRITE, buf, 0, 4096, 0), 0);
	CU_ASSERT_EQUAL(ut_op(q, bdev, RBLK_BIO_FLUSH, 0, 0, 0), 0);
	free(buf);
}

static void test_fua_write(void)
{
	char *buf = ut_alloc(65536);

	ut_fill(buf, 65536, 77);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_WRITE, buf, 12 << 20, 65536, RBLK_BIO_FUA), 0);
	memset(buf, 0, 65536);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, 12 << 20, 65536, RBLK_BIO_FUA), 0);
	CU_ASSERT_EQUAL(ut_check(buf, 65536, 77), 0);
	free(buf);
}

/* Pattern, zero the middle (op), the middle reads zeroes and the rest is intact. */
static void zero_middle(struct rblk_bqueue *zq, struct rblk_bdev *b, enum rblk_bio_op op,
			uint64_t base, uint64_t total, uint64_t off, uint64_t len, uint32_t flags)
{
	char *buf = ut_alloc(total);

	ut_fill(buf, total, 9);
	CU_ASSERT_EQUAL(ut_rw(zq, b, RBLK_BIO_WRITE, buf, base, total, 0), 0);
	CU_ASSERT_EQUAL(ut_op(zq, b, op, base + off, len, flags), 0);
	memset(buf, 0xee, total);
	CU_ASSERT_EQUAL(ut_rw(zq, b, RBLK_BIO_READ, buf, base, total, 0), 0);
	CU_ASSERT_EQUAL(ut_check(buf, off, 9), 0);
	CU_ASSERT_TRUE(ut_is_zero(buf + off, len));
	CU_ASSERT_EQUAL(ut_check(buf + off + len, total - off - len, 9 + off + len), 0);
	free(buf);
}

static void test_write_zeroes(void)
{
	zero_middle(q, bdev, RBLK_BIO_WRITE_ZEROES, 16 << 20, 1 << 20, 4096, 512 * 1024, 0);
	zero_middle(q, bdev, RBLK_BIO_WRITE_ZEROES, 18 << 20, 65536, 512, 1024, RBLK_BIO_FUA);
	CU_ASSERT_FALSE(rblk_bdev_flag(&bdev->zero_range_unsupported));
}

static void test_discard(void)
{
	struct stat before, after;

	zero_middle(q, bdev, RBLK_BIO_DISCARD, 20 << 20, 2 << 20, 512 * 1024, 1 << 20, 0);
	/* Files punch holes: the space comes back. */
	fsync(bdev->fd);
	CU_ASSERT_EQUAL(fstat(bdev->fd, &before), 0);
	CU_ASSERT_EQUAL(ut_op(q, bdev, RBLK_BIO_DISCARD, 20 << 20, 2 << 20, 0), 0);
	CU_ASSERT_EQUAL(fstat(bdev->fd, &after), 0);
	CU_ASSERT(after.st_blocks < before.st_blocks);
	CU_ASSERT_EQUAL(after.st_size, FILE_SIZE);
	CU_ASSERT_FALSE(rblk_bdev_flag(&bdev->discard_unsupported));
}

/* Refused before the kernel: the right -errno and nothing in flight. */
static void test_refusals(void)
{
	char *buf = ut_alloc(8192);
	struct rblk_bdev *ro = bdev_new(path, true);

	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, 100, 4096, 0), -EINVAL);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, 0, 100, 0), -EINVAL);
	/* O_DIRECT wants an aligned buffer. */
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf + 1, 0, 4096, 0), -EINVAL);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_READ, buf, FILE_SIZE - 4096, 8192, 0), -ERANGE);
	CU_ASSERT_EQUAL(ut_rw(q, bdev, RBLK_BIO_WRITE, buf, FILE_SIZE, 4096, 0), -ERANGE);
	CU_ASSERT_EQUAL(ut_op(q, bdev, RBLK_BIO_WRITE_ZEROES, FILE_SIZE - 512, 1024, 0), -ERANGE);
	CU_ASSERT_EQUAL(ut_rw(q, ro, RBLK_BIO_WRITE, buf, 0, 4096, 0), -EROFS);
	CU_ASSERT_EQUAL(ut_op(q, ro, RBLK_BIO_DISCARD, 0, 4096, 0), -EROFS);
	CU_ASSERT_EQUAL(ut_rw(q, ro, RBLK_BIO_READ, buf, 0, 4096, 0), 0);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight(q), 0);
	rblk_bdev_close(ro);
	free(buf);
}

/* The file shrinks under us: the short read is continued, then fails. */
static void test_short_read_becomes_eio(void)
{
	char p2[256], *buf = ut_alloc(8192);
	struct rblk_bdev *b;

	CU_ASSERT_EQUAL_FATAL(ut_mkfile(ut_dir(), 1 << 20, p2), 0);
	b = bdev_new(p2, false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(truncate(p2, 512 * 1024), 0);
	CU_ASSERT_EQUAL(ut_rw(q, b, RBLK_BIO_READ, buf, 512 * 1024 - 4096, 8192, 0), -EIO);
	CU_ASSERT_EQUAL(ut_rw(q, b, RBLK_BIO_READ, buf, 768 * 1024, 4096, 0), -EIO);
	CU_ASSERT_EQUAL(ut_rw(q, b, RBLK_BIO_READ, buf, 0, 4096, 0), 0);
	rblk_bdev_close(b);
	unlink(p2);
	free(buf);
}

/* 200 bios in flight at once, all submitted before any completion is reaped. */
static void test_many_in_flight(void)
{
	enum { N = 200, BS = 4096 };
	struct ut_req *reqs = calloc(N, sizeof(*reqs));
	struct iovec *iov = calloc(N, sizeof(*iov));
	char *buf = ut_alloc(N * BS);

	ut_fill(buf, N * BS, 500);
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			memset(buf, 0, N * BS);
		for (int i = 0; i < N; i++) {
			/* Scattered offsets, in reverse, so nothing merges into one. */
			uint64_t off = (32ull << 20) + (uint64_t)(N - 1 - i) * 2 * BS;

			iov[i] = (struct iovec){ buf + i * BS, BS };
			ut_bio_init(&reqs[i].bio, pass ? RBLK_BIO_READ : RBLK_BIO_WRITE, bdev, off,
				    BS, &iov[i], 1);
			reqs[i].calls = 0;
			CU_ASSERT_EQUAL_FATAL(rblk_bqueue_submit(q, &reqs[i].bio), 0);
		}
		CU_ASSERT_EQUAL(rblk_bqueue_inflight(q), N);
		CU_ASSERT_EQUAL(rblk_bqueue_flush_submissions(q), N);
		CU_ASSERT_EQUAL(ut_wait_all(q, reqs, N), 0);
		CU_ASSERT_EQUAL(rblk_bqueue_inflight(q), 0);
		for (int i = 0; i < N; i++) {
			CU_ASSERT_EQUAL(reqs[i].calls, 1);
			CU_ASSERT_EQUAL(reqs[i].bio.res, 0);
		}
	}
	CU_ASSERT_EQUAL(ut_check(buf, N * BS, 500), 0);
	free(reqs);
	free(iov);
	free(buf);
}

static void test_queue_full_then_progress(void)
{
	enum { D = 8 };
	struct rblk_bqueue *sq = queue_new(D);
	struct ut_req reqs[D + 1];
	char *buf = ut_alloc((D + 1) * 4096);
	struct iovec iov[D + 1];
	int n = 0;

	for (int i = 0; i <= D; i++) {
		iov[i] = (struct iovec){ buf + i * 4096, 4096 };
		ut_bio_init(&reqs[i].bio, RBLK_BIO_READ, bdev, i * 4096, 4096, &iov[i], 1);
		reqs[i].calls = 0;
	}
	for (int i = 0; i < D; i++)
		CU_ASSERT_EQUAL(rblk_bqueue_submit(sq, &reqs[i].bio), 0);
	CU_ASSERT_EQUAL(rblk_bqueue_submit(sq, &reqs[D].bio), -EAGAIN);
	CU_ASSERT_EQUAL(reqs[D].calls, 0);
	CU_ASSERT_EQUAL(rblk_bqueue_flush_submissions(sq), D);
	for (double t = ut_now(); n == 0 && ut_now() - t < 10;)
		n = rblk_bqueue_poll(sq, 1);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(rblk_bqueue_inflight(sq), D - 1);
	CU_ASSERT_EQUAL(rblk_bqueue_submit(sq, &reqs[D].bio), 0);
	CU_ASSERT_EQUAL(ut_wait_all(sq, reqs, D + 1), 0);
	for (int i = 0; i <= D; i++)
		CU_ASSERT_EQUAL(reqs[i].bio.res, 0);
	rblk_bqueue_destroy(sq);
	free(buf);
}

static void test_eventfd_readable_on_completion(void)
{
	struct rblk_bqueue *eq = queue_new(8);
	char *buf = ut_alloc(4096);
	struct iovec iov = { buf, 4096 };
	struct pollfd p;
	struct ut_req req;
	uint64_t v;
	int efd, r;

	efd = rblk_bqueue_eventfd(eq);
	CU_ASSERT_FATAL(efd >= 0);
	p = (struct pollfd){ .fd = efd, .events = POLLIN };
	CU_ASSERT_EQUAL(poll(&p, 1, 0), 0);
	ut_bio_init(&req.bio, RBLK_BIO_READ, bdev, 0, 4096, &iov, 1);
	req.calls = 0;
	CU_ASSERT_EQUAL(rblk_bqueue_submit(eq, &req.bio), 0);
	CU_ASSERT_EQUAL(rblk_bqueue_flush_submissions(eq), 1);
	/* Sleep on it like a reactor would (EINTR: task work ran, look again). */
	do
		r = poll(&p, 1, 10000);
	while (r < 0 && errno == EINTR);
	CU_ASSERT_EQUAL(r, 1);
	CU_ASSERT_TRUE(p.revents & POLLIN);
	CU_ASSERT_EQUAL(read(efd, &v, sizeof(v)), (ssize_t)sizeof(v));
	CU_ASSERT_EQUAL(req.calls, 0); /* readable before anyone polled */
	CU_ASSERT_EQUAL(rblk_bqueue_poll(eq, 8), 1);
	CU_ASSERT_EQUAL(req.calls, 1);
	CU_ASSERT_EQUAL(req.bio.res, 0);
	rblk_bqueue_destroy(eq);
	free(buf);
}

/* tmpfs: no fallocate(ZERO_RANGE), so zeroes are written (in 1 MiB chunks). */
static void test_tmpfs_write_zeroes_fallback(void)
{
	struct rblk_bdev *b;
	char p2[256];

	if (!ut_dir_exists("/dev/shm")) {
		ut_skip("no writable /dev/shm (tmpfs)");
		return;
	}
	CU_ASSERT_EQUAL_FATAL(ut_mkfile("/dev/shm", 8 << 20, p2), 0);
	b = bdev_new(p2, false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	zero_middle(q, b, RBLK_BIO_WRITE_ZEROES, 0, 6 << 20, 4096, (3 << 20) + 8192, 0);
	CU_ASSERT_TRUE(rblk_bdev_flag(&b->zero_range_unsupported));
	/* Known now: straight to writes, FUA ones too. */
	zero_middle(q, b, RBLK_BIO_WRITE_ZEROES, 0, 65536, 512, 4096, RBLK_BIO_FUA);
	zero_middle(q, b, RBLK_BIO_DISCARD, 1 << 20, 65536, 4096, 8192, 0);
	round_trip(q, b, 2 << 20, 3);
	rblk_bdev_close(b);
	unlink(p2);
}

static void test_block_device(void)
{
	char dev[64], backing[256];
	int lfd = ut_loop_create(32 << 20, dev, backing);
	struct rblk_bdev *b;

	if (lfd < 0) {
		char why[128];

		/* Loop devices need root and the loop driver: optional, so a skip. */
		snprintf(why, sizeof(why), "no loop device (%s): needs root and the loop driver",
			 strerror(-lfd));
		ut_skip(why);
		return;
	}
	b = bdev_new(dev, false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_TRUE(b->is_blockdev);
	round_trip(q, b, 1 << 20, 8);
	zero_middle(q, b, RBLK_BIO_WRITE_ZEROES, 4 << 20, 1 << 20, 4096, 65536, 0);
	zero_middle(q, b, RBLK_BIO_WRITE_ZEROES, 4 << 20, 65536, 4096, 4096, RBLK_BIO_FUA);
	/* Loop discards punch holes in its file: they do read back as zeroes. */
	zero_middle(q, b, RBLK_BIO_DISCARD, 8 << 20, 1 << 20, 65536, 65536, 0);
	CU_ASSERT_EQUAL(ut_op(q, b, RBLK_BIO_FLUSH, 0, 0, 0), 0);
	CU_ASSERT_FALSE(rblk_bdev_flag(&b->discard_unsupported));
	rblk_bdev_close(b);
	close(lfd);
}

#define ENGINE_CASES                                          \
	UT_CASE(test_direct_on_real_file),                    \
	UT_CASE(test_round_trip),                             \
	UT_CASE(test_round_trip_across_queues_and_opens),     \
	UT_CASE(test_flush),                                  \
	UT_CASE(test_fua_write),                              \
	UT_CASE(test_write_zeroes),                           \
	UT_CASE(test_discard),                                \
	UT_CASE(test_refusals),                               \
	UT_CASE(test_short_read_becomes_eio),                 \
	UT_CASE(test_many_in_flight),                         \
	UT_CASE(test_queue_full_then_progress),               \
	UT_CASE(test_eventfd_readable_on_completion),         \
	UT_CASE(test_tmpfs_write_zeroes_fallback),            \
	UT_CASE(test_block_device)

#endif

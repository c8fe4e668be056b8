/* SPDX-License-Identifier: MIT */
/*
 * Tests for backend/bio.c: the stage machine the kernel engines share, driven
 * by hand with the results a kernel could return (short transfers, EOF,
 * EOPNOTSUPP from fallocate, errors), without any I/O.
 */
#include <errno.h>
#include <string.h>

#include "backend/internal.h"
#include "ut.h"

static struct rblk_bdev bdev;
static struct rblk_bio bio;
static struct iovec iov[3];
static char a[4096], b[8192], c[4096];

static void setup(enum rblk_bio_op op, uint64_t len, bool direct)
{
	memset(&bdev, 0, sizeof(bdev));
	bdev.path = "fake";
	bdev.lba_shift = 9;
	bdev.size = 1 << 20;
	bdev.direct = direct;
	memset(&bio, 0, sizeof(bio));
	bio.op = op;
	bio.bdev = &bdev;
	bio.offset = 4096;
	bio.len = len;
	iov[0] = (struct iovec){ a, sizeof(a) };
	iov[1] = (struct iovec){ b, sizeof(b) };
	iov[2] = (struct iovec){ c, sizeof(c) };
	bio.iov = iov;
	bio.iovcnt = 3;
}

static void test_first_stage_per_op(void)
{
	setup(RBLK_BIO_READ, 16384, false);
	CU_ASSERT_TRUE(rblk_bio_start(&bio));
	CU_ASSERT_EQUAL(bio.priv.stage, RBLK_STAGE_RW);
	bio.op = RBLK_BIO_FLUSH;
	CU_ASSERT_TRUE(rblk_bio_start(&bio));
	CU_ASSERT_EQUAL(bio.priv.stage, RBLK_STAGE_SYNC);
	bio.op = RBLK_BIO_WRITE_ZEROES;
	CU_ASSERT_TRUE(rblk_bio_start(&bio));
	CU_ASSERT_EQUAL(bio.priv.stage, RBLK_STAGE_ZERO_RANGE);
	bdev.zero_range_unsupported = 1;
	CU_ASSERT_TRUE(rblk_bio_start(&bio));
	CU_ASSERT_EQUAL(bio.priv.stage, RBLK_STAGE_ZERO_WRITE);
	bio.op = RBLK_BIO_DISCARD;
	CU_ASSERT_TRUE(rblk_bio_start(&bio));
	CU_ASSERT_EQUAL(bio.priv.stage, RBLK_STAGE_PUNCH);
	bdev.is_blockdev = true;
	CU_ASSERT_TRUE(rblk_bio_start(&bio));
	CU_ASSERT_EQUAL(bio.priv.stage, RBLK_STAGE_BLK_DISCARD);
	/* Known unsupported, no zeroes promised: done at once, successfully. */
	bdev.discard_unsupported = 1;
	bio.res = -1;
	CU_ASSERT_FALSE(rblk_bio_start(&bio));
	CU_ASSERT_EQUAL(bio.res, 0);
	/* Known unsupported with zeroes promised: straight to writing them. */
	bdev.caps.discard_zeroes = true;
	bdev.is_blockdev = false;
	bio.priv.done = 77;
	CU_ASSERT_TRUE(rblk_bio_start(&bio));
	CU_ASSERT_EQUAL(bio.priv.stage, RBLK_STAGE_ZERO_WRITE);
	CU_ASSERT_EQUAL(bio.priv.done, 0);
}

static void test_full_transfer_finishes(void)
{
	setup(RBLK_BIO_READ, 16384, true);
	rblk_bio_start(&bio);
	CU_ASSERT_FALSE(rblk_bio_step(&bio, 16384));
	CU_ASSERT_EQUAL(bio.res, 0);
}

static void test_short_transfer_continues_mid_iovec(void)
{
	const struct iovec *v;

	setup(RBLK_BIO_READ, 16384, false);
	rblk_bio_start(&bio);
	CU_ASSERT_EQUAL(rblk_bio_rw_iov(&bio, &v), 3);
	CU_ASSERT_PTR_EQUAL(v, iov);
	/* 4096 + 1024: stops inside the second element. */
	CU_ASSERT_TRUE(rblk_bio_step(&bio, 5120));
	CU_ASSERT_EQUAL(bio.priv.done, 5120);
	CU_ASSERT_EQUAL(rblk_bio_rw_iov(&bio, &v), 1);
	CU_ASSERT_PTR_EQUAL(v->iov_base, b + 1024);
	CU_ASSERT_EQUAL(v->iov_len, 8192 - 1024);
	/* The rest of that element: now on a boundary, the tail is the caller's. */
	CU_ASSERT_TRUE(rblk_bio_step(&bio, 7168));
	CU_ASSERT_EQUAL(rblk_bio_rw_iov(&bio, &v), 1);
	CU_ASSERT_PTR_EQUAL(v, &iov[2]);
	CU_ASSERT_FALSE(rblk_bio_step(&bio, 4096));
	CU_ASSERT_EQUAL(bio.res, 0);
}

static void test_short_transfer_on_boundary_uses_callers_iovecs(void)
{
	const struct iovec *v;

	setup(RBLK_BIO_WRITE, 16384, false);
	rblk_bio_start(&bio);
	CU_ASSERT_TRUE(rblk_bio_step(&bio, 4096));
	CU_ASSERT_EQUAL(rblk_bio_rw_iov(&bio, &v), 2);
	CU_ASSERT_PTR_EQUAL(v, &iov[1]);
}

static void test_no_progress_is_eio(void)
{
	setup(RBLK_BIO_READ, 16384, false);
	rblk_bio_start(&bio);
	CU_ASSERT_TRUE(rblk_bio_step(&bio, 4096));
	CU_ASSERT_FALSE(rblk_bio_step(&bio, 0));
	CU_ASSERT_EQUAL(bio.res, -EIO);
}

static void test_unaligned_short_direct_is_eio(void)
{
	setup(RBLK_BIO_READ, 16384, true);
	rblk_bio_start(&bio);
	CU_ASSERT_FALSE(rblk_bio_step(&bio, 1000));
	CU_ASSERT_EQUAL(bio.res, -EIO);
	/* Buffered I/O may stop anywhere and continue. */
	setup(RBLK_BIO_READ, 16384, false);
	rblk_bio_start(&bio);
	CU_ASSERT_TRUE(rblk_bio_step(&bio, 1000));
}

static void test_kernel_errors_pass_unchanged(void)
{
	static const int errs[] = { -EIO, -ENOSPC, -EDQUOT, -EROFS, -EBADF };

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		setup(RBLK_BIO_WRITE, 16384, true);
		rblk_bio_start(&bio);
		CU_ASSERT_FALSE(rblk_bio_step(&bio, errs[i]));
		CU_ASSERT_EQUAL(bio.res, errs[i]);
	}
	setup(RBLK_BIO_FLUSH, 0, true);
	rblk_bio_start(&bio);
	CU_ASSERT_FALSE(rblk_bio_step(&bio, -EIO));
	CU_ASSERT_EQUAL(bio.res, -EIO);
}

static void test_zero_range_unsupported_falls_back_to_writes(void)
{
	setup(RBLK_BIO_WRITE_ZEROES, 3 * RBLK_ZERO_BUF_SIZE + 4096, true);
	rblk_bio_start(&bio);
	CU_ASSERT_TRUE(rblk_bio_step(&bio, -EOPNOTSUPP));
	CU_ASSERT_EQUAL(bio.priv.stage, RBLK_STAGE_ZERO_WRITE);
	CU_ASSERT_EQUAL(bdev.zero_range_unsupported, 1);
	CU_ASSERT_EQUAL(rblk_bio_zero_chunk(&bio), RBLK_ZERO_BUF_SIZE);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_TRUE(rblk_bio_step(&bio, RBLK_ZERO_BUF_SIZE));
	CU_ASSERT_EQUAL(rblk_bio_zero_chunk(&bio), 4096);
	CU_ASSERT_FALSE(rblk_bio_step(&bio, 4096));
	CU_ASSERT_EQUAL(bio.res, 0);
	/* Other errors are the answer. */
	setup(RBLK_BIO_WRITE_ZEROES, 4096, true);
	rblk_bio_start(&bio);
	CU_ASSERT_FALSE(rblk_bio_step(&bio, -ENOSPC));
	CU_ASSERT_EQUAL(bio.res, -ENOSPC);
	CU_ASSERT_EQUAL(bdev.zero_range_unsupported, 0);
}

static void test_fua_zero_range_ends_with_sync(void)
{
	setup(RBLK_BIO_WRITE_ZEROES, 4096, true);
	bio.flags = RBLK_BIO_FUA;
	rblk_bio_start(&bio);
	CU_ASSERT_TRUE(rblk_bio_step(&bio, 0));
	CU_ASSERT_EQUAL(bio.priv.stage, RBLK_STAGE_SYNC);
	CU_ASSERT_FALSE(rblk_bio_step(&bio, 0));
	CU_ASSERT_EQUAL(bio.res, 0);
	/* Without FUA the fallocate is the end. */
	setup(RBLK_BIO_WRITE_ZEROES, 4096, true);
	rblk_bio_start(&bio);
	CU_ASSERT_FALSE(rblk_bio_step(&bio, 0));
}

static void test_discard_unsupported_without_zeroes_is_a_noop(void)
{
	/* A block device: discard promises nothing about what reads return. */
	setup(RBLK_BIO_DISCARD, 4096, true);
	bdev.is_blockdev = true;
	CU_ASSERT_TRUE(rblk_bio_start(&bio));
	CU_ASSERT_EQUAL(bio.priv.stage, RBLK_STAGE_BLK_DISCARD);
	CU_ASSERT_FALSE(rblk_bio_step(&bio, -EOPNOTSUPP));
	CU_ASSERT_EQUAL(bio.res, 0);
	CU_ASSERT_EQUAL(bdev.discard_unsupported, 1);
	setup(RBLK_BIO_DISCARD, 4096, true);
	rblk_bio_start(&bio);
	CU_ASSERT_FALSE(rblk_bio_step(&bio, -EIO));
	CU_ASSERT_EQUAL(bio.res, -EIO);
}

static void test_discard_unsupported_with_zeroes_writes_them(void)
{
	/* A file whose namespace says deallocated blocks read as zeroes. */
	setup(RBLK_BIO_DISCARD, RBLK_ZERO_BUF_SIZE + 8192, true);
	bdev.caps.discard_zeroes = true;
	CU_ASSERT_TRUE(rblk_bio_start(&bio));
	CU_ASSERT_EQUAL(bio.priv.stage, RBLK_STAGE_PUNCH);
	CU_ASSERT_TRUE(rblk_bio_step(&bio, -EOPNOTSUPP));
	CU_ASSERT_EQUAL(bio.priv.stage, RBLK_STAGE_ZERO_WRITE);
	CU_ASSERT_EQUAL(bio.priv.done, 0);
	CU_ASSERT_EQUAL(bdev.discard_unsupported, 1);
	CU_ASSERT_EQUAL(rblk_bio_zero_chunk(&bio), RBLK_ZERO_BUF_SIZE);
	CU_ASSERT_TRUE(rblk_bio_step(&bio, RBLK_ZERO_BUF_SIZE));
	CU_ASSERT_EQUAL(rblk_bio_zero_chunk(&bio), 8192);
	CU_ASSERT_FALSE(rblk_bio_step(&bio, 8192));
	CU_ASSERT_EQUAL(bio.res, 0);

	/* A write that fails is the discard's answer, never success. */
	setup(RBLK_BIO_DISCARD, 8192, true);
	bdev.caps.discard_zeroes = true;
	bdev.discard_unsupported = 1;
	CU_ASSERT_TRUE(rblk_bio_start(&bio));
	CU_ASSERT_FALSE(rblk_bio_step(&bio, -ENOSPC));
	CU_ASSERT_EQUAL(bio.res, -ENOSPC);
	/* As is one that makes no progress. */
	CU_ASSERT_TRUE(rblk_bio_start(&bio));
	CU_ASSERT_FALSE(rblk_bio_step(&bio, 0));
	CU_ASSERT_EQUAL(bio.res, -EIO);
}

/* Every way Write Zeroes can fail reaches the caller as an error. */
static void test_write_zeroes_failures_are_reported(void)
{
	/* fallocate/BLKZEROOUT failing for another reason than EOPNOTSUPP. */
	setup(RBLK_BIO_WRITE_ZEROES, 8192, true);
	rblk_bio_start(&bio);
	CU_ASSERT_FALSE(rblk_bio_step(&bio, -EIO));
	CU_ASSERT_EQUAL(bio.res, -EIO);
	/* The fallback writes: an error, no progress, or a partial block. */
	setup(RBLK_BIO_WRITE_ZEROES, 8192, true);
	bdev.zero_range_unsupported = 1;
	rblk_bio_start(&bio);
	CU_ASSERT_FALSE(rblk_bio_step(&bio, -EDQUOT));
	CU_ASSERT_EQUAL(bio.res, -EDQUOT);
	rblk_bio_start(&bio);
	CU_ASSERT_FALSE(rblk_bio_step(&bio, 0));
	CU_ASSERT_EQUAL(bio.res, -EIO);
	rblk_bio_start(&bio);
	CU_ASSERT_FALSE(rblk_bio_step(&bio, 100));
	CU_ASSERT_EQUAL(bio.res, -EIO);
	/* The FUA datasync after a zero range. */
	setup(RBLK_BIO_WRITE_ZEROES, 8192, true);
	bio.flags = RBLK_BIO_FUA;
	rblk_bio_start(&bio);
	CU_ASSERT_TRUE(rblk_bio_step(&bio, 0));
	CU_ASSERT_EQUAL(bio.priv.stage, RBLK_STAGE_SYNC);
	CU_ASSERT_FALSE(rblk_bio_step(&bio, -EIO));
	CU_ASSERT_EQUAL(bio.res, -EIO);
}

/* One buffer of len bytes under a device limit of max. */
static unsigned split(uint64_t len, uint32_t max, uint32_t *part_len)
{
	setup(RBLK_BIO_READ, len, true);
	bio.iovcnt = 1;
	iov[0].iov_len = len;
	bdev.limits.max_io_size = max;
	CU_ASSERT_TRUE(rblk_bio_start(&bio));
	*part_len = 0;
	return rblk_bio_split(&bio, part_len);
}

static void test_split_at_the_device_limit(void)
{
	uint32_t per;

	/* null_blk's 127 KiB: 128 KiB goes as two halves, not 127 + 1. */
	CU_ASSERT_EQUAL(split(131072, 130048, &per), 2);
	CU_ASSERT_EQUAL(per, 65536);
	/* 1 MiB under 127 KiB: nine parts of whole pages, each under the limit. */
	CU_ASSERT_EQUAL(split(1 << 20, 130048, &per), 9);
	CU_ASSERT_EQUAL(per, 118784);
	CU_ASSERT_TRUE(8ull * per < (1 << 20) && 9ull * per >= (1 << 20));
	/* 1 MiB under 512 KiB: two. */
	CU_ASSERT_EQUAL(split(1 << 20, 524288, &per), 2);
	CU_ASSERT_EQUAL(per, 524288);

	/* Not split: at or under the limit, no limit, too many parts. */
	CU_ASSERT_EQUAL(split(131072, 131072, &per), 1);
	CU_ASSERT_EQUAL(split(4096, 130048, &per), 1);
	CU_ASSERT_EQUAL(split(1 << 20, 0, &per), 1);
	CU_ASSERT_EQUAL(split(1 << 20, 4096, &per), 1);
	CU_ASSERT_EQUAL(per, 0);
	/* Not split: several iovecs, a stage already under way, not a transfer. */
	split(131072, 8192, &per);
	bio.iovcnt = 2;
	CU_ASSERT_EQUAL(rblk_bio_split(&bio, &per), 1);
	bio.iovcnt = 1;
	bio.priv.done = 4096;
	CU_ASSERT_EQUAL(rblk_bio_split(&bio, &per), 1);
	bio.priv.done = 0;
	CU_ASSERT_EQUAL(rblk_bio_split(&bio, &per), 16);
	bio.op = RBLK_BIO_FLUSH;
	CU_ASSERT_TRUE(rblk_bio_start(&bio));
	CU_ASSERT_EQUAL(rblk_bio_split(&bio, &per), 1);
	/* Parts must be whole blocks of a coarse-block namespace. */
	split(1 << 20, 524288, &per);
	bdev.lba_shift = 13;
	CU_ASSERT_EQUAL(rblk_bio_split(&bio, &per), 2);
	/* 48 KiB under 32 KiB: two of 24 KiB, unless blocks are 16 KiB. */
	CU_ASSERT_EQUAL(split(3 * 16384, 32768, &per), 2);
	CU_ASSERT_EQUAL(per, 24576);
	bdev.lba_shift = 14;
	CU_ASSERT_EQUAL(rblk_bio_split(&bio, &per), 1);
}

static void test_parts_complete_together(void)
{
	uint32_t per;

	/* All whole: done with 0 when the last is back, in any order. */
	CU_ASSERT_EQUAL(split(3 * 65536, 65536 + 4096, &per), 3);
	bio.priv.parts = 3;
	bio.res = 1;
	CU_ASSERT_FALSE(rblk_bio_part_done(&bio, 65536));
	CU_ASSERT_FALSE(rblk_bio_part_done(&bio, 65536));
	CU_ASSERT_EQUAL(bio.res, 1);
	CU_ASSERT_TRUE(rblk_bio_part_done(&bio, 65536));
	CU_ASSERT_EQUAL(bio.res, 0);
	CU_ASSERT_EQUAL(bio.priv.parts, 0);

	/* The first error wins, and only once every part is back. */
	split(3 * 65536, 65536 + 4096, &per);
	bio.priv.parts = 3;
	CU_ASSERT_FALSE(rblk_bio_part_done(&bio, -EIO));
	CU_ASSERT_FALSE(rblk_bio_part_done(&bio, -ENOSPC));
	CU_ASSERT_TRUE(rblk_bio_part_done(&bio, 65536));
	CU_ASSERT_EQUAL(bio.res, -EIO);

	/* A short part is an error, not a continuation. */
	split(2 * 65536, 65536 + 4096, &per);
	bio.priv.parts = 2;
	CU_ASSERT_FALSE(rblk_bio_part_done(&bio, 65536));
	CU_ASSERT_TRUE(rblk_bio_part_done(&bio, 61440));
	CU_ASSERT_EQUAL(bio.res, -EIO);
}

static void test_op_names(void)
{
	CU_ASSERT_STRING_EQUAL(rblk_bio_op_str(RBLK_BIO_READ), "read");
	CU_ASSERT_STRING_EQUAL(rblk_bio_op_str(RBLK_BIO_WRITE_ZEROES), "write-zeroes");
	CU_ASSERT_STRING_EQUAL(rblk_bio_op_str((enum rblk_bio_op)42), "?");
}

static void test_zero_buffer_is_zero_and_aligned(void)
{
	const unsigned char *z = rblk_zero_buf();

	CU_ASSERT_PTR_NOT_NULL_FATAL(z);
	CU_ASSERT_EQUAL((uintptr_t)z % 4096, 0);
	CU_ASSERT_EQUAL(z[0], 0);
	CU_ASSERT_EQUAL(z[RBLK_ZERO_BUF_SIZE - 1], 0);
	CU_ASSERT_PTR_EQUAL(rblk_zero_buf(), z);
}

static const struct ut_case cases[] = {
	UT_CASE(test_first_stage_per_op),
	UT_CASE(test_full_transfer_finishes),
	UT_CASE(test_short_transfer_continues_mid_iovec),
	UT_CASE(test_short_transfer_on_boundary_uses_callers_iovecs),
	UT_CASE(test_no_progress_is_eio),
	UT_CASE(test_unaligned_short_direct_is_eio),
	UT_CASE(test_kernel_errors_pass_unchanged),
	UT_CASE(test_zero_range_unsupported_falls_back_to_writes),
	UT_CASE(test_fua_zero_range_ends_with_sync),
	UT_CASE(test_discard_unsupported_without_zeroes_is_a_noop),
	UT_CASE(test_discard_unsupported_with_zeroes_writes_them),
	UT_CASE(test_write_zeroes_failures_are_reported),
	UT_CASE(test_split_at_the_device_limit),
	UT_CASE(test_parts_complete_together),
	UT_CASE(test_op_names),
	UT_CASE(test_zero_buffer_is_zero_and_aligned),
	UT_END,
};

UT_MAIN("backend/bio", cases)

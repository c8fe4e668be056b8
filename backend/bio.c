/* SPDX-License-Identifier: MIT */
/*
 * The bio stage machine shared by the kernel engines (uring, aio): which
 * system operation a bio needs first, what a result means, and what to issue
 * next. Keeping this in one place means both engines turn short transfers,
 * unsupported fallocate modes, discards that promised zeroes and the FUA tail
 * of write zeroes into the same outcomes, and the logic can be tested without a kernel.
 *
 * Also owns the process-wide zero buffer used when a file system cannot
 * fallocate(ZERO_RANGE) or punch a hole it promised reads as zeroes.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backend/internal.h"
#include "common/log.h"

static const char *const op_names[] = {
	[RBLK_BIO_READ] = "read",
	[RBLK_BIO_WRITE] = "write",
	[RBLK_BIO_FLUSH] = "flush",
	[RBLK_BIO_WRITE_ZEROES] = "write-zeroes",
	[RBLK_BIO_DISCARD] = "discard",
	[RBLK_BIO_COMPARE_WRITE] = "compare-and-write",
};

const char *rblk_bio_op_str(enum rblk_bio_op op)
{
	if ((unsigned)op >= sizeof(op_names) / sizeof(op_names[0]))
		return "?";
	return op_names[op];
}

static bool finish(struct rblk_bio *bio, int res)
{
	bio->res = res;
	return false;
}

/*
 * A discard the file or device cannot do. Deallocate itself is advisory (the
 * host may not rely on it freeing anything), but when the namespace says
 * deallocated blocks read as zeroes (caps.discard_zeroes, which the target
 * turns into Identify Namespace DLFEAT "read zeroes") the host may rely on
 * that instead of writing zeroes itself: then the promise is kept by writing
 * them. Without the promise (block devices) doing nothing is a legal answer.
 */
static bool discard_fallback(struct rblk_bio *bio)
{
	if (!bio->bdev->caps.discard_zeroes)
		return finish(bio, 0);
	bio->priv.stage = RBLK_STAGE_ZERO_WRITE;
	bio->priv.done = 0;
	return true;
}

bool rblk_bio_start(struct rblk_bio *bio)
{
	bio->res = 0;
	bio->priv.done = 0;
	bio->priv.parts = 0;
	bio->priv.parts_res = 0;
	switch (bio->op) {
	case RBLK_BIO_READ:
	case RBLK_BIO_WRITE:
		bio->priv.stage = RBLK_STAGE_RW;
		break;
	case RBLK_BIO_FLUSH:
		if (bio->bdev->fault_flush_noop)
			return finish(bio, 0);
		bio->priv.stage = RBLK_STAGE_SYNC;
		break;
	case RBLK_BIO_WRITE_ZEROES:
		/* Once a file system said no, stop asking it on every request. */
		bio->priv.stage = rblk_bdev_flag(&bio->bdev->zero_range_unsupported) ?
					  RBLK_STAGE_ZERO_WRITE :
					  RBLK_STAGE_ZERO_RANGE;
		break;
	case RBLK_BIO_DISCARD:
		if (rblk_bdev_flag(&bio->bdev->discard_unsupported))
			return discard_fallback(bio);
		bio->priv.stage = bio->bdev->is_blockdev ? RBLK_STAGE_BLK_DISCARD :
							   RBLK_STAGE_PUNCH;
		break;
	case RBLK_BIO_COMPARE_WRITE:
		/* Files and devices leave it to the target's range lock (no caps.compare_write). */
		return finish(bio, -EOPNOTSUPP);
	}
	return true;
}

/* Bytes moved by one data transfer: true while some remain. */
static bool advance(struct rblk_bio *bio, int res)
{
	struct rblk_bdev *bdev = bio->bdev;

	if (res < 0)
		return finish(bio, res);
	/*
	 * Zero bytes means end of file: the file shrank after we sized it.
	 * Resubmitting could only spin, so the request fails.
	 */
	if (res == 0) {
		RBLK_DEBUG("%s: %s at %llu: no progress after %llu bytes", bdev->path,
			   rblk_bio_op_str(bio->op),
			   (unsigned long long)bio->offset,
			   (unsigned long long)bio->priv.done);
		return finish(bio, -EIO);
	}
	/* O_DIRECT cannot continue from an unaligned point. */
	if (bdev->direct && (res & (rblk_bdev_block_size(bdev) - 1)))
		return finish(bio, -EIO);
	bio->priv.done += (unsigned)res;
	if (bio->priv.done > bio->len)
		return finish(bio, -EIO);
	return bio->priv.done < bio->len ? true : finish(bio, 0);
}

bool rblk_bio_step(struct rblk_bio *bio, int res)
{
	switch (bio->priv.stage) {
	case RBLK_STAGE_RW:
		return advance(bio, res);
	case RBLK_STAGE_ZERO_RANGE:
		if (res == -EOPNOTSUPP) {
			rblk_file_note_no_zero_range(bio->bdev, res);
			bio->priv.stage = RBLK_STAGE_ZERO_WRITE;
			bio->priv.done = 0;
			return true;
		}
		if (res < 0)
			return finish(bio, res);
		/* fallocate is not durable by itself: FUA needs a datasync. */
		if (bio->flags & RBLK_BIO_FUA) {
			bio->priv.stage = RBLK_STAGE_SYNC;
			return true;
		}
		return finish(bio, 0);
	case RBLK_STAGE_ZERO_WRITE:
		/* FUA is carried by each write (RWF_DSYNC). */
		return advance(bio, res);
	case RBLK_STAGE_PUNCH:
	case RBLK_STAGE_BLK_DISCARD:
		/* caps.can_discard told the target whether to advertise it. */
		if (res == -EOPNOTSUPP) {
			rblk_file_note_no_discard(bio->bdev, res);
			return discard_fallback(bio);
		}
		return finish(bio, res < 0 ? res : 0);
	case RBLK_STAGE_SYNC:
		return finish(bio, res < 0 ? res : 0);
	}
	return finish(bio, -EINVAL);
}

int rblk_bio_rw_iov(struct rblk_bio *bio, const struct iovec **iov)
{
	uint64_t skip = bio->priv.done;

	if (skip == 0) {
		*iov = bio->iov;
		return bio->iovcnt;
	}
	for (int i = 0; i < bio->iovcnt; i++) {
		if (skip < bio->iov[i].iov_len) {
			if (skip == 0) {
				*iov = &bio->iov[i];
				return bio->iovcnt - i;
			}
			/*
			 * Mid-element: issue just the rest of this element from a
			 * private copy (the caller's iovec array is const); the
			 * following elements go in the next round.
			 */
			bio->priv.tail.iov_base = (char *)bio->iov[i].iov_base + skip;
			bio->priv.tail.iov_len = bio->iov[i].iov_len - skip;
			*iov = &bio->priv.tail;
			return 1;
		}
		skip -= bio->iov[i].iov_len;
	}
	*iov = NULL;
	return 0;
}

unsigned rblk_bio_split(const struct rblk_bio *bio, uint32_t *part_len)
{
	uint32_t max = bio->bdev->limits.max_io_size, bs = rblk_bdev_block_size(bio->bdev);
	uint64_t n, per;

	if (bio->priv.stage != RBLK_STAGE_RW || bio->priv.done || bio->iovcnt != 1 || !max ||
	    bio->len <= max)
		return 1;
	n = (bio->len + max - 1) / max;
	if (n > RBLK_BIO_MAX_PARTS)
		return 1;
	/* Even parts, whole pages (max is whole pages): 128 KiB under 127 is 2 x 64. */
	per = (bio->len + n - 1) / n;
	per = (per + 4095) & ~(uint64_t)4095;
	if (per % bs)
		return 1;
	*part_len = (uint32_t)per;
	return (unsigned)((bio->len + per - 1) / per);
}

bool rblk_bio_part_done(struct rblk_bio *bio, int res)
{
	if (res < 0) {
		if (!bio->priv.parts_res)
			bio->priv.parts_res = res;
	} else {
		bio->priv.done += (unsigned)res;
	}
	if (--bio->priv.parts)
		return false;
	/* A block device moves a part whole or fails it: short is an error. */
	bio->res = bio->priv.parts_res ? bio->priv.parts_res :
		   bio->priv.done == bio->len ? 0 : -EIO;
	return true;
}

uint64_t rblk_bio_zero_chunk(const struct rblk_bio *bio)
{
	uint64_t left = bio->len - bio->priv.done;

	return left < RBLK_ZERO_BUF_SIZE ? left : RBLK_ZERO_BUF_SIZE;
}

static pthread_once_t zero_once = PTHREAD_ONCE_INIT;
static void *zero_buf;

static void zero_alloc(void)
{
	/* Page-aligned so it satisfies any O_DIRECT buffer alignment. */
	zero_buf = aligned_alloc(4096, RBLK_ZERO_BUF_SIZE);
	if (zero_buf)
		memset(zero_buf, 0, RBLK_ZERO_BUF_SIZE);
}

const void *rblk_zero_buf(void)
{
	pthread_once(&zero_once, zero_alloc);
	return zero_buf;
}

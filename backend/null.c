/* SPDX-License-Identifier: MIT */
/*
 * The "null" engine, for benchmarks: a device of opts->capacity bytes that
 * stores nothing. Writes, write zeroes, discards and flushes succeed at once;
 * reads return zeroes. Like mem, requests complete through the queue's local
 * completion list, on any queue.
 *
 * Reads do write zeroes into the caller's buffer (unlike null_blk or SPDK's
 * null bdev, which leave it untouched): the target's buffers are recycled
 * between hosts, and a read must never hand one host another's data.
 */
#include <string.h>

#include "backend/internal.h"

static int null_bdev_open(struct rblk_bdev *bdev, const struct rblk_bdev_opts *opts)
{
	return rblk_mem_geometry(bdev, opts);
}

static void null_bdev_close(struct rblk_bdev *bdev)
{
}

static int null_submit(struct rblk_bqueue *q, struct rblk_bio *bio)
{
	if (bio->op == RBLK_BIO_READ)
		for (int i = 0; i < bio->iovcnt; i++)
			memset(bio->iov[i].iov_base, 0, bio->iov[i].iov_len);
	bio->res = 0;
	rblk_bqueue_complete_later(q, bio);
	return 0;
}

const struct rblk_backend_ops rblk_null_ops = {
	.name = "null",
	.kind = RBLK_BACKEND_MEMORY,
	.bdev_open = null_bdev_open,
	.bdev_close = null_bdev_close,
	.submit = null_submit,
};

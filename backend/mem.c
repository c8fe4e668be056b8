/* SPDX-License-Identifier: MIT */
/*
 * The "mem" engine: a RAM disk of opts->capacity bytes, zero-filled. Requests
 * are executed with memcpy inside submit and complete through the queue's
 * local completion list, so a mem bdev works on any queue. The memory is an
 * anonymous mapping with MAP_NORESERVE: untouched blocks cost nothing, and a
 * discard gives whole pages back to the kernel (they read back as zeroes).
 *
 * Several threads may use one mem bdev at once. Overlapping concurrent writes
 * mix, as on any disk: NVMe leaves their order undefined.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend/internal.h"
#include "common/log.h"

int rblk_mem_geometry(struct rblk_bdev *bdev, const struct rblk_bdev_opts *opts)
{
	uint32_t bs = opts->block_size ? opts->block_size : 512;

	if (opts->capacity == 0 || opts->capacity % bs) {
		RBLK_ERR("backend: %s: capacity %llu is not a positive multiple of %u",
			 bdev->path, (unsigned long long)opts->capacity, bs);
		return -EINVAL;
	}
	bdev->size = opts->capacity;
	bdev->lba_shift = __builtin_ctz(bs);
	bdev->buf_align = 1;
	bdev->caps.can_flush = true;
	bdev->caps.can_write_zeroes = true;
	bdev->caps.can_discard = true;
	bdev->caps.discard_zeroes = true;
	bdev->caps.write_cache = false;
	return 0;
}

static int mem_bdev_open(struct rblk_bdev *bdev, const struct rblk_bdev_opts *opts)
{
	void *p;
	int r;

	r = rblk_mem_geometry(bdev, opts);
	if (r)
		return r;
	p = mmap(NULL, bdev->size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		r = -errno;
		RBLK_ERR("backend: %s: cannot map %llu bytes: %s", bdev->path,
			 (unsigned long long)bdev->size, strerror(-r));
		return r;
	}
	bdev->priv = p;
	return 0;
}

static void mem_bdev_close(struct rblk_bdev *bdev)
{
	if (bdev->priv)
		munmap(bdev->priv, bdev->size);
	bdev->priv = NULL;
}

static void copy_iov(uint8_t *disk, const struct rblk_bio *bio, bool to_disk)
{
	uint64_t off = bio->offset;

	for (int i = 0; i < bio->iovcnt; i++) {
		const struct iovec *v = &bio->iov[i];

		if (to_disk)
			memcpy(disk + off, v->iov_base, v->iov_len);
		else
			memcpy(v->iov_base, disk + off, v->iov_len);
		off += v->iov_len;
	}
}

static void zero_range(uint8_t *disk, uint64_t off, uint64_t len, bool release)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t start = (off + pg - 1) / pg * pg, end = (off + len) / pg * pg;

	/* Whole pages go back to the kernel; they read back as zeroes. */
	if (release && end > start &&
	    madvise(disk + start, end - start, MADV_DONTNEED) == 0) {
		memset(disk + off, 0, start - off);
		memset(disk + end, 0, off + len - end);
		return;
	}
	memset(disk + off, 0, len);
}

static int mem_submit(struct rblk_bqueue *q, struct rblk_bio *bio)
{
	uint8_t *disk = bio->bdev->priv;

	switch (bio->op) {
	case RBLK_BIO_READ:
		copy_iov(disk, bio, false);
		break;
	case RBLK_BIO_WRITE:
		copy_iov(disk, bio, true);
		break;
	case RBLK_BIO_FLUSH:
		break;
	case RBLK_BIO_WRITE_ZEROES:
		zero_range(disk, bio->offset, bio->len, false);
		break;
	case RBLK_BIO_DISCARD:
		zero_range(disk, bio->offset, bio->len, true);
		break;
	case RBLK_BIO_COMPARE_WRITE:
		return -EOPNOTSUPP;	/* no caps.compare_write: validate() refused it */
	}
	bio->res = 0;
	rblk_bqueue_complete_later(q, bio);
	return 0;
}

const struct rblk_backend_ops rblk_mem_ops = {
	.name = "mem",
	.kind = RBLK_BACKEND_MEMORY,
	.bdev_open = mem_bdev_open,
	.bdev_close = mem_bdev_close,
	.submit = mem_submit,
};

/* SPDX-License-Identifier: MIT */
/*
 * The "aio" engine: files and block devices through Linux native AIO
 * (libaio), for hosts where io_uring is blocked. One io_context per queue,
 * one preallocated iocb per possible bio in flight; submit only fills an iocb,
 * flush sends the batch with one io_submit(), poll reaps completions from the
 * context's ring in user space (no system call when nothing completed; the
 * same technique as SPDK's aio bdev and fio's userspace_reap), falling back
 * to io_getevents() if the ring's layout is not the one we know.
 *
 * What is asynchronous and what is not:
 *   read/write     IOCB_CMD_PREAD(V)/PWRITE(V); FUA is RWF_DSYNC on the write
 *   flush          IOCB_CMD_FDSYNC. Linux >= 4.18 runs it asynchronously on a
 *                  workqueue for every file system with ->fsync (ext4, xfs,
 *                  btrfs, block devices...). Older kernels refuse it (EINVAL):
 *                  then fdatasync() runs inline, logged once. A helper thread
 *                  would only help those old kernels; not worth the locking.
 *   write zeroes   fallocate(ZERO_RANGE) / BLKZEROOUT, synchronously: native
 *   discard        AIO has no such commands. Both are metadata updates on extent
 *                  file systems (microseconds to a few ms). Without ZERO_RANGE
 *                  we write zeroes asynchronously from the zero buffer.
 */
#include <errno.h>
#include <libaio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/internal.h"
#include "common/log.h"

/* The kernel's completion ring that an io_context_t points at (fs/aio.c). */
struct aio_uring {
	unsigned id;
	unsigned nr;
	unsigned head;
	unsigned tail;
	unsigned magic;
	unsigned compat_features;
	unsigned incompat_features;
	unsigned header_length;
	struct io_event io_events[];
};
#define AIO_RING_MAGIC 0xa10a10a1

#define EVENT_BATCH 32

struct aio_queue {
	io_context_t ctx;
	struct aio_uring *ring;   /* NULL: reap with io_getevents() */
	struct iocb *iocbs;       /* depth of them */
	struct iocb **free;       /* stack of unused iocbs */
	unsigned nfree;
	struct iocb **pending;    /* prepared, not yet given to io_submit */
	unsigned npending;
	int efd;                  /* -1, or signalled by every completion */
	unsigned resubmitted;
};

static int fdsync_refused; /* process-wide: the kernel is what it is */

static int aio_queue_init(struct rblk_bqueue *q, const struct rblk_bqueue_opts *opts)
{
	struct aio_queue *a;
	int r;

	if (!rblk_zero_buf())
		return -ENOMEM;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->efd = -1;
	a->iocbs = calloc(q->depth, sizeof(*a->iocbs));
	a->free = calloc(q->depth, sizeof(*a->free));
	a->pending = calloc(q->depth, sizeof(*a->pending));
	if (!a->iocbs || !a->free || !a->pending) {
		r = -ENOMEM;
		goto out_free;
	}
	for (unsigned i = 0; i < q->depth; i++)
		a->free[a->nfree++] = &a->iocbs[i];
	r = io_setup(q->depth, &a->ctx);
	if (r < 0) {
		if (r == -EAGAIN)
			RBLK_ERR("backend: io_setup(%u): over fs.aio-max-nr", q->depth);
		goto out_free;
	}
	a->ring = (struct aio_uring *)a->ctx;
	if (a->ring->magic != AIO_RING_MAGIC || a->ring->incompat_features != 0) {
		RBLK_INFO("backend: unknown aio ring layout: reaping with io_getevents");
		a->ring = NULL;
	}
	q->priv = a;
	return 0;

out_free:
	free(a->pending);
	free(a->free);
	free(a->iocbs);
	free(a);
	return r;
}

static void aio_queue_fini(struct rblk_bqueue *q)
{
	struct aio_queue *a = q->priv;

	io_destroy(a->ctx);
	free(a->pending);
	free(a->free);
	free(a->iocbs);
	free(a);
	q->priv = NULL;
}

static struct iocb *slot_get(struct aio_queue *a, struct rblk_bio *bio)
{
	/* The depth budget guarantees one per bio in flight. */
	if (!bio->priv.slot)
		bio->priv.slot = a->free[--a->nfree];
	return bio->priv.slot;
}

static void slot_put(struct aio_queue *a, struct rblk_bio *bio)
{
	if (bio->priv.slot) {
		a->free[a->nfree++] = bio->priv.slot;
		bio->priv.slot = NULL;
	}
}

static void prep_rw(struct iocb *cb, struct rblk_bio *bio)
{
	int fd = bio->bdev->fd;
	uint64_t off = bio->offset + bio->priv.done;
	int flags = 0;
	const struct iovec *iov;
	int cnt = rblk_bio_rw_iov(bio, &iov);

	if (bio->op == RBLK_BIO_WRITE) {
		if (bio->flags & RBLK_BIO_FUA)
			flags = RWF_DSYNC;
		if (cnt == 1)
			io_prep_pwrite(cb, fd, iov->iov_base, iov->iov_len, off);
		else
			io_prep_pwritev2(cb, fd, (struct iovec *)iov, cnt, off, flags);
	} else {
		if (cnt == 1)
			io_prep_pread(cb, fd, iov->iov_base, iov->iov_len, off);
		else
			io_prep_preadv(cb, fd, iov, cnt, off);
	}
	cb->aio_rw_flags = flags;
}

/*
 * Issues the bio's current stage: prepares an iocb for the next io_submit,
 * or runs the synchronous form and moves on (finishing through the local
 * list). Always 0: the queue has an iocb for every bio in flight.
 */
static int issue(struct rblk_bqueue *q, struct rblk_bio *bio)
{
	struct aio_queue *a = q->priv;
	struct rblk_bdev *bdev = bio->bdev;
	struct iocb *cb;
	int res;

	for (;;) {
		switch (bio->priv.stage) {
		case RBLK_STAGE_RW:
		case RBLK_STAGE_ZERO_WRITE:
			goto async;
		case RBLK_STAGE_SYNC:
			if (!rblk_bdev_flag(&fdsync_refused))
				goto async;
			res = rblk_file_datasync(bdev);
			break;
		case RBLK_STAGE_ZERO_RANGE:
			res = rblk_file_zero_range(bdev, bio->offset, bio->len);
			break;
		case RBLK_STAGE_PUNCH:
		case RBLK_STAGE_BLK_DISCARD:
			res = rblk_file_discard(bdev, bio->offset, bio->len);
			break;
		default:
			res = -EINVAL;
			break;
		}
		if (!rblk_bio_step(bio, res)) {
			slot_put(a, bio);
			rblk_bqueue_complete_later(q, bio);
			return 0;
		}
	}

async:
	cb = slot_get(a, bio);
	switch (bio->priv.stage) {
	case RBLK_STAGE_RW:
		prep_rw(cb, bio);
		break;
	case RBLK_STAGE_ZERO_WRITE:
		io_prep_pwrite(cb, bdev->fd, (void *)rblk_zero_buf(), rblk_bio_zero_chunk(bio),
			       bio->offset + bio->priv.done);
		cb->aio_rw_flags = (bio->flags & RBLK_BIO_FUA) ? RWF_DSYNC : 0;
		break;
	default: /* RBLK_STAGE_SYNC */
		io_prep_fdsync(cb, bdev->fd);
		break;
	}
	cb->data = bio;
	if (a->efd >= 0)
		io_set_eventfd(cb, a->efd);
	a->pending[a->npending++] = cb;
	return 0;
}

static int aio_submit(struct rblk_bqueue *q, struct rblk_bio *bio)
{
	if (!rblk_bio_start(bio)) {
		rblk_bqueue_complete_later(q, bio);
		return 0;
	}
	return issue(q, bio);
}

/* One result for bio (from the kernel, or io_submit refusing it). */
static void handle(struct rblk_bqueue *q, struct rblk_bio *bio, int res, unsigned *done)
{
	struct aio_queue *a = q->priv;

	if (rblk_bio_step(bio, res)) {
		issue(q, bio);
		a->resubmitted++;
		return;
	}
	slot_put(a, bio);
	if (done) {
		rblk_bio_complete(q, bio);
		(*done)++;
	} else {
		rblk_bqueue_complete_later(q, bio);
	}
}

static int aio_flush(struct rblk_bqueue *q)
{
	struct aio_queue *a = q->priv;
	int total = 0, r;

	while (a->npending) {
		r = io_submit(a->ctx, a->npending, a->pending);
		if (r > 0) {
			a->npending -= r;
			memmove(a->pending, a->pending + r, a->npending * sizeof(*a->pending));
			total += r;
			continue;
		}
		if (r == 0 || r == -EAGAIN || r == -EINTR)
			return total ? total : -EAGAIN;

		/* The first iocb was refused; the rest were not looked at. */
		struct iocb *cb = a->pending[0];
		struct rblk_bio *bio = cb->data;

		a->npending--;
		memmove(a->pending, a->pending + 1, a->npending * sizeof(*a->pending));
		if (r == -EINVAL && cb->aio_lio_opcode == IO_CMD_FDSYNC) {
			if (!__atomic_exchange_n(&fdsync_refused, 1, __ATOMIC_RELAXED))
				RBLK_NOTICE("backend: kernel AIO refuses IOCB_CMD_FDSYNC (Linux < 4.18): "
					    "flushing with fdatasync() inline");
			r = rblk_file_datasync(bio->bdev);
		}
		/* Its callback must not run from here: finish via the local list. */
		handle(q, bio, r, NULL);
	}
	return total;
}

/* Completions from the shared ring, without a system call. */
static unsigned ring_reap(struct aio_uring *ring, struct io_event *ev, unsigned max)
{
	unsigned head = ring->head, nr = ring->nr, n = 0;
	unsigned tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);

	while (head != tail && n < max) {
		ev[n++] = ring->io_events[head];
		if (++head == nr)
			head = 0;
	}
	/* Hands the slots back: the kernel reads head to refill its budget. */
	__atomic_store_n(&ring->head, head, __ATOMIC_RELEASE);
	return n;
}

static int aio_poll(struct rblk_bqueue *q, unsigned max)
{
	struct aio_queue *a = q->priv;
	struct io_event ev[EVENT_BATCH];
	struct timespec zero = { 0, 0 };
	unsigned done = 0;
	int got;

	a->resubmitted = 0;
	while (done < max) {
		unsigned want = max - done < EVENT_BATCH ? max - done : EVENT_BATCH;

		if (a->ring) {
			got = ring_reap(a->ring, ev, want);
		} else {
			got = io_getevents(a->ctx, 0, want, ev, &zero);
			if (got < 0) {
				if (got == -EINTR)
					break;
				return done ? (int)done : got;
			}
		}
		if (got == 0)
			break;
		for (int i = 0; i < got; i++)
			handle(q, ev[i].data, (int)(long)ev[i].res, &done);
	}
	if (a->resubmitted)
		aio_flush(q);
	return done;
}

static int aio_set_eventfd(struct rblk_bqueue *q, int efd)
{
	struct aio_queue *a = q->priv;

	/* iocbs prepared from now on carry it (IOCB_FLAG_RESFD). */
	a->efd = efd;
	for (unsigned i = 0; i < a->npending; i++)
		io_set_eventfd(a->pending[i], efd);
	return 0;
}

const struct rblk_backend_ops rblk_aio_ops = {
	.name = "aio",
	.kind = RBLK_BACKEND_FILE,
	.bdev_open = rblk_file_bdev_open,
	.bdev_close = rblk_file_bdev_close,
	.queue_init = aio_queue_init,
	.queue_fini = aio_queue_fini,
	.submit = aio_submit,
	.flush = aio_flush,
	.poll = aio_poll,
	.set_eventfd = aio_set_eventfd,
};

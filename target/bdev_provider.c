/* SPDX-License-Identifier: MIT */
/*
 * The built-in backends as a namespace provider (include/rblk/provider.h):
 * a file or block device through the target's engine (io_uring or libaio),
 * "mem:SIZE" (RAM), "null:SIZE" and "rbd:POOL/IMAGE" (Ceph, completing from
 * librbd's threads into the group's queue). The same seam an embedder's provider
 * uses, so everything that runs against rblk-target proves it.
 *
 * Thread model: submit() runs on a poll group's thread and sends the io
 * through that group's backend queue (req->sq->bq), one io_uring ring or
 * libaio context per group shared by all its namespaces. When the queue is
 * full the request parks in the group's parking queue, FIFO, and is
 * resubmitted when completions make room (rblk_io_waitq_run). The backend
 * completes on the same thread, from rblk_bqueue_poll(), and hands the result
 * to rblk_provider_complete() like any provider.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend/rbd_path.h"
#include "common/log.h"
#include "common/util.h"
#include "target/core.h"

static struct rblk_req *req_of_io(struct rblk_provider_io *io)
{
	return rblk_container_of(io, struct rblk_req, pio);
}

static void bio_done(struct rblk_bio *bio)
{
	struct rblk_req *req = rblk_container_of(bio, struct rblk_req, bio);

	rblk_provider_complete(&req->pio, bio->res);
}

/* ------------------------------------------------------------------------ */
/* The parking queue.                                                        */

void rblk_io_waitq_init(struct rblk_io_waitq *wq)
{
	wq->head = NULL;
	wq->tailp = &wq->head;
	wq->count = 0;
}

static void waitq_push(struct rblk_io_waitq *wq, struct rblk_req *req)
{
	req->next = NULL;
	*wq->tailp = req;
	wq->tailp = &req->next;
	wq->count++;
}

unsigned rblk_io_waitq_run(struct rblk_io_waitq *wq)
{
	unsigned n = 0;

	while (wq->head) {
		struct rblk_req *req = wq->head;
		int ret = rblk_bqueue_submit(req->sq->bq, &req->bio);

		if (ret == -EAGAIN)
			break;
		wq->head = req->next;
		if (!wq->head)
			wq->tailp = &wq->head;
		wq->count--;
		n++;
		/* Accepted at submit time, so a refusal now is a completion. */
		if (ret)
			rblk_provider_complete(&req->pio, ret);
	}
	return n;
}

/* ------------------------------------------------------------------------ */
/* The provider.                                                             */

static const enum rblk_bio_op bio_ops[] = {
	[RBLK_PROVIDER_READ] = RBLK_BIO_READ,
	[RBLK_PROVIDER_WRITE] = RBLK_BIO_WRITE,
	[RBLK_PROVIDER_FLUSH] = RBLK_BIO_FLUSH,
	[RBLK_PROVIDER_WRITE_ZEROES] = RBLK_BIO_WRITE_ZEROES,
	[RBLK_PROVIDER_DISCARD] = RBLK_BIO_DISCARD,
};

static int bdev_submit(void *ctx, struct rblk_provider_io *io)
{
	struct rblk_req *req = req_of_io(io);
	struct rblk_io_waitq *wq = req->sq->waitq;
	struct rblk_bio *bio = &req->bio;
	int ret;

	if ((unsigned)io->op >= sizeof(bio_ops) / sizeof(bio_ops[0]))
		return -EOPNOTSUPP;
	memset(bio, 0, sizeof(*bio));
	bio->op = bio_ops[io->op];
	bio->flags = io->flags & RBLK_PROVIDER_FUA ? RBLK_BIO_FUA : 0;
	bio->bdev = ctx;
	bio->offset = io->offset;
	bio->len = io->len;
	bio->buf_index = -1;
	bio->cb = bio_done;
	if (io->op == RBLK_PROVIDER_READ || io->op == RBLK_PROVIDER_WRITE) {
		bio->iov = io->iov;
		bio->iovcnt = io->iovcnt;
		/* One unit of the pool: io_uring's fixed buffer of the same memory. */
		if (io->iov == req->iov && io->iovcnt == 1)
			bio->buf_index = req->buf_index;
	}

	/* Keep the order: nothing overtakes requests already parked. */
	if (wq && wq->count) {
		waitq_push(wq, req);
		return 0;
	}
	ret = rblk_bqueue_submit(req->sq->bq, bio);
	if (ret == -EAGAIN && wq) {
		waitq_push(wq, req);
		return 0;
	}
	return ret;
}

static void bdev_close(void *ctx)
{
	rblk_bdev_close(ctx);
}

static const struct rblk_provider_ops bdev_ops = {
	.size = sizeof(bdev_ops),
	.submit = bdev_submit,
	.close = bdev_close,
};

int rblk_bdev_provider_sync(const struct rblk_provider *p)
{
	if (p->ops != &bdev_ops)
		return -EOPNOTSUPP;
	return rblk_bdev_sync(p->ctx);
}

bool rblk_bdev_provider_is(const struct rblk_provider *p)
{
	return p->ops == &bdev_ops;
}

int rblk_bdev_provider_watch_size(const struct rblk_provider *p,
				  void (*fn)(void *arg, uint64_t bytes), void *arg)
{
	if (p->ops != &bdev_ops)
		return -EOPNOTSUPP;
	return rblk_bdev_watch_size(p->ctx, fn, arg);
}

int rblk_bdev_provider_open(struct rblk_target *tgt, const struct rblk_ns_opts *opts,
			    struct rblk_provider *out)
{
	struct rblk_bdev_opts bo = { .size = sizeof(bo) };
	const char *path = opts->path;
	struct rblk_bdev *bdev;
	int ret;

	bo.read_only = opts->read_only;
	bo.block_size = opts->block_size;
	bo.direct = RBLK_DIRECT_AUTO;
	bo.path = path;
	if (!strncmp(path, "mem:", 4) || !strncmp(path, "null:", 5)) {
		bo.engine = path[0] == 'm' ? "mem" : "null";
		char why[160];

		ret = rblk_tgt_parse_mem_size(strchr(path, ':') + 1, &bo.capacity, why, sizeof(why));
		if (ret) {
			RBLK_ERR("namespace %s: the size %s", path, why);
			return -EINVAL;
		}
	} else if (rblk_rbd_path_is(path)) {
		/* Served on any poll group's queue, whatever the target's engine. */
		if (!rblk_backend_built("rbd")) {
			RBLK_ERR("namespace %s: this build has no RBD support (librbd-dev)", path);
			return -EOPNOTSUPP;
		}
		bo.engine = "rbd";
		bo.ceph_conf = tgt->opts.rbd_conf;
		bo.ceph_id = tgt->opts.rbd_id;
		bo.ceph_keyring = tgt->opts.rbd_keyring;
	} else {
		/* The poll groups' queues serve one engine: the target's. */
		if (opts->backend && strcmp(opts->backend, tgt->backend)) {
			RBLK_ERR("namespace %s: backend \"%s\" differs from the target's \"%s\"",
				 path, opts->backend, tgt->backend);
			return -EINVAL;
		}
		bo.engine = tgt->backend;
	}
	ret = rblk_bdev_open(&bo, &bdev);
	if (ret) {
		RBLK_ERR("namespace %s: cannot open: %s", path, strerror(-ret));
		return ret;
	}
	rblk_provider_init(out);
	out->ops = &bdev_ops;
	out->ctx = bdev;
	out->block_size = rblk_bdev_block_size(bdev);
	out->num_blocks = bdev->size >> bdev->lba_shift;
	out->read_only = bdev->read_only;
	out->volatile_cache = bdev->caps.write_cache;
	/* The engines zero by themselves (fallocate, BLKZEROOUT, or writes). */
	out->can_write_zeroes = true;
	/* Discard reaches the engine, which knows when it is a no-op. */
	out->can_discard = true;
	out->discard_zeroes = bdev->caps.can_discard && bdev->caps.discard_zeroes;
	/* Block devices only, as the kernel target: files and RAM give no hints. */
	if (bdev->is_blockdev && bdev->limits.physical_block_size) {
		const struct rblk_bdev_limits *l = &bdev->limits;
		uint32_t bs = out->block_size;

		/* In whole blocks of the namespace, whose blocks may be larger. */
		out->physical_block_size = l->physical_block_size > bs ? l->physical_block_size : bs;
		out->optimal_io_size = l->optimal_io_size / bs * bs;
		if (bdev->caps.can_discard && l->discard_granularity)
			out->discard_granularity = (l->discard_granularity + bs - 1) / bs * bs;
	}
	return 0;
}

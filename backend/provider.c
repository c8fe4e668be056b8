/* SPDX-License-Identifier: MIT */
/*
 * The built-in backends as the target's storage (target/storage.h) and as
 * providers (include/rblk/provider.h): a file or block device through the
 * target's kernel engine (io_uring or libaio), "mem:SIZE" (RAM), "null:SIZE"
 * and "rbd:POOL/IMAGE" (Ceph, completing from librbd's threads). The core
 * sees them through the same seam as an embedder's provider, so everything
 * that runs against rblk-target proves that seam.
 *
 * Thread model: the provider names one engine per target, whose per-thread
 * context is a backend queue (rblk_bqueue: one io_uring ring or libaio
 * context per poll group, shared by all its namespaces) and a parking
 * queue. submit() runs on a poll group's thread and sends the io through
 * that thread's queue (io->thread); when the queue is full the io parks,
 * FIFO, and goes when completions make room (the engine's poll). The
 * backend completes on the same thread, from rblk_bqueue_poll(), and hands
 * the result to rblk_provider_complete() like any provider. The io's
 * private area (io->priv) holds the backend request.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/provider.h"
#include "backend/rbd_path.h"
#include "common/log.h"
#include "common/util.h"
#include "target/storage.h"

struct rblk_storage {
	char engine[16];                 /* "uring" or "aio": files and block devices */
	unsigned depth;                  /* each thread's backend queue */
	const char *rbd_conf, *rbd_id, *rbd_keyring; /* the target's copies */
	struct rblk_provider_engine eng;
};

/* One namespace's provider context. */
struct bns {
	struct rblk_bdev *bdev;
	void (*resized)(void *arg, uint64_t num_blocks);
	void *resized_arg;
};

/* An io as the backend sees it, in io->priv. */
struct bio_slot {
	struct rblk_bio bio;
	struct rblk_provider_io *io;
	struct bio_slot *next;           /* parking queue */
};

_Static_assert(sizeof(struct bio_slot) <= RBLK_PROVIDER_IO_PRIV_MAX,
	       "the backend request must fit in io->priv");

/* One poll group's context: its backend queue and the ios parked for room. */
struct bthread {
	struct rblk_bqueue *bq;
	struct bio_slot *park_head;
	struct bio_slot **park_tail;
	unsigned parked;
};

static void bio_done(struct rblk_bio *bio)
{
	struct bio_slot *slot = rblk_container_of(bio, struct bio_slot, bio);

	rblk_provider_complete(slot->io, bio->res);
}

/* ------------------------------------------------------------------------ */
/* The engine: one backend queue per poll-group thread.                     */

static int eng_attach(const struct rblk_provider_engine *e, void **out)
{
	const struct rblk_storage *s = rblk_container_of(e, struct rblk_storage, eng);
	struct rblk_bqueue_opts bo = { .size = sizeof(bo) };
	struct bthread *t = calloc(1, sizeof(*t));
	int ret;

	if (!t)
		return -ENOMEM;
	/* Created here: io_uring's SINGLE_ISSUER binds the ring to this thread. */
	bo.engine = s->engine;
	bo.depth = s->depth;
	bo.flags = RBLK_BQUEUE_SINGLE_ISSUER;
	ret = rblk_bqueue_create(&bo, &t->bq);
	if (ret) {
		free(t);
		return ret;
	}
	t->park_tail = &t->park_head;
	*out = t;
	return 0;
}

static void eng_detach(void *thread)
{
	struct bthread *t = thread;

	rblk_bqueue_destroy(t->bq);
	free(t);
}

static void park(struct bthread *t, struct bio_slot *slot)
{
	slot->next = NULL;
	*t->park_tail = slot;
	t->park_tail = &slot->next;
	t->parked++;
}

/* Parked ios, oldest first, until the queue is full again. */
static unsigned unpark(struct bthread *t)
{
	unsigned n = 0;

	while (t->park_head) {
		struct bio_slot *slot = t->park_head;
		int ret = rblk_bqueue_submit(t->bq, &slot->bio);

		if (ret == -EAGAIN)
			break;
		t->park_head = slot->next;
		if (!t->park_head)
			t->park_tail = &t->park_head;
		t->parked--;
		n++;
		/* Accepted at submit time, so a refusal now is a completion. */
		if (ret)
			rblk_provider_complete(slot->io, ret);
	}
	return n;
}

static int eng_poll(void *thread, unsigned max)
{
	struct bthread *t = thread;
	int r;

	if (!rblk_bqueue_inflight(t->bq))
		return 0;
	r = rblk_bqueue_poll(t->bq, max);
	/* Room in the queue: parked ios go before the iteration's new ones. */
	if (r > 0 && t->park_head)
		r += (int)unpark(t);
	return r;
}

static int eng_flush(void *thread)
{
	struct bthread *t = thread;

	return rblk_bqueue_flush_submissions(t->bq);
}

static unsigned eng_inflight(void *thread, unsigned *local)
{
	struct bthread *t = thread;

	*local = rblk_bqueue_inflight_local(t->bq);
	return rblk_bqueue_inflight(t->bq) + t->parked;
}

static int eng_wait_fd(void *thread)
{
	struct bthread *t = thread;

	return rblk_bqueue_eventfd(t->bq);
}

static int eng_notify(void *thread, bool on)
{
	struct bthread *t = thread;

	return rblk_bqueue_eventfd_enable(t->bq, on);
}

static int eng_register_buffers(void *thread, const struct iovec *iov, unsigned n)
{
	struct bthread *t = thread;

	return rblk_bqueue_register_buffers(t->bq, iov, n);
}

/* ------------------------------------------------------------------------ */
/* The provider.                                                             */

static const enum rblk_bio_op bio_ops[] = {
	[RBLK_PROVIDER_READ] = RBLK_BIO_READ,
	[RBLK_PROVIDER_WRITE] = RBLK_BIO_WRITE,
	[RBLK_PROVIDER_FLUSH] = RBLK_BIO_FLUSH,
	[RBLK_PROVIDER_WRITE_ZEROES] = RBLK_BIO_WRITE_ZEROES,
	[RBLK_PROVIDER_DISCARD] = RBLK_BIO_DISCARD,
	[RBLK_PROVIDER_COMPARE_WRITE] = RBLK_BIO_COMPARE_WRITE,
};

static int bns_submit(void *ctx, struct rblk_provider_io *io)
{
	struct bns *b = ctx;
	struct bthread *t = io->thread;
	struct bio_slot *slot = io->priv;
	struct rblk_bio *bio = &slot->bio;
	int ret;

	if ((unsigned)io->op >= sizeof(bio_ops) / sizeof(bio_ops[0]))
		return -EOPNOTSUPP;
	/*
	 * Every member the caller owns, and no more: the backend sets its
	 * private part, and zeroing the whole bio costs a read a cache line.
	 */
	slot->io = io;
	bio->op = bio_ops[io->op];
	bio->flags = io->flags & RBLK_PROVIDER_FUA ? RBLK_BIO_FUA : 0;
	bio->bdev = b->bdev;
	bio->offset = io->offset;
	bio->len = io->len;
	bio->iov = NULL;
	bio->iovcnt = 0;
	bio->cmp_iov = NULL;
	bio->cmp_iovcnt = 0;
	bio->buf_index = -1;
	bio->cb = bio_done;
	switch (io->op) {
	case RBLK_PROVIDER_READ:
	case RBLK_PROVIDER_WRITE:
		bio->iov = io->iov;
		bio->iovcnt = io->iovcnt;
		/* One unit of the pool: io_uring's fixed buffer of the same memory. */
		bio->buf_index = io->buf_index;
		break;
	case RBLK_PROVIDER_COMPARE_WRITE:
		bio->iov = io->iov;
		bio->iovcnt = io->iovcnt;
		bio->cmp_iov = io->cmp_iov;
		bio->cmp_iovcnt = io->cmp_iovcnt;
		break;
	default:
		break;
	}

	/* Keep the order: nothing overtakes ios already parked. */
	if (t->park_head) {
		park(t, slot);
		return 0;
	}
	ret = rblk_bqueue_submit(t->bq, bio);
	if (ret == -EAGAIN) {
		park(t, slot);
		return 0;
	}
	return ret;
}

static void bns_close(void *ctx)
{
	struct bns *b = ctx;

	rblk_bdev_close(b->bdev);
	free(b);
}

static int bns_sync(void *ctx)
{
	struct bns *b = ctx;

	return rblk_bdev_sync(b->bdev);
}

/* On librbd's thread: the image's new size, in the namespace's blocks. */
static void bns_resized(void *arg, uint64_t bytes)
{
	struct bns *b = arg;

	b->resized(b->resized_arg, bytes >> b->bdev->lba_shift);
}

static int bns_watch_size(void *ctx, void (*fn)(void *arg, uint64_t num_blocks), void *arg)
{
	struct bns *b = ctx;

	b->resized = fn;
	b->resized_arg = arg;
	return rblk_bdev_watch_size(b->bdev, bns_resized, b);
}

static int bns_resv_load(void *ctx, void *buf, size_t len, size_t *out_len)
{
	struct bns *b = ctx;

	return rblk_bdev_resv_load(b->bdev, buf, len, out_len);
}

static int bns_resv_store(void *ctx, const void *buf, size_t len)
{
	struct bns *b = ctx;

	return rblk_bdev_resv_store(b->bdev, buf, len);
}

static int bns_resv_watch(void *ctx, void (*fn)(void *arg), void *arg)
{
	struct bns *b = ctx;

	return rblk_bdev_resv_watch(b->bdev, fn, arg);
}

static const struct rblk_provider_ops bns_ops = {
	.size = sizeof(bns_ops),
	.submit = bns_submit,
	.close = bns_close,
	.sync = bns_sync,
	.watch_size = bns_watch_size,
};

/*
 * An engine that keeps a reservation state shared by gateways (rbd): the
 * target uses the provider's store only where these members are set.
 */
static const struct rblk_provider_ops bns_shared_resv_ops = {
	.size = sizeof(bns_shared_resv_ops),
	.submit = bns_submit,
	.close = bns_close,
	.sync = bns_sync,
	.watch_size = bns_watch_size,
	.resv_load = bns_resv_load,
	.resv_store = bns_resv_store,
	.resv_watch = bns_resv_watch,
};

static void provider_fill(struct rblk_storage *s, struct bns *b, struct rblk_provider *out)
{
	const struct rblk_bdev *bdev = b->bdev;

	rblk_provider_init(out);
	out->ops = bdev->caps.shared_resv ? &bns_shared_resv_ops : &bns_ops;
	out->ctx = b;
	out->engine = &s->eng;
	out->block_size = rblk_bdev_block_size(bdev);
	out->num_blocks = bdev->size >> bdev->lba_shift;
	out->read_only = bdev->read_only;
	out->volatile_cache = bdev->caps.write_cache;
	/* The engines zero by themselves (fallocate, BLKZEROOUT, or writes). */
	out->can_write_zeroes = true;
	/* Discard reaches the engine, which knows when it is a no-op. */
	out->can_discard = true;
	out->discard_zeroes = bdev->caps.can_discard && bdev->caps.discard_zeroes;
	/* RBD: librbd's compare-and-write, atomic across every gateway of the image. */
	out->can_compare_write = bdev->caps.compare_write;
	out->compare_write_unit = bdev->caps.compare_write_unit;
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
}

static int storage_open(struct rblk_storage *s, const struct rblk_ns_opts *opts,
			struct rblk_provider *out)
{
	struct rblk_bdev_opts bo = { .size = sizeof(bo) };
	const char *path = opts->path;
	/* Sized: an embedder built against an older header has no such field. */
	bool rbd_cache = opts->size > offsetof(struct rblk_ns_opts, rbd_cache) && opts->rbd_cache;
	struct bns *b;
	int ret;

	if (rbd_cache && !rblk_rbd_path_is(path)) {
		RBLK_ERR("namespace %s: rbd_cache is for rbd: namespaces only", path);
		return -EINVAL;
	}
	bo.read_only = opts->read_only;
	bo.block_size = opts->block_size;
	bo.direct = RBLK_DIRECT_AUTO;
	bo.path = path;
	if (!strncmp(path, "mem:", 4) || !strncmp(path, "null:", 5)) {
		char why[160];

		bo.engine = path[0] == 'm' ? "mem" : "null";
		ret = rblk_backend_mem_size(strchr(path, ':') + 1, &bo.capacity, why, sizeof(why));
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
		bo.rbd_cache = rbd_cache;
		bo.ceph_conf = s->rbd_conf;
		bo.ceph_id = s->rbd_id;
		bo.ceph_keyring = s->rbd_keyring;
	} else {
		/* The poll groups' queues serve one engine: the target's. */
		if (opts->backend && strcmp(opts->backend, s->engine)) {
			RBLK_ERR("namespace %s: backend \"%s\" differs from the target's \"%s\"",
				 path, opts->backend, s->engine);
			return -EINVAL;
		}
		bo.engine = s->engine;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	ret = rblk_bdev_open(&bo, &b->bdev);
	if (ret) {
		RBLK_ERR("namespace %s: cannot open: %s", path, strerror(-ret));
		free(b);
		return ret;
	}
	provider_fill(s, b, out);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The storage.                                                              */

static int storage_create(const struct rblk_target_opts *opts, struct rblk_storage **out,
			  char *why, size_t len)
{
	struct rblk_storage *s;
	const char *engine = opts->backend;

	if (engine && strcmp(engine, "uring") && strcmp(engine, "aio")) {
		snprintf(why, len, "backend \"%s\" is not \"uring\" or \"aio\"", engine);
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	snprintf(s->engine, sizeof(s->engine), "%s",
		 engine ? engine : rblk_backend_auto_name(NULL, 0));
	/*
	 * One queue serves all of a poll group's hosts: as deep as one host's
	 * queue may be, at least the default, within what a ring takes.
	 */
	s->depth = opts->max_queue_depth > RBLK_BQUEUE_MAX_DEPTH ? RBLK_BQUEUE_MAX_DEPTH
		   : opts->max_queue_depth < RBLK_BQUEUE_DEFAULT_DEPTH ? RBLK_BQUEUE_DEFAULT_DEPTH
								  : opts->max_queue_depth;
	s->rbd_conf = opts->rbd_conf;
	s->rbd_id = opts->rbd_id;
	s->rbd_keyring = opts->rbd_keyring;
	s->eng = (struct rblk_provider_engine){
		.size = sizeof(s->eng),
		.name = s->engine,
		.io_priv_size = sizeof(struct bio_slot),
		.attach = eng_attach,
		.detach = eng_detach,
		.poll = eng_poll,
		.flush = eng_flush,
		.inflight = eng_inflight,
		.wait_fd = eng_wait_fd,
		.notify = eng_notify,
		.register_buffers = eng_register_buffers,
	};
	*out = s;
	return 0;
}

static void storage_destroy(struct rblk_storage *s)
{
	free(s);
}

static const char *storage_engine_name(const struct rblk_storage *s)
{
	return s->engine;
}

static const struct rblk_provider_engine *storage_engine(struct rblk_storage *s)
{
	return &s->eng;
}

void rblk_backend_storage_set_depth(struct rblk_storage *s, unsigned depth)
{
	s->depth = depth;
}

const struct rblk_storage_ops rblk_backend_storage = {
	.name = "built-in backends",
	.create = storage_create,
	.destroy = storage_destroy,
	.engine_name = storage_engine_name,
	.engine = storage_engine,
	.open = storage_open,
};

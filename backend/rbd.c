/* SPDX-License-Identifier: MIT */
/*
 * The "rbd" engine: a namespace backed by a Ceph RBD image through librbd,
 * named "rbd:POOL/IMAGE" or "rbd:POOL/NAMESPACE/IMAGE".
 *
 * The cluster is found the way every Ceph client finds it: the configuration
 * file librados picks ($CEPH_CONF, else /etc/ceph/ceph.conf, ...), then
 * $CEPH_ARGS on top (e.g. "--keyring /path --mon_host ..."). The identity is
 * client.$RBLK_RBD_ID, default client.admin. One librados connection per
 * namespace: simple, and a namespace's failure stays its own.
 *
 * I/O is asynchronous (rbd_aio_*). librbd runs completion callbacks on its own
 * threads, so a callback only notes the result and hands the bio back to the
 * queue that submitted it (rblk_bqueue_complete_remote: a short mutex and an
 * eventfd write). The bio's callback then runs on that queue's owner, from its
 * poll, exactly as for the kernel engines. No thread of ours, none per request.
 *
 * FUA (write, write zeroes): librbd has no per-write FUA, but a flush it
 * accepts completes only after the writes submitted before it (librbd waits
 * for in-flight async operations before flushing). So an FUA write is the
 * write plus a flush submitted right behind it, and the bio finishes when
 * both have: priv.done counts the completions still outstanding.
 *
 * Size: librbd's update watch (rbd_update_watch) calls us on one of its
 * threads whenever the image header changes (a resize by "rbd resize" or
 * any client, but also snapshots and lock moves). The callback reads the
 * size, and only when it really changed stores it in bdev->size (atomic: the
 * queues' range check reads it) and tells the watcher, which hands the
 * news on to the target (target/ns.c). rbd_update_unwatch waits for a
 * callback in flight, so closing never races one.
 *
 * Reservations: the NVMe reservation state lives in a RADOS object next to
 * the image (rbd_resv.c), so every gateway exporting the image shares it.
 * An image without an id (the old format 1) has none: the target then keeps
 * that namespace's reservations per gateway, as for a file.
 *
 * Errors: librbd's results are -errno (-EIO, -ENOSPC when the pool is full,
 * -EROFS, -ETIMEDOUT, -EBLOCKLISTED, ...), left unchanged in bio->res for the
 * target's errno-to-status mapping, as with the other engines.
 */
#include <errno.h>
#include <pthread.h>
#include <rados/librados.h>
#include <rbd/librbd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/internal.h"
#include "backend/rbd_path.h"
#include "backend/rbd_resv.h"
#include "common/log.h"

#define RBD_DEFAULT_ID "admin"
#define RBD_MOUNT_TIMEOUT "30" /* seconds to reach the monitors */
#define CEPH_MOUNT_TIMEOUT_DEFAULT "300" /* Ceph's own, as rados_conf_get prints it */

struct rbd_dev {
	rados_t cluster;
	rados_ioctx_t ioctx;
	rbd_image_t image;
	struct rblk_bdev *bdev;
	struct rblk_rbd_resv *resv;     /* the shared reservation state, or NULL */
	/* The size watch, set once by rbd_watch_size. */
	pthread_mutex_t size_lock;      /* one size check at a time */
	bool watching;
	uint64_t watch_handle;
	rblk_bdev_resize_fn *resized;
	void *resized_arg;
};

/*
 * Connects as client.ID (opts->ceph_id, else $RBLK_RBD_ID, else admin) with
 * the usual Ceph client configuration: the file (opts->ceph_conf, else
 * $CEPH_CONF or Ceph's search path), $CEPH_ARGS on top, then the options
 * given to us, which win as a command line would.
 */
static int cluster_connect(const char *label, const struct rblk_bdev_opts *opts, rados_t *out)
{
	const char *id = opts->ceph_id ? opts->ceph_id : getenv("RBLK_RBD_ID");
	char name[128], tmo[32];
	rados_t cl;
	int r;

	if (!id || !*id)
		id = RBD_DEFAULT_ID;
	if ((size_t)snprintf(name, sizeof(name), "client.%s", id) >= sizeof(name))
		return -EINVAL;
	r = rados_create2(&cl, "ceph", name, 0);
	if (r < 0)
		return r;
	/*
	 * No file at all is fine when Ceph searches (CEPH_ARGS may carry
	 * mon_host and the key); a file we were given must be there.
	 */
	r = rados_conf_read_file(cl, opts->ceph_conf);
	if (r < 0 && (r != -ENOENT || opts->ceph_conf)) {
		RBLK_ERR("backend: %s: reading the Ceph configuration %s: %s", label,
			 opts->ceph_conf ? opts->ceph_conf : "", strerror(-r));
		goto out_shutdown;
	}
	/* Ceph reads CEPH_ARGS once per process and keeps that value. */
	r = rados_conf_parse_env(cl, NULL);
	if (r < 0) {
		RBLK_ERR("backend: %s: parsing CEPH_ARGS: %s", label, strerror(-r));
		goto out_shutdown;
	}
	if (opts->ceph_keyring) {
		r = rados_conf_set(cl, "keyring", opts->ceph_keyring);
		if (r < 0)
			goto out_shutdown;
	}
	/*
	 * Ceph's default (300 s) would hold the target's start-up that long when
	 * no monitor answers: ours, unless the file or CEPH_ARGS chose one (a
	 * value set here would override theirs, so it is set only on the default).
	 */
	if (rados_conf_get(cl, "client_mount_timeout", tmo, sizeof(tmo)) == 0 &&
	    !strcmp(tmo, CEPH_MOUNT_TIMEOUT_DEFAULT)) {
		r = rados_conf_set(cl, "client_mount_timeout", RBD_MOUNT_TIMEOUT);
		if (r < 0)
			goto out_shutdown;
	}
	r = rados_connect(cl);
	if (r < 0) {
		RBLK_ERR("backend: %s: connecting to the Ceph cluster as %s: %s", label, name,
			 strerror(-r));
		goto out_shutdown;
	}
	*out = cl;
	return 0;

out_shutdown:
	rados_shutdown(cl);
	return r;
}

/* The image's reservation store, named by its id; none for an image without one. */
static int open_resv(struct rbd_dev *d, const char *label)
{
	char id[96];
	int r;

	r = rbd_get_id(d->image, id, sizeof(id));
	if (r < 0) {
		RBLK_WARN("backend: %s: no image id (%s): reservations stay this gateway's own",
			  label, strerror(-r));
		return 0;
	}
	return rblk_rbd_resv_create(d->ioctx, id, label, &d->resv);
}

static int rbd_bdev_open(struct rblk_bdev *bdev, const struct rblk_bdev_opts *opts)
{
	uint32_t bs = opts->block_size ? opts->block_size : 512;
	struct rblk_rbd_path p;
	struct rbd_dev *d;
	uint64_t size;
	char cache[16] = "";
	int r;

	r = rblk_rbd_path_parse(opts->path, &p);
	if (r) {
		RBLK_ERR("backend: %s: not rbd:POOL/IMAGE or rbd:POOL/NAMESPACE/IMAGE",
			 opts->path ? opts->path : "(null)");
		return r;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	pthread_mutex_init(&d->size_lock, NULL);
	r = cluster_connect(bdev->path, opts, &d->cluster);
	if (r)
		goto out_free;
	/*
	 * librbd's cache on (Ceph's default) completes writes before the OSDs
	 * have them: a second gateway on the image reads around them, and they
	 * die with this process although the host was told they completed. Off
	 * unless the namespace asks for it by name, whatever ceph.conf or
	 * CEPH_ARGS say (this connection is the image's own): a completed
	 * write is in the cluster, and Flush has nothing to do. On, the host is
	 * told of a volatile cache and Flush reaches librbd.
	 */
	(void)rados_conf_get(d->cluster, "rbd_cache", cache, sizeof(cache));
	r = rados_conf_set(d->cluster, "rbd_cache", opts->rbd_cache ? "true" : "false");
	if (r < 0) {
		RBLK_ERR("backend: %s: setting rbd_cache: %s", bdev->path, strerror(-r));
		goto out_shutdown;
	}
	if (opts->rbd_cache)
		RBLK_WARN("backend: %s: librbd's write-back cache is on (rbd_cache): writes "
			  "complete before the cluster has them; export this image through no "
			  "other gateway", bdev->path);
	else if (!strcmp(cache, "true"))
		RBLK_INFO("backend: %s: librbd's cache off (the namespace did not ask for "
			  "rbd_cache), although the Ceph configuration has it on", bdev->path);
	r = rados_ioctx_create(d->cluster, p.pool, &d->ioctx);
	if (r < 0) {
		RBLK_ERR("backend: %s: pool %s: %s", bdev->path, p.pool, strerror(-r));
		goto out_shutdown;
	}
	if (p.ns[0])
		rados_ioctx_set_namespace(d->ioctx, p.ns);
	if (opts->read_only)
		r = rbd_open_read_only(d->ioctx, p.image, &d->image, NULL);
	else
		r = rbd_open(d->ioctx, p.image, &d->image, NULL);
	if (r < 0) {
		RBLK_ERR("backend: %s: image %s: %s", bdev->path, p.image, strerror(-r));
		goto out_ioctx;
	}
	r = rbd_get_size(d->image, &size);
	if (r < 0)
		goto out_close;
	r = open_resv(d, bdev->path);
	if (r)
		goto out_close;
	/* A tail shorter than a block cannot be addressed: leave it out. */
	size &= ~(uint64_t)(bs - 1);
	if (!size) {
		RBLK_ERR("backend: %s: image smaller than one %u-byte block", bdev->path, bs);
		r = -EINVAL;
		goto out_resv;
	}
	d->bdev = bdev;
	bdev->priv = d;
	bdev->size = size;
	bdev->lba_shift = __builtin_ctz(bs);
	bdev->buf_align = 1;
	bdev->caps = (struct rblk_bdev_caps){
		.can_flush = true,
		.can_write_zeroes = true,
		.can_discard = true,
		/* rbd_skip_partial_discard (default on) leaves partial objects
		 * as they were: no promise of zeroes. */
		.discard_zeroes = false,
		.write_cache = opts->rbd_cache,
		.shared_resv = d->resv != NULL,
		/*
		 * One RADOS operation compares and writes at the OSD: atomic for
		 * every client; librbd takes one 512-byte sector at a time
		 * (-EINVAL beyond, or across a sector's end).
		 */
		.compare_write = true,
		.compare_write_unit = 512,
	};
	return 0;

out_resv:
	rblk_rbd_resv_destroy(d->resv);
out_close:
	rbd_close(d->image);
out_ioctx:
	rados_ioctx_destroy(d->ioctx);
out_shutdown:
	rados_shutdown(d->cluster);
out_free:
	pthread_mutex_destroy(&d->size_lock);
	free(d);
	return r;
}

static void rbd_bdev_close(struct rblk_bdev *bdev)
{
	struct rbd_dev *d = bdev->priv;

	if (!d)
		return;
	/* Waits for a size callback in flight: none runs after this. */
	if (d->watching)
		rbd_update_unwatch(d->image, d->watch_handle);
	/* Its watch's callbacks use the ioctx: they are over when this returns. */
	rblk_rbd_resv_destroy(d->resv);
	/* rbd_close flushes librbd's cache and waits for its I/O. */
	rbd_close(d->image);
	rados_ioctx_destroy(d->ioctx);
	rados_shutdown(d->cluster);
	pthread_mutex_destroy(&d->size_lock);
	free(d);
	bdev->priv = NULL;
}

static int rbd_bdev_sync(struct rblk_bdev *bdev)
{
	struct rbd_dev *d = bdev->priv;

	return rbd_flush(d->image);
}

/* On a librbd thread, after the image header changed (maybe not its size). */
static void rbd_header_changed(void *arg)
{
	struct rbd_dev *d = arg;
	uint64_t size, old;
	int r;

	/* The watch's first look (rbd_watch_size) may race a librbd callback. */
	pthread_mutex_lock(&d->size_lock);
	r = rbd_get_size(d->image, &size);
	if (r < 0) {
		pthread_mutex_unlock(&d->size_lock);
		RBLK_WARN("backend: %s: reading the size after an image update: %s",
			  d->bdev->path, strerror(-r));
		return;
	}
	size &= ~(uint64_t)(rblk_bdev_block_size(d->bdev) - 1);
	old = __atomic_exchange_n(&d->bdev->size, size, __ATOMIC_RELAXED);
	if (old != size)
		d->resized(d->resized_arg, size);
	pthread_mutex_unlock(&d->size_lock);
}

static int rbd_watch_size(struct rblk_bdev *bdev, rblk_bdev_resize_fn *fn, void *arg)
{
	struct rbd_dev *d = bdev->priv;
	int r;

	if (d->watching)
		return -EBUSY;
	d->resized = fn;
	d->resized_arg = arg;
	r = rbd_update_watch(d->image, &d->watch_handle, rbd_header_changed, d);
	if (r < 0)
		return r;
	d->watching = true;
	/* A resize between open and now found no watcher: look once more. */
	rbd_header_changed(d);
	return 0;
}

static int rbd_resv_load(struct rblk_bdev *bdev, void *buf, size_t len, size_t *out_len)
{
	struct rbd_dev *d = bdev->priv;

	return rblk_rbd_resv_load(d->resv, buf, len, out_len);
}

static int rbd_resv_store(struct rblk_bdev *bdev, const void *buf, size_t len)
{
	struct rbd_dev *d = bdev->priv;

	return rblk_rbd_resv_store(d->resv, buf, len);
}

static int rbd_resv_watch(struct rblk_bdev *bdev, void (*fn)(void *arg), void *arg)
{
	struct rbd_dev *d = bdev->priv;

	return rblk_rbd_resv_watch(d->resv, fn, arg);
}

/* The first error wins; later ones say less about what went wrong. */
static void note_error(struct rblk_bio *bio, int err)
{
	int zero = 0;

	__atomic_compare_exchange_n(&bio->res, &zero, err, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
}

/* One of the bio's operations is over; the last one hands it back. */
static void part_done(struct rblk_bio *bio)
{
	if (__atomic_sub_fetch(&bio->priv.done, 1, __ATOMIC_ACQ_REL) == 0) {
		free(bio->priv.linear);
		bio->priv.linear = NULL;
		rblk_bqueue_complete_remote(bio->priv.slot, bio);
	}
}

/* @n iovecs into @dst, contiguous. */
static void gather(uint8_t *dst, const struct iovec *iov, int n)
{
	for (int i = 0; i < n; i++) {
		memcpy(dst, iov[i].iov_base, iov[i].iov_len);
		dst += iov[i].iov_len;
	}
}

/*
 * librbd's compare-and-write: the cluster compares and writes in one
 * operation at the OSD, so it is atomic against every gateway's writes.
 * It takes contiguous buffers: scattered halves are copied into one (the
 * target's in-capsule and single-unit data, the usual case, are not).
 * A difference completes with -EILSEQ, which is Compare Failure.
 */
static int issue_compare_write(rbd_image_t img, struct rblk_bio *bio, rbd_completion_t c)
{
	const char *cmp = bio->cmp_iov[0].iov_base, *data = bio->iov[0].iov_base;

	if (bio->iovcnt > 1 || bio->cmp_iovcnt > 1) {
		uint8_t *lin = malloc(2 * bio->len);

		if (!lin)
			return -ENOMEM;
		gather(lin, bio->cmp_iov, bio->cmp_iovcnt);
		gather(lin + bio->len, bio->iov, bio->iovcnt);
		bio->priv.linear = lin;
		cmp = (const char *)lin;
		data = (const char *)lin + bio->len;
	}
	return (int)rbd_aio_compare_and_write(img, bio->offset, bio->len, cmp, data, c,
					      &bio->priv.mismatch_off, 0);
}

/* On a librbd thread: must not block, must not call back into the queue. */
static void rbd_done(rbd_completion_t c, void *arg)
{
	struct rblk_bio *bio = arg;
	ssize_t r = rbd_aio_get_return_value(c);

	rbd_aio_release(c);
	if (r < 0)
		note_error(bio, (int)r);
	else if (bio->op == RBLK_BIO_READ && (uint64_t)r != bio->len)
		note_error(bio, -EIO); /* never a silent short read */
	part_done(bio);
}

/* Starts one librbd operation for bio. 0 or -errno (nothing started). */
static int issue(rbd_image_t img, struct rblk_bio *bio, enum rblk_bio_op op)
{
	const struct iovec *iov = bio->iov;
	rbd_completion_t c;
	int r;

	r = rbd_aio_create_completion(bio, rbd_done, &c);
	if (r < 0)
		return r;
	switch (op) {
	case RBLK_BIO_READ:
		if (bio->iovcnt == 1)
			r = rbd_aio_read(img, bio->offset, iov->iov_len, iov->iov_base, c);
		else
			r = rbd_aio_readv(img, iov, bio->iovcnt, bio->offset, c);
		break;
	case RBLK_BIO_WRITE:
		if (bio->iovcnt == 1)
			r = rbd_aio_write(img, bio->offset, iov->iov_len, iov->iov_base, c);
		else
			r = rbd_aio_writev(img, iov, bio->iovcnt, bio->offset, c);
		break;
	case RBLK_BIO_FLUSH:
		r = rbd_aio_flush(img, c);
		break;
	case RBLK_BIO_WRITE_ZEROES:
		r = rbd_aio_write_zeroes(img, bio->offset, bio->len, c, 0, 0);
		break;
	case RBLK_BIO_DISCARD:
		r = rbd_aio_discard(img, bio->offset, bio->len, c);
		break;
	case RBLK_BIO_COMPARE_WRITE:
		r = issue_compare_write(img, bio, c);
		break;
	default:
		r = -EINVAL;
		break;
	}
	if (r < 0) {
		rbd_aio_release(c);
		free(bio->priv.linear);
		bio->priv.linear = NULL;
		return r;
	}
	return 0;
}

static int rbd_submit(struct rblk_bqueue *q, struct rblk_bio *bio)
{
	struct rbd_dev *d = bio->bdev->priv;
	bool fua = (bio->flags & RBLK_BIO_FUA) &&
		   (bio->op == RBLK_BIO_WRITE || bio->op == RBLK_BIO_WRITE_ZEROES ||
		    bio->op == RBLK_BIO_COMPARE_WRITE);
	int r;

	bio->priv.slot = q;
	bio->priv.linear = NULL;        /* part_done() frees it for every op */
	bio->priv.stage = fua ? RBLK_STAGE_SYNC : RBLK_STAGE_RW;
	bio->priv.done = fua ? 2 : 1;
	r = issue(d->image, bio, bio->op);
	if (r)
		return r;
	if (fua) {
		r = issue(d->image, bio, RBLK_BIO_FLUSH);
		if (r) {
			/* The write is under way: the bio must finish, with this error. */
			note_error(bio, r);
			part_done(bio);
		}
	}
	return 0;
}

const struct rblk_backend_ops rblk_rbd_ops = {
	.name = "rbd",
	.kind = RBLK_BACKEND_REMOTE,
	.bdev_open = rbd_bdev_open,
	.bdev_close = rbd_bdev_close,
	.bdev_sync = rbd_bdev_sync,
	.watch_size = rbd_watch_size,
	.resv_load = rbd_resv_load,
	.resv_store = rbd_resv_store,
	.resv_watch = rbd_resv_watch,
	.submit = rbd_submit,
};

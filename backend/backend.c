/* SPDX-License-Identifier: MIT */
/*
 * The public face of the backends: the engine table and "auto" choice, bdev
 * and queue life cycles, and request validation. Every bio is checked here
 * (op, flags, alignment, range, read-only, queue depth) before an engine or the
 * kernel sees it, so engines stay small and a bad request never costs a system
 * call. Completions funnel through rblk_bio_complete() so in-flight accounting
 * lives in one place.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "backend/internal.h"
#include "common/log.h"

/* Explicit registration: the order is the lookup order. */
static const struct rblk_backend_ops *const engines[] = {
	&rblk_uring_ops,
	&rblk_aio_ops,
	&rblk_mem_ops,
	&rblk_null_ops,
#ifdef RBLK_HAVE_RBD
	&rblk_rbd_ops,
#endif
};

static const struct {
	const char *alias;
	const char *name;
} aliases[] = {
	{ "io_uring", "uring" }, /* fio's spelling */
	{ "libaio", "aio" },
};

const struct rblk_backend_ops *rblk_backend_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(name, aliases[i].alias) == 0)
			name = aliases[i].name;
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (strcmp(name, engines[i]->name) == 0)
			return engines[i];
	return NULL;
}

bool rblk_backend_built(const char *name)
{
	return rblk_backend_find(name) != NULL;
}

static pthread_once_t auto_once = PTHREAD_ONCE_INIT;
static const char *auto_name;
static char auto_why[256];

static void auto_probe(void)
{
	char why[200] = "";

	if (rblk_uring_ops.probe(why, sizeof(why)) == 0) {
		auto_name = rblk_uring_ops.name;
		snprintf(auto_why, sizeof(auto_why), "%s", why);
	} else {
		auto_name = rblk_aio_ops.name;
		snprintf(auto_why, sizeof(auto_why), "io_uring unavailable (%s)", why);
	}
	RBLK_NOTICE("backend: engine %s: %s", auto_name, auto_why);
}

const char *rblk_backend_auto_name(char *why, size_t whylen)
{
	pthread_once(&auto_once, auto_probe);
	if (why && whylen)
		snprintf(why, whylen, "%s", auto_why);
	return auto_name;
}

/* Resolves an engine name (NULL = auto) and checks it can run here. */
static int engine_get(const char *name, const struct rblk_backend_ops **out)
{
	const struct rblk_backend_ops *ops;
	char why[200] = "";
	int r;

	if (!name)
		name = rblk_backend_auto_name(NULL, 0);
	ops = rblk_backend_find(name);
	if (!ops) {
		RBLK_ERR("backend: unknown engine \"%s\" (uring, aio, mem, null%s)", name,
			 rblk_backend_built("rbd") ? ", rbd" : "");
		return -EINVAL;
	}
	if (ops->probe) {
		r = ops->probe(why, sizeof(why));
		if (r < 0) {
			RBLK_ERR("backend: engine %s unavailable: %s", ops->name, why);
			return r;
		}
	}
	*out = ops;
	return 0;
}

/*
 * Options structs carry their size: an older caller passes a shorter struct
 * (missing fields read as zero); a newer caller's extra fields must be zero
 * or we would silently ignore what it asked for (the clone3/openat2 rule).
 */
static int opts_copy(void *dst, size_t dsize, const void *src)
{
	size_t ssize;

	if (!src)
		return -EINVAL;
	ssize = *(const size_t *)src;
	if (ssize < sizeof(size_t))
		return -EINVAL;
	memset(dst, 0, dsize);
	if (ssize > dsize) {
		for (size_t i = dsize; i < ssize; i++)
			if (((const unsigned char *)src)[i])
				return -E2BIG;
		ssize = dsize;
	}
	memcpy(dst, src, ssize);
	return 0;
}

/* Bdev ids: small numbers so a queue can use them as fixed-file slots. */
static pthread_mutex_t id_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t id_used[RBLK_BDEV_MAX / 64];

static int id_alloc(unsigned *id)
{
	int r = -ENFILE;

	pthread_mutex_lock(&id_lock);
	for (unsigned w = 0; w < RBLK_BDEV_MAX / 64; w++) {
		if (id_used[w] == UINT64_MAX)
			continue;
		unsigned b = __builtin_ctzll(~id_used[w]);
		id_used[w] |= 1ull << b;
		*id = w * 64 + b;
		r = 0;
		break;
	}
	pthread_mutex_unlock(&id_lock);
	return r;
}

static void id_free(unsigned id)
{
	pthread_mutex_lock(&id_lock);
	id_used[id / 64] &= ~(1ull << (id % 64));
	pthread_mutex_unlock(&id_lock);
}

int rblk_bdev_open(const struct rblk_bdev_opts *uopts, struct rblk_bdev **out)
{
	const struct rblk_backend_ops *ops;
	struct rblk_bdev_opts opts;
	struct rblk_bdev *bdev;
	uint32_t bs;
	int r;

	r = opts_copy(&opts, sizeof(opts), uopts);
	if (r)
		return r;
	bs = opts.block_size;
	if (bs && (bs < 512 || bs > 65536 || (bs & (bs - 1)))) {
		RBLK_ERR("backend: block size %u is not a power of two in 512..65536", bs);
		return -EINVAL;
	}
	r = engine_get(opts.engine, &ops);
	if (r)
		return r;

	bdev = calloc(1, sizeof(*bdev));
	if (!bdev)
		return -ENOMEM;
	bdev->fd = -1;
	bdev->path = strdup(opts.path ? opts.path : ops->name);
	if (!bdev->path) {
		r = -ENOMEM;
		goto out_free;
	}
	r = id_alloc(&bdev->id);
	if (r) {
		RBLK_ERR("backend: %s: more than %d bdevs open", bdev->path, RBLK_BDEV_MAX);
		goto out_free_path;
	}
	bdev->refs = 1;
	bdev->ops = ops;
	bdev->engine = ops->name;
	bdev->read_only = opts.read_only;
	r = ops->bdev_open(bdev, &opts);
	if (r)
		goto out_free_id;

	RBLK_INFO("backend: %s: %s, %llu bytes, %u-byte blocks, %s%s%s", bdev->path,
		  bdev->engine, (unsigned long long)bdev->size, rblk_bdev_block_size(bdev),
		  bdev->direct ? "O_DIRECT" : "buffered",
		  bdev->read_only ? ", read-only" : "",
		  bdev->caps.can_discard ? ", discard" : "");
	*out = bdev;
	return 0;

out_free_id:
	id_free(bdev->id);
out_free_path:
	free(bdev->path);
out_free:
	free(bdev);
	return r;
}

void rblk_bdev_put(struct rblk_bdev *bdev)
{
	if (__atomic_sub_fetch(&bdev->refs, 1, __ATOMIC_ACQ_REL))
		return;
	/* Only now may another bdev take this id (and so the slot). */
	id_free(bdev->id);
	free(bdev->path);
	free(bdev);
}

int rblk_bdev_sync(struct rblk_bdev *bdev)
{
	if (bdev->ops->bdev_sync)
		return bdev->ops->bdev_sync(bdev);
	/* mem and null: the RAM is all there is; nothing would survive anyway. */
	if (bdev->ops->kind != RBLK_BACKEND_FILE || bdev->fd < 0)
		return 0;
	return rblk_file_datasync(bdev);
}

int rblk_bdev_watch_size(struct rblk_bdev *bdev, rblk_bdev_resize_fn *fn, void *arg)
{
	if (!fn)
		return -EINVAL;
	if (!bdev->ops->watch_size)
		return -EOPNOTSUPP;
	return bdev->ops->watch_size(bdev, fn, arg);
}

int rblk_bdev_resv_load(struct rblk_bdev *bdev, void *buf, size_t len, size_t *out_len)
{
	if (!bdev->caps.shared_resv || !bdev->ops->resv_load)
		return -EOPNOTSUPP;
	return bdev->ops->resv_load(bdev, buf, len, out_len);
}

int rblk_bdev_resv_store(struct rblk_bdev *bdev, const void *buf, size_t len)
{
	if (!bdev->caps.shared_resv || !bdev->ops->resv_store)
		return -EOPNOTSUPP;
	return bdev->ops->resv_store(bdev, buf, len);
}

int rblk_bdev_resv_watch(struct rblk_bdev *bdev, void (*fn)(void *arg), void *arg)
{
	if (!fn)
		return -EINVAL;
	if (!bdev->caps.shared_resv || !bdev->ops->resv_watch)
		return -EOPNOTSUPP;
	return bdev->ops->resv_watch(bdev, fn, arg);
}

void rblk_bdev_close(struct rblk_bdev *bdev)
{
	int refs;

	if (!bdev)
		return;
	refs = __atomic_load_n(&bdev->refs, __ATOMIC_ACQUIRE);
	/*
	 * A queue still holding the file in a slot keeps the object alive: its
	 * slot check compares this pointer, and the id must not be reused.
	 */
	if (refs > 1)
		RBLK_WARN("backend: %s closed while %d queue(s) still hold it registered",
			  bdev->path, refs - 1);
	bdev->ops->bdev_close(bdev);
	rblk_bdev_put(bdev);
}

int rblk_bqueue_create(const struct rblk_bqueue_opts *uopts, struct rblk_bqueue **out)
{
	const struct rblk_backend_ops *ops;
	struct rblk_bqueue_opts opts;
	struct rblk_bqueue *q;
	int r;

	r = opts_copy(&opts, sizeof(opts), uopts);
	if (r)
		return r;
	if (opts.depth == 0)
		opts.depth = RBLK_BQUEUE_DEFAULT_DEPTH;
	if (opts.depth > RBLK_BQUEUE_MAX_DEPTH || (opts.flags & ~RBLK_BQUEUE_SINGLE_ISSUER))
		return -EINVAL;
	r = engine_get(opts.engine, &ops);
	if (r)
		return r;

	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->ops = ops;
	q->depth = opts.depth;
	q->flags = opts.flags;
	q->efd = -1;
	pthread_mutex_init(&q->remote_lock, NULL);
	if (ops->queue_init) {
		r = ops->queue_init(q, &opts);
		if (r) {
			RBLK_ERR("backend: %s queue (depth %u): %s", ops->name, opts.depth,
				 strerror(-r));
			pthread_mutex_destroy(&q->remote_lock);
			free(q);
			return r;
		}
	}
	*out = q;
	return 0;
}

void rblk_bqueue_destroy(struct rblk_bqueue *q)
{
	if (!q)
		return;
	if (q->inflight) {
		/* The callers' requests must not be left dangling: finish them. */
		RBLK_WARN("backend: %s queue destroyed with %u bios in flight; draining",
			  q->ops->name, q->inflight);
		while (q->inflight) {
			rblk_bqueue_flush_submissions(q);
			if (rblk_bqueue_poll(q, q->depth) <= 0)
				usleep(100);
		}
	}
	if (q->ops->queue_fini)
		q->ops->queue_fini(q);
	if (q->efd >= 0)
		close(q->efd);
	pthread_mutex_destroy(&q->remote_lock);
	free(q->bufs);
	free(q);
}

const char *rblk_bqueue_engine(const struct rblk_bqueue *q)
{
	return q->ops->name;
}

unsigned rblk_bqueue_inflight(const struct rblk_bqueue *q)
{
	return q->inflight;
}

unsigned rblk_bqueue_inflight_local(const struct rblk_bqueue *q)
{
	return q->inflight - q->inflight_remote;
}

unsigned rblk_bqueue_depth(const struct rblk_bqueue *q)
{
	return q->depth;
}

/* offset/len: block-aligned, non-empty, inside the bdev. */
static int check_range(const struct rblk_bdev *bdev, uint64_t off, uint64_t len)
{
	uint64_t mask = rblk_bdev_block_size(bdev) - 1;
	uint64_t size = __atomic_load_n(&bdev->size, __ATOMIC_RELAXED);

	if (len == 0 || ((off | len) & mask))
		return -EINVAL;
	if (off > size || len > size - off)
		return -ERANGE;
	return 0;
}

static int check_buffers(const struct rblk_bqueue *q, const struct rblk_bio *bio)
{
	const struct rblk_bdev *bdev = bio->bdev;
	uint64_t amask = bdev->direct ? bdev->buf_align - 1 : 0;
	uint64_t lmask = bdev->direct ? rblk_bdev_block_size(bdev) - 1 : 0;
	uint64_t total = 0;

	if (!bio->iov || bio->iovcnt < 1 || bio->iovcnt > IOV_MAX || bio->len > RBLK_BIO_MAX_RW)
		return -EINVAL;
	for (int i = 0; i < bio->iovcnt; i++) {
		const struct iovec *v = &bio->iov[i];

		/* O_DIRECT: the kernel would say EINVAL, after a system call. */
		if (((uintptr_t)v->iov_base & amask) || (v->iov_len & lmask))
			return -EINVAL;
		total += v->iov_len;
	}
	if (total != bio->len)
		return -EINVAL;
	if (bio->buf_index >= 0 && q->nbufs && bio->iovcnt == 1) {
		const struct iovec *b;
		uintptr_t s = (uintptr_t)bio->iov[0].iov_base;

		if ((unsigned)bio->buf_index >= q->nbufs)
			return -EINVAL;
		b = &q->bufs[bio->buf_index];
		if (s < (uintptr_t)b->iov_base ||
		    s + bio->len > (uintptr_t)b->iov_base + b->iov_len)
			return -EINVAL;
	}
	return 0;
}

/* Both halves describe exactly the range, each like a write's buffers. */
static int check_compare_write(const struct rblk_bqueue *q, const struct rblk_bio *bio)
{
	struct rblk_bio cmp = *bio;
	int r = check_range(bio->bdev, bio->offset, bio->len);

	if (!r)
		r = check_buffers(q, bio);
	if (r)
		return r;
	cmp.iov = bio->cmp_iov;
	cmp.iovcnt = bio->cmp_iovcnt;
	cmp.buf_index = -1;
	return check_buffers(q, &cmp);
}

static int validate(const struct rblk_bqueue *q, const struct rblk_bio *bio)
{
	const struct rblk_bdev *bdev = bio->bdev;
	int r;

	if (bio->flags & ~RBLK_BIO_FUA)
		return -EINVAL;
	switch (bio->op) {
	case RBLK_BIO_WRITE:
		if (bdev->read_only)
			return -EROFS;
		/* fallthrough */
	case RBLK_BIO_READ:
		r = check_range(bdev, bio->offset, bio->len);
		return r ? r : check_buffers(q, bio);
	case RBLK_BIO_FLUSH:
		return 0;
	case RBLK_BIO_WRITE_ZEROES:
	case RBLK_BIO_DISCARD:
		if (bdev->read_only)
			return -EROFS;
		return check_range(bdev, bio->offset, bio->len);
	case RBLK_BIO_COMPARE_WRITE:
		if (!bdev->caps.compare_write)
			return -EOPNOTSUPP;
		if (bdev->read_only)
			return -EROFS;
		return check_compare_write(q, bio);
	}
	return -EINVAL;
}

int rblk_bqueue_submit(struct rblk_bqueue *q, struct rblk_bio *bio)
{
	const struct rblk_backend_ops *ops;
	int r;

	if (!bio->bdev || !bio->cb)
		return -EINVAL;
	ops = bio->bdev->ops;
	if (ops->kind == RBLK_BACKEND_FILE) {
		if (q->ops->kind != RBLK_BACKEND_FILE)
			return -EXDEV;
		ops = q->ops;
	}
	r = validate(q, bio);
	if (r)
		return r;
	if (q->inflight >= q->depth)
		return -EAGAIN;
	bio->res = 0;
	bio->priv.next = NULL;
	bio->priv.slot = NULL;
	bio->priv.done = 0;
	r = ops->submit(q, bio);
	if (r)
		return r;
	q->inflight++;
	if (ops->kind == RBLK_BACKEND_REMOTE)
		q->inflight_remote++;
	return 0;
}

int rblk_bqueue_flush_submissions(struct rblk_bqueue *q)
{
	return q->ops->flush ? q->ops->flush(q) : 0;
}

static void efd_signal(struct rblk_bqueue *q)
{
	uint64_t one = 1;

	/* EAGAIN means the counter is already huge: readable anyway. */
	if (write(q->efd, &one, sizeof(one)) < 0) {
	}
}

void rblk_bqueue_complete_later(struct rblk_bqueue *q, struct rblk_bio *bio)
{
	bio->priv.next = NULL;
	if (q->local_tail) {
		q->local_tail->priv.next = bio;
	} else {
		q->local_head = bio;
		/* The owner pushes these itself: while it polls, a write would only be read back. */
		if (q->efd >= 0 && !q->local_quiet)
			efd_signal(q);
	}
	q->local_tail = bio;
}

void rblk_bqueue_complete_remote(struct rblk_bqueue *q, struct rblk_bio *bio)
{
	bool was_empty;

	bio->priv.next = NULL;
	pthread_mutex_lock(&q->remote_lock);
	was_empty = !q->remote_head;
	if (q->remote_tail)
		q->remote_tail->priv.next = bio;
	else
		__atomic_store_n(&q->remote_head, bio, __ATOMIC_RELEASE);
	q->remote_tail = bio;
	/*
	 * One wake-up per empty-to-non-empty transition is enough: the owner
	 * takes the whole list at once, so a later push finds it empty again.
	 */
	if (was_empty && q->efd >= 0)
		efd_signal(q);
	pthread_mutex_unlock(&q->remote_lock);
}

/* Moves the remote list to the end of the local one (owner thread only). */
static void take_remote(struct rblk_bqueue *q)
{
	struct rblk_bio *head, *tail;

	pthread_mutex_lock(&q->remote_lock);
	head = q->remote_head;
	tail = q->remote_tail;
	__atomic_store_n(&q->remote_head, NULL, __ATOMIC_RELAXED);
	q->remote_tail = NULL;
	pthread_mutex_unlock(&q->remote_lock);
	if (!head)
		return;
	if (q->local_tail)
		q->local_tail->priv.next = head;
	else
		q->local_head = head;
	q->local_tail = tail;
}

void rblk_bio_complete(struct rblk_bqueue *q, struct rblk_bio *bio)
{
	/* Before the callback, so it can submit into the freed slot. */
	q->inflight--;
	if (bio->bdev->ops->kind == RBLK_BACKEND_REMOTE)
		q->inflight_remote--;
	bio->cb(bio);
}

static unsigned drain_local(struct rblk_bqueue *q, unsigned max)
{
	struct rblk_bio *bio = q->local_head, *last = q->local_tail;
	unsigned n = 0;

	/* Detach first: callbacks may complete new bios onto the list. */
	q->local_head = q->local_tail = NULL;
	while (bio && n < max) {
		struct rblk_bio *next = bio->priv.next;

		rblk_bio_complete(q, bio);
		n++;
		bio = next;
	}
	if (bio) {
		/* Out of budget: the rest go back in front, in order. */
		last->priv.next = q->local_head;
		if (!q->local_head)
			q->local_tail = last;
		q->local_head = bio;
		if (q->efd >= 0 && !q->local_quiet)
			efd_signal(q);
	}
	return n;
}

int rblk_bqueue_poll(struct rblk_bqueue *q, unsigned max)
{
	unsigned n = 0;
	int r;

	/* An unlocked peek: a push we miss now has signalled the eventfd. */
	if (__atomic_load_n(&q->remote_head, __ATOMIC_ACQUIRE))
		take_remote(q);
	if (q->local_head)
		n = drain_local(q, max);
	if (n < max && q->ops->poll) {
		r = q->ops->poll(q, max - n);
		if (r < 0)
			return n ? (int)n : r;
		n += r;
	}
	return n;
}

int rblk_bqueue_eventfd(struct rblk_bqueue *q)
{
	int efd, r;

	if (q->efd >= 0)
		return q->efd;
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (efd < 0)
		return -errno;
	if (q->ops->set_eventfd) {
		r = q->ops->set_eventfd(q, efd);
		if (r) {
			close(efd);
			return r;
		}
	}
	pthread_mutex_lock(&q->remote_lock);
	q->efd = efd;
	if (q->local_head || q->remote_head)
		efd_signal(q);
	pthread_mutex_unlock(&q->remote_lock);
	return efd;
}

int rblk_bqueue_eventfd_enable(struct rblk_bqueue *q, bool on)
{
	int r = 0;

	if (q->efd < 0)
		return -EINVAL;
	if (q->ops->eventfd_enable)
		r = q->ops->eventfd_enable(q, on);
	else if (q->ops->set_eventfd)
		r = -EOPNOTSUPP;
	if (r)
		return r;
	q->local_quiet = !on;
	/* Completed while quiet: the owner is about to sleep on the eventfd. */
	if (on && q->local_head)
		efd_signal(q);
	return 0;
}

int rblk_bqueue_register_buffers(struct rblk_bqueue *q, const struct iovec *iov, unsigned n)
{
	struct iovec *copy = NULL;
	int r;

	if (!q->ops->register_buffers)
		return 0;
	if (q->inflight)
		return -EBUSY;
	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		memcpy(copy, iov, n * sizeof(*copy));
	}
	r = q->ops->register_buffers(q, iov, n);
	if (r) {
		/* The engine dropped the old registration before trying. */
		free(copy);
		copy = NULL;
		n = 0;
	}
	free(q->bufs);
	q->bufs = copy;
	q->nbufs = n;
	return r;
}

int rblk_bqueue_register_bdev(struct rblk_bqueue *q, struct rblk_bdev *bdev)
{
	if (bdev->ops->kind != RBLK_BACKEND_FILE)
		return 0;
	if (q->ops->kind != RBLK_BACKEND_FILE)
		return -EXDEV;
	return q->ops->register_bdev ? q->ops->register_bdev(q, bdev) : 0;
}

void rblk_bqueue_unregister_bdev(struct rblk_bqueue *q, struct rblk_bdev *bdev)
{
	if (bdev->ops->kind == RBLK_BACKEND_FILE && q->ops->unregister_bdev)
		q->ops->unregister_bdev(q, bdev);
}

/* SPDX-License-Identifier: MIT */
/*
 * Inside the backend: the engine ops table, the queue object the engines
 * share, the bio stage machine every kernel engine drives, and the file helpers
 * (backend/file.c). Not for use outside backend/ and its tests.
 */
#ifndef RBLK_BACKEND_INTERNAL_H
#define RBLK_BACKEND_INTERNAL_H

#include <pthread.h>

#include "backend/backend.h"

/* What an engine's bdevs are. */
enum rblk_backend_kind {
	RBLK_BACKEND_FILE,   /* files and block devices, served by uring/aio queues */
	RBLK_BACKEND_MEMORY, /* completes inline on any queue (mem, null) */
	/* Served on any queue by a library with its own threads (rbd): those
	 * threads finish bios through rblk_bqueue_complete_remote(). */
	RBLK_BACKEND_REMOTE,
};

/*
 * One per engine. The common layer (backend.c) has validated every bio before
 * an engine sees it: op, alignment, range, read-only, depth. Members marked
 * optional may be NULL.
 */
struct rblk_backend_ops {
	const char *name;
	enum rblk_backend_kind kind;

	/* Optional. 0 when the engine can run on this host, else -errno with a
	 * human reason in why. May be called often: cache the answer. */
	int (*probe)(char *why, size_t whylen);

	/* Fills in bdev (fd or priv, size, lba_shift, caps, ...) from opts.
	 * 0 or -errno; on error it has released whatever it took. */
	int (*bdev_open)(struct rblk_bdev *bdev, const struct rblk_bdev_opts *opts);
	/* Releases what bdev_open took. */
	void (*bdev_close)(struct rblk_bdev *bdev);
	/* Optional. rblk_bdev_sync() for non-file engines that hold data
	 * elsewhere (rbd). Synchronous; 0 or -errno. */
	int (*bdev_sync)(struct rblk_bdev *bdev);
	/* Optional. rblk_bdev_watch_size(): 0 or -errno. */
	int (*watch_size)(struct rblk_bdev *bdev, rblk_bdev_resize_fn *fn, void *arg);
	/* Optional, all three, called only where bdev->caps.shared_resv:
	 * rblk_bdev_resv_load(), _store(), _watch(). */
	int (*resv_load)(struct rblk_bdev *bdev, void *buf, size_t len, size_t *out_len);
	int (*resv_store)(struct rblk_bdev *bdev, const void *buf, size_t len);
	int (*resv_watch)(struct rblk_bdev *bdev, void (*fn)(void *arg), void *arg);

	/* Optional. Sets q->priv up for q->depth bios in flight. 0 or -errno. */
	int (*queue_init)(struct rblk_bqueue *q, const struct rblk_bqueue_opts *opts);
	/* Optional. Frees q->priv; nothing is in flight. */
	void (*queue_fini)(struct rblk_bqueue *q);

	/* Starts or enqueues one validated bio. FILE engines are called with their
	 * own queues; MEMORY engines with any queue and may only use
	 * rblk_bqueue_complete_later(); REMOTE engines with any queue, finishing
	 * from their own threads with rblk_bqueue_complete_remote(). 0 = accepted: the bio completes later
	 * through rblk_bio_complete(). -errno = refused, nothing started. */
	int (*submit)(struct rblk_bqueue *q, struct rblk_bio *bio);
	/* Optional. Hands what submit enqueued to the kernel: count or -errno
	 * (-EAGAIN/-EBUSY: still queued, retry). */
	int (*flush)(struct rblk_bqueue *q);
	/* Optional. Reaps up to max kernel completions, calling
	 * rblk_bio_complete() for each finished bio. Count or -errno. */
	int (*poll)(struct rblk_bqueue *q, unsigned max);
	/* Optional. Makes kernel completions signal efd. 0 or -errno. */
	int (*set_eventfd)(struct rblk_bqueue *q, int efd);
	/* Optional. Kernel completions signal the eventfd set above (on) or
	 * not, without a system call. 0 or -errno. */
	int (*eventfd_enable)(struct rblk_bqueue *q, bool on);
	/* Optional (NULL: accepted and ignored). Registers fixed buffers. */
	int (*register_buffers)(struct rblk_bqueue *q, const struct iovec *iov, unsigned n);
	/* Optional (NULL: nothing to do). Fixed-file slot for bdev. 0 or -errno. */
	int (*register_bdev)(struct rblk_bqueue *q, struct rblk_bdev *bdev);
	void (*unregister_bdev)(struct rblk_bqueue *q, struct rblk_bdev *bdev);
};

extern const struct rblk_backend_ops rblk_uring_ops;
extern const struct rblk_backend_ops rblk_aio_ops;
extern const struct rblk_backend_ops rblk_mem_ops;
extern const struct rblk_backend_ops rblk_null_ops;
#ifdef RBLK_HAVE_RBD
extern const struct rblk_backend_ops rblk_rbd_ops;
#endif

/* "uring"/"io_uring", "aio"/"libaio", "mem", "null"; NULL if unknown. */
const struct rblk_backend_ops *rblk_backend_find(const char *name);

struct rblk_bqueue {
	const struct rblk_backend_ops *ops;
	void *priv;
	unsigned depth;
	unsigned inflight;
	unsigned inflight_remote;       /* of which a REMOTE engine serves */
	unsigned flags;
	int efd;                        /* -1 until rblk_bqueue_eventfd() */
	/*
	 * rblk_bqueue_eventfd_enable(q, false): the owner is awake and polls, so
	 * its own (local) completions need not write the eventfd.
	 */
	bool local_quiet;
	struct rblk_bio *local_head;    /* completed, callback not yet run */
	struct rblk_bio *local_tail;
	/*
	 * Finished by other threads (REMOTE engines), not yet moved to the local
	 * list. Guarded by remote_lock, which also guards efd's publication so a
	 * completion racing rblk_bqueue_eventfd() still wakes the owner.
	 */
	pthread_mutex_t remote_lock;
	struct rblk_bio *remote_head;
	struct rblk_bio *remote_tail;
	/* Registered buffers, kept to validate buf_index before the kernel does. */
	struct iovec *bufs;
	unsigned nbufs;
};

/* References held by queues' fixed-file slots (the open holds one). */
static inline void rblk_bdev_get(struct rblk_bdev *bdev)
{
	__atomic_fetch_add(&bdev->refs, 1, __ATOMIC_RELAXED);
}
void rblk_bdev_put(struct rblk_bdev *bdev);

/* Hands a finished bio (res already set) to the caller: inflight-- and cb. */
void rblk_bio_complete(struct rblk_bqueue *q, struct rblk_bio *bio);
/* Queues a finished bio (res set) whose callback runs from the next poll;
 * signals the eventfd if the local list was empty. */
void rblk_bqueue_complete_later(struct rblk_bqueue *q, struct rblk_bio *bio);
/* The same from any thread (a library's callback thread): the bio's callback
 * still runs on the queue's owner, from its next poll. Never blocks beyond a
 * short mutex and one eventfd write. */
void rblk_bqueue_complete_remote(struct rblk_bqueue *q, struct rblk_bio *bio);

/*
 * The bio stage machine shared by the kernel engines. rblk_bio_start() picks
 * the first stage (false: nothing to do, bio->res set, e.g. a discard the
 * bdev is known not to support and that promised no zeroes); after each kernel (or synchronous) result the engine calls
 * rblk_bio_step(): it returns true when more work is needed (priv.stage and
 * priv.done say what to issue next), false when the bio is finished (bio->res
 * set). Short transfers continue where they stopped; no progress is -EIO.
 */
bool rblk_bio_start(struct rblk_bio *bio);
bool rblk_bio_step(struct rblk_bio *bio, int res);
/* The iovec(s) for the rest of a RW stage: returns the count, sets *iov. */
int rblk_bio_rw_iov(struct rblk_bio *bio, const struct iovec **iov);
/*
 * Splitting a read or write the device would split. The block layer may not
 * split a non-blocking request, so io_uring hands it to a worker thread that
 * issues it blocking: one more thread and context switch per I/O. Issued as
 * parts of at most limits.max_io_size, in parallel, it stays on the fast path.
 * rblk_bio_split() says into how many parts of *part_len bytes (the last may
 * be shorter) a fresh RW bio goes, or 1 (not split: no limit known, under it,
 * several iovecs, more than RBLK_BIO_MAX_PARTS parts). The engine then issues
 * them all, sets priv.parts, and feeds each part's result to
 * rblk_bio_part_done(), which is true once the last is back (bio->res set:
 * the first error, -EIO if the parts moved fewer bytes than asked, else 0).
 */
#define RBLK_BIO_MAX_PARTS 16
unsigned rblk_bio_split(const struct rblk_bio *bio, uint32_t *part_len);
bool rblk_bio_part_done(struct rblk_bio *bio, int res);
/* The next write of the ZERO_WRITE stage: length (<= RBLK_ZERO_BUF_SIZE). */
uint64_t rblk_bio_zero_chunk(const struct rblk_bio *bio);

/* A shared, read-only, page-aligned buffer of zeroes for write-zeroes fallback. */
#define RBLK_ZERO_BUF_SIZE (1u << 20)
const void *rblk_zero_buf(void);

/* Largest number of bdevs open at once (their ids are fixed-file slots). */
#define RBLK_BDEV_MAX 1024

/* backend/file.c: opening files and block devices, and the synchronous
 * operations the kernel engines fall back to. All return 0 or -errno. */
int rblk_file_bdev_open(struct rblk_bdev *bdev, const struct rblk_bdev_opts *opts);
void rblk_file_bdev_close(struct rblk_bdev *bdev);
int rblk_file_datasync(struct rblk_bdev *bdev);
int rblk_file_zero_range(struct rblk_bdev *bdev, uint64_t off, uint64_t len);
int rblk_file_discard(struct rblk_bdev *bdev, uint64_t off, uint64_t len);
/* Remember (once, with a log line) that an operation is unsupported. */
void rblk_file_note_no_zero_range(struct rblk_bdev *bdev, int err);
void rblk_file_note_no_discard(struct rblk_bdev *bdev, int err);

/* backend/mem.c: size, block size and caps of a mem or null bdev. */
int rblk_mem_geometry(struct rblk_bdev *bdev, const struct rblk_bdev_opts *opts);

static inline bool rblk_bdev_flag(const int *flag)
{
	return __atomic_load_n(flag, __ATOMIC_RELAXED) != 0;
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Block backends: the storage behind a namespace, and the per-thread queues that
 * move bytes to and from it.
 *
 *   rblk_bdev    an opened backing store (a file, a block device, a RAM disk, or
 *                the null device). One per namespace, shared by every thread.
 *   rblk_bqueue  one thread's submission/completion context (an io_uring ring, a
 *                libaio context, or just a local completion list). A reactor owns
 *                exactly one and sends the I/O of all its namespaces through it.
 *   rblk_bio     one request, embedded by the caller in its own request object
 *                (never allocated here); the callback finds that object with
 *                container_of().
 *
 * Which engine serves what: file and block-device bdevs are served by "uring" or
 * "aio" queues (either one; the bdev's engine names the one it was opened for).
 * "mem" and "null" bdevs complete on any queue through the queue's local
 * completion list, so the caller never needs to know which kind it talks to.
 *
 * The usual reactor loop:
 *     rblk_bqueue_submit() for each new request   (-EAGAIN: park it, retry later)
 *     rblk_bqueue_flush_submissions()             (one system call for the batch)
 *     rblk_bqueue_poll(q, 32)                     (callbacks run from here)
 * and to sleep: read the rblk_bqueue_eventfd() to reset it, poll until 0, then
 * epoll_wait on it.
 *
 * Errors: setup functions return 0 or -errno. A bio's outcome is bio->res: 0 or
 * the kernel's -errno unchanged (-EIO, -ENOSPC, -EDQUOT, -EROFS, ...), so the
 * caller can map it to an NVMe status. A short transfer is resubmitted for the
 * rest, and one that makes no progress becomes -EIO; never a silent short read.
 */
#ifndef RBLK_BACKEND_H
#define RBLK_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct rblk_backend_ops;
struct rblk_bqueue;

/* What the namespace can do; fixed at open. */
struct rblk_bdev_caps {
	bool can_flush;        /* Flush is accepted (a no-op when !write_cache) */
	bool can_write_zeroes; /* always true: emulated by writing zeroes if need be */
	bool can_discard;      /* discard really deallocates (else it is a no-op) */
	/* Discarded blocks read back as zeroes: where the discard turns out
	 * unsupported, the engine writes the zeroes instead. */
	bool discard_zeroes;
	bool write_cache;      /* volatile cache present: Flush matters (NVMe VWC) */
	/* The engine keeps a reservation state shared with other gateways
	 * (rblk_bdev_resv_load/store/watch work). */
	bool shared_resv;
	/* RBLK_BIO_COMPARE_WRITE works, atomic against every writer of the
	 * storage, other gateways' included (RBD: the cluster does it)... */
	bool compare_write;
	/* ... over at most this many bytes, never across a multiple (0: any). */
	uint32_t compare_write_unit;
};

/*
 * A block device's own I/O limits, as its queue reports them (bytes; 0 for
 * files and RAM: unknown). The target hands them to the host in Identify
 * Namespace as the kernel target does.
 */
struct rblk_bdev_limits {
	uint32_t physical_block_size;
	uint32_t optimal_io_size;      /* 0: none given */
	uint32_t discard_granularity;
	/*
	 * The largest read or write the device's queue takes whole (its
	 * max_sectors_kb, and max_segments pages); 0: no limit known. The
	 * uring engine splits larger transfers itself (backend/bio.c).
	 */
	uint32_t max_io_size;
};

/* How hard to try O_DIRECT (files and block devices). */
enum rblk_bdev_direct {
	RBLK_DIRECT_AUTO = 0, /* O_DIRECT when the file system allows it, else buffered */
	RBLK_DIRECT_OFF,      /* always through the page cache */
	RBLK_DIRECT_REQUIRE,  /* O_DIRECT or fail with the open's -errno */
};

struct rblk_bdev_opts {
	size_t size;            /* sizeof(struct rblk_bdev_opts): fields grow at the end */
	const char *path;       /* file or block device; for mem/null only a label */
	const char *engine;     /* "uring", "aio", "mem", "null"; NULL = auto (uring or aio) */
	bool read_only;         /* open read-only; writes then fail with -EROFS */
	uint32_t block_size;    /* logical block size; 0 = detect (512 for files) */
	uint64_t capacity;      /* mem/null: size in bytes (multiple of the block size) */
	enum rblk_bdev_direct direct;
	/* rbd: the Ceph client (NULL: $CEPH_CONF, $RBLK_RBD_ID, the keyring the
	 * configuration names); these win over $CEPH_ARGS. */
	const char *ceph_conf;
	const char *ceph_id;
	const char *ceph_keyring;
	/*
	 * rbd: librbd's write-back cache on. Off by default, whatever the Ceph
	 * configuration says: with it on, a write the target acknowledged can
	 * sit in this process, unseen by a second gateway on the image and lost
	 * with this one (docs/rbd.md).
	 */
	bool rbd_cache;
};

struct rblk_bdev {
	char *path;             /* as given (mem/null: the label, or the engine name) */
	int fd;                 /* -1 for mem/null */
	void *priv;             /* engine-private (mem: the RAM) */
	uint64_t size;          /* bytes, a multiple of the block size; atomic
				 * loads: a watched engine changes it (rbd) */
	uint32_t lba_shift;     /* log2(logical block size) */
	uint32_t buf_align;     /* buffer addresses must be multiples of this (O_DIRECT) */
	bool read_only;
	bool direct;            /* O_DIRECT in use */
	bool is_blockdev;
	const char *engine;     /* name of the engine that opened it */
	const struct rblk_backend_ops *ops;
	struct rblk_bdev_caps caps;
	struct rblk_bdev_limits limits;

	/* Private to the backend. Shared by all threads: touched only atomically. */
	unsigned id;            /* small process-unique number: fixed-file slot */
	int zero_range_unsupported;
	int discard_unsupported;
	/*
	 * Fault injection for the crash-consistency test only (environment
	 * RBLK_FAULT_FLUSH_NOOP=1 at open): Flush completes without syncing, so
	 * the test can show that it catches a target that loses flushed data.
	 */
	bool fault_flush_noop;
	int refs;               /* 1 while open, +1 per queue holding a fixed-file slot */
};

static inline uint32_t rblk_bdev_block_size(const struct rblk_bdev *bdev)
{
	return 1u << bdev->lba_shift;
}

/* Opens a backing store. 0 or -errno (-ENOENT, -EACCES, -EROFS, -EINVAL, ...). */
int rblk_bdev_open(const struct rblk_bdev_opts *opts, struct rblk_bdev **out);
/*
 * Makes every completed write durable (fdatasync of the file or device),
 * synchronously: for setup and teardown threads, never a reactor's, since it
 * can take seconds on a large page cache. Any thread, concurrently with I/O.
 * 0 (also for mem and null, which hold nothing durable) or -errno.
 */
int rblk_bdev_sync(struct rblk_bdev *bdev);
/*
 * The storage's size changed under an open bdev (an RBD image resized by
 * another client): @size is the new size in bytes, rounded down to whole
 * blocks, and already in bdev->size. Runs on a thread of the engine's own
 * (librbd's), never a queue's: short, non-blocking, no call back into the
 * bdev.
 */
typedef void rblk_bdev_resize_fn(void *arg, uint64_t size);
/*
 * Calls fn whenever the size changes, until rblk_bdev_close(), which waits
 * for a call in flight. One watcher per bdev. 0, -EOPNOTSUPP when the engine
 * cannot tell (files, RAM), -EBUSY when one is set, or -errno.
 */
int rblk_bdev_watch_size(struct rblk_bdev *bdev, rblk_bdev_resize_fn *fn, void *arg);
/*
 * Where caps.shared_resv: the reservation state the engine keeps for the
 * target, shared by every gateway on the same storage (an RBD image's in a
 * RADOS object). The contract of include/rblk/provider.h's resv_load,
 * resv_store and resv_watch; each blocks on the storage, never on a queue's
 * thread. -EOPNOTSUPP without caps.shared_resv.
 */
int rblk_bdev_resv_load(struct rblk_bdev *bdev, void *buf, size_t len, size_t *out_len);
int rblk_bdev_resv_store(struct rblk_bdev *bdev, const void *buf, size_t len);
int rblk_bdev_resv_watch(struct rblk_bdev *bdev, void (*fn)(void *arg), void *arg);
/* Closes it; no queue may have I/O on it. Queues should unregister it first;
 * if one has not, the object (and its id) lives on until that queue lets go. */
void rblk_bdev_close(struct rblk_bdev *bdev);
/*
 * Whether rblk_bdev_open() could open @path for a kernel engine: a regular
 * file or block device that opens with the same flags (read-only, or
 * read-write and, for a block device, exclusive), then closed again. 0, or
 * -errno with "PATH: reason" in @why. For checks before start.
 */
int rblk_bdev_path_check(const char *path, bool read_only, char *why, size_t len);

enum rblk_bio_op {
	RBLK_BIO_READ,
	RBLK_BIO_WRITE,
	RBLK_BIO_FLUSH,        /* fdatasync semantics; offset/len ignored */
	RBLK_BIO_WRITE_ZEROES,
	RBLK_BIO_DISCARD,      /* advisory, like NVMe deallocate */
	/*
	 * Only where caps.compare_write: atomically, if the range holds
	 * cmp_iov's bytes, write iov's, else nothing and res -EILSEQ.
	 */
	RBLK_BIO_COMPARE_WRITE,
};

const char *rblk_bio_op_str(enum rblk_bio_op op);

/* Largest READ/WRITE (a single io_uring/AIO transfer is 32-bit). */
#define RBLK_BIO_MAX_RW (1ull << 30)

/* WRITE / WRITE_ZEROES: durable before completion (NVMe FUA). */
#define RBLK_BIO_FUA (1u << 0)

/* Progress of a bio inside the backend (logs and engines only). */
enum rblk_bio_stage {
	RBLK_STAGE_RW,          /* reading/writing data, priv.done bytes so far */
	RBLK_STAGE_ZERO_RANGE,  /* fallocate(ZERO_RANGE) / BLKZEROOUT */
	RBLK_STAGE_ZERO_WRITE,  /* writing zeroes from the zero buffer */
	RBLK_STAGE_PUNCH,       /* fallocate(PUNCH_HOLE) on a file */
	RBLK_STAGE_BLK_DISCARD, /* discard on a block device */
	RBLK_STAGE_SYNC,        /* fdatasync: Flush, or the FUA tail of write zeroes */
};

struct rblk_bio {
	/*
	 * Set by the caller before rblk_bqueue_submit(). The layout keeps a
	 * read's or write's fields in two cache lines: the I/O path fills a
	 * bio per command and the Compare and Write members ride along unused.
	 */
	enum rblk_bio_op op;
	uint32_t flags;                /* RBLK_BIO_FUA */
	struct rblk_bdev *bdev;
	uint64_t offset;               /* bytes, multiple of the block size */
	uint64_t len;                  /* bytes, multiple of the block size */
	const struct iovec *iov;       /* READ/WRITE: must stay valid until cb */
	const struct iovec *cmp_iov;   /* COMPARE_WRITE: the bytes expected (iov: to write) */
	int iovcnt;
	int cmp_iovcnt;
	int buf_index;                 /* registered buffer holding iov[0], or -1 */

	/* Set by the backend before cb runs: 0 or -errno. */
	int res;

	void (*cb)(struct rblk_bio *bio);

	/* Private to the backend; rblk_bqueue_submit() sets what it needs. */
	struct {
		struct rblk_bio *next;     /* local completion list */
		void *slot;                /* engine's per-request slot (aio iocb) */
		uint64_t done;             /* bytes transferred in this stage */
		union {
			/* File engines: remainder of a partly transferred iovec. */
			struct iovec tail;
			/* rbd COMPARE_WRITE. */
			struct {
				void *linear;          /* both halves made contiguous */
				uint64_t mismatch_off; /* where librbd saw a difference */
			};
		};
		enum rblk_bio_stage stage;
		int parts_res;             /* the first part's error, else 0 */
		uint16_t parts;            /* RW parts still in flight (0: not split) */
	} priv;
};

/* Queue flags. */
/* Only the creating thread ever calls into the queue (uring: SINGLE_ISSUER). */
#define RBLK_BQUEUE_SINGLE_ISSUER (1u << 0)

struct rblk_bqueue_opts {
	size_t size;         /* sizeof(struct rblk_bqueue_opts) */
	const char *engine;  /* "uring", "aio", "mem", "null"; NULL = auto */
	unsigned depth;      /* max bios in flight; 0 = 128 */
	unsigned flags;      /* RBLK_BQUEUE_* */
};

#define RBLK_BQUEUE_DEFAULT_DEPTH 128
#define RBLK_BQUEUE_MAX_DEPTH 4096

int rblk_bqueue_create(const struct rblk_bqueue_opts *opts, struct rblk_bqueue **out);
/* Waits for (and completes) any bio still in flight, then frees the queue. */
void rblk_bqueue_destroy(struct rblk_bqueue *q);
const char *rblk_bqueue_engine(const struct rblk_bqueue *q);

/*
 * Validates and enqueues one bio; nothing reaches the kernel before
 * rblk_bqueue_flush_submissions(). 0: the callback will run from
 * rblk_bqueue_poll(), exactly once. Otherwise nothing happened and cb will not
 * run: -EAGAIN (depth reached: poll, then retry), -EINVAL (misaligned offset,
 * length or buffer, iovec total != len, READ/WRITE over RBLK_BIO_MAX_RW, bad
 * buf_index, unknown op or flags), -ERANGE (past the end),
 * -EROFS (write to a read-only bdev), -EXDEV (this queue's engine cannot serve
 * the bdev, e.g. a file on a "mem" queue).
 */
int rblk_bqueue_submit(struct rblk_bqueue *q, struct rblk_bio *bio);
/* Hands everything enqueued to the kernel in one call. Count or -errno;
 * -EAGAIN/-EBUSY lose nothing (poll, then call again). */
int rblk_bqueue_flush_submissions(struct rblk_bqueue *q);
/* Reaps up to max completions and runs their callbacks. Count or -errno.
 * Callbacks may submit; they must not poll or destroy the queue. */
int rblk_bqueue_poll(struct rblk_bqueue *q, unsigned max);
/*
 * An eventfd (non-blocking) that becomes readable when completions are
 * pending. Created on first call; the queue owns it. After waking, read it
 * (8 bytes) to reset, then poll until a call returns fewer than max, and only
 * then sleep again. -errno on failure.
 */
int rblk_bqueue_eventfd(struct rblk_bqueue *q);
/*
 * Owner thread, after rblk_bqueue_eventfd(): whether kernel completions
 * signal the eventfd. A loop that is awake polls anyway, and every signal it
 * gets then is a write into the eventfd it must later read back: switch it
 * off while polling, on just before sleeping (then poll once more: what
 * completed before it came on did not signal). The local list (completions
 * the owner's own calls produced: mem, null, errors) follows the setting too,
 * and switching it on signals at once when that list is not empty; the
 * remote list (other threads) signals whatever the setting. -EOPNOTSUPP when
 * the engine cannot (aio; io_uring before Linux 5.8): then the eventfd stays
 * on for everything. Costs no system call (io_uring: a flag in the shared
 * ring; the others: a flag in the queue).
 */
int rblk_bqueue_eventfd_enable(struct rblk_bqueue *q, bool on);
unsigned rblk_bqueue_inflight(const struct rblk_bqueue *q);
/*
 * Of those, the ones this host's kernel or memory serves (file, block device,
 * mem, null), which complete within microseconds to milliseconds of local
 * work; a remote engine's (rbd) wait on the network and another machine.
 */
unsigned rblk_bqueue_inflight_local(const struct rblk_bqueue *q);
unsigned rblk_bqueue_depth(const struct rblk_bqueue *q);
/*
 * Registers buffers so bios with buf_index >= 0 and iovcnt == 1 use
 * READ_FIXED/WRITE_FIXED (uring); other engines accept and ignore them.
 * Replaces any earlier registration; the queue must be idle. 0 or -errno
 * (-ENOMEM usually means RLIMIT_MEMLOCK is too low).
 */
int rblk_bqueue_register_buffers(struct rblk_bqueue *q, const struct iovec *iov, unsigned n);
/*
 * Puts the bdev's file in a fixed-file slot of this queue (uring), saving a
 * file reference per I/O. Optional: an unregistered bdev works the same. Undo
 * with rblk_bqueue_unregister_bdev() (queue idle for that bdev) before
 * rblk_bdev_close(). 0 or -errno; engines without fixed files return 0.
 */
int rblk_bqueue_register_bdev(struct rblk_bqueue *q, struct rblk_bdev *bdev);
void rblk_bqueue_unregister_bdev(struct rblk_bqueue *q, struct rblk_bdev *bdev);

/*
 * The engine "auto" stands for: "uring" when io_uring_queue_init works here,
 * else "aio" (containers often block io_uring with seccomp: ENOSYS/EPERM).
 * Writes the reason into why (may be NULL). Probed once per process; the first
 * call logs one NOTICE line saying which and why.
 */
const char *rblk_backend_auto_name(char *why, size_t whylen);

/* Whether this build has the engine (e.g. "rbd" needs librbd at build time). */
bool rblk_backend_built(const char *name);

#endif

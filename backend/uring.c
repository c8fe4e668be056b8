/* SPDX-License-Identifier: MIT */
/*
 * The "uring" engine: files and block devices through one io_uring per queue.
 * submit only prepares SQEs; flush rings the doorbell once for the batch; poll
 * reaps CQEs in batches and advances the CQ once per batch.
 *
 * Every operation stays asynchronous where the kernel allows it:
 *   read/write     READ/WRITE (READV/WRITEV for several iovecs), or
 *                  READ_FIXED/WRITE_FIXED on a registered buffer; FUA is
 *                  RWF_DSYNC on the write itself
 *   flush          FSYNC with IORING_FSYNC_DATASYNC
 *   write zeroes   FALLOCATE(ZERO_RANGE|KEEP_SIZE): on a block device the
 *                  kernel turns it into the same zero-out as BLKZEROOUT;
 *                  file systems without it get writes from the zero buffer
 *   discard        FALLOCATE(PUNCH_HOLE|KEEP_SIZE) on files; on block devices
 *                  the block layer's uring command (Linux 6.12+), else a
 *                  synchronous BLKDISCARD
 * A kernel without an opcode gets the synchronous form from file.c, completed
 * through the local list.
 *
 * Depth accounting: the common layer admits at most q->depth bios, each with
 * one SQE outstanding, or up to RBLK_BIO_MAX_PARTS when a read or write is
 * split at the device's limit (rblk_bio_split()). The SQ ring holds q->depth
 * entries (a split that finds it full submits what it has and goes on); the
 * CQ ring holds q->depth * RBLK_BIO_MAX_PARTS, so it cannot overflow.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <linux/fs.h>
#include <liburing.h>

#include "backend/internal.h"
#include "common/log.h"

#ifndef BLOCK_URING_CMD_DISCARD
#define BLOCK_URING_CMD_DISCARD _IO(0x12, 0) /* <linux/blkdev.h>, Linux 6.12 */
#endif

#define CQE_BATCH 32

struct uring_queue {
	struct io_uring ring;
	bool has_rw;           /* IORING_OP_READ/WRITE (5.6) */
	bool has_fallocate;    /* IORING_OP_FALLOCATE (5.6) */
	bool has_uring_cmd;    /* IORING_OP_URING_CMD (5.19; block discard 6.12) */
	bool blk_discard_sync; /* the block discard command was refused: ioctl */
	bool fixed_bufs;
	/* Fixed-file table, indexed by bdev id; NULL until the first register. */
	struct rblk_bdev **slot_bdev;
	unsigned nslots;
	unsigned resubmitted;  /* SQEs queued from poll, sent before it returns */
};

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int probe_res;
static char probe_why[160];

static void probe_run(void)
{
	static const int need[] = { IORING_OP_READV, IORING_OP_WRITEV, IORING_OP_FSYNC,
				    IORING_OP_READ_FIXED, IORING_OP_WRITE_FIXED };
	struct io_uring_probe *p;
	struct io_uring ring;
	struct utsname un;
	int r;

	r = io_uring_queue_init(4, &ring, 0);
	if (r < 0) {
		probe_res = r;
		snprintf(probe_why, sizeof(probe_why), "io_uring_queue_init: %s%s", strerror(-r),
			 (r == -EPERM || r == -ENOSYS) ?
				 " (seccomp, or sysctl kernel.io_uring_disabled)" :
				 "");
		return;
	}
	p = io_uring_get_probe_ring(&ring);
	for (size_t i = 0; p && i < sizeof(need) / sizeof(need[0]); i++) {
		if (!io_uring_opcode_supported(p, need[i])) {
			probe_res = -EOPNOTSUPP;
			snprintf(probe_why, sizeof(probe_why), "kernel io_uring lacks opcode %d",
				 need[i]);
		}
	}
	if (p)
		io_uring_free_probe(p);
	io_uring_queue_exit(&ring);
	if (probe_res == 0)
		snprintf(probe_why, sizeof(probe_why), "io_uring_queue_init works (Linux %s)",
			 uname(&un) == 0 ? un.release : "?");
}

static int uring_probe(char *why, size_t whylen)
{
	pthread_once(&probe_once, probe_run);
	if (why && whylen)
		snprintf(why, whylen, "%s", probe_why);
	return probe_res;
}

static int uring_queue_init(struct rblk_bqueue *q, const struct rblk_bqueue_opts *opts)
{
	struct io_uring_params p;
	struct io_uring_probe *pr;
	struct uring_queue *u;
	int r;

	if (!rblk_zero_buf())
		return -ENOMEM;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	/*
	 * COOP_TASKRUN: no IPI per completion while we are busy in user space
	 * (TASKRUN_FLAG tells liburing when to enter to get them); a task asleep
	 * in epoll_wait is still woken. Both need 5.19; older kernels: plain.
	 */
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_CQSIZE;
	p.cq_entries = q->depth * RBLK_BIO_MAX_PARTS;
	if (q->flags & RBLK_BQUEUE_SINGLE_ISSUER)
		p.flags |= IORING_SETUP_SINGLE_ISSUER;
	r = io_uring_queue_init_params(q->depth, &u->ring, &p);
	if (r == -EINVAL) {
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_CQSIZE;
		p.cq_entries = q->depth * RBLK_BIO_MAX_PARTS;
		r = io_uring_queue_init_params(q->depth, &u->ring, &p);
	}
	if (r < 0) {
		free(u);
		return r;
	}
	u->has_rw = u->has_fallocate = u->has_uring_cmd = false;
	pr = io_uring_get_probe_ring(&u->ring);
	if (pr) {
		u->has_rw = io_uring_opcode_supported(pr, IORING_OP_READ) &&
			    io_uring_opcode_supported(pr, IORING_OP_WRITE);
		u->has_fallocate = io_uring_opcode_supported(pr, IORING_OP_FALLOCATE);
		u->has_uring_cmd = io_uring_opcode_supported(pr, IORING_OP_URING_CMD);
		io_uring_free_probe(pr);
	}
	q->priv = u;
	return 0;
}

static void uring_queue_fini(struct rblk_bqueue *q)
{
	struct uring_queue *u = q->priv;

	/* The ring goes first: it holds the files of the slots. */
	io_uring_queue_exit(&u->ring);
	for (unsigned i = 0; i < u->nslots; i++)
		if (u->slot_bdev[i])
			rblk_bdev_put(u->slot_bdev[i]);
	free(u->slot_bdev);
	free(u);
	q->priv = NULL;
}

static struct io_uring_sqe *get_sqe(struct uring_queue *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	/* Cannot happen within the depth budget; be safe anyway. */
	if (!sqe && io_uring_submit(&u->ring) >= 0)
		sqe = io_uring_get_sqe(&u->ring);
	return sqe;
}

/* The bdev's fixed slot when this queue registered it, else its fd. */
static void set_file(struct uring_queue *u, struct io_uring_sqe *sqe, struct rblk_bdev *bdev)
{
	if (bdev->id < u->nslots && u->slot_bdev[bdev->id] == bdev) {
		sqe->fd = (int)bdev->id;
		sqe->flags |= IOSQE_FIXED_FILE;
	} else {
		sqe->fd = bdev->fd;
	}
}

/*
 * One contiguous span of the bio's memory: READ/WRITE_FIXED when @fixed (it lies
 * in registered buffer bio->buf_index), else plain READ/WRITE (5.6).
 */
static void prep_span(struct io_uring_sqe *sqe, const struct rblk_bio *bio, bool fixed, void *buf,
		      unsigned len, uint64_t off)
{
	bool wr = bio->op == RBLK_BIO_WRITE;

	if (fixed && wr)
		io_uring_prep_write_fixed(sqe, -1, buf, len, off, bio->buf_index);
	else if (fixed)
		io_uring_prep_read_fixed(sqe, -1, buf, len, off, bio->buf_index);
	else if (wr)
		io_uring_prep_write(sqe, -1, buf, len, off);
	else
		io_uring_prep_read(sqe, -1, buf, len, off);
	if (wr && (bio->flags & RBLK_BIO_FUA))
		sqe->rw_flags = RWF_DSYNC;
}

static void prep_rw(struct rblk_bqueue *q, struct uring_queue *u, struct io_uring_sqe *sqe,
		    struct rblk_bio *bio)
{
	bool wr = bio->op == RBLK_BIO_WRITE;
	uint64_t off = bio->offset + bio->priv.done;
	const struct iovec *iov;
	int cnt;

	if (u->fixed_bufs && bio->buf_index >= 0 && bio->iovcnt == 1) {
		prep_span(sqe, bio, true, (char *)bio->iov[0].iov_base + bio->priv.done,
			  bio->len - bio->priv.done, off);
		return;
	}
	cnt = rblk_bio_rw_iov(bio, &iov);
	if (cnt == 1 && u->has_rw) {
		prep_span(sqe, bio, false, iov->iov_base, iov->iov_len, off);
		return;
	}
	if (wr)
		io_uring_prep_writev(sqe, -1, iov, cnt, off);
	else
		io_uring_prep_readv(sqe, -1, iov, cnt, off);
	if (wr && (bio->flags & RBLK_BIO_FUA))
		sqe->rw_flags = RWF_DSYNC;
}

static void prep_blk_discard(struct io_uring_sqe *sqe, const struct rblk_bio *bio)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->cmd_op = BLOCK_URING_CMD_DISCARD;
	sqe->addr = bio->offset;
	sqe->addr3 = bio->len;
}

/*
 * A read or write the device would split, as n parts of part_len bytes (the
 * last may be shorter), all in flight at once; each CQE carries the bio and
 * goes to rblk_bio_part_done(). 0, or -EBUSY if not even the first part got
 * an SQE; should a later one find none, the parts issued carry an error back.
 */
static int issue_parts(struct uring_queue *u, struct rblk_bio *bio, unsigned n, uint32_t part_len)
{
	bool fixed = u->fixed_bufs && bio->buf_index >= 0;

	bio->priv.parts = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t at = (uint64_t)i * part_len;
		uint32_t len = bio->len - at < part_len ? (uint32_t)(bio->len - at) : part_len;
		char *buf = (char *)bio->iov[0].iov_base + at;
		struct io_uring_sqe *sqe = get_sqe(u);

		if (!sqe) {
			if (!i)
				return -EBUSY;
			bio->priv.parts_res = -EAGAIN;
			break;
		}
		prep_span(sqe, bio, fixed, buf, len, bio->offset + at);
		set_file(u, sqe, bio->bdev);
		io_uring_sqe_set_data(sqe, bio);
		bio->priv.parts++;
	}
	return 0;
}

/*
 * Issues the bio's current stage: queues one SQE (or its parts), or runs the
 * synchronous fallback and moves on (finishing through the local list). 0, or
 * -errno if no SQE could be had (then nothing was issued).
 */
static int issue(struct rblk_bqueue *q, struct rblk_bio *bio)
{
	struct uring_queue *u = q->priv;
	struct rblk_bdev *bdev = bio->bdev;
	struct io_uring_sqe *sqe;
	int res;

	for (;;) {
		switch (bio->priv.stage) {
		case RBLK_STAGE_RW:
		case RBLK_STAGE_ZERO_WRITE:
		case RBLK_STAGE_SYNC:
			goto async;
		case RBLK_STAGE_ZERO_RANGE:
		case RBLK_STAGE_PUNCH:
			if (u->has_fallocate)
				goto async;
			res = bio->priv.stage == RBLK_STAGE_PUNCH ?
				      rblk_file_discard(bdev, bio->offset, bio->len) :
				      rblk_file_zero_range(bdev, bio->offset, bio->len);
			break;
		case RBLK_STAGE_BLK_DISCARD:
			if (u->has_uring_cmd && !u->blk_discard_sync)
				goto async;
			res = rblk_file_discard(bdev, bio->offset, bio->len);
			break;
		default:
			res = -EINVAL;
			break;
		}
		if (!rblk_bio_step(bio, res)) {
			rblk_bqueue_complete_later(q, bio);
			return 0;
		}
	}

async:
	/* Unfixed parts need plain READ/WRITE: READV would need an iovec each. */
	if (bio->priv.stage == RBLK_STAGE_RW &&
	    (u->has_rw || (u->fixed_bufs && bio->buf_index >= 0))) {
		uint32_t part_len;
		unsigned n = rblk_bio_split(bio, &part_len);

		if (n > 1)
			return issue_parts(u, bio, n, part_len);
	}
	sqe = get_sqe(u);
	if (!sqe)
		return -EBUSY;
	switch (bio->priv.stage) {
	case RBLK_STAGE_RW:
		prep_rw(q, u, sqe, bio);
		break;
	case RBLK_STAGE_ZERO_WRITE:
		/* The iovec lives in the bio: it must outlast the submission. */
		bio->priv.tail.iov_base = (void *)rblk_zero_buf();
		bio->priv.tail.iov_len = rblk_bio_zero_chunk(bio);
		if (u->has_rw)
			io_uring_prep_write(sqe, -1, bio->priv.tail.iov_base,
					    bio->priv.tail.iov_len, bio->offset + bio->priv.done);
		else
			io_uring_prep_writev(sqe, -1, &bio->priv.tail, 1,
					     bio->offset + bio->priv.done);
		if (bio->flags & RBLK_BIO_FUA)
			sqe->rw_flags = RWF_DSYNC;
		break;
	case RBLK_STAGE_SYNC:
		io_uring_prep_fsync(sqe, -1, IORING_FSYNC_DATASYNC);
		/* FUA tail of write zeroes: just that range. */
		if (bio->op != RBLK_BIO_FLUSH) {
			sqe->off = bio->offset;
			sqe->len = bio->len > UINT32_MAX ? 0 : (uint32_t)bio->len;
		}
		break;
	case RBLK_STAGE_ZERO_RANGE:
		io_uring_prep_fallocate(sqe, -1, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
					bio->offset, bio->len);
		break;
	case RBLK_STAGE_PUNCH:
		io_uring_prep_fallocate(sqe, -1, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					bio->offset, bio->len);
		break;
	case RBLK_STAGE_BLK_DISCARD:
		prep_blk_discard(sqe, bio);
		break;
	}
	set_file(u, sqe, bdev);
	io_uring_sqe_set_data(sqe, bio);
	return 0;
}

static int uring_submit(struct rblk_bqueue *q, struct rblk_bio *bio)
{
	if (!rblk_bio_start(bio)) {
		rblk_bqueue_complete_later(q, bio);
		return 0;
	}
	return issue(q, bio);
}

static int uring_flush(struct rblk_bqueue *q)
{
	struct uring_queue *u = q->priv;
	int r;

	if (!io_uring_sq_ready(&u->ring))
		return 0;
	/*
	 * Submit and reap in one io_uring_enter: with COOP_TASKRUN, finished
	 * I/O waits as task work until we enter the kernel, and the next poll
	 * would enter just for it (IORING_SQ_TASKRUN); GETEVENTS runs it now,
	 * so that poll finds the CQEs posted and makes no system call.
	 */
	r = io_uring_submit_and_get_events(&u->ring);
	/* EINTR: nothing was consumed; the SQEs stay for the next call. */
	return r == -EINTR ? -EAGAIN : r;
}

/* One CQE of bio: the next stage, or the end. */
static void handle(struct rblk_bqueue *q, struct rblk_bio *bio, int res, unsigned *done)
{
	struct uring_queue *u = q->priv;
	int r;

	if (bio->priv.parts) {
		if (rblk_bio_part_done(bio, res)) {
			rblk_bio_complete(q, bio);
			(*done)++;
		}
		return;
	}
	/*
	 * The block discard command is missing (before 6.12) or refused: retry
	 * with the ioctl, and if that works, use it from now on. A device
	 * without discard says EOPNOTSUPP to both, which the step makes a no-op.
	 */
	if (bio->priv.stage == RBLK_STAGE_BLK_DISCARD && !u->blk_discard_sync &&
	    (res == -EOPNOTSUPP || res == -EINVAL || res == -ENOTTY)) {
		res = rblk_file_discard(bio->bdev, bio->offset, bio->len);
		if (res != -EOPNOTSUPP)
			u->blk_discard_sync = true;
	}
	if (rblk_bio_step(bio, res)) {
		r = issue(q, bio);
		if (r == 0) {
			u->resubmitted++;
			return;
		}
		bio->res = r;
	}
	rblk_bio_complete(q, bio);
	(*done)++;
}

static int uring_poll(struct rblk_bqueue *q, unsigned max)
{
	struct uring_queue *u = q->priv;
	struct io_uring_cqe *cqes[CQE_BATCH];
	struct rblk_bio *bios[CQE_BATCH];
	int res[CQE_BATCH];
	unsigned done = 0;

	u->resubmitted = 0;
	while (done < max) {
		unsigned want = max - done < CQE_BATCH ? max - done : CQE_BATCH;
		unsigned got = io_uring_peek_batch_cqe(&u->ring, cqes, want);

		if (!got)
			break;
		/* Copy out and release the CQ slots before any callback runs. */
		for (unsigned i = 0; i < got; i++) {
			bios[i] = io_uring_cqe_get_data(cqes[i]);
			res[i] = cqes[i]->res;
		}
		io_uring_cq_advance(&u->ring, got);
		for (unsigned i = 0; i < got; i++)
			handle(q, bios[i], res[i], &done);
	}
	if (u->resubmitted)
		io_uring_submit(&u->ring);
	return done;
}

static int uring_set_eventfd(struct rblk_bqueue *q, int efd)
{
	struct uring_queue *u = q->priv;

	return io_uring_register_eventfd(&u->ring, efd);
}

static int uring_eventfd_enable(struct rblk_bqueue *q, bool on)
{
	struct uring_queue *u = q->priv;

	/* IORING_CQ_EVENTFD_DISABLED in the CQ ring's flags (5.8); -EOPNOTSUPP before. */
	return io_uring_cq_eventfd_toggle(&u->ring, on);
}

static int uring_register_buffers(struct rblk_bqueue *q, const struct iovec *iov, unsigned n)
{
	struct uring_queue *u = q->priv;
	int r;

	if (u->fixed_bufs) {
		io_uring_unregister_buffers(&u->ring);
		u->fixed_bufs = false;
	}
	if (!n)
		return 0;
	r = io_uring_register_buffers(&u->ring, iov, n);
	if (r < 0) {
		RBLK_ERR("backend: io_uring_register_buffers (%u buffers): %s%s", n,
			 strerror(-r), r == -ENOMEM ? " (raise RLIMIT_MEMLOCK: ulimit -l)" : "");
		return r;
	}
	u->fixed_bufs = true;
	return 0;
}

static int uring_register_bdev(struct rblk_bqueue *q, struct rblk_bdev *bdev)
{
	struct uring_queue *u = q->priv;
	struct rlimit rl;
	int fd = bdev->fd, r;

	if (!u->slot_bdev) {
		/* The kernel refuses a table larger than RLIMIT_NOFILE. */
		unsigned n = RBLK_BDEV_MAX;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < n)
			n = rl.rlim_cur;
		u->slot_bdev = calloc(n, sizeof(*u->slot_bdev));
		if (!u->slot_bdev)
			return -ENOMEM;
		r = io_uring_register_files_sparse(&u->ring, n);
		if (r < 0) {
			free(u->slot_bdev);
			u->slot_bdev = NULL;
			return r;
		}
		u->nslots = n;
	}
	if (bdev->id >= u->nslots)
		return -ENFILE;
	if (u->slot_bdev[bdev->id] == bdev)
		return 0;
	r = io_uring_register_files_update(&u->ring, bdev->id, &fd, 1);
	if (r < 0)
		return r;
	u->slot_bdev[bdev->id] = bdev;
	rblk_bdev_get(bdev);
	return 0;
}

static void uring_unregister_bdev(struct rblk_bqueue *q, struct rblk_bdev *bdev)
{
	struct uring_queue *u = q->priv;
	int fd = -1;

	if (bdev->id >= u->nslots || u->slot_bdev[bdev->id] != bdev)
		return;
	/* In-flight requests hold their own file reference. */
	io_uring_register_files_update(&u->ring, bdev->id, &fd, 1);
	u->slot_bdev[bdev->id] = NULL;
	rblk_bdev_put(bdev);
}

const struct rblk_backend_ops rblk_uring_ops = {
	.name = "uring",
	.kind = RBLK_BACKEND_FILE,
	.probe = uring_probe,
	.bdev_open = rblk_file_bdev_open,
	.bdev_close = rblk_file_bdev_close,
	.queue_init = uring_queue_init,
	.queue_fini = uring_queue_fini,
	.submit = uring_submit,
	.flush = uring_flush,
	.poll = uring_poll,
	.set_eventfd = uring_set_eventfd,
	.eventfd_enable = uring_eventfd_enable,
	.register_buffers = uring_register_buffers,
	.register_bdev = uring_register_bdev,
	.unregister_bdev = uring_unregister_bdev,
};

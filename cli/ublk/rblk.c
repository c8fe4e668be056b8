/* SPDX-License-Identifier: MIT */
/*
 * ublk requests served from an rblk namespace (see cli/ublk/rblk.h). One
 * instance per queue and thread: its queue pair, one struct rblk_io per tag
 * (nothing is allocated per request), and the tag buffers in one piece of
 * registered memory.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "cli/io_park.h"
#include "cli/ublk/rblk.h"
#include "protocol/nvme_status.h"

#define DRAIN_TIMEOUT_S 10

struct io_slot {
	struct rblk_park_slot ps;	/* first: the io and its state */
	struct backend *b;
	unsigned tag;
	int32_t bytes;			/* the answer on success */
};

struct backend {
	struct rblk_ctrl *ctrl;
	struct rblk_ns *ns;
	struct rblk_qpair *qp;
	struct rblk_ublk_queue *q;
	uint32_t lbs, buf_bytes;
	struct io_slot *ios;
	unsigned nr;
	struct rblk_park park;
	uint8_t *bufs;
	bool bufs_heap;
};

int rblk_ublk_status_errno(uint16_t status)
{
	switch (status & NVME_STATUS_CODE_MASK) {
	case NVME_SC_SUCCESS:
		return 0;
	case NVME_SC_NS_WRITE_PROTECTED:
	case NVME_SC_ACCESS_DENIED:
		return -EPERM;
	case NVME_SC_CAP_EXCEEDED:
		return -ENOSPC;
	case NVME_SC_LBA_RANGE:
		return -EINVAL;
	case NVME_SC_INVALID_OPCODE:
		return -EOPNOTSUPP;
	default:
		return -EIO;
	}
}

int rblk_ublk_io_errno(uint16_t status, int err)
{
	if (status)
		return rblk_ublk_status_errno(status);
	switch (-err) {
	case 0:
		return 0;
	case EROFS:
	case EPERM:
		return -EPERM;
	case EINVAL:
	case EOPNOTSUPP:
	case ENOSPC:
		return err;
	default:
		/* -ENOTCONN once the controller is lost, or a transport failure */
		return -EIO;
	}
}

int rblk_ublk_io_from_desc(const struct ublksrv_io_desc *iod, struct rblk_ns *ns, uint32_t block_size,
			   void *buf, uint32_t buf_bytes, struct rblk_io *io, int32_t *bytes)
{
	uint64_t off = iod->start_sector << 9, len = (uint64_t)iod->nr_sectors << 9;
	unsigned op = ublk_iod_op(iod);

	memset(io, 0, sizeof(*io));
	io->ns = ns;
	*bytes = 0;
	if (op == UBLK_IO_OP_FLUSH) {
		io->op = RBLK_OP_FLUSH;
		return 0;
	}
	/* the kernel sends whole logical blocks; anything else is not ours to round */
	if (off % block_size || len % block_size || !len || len / block_size > UINT32_MAX)
		return -EINVAL;
	io->lba = off / block_size;
	io->nlb = (uint32_t)(len / block_size);
	switch (op) {
	case UBLK_IO_OP_READ:
	case UBLK_IO_OP_WRITE:
		if (len > buf_bytes)
			return -EINVAL;	/* max_sectors keeps requests within the buffer */
		io->op = op == UBLK_IO_OP_READ ? RBLK_OP_READ : RBLK_OP_WRITE;
		io->buf = buf;
		if (op == UBLK_IO_OP_WRITE && (iod->op_flags & UBLK_IO_F_FUA))
			io->flags = RBLK_IO_FUA;
		*bytes = (int32_t)len;
		return 0;
	case UBLK_IO_OP_DISCARD:
		io->op = RBLK_OP_DEALLOCATE;
		return 0;
	case UBLK_IO_OP_WRITE_ZEROES:
		io->op = RBLK_OP_WRITE_ZEROES;
		return 0;
	default:
		return -EOPNOTSUPP;	/* WRITE_SAME, zone and driver-private operations */
	}
}

static void io_done(struct rblk_io *io, uint16_t status, int err, void *arg)
{
	struct backend *b = arg;
	struct io_slot *s = (struct io_slot *)io;	/* io leads the slot */
	int e = rblk_ublk_io_errno(status, err);

	if (e)
		RBLK_DEBUG("ublk: tag %u: op %d of %u blocks at %llu failed: status %#x, %s", s->tag, io->op,
			   io->nlb, (unsigned long long)io->lba, status, err ? strerror(-err) : "-");
	rblk_ublk_queue_complete(b->q, s->tag, e ? e : s->bytes);
}

static int submit(void *ctx, unsigned tag, const struct ublksrv_io_desc *iod, void *buf)
{
	struct backend *b = ctx;
	struct io_slot *s = &b->ios[tag];
	int ret;

	if (s->ps.state != RBLK_PARK_FREE) {
		/* The library still holds this tag's io: never overwrite it. */
		RBLK_ERR("ublk: tag %u is %s, not free", tag, rblk_park_state_str(s->ps.state));
		return -EIO;
	}
	ret = rblk_ublk_io_from_desc(iod, b->ns, b->lbs, buf, b->buf_bytes, &s->ps.io, &s->bytes);
	if (ret)
		return ret;
	ret = rblk_park_start(&b->park, &s->ps);
	return ret ? rblk_ublk_io_errno(0, ret) : 0;
}

static const struct rblk_ublk_queue_ops ops = {
	.submit = submit,
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int serve_loop(struct backend *b, const struct rblk_ublk_serve_opts *o)
{
	double stop_at = 0;

	for (;;) {
		struct pollfd p[3] = {
			{ .fd = rblk_ublk_queue_fd(b->q), .events = POLLIN },
			{ .fd = rblk_qpair_fd(b->qp), .events = POLLIN },
			{ .fd = o->stop_fd, .events = POLLIN },
		};
		int n, m, ret;

		n = rblk_ublk_queue_process(b->q);
		if (n < 0)
			return n;
		m = rblk_park_poll(&b->park, b->nr);
		if (m < 0) {
			/* -ENOTCONN: lost, and the library holds none of our requests */
			if (m != -ENOTCONN)
				RBLK_ERR("ublk: queue %u: polling the queue pair failed: %s", o->q_id,
					 strerror(-m));
			m = (int)rblk_park_fail_parked(&b->park, m);
		}
		ret = rblk_ublk_queue_flush(b->q);
		if (ret) {
			RBLK_ERR("ublk: queue %u: cannot send answers to the kernel: %s", o->q_id, strerror(-ret));
			return ret;
		}
		if (rblk_ublk_queue_done(b->q))
			return 0;
		if (stop_at && now_s() - stop_at > DRAIN_TIMEOUT_S) {
			RBLK_WARN("ublk: queue %u: %u requests still with the target %d s after stop; failing them",
				  o->q_id, rblk_ublk_queue_in_backend(b->q), DRAIN_TIMEOUT_S);
			/* answered, so that STOP_DEV (which waits for them) can finish */
			rblk_park_abandon(&b->park, -EIO);
			rblk_ublk_queue_flush(b->q);
			return 0;
		}
		if (n + m > 0)
			continue;
		/* a short timeout while requests are parked or the end is near, else a long one */
		if (poll(p, o->stop_fd >= 0 ? 3 : 2, rblk_park_waiting(&b->park) || stop_at ? 10 : 1000) < 0 &&
		    errno != EINTR)
			return -errno;
		if (o->stop_fd >= 0 && (p[2].revents & POLLIN) && !stop_at)
			stop_at = now_s();
	}
}

/* The tag buffers, registered if the library can, else plain memory it will bounce. */
static int bufs_alloc(struct backend *b, size_t len)
{
	b->bufs = rblk_buf_alloc(b->ctrl, len);
	if (b->bufs)
		return 0;
	RBLK_WARN("ublk: no registered memory for the tag buffers: data goes through bounce buffers");
	if (posix_memalign((void **)&b->bufs, 4096, len))
		return -ENOMEM;
	b->bufs_heap = true;
	return 0;
}

static void bufs_free(struct backend *b)
{
	if (b->bufs_heap)
		free(b->bufs);
	else if (b->bufs)
		rblk_buf_free(b->ctrl, b->bufs);
}

int rblk_ublk_serve(const struct rblk_ublk_serve_opts *o, struct rblk_ublk_queue_stats *stats)
{
	struct backend b = {
		.ctrl = o->ctrl,
		.ns = o->ns,
		.lbs = rblk_ns_block_size(o->ns),
		.buf_bytes = o->buf_bytes,
		.nr = o->depth,
	};
	struct rblk_ublk_queue_opts qo = {
		.char_fd = o->char_fd,
		.q_id = o->q_id,
		.depth = o->depth,
		.buf_bytes = o->buf_bytes,
		.ops = &ops,
		.ctx = &b,
	};
	int ret;

	b.ios = calloc(b.nr, sizeof(*b.ios));
	if (!b.ios) {
		ret = -ENOMEM;
		goto out_ready;
	}
	for (unsigned i = 0; i < b.nr; i++) {
		b.ios[i].b = &b;
		b.ios[i].tag = i;
	}
	ret = bufs_alloc(&b, (size_t)o->depth * o->buf_bytes);
	if (ret)
		goto out_free;
	ret = o->mpath ? rblk_mpath_qpair_alloc(o->mpath, &b.qp) : rblk_qpair_alloc(o->ctrl, &b.qp);
	if (ret) {
		RBLK_ERR("ublk: queue %u: cannot get an I/O queue: %s", o->q_id, strerror(-ret));
		goto out_bufs;
	}
	rblk_park_init(&b.park, b.qp, b.ios, sizeof(*b.ios), b.nr, io_done, &b);
	qo.bufs = b.bufs;
	ret = rblk_ublk_queue_create(&qo, &b.q);
	if (ret) {
		RBLK_ERR("ublk: queue %u: cannot set up: %s", o->q_id, strerror(-ret));
		goto out_qp;
	}
	/* from this thread: the kernel binds the queue to the task of its first FETCH_REQ */
	ret = rblk_ublk_queue_start(b.q);
	if (ret) {
		RBLK_ERR("ublk: queue %u: cannot fetch requests: %s", o->q_id, strerror(-ret));
		goto out_queue;
	}
	o->ready(o->ready_arg, 0);
	ret = serve_loop(&b, o);
	if (stats)
		*stats = *rblk_ublk_queue_stats(b.q);
	rblk_ublk_queue_destroy(b.q);
	rblk_qpair_free(b.qp);
	bufs_free(&b);
	free(b.ios);
	return ret;

out_queue:
	rblk_ublk_queue_destroy(b.q);
out_qp:
	rblk_qpair_free(b.qp);
out_bufs:
	bufs_free(&b);
out_free:
	free(b.ios);
out_ready:
	o->ready(o->ready_arg, ret);
	return ret;
}

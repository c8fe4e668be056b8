/* SPDX-License-Identifier: MIT */
/*
 * NBD requests served from an rblk namespace (see cli/nbd/rblk.h). One instance
 * per connection and thread: its queue pair, one struct rblk_io per NBD
 * slot (so nothing is allocated per request), and the slot buffers from
 * registered memory so data moves with no copy in the library.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "cli/io_park.h"
#include "cli/nbd/rblk.h"
#include "protocol/nvme_status.h"

#define DEFAULT_SLOTS 32
#define DEFAULT_SLOT_BUF (256u << 10)
#define DRAIN_TIMEOUT_S 10

struct io_slot {
	struct rblk_park_slot ps;	/* first: the io and its state */
	struct rblk_nbd_req *req;
};

struct backend {
	struct rblk_ctrl *ctrl;
	struct rblk_ns *ns;
	struct rblk_qpair *qp;
	struct rblk_nbd_conn *conn;
	uint32_t lbs;
	struct io_slot *ios;
	unsigned nr;
	struct rblk_park park;
	struct {
		void *p;
		bool heap;
	} *bufs;
	unsigned nbufs;
};

uint32_t rblk_nbd_status_error(uint16_t status)
{
	switch (status & NVME_STATUS_CODE_MASK) {
	case NVME_SC_SUCCESS:
		return RBLK_NBD_OK;
	case NVME_SC_NS_WRITE_PROTECTED:
	case NVME_SC_ACCESS_DENIED:
		return RBLK_NBD_EPERM;
	case NVME_SC_CAP_EXCEEDED:
		return RBLK_NBD_ENOSPC;
	case NVME_SC_LBA_RANGE:
		return RBLK_NBD_EINVAL;
	case NVME_SC_INVALID_OPCODE:
		return RBLK_NBD_ENOTSUP;
	default:
		return RBLK_NBD_EIO;
	}
}

static void io_done(struct rblk_io *io, uint16_t status, int err, void *arg)
{
	struct backend *b = arg;
	struct io_slot *s = (struct io_slot *)io;	/* io leads the slot */
	uint32_t e = status ? rblk_nbd_status_error(status) : rblk_nbd_error(err);

	if (status || err)
		RBLK_DEBUG("nbd: %s of %u bytes at %llu failed: status %#x, %s",
			   rblk_nbd_cmd_str(s->req->r.type), s->req->r.length,
			   (unsigned long long)s->req->r.offset, status, err ? strerror(-err) : "-");
	rblk_nbd_conn_complete(b->conn, s->req, e);
}

static uint32_t submit(void *ctx, struct rblk_nbd_req *req)
{
	struct backend *b = ctx;
	struct io_slot *s = &b->ios[req->index];
	struct rblk_io *io = &s->ps.io;
	int ret;

	if (s->ps.state != RBLK_PARK_FREE) {
		/* The library still holds this slot's io: never overwrite it. */
		RBLK_ERR("nbd: slot %u is %s, not free", req->index, rblk_park_state_str(s->ps.state));
		return RBLK_NBD_EIO;
	}
	memset(io, 0, sizeof(*io));
	s->req = req;
	io->ns = b->ns;
	io->lba = req->r.offset / b->lbs;
	io->nlb = req->r.length / b->lbs;
	switch (req->r.type) {
	case RBLK_NBD_CMD_READ:
		io->op = RBLK_OP_READ;
		io->buf = req->buf;
		break;
	case RBLK_NBD_CMD_WRITE:
		io->op = RBLK_OP_WRITE;
		io->buf = req->buf;
		if (req->r.flags & RBLK_NBD_CMD_FLAG_FUA)
			io->flags = RBLK_IO_FUA;
		break;
	case RBLK_NBD_CMD_FLUSH:
		io->op = RBLK_OP_FLUSH;
		io->lba = 0;
		io->nlb = 0;
		break;
	case RBLK_NBD_CMD_TRIM:
		io->op = RBLK_OP_DEALLOCATE;
		break;
	case RBLK_NBD_CMD_WRITE_ZEROES:
		io->op = RBLK_OP_WRITE_ZEROES;
		break;
	default:
		return RBLK_NBD_EINVAL;
	}
	ret = rblk_park_start(&b->park, &s->ps);
	return ret ? rblk_nbd_error(ret) : RBLK_NBD_OK;
}

static void flush(void *ctx)
{
	struct backend *b = ctx;

	rblk_qpair_flush(b->qp);
}

static void *buf_alloc(void *ctx, size_t len)
{
	struct backend *b = ctx;
	void *p = rblk_buf_alloc(b->ctrl, len);
	bool heap = false;

	if (!p) {
		/* plain memory still works, through the library's bounce buffers */
		if (posix_memalign(&p, 4096, len))
			return NULL;
		heap = true;
	}
	b->bufs[b->nbufs].p = p;
	b->bufs[b->nbufs++].heap = heap;
	return p;
}

static void buf_free(void *ctx, void *p)
{
	struct backend *b = ctx;

	for (unsigned i = 0; i < b->nbufs; i++) {
		if (b->bufs[i].p != p)
			continue;
		if (b->bufs[i].heap)
			free(p);
		else
			rblk_buf_free(b->ctrl, p);
		b->bufs[i] = b->bufs[--b->nbufs];
		return;
	}
}

static const struct rblk_nbd_backend ops = {
	.submit = submit,
	.flush = flush,
	.buf_alloc = buf_alloc,
	.buf_free = buf_free,
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int serve_loop(struct backend *b, const struct rblk_nbd_serve_opts *o)
{
	double stop_at = 0;
	int ret = 0;

	for (;;) {
		struct pollfd p[3] = {
			{ .fd = o->fd, .events = rblk_nbd_conn_events(b->conn) },
			{ .fd = rblk_qpair_fd(b->qp), .events = POLLIN },
			{ .fd = o->stop_fd, .events = POLLIN },
		};
		int r, n;

		if (!stop_at) {
			r = rblk_nbd_conn_process(b->conn);
			if (r < 0) {
				RBLK_ERR("nbd: connection failed: %s", strerror(-r));
				ret = r;
				stop_at = now_s();	/* answer nothing more; wait for the backend */
			} else if (r == RBLK_NBD_CONN_DONE) {
				break;
			}
		}
		n = rblk_park_poll(&b->park, b->nr);
		if (n < 0) {
			/* -ENOTCONN: lost, and the library holds none of our requests */
			if (n != -ENOTCONN)
				RBLK_ERR("nbd: polling the queue pair failed: %s", strerror(-n));
			n = (int)rblk_park_fail_parked(&b->park, n);
		}
		if (stop_at) {
			if (!rblk_nbd_conn_inflight(b->conn))
				break;
			if (now_s() - stop_at > DRAIN_TIMEOUT_S) {
				RBLK_WARN("nbd: %u requests still with the target after %d s; giving up on them",
					  rblk_nbd_conn_inflight(b->conn), DRAIN_TIMEOUT_S);
				rblk_park_abandon(&b->park, -EIO);
				break;
			}
		}
		if (n > 0)
			continue;
		if (stop_at)
			p[0].events = 0;
		/* a short timeout while requests are parked or draining, else a long one */
		if (poll(p, o->stop_fd >= 0 ? 3 : 2, rblk_park_waiting(&b->park) || stop_at ? 10 : 1000) < 0 &&
		    errno != EINTR)
			return -errno;
		if (o->stop_fd >= 0 && (p[2].revents & POLLIN) && !stop_at)
			stop_at = now_s();
	}
	return ret;
}

int rblk_nbd_serve(const struct rblk_nbd_serve_opts *o, struct rblk_nbd_conn_stats *stats)
{
	struct rblk_nbd_conn_opts co = {
		.fd = o->fd,
		.exp = o->exp,
		.nr_slots = o->nr_slots ? o->nr_slots : DEFAULT_SLOTS,
		.slot_buf = o->slot_buf ? o->slot_buf : DEFAULT_SLOT_BUF,
		.ops = &ops,
	};
	struct backend b = {
		.ctrl = o->ctrl,
		.ns = o->ns,
		.lbs = rblk_ns_block_size(o->ns),
		.nr = co.nr_slots,
	};
	int ret;

	b.ios = calloc(b.nr, sizeof(*b.ios));
	b.bufs = calloc(b.nr, sizeof(*b.bufs));
	if (!b.ios || !b.bufs) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = o->mpath ? rblk_mpath_qpair_alloc(o->mpath, &b.qp) : rblk_qpair_alloc(o->ctrl, &b.qp);
	if (ret) {
		RBLK_ERR("nbd: cannot get an I/O queue: %s", strerror(-ret));
		goto out_free;
	}
	rblk_park_init(&b.park, b.qp, b.ios, sizeof(*b.ios), b.nr, io_done, &b);
	co.ctx = &b;
	ret = rblk_nbd_conn_create(&co, &b.conn);
	if (ret) {
		RBLK_ERR("nbd: cannot set up the connection: %s", strerror(-ret));
		goto out_qp;
	}
	ret = serve_loop(&b, o);
	if (stats)
		*stats = *rblk_nbd_conn_stats(b.conn);
	rblk_nbd_conn_destroy(b.conn);
out_qp:
	rblk_qpair_free(b.qp);
out_free:
	free(b.ios);
	free(b.bufs);
	return ret;
}

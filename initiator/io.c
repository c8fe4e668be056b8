/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous I/O on a qpair: rblk_submit() turns a request into one or
 * more commands (split at the controller's MDTS, the 16-bit NLB field, or
 * the bounce-buffer size for unregistered memory) and stages them;
 * rblk_poll() flushes, reaps completions and runs each request's callback
 * once, with the first error any of its commands saw.
 *
 * Data: memory from rblk_buf_alloc() or rblk_mem_register() goes to the
 * target as is (keyed SGL, or in-capsule SGEs for small writes). Other
 * memory, and every iovec, is copied through registered memory: the
 * command slot's own 4 KiB, or a bounce unit for larger commands. When
 * slots or bounce units run out, the request waits as the qpair's one
 * "pending" request and further submissions get -EAGAIN until it is issued.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "initiator/cmd.h"
#include "initiator/ctrl.h"
#include "initiator/mpath.h"
#include "initiator/io.h"

struct rblk_io_priv *rblk_io_priv(struct rblk_io *io)
{
	return (struct rblk_io_priv *)io->priv;
}

static void iov_copy(const struct rblk_io *io, size_t off, void *local, size_t len, bool to_io)
{
	uint8_t *l = local;

	if (io->buf) {
		if (to_io)
			memcpy((uint8_t *)io->buf + off, l, len);
		else
			memcpy(l, (const uint8_t *)io->buf + off, len);
		return;
	}
	for (unsigned i = 0; i < io->iovcnt && len; i++) {
		size_t n;

		if (off >= io->iov[i].iov_len) {
			off -= io->iov[i].iov_len;
			continue;
		}
		n = io->iov[i].iov_len - off;
		if (n > len)
			n = len;
		if (to_io)
			memcpy((uint8_t *)io->iov[i].iov_base + off, l, n);
		else
			memcpy(l, (const uint8_t *)io->iov[i].iov_base + off, n);
		l += n;
		len -= n;
		off = 0;
	}
}

bool rblk_io_record(struct rblk_io *io, uint16_t status, int err)
{
	struct rblk_io_priv *p = rblk_io_priv(io);

	if ((status || err) && !p->status && !p->err) {
		p->status = status;
		p->err = err;
		/* Stop issuing: the request has failed whatever the rest does. */
		p->issued = p->total;
	}
	if (p->outstanding)
		p->outstanding--;
	return p->outstanding == 0 && p->issued == p->total;
}

static void io_done_append(struct rblk_qpair *qp, struct rblk_io *io)
{
	struct rblk_io_priv *p = rblk_io_priv(io);

	if (qp->pending == io)
		qp->pending = NULL;
	p->next = NULL;
	qp->ndone++;
	if (qp->done_tail)
		rblk_io_priv(qp->done_tail)->next = io;
	else
		qp->done_head = io;
	qp->done_tail = io;
}

void rblk_io_part_done(struct rblk_hq *hq, struct rblk_slot *slot, int err)
{
	struct rblk_qpair *qp = rblk_container_of(hq, struct rblk_qpair, hq);
	struct rblk_io *io = slot->ctx;
	uint16_t st = err ? 0 : rblk_slot_status(slot);

	if (!err && !st && io->op == RBLK_OP_READ && slot->local)
		iov_copy(io, slot->io_off, slot->local, slot->xfer_len, true);
	if (rblk_io_record(io, st, err))
		io_done_append(qp, io);
}

/* One command of @io into a free slot. 0, -EAGAIN (no slot or bounce unit), -errno. */
static int issue_one(struct rblk_qpair *qp, struct rblk_io *io)
{
	struct rblk_io_priv *p = rblk_io_priv(io);
	struct rblk_hq *hq = &qp->hq;
	struct rblk_ns *ns = io->ns;
	uint32_t units = 1, len = 0, off = 0;
	struct rblk_slot *slot;
	int ret = 0;

	slot = rblk_slot_get(&hq->slots);
	if (!slot)
		return -EAGAIN;
	switch (io->op) {
	case RBLK_OP_READ:
	case RBLK_OP_WRITE: {
		bool write = io->op == RBLK_OP_WRITE;
		uint32_t lkey, rkey;

		units = p->total - p->issued;
		if (units > p->max_nlb)
			units = p->max_nlb;
		len = units << ns->lba_shift;
		off = p->issued << ns->lba_shift;
		rblk_cmd_rw(slot->sqe, write, ns->nsid, io->lba + p->issued, units,
			    write && (io->flags & RBLK_IO_FUA));
		if (p->registered) {
			ret = rblk_hq_map(hq, slot, (uint8_t *)io->buf + off, len, p->lkey, p->rkey);
			break;
		}
		if (len <= RBLK_SLOT_DATA) {
			slot->local = slot->data;
			lkey = rblk_hq_lkey(hq);
			rkey = rblk_hq_rkey(hq);
		} else {
			void *unit;

			ret = rblk_hq_bounce_get(hq, &unit, &lkey, &rkey);
			if (ret)
				break;
			slot->bounce = unit;
			slot->local = unit;
		}
		if (write)
			iov_copy(io, off, slot->local, len, false);
		ret = rblk_hq_map(hq, slot, slot->local, len, lkey, rkey);
		break;
	}
	case RBLK_OP_FLUSH:
		rblk_cmd_flush(slot->sqe, ns->nsid);
		ret = rblk_hq_map(hq, slot, NULL, 0, 0, 0);
		break;
	case RBLK_OP_WRITE_ZEROES:
		units = p->total - p->issued;
		if (units > RBLK_MAX_NLB_PER_CMD)
			units = RBLK_MAX_NLB_PER_CMD;
		rblk_cmd_write_zeroes(slot->sqe, ns->nsid, io->lba + p->issued, units);
		ret = rblk_hq_map(hq, slot, NULL, 0, 0, 0);
		break;
	case RBLK_OP_DEALLOCATE:
		/* One range covers up to 2^32 - 1 blocks: one command. */
		rblk_cmd_dsm_deallocate(slot->sqe, ns->nsid, 1);
		rblk_dsm_range((struct nvme_dsm_range *)slot->data, io->lba, io->nlb);
		ret = rblk_hq_map(hq, slot, slot->data, sizeof(struct nvme_dsm_range),
				  rblk_hq_lkey(hq), rblk_hq_rkey(hq));
		units = p->total;
		break;
	default:
		ret = -EINVAL;
	}
	if (ret) {
		if (slot->bounce)
			rblk_hq_bounce_put(hq, slot->bounce);
		slot->bounce = NULL;
		rblk_slot_put(&hq->slots, slot);
		return ret;
	}
	slot->user = true;
	slot->done = rblk_io_part_done;
	slot->ctx = io;
	slot->io_off = off;
	p->issued += units;
	p->outstanding++;
	/* A staging failure fails the queue; the slot is reposted after the reconnect. */
	rblk_hq_post(hq, slot);
	return 0;
}

/* Issues as much of @io as resources allow. */
static void issue(struct rblk_qpair *qp, struct rblk_io *io)
{
	struct rblk_io_priv *p = rblk_io_priv(io);

	while (p->issued < p->total) {
		int ret = issue_one(qp, io);

		if (ret == -EAGAIN) {
			qp->pending = io;
			return;
		}
		if (ret) {
			/* Counted as one more command that failed at once. */
			p->outstanding++;
			if (rblk_io_record(io, 0, ret))
				io_done_append(qp, io);
			return;
		}
	}
	if (qp->pending == io)
		qp->pending = NULL;
}

void rblk_io_fail_pending(struct rblk_qpair *qp, int err)
{
	struct rblk_io *io = qp->pending;
	struct rblk_io_priv *p;

	if (!io)
		return;
	p = rblk_io_priv(io);
	qp->pending = NULL;
	p->outstanding++;
	if (rblk_io_record(io, 0, err))
		io_done_append(qp, io);
}

int rblk_io_prepare(struct rblk_ctrl *c, struct rblk_io *io, rblk_io_cb cb, void *arg)
{
	struct rblk_io_priv *p = rblk_io_priv(io);
	struct rblk_ns *ns = io->ns;
	uint64_t len = 0;

	memset(p, 0, sizeof(*p));
	if (!ns || ns->ctrl != c || !cb)
		return -EINVAL;
	p->cb = cb;
	p->arg = arg;
	p->total = 1;
	switch (io->op) {
	case RBLK_OP_READ:
	case RBLK_OP_WRITE:
		if (!io->nlb || (!io->buf && (!io->iov || !io->iovcnt)))
			return -EINVAL;
		len = (uint64_t)io->nlb << ns->lba_shift;
		if (!io->buf) {
			uint64_t sum = 0;

			for (unsigned i = 0; i < io->iovcnt; i++)
				sum += io->iov[i].iov_len;
			if (sum != len)
				return -EINVAL;
		}
		p->total = io->nlb;
		break;
	case RBLK_OP_WRITE_ZEROES:
		if (!io->nlb)
			return -EINVAL;
		p->total = io->nlb;
		break;
	case RBLK_OP_DEALLOCATE:
		if (!io->nlb)
			return -EINVAL;
		break;
	case RBLK_OP_FLUSH:
		break;
	default:
		return -EINVAL;
	}
	if (io->op != RBLK_OP_FLUSH && io->lba + io->nlb < io->lba)
		return -EINVAL;
	if (ns->read_only && io->op != RBLK_OP_READ && io->op != RBLK_OP_FLUSH)
		return -EROFS;
	if (io->op == RBLK_OP_READ || io->op == RBLK_OP_WRITE) {
		uint32_t bounce = c->max_xfer < RBLK_BOUNCE_UNIT_MAX ? c->max_xfer
								     : RBLK_BOUNCE_UNIT_MAX;

		p->registered = io->buf && len <= SIZE_MAX &&
				!rblk_mem_lookup(c, io->buf, (size_t)len, &p->lkey, &p->rkey);
		/* Unregistered data moves through bounce units: split at their size. */
		p->max_nlb = rblk_split_max_nlb(p->registered ? c->max_xfer : bounce, ns->lba_shift);
	}
	return 0;
}

int rblk_submit(struct rblk_qpair *qp, struct rblk_io *io, rblk_io_cb cb, void *arg)
{
	struct rblk_ctrl *c;
	int st, ret;

	if (!qp || !io)
		return -EINVAL;
	if (qp->mpath)
		return rblk_mpath_qp_submit(qp->mpath, io, cb, arg);
	c = qp->ctrl;
	st = atomic_load(&c->state);
	if (st == RBLK_CTRL_LOST || st == RBLK_CTRL_DELETING)
		return -ENOTCONN;
	ret = rblk_io_prepare(c, io, cb, arg);
	if (ret)
		return ret;
	pthread_mutex_lock(&qp->hq.lock);
	/*
	 * fast_io_fail: nothing waits in a queue that is down. Checked under
	 * the queue's lock: a teardown that starts after this fails what we
	 * post with -ENOTCONN.
	 */
	if (c->opts.fast_io_fail && qp->hq.state != RBLK_HQ_LIVE) {
		pthread_mutex_unlock(&qp->hq.lock);
		return -ENOTCONN;
	}
	if (qp->pending || !qp->hq.slots.nfree) {
		pthread_mutex_unlock(&qp->hq.lock);
		return -EAGAIN;
	}
	qp->inflight++;
	issue(qp, io);
	pthread_mutex_unlock(&qp->hq.lock);
	return 0;
}

int rblk_qpair_flush(struct rblk_qpair *qp)
{
	int ret;

	if (!qp)
		return -EINVAL;
	if (qp->mpath)
		return rblk_mpath_qp_flush(qp->mpath);
	pthread_mutex_lock(&qp->hq.lock);
	ret = rblk_hq_flush(&qp->hq);
	pthread_mutex_unlock(&qp->hq.lock);
	return ret;
}

/* With the lock held: reap until @max requests completed or the CQ is empty (and armed). */
static int reap(struct rblk_qpair *qp, unsigned max)
{
	struct rblk_hq *hq = &qp->hq;
	unsigned start = qp->ndone;
	int n;

	rblk_hq_flush(hq);
	for (;;) {
		unsigned done;

		n = rblk_hq_process(hq, 32);
		if (n < 0)
			return n;
		if (qp->pending && hq->state == RBLK_HQ_LIVE)
			issue(qp, qp->pending);
		done = qp->ndone - start;
		if (hq->state != RBLK_HQ_LIVE)
			break;
		if (n > 0) {
			if (max && done >= max)
				break;
			continue;
		}
		if (done)
			break;
		/*
		 * Empty, nothing reaped: the caller may sleep on the fd next.
		 * Arm once per idle spell (a spinning caller pays nothing
		 * after that), then look again for what landed before it. A
		 * completion that lands after the arm fires it (and completes
		 * no request, say a SEND's): the next turn reads that wakeup
		 * and arms again, so 0 is never returned unarmed. A lazy
		 * caller arms in rblk_qpair_prepare_sleep() instead.
		 */
		if (qp->lazy_arm || !rblk_hq_arm_idle(hq))
			break;
	}
	/* A wakeup that fired for what was reaped would keep the fd readable. */
	rblk_hq_consume_wakeup(hq);
	rblk_hq_flush(hq);
	return 0;
}

void rblk_qpair_set_lazy_arm(struct rblk_qpair *qp, bool lazy)
{
	if (!qp || qp->mpath)
		return;
	pthread_mutex_lock(&qp->hq.lock);
	qp->lazy_arm = lazy;
	pthread_mutex_unlock(&qp->hq.lock);
}

int rblk_qpair_prepare_sleep(struct rblk_qpair *qp)
{
	struct rblk_hq *hq;
	int ret = 0;

	if (!qp)
		return -EINVAL;
	if (qp->mpath)
		return 0;
	hq = &qp->hq;
	pthread_mutex_lock(&hq->lock);
	if (qp->ndone) {
		ret = 1;	/* completed, not yet delivered: rblk_poll() has them */
	} else if (hq->state == RBLK_HQ_LIVE) {
		/*
		 * The same arm-and-look-again as reap(): until an arm holds
		 * with the CQ empty, or a request completes.
		 */
		while (rblk_hq_arm_idle(hq)) {
			int n = rblk_hq_process(hq, 32);

			if (n < 0) {
				ret = n;
				break;
			}
			if (qp->ndone) {
				ret = 1;
				break;
			}
			if (!n)
				break;
		}
		rblk_hq_flush(hq);	/* receives reposted by what was handled */
	}
	/* Not live: the controller thread kicks the fd when that changes. */
	pthread_mutex_unlock(&hq->lock);
	return ret;
}

int rblk_poll(struct rblk_qpair *qp, unsigned max)
{
	struct rblk_ctrl *c;
	struct rblk_io *io, *list;
	unsigned owned;
	int count = 0, ret = 0, st;

	if (!qp)
		return -EINVAL;
	if (qp->mpath)
		return rblk_mpath_qp_poll(qp->mpath, max);
	c = qp->ctrl;
	rblk_ka_poll_hook(c);
	pthread_mutex_lock(&qp->hq.lock);
	rblk_wakefd_drain(&qp->wake);
	if (qp->hq.state == RBLK_HQ_LIVE) {
		ret = reap(qp, max);
	} else if (qp->hq.cq) {
		/*
		 * Not ours to poll while it reconnects, but a wakeup left on the
		 * channel (WRs flushed at teardown) would keep the fd readable
		 * and the caller spinning: consume it.
		 */
		rblk_hq_drain_wakeups(&qp->hq);
	}
	list = qp->done_head;
	qp->inflight -= qp->ndone;
	qp->done_head = qp->done_tail = NULL;
	qp->ndone = 0;
	owned = qp->inflight;
	pthread_mutex_unlock(&qp->hq.lock);

	/* Callbacks run unlocked: they may submit again on this qpair. */
	while ((io = list)) {
		struct rblk_io_priv *p = rblk_io_priv(io);

		list = p->next;
		p->cb(io, p->status, p->err, p->arg);
		count++;
	}
	if (count)
		return count;
	if (ret)
		return ret;
	/*
	 * The controller is marked lost before its queued requests are failed
	 * (rblk_ctrl_fail_io()): while any is still ours the caller must keep
	 * polling for its callback, not reuse its rblk_io.
	 */
	if (owned)
		return 0;
	st = atomic_load(&c->state);
	return st == RBLK_CTRL_LOST || st == RBLK_CTRL_DELETING ? -ENOTCONN : 0;
}

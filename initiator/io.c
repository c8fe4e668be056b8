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
#include "protocol/nvme_id.h"
#include "protocol/nvme_status.h"

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

/* Copies between a request's data and registered memory (an RBLK_OP_CMD's data lies apart). */
static void data_copy(const struct rblk_io *io, size_t off, void *local, size_t len, bool to_io)
{
	if (io->op == RBLK_OP_CMD) {
		struct rblk_cmd *cmd = io->buf;

		if (to_io)
			memcpy((uint8_t *)cmd->data + off, local, len);
		else
			memcpy(local, (const uint8_t *)cmd->data + off, len);
		return;
	}
	iov_copy(io, off, local, len, to_io);
}

bool rblk_io_record(struct rblk_io *io, uint16_t status, int err)
{
	struct rblk_io_priv *p = rblk_io_priv(io);
	uint16_t code = p->status & NVME_STATUS_CODE_MASK;

	if ((status || err) && !p->status && !p->err) {
		p->status = status;
		p->err = err;
		/* Stop issuing: the request has failed whatever the rest does. */
		p->issued = p->total;
	} else if (status && code == NVME_SC_FUSED_FAIL && !p->err) {
		/*
		 * A fused Write aborted because its Compare failed says less
		 * than the Compare's own status, whichever came back first.
		 */
		p->status = status;
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

	if (!err && !st && slot->local && !rblk_cmd_host_to_ctrl(slot->sqe))
		data_copy(io, slot->io_off, slot->local, slot->xfer_len, true);
	if (!err && io->op == RBLK_OP_CMD)
		((struct rblk_cmd *)io->buf)->dw0 = rblk_slot_dw0(slot);
	if (rblk_io_record(io, st, err))
		io_done_append(qp, io);
}

/*
 * Maps @len bytes of @io's data at @off for @slot's command: the caller's
 * registered memory as it is, else the slot's own 4 KiB or a bounce unit,
 * filled first when the data goes to the controller. 0, -EAGAIN (no bounce
 * unit free), -errno.
 */
static int map_data(struct rblk_hq *hq, struct rblk_io *io, struct rblk_slot *slot, uint32_t off,
		    uint32_t len)
{
	struct rblk_io_priv *p = rblk_io_priv(io);
	uint32_t lkey, rkey;
	int ret;

	if (p->registered)
		return rblk_hq_map(hq, slot, (uint8_t *)io->buf + off, len, p->lkey, p->rkey);
	if (len <= RBLK_SLOT_DATA) {
		slot->local = slot->data;
		lkey = rblk_hq_lkey(hq);
		rkey = rblk_hq_rkey(hq);
	} else {
		void *unit;

		ret = rblk_hq_bounce_get(hq, &unit, &lkey, &rkey);
		if (ret)
			return ret;
		slot->bounce = unit;
		slot->local = unit;
	}
	if (rblk_cmd_host_to_ctrl(slot->sqe))
		data_copy(io, off, slot->local, len, false);
	return rblk_hq_map(hq, slot, slot->local, len, lkey, rkey);
}

/* Blocks of @io the next command takes: what is left, at most @max. */
static uint32_t next_units(const struct rblk_io_priv *p, uint32_t max)
{
	uint32_t units = p->total - p->issued;

	return units > max ? max : units;
}

static void slot_release(struct rblk_hq *hq, struct rblk_slot *slot)
{
	if (slot->bounce)
		rblk_hq_bounce_put(hq, slot->bounce);
	slot->bounce = NULL;
	rblk_slot_put(&hq->slots, slot);
}

/*
 * Builds @slot's command for the next part of @io: *units (blocks of the
 * request it covers) and *off (byte offset of its data). 0 or -errno.
 */
static int build_one(struct rblk_hq *hq, struct rblk_io *io, struct rblk_slot *slot,
		     uint32_t *units, uint32_t *off)
{
	struct rblk_io_priv *p = rblk_io_priv(io);
	struct rblk_ns *ns = io->ns;

	*units = 1;
	*off = 0;
	switch (io->op) {
	case RBLK_OP_READ:
	case RBLK_OP_WRITE:
	case RBLK_OP_COMPARE:
		*units = next_units(p, p->max_nlb);
		*off = p->issued << ns->lba_shift;
		if (io->op == RBLK_OP_COMPARE)
			rblk_cmd_compare(slot->sqe, ns->nsid, io->lba + p->issued, *units);
		else
			rblk_cmd_rw(slot->sqe, io->op == RBLK_OP_WRITE, ns->nsid,
				    io->lba + p->issued, *units,
				    io->op == RBLK_OP_WRITE && (io->flags & RBLK_IO_FUA));
		return map_data(hq, io, slot, *off, *units << ns->lba_shift);
	case RBLK_OP_FLUSH:
		rblk_cmd_flush(slot->sqe, ns->nsid);
		return rblk_hq_map(hq, slot, NULL, 0, 0, 0);
	case RBLK_OP_WRITE_ZEROES:
	case RBLK_OP_VERIFY:
		*units = next_units(p, RBLK_MAX_NLB_PER_CMD);
		if (io->op == RBLK_OP_VERIFY)
			rblk_cmd_verify(slot->sqe, ns->nsid, io->lba + p->issued, *units);
		else
			rblk_cmd_write_zeroes(slot->sqe, ns->nsid, io->lba + p->issued, *units);
		return rblk_hq_map(hq, slot, NULL, 0, 0, 0);
	case RBLK_OP_DEALLOCATE:
		/* One range covers up to 2^32 - 1 blocks: one command. */
		rblk_cmd_dsm_deallocate(slot->sqe, ns->nsid, 1);
		rblk_dsm_range((struct nvme_dsm_range *)slot->data, io->lba, io->nlb);
		return rblk_hq_map(hq, slot, slot->data, sizeof(struct nvme_dsm_range),
				   rblk_hq_lkey(hq), rblk_hq_rkey(hq));
	case RBLK_OP_COPY: {
		const struct rblk_copy_range *r = io->buf;
		struct nvme_copy_range *d = (struct nvme_copy_range *)slot->data;

		/* The source ranges travel as 32-byte entries: 128 fill the slot's 4 KiB. */
		for (uint32_t i = 0; i < io->nlb; i++)
			rblk_copy_desc(&d[i], r[i].slba, r[i].nlb);
		rblk_cmd_copy(slot->sqe, ns->nsid, io->lba, io->nlb);
		return rblk_hq_map(hq, slot, slot->data, io->nlb * (uint32_t)sizeof(*d),
				   rblk_hq_lkey(hq), rblk_hq_rkey(hq));
	}
	case RBLK_OP_CMD: {
		const struct rblk_cmd *cmd = io->buf;

		rblk_cmd_raw(slot->sqe, (const struct nvme_sqe *)cmd->sqe, ns->nsid);
		return map_data(hq, io, slot, 0, cmd->len);
	}
	default:
		return -EINVAL;
	}
}

static void slot_bind(struct rblk_io *io, struct rblk_slot *slot, uint32_t off)
{
	slot->user = true;
	slot->done = rblk_io_part_done;
	slot->ctx = io;
	slot->io_off = off;
	rblk_io_priv(io)->outstanding++;
}

/* One command of @io into a free slot. 0, -EAGAIN (no slot or bounce unit), -errno. */
static int issue_one(struct rblk_qpair *qp, struct rblk_io *io)
{
	struct rblk_io_priv *p = rblk_io_priv(io);
	struct rblk_hq *hq = &qp->hq;
	struct rblk_slot *slot;
	uint32_t units, off;
	int ret;

	slot = rblk_slot_get(&hq->slots);
	if (!slot)
		return -EAGAIN;
	ret = build_one(hq, io, slot, &units, &off);
	if (ret) {
		slot_release(hq, slot);
		return ret;
	}
	slot_bind(io, slot, off);
	p->issued += units;
	/* A staging failure fails the queue; the slot is reposted after the reconnect. */
	rblk_hq_post(hq, slot);
	return 0;
}

/*
 * A fused Compare and Write: both halves or neither, staged back to back
 * under the queue's lock so that nothing comes between them on the wire.
 * The request's data is the expected blocks, then the new ones.
 */
static int issue_fused(struct rblk_qpair *qp, struct rblk_io *io)
{
	struct rblk_io_priv *p = rblk_io_priv(io);
	struct rblk_hq *hq = &qp->hq;
	struct rblk_ns *ns = io->ns;
	uint32_t len = io->nlb << ns->lba_shift;
	struct rblk_slot *cmp, *wr;
	int ret;

	cmp = rblk_slot_get(&hq->slots);
	if (!cmp)
		return -EAGAIN;
	wr = rblk_slot_get(&hq->slots);
	if (!wr) {
		rblk_slot_put(&hq->slots, cmp);
		return -EAGAIN;
	}
	rblk_cmd_compare(cmp->sqe, ns->nsid, io->lba, io->nlb);
	rblk_cmd_fuse(cmp->sqe, false);
	rblk_cmd_rw(wr->sqe, true, ns->nsid, io->lba, io->nlb, io->flags & RBLK_IO_FUA);
	rblk_cmd_fuse(wr->sqe, true);
	ret = map_data(hq, io, cmp, 0, len);
	if (!ret)
		ret = map_data(hq, io, wr, len, len);
	if (ret) {
		slot_release(hq, wr);
		slot_release(hq, cmp);
		return ret;
	}
	cmp->fused = wr->fused = true;
	slot_bind(io, cmp, 0);
	slot_bind(io, wr, len);
	p->issued = p->total;
	rblk_hq_post(hq, cmp);
	rblk_hq_post(hq, wr);
	return 0;
}

/* Issues as much of @io as resources allow. */
static void issue(struct rblk_qpair *qp, struct rblk_io *io)
{
	struct rblk_io_priv *p = rblk_io_priv(io);

	while (p->issued < p->total) {
		int ret = io->op == RBLK_OP_COMPARE_WRITE ? issue_fused(qp, io) : issue_one(qp, io);

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

/* The data bytes of a request that carries blocks, or 0. */
static uint64_t block_bytes(const struct rblk_io *io)
{
	uint64_t len = (uint64_t)io->nlb << io->ns->lba_shift;

	switch (io->op) {
	case RBLK_OP_READ:
	case RBLK_OP_WRITE:
	case RBLK_OP_COMPARE:
		return len;
	case RBLK_OP_COMPARE_WRITE:
		return 2 * len;
	default:
		return 0;
	}
}

void rblk_io_rekey_pending(struct rblk_qpair *qp)
{
	struct rblk_io *io = qp->pending;
	struct rblk_io_priv *p;

	if (!io)
		return;
	p = rblk_io_priv(io);
	/*
	 * Registered again on the new device (rblk_mem_attach) unless that
	 * failed: then what is left fails rather than move with stale keys.
	 */
	if (p->registered &&
	    rblk_mem_lookup(qp->ctrl, io->buf, (size_t)block_bytes(io), &p->lkey, &p->rkey))
		rblk_io_fail_pending(qp, -EIO);
}

bool rblk_io_op_writes(enum rblk_io_op op)
{
	return op == RBLK_OP_WRITE || op == RBLK_OP_WRITE_ZEROES || op == RBLK_OP_DEALLOCATE ||
	       op == RBLK_OP_COMPARE_WRITE || op == RBLK_OP_COPY;
}

/* The controller reports @op (Identify Controller ONCS, FUSES). */
static bool ctrl_supports(const struct rblk_ctrl *c, enum rblk_io_op op)
{
	switch (op) {
	case RBLK_OP_COMPARE:
		return rblk_le16(c->id->oncs) & NVME_CTRL_ONCS_COMPARE;
	case RBLK_OP_COMPARE_WRITE:
		return rblk_le16(c->id->fuses) & NVME_CTRL_FUSES_COMPARE_WRITE;
	case RBLK_OP_VERIFY:
		return rblk_le16(c->id->oncs) & NVME_CTRL_ONCS_VERIFY;
	case RBLK_OP_COPY:
		return rblk_le16(c->id->oncs) & NVME_CTRL_ONCS_COPY;
	default:
		return true;
	}
}

static int check_copy(const struct rblk_ns *ns, const struct rblk_io *io)
{
	const struct rblk_copy_range *r = io->buf;
	unsigned max = (unsigned)ns->id->msrc + 1;

	if (!r || !io->nlb || io->nlb > RBLK_COPY_MAX_RANGES || io->nlb > max)
		return -EINVAL;
	for (uint32_t i = 0; i < io->nlb; i++)
		if (!r[i].nlb || r[i].nlb > RBLK_MAX_NLB_PER_CMD || r[i].slba + r[i].nlb < r[i].slba)
			return -EINVAL;
	return 0;
}

static int check_cmd(const struct rblk_io *io, uint32_t bounce)
{
	const struct rblk_cmd *cmd = io->buf;
	uint8_t opc;

	if (!cmd)
		return -EINVAL;
	opc = cmd->sqe[0];
	/* Fabrics commands are the library's; data both ways has no transfer. */
	if (opc == NVME_FABRICS_COMMAND || (opc & 3) == 3)
		return -EINVAL;
	if (cmd->len && (!cmd->data || !(opc & 3) || cmd->len > bounce))
		return -EINVAL;
	return 0;
}

int rblk_io_prepare(struct rblk_ctrl *c, struct rblk_io *io, rblk_io_cb cb, void *arg)
{
	struct rblk_io_priv *p = rblk_io_priv(io);
	struct rblk_ns *ns = io->ns;
	uint32_t bounce;
	uint64_t len;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	if (!ns || ns->ctrl != c || !cb)
		return -EINVAL;
	p->cb = cb;
	p->arg = arg;
	p->total = 1;
	bounce = c->max_xfer < RBLK_BOUNCE_UNIT_MAX ? c->max_xfer : RBLK_BOUNCE_UNIT_MAX;
	len = block_bytes(io);
	if (!ctrl_supports(c, io->op))
		return -EOPNOTSUPP;
	switch (io->op) {
	case RBLK_OP_READ:
	case RBLK_OP_WRITE:
	case RBLK_OP_COMPARE:
	case RBLK_OP_COMPARE_WRITE:
		if (!io->nlb || (!io->buf && (!io->iov || !io->iovcnt)))
			return -EINVAL;
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
	case RBLK_OP_VERIFY:
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
	case RBLK_OP_COPY:
		ret = check_copy(ns, io);
		break;
	case RBLK_OP_CMD:
		ret = check_cmd(io, bounce);
		break;
	default:
		return -EINVAL;
	}
	if (ret)
		return ret;
	/* For Copy, lba and nlb are the destination and a count of ranges. */
	if (io->op != RBLK_OP_FLUSH && io->op != RBLK_OP_COPY && io->op != RBLK_OP_CMD &&
	    io->lba + io->nlb < io->lba)
		return -EINVAL;
	if (ns->read_only && rblk_io_op_writes(io->op))
		return -EROFS;
	if (len) {
		p->registered = io->buf && len <= SIZE_MAX &&
				!rblk_mem_lookup(c, io->buf, (size_t)len, &p->lkey, &p->rkey);
		/* Unregistered data moves through bounce units: split at their size. */
		p->max_nlb = rblk_split_max_nlb(p->registered ? c->max_xfer : bounce, ns->lba_shift);
		/* Each half of a fused pair is one command: never split. */
		if (io->op == RBLK_OP_COMPARE_WRITE && io->nlb > p->max_nlb)
			return -EINVAL;
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

/* SPDX-License-Identifier: MIT */
/*
 * The per-request state machine of the NVMe/RDMA target (SPDK's
 * nvmf_rdma_request_process discipline, nvmet-rdma's wire behaviour): one
 * function advances a request, one wait queue per scarce resource (pool
 * units, RDMA read depth, send-queue slots), receives kept apart from
 * requests. Also the work-completion dispatch of a poll group's CQ and the
 * core's queue_response op.
 *
 * Budgets: send slots and read depth are debited before staging and
 * credited by completions; receives are reposted exactly once per use.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "common/log.h"
#include "target/rdma/rdma.h"

const char *rblk_rdma_req_state_str(enum rblk_rdma_req_state s)
{
	switch (s) {
	case RBLK_RDMA_REQ_FREE:
		return "FREE";
	case RBLK_RDMA_REQ_NEW:
		return "NEW";
	case RBLK_RDMA_REQ_NEED_BUFFER:
		return "NEED_BUFFER";
	case RBLK_RDMA_REQ_NEED_RDMA_READ:
		return "NEED_RDMA_READ";
	case RBLK_RDMA_REQ_TRANSFERRING_H2C:
		return "TRANSFERRING_H2C";
	case RBLK_RDMA_REQ_READY_TO_EXECUTE:
		return "READY_TO_EXECUTE";
	case RBLK_RDMA_REQ_EXECUTING:
		return "EXECUTING";
	case RBLK_RDMA_REQ_READY_TO_COMPLETE:
		return "READY_TO_COMPLETE";
	case RBLK_RDMA_REQ_COMPLETING:
		return "COMPLETING";
	}
	return "?";
}

static struct rblk_rdma_req *req_of(struct rblk_req *req)
{
	return rblk_container_of(req, struct rblk_rdma_req, req);
}

/* Work may be posted: accepted (early commands wait) or live. */
static bool q_open(const struct rblk_rdma_queue *q)
{
	return q->state == RBLK_RDMA_Q_CONNECTING || q->state == RBLK_RDMA_Q_LIVE;
}

/*
 * FIFO fairness for a resource: a request proceeds only at the head of the
 * resource's queue (or when nobody waits) and when the resource is there;
 * otherwise it waits at the tail.
 */
static bool take_turn(struct rblk_rdma_reqq *head, struct rblk_rdma_req *r, bool available)
{
	if (r->queued) {
		if (TAILQ_FIRST(head) != r || !available)
			return false;
		TAILQ_REMOVE(head, r, link);
		r->queued = false;
		return true;
	}
	if (TAILQ_EMPTY(head) && available)
		return true;
	TAILQ_INSERT_TAIL(head, r, link);
	r->queued = true;
	return false;
}

static void unqueue(struct rblk_rdma_reqq *head, struct rblk_rdma_req *r)
{
	if (r->queued) {
		TAILQ_REMOVE(head, r, link);
		r->queued = false;
	}
}

/* Back to the free list: units to the pool, counters down. */
static void req_release(struct rblk_rdma_req *r)
{
	struct rblk_rdma_queue *q = r->q;

	assert(!r->queued);
	assert(!r->reads_inflight && !r->send_wrs);
	r->wait_since_ms = 0;
	for (unsigned i = 0; i < r->nunits; i++)
		rblk_mr_pool_put(q->dev->pool, r->req.iov[i].iov_base);
	r->nunits = 0;
	r->req.iovcnt = 0;
	/* A shared receive outlives its queue: it goes back to the SRQ. */
	if (r->recv && r->recv->srq)
		rblk_rdma_srq_repost(r->recv);
	r->recv = NULL;
	r->sgl.kind = RBLK_SGL_NONE;
	r->xfer_failed = false;
	r->state = RBLK_RDMA_REQ_FREE;
	TAILQ_INSERT_HEAD(&q->free_reqs, r, link);
	assert(q->reqs_busy > 0);
	q->reqs_busy--;
	atomic_store_explicit(&q->stats.depth, q->reqs_busy, memory_order_relaxed);
}

/* Opcode bit 0 (or FCTYPE bit 0 for fabrics commands): host to controller. */
static bool host_to_ctrl(const struct nvme_sqe *cmd)
{
	if (cmd->opc == NVME_ADMIN_FABRICS)
		return ((const uint8_t *)cmd)[NVME_SQE_FCTYPE_OFFSET] & 1;
	return cmd->opc & 1;
}

/* ------------------------------------------------------------------------ */
/* States.                                                                   */

static void step_new(struct rblk_rdma_req *r)
{
	struct rblk_rdma_queue *q = r->q;
	struct rblk_req *req = &r->req;
	struct rblk_sgl_limits lim;
	uint16_t status;
	bool at_least;

	rblk_req_init(req, &q->sq, r->recv->capsule);
	r->sgl.kind = RBLK_SGL_NONE;
	rblk_stat_inc(&q->stats.cmds, 1);
	status = rblk_req_parse(req);
	if (status) {
		/* No data moves; the core's completion sends the CQE. */
		rblk_req_complete(req, status);
		return;
	}

	/* The SGL must describe exactly data_len (DSM: at least) — docs/interop.md §4.3. */
	lim.incapsule_max = q->icd_size;
	lim.max_xfer = q->max_io_size;
	status = rblk_sgl_decode(req->cmd, &lim, host_to_ctrl(req->cmd), &r->sgl);
	at_least = q->sq.qid && req->cmd->opc == NVME_IO_DSM;
	if (!status)
		status = rblk_sgl_check_len(&r->sgl, req->data_len, at_least);
	if (!status && r->sgl.kind == RBLK_SGL_INCAPSULE &&
	    r->recv->byte_len < RBLK_RDMA_CAPSULE_SIZE + r->sgl.offset + req->data_len)
		status = NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR; /* the SEND was shorter */
	if (status) {
		if (r->sgl.err_loc != 0xFFFF)
			req->error_loc = r->sgl.err_loc;
		r->sgl.kind = RBLK_SGL_NONE;
		rblk_req_complete(req, status);
		return;
	}

	if (!req->data_len) {
		r->state = RBLK_RDMA_REQ_READY_TO_EXECUTE;
	} else if (r->sgl.kind == RBLK_SGL_INCAPSULE) {
		/* The data is already here, page aligned: no pool unit, no copy. */
		req->iov[0].iov_base = (uint8_t *)r->recv->icd + r->sgl.offset;
		req->iov[0].iov_len = req->data_len;
		req->iovcnt = 1;
		req->buf_index = -1;
		rblk_stat_inc(&q->stats.bytes_h2c, req->data_len);
		r->state = RBLK_RDMA_REQ_READY_TO_EXECUTE;
	} else {
		r->state = RBLK_RDMA_REQ_NEED_BUFFER;
	}
}

static void step_need_buffer(struct rblk_rdma_req *r)
{
	struct rblk_pg_dev *dev = r->q->dev;
	struct rblk_req *req = &r->req;
	size_t unit = rblk_mr_pool_unit_size(dev->pool);
	uint32_t left = req->data_len;
	unsigned n = (unsigned)((left + unit - 1) / unit);

	assert(n >= 1 && n <= RBLK_REQ_MAX_IOV);
	if (!take_turn(&dev->pending_buf, r, rblk_mr_pool_free_count(dev->pool) >= n)) {
		if (!r->wait_since_ms) {
			r->wait_since_ms = rblk_clock_ms();
			rblk_stat_inc(&dev->pg->r.core.buf_waits, 1);
		}
		return;
	}
	r->wait_since_ms = 0;
	for (unsigned i = 0; i < n; i++) {
		void *buf = rblk_mr_pool_get(dev->pool);

		assert(buf); /* free_count said so; one thread owns the pool */
		req->iov[i].iov_base = buf;
		req->iov[i].iov_len = left < unit ? left : unit;
		left -= (uint32_t)req->iov[i].iov_len;
	}
	r->nunits = (uint16_t)n;
	req->iovcnt = n;
	/* One unit: a storage engine can use it as an io_uring fixed buffer. */
	req->buf_index = n == 1 && dev->group_bufs
				 ? (int)rblk_mr_pool_index(dev->pool, req->iov[0].iov_base)
				 : -1;
	r->state = req->dir == RBLK_XFER_H2C ? RBLK_RDMA_REQ_NEED_RDMA_READ
					     : RBLK_RDMA_REQ_READY_TO_EXECUTE;
}

static void step_need_rdma_read(struct rblk_rdma_req *r)
{
	struct rblk_rdma_queue *q = r->q;
	struct rblk_rdma_chain c;
	unsigned n = rblk_rdma_data_wrs(r->req.iovcnt, q->max_sge_rd);
	int ret;

	/* Bounded by the initiator depth negotiated at accept. */
	if (!take_turn(&q->pending_read, r,
		       q->reads_avail >= n && q->send_slots >= n))
		return;
	ret = rblk_rdma_build_reads(r, &c);
	if (!ret) {
		assert(c.nwr == n);
		q->reads_avail -= n;
		q->send_slots -= n;
		r->reads_inflight = (uint16_t)n;
		r->state = RBLK_RDMA_REQ_TRANSFERRING_H2C;
		ret = rblk_rdma_stage_chain(q, r, &c);
		if (!ret)
			return;
		/* Nothing of a failed stage reaches the QP: give it back. */
		q->reads_avail += n;
		q->send_slots += n;
		r->reads_inflight = 0;
		rblk_rdma_queue_fail(q, "cannot stage RDMA READ");
	}
	RBLK_ERR("%s qid %u cid %#x: RDMA READ of %u bytes: %s", q->peer, q->sq.qid,
		 rblk_le16(r->req.cmd->cid), r->req.data_len, strerror(-ret));
	rblk_req_complete(&r->req, NVME_SC_INTERNAL);
}

static void step_ready_to_complete(struct rblk_rdma_req *r)
{
	struct rblk_rdma_queue *q = r->q;
	struct rblk_req *req = &r->req;
	struct rblk_rdma_chain c;
	bool data = req->dir == RBLK_XFER_C2H && !req->status && req->data_len &&
		    (r->sgl.kind == RBLK_SGL_KEYED || r->sgl.kind == RBLK_SGL_KEYED_INV);
	unsigned n = 1 + (data ? rblk_rdma_data_wrs(req->iovcnt, q->max_sge) : 0);
	int ret;

	if (!q_open(q)) {
		/* Teardown: nothing more goes on the wire. */
		unqueue(&q->pending_send, r);
		req_release(r);
		return;
	}
	/*
	 * The capsule is no longer needed: repost its receive now, before the
	 * response, so the host's next command finds a buffer (nvmet).
	 */
	if (r->recv) {
		ret = rblk_rdma_stage_recv(q, r->recv);
		r->recv = NULL;
		if (ret) {
			rblk_rdma_queue_fail(q, "cannot stage a receive");
			req_release(r);
			return;
		}
	}
	if (!take_turn(&q->pending_send, r, q->send_slots >= n))
		return;
	ret = rblk_rdma_build_response(r, &c);
	if (ret) {
		RBLK_ERR("%s qid %u cid %#x: cannot build the response: %s", q->peer, q->sq.qid,
			 rblk_le16(req->cmd->cid), strerror(-ret));
		rblk_rdma_queue_fail(q, "cannot build a response");
		req_release(r);
		return;
	}
	assert(c.nwr == n);
	q->send_slots -= n;
	r->send_wrs = (uint16_t)n;
	r->state = RBLK_RDMA_REQ_COMPLETING;
	ret = rblk_rdma_stage_chain(q, r, &c);
	if (ret) {
		q->send_slots += n;
		r->send_wrs = 0;
		rblk_rdma_queue_fail(q, "cannot stage a response");
		req_release(r);
		return;
	}
	if (data)
		rblk_stat_inc(&q->stats.bytes_c2h, req->data_len);
	if (req->status)
		rblk_stat_inc(&q->stats.errors, 1);
}

bool rblk_rdma_req_step(struct rblk_rdma_req *r)
{
	enum rblk_rdma_req_state prev = r->state;
	bool nested = r->in_process;

	r->in_process = true;
	switch (r->state) {
	case RBLK_RDMA_REQ_FREE:
	case RBLK_RDMA_REQ_TRANSFERRING_H2C:
	case RBLK_RDMA_REQ_EXECUTING:
	case RBLK_RDMA_REQ_COMPLETING:
		break; /* waiting for a completion or the core */
	case RBLK_RDMA_REQ_NEW:
		step_new(r);
		break;
	case RBLK_RDMA_REQ_NEED_BUFFER:
		step_need_buffer(r);
		break;
	case RBLK_RDMA_REQ_NEED_RDMA_READ:
		step_need_rdma_read(r);
		break;
	case RBLK_RDMA_REQ_READY_TO_EXECUTE:
		r->state = RBLK_RDMA_REQ_EXECUTING;
		/* May complete at once: queue_response then moves the state on. */
		r->req.execute(&r->req);
		break;
	case RBLK_RDMA_REQ_READY_TO_COMPLETE:
		step_ready_to_complete(r);
		break;
	}
	r->in_process = nested;
	return r->state != prev;
}

void rblk_rdma_req_process(struct rblk_rdma_req *r)
{
	if (r->in_process)
		return; /* the outer loop sees the new state */
	while (rblk_rdma_req_step(r))
		;
}

void rblk_rdma_queue_response(struct rblk_req *req)
{
	struct rblk_rdma_req *r = req_of(req);

	assert(r->state != RBLK_RDMA_REQ_FREE && r->state != RBLK_RDMA_REQ_COMPLETING &&
	       r->state != RBLK_RDMA_REQ_READY_TO_COMPLETE);
	assert(!r->queued);
	r->state = RBLK_RDMA_REQ_READY_TO_COMPLETE;
	r->q->progress++;
	rblk_rdma_req_process(r);
}

/* ------------------------------------------------------------------------ */
/* Work completions.                                                         */

static void wc_error(struct rblk_rdma_queue *q, const struct rblk_wc *wc, const char *what,
		     const struct rblk_rdma_req *r)
{
	/* Flushes are what a QP in the error state does: teardown noise. */
	if (wc->status == RBLK_WC_WR_FLUSH_ERR || !q_open(q)) {
		RBLK_DEBUG("%s qid %u: %s: %s", q->peer, q->sq.qid, what,
			   rblk_wc_status_str(wc->status));
	} else if (r && r->req.cmd) {
		rblk_stat_inc(&q->stats.wc_errors, 1);
		RBLK_ERR("%s qid %u cid %#x: %s failed: %s (vendor error %#x)", q->peer, q->sq.qid,
			 rblk_le16(r->req.cmd->cid), what, rblk_wc_status_str(wc->status),
			 wc->vendor_err);
	} else {
		/* No request (a receive): no CID to print, and none glued to the QID. */
		rblk_stat_inc(&q->stats.wc_errors, 1);
		RBLK_ERR("%s qid %u: %s failed: %s (vendor error %#x)", q->peer, q->sq.qid, what,
			 rblk_wc_status_str(wc->status), wc->vendor_err);
	}
	rblk_rdma_queue_fail(q, what);
}

/*
 * A receive that carries no command for a request: a queue's own goes idle
 * with its QP (which is going down); a shared one goes back to the SRQ.
 */
static void recv_drop(struct rblk_rdma_recv *rv)
{
	if (rv->srq)
		rblk_rdma_srq_repost(rv);
}

/* The queue a completed receive belongs to; NULL when that queue is gone. */
static struct rblk_rdma_queue *recv_owner(struct rblk_rdma_recv *rv, const struct rblk_wc *wc)
{
	assert(rv->posted);
	rv->posted = false;
	if (!rv->srq) {
		assert(rv->q->recv_posted > 0);
		rv->q->recv_posted--;
		return rv->q;
	}
	assert(rv->srq->posted > 0);
	rv->srq->posted--;
	rv->q = rblk_rdma_qpn_map_get(&rv->srq->map, wc->qp_num);
	if (rv->q)
		rv->q->recvs_held++;
	return rv->q;
}

static void recv_done(struct rblk_rdma_recv *rv, const struct rblk_wc *wc)
{
	struct rblk_rdma_queue *q = recv_owner(rv, wc);

	if (!q) {
		/* Its QP was destroyed after the receive completed. */
		recv_drop(rv);
		return;
	}
	q->progress++;
	if (wc->status) {
		/* Every posted receive flushes at teardown: counted, not logged. */
		if (wc->status == RBLK_WC_WR_FLUSH_ERR && !q_open(q))
			q->recv_flushed++;
		else
			wc_error(q, wc, "receive", NULL);
		recv_drop(rv);
		return;
	}
	if (!q_open(q)) {
		recv_drop(rv);
		return;
	}
	if (wc->byte_len < RBLK_RDMA_CAPSULE_SIZE) {
		RBLK_ERR("%s qid %u: short command capsule (%u bytes)", q->peer, q->sq.qid,
			 wc->byte_len);
		rblk_rdma_queue_fail(q, "short capsule");
		recv_drop(rv);
		return;
	}
	/*
	 * A host has at most its queue's depth of commands outstanding, and a
	 * receive goes back before its response leaves: holding more shared
	 * receives than that is a host overrunning its queue, which would
	 * starve every other connection of the SRQ.
	 */
	if (rv->srq && q->recvs_held > q->depth) {
		RBLK_ERR("%s qid %u: more commands outstanding than the queue's %u entries",
			 q->peer, q->plan.qid, q->depth);
		rblk_rdma_queue_fail(q, "queue overrun");
		recv_drop(rv);
		return;
	}
	rv->byte_len = wc->byte_len;
	/* Commands that beat ESTABLISHED wait for it (docs/interop.md §2.5). */
	STAILQ_INSERT_TAIL(&q->incoming, rv, link);
	if (q->state == RBLK_RDMA_Q_LIVE)
		rblk_rdma_queue_kick(q);
}

bool rblk_rdma_queue_send_awaited(const struct rblk_rdma_queue *q)
{
	/* Nothing signaled in flight: no send completion is coming. */
	if (!q->signaled_inflight)
		return false;
	return q->state != RBLK_RDMA_Q_LIVE || q->reads_avail < q->plan.initiator_depth ||
	       !STAILQ_EMPTY(&q->incoming) || !TAILQ_EMPTY(&q->pending_send) ||
	       !TAILQ_EMPTY(&q->pending_read);
}

static void read_done(struct rblk_rdma_req *r, const struct rblk_wc *wc)
{
	struct rblk_rdma_queue *q = r->q;

	assert(r->state == RBLK_RDMA_REQ_TRANSFERRING_H2C && r->reads_inflight > 0);
	assert(q->signaled_inflight > 0);
	r->reads_inflight--;
	q->reads_avail++;
	q->send_slots++;
	q->signaled_inflight--;
	assert(q->reads_avail <= q->plan.initiator_depth && q->send_slots <= q->send_slots_max);
	if (wc->status) {
		r->xfer_failed = true;
		wc_error(q, wc, "RDMA READ", r);
	}
	if (r->reads_inflight)
		return;
	if (r->xfer_failed) {
		/* The queue is going down; the core still gets its completion. */
		rblk_req_complete(&r->req, NVME_SC_TRANSIENT_TR_ERR);
		return;
	}
	rblk_stat_inc(&q->stats.bytes_h2c, r->req.data_len);
	r->state = RBLK_RDMA_REQ_READY_TO_EXECUTE;
	rblk_rdma_req_process(r);
}

static void send_done(struct rblk_rdma_req *r, const struct rblk_wc *wc)
{
	struct rblk_rdma_queue *q = r->q;

	assert(r->state == RBLK_RDMA_REQ_COMPLETING && r->send_wrs > 0);
	assert(q->signaled_inflight > 0);
	/* The SEND retires the unsignaled RDMA WRITEs chained before it. */
	q->send_slots += r->send_wrs;
	r->send_wrs = 0;
	q->signaled_inflight--;
	assert(q->send_slots <= q->send_slots_max);
	if (wc->status)
		wc_error(q, wc, "response SEND", r);
	req_release(r);
}

void rblk_rdma_handle_wc(const struct rblk_wc *wc)
{
	void *obj = rblk_rdma_wr_obj(wc->wr_id);

	/* A receive counts once its queue is known (recv_done). */
	if (rblk_rdma_wr_kind(wc->wr_id) == RBLK_RDMA_WR_READ ||
	    rblk_rdma_wr_kind(wc->wr_id) == RBLK_RDMA_WR_SEND)
		((struct rblk_rdma_req *)obj)->q->progress++;

	switch (rblk_rdma_wr_kind(wc->wr_id)) {
	case RBLK_RDMA_WR_RECV:
		recv_done(obj, wc);
		break;
	case RBLK_RDMA_WR_READ:
		read_done(obj, wc);
		break;
	case RBLK_RDMA_WR_SEND:
		send_done(obj, wc);
		break;
	case RBLK_RDMA_WR_WRITE:
		/*
		 * Unsignaled: only errors get here, and the SEND behind it reports
		 * the same failure with its request. Not dereferenced: after a
		 * failed post its request may be gone already.
		 */
		if (wc->status == RBLK_WC_WR_FLUSH_ERR)
			RBLK_DEBUG("RDMA WRITE flushed");
		else
			RBLK_WARN("RDMA WRITE failed: %s (vendor error %#x)",
				  rblk_wc_status_str(wc->status), wc->vendor_err);
		break;
	}
}

/* ------------------------------------------------------------------------ */
/* Waiting work.                                                             */

/* Retries the head of a wait queue until it stops making room. */
static void retry_head(struct rblk_rdma_reqq *head)
{
	struct rblk_rdma_req *r;

	while ((r = TAILQ_FIRST(head))) {
		rblk_rdma_req_process(r);
		if (TAILQ_FIRST(head) == r)
			break; /* still waiting: everybody behind it too */
	}
}

void rblk_rdma_queue_kick(struct rblk_rdma_queue *q)
{
	retry_head(&q->pending_send);
	retry_head(&q->pending_read);
	if (q->state != RBLK_RDMA_Q_LIVE)
		return;
	while (!STAILQ_EMPTY(&q->incoming) && !TAILQ_EMPTY(&q->free_reqs)) {
		struct rblk_rdma_recv *rv = STAILQ_FIRST(&q->incoming);
		struct rblk_rdma_req *r = TAILQ_FIRST(&q->free_reqs);

		STAILQ_REMOVE_HEAD(&q->incoming, link);
		TAILQ_REMOVE(&q->free_reqs, r, link);
		r->recv = rv;
		r->state = RBLK_RDMA_REQ_NEW;
		q->reqs_busy++;
		atomic_store_explicit(&q->stats.depth, q->reqs_busy, memory_order_relaxed);
		if (q->reqs_busy > atomic_load_explicit(&q->stats.max_depth, memory_order_relaxed))
			atomic_store_explicit(&q->stats.max_depth, q->reqs_busy,
					      memory_order_relaxed);
		rblk_rdma_req_process(r);
		if (q->state != RBLK_RDMA_Q_LIVE)
			break;
	}
}

void rblk_rdma_dev_kick(struct rblk_pg_dev *dev)
{
	retry_head(&dev->pending_buf);
}

void rblk_rdma_dev_expire_waits(struct rblk_pg_dev *dev, uint64_t now_ms)
{
	struct rblk_rdma_req *r;

	/* FIFO: the head waited longest. */
	while ((r = TAILQ_FIRST(&dev->pending_buf)) &&
	       now_ms - r->wait_since_ms >= RBLK_RDMA_BUF_WAIT_MS) {
		unqueue(&dev->pending_buf, r);
		r->wait_since_ms = 0;
		rblk_stat_inc(&dev->pg->stats.buf_timeouts, 1);
		RBLK_WARN("%s qid %u cid %u: no buffer for %u bytes in %d ms (pool %u/%u free): "
			  "failed for the host to retry", r->q->peer, r->q->sq.qid,
			  rblk_le16(r->req.cmd->cid), r->req.data_len, RBLK_RDMA_BUF_WAIT_MS,
			  rblk_mr_pool_free_count(dev->pool), rblk_mr_pool_count(dev->pool));
		rblk_req_complete(&r->req, NVME_SC_INTERNAL);
	}
}

void rblk_rdma_queue_abort_waiting(struct rblk_rdma_queue *q)
{
	struct rblk_rdma_req *r, *tmp;

	/* Responses not yet staged: the core is done with them. */
	while ((r = TAILQ_FIRST(&q->pending_send))) {
		unqueue(&q->pending_send, r);
		req_release(r);
	}
	/* Parsed, holding units or waiting for them: the core gets an abort. */
	while ((r = TAILQ_FIRST(&q->pending_read))) {
		unqueue(&q->pending_read, r);
		rblk_req_complete(&r->req, NVME_SC_ABORT_QUEUE | NVME_SC_DNR);
	}
	for (r = TAILQ_FIRST(&q->dev->pending_buf); r; r = tmp) {
		tmp = TAILQ_NEXT(r, link);
		if (r->q != q)
			continue;
		unqueue(&q->dev->pending_buf, r);
		rblk_req_complete(&r->req, NVME_SC_ABORT_QUEUE | NVME_SC_DNR);
	}
	/* Capsules no request took: nothing was started for them. */
	while (!STAILQ_EMPTY(&q->incoming)) {
		struct rblk_rdma_recv *rv = STAILQ_FIRST(&q->incoming);

		STAILQ_REMOVE_HEAD(&q->incoming, link);
		recv_drop(rv);
	}
}

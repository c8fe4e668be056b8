/* SPDX-License-Identifier: MIT */
/*
 * NVMe/RDMA queues of the target: one QP = one NVMe submission queue. Owns
 * a queue's life on its poll group's thread: set-up (QP on the group's CQ,
 * preallocated receives, requests and responses, every receive posted before
 * rdma_accept), CONNECTING -> LIVE at ESTABLISHED (early commands wait),
 * DRAINING on a disconnect or an error (QP to the error state, outstanding
 * WRs flushed, backend I/O finished), then destruction. Also the core's
 * disconnect and run_on ops, which reach the queue through the mailbox.
 *
 * Lifetime: the CM thread allocates the object and posts its create
 * message; every message queued for the queue holds a reference, the queue
 * itself one more until it is destroyed; the last reference frees it.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "protocol/cm.h"
#include "target/rdma/listener.h"

/* Receives the QP never flushed (posted after it broke) are given up after this. */
#define DRAIN_RECV_TIMEOUT_MS 2000

const char *rblk_rdma_qstate_str(enum rblk_rdma_qstate s)
{
	switch (s) {
	case RBLK_RDMA_Q_CONNECTING:
		return "connecting";
	case RBLK_RDMA_Q_LIVE:
		return "live";
	case RBLK_RDMA_Q_DRAINING:
		return "draining";
	case RBLK_RDMA_Q_CLOSED:
		return "closed";
	}
	return "?";
}

static void q_get(struct rblk_rdma_queue *q)
{
	atomic_fetch_add_explicit(&q->refs, 1, memory_order_relaxed);
}

static void q_put(struct rblk_rdma_queue *q)
{
	struct rblk_transport *t = q->t;

	if (atomic_fetch_sub_explicit(&q->refs, 1, memory_order_acq_rel) != 1)
		return;
	assert(q->state == RBLK_RDMA_Q_CLOSED);
	/* Takes t->qlock: rblk_rdma_queue_tryget() under it sees refs at 0 until then. */
	rblk_rdma_admit_release(t, q);
	free(q);
}

bool rblk_rdma_queue_tryget(struct rblk_rdma_queue *q)
{
	int refs = atomic_load_explicit(&q->refs, memory_order_relaxed);

	/* Never from 0: the object is past its last put and about to be freed. */
	while (refs)
		if (atomic_compare_exchange_weak_explicit(&q->refs, &refs, refs + 1,
							  memory_order_acquire, memory_order_relaxed))
			return true;
	return false;
}

void rblk_rdma_queue_put(struct rblk_rdma_queue *q)
{
	q_put(q);
}

/* ------------------------------------------------------------------------ */
/* Set-up.                                                                   */

static void free_resources(struct rblk_rdma_queue *q)
{
	bool mapped = q->srq_mapped;

	assert(!q->recvs_held);
	/* Out of the map first: its last receive completions find no queue. */
	if (mapped)
		rblk_rdma_qpn_map_del(&q->dev->srq->map, rblk_qp_num(q->qp));
	q->srq_mapped = false;
	rblk_qp_destroy(q->qp);
	q->qp = NULL;
	if (mapped)
		rblk_pg_dev_drain_rcq(q->dev);
	rblk_mr_pool_destroy(q->rsps);
	rblk_mr_pool_destroy(q->icd);
	rblk_mr_pool_destroy(q->capsules);
	q->rsps = q->icd = q->capsules = NULL;
	free(q->rstaged);
	free(q->staged);
	free(q->reqs);
	free(q->recvs);
	q->rstaged = NULL;
	q->staged = NULL;
	q->reqs = NULL;
	q->recvs = NULL;
	if (q->scq_slots || q->rcq_slots)
		rblk_pg_dev_release_cq(q->dev, q->scq, q->scq_slots, q->rcq_slots);
	q->scq_slots = q->rcq_slots = 0;
	q->scq = NULL;
}

static int create_pools(struct rblk_rdma_queue *q)
{
	struct rblk_pd *pd = q->dev->pd;
	int ret;

	/* Small, per queue: never worth a 2 MiB huge page each. */
	/* With shared receives the queue has no receive buffers of its own. */
	ret = q->dev->srq ? 0 : rblk_mr_pool_create_ex(pd, RBLK_RDMA_CAPSULE_SIZE, q->depth,
						       RBLK_ACCESS_LOCAL_WRITE,
						       RBLK_MR_POOL_NO_HUGETLB, &q->capsules);
	if (!ret && q->icd_size && !q->dev->srq)
		ret = rblk_mr_pool_create_ex(pd, q->icd_size, q->depth, RBLK_ACCESS_LOCAL_WRITE,
					     RBLK_MR_POOL_NO_HUGETLB, &q->icd);
	if (!ret)
		ret = rblk_mr_pool_create_ex(pd, RBLK_RDMA_RSP_SIZE, q->nreqs,
					     RBLK_ACCESS_LOCAL_WRITE, RBLK_MR_POOL_NO_HUGETLB,
					     &q->rsps);
	return ret;
}

static void init_objects(struct rblk_rdma_queue *q)
{
	TAILQ_INIT(&q->free_reqs);
	TAILQ_INIT(&q->pending_read);
	TAILQ_INIT(&q->pending_send);
	STAILQ_INIT(&q->incoming);
	for (uint16_t i = 0; q->recvs && i < q->depth; i++) {
		struct rblk_rdma_recv *rv = &q->recvs[i];

		rv->q = q;
		rv->capsule = rblk_mr_pool_unit(q->capsules, i);
		rv->icd = q->icd ? rblk_mr_pool_unit(q->icd, i) : NULL;
	}
	for (uint16_t i = 0; i < q->nreqs; i++) {
		struct rblk_rdma_req *r = &q->reqs[i];

		r->q = q;
		r->idx = i;
		r->rsp = rblk_mr_pool_unit(q->rsps, i);
		r->state = RBLK_RDMA_REQ_FREE;
		r->req.buf_index = -1;
		TAILQ_INSERT_TAIL(&q->free_reqs, r, link);
	}
}

static unsigned min_u(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

/* QP, buffers and requests for the plan; every receive staged. */
static int setup(struct rblk_rdma_queue *q)
{
	const struct rblk_target_opts *o = rblk_tgt_opts(q->t->tgt);
	struct rblk_poll_group *pg = q->pg;
	struct rblk_qp_caps caps;
	unsigned units, per_req, reads;
	uint32_t send_wr, nrecv;
	char local[RBLK_ADDR_STRLEN];
	int ret;

	ret = rblk_pg_dev_get(pg, rblk_cm_id_device(q->cm_id), &q->dev);
	if (ret)
		return ret;
	q->depth = q->plan.depth;
	q->nreqs = q->plan.depth;
	/* Admin capsules are 64 bytes: its Connect data comes by RDMA READ (docs/interop.md §6.4). */
	q->icd_size = q->plan.qid ? o->in_capsule_data_size : 0;
	q->max_io_size = o->max_io_size;
	q->no_invalidate = q->t->no_invalidate;
	q->max_sge = min_u(q->dev->attr.max_sge ? q->dev->attr.max_sge : 1, RBLK_RDMA_SEND_SGE);
	q->max_sge_rd = q->dev->attr.max_sge_rd ? min_u(q->dev->attr.max_sge_rd, q->max_sge)
						  : q->max_sge;
	/*
	 * One RDMA READ moves at most RBLK_RDMA_READ_WR_MAX bytes: a 1 MiB
	 * command then pulls its data with 8 READs, as nvmet-rdma does (its
	 * READs are max_sge pages, 128 KiB on Soft-RoCE). One 1 MiB READ made
	 * Soft-RoCE drop response packets and wait for retransmissions: 1 MiB
	 * writes ran at 0.6 MB/s against nvmet's 43 MB/s in the same VM boot.
	 */
	q->max_sge_rd = min_u(q->max_sge_rd,
			      o->io_unit_size >= RBLK_RDMA_READ_WR_MAX
				      ? 1 : RBLK_RDMA_READ_WR_MAX / o->io_unit_size);
	/*
	 * Send slots: two per request (an RDMA WRITE and the SEND answer any
	 * read up to 3 units, and a write's READs are bounded by the read
	 * depth), less one: providers round a send queue up to a power of two
	 * of slots plus one, and the ring is mapped into the process. Larger
	 * transfers are few at a time anyway (the buffer pool holds 16 of
	 * 1 MiB) and wait for slots in FIFO order. Sizing for every request at
	 * its worst (8 READs per 1 MiB write) made the send queue the largest
	 * part of a connection's memory.
	 */
	units = (o->max_io_size + o->io_unit_size - 1) / o->io_unit_size;
	per_req = rblk_rdma_data_wrs(units, q->max_sge) + 1;
	reads = rblk_rdma_data_wrs(units, q->max_sge_rd);
	send_wr = 2u * q->nreqs - 1;
	if (send_wr < per_req)
		send_wr = per_req;
	if (send_wr < reads)
		send_wr = reads;
	if (q->dev->attr.max_qp_wr && send_wr > q->dev->attr.max_qp_wr)
		send_wr = q->dev->attr.max_qp_wr;
	if (send_wr < per_req || send_wr < reads ||
	    (q->dev->attr.max_qp_wr && q->depth > q->dev->attr.max_qp_wr))
		return -ENOSPC;

	/*
	 * Every WR may complete (in error every one does): room on the shared
	 * CQs. Shared receives have theirs reserved by the SRQ.
	 */
	nrecv = q->dev->srq ? 0 : q->depth;
	ret = rblk_pg_dev_reserve_cq(q->dev, send_wr, nrecv, &q->scq);
	if (ret) {
		RBLK_WARN("%s qid %u: the poll group's CQs are full (%u send and %u receive "
			  "entries needed)", q->peer, q->plan.qid, send_wr, nrecv);
		return ret;
	}
	q->scq_slots = send_wr;
	q->rcq_slots = nrecv;

	q->reqs = rblk_calloc_lines(q->nreqs, sizeof(*q->reqs));
	q->staged = rblk_calloc_lines(send_wr, sizeof(*q->staged));
	if (!q->reqs || !q->staged)
		return -ENOMEM;
	if (nrecv) {
		q->recvs = rblk_calloc_lines(q->depth, sizeof(*q->recvs));
		q->rstaged = rblk_calloc_lines(q->depth, sizeof(*q->rstaged));
		if (!q->recvs || !q->rstaged)
			return -ENOMEM;
	}
	ret = create_pools(q);
	if (ret)
		return ret;

	memset(&caps, 0, sizeof(caps));
	caps.max_send_wr = send_wr;
	caps.max_recv_wr = q->depth;
	caps.max_send_sge = q->max_sge;
	if (q->dev->srq) {
		caps.max_recv_wr = 0;
		caps.srq = q->dev->srq->srq;
	} else {
		caps.max_recv_sge = q->icd_size ? 2 : 1;
	}
	ret = rblk_qp_create(q->cm_id, q->dev->pd, q->scq->cq, q->dev->rcq.cq, &caps, q,
			     &q->qp);
	if (ret)
		return ret;
	if (q->dev->srq) {
		ret = rblk_rdma_qpn_map_add(&q->dev->srq->map, rblk_qp_num(q->qp), q);
		if (ret)
			return ret;
		q->srq_mapped = true;
	}
	/* Our budget is what we asked for; the provider may have granted more. */
	q->send_slots = q->send_slots_max = send_wr;
	q->reads_avail = q->plan.initiator_depth;

	rblk_sq_init(&q->sq, q->t->tgt, &rblk_rdma_transport_ops, q->plan.qid, q->depth);
	q->sq.clock = &pg->r.svc_clock;
	/* NULL: no latency histograms, and no clock read for them. */
	q->sq.lat_clock = rblk_tgt_opts(q->t->tgt)->latency_stats ? &pg->r.clock : NULL;
	q->sq.pg = &pg->r.core;
	q->sq.listener = q->listener;
	rblk_addr_host_str(rblk_cm_id_local_addr(q->cm_id), local, sizeof(local));
	local[sizeof(q->sq.local_traddr) - 1] = '\0'; /* a scope suffix may not fit */
	memcpy(q->sq.local_traddr, local, strlen(local) + 1);

	init_objects(q);
	for (uint16_t i = 0; q->recvs && i < q->depth; i++) {
		ret = rblk_rdma_stage_recv(q, &q->recvs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* Destroys everything; the base reference goes last. */
static void close_queue(struct rblk_rdma_queue *q, bool added)
{
	if (added)
		rblk_poll_group_remove_queue(q->pg, q);
	if (q->qp)
		rblk_sq_destroy(&q->sq);
	free_resources(q);
	/* Before the id: on a device that went away, it may be the last one keeping it open. */
	if (q->dev)
		rblk_pg_dev_put(q->dev);
	q->dev = NULL;
	/* Blocks until the CM thread acked this id's events (it never waits on us). */
	rblk_cm_id_destroy(q->cm_id);
	q->cm_id = NULL;
	q->state = RBLK_RDMA_Q_CLOSED;
	q_put(q);
}

static void on_create(struct rblk_reactor_msg *m)
{
	struct rblk_rdma_queue *q = rblk_container_of(m, struct rblk_rdma_queue, msg_create);
	struct nvme_rdma_cm_rep rep;
	struct nvme_rdma_cm_rej rej;
	struct rblk_conn_param param;
	int ret;

	if (atomic_load(&q->t->stopping)) {
		ret = -ESHUTDOWN;
		goto reject;
	}
	/* Evicted before it got here (the message is behind this one): no QP for it. */
	if (atomic_load(&q->disconnect_queued)) {
		ret = -ECONNABORTED;
		goto reject;
	}
	ret = setup(q);
	if (ret)
		goto reject;
	/* Receives before the accept: the host may send as soon as it connects. */
	rblk_rdma_queue_flush(q);
	if (q->recvs && q->recv_posted != q->depth) {
		ret = -EIO;
		goto reject;
	}
	rblk_rdma_conn_accept_param(&q->plan, &rep, &param);
	ret = rblk_cm_accept(q->cm_id, &param);
	if (ret) {
		RBLK_ERR("%s qid %u: rdma_accept: %s", q->peer, q->plan.qid, strerror(-ret));
		/* Its receives are on the QP: destroying it discards them. */
		q->recv_posted = 0;
		close_queue(q, false);
		q_put(q);
		return;
	}
	rblk_poll_group_add_queue(q->pg, q);
	RBLK_INFO("%s qid %u: accepted on poll group %u (depth %u, in-capsule %u, read depth %u)",
		  q->peer, q->plan.qid, q->pg->opts.id, q->depth, q->icd_size,
		  q->plan.initiator_depth);
	q_put(q);
	return;

reject:
	/* An eviction is admission's to log (rate-limited); one line per flood queue is noise. */
	if (ret == -ECONNABORTED)
		RBLK_DEBUG("%s qid %u: rejecting the connection: disconnected before its accept",
			   q->peer, q->plan.qid);
	else
		RBLK_WARN("%s qid %u: rejecting the connection: %s", q->peer, q->plan.qid,
			  ret == -ESHUTDOWN ? "target stopping" : strerror(-ret));
	rblk_cm_rej_encode(&rej, NVME_RDMA_CM_NO_RSC);
	rblk_cm_reject(q->cm_id, &rej, sizeof(rej));
	q->recv_posted = 0;
	close_queue(q, false);
	q_put(q);
}

static void on_established(struct rblk_reactor_msg *m)
{
	struct rblk_rdma_queue *q = rblk_container_of(m, struct rblk_rdma_queue, msg_established);

	if (q->state == RBLK_RDMA_Q_CONNECTING) {
		q->state = RBLK_RDMA_Q_LIVE;
		RBLK_DEBUG("%s qid %u: established", q->peer, q->plan.qid);
		/* Commands that arrived before ESTABLISHED run now. */
		rblk_rdma_queue_kick(q);
	}
	q_put(q);
}

/* ------------------------------------------------------------------------ */
/* Teardown.                                                                 */

static void start_drain(struct rblk_rdma_queue *q, const char *why)
{
	int ret;

	if (q->state != RBLK_RDMA_Q_CONNECTING && q->state != RBLK_RDMA_Q_LIVE)
		return;
	RBLK_INFO("%s qid %u (sq qid %u): disconnecting: %s", q->peer, q->plan.qid, q->sq.qid,
		  why);
	q->state = RBLK_RDMA_Q_DRAINING;
	q->drain_start_ms = rblk_clock_ms();
	/*
	 * Post what is staged while the QP still works, so that everything on
	 * it is flushed by the move to the error state below.
	 */
	rblk_rdma_queue_flush(q);
	/* QP to the error state (outstanding WRs flush) and DREQ to the host. */
	ret = rblk_cm_disconnect(q->cm_id);
	if (ret)
		RBLK_DEBUG("%s qid %u: rdma_disconnect: %s", q->peer, q->plan.qid,
			   strerror(-ret));
	rblk_rdma_queue_abort_waiting(q);
	/* The core gives back held requests (AERs); losing qid 0 ends the controller. */
	rblk_sq_teardown(&q->sq);
}

void rblk_rdma_queue_fail(struct rblk_rdma_queue *q, const char *why)
{
	start_drain(q, why);
}

void rblk_rdma_queue_disconnect_local(struct rblk_rdma_queue *q)
{
	start_drain(q, "target stopping");
}

static void on_disconnect(struct rblk_reactor_msg *m)
{
	struct rblk_rdma_queue *q = rblk_container_of(m, struct rblk_rdma_queue, msg_disconnect);

	if (q->disconnect_reason == RBLK_RDMA_DISC_EVICTED)
		start_drain(q, "evicted: a newer connection from its address took its place before "
			    "it sent a Connect");
	else if (q->disconnect_reason < 0)
		start_drain(q, "requested by the controller");
	else
		start_drain(q, rblk_cm_event_str(q->disconnect_reason));
	q_put(q);
}

void rblk_rdma_queue_request_disconnect(struct rblk_rdma_queue *q, int reason)
{
	/* One message per queue's life is enough: draining is one-way. */
	if (atomic_exchange(&q->disconnect_queued, true))
		return;
	q->disconnect_reason = reason;
	q_get(q);
	rblk_reactor_post(&q->pg->r, &q->msg_disconnect);
}

bool rblk_rdma_queue_reap(struct rblk_rdma_queue *q)
{
	if (q->state != RBLK_RDMA_Q_DRAINING)
		return false;
	if (q->signaled_inflight || q->reqs_busy || q->nstaged || q->nrstaged ||
	    rblk_qp_send_staged(q->qp) || rblk_qp_recv_staged(q->qp))
		return false;
	if (q->recv_posted) {
		/*
		 * Receives posted after the QP broke on its own (a WC error) may
		 * never be flushed (rxe); sends are all back, so give up on them.
		 */
		if (rblk_clock_ms() - q->drain_start_ms < DRAIN_RECV_TIMEOUT_MS)
			return false;
		RBLK_DEBUG("%s qid %u: %u receives never flushed", q->peer, q->plan.qid,
			   q->recv_posted);
		q->recv_posted = 0;
	}
	RBLK_INFO("%s qid %u: closed (%llu commands, %u receives flushed)", q->peer, q->plan.qid,
		  (unsigned long long)atomic_load(&q->stats.cmds), q->recv_flushed);
	close_queue(q, true);
	return true;
}

/* ------------------------------------------------------------------------ */
/* CM thread side.                                                           */

int rblk_rdma_queue_alloc(struct rblk_transport *t, struct rblk_poll_group *pg,
			  struct rblk_cm_id *id, struct rblk_listener *l,
			  const struct rblk_rdma_conn_plan *plan, struct rblk_rdma_queue **out)
{
	struct rblk_rdma_queue *q = rblk_calloc_lines(1, sizeof(*q));

	if (!q)
		return -ENOMEM;
	q->t = t;
	q->pg = pg;
	q->cm_id = id;
	q->plan = *plan;
	q->listener = l;
	q->state = RBLK_RDMA_Q_CONNECTING;
	q->disconnect_reason = RBLK_RDMA_DISC_CTRL;
	atomic_init(&q->refs, 1);
	atomic_init(&q->disconnect_queued, false);
	q->msg_create.fn = on_create;
	q->msg_established.fn = on_established;
	q->msg_disconnect.fn = on_disconnect;
	rblk_addr_str(rblk_cm_id_peer_addr(id), q->peer, sizeof(q->peer));
	rblk_cm_id_set_context(id, q);
	rblk_rdma_admit_add(t, q);
	*out = q;
	return 0;
}

void rblk_rdma_queue_post_event(struct rblk_rdma_queue *q, enum rblk_cm_event_type type)
{
	switch (type) {
	case RBLK_CM_EVENT_CONNECT_REQUEST:
		q_get(q);
		rblk_reactor_post(&q->pg->r, &q->msg_create);
		break;
	case RBLK_CM_EVENT_ESTABLISHED:
		q_get(q);
		rblk_reactor_post(&q->pg->r, &q->msg_established);
		break;
	case RBLK_CM_EVENT_DISCONNECTED:
	case RBLK_CM_EVENT_TIMEWAIT_EXIT:
	case RBLK_CM_EVENT_ADDR_CHANGE:
	case RBLK_CM_EVENT_DEVICE_REMOVAL:
	case RBLK_CM_EVENT_CONNECT_ERROR:
	case RBLK_CM_EVENT_UNREACHABLE:
	case RBLK_CM_EVENT_REJECTED:
		rblk_rdma_queue_request_disconnect(q, (int)type);
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------------------ */
/* The core's ops and statistics.                                            */

static void op_disconnect(struct rblk_sq *sq)
{
	rblk_rdma_queue_request_disconnect(rblk_rdma_queue_of(sq), RBLK_RDMA_DISC_CTRL);
}

static int op_run_on(struct rblk_sq *sq, void (*fn)(void *arg), void *arg)
{
	return rblk_reactor_run_on(&rblk_rdma_queue_of(sq)->pg->r, fn, arg);
}

static void op_complete_io(struct rblk_req *req)
{
	rblk_reactor_complete_io(&rblk_rdma_queue_of(req->sq)->pg->r, req);
}

static void op_connected(struct rblk_sq *sq)
{
	rblk_rdma_admit_connected(rblk_rdma_queue_of(sq));
}

const struct rblk_transport_ops rblk_rdma_transport_ops = {
	.queue_response = rblk_rdma_queue_response,
	.disconnect = op_disconnect,
	.run_on = op_run_on,
	.complete_io = op_complete_io,
	.connected = op_connected,
};

#define STALL_REPORT_MS 5000

void rblk_rdma_queue_check_stall(struct rblk_rdma_queue *q, uint64_t now_ms)
{
	unsigned n[RBLK_RDMA_REQ_COMPLETING + 1] = { 0 };
	unsigned waiting_buf = 0, incoming = 0;
	struct rblk_rdma_recv *rv;
	struct rblk_rdma_req *r;

	/* A held AER waits for an event, not for us: not a stall. */
	unsigned held = 0, storage, local;

	for (uint16_t i = 0; !q->sq.qid && i < q->nreqs; i++)
		held += q->reqs[i].state == RBLK_RDMA_REQ_EXECUTING &&
			q->reqs[i].req.cmd->opc == NVME_ADMIN_ASYNC_EVENT;
	if (q->progress != q->progress_seen || q->reqs_busy <= held) {
		if (q->stall_reported)
			RBLK_NOTICE("%s qid %u: requests move again", q->peer, q->sq.qid);
		q->progress_seen = q->progress;
		q->stalled_since_ms = now_ms;
		q->stall_reported = false;
		return;
	}
	if (q->stall_reported || now_ms - q->stalled_since_ms < STALL_REPORT_MS)
		return;
	q->stall_reported = true;
	for (uint16_t i = 0; i < q->nreqs; i++)
		n[q->reqs[i].state]++;
	TAILQ_FOREACH(r, &q->dev->pending_buf, link)
		waiting_buf++;
	STAILQ_FOREACH(rv, &q->incoming, link)
		incoming++;
	storage = rblk_tgt_pg_storage_inflight(q->sq.pg, &local);
	RBLK_WARN("%s qid %u: no progress for %llu ms: requests NEW %u NEED_BUFFER %u "
		  "NEED_RDMA_READ %u TRANSFERRING_H2C %u READY_TO_EXECUTE %u EXECUTING %u "
		  "READY_TO_COMPLETE %u COMPLETING %u; pool %u/%u free (%u waiting), send "
		  "slots %u/%u, reads %u/%u, %s %u/%u, signaled WRs %u, "
		  "unbound capsules %u, storage in flight %u (local %u)",
		  q->peer, q->sq.qid, (unsigned long long)(now_ms - q->stalled_since_ms),
		  n[RBLK_RDMA_REQ_NEW], n[RBLK_RDMA_REQ_NEED_BUFFER], n[RBLK_RDMA_REQ_NEED_RDMA_READ],
		  n[RBLK_RDMA_REQ_TRANSFERRING_H2C], n[RBLK_RDMA_REQ_READY_TO_EXECUTE],
		  n[RBLK_RDMA_REQ_EXECUTING], n[RBLK_RDMA_REQ_READY_TO_COMPLETE],
		  n[RBLK_RDMA_REQ_COMPLETING], rblk_mr_pool_free_count(q->dev->pool),
		  rblk_mr_pool_count(q->dev->pool), waiting_buf, q->send_slots, q->send_slots_max,
		  q->reads_avail, q->plan.initiator_depth,
		  /* Shared: what the SRQ holds for everybody, not this queue's own. */
		  q->dev->srq ? "shared receives posted" : "receives posted",
		  q->dev->srq ? q->dev->srq->posted : q->recv_posted,
		  q->dev->srq ? q->dev->srq->depth : q->depth, q->signaled_inflight, incoming,
		  storage, local);
}

/* SPDX-License-Identifier: MIT */
/*
 * Host NVMe/RDMA queue engine (see queue.h): connection set-up over rdma_cm,
 * staging and flushing SENDs, receive reposting, completion handling with
 * CID/generation checks, teardown with WR flush, and synchronous execution
 * of one command (bring-up and admin commands).
 *
 * WR ids: kind (bits 63:62, SEND or RECV) | epoch (61:32) | index (31:0),
 * the index being a slot for SENDs and a response buffer for RECVs.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "initiator/cmd.h"
#include "initiator/ctrl.h"
#include "initiator/queue.h"
#include "protocol/cm.h"
#include "protocol/names.h"

#define WRID_SEND 1ull
#define WRID_RECV 2ull
#define WRID_EPOCH_MASK 0x3FFFFFFFu
#define POLL_BATCH 32

static uint64_t wrid(uint64_t kind, uint32_t epoch, uint32_t index)
{
	return kind << 62 | (uint64_t)(epoch & WRID_EPOCH_MASK) << 32 | index;
}

const char *rblk_hq_state_str(enum rblk_hq_state st)
{
	switch (st) {
	case RBLK_HQ_DOWN:
		return "down";
	case RBLK_HQ_CONNECTING:
		return "connecting";
	case RBLK_HQ_LIVE:
		return "live";
	case RBLK_HQ_FAILED:
		return "failed";
	case RBLK_HQ_CLOSING:
		return "closing";
	}
	return "?";
}

int rblk_hq_init(struct rblk_hq *hq, struct rblk_ctrl *ctrl, uint16_t qid, unsigned depth)
{
	int ret;

	memset(hq, 0, sizeof(*hq));
	hq->ctrl = ctrl;
	hq->qid = qid;
	hq->depth = depth;
	hq->state = RBLK_HQ_DOWN;
	if (depth < 2 || depth + 1 > RBLK_SLOTS_MAX)
		return -EINVAL;
	ret = pthread_mutex_init(&hq->lock, NULL);
	if (ret)
		return -ret;
	hq->inited = true;
	ret = rblk_slots_init(&hq->slots, depth + 1, 1);
	if (ret)
		return ret;
	return rblk_cm_channel_create(true, &hq->ch);
}

void rblk_hq_fini(struct rblk_hq *hq)
{
	if (!hq->inited)
		return;
	rblk_qp_destroy(hq->qp);
	hq->qp = NULL;
	rblk_cm_id_destroy(hq->id);
	hq->id = NULL;
	rblk_mr_pool_destroy(hq->bounce);
	rblk_cq_destroy(hq->cq);
	rblk_mr_dereg(hq->area_mr);
	free(hq->area);
	rblk_cm_channel_destroy(hq->ch);
	rblk_slots_fini(&hq->slots);
	pthread_mutex_destroy(&hq->lock);
	hq->inited = false;
}

/* 0 without a registration: unit tests run queues over plain memory. */
uint32_t rblk_hq_lkey(const struct rblk_hq *hq)
{
	return hq->area_mr ? rblk_mr_lkey(hq->area_mr) : 0;
}

uint32_t rblk_hq_rkey(const struct rblk_hq *hq)
{
	return hq->area_mr ? rblk_mr_rkey(hq->area_mr) : 0;
}

int rblk_hq_resources(struct rblk_hq *hq)
{
	struct rblk_ctrl *c = hq->ctrl;
	size_t data_len = (size_t)(hq->depth + 1) * RBLK_SLOT_DATA;
	size_t sqe_len = (size_t)(hq->depth + 1) * sizeof(struct nvme_sqe);
	size_t rsp_len = (size_t)hq->depth * sizeof(struct nvme_cqe);
	int ret;

	if (!c->dev || !c->pd)
		return -ENODEV;
	/*
	 * Each piece is made once and kept across reconnects; after a device
	 * went away (rblk_hq_release_device) the CQ and the registrations are
	 * made again on the new one, over the same memory.
	 */
	if (!hq->cq) {
		/* One SEND per slot in flight plus every receive: the CQ never overflows. */
		ret = rblk_cq_create(c->dev, (int)(2 * hq->depth + 2), hq->qid, true, &hq->cq);
		if (ret) {
			RBLK_ERR("qid %u: creating a CQ: %s", hq->qid, strerror(-ret));
			return ret;
		}
	}
	if (!hq->area) {
		/*
		 * Slot data first (page aligned), then SQEs, then responses. The
		 * whole area allows remote access: slot data carries Connect
		 * data, Identify pages and small bounced I/O both ways.
		 */
		hq->area_len = data_len + sqe_len + ((rsp_len + 63) & ~(size_t)63);
		if (posix_memalign(&hq->area, 4096, hq->area_len)) {
			hq->area = NULL;
			return -ENOMEM;
		}
		memset(hq->area, 0, hq->area_len);
		hq->data = hq->area;
		hq->sqes = (struct nvme_sqe *)(hq->data + data_len);
		hq->rsps = (struct nvme_cqe *)((uint8_t *)hq->sqes + sqe_len);
		for (unsigned i = 0; i < hq->slots.n; i++) {
			hq->slots.s[i].sqe = &hq->sqes[i];
			hq->slots.s[i].data = hq->data + (size_t)i * RBLK_SLOT_DATA;
		}
	}
	if (!hq->area_mr) {
		ret = rblk_mr_reg(c->pd, hq->area, hq->area_len,
				  RBLK_ACCESS_LOCAL_WRITE | RBLK_ACCESS_REMOTE_READ |
					  RBLK_ACCESS_REMOTE_WRITE,
				  &hq->area_mr);
		if (ret) {
			RBLK_ERR("qid %u: registering %zu bytes of queue memory: %s", hq->qid,
				 hq->area_len, strerror(-ret));
			return ret;
		}
	}
	if (hq->bounce && !rblk_mr_pool_registered(hq->bounce)) {
		pthread_mutex_lock(&hq->lock);
		ret = rblk_mr_pool_rereg(hq->bounce, c->pd);
		pthread_mutex_unlock(&hq->lock);
		if (ret)
			return ret;
	}
	return 0;
}

void rblk_hq_release_device(struct rblk_hq *hq)
{
	pthread_mutex_lock(&hq->lock);
	rblk_cq_destroy(hq->cq);
	hq->cq = NULL;
	hq->cq_armed = hq->cq_fired = false;
	rblk_mr_dereg(hq->area_mr);
	hq->area_mr = NULL;
	/* Units held by queued requests keep their data; only the keys change. */
	if (hq->bounce)
		rblk_mr_pool_rereg(hq->bounce, NULL);
	pthread_mutex_unlock(&hq->lock);
}

/* ------------------------------------------------------------------ */
/* rdma_cm                                                             */

static int cm_event_error(struct rblk_hq *hq, const struct rblk_cm_event *ev)
{
	uint16_t sts;

	switch (ev->type) {
	case RBLK_CM_EVENT_REJECTED:
		if (!rblk_cm_rej_decode(ev->param.private_data, ev->param.private_data_len, &sts))
			RBLK_INFO("qid %u: connect rejected: status %d, NVMe/RDMA status %u (%s)",
				  hq->qid, ev->status, sts, rblk_cm_rej_str(sts));
		else
			RBLK_INFO("qid %u: connect rejected: status %d%s", hq->qid, ev->status,
				  ev->status == 8 ? " (no listener on that port)" : "");
		return -ECONNREFUSED;
	case RBLK_CM_EVENT_ADDR_ERROR:
	case RBLK_CM_EVENT_ROUTE_ERROR:
	case RBLK_CM_EVENT_UNREACHABLE:
		RBLK_INFO("qid %u: %s (%s)", hq->qid, rblk_cm_event_str(ev->type),
			  strerror(ev->status < 0 ? -ev->status : EHOSTUNREACH));
		return ev->status < 0 ? ev->status : -EHOSTUNREACH;
	default:
		RBLK_INFO("qid %u: unexpected %s (status %d)", hq->qid, rblk_cm_event_str(ev->type),
			  ev->status);
		return -ECONNRESET;
	}
}

/* The next event for @id, which must be @want. */
static int cm_wait(struct rblk_hq *hq, struct rblk_cm_id *id, enum rblk_cm_event_type want,
		   int timeout_ms)
{
	uint64_t deadline = rblk_clock_ms() + (uint64_t)timeout_ms;
	struct pollfd pfd = { .fd = rblk_cm_channel_fd(hq->ch), .events = POLLIN };
	struct rblk_cm_event ev;
	int ret;

	for (;;) {
		uint64_t now;

		if (atomic_load(&hq->ctrl->stopping))
			return -ECANCELED;
		ret = rblk_cm_get_event(hq->ch, &ev);
		if (ret == -EAGAIN) {
			now = rblk_clock_ms();
			if (now >= deadline) {
				RBLK_INFO("qid %u: no %s after %d ms", hq->qid, rblk_cm_event_str(want),
					  timeout_ms);
				return -ETIMEDOUT;
			}
			/* Short slices: a controller being deleted must not wait out a timeout. */
			poll(&pfd, 1, (int)(deadline - now < 100 ? deadline - now : 100));
			continue;
		}
		if (ret)
			return ret;
		if (ev.id != id) {
			rblk_cm_ack_event(&ev);
			continue;
		}
		if (ev.type == want) {
			rblk_cm_ack_event(&ev);
			return 0;
		}
		ret = cm_event_error(hq, &ev);
		rblk_cm_ack_event(&ev);
		return ret;
	}
}

/*
 * Address, device and route of a new @id: the first queue picks the
 * controller's device and every later one must route through it; the
 * queue's registered resources are made in between. 0 or -errno.
 */
static int cm_resolve(struct rblk_hq *hq, struct rblk_cm_id *id, int timeout)
{
	struct rblk_ctrl *c = hq->ctrl;
	int ret;

	ret = rblk_cm_resolve_addr(id, c->has_src ? (const struct sockaddr *)&c->src : NULL,
				   (const struct sockaddr *)&c->dst, timeout);
	if (!ret)
		ret = cm_wait(hq, id, RBLK_CM_EVENT_ADDR_RESOLVED, timeout + 1000);
	if (ret)
		return ret;
	if (!c->dev) {
		ret = rblk_ctrl_attach_device(c, id);
		if (ret)
			return ret;
	} else if (rblk_cm_id_device(id) != c->dev) {
		if (hq->qid) {
			/* The admin queue of this connection chose the device: one for all. */
			RBLK_ERR("qid %u: routed through %s, the admin queue through %s",
				 hq->qid, rblk_device_name(rblk_cm_id_device(id)),
				 rblk_device_name(c->dev));
			return -EXDEV;
		}
		/* The first queue of a reconnect, nothing else up: follow the route. */
		RBLK_NOTICE("the route to %s now goes through %s, not %s", c->traddr,
			    rblk_device_name(rblk_cm_id_device(id)), rblk_device_name(c->dev));
		rblk_ctrl_release_device(c);
		ret = rblk_ctrl_attach_device(c, id);
		if (ret)
			return ret;
	}
	ret = rblk_hq_resources(hq);
	if (ret)
		return ret;
	ret = rblk_cm_resolve_route(id, timeout);
	if (!ret)
		ret = cm_wait(hq, id, RBLK_CM_EVENT_ROUTE_RESOLVED, timeout + 1000);
	return ret;
}

/*
 * Makes @id and @qp the queue's (a new epoch) and posts every receive. On
 * failure the caller clears them with hq_clear_qp(). 0 or -errno.
 */
static int hq_install_qp(struct rblk_hq *hq, struct rblk_cm_id *id, struct rblk_qp *qp)
{
	unsigned posted = 0;
	int ret = 0;

	pthread_mutex_lock(&hq->lock);
	hq->id = id;
	hq->qp = qp;
	hq->epoch++;
	hq->send_posted = 0;
	hq->recv_posted = 0;
	/* The target may answer the moment the connection is up: receives first. */
	for (unsigned i = 0; i < hq->depth && !ret; i++) {
		struct rblk_sge sge = { (uintptr_t)&hq->rsps[i], sizeof(struct nvme_cqe),
					rblk_hq_lkey(hq) };

		ret = rblk_qp_queue_recv(qp, wrid(WRID_RECV, hq->epoch, i), &sge, 1);
	}
	if (!ret)
		ret = rblk_qp_flush_recv(qp, &posted);
	hq->recv_posted = posted;
	hq->incapsule_max = hq->qid ? hq->ctrl->io_incapsule_max : 0;
	pthread_mutex_unlock(&hq->lock);
	if (ret)
		RBLK_ERR("qid %u: posting %u receives: %s", hq->qid, hq->depth, strerror(-ret));
	return ret;
}

static void hq_clear_qp(struct rblk_hq *hq)
{
	pthread_mutex_lock(&hq->lock);
	hq->qp = NULL;
	hq->id = NULL;
	hq->epoch++;	/* whatever the dead QP flushes is ignored */
	hq->send_posted = hq->recv_posted = 0;
	pthread_mutex_unlock(&hq->lock);
}

/* The NVMe/RDMA CM request, then waits for ESTABLISHED. 0 or -errno. */
static int cm_establish(struct rblk_hq *hq, struct rblk_cm_id *id, int timeout)
{
	struct nvme_rdma_cm_req priv;
	struct rblk_cm_req_info info = {
		.qid = hq->qid,
		.hrqsize = (uint16_t)hq->depth,		/* 1-based: our receives */
		.hsqsize = (uint16_t)(hq->depth - 1),	/* 0-based */
		.cntlid = 0,				/* as the Linux host */
	};
	struct rblk_conn_param param = {
		.private_data = &priv,
		.private_data_len = sizeof(priv),
		.initiator_depth = 0,
		.flow_control = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	int ret;

	rblk_cm_req_encode(&priv, &info);
	/*
	 * > 0, or the target cannot RDMA READ our write data (it becomes its
	 * initiator depth; docs/interop.md §2.4). Known only once the first
	 * queue found the device, hence set here.
	 */
	param.responder_resources = hq->ctrl->responder_resources;
	ret = rblk_cm_connect(id, &param);
	if (!ret)
		ret = cm_wait(hq, id, RBLK_CM_EVENT_ESTABLISHED, timeout + 1000);
	return ret;
}

int rblk_hq_cm_connect(struct rblk_hq *hq)
{
	struct rblk_ctrl *c = hq->ctrl;
	int timeout = (int)c->opts.connect_timeout_ms;
	struct rblk_qp_caps caps = {
		.max_send_wr = hq->depth + 1,
		.max_recv_wr = hq->depth,
		.max_send_sge = 2,			/* SQE + in-capsule data */
		.max_recv_sge = 1,
	};
	struct rblk_cm_id *id = NULL;
	struct rblk_qp *qp = NULL;
	int ret;

	ret = rblk_cm_id_create(hq->ch, hq, &id);
	if (ret)
		return ret;
	ret = cm_resolve(hq, id, timeout);
	if (ret)
		goto out_destroy_id;
	ret = rblk_qp_create(id, c->pd, hq->cq, hq->cq, &caps, hq, &qp);
	if (ret) {
		RBLK_ERR("qid %u: creating a QP (%u send, %u recv WRs): %s", hq->qid,
			 caps.max_send_wr, caps.max_recv_wr, strerror(-ret));
		goto out_destroy_id;
	}
	ret = hq_install_qp(hq, id, qp);
	if (!ret)
		ret = cm_establish(hq, id, timeout);
	if (ret)
		goto out_clear;
	pthread_mutex_lock(&hq->lock);
	hq->state = RBLK_HQ_CONNECTING;
	pthread_mutex_unlock(&hq->lock);
	RBLK_DEBUG("qid %u: connected (%u entries, QP %u)", hq->qid, hq->depth, rblk_qp_num(qp));
	return 0;

out_clear:
	hq_clear_qp(hq);
	rblk_qp_destroy(qp);
out_destroy_id:
	rblk_cm_id_destroy(id);
	return ret;
}

int rblk_hq_cm_poll(struct rblk_hq *hq)
{
	struct rblk_cm_event ev;
	int lost = 0;

	while (!rblk_cm_get_event(hq->ch, &ev)) {
		if (hq->id && ev.id == hq->id) {
			switch (ev.type) {
			case RBLK_CM_EVENT_DEVICE_REMOVAL:
				hq->ctrl->dev_removed = true;
				/* fall through */
			case RBLK_CM_EVENT_DISCONNECTED:
			case RBLK_CM_EVENT_ADDR_CHANGE:
			case RBLK_CM_EVENT_TIMEWAIT_EXIT:
			case RBLK_CM_EVENT_CONNECT_ERROR:
			case RBLK_CM_EVENT_UNREACHABLE:
				RBLK_NOTICE("qid %u: %s", hq->qid, rblk_cm_event_str(ev.type));
				lost = -ECONNRESET;
				break;
			default:
				RBLK_DEBUG("qid %u: %s", hq->qid, rblk_cm_event_str(ev.type));
				break;
			}
		}
		rblk_cm_ack_event(&ev);
	}
	return lost;
}

/* ------------------------------------------------------------------ */
/* Posting and completions                                             */

void rblk_hq_fail(struct rblk_hq *hq, const char *why)
{
	struct rblk_ctrl *c = hq->ctrl;

	if (hq->state != RBLK_HQ_LIVE && hq->state != RBLK_HQ_CONNECTING)
		return;
	RBLK_WARN("qid %u: %s: the connection will be reset", hq->qid, why);
	if (hq->state == RBLK_HQ_LIVE)
		atomic_store(&c->conn_lost, true);
	hq->state = RBLK_HQ_FAILED;
	rblk_ctrl_wake(c);
}

static void complete_slot(struct rblk_hq *hq, struct rblk_slot *slot, int err)
{
	rblk_slot_done_fn done = slot->done;

	if (done)
		done(hq, slot, err);
	if (slot->bounce)
		rblk_hq_bounce_put(hq, slot->bounce);
	slot->bounce = NULL;
	rblk_slot_put(&hq->slots, slot);
}

static int stage(struct rblk_hq *hq, struct rblk_slot *slot)
{
	struct rblk_sge sge[2] = {
		{ (uintptr_t)slot->sqe, sizeof(struct nvme_sqe), rblk_hq_lkey(hq) },
		{ slot->ic_addr, slot->ic_len, slot->ic_lkey },
	};
	struct rblk_send_wr wr = {
		.wr_id = wrid(WRID_SEND, hq->epoch, slot->index),
		.opcode = RBLK_WR_SEND,
		/*
		 * Every SEND is signaled: the slot (its SQE and in-capsule
		 * data) is reused only after the SEND completed.
		 */
		.flags = RBLK_SEND_SIGNALED,
		.sge = sge,
		.num_sge = slot->ic_len ? 2 : 1,
	};

	return rblk_qp_queue_send(hq->qp, &wr);
}

static void queued_append(struct rblk_hq *hq, struct rblk_slot *slot)
{
	slot->state = RBLK_SLOT_QUEUED;
	slot->next = NULL;
	if (hq->queued_tail)
		hq->queued_tail->next = slot;
	else
		hq->queued_head = slot;
	hq->queued_tail = slot;
}

int rblk_hq_post(struct rblk_hq *hq, struct rblk_slot *slot)
{
	int ret;

	/*
	 * Until the queue's Fabrics Connect completed, only the connector's
	 * own commands may go out: the target refuses anything else there.
	 */
	if (!hq->qp || !(hq->state == RBLK_HQ_LIVE ||
			 (hq->state == RBLK_HQ_CONNECTING && !slot->user))) {
		queued_append(hq, slot);
		return 0;
	}
	rblk_slot_arm(slot);
	ret = stage(hq, slot);
	if (ret) {
		/* Staging holds depth + 1 SENDs: this is a bug, not back-pressure. */
		RBLK_ERR("qid %u: staging cid %#x: %s", hq->qid, rblk_le16(slot->sqe->cid),
			 strerror(-ret));
		rblk_hq_fail(hq, "cannot stage a command");
	}
	return ret;
}

int rblk_hq_flush(struct rblk_hq *hq)
{
	unsigned posted = 0;
	int ret;

	if (!hq->qp || (hq->state != RBLK_HQ_LIVE && hq->state != RBLK_HQ_CONNECTING))
		return 0;
	ret = rblk_qp_flush_send(hq->qp, &posted);
	hq->send_posted += posted;
	if (posted)
		RBLK_DEBUG("qid %u: posted %u SEND%s", hq->qid, posted, posted == 1 ? "" : "s");
	if (ret) {
		RBLK_ERR("qid %u: ibv_post_send: %s", hq->qid, strerror(-ret));
		rblk_hq_fail(hq, "posting SENDs failed");
		return ret;
	}
	ret = rblk_qp_flush_recv(hq->qp, &posted);
	hq->recv_posted += posted;
	if (ret) {
		RBLK_ERR("qid %u: ibv_post_recv: %s", hq->qid, strerror(-ret));
		rblk_hq_fail(hq, "reposting receives failed");
	}
	return ret;
}

static bool errors_expected(const struct rblk_hq *hq)
{
	return hq->state == RBLK_HQ_CLOSING || hq->state == RBLK_HQ_FAILED ||
	       hq->state == RBLK_HQ_DOWN;
}

static void wc_error(struct rblk_hq *hq, const struct rblk_wc *wc, const char *what)
{
	if (errors_expected(hq) || wc->status == RBLK_WC_WR_FLUSH_ERR) {
		RBLK_DEBUG("qid %u: %s: %s", hq->qid, what, rblk_wc_status_str(wc->status));
		rblk_hq_fail(hq, "work requests flushed");
		return;
	}
	RBLK_ERR("qid %u: %s: %s (vendor error %#x)", hq->qid, what,
		 rblk_wc_status_str(wc->status), wc->vendor_err);
	rblk_hq_fail(hq, rblk_wc_status_str(wc->status));
}

static void handle_send(struct rblk_hq *hq, const struct rblk_wc *wc, uint32_t index)
{
	struct rblk_slot *slot;

	if (hq->send_posted)
		hq->send_posted--;
	if (wc->status != RBLK_WC_SUCCESS) {
		wc_error(hq, wc, "SEND");
		return;
	}
	if (index >= hq->slots.n)
		return;
	slot = &hq->slots.s[index];
	if (slot->state == RBLK_SLOT_POSTED && rblk_slot_send_done(slot) == 1)
		complete_slot(hq, slot, 0);
}

static void handle_recv(struct rblk_hq *hq, const struct rblk_wc *wc, uint32_t index)
{
	struct rblk_slot *slot;
	struct nvme_cqe cqe;
	int ret;

	if (hq->recv_posted)
		hq->recv_posted--;
	if (wc->status != RBLK_WC_SUCCESS) {
		wc_error(hq, wc, "RECV");
		return;
	}
	if (index >= hq->depth)
		return;
	if (wc->byte_len < sizeof(cqe)) {
		RBLK_ERR("qid %u: a %u-byte response, shorter than a CQE", hq->qid, wc->byte_len);
		rblk_hq_fail(hq, "short response");
		return;
	}
	cqe = hq->rsps[index];
	if (hq->qp && (hq->state == RBLK_HQ_LIVE || hq->state == RBLK_HQ_CONNECTING)) {
		struct rblk_sge sge = { (uintptr_t)&hq->rsps[index], sizeof(cqe), rblk_hq_lkey(hq) };

		ret = rblk_qp_queue_recv(hq->qp, wrid(WRID_RECV, hq->epoch, index), &sge, 1);
		if (ret)
			rblk_hq_fail(hq, "cannot repost a receive");
	}
	ret = rblk_slot_rsp(&hq->slots, &cqe, &slot);
	if (ret < 0) {
		/* As the Linux host: a CQE we cannot match means the queue cannot be trusted. */
		RBLK_ERR("qid %u: bogus completion: cid %#x, status %#x (%s)", hq->qid,
			 rblk_le16(cqe.cid), nvme_cqe_status(&cqe),
			 ret == -ESTALE	   ? "generation mismatch"
			 : ret == -EALREADY ? "duplicate"
					    : "no such command");
		rblk_hq_fail(hq, "bogus completion");
		return;
	}
	if (ret == 1)
		complete_slot(hq, slot, 0);
}

uint64_t rblk_hq_wr_id(const struct rblk_hq *hq, bool recv, uint32_t index)
{
	return wrid(recv ? WRID_RECV : WRID_SEND, hq->epoch, index);
}

void rblk_hq_handle_wc(struct rblk_hq *hq, const struct rblk_wc *wc)
{
	uint64_t kind = wc->wr_id >> 62;
	uint32_t epoch = (uint32_t)(wc->wr_id >> 32) & WRID_EPOCH_MASK;
	uint32_t index = (uint32_t)wc->wr_id;

	if (RBLK_LOG_ON(RBLK_LOG_DEBUG))
		RBLK_DEBUG("qid %u: WC %s #%u epoch %u%s: %s, %u bytes", hq->qid,
			   kind == WRID_SEND ? "SEND" : "RECV", index, epoch,
			   epoch != (hq->epoch & WRID_EPOCH_MASK) ? " (stale)" : "",
			   rblk_wc_status_str(wc->status), wc->byte_len);
	/* A previous connection's QP is gone with everything it held. */
	if (epoch != (hq->epoch & WRID_EPOCH_MASK))
		return;
	if (kind == WRID_SEND)
		handle_send(hq, wc, index);
	else if (kind == WRID_RECV)
		handle_recv(hq, wc, index);
}

int rblk_hq_process(struct rblk_hq *hq, int max)
{
	struct rblk_wc wc[POLL_BATCH];
	int n;

	if (!hq->cq)
		return 0;
	if (max <= 0 || max > POLL_BATCH)
		max = POLL_BATCH;
	n = rblk_cq_poll(hq->cq, wc, max);
	if (n > 0 && hq->cq_armed)
		hq->cq_fired = true;
	for (int i = 0; i < n; i++)
		rblk_hq_handle_wc(hq, &wc[i]);
	return n;
}

int rblk_hq_arm(struct rblk_hq *hq)
{
	int ret;

	if (!hq->cq || hq->cq_armed)
		return 0;
	ret = rblk_cq_req_notify(hq->cq, false);
	if (ret)
		return ret;
	hq->cq_armed = true;
	hq->cq_fired = false;
	return 0;
}

void rblk_hq_consume_wakeup(struct rblk_hq *hq)
{
	/*
	 * One arm raises one wakeup, so one read. Soft-RoCE makes the
	 * completion visible a moment before it queues the wakeup: a read
	 * that comes up empty leaves the flags as they are and the next poll
	 * tries again.
	 */
	if (!hq->cq_fired || rblk_cq_get_event(hq->cq) <= 0)
		return;
	hq->cq_armed = hq->cq_fired = false;
}

bool rblk_hq_arm_idle(struct rblk_hq *hq)
{
	rblk_hq_consume_wakeup(hq);
	if (hq->cq_armed)
		return false;
	return rblk_hq_arm(hq) == 0 && hq->cq_armed;
}

void rblk_hq_drain_wakeups(struct rblk_hq *hq)
{
	bool got = false;

	if (!hq->cq)
		return;
	while (rblk_cq_get_event(hq->cq) > 0)
		got = true;
	if (got)
		hq->cq_armed = hq->cq_fired = false;
}

/* ------------------------------------------------------------------ */
/* State changes                                                       */

void rblk_hq_fail_queued(struct rblk_hq *hq, int err)
{
	struct rblk_slot *s;

	while ((s = hq->queued_head)) {
		hq->queued_head = s->next;
		if (!hq->queued_head)
			hq->queued_tail = NULL;
		complete_slot(hq, s, err);
	}
}

/*
 * The keys @slot's data has now: the queue's area, its bounce unit, or the
 * caller's registered memory. 0, or -ENOENT when the memory is no longer
 * registered.
 */
static int slot_keys(struct rblk_hq *hq, const struct rblk_slot *slot, uint32_t *lkey,
		     uint32_t *rkey)
{
	uint64_t a = slot->map_addr;

	if (a >= (uintptr_t)hq->area && a - (uintptr_t)hq->area < hq->area_len) {
		*lkey = rblk_hq_lkey(hq);
		*rkey = rblk_hq_rkey(hq);
		return 0;
	}
	if (slot->bounce) {
		*lkey = rblk_mr_pool_lkey(hq->bounce);
		*rkey = rblk_mr_pool_rkey(hq->bounce);
		return 0;
	}
	return rblk_mem_lookup(hq->ctrl, (const void *)(uintptr_t)a, slot->xfer_len, lkey, rkey);
}

void rblk_hq_rekey(struct rblk_hq *hq)
{
	struct rblk_slot *s, **link = &hq->queued_head, *failed = NULL;

	hq->queued_tail = NULL;
	while ((s = *link)) {
		uint32_t lkey, rkey;
		int ret = 0;

		if (s->xfer_len) {
			ret = slot_keys(hq, s, &lkey, &rkey);
			if (!ret)
				ret = rblk_hq_map(hq, s, (void *)(uintptr_t)s->map_addr, s->xfer_len,
						  lkey, rkey);
		}
		if (ret) {
			RBLK_WARN("qid %u: a kept request's memory is not registered on the new device: it fails",
				  hq->qid);
			*link = s->next;
			s->next = failed;
			failed = s;
			continue;
		}
		hq->queued_tail = s;
		link = &s->next;
	}
	while ((s = failed)) {
		failed = s->next;
		complete_slot(hq, s, -EIO);
	}
}

void rblk_hq_teardown(struct rblk_hq *hq, bool requeue)
{
	struct rblk_slot *again = NULL, *again_last = NULL, **tail = &again;
	uint64_t deadline;
	struct rblk_cm_id *id;
	struct rblk_qp *qp;

	pthread_mutex_lock(&hq->lock);
	id = hq->id;
	qp = hq->qp;
	if (hq->state != RBLK_HQ_DOWN)
		hq->state = RBLK_HQ_CLOSING;
	pthread_mutex_unlock(&hq->lock);

	if (id) {
		int ret = rblk_cm_disconnect(id);

		if (ret)
			RBLK_DEBUG("qid %u: rdma_disconnect: %s", hq->qid, strerror(-ret));
	}
	/*
	 * The requests below go back to their owners, who reuse the buffers
	 * the target was told to write into: the QP must take no more RDMA
	 * first. rdma_disconnect() moved it to the error state if the CM
	 * still knew the connection; one it gave up on is left to us.
	 */
	if (qp) {
		int ret = rblk_qp_set_error(qp);

		if (ret)
			RBLK_WARN("qid %u: moving the QP to the error state: %s", hq->qid,
				  strerror(-ret));
	}
	/* Everything posted comes back flushed. */
	deadline = rblk_clock_ms() + RBLK_DRAIN_TIMEOUT_MS;
	pthread_mutex_lock(&hq->lock);
	while (qp && (hq->send_posted || hq->recv_posted)) {
		if (rblk_hq_process(hq, POLL_BATCH) > 0)
			continue;
		if (rblk_clock_ms() >= deadline) {
			RBLK_DEBUG("qid %u: %u SENDs and %u receives did not flush", hq->qid,
				   hq->send_posted, hq->recv_posted);
			break;
		}
		pthread_mutex_unlock(&hq->lock);
		usleep(1000);
		pthread_mutex_lock(&hq->lock);
	}
	hq->qp = NULL;
	hq->id = NULL;
	hq->epoch++;
	hq->send_posted = hq->recv_posted = 0;

	for (unsigned i = 0; i < hq->slots.n; i++) {
		struct rblk_slot *s = &hq->slots.s[i];

		if (s->state != RBLK_SLOT_POSTED)
			continue;
		if (s->rsp_done) {
			/* The target answered; only our SEND's completion was lost. */
			complete_slot(hq, s, 0);
		} else if (requeue && s->user && !s->fused) {
			/*
			 * I/O goes out again after the reconnect; a fused half
			 * does not: the pair must reach the target back to
			 * back, and whether its Write took place is unknown.
			 */
			s->state = RBLK_SLOT_QUEUED;
			s->next = NULL;
			*tail = s;
			tail = &s->next;
			again_last = s;
		} else {
			complete_slot(hq, s, -ENOTCONN);
		}
	}
	/* What was in flight goes out again before what was submitted since. */
	if (again) {
		*tail = hq->queued_head;
		if (!hq->queued_head)
			hq->queued_tail = again_last;
		hq->queued_head = again;
	}
	if (!requeue)
		rblk_hq_fail_queued(hq, -ENOTCONN);
	hq->state = RBLK_HQ_DOWN;
	pthread_mutex_unlock(&hq->lock);
	/*
	 * Last, and with the lock released: on a device that broke under the
	 * connection, destroying the id can wait in the kernel for a CM message
	 * that never completes. The requests are back with their owners by
	 * now (a multipath head has sent them down another path), and the
	 * owners' threads, which take this lock to poll, must not wait too.
	 */
	rblk_qp_destroy(qp);
	rblk_cm_id_destroy(id);
}

/*
 * No clock is read when a command is posted: each look notes, per posted
 * slot, which posting it saw (slot->posts) and when it first saw it, so a
 * command is known old once the same posting has been seen for @tmo_ms.
 * The looks come about once a second, so a timeout fires within a second of
 * its due time. Before declaring one, the CQ is reaped: the answer may be
 * waiting there for an owner that sleeps.
 */
int rblk_hq_check_timeout(struct rblk_hq *hq, uint64_t now, uint64_t tmo_ms)
{
	struct rblk_slot *old = NULL;
	uint32_t posts = 0;
	int ret = 0;

	pthread_mutex_lock(&hq->lock);
	if (hq->state != RBLK_HQ_LIVE)
		goto out;
	for (unsigned i = 0; i < hq->slots.n; i++) {
		struct rblk_slot *s = &hq->slots.s[i];

		if (s->state != RBLK_SLOT_POSTED)
			continue;
		if (s->watch_posts != s->posts) {
			s->watch_posts = s->posts;
			s->watch_ms = now;
		} else if (!old && now - s->watch_ms >= tmo_ms) {
			old = s;
			posts = s->posts;
		}
	}
	if (!old)
		goto out;
	while (rblk_hq_process(hq, POLL_BATCH) > 0)
		ret = 1;
	if (old->state == RBLK_SLOT_POSTED && old->posts == posts && hq->state == RBLK_HQ_LIVE) {
		RBLK_ERR("qid %u: cid %#x (opcode %#x) unanswered for %llu ms: I/O timeout",
			 hq->qid, rblk_le16(old->sqe->cid), old->sqe->opc,
			 (unsigned long long)(now - old->watch_ms));
		rblk_hq_fail(hq, "I/O timeout");
		ret = -ETIMEDOUT;
	}
out:
	pthread_mutex_unlock(&hq->lock);
	return ret;
}

void rblk_hq_set_live(struct rblk_hq *hq)
{
	struct rblk_slot *s;

	pthread_mutex_lock(&hq->lock);
	hq->state = RBLK_HQ_LIVE;
	while ((s = hq->queued_head) && hq->state == RBLK_HQ_LIVE) {
		hq->queued_head = s->next;
		if (!hq->queued_head)
			hq->queued_tail = NULL;
		s->next = NULL;
		rblk_hq_post(hq, s);
	}
	rblk_hq_flush(hq);
	pthread_mutex_unlock(&hq->lock);
}

/* ------------------------------------------------------------------ */
/* Synchronous execution                                               */

struct exec_wait {
	bool done;
	int err;
	struct nvme_cqe cqe;
};

static void exec_done(struct rblk_hq *hq, struct rblk_slot *slot, int err)
{
	struct exec_wait *w = slot->ctx;

	w->done = true;
	w->err = err;
	w->cqe = slot->cqe;
}

/* The waiter gave up; a late completion only frees the slot. */
static void exec_abandoned(struct rblk_hq *hq, struct rblk_slot *slot, int err)
{
}

int rblk_hq_exec(struct rblk_hq *hq, struct rblk_slot *slot, int timeout_ms, bool keep_lock,
		 struct nvme_cqe *cqe)
{
	struct pollfd pfd[2] = {
		{ .fd = rblk_cq_fd(hq->cq), .events = POLLIN },
		{ .fd = rblk_cm_channel_fd(hq->ch), .events = POLLIN },
	};
	uint64_t deadline = rblk_clock_ms() + (uint64_t)timeout_ms;
	struct exec_wait w = { 0 };
	int ret = 0;

	if (hq->state != RBLK_HQ_LIVE && hq->state != RBLK_HQ_CONNECTING) {
		rblk_slot_put(&hq->slots, slot);
		return -ENOTCONN;
	}
	slot->done = exec_done;
	slot->ctx = &w;
	ret = rblk_hq_post(hq, slot);
	if (!ret)
		ret = rblk_hq_flush(hq);
	while (!ret && !w.done) {
		uint64_t now;
		int n = rblk_hq_process(hq, POLL_BATCH);

		if (n < 0) {
			ret = n;
			break;
		}
		if (w.done)
			break;
		if (n > 0)
			continue;
		/*
		 * A target that drops the connection may leave our QP quiet:
		 * librdmacm moves it to the error state only when the
		 * DISCONNECTED event is read. Whoever reads it fails the queue.
		 */
		if (rblk_hq_cm_poll(hq))
			rblk_hq_fail(hq, "disconnected by the target");
		if (hq->state != RBLK_HQ_LIVE && hq->state != RBLK_HQ_CONNECTING) {
			ret = -ECONNRESET;
			break;
		}
		ret = rblk_hq_flush(hq);	/* receives reposted by what was just handled */
		if (ret)
			break;
		if (atomic_load(&hq->ctrl->stopping)) {
			ret = -ECANCELED;
			break;
		}
		now = rblk_clock_ms();
		if (now >= deadline) {
			ret = -ETIMEDOUT;
			break;
		}
		/* Arm, then look once more: a completion before arming raises no event. */
		rblk_hq_arm(hq);
		if (rblk_hq_process(hq, POLL_BATCH) > 0)
			continue;
		if (!keep_lock)
			pthread_mutex_unlock(&hq->lock);
		poll(pfd, 2, (int)(deadline - now < 100 ? deadline - now : 100));
		if (!keep_lock)
			pthread_mutex_lock(&hq->lock);
		/* Under the lock: rblk_poll() consumes this channel too. */
		rblk_hq_drain_wakeups(hq);
	}
	if (w.done) {
		rblk_hq_flush(hq);
		if (cqe)
			*cqe = w.cqe;
		return w.err;
	}
	if (slot->state != RBLK_SLOT_FREE) {
		slot->done = exec_abandoned;
		slot->ctx = NULL;
	}
	if (ret == -ETIMEDOUT) {
		RBLK_ERR("qid %u: %s (cid %#x) got no answer in %d ms", hq->qid,
			 hq->qid ? rblk_nvme_io_opc_str(slot->sqe->opc)
				 : rblk_nvme_admin_opc_str(slot->sqe->opc),
			 rblk_le16(slot->sqe->cid), timeout_ms);
		rblk_hq_fail(hq, "command timeout");
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* Data                                                                */

int rblk_hq_map(struct rblk_hq *hq, struct rblk_slot *slot, void *addr, uint32_t len,
		uint32_t lkey, uint32_t rkey)
{
	int kind = rblk_cmd_map(slot->sqe, (uintptr_t)addr, len, rkey, hq->incapsule_max);

	slot->map_addr = (uintptr_t)addr;
	slot->xfer_len = len;
	slot->ic_len = 0;
	if (kind < 0)
		return kind;
	if (kind == RBLK_MAP_INCAPSULE) {
		slot->ic_len = len;
		slot->ic_addr = (uintptr_t)addr;
		slot->ic_lkey = lkey;
	}
	return 0;
}

int rblk_hq_bounce_get(struct rblk_hq *hq, void **unit, uint32_t *lkey, uint32_t *rkey)
{
	*unit = NULL;
	if (hq->bounce_err)
		return hq->bounce_err;
	if (!hq->bounce) {
		int ret = rblk_mr_pool_create(hq->ctrl->pd, hq->bounce_unit, RBLK_BOUNCE_UNITS,
					      RBLK_ACCESS_LOCAL_WRITE | RBLK_ACCESS_REMOTE_READ |
						      RBLK_ACCESS_REMOTE_WRITE,
					      &hq->bounce);

		if (ret) {
			RBLK_ERR("qid %u: registering %u bounce buffers of %u bytes: %s (I/O on unregistered memory larger than %u bytes fails; use rblk_buf_alloc() or raise RLIMIT_MEMLOCK)",
				 hq->qid, RBLK_BOUNCE_UNITS, hq->bounce_unit, strerror(-ret),
				 RBLK_SLOT_DATA);
			hq->bounce_err = ret;
			return ret;
		}
	}
	*unit = rblk_mr_pool_get(hq->bounce);
	if (!*unit)
		return -EAGAIN;
	*lkey = rblk_mr_pool_lkey(hq->bounce);
	*rkey = rblk_mr_pool_rkey(hq->bounce);
	return 0;
}

void rblk_hq_bounce_put(struct rblk_hq *hq, void *unit)
{
	rblk_mr_pool_put(hq->bounce, unit);
}

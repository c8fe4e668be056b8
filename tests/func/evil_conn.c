/* SPDX-License-Identifier: MIT */
/*
 * evil_host's raw NVMe/RDMA queue over the transport seam: an rdma_cm
 * connect with whatever private data and connection parameters a scenario
 * wants, capsules of any shape and length (one SEND each, SQE and in-capsule
 * bytes contiguous), and CQEs collected by CID so a scenario can ask for
 * the answer to one command among many. Nothing here checks protocol rules:
 * breaking them is the point.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "evil.h"
#include "protocol/cm.h"

#define WR_SEND 0
#define WR_RECV 1

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void evil_cm_std(struct evil_cm *cm, uint16_t qid, uint16_t hrqsize, uint16_t hsqsize)
{
	struct rblk_cm_req_info info = { .qid = qid, .hrqsize = hrqsize, .hsqsize = hsqsize };
	struct nvme_rdma_cm_req req;

	memset(cm, 0, sizeof(*cm));
	/* hrqsize 0 is refused by the encoder: write that field by hand. */
	if (hrqsize == 0)
		info.hrqsize = 1;
	rblk_cm_req_encode(&req, &info);
	if (hrqsize == 0)
		req.hrqsize = 0;
	memcpy(cm->priv, &req, sizeof(req));
	cm->priv_len = sizeof(req);
	cm->responder_resources = 16;
	cm->retry_count = 7;
	cm->rnr_retry_count = 7;
	cm->nrecv = hrqsize ? (hrqsize < EVIL_SLOTS ? hrqsize : EVIL_SLOTS) : 1;
}

/* Waits for one CM event on the (non-blocking) channel. */
static int wait_event(struct evil_conn *c, struct rblk_cm_event *ev, int timeout_ms)
{
	return rblk_cm_wait_event(c->ch, timeout_ms, ev);
}

static int expect_event(struct evil_conn *c, enum rblk_cm_event_type want, int timeout_ms)
{
	struct rblk_cm_event ev;
	int ret = wait_event(c, &ev, timeout_ms);

	if (ret)
		return ret;
	ret = ev.type == want ? 0 : -EPROTO;
	if (ret)
		evil_say("%s: waiting for %s, got %s (status %d)", c->name, rblk_cm_event_str(want),
			 rblk_cm_event_str(ev.type), ev.status);
	rblk_cm_ack_event(&ev);
	return ret;
}

static int post_recv(struct evil_conn *c, unsigned i)
{
	struct rblk_sge sge = {
		.addr = (uint64_t)(uintptr_t)&c->rsps[i],
		.length = sizeof(struct nvme_cqe),
		.lkey = rblk_mr_lkey(c->rsps_mr),
	};

	return rblk_qp_queue_recv(c->qp, ((uint64_t)i << 1) | WR_RECV, &sge, 1);
}

static void *alloc_zero(size_t len)
{
	void *p = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);

	if (p)
		memset(p, 0, len);
	return p;
}

static int setup(struct evil_conn *c, const struct evil_cm *cm)
{
	struct rblk_qp_caps caps = {
		.max_send_wr = EVIL_SLOTS,
		.max_recv_wr = EVIL_SLOTS,
		.max_send_sge = 1,
		.max_recv_sge = 1,
	};
	int rw = RBLK_ACCESS_LOCAL_WRITE | RBLK_ACCESS_REMOTE_READ | RBLK_ACCESS_REMOTE_WRITE;
	int ret;

	ret = rblk_pd_alloc(rblk_cm_id_device(c->id), &c->pd);
	if (!ret)
		ret = rblk_cq_create(rblk_cm_id_device(c->id), 4 * EVIL_SLOTS, 0, true, &c->cq);
	if (!ret)
		ret = rblk_qp_create(c->id, c->pd, c->cq, c->cq, &caps, c, &c->qp);
	if (ret)
		return ret;
	c->slots = alloc_zero((size_t)EVIL_SLOTS * EVIL_SLOT_SIZE);
	c->rsps = alloc_zero(EVIL_SLOTS * sizeof(*c->rsps));
	c->data = alloc_zero(EVIL_DATA_SIZE);
	c->tiny = alloc_zero(EVIL_TINY_SIZE);
	if (!c->slots || !c->rsps || !c->data || !c->tiny)
		return -ENOMEM;
	ret = rblk_mr_reg(c->pd, c->slots, (size_t)EVIL_SLOTS * EVIL_SLOT_SIZE,
			  RBLK_ACCESS_LOCAL_WRITE, &c->slots_mr);
	if (!ret)
		ret = rblk_mr_reg(c->pd, c->rsps, EVIL_SLOTS * sizeof(*c->rsps),
				  RBLK_ACCESS_LOCAL_WRITE, &c->rsps_mr);
	if (!ret)
		ret = rblk_mr_reg(c->pd, c->data, EVIL_DATA_SIZE, rw, &c->data_mr);
	if (!ret)
		ret = rblk_mr_reg(c->pd, c->tiny, EVIL_TINY_SIZE, rw, &c->tiny_mr);
	if (ret)
		return ret;
	/* Responses need receives before the target can send them. */
	for (unsigned i = 0; i < cm->nrecv && i < EVIL_SLOTS; i++) {
		ret = post_recv(c, i);
		if (ret)
			return ret;
	}
	return rblk_qp_flush_recv(c->qp, NULL);
}

int evil_conn_open(struct evil_conn *c, const struct evil_target *t, const struct evil_cm *cm)
{
	struct rblk_conn_param p;
	struct rblk_cm_event ev;
	int ret;

	c->repost = true;
	ret = rblk_cm_channel_create(true, &c->ch);
	if (!ret)
		ret = rblk_cm_id_create(c->ch, c, &c->id);
	if (!ret)
		ret = rblk_cm_resolve_addr(c->id, t->have_src ? (struct sockaddr *)&t->src : NULL,
					   (const struct sockaddr *)&t->dst, 3000);
	if (!ret)
		ret = expect_event(c, RBLK_CM_EVENT_ADDR_RESOLVED, 5000);
	if (!ret)
		ret = rblk_cm_resolve_route(c->id, 3000);
	if (!ret)
		ret = expect_event(c, RBLK_CM_EVENT_ROUTE_RESOLVED, 5000);
	if (!ret)
		ret = setup(c, cm);
	if (ret) {
		evil_say("%s: setting up: %s", c->name, strerror(-ret));
		return ret;
	}
	memset(&p, 0, sizeof(p));
	p.private_data = cm->priv_len ? cm->priv : NULL;
	p.private_data_len = cm->priv_len;
	p.responder_resources = cm->responder_resources;
	p.initiator_depth = 0; /* a host never reads from the target */
	p.flow_control = 1;
	p.retry_count = cm->retry_count;
	p.rnr_retry_count = cm->rnr_retry_count;
	ret = rblk_cm_connect(c->id, &p);
	if (ret) {
		evil_say("%s: rdma_connect: %s", c->name, strerror(-ret));
		return ret;
	}
	ret = wait_event(c, &ev, 10000);
	if (ret) {
		evil_say("%s: no answer to the connect request: %s", c->name, strerror(-ret));
		return ret;
	}
	switch (ev.type) {
	case RBLK_CM_EVENT_ESTABLISHED:
		c->established = true;
		break;
	case RBLK_CM_EVENT_REJECTED:
		c->rej_has_sts = !rblk_cm_rej_decode(ev.param.private_data,
						     ev.param.private_data_len, &c->rej_sts);
		ret = -ECONNREFUSED;
		break;
	default:
		evil_say("%s: connect: %s (status %d)", c->name, rblk_cm_event_str(ev.type),
			 ev.status);
		ret = -EPROTO;
		break;
	}
	rblk_cm_ack_event(&ev);
	return ret;
}

void evil_conn_close(struct evil_conn *c)
{
	if (c->established && !c->disconnected) {
		rblk_cm_disconnect(c->id);
		/* Our DISCONNECTED, so the id can go without unacked events. */
		for (uint64_t end = now_ms() + 3000; !c->disconnected && now_ms() < end;)
			evil_poll(c, 50);
	}
	rblk_qp_destroy(c->qp);
	rblk_cm_id_destroy(c->id);
	rblk_cq_destroy(c->cq);
	rblk_mr_dereg(c->tiny_mr);
	rblk_mr_dereg(c->data_mr);
	rblk_mr_dereg(c->rsps_mr);
	rblk_mr_dereg(c->slots_mr);
	rblk_pd_dealloc(c->pd);
	rblk_cm_channel_destroy(c->ch);
	free(c->tiny);
	free(c->data);
	free(c->rsps);
	free(c->slots);
	memset(c, 0, sizeof(*c));
}

int evil_queue(struct evil_conn *c, const void *sqe, const void *icd, uint32_t icd_len)
{
	unsigned i = c->next_slot;
	uint8_t *slot = c->slots + (size_t)i * EVIL_SLOT_SIZE;
	struct rblk_sge sge;
	struct rblk_send_wr wr;

	if (64 + icd_len > EVIL_SLOT_SIZE)
		return -EINVAL;
	/* Slots are reused round robin: never more than EVIL_SLOTS SENDs unfinished. */
	if (c->sends_posted - c->sends_done >= EVIL_SLOTS)
		return -ENOBUFS;
	c->next_slot = (i + 1) % EVIL_SLOTS;
	memcpy(slot, sqe, 64);
	if (icd)
		memcpy(slot + 64, icd, icd_len);
	else
		memset(slot + 64, 0, icd_len);
	sge.addr = (uint64_t)(uintptr_t)slot;
	sge.length = 64 + icd_len;
	sge.lkey = rblk_mr_lkey(c->slots_mr);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = ((uint64_t)i << 1) | WR_SEND;
	wr.opcode = RBLK_WR_SEND;
	wr.flags = RBLK_SEND_SIGNALED;
	wr.sge = &sge;
	wr.num_sge = 1;
	c->sends_posted++;
	return rblk_qp_queue_send(c->qp, &wr);
}

int evil_flush(struct evil_conn *c)
{
	int ret = rblk_qp_flush_recv(c->qp, NULL);

	if (!ret)
		ret = rblk_qp_flush_send(c->qp, NULL);
	return ret;
}

int evil_send(struct evil_conn *c, const void *sqe, const void *icd, uint32_t icd_len)
{
	int ret = evil_queue(c, sqe, icd, icd_len);

	return ret ? ret : evil_flush(c);
}

static void store_cqe(struct evil_conn *c, const struct nvme_cqe *cqe)
{
	for (unsigned i = 0; i < EVIL_CQE_RING; i++) {
		if (!c->got_valid[i]) {
			c->got[i] = *cqe;
			c->got_valid[i] = true;
			c->ngot++;
			return;
		}
	}
	evil_say("%s: more than %u CQEs nobody asked for: dropping cid %#x", c->name,
		 EVIL_CQE_RING, rblk_le16(cqe->cid));
}

static void handle_wc(struct evil_conn *c, const struct rblk_wc *wc)
{
	unsigned i = (unsigned)(wc->wr_id >> 1);

	if (wc->status) {
		if (!c->broken)
			c->first_wc_status = wc->status;
		c->broken = true;
	}
	if ((wc->wr_id & 1) == WR_SEND) {
		c->sends_done++;
		return;
	}
	if (wc->status)
		return;
	if (wc->byte_len != sizeof(struct nvme_cqe))
		evil_say("%s: a response of %u bytes", c->name, wc->byte_len);
	store_cqe(c, &c->rsps[i]);
	if (c->repost && post_recv(c, i) == 0)
		rblk_qp_flush_recv(c->qp, NULL);
}

void evil_poll(struct evil_conn *c, int timeout_ms)
{
	struct rblk_cm_event ev;
	struct rblk_wc wc[32];
	int n;

	while (rblk_cm_get_event(c->ch, &ev) == 0) {
		if (ev.type == RBLK_CM_EVENT_DISCONNECTED || ev.type == RBLK_CM_EVENT_TIMEWAIT_EXIT)
			c->disconnected = true;
		rblk_cm_ack_event(&ev);
	}
	n = timeout_ms > 0 ? rblk_cq_poll_wait(c->cq, wc, 32, timeout_ms)
			   : rblk_cq_poll(c->cq, wc, 32);
	for (int i = 0; i < n; i++)
		handle_wc(c, &wc[i]);
	/* Drain the rest without waiting. */
	while (n == 32 && (n = rblk_cq_poll(c->cq, wc, 32)) > 0)
		for (int i = 0; i < n; i++)
			handle_wc(c, &wc[i]);
}

static bool take_cqe(struct evil_conn *c, uint16_t cid, struct nvme_cqe *out)
{
	for (unsigned i = 0; i < EVIL_CQE_RING; i++) {
		if (c->got_valid[i] && rblk_le16(c->got[i].cid) == cid) {
			*out = c->got[i];
			c->got_valid[i] = false;
			c->ngot--;
			return true;
		}
	}
	return false;
}

int evil_wait_cqe(struct evil_conn *c, uint16_t cid, struct nvme_cqe *out, int timeout_ms)
{
	uint64_t end = now_ms() + (uint64_t)timeout_ms;

	for (;;) {
		if (take_cqe(c, cid, out))
			return 0;
		if (c->broken || c->disconnected)
			return -ECONNRESET;
		if (now_ms() >= end)
			return -ETIMEDOUT;
		evil_poll(c, 50);
	}
}

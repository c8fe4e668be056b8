/* SPDX-License-Identifier: MIT */
/*
 * The in-process fabric's queue pairs and shared receive queues: staging as
 * transport/qp.c does it, and a flush that executes the chain at once, in
 * order, in the flushing thread: RDMA WRITE and READ copy between the local
 * SGEs and the peer's registered memory, SEND fills the peer's next receive
 * (or goes to the host driver behind the peer). Keys are checked as a NIC
 * checks them; a bad one completes the WR with an access error and breaks
 * the QP. See fabric.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench/fabric/fabric.h"

static _Atomic uint32_t next_qpn = 0x100;

/* ------------------------------------------------------------------------ */
/* Receive queues (a QP's own or an SRQ's).                                  */

static int rq_init(struct fab_rq *rq, unsigned cap, unsigned max_sge)
{
	uint32_t size = 1;

	while (size < cap)
		size <<= 1;
	rq->cap = cap;
	rq->max_sge = max_sge;
	rq->mask = size - 1;
	rq->ring = rblk_calloc_lines(size, sizeof(*rq->ring));
	rq->staged = rblk_calloc_lines(cap ? cap : 1, sizeof(*rq->staged));
	rq->rnr_tail = &rq->rnr;
	return rq->ring && rq->staged ? 0 : -ENOMEM;
}

static void rq_fini(struct fab_rq *rq)
{
	while (rq->rnr) {
		struct fab_msg *m = rq->rnr;

		rq->rnr = m->next;
		free(m);
	}
	free(rq->ring);
	free(rq->staged);
}

static int rq_stage(struct fab_rq *rq, uint64_t wr_id, const struct rblk_sge *sge,
		    uint32_t num_sge)
{
	struct fab_recv *r;

	if (num_sge > rq->max_sge || num_sge > 2 || (num_sge && !sge))
		return -EINVAL;
	if (rq->nstaged >= rq->cap)
		return -ENOBUFS;
	r = &rq->staged[rq->nstaged++];
	r->wr_id = wr_id;
	r->num_sge = num_sge;
	memcpy(r->sge, sge, num_sge * sizeof(*sge));
	return 0;
}

/* Staged receives to the posted ring; 0 or -ENOMEM when it would hold more than cap. */
static unsigned rq_post(struct fab_rq *rq)
{
	unsigned n = 0;

	for (; n < rq->nstaged; n++) {
		if (rq->tail - rq->head >= rq->cap)
			break;
		rq->ring[rq->tail++ & rq->mask] = rq->staged[n];
	}
	rq->nstaged = 0;
	return n;
}

static void flush_recv_wc(struct rblk_cq *cq, uint64_t wr_id, uint32_t qpn)
{
	struct rblk_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = wr_id;
	wc.status = RBLK_WC_WR_FLUSH_ERR;
	wc.qp_num = qpn;
	fab_cq_push(cq, &wc);
}

/* ------------------------------------------------------------------------ */
/* QPs.                                                                      */

int rblk_qp_create(struct rblk_cm_id *id, struct rblk_pd *pd, struct rblk_cq *send_cq,
		   struct rblk_cq *recv_cq, const struct rblk_qp_caps *caps, void *context,
		   struct rblk_qp **out)
{
	struct rblk_qp *qp;
	int ret;

	*out = NULL;
	if (!id || !pd || !send_cq || !recv_cq || !caps || !caps->max_send_wr ||
	    (!caps->max_recv_wr && !caps->srq) || caps->max_send_sge > FAB_MAX_SGE ||
	    caps->max_recv_sge > 2)
		return -EINVAL;
	qp = rblk_calloc_lines(1, sizeof(*qp));
	if (!qp)
		return -ENOMEM;
	qp->id = id;
	qp->pd = pd;
	qp->scq = send_cq;
	qp->rcq = recv_cq;
	qp->caps = *caps;
	if (caps->srq) {
		qp->caps.max_recv_wr = 0;
		qp->caps.max_recv_sge = 0;
	}
	qp->context = context;
	qp->qpn = atomic_fetch_add(&next_qpn, 1);
	qp->s = rblk_calloc_lines(caps->max_send_wr, sizeof(*qp->s));
	ret = qp->s ? rq_init(&qp->rq, qp->caps.max_recv_wr, qp->caps.max_recv_sge) : -ENOMEM;
	if (!ret)
		ret = fab_cm_attach_qp(id, qp);
	if (ret) {
		rq_fini(&qp->rq);
		free(qp->s);
		free(qp);
		return ret;
	}
	atomic_fetch_add(&pd->users, 1);
	*out = qp;
	return 0;
}

void rblk_qp_destroy(struct rblk_qp *qp)
{
	if (!qp)
		return;
	fab_cm_detach_qp(qp);
	atomic_fetch_sub(&qp->pd->users, 1);
	rq_fini(&qp->rq);
	free(qp->s);
	free(qp);
}

const struct rblk_qp_caps *rblk_qp_get_caps(const struct rblk_qp *qp)
{
	return &qp->caps;
}

uint32_t rblk_qp_num(const struct rblk_qp *qp)
{
	return qp->qpn;
}

void fab_qp_set_host(struct rblk_qp *qp, const struct fab_host_ops *ops, void *ctx)
{
	qp->host = ops;
	qp->host_ctx = ctx;
}

int rblk_qp_queue_send(struct rblk_qp *qp, const struct rblk_send_wr *wr)
{
	uint64_t t0 = fab_ticks();
	struct fab_swr *s;
	int ret = 0;

	if (wr->num_sge > qp->caps.max_send_sge || (wr->num_sge && !wr->sge) ||
	    wr->opcode > RBLK_WR_SEND_WITH_INV)
		ret = -EINVAL;
	else if (qp->ns >= qp->caps.max_send_wr)
		ret = -ENOBUFS;
	if (!ret) {
		s = &qp->s[qp->ns++];
		s->wr = *wr;
		memcpy(s->sge, wr->sge, wr->num_sge * sizeof(*wr->sge));
		s->wr.sge = s->sge;
	}
	fab_leave(t0);
	return ret;
}

int rblk_qp_queue_recv(struct rblk_qp *qp, uint64_t wr_id, const struct rblk_sge *sge,
		       uint32_t num_sge)
{
	uint64_t t0 = fab_ticks();
	int ret = qp->caps.srq ? -EINVAL : rq_stage(&qp->rq, wr_id, sge, num_sge);

	fab_leave(t0);
	return ret;
}

unsigned rblk_qp_send_staged(const struct rblk_qp *qp)
{
	return qp->ns;
}

unsigned rblk_qp_recv_staged(const struct rblk_qp *qp)
{
	return qp->rq.nstaged;
}

int rblk_qp_flush_recv(struct rblk_qp *qp, unsigned *posted)
{
	uint64_t t0 = fab_ticks();
	unsigned n = qp->rq.nstaged;

	if (qp->err) {
		/* A QP in the error state flushes what is posted to it. */
		for (unsigned i = 0; i < n; i++)
			flush_recv_wc(qp->rcq, qp->rq.staged[i].wr_id, qp->qpn);
		qp->rq.nstaged = 0;
	} else {
		unsigned got = rq_post(&qp->rq);

		if (got != n)
			fab_fail("qp %#x: more receives posted than max_recv_wr", qp->qpn);
		n = got;
		if (__builtin_expect(qp->rq.rnr != NULL, 0))
			fab_rq_retry_rnr(&qp->rq);
	}
	if (posted)
		*posted = n;
	fab_leave(t0);
	return 0;
}

void fab_qp_set_error(struct rblk_qp *qp)
{
	if (qp->err)
		return;
	qp->err = true;
	while (qp->rq.head != qp->rq.tail) {
		struct fab_recv *r = &qp->rq.ring[qp->rq.head++ & qp->rq.mask];

		flush_recv_wc(qp->rcq, r->wr_id, qp->qpn);
	}
}

/* ------------------------------------------------------------------------ */
/* Executing a send chain.                                                   */

static void complete(struct rblk_qp *qp, const struct rblk_send_wr *wr, enum rblk_wc_status st,
		     enum rblk_wc_opcode op, uint32_t len)
{
	struct rblk_wc wc;

	if (st == RBLK_WC_SUCCESS && !(wr->flags & RBLK_SEND_SIGNALED))
		return;
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = wr->wr_id;
	wc.status = st;
	wc.opcode = op;
	wc.byte_len = len;
	wc.qp_num = qp->qpn;
	fab_cq_push(qp->scq, &wc);
}

/* A local SGE: its lkey names a region of this QP's PD that holds it. */
static void *local_buf(struct rblk_qp *qp, const struct rblk_sge *s)
{
	struct rblk_mr *mr = fab_mr_check(s->lkey, s->addr, s->length);

	return mr && mr->pd == qp->pd ? (void *)(uintptr_t)s->addr : NULL;
}

/* The peer's memory for a READ or WRITE: its rkey, its PD, the right access. */
static uint8_t *remote_buf(struct rblk_qp *qp, uint64_t addr, uint32_t key, uint64_t len,
			   int access)
{
	struct rblk_mr *mr = fab_mr_check(key, addr, len);

	if (!mr || !qp->peer || mr->pd != qp->peer->pd || !(mr->access & access))
		return NULL;
	return (uint8_t *)(uintptr_t)addr;
}

static enum rblk_wc_status do_rdma(struct rblk_qp *qp, const struct rblk_send_wr *wr,
				   bool write, uint32_t *len)
{
	uint64_t total = 0;
	uint8_t *rem;

	for (uint32_t i = 0; i < wr->num_sge; i++)
		total += wr->sge[i].length;
	rem = remote_buf(qp, wr->remote_addr, wr->rkey, total,
			 write ? RBLK_ACCESS_REMOTE_WRITE : RBLK_ACCESS_REMOTE_READ);
	if (!rem)
		return RBLK_WC_REM_ACCESS_ERR;
	for (uint32_t i = 0; i < wr->num_sge; i++) {
		void *loc = local_buf(qp, &wr->sge[i]);

		if (!loc)
			return RBLK_WC_LOC_PROT_ERR;
		if (write)
			memcpy(rem, loc, wr->sge[i].length);
		else
			memcpy(loc, rem, wr->sge[i].length);
		rem += wr->sge[i].length;
	}
	*len = (uint32_t)total;
	return RBLK_WC_SUCCESS;
}

/* The largest SEND: a capsule with 16 KiB of in-capsule data (the host's) or a CQE. */
#define SEND_MAX (64 + 16384)

static enum rblk_wc_status do_send(struct rblk_qp *qp, const struct rblk_send_wr *wr,
				   uint32_t *len)
{
	uint8_t buf[256];
	const void *data = buf;
	uint32_t n = 0;

	if (!qp->peer)
		return RBLK_WC_RETRY_EXC_ERR;
	/* The target's SENDs are 16-byte CQEs in one SGE: hand that memory over as is. */
	if (wr->num_sge == 1) {
		data = local_buf(qp, &wr->sge[0]);
		if (!data)
			return RBLK_WC_LOC_PROT_ERR;
		n = wr->sge[0].length;
	} else {
		for (uint32_t i = 0; i < wr->num_sge; i++) {
			void *loc = local_buf(qp, &wr->sge[i]);

			if (!loc)
				return RBLK_WC_LOC_PROT_ERR;
			if (n + wr->sge[i].length > sizeof(buf))
				return RBLK_WC_LOC_LEN_ERR;
			memcpy(buf + n, loc, wr->sge[i].length);
			n += wr->sge[i].length;
		}
	}
	fab_deliver(qp->peer, data, n, NULL, 0);
	*len = n;
	return RBLK_WC_SUCCESS;
}

int rblk_qp_flush_send(struct rblk_qp *qp, unsigned *posted)
{
	uint64_t t0 = fab_ticks();
	unsigned n = qp->ns;

	for (unsigned i = 0; i < n; i++) {
		const struct rblk_send_wr *wr = &qp->s[i].wr;
		enum rblk_wc_status st = RBLK_WC_WR_FLUSH_ERR;
		enum rblk_wc_opcode op = RBLK_WC_SEND;
		uint32_t len = 0;

		if (!qp->err) {
			switch (wr->opcode) {
			case RBLK_WR_RDMA_WRITE:
				op = RBLK_WC_RDMA_WRITE;
				st = do_rdma(qp, wr, true, &len);
				break;
			case RBLK_WR_RDMA_READ:
				op = RBLK_WC_RDMA_READ;
				st = do_rdma(qp, wr, false, &len);
				break;
			case RBLK_WR_SEND:
			case RBLK_WR_SEND_WITH_INV:
				st = do_send(qp, wr, &len);
				break;
			default:
				st = RBLK_WC_LOC_QP_OP_ERR;
				break;
			}
			if (st != RBLK_WC_SUCCESS) {
				fab_fail("qp %#x: %s WR failed: %s", qp->qpn,
					 wr->opcode == RBLK_WR_RDMA_READ    ? "RDMA READ"
					 : wr->opcode == RBLK_WR_RDMA_WRITE ? "RDMA WRITE"
									    : "SEND",
					 rblk_wc_status_str(st));
				fab_qp_set_error(qp);
			}
		}
		complete(qp, wr, st, op, len);
	}
	qp->ns = 0;
	if (posted)
		*posted = n;
	fab_leave(t0);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Receiving a SEND.                                                         */

static bool rq_take(struct fab_rq *rq, struct fab_recv *out)
{
	if (rq->head == rq->tail)
		return false;
	*out = rq->ring[rq->head++ & rq->mask];
	return true;
}

static struct fab_msg *msg_new(struct rblk_qp *qp, const void *hdr, uint32_t hlen,
			       const void *data, uint32_t dlen)
{
	struct fab_msg *m = malloc(sizeof(*m) + hlen + dlen);

	if (!m)
		return NULL;
	m->next = NULL;
	m->qp = qp;
	m->len = hlen + dlen;
	memcpy(m->data, hdr, hlen);
	if (dlen)
		memcpy(m->data + hlen, data, dlen);
	return m;
}

/* Copies n bytes from the two-buffer source at *off onward to dst. */
static void gather(uint8_t *dst, uint32_t n, const uint8_t *hdr, uint32_t hlen,
		   const uint8_t *data, uint32_t *off)
{
	if (*off < hlen) {
		uint32_t k = hlen - *off < n ? hlen - *off : n;

		memcpy(dst, hdr + *off, k);
		dst += k;
		n -= k;
		*off += k;
	}
	if (n) {
		memcpy(dst, data + (*off - hlen), n);
		*off += n;
	}
}

void fab_deliver(struct rblk_qp *qp, const void *hdr, uint32_t hlen, const void *data,
		 uint32_t dlen)
{
	struct fab_rq *rq = qp->caps.srq ? &qp->caps.srq->rq : &qp->rq;
	enum rblk_wc_status st = RBLK_WC_SUCCESS;
	uint32_t len = hlen + dlen, off = 0;
	struct fab_recv r;
	struct rblk_wc wc;

	if (qp->host) {
		if (dlen) {
			fab_fail("a SEND to the host in two pieces");
			return;
		}
		qp->host->recv(qp->host_ctx, hdr, hlen);
		return;
	}
	if (qp->err)
		return;
	if (!rq_take(rq, &r)) {
		/* Receiver not ready: the sender retries (rnr_retry 7) until one is posted. */
		struct fab_msg *m = msg_new(qp, hdr, hlen, data, dlen);

		if (!m) {
			fab_fail("RNR: out of memory");
			return;
		}
		*rq->rnr_tail = m;
		rq->rnr_tail = &m->next;
		return;
	}
	for (uint32_t i = 0; i < r.num_sge && off < len; i++) {
		uint32_t n = len - off < r.sge[i].length ? len - off : r.sge[i].length;
		void *dst = local_buf(qp, &r.sge[i]);

		if (!dst) {
			st = RBLK_WC_LOC_PROT_ERR;
			break;
		}
		gather(dst, n, hdr, hlen, data, &off);
	}
	if (off < len && st == RBLK_WC_SUCCESS)
		st = RBLK_WC_LOC_LEN_ERR;
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = r.wr_id;
	wc.status = st;
	wc.opcode = RBLK_WC_RECV;
	wc.byte_len = len;
	wc.qp_num = qp->qpn;
	if (st != RBLK_WC_SUCCESS)
		fab_fail("qp %#x: receive of %u bytes: %s", qp->qpn, len, rblk_wc_status_str(st));
	fab_cq_push(qp->rcq, &wc);
}

void fab_rq_retry_rnr(struct fab_rq *rq)
{
	struct fab_msg *m = rq->rnr;

	rq->rnr = NULL;
	rq->rnr_tail = &rq->rnr;
	while (m) {
		struct fab_msg *next = m->next;

		fab_deliver(m->qp, m->data, m->len, NULL, 0);
		free(m);
		m = next;
	}
}

int fab_host_send(struct rblk_qp *qp, const void *hdr, uint32_t hlen, const void *data,
		  uint32_t dlen)
{
	struct rblk_qp *peer = qp->peer;
	struct fab_msg *m;

	if (!peer)
		return -ENOTCONN;
	if (hlen + dlen > SEND_MAX)
		return -EMSGSIZE;
	if (peer->rcq->owner == &fab_self) {
		fab_deliver(peer, hdr, hlen, data, dlen);
		return 0;
	}
	m = msg_new(peer, hdr, hlen, data, dlen);
	if (!m)
		return -ENOMEM;
	pthread_mutex_lock(&peer->rcq->lock);
	*peer->rcq->msgs_tail = m;
	peer->rcq->msgs_tail = &m->next;
	atomic_store_explicit(&peer->rcq->inbox_pending, true, memory_order_release);
	pthread_mutex_unlock(&peer->rcq->lock);
	return 0;
}

struct fab_thread *fab_qp_peer_thread(struct rblk_qp *qp)
{
	return qp->peer ? qp->peer->rcq->owner : NULL;
}

/* ------------------------------------------------------------------------ */
/* Shared receive queues.                                                    */

int rblk_srq_create(struct rblk_pd *pd, uint32_t max_wr, uint32_t max_sge, struct rblk_srq **out)
{
	struct rblk_srq *s;

	*out = NULL;
	if (!pd || !max_wr || !max_sge || max_sge > 2)
		return -EINVAL;
	s = rblk_calloc_lines(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->pd = pd;
	s->max_wr = max_wr;
	if (rq_init(&s->rq, max_wr, max_sge)) {
		rq_fini(&s->rq);
		free(s);
		return -ENOMEM;
	}
	atomic_fetch_add(&pd->users, 1);
	*out = s;
	return 0;
}

void rblk_srq_destroy(struct rblk_srq *s)
{
	if (!s)
		return;
	atomic_fetch_sub(&s->pd->users, 1);
	rq_fini(&s->rq);
	free(s);
}

int rblk_srq_queue_recv(struct rblk_srq *s, uint64_t wr_id, const struct rblk_sge *sge,
			uint32_t num_sge)
{
	uint64_t t0 = fab_ticks();
	int ret = rq_stage(&s->rq, wr_id, sge, num_sge);

	fab_leave(t0);
	return ret;
}

int rblk_srq_flush(struct rblk_srq *s, unsigned *posted)
{
	uint64_t t0 = fab_ticks();
	unsigned want = s->rq.nstaged, n = rq_post(&s->rq);

	if (n != want)
		fab_fail("SRQ: more receives posted than max_wr");
	if (__builtin_expect(s->rq.rnr != NULL, 0))
		fab_rq_retry_rnr(&s->rq);
	if (posted)
		*posted = n;
	fab_leave(t0);
	return 0;
}

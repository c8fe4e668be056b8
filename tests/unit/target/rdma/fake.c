/* SPDX-License-Identifier: MIT */
/* The fake RDMA seam for the transport's unit tests: see tests/unit/target/rdma/fake.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake.h"

unsigned fake_fail_calls;
unsigned fake_disconnects;
unsigned fake_rcq_drains;
static uint32_t next_qpn = 0x11;

/* ------------------------------------------------------------------------ */
/* transport/: QP staging.                                                   */

int rblk_qp_queue_send(struct rblk_qp *qp, const struct rblk_send_wr *wr)
{
	struct fake_wr *w;

	if (wr->num_sge > qp->caps.max_send_sge)
		return -EINVAL;
	if (qp->nstaged >= qp->caps.max_send_wr || qp->nstaged >= FAKE_MAX_WR)
		return -ENOBUFS;
	w = &qp->staged[qp->nstaged++];
	memset(w, 0, sizeof(*w));
	w->wr = *wr;
	memcpy(w->sge, wr->sge, wr->num_sge * sizeof(*wr->sge));
	w->wr.sge = w->sge;
	return 0;
}

int rblk_qp_queue_recv(struct rblk_qp *qp, uint64_t wr_id, const struct rblk_sge *sge,
		       uint32_t num_sge)
{
	struct fake_recv *r;

	if (num_sge > qp->caps.max_recv_sge)
		return -EINVAL;
	if (qp->nrstaged >= qp->caps.max_recv_wr || qp->nrstaged >= FAKE_MAX_WR)
		return -ENOBUFS;
	r = &qp->rstaged[qp->nrstaged++];
	r->wr_id = wr_id;
	memcpy(r->sge, sge, num_sge * sizeof(*sge));
	r->num_sge = num_sge;
	return 0;
}

int rblk_qp_flush_send(struct rblk_qp *qp, unsigned *posted)
{
	unsigned n = qp->nstaged;
	int ret = 0;

	if (qp->fail_send) {
		ret = qp->fail_send;
		n = qp->fail_send_after < n ? qp->fail_send_after : n;
		qp->fail_send = 0;
	}
	for (unsigned i = 0; i < n; i++) {
		qp->posted[qp->nposted] = qp->staged[i];
		qp->posted[qp->nposted].wr.sge = qp->posted[qp->nposted].sge;
		qp->nposted++;
	}
	if (n)
		qp->send_flushes++;
	if (posted)
		*posted = n;
	qp->nstaged = 0;
	return ret;
}

/* ------------------------------------------------------------------------ */
/* transport/: shared receive queues.                                        */

int rblk_srq_create(struct rblk_pd *pd, uint32_t max_wr, uint32_t max_sge, struct rblk_srq **out)
{
	struct rblk_srq *s;

	(void)pd;
	if (max_wr > FAKE_MAX_WR)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->max_wr = max_wr;
	s->max_sge = max_sge;
	*out = s;
	return 0;
}

void rblk_srq_destroy(struct rblk_srq *srq)
{
	free(srq);
}

int rblk_srq_queue_recv(struct rblk_srq *s, uint64_t wr_id, const struct rblk_sge *sge,
			uint32_t num_sge)
{
	struct fake_recv *r;

	if (num_sge > s->max_sge)
		return -EINVAL;
	if (s->nstaged >= s->max_wr)
		return -ENOBUFS;
	r = &s->staged[s->nstaged++];
	r->wr_id = wr_id;
	memcpy(r->sge, sge, num_sge * sizeof(*sge));
	r->num_sge = num_sge;
	return 0;
}

int rblk_srq_flush(struct rblk_srq *s, unsigned *posted)
{
	if (s->nposted + s->nstaged > FAKE_MAX_POSTED)
		abort();
	for (unsigned i = 0; i < s->nstaged; i++)
		s->posted[s->nposted++] = s->staged[i];
	if (s->nstaged)
		s->flushes++;
	if (posted)
		*posted = s->nstaged;
	s->nstaged = 0;
	return 0;
}

/* target/rdma/poll_group.c: CQ room and draining (no CQ here). */
int rblk_pg_dev_reserve_cq(struct rblk_pg_dev *dev, uint32_t nsend, uint32_t nrecv,
			   struct rblk_pg_cq **scq)
{
	(void)dev;
	(void)nsend;
	(void)nrecv;
	if (scq)
		*scq = NULL;
	return 0;
}

void rblk_pg_dev_release_cq(struct rblk_pg_dev *dev, struct rblk_pg_cq *scq, uint32_t nsend,
			    uint32_t nrecv)
{
	(void)dev;
	(void)scq;
	(void)nsend;
	(void)nrecv;
}

void rblk_pg_dev_drain_rcq(struct rblk_pg_dev *dev)
{
	(void)dev;
	fake_rcq_drains++;
}

int rblk_qp_flush_recv(struct rblk_qp *qp, unsigned *posted)
{
	for (unsigned i = 0; i < qp->nrstaged; i++)
		qp->rposted[qp->nrposted++] = qp->rstaged[i];
	if (posted)
		*posted = qp->nrstaged;
	qp->nrstaged = 0;
	return 0;
}

unsigned rblk_qp_send_staged(const struct rblk_qp *qp)
{
	return qp->nstaged;
}

unsigned rblk_qp_recv_staged(const struct rblk_qp *qp)
{
	return qp->nrstaged;
}

const char *rblk_wc_status_str(enum rblk_wc_status status)
{
	return status == RBLK_WC_SUCCESS ? "success" : status == RBLK_WC_WR_FLUSH_ERR
								? "Work Request Flushed Error"
								: "error";
}

/* ------------------------------------------------------------------------ */
/* transport/: pools.                                                        */

struct rblk_mr_pool *fake_pool_create(size_t unit, uint32_t count, uint32_t lkey)
{
	struct rblk_mr_pool *p = calloc(1, sizeof(*p));

	p->unit = unit;
	p->count = p->nfree = count;
	p->lkey = lkey;
	if (posix_memalign((void **)&p->mem, 4096, unit * count))
		abort();
	memset(p->mem, 0, unit * count);
	p->used = calloc(count, sizeof(bool));
	return p;
}

void fake_pool_destroy(struct rblk_mr_pool *p)
{
	if (!p)
		return;
	free(p->used);
	free(p->mem);
	free(p);
}

int rblk_mr_pool_create_ex(struct rblk_pd *pd, size_t unit_size, uint32_t count, int access,
			   unsigned flags, struct rblk_mr_pool **out)
{
	(void)pd;
	(void)access;
	(void)flags;
	*out = fake_pool_create(unit_size, count, 0x5A0);
	return 0;
}

void rblk_mr_pool_destroy(struct rblk_mr_pool *pool)
{
	fake_pool_destroy(pool);
}

void *rblk_mr_pool_get(struct rblk_mr_pool *pool)
{
	for (uint32_t i = 0; i < pool->count; i++) {
		if (!pool->used[i]) {
			pool->used[i] = true;
			pool->nfree--;
			return pool->mem + i * pool->unit;
		}
	}
	return NULL;
}

void rblk_mr_pool_put(struct rblk_mr_pool *pool, void *buf)
{
	uint32_t i = rblk_mr_pool_index(pool, buf);

	if (i >= pool->count || !pool->used[i])
		abort(); /* a double put or a foreign buffer: the test must see it */
	pool->used[i] = false;
	pool->nfree++;
}

uint32_t rblk_mr_pool_index(const struct rblk_mr_pool *pool, const void *buf)
{
	return (uint32_t)(((const uint8_t *)buf - pool->mem) / pool->unit);
}

void *rblk_mr_pool_unit(const struct rblk_mr_pool *pool, uint32_t index)
{
	return pool->mem + index * pool->unit;
}

uint32_t rblk_mr_pool_lkey(const struct rblk_mr_pool *pool)
{
	return pool->lkey;
}

size_t rblk_mr_pool_unit_size(const struct rblk_mr_pool *pool)
{
	return pool->unit;
}

uint32_t rblk_mr_pool_free_count(const struct rblk_mr_pool *pool)
{
	return pool->nfree;
}

uint32_t rblk_mr_pool_count(const struct rblk_mr_pool *pool)
{
	return pool->count;
}

/* ------------------------------------------------------------------------ */
/* target/rdma/queue.c: failing a queue, minus the CM.                              */

void rblk_rdma_queue_fail(struct rblk_rdma_queue *q, const char *why)
{
	(void)why;
	fake_fail_calls++;
	if (q->state != RBLK_RDMA_Q_CONNECTING && q->state != RBLK_RDMA_Q_LIVE)
		return;
	q->state = RBLK_RDMA_Q_DRAINING;
	rblk_rdma_queue_flush(q);
	rblk_rdma_queue_abort_waiting(q);
	rblk_sq_teardown(&q->sq);
}

/* ------------------------------------------------------------------------ */
/* Queues.                                                                   */

struct rblk_pg_dev *fake_dev_create(size_t unit, uint32_t count, bool group_bufs)
{
	struct rblk_pg_dev *dev = calloc(1, sizeof(*dev));

	dev->pool = fake_pool_create(unit, count, 0xD00D);
	/* Only its counters are used: no thread, no mailbox. */
	dev->pg = calloc(1, sizeof(*dev->pg));
	dev->group_bufs = group_bufs;
	TAILQ_INIT(&dev->pending_buf);
	return dev;
}

struct rblk_pg_dev *fake_dev_create_srq(size_t unit, uint32_t count, uint32_t srq_depth,
					uint32_t icd_size)
{
	struct rblk_pg_dev *dev = fake_dev_create(unit, count, true);

	if (rblk_rdma_srq_create(dev, srq_depth, icd_size))
		abort();
	return dev;
}

void fake_dev_destroy(struct rblk_pg_dev *dev)
{
	rblk_rdma_srq_destroy(dev);
	fake_pool_destroy(dev->pool);
	free(dev->pg);
	free(dev);
}

struct fake_work {
	void (*fn)(void *arg);
	void *arg;
};
static struct fake_work work[64];
static unsigned nwork;

static void fake_disconnect(struct rblk_sq *sq)
{
	(void)sq;
	fake_disconnects++;
}

static int fake_run_on(struct rblk_sq *sq, void (*fn)(void *arg), void *arg)
{
	(void)sq;
	if (nwork == 64)
		return -ENOSPC;
	work[nwork].fn = fn;
	work[nwork].arg = arg;
	nwork++;
	return 0;
}

static const struct rblk_transport_ops fake_ops = {
	.queue_response = rblk_rdma_queue_response,
	.disconnect = fake_disconnect,
	.run_on = fake_run_on,
	.complete_io = tt_complete_io,
};

struct rblk_rdma_queue *fq_create(struct tt_env *env, struct rblk_pg_dev *dev,
				  const struct fake_q_opts *o)
{
	struct rblk_rdma_queue *q = calloc(1, sizeof(*q));

	q->dev = dev;
	q->plan.qid = o->qid;
	q->plan.depth = o->depth;
	q->plan.hrqsize = o->depth;
	q->plan.crqsize = o->depth;
	q->plan.initiator_depth = o->ird;
	q->depth = q->nreqs = o->depth;
	q->icd_size = o->icd_size;
	q->max_io_size = rblk_tgt_opts(env->tgt)->max_io_size;
	q->max_sge = o->max_sge;
	q->max_sge_rd = o->max_sge_rd ? o->max_sge_rd : o->max_sge;
	snprintf(q->peer, sizeof(q->peer), "test");
	q->rsps = fake_pool_create(16, o->depth, 0x4E5);
	q->qp = calloc(1, sizeof(*q->qp));
	q->qp->caps.max_send_wr = o->send_wr;
	q->qp->caps.max_send_sge = o->max_sge;
	q->qp->qpn = next_qpn++;
	if (dev->srq) {
		/* As queue.c: no receives of its own, found by qp_num. */
		q->qp->caps.srq = dev->srq->srq;
		if (rblk_rdma_qpn_map_add(&dev->srq->map, q->qp->qpn, q))
			abort();
		q->srq_mapped = true;
	} else {
		q->capsules = fake_pool_create(64, o->depth, 0xCA95);
		q->icd = o->icd_size ? fake_pool_create(o->icd_size, o->depth, 0x1CD) : NULL;
		q->qp->caps.max_recv_wr = o->depth;
		q->qp->caps.max_recv_sge = o->icd_size ? 2 : 1;
		q->recvs = calloc(o->depth, sizeof(*q->recvs));
		q->rstaged = calloc(o->depth, sizeof(*q->rstaged));
	}
	q->send_slots = q->send_slots_max = o->send_wr;
	q->reads_avail = o->ird;
	q->reqs = calloc(o->depth, sizeof(*q->reqs));
	q->staged = calloc(o->send_wr, sizeof(*q->staged));
	TAILQ_INIT(&q->free_reqs);
	TAILQ_INIT(&q->pending_read);
	TAILQ_INIT(&q->pending_send);
	STAILQ_INIT(&q->incoming);
	for (uint16_t i = 0; i < o->depth; i++) {
		if (q->recvs) {
			q->recvs[i].q = q;
			q->recvs[i].capsule = rblk_mr_pool_unit(q->capsules, i);
			q->recvs[i].icd = q->icd ? rblk_mr_pool_unit(q->icd, i) : NULL;
		}
		q->reqs[i].q = q;
		q->reqs[i].idx = i;
		q->reqs[i].rsp = rblk_mr_pool_unit(q->rsps, i);
		q->reqs[i].req.buf_index = -1;
		TAILQ_INSERT_TAIL(&q->free_reqs, &q->reqs[i], link);
	}
	rblk_sq_init(&q->sq, env->tgt, &fake_ops, o->qid, o->depth);
	q->sq.pg = &env->pg;
	for (uint16_t i = 0; q->recvs && i < o->depth; i++)
		rblk_rdma_stage_recv(q, &q->recvs[i]);
	rblk_rdma_queue_flush(q);
	q->state = o->live ? RBLK_RDMA_Q_LIVE : RBLK_RDMA_Q_CONNECTING;
	return q;
}

/* Changes whenever a request of q moves. */
static uint64_t fingerprint(const struct rblk_rdma_queue *q)
{
	uint64_t f = q->qp->nstaged + ((uint64_t)q->reqs_busy << 32);

	for (unsigned i = 0; i < q->nreqs; i++)
		f = f * 31 + q->reqs[i].state;
	return f;
}

void fq_pump(struct tt_env *env, struct rblk_rdma_queue *q)
{
	uint64_t progress;
	unsigned n;

	do {
		progress = q ? fingerprint(q) : 0;
		n = tt_pump(env);
		while (nwork) {
			struct fake_work w = work[0];

			memmove(work, work + 1, --nwork * sizeof(work[0]));
			w.fn(w.arg);
			n++;
		}
		if (q)
			rblk_rdma_queue_kick(q);
		if (q && q->dev && !TAILQ_EMPTY(&q->dev->pending_buf))
			rblk_rdma_dev_kick(q->dev);
		/* Kicks may have started storage I/O: go round until nothing moves. */
	} while (n || (q && fingerprint(q) != progress));
	if (q)
		rblk_rdma_queue_flush(q);
}

void fq_destroy(struct rblk_rdma_queue *q)
{
	uint64_t deadline = rblk_clock_ms() + 10000;
	/* The sq's poll group is its environment's. */
	struct tt_env *env = rblk_container_of(q->sq.pg, struct tt_env, pg);

	rblk_rdma_queue_fail(q, "test done");
	/* Everything posted flushes; storage I/O finishes. */
	do {
		fq_complete_all(q);
		tt_pump(env);
	} while ((q->reqs_busy || q->signaled_inflight) && rblk_clock_ms() < deadline);
	rblk_sq_destroy(&q->sq);
	if (q->srq_mapped)
		rblk_rdma_qpn_map_del(&q->dev->srq->map, q->qp->qpn);
	free(q->rstaged);
	free(q->staged);
	free(q->reqs);
	free(q->recvs);
	free(q->qp);
	fake_pool_destroy(q->rsps);
	fake_pool_destroy(q->icd);
	fake_pool_destroy(q->capsules);
	free(q);
}

static struct rblk_rdma_recv *deliver(struct rblk_rdma_queue *q, const void *sqe,
				      const void *data, uint32_t len, bool hold)
{
	struct rblk_qp *qp = q->qp;
	struct rblk_srq *srq = q->dev->srq ? q->dev->srq->srq : NULL;
	struct rblk_rdma_recv *rv;
	struct rblk_wc wc;

	/* No receive posted: the host would get an RNR NAK. */
	if (srq ? srq->next >= srq->nposted : qp->rnext >= qp->nrposted)
		return NULL;
	if (srq)
		rv = rblk_rdma_wr_obj(srq->posted[srq->next++].wr_id);
	else
		rv = rblk_rdma_wr_obj(qp->rposted[qp->rnext++].wr_id);
	memcpy(rv->capsule, sqe, 64);
	if (len)
		memcpy(rv->icd, data, len);
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = rblk_rdma_wr_id(rv, RBLK_RDMA_WR_RECV);
	wc.status = RBLK_WC_SUCCESS;
	wc.opcode = RBLK_WC_RECV;
	wc.byte_len = 64 + len;
	wc.qp_num = qp->qpn;
	if (hold) {
		/* Not LIVE while the completion runs: the capsule waits, unbound. */
		enum rblk_rdma_qstate st = q->state;

		if (st == RBLK_RDMA_Q_LIVE)
			q->state = RBLK_RDMA_Q_CONNECTING;
		rblk_rdma_handle_wc(&wc);
		q->state = st;
	} else {
		rblk_rdma_handle_wc(&wc);
	}
	return rv;
}

struct rblk_rdma_recv *fq_send(struct rblk_rdma_queue *q, const void *sqe, const void *data,
			       uint32_t len)
{
	return deliver(q, sqe, data, len, false);
}

struct rblk_rdma_recv *fq_send_nostep(struct rblk_rdma_queue *q, const void *sqe,
				      const void *data, uint32_t len)
{
	return deliver(q, sqe, data, len, true);
}

struct rblk_rdma_recv *fq_srq_deliver(struct rblk_pg_dev *dev, uint32_t qp_num,
				      enum rblk_wc_status st)
{
	struct rblk_srq *srq = dev->srq->srq;
	struct rblk_rdma_recv *rv;
	struct rblk_wc wc;

	if (srq->next >= srq->nposted)
		return NULL;
	rv = rblk_rdma_wr_obj(srq->posted[srq->next++].wr_id);
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = rblk_rdma_wr_id(rv, RBLK_RDMA_WR_RECV);
	wc.status = st;
	wc.opcode = RBLK_WC_RECV;
	wc.byte_len = 64;
	wc.qp_num = qp_num;
	rblk_rdma_handle_wc(&wc);
	return rv;
}

struct rblk_rdma_req *fq_bind(struct rblk_rdma_queue *q)
{
	struct rblk_rdma_recv *rv = STAILQ_FIRST(&q->incoming);
	struct rblk_rdma_req *r = TAILQ_FIRST(&q->free_reqs);

	if (!rv || !r)
		return NULL;
	STAILQ_REMOVE_HEAD(&q->incoming, link);
	TAILQ_REMOVE(&q->free_reqs, r, link);
	r->recv = rv;
	r->state = RBLK_RDMA_REQ_NEW;
	q->reqs_busy++;
	return r;
}

static void complete(struct rblk_rdma_req *r, enum rblk_rdma_wr_kind kind,
		     enum rblk_wc_status st, bool hold)
{
	struct rblk_qp *qp = r->q->qp;
	uint64_t id = rblk_rdma_wr_id(r, kind);
	struct rblk_wc wc;

	for (unsigned i = 0; i < qp->nposted; i++) {
		if (qp->posted[i].wr.wr_id == id && !qp->posted[i].done) {
			qp->posted[i].done = true;
			break;
		}
	}
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = id;
	wc.status = st;
	wc.opcode = kind == RBLK_RDMA_WR_READ ? RBLK_WC_RDMA_READ : RBLK_WC_SEND;
	if (hold) {
		bool was = r->in_process;

		r->in_process = true;
		rblk_rdma_handle_wc(&wc);
		r->in_process = was;
	} else {
		rblk_rdma_handle_wc(&wc);
	}
}

void fq_complete(struct rblk_rdma_req *r, enum rblk_rdma_wr_kind kind, enum rblk_wc_status st)
{
	complete(r, kind, st, false);
}

void fq_complete_nostep(struct rblk_rdma_req *r, enum rblk_rdma_wr_kind kind,
			enum rblk_wc_status st)
{
	complete(r, kind, st, true);
}

unsigned fq_complete_all(struct rblk_rdma_queue *q)
{
	struct rblk_qp *qp = q->qp;
	bool open = q->state == RBLK_RDMA_Q_LIVE || q->state == RBLK_RDMA_Q_CONNECTING;
	unsigned n = 0;

	for (unsigned i = 0; i < qp->nposted; i++) {
		struct fake_wr *w = &qp->posted[i];

		if (w->done || !(w->wr.flags & RBLK_SEND_SIGNALED))
			continue;
		w->done = true;
		complete(fq_wr_req(w), rblk_rdma_wr_kind(w->wr.wr_id),
			 open ? RBLK_WC_SUCCESS : RBLK_WC_WR_FLUSH_ERR, false);
		/* Completing may post more (a READ finishing leads to a SEND). */
		n++;
	}
	if (!open) {
		/* The QP is in the error state: its receives flush too. */
		while (qp->rnext < qp->nrposted) {
			struct rblk_wc wc;

			memset(&wc, 0, sizeof(wc));
			wc.wr_id = qp->rposted[qp->rnext++].wr_id;
			wc.status = RBLK_WC_WR_FLUSH_ERR;
			rblk_rdma_handle_wc(&wc);
		}
	}
	return n;
}

struct rblk_rdma_req *fq_wr_req(const struct fake_wr *w)
{
	return rblk_rdma_wr_obj(w->wr.wr_id);
}

/* ------------------------------------------------------------------------ */
/* Builders.                                                                 */

void fq_keyed(void *sqe, uint64_t addr, uint32_t len, uint32_t key, bool inv)
{
	rblk_sgl_encode_keyed(&((struct nvme_sqe *)sqe)->sgl1, addr, len, key, inv);
}

void fq_incapsule(void *sqe, uint32_t offset, uint32_t len)
{
	rblk_sgl_encode_incapsule(&((struct nvme_sqe *)sqe)->sgl1, offset, len);
}

void fq_rw(void *sqe, uint8_t opc, uint16_t cid, uint32_t nsid, uint64_t slba, uint32_t nlb)
{
	struct nvme_rw_cmd *c = sqe;

	memset(c, 0, sizeof(*c));
	c->opc = opc;
	c->flags = NVME_CMD_PSDT_SGL_MPTR_CONTIG;
	c->cid = rblk_cpu_to_le16(cid);
	c->nsid = rblk_cpu_to_le32(nsid);
	c->slba = rblk_cpu_to_le64(slba);
	c->nlb = rblk_cpu_to_le16((uint16_t)(nlb - 1));
}

void fq_connect(void *sqe, struct nvmf_connect_data *d, uint16_t qid, uint16_t sqsize,
		uint16_t cntlid, const uint8_t hostid[16])
{
	struct nvmf_connect_cmd *c = sqe;

	memset(c, 0, sizeof(*c));
	c->opc = NVME_ADMIN_FABRICS;
	c->flags = NVME_CMD_PSDT_SGL_MPTR_CONTIG;
	c->cid = rblk_cpu_to_le16(0x4321);
	c->fctype = NVMF_FCTYPE_CONNECT;
	c->qid = rblk_cpu_to_le16(qid);
	c->sqsize = rblk_cpu_to_le16(sqsize);
	c->kato = rblk_cpu_to_le32(qid ? 0 : 5000);
	memset(d, 0, sizeof(*d));
	memcpy(d->hostid, hostid, 16);
	d->cntlid = rblk_cpu_to_le16(cntlid);
	snprintf(d->subnqn, sizeof(d->subnqn), "%s", TT_SUBNQN);
	snprintf(d->hostnqn, sizeof(d->hostnqn), "%s", TT_HOSTNQN);
}

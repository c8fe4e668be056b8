/* SPDX-License-Identifier: MIT */
/*
 * Data movement of the NVMe/RDMA target: building work-request chains (RDMA
 * READ for host-to-controller data, RDMA WRITE chained before the response
 * SEND for controller-to-host data, several pool units spread over SGEs and,
 * past the device's SGE limit, over several WRs), staging them on a QP and
 * flushing each queue once per poll iteration (docs/interop.md §5;
 * docs/architecture.md §2.3).
 *
 * Signaling: RDMA READs and the response SEND are signaled; RDMA WRITEs are
 * not (RC ordering: the SEND's completion retires the WRITEs before it).
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "common/log.h"
#include "target/rdma/rdma.h"

unsigned rblk_rdma_data_wrs(unsigned iovcnt, unsigned max_sge)
{
	if (!max_sge)
		max_sge = 1;
	return (iovcnt + max_sge - 1) / max_sge;
}

int rblk_rdma_chain_add_data(struct rblk_rdma_chain *c, enum rblk_wr_opcode op,
			     const struct iovec *iov, unsigned iovcnt, uint32_t len, uint32_t lkey,
			     uint64_t raddr, uint32_t rkey, unsigned max_sge, uint64_t wr_id,
			     unsigned flags)
{
	unsigned i = 0;

	if (!max_sge)
		max_sge = 1;
	while (len) {
		struct rblk_send_wr *wr;
		uint32_t wr_len = 0;

		if (c->nwr >= RBLK_RDMA_MAX_DATA_WRS || i >= iovcnt)
			return -EINVAL;
		wr = &c->wr[c->nwr];
		memset(wr, 0, sizeof(*wr));
		wr->wr_id = wr_id;
		wr->opcode = op;
		wr->flags = flags;
		wr->sge = &c->sge[c->nsge];
		wr->remote_addr = raddr;
		wr->rkey = rkey;
		/* Up to max_sge local buffers map onto one contiguous remote range. */
		while (len && wr->num_sge < max_sge && i < iovcnt) {
			struct rblk_sge *s;
			uint32_t n = iov[i].iov_len < len ? (uint32_t)iov[i].iov_len : len;

			if (c->nsge >= RBLK_REQ_MAX_IOV + 1)
				return -EINVAL;
			s = &c->sge[c->nsge++];
			s->addr = (uint64_t)(uintptr_t)iov[i].iov_base;
			s->length = n;
			s->lkey = lkey;
			wr->num_sge++;
			wr_len += n;
			len -= n;
			i++;
		}
		raddr += wr_len;
		c->nwr++;
	}
	return 0;
}

int rblk_rdma_chain_add_send(struct rblk_rdma_chain *c, const void *rsp, uint32_t lkey,
			     bool invalidate, uint32_t inv_rkey, uint64_t wr_id)
{
	struct rblk_send_wr *wr;
	struct rblk_sge *s;

	if (c->nwr >= RBLK_RDMA_MAX_DATA_WRS + 1 || c->nsge >= RBLK_REQ_MAX_IOV + 1)
		return -EINVAL;
	s = &c->sge[c->nsge++];
	s->addr = (uint64_t)(uintptr_t)rsp;
	s->length = RBLK_RDMA_RSP_SIZE;
	s->lkey = lkey;
	wr = &c->wr[c->nwr++];
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	/*
	 * SEND_WITH_INV only with the key of this command's 0x4F SGL: the
	 * Linux host checks it and reconnects on a "bogus remote invalidation".
	 */
	wr->opcode = invalidate ? RBLK_WR_SEND_WITH_INV : RBLK_WR_SEND;
	wr->imm_or_inv_rkey = invalidate ? inv_rkey : 0;
	wr->flags = RBLK_SEND_SIGNALED;
	wr->sge = s;
	wr->num_sge = 1;
	return 0;
}

static uint32_t pool_lkey(const struct rblk_rdma_req *r)
{
	return rblk_mr_pool_lkey(r->q->dev->pool);
}

int rblk_rdma_build_reads(struct rblk_rdma_req *r, struct rblk_rdma_chain *c)
{
	c->nwr = c->nsge = 0;
	return rblk_rdma_chain_add_data(c, RBLK_WR_RDMA_READ, r->req.iov, r->req.iovcnt,
					r->req.data_len, pool_lkey(r), r->sgl.addr, r->sgl.key,
					r->q->max_sge_rd, rblk_rdma_wr_id(r, RBLK_RDMA_WR_READ),
					RBLK_SEND_SIGNALED);
}

int rblk_rdma_build_response(struct rblk_rdma_req *r, struct rblk_rdma_chain *c)
{
	bool inv = r->sgl.kind == RBLK_SGL_KEYED_INV && !r->q->no_invalidate;
	int ret;

	c->nwr = c->nsge = 0;
	if (r->req.dir == RBLK_XFER_C2H && !r->req.status && r->req.data_len &&
	    (r->sgl.kind == RBLK_SGL_KEYED || r->sgl.kind == RBLK_SGL_KEYED_INV)) {
		ret = rblk_rdma_chain_add_data(c, RBLK_WR_RDMA_WRITE, r->req.iov, r->req.iovcnt,
					       r->req.data_len, pool_lkey(r), r->sgl.addr,
					       r->sgl.key, r->q->max_sge,
					       rblk_rdma_wr_id(r, RBLK_RDMA_WR_WRITE), 0);
		if (ret)
			return ret;
	}
	memcpy(r->rsp, &r->req.cqe, sizeof(r->req.cqe));
	return rblk_rdma_chain_add_send(c, r->rsp, rblk_mr_pool_lkey(r->q->rsps), inv, r->sgl.key,
					rblk_rdma_wr_id(r, RBLK_RDMA_WR_SEND));
}

/* ------------------------------------------------------------------------ */
/* Staging and flushing.                                                     */

int rblk_rdma_stage_chain(struct rblk_rdma_queue *q, struct rblk_rdma_req *r,
			  const struct rblk_rdma_chain *c)
{
	for (unsigned i = 0; i < c->nwr; i++) {
		unsigned pos = rblk_qp_send_staged(q->qp);
		int ret = rblk_qp_queue_send(q->qp, &c->wr[i]);

		/* Budgeted before staging: staging holds max_send_wr, like the SQ. */
		assert(ret != -ENOBUFS);
		if (ret)
			return ret;
		if (c->wr[i].flags & RBLK_SEND_SIGNALED) {
			assert(q->nstaged < q->send_slots_max);
			q->staged[q->nstaged].req = r;
			q->staged[q->nstaged].kind = rblk_rdma_wr_kind(c->wr[i].wr_id);
			q->staged[q->nstaged].pos = pos;
			q->nstaged++;
		}
	}
	return 0;
}

int rblk_rdma_stage_recv(struct rblk_rdma_queue *q, struct rblk_rdma_recv *rv)
{
	struct rblk_sge sge[2];
	unsigned n;
	int ret;

	if (rv->srq) {
		/* Shared: back to the SRQ, posted with the queue's next flush. */
		rblk_rdma_srq_repost(rv);
		return 0;
	}
	assert(!rv->posted);
	assert(q->nrstaged < q->depth);
	n = rblk_rdma_recv_sges(rv, q->capsules, q->icd, q->icd_size, sge);
	ret = rblk_qp_queue_recv(q->qp, rblk_rdma_wr_id(rv, RBLK_RDMA_WR_RECV), sge, n);
	if (ret)
		return ret;
	rv->posted = true;
	q->rstaged[q->nrstaged++] = rv;
	return 0;
}

/* A flush completion for a signaled WR that never reached the QP. */
static void complete_unposted(const struct rblk_rdma_staged *s)
{
	struct rblk_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = rblk_rdma_wr_id(s->req, s->kind);
	wc.status = RBLK_WC_WR_FLUSH_ERR;
	rblk_rdma_handle_wc(&wc);
}

static void flush_recvs(struct rblk_rdma_queue *q)
{
	unsigned staged = q->nrstaged, posted = 0;
	int ret;

	if (q->dev->srq)
		rblk_rdma_srq_flush(q->dev->srq);
	if (!staged)
		return;
	ret = rblk_qp_flush_recv(q->qp, &posted);
	q->nrstaged = 0;
	q->recv_posted += posted;
	if (!ret)
		return;
	/* The ones past `posted` never complete: they are idle again. */
	for (unsigned i = posted; i < staged; i++)
		q->rstaged[i]->posted = false;
	RBLK_ERR("%s qid %u: posting %u receives failed after %u: %s", q->peer, q->plan.qid,
		 staged, posted, strerror(-ret));
	rblk_rdma_queue_fail(q, "receive post failed");
}

void rblk_rdma_queue_flush(struct rblk_rdma_queue *q)
{
	struct rblk_rdma_staged *log = q->staged;
	unsigned staged, posted = 0, n = q->nstaged;
	int ret;

	/*
	 * Receives first: a response lets the host send its next command at
	 * once, and the receive buffer for it must be there by then.
	 */
	flush_recvs(q);

	staged = rblk_qp_send_staged(q->qp);
	if (!staged)
		return;
	ret = rblk_qp_flush_send(q->qp, &posted);
	q->nstaged = 0;
	q->signaled_inflight += n;
	if (!ret)
		return;
	RBLK_ERR("%s qid %u: posting %u send WRs failed after %u: %s", q->peer, q->plan.qid,
		 staged, posted, strerror(-ret));
	rblk_rdma_queue_fail(q, "send post failed");
	/*
	 * Signaled WRs before `posted` complete from the QP (flushed); the
	 * others never will, so complete them here. Unsignaled WRITEs that got
	 * out before their SEND may still report errors: their completions are
	 * only logged, never used to find an object.
	 */
	for (unsigned i = 0; i < n; i++)
		if (log[i].pos >= posted)
			complete_unposted(&log[i]);
}

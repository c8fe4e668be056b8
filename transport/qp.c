/* SPDX-License-Identifier: MIT */
/*
 * Queue pairs and work-request staging. Callers queue WRs one by one as the
 * poll loop finds work, and flush each QP once per poll: one ibv_post_send()
 * per chain. On rxe that is one system call per flush (the provider rings
 * its doorbell with a write() per call, whatever the chain length), which is
 * what lets a userspace target keep up with the in-kernel one.
 *
 * Staging arrays are sized from the granted caps at creation, so queueing
 * never allocates; WRs are linked as they are queued, so flushing is one
 * call. SGE arrays are copied into staging so callers may build them on the
 * stack.
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/util.h"
#include "transport/cq_priv.h"
#include "transport/err.h"
#include "transport/qp_priv.h"
#include "transport/recv_chain.h"
#include "transport/srq_priv.h"

struct staging {
	unsigned cap;		/* WRs */
	unsigned n;		/* staged now */
	unsigned max_sge;	/* SGE slots per WR */
	struct ibv_sge *sge;	/* cap * max_sge */
};

struct rblk_qp {
	struct rdma_cm_id *id;	/* NULL for a staging-only QP (tests) */
	struct ibv_qp *qp;
	void *context;
	struct rblk_qp_caps caps;
	struct staging s;
	struct ibv_send_wr *swr;
	struct rblk_recv_chain r;
};

_Static_assert(sizeof(struct rblk_sge) == sizeof(struct ibv_sge) &&
		       offsetof(struct rblk_sge, addr) == offsetof(struct ibv_sge, addr) &&
		       offsetof(struct rblk_sge, length) == offsetof(struct ibv_sge, length) &&
		       offsetof(struct rblk_sge, lkey) == offsetof(struct ibv_sge, lkey),
	       "rblk_sge must match ibv_sge");
_Static_assert(RBLK_WR_RDMA_WRITE == (int)IBV_WR_RDMA_WRITE &&
		       RBLK_WR_RDMA_WRITE_WITH_IMM == (int)IBV_WR_RDMA_WRITE_WITH_IMM &&
		       RBLK_WR_SEND == (int)IBV_WR_SEND &&
		       RBLK_WR_SEND_WITH_IMM == (int)IBV_WR_SEND_WITH_IMM &&
		       RBLK_WR_RDMA_READ == (int)IBV_WR_RDMA_READ &&
		       RBLK_WR_SEND_WITH_INV == (int)IBV_WR_SEND_WITH_INV,
	       "wr opcode");
_Static_assert(RBLK_SEND_FENCE == IBV_SEND_FENCE && RBLK_SEND_SIGNALED == IBV_SEND_SIGNALED &&
		       RBLK_SEND_SOLICITED == IBV_SEND_SOLICITED &&
		       RBLK_SEND_INLINE == IBV_SEND_INLINE,
	       "send flags");

#define SEND_FLAGS_ALL (RBLK_SEND_FENCE | RBLK_SEND_SIGNALED | RBLK_SEND_SOLICITED | RBLK_SEND_INLINE)

static int staging_init(struct rblk_qp *qp)
{
	/* A QP with no SGEs still stages zero-length WRs; keep one slot. */
	qp->s.cap = qp->caps.max_send_wr;
	qp->s.max_sge = qp->caps.max_send_sge ? qp->caps.max_send_sge : 1;

	qp->swr = rblk_calloc_lines(qp->s.cap ? qp->s.cap : 1, sizeof(*qp->swr));
	qp->s.sge = rblk_calloc_lines((size_t)(qp->s.cap ? qp->s.cap : 1) * qp->s.max_sge, sizeof(*qp->s.sge));
	if (!qp->swr || !qp->s.sge)
		return -ENOMEM;
	return rblk_recv_chain_init(&qp->r, qp->caps.max_recv_wr, qp->caps.max_recv_sge);
}

static void qp_free(struct rblk_qp *qp)
{
	rblk_recv_chain_fini(&qp->r);
	free(qp->s.sge);
	free(qp->swr);
	free(qp);
}

int rblk_qp_staging_create(const struct rblk_qp_caps *caps, struct rblk_qp **out)
{
	struct rblk_qp *qp;
	int ret;

	*out = NULL;
	qp = rblk_calloc_lines(1, sizeof(*qp));
	if (!qp)
		return -ENOMEM;
	qp->caps = *caps;
	ret = staging_init(qp);
	if (ret) {
		qp_free(qp);
		return ret;
	}
	*out = qp;
	return 0;
}

int rblk_qp_create(struct rblk_cm_id *cid, struct rblk_pd *pd, struct rblk_cq *send_cq,
		   struct rblk_cq *recv_cq, const struct rblk_qp_caps *caps, void *context,
		   struct rblk_qp **out)
{
	struct ibv_qp_init_attr attr;
	struct rblk_qp *qp;
	int ret;

	*out = NULL;
	if (!cid || !pd || !send_cq || !recv_cq || !caps || !caps->max_send_wr ||
	    (!caps->max_recv_wr && !caps->srq))
		return -EINVAL;
	qp = rblk_calloc_lines(1, sizeof(*qp));
	if (!qp)
		return -ENOMEM;
	qp->id = (struct rdma_cm_id *)cid;
	qp->context = context;

	memset(&attr, 0, sizeof(attr));
	attr.qp_context = qp;
	attr.send_cq = rblk_cq_ibv(send_cq);
	attr.recv_cq = rblk_cq_ibv(recv_cq);
	attr.qp_type = IBV_QPT_RC;
	attr.sq_sig_all = 0;	/* callers signal what they need to see (SPDK, nvmet: same) */
	attr.cap.max_send_wr = caps->max_send_wr;
	attr.cap.max_send_sge = caps->max_send_sge;
	attr.cap.max_inline_data = caps->max_inline_data;
	if (caps->srq) {
		attr.srq = rblk_srq_ibv(caps->srq);
	} else {
		attr.cap.max_recv_wr = caps->max_recv_wr;
		attr.cap.max_recv_sge = caps->max_recv_sge;
	}
	if (rdma_create_qp(qp->id, (struct ibv_pd *)pd, &attr)) {
		ret = err_errno();
		goto out_free;
	}
	qp->qp = qp->id->qp;
	/* rdma_create_qp() writes back what the provider granted. */
	qp->caps.max_send_wr = attr.cap.max_send_wr;
	qp->caps.max_send_sge = attr.cap.max_send_sge;
	/* With an SRQ the QP's own receive side stays empty: nothing to stage. */
	qp->caps.max_recv_wr = caps->srq ? 0 : attr.cap.max_recv_wr;
	qp->caps.max_recv_sge = caps->srq ? 0 : attr.cap.max_recv_sge;
	qp->caps.max_inline_data = attr.cap.max_inline_data;
	qp->caps.srq = caps->srq;
	ret = staging_init(qp);
	if (ret)
		goto out_destroy_qp;
	*out = qp;
	return 0;

out_destroy_qp:
	rdma_destroy_qp(qp->id);
out_free:
	qp_free(qp);
	return ret;
}

void rblk_qp_destroy(struct rblk_qp *qp)
{
	if (!qp)
		return;
	if (qp->id && qp->qp)
		rdma_destroy_qp(qp->id);
	qp_free(qp);
}

int rblk_qp_set_error(struct rblk_qp *qp)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };

	if (!qp || !qp->qp)
		return -EINVAL;
	return err_ret(ibv_modify_qp(qp->qp, &attr, IBV_QP_STATE));
}

const struct rblk_qp_caps *rblk_qp_get_caps(const struct rblk_qp *qp)
{
	return &qp->caps;
}

uint32_t rblk_qp_num(const struct rblk_qp *qp)
{
	return qp->qp ? qp->qp->qp_num : 0;
}

static bool opcode_ok(enum rblk_wr_opcode op)
{
	switch (op) {
	case RBLK_WR_RDMA_WRITE:
	case RBLK_WR_RDMA_WRITE_WITH_IMM:
	case RBLK_WR_SEND:
	case RBLK_WR_SEND_WITH_IMM:
	case RBLK_WR_RDMA_READ:
	case RBLK_WR_SEND_WITH_INV:
		return true;
	}
	return false;
}

int rblk_qp_queue_send(struct rblk_qp *qp, const struct rblk_send_wr *wr)
{
	struct ibv_send_wr *w;
	struct ibv_sge *sge;

	if (!opcode_ok(wr->opcode) || (wr->flags & ~SEND_FLAGS_ALL) ||
	    wr->num_sge > qp->caps.max_send_sge || (wr->num_sge && !wr->sge))
		return -EINVAL;
	if (wr->flags & RBLK_SEND_INLINE) {
		uint64_t len = 0;

		if (wr->opcode == RBLK_WR_RDMA_READ)
			return -EINVAL;
		for (uint32_t i = 0; i < wr->num_sge; i++)
			len += wr->sge[i].length;
		if (len > qp->caps.max_inline_data)
			return -EINVAL;
	}
	if (qp->s.n >= qp->s.cap)
		return -ENOBUFS;

	w = &qp->swr[qp->s.n];
	sge = &qp->s.sge[(size_t)qp->s.n * qp->s.max_sge];
	memset(w, 0, sizeof(*w));
	if (wr->num_sge)
		memcpy(sge, wr->sge, wr->num_sge * sizeof(*sge));
	w->wr_id = wr->wr_id;
	w->sg_list = sge;
	w->num_sge = (int)wr->num_sge;
	w->opcode = (enum ibv_wr_opcode)wr->opcode;
	w->send_flags = wr->flags;
	switch (wr->opcode) {
	case RBLK_WR_RDMA_WRITE_WITH_IMM:
	case RBLK_WR_SEND_WITH_IMM:
		w->imm_data = wr->imm_or_inv_rkey;
		break;
	case RBLK_WR_SEND_WITH_INV:
		w->invalidate_rkey = wr->imm_or_inv_rkey;
		break;
	default:
		break;
	}
	if (wr->opcode == RBLK_WR_RDMA_WRITE || wr->opcode == RBLK_WR_RDMA_WRITE_WITH_IMM ||
	    wr->opcode == RBLK_WR_RDMA_READ) {
		w->wr.rdma.remote_addr = wr->remote_addr;
		w->wr.rdma.rkey = wr->rkey;
	}
	if (qp->s.n)
		qp->swr[qp->s.n - 1].next = w;
	qp->s.n++;
	return 0;
}

int rblk_qp_queue_recv(struct rblk_qp *qp, uint64_t wr_id, const struct rblk_sge *sge,
		       uint32_t num_sge)
{
	if (qp->caps.srq || num_sge > qp->caps.max_recv_sge)
		return -EINVAL;
	return rblk_recv_chain_add(&qp->r, wr_id, sge, num_sge);
}

int rblk_qp_flush_send(struct rblk_qp *qp, unsigned *posted)
{
	struct ibv_send_wr *bad = NULL;
	unsigned n = qp->s.n;
	int ret;

	if (posted)
		*posted = 0;
	if (!n)
		return 0;
	qp->s.n = 0;
	if (!qp->qp)
		return -ENOTCONN;
	ret = err_ret(ibv_post_send(qp->qp, qp->swr, &bad));
	if (posted) {
		if (!ret)
			*posted = n;
		else if (bad >= qp->swr && bad < qp->swr + n)
			*posted = (unsigned)(bad - qp->swr);
	}
	return ret;
}

int rblk_qp_flush_recv(struct rblk_qp *qp, unsigned *posted)
{
	struct ibv_recv_wr *bad = NULL;
	unsigned n;
	int ret;

	if (posted)
		*posted = 0;
	if (!qp->r.n)
		return 0;
	if (!qp->qp) {
		qp->r.n = 0;
		return -ENOTCONN;
	}
	ret = err_ret(ibv_post_recv(qp->qp, qp->r.wr, &bad));
	n = rblk_recv_chain_posted(&qp->r, ret, bad);
	if (posted)
		*posted = n;
	return ret;
}

unsigned rblk_qp_send_staged(const struct rblk_qp *qp)
{
	return qp->s.n;
}

unsigned rblk_qp_recv_staged(const struct rblk_qp *qp)
{
	return qp->r.n;
}

struct ibv_send_wr *rblk_qp_staged_send_head(struct rblk_qp *qp)
{
	return qp->s.n ? qp->swr : NULL;
}

struct ibv_recv_wr *rblk_qp_staged_recv_head(struct rblk_qp *qp)
{
	return qp->r.n ? qp->r.wr : NULL;
}

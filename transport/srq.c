/* SPDX-License-Identifier: MIT */
/*
 * Shared receive queues. A target serving many queues from one poll group
 * would otherwise keep a full set of receives (a capsule and an in-capsule
 * buffer each, for every queue entry) per connection, most of them idle:
 * with an SRQ the group's queues on one device draw from one set sized for
 * the traffic, not for the number of connections. A QP created on it
 * (rblk_qp_caps.srq) has no receive queue of its own; its receive
 * completions carry its qp_num, by which the owner finds the connection.
 *
 * Staging is a QP's receive staging (transport/recv_chain.c): queue one by
 * one, post the chain once per poll with one ibv_post_srq_recv().
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "transport/err.h"
#include "transport/recv_chain.h"
#include "transport/srq_priv.h"

struct rblk_srq {
	struct ibv_srq *srq;
	uint32_t max_wr;	/* asked for: the staging's size */
	struct rblk_recv_chain r;
};

static void srq_free(struct rblk_srq *s)
{
	rblk_recv_chain_fini(&s->r);
	free(s);
}

int rblk_srq_create(struct rblk_pd *pd, uint32_t max_wr, uint32_t max_sge, struct rblk_srq **out)
{
	struct ibv_srq_init_attr attr;
	struct rblk_srq *s;
	int ret;

	*out = NULL;
	if (!pd || !max_wr || !max_sge)
		return -EINVAL;
	s = rblk_calloc_lines(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	/*
	 * Our budget is what we asked for, as for QPs: the provider may grant
	 * more, but staging and the owner's receive set are sized by max_wr.
	 */
	s->max_wr = max_wr;
	ret = rblk_recv_chain_init(&s->r, max_wr, max_sge);
	if (ret)
		goto out_free;
	memset(&attr, 0, sizeof(attr));
	attr.attr.max_wr = max_wr;
	attr.attr.max_sge = max_sge;
	s->srq = ibv_create_srq((struct ibv_pd *)pd, &attr);
	if (!s->srq) {
		ret = err_errno();
		goto out_free;
	}
	*out = s;
	return 0;

out_free:
	srq_free(s);
	return ret;
}

void rblk_srq_destroy(struct rblk_srq *s)
{
	if (!s)
		return;
	ibv_destroy_srq(s->srq);
	srq_free(s);
}

struct ibv_srq *rblk_srq_ibv(struct rblk_srq *s)
{
	return s ? s->srq : NULL;
}

int rblk_srq_queue_recv(struct rblk_srq *s, uint64_t wr_id, const struct rblk_sge *sge,
			uint32_t num_sge)
{
	return rblk_recv_chain_add(&s->r, wr_id, sge, num_sge);
}

int rblk_srq_flush(struct rblk_srq *s, unsigned *posted)
{
	struct ibv_recv_wr *bad = NULL;
	unsigned n;
	int ret;

	if (posted)
		*posted = 0;
	if (!s->r.n)
		return 0;
	ret = err_ret(ibv_post_srq_recv(s->srq, s->r.wr, &bad));
	n = rblk_recv_chain_posted(&s->r, ret, bad);
	if (posted)
		*posted = n;
	return ret;
}

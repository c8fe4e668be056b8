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
 * Staging works as for a QP's receives (qp.c): queue one by one, post the
 * chain once per poll with one ibv_post_srq_recv().
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdlib.h>
#include <string.h>

#include "transport/err.h"
#include "transport/srq_priv.h"

struct rblk_srq {
	struct ibv_srq *srq;
	uint32_t max_wr;	/* granted */
	uint32_t max_sge;
	unsigned n;		/* staged */
	struct ibv_recv_wr *wr;	/* [max_wr] */
	struct ibv_sge *sge;	/* [max_wr * max_sge] */
};

static void srq_free(struct rblk_srq *s)
{
	free(s->sge);
	free(s->wr);
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
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	memset(&attr, 0, sizeof(attr));
	attr.attr.max_wr = max_wr;
	attr.attr.max_sge = max_sge;
	s->srq = ibv_create_srq((struct ibv_pd *)pd, &attr);
	if (!s->srq) {
		ret = err_errno();
		goto out_free;
	}
	/*
	 * Our budget is what we asked for, as for QPs: the provider may grant
	 * more, but staging and the owner's receive set are sized by max_wr.
	 */
	s->max_wr = max_wr;
	s->max_sge = max_sge;
	s->wr = calloc(max_wr, sizeof(*s->wr));
	s->sge = calloc((size_t)max_wr * max_sge, sizeof(*s->sge));
	if (!s->wr || !s->sge) {
		ret = -ENOMEM;
		goto out_destroy_srq;
	}
	*out = s;
	return 0;

out_destroy_srq:
	ibv_destroy_srq(s->srq);
out_free:
	srq_free(s);
	return ret;
}

int rblk_srq_staging_create(uint32_t max_wr, uint32_t max_sge, struct rblk_srq **out)
{
	struct rblk_srq *s;

	*out = NULL;
	if (!max_wr || !max_sge)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->max_wr = max_wr;
	s->max_sge = max_sge;
	s->wr = calloc(max_wr, sizeof(*s->wr));
	s->sge = calloc((size_t)max_wr * max_sge, sizeof(*s->sge));
	if (!s->wr || !s->sge) {
		srq_free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void rblk_srq_destroy(struct rblk_srq *s)
{
	if (!s)
		return;
	if (s->srq)
		ibv_destroy_srq(s->srq);
	srq_free(s);
}

uint32_t rblk_srq_size(const struct rblk_srq *s)
{
	return s->max_wr;
}

struct ibv_srq *rblk_srq_ibv(struct rblk_srq *s)
{
	return s ? s->srq : NULL;
}

int rblk_srq_queue_recv(struct rblk_srq *s, uint64_t wr_id, const struct rblk_sge *sge,
			uint32_t num_sge)
{
	struct ibv_recv_wr *w;
	struct ibv_sge *dst;

	if (num_sge > s->max_sge || (num_sge && !sge))
		return -EINVAL;
	if (s->n >= s->max_wr)
		return -ENOBUFS;
	w = &s->wr[s->n];
	dst = &s->sge[(size_t)s->n * s->max_sge];
	if (num_sge)
		memcpy(dst, sge, num_sge * sizeof(*dst));
	w->wr_id = wr_id;
	w->next = NULL;
	w->sg_list = dst;
	w->num_sge = (int)num_sge;
	if (s->n)
		s->wr[s->n - 1].next = w;
	s->n++;
	return 0;
}

int rblk_srq_flush(struct rblk_srq *s, unsigned *posted)
{
	struct ibv_recv_wr *bad = NULL;
	unsigned n = s->n;
	int ret;

	if (posted)
		*posted = 0;
	if (!n)
		return 0;
	s->n = 0;
	if (!s->srq)
		return -ENOTCONN;
	ret = err_ret(ibv_post_srq_recv(s->srq, s->wr, &bad));
	if (posted) {
		if (!ret)
			*posted = n;
		else if (bad >= s->wr && bad < s->wr + n)
			*posted = (unsigned)(bad - s->wr);
	}
	return ret;
}

unsigned rblk_srq_staged(const struct rblk_srq *s)
{
	return s->n;
}

struct ibv_recv_wr *rblk_srq_staged_head(struct rblk_srq *s)
{
	return s->n ? s->wr : NULL;
}

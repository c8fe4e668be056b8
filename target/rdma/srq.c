/* SPDX-License-Identifier: MIT */
/*
 * Shared receives of a device context: one SRQ per poll group and RDMA
 * device, its receive set (a 64-byte capsule and an in-capsule buffer
 * each), and the qp_num -> queue map by which a receive completion finds
 * its queue.
 *
 * Why: with a receive queue per connection, every queue entry of every
 * connection pins a capsule and an in-capsule buffer (8 KiB by default),
 * idle or not: about 1 MiB per I/O queue of depth 128. With the SRQ the
 * group's connections draw from one set sized for the traffic (srq_depth,
 * 1024 by default, as nvmet-rdma's srq_size), and a connection costs only
 * its requests and its send queue.
 *
 * What changes for a receive: it belongs to no queue until it completes;
 * the completion's qp_num names the QP that consumed it (a lookup, where
 * every other completion finds its object from wr_id: an SRQ receive is
 * posted before anyone knows who will fill it). It goes back to the SRQ
 * when its request no longer needs the capsule (as per-queue receives go
 * back to their QP), when its queue is gone or going, or when its command
 * is dropped. A host that finds the SRQ empty is told "receiver not
 * ready" and retries (the Linux host and rblk's initiator retry forever:
 * rnr_retry 7), so overcommitting it costs latency, never commands.
 *
 * Teardown: a QP leaves the map before it is destroyed; completions that
 * are still in the CQ for it find no queue and are reposted. The group
 * drains the receive CQ right after destroying a QP, before any new QP
 * (which could be given the same number) is created on its thread.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "target/rdma/rdma.h"

/* ------------------------------------------------------------------------ */
/* qp_num -> queue: open addressing, linear probing, backward-shift removal. */

static uint32_t qpn_hash(uint32_t qpn, uint32_t mask)
{
	return (qpn * 2654435761u) & mask;
}

static int map_grow(struct rblk_rdma_qpn_map *m)
{
	uint32_t cap = m->cap ? m->cap * 2 : 64;
	struct rblk_rdma_qpn_slot *old = m->slot, *slot = rblk_calloc_lines(cap, sizeof(*slot));
	uint32_t ocap = m->cap;

	if (!slot)
		return -ENOMEM;
	m->slot = slot;
	m->cap = cap;
	m->n = 0;
	for (uint32_t i = 0; i < ocap; i++)
		if (old[i].q)
			rblk_rdma_qpn_map_add(m, old[i].qpn, old[i].q);
	free(old);
	return 0;
}

int rblk_rdma_qpn_map_add(struct rblk_rdma_qpn_map *m, uint32_t qpn, struct rblk_rdma_queue *q)
{
	uint32_t i;
	int ret;

	/* At most half full: probes stay short. */
	if ((m->n + 1) * 2 > m->cap) {
		ret = map_grow(m);
		if (ret)
			return ret;
	}
	for (i = qpn_hash(qpn, m->cap - 1); m->slot[i].q; i = (i + 1) & (m->cap - 1))
		if (m->slot[i].qpn == qpn)
			return -EEXIST;
	m->slot[i].qpn = qpn;
	m->slot[i].q = q;
	m->n++;
	return 0;
}

struct rblk_rdma_queue *rblk_rdma_qpn_map_get(const struct rblk_rdma_qpn_map *m, uint32_t qpn)
{
	if (!m->n)
		return NULL;
	for (uint32_t i = qpn_hash(qpn, m->cap - 1); m->slot[i].q; i = (i + 1) & (m->cap - 1))
		if (m->slot[i].qpn == qpn)
			return m->slot[i].q;
	return NULL;
}

void rblk_rdma_qpn_map_del(struct rblk_rdma_qpn_map *m, uint32_t qpn)
{
	uint32_t mask = m->cap - 1, i, j;

	if (!m->n)
		return;
	for (i = qpn_hash(qpn, mask); m->slot[i].q; i = (i + 1) & mask)
		if (m->slot[i].qpn == qpn)
			break;
	if (!m->slot[i].q)
		return;
	/* Shift back the entries whose probe passed through the hole. */
	for (j = (i + 1) & mask; m->slot[j].q; j = (j + 1) & mask) {
		uint32_t home = qpn_hash(m->slot[j].qpn, mask);

		/* j stays if its home lies cyclically in (i, j]. */
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		m->slot[i] = m->slot[j];
		i = j;
	}
	m->slot[i].q = NULL;
	m->slot[i].qpn = 0;
	m->n--;
}

void rblk_rdma_qpn_map_fini(struct rblk_rdma_qpn_map *m)
{
	free(m->slot);
	memset(m, 0, sizeof(*m));
}

/* ------------------------------------------------------------------------ */
/* The receive set.                                                          */

int rblk_rdma_srq_create(struct rblk_pg_dev *dev, uint32_t depth, uint32_t icd_size)
{
	struct rblk_rdma_srq *s;
	int ret;

	if (dev->attr.max_srq_wr && depth > dev->attr.max_srq_wr)
		depth = dev->attr.max_srq_wr;
	s = rblk_calloc_lines(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->dev = dev;
	s->depth = depth;
	s->icd_size = icd_size;
	STAILQ_INIT(&s->idle);
	s->recvs = rblk_calloc_lines(depth, sizeof(*s->recvs));
	s->staged = rblk_calloc_lines(depth, sizeof(*s->staged));
	if (!s->recvs || !s->staged) {
		ret = -ENOMEM;
		goto fail;
	}
	/* Each completion of a receive lands on the receive CQ: reserve them once. */
	ret = rblk_pg_dev_reserve_cq(dev, 0, depth, NULL);
	if (ret)
		goto fail;
	s->rcq_slots = depth;
	ret = rblk_srq_create(dev->pd, depth, icd_size ? 2 : 1, &s->srq);
	if (ret)
		goto fail;
	ret = rblk_mr_pool_create_ex(dev->pd, RBLK_RDMA_CAPSULE_SIZE, depth,
				     RBLK_ACCESS_LOCAL_WRITE, RBLK_MR_POOL_NO_HUGETLB, &s->capsules);
	if (!ret && icd_size)
		ret = rblk_mr_pool_create_ex(dev->pd, icd_size, depth, RBLK_ACCESS_LOCAL_WRITE, 0,
					     &s->icd);
	if (ret)
		goto fail;
	for (uint32_t i = 0; i < depth; i++) {
		struct rblk_rdma_recv *rv = &s->recvs[i];

		rv->srq = s;
		rv->capsule = rblk_mr_pool_unit(s->capsules, i);
		rv->icd = s->icd ? rblk_mr_pool_unit(s->icd, i) : NULL;
		rblk_rdma_srq_repost(rv);
	}
	rblk_rdma_srq_flush(s);
	if (s->posted != depth) {
		ret = -EIO;
		goto fail;
	}
	dev->srq = s;
	return 0;

fail:
	/* Nothing completed on it yet: the receives go with the SRQ. */
	s->posted = 0;
	dev->srq = s;
	rblk_rdma_srq_destroy(dev);
	return ret;
}

void rblk_rdma_srq_destroy(struct rblk_pg_dev *dev)
{
	struct rblk_rdma_srq *s = dev->srq;

	if (!s)
		return;
	assert(!s->map.n);
	rblk_srq_destroy(s->srq);
	rblk_mr_pool_destroy(s->icd);
	rblk_mr_pool_destroy(s->capsules);
	if (s->rcq_slots)
		rblk_pg_dev_release_cq(dev, NULL, 0, s->rcq_slots);
	rblk_rdma_qpn_map_fini(&s->map);
	free(s->staged);
	free(s->recvs);
	free(s);
	dev->srq = NULL;
}

void rblk_rdma_srq_repost(struct rblk_rdma_recv *rv)
{
	struct rblk_rdma_srq *s = rv->srq;
	struct rblk_sge sge[2];
	unsigned n;

	assert(s && !rv->posted);
	if (rv->q) {
		assert(rv->q->recvs_held > 0);
		rv->q->recvs_held--;
	}
	rv->q = NULL;
	n = rblk_rdma_recv_sges(rv, s->capsules, s->icd, s->icd_size, sge);
	/* Staging holds the whole set: only a bug makes this fail. */
	if (rblk_srq_queue_recv(s->srq, rblk_rdma_wr_id(rv, RBLK_RDMA_WR_RECV), sge, n)) {
		STAILQ_INSERT_TAIL(&s->idle, rv, link);
		return;
	}
	rv->posted = true;
	s->staged[s->nstaged++] = rv;
}

void rblk_rdma_srq_flush(struct rblk_rdma_srq *s)
{
	unsigned staged = s->nstaged, posted = 0;
	int ret;

	if (!staged)
		return;
	ret = rblk_srq_flush(s->srq, &posted);
	s->nstaged = 0;
	s->posted += posted;
	if (!ret)
		return;
	/* The rest never reached the SRQ: kept idle, retried by the next flush. */
	for (unsigned i = posted; i < staged; i++) {
		s->staged[i]->posted = false;
		STAILQ_INSERT_TAIL(&s->idle, s->staged[i], link);
	}
	RBLK_ERR("poll group %u: posting %u shared receives failed after %u: %s",
		 s->dev->pg->opts.id, staged, posted, strerror(-ret));
}

void rblk_rdma_srq_retry_idle(struct rblk_rdma_srq *s)
{
	STAILQ_HEAD(, rblk_rdma_recv) again = STAILQ_HEAD_INITIALIZER(again);
	struct rblk_rdma_recv *rv;

	STAILQ_CONCAT(&again, &s->idle);
	while ((rv = STAILQ_FIRST(&again))) {
		STAILQ_REMOVE_HEAD(&again, link);
		rblk_rdma_srq_repost(rv);
	}
}

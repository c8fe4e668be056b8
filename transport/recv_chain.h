/* SPDX-License-Identifier: MIT */
/*
 * Private to transport/: receive WRs staged for one post, the part a QP's
 * receive queue (qp.c) and a shared receive queue (srq.c) have in common.
 * Arrays are sized at init, so adding never allocates; SGEs are copied so
 * callers may build them on the stack; WRs are linked as they are added.
 */
#ifndef RBLK_TRANSPORT_RECV_CHAIN_H
#define RBLK_TRANSPORT_RECV_CHAIN_H

#include <infiniband/verbs.h>

#include "transport/rdma.h"

struct rblk_recv_chain {
	unsigned cap;		/* WRs */
	unsigned n;		/* staged now */
	unsigned max_sge;	/* SGE slots per WR */
	struct ibv_recv_wr *wr;	/* [cap] */
	struct ibv_sge *sge;	/* [cap * max_sge] */
};

/* Room for cap WRs (at least one slot) of max_sge SGEs (at least one). 0 or -ENOMEM. */
int rblk_recv_chain_init(struct rblk_recv_chain *c, unsigned cap, unsigned max_sge);
void rblk_recv_chain_fini(struct rblk_recv_chain *c);
/* 0, -EINVAL (more SGEs than max_sge), -ENOBUFS (full). */
int rblk_recv_chain_add(struct rblk_recv_chain *c, uint64_t wr_id, const struct rblk_sge *sge,
			uint32_t num_sge);
/*
 * After the chain was posted with result ret (0 or -errno) and the
 * provider's bad WR: how many WRs reached the queue. Empties the chain.
 */
unsigned rblk_recv_chain_posted(struct rblk_recv_chain *c, int ret, const struct ibv_recv_wr *bad);

#endif

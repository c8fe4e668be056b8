/* SPDX-License-Identifier: MIT */
/* Private to transport/: the verbs CQ under an rblk_cq (qp.c needs it for rdma_create_qp). */
#ifndef RBLK_TRANSPORT_CQ_PRIV_H
#define RBLK_TRANSPORT_CQ_PRIV_H

struct ibv_cq;
struct rblk_cq;

struct ibv_cq *rblk_cq_ibv(struct rblk_cq *cq);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Private to transport/ and its unit tests: the verbs SRQ under an
 * rblk_srq (qp.c attaches QPs to it), and an SRQ's staging without a verbs
 * SRQ behind it, whose flush returns -ENOTCONN.
 */
#ifndef RBLK_TRANSPORT_SRQ_PRIV_H
#define RBLK_TRANSPORT_SRQ_PRIV_H

#include <infiniband/verbs.h>

#include "transport/rdma.h"

struct ibv_srq *rblk_srq_ibv(struct rblk_srq *srq);
int rblk_srq_staging_create(uint32_t max_wr, uint32_t max_sge, struct rblk_srq **out);
struct ibv_recv_wr *rblk_srq_staged_head(struct rblk_srq *srq);

#endif

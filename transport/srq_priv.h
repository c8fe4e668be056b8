/* SPDX-License-Identifier: MIT */
/* Private to transport/: the verbs SRQ under an rblk_srq (qp.c attaches QPs to it). */
#ifndef RBLK_TRANSPORT_SRQ_PRIV_H
#define RBLK_TRANSPORT_SRQ_PRIV_H

#include <infiniband/verbs.h>

#include "transport/rdma.h"

struct ibv_srq *rblk_srq_ibv(struct rblk_srq *srq);

#endif

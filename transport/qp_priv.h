/* SPDX-License-Identifier: MIT */
/*
 * Private to transport/ and its unit tests: a QP's staging without a verbs
 * QP behind it, so queueing rules and chain building are tested on machines
 * without RDMA. Flushing such a QP returns -ENOTCONN.
 */
#ifndef RBLK_TRANSPORT_QP_PRIV_H
#define RBLK_TRANSPORT_QP_PRIV_H

#include <infiniband/verbs.h>

#include "transport/rdma.h"

int rblk_qp_staging_create(const struct rblk_qp_caps *caps, struct rblk_qp **out);
/* Heads of the staged chains (NULL when empty). */
struct ibv_send_wr *rblk_qp_staged_send_head(struct rblk_qp *qp);
struct ibv_recv_wr *rblk_qp_staged_recv_head(struct rblk_qp *qp);

#endif

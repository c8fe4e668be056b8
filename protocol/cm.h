/* SPDX-License-Identifier: MIT */
/*
 * RDMA CM private data of NVMe/RDMA: the connect request the host sends
 * (validated with nvmet-rdma's rules, docs/interop.md §2.3), the accept and
 * reject blobs the target answers with, and their decoders for the host.
 */
#ifndef RBLK_PROTOCOL_CM_H
#define RBLK_PROTOCOL_CM_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/nvme_rdma.h"

struct rblk_cm_req_info {
	uint16_t qid;
	uint16_t hrqsize; /* 1-based: host receive queue = our send depth for CQEs */
	uint16_t hsqsize; /* 0-based: we need hsqsize + 1 receive buffers */
	uint16_t cntlid;  /* 0 when absent (the Linux host always sends 0) */
};

/*
 * Validate the connect request private data (priv may be unaligned, len may
 * exceed 32: the CM pads it). Returns 0 and fills out, or the positive
 * NVME_RDMA_CM_* status to reject with:
 *  - priv NULL or len < 8                 NVME_RDMA_CM_INVALID_LEN
 *  - RECFMT != 0                          NVME_RDMA_CM_INVALID_RECFMT
 *  - qid 0 and HSQSIZE + 1 > 32           NVME_RDMA_CM_INVALID_HSQSIZE
 *  - HRQSIZE 0                            NVME_RDMA_CM_INVALID_HRQSIZE
 */
int rblk_cm_req_decode(const void *priv, size_t len, struct rblk_cm_req_info *out);

/* Host side: build the 32-byte request. -EINVAL when hrqsize is 0. */
int rblk_cm_req_encode(struct nvme_rdma_cm_req *req, const struct rblk_cm_req_info *info);

/* Accept: RECFMT 0, CRQSIZE (nvmet uses HSQSIZE + 1). */
void rblk_cm_rep_encode(struct nvme_rdma_cm_rep *rep, uint16_t crqsize);

/* -EINVAL when priv is NULL, shorter than 4 bytes or RECFMT != 0. */
int rblk_cm_rep_decode(const void *priv, size_t len, uint16_t *crqsize);

void rblk_cm_rej_encode(struct nvme_rdma_cm_rej *rej, uint16_t sts);

/* -EINVAL when priv is NULL or shorter than 4 bytes (RECFMT is not checked). */
int rblk_cm_rej_decode(const void *priv, size_t len, uint16_t *sts);

/* "invalid HSQSIZE", ...; "unknown" for other values. Never NULL. */
const char *rblk_cm_rej_str(uint16_t sts);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * NVMe/RDMA transport binding: the RDMA CM private data exchanged when a
 * queue connects (request, accept, reject) and the reject status codes.
 * Sizes are fixed by the binding: 32-byte request and accept, 4-byte reject.
 *
 * HRQSIZE is 1-based, HSQSIZE is 0-based (the Linux interpretation, which
 * SPDK copies); see docs/interop.md §2.1.
 */
#ifndef RBLK_PROTOCOL_NVME_RDMA_H
#define RBLK_PROTOCOL_NVME_RDMA_H

#include <stddef.h>
#include <stdint.h>

#define NVME_RDMA_CM_FMT_1_0 0
#define NVME_RDMA_CM_REQ_MIN_LEN 8 /* recfmt, qid, hrqsize, hsqsize */
#define NVME_RDMA_ADMIN_HSQSIZE_MAX 31 /* 0-based: nvmet rejects admin hsqsize+1 > 32 */
#define NVME_RDMA_ADMIN_HRQSIZE 32

/* Connect request: host -> target, rdma_connect() private data. */
struct nvme_rdma_cm_req {
	uint16_t recfmt;
	uint16_t qid;
	uint16_t hrqsize; /* 1-based */
	uint16_t hsqsize; /* 0-based */
	uint16_t cntlid;  /* the Linux host sends 0; do not rely on it */
	uint8_t rsvd[22];
};
_Static_assert(sizeof(struct nvme_rdma_cm_req) == 32, "cm req size");
_Static_assert(offsetof(struct nvme_rdma_cm_req, qid) == 2, "cm req qid");
_Static_assert(offsetof(struct nvme_rdma_cm_req, hrqsize) == 4, "cm req hrqsize");
_Static_assert(offsetof(struct nvme_rdma_cm_req, hsqsize) == 6, "cm req hsqsize");
_Static_assert(offsetof(struct nvme_rdma_cm_req, cntlid) == 8, "cm req cntlid");

/* Accept: target -> host, rdma_accept() private data. */
struct nvme_rdma_cm_rep {
	uint16_t recfmt;
	uint16_t crqsize;
	uint8_t rsvd[28];
};
_Static_assert(sizeof(struct nvme_rdma_cm_rep) == 32, "cm rep size");
_Static_assert(offsetof(struct nvme_rdma_cm_rep, crqsize) == 2, "cm rep crqsize");

/* Reject: target -> host, rdma_reject() private data. */
struct nvme_rdma_cm_rej {
	uint16_t recfmt;
	uint16_t sts;
};
_Static_assert(sizeof(struct nvme_rdma_cm_rej) == 4, "cm rej size");
_Static_assert(offsetof(struct nvme_rdma_cm_rej, sts) == 2, "cm rej sts");

enum nvme_rdma_cm_status {
	NVME_RDMA_CM_INVALID_LEN = 0x01,
	NVME_RDMA_CM_INVALID_RECFMT = 0x02,
	NVME_RDMA_CM_INVALID_QID = 0x03,
	NVME_RDMA_CM_INVALID_HSQSIZE = 0x04,
	NVME_RDMA_CM_INVALID_HRQSIZE = 0x05,
	NVME_RDMA_CM_NO_RSC = 0x06,
	NVME_RDMA_CM_INVALID_IRD = 0x07,
	NVME_RDMA_CM_INVALID_ORD = 0x08,
};

#endif

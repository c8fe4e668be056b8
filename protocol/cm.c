/* SPDX-License-Identifier: MIT */
/*
 * NVMe/RDMA CM private data encode/decode. Reads are byte-wise: the CM hands
 * the private data over at whatever alignment it has, and pads it (so len is
 * a lower bound on meaningful bytes, not an exact size).
 */
#include <errno.h>
#include <string.h>

#include "protocol/cm.h"
#include "protocol/le.h"

int rblk_cm_req_decode(const void *priv, size_t len, struct rblk_cm_req_info *out)
{
	const uint8_t *p = priv;

	memset(out, 0, sizeof(*out));
	if (!p || len < NVME_RDMA_CM_REQ_MIN_LEN)
		return NVME_RDMA_CM_INVALID_LEN;
	if (rblk_get_le16(p + offsetof(struct nvme_rdma_cm_req, recfmt)) != NVME_RDMA_CM_FMT_1_0)
		return NVME_RDMA_CM_INVALID_RECFMT;
	out->qid = rblk_get_le16(p + offsetof(struct nvme_rdma_cm_req, qid));
	out->hrqsize = rblk_get_le16(p + offsetof(struct nvme_rdma_cm_req, hrqsize));
	out->hsqsize = rblk_get_le16(p + offsetof(struct nvme_rdma_cm_req, hsqsize));
	if (len >= offsetof(struct nvme_rdma_cm_req, cntlid) + 2)
		out->cntlid = rblk_get_le16(p + offsetof(struct nvme_rdma_cm_req, cntlid));
	/* The admin queue is fixed at 32 entries by the binding (nvmet enforces it). */
	if (out->qid == 0 && (uint32_t)out->hsqsize + 1 > NVME_RDMA_ADMIN_HSQSIZE_MAX + 1)
		return NVME_RDMA_CM_INVALID_HSQSIZE;
	if (out->hrqsize == 0)
		return NVME_RDMA_CM_INVALID_HRQSIZE;
	return 0;
}

int rblk_cm_req_encode(struct nvme_rdma_cm_req *req, const struct rblk_cm_req_info *info)
{
	memset(req, 0, sizeof(*req));
	if (info->hrqsize == 0)
		return -EINVAL;
	req->recfmt = rblk_cpu_to_le16(NVME_RDMA_CM_FMT_1_0);
	req->qid = rblk_cpu_to_le16(info->qid);
	req->hrqsize = rblk_cpu_to_le16(info->hrqsize);
	req->hsqsize = rblk_cpu_to_le16(info->hsqsize);
	req->cntlid = rblk_cpu_to_le16(info->cntlid);
	return 0;
}

void rblk_cm_rep_encode(struct nvme_rdma_cm_rep *rep, uint16_t crqsize)
{
	memset(rep, 0, sizeof(*rep));
	rep->recfmt = rblk_cpu_to_le16(NVME_RDMA_CM_FMT_1_0);
	rep->crqsize = rblk_cpu_to_le16(crqsize);
}

int rblk_cm_rep_decode(const void *priv, size_t len, uint16_t *crqsize)
{
	const uint8_t *p = priv;

	if (!p || len < 4 || rblk_get_le16(p) != NVME_RDMA_CM_FMT_1_0)
		return -EINVAL;
	*crqsize = rblk_get_le16(p + offsetof(struct nvme_rdma_cm_rep, crqsize));
	return 0;
}

void rblk_cm_rej_encode(struct nvme_rdma_cm_rej *rej, uint16_t sts)
{
	rej->recfmt = rblk_cpu_to_le16(NVME_RDMA_CM_FMT_1_0);
	rej->sts = rblk_cpu_to_le16(sts);
}

int rblk_cm_rej_decode(const void *priv, size_t len, uint16_t *sts)
{
	const uint8_t *p = priv;

	if (!p || len < sizeof(struct nvme_rdma_cm_rej))
		return -EINVAL;
	*sts = rblk_get_le16(p + offsetof(struct nvme_rdma_cm_rej, sts));
	return 0;
}

const char *rblk_cm_rej_str(uint16_t sts)
{
	switch (sts) {
	case NVME_RDMA_CM_INVALID_LEN: return "invalid private data length";
	case NVME_RDMA_CM_INVALID_RECFMT: return "invalid record format";
	case NVME_RDMA_CM_INVALID_QID: return "invalid queue ID";
	case NVME_RDMA_CM_INVALID_HSQSIZE: return "invalid host SQ size";
	case NVME_RDMA_CM_INVALID_HRQSIZE: return "invalid host RQ size";
	case NVME_RDMA_CM_NO_RSC: return "resource not found";
	case NVME_RDMA_CM_INVALID_IRD: return "invalid IRD";
	case NVME_RDMA_CM_INVALID_ORD: return "invalid ORD";
	}
	return "unknown";
}

/* SPDX-License-Identifier: MIT */
/*
 * CM decisions of the NVMe/RDMA target: what to answer a CONNECT_REQUEST
 * (docs/interop.md §2.3/2.4), and the rdma_accept parameters. Pure: no verbs,
 * no state, so every accept/reject rule is unit-tested.
 */
#include <string.h>

#include "protocol/cm.h"
#include "target/rdma/rdma.h"

int rblk_rdma_conn_decide(const void *priv, size_t len, uint8_t ev_initiator_depth,
			  const struct rblk_rdma_conn_limits *lim, struct rblk_rdma_conn_plan *out)
{
	struct rblk_cm_req_info info;
	uint32_t depth, max;
	int sts;

	memset(out, 0, sizeof(*out));
	/* Length, RECFMT, admin HSQSIZE + 1 <= 32, HRQSIZE != 0: nvmet's rules. */
	sts = rblk_cm_req_decode(priv, len, &info);
	if (sts)
		return sts;

	/*
	 * A QID that no controller here can ever connect is refused now, with
	 * the status the binding has for it. nvmet leaves it to the Connect
	 * (Invalid Parameters), but until then such a queue holds receive
	 * buffers, requests and CQ entries for nothing; no honest host asks for
	 * it (Set Features Number of Queues never grants more than max_qid).
	 */
	if (info.qid > lim->max_qid)
		return NVME_RDMA_CM_INVALID_QID;

	/*
	 * We allocate HSQSIZE + 1 receives and requests, so bound it by what
	 * the target advertises (CAP.MQES + 1 for I/O queues; the admin queue
	 * by its own limit). nvmet has no CM-level bound on I/O queues, but a
	 * Linux host never asks for more than MQES + 1 (it read CAP first).
	 */
	depth = (uint32_t)info.hsqsize + 1;
	max = info.qid ? lim->max_queue_depth : lim->max_admin_queue_depth;
	if (depth < 2 || depth > max)
		return NVME_RDMA_CM_INVALID_HSQSIZE;

	/*
	 * Our RDMA READs (host writes) need the host's responder resources:
	 * with 0 they could never run (SPDK rejects such a host the same way).
	 */
	if (!ev_initiator_depth || !lim->dev_max_init_rd_atom)
		return NVME_RDMA_CM_INVALID_IRD;

	out->qid = info.qid;
	out->depth = (uint16_t)depth;
	out->hrqsize = info.hrqsize;
	out->initiator_depth = ev_initiator_depth < lim->dev_max_init_rd_atom
				       ? ev_initiator_depth
				       : (uint8_t)(lim->dev_max_init_rd_atom > 255
							   ? 255
							   : lim->dev_max_init_rd_atom);
	if (out->initiator_depth > RBLK_RDMA_MAX_READ_DEPTH)
		out->initiator_depth = RBLK_RDMA_MAX_READ_DEPTH;
	out->crqsize = (uint16_t)depth; /* nvmet: HSQSIZE + 1 */
	return 0;
}

void rblk_rdma_conn_accept_param(const struct rblk_rdma_conn_plan *plan,
				 struct nvme_rdma_cm_rep *rep, struct rblk_conn_param *out)
{
	rblk_cm_rep_encode(rep, plan->crqsize);
	memset(out, 0, sizeof(*out));
	out->private_data = rep;
	out->private_data_len = sizeof(*rep);
	/* The host never issues RDMA READs at us: no responder resources. */
	out->responder_resources = 0;
	out->initiator_depth = plan->initiator_depth;
	out->flow_control = 1;
	out->rnr_retry_count = 7;
}

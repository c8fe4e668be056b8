/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/rdma/conn.c: which CONNECT_REQUEST is accepted with which
 * plan, which is rejected with which NVMe/RDMA status (docs/interop.md §2),
 * and the rdma_accept parameters and private data.
 */
#include <string.h>

#include "protocol/cm.h"
#include "target/rdma/rdma.h"
#include "ut.h"

static const struct rblk_rdma_conn_limits lim = {
	.max_queue_depth = 128,
	.max_admin_queue_depth = 32,
	.max_qid = 64,
	.dev_max_init_rd_atom = 128,
};

/* The 32-byte request, padded the way the CM pads it (56 bytes on RoCE). */
static void req(uint8_t buf[56], uint16_t recfmt, uint16_t qid, uint16_t hrqsize,
		uint16_t hsqsize)
{
	memset(buf, 0, 56);
	buf[0] = (uint8_t)recfmt;
	buf[1] = (uint8_t)(recfmt >> 8);
	buf[2] = (uint8_t)qid;
	buf[3] = (uint8_t)(qid >> 8);
	buf[4] = (uint8_t)hrqsize;
	buf[5] = (uint8_t)(hrqsize >> 8);
	buf[6] = (uint8_t)hsqsize;
	buf[7] = (uint8_t)(hsqsize >> 8);
}

static void test_linux_admin_queue_accepted(void)
{
	struct rblk_rdma_conn_plan plan;
	uint8_t p[56];

	/* What nvme_rdma sends for the admin queue: HRQSIZE 32, HSQSIZE 31. */
	req(p, 0, 0, 32, 31);
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 56, 128, &lim, &plan), 0);
	CU_ASSERT_EQUAL(plan.qid, 0);
	CU_ASSERT_EQUAL(plan.depth, 32);
	CU_ASSERT_EQUAL(plan.hrqsize, 32);
	CU_ASSERT_EQUAL(plan.crqsize, 32);
	/* Soft-RoCE's 128 responder resources: we keep at most 16 READs outstanding. */
	CU_ASSERT_EQUAL(plan.initiator_depth, RBLK_RDMA_MAX_READ_DEPTH);
	CU_ASSERT_EQUAL(RBLK_RDMA_MAX_READ_DEPTH, 16);
}

static void test_linux_io_queue_accepted(void)
{
	struct rblk_rdma_conn_plan plan;
	uint8_t p[56];

	/* Linux default queue_size 128: HSQSIZE 127 (0-based), HRQSIZE 128. */
	req(p, 0, 3, 128, 127);
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 32, 128, &lim, &plan), 0);
	CU_ASSERT_EQUAL(plan.qid, 3);
	CU_ASSERT_EQUAL(plan.depth, 128);
	CU_ASSERT_EQUAL(plan.crqsize, 128);
	CU_ASSERT_EQUAL(plan.hrqsize, 128);
}

static void test_short_or_missing_private_data_rejected(void)
{
	struct rblk_rdma_conn_plan plan;
	uint8_t p[56];

	req(p, 0, 1, 128, 127);
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(NULL, 0, 128, &lim, &plan), NVME_RDMA_CM_INVALID_LEN);
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 0, 128, &lim, &plan), NVME_RDMA_CM_INVALID_LEN);
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 7, 128, &lim, &plan), NVME_RDMA_CM_INVALID_LEN);
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 8, 128, &lim, &plan), 0);
}

static void test_bad_recfmt_rejected(void)
{
	struct rblk_rdma_conn_plan plan;
	uint8_t p[56];

	req(p, 1, 1, 128, 127);
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 32, 128, &lim, &plan),
			NVME_RDMA_CM_INVALID_RECFMT);
}

static void test_queue_sizes_bounded(void)
{
	struct rblk_rdma_conn_plan plan;
	uint8_t p[56];

	/* Admin: nvmet's HSQSIZE + 1 <= 32. */
	req(p, 0, 0, 32, 32);
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 32, 128, &lim, &plan),
			NVME_RDMA_CM_INVALID_HSQSIZE);
	/* I/O: at most CAP.MQES + 1 = max_queue_depth receives. */
	req(p, 0, 1, 129, 128);
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 32, 128, &lim, &plan),
			NVME_RDMA_CM_INVALID_HSQSIZE);
	/* A one-entry queue is not a queue. */
	req(p, 0, 1, 1, 0);
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 32, 128, &lim, &plan),
			NVME_RDMA_CM_INVALID_HSQSIZE);
	/* HRQSIZE is 1-based: 0 is invalid. */
	req(p, 0, 1, 0, 15);
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 32, 128, &lim, &plan),
			NVME_RDMA_CM_INVALID_HRQSIZE);
	/* A smaller I/O queue is fine. */
	req(p, 0, 1, 16, 15);
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 32, 128, &lim, &plan), 0);
	CU_ASSERT_EQUAL(plan.depth, 16);
}

static void test_qid_bounded(void)
{
	struct rblk_rdma_conn_plan plan;
	uint8_t p[56];

	/* The last I/O queue a controller can have is accepted... */
	req(p, 0, 64, 128, 127);
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 56, 128, &lim, &plan), 0);
	CU_ASSERT_EQUAL(plan.qid, 64);
	/* ...one past it, and 0xFFFF, are refused with "invalid QID". */
	req(p, 0, 65, 128, 127);
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 56, 128, &lim, &plan), NVME_RDMA_CM_INVALID_QID);
	req(p, 0, 0xFFFF, 128, 127);
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 56, 128, &lim, &plan), NVME_RDMA_CM_INVALID_QID);
}

static void test_read_depth(void)
{
	struct rblk_rdma_conn_plan plan;
	struct rblk_rdma_conn_limits small = lim;
	uint8_t p[56];

	req(p, 0, 1, 128, 127);
	/* No responder resources at the host: our RDMA READs could never run. */
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 32, 0, &lim, &plan), NVME_RDMA_CM_INVALID_IRD);
	/* min(the host's responder resources, the device's max_qp_init_rd_atom). */
	small.dev_max_init_rd_atom = 8;
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 32, 200, &small, &plan), 0);
	CU_ASSERT_EQUAL(plan.initiator_depth, 8);
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 32, 4, &small, &plan), 0);
	CU_ASSERT_EQUAL(plan.initiator_depth, 4);
	/* ... and never more than RBLK_RDMA_MAX_READ_DEPTH. */
	small.dev_max_init_rd_atom = 128;
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 32, 200, &small, &plan), 0);
	CU_ASSERT_EQUAL(plan.initiator_depth, RBLK_RDMA_MAX_READ_DEPTH);
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 32, 17, &small, &plan), 0);
	CU_ASSERT_EQUAL(plan.initiator_depth, RBLK_RDMA_MAX_READ_DEPTH);
	small.dev_max_init_rd_atom = 0;
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 32, 4, &small, &plan), NVME_RDMA_CM_INVALID_IRD);
}

static void test_accept_param(void)
{
	struct rblk_rdma_conn_plan plan;
	struct nvme_rdma_cm_rep rep;
	struct rblk_conn_param param;
	const uint8_t *b = (const uint8_t *)&rep;
	uint16_t crq = 0;
	uint8_t p[56];

	req(p, 0, 2, 64, 63);
	CU_ASSERT_EQUAL(rblk_rdma_conn_decide(p, 32, 128, &lim, &plan), 0);
	memset(&rep, 0xAA, sizeof(rep));
	rblk_rdma_conn_accept_param(&plan, &rep, &param);
	CU_ASSERT_PTR_EQUAL(param.private_data, &rep);
	CU_ASSERT_EQUAL(param.private_data_len, 32);
	/* RECFMT 0, CRQSIZE = HSQSIZE + 1 little-endian at offset 2, rest zero. */
	CU_ASSERT_EQUAL(b[0], 0);
	CU_ASSERT_EQUAL(b[1], 0);
	CU_ASSERT_EQUAL(b[2], 64);
	CU_ASSERT_EQUAL(b[3], 0);
	for (int i = 4; i < 32; i++)
		CU_ASSERT_EQUAL(b[i], 0);
	CU_ASSERT_EQUAL(rblk_cm_rep_decode(&rep, sizeof(rep), &crq), 0);
	CU_ASSERT_EQUAL(crq, 64);
	/* The host never reads from us; we read from it (host writes). */
	CU_ASSERT_EQUAL(param.responder_resources, 0);
	CU_ASSERT_EQUAL(param.initiator_depth, RBLK_RDMA_MAX_READ_DEPTH);
	CU_ASSERT_EQUAL(param.rnr_retry_count, 7);
	CU_ASSERT_EQUAL(param.flow_control, 1);
}

static const struct ut_case cases[] = {
	UT_CASE(test_linux_admin_queue_accepted),
	UT_CASE(test_linux_io_queue_accepted),
	UT_CASE(test_short_or_missing_private_data_rejected),
	UT_CASE(test_bad_recfmt_rejected),
	UT_CASE(test_queue_sizes_bounded),
	UT_CASE(test_qid_bounded),
	UT_CASE(test_read_depth),
	UT_CASE(test_accept_param),
	UT_END,
};

UT_MAIN("target/rdma_conn", cases)

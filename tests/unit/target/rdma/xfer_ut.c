/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/rdma/xfer.c: WR chain building (several pool units over
 * SGEs and, past the SGE limit, over several WRs, each covering the next
 * part of the host's contiguous range), the response SEND and
 * SEND_WITH_INV, and the staged-WR log a failed flush relies on.
 */
#include <stdlib.h>
#include <string.h>

#include "fake.h"
#include "ut.h"

static uint8_t bufs[RBLK_REQ_MAX_IOV + 1][4096];

static unsigned iovs(struct iovec *iov, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = sizeof(bufs[i]);
	}
	return n;
}

static void test_data_wrs(void)
{
	CU_ASSERT_EQUAL(rblk_rdma_data_wrs(1, 1), 1);
	CU_ASSERT_EQUAL(rblk_rdma_data_wrs(16, 1), 16);
	CU_ASSERT_EQUAL(rblk_rdma_data_wrs(16, 32), 1);
	CU_ASSERT_EQUAL(rblk_rdma_data_wrs(5, 2), 3);
	CU_ASSERT_EQUAL(rblk_rdma_data_wrs(4, 2), 2);
	CU_ASSERT_EQUAL(rblk_rdma_data_wrs(3, 0), 3); /* no SGE limit given: one each */
}

static void test_split_over_sges_and_wrs(void)
{
	struct rblk_rdma_chain c = { .nwr = 0 };
	struct iovec iov[5];

	iovs(iov, 5);
	/* 18000 bytes over 5 units (the last partly used), 2 SGEs per WR. */
	CU_ASSERT_EQUAL(rblk_rdma_chain_add_data(&c, RBLK_WR_RDMA_WRITE, iov, 5, 18000, 0x1111,
						 0xA0000, 0x2222, 2, 77, 0), 0);
	CU_ASSERT_EQUAL_FATAL(c.nwr, 3);
	CU_ASSERT_EQUAL(c.nsge, 5);
	CU_ASSERT_EQUAL(c.wr[0].num_sge, 2);
	CU_ASSERT_EQUAL(c.wr[0].remote_addr, 0xA0000);
	CU_ASSERT_EQUAL(c.wr[1].num_sge, 2);
	CU_ASSERT_EQUAL(c.wr[1].remote_addr, 0xA0000 + 8192);
	CU_ASSERT_EQUAL(c.wr[2].num_sge, 1);
	CU_ASSERT_EQUAL(c.wr[2].remote_addr, 0xA0000 + 16384);
	CU_ASSERT_EQUAL(c.wr[2].sge[0].length, 18000 - 16384);
	CU_ASSERT_EQUAL(c.wr[2].sge[0].addr, (uint64_t)(uintptr_t)bufs[4]);
	for (unsigned i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(c.wr[i].opcode, RBLK_WR_RDMA_WRITE);
		CU_ASSERT_EQUAL(c.wr[i].rkey, 0x2222);
		CU_ASSERT_EQUAL(c.wr[i].wr_id, 77);
		CU_ASSERT_EQUAL(c.wr[i].flags, 0);
		CU_ASSERT_EQUAL(c.wr[i].sge[0].lkey, 0x1111);
	}
	CU_ASSERT_EQUAL(c.wr[0].sge[1].addr, (uint64_t)(uintptr_t)bufs[1]);
	CU_ASSERT_EQUAL(c.wr[0].sge[1].length, 4096);
}

static void test_one_wr_when_sges_suffice(void)
{
	struct rblk_rdma_chain c = { .nwr = 0 };
	struct iovec iov[RBLK_REQ_MAX_IOV];

	iovs(iov, RBLK_REQ_MAX_IOV);
	CU_ASSERT_EQUAL(rblk_rdma_chain_add_data(&c, RBLK_WR_RDMA_READ, iov, RBLK_REQ_MAX_IOV,
						 RBLK_REQ_MAX_IOV * 4096, 1, 0x1000, 2, 32, 5,
						 RBLK_SEND_SIGNALED), 0);
	CU_ASSERT_EQUAL(c.nwr, 1);
	CU_ASSERT_EQUAL(c.wr[0].num_sge, RBLK_REQ_MAX_IOV);
	CU_ASSERT_EQUAL(c.wr[0].flags, RBLK_SEND_SIGNALED);
	/* One SGE per WR: one WR per unit, still within the chain. */
	c.nwr = c.nsge = 0;
	CU_ASSERT_EQUAL(rblk_rdma_chain_add_data(&c, RBLK_WR_RDMA_READ, iov, RBLK_REQ_MAX_IOV,
						 RBLK_REQ_MAX_IOV * 4096, 1, 0x1000, 2, 1, 5,
						 RBLK_SEND_SIGNALED), 0);
	CU_ASSERT_EQUAL(c.nwr, RBLK_REQ_MAX_IOV);
	CU_ASSERT_EQUAL(c.wr[15].remote_addr, 0x1000 + 15 * 4096);
}

static void test_bad_lengths(void)
{
	struct rblk_rdma_chain c = { .nwr = 0 };
	struct iovec iov[2];

	iovs(iov, 2);
	/* More bytes than the buffers hold: never a silent truncation. */
	CU_ASSERT_EQUAL(rblk_rdma_chain_add_data(&c, RBLK_WR_RDMA_WRITE, iov, 2, 8193, 1, 0, 2, 4,
						 0, 0), -EINVAL);
	c.nwr = c.nsge = 0;
	CU_ASSERT_EQUAL(rblk_rdma_chain_add_data(&c, RBLK_WR_RDMA_WRITE, iov, 2, 0, 1, 0, 2, 4, 0,
						 0), 0);
	CU_ASSERT_EQUAL(c.nwr, 0);
}

static void test_send_and_send_with_invalidate(void)
{
	struct rblk_rdma_chain c = { .nwr = 0 };
	struct nvme_cqe rsp = { 0 };

	CU_ASSERT_EQUAL(rblk_rdma_chain_add_send(&c, &rsp, 0x33, false, 0x4444, 9), 0);
	CU_ASSERT_EQUAL(c.wr[0].opcode, RBLK_WR_SEND);
	CU_ASSERT_EQUAL(c.wr[0].imm_or_inv_rkey, 0);
	CU_ASSERT_EQUAL(c.wr[0].flags, RBLK_SEND_SIGNALED);
	CU_ASSERT_EQUAL(c.wr[0].num_sge, 1);
	CU_ASSERT_EQUAL(c.wr[0].sge[0].addr, (uint64_t)(uintptr_t)&rsp);
	CU_ASSERT_EQUAL(c.wr[0].sge[0].length, 16);
	CU_ASSERT_EQUAL(c.wr[0].sge[0].lkey, 0x33);
	CU_ASSERT_EQUAL(rblk_rdma_chain_add_send(&c, &rsp, 0x33, true, 0x4444, 10), 0);
	CU_ASSERT_EQUAL(c.wr[1].opcode, RBLK_WR_SEND_WITH_INV);
	CU_ASSERT_EQUAL(c.wr[1].imm_or_inv_rkey, 0x4444);
	CU_ASSERT_EQUAL(c.wr[1].wr_id, 10);
}

static void test_wr_ids_carry_kind(void)
{
	static struct rblk_rdma_req r;

	CU_ASSERT_PTR_EQUAL(rblk_rdma_wr_obj(rblk_rdma_wr_id(&r, RBLK_RDMA_WR_SEND)), &r);
	CU_ASSERT_EQUAL(rblk_rdma_wr_kind(rblk_rdma_wr_id(&r, RBLK_RDMA_WR_SEND)),
			RBLK_RDMA_WR_SEND);
	CU_ASSERT_EQUAL(rblk_rdma_wr_kind(rblk_rdma_wr_id(&r, RBLK_RDMA_WR_READ)),
			RBLK_RDMA_WR_READ);
	CU_ASSERT_EQUAL(rblk_rdma_wr_kind(rblk_rdma_wr_id(&r, RBLK_RDMA_WR_WRITE)),
			RBLK_RDMA_WR_WRITE);
	CU_ASSERT_EQUAL(rblk_rdma_wr_kind(rblk_rdma_wr_id(&r, RBLK_RDMA_WR_RECV)),
			RBLK_RDMA_WR_RECV);
}

static void test_stage_logs_signaled_positions(void)
{
	struct rblk_rdma_queue q;
	struct rblk_rdma_req a, b;
	struct rblk_rdma_chain c = { .nwr = 0 };
	struct nvme_cqe rsp = { 0 };
	struct rblk_pg_dev dev = { .srq = NULL };
	struct iovec iov[2];

	memset(&q, 0, sizeof(q));
	q.dev = &dev;
	q.qp = calloc(1, sizeof(*q.qp));
	q.qp->caps.max_send_wr = 16;
	q.qp->caps.max_send_sge = 4;
	q.send_slots_max = 16;
	q.staged = calloc(16, sizeof(*q.staged));
	iovs(iov, 2);
	/* a: WRITE + SEND (only the SEND is signaled); b: a READ. */
	rblk_rdma_chain_add_data(&c, RBLK_WR_RDMA_WRITE, iov, 2, 8192, 1, 0, 2, 4,
				 rblk_rdma_wr_id(&a, RBLK_RDMA_WR_WRITE), 0);
	rblk_rdma_chain_add_send(&c, &rsp, 1, false, 0, rblk_rdma_wr_id(&a, RBLK_RDMA_WR_SEND));
	CU_ASSERT_EQUAL(rblk_rdma_stage_chain(&q, &a, &c), 0);
	c.nwr = c.nsge = 0;
	rblk_rdma_chain_add_data(&c, RBLK_WR_RDMA_READ, iov, 1, 4096, 1, 0, 2, 4,
				 rblk_rdma_wr_id(&b, RBLK_RDMA_WR_READ), RBLK_SEND_SIGNALED);
	CU_ASSERT_EQUAL(rblk_rdma_stage_chain(&q, &b, &c), 0);
	CU_ASSERT_EQUAL(q.qp->nstaged, 3);
	CU_ASSERT_EQUAL_FATAL(q.nstaged, 2);
	CU_ASSERT_PTR_EQUAL(q.staged[0].req, &a);
	CU_ASSERT_EQUAL(q.staged[0].kind, RBLK_RDMA_WR_SEND);
	CU_ASSERT_EQUAL(q.staged[0].pos, 1);
	CU_ASSERT_PTR_EQUAL(q.staged[1].req, &b);
	CU_ASSERT_EQUAL(q.staged[1].kind, RBLK_RDMA_WR_READ);
	CU_ASSERT_EQUAL(q.staged[1].pos, 2);
	/* A successful flush moves them to the in-flight count, in one post. */
	rblk_rdma_queue_flush(&q);
	CU_ASSERT_EQUAL(q.signaled_inflight, 2);
	CU_ASSERT_EQUAL(q.nstaged, 0);
	CU_ASSERT_EQUAL(q.qp->nposted, 3);
	CU_ASSERT_EQUAL(q.qp->send_flushes, 1);
	free(q.staged);
	free(q.qp);
}

static const struct ut_case cases[] = {
	UT_CASE(test_data_wrs),
	UT_CASE(test_split_over_sges_and_wrs),
	UT_CASE(test_one_wr_when_sges_suffice),
	UT_CASE(test_bad_lengths),
	UT_CASE(test_send_and_send_with_invalidate),
	UT_CASE(test_wr_ids_carry_kind),
	UT_CASE(test_stage_logs_signaled_positions),
	UT_END,
};

UT_MAIN("target/rdma_xfer", cases)

/* SPDX-License-Identifier: MIT */
/*
 * Tests for transport/qp.c's work-request staging, on a QP without a verbs
 * QP behind it: what gets queued is exactly the ibv_send_wr/ibv_recv_wr
 * chain one ibv_post_send/recv would be given.
 */
#include <errno.h>
#include <string.h>

#include "transport/qp_priv.h"
#include "ut.h"

static const struct rblk_qp_caps caps = {
	.max_send_wr = 4,
	.max_recv_wr = 2,
	.max_send_sge = 2,
	.max_recv_sge = 1,
	.max_inline_data = 32,
};

static void test_write_then_send_become_one_chain(void)
{
	struct rblk_qp *qp;
	struct ibv_send_wr *w;
	struct rblk_sge sge[2] = { { 0x1000, 4096, 0x11 }, { 0x3000, 512, 0x11 } };
	struct rblk_sge rsp = { 0x9000, 16, 0x22 };
	struct rblk_send_wr write = {
		.wr_id = 0xaaa,
		.opcode = RBLK_WR_RDMA_WRITE,
		.sge = sge,
		.num_sge = 2,
		.remote_addr = 0x7f0000001000ull,
		.rkey = 0x1234,
	};
	struct rblk_send_wr send = {
		.wr_id = 0xbbb,
		.opcode = RBLK_WR_SEND,
		.flags = RBLK_SEND_SIGNALED,
		.sge = &rsp,
		.num_sge = 1,
	};

	CU_ASSERT_EQUAL_FATAL(rblk_qp_staging_create(&caps, &qp), 0);
	CU_ASSERT_PTR_NULL(rblk_qp_staged_send_head(qp));
	CU_ASSERT_EQUAL(rblk_qp_queue_send(qp, &write), 0);
	CU_ASSERT_EQUAL(rblk_qp_queue_send(qp, &send), 0);
	CU_ASSERT_EQUAL(rblk_qp_send_staged(qp), 2);
	/* The caller's SGE array may be reused at once: staging holds a copy. */
	memset(sge, 0, sizeof(sge));

	w = rblk_qp_staged_send_head(qp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	CU_ASSERT_EQUAL(w->wr_id, 0xaaa);
	CU_ASSERT_EQUAL(w->opcode, IBV_WR_RDMA_WRITE);
	CU_ASSERT_EQUAL(w->send_flags, 0);
	CU_ASSERT_EQUAL(w->wr.rdma.remote_addr, 0x7f0000001000ull);
	CU_ASSERT_EQUAL(w->wr.rdma.rkey, 0x1234);
	CU_ASSERT_EQUAL(w->num_sge, 2);
	CU_ASSERT_EQUAL(w->sg_list[0].addr, 0x1000);
	CU_ASSERT_EQUAL(w->sg_list[0].length, 4096);
	CU_ASSERT_EQUAL(w->sg_list[0].lkey, 0x11);
	CU_ASSERT_EQUAL(w->sg_list[1].addr, 0x3000);
	CU_ASSERT_EQUAL(w->sg_list[1].length, 512);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w->next);
	w = w->next;
	CU_ASSERT_EQUAL(w->wr_id, 0xbbb);
	CU_ASSERT_EQUAL(w->opcode, IBV_WR_SEND);
	CU_ASSERT_EQUAL(w->send_flags, IBV_SEND_SIGNALED);
	CU_ASSERT_EQUAL(w->sg_list[0].addr, 0x9000);
	CU_ASSERT_EQUAL(w->sg_list[0].lkey, 0x22);
	CU_ASSERT_PTR_NULL(w->next);
	rblk_qp_destroy(qp);
}

static void test_immediate_invalidate_and_read(void)
{
	struct rblk_qp *qp;
	struct ibv_send_wr *w;
	struct rblk_sge sge = { 0x1000, 64, 1 };
	struct rblk_send_wr wr = { .sge = &sge, .num_sge = 1 };

	CU_ASSERT_EQUAL_FATAL(rblk_qp_staging_create(&caps, &qp), 0);
	wr.opcode = RBLK_WR_SEND_WITH_INV;
	wr.imm_or_inv_rkey = 0xdead;
	CU_ASSERT_EQUAL(rblk_qp_queue_send(qp, &wr), 0);
	wr.opcode = RBLK_WR_SEND_WITH_IMM;
	wr.imm_or_inv_rkey = 0xbeef;
	CU_ASSERT_EQUAL(rblk_qp_queue_send(qp, &wr), 0);
	wr = (struct rblk_send_wr){ .opcode = RBLK_WR_RDMA_READ, .flags = RBLK_SEND_FENCE,
				    .sge = &sge, .num_sge = 1, .remote_addr = 0x5000, .rkey = 9 };
	CU_ASSERT_EQUAL(rblk_qp_queue_send(qp, &wr), 0);
	w = rblk_qp_staged_send_head(qp);
	CU_ASSERT_EQUAL(w->opcode, IBV_WR_SEND_WITH_INV);
	CU_ASSERT_EQUAL(w->invalidate_rkey, 0xdead);
	w = w->next;
	CU_ASSERT_EQUAL(w->opcode, IBV_WR_SEND_WITH_IMM);
	CU_ASSERT_EQUAL(w->imm_data, 0xbeef);
	w = w->next;
	CU_ASSERT_EQUAL(w->opcode, IBV_WR_RDMA_READ);
	CU_ASSERT_EQUAL(w->send_flags, IBV_SEND_FENCE);
	CU_ASSERT_EQUAL(w->wr.rdma.remote_addr, 0x5000);
	CU_ASSERT_EQUAL(w->wr.rdma.rkey, 9);
	CU_ASSERT_PTR_NULL(w->next);
	rblk_qp_destroy(qp);
}

static void test_queue_send_validates(void)
{
	struct rblk_qp *qp;
	struct rblk_sge sge[3] = { { 0x1000, 16, 1 }, { 0x2000, 16, 1 }, { 0x3000, 16, 1 } };
	struct rblk_send_wr wr = { .opcode = RBLK_WR_SEND, .sge = sge, .num_sge = 3 };

	CU_ASSERT_EQUAL_FATAL(rblk_qp_staging_create(&caps, &qp), 0);
	CU_ASSERT_EQUAL(rblk_qp_queue_send(qp, &wr), -EINVAL);	/* 3 SGEs > max_send_sge */
	wr.num_sge = 2;
	wr.flags = RBLK_SEND_INLINE;
	CU_ASSERT_EQUAL(rblk_qp_queue_send(qp, &wr), 0);	/* 32 bytes inline: fits */
	sge[1].length = 17;
	CU_ASSERT_EQUAL(rblk_qp_queue_send(qp, &wr), -EINVAL);	/* 33 > max_inline_data */
	sge[1].length = 16;
	wr.opcode = RBLK_WR_RDMA_READ;
	CU_ASSERT_EQUAL(rblk_qp_queue_send(qp, &wr), -EINVAL);	/* a READ cannot be inline */
	wr.opcode = (enum rblk_wr_opcode)7;
	wr.flags = 0;
	CU_ASSERT_EQUAL(rblk_qp_queue_send(qp, &wr), -EINVAL);
	wr.opcode = RBLK_WR_SEND;
	wr.flags = 1u << 6;
	CU_ASSERT_EQUAL(rblk_qp_queue_send(qp, &wr), -EINVAL);
	wr.flags = 0;
	wr.sge = NULL;
	CU_ASSERT_EQUAL(rblk_qp_queue_send(qp, &wr), -EINVAL);
	/* A zero-length SEND is legal. */
	wr.num_sge = 0;
	CU_ASSERT_EQUAL(rblk_qp_queue_send(qp, &wr), 0);
	CU_ASSERT_EQUAL(rblk_qp_send_staged(qp), 2);
	rblk_qp_destroy(qp);
}

static void test_staging_full_and_flush_without_qp(void)
{
	struct rblk_qp *qp;
	struct rblk_sge sge = { 0x1000, 16, 1 };
	struct rblk_send_wr wr = { .opcode = RBLK_WR_SEND, .sge = &sge, .num_sge = 1 };
	unsigned posted = 99;

	CU_ASSERT_EQUAL_FATAL(rblk_qp_staging_create(&caps, &qp), 0);
	CU_ASSERT_EQUAL(rblk_qp_flush_send(qp, &posted), 0);	/* nothing staged */
	CU_ASSERT_EQUAL(posted, 0);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(rblk_qp_queue_send(qp, &wr), 0);
	CU_ASSERT_EQUAL(rblk_qp_queue_send(qp, &wr), -ENOBUFS);
	CU_ASSERT_EQUAL(rblk_qp_send_staged(qp), 4);
	posted = 99;
	CU_ASSERT_EQUAL(rblk_qp_flush_send(qp, &posted), -ENOTCONN);
	CU_ASSERT_EQUAL(posted, 0);
	/* Staging is empty after a flush either way, and usable again. */
	CU_ASSERT_EQUAL(rblk_qp_send_staged(qp), 0);
	CU_ASSERT_EQUAL(rblk_qp_queue_send(qp, &wr), 0);
	CU_ASSERT_PTR_NULL(rblk_qp_staged_send_head(qp)->next);
	CU_ASSERT_EQUAL(rblk_qp_num(qp), 0);
	rblk_qp_destroy(qp);
}

static void test_recv_chain(void)
{
	struct rblk_qp *qp;
	struct ibv_recv_wr *w;
	struct rblk_sge a = { 0x1000, 8256, 3 }, b = { 0x4000, 8256, 3 };
	struct rblk_sge two[2] = { a, b };

	CU_ASSERT_EQUAL_FATAL(rblk_qp_staging_create(&caps, &qp), 0);
	CU_ASSERT_EQUAL(rblk_qp_queue_recv(qp, 1, two, 2), -EINVAL);	/* max_recv_sge 1 */
	CU_ASSERT_EQUAL(rblk_qp_queue_recv(qp, 1, &a, 1), 0);
	CU_ASSERT_EQUAL(rblk_qp_queue_recv(qp, 2, &b, 1), 0);
	CU_ASSERT_EQUAL(rblk_qp_queue_recv(qp, 3, &b, 1), -ENOBUFS);
	CU_ASSERT_EQUAL(rblk_qp_recv_staged(qp), 2);
	w = rblk_qp_staged_recv_head(qp);
	CU_ASSERT_EQUAL(w->wr_id, 1);
	CU_ASSERT_EQUAL(w->sg_list[0].addr, 0x1000);
	CU_ASSERT_EQUAL(w->sg_list[0].length, 8256);
	CU_ASSERT_EQUAL(w->num_sge, 1);
	CU_ASSERT_EQUAL(w->next->wr_id, 2);
	CU_ASSERT_EQUAL(w->next->sg_list[0].addr, 0x4000);
	CU_ASSERT_PTR_NULL(w->next->next);
	CU_ASSERT_EQUAL(rblk_qp_flush_recv(qp, NULL), -ENOTCONN);
	CU_ASSERT_EQUAL(rblk_qp_recv_staged(qp), 0);
	CU_ASSERT_EQUAL(rblk_qp_get_caps(qp)->max_recv_wr, 2);
	rblk_qp_destroy(qp);
	rblk_qp_destroy(NULL);
}

static const struct ut_case cases[] = {
	UT_CASE(test_write_then_send_become_one_chain),
	UT_CASE(test_immediate_invalidate_and_read),
	UT_CASE(test_queue_send_validates),
	UT_CASE(test_staging_full_and_flush_without_qp),
	UT_CASE(test_recv_chain),
	UT_END,
};

UT_MAIN("transport/qp", cases)

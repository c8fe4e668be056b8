/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/req.c: the data copy helpers over several buffers, the
 * log window helper, CQE construction (CID echo, SQID, SQHD, wire status,
 * More bit), statistics, and requests on a closing queue.
 */
#include <string.h>

#include "test_transport.h"
#include "ut.h"

static void iov_req(struct rblk_req *req, uint8_t *buf, const size_t *sizes, unsigned n)
{
	memset(req, 0, sizeof(*req));
	for (unsigned i = 0; i < n; i++) {
		req->iov[i].iov_base = buf;
		req->iov[i].iov_len = sizes[i];
		buf += sizes[i];
		req->data_len += (uint32_t)sizes[i];
	}
	req->iovcnt = n;
}

static void test_copy_helpers_across_iovs(void)
{
	static const size_t sizes[] = { 3, 5, 8, 16 };
	uint8_t buf[32], src[32], dst[32];
	struct rblk_req req;

	for (int i = 0; i < 32; i++)
		src[i] = (uint8_t)(i + 1);
	iov_req(&req, buf, sizes, 4);
	memset(buf, 0, sizeof(buf));
	CU_ASSERT_EQUAL(rblk_req_copy_to(&req, 2, src, 20), 0);
	CU_ASSERT_EQUAL(buf[1], 0);
	CU_ASSERT_EQUAL(memcmp(buf + 2, src, 20), 0);
	CU_ASSERT_EQUAL(buf[22], 0);
	CU_ASSERT_EQUAL(rblk_req_copy_from(&req, 7, dst, 9), 0);
	CU_ASSERT_EQUAL(memcmp(dst, src + 5, 9), 0);
	CU_ASSERT_EQUAL(rblk_req_zero(&req, 4, 10), 0);
	CU_ASSERT_EQUAL(buf[3], src[1]);
	CU_ASSERT_EQUAL(buf[4], 0);
	CU_ASSERT_EQUAL(buf[13], 0);
	CU_ASSERT_EQUAL(buf[14], src[12]);
	/* Past the buffers: refused, not truncated silently. */
	CU_ASSERT_EQUAL(rblk_req_copy_to(&req, 30, src, 3), NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_req_copy_from(&req, 33, dst, 1), NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_req_copy_to(&req, 32, src, 0), 0);
}

static void test_copy_log_window(void)
{
	static const size_t sizes[] = { 6, 10 };
	uint8_t log[20], buf[16];
	struct rblk_req req;
	struct nvme_sqe cmd;

	memset(&cmd, 0, sizeof(cmd));
	for (int i = 0; i < 20; i++)
		log[i] = (uint8_t)(0x80 + i);
	iov_req(&req, buf, sizes, 2);
	req.cmd = &cmd;
	memset(buf, 0xAB, sizeof(buf));
	CU_ASSERT_EQUAL(rblk_req_copy_log(&req, 8, log, sizeof(log)), 0);
	CU_ASSERT_EQUAL(memcmp(buf, log + 8, 12), 0);
	CU_ASSERT_EQUAL(buf[12], 0);
	CU_ASSERT_EQUAL(buf[15], 0);
	CU_ASSERT_EQUAL(rblk_req_copy_log(&req, 20, log, sizeof(log)), 0);
	CU_ASSERT_EQUAL(buf[0], 0);
	CU_ASSERT_EQUAL(rblk_req_copy_log(&req, 24, log, sizeof(log)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(req.error_loc, offsetof(struct nvme_get_log_cmd, lpol));
	CU_ASSERT_EQUAL(rblk_req_copy_log(&req, 2, log, sizeof(log)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
}

static void test_cqe_fields_and_stats(void)
{
	struct tt_env *env = tt_env_create(NULL, 0);
	struct tt_queue *q;
	struct nvme_sqe sqe;
	struct nvme_cqe cqe;

	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tt_add_subsys(env, TT_SUBNQN, "mem:64K", NULL));
	q = tt_queue_create(env, 0, 32);
	CU_ASSERT_NOT_EQUAL_FATAL(tt_admin_bringup(q, TT_SUBNQN, TT_HOSTNQN, 0), 0);
	/* 1 Connect + 2 Property Set + 1 Property Get. */
	CU_ASSERT_EQUAL(atomic_load(&q->sq.stats.completed), 4);
	CU_ASSERT_EQUAL(atomic_load(&q->sq.stats.errors), 0);
	CU_ASSERT_EQUAL(q->sq.sqhd, 4);

	/* All 16 CID bits echoed (Linux puts a generation in 15:12). */
	tt_sqe(&sqe, 0x7E, 0xF0AB, 0);
	CU_ASSERT_EQUAL(tt_cmd(q, &sqe, NULL, 0, &cqe, NULL, 0),
			NVME_SC_INVALID_OPCODE | NVME_SC_DNR | NVME_SC_MORE);
	CU_ASSERT_EQUAL(rblk_le16(cqe.cid), 0xF0AB);
	CU_ASSERT_EQUAL(rblk_le16(cqe.sqid), 0);
	CU_ASSERT_EQUAL(rblk_le16(cqe.sqhd), 5);
	/* Wire format: status << 1, phase 0; More = bit 14, DNR = bit 15. */
	CU_ASSERT_EQUAL(rblk_le16(cqe.status), 0xC002);
	CU_ASSERT_EQUAL(atomic_load(&q->sq.stats.completed), 5);
	CU_ASSERT_EQUAL(atomic_load(&q->sq.stats.errors), 1);

	/* A closing queue takes nothing new. */
	rblk_sq_teardown(&q->sq);
	tt_sqe(&sqe, NVME_ADMIN_KEEP_ALIVE, 1, 0);
	CU_ASSERT_EQUAL(tt_cmd(q, &sqe, NULL, 0, &cqe, NULL, 0), NVME_SC_ABORT_QUEUE | NVME_SC_DNR);
	tt_queue_destroy(q);
	tt_env_destroy(env);
}

static void test_sq_state_names(void)
{
	CU_ASSERT_STRING_EQUAL(rblk_sq_state_str(RBLK_SQ_NEW), "new");
	CU_ASSERT_STRING_EQUAL(rblk_sq_state_str(RBLK_SQ_LIVE), "live");
	CU_ASSERT_STRING_EQUAL(rblk_sq_state_str(RBLK_SQ_CLOSING), "closing");
}

static void test_ns_ref_dropped_on_parse_error(void)
{
	struct tt_env *env = tt_env_create(NULL, 0);
	struct rblk_subsystem *ss;
	struct tt_queue *aq, *iq;
	uint16_t cntlid;
	uint8_t b[512];

	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	ss = tt_add_subsys(env, TT_SUBNQN, "mem:64K", NULL);
	aq = tt_queue_create(env, 0, 32);
	cntlid = tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 0);
	iq = tt_queue_create(env, 1, 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 31, cntlid, 0, 0, NULL), 0);
	/* Out of range (parse fails after the lookup) and a bad SGL (after parse). */
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 1, 200, 1, 0, b, 512)),
			NVME_SC_LBA_RANGE | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_rw(iq, NVME_IO_READ, 1, 0, 1, 0, b, 256)),
			NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_tgt_ns_inflight(ss->ns[0]), 0);
	CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->refs), 1);
	tt_queue_destroy(iq);
	tt_queue_destroy(aq);
	tt_env_destroy(env);
}

static const struct ut_case cases[] = {
	UT_CASE(test_copy_helpers_across_iovs),
	UT_CASE(test_copy_log_window),
	UT_CASE(test_cqe_fields_and_stats),
	UT_CASE(test_sq_state_names),
	UT_CASE(test_ns_ref_dropped_on_parse_error),
	UT_END,
};

UT_MAIN("target/req", cases)

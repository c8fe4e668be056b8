/* SPDX-License-Identifier: MIT */
/* Tests for protocol/cm.c: CM private data bytes, every reject rule, round trips. */
#include <errno.h>
#include <string.h>

#include "protocol/cm.h"
#include "ut.h"

static void test_req_decode_linux_admin(void)
{
	/* What the Linux host sends for the admin queue: qid 0, hrqsize 32, hsqsize 31. */
	uint8_t priv[32] = { 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x1F, 0x00 };
	struct rblk_cm_req_info info;

	CU_ASSERT_EQUAL(rblk_cm_req_decode(priv, sizeof(priv), &info), 0);
	CU_ASSERT_EQUAL(info.qid, 0);
	CU_ASSERT_EQUAL(info.hrqsize, 32);
	CU_ASSERT_EQUAL(info.hsqsize, 31);
	CU_ASSERT_EQUAL(info.cntlid, 0);
	/* Only the 8 meaningful bytes: still fine. */
	CU_ASSERT_EQUAL(rblk_cm_req_decode(priv, 8, &info), 0);
	CU_ASSERT_EQUAL(info.hsqsize, 31);
}

static void test_req_decode_io_unaligned_with_cntlid(void)
{
	uint8_t buf[64];
	struct rblk_cm_req_info info;
	static const uint8_t priv[10] = { 0, 0, 0x03, 0x00, 0x80, 0x00, 0x7F, 0x00, 0x34, 0x12 };

	memset(buf, 0, sizeof(buf));
	memcpy(buf + 1, priv, sizeof(priv));
	CU_ASSERT_EQUAL(rblk_cm_req_decode(buf + 1, 32, &info), 0);
	CU_ASSERT_EQUAL(info.qid, 3);
	CU_ASSERT_EQUAL(info.hrqsize, 128);
	CU_ASSERT_EQUAL(info.hsqsize, 127);
	CU_ASSERT_EQUAL(info.cntlid, 0x1234);
	/* len 9: cntlid not fully present -> 0. */
	CU_ASSERT_EQUAL(rblk_cm_req_decode(buf + 1, 9, &info), 0);
	CU_ASSERT_EQUAL(info.cntlid, 0);
}

static void test_req_decode_rejects(void)
{
	uint8_t priv[32];
	struct rblk_cm_req_info info;

	memset(priv, 0, sizeof(priv));
	priv[4] = 32;
	priv[6] = 31;
	CU_ASSERT_EQUAL(rblk_cm_req_decode(NULL, 32, &info), NVME_RDMA_CM_INVALID_LEN);
	CU_ASSERT_EQUAL(rblk_cm_req_decode(priv, 0, &info), NVME_RDMA_CM_INVALID_LEN);
	CU_ASSERT_EQUAL(rblk_cm_req_decode(priv, 7, &info), NVME_RDMA_CM_INVALID_LEN);

	priv[0] = 1;
	CU_ASSERT_EQUAL(rblk_cm_req_decode(priv, 32, &info), NVME_RDMA_CM_INVALID_RECFMT);
	priv[0] = 0;
	priv[1] = 1;
	CU_ASSERT_EQUAL(rblk_cm_req_decode(priv, 32, &info), NVME_RDMA_CM_INVALID_RECFMT);
	priv[1] = 0;

	/* Admin queue: hsqsize + 1 > 32 is refused, 31 is the maximum. */
	priv[6] = 32;
	CU_ASSERT_EQUAL(rblk_cm_req_decode(priv, 32, &info), NVME_RDMA_CM_INVALID_HSQSIZE);
	priv[6] = 0xFF;
	priv[7] = 0xFF; /* hsqsize 0xFFFF must not wrap to 0 */
	CU_ASSERT_EQUAL(rblk_cm_req_decode(priv, 32, &info), NVME_RDMA_CM_INVALID_HSQSIZE);
	/* I/O queues have no CM-level bound. */
	priv[2] = 1;
	CU_ASSERT_EQUAL(rblk_cm_req_decode(priv, 32, &info), 0);
	CU_ASSERT_EQUAL(info.hsqsize, 0xFFFF);

	priv[4] = 0;
	CU_ASSERT_EQUAL(rblk_cm_req_decode(priv, 32, &info), NVME_RDMA_CM_INVALID_HRQSIZE);
}

static void test_req_encode_bytes_and_round_trip(void)
{
	static const uint8_t want[32] = { 0x00, 0x00, 0x03, 0x00, 0x80, 0x00, 0x7F, 0x00, 0x34, 0x12 };
	struct rblk_cm_req_info in = { .qid = 3, .hrqsize = 128, .hsqsize = 127, .cntlid = 0x1234 };
	struct rblk_cm_req_info out;
	struct nvme_rdma_cm_req req;

	memset(&req, 0xEE, sizeof(req));
	CU_ASSERT_EQUAL(rblk_cm_req_encode(&req, &in), 0);
	CU_ASSERT_EQUAL(memcmp(&req, want, 32), 0);
	CU_ASSERT_EQUAL(rblk_cm_req_decode(&req, sizeof(req), &out), 0);
	CU_ASSERT_EQUAL(memcmp(&in, &out, sizeof(in)), 0);

	in.hrqsize = 0;
	CU_ASSERT_EQUAL(rblk_cm_req_encode(&req, &in), -EINVAL);
}

static void test_rep(void)
{
	static const uint8_t want[32] = { 0x00, 0x00, 0x20, 0x00 };
	struct nvme_rdma_cm_rep rep;
	uint8_t bad[4] = { 1, 0, 32, 0 };
	uint16_t crq = 0;

	memset(&rep, 0xEE, sizeof(rep));
	rblk_cm_rep_encode(&rep, 32);
	CU_ASSERT_EQUAL(memcmp(&rep, want, 32), 0);
	CU_ASSERT_EQUAL(rblk_cm_rep_decode(&rep, sizeof(rep), &crq), 0);
	CU_ASSERT_EQUAL(crq, 32);
	CU_ASSERT_EQUAL(rblk_cm_rep_decode(&rep, 3, &crq), -EINVAL);
	CU_ASSERT_EQUAL(rblk_cm_rep_decode(NULL, 32, &crq), -EINVAL);
	CU_ASSERT_EQUAL(rblk_cm_rep_decode(bad, sizeof(bad), &crq), -EINVAL);
}

static void test_rej(void)
{
	static const uint8_t want[4] = { 0x00, 0x00, 0x04, 0x00 };
	struct nvme_rdma_cm_rej rej;
	uint16_t sts = 0;

	rblk_cm_rej_encode(&rej, NVME_RDMA_CM_INVALID_HSQSIZE);
	CU_ASSERT_EQUAL(memcmp(&rej, want, 4), 0);
	CU_ASSERT_EQUAL(rblk_cm_rej_decode(&rej, sizeof(rej), &sts), 0);
	CU_ASSERT_EQUAL(sts, NVME_RDMA_CM_INVALID_HSQSIZE);
	CU_ASSERT_EQUAL(rblk_cm_rej_decode(&rej, 2, &sts), -EINVAL);
	CU_ASSERT_EQUAL(rblk_cm_rej_decode(NULL, 4, &sts), -EINVAL);
}

static void test_rej_str(void)
{
	CU_ASSERT_STRING_EQUAL(rblk_cm_rej_str(NVME_RDMA_CM_INVALID_LEN), "invalid private data length");
	CU_ASSERT_STRING_EQUAL(rblk_cm_rej_str(NVME_RDMA_CM_INVALID_HSQSIZE), "invalid host SQ size");
	CU_ASSERT_STRING_EQUAL(rblk_cm_rej_str(NVME_RDMA_CM_INVALID_ORD), "invalid ORD");
	for (uint16_t s = 1; s <= 8; s++)
		CU_ASSERT_STRING_NOT_EQUAL(rblk_cm_rej_str(s), "unknown");
	CU_ASSERT_STRING_EQUAL(rblk_cm_rej_str(0), "unknown");
	CU_ASSERT_STRING_EQUAL(rblk_cm_rej_str(9), "unknown");
}

static const struct ut_case cases[] = {
	UT_CASE(test_req_decode_linux_admin),
	UT_CASE(test_req_decode_io_unaligned_with_cntlid),
	UT_CASE(test_req_decode_rejects),
	UT_CASE(test_req_encode_bytes_and_round_trip),
	UT_CASE(test_rep),
	UT_CASE(test_rej),
	UT_CASE(test_rej_str),
	UT_END,
};

UT_MAIN("protocol/cm", cases)

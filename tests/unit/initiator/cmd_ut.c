/* SPDX-License-Identifier: MIT */
/*
 * Tests for initiator/cmd.c: every SQE the initiator builds, byte by byte
 * (PSDT 0x40, opcode, fields, SGL bytes), the in-capsule vs keyed decision,
 * the CC values and the MDTS / NLB split math.
 */
#include <errno.h>
#include <string.h>

#include "initiator/cmd.h"
#include "ut.h"

static const uint8_t *B(const struct nvme_sqe *sqe)
{
	return (const uint8_t *)sqe;
}

/* The null keyed SGL: 15 zero bytes, then type 0x40. */
static void assert_null_sgl(const struct nvme_sqe *sqe)
{
	for (int i = 24; i < 39; i++)
		CU_ASSERT_EQUAL(B(sqe)[i], 0);
	CU_ASSERT_EQUAL(B(sqe)[39], 0x40);
}

static void test_prop_get(void)
{
	struct nvme_sqe sqe;

	memset(&sqe, 0xAA, sizeof(sqe));
	rblk_cmd_prop_get(&sqe, NVME_REG_CAP);
	CU_ASSERT_EQUAL(B(&sqe)[0], 0x7F);
	CU_ASSERT_EQUAL(B(&sqe)[1], 0x40);
	CU_ASSERT_EQUAL(B(&sqe)[4], 0x04);	/* FCTYPE Property Get */
	CU_ASSERT_EQUAL(B(&sqe)[40], 1);	/* ATTRIB: 8 bytes for CAP */
	CU_ASSERT_EQUAL(rblk_get_le32(B(&sqe) + 44), 0);
	assert_null_sgl(&sqe);
	for (int i = 48; i < 64; i++)
		CU_ASSERT_EQUAL(B(&sqe)[i], 0);

	rblk_cmd_prop_get(&sqe, NVME_REG_CSTS);
	CU_ASSERT_EQUAL(B(&sqe)[40], 0);	/* 4 bytes */
	CU_ASSERT_EQUAL(rblk_get_le32(B(&sqe) + 44), 0x1C);
	rblk_cmd_prop_get(&sqe, NVME_REG_VS);
	CU_ASSERT_EQUAL(B(&sqe)[40], 0);
	CU_ASSERT_EQUAL(rblk_get_le32(B(&sqe) + 44), 0x08);
}

static void test_prop_set(void)
{
	struct nvme_sqe sqe;

	memset(&sqe, 0xAA, sizeof(sqe));
	rblk_cmd_prop_set(&sqe, NVME_REG_CC, 0x00460001);
	CU_ASSERT_EQUAL(B(&sqe)[0], 0x7F);
	CU_ASSERT_EQUAL(B(&sqe)[1], 0x40);
	CU_ASSERT_EQUAL(B(&sqe)[4], 0x00);	/* FCTYPE Property Set */
	CU_ASSERT_EQUAL(B(&sqe)[40], 0);
	CU_ASSERT_EQUAL(rblk_get_le32(B(&sqe) + 44), 0x14);
	CU_ASSERT_EQUAL(rblk_get_le64(B(&sqe) + 48), 0x00460001);
	assert_null_sgl(&sqe);
	CU_ASSERT_FALSE(rblk_cmd_host_to_ctrl(&sqe));
}

static void test_auth_send_recv(void)
{
	struct nvme_sqe sqe;

	memset(&sqe, 0xAA, sizeof(sqe));
	rblk_cmd_auth_send(&sqe, 0x148);
	CU_ASSERT_EQUAL(B(&sqe)[0], 0x7F);
	CU_ASSERT_EQUAL(B(&sqe)[1], 0x40);
	CU_ASSERT_EQUAL(B(&sqe)[4], 0x05);	/* FCTYPE Authentication Send */
	CU_ASSERT_EQUAL(B(&sqe)[40], 0);
	CU_ASSERT_EQUAL(B(&sqe)[41], 0x01);	/* SPSP0 */
	CU_ASSERT_EQUAL(B(&sqe)[42], 0x01);	/* SPSP1 */
	CU_ASSERT_EQUAL(B(&sqe)[43], 0xE9);	/* SECP: NVMe DH-HMAC-CHAP */
	CU_ASSERT_EQUAL(rblk_get_le32(B(&sqe) + 44), 0x148);	/* TL */
	assert_null_sgl(&sqe);
	for (int i = 48; i < 64; i++)
		CU_ASSERT_EQUAL(B(&sqe)[i], 0);
	CU_ASSERT(rblk_cmd_host_to_ctrl(&sqe));

	rblk_cmd_auth_recv(&sqe, 4096);
	CU_ASSERT_EQUAL(B(&sqe)[4], 0x06);	/* FCTYPE Authentication Receive */
	CU_ASSERT_EQUAL(B(&sqe)[43], 0xE9);
	CU_ASSERT_EQUAL(rblk_get_le32(B(&sqe) + 44), 4096);	/* AL */
	CU_ASSERT_FALSE(rblk_cmd_host_to_ctrl(&sqe));
}

static void test_cc_values(void)
{
	uint64_t cap = 0x0000082000F0007Full | (15ull << 24);

	CU_ASSERT_EQUAL(rblk_cc_enable_value(), 0x00460001);
	CU_ASSERT_EQUAL(rblk_cc_shutdown_value(0x00460001), 0x00464001);
	CU_ASSERT_EQUAL(rblk_cc_shutdown_value(0x0046C001), 0x00464001);
	CU_ASSERT_EQUAL(rblk_cap_timeout_ms(cap), 8000);
	CU_ASSERT_EQUAL(rblk_cap_timeout_ms(0), 500);
}

static void test_identify(void)
{
	struct nvme_sqe sqe;

	memset(&sqe, 0xAA, sizeof(sqe));
	rblk_cmd_identify(&sqe, NVME_ID_CNS_NS, 7, NVME_CSI_NVM);
	CU_ASSERT_EQUAL(B(&sqe)[0], 0x06);
	CU_ASSERT_EQUAL(B(&sqe)[1], 0x40);
	CU_ASSERT_EQUAL(rblk_get_le32(B(&sqe) + 4), 7);
	CU_ASSERT_EQUAL(B(&sqe)[40], 0x00);
	CU_ASSERT_EQUAL(B(&sqe)[47], 0x00);
	assert_null_sgl(&sqe);
	rblk_cmd_identify(&sqe, NVME_ID_CNS_NS_ACTIVE_LIST, 0, NVME_CSI_NVM);
	CU_ASSERT_EQUAL(B(&sqe)[40], 0x02);
	CU_ASSERT_EQUAL(rblk_get_le32(B(&sqe) + 4), 0);
	CU_ASSERT_FALSE(rblk_cmd_host_to_ctrl(&sqe));
}

static void test_get_log(void)
{
	struct nvme_sqe sqe;

	CU_ASSERT_EQUAL(rblk_cmd_get_log(&sqe, NVME_LOG_DISC, 0, 0, 1024, true), 0);
	CU_ASSERT_EQUAL(B(&sqe)[0], 0x02);
	CU_ASSERT_EQUAL(B(&sqe)[1], 0x40);
	CU_ASSERT_EQUAL(B(&sqe)[40], 0x70);
	CU_ASSERT_EQUAL(B(&sqe)[41], 0x80);	/* RAE */
	CU_ASSERT_EQUAL(rblk_get_le16(B(&sqe) + 42), 255);	/* NUMDL: 256 dwords, 0-based */
	CU_ASSERT_EQUAL(rblk_get_le16(B(&sqe) + 44), 0);
	CU_ASSERT_EQUAL(rblk_get_le64(B(&sqe) + 48), 0);

	CU_ASSERT_EQUAL(rblk_cmd_get_log(&sqe, NVME_LOG_SMART, 0xFFFFFFFF, 0x100000004ull,
					 0x40000 * 4, false), 0);
	CU_ASSERT_EQUAL(B(&sqe)[41], 0);
	CU_ASSERT_EQUAL(rblk_get_le32(B(&sqe) + 4), 0xFFFFFFFF);
	CU_ASSERT_EQUAL(rblk_get_le16(B(&sqe) + 42), 0xFFFF);
	CU_ASSERT_EQUAL(rblk_get_le16(B(&sqe) + 44), 3);
	CU_ASSERT_EQUAL(rblk_get_le32(B(&sqe) + 48), 4);	/* LPOL */
	CU_ASSERT_EQUAL(rblk_get_le32(B(&sqe) + 52), 1);	/* LPOU */

	CU_ASSERT_EQUAL(rblk_cmd_get_log(&sqe, 2, 0, 0, 0, false), -EINVAL);
	CU_ASSERT_EQUAL(rblk_cmd_get_log(&sqe, 2, 0, 0, 6, false), -EINVAL);
	CU_ASSERT_EQUAL(rblk_cmd_get_log(&sqe, 2, 0, 2, 8, false), -EINVAL);
}

static void test_features_and_keep_alive(void)
{
	struct nvme_sqe sqe;

	memset(&sqe, 0xAA, sizeof(sqe));
	rblk_cmd_set_features(&sqe, NVME_FEAT_NUM_QUEUES, rblk_num_queues_cdw11(4));
	CU_ASSERT_EQUAL(B(&sqe)[0], 0x09);
	CU_ASSERT_EQUAL(B(&sqe)[1], 0x40);
	CU_ASSERT_EQUAL(B(&sqe)[40], 0x07);
	CU_ASSERT_EQUAL(rblk_get_le32(B(&sqe) + 44), 0x00030003);
	assert_null_sgl(&sqe);

	CU_ASSERT_EQUAL(rblk_num_queues_cdw11(1), 0);
	CU_ASSERT_EQUAL(rblk_num_queues_granted(0x00050007), 6);
	CU_ASSERT_EQUAL(rblk_num_queues_granted(0x007E007E), 127);
	CU_ASSERT_EQUAL(rblk_num_queues_granted(0), 1);

	memset(&sqe, 0xAA, sizeof(sqe));
	rblk_cmd_keep_alive(&sqe);
	CU_ASSERT_EQUAL(B(&sqe)[0], 0x18);
	CU_ASSERT_EQUAL(B(&sqe)[1], 0x40);
	assert_null_sgl(&sqe);
	for (int i = 2; i < 24; i++)
		CU_ASSERT_EQUAL(B(&sqe)[i], 0);
}

static void test_rw(void)
{
	struct nvme_sqe sqe;

	memset(&sqe, 0xAA, sizeof(sqe));
	rblk_cmd_rw(&sqe, true, 3, 0x123456789ull, 256, true);
	CU_ASSERT_EQUAL(B(&sqe)[0], 0x01);
	CU_ASSERT_EQUAL(B(&sqe)[1], 0x40);
	CU_ASSERT_EQUAL(rblk_get_le32(B(&sqe) + 4), 3);
	CU_ASSERT_EQUAL(rblk_get_le64(B(&sqe) + 40), 0x123456789ull);
	CU_ASSERT_EQUAL(rblk_get_le16(B(&sqe) + 48), 255);	/* 0-based */
	CU_ASSERT_EQUAL(rblk_get_le16(B(&sqe) + 50), 0x4000);	/* FUA */
	CU_ASSERT_EQUAL(rblk_get_le32(B(&sqe) + 52), 0);
	CU_ASSERT_TRUE(rblk_cmd_host_to_ctrl(&sqe));

	rblk_cmd_rw(&sqe, false, 1, 0, 65536, false);
	CU_ASSERT_EQUAL(B(&sqe)[0], 0x02);
	CU_ASSERT_EQUAL(rblk_get_le16(B(&sqe) + 48), 0xFFFF);
	CU_ASSERT_EQUAL(rblk_get_le16(B(&sqe) + 50), 0);
	CU_ASSERT_FALSE(rblk_cmd_host_to_ctrl(&sqe));
}

static void test_flush_wz_dsm(void)
{
	struct nvme_dsm_range r;
	struct nvme_sqe sqe;

	memset(&sqe, 0xAA, sizeof(sqe));
	rblk_cmd_flush(&sqe, 5);
	CU_ASSERT_EQUAL(B(&sqe)[0], 0x00);
	CU_ASSERT_EQUAL(B(&sqe)[1], 0x40);
	CU_ASSERT_EQUAL(rblk_get_le32(B(&sqe) + 4), 5);
	assert_null_sgl(&sqe);

	memset(&sqe, 0xAA, sizeof(sqe));
	rblk_cmd_write_zeroes(&sqe, 1, 1000, 16);
	CU_ASSERT_EQUAL(B(&sqe)[0], 0x08);
	CU_ASSERT_EQUAL(B(&sqe)[1], 0x40);
	CU_ASSERT_EQUAL(rblk_get_le64(B(&sqe) + 40), 1000);
	CU_ASSERT_EQUAL(rblk_get_le16(B(&sqe) + 48), 15);
	CU_ASSERT_EQUAL(rblk_get_le16(B(&sqe) + 50), 0);	/* no DEAC, as Linux */
	assert_null_sgl(&sqe);

	memset(&sqe, 0xAA, sizeof(sqe));
	rblk_cmd_dsm_deallocate(&sqe, 2, 1);
	CU_ASSERT_EQUAL(B(&sqe)[0], 0x09);
	CU_ASSERT_EQUAL(B(&sqe)[1], 0x40);
	CU_ASSERT_EQUAL(rblk_get_le32(B(&sqe) + 40), 0);	/* NR: one range, 0-based */
	CU_ASSERT_EQUAL(rblk_get_le32(B(&sqe) + 44), 4);	/* AD */
	CU_ASSERT_TRUE(rblk_cmd_host_to_ctrl(&sqe));

	memset(&r, 0xAA, sizeof(r));
	rblk_dsm_range(&r, 0x1122334455ull, 4096);
	CU_ASSERT_EQUAL(rblk_get_le32((uint8_t *)&r), 0);
	CU_ASSERT_EQUAL(rblk_get_le32((uint8_t *)&r + 4), 4096);	/* 1-based */
	CU_ASSERT_EQUAL(rblk_get_le64((uint8_t *)&r + 8), 0x1122334455ull);
}

static void test_incapsule_max(void)
{
	uint32_t sgls = 0x00100005;

	CU_ASSERT_EQUAL(rblk_incapsule_max(1, sgls, 260, false), 4096);
	CU_ASSERT_EQUAL(rblk_incapsule_max(3, sgls, 516, false), 8192);
	CU_ASSERT_EQUAL(rblk_incapsule_max(0, sgls, 260, false), 0);	/* admin: never */
	CU_ASSERT_EQUAL(rblk_incapsule_max(1, 0x5, 260, false), 0);	/* no SGLS bit 20 */
	CU_ASSERT_EQUAL(rblk_incapsule_max(1, sgls, 3, false), 0);
	CU_ASSERT_EQUAL(rblk_incapsule_max(1, sgls, 4, false), 0);
	CU_ASSERT_EQUAL(rblk_incapsule_max(1, sgls, 260, true), 0);
}

static void test_map_choose(void)
{
	CU_ASSERT_EQUAL(rblk_map_choose(true, 0, 4096), RBLK_MAP_NONE);
	CU_ASSERT_EQUAL(rblk_map_choose(false, 0, 4096), RBLK_MAP_NONE);
	CU_ASSERT_EQUAL(rblk_map_choose(true, 4096, 4096), RBLK_MAP_INCAPSULE);
	CU_ASSERT_EQUAL(rblk_map_choose(true, 16, 4096), RBLK_MAP_INCAPSULE);
	CU_ASSERT_EQUAL(rblk_map_choose(true, 4097, 4096), RBLK_MAP_KEYED);
	CU_ASSERT_EQUAL(rblk_map_choose(false, 512, 4096), RBLK_MAP_KEYED);
	CU_ASSERT_EQUAL(rblk_map_choose(true, 1024, 0), RBLK_MAP_KEYED);
}

static void test_sgl_bytes(void)
{
	static const uint8_t keyed[16] = { 0x00, 0x10, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
					   0x00, 0x04, 0x00, 0x78, 0x56, 0x34, 0x12, 0x40 };
	static const uint8_t ic[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x04, 0, 0, 0, 0, 0, 0x01 };
	struct nvme_sqe sqe;

	rblk_cmd_rw(&sqe, false, 1, 0, 2, false);
	CU_ASSERT_EQUAL(rblk_cmd_set_keyed(&sqe, 0x100001000ull, 1024, 0x12345678), 0);
	CU_ASSERT_EQUAL(memcmp(B(&sqe) + 24, keyed, 16), 0);
	CU_ASSERT_EQUAL(B(&sqe)[1], 0x40);
	CU_ASSERT_EQUAL(rblk_cmd_set_keyed(&sqe, 0, 1u << 24, 1), -EINVAL);

	rblk_cmd_rw(&sqe, true, 1, 0, 2, false);
	rblk_cmd_set_incapsule(&sqe, 1024);
	CU_ASSERT_EQUAL(memcmp(B(&sqe) + 24, ic, 16), 0);
}

/* rblk_cmd_map: the direction comes from the SQE, the SGL matches the kind chosen. */
static void test_cmd_map(void)
{
	static const uint8_t keyed[16] = { 0x00, 0x10, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
					   0x00, 0x04, 0x00, 0x78, 0x56, 0x34, 0x12, 0x40 };
	static const uint8_t ic[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x04, 0, 0, 0, 0, 0, 0x01 };
	static const uint8_t null_keyed[16] = { [15] = 0x40 };
	struct nvme_sqe sqe;

	/* A write that fits goes in-capsule. */
	rblk_cmd_rw(&sqe, true, 1, 0, 2, false);
	CU_ASSERT_EQUAL(rblk_cmd_map(&sqe, 0x100001000ull, 1024, 0x12345678, 4096), RBLK_MAP_INCAPSULE);
	CU_ASSERT_EQUAL(memcmp(B(&sqe) + 24, ic, 16), 0);
	/* The same write on a queue without in-capsule data, and any read: keyed. */
	rblk_cmd_rw(&sqe, true, 1, 0, 2, false);
	CU_ASSERT_EQUAL(rblk_cmd_map(&sqe, 0x100001000ull, 1024, 0x12345678, 0), RBLK_MAP_KEYED);
	CU_ASSERT_EQUAL(memcmp(B(&sqe) + 24, keyed, 16), 0);
	rblk_cmd_rw(&sqe, false, 1, 0, 2, false);
	CU_ASSERT_EQUAL(rblk_cmd_map(&sqe, 0x100001000ull, 1024, 0x12345678, 4096), RBLK_MAP_KEYED);
	CU_ASSERT_EQUAL(memcmp(B(&sqe) + 24, keyed, 16), 0);
	/* No data: the null keyed SGL. */
	rblk_cmd_flush(&sqe, 1);
	CU_ASSERT_EQUAL(rblk_cmd_map(&sqe, 0, 0, 0, 4096), RBLK_MAP_NONE);
	CU_ASSERT_EQUAL(memcmp(B(&sqe) + 24, null_keyed, 16), 0);
	/* A keyed length over 24 bits. */
	rblk_cmd_rw(&sqe, false, 1, 0, 2, false);
	CU_ASSERT_EQUAL(rblk_cmd_map(&sqe, 0, 1u << 24, 1, 4096), -EINVAL);
}

static void test_host_to_ctrl_fabrics(void)
{
	struct nvme_sqe sqe;

	memset(&sqe, 0, sizeof(sqe));
	sqe.opc = 0x7F;
	((uint8_t *)&sqe)[4] = 0x01;	/* Connect: data to the controller */
	CU_ASSERT_TRUE(rblk_cmd_host_to_ctrl(&sqe));
	((uint8_t *)&sqe)[4] = 0x04;
	CU_ASSERT_FALSE(rblk_cmd_host_to_ctrl(&sqe));
}

static void test_mdts_and_split(void)
{
	CU_ASSERT_EQUAL(rblk_mdts_bytes(0), 1u << 20);
	CU_ASSERT_EQUAL(rblk_mdts_bytes(5), 128u << 10);
	CU_ASSERT_EQUAL(rblk_mdts_bytes(8), 1u << 20);
	CU_ASSERT_EQUAL(rblk_mdts_bytes(11), 8u << 20);
	CU_ASSERT_EQUAL(rblk_mdts_bytes(12), 8u << 20);
	CU_ASSERT_EQUAL(rblk_mdts_bytes(40), 8u << 20);
	CU_ASSERT_EQUAL(rblk_mdts_bytes(1), 8192);

	CU_ASSERT_EQUAL(rblk_split_max_nlb(128u << 10, 9), 256);
	CU_ASSERT_EQUAL(rblk_split_max_nlb(1u << 20, 12), 256);
	CU_ASSERT_EQUAL(rblk_split_max_nlb(64u << 20, 9), 65536);	/* NLB is 16 bits */
	CU_ASSERT_EQUAL(rblk_split_max_nlb(100, 9), 1);
	CU_ASSERT_EQUAL(rblk_split_count(1000, 256), 4);
	CU_ASSERT_EQUAL(rblk_split_count(1024, 256), 4);
	CU_ASSERT_EQUAL(rblk_split_count(1025, 256), 5);
	CU_ASSERT_EQUAL(rblk_split_count(1, 256), 1);
	CU_ASSERT_EQUAL(rblk_split_count(0xFFFFFFFFull, 65536), 65536);
}

static const struct ut_case cases[] = {
	UT_CASE(test_prop_get),
	UT_CASE(test_prop_set),
	UT_CASE(test_auth_send_recv),
	UT_CASE(test_cc_values),
	UT_CASE(test_identify),
	UT_CASE(test_get_log),
	UT_CASE(test_features_and_keep_alive),
	UT_CASE(test_rw),
	UT_CASE(test_flush_wz_dsm),
	UT_CASE(test_incapsule_max),
	UT_CASE(test_map_choose),
	UT_CASE(test_sgl_bytes),
	UT_CASE(test_cmd_map),
	UT_CASE(test_host_to_ctrl_fabrics),
	UT_CASE(test_mdts_and_split),
	UT_END,
};

UT_MAIN("initiator/cmd", cases)

/* SPDX-License-Identifier: MIT */
/*
 * Tests for the inline helpers of protocol/nvme.h and protocol/le.h (layouts
 * are pinned by _Static_assert in the headers): status wire form, CQE build,
 * 128-bit counters, byte-wise LE access, small field helpers; the in-band
 * authentication values of protocol/auth.h.
 */
#include <endian.h>
#include <string.h>

#include "protocol/auth.h"
#include "protocol/nvme.h"
#include "protocol/nvmf.h"
#include "ut.h"

static void test_status_wire(void)
{
	/* Wire values from docs/interop.md §15.2. */
	CU_ASSERT_EQUAL(nvme_status_to_wire(NVME_SC_LBA_RANGE | NVME_SC_DNR), 0x8100);
	CU_ASSERT_EQUAL(nvme_status_to_wire(NVME_SC_INVALID_OPCODE | NVME_SC_DNR), 0x8002);
	CU_ASSERT_EQUAL(nvme_status_to_wire(NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR), 0x8304);
	CU_ASSERT_EQUAL(nvme_status_to_wire(NVME_SC_CONNECT_INVALID_HOST | NVME_SC_DNR), 0x8308);
	CU_ASSERT_EQUAL(nvme_status_to_wire(NVME_SC_NS_NOT_READY), 0x0104);
	CU_ASSERT_EQUAL(nvme_status_to_wire(NVME_SC_KA_TIMEOUT_INVALID), 0x0034);
	CU_ASSERT_EQUAL(nvme_status_to_wire(NVME_SC_AUTH_REQUIRED | NVME_SC_DNR), 0x8322);
	CU_ASSERT_EQUAL(nvme_status_to_wire(NVME_SC_SGL_INVALID_OFFSET | NVME_SC_DNR), 0x802C);
	CU_ASSERT_EQUAL(nvme_status_from_wire(0x8304), 0x4182);
	CU_ASSERT_EQUAL(nvme_status_from_wire(0x8305), 0x4182); /* phase bit dropped */
	CU_ASSERT_EQUAL(NVME_STATUS(1, 0x82), NVME_SC_CONNECT_INVALID_PARAM);
	CU_ASSERT_EQUAL(NVME_STATUS_SCT(0x4182), 1);
	CU_ASSERT_EQUAL(NVME_STATUS_SC(0x4182), 0x82);
}

static void test_cqe_build(void)
{
	static const uint8_t want[16] = { 0x10, 0x00, 0x01, 0x00, 0xEF, 0xBE, 0xAD, 0xDE,
					  0x05, 0x00, 0x02, 0x00, 0x1F, 0xA0, 0x04, 0x83 };
	struct nvme_cqe cqe;

	/* cid is echoed raw: pass the SQE's field as it is. */
	nvme_cqe_build(&cqe, rblk_cpu_to_le16(0xA01F), NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR,
		       0x00010010, 0xDEADBEEF, 5, 2);
	CU_ASSERT_EQUAL(memcmp(&cqe, want, 16), 0);
	CU_ASSERT_EQUAL(nvme_cqe_status(&cqe), 0x4182);
}

static void test_u128(void)
{
	uint8_t c[16];

	memset(c, 0, sizeof(c));
	nvme_u128_add(c, 1000);
	nvme_u128_add(c, 24);
	CU_ASSERT_EQUAL(nvme_u128_get64(c), 1024);
	CU_ASSERT_EQUAL(c[0], 0x00);
	CU_ASSERT_EQUAL(c[1], 0x04);

	nvme_u128_set64(c, UINT64_MAX);
	nvme_u128_add(c, 1); /* carries into byte 8 */
	for (int i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(c[i], 0);
	CU_ASSERT_EQUAL(c[8], 1);
	CU_ASSERT_EQUAL(nvme_u128_get64(c), UINT64_MAX); /* saturated */

	nvme_u128_set64(c, 0x0102030405060708ull);
	CU_ASSERT_EQUAL(c[0], 0x08);
	CU_ASSERT_EQUAL(c[7], 0x01);
	CU_ASSERT_EQUAL(c[8], 0);
	CU_ASSERT_EQUAL(nvme_u128_get64(c), 0x0102030405060708ull);
}

static void test_le_bytewise(void)
{
	uint8_t b[9] = { 0 };

	rblk_put_le24(b + 1, 0xAB123456);
	CU_ASSERT_EQUAL(b[1], 0x56);
	CU_ASSERT_EQUAL(b[2], 0x34);
	CU_ASSERT_EQUAL(b[3], 0x12);
	CU_ASSERT_EQUAL(b[4], 0);
	CU_ASSERT_EQUAL(rblk_get_le24(b + 1), 0x123456);
	rblk_put_le64(b + 1, 0x1122334455667788ull);
	CU_ASSERT_EQUAL(b[1], 0x88);
	CU_ASSERT_EQUAL(b[8], 0x11);
	CU_ASSERT_EQUAL(rblk_get_le64(b + 1), 0x1122334455667788ull);
	CU_ASSERT_EQUAL(rblk_get_le32(b + 1), 0x55667788);
	CU_ASSERT_EQUAL(rblk_get_le16(b + 1), 0x7788);
}

static void test_small_helpers(void)
{
	struct nvme_sgl_desc d;

	memset(&d, 0, sizeof(d));
	((uint8_t *)&d)[15] = 0x4F;
	CU_ASSERT_EQUAL(nvme_sgl_type(&d), NVME_SGL_KEYED_DATA_INV);
	CU_ASSERT_TRUE(nvme_opc_is_write(NVME_IO_WRITE));
	CU_ASSERT_TRUE(nvme_opc_is_write(NVME_IO_DSM));
	CU_ASSERT_FALSE(nvme_opc_is_write(NVME_IO_READ));
	CU_ASSERT_TRUE(nvme_opc_is_read(NVME_IO_READ));
	CU_ASSERT_TRUE(nvme_opc_is_read(NVME_ADMIN_IDENTIFY));
	CU_ASSERT_TRUE(nvmf_fctype_is_write(NVMF_FCTYPE_CONNECT));
	CU_ASSERT_FALSE(nvmf_fctype_is_write(NVMF_FCTYPE_PROP_GET));
	CU_ASSERT_EQUAL(nvme_ns_flbas_index(0x00), 0);
	CU_ASSERT_EQUAL(nvme_ns_flbas_index(0x13), 3); /* bit 4 = extended metadata */
	CU_ASSERT_EQUAL(nvme_ns_flbas_index(0x62), 0x32);
	CU_ASSERT_EQUAL(nvme_num_queues_dw(3, 3), 0x00030003);
	CU_ASSERT_EQUAL(nvmf_connect_ipo_dw0(NVMF_IATTR_DATA, 512), 0x00010200);
}

/* The values the Linux host and target put on the wire (include/linux/nvme.h). */
static void test_auth_wire_values(void)
{
	struct nvmf_auth_cmd cmd;

	CU_ASSERT_EQUAL(NVMF_AUTH_SECP_NVME, 0xe9);
	CU_ASSERT_EQUAL(NVMF_AUTH_SPSP0, 0x01);
	CU_ASSERT_EQUAL(NVMF_AUTH_SPSP1, 0x01);
	CU_ASSERT_EQUAL(NVMF_FCTYPE_AUTH_SEND, 0x05);
	CU_ASSERT_EQUAL(NVMF_FCTYPE_AUTH_RECV, 0x06);
	CU_ASSERT_EQUAL(NVMF_AUTH_TYPE_COMMON, 0x00);
	CU_ASSERT_EQUAL(NVMF_AUTH_TYPE_DHCHAP, 0x01);
	CU_ASSERT_EQUAL(NVMF_AUTH_ID_NEGOTIATE, 0x00);
	CU_ASSERT_EQUAL(NVMF_AUTH_ID_CHALLENGE, 0x01);
	CU_ASSERT_EQUAL(NVMF_AUTH_ID_REPLY, 0x02);
	CU_ASSERT_EQUAL(NVMF_AUTH_ID_SUCCESS1, 0x03);
	CU_ASSERT_EQUAL(NVMF_AUTH_ID_SUCCESS2, 0x04);
	CU_ASSERT_EQUAL(NVMF_AUTH_ID_FAILURE2, 0xf0);
	CU_ASSERT_EQUAL(NVMF_AUTH_ID_FAILURE1, 0xf1);
	CU_ASSERT_EQUAL(NVMF_AUTH_RESCODE_FAILED, 0x01);
	CU_ASSERT_EQUAL(NVMF_AUTH_FAIL_FAILED, 0x01);
	CU_ASSERT_EQUAL(NVMF_AUTH_FAIL_NOT_USABLE, 0x02);
	CU_ASSERT_EQUAL(NVMF_AUTH_FAIL_CONCAT_MISMATCH, 0x03);
	CU_ASSERT_EQUAL(NVMF_AUTH_FAIL_HASH_UNUSABLE, 0x04);
	CU_ASSERT_EQUAL(NVMF_AUTH_FAIL_DHGROUP_UNUSABLE, 0x05);
	CU_ASSERT_EQUAL(NVMF_AUTH_FAIL_INCORRECT_PAYLOAD, 0x06);
	CU_ASSERT_EQUAL(NVMF_AUTH_FAIL_INCORRECT_PROTOCOL, 0x07);
	CU_ASSERT_EQUAL(NVMF_AUTH_DHCHAP_AUTHID, 0x01);
	CU_ASSERT_EQUAL(NVMF_AUTH_IDLIST_HASH_MAX, 30);
	CU_ASSERT_EQUAL(NVMF_AUTH_CVALID, 0x01);
	CU_ASSERT_EQUAL(NVMF_AUTH_RVALID, 0x01);
	CU_ASSERT_EQUAL(NVMF_CONNECT_AUTHREQ_ATR, 0x20000);
	CU_ASSERT_EQUAL(NVMF_CONNECT_AUTHREQ_ASCR, 0x40000);

	/* tl_al is DW11 and SECP/SPSP1/SPSP0 the bytes of DW10 above reserved byte 40 */
	memset(&cmd, 0, sizeof(cmd));
	cmd.secp = NVMF_AUTH_SECP_NVME;
	cmd.spsp1 = NVMF_AUTH_SPSP1;
	cmd.spsp0 = NVMF_AUTH_SPSP0;
	cmd.tl_al = htole32(0x11223344);
	CU_ASSERT_EQUAL(((uint8_t *)&cmd)[43], 0xe9);
	CU_ASSERT_EQUAL(((uint8_t *)&cmd)[42], 0x01);
	CU_ASSERT_EQUAL(((uint8_t *)&cmd)[41], 0x01);
	CU_ASSERT_EQUAL(((uint8_t *)&cmd)[40], 0x00);
	CU_ASSERT_EQUAL(((uint8_t *)&cmd)[44], 0x44);
}

static const struct ut_case cases[] = {
	UT_CASE(test_status_wire),
	UT_CASE(test_cqe_build),
	UT_CASE(test_u128),
	UT_CASE(test_le_bytewise),
	UT_CASE(test_small_helpers),
	UT_CASE(test_auth_wire_values),
	UT_END,
};

UT_MAIN("protocol/nvme", cases)

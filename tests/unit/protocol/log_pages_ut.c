/* SPDX-License-Identifier: MIT */
/* Tests for protocol/log_pages.c and the AEN DW0 encoding. */
#include <string.h>

#include "protocol/log_pages.h"
#include "ut.h"

static void test_decode(void)
{
	struct nvme_get_log_cmd c;
	struct rblk_get_log_info info;
	uint16_t loc;
	uint8_t *b = (uint8_t *)&c;

	memset(&c, 0, sizeof(c));
	c.opc = NVME_ADMIN_GET_LOG_PAGE;
	b[4] = 0xFF; b[5] = 0xFF; b[6] = 0xFF; b[7] = 0xFF; /* NSID all */
	b[40] = 0x70;  /* LID */
	b[41] = 0x80;  /* RAE */
	b[42] = 0xFF;  /* NUMDL: 256 dwords */
	CU_ASSERT_EQUAL(rblk_get_log_decode(&c, &info, &loc), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(info.nsid, 0xFFFFFFFF);
	CU_ASSERT_EQUAL(info.lid, 0x70);
	CU_ASSERT_TRUE(info.rae);
	CU_ASSERT_EQUAL(info.lsp, 0);
	CU_ASSERT_EQUAL(info.len, 1024);
	CU_ASSERT_EQUAL(info.lpo, 0);

	b[41] = 0x05;                          /* LSP 5, no RAE */
	b[42] = 0xFF; b[43] = 0xFF; b[44] = 0x01; /* NUMD 0x1FFFF -> 0x20000 dwords */
	b[48] = 0x00; b[49] = 0x10;            /* LPOL 4096 */
	b[52] = 0x01;                          /* LPOU 1 */
	b[59] = 0x02;                          /* CSI ZNS */
	CU_ASSERT_EQUAL(rblk_get_log_decode(&c, &info, &loc), NVME_SC_SUCCESS);
	CU_ASSERT_FALSE(info.rae);
	CU_ASSERT_EQUAL(info.lsp, 5);
	CU_ASSERT_EQUAL(info.len, 0x80000);
	CU_ASSERT_EQUAL(info.lpo, 0x100001000ull);
	CU_ASSERT_EQUAL(info.csi, 2);

	/* Maximum NUMD does not overflow. */
	b[42] = b[43] = b[44] = b[45] = 0xFF;
	CU_ASSERT_EQUAL(rblk_get_log_decode(&c, &info, &loc), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(info.len, 0x400000000ull);

	b[58] = 0x80; /* offset type: index */
	CU_ASSERT_EQUAL(rblk_get_log_decode(&c, &info, &loc), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(loc, 58);
}

static void test_read(void)
{
	uint8_t log[512], buf[1024];

	for (int i = 0; i < 512; i++)
		log[i] = (uint8_t)(i * 7 + 1);
	memset(buf, 0xAA, sizeof(buf));
	CU_ASSERT_EQUAL(rblk_log_read(buf, 1024, 0, log, sizeof(log)), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(buf, log, 512), 0);
	for (int i = 512; i < 1024; i++)
		CU_ASSERT_EQUAL(buf[i], 0);

	memset(buf, 0xAA, sizeof(buf));
	CU_ASSERT_EQUAL(rblk_log_read(buf, 16, 500, log, sizeof(log)), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(buf, log + 500, 12), 0);
	CU_ASSERT_EQUAL(memcmp(buf + 12, "\0\0\0\0", 4), 0);
	CU_ASSERT_EQUAL(buf[16], 0xAA);

	CU_ASSERT_EQUAL(rblk_log_read(buf, 8, 512, log, sizeof(log)), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(buf, "\0\0\0\0\0\0\0\0", 8), 0);
	CU_ASSERT_EQUAL(rblk_log_read(buf, 8, 516, log, sizeof(log)), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_log_read(buf, 8, 6, log, sizeof(log)), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_log_read(buf, 8, 0, NULL, 0), NVME_SC_SUCCESS);
}

static void test_aen_dw0(void)
{
	CU_ASSERT_EQUAL(nvme_aen_dw0(NVME_AER_TYPE_NOTICE, NVME_AER_NOTICE_NS_CHANGED, NVME_LOG_CHANGED_NS),
			0x00040002);
	CU_ASSERT_EQUAL(nvme_aen_dw0(NVME_AER_TYPE_NOTICE, NVME_AER_NOTICE_DISC_CHANGED, NVME_LOG_DISC),
			0x0070F002);
	CU_ASSERT_EQUAL(NVME_AEN_DW0_TYPE(0x0070F002u), NVME_AER_TYPE_NOTICE);
	CU_ASSERT_EQUAL(NVME_AEN_DW0_INFO(0x0070F002u), 0xF0);
	CU_ASSERT_EQUAL(NVME_AEN_DW0_LID(0x0070F002u), 0x70);
}

static const struct ut_case cases[] = {
	UT_CASE(test_decode),
	UT_CASE(test_read),
	UT_CASE(test_aen_dw0),
	UT_END,
};

UT_MAIN("protocol/log_pages", cases)

/* SPDX-License-Identifier: MIT */
/* Tests for protocol/lba.c: range edges and overflow, byte conversions. */
#include <errno.h>
#include <string.h>

#include "protocol/lba.h"
#include "ut.h"

#define OOR (NVME_SC_LBA_RANGE | NVME_SC_DNR)

static void test_range_edges(void)
{
	CU_ASSERT_EQUAL(OOR, 0x4080);
	CU_ASSERT_EQUAL(rblk_lba_range_check(0, 1, 1000), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(rblk_lba_range_check(999, 1, 1000), NVME_SC_SUCCESS); /* ends exactly at nsze */
	CU_ASSERT_EQUAL(rblk_lba_range_check(0, 1000, 1000), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(rblk_lba_range_check(1000, 1, 1000), OOR);            /* one past */
	CU_ASSERT_EQUAL(rblk_lba_range_check(999, 2, 1000), OOR);
	CU_ASSERT_EQUAL(rblk_lba_range_check(0, 1001, 1000), OOR);
	CU_ASSERT_EQUAL(rblk_lba_range_check(0, 1, 0), OOR);                   /* empty namespace */
}

static void test_range_overflow(void)
{
	CU_ASSERT_EQUAL(rblk_lba_range_check(UINT64_MAX, 1, 1000), OOR);
	CU_ASSERT_EQUAL(rblk_lba_range_check(1, UINT64_MAX, 1000), OOR);
	CU_ASSERT_EQUAL(rblk_lba_range_check(UINT64_MAX, UINT64_MAX, UINT64_MAX), OOR);
	/* slba + nlb would wrap to 0: must not look in range. */
	CU_ASSERT_EQUAL(rblk_lba_range_check(UINT64_MAX - 1, 2, UINT64_MAX), OOR);
	CU_ASSERT_EQUAL(rblk_lba_range_check(UINT64_MAX - 2, 2, UINT64_MAX), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(rblk_lba_range_check(0, UINT64_MAX, UINT64_MAX), NVME_SC_SUCCESS);
	/* A wire NLB of 0xFFFF (65536 blocks) near the end. */
	CU_ASSERT_EQUAL(rblk_lba_range_check(1000 - 65536 + 1, 65536, 1000), OOR);
}

static void test_range_zero_count(void)
{
	/* DSM ranges carry a 1-based count that may be 0. */
	CU_ASSERT_EQUAL(rblk_lba_range_check(1000, 0, 1000), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(rblk_lba_range_check(1001, 0, 1000), OOR);
}

static void test_to_bytes(void)
{
	uint64_t b = 0;

	CU_ASSERT_EQUAL(rblk_lba_to_bytes(8, 9, &b), 0);
	CU_ASSERT_EQUAL(b, 4096);
	CU_ASSERT_EQUAL(rblk_lba_to_bytes(65536, 12, &b), 0);
	CU_ASSERT_EQUAL(b, 256ull << 20);
	CU_ASSERT_EQUAL(rblk_lba_to_bytes(0, 63, &b), 0);
	CU_ASSERT_EQUAL(b, 0);
	CU_ASSERT_EQUAL(rblk_lba_to_bytes((1ull << 55) - 1, 9, &b), 0);
	CU_ASSERT_EQUAL(b, ((1ull << 55) - 1) << 9);
	b = 77;
	CU_ASSERT_EQUAL(rblk_lba_to_bytes(1ull << 55, 9, &b), -EOVERFLOW);
	CU_ASSERT_EQUAL(b, 77);
	CU_ASSERT_EQUAL(rblk_lba_to_bytes(UINT64_MAX, 1, &b), -EOVERFLOW);
	CU_ASSERT_EQUAL(rblk_lba_to_bytes(1, 64, &b), -EINVAL);
	CU_ASSERT_EQUAL(rblk_lba_to_bytes(UINT64_MAX, 0, &b), 0);
	CU_ASSERT_EQUAL(b, UINT64_MAX);
}

static void test_rw_fields(void)
{
	struct nvme_rw_cmd c;
	uint8_t *p = (uint8_t *)&c;

	memset(&c, 0, sizeof(c));
	/* SLBA at byte 40, NLB (0-based) at byte 48. */
	for (int i = 0; i < 8; i++)
		p[40 + i] = (uint8_t)(0x11 * (i + 1));
	CU_ASSERT_EQUAL(rblk_rw_slba(&c), 0x8877665544332211ull);
	CU_ASSERT_EQUAL(rblk_rw_nlb(&c), 1);
	p[48] = 0xFF;
	p[49] = 0xFF;
	CU_ASSERT_EQUAL(rblk_rw_nlb(&c), 65536);
	p[48] = 7;
	p[49] = 0;
	CU_ASSERT_EQUAL(rblk_rw_nlb(&c), 8);
}

static const struct ut_case cases[] = {
	UT_CASE(test_range_edges),
	UT_CASE(test_range_overflow),
	UT_CASE(test_range_zero_count),
	UT_CASE(test_to_bytes),
	UT_CASE(test_rw_fields),
	UT_END,
};

UT_MAIN("protocol/lba", cases)

/* SPDX-License-Identifier: MIT */
/* Tests for cli/ublk/params.c: ublk parameters from made-up Identify data. */
#include <errno.h>
#include <string.h>

#include "cli/ublk/params.h"
#include "protocol/le.h"
#include "ut.h"

static struct nvme_id_ctrl idc;
static struct nvme_id_ns idn;

static void reset(uint16_t oncs, uint8_t vwc)
{
	memset(&idc, 0, sizeof(idc));
	memset(&idn, 0, sizeof(idn));
	idc.oncs = rblk_cpu_to_le16(oncs);
	idc.vwc = vwc;
}

static void test_512_with_cache_dsm_and_write_zeroes(void)
{
	struct rblk_ublk_geometry g = { .block_size = 512, .blocks = 2048, .max_xfer = 128 << 10,
					.buf_bytes = 1 << 20 };
	struct ublk_params p;

	reset(NVME_CTRL_ONCS_DSM | NVME_CTRL_ONCS_WRITE_ZEROES, NVME_CTRL_VWC_PRESENT);
	CU_ASSERT_EQUAL_FATAL(rblk_ublk_params_build(&idc, &idn, &g, &p), 0);
	CU_ASSERT_EQUAL(p.len, 60);
	CU_ASSERT_EQUAL(p.types, UBLK_PARAM_TYPE_BASIC | UBLK_PARAM_TYPE_DISCARD);
	CU_ASSERT_EQUAL(p.basic.logical_bs_shift, 9);
	CU_ASSERT_EQUAL(p.basic.physical_bs_shift, 9);
	CU_ASSERT_EQUAL(p.basic.io_min_shift, 9);
	CU_ASSERT_EQUAL(p.basic.io_opt_shift, 9);
	/* the controller's 128 KiB, not the 1 MiB buffer */
	CU_ASSERT_EQUAL(p.basic.max_sectors, 256);
	CU_ASSERT_EQUAL(p.basic.dev_sectors, 2048);
	CU_ASSERT_EQUAL(p.basic.attrs, UBLK_ATTR_FUA | UBLK_ATTR_VOLATILE_CACHE);
	CU_ASSERT_EQUAL(p.discard.discard_granularity, 512);
	CU_ASSERT_EQUAL(p.discard.max_discard_sectors, UINT32_MAX);
	CU_ASSERT_EQUAL(p.discard.max_discard_segments, 1);
	CU_ASSERT_EQUAL(p.discard.max_write_zeroes_sectors, UINT32_MAX);
	CU_ASSERT_EQUAL(p.discard.discard_alignment, 0);
}

static void test_4k_hints_read_only_no_cache_no_discard(void)
{
	struct rblk_ublk_geometry g = { .block_size = 4096, .blocks = 256, .max_xfer = 0,
					.buf_bytes = 256 << 10, .read_only = true };
	struct ublk_params p;

	reset(0, 0);
	idn.nsfeat = NVME_NS_FEAT_IO_OPT;
	idn.npwg = rblk_cpu_to_le16(15);	/* 16 blocks: 64 KiB */
	idn.nows = rblk_cpu_to_le16(31);	/* 32 blocks: 128 KiB */
	CU_ASSERT_EQUAL_FATAL(rblk_ublk_params_build(&idc, &idn, &g, &p), 0);
	CU_ASSERT_EQUAL(p.types, UBLK_PARAM_TYPE_BASIC);
	CU_ASSERT_EQUAL(p.basic.logical_bs_shift, 12);
	CU_ASSERT_EQUAL(p.basic.physical_bs_shift, 16);
	CU_ASSERT_EQUAL(p.basic.io_min_shift, 16);
	CU_ASSERT_EQUAL(p.basic.io_opt_shift, 17);
	/* no MDTS limit: the buffer's 256 KiB */
	CU_ASSERT_EQUAL(p.basic.max_sectors, 512);
	CU_ASSERT_EQUAL(p.basic.dev_sectors, 256 * 8);
	CU_ASSERT_EQUAL(p.basic.attrs, UBLK_ATTR_FUA | UBLK_ATTR_READ_ONLY);
	CU_ASSERT_EQUAL(p.discard.max_discard_sectors, 0);
	CU_ASSERT_EQUAL(p.discard.discard_granularity, 0);
}

static void test_hints_need_nsfeat_and_round_down(void)
{
	struct rblk_ublk_geometry g = { .block_size = 4096, .blocks = 8, .max_xfer = 1 << 20,
					.buf_bytes = 1 << 20 };
	struct ublk_params p;

	reset(0, 0);
	idn.npwg = rblk_cpu_to_le16(7);
	idn.nows = rblk_cpu_to_le16(7);
	/* without NSFEAT bit 4 the fields mean nothing: the block size */
	CU_ASSERT_EQUAL_FATAL(rblk_ublk_params_build(&idc, &idn, &g, &p), 0);
	CU_ASSERT_EQUAL(p.basic.physical_bs_shift, 12);
	CU_ASSERT_EQUAL(p.basic.io_opt_shift, 12);
	/* 3 blocks (12 KiB) is no power of two: 8 KiB */
	idn.nsfeat = NVME_NS_FEAT_IO_OPT;
	idn.npwg = rblk_cpu_to_le16(2);
	idn.nows = rblk_cpu_to_le16(0);
	CU_ASSERT_EQUAL_FATAL(rblk_ublk_params_build(&idc, &idn, &g, &p), 0);
	CU_ASSERT_EQUAL(p.basic.physical_bs_shift, 13);
	CU_ASSERT_EQUAL(p.basic.io_min_shift, 13);
	CU_ASSERT_EQUAL(p.basic.io_opt_shift, 12);
	CU_ASSERT_EQUAL(p.basic.max_sectors, 2048);
}

static void test_write_zeroes_only(void)
{
	struct rblk_ublk_geometry g = { .block_size = 4096, .blocks = 8, .max_xfer = 1 << 20,
					.buf_bytes = 1 << 20 };
	struct ublk_params p;

	reset(NVME_CTRL_ONCS_WRITE_ZEROES, 0);
	CU_ASSERT_EQUAL_FATAL(rblk_ublk_params_build(&idc, &idn, &g, &p), 0);
	CU_ASSERT_EQUAL(p.types, UBLK_PARAM_TYPE_BASIC | UBLK_PARAM_TYPE_DISCARD);
	/* the kernel refuses granularity 0 even with discard off */
	CU_ASSERT_EQUAL(p.discard.discard_granularity, 4096);
	CU_ASSERT_EQUAL(p.discard.max_discard_sectors, 0);
	CU_ASSERT_EQUAL(p.discard.max_discard_segments, 0);
	/* whole 4 KiB blocks: a multiple of 8 sectors */
	CU_ASSERT_EQUAL(p.discard.max_write_zeroes_sectors, UINT32_MAX - 7);
	CU_ASSERT_EQUAL(p.basic.attrs, UBLK_ATTR_FUA);
}

static void test_max_sectors_whole_blocks(void)
{
	/* an odd MDTS-ish limit: rounded down to whole 4 KiB blocks */
	struct rblk_ublk_geometry g = { .block_size = 4096, .blocks = 8, .max_xfer = 10000,
					.buf_bytes = 1 << 20 };
	struct ublk_params p;

	reset(0, 0);
	CU_ASSERT_EQUAL_FATAL(rblk_ublk_params_build(&idc, &idn, &g, &p), 0);
	CU_ASSERT_EQUAL(p.basic.max_sectors, 16);
}

static void test_geometry_ublk_cannot_take(void)
{
	struct rblk_ublk_geometry g = { .block_size = 8192, .blocks = 8, .max_xfer = 1 << 20,
					.buf_bytes = 1 << 20 };
	struct ublk_params p;

	reset(0, 0);
	CU_ASSERT_EQUAL(rblk_ublk_params_build(&idc, &idn, &g, &p), -EINVAL);
	g.block_size = 520;
	CU_ASSERT_EQUAL(rblk_ublk_params_build(&idc, &idn, &g, &p), -EINVAL);
	g.block_size = 256;
	CU_ASSERT_EQUAL(rblk_ublk_params_build(&idc, &idn, &g, &p), -EINVAL);
	g.block_size = 4096;
	g.buf_bytes = 2048;	/* not even one block per request */
	CU_ASSERT_EQUAL(rblk_ublk_params_build(&idc, &idn, &g, &p), -EINVAL);
}

static const struct ut_case cases[] = {
	UT_CASE(test_512_with_cache_dsm_and_write_zeroes),
	UT_CASE(test_4k_hints_read_only_no_cache_no_discard),
	UT_CASE(test_hints_need_nsfeat_and_round_down),
	UT_CASE(test_write_zeroes_only),
	UT_CASE(test_max_sectors_whole_blocks),
	UT_CASE(test_geometry_ublk_cannot_take),
	UT_END,
};

UT_MAIN("cli/ublk/params", cases)

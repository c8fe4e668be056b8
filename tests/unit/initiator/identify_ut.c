/* SPDX-License-Identifier: MIT */
/*
 * Tests for initiator/identify.c: what the host refuses in Identify
 * Controller (no keyed SGLs, ICDOFF, IORCSZ, another CNTLID, a discovery
 * connection to an NVM controller) and the namespace geometry (inactive,
 * unsupported LBA formats, the extended FLBAS index).
 */
#include <errno.h>
#include <string.h>

#include "initiator/identify.h"
#include "protocol/nvme.h"
#include "ut.h"

#define NQN "nqn.2024-01.org.example:disk0"

static struct nvme_id_ctrl good_ctrl(void)
{
	struct nvme_id_ctrl id;

	memset(&id, 0, sizeof(id));
	id.sgls = rblk_cpu_to_le32(0x00100005);
	id.iorcsz = rblk_cpu_to_le32(1);
	id.cntlid = rblk_cpu_to_le16(7);
	id.cntrltype = NVME_CTRL_TYPE_IO;
	memcpy(id.subnqn, NQN, sizeof(NQN));
	return id;
}

static void test_ctrl_checks(void)
{
	struct nvme_id_ctrl id = good_ctrl();

	CU_ASSERT_EQUAL(rblk_id_ctrl_check(&id, 7, false, NQN), 0);
	CU_ASSERT_EQUAL(rblk_id_ctrl_check(&id, 8, false, NQN), -EPROTO);
	CU_ASSERT_EQUAL(rblk_id_ctrl_check(&id, 7, true, NQN), -EPROTO);
	id.sgls = rblk_cpu_to_le32(1);
	CU_ASSERT_EQUAL(rblk_id_ctrl_check(&id, 7, false, NQN), -EPROTONOSUPPORT);
	id = good_ctrl();
	id.icdoff = rblk_cpu_to_le16(1);
	CU_ASSERT_EQUAL(rblk_id_ctrl_check(&id, 7, false, NQN), -EPROTONOSUPPORT);
	id = good_ctrl();
	id.iorcsz = rblk_cpu_to_le32(2);
	CU_ASSERT_EQUAL(rblk_id_ctrl_check(&id, 7, false, NQN), -EPROTONOSUPPORT);
	/* A subnqn field with no NUL at all is cut, not over-read. */
	id = good_ctrl();
	memset(id.subnqn, 'a', sizeof(id.subnqn));
	CU_ASSERT_EQUAL(rblk_id_ctrl_check(&id, 7, false, NQN), 0);
	id.cntrltype = NVME_CTRL_TYPE_DISCOVERY;
	CU_ASSERT_EQUAL(rblk_id_ctrl_check(&id, 7, true, NQN), 0);
}

static void test_ns_geometry(void)
{
	struct nvme_id_ns id;
	struct rblk_ns_geom g = { 0 };

	memset(&id, 0, sizeof(id));
	CU_ASSERT_EQUAL(rblk_id_ns_geom(&id, 1, &g), -ENODEV);
	id.nsze = id.ncap = rblk_cpu_to_le64(2048);
	id.nlbaf = 1;
	id.lbaf[0].ds = 9;
	id.lbaf[1].ds = 12;
	id.flbas = 1;
	id.nsattr = NVME_NS_NSATTR_WP;
	CU_ASSERT_EQUAL(rblk_id_ns_geom(&id, 1, &g), 0);
	CU_ASSERT_EQUAL(g.nsze, 2048);
	CU_ASSERT_EQUAL(g.lba_shift, 12);
	CU_ASSERT_TRUE(g.read_only);
	/* Index 17 (FLBAS bits 6:5 = 1) past NLBAF. */
	id.flbas = 0x21;
	CU_ASSERT_EQUAL(rblk_id_ns_geom(&id, 1, &g), -EOPNOTSUPP);
	id.flbas = 0;
	id.lbaf[0].ms = rblk_cpu_to_le16(8);
	CU_ASSERT_EQUAL(rblk_id_ns_geom(&id, 1, &g), -EOPNOTSUPP);
	id.lbaf[0].ms = 0;
	id.lbaf[0].ds = 13;
	CU_ASSERT_EQUAL(rblk_id_ns_geom(&id, 1, &g), -EOPNOTSUPP);
}

static const struct ut_case cases[] = {
	UT_CASE(test_ctrl_checks),
	UT_CASE(test_ns_geometry),
	UT_END,
};

UT_MAIN("initiator/identify", cases)

/* SPDX-License-Identifier: MIT */
/*
 * Drives what the initiator derives from Identify data the target sent
 * (initiator/identify.c, the limits in initiator/cmd.c): the input is a
 * 4 KiB Identify Controller page and, read again, an Identify Namespace
 * page. Checks: an accepted controller has keyed SGLs, ICDOFF 0, IORCSZ <= 1
 * and the CNTLID Connect gave; the transfer and in-capsule limits derived
 * from it stay within the host's caps; an accepted namespace has a size and
 * a block size of 512 B..4 KiB, and I/O splitting over it makes progress.
 */
#include <errno.h>

#include "fuzz.h"
#include "initiator/cmd.h"
#include "initiator/identify.h"

#define NQN "nqn.2024-01.org.example:disk0"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct nvme_id_ctrl ctrl;
	static struct nvme_id_ns ns;
	struct rblk_ns_geom g;
	uint16_t cntlid;
	bool disc;
	int ret;

	if (size < 3)
		return 0;
	cntlid = (uint16_t)(data[0] | data[1] << 8);
	disc = data[2] & 1;
	data += 3;
	size -= 3;
	memset(&ctrl, 0, sizeof(ctrl));
	memcpy(&ctrl, data, size < sizeof(ctrl) ? size : sizeof(ctrl));
	memset(&ns, 0, sizeof(ns));
	memcpy(&ns, data, size < sizeof(ns) ? size : sizeof(ns));

	ret = rblk_id_ctrl_check(&ctrl, cntlid, disc, NQN);
	if (ret == 0) {
		uint32_t max_xfer = rblk_mdts_bytes(ctrl.mdts);
		uint32_t ic = rblk_incapsule_max(1, rblk_le32(ctrl.sgls), rblk_le32(ctrl.ioccsz), false);

		FUZZ_CHECK(rblk_le32(ctrl.sgls) & NVME_CTRL_SGLS_KEYED);
		FUZZ_CHECK(!ctrl.icdoff && rblk_le32(ctrl.iorcsz) <= 1);
		FUZZ_CHECK(rblk_le16(ctrl.cntlid) == cntlid);
		FUZZ_CHECK(max_xfer >= 4096 && max_xfer <= RBLK_MAX_XFER_CAP);
		FUZZ_CHECK(rblk_incapsule_max(0, rblk_le32(ctrl.sgls), rblk_le32(ctrl.ioccsz), false) == 0);
		if (ic)
			FUZZ_CHECK((uint64_t)ic + 64 <= (uint64_t)rblk_le32(ctrl.ioccsz) * 16);
	} else {
		FUZZ_CHECK(ret == -EPROTO || ret == -EPROTONOSUPPORT);
	}

	ret = rblk_id_ns_geom(&ns, 1, &g);
	if (ret == 0) {
		uint32_t max_nlb = rblk_split_max_nlb(rblk_mdts_bytes(ctrl.mdts), g.lba_shift);

		FUZZ_CHECK(g.nsze && g.lba_shift >= 9 && g.lba_shift <= 12);
		FUZZ_CHECK(max_nlb >= 1 && max_nlb <= RBLK_MAX_NLB_PER_CMD);
		FUZZ_CHECK((uint64_t)rblk_split_count(g.nsze, max_nlb) * max_nlb >= g.nsze ||
			   g.nsze > (uint64_t)UINT32_MAX * max_nlb);
	} else {
		FUZZ_CHECK(ret == -ENODEV || ret == -EOPNOTSUPP);
	}
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	static struct nvme_id_ctrl c;
	struct nvme_id_ns *n = (struct nvme_id_ns *)&c;

	if (idx > 1 || sizeof(c) + 3 > max)
		return 0;
	memset(&c, 0, sizeof(c));
	if (idx == 0) { /* what rblk-target answers (as an Identify Controller page) */
		c.cntlid = rblk_cpu_to_le16(1);
		c.sgls = rblk_cpu_to_le32(0x00100005);
		c.ioccsz = rblk_cpu_to_le32((64 + 8192) / 16);
		c.iorcsz = rblk_cpu_to_le32(1);
		c.mdts = 8;
		c.cntrltype = NVME_CTRL_TYPE_IO;
		memcpy(c.subnqn, NQN, sizeof(NQN));
	} else { /* a namespace page: 2048 blocks of 4 KiB (format 1) */
		n->nsze = n->ncap = rblk_cpu_to_le64(2048);
		n->nlbaf = 1;
		n->flbas = 1;
		n->lbaf[0].ds = 9;
		n->lbaf[1].ds = 12;
	}
	buf[0] = 1;
	buf[1] = 0;
	buf[2] = 0;
	memcpy(buf + 3, &c, sizeof(c));
	return sizeof(c) + 3;
}

/* SPDX-License-Identifier: MIT */
/* Checks of Identify data from the target: see identify.h. */
#include <errno.h>
#include <string.h>

#include "common/log.h"
#include "initiator/identify.h"
#include "protocol/nqn.h"
#include "protocol/nvme.h"

int rblk_id_ctrl_check(const struct nvme_id_ctrl *id, uint16_t cntlid, bool discovery,
		       const char *subnqn)
{
	uint32_t sgls = rblk_le32(id->sgls);
	char idnqn[NVMF_NQN_FIELD_LEN];

	if (!(sgls & NVME_CTRL_SGLS_KEYED)) {
		RBLK_ERR("the controller does not support keyed SGLs (SGLS %#x): mandatory for RDMA",
			 sgls);
		return -EPROTONOSUPPORT;
	}
	if (rblk_le16(id->icdoff)) {
		RBLK_ERR("ICDOFF %u is not supported (in-capsule data must start right after the SQE)",
			 rblk_le16(id->icdoff));
		return -EPROTONOSUPPORT;
	}
	if (rblk_le32(id->iorcsz) > 1) {
		RBLK_ERR("IORCSZ %u: responses larger than a 16-byte CQE are not supported",
			 rblk_le32(id->iorcsz));
		return -EPROTONOSUPPORT;
	}
	if (rblk_le16(id->cntlid) != cntlid) {
		RBLK_ERR("Identify says controller %u, Connect said %u", rblk_le16(id->cntlid),
			 cntlid);
		return -EPROTO;
	}
	/* The field need not be terminated: a full 256 bytes is cut, never over-read. */
	memcpy(idnqn, id->subnqn, sizeof(id->subnqn));
	idnqn[sizeof(idnqn) - 1] = '\0';
	if (discovery && id->cntrltype != NVME_CTRL_TYPE_DISCOVERY &&
	    !rblk_nqn_is_discovery(idnqn)) {
		RBLK_ERR("%s is not a discovery controller", idnqn);
		return -EPROTO;
	}
	if (idnqn[0] && strcmp(idnqn, subnqn))
		RBLK_INFO("the controller calls its subsystem %s (connected as %s)", idnqn, subnqn);
	return 0;
}

int rblk_id_ns_geom(const struct nvme_id_ns *id, uint32_t nsid, struct rblk_ns_geom *g)
{
	unsigned idx = nvme_ns_flbas_index(id->flbas);
	const struct nvme_lbaf *lbaf = &id->lbaf[idx];

	/* An inactive NSID reads as zeros; NCAP 0 means absent (as the Linux host). */
	if (!id->ncap || !id->nsze)
		return -ENODEV; /* the caller says which subsystem */
	if (idx > id->nlbaf || rblk_le16(lbaf->ms) || lbaf->ds < 9 || lbaf->ds > 12) {
		RBLK_ERR("namespace %u: LBA format %u (data 2^%u, metadata %u bytes) is not supported",
			 nsid, idx, lbaf->ds, rblk_le16(lbaf->ms));
		return -EOPNOTSUPP;
	}
	g->nsze = rblk_le64(id->nsze);
	g->lba_shift = lbaf->ds;
	g->read_only = id->nsattr & NVME_NS_NSATTR_WP;
	return 0;
}

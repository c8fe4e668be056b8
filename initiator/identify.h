/* SPDX-License-Identifier: MIT */
/*
 * What the host reads from Identify data before it trusts a controller or a
 * namespace: the checks of nvme_rdma_setup_ctrl / nvme_init_identify and
 * the namespace geometry. Pure (no controller, no RDMA): these bytes come
 * from the target, so they are unit-tested and fuzzed on their own.
 */
#ifndef RBLK_INITIATOR_IDENTIFY_H
#define RBLK_INITIATOR_IDENTIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "protocol/nvme_id.h"

/*
 * Identify Controller of controller @cntlid (from Connect), reached as
 * @subnqn, @discovery when we connected to a discovery controller.
 * 0, -EPROTONOSUPPORT (keyed SGLs missing, ICDOFF, IORCSZ the host cannot
 * use) or -EPROTO (another CNTLID, not a discovery controller).
 */
int rblk_id_ctrl_check(const struct nvme_id_ctrl *id, uint16_t cntlid, bool discovery,
		       const char *subnqn);

struct rblk_ns_geom {
	uint64_t nsze;       /* blocks */
	unsigned lba_shift;  /* 9..12 */
	bool read_only;
};

/*
 * The geometry of namespace @nsid from its Identify Namespace data: 0,
 * -ENODEV (inactive: NCAP or NSZE 0) or -EOPNOTSUPP (an LBA format the host
 * does not do: metadata, data size outside 512 B..4 KiB, index past NLBAF;
 * logged here).
 */
int rblk_id_ns_geom(const struct nvme_id_ns *id, uint32_t nsid, struct rblk_ns_geom *g);

#endif

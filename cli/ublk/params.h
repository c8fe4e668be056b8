/* SPDX-License-Identifier: MIT */
/*
 * The ublk device parameters of a namespace (SET_PARAMS), computed from the
 * controller's and the namespace's Identify data alone, so that tests can
 * feed made-up Identify structures.
 */
#ifndef RBLK_CLI_UBLK_PARAMS_H
#define RBLK_CLI_UBLK_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/ublk/uapi.h"
#include "protocol/nvme.h"

struct rblk_ublk_geometry {
	uint32_t block_size;		/* the namespace's LBA data size, bytes */
	uint64_t blocks;		/* the namespace's size in blocks */
	uint32_t max_xfer;		/* the controller's largest transfer (rblk_ctrl_max_xfer) */
	uint32_t buf_bytes;		/* each tag's data buffer */
	bool read_only;			/* write-protected namespace, or --read-only */
};

/*
 * Fills @p: basic (sizes, max_sectors = the smaller of max_xfer and the
 * buffer, physical block / io_min from NPWG and io_opt from NOWS when
 * Identify Namespace says they are valid, volatile cache from VWC, FUA,
 * read-only) and, when ONCS has Dataset Management or Write Zeroes, discard
 * (one range per request, block granularity). 0, or -EINVAL when ublk
 * cannot express the geometry (a block size that is not a power of two in
 * 512..4096, or a buffer smaller than one block).
 */
int rblk_ublk_params_build(const struct nvme_id_ctrl *idc, const struct nvme_id_ns *idn,
			   const struct rblk_ublk_geometry *g, struct ublk_params *p);

#endif

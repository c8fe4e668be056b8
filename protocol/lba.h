/* SPDX-License-Identifier: MIT */
/*
 * LBA arithmetic on values straight from the wire, overflow-safe: a host can
 * send SLBA = 2^64 - 1, and slba + nlb must never wrap into "in range".
 */
#ifndef RBLK_PROTOCOL_LBA_H
#define RBLK_PROTOCOL_LBA_H

#include <stdint.h>

#include "protocol/nvme.h"

/*
 * NVME_SC_SUCCESS when blocks [slba, slba + nlb) lie inside a namespace of
 * nsze blocks, else NVME_SC_LBA_RANGE | DNR. nlb is a count (1-based); a
 * zero count is in range when slba <= nsze.
 */
uint16_t rblk_lba_range_check(uint64_t slba, uint64_t nlb, uint64_t nsze);

/* *bytes = nlb << lba_shift. -EINVAL for lba_shift >= 64, -EOVERFLOW on overflow. */
int rblk_lba_to_bytes(uint64_t nlb, unsigned lba_shift, uint64_t *bytes);

/*
 * Read / Write / Write Zeroes fields: SLBA and the 1-based block count
 * (NLB on the wire is 0-based, so it is never 0 here).
 */
static inline uint64_t rblk_rw_slba(const struct nvme_rw_cmd *cmd)
{
	return rblk_le64(cmd->slba);
}

static inline uint32_t rblk_rw_nlb(const struct nvme_rw_cmd *cmd)
{
	return (uint32_t)rblk_le16(cmd->nlb) + 1;
}

#endif

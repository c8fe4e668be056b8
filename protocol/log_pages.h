/* SPDX-License-Identifier: MIT */
/*
 * Get Log Page plumbing shared by every log: decoding the command's fields
 * and serving a [LPO, LPO + length) window of a log held in memory. The
 * discovery log has its own windowed reader (disc.h) because it is never
 * materialised whole. AEN DW0 encoding is nvme_aen_dw0() in nvme.h.
 */
#ifndef RBLK_PROTOCOL_LOG_PAGES_H
#define RBLK_PROTOCOL_LOG_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/nvme.h"

struct rblk_get_log_info {
	uint32_t nsid;
	uint8_t lid;
	uint8_t lsp;    /* log specific field, 7 bits */
	bool rae;       /* retain asynchronous event */
	uint16_t lsi;
	uint8_t csi;
	uint8_t uuid_idx;
	uint64_t len;   /* bytes: (NUMD + 1) * 4, up to 16 GiB */
	uint64_t lpo;   /* byte offset */
};

/*
 * Decode a Get Log Page SQE. Invalid Field | DNR (*err_loc set) when the
 * offset type bit asks for an index offset (not supported).
 */
uint16_t rblk_get_log_decode(const struct nvme_get_log_cmd *cmd, struct rblk_get_log_info *out,
			     uint16_t *err_loc);

/*
 * Copy bytes [lpo, lpo + len) of the log (log_len bytes at log) into buf,
 * zero-filling past its end. Invalid Field | DNR when lpo is not dword
 * aligned or lpo > log_len.
 */
uint16_t rblk_log_read(void *buf, uint32_t len, uint64_t lpo, const void *log, size_t log_len);

#endif

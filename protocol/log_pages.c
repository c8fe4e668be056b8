/* SPDX-License-Identifier: MIT */
/* Get Log Page decoding and windowed reads of in-memory logs. */
#include <string.h>

#include "protocol/log_pages.h"

#define LOC_LPO ((uint16_t)offsetof(struct nvme_get_log_cmd, lpol))
#define LOC_OT ((uint16_t)offsetof(struct nvme_get_log_cmd, ot))
#define NVME_LOG_OT 0x80

uint16_t rblk_get_log_decode(const struct nvme_get_log_cmd *cmd, struct rblk_get_log_info *out,
			     uint16_t *err_loc)
{
	memset(out, 0, sizeof(*out));
	*err_loc = 0xFFFF;
	out->nsid = rblk_le32(cmd->nsid);
	out->lid = cmd->lid;
	out->lsp = cmd->lsp & NVME_LOG_LSP_MASK;
	out->rae = (cmd->lsp & NVME_LOG_RAE) != 0;
	out->lsi = rblk_le16(cmd->lsi);
	out->csi = cmd->csi;
	out->uuid_idx = cmd->uuid_idx & 0x7F;
	out->len = nvme_get_log_numd(cmd) * 4;
	out->lpo = nvme_get_log_lpo(cmd);
	if (cmd->ot & NVME_LOG_OT) {
		*err_loc = LOC_OT;
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	return NVME_SC_SUCCESS;
}

uint16_t rblk_log_read(void *buf, uint32_t len, uint64_t lpo, const void *log, size_t log_len)
{
	size_t n;

	if ((lpo & 3) || lpo > log_len)
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	n = log_len - (size_t)lpo;
	if (n > len)
		n = len;
	if (n)
		memcpy(buf, (const uint8_t *)log + lpo, n);
	memset((uint8_t *)buf + n, 0, len - n);
	return NVME_SC_SUCCESS;
}

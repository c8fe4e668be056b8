/* SPDX-License-Identifier: MIT */
/* Fabrics property map, Property Get/Set decoding and the CC enable check. */
#include <errno.h>
#include <stddef.h>

#include "protocol/props.h"

#define LOC_ATTRIB ((uint16_t)offsetof(struct nvmf_property_get_cmd, attrib))
#define LOC_OFST ((uint16_t)offsetof(struct nvmf_property_get_cmd, ofst))

unsigned rblk_prop_size(uint32_t ofst)
{
	switch (ofst) {
	case NVME_REG_CAP:
		return 8;
	case NVME_REG_VS:
	case NVME_REG_CC:
	case NVME_REG_CSTS:
	case NVME_REG_NSSR:
	case NVME_REG_CRTO:
		return 4;
	}
	return 0;
}

/*
 * want: the size the command may use for ofst, 0 when it may not touch ofst
 * at all (an unknown offset, or one nvmet does not serve for this command).
 */
static uint16_t check(uint8_t attrib, unsigned want, unsigned *size, uint16_t *err_loc)
{
	unsigned got;

	switch (attrib & NVMF_PROP_SIZE_MASK) {
	case NVMF_PROP_SIZE_4:
		got = 4;
		break;
	case NVMF_PROP_SIZE_8:
		got = 8;
		break;
	default:
		*err_loc = LOC_ATTRIB;
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	if (!want) {
		*err_loc = LOC_OFST;
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	if (got != want) {
		*err_loc = LOC_ATTRIB;
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	*size = got;
	*err_loc = 0xFFFF;
	return NVME_SC_SUCCESS;
}

/*
 * nvmet reads CAP, VS, CC and CSTS only (docs/interop.md §7.2): NSSR
 * and CRTO exist in the register map but Get of them is Invalid Field.
 */
static unsigned get_size(uint32_t ofst)
{
	return ofst == NVME_REG_NSSR || ofst == NVME_REG_CRTO ? 0 : rblk_prop_size(ofst);
}

uint16_t rblk_prop_get_decode(const struct nvmf_property_get_cmd *cmd, uint32_t *ofst,
			      unsigned *size, uint16_t *err_loc)
{
	*ofst = rblk_le32(cmd->ofst);
	*size = 0;
	return check(cmd->attrib, get_size(*ofst), size, err_loc);
}

uint16_t rblk_prop_set_decode(const struct nvmf_property_set_cmd *cmd, uint32_t *ofst,
			      uint32_t *value, uint16_t *err_loc)
{
	unsigned size = 0;
	uint16_t status;

	*ofst = rblk_le32(cmd->ofst);
	*value = 0;
	/* Only CC is writable, as 4 bytes (nvmet; NSSR resets are not offered). */
	status = check(cmd->attrib, *ofst == NVME_REG_CC ? 4 : 0, &size, err_loc);
	if (status)
		return status;
	*value = (uint32_t)rblk_le64(cmd->value);
	return NVME_SC_SUCCESS;
}

int rblk_cc_validate(uint32_t cc, uint64_t cap, bool io_ctrl)
{
	uint32_t css = NVME_CC_CSS(cc);

	if (io_ctrl && (NVME_CC_IOSQES(cc) != NVME_SQE_SHIFT || NVME_CC_IOCQES(cc) != NVME_CQE_SHIFT))
		return -EINVAL;
	if (NVME_CC_MPS(cc) < NVME_CAP_MPSMIN(cap) || NVME_CC_MPS(cc) > NVME_CAP_MPSMAX(cap))
		return -EINVAL;
	if (NVME_CC_AMS(cc) != 0)
		return -EINVAL;
	if (css != NVME_CC_CSS_NVM && !(css == NVME_CC_CSS_CSI && (NVME_CAP_CSS(cap) & NVME_CAP_CSS_CSI)))
		return -EINVAL;
	return 0;
}

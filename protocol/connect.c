/* SPDX-License-Identifier: MIT */
/*
 * Fabrics Connect decode/validate (target) and encode (initiator). The order
 * of the checks follows nvmet (format first, then the controller ID, then the
 * NQNs), so a command with several faults reports what nvmet would report.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "protocol/connect.h"
#include "protocol/nqn.h"

#define IPO_DATA_CNTLID ((uint16_t)offsetof(struct nvmf_connect_data, cntlid))
#define IPO_DATA_SUBNQN ((uint16_t)offsetof(struct nvmf_connect_data, subnqn))
#define IPO_DATA_HOSTNQN ((uint16_t)offsetof(struct nvmf_connect_data, hostnqn))
#define IPO_SQE_SQSIZE ((uint16_t)offsetof(struct nvmf_connect_cmd, sqsize))

static uint16_t invalid_param(uint32_t *dw0_out, uint8_t iattr, uint16_t ipo)
{
	*dw0_out = nvmf_connect_ipo_dw0(iattr, ipo);
	return NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR;
}

/* Copy a wire NQN field into dst and check it, without reading past the field. */
/*
 * On the wire an NQN must be terminated and 1..223 bytes long, nothing more:
 * nvmet accepts names such as "testnqn" or "blktests-subsystem-1" that do not
 * follow the nqn.yyyy-mm.domain form, and hosts configured for it must be able
 * to reach us too. The form is checked (and warned about) where a name is
 * configured, not here.
 */
static int take_nqn(char dst[NVMF_NQN_FIELD_LEN], const char field[NVMF_NQN_FIELD_LEN])
{
	int ret = rblk_nqn_from_field(dst, NVMF_NQN_FIELD_LEN, (const uint8_t *)field);
	size_t len = strlen(dst);

	if (ret)
		return ret;
	return len == 0 || len > NVMF_NQN_SIZE ? -EINVAL : 0;
}

uint16_t rblk_connect_decode(const struct nvmf_connect_cmd *cmd,
			     const struct nvmf_connect_data *data,
			     struct rblk_connect_info *out, uint32_t *dw0_out)
{
	memset(out, 0, sizeof(*out));
	*dw0_out = 0;

	if (cmd->opc != NVME_FABRICS_COMMAND || cmd->fctype != NVMF_FCTYPE_CONNECT)
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	if (rblk_le16(cmd->recfmt) != NVMF_RECFMT_1_0)
		return NVME_SC_CONNECT_FORMAT | NVME_SC_DNR;

	out->qid = rblk_le16(cmd->qid);
	out->sqsize = rblk_le16(cmd->sqsize);
	out->cattr = cmd->cattr;
	out->kato_ms = rblk_le32(cmd->kato);
	out->cntlid = rblk_le16(data->cntlid);
	memcpy(out->hostid, data->hostid, sizeof(out->hostid));

	/* An admin Connect always asks for a new (dynamic) controller. */
	if (out->qid == 0 && out->cntlid != NVMF_CNTLID_DYNAMIC)
		return invalid_param(dw0_out, NVMF_IATTR_DATA, IPO_DATA_CNTLID);
	if (take_nqn(out->subnqn, data->subnqn))
		return invalid_param(dw0_out, NVMF_IATTR_DATA, IPO_DATA_SUBNQN);
	if (take_nqn(out->hostnqn, data->hostnqn))
		return invalid_param(dw0_out, NVMF_IATTR_DATA, IPO_DATA_HOSTNQN);
	/* SQSIZE is 0-based and a queue needs at least 2 entries. */
	if (out->sqsize == 0)
		return invalid_param(dw0_out, NVMF_IATTR_SQE, IPO_SQE_SQSIZE);
	return NVME_SC_SUCCESS;
}

int rblk_connect_encode(const struct rblk_connect_info *in, uint16_t cid,
			struct nvmf_connect_cmd *cmd, struct nvmf_connect_data *data)
{
	memset(cmd, 0, sizeof(*cmd));
	memset(data, 0, sizeof(*data));
	if (in->sqsize == 0)
		return -EINVAL;
	if (rblk_nqn_copy_field(data->subnqn, in->subnqn) ||
	    rblk_nqn_copy_field(data->hostnqn, in->hostnqn)) {
		memset(data, 0, sizeof(*data));
		return -EINVAL;
	}
	memcpy(data->hostid, in->hostid, sizeof(data->hostid));
	data->cntlid = rblk_cpu_to_le16(in->cntlid);

	cmd->opc = NVME_FABRICS_COMMAND;
	cmd->flags = NVME_CMD_PSDT_SGL_MPTR_CONTIG;
	cmd->cid = rblk_cpu_to_le16(cid);
	cmd->fctype = NVMF_FCTYPE_CONNECT;
	cmd->sgl1.keyed.type = NVME_SGL_KEYED_DATA;
	cmd->recfmt = rblk_cpu_to_le16(NVMF_RECFMT_1_0);
	cmd->qid = rblk_cpu_to_le16(in->qid);
	cmd->sqsize = rblk_cpu_to_le16(in->sqsize);
	cmd->cattr = in->cattr;
	cmd->kato = rblk_cpu_to_le32(in->kato_ms);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The Fabrics Connect command: decode + validate on the target (status and
 * IATTR/IPO exactly as nvmet reports them, docs/interop.md §6.6) and encode on
 * the initiator. The RDMA CM private data that precedes it is in cm.h.
 */
#ifndef RBLK_PROTOCOL_CONNECT_H
#define RBLK_PROTOCOL_CONNECT_H

#include <stdint.h>

#include "protocol/cm.h"
#include "protocol/nvmf.h"

struct rblk_connect_info {
	uint16_t qid;
	uint16_t sqsize;   /* 0-based, as on the wire */
	uint8_t cattr;     /* NVMF_CATTR_DISABLE_SQFLOW, ... */
	uint32_t kato_ms;
	uint16_t cntlid;   /* 0xFFFF on the admin queue */
	uint8_t hostid[16];
	char subnqn[NVMF_NQN_FIELD_LEN];
	char hostnqn[NVMF_NQN_FIELD_LEN];
};

/*
 * Decode a Connect SQE and its 1024-byte data. Returns NVME_SC_SUCCESS and
 * fills out, or a status with DNR; *dw0_out (never NULL) receives the CQE DW0
 * to send with that status (0 unless Invalid Parameters):
 *  - opcode != 0x7F or FCTYPE != Connect          Invalid Opcode
 *  - RECFMT != 0                                  Connect Incompatible Format
 *  - qid 0 and data CNTLID != 0xFFFF              Invalid Parameters, IATTR 1 IPO 16
 *  - SUBNQN unterminated or not a valid NQN       Invalid Parameters, IATTR 1 IPO 256
 *  - HOSTNQN unterminated or not a valid NQN      Invalid Parameters, IATTR 1 IPO 512
 *  - SQSIZE 0                                     Invalid Parameters, IATTR 0 IPO 44
 * Subsystem / host / cntlid lookups and the SQSIZE <= MQES bound are the
 * target's job (they need its state); build their DW0 with
 * nvmf_connect_ipo_dw0().
 */
uint16_t rblk_connect_decode(const struct nvmf_connect_cmd *cmd,
			     const struct nvmf_connect_data *data,
			     struct rblk_connect_info *out, uint32_t *dw0_out);

/*
 * Build a Connect SQE (opcode 0x7F, PSDT 01b, FCTYPE Connect; SGL1 left null
 * for the caller to point at the data) and its data from in. -EINVAL when an
 * NQN is longer than 223 bytes or sqsize is 0.
 */
int rblk_connect_encode(const struct rblk_connect_info *in, uint16_t cid,
			struct nvmf_connect_cmd *cmd, struct nvmf_connect_data *data);

#endif

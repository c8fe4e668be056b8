/* SPDX-License-Identifier: MIT */
/*
 * The fabrics command set (opcode 0x7F): Connect for admin and I/O queues
 * (dynamic controller model; the checks and statuses of nvmet's
 * fabrics-cmd.c, nvmf-interop.md §2.1-2.4) and Property Get/Set (§2.5-2.6).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "protocol/nqn.h"
#include "target/core.h"

static uint8_t fctype_of(const struct rblk_req *req)
{
	return ((const uint8_t *)req->cmd)[NVME_SQE_FCTYPE_OFFSET];
}

/* Connect Invalid Parameters with the offending field in DW0 (IATTR/IPO). */
static uint16_t invalid_param(struct rblk_req *req, uint8_t iattr, uint16_t ipo)
{
	rblk_req_set_dw0(req, nvmf_connect_ipo_dw0(iattr, ipo));
	if (iattr == NVMF_IATTR_SQE)
		req->error_loc = ipo;
	return NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR;
}

static bool hostid_equal(const uint8_t a[16], const uint8_t b[16])
{
	return !memcmp(a, b, 16);
}

static uint16_t check_sqsize(struct rblk_req *req, uint16_t sqsize, uint16_t max)
{
	/* 0-based SQSIZE: 0 is a one-entry queue, which NVMe forbids. */
	if (!sqsize || sqsize > max ||
	    (req->sq->depth && (uint32_t)sqsize + 1 > req->sq->depth))
		return invalid_param(req, NVMF_IATTR_SQE, offsetof(struct nvmf_connect_cmd, sqsize));
	return 0;
}

static uint16_t admin_connect(struct rblk_req *req, const struct nvmf_connect_cmd *c,
			      const struct nvmf_connect_data *d, const char *subnqn,
			      const char *hostnqn)
{
	struct rblk_target *tgt = req->sq->tgt;
	uint16_t sqsize = rblk_le16(c->sqsize);
	struct rblk_subsystem *ss;
	struct rblk_ctrl *ctrl;
	uint16_t status;
	int ret;

	if (rblk_le16(d->cntlid) != NVMF_CNTLID_DYNAMIC)
		return invalid_param(req, NVMF_IATTR_DATA,
				     offsetof(struct nvmf_connect_data, cntlid));

	/* tgt->lock keeps ss listed (so alive) until the controller is on it. */
	pthread_mutex_lock(&tgt->lock);
	ss = rblk_subsys_find_locked(tgt, subnqn);
	if (!ss) {
		pthread_mutex_unlock(&tgt->lock);
		RBLK_INFO("connect from %s: unknown subsystem %s", hostnqn, subnqn);
		return invalid_param(req, NVMF_IATTR_DATA,
				     offsetof(struct nvmf_connect_data, subnqn));
	}
	if (!rblk_subsys_host_allowed(ss, hostnqn)) {
		pthread_mutex_unlock(&tgt->lock);
		RBLK_NOTICE("connect from %s to %s: host not allowed", hostnqn, subnqn);
		rblk_req_set_dw0(req, nvmf_connect_ipo_dw0(NVMF_IATTR_DATA,
					offsetof(struct nvmf_connect_data, hostnqn)));
		return NVME_SC_CONNECT_INVALID_HOST | NVME_SC_DNR;
	}
	status = check_sqsize(req, sqsize, (uint16_t)(tgt->opts.max_admin_queue_depth - 1));
	if (status) {
		pthread_mutex_unlock(&tgt->lock);
		return status;
	}
	ret = rblk_ctrl_create(ss, hostnqn, d->hostid, rblk_le32(c->kato), &ctrl);
	pthread_mutex_unlock(&tgt->lock);
	if (ret == -EBUSY) {
		return NVME_SC_CONNECT_CTRL_BUSY | NVME_SC_DNR;
	} else if (ret == -ENODEV) {
		return invalid_param(req, NVMF_IATTR_DATA,
				     offsetof(struct nvmf_connect_data, subnqn));
	} else if (ret) {
		return NVME_SC_INTERNAL;
	}

	status = rblk_ctrl_install_sq(ctrl, req->sq, 0, sqsize,
				      c->cattr & NVMF_CATTR_DISABLE_SQFLOW);
	if (status) {
		rblk_ctrl_put(ctrl);
		return status;
	}
	/* DW0: CNTLID, and AUTHREQ (bits 17:16) zero: no authentication. */
	rblk_req_set_dw0(req, ctrl->cntlid);
	return 0;
}

static uint16_t io_connect(struct rblk_req *req, const struct nvmf_connect_cmd *c,
			   const struct nvmf_connect_data *d, const char *subnqn,
			   const char *hostnqn)
{
	struct rblk_target *tgt = req->sq->tgt;
	uint16_t qid = rblk_le16(c->qid);
	uint16_t sqsize = rblk_le16(c->sqsize);
	struct rblk_subsystem *ss;
	struct rblk_ctrl *ctrl = NULL;
	uint16_t status;

	pthread_mutex_lock(&tgt->lock);
	ss = rblk_subsys_find_locked(tgt, subnqn);
	if (ss)
		ctrl = rblk_subsys_get_ctrl(ss, rblk_le16(d->cntlid), hostnqn);
	pthread_mutex_unlock(&tgt->lock);
	if (!ss)
		return invalid_param(req, NVMF_IATTR_DATA,
				     offsetof(struct nvmf_connect_data, subnqn));
	if (!ctrl) {
		RBLK_INFO("I/O connect from %s: no controller %u on %s", hostnqn,
			  rblk_le16(d->cntlid), subnqn);
		return invalid_param(req, NVMF_IATTR_DATA,
				     offsetof(struct nvmf_connect_data, cntlid));
	}
	if (!hostid_equal(d->hostid, ctrl->hostid)) {
		status = invalid_param(req, NVMF_IATTR_DATA,
				       offsetof(struct nvmf_connect_data, hostid));
		goto out_put;
	}
	if (!rblk_ctrl_ready(ctrl)) {
		req->error_loc = offsetof(struct nvmf_connect_cmd, qid);
		status = NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
		goto out_put;
	}
	pthread_mutex_lock(&ctrl->lock);
	status = qid > ctrl->nr_io_queues;
	pthread_mutex_unlock(&ctrl->lock);
	if (status) {
		status = invalid_param(req, NVMF_IATTR_SQE, offsetof(struct nvmf_connect_cmd, qid));
		goto out_put;
	}
	status = check_sqsize(req, sqsize, (uint16_t)(tgt->opts.max_queue_depth - 1));
	if (status)
		goto out_put;
	status = rblk_ctrl_install_sq(ctrl, req->sq, qid, sqsize,
				      c->cattr & NVMF_CATTR_DISABLE_SQFLOW);
	if (status) {
		RBLK_INFO("ctrl %u: qid %u connected twice", ctrl->cntlid, qid);
		req->error_loc = offsetof(struct nvmf_connect_cmd, qid);
		goto out_put;
	}
	/* The reference now belongs to the queue. */
	rblk_req_set_dw0(req, ctrl->cntlid);
	return 0;

out_put:
	rblk_ctrl_put(ctrl);
	return status;
}

static void execute_connect(struct rblk_req *req)
{
	const struct nvmf_connect_cmd *c = (const struct nvmf_connect_cmd *)req->cmd;
	struct nvmf_connect_data d;
	char subnqn[NVMF_NQN_FIELD_LEN], hostnqn[NVMF_NQN_FIELD_LEN];
	uint16_t qid = rblk_le16(c->qid);
	uint16_t status;

	status = rblk_req_copy_from(req, 0, &d, sizeof(d));
	if (status)
		goto out;
	if (rblk_le16(c->recfmt) != NVMF_RECFMT_1_0) {
		req->error_loc = offsetof(struct nvmf_connect_cmd, recfmt);
		status = NVME_SC_CONNECT_FORMAT | NVME_SC_DNR;
		goto out;
	}
	/* An NQN field without its NUL is malformed, never silently truncated. */
	if (rblk_nqn_from_field(subnqn, sizeof(subnqn), (const uint8_t *)d.subnqn)) {
		status = invalid_param(req, NVMF_IATTR_DATA,
				       offsetof(struct nvmf_connect_data, subnqn));
		goto out;
	}
	if (rblk_nqn_from_field(hostnqn, sizeof(hostnqn), (const uint8_t *)d.hostnqn) ||
	    !hostnqn[0]) {
		status = invalid_param(req, NVMF_IATTR_DATA,
				       offsetof(struct nvmf_connect_data, hostnqn));
		goto out;
	}
	/* nvmet sizes the queue from the CM QID: the two must agree. */
	if (req->sq->cm_qid != RBLK_QID_UNKNOWN && qid != req->sq->cm_qid) {
		status = invalid_param(req, NVMF_IATTR_SQE, offsetof(struct nvmf_connect_cmd, qid));
		goto out;
	}
	if (qid == 0)
		status = admin_connect(req, c, &d, subnqn, hostnqn);
	else
		status = io_connect(req, c, &d, subnqn, hostnqn);
	if (!status && (c->cattr & NVMF_CATTR_DISABLE_SQFLOW))
		req->cqe.sqhd = rblk_cpu_to_le16(0xFFFF);
out:
	rblk_req_complete(req, status);
}

uint16_t rblk_fabrics_parse_connect(struct rblk_req *req)
{
	/* Nothing but Connect is valid on a queue without a controller. */
	if (req->cmd->opc != NVME_ADMIN_FABRICS) {
		req->error_loc = offsetof(struct nvme_sqe, opc);
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
	if (fctype_of(req) != NVMF_FCTYPE_CONNECT) {
		req->error_loc = NVME_SQE_FCTYPE_OFFSET;
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
	req->data_len = NVMF_CONNECT_DATA_SIZE;
	req->dir = RBLK_XFER_H2C;
	req->execute = execute_connect;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Property Get / Set.                                                       */

static void execute_prop_get(struct rblk_req *req)
{
	const struct nvmf_property_get_cmd *c = (const struct nvmf_property_get_cmd *)req->cmd;
	struct rblk_ctrl *ctrl = req->sq->ctrl;
	uint32_t ofst = rblk_le32(c->ofst);
	uint8_t size = c->attrib & NVMF_PROP_SIZE_MASK;
	uint64_t val = 0;
	uint16_t status = 0;

	pthread_mutex_lock(&ctrl->lock);
	if (size == NVMF_PROP_SIZE_8) {
		if (ofst == NVME_REG_CAP)
			val = rblk_ctrl_cap(ctrl);
		else
			status = NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	} else if (size == NVMF_PROP_SIZE_4) {
		switch (ofst) {
		case NVME_REG_VS:
			val = NVME_VS(1, 3, 0);
			break;
		case NVME_REG_CC:
			val = ctrl->cc;
			break;
		case NVME_REG_CSTS:
			val = ctrl->csts;
			break;
		default:
			status = NVME_SC_INVALID_FIELD | NVME_SC_DNR;
			break;
		}
	} else {
		status = NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	pthread_mutex_unlock(&ctrl->lock);
	if (status) {
		req->error_loc = size > NVMF_PROP_SIZE_8 ? offsetof(struct nvmf_property_get_cmd, attrib)
							 : offsetof(struct nvmf_property_get_cmd, ofst);
	} else {
		rblk_req_set_dw0(req, (uint32_t)val);
		rblk_req_set_dw1(req, (uint32_t)(val >> 32));
	}
	rblk_req_complete(req, status);
}

static void execute_prop_set(struct rblk_req *req)
{
	const struct nvmf_property_set_cmd *c = (const struct nvmf_property_set_cmd *)req->cmd;
	struct rblk_ctrl *ctrl = req->sq->ctrl;
	uint16_t status = 0;

	/* Only CC is writable, and only as a 4-byte property (nvmet). */
	if ((c->attrib & NVMF_PROP_SIZE_MASK) != NVMF_PROP_SIZE_4) {
		req->error_loc = offsetof(struct nvmf_property_set_cmd, attrib);
		status = NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	} else if (rblk_le32(c->ofst) != NVME_REG_CC) {
		req->error_loc = offsetof(struct nvmf_property_set_cmd, ofst);
		status = NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	} else {
		pthread_mutex_lock(&ctrl->lock);
		rblk_ctrl_update_cc_locked(ctrl, (uint32_t)rblk_le64(c->value));
		pthread_mutex_unlock(&ctrl->lock);
	}
	rblk_req_complete(req, status);
}

uint16_t rblk_fabrics_parse_admin(struct rblk_req *req)
{
	switch (fctype_of(req)) {
	case NVMF_FCTYPE_PROP_GET:
		req->execute = execute_prop_get;
		return 0;
	case NVMF_FCTYPE_PROP_SET:
		req->execute = execute_prop_set;
		return 0;
	default:
		/* Includes Disconnect (not in 6.1) and authentication (not supported). */
		req->error_loc = NVME_SQE_FCTYPE_OFFSET;
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
}

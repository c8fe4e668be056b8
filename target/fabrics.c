/* SPDX-License-Identifier: MIT */
/*
 * The fabrics command set (opcode 0x7F): Connect for admin and I/O queues
 * (dynamic controller model; the checks and statuses of nvmet's
 * fabrics-cmd.c, docs/interop.md §6), Property Get/Set (§7), and the
 * Authentication Send/Receive commands whose messages auth.c handles.
 * A subsystem not exported on the port the host came through is unknown
 * there, as in nvmet (IPO 256, SUBNQN).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "protocol/auth_ctrl.h"
#include "protocol/connect.h"
#include "protocol/props.h"
#include "target/core.h"

#define IPO_DATA_CNTLID offsetof(struct nvmf_connect_data, cntlid)
#define IPO_DATA_HOSTID offsetof(struct nvmf_connect_data, hostid)
#define IPO_DATA_SUBNQN offsetof(struct nvmf_connect_data, subnqn)
#define IPO_SQE_QID offsetof(struct nvmf_connect_cmd, qid)
#define IPO_SQE_SQSIZE offsetof(struct nvmf_connect_cmd, sqsize)

/*
 * Connect Invalid Parameters with the offending field in DW0 (IATTR/IPO);
 * a field of the SQE is also the error log's location.
 */
static uint16_t invalid_param(struct rblk_req *req, uint8_t iattr, uint16_t ipo)
{
	rblk_req_set_dw0(req, nvmf_connect_ipo_dw0(iattr, ipo));
	if (iattr == NVMF_IATTR_SQE)
		req->error_loc = ipo;
	return NVME_SC_CONNECT_INVALID_PARAM | NVME_SC_DNR;
}

/*
 * Connect response DW0: CNTLID, and AUTHREQ.ATR when the host has a key:
 * this queue, admin or I/O, must authenticate before anything else runs
 * (nvmet_connect_result sets it on both).
 */
static uint32_t connect_dw0(const struct rblk_tgt_ctrl *ctrl)
{
	return ctrl->cntlid | (ctrl->auth ? NVMF_CONNECT_AUTHREQ_ATR : 0);
}

/* The stateless checks are rblk_connect_decode()'s; what they leave is MQES and the CM depth. */
static uint16_t check_sqsize(struct rblk_req *req, uint16_t sqsize, uint16_t max)
{
	if (sqsize > max || (req->sq->depth && (uint32_t)sqsize + 1 > req->sq->depth))
		return invalid_param(req, NVMF_IATTR_SQE, IPO_SQE_SQSIZE);
	return 0;
}

/*
 * The subsystem ci names, when hosts reach it through the queue's port
 * (tgt->lock held); NULL, logged, when it is unknown or not exported there.
 */
static struct rblk_subsystem *find_on_port_locked(struct rblk_req *req,
						  const struct rblk_connect_info *ci)
{
	const struct rblk_listener *l = req->sq->listener;
	struct rblk_subsystem *ss = rblk_subsys_find_locked(req->sq->tgt, ci->subnqn);

	if (!ss) {
		RBLK_INFO("connect from %s: unknown subsystem %s", ci->hostnqn, ci->subnqn);
		return NULL;
	}
	if (!rblk_listener_exports_locked(l, ss)) {
		RBLK_NOTICE("connect from %s: subsystem %s is not exported on port %u (%s port %u)",
			    ci->hostnqn, ci->subnqn, l->portid, l->traddr, l->port);
		return NULL;
	}
	return ss;
}

static uint16_t admin_connect(struct rblk_req *req, const struct rblk_connect_info *ci)
{
	struct rblk_target *tgt = req->sq->tgt;
	struct rblk_subsystem *ss;
	struct rblk_tgt_ctrl *ctrl;
	uint16_t status;
	int ret;

	/* tgt->lock keeps ss listed (so alive) until the controller is on it. */
	pthread_mutex_lock(&tgt->lock);
	ss = find_on_port_locked(req, ci);
	if (!ss) {
		pthread_mutex_unlock(&tgt->lock);
		return invalid_param(req, NVMF_IATTR_DATA, IPO_DATA_SUBNQN);
	}
	if (!rblk_subsys_host_allowed(ss, ci->hostnqn)) {
		pthread_mutex_unlock(&tgt->lock);
		RBLK_NOTICE("connect from %s to %s: host not allowed", ci->hostnqn, ci->subnqn);
		rblk_req_set_dw0(req, nvmf_connect_ipo_dw0(NVMF_IATTR_DATA,
					offsetof(struct nvmf_connect_data, hostnqn)));
		return NVME_SC_CONNECT_INVALID_HOST | NVME_SC_DNR;
	}
	status = check_sqsize(req, ci->sqsize, (uint16_t)(tgt->opts.max_admin_queue_depth - 1));
	if (status) {
		pthread_mutex_unlock(&tgt->lock);
		return status;
	}
	/* Under tgt->lock: no other Connect of this host slips in between. */
	if (rblk_tgt_host_ctrls_locked(tgt, ci->hostnqn) >= tgt->opts.max_ctrls_per_host) {
		pthread_mutex_unlock(&tgt->lock);
		RBLK_NOTICE("connect from %s to %s: refused: the host already has %u controllers "
			    "(max_ctrls_per_host)", ci->hostnqn, ci->subnqn,
			    tgt->opts.max_ctrls_per_host);
		return NVME_SC_CONNECT_CTRL_BUSY | NVME_SC_DNR;
	}
	ret = rblk_tgt_ctrl_create(ss, ci->hostnqn, ci->hostid, ci->kato_ms, &ctrl);
	/* Under tgt->lock, so an unlink of this port sees it (it disconnects those). */
	if (!ret)
		ctrl->listener = req->sq->listener;
	pthread_mutex_unlock(&tgt->lock);
	if (ret == -EBUSY) {
		return NVME_SC_CONNECT_CTRL_BUSY | NVME_SC_DNR;
	} else if (ret == -ENODEV) {
		return invalid_param(req, NVMF_IATTR_DATA, IPO_DATA_SUBNQN);
	} else if (ret) {
		return NVME_SC_INTERNAL;
	}
	/* Before the queue is installed: its first command may already be an Authentication Send. */
	ret = rblk_subsys_host_keys(ss, ci->hostnqn, &ctrl->auth);
	if (ret) {
		RBLK_ERR("connect from %s to %s: cannot set up authentication: %s", ci->hostnqn,
			 ci->subnqn, strerror(-ret));
		rblk_tgt_ctrl_put(ctrl);
		return NVME_SC_INTERNAL;
	}

	status = rblk_tgt_ctrl_install_sq(ctrl, req->sq, 0, ci->sqsize,
				      ci->cattr & NVMF_CATTR_DISABLE_SQFLOW);
	if (status) {
		rblk_tgt_ctrl_put(ctrl);
		return status;
	}
	rblk_req_set_dw0(req, connect_dw0(ctrl));
	return 0;
}

static uint16_t io_connect(struct rblk_req *req, const struct rblk_connect_info *ci)
{
	struct rblk_target *tgt = req->sq->tgt;
	struct rblk_subsystem *ss;
	struct rblk_tgt_ctrl *ctrl = NULL;
	uint16_t status;

	pthread_mutex_lock(&tgt->lock);
	ss = find_on_port_locked(req, ci);
	if (ss)
		ctrl = rblk_subsys_get_ctrl(ss, ci->cntlid, ci->hostnqn);
	pthread_mutex_unlock(&tgt->lock);
	if (!ss)
		return invalid_param(req, NVMF_IATTR_DATA, IPO_DATA_SUBNQN);
	if (!ctrl) {
		RBLK_INFO("I/O connect from %s: no controller %u on %s", ci->hostnqn, ci->cntlid,
			  ci->subnqn);
		return invalid_param(req, NVMF_IATTR_DATA, IPO_DATA_CNTLID);
	}
	if (memcmp(ci->hostid, ctrl->hostid, sizeof(ctrl->hostid))) {
		status = invalid_param(req, NVMF_IATTR_DATA, IPO_DATA_HOSTID);
		goto out_put;
	}
	if (!rblk_tgt_ctrl_ready(ctrl)) {
		req->error_loc = IPO_SQE_QID;
		status = NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
		goto out_put;
	}
	pthread_mutex_lock(&ctrl->lock);
	status = ci->qid > ctrl->nr_io_queues;
	pthread_mutex_unlock(&ctrl->lock);
	if (status) {
		status = invalid_param(req, NVMF_IATTR_SQE, IPO_SQE_QID);
		goto out_put;
	}
	status = check_sqsize(req, ci->sqsize, (uint16_t)(tgt->opts.max_queue_depth - 1));
	if (status)
		goto out_put;
	status = rblk_tgt_ctrl_install_sq(ctrl, req->sq, ci->qid, ci->sqsize,
				      ci->cattr & NVMF_CATTR_DISABLE_SQFLOW);
	if (status) {
		RBLK_INFO("ctrl %u: qid %u connected twice", ctrl->cntlid, ci->qid);
		req->error_loc = IPO_SQE_QID;
		goto out_put;
	}
	/* The reference now belongs to the queue. */
	rblk_req_set_dw0(req, connect_dw0(ctrl));
	return 0;

out_put:
	rblk_tgt_ctrl_put(ctrl);
	return status;
}

/* Where the error log points for a status of rblk_connect_decode(). */
static uint16_t decode_error_loc(uint16_t status, uint32_t dw0)
{
	switch (status & NVME_STATUS_CODE_MASK) {
	case NVME_SC_CONNECT_FORMAT:
		return offsetof(struct nvmf_connect_cmd, recfmt);
	case NVME_SC_CONNECT_INVALID_PARAM:
		if ((dw0 >> 16) == NVMF_IATTR_SQE)
			return (uint16_t)dw0;
		break;
	}
	return RBLK_NO_ERROR_LOC;
}

static void execute_connect(struct rblk_req *req)
{
	const struct nvmf_connect_cmd *c = (const struct nvmf_connect_cmd *)req->cmd;
	struct nvmf_connect_data d;
	struct rblk_connect_info ci;
	uint32_t dw0;
	uint16_t status;

	status = rblk_req_copy_from(req, 0, &d, sizeof(d));
	if (status)
		goto out;
	/* Format, CNTLID of an admin Connect, NQNs, SQSIZE 0: the rules of protocol/. */
	status = rblk_connect_decode(c, &d, &ci, &dw0);
	if (status) {
		rblk_req_set_dw0(req, dw0);
		req->error_loc = decode_error_loc(status, dw0);
		goto out;
	}
	/* nvmet sizes the queue from the CM QID: the two must agree. */
	if (req->sq->cm_qid != RBLK_QID_UNKNOWN && ci.qid != req->sq->cm_qid) {
		status = invalid_param(req, NVMF_IATTR_SQE, IPO_SQE_QID);
		goto out;
	}
	if (ci.qid == 0)
		status = admin_connect(req, &ci);
	else
		status = io_connect(req, &ci);
	if (!status && (ci.cattr & NVMF_CATTR_DISABLE_SQFLOW))
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
	if (rblk_req_fctype(req) != NVMF_FCTYPE_CONNECT) {
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
	struct rblk_tgt_ctrl *ctrl = req->sq->ctrl;
	uint32_t ofst;
	unsigned size;
	uint64_t val = 0;
	uint16_t status;

	/* Which offsets are readable, and with which size, is protocol/props.c's rule. */
	status = rblk_prop_get_decode((const struct nvmf_property_get_cmd *)req->cmd, &ofst, &size,
				      &req->error_loc);
	if (status)
		goto out;
	pthread_mutex_lock(&ctrl->lock);
	switch (ofst) {
	case NVME_REG_CAP:
		val = rblk_tgt_ctrl_cap(ctrl);
		break;
	case NVME_REG_VS:
		val = NVME_VS(1, 3, 0);
		break;
	case NVME_REG_CC:
		val = ctrl->cc;
		break;
	case NVME_REG_CSTS:
		val = ctrl->csts;
		break;
	}
	pthread_mutex_unlock(&ctrl->lock);
	rblk_req_set_dw0(req, (uint32_t)val);
	rblk_req_set_dw1(req, (uint32_t)(val >> 32));
out:
	rblk_req_complete(req, status);
}

static void execute_prop_set(struct rblk_req *req)
{
	struct rblk_tgt_ctrl *ctrl = req->sq->ctrl;
	uint32_t ofst, value;
	uint16_t status;

	/* CC only (the decoder refuses anything else). */
	status = rblk_prop_set_decode((const struct nvmf_property_set_cmd *)req->cmd, &ofst, &value,
				      &req->error_loc);
	if (!status) {
		pthread_mutex_lock(&ctrl->lock);
		rblk_tgt_ctrl_update_cc_locked(ctrl, value);
		pthread_mutex_unlock(&ctrl->lock);
	}
	rblk_req_complete(req, status);
}

uint16_t rblk_fabrics_parse_admin(struct rblk_req *req)
{
	switch (rblk_req_fctype(req)) {
	case NVMF_FCTYPE_PROP_GET:
		req->execute = execute_prop_get;
		return 0;
	case NVMF_FCTYPE_PROP_SET:
		req->execute = execute_prop_set;
		return 0;
	default:
		/* Includes Disconnect (not in 6.1); authentication was dispatched before. */
		req->error_loc = NVME_SQE_FCTYPE_OFFSET;
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
}

/* ------------------------------------------------------------------------ */
/* Authentication Send / Receive.                                            */

uint16_t rblk_fabrics_parse_auth(struct rblk_req *req)
{
	bool send = rblk_req_fctype(req) == NVMF_FCTYPE_AUTH_SEND;
	uint32_t len;
	uint16_t status;

	/* A host without a key has nothing to authenticate with: as before keys existed. */
	if (!req->sq->ctrl->auth) {
		req->error_loc = NVME_SQE_FCTYPE_OFFSET;
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
	status = rblk_auth_cmd_decode((const struct nvmf_auth_cmd *)req->cmd, &len, &req->error_loc);
	if (status)
		return status;
	/* No message is that long: refuse before any data moves. */
	if (send && len > RBLK_TGT_AUTH_SEND_MAX) {
		req->error_loc = offsetof(struct nvmf_auth_cmd, tl_al);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	/* Receive: AL bytes go back, the message and zeroes after it (nvmet). */
	req->data_len = len;
	req->dir = send ? RBLK_XFER_H2C : RBLK_XFER_C2H;
	req->execute = send ? rblk_tgt_auth_send : rblk_tgt_auth_receive;
	return 0;
}

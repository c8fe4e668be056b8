/* SPDX-License-Identifier: MIT */
/*
 * In-band authentication of one queue right after its Fabrics Connect: what
 * the Linux host does in nvmf_connect_admin_queue() / nvmf_connect_io_queue()
 * (drivers/nvme/host/fabrics.c) when the Connect response asks for it, on the
 * admin queue and on every I/O queue, at first connect and at every
 * reconnect. The transaction itself is the state machine of auth.c; this
 * file runs its Authentication Send / Receive commands on the queue, which
 * is still CONNECTING (only the connector's commands go out), through the
 * slot reserved for Connect and that slot's registered data buffer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "initiator/auth.h"
#include "initiator/cmd.h"
#include "initiator/ctrl.h"
#include "protocol/auth_host.h"
#include "protocol/names.h"
#include "protocol/nvmf.h"

_Static_assert(RBLK_AUTH_RECV_LEN <= RBLK_SLOT_DATA, "auth messages fit a slot's data buffer");

/*
 * One Authentication Send (@len bytes of @buf) or Receive (into @buf) on
 * @hq. 0, -EREMOTEIO with *status for an NVMe error status, or -errno.
 */
static int auth_exec(struct rblk_hq *hq, bool send, void *buf, uint32_t len, uint16_t *status)
{
	struct rblk_slot *slot;
	struct nvme_cqe cqe;
	uint16_t st;
	int ret;

	pthread_mutex_lock(&hq->lock);
	slot = rblk_slot_get_reserved(&hq->slots, 0);
	if (!slot) {
		pthread_mutex_unlock(&hq->lock);
		return -EBUSY;
	}
	if (send) {
		rblk_cmd_auth_send(slot->sqe, len);
		memcpy(slot->data, buf, len);
	} else {
		rblk_cmd_auth_recv(slot->sqe, len);
		memset(slot->data, 0, len);
	}
	ret = rblk_hq_map(hq, slot, slot->data, len, rblk_hq_lkey(hq), rblk_hq_rkey(hq));
	if (ret) {
		rblk_slot_put(&hq->slots, slot);
		pthread_mutex_unlock(&hq->lock);
		return ret;
	}
	ret = rblk_hq_exec(hq, slot, RBLK_BRINGUP_TIMEOUT_MS, true, &cqe);
	/* The reserved slot is the connector's alone: its data is still ours to read. */
	if (!ret && !send)
		memcpy(buf, slot->data, len);
	if (send)
		memset(slot->data, 0, len);
	pthread_mutex_unlock(&hq->lock);
	if (ret)
		return ret;
	st = nvme_cqe_status(&cqe);
	if (st) {
		RBLK_ERR("qid %u: Authentication %s: %s (status %#x)", hq->qid,
			 send ? "Send" : "Receive",
			 rblk_nvme_cmd_status_str(st, NVME_FABRICS_COMMAND), st);
		if (status)
			*status = st;
		return -EREMOTEIO;
	}
	return 0;
}

static int run(struct rblk_ctrl *c, struct rblk_hq *hq, struct rblk_auth_host *a, uint8_t *buf,
	       uint16_t *status)
{
	enum rblk_auth_xfer xfer;
	uint32_t len;
	int ret;

	for (;;) {
		ret = rblk_auth_host_next(a, buf, RBLK_AUTH_RECV_LEN, &xfer, &len);
		if (!ret && xfer == RBLK_AUTH_XFER_NONE)
			break;
		if (!ret)
			ret = auth_exec(hq, xfer == RBLK_AUTH_XFER_SEND, buf, len, status);
		rblk_auth_host_advance(a, ret, buf, ret ? 0 : len);
	}
	if (a->state == RBLK_AUTH_HOST_DONE) {
		if (hq->qid == 0)
			RBLK_INFO("qid 0: authenticated to %s with %s, DH group %s%s", c->subnqn,
				  rblk_auth_hash_name(a->hash), rblk_auth_dhgroup_name(a->dhgroup),
				  c->has_ctrl_key ? "; controller authenticated" : "");
		return 0;
	}
	RBLK_ERR("qid %u: authentication to %s failed%s%s", hq->qid, c->subnqn,
		 a->err == -EACCES && !a->failure1 && c->has_ctrl_key ? " (controller authentication failed)" : "",
		 a->failure1 ? ": check that the host secret matches the subsystem's key for this host NQN" : "");
	return a->err ? a->err : -EACCES;
}

int rblk_ctrl_authenticate(struct rblk_ctrl *c, struct rblk_hq *hq, uint32_t dw0, uint16_t *status)
{
	struct rblk_auth_host_params p = {
		.qid = hq->qid,
		.host_key = &c->host_key,
		.ctrl_key = c->has_ctrl_key ? &c->ctrl_key : NULL,
		.hostnqn = c->host.hostnqn,
		.subnqn = c->subnqn,
	};
	struct rblk_auth_host a;
	uint8_t *buf;
	int ret;

	if (!(dw0 & (NVMF_CONNECT_AUTHREQ_ATR | NVMF_CONNECT_AUTHREQ_ASCR)))
		return 0;
	if (dw0 & NVMF_CONNECT_AUTHREQ_ASCR) {
		/* Secure channel concatenation means TLS, which rblk's RDMA transport has not. */
		RBLK_ERR("qid %u: %s requires secure channel concatenation (TLS), which rblk does not support",
			 hq->qid, c->subnqn);
		return -EOPNOTSUPP;
	}
	if (!c->has_host_key) {
		RBLK_ERR("qid %u: %s requires authentication: pass a DH-HMAC-CHAP host secret (rblk --dhchap-secret, fio dhchap_secret)",
			 hq->qid, c->subnqn);
		return -EACCES;
	}
	/* Both counters as Linux keeps them: per controller, in the order queues connect. */
	p.t_id = c->auth_tid++;
	if (c->has_ctrl_key) {
		if (!++c->auth_seqnum)
			c->auth_seqnum = 1;
		p.seqnum = c->auth_seqnum;
	}
	buf = malloc(RBLK_AUTH_RECV_LEN);
	if (!buf)
		return -ENOMEM;
	ret = rblk_auth_host_init(&a, &p);
	if (!ret)
		ret = run(c, hq, &a, buf, status);
	rblk_auth_host_fini(&a);
	memset(buf, 0, RBLK_AUTH_RECV_LEN);
	free(buf);
	return ret;
}

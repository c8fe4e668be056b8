/* SPDX-License-Identifier: MIT */
/*
 * One full controller connect, the sequence the Linux host runs
 * (docs/interop.md §8, §16): admin queue (HRQSIZE 32 / HSQSIZE 31), Fabrics
 * Connect with the dynamic CNTLID 0xFFFF and the 1024-byte data by keyed SGL;
 * Property Get CAP; Property Set CC (IOSQES 6, IOCQES 4, EN); CSTS.RDY
 * within CAP.TO; Get VS; Identify Controller and its hard requirements;
 * Set Features Number of Queues; then each I/O queue with its own QP and
 * CQ and a Connect carrying the CNTLID. Used for the first connect and for
 * every reconnect (which must find the same geometry again).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "initiator/cmd.h"
#include "initiator/ctrl.h"
#include "initiator/identify.h"
#include "protocol/connect.h"
#include "protocol/names.h"
#include "protocol/nqn.h"

static void log_connect_error(struct rblk_ctrl *c, uint16_t qid, uint16_t st, uint32_t dw0)
{
	const char *what = "";
	uint16_t ipo = dw0 & 0xFFFF;
	uint8_t iattr = (uint8_t)(dw0 >> 16);

	if ((st & NVME_STATUS_CODE_MASK) == NVME_SC_CONNECT_INVALID_PARAM) {
		/* Where the controller says the problem is (nvmf_log_connect_error in Linux). */
		if (iattr == NVMF_IATTR_DATA)
			what = ipo == 16    ? ": invalid controller ID"
			       : ipo == 256 ? ": subsystem NQN not found on this port"
			       : ipo == 512 ? ": host NQN"
					    : ": invalid Connect data";
		else
			what = ipo == 42   ? ": queue ID out of range"
			       : ipo == 44 ? ": queue size out of range"
					   : ": invalid Connect field";
	}
	RBLK_ERR("Connect (qid %u) to %s: %s%s (status %#x, dw0 %#x)", qid, c->subnqn,
		 rblk_nvme_cmd_status_str(st, NVME_FABRICS_COMMAND), what, st, dw0);
}

/* Fabrics Connect on a queue whose rdma_cm connection is up (CONNECTING). */
static int fabrics_connect(struct rblk_ctrl *c, struct rblk_hq *hq, uint16_t sqsize,
			   uint16_t cntlid, uint16_t *status, uint16_t *cntlid_out)
{
	struct rblk_connect_info info = {
		.qid = hq->qid,
		.sqsize = sqsize,
		.cattr = c->opts.disable_sqflow ? NVMF_CATTR_DISABLE_SQFLOW : 0,
		/* KATO goes with the admin Connect only (0 on I/O queues), in ms. */
		.kato_ms = hq->qid ? 0 : c->kato_ms,
		.cntlid = cntlid,
	};
	struct rblk_slot *slot;
	struct nvme_cqe cqe;
	uint16_t st;
	uint32_t dw0;
	int ret;

	memcpy(info.hostid, c->host.hostid, sizeof(info.hostid));
	strcpy(info.subnqn, c->subnqn);
	strcpy(info.hostnqn, c->host.hostnqn);

	pthread_mutex_lock(&hq->lock);
	slot = rblk_slot_get_reserved(&hq->slots, 0);
	if (!slot) {
		pthread_mutex_unlock(&hq->lock);
		return -EBUSY;
	}
	ret = rblk_connect_encode(&info, 0, (struct nvmf_connect_cmd *)slot->sqe,
				  (struct nvmf_connect_data *)slot->data);
	/* Admin: keyed (never in-capsule on qid 0); I/O: in-capsule when IOCCSZ allows. */
	if (!ret)
		ret = rblk_hq_map(hq, slot, slot->data, NVMF_CONNECT_DATA_SIZE, rblk_hq_lkey(hq),
				  rblk_hq_rkey(hq));
	if (ret) {
		rblk_slot_put(&hq->slots, slot);
		pthread_mutex_unlock(&hq->lock);
		RBLK_ERR("Connect (qid %u): cannot encode (NQN too long?)", hq->qid);
		return ret;
	}
	ret = rblk_hq_exec(hq, slot, RBLK_BRINGUP_TIMEOUT_MS, false, &cqe);
	pthread_mutex_unlock(&hq->lock);
	if (ret) {
		RBLK_INFO("Connect (qid %u): %s", hq->qid, strerror(-ret));
		return ret;
	}
	st = nvme_cqe_status(&cqe);
	dw0 = rblk_le32(cqe.dw0);
	if (st) {
		log_connect_error(c, hq->qid, st, dw0);
		if (status)
			*status = st;
		return -EREMOTEIO;
	}
	/* Every queue authenticates when its own Connect response asks for it. */
	ret = rblk_ctrl_authenticate(c, hq, dw0, status);
	if (ret)
		return ret;
	if (cntlid_out)
		*cntlid_out = (uint16_t)(dw0 & 0xFFFF);
	return 0;
}

static int wait_ready(struct rblk_ctrl *c, uint32_t timeout_ms)
{
	uint64_t deadline = rblk_clock_ms() + timeout_ms;
	unsigned sleep_us = 1000;

	for (;;) {
		uint64_t csts;
		int ret = rblk_prop_get(c, NVME_REG_CSTS, &csts);

		if (ret)
			return ret;
		if (csts == 0xFFFFFFFF) {
			RBLK_ERR("CSTS reads all ones: the controller is gone");
			return -EIO;
		}
		if (csts & NVME_CSTS_CFS) {
			RBLK_ERR("the controller reports a fatal status (CSTS %#llx) after CC.EN",
				 (unsigned long long)csts);
			return -EIO;
		}
		if (csts & NVME_CSTS_RDY)
			return 0;
		if (rblk_clock_ms() >= deadline) {
			RBLK_ERR("CSTS.RDY not set after %u ms (CAP.TO)", timeout_ms);
			return -ETIMEDOUT;
		}
		usleep(sleep_us);
		if (sleep_us < 50000)
			sleep_us *= 2;
	}
}

static int identify_ctrl(struct rblk_ctrl *c, struct nvme_id_ctrl *id, uint16_t *status)
{
	struct nvme_sqe sqe;
	uint16_t st;
	int ret;

	rblk_cmd_identify(&sqe, NVME_ID_CNS_CTRL, 0, NVME_CSI_NVM);
	ret = rblk_admin_exec(c, &sqe, id, sizeof(*id), true, RBLK_BRINGUP_TIMEOUT_MS, NULL, NULL,
			      &st);
	if (ret)
		return ret;
	if (st) {
		RBLK_ERR("Identify Controller: %s (%#x)", rblk_nvme_status_str(st), st);
		if (status)
			*status = st;
		return -EREMOTEIO;
	}
	return 0;
}

static int set_num_queues(struct rblk_ctrl *c, uint32_t want, uint32_t *granted,
			  uint16_t *status)
{
	struct nvme_sqe sqe;
	uint32_t dw0 = 0;
	uint16_t st;
	int ret;

	rblk_cmd_set_features(&sqe, NVME_FEAT_NUM_QUEUES, rblk_num_queues_cdw11(want));
	ret = rblk_admin_exec(c, &sqe, NULL, 0, true, RBLK_BRINGUP_TIMEOUT_MS, &dw0, NULL, &st);
	if (ret)
		return ret;
	if (st) {
		/* The Linux RDMA host gives up too ("unable to set any I/O queues"). */
		RBLK_ERR("Set Features Number of Queues: %s (%#x)", rblk_nvme_status_str(st), st);
		if (status)
			*status = st;
		return -EREMOTEIO;
	}
	*granted = rblk_num_queues_granted(dw0);
	return 0;
}

/* min(requested, CAP.MQES + 1, MAXCMD), as the Linux host sizes sqsize. */
static unsigned io_depth(const struct rblk_ctrl *c)
{
	unsigned depth = c->opts.queue_size;
	unsigned mqes = (unsigned)NVME_CAP_MQES(c->cap) + 1;
	unsigned maxcmd = rblk_le16(c->id->maxcmd);

	if (depth > mqes)
		depth = mqes;
	if (maxcmd && depth > maxcmd)
		depth = maxcmd;
	return depth;
}

static int connect_io_queues(struct rblk_ctrl *c, bool reconnect, uint16_t cntlid,
			     uint16_t *status)
{
	uint32_t want = reconnect ? c->nr_io_queues : c->opts.nr_io_queues, granted = 0;
	unsigned depth = io_depth(c);
	int ret;

	ret = set_num_queues(c, want, &granted, status);
	if (ret)
		return ret;
	if (granted < want) {
		if (reconnect) {
			RBLK_ERR("the controller now grants %u I/O queues, %u are in use", granted,
				 c->nr_io_queues);
			return -ENOSPC;
		}
		RBLK_INFO("asked for %u I/O queues, the controller grants %u", want, granted);
		want = granted;
	}
	if (depth < 2) {
		RBLK_ERR("I/O queue depth %u (CAP.MQES %u, MAXCMD %u) is unusable", depth,
			 NVME_CAP_MQES(c->cap), rblk_le16(c->id->maxcmd));
		return -EPROTO;
	}
	if (reconnect && depth < c->io_depth) {
		RBLK_ERR("the controller now allows %u entries per I/O queue, %u are in use", depth,
			 c->io_depth);
		return -ENOSPC;
	}
	if (!reconnect) {
		c->ioq = calloc(want, sizeof(*c->ioq));
		if (!c->ioq)
			return -ENOMEM;
		c->io_depth = depth;
		for (unsigned i = 0; i < want; i++) {
			ret = rblk_qpair_create(c, i, depth, &c->ioq[i]);
			if (ret)
				return ret;
			c->nr_io_queues = i + 1;
		}
	}
	for (unsigned i = 0; i < c->nr_io_queues; i++) {
		struct rblk_hq *hq = &c->ioq[i]->hq;

		ret = rblk_hq_cm_connect(hq);
		if (!ret)
			ret = fabrics_connect(c, hq, (uint16_t)(c->io_depth - 1), cntlid, status,
					      NULL);
		if (ret)
			return ret;
	}
	return 0;
}

int rblk_ctrl_establish(struct rblk_ctrl *c, bool reconnect, uint16_t *status)
{
	uint16_t cntlid = 0;
	uint64_t cap, vs;
	int ret;

	ret = rblk_hq_cm_connect(&c->admin);
	if (ret) {
		if (!reconnect)
			RBLK_ERR("cannot reach %s:%s over RDMA: %s", c->traddr, c->trsvcid,
				 strerror(-ret));
		return ret;
	}
	ret = fabrics_connect(c, &c->admin, RBLK_ADMIN_DEPTH - 1, NVMF_CNTLID_DYNAMIC, status,
			      &cntlid);
	if (ret)
		return ret;
	rblk_hq_set_live(&c->admin);

	ret = rblk_prop_get(c, NVME_REG_CAP, &cap);
	if (ret)
		return ret;
	if (NVME_CAP_MPSMIN(cap) != 0) {
		RBLK_ERR("CAP.MPSMIN %u: the controller does not take 4 KiB pages",
			 (unsigned)NVME_CAP_MPSMIN(cap));
		return -EPROTONOSUPPORT;
	}
	c->cap = cap;
	ret = rblk_prop_set(c, NVME_REG_CC, rblk_cc_enable_value());
	if (!ret)
		ret = wait_ready(c, rblk_cap_timeout_ms(cap));
	if (!ret)
		ret = rblk_prop_get(c, NVME_REG_VS, &vs);
	if (ret)
		return ret;
	c->vs = (uint32_t)vs;

	if (!c->id && posix_memalign((void **)&c->id, 4096, sizeof(*c->id)))
		return -ENOMEM;
	ret = identify_ctrl(c, c->id, status);
	if (!ret)
		ret = rblk_id_ctrl_check(c->id, cntlid, c->discovery, c->subnqn);
	if (ret)
		return ret;
	if (!c->discovery && c->id->cntrltype == NVME_CTRL_TYPE_DISCOVERY)
		c->discovery = true;
	c->max_xfer = rblk_mdts_bytes(c->id->mdts);
	c->io_incapsule_max = rblk_incapsule_max(1, rblk_le32(c->id->sgls),
						 rblk_le32(c->id->ioccsz), c->opts.no_incapsule);
	c->cntlid = cntlid;
	pthread_mutex_lock(&c->admin.lock);
	rblk_ka_start(c, rblk_clock_ms());
	pthread_mutex_unlock(&c->admin.lock);
	RBLK_DEBUG("controller %u: VS %u.%u, CAP %#llx, MDTS %u (%u bytes), IOCCSZ %u, SGLS %#x",
		   cntlid, NVME_VS_MAJOR(c->vs), NVME_VS_MINOR(c->vs), (unsigned long long)cap,
		   c->id->mdts, c->max_xfer, rblk_le32(c->id->ioccsz), rblk_le32(c->id->sgls));

	if (!c->discovery && c->opts.nr_io_queues) {
		if (!rblk_le16(c->id->kas))
			RBLK_WARN("the controller reports no keep-alive support (KAS 0)");
		ret = connect_io_queues(c, reconnect, cntlid, status);
		if (ret)
			return ret;
	}
	return rblk_aen_enable(c);
}

/* SPDX-License-Identifier: MIT */
/*
 * Admin and fabrics commands over the admin queue: the one synchronous
 * executor every admin command goes through (under the admin queue's lock),
 * properties, controller shutdown, and the public admin calls (raw command,
 * Get Log Page of any length, the active namespace list).
 *
 * Data of up to RBLK_SLOT_DATA bytes moves through the command slot's own
 * registered buffer; larger buffers are used in place when registered
 * (rblk_mem_register / rblk_buf_alloc) or registered for the command.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "initiator/cmd.h"
#include "initiator/ctrl.h"
#include "protocol/names.h"

int rblk_admin_exec(struct rblk_ctrl *c, const struct nvme_sqe *sqe, void *buf, uint32_t len,
		    bool bringup, int timeout_ms, uint32_t *dw0, uint32_t *dw1, uint16_t *status)
{
	struct rblk_hq *hq = &c->admin;
	struct rblk_mr *tmp = NULL;
	struct rblk_slot *slot;
	struct nvme_cqe cqe;
	uint32_t lkey, rkey;
	uint8_t *local = NULL;
	bool h2c;
	int ret;

	if (status)
		*status = 0;
	if (len && !buf)
		return -EINVAL;
	if (!bringup && atomic_load(&c->state) != RBLK_CTRL_LIVE)
		return -ENOTCONN;
	pthread_mutex_lock(&hq->lock);
	if (hq->state != RBLK_HQ_LIVE) {
		pthread_mutex_unlock(&hq->lock);
		return -ENOTCONN;
	}
	slot = rblk_slot_get(&hq->slots);
	if (!slot) {
		pthread_mutex_unlock(&hq->lock);
		return -EBUSY;
	}
	*slot->sqe = *sqe;
	slot->sqe->flags = NVME_CMD_PSDT_SGL_MPTR_CONTIG;
	h2c = rblk_cmd_host_to_ctrl(slot->sqe);
	if (len <= RBLK_SLOT_DATA) {
		local = slot->data;
		if (len && h2c)
			memcpy(local, buf, len);
		ret = rblk_hq_map(hq, slot, local, len, rblk_hq_lkey(hq), rblk_hq_rkey(hq));
	} else {
		if (rblk_mem_lookup(c, buf, len, &lkey, &rkey)) {
			/* No PD between two devices; the queue is down then too. */
			ret = -ENOTCONN;
			if (c->pd)
				ret = rblk_mr_reg(c->pd, buf, len,
						  RBLK_ACCESS_LOCAL_WRITE | RBLK_ACCESS_REMOTE_READ |
							  RBLK_ACCESS_REMOTE_WRITE,
						  &tmp);
			if (ret) {
				rblk_slot_put(&hq->slots, slot);
				pthread_mutex_unlock(&hq->lock);
				RBLK_ERR("registering a %u-byte admin buffer: %s", len, strerror(-ret));
				return ret;
			}
			lkey = rblk_mr_lkey(tmp);
			rkey = rblk_mr_rkey(tmp);
		}
		ret = rblk_hq_map(hq, slot, buf, len, lkey, rkey);
	}
	if (ret) {
		rblk_slot_put(&hq->slots, slot);
		goto out_unlock;
	}
	ret = rblk_hq_exec(hq, slot, timeout_ms, true, &cqe);
	if (!ret) {
		uint16_t st = nvme_cqe_status(&cqe);

		if (status)
			*status = st;
		if (dw0)
			*dw0 = rblk_le32(cqe.dw0);
		if (dw1)
			*dw1 = rblk_le32(cqe.dw1);
		/* The slot is free again, but nobody can take it while we hold the lock. */
		if (!st && len && !h2c && local)
			memcpy(buf, local, len);
	}
out_unlock:
	pthread_mutex_unlock(&hq->lock);
	rblk_mr_dereg(tmp);
	return ret;
}

int rblk_prop_get(struct rblk_ctrl *c, uint32_t ofst, uint64_t *value)
{
	struct nvme_sqe sqe;
	uint32_t dw0 = 0, dw1 = 0;
	uint16_t st;
	int ret;

	rblk_cmd_prop_get(&sqe, ofst);
	ret = rblk_admin_exec(c, &sqe, NULL, 0, true, RBLK_BRINGUP_TIMEOUT_MS, &dw0, &dw1, &st);
	if (ret)
		return ret;
	if (st) {
		RBLK_ERR("Property Get %#x: %s (%#x)", ofst, rblk_nvme_status_str(st), st);
		return -EREMOTEIO;
	}
	*value = ofst == NVME_REG_CAP ? ((uint64_t)dw1 << 32 | dw0) : dw0;
	return 0;
}

int rblk_prop_set(struct rblk_ctrl *c, uint32_t ofst, uint32_t value)
{
	struct nvme_sqe sqe;
	uint16_t st;
	int ret;

	rblk_cmd_prop_set(&sqe, ofst, value);
	ret = rblk_admin_exec(c, &sqe, NULL, 0, true, RBLK_BRINGUP_TIMEOUT_MS, NULL, NULL, &st);
	if (ret)
		return ret;
	if (st) {
		RBLK_ERR("Property Set %#x = %#x: %s (%#x)", ofst, value, rblk_nvme_status_str(st), st);
		return -EREMOTEIO;
	}
	return 0;
}

void rblk_ctrl_shutdown(struct rblk_ctrl *c)
{
	uint64_t cc = rblk_cc_enable_value(), csts = 0, deadline;
	uint32_t timeout = RBLK_SHUTDOWN_TIMEOUT_MS;
	int ret;

	if (c->admin.state != RBLK_HQ_LIVE)
		return;
	/* RTD3E (µs) may ask for longer; the Linux host clamps it to 60 s. */
	if (c->id && rblk_le32(c->id->rtd3e) / 1000 > timeout)
		timeout = rblk_le32(c->id->rtd3e) / 1000 > 60000 ? 60000 : rblk_le32(c->id->rtd3e) / 1000;
	rblk_prop_get(c, NVME_REG_CC, &cc);
	ret = rblk_prop_set(c, NVME_REG_CC, rblk_cc_shutdown_value((uint32_t)cc));
	if (ret) {
		RBLK_INFO("shutdown: setting CC.SHN: %s", strerror(-ret));
		return;
	}
	deadline = rblk_clock_ms() + timeout;
	for (;;) {
		ret = rblk_prop_get(c, NVME_REG_CSTS, &csts);
		if (ret || NVME_CSTS_SHST(csts) == NVME_CSTS_SHST_CMPLT)
			break;
		if (rblk_clock_ms() >= deadline) {
			RBLK_WARN("shutdown: CSTS.SHST not complete after %u ms (CSTS %#llx)", timeout,
				  (unsigned long long)csts);
			return;
		}
		usleep(10000);
	}
	if (!ret)
		RBLK_DEBUG("controller %u shut down", c->cntlid);
}

int rblk_ctrl_admin_cmd(struct rblk_ctrl *c, void *sqe, void *buf, uint32_t len, uint32_t *dw0,
			uint16_t *status)
{
	uint16_t st = 0;
	int ret;

	if (status)
		*status = 0;
	if (!c || !sqe)
		return -EINVAL;
	ret = rblk_admin_exec(c, sqe, buf, len, false, RBLK_ADMIN_TIMEOUT_MS, dw0, NULL, &st);
	if (ret)
		return ret;
	if (status)
		*status = st;
	return st ? -EREMOTEIO : 0;
}

int rblk_ctrl_get_log(struct rblk_ctrl *c, uint8_t lid, uint32_t nsid, uint64_t offset,
		      void *buf, uint32_t len, uint16_t *status)
{
	uint8_t *out = buf;
	uint32_t done = 0;

	if (status)
		*status = 0;
	if (!c || (len && !buf) || (offset & 3))
		return -EINVAL;
	while (done < len) {
		uint32_t n = len - done < RBLK_SLOT_DATA ? len - done : RBLK_SLOT_DATA;
		uint32_t n4 = (n + 3) & ~3u;	/* NUMD counts dwords */
		uint8_t tmp[RBLK_SLOT_DATA];
		struct nvme_sqe sqe;
		uint16_t st;
		int ret;

		ret = rblk_cmd_get_log(&sqe, lid, nsid, offset + done, n4, false);
		if (!ret)
			ret = rblk_admin_exec(c, &sqe, n4 == n ? out + done : tmp, n4, false,
					      RBLK_ADMIN_TIMEOUT_MS, NULL, NULL, &st);
		if (ret)
			return ret;
		if (st) {
			if (status)
				*status = st;
			return -EREMOTEIO;
		}
		if (n4 != n)
			memcpy(out + done, tmp, n);
		done += n;
	}
	return 0;
}

int rblk_ctrl_identify_ns(struct rblk_ctrl *c, uint32_t nsid, struct nvme_id_ns *id,
			  uint16_t *status)
{
	struct nvme_sqe sqe;

	rblk_cmd_identify(&sqe, NVME_ID_CNS_NS, nsid, NVME_CSI_NVM);
	return rblk_admin_exec(c, &sqe, id, sizeof(*id), false, RBLK_ADMIN_TIMEOUT_MS, NULL, NULL,
			       status);
}

static int ns_present(struct rblk_ctrl *c, uint32_t nsid, struct nvme_id_ns *id)
{
	uint16_t st;
	int ret;

	ret = rblk_ctrl_identify_ns(c, nsid, id, &st);
	if (ret)
		return ret;
	return !st && id->ncap ? 1 : 0;
}

int rblk_ctrl_list_ns(struct rblk_ctrl *c, uint32_t *nsids, unsigned max)
{
	uint32_t *list = NULL, prev = 0;
	struct nvme_id_ns *id = NULL;
	unsigned count = 0;
	int ret = 0;

	if (!c || (max && !nsids))
		return -EINVAL;
	if (c->discovery)
		return 0;
	list = malloc(NVME_IDENTIFY_DATA_SIZE);
	if (!list)
		return -ENOMEM;
	for (;;) {
		struct nvme_sqe sqe;
		unsigned i;
		uint16_t st;

		/* Active NSIDs greater than CDW1.NSID, ascending, zero-terminated. */
		rblk_cmd_identify(&sqe, NVME_ID_CNS_NS_ACTIVE_LIST, prev, NVME_CSI_NVM);
		ret = rblk_admin_exec(c, &sqe, list, NVME_IDENTIFY_DATA_SIZE, false,
				      RBLK_ADMIN_TIMEOUT_MS, NULL, NULL, &st);
		if (ret)
			goto out;
		if (st)
			goto scan;
		for (i = 0; i < NVME_ID_NS_LIST_MAX && list[i]; i++) {
			uint32_t nsid = rblk_le32(list[i]);

			if (nsid <= prev)
				break;	/* not ascending: stop rather than loop */
			if (count < max)
				nsids[count] = nsid;
			count++;
			prev = nsid;
		}
		if (i < NVME_ID_NS_LIST_MAX)
			break;
	}
	ret = (int)(count < max ? count : max);
	goto out;

scan:
	/* The Linux host's fallback: Identify each NSID up to NN. */
	id = malloc(sizeof(*id));
	if (!id) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint32_t nsid = 1; nsid <= rblk_le32(c->id->nn) && nsid <= 1024 && count < max; nsid++) {
		ret = ns_present(c, nsid, id);
		if (ret < 0)
			goto out;
		if (ret)
			nsids[count++] = nsid;
	}
	ret = (int)count;
out:
	free(id);
	free(list);
	return ret;
}

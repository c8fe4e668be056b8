/* SPDX-License-Identifier: MIT */
/*
 * The discovery controller (well-known NQN nqn.2014-08.org.nvmexpress.
 * discovery): its command set (Identify CNS 01h, Get Log Page 70h, Features
 * 0Bh/0Fh, AER, Keep Alive; everything else Invalid Opcode, as nvmet), the
 * discovery log page (a self entry first, then one entry per NVM subsystem x
 * listener that admits the host; nvmf-interop.md §4), and the generation
 * counter with its "discovery log changed" event.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "target/core.h"

static void fill_entry(struct nvmf_disc_log_entry *e, const struct rblk_listener *l,
		       const char *traddr, uint8_t subtype, const char *subnqn)
{
	memset(e, 0, sizeof(*e));
	e->trtype = NVMF_TRTYPE_RDMA;
	e->adrfam = strchr(traddr, ':') ? NVMF_ADRFAM_IPV6 : NVMF_ADRFAM_IPV4;
	e->subtype = subtype;
	e->treq = l->treq;
	e->portid = rblk_cpu_to_le16(l->portid);
	e->cntlid = rblk_cpu_to_le16(NVMF_CNTLID_DYNAMIC);
	e->asqsz = rblk_cpu_to_le16(NVMF_DISC_ASQSZ);
	/*
	 * The self entry repeats what the host already has (DUPRETINFO, so
	 * connect-all skips it) and we keep persistent discovery connections
	 * (EPCSD: KATO, AEN).
	 */
	if (subtype == NVMF_SUBTYPE_CURRENT_DISCOVERY)
		e->eflags = rblk_cpu_to_le16(NVMF_DISC_EFLAGS_DUPRETINFO | NVMF_DISC_EFLAGS_EPCSD);
	snprintf(e->trsvcid, sizeof(e->trsvcid), "%s", l->trsvcid);
	snprintf(e->subnqn, sizeof(e->subnqn), "%s", subnqn);
	snprintf(e->traddr, sizeof(e->traddr), "%s", traddr);
	e->tsas.rdma.qptype = NVMF_RDMA_QPTYPE_CONNECTED;
	e->tsas.rdma.prtype = NVMF_RDMA_PRTYPE_NOT_SPECIFIED;
	e->tsas.rdma.cms = NVMF_RDMA_CMS_RDMA_CM;
}

/*
 * The address a host should use for l: never the wildcard. For a listener
 * on "any" that is our local address on the host's own connection (nvmet's
 * disc_traddr); NULL when unknown, and the entry is left out.
 */
static const char *entry_traddr(const struct rblk_listener *l, const struct rblk_sq *sq)
{
	if (!l->any)
		return l->traddr;
	return sq->local_traddr[0] ? sq->local_traddr : NULL;
}

int rblk_disc_build_log(struct rblk_target *tgt, const struct rblk_sq *sq, const char *hostnqn,
			void **out, size_t *len)
{
	struct nvmf_disc_log_hdr *hdr;
	struct nvmf_disc_log_entry *e;
	const struct rblk_listener *self;
	uint64_t n = 0, max;
	uint8_t *buf;

	pthread_mutex_lock(&tgt->lock);
	max = 1;
	for (struct rblk_subsystem *ss = tgt->subsys; ss; ss = ss->next)
		max += tgt->nr_listeners;
	buf = calloc(1, NVMF_DISC_LOG_HDR_SIZE + max * NVMF_DISC_ENTRY_SIZE);
	if (!buf) {
		pthread_mutex_unlock(&tgt->lock);
		return -ENOMEM;
	}
	hdr = (struct nvmf_disc_log_hdr *)buf;
	/*
	 * GENCTR before the entries: changes bump it after they are visible, so
	 * a log built during a change carries the older value and the host's
	 * next read sees a newer one and starts over.
	 */
	hdr->genctr = rblk_cpu_to_le64(atomic_load(&tgt->genctr));
	e = (struct nvmf_disc_log_entry *)(buf + NVMF_DISC_LOG_HDR_SIZE);

	/* The listener the host came through, else the first one. */
	self = sq->listener ? sq->listener : tgt->nr_listeners ? tgt->listeners[0] : NULL;
	if (self && entry_traddr(self, sq))
		fill_entry(&e[n++], self, entry_traddr(self, sq), NVMF_SUBTYPE_CURRENT_DISCOVERY,
			   NVME_DISC_SUBSYS_NAME);
	for (struct rblk_subsystem *ss = tgt->subsys; ss; ss = ss->next) {
		if (!rblk_subsys_host_allowed(ss, hostnqn))
			continue;
		for (unsigned i = 0; i < tgt->nr_listeners; i++) {
			const struct rblk_listener *l = tgt->listeners[i];
			const char *traddr = entry_traddr(l, sq);

			if (traddr)
				fill_entry(&e[n++], l, traddr, NVMF_SUBTYPE_NVME, ss->nqn);
		}
	}
	pthread_mutex_unlock(&tgt->lock);
	hdr->numrec = rblk_cpu_to_le64(n);
	hdr->recfmt = 0;
	*out = buf;
	*len = NVMF_DISC_LOG_HDR_SIZE + n * NVMF_DISC_ENTRY_SIZE;
	return 0;
}

void rblk_disc_changed(struct rblk_target *tgt)
{
	struct rblk_subsystem *disc = tgt->disc;

	atomic_fetch_add(&tgt->genctr, 1);
	if (!disc)
		return;
	pthread_mutex_lock(&disc->lock);
	for (struct rblk_ctrl *c = disc->ctrls; c; c = c->next)
		rblk_ctrl_add_event(c, NVME_AEN_CFG_DISC_CHANGE,
				    nvme_aen_dw0(NVME_AER_TYPE_NOTICE, NVME_AER_NOTICE_DISC_CHANGED,
						 NVME_LOG_DISC));
	pthread_mutex_unlock(&disc->lock);
}

static void execute_disc_get_log(struct rblk_req *req)
{
	const struct nvme_get_log_cmd *c = (const struct nvme_get_log_cmd *)req->cmd;
	struct rblk_ctrl *ctrl = req->sq->ctrl;
	void *log;
	size_t len;
	uint16_t status;

	if (c->lid != NVME_LOG_DISC) {
		req->error_loc = offsetof(struct nvme_get_log_cmd, lid);
		rblk_req_complete(req, NVME_SC_INVALID_FIELD | NVME_SC_DNR);
		return;
	}
	if (rblk_disc_build_log(req->sq->tgt, req->sq, ctrl->hostnqn, &log, &len)) {
		rblk_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	status = rblk_req_copy_log(req, nvme_get_log_lpo(c), log, len);
	free(log);
	/* A full read re-enables the change event unless RAE (libnvme sets it on all but the last chunk). */
	if (!status && !(c->lsp & NVME_LOG_RAE))
		rblk_ctrl_clear_aen_mask(ctrl, NVME_AEN_CFG_DISC_CHANGE);
	rblk_req_complete(req, status);
}

static void execute_disc_identify(struct rblk_req *req)
{
	const struct nvme_identify_cmd *c = (const struct nvme_identify_cmd *)req->cmd;

	if (c->cns != NVME_ID_CNS_CTRL) {
		req->error_loc = offsetof(struct nvme_identify_cmd, cns);
		rblk_req_complete(req, NVME_SC_INVALID_FIELD | NVME_SC_DNR);
		return;
	}
	rblk_admin_identify_ctrl(req);
}

uint16_t rblk_disc_parse(struct rblk_req *req)
{
	const struct nvme_sqe *cmd = req->cmd;
	uint64_t len;

	if (cmd->opc == NVME_ADMIN_FABRICS)
		return rblk_fabrics_parse_admin(req);
	/* nvmet: a discovery controller that is not ready knows no opcode. */
	if (!rblk_ctrl_ready(req->sq->ctrl)) {
		req->error_loc = offsetof(struct nvme_sqe, opc);
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
	switch (cmd->opc) {
	case NVME_ADMIN_GET_LOG_PAGE:
		len = (uint64_t)nvme_get_log_numd((const struct nvme_get_log_cmd *)cmd) * 4;
		if (len > req->sq->tgt->opts.max_io_size) {
			req->error_loc = offsetof(struct nvme_get_log_cmd, numdl);
			return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		}
		req->data_len = (uint32_t)len;
		req->dir = RBLK_XFER_C2H;
		req->execute = execute_disc_get_log;
		return 0;
	case NVME_ADMIN_IDENTIFY:
		req->data_len = NVME_IDENTIFY_DATA_SIZE;
		req->dir = RBLK_XFER_C2H;
		req->execute = execute_disc_identify;
		return 0;
	case NVME_ADMIN_SET_FEATURES:
	case NVME_ADMIN_GET_FEATURES:
		return rblk_admin_parse_features(req, true);
	case NVME_ADMIN_ASYNC_EVENT:
		req->execute = rblk_admin_aer;
		return 0;
	case NVME_ADMIN_KEEP_ALIVE:
		req->execute = rblk_admin_keep_alive;
		return 0;
	default:
		req->error_loc = offsetof(struct nvme_sqe, opc);
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
}

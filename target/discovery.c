/* SPDX-License-Identifier: MIT */
/*
 * The discovery controller (well-known NQN nqn.2014-08.org.nvmexpress.
 * discovery): its command set (Identify CNS 01h, Get Log Page 70h, Features
 * 0Bh/0Fh, AER, Keep Alive; everything else Invalid Opcode, as nvmet), the
 * discovery log page (a self entry first, then, as nvmet, one entry per NVM
 * subsystem exported on the port the host asked through that admits the
 * host; docs/interop.md §14), and the generation counter with its "discovery
 * log changed" event.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "protocol/disc.h"
#include "protocol/log_pages.h"
#include "target/core.h"

/* One entry for l as the host should use it; -EINVAL when a field does not fit. */
static int build_entry(struct nvmf_disc_log_entry *e, const struct rblk_listener *l,
		       const char *traddr, uint8_t subtype, const char *subnqn)
{
	struct rblk_disc_entry_info info;

	memset(&info, 0, sizeof(info));
	info.trtype = NVMF_TRTYPE_RDMA;
	info.adrfam = strchr(traddr, ':') ? NVMF_ADRFAM_IPV6 : NVMF_ADRFAM_IPV4;
	info.subtype = subtype;
	info.treq = l->treq;
	info.portid = l->portid;
	/*
	 * The self entry repeats what the host already has (DUPRETINFO, so
	 * connect-all skips it) and we keep persistent discovery connections
	 * (EPCSD: KATO, AEN).
	 */
	if (subtype == NVMF_SUBTYPE_CURRENT_DISCOVERY)
		info.eflags = NVMF_DISC_EFLAGS_DUPRETINFO | NVMF_DISC_EFLAGS_EPCSD;
	snprintf(info.trsvcid, sizeof(info.trsvcid), "%s", l->trsvcid);
	snprintf(info.traddr, sizeof(info.traddr), "%s", traddr);
	snprintf(info.subnqn, sizeof(info.subnqn), "%s", subnqn);
	/* CNTLID 0xFFFF, ASQSZ 32 and the RDMA TSAS are protocol/disc.c's. */
	return rblk_disc_entry_build(e, &info);
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
			struct nvmf_disc_log_entry **entries, uint32_t *numrec, uint64_t *genctr)
{
	const struct rblk_listener *self;
	struct nvmf_disc_log_entry *e;
	uint32_t n = 0, max = 1;

	pthread_mutex_lock(&tgt->lock);
	for (struct rblk_subsystem *ss = tgt->subsys; ss; ss = ss->next)
		max += tgt->nr_listeners;
	e = calloc(max, sizeof(*e));
	if (!e) {
		pthread_mutex_unlock(&tgt->lock);
		return -ENOMEM;
	}
	/*
	 * GENCTR before the entries: changes bump it after they are visible, so
	 * a log built during a change carries the older value and the host's
	 * next read sees a newer one and starts over.
	 */
	*genctr = atomic_load(&tgt->genctr);

	/* The listener the host came through, else the first one. */
	self = sq->listener ? sq->listener : tgt->nr_listeners ? tgt->listeners[0] : NULL;
	if (self && entry_traddr(self, sq) &&
	    !build_entry(&e[n], self, entry_traddr(self, sq), NVMF_SUBTYPE_CURRENT_DISCOVERY,
			 NVME_DISC_SUBSYS_NAME))
		n++;
	/*
	 * nvmet lists the subsystems of the port asked through, with that
	 * port's address. When the transport did not say which port (NULL),
	 * every port with what it exports.
	 */
	for (struct rblk_subsystem *ss = tgt->subsys; ss; ss = ss->next) {
		if (!rblk_subsys_host_allowed(ss, hostnqn))
			continue;
		for (unsigned i = 0; i < tgt->nr_listeners; i++) {
			const struct rblk_listener *l = tgt->listeners[i];
			const char *traddr = entry_traddr(l, sq);

			if ((sq->listener && l != sq->listener) || !rblk_listener_exports_locked(l, ss))
				continue;
			if (traddr && !build_entry(&e[n], l, traddr, NVMF_SUBTYPE_NVME, ss->nqn))
				n++;
		}
	}
	pthread_mutex_unlock(&tgt->lock);
	*entries = e;
	*numrec = n;
	return 0;
}

void rblk_disc_changed(struct rblk_target *tgt)
{
	struct rblk_subsystem *disc = tgt->disc;

	atomic_fetch_add(&tgt->genctr, 1);
	if (!disc)
		return;
	pthread_mutex_lock(&disc->lock);
	for (struct rblk_tgt_ctrl *c = disc->ctrls; c; c = c->next)
		rblk_tgt_ctrl_add_event(c, NVME_AEN_CFG_DISC_CHANGE,
				    nvme_aen_dw0(NVME_AER_TYPE_NOTICE, NVME_AER_NOTICE_DISC_CHANGED,
						 NVME_LOG_DISC));
	pthread_mutex_unlock(&disc->lock);
}

static void execute_disc_get_log(struct rblk_req *req)
{
	struct rblk_tgt_ctrl *ctrl = req->sq->ctrl;
	struct nvmf_disc_log_entry *entries;
	struct rblk_get_log_info gl;
	uint32_t numrec;
	uint64_t genctr;
	uint16_t status, loc;

	/* Already decoded without error by rblk_admin_parse_cmds(). */
	rblk_get_log_decode((const struct nvme_get_log_cmd *)req->cmd, &gl, &loc);
	if (gl.lid != NVME_LOG_DISC) {
		req->error_loc = offsetof(struct nvme_get_log_cmd, lid);
		rblk_req_complete(req, NVME_SC_INVALID_FIELD | NVME_SC_DNR);
		return;
	}
	if (rblk_disc_build_log(req->sq->tgt, req->sq, ctrl->hostnqn, &entries, &numrec, &genctr)) {
		rblk_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	status = rblk_req_copy_disc_log(req, gl.lpo, genctr, entries, numrec);
	free(entries);
	/* A full read re-enables the change event unless RAE (libnvme sets it on all but the last chunk). */
	if (!status && !gl.rae)
		rblk_tgt_ctrl_clear_aen_mask(ctrl, NVME_AEN_CFG_DISC_CHANGE);
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

/* nvmet_parse_discovery_cmd: no Abort, and before CSTS.RDY no opcode at all. */
static const struct rblk_admin_cmds disc_admin_cmds = {
	.not_ready_status = NVME_SC_INVALID_OPCODE | NVME_SC_DNR,
	.discovery = true,
	.get_log_page = execute_disc_get_log,
	.identify = execute_disc_identify,
	.abort = NULL,
};

uint16_t rblk_disc_parse(struct rblk_req *req)
{
	return rblk_admin_parse_cmds(req, &disc_admin_cmds);
}

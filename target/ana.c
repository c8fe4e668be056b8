/* SPDX-License-Identifier: MIT */
/*
 * Asymmetric Namespace Access, as nvmet has it (docs/ana.md): every
 * namespace is in an ANA group, every port (listener) has its own state for
 * each group, and a controller sees the states of the port its host came
 * through. This file owns the per-port states, the ANA log page (LID 0Ch),
 * the I/O check that refuses commands on a path that cannot serve them, the
 * ANA change events, and the public calls that change states and groups.
 *
 * Locking: states and the ports' group lists change under tgt->lock, which
 * also keeps the listeners and subsystems listed while the log is built. The
 * I/O path takes no lock: it reads one state and one group id with relaxed
 * atomic loads. A command that raced with a change is served under the old
 * or the new state; the host learns the new one from the AEN and the log.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "target/core.h"

void rblk_ana_port_init(struct rblk_listener *l)
{
	/* nvmet_ports_make(): group 1 optimized, the others inaccessible until set. */
	for (uint32_t g = 1; g <= RBLK_ANA_MAX_GROUPS; g++) {
		l->ana_state[g] = g == RBLK_ANA_DEFAULT_GRPID ? RBLK_ANA_OPTIMIZED
							      : RBLK_ANA_INACCESSIBLE;
		l->ana_group[g] = g == RBLK_ANA_DEFAULT_GRPID;
	}
}

enum rblk_ana_state rblk_ana_state_on(const struct rblk_listener *l, uint32_t grpid)
{
	if (!grpid || grpid > RBLK_ANA_MAX_GROUPS)
		return RBLK_ANA_INACCESSIBLE;
	/* No port known (only embedders' test transports): the defaults. */
	if (!l)
		return grpid == RBLK_ANA_DEFAULT_GRPID ? RBLK_ANA_OPTIMIZED : RBLK_ANA_INACCESSIBLE;
	return __atomic_load_n(&l->ana_state[grpid], __ATOMIC_RELAXED);
}

uint16_t rblk_ana_check_io(struct rblk_req *req)
{
	uint32_t grpid = __atomic_load_n(&req->ns->anagrpid, __ATOMIC_RELAXED);
	uint16_t status;

	/* nvmet_check_ana_state(): no DNR, the host's multipath retries elsewhere. */
	switch (rblk_ana_state_on(req->sq->ctrl->listener, grpid)) {
	case RBLK_ANA_INACCESSIBLE:
		status = NVME_SC_ANA_INACCESSIBLE;
		break;
	case RBLK_ANA_PERSISTENT_LOSS:
		status = NVME_SC_ANA_PERSISTENT_LOSS;
		break;
	case RBLK_ANA_CHANGE:
		status = NVME_SC_ANA_TRANSITION;
		break;
	default:
		return 0;
	}
	req->error_loc = offsetof(struct nvme_sqe, nsid);
	return status;
}

/* ------------------------------------------------------------------------ */
/* The log page.                                                             */

/* Namespaces of ss in each group ([grpid] += count); ss->ns_lock held. */
static void count_ns_locked(const struct rblk_subsystem *ss, uint32_t *per_group)
{
	for (uint32_t i = 0; i < ss->max_nsid; i++) {
		uint32_t g;

		if (!ss->ns[i])
			continue;
		g = __atomic_load_n(&ss->ns[i]->anagrpid, __ATOMIC_RELAXED);
		if (g && g <= RBLK_ANA_MAX_GROUPS)
			per_group[g]++;
	}
}

/*
 * The groups the log lists, nvmet's nvmet_ana_group_enabled[]: group 1, the
 * groups any port has, and the groups any namespace of any subsystem is in
 * (tgt->lock held). @own gets the counts of @self's namespaces per group.
 */
static unsigned listed_groups_locked(struct rblk_target *tgt, struct rblk_subsystem *self,
				     bool *listed, uint32_t *own)
{
	uint32_t other[RBLK_ANA_MAX_GROUPS + 1] = { 0 };
	unsigned n = 0;

	listed[RBLK_ANA_DEFAULT_GRPID] = true;
	for (unsigned i = 0; i < tgt->nr_listeners; i++)
		for (uint32_t g = 1; g <= RBLK_ANA_MAX_GROUPS; g++)
			listed[g] |= tgt->listeners[i]->ana_group[g];
	for (struct rblk_subsystem *ss = tgt->subsys; ss; ss = ss->next) {
		if (ss == self)
			continue;
		pthread_rwlock_rdlock(&ss->ns_lock);
		count_ns_locked(ss, other);
		pthread_rwlock_unlock(&ss->ns_lock);
	}
	for (uint32_t g = 1; g <= RBLK_ANA_MAX_GROUPS; g++) {
		listed[g] |= other[g] || own[g];
		n += listed[g];
	}
	return n;
}

/*
 * Lays the log out in @buf: header, then per listed group its descriptor
 * and, without RGO, its NSIDs ascending (the Linux host walks them in
 * order). @nsid_off[g] is where group g's first NSID goes.
 */
static size_t fill_log(uint8_t *buf, const struct rblk_listener *l, uint64_t chgcnt,
		       const bool *listed, const uint32_t *own, bool rgo, size_t *nsid_off)
{
	struct nvme_ana_log_hdr hdr = { .chgcnt = rblk_cpu_to_le64(chgcnt) };
	size_t off = sizeof(hdr);
	uint16_t ngrps = 0;

	for (uint32_t g = 1; g <= RBLK_ANA_MAX_GROUPS; g++) {
		struct nvme_ana_group_desc d = {
			.grpid = rblk_cpu_to_le32(g),
			.nnsids = rblk_cpu_to_le32(rgo ? 0 : own[g]),
			.chgcnt = rblk_cpu_to_le64(chgcnt),
			.state = (uint8_t)rblk_ana_state_on(l, g),
		};

		if (!listed[g])
			continue;
		memcpy(buf + off, &d, sizeof(d));
		off += sizeof(d);
		nsid_off[g] = off;
		off += rgo ? 0 : own[g] * sizeof(uint32_t);
		ngrps++;
	}
	hdr.ngrps = rblk_cpu_to_le16(ngrps);
	memcpy(buf, &hdr, sizeof(hdr));
	return off;
}

uint16_t rblk_ana_log(struct rblk_req *req, uint64_t lpo, bool rgo, bool rae)
{
	struct rblk_tgt_ctrl *ctrl = req->sq->ctrl;
	struct rblk_subsystem *ss = ctrl->ss;
	struct rblk_target *tgt = ss->tgt;
	bool listed[RBLK_ANA_MAX_GROUPS + 1] = { false };
	uint32_t own[RBLK_ANA_MAX_GROUPS + 1] = { 0 };
	size_t nsid_off[RBLK_ANA_MAX_GROUPS + 1] = { 0 };
	size_t len;
	uint8_t *buf;
	unsigned ngrps;
	uint16_t status;

	pthread_mutex_lock(&tgt->lock);
	/* The own table stays read-locked so counts and NSIDs agree. */
	pthread_rwlock_rdlock(&ss->ns_lock);
	count_ns_locked(ss, own);
	ngrps = listed_groups_locked(tgt, ss, listed, own);
	len = sizeof(struct nvme_ana_log_hdr) + ngrps * sizeof(struct nvme_ana_group_desc);
	for (uint32_t g = 1; !rgo && g <= RBLK_ANA_MAX_GROUPS; g++)
		len += own[g] * sizeof(uint32_t);
	buf = calloc(1, len);
	if (buf) {
		fill_log(buf, ctrl->listener, atomic_load(&tgt->ana_chgcnt), listed, own, rgo,
			 nsid_off);
		for (uint32_t i = 0; !rgo && i < ss->max_nsid; i++) {
			uint32_t g;

			if (!ss->ns[i])
				continue;
			g = __atomic_load_n(&ss->ns[i]->anagrpid, __ATOMIC_RELAXED);
			if (!g || g > RBLK_ANA_MAX_GROUPS)
				continue;
			rblk_put_le32(buf + nsid_off[g], i + 1);
			nsid_off[g] += sizeof(uint32_t);
		}
	}
	pthread_rwlock_unlock(&ss->ns_lock);
	pthread_mutex_unlock(&tgt->lock);
	if (!buf)
		return NVME_SC_INTERNAL;
	status = rblk_req_copy_log(req, lpo, buf, len);
	free(buf);
	/* Read without RAE: the next ANA change may raise an event again (nvmet). */
	if (!status && !rae)
		rblk_tgt_ctrl_clear_aen_mask(ctrl, NVME_AEN_CFG_ANA_CHANGE);
	return status;
}

/* ------------------------------------------------------------------------ */
/* Changes and their events.                                                 */

static void ana_event(struct rblk_tgt_ctrl *ctrl)
{
	rblk_tgt_ctrl_add_event(ctrl, NVME_AEN_CFG_ANA_CHANGE,
				nvme_aen_dw0(NVME_AER_TYPE_NOTICE, NVME_AER_NOTICE_ANA, NVME_LOG_ANA));
}

/* Every controller whose host came through @l (tgt->lock held; lock order tgt -> ss -> ctrl). */
static void port_changed_locked(struct rblk_target *tgt, const struct rblk_listener *l)
{
	atomic_fetch_add(&tgt->ana_chgcnt, 1);
	for (struct rblk_subsystem *ss = tgt->subsys; ss; ss = ss->next) {
		pthread_mutex_lock(&ss->lock);
		for (struct rblk_tgt_ctrl *c = ss->ctrls; c; c = c->next)
			if (c->listener == l)
				ana_event(c);
		pthread_mutex_unlock(&ss->lock);
	}
}

static bool state_valid(enum rblk_ana_state s)
{
	switch (s) {
	case RBLK_ANA_OPTIMIZED:
	case RBLK_ANA_NON_OPTIMIZED:
	case RBLK_ANA_INACCESSIBLE:
	case RBLK_ANA_PERSISTENT_LOSS:
	case RBLK_ANA_CHANGE:
		return true;
	}
	return false;
}

static bool grpid_valid(uint32_t grpid)
{
	return grpid >= 1 && grpid <= RBLK_ANA_MAX_GROUPS;
}

int rblk_target_port_set_ana_state(struct rblk_target *tgt, uint16_t portid, uint32_t grpid,
				   enum rblk_ana_state state)
{
	struct rblk_listener *l;
	bool changed;

	if (!tgt || !grpid_valid(grpid) || !state_valid(state))
		return -EINVAL;
	pthread_mutex_lock(&tgt->lock);
	l = rblk_listener_find_locked(tgt, portid);
	if (!l) {
		pthread_mutex_unlock(&tgt->lock);
		return -ENOENT;
	}
	/* A group new on the port changes the log even in its default state. */
	changed = !l->ana_group[grpid] || l->ana_state[grpid] != state;
	if (changed) {
		l->ana_group[grpid] = true;
		__atomic_store_n(&l->ana_state[grpid], state, __ATOMIC_RELAXED);
		port_changed_locked(tgt, l);
	}
	pthread_mutex_unlock(&tgt->lock);
	if (changed)
		RBLK_NOTICE("port %u: ANA group %u is %s", portid, grpid, rblk_ana_state_name(state));
	return 0;
}

int rblk_target_port_get_ana_state(struct rblk_target *tgt, uint16_t portid, uint32_t grpid,
				   enum rblk_ana_state *state)
{
	struct rblk_listener *l;

	if (!tgt || !state || !grpid_valid(grpid))
		return -EINVAL;
	pthread_mutex_lock(&tgt->lock);
	l = rblk_listener_find_locked(tgt, portid);
	if (l)
		*state = rblk_ana_state_on(l, grpid);
	pthread_mutex_unlock(&tgt->lock);
	return l ? 0 : -ENOENT;
}

int rblk_target_port_remove_ana_group(struct rblk_target *tgt, uint16_t portid, uint32_t grpid)
{
	struct rblk_listener *l;
	int ret = 0;

	/* nvmet: ports/N/ana_groups/1 is a default group, it cannot be removed. */
	if (!tgt || !grpid_valid(grpid) || grpid == RBLK_ANA_DEFAULT_GRPID)
		return -EINVAL;
	pthread_mutex_lock(&tgt->lock);
	l = rblk_listener_find_locked(tgt, portid);
	if (!l || !l->ana_group[grpid]) {
		ret = -ENOENT;
	} else {
		/* nvmet_ana_group_release(): the state falls back to inaccessible. */
		l->ana_group[grpid] = false;
		__atomic_store_n(&l->ana_state[grpid], RBLK_ANA_INACCESSIBLE, __ATOMIC_RELAXED);
		port_changed_locked(tgt, l);
	}
	pthread_mutex_unlock(&tgt->lock);
	if (!ret)
		RBLK_NOTICE("port %u: ANA group %u removed", portid, grpid);
	return ret;
}

int rblk_subsystem_set_ns_ana_grpid(struct rblk_subsystem *ss, uint32_t nsid, uint32_t grpid)
{
	struct rblk_tgt_ns *ns;
	uint32_t old;

	if (!ss || !grpid_valid(grpid))
		return -EINVAL;
	ns = rblk_subsys_get_ns(ss, nsid);
	if (!ns)
		return -ENOENT;
	old = __atomic_exchange_n(&ns->anagrpid, grpid, __ATOMIC_RELAXED);
	rblk_tgt_ns_put(ns);
	if (old == grpid)
		return 0;
	/* nvmet_ns_ana_grpid_store(): every controller of the subsystem, any port. */
	atomic_fetch_add(&ss->tgt->ana_chgcnt, 1);
	pthread_mutex_lock(&ss->lock);
	for (struct rblk_tgt_ctrl *c = ss->ctrls; c; c = c->next)
		ana_event(c);
	pthread_mutex_unlock(&ss->lock);
	RBLK_NOTICE("subsystem %s: namespace %u moved from ANA group %u to %u", ss->nqn, nsid, old,
		    grpid);
	return 0;
}

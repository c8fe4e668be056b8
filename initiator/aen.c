/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous events on the host side. After every (re)connect of a
 * controller that has a controller thread, Set Features (Asynchronous Event
 * Configuration) turns on the notices the controller offers (OAES) and we
 * act on, and one Asynchronous Event Request is kept outstanding on the
 * admin queue, as the Linux host does:
 *   - ANA change: counted in ctrl->ana_events and signalled on
 *     ctrl->event_fd, so that a multipath head re-reads the ANA log now
 *     rather than at its next poll. Its read carries no RAE, which is what
 *     lets the controller send the next ANA notice.
 *   - Namespace attribute changed: the controller thread reads the Changed
 *     Namespace List (no RAE, for the same reason) and updates the size of
 *     the open namespaces it names (an image grown or shrunk behind the
 *     target).
 *   - Error and SMART events: the log page the event names is read, which
 *     the controller needs before it reports that kind again, and the event
 *     is logged.
 * The request's completion is reaped by whoever holds the admin queue's
 * lock (the controller thread, a keep-alive tick inside rblk_poll(), a
 * user's admin command): there it is only recorded and the controller
 * thread woken; that thread acts on it and posts the next request. A
 * request that completes with an error status (a controller that aborts
 * it, or refuses more) is not sent again on that connection. Nothing here
 * is on the I/O path.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "initiator/cmd.h"
#include "initiator/ctrl.h"
#include "initiator/identify.h"
#include "protocol/names.h"
#include "protocol/nvme_id.h"
#include "protocol/nvme_log.h"

/* ctrl->aen_pending: what the controller thread still has to do. */
#define PENDING_NS_CHANGED (1u << 0)
#define PENDING_ERROR_LOG (1u << 1)
#define PENDING_SMART_LOG (1u << 2)

/* The Changed Namespace List: up to 1024 NSIDs; 0xFFFFFFFF first means "more than that". */
#define CHANGED_NS_MAX 1024u
#define CHANGED_NS_OVERFLOW 0xFFFFFFFFu
/* Enough of an Error Information (64-byte entries) or SMART log to clear its event. */
#define EVENT_LOG_READ 512u
/* Open namespaces whose size is re-read per event; more are rare enough to skip. */
#define NS_RECHECK_MAX 64u

uint32_t rblk_aen_config(uint32_t oaes)
{
	return oaes & (NVME_AEN_CFG_NS_ATTR | NVME_AEN_CFG_ANA_CHANGE);
}

void rblk_ctrl_set_event_fd(struct rblk_ctrl *c, int fd)
{
	atomic_store(&c->event_fd, fd);
}

static void aer_done(struct rblk_hq *hq, struct rblk_slot *slot, int err)
{
	rblk_aen_complete_locked(hq->ctrl, err, err ? 0 : rblk_slot_status(slot),
				 err ? 0 : rblk_le32(slot->cqe.dw0));
}

void rblk_aen_post_locked(struct rblk_ctrl *c)
{
	struct rblk_hq *a = &c->admin;
	struct rblk_slot *slot;

	if (!c->aer_on || c->aer_outstanding || a->state != RBLK_HQ_LIVE)
		return;
	slot = rblk_slot_get(&a->slots);
	if (!slot)
		return;	/* every slot busy: the controller thread tries again */
	rblk_cmd_async_event(slot->sqe);
	rblk_hq_map(a, slot, NULL, 0, 0, 0);
	slot->done = aer_done;
	slot->ctx = c;
	c->aer_outstanding = true;
	rblk_hq_post(a, slot);
	rblk_hq_flush(a);
}

static void ana_notice(struct rblk_ctrl *c)
{
	uint64_t one = 1;
	int fd;

	atomic_fetch_add(&c->ana_events, 1);
	fd = atomic_load(&c->event_fd);
	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0)
		RBLK_DEBUG("controller %u: signalling an ANA change: %s", c->cntlid, strerror(errno));
	RBLK_INFO("%s at %s:%s: controller %u reports an ANA change", c->subnqn, c->traddr,
		  c->trsvcid, c->cntlid);
}

void rblk_aen_complete_locked(struct rblk_ctrl *c, int err, uint16_t status, uint32_t dw0)
{
	uint8_t type = NVME_AEN_DW0_TYPE(dw0), info = NVME_AEN_DW0_INFO(dw0);

	c->aer_outstanding = false;
	if (err)
		return;	/* the connection went; the next one asks again */
	if (status) {
		/*
		 * Aborted (a controller going away answers its requests so)
		 * or refused (Asynchronous Event Request Limit Exceeded):
		 * asking again would only get the same answer.
		 */
		c->aer_on = false;
		RBLK_DEBUG("controller %u: Asynchronous Event Request: %s (%#x); no more on this connection",
			   c->cntlid, rblk_nvme_status_str(status), status);
		return;
	}
	if (type == NVME_AER_TYPE_NOTICE && info == NVME_AER_NOTICE_ANA) {
		ana_notice(c);
	} else if (type == NVME_AER_TYPE_NOTICE && info == NVME_AER_NOTICE_NS_CHANGED) {
		atomic_fetch_or(&c->aen_pending, PENDING_NS_CHANGED);
	} else if (type == NVME_AER_TYPE_ERROR) {
		RBLK_WARN("%s at %s:%s: controller %u reports an error (event %#x)", c->subnqn,
			  c->traddr, c->trsvcid, c->cntlid, info);
		atomic_fetch_or(&c->aen_pending, PENDING_ERROR_LOG);
	} else if (type == NVME_AER_TYPE_SMART) {
		RBLK_WARN("%s at %s:%s: controller %u reports a health event (%#x)", c->subnqn,
			  c->traddr, c->trsvcid, c->cntlid, info);
		atomic_fetch_or(&c->aen_pending, PENDING_SMART_LOG);
	} else {
		RBLK_INFO("controller %u: asynchronous event type %u, information %#x, log page %#x",
			  c->cntlid, type, info, NVME_AEN_DW0_LID(dw0));
	}
	rblk_ctrl_wake(c);
}

bool rblk_aen_watch_locked(struct rblk_ctrl *c)
{
	struct rblk_hq *a = &c->admin;

	if (a->state != RBLK_HQ_LIVE)
		return false;
	/*
	 * Arm, then reap once more: a completion that landed before the arm
	 * raises no wakeup. Anything reaped here may be our answer, which
	 * clears aer_outstanding and wakes the thread through its eventfd.
	 */
	while (c->aer_outstanding && rblk_hq_arm_idle(a) && rblk_hq_process(a, 32) > 0)
		;
	rblk_hq_flush(a);
	return c->aer_outstanding;
}

int rblk_aen_enable(struct rblk_ctrl *c)
{
	uint32_t want = rblk_aen_config(rblk_le32(c->id->oaes));
	struct nvme_sqe sqe;
	uint16_t st = 0;
	int ret;

	pthread_mutex_lock(&c->admin.lock);
	c->aer_on = false;
	pthread_mutex_unlock(&c->admin.lock);
	atomic_store(&c->aen_enabled, 0);
	/* As the Linux host: no notice we act on, no request at all. */
	if (c->oneshot || c->discovery || !want)
		return 0;
	rblk_cmd_set_features(&sqe, NVME_FEAT_ASYNC_EVENT, want);
	ret = rblk_admin_exec(c, &sqe, NULL, 0, true, RBLK_BRINGUP_TIMEOUT_MS, NULL, NULL, &st);
	if (ret)
		return ret;
	if (st)
		RBLK_INFO("controller %u: Set Features (Asynchronous Event Configuration %#x): %s (%#x); ANA changes are polled for",
			  c->cntlid, want, rblk_nvme_status_str(st), st);
	else
		atomic_store(&c->aen_enabled, want);
	pthread_mutex_lock(&c->admin.lock);
	c->aer_on = true;
	rblk_aen_post_locked(c);
	pthread_mutex_unlock(&c->admin.lock);
	return 0;
}

/* The open namespaces @list names (all of them when it overflowed): up to @max NSIDs into @out. */
static unsigned open_changed(struct rblk_ctrl *c, const uint32_t *list, uint32_t *out, unsigned max)
{
	bool all = rblk_le32(list[0]) == CHANGED_NS_OVERFLOW;
	unsigned n = 0;

	pthread_mutex_lock(&c->lock);
	for (struct rblk_ns *ns = c->ns_list; ns && n < max; ns = ns->next) {
		bool hit = all, dup = false;

		for (unsigned i = 0; !hit && i < CHANGED_NS_MAX && list[i]; i++)
			hit = rblk_le32(list[i]) == ns->nsid;
		for (unsigned i = 0; i < n; i++)
			dup |= out[i] == ns->nsid;
		if (hit && !dup)
			out[n++] = ns->nsid;
	}
	pthread_mutex_unlock(&c->lock);
	return n;
}

/* Namespace @nsid's size again; open namespaces of that NSID take the new one. */
static void ns_recheck(struct rblk_ctrl *c, uint32_t nsid, struct nvme_id_ns *id)
{
	struct rblk_ns_geom g;
	uint16_t st;
	int ret;

	ret = rblk_ctrl_identify_ns(c, nsid, id, &st);
	if (ret || st) {
		RBLK_INFO("namespace %u changed; Identify Namespace: %s", nsid,
			  ret ? strerror(-ret) : rblk_nvme_status_str(st));
		return;
	}
	ret = rblk_id_ns_geom(id, nsid, &g);
	if (ret) {
		RBLK_WARN("%s: namespace %u changed and is %s now", c->subnqn, nsid,
			  ret == -ENODEV ? "inactive" : "in a format the host cannot use");
		return;
	}
	pthread_mutex_lock(&c->lock);
	for (struct rblk_ns *ns = c->ns_list; ns; ns = ns->next) {
		uint64_t old = atomic_load(&ns->nsze);

		if (ns->nsid != nsid)
			continue;
		if (g.lba_shift != ns->lba_shift) {
			RBLK_WARN("%s: namespace %u now has %u-byte blocks (was %u): reopen it",
				  c->subnqn, nsid, 1u << g.lba_shift, 1u << ns->lba_shift);
			continue;
		}
		if (g.nsze == old)
			continue;
		atomic_store(&ns->nsze, g.nsze);
		RBLK_NOTICE("%s: namespace %u resized: %llu -> %llu blocks", c->subnqn, nsid,
			    (unsigned long long)old, (unsigned long long)g.nsze);
	}
	pthread_mutex_unlock(&c->lock);
}

static void ns_changed(struct rblk_ctrl *c)
{
	uint32_t *list = calloc(CHANGED_NS_MAX, sizeof(*list)), nsids[NS_RECHECK_MAX];
	struct nvme_id_ns *id = NULL;
	uint16_t st = 0;
	unsigned n;
	int ret;

	if (!list || posix_memalign((void **)&id, 4096, sizeof(*id)))
		goto out;
	/* Read without RAE: it clears the list and lets the next notice come. */
	ret = rblk_ctrl_get_log(c, NVME_LOG_CHANGED_NS, 0xFFFFFFFF, 0, list,
				CHANGED_NS_MAX * sizeof(*list), &st);
	if (ret) {
		RBLK_INFO("controller %u: Changed Namespace List: %s", c->cntlid,
			  st ? rblk_nvme_status_str(st) : strerror(-ret));
		goto out;
	}
	n = open_changed(c, list, nsids, NS_RECHECK_MAX);
	RBLK_INFO("%s at %s:%s: namespaces changed (%u open here)", c->subnqn, c->traddr,
		  c->trsvcid, n);
	for (unsigned i = 0; i < n; i++)
		ns_recheck(c, nsids[i], id);
out:
	free(id);
	free(list);
}

static void read_event_log(struct rblk_ctrl *c, uint8_t lid)
{
	uint8_t buf[EVENT_LOG_READ];
	uint16_t st = 0;
	int ret;

	ret = rblk_ctrl_get_log(c, lid, lid == NVME_LOG_SMART ? 0xFFFFFFFF : 0, 0, buf,
				sizeof(buf), &st);
	if (ret)
		RBLK_INFO("controller %u: log page %#x: %s", c->cntlid, lid,
			  st ? rblk_nvme_status_str(st) : strerror(-ret));
}

void rblk_aen_service(struct rblk_ctrl *c)
{
	uint32_t todo = atomic_exchange(&c->aen_pending, 0);

	if (todo & PENDING_NS_CHANGED)
		ns_changed(c);
	if (todo & PENDING_ERROR_LOG)
		read_event_log(c, NVME_LOG_ERROR);
	if (todo & PENDING_SMART_LOG)
		read_event_log(c, NVME_LOG_SMART);
	pthread_mutex_lock(&c->admin.lock);
	rblk_aen_post_locked(c);
	pthread_mutex_unlock(&c->admin.lock);
}

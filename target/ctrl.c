/* SPDX-License-Identifier: MIT */
/*
 * Controllers (dynamic model: one per admin Connect): lifetime and
 * references, the queues bound to them, CC/CSTS (enable, and shutdown with
 * its flush of every namespace on a worker thread), the
 * keep-alive timer, asynchronous events (AER slots, pending events, AEN
 * masking until the log page is read), the changed namespace list and the
 * error log. Also the transport's queue hooks rblk_sq_init/teardown/destroy/
 * tick, since a queue's life is mostly its controller's business.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "protocol/props.h"
#include "target/core.h"

/* CC.EN / CSTS are read by other threads without the lock (ready checks). */
static inline uint32_t csts_load(const struct rblk_tgt_ctrl *ctrl)
{
	return __atomic_load_n(&ctrl->csts, __ATOMIC_ACQUIRE);
}

static inline void csts_store(struct rblk_tgt_ctrl *ctrl, uint32_t v)
{
	__atomic_store_n(&ctrl->csts, v, __ATOMIC_RELEASE);
}

int rblk_tgt_ctrl_create(struct rblk_subsystem *ss, const char *hostnqn, const uint8_t hostid[16],
		     uint32_t kato_ms, struct rblk_tgt_ctrl **out)
{
	struct rblk_tgt_ctrl *ctrl;
	int ret;

	ctrl = calloc(1, sizeof(*ctrl));
	if (!ctrl)
		return -ENOMEM;
	ctrl->ss = ss;
	atomic_init(&ctrl->refs, 1);
	ctrl->created_ms = rblk_clock_ms();
	snprintf(ctrl->hostnqn, sizeof(ctrl->hostnqn), "%s", hostnqn);
	memcpy(ctrl->hostid, hostid, sizeof(ctrl->hostid));
	ctrl->max_qid = ss->type == RBLK_SUBSYS_DISCOVERY ? 0 : ss->tgt->opts.max_io_queues;
	ctrl->nr_io_queues = ctrl->max_qid;
	ctrl->vwc_enabled = true;
	ctrl->temp_over = RBLK_TEMP_OVER_DEFAULT;
	/* A discovery controller without KATO still gets a timer (nvmet: 120 s). */
	if (!kato_ms && ss->type == RBLK_SUBSYS_DISCOVERY)
		kato_ms = RBLK_DISC_KATO_MS;
	ctrl->kato_ms = kato_ms;
	ctrl->sqs = calloc(ctrl->max_qid + 1, sizeof(*ctrl->sqs));
	if (!ctrl->sqs) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = pthread_mutex_init(&ctrl->lock, NULL);
	if (ret) {
		ret = -ret;
		goto out_free_sqs;
	}
	ret = rblk_subsys_add_ctrl(ss, ctrl);
	if (ret)
		goto out_mutex;
	atomic_fetch_add(&ss->power_cycles, 1);
	RBLK_INFO("ctrl %u on %s created for %s (kato %u ms)", ctrl->cntlid, ss->nqn,
		  ctrl->hostnqn, ctrl->kato_ms);
	*out = ctrl;
	return 0;

out_mutex:
	pthread_mutex_destroy(&ctrl->lock);
out_free_sqs:
	free(ctrl->sqs);
out_free:
	free(ctrl);
	return ret;
}

void rblk_tgt_ctrl_get(struct rblk_tgt_ctrl *ctrl)
{
	atomic_fetch_add(&ctrl->refs, 1);
}

/* A reference unless the controller is already on its way out (refs 0). */
static bool ctrl_tryget(struct rblk_tgt_ctrl *ctrl)
{
	int r = atomic_load(&ctrl->refs);

	while (r > 0)
		if (atomic_compare_exchange_weak(&ctrl->refs, &r, r + 1))
			return true;
	return false;
}

void rblk_tgt_ctrl_put(struct rblk_tgt_ctrl *ctrl)
{
	struct rblk_subsystem *ss = ctrl->ss;

	if (atomic_fetch_sub(&ctrl->refs, 1) != 1)
		return;
	if (!ctrl->clean_shutdown && ss->type == RBLK_SUBSYS_NVM)
		atomic_fetch_add(&ss->unsafe_shutdowns, 1);
	RBLK_INFO("ctrl %u on %s destroyed%s", ctrl->cntlid, ss->nqn,
		  ctrl->clean_shutdown ? "" : " (no shutdown)");
	rblk_subsys_remove_ctrl(ss, ctrl);
	rblk_tgt_auth_keys_free(ctrl->auth);
	pthread_mutex_destroy(&ctrl->lock);
	free(ctrl->sqs);
	free(ctrl);
}

/* ------------------------------------------------------------------------ */
/* Registers.                                                                */

uint64_t rblk_tgt_ctrl_cap(const struct rblk_tgt_ctrl *ctrl)
{
	const struct rblk_target_opts *o = &ctrl->ss->tgt->opts;

	/*
	 * MQES from the options, CQR = 1 (queues are contiguous by nature on
	 * fabrics), TO = 15 (7.5 s), CSS = NVM only (no bit 43: CSI descriptors
	 * and CC.CSS = 6 stay out of play), MPSMIN = MPSMAX = 0 (4 KiB), and no
	 * CRMS: the host would then read CRTO (docs/interop.md §7.3).
	 */
	return nvme_cap_build((uint16_t)(o->max_queue_depth - 1), 1, 15, NVME_CAP_CSS_NVM, 0, 0);
}

bool rblk_tgt_ctrl_ready(struct rblk_tgt_ctrl *ctrl)
{
	return csts_load(ctrl) & NVME_CSTS_RDY;
}

/*
 * Shutdown (CC.SHN). The host takes SHST = complete to mean its writes are
 * durable and may power the machine off next: buffered files (tmpfs, no
 * O_DIRECT) and volatile device caches still hold them, so every namespace
 * of the subsystem is synced first. fdatasync can take seconds, far too
 * long for a poll-group thread that serves other hosts, so it runs on a
 * short-lived detached thread. That thread holds a controller reference:
 * the controller stays, and with it the subsystem (rblk_subsys_destroy()
 * waits for its controllers); each namespace is held by a reference while
 * synced (rblk_subsys_remove_ns() waits for those). The Linux host polls
 * CSTS until SHST = 10b, up to its shutdown timeout.
 */

/* Syncs every namespace of ss; returns how many failed (each logged by ns.c). */
static unsigned sync_namespaces(struct rblk_subsystem *ss)
{
	uint32_t nsids[64], after = 0;
	unsigned n, failed = 0;

	while ((n = rblk_subsys_active_list(ss, after, nsids, 64)) != 0) {
		for (unsigned i = 0; i < n; i++) {
			struct rblk_tgt_ns *ns = rblk_subsys_get_ns(ss, nsids[i]);

			if (!ns)
				continue; /* removed meanwhile: its close synced it */
			failed += rblk_tgt_ns_sync(ns, "shutdown") != 0;
			rblk_tgt_ns_put(ns);
		}
		after = nsids[n - 1];
	}
	return failed;
}

/* ctrl->lock held: the flush for shutdown number gen is over. */
static void shutdown_done_locked(struct rblk_tgt_ctrl *ctrl, uint32_t gen, unsigned failed)
{
	uint32_t csts = ctrl->csts;

	/* The host cleared SHN (or shut down again) meanwhile: not ours to end. */
	if (gen != ctrl->shn_gen || NVME_CSTS_SHST(csts) != NVME_CSTS_SHST_OCCUR)
		return;
	if (failed)
		RBLK_ERR("ctrl %u on %s (%s): shutdown: %u namespace(s) could not be synced; "
			 "reporting it complete, counted as an unsafe shutdown", ctrl->cntlid,
			 ctrl->ss->nqn, ctrl->hostnqn, failed);
	/*
	 * Complete even so: the host can do nothing better with a shutdown
	 * that never ends than time out. SMART says what happened.
	 */
	ctrl->clean_shutdown = !failed;
	csts &= ~NVME_CSTS_SHST_MASK;
	csts |= NVME_CSTS_SHST_CMPLT << NVME_CSTS_SHST_SHIFT;
	csts_store(ctrl, csts);
}

static void *shutdown_thread(void *arg)
{
	struct rblk_tgt_ctrl *ctrl = arg;
	unsigned failed;
	uint32_t gen;

	/* Read now: a later SHN is covered too, since the syncs start after it. */
	pthread_mutex_lock(&ctrl->lock);
	gen = ctrl->shn_gen;
	pthread_mutex_unlock(&ctrl->lock);
	failed = sync_namespaces(ctrl->ss);
	pthread_mutex_lock(&ctrl->lock);
	shutdown_done_locked(ctrl, gen, failed);
	pthread_mutex_unlock(&ctrl->lock);
	rblk_tgt_ctrl_put(ctrl);
	return NULL;
}

/* ctrl->lock held, CSTS.SHST just set to 01b (processing). */
static void shutdown_start_locked(struct rblk_tgt_ctrl *ctrl)
{
	pthread_attr_t attr;
	pthread_t th;
	int ret;

	ctrl->shn_gen++;
	rblk_tgt_ctrl_get(ctrl);
	ret = pthread_attr_init(&attr);
	if (!ret) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		ret = pthread_create(&th, &attr, shutdown_thread, ctrl);
		pthread_attr_destroy(&attr);
	}
	if (!ret)
		return;
	/*
	 * No thread: sync here, stalling this poll group once, rather than
	 * report a shutdown complete whose writes may still be volatile.
	 */
	RBLK_WARN("ctrl %u: no thread for the shutdown flush (%s): syncing inline",
		  ctrl->cntlid, strerror(ret));
	atomic_fetch_sub(&ctrl->refs, 1); /* never the last: the admin queue holds one */
	shutdown_done_locked(ctrl, ctrl->shn_gen, sync_namespaces(ctrl->ss));
}

/*
 * Transitions as nvmet_update_cc(), so both Linux 6.1.y enable sequences
 * work: one write with EN = 1, or a write with EN = 0, reads, then EN = 1.
 */
void rblk_tgt_ctrl_update_cc_locked(struct rblk_tgt_ctrl *ctrl, uint32_t cc)
{
	uint32_t old = ctrl->cc;
	uint32_t csts = ctrl->csts;

	ctrl->cc = cc;
	if ((cc & NVME_CC_EN) && !(old & NVME_CC_EN)) {
		/* nvmet_start_ctrl: discovery controllers skip the queue entry sizes. */
		if (!rblk_cc_validate(cc, rblk_tgt_ctrl_cap(ctrl), !rblk_tgt_ctrl_is_disc(ctrl))) {
			csts = NVME_CSTS_RDY;
		} else {
			RBLK_WARN("ctrl %u: CC %#x not supported (IOSQES %u IOCQES %u MPS %u AMS %u CSS %u)",
				  ctrl->cntlid, cc, NVME_CC_IOSQES(cc), NVME_CC_IOCQES(cc),
				  NVME_CC_MPS(cc), NVME_CC_AMS(cc), NVME_CC_CSS(cc));
			csts = NVME_CSTS_CFS;
		}
	}
	if (!(cc & NVME_CC_EN) && (old & NVME_CC_EN)) {
		csts &= ~NVME_CSTS_RDY;
		ctrl->cc = 0;
	}
	if (NVME_CC_SHN(cc) && !NVME_CC_SHN(old)) {
		csts &= ~(NVME_CSTS_RDY | NVME_CSTS_SHST_MASK);
		ctrl->cc = 0;
		if (rblk_tgt_ctrl_is_disc(ctrl)) {
			/* No namespaces, nothing to make durable. */
			csts |= NVME_CSTS_SHST_CMPLT << NVME_CSTS_SHST_SHIFT;
			ctrl->clean_shutdown = true;
			csts_store(ctrl, csts);
			return;
		}
		csts |= NVME_CSTS_SHST_OCCUR << NVME_CSTS_SHST_SHIFT;
		csts_store(ctrl, csts);
		shutdown_start_locked(ctrl);
		return;
	}
	if (!NVME_CC_SHN(cc) && NVME_CC_SHN(old))
		csts &= ~NVME_CSTS_SHST_MASK;
	csts_store(ctrl, csts);
}

/* ------------------------------------------------------------------------ */
/* Queues.                                                                   */

void rblk_sq_init(struct rblk_sq *sq, struct rblk_target *tgt,
		  const struct rblk_transport_ops *ops, uint32_t cm_qid, uint16_t depth)
{
	memset(sq, 0, sizeof(*sq));
	sq->tgt = tgt;
	sq->ops = ops;
	sq->cm_qid = cm_qid;
	sq->depth = depth;
	sq->state = RBLK_SQ_NEW;
	atomic_init(&sq->last_cmd_ms, rblk_clock_ms());
}

uint16_t rblk_tgt_ctrl_install_sq(struct rblk_tgt_ctrl *ctrl, struct rblk_sq *sq, uint16_t qid,
			      uint16_t sqsize, bool sqflow_disabled)
{
	pthread_mutex_lock(&ctrl->lock);
	if (ctrl->sqs[qid] || ctrl->fatal) {
		pthread_mutex_unlock(&ctrl->lock);
		return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	}
	ctrl->sqs[qid] = sq;
	sq->ctrl = ctrl;
	sq->qid = qid;
	sq->size = (uint16_t)(sqsize + 1);
	sq->sqhd = 0;
	sq->sqhd_disabled = sqflow_disabled;
	rblk_tgt_auth_sq_start(sq, rblk_clock_ms());
	sq->state = RBLK_SQ_LIVE;
	atomic_store_explicit(&sq->last_cmd_ms, rblk_clock_ms(), memory_order_relaxed);
	pthread_mutex_unlock(&ctrl->lock);
	if (sq->ops->connected)
		sq->ops->connected(sq);
	return 0;
}

/* ctrl->lock held: the sqs stay valid while we ask for their disconnect. */
static void disconnect_queues_locked(struct rblk_tgt_ctrl *ctrl, const struct rblk_sq *except)
{
	for (uint32_t i = 0; i <= ctrl->max_qid; i++) {
		struct rblk_sq *sq = ctrl->sqs[i];

		if (sq && sq != except)
			sq->ops->disconnect(sq);
	}
}

void rblk_tgt_ctrl_fatal(struct rblk_tgt_ctrl *ctrl, const char *why)
{
	pthread_mutex_lock(&ctrl->lock);
	if (!ctrl->fatal) {
		ctrl->fatal = true;
		csts_store(ctrl, ctrl->csts | NVME_CSTS_CFS);
		RBLK_WARN("ctrl %u on %s (%s): %s, disconnecting its queues", ctrl->cntlid,
			  ctrl->ss->nqn, ctrl->hostnqn, why);
		disconnect_queues_locked(ctrl, NULL);
	}
	pthread_mutex_unlock(&ctrl->lock);
}

void rblk_sq_teardown(struct rblk_sq *sq)
{
	struct rblk_tgt_ctrl *ctrl = sq->ctrl;
	struct rblk_req *aers[RBLK_AERL + 1];
	unsigned n = 0;

	if (sq->state != RBLK_SQ_LIVE) {
		sq->state = RBLK_SQ_CLOSING;
		return;
	}
	sq->state = RBLK_SQ_CLOSING;
	if (sq->qid != 0) {
		rblk_fused_sq_teardown(sq);
		rblk_qos_sq_teardown(sq);
		return;
	}

	/* Losing the admin queue ends the controller (nvmet-rdma). */
	pthread_mutex_lock(&ctrl->lock);
	n = ctrl->nr_aer;
	memcpy(aers, ctrl->aer, n * sizeof(aers[0]));
	ctrl->nr_aer = 0;
	if (!ctrl->fatal) {
		ctrl->fatal = true;
		if (!ctrl->clean_shutdown)
			RBLK_NOTICE("ctrl %u on %s (%s): admin queue lost without shutdown",
				    ctrl->cntlid, ctrl->ss->nqn, ctrl->hostnqn);
		disconnect_queues_locked(ctrl, sq);
	}
	pthread_mutex_unlock(&ctrl->lock);
	for (unsigned i = 0; i < n; i++)
		rblk_req_complete(aers[i], NVME_SC_ABORT_QUEUE | NVME_SC_DNR);
}

void rblk_sq_destroy(struct rblk_sq *sq)
{
	struct rblk_tgt_ctrl *ctrl = sq->ctrl;

	sq->state = RBLK_SQ_CLOSING;
	rblk_tgt_auth_sq_release(sq);
	if (!ctrl)
		return;
	pthread_mutex_lock(&ctrl->lock);
	if (ctrl->sqs[sq->qid] == sq)
		ctrl->sqs[sq->qid] = NULL;
	sq->ctrl = NULL;
	pthread_mutex_unlock(&ctrl->lock);
	rblk_tgt_ctrl_put(ctrl);
}

uint64_t rblk_sq_tick(struct rblk_sq *sq, uint64_t now_ms)
{
	struct rblk_tgt_ctrl *ctrl = sq->ctrl;
	uint64_t last = 0, timeout, next;
	bool expired = false;

	if (sq->state != RBLK_SQ_LIVE)
		return UINT64_MAX;
	/* Every queue: an authentication left unfinished fails its controller. */
	rblk_tgt_auth_tick(sq, now_ms);
	next = rblk_tgt_auth_next_ms(sq);
	if (sq->qid != 0)
		return next;
	pthread_mutex_lock(&ctrl->lock);
	if (ctrl->kato_ms && !ctrl->fatal) {
		/* Traffic on any queue counts (TBKAS); nvmet rounds KATO up to seconds. */
		for (uint32_t i = 0; i <= ctrl->max_qid; i++) {
			uint64_t t;

			if (!ctrl->sqs[i])
				continue;
			t = atomic_load_explicit(&ctrl->sqs[i]->last_cmd_ms, memory_order_relaxed);
			if (t > last)
				last = t;
		}
		/*
		 * The controller fails after twice the KATO (rounded up to seconds,
		 * as nvmet does) without a command. A command the host sent just
		 * before a fabric outage reaches us only after the outage plus an
		 * RC retransmission, and failing the controller then costs the host
		 * an error recovery and a reconnect delay for a blip it would have
		 * ridden out. nvmet and SPDK look once per KATO and fail a
		 * controller that had no command since the last look: after 1 to 2
		 * KATO of silence, by phase. We take the full 2, every time. In 64
		 * bits: a KATO near 2^32 ms must not round up to 0.
		 */
		timeout = ((uint64_t)ctrl->kato_ms + 999) / 1000 * 1000 * RBLK_KATO_GRACE;
		expired = now_ms > last && now_ms - last > timeout;
		/*
		 * Traffic on another thread can only move this later: a tick at
		 * the old time finds nothing and asks again.
		 */
		if (!expired && last + timeout + 1 < next)
			next = last + timeout + 1;
	}
	pthread_mutex_unlock(&ctrl->lock);
	if (expired) {
		rblk_tgt_ctrl_fatal(ctrl, "keep-alive timeout");
		return UINT64_MAX;
	}
	return next;
}

/* ------------------------------------------------------------------------ */
/* Asynchronous events.                                                      */

/* The oldest pending event's DW0 (ctrl->lock held, nr_aen_pending > 0). */
static uint32_t pop_event_locked(struct rblk_tgt_ctrl *ctrl)
{
	uint32_t dw0 = ctrl->aen_pending[0];

	memmove(ctrl->aen_pending, ctrl->aen_pending + 1,
		--ctrl->nr_aen_pending * sizeof(ctrl->aen_pending[0]));
	return dw0;
}

/* Pairs held AERs with pending events; runs on the admin queue's thread. */
static void aen_work(void *arg)
{
	struct rblk_tgt_ctrl *ctrl = arg;

	for (;;) {
		struct rblk_req *req;
		uint32_t dw0;

		pthread_mutex_lock(&ctrl->lock);
		if (!ctrl->nr_aer || !ctrl->nr_aen_pending) {
			pthread_mutex_unlock(&ctrl->lock);
			break;
		}
		req = ctrl->aer[0];
		memmove(ctrl->aer, ctrl->aer + 1, --ctrl->nr_aer * sizeof(ctrl->aer[0]));
		dw0 = pop_event_locked(ctrl);
		pthread_mutex_unlock(&ctrl->lock);
		rblk_req_set_dw0(req, dw0);
		rblk_req_complete(req, 0);
	}
	rblk_tgt_ctrl_put(ctrl);
}

void rblk_tgt_ctrl_queue_aer(struct rblk_tgt_ctrl *ctrl, struct rblk_req *req)
{
	uint32_t dw0;

	pthread_mutex_lock(&ctrl->lock);
	if (ctrl->nr_aen_pending) {
		dw0 = pop_event_locked(ctrl);
		pthread_mutex_unlock(&ctrl->lock);
		rblk_req_set_dw0(req, dw0);
		rblk_req_complete(req, 0);
		return;
	}
	if (ctrl->nr_aer > RBLK_AERL) {
		pthread_mutex_unlock(&ctrl->lock);
		rblk_req_complete(req, NVME_SC_AER_LIMIT | NVME_SC_DNR);
		return;
	}
	/* Held indefinitely: the host has no timeout for AERs. */
	ctrl->aer[ctrl->nr_aer++] = req;
	pthread_mutex_unlock(&ctrl->lock);
}

void rblk_tgt_ctrl_add_event(struct rblk_tgt_ctrl *ctrl, uint32_t aec_bit, uint32_t dw0)
{
	struct rblk_sq *admin;

	pthread_mutex_lock(&ctrl->lock);
	/*
	 * Only events the host enabled (feature 0Bh), and one per kind until
	 * the host reads the log page without RAE (NVMe 1.4 §5.2).
	 */
	if ((aec_bit != RBLK_AEN_RESV && !(ctrl->aec & aec_bit)) ||
	    (ctrl->aen_masked & aec_bit) || ctrl->fatal ||
	    ctrl->nr_aen_pending == RBLK_MAX_AEN_PENDING) {
		pthread_mutex_unlock(&ctrl->lock);
		return;
	}
	ctrl->aen_masked |= aec_bit;
	ctrl->aen_pending[ctrl->nr_aen_pending++] = dw0;
	admin = ctrl->sqs[0];
	if (ctrl->nr_aer && admin && ctrl_tryget(ctrl)) {
		/* The AER belongs to the admin queue's thread: complete it there. */
		if (admin->ops->run_on(admin, aen_work, ctrl)) {
			RBLK_WARN("ctrl %u: cannot reach the admin queue for an event", ctrl->cntlid);
			atomic_fetch_sub(&ctrl->refs, 1); /* never the last: sqs[0] holds one */
		}
	}
	pthread_mutex_unlock(&ctrl->lock);
}

void rblk_tgt_ctrl_clear_aen_mask(struct rblk_tgt_ctrl *ctrl, uint32_t aec_bit)
{
	pthread_mutex_lock(&ctrl->lock);
	ctrl->aen_masked &= ~aec_bit;
	pthread_mutex_unlock(&ctrl->lock);
}

void rblk_tgt_ctrl_ns_changed(struct rblk_tgt_ctrl *ctrl, uint32_t nsid)
{
	pthread_mutex_lock(&ctrl->lock);
	if (ctrl->nr_changed_ns != UINT32_MAX) {
		uint32_t i;

		for (i = 0; i < ctrl->nr_changed_ns; i++)
			if (ctrl->changed_ns[i] == nsid)
				break;
		if (i == ctrl->nr_changed_ns) {
			if (ctrl->nr_changed_ns == NVME_CHANGED_NS_MAX)
				ctrl->nr_changed_ns = UINT32_MAX; /* log: 0xFFFFFFFF */
			else
				ctrl->changed_ns[ctrl->nr_changed_ns++] = nsid;
		}
	}
	pthread_mutex_unlock(&ctrl->lock);
	rblk_tgt_ctrl_add_event(ctrl, NVME_AEN_CFG_NS_ATTR,
			    nvme_aen_dw0(NVME_AER_TYPE_NOTICE, NVME_AER_NOTICE_NS_CHANGED,
					 NVME_LOG_CHANGED_NS));
}

/* ------------------------------------------------------------------------ */
/* Error log.                                                                */

bool rblk_tgt_ctrl_log_error(struct rblk_tgt_ctrl *ctrl, const struct rblk_req *req, uint16_t status)
{
	struct nvme_error_log_entry *e;
	uint8_t opc = req->cmd->opc;

	/* Teardown aborts are not errors the host could look up. */
	if (req->sq->state != RBLK_SQ_LIVE)
		return false;
	pthread_mutex_lock(&ctrl->lock);
	ctrl->err_count++;
	e = &ctrl->errlog[(ctrl->err_count - 1) % RBLK_ERR_LOG_ENTRIES];
	memset(e, 0, sizeof(*e));
	e->error_count = rblk_cpu_to_le64(ctrl->err_count);
	e->sqid = rblk_cpu_to_le16(req->sq->qid);
	e->cmdid = req->cmd->cid;
	e->status_field = rblk_cpu_to_le16(nvme_status_to_wire(status | NVME_SC_MORE));
	e->parm_error_location = rblk_cpu_to_le16(req->error_loc);
	if (req->sq->qid && opc != NVME_ADMIN_FABRICS) {
		e->lba = rblk_cpu_to_le64(req->err_lba);
		e->nsid = req->cmd->nsid;
	}
	e->trtype = NVMF_TRTYPE_RDMA;
	pthread_mutex_unlock(&ctrl->lock);
	return true;
}

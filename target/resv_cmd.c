/* SPDX-License-Identifier: MIT */
/*
 * Reservation commands on a namespace: Register, Acquire, Release and
 * Report (I/O queues), the I/O path's reservation check, features 82h
 * (notification mask) and 83h (persistence), and the notices a change
 * sends to the hosts it concerns.
 *
 * A change runs as: op_lock, copy the state out (lock), apply the rules
 * (resv.c) to the copy, make the copy durable where it persists
 * (resv_store.c), publish it (lock, then resv_type with release), unlock
 * op_lock, send the notices, complete. So the host's command completes
 * after its change is durable, and no I/O check ever waits on a write-out:
 * it reads the published state under lock, held for copies only.
 *
 * Changes that persist (PTPL on, or the provider keeps the state) run on a
 * thread of their own and complete back on the queue's thread; changes in
 * memory run inline, unless a write-out holds op_lock (then the thread too,
 * rather than stall the poll group).
 *
 * Preempt and Abort: the preempted hosts' commands parsed after the change
 * is published fail with Reservation Conflict at once. Commands of theirs
 * already past the check when it was published (at most a queue depth per
 * queue, already at the storage) complete normally: the target cannot
 * recall an io from the kernel or a provider. The Linux target waits for
 * them before completing the Acquire; rblk completes it at once.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "protocol/le.h"
#include "protocol/nvme_log.h"
#include "target/core.h"

#define CONFLICT (NVME_SC_RESERVATION_CONFLICT | NVME_SC_DNR)
/*
 * The state the provider keeps is out of reach (stale): Namespace Not
 * Ready, DNR clear, for reservation commands and for the I/O it would
 * judge. The specification's words for it: not ready for a reason other
 * than ANA, and a retry later may succeed (it will, once a reload does).
 * Internal Error would say the controller failed the command itself, and
 * Reservation Conflict would tell a holder it lost a reservation it may
 * still hold (Linux ends that I/O at once with EBADE; cluster managers
 * take it as being fenced). The Linux host retries Namespace Not Ready a
 * few times on the same path, then fails the I/O with EIO; nvme-cli and
 * the block layer's persistent-reservation calls report it as an error.
 */
#define NOT_READY NVME_SC_NS_NOT_READY

/* ------------------------------------------------------------------------ */
/* Life.                                                                     */

bool rblk_tgt_resv_can_ptpl(const struct rblk_tgt_ns *ns)
{
	return ns->resv && ns->resv->ptpl_capable;
}

static void publish_locked(struct rblk_tgt_resv *r, const struct rblk_resv_state *st)
{
	r->st = *st;
	r->stale = false;
	/* Release: a reader that sees the type sees the state behind it (under lock). */
	atomic_store_explicit(&r->ns->resv_type, st->rtype, memory_order_release);
}

/*
 * The stored state is out of reach: keep the last one known for Report's
 * sake but trust it no more. I/O it would judge goes to the slow check
 * (which refuses it) as long as that state had registrants or a holder;
 * one that had neither judged nothing, and the I/O path stays as it was.
 */
static void mark_stale_locked(struct rblk_tgt_resv *r)
{
	r->stale = true;
	atomic_store_explicit(&r->ns->resv_type,
			      r->st.nr || r->st.rtype ? RBLK_RESV_TYPE_STALE : 0,
			      memory_order_release);
}

/* Load the stored state and publish it, or mark it stale. op_lock held. */
static int reload_locked(struct rblk_tgt_resv *r)
{
	struct rblk_resv_state *st = malloc(sizeof(*st));
	bool was_stale;
	int ret = -ENOMEM;

	if (st)
		ret = rblk_resv_store_load(r, st);
	if (ret == -ENOENT) {
		memset(st, 0, sizeof(*st));
		ret = 0;
	}
	pthread_mutex_lock(&r->lock);
	was_stale = r->stale;
	if (!ret)
		publish_locked(r, st);
	else
		mark_stale_locked(r);
	pthread_mutex_unlock(&r->lock);
	free(st);
	if (ret && !was_stale)
		RBLK_ERR("subsystem %s: namespace %u: cannot load the reservation state (%s): "
			 "reservation commands and the I/O it judges fail until it loads",
			 r->ns->ss->nqn, r->ns->nsid, strerror(-ret));
	else if (!ret && was_stale)
		RBLK_NOTICE("subsystem %s: namespace %u: reservation state loaded again",
			    r->ns->ss->nqn, r->ns->nsid);
	return ret;
}

/* How often a stale state is loaded again, and the steps a close waits in. */
#define RELOAD_RETRY_MS 1000u
#define RELOAD_STEP_MS 10u

/*
 * Loads the state while another gateway announced a change since the last
 * load, or while it is stale (every RELOAD_RETRY_MS, so a gateway that
 * lost the cluster serves again by itself once it is back). op_lock: after
 * any change of ours. Ends when closing.
 */
static void *reload_thread(void *arg)
{
	struct rblk_tgt_resv *r = arg;
	bool closing;

	for (;;) {
		pthread_mutex_lock(&r->lock);
		if (r->closing || (!r->reload_again && !r->stale)) {
			r->reload_running = false;
			pthread_mutex_unlock(&r->lock);
			return NULL;
		}
		r->reload_again = false;
		pthread_mutex_unlock(&r->lock);
		pthread_mutex_lock(&r->op_lock);
		if (!reload_locked(r)) {
			pthread_mutex_unlock(&r->op_lock);
			continue;
		}
		pthread_mutex_unlock(&r->op_lock);
		for (unsigned ms = 0; ms < RELOAD_RETRY_MS; ms += RELOAD_STEP_MS) {
			pthread_mutex_lock(&r->lock);
			closing = r->closing || r->reload_again;
			pthread_mutex_unlock(&r->lock);
			if (closing)
				break;
			usleep(RELOAD_STEP_MS * 1000);
		}
	}
}

/* The provider's watch (any thread), or a change that left the state stale. */
static void resv_changed(void *arg)
{
	struct rblk_tgt_resv *r = arg;
	pthread_attr_t attr;
	pthread_t th;
	int ret;

	pthread_mutex_lock(&r->lock);
	if (r->closing || r->reload_running) {
		r->reload_again = true;
		pthread_mutex_unlock(&r->lock);
		return;
	}
	r->reload_again = true;
	r->reload_running = true;
	pthread_mutex_unlock(&r->lock);
	ret = pthread_attr_init(&attr);
	if (!ret) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		ret = pthread_create(&th, &attr, reload_thread, r);
		pthread_attr_destroy(&attr);
	}
	if (!ret)
		return;
	RBLK_ERR("namespace %u: no thread to load a reservation changed elsewhere: %s",
		 r->ns->nsid, strerror(ret));
	/* The change is missed: fail closed; the next change command loads it. */
	pthread_mutex_lock(&r->lock);
	r->reload_running = false;
	mark_stale_locked(r);
	pthread_mutex_unlock(&r->lock);
}

/*
 * A stale state gets one more try before a command is judged on it.
 * op_lock held. 0, or -errno: the command fails with Namespace Not Ready.
 */
static int refresh_locked(struct rblk_tgt_resv *r)
{
	bool stale;

	pthread_mutex_lock(&r->lock);
	stale = r->stale;
	pthread_mutex_unlock(&r->lock);
	return stale ? reload_locked(r) : 0;
}

int rblk_tgt_resv_create(struct rblk_tgt_ns *ns)
{
	struct rblk_target *tgt = ns->ss->tgt;
	struct rblk_tgt_resv *r = calloc(1, sizeof(*r));
	struct rblk_resv_state st;
	int ret;

	if (!r)
		return -ENOMEM;
	r->ns = ns;
	pthread_mutex_init(&r->op_lock, NULL);
	pthread_mutex_init(&r->lock, NULL);
	r->provider_store = ns->prov.ops->size >= offsetof(struct rblk_provider_ops, resv_watch) +
							  sizeof(ns->prov.ops->resv_watch) &&
			    ns->prov.ops->resv_load && ns->prov.ops->resv_store;
	/* Built-in files and block devices persist in the state directory; RAM does not. */
	if (!r->provider_store && ns->by_path && strncmp(ns->path, "mem:", 4) &&
	    strncmp(ns->path, "null:", 5) && tgt->opts.state_dir && *tgt->opts.state_dir) {
		r->file = rblk_resv_file_path(tgt->opts.state_dir, ns->nguid);
		if (!r->file) {
			ret = -ENOMEM;
			goto out_free;
		}
	}
	r->ptpl_capable = r->provider_store || r->file;
	ns->resv = r;
	memset(&st, 0, sizeof(st));
	ret = r->ptpl_capable ? rblk_resv_store_load(r, &st) : -ENOENT;
	if (ret && ret != -ENOENT) {
		/* Guessing an empty state would let fenced hosts write again. */
		RBLK_ERR("subsystem %s: namespace %u: cannot read its reservation state (%s): %s",
			 ns->ss->nqn, ns->nsid, r->file ? r->file : "provider", strerror(-ret));
		ns->resv = NULL;
		goto out_free;
	}
	if (!ret)
		RBLK_NOTICE("subsystem %s: namespace %u: reservation restored: %u registrants, type %u",
			    ns->ss->nqn, ns->nsid, st.nr, st.rtype);
	pthread_mutex_lock(&r->lock);
	publish_locked(r, &st);
	pthread_mutex_unlock(&r->lock);
	if (r->provider_store && ns->prov.ops->resv_watch) {
		ret = ns->prov.ops->resv_watch(ns->prov.ctx, resv_changed, r);
		if (ret && ret != -EOPNOTSUPP)
			RBLK_WARN("subsystem %s: namespace %u: reservation changes made elsewhere "
				  "are seen late (no watch: %s)", ns->ss->nqn, ns->nsid,
				  strerror(-ret));
	}
	return 0;

out_free:
	free(r->file);
	pthread_mutex_destroy(&r->lock);
	pthread_mutex_destroy(&r->op_lock);
	free(r);
	return ret;
}

void rblk_tgt_resv_quiesce(struct rblk_tgt_ns *ns)
{
	struct rblk_tgt_resv *r = ns->resv;
	bool running;

	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->closing = true;
	pthread_mutex_unlock(&r->lock);
	do {
		pthread_mutex_lock(&r->lock);
		running = r->reload_running;
		pthread_mutex_unlock(&r->lock);
		if (running)
			usleep(RELOAD_STEP_MS * 1000);
	} while (running);
}

void rblk_tgt_resv_destroy(struct rblk_tgt_ns *ns)
{
	struct rblk_tgt_resv *r = ns->resv;

	if (!r)
		return;
	rblk_tgt_resv_quiesce(ns);
	ns->resv = NULL;
	free(r->file);
	pthread_mutex_destroy(&r->lock);
	pthread_mutex_destroy(&r->op_lock);
	free(r);
}

/* ------------------------------------------------------------------------ */
/* The I/O check.                                                            */

uint16_t rblk_resv_check_io_slow(struct rblk_req *req)
{
	struct rblk_tgt_resv *r = req->ns->resv;
	enum rblk_resv_access acc = rblk_resv_access_of(req->cmd->opc);
	bool ok, stale;

	if (acc == RBLK_RESV_ACC_NONE)
		return 0;
	pthread_mutex_lock(&r->lock);
	stale = r->stale;
	ok = !stale && rblk_resv_allows(&r->st, req->sq->ctrl->hostid, acc);
	pthread_mutex_unlock(&r->lock);
	if (ok)
		return 0;
	req->error_loc = offsetof(struct nvme_sqe, opc);
	return stale ? NOT_READY : CONFLICT;
}

/* ------------------------------------------------------------------------ */
/* Notices.                                                                  */

static unsigned mask_bit(uint8_t type)
{
	switch (type) {
	case NVME_RESV_LOG_REG_PREEMPTED:
		return NVME_RESV_MASK_REGPRE;
	case NVME_RESV_LOG_RESV_RELEASED:
		return NVME_RESV_MASK_RESREL;
	default:
		return NVME_RESV_MASK_RESPRE;
	}
}

/* Every controller of each notified host gets the notice (the registrant is the host). */
static void send_notices(struct rblk_tgt_ns *ns, const struct rblk_resv_events *ev)
{
	struct rblk_subsystem *ss = ns->ss;
	unsigned mask = atomic_load(&ns->resv->mask);

	if (!ev->nr)
		return;
	pthread_mutex_lock(&ss->lock);
	for (unsigned i = 0; i < ev->nr; i++) {
		if (mask & mask_bit(ev->n[i].type))
			continue;
		for (struct rblk_tgt_ctrl *c = ss->ctrls; c; c = c->next)
			if (!memcmp(c->hostid, ev->n[i].hostid, 16))
				rblk_resv_log_add(c, ev->n[i].type, ns->nsid);
	}
	pthread_mutex_unlock(&ss->lock);
}

/* ------------------------------------------------------------------------ */
/* Changes.                                                                  */

/* Does a change from old to st have to be written out? */
static bool must_save(const struct rblk_tgt_resv *r, const struct rblk_resv_state *old,
		      const struct rblk_resv_state *st)
{
	if (!r->ptpl_capable)
		return false;
	if (r->provider_store)
		return true;
	/* PTPL off and staying off: memory only. Turning it off removes the file. */
	return old->ptpl || st->ptpl;
}

static uint16_t apply_rules(struct rblk_req *req, struct rblk_resv_state *st,
			    struct rblk_resv_events *ev)
{
	const uint8_t *hostid = req->sq->ctrl->hostid;
	uint32_t cdw10 = rblk_le32(req->cmd->cdw10);
	struct nvme_resv_keys k = { .crkey = req->resv_crkey, .nkey = req->resv_nkey };

	switch (req->cmd->opc) {
	case NVME_IO_RESV_REGISTER:
		return rblk_resv_register(st, hostid, cdw10, &k, ev);
	case NVME_IO_RESV_ACQUIRE:
		return rblk_resv_acquire(st, hostid, cdw10, &k, ev);
	default:
		return rblk_resv_release(st, hostid, cdw10, k.crkey, ev);
	}
}

/*
 * The change of req, op_lock held: 0 or a status. A provider's store that
 * finds the state changed by another gateway since it was loaded (-EAGAIN)
 * makes the command go again on the state as it now is.
 */
static uint16_t change_locked(struct rblk_req *req)
{
	struct rblk_tgt_ns *ns = req->ns;
	struct rblk_tgt_resv *r = ns->resv;
	struct rblk_resv_state *old = malloc(sizeof(*old)), *st = malloc(sizeof(*st));
	struct rblk_resv_events *ev = malloc(sizeof(*ev));
	uint16_t status = NVME_SC_INTERNAL;
	int ret = 0;

	if (!old || !st || !ev)
		goto out;
	if (refresh_locked(r)) {
		status = NOT_READY;
		goto out;
	}
	for (unsigned tries = 0; tries < 4; tries++) {
		pthread_mutex_lock(&r->lock);
		*old = r->st;
		pthread_mutex_unlock(&r->lock);
		*st = *old;
		ev->nr = 0;
		status = apply_rules(req, st, ev);
		if (status || !memcmp(old, st, sizeof(*st)))
			goto out;
		if (!must_save(r, old, st))
			break;
		ret = rblk_resv_store_save(r, st);
		if (ret != -EAGAIN)
			break;
		/* Another gateway changed it: take its state and judge again. */
		if (reload_locked(r)) {
			resv_changed(r); /* retried until it loads */
			status = NOT_READY;
			goto out;
		}
	}
	if (ret) {
		RBLK_ERR("subsystem %s: namespace %u: reservation change not kept (%s): %s",
			 ns->ss->nqn, ns->nsid, r->file ? r->file : "provider", strerror(-ret));
		status = NVME_SC_INTERNAL;
		/*
		 * A provider's write that failed may still have landed (a
		 * timeout): what it stores is no longer known. Load it again;
		 * until then, fail closed.
		 */
		if (r->provider_store && ret != -EAGAIN) {
			pthread_mutex_lock(&r->lock);
			mark_stale_locked(r);
			pthread_mutex_unlock(&r->lock);
			resv_changed(r);
		}
		goto out;
	}
	pthread_mutex_lock(&r->lock);
	publish_locked(r, st);
	pthread_mutex_unlock(&r->lock);
	send_notices(ns, ev);
out:
	free(ev);
	free(st);
	free(old);
	return status;
}

static void change_done(void *arg)
{
	struct rblk_req *req = arg;

	rblk_req_complete(req, (uint16_t)req->pio_res);
}

static void *change_thread(void *arg)
{
	struct rblk_req *req = arg;
	struct rblk_tgt_resv *r = req->ns->resv;

	pthread_mutex_lock(&r->op_lock);
	req->pio_res = change_locked(req);
	pthread_mutex_unlock(&r->op_lock);
	/* Back to the queue's thread; it is waiting for this request, so it is there. */
	while (req->sq->ops->run_on(req->sq, change_done, req))
		usleep(1000);
	return NULL;
}

/* Run fn(req) on a thread of its own (it completes req); false when none could start. */
static bool spawn(void *(*fn)(void *), struct rblk_req *req)
{
	pthread_attr_t attr;
	pthread_t th;
	int ret = pthread_attr_init(&attr);

	if (ret)
		return false;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = pthread_create(&th, &attr, fn, req);
	pthread_attr_destroy(&attr);
	if (ret)
		RBLK_WARN("reservation: no thread for a write-out: %s", strerror(ret));
	return !ret;
}

static void execute_change(struct rblk_req *req)
{
	struct rblk_tgt_resv *r = req->ns->resv;
	struct nvme_resv_keys k = { 0 };
	uint32_t cdw10 = rblk_le32(req->cmd->cdw10);
	bool persist, locked;
	uint16_t status;

	status = rblk_req_copy_from(req, 0, &k, req->data_len);
	if (status) {
		rblk_req_complete(req, status);
		return;
	}
	req->resv_crkey = rblk_le64(k.crkey);
	req->resv_nkey = rblk_le64(k.nkey);
	/* CPTPL on a namespace that cannot persist: the specification's Invalid Field. */
	if (req->cmd->opc == NVME_IO_RESV_REGISTER && !r->ptpl_capable &&
	    NVME_RESV_CPTPL(cdw10) == NVME_RESV_CPTPL_SET) {
		req->error_loc = offsetof(struct nvme_sqe, cdw10);
		rblk_req_complete(req, NVME_SC_INVALID_FIELD | NVME_SC_DNR);
		return;
	}
	pthread_mutex_lock(&r->lock);
	persist = r->ptpl_capable && (r->provider_store || r->st.ptpl ||
				      (req->cmd->opc == NVME_IO_RESV_REGISTER &&
				       NVME_RESV_CPTPL(cdw10) != NVME_RESV_CPTPL_KEEP));
	pthread_mutex_unlock(&r->lock);
	locked = !persist && !pthread_mutex_trylock(&r->op_lock);
	if (!locked && spawn(change_thread, req))
		return;
	if (!locked)
		pthread_mutex_lock(&r->op_lock); /* no thread: stall this group once, stay durable */
	status = change_locked(req);
	pthread_mutex_unlock(&r->op_lock);
	rblk_req_complete(req, status);
}

/* ------------------------------------------------------------------------ */
/* Report.                                                                   */

static void execute_report(struct rblk_req *req)
{
	struct rblk_tgt_resv *r = req->ns->resv;
	bool eds = rblk_le32(req->cmd->cdw11) & NVME_RESV_REPORT_EDS;
	struct rblk_resv_state *st = malloc(sizeof(*st));
	void *buf = malloc(req->data_len);
	uint16_t status = NVME_SC_INTERNAL;
	bool stale;

	if (st && buf) {
		pthread_mutex_lock(&r->lock);
		*st = r->st;
		stale = r->stale;
		pthread_mutex_unlock(&r->lock);
		/* No waiting for a load here, on the poll group: the reload retries. */
		status = stale ? NOT_READY : rblk_resv_report(st, eds, buf, req->data_len);
		if (status && !stale)
			req->error_loc = offsetof(struct nvme_sqe, cdw11);
		else if (!status)
			status = rblk_req_copy_to(req, 0, buf, req->data_len);
	}
	free(buf);
	free(st);
	rblk_req_complete(req, status);
}

uint16_t rblk_io_parse_resv(struct rblk_req *req)
{
	switch (req->cmd->opc) {
	case NVME_IO_RESV_REGISTER:
	case NVME_IO_RESV_ACQUIRE:
		req->data_len = sizeof(struct nvme_resv_keys);
		req->dir = RBLK_XFER_H2C;
		req->execute = execute_change;
		return 0;
	case NVME_IO_RESV_RELEASE:
		req->data_len = sizeof(uint64_t);
		req->dir = RBLK_XFER_H2C;
		req->execute = execute_change;
		return 0;
	default: {
		uint64_t len = ((uint64_t)rblk_le32(req->cmd->cdw10) + 1) * 4;

		if (len > req->sq->tgt->opts.max_io_size) {
			req->error_loc = offsetof(struct nvme_sqe, cdw10);
			return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		}
		req->data_len = (uint32_t)len;
		req->dir = RBLK_XFER_C2H;
		req->execute = execute_report;
		return 0;
	}
	}
}

/* ------------------------------------------------------------------------ */
/* Features 82h and 83h: namespace specific.                                 */

static struct rblk_tgt_ns *feature_ns(struct rblk_req *req)
{
	struct rblk_tgt_ns *ns = rblk_subsys_get_ns(req->sq->ctrl->ss, rblk_le32(req->cmd->nsid));

	if (!ns)
		req->error_loc = offsetof(struct nvme_sqe, nsid);
	return ns;
}

void rblk_resv_get_feature(struct rblk_req *req)
{
	const struct nvme_features_cmd *c = (const struct nvme_features_cmd *)req->cmd;
	bool dflt = (c->sel & NVME_FEAT_SEL_MASK) == NVME_FEAT_SEL_DEFAULT;
	struct rblk_tgt_ns *ns = feature_ns(req);
	uint32_t dw0;

	if (!ns) {
		rblk_req_complete(req, NVME_SC_INVALID_NS | NVME_SC_DNR);
		return;
	}
	if (c->fid == NVME_FEAT_RESV_MASK) {
		dw0 = dflt ? 0 : atomic_load(&ns->resv->mask);
	} else {
		pthread_mutex_lock(&ns->resv->lock);
		dw0 = !dflt && ns->resv->st.ptpl ? NVME_RESV_PTPL : 0;
		pthread_mutex_unlock(&ns->resv->lock);
	}
	rblk_tgt_ns_put(ns);
	rblk_req_set_dw0(req, dw0);
	rblk_req_complete(req, 0);
}

/* Set Features 83h: the PTPL change, written out, on a thread (req->ns holds the reference). */
static void *ptpl_thread(void *arg)
{
	struct rblk_req *req = arg;
	struct rblk_tgt_resv *r = req->ns->resv;
	bool ptpl = rblk_le32(req->cmd->cdw11) & NVME_RESV_PTPL;
	struct rblk_resv_state *st = malloc(sizeof(*st));
	int ret = -ENOMEM;

	bool unreachable = false;

	pthread_mutex_lock(&r->op_lock);
	if (st) {
		ret = refresh_locked(r);
		unreachable = ret != 0;
	}
	if (st && !ret) {
		pthread_mutex_lock(&r->lock);
		*st = r->st;
		pthread_mutex_unlock(&r->lock);
		if (st->ptpl != ptpl) {
			st->ptpl = ptpl;
			ret = rblk_resv_store_save(r, st);
		}
		if (!ret) {
			pthread_mutex_lock(&r->lock);
			publish_locked(r, st);
			pthread_mutex_unlock(&r->lock);
		}
	}
	pthread_mutex_unlock(&r->op_lock);
	free(st);
	if (ret)
		RBLK_ERR("namespace %u: PTPL not changed: %s", req->ns->nsid, strerror(-ret));
	req->pio_res = unreachable ? NOT_READY : ret ? NVME_SC_INTERNAL : 0;
	rblk_tgt_ns_put(req->ns);
	req->ns = NULL;
	while (req->sq->ops->run_on(req->sq, change_done, req))
		usleep(1000);
	return NULL;
}

void rblk_resv_set_feature(struct rblk_req *req)
{
	const struct nvme_features_cmd *c = (const struct nvme_features_cmd *)req->cmd;
	uint32_t cdw11 = rblk_le32(c->cdw11);
	uint32_t nsid = rblk_le32(c->nsid);
	struct rblk_tgt_ns *ns;

	if (c->fid == NVME_FEAT_RESV_MASK && nsid == 0xFFFFFFFF) {
		/* Every namespace: the broadcast NSID is allowed for this one. */
		struct rblk_subsystem *ss = req->sq->ctrl->ss;

		pthread_rwlock_rdlock(&ss->ns_lock);
		for (uint32_t i = 0; i < ss->max_nsid; i++)
			if (ss->ns[i])
				atomic_store(&ss->ns[i]->resv->mask, cdw11 & NVME_RESV_MASK_ALL);
		pthread_rwlock_unlock(&ss->ns_lock);
		rblk_req_complete(req, 0);
		return;
	}
	ns = feature_ns(req);
	if (!ns) {
		rblk_req_complete(req, NVME_SC_INVALID_NS | NVME_SC_DNR);
		return;
	}
	if (c->fid == NVME_FEAT_RESV_MASK) {
		atomic_store(&ns->resv->mask, cdw11 & NVME_RESV_MASK_ALL);
		rblk_tgt_ns_put(ns);
		rblk_req_complete(req, 0);
		return;
	}
	if (!ns->resv->ptpl_capable) {
		/* Nothing can persist: PTPL stays off, and turning it off is done. */
		rblk_tgt_ns_put(ns);
		if (cdw11 & NVME_RESV_PTPL)
			req->error_loc = offsetof(struct nvme_features_cmd, cdw11);
		rblk_req_complete(req, cdw11 & NVME_RESV_PTPL ? NVME_SC_INVALID_FIELD | NVME_SC_DNR : 0);
		return;
	}
	req->ns = ns;
	if (spawn(ptpl_thread, req))
		return;
	req->ns = NULL;
	rblk_tgt_ns_put(ns);
	rblk_req_complete(req, NVME_SC_INTERNAL);
}

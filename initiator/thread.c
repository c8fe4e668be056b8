/* SPDX-License-Identifier: MIT */
/*
 * The controller thread: one per connected controller, so keep-alive,
 * asynchronous events and reconnection work whether or not the user polls.
 * It sleeps in poll() on its wake eventfd, the queues' CM channels and,
 * while an Asynchronous Event Request is out, the admin CQ's channel
 * (aen.c), with a timeout set by the next keep-alive and reconnect
 * deadlines, and feeds what it sees into the reconnect state machine
 * (reconnect.c), performing the action each step returns. It leaves a LIVE
 * I/O queue's CQ to the queue's owner (users see their own errors and wake
 * it: rblk_hq_fail) except when a command looks timed out: then it reaps the
 * CQ once before deciding, since the answer may be there for an owner that
 * sleeps.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "initiator/ctrl.h"

static enum rblk_rc_action step(struct rblk_ctrl *c, enum rblk_rc_event ev, uint64_t now)
{
	enum rblk_rc_action act;
	enum rblk_ctrl_state before;

	pthread_mutex_lock(&c->lock);
	before = c->rc.state;
	act = rblk_rc_step(&c->rc, ev, now);
	rblk_ctrl_set_state(c, c->rc.state);
	pthread_mutex_unlock(&c->lock);
	if (before != c->rc.state || act != RBLK_RC_ACT_NONE)
		RBLK_DEBUG("controller %u: %s: %s -> %s, %s", c->cntlid, rblk_rc_event_str(ev),
			   rblk_ctrl_state_str(before), rblk_ctrl_state_str(c->rc.state),
			   rblk_rc_action_str(act));
	return act;
}

static void perform(struct rblk_ctrl *c, enum rblk_rc_action act, uint64_t now)
{
	uint16_t status = 0;
	int ret;

	while (act != RBLK_RC_ACT_NONE) {
		switch (act) {
		case RBLK_RC_ACT_TEARDOWN:
			if (c->rc.give_up)
				RBLK_WARN("%s at %s:%s: connection lost (ctrl_loss_tmo %d s: not reconnecting)",
					  c->subnqn, c->traddr, c->trsvcid, c->opts.ctrl_loss_tmo);
			else
				RBLK_WARN("%s at %s:%s: connection lost; reconnecting every %d s",
					  c->subnqn, c->traddr, c->trsvcid, c->opts.reconnect_delay);
			/*
			 * fast_io_fail: the caller (a multipath head) sends the
			 * I/O elsewhere, so it gets it back now, not after the
			 * reconnect or ctrl_loss_tmo.
			 */
			rblk_ctrl_teardown_queues(c, !c->opts.fast_io_fail);
			if (c->opts.fast_io_fail)
				rblk_ctrl_fail_io(c);
			act = RBLK_RC_ACT_NONE;
			break;
		case RBLK_RC_ACT_CONNECT:
			if (c->rc.max_reconnects < 0)
				RBLK_NOTICE("%s at %s:%s: reconnect attempt %lld", c->subnqn, c->traddr,
					    c->trsvcid, (long long)c->rc.nr_reconnects + 1);
			else
				RBLK_NOTICE("%s at %s:%s: reconnect attempt %lld of %lld", c->subnqn,
					    c->traddr, c->trsvcid, (long long)c->rc.nr_reconnects + 1,
					    (long long)c->rc.max_reconnects);
			ret = rblk_ctrl_establish(c, true, &status);
			if (ret) {
				RBLK_NOTICE("reconnect to %s failed: %s", c->traddr, strerror(-ret));
				rblk_ctrl_teardown_queues(c, !c->opts.fast_io_fail);
				if (ret == -ECANCELED)
					return;
			}
			act = step(c, ret ? RBLK_RC_EV_CONNECT_FAILED : RBLK_RC_EV_CONNECTED,
				   rblk_clock_ms());
			break;
		case RBLK_RC_ACT_RESUME:
			rblk_ctrl_resume_io(c);
			RBLK_NOTICE("%s at %s:%s: reconnected (controller %u) after %llu ms", c->subnqn,
				    c->traddr, c->trsvcid, c->cntlid,
				    (unsigned long long)(rblk_clock_ms() - c->rc.lost_at_ms));
			act = RBLK_RC_ACT_NONE;
			break;
		case RBLK_RC_ACT_FAIL_IO:
			RBLK_ERR("%s at %s:%s: controller lost after %lld reconnect attempts (ctrl_loss_tmo %d s): I/O fails",
				 c->subnqn, c->traddr, c->trsvcid, (long long)c->rc.nr_reconnects,
				 c->opts.ctrl_loss_tmo);
			rblk_ctrl_fail_io(c);
			act = RBLK_RC_ACT_NONE;
			break;
		case RBLK_RC_ACT_NONE:
			break;
		}
	}
	(void)now;
}

/* The live connection's health: CM events, failed queues, I/O timeouts, keep-alive. */
static bool check_live(struct rblk_ctrl *c, uint64_t now)
{
	bool lost = atomic_exchange(&c->conn_lost, false);

	if (rblk_hq_cm_poll(&c->admin))
		lost = true;
	for (unsigned i = 0; c->ioq && i < c->nr_io_queues; i++) {
		struct rblk_qpair *qp = c->ioq[i];
		int ret = 0;

		if (rblk_hq_cm_poll(&qp->hq))
			lost = true;
		else if (c->opts.io_timeout_ms != UINT32_MAX)
			ret = rblk_hq_check_timeout(&qp->hq, now, c->opts.io_timeout_ms);
		if (ret == -ETIMEDOUT)
			lost = true;
		else if (ret > 0)
			rblk_qpair_notify(qp);
	}
	pthread_mutex_lock(&c->admin.lock);
	if (rblk_ka_tick_locked(c, now) == -ETIMEDOUT) {
		RBLK_ERR("%s at %s:%s: Keep Alive unanswered for %u ms", c->subnqn, c->traddr,
			 c->trsvcid, c->kato_ms);
		lost = true;
	}
	if (c->admin.state == RBLK_HQ_FAILED)
		lost = true;
	pthread_mutex_unlock(&c->admin.lock);
	return lost;
}

static void *ctrl_thread(void *arg)
{
	struct rblk_ctrl *c = arg;
	struct pollfd pfd[4 + RBLK_IO_QUEUES_MAX];

	while (!atomic_load(&c->stopping)) {
		uint64_t now = rblk_clock_ms(), deadline, d;
		bool live = atomic_load(&c->state) == RBLK_CTRL_LIVE;
		unsigned n = 0;
		uint64_t drain;
		int timeout;

		pfd[n++] = (struct pollfd){ .fd = c->wake_fd, .events = POLLIN };
		/* Tells of the device's removal in every state, queues up or not. */
		if (c->anchor_ch)
			pfd[n++] = (struct pollfd){ .fd = rblk_cm_channel_fd(c->anchor_ch),
						    .events = POLLIN };
		if (live) {
			pfd[n++] = (struct pollfd){ .fd = rblk_cm_channel_fd(c->admin.ch),
						    .events = POLLIN };
			for (unsigned i = 0; c->ioq && i < c->nr_io_queues; i++)
				pfd[n++] = (struct pollfd){ .fd = rblk_cm_channel_fd(c->ioq[i]->hq.ch),
							    .events = POLLIN };
		}
		pthread_mutex_lock(&c->admin.lock);
		deadline = live ? rblk_ka_deadline(c) : UINT64_MAX;
		/* An outstanding Asynchronous Event Request: its answer wakes us. */
		if (live && rblk_aen_watch_locked(c))
			pfd[n++] = (struct pollfd){ .fd = rblk_cq_fd(c->admin.cq), .events = POLLIN };
		pthread_mutex_unlock(&c->admin.lock);
		pthread_mutex_lock(&c->lock);
		d = rblk_rc_deadline(&c->rc);
		pthread_mutex_unlock(&c->lock);
		if (d < deadline)
			deadline = d;
		timeout = deadline == UINT64_MAX ? 1000
			  : deadline <= now	 ? 0
			  : deadline - now > 1000 ? 1000
						  : (int)(deadline - now);
		if (poll(pfd, n, timeout) < 0 && errno != EINTR)
			RBLK_DEBUG("controller thread: poll: %s", strerror(errno));
		if (read(c->wake_fd, &drain, sizeof(drain)) < 0 && errno != EAGAIN)
			RBLK_DEBUG("controller thread: eventfd: %s", strerror(errno));
		if (atomic_load(&c->stopping))
			break;
		now = rblk_clock_ms();
		if (rblk_ctrl_anchor_removed(c))
			c->dev_removed = true;
		if (atomic_load(&c->state) == RBLK_CTRL_LIVE) {
			/* A device being removed takes every connection on it. */
			if (check_live(c, now) || c->dev_removed)
				perform(c, step(c, RBLK_RC_EV_CONN_LOST, now), now);
			else
				rblk_aen_service(c);
		}
		/*
		 * Queues down: let go of a removed device now, not at the next
		 * attempt, for it cannot finish going while we hold it.
		 */
		if (c->dev_removed && atomic_load(&c->state) != RBLK_CTRL_LIVE) {
			rblk_ctrl_release_device(c);
			c->dev_removed = false;
		}
		perform(c, step(c, RBLK_RC_EV_TICK, now), now);
	}
	return NULL;
}

int rblk_ctrl_thread_start(struct rblk_ctrl *c)
{
	sigset_t all, old;
	int ret;

	/* A library thread must never take the application's signals. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&c->thread, NULL, ctrl_thread, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		RBLK_ERR("starting the controller thread: %s", strerror(ret));
		return -ret;
	}
	c->thread_running = true;
	return 0;
}

void rblk_ctrl_thread_stop(struct rblk_ctrl *c)
{
	if (!c->thread_running)
		return;
	atomic_store(&c->stopping, true);
	rblk_ctrl_wake(c);
	pthread_join(c->thread, NULL);
	c->thread_running = false;
	atomic_store(&c->stopping, false);
}

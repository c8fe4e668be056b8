/* SPDX-License-Identifier: MIT */
/*
 * I/O queue pairs as users see them: the controller connects its I/O queues
 * up front; rblk_qpair_alloc() hands one to the caller (one thread at a
 * time), and the synchronous calls borrow one for the length of each call.
 * A qpair's fd is an epoll set over its CQ's completion channel and an
 * eventfd the controller thread writes after recovery, so an application
 * sleeping on it also wakes when a reconnect (or the final loss) changes
 * what rblk_poll() has to report.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <poll.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "initiator/ctrl.h"
#include "initiator/mpath.h"

/* The CQ's completion channel joins the qpair's epoll set (again, after a new device). */
static int watch_cq(struct rblk_qpair *qp)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (qp->cq_watched || !qp->hq.cq)
		return 0;
	if (epoll_ctl(qp->epfd, EPOLL_CTL_ADD, rblk_cq_fd(qp->hq.cq), &ev))
		return -errno;
	qp->cq_watched = true;
	return 0;
}

int rblk_qpair_create(struct rblk_ctrl *c, unsigned index, unsigned depth, struct rblk_qpair **out)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct rblk_qpair *qp;
	int ret;

	*out = NULL;
	qp = rblk_calloc_lines(1, sizeof(*qp));
	if (!qp)
		return -ENOMEM;
	qp->ctrl = c;
	qp->index = index;
	qp->epfd = -1;
	qp->wake.fd = -1;
	ret = rblk_hq_init(&qp->hq, c, (uint16_t)(index + 1), depth);
	if (ret)
		goto out_destroy;
	qp->hq.bounce_unit = c->max_xfer < RBLK_BOUNCE_UNIT_MAX ? c->max_xfer : RBLK_BOUNCE_UNIT_MAX;
	ret = rblk_hq_resources(&qp->hq);
	if (ret)
		goto out_destroy;
	ret = rblk_wakefd_open(&qp->wake);
	if (ret)
		goto out_destroy;
	qp->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (qp->epfd < 0) {
		ret = -errno;
		goto out_destroy;
	}
	if (epoll_ctl(qp->epfd, EPOLL_CTL_ADD, qp->wake.fd, &ev)) {
		ret = -errno;
		goto out_destroy;
	}
	ret = watch_cq(qp);
	if (ret)
		goto out_destroy;
	*out = qp;
	return 0;

out_destroy:
	rblk_qpair_destroy(qp);
	return ret;
}

void rblk_qpair_destroy(struct rblk_qpair *qp)
{
	if (!qp)
		return;
	rblk_hq_fini(&qp->hq);
	if (qp->epfd >= 0)
		close(qp->epfd);
	rblk_wakefd_close(&qp->wake);
	free(qp);
}

void rblk_qpair_release_device(struct rblk_qpair *qp)
{
	if (qp->cq_watched) {
		epoll_ctl(qp->epfd, EPOLL_CTL_DEL, rblk_cq_fd(qp->hq.cq), NULL);
		qp->cq_watched = false;
	}
	rblk_hq_release_device(&qp->hq);
}

void rblk_qpair_rekey(struct rblk_qpair *qp)
{
	int ret = watch_cq(qp);

	/* Without it a sleeping owner still wakes on the controller's kicks, later. */
	if (ret)
		RBLK_WARN("qid %u: watching the new CQ: %s", qp->hq.qid, strerror(-ret));
	pthread_mutex_lock(&qp->hq.lock);
	rblk_hq_rekey(&qp->hq);
	rblk_io_rekey_pending(qp);
	pthread_mutex_unlock(&qp->hq.lock);
}

void rblk_qpair_notify(struct rblk_qpair *qp)
{
	int ret = rblk_wakefd_kick(&qp->wake);

	if (ret)
		RBLK_DEBUG("qid %u: eventfd: %s", qp->hq.qid, strerror(-ret));
}

static bool ctrl_usable(struct rblk_ctrl *c)
{
	int st = atomic_load(&c->state);

	return st == RBLK_CTRL_LIVE || st == RBLK_CTRL_RECONNECTING;
}

int rblk_qpair_alloc(struct rblk_ctrl *c, struct rblk_qpair **out)
{
	int ret = -EBUSY;

	if (!c || !out)
		return -EINVAL;
	*out = NULL;
	pthread_mutex_lock(&c->lock);
	if (!ctrl_usable(c)) {
		ret = -ENOTCONN;
	} else if (!c->nr_io_queues) {
		ret = -EOPNOTSUPP;	/* a discovery controller */
	} else {
		for (unsigned i = 0; i < c->nr_io_queues; i++) {
			if (!c->ioq[i]->owned) {
				c->ioq[i]->owned = true;
				*out = c->ioq[i];
				ret = 0;
				break;
			}
		}
	}
	pthread_mutex_unlock(&c->lock);
	return ret;
}

void rblk_qpair_free(struct rblk_qpair *qp)
{
	struct rblk_ctrl *c;
	uint64_t deadline;

	if (!qp)
		return;
	if (qp->mpath) {
		rblk_mpath_qp_destroy(qp->mpath);
		return;
	}
	c = qp->ctrl;
	/* The wait below sleeps after empty polls, and the next owner starts eager. */
	rblk_qpair_set_lazy_arm(qp, false);
	/* The target may still write into buffers of requests in flight: wait for them. */
	deadline = rblk_clock_ms() + RBLK_ADMIN_TIMEOUT_MS;
	while (qp->inflight && rblk_clock_ms() < deadline) {
		struct pollfd pfd = { .fd = qp->epfd, .events = POLLIN };

		if (rblk_poll(qp, 0) == 0)
			poll(&pfd, 1, 100);
	}
	if (qp->inflight)
		RBLK_WARN("qid %u: freed with %u requests still in flight", qp->hq.qid, qp->inflight);
	pthread_mutex_lock(&c->lock);
	qp->owned = false;
	pthread_mutex_unlock(&c->lock);
}

unsigned rblk_qpair_depth(struct rblk_qpair *qp)
{
	if (qp->mpath)
		return rblk_mpath_qp_depth(qp->mpath);
	return qp->hq.depth;
}

int rblk_qpair_fd(struct rblk_qpair *qp)
{
	if (qp->mpath)
		return rblk_mpath_qp_fd(qp->mpath);
	return qp->epfd;
}

unsigned rblk_qpair_inflight(struct rblk_qpair *qp)
{
	if (qp->mpath)
		return rblk_mpath_qp_inflight(qp->mpath);
	return qp->inflight;
}

struct rblk_qpair *rblk_sync_qpair_get(struct rblk_ctrl *c, int *err)
{
	struct rblk_qpair *qp = NULL;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		bool any_sync = false;

		if (!ctrl_usable(c)) {
			*err = -ENOTCONN;
			break;
		}
		if (c->sync_free) {
			qp = c->sync_free;
			c->sync_free = qp->sync_next;
			break;
		}
		for (unsigned i = 0; i < c->nr_io_queues && !qp; i++) {
			if (!c->ioq[i]->owned) {
				qp = c->ioq[i];
				qp->owned = true;
				qp->sync = true;
			}
			any_sync |= c->ioq[i]->sync;
		}
		if (qp)
			break;
		if (!any_sync) {
			/* Every queue belongs to an rblk_qpair_alloc() caller. */
			*err = c->nr_io_queues ? -EBUSY : -EOPNOTSUPP;
			break;
		}
		pthread_cond_wait(&c->sync_cond, &c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return qp;
}

void rblk_sync_qpair_put(struct rblk_ctrl *c, struct rblk_qpair *qp)
{
	pthread_mutex_lock(&c->lock);
	qp->sync_next = c->sync_free;
	c->sync_free = qp;
	pthread_cond_signal(&c->sync_cond);
	pthread_mutex_unlock(&c->lock);
}

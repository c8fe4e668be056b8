/* SPDX-License-Identifier: MIT */
/*
 * The multipath queue pair: what rblk_submit() / rblk_poll() do on a qpair
 * from rblk_mpath_qpair_alloc(). It holds one queue pair on each live path
 * (taken when the path is first seen live) and one preallocated request per
 * queue entry; a request carries its own struct rblk_io (the "inner" one)
 * that goes to a path, so the caller's rblk_io is never touched.
 *
 * A request's life:
 *   FREE      on the free list
 *   ON_PATH   the inner io is with path p's queue pair; waits for its callback
 *   WAITING   no usable path, a full path queue, or a path failure: on the
 *             waiting list, sent again at the next poll (or failed with
 *             -ENOTCONN after no_path_tmo without a path)
 *   DONE      a final result: on the done list, the caller's callback runs
 *             at the end of the poll, then FREE
 * Path failures (rblk_mpath_disposition) never reach the caller.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <poll.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/util.h"
#include "common/wakefd.h"
#include "initiator/ctrl.h"
#include "initiator/io.h"
#include "initiator/mpath.h"
#include "protocol/nvme_status.h"

/* After a transport error on a path still seen LIVE, leave it alone this long. */
#define SUSPECT_MS 1000
#define FREE_TIMEOUT_MS 30000

enum mp_req_state {
	MP_REQ_FREE,
	MP_REQ_ON_PATH,
	MP_REQ_WAITING,
	MP_REQ_DONE,
};

struct mp_req {
	struct rblk_io inner;		/* what a path's queue pair holds */
	struct rblk_mpath_qp *mq;
	struct rblk_io *user;
	rblk_io_cb cb;
	void *arg;
	enum mp_req_state state;
	int path;			/* ON_PATH: where */
	uint64_t waiting_since_ms;	/* WAITING: for the no-path timeout */
	uint16_t status;		/* DONE: the result */
	int err;
	struct mp_req *next;
};

struct rblk_mpath_qp {
	struct rblk_mpath *mp;
	struct rblk_qpair handle;	/* what the caller holds (mpath points back here) */
	struct rblk_qpair *pq[RBLK_MPATH_MAX_PATHS];
	uint64_t suspect_until_ms[RBLK_MPATH_MAX_PATHS];
	unsigned on_path[RBLK_MPATH_MAX_PATHS];	/* requests ON_PATH there (queue-depth) */
	unsigned rr;				/* round-robin: where the next look starts */
	unsigned depth;
	struct mp_req *reqs;
	struct mp_req *free_list;
	struct mp_req *wait_head, *wait_tail;
	struct mp_req *done_head, *done_tail;
	unsigned inflight;		/* accepted from the caller, callback not yet run */
	atomic_uint nwaiting;		/* read by the head thread */
	int epfd;
	struct rblk_wakefd wake;	/* path changes, resends due */
	struct rblk_mpath_qp *next;	/* the head's list */
	struct rblk_mpath_qp *sync_next; /* the head's idle synchronous ones */
};

static const struct rblk_mpath_path_ops *ops_of(const struct rblk_mpath *mp)
{
	return mp->ops ? mp->ops : &rblk_mpath_path_ops_default;
}

enum rblk_mpath_disposition rblk_mpath_disposition(uint16_t status, int err)
{
	/* Any transport error: the path went away with the command, or never took it. */
	if (err)
		return RBLK_MPATH_RETRY;
	/* SCT 3h, path related (the Linux host's nvme_is_path_error()). */
	if ((status & NVME_STATUS_CODE_MASK) >> 8 == 3)
		return RBLK_MPATH_RETRY;
	return RBLK_MPATH_DONE;
}

static void list_append(struct mp_req **head, struct mp_req **tail, struct mp_req *r)
{
	r->next = NULL;
	if (*tail)
		(*tail)->next = r;
	else
		*head = r;
	*tail = r;
}

static void set_done(struct rblk_mpath_qp *mq, struct mp_req *r, uint16_t status, int err)
{
	r->state = MP_REQ_DONE;
	r->status = status;
	r->err = err;
	list_append(&mq->done_head, &mq->done_tail, r);
}

static void set_waiting(struct rblk_mpath_qp *mq, struct mp_req *r, uint64_t now)
{
	r->state = MP_REQ_WAITING;
	r->waiting_since_ms = now;
	list_append(&mq->wait_head, &mq->wait_tail, r);
	atomic_fetch_add(&mq->nwaiting, 1);
}

/* Queue pairs on paths that became live since we last looked (the owner's thread). */
static void adopt_paths(struct rblk_mpath_qp *mq)
{
	struct rblk_mpath *mp = mq->mp;
	const struct rblk_mpath_path_ops *ops = ops_of(mp);

	for (unsigned i = 0; i < mp->npaths; i++) {
		struct rblk_ctrl *c = atomic_load_explicit(&mp->paths[i].ctrl, memory_order_acquire);
		struct epoll_event ev = { .events = EPOLLIN };
		int fd, ret;

		if (mq->pq[i] || !c)
			continue;
		ret = ops->qpair_alloc(c, &mq->pq[i]);
		if (ret) {
			RBLK_DEBUG("path %u: no queue pair yet: %s", i, strerror(-ret));
			mq->pq[i] = NULL;
			continue;
		}
		fd = ops->fd(mq->pq[i]);
		ev.data.u32 = i;
		if (fd >= 0 && mq->epfd >= 0 && epoll_ctl(mq->epfd, EPOLL_CTL_ADD, fd, &ev))
			RBLK_WARN("path %u: watching its queue pair: %s", i, strerror(errno));
	}
}

static bool path_usable(struct rblk_mpath_qp *mq, unsigned i, uint64_t now, enum rblk_ana_state *ana)
{
	struct rblk_mpath *mp = mq->mp;
	struct rblk_mpath_path *p = &mp->paths[i];
	struct rblk_ctrl *c = atomic_load_explicit(&p->ctrl, memory_order_acquire);

	*ana = p->ana_supported ? (enum rblk_ana_state)atomic_load(&p->ana) : RBLK_ANA_OPTIMIZED;
	if (!c || !mq->pq[i] || atomic_load(&p->refused))
		return false;
	if (ops_of(mp)->state(c) != RBLK_CTRL_LIVE)
		return false;
	return now >= mq->suspect_until_ms[i];
}

static int choose(struct rblk_mpath_qp *mq, uint64_t now)
{
	bool usable[RBLK_MPATH_MAX_PATHS];
	enum rblk_ana_state ana[RBLK_MPATH_MAX_PATHS];
	unsigned n = mq->mp->npaths;

	for (unsigned i = 0; i < n; i++)
		usable[i] = path_usable(mq, i, now, &ana[i]);
	return rblk_mpath_pick(usable, ana, n, mq->mp->opts.iopolicy, mq->on_path, &mq->rr);
}

static void inner_done(struct rblk_io *io, uint16_t status, int err, void *arg);

/*
 * Sends @r on the best path. 0 (ON_PATH), -EAGAIN (that path's queue is
 * full), -ENOENT (no usable path), or the -errno a path refused the request
 * itself with (-EINVAL, -EROFS: no other path would take it either).
 */
static int send_req(struct rblk_mpath_qp *mq, struct mp_req *r, uint64_t now)
{
	struct rblk_mpath *mp = mq->mp;

	for (unsigned tries = 0; tries < mp->npaths; tries++) {
		int p = choose(mq, now), ret;

		if (p < 0)
			return -ENOENT;
		r->inner.ns = mp->paths[p].ns;
		ret = ops_of(mp)->submit(mq->pq[p], &r->inner, inner_done, r);
		if (!ret) {
			r->state = MP_REQ_ON_PATH;
			r->path = p;
			mq->on_path[p]++;
			atomic_fetch_add_explicit(&mp->paths[p].ios, 1, memory_order_relaxed);
			return 0;
		}
		if (ret == -EAGAIN)
			return -EAGAIN;
		if (ret != -ENOTCONN && ret != -ECONNRESET)
			return ret;
		/* Lost between our look at its state and the submit: try the next one. */
		mq->suspect_until_ms[p] = now + SUSPECT_MS;
	}
	return -ENOENT;
}

/* A path's callback (inside its poll, on the owner's thread). */
static void inner_done(struct rblk_io *io, uint16_t status, int err, void *arg)
{
	struct mp_req *r = arg;
	struct rblk_mpath_qp *mq = r->mq;
	struct rblk_mpath *mp = mq->mp;
	struct rblk_mpath_path *p = &mp->paths[r->path];
	enum rblk_ana_state implied;
	uint64_t now;

	(void)io;
	mq->on_path[r->path]--;
	if (rblk_mpath_disposition(status, err) == RBLK_MPATH_DONE) {
		set_done(mq, r, status, 0);
		return;
	}
	if (err && r->inner.op == RBLK_OP_COMPARE_WRITE) {
		/* The path died with it: the Write may have happened. Never twice. */
		set_done(mq, r, 0, err);
		return;
	}
	now = rblk_clock_ms();
	atomic_fetch_add_explicit(&p->failovers, 1, memory_order_relaxed);
	implied = rblk_ana_state_of_status(status);
	if (implied) {
		/* Stop using the path now; the head re-reads the log for the truth. */
		atomic_store(&p->ana, (int)implied);
		atomic_store(&p->ana_stale, true);
		if (mp->wake_fd >= 0) {
			uint64_t one = 1;

			if (write(mp->wake_fd, &one, sizeof(one)) < 0)
				RBLK_DEBUG("waking the multipath thread: %s", strerror(errno));
		}
	} else if (err) {
		mq->suspect_until_ms[r->path] = now + SUSPECT_MS;
	}
	RBLK_DEBUG("path %u: I/O failed (status %#x, %s): failing over", r->path, status,
		   err ? strerror(-err) : "-");
	set_waiting(mq, r, now);
}

/* Sends what waits, in order; fails what waited too long for a path. */
static void resend_waiting(struct rblk_mpath_qp *mq, uint64_t now)
{
	struct mp_req *list = mq->wait_head, *r;
	bool full = false;

	mq->wait_head = mq->wait_tail = NULL;
	while ((r = list)) {
		int ret = -EAGAIN;

		list = r->next;
		atomic_fetch_sub(&mq->nwaiting, 1);
		if (!full)
			ret = send_req(mq, r, now);
		if (!ret)
			continue;
		if (ret == -EAGAIN) {
			full = true;	/* keep the order: the rest waits too */
		} else if (ret != -ENOENT) {
			set_done(mq, r, 0, ret);
			continue;
		}
		if (ret == -ENOENT && mq->mp->no_path_ms != UINT64_MAX &&
		    now - r->waiting_since_ms >= mq->mp->no_path_ms) {
			RBLK_WARN("no usable path for %llu ms: I/O fails",
				  (unsigned long long)(now - r->waiting_since_ms));
			set_done(mq, r, 0, -ENOTCONN);
			continue;
		}
		r->state = MP_REQ_WAITING;
		r->next = NULL;
		list_append(&mq->wait_head, &mq->wait_tail, r);
		atomic_fetch_add(&mq->nwaiting, 1);
	}
}

int rblk_mpath_qp_submit(struct rblk_mpath_qp *mq, struct rblk_io *io, rblk_io_cb cb, void *arg)
{
	struct rblk_mpath *mp = mq->mp;
	struct mp_req *r;
	uint64_t now;
	int ret;

	if (!io || !cb || (io->ns && io->ns != &mp->ns))
		return -EINVAL;
	if (mp->ns.read_only && rblk_io_op_writes(io->op))
		return -EROFS;
	r = mq->free_list;
	if (!r)
		return -EAGAIN;
	mq->free_list = r->next;
	r->user = io;
	r->cb = cb;
	r->arg = arg;
	r->inner = (struct rblk_io){
		.op = io->op,
		.lba = io->lba,
		.nlb = io->nlb,
		.flags = io->flags,
		.buf = io->buf,
		.iov = io->iov,
		.iovcnt = io->iovcnt,
	};
	now = rblk_clock_ms();
	adopt_paths(mq);
	/* Behind requests that already wait: no overtaking while paths fail over. */
	ret = mq->wait_head ? -ENOENT : send_req(mq, r, now);
	if (ret == -ENOENT) {
		set_waiting(mq, r, now);
		ret = 0;
	}
	if (ret) {
		r->state = MP_REQ_FREE;
		r->next = mq->free_list;
		mq->free_list = r;
		return ret;
	}
	mq->inflight++;
	return 0;
}

int rblk_mpath_qp_flush(struct rblk_mpath_qp *mq)
{
	const struct rblk_mpath_path_ops *ops = ops_of(mq->mp);
	int ret = 0;

	for (unsigned i = 0; i < mq->mp->npaths; i++) {
		int r = mq->pq[i] ? ops->flush(mq->pq[i]) : 0;

		if (r && !ret)
			ret = r;
	}
	return ret;
}

int rblk_mpath_qp_poll(struct rblk_mpath_qp *mq, unsigned max)
{
	const struct rblk_mpath_path_ops *ops = ops_of(mq->mp);
	struct mp_req *list, *r;
	int count = 0;

	(void)max;	/* each path is reaped whole: a failover must not wait a poll */
	rblk_wakefd_drain(&mq->wake);
	adopt_paths(mq);
	for (unsigned i = 0; i < mq->mp->npaths; i++)
		if (mq->pq[i])
			ops->poll(mq->pq[i], 0);	/* -ENOTCONN of a lost path: its I/O came back */
	if (mq->wait_head) {
		resend_waiting(mq, rblk_clock_ms());
		rblk_mpath_qp_flush(mq);
	}
	list = mq->done_head;
	mq->done_head = mq->done_tail = NULL;
	/* Callbacks last: they may submit again on this qpair. */
	while ((r = list)) {
		rblk_io_cb cb = r->cb;
		struct rblk_io *io = r->user;
		void *arg = r->arg;
		uint16_t status = r->status;
		int err = r->err;

		list = r->next;
		r->state = MP_REQ_FREE;
		r->next = mq->free_list;
		mq->free_list = r;
		mq->inflight--;
		cb(io, status, err, arg);
		count++;
	}
	return count;
}

int rblk_mpath_qp_fd(struct rblk_mpath_qp *mq)
{
	return mq->epfd;
}

unsigned rblk_mpath_qp_depth(struct rblk_mpath_qp *mq)
{
	return mq->depth;
}

unsigned rblk_mpath_qp_inflight(struct rblk_mpath_qp *mq)
{
	return mq->inflight;
}

struct rblk_mpath_qp *rblk_mpath_qp_next(struct rblk_mpath_qp *mq)
{
	return mq->next;
}

void rblk_mpath_qp_notify(struct rblk_mpath_qp *mq, bool only_if_waiting)
{
	int ret;

	if (only_if_waiting && !atomic_load(&mq->nwaiting))
		return;
	ret = rblk_wakefd_kick(&mq->wake);
	if (ret)
		RBLK_DEBUG("multipath qpair: eventfd: %s", strerror(-ret));
}

int rblk_mpath_qp_create(struct rblk_mpath *mp, struct rblk_qpair **out)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = UINT32_MAX };
	struct rblk_mpath_qp *mq;
	int ret;

	*out = NULL;
	mq = rblk_calloc_lines(1, sizeof(*mq));
	if (!mq)
		return -ENOMEM;
	mq->mp = mp;
	mq->epfd = mq->wake.fd = -1;
	mq->depth = mp->depth;
	mq->handle.mpath = mq;
	mq->reqs = rblk_calloc_lines(mq->depth, sizeof(*mq->reqs));
	if (!mq->reqs) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (unsigned i = mq->depth; i-- > 0;) {
		mq->reqs[i].mq = mq;
		mq->reqs[i].next = mq->free_list;
		mq->free_list = &mq->reqs[i];
	}
	ret = rblk_wakefd_open(&mq->wake);
	if (ret)
		goto out_free;
	mq->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (mq->epfd < 0 || epoll_ctl(mq->epfd, EPOLL_CTL_ADD, mq->wake.fd, &ev)) {
		ret = -errno;
		goto out_free;
	}
	adopt_paths(mq);
	pthread_mutex_lock(&mp->lock);
	mq->next = mp->qps;
	mp->qps = mq;
	pthread_mutex_unlock(&mp->lock);
	*out = &mq->handle;
	return 0;

out_free:
	rblk_mpath_qp_destroy(mq);
	return ret;
}

struct rblk_qpair *rblk_mpath_sync_qpair_get(struct rblk_mpath *mp, int *err)
{
	struct rblk_mpath_qp *mq;
	struct rblk_qpair *qp;
	int ret;

	pthread_mutex_lock(&mp->lock);
	mq = mp->sync_free;
	if (mq)
		mp->sync_free = mq->sync_next;
	pthread_mutex_unlock(&mp->lock);
	if (mq)
		return &mq->handle;
	ret = rblk_mpath_qp_create(mp, &qp);
	if (ret) {
		*err = ret;
		return NULL;
	}
	return qp;
}

void rblk_mpath_sync_qpair_put(struct rblk_mpath *mp, struct rblk_qpair *qp)
{
	struct rblk_mpath_qp *mq = qp->mpath;

	pthread_mutex_lock(&mp->lock);
	mq->sync_next = mp->sync_free;
	mp->sync_free = mq;
	pthread_mutex_unlock(&mp->lock);
}

void rblk_mpath_sync_qpairs_free(struct rblk_mpath *mp)
{
	struct rblk_mpath_qp *mq, *next;

	pthread_mutex_lock(&mp->lock);
	mq = mp->sync_free;
	mp->sync_free = NULL;
	pthread_mutex_unlock(&mp->lock);
	for (; mq; mq = next) {
		next = mq->sync_next;
		rblk_mpath_qp_destroy(mq);
	}
}

void rblk_mpath_qp_destroy(struct rblk_mpath_qp *mq)
{
	struct rblk_mpath *mp;
	uint64_t deadline;

	if (!mq)
		return;
	mp = mq->mp;
	/* Paths may still write into buffers of requests on them: wait, as rblk_qpair_free(). */
	deadline = rblk_clock_ms() + FREE_TIMEOUT_MS;
	while (mq->inflight && rblk_clock_ms() < deadline) {
		struct pollfd pfd = { .fd = mq->epfd, .events = POLLIN };

		if (rblk_mpath_qp_poll(mq, 0) == 0)
			poll(&pfd, 1, 100);
	}
	if (mq->inflight)
		RBLK_WARN("multipath qpair freed with %u requests in flight", mq->inflight);
	pthread_mutex_lock(&mp->lock);
	for (struct rblk_mpath_qp **pp = &mp->qps; *pp; pp = &(*pp)->next) {
		if (*pp == mq) {
			*pp = mq->next;
			break;
		}
	}
	pthread_mutex_unlock(&mp->lock);
	for (unsigned i = 0; i < mp->npaths; i++)
		if (mq->pq[i])
			ops_of(mp)->qpair_free(mq->pq[i]);
	if (mq->epfd >= 0)
		close(mq->epfd);
	rblk_wakefd_close(&mq->wake);
	free(mq->reqs);
	free(mq);
}

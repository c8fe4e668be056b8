/* SPDX-License-Identifier: MIT */
/*
 * Poll groups (see poll_group.h): the reactor thread, its mailbox, its
 * per-device contexts (PD, shared send and receive CQs, registered pool that
 * doubles as the backend's fixed buffers), adaptive polling and the timers.
 *
 * One iteration: reap CQs (32 WCs at a time) -> mailbox -> backend
 * completions and parked I/O -> requests waiting for resources -> one post
 * per queue (receives, then the send chain) and reaping of drained queues ->
 * one backend submission -> ticks. Sleeping: arm every receive CQ that is not
 * still armed, and the send CQs only when something waits for a send-side
 * completion (send_awaited()), poll once more (a completion may have landed
 * before arming), switch the backend's eventfd on and poll it once more, then
 * epoll_wait on CQ channels, backend eventfd, completion eventfd and mailbox,
 * with the next timer deadline as timeout when queues exist (no timeout
 * otherwise, so an idle target without hosts never wakes up). On waking, only
 * the sources epoll reported are read: a sleep costs one system call per
 * source that fired, not one per source. The embedder's loop (rblk_poll_group_idle) does not see which fired
 * and resets every source before it sleeps.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "target/rdma/poll_group.h"
#include "target/rdma/rdma.h"

struct run_on_msg {
	struct rblk_pg_msg msg;
	void (*fn)(void *arg);
	void *arg;
};

/* The group this thread runs (its own thread, or the embedder's loop thread). */
static __thread struct rblk_poll_group *pg_self;

static void wake(struct rblk_poll_group *pg, int fd, const char *what)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		RBLK_WARN("poll group %u: %s wakeup: %s", pg->opts.id, what, strerror(errno));
}

/* ------------------------------------------------------------------------ */
/* Mailbox.                                                                  */

void rblk_poll_group_post(struct rblk_poll_group *pg, struct rblk_pg_msg *msg)
{
	bool was_empty;

	msg->next = NULL;
	pthread_mutex_lock(&pg->mbox_lock);
	was_empty = !pg->mbox_head;
	*pg->mbox_tail = msg;
	pg->mbox_tail = &msg->next;
	pthread_mutex_unlock(&pg->mbox_lock);
	atomic_store_explicit(&pg->mbox_pending, true, memory_order_release);
	/* Only the first message needs to wake the thread; it takes them all. */
	if (was_empty)
		wake(pg, pg->mbox_fd, "mailbox");
}

static void run_on_fn(struct rblk_pg_msg *m)
{
	struct run_on_msg *r = rblk_container_of(m, struct run_on_msg, msg);

	r->fn(r->arg);
	free(r);
}

int rblk_poll_group_run_on(struct rblk_poll_group *pg, void (*fn)(void *arg), void *arg)
{
	/* Control path (AENs, keep-alive): allocation is fine here. */
	struct run_on_msg *r = malloc(sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->msg.fn = run_on_fn;
	r->fn = fn;
	r->arg = arg;
	rblk_poll_group_post(pg, &r->msg);
	return 0;
}

static unsigned run_mailbox(struct rblk_poll_group *pg)
{
	struct rblk_pg_msg *m, *next;
	unsigned n = 0;
	uint64_t v;

	atomic_store_explicit(&pg->mbox_pending, false, memory_order_relaxed);
	if (read(pg->mbox_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		RBLK_DEBUG("poll group %u: mailbox read: %s", pg->opts.id, strerror(errno));
	pthread_mutex_lock(&pg->mbox_lock);
	m = pg->mbox_head;
	pg->mbox_head = NULL;
	pg->mbox_tail = &pg->mbox_head;
	pthread_mutex_unlock(&pg->mbox_lock);
	for (; m; m = next, n++) {
		next = m->next; /* fn may free or re-post m */
		m->fn(m);
	}
	rblk_stat_inc(&pg->stats.msgs, n);
	return n;
}

/* ------------------------------------------------------------------------ */
/* Provider completions.                                                     */

void rblk_poll_group_complete_io(struct rblk_poll_group *pg, struct rblk_req *req)
{
	struct rblk_req *old;

	/* The group's own thread: in order, without a locked instruction. */
	if (pg_self == pg) {
		req->cpl_next = NULL;
		*pg->cpl_local_tail = req;
		pg->cpl_local_tail = &req->cpl_next;
		return;
	}
	old = atomic_load_explicit(&pg->cpl_head, memory_order_relaxed);
	do {
		req->cpl_next = old;
	} while (!atomic_compare_exchange_weak_explicit(&pg->cpl_head, &old, req,
							memory_order_release,
							memory_order_relaxed));
	/*
	 * The first completion wakes a sleeping group; later ones find the list
	 * non-empty, which the group checks before it sleeps.
	 */
	if (!old)
		wake(pg, pg->cpl_fd, "completion");
}

static unsigned run_local_completions(struct rblk_poll_group *pg)
{
	struct rblk_req *req = pg->cpl_local, *next;
	unsigned n = 0;

	/* Detach first: finishing one may complete another onto the list. */
	pg->cpl_local = NULL;
	pg->cpl_local_tail = &pg->cpl_local;
	for (; req; req = next, n++) {
		next = req->cpl_next;
		rblk_req_io_done(req);
	}
	return n;
}

static unsigned run_completions(struct rblk_poll_group *pg)
{
	struct rblk_req *list, *fifo = NULL, *next;
	unsigned n = 0;

	if (pg->cpl_local)
		n += run_local_completions(pg);
	if (!atomic_load_explicit(&pg->cpl_head, memory_order_relaxed))
		return n;
	list = atomic_exchange_explicit(&pg->cpl_head, NULL, memory_order_acquire);
	/* Pushed LIFO: reverse, so commands finish in the order their I/O did. */
	for (; list; list = next) {
		next = list->cpl_next;
		list->cpl_next = fifo;
		fifo = list;
	}
	for (; fifo; fifo = next, n++) {
		next = fifo->cpl_next;
		rblk_req_io_done(fifo);
	}
	return n;
}

/* ------------------------------------------------------------------------ */
/* Device contexts.                                                          */

static void dev_destroy(struct rblk_pg_dev *dev)
{
	int ret;

	if (!dev)
		return;
	rblk_rdma_srq_destroy(dev);
	for (unsigned i = 0; i < dev->nscq; i++)
		rblk_cq_destroy(dev->scq[i].cq);
	rblk_cq_destroy(dev->rcq.cq);
	rblk_mr_pool_destroy(dev->pool);
	ret = rblk_pd_dealloc(dev->pd);
	if (ret)
		RBLK_WARN("poll group %u: freeing the PD of %s: %s", dev->pg->opts.id,
			  rblk_device_name(dev->device), strerror(-ret));
	free(dev);
}

/*
 * A CQ with its own completion channel, on the group's epoll set tagged with
 * its struct rblk_pg_cq (sleep_wait() takes the event of the one that fired).
 */
static int pg_cq_create(struct rblk_poll_group *pg, struct rblk_device *device, int cqe,
			struct rblk_pg_cq *c)
{
	struct epoll_event ev;
	int ret;

	ret = rblk_cq_create(device, cqe, (int)pg->opts.id, true, &c->cq);
	if (ret)
		return ret;
	c->free = (uint32_t)rblk_cq_size(c->cq);
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.ptr = c;
	if (epoll_ctl(pg->epfd, EPOLL_CTL_ADD, rblk_cq_fd(c->cq), &ev) < 0)
		return -errno;
	return 0;
}

/* The size of every CQ of a device context. */
static int dev_cqe(const struct rblk_pg_dev *dev)
{
	if (dev->attr.max_cqe && dev->attr.max_cqe < RBLK_PG_CQ_SIZE)
		return (int)dev->attr.max_cqe;
	return RBLK_PG_CQ_SIZE;
}

/* The pool as the backend's fixed buffers: one registered buffer per unit. */
static void register_fixed(struct rblk_poll_group *pg, struct rblk_pg_dev *dev)
{
	uint32_t n = rblk_mr_pool_count(dev->pool);
	struct iovec *iov;
	int ret;

	/* Registration replaces the previous one and needs an idle queue. */
	if (pg->ndevs || rblk_bqueue_inflight(pg->bq))
		return;
	iov = calloc(n, sizeof(*iov));
	if (!iov)
		return;
	ret = rblk_mr_pool_iovecs(dev->pool, iov, n);
	if (ret >= 0)
		ret = rblk_bqueue_register_buffers(pg->bq, iov, n);
	free(iov);
	if (ret) {
		RBLK_WARN("poll group %u: cannot register the buffer pool with the %s backend "
			  "(%s): I/O goes through unregistered buffers", pg->opts.id,
			  rblk_bqueue_engine(pg->bq), strerror(-ret));
		return;
	}
	dev->fixed_bufs = true;
}

int rblk_pg_dev_get(struct rblk_poll_group *pg, struct rblk_device *device,
		    struct rblk_pg_dev **out)
{
	struct rblk_pg_dev *dev;
	int cqe, ret;

	if (!device)
		return -ENODEV;
	for (unsigned i = 0; i < pg->ndevs; i++) {
		if (pg->devs[i]->device == device) {
			*out = pg->devs[i];
			return 0;
		}
	}
	if (pg->ndevs == RBLK_PG_MAX_DEVS)
		return -ENOSPC;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->pg = pg;
	dev->device = device;
	TAILQ_INIT(&dev->pending_buf);
	ret = rblk_device_query(device, &dev->attr);
	if (ret)
		goto fail;
	ret = rblk_pd_alloc(device, &dev->pd);
	if (ret)
		goto fail;
	cqe = dev_cqe(dev);
	ret = pg_cq_create(pg, device, cqe, &dev->rcq);
	if (!ret)
		ret = pg_cq_create(pg, device, cqe, &dev->scq[dev->nscq++]);
	if (ret)
		goto fail;
	/* The target's memory is never exposed: LOCAL_WRITE only (docs/architecture.md §2.5). */
	ret = rblk_mr_pool_create(dev->pd, pg->opts.io_unit_size, pg->opts.num_units,
				  RBLK_ACCESS_LOCAL_WRITE, &dev->pool);
	if (ret) {
		RBLK_ERR("poll group %u: cannot register a %u x %u-byte buffer pool on %s: %s%s",
			 pg->opts.id, pg->opts.num_units, pg->opts.io_unit_size,
			 rblk_device_name(device), strerror(-ret),
			 ret == -ENOMEM ? " (RLIMIT_MEMLOCK? see `ulimit -l`)" : "");
		goto fail;
	}
	register_fixed(pg, dev);
	if (pg->opts.srq_depth && !dev->attr.max_srq_wr) {
		RBLK_NOTICE("poll group %u: %s has no shared receive queues: receives per "
			    "connection", pg->opts.id, rblk_device_name(device));
	} else if (pg->opts.srq_depth) {
		ret = rblk_rdma_srq_create(dev, pg->opts.srq_depth, pg->opts.icd_size);
		if (ret)
			RBLK_WARN("poll group %u: %s: cannot create a shared receive queue of %u "
				  "(%s): receives per connection", pg->opts.id,
				  rblk_device_name(device), pg->opts.srq_depth, strerror(-ret));
	}
	RBLK_INFO("poll group %u: %s: CQs of %d entries, %u buffers of %u bytes%s%s; %s%u "
		  "shared receives", pg->opts.id, rblk_device_name(device),
		  rblk_cq_size(dev->rcq.cq), rblk_mr_pool_count(dev->pool),
		  pg->opts.io_unit_size, rblk_mr_pool_hugetlb(dev->pool) ? " on huge pages" : "",
		  dev->fixed_bufs ? ", registered with the backend" : "", dev->srq ? "" : "no, ",
		  dev->srq ? dev->srq->depth : 0);
	pg->devs[pg->ndevs++] = dev;
	*out = dev;
	return 0;

fail:
	if (ret != -ENOMEM || !dev->pd)
		RBLK_ERR("poll group %u: cannot use RDMA device %s: %s", pg->opts.id,
			 rblk_device_name(device), strerror(-ret));
	dev_destroy(dev);
	return ret;
}

int rblk_pg_dev_reserve_cq(struct rblk_pg_dev *dev, uint32_t nsend, uint32_t nrecv,
			   struct rblk_pg_cq **scq)
{
	struct rblk_pg_cq *c = NULL;
	int ret;

	if (dev->rcq.free < nrecv)
		return -ENOSPC;
	for (unsigned i = 0; nsend && i < dev->nscq && !c; i++)
		if (dev->scq[i].free >= nsend)
			c = &dev->scq[i];
	if (nsend && !c) {
		if (dev->nscq == RBLK_PG_MAX_SCQ || nsend > (uint32_t)dev_cqe(dev))
			return -ENOSPC;
		ret = pg_cq_create(dev->pg, dev->device, dev_cqe(dev), &dev->scq[dev->nscq]);
		if (ret) {
			rblk_cq_destroy(dev->scq[dev->nscq].cq);
			memset(&dev->scq[dev->nscq], 0, sizeof(dev->scq[0]));
			return ret;
		}
		c = &dev->scq[dev->nscq++];
		RBLK_INFO("poll group %u: %s: send CQ %u added (%d entries)", dev->pg->opts.id,
			  rblk_device_name(dev->device), dev->nscq, rblk_cq_size(c->cq));
		if (c->free < nsend)
			return -ENOSPC;
	}
	if (c)
		c->free -= nsend;
	dev->rcq.free -= nrecv;
	if (scq)
		*scq = c;
	return 0;
}

void rblk_pg_dev_release_cq(struct rblk_pg_dev *dev, struct rblk_pg_cq *scq, uint32_t nsend,
			    uint32_t nrecv)
{
	if (scq) {
		scq->free += nsend;
		assert(scq->free <= (uint32_t)rblk_cq_size(scq->cq));
	}
	dev->rcq.free += nrecv;
	assert(dev->rcq.free <= (uint32_t)rblk_cq_size(dev->rcq.cq));
}

/* ------------------------------------------------------------------------ */
/* Queues.                                                                   */

void rblk_poll_group_add_queue(struct rblk_poll_group *pg, struct rblk_rdma_queue *q)
{
	uint64_t soon = rblk_clock_ms() + pg->opts.tick_ms;

	/* A new queue has its Connect deadline ahead: tick at the short period. */
	if (!pg->nqueues || pg->next_tick_ms > soon)
		pg->next_tick_ms = soon;
	TAILQ_INSERT_TAIL(&pg->queues, q, link);
	pg->nqueues++;
}

void rblk_poll_group_remove_queue(struct rblk_poll_group *pg, struct rblk_rdma_queue *q)
{
	assert(pg->nqueues > 0);
	TAILQ_REMOVE(&pg->queues, q, link);
	pg->nqueues--;
}

/* ------------------------------------------------------------------------ */
/* The loop.                                                                 */

/* A few batches of one CQ, then the rest of the loop runs. */
static unsigned poll_cq(struct rblk_poll_group *pg, struct rblk_pg_cq *c)
{
	struct rblk_wc wc[RBLK_PG_WC_BATCH];
	unsigned total = 0;

	for (int round = 0; round < 4; round++) {
		int n = rblk_cq_poll(c->cq, wc, RBLK_PG_WC_BATCH);

		if (n <= 0) {
			if (n < 0)
				RBLK_ERR("poll group %u: polling a CQ: %s", pg->opts.id, strerror(-n));
			break;
		}
		for (int i = 0; i < n; i++)
			rblk_rdma_handle_wc(&wc[i]);
		total += (unsigned)n;
		if (n < RBLK_PG_WC_BATCH)
			break;
	}
	return total;
}

void rblk_pg_dev_drain_rcq(struct rblk_pg_dev *dev)
{
	while (poll_cq(dev->pg, &dev->rcq) == 4 * RBLK_PG_WC_BATCH)
		;
}

static unsigned poll_cqs(struct rblk_poll_group *pg)
{
	unsigned total = 0;

	/* Sends first: the requests they free serve the capsules just received. */
	for (unsigned d = 0; d < pg->ndevs; d++) {
		unsigned recvs;

		for (unsigned i = 0; i < pg->devs[d]->nscq; i++)
			total += poll_cq(pg, &pg->devs[d]->scq[i]);
		recvs = poll_cq(pg, &pg->devs[d]->rcq);
		pg->awaited += recvs;
		total += recvs;
	}
	if (total)
		rblk_stat_inc(&pg->stats.wcs, total);
	return total;
}

static unsigned poll_backend(struct rblk_poll_group *pg)
{
	unsigned n = 0;
	int r;

	if (!rblk_bqueue_inflight(pg->bq))
		return 0;
	r = rblk_bqueue_poll(pg->bq, RBLK_PG_BQ_BATCH);
	if (r > 0) {
		n = (unsigned)r;
		/* Room in the backend queue: resubmit parked I/O (core contract). */
		n += rblk_io_waitq_run(&pg->waitq);
	} else if (r < 0) {
		RBLK_ERR("poll group %u: polling the backend: %s", pg->opts.id, strerror(-r));
	}
	return n;
}

/*
 * The timers of the group's queues; returns when they next need a look.
 * Short timers (a Connect or an authentication due, a command waiting for a
 * buffer) are checked every opts.tick_ms; keep-alive at its deadline, which
 * a host's traffic keeps pushing back; stall checks once a second. An idle
 * group with hosts connected thus wakes about once a second, not ten times.
 */
static uint64_t tick(struct rblk_poll_group *pg, uint64_t now)
{
	uint64_t next = now + RBLK_PG_IDLE_TICK_MS, soon = now + pg->opts.tick_ms;
	struct rblk_rdma_queue *q;

	for (unsigned d = 0; d < pg->ndevs; d++) {
		if (TAILQ_EMPTY(&pg->devs[d]->pending_buf))
			continue;
		rblk_rdma_dev_expire_waits(pg->devs[d], now);
		next = soon;
	}
	TAILQ_FOREACH(q, &pg->queues, link) {
		uint64_t t;

		if (rblk_rdma_admit_tick(q, now))
			continue;
		if (q->sq.state == RBLK_SQ_NEW && q->state <= RBLK_RDMA_Q_LIVE && soon < next)
			next = soon; /* its Connect is due */
		if (q->state != RBLK_RDMA_Q_LIVE)
			continue;
		t = rblk_sq_tick(&q->sq, now);
		rblk_rdma_queue_check_stall(q, now);
		if (t < next)
			next = t;
	}
	return next > now ? next : now + 1;
}

unsigned rblk_poll_group_poll(struct rblk_poll_group *pg)
{
	struct rblk_rdma_queue *q, *next;
	unsigned n = 0, done = 0;
	uint64_t now;
	int r;

	/* Nothing from the namespace tables is held uncounted between iterations. */
	rblk_tgt_pg_quiescent(&pg->core);
	rblk_stat_inc(&pg->stats.iterations, 1);
	rblk_clock_cache_reset(&pg->clock);
	rblk_clock_cache_reset(&pg->svc_clock);
	if (pg->bq_fd_toggle && pg->bq_fd_on) {
		/* Awake: we poll the backend anyway; signals would only need reading back. */
		rblk_bqueue_eventfd_enable(pg->bq, false);
		pg->bq_fd_on = false;
	}
	pg->awaited = 0;
	n += poll_cqs(pg); /* counts its receives in awaited */
	if (atomic_load_explicit(&pg->mbox_pending, memory_order_acquire))
		done += run_mailbox(pg);
	done += poll_backend(pg);
	done += run_completions(pg);
	pg->awaited += done;
	n += done;

	/* Requests waiting for units, read depth or send slots. */
	for (unsigned d = 0; d < pg->ndevs; d++) {
		if (!TAILQ_EMPTY(&pg->devs[d]->pending_buf))
			rblk_rdma_dev_kick(pg->devs[d]);
		if (pg->devs[d]->srq && !STAILQ_EMPTY(&pg->devs[d]->srq->idle))
			rblk_rdma_srq_retry_idle(pg->devs[d]->srq);
	}
	for (q = TAILQ_FIRST(&pg->queues); q; q = next) {
		next = TAILQ_NEXT(q, link);
		if (!TAILQ_EMPTY(&q->pending_send) || !TAILQ_EMPTY(&q->pending_read) ||
		    (q->state == RBLK_RDMA_Q_LIVE && !STAILQ_EMPTY(&q->incoming) &&
		     !TAILQ_EMPTY(&q->free_reqs)))
			rblk_rdma_queue_kick(q);
		/* One post per queue per iteration: receives, then the send chain. */
		rblk_rdma_queue_flush(q);
		if (q->state == RBLK_RDMA_Q_DRAINING && rblk_rdma_queue_reap(q))
			n++;
	}

	/* Shared receives given back by queues that had nothing to post. */
	for (unsigned d = 0; d < pg->ndevs; d++)
		if (pg->devs[d]->srq)
			rblk_rdma_srq_flush(pg->devs[d]->srq);

	r = rblk_bqueue_flush_submissions(pg->bq);
	if (r < 0 && r != -EAGAIN && r != -EBUSY)
		RBLK_ERR("poll group %u: backend submission: %s", pg->opts.id, strerror(-r));

	if (pg->nqueues) {
		now = rblk_clock_ms();
		if (now >= pg->next_tick_ms) {
			pg->next_tick_ms = tick(pg, now);
			rblk_stat_inc(&pg->stats.ticks, 1);
		}
	}
	return n;
}

/*
 * Whether anything waits for a send-side completion, so that the send CQs
 * must wake the group: a queue's own waits (rblk_rdma_queue_send_awaited()),
 * or commands waiting for buffer units (a read's units come back when its
 * data has gone). Otherwise send completions only free slots, and the next
 * wakeup reaps them: at the latest the next tick, before the stall checks.
 */
static bool send_awaited(struct rblk_poll_group *pg)
{
	struct rblk_rdma_queue *q;

	for (unsigned d = 0; d < pg->ndevs; d++)
		if (!TAILQ_EMPTY(&pg->devs[d]->pending_buf))
			return true;
	TAILQ_FOREACH(q, &pg->queues, link)
		if (rblk_rdma_queue_send_awaited(q))
			return true;
	return false;
}

/*
 * Completions the group waits for: local backend I/O, and RDMA READs pulling a
 * write's data (the response SENDs' completions only free slots: nobody
 * waits for them).
 */
static bool work_due(struct rblk_poll_group *pg)
{
	struct rblk_rdma_queue *q;

	/*
	 * Only local backend I/O: a remote engine's answers (rbd: a network
	 * round trip to the OSDs, milliseconds) come long after any spin, and a
	 * gateway spinning for them takes the CPU the cluster's client threads
	 * in this process need; their eventfd wakes the group.
	 */
	if (rblk_bqueue_inflight_local(pg->bq))
		return true;
	TAILQ_FOREACH(q, &pg->queues, link)
		if (q->reads_avail < q->plan.initiator_depth)
			return true;
	return false;
}

static void arm_cq(struct rblk_poll_group *pg, struct rblk_pg_cq *c)
{
	int ret;

	if (c->armed)
		return;
	ret = rblk_cq_req_notify(c->cq, false);
	if (ret)
		RBLK_ERR("poll group %u: arming a CQ: %s", pg->opts.id, strerror(-ret));
	else
		c->armed = true;
}

/*
 * Arms the receive CQs, and the send CQs when a queue waits for a send
 * completion (an armed CQ stays so until its event).
 */
static void arm_cqs(struct rblk_poll_group *pg)
{
	bool sends = send_awaited(pg);

	for (unsigned d = 0; d < pg->ndevs; d++) {
		arm_cq(pg, &pg->devs[d]->rcq);
		for (unsigned i = 0; sends && i < pg->devs[d]->nscq; i++)
			arm_cq(pg, &pg->devs[d]->scq[i]);
	}
}

static void read_eventfd(struct rblk_poll_group *pg, int fd, const char *what)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		RBLK_DEBUG("poll group %u: %s eventfd: %s", pg->opts.id, what, strerror(errno));
}

/*
 * Arms every wakeup source; true if work showed up meanwhile. reset: read
 * the eventfds first (the embedder's loop, which does not learn which source
 * fired); else they are read when epoll reports them.
 */
static bool prepare_sleep(struct rblk_poll_group *pg, bool reset)
{
	arm_cqs(pg);
	/* A completion may have landed before the CQ was armed. */
	if (poll_cqs(pg))
		return true;
	if (pg->bq_fd >= 0) {
		if (pg->bq_fd_toggle) {
			/* What completes from now on signals; what completed before, look. */
			rblk_bqueue_eventfd_enable(pg->bq, true);
			pg->bq_fd_on = true;
			if (reset)
				read_eventfd(pg, pg->bq_fd, "backend");
		} else {
			read_eventfd(pg, pg->bq_fd, "backend");
		}
		if (poll_backend(pg))
			return true;
	} else if (rblk_bqueue_inflight(pg->bq)) {
		/* No eventfd to wake us: keep polling while I/O is in flight. */
		poll_backend(pg);
		return true;
	}
	/* Reset before looking: a completion pushed after the look writes it again. */
	if (reset)
		read_eventfd(pg, pg->cpl_fd, "completion");
	if (pg->cpl_local || atomic_load_explicit(&pg->cpl_head, memory_order_acquire))
		return true;
	return atomic_load_explicit(&pg->mbox_pending, memory_order_acquire);
}

static int next_timeout(struct rblk_poll_group *pg)
{
	uint64_t now;

	if (!pg->nqueues)
		return -1;
	now = rblk_clock_ms();
	return pg->next_tick_ms > now ? (int)(pg->next_tick_ms - now) : 0;
}

/* Takes a CQ's event (one per arming); the CQ is disarmed until re-armed. */
static void consume_cq_event(struct rblk_pg_cq *c)
{
	while (rblk_cq_get_event(c->cq) > 0)
		c->armed = false;
}

/*
 * Takes the one event of an armed CQ that epoll reported: a single read (an
 * arming raises at most one event; were there another, epoll would report the
 * channel again).
 */
static void take_cq_event(struct rblk_pg_cq *c)
{
	if (rblk_cq_get_event(c->cq) > 0)
		c->armed = false;
}

int rblk_poll_group_idle(struct rblk_poll_group *pg)
{
	for (unsigned d = 0; d < pg->ndevs; d++) {
		consume_cq_event(&pg->devs[d]->rcq);
		for (unsigned i = 0; i < pg->devs[d]->nscq; i++)
			consume_cq_event(&pg->devs[d]->scq[i]);
	}
	if (pg->opts.mode == RBLK_POLL_BUSY || prepare_sleep(pg, true))
		return 0;
	rblk_stat_inc(&pg->stats.sleeps, 1);
	/* The embedder waits now: no grace period waits for it meanwhile. */
	rblk_tgt_pg_offline(&pg->core);
	return next_timeout(pg);
}

/* The group's own thread: sleep, then read what epoll says fired, nothing else. */
static void sleep_wait(struct rblk_poll_group *pg)
{
	struct epoll_event ev[2 * RBLK_PG_MAX_DEVS + 3];
	int n;

	rblk_stat_inc(&pg->stats.sleeps, 1);
	rblk_tgt_pg_offline(&pg->core);
	n = epoll_wait(pg->epfd, ev, 2 * RBLK_PG_MAX_DEVS + 3, next_timeout(pg));
	if (n < 0 && errno != EINTR)
		RBLK_ERR("poll group %u: epoll_wait: %s", pg->opts.id, strerror(errno));
	for (int i = 0; i < n; i++) {
		void *src = ev[i].data.ptr;

		if (src == &pg->mbox_fd)
			continue; /* read by run_mailbox, which mbox_pending triggers */
		if (src == &pg->cpl_fd)
			read_eventfd(pg, pg->cpl_fd, "completion");
		else if (src == &pg->bq_fd)
			read_eventfd(pg, pg->bq_fd, "backend");
		else if (src)
			take_cq_event(src);
	}
}

static void loop(struct rblk_poll_group *pg)
{
	enum rblk_poll_mode mode = pg->opts.mode;
	struct rblk_spin spin = { 0 };

	while (!atomic_load_explicit(&pg->stop, memory_order_acquire)) {
		if (rblk_poll_group_poll(pg)) {
			rblk_spin_work(&spin, pg->awaited > 0);
			continue;
		}
		if (mode == RBLK_POLL_BUSY)
			continue;
		if (mode == RBLK_POLL_ADAPTIVE &&
		    rblk_spin_empty(&spin, work_due(pg), &pg->clock) == RBLK_SPIN_POLL)
			continue;
		if (prepare_sleep(pg, false)) {
			rblk_spin_work(&spin, false);
			continue;
		}
		sleep_wait(pg);
		rblk_spin_slept(&spin);
	}
}

static int thread_setup(struct rblk_poll_group *pg)
{
	struct rblk_bqueue_opts bo = { .size = sizeof(bo) };
	struct epoll_event ev;
	int ret;

	/* Created here: io_uring's SINGLE_ISSUER binds the ring to this thread. */
	bo.engine = pg->opts.backend;
	bo.depth = pg->opts.bq_depth;
	bo.flags = RBLK_BQUEUE_SINGLE_ISSUER;
	ret = rblk_bqueue_create(&bo, &pg->bq);
	if (ret) {
		RBLK_ERR("poll group %u: cannot create the %s backend queue: %s", pg->opts.id,
			 pg->opts.backend ? pg->opts.backend : "default", strerror(-ret));
		return ret;
	}
	rblk_io_waitq_init(&pg->waitq);
	pg->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (pg->epfd < 0)
		return -errno;
	/* Each source tagged with its fd's address (a CQ channel: its device). */
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.ptr = &pg->mbox_fd;
	if (epoll_ctl(pg->epfd, EPOLL_CTL_ADD, pg->mbox_fd, &ev) < 0)
		return -errno;
	ev.data.ptr = &pg->cpl_fd;
	if (epoll_ctl(pg->epfd, EPOLL_CTL_ADD, pg->cpl_fd, &ev) < 0)
		return -errno;
	pg_self = pg;
	pg->bq_fd = rblk_bqueue_eventfd(pg->bq);
	if (pg->bq_fd >= 0) {
		ev.data.ptr = &pg->bq_fd;
		if (epoll_ctl(pg->epfd, EPOLL_CTL_ADD, pg->bq_fd, &ev) < 0)
			return -errno;
		/* Off while awake, when the engine can (a flag in io_uring's ring). */
		pg->bq_fd_toggle = rblk_bqueue_eventfd_enable(pg->bq, false) == 0;
		pg->bq_fd_on = false;
	} else {
		RBLK_WARN("poll group %u: the backend has no eventfd (%s): it will not sleep "
			  "while I/O is in flight", pg->opts.id, strerror(-pg->bq_fd));
		pg->bq_fd = -1;
	}
	return 0;
}

static void thread_teardown(struct rblk_poll_group *pg)
{
	/* Messages posted before the stop still run exactly once. */
	while (pg->mbox_head)
		run_mailbox(pg);
	if (pg->nqueues) {
		RBLK_WARN("poll group %u: %u queues still open at stop; leaving them",
			  pg->opts.id, pg->nqueues);
		return;
	}
	/* The backend first: it holds the pool as fixed buffers. */
	rblk_bqueue_destroy(pg->bq);
	pg->bq = NULL;
	for (unsigned d = 0; d < pg->ndevs; d++)
		dev_destroy(pg->devs[d]);
	pg->ndevs = 0;
}

static void *pg_thread(void *arg)
{
	struct rblk_poll_group *pg = arg;
	char name[16];

	snprintf(name, sizeof(name), "rblk-pg%u", pg->opts.id);
	pthread_setname_np(pthread_self(), name);
	pg->start_ret = thread_setup(pg);
	sem_post(&pg->ready);
	if (pg->start_ret)
		return NULL;
	RBLK_DEBUG("poll group %u: running (%s polling, %s backend)", pg->opts.id,
		   pg->opts.mode == RBLK_POLL_BUSY	 ? "busy"
		   : pg->opts.mode == RBLK_POLL_EVENT ? "event"
						      : "adaptive",
		   rblk_bqueue_engine(pg->bq));
	loop(pg);
	rblk_tgt_pg_offline(&pg->core);
	RBLK_INFO("poll group %u: %llu iterations, %llu sleeps, %llu completions, %llu messages, "
		  "%llu buffer waits (%llu timed out)",
		  pg->opts.id, (unsigned long long)atomic_load(&pg->stats.iterations),
		  (unsigned long long)atomic_load(&pg->stats.sleeps),
		  (unsigned long long)atomic_load(&pg->stats.wcs),
		  (unsigned long long)atomic_load(&pg->stats.msgs),
		  (unsigned long long)atomic_load(&pg->stats.buf_waits),
		  (unsigned long long)atomic_load(&pg->stats.buf_timeouts));
	thread_teardown(pg);
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* Life cycle.                                                               */

int rblk_poll_group_create(const struct rblk_pg_opts *opts, struct rblk_transport *t,
			   struct rblk_poll_group **out)
{
	struct rblk_poll_group *pg = calloc(1, sizeof(*pg));
	int ret;

	if (!pg)
		return -ENOMEM;
	pg->opts = *opts;
	if (!pg->opts.tick_ms)
		pg->opts.tick_ms = 100;
	pg->t = t;
	pg->epfd = -1;
	pg->bq_fd = -1;
	pg->mbox_tail = &pg->mbox_head;
	pg->cpl_local_tail = &pg->cpl_local;
	pg->svc_clock.coarse = true;
	TAILQ_INIT(&pg->queues);
	pg->cpl_fd = -1;
	pg->mbox_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (pg->mbox_fd < 0) {
		ret = -errno;
		goto out_free;
	}
	pg->cpl_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (pg->cpl_fd < 0) {
		ret = -errno;
		goto out_close_mbox;
	}
	ret = -pthread_mutex_init(&pg->mbox_lock, NULL);
	if (ret)
		goto out_close_cpl;
	pg->core.id = opts->id;
	atomic_init(&pg->core.qs, 1);
	if (opts->tgt) {
		ret = rblk_tgt_pg_register(opts->tgt, &pg->core, opts->id);
		if (ret)
			goto out_mutex;
		pg->core_registered = true;
	}
	sem_init(&pg->ready, 0, 0);
	*out = pg;
	return 0;

out_mutex:
	pthread_mutex_destroy(&pg->mbox_lock);
out_close_cpl:
	close(pg->cpl_fd);
out_close_mbox:
	close(pg->mbox_fd);
out_free:
	free(pg);
	return ret;
}

int rblk_poll_group_attach(struct rblk_poll_group *pg)
{
	int ret;

	if (pg->running || pg->inline_loop)
		return -EBUSY;
	ret = thread_setup(pg);
	if (ret) {
		rblk_bqueue_destroy(pg->bq);
		pg->bq = NULL;
		if (pg->epfd >= 0)
			close(pg->epfd);
		pg->epfd = -1;
		pg_self = NULL;
		return ret;
	}
	pg->inline_loop = true;
	return 0;
}

void rblk_poll_group_detach(struct rblk_poll_group *pg)
{
	if (!pg || !pg->inline_loop)
		return;
	rblk_tgt_pg_offline(&pg->core);
	thread_teardown(pg);
	pg->inline_loop = false;
	if (pg_self == pg)
		pg_self = NULL;
	if (pg->epfd >= 0)
		close(pg->epfd);
	pg->epfd = -1;
	pg->bq_fd = -1;
}

int rblk_poll_group_start(struct rblk_poll_group *pg)
{
	int ret;

	if (pg->running)
		return 0;
	atomic_store(&pg->stop, false);
	ret = -pthread_create(&pg->thread, NULL, pg_thread, pg);
	if (ret)
		return ret;
	while (sem_wait(&pg->ready) && errno == EINTR)
		;
	if (pg->start_ret) {
		pthread_join(pg->thread, NULL);
		rblk_bqueue_destroy(pg->bq);
		pg->bq = NULL;
		if (pg->epfd >= 0)
			close(pg->epfd);
		pg->epfd = -1;
		return pg->start_ret;
	}
	pg->running = true;
	return 0;
}

void rblk_poll_group_stop(struct rblk_poll_group *pg)
{
	uint64_t one = 1;

	if (!pg || !pg->running)
		return;
	atomic_store_explicit(&pg->stop, true, memory_order_release);
	if (write(pg->mbox_fd, &one, sizeof(one)) < 0)
		RBLK_DEBUG("poll group %u: stop wakeup: %s", pg->opts.id, strerror(errno));
	pthread_join(pg->thread, NULL);
	pg->running = false;
	if (pg->epfd >= 0)
		close(pg->epfd);
	pg->epfd = -1;
	pg->bq_fd = -1;
}

void rblk_poll_group_destroy(struct rblk_poll_group *pg)
{
	if (!pg)
		return;
	rblk_poll_group_stop(pg);
	rblk_poll_group_detach(pg);
	if (pg->core_registered)
		rblk_tgt_pg_unregister(pg->opts.tgt, &pg->core);
	sem_destroy(&pg->ready);
	pthread_mutex_destroy(&pg->mbox_lock);
	close(pg->mbox_fd);
	close(pg->cpl_fd);
	free(pg);
}

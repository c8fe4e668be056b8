/* SPDX-License-Identifier: MIT */
/*
 * Poll groups (see poll_group.h): the RDMA engine's side of a reactor
 * (target/reactor.c runs the thread, the mailbox, the completion lists, the
 * storage engines, the spin and the sleep). Here: the per-device contexts
 * (PD, shared send and receive CQs, registered pool that the storage engines
 * may register as fixed buffers), and what the loop asks of RDMA.
 *
 * Per iteration (the reactor's ops): reap the CQs (32 WCs at a time, sends
 * first), then after the other completions the requests waiting for
 * resources and one post per queue (receives, then the send chain), reaping
 * of drained queues, the shared receives; the queues' timers when due.
 * Before a sleep: arm every receive CQ that is not still armed, and the send
 * CQs only when something waits for a send-side completion
 * (send_awaited()), then poll once more (a completion may have landed
 * before arming).
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "common/clock.h"
#include "common/log.h"
#include "target/rdma/poll_group.h"
#include "target/rdma/rdma.h"

static struct rblk_poll_group *pg_of(struct rblk_reactor *r)
{
	return rblk_container_of(r, struct rblk_poll_group, r);
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
	if (epoll_ctl(pg->r.epfd, EPOLL_CTL_ADD, rblk_cq_fd(c->cq), &ev) < 0)
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

/*
 * The first device's pool as the group's I/O buffers, offered to the storage
 * engines (io_uring fixed buffers: one registered buffer per unit).
 */
static void offer_pool(struct rblk_poll_group *pg, struct rblk_pg_dev *dev)
{
	uint32_t n = rblk_mr_pool_count(dev->pool);
	struct iovec *iov;
	int ret;

	/* Once: an engine busy at a second offer would keep the first (pg_engine.c). */
	if (pg->bufs_offered)
		return;
	pg->bufs_offered = true;
	iov = calloc(n, sizeof(*iov));
	if (!iov)
		return;
	ret = rblk_mr_pool_iovecs(dev->pool, iov, n);
	if (ret >= 0)
		ret = rblk_tgt_pg_storage_buffers(&pg->r.core, iov, n);
	free(iov);
	if (ret < 0)
		RBLK_WARN("poll group %u: cannot offer the buffer pool to the storage (%s): I/O "
			  "goes through unregistered buffers", pg->opts.id, strerror(-ret));
	else
		dev->group_bufs = true;
}

static void dev_release(struct rblk_pg_dev *dev)
{
	struct rblk_poll_group *pg = dev->pg;
	struct rblk_rdma_gone *g = dev->gone;
	unsigned i;

	for (i = 0; i < pg->ndevs && pg->devs[i] != dev; i++)
		;
	assert(i < pg->ndevs && !dev->nqueues && TAILQ_EMPTY(&dev->pending_buf));
	pg->devs[i] = pg->devs[--pg->ndevs];
	pg->devs[pg->ndevs] = NULL;
	RBLK_NOTICE("poll group %u: %s went away: its CQs, receives and %u buffers are freed",
		    pg->opts.id, rblk_device_name(dev->device), rblk_mr_pool_count(dev->pool));
	/* The engines stop being offered the pool before it goes. */
	if (dev->group_bufs)
		rblk_tgt_pg_storage_buffers(&pg->r.core, NULL, 0);
	dev_destroy(dev);
	rblk_rdma_gone_put(g);
}

void rblk_pg_dev_put(struct rblk_pg_dev *dev)
{
	assert(dev->nqueues);
	if (--dev->nqueues == 0 && dev->gone)
		dev_release(dev);
}

struct gone_msg {
	struct rblk_poll_group *pg;
	struct rblk_rdma_gone *g;
};

static void on_device_gone(void *arg)
{
	struct gone_msg *m = arg;
	struct rblk_poll_group *pg = m->pg;
	struct rblk_rdma_gone *g = m->g;
	struct rblk_pg_dev *dev = NULL;

	free(m);
	for (unsigned i = 0; i < pg->ndevs; i++)
		if (pg->devs[i]->device == g->dev && !pg->devs[i]->gone)
			dev = pg->devs[i];
	if (!dev) {
		rblk_rdma_gone_put(g);
		return;
	}
	/* Its queues had their own DEVICE_REMOVAL: each closes, the last one frees it. */
	dev->gone = g;
	if (!dev->nqueues)
		dev_release(dev);
}

void rblk_pg_device_gone(struct rblk_poll_group *pg, struct rblk_rdma_gone *g)
{
	struct gone_msg *m = malloc(sizeof(*m));

	if (m) {
		m->pg = pg;
		m->g = g;
		if (!rblk_reactor_run_on(&pg->r, on_device_gone, m))
			return;
		free(m);
	}
	/* Never put for this group: the context stays open, the kernel waits for it. */
	RBLK_ERR("poll group %u: cannot be told that %s went away", pg->opts.id,
		 rblk_device_name(g->dev));
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
			/* A connection that arrived on the device as it went. */
			if (pg->devs[i]->gone)
				return -ENODEV;
			pg->devs[i]->nqueues++;
			*out = pg->devs[i];
			return 0;
		}
	}
	if (pg->ndevs == RBLK_PG_MAX_DEVS)
		return -ENOSPC;
	dev = rblk_calloc_lines(1, sizeof(*dev));
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
	offer_pool(pg, dev);
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
	RBLK_INFO("poll group %u: %s: CQs of %d entries, %u buffers of %u bytes%s; %s%u "
		  "shared receives", pg->opts.id, rblk_device_name(device),
		  rblk_cq_size(dev->rcq.cq), rblk_mr_pool_count(dev->pool),
		  pg->opts.io_unit_size, rblk_mr_pool_hugetlb(dev->pool) ? " on huge pages" : "",
		  dev->srq ? "" : "no, ", dev->srq ? dev->srq->depth : 0);
	pg->devs[pg->ndevs++] = dev;
	dev->nqueues = 1;
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
	/* A new queue has its Connect deadline ahead: tick at the short period. */
	rblk_reactor_timer_soon(&pg->r, rblk_clock_ms() + pg->opts.tick_ms);
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
/* What the loop asks of RDMA.                                               */

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
		pg->r.awaited += recvs;
		total += recvs;
	}
	if (total)
		rblk_stat_inc(&pg->stats.wcs, total);
	return total;
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


static unsigned ops_poll(struct rblk_reactor *r)
{
	return poll_cqs(pg_of(r)); /* counts its receives in awaited */
}

/* Requests waiting for units, read depth or send slots; one post per queue. */
static unsigned ops_flush(struct rblk_reactor *r)
{
	struct rblk_poll_group *pg = pg_of(r);
	struct rblk_rdma_queue *q, *next;
	unsigned n = 0;

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
	return n;
}

static bool ops_has_timers(struct rblk_reactor *r)
{
	return pg_of(r)->nqueues != 0;
}

static uint64_t ops_tick(struct rblk_reactor *r, uint64_t now_ms)
{
	return tick(pg_of(r), now_ms);
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
 * RDMA READs pulling a write's data: the group spins for them (the response
 * SENDs' completions only free slots: nobody waits for them).
 */
static bool ops_work_due(struct rblk_reactor *r)
{
	struct rblk_rdma_queue *q;

	TAILQ_FOREACH(q, &pg_of(r)->queues, link)
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


static bool ops_arm(struct rblk_reactor *r)
{
	struct rblk_poll_group *pg = pg_of(r);

	arm_cqs(pg);
	/* A completion may have landed before the CQ was armed. */
	return poll_cqs(pg) != 0;
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


static void ops_event(struct rblk_reactor *r, void *tag)
{
	(void)r;
	take_cq_event(tag);
}

static void ops_take_events(struct rblk_reactor *r)
{
	struct rblk_poll_group *pg = pg_of(r);

	for (unsigned d = 0; d < pg->ndevs; d++) {
		consume_cq_event(&pg->devs[d]->rcq);
		for (unsigned i = 0; i < pg->devs[d]->nscq; i++)
			consume_cq_event(&pg->devs[d]->scq[i]);
	}
}

static bool ops_busy(struct rblk_reactor *r)
{
	return pg_of(r)->nqueues != 0;
}

static void ops_teardown(struct rblk_reactor *r)
{
	struct rblk_poll_group *pg = pg_of(r);

	RBLK_INFO("poll group %u: %llu iterations, %llu sleeps, %llu completions, %llu messages, "
		  "%llu buffer waits (%llu timed out)",
		  pg->opts.id, (unsigned long long)rblk_stat_get(&r->stats.iterations),
		  (unsigned long long)rblk_stat_get(&r->stats.sleeps),
		  (unsigned long long)rblk_stat_get(&pg->stats.wcs),
		  (unsigned long long)rblk_stat_get(&r->stats.msgs),
		  (unsigned long long)rblk_stat_get(&pg->r.core.buf_waits),
		  (unsigned long long)rblk_stat_get(&pg->stats.buf_timeouts));
	for (unsigned d = 0; d < pg->ndevs; d++)
		dev_destroy(pg->devs[d]);
	pg->ndevs = 0;
}

static const struct rblk_reactor_ops pg_reactor_ops = {
	.poll = ops_poll,
	.flush = ops_flush,
	.has_timers = ops_has_timers,
	.tick = ops_tick,
	.work_due = ops_work_due,
	.arm = ops_arm,
	.event = ops_event,
	.take_events = ops_take_events,
	.busy = ops_busy,
	.teardown = ops_teardown,
};

/* ------------------------------------------------------------------------ */
/* Life cycle.                                                               */

int rblk_poll_group_create(const struct rblk_pg_opts *opts, struct rblk_transport *t,
			   struct rblk_poll_group **out)
{
	struct rblk_poll_group *pg = rblk_calloc_lines(1, sizeof(*pg));
	int ret;

	if (!pg)
		return -ENOMEM;
	pg->opts = *opts;
	if (!pg->opts.tick_ms)
		pg->opts.tick_ms = 100;
	pg->t = t;
	TAILQ_INIT(&pg->queues);
	ret = rblk_reactor_init(&pg->r, &pg_reactor_ops, opts->id, opts->mode, opts->tgt);
	if (ret) {
		free(pg);
		return ret;
	}
	*out = pg;
	return 0;
}

void rblk_poll_group_destroy(struct rblk_poll_group *pg)
{
	if (!pg)
		return;
	rblk_reactor_fini(&pg->r);
	free(pg);
}

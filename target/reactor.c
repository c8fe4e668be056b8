/* SPDX-License-Identifier: MIT */
/*
 * The reactor (see reactor.h): the thread, its mailbox, the provider
 * completion lists, the storage engines' turn, adaptive polling and the timer.
 *
 * One iteration: the transport's completions (ops->poll) -> mailbox ->
 * storage engine completions (target/pg_engine.c) and the provider
 * completions -> the transport's waiting work and posts (ops->flush) -> one
 * storage submission per engine -> the timer. Sleeping: the transport arms
 * its sources and looks once more (ops->arm), the engines' eventfds go on and
 * they are polled once more, then epoll_wait on everything, with the next
 * timer deadline as timeout when there are timers (none otherwise, so an
 * idle target without hosts never wakes up). On waking, only the sources
 * epoll reported are read: a sleep costs one system call per source that
 * fired, not one per source. The embedder's loop (rblk_reactor_idle) does
 * not see which fired and resets every source before it sleeps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/log.h"
#include "common/spin.h"
#include "common/util.h"
#include "target/reactor.h"

/* Events per epoll_wait; more are reported by the next one. */
#define REACTOR_EPOLL_EVENTS 32

struct run_on_msg {
	struct rblk_reactor_msg msg;
	void (*fn)(void *arg);
	void *arg;
};

/* The reactor this thread runs (its own thread, or the embedder's loop thread). */
static __thread struct rblk_reactor *self;

static void wake(struct rblk_reactor *r, int fd, const char *what)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		RBLK_WARN("poll group %u: %s wakeup: %s", r->id, what, strerror(errno));
}

static void read_eventfd(struct rblk_reactor *r, int fd, const char *what)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		RBLK_DEBUG("poll group %u: %s eventfd: %s", r->id, what, strerror(errno));
}

/* ------------------------------------------------------------------------ */
/* Mailbox.                                                                  */

void rblk_reactor_post(struct rblk_reactor *r, struct rblk_reactor_msg *msg)
{
	bool was_empty;

	msg->next = NULL;
	pthread_mutex_lock(&r->mbox_lock);
	was_empty = !r->mbox_head;
	*r->mbox_tail = msg;
	r->mbox_tail = &msg->next;
	pthread_mutex_unlock(&r->mbox_lock);
	atomic_store_explicit(&r->mbox_pending, true, memory_order_release);
	/* Only the first message needs to wake the thread; it takes them all. */
	if (was_empty)
		wake(r, r->mbox_fd, "mailbox");
}

static void run_on_fn(struct rblk_reactor_msg *m)
{
	struct run_on_msg *ro = rblk_container_of(m, struct run_on_msg, msg);

	ro->fn(ro->arg);
	free(ro);
}

int rblk_reactor_run_on(struct rblk_reactor *r, void (*fn)(void *arg), void *arg)
{
	/* Control path (AENs, keep-alive): allocation is fine here. */
	struct run_on_msg *ro = malloc(sizeof(*ro));

	if (!ro)
		return -ENOMEM;
	ro->msg.fn = run_on_fn;
	ro->fn = fn;
	ro->arg = arg;
	rblk_reactor_post(r, &ro->msg);
	return 0;
}

static unsigned run_mailbox(struct rblk_reactor *r)
{
	struct rblk_reactor_msg *m, *next;
	unsigned n = 0;

	atomic_store_explicit(&r->mbox_pending, false, memory_order_relaxed);
	read_eventfd(r, r->mbox_fd, "mailbox");
	pthread_mutex_lock(&r->mbox_lock);
	m = r->mbox_head;
	r->mbox_head = NULL;
	r->mbox_tail = &r->mbox_head;
	pthread_mutex_unlock(&r->mbox_lock);
	for (; m; m = next, n++) {
		next = m->next; /* fn may free or re-post m */
		m->fn(m);
	}
	rblk_stat_inc(&r->stats.msgs, n);
	return n;
}

/* ------------------------------------------------------------------------ */
/* Provider completions.                                                     */

void rblk_reactor_complete_io(struct rblk_reactor *r, struct rblk_req *req)
{
	struct rblk_req *old;

	/* The reactor's own thread: in order, without a locked instruction. */
	if (self == r) {
		req->cpl_next = NULL;
		*r->cpl_local_tail = req;
		r->cpl_local_tail = &req->cpl_next;
		return;
	}
	old = atomic_load_explicit(&r->cpl_head, memory_order_relaxed);
	do {
		req->cpl_next = old;
	} while (!atomic_compare_exchange_weak_explicit(&r->cpl_head, &old, req,
							memory_order_release,
							memory_order_relaxed));
	/*
	 * The first completion wakes a sleeping reactor; later ones find the
	 * list non-empty, which the reactor checks before it sleeps.
	 */
	if (!old)
		wake(r, r->cpl_fd, "completion");
}

static unsigned run_local_completions(struct rblk_reactor *r)
{
	struct rblk_req *req = r->cpl_local, *next;
	unsigned n = 0;

	/* Detach first: finishing one may complete another onto the list. */
	r->cpl_local = NULL;
	r->cpl_local_tail = &r->cpl_local;
	for (; req; req = next, n++) {
		next = req->cpl_next;
		rblk_req_io_done(req);
	}
	return n;
}

static unsigned run_completions(struct rblk_reactor *r)
{
	struct rblk_req *list, *fifo = NULL, *next;
	unsigned n = 0;

	if (r->cpl_local)
		n += run_local_completions(r);
	if (!atomic_load_explicit(&r->cpl_head, memory_order_relaxed))
		return n;
	list = atomic_exchange_explicit(&r->cpl_head, NULL, memory_order_acquire);
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
/* The loop.                                                                 */

void rblk_reactor_timer_soon(struct rblk_reactor *r, uint64_t when_ms)
{
	if (!r->ops->has_timers(r) || r->next_tick_ms > when_ms)
		r->next_tick_ms = when_ms;
}

unsigned rblk_reactor_poll(struct rblk_reactor *r)
{
	unsigned n = 0, done = 0;
	uint64_t now;

	/* Nothing from the namespace tables is held uncounted between iterations. */
	rblk_tgt_pg_quiescent(&r->core);
	if (r->idle_asleep) {
		/* Back from the embedder's wait. */
		rblk_tgt_pg_sleep_end(&r->core);
		r->idle_asleep = false;
	}
	rblk_stat_inc(&r->stats.iterations, 1);
	rblk_clock_cache_reset(&r->clock);
	rblk_clock_cache_reset(&r->svc_clock);
	rblk_tgt_pg_storage_awake(&r->core);
	r->awaited = 0;
	n += r->ops->poll(r); /* counts its new commands in awaited */
	if (atomic_load_explicit(&r->mbox_pending, memory_order_acquire))
		done += run_mailbox(r);
	done += rblk_tgt_pg_storage_poll(&r->core);
	done += run_completions(r);
	r->awaited += done;
	n += done;
	/* Commands waiting for QoS credit: before the flush posts what they start. */
	if (r->core.qos_waiting)
		n += rblk_tgt_pg_qos_poll(&r->core);
	n += r->ops->flush(r);
	rblk_tgt_pg_storage_flush(&r->core);

	if (r->ops->has_timers(r)) {
		now = rblk_clock_ms();
		if (now >= r->next_tick_ms) {
			uint64_t next = r->ops->tick(r, now);

			r->next_tick_ms = next > now ? next : now + 1;
			rblk_stat_inc(&r->stats.ticks, 1);
		}
	}
	return n;
}

/*
 * Arms every wakeup source; true if work showed up meanwhile. reset: read
 * the eventfds first (the embedder's loop, which does not learn which source
 * fired); else they are read when epoll reports them.
 */
static bool prepare_sleep(struct rblk_reactor *r, bool reset)
{
	if (r->ops->arm(r))
		return true;
	if (rblk_tgt_pg_storage_sleep(&r->core, reset))
		return true;
	/* Reset before looking: a completion pushed after the look writes it again. */
	if (reset)
		read_eventfd(r, r->cpl_fd, "completion");
	if (r->cpl_local || atomic_load_explicit(&r->cpl_head, memory_order_acquire))
		return true;
	return atomic_load_explicit(&r->mbox_pending, memory_order_acquire);
}

static int next_timeout(struct rblk_reactor *r)
{
	uint64_t now;
	int t;

	if (!r->ops->has_timers(r))
		return r->core.qos_waiting ? RBLK_TGT_QOS_POLL_MS : -1;
	now = rblk_clock_ms();
	t = r->next_tick_ms > now ? (int)(r->next_tick_ms - now) : 0;
	/* QoS credit comes back with time alone: look again soon. */
	if (r->core.qos_waiting && t > RBLK_TGT_QOS_POLL_MS)
		t = RBLK_TGT_QOS_POLL_MS;
	return t;
}

int rblk_reactor_idle(struct rblk_reactor *r)
{
	r->ops->take_events(r);
	if (r->mode == RBLK_POLL_BUSY || prepare_sleep(r, true))
		return 0;
	rblk_stat_inc(&r->stats.sleeps, 1);
	/* The embedder waits now: no grace period waits for it meanwhile. */
	rblk_tgt_pg_offline(&r->core);
	rblk_tgt_pg_sleep_begin(&r->core);
	r->idle_asleep = true;
	return next_timeout(r);
}

/* The reactor's own thread: sleep, then read what epoll says fired, nothing else. */
static void sleep_wait(struct rblk_reactor *r)
{
	struct epoll_event ev[REACTOR_EPOLL_EVENTS];
	int n;

	rblk_stat_inc(&r->stats.sleeps, 1);
	rblk_tgt_pg_offline(&r->core);
	rblk_tgt_pg_sleep_begin(&r->core);
	n = epoll_wait(r->epfd, ev, REACTOR_EPOLL_EVENTS, next_timeout(r));
	rblk_tgt_pg_sleep_end(&r->core);
	if (n < 0 && errno != EINTR)
		RBLK_ERR("poll group %u: epoll_wait: %s", r->id, strerror(errno));
	for (int i = 0; i < n; i++) {
		void *src = ev[i].data.ptr;

		if (src == &r->mbox_fd)
			continue; /* read by run_mailbox, which mbox_pending triggers */
		if (src == &r->cpl_fd)
			read_eventfd(r, r->cpl_fd, "completion");
		else if (rblk_tgt_pg_storage_event(&r->core, src))
			continue; /* a storage engine's: read */
		else if (src)
			r->ops->event(r, src);
	}
}

/* Whether a spin should wait for something: local storage I/O, or the transport's. */
static bool work_due(struct rblk_reactor *r)
{
	unsigned local;

	/*
	 * Only local storage I/O: a remote engine's answers (rbd: a network
	 * round trip to the OSDs, milliseconds) come long after any spin, and a
	 * gateway spinning for them takes the CPU the cluster's client threads
	 * in this process need; their eventfd wakes the reactor.
	 */
	rblk_tgt_pg_storage_inflight(&r->core, &local);
	return local || r->ops->work_due(r);
}

static void loop(struct rblk_reactor *r)
{
	enum rblk_poll_mode mode = r->mode;
	struct rblk_spin spin = { 0 };

	while (!atomic_load_explicit(&r->stop, memory_order_acquire)) {
		if (rblk_reactor_poll(r)) {
			rblk_spin_work(&spin, r->awaited > 0);
			continue;
		}
		if (mode == RBLK_POLL_BUSY)
			continue;
		if (mode == RBLK_POLL_ADAPTIVE &&
		    rblk_spin_empty(&spin, work_due(r), &r->clock) == RBLK_SPIN_POLL)
			continue;
		if (prepare_sleep(r, false)) {
			rblk_spin_work(&spin, false);
			continue;
		}
		sleep_wait(r);
		rblk_spin_slept(&spin);
	}
}

/* ------------------------------------------------------------------------ */
/* The thread.                                                               */

static int epoll_add_tag(int epfd, int fd, void *tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = tag };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static int thread_setup(struct rblk_reactor *r)
{
	int ret;

	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0)
		return -errno;
	/* Each source tagged with its fd's address. */
	ret = epoll_add_tag(r->epfd, r->mbox_fd, &r->mbox_fd);
	if (!ret)
		ret = epoll_add_tag(r->epfd, r->cpl_fd, &r->cpl_fd);
	if (ret) {
		close(r->epfd);
		r->epfd = -1;
		return ret;
	}
	self = r;
	/* Storage engines attach on this thread, their fds on this set. */
	r->core.epfd = r->epfd;
	if (r->tgt && (ret = rblk_tgt_pg_storage_attach(&r->core, r->tgt))) {
		rblk_tgt_pg_storage_detach(&r->core);
		close(r->epfd);
		r->epfd = -1;
		r->core.epfd = -1;
		return ret;
	}
	return 0;
}

static void thread_teardown(struct rblk_reactor *r)
{
	/* Messages posted before the stop still run exactly once. */
	while (r->mbox_head)
		run_mailbox(r);
	if (r->ops->busy(r)) {
		RBLK_WARN("poll group %u: queues still open at stop; leaving them", r->id);
		return;
	}
	/* The storage first: it may hold the transport's pool as fixed buffers. */
	rblk_tgt_pg_storage_detach(&r->core);
	r->ops->teardown(r);
}

static void close_epoll(struct rblk_reactor *r)
{
	if (r->epfd >= 0)
		close(r->epfd);
	r->epfd = -1;
	r->core.epfd = -1;
	if (self == r)
		self = NULL;
}

static void *reactor_thread(void *arg)
{
	struct rblk_reactor *r = arg;
	char name[16];

	snprintf(name, sizeof(name), "rblk-pg%u", r->id);
	pthread_setname_np(pthread_self(), name);
	r->start_ret = thread_setup(r);
	sem_post(&r->ready);
	if (r->start_ret)
		return NULL;
	RBLK_DEBUG("poll group %u: running (%s polling)", r->id,
		   r->mode == RBLK_POLL_BUSY	    ? "busy"
		   : r->mode == RBLK_POLL_EVENT ? "event"
						: "adaptive");
	atomic_store_explicit(&r->core.start_ns, rblk_clock_ns(), memory_order_relaxed);
	loop(r);
	rblk_tgt_pg_offline(&r->core);
	thread_teardown(r);
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* Life cycle.                                                               */

int rblk_reactor_init(struct rblk_reactor *r, const struct rblk_reactor_ops *ops, unsigned id,
		      enum rblk_poll_mode mode, struct rblk_target *tgt)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->ops = ops;
	r->id = id;
	r->mode = mode;
	r->tgt = tgt;
	r->epfd = -1;
	r->core.epfd = -1;
	r->mbox_tail = &r->mbox_head;
	r->cpl_local_tail = &r->cpl_local;
	r->svc_clock.coarse = true;
	r->cpl_fd = -1;
	r->mbox_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->mbox_fd < 0)
		return -errno;
	r->cpl_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->cpl_fd < 0) {
		ret = -errno;
		goto out_close_mbox;
	}
	ret = -pthread_mutex_init(&r->mbox_lock, NULL);
	if (ret)
		goto out_close_cpl;
	r->core.id = id;
	atomic_init(&r->core.qs, 1);
	if (tgt) {
		ret = rblk_tgt_pg_register(tgt, &r->core, id);
		if (ret)
			goto out_mutex;
		r->core_registered = true;
	}
	sem_init(&r->ready, 0, 0);
	return 0;

out_mutex:
	pthread_mutex_destroy(&r->mbox_lock);
out_close_cpl:
	close(r->cpl_fd);
out_close_mbox:
	close(r->mbox_fd);
	return ret;
}

int rblk_reactor_attach(struct rblk_reactor *r)
{
	int ret;

	if (r->running || r->inline_loop)
		return -EBUSY;
	ret = thread_setup(r);
	if (ret) {
		close_epoll(r);
		return ret;
	}
	r->inline_loop = true;
	atomic_store_explicit(&r->core.start_ns, rblk_clock_ns(), memory_order_relaxed);
	return 0;
}

void rblk_reactor_detach(struct rblk_reactor *r)
{
	if (!r->inline_loop)
		return;
	rblk_tgt_pg_offline(&r->core);
	thread_teardown(r);
	r->inline_loop = false;
	close_epoll(r);
}

int rblk_reactor_start(struct rblk_reactor *r)
{
	int ret;

	if (r->running)
		return 0;
	atomic_store(&r->stop, false);
	ret = -pthread_create(&r->thread, NULL, reactor_thread, r);
	if (ret)
		return ret;
	while (sem_wait(&r->ready) && errno == EINTR)
		;
	if (r->start_ret) {
		pthread_join(r->thread, NULL);
		close_epoll(r);
		return r->start_ret;
	}
	r->running = true;
	return 0;
}

void rblk_reactor_stop(struct rblk_reactor *r)
{
	uint64_t one = 1;

	if (!r->running)
		return;
	atomic_store_explicit(&r->stop, true, memory_order_release);
	if (write(r->mbox_fd, &one, sizeof(one)) < 0)
		RBLK_DEBUG("poll group %u: stop wakeup: %s", r->id, strerror(errno));
	pthread_join(r->thread, NULL);
	r->running = false;
	close_epoll(r);
}

void rblk_reactor_fini(struct rblk_reactor *r)
{
	rblk_reactor_stop(r);
	rblk_reactor_detach(r);
	if (r->core_registered)
		rblk_tgt_pg_unregister(r->tgt, &r->core);
	sem_destroy(&r->ready);
	pthread_mutex_destroy(&r->mbox_lock);
	close(r->mbox_fd);
	close(r->cpl_fd);
}

/* SPDX-License-Identifier: MIT */
/*
 * The embedder's loop (RBLK_THREADS_EMBEDDER): the whole RDMA transport on
 * the embedder's own thread. One poll group is set up on the thread that
 * calls rblk_target_start() (its io_uring ring is bound to that thread), the
 * CM channel's fd and the target's stop eventfd join the group's epoll set,
 * and that epoll fd is what the embedder waits on. No thread is started.
 *
 * One call of rblk_rdma_transport_poll() is one iteration of the group's loop plus
 * the CM events; when it found nothing it arms every wakeup source and tells
 * the caller how long it may sleep on the fd. Waits inside the core (a
 * namespace or subsystem draining) call rblk_rdma_transport_idle_wait(), which on
 * the loop thread keeps polling: nothing else would move the I/O they wait
 * for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "target/rdma/listener.h"
#include "target/rdma/poll_group.h"

#define LOOP_STOP_TIMEOUT_MS 30000

static bool on_loop_thread(const struct rblk_transport *t)
{
	return t && t->embedded && t->started && pthread_equal(pthread_self(), t->loop_thread);
}

static int epoll_add(int epfd, int fd)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = fd;
	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int rblk_rdma_loop_start(struct rblk_transport *t, struct rblk_pg_opts *po)
{
	struct rblk_poll_group *pg;
	int ret;

	t->pgs = calloc(1, sizeof(*t->pgs));
	if (!t->pgs)
		return -ENOMEM;
	po->id = 0;
	ret = rblk_poll_group_create(po, t, &pg);
	if (ret)
		goto out_free;
	ret = rblk_reactor_attach(&pg->r);
	if (ret) {
		RBLK_ERR("cannot set up the poll group on this thread: %s", strerror(-ret));
		goto out_destroy;
	}
	ret = epoll_add(pg->r.epfd, rblk_cm_channel_fd(t->ch));
	if (!ret)
		ret = epoll_add(pg->r.epfd, rblk_tgt_stop_fd(t->tgt));
	if (ret)
		goto out_destroy;
	t->pgs[0] = pg;
	t->npg = 1;
	t->loop_thread = pthread_self();
	return 0;

out_destroy:
	rblk_poll_group_destroy(pg);
out_free:
	free(t->pgs);
	t->pgs = NULL;
	return ret;
}

/* One iteration: CM events, then the poll group. The work done. */
static unsigned loop_once(struct rblk_transport *t)
{
	return rblk_rdma_cm_drain(t) + rblk_reactor_poll(&t->pgs[0]->r);
}

void rblk_rdma_loop_stop(struct rblk_transport *t)
{
	struct rblk_poll_group *pg = t->pgs[0];
	uint64_t deadline = rblk_clock_ms() + LOOP_STOP_TIMEOUT_MS;
	struct epoll_event ev[8];
	unsigned left;

	if (!pthread_equal(pthread_self(), t->loop_thread))
		RBLK_ERR("target stopped from a thread other than its loop's: I/O may hang");
	rblk_rdma_disconnect_all(pg);
	for (;;) {
		pthread_mutex_lock(&t->qlock);
		left = t->admit.queues;
		pthread_mutex_unlock(&t->qlock);
		if (!left || rblk_clock_ms() >= deadline)
			break;
		if (!loop_once(t))
			epoll_wait(pg->r.epfd, ev, 8, 10);
	}
	if (left)
		RBLK_WARN("RDMA transport: %u queues did not drain in %d s", left,
			  LOOP_STOP_TIMEOUT_MS / 1000);
	rblk_poll_group_destroy(pg);
	free(t->pgs);
	t->pgs = NULL;
	t->npg = 0;
}

int rblk_rdma_transport_fd(struct rblk_transport *t)
{
	if (!t->embedded || !t->started)
		return -EINVAL;
	return t->pgs[0]->r.epfd;
}

int rblk_rdma_transport_poll(struct rblk_transport *t, int *timeout_ms)
{
	unsigned n;

	if (!t->embedded || !t->started)
		return -EINVAL;
	if (!pthread_equal(pthread_self(), t->loop_thread))
		return -EPERM;
	n = loop_once(t);
	*timeout_ms = n ? 0 : rblk_reactor_idle(&t->pgs[0]->r);
	/* A listener whose device went away: the embedder's loop comes back to listen again. */
	if (t->listeners_waiting) {
		int relisten = rblk_rdma_relisten(t);

		if (relisten >= 0 && (*timeout_ms < 0 || relisten < *timeout_ms))
			*timeout_ms = relisten;
	}
	return (int)(n > INT32_MAX ? INT32_MAX : n);
}

void rblk_rdma_transport_idle_wait(struct rblk_transport *t, unsigned us)
{
	struct epoll_event ev[8];

	if (!on_loop_thread(t)) {
		usleep(us);
		return;
	}
	if (!loop_once(t))
		epoll_wait(t->pgs[0]->r.epfd, ev, 8, (int)((us + 999) / 1000));
}

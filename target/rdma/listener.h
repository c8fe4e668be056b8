/* SPDX-License-Identifier: MIT */
/*
 * The RDMA transport object the core holds (struct rblk_transport, opaque in
 * target/fabric.h): listeners, the CM thread, the poll groups. Private to
 * target/rdma/listener.c and target/rdma/queue.c; kept out of rdma.h so unit tests can
 * link the request code with the test transport's own struct rblk_transport.
 */
#ifndef RBLK_TARGET_RDMA_LISTENER_H
#define RBLK_TARGET_RDMA_LISTENER_H

#include "target/rdma/rdma.h"

struct rblk_rdma_listener {
	struct rblk_transport *t;
	struct rblk_listener *l;
	/*
	 * NULL while the address's device is gone (DEVICE_REMOVAL, e.g. a NIC
	 * reset, or ADDR_CHANGE): the CM thread listens again every
	 * RBLK_RELISTEN_MS until the address is on an RDMA device once more.
	 */
	struct rblk_cm_id *id;
	struct sockaddr_storage addr;
	uint64_t relisten_ms;             /* next attempt (rblk_clock_ms()) */
	unsigned relisten_tries;
	struct rblk_rdma_listener *next;
};

#define RBLK_RELISTEN_MS 1000

#define RBLK_CM_DEV_CACHE 8

struct rblk_transport {
	struct rblk_target *tgt;
	pthread_mutex_t ctl_lock;         /* start/stop */
	pthread_mutex_t lock;             /* listeners; stopping vs. new queues */
	struct rblk_cm_channel *ch;       /* every listener and every queue's id */
	struct rblk_rdma_listener *listeners;
	unsigned listeners_waiting;       /* without an id (device gone); under lock */
	/*
	 * Devices that went away whose poll groups still free what they hold
	 * on them (struct rblk_rdma_gone); no listener listens again before
	 * that is done, so no new id can make librdmacm close a context that
	 * a group still uses.
	 */
	atomic_uint gone_pending;
	struct rblk_rdma_gone *gone[RBLK_CM_DEV_CACHE]; /* CM thread only */
	unsigned ngone;
	pthread_t cm_thread;
	int cm_stop_fd;                   /* eventfd: the CM thread exits */
	bool started;
	atomic_bool stopping;             /* refuse new connections */
	bool no_invalidate;               /* RBLK_RDMA_NO_INVALIDATE=1: never SEND_WITH_INV */

	struct {
		struct rblk_device *dev;
		struct rblk_device_attr attr;
	} dev_cache[RBLK_CM_DEV_CACHE];    /* CM thread only */
	unsigned ndev_cache;

	unsigned npg;
	struct rblk_poll_group **pgs;
	unsigned next_pg;                 /* round robin (CM thread) */

	bool embedded;                    /* RBLK_THREADS_EMBEDDER: loop.c, no threads */
	pthread_t loop_thread;            /* embedded: the thread that started it */

	pthread_mutex_t qlock;            /* admit, queues_cv */
	pthread_cond_t queues_cv;         /* admit.queues fell */
	/* Admission (admit.c): allocated queue objects, which of them pending, counters. */
	struct rblk_rdma_admit_table admit;
};

extern const struct rblk_transport_ops rblk_rdma_transport_ops;
extern const struct rblk_fabric_ops rblk_rdma_fabric; /* fabric.c */

/* Handles every pending CM event (the CM thread, or the embedder's loop); how many. */
unsigned rblk_rdma_cm_drain(struct rblk_transport *t);
/*
 * Listens again on each address whose device went away, when due (CM
 * thread, or the embedder's loop). Milliseconds until the next attempt, or
 * -1 when no listener waits.
 */
int rblk_rdma_relisten(struct rblk_transport *t);
/* On a poll group's thread: start disconnecting each of its queues (arg: the group). */
void rblk_rdma_disconnect_all(void *arg);

/*
 * loop.c, the embedder's loop (RBLK_THREADS_EMBEDDER): one poll group set up
 * on the calling thread, the CM channel polled from it, no thread started.
 * start: with ctl_lock held, instead of threads. stop: with ctl_lock held and
 * `stopping` set, on the loop thread; disconnects every queue, polls until
 * they are gone, tears the group down.
 */
struct rblk_pg_opts;
int rblk_rdma_loop_start(struct rblk_transport *t, struct rblk_pg_opts *po);
void rblk_rdma_loop_stop(struct rblk_transport *t);

/*
 * The RDMA engine's side of struct rblk_fabric_ops (target/fabric.h says what
 * each does): listener.c owns the transport's life and listeners, loop.c the
 * embedder's loop and the core's idle waits. fabric.c puts them in the table.
 */
int rblk_rdma_transport_create(struct rblk_target *tgt, struct rblk_transport **out);
void rblk_rdma_transport_destroy(struct rblk_transport *t);
int rblk_rdma_transport_listen(struct rblk_transport *t, struct rblk_listener *l);
int rblk_rdma_transport_start(struct rblk_transport *t);
void rblk_rdma_transport_stop(struct rblk_transport *t);
void rblk_rdma_transport_idle_wait(struct rblk_transport *t, unsigned us);
int rblk_rdma_transport_fd(struct rblk_transport *t);
int rblk_rdma_transport_poll(struct rblk_transport *t, int *timeout_ms);
/* admit.c: the admission counters, under t->qlock. */
void rblk_rdma_admit_stats(struct rblk_transport *t, struct rblk_fabric_admit_stats *out);

#endif

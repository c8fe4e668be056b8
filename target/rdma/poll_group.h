/* SPDX-License-Identifier: MIT */
/*
 * Poll groups: the target's reactors as the RDMA engine sees them. Each is a
 * reactor (target/reactor.h: one thread, its mailbox, completion lists,
 * storage engines, adaptive polling, timer) plus, owned here,
 *   - per RDMA device it serves: a PD, a receive CQ and send CQs shared by
 *     all its QPs (each with a completion channel for sleeping), one shared
 *     receive queue (target/rdma/srq.c) and one registered buffer pool, whose
 *     memory is offered to the storage engines (io_uring fixed buffers:
 *     disk <-> pool <-> NIC without a copy);
 *   - its NVMe/RDMA queues, and their keep-alive ticks.
 * The reactor calls back (struct rblk_reactor_ops) to reap the CQs, post the
 * queues' work, run their timers and arm the CQs before it sleeps.
 */
#ifndef RBLK_TARGET_POLL_GROUP_H
#define RBLK_TARGET_POLL_GROUP_H

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rblk/target.h>

#include "target/fabric.h"
#include "target/reactor.h"
#include "transport/rdma.h"

#define RBLK_PG_MAX_DEVS 8
#define RBLK_PG_WC_BATCH 32
#define RBLK_PG_BQ_BATCH 32
/* Tick period of a group without admin queues (ms). */
#define RBLK_PG_IDLE_TICK_MS 1000
/* CQ entries per CQ (bounded by the device's max_cqe). */
#define RBLK_PG_CQ_SIZE 32768
/* Send CQs per device context: 8 x 32767 entries, over 900 queues of depth 128. */
#define RBLK_PG_MAX_SCQ 8

struct rblk_poll_group;
struct rblk_rdma_queue;
struct rblk_rdma_req;
struct rblk_rdma_srq;
struct rblk_transport;

/* A FIFO of requests waiting for one resource. */
TAILQ_HEAD(rblk_rdma_reqq, rblk_rdma_req);

/* One CQ of a device context; its channel is on the group's epoll set. */
struct rblk_pg_cq {
	struct rblk_cq *cq;
	uint32_t free;                    /* entries no queue has reserved */
	bool armed;                       /* armed, its event not consumed yet */
};

/*
 * One RDMA device as seen by one poll group.
 *
 * Receives and sends complete on separate CQs, shared by all the device's
 * QPs in the group. The receive CQ is armed whenever the group sleeps: a
 * capsule is new work. The send CQ (RDMA READ, WRITE and response SEND) is
 * armed only while something waits for it (rblk_rdma_queue_send_awaited(),
 * or commands waiting for buffer units): a response's completion only frees
 * its slot, and is reaped by the next wakeup instead of causing one.
 */
struct rblk_pg_dev {
	struct rblk_poll_group *pg;
	struct rblk_device *device;
	struct rblk_device_attr attr;
	struct rblk_pd *pd;
	struct rblk_pg_cq rcq;            /* receives */
	/*
	 * Sends, RDMA READs and WRITEs: a QP reserves its whole send queue on
	 * one of them (in error every WR completes), so a device's largest CQ
	 * bounds the queues per CQ; more CQs are added as queues arrive.
	 */
	struct rblk_pg_cq scq[RBLK_PG_MAX_SCQ];
	unsigned nscq;
	struct rblk_mr_pool *pool;        /* I/O buffer units (LOCAL_WRITE) */
	struct rblk_rdma_srq *srq;        /* shared receives, or NULL: per queue */
	bool group_bufs;                  /* pool = the group's I/O buffers (the engines') */
	unsigned nqueues;                 /* queues on it (rblk_pg_dev_get/put) */
	struct rblk_rdma_gone *gone;      /* the device went away: freed with its last queue */
	struct rblk_rdma_reqq pending_buf; /* requests waiting for units, FIFO */
};

struct rblk_pg_opts {
	struct rblk_target *tgt;          /* registers the group's core share (NULL: none) */
	unsigned id;
	enum rblk_poll_mode mode;
	uint32_t io_unit_size;            /* pool unit */
	uint32_t num_units;               /* pool units per device */
	uint32_t tick_ms;                 /* keep-alive tick period */
	uint32_t srq_depth;               /* shared receives per device, 0: per queue */
	uint32_t icd_size;                /* in-capsule data per shared receive */
};

/* Written by the group's thread only (rblk_stat_inc), read by anyone. */
struct rblk_pg_stats {
	_Atomic uint64_t wcs;             /* work completions handled */
	/* (requests that had to wait for pool units: r.core.buf_waits, for the core's statistics) */
	_Atomic uint64_t buf_timeouts;    /* waited, and gave up after RBLK_RDMA_BUF_WAIT_MS */
};

struct rblk_poll_group {
	struct rblk_reactor r;            /* the loop; r.core is the group's core share */
	struct rblk_pg_opts opts;
	struct rblk_transport *t;         /* NULL in unit tests */
	struct rblk_pg_dev *devs[RBLK_PG_MAX_DEVS];
	unsigned ndevs;
	bool bufs_offered;                /* a pool went to the engines (once per group) */
	TAILQ_HEAD(, rblk_rdma_queue) queues;
	unsigned nqueues;
	struct rblk_pg_stats stats;
};

/*
 * Allocates a group (no thread yet: rblk_reactor_start(&pg->r), or
 * rblk_reactor_attach() for the embedder's loop).
 */
int rblk_poll_group_create(const struct rblk_pg_opts *opts, struct rblk_transport *t,
			   struct rblk_poll_group **out);
/*
 * Stops the thread (its queues must be gone: see rblk_rdma_transport_stop),
 * runs the remaining messages, frees the device contexts, frees the group.
 * NULL is fine.
 */
void rblk_poll_group_destroy(struct rblk_poll_group *pg);

/*
 * Group thread: the context for device (created on first use: PD, CQ and
 * pool; the first device's pool is offered to the storage engines as their
 * fixed buffers).
 */
int rblk_pg_dev_get(struct rblk_poll_group *pg, struct rblk_device *device,
		    struct rblk_pg_dev **out);
/*
 * Group thread: a queue of rblk_pg_dev_get() is gone (its QP and pools
 * destroyed, its cm id not yet: librdmacm may close the device's context
 * with its last id). The last queue of a device that went away frees the
 * group's context of it.
 */
void rblk_pg_dev_put(struct rblk_pg_dev *dev);
/*
 * Any thread: g->dev went away. On the group's thread, the group frees its
 * context of it (now, or with its last queue on it) and puts g.
 */
void rblk_pg_device_gone(struct rblk_poll_group *pg, struct rblk_rdma_gone *g);
/*
 * Group thread: reserve / give back CQ entries for a QP: nsend on a send CQ
 * with room (*scq; a new CQ when none has, -ENOSPC past RBLK_PG_MAX_SCQ),
 * nrecv on the receive CQ. scq may be NULL when nsend is 0.
 */
int rblk_pg_dev_reserve_cq(struct rblk_pg_dev *dev, uint32_t nsend, uint32_t nrecv,
			   struct rblk_pg_cq **scq);
void rblk_pg_dev_release_cq(struct rblk_pg_dev *dev, struct rblk_pg_cq *scq, uint32_t nsend,
			    uint32_t nrecv);
/*
 * Group thread: handles every completion on the receive CQ. Run after a QP
 * on a shared receive queue is destroyed, so that none of its receive
 * completions is left for a later QP that gets the same number.
 */
void rblk_pg_dev_drain_rcq(struct rblk_pg_dev *dev);

/* Group thread: add / remove a queue (ticks, flushes, stop). */
void rblk_poll_group_add_queue(struct rblk_poll_group *pg, struct rblk_rdma_queue *q);
void rblk_poll_group_remove_queue(struct rblk_poll_group *pg, struct rblk_rdma_queue *q);

#endif

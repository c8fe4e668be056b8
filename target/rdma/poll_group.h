/* SPDX-License-Identifier: MIT */
/*
 * Poll groups: the target's reactors. One thread each, owning
 *   - per RDMA device it serves: a PD, a receive CQ and send CQs shared by
 *     all its QPs (each with a completion channel for sleeping), one shared
 *     receive queue (target/rdma/srq.c) and one registered buffer pool, whose
 *     memory is offered to the storage engines (io_uring fixed buffers:
 *     disk <-> pool <-> NIC without a copy);
 *   - its side of the storage engines (target/pg_engine.c: one io_uring
 *     ring for all the group's files, attached at first use);
 *   - a mailbox (eventfd + list) through which other threads reach it;
 *   - its NVMe/RDMA queues, and their keep-alive ticks.
 * Polling is adaptive (docs/architecture.md §2.5): busy while work arrives, then arm the
 * CQs and the storage eventfds and sleep in epoll_wait; an idle group costs
 * no CPU. RBLK_POLL_BUSY never sleeps; RBLK_POLL_EVENT sleeps whenever an
 * iteration found nothing. Where every doorbell and precise clock read is a
 * system call (Soft-RoCE, an hpet clocksource), the loop counts them: an
 * empty iteration makes none, and a sleep costs the epoll_wait plus one
 * system call per wakeup source that actually fired.
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

#include "common/clock.h"
#include "target/fabric.h"
#include "common/spin.h"
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

/*
 * A message for a poll group's thread. Embedded in its owner (no allocation
 * on the way) or allocated by rblk_poll_group_run_on().
 */
struct rblk_pg_msg {
	void (*fn)(struct rblk_pg_msg *msg);
	struct rblk_pg_msg *next;
};

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
	_Atomic uint64_t iterations;
	_Atomic uint64_t sleeps;          /* times it went to epoll_wait */
	_Atomic uint64_t wcs;             /* work completions handled */
	_Atomic uint64_t msgs;            /* mailbox messages run */
	_Atomic uint64_t ticks;
	_Atomic uint64_t buf_waits;       /* requests that had to wait for pool units */
	_Atomic uint64_t buf_timeouts;    /* ... and gave up after RBLK_RDMA_BUF_WAIT_MS */
};

struct rblk_poll_group {
	struct rblk_pg_opts opts;
	struct rblk_transport *t;         /* NULL in unit tests */
	pthread_t thread;
	bool running;
	sem_t ready;                      /* thread start-up finished (start_ret) */
	int start_ret;
	atomic_bool stop;

	int epfd;
	int mbox_fd;                      /* eventfd: the mailbox has messages */
	pthread_mutex_t mbox_lock;
	struct rblk_pg_msg *mbox_head;
	struct rblk_pg_msg **mbox_tail;
	atomic_bool mbox_pending;

	struct rblk_clock_cache clock;    /* "now" of this iteration (the spin window) */
	struct rblk_clock_cache svc_clock; /* coarse "now" of this iteration (sq->clock) */
	/*
	 * This iteration's work that a spin waits for: capsules received,
	 * storage and remote completions, mailbox items; not send completions.
	 */
	unsigned awaited;

	/*
	 * Provider completions (any thread), pushed LIFO without a lock; cpl_fd
	 * is written by whoever pushes onto an empty list from another thread.
	 */
	_Atomic(struct rblk_req *) cpl_head;
	/*
	 * Completions on the group's own thread (the storage engines, a
	 * provider that completes inside submit): a plain FIFO, no atomics.
	 */
	struct rblk_req *cpl_local;
	struct rblk_req **cpl_local_tail;
	int cpl_fd;
	bool inline_loop;                 /* driven by the embedder's thread, no own thread */

	struct rblk_pg_dev *devs[RBLK_PG_MAX_DEVS];
	unsigned ndevs;

	TAILQ_HEAD(, rblk_rdma_queue) queues;
	unsigned nqueues;
	uint64_t next_tick_ms;
	struct rblk_pg_stats stats;
	/*
	 * The core's share (its counter slot, quiescent states): registered with
	 * opts.tgt as slot opts.id while the group exists; every queue's sq
	 * points at it.
	 */
	struct rblk_tgt_pg core;
	bool core_registered;
};

/* Allocates a group (no thread yet). */
int rblk_poll_group_create(const struct rblk_pg_opts *opts, struct rblk_transport *t,
			   struct rblk_poll_group **out);
/* Starts its thread; returns the thread's set-up result. */
int rblk_poll_group_start(struct rblk_poll_group *pg);
/*
 * Stops the thread (its queues must be gone: see rblk_rdma_transport_stop), runs
 * the remaining messages, frees the device contexts. Idempotent.
 */
void rblk_poll_group_stop(struct rblk_poll_group *pg);
/* Stops if needed and frees. NULL is fine. */
void rblk_poll_group_destroy(struct rblk_poll_group *pg);

/* Any thread: queue msg for the group's thread (runs in order, exactly once). */
void rblk_poll_group_post(struct rblk_poll_group *pg, struct rblk_pg_msg *msg);
/* Any thread: run fn(arg) on the group's thread. 0 or -ENOMEM. */
int rblk_poll_group_run_on(struct rblk_poll_group *pg, void (*fn)(void *arg), void *arg);
/* Any thread: rblk_req_io_done(req) on the group's thread (the core's complete_io). */
void rblk_poll_group_complete_io(struct rblk_poll_group *pg, struct rblk_req *req);

/*
 * The embedder's loop: set the group up on the calling thread instead of
 * starting one (its storage engines bind to this thread), and tear it down
 * there. Between the two, the embedder calls rblk_poll_group_poll() and
 * rblk_poll_group_idle() on that thread; pg->epfd is what it waits on.
 */
int rblk_poll_group_attach(struct rblk_poll_group *pg);
void rblk_poll_group_detach(struct rblk_poll_group *pg);
/*
 * After an iteration that did nothing: arms every wakeup source. Returns how
 * long (ms) the caller may wait on pg->epfd before the next iteration: 0 when
 * work showed up meanwhile, -1 when only an event can bring work.
 */
int rblk_poll_group_idle(struct rblk_poll_group *pg);

/*
 * Group thread: the context for device (created on first use: PD, CQ and
 * pool; the first device's pool is offered to the storage engines as their
 * fixed buffers).
 */
int rblk_pg_dev_get(struct rblk_poll_group *pg, struct rblk_device *device,
		    struct rblk_pg_dev **out);
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

/*
 * One iteration of the loop (tests and the thread): completions, mailbox,
 * storage, waiting work, flushes, ticks. Returns the work done (0 = idle).
 */
unsigned rblk_poll_group_poll(struct rblk_poll_group *pg);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The reactor: one thread's event loop, apart from any transport. It owns
 *   - the thread (or runs on the embedder's, RBLK_THREADS_EMBEDDER);
 *   - a mailbox (eventfd + list) through which other threads reach it;
 *   - the provider completion lists (any thread -> this one);
 *   - the storage engines' side (target/pg_engine.c, through its core share);
 *   - the per-iteration clocks, the spin (common/spin.h) and the timer;
 *   - adaptive polling: busy while work arrives, then arm every wakeup
 *     source and sleep in epoll_wait; an idle reactor costs no CPU.
 * A transport engine (target/rdma/poll_group.c) embeds one and gives it a
 * struct rblk_reactor_ops for what is its own: reaping its completion
 * queues, posting its queues' work, its timers, arming its sources before a
 * sleep. Where every doorbell and precise clock read is a system call
 * (Soft-RoCE, an hpet clocksource), the loop counts them: an empty iteration
 * makes none, and a sleep costs the epoll_wait plus one system call per
 * wakeup source that actually fired.
 */
#ifndef RBLK_TARGET_REACTOR_H
#define RBLK_TARGET_REACTOR_H

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rblk/target.h>

#include "common/clock.h"
#include "target/fabric.h"

struct rblk_reactor;

/*
 * A message for a reactor's thread. Embedded in its owner (no allocation on
 * the way) or allocated by rblk_reactor_run_on().
 */
struct rblk_reactor_msg {
	void (*fn)(struct rblk_reactor_msg *msg);
	struct rblk_reactor_msg *next;
};

/* What the transport brings to the loop; all on the reactor's thread. */
struct rblk_reactor_ops {
	/*
	 * Reaps the transport's completions; adds to r->awaited those that
	 * are new work a spin waits for (received commands). Returns how many.
	 */
	unsigned (*poll)(struct rblk_reactor *r);
	/*
	 * After every completion of the iteration: requests waiting for
	 * resources, one post per queue. Returns the progress made.
	 */
	unsigned (*flush)(struct rblk_reactor *r);
	/* Whether there are timers at all (no: an idle reactor sleeps for ever). */
	bool (*has_timers)(struct rblk_reactor *r);
	/* The timers, when due: returns when they next need a look (ms clock). */
	uint64_t (*tick)(struct rblk_reactor *r, uint64_t now_ms);
	/* Whether a completion the transport waits for is due soon (spin for it). */
	bool (*work_due)(struct rblk_reactor *r);
	/*
	 * Before a sleep: arm the transport's wakeup sources, and look once
	 * more. true: work showed up, do not sleep.
	 */
	bool (*arm)(struct rblk_reactor *r);
	/* epoll reported tag, one of the transport's: take its event. */
	void (*event)(struct rblk_reactor *r, void *tag);
	/* The embedder's loop, which does not learn which source fired: take them all. */
	void (*take_events)(struct rblk_reactor *r);
	/* Whether the transport still has queues (then the thread cannot tear down). */
	bool (*busy)(struct rblk_reactor *r);
	/* On the thread at the end, after the storage let go: free the transport's state. */
	void (*teardown)(struct rblk_reactor *r);
};

/* Written by the reactor's thread only (rblk_stat_inc), read by anyone. */
struct rblk_reactor_stats {
	_Atomic uint64_t iterations;
	_Atomic uint64_t sleeps;          /* times it went to epoll_wait */
	_Atomic uint64_t msgs;            /* mailbox messages run */
	_Atomic uint64_t ticks;
};

struct rblk_reactor {
	const struct rblk_reactor_ops *ops;
	unsigned id;
	enum rblk_poll_mode mode;
	struct rblk_target *tgt;          /* registers the core share (NULL: none) */
	pthread_t thread;
	bool running;
	bool inline_loop;                 /* driven by the embedder's thread, no own thread */
	sem_t ready;                      /* thread start-up finished (start_ret) */
	int start_ret;
	atomic_bool stop;

	int epfd;
	int mbox_fd;                      /* eventfd: the mailbox has messages */
	pthread_mutex_t mbox_lock;
	struct rblk_reactor_msg *mbox_head;
	struct rblk_reactor_msg **mbox_tail;
	atomic_bool mbox_pending;

	/*
	 * Provider completions (any thread), pushed LIFO without a lock; cpl_fd
	 * is written by whoever pushes onto an empty list from another thread.
	 */
	_Atomic(struct rblk_req *) cpl_head;
	/*
	 * Completions on the reactor's own thread (the storage engines, a
	 * provider that completes inside submit): a plain FIFO, no atomics.
	 */
	struct rblk_req *cpl_local;
	struct rblk_req **cpl_local_tail;
	int cpl_fd;

	struct rblk_clock_cache clock;    /* "now" of this iteration (the spin window) */
	struct rblk_clock_cache svc_clock; /* coarse "now" of this iteration (sq->clock) */
	/*
	 * This iteration's work that a spin waits for: commands received,
	 * storage and remote completions, mailbox items; not send completions.
	 */
	unsigned awaited;
	uint64_t next_tick_ms;
	bool idle_asleep;                 /* the embedder's loop went to wait for work */
	struct rblk_reactor_stats stats;
	/*
	 * The core's share (its counter slot, quiescent states, storage
	 * engines): registered with tgt as slot id while the reactor exists.
	 */
	struct rblk_tgt_pg core;
	bool core_registered;
};

/* Sets r up (no thread yet): fds, and the core share when tgt is set. 0 or -errno. */
int rblk_reactor_init(struct rblk_reactor *r, const struct rblk_reactor_ops *ops, unsigned id,
		      enum rblk_poll_mode mode, struct rblk_target *tgt);
/* Stops it if running and frees what init took. */
void rblk_reactor_fini(struct rblk_reactor *r);
/* Starts its thread ("rblk-pgN"); returns the thread's set-up result. */
int rblk_reactor_start(struct rblk_reactor *r);
/* Stops the thread: runs the remaining messages, lets the storage and the transport go. */
void rblk_reactor_stop(struct rblk_reactor *r);
/*
 * The embedder's loop: set up on the calling thread instead of starting
 * one, and tear down there. Between the two, the embedder calls
 * rblk_reactor_poll() and rblk_reactor_idle() on that thread; r->epfd is
 * what it waits on.
 */
int rblk_reactor_attach(struct rblk_reactor *r);
void rblk_reactor_detach(struct rblk_reactor *r);
/*
 * After an iteration that did nothing: arms every wakeup source. Returns how
 * long (ms) the caller may wait on r->epfd: 0 when work showed up meanwhile,
 * -1 when only an event can bring work.
 */
int rblk_reactor_idle(struct rblk_reactor *r);
/* One iteration of the loop. Returns the work done (0 = idle). */
unsigned rblk_reactor_poll(struct rblk_reactor *r);
/*
 * A new timer is due within tick_ms: the reactor looks at its timers then
 * at the latest (reactor thread).
 */
void rblk_reactor_timer_soon(struct rblk_reactor *r, uint64_t when_ms);

/* Any thread: queue msg for the reactor's thread (runs in order, exactly once). */
void rblk_reactor_post(struct rblk_reactor *r, struct rblk_reactor_msg *msg);
/* Any thread: run fn(arg) on the reactor's thread. 0 or -ENOMEM. */
int rblk_reactor_run_on(struct rblk_reactor *r, void (*fn)(void *arg), void *arg);
/* Any thread: rblk_req_io_done(req) on the reactor's thread (the core's complete_io). */
void rblk_reactor_complete_io(struct rblk_reactor *r, struct rblk_req *req);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The in-process fabric: transport/rdma.h implemented in memory, so that
 * rblk-target's own code (listener, queues, poll groups, request state
 * machine, WR chains, SRQ, core) runs unchanged on the host's CPU without
 * an RDMA device. Only bench/target_cpu links it; the product never does.
 *
 * What it models, and how:
 *   - CM: channels are an event list with an eventfd (epoll-able, as the
 *     target's CM thread wants); connect finds the listener by address and
 *     queues CONNECT_REQUEST with the host's private data; accept links the
 *     two QPs and queues ESTABLISHED on both sides; destroying an id waits
 *     for its events to be acked (rdma_cm's rule the target relies on).
 *   - Memory: MRs live in a key table; every SGE's lkey and every WR's rkey
 *     is checked against it (range, access, PD of the right side).
 *   - Data: a flushed send chain is executed at once, in the flushing
 *     thread: RDMA WRITE and READ are memcpy to/from the peer's memory, a
 *     SEND fills the peer's next posted receive (its QP's or its SRQ's) or,
 *     when a host driver is attached to the peer QP, goes to that driver.
 *     Signaled WRs and receives complete on their CQ, as a NIC would.
 *   - Threads: a CQ belongs to the thread that first polls it. Work from
 *     that thread lands in the CQ's ring directly (no atomics); work from
 *     any other thread (the host during set-up) goes to the CQ's inbox, a
 *     locked list the owner drains when one relaxed load says it is
 *     non-empty. So the measured loop, all on one poll group's thread, has
 *     no shared writes.
 *   - Time: every entry point of the seam is timed with the TSC into the
 *     calling thread's counters (fab_self), so a benchmark can take the
 *     fabric's share out of a thread's CPU time.
 */
#ifndef RBLK_BENCH_FABRIC_H
#define RBLK_BENCH_FABRIC_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "common/util.h"
#include "transport/rdma.h"

/* ------------------------------------------------------------------------ */
/* Time spent in the fabric, per thread.                                     */

/* One thread's counters: written by that thread only, read by any. */
struct fab_thread {
	_Atomic uint64_t ticks;           /* TSC ticks inside fabric entry points */
	_Atomic uint64_t calls;           /* entry points timed */
	_Atomic uint64_t preempted;       /* calls left out: the thread was switched out */
	_Atomic uint64_t preempted_ticks;
	uint64_t switches;                /* context switches seen at the last check */
	pthread_t tid;
	bool known;                       /* tid is set */
};

extern __thread struct fab_thread fab_self __attribute__((tls_model("initial-exec")));

/*
 * A timed call longer than this (ticks) is checked for a context switch:
 * the TSC runs on while the thread is switched out, so such a call would
 * count another thread's time as the fabric's. UINT64_MAX: never checked.
 */
extern uint64_t fab_long_ticks;
/* Whether the calling thread was switched out since the last check. */
bool fab_switched(void);

static inline uint64_t fab_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
#endif
}

/* Single writer: a plain add, no locked instruction. */
static inline void fab_add(_Atomic uint64_t *c, uint64_t v)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
			      memory_order_relaxed);
}

static inline void fab_leave(uint64_t t0)
{
	uint64_t d = fab_ticks() - t0;

	if (__builtin_expect(d > fab_long_ticks, 0) && fab_switched()) {
		fab_add(&fab_self.preempted, 1);
		fab_add(&fab_self.preempted_ticks, d);
	} else {
		fab_add(&fab_self.ticks, d);
	}
	fab_add(&fab_self.calls, 1);
}

/* The calling thread's counters, with its id filled in. */
struct fab_thread *fab_thread_self(void);
/* Ticks per second of fab_ticks(), measured against CLOCK_MONOTONIC (~50 ms). */
double fab_ticks_per_sec(void);

/* ------------------------------------------------------------------------ */
/* Failures a benchmark must report: the first one is kept.                  */

void fab_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* NULL while nothing failed. */
const char *fab_failure(void);

/* ------------------------------------------------------------------------ */
/* Objects.                                                                  */

struct rblk_device {
	char name[RBLK_DEV_NAME_MAX];
	struct rblk_device_attr attr;
};
extern struct rblk_device fab_device;

struct rblk_pd {
	struct rblk_device *dev;
	_Atomic int users;                /* MRs, QPs and SRQs on it */
};

struct rblk_mr {
	struct rblk_pd *pd;
	uintptr_t addr;
	size_t len;
	int access;
	uint32_t key;                     /* lkey = rkey */
};

/* The MR of key when [addr, addr + len) lies inside it, else NULL. */
struct rblk_mr *fab_mr_check(uint32_t key, uint64_t addr, uint64_t len);

/* A SEND from another thread, for the owner of the receiving QP's CQ. */
struct fab_msg {
	struct fab_msg *next;
	struct rblk_qp *qp;               /* the receiving QP */
	uint32_t len;
	uint8_t data[];
};

struct rblk_cq {
	struct rblk_wc *ring;             /* owner thread only */
	uint32_t mask;
	uint32_t head, tail;
	int size;
	struct fab_thread *owner;         /* the thread that polls it; NULL before */
	int efd;                          /* the completion channel, or -1 */
	atomic_bool armed;

	atomic_bool inbox_pending;
	pthread_mutex_t lock;
	struct fab_msg *msgs, **msgs_tail;
	struct rblk_wc *xwc;              /* completions made on another thread */
	unsigned nxwc, xwc_cap;
};

/* Adds a completion: into the ring on the owner's thread, else into the inbox. */
void fab_cq_push(struct rblk_cq *cq, const struct rblk_wc *wc);

struct fab_recv {
	uint64_t wr_id;
	uint32_t num_sge;
	struct rblk_sge sge[2];
};

/* Posted receives in order, and the ones staged for the next flush. */
struct fab_rq {
	struct fab_recv *ring;
	uint32_t mask, head, tail;
	struct fab_recv *staged;
	unsigned nstaged, cap, max_sge;
	struct fab_msg *rnr, **rnr_tail;  /* SENDs that found no receive: retried on post */
};

struct rblk_srq {
	struct rblk_pd *pd;
	uint32_t max_wr;
	struct fab_rq rq;
};

#define FAB_MAX_SGE 16

struct fab_swr {
	struct rblk_send_wr wr;
	struct rblk_sge sge[FAB_MAX_SGE];
};

/*
 * A driver behind a QP (the benchmark's host): SENDs to that QP go to recv()
 * instead of to posted receives, on the thread that flushed them.
 */
struct fab_host_ops {
	void (*recv)(void *ctx, const void *data, uint32_t len);
};

struct rblk_qp {
	struct rblk_cm_id *id;
	struct rblk_pd *pd;
	struct rblk_cq *scq, *rcq;
	struct rblk_qp_caps caps;
	void *context;
	uint32_t qpn;
	bool err;                         /* error state: everything flushes */
	struct rblk_qp *peer;             /* the other end once connected (fab_cm_lock) */
	struct fab_swr *s;                /* staged sends [caps.max_send_wr] */
	unsigned ns;
	struct fab_rq rq;                 /* own receives, without an SRQ */
	const struct fab_host_ops *host;
	void *host_ctx;
};

/* Attaches a host driver to a QP (before it connects). */
void fab_qp_set_host(struct rblk_qp *qp, const struct fab_host_ops *ops, void *ctx);
/*
 * The host sends a SEND of hlen + dlen bytes on its QP (a command capsule,
 * then its in-capsule data, from two buffers as a two-SGE SEND would): into
 * the peer's next receive. On the thread that polls the peer's receive CQ
 * it lands at once; from any other thread through the CQ's inbox.
 * -ENOTCONN without a peer, -EMSGSIZE, -ENOMEM.
 */
int fab_host_send(struct rblk_qp *qp, const void *hdr, uint32_t hlen, const void *data,
		  uint32_t dlen);
/* The thread that polls the receive CQ of qp's peer (NULL before its first poll). */
struct fab_thread *fab_qp_peer_thread(struct rblk_qp *qp);

/*
 * Delivers a SEND of hlen + dlen bytes (two source buffers) to qp, the
 * receiver, on the owner thread of its receive CQ.
 */
void fab_deliver(struct rblk_qp *qp, const void *hdr, uint32_t hlen, const void *data,
		 uint32_t dlen);
/* Retries the SENDs that waited for a receive on rq. */
void fab_rq_retry_rnr(struct fab_rq *rq);
/* Error state: staged and posted receives flush. */
void fab_qp_set_error(struct rblk_qp *qp);

/* Guards connections (ids' links, QPs' peers) and the listener list. */
extern pthread_mutex_t fab_cm_lock;
/* cm.c: a QP is created on an id (one each) and leaves it when destroyed. */
int fab_cm_attach_qp(struct rblk_cm_id *id, struct rblk_qp *qp);
void fab_cm_detach_qp(struct rblk_qp *qp);

#endif

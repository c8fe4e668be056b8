/* SPDX-License-Identifier: MIT */
/*
 * The host side of one NVMe/RDMA queue (admin or I/O): its rdma_cm id, QP
 * and CQ, the registered SQE / response / small-data areas, the request
 * slots, and the rules for moving commands: stage in submit, flush once per
 * poll, complete a slot when its SEND and its response both arrived.
 *
 * Ownership and locking. hq->lock covers the slots, the QP's staging and
 * the CQ. Who may touch the QP and CQ depends on the state:
 *   LIVE        whoever holds the lock (the owning user thread; for the
 *               admin queue, whoever holds it: the controller thread or a
 *               caller of an admin command);
 *   CONNECTING,
 *   CLOSING,
 *   DOWN        only the connector (the controller thread during recovery,
 *               rblk_connect() at first), which still takes the lock around
 *               slot changes because users keep queueing commands;
 *   FAILED      nobody: a user saw an error and told the controller thread.
 * The CQ and its completion channel live as long as the queue, so the fd a
 * user epolls stays valid across reconnects; the cm id and the QP are
 * recreated for every connection, and an epoch in every WR id tells the
 * completions of a previous connection apart.
 *
 * Layer: above slots.h and cmd.h, below ctrl.h (which embeds struct
 * rblk_hq). queue.c still reads its controller's device, PD, addresses
 * and options and calls rblk_ctrl_attach_device() / rblk_ctrl_wake(): the
 * one upward edge left in the initiator.
 */
#ifndef RBLK_INITIATOR_QUEUE_H
#define RBLK_INITIATOR_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "initiator/slots.h"
#include "protocol/nvme.h"
#include "transport/rdma.h"

struct rblk_ctrl;

/* Registered bytes per slot for small payloads (Identify, Connect data, DSM ranges, bounce). */
#define RBLK_SLOT_DATA 4096u
#define RBLK_ADMIN_DEPTH 32u		/* HRQSIZE 32 / HSQSIZE 31, as Linux */
#define RBLK_BOUNCE_UNIT_MAX (128u << 10)
#define RBLK_BOUNCE_UNITS 16u

enum rblk_hq_state {
	RBLK_HQ_DOWN,		/* no connection */
	RBLK_HQ_CONNECTING,	/* QP connected, Fabrics Connect in progress: connector only */
	RBLK_HQ_LIVE,		/* commands flow */
	RBLK_HQ_FAILED,		/* an error was seen: waiting for the connector to tear down */
	RBLK_HQ_CLOSING,	/* being torn down: WRs are flushing */
};
const char *rblk_hq_state_str(enum rblk_hq_state st);

struct rblk_hq {
	struct rblk_ctrl *ctrl;
	uint16_t qid;
	unsigned depth;			/* queue entries = ordinary slots; +1 reserved for Connect */
	pthread_mutex_t lock;
	enum rblk_hq_state state;
	uint32_t epoch;			/* connection number, in every WR id */
	struct rblk_slots slots;
	struct rblk_slot *queued_head, *queued_tail;	/* QUEUED slots, in submission order */

	/* Registered once (ctrl's PD): SQEs, responses, per-slot data. */
	void *area;
	size_t area_len;
	struct rblk_mr *area_mr;
	struct nvme_sqe *sqes;		/* depth + 1 */
	struct nvme_cqe *rsps;		/* depth receive buffers */
	uint8_t *data;			/* (depth + 1) * RBLK_SLOT_DATA */

	struct rblk_cm_channel *ch;	/* non-blocking; the controller thread watches it */
	struct rblk_cq *cq;		/* with a completion channel */
	/*
	 * The channel's wakeup, tracked so that a busy poller makes no system
	 * call (on Soft-RoCE, arming is an ioctl and reading the channel a
	 * read): @cq_armed from rblk_hq_arm() until its wakeup is consumed;
	 * @cq_fired once a completion was reaped while armed, i.e. the wakeup
	 * is on the channel or about to be.
	 */
	bool cq_armed;
	bool cq_fired;

	/* The current connection. */
	struct rblk_cm_id *id;
	struct rblk_qp *qp;
	unsigned send_posted;		/* SENDs on the QP without a completion yet */
	unsigned recv_posted;		/* receives on the QP */
	uint32_t incapsule_max;		/* in-capsule bytes this queue may send */

	/* Bounce units for unregistered data larger than RBLK_SLOT_DATA (lazy). */
	struct rblk_mr_pool *bounce;
	uint32_t bounce_unit;
	int bounce_err;			/* the pool could not be made: fail, do not wait */
	bool inited;
};

/* Host memory, channel and slots for a queue of @depth entries; no RDMA resources yet. */
int rblk_hq_init(struct rblk_hq *hq, struct rblk_ctrl *ctrl, uint16_t qid, unsigned depth);
/* Frees everything; the queue must be DOWN. Accepts a partly initialised queue. */
void rblk_hq_fini(struct rblk_hq *hq);

/*
 * The completion channel's wakeup, with the lock held. rblk_hq_arm() asks for
 * one unless a request is still outstanding (0 or -errno); the caller then
 * reaps once more, as a completion that landed before the arm raises none.
 * rblk_hq_consume_wakeup() reads the wakeup off the channel when one fired,
 * so that the fd does not stay readable; it is a no-op (no system call)
 * otherwise. rblk_hq_drain_wakeups() reads whatever the channel holds
 * (slow paths: sleeping waiters, a queue that is down).
 */
int rblk_hq_arm(struct rblk_hq *hq);
void rblk_hq_consume_wakeup(struct rblk_hq *hq);
/*
 * Before a poll that found nothing returns 0: consumes a wakeup that fired,
 * then arms unless still armed. True if it armed (reap once more). Without
 * the consume first, a wakeup read after the arm decision left the CQ
 * unarmed and a sleeper waited for its timeout.
 */
bool rblk_hq_arm_idle(struct rblk_hq *hq);
void rblk_hq_drain_wakeups(struct rblk_hq *hq);

/*
 * rdma_cm part of a connection: resolve address and route, create the CQ
 * and register the areas on first use, create the QP, post the receives,
 * rdma_connect with the NVMe/RDMA private data and wait for ESTABLISHED.
 * The queue is then CONNECTING. Returns 0, -ECONNREFUSED (rejected),
 * -ETIMEDOUT, -ECANCELED (the controller is being deleted), -errno.
 */
int rblk_hq_cm_connect(struct rblk_hq *hq);
/*
 * Non-blocking: consumes the queue's CM events. -ECONNRESET when one says
 * the connection is gone (DISCONNECTED, DEVICE_REMOVAL, ...), else 0.
 */
int rblk_hq_cm_poll(struct rblk_hq *hq);

/*
 * Disconnects, moves the QP to the error state, waits (bounded) for its WRs
 * to flush. Posted slots that already have their response complete; the
 * others go back to QUEUED (user slots, when @requeue) or complete with
 * -ENOTCONN. The queue is DOWN before the QP and the cm id are destroyed,
 * outside the lock (that can block in the kernel on a broken device).
 * Called without the lock.
 */
void rblk_hq_teardown(struct rblk_hq *hq, bool requeue);
/*
 * The I/O timeout's look at a live queue (the controller thread, about once
 * a second): -ETIMEDOUT when one command has been unanswered @tmo_ms (the
 * queue is then failed: the connection will be reset), 1 when reaping the
 * CQ first completed requests (their owner must be woken), else 0. Takes
 * the lock.
 */
int rblk_hq_check_timeout(struct rblk_hq *hq, uint64_t now, uint64_t tmo_ms);
/* CONNECTING -> LIVE: post every QUEUED slot. Called without the lock. */
void rblk_hq_set_live(struct rblk_hq *hq);
/* Completes every QUEUED slot with @err. Called with the lock held. */
void rblk_hq_fail_queued(struct rblk_hq *hq, int err);

/*
 * With the lock held: arm @slot (new CID) and stage its SEND when the queue
 * is LIVE or CONNECTING, else append it to the QUEUED list.
 */
int rblk_hq_post(struct rblk_hq *hq, struct rblk_slot *slot);
/* With the lock held: one ibv_post_send for the staged SENDs, one ibv_post_recv for reposts. */
int rblk_hq_flush(struct rblk_hq *hq);
/*
 * With the lock held: poll up to @max completions (<= 32) and handle them.
 * Returns how many WCs were handled, or -errno from the CQ.
 */
int rblk_hq_process(struct rblk_hq *hq, int max);
/*
 * With the lock held: handles one completion as rblk_hq_process() does.
 * Exposed for unit tests, which build completions with rblk_hq_wr_id().
 */
void rblk_hq_handle_wc(struct rblk_hq *hq, const struct rblk_wc *wc);
/* The WR id of slot @index's SEND (@recv false) or of receive buffer @index (@recv true). */
uint64_t rblk_hq_wr_id(const struct rblk_hq *hq, bool recv, uint32_t index);
/* With the lock held: a fatal error on a queue the users drive: FAILED, controller woken. */
void rblk_hq_fail(struct rblk_hq *hq, const char *why);

/*
 * Runs @slot to completion: posts it, flushes, and polls until it completes,
 * the queue fails (-ECONNRESET), @timeout_ms passes (-ETIMEDOUT: the slot is
 * abandoned and the queue marked FAILED) or the controller is deleted
 * (-ECANCELED). Called with the lock held; when @keep_lock is false the lock
 * is dropped while sleeping. On success *cqe is the response.
 */
int rblk_hq_exec(struct rblk_hq *hq, struct rblk_slot *slot, int timeout_ms, bool keep_lock,
		 struct nvme_cqe *cqe);

uint32_t rblk_hq_lkey(const struct rblk_hq *hq);
uint32_t rblk_hq_rkey(const struct rblk_hq *hq);

/*
 * Points SGL1 of @slot at @len bytes of registered memory as rblk_cmd_map()
 * decides with hq->incapsule_max, and records in-capsule bytes (they follow
 * the SQE in the same SEND). -EINVAL for a keyed length over 24 bits.
 */
int rblk_hq_map(struct rblk_hq *hq, struct rblk_slot *slot, void *addr, uint32_t len,
		uint32_t lkey, uint32_t rkey);

/*
 * A bounce unit (hq->bounce_unit bytes, registered for remote access); the
 * pool is created on first use. 0, -EAGAIN when every unit is out (wait for
 * completions), -ENOMEM (or the registration's error) when no pool can be
 * made.
 */
int rblk_hq_bounce_get(struct rblk_hq *hq, void **unit, uint32_t *lkey, uint32_t *rkey);
void rblk_hq_bounce_put(struct rblk_hq *hq, void *unit);
/*
 * CQ and registered areas, once the controller knows its device: each made
 * when missing (again after rblk_hq_release_device()). Idempotent.
 */
int rblk_hq_resources(struct rblk_hq *hq);
/*
 * The device goes: the CQ and the registrations of the area and the bounce
 * pool are dropped, the memory (and what queued requests hold of it) kept.
 */
void rblk_hq_release_device(struct rblk_hq *hq);
/*
 * With the lock held, after a new device: every queued request's data
 * described again with the keys it has now; one whose memory is no longer
 * registered completes with -EIO.
 */
void rblk_hq_rekey(struct rblk_hq *hq);

#endif

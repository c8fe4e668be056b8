/* SPDX-License-Identifier: MIT */
/*
 * The NVMe/RDMA transport of the target: private to target/rdma/,
 * target/rdma/poll_group.c and their unit tests. The design is in
 * docs/architecture.md §2; the wire rules are docs/interop.md §2, §4 and §5.
 *
 * Objects and who owns them:
 *   struct rblk_transport      (target/rdma/listener.c) listeners, the CM thread,
 *                              the poll groups; what the core sees.
 *   struct rblk_poll_group     (poll_group.c) one reactor thread: per RDMA
 *                              device a CQ + PD + registered buffer pool, its
 *                              storage engines' contexts, a mailbox, its queues.
 *   struct rblk_rdma_queue     (target/rdma/queue.c) one QP = one NVMe SQ; embeds the
 *                              core's struct rblk_sq; preallocated receives,
 *                              requests and responses.
 *   struct rblk_rdma_srq       (target/rdma/srq.c) a device context's shared
 *                              receives and the qp_num -> queue map.
 *   struct rblk_rdma_req       (target/rdma/req.c) embeds the core's struct rblk_req;
 *                              the per-request state machine.
 *   WR chains                  (target/rdma/xfer.c) RDMA READ/WRITE + SEND building,
 *                              staging with budgets, flushing.
 *   CM decisions               (target/rdma/conn.c) connect request -> accept/reject.
 *
 * Threads: a queue and its requests are touched only by its poll group's
 * thread. The CM thread and the core (disconnect, run_on) reach a queue only
 * through its poll group's mailbox.
 */
#ifndef RBLK_TARGET_RDMA_H
#define RBLK_TARGET_RDMA_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "common/util.h"
#include "protocol/nvme_rdma.h"
#include "protocol/sgl.h"
#include "target/fabric.h"
#include "target/rdma/admit.h"
#include "target/rdma/poll_group.h"
#include "transport/rdma.h"

/* Data WRs one request may need: one per unit when the device has one SGE. */
#define RBLK_RDMA_MAX_DATA_WRS RBLK_REQ_MAX_IOV
#define RBLK_RDMA_CAPSULE_SIZE 64   /* struct nvme_sqe */
/*
 * Local SGEs per RDMA WRITE and SEND. A send WQE holds this many: with 3 a
 * Soft-RoCE WQE is 208 + 3 x 16 bytes, 256 once rounded to a power of two
 * (512 with 16), and a 1 MiB read of 128 KiB units goes out as 3 WRITEs in
 * one post instead of 1. Other providers' WQEs grow with it as well.
 */
#define RBLK_RDMA_SEND_SGE 3
#define RBLK_RDMA_RSP_SIZE 16       /* struct nvme_cqe */

/* ======================================================================== */
/* Work request ids: an object pointer with its kind in the low two bits,   */
/* so a completion finds its object without a lookup, and the kind is known */
/* without reading the object (WC opcodes are undefined on errors).         */

enum rblk_rdma_wr_kind {
	RBLK_RDMA_WR_RECV = 0,  /* a struct rblk_rdma_recv */
	RBLK_RDMA_WR_READ = 1,  /* a struct rblk_rdma_req: RDMA READ (signaled) */
	RBLK_RDMA_WR_WRITE = 2, /* a struct rblk_rdma_req: RDMA WRITE (unsignaled) */
	RBLK_RDMA_WR_SEND = 3,  /* a struct rblk_rdma_req: the response (signaled) */
};

static inline uint64_t rblk_rdma_wr_id(const void *obj, enum rblk_rdma_wr_kind kind)
{
	return (uint64_t)(uintptr_t)obj | (uint64_t)kind;
}

static inline enum rblk_rdma_wr_kind rblk_rdma_wr_kind(uint64_t wr_id)
{
	return (enum rblk_rdma_wr_kind)(wr_id & 3);
}

static inline void *rblk_rdma_wr_obj(uint64_t wr_id)
{
	return (void *)(uintptr_t)(wr_id & ~(uint64_t)3);
}

/* ======================================================================== */
/* CM decisions (target/rdma/conn.c): pure, unit-tested.                          */

/*
 * RDMA READs one queue keeps outstanding at the host, whatever more the host
 * and device would allow (Soft-RoCE offers 128; NICs typically 16). The host
 * answers READs one after another, so the last of 128 x 128 KiB waits for 16 MiB
 * to go first: on a slow link that outlasts the ACK timeout, the READ is sent
 * again, and the host's Soft-RoCE replays it (docs/interop.md §17.3).
 */
#define RBLK_RDMA_MAX_READ_DEPTH 16

struct rblk_rdma_conn_limits {
	uint32_t max_queue_depth;       /* I/O: HSQSIZE + 1 at most this (CAP.MQES + 1) */
	uint32_t max_admin_queue_depth; /* admin: HSQSIZE + 1 at most this (and 32) */
	uint32_t max_qid;               /* I/O queues a controller may have (max_io_queues) */
	uint32_t dev_max_init_rd_atom;  /* device max_qp_init_rd_atom */
};

struct rblk_rdma_conn_plan {
	uint16_t qid;             /* from the private data */
	uint16_t depth;           /* receives and requests: HSQSIZE + 1 */
	uint16_t hrqsize;         /* the host's receive queue (our responses in flight) */
	uint8_t initiator_depth;  /* RDMA READs we may have outstanding */
	uint16_t crqsize;         /* accept CRQSIZE (nvmet: HSQSIZE + 1) */
};

/*
 * Decides a CONNECT_REQUEST: 0 and the plan, or the NVME_RDMA_CM_* status to
 * reject with. ev_initiator_depth is the event's initiator_depth (after the
 * IB CM swap: the host's responder_resources).
 */
int rblk_rdma_conn_decide(const void *priv, size_t len, uint8_t ev_initiator_depth,
			  const struct rblk_rdma_conn_limits *lim, struct rblk_rdma_conn_plan *out);
/* rdma_accept parameters for a plan (rep is the 32-byte private data it points at). */
void rblk_rdma_conn_accept_param(const struct rblk_rdma_conn_plan *plan,
				 struct nvme_rdma_cm_rep *rep, struct rblk_conn_param *out);

/* ======================================================================== */
/* Requests (target/rdma/req.c).                                                  */

/*
 * One place advances it: rblk_rdma_req_process(). Each state says what the
 * request waits for.
 */
enum rblk_rdma_req_state {
	RBLK_RDMA_REQ_FREE = 0,          /* on q->free_reqs */
	RBLK_RDMA_REQ_NEW,               /* bound to a completed receive: init + parse + SGL */
	RBLK_RDMA_REQ_NEED_BUFFER,       /* on dev->pending_buf: pool units, FIFO */
	RBLK_RDMA_REQ_NEED_RDMA_READ,    /* on q->pending_read: read depth + send slots, FIFO */
	RBLK_RDMA_REQ_TRANSFERRING_H2C,  /* RDMA READs posted: waiting for their completions */
	RBLK_RDMA_REQ_READY_TO_EXECUTE,  /* data in place: run the handler */
	RBLK_RDMA_REQ_EXECUTING,         /* handler/backend: waiting for queue_response */
	RBLK_RDMA_REQ_READY_TO_COMPLETE, /* on q->pending_send: send slots for WRITEs + SEND */
	RBLK_RDMA_REQ_COMPLETING,        /* response SEND posted: waiting for its completion */
};

const char *rblk_rdma_req_state_str(enum rblk_rdma_req_state s);

struct rblk_rdma_recv {
	/* Its queue; for a shared receive, set when it completes (NULL while posted). */
	struct rblk_rdma_queue *q;
	struct rblk_rdma_srq *srq;        /* the shared receive set it belongs to, or NULL */
	struct nvme_sqe *capsule;         /* registered, 64 bytes */
	void *icd;                        /* in-capsule data area (I/O queues), or NULL */
	uint32_t byte_len;                /* of the last completion */
	bool posted;                      /* on the QP's receive queue */
	STAILQ_ENTRY(rblk_rdma_recv) link; /* q->incoming */
};

/*
 * A device that went away (DEVICE_REMOVAL on an id of it: a NIC reset, a
 * driver reload, Soft-RoCE recreated). The CM thread tells every poll group
 * (rblk_pg_device_gone); each frees its context of the device once its last
 * queue on it is closed and puts its reference; the last put has librdmacm
 * close the device's context (rblk_cm_forget_removed_devices), which lets
 * the kernel finish removing it.
 */
struct rblk_rdma_gone {
	struct rblk_transport *t;
	struct rblk_device *dev;
	atomic_uint refs;                 /* one per poll group not done yet */
	atomic_bool done;                 /* the CM thread may free it */
};

void rblk_rdma_gone_put(struct rblk_rdma_gone *g);

/* The most one RDMA READ pulls (bytes); larger transfers take several READs. */
#define RBLK_RDMA_READ_WR_MAX (128u * 1024)

struct rblk_rdma_req {
	struct rblk_req req;              /* the core's request (first: alignment) */
	struct rblk_rdma_queue *q;
	enum rblk_rdma_req_state state;
	struct rblk_rdma_recv *recv;      /* the capsule, until the response is staged */
	struct nvme_cqe *rsp;             /* registered copy of req.cqe for the SEND */
	struct rblk_sgl sgl;              /* decoded SGL1 (kind NONE until decoded) */
	uint16_t nunits;                  /* pool units held (req.iov[0..nunits)) */
	uint16_t reads_inflight;          /* RDMA READs posted, not yet completed */
	uint16_t send_wrs;                /* WRs of the response chain (send slots debited) */
	uint16_t idx;                     /* in q->reqs */
	bool in_process;                  /* inside rblk_rdma_req_process(): no recursion */
	bool queued;                      /* on a wait queue (link in use) */
	bool xfer_failed;                 /* a WR of this request completed in error */
	uint64_t wait_since_ms;           /* NEED_BUFFER: when it started waiting for units */
	TAILQ_ENTRY(rblk_rdma_req) link;  /* free list or one wait queue */
};

/*
 * Runs the state machine until the request waits. Called when a receive is
 * bound, on completions, from queue_response and when resources free up.
 */
void rblk_rdma_req_process(struct rblk_rdma_req *r);
/* One transition (tests); returns true if the state changed. */
bool rblk_rdma_req_step(struct rblk_rdma_req *r);
/* A work completion of one of this poll group's QPs. */
void rblk_rdma_handle_wc(const struct rblk_wc *wc);
/*
 * Progress for waiting work of a queue: bind completed receives to free
 * requests (once LIVE), retry the send and read wait queues.
 */
void rblk_rdma_queue_kick(struct rblk_rdma_queue *q);
/* Retries requests waiting for pool units on a device context. */
void rblk_rdma_dev_kick(struct rblk_pg_dev *dev);
/*
 * The bound on that wait (the poll group's tick): a request that waited
 * RBLK_RDMA_BUF_WAIT_MS for units fails with Internal Error, which the host
 * retries. Units only run out for that long when the storage stops
 * completing; the pool always holds at least one largest transfer.
 */
#define RBLK_RDMA_BUF_WAIT_MS 10000
void rblk_rdma_dev_expire_waits(struct rblk_pg_dev *dev, uint64_t now_ms);
/*
 * The queue is draining: fails every request that waits for a resource
 * (they go back to the core through rblk_req_complete) and drops received
 * capsules that no request took.
 */
void rblk_rdma_queue_abort_waiting(struct rblk_rdma_queue *q);

/* The transport op: the core finished the request (any state after NEW). */
void rblk_rdma_queue_response(struct rblk_req *req);

/* ======================================================================== */
/* WR chains (target/rdma/xfer.c).                                                */

struct rblk_rdma_chain {
	struct rblk_send_wr wr[RBLK_RDMA_MAX_DATA_WRS + 1];
	struct rblk_sge sge[RBLK_REQ_MAX_IOV + 1];
	unsigned nwr;
	unsigned nsge;
};

/* Data WRs for iovcnt buffers with max_sge SGEs per WR. */
unsigned rblk_rdma_data_wrs(unsigned iovcnt, unsigned max_sge);
/*
 * Appends RDMA READ or WRITE WRs moving len bytes between iov (lkey) and the
 * host's [raddr, raddr + len) under rkey, max_sge local SGEs per WR, each WR
 * with wr_id and flags. -EINVAL when len exceeds the buffers or the chain is
 * full.
 */
int rblk_rdma_chain_add_data(struct rblk_rdma_chain *c, enum rblk_wr_opcode op,
			     const struct iovec *iov, unsigned iovcnt, uint32_t len, uint32_t lkey,
			     uint64_t raddr, uint32_t rkey, unsigned max_sge, uint64_t wr_id,
			     unsigned flags);
/*
 * Appends the signaled response SEND of rsp (16 bytes, lkey); SEND_WITH_INV
 * of inv_rkey when invalidate (the command's SGL was 0x4F).
 */
int rblk_rdma_chain_add_send(struct rblk_rdma_chain *c, const void *rsp, uint32_t lkey,
			     bool invalidate, uint32_t inv_rkey, uint64_t wr_id);
/*
 * The response chain of a finished request: RDMA WRITE(s) of data_len bytes
 * when it moves data to the host and succeeded, then the SEND (or
 * SEND_WITH_INV for a 0x4F SGL).
 */
int rblk_rdma_build_response(struct rblk_rdma_req *r, struct rblk_rdma_chain *c);
/* The RDMA READ(s) pulling a request's data_len bytes into its units. */
int rblk_rdma_build_reads(struct rblk_rdma_req *r, struct rblk_rdma_chain *c);
/*
 * Stages a chain on the queue's QP (send slots must have been debited).
 * Records which signaled WRs belong to which request, so a failed flush can
 * complete the ones that never reached the QP.
 */
int rblk_rdma_stage_chain(struct rblk_rdma_queue *q, struct rblk_rdma_req *r,
			  const struct rblk_rdma_chain *c);
/*
 * The SGEs of a receive (its capsule, then its in-capsule area when it has
 * one, so that in-capsule data lands page aligned, ready for O_DIRECT), from
 * the pools they live in; returns how many (1 or 2).
 */
static inline unsigned rblk_rdma_recv_sges(const struct rblk_rdma_recv *rv,
					   const struct rblk_mr_pool *capsules,
					   const struct rblk_mr_pool *icd, uint32_t icd_size,
					   struct rblk_sge sge[2])
{
	sge[0].addr = (uint64_t)(uintptr_t)rv->capsule;
	sge[0].length = RBLK_RDMA_CAPSULE_SIZE;
	sge[0].lkey = rblk_mr_pool_lkey(capsules);
	if (!rv->icd)
		return 1;
	sge[1].addr = (uint64_t)(uintptr_t)rv->icd;
	sge[1].length = icd_size;
	sge[1].lkey = rblk_mr_pool_lkey(icd);
	return 2;
}
/*
 * Gives a receive back: a queue's own is staged on its QP (asserts it is
 * not posted), a shared one on its SRQ.
 */
int rblk_rdma_stage_recv(struct rblk_rdma_queue *q, struct rblk_rdma_recv *rv);
/* Posts what the queue staged: receives first, then the send chain. */
void rblk_rdma_queue_flush(struct rblk_rdma_queue *q);

/* ======================================================================== */
/* Shared receives (target/rdma/srq.c).                                           */

struct rblk_rdma_qpn_slot {
	uint32_t qpn;
	struct rblk_rdma_queue *q;        /* NULL: empty */
};

/* qp_num -> queue, for receive completions of the SRQ's QPs. */
struct rblk_rdma_qpn_map {
	struct rblk_rdma_qpn_slot *slot;  /* [cap], cap a power of two */
	uint32_t cap;
	uint32_t n;
};

/* 0, -EEXIST (qpn is in), -ENOMEM. */
int rblk_rdma_qpn_map_add(struct rblk_rdma_qpn_map *m, uint32_t qpn, struct rblk_rdma_queue *q);
struct rblk_rdma_queue *rblk_rdma_qpn_map_get(const struct rblk_rdma_qpn_map *m, uint32_t qpn);
void rblk_rdma_qpn_map_del(struct rblk_rdma_qpn_map *m, uint32_t qpn);
void rblk_rdma_qpn_map_fini(struct rblk_rdma_qpn_map *m);

struct rblk_rdma_srq {
	struct rblk_pg_dev *dev;
	struct rblk_srq *srq;
	struct rblk_mr_pool *capsules;    /* depth x 64 B */
	struct rblk_mr_pool *icd;         /* depth x icd_size, or NULL */
	uint32_t icd_size;
	uint32_t depth;
	struct rblk_rdma_recv *recvs;     /* [depth] */
	uint32_t posted;                  /* on the SRQ */
	struct rblk_rdma_recv **staged;   /* [depth]: staged, not yet posted */
	unsigned nstaged;
	STAILQ_HEAD(, rblk_rdma_recv) idle; /* a post failed: retried by the next flush */
	uint32_t rcq_slots;               /* receive CQ entries reserved */
	struct rblk_rdma_qpn_map map;     /* the QPs attached to it */
};

/*
 * Group thread: dev->srq with depth receives (at most the device's
 * max_srq_wr) of a capsule and icd_size bytes of in-capsule data, all
 * posted. -errno (the caller falls back to receives per queue).
 */
int rblk_rdma_srq_create(struct rblk_pg_dev *dev, uint32_t depth, uint32_t icd_size);
/* Group thread: after every queue on it is gone. NULL dev->srq is fine. */
void rblk_rdma_srq_destroy(struct rblk_pg_dev *dev);
/* Stages a shared receive back on its SRQ (it belongs to no queue again). */
void rblk_rdma_srq_repost(struct rblk_rdma_recv *rv);
/* Posts what is staged (one call); receives a failed post left are kept idle. */
void rblk_rdma_srq_flush(struct rblk_rdma_srq *s);
/* Stages the idle receives again. */
void rblk_rdma_srq_retry_idle(struct rblk_rdma_srq *s);

/* ======================================================================== */
/* Queues (target/rdma/queue.c).                                                  */

enum rblk_rdma_qstate {
	RBLK_RDMA_Q_CONNECTING = 0, /* accepted, no ESTABLISHED yet: receives wait */
	RBLK_RDMA_Q_LIVE,           /* commands flow */
	RBLK_RDMA_Q_DRAINING,       /* disconnecting: no new work; waiting for WRs and I/O */
	RBLK_RDMA_Q_CLOSED,         /* QP and id destroyed; freed when the last message ran */
};

const char *rblk_rdma_qstate_str(enum rblk_rdma_qstate s);

/* Per-queue counters; written by the queue's thread only (rblk_stat_inc), read by anyone. */
struct rblk_rdma_qstats {
	_Atomic uint64_t cmds;
	_Atomic uint64_t bytes_h2c;     /* host -> target (RDMA READ + in-capsule) */
	_Atomic uint64_t bytes_c2h;     /* target -> host (RDMA WRITE) */
	_Atomic uint64_t errors;        /* responses with a non-zero status */
	_Atomic uint64_t wc_errors;     /* work completions in error (not flushes) */
	_Atomic uint32_t depth;         /* requests in use now */
	_Atomic uint32_t max_depth;
};

/* An entry of the staged-send log (rblk_rdma_stage_chain). */
struct rblk_rdma_staged {
	struct rblk_rdma_req *req;
	enum rblk_rdma_wr_kind kind;
	unsigned pos;                     /* index in the staged chain */
};

struct rblk_rdma_queue {
	struct rblk_sq sq;                /* the core's queue */
	struct rblk_transport *t;
	struct rblk_poll_group *pg;
	struct rblk_pg_dev *dev;          /* CQ, PD and pool of the QP's device */
	struct rblk_cm_id *cm_id;
	struct rblk_qp *qp;
	enum rblk_rdma_qstate state;
	struct rblk_rdma_conn_plan plan;
	struct rblk_listener *listener;   /* the host came through it */
	char peer[RBLK_ADDR_STRLEN];      /* "10.99.0.2:38211", for logs */
	uint64_t drain_start_ms;

	/* Preallocated, registered with the device (LOCAL_WRITE). */
	struct rblk_mr_pool *capsules;    /* depth x 64 B */
	struct rblk_mr_pool *icd;         /* depth x in-capsule size, I/O queues only */
	struct rblk_mr_pool *rsps;        /* nreqs x 16 B */
	uint32_t icd_size;                /* 0 on the admin queue */
	uint32_t max_io_size;             /* the target's MDTS, bytes (SGL limit) */
	bool no_invalidate;               /* plain SEND even for 0x4F (debugging) */
	struct rblk_rdma_recv *recvs;     /* [depth] */
	struct rblk_rdma_req *reqs;       /* [nreqs] */
	uint16_t depth;
	uint16_t nreqs;
	unsigned max_sge;                 /* local SGEs per RDMA WRITE / SEND */
	unsigned max_sge_rd;              /* local SGEs per RDMA READ (RBLK_RDMA_READ_WR_MAX) */

	/* Budgets: debited before posting, credited on completion. */
	uint32_t send_slots;              /* free send-queue WRs */
	uint32_t send_slots_max;
	uint32_t reads_avail;             /* RDMA READs we may still issue */
	uint32_t recv_posted;             /* receives on the QP */
	uint32_t recv_flushed;            /* flushed at teardown (for the log) */
	uint32_t signaled_inflight;       /* signaled WRs posted, completion pending */
	uint32_t reqs_busy;               /* requests not FREE */
	struct rblk_pg_cq *scq;           /* the send CQ of dev its QP completes to */
	uint32_t scq_slots;               /* send CQ entries reserved on it */
	uint32_t rcq_slots;               /* receive CQ entries reserved on dev */
	bool srq_mapped;                  /* in dev->srq's qp_num map */
	uint32_t recvs_held;              /* shared receives completed for it, not yet back */

	/* Staged but not flushed: the signaled WRs and their requests. */
	struct rblk_rdma_staged *staged;  /* [send_slots_max] */
	unsigned nstaged;
	struct rblk_rdma_recv **rstaged;  /* [depth]: receives staged, in order */
	unsigned nrstaged;

	struct rblk_rdma_reqq free_reqs;
	struct rblk_rdma_reqq pending_read;
	struct rblk_rdma_reqq pending_send;
	STAILQ_HEAD(, rblk_rdma_recv) incoming; /* completed receives waiting for a request */

	/* Cross-thread: messages queued for this queue hold a reference each. */
	_Atomic int refs;
	atomic_bool disconnect_queued;
	struct rblk_reactor_msg msg_create;
	struct rblk_reactor_msg msg_established;
	struct rblk_reactor_msg msg_disconnect;
	int disconnect_reason;            /* enum rblk_cm_event_type, or RBLK_RDMA_DISC_* */

	/* Stall detector (ticks): completions seen, and since when none came. */
	uint64_t progress;
	uint64_t progress_seen;
	uint64_t stalled_since_ms;
	bool stall_reported;

	/* Admission (target/rdma/admit.c): pending until the Connect succeeds. */
	struct rblk_rdma_admit_entry admit; /* in t->admit, under t->qlock */

	TAILQ_ENTRY(rblk_rdma_queue) link; /* pg->queues */
	struct rblk_rdma_qstats stats;
};

static inline struct rblk_rdma_queue *rblk_rdma_queue_of(struct rblk_sq *sq)
{
	return rblk_container_of(sq, struct rblk_rdma_queue, sq);
}

/*
 * CM thread: a queue object for a CONNECT_REQUEST that passed
 * rblk_rdma_conn_decide(); nothing is registered yet. The poll group builds
 * and accepts it when it runs msg_create.
 */
int rblk_rdma_queue_alloc(struct rblk_transport *t, struct rblk_poll_group *pg,
			  struct rblk_cm_id *id, struct rblk_listener *l,
			  const struct rblk_rdma_conn_plan *plan, struct rblk_rdma_queue **out);
/* CM thread: hands an event to the queue's poll group. */
void rblk_rdma_queue_post_event(struct rblk_rdma_queue *q, enum rblk_cm_event_type type);
/*
 * Poll group thread: something broke (WC error, post failure, short
 * receive): disconnect and drain. Idempotent.
 */
void rblk_rdma_queue_fail(struct rblk_rdma_queue *q, const char *why);
/* Poll group thread: disconnect and drain (target stopping). */
void rblk_rdma_queue_disconnect_local(struct rblk_rdma_queue *q);
/* Reasons for rblk_rdma_queue_request_disconnect() that are not CM events. */
enum {
	RBLK_RDMA_DISC_CTRL = -1,         /* the core asked (its controller ends) */
	RBLK_RDMA_DISC_EVICTED = -2,      /* admission gave its place to a newer connection */
};
/*
 * Any thread: ask the queue's poll group to disconnect it (core op,
 * admission); @reason: an enum rblk_cm_event_type or RBLK_RDMA_DISC_*.
 * The caller holds a reference (or is the CM thread with the id's event).
 */
void rblk_rdma_queue_request_disconnect(struct rblk_rdma_queue *q, int reason);
/*
 * Any thread: a reference on q, unless its last one is gone (it is being
 * freed). Only for a queue found in t->admit under t->qlock, which the free
 * path takes after the last put; rblk_rdma_queue_put() drops it.
 */
bool rblk_rdma_queue_tryget(struct rblk_rdma_queue *q);
void rblk_rdma_queue_put(struct rblk_rdma_queue *q);
/*
 * Poll group thread: a draining queue whose WRs and requests are all back is
 * destroyed. Returns true when q was freed.
 */
bool rblk_rdma_queue_reap(struct rblk_rdma_queue *q);
/*
 * Poll group thread: whether the queue waits for a send-side completion (an
 * RDMA READ's, or a response SEND's that frees a request, a send slot or a
 * read credit someone waits for, or any while it drains). When false, its
 * send completions only free slots: the group need not wake for them.
 */
bool rblk_rdma_queue_send_awaited(const struct rblk_rdma_queue *q);
/*
 * Poll group thread, from the ticks: logs (once) what a queue whose requests
 * made no progress for a few seconds waits for.
 */
void rblk_rdma_queue_check_stall(struct rblk_rdma_queue *q, uint64_t now_ms);

#endif

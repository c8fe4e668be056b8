/* SPDX-License-Identifier: MIT */
/*
 * The rblk target core: the transport-independent NVMe-oF controller (the
 * model is Linux drivers/nvme/target: core x command set x backend x
 * transport). This header is the contract between the core and a transport
 * (target/rdma/, or the unit tests' test transport), and it also carries
 * the core's own cross-file declarations (marked "core internal").
 *
 * The request contract (one receive = one request; the transport owns an
 * array of struct rblk_req per queue):
 *  1. transport: a command capsule arrives -> rblk_req_init(req, sq, cmd).
 *  2. core: rblk_req_parse(req) validates the command for this queue and
 *     controller state and sets execute, data_len, dir and ns. A non-zero
 *     status means "fail now": the transport moves no data and calls
 *     rblk_req_complete(req, status).
 *  3. transport: decodes the SGL (rblk_sgl_decode) and checks it against
 *     data_len: exact, except Dataset Management where the SGL may be longer
 *     (docs/interop.md §4.3), i.e. rblk_sgl_check_len(sgl, data_len,
 *     rblk_req_sgl_at_least(req)); provides buffers in iov/iovcnt
 *     (buf_index when one registered buffer); for RBLK_XFER_H2C pulls the
 *     data (RDMA READ or in-capsule bytes). On a failure it calls
 *     rblk_req_complete() with the status (e.g. NVME_SC_SGL_INVALID_DATA |
 *     NVME_SC_DNR).
 *  4. transport: req->execute(req).
 *  5. core: the handler finishes synchronously (admin, fabrics) or later (I/O
 *     through the namespace's provider, AERs held until an event) by calling
 *     rblk_req_complete(req, status) exactly once. A provider completes on
 *     any thread; the transport brings the request back to the sq's thread
 *     (ops->complete_io) and calls rblk_req_io_done() there.
 *  6. core: rblk_req_complete() fills req->cqe (CID echoed, SQID, SQHD,
 *     status, dw0/dw1 set by the handler), records errors, drops the
 *     namespace reference, then calls sq->ops->queue_response(req).
 *  7. transport: status 0 and RBLK_XFER_C2H: RDMA WRITE data_len bytes chained
 *     before the response SEND; repost the receive; recycle the request.
 *
 * Threads: each sq belongs to one poll-group thread; rblk_req_*() and
 * rblk_sq_*() are called on that thread only. Controller state shared by the
 * admin queue and the I/O queues (CC/CSTS, features, AER slots, error log) is
 * guarded by ctrl->lock; the I/O path takes no lock except the namespace
 * table's read lock for one lookup per command, plus atomics.
 */
#ifndef RBLK_TARGET_CORE_H
#define RBLK_TARGET_CORE_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <rblk/provider.h>
#include <rblk/target.h>

#include "backend/backend.h"
#include "common/clock.h"
#include "protocol/nvme.h"
#include "protocol/nvmf.h"
#include "target/auth.h"

struct rblk_target;
struct rblk_subsystem;
struct rblk_tgt_ctrl;
struct rblk_tgt_ns;
struct rblk_sq;
struct rblk_req;
struct rblk_listener;
struct rblk_transport;

/* ======================================================================== */
/* Constants the transport and the core agree on.                           */

#define RBLK_REQ_MAX_IOV 16        /* buffers per request (max_io_size / io_unit_size) */
/*
 * rblk_sq_init(): the CM did not say. Outside the 16-bit QID space: a host
 * can put 0xFFFF in its CM private data, and with that value as the marker
 * it skipped the check that its Connect names the same queue.
 */
#define RBLK_QID_UNKNOWN 0x10000u
#define RBLK_AERL 3                /* 0-based: 4 outstanding AERs per controller */
#define RBLK_ERR_LOG_ENTRIES 64    /* error log ring (ELPE = 63) */
#define RBLK_KAS 10                /* Identify KAS, 100 ms units */
#define RBLK_RTD3E_US 30000000u    /* Identify RTD3E: shutdown (namespace syncs) within 30 s */
#define RBLK_DISC_KATO_MS 120000   /* discovery controller with KATO 0 (nvmet) */
#define RBLK_ANATT 10              /* Identify ANATT, seconds (nvmet's value) */
#define RBLK_ANA_DEFAULT_GRPID 1   /* every port has it, optimized until told otherwise */
#define RBLK_MAX_AEN_PENDING 8     /* queued events waiting for an AER */
#define RBLK_NS_MAX_DEFAULT 1024   /* rblk_subsystem_opts.max_namespaces 0 */
#define RBLK_TRADDR_LEN INET6_ADDRSTRLEN
/* Upper bounds of struct rblk_target_opts (opts.c says why each exists). */
#define RBLK_TGT_MAX_POLL_GROUPS 1024
#define RBLK_TGT_MAX_QUEUE_DEPTH 65535u   /* a queue's depth is a 16-bit count */
#define RBLK_TGT_MAX_IO_SIZE (16u << 20)  /* max_io_size and io_unit_size */
#define RBLK_TGT_MAX_SHARED_BUFFERS (1u << 20)
#define RBLK_TGT_MAX_KATO_CHECK_MS 5000u
/* Admission control defaults (struct rblk_target_opts). */
#define RBLK_TGT_CONNECT_TIMEOUT_MS 10000u
#define RBLK_TGT_MAX_PENDING 256u
#define RBLK_TGT_MAX_PENDING_PER_ADDR 32u
#define RBLK_TGT_MAX_CTRLS_PER_HOST 64u
#define RBLK_TGT_MAX_QUEUES 4096u
/* Their ranges (0 takes the default), shared with rblk-target's flags and keys. */
#define RBLK_TGT_CONNECT_TIMEOUT_MS_MIN 100u
#define RBLK_TGT_CONNECT_TIMEOUT_MS_MAX 600000u
#define RBLK_TGT_MAX_PENDING_LIMIT 65536u       /* max_pending_queues, max_pending_per_addr */
#define RBLK_TGT_MAX_CTRLS_PER_HOST_LIMIT 0xFFEFu /* the CNTLID space */
#define RBLK_TGT_MAX_QUEUES_LIMIT (1u << 20)
/* Shared receives per poll group and device (nvmet-rdma's srq_size default). */
#define RBLK_TGT_SRQ_DEPTH 1024u
#define RBLK_TGT_SRQ_DEPTH_MIN 16u
#define RBLK_TGT_SRQ_DEPTH_MAX 65536u

enum rblk_xfer_dir {
	RBLK_XFER_NONE = 0,
	RBLK_XFER_H2C, /* host -> controller: the transport fetches before execute */
	RBLK_XFER_C2H, /* controller -> host: the transport sends after completion */
};

/* ======================================================================== */
/* Transport ops: what the core calls back. One const table per transport.  */

struct rblk_transport_ops {
	/*
	 * Send req->cqe to the host, preceded by data_len bytes of iov when
	 * req->dir == RBLK_XFER_C2H and the status is 0. Called on the sq's
	 * thread, exactly once per request that got rblk_req_init(). On a queue
	 * that is being torn down the transport just recycles the request.
	 */
	void (*queue_response)(struct rblk_req *req);
	/*
	 * Start disconnecting the queue (e.g. rdma_disconnect). Any thread;
	 * returns at once and never calls back into the core synchronously (the
	 * caller may hold core locks). Idempotent. The transport later calls
	 * rblk_sq_teardown() and rblk_sq_destroy() on the sq's thread.
	 */
	void (*disconnect)(struct rblk_sq *sq);
	/*
	 * Run fn(arg) soon on the thread that owns sq (its poll group's mailbox).
	 * Any thread; never runs fn synchronously (the caller may hold core
	 * locks). 0: fn will run exactly once, even if the queue is torn down
	 * meanwhile (fn must not assume the sq still exists). -errno: fn will
	 * not run.
	 */
	int (*run_on)(struct rblk_sq *sq, void (*fn)(void *arg), void *arg);
	/*
	 * A provider finished req->pio (req->pio_res holds the result): call
	 * rblk_req_io_done(req) on the sq's thread. Any thread, the I/O path:
	 * no allocation, no lock, never synchronous (the provider may still be
	 * inside its submit callback).
	 */
	void (*complete_io)(struct rblk_req *req);
	/*
	 * Optional. The queue joined a controller: its Fabrics Connect
	 * succeeded (admission control stops counting it as pending). On the
	 * sq's thread, no core lock held.
	 */
	void (*connected)(struct rblk_sq *sq);
};

/* ======================================================================== */
/* Built-in backends' parking queue (target/bdev_provider.c): requests       */
/* waiting for room in a full rblk_bqueue.                                   */

struct rblk_io_waitq {
	struct rblk_req *head;
	struct rblk_req **tailp;
	unsigned count;
};

void rblk_io_waitq_init(struct rblk_io_waitq *wq);
/*
 * Resubmits parked requests, oldest first, until the backend queue is full
 * again. The poll group calls it after every rblk_bqueue_poll() that reaped
 * completions (before rblk_bqueue_flush_submissions()). Returns how many were
 * submitted (or failed and completed).
 */
unsigned rblk_io_waitq_run(struct rblk_io_waitq *wq);

/* ======================================================================== */
/* Submission queue: embedded by the transport in its queue object.         */

enum rblk_sq_state {
	RBLK_SQ_NEW = 0,   /* transport-connected, no Fabrics Connect yet */
	RBLK_SQ_LIVE,      /* Connect succeeded: bound to sq->ctrl as sq->qid */
	RBLK_SQ_CLOSING,   /* rblk_sq_teardown() ran: no new commands */
};

const char *rblk_sq_state_str(enum rblk_sq_state s);

struct rblk_sq_stats {
	_Atomic uint64_t completed; /* CQEs sent */
	_Atomic uint64_t errors;    /* CQEs with a non-zero status */
};

struct rblk_clock_cache; /* common/clock.h */

struct rblk_sq {
	/*
	 * Set by rblk_sq_init(); then the transport fills bq, waitq, listener
	 * and local_traddr before the first request. Read-only for the core.
	 */
	struct rblk_target *tgt;
	const struct rblk_transport_ops *ops;
	struct rblk_bqueue *bq;          /* the poll group's queue for the built-in backends */
	struct rblk_io_waitq *waitq;     /* the poll group's parking queue for bq */
	struct rblk_listener *listener;  /* the listener the host came through, or NULL */
	char local_traddr[RBLK_TRADDR_LEN]; /* our address on this connection ("" unknown) */
	uint32_t cm_qid;                 /* QID from the CM private data, or RBLK_QID_UNKNOWN */
	uint16_t depth;                  /* receive buffers: HSQSIZE + 1 (0 = no limit) */
	/*
	 * The poll group's per-iteration coarse clock (service times: no
	 * system call even where the precise clock is one), or NULL: read the
	 * precise clock. Owned by the sq's thread.
	 */
	struct rblk_clock_cache *clock;

	/* Core state (written on the sq's thread; ctrl/qid under ctrl->lock). */
	enum rblk_sq_state state;
	struct rblk_tgt_ctrl *ctrl;          /* reference held while LIVE / CLOSING */
	uint16_t qid;
	uint16_t size;                   /* Connect SQSIZE + 1; 0 before Connect */
	uint16_t sqhd;
	bool sqhd_disabled;              /* Connect CATTR bit 2 */
	_Atomic uint64_t last_cmd_ms;    /* traffic-based keep-alive (TBKAS) */
	struct rblk_tgt_auth_q auth;     /* DH-HMAC-CHAP when ctrl->auth (target/auth.h) */
	struct rblk_sq_stats stats;
};

/* Transport side of a queue's life; all on the sq's thread except init. */
void rblk_sq_init(struct rblk_sq *sq, struct rblk_target *tgt,
		  const struct rblk_transport_ops *ops, uint32_t cm_qid, uint16_t depth);
/*
 * The queue is going away (CM disconnect, QP error): the core gives back the
 * requests it holds (AERs, completed through queue_response) and, for an
 * admin queue, fails the controller and disconnects its other queues.
 * Idempotent. Requests still at the backend complete normally later.
 */
void rblk_sq_teardown(struct rblk_sq *sq);
/* No request of this queue is outstanding any more: unbind from the controller. */
void rblk_sq_destroy(struct rblk_sq *sq);
/*
 * Timer hook for each queue of a poll group, called at the latest at the
 * time it returned last. On every queue it fails the controller when the
 * queue's authentication is unfinished past its deadline (target/auth.h).
 * On an admin queue it enforces the controller's keep-alive timeout: on
 * expiry CSTS.CFS is set and every queue of that controller is disconnected.
 * Returns when it next has something to check (rblk_clock_ms() time), or
 * UINT64_MAX for never: an idle host's queues need no wakeup before their
 * keep-alive deadline, which keeps an idle target asleep.
 */
uint64_t rblk_sq_tick(struct rblk_sq *sq, uint64_t now_ms); /* now_ms: rblk_clock_ms() */

/* ======================================================================== */
/* Request.                                                                  */

struct rblk_req {
	/* Contract fields (see the top of this file). */
	struct nvme_sqe *cmd;       /* the capsule, in the transport's receive buffer */
	struct nvme_cqe cqe;        /* built by the core; LE wire format */
	struct rblk_sq *sq;
	struct rblk_tgt_ns *ns;         /* set by I/O parse; reference held until complete */
	uint32_t data_len;          /* bytes this command moves (set by parse) */
	enum rblk_xfer_dir dir;
	unsigned iovcnt;            /* filled by the transport before execute */
	int buf_index;              /* registered buffer index when iovcnt == 1, else -1 */
	struct iovec iov[RBLK_REQ_MAX_IOV];
	void (*execute)(struct rblk_req *req);
	uint16_t status;            /* kernel-style NVMe status of the parse/completion */
	uint16_t error_loc;         /* SQE byte offset for the error log; 0xFFFF none */

	/* Core private. */
	struct rblk_req *next;      /* rblk_io_waitq link */
	struct rblk_req *cpl_next;  /* the transport's completion list (complete_io) */
	uint64_t start_ns;          /* I/O: for the SMART busy time */
	uint64_t err_lba;           /* I/O: LBA reported in the error log */
	uint16_t dsm_nr;            /* DSM: ranges (1-based) */
	uint16_t dsm_idx;           /* DSM: next range to deallocate */
	uint64_t wz_next;           /* emulated Write Zeroes: next byte to zero */
	uint64_t wz_end;
	struct rblk_provider_io pio; /* the command as the namespace's provider sees it */
	int pio_res;                /* its result (rblk_provider_complete) */
	void (*pio_done)(struct rblk_req *req, int res); /* the command's next step */
	struct rblk_bio bio;        /* built-in backends: pio as a backend request */
};

/* On the sq's thread, after ops->complete_io: the provider's result arrives. */
void rblk_req_io_done(struct rblk_req *req);

#define RBLK_NO_ERROR_LOC 0xFFFF

void rblk_req_init(struct rblk_req *req, struct rblk_sq *sq, struct nvme_sqe *cmd);
uint16_t rblk_req_parse(struct rblk_req *req);
void rblk_req_complete(struct rblk_req *req, uint16_t status);

/* CQE result helpers for handlers (host-endian in, LE stored). */
static inline void rblk_req_set_dw0(struct rblk_req *req, uint32_t v)
{
	req->cqe.dw0 = rblk_cpu_to_le32(v);
}

static inline void rblk_req_set_dw1(struct rblk_req *req, uint32_t v)
{
	req->cqe.dw1 = rblk_cpu_to_le32(v);
}

/*
 * Step 3's transfer-length rule for rblk_sgl_check_len(): the SGL describes
 * exactly data_len bytes, or at least data_len for Dataset Management on an
 * I/O queue (the Linux host always sends 4 KiB of ranges; docs/interop.md §4.3).
 */
static inline bool rblk_req_sgl_at_least(const struct rblk_req *req)
{
	return req->sq->qid && req->cmd->opc == NVME_IO_DSM;
}

/*
 * Data buffer access for handlers: byte range [off, off + len) of the
 * command's data as laid out over iov. 0, or NVME_SC_SGL_INVALID_DATA | DNR
 * when the range exceeds the buffers the transport provided.
 */
uint16_t rblk_req_copy_to(struct rblk_req *req, size_t off, const void *buf, size_t len);
uint16_t rblk_req_copy_from(struct rblk_req *req, size_t off, void *buf, size_t len);
uint16_t rblk_req_zero(struct rblk_req *req, size_t off, size_t len);

/* ======================================================================== */
/* Listeners (ports): the core keeps them for the discovery log.            */

struct rblk_listener {
	struct rblk_target *tgt;
	char traddr[RBLK_TRADDR_LEN];   /* numeric; "0.0.0.0" / "::" when any */
	char trsvcid[8];                /* decimal port, e.g. "4420" */
	uint16_t port;
	uint16_t portid;                /* discovery PORTID, assigned when 0 */
	uint8_t treq;
	uint8_t adrfam;                 /* NVMF_ADRFAM_IPV4 / NVMF_ADRFAM_IPV6 */
	bool any;                       /* wildcard address */
	bool require_rdma;
	void *transport_priv;           /* the transport's listening state */
	/*
	 * Which NVM subsystems hosts reach through this port (nvmet's
	 * ports/N/subsystems): every one, or with linked_only just subsys[]
	 * (target.c changes the list under tgt->lock).
	 */
	bool linked_only;
	struct rblk_subsystem **subsys;
	unsigned nr_subsys;
	/*
	 * ANA (ana.c): this port's state of each group, [grpid], and which
	 * groups the port has (nvmet's ports/N/ana_groups). Written under
	 * tgt->lock; the I/O path reads a state with one relaxed atomic load.
	 */
	enum rblk_ana_state ana_state[RBLK_ANA_MAX_GROUPS + 1];
	bool ana_group[RBLK_ANA_MAX_GROUPS + 1];
};

/* ======================================================================== */
/* Transport entry points the core calls (implemented by target/rdma/ and */
/* target/rdma/poll_group.c; by tests/unit/target/test_transport.c in unit tests). */

/* Allocates the transport state for tgt (no threads, no devices yet). */
int rblk_transport_create(struct rblk_target *tgt, struct rblk_transport **out);
/* Stops it if started, closes listeners, frees. Accepts NULL. */
void rblk_transport_destroy(struct rblk_transport *t);
/*
 * Starts listening on l (before or after start). -EADDRNOTAVAIL / -ENODEV when
 * no RDMA device serves the address and l->require_rdma, -EADDRINUSE, ...
 */
int rblk_transport_listen(struct rblk_transport *t, struct rblk_listener *l);
/* Starts the poll groups and the CM thread; returns at once. */
int rblk_transport_start(struct rblk_transport *t);
/*
 * Disconnects every queue, waits until all are destroyed (rblk_sq_destroy),
 * then joins the threads. Not async-signal-safe; called from
 * rblk_target_run() after rblk_target_stop(), and from rblk_target_destroy().
 */
void rblk_transport_stop(struct rblk_transport *t);
/*
 * Waits a little (about @us microseconds) for the transport to make
 * progress: the core calls it while requests or controllers drain. On the
 * thread that runs an embedder's loop it polls instead of sleeping, since
 * nothing else would. t may be NULL (not created yet): just sleeps.
 */
void rblk_transport_idle_wait(struct rblk_transport *t, unsigned us);
/*
 * RBLK_THREADS_EMBEDDER: the fd the embedder waits on, and one iteration of
 * the loop on the thread that started the transport (rblk_target_poll()).
 * -EINVAL when the transport is not started in that mode; poll: -EPERM on
 * another thread.
 */
int rblk_transport_fd(struct rblk_transport *t);
int rblk_transport_poll(struct rblk_transport *t, int *timeout_ms);

/* ======================================================================== */
/* Core internal: target, subsystems, namespaces, controllers.               */

struct rblk_target {
	struct rblk_target_opts opts;    /* defaults filled in */
	char backend[16];                /* resolved engine: "uring" or "aio" */
	char *rbd_conf, *rbd_id, *rbd_keyring; /* opts' copies (NULL: not given) */
	uint64_t created_ms;             /* SMART power-on hours */
	pthread_mutex_t lock;            /* subsystem list, listeners */
	struct rblk_subsystem *subsys;   /* NVM subsystems, list by ->next */
	struct rblk_subsystem *disc;     /* the discovery subsystem */
	struct rblk_listener **listeners;
	unsigned nr_listeners;
	uint16_t next_portid;
	_Atomic uint64_t genctr;         /* discovery log generation counter */
	_Atomic uint64_t ana_chgcnt;     /* ANA log change count (one for the target, as nvmet) */
	_Atomic uint32_t auth_seqnum;    /* last DH-HMAC-CHAP sequence number (0: none yet) */
	struct rblk_transport *transport;
	int stop_fd;                     /* eventfd: rblk_target_stop() -> run() */
	_Atomic bool stop_requested;
	bool started;
};

enum rblk_subsys_type {
	RBLK_SUBSYS_NVM = 0,
	RBLK_SUBSYS_DISCOVERY,
};

/* Per-namespace counters (SMART, statistics); updated with relaxed atomics. */
struct rblk_tgt_ns_stats {
	_Atomic uint64_t read_cmds;
	_Atomic uint64_t write_cmds;
	_Atomic uint64_t read_bytes;
	_Atomic uint64_t write_bytes;
	_Atomic uint64_t other_cmds;     /* flush, write zeroes, DSM */
	_Atomic uint64_t errors;
	_Atomic uint64_t media_errors;
	_Atomic uint64_t busy_ns;        /* sum of I/O service times */
	_Atomic uint64_t syncs;          /* rblk_tgt_ns_sync(): shutdowns and closes */
	_Atomic uint64_t sync_errors;    /* ... that failed */
};

/* An allowed host of a subsystem. */
/*
 * A host the subsystem knows: allowed in (allowed_hosts), and/or with
 * DH-HMAC-CHAP settings. Settings may exist for a host that is not on the
 * list: a host let in by allow_any_host must authenticate all the same, and
 * a reload sets a host's key before it allows the host, so that no Connect
 * ever finds the host allowed without its key.
 */
struct rblk_tgt_host {
	char *nqn;
	bool allowed;
	struct rblk_tgt_auth_cfg *auth;  /* DH-HMAC-CHAP, NULL: none (target/auth.h) */
};

struct rblk_subsystem {
	struct rblk_target *tgt;
	struct rblk_subsystem *next;     /* tgt->subsys, under tgt->lock */
	enum rblk_subsys_type type;
	char nqn[NVMF_NQN_FIELD_LEN];
	char serial[21];                 /* space padded to 20 in Identify */
	char model[41];
	uint32_t max_nsid;

	pthread_mutex_t lock;            /* hosts, controllers */
	bool allow_any_host;
	struct rblk_tgt_host *hosts;
	unsigned nr_hosts;
	struct rblk_tgt_ctrl *ctrls;         /* list by ->next */
	unsigned nr_ctrls;
	uint16_t next_cntlid;
	uint16_t cntlid_min, cntlid_max; /* the range handed out (rblk_subsystem_opts) */
	bool removing;                   /* no new controllers */

	pthread_rwlock_t ns_lock;        /* the table; readers take a ns reference */
	struct rblk_tgt_ns **ns;             /* [max_nsid], index nsid - 1 */
	unsigned nr_ns;
	struct rblk_tgt_ns_stats retired;    /* counters of removed namespaces */
	_Atomic uint64_t unsafe_shutdowns;
	_Atomic uint64_t power_cycles;   /* controllers created */
};

struct rblk_tgt_ns {
	struct rblk_subsystem *ss;
	uint32_t nsid;
	char *path;                      /* backing file or device; a label for providers */
	struct rblk_provider prov;       /* the storage: built-in backend or the embedder's */
	uint64_t nlb;                    /* size in logical blocks; rblk_tgt_ns_nlb():
					  * a watched backend resizes it live */
	uint32_t lbads;                  /* log2(block size), 9..12 */
	bool read_only;
	bool vwc;                        /* volatile write cache: Flush matters */
	uint8_t uuid[16];
	uint8_t nguid[16];
	uint8_t eui64[8];
	bool has_eui64;
	uint32_t anagrpid;               /* ANA group; atomic loads, changes live (ana.c) */
	_Atomic unsigned refs;           /* the table's + one per request */
	struct rblk_tgt_ns_stats stats;
};

struct rblk_tgt_ctrl {
	struct rblk_subsystem *ss;
	struct rblk_tgt_ctrl *next;          /* ss->ctrls, under ss->lock */
	uint16_t cntlid;
	char hostnqn[NVMF_NQN_FIELD_LEN];
	uint8_t hostid[16];
	struct rblk_listener *listener;  /* the admin queue's port (NULL unknown); set under tgt->lock */
	/*
	 * DH-HMAC-CHAP keys of the host (NULL: no authentication), snapshot at
	 * the admin Connect, read-only after: a change fails the controller.
	 */
	struct rblk_tgt_auth_keys *auth;
	_Atomic int refs;                /* one per bound sq, plus transient */
	uint64_t created_ms;

	pthread_mutex_t lock;            /* everything below */
	uint32_t cc;
	uint32_t csts;
	uint32_t kato_ms;                /* 0 = no keep-alive timer */
	bool fatal;                      /* KATO expired / admin queue lost */
	bool clean_shutdown;             /* CC.SHN completed, every namespace synced */
	uint32_t shn_gen;                /* CC.SHN writes: which shutdown a flush serves */
	uint32_t aec;                    /* Async Event Configuration (feature 0Bh) */
	uint32_t aen_masked;             /* AEC bits reported, waiting for the log read */
	uint32_t nr_io_queues;           /* granted by Set Features 07h (or the maximum) */
	bool vwc_enabled;                /* feature 06h */
	uint32_t max_qid;                /* size of sqs - 1 */
	struct rblk_sq **sqs;            /* [max_qid + 1] */
	struct rblk_req *aer[RBLK_AERL + 1];
	unsigned nr_aer;
	uint32_t aen_pending[RBLK_MAX_AEN_PENDING];
	unsigned nr_aen_pending;
	uint32_t changed_ns[NVME_CHANGED_NS_MAX];
	uint32_t nr_changed_ns;          /* UINT32_MAX: overflowed */
	struct nvme_error_log_entry errlog[RBLK_ERR_LOG_ENTRIES];
	uint64_t err_count;
};

/* FCTYPE of a fabrics command (opcode 0x7F): byte 4 of the SQE. */
static inline uint8_t rblk_req_fctype(const struct rblk_req *req)
{
	return ((const uint8_t *)req->cmd)[NVME_SQE_FCTYPE_OFFSET];
}

static inline bool rblk_tgt_ctrl_is_disc(const struct rblk_tgt_ctrl *ctrl)
{
	return ctrl->ss->type == RBLK_SUBSYS_DISCOVERY;
}

/*
 * Whether hosts reach ss through l (tgt->lock held): the discovery subsystem
 * on every port; an NVM subsystem when l exports every subsystem or links ss.
 * l NULL (the transport did not say which port): yes.
 */
static inline bool rblk_listener_exports_locked(const struct rblk_listener *l,
						const struct rblk_subsystem *ss)
{
	if (!l || !l->linked_only || ss->type == RBLK_SUBSYS_DISCOVERY)
		return true;
	for (unsigned i = 0; i < l->nr_subsys; i++)
		if (l->subsys[i] == ss)
			return true;
	return false;
}

/* The listener with that portid, or NULL (tgt->lock held). */
static inline struct rblk_listener *rblk_listener_find_locked(struct rblk_target *tgt,
							      uint16_t portid)
{
	for (unsigned i = 0; i < tgt->nr_listeners; i++)
		if (tgt->listeners[i]->portid == portid)
			return tgt->listeners[i];
	return NULL;
}

/* Relaxed counter helpers (statistics only, never synchronisation). */
static inline void rblk_stat_add(_Atomic uint64_t *c, uint64_t v)
{
	atomic_fetch_add_explicit(c, v, memory_order_relaxed);
}

static inline uint64_t rblk_stat_get(_Atomic uint64_t *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

/* opts.c */
/*
 * Every rule on the target options, run by rblk_target_create() and by
 * rblk-target before it starts (and for --check). 0, or -EINVAL with
 * "OPTION VALUE: must be ..." in @why and the option's field name
 * ("max_queue_depth") in *@field (optional).
 */
int rblk_tgt_opts_check(const struct rblk_target_opts *o, const char **field, char *why,
			size_t len);

/* subsys.c */
/*
 * True when @nqn has the NVMe form (protocol/nqn.h rblk_nqn_validate). Else
 * false, and the first time this process sees the name, one warning naming
 * @where ("subsystems[0].nqn", "--subsystem testnqn", "subsystem").
 */
bool rblk_tgt_nqn_warn_form(const char *where, const char *nqn);
int rblk_subsys_create(struct rblk_target *tgt, const struct rblk_subsystem_opts *opts,
		       enum rblk_subsys_type type, struct rblk_subsystem **out);
/* Disconnects the controllers, waits for them to go, closes the namespaces. */
void rblk_subsys_destroy(struct rblk_subsystem *ss);
/* Looks an NVM or the discovery subsystem up by NQN (tgt->lock held by caller). */
struct rblk_subsystem *rblk_subsys_find_locked(struct rblk_target *tgt, const char *nqn);
bool rblk_subsys_host_allowed(struct rblk_subsystem *ss, const char *hostnqn);
int rblk_subsys_add_host(struct rblk_subsystem *ss, const char *hostnqn);
/*
 * Both change who may connect, and the controllers of a host no longer
 * admitted fail at once (their queues disconnect): a revoked host keeps no
 * access until it happens to reconnect. nvmet leaves them be; the kernel
 * target's admins remove the host's controllers by hand for the same end.
 */
int rblk_subsys_remove_host(struct rblk_subsystem *ss, const char *hostnqn);
void rblk_subsys_set_allow_any(struct rblk_subsystem *ss, bool allow);
/*
 * Sets (cfg) or removes (NULL) an allowed host's DH-HMAC-CHAP configuration,
 * taking cfg over in every case. The host's controllers fail unless the
 * configuration is unchanged. -ENOENT when hostnqn is not an allowed host.
 */
int rblk_subsys_set_host_auth(struct rblk_subsystem *ss, const char *hostnqn,
			      struct rblk_tgt_auth_cfg *cfg);
/*
 * For a new controller of hostnqn: the keys its queues authenticate with, or
 * *out NULL when the host has none. 0 or -errno.
 */
int rblk_subsys_host_keys(struct rblk_subsystem *ss, const char *hostnqn,
			  struct rblk_tgt_auth_keys **out);
/* tgt->lock held: the controllers @hostnqn holds on every subsystem. */
unsigned rblk_tgt_host_ctrls_locked(struct rblk_target *tgt, const char *hostnqn);
/* New controller bound to ss with a free cntlid: 0, -EBUSY (cntlids exhausted), -ENODEV (removing). */
int rblk_subsys_add_ctrl(struct rblk_subsystem *ss, struct rblk_tgt_ctrl *ctrl);
void rblk_subsys_remove_ctrl(struct rblk_subsystem *ss, struct rblk_tgt_ctrl *ctrl);
/* The controller with that cntlid and hostnqn, with a reference; NULL if none. */
struct rblk_tgt_ctrl *rblk_subsys_get_ctrl(struct rblk_subsystem *ss, uint16_t cntlid,
				       const char *hostnqn);
/* Namespace with a reference (rblk_tgt_ns_put), or NULL. I/O path: read lock only. */
struct rblk_tgt_ns *rblk_subsys_get_ns(struct rblk_subsystem *ss, uint32_t nsid);
/* Active NSIDs strictly greater than after, ascending, at most max; returns the count. */
unsigned rblk_subsys_active_list(struct rblk_subsystem *ss, uint32_t after, uint32_t *out,
				 unsigned max);
/* Any namespace with a volatile write cache (Identify VWC). */
bool rblk_subsys_any_vwc(struct rblk_subsystem *ss);
int rblk_subsys_add_ns(struct rblk_subsystem *ss, const struct rblk_ns_opts *opts,
		       uint32_t *nsid);
int rblk_subsys_remove_ns(struct rblk_subsystem *ss, uint32_t nsid);
/* Tells every controller of ss (a namespace appeared, vanished or changed). */
void rblk_subsys_ns_changed(struct rblk_subsystem *ss, uint32_t nsid);
/* Sum of live and retired namespace counters (SMART for NSID 0/0xFFFFFFFF). */
void rblk_subsys_stats(struct rblk_subsystem *ss, struct rblk_tgt_ns_stats *out);

/* ns.c */
int rblk_tgt_ns_create(struct rblk_subsystem *ss, const struct rblk_ns_opts *opts, uint32_t nsid,
		   struct rblk_tgt_ns **out);
/* Closes the backing store; refs must have drained. */
void rblk_tgt_ns_destroy(struct rblk_tgt_ns *ns);
/*
 * Makes the writes the namespace completed durable, synchronously (not on a
 * poll-group thread): a datasync of a built-in file or block device opened
 * writable (mem:/null: succeed at once). Nothing for read-only namespaces,
 * nor for an embedder's provider (its FLUSH and close() are the embedder's).
 * @why ("shutdown", "close") names the occasion in the error log line.
 * Counted in stats.syncs / stats.sync_errors. 0 or -errno.
 */
int rblk_tgt_ns_sync(struct rblk_tgt_ns *ns, const char *why);
/*
 * Follows the backend's size once the namespace is in its subsystem's table
 * (nsid known): a change updates nlb and raises a namespace-attribute event
 * on every controller. Nothing for backends that cannot tell (-EOPNOTSUPP is
 * not an error). 0 or -errno.
 */
int rblk_tgt_ns_watch_size(struct rblk_tgt_ns *ns);
/*
 * The namespace now has nlb blocks (its storage was resized): stores it and,
 * when it changed, raises the namespace-attribute event. Any thread.
 */
void rblk_tgt_ns_set_nlb(struct rblk_tgt_ns *ns, uint64_t nlb);
/* The size in blocks: any thread, changes when the backend resizes. */
static inline uint64_t rblk_tgt_ns_nlb(const struct rblk_tgt_ns *ns)
{
	return __atomic_load_n(&ns->nlb, __ATOMIC_RELAXED);
}
static inline void rblk_tgt_ns_get(struct rblk_tgt_ns *ns)
{
	atomic_fetch_add_explicit(&ns->refs, 1, memory_order_relaxed);
}
static inline void rblk_tgt_ns_put(struct rblk_tgt_ns *ns)
{
	atomic_fetch_sub_explicit(&ns->refs, 1, memory_order_release);
}
/* ns_path.c */
/*
 * The SIZE of "mem:SIZE" / "null:SIZE": rblk_size_parse() (common/parse.h:
 * "64M", "1g", "4096", "2GiB"), and not 0. 0, or -EINVAL / -ERANGE with the
 * reason in @why.
 */
int rblk_tgt_parse_mem_size(const char *s, uint64_t *out, char *why, size_t len);
/*
 * Whether a namespace of @path would open, before there is a target: the
 * block size rule of ns.c, a mem:/null: size that parses, or a file or
 * block device that opens in the mode asked for (rblk_bdev_path_check()).
 * 0, or -errno with the reason in @why.
 */
int rblk_tgt_ns_path_check(const char *path, bool read_only, uint32_t block_size, char *why,
			   size_t len);
/* bdev_provider.c: the built-in backends (a file, block device, mem:, null:) as a provider. */
int rblk_bdev_provider_open(struct rblk_target *tgt, const struct rblk_ns_opts *opts,
			    struct rblk_provider *out);
/*
 * rblk_bdev_sync() of a built-in backend's provider: 0 or -errno, and
 * -EOPNOTSUPP for an embedder's provider (whose submit() is only called on
 * poll-group threads: the target cannot flush it from elsewhere).
 */
int rblk_bdev_provider_sync(const struct rblk_provider *p);
/*
 * Calls fn(arg, bytes) on an engine thread when the built-in backend's size
 * changes (rbd); 0, -EOPNOTSUPP (an embedder's provider, a file), or -errno.
 */
/* Whether p is a built-in backend (not an embedder's provider). */
bool rblk_bdev_provider_is(const struct rblk_provider *p);
int rblk_bdev_provider_watch_size(const struct rblk_provider *p,
				  void (*fn)(void *arg, uint64_t bytes), void *arg);
/* Stable identifiers: a hash of (subsystem NQN, nsid) or of the NQN. */
void rblk_gen_uuid(const char *nqn, uint32_t nsid, uint8_t uuid[16]);
void rblk_gen_nguid(const char *nqn, uint32_t nsid, uint8_t nguid[16]);
void rblk_gen_serial(const char *nqn, char serial[21]);
void rblk_tgt_ns_stats_add(struct rblk_tgt_ns_stats *dst, struct rblk_tgt_ns_stats *src);

/* ctrl.c */
int rblk_tgt_ctrl_create(struct rblk_subsystem *ss, const char *hostnqn, const uint8_t hostid[16],
		     uint32_t kato_ms, struct rblk_tgt_ctrl **out);
void rblk_tgt_ctrl_get(struct rblk_tgt_ctrl *ctrl);
void rblk_tgt_ctrl_put(struct rblk_tgt_ctrl *ctrl);
uint64_t rblk_tgt_ctrl_cap(const struct rblk_tgt_ctrl *ctrl);
/* Property Set CC (ctrl->lock held by the caller). */
void rblk_tgt_ctrl_update_cc_locked(struct rblk_tgt_ctrl *ctrl, uint32_t cc);
bool rblk_tgt_ctrl_ready(struct rblk_tgt_ctrl *ctrl);
/* Binds sq as qid: 0, or a status (Command Sequence Error when the qid is taken). */
uint16_t rblk_tgt_ctrl_install_sq(struct rblk_tgt_ctrl *ctrl, struct rblk_sq *sq, uint16_t qid,
			      uint16_t sqsize, bool sqflow_disabled);
/* Marks the controller failed and disconnects all its queues (ctrl->lock not held). */
void rblk_tgt_ctrl_fatal(struct rblk_tgt_ctrl *ctrl, const char *why);
/* AER held, or completed at once when an event is pending. */
void rblk_tgt_ctrl_queue_aer(struct rblk_tgt_ctrl *ctrl, struct rblk_req *req);
/* Queues event dw0 unless masked/disabled (aec_bit), and delivers it on the admin thread. */
void rblk_tgt_ctrl_add_event(struct rblk_tgt_ctrl *ctrl, uint32_t aec_bit, uint32_t dw0);
void rblk_tgt_ctrl_clear_aen_mask(struct rblk_tgt_ctrl *ctrl, uint32_t aec_bit);
void rblk_tgt_ctrl_ns_changed(struct rblk_tgt_ctrl *ctrl, uint32_t nsid);
/* Records a failed command in the error log; returns true if recorded. */
bool rblk_tgt_ctrl_log_error(struct rblk_tgt_ctrl *ctrl, const struct rblk_req *req, uint16_t status);

/* names.c: nvmet's (and nvmetcli's) names of the ANA states, "optimized", ... */
const char *rblk_ana_state_name(enum rblk_ana_state s); /* "?" for another value */
int rblk_ana_state_parse(const char *name, enum rblk_ana_state *out); /* 0 or -EINVAL */

/* ana.c */
/* A new port's groups: 1 optimized, every other one absent (inaccessible). */
void rblk_ana_port_init(struct rblk_listener *l);
/* The state of @grpid through @l (NULL: a port with the defaults). I/O path: lock-free. */
enum rblk_ana_state rblk_ana_state_on(const struct rblk_listener *l, uint32_t grpid);
/*
 * I/O parse, after the namespace lookup: 0 when the namespace's group is
 * accessible through the controller's port, else the path-related status
 * (ANA Inaccessible, Persistent Loss or Transition, without DNR: another
 * path may serve it).
 */
uint16_t rblk_ana_check_io(struct rblk_req *req);
/* Get Log Page 0Ch for the requesting controller: 0 or a status. */
uint16_t rblk_ana_log(struct rblk_req *req, uint64_t lpo, bool rgo, bool rae);

/* fabrics.c / admin.c / io.c / discovery.c: parse step per command set. */
uint16_t rblk_fabrics_parse_connect(struct rblk_req *req);
uint16_t rblk_fabrics_parse_admin(struct rblk_req *req);
/* Authentication Send / Receive, on any queue of a controller. */
uint16_t rblk_fabrics_parse_auth(struct rblk_req *req);
uint16_t rblk_admin_parse(struct rblk_req *req);
uint16_t rblk_io_parse(struct rblk_req *req);
uint16_t rblk_disc_parse(struct rblk_req *req);

/*
 * The admin command set of one kind of controller (NVM: admin.c, discovery:
 * discovery.c). Both parse through rblk_admin_parse_cmds() (admin.c), which
 * owns what they share: fabrics commands, the not-ready rule, Get Log Page
 * decoding and length, Identify's length, Features, AER and Keep Alive. A
 * NULL handler is an opcode this kind does not have (Invalid Opcode).
 */
struct rblk_admin_cmds {
	uint16_t not_ready_status;              /* any other command before CSTS.RDY */
	bool discovery;                         /* Features: KATO and AEC only */
	void (*get_log_page)(struct rblk_req *req);
	void (*identify)(struct rblk_req *req);
	void (*abort)(struct rblk_req *req);
};
uint16_t rblk_admin_parse_cmds(struct rblk_req *req, const struct rblk_admin_cmds *cmds);
/* Identify Controller, for both kinds. */
void rblk_admin_identify_ctrl(struct rblk_req *req);

/*
 * Get Log Page windows (req.c): bytes [lpo, lpo + data_len) of a log of
 * log_len bytes, or of the discovery log made of genctr and entries, tail
 * zero-filled (protocol/log_pages.h, protocol/disc.h). Invalid Field at LPO
 * when lpo is not dword aligned or past the end.
 */
uint16_t rblk_req_copy_log(struct rblk_req *req, uint64_t lpo, const void *log, size_t log_len);
uint16_t rblk_req_copy_disc_log(struct rblk_req *req, uint64_t lpo, uint64_t genctr,
				const struct nvmf_disc_log_entry *entries, uint32_t numrec);
/* Bumps the discovery generation counter and notifies discovery controllers. */
void rblk_disc_changed(struct rblk_target *tgt);
/*
 * The discovery log for hostnqn as seen through sq: its GENCTR and entries
 * (*entries allocated, caller frees, even when *numrec is 0).
 */
int rblk_disc_build_log(struct rblk_target *tgt, const struct rblk_sq *sq, const char *hostnqn,
			struct nvmf_disc_log_entry **entries, uint32_t *numrec, uint64_t *genctr);

#endif

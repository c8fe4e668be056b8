/* SPDX-License-Identifier: MIT */
/*
 * The contract between the target core and a transport engine (target/rdma/,
 * the unit tests' test transport): what an engine may use, and all it may
 * use; the core's internals are in target/core.h, which engines do not
 * include (the model is Linux drivers/nvme/target: core x command set x
 * backend x transport).
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
 * guarded by ctrl->lock. The I/O path takes no lock and writes no memory that
 * another poll group writes: it finds namespaces without a lock or a shared
 * reference (target/pg.c) and counts into its own poll group's slots.
 */
#ifndef RBLK_TARGET_FABRIC_H
#define RBLK_TARGET_FABRIC_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <rblk/provider.h>
#include <rblk/target.h>

#include "common/clock.h"
#include "protocol/nvme.h"
#include "protocol/nvmf.h"
#include "target/auth.h"
#include "target/storage.h"

struct rblk_target;
struct rblk_subsystem;
struct rblk_tgt_ctrl;
struct rblk_tgt_ns;
struct rblk_sq;
struct rblk_req;
struct rblk_listener;
struct rblk_transport;
struct rblk_tgt_bounce;
struct rblk_tgt_qos_pg;

/* ======================================================================== */
/* Constants the transport and the core agree on.                           */

#define RBLK_REQ_MAX_IOV 16        /* buffers per request (max_io_size / io_unit_size) */
/*
 * rblk_sq_init(): the CM did not say. Outside the 16-bit QID space: a host
 * can put 0xFFFF in its CM private data, and with that value as the marker
 * it skipped the check that its Connect names the same queue.
 */
#define RBLK_QID_UNKNOWN 0x10000u
#define RBLK_TRADDR_LEN INET6_ADDRSTRLEN
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
/* Submission queue: embedded by the transport in its queue object.         */

/* A command's part in a fused operation (target/fused.c). */
enum rblk_fused_state {
	RBLK_FUSED_NONE = 0,
	RBLK_FUSED_PARSED,   /* paired or waiting for its second; execute not yet called */
	RBLK_FUSED_READY,    /* executed (its data is here): waits for the other half */
	RBLK_FUSED_RUNNING,  /* both ready: the compare and write runs */
};

/* How a write passed the namespace's range lock (target/range_lock.c). */
enum rblk_wgate {
	RBLK_WGATE_NONE = 0, /* not a write, or not yet */
	RBLK_WGATE_FAST,     /* unlocked: counted in its poll group's fast_writes */
	RBLK_WGATE_LOCKED,   /* listed in the namespace's lk_writes */
};

enum rblk_sq_state {
	RBLK_SQ_NEW = 0,   /* transport-connected, no Fabrics Connect yet */
	RBLK_SQ_LIVE,      /* Connect succeeded: bound to sq->ctrl as sq->qid */
	RBLK_SQ_CLOSING,   /* rblk_sq_teardown() ran: no new commands */
};

const char *rblk_sq_state_str(enum rblk_sq_state s);

/* Written by the sq's thread only (rblk_stat_inc), read anywhere. */
struct rblk_sq_stats {
	_Atomic uint64_t completed; /* CQEs sent */
	_Atomic uint64_t errors;    /* CQEs with a non-zero status */
};

/* Provider engines one target may use at once (the built-in backends take one). */
#define RBLK_TGT_MAX_ENGINES 4

/* One provider engine as one poll group runs it. */
struct rblk_tgt_pg_engine {
	const struct rblk_provider_engine *e;  /* NULL: not attached on this group */
	void *thread;                   /* what e->attach() made */
	int fd;                         /* its wait fd on the group's epoll set, or -1 */
	bool toggle;                    /* notify() works: the fd signals only while asleep */
	bool on;                        /* ... and signals now */
	bool bufs;                      /* the group's buffers are registered: buf_index */
};

/*
 * The core's share of one poll group (target/pg.c), embedded by the
 * transport in its poll group: the group's slot in every namespace's
 * counters, and its quiescent-state counter for the namespace tables (other
 * threads only read it, and only while they wait for a grace period).
 */
struct rblk_tgt_pg {
	unsigned id;                    /* slot: 0 .. tgt->nr_pgs - 1 */
	_Atomic uint64_t qs;            /* even: online (count), odd: offline */
	/*
	 * The storage engines attached on the group's thread (target/
	 * pg_engine.c), [slot] as in the target's registry: attached on the
	 * first io of a namespace whose provider names the engine.
	 */
	struct rblk_tgt_pg_engine eng[RBLK_TGT_MAX_ENGINES];
	int epfd;                       /* the group's epoll set for their wait fds, or -1 */
	struct iovec *bufs;             /* the group's I/O buffers, offered to each engine */
	unsigned nbufs;
	/* The core's own: bounce units for Compare, Verify, Copy (target/bounce.c). */
	struct rblk_tgt_bounce *bounce;
	/*
	 * The group's load (rblk_target_stats_json): written by its thread
	 * only, read by anyone. Its busy time is the time since start_ns that
	 * it did not spend asleep waiting for work (spinning counts as busy:
	 * it burns the CPU all the same).
	 */
	_Atomic uint64_t start_ns;      /* rblk_clock_ns() when it began polling, 0 before */
	_Atomic uint64_t sleep_seq;     /* odd while the two below change */
	_Atomic uint64_t sleep_ns;      /* asleep waiting for work, past sleeps */
	_Atomic uint64_t sleep_since;   /* the sleep going on (rblk_clock_ns()), 0: awake */
	_Atomic uint64_t buf_waits;     /* requests that waited for the transport's buffer pool */
	/* Namespaces whose commands on this group wait for QoS credit (target/qos.c). */
	struct rblk_tgt_qos_pg *qos_waiting;
};

/*
 * The transport registers each poll group before its first queue, as the
 * slot @id (0 .. tgt->opts.num_poll_groups - 1; -ERANGE, -EEXIST), and
 * unregisters it once the group stops polling. Any thread.
 */
int rblk_tgt_pg_register(struct rblk_target *tgt, struct rblk_tgt_pg *pg, unsigned id);
void rblk_tgt_pg_unregister(struct rblk_target *tgt, struct rblk_tgt_pg *pg);
/*
 * The group's thread, at the top of every loop iteration: it holds no
 * namespace pointer from a table that it has not counted as in flight.
 */
void rblk_tgt_pg_quiescent(struct rblk_tgt_pg *pg);
/* The group's thread, before it sleeps: it reads no table until quiescent() again. */
void rblk_tgt_pg_offline(struct rblk_tgt_pg *pg);
/*
 * Waits until every registered poll group has passed a quiescent state or
 * been offline since the call: a table entry unpublished before it is found
 * by no poll group afterwards. Not on a poll group's thread in the middle of
 * an iteration (the embedder's loop thread between iterations is fine: the
 * wait polls it).
 */
void rblk_tgt_synchronize(struct rblk_target *tgt);
/*
 * The group's thread, around each wait for work: its busy time. Two clock
 * reads per sleep, next to the sleep's own system call.
 */
void rblk_tgt_pg_sleep_begin(struct rblk_tgt_pg *pg);
void rblk_tgt_pg_sleep_end(struct rblk_tgt_pg *pg);
/*
 * Time the group spent awake since it started (spinning included), any
 * thread; it does not grow while the group sleeps, so it only ever grows.
 */
uint64_t rblk_tgt_pg_busy_ns(const struct rblk_tgt_pg *pg);
/*
 * The group's thread, every loop iteration while pg->qos_waiting is set:
 * starts the commands waiting for QoS credit that now have it, in arrival
 * order per namespace. Returns how many started. The loop must not sleep
 * longer than RBLK_TGT_QOS_POLL_MS while pg->qos_waiting is set.
 */
#define RBLK_TGT_QOS_POLL_MS 1
unsigned rblk_tgt_pg_qos_poll(struct rblk_tgt_pg *pg);
/* Poll groups when the options say 0: one per online CPU. */
unsigned rblk_tgt_default_poll_groups(void);

/*
 * The group's storage engines (target/pg_engine.c), all on its thread. The
 * loop: rblk_tgt_pg_storage_poll() with the other completions,
 * rblk_tgt_pg_storage_flush() once after the iteration's submissions;
 * rblk_tgt_pg_storage_awake() at the top of an iteration after a sleep;
 * before sleeping rblk_tgt_pg_storage_sleep(), and when epoll reports a tag
 * that is not the group's own, rblk_tgt_pg_storage_event().
 */
/* Completions reaped (their commands finish through complete_io). */
unsigned rblk_tgt_pg_storage_poll(struct rblk_tgt_pg *pg);
void rblk_tgt_pg_storage_flush(struct rblk_tgt_pg *pg);
/* Ios in flight in the group's engines; *local: of those, the local ones. */
unsigned rblk_tgt_pg_storage_inflight(const struct rblk_tgt_pg *pg, unsigned *local);
/* Awake: completions need not signal the wait fds. */
void rblk_tgt_pg_storage_awake(struct rblk_tgt_pg *pg);
/*
 * About to sleep: switch the wait fds on (reset: read them first, for a loop
 * that does not learn which fd fired) and poll once more. true: work showed
 * up, or an engine without a wait fd has ios in flight; do not sleep.
 */
bool rblk_tgt_pg_storage_sleep(struct rblk_tgt_pg *pg, bool reset);
/* Whether tag (epoll's data.ptr) is an engine's wait fd; if so it is read. */
bool rblk_tgt_pg_storage_event(struct rblk_tgt_pg *pg, const void *tag);
/*
 * The group's I/O buffers (its registered pool), which requests' iov point
 * into; offered to every engine that attaches (and to those attached and
 * idle now). The array is copied. 0 or -ENOMEM. n == 0: the buffers are
 * going away (their RDMA device did): no engine attached later registers
 * them, and no io names them again (engines that registered them keep
 * their pages pinned until they detach).
 */
int rblk_tgt_pg_storage_buffers(struct rblk_tgt_pg *pg, const struct iovec *iov, unsigned n);
/*
 * The group's thread starts: attach every engine the target has so far
 * (the storage's; later ones attach at their first io). 0 or -errno.
 */
int rblk_tgt_pg_storage_attach(struct rblk_tgt_pg *pg, struct rblk_target *tgt);
/* The group stops: nothing is in flight; every engine detaches. */
void rblk_tgt_pg_storage_detach(struct rblk_tgt_pg *pg);

struct rblk_clock_cache; /* common/clock.h */

struct rblk_sq {
	/*
	 * Set by rblk_sq_init(); then the transport fills pg, listener and
	 * local_traddr before the first request. Read-only for the core.
	 */
	struct rblk_target *tgt;
	const struct rblk_transport_ops *ops;
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
	/*
	 * The poll group's per-iteration precise clock (the latency
	 * histograms: one read per iteration, not per command), or NULL: no
	 * histograms (rblk_target_opts.latency_stats off). Owned by the sq's
	 * thread.
	 */
	struct rblk_clock_cache *lat_clock;
	struct rblk_tgt_pg *pg;          /* the poll group that owns the sq (registered) */

	/* Core state (written on the sq's thread; ctrl/qid under ctrl->lock). */
	enum rblk_sq_state state;
	struct rblk_tgt_ctrl *ctrl;          /* reference held while LIVE / CLOSING */
	uint16_t qid;
	uint16_t size;                   /* Connect SQSIZE + 1; 0 before Connect */
	uint16_t sqhd;
	bool sqhd_disabled;              /* Connect CATTR bit 2 */
	_Atomic uint64_t last_cmd_ms;    /* traffic-based keep-alive (TBKAS) */
	struct rblk_tgt_auth_q auth;     /* DH-HMAC-CHAP when ctrl->auth (target/auth.h) */
	/*
	 * Fused operations (target/fused.c): a FUSE=01b command waiting for the
	 * next command to be its second half; the last command was such a
	 * first half and failed (its second gets Failed Fused Command).
	 */
	struct rblk_req *fused_first;
	bool fused_first_failed;
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
	/*
	 * The order is for the cache: what every read and write touches comes
	 * first (the contract's head, the core's per-I/O state, the provider
	 * io, iov[0] and the built-in backends' request), then what only some
	 * commands use. About seven cache lines per read, with the transport's
	 * own fields after this struct.
	 */
	/* Contract fields (see the top of this file). */
	struct nvme_sqe *cmd;       /* the capsule, in the transport's receive buffer */
	struct nvme_cqe cqe;        /* built by the core; LE wire format */
	struct rblk_sq *sq;
	struct rblk_tgt_ns *ns;         /* set by I/O parse; reference held until complete */
	uint32_t data_len;          /* bytes this command moves (set by parse) */
	enum rblk_xfer_dir dir;
	unsigned iovcnt;            /* filled by the transport before execute */
	int buf_index;              /* registered buffer index when iovcnt == 1, else -1 */
	void (*execute)(struct rblk_req *req);
	uint16_t status;            /* kernel-style NVMe status of the parse/completion */
	uint16_t error_loc;         /* SQE byte offset for the error log; 0xFFFF none */

	/* Core private, per I/O. */
	enum rblk_fused_state fused_state;
	struct rblk_req *cpl_next;  /* the transport's completion list (complete_io) */
	uint64_t start_ns;          /* I/O: for the SMART busy time */
	uint64_t arrive_ns;         /* the iteration that received it (sq->lat_clock) */
	uint64_t err_lba;           /* I/O: LBA reported in the error log */
	void *bounce;               /* Compare, Verify, Copy, C&W: a pool unit, or NULL */
	struct rblk_req *fused;     /* fused Compare and Write: the other half of the pair */
	enum rblk_wgate wgate;      /* the range lock (target/range_lock.c) */
	int pio_res;                /* the provider io's result (rblk_provider_complete) */
	void (*pio_done)(struct rblk_req *req, int res); /* the command's next step */
	struct rblk_provider_io pio; /* the command as the namespace's provider sees it */

	/* Contract: the data buffers, filled by the transport before execute. */
	struct iovec iov[RBLK_REQ_MAX_IOV];

	/* pio.priv: an engine's per-io state (the built-in backends' request). */
	_Alignas(16) unsigned char pio_priv[RBLK_PROVIDER_IO_PRIV_MAX];

	/* Core private, for some commands only. */
	uint16_t dsm_nr;            /* DSM: ranges (1-based) */
	uint16_t dsm_idx;           /* DSM: next range to deallocate */
	uint64_t wz_next;           /* emulated Write Zeroes: next byte to zero */
	uint64_t wz_end;
	/*
	 * Compare, Verify, Copy and fused Compare and Write (target/compare.c,
	 * target/fused.c): the byte cursor through the range, the bounce unit
	 * as the provider's iov, and the links of the wait lists.
	 */
	struct rblk_req *wait_next; /* bounce or range-lock wait list */
	void (*resume)(struct rblk_req *req); /* run when the wait is over */
	uint64_t x_next;            /* next byte of the range to read */
	uint64_t x_end;
	uint64_t x_dst;             /* Copy: next destination byte */
	uint32_t x_len;             /* bytes the read in flight covers */
	uint32_t x_off;             /* Compare: bytes of the host's data compared */
	struct iovec biov;
	void (*x_done)(struct rblk_req *req, int res); /* Compare: 0, -EILSEQ or a read error */
	/* Fused Compare and Write, and the range lock. */
	uint16_t fused_status;      /* decided before execute: complete with it */
	uint64_t lk_start, lk_end;  /* bytes under the range lock */
	struct rblk_req *lk_next;   /* the namespace's lk_cws or lk_writes */
	void (*lk_failed)(struct rblk_req *req);
	/* Reservation commands (target/resv_cmd.c): the keys of the data, host-endian. */
	uint64_t resv_crkey, resv_nkey;
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
/* The fabric: what the core calls to run the transport. One const table     */
/* per transport engine (target/rdma/fabric.c; the unit tests' test           */
/* transport), given to rblk_tgt_create(). The engine's state, struct        */
/* rblk_transport, is opaque to the core.                                    */

/* A transport's admission counters (rblk_fabric_ops.admit_stats). */
struct rblk_fabric_admit_stats {
	uint32_t connections;            /* alive, pending or not */
	uint32_t pending;                /* of which without a Connect yet */
	uint32_t evicting;               /* evicted, not yet torn down */
	uint64_t evicted;                /* since start: took a newer connection's place */
	uint64_t refused_queues;         /* since start, per bound: max_queues */
	uint64_t refused_pending;        /* max_pending_queues */
	uint64_t refused_pending_addr;   /* max_pending_per_addr */
};

struct rblk_fabric_ops {
	const char *name;                /* "rdma" */
	/* Allocates the transport state for tgt (no threads, no devices yet). */
	int (*create)(struct rblk_target *tgt, struct rblk_transport **out);
	/* Stops it if started, closes listeners, frees. */
	void (*destroy)(struct rblk_transport *t);
	/*
	 * Starts listening on l (before or after start). -EADDRNOTAVAIL /
	 * -ENODEV when no device serves the address and l->require_rdma,
	 * -EADDRINUSE, ...
	 */
	int (*listen)(struct rblk_transport *t, struct rblk_listener *l);
	/* Starts the poll groups (and whatever accepts connections); returns at once. */
	int (*start)(struct rblk_transport *t);
	/*
	 * Disconnects every queue, waits until all are destroyed
	 * (rblk_sq_destroy), then joins the threads. Not async-signal-safe;
	 * called from rblk_target_run() after rblk_target_stop(), and from
	 * rblk_target_destroy().
	 */
	void (*stop)(struct rblk_transport *t);
	/*
	 * Waits a little (about @us microseconds) for the transport to make
	 * progress: the core calls it (rblk_tgt_idle_wait) while requests,
	 * controllers or a grace period drain. On the thread that runs an
	 * embedder's loop it polls instead of sleeping, since nothing else would.
	 */
	void (*idle_wait)(struct rblk_transport *t, unsigned us);
	/*
	 * RBLK_THREADS_EMBEDDER: the fd the embedder waits on, and one iteration
	 * of the loop on the thread that started the transport
	 * (rblk_target_poll()). -EINVAL when the transport is not started in
	 * that mode; poll: -EPERM on another thread.
	 */
	int (*fd)(struct rblk_transport *t);
	int (*poll)(struct rblk_transport *t, int *timeout_ms);
	/*
	 * Optional: the admission counters, for rblk_target_stats_json(). Any
	 * thread; a consistent snapshot.
	 */
	void (*admit_stats)(struct rblk_transport *t, struct rblk_fabric_admit_stats *out);
};

/*
 * rblk_target_create() on a given fabric and storage: the public
 * constructor calls it (target/rdma/fabric.c: the RDMA engine and the
 * built-in backends), and so do the unit tests with their test transport.
 */
int rblk_tgt_create(const struct rblk_target_opts *opts, const struct rblk_fabric_ops *fabric,
		    const struct rblk_storage_ops *storage, struct rblk_target **out);

/* Relaxed counter helpers (statistics only, never synchronisation). */
static inline void rblk_stat_add(_Atomic uint64_t *c, uint64_t v)
{
	atomic_fetch_add_explicit(c, v, memory_order_relaxed);
}

/*
 * A counter with one writer thread: a plain load and store (no locked
 * read-modify-write), still whole for readers on other threads.
 */
static inline void rblk_stat_inc(_Atomic uint64_t *c, uint64_t v)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
			      memory_order_relaxed);
}

static inline uint64_t rblk_stat_get(const _Atomic uint64_t *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

/*
 * What an engine reads of the target it serves: the options, defaults filled
 * in (rblk_target_create() resolved num_poll_groups and backend).
 */
const struct rblk_target_opts *rblk_tgt_opts(const struct rblk_target *tgt);
/* Readable once rblk_target_stop() was called: the embedder's loop waits on it too. */
int rblk_tgt_stop_fd(const struct rblk_target *tgt);

#endif

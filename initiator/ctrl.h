/* SPDX-License-Identifier: MIT */
/*
 * The initiator's controller object and the pieces every initiator file
 * shares: struct rblk_ctrl, struct rblk_qpair (an I/O queue), struct rblk_ns,
 * and the internal entry points of each file.
 *
 * Threads and locks (outermost first):
 *   ctrl->lock      reconnect state, qpair ownership, namespace list, sync pool
 *   ctrl->admin.lock  the admin queue: held by whoever runs an admin command
 *                   (a user call, the keep-alive tick, the controller thread)
 *   qpair->hq.lock  one I/O queue: its owner's submit/poll, and the
 *                   controller thread during recovery
 *   ctrl->mem_lock  registered memory regions (read-mostly)
 * The controller thread (thread.c) watches the CM channels, sends keep-
 * alives, and runs the reconnect state machine; users never wait for it on
 * the I/O path.
 */
#ifndef RBLK_INITIATOR_CTRL_H
#define RBLK_INITIATOR_CTRL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <rblk/initiator.h>

#include "auth/auth.h"
#include "common/clock.h"
#include "common/wakefd.h"
#include "initiator/queue.h"
#include "initiator/reconnect.h"
#include "protocol/nvme.h"
#include "transport/rdma.h"

#define RBLK_ADMIN_TIMEOUT_MS 30000	/* admin commands (the kernel allows 60 s) */
#define RBLK_BRINGUP_TIMEOUT_MS 10000	/* each command while connecting */
#define RBLK_SHUTDOWN_TIMEOUT_MS 5000	/* CSTS.SHST, as the Linux host */
#define RBLK_DRAIN_TIMEOUT_MS 2000	/* WR flush after a disconnect */
#define RBLK_IO_TIMEOUT_MS_DEFAULT 30000 /* the Linux host's nvme_core.io_timeout */
#define RBLK_IO_QUEUES_MAX 64u

struct rblk_mpath;
struct rblk_mpath_qp;

struct rblk_mem_region {
	uintptr_t start;
	size_t len;
	bool caller;			/* rblk_mem_register(): the caller's memory */
	struct rblk_mr *mr;		/* its registration; NULL while there is no device */
	struct rblk_mr_pool *pool;	/* rblk_buf_alloc(): a one-unit pool */
};

struct rblk_qpair {
	struct rblk_hq hq;
	struct rblk_ctrl *ctrl;
	unsigned index;			/* in ctrl->ioq[] (qid = index + 1) */
	bool owned;			/* handed out (rblk_qpair_alloc or a sync call) */
	bool sync;			/* in the sync pool */
	bool lazy_arm;			/* rblk_poll() leaves arming to rblk_qpair_prepare_sleep() */
	int epfd;			/* rblk_qpair_fd(): CQ channel + wake */
	bool cq_watched;		/* the CQ's channel is in epfd (not between two devices) */
	struct rblk_wakefd wake;	/* the controller thread's wakeups */
	struct rblk_io *pending;	/* partly issued: waits for slots or bounce units */
	struct rblk_io *done_head, *done_tail;	/* completed, callbacks not yet run */
	unsigned ndone;			/* on the done list */
	unsigned inflight;		/* submitted, callback not yet run */
	struct rblk_qpair *sync_next;
	struct rblk_mpath_qp *mpath;	/* a multipath head's qpair: everything goes there (mpath_io.c) */
};

struct rblk_ns {
	struct rblk_ctrl *ctrl;
	uint32_t nsid;
	_Atomic uint64_t nsze;		/* blocks; the controller thread updates it on a resize (aen.c) */
	unsigned lba_shift;
	bool read_only;
	uint64_t uid;			/* unique per open, for the per-thread last status */
	struct nvme_id_ns *id;
	struct rblk_ns *next;
	struct rblk_mpath *mpath;	/* a multipath head's namespace (ctrl NULL) */
};

struct rblk_ctrl {
	/* What to connect to (strings owned). */
	struct rblk_connect_opts opts;
	char *traddr, *trsvcid, *host_traddr, *subnqn;
	struct rblk_host_id host;
	struct sockaddr_storage dst, src;
	bool has_src;
	bool discovery;			/* the discovery controller: admin queue only */
	uint32_t kato_ms;

	/* DH-HMAC-CHAP (opts.dhchap_* parsed once; never logged, wiped on free). */
	bool has_host_key, has_ctrl_key;
	struct rblk_auth_secret host_key, ctrl_key;
	uint16_t auth_tid;		/* next transaction ID: a counter, as Linux */
	uint32_t auth_seqnum;		/* last S2: random start, +1 per transaction, never 0 */

	/*
	 * The RDMA device every queue uses; an anchor id keeps it open across
	 * reconnects. When it goes away (DEVICE_REMOVAL), everything on it is
	 * released once the queues are down (rblk_ctrl_release_device) and the
	 * next connection registers the same memory on whatever device then
	 * serves the route; requests kept for it are rekeyed at the resume.
	 */
	struct rblk_device *dev;
	struct rblk_pd *pd;
	struct rblk_cm_channel *anchor_ch;
	struct rblk_cm_id *anchor;
	uint8_t responder_resources;
	bool dev_removed;		/* the device said it is going: release it */
	bool rekey;			/* attached to a new device: kept requests need its keys */

	/* What the controller told us. */
	uint16_t cntlid;
	uint64_t cap;
	uint32_t vs;
	struct nvme_id_ctrl *id;
	uint32_t max_xfer;		/* bytes per command */
	uint32_t io_incapsule_max;	/* in-capsule bytes on I/O queues */
	unsigned io_depth;		/* I/O queue entries */
	unsigned nr_io_queues;

	struct rblk_hq admin;
	struct rblk_qpair **ioq;	/* nr_io_queues */

	pthread_mutex_t lock;
	struct rblk_rc rc;
	_Atomic int state;		/* enum rblk_ctrl_state, readable without the lock */
	struct rblk_ns *ns_list;
	struct rblk_qpair *sync_free;
	pthread_cond_t sync_cond;

	/* The controller thread. */
	pthread_t thread;
	bool thread_running;
	atomic_bool stopping;
	int wake_fd;			/* eventfd */
	atomic_bool conn_lost;		/* a queue or the keep-alive saw the connection go */

	/*
	 * Asynchronous events (aen.c). aer_* under admin.lock; the atomics
	 * are read by other threads (a multipath head) without it.
	 */
	bool oneshot;			/* no controller thread: no events asked for */
	bool aer_on;			/* keep a request outstanding on this connection */
	bool aer_outstanding;		/* our one Asynchronous Event Request is posted */
	_Atomic uint32_t aen_enabled;	/* notices Set Features turned on (NVME_AEN_CFG_*) */
	_Atomic uint32_t aen_pending;	/* work for the controller thread (aen.c) */
	_Atomic uint32_t ana_events;	/* ANA change notices received so far */
	_Atomic int event_fd;		/* written on each ANA change notice (a head's wake fd), or -1 */

	/* Keep-alive (ka_* under admin.lock, except the atomic). */
	uint64_t ka_interval_ms;
	bool ka_outstanding;
	uint64_t ka_sent_ms;
	_Atomic uint64_t ka_next_ms;

	/* Registered memory. */
	pthread_rwlock_t mem_lock;
	struct rblk_mem_region *regions;	/* sorted by start, no overlaps */
	unsigned nregions, regions_cap;
};

/* ctrl.c */
/* rblk_connect(); @oneshot: no controller thread (discovery: connect, read, disconnect). */
int rblk_ctrl_create(const struct rblk_connect_opts *opts, bool oneshot, struct rblk_ctrl **out,
		     uint16_t *status);
/*
 * First queue resolved: adopt its device (PD, an anchor id bound to the local
 * address) and register on it the memory of an earlier device's, if any.
 */
int rblk_ctrl_attach_device(struct rblk_ctrl *c, struct rblk_cm_id *id);
/*
 * Every queue down: drop whatever the controller holds on its device (CQs,
 * registrations, PD, anchor id), keeping the memory, so that a removed device
 * can finish going. The controller thread only.
 */
void rblk_ctrl_release_device(struct rblk_ctrl *c);
/* The controller thread: the anchor id's events; true when its device is being removed. */
bool rblk_ctrl_anchor_removed(struct rblk_ctrl *c);
void rblk_ctrl_wake(struct rblk_ctrl *c);
void rblk_ctrl_set_state(struct rblk_ctrl *c, enum rblk_ctrl_state st);
/* Every queue down; user I/O kept for resubmission when @requeue, else failed with -ENOTCONN. */
void rblk_ctrl_teardown_queues(struct rblk_ctrl *c, bool requeue);
/* RESUME: every I/O queue live again, kept I/O reposted. */
void rblk_ctrl_resume_io(struct rblk_ctrl *c);
/* FAIL_IO: kept and pending I/O completes with -ENOTCONN. */
void rblk_ctrl_fail_io(struct rblk_ctrl *c);

/*
 * auth_queue.c: after a successful Connect of @hq whose DW0 is @dw0, runs
 * DH-HMAC-CHAP on the queue when the controller asks for it (ATR); 0 when
 * it does not. -EOPNOTSUPP for a secure channel (ASCR), -EACCES without a
 * host secret or when authentication fails, -EPROTO for a controller that
 * breaks the protocol, -EREMOTEIO with *status for an NVMe error status,
 * or the queue's -errno.
 */
int rblk_ctrl_authenticate(struct rblk_ctrl *c, struct rblk_hq *hq, uint32_t dw0, uint16_t *status);

/* bringup.c: one full connect (admin queue, enable, identify, I/O queues). */
int rblk_ctrl_establish(struct rblk_ctrl *c, bool reconnect, uint16_t *status);

/* admin.c */
/*
 * One admin command with @len bytes of data at @buf (direction from the
 * opcode, or FCTYPE for fabrics commands). @bringup allows it while the
 * controller is (re)connecting. 0 with *status set (maybe an error status),
 * or -errno (-ENOTCONN when the controller is not live).
 */
int rblk_admin_exec(struct rblk_ctrl *c, const struct nvme_sqe *sqe, void *buf, uint32_t len,
		    bool bringup, int timeout_ms, uint32_t *dw0, uint32_t *dw1, uint16_t *status);
/* Identify Namespace @nsid into @id: rblk_admin_exec()'s result, *status set. */
int rblk_ctrl_identify_ns(struct rblk_ctrl *c, uint32_t nsid, struct nvme_id_ns *id,
			  uint16_t *status);
int rblk_prop_get(struct rblk_ctrl *c, uint32_t ofst, uint64_t *value);
int rblk_prop_set(struct rblk_ctrl *c, uint32_t ofst, uint32_t value);
/* CC.SHN and wait for SHST complete; best effort (logs). */
void rblk_ctrl_shutdown(struct rblk_ctrl *c);

/* ka.c */
void rblk_ka_start(struct rblk_ctrl *c, uint64_t now);
/* With admin.lock held: reap admin completions, send a keep-alive when due. -ETIMEDOUT when one went unanswered for KATO. */
int rblk_ka_tick_locked(struct rblk_ctrl *c, uint64_t now);
/* From rblk_poll(): a keep-alive tick when due, never blocking. */
void rblk_ka_poll_hook(struct rblk_ctrl *c);
/* When the next keep-alive event is due (UINT64_MAX: none). */
uint64_t rblk_ka_deadline(struct rblk_ctrl *c);

/* aen.c */
/*
 * At the end of every (re)connect: Set Features (Asynchronous Event
 * Configuration) with the notices of rblk_aen_config(), then the first
 * request. Nothing for a discovery or oneshot controller, or one that offers
 * none of those notices. 0, or the admin queue's -errno (a refused Set
 * Features leaves the notices off; the request is still sent, as Linux).
 */
int rblk_aen_enable(struct rblk_ctrl *c);
/* The notices the host turns on for a controller's OAES: namespace attribute and ANA change. */
uint32_t rblk_aen_config(uint32_t oaes);
/* With admin.lock held: posts the request when none is outstanding and the queue is live. */
void rblk_aen_post_locked(struct rblk_ctrl *c);
/*
 * With admin.lock held: a request's result (@err from the queue, else
 * @status and @dw0 of its completion). Records the event, wakes the
 * controller thread; never blocks. Exposed for the unit tests.
 */
void rblk_aen_complete_locked(struct rblk_ctrl *c, int err, uint16_t status, uint32_t dw0);
/*
 * With admin.lock held, from the controller thread before it sleeps: arm
 * the admin CQ's channel while a request is outstanding, so its answer
 * wakes the thread. True when the channel's fd is worth watching.
 */
bool rblk_aen_watch_locked(struct rblk_ctrl *c);
/* The controller thread, live: act on recorded events, post the next request. */
void rblk_aen_service(struct rblk_ctrl *c);
/* A multipath head: @fd (an eventfd) is written on each ANA change notice; -1 for none. */
void rblk_ctrl_set_event_fd(struct rblk_ctrl *c, int fd);

/* thread.c */
int rblk_ctrl_thread_start(struct rblk_ctrl *c);
void rblk_ctrl_thread_stop(struct rblk_ctrl *c);

/* qpair.c */
int rblk_qpair_create(struct rblk_ctrl *c, unsigned index, unsigned depth, struct rblk_qpair **out);
void rblk_qpair_destroy(struct rblk_qpair *qp);
void rblk_qpair_notify(struct rblk_qpair *qp);
/* The controller's device goes: the queue's CQ leaves the epoll set, its resources go. */
void rblk_qpair_release_device(struct rblk_qpair *qp);
/* A new device: its CQ watched, kept requests given their new keys. */
void rblk_qpair_rekey(struct rblk_qpair *qp);
struct rblk_qpair *rblk_sync_qpair_get(struct rblk_ctrl *c, int *err);
void rblk_sync_qpair_put(struct rblk_ctrl *c, struct rblk_qpair *qp);

/* io.c */
/* With the lock held: the partly issued request stops issuing and completes with @err when idle. */
void rblk_io_fail_pending(struct rblk_qpair *qp, int err);
/* With the lock held, after a new device: the partly issued request's keys looked up again. */
void rblk_io_rekey_pending(struct rblk_qpair *qp);

/* mem.c */
/* Keys of a registered range [addr, addr + len). 0 or -ENOENT. */
int rblk_mem_lookup(struct rblk_ctrl *c, const void *addr, size_t len, uint32_t *lkey,
		    uint32_t *rkey);
/*
 * The device goes: every region's registration dropped, c->pd cleared and
 * returned (for the caller to free). A new one: c->pd = @pd and every region
 * registered on it. Under the write lock, so no lookup sees a half state.
 */
struct rblk_pd *rblk_mem_detach(struct rblk_ctrl *c);
void rblk_mem_attach(struct rblk_ctrl *c, struct rblk_pd *pd);
void rblk_mem_fini(struct rblk_ctrl *c);

/* ns.c */
void rblk_ns_free_all(struct rblk_ctrl *c);
/* A fresh struct rblk_ns uid (the per-thread last status is keyed by it). */
uint64_t rblk_ns_uid_new(void);

#endif

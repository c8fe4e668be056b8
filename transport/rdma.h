/* SPDX-License-Identifier: MIT */
/*
 * rblk's RDMA seam. transport/ is the only code that includes
 * <infiniband/verbs.h> or <rdma/rdma_cma.h>; the target and initiator queue
 * engines, the CLI and the tests see only this header. Everything here
 * returns 0 or -errno (rdma-core's four conventions stop in transport/err.h).
 *
 * Handles are opaque. Some are rdma-core objects under an rblk name (no
 * wrapper, no cost: cm_channel, cm_id, device, pd, mr); cq and qp are small
 * wrappers that add event-ack batching and WR staging.
 *
 * Hot-path shape (see docs/architecture.md §2.3, §2.5):
 *   - A reactor owns one CQ per device with a completion channel whose fd is
 *     non-blocking: busy-poll rblk_cq_poll() in batches; when idle,
 *     rblk_cq_req_notify(), poll once more (a completion may have slipped in
 *     before arming), then sleep in epoll on rblk_cq_fd() and consume the
 *     wakeup with rblk_cq_get_event().
 *   - Work requests are *queued* on the QP (rblk_qp_queue_send/recv copy
 *     them into preallocated staging) and *flushed* once per QP per poll
 *     (rblk_qp_flush_send/recv): one ibv_post_send per chain, which on rxe is
 *     one system call per flush instead of one per I/O. An RDMA WRITE queued
 *     right before its response SEND goes out in the same doorbell.
 *   - Completions come back with the caller's wr_id (a tagged pointer or
 *     container_of cookie); struct rblk_wc has ibv_wc's exact layout, so
 *     polling copies nothing.
 */
#ifndef RBLK_TRANSPORT_RDMA_H
#define RBLK_TRANSPORT_RDMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "transport/addr.h"
#include "transport/counters.h"
#include "transport/device.h"
#include "transport/mr_pool.h"

struct rblk_cm_channel;	/* rdma_event_channel */
struct rblk_cm_id;	/* rdma_cm_id */
struct rblk_device;	/* ibv_context, opened and owned by librdmacm */
struct rblk_pd;		/* ibv_pd */
struct rblk_mr;		/* ibv_mr */
struct rblk_cq;		/* ibv_cq + its completion channel */
struct rblk_qp;		/* ibv_qp + staged send/recv chains */
struct rblk_srq;	/* ibv_srq + its staged receive chain */

/* ------------------------------------------------------------------ */
/* Connection manager                                                  */
/* ------------------------------------------------------------------ */

/*
 * An event channel. @nonblocking sets O_NONBLOCK on its fd so a reactor can
 * epoll it; rblk_cm_get_event() then returns -EAGAIN when empty.
 */
int rblk_cm_channel_create(bool nonblocking, struct rblk_cm_channel **out);
/* Every id on it must be destroyed first. NULL is fine. */
void rblk_cm_channel_destroy(struct rblk_cm_channel *ch);
int rblk_cm_channel_fd(const struct rblk_cm_channel *ch);
int rblk_cm_channel_set_nonblocking(struct rblk_cm_channel *ch, bool nonblocking);

/* An RC (RDMA_PS_TCP) id on @ch with a user @context. */
int rblk_cm_id_create(struct rblk_cm_channel *ch, void *context, struct rblk_cm_id **out);
/*
 * Destroys the id (its QP must be gone: rblk_qp_destroy()). Blocks until
 * every event reported for this id has been acked, so ack first. NULL is fine.
 */
void rblk_cm_id_destroy(struct rblk_cm_id *id);
/*
 * The user context. An id that arrives with CONNECT_REQUEST starts with its
 * listener's context (rdma_cm semantics); set its own before accepting.
 */
void *rblk_cm_id_context(const struct rblk_cm_id *id);
void rblk_cm_id_set_context(struct rblk_cm_id *id, void *context);
/* The device the id is bound to: NULL before address resolution/bind, or for a wildcard listener. */
struct rblk_device *rblk_cm_id_device(const struct rblk_cm_id *id);
/*
 * After a device went away (DEVICE_REMOVAL) and every object on it is
 * destroyed: librdmacm closes its context once it has seen the device go
 * (a refresh of its device list) and no id is left on it, and until that
 * context is closed a device without context disassociation (Soft-RoCE)
 * cannot finish going. This refreshes the list.
 */
void rblk_cm_forget_removed_devices(void);
unsigned rblk_cm_id_port_num(const struct rblk_cm_id *id);
const struct sockaddr *rblk_cm_id_local_addr(const struct rblk_cm_id *id);
const struct sockaddr *rblk_cm_id_peer_addr(const struct rblk_cm_id *id);

/* Binds to @addr (a wildcard binds to no device). */
int rblk_cm_bind(struct rblk_cm_id *id, const struct sockaddr *addr);
/*
 * Binds to @addr (with address reuse, so a restarted target can listen again
 * at once; IPv6 addresses listen for IPv6 only) and listens.
 */
int rblk_cm_listen(struct rblk_cm_id *id, const struct sockaddr *addr, int backlog);
/*
 * Active side. @src (may be NULL) selects the source address, and with it
 * the local device. Completion: ADDR_RESOLVED / ADDR_ERROR, then
 * ROUTE_RESOLVED / ROUTE_ERROR events.
 */
int rblk_cm_resolve_addr(struct rblk_cm_id *id, const struct sockaddr *src,
			 const struct sockaddr *dst, int timeout_ms);
int rblk_cm_resolve_route(struct rblk_cm_id *id, int timeout_ms);

/* rdma_conn_param without the fields that do not apply once a QP exists. */
struct rblk_conn_param {
	const void *private_data;
	uint8_t private_data_len;	/* connect: <= 56 on IB/RoCE; accept: <= 196 */
	uint8_t responder_resources;	/* RDMA READs the peer may have outstanding at us */
	uint8_t initiator_depth;	/* RDMA READs we may have outstanding at the peer */
	uint8_t flow_control;
	uint8_t retry_count;		/* 0-7; ignored by accept */
	uint8_t rnr_retry_count;	/* 0-7, 7 = infinite */
};

/* Needs the QP created on @id. */
int rblk_cm_connect(struct rblk_cm_id *id, const struct rblk_conn_param *param);
int rblk_cm_accept(struct rblk_cm_id *id, const struct rblk_conn_param *param);
int rblk_cm_reject(struct rblk_cm_id *id, const void *private_data, uint8_t len);
/* Moves the QP to the error state (outstanding WRs flush) and tells the peer. */
int rblk_cm_disconnect(struct rblk_cm_id *id);

/* Values equal rdma_cm_event_type's (checked at build time). */
enum rblk_cm_event_type {
	RBLK_CM_EVENT_ADDR_RESOLVED,
	RBLK_CM_EVENT_ADDR_ERROR,
	RBLK_CM_EVENT_ROUTE_RESOLVED,
	RBLK_CM_EVENT_ROUTE_ERROR,
	RBLK_CM_EVENT_CONNECT_REQUEST,
	RBLK_CM_EVENT_CONNECT_RESPONSE,
	RBLK_CM_EVENT_CONNECT_ERROR,
	RBLK_CM_EVENT_UNREACHABLE,
	RBLK_CM_EVENT_REJECTED,
	RBLK_CM_EVENT_ESTABLISHED,
	RBLK_CM_EVENT_DISCONNECTED,
	RBLK_CM_EVENT_DEVICE_REMOVAL,
	RBLK_CM_EVENT_MULTICAST_JOIN,
	RBLK_CM_EVENT_MULTICAST_ERROR,
	RBLK_CM_EVENT_ADDR_CHANGE,
	RBLK_CM_EVENT_TIMEWAIT_EXIT,
};
/* rdma_event_str(): "RDMA_CM_EVENT_ESTABLISHED", ... */
const char *rblk_cm_event_str(enum rblk_cm_event_type type);

struct rblk_cm_event {
	enum rblk_cm_event_type type;
	/*
	 * 0 on success. Otherwise rdma_cm's value as is: a negative errno for
	 * address/route/connect errors, or for REJECTED the transport's reason
	 * (IB CM: 28 = rejected by the consumer, 8 = no listener on that port).
	 */
	int status;
	struct rblk_cm_id *id;		/* the new id for CONNECT_REQUEST */
	struct rblk_cm_id *listen_id;	/* CONNECT_REQUEST only */
	/*
	 * CONNECT_REQUEST: what the peer offered. ESTABLISHED (active side) and
	 * REJECTED: what the peer sent back. private_data stays valid until
	 * the event is acked; transports pad it (56 bytes for a RoCE REQ).
	 */
	struct rblk_conn_param param;
	void *raw;			/* the rdma_cm_event, for the ack */
};

/*
 * Next event. -EAGAIN on a non-blocking channel with none pending. Every
 * event must be acked with rblk_cm_ack_event().
 */
int rblk_cm_get_event(struct rblk_cm_channel *ch, struct rblk_cm_event *ev);
/* Waits up to @timeout_ms (< 0: forever) for the next event; -ETIMEDOUT. */
int rblk_cm_wait_event(struct rblk_cm_channel *ch, int timeout_ms, struct rblk_cm_event *ev);
void rblk_cm_ack_event(struct rblk_cm_event *ev);

/* ------------------------------------------------------------------ */
/* Device, protection domain, memory regions                           */
/* ------------------------------------------------------------------ */

const char *rblk_device_name(const struct rblk_device *dev);

struct rblk_device_attr {
	uint32_t max_qp_wr;
	uint32_t max_qp_rd_atom;	/* RDMA READs a QP can answer at once */
	uint32_t max_qp_init_rd_atom;	/* RDMA READs a QP can issue at once */
	uint32_t max_sge;
	uint32_t max_sge_rd;
	uint32_t max_cqe;
	uint32_t max_qp;
	uint32_t max_mr;
	uint64_t max_mr_size;
	uint32_t max_srq_wr;
	int num_comp_vectors;
	unsigned phys_port_cnt;
};
int rblk_device_query(struct rblk_device *dev, struct rblk_device_attr *out);

/* What `rblk-target` prints on start: where a bound id lives. */
struct rblk_cm_port_info {
	char dev[RBLK_DEV_NAME_MAX];
	unsigned port_num;
	enum rblk_port_state state;
	enum rblk_link_layer link_layer;
	unsigned active_mtu;		/* bytes */
	int gid_index;			/* -1 if the source GID is not in the table */
	enum rblk_gid_type gid_type;
	char gid[INET6_ADDRSTRLEN];
	char netdev[IF_NAMESIZE];
};
/* -ENOTCONN when the id is not bound to a device yet. */
int rblk_cm_id_port_info(const struct rblk_cm_id *id, struct rblk_cm_port_info *out);
/* "rxe0 port 1 (ACTIVE, Ethernet via veth0), RoCE v2 GID ::ffff:10.99.0.1 [1], MTU 1024" */
const char *rblk_cm_port_info_str(const struct rblk_cm_port_info *info, char *buf, size_t len);

int rblk_pd_alloc(struct rblk_device *dev, struct rblk_pd **out);
/* -EBUSY while MRs or QPs still use it. NULL is fine. */
int rblk_pd_dealloc(struct rblk_pd *pd);

/* Values equal ibv_access_flags' (checked at build time). */
enum rblk_access {
	RBLK_ACCESS_LOCAL_WRITE = 1,
	RBLK_ACCESS_REMOTE_WRITE = 2,
	RBLK_ACCESS_REMOTE_READ = 4,
};

int rblk_mr_reg(struct rblk_pd *pd, void *addr, size_t len, int access, struct rblk_mr **out);
/* NULL is fine. */
int rblk_mr_dereg(struct rblk_mr *mr);
uint32_t rblk_mr_lkey(const struct rblk_mr *mr);
uint32_t rblk_mr_rkey(const struct rblk_mr *mr);

/* ------------------------------------------------------------------ */
/* Completion queues                                                   */
/* ------------------------------------------------------------------ */

/*
 * A CQ of at least @cqe entries on @dev, interrupt vector @comp_vector
 * (reduced modulo the device's count). With @with_channel it gets a
 * completion channel whose fd is non-blocking, for epoll.
 */
int rblk_cq_create(struct rblk_device *dev, int cqe, int comp_vector, bool with_channel,
		   struct rblk_cq **out);
/* Acks any pending events first. Every QP on it must be gone. NULL is fine. */
void rblk_cq_destroy(struct rblk_cq *cq);
/* The completion channel's fd (non-blocking), or -1 without one. */
int rblk_cq_fd(const struct rblk_cq *cq);
/* The number of entries actually granted. */
int rblk_cq_size(const struct rblk_cq *cq);
/* Arms the CQ: the next completion wakes the channel once. */
int rblk_cq_req_notify(struct rblk_cq *cq, bool solicited_only);
/*
 * Consumes one wakeup from the channel: 1 if there was one, 0 if none was
 * pending, -errno. Acks are batched (ibv_ack_cq_events takes a mutex), and
 * flushed by rblk_cq_destroy(). The CQ must be re-armed after a wakeup.
 */
int rblk_cq_get_event(struct rblk_cq *cq);

/* Values equal ibv_wc_status' (checked at build time). */
enum rblk_wc_status {
	RBLK_WC_SUCCESS,
	RBLK_WC_LOC_LEN_ERR,
	RBLK_WC_LOC_QP_OP_ERR,
	RBLK_WC_LOC_EEC_OP_ERR,
	RBLK_WC_LOC_PROT_ERR,
	RBLK_WC_WR_FLUSH_ERR,
	RBLK_WC_MW_BIND_ERR,
	RBLK_WC_BAD_RESP_ERR,
	RBLK_WC_LOC_ACCESS_ERR,
	RBLK_WC_REM_INV_REQ_ERR,
	RBLK_WC_REM_ACCESS_ERR,
	RBLK_WC_REM_OP_ERR,
	RBLK_WC_RETRY_EXC_ERR,
	RBLK_WC_RNR_RETRY_EXC_ERR,
	RBLK_WC_LOC_RDD_VIOL_ERR,
	RBLK_WC_REM_INV_RD_REQ_ERR,
	RBLK_WC_REM_ABORT_ERR,
	RBLK_WC_INV_EECN_ERR,
	RBLK_WC_INV_EEC_STATE_ERR,
	RBLK_WC_FATAL_ERR,
	RBLK_WC_RESP_TIMEOUT_ERR,
	RBLK_WC_GENERAL_ERR,
};
/* ibv_wc_status_str(): "success", "Work Request Flushed Error", ... */
const char *rblk_wc_status_str(enum rblk_wc_status status);

/* Values equal ibv_wc_opcode's. Valid only when status is RBLK_WC_SUCCESS. */
enum rblk_wc_opcode {
	RBLK_WC_SEND = 0,
	RBLK_WC_RDMA_WRITE = 1,
	RBLK_WC_RDMA_READ = 2,
	RBLK_WC_LOCAL_INV = 6,
	RBLK_WC_RECV = 1 << 7,
	RBLK_WC_RECV_RDMA_WITH_IMM,
};
/* "SEND", "RDMA_WRITE", "RDMA_READ", "RECV", ... */
const char *rblk_wc_opcode_str(enum rblk_wc_opcode op);

/* wc_flags */
#define RBLK_WC_WITH_IMM (1u << 1)
#define RBLK_WC_WITH_INV (1u << 3)

/* Same layout as struct ibv_wc (checked at build time): polled in place. */
struct rblk_wc {
	uint64_t wr_id;
	enum rblk_wc_status status;
	enum rblk_wc_opcode opcode;
	uint32_t vendor_err;
	uint32_t byte_len;		/* RECV: bytes received */
	uint32_t imm_or_inv_rkey;	/* WITH_IMM: immediate (network order); WITH_INV: rkey */
	uint32_t qp_num;
	uint32_t src_qp;
	unsigned int wc_flags;
	uint16_t pkey_index;
	uint16_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
};

/* Up to @n completions into @wc (poll 16-32 at a time). Count, or -errno. */
int rblk_cq_poll(struct rblk_cq *cq, struct rblk_wc *wc, int n);
/*
 * For simple callers (tools, tests): polls; when empty, arms the CQ, polls
 * again (closing the race with a completion that landed before arming) and
 * sleeps on the channel, until completions arrive or @timeout_ms passes
 * (< 0: forever). Returns how many landed in @wc (>= 1), -ETIMEDOUT, -errno.
 * Needs a CQ created with a channel.
 */
int rblk_cq_poll_wait(struct rblk_cq *cq, struct rblk_wc *wc, int n, int timeout_ms);

/* ------------------------------------------------------------------ */
/* Queue pairs and work requests                                       */
/* ------------------------------------------------------------------ */

/* Same layout as struct ibv_sge (checked at build time). */
struct rblk_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

struct rblk_qp_caps {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;		/* 0 with an srq */
	uint32_t max_send_sge;
	uint32_t max_recv_sge;		/* 0 with an srq */
	uint32_t max_inline_data;
	/*
	 * Receives come from this shared receive queue (on the same PD): the
	 * QP has none of its own, and rblk_qp_queue_recv() refuses.
	 */
	struct rblk_srq *srq;
};

/*
 * An RC QP on @id (rdma_create_qp: the CM moves it through its states), on
 * @pd, completing to @send_cq/@recv_cq (may be the same: one CQ per
 * reactor). The provider may grant more than asked: rblk_qp_get_caps().
 * Staging for max_send_wr/max_recv_wr requests is preallocated here.
 */
int rblk_qp_create(struct rblk_cm_id *id, struct rblk_pd *pd, struct rblk_cq *send_cq,
		   struct rblk_cq *recv_cq, const struct rblk_qp_caps *caps, void *context,
		   struct rblk_qp **out);
/* Destroys the verbs QP (rdma_destroy_qp) and the staging. NULL is fine. */
void rblk_qp_destroy(struct rblk_qp *qp);
/*
 * Moves the QP to the error state by itself (a local verb: no message to the
 * peer, no CM). From then on it accepts no RDMA from the peer into local
 * memory and flushes what was posted. For when the CM may no longer know the
 * connection (rdma_disconnect() fails on a connection it gave up on).
 */
int rblk_qp_set_error(struct rblk_qp *qp);
const struct rblk_qp_caps *rblk_qp_get_caps(const struct rblk_qp *qp);
uint32_t rblk_qp_num(const struct rblk_qp *qp);

/* Values equal ibv_wr_opcode's. */
enum rblk_wr_opcode {
	RBLK_WR_RDMA_WRITE = 0,
	RBLK_WR_RDMA_WRITE_WITH_IMM = 1,
	RBLK_WR_SEND = 2,
	RBLK_WR_SEND_WITH_IMM = 3,
	RBLK_WR_RDMA_READ = 4,
	RBLK_WR_SEND_WITH_INV = 9,
};

/* Values equal ibv_send_flags'. */
#define RBLK_SEND_FENCE (1u << 0)	/* wait for earlier RDMA READs first */
#define RBLK_SEND_SIGNALED (1u << 1)	/* produce a completion */
#define RBLK_SEND_SOLICITED (1u << 2)
#define RBLK_SEND_INLINE (1u << 3)	/* copy the data into the WQE (<= max_inline_data) */

struct rblk_send_wr {
	uint64_t wr_id;
	enum rblk_wr_opcode opcode;
	unsigned flags;			/* RBLK_SEND_* */
	const struct rblk_sge *sge;	/* copied when queued */
	uint32_t num_sge;
	uint64_t remote_addr;		/* RDMA_WRITE*, RDMA_READ */
	uint32_t rkey;			/* RDMA_WRITE*, RDMA_READ */
	uint32_t imm_or_inv_rkey;	/* *_WITH_IMM: immediate (network order); SEND_WITH_INV: rkey */
};

/*
 * Stages one send-queue WR behind the ones already staged. Nothing reaches
 * the NIC until rblk_qp_flush_send(); the data of INLINE sends and the
 * memory of every SGE must stay put until then (the SGE array itself is
 * copied now). Budget send-queue slots before queueing: staging holds at
 * most max_send_wr WRs, and the send queue the same number in flight.
 * Returns 0, -EINVAL (too many SGEs, inline data too long, bad opcode),
 * -ENOBUFS (staging full).
 */
int rblk_qp_queue_send(struct rblk_qp *qp, const struct rblk_send_wr *wr);
/* Stages one receive WR. -EINVAL, -ENOBUFS as above. */
int rblk_qp_queue_recv(struct rblk_qp *qp, uint64_t wr_id, const struct rblk_sge *sge,
		       uint32_t num_sge);
/*
 * Posts everything staged as one chain: one ibv_post_send() call. Staging is
 * empty afterwards either way. *posted (may be NULL) = how many of the
 * staged WRs reached the queue: all on success; on failure the ones before
 * the WR the provider refused, which will complete normally, while the rest
 * never will. 0 when nothing is staged.
 */
int rblk_qp_flush_send(struct rblk_qp *qp, unsigned *posted);
int rblk_qp_flush_recv(struct rblk_qp *qp, unsigned *posted);
unsigned rblk_qp_send_staged(const struct rblk_qp *qp);
unsigned rblk_qp_recv_staged(const struct rblk_qp *qp);

/*
 * A shared receive queue of @max_wr receives of up to @max_sge SGEs on @pd
 * (transport/srq.c). QPs attach through rblk_qp_caps.srq; a receive
 * completion's qp_num says which QP consumed it. Destroy it after its QPs.
 */
int rblk_srq_create(struct rblk_pd *pd, uint32_t max_wr, uint32_t max_sge,
		    struct rblk_srq **out);
/* NULL is fine. */
void rblk_srq_destroy(struct rblk_srq *srq);
/* Stages one receive; -EINVAL (too many SGEs), -ENOBUFS (staging full). */
int rblk_srq_queue_recv(struct rblk_srq *srq, uint64_t wr_id, const struct rblk_sge *sge,
			uint32_t num_sge);
/* Posts what is staged with one call; *posted as for rblk_qp_flush_recv(). */
int rblk_srq_flush(struct rblk_srq *srq, unsigned *posted);

#endif

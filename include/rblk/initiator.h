/* SPDX-License-Identifier: MIT */
/*
 * rblk initiator library: use NVMe-oF/RDMA namespaces (rblk's, the Linux
 * kernel target's, SPDK's) from userspace.
 *
 * Conventions as in target.h: opaque handles, 0 or -errno, out-parameters,
 * options structs that start with their size (use the _init helpers). NVMe
 * command results are 16-bit NVMe status values (kernel style: SC bits 7:0,
 * SCT bits 10:8, More bit 13, DNR bit 14); rblk_status_str() names them.
 * A synchronous call that the target failed returns -EREMOTEIO and, when the
 * caller passes one, stores the NVMe status in *status.
 *
 * Threads: a controller may be used from several threads, but each I/O queue
 * pair (struct rblk_qpair) belongs to one thread at a time. The synchronous
 * calls on a namespace borrow a qpair of the controller for each call (one
 * that no rblk_qpair_alloc() caller holds; they wait when all are busy).
 * A background thread per controller sends keep-alives and reconnects.
 *
 *	struct rblk_connect_opts o;
 *	rblk_connect_opts_init(&o);
 *	o.traddr = "10.0.0.1"; o.subnqn = "nqn.2024-01.io.example:disk0";
 *	rblk_connect(&o, &ctrl);
 *	rblk_ns_open(ctrl, 1, &ns);
 *	void *buf = rblk_buf_alloc(ctrl, 4096);       // registered: zero-copy
 *	rblk_read(ns, buf, 0, 8);                      // 8 blocks of 512 B at LBA 0
 *	rblk_buf_free(ctrl, buf);
 *	rblk_ns_close(ns);
 *	rblk_disconnect(ctrl);                         // CC.SHN, then CM disconnect
 */
#ifndef RBLK_INITIATOR_H
#define RBLK_INITIATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <rblk/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rblk_ctrl;
struct rblk_ns;
struct rblk_qpair;

#define RBLK_DISCOVERY_NQN "nqn.2014-08.org.nvmexpress.discovery"
#define RBLK_NQN_MAX 223

/* Host identity, as nvme-cli finds it: /etc/nvme/hostnqn and /etc/nvme/hostid. */
struct rblk_host_id {
	char hostnqn[RBLK_NQN_MAX + 1];
	uint8_t hostid[16];
};
/*
 * Fills @out from the override arguments (may be NULL), else /etc/nvme/hostnqn
 * and /etc/nvme/hostid, else a generated identity (as gen-hostnqn). The hostid,
 * when only the NQN is known and it has the uuid form, is that UUID.
 */
int rblk_host_id_load(const char *hostnqn, const char *hostid, struct rblk_host_id *out) RBLK_EXPORT;
/* "nqn.2014-08.org.nvmexpress:uuid:<uuid>" from DMI product_uuid, else random (libnvme's order). */
int rblk_hostnqn_generate(char *buf, size_t len) RBLK_EXPORT;

struct rblk_connect_opts {
	size_t size;
	const char *traddr;          /* required: IPv4/IPv6 literal or host name */
	const char *trsvcid;         /* default "4420" */
	const char *host_traddr;     /* source address, NULL = any */
	const char *subnqn;          /* required */
	const char *hostnqn;         /* NULL = rblk_host_id_load() */
	const char *hostid;          /* NULL = rblk_host_id_load() */
	uint32_t nr_io_queues;       /* default: online CPUs, capped by the target */
	uint32_t queue_size;         /* I/O queue entries, 16..1024, default 128 */
	uint32_t keep_alive_tmo;     /* seconds; default 5 (0 for discovery) */
	int32_t reconnect_delay;     /* seconds; default 10 */
	int32_t ctrl_loss_tmo;       /* seconds; default 600; -1 = forever */
	uint32_t connect_timeout_ms; /* address/route resolution and CM connect; default 3000 */
	bool disable_sqflow;         /* Connect CATTR bit 2 */
	bool no_incapsule;           /* never send in-capsule data */
	bool discover_all;           /* rblk_discover: keep the discovery subsystem's own entries (subtype 3) */
	/*
	 * In-band authentication (DH-HMAC-CHAP), used when the controller asks
	 * for it in the Connect response; secrets in the DHHC-1 form nvme-cli
	 * takes ("DHHC-1:01:<base64>:"). Copied at connect, never logged; a
	 * malformed one fails rblk_connect() with -EINVAL. A controller that
	 * requires authentication without a host secret here, or that fails it,
	 * fails the connect with -EACCES.
	 */
	const char *dhchap_secret;       /* host secret: we prove who we are */
	const char *dhchap_ctrl_secret;  /* controller secret: it proves who it is too (needs dhchap_secret) */
};

void rblk_connect_opts_init(struct rblk_connect_opts *opts) RBLK_EXPORT;
/*
 * Connects the admin queue, enables the controller, identifies it, negotiates
 * and connects the I/O queues. On a Connect failure returns -EREMOTEIO with
 * the status in @status (NULL allowed) — e.g. Invalid Host.
 */
int rblk_connect(const struct rblk_connect_opts *opts, struct rblk_ctrl **out,
		 uint16_t *status) RBLK_EXPORT;
/* Shuts the controller down (CC.SHN), disconnects every queue, frees. */
void rblk_disconnect(struct rblk_ctrl *ctrl) RBLK_EXPORT;

/* The controller's Identify data (4096 bytes, struct nvme_id_ctrl layout). */
const void *rblk_ctrl_identify(struct rblk_ctrl *ctrl) RBLK_EXPORT;
uint16_t rblk_ctrl_cntlid(struct rblk_ctrl *ctrl) RBLK_EXPORT;
uint32_t rblk_ctrl_max_xfer(struct rblk_ctrl *ctrl) RBLK_EXPORT;      /* bytes */
uint32_t rblk_ctrl_num_io_queues(struct rblk_ctrl *ctrl) RBLK_EXPORT;
uint32_t rblk_ctrl_io_queue_size(struct rblk_ctrl *ctrl) RBLK_EXPORT;
/* Active namespace ids, ascending; returns the count (<= max) or -errno. */
int rblk_ctrl_list_ns(struct rblk_ctrl *ctrl, uint32_t *nsids, unsigned max) RBLK_EXPORT;
/* Raw admin command (64-byte SQE, data in/out of @buf); status as above. */
int rblk_ctrl_admin_cmd(struct rblk_ctrl *ctrl, void *sqe, void *buf, uint32_t len,
			uint32_t *dw0, uint16_t *status) RBLK_EXPORT;
/* Get Log Page into buf (any length; split as needed). */
int rblk_ctrl_get_log(struct rblk_ctrl *ctrl, uint8_t lid, uint32_t nsid, uint64_t offset,
		      void *buf, uint32_t len, uint16_t *status) RBLK_EXPORT;

/* Controller state as seen by the reconnect machinery. */
enum rblk_ctrl_state {
	RBLK_CTRL_LIVE = 0,
	RBLK_CTRL_RECONNECTING,      /* connection lost; retrying every reconnect_delay */
	RBLK_CTRL_DELETING,
	RBLK_CTRL_LOST,              /* ctrl_loss_tmo expired: I/O fails with -ENOTCONN */
};
enum rblk_ctrl_state rblk_ctrl_state(struct rblk_ctrl *ctrl) RBLK_EXPORT;
const char *rblk_ctrl_state_str(enum rblk_ctrl_state st) RBLK_EXPORT;

/* ---- Discovery ---------------------------------------------------------- */

struct rblk_disc_entry {
	uint8_t trtype, adrfam, subtype, treq;
	uint16_t portid, cntlid, asqsz, eflags;
	char trsvcid[33];
	char traddr[257];
	char subnqn[257];
	uint8_t rdma_qptype, rdma_prtype, rdma_cms;
	uint16_t rdma_pkey;
};

/*
 * Connects to the discovery controller at opts->traddr (subnqn defaults to
 * the well-known NQN), reads the whole log with generation-counter retries,
 * disconnects. *entries is malloc'ed (free()). Entries of subtype 3 (the
 * discovery subsystem itself) are left out unless opts->discover_all.
 */
int rblk_discover(const struct rblk_connect_opts *opts, struct rblk_disc_entry **entries,
		  unsigned *n, uint64_t *genctr, uint16_t *status) RBLK_EXPORT;

/* ---- Namespaces and synchronous I/O -------------------------------------- */

int rblk_ns_open(struct rblk_ctrl *ctrl, uint32_t nsid, struct rblk_ns **out) RBLK_EXPORT;
void rblk_ns_close(struct rblk_ns *ns) RBLK_EXPORT;
uint64_t rblk_ns_num_blocks(struct rblk_ns *ns) RBLK_EXPORT;
uint32_t rblk_ns_block_size(struct rblk_ns *ns) RBLK_EXPORT;
bool rblk_ns_read_only(struct rblk_ns *ns) RBLK_EXPORT;
/* The namespace's Identify data (4096 bytes, struct nvme_id_ns layout). */
const void *rblk_ns_identify(struct rblk_ns *ns) RBLK_EXPORT;

#define RBLK_IO_FUA (1u << 0)

/*
 * @buf may be any memory. rblk_buf_alloc() / rblk_mem_register() memory moves
 * with no copy; other memory is copied through registered bounce buffers of
 * the library (4 KiB per queue entry, and up to 16 units of min(MDTS, 128 KiB)
 * per queue, in which case commands are split at that size).
 */
int rblk_read(struct rblk_ns *ns, void *buf, uint64_t lba, uint32_t nlb) RBLK_EXPORT;
int rblk_write(struct rblk_ns *ns, const void *buf, uint64_t lba, uint32_t nlb,
	       unsigned flags) RBLK_EXPORT;
int rblk_flush(struct rblk_ns *ns) RBLK_EXPORT;
int rblk_write_zeroes(struct rblk_ns *ns, uint64_t lba, uint32_t nlb) RBLK_EXPORT;
int rblk_deallocate(struct rblk_ns *ns, uint64_t lba, uint32_t nlb) RBLK_EXPORT;
/* The NVMe status of the calling thread's last synchronous command on @ns. */
uint16_t rblk_ns_last_status(struct rblk_ns *ns) RBLK_EXPORT;

/* ---- Registered memory ---------------------------------------------------- */

/* Memory registered with the controller's device: moves with no copy. */
void *rblk_buf_alloc(struct rblk_ctrl *ctrl, size_t len) RBLK_EXPORT;
void rblk_buf_free(struct rblk_ctrl *ctrl, void *buf) RBLK_EXPORT;
/* Register caller memory for zero-copy I/O (pinned until unregistered). */
int rblk_mem_register(struct rblk_ctrl *ctrl, void *addr, size_t len) RBLK_EXPORT;
int rblk_mem_unregister(struct rblk_ctrl *ctrl, void *addr) RBLK_EXPORT;

/* ---- Asynchronous I/O ------------------------------------------------------- */

enum rblk_io_op {
	RBLK_OP_READ = 0,
	RBLK_OP_WRITE,
	RBLK_OP_FLUSH,
	RBLK_OP_WRITE_ZEROES,
	RBLK_OP_DEALLOCATE,
};

struct rblk_io;
/* @status: NVMe status, or 0; @err: 0 or -errno for transport failures (-ENOTCONN when lost). */
typedef void (*rblk_io_cb)(struct rblk_io *io, uint16_t status, int err, void *arg);

/* Caller-owned; must stay valid until its callback runs. */
struct rblk_io {
	enum rblk_io_op op;
	struct rblk_ns *ns;
	uint64_t lba;
	uint32_t nlb;
	unsigned flags;              /* RBLK_IO_FUA */
	void *buf;                   /* one contiguous buffer ... */
	const struct iovec *iov;     /* ... or an iovec (buf == NULL; always bounced) */
	unsigned iovcnt;
	uint64_t priv[8];            /* library-private state; do not touch */
};

/* One I/O queue for the calling thread; several per controller are fine. */
int rblk_qpair_alloc(struct rblk_ctrl *ctrl, struct rblk_qpair **out) RBLK_EXPORT;
void rblk_qpair_free(struct rblk_qpair *qp) RBLK_EXPORT;
unsigned rblk_qpair_depth(struct rblk_qpair *qp) RBLK_EXPORT;
/*
 * Queues @io (built into the send chain; nothing is posted until
 * rblk_qpair_flush() or rblk_poll()). -EAGAIN when the queue is full: poll,
 * then retry. Requests larger than the controller's MDTS are split.
 */
int rblk_submit(struct rblk_qpair *qp, struct rblk_io *io, rblk_io_cb cb, void *arg) RBLK_EXPORT;
/* Posts everything queued since the last flush (one doorbell). */
int rblk_qpair_flush(struct rblk_qpair *qp) RBLK_EXPORT;
/*
 * Flushes, then reaps up to @max completions (0: all there are), running
 * callbacks; count or -errno (-ENOTCONN once the controller is lost and
 * nothing is left to report).
 */
int rblk_poll(struct rblk_qpair *qp, unsigned max) RBLK_EXPORT;
/* An fd that becomes readable when rblk_poll() has work (for epoll). */
int rblk_qpair_fd(struct rblk_qpair *qp) RBLK_EXPORT;
unsigned rblk_qpair_inflight(struct rblk_qpair *qp) RBLK_EXPORT;

/* ---- Status names ------------------------------------------------------------ */
const char *rblk_status_str(uint16_t status) RBLK_EXPORT;

#ifdef __cplusplus
}
#endif
#endif

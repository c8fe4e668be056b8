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
	/*
	 * When the connection is lost, complete the I/O in flight and queued
	 * at once with -ENOTCONN, and refuse new I/O with -ENOTCONN while
	 * reconnecting, instead of holding it for the reconnect (nvme-cli's
	 * fast_io_fail_tmo=0). For callers that can send the I/O elsewhere:
	 * the multipath head sets it on every path.
	 */
	bool fast_io_fail;
	/*
	 * An I/O command unanswered this long resets the connection, as the
	 * Linux host's nvme_core.io_timeout: its requests are sent again after
	 * the reconnect (or, with fast_io_fail, fail over at once). Catches a
	 * connection whose keep-alive still gets answers while its I/O does
	 * not. Milliseconds; 0 = the default, 30000; UINT32_MAX = never.
	 */
	uint32_t io_timeout_ms;
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

/* ---- Transport IDs -------------------------------------------------------- */

/*
 * SPDK's transport-ID strings, read as spdk_nvme_transport_id_parse() reads
 * them, so a string written for SPDK's tools works here (`rblk -r`, the fio
 * plugin's filenames):
 *
 *	"trtype=RDMA adrfam=IPv4 traddr=10.0.0.1 trsvcid=4420 subnqn=nqn... ns=1"
 *
 * KEY=VALUE (or KEY:VALUE) pairs separated by blanks; the first '=' or ':'
 * ends the key, so values keep theirs (IPv6 addresses, NQNs). Keys are
 * case-insensitive, values are kept as given. Keys: trtype (RDMA only),
 * adrfam (IPv4 or IPv6), traddr, trsvcid (a decimal port 1-65535), subnqn;
 * and rblk's own: hostnqn, hostid (a UUID), hostaddr (or host_traddr: the
 * source address), ns (a namespace ID, decimal or 0x hex). NQNs follow
 * nvmet's rule (1-223 printable ASCII bytes, no spaces). traddr and trsvcid
 * may be comma-separated lists, one entry per path of a multipath head (one
 * trsvcid serves every traddr). No key is required: callers fill the rest
 * from elsewhere (flags, engine options, defaults).
 */
#define RBLK_TRID_ADDR_MAX 256       /* traddr, hostaddr: host names allowed */
#define RBLK_TRID_SVC_MAX 32

/* Which keys a transport ID gave (struct rblk_trid.set). */
enum rblk_trid_key {
	RBLK_TRID_TRTYPE = 1u << 0,
	RBLK_TRID_ADRFAM = 1u << 1,
	RBLK_TRID_TRADDR = 1u << 2,
	RBLK_TRID_TRSVCID = 1u << 3,
	RBLK_TRID_SUBNQN = 1u << 4,
	RBLK_TRID_HOSTNQN = 1u << 5,
	RBLK_TRID_HOSTID = 1u << 6,
	RBLK_TRID_HOSTADDR = 1u << 7,
	RBLK_TRID_NS = 1u << 8,
};

enum rblk_adrfam {
	RBLK_ADRFAM_ANY = 0,         /* not given */
	RBLK_ADRFAM_IPV4,
	RBLK_ADRFAM_IPV6,
};

/*
 * Filled by rblk_trid_parse(); strings not given are empty. Grows only at
 * the end: set @size to sizeof(struct rblk_trid) before the call, and a
 * library newer than the caller fills only the members the caller knows.
 */
struct rblk_trid {
	size_t size;
	unsigned set;                /* enum rblk_trid_key bits */
	enum rblk_adrfam adrfam;
	char traddr[RBLK_TRID_ADDR_MAX + 1];
	char trsvcid[RBLK_TRID_SVC_MAX + 1];
	char subnqn[RBLK_NQN_MAX + 1];
	char hostnqn[RBLK_NQN_MAX + 1];
	char hostid[37];             /* xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx */
	char host_traddr[RBLK_TRID_ADDR_MAX + 1];
	uint32_t nsid;               /* 0: not given */
};

/*
 * Parses @str into @out (whose size must be set). 0, or -EINVAL with a
 * sentence in @why naming the key and what is wrong with it ("trsvcid
 * '0x1144': must be a decimal number 1-65535", "unknown key 'trtpye'",
 * "subnqn is given twice"); @out is then unchanged. A string that gives both
 * adrfam and traddr must have them agree (a dotted quad is not IPv6, a ':'
 * not IPv4); host names fit either.
 */
int rblk_trid_parse(const char *str, struct rblk_trid *out, char *why, size_t len) RBLK_EXPORT;

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
uint32_t rblk_ns_id(struct rblk_ns *ns) RBLK_EXPORT;          /* its NSID */
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

/*
 * Commands beyond reading and writing. Each fails with -EOPNOTSUPP when the
 * controller does not report it (Identify Controller ONCS, FUSES), and like
 * the calls above with -EREMOTEIO and the status in rblk_ns_last_status().
 *
 * rblk_compare: Compare Failure (NVME status 0x285) when the @nlb blocks at
 * @lba differ from @buf. Split like a Read, so not atomic as a whole.
 *
 * rblk_compare_write: the fused Compare and Write: @data is written over
 * the @nlb blocks at @lba only if they hold @expect, atomically against
 * every other write to the range. Never split: @nlb blocks must fit one
 * command (MDTS, and the controller's atomic compare-and-write unit, which
 * it enforces). A mismatch is Compare Failure; the Write then ends with
 * "aborted: failed fused command", which is not reported. A lost connection
 * fails it with -ENOTCONN and its outcome unknown: it is never sent again.
 *
 * rblk_verify: the blocks are readable (no data moves; split at 65536).
 *
 * rblk_copy: @nr source ranges (up to 128, and the namespace's MSRC + 1),
 * in order, to @dlba onwards, in one command (the namespace's MSSRL and MCL
 * apply; the controller refuses more with Command Size Limit Exceeded).
 */
struct rblk_copy_range {
	uint64_t slba;
	uint32_t nlb;                /* 1..65536 */
};
#define RBLK_COPY_MAX_RANGES 128u

int rblk_compare(struct rblk_ns *ns, const void *buf, uint64_t lba, uint32_t nlb) RBLK_EXPORT;
int rblk_compare_write(struct rblk_ns *ns, const void *expect, const void *data, uint64_t lba,
		       uint32_t nlb) RBLK_EXPORT;
int rblk_verify(struct rblk_ns *ns, uint64_t lba, uint32_t nlb) RBLK_EXPORT;
int rblk_copy(struct rblk_ns *ns, const struct rblk_copy_range *ranges, unsigned nr,
	      uint64_t dlba) RBLK_EXPORT;
/*
 * Any other I/O command of @ns, as nvme-cli's io-passthru sends it
 * (reservations, vendor commands): @sqe is a 64-byte submission entry
 * (NVMe layout, little-endian) whose opcode and CDW2..CDW15 go as given;
 * FLAGS, NSID, the metadata and data pointers are the library's. @buf (up
 * to 128 KiB, and MDTS) moves in the direction of the opcode's low bits
 * (01b to the controller, 10b from it; 11b is refused). @dw0 (optional)
 * gets the completion's DW0, @status (optional) its status. 0, -EREMOTEIO
 * (an error status), or -errno.
 */
int rblk_ns_cmd(struct rblk_ns *ns, const void *sqe, void *buf, uint32_t len, uint32_t *dw0,
		uint16_t *status) RBLK_EXPORT;

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
	RBLK_OP_COMPARE,             /* buf/iov: the nlb blocks expected */
	RBLK_OP_COMPARE_WRITE,       /* fused; buf/iov: 2 x nlb blocks, the expected then the new */
	RBLK_OP_VERIFY,              /* no data */
	RBLK_OP_COPY,                /* lba: destination; buf: nlb struct rblk_copy_range */
	RBLK_OP_CMD,                 /* buf: a struct rblk_cmd (lba, nlb, iov unused) */
};

/* An RBLK_OP_CMD request: rblk_ns_cmd()'s arguments, for the queue. */
struct rblk_cmd {
	uint8_t sqe[64];             /* opcode and CDW2..CDW15 as rblk_ns_cmd() takes them */
	void *data;                  /* any memory (always copied through the library's) */
	uint32_t len;
	uint32_t dw0;                /* out: the completion's DW0 */
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
/*
 * An fd that becomes readable when rblk_poll() has work (for epoll). Every
 * rblk_poll() that finds nothing leaves the completion notification armed,
 * so a caller may sleep on the fd after any poll that returned 0.
 */
int rblk_qpair_fd(struct rblk_qpair *qp) RBLK_EXPORT;
unsigned rblk_qpair_inflight(struct rblk_qpair *qp) RBLK_EXPORT;
/*
 * For callers that spin before they sleep. Arming the notification costs a
 * system call per idle spell on Soft-RoCE (and reading the wakeup it raises
 * another), paid even when a spinning caller finds its next completion
 * without ever sleeping. After rblk_qpair_set_lazy_arm(qp, true),
 * rblk_poll() no longer arms; the caller calls rblk_qpair_prepare_sleep()
 * right before it sleeps on the fd, which arms and looks once more: 0 means
 * sleep (the fd will wake you), 1 means completions are waiting (poll
 * instead), or -errno. On a multipath head's qpair lazy arming changes
 * nothing (its paths arm in every poll) and rblk_qpair_prepare_sleep()
 * returns 0.
 */
void rblk_qpair_set_lazy_arm(struct rblk_qpair *qp, bool lazy) RBLK_EXPORT;
int rblk_qpair_prepare_sleep(struct rblk_qpair *qp) RBLK_EXPORT;

/* ---- Multipath ----------------------------------------------------------------- */

/*
 * A multipath head: one namespace reached through several controllers
 * (paths) of one subsystem, as the Linux host's native multipath. Each path
 * is an rblk_ctrl of its own (same subsystem NQN and host identity); the
 * head checks that the namespace has the same identity (NGUID, EUI-64, size,
 * block size) on every path, reads each path's ANA log page (when the
 * controller reports ANA support: CMIC bit 3; without it every live path
 * counts as optimized), and sends each I/O on the first live path whose ANA
 * group is optimized, else the first non-optimized one; never on an
 * inaccessible, persistent-loss or changing one.
 *
 * Failover: an I/O that fails for a path reason (a transport error, the path
 * leaving LIVE, any path-related NVMe status, SCT 3h: ANA inaccessible,
 * persistent loss, transition, controller or host pathing error) is sent
 * again on another usable path; only a final result (success, or an NVMe
 * error that is not about the path) reaches the caller's callback, so no
 * write is acknowledged that did not succeed. Paths are connected with
 * fast_io_fail, so a lost path hands its I/O back at once. When no path is
 * usable, I/O waits (queue-if-no-path) up to no_path_tmo, then fails with
 * -ENOTCONN. Like the Linux host, a failed-over write may be applied twice
 * (once by the lost path, once by the new one): the data is the same, but
 * overlapping writes in flight at once have no order, as on any block device.
 *
 * Failback: a background thread per head connects paths that were down at
 * start (every reconnect_delay), and re-reads a path's ANA log at once when
 * its controller sends an ANA change notice (an asynchronous event) or an
 * I/O saw an ANA status, and every ana_poll_ms (at least 30 s for a
 * controller that sends the notices); once the first optimized path is live
 * again, new I/O goes there.
 *
 * I/O: rblk_mpath_ns() is the head's namespace (size, block size, Identify
 * of the first path; rblk_ns_close() on it does nothing). The synchronous
 * calls (rblk_read() ...) on it fail over like any head I/O; each calling
 * thread borrows a queue pair of the head, kept for later calls until
 * rblk_mpath_disconnect(), which no such call may overlap. rblk_mpath_qpair_alloc() gives a struct
 * rblk_qpair that the asynchronous calls above drive exactly as a
 * controller's (rblk_submit, rblk_poll, rblk_qpair_fd, rblk_qpair_flush,
 * rblk_qpair_depth, rblk_qpair_inflight, rblk_qpair_free): it holds one
 * queue pair on each live path, a preallocated request per queue entry
 * (nothing allocated per I/O), and its fd wakes on any path's completions
 * and on path changes. Data buffers are plain memory (each path has its
 * own registrations, so data is copied through each path's bounce buffers).
 */
struct rblk_mpath;

#define RBLK_MPATH_MAX_PATHS 8

/*
 * Which usable path of the best ANA state present (optimized, else
 * non-optimized) an I/O goes to; the Linux host's iopolicy, per multipath
 * queue pair.
 */
enum rblk_mpath_iopolicy {
	RBLK_MPATH_IOPOLICY_FIRST = 0,   /* the first in the order given (Linux "numa" on one node) */
	RBLK_MPATH_IOPOLICY_ROUND_ROBIN, /* each in turn */
	RBLK_MPATH_IOPOLICY_QUEUE_DEPTH, /* the one with the fewest of this qpair's I/Os in flight:
					  * a slow path (loss, congestion) gets fewer */
};
/* "first", "round-robin", "queue-depth"; rblk_mpath_iopolicy_parse(): 0 or -EINVAL. */
const char *rblk_mpath_iopolicy_str(enum rblk_mpath_iopolicy pol) RBLK_EXPORT;
int rblk_mpath_iopolicy_parse(const char *s, enum rblk_mpath_iopolicy *out) RBLK_EXPORT;

struct rblk_mpath_opts {
	size_t size;
	/* @npaths connections (1..RBLK_MPATH_MAX_PATHS) to one subsystem: same subnqn. */
	const struct rblk_connect_opts *paths;
	unsigned npaths;
	uint32_t nsid;               /* 0: the only active namespace */
	int32_t no_path_tmo;         /* s I/O waits for a usable path; default paths[0].ctrl_loss_tmo; -1 forever */
	uint32_t ana_poll_ms;        /* ANA log re-read period without notices; default 1000 */
	enum rblk_mpath_iopolicy iopolicy; /* default RBLK_MPATH_IOPOLICY_FIRST */
};
void rblk_mpath_opts_init(struct rblk_mpath_opts *opts) RBLK_EXPORT;
/*
 * Connects every path once; succeeds when at least one path connected and
 * has the namespace (the others are retried in the background). Each path's
 * ctrl_loss_tmo is replaced by "forever" (a path of a head never gives up;
 * no_path_tmo bounds the wait) and fast_io_fail is set. The error of the
 * first path when none connects (-EREMOTEIO with its status in @status);
 * -EINVAL for bad options or paths to different subsystems.
 */
int rblk_mpath_connect(const struct rblk_mpath_opts *opts, struct rblk_mpath **out,
		       uint16_t *status) RBLK_EXPORT;
/* Disconnects every path and frees; every qpair of the head must be freed first. */
void rblk_mpath_disconnect(struct rblk_mpath *mp) RBLK_EXPORT;
struct rblk_ns *rblk_mpath_ns(struct rblk_mpath *mp) RBLK_EXPORT;
int rblk_mpath_qpair_alloc(struct rblk_mpath *mp, struct rblk_qpair **out) RBLK_EXPORT;
unsigned rblk_mpath_num_paths(struct rblk_mpath *mp) RBLK_EXPORT;
/*
 * Path @i's controller, NULL while it never connected; valid until
 * rblk_mpath_disconnect(). For its Identify data, admin commands and
 * rblk_buf_alloc() (buffers registered with one path move with no copy on
 * that path, through bounce buffers on the others); I/O goes through the head.
 */
struct rblk_ctrl *rblk_mpath_path_ctrl(struct rblk_mpath *mp, unsigned i) RBLK_EXPORT;

/* What a path is doing now (a snapshot; the strings live as long as the head). */
struct rblk_mpath_path_info {
	const char *traddr, *trsvcid;
	bool connected;              /* a controller exists (it may be reconnecting) */
	bool refused;                /* the namespace differs on this path: never used */
	enum rblk_ctrl_state state;  /* when connected */
	uint16_t cntlid;
	bool ana_reported;           /* the controller supports ANA and its log was read */
	uint32_t anagrpid;
	enum rblk_ana_state ana;     /* RBLK_ANA_OPTIMIZED when the controller has no ANA */
	uint64_t ios;                /* I/O sent on this path */
	uint64_t failovers;          /* I/O that failed here for a path reason and went elsewhere */
};
int rblk_mpath_path_info(struct rblk_mpath *mp, unsigned i,
			 struct rblk_mpath_path_info *out) RBLK_EXPORT;
/* "optimized", "non-optimized", "inaccessible", "persistent-loss", "change". */
const char *rblk_ana_state_str(enum rblk_ana_state st) RBLK_EXPORT;

/* ---- Status names ------------------------------------------------------------ */
const char *rblk_status_str(uint16_t status) RBLK_EXPORT;

#ifdef __cplusplus
}
#endif
#endif

/* SPDX-License-Identifier: MIT */
/*
 * rblk target library: export local files and block devices as NVMe-oF/RDMA
 * namespaces from inside any program.
 *
 * Conventions: opaque handles; functions return 0 or -errno; objects come back
 * through out-parameters; every options struct starts with its own size so it
 * can grow at the end without breaking callers (set it with the _init helper).
 * The library never prints, exits or installs signal handlers; it logs through
 * rblk_log_set_handler().
 *
 *	struct rblk_target_opts o;
 *	rblk_target_opts_init(&o);
 *	rblk_target_create(&o, &tgt);
 *	rblk_target_add_subsystem(tgt, &sopts, &ss);   // nqn, serial, allow_any_host
 *	rblk_subsystem_add_namespace(ss, &nopts, &nsid); // path, read_only
 *	rblk_target_listen(tgt, &lopts);               // "10.0.0.1", 4420; every subsystem
 *	rblk_target_run(tgt);                          // until rblk_target_stop()
 *	rblk_target_destroy(tgt);
 */
#ifndef RBLK_TARGET_H
#define RBLK_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rblk/common.h>
#include <rblk/provider.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rblk_target;
struct rblk_subsystem;

enum rblk_poll_mode {
	RBLK_POLL_ADAPTIVE = 0, /* busy-poll while work arrives, sleep when idle */
	RBLK_POLL_BUSY = 1,     /* always poll (lowest latency, one core per group) */
	RBLK_POLL_EVENT = 2,    /* always sleep on CQ / backend events */
};

/* Who runs the target's loop. */
enum rblk_threads {
	/*
	 * rblk_target_start() starts num_poll_groups reactor threads and one
	 * connection-manager thread; the embedder's threads only configure.
	 */
	RBLK_THREADS_OWN = 0,
	/*
	 * No thread at all: the embedder's thread drives one poll group and the
	 * connection manager with rblk_target_fd() and rblk_target_poll() (see
	 * there). num_poll_groups is ignored.
	 */
	RBLK_THREADS_EMBEDDER = 1,
};

/*
 * rblk_target_create() refuses (-EINVAL, with a message naming the option
 * and its range) any value outside the ranges given here. The bounds that
 * are not plain protocol numbers, for a program that checks its own flags
 * or configuration keys before it builds the struct:
 */
#define RBLK_TARGET_POLL_GROUPS_MAX 1024          /* num_poll_groups */
#define RBLK_TARGET_QUEUE_DEPTH_MAX 65535u        /* max_queue_depth: a 16-bit count */
#define RBLK_TARGET_IO_SIZE_MAX (16u << 20)       /* max_io_size and io_unit_size */
#define RBLK_TARGET_SHARED_BUFFERS_MAX (1u << 20) /* num_shared_buffers */
#define RBLK_TARGET_KATO_CHECK_MS_MAX 5000u       /* kato_check_ms */
#define RBLK_TARGET_CONNECT_TIMEOUT_MS_MIN 100u   /* connect_timeout_ms, when not 0 */
#define RBLK_TARGET_CONNECT_TIMEOUT_MS_MAX 600000u
#define RBLK_TARGET_PENDING_MAX 65536u            /* max_pending_queues, max_pending_per_addr */
#define RBLK_TARGET_CTRLS_PER_HOST_MAX 0xFFEFu    /* max_ctrls_per_host: the CNTLID space */
#define RBLK_TARGET_QUEUES_MAX (1u << 20)         /* max_queues */
#define RBLK_TARGET_SRQ_DEPTH_MIN 16u             /* srq_depth, when not 0 */
#define RBLK_TARGET_SRQ_DEPTH_MAX 65536u

struct rblk_target_opts {
	size_t size;                 /* sizeof(struct rblk_target_opts) */
	unsigned num_poll_groups;    /* reactor threads, 0..1024; 0 = online CPUs */
	uint32_t max_queue_depth;    /* I/O queue entries (CAP.MQES + 1), 2..65535; default 128 */
	uint32_t max_admin_queue_depth; /* 2..32; default 32 */
	uint32_t max_io_queues;      /* per controller, 1..65534; default 64 */
	/*
	 * Bytes after the SQE in a command capsule; default 8192. A multiple of
	 * 16 (IOCCSZ's unit), at most io_unit_size and max_io_size.
	 */
	uint32_t in_capsule_data_size;
	/*
	 * Largest transfer (MDTS); default 1 MiB, as nvmet-rdma. A power of two,
	 * 8 KiB..16 MiB, at most 16 io_unit_size units.
	 */
	uint32_t max_io_size;
	uint32_t io_unit_size;       /* registered buffer unit, 4 KiB multiple; default 128 KiB */
	/*
	 * Units in each poll group's pool per RDMA device, shared by all its
	 * queues; 0 = max_queue_depth. At least one max_io_size transfer, at
	 * most 1048576 units. A request waits (FIFO) for units, at most 10 s,
	 * then fails with a retryable Internal Error.
	 */
	uint32_t num_shared_buffers;
	enum rblk_poll_mode poll_mode;
	const char *backend;         /* "uring", "aio" or NULL for automatic */
	uint32_t kato_check_ms;      /* period of the short timer checks (a Connect or an
	                              * authentication due), 1..5000; default 100.
	                              * Keep-alive is checked at its deadline */
	enum rblk_threads threads;   /* who runs the poll loop; default RBLK_THREADS_OWN */
	/*
	 * Admission control; 0 takes the default. A connection must send a
	 * valid Fabrics Connect within connect_timeout_ms of the RDMA CM
	 * accept, or it is disconnected (100..600000; default 10000). Until
	 * then it is "pending": at most max_pending_queues of them in all
	 * (default 256) and max_pending_per_addr from one host address
	 * (default 32), so that one host holding connections open cannot
	 * starve the others. At either bound a new connection from an address
	 * with pending ones takes the place of that address's oldest, which is
	 * disconnected (so a host sharing its address with such a client still
	 * gets in); one from an address with none, or whose evicted ones are
	 * still being torn down (up to max_pending_per_addr), is rejected at
	 * the CM with "no resources".
	 * max_ctrls_per_host bounds the controllers (admin queues) one host NQN
	 * holds on the target (default 64; a Connect beyond it gets Controller
	 * Busy); max_queues bounds the connections the target holds in all
	 * (default 4096). Each refusal is logged with the address or host NQN.
	 */
	uint32_t connect_timeout_ms;
	uint32_t max_pending_queues;
	uint32_t max_pending_per_addr;
	uint32_t max_ctrls_per_host;
	uint32_t max_queues;
	/*
	 * Ceph client of "rbd:" namespaces, for all of them (docs/rbd.md); NULL
	 * keeps what every Ceph client does. rbd_conf: the configuration file
	 * (else $CEPH_CONF, else Ceph's search path); rbd_id: the client name
	 * without "client." (else $RBLK_RBD_ID, else "admin"); rbd_keyring: the
	 * keyring file (else the file's or $CEPH_ARGS's). These win over
	 * $CEPH_ARGS. Copied at create.
	 */
	const char *rbd_conf;
	const char *rbd_id;
	const char *rbd_keyring;
	/*
	 * Receives shared by each poll group's queues on one RDMA device (a
	 * shared receive queue): 16..65536, at most the device's limit; default
	 * 1024. A receive holds a capsule and in_capsule_data_size bytes, so a
	 * connection no longer pins max_queue_depth of them: memory stays flat
	 * however many hosts connect. A host that finds none free is told to
	 * retry (RNR). 0: a receive queue per connection, depth entries each
	 * (also what a device without SRQ support gets).
	 */
	uint32_t srq_depth;
	/*
	 * Latency histograms of reads and writes per namespace
	 * (rblk_target_stats_json()'s "latency"). Each poll iteration that
	 * receives or completes commands then reads the precise clock once:
	 * tens of nanoseconds where the clocksource is the TSC, a system call
	 * where it is hpet (some VMs). Default false: no clock read, empty
	 * histograms. rblk-target turns it on with its metrics endpoint.
	 */
	bool latency_stats;
	/*
	 * Where reservations persist through power loss (PTPL) for file and
	 * block-device namespaces: a file per namespace, while a host has
	 * PTPL on. NULL: /var/lib/rblk; "": nowhere (PTPL not offered).
	 */
	const char *state_dir;
};

void rblk_target_opts_init(struct rblk_target_opts *opts) RBLK_EXPORT;
int rblk_target_create(const struct rblk_target_opts *opts, struct rblk_target **out) RBLK_EXPORT;
/*
 * The checks rblk_target_create() makes on opts, without creating anything:
 * a program can refuse a configuration before it opens a thing (rblk-target
 * --check). 0, or -EINVAL with "OPTION VALUE: must be ..." in @why and,
 * when @field is not NULL, the struct member's name ("max_queue_depth") in
 * *@field (NULL for a refusal that is not one member's, such as a bad size).
 * Members past opts->size take their rblk_target_opts_init() values.
 */
int rblk_target_opts_check(const struct rblk_target_opts *opts, const char **field, char *why,
			   size_t len) RBLK_EXPORT;
/* Stops the target if running, disconnects every host, closes every namespace. */
void rblk_target_destroy(struct rblk_target *tgt) RBLK_EXPORT;

struct rblk_subsystem_opts {
	size_t size;
	/*
	 * Required. As nvmet: 1..223 bytes of printable ASCII without spaces;
	 * a name not of the NVMe form (nqn.yyyy-mm.reverse.domain[:name], the
	 * UUID form) is accepted with one warning. Not the discovery NQN.
	 */
	const char *nqn;
	const char *serial;          /* NULL = generated, stable for the nqn */
	const char *model;           /* NULL = "rblk" */
	bool allow_any_host;
	uint32_t max_namespaces;     /* 0 = 1024 */
	/*
	 * The controller IDs this subsystem hands out, as nvmet's attr_cntlid_min
	 * and attr_cntlid_max; 0 = 1 and 0xFFEF (the whole range). Two targets
	 * exporting the same storage as one NVM subsystem (multipath) give each
	 * its own range, so a host never sees one CNTLID twice.
	 */
	uint16_t cntlid_min;
	uint16_t cntlid_max;
};

void rblk_subsystem_opts_init(struct rblk_subsystem_opts *opts) RBLK_EXPORT;
/*
 * The rule above for a subsystem NQN or an allowed host's, applied where
 * the name is read: 0, or -EINVAL with the reason in @why ("is empty",
 * "contains a space", ...). A name accepted but not of the NVMe form is
 * logged once per process and name (here or when it reaches the target,
 * whichever comes first), the message naming @where ("subsystems[0].nqn",
 * "--subsystem"); @where NULL: no warning now.
 */
int rblk_nqn_check(const char *nqn, const char *where, char *why, size_t len) RBLK_EXPORT;
int rblk_target_add_subsystem(struct rblk_target *tgt, const struct rblk_subsystem_opts *opts,
			      struct rblk_subsystem **out) RBLK_EXPORT;
/* Disconnects the subsystem's controllers, then removes it. -ENOENT if unknown. */
int rblk_target_remove_subsystem(struct rblk_target *tgt, const char *nqn) RBLK_EXPORT;
struct rblk_subsystem *rblk_target_find_subsystem(struct rblk_target *tgt, const char *nqn) RBLK_EXPORT;

/* hostnqn follows the subsystem NQN rule above. -EEXIST when already allowed. */
int rblk_subsystem_allow_host(struct rblk_subsystem *ss, const char *hostnqn) RBLK_EXPORT;
int rblk_subsystem_disallow_host(struct rblk_subsystem *ss, const char *hostnqn) RBLK_EXPORT;
int rblk_subsystem_set_allow_any_host(struct rblk_subsystem *ss, bool allow) RBLK_EXPORT;

/*
 * In-band authentication (NVMe DH-HMAC-CHAP) of one allowed host, as nvmet's
 * hosts/<nqn>/dhchap_{key,ctrl_key,hash,dhgroup}. With a key, every queue
 * the host connects must authenticate before it runs anything else: the
 * Connect response asks for it (AUTHREQ.ATR) and any other command fails
 * with Authentication Required until the queue's transaction succeeds. A
 * failed transaction fails the controller, as in nvmet.
 */
struct rblk_host_auth {
	size_t size;            /* sizeof(struct rblk_host_auth) (rblk_host_auth_init) */
	/* The host's secret, "DHHC-1:0N:<base64>:" (nvme gen-dhchap-key); NULL or "" = none. */
	const char *key;
	/*
	 * The controller's secret: hosts that ask for bidirectional
	 * authentication get its response; NULL or "" = none (such a host is
	 * refused). Requires key.
	 */
	const char *ctrl_key;
	/*
	 * The HMAC preferred: "sha256", "sha384", "sha512" (or "hmac(sha256)"
	 * ...); a host that does not offer it gets its first one that is
	 * supported. NULL = "sha256", nvmet's default.
	 */
	const char *hash;
	/*
	 * The Diffie-Hellman group the host must use: "null" (none) or
	 * "ffdhe2048" .. "ffdhe8192"; a host that does not offer it is
	 * refused. NULL = "null", nvmet's default.
	 */
	const char *dhgroup;
};

void rblk_host_auth_init(struct rblk_host_auth *auth) RBLK_EXPORT;
/*
 * Sets, changes or (NULL auth, or an empty key) removes hostnqn's
 * authentication on ss. The host need not be allowed (yet): set its key
 * first, then allow it, and no Connect finds it allowed without its key.
 * The key applies under allow_any_host too: a host with a key always
 * authenticates (nvmet skips authentication under allow_any_host; failing
 * closed, rblk does not). Secrets are parsed here: -EINVAL for a key that is
 * not a valid DHHC-1 secret, an unknown hash or group, or a ctrl_key without
 * a key (logged without the secret). Any change fails the host's live
 * controllers, which must reconnect and authenticate with what is configured
 * now; the same configuration again changes nothing. Disallowing the host
 * keeps its key. -EOPNOTSUPP on the discovery subsystem.
 */
int rblk_subsystem_set_host_auth(struct rblk_subsystem *ss, const char *hostnqn,
				 const struct rblk_host_auth *auth) RBLK_EXPORT;

struct rblk_ns_qos;

struct rblk_ns_opts {
	size_t size;
	uint32_t nsid;               /* 0 = lowest free */
	const char *path;            /* file or block device; "mem:SIZE" / "null:SIZE" for RAM/null */
	bool read_only;
	uint32_t block_size;         /* 0 = detect (BLKSSZGET, 512 for files) */
	const char *backend;         /* NULL = the target's */
	bool has_uuid, has_nguid, has_eui64; /* absent = rblk_ns_gen_ids() of nqn + nsid */
	uint8_t uuid[16];
	uint8_t nguid[16];
	uint8_t eui64[8];
	/*
	 * The embedder's own storage (include/rblk/provider.h) instead of path,
	 * which then only labels the namespace in logs and statistics (may be
	 * NULL). The target copies the struct; ops and ctx must stay valid
	 * until the provider's close() runs. On failure close() is not called.
	 */
	const struct rblk_provider *provider;
	/* Asymmetric Namespace Access group, 1..RBLK_ANA_MAX_GROUPS; 0 = 1 (see below). */
	uint32_t anagrpid;
	/*
	 * "rbd:" paths only: librbd's write-back cache on. Off by default,
	 * whatever the Ceph configuration says: with it on, a write the host
	 * was told is complete can sit in this process, unseen by a second
	 * gateway exporting the image and lost if this one dies; the host is
	 * told of a volatile cache. Only for an image no other gateway
	 * exports. -EINVAL on any other path.
	 */
	bool rbd_cache;
	/* Rate limits from the first command on (see below); NULL: none. Copied. */
	const struct rblk_ns_qos *qos;
};

void rblk_ns_opts_init(struct rblk_ns_opts *opts) RBLK_EXPORT;
/*
 * Whether a namespace of @path would open, before there is a target: the
 * block size rule (0, or a power of two in 512..4096), a "mem:SIZE" or
 * "null:SIZE" whose size parses, the form of an "rbd:" path, or a file or
 * block device that opens in the mode asked for. 0, or -errno with the
 * reason in @why.
 */
int rblk_ns_path_check(const char *path, bool read_only, uint32_t block_size, char *why,
		       size_t len) RBLK_EXPORT;
/*
 * The UUID and NGUID a namespace gets when its options give none: functions
 * of the subsystem NQN and the NSID, so a restart exports the same identity
 * and two namespaces never share one.
 */
void rblk_ns_gen_ids(const char *subnqn, uint32_t nsid, uint8_t uuid[16],
		     uint8_t nguid[16]) RBLK_EXPORT;
/* Hosts connected to the subsystem get a namespace-changed AEN. */
int rblk_subsystem_add_namespace(struct rblk_subsystem *ss, const struct rblk_ns_opts *opts,
				 uint32_t *nsid) RBLK_EXPORT;
int rblk_subsystem_remove_namespace(struct rblk_subsystem *ss, uint32_t nsid) RBLK_EXPORT;
/*
 * An embedder's provider changed size: the namespace now has num_blocks
 * blocks (its provider's num_blocks is not read again). Commands are checked
 * against the new size from now on, and connected hosts get a Namespace
 * Attribute Changed event (the Changed Namespace List names nsid), on which
 * the Linux host reads the new size. Any thread. 0, -ENOENT (no such
 * namespace), -EINVAL (0 blocks, or too many), -EOPNOTSUPP (a built-in
 * backend: its size is its storage's; an rbd: image is followed by itself).
 */
int rblk_subsystem_resize_namespace(struct rblk_subsystem *ss, uint32_t nsid,
				    uint64_t num_blocks) RBLK_EXPORT;

/*
 * Per-namespace QoS (docs/qos.md), with SPDK's names and units: limits on
 * the namespace's Reads and Writes held across every controller, queue and
 * poll group together. A command over a limit waits (in arrival order on
 * its poll group) and is never failed; a command larger than the credit
 * left still goes, and the next ones wait until the debt is paid. 0: no
 * limit. Other commands (Flush, Write Zeroes, Dataset Management, Compare,
 * Verify, Copy) are not limited, as in SPDK.
 */
#define RBLK_NS_QOS_MAX_IOS_PER_SEC 100000000ull /* 10^8 */
#define RBLK_NS_QOS_MAX_MBYTES_PER_SEC 100000ull /* about 100 GiB/s */

struct rblk_ns_qos {
	size_t size;
	uint64_t rw_ios_per_sec;     /* Reads and Writes a second, together */
	uint64_t rw_mbytes_per_sec;  /* MiB (2^20 bytes) a second, read and written together */
	uint64_t r_mbytes_per_sec;   /* MiB a second read */
	uint64_t w_mbytes_per_sec;   /* MiB a second written */
};

void rblk_ns_qos_init(struct rblk_ns_qos *qos) RBLK_EXPORT;
/*
 * Whether @qos can be set: 0, or -EINVAL with "rw_ios_per_sec 200000000:
 * must be at most 100000000" in @why.
 */
int rblk_ns_qos_check(const struct rblk_ns_qos *qos, char *why, size_t len) RBLK_EXPORT;
/*
 * Sets namespace @nsid's limits while hosts use it; they apply to the next
 * command, and commands waiting go by the new limits at once (credit saved
 * at an old, higher limit is cut to a millisecond of the new one). Any
 * thread. 0, -ENOENT (no such namespace), -EINVAL (rblk_ns_qos_check).
 */
int rblk_subsystem_set_ns_qos(struct rblk_subsystem *ss, uint32_t nsid,
			      const struct rblk_ns_qos *qos) RBLK_EXPORT;
/* The limits in force (qos->size set by the caller; rblk_ns_qos_init). 0 or -ENOENT. */
int rblk_subsystem_get_ns_qos(struct rblk_subsystem *ss, uint32_t nsid,
			      struct rblk_ns_qos *qos) RBLK_EXPORT;

struct rblk_listen_opts {
	size_t size;
	const char *traddr;          /* IPv4/IPv6 literal; NULL or "0.0.0.0" = any */
	uint16_t trsvcid;            /* 0 = 4420 */
	uint16_t portid;             /* discovery log PORTID; 0 = assigned */
	/*
	 * Discovery TREQ. Default 0x04, as nvmet: SQ flow control disable
	 * supported (bit 2), secure channel (bits 1:0) not specified.
	 */
	uint8_t treq;
	bool require_rdma;           /* refuse an address no RDMA device serves (default true) */
	/*
	 * Which subsystems hosts reach through this listener. false (default):
	 * every subsystem of the target, present and future. true: only those
	 * linked with rblk_target_port_add_subsystem(), as an nvmet port with
	 * its subsystems/ links (what rblk-target's configuration uses).
	 */
	bool linked_only;
};

void rblk_listen_opts_init(struct rblk_listen_opts *opts) RBLK_EXPORT;
/*
 * -EADDRNOTAVAIL / -ENODEV when no RDMA device serves traddr; -EEXIST when the
 * address or the explicit portid is taken.
 */
int rblk_target_listen(struct rblk_target *tgt, const struct rblk_listen_opts *opts) RBLK_EXPORT;

/*
 * Per-port subsystem links, as nvmet's ports/N/subsystems, on a listener
 * opened with linked_only. Linked, the subsystem is listed in the discovery
 * log served on that port (for the hosts it allows) and hosts may connect to
 * it through that port; elsewhere a Connect is refused as for an unknown
 * subsystem. -ENOENT: no listener with that portid or no such subsystem;
 * -EINVAL: the listener exports every subsystem (not linked_only);
 * -EEXIST: already linked. Removing a subsystem removes its links.
 */
int rblk_target_port_add_subsystem(struct rblk_target *tgt, uint16_t portid,
				   const char *nqn) RBLK_EXPORT;
/*
 * Unlinks: no new Connect through that port, and, as nvmet, the subsystem's
 * controllers whose hosts came through that port are disconnected (their
 * other ports' controllers stay). -ENOENT when not linked.
 */
int rblk_target_port_remove_subsystem(struct rblk_target *tgt, uint16_t portid,
				      const char *nqn) RBLK_EXPORT;

/*
 * Asymmetric Namespace Access (docs/ana.md), as nvmet: every namespace is in
 * an ANA group (rblk_ns_opts.anagrpid, default 1), and every port (listener)
 * has its own state for each group: what hosts connected through that port
 * see in the ANA log page, and whether their I/O to the group's namespaces
 * is served (optimized, non-optimized) or refused with the matching
 * path-related status (inaccessible, persistent loss, change). On every
 * port group 1 starts optimized and every other group inaccessible. Each
 * change bumps the ANA change count and sends an ANA change AEN to the
 * controllers that enabled it (all of a port's for a state, all of the
 * subsystem's for a namespace's group).
 */
#define RBLK_ANA_MAX_GROUPS 128 /* ANAGRPMAX, as nvmet */
#define RBLK_ANA_DEFAULT_GRPID 1 /* every port has it, optimized until told otherwise */

/* enum rblk_ana_state (the NVMe encoding) is in common.h: the initiator reads it too. */
/* nvmet's names of the states: "optimized", "non-optimized", ...; "?" for another value. */
const char *rblk_ana_state_name(enum rblk_ana_state state) RBLK_EXPORT;
/* The state of one of those names: 0, or -EINVAL for another name. */
int rblk_ana_state_from_name(const char *name, enum rblk_ana_state *state) RBLK_EXPORT;

/*
 * Sets group @grpid's state on the port with that portid, adding the group
 * to the port when it had none (nvmet's ports/N/ana_groups/G/ana_state).
 * Setting the state it already has changes nothing. -ENOENT: no such port;
 * -EINVAL: grpid outside 1..RBLK_ANA_MAX_GROUPS or not a state above.
 */
int rblk_target_port_set_ana_state(struct rblk_target *tgt, uint16_t portid, uint32_t grpid,
				   enum rblk_ana_state state) RBLK_EXPORT;
/* The state hosts see; groups the port does not have read as inaccessible. */
int rblk_target_port_get_ana_state(struct rblk_target *tgt, uint16_t portid, uint32_t grpid,
				   enum rblk_ana_state *state) RBLK_EXPORT;
/*
 * Removes a group from the port (its state there becomes inaccessible).
 * -EINVAL for group 1, which every port has; -ENOENT when the port does not
 * have the group.
 */
int rblk_target_port_remove_ana_group(struct rblk_target *tgt, uint16_t portid,
				      uint32_t grpid) RBLK_EXPORT;
/*
 * Moves namespace @nsid to group @grpid while hosts use it (nvmet allows it
 * on an enabled namespace too). -ENOENT: no such namespace; -EINVAL: grpid
 * outside 1..RBLK_ANA_MAX_GROUPS.
 */
int rblk_subsystem_set_ns_ana_grpid(struct rblk_subsystem *ss, uint32_t nsid,
				    uint32_t grpid) RBLK_EXPORT;

/*
 * Starts serving and returns. RBLK_THREADS_OWN: starts the threads.
 * RBLK_THREADS_EMBEDDER: sets the loop up on the calling thread, which from
 * now on is the loop thread.
 */
int rblk_target_start(struct rblk_target *tgt) RBLK_EXPORT;
/*
 * rblk_target_start() if needed, then serves until rblk_target_stop():
 * waits (RBLK_THREADS_OWN) or runs the loop itself (RBLK_THREADS_EMBEDDER),
 * and disconnects every host before returning.
 */
int rblk_target_run(struct rblk_target *tgt) RBLK_EXPORT;
/*
 * Async-signal-safe, any thread: asks the target to stop; rblk_target_run()
 * returns, and rblk_target_poll() returns -ECANCELED from then on.
 */
void rblk_target_stop(struct rblk_target *tgt) RBLK_EXPORT;

/*
 * The embedder's loop (RBLK_THREADS_EMBEDDER). The library starts no thread:
 * the thread that called rblk_target_start() runs everything.
 *
 *	rblk_target_start(tgt);
 *	int fd = rblk_target_fd(tgt);
 *	for (;;) {
 *		int timeout;
 *		if (rblk_target_poll(tgt, &timeout) < 0)
 *			break;                     // -ECANCELED: rblk_target_stop()
 *		if (timeout)                       // wait for work (or -1: no deadline)
 *			poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, timeout);
 *	}
 *	rblk_target_destroy(tgt);                  // disconnects hosts, on this thread
 *
 * The fd fits any event loop (epoll, poll, libuv, libevent): it is readable
 * when a host's command, an I/O completion, a connection event or a message
 * from another thread waits. Call rblk_target_poll() after it became
 * readable or after the timeout, never later: the keep-alive of connected
 * hosts is checked from there.
 *
 * Threading rules in this mode:
 *  - rblk_target_start(), rblk_target_poll() and rblk_target_destroy() on
 *    the loop thread only (the backend ring is bound to it).
 *  - Configuration calls (subsystems, namespaces, hosts, listeners) from any
 *    thread, as in the threaded mode. Removals wait for the I/O in flight;
 *    on the loop thread they keep the loop running while they wait.
 *  - rblk_target_stop() and rblk_provider_complete(): any thread.
 *  - Provider submit() callbacks run on the loop thread, inside
 *    rblk_target_poll().
 */
/* The fd to wait on (readable: call rblk_target_poll()). -EINVAL if not started embedded. */
int rblk_target_fd(struct rblk_target *tgt) RBLK_EXPORT;
/*
 * One iteration of the loop. Returns the work done (0: none), sets
 * *timeout_ms to how long the caller may wait on the fd before calling again
 * (0: call again at once; -1: wait for the fd only). -ECANCELED once
 * rblk_target_stop() was called, -EPERM on another thread than the loop's,
 * -EINVAL when not started with RBLK_THREADS_EMBEDDER.
 */
int rblk_target_poll(struct rblk_target *tgt, int *timeout_ms) RBLK_EXPORT;

/*
 * Statistics per controller and queue, per namespace, and the transport's
 * admission counters ("admission") as a JSON document (caller frees).
 */
int rblk_target_stats_json(struct rblk_target *tgt, char **out) RBLK_EXPORT;

#ifdef __cplusplus
}
#endif
#endif

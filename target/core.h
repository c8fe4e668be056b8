/* SPDX-License-Identifier: MIT */
/*
 * The target core's internals: the target, subsystems, namespaces and
 * controllers, and the declarations the core's files share. Transport
 * engines use target/fabric.h, the contract, and never this header.
 */
#ifndef RBLK_TARGET_CORE_H
#define RBLK_TARGET_CORE_H

#include "common/lat_buckets.h"
#include "target/fabric.h"
#include "target/resv.h"

/* ======================================================================== */
/* Constants of the core.                                                   */

#define RBLK_AERL 3                /* 0-based: 4 outstanding AERs per controller */
#define RBLK_ERR_LOG_ENTRIES 64    /* error log ring (ELPE = 63) */
#define RBLK_KAS 10                /* Identify KAS, 100 ms units */
#define RBLK_RTD3E_US 30000000u    /* Identify RTD3E: shutdown (namespace syncs) within 30 s */
#define RBLK_DISC_KATO_MS 120000   /* discovery controller with KATO 0 (nvmet) */
#define RBLK_KATO_GRACE 2          /* KATOs without a command before a controller fails */
#define RBLK_ANATT 10              /* Identify ANATT, seconds (nvmet's value) */
#define RBLK_MAX_AEN_PENDING 8     /* queued events waiting for an AER */
/*
 * The reservation log event's bit in aen_masked: feature 0Bh has none for
 * it (82h masks reservation notices instead), so it is always enabled.
 * Bit 29 is reserved in the Asynchronous Event Configuration.
 */
#define RBLK_AEN_RESV (1u << 29)
/* Feature 04h's over threshold, Kelvin: rblk has no sensor, nothing exceeds it. */
#define RBLK_TEMP_OVER_DEFAULT 0xFFFFu
#define RBLK_NS_MAX_DEFAULT 1024   /* rblk_subsystem_opts.max_namespaces 0 */
#define RBLK_TGT_STATE_DIR "/var/lib/rblk" /* rblk_target_opts.state_dir NULL */
/*
 * Admission control defaults (struct rblk_target_opts; the ranges of every
 * option are public: RBLK_TARGET_*_MIN/MAX in rblk/target.h).
 */
#define RBLK_TGT_CONNECT_TIMEOUT_MS 10000u
#define RBLK_TGT_MAX_PENDING 256u
#define RBLK_TGT_MAX_PENDING_PER_ADDR 32u
#define RBLK_TGT_MAX_CTRLS_PER_HOST 64u
#define RBLK_TGT_MAX_QUEUES 4096u
/* Shared receives per poll group and device (nvmet-rdma's srq_size default). */
#define RBLK_TGT_SRQ_DEPTH 1024u

/* ======================================================================== */
/* Core internal: target, subsystems, namespaces, controllers.               */

struct rblk_target {
	struct rblk_target_opts opts;    /* defaults filled in */
	char backend[16];                /* the storage's kernel engine: "uring" or "aio" */
	char *rbd_conf, *rbd_id, *rbd_keyring; /* opts' copies (NULL: not given) */
	char *state_dir;                 /* opts' copy: reservations' PTPL files ("" none) */
	/* What path-named namespaces open through (target/storage.h). */
	const struct rblk_storage_ops *storage_ops;
	struct rblk_storage *storage;
	/*
	 * Provider engines in use ([slot], target/pg_engine.c): a slot is
	 * taken under eng_lock before the first namespace naming the engine is
	 * published, and kept until the target goes, so the poll groups read
	 * it without a lock through the namespace that names it.
	 */
	pthread_mutex_t eng_lock;
	const struct rblk_provider_engine *engines[RBLK_TGT_MAX_ENGINES];
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
	/* DH-HMAC-CHAP transactions that ended authenticated / failed (any queue's thread). */
	_Atomic uint64_t auth_successes;
	_Atomic uint64_t auth_failures;
	const struct rblk_fabric_ops *fabric;
	struct rblk_transport *transport; /* fabric's state */
	/* Poll groups registered by the transport ([opts.num_poll_groups]), under pg_lock. */
	pthread_mutex_t pg_lock;
	struct rblk_tgt_pg **pgs;
	unsigned nr_pgs;                 /* opts.num_poll_groups, resolved at create */
	int stop_fd;                     /* eventfd: rblk_target_stop() -> run() */
	_Atomic bool stop_requested;
	bool started;
};

/*
 * Bounce units per poll group and their size (target/bounce.c): Compare,
 * Verify and Copy go through their range one unit at a time.
 */
#define RBLK_TGT_BOUNCE_UNITS 4u
#define RBLK_TGT_BOUNCE_SIZE (128u * 1024)

/* fabric->idle_wait(), or a plain sleep before the transport exists. */
void rblk_tgt_idle_wait(struct rblk_target *tgt, unsigned us);

enum rblk_subsys_type {
	RBLK_SUBSYS_NVM = 0,
	RBLK_SUBSYS_DISCOVERY,
};

/* A namespace's counters (SMART, statistics), summed: rblk_tgt_ns_stats_read(). */
struct rblk_tgt_ns_stats {
	uint64_t read_cmds;
	uint64_t write_cmds;
	uint64_t read_bytes;
	uint64_t write_bytes;
	uint64_t other_cmds;             /* flush, write zeroes, DSM */
	uint64_t errors;
	uint64_t media_errors;
	uint64_t busy_ns;                /* sum of I/O service times */
	uint64_t syncs;                  /* rblk_tgt_ns_sync(): shutdowns and closes */
	uint64_t sync_errors;            /* ... that failed */
	uint64_t qos_waits;              /* I/Os that waited for the QoS limits */
};

/*
 * One poll group's I/O counters of one namespace: written by that group's
 * thread only (rblk_stat_inc), read by anyone. A cache line or two of their
 * own, so that poll groups never write the same line.
 */
struct rblk_tgt_ns_pgstats {
	_Atomic uint64_t read_cmds;
	_Atomic uint64_t write_cmds;
	_Atomic uint64_t read_bytes;
	_Atomic uint64_t write_bytes;
	_Atomic uint64_t other_cmds;
	_Atomic uint64_t errors;
	_Atomic uint64_t media_errors;
	_Atomic uint64_t busy_ns;
	/* Commands of this group holding the namespace (parse to completion). */
	_Atomic uint64_t inflight;
	/* Writes of this group that passed the range lock unlocked (range_lock.c). */
	_Atomic uint64_t fast_writes;
	_Atomic uint64_t qos_waits;      /* I/Os that waited for credit (qos.c) */
} __attribute__((aligned(64)));

/*
 * QoS (target/qos.c, docs/qos.md): a namespace's limits, each a token
 * bucket. Credit is counted in units of 1/NSEC_PER_SEC of an I/O or of a
 * byte, so that time refills it by elapsed_ns x limit with no division and
 * no rounding, whatever the limit.
 */
enum rblk_qos_kind {
	RBLK_QOS_RW_IOS = 0,             /* rw_ios_per_sec: reads and writes */
	RBLK_QOS_RW_BYTES,               /* rw_mbytes_per_sec */
	RBLK_QOS_R_BYTES,                /* r_mbytes_per_sec */
	RBLK_QOS_W_BYTES,                /* w_mbytes_per_sec */
	RBLK_QOS_NR,
};
/* Refills happen at most once a slice (one shared write per slice)... */
#define RBLK_QOS_SLICE_NS 1000000ull
/*
 * ... and credit saved while nobody used it is capped at this many slices:
 * enough to cover a poll group that did not run for a while (a busy or
 * virtual CPU) without losing the time's credit, small enough that an idle
 * namespace cannot save up a burst worth noticing.
 */
#define RBLK_QOS_BURST_SLICES 100u

/*
 * The shared part: one per namespace, written by the poll groups that run
 * its I/O, and only while the namespace has a limit (ns->qos_on). Its own
 * cache lines, apart from the namespace fields every command reads.
 */
struct rblk_tgt_qos {
	_Atomic int64_t avail[RBLK_QOS_NR];  /* credit; negative: debt of a large I/O */
	_Atomic uint64_t refill_ns;          /* time of the last refill */
	_Atomic uint64_t per_sec[RBLK_QOS_NR]; /* the limits in I/Os or bytes; 0: none */
} __attribute__((aligned(64)));

/*
 * One poll group's commands of one namespace waiting for credit, FIFO by
 * req->wait_next, owned by that group's thread; listed on pg->qos_waiting
 * while not empty.
 */
struct rblk_tgt_qos_pg {
	struct rblk_tgt_ns *ns;
	struct rblk_req *head;
	struct rblk_req **tail;
	struct rblk_tgt_qos_pg *next;    /* pg->qos_waiting */
	bool listed;                     /* on pg->qos_waiting */
} __attribute__((aligned(64)));

/* Status code types counted apart (NVMe Status Field SCT, 3 bits). */
enum rblk_tgt_sct {
	RBLK_TGT_SCT_GENERIC = 0,
	RBLK_TGT_SCT_CMD_SPECIFIC,
	RBLK_TGT_SCT_MEDIA,
	RBLK_TGT_SCT_PATH,
	RBLK_TGT_SCT_OTHER,              /* vendor specific, reserved */
	RBLK_TGT_SCT_NR,
};

/*
 * One poll group's latency histograms and errors by status type of one
 * namespace (the metrics): as rblk_tgt_ns_pgstats, written by that group's
 * thread only and summed when read, in an array of its own so that the
 * I/O counters' lines stay as they were. [0] reads, [1] writes; buckets as
 * common/lat_buckets.h, each counting the commands whose latency fell in it
 * (not cumulative), sum_ns their total.
 */
struct rblk_tgt_ns_pglat {
	_Atomic uint64_t lat[2][RBLK_LAT_BUCKETS];
	_Atomic uint64_t lat_sum_ns[2];
	_Atomic uint64_t errors_sct[RBLK_TGT_SCT_NR];
} __attribute__((aligned(64)));

/* What rblk_tgt_ns_lat_read() sums. */
struct rblk_tgt_ns_lat {
	uint64_t lat[2][RBLK_LAT_BUCKETS];
	uint64_t lat_sum_ns[2];
	uint64_t errors_sct[RBLK_TGT_SCT_NR];
};

/* The range lock's gate (range_lock.c): whether writes may pass it unlocked. */
enum rblk_gate {
	RBLK_GATE_OPEN = 0, /* no fused command: writes go unlocked */
	RBLK_GATE_CLOSING,  /* one came: waiting for a grace period and unlocked writes */
	RBLK_GATE_CLOSED,   /* every write goes through lk_lock */
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

	/*
	 * The table: changed under the write lock with release stores; read by
	 * management under the read lock (taking a ns reference), and by the I/O
	 * path with acquire loads and no lock (rblk_subsys_io_ns, target/pg.c).
	 */
	pthread_rwlock_t ns_lock;
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
	int eng_slot;                    /* prov.engine's slot in tgt->engines, or -1 */
	bool by_path;                    /* opened through tgt->storage (its size is the storage's) */
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
	_Atomic unsigned refs;           /* the table's + management's (not the I/O path's) */
	struct rblk_tgt_ns_pgstats *pgstats; /* [ss->tgt->nr_pgs]: I/O counters, in flight */
	struct rblk_tgt_ns_pglat *pglat; /* [ss->tgt->nr_pgs]: latency, errors by type */
	_Atomic uint64_t syncs;          /* rblk_tgt_ns_sync() (never on the I/O path) */
	_Atomic uint64_t sync_errors;
	/*
	 * The range lock of fused Compare and Write (range_lock.c). cw_active is
	 * the one word the write path reads (relaxed); the rest is under lk_lock.
	 */
	_Atomic unsigned cw_active;      /* fused commands holding or wanting a range */
	pthread_mutex_t lk_lock;
	enum rblk_gate lk_gate;
	uint64_t *lk_snap;               /* [tgt->nr_pgs]: quiescent states when it closed */
	struct rblk_req *lk_cws;         /* fused commands, FIFO, by lk_next */
	struct rblk_req *lk_writes;      /* writes in flight admitted under the lock */
	struct rblk_req *lk_wait_head;   /* writes waiting for a fused command, by wait_next */
	struct rblk_req **lk_wait_tail;
	/*
	 * QoS (qos.c): qos_on is the one word an unlimited namespace's I/O
	 * reads (relaxed, never written on the I/O path); the bucket and the
	 * wait lists are touched only while it is set. qos_lock orders setters.
	 */
	_Atomic bool qos_on;
	struct rblk_tgt_qos *qos;
	struct rblk_tgt_qos_pg *qos_pg;  /* [tgt->nr_pgs] */
	pthread_mutex_t qos_lock;
	/*
	 * Reservations (resv_cmd.c). resv_type is the one word the I/O path
	 * reads (acquire): NONE, the common case, lets every command through
	 * without a lock; the state behind it is resv->lock's. An NVMe type,
	 * or RBLK_RESV_TYPE_STALE while the provider's state is out of reach.
	 */
	_Atomic unsigned resv_type;
	struct rblk_tgt_resv *resv;
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
	uint16_t temp_over, temp_under;  /* feature 04h, composite sensor (Kelvin) */
	uint16_t tler;                   /* feature 05h, 100 ms units */
	bool atomic_dn;                  /* feature 0Ah */
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
	/* Reservation Notification log (resv_log.c): a FIFO of notices. */
	struct rblk_resv_log_entry resv_log[RBLK_RESV_LOG_ENTRIES];
	unsigned resv_log_head, resv_log_nr;
	uint64_t resv_log_count;         /* the last notice's Log Page Count, kept or lost */
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
/* Namespace with a reference (rblk_tgt_ns_put), or NULL. Management, not the I/O path. */
struct rblk_tgt_ns *rblk_subsys_get_ns(struct rblk_subsystem *ss, uint32_t nsid);
/*
 * The I/O path's lookup, on a poll group's thread: the namespace, counted in
 * flight in @pg's slot until rblk_tgt_ns_io_put(), or NULL. No lock, and no
 * write to memory another poll group writes (target/pg.c says why it is safe).
 */
static inline struct rblk_tgt_ns *rblk_subsys_io_ns(struct rblk_subsystem *ss, uint32_t nsid,
						     const struct rblk_tgt_pg *pg)
{
	struct rblk_tgt_ns *ns;

	if (!nsid || nsid > ss->max_nsid)
		return NULL;
	ns = __atomic_load_n(&ss->ns[nsid - 1], __ATOMIC_ACQUIRE);
	if (ns)
		rblk_stat_inc(&ns->pgstats[pg->id].inflight, 1);
	return ns;
}
static inline void rblk_tgt_ns_io_put(struct rblk_tgt_ns *ns, const struct rblk_tgt_pg *pg)
{
	/* Release: the removal that sees 0 sees everything the command did. */
	atomic_store_explicit(&ns->pgstats[pg->id].inflight,
			      atomic_load_explicit(&ns->pgstats[pg->id].inflight,
						   memory_order_relaxed) - 1,
			      memory_order_release);
}
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
/*
 * pg_engine.c: the slot of prov's engine in tgt->engines (taken when new;
 * -ENOSPC past RBLK_TGT_MAX_ENGINES, -EINVAL for an engine that misses a
 * required callback or asks too much io->priv), or -1 without an engine.
 */
int rblk_tgt_engine_slot(struct rblk_target *tgt, const struct rblk_provider *prov);
/*
 * The I/O path, on the group's thread: the engine of @slot attached on pg
 * (attaching on first use: an engine an embedder's namespace brought after
 * the group started). 0 or -errno.
 */
int rblk_tgt_pg_engine_attach(struct rblk_tgt_pg *pg, struct rblk_target *tgt, int slot);
/* pg.c: a grace period without blocking: snap[tgt->nr_pgs] now, then poll. */
void rblk_tgt_grace_start(struct rblk_target *tgt, uint64_t *snap);
bool rblk_tgt_grace_over(struct rblk_target *tgt, const uint64_t *snap);
/* Stable identifiers: a hash of (subsystem NQN, nsid) or of the NQN. */
void rblk_gen_uuid(const char *nqn, uint32_t nsid, uint8_t uuid[16]);
void rblk_gen_nguid(const char *nqn, uint32_t nsid, uint8_t nguid[16]);
void rblk_gen_serial(const char *nqn, char serial[21]);
/* Adds the namespace's counters (every poll group's, and its syncs) into @out. */
void rblk_tgt_ns_stats_read(const struct rblk_tgt_ns *ns, struct rblk_tgt_ns_stats *out);
void rblk_tgt_ns_stats_add(struct rblk_tgt_ns_stats *dst, const struct rblk_tgt_ns_stats *src);
/* Adds the namespace's histograms and errors by type (every poll group's) into @out. */
void rblk_tgt_ns_lat_read(const struct rblk_tgt_ns *ns, struct rblk_tgt_ns_lat *out);
/* Commands in flight on the namespace, over every poll group. */
uint64_t rblk_tgt_ns_inflight(const struct rblk_tgt_ns *ns);

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

/* resv_cmd.c: the namespace's reservation (created with it) and its commands. */
/* Before the namespace is published (nguid known): its state, loaded where it persists. */
int rblk_tgt_resv_create(struct rblk_tgt_ns *ns);
/* Before the provider's close(): no reload of its state starts or runs after it. */
void rblk_tgt_resv_quiesce(struct rblk_tgt_ns *ns);
void rblk_tgt_resv_destroy(struct rblk_tgt_ns *ns);
/* Can the namespace persist through power loss (Identify RESCAP bit 0)? */
bool rblk_tgt_resv_can_ptpl(const struct rblk_tgt_ns *ns);
uint16_t rblk_resv_check_io_slow(struct rblk_req *req);
/*
 * I/O parse, after the namespace lookup: 0 when the command may run under
 * the namespace's reservation, else Reservation Conflict (Namespace Not
 * Ready while the state is out of reach). One acquire load while no
 * reservation is held.
 */
static inline uint16_t rblk_resv_check_io(struct rblk_req *req)
{
	if (__builtin_expect(!atomic_load_explicit(&req->ns->resv_type, memory_order_acquire), 1))
		return 0;
	return rblk_resv_check_io_slow(req);
}
/* Parse of Reservation Register, Acquire, Release and Report. */
uint16_t rblk_io_parse_resv(struct rblk_req *req);
/* Features 82h and 83h (admin queue): execute steps. */
void rblk_resv_get_feature(struct rblk_req *req);
void rblk_resv_set_feature(struct rblk_req *req);
/* resv_log.c: a notice for the controller (and its event), and Get Log Page 80h. */
void rblk_resv_log_add(struct rblk_tgt_ctrl *ctrl, uint8_t type, uint32_t nsid);
uint16_t rblk_resv_log_read(struct rblk_req *req, uint64_t lpo, bool rae);

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

/*
 * req.c: bytes [off, off + len) of the command's data held against buf: len
 * when equal, else the offset (from off) of the first byte that differs.
 */
size_t rblk_req_data_cmp(const struct rblk_req *req, size_t off, const void *buf, size_t len);

/* bounce.c: a poll group's bounce units (pg->bounce), all on its thread. */
int rblk_tgt_bounce_create(struct rblk_tgt_bounce **out);
void rblk_tgt_bounce_destroy(struct rblk_tgt_bounce *b);
/*
 * A unit in req->bounce: true. false: every unit is taken and req waits,
 * FIFO; resume(req) runs with req->bounce set once one comes back.
 */
bool rblk_tgt_bounce_get(struct rblk_req *req, void (*resume)(struct rblk_req *req));
/* Gives req->bounce back (to the oldest waiter, if any); nothing when NULL. */
void rblk_tgt_bounce_put(struct rblk_req *req);
unsigned rblk_tgt_bounce_free_count(const struct rblk_tgt_pg *pg);

/*
 * io.c: the provider io steps the I/O command files share (the parse and
 * the plain commands are io.c's; Compare, Verify, Copy are compare.c's).
 */
/* req->pio for op on [slba, slba + nlb); done(req, res) is the next step. */
void rblk_io_prep(struct rblk_req *req, enum rblk_provider_op op, uint64_t slba, uint64_t nlb,
		  void (*done)(struct rblk_req *req, int res));
/* Hands req->pio to the namespace's provider; a refusal fails the command. */
void rblk_io_submit(struct rblk_req *req);
/*
 * The same, but a refusal is returned (-errno: nothing started, no
 * completion follows) for a multi-step command to end its own way.
 */
int rblk_io_try_submit(struct rblk_req *req);
/* The last step of a command: count it, answer the host (0 or the errno's status). */
void rblk_io_finished(struct rblk_req *req, int res);
void rblk_io_fail(struct rblk_req *req, int res);
/* A write is FUA: the host asked (host_fua), or the host turned the volatile cache off. */
bool rblk_io_want_fua(const struct rblk_req *req, bool host_fua);

/* range_lock.c: the namespace's LBA range lock (see there for the ordering). */
int rblk_range_lock_init(struct rblk_tgt_ns *ns, unsigned nr_pgs);
void rblk_range_lock_fini(struct rblk_tgt_ns *ns);
bool rblk_range_write_slow(struct rblk_req *req, uint64_t start, uint64_t end,
			   void (*resume)(struct rblk_req *req));
void rblk_range_write_end_slow(struct rblk_req *req);
/*
 * A write to bytes [start, end) may go: true (go now), or false: it waits
 * behind a fused Compare and Write and resume(req) runs, on its thread,
 * when it may go. Costs one relaxed load while no fused command is active.
 */
static inline bool rblk_range_write_begin(struct rblk_req *req, uint64_t start, uint64_t end,
					  void (*resume)(struct rblk_req *req))
{
	struct rblk_tgt_ns *ns = req->ns;

	if (__builtin_expect(!atomic_load_explicit(&ns->cw_active, memory_order_relaxed), 1)) {
		rblk_stat_inc(&ns->pgstats[req->sq->pg->id].fast_writes, 1);
		req->wgate = RBLK_WGATE_FAST;
		return true;
	}
	return rblk_range_write_slow(req, start, end, resume);
}
/* The write is done (completed, or failed after rblk_range_write_begin()). */
static inline void rblk_range_write_end(struct rblk_req *req)
{
	_Atomic uint64_t *c;

	if (req->wgate == RBLK_WGATE_LOCKED) {
		rblk_range_write_end_slow(req);
		return;
	}
	/* Release: a fused command that reads 0 (acquire) comes after the write. */
	c = &req->ns->pgstats[req->sq->pg->id].fast_writes;
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) - 1,
			      memory_order_release);
	req->wgate = RBLK_WGATE_NONE;
}
/*
 * A fused Compare and Write takes bytes [start, end): locked(req) runs on its
 * thread once no write overlapping it is in flight and none can start; or
 * failed(req) when it cannot wait (the lock is not held then).
 */
void rblk_range_cw_lock(struct rblk_req *cw, uint64_t start, uint64_t end,
			void (*locked)(struct rblk_req *req), void (*failed)(struct rblk_req *req));
/* Gives the range back; the writes that waited for it go again. */
void rblk_range_cw_unlock(struct rblk_req *cw);

/* qos.c: the namespace's rate limits (docs/qos.md). */
int rblk_qos_init(struct rblk_tgt_ns *ns, unsigned nr_pgs);
void rblk_qos_fini(struct rblk_tgt_ns *ns);
/*
 * Sets the limits (per second, [RBLK_QOS_NR], 0: none) at once: saved credit
 * is cut to one slice of a lowered limit. Any thread.
 */
void rblk_qos_set(struct rblk_tgt_ns *ns, const uint64_t per_sec[RBLK_QOS_NR]);
void rblk_qos_get(const struct rblk_tgt_ns *ns, uint64_t per_sec[RBLK_QOS_NR]);
/*
 * The bucket alone, for its tests: charges cost[] at now_ns if every limited
 * kind the cost names has credit left (refilling first when due): true.
 */
bool rblk_qos_take(struct rblk_tgt_qos *q, const uint64_t cost[RBLK_QOS_NR], uint64_t now_ns);
/* The clock the buckets read (rblk_clock_ns); unit tests put a fake one in. */
void rblk_qos_set_clock(uint64_t (*now_ns)(void));
bool rblk_qos_admit_slow(struct rblk_req *req, void (*go)(struct rblk_req *req));
/*
 * A Read or Write may go: true (go now), or false: it waits in its poll
 * group's FIFO for the namespace and go(req) runs on its thread once credit
 * allows (rblk_tgt_pg_qos_poll). One relaxed load for an unlimited namespace.
 */
static inline bool rblk_qos_admit(struct rblk_req *req, void (*go)(struct rblk_req *req))
{
	if (__builtin_expect(!atomic_load_explicit(&req->ns->qos_on, memory_order_relaxed), 1))
		return true;
	return rblk_qos_admit_slow(req, go);
}
/* The public limits (include/rblk/target.h): set (0 or -EINVAL), read. */
int rblk_tgt_ns_set_qos(struct rblk_tgt_ns *ns, const struct rblk_ns_qos *qos);
void rblk_tgt_ns_get_qos(const struct rblk_tgt_ns *ns, struct rblk_ns_qos *qos);
/* rblk_sq_teardown(): the queue's commands waiting for credit are aborted. */
void rblk_qos_sq_teardown(struct rblk_sq *sq);

/* fused.c: fused Compare and Write. */
/*
 * Parse, after the command's own parse produced @status, for every command
 * of an I/O queue: pairs a FUSE=01b Compare with the FUSE=10b Write that
 * follows it, fails lone halves. Returns the command's status.
 */
uint16_t rblk_fused_parse(struct rblk_req *req, uint16_t status);
/* rblk_req_complete() of a command that is half of a pair: the other half is told. */
void rblk_fused_abandon(struct rblk_req *req);
/* rblk_sq_teardown(): a fused Compare still waiting for its Write never gets it. */
void rblk_fused_sq_teardown(struct rblk_sq *sq);

/* compare.c: parse of Compare, Verify and Copy (after the namespace checks). */
uint16_t rblk_io_parse_compare(struct rblk_req *req);
uint16_t rblk_io_parse_verify(struct rblk_req *req);
uint16_t rblk_io_parse_copy(struct rblk_req *req);
/*
 * Reads the command's SLBA/NLB range through req->bounce (held) and holds it
 * against the command's data: done(req, 0) when equal, -EILSEQ at the first
 * difference (err_lba set), or the read's -errno. The unit stays held.
 */
void rblk_compare_run(struct rblk_req *req, void (*done)(struct rblk_req *req, int res));
/* Copy's limits for a namespace, as Identify Namespace reports them. */
#define RBLK_COPY_MAX_RANGES 128u  /* MSRC + 1: 4 KiB of source range entries */
uint32_t rblk_copy_mcl(const struct rblk_target *tgt, const struct rblk_tgt_ns *ns);
uint16_t rblk_copy_mssrl(const struct rblk_target *tgt, const struct rblk_tgt_ns *ns);

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

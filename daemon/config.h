/* SPDX-License-Identifier: MIT */
/*
 * rblk-target configuration: nvmetcli's JSON format (the kernel nvmet
 * save/restore file) in a plain in-memory model, and the operations on it.
 *
 *   config.c        the model: allocation, builders, copy, merge, target options
 *   config_check.c  value rules (NQN, UUID, stable IDs) and whole-config validation
 *   config_preflight.c  the start-up check: target options, paths, non-empty
 *   config_auth.c   hosts' DH-HMAC-CHAP settings: model and validation
 *   config_parse.c  JSON text -> model (key paths in every message)
 *   config_save.c   model -> JSON in nvmetcli's style, atomic file write
 *   config_diff.c   old model x new model -> ordered change list; applying a
 *                   change list to a running target through <rblk/target.h>
 *   config_mpath.c  the multipath keys (ANA groups, namespaces' ANA group,
 *                   controller ID ranges): parse, save, diff and apply
 *
 * Everything except the apply step is pure (no target, no I/O besides reading
 * and writing the file), so it is unit-testable anywhere. Messages go through
 * the log hook; each names the key path ("subsystems[0].namespaces[1].nsid"),
 * the value and why it is refused.
 *
 * The daemon uses the same model for its quick flags (--subsystem, --ns, ...):
 * objects made from flags carry the flag as their "where" instead of a key
 * path, and the start-up is just diff(empty, config) applied.
 */
#ifndef RBLK_TARGET_CONFIG_H
#define RBLK_TARGET_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rblk/target.h>

/* nvmetcli's default is best effort; a daemon's first start should be strict. */
enum rblk_cfg_mode {
	RBLK_CFG_STRICT = 0,      /* any error refuses the whole configuration */
	RBLK_CFG_BEST_EFFORT = 1, /* invalid entries are logged as "skipped" */
};

#define RBLK_CFG_NSID_MAX 0xfffffffeu /* 0xffffffff is the broadcast NSID */

/* A namespace's QoS limits (x-rblk.qos; docs/qos.md), SPDK's names; 0: none. */
struct rblk_cfg_qos {
	uint32_t rw_ios_per_sec;
	uint32_t rw_mbytes_per_sec;
	uint32_t r_mbytes_per_sec;
	uint32_t w_mbytes_per_sec;
};

/* Whether any limit is set; the limits as the target API takes them. */
bool rblk_cfg_qos_any(const struct rblk_cfg_qos *q);
void rblk_cfg_qos_to_opts(const struct rblk_cfg_qos *q, struct rblk_ns_qos *out);

struct rblk_cfg_ns {
	char *where;         /* "subsystems[0].namespaces[1]" or "--ns PATH" */
	uint32_t nsid;
	bool enable;         /* nvmetcli "enable"; disabled namespaces are kept, not exported */
	char *path;          /* device.path */
	bool has_uuid, has_nguid, has_eui64;
	bool uuid_generated, nguid_generated; /* filled in by rblk_config_validate() */
	uint8_t uuid[16];
	uint8_t nguid[16];
	uint8_t eui64[8];    /* x-rblk.eui64 */
	bool read_only;      /* x-rblk.read_only */
	char *backend;       /* x-rblk.backend: "uring", "aio" or NULL (the target's) */
	uint32_t block_size; /* x-rblk.block_size; 0 = detect */
	uint32_t ana_grpid;  /* ana_grpid (or nvmetcli's ana.grpid); 1 unless set */
	bool rbd_cache;      /* x-rblk.rbd_cache: librbd's cache on (rbd: paths only) */
	struct rblk_cfg_qos qos; /* x-rblk.qos; changes live */
};

struct rblk_cfg_subsys {
	char *where;
	char *nqn;
	char *serial;            /* attr.serial; NULL = the target generates one */
	char *model;             /* attr.model; NULL = the target's default */
	bool allow_any_host;     /* attr.allow_any_host */
	uint32_t max_namespaces; /* x-rblk.max_namespaces; 0 = the target's default */
	uint16_t cntlid_min;     /* attr.cntlid_min; 0 = 1 */
	uint16_t cntlid_max;     /* attr.cntlid_max; 0 = 65519 */
	char **hosts;            /* allowed_hosts */
	size_t nr_hosts;
	struct rblk_cfg_ns *ns;
	size_t nr_ns;
};

/* One ANA group of a port (ana_groups[]); not set: the library's default. */
struct rblk_cfg_ana {
	bool set;
	enum rblk_ana_state state;
};

struct rblk_cfg_port {
	char *where;
	uint16_t portid;
	bool ipv6;               /* addr.adrfam */
	char *traddr;            /* literal address; "0.0.0.0" / "::" = any */
	uint16_t trsvcid;        /* addr.trsvcid */
	uint8_t treq;            /* addr.treq: 0 not specified, 1 required, 2 not required */
	int32_t inline_data_size; /* param.inline_data_size; -1 = not set */
	char **subsys;           /* port -> subsystem links: what hosts reach through it */
	size_t nr_subsys;
	struct rblk_cfg_ana ana[RBLK_ANA_MAX_GROUPS + 1]; /* ana_groups, by grpid */
};

/* Target-wide options: top-level "x-rblk" object, or the daemon's flags. 0 = default. */
struct rblk_cfg_tgt {
	uint32_t num_poll_groups;
	uint32_t max_queue_depth;
	uint32_t max_admin_queue_depth;
	uint32_t max_io_queues;
	bool has_in_capsule_data_size; /* 0 is a valid size: no in-capsule data */
	uint32_t in_capsule_data_size;
	uint32_t max_io_size;
	uint32_t io_unit_size;
	uint32_t num_shared_buffers;
	bool has_srq_depth;            /* 0 is a valid depth: no shared receive queue */
	uint32_t srq_depth;
	bool has_poll_mode;
	enum rblk_poll_mode poll_mode;
	char *backend;
	/* The Ceph client of rbd: namespaces (x-rblk.rbd_conf/rbd_id/rbd_keyring,
	 * --ceph-conf/--rbd-id/--rbd-keyring); NULL: Ceph's usual ways. */
	char *rbd_conf;
	char *rbd_id;
	char *rbd_keyring;
	/* Reservations' PTPL files (x-rblk.state_dir, --state-dir); NULL: /var/lib/rblk. */
	char *state_dir;
	/*
	 * The management socket (x-rblk.rpc_socket, --rpc-socket): a path, or
	 * "none" for no socket; NULL = the default (docs/rpc.md). Restart-only.
	 */
	char *rpc_socket;
	/*
	 * The Prometheus endpoint (x-rblk.metrics, --metrics): "ADDR:PORT"
	 * (docs/metrics.md); NULL = none. Restart-only.
	 */
	char *metrics;
	/* Admission control (struct rblk_target_opts); restart-only, as the rest. */
	uint32_t connect_timeout_ms;
	uint32_t max_pending_queues;
	uint32_t max_pending_per_addr;
	uint32_t max_ctrls_per_host;
	uint32_t max_queues;
};

/*
 * A host's DH-HMAC-CHAP settings: nvmetcli hosts[].dhchap, or the --dhchap-*
 * flags after --allow-host. Strings as given; rblk_config_validate() checks
 * them (config_auth.c). Every subsystem that host reaches authenticates it.
 */
struct rblk_cfg_auth {
	char *where;     /* "hosts[2].dhchap" or "--dhchap-key" */
	char *host;      /* host NQN */
	char *key;       /* DHHC-1 host secret; NULL only in an invalid entry */
	char *ctrl_key;  /* DHHC-1 controller secret: bidirectional; NULL = not */
	char *hash;      /* NULL = hmac(sha256) */
	char *dhgroup;   /* NULL = null (no Diffie-Hellman) */
};

enum rblk_cfg_auth_field {
	RBLK_CFG_AUTH_KEY,
	RBLK_CFG_AUTH_CTRL_KEY,
	RBLK_CFG_AUTH_HASH,
	RBLK_CFG_AUTH_DHGROUP,
};

struct rblk_config {
	char **hosts;           /* "hosts": NQNs that allowed_hosts may name */
	size_t nr_hosts;
	struct rblk_cfg_auth *auth; /* at most one per host NQN */
	size_t nr_auth;
	struct rblk_cfg_subsys *subsys;
	size_t nr_subsys;
	struct rblk_cfg_port *ports;
	size_t nr_ports;
	struct rblk_cfg_tgt tgt;
};

/* ---- model (config.c) ---- */
int rblk_config_new(struct rblk_config **out);
void rblk_config_free(struct rblk_config *cfg);
/* Builders used by the parser and the quick flags; @where is copied. */
int rblk_config_add_host(struct rblk_config *cfg, const char *nqn);
int rblk_config_add_subsys(struct rblk_config *cfg, const char *where, const char *nqn,
			   struct rblk_cfg_subsys **out);
int rblk_cfg_subsys_add_ns(struct rblk_cfg_subsys *ss, const char *where,
			   struct rblk_cfg_ns **out);
int rblk_cfg_subsys_allow_host(struct rblk_cfg_subsys *ss, const char *hostnqn);
int rblk_config_add_port(struct rblk_config *cfg, const char *where, struct rblk_cfg_port **out);
int rblk_cfg_port_link(struct rblk_cfg_port *port, const char *nqn);
struct rblk_cfg_subsys *rblk_config_find_subsys(const struct rblk_config *cfg, const char *nqn);
struct rblk_cfg_ns *rblk_cfg_subsys_find_ns(const struct rblk_cfg_subsys *ss, uint32_t nsid);
/* Same address family, address (binary compare) and service id. */
bool rblk_cfg_port_same_listen(const struct rblk_cfg_port *a, const struct rblk_cfg_port *b);
/* Removal by index (the parser drops an invalid entry, validation a duplicate). */
void rblk_config_del_host(struct rblk_config *cfg, size_t i);
void rblk_config_del_subsys(struct rblk_config *cfg, size_t i);
void rblk_cfg_subsys_del_ns(struct rblk_cfg_subsys *ss, size_t i);
void rblk_cfg_subsys_del_host(struct rblk_cfg_subsys *ss, size_t i);
void rblk_config_del_port(struct rblk_config *cfg, size_t i);
void rblk_cfg_port_del_link(struct rblk_cfg_port *port, size_t i);
bool rblk_cfg_strv_has(char *const *v, size_t n, const char *s);
/*
 * Logs one configuration error: as is in strict mode, with "; WHAT skipped"
 * in best-effort mode (nvmetcli's wording). Counts it in *count.
 */
void rblk_cfg_error(enum rblk_cfg_mode mode, unsigned *count, const char *skipped,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Moves every object of @src into @dst (target options of @src override); frees @src. */
int rblk_config_merge(struct rblk_config *dst, struct rblk_config *src);
/* Deep copies of one port and of the target options into @cfg. */
int rblk_config_add_port_copy(struct rblk_config *cfg, const struct rblk_cfg_port *src);
int rblk_config_set_tgt(struct rblk_config *cfg, const struct rblk_cfg_tgt *t);
/* Deep copy (the daemon keeps the running config while it parses a new one). */
int rblk_config_dup(const struct rblk_config *cfg, struct rblk_config **out);
/*
 * The quick flags' objects are exported everywhere: every port from index
 * @first_port on is linked to every subsystem, and every subsystem from
 * index @first_subsys on to every port (existing links stay; a config
 * file's own ports and subsystems keep the links the file gives them).
 * 0 or -ENOMEM.
 */
int rblk_config_link_all(struct rblk_config *cfg, size_t first_port, size_t first_subsys);
/*
 * Ports from index @first_port on (the quick flags', numbered 1..n) that
 * clash with an earlier port's portid take the lowest free one, so --listen
 * works next to a file whose ports use the same ids.
 */
void rblk_config_renumber_ports(struct rblk_config *cfg, size_t first_port);

/*
 * Cross-reference checks: duplicate NQNs/NSIDs/ports/listen addresses,
 * allowed_hosts naming a host not in "hosts", port links to unknown
 * subsystems, allow_any_host together with allowed_hosts. Then fills in
 * generated UUID/NGUIDs. Strict: -EINVAL if anything was wrong (the config is
 * unchanged otherwise). Best effort: offending entries are removed and
 * logged as skipped; returns 0. @nerrors (optional) counts the errors.
 */
int rblk_config_validate(struct rblk_config *cfg, enum rblk_cfg_mode mode, unsigned *nerrors);

/*
 * The start-up check (config_preflight.c), after validation and before the
 * target exists; rblk-target's --check runs it too. The target options
 * under the library's rules (rblk_target_create() runs the same function),
 * listener addresses, every enabled namespace's path opened in its mode,
 * and at least one subsystem and one port (unless @may_be_empty: the
 * daemon is to be configured through its RPC socket). Messages name the flag or key,
 * the value and the allowed range; @source (a file name, NULL: "the
 * configuration") prefixes the whole-config ones. Strict: any failure
 * counts. Best effort: a bad port is dropped, a namespace that does not open
 * is only warned about (the start skips it; --save keeps it); options and
 * an empty configuration still count. -EINVAL when anything counted.
 */
int rblk_config_preflight(struct rblk_config *cfg, enum rblk_cfg_mode mode, const char *source,
			  bool may_be_empty, unsigned *nerrors);

/*
 * The NQN policy of nvmet/nvmetcli (the library's rblk_nqn_check()): 1..223
 * bytes of printable ASCII without spaces; false with the reason in @why.
 * A valid name not of the NVMe form (nqn.yyyy-mm.reverse.domain[:name], the
 * UUID form) is accepted with one warning per name naming @where (NULL: none).
 */
bool rblk_cfg_nqn_valid(const char *nqn, const char *where, char *why, size_t len);
const char *rblk_cfg_poll_mode_str(enum rblk_poll_mode m);
int rblk_cfg_poll_mode_parse(const char *s, enum rblk_poll_mode *out);
/* The target options this config asks for, over rblk_target_opts_init()'s defaults. */
void rblk_config_target_opts(const struct rblk_config *cfg, struct rblk_target_opts *o);

/* ---- DH-HMAC-CHAP settings (config_auth.c) ---- */
/* Finds or adds @host's entry (its @where replaced). 0 or -ENOMEM. */
int rblk_config_set_auth(struct rblk_config *cfg, const char *where, const char *host,
			 struct rblk_cfg_auth **out);
/* Removes @host's entry (its secrets overwritten). 0 or -ENOENT. */
int rblk_config_del_auth(struct rblk_config *cfg, const char *host);
/* Sets one field (@value NULL clears it; the old secret is overwritten). */
int rblk_cfg_auth_set(struct rblk_cfg_auth *a, enum rblk_cfg_auth_field f, const char *value);
const struct rblk_cfg_auth *rblk_config_find_auth(const struct rblk_config *cfg, const char *host);
void rblk_config_free_auth(struct rblk_config *cfg);
int rblk_config_dup_auth(struct rblk_config *dst, const struct rblk_config *src);
/* Same settings (NULL = none). */
bool rblk_cfg_auth_equal(const struct rblk_cfg_auth *a, const struct rblk_cfg_auth *b);
/*
 * Logs each unusable setting (naming the host, never the secret) and counts
 * it in *errors, in every mode: skipping one would let its host in
 * unauthenticated. Returns the number found.
 */
unsigned rblk_config_check_auth(const struct rblk_config *cfg, unsigned *errors);

/* ---- JSON (config_parse.c) ---- */
/*
 * Parses nvmetcli JSON. @source names the input in messages (a file name).
 * Runs rblk_config_validate() too. Returns 0, -EBADMSG (not JSON, or not
 * a JSON object, in any mode), -EINVAL (strict mode and invalid entries)
 * or -ENOMEM.
 */
int rblk_config_parse(const char *json, const char *source, enum rblk_cfg_mode mode,
		      struct rblk_config **out, unsigned *nerrors);
int rblk_config_load(const char *path, enum rblk_cfg_mode mode, struct rblk_config **out,
		     unsigned *nerrors);

/* ---- save (config_save.c) ---- */
/* nvmetcli's layout: sorted keys, attrs as strings, 2-space indent. Caller frees. */
int rblk_config_to_json(const struct rblk_config *cfg, char **out);
/* Atomic: PATH.tmp (0600) + fsync + rename + fsync of the directory. */
int rblk_config_save(const struct rblk_config *cfg, const char *path);

/* ---- diff and apply (config_diff.c) ---- */
enum rblk_cfg_op_type {
	/*
	 * ss (new, also in the old config), host: a subsystem that stays gets
	 * its new hosts first. Allowing a host never narrows access, and done
	 * after ANY_HOST_OFF it would come too late: turning allow-any off
	 * disconnects every host not on the list at that moment.
	 */
	/*
	 * ss (new, also in the old config), host, auth (NULL: none any more):
	 * first of all, so that no host is ever allowed in under a key it no
	 * longer has. The target fails that host's live controllers.
	 */
	RBLK_CFG_OP_HOST_AUTH_KEPT,
	RBLK_CFG_OP_ALLOW_HOST_KEPT,
	RBLK_CFG_OP_ANY_HOST_OFF,   /* ss (new) */
	RBLK_CFG_OP_DISALLOW_HOST,  /* ss (old), host */
	RBLK_CFG_OP_UNLINK,         /* ss (old), port (old): its hosts there are disconnected */
	RBLK_CFG_OP_DEL_NS,         /* ss (old), ns (old) */
	RBLK_CFG_OP_DEL_SUBSYS,     /* ss (old); its links go with it */
	RBLK_CFG_OP_ADD_SUBSYS,     /* ss (new) */
	RBLK_CFG_OP_HOST_AUTH,      /* ss (new), host, auth: before any host is allowed in */
	RBLK_CFG_OP_ADD_NS,         /* ss (new), ns (new) */
	RBLK_CFG_OP_NS_QOS,         /* ss (new), ns (new): a namespace that stays, new limits */
	RBLK_CFG_OP_ALLOW_HOST,     /* ss (new), host */
	RBLK_CFG_OP_ANY_HOST_ON,    /* ss (new) */
	RBLK_CFG_OP_LISTEN,         /* port (new), opened with linked_only */
	/*
	 * ANA, all live: first the groups a port makes accessible (optimized,
	 * non-optimized), then namespaces moving between groups, then the
	 * groups a port makes inaccessible (inaccessible, persistent loss,
	 * change) or drops: a host failing over finds its new path ready
	 * before the old one goes.
	 */
	RBLK_CFG_OP_ANA_STATE_ON,   /* port (new), grpid, ana_state */
	RBLK_CFG_OP_NS_ANA_GRPID,   /* ss (new), ns (new): a namespace that stays changes group */
	RBLK_CFG_OP_ANA_STATE_OFF,  /* port (new), grpid, ana_state */
	RBLK_CFG_OP_ANA_GROUP_DEL,  /* port (new), grpid: the port no longer has the group */
	RBLK_CFG_OP_LINK,           /* ss (new), port (the running listener's portid) */
	RBLK_CFG_OP_RESTART_NEEDED, /* what cannot change live; @why says what */
};

struct rblk_cfg_op {
	enum rblk_cfg_op_type type;
	const struct rblk_cfg_subsys *ss;
	const struct rblk_cfg_ns *ns;
	const struct rblk_cfg_port *port;
	const char *host;
	const struct rblk_cfg_auth *auth;
	uint32_t grpid;  /* ANA ops */
	enum rblk_ana_state ana_state;
	char why[160];   /* "serial changed", "path /a -> /b", ... */
	int result;      /* set by rblk_config_apply(): 0 or -errno */
};

struct rblk_config_diff {
	struct rblk_cfg_op *ops; /* in the order they must be applied */
	size_t nr;
	size_t cap;
};

/*
 * What turns @old (NULL = nothing running) into @new. Objects that did not
 * change produce no op, so their hosts keep going. The ops point into @old
 * and @new, which must outlive the diff.
 */
int rblk_config_diff(const struct rblk_config *old, const struct rblk_config *new,
		     struct rblk_config_diff *out);
void rblk_config_diff_free(struct rblk_config_diff *d);
/* Appends one op (NULL: -ENOMEM); for config_mpath.c. */
struct rblk_cfg_op *rblk_cfg_diff_push(struct rblk_config_diff *d, enum rblk_cfg_op_type type,
				       const struct rblk_cfg_subsys *ss);
/* "add namespace 2 (/srv/b.img) to nqn...": for logs. */
void rblk_cfg_op_describe(const struct rblk_cfg_op *op, char *buf, size_t len);

/*
 * Applies @d to @tgt in order, setting each op's result. With @stop_on_error
 * it stops at the first failure. Returns 0 if every op succeeded, else the
 * first failure's -errno. RESTART_NEEDED ops are only logged.
 */
int rblk_config_apply(struct rblk_target *tgt, struct rblk_config_diff *d, bool stop_on_error);
/*
 * After a partial apply: removes from @new what failed to be added, so @new
 * describes what actually runs (and a later reload retries it).
 */
void rblk_config_drop_failed(struct rblk_config *new, const struct rblk_config_diff *d);
/*
 * After a reload: what needed a restart still runs as in @old, so @new gets
 * @old's target options and listeners back (a changed listener replaces its
 * new version). Then @new describes the running target and the next reload
 * reports the pending change again. Call after rblk_config_drop_failed();
 * -ENOMEM leaves @new partly updated.
 *
 * The daemon saves the configuration (--save) before these two steps: the
 * file keeps what was asked for, so a restart applies it, and a namespace
 * that failed to open is not dropped from it.
 */
int rblk_config_keep_unapplied(struct rblk_config *new, const struct rblk_config *old,
			       const struct rblk_config_diff *d);

/* ---- multipath keys (config_mpath.c) ---- */
struct rblk_cj_ctx;
struct json_object;
/*
 * Parser hooks, each true when @key was theirs: a key of namespace object @n,
 * "ana_grpid" or "ana" (*ok false when its value is refused; "ana_grpid"
 * wins over "ana.grpid", as nvmetcli restores it last), a subsystem's "attr" keys
 * "cntlid_min" / "cntlid_max".
 */
bool rblk_cfg_mpath_parse_ns_key(struct rblk_cj_ctx *c, const char *path, struct json_object *n,
				 const char *key, struct json_object *v, struct rblk_cfg_ns *ns,
				 bool *ok);
bool rblk_cfg_mpath_parse_attr(struct rblk_cj_ctx *c, const char *path, const char *key,
			       struct json_object *v, struct rblk_cfg_subsys *ss);
/* After a subsystem's "attr": cntlid_min above cntlid_max is refused. */
void rblk_cfg_mpath_check_attr(struct rblk_cj_ctx *c, const char *path,
			       struct rblk_cfg_subsys *ss);
/* A port's "ana_groups"; false when the port is refused. */
bool rblk_cfg_mpath_parse_port_ana(struct rblk_cj_ctx *c, const char *path,
				   struct json_object *v, struct rblk_cfg_port *port);
/* Warnings after validation: a namespace in a group no port has is reachable nowhere. */
void rblk_cfg_mpath_warn(const struct rblk_config *cfg);
/* Save: keys into the namespace / attr / port objects; 0 or -ENOMEM. */
int rblk_cfg_mpath_save_ns(struct json_object *o, const struct rblk_cfg_ns *ns);
int rblk_cfg_mpath_save_attr(struct json_object *attr, const struct rblk_cfg_subsys *ss);
int rblk_cfg_mpath_save_port(struct json_object *o, const struct rblk_cfg_port *p);
/* The ANA ops of a listener that keeps its portid (@old) or is new (@old NULL). */
int rblk_cfg_mpath_diff_port(struct rblk_config_diff *d, const struct rblk_cfg_port *old,
			     const struct rblk_cfg_port *new);
/* The ANA ops' apply and description (the others' are in config_diff.c). */
int rblk_cfg_mpath_apply(struct rblk_target *tgt, const struct rblk_cfg_op *op);
void rblk_cfg_mpath_describe(const struct rblk_cfg_op *op, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * What changed between two configurations, and making a running target
 * match: the SIGHUP reload and the first start (a diff from nothing) both
 * go through here. Objects that did not change produce no operation, so
 * connected hosts keep their controllers; namespace additions and removals
 * reach them as namespace-changed AENs through the target API.
 *
 * Operations are ordered so that access only narrows before anything is
 * removed and only widens after everything is added: hosts allowed on
 * subsystems that stay (first: turning allow_any_host off disconnects every
 * host not on the list at that moment), allow_any_host off,
 * hosts disallowed, port links removed, namespaces removed, subsystems
 * removed, subsystems added, namespaces added, hosts allowed, allow_any_host
 * on, listeners, port links added. A changed namespace (another path,
 * read-only flag or identifier) is removed and added again; a subsystem
 * whose serial or model changed is recreated (its hosts reconnect, and its
 * port links are made again). What the target cannot change while running
 * (target-wide options, removing a listener or changing its portid or
 * treq) is reported as "restart needed" instead of being half-applied.
 * ANA states and namespaces' ANA groups change live (config_mpath.c); a
 * changed controller ID range recreates the subsystem, as serial and model.
 *
 * Port links (ports[].subsystems) are live, as in nvmet: a link added lets
 * hosts discover and connect through that port; a link removed refuses new
 * Connects there and, as nvmet does, disconnects the hosts connected to that
 * subsystem through that port. Listeners are opened linked_only, so a
 * subsystem no port links is reachable nowhere.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "protocol/nvmf.h"
#include "daemon/config.h"

#define OP_NOT_APPLIED (-ECANCELED)

static struct rblk_cfg_op *op_add(struct rblk_config_diff *d, enum rblk_cfg_op_type type,
				  const struct rblk_cfg_subsys *ss)
{
	struct rblk_cfg_op *op;

	if (d->nr == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 16;
		struct rblk_cfg_op *n = realloc(d->ops, cap * sizeof(*n));

		if (!n)
			return NULL;
		d->ops = n;
		d->cap = cap;
	}
	op = &d->ops[d->nr++];
	memset(op, 0, sizeof(*op));
	op->type = type;
	op->ss = ss;
	op->result = OP_NOT_APPLIED;
	return op;
}

struct rblk_cfg_op *rblk_cfg_diff_push(struct rblk_config_diff *d, enum rblk_cfg_op_type type,
				       const struct rblk_cfg_subsys *ss)
{
	return op_add(d, type, ss);
}

void rblk_config_diff_free(struct rblk_config_diff *d)
{
	free(d->ops);
	memset(d, 0, sizeof(*d));
}

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool has_str(char *const *v, size_t n, const char *s)
{
	return rblk_cfg_strv_has(v, n, s);
}

/* Why a namespace must be replaced, or NULL when it is the same. */
static const char *ns_change(const struct rblk_cfg_ns *a, const struct rblk_cfg_ns *b,
			     char *why, size_t len)
{
	if (!str_eq(a->path, b->path))
		snprintf(why, len, "path %s -> %s", a->path, b->path);
	else if (a->read_only != b->read_only)
		snprintf(why, len, "now %s", b->read_only ? "read-only" : "read-write");
	else if (!str_eq(a->backend, b->backend))
		snprintf(why, len, "backend %s -> %s", a->backend ? a->backend : "default",
			 b->backend ? b->backend : "default");
	else if (a->block_size != b->block_size)
		snprintf(why, len, "block size %u -> %u", a->block_size, b->block_size);
	else if (a->rbd_cache != b->rbd_cache)
		snprintf(why, len, "librbd's cache %s", b->rbd_cache ? "on" : "off");
	else if (a->has_uuid != b->has_uuid || memcmp(a->uuid, b->uuid, 16))
		snprintf(why, len, "UUID changed");
	else if (a->has_nguid != b->has_nguid || memcmp(a->nguid, b->nguid, 16))
		snprintf(why, len, "NGUID changed");
	else if (a->has_eui64 != b->has_eui64 || memcmp(a->eui64, b->eui64, 8))
		snprintf(why, len, "EUI-64 changed");
	else
		return NULL;
	return why;
}

static const char *subsys_change(const struct rblk_cfg_subsys *a,
				 const struct rblk_cfg_subsys *b, char *why, size_t len)
{
	if (!str_eq(a->serial, b->serial))
		snprintf(why, len, "serial changed");
	else if (!str_eq(a->model, b->model))
		snprintf(why, len, "model changed");
	else if (a->max_namespaces != b->max_namespaces)
		snprintf(why, len, "max_namespaces changed");
	else if (a->cntlid_min != b->cntlid_min || a->cntlid_max != b->cntlid_max)
		snprintf(why, len, "controller ID range changed");
	else
		return NULL;
	return why;
}

/* HOST_AUTH(_KEPT) for @host on @ss: @auth NULL removes its settings. */
static int auth_op(struct rblk_config_diff *d, enum rblk_cfg_op_type type,
		   const struct rblk_cfg_subsys *ss, const char *host, const struct rblk_cfg_auth *auth)
{
	struct rblk_cfg_op *op = op_add(d, type, ss);

	if (!op)
		return -ENOMEM;
	op->host = host;
	op->auth = auth;
	return 0;
}

/*
 * A subsystem that stays: every host whose settings changed, appeared or
 * went (settings are per host, so each subsystem gets the change).
 */
static int diff_auth(struct rblk_config_diff *d, const struct rblk_config *o,
		     const struct rblk_config *n, const struct rblk_cfg_subsys *ss)
{
	for (size_t i = 0; i < n->nr_auth; i++) {
		const struct rblk_cfg_auth *na = &n->auth[i];

		if (!rblk_cfg_auth_equal(rblk_config_find_auth(o, na->host), na) &&
		    auth_op(d, RBLK_CFG_OP_HOST_AUTH_KEPT, ss, na->host, na))
			return -ENOMEM;
	}
	for (size_t i = 0; i < o->nr_auth; i++)
		if (!rblk_config_find_auth(n, o->auth[i].host) &&
		    auth_op(d, RBLK_CFG_OP_HOST_AUTH_KEPT, ss, o->auth[i].host, NULL))
			return -ENOMEM;
	return 0;
}

static int add_whole_subsys(struct rblk_config_diff *d, const struct rblk_config *cfg,
			    const struct rblk_cfg_subsys *ss, const char *why)
{
	struct rblk_cfg_op *op = op_add(d, RBLK_CFG_OP_ADD_SUBSYS, ss);

	if (!op)
		return -ENOMEM;
	if (why)
		snprintf(op->why, sizeof(op->why), "%s", why);
	for (size_t i = 0; i < cfg->nr_auth; i++)
		if (auth_op(d, RBLK_CFG_OP_HOST_AUTH, ss, cfg->auth[i].host, &cfg->auth[i]))
			return -ENOMEM;
	for (size_t i = 0; i < ss->nr_ns; i++) {
		if (!ss->ns[i].enable)
			continue;
		if (!(op = op_add(d, RBLK_CFG_OP_ADD_NS, ss)))
			return -ENOMEM;
		op->ns = &ss->ns[i];
	}
	for (size_t i = 0; i < ss->nr_hosts; i++) {
		if (!(op = op_add(d, RBLK_CFG_OP_ALLOW_HOST, ss)))
			return -ENOMEM;
		op->host = ss->hosts[i];
	}
	return 0;
}

/* Both exist with the same identity: namespaces, hosts, allow_any_host. */
static int diff_subsys(struct rblk_config_diff *d, const struct rblk_config *oc,
		       const struct rblk_config *nc, const struct rblk_cfg_subsys *o,
		       const struct rblk_cfg_subsys *n)
{
	struct rblk_cfg_op *op;
	char why[128];

	if (diff_auth(d, oc, nc, n))
		return -ENOMEM;
	if (o->allow_any_host && !n->allow_any_host && !op_add(d, RBLK_CFG_OP_ANY_HOST_OFF, n))
		return -ENOMEM;
	if (!o->allow_any_host && n->allow_any_host && !op_add(d, RBLK_CFG_OP_ANY_HOST_ON, n))
		return -ENOMEM;
	for (size_t i = 0; i < o->nr_hosts; i++) {
		if (has_str(n->hosts, n->nr_hosts, o->hosts[i]))
			continue;
		if (!(op = op_add(d, RBLK_CFG_OP_DISALLOW_HOST, o)))
			return -ENOMEM;
		op->host = o->hosts[i];
	}
	for (size_t i = 0; i < n->nr_hosts; i++) {
		if (has_str(o->hosts, o->nr_hosts, n->hosts[i]))
			continue;
		if (!(op = op_add(d, RBLK_CFG_OP_ALLOW_HOST_KEPT, n)))
			return -ENOMEM;
		op->host = n->hosts[i];
	}
	for (size_t i = 0; i < o->nr_ns; i++) {
		const struct rblk_cfg_ns *on = &o->ns[i];
		const struct rblk_cfg_ns *nn = rblk_cfg_subsys_find_ns(n, on->nsid);
		const char *change = NULL;

		if (!on->enable)
			continue;
		if (nn && nn->enable && !(change = ns_change(on, nn, why, sizeof(why))))
			continue;
		if (!(op = op_add(d, RBLK_CFG_OP_DEL_NS, o)))
			return -ENOMEM;
		op->ns = on;
		if (change)
			snprintf(op->why, sizeof(op->why), "%s", change);
		else if (nn)
			snprintf(op->why, sizeof(op->why), "disabled");
	}
	for (size_t i = 0; i < n->nr_ns; i++) {
		const struct rblk_cfg_ns *nn = &n->ns[i];
		const struct rblk_cfg_ns *on = rblk_cfg_subsys_find_ns(o, nn->nsid);
		const char *change = NULL;

		if (!nn->enable)
			continue;
		if (on && on->enable && !(change = ns_change(on, nn, why, sizeof(why)))) {
			/* Its ANA group changes live, as nvmet allows on an enabled namespace. */
			if (on->ana_grpid != nn->ana_grpid) {
				if (!(op = op_add(d, RBLK_CFG_OP_NS_ANA_GRPID, n)))
					return -ENOMEM;
				op->ns = nn;
			}
			/* QoS limits too, as SPDK's bdev_set_qos_limit on a bdev in use. */
			if (memcmp(&on->qos, &nn->qos, sizeof(on->qos))) {
				if (!(op = op_add(d, RBLK_CFG_OP_NS_QOS, n)))
					return -ENOMEM;
				op->ns = nn;
			}
			continue;
		}
		if (!(op = op_add(d, RBLK_CFG_OP_ADD_NS, n)))
			return -ENOMEM;
		op->ns = nn;
		if (change)
			snprintf(op->why, sizeof(op->why), "%s", change);
	}
	return 0;
}

static int diff_target_opts(struct rblk_config_diff *d, const struct rblk_config *o,
			    const struct rblk_config *n)
{
	struct rblk_target_opts a, b;
	struct rblk_cfg_op *op;
	const char *what = NULL;

	rblk_config_target_opts(o, &a);
	rblk_config_target_opts(n, &b);
	if (a.num_poll_groups != b.num_poll_groups)
		what = "poll_groups";
	else if (a.max_queue_depth != b.max_queue_depth)
		what = "max_queue_depth";
	else if (a.max_admin_queue_depth != b.max_admin_queue_depth)
		what = "max_aq_depth";
	else if (a.max_io_queues != b.max_io_queues)
		what = "max_io_qpairs_per_ctrlr";
	else if (a.in_capsule_data_size != b.in_capsule_data_size)
		what = "in-capsule data size (x-rblk.in_capsule_data_size, param.inline_data_size)";
	else if (a.max_io_size != b.max_io_size)
		what = "max_io_size";
	else if (a.io_unit_size != b.io_unit_size)
		what = "io_unit_size";
	else if (a.num_shared_buffers != b.num_shared_buffers)
		what = "num_shared_buffers";
	else if (a.srq_depth != b.srq_depth)
		what = "srq_depth";
	else if (a.poll_mode != b.poll_mode)
		what = "poll_mode";
	else if (!str_eq(a.backend, b.backend))
		what = "backend";
	/* Namespaces open their cluster connection once: restart to change it. */
	else if (!str_eq(a.rbd_conf, b.rbd_conf))
		what = "rbd_conf";
	else if (!str_eq(a.rbd_id, b.rbd_id))
		what = "rbd_id";
	else if (!str_eq(a.rbd_keyring, b.rbd_keyring))
		what = "rbd_keyring";
	/* Namespaces find their PTPL files when they open. */
	else if (!str_eq(a.state_dir, b.state_dir))
		what = "state_dir";
	/* The library takes the admission limits at create only: restart, as the rest. */
	else if (a.connect_timeout_ms != b.connect_timeout_ms)
		what = "connect_timeout_ms";
	else if (a.max_pending_queues != b.max_pending_queues)
		what = "max_pending_queues";
	else if (a.max_pending_per_addr != b.max_pending_per_addr)
		what = "max_pending_per_addr";
	else if (a.max_ctrls_per_host != b.max_ctrls_per_host)
		what = "max_ctrls_per_host";
	else if (a.max_queues != b.max_queues)
		what = "max_queues";
	/* The daemon's, not the library's: the socket stays as it is until a restart. */
	else if (!str_eq(o->tgt.rpc_socket, n->tgt.rpc_socket))
		what = "rpc_socket";
	else if (!str_eq(o->tgt.metrics, n->tgt.metrics))
		what = "metrics";
	if (!what)
		return 0;
	if (!(op = op_add(d, RBLK_CFG_OP_RESTART_NEEDED, NULL)))
		return -ENOMEM;
	snprintf(op->why, sizeof(op->why), "target option %s changed", what);
	return 0;
}

static const struct rblk_cfg_port *find_listen(const struct rblk_config *cfg,
					       const struct rblk_cfg_port *p)
{
	for (size_t i = 0; cfg && i < cfg->nr_ports; i++)
		if (rblk_cfg_port_same_listen(&cfg->ports[i], p))
			return &cfg->ports[i];
	return NULL;
}

/* Whether subsystem @nqn runs on unchanged across this diff (neither new nor recreated). */
static bool subsys_kept(const struct rblk_config *o, const struct rblk_config *n, const char *nqn)
{
	const struct rblk_cfg_subsys *a = o ? rblk_config_find_subsys(o, nqn) : NULL;
	const struct rblk_cfg_subsys *b = rblk_config_find_subsys(n, nqn);
	char why[128];

	return a && b && !subsys_change(a, b, why, sizeof(why));
}

/* LINK or UNLINK of @nqn (a subsystem of @cfg) on @port's portid. */
static int link_op(struct rblk_config_diff *d, enum rblk_cfg_op_type type,
		   const struct rblk_cfg_port *port, const struct rblk_config *cfg, const char *nqn)
{
	const struct rblk_cfg_subsys *ss = rblk_config_find_subsys(cfg, nqn);
	struct rblk_cfg_op *op;

	if (!ss)
		return 0; /* validation leaves only links to defined subsystems */
	if (!(op = op_add(d, type, ss)))
		return -ENOMEM;
	op->port = port;
	return 0;
}

/* A listener that keeps its portid: its links become the new file's. */
static int diff_links(struct rblk_config_diff *d, const struct rblk_config *o,
		      const struct rblk_config *n, const struct rblk_cfg_port *op_,
		      const struct rblk_cfg_port *np)
{
	int ret = 0;

	/* A removed subsystem takes its links along; a recreated one lost them. */
	for (size_t i = 0; i < op_->nr_subsys && !ret; i++)
		if (subsys_kept(o, n, op_->subsys[i]) &&
		    !has_str(np->subsys, np->nr_subsys, op_->subsys[i]))
			ret = link_op(d, RBLK_CFG_OP_UNLINK, op_, o, op_->subsys[i]);
	for (size_t i = 0; i < np->nr_subsys && !ret; i++)
		if (!has_str(op_->subsys, op_->nr_subsys, np->subsys[i]) ||
		    !subsys_kept(o, n, np->subsys[i]))
			ret = link_op(d, RBLK_CFG_OP_LINK, np, n, np->subsys[i]);
	return ret;
}

static int diff_ports(struct rblk_config_diff *d, const struct rblk_config *o,
		      const struct rblk_config *n)
{
	struct rblk_cfg_op *op;
	int ret = 0;

	for (size_t i = 0; o && i < o->nr_ports && !ret; i++) {
		const struct rblk_cfg_port *op_ = &o->ports[i], *np = find_listen(n, op_);
		bool same_id = np && np->portid == op_->portid;

		if (same_id)
			ret = diff_links(d, o, n, op_, np);
		if (same_id && !ret)
			ret = rblk_cfg_mpath_diff_port(d, op_, np);
		/* Kept as it runs (restart needed): links of recreated subsystems come back. */
		for (size_t j = 0; !same_id && j < op_->nr_subsys && !ret; j++)
			if (rblk_config_find_subsys(o, op_->subsys[j]) &&
			    rblk_config_find_subsys(n, op_->subsys[j]) &&
			    !subsys_kept(o, n, op_->subsys[j]))
				ret = link_op(d, RBLK_CFG_OP_LINK, op_, n, op_->subsys[j]);
		if (ret || (same_id && np->treq == op_->treq))
			continue;
		if (!(op = op_add(d, RBLK_CFG_OP_RESTART_NEEDED, NULL)))
			return -ENOMEM;
		op->port = op_;
		snprintf(op->why, sizeof(op->why), "listener %s port %u %s", op_->traddr,
			 op_->trsvcid, np ? "changed its portid or treq" : "removed");
	}
	for (size_t i = 0; i < n->nr_ports && !ret; i++) {
		const struct rblk_cfg_port *np = &n->ports[i];

		if (find_listen(o, np))
			continue;
		if (!(op = op_add(d, RBLK_CFG_OP_LISTEN, NULL)))
			return -ENOMEM;
		op->port = np;
		ret = rblk_cfg_mpath_diff_port(d, NULL, np);
		for (size_t j = 0; j < np->nr_subsys && !ret; j++)
			ret = link_op(d, RBLK_CFG_OP_LINK, np, n, np->subsys[j]);
	}
	return ret;
}

/* Stable reorder into the application order (the enum's order). */
static int sort_ops(struct rblk_config_diff *d)
{
	struct rblk_cfg_op *sorted;
	size_t k = 0;

	if (!d->nr)
		return 0;
	sorted = malloc(d->nr * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (int t = RBLK_CFG_OP_HOST_AUTH_KEPT; t <= RBLK_CFG_OP_RESTART_NEEDED; t++)
		for (size_t i = 0; i < d->nr; i++)
			if ((int)d->ops[i].type == t)
				sorted[k++] = d->ops[i];
	free(d->ops);
	d->ops = sorted;
	d->cap = d->nr;
	return 0;
}

int rblk_config_diff(const struct rblk_config *old, const struct rblk_config *new,
		     struct rblk_config_diff *out)
{
	struct rblk_config_diff d = { 0 };
	char why[128];
	int ret = 0;

	for (size_t i = 0; old && i < old->nr_subsys && !ret; i++) {
		const struct rblk_cfg_subsys *o = &old->subsys[i];
		const struct rblk_cfg_subsys *n = rblk_config_find_subsys(new, o->nqn);
		struct rblk_cfg_op *op;
		const char *change = n ? subsys_change(o, n, why, sizeof(why)) : NULL;

		if (n && !change) {
			ret = diff_subsys(&d, old, new, o, n);
			continue;
		}
		if (!(op = op_add(&d, RBLK_CFG_OP_DEL_SUBSYS, o))) {
			ret = -ENOMEM;
			break;
		}
		if (change) {
			snprintf(op->why, sizeof(op->why), "%s", change);
			ret = add_whole_subsys(&d, new, n, change);
		}
	}
	for (size_t i = 0; i < new->nr_subsys && !ret; i++)
		if (!old || !rblk_config_find_subsys(old, new->subsys[i].nqn))
			ret = add_whole_subsys(&d, new, &new->subsys[i], NULL);
	if (!ret)
		ret = diff_ports(&d, old, new);
	if (!ret && old)
		ret = diff_target_opts(&d, old, new);
	if (!ret)
		ret = sort_ops(&d);
	if (ret) {
		rblk_config_diff_free(&d);
		return ret;
	}
	*out = d;
	return 0;
}

void rblk_cfg_op_describe(const struct rblk_cfg_op *op, char *buf, size_t len)
{
	const char *nqn = op->ss ? op->ss->nqn : "";
	char extra[200] = "";

	if (op->why[0])
		snprintf(extra, sizeof(extra), " (%s)", op->why);
	switch (op->type) {
	case RBLK_CFG_OP_HOST_AUTH_KEPT:
	case RBLK_CFG_OP_HOST_AUTH:
		if (!op->auth)
			snprintf(buf, len, "%s: host %s: no DH-HMAC-CHAP any more", nqn, op->host);
		else
			snprintf(buf, len, "%s: host %s: DH-HMAC-CHAP, %s, DH group %s%s", nqn, op->host,
				 op->auth->hash ? op->auth->hash : "hmac(sha256)",
				 op->auth->dhgroup ? op->auth->dhgroup : "null",
				 op->auth->ctrl_key ? ", bidirectional" : "");
		break;
	case RBLK_CFG_OP_ANY_HOST_OFF:
		snprintf(buf, len, "%s: allow_any_host off", nqn);
		break;
	case RBLK_CFG_OP_ANY_HOST_ON:
		snprintf(buf, len, "%s: allow_any_host on", nqn);
		break;
	case RBLK_CFG_OP_DISALLOW_HOST:
		snprintf(buf, len, "%s: disallow host %s", nqn, op->host);
		break;
	case RBLK_CFG_OP_ALLOW_HOST_KEPT:
	case RBLK_CFG_OP_ALLOW_HOST:
		snprintf(buf, len, "%s: allow host %s", nqn, op->host);
		break;
	case RBLK_CFG_OP_DEL_NS:
		snprintf(buf, len, "%s: remove namespace %u (%s)%s", nqn, op->ns->nsid,
			 op->ns->path ? op->ns->path : "", extra);
		break;
	case RBLK_CFG_OP_ADD_NS:
		snprintf(buf, len, "%s: add namespace %u (%s%s)%s", nqn, op->ns->nsid,
			 op->ns->path, op->ns->read_only ? ", read-only" : "", extra);
		break;
	case RBLK_CFG_OP_DEL_SUBSYS:
		snprintf(buf, len, "remove subsystem %s%s", nqn, extra);
		break;
	case RBLK_CFG_OP_ADD_SUBSYS:
		snprintf(buf, len, "add subsystem %s%s%s", nqn,
			 op->ss->allow_any_host ? " (any host)" : "", extra);
		break;
	case RBLK_CFG_OP_NS_QOS:
		snprintf(buf, len, "%s: namespace %u QoS rw_ios_per_sec %u, rw_mbytes_per_sec %u, "
			 "r_mbytes_per_sec %u, w_mbytes_per_sec %u", nqn, op->ns->nsid,
			 op->ns->qos.rw_ios_per_sec, op->ns->qos.rw_mbytes_per_sec,
			 op->ns->qos.r_mbytes_per_sec, op->ns->qos.w_mbytes_per_sec);
		break;
	case RBLK_CFG_OP_LISTEN:
		snprintf(buf, len, op->port->ipv6 ? "listen on rdma [%s]:%u (portid %u)"
						   : "listen on rdma %s:%u (portid %u)",
			 op->port->traddr, op->port->trsvcid, op->port->portid);
		break;
	case RBLK_CFG_OP_LINK:
		snprintf(buf, len, "export %s on port %u", nqn, op->port->portid);
		break;
	case RBLK_CFG_OP_UNLINK:
		snprintf(buf, len, "stop exporting %s on port %u (hosts connected through it are "
			 "disconnected)", nqn, op->port->portid);
		break;
	case RBLK_CFG_OP_RESTART_NEEDED:
		snprintf(buf, len, "restart needed: %s; rblk-target cannot change this while running",
			 op->why);
		break;
	case RBLK_CFG_OP_ANA_STATE_ON:
	case RBLK_CFG_OP_NS_ANA_GRPID:
	case RBLK_CFG_OP_ANA_STATE_OFF:
	case RBLK_CFG_OP_ANA_GROUP_DEL:
		rblk_cfg_mpath_describe(op, buf, len);
		break;
	}
}

/* ---------------------------------------------------------------- apply */

static int apply_add_subsys(struct rblk_target *tgt, const struct rblk_cfg_subsys *ss)
{
	struct rblk_subsystem_opts o;
	struct rblk_subsystem *handle;

	rblk_subsystem_opts_init(&o);
	o.nqn = ss->nqn;
	o.serial = ss->serial;
	o.model = ss->model;
	o.allow_any_host = ss->allow_any_host;
	o.max_namespaces = ss->max_namespaces;
	o.cntlid_min = ss->cntlid_min;
	o.cntlid_max = ss->cntlid_max;
	return rblk_target_add_subsystem(tgt, &o, &handle);
}

static int apply_ns_qos(struct rblk_subsystem *ss, const struct rblk_cfg_ns *ns)
{
	struct rblk_ns_qos q;

	rblk_cfg_qos_to_opts(&ns->qos, &q);
	return rblk_subsystem_set_ns_qos(ss, ns->nsid, &q);
}

static int apply_add_ns(struct rblk_subsystem *ss, const struct rblk_cfg_ns *ns)
{
	struct rblk_ns_qos qos;
	struct rblk_ns_opts o;
	uint32_t nsid;

	rblk_ns_opts_init(&o);
	o.nsid = ns->nsid;
	o.path = ns->path;
	o.read_only = ns->read_only;
	o.block_size = ns->block_size;
	o.backend = ns->backend;
	o.has_uuid = ns->has_uuid;
	o.has_nguid = ns->has_nguid;
	o.has_eui64 = ns->has_eui64;
	memcpy(o.uuid, ns->uuid, 16);
	memcpy(o.nguid, ns->nguid, 16);
	memcpy(o.eui64, ns->eui64, 8);
	o.anagrpid = ns->ana_grpid;
	o.rbd_cache = ns->rbd_cache;
	/* Limited from its first command on: a host may be connected already. */
	rblk_cfg_qos_to_opts(&ns->qos, &qos);
	if (rblk_cfg_qos_any(&ns->qos))
		o.qos = &qos;
	return rblk_subsystem_add_namespace(ss, &o, &nsid);
}

static int apply_listen(struct rblk_target *tgt, const struct rblk_cfg_port *p)
{
	struct rblk_listen_opts o;

	rblk_listen_opts_init(&o);
	o.traddr = p->traddr;
	o.trsvcid = p->trsvcid;
	o.portid = p->portid;
	/*
	 * The file's treq is the secure-channel requirement (bits 1:0); bit 2,
	 * SQ flow control disable supported, stays the library's default, as
	 * nvmet's configfs addr_treq keeps it.
	 */
	o.treq = (uint8_t)((o.treq & ~NVMF_TREQ_SECURE_MASK) | (p->treq & NVMF_TREQ_SECURE_MASK));
	o.require_rdma = true; /* never fall back to an address no RDMA device serves */
	o.linked_only = true;  /* nvmet's ports: LINK ops say what each one exports */
	return rblk_target_listen(tgt, &o);
}

static int apply_auth(struct rblk_subsystem *ss, const char *host, const struct rblk_cfg_auth *a)
{
	struct rblk_host_auth ha;

	if (!a)
		return rblk_subsystem_set_host_auth(ss, host, NULL);
	rblk_host_auth_init(&ha);
	ha.key = a->key;
	ha.ctrl_key = a->ctrl_key;
	ha.hash = a->hash;
	ha.dhgroup = a->dhgroup;
	return rblk_subsystem_set_host_auth(ss, host, &ha);
}

static int apply_op(struct rblk_target *tgt, const struct rblk_cfg_op *op)
{
	struct rblk_subsystem *ss = NULL;

	if (op->type >= RBLK_CFG_OP_ANA_STATE_ON && op->type <= RBLK_CFG_OP_ANA_GROUP_DEL)
		return rblk_cfg_mpath_apply(tgt, op);
	if (op->type != RBLK_CFG_OP_LISTEN && op->type != RBLK_CFG_OP_RESTART_NEEDED &&
	    op->type != RBLK_CFG_OP_ADD_SUBSYS && op->type != RBLK_CFG_OP_DEL_SUBSYS &&
	    op->type != RBLK_CFG_OP_LINK && op->type != RBLK_CFG_OP_UNLINK) {
		ss = rblk_target_find_subsystem(tgt, op->ss->nqn);
		if (!ss)
			return -ENOENT;
	}
	switch (op->type) {
	case RBLK_CFG_OP_HOST_AUTH_KEPT:
	case RBLK_CFG_OP_HOST_AUTH:
		return apply_auth(ss, op->host, op->auth);
	case RBLK_CFG_OP_ANY_HOST_OFF:
		return rblk_subsystem_set_allow_any_host(ss, false);
	case RBLK_CFG_OP_ANY_HOST_ON:
		return rblk_subsystem_set_allow_any_host(ss, true);
	case RBLK_CFG_OP_DISALLOW_HOST:
		return rblk_subsystem_disallow_host(ss, op->host);
	case RBLK_CFG_OP_ALLOW_HOST_KEPT:
	case RBLK_CFG_OP_ALLOW_HOST:
		return rblk_subsystem_allow_host(ss, op->host);
	case RBLK_CFG_OP_DEL_NS:
		return rblk_subsystem_remove_namespace(ss, op->ns->nsid);
	case RBLK_CFG_OP_ADD_NS:
		return apply_add_ns(ss, op->ns);
	case RBLK_CFG_OP_NS_QOS:
		return apply_ns_qos(ss, op->ns);
	case RBLK_CFG_OP_DEL_SUBSYS:
		return rblk_target_remove_subsystem(tgt, op->ss->nqn);
	case RBLK_CFG_OP_ADD_SUBSYS:
		return apply_add_subsys(tgt, op->ss);
	case RBLK_CFG_OP_LISTEN:
		return apply_listen(tgt, op->port);
	case RBLK_CFG_OP_LINK:
		return rblk_target_port_add_subsystem(tgt, op->port->portid, op->ss->nqn);
	case RBLK_CFG_OP_UNLINK:
		return rblk_target_port_remove_subsystem(tgt, op->port->portid, op->ss->nqn);
	case RBLK_CFG_OP_RESTART_NEEDED:
		return 0;
	default:
		break;
	}
	return -EINVAL;
}

int rblk_config_apply(struct rblk_target *tgt, struct rblk_config_diff *d, bool stop_on_error)
{
	int first = 0;

	for (size_t i = 0; i < d->nr; i++) {
		struct rblk_cfg_op *op = &d->ops[i];
		char what[512];

		rblk_cfg_op_describe(op, what, sizeof(what));
		op->result = apply_op(tgt, op);
		if (op->type == RBLK_CFG_OP_RESTART_NEEDED) {
			RBLK_WARN("%s", what);
		} else if (op->result == 0) {
			RBLK_INFO("%s", what);
		} else if (op->type == RBLK_CFG_OP_LISTEN && op->result == -EEXIST) {
			/* Typically a moved port: the old listener runs until a restart. */
			RBLK_ERR("%s failed: its address or portid %u is still used by a running "
				 "listener; moving a port needs a restart", what, op->port->portid);
		} else if (op->type == RBLK_CFG_OP_LISTEN &&
			   (op->result == -ENODEV || op->result == -EADDRNOTAVAIL)) {
			RBLK_ERR("%s failed: %s: no RDMA device serves %s; check `rdma link` and "
				 "`ibv_devinfo`, or run `rblk doctor`", what, strerror(-op->result),
				 op->port->traddr);
		} else {
			RBLK_ERR("%s failed: %s", what, strerror(-op->result));
		}
		if (op->result && !first)
			first = op->result;
		if (op->result && stop_on_error)
			break;
	}
	return first;
}

/* ----------------------------------------------------- partial failure */

struct drop {
	enum rblk_cfg_op_type type;
	char *nqn;
	char *host;
	uint32_t nsid;
	uint32_t grpid;
	uint16_t portid;
};

static void drop_links(struct rblk_cfg_port *p)
{
	while (p->nr_subsys)
		rblk_cfg_port_del_link(p, 0);
	free(p->subsys);
	p->subsys = NULL;
}

static void drop_link(struct rblk_cfg_port *p, const char *nqn)
{
	for (size_t i = 0; i < p->nr_subsys; i++)
		if (strcmp(p->subsys[i], nqn) == 0)
			rblk_cfg_port_del_link(p, i--);
}

static void drop_one(struct rblk_config *cfg, const struct drop *x)
{
	struct rblk_cfg_subsys *ss = x->nqn ? rblk_config_find_subsys(cfg, x->nqn) : NULL;

	switch (x->type) {
	case RBLK_CFG_OP_ADD_SUBSYS:
		if (ss)
			rblk_config_del_subsys(cfg, ss - cfg->subsys);
		for (size_t p = 0; p < cfg->nr_ports; p++)
			drop_link(&cfg->ports[p], x->nqn);
		break;
	case RBLK_CFG_OP_LINK:
		for (size_t p = 0; p < cfg->nr_ports; p++)
			if (cfg->ports[p].portid == x->portid)
				drop_link(&cfg->ports[p], x->nqn);
		break;
	case RBLK_CFG_OP_ADD_NS:
		for (size_t i = 0; ss && i < ss->nr_ns; i++)
			if (ss->ns[i].nsid == x->nsid)
				rblk_cfg_subsys_del_ns(ss, i--);
		break;
	case RBLK_CFG_OP_ALLOW_HOST:
		for (size_t i = 0; ss && i < ss->nr_hosts; i++)
			if (strcmp(ss->hosts[i], x->host) == 0)
				rblk_cfg_subsys_del_host(ss, i--);
		break;
	case RBLK_CFG_OP_ANY_HOST_ON:
		if (ss)
			ss->allow_any_host = false;
		break;
	case RBLK_CFG_OP_LISTEN:
		for (size_t i = 0; i < cfg->nr_ports; i++)
			if (cfg->ports[i].portid == x->portid)
				rblk_config_del_port(cfg, i--);
		break;
	case RBLK_CFG_OP_ANA_STATE_ON:
	case RBLK_CFG_OP_ANA_STATE_OFF:
		/* Not as the file says: a later reload sets it again. */
		for (size_t i = 0; i < cfg->nr_ports; i++)
			if (cfg->ports[i].portid == x->portid)
				cfg->ports[i].ana[x->grpid].set = false;
		break;
	default:
		break;
	}
}

void rblk_config_drop_failed(struct rblk_config *new, const struct rblk_config_diff *d)
{
	/* Ops point into @new, so record identities first and delete afterwards. */
	struct drop *drops = calloc(d->nr ? d->nr : 1, sizeof(*drops));
	size_t n = 0;

	if (!drops)
		return;
	for (size_t i = 0; i < d->nr; i++) {
		const struct rblk_cfg_op *op = &d->ops[i];
		struct drop *x = &drops[n];

		if (op->result == 0)
			continue;
		switch (op->type) {
		case RBLK_CFG_OP_ADD_SUBSYS:
		case RBLK_CFG_OP_ADD_NS:
		case RBLK_CFG_OP_ALLOW_HOST:
		case RBLK_CFG_OP_ANY_HOST_ON:
		case RBLK_CFG_OP_LISTEN:
		case RBLK_CFG_OP_LINK:
		case RBLK_CFG_OP_ANA_STATE_ON:
		case RBLK_CFG_OP_ANA_STATE_OFF:
			break;
		default:
			continue; /* a failed removal leaves the object running: nothing to drop */
		}
		x->type = op->type;
		x->nqn = op->ss ? strdup(op->ss->nqn) : NULL;
		x->host = op->host ? strdup(op->host) : NULL;
		x->nsid = op->ns ? op->ns->nsid : 0;
		x->grpid = op->grpid;
		x->portid = op->port ? op->port->portid : 0;
		if ((op->ss && !x->nqn) || (op->host && !x->host)) {
			free(x->nqn);
			free(x->host);
			continue;
		}
		n++;
	}
	for (size_t i = 0; i < n; i++) {
		drop_one(new, &drops[i]);
		free(drops[i].nqn);
		free(drops[i].host);
	}
	free(drops);
}

/*
 * The listener @old_port still runs as it was: it replaces its new version
 * in @new. Its links are the new version's when the portid stayed (they
 * were applied), else its own; either way only to subsystems that run.
 */
static int restore_port(struct rblk_config *new, const struct rblk_cfg_port *old_port)
{
	struct rblk_cfg_port keep = { 0 }, *p;
	bool applied = false;

	for (size_t j = 0; j < new->nr_ports;) {
		struct rblk_cfg_port *np = &new->ports[j];

		if (!rblk_cfg_port_same_listen(np, old_port)) {
			j++;
			continue;
		}
		if (!applied && np->portid == old_port->portid) {
			keep.subsys = np->subsys; /* moved out before the port goes */
			keep.nr_subsys = np->nr_subsys;
			memcpy(keep.ana, np->ana, sizeof(keep.ana)); /* its ANA ops ran too */
			np->subsys = NULL;
			np->nr_subsys = 0;
			applied = true;
		}
		rblk_config_del_port(new, j);
	}
	if (rblk_config_add_port_copy(new, old_port))
		goto nomem;
	p = &new->ports[new->nr_ports - 1];
	if (applied) {
		memcpy(p->ana, keep.ana, sizeof(p->ana));
		while (p->nr_subsys)
			rblk_cfg_port_del_link(p, 0);
		for (size_t i = 0; i < keep.nr_subsys; i++)
			if (rblk_cfg_port_link(p, keep.subsys[i]))
				goto nomem;
	}
	for (size_t i = 0; i < p->nr_subsys;)
		if (!rblk_config_find_subsys(new, p->subsys[i]))
			rblk_cfg_port_del_link(p, i);
		else
			i++;
	drop_links(&keep);
	return 0;
nomem:
	drop_links(&keep);
	return -ENOMEM;
}

int rblk_config_keep_unapplied(struct rblk_config *new, const struct rblk_config *old,
			       const struct rblk_config_diff *d)
{
	bool tgt_changed = false;
	int ret;

	/* RESTART_NEEDED ops point into @old only, so @new may change under them. */
	for (size_t i = 0; i < d->nr; i++) {
		const struct rblk_cfg_op *op = &d->ops[i];

		if (op->type != RBLK_CFG_OP_RESTART_NEEDED)
			continue;
		if (!op->port) {
			tgt_changed = true;
			continue;
		}
		ret = restore_port(new, op->port);
		if (ret)
			return ret;
	}
	return tgt_changed ? rblk_config_set_tgt(new, &old->tgt) : 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The public target API (include/rblk/target.h): create/destroy, subsystems,
 * hosts, namespaces, listeners, start/run/stop and statistics. Listening and
 * running go through the fabric the target was created with (struct
 * rblk_fabric_ops, target/core.h; the RDMA engine's is target/rdma/fabric.c,
 * which also holds rblk_target_create()). Every configuration change that
 * a discovery host can see bumps the discovery generation counter.
 *
 * Ports: a listener exports every subsystem, or (linked_only, what the
 * daemon's configuration uses) the subsystems linked to it, as nvmet's
 * ports/N/subsystems. Discovery (discovery.c) and Connect (fabrics.c) ask
 * rblk_listener_exports_locked(); links change here under tgt->lock.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/log.h"
#include "protocol/nqn.h"
#include "target/core.h"

/* Copies a caller's sized options struct over the defaults (ABI growth). */
#define COPY_OPTS(dst, src)                                                    \
	do {                                                                   \
		size_t n_ = (src)->size < sizeof(*(dst)) ? (src)->size : sizeof(*(dst)); \
		memcpy((dst), (src), n_);                                      \
		(dst)->size = sizeof(*(dst));                                  \
	} while (0)

void rblk_target_opts_init(struct rblk_target_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
	opts->max_queue_depth = 128;
	opts->max_admin_queue_depth = 32;
	opts->max_io_queues = 64;
	opts->in_capsule_data_size = 8192;
	/* nvmet-rdma's MDTS: the Linux host's passthrough cannot split a command. */
	opts->max_io_size = 1u << 20;
	opts->io_unit_size = 131072;
	opts->poll_mode = RBLK_POLL_ADAPTIVE;
	opts->kato_check_ms = 100;
	opts->connect_timeout_ms = RBLK_TGT_CONNECT_TIMEOUT_MS;
	opts->max_pending_queues = RBLK_TGT_MAX_PENDING;
	opts->max_pending_per_addr = RBLK_TGT_MAX_PENDING_PER_ADDR;
	opts->max_ctrls_per_host = RBLK_TGT_MAX_CTRLS_PER_HOST;
	opts->max_queues = RBLK_TGT_MAX_QUEUES;
	opts->srq_depth = RBLK_TGT_SRQ_DEPTH;
	opts->state_dir = RBLK_TGT_STATE_DIR;
}

int rblk_target_opts_check(const struct rblk_target_opts *opts, const char **field, char *why,
			   size_t len)
{
	struct rblk_target_opts o;

	if (field)
		*field = NULL;
	if (!opts || opts->size < sizeof(opts->size)) {
		snprintf(why, len, "no options, or their size is not set (rblk_target_opts_init)");
		return -EINVAL;
	}
	/* What rblk_target_create() checks; 0 admission limits pass (they take defaults). */
	rblk_target_opts_init(&o);
	COPY_OPTS(&o, opts);
	return rblk_tgt_opts_check(&o, field, why, len);
}

/* Admission limits left 0 by an embedder take their defaults. */
static void admission_defaults(struct rblk_target_opts *o)
{
	if (!o->connect_timeout_ms)
		o->connect_timeout_ms = RBLK_TGT_CONNECT_TIMEOUT_MS;
	if (!o->max_pending_queues)
		o->max_pending_queues = RBLK_TGT_MAX_PENDING;
	if (!o->max_pending_per_addr)
		o->max_pending_per_addr = RBLK_TGT_MAX_PENDING_PER_ADDR;
	if (!o->max_ctrls_per_host)
		o->max_ctrls_per_host = RBLK_TGT_MAX_CTRLS_PER_HOST;
	if (!o->max_queues)
		o->max_queues = RBLK_TGT_MAX_QUEUES;
}

void rblk_subsystem_opts_init(struct rblk_subsystem_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
}

void rblk_ns_opts_init(struct rblk_ns_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
}

void rblk_listen_opts_init(struct rblk_listen_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
	opts->trsvcid = 4420;
	/*
	 * nvmet's port default: SQ flow control disable supported, so
	 * connect-all sets CATTR bit 2 and we skip SQHD bookkeeping (docs/interop.md §14.4, §3.4).
	 */
	opts->treq = NVMF_TREQ_DISABLE_SQFLOW;
	opts->require_rdma = true;
}

int rblk_tgt_create(const struct rblk_target_opts *opts, const struct rblk_fabric_ops *fabric,
		    const struct rblk_storage_ops *storage, struct rblk_target **out)
{
	struct rblk_subsystem_opts dopts;
	struct rblk_target *tgt;
	char why[256];
	int ret;

	if (!out || !fabric || !storage || (opts && opts->size < sizeof(opts->size)))
		return -EINVAL;
	tgt = calloc(1, sizeof(*tgt));
	if (!tgt)
		return -ENOMEM;
	tgt->fabric = fabric;
	tgt->storage_ops = storage;
	rblk_target_opts_init(&tgt->opts);
	if (opts)
		COPY_OPTS(&tgt->opts, opts);
	admission_defaults(&tgt->opts);
	ret = rblk_tgt_opts_check(&tgt->opts, NULL, why, sizeof(why));
	if (ret) {
		RBLK_ERR("target options: %s", why);
		goto out_free;
	}

	if ((tgt->opts.rbd_conf && !(tgt->rbd_conf = strdup(tgt->opts.rbd_conf))) ||
	    (tgt->opts.rbd_id && !(tgt->rbd_id = strdup(tgt->opts.rbd_id))) ||
	    (tgt->opts.rbd_keyring && !(tgt->rbd_keyring = strdup(tgt->opts.rbd_keyring))) ||
	    !(tgt->state_dir = strdup(tgt->opts.state_dir ? tgt->opts.state_dir
							   : RBLK_TGT_STATE_DIR))) {
		ret = -ENOMEM;
		goto out_free;
	}
	tgt->opts.rbd_conf = tgt->rbd_conf;
	tgt->opts.rbd_id = tgt->rbd_id;
	tgt->opts.rbd_keyring = tgt->rbd_keyring;
	tgt->opts.state_dir = tgt->state_dir;
	ret = storage->create(&tgt->opts, &tgt->storage, why, sizeof(why));
	if (ret) {
		RBLK_ERR("target options: %s", why);
		goto out_free;
	}
	/* The engine the options left to us ("uring" or "aio"), as resolved. */
	snprintf(tgt->backend, sizeof(tgt->backend), "%s", storage->engine_name(tgt->storage));
	tgt->opts.backend = tgt->backend;
	tgt->created_ms = rblk_clock_ms();
	tgt->next_portid = 1;
	atomic_init(&tgt->genctr, 1);
	/* Known before any namespace: each has a counter slot per poll group. */
	if (tgt->opts.threads == RBLK_THREADS_EMBEDDER)
		tgt->opts.num_poll_groups = 1;
	else if (!tgt->opts.num_poll_groups)
		tgt->opts.num_poll_groups = rblk_tgt_default_poll_groups();
	tgt->nr_pgs = tgt->opts.num_poll_groups;
	tgt->pgs = calloc(tgt->nr_pgs, sizeof(*tgt->pgs));
	if (!tgt->pgs) {
		ret = -ENOMEM;
		goto out_free;
	}

	ret = -pthread_mutex_init(&tgt->lock, NULL);
	if (ret)
		goto out_free;
	ret = -pthread_mutex_init(&tgt->pg_lock, NULL);
	if (ret)
		goto out_mutex;
	ret = -pthread_mutex_init(&tgt->eng_lock, NULL);
	if (ret)
		goto out_pg_mutex;
	/* The storage's engine first: the poll groups start with it attached. */
	if (storage->engine(tgt->storage)) {
		struct rblk_provider p = { .engine = storage->engine(tgt->storage) };

		ret = rblk_tgt_engine_slot(tgt, &p);
		if (ret < 0)
			goto out_eng_mutex;
	}
	tgt->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (tgt->stop_fd < 0) {
		ret = -errno;
		goto out_eng_mutex;
	}
	rblk_subsystem_opts_init(&dopts);
	dopts.nqn = NVME_DISC_SUBSYS_NAME;
	dopts.allow_any_host = true;
	ret = rblk_subsys_create(tgt, &dopts, RBLK_SUBSYS_DISCOVERY, &tgt->disc);
	if (ret)
		goto out_close;
	ret = fabric->create(tgt, &tgt->transport);
	if (ret) {
		RBLK_ERR("target: cannot create the transport: %s", strerror(-ret));
		goto out_disc;
	}
	*out = tgt;
	return 0;

out_disc:
	rblk_subsys_destroy(tgt->disc);
out_close:
	close(tgt->stop_fd);
out_eng_mutex:
	pthread_mutex_destroy(&tgt->eng_lock);
out_pg_mutex:
	pthread_mutex_destroy(&tgt->pg_lock);
out_mutex:
	pthread_mutex_destroy(&tgt->lock);
out_free:
	if (tgt->storage)
		storage->destroy(tgt->storage);
	free(tgt->pgs);
	free(tgt->rbd_conf);
	free(tgt->rbd_id);
	free(tgt->rbd_keyring);
	free(tgt->state_dir);
	free(tgt);
	return ret;
}

void rblk_tgt_idle_wait(struct rblk_target *tgt, unsigned us)
{
	if (tgt->transport)
		tgt->fabric->idle_wait(tgt->transport, us);
	else
		usleep(us);
}

void rblk_target_destroy(struct rblk_target *tgt)
{
	if (!tgt)
		return;
	/* First the hosts and the threads, so no queue refers to anything below. */
	if (tgt->transport)
		tgt->fabric->destroy(tgt->transport);
	tgt->transport = NULL;
	while (tgt->subsys) {
		struct rblk_subsystem *ss = tgt->subsys;

		tgt->subsys = ss->next;
		rblk_subsys_destroy(ss);
	}
	rblk_subsys_destroy(tgt->disc);
	for (unsigned i = 0; i < tgt->nr_listeners; i++) {
		free(tgt->listeners[i]->subsys);
		free(tgt->listeners[i]);
	}
	free(tgt->listeners);
	close(tgt->stop_fd);
	pthread_mutex_destroy(&tgt->eng_lock);
	pthread_mutex_destroy(&tgt->pg_lock);
	pthread_mutex_destroy(&tgt->lock);
	/* Every namespace has closed its provider. */
	tgt->storage_ops->destroy(tgt->storage);
	free(tgt->pgs);
	free(tgt->rbd_conf);
	free(tgt->rbd_id);
	free(tgt->rbd_keyring);
	free(tgt->state_dir);
	free(tgt);
}

/* ------------------------------------------------------------------------ */
/* Subsystems and hosts.                                                     */

int rblk_target_add_subsystem(struct rblk_target *tgt, const struct rblk_subsystem_opts *opts,
			      struct rblk_subsystem **out)
{
	struct rblk_subsystem_opts o;
	struct rblk_subsystem *ss;
	int ret;

	if (!tgt || !opts || opts->size < sizeof(opts->size))
		return -EINVAL;
	rblk_subsystem_opts_init(&o);
	COPY_OPTS(&o, opts);
	if (rblk_nqn_is_discovery(o.nqn)) {
		RBLK_ERR("the discovery NQN is built in; it cannot be added");
		return -EINVAL;
	}
	ret = rblk_subsys_create(tgt, &o, RBLK_SUBSYS_NVM, &ss);
	if (ret)
		return ret;
	pthread_mutex_lock(&tgt->lock);
	if (rblk_subsys_find_locked(tgt, ss->nqn)) {
		pthread_mutex_unlock(&tgt->lock);
		rblk_subsys_destroy(ss);
		return -EEXIST;
	}
	/* Appended: the discovery log lists subsystems in the order added. */
	{
		struct rblk_subsystem **p = &tgt->subsys;

		while (*p)
			p = &(*p)->next;
		*p = ss;
	}
	pthread_mutex_unlock(&tgt->lock);
	RBLK_NOTICE("subsystem %s added (serial %s%s)", ss->nqn, ss->serial,
		    ss->allow_any_host ? ", any host" : "");
	rblk_disc_changed(tgt);
	if (out)
		*out = ss;
	return 0;
}

/* Removes ss from l's links (tgt->lock held); false when it was not linked. */
static bool drop_link_locked(struct rblk_listener *l, const struct rblk_subsystem *ss)
{
	for (unsigned i = 0; i < l->nr_subsys; i++) {
		if (l->subsys[i] == ss) {
			/* Ordered: the discovery log lists a port's subsystems as linked. */
			memmove(&l->subsys[i], &l->subsys[i + 1],
				(l->nr_subsys - i - 1) * sizeof(l->subsys[0]));
			l->nr_subsys--;
			return true;
		}
	}
	return false;
}

int rblk_target_remove_subsystem(struct rblk_target *tgt, const char *nqn)
{
	struct rblk_subsystem *ss = NULL;

	if (!tgt || !nqn)
		return -EINVAL;
	pthread_mutex_lock(&tgt->lock);
	for (struct rblk_subsystem **p = &tgt->subsys; *p; p = &(*p)->next) {
		if (!strcmp((*p)->nqn, nqn)) {
			ss = *p;
			*p = ss->next;
			break;
		}
	}
	/* Its port links go with it (nvmet: the link cannot outlive the subsystem). */
	for (unsigned i = 0; ss && i < tgt->nr_listeners; i++)
		drop_link_locked(tgt->listeners[i], ss);
	pthread_mutex_unlock(&tgt->lock);
	if (!ss)
		return -ENOENT;
	rblk_disc_changed(tgt);
	rblk_subsys_destroy(ss);
	RBLK_NOTICE("subsystem %s removed", nqn);
	return 0;
}

struct rblk_subsystem *rblk_target_find_subsystem(struct rblk_target *tgt, const char *nqn)
{
	struct rblk_subsystem *ss;

	if (!tgt || !nqn || rblk_nqn_is_discovery(nqn))
		return NULL;
	pthread_mutex_lock(&tgt->lock);
	ss = rblk_subsys_find_locked(tgt, nqn);
	pthread_mutex_unlock(&tgt->lock);
	return ss;
}

int rblk_subsystem_allow_host(struct rblk_subsystem *ss, const char *hostnqn)
{
	int ret;

	if (!ss)
		return -EINVAL;
	ret = rblk_subsys_add_host(ss, hostnqn);
	if (!ret)
		rblk_disc_changed(ss->tgt);
	return ret;
}

int rblk_subsystem_disallow_host(struct rblk_subsystem *ss, const char *hostnqn)
{
	int ret;

	if (!ss)
		return -EINVAL;
	ret = rblk_subsys_remove_host(ss, hostnqn);
	if (!ret)
		rblk_disc_changed(ss->tgt);
	return ret;
}

int rblk_subsystem_set_allow_any_host(struct rblk_subsystem *ss, bool allow)
{
	if (!ss)
		return -EINVAL;
	rblk_subsys_set_allow_any(ss, allow);
	rblk_disc_changed(ss->tgt);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Namespaces.                                                               */

int rblk_subsystem_add_namespace(struct rblk_subsystem *ss, const struct rblk_ns_opts *opts,
				 uint32_t *nsid)
{
	struct rblk_ns_opts o;
	int ret;

	if (!ss || !opts || opts->size < sizeof(opts->size))
		return -EINVAL;
	rblk_ns_opts_init(&o);
	COPY_OPTS(&o, opts);
	ret = rblk_subsys_add_ns(ss, &o, nsid);
	if (!ret)
		rblk_disc_changed(ss->tgt);
	return ret;
}

int rblk_subsystem_resize_namespace(struct rblk_subsystem *ss, uint32_t nsid,
				    uint64_t num_blocks)
{
	struct rblk_tgt_ns *ns;
	int ret = 0;

	if (!ss || !num_blocks)
		return -EINVAL;
	ns = rblk_subsys_get_ns(ss, nsid);
	if (!ns)
		return -ENOENT;
	/* A path's size is its storage's (rbd follows it by itself). */
	if (ns->by_path)
		ret = -EOPNOTSUPP;
	else if (num_blocks > (UINT64_MAX >> ns->lbads))
		ret = -EINVAL;
	else
		rblk_tgt_ns_set_nlb(ns, num_blocks);
	rblk_tgt_ns_put(ns);
	return ret;
}

int rblk_subsystem_remove_namespace(struct rblk_subsystem *ss, uint32_t nsid)
{
	int ret;

	if (!ss)
		return -EINVAL;
	ret = rblk_subsys_remove_ns(ss, nsid);
	if (!ret)
		rblk_disc_changed(ss->tgt);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* Listeners and running.                                                    */

static int parse_traddr(const char *s, struct rblk_listener *l)
{
	struct in6_addr a6;
	struct in_addr a4;
	char buf[RBLK_TRADDR_LEN];
	size_t n;

	if (!s || !*s)
		s = "0.0.0.0";
	/* "[fe80::1]" is accepted for IPv6. */
	n = strlen(s);
	if (s[0] == '[' && n > 2 && s[n - 1] == ']' && n - 2 < sizeof(buf)) {
		memcpy(buf, s + 1, n - 2);
		buf[n - 2] = 0;
		s = buf;
	}
	if (inet_pton(AF_INET, s, &a4) == 1) {
		l->adrfam = NVMF_ADRFAM_IPV4;
		l->any = a4.s_addr == htonl(INADDR_ANY);
		inet_ntop(AF_INET, &a4, l->traddr, sizeof(l->traddr));
		return 0;
	}
	if (inet_pton(AF_INET6, s, &a6) == 1) {
		l->adrfam = NVMF_ADRFAM_IPV6;
		l->any = !memcmp(&a6, &in6addr_any, sizeof(a6));
		inet_ntop(AF_INET6, &a6, l->traddr, sizeof(l->traddr));
		return 0;
	}
	return -EINVAL;
}

int rblk_target_listen(struct rblk_target *tgt, const struct rblk_listen_opts *opts)
{
	struct rblk_listen_opts o;
	struct rblk_listener *l, **arr;
	int ret;

	if (!tgt || !opts || opts->size < sizeof(opts->size))
		return -EINVAL;
	rblk_listen_opts_init(&o);
	COPY_OPTS(&o, opts);
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->tgt = tgt;
	if (parse_traddr(o.traddr, l)) {
		RBLK_ERR("listen: \"%s\" is not a numeric IPv4/IPv6 address", o.traddr);
		free(l);
		return -EINVAL;
	}
	l->port = o.trsvcid ? o.trsvcid : 4420;
	snprintf(l->trsvcid, sizeof(l->trsvcid), "%u", l->port);
	l->treq = o.treq;
	l->require_rdma = o.require_rdma;
	l->linked_only = o.linked_only;
	rblk_ana_port_init(l);

	pthread_mutex_lock(&tgt->lock);
	for (unsigned i = 0; i < tgt->nr_listeners; i++) {
		const struct rblk_listener *x = tgt->listeners[i];

		/* Links name a port by its portid: it must be unique. */
		if ((x->port == l->port && !strcmp(x->traddr, l->traddr)) ||
		    (o.portid && x->portid == o.portid)) {
			pthread_mutex_unlock(&tgt->lock);
			RBLK_ERR("listen on %s port %u: %s already used by %s port %u", l->traddr,
				 l->port, x->portid == o.portid ? "portid" : "address", x->traddr,
				 x->port);
			free(l);
			return -EEXIST;
		}
	}
	l->portid = o.portid;
	if (!l->portid) {
		/* The lowest id not taken by an explicit one. */
		for (bool taken = true; taken;) {
			taken = false;
			for (unsigned i = 0; i < tgt->nr_listeners; i++)
				taken |= tgt->listeners[i]->portid == tgt->next_portid;
			if (taken)
				tgt->next_portid++;
		}
		l->portid = tgt->next_portid++;
	}
	pthread_mutex_unlock(&tgt->lock);

	ret = tgt->fabric->listen(tgt->transport, l);
	if (ret) {
		RBLK_ERR("listen on %s port %u: %s", l->traddr, l->port, strerror(-ret));
		free(l);
		return ret;
	}
	pthread_mutex_lock(&tgt->lock);
	arr = realloc(tgt->listeners, (tgt->nr_listeners + 1) * sizeof(*arr));
	if (arr) {
		arr[tgt->nr_listeners++] = l;
		tgt->listeners = arr;
	}
	pthread_mutex_unlock(&tgt->lock);
	if (!arr) {
		/* The transport keeps listening; it frees its state at destroy. */
		return -ENOMEM;
	}
	RBLK_NOTICE("listening on %s port %u (portid %u%s)", l->traddr, l->port, l->portid,
		    l->linked_only ? ", linked subsystems only" : "");
	rblk_disc_changed(tgt);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Port links.                                                               */

/* The NVM subsystem nqn (never the discovery one), tgt->lock held. */
static struct rblk_subsystem *find_nvm_locked(struct rblk_target *tgt, const char *nqn)
{
	if (!nqn || rblk_nqn_is_discovery(nqn))
		return NULL;
	return rblk_subsys_find_locked(tgt, nqn);
}

int rblk_target_port_add_subsystem(struct rblk_target *tgt, uint16_t portid, const char *nqn)
{
	struct rblk_subsystem *ss, **arr;
	struct rblk_listener *l;
	int ret = 0;

	if (!tgt || !nqn)
		return -EINVAL;
	pthread_mutex_lock(&tgt->lock);
	l = rblk_listener_find_locked(tgt, portid);
	ss = find_nvm_locked(tgt, nqn);
	if (!l || !ss) {
		RBLK_ERR("link %s to port %u: no such %s", nqn, portid, l ? "subsystem" : "port");
		ret = -ENOENT;
	} else if (!l->linked_only) {
		RBLK_ERR("link %s to port %u: the port exports every subsystem (not linked_only)",
			 nqn, portid);
		ret = -EINVAL;
	} else if (rblk_listener_exports_locked(l, ss)) {
		ret = -EEXIST;
	} else if (!(arr = realloc(l->subsys, (l->nr_subsys + 1) * sizeof(*arr)))) {
		ret = -ENOMEM;
	} else {
		arr[l->nr_subsys++] = ss;
		l->subsys = arr;
	}
	pthread_mutex_unlock(&tgt->lock);
	if (ret)
		return ret;
	RBLK_NOTICE("subsystem %s exported on port %u (%s port %u)", nqn, portid, l->traddr,
		    l->port);
	rblk_disc_changed(tgt);
	return 0;
}

int rblk_target_port_remove_subsystem(struct rblk_target *tgt, uint16_t portid, const char *nqn)
{
	struct rblk_subsystem *ss;
	struct rblk_listener *l;
	unsigned dropped = 0;

	if (!tgt || !nqn)
		return -EINVAL;
	pthread_mutex_lock(&tgt->lock);
	l = rblk_listener_find_locked(tgt, portid);
	ss = find_nvm_locked(tgt, nqn);
	if (!l || !ss || !drop_link_locked(l, ss)) {
		pthread_mutex_unlock(&tgt->lock);
		return -ENOENT;
	}
	/*
	 * As nvmet (nvmet_port_del_ctrls): the controllers that came through
	 * this port go; the host's reconnect is then refused. tgt->lock keeps
	 * Connect from creating one here meanwhile (lock order tgt -> ss).
	 */
	pthread_mutex_lock(&ss->lock);
	for (struct rblk_tgt_ctrl *c = ss->ctrls; c; c = c->next) {
		if (c->listener == l) {
			rblk_tgt_ctrl_fatal(c, "subsystem unlinked from the host's port");
			dropped++;
		}
	}
	pthread_mutex_unlock(&ss->lock);
	pthread_mutex_unlock(&tgt->lock);
	RBLK_NOTICE("subsystem %s no longer exported on port %u (%s port %u)%s", nqn, portid,
		    l->traddr, l->port, dropped ? "; its controllers there are disconnected" : "");
	rblk_disc_changed(tgt);
	return 0;
}

int rblk_target_start(struct rblk_target *tgt)
{
	int ret;

	if (!tgt)
		return -EINVAL;
	if (tgt->started)
		return 0;
	ret = tgt->fabric->start(tgt->transport);
	if (ret)
		return ret;
	tgt->started = true;
	return 0;
}

int rblk_target_fd(struct rblk_target *tgt)
{
	if (!tgt || !tgt->started)
		return -EINVAL;
	return tgt->fabric->fd(tgt->transport);
}

int rblk_target_poll(struct rblk_target *tgt, int *timeout_ms)
{
	int ret;

	if (!tgt || !timeout_ms || !tgt->started)
		return -EINVAL;
	if (atomic_load(&tgt->stop_requested)) {
		*timeout_ms = 0;
		return -ECANCELED;
	}
	ret = tgt->fabric->poll(tgt->transport, timeout_ms);
	/* Nothing left to wait for after a stop: return at once next time. */
	if (ret >= 0 && atomic_load(&tgt->stop_requested))
		*timeout_ms = 0;
	return ret;
}

/* rblk_target_run() in RBLK_THREADS_EMBEDDER: the loop, on this thread. */
static void run_loop(struct rblk_target *tgt)
{
	struct pollfd pfd = { .fd = rblk_target_fd(tgt), .events = POLLIN };
	int timeout;

	while (rblk_target_poll(tgt, &timeout) >= 0)
		if (timeout && poll(&pfd, 1, timeout) < 0 && errno != EINTR)
			break;
}

int rblk_target_run(struct rblk_target *tgt)
{
	uint64_t v;
	int ret;

	if (!tgt)
		return -EINVAL;
	ret = rblk_target_start(tgt);
	if (ret)
		return ret;
	if (tgt->opts.threads == RBLK_THREADS_EMBEDDER) {
		run_loop(tgt);
		if (read(tgt->stop_fd, &v, sizeof(v)) < 0)
			v = 0;
	}
	while (!atomic_load(&tgt->stop_requested)) {
		if (read(tgt->stop_fd, &v, sizeof(v)) < 0 && errno != EINTR)
			break;
	}
	tgt->fabric->stop(tgt->transport);
	tgt->started = false;
	atomic_store(&tgt->stop_requested, false);
	return 0;
}

void rblk_target_stop(struct rblk_target *tgt)
{
	uint64_t one = 1;
	ssize_t r;

	/* Async-signal-safe: an atomic store and write(2). */
	if (!tgt)
		return;
	atomic_store(&tgt->stop_requested, true);
	r = write(tgt->stop_fd, &one, sizeof(one));
	(void)r;
}

/* ------------------------------------------------------------------------ */
/* Statistics.                                                               */

static void add_u64(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static struct json_object *ctrl_json(struct rblk_tgt_ctrl *c)
{
	struct json_object *o = json_object_new_object();
	struct json_object *queues = json_object_new_array();

	pthread_mutex_lock(&c->lock);
	add_u64(o, "cntlid", c->cntlid);
	json_object_object_add(o, "hostnqn", json_object_new_string(c->hostnqn));
	json_object_object_add(o, "subsystem", json_object_new_string(c->ss->nqn));
	add_u64(o, "kato_ms", c->kato_ms);
	json_object_object_add(o, "ready", json_object_new_boolean(c->csts & NVME_CSTS_RDY));
	json_object_object_add(o, "failed", json_object_new_boolean(c->fatal));
	add_u64(o, "errors_logged", c->err_count);
	for (uint32_t i = 0; i <= c->max_qid; i++) {
		struct rblk_sq *sq = c->sqs[i];
		struct json_object *q;

		if (!sq)
			continue;
		q = json_object_new_object();
		add_u64(q, "qid", i);
		add_u64(q, "depth", sq->size);
		add_u64(q, "completed", rblk_stat_get(&sq->stats.completed));
		add_u64(q, "errors", rblk_stat_get(&sq->stats.errors));
		json_object_array_add(queues, q);
	}
	pthread_mutex_unlock(&c->lock);
	json_object_object_add(o, "queues", queues);
	return o;
}

static struct json_object *u64_array(const uint64_t *v, unsigned n)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_uint64(v[i]));
	return a;
}

/*
 * The latency histograms (per bucket, not cumulative: bounds in the
 * document's "latency_bounds_ns", the last bucket above them) and the
 * errors by status code type.
 */
static void lat_json(struct json_object *o, const struct rblk_tgt_ns *ns)
{
	static const char *const dir[2] = { "read_latency", "write_latency" };
	static const char *const sct[RBLK_TGT_SCT_NR] = {
		[RBLK_TGT_SCT_GENERIC] = "generic",
		[RBLK_TGT_SCT_CMD_SPECIFIC] = "command_specific",
		[RBLK_TGT_SCT_MEDIA] = "media",
		[RBLK_TGT_SCT_PATH] = "path",
		[RBLK_TGT_SCT_OTHER] = "other",
	};
	struct rblk_tgt_ns_lat lat;
	struct json_object *e = json_object_new_object();

	memset(&lat, 0, sizeof(lat));
	rblk_tgt_ns_lat_read(ns, &lat);
	for (unsigned d = 0; d < 2; d++) {
		struct json_object *h = json_object_new_object();

		json_object_object_add(h, "buckets", u64_array(lat.lat[d], RBLK_LAT_BUCKETS));
		add_u64(h, "sum_ns", lat.lat_sum_ns[d]);
		json_object_object_add(o, dir[d], h);
	}
	for (unsigned t = 0; t < RBLK_TGT_SCT_NR; t++)
		add_u64(e, sct[t], lat.errors_sct[t]);
	json_object_object_add(o, "errors_by_type", e);
}

static struct json_object *ns_json(struct rblk_tgt_ns *ns)
{
	struct json_object *o = json_object_new_object();
	struct rblk_tgt_ns_stats stats = { 0 }, *st = &stats;

	json_object_object_add(o, "subsystem", json_object_new_string(ns->ss->nqn));
	add_u64(o, "nsid", ns->nsid);
	json_object_object_add(o, "path", json_object_new_string(ns->path));
	add_u64(o, "blocks", rblk_tgt_ns_nlb(ns));
	add_u64(o, "block_size", 1u << ns->lbads);
	json_object_object_add(o, "read_only", json_object_new_boolean(ns->read_only));
	rblk_tgt_ns_stats_read(ns, st);
	add_u64(o, "read_cmds", st->read_cmds);
	add_u64(o, "write_cmds", st->write_cmds);
	add_u64(o, "read_bytes", st->read_bytes);
	add_u64(o, "write_bytes", st->write_bytes);
	add_u64(o, "other_cmds", st->other_cmds);
	add_u64(o, "errors", st->errors);
	add_u64(o, "media_errors", st->media_errors);
	add_u64(o, "syncs", st->syncs);
	add_u64(o, "sync_errors", st->sync_errors);
	add_u64(o, "busy_ns", st->busy_ns);
	add_u64(o, "inflight", rblk_tgt_ns_inflight(ns));
	lat_json(o, ns);
	add_u64(o, "qos_waits", st->qos_waits);
	return o;
}

static void subsys_json(struct rblk_subsystem *ss, struct json_object *ctrls,
			struct json_object *nss)
{
	pthread_mutex_lock(&ss->lock);
	for (struct rblk_tgt_ctrl *c = ss->ctrls; c; c = c->next)
		json_object_array_add(ctrls, ctrl_json(c));
	pthread_mutex_unlock(&ss->lock);
	pthread_rwlock_rdlock(&ss->ns_lock);
	for (uint32_t i = 0; i < ss->max_nsid; i++)
		if (ss->ns[i])
			json_object_array_add(nss, ns_json(ss->ns[i]));
	pthread_rwlock_unlock(&ss->ns_lock);
}

/* What the transport admitted, evicted and refused (admission control). */
static struct json_object *admission_json(struct rblk_target *tgt)
{
	struct json_object *o, *refused;
	struct rblk_fabric_admit_stats st;

	if (!tgt->fabric->admit_stats || !tgt->transport)
		return NULL;
	memset(&st, 0, sizeof(st));
	tgt->fabric->admit_stats(tgt->transport, &st);
	o = json_object_new_object();
	refused = json_object_new_object();
	add_u64(o, "connections", st.connections);
	add_u64(o, "pending", st.pending);
	add_u64(o, "evicting", st.evicting);
	add_u64(o, "evicted", st.evicted);
	add_u64(refused, "max_queues", st.refused_queues);
	add_u64(refused, "max_pending_queues", st.refused_pending);
	add_u64(refused, "max_pending_per_addr", st.refused_pending_addr);
	json_object_object_add(o, "refused", refused);
	return o;
}

static struct json_object *auth_json(struct rblk_target *tgt)
{
	struct json_object *o = json_object_new_object();

	add_u64(o, "successes", rblk_stat_get(&tgt->auth_successes));
	add_u64(o, "failures", rblk_stat_get(&tgt->auth_failures));
	return o;
}

/* Each registered poll group's load: busy time since it started, buffer-pool waits. */
static struct json_object *pgs_json(struct rblk_target *tgt)
{
	struct json_object *a = json_object_new_array();

	pthread_mutex_lock(&tgt->pg_lock);
	for (unsigned i = 0; i < tgt->nr_pgs; i++) {
		struct rblk_tgt_pg *pg = tgt->pgs[i];
		struct json_object *o;

		if (!pg)
			continue;
		o = json_object_new_object();
		add_u64(o, "id", pg->id);
		add_u64(o, "busy_ns", rblk_tgt_pg_busy_ns(pg));
		add_u64(o, "buf_waits", rblk_stat_get(&pg->buf_waits));
		json_object_array_add(a, o);
	}
	pthread_mutex_unlock(&tgt->pg_lock);
	return a;
}

int rblk_target_stats_json(struct rblk_target *tgt, char **out)
{
	struct json_object *root, *ctrls, *nss, *subs, *ls;
	const char *s;
	int ret = 0;

	if (!tgt || !out)
		return -EINVAL;
	root = json_object_new_object();
	ctrls = json_object_new_array();
	nss = json_object_new_array();
	subs = json_object_new_array();
	ls = json_object_new_array();
	if (!root || !ctrls || !nss || !subs || !ls) {
		ret = -ENOMEM;
		goto out;
	}
	pthread_mutex_lock(&tgt->lock);
	add_u64(root, "discovery_genctr", atomic_load(&tgt->genctr));
	for (unsigned i = 0; i < tgt->nr_listeners; i++) {
		struct json_object *l = json_object_new_object();

		json_object_object_add(l, "traddr", json_object_new_string(tgt->listeners[i]->traddr));
		json_object_object_add(l, "trsvcid",
				       json_object_new_string(tgt->listeners[i]->trsvcid));
		add_u64(l, "portid", tgt->listeners[i]->portid);
		if (tgt->listeners[i]->linked_only) {
			struct json_object *links = json_object_new_array();

			for (unsigned j = 0; j < tgt->listeners[i]->nr_subsys; j++)
				json_object_array_add(links, json_object_new_string(
								     tgt->listeners[i]->subsys[j]->nqn));
			json_object_object_add(l, "subsystems", links);
		} else {
			json_object_object_add(l, "subsystems", json_object_new_string("all"));
		}
		json_object_array_add(ls, l);
	}
	subsys_json(tgt->disc, ctrls, nss);
	for (struct rblk_subsystem *ss = tgt->subsys; ss; ss = ss->next) {
		struct json_object *so = json_object_new_object();

		json_object_object_add(so, "nqn", json_object_new_string(ss->nqn));
		json_object_object_add(so, "serial", json_object_new_string(ss->serial));
		add_u64(so, "unsafe_shutdowns", atomic_load(&ss->unsafe_shutdowns));
		json_object_array_add(subs, so);
		subsys_json(ss, ctrls, nss);
	}
	pthread_mutex_unlock(&tgt->lock);
	if (tgt->fabric->admit_stats)
		json_object_object_add(root, "admission", admission_json(tgt));
	json_object_object_add(root, "auth", auth_json(tgt));
	json_object_object_add(root, "poll_groups", pgs_json(tgt));
	json_object_object_add(root, "latency_bounds_ns", u64_array(rblk_lat_bound_ns,
									 RBLK_LAT_BOUNDS));
	json_object_object_add(root, "listeners", ls);
	json_object_object_add(root, "subsystems", subs);
	json_object_object_add(root, "controllers", ctrls);
	json_object_object_add(root, "namespaces", nss);
	ls = subs = ctrls = nss = NULL;
	s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	*out = s ? strdup(s) : NULL;
	if (!*out)
		ret = -ENOMEM;
out:
	json_object_put(ls);
	json_object_put(subs);
	json_object_put(ctrls);
	json_object_put(nss);
	json_object_put(root);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* What an engine reads of its target (target/fabric.h).                     */

const struct rblk_target_opts *rblk_tgt_opts(const struct rblk_target *tgt)
{
	return &tgt->opts;
}

int rblk_tgt_stop_fd(const struct rblk_target *tgt)
{
	return tgt->stop_fd;
}

/* SPDX-License-Identifier: MIT */
/*
 * fio-plugin/ctrl_cache: process-wide list of the controllers fio's jobs use
 * (see ctrl_cache.h for the sharing rule). One mutex guards the list, the
 * reference counts and the namespace tables; it is held across connects, so
 * two jobs naming the same target never connect twice at once. Nothing here
 * is on the I/O path.
 *
 * A filename with several paths (comma lists in traddr / trsvcid) gets a
 * multipath head instead of a controller: one per namespace (the head is
 * the namespace), shared by the jobs that name the same paths and ns; each
 * job takes a multipath queue pair of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "fio-plugin/ctrl_cache.h"

#define NS_MAX 16

struct rblk_fio_ctrl {
	struct rblk_fio_ctrl *next;
	struct rblk_trid_path paths[RBLK_MPATH_MAX_PATHS];
	struct rblk_trid trid;       /* nsid unused */
	struct rblk_fio_conn_params params;
	struct rblk_ctrl *ctrl;          /* a multipath head: its first connected path */
	struct rblk_mpath *mpath;        /* several paths */
	unsigned refs;
	bool is_private;
	unsigned nns;
	struct {
		uint32_t nsid;
		struct rblk_ns *ns;
	} ns[NS_MAX];
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rblk_fio_ctrl *cache_head;

static bool same_params(const struct rblk_fio_conn_params *a, const struct rblk_fio_conn_params *b)
{
	/* Jobs with other secrets would authenticate otherwise: they get their own controller. */
	return a->queue_size == b->queue_size && a->keep_alive_tmo == b->keep_alive_tmo &&
	       a->nr_io_queues == b->nr_io_queues && a->reconnect_delay == b->reconnect_delay &&
	       a->ctrl_loss_tmo == b->ctrl_loss_tmo && a->io_timeout == b->io_timeout &&
	       a->iopolicy == b->iopolicy &&
	       !strcmp(a->dhchap_secret, b->dhchap_secret) &&
	       !strcmp(a->dhchap_ctrl_secret, b->dhchap_ctrl_secret);
}

static bool matches(const struct rblk_fio_ctrl *rc, const struct rblk_trid *t,
		    const struct rblk_fio_conn_params *p)
{
	return !rc->is_private && !p->private_ctrl && rblk_fio_trid_same_ctrl(&rc->trid, t) &&
	       same_params(&rc->params, p) && (!rc->mpath || rc->trid.nsid == t->nsid);
}

/* What usually lies behind a connect errno. */
static const char *connect_hint(int err)
{
	switch (err) {
	case -ENODEV:
	case -EADDRNOTAVAIL:
	case -ENETUNREACH:
		return " (no RDMA device routes to that address: check `rblk doctor`, `rdma link`)";
	case -ECONNREFUSED:
		return " (nothing listens there, or the target rejected the connection)";
	case -ETIMEDOUT:
		return " (no answer within connect_timeout)";
	case -EHOSTUNREACH:
		return " (the address did not resolve or is unreachable)";
	case -EACCES:
		return " (in-band authentication failed: set dhchap_secret to the subsystem's key "
		       "for this host NQN, and dhchap_ctrl_secret to the controller's)";
	default:
		return "";
	}
}

/* A multipath head over @n paths, each @o with its own address. */
static int connect_mpath(struct rblk_fio_ctrl *rc, const struct rblk_connect_opts *o, unsigned n,
			 uint16_t *status)
{
	struct rblk_connect_opts po[RBLK_MPATH_MAX_PATHS];
	struct rblk_mpath_opts mo;
	int ret;

	for (unsigned i = 0; i < n; i++) {
		po[i] = *o;
		po[i].traddr = rc->paths[i].traddr;
		po[i].trsvcid = rc->paths[i].trsvcid;
	}
	rblk_mpath_opts_init(&mo);
	mo.paths = po;
	mo.npaths = n;
	mo.nsid = rc->trid.nsid;
	mo.iopolicy = rc->params.iopolicy;
	ret = rblk_mpath_connect(&mo, &rc->mpath, status);
	if (ret)
		return ret;
	for (unsigned i = 0; i < n && !rc->ctrl; i++)
		rc->ctrl = rblk_mpath_path_ctrl(rc->mpath, i);
	return 0;
}

/* With the lock held: a new controller at the head of the list, refs 0. */
static int connect_new(const struct rblk_trid *t, const struct rblk_fio_conn_params *p,
		       struct rblk_fio_ctrl **out, char *why, size_t whylen)
{
	struct rblk_connect_opts o;
	struct rblk_fio_ctrl *rc;
	uint16_t status = 0;
	char where[RBLK_TRID_ADDR_MAX * 2 + RBLK_NQN_MAX + 64];
	int ret;

	rc = calloc(1, sizeof(*rc));
	if (!rc) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	rc->trid = *t;
	rc->params = *p;
	rc->is_private = p->private_ctrl;

	rblk_connect_opts_init(&o);
	o.traddr = rc->trid.traddr;
	o.trsvcid = rc->trid.trsvcid;
	o.subnqn = rc->trid.subnqn;
	o.hostnqn = rc->trid.hostnqn[0] ? rc->trid.hostnqn : NULL;
	o.hostid = rc->trid.hostid[0] ? rc->trid.hostid : NULL;
	o.host_traddr = rc->trid.host_traddr[0] ? rc->trid.host_traddr : NULL;
	if (p->queue_size)
		o.queue_size = p->queue_size;
	if (p->keep_alive_tmo)
		o.keep_alive_tmo = p->keep_alive_tmo;
	if (p->nr_io_queues)
		o.nr_io_queues = p->nr_io_queues;
	if (p->connect_timeout_ms)
		o.connect_timeout_ms = p->connect_timeout_ms;
	if (p->reconnect_delay > 0)
		o.reconnect_delay = p->reconnect_delay;
	if (p->ctrl_loss_tmo >= -1)
		o.ctrl_loss_tmo = p->ctrl_loss_tmo;
	if (p->io_timeout == -1)
		o.io_timeout_ms = UINT32_MAX;
	else if (p->io_timeout > 0)
		o.io_timeout_ms = (uint32_t)p->io_timeout * 1000;
	o.dhchap_secret = rc->params.dhchap_secret[0] ? rc->params.dhchap_secret : NULL;
	o.dhchap_ctrl_secret = rc->params.dhchap_ctrl_secret[0] ? rc->params.dhchap_ctrl_secret : NULL;

	ret = rblk_fio_trid_paths(&rc->trid, rc->paths, why, whylen);
	if (ret < 0) {
		free(rc);
		return ret;
	}
	if (ret > 1)
		ret = connect_mpath(rc, &o, (unsigned)ret, &status);
	else
		ret = rblk_connect(&o, &rc->ctrl, &status);
	if (ret) {
		rblk_fio_trid_str(t, where, sizeof(where));
		if (ret == -EREMOTEIO && status)
			snprintf(why, whylen, "cannot connect to %s: the target refused: %s (status 0x%x)",
				 where, rblk_status_str(status), status);
		else if (ret == -EINVAL)
			snprintf(why, whylen, "cannot connect to %s: invalid connection parameters "
				 "(queue_size 16..1024, NQNs up to 223 bytes, hostid a UUID)", where);
		else
			snprintf(why, whylen, "cannot connect to %s: %s%s", where, strerror(-ret),
				 connect_hint(ret));
		free(rc);
		return ret;
	}
	rc->next = cache_head;
	cache_head = rc;
	*out = rc;
	return 0;
}

int rblk_fio_ctrl_get(const struct rblk_trid *t, const struct rblk_fio_conn_params *p,
		      struct rblk_fio_ctrl **out, char *why, size_t whylen)
{
	struct rblk_fio_ctrl *rc;
	int ret = 0;

	pthread_mutex_lock(&cache_lock);
	for (rc = cache_head; rc; rc = rc->next)
		if (matches(rc, t, p))
			break;
	if (!rc)
		ret = connect_new(t, p, &rc, why, whylen);
	if (!ret) {
		rc->refs++;
		*out = rc;
	}
	pthread_mutex_unlock(&cache_lock);
	return ret;
}

/* With the lock held: @n qpairs of @rc, all or none; 0, -EBUSY or another -errno. */
static int take_qpairs(struct rblk_fio_ctrl *rc, unsigned n, struct rblk_qpair **qps)
{
	unsigned got = 0;
	int ret = 0;

	while (!ret && got < n) {
		ret = rc->mpath ? rblk_mpath_qpair_alloc(rc->mpath, &qps[got])
				: rblk_qpair_alloc(rc->ctrl, &qps[got]);
		if (!ret)
			got++;
	}
	if (ret)
		while (got)
			rblk_qpair_free(qps[--got]);
	return ret;
}

int rblk_fio_ctrl_get_qpairs(const struct rblk_trid *t, const struct rblk_fio_conn_params *p,
			     unsigned n, struct rblk_fio_ctrl **out, struct rblk_qpair **qps,
			     char *why, size_t whylen)
{
	struct rblk_fio_ctrl *rc;
	int ret = -EBUSY;

	why[0] = '\0';
	pthread_mutex_lock(&cache_lock);
	for (rc = cache_head; rc; rc = rc->next) {
		if (!matches(rc, t, p))
			continue;
		ret = take_qpairs(rc, n, qps);
		if (ret != -EBUSY)
			break;
	}
	if (!rc && ret == -EBUSY) {
		/* No shared controller has @n free I/O queues (or none exists yet). */
		ret = connect_new(t, p, &rc, why, whylen);
		if (!ret)
			ret = take_qpairs(rc, n, qps);
	}
	if (ret == -EBUSY && rc && !*why)
		snprintf(why, whylen, "the controller of %s has %u I/O queue%s; a job takes %u of them "
			 "(qpairs=): raise nr_io_queues= or lower qpairs=", rc->trid.subnqn,
			 rblk_ctrl_num_io_queues(rc->ctrl),
			 rblk_ctrl_num_io_queues(rc->ctrl) == 1 ? "" : "s", n);
	else if (ret && rc && !*why)
		snprintf(why, whylen, "no I/O queue on the controller of %s: %s", rc->trid.subnqn,
			 strerror(-ret));
	if (!ret) {
		rc->refs += n;
		*out = rc;
	} else if (rc && !rc->refs) {
		/* A controller connected for us alone that we cannot use. */
		cache_head = rc->next;
		if (rc->mpath)
			rblk_mpath_disconnect(rc->mpath);
		else
			rblk_disconnect(rc->ctrl);
		free(rc);
	}
	pthread_mutex_unlock(&cache_lock);
	return ret;
}

void rblk_fio_ctrl_put_qpair(struct rblk_fio_ctrl *rc, struct rblk_qpair *qp)
{
	rblk_qpair_free(qp);
	rblk_fio_ctrl_put(rc);
}

int rblk_fio_ctrl_ns(struct rblk_fio_ctrl *rc, uint32_t nsid, struct rblk_ns **out,
		     char *why, size_t whylen)
{
	int ret = 0;

	pthread_mutex_lock(&cache_lock);
	for (unsigned i = 0; i < rc->nns; i++) {
		if (rc->ns[i].nsid == nsid) {
			*out = rc->ns[i].ns;
			goto out;
		}
	}
	if (rc->nns == NS_MAX) {
		snprintf(why, whylen, "more than %d namespaces of one controller", NS_MAX);
		ret = -E2BIG;
		goto out;
	}
	if (rc->mpath) {
		/* The head is its namespace (the cache matched on nsid). */
		*out = rblk_mpath_ns(rc->mpath);
		ret = rblk_ns_id(*out) == nsid ? 0 : -ENODEV;
	} else {
		ret = rblk_ns_open(rc->ctrl, nsid, out);
	}
	if (ret) {
		if (ret == -ENODEV || ret == -EREMOTEIO)
			snprintf(why, whylen, "namespace %u of %s: no such active namespace",
				 nsid, rc->trid.subnqn);
		else if (ret == -EOPNOTSUPP)
			snprintf(why, whylen, "namespace %u of %s: unsupported format (metadata, "
				 "or blocks not 512 B..4 KiB)", nsid, rc->trid.subnqn);
		else
			snprintf(why, whylen, "namespace %u of %s: %s", nsid, rc->trid.subnqn,
				 strerror(-ret));
		goto out;
	}
	rc->ns[rc->nns].nsid = nsid;
	rc->ns[rc->nns].ns = *out;
	rc->nns++;
out:
	pthread_mutex_unlock(&cache_lock);
	return ret;
}

struct rblk_ctrl *rblk_fio_ctrl_handle(struct rblk_fio_ctrl *rc)
{
	return rc->ctrl;
}

void rblk_fio_ctrl_put(struct rblk_fio_ctrl *rc)
{
	struct rblk_fio_ctrl **pp;

	if (!rc)
		return;
	pthread_mutex_lock(&cache_lock);
	if (--rc->refs) {
		pthread_mutex_unlock(&cache_lock);
		return;
	}
	for (pp = &cache_head; *pp; pp = &(*pp)->next) {
		if (*pp == rc) {
			*pp = rc->next;
			break;
		}
	}
	pthread_mutex_unlock(&cache_lock);
	if (rc->mpath) {
		rblk_mpath_disconnect(rc->mpath);
	} else {
		for (unsigned i = 0; i < rc->nns; i++)
			rblk_ns_close(rc->ns[i].ns);
		rblk_disconnect(rc->ctrl);
	}
	free(rc);
}

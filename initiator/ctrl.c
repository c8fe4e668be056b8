/* SPDX-License-Identifier: MIT */
/*
 * The controller object: options, creation and first connect
 * (rblk_connect), disconnect and destruction, the device every queue shares,
 * and the actions the reconnect state machine asks for (tear every queue
 * down, resume, fail I/O). The bring-up sequence itself is bringup.c; the
 * thread that drives recovery is thread.c.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/parse.h"
#include "initiator/ctrl.h"
#include "protocol/nqn.h"

void rblk_ctrl_wake(struct rblk_ctrl *c)
{
	uint64_t one = 1;

	if (c->wake_fd >= 0 && write(c->wake_fd, &one, sizeof(one)) < 0)
		RBLK_DEBUG("waking the controller thread: %s", strerror(errno));
}

void rblk_ctrl_set_state(struct rblk_ctrl *c, enum rblk_ctrl_state st)
{
	atomic_store(&c->state, (int)st);
}

enum rblk_ctrl_state rblk_ctrl_state(struct rblk_ctrl *c)
{
	return (enum rblk_ctrl_state)atomic_load(&c->state);
}

void rblk_connect_opts_init(struct rblk_connect_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->size = sizeof(*opts);
	opts->trsvcid = "4420";
	opts->queue_size = 128;
	opts->keep_alive_tmo = 5;
	opts->reconnect_delay = 10;
	opts->ctrl_loss_tmo = 600;
	opts->connect_timeout_ms = 3000;
	opts->io_timeout_ms = RBLK_IO_TIMEOUT_MS_DEFAULT;
}

/* The caller's options over the defaults; a shorter (older) struct keeps the defaults for the rest. */
static int opts_normalise(const struct rblk_connect_opts *in, struct rblk_connect_opts *o)
{
	long cpus;

	rblk_connect_opts_init(o);
	if (!in || in->size < offsetof(struct rblk_connect_opts, subnqn) + sizeof(in->subnqn))
		return -EINVAL;
	memcpy(o, in, in->size < sizeof(*o) ? in->size : sizeof(*o));
	o->size = sizeof(*o);
	if (!o->traddr || !*o->traddr || !o->subnqn || !*o->subnqn)
		return -EINVAL;
	if (!o->trsvcid || !*o->trsvcid)
		o->trsvcid = "4420";
	if (!o->queue_size)
		o->queue_size = 128;
	/* The kernel's bounds for queue_size (drivers/nvme/host/fabrics.c). */
	if (o->queue_size < 16 || o->queue_size > 1024)
		return -EINVAL;
	if (!o->reconnect_delay)
		o->reconnect_delay = 10;
	if (o->reconnect_delay < 0)
		return -EINVAL;
	if (!o->connect_timeout_ms)
		o->connect_timeout_ms = 3000;
	if (!o->io_timeout_ms)
		o->io_timeout_ms = RBLK_IO_TIMEOUT_MS_DEFAULT;
	if (!o->nr_io_queues) {
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
		o->nr_io_queues = cpus > 0 ? (uint32_t)cpus : 1;
	}
	if (o->nr_io_queues > RBLK_IO_QUEUES_MAX)
		o->nr_io_queues = RBLK_IO_QUEUES_MAX;
	if (strlen(o->subnqn) > RBLK_NQN_MAX)
		return -EINVAL;
	return 0;
}

static int resolve(const char *host, uint16_t port, struct sockaddr_storage *out)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	int ret;

	if (!rblk_addr_parse(host, port, out))
		return 0;
	/* Not a literal: a host name, as nvme-cli accepts. */
	ret = getaddrinfo(host, NULL, &hints, &res);
	if (ret) {
		RBLK_ERR("cannot resolve '%s': %s", host, gai_strerror(ret));
		return -EHOSTUNREACH;
	}
	memset(out, 0, sizeof(*out));
	memcpy(out, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	rblk_addr_set_port((struct sockaddr *)out, port);
	return 0;
}

int rblk_ctrl_attach_device(struct rblk_ctrl *c, struct rblk_cm_id *id)
{
	struct rblk_device *dev = rblk_cm_id_device(id);
	struct rblk_device_attr attr;
	struct sockaddr_storage local;
	struct rblk_pd *pd;
	int ret;

	if (!dev)
		return -ENODEV;
	ret = rblk_device_query(dev, &attr);
	if (ret) {
		RBLK_ERR("querying %s: %s", rblk_device_name(dev), strerror(-ret));
		return ret;
	}
	c->responder_resources = (uint8_t)(attr.max_qp_rd_atom > 255 ? 255
					   : attr.max_qp_rd_atom ? attr.max_qp_rd_atom
								 : 1);
	ret = rblk_pd_alloc(dev, &pd);
	if (ret) {
		RBLK_ERR("allocating a PD on %s: %s", rblk_device_name(dev), strerror(-ret));
		return ret;
	}
	c->dev = dev;
	/* Memory an earlier device had (or recorded since it went) is registered here. */
	rblk_mem_attach(c, pd);
	/*
	 * Registered memory and CQs belong to this device for the controller's
	 * life, but librdmacm may close a device when no id uses it, which a
	 * reconnect (every queue destroyed) would do: an id bound to our local
	 * address keeps it referenced.
	 */
	memcpy(&local, rblk_cm_id_local_addr(id), rblk_addr_len(rblk_cm_id_local_addr(id)));
	rblk_addr_set_port((struct sockaddr *)&local, 0);
	if (rblk_cm_channel_create(true, &c->anchor_ch) ||
	    rblk_cm_id_create(c->anchor_ch, NULL, &c->anchor) ||
	    rblk_cm_bind(c->anchor, (struct sockaddr *)&local)) {
		RBLK_DEBUG("no anchor id on %s: relying on librdmacm keeping it open",
			   rblk_device_name(dev));
		rblk_cm_id_destroy(c->anchor);
		c->anchor = NULL;
	}
	RBLK_INFO("using %s for %s", rblk_device_name(dev), c->traddr);
	return 0;
}

void rblk_ctrl_release_device(struct rblk_ctrl *c)
{
	struct rblk_pd *pd;
	int ret;

	if (!c->dev)
		return;
	RBLK_WARN("%s at %s:%s: releasing %s (%s); the next connection registers its memory again",
		  c->subnqn, c->traddr, c->trsvcid, rblk_device_name(c->dev),
		  c->dev_removed ? "the device is being removed" : "the route moved to another device");
	/*
	 * The PD first: a bounce pool an owner makes from now on stays
	 * unregistered, and one it made just before is dropped with its queue's.
	 */
	pd = rblk_mem_detach(c);
	for (unsigned i = 0; c->ioq && i < c->nr_io_queues; i++)
		rblk_qpair_release_device(c->ioq[i]);
	rblk_hq_release_device(&c->admin);
	ret = rblk_pd_dealloc(pd);
	if (ret)
		RBLK_WARN("releasing the PD: %s", strerror(-ret));
	rblk_cm_id_destroy(c->anchor);
	c->anchor = NULL;
	rblk_cm_channel_destroy(c->anchor_ch);
	c->anchor_ch = NULL;
	c->dev = NULL;
	c->dev_removed = false;
	/* Requests kept for the reconnect carry the old keys. */
	c->rekey = true;
	/*
	 * librdmacm closes a removed device's context only when its device
	 * list is refreshed; a device without context disassociation
	 * (Soft-RoCE) finishes going only then.
	 */
	rblk_cm_forget_removed_devices();
}

bool rblk_ctrl_anchor_removed(struct rblk_ctrl *c)
{
	struct rblk_cm_event ev;
	bool removed = false;

	if (!c->anchor_ch)
		return false;
	while (!rblk_cm_get_event(c->anchor_ch, &ev)) {
		if (ev.type == RBLK_CM_EVENT_DEVICE_REMOVAL)
			removed = true;
		rblk_cm_ack_event(&ev);
	}
	return removed;
}

/*
 * The DHHC-1 secrets, parsed once so that a typo fails here and not at the
 * first Connect that asks for authentication. Messages never quote them.
 */
static int parse_secrets(struct rblk_ctrl *c, const char *host, const char *ctrl)
{
	int ret;

	if (ctrl && !host) {
		RBLK_ERR("connect: dhchap_ctrl_secret needs dhchap_secret (the controller authenticates to an authenticated host)");
		return -EINVAL;
	}
	if (host) {
		if (rblk_auth_secret_parse(host, &c->host_key)) {
			RBLK_ERR("connect: dhchap_secret is not a DHHC-1 secret (DHHC-1:00..03:<base64 of a 32, 48 or 64-byte key and its CRC-32>:)");
			return -EINVAL;
		}
		c->has_host_key = true;
	}
	if (ctrl) {
		if (rblk_auth_secret_parse(ctrl, &c->ctrl_key)) {
			RBLK_ERR("connect: dhchap_ctrl_secret is not a DHHC-1 secret (DHHC-1:00..03:<base64 of a 32, 48 or 64-byte key and its CRC-32>:)");
			return -EINVAL;
		}
		c->has_ctrl_key = true;
		/* S2 as Linux numbers them: a random start, then one more per transaction. */
		ret = rblk_auth_random((uint8_t *)&c->auth_seqnum, sizeof(c->auth_seqnum));
		if (ret)
			return ret;
	}
	return 0;
}

static void ctrl_free(struct rblk_ctrl *c)
{
	if (c->ioq) {
		for (unsigned i = 0; i < c->nr_io_queues; i++)
			rblk_qpair_destroy(c->ioq[i]);
		free(c->ioq);
	}
	rblk_ns_free_all(c);
	rblk_hq_fini(&c->admin);
	rblk_mem_fini(c);
	if (c->pd) {
		int ret = rblk_pd_dealloc(c->pd);

		if (ret)
			RBLK_WARN("releasing the PD: %s", strerror(-ret));
	}
	rblk_cm_id_destroy(c->anchor);
	rblk_cm_channel_destroy(c->anchor_ch);
	if (c->wake_fd >= 0)
		close(c->wake_fd);
	pthread_cond_destroy(&c->sync_cond);
	pthread_rwlock_destroy(&c->mem_lock);
	pthread_mutex_destroy(&c->lock);
	free(c->id);
	free(c->traddr);
	free(c->trsvcid);
	free(c->host_traddr);
	free(c->subnqn);
	rblk_auth_secret_clear(&c->host_key);
	rblk_auth_secret_clear(&c->ctrl_key);
	free(c);
}

static char *dup_or_null(const char *s, int *err)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*err = -ENOMEM;
	return d;
}

int rblk_ctrl_create(const struct rblk_connect_opts *opts, bool oneshot, struct rblk_ctrl **out,
		     uint16_t *status)
{
	struct rblk_ctrl *c;
	char why[80];
	uint16_t port;
	int ret = 0;

	*out = NULL;
	if (status)
		*status = 0;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->wake_fd = -1;
	c->oneshot = oneshot;
	atomic_init(&c->event_fd, -1);
	pthread_mutex_init(&c->lock, NULL);
	pthread_rwlock_init(&c->mem_lock, NULL);
	pthread_cond_init(&c->sync_cond, NULL);
	atomic_init(&c->state, RBLK_CTRL_LIVE);
	atomic_init(&c->ka_next_ms, UINT64_MAX);

	ret = opts_normalise(opts, &c->opts);
	if (ret) {
		RBLK_ERR("connect: invalid options (traddr and subnqn are required; queue_size 16..1024; reconnect_delay > 0)");
		goto out_free;
	}
	c->traddr = dup_or_null(c->opts.traddr, &ret);
	c->trsvcid = dup_or_null(c->opts.trsvcid, &ret);
	c->host_traddr = dup_or_null(c->opts.host_traddr, &ret);
	c->subnqn = dup_or_null(c->opts.subnqn, &ret);
	if (ret)
		goto out_free;
	/* Never keep the caller's pointers. */
	c->opts.traddr = c->traddr;
	c->opts.trsvcid = c->trsvcid;
	c->opts.host_traddr = c->host_traddr;
	c->opts.subnqn = c->subnqn;
	c->opts.hostnqn = NULL;
	c->opts.hostid = NULL;
	/* opts_normalise() left them NULL for a caller's struct too old to have them. */
	ret = parse_secrets(c, c->opts.dhchap_secret, c->opts.dhchap_ctrl_secret);
	c->opts.dhchap_secret = NULL;
	c->opts.dhchap_ctrl_secret = NULL;
	if (ret)
		goto out_free;
	c->discovery = rblk_nqn_is_discovery(c->subnqn);
	c->kato_ms = c->opts.keep_alive_tmo * 1000;

	ret = rblk_port_parse(c->trsvcid, &port, why, sizeof(why));
	if (ret) {
		RBLK_ERR("connect: trsvcid '%s': %s", c->trsvcid, why);
		ret = -EINVAL;
		goto out_free;
	}
	ret = resolve(c->traddr, port, &c->dst);
	if (ret)
		goto out_free;
	if (c->host_traddr) {
		ret = rblk_addr_parse(c->host_traddr, 0, &c->src);
		if (ret) {
			RBLK_ERR("connect: host_traddr '%s' is not an IP address", c->host_traddr);
			goto out_free;
		}
		c->has_src = true;
	}
	ret = rblk_host_id_load(opts->hostnqn, opts->hostid, &c->host);
	if (ret) {
		RBLK_ERR("connect: host identity: %s", strerror(-ret));
		goto out_free;
	}
	ret = rblk_rc_init(&c->rc, c->opts.reconnect_delay, c->opts.ctrl_loss_tmo);
	if (ret)
		goto out_free;
	c->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (c->wake_fd < 0) {
		ret = -errno;
		goto out_free;
	}
	ret = rblk_hq_init(&c->admin, c, 0, RBLK_ADMIN_DEPTH);
	if (ret)
		goto out_free;

	ret = rblk_ctrl_establish(c, false, status);
	if (ret) {
		rblk_ctrl_teardown_queues(c, false);
		goto out_free;
	}
	rblk_ctrl_resume_io(c);
	if (!oneshot) {
		ret = rblk_ctrl_thread_start(c);
		if (ret) {
			rblk_ctrl_shutdown(c);
			rblk_ctrl_teardown_queues(c, false);
			goto out_free;
		}
	}
	RBLK_NOTICE("connected to %s at %s:%s: controller %u, %u I/O queue%s of %u entries, %u bytes per command",
		    c->subnqn, c->traddr, c->trsvcid, c->cntlid, c->nr_io_queues,
		    c->nr_io_queues == 1 ? "" : "s", c->io_depth, c->max_xfer);
	*out = c;
	return 0;

out_free:
	ctrl_free(c);
	return ret;
}

int rblk_connect(const struct rblk_connect_opts *opts, struct rblk_ctrl **out, uint16_t *status)
{
	if (!out)
		return -EINVAL;
	return rblk_ctrl_create(opts, false, out, status);
}

/* Runs the callbacks of whatever completed on @qp and was never polled. */
static void qpair_drain_done(struct rblk_qpair *qp)
{
	pthread_mutex_lock(&qp->hq.lock);
	rblk_io_fail_pending(qp, -ENOTCONN);
	rblk_hq_fail_queued(&qp->hq, -ENOTCONN);
	pthread_mutex_unlock(&qp->hq.lock);
	while (rblk_poll(qp, 0) > 0)
		;
}

void rblk_disconnect(struct rblk_ctrl *c)
{
	bool was_live;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	was_live = c->rc.state == RBLK_CTRL_LIVE;
	rblk_rc_step(&c->rc, RBLK_RC_EV_DELETE, rblk_clock_ms());
	rblk_ctrl_set_state(c, c->rc.state);
	pthread_mutex_unlock(&c->lock);
	rblk_ctrl_thread_stop(c);

	/* The Linux order: I/O queues, then CC.SHN on the admin queue, then the admin queue. */
	for (unsigned i = 0; c->ioq && i < c->nr_io_queues; i++) {
		if (c->ioq[i]->inflight)
			RBLK_WARN("qid %u: disconnecting with %u requests in flight: they fail",
				  i + 1, c->ioq[i]->inflight);
		rblk_hq_teardown(&c->ioq[i]->hq, false);
		qpair_drain_done(c->ioq[i]);
	}
	if (was_live)
		rblk_ctrl_shutdown(c);
	rblk_hq_teardown(&c->admin, false);
	RBLK_INFO("disconnected from %s at %s:%s", c->subnqn, c->traddr, c->trsvcid);
	ctrl_free(c);
}

void rblk_ctrl_teardown_queues(struct rblk_ctrl *c, bool requeue)
{
	for (unsigned i = 0; c->ioq && i < c->nr_io_queues; i++) {
		rblk_hq_teardown(&c->ioq[i]->hq, requeue);
		rblk_qpair_notify(c->ioq[i]);
	}
	rblk_hq_teardown(&c->admin, false);
	pthread_mutex_lock(&c->admin.lock);
	c->ka_outstanding = false;
	atomic_store(&c->ka_next_ms, UINT64_MAX);
	pthread_mutex_unlock(&c->admin.lock);
}

void rblk_ctrl_resume_io(struct rblk_ctrl *c)
{
	for (unsigned i = 0; c->ioq && i < c->nr_io_queues; i++) {
		struct rblk_qpair *qp = c->ioq[i];

		if (c->rekey)
			rblk_qpair_rekey(qp);
		rblk_hq_set_live(&qp->hq);
		rblk_qpair_notify(qp);
	}
	c->rekey = false;
}

void rblk_ctrl_fail_io(struct rblk_ctrl *c)
{
	for (unsigned i = 0; c->ioq && i < c->nr_io_queues; i++) {
		struct rblk_qpair *qp = c->ioq[i];

		pthread_mutex_lock(&qp->hq.lock);
		rblk_io_fail_pending(qp, -ENOTCONN);
		rblk_hq_fail_queued(&qp->hq, -ENOTCONN);
		pthread_mutex_unlock(&qp->hq.lock);
		rblk_qpair_notify(qp);
	}
	/* Sync callers waiting for a qpair must see the loss. */
	pthread_mutex_lock(&c->lock);
	pthread_cond_broadcast(&c->sync_cond);
	pthread_mutex_unlock(&c->lock);
}

const void *rblk_ctrl_identify(struct rblk_ctrl *c)
{
	return c->id;
}

uint16_t rblk_ctrl_cntlid(struct rblk_ctrl *c)
{
	return c->cntlid;
}

uint32_t rblk_ctrl_max_xfer(struct rblk_ctrl *c)
{
	return c->max_xfer;
}

uint32_t rblk_ctrl_num_io_queues(struct rblk_ctrl *c)
{
	return c->nr_io_queues;
}

uint32_t rblk_ctrl_io_queue_size(struct rblk_ctrl *c)
{
	return c->io_depth;
}

/* SPDX-License-Identifier: MIT */
/*
 * The RDMA transport as the core sees it (struct rblk_fabric_ops, target/fabric.h):
 * listeners (rdma_cm ids on one event channel), the CM thread that handles
 * every CM event (CONNECT_REQUEST: validate the NVMe/RDMA private data,
 * reject with the right status or pick a poll group round robin and hand it
 * the new queue; other events: forward to the queue's poll group), and
 * start/stop of the poll groups (stop disconnects every host, waits for
 * every queue to drain and be destroyed, then joins the threads).
 *
 * Listening never falls back: an address no RDMA device serves is refused
 * with -ENODEV/-EADDRNOTAVAIL and a message saying why.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "protocol/cm.h"
#include "target/rdma/listener.h"

#define LISTEN_BACKLOG 128
#define STOP_DRAIN_TIMEOUT_S 30

/* Device limits for the CM decisions, cached per device (CM thread only). */
static int dev_attr(struct rblk_transport *t, struct rblk_device *dev,
		    struct rblk_device_attr *out)
{
	int ret;

	for (unsigned i = 0; i < t->ndev_cache; i++) {
		if (t->dev_cache[i].dev == dev) {
			*out = t->dev_cache[i].attr;
			return 0;
		}
	}
	ret = rblk_device_query(dev, out);
	if (ret)
		return ret;
	if (t->ndev_cache < RBLK_CM_DEV_CACHE) {
		t->dev_cache[t->ndev_cache].dev = dev;
		t->dev_cache[t->ndev_cache].attr = *out;
		t->ndev_cache++;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* CM events.                                                                */

static void reject(struct rblk_cm_event *ev, uint16_t sts)
{
	struct nvme_rdma_cm_rej rej;
	struct rblk_cm_id *id = ev->id;
	int ret;

	rblk_cm_rej_encode(&rej, sts);
	ret = rblk_cm_reject(id, &rej, sizeof(rej));
	if (ret)
		RBLK_WARN("rdma_reject: %s", strerror(-ret));
	/* The id can go only after its event is acked. */
	rblk_cm_ack_event(ev);
	rblk_cm_id_destroy(id);
}

static void on_connect_request(struct rblk_transport *t, struct rblk_cm_event *ev)
{
	struct rblk_rdma_listener *rl = rblk_cm_id_context(ev->listen_id);
	const struct rblk_target_opts *o = rblk_tgt_opts(t->tgt);
	struct rblk_rdma_conn_limits lim;
	struct rblk_rdma_conn_plan plan;
	struct rblk_device_attr attr;
	struct rblk_rdma_queue *q;
	struct rblk_poll_group *pg;
	char peer[RBLK_ADDR_STRLEN];
	int ret;

	rblk_addr_str(rblk_cm_id_peer_addr(ev->id), peer, sizeof(peer));
	if (atomic_load(&t->stopping)) {
		RBLK_INFO("%s: rejecting a connection: the target is stopping", peer);
		reject(ev, NVME_RDMA_CM_NO_RSC);
		return;
	}
	ret = dev_attr(t, rblk_cm_id_device(ev->id), &attr);
	if (ret) {
		RBLK_ERR("%s: cannot query the RDMA device: %s", peer, strerror(-ret));
		reject(ev, NVME_RDMA_CM_NO_RSC);
		return;
	}
	memset(&lim, 0, sizeof(lim));
	lim.max_queue_depth = o->max_queue_depth;
	lim.max_admin_queue_depth = o->max_admin_queue_depth;
	lim.max_qid = o->max_io_queues;
	lim.dev_max_init_rd_atom = attr.max_qp_init_rd_atom;
	ret = rblk_rdma_conn_decide(ev->param.private_data, ev->param.private_data_len,
				    ev->param.initiator_depth, &lim, &plan);
	if (ret) {
		RBLK_NOTICE("%s: rejecting the connection: %s (NVMe/RDMA status %#x)", peer,
			    rblk_cm_rej_str((uint16_t)ret), ret);
		reject(ev, (uint16_t)ret);
		return;
	}
	if (rblk_rdma_admit(t, rblk_cm_id_peer_addr(ev->id), peer)) {
		reject(ev, NVME_RDMA_CM_NO_RSC);
		return;
	}
	pg = t->pgs[t->next_pg++ % t->npg];
	ret = rblk_rdma_queue_alloc(t, pg, ev->id, rl ? rl->l : NULL, &plan, &q);
	if (ret) {
		reject(ev, NVME_RDMA_CM_NO_RSC);
		return;
	}
	RBLK_DEBUG("%s: connect request qid %u hsqsize %u hrqsize %u ird %u -> poll group %u",
		   peer, plan.qid, plan.depth - 1, plan.hrqsize, ev->param.initiator_depth,
		   pg->opts.id);
	/* The poll group builds the QP, posts the receives and accepts. */
	rblk_rdma_queue_post_event(q, RBLK_CM_EVENT_CONNECT_REQUEST);
	rblk_cm_ack_event(ev);
}

static struct rblk_rdma_listener *listener_of(struct rblk_transport *t, struct rblk_cm_id *id)
{
	struct rblk_rdma_listener *rl;

	pthread_mutex_lock(&t->lock);
	for (rl = t->listeners; rl; rl = rl->next)
		if (rl->id == id)
			break;
	pthread_mutex_unlock(&t->lock);
	return rl;
}

/* ------------------------------------------------------------------------ */
/* Devices that go away.                                                     */

void rblk_rdma_gone_put(struct rblk_rdma_gone *g)
{
	struct rblk_transport *t = g->t;

	if (atomic_fetch_sub(&g->refs, 1) != 1)
		return;
	RBLK_NOTICE("RDMA device %s: every poll group let go of it", rblk_device_name(g->dev));
	/* Every group freed its PD, CQs and pools on it: librdmacm may close it now. */
	rblk_cm_forget_removed_devices();
	atomic_store(&g->done, true);
	atomic_fetch_sub(&t->gone_pending, 1);
}

/* CM thread: forget the records every group is done with. */
static void gone_reap(struct rblk_transport *t)
{
	for (unsigned i = 0; i < t->ngone;) {
		if (atomic_load(&t->gone[i]->done)) {
			free(t->gone[i]);
			t->gone[i] = t->gone[--t->ngone];
		} else {
			i++;
		}
	}
}

/*
 * The groups are gone (stop): what they had not put is nobody's now, and a
 * started transport begins with no device going.
 */
static void gone_clear(struct rblk_transport *t)
{
	for (unsigned i = 0; i < t->ngone; i++)
		free(t->gone[i]);
	t->ngone = 0;
	atomic_store(&t->gone_pending, 0);
}

/*
 * CM thread: the first DEVICE_REMOVAL of any id on dev (a listener's or a
 * queue's) tells every poll group; later ones find it on record.
 */
static void device_gone(struct rblk_transport *t, struct rblk_device *dev)
{
	struct rblk_rdma_gone *g;

	gone_reap(t);
	for (unsigned i = 0; i < t->ngone; i++)
		if (t->gone[i]->dev == dev)
			return;
	for (unsigned i = 0; i < t->ndev_cache; i++) {
		if (t->dev_cache[i].dev == dev) {
			t->dev_cache[i] = t->dev_cache[--t->ndev_cache];
			break;
		}
	}
	g = calloc(1, sizeof(*g));
	if (!g || t->ngone == RBLK_CM_DEV_CACHE) {
		/* The groups keep their context of it: safe, and the kernel waits for us. */
		RBLK_ERR("RDMA device %s went away: cannot free what the poll groups hold on it "
			 "(%s)", rblk_device_name(dev),
			 g ? "too many devices going at once" : "out of memory");
		free(g);
		return;
	}
	g->t = t;
	g->dev = dev;
	atomic_init(&g->refs, t->npg + 1);
	atomic_init(&g->done, false);
	t->gone[t->ngone++] = g;
	atomic_fetch_add(&t->gone_pending, 1);
	RBLK_WARN("RDMA device %s went away: closing its connections and freeing what the "
		  "poll groups hold on it", rblk_device_name(dev));
	for (unsigned i = 0; i < t->npg; i++)
		rblk_pg_device_gone(t->pgs[i], g);
	rblk_rdma_gone_put(g);
}

/*
 * A listener's device went away (DEVICE_REMOVAL) or its address moved
 * (ADDR_CHANGE). The id is dead for good: it goes, and rblk_rdma_relisten()
 * listens on the address again once a device serves it (and the poll groups
 * let go of the old one), so the target comes back without a restart as the
 * hosts reconnect.
 */
static void listener_event(struct rblk_transport *t, struct rblk_rdma_listener *rl,
			   struct rblk_cm_event *ev)
{
	struct rblk_cm_id *id = ev->id;
	struct rblk_device *dev = rblk_cm_id_device(id);
	enum rblk_cm_event_type type = ev->type;

	if (type != RBLK_CM_EVENT_DEVICE_REMOVAL && type != RBLK_CM_EVENT_ADDR_CHANGE) {
		RBLK_WARN("listener %s port %s: %s", rl->l->traddr, rl->l->trsvcid,
			  rblk_cm_event_str(type));
		rblk_cm_ack_event(ev);
		return;
	}
	RBLK_WARN("listener %s port %s: %s: listening again when the address is on an RDMA "
		  "device", rl->l->traddr, rl->l->trsvcid, rblk_cm_event_str(type));
	rblk_cm_ack_event(ev);
	pthread_mutex_lock(&t->lock);
	rl->id = NULL;
	rl->relisten_ms = rblk_clock_ms() + RBLK_RELISTEN_MS;
	rl->relisten_tries = 0;
	t->listeners_waiting++;
	pthread_mutex_unlock(&t->lock);
	rblk_cm_id_destroy(id);
	if (type == RBLK_CM_EVENT_DEVICE_REMOVAL && dev)
		device_gone(t, dev);
}

static int listen_on(struct rblk_transport *t, struct rblk_rdma_listener *rl)
{
	struct rblk_cm_id *id;
	int ret;

	ret = rblk_cm_id_create(t->ch, rl, &id);
	if (ret)
		return ret;
	ret = rblk_cm_listen(id, (struct sockaddr *)&rl->addr, LISTEN_BACKLOG);
	if (ret) {
		rblk_cm_id_destroy(id);
		return ret;
	}
	rl->id = id;
	return 0;
}

int rblk_rdma_relisten(struct rblk_transport *t)
{
	uint64_t now = rblk_clock_ms(), next = UINT64_MAX;
	struct rblk_rdma_listener *rl;
	char addr[RBLK_ADDR_STRLEN];
	int ret;

	/* Not before the groups let go of a device that went: see gone_pending. */
	if (atomic_load(&t->gone_pending))
		return RBLK_RELISTEN_MS;
	pthread_mutex_lock(&t->lock);
	for (rl = t->listeners; rl && t->listeners_waiting; rl = rl->next) {
		if (rl->id)
			continue;
		if (rl->relisten_ms > now) {
			next = rl->relisten_ms < next ? rl->relisten_ms : next;
			continue;
		}
		rblk_addr_str((struct sockaddr *)&rl->addr, addr, sizeof(addr));
		ret = listen_on(t, rl);
		if (!ret) {
			t->listeners_waiting--;
			RBLK_NOTICE("listening on %s again", addr);
			continue;
		}
		/* Once, then every minute: the address may stay away for long. */
		if (rl->relisten_tries++ % 60 == 0)
			RBLK_NOTICE("listen on %s: %s; trying again every %u ms", addr,
				    strerror(-ret), RBLK_RELISTEN_MS);
		rl->relisten_ms = now + RBLK_RELISTEN_MS;
		next = rl->relisten_ms < next ? rl->relisten_ms : next;
	}
	pthread_mutex_unlock(&t->lock);
	return next == UINT64_MAX ? -1 : (int)(next - now);
}

static void handle_event(struct rblk_transport *t, struct rblk_cm_event *ev)
{
	struct rblk_rdma_listener *rl;

	RBLK_DEBUG("CM event %s (status %d)", rblk_cm_event_str(ev->type), ev->status);
	if (ev->type == RBLK_CM_EVENT_CONNECT_REQUEST) {
		/* Under the lock: stop sets `stopping` under it, then no queue appears. */
		pthread_mutex_lock(&t->lock);
		on_connect_request(t, ev);
		pthread_mutex_unlock(&t->lock);
		return;
	}
	rl = listener_of(t, ev->id);
	if (rl) {
		listener_event(t, rl, ev);
		return;
	} else {
		struct rblk_rdma_queue *q = rblk_cm_id_context(ev->id);

		if (q)
			rblk_rdma_queue_post_event(q, ev->type);
		if (ev->type == RBLK_CM_EVENT_DEVICE_REMOVAL && rblk_cm_id_device(ev->id))
			device_gone(t, rblk_cm_id_device(ev->id));
	}
	rblk_cm_ack_event(ev);
}

unsigned rblk_rdma_cm_drain(struct rblk_transport *t)
{
	struct rblk_cm_event cev;
	unsigned n = 0;
	int ret;

	while ((ret = rblk_cm_get_event(t->ch, &cev)) == 0) {
		handle_event(t, &cev);
		n++;
	}
	if (ret != -EAGAIN)
		RBLK_ERR("connection manager: rdma_get_cm_event: %s", strerror(-ret));
	return n;
}

static void *cm_thread(void *arg)
{
	struct rblk_transport *t = arg;
	struct epoll_event ev;
	int epfd;

	pthread_setname_np(pthread_self(), "rblk-cm");
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0) {
		RBLK_ERR("CM thread: epoll_create1: %s", strerror(errno));
		return NULL;
	}
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = rblk_cm_channel_fd(t->ch);
	epoll_ctl(epfd, EPOLL_CTL_ADD, ev.data.fd, &ev);
	ev.data.fd = t->cm_stop_fd;
	epoll_ctl(epfd, EPOLL_CTL_ADD, ev.data.fd, &ev);
	for (;;) {
		struct epoll_event out[2];
		bool stop = false;
		int n = epoll_wait(epfd, out, 2, rblk_rdma_relisten(t));

		if (n < 0 && errno != EINTR) {
			RBLK_ERR("CM thread: epoll_wait: %s", strerror(errno));
			break;
		}
		for (int i = 0; i < n; i++)
			stop |= out[i].data.fd == t->cm_stop_fd;
		if (stop)
			break;
		rblk_rdma_cm_drain(t);
	}
	close(epfd);
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* Listening.                                                                */

static int ensure_channel(struct rblk_transport *t)
{
	int ret;

	if (t->ch)
		return 0;
	ret = rblk_cm_channel_create(true, &t->ch);
	if (ret)
		RBLK_ERR("cannot open the RDMA connection manager (%s): is rdma_cm loaded and "
			 "/dev/infiniband/rdma_cm there?", strerror(-ret));
	return ret == -ENOENT ? -ENODEV : ret;
}

/* What serves a wildcard listener: every port of every device, one line each. */
static int log_wildcard(const char *addr)
{
	struct rblk_rdma_dev_info *devs = NULL;
	unsigned lines = 0;
	int n = 0, ret;

	ret = rblk_rdma_dev_list(&devs, &n);
	if (ret)
		return ret;
	for (int i = 0; i < n; i++) {
		for (unsigned p = 0; p < devs[i].port_count; p++) {
			const struct rblk_port_info *pi = &devs[i].ports[p];
			const struct rblk_gid_info *g = NULL;

			for (unsigned k = 0; k < pi->gid_count; k++) {
				if (!g || pi->gids[k].type == RBLK_GID_ROCE_V2) {
					g = &pi->gids[k];
					if (g->type == RBLK_GID_ROCE_V2)
						break;
				}
			}
			RBLK_NOTICE("listening on %s via %s port %u (%s, %s%s%s), %s GID %s [%u], "
				    "MTU %u", addr, devs[i].name, pi->port_num,
				    rblk_port_state_str(pi->state),
				    rblk_link_layer_str(pi->link_layer), pi->netdev[0] ? " via " : "",
				    pi->netdev, g ? rblk_gid_type_str(g->type) : "no",
				    g ? g->str : "-", g ? g->index : 0, pi->active_mtu);
			lines++;
		}
	}
	rblk_rdma_dev_list_free(devs, n);
	return lines ? 0 : -ENODEV;
}

int rblk_rdma_transport_listen(struct rblk_transport *t, struct rblk_listener *l)
{
	struct rblk_rdma_listener *rl;
	struct rblk_cm_port_info info;
	struct sockaddr_storage ss;
	struct rblk_addr_dev ad;
	char addr[RBLK_ADDR_STRLEN], desc[256];
	int ret;

	ret = rblk_addr_parse(l->any ? NULL : l->traddr, l->port, &ss);
	if (ret) {
		RBLK_ERR("listen: \"%s\" is not a numeric address", l->traddr);
		return ret;
	}
	if (l->any && l->adrfam == NVMF_ADRFAM_IPV6)
		rblk_addr_parse("::", l->port, &ss);
	rblk_addr_str((struct sockaddr *)&ss, addr, sizeof(addr));

	if (!l->any) {
		ret = rblk_rdma_dev_for_addr((struct sockaddr *)&ss, &ad);
		if (ret && l->require_rdma) {
			RBLK_ERR("listen on %s: %s; not listening (rblk never falls back to "
				 "another transport)", addr,
				 ret == -EADDRNOTAVAIL ? "the address is not on this machine"
						       : "no RDMA device serves this address (is an "
							 "rxe/RoCE device on its interface?)");
			return ret == -EADDRNOTAVAIL ? ret : -ENODEV;
		}
	}
	ret = ensure_channel(t);
	if (ret)
		return ret;
	rl = calloc(1, sizeof(*rl));
	if (!rl)
		return -ENOMEM;
	rl->t = t;
	rl->l = l;
	rl->addr = ss;
	ret = rblk_cm_id_create(t->ch, rl, &rl->id);
	if (ret)
		goto out_free;
	ret = rblk_cm_listen(rl->id, (struct sockaddr *)&ss, LISTEN_BACKLOG);
	if (ret) {
		RBLK_ERR("listen on %s: %s", addr,
			 ret == -EADDRINUSE ? "address in use (another target on this port?)"
			 : ret == -ENODEV   ? "no RDMA device serves this address"
					    : strerror(-ret));
		if (ret == -EADDRNOTAVAIL || ret == -ENODEV)
			ret = ret == -ENODEV ? -ENODEV : -EADDRNOTAVAIL;
		goto out_destroy;
	}

	if (l->any) {
		ret = log_wildcard(addr);
		if (ret && l->require_rdma) {
			RBLK_ERR("listen on %s: no RDMA device on this machine; not listening", addr);
			ret = -ENODEV;
			goto out_destroy;
		}
	} else if (!rblk_cm_id_port_info(rl->id, &info)) {
		RBLK_NOTICE("listening on %s via %s", addr,
			    rblk_cm_port_info_str(&info, desc, sizeof(desc)));
	} else {
		RBLK_NOTICE("listening on %s", addr);
	}
	l->transport_priv = rl;
	pthread_mutex_lock(&t->lock);
	rl->next = t->listeners;
	t->listeners = rl;
	pthread_mutex_unlock(&t->lock);
	return 0;

out_destroy:
	rblk_cm_id_destroy(rl->id);
out_free:
	free(rl);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* Life cycle.                                                               */

int rblk_rdma_transport_create(struct rblk_target *tgt, struct rblk_transport **out)
{
	struct rblk_transport *t = calloc(1, sizeof(*t));
	pthread_condattr_t ca;
	int ret;

	if (!t)
		return -ENOMEM;
	t->tgt = tgt;
	t->cm_stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (t->cm_stop_fd < 0) {
		ret = -errno;
		free(t);
		return ret;
	}
	pthread_mutex_init(&t->ctl_lock, NULL);
	pthread_mutex_init(&t->lock, NULL);
	pthread_mutex_init(&t->qlock, NULL);
	rblk_rdma_admit_table_init(&t->admit);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->queues_cv, &ca);
	pthread_condattr_destroy(&ca);
	atomic_init(&t->stopping, false);
	/*
	 * A debugging knob: answer 0x4F SGLs with a plain SEND (the host then
	 * invalidates its key itself), to tell remote-invalidation problems of
	 * a provider apart from others.
	 */
	t->no_invalidate = getenv("RBLK_RDMA_NO_INVALIDATE") &&
			   !strcmp(getenv("RBLK_RDMA_NO_INVALIDATE"), "1");
	if (t->no_invalidate)
		RBLK_NOTICE("RDMA transport: RBLK_RDMA_NO_INVALIDATE=1: no SEND_WITH_INV");
	*out = t;
	return 0;
}

static void destroy_groups(struct rblk_transport *t)
{
	for (unsigned i = 0; i < t->npg; i++)
		rblk_poll_group_destroy(t->pgs[i]);
	free(t->pgs);
	t->pgs = NULL;
	t->npg = 0;
}

/* The poll groups' options, from the target's. */
static void pg_opts(const struct rblk_transport *t, struct rblk_pg_opts *po)
{
	const struct rblk_target_opts *o = rblk_tgt_opts(t->tgt);

	memset(po, 0, sizeof(*po));
	po->tgt = t->tgt;
	po->mode = o->poll_mode;
	po->io_unit_size = o->io_unit_size;
	po->num_units = o->num_shared_buffers ? o->num_shared_buffers : o->max_queue_depth;
	po->tick_ms = o->kato_check_ms;
	po->srq_depth = o->srq_depth;
	po->icd_size = o->in_capsule_data_size;
}

static int start_threads(struct rblk_transport *t, struct rblk_pg_opts *po)
{
	const struct rblk_target_opts *o = rblk_tgt_opts(t->tgt);
	int ret;

	t->npg = o->num_poll_groups; /* resolved by rblk_target_create() */
	t->pgs = calloc(t->npg, sizeof(*t->pgs));
	if (!t->pgs) {
		t->npg = 0;
		return -ENOMEM;
	}
	for (unsigned i = 0; i < t->npg; i++) {
		po->id = i;
		ret = rblk_poll_group_create(po, t, &t->pgs[i]);
		if (!ret)
			ret = rblk_reactor_start(&t->pgs[i]->r);
		if (ret) {
			RBLK_ERR("cannot start poll group %u: %s", i, strerror(-ret));
			destroy_groups(t);
			return ret;
		}
	}
	ret = -pthread_create(&t->cm_thread, NULL, cm_thread, t);
	if (ret)
		destroy_groups(t);
	return ret;
}

int rblk_rdma_transport_start(struct rblk_transport *t)
{
	const struct rblk_target_opts *o = rblk_tgt_opts(t->tgt);
	struct rblk_pg_opts po;
	int ret = 0;

	pthread_mutex_lock(&t->ctl_lock);
	if (t->started)
		goto out;
	ret = ensure_channel(t);
	if (ret)
		goto out;
	pg_opts(t, &po);
	atomic_store(&t->stopping, false);
	t->embedded = o->threads == RBLK_THREADS_EMBEDDER;
	ret = t->embedded ? rblk_rdma_loop_start(t, &po) : start_threads(t, &po);
	if (ret)
		goto out;
	t->started = true;
	RBLK_INFO("RDMA transport: %u poll group%s (%s polling%s), %u buffers of %u bytes each",
		  t->npg, t->npg == 1 ? "" : "s",
		  o->poll_mode == RBLK_POLL_BUSY ? "busy"
		  : o->poll_mode == RBLK_POLL_EVENT ? "event" : "adaptive",
		  t->embedded ? ", on the embedder's thread" : "", po.num_units, po.io_unit_size);
out:
	pthread_mutex_unlock(&t->ctl_lock);
	return ret;
}

void rblk_rdma_disconnect_all(void *arg)
{
	struct rblk_poll_group *pg = arg;
	struct rblk_rdma_queue *q;

	TAILQ_FOREACH(q, &pg->queues, link)
		rblk_rdma_queue_disconnect_local(q);
}

void rblk_rdma_transport_stop(struct rblk_transport *t)
{
	struct timespec deadline;
	uint64_t one = 1;
	unsigned left;

	if (!t)
		return;
	pthread_mutex_lock(&t->ctl_lock);
	if (!t->started) {
		pthread_mutex_unlock(&t->ctl_lock);
		return;
	}
	/* No new hosts; every queue disconnects and drains on its own thread. */
	pthread_mutex_lock(&t->lock);
	atomic_store(&t->stopping, true);
	pthread_mutex_unlock(&t->lock);
	if (t->embedded) {
		rblk_rdma_loop_stop(t);
		gone_clear(t);
		t->started = false;
		pthread_mutex_unlock(&t->ctl_lock);
		return;
	}
	for (unsigned i = 0; i < t->npg; i++)
		if (rblk_reactor_run_on(&t->pgs[i]->r, rblk_rdma_disconnect_all, t->pgs[i]))
			RBLK_ERR("poll group %u: cannot ask it to disconnect", i);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += STOP_DRAIN_TIMEOUT_S;
	pthread_mutex_lock(&t->qlock);
	while (t->admit.queues &&
	       pthread_cond_timedwait(&t->queues_cv, &t->qlock, &deadline) != ETIMEDOUT)
		;
	left = t->admit.queues;
	pthread_mutex_unlock(&t->qlock);
	if (left)
		RBLK_WARN("RDMA transport: %u queues did not drain in %d s", left,
			  STOP_DRAIN_TIMEOUT_S);

	destroy_groups(t);
	/* The CM thread last: draining queues needed it to ack their events. */
	if (write(t->cm_stop_fd, &one, sizeof(one)) < 0)
		RBLK_ERR("CM thread stop: %s", strerror(errno));
	pthread_join(t->cm_thread, NULL);
	gone_clear(t);
	if (read(t->cm_stop_fd, &one, sizeof(one)) < 0)
		one = 0;
	t->started = false;
	pthread_mutex_unlock(&t->ctl_lock);
}

void rblk_rdma_transport_destroy(struct rblk_transport *t)
{
	if (!t)
		return;
	rblk_rdma_transport_stop(t);
	while (t->listeners) {
		struct rblk_rdma_listener *rl = t->listeners;

		t->listeners = rl->next;
		rblk_cm_id_destroy(rl->id);
		free(rl);
	}
	rblk_cm_channel_destroy(t->ch);
	pthread_cond_destroy(&t->queues_cv);
	pthread_mutex_destroy(&t->qlock);
	pthread_mutex_destroy(&t->lock);
	pthread_mutex_destroy(&t->ctl_lock);
	close(t->cm_stop_fd);
	free(t);
}

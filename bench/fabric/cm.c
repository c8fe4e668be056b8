/* SPDX-License-Identifier: MIT */
/*
 * The in-process fabric's connection manager: event channels (a locked
 * list whose eventfd is readable while events wait, so the target's CM
 * thread can epoll it), ids, listeners found by address and port, and the
 * connect / accept / reject / disconnect exchange with the private data and
 * RDMA read depths crossed over as the IB CM does. Destroying an id waits
 * until its events are acked, as rdma_destroy_id() does: the target frees
 * a queue only after that. See fabric.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "bench/fabric/fabric.h"

pthread_mutex_t fab_cm_lock = PTHREAD_MUTEX_INITIALIZER;

/* What an IB/RoCE CM carries at most in a REQ (padded to it) and a REP. */
#define PRIV_REQ 56
#define PRIV_MAX 196

struct rblk_cm_channel {
	int efd;
	pthread_mutex_t lock;
	struct fab_event *head, **tail;
	bool nonblocking;
};

struct fab_event {
	struct fab_event *next;
	struct rblk_cm_event ev;
	uint8_t priv[PRIV_MAX];
};

enum id_state {
	ID_IDLE,
	ID_LISTEN,
	ID_RESOLVED,      /* address (and route) resolved: may connect */
	ID_REQUEST,       /* passive side: CONNECT_REQUEST delivered */
	ID_CONNECTING,
	ID_CONNECTED,
	ID_DISCONNECTED,
};

struct rblk_cm_id {
	struct rblk_cm_channel *ch;
	void *context;
	enum id_state state;
	struct sockaddr_storage local, peer;
	struct rblk_device *dev;
	struct rblk_qp *qp;
	struct rblk_cm_id *remote;        /* the other end (fab_cm_lock) */
	struct rblk_cm_id *next_listener;
	_Atomic int unacked;
};

static struct rblk_cm_id *listeners;
static uint16_t next_port = 40000;

/* ------------------------------------------------------------------------ */
/* Channels and events.                                                      */

int rblk_cm_channel_create(bool nonblocking, struct rblk_cm_channel **out)
{
	struct rblk_cm_channel *ch = calloc(1, sizeof(*ch));

	*out = NULL;
	if (!ch)
		return -ENOMEM;
	ch->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ch->efd < 0) {
		int ret = -errno;

		free(ch);
		return ret;
	}
	pthread_mutex_init(&ch->lock, NULL);
	ch->tail = &ch->head;
	ch->nonblocking = nonblocking;
	*out = ch;
	return 0;
}

void rblk_cm_channel_destroy(struct rblk_cm_channel *ch)
{
	if (!ch)
		return;
	while (ch->head) {
		struct fab_event *e = ch->head;

		ch->head = e->next;
		free(e);
	}
	close(ch->efd);
	pthread_mutex_destroy(&ch->lock);
	free(ch);
}

int rblk_cm_channel_fd(const struct rblk_cm_channel *ch)
{
	return ch->efd;
}

int rblk_cm_channel_set_nonblocking(struct rblk_cm_channel *ch, bool nonblocking)
{
	ch->nonblocking = nonblocking;
	return 0;
}

static void queue_event(struct rblk_cm_id *id, enum rblk_cm_event_type type, int status,
			const struct rblk_conn_param *param, size_t priv_pad,
			struct rblk_cm_id *listen_id)
{
	struct fab_event *e = calloc(1, sizeof(*e));
	struct rblk_cm_channel *ch = id->ch;
	uint64_t one = 1;

	if (!e) {
		fab_fail("CM event: out of memory");
		return;
	}
	e->ev.type = type;
	e->ev.status = status;
	e->ev.id = id;
	e->ev.listen_id = listen_id;
	if (param) {
		e->ev.param = *param;
		if (param->private_data_len)
			memcpy(e->priv, param->private_data, param->private_data_len);
		if (priv_pad > e->ev.param.private_data_len)
			e->ev.param.private_data_len = (uint8_t)priv_pad;
		e->ev.param.private_data = e->priv;
	}
	atomic_fetch_add(&id->unacked, 1);
	pthread_mutex_lock(&ch->lock);
	*ch->tail = e;
	ch->tail = &e->next;
	if (write(ch->efd, &one, sizeof(one)) < 0)
		fab_fail("CM channel write: %s", strerror(errno));
	pthread_mutex_unlock(&ch->lock);
}

int rblk_cm_get_event(struct rblk_cm_channel *ch, struct rblk_cm_event *ev)
{
	struct pollfd pfd = { .fd = ch->efd, .events = POLLIN };

	memset(ev, 0, sizeof(*ev));
	for (;;) {
		struct fab_event *e;
		uint64_t v;

		pthread_mutex_lock(&ch->lock);
		e = ch->head;
		if (e) {
			ch->head = e->next;
			if (!ch->head) {
				ch->tail = &ch->head;
				/* Readable exactly while events wait. */
				if (read(ch->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
					fab_fail("CM channel read: %s", strerror(errno));
			}
		}
		pthread_mutex_unlock(&ch->lock);
		if (e) {
			*ev = e->ev;
			ev->raw = e;
			return 0;
		}
		if (ch->nonblocking)
			return -EAGAIN;
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			return -errno;
	}
}

int rblk_cm_wait_event(struct rblk_cm_channel *ch, int timeout_ms, struct rblk_cm_event *ev)
{
	struct pollfd pfd = { .fd = ch->efd, .events = POLLIN };
	bool nb = ch->nonblocking;
	int ret;

	ch->nonblocking = true;
	ret = rblk_cm_get_event(ch, ev);
	if (ret == -EAGAIN) {
		int n = poll(&pfd, 1, timeout_ms);

		ret = n < 0 ? -errno : n == 0 ? -ETIMEDOUT : rblk_cm_get_event(ch, ev);
		if (ret == -EAGAIN)
			ret = -ETIMEDOUT;
	}
	ch->nonblocking = nb;
	return ret;
}

void rblk_cm_ack_event(struct rblk_cm_event *ev)
{
	struct fab_event *e = ev->raw;

	if (!e)
		return;
	atomic_fetch_sub(&e->ev.id->unacked, 1);
	free(e);
	ev->raw = NULL;
}

const char *rblk_cm_event_str(enum rblk_cm_event_type type)
{
	static const char *const names[] = {
		"RDMA_CM_EVENT_ADDR_RESOLVED",	  "RDMA_CM_EVENT_ADDR_ERROR",
		"RDMA_CM_EVENT_ROUTE_RESOLVED",	  "RDMA_CM_EVENT_ROUTE_ERROR",
		"RDMA_CM_EVENT_CONNECT_REQUEST",  "RDMA_CM_EVENT_CONNECT_RESPONSE",
		"RDMA_CM_EVENT_CONNECT_ERROR",	  "RDMA_CM_EVENT_UNREACHABLE",
		"RDMA_CM_EVENT_REJECTED",	  "RDMA_CM_EVENT_ESTABLISHED",
		"RDMA_CM_EVENT_DISCONNECTED",	  "RDMA_CM_EVENT_DEVICE_REMOVAL",
		"RDMA_CM_EVENT_MULTICAST_JOIN",	  "RDMA_CM_EVENT_MULTICAST_ERROR",
		"RDMA_CM_EVENT_ADDR_CHANGE",	  "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};

	return (unsigned)type < sizeof(names) / sizeof(names[0]) ? names[type] : "UNKNOWN";
}

/* ------------------------------------------------------------------------ */
/* Ids.                                                                      */

int rblk_cm_id_create(struct rblk_cm_channel *ch, void *context, struct rblk_cm_id **out)
{
	struct rblk_cm_id *id = calloc(1, sizeof(*id));

	*out = NULL;
	if (!id)
		return -ENOMEM;
	id->ch = ch;
	id->context = context;
	*out = id;
	return 0;
}

void rblk_cm_id_destroy(struct rblk_cm_id *id)
{
	struct timespec d = { 0, 100 * 1000 };
	unsigned waited = 0;

	if (!id)
		return;
	/* rdma_destroy_id() blocks until the id's events are acked. */
	while (atomic_load(&id->unacked)) {
		if (++waited == 100000) {
			fab_fail("cm id destroyed with %d events never acked", atomic_load(&id->unacked));
			break;
		}
		nanosleep(&d, NULL);
	}
	pthread_mutex_lock(&fab_cm_lock);
	if (id->remote)
		id->remote->remote = NULL;
	for (struct rblk_cm_id **p = &listeners; *p; p = &(*p)->next_listener) {
		if (*p == id) {
			*p = id->next_listener;
			break;
		}
	}
	pthread_mutex_unlock(&fab_cm_lock);
	free(id);
}

void *rblk_cm_id_context(const struct rblk_cm_id *id)
{
	return id->context;
}

void rblk_cm_id_set_context(struct rblk_cm_id *id, void *context)
{
	id->context = context;
}

void rblk_cm_forget_removed_devices(void)
{
	/* The in-process fabric's one device never goes away. */
}

struct rblk_device *rblk_cm_id_device(const struct rblk_cm_id *id)
{
	return id->dev;
}

unsigned rblk_cm_id_port_num(const struct rblk_cm_id *id)
{
	return id->dev ? 1 : 0;
}

const struct sockaddr *rblk_cm_id_local_addr(const struct rblk_cm_id *id)
{
	return (const struct sockaddr *)&id->local;
}

const struct sockaddr *rblk_cm_id_peer_addr(const struct rblk_cm_id *id)
{
	return (const struct sockaddr *)&id->peer;
}

int fab_cm_attach_qp(struct rblk_cm_id *id, struct rblk_qp *qp)
{
	int ret = 0;

	pthread_mutex_lock(&fab_cm_lock);
	if (id->qp)
		ret = -EBUSY;
	else
		id->qp = qp;
	pthread_mutex_unlock(&fab_cm_lock);
	return ret;
}

void fab_cm_detach_qp(struct rblk_qp *qp)
{
	pthread_mutex_lock(&fab_cm_lock);
	if (qp->peer)
		qp->peer->peer = NULL;
	qp->peer = NULL;
	if (qp->id->qp == qp)
		qp->id->qp = NULL;
	pthread_mutex_unlock(&fab_cm_lock);
}

/* ------------------------------------------------------------------------ */
/* Addresses.                                                                */

static bool same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return !memcmp(&((const struct sockaddr_in *)a)->sin_addr,
			       &((const struct sockaddr_in *)b)->sin_addr, 4);
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr, 16);
}

/* A listener serves dst: same port, and its address or a wildcard. */
static bool serves(const struct rblk_cm_id *l, const struct sockaddr *dst)
{
	const struct sockaddr *la = (const struct sockaddr *)&l->local;

	if (rblk_addr_port(la) != rblk_addr_port(dst) || la->sa_family != dst->sa_family)
		return false;
	return rblk_addr_is_any(la) || same_addr(la, dst);
}

int rblk_cm_bind(struct rblk_cm_id *id, const struct sockaddr *addr)
{
	socklen_t len = rblk_addr_len(addr);

	if (!len)
		return -EAFNOSUPPORT;
	memset(&id->local, 0, sizeof(id->local));
	memcpy(&id->local, addr, len);
	id->dev = rblk_addr_is_any(addr) ? NULL : &fab_device;
	return 0;
}

int rblk_cm_listen(struct rblk_cm_id *id, const struct sockaddr *addr, int backlog)
{
	int ret;

	(void)backlog;
	ret = rblk_cm_bind(id, addr);
	if (ret)
		return ret;
	pthread_mutex_lock(&fab_cm_lock);
	for (struct rblk_cm_id *l = listeners; l; l = l->next_listener) {
		if (serves(l, addr) || serves(id, (const struct sockaddr *)&l->local)) {
			pthread_mutex_unlock(&fab_cm_lock);
			return -EADDRINUSE;
		}
	}
	id->state = ID_LISTEN;
	id->next_listener = listeners;
	listeners = id;
	pthread_mutex_unlock(&fab_cm_lock);
	return 0;
}

int rblk_cm_resolve_addr(struct rblk_cm_id *id, const struct sockaddr *src,
			 const struct sockaddr *dst, int timeout_ms)
{
	socklen_t len = rblk_addr_len(dst);

	(void)timeout_ms;
	if (!len || (src && !rblk_addr_len(src)))
		return -EAFNOSUPPORT;
	memset(&id->peer, 0, sizeof(id->peer));
	memcpy(&id->peer, dst, len);
	if (src) {
		memcpy(&id->local, src, rblk_addr_len(src));
	} else {
		/* The host's side: a documentation address (RFC 5737), a port of its own. */
		rblk_addr_parse(dst->sa_family == AF_INET6 ? "2001:db8::2" : "192.0.2.2", 0,
				&id->local);
	}
	pthread_mutex_lock(&fab_cm_lock);
	if (!rblk_addr_port((const struct sockaddr *)&id->local))
		rblk_addr_set_port((struct sockaddr *)&id->local, next_port++);
	pthread_mutex_unlock(&fab_cm_lock);
	id->dev = &fab_device;
	id->state = ID_RESOLVED;
	queue_event(id, RBLK_CM_EVENT_ADDR_RESOLVED, 0, NULL, 0, NULL);
	return 0;
}

int rblk_cm_resolve_route(struct rblk_cm_id *id, int timeout_ms)
{
	(void)timeout_ms;
	if (id->state != ID_RESOLVED)
		return -EINVAL;
	queue_event(id, RBLK_CM_EVENT_ROUTE_RESOLVED, 0, NULL, 0, NULL);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Connecting.                                                               */

/* The IB CM crosses the read depths over: what one side offers, the other may use. */
static struct rblk_conn_param crossed(const struct rblk_conn_param *p)
{
	struct rblk_conn_param c = *p;

	c.initiator_depth = p->responder_resources;
	c.responder_resources = p->initiator_depth;
	return c;
}

int rblk_cm_connect(struct rblk_cm_id *id, const struct rblk_conn_param *param)
{
	struct rblk_conn_param none = { 0 }, p = param ? *param : none;
	struct rblk_cm_id *l, *nid;

	if (!id->qp || id->state != ID_RESOLVED)
		return -EINVAL;
	if (p.private_data_len > PRIV_REQ)
		return -EINVAL;
	nid = calloc(1, sizeof(*nid));
	if (!nid)
		return -ENOMEM;
	pthread_mutex_lock(&fab_cm_lock);
	for (l = listeners; l; l = l->next_listener)
		if (serves(l, (const struct sockaddr *)&id->peer))
			break;
	if (!l) {
		pthread_mutex_unlock(&fab_cm_lock);
		free(nid);
		/* IB CM reason 8: no listener on that port. */
		queue_event(id, RBLK_CM_EVENT_REJECTED, 8, NULL, 0, NULL);
		return 0;
	}
	nid->ch = l->ch;
	nid->context = l->context;
	nid->local = id->peer;
	nid->peer = id->local;
	nid->dev = &fab_device;
	nid->state = ID_REQUEST;
	nid->remote = id;
	id->remote = nid;
	id->state = ID_CONNECTING;
	p = crossed(&p);
	queue_event(nid, RBLK_CM_EVENT_CONNECT_REQUEST, 0, &p, PRIV_REQ, l);
	pthread_mutex_unlock(&fab_cm_lock);
	return 0;
}

int rblk_cm_accept(struct rblk_cm_id *id, const struct rblk_conn_param *param)
{
	struct rblk_conn_param none = { 0 }, p = param ? *param : none;
	struct rblk_cm_id *r;

	if (!id->qp || id->state != ID_REQUEST)
		return -EINVAL;
	pthread_mutex_lock(&fab_cm_lock);
	r = id->remote;
	if (!r || !r->qp || r->state != ID_CONNECTING) {
		pthread_mutex_unlock(&fab_cm_lock);
		return -ECONNRESET;
	}
	id->qp->peer = r->qp;
	r->qp->peer = id->qp;
	id->state = ID_CONNECTED;
	r->state = ID_CONNECTED;
	queue_event(id, RBLK_CM_EVENT_ESTABLISHED, 0, NULL, 0, NULL);
	p = crossed(&p);
	queue_event(r, RBLK_CM_EVENT_ESTABLISHED, 0, &p, 0, NULL);
	pthread_mutex_unlock(&fab_cm_lock);
	return 0;
}

int rblk_cm_reject(struct rblk_cm_id *id, const void *private_data, uint8_t len)
{
	struct rblk_conn_param p = { .private_data = private_data, .private_data_len = len };

	pthread_mutex_lock(&fab_cm_lock);
	if (id->remote) {
		/* IB CM reason 28: rejected by the consumer. */
		queue_event(id->remote, RBLK_CM_EVENT_REJECTED, 28, &p, 0, NULL);
		id->remote->state = ID_DISCONNECTED;
		id->remote->remote = NULL;
		id->remote = NULL;
	}
	id->state = ID_DISCONNECTED;
	pthread_mutex_unlock(&fab_cm_lock);
	return 0;
}

int rblk_cm_disconnect(struct rblk_cm_id *id)
{
	struct rblk_cm_id *r;

	pthread_mutex_lock(&fab_cm_lock);
	if (id->state != ID_CONNECTED) {
		pthread_mutex_unlock(&fab_cm_lock);
		return -EINVAL;
	}
	id->state = ID_DISCONNECTED;
	/* Our QP to the error state: what is posted on it flushes. */
	if (id->qp)
		fab_qp_set_error(id->qp);
	queue_event(id, RBLK_CM_EVENT_DISCONNECTED, 0, NULL, 0, NULL);
	r = id->remote;
	if (r && r->state == ID_CONNECTED) {
		r->state = ID_DISCONNECTED;
		queue_event(r, RBLK_CM_EVENT_DISCONNECTED, 0, NULL, 0, NULL);
	}
	pthread_mutex_unlock(&fab_cm_lock);
	return 0;
}

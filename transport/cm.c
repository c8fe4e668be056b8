/* SPDX-License-Identifier: MIT */
/*
 * rdma_cm wrappers: event channels, ids, bind/listen, address and route
 * resolution, connect/accept/reject/disconnect, events. rblk_cm_channel and
 * rblk_cm_id are librdmacm's own objects under an rblk name, so nothing is
 * allocated here and an id's context is rdma_cm_id.context.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "transport/err.h"
#include "transport/rdma.h"

#define CH(c) ((struct rdma_event_channel *)(c))
#define ID(i) ((struct rdma_cm_id *)(i))

_Static_assert(RBLK_CM_EVENT_ADDR_RESOLVED == (int)RDMA_CM_EVENT_ADDR_RESOLVED, "cm event");
_Static_assert(RBLK_CM_EVENT_CONNECT_REQUEST == (int)RDMA_CM_EVENT_CONNECT_REQUEST, "cm event");
_Static_assert(RBLK_CM_EVENT_REJECTED == (int)RDMA_CM_EVENT_REJECTED, "cm event");
_Static_assert(RBLK_CM_EVENT_ESTABLISHED == (int)RDMA_CM_EVENT_ESTABLISHED, "cm event");
_Static_assert(RBLK_CM_EVENT_DISCONNECTED == (int)RDMA_CM_EVENT_DISCONNECTED, "cm event");
_Static_assert(RBLK_CM_EVENT_DEVICE_REMOVAL == (int)RDMA_CM_EVENT_DEVICE_REMOVAL, "cm event");
_Static_assert(RBLK_CM_EVENT_TIMEWAIT_EXIT == (int)RDMA_CM_EVENT_TIMEWAIT_EXIT, "cm event");

int rblk_cm_channel_create(bool nonblocking, struct rblk_cm_channel **out)
{
	struct rdma_event_channel *ch;
	int ret;

	*out = NULL;
	ch = rdma_create_event_channel();
	if (!ch)
		return err_errno();
	if (nonblocking) {
		ret = rblk_cm_channel_set_nonblocking((struct rblk_cm_channel *)ch, true);
		if (ret) {
			rdma_destroy_event_channel(ch);
			return ret;
		}
	}
	*out = (struct rblk_cm_channel *)ch;
	return 0;
}

void rblk_cm_channel_destroy(struct rblk_cm_channel *ch)
{
	if (ch)
		rdma_destroy_event_channel(CH(ch));
}

int rblk_cm_channel_fd(const struct rblk_cm_channel *ch)
{
	return ((const struct rdma_event_channel *)ch)->fd;
}

static int set_nonblocking(int fd, bool nonblocking)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0)
		return -errno;
	flags = nonblocking ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
	if (fcntl(fd, F_SETFL, flags) < 0)
		return -errno;
	return 0;
}

int rblk_cm_channel_set_nonblocking(struct rblk_cm_channel *ch, bool nonblocking)
{
	return set_nonblocking(CH(ch)->fd, nonblocking);
}

int rblk_cm_id_create(struct rblk_cm_channel *ch, void *context, struct rblk_cm_id **out)
{
	struct rdma_cm_id *id;

	*out = NULL;
	if (rdma_create_id(CH(ch), &id, context, RDMA_PS_TCP))
		return err_errno();
	*out = (struct rblk_cm_id *)id;
	return 0;
}

void rblk_cm_id_destroy(struct rblk_cm_id *id)
{
	if (id && rdma_destroy_id(ID(id)))
		RBLK_WARN("rdma_destroy_id: %s", strerror(-err_errno()));
}

void *rblk_cm_id_context(const struct rblk_cm_id *id)
{
	return ((const struct rdma_cm_id *)id)->context;
}

void rblk_cm_id_set_context(struct rblk_cm_id *id, void *context)
{
	ID(id)->context = context;
}

struct rblk_device *rblk_cm_id_device(const struct rblk_cm_id *id)
{
	return (struct rblk_device *)((const struct rdma_cm_id *)id)->verbs;
}

void rblk_cm_forget_removed_devices(void)
{
	/* The one public call that refreshes librdmacm's device list. */
	struct ibv_context **list = rdma_get_devices(NULL);

	if (list)
		rdma_free_devices(list);
}

unsigned rblk_cm_id_port_num(const struct rblk_cm_id *id)
{
	return ((const struct rdma_cm_id *)id)->port_num;
}

const struct sockaddr *rblk_cm_id_local_addr(const struct rblk_cm_id *id)
{
	return &((const struct rdma_cm_id *)id)->route.addr.src_addr;
}

const struct sockaddr *rblk_cm_id_peer_addr(const struct rblk_cm_id *id)
{
	return &((const struct rdma_cm_id *)id)->route.addr.dst_addr;
}

int rblk_cm_bind(struct rblk_cm_id *id, const struct sockaddr *addr)
{
	if (!rblk_addr_len(addr))
		return -EAFNOSUPPORT;
	/* rdma_bind_addr() does not modify the address; its prototype predates const. */
	if (rdma_bind_addr(ID(id), (struct sockaddr *)addr))
		return err_errno();
	return 0;
}

int rblk_cm_listen(struct rblk_cm_id *id, const struct sockaddr *addr, int backlog)
{
	int one = 1, ret;

	if (rdma_set_option(ID(id), RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one)))
		RBLK_DEBUG("rdma_set_option(REUSEADDR): %s", strerror(-err_errno()));
	/* As nvmet-rdma does: an IPv6 listener does not also take IPv4. */
	if (addr->sa_family == AF_INET6 &&
	    rdma_set_option(ID(id), RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &one, sizeof(one)))
		RBLK_DEBUG("rdma_set_option(AFONLY): %s", strerror(-err_errno()));
	ret = rblk_cm_bind(id, addr);
	if (ret)
		return ret;
	if (rdma_listen(ID(id), backlog))
		return err_errno();
	return 0;
}

int rblk_cm_resolve_addr(struct rblk_cm_id *id, const struct sockaddr *src,
			 const struct sockaddr *dst, int timeout_ms)
{
	if (!rblk_addr_len(dst) || (src && !rblk_addr_len(src)))
		return -EAFNOSUPPORT;
	if (rdma_resolve_addr(ID(id), (struct sockaddr *)src, (struct sockaddr *)dst, timeout_ms))
		return err_errno();
	return 0;
}

int rblk_cm_resolve_route(struct rblk_cm_id *id, int timeout_ms)
{
	if (rdma_resolve_route(ID(id), timeout_ms))
		return err_errno();
	return 0;
}

static void to_rdma_param(const struct rblk_conn_param *p, struct rdma_conn_param *r)
{
	memset(r, 0, sizeof(*r));
	if (!p)
		return;
	r->private_data = p->private_data;
	r->private_data_len = p->private_data_len;
	r->responder_resources = p->responder_resources;
	r->initiator_depth = p->initiator_depth;
	r->flow_control = p->flow_control;
	r->retry_count = p->retry_count;
	r->rnr_retry_count = p->rnr_retry_count;
}

int rblk_cm_connect(struct rblk_cm_id *id, const struct rblk_conn_param *param)
{
	struct rdma_conn_param r;

	to_rdma_param(param, &r);
	if (rdma_connect(ID(id), &r))
		return err_errno();
	return 0;
}

int rblk_cm_accept(struct rblk_cm_id *id, const struct rblk_conn_param *param)
{
	struct rdma_conn_param r;

	to_rdma_param(param, &r);
	if (rdma_accept(ID(id), &r))
		return err_errno();
	return 0;
}

int rblk_cm_reject(struct rblk_cm_id *id, const void *private_data, uint8_t len)
{
	if (rdma_reject(ID(id), private_data, len))
		return err_errno();
	return 0;
}

int rblk_cm_disconnect(struct rblk_cm_id *id)
{
	if (rdma_disconnect(ID(id)))
		return err_errno();
	return 0;
}

const char *rblk_cm_event_str(enum rblk_cm_event_type type)
{
	return rdma_event_str((enum rdma_cm_event_type)type);
}

int rblk_cm_get_event(struct rblk_cm_channel *ch, struct rblk_cm_event *ev)
{
	struct rdma_cm_event *raw;

	memset(ev, 0, sizeof(*ev));
	if (rdma_get_cm_event(CH(ch), &raw))
		return err_errno();
	ev->type = (enum rblk_cm_event_type)raw->event;
	ev->status = raw->status;
	ev->id = (struct rblk_cm_id *)raw->id;
	ev->listen_id = (struct rblk_cm_id *)raw->listen_id;
	ev->param.private_data = raw->param.conn.private_data;
	ev->param.private_data_len = raw->param.conn.private_data_len;
	ev->param.responder_resources = raw->param.conn.responder_resources;
	ev->param.initiator_depth = raw->param.conn.initiator_depth;
	ev->param.flow_control = raw->param.conn.flow_control;
	ev->param.retry_count = raw->param.conn.retry_count;
	ev->param.rnr_retry_count = raw->param.conn.rnr_retry_count;
	ev->raw = raw;
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int rblk_cm_wait_event(struct rblk_cm_channel *ch, int timeout_ms, struct rblk_cm_event *ev)
{
	int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	struct pollfd pfd = { .fd = CH(ch)->fd, .events = POLLIN };

	for (;;) {
		int left = -1, n, ret;

		if (deadline >= 0) {
			int64_t d = deadline - now_ms();

			left = d < 0 ? 0 : (int)d;
		}
		n = poll(&pfd, 1, left);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0) {
			ret = rblk_cm_get_event(ch, ev);
			if (ret != -EAGAIN)
				return ret;
		}
		if (deadline >= 0 && now_ms() >= deadline)
			return -ETIMEDOUT;
	}
}

void rblk_cm_ack_event(struct rblk_cm_event *ev)
{
	if (!ev->raw)
		return;
	if (rdma_ack_cm_event(ev->raw))
		RBLK_WARN("rdma_ack_cm_event: %s", strerror(-err_errno()));
	ev->raw = NULL;
}

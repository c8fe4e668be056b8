/* SPDX-License-Identifier: MIT */
/*
 * NBD server-side connection engine (see cli/nbd/conn.h). Reads and writes are
 * resumable at any byte: the request header, a WRITE's payload and each
 * reply (header + READ data) keep their progress, so short reads and short
 * writes on the non-blocking socket are the normal case, not an error.
 *
 * Slot life: FREE -> (payload being read: RX) -> BACKEND -> TX (reply queued
 * or being written) -> FREE. An invalid WRITE still has its payload read
 * (into a scratch buffer) so the next request header is found where it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "cli/nbd/conn.h"

#define DEFAULT_SLOTS 64
#define DEFAULT_SLOT_BUF (1u << 20)

enum slot_state {
	SLOT_FREE,
	SLOT_RX,	/* reading the WRITE payload */
	SLOT_BACKEND,	/* with the backend */
	SLOT_TX,	/* reply queued or partly written */
};

struct slot {
	struct rblk_nbd_req req;
	enum slot_state st;
	uint32_t error;
	void *fixed;		/* the slot's own buffer (slot_buf bytes) */
	bool heap;		/* req.buf is a malloc()ed buffer for a long request */
	bool discard;		/* payload goes to the scratch buffer (invalid WRITE) */
	struct slot *next;	/* TX queue */
};

struct rblk_nbd_conn {
	int fd;
	struct rblk_nbd_export exp;
	const struct rblk_nbd_backend *ops;
	void *ctx;
	uint32_t slot_buf;
	unsigned nr;
	struct slot *slots;
	unsigned *free, nfree;
	unsigned inflight;

	uint8_t hdr[RBLK_NBD_REQ_SIZE];
	unsigned hdr_got;
	struct slot *rx;	/* slot whose payload is being read */
	uint32_t rx_got;

	struct slot *tx_head, *tx_tail;
	uint8_t tx_hdr[RBLK_NBD_REPLY_SIZE];
	uint32_t tx_sent;	/* bytes of the head's reply already written */

	bool disc;		/* NBD_CMD_DISC received: read no more */
	bool eof;		/* the client closed its end */
	bool peer_gone;		/* writes fail: replies are dropped */
	bool batch;		/* submits since the last backend flush */
	struct rblk_nbd_conn_stats stats;
	uint8_t scratch[64 * 1024];
};

static void release(struct rblk_nbd_conn *c, struct slot *s)
{
	if (s->heap)
		free(s->req.buf);
	s->heap = false;
	s->discard = false;
	s->req.buf = s->fixed;
	s->st = SLOT_FREE;
	c->free[c->nfree++] = s->req.index;
}

static void queue_reply(struct rblk_nbd_conn *c, struct slot *s, uint32_t error)
{
	s->error = error;
	s->st = SLOT_TX;
	s->next = NULL;
	if (c->tx_tail)
		c->tx_tail->next = s;
	else
		c->tx_head = s;
	c->tx_tail = s;
	if (error)
		c->stats.errors++;
	else if (s->req.r.type == RBLK_NBD_CMD_READ)
		c->stats.bytes_read += s->req.r.length;
	else if (s->req.r.type == RBLK_NBD_CMD_WRITE)
		c->stats.bytes_written += s->req.r.length;
}

/* Points req.buf at enough memory for the request's data; false when none can be had. */
static bool get_buffer(struct rblk_nbd_conn *c, struct slot *s)
{
	if (s->req.r.length <= c->slot_buf)
		return true;
	s->req.buf = malloc(s->req.r.length);
	if (!s->req.buf) {
		s->req.buf = s->fixed;
		return false;
	}
	s->heap = true;
	return true;
}

static void dispatch(struct rblk_nbd_conn *c, struct slot *s)
{
	const struct rblk_nbd_request *r = &s->req.r;
	uint32_t err;

	if (s->error) {
		queue_reply(c, s, s->error);
		return;
	}
	/* a cache hint and zero-length data commands need no backend */
	if (r->type == RBLK_NBD_CMD_CACHE || (r->type != RBLK_NBD_CMD_FLUSH && !r->length)) {
		queue_reply(c, s, RBLK_NBD_OK);
		return;
	}
	if (r->type == RBLK_NBD_CMD_READ && !get_buffer(c, s)) {
		queue_reply(c, s, RBLK_NBD_ENOMEM);
		return;
	}
	s->st = SLOT_BACKEND;
	c->inflight++;
	c->batch = true;
	err = c->ops->submit(c->ctx, &s->req);
	if (err && s->st == SLOT_BACKEND) {
		c->inflight--;
		queue_reply(c, s, err);
	}
}

void rblk_nbd_conn_complete(struct rblk_nbd_conn *c, struct rblk_nbd_req *req, uint32_t error)
{
	struct slot *s = &c->slots[req->index];

	if (s->st != SLOT_BACKEND)
		return;	/* a backend bug; never answer twice */
	c->inflight--;
	queue_reply(c, s, error);
}

/* A whole header arrived: take a slot and start the request. */
static int start_request(struct rblk_nbd_conn *c)
{
	struct rblk_nbd_request r;
	struct slot *s;

	c->hdr_got = 0;
	if (rblk_nbd_req_decode(c->hdr, &r))
		return -EPROTO;
	if (r.type < sizeof(c->stats.requests) / sizeof(c->stats.requests[0]))
		c->stats.requests[r.type]++;
	if (r.type == RBLK_NBD_CMD_DISC) {
		c->disc = true;
		return 0;
	}
	s = &c->slots[c->free[--c->nfree]];
	s->req.r = r;
	s->req.buf = s->fixed;
	s->error = rblk_nbd_req_check(&c->exp, &r);
	if (rblk_nbd_req_has_payload(&r) && r.length) {
		if (s->error || !get_buffer(c, s)) {
			if (!s->error)
				s->error = RBLK_NBD_ENOMEM;
			s->discard = true;
		}
		s->st = SLOT_RX;
		c->rx = s;
		c->rx_got = 0;
		return 0;
	}
	dispatch(c, s);
	return 0;
}

/* One recv(); 1 = progress, 0 = would block or nothing to do, -errno on error. */
static int do_rx(struct rblk_nbd_conn *c)
{
	uint8_t *dst;
	size_t want;
	ssize_t n;

	if (c->rx) {
		want = c->rx->req.r.length - c->rx_got;
		if (c->rx->discard) {
			dst = c->scratch;
			if (want > sizeof(c->scratch))
				want = sizeof(c->scratch);
		} else {
			dst = (uint8_t *)c->rx->req.buf + c->rx_got;
		}
	} else {
		if (!c->nfree)
			return 0;	/* backpressure: every slot is busy */
		dst = c->hdr + c->hdr_got;
		want = sizeof(c->hdr) - c->hdr_got;
	}
	n = recv(c->fd, dst, want, MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
	if (n == 0) {
		/* hung up; a half-received request can never be answered */
		c->eof = true;
		if (c->rx) {
			release(c, c->rx);
			c->rx = NULL;
		}
		c->hdr_got = 0;
		return 1;
	}
	if (c->rx) {
		c->rx_got += (uint32_t)n;
		if (c->rx_got == c->rx->req.r.length) {
			struct slot *s = c->rx;

			c->rx = NULL;
			dispatch(c, s);
		}
		return 1;
	}
	c->hdr_got += (unsigned)n;
	if (c->hdr_got < sizeof(c->hdr))
		return 1;
	return start_request(c) ? -EPROTO : 1;
}

/* Writes queued replies; 1 = progress, 0 = would block or nothing queued, -errno. */
static int do_tx(struct rblk_nbd_conn *c)
{
	int progress = 0;

	while (c->tx_head) {
		struct slot *s = c->tx_head;
		uint32_t data = s->req.r.type == RBLK_NBD_CMD_READ && !s->error ? s->req.r.length : 0;
		uint32_t total = RBLK_NBD_REPLY_SIZE + data;
		struct iovec iov[2];
		struct msghdr m = { .msg_iov = iov };
		ssize_t n;

		if (!c->peer_gone) {
			if (!c->tx_sent)
				rblk_nbd_reply_encode(c->tx_hdr, s->error, s->req.r.cookie);
			if (c->tx_sent < RBLK_NBD_REPLY_SIZE) {
				iov[0].iov_base = c->tx_hdr + c->tx_sent;
				iov[0].iov_len = RBLK_NBD_REPLY_SIZE - c->tx_sent;
				iov[1].iov_base = s->req.buf;
				iov[1].iov_len = data;
				m.msg_iovlen = data ? 2 : 1;
			} else {
				iov[0].iov_base = (uint8_t *)s->req.buf + (c->tx_sent - RBLK_NBD_REPLY_SIZE);
				iov[0].iov_len = total - c->tx_sent;
				m.msg_iovlen = 1;
			}
			n = sendmsg(c->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
			if (n < 0) {
				if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
					return progress;
				if (errno != EPIPE && errno != ECONNRESET)
					return -errno;
				/* nobody reads any more: drop what is left */
				c->peer_gone = true;
				continue;
			}
			c->tx_sent += (uint32_t)n;
			progress = 1;
			if (c->tx_sent < total)
				continue;
		}
		c->tx_sent = 0;
		c->tx_head = s->next;
		if (!c->tx_head)
			c->tx_tail = NULL;
		release(c, s);
		progress = 1;
	}
	return progress;
}

int rblk_nbd_conn_process(struct rblk_nbd_conn *c)
{
	for (;;) {
		int tx = do_tx(c), rx = 0;

		if (tx < 0)
			return tx;
		if (!c->disc && !c->eof) {
			rx = do_rx(c);
			if (rx < 0)
				return rx;
		}
		if (c->batch && (!rx || !c->nfree)) {
			/* one doorbell for everything read in this pass */
			c->batch = false;
			if (c->ops->flush)
				c->ops->flush(c->ctx);
		}
		if (!tx && !rx)
			break;
	}
	if ((c->disc || c->eof) && !c->inflight && !c->tx_head && !c->rx)
		return RBLK_NBD_CONN_DONE;
	return RBLK_NBD_CONN_RUN;
}

short rblk_nbd_conn_events(const struct rblk_nbd_conn *c)
{
	short ev = 0;

	if (!c->disc && !c->eof && (c->nfree || c->rx))
		ev |= POLLIN;
	if (c->tx_head && !c->peer_gone)
		ev |= POLLOUT;
	return ev;
}

unsigned rblk_nbd_conn_inflight(const struct rblk_nbd_conn *c)
{
	return c->inflight;
}

const struct rblk_nbd_conn_stats *rblk_nbd_conn_stats(const struct rblk_nbd_conn *c)
{
	return &c->stats;
}

void rblk_nbd_conn_destroy(struct rblk_nbd_conn *c)
{
	if (!c)
		return;
	for (unsigned i = 0; c->slots && i < c->nr; i++) {
		struct slot *s = &c->slots[i];

		if (s->heap)
			free(s->req.buf);
		if (!s->fixed)
			continue;
		if (c->ops->buf_free)
			c->ops->buf_free(c->ctx, s->fixed);
		else
			free(s->fixed);
	}
	free(c->slots);
	free(c->free);
	free(c);
}

int rblk_nbd_conn_create(const struct rblk_nbd_conn_opts *o, struct rblk_nbd_conn **out)
{
	struct rblk_nbd_conn *c;
	int fl;

	*out = NULL;
	if (o->fd < 0 || !o->ops || !o->ops->submit)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->fd = o->fd;
	c->exp = o->exp;
	c->ops = o->ops;
	c->ctx = o->ctx;
	c->nr = o->nr_slots ? o->nr_slots : DEFAULT_SLOTS;
	c->slot_buf = o->slot_buf ? o->slot_buf : DEFAULT_SLOT_BUF;
	c->slots = calloc(c->nr, sizeof(*c->slots));
	c->free = calloc(c->nr, sizeof(*c->free));
	if (!c->slots || !c->free)
		goto nomem;
	for (unsigned i = c->nr; i-- > 0;) {
		struct slot *s = &c->slots[i];

		s->fixed = o->ops->buf_alloc ? o->ops->buf_alloc(o->ctx, c->slot_buf) : malloc(c->slot_buf);
		if (!s->fixed)
			goto nomem;
		s->req.index = i;
		s->req.buf = s->fixed;
		c->free[c->nfree++] = i;
	}
	fl = fcntl(c->fd, F_GETFL);
	if (fl < 0 || fcntl(c->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		int ret = -errno;

		rblk_nbd_conn_destroy(c);
		return ret;
	}
	*out = c;
	return 0;
nomem:
	rblk_nbd_conn_destroy(c);
	return -ENOMEM;
}

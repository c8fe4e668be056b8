/* SPDX-License-Identifier: MIT */
/*
 * rdma_smoke: an end-to-end check of the transport seam over a real RDMA
 * device (Soft-RoCE in the VM tests). Run by tests/vm, not by CTest.
 *
 *   server: listens, registers a buffer for remote access, hands
 *           {addr, rkey, len} to the client in the CM accept private data.
 *   client: RDMA WRITEs a pattern into that buffer (one chained post),
 *           RDMA READs it back into another buffer (one chained post),
 *           verifies it, SENDs "done"; the server verifies its buffer and
 *           SENDs its verdict back.
 * Both sides read their port counters before and after and require that
 * the bytes that crossed their RDMA device (best counter available, named)
 * are at least the bytes moved. Exit 0 with a one-line summary, 1 on a
 * failed check, 2 on bad usage.
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "transport/rdma.h"

#define DEFAULT_PORT 4430
#define DEFAULT_SIZE (1u << 20)
#define CHUNK (64u << 10)	/* bytes per RDMA WRITE/READ WR */
#define MSG_SIZE 64
#define RECV_SLOTS 2

static const char smoke_magic[8] = "RBLKSMK1";

/* CM private data, client -> server (fits the 56 bytes a RoCE REQ carries). */
struct smoke_req {
	char magic[8];
	uint32_t size;		/* LE: bytes the client wants to move */
	uint32_t rsvd;
};
/* CM private data, server -> client. */
struct smoke_rep {
	char magic[8];
	uint64_t addr;		/* LE */
	uint32_t rkey;		/* LE */
	uint32_t len;		/* LE */
};
/* SEND messages: the client's "done" and the server's verdict. */
struct smoke_msg {
	char magic[8];
	uint32_t kind;		/* LE: 1 = done, 2 = verdict */
	uint32_t ok;		/* LE: 1 = bytes matched */
	uint64_t seed;		/* LE */
	uint64_t bad_offset;	/* LE: first mismatch, when !ok */
};
_Static_assert(sizeof(struct smoke_req) == 16, "smoke_req");
_Static_assert(sizeof(struct smoke_rep) == 24, "smoke_rep");
_Static_assert(sizeof(struct smoke_msg) <= MSG_SIZE, "smoke_msg");

enum { MSG_DONE = 1, MSG_VERDICT = 2 };

struct opts {
	bool server;
	const char *addr;
	const char *src;
	uint16_t port;
	uint32_t size;
	int timeout_s;
	int connect_timeout_s;
	bool check_counters;
	bool verbose;
};

/* Everything one side holds; torn down in reverse by conn_cleanup(). */
struct conn {
	struct rblk_cm_channel *ch;
	struct rblk_cm_id *listen_id;
	struct rblk_cm_id *id;
	struct rblk_pd *pd;
	struct rblk_cq *cq;
	struct rblk_qp *qp;
	struct rblk_mr_pool *data;
	struct rblk_mr_pool *msgs;
	struct rblk_cm_port_info where;
	struct rblk_device_attr attr;
	struct rblk_port_counters before;
	void *recv_buf[RECV_SLOTS];	/* posted receives; NULL once completed */
	void *data_buf[2];		/* data units taken from the pool */
	bool connected;
};

static const char *role = "rdma_smoke";
static bool verbose;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: FAIL: ", role);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void info(const struct opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void info(const struct opts *o, const char *fmt, ...)
{
	va_list ap;

	if (!o->verbose)
		return;
	printf("%s: ", role);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* xorshift64*: a pattern both sides regenerate from the seed. */
static void pattern_fill(uint8_t *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed | 1;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t v;

		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		v = x * 0x2545F4914F6CDD1DULL;
		memcpy(buf + i, &v, len - i < 8 ? len - i : 8);
	}
}

/* Offset of the first mismatch, or -1. */
static int64_t pattern_check(const uint8_t *buf, size_t len, uint64_t seed)
{
	uint8_t *want = malloc(len);
	int64_t bad = -1;

	if (!want)
		return 0;
	pattern_fill(want, len, seed);
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != want[i]) {
			bad = (int64_t)i;
			break;
		}
	}
	free(want);
	return bad;
}

static int expect_event(struct conn *c, enum rblk_cm_event_type want, int timeout_ms,
			struct rblk_cm_event *ev)
{
	int ret = rblk_cm_wait_event(c->ch, timeout_ms, ev);

	if (ret)
		return ret;
	if (ev->type != want) {
		int status = ev->status;

		/* The client retries these; say what happened only when asked. */
		if (ev->type != RBLK_CM_EVENT_REJECTED && ev->type != RBLK_CM_EVENT_UNREACHABLE &&
		    ev->type != RBLK_CM_EVENT_ADDR_ERROR && ev->type != RBLK_CM_EVENT_ROUTE_ERROR)
			fail("waiting for %s, got %s (status %d)", rblk_cm_event_str(want),
			     rblk_cm_event_str(ev->type), status);
		else if (verbose)
			printf("%s: waiting for %s, got %s (status %d)\n", role,
			       rblk_cm_event_str(want), rblk_cm_event_str(ev->type), status);
		rblk_cm_ack_event(ev);
		return ev->type == RBLK_CM_EVENT_REJECTED ? -ECONNREFUSED
		       : status < 0			  ? status
							  : -EPROTO;
	}
	return 0;
}

static void print_counter_delta(const struct opts *o, const struct rblk_port_counters *d)
{
	if (!o->verbose)
		return;
	for (unsigned i = 0; i < RBLK_PC_COUNT; i++) {
		if (rblk_pc_avail(d, i) && d->v[i])
			info(o, "  %s/%s +%" PRIu64, rblk_pc_source(i), rblk_pc_name(i), d->v[i]);
	}
}

/* Resources on the id's device: PD, CQ, QP, pools, receives posted. */
static int setup_resources(struct conn *c, const struct opts *o, bool remote_data)
{
	struct rblk_device *dev = rblk_cm_id_device(c->id);
	unsigned chunks = (o->size + CHUNK - 1) / CHUNK;
	struct rblk_qp_caps caps = {
		.max_send_wr = chunks + 4,
		.max_recv_wr = RECV_SLOTS,
		.max_send_sge = 1,
		.max_recv_sge = 1,
		.max_inline_data = MSG_SIZE,
	};
	int access = RBLK_ACCESS_LOCAL_WRITE;
	char msg[512];
	int ret;

	if (!dev) {
		fail("the connection is not bound to an RDMA device");
		return -ENODEV;
	}
	ret = rblk_device_query(dev, &c->attr);
	if (ret) {
		fail("ibv_query_device(%s): %s", rblk_device_name(dev), strerror(-ret));
		return ret;
	}
	ret = rblk_memlock_check(rblk_mr_pool_bytes_needed(o->size, remote_data ? 1 : 2) +
					 rblk_mr_pool_bytes_needed(MSG_SIZE, 2 * RECV_SLOTS),
				 msg, sizeof(msg));
	if (ret) {
		fail("%s", msg);
		return ret;
	}
	info(o, "%s", msg);
	ret = rblk_pd_alloc(dev, &c->pd);
	if (ret) {
		fail("ibv_alloc_pd: %s", strerror(-ret));
		return ret;
	}
	ret = rblk_cq_create(dev, (int)(caps.max_send_wr + caps.max_recv_wr), 0, true, &c->cq);
	if (ret) {
		fail("ibv_create_cq: %s", strerror(-ret));
		return ret;
	}
	ret = rblk_qp_create(c->id, c->pd, c->cq, c->cq, &caps, c, &c->qp);
	if (ret) {
		fail("rdma_create_qp: %s", strerror(-ret));
		return ret;
	}
	if (remote_data)
		access |= RBLK_ACCESS_REMOTE_READ | RBLK_ACCESS_REMOTE_WRITE;
	/* Server: one unit the client writes and reads. Client: source and sink. */
	ret = rblk_mr_pool_create(c->pd, o->size, remote_data ? 1 : 2, access, &c->data);
	if (ret) {
		fail("registering %u-byte data buffers: %s", o->size, strerror(-ret));
		return ret;
	}
	ret = rblk_mr_pool_create(c->pd, MSG_SIZE, 2 * RECV_SLOTS, RBLK_ACCESS_LOCAL_WRITE,
				  &c->msgs);
	if (ret) {
		fail("registering message buffers: %s", strerror(-ret));
		return ret;
	}
	info(o, "data pool: %u x %u bytes at %p (%s), lkey %#x rkey %#x", rblk_mr_pool_count(c->data),
	     o->size, rblk_mr_pool_base(c->data),
	     rblk_mr_pool_hugetlb(c->data) ? "hugetlb" : "normal pages", rblk_mr_pool_lkey(c->data),
	     rblk_mr_pool_rkey(c->data));
	for (int i = 0; i < RECV_SLOTS; i++) {
		void *buf = rblk_mr_pool_get(c->msgs);
		struct rblk_sge sge = { (uintptr_t)buf, MSG_SIZE, rblk_mr_pool_lkey(c->msgs) };

		c->recv_buf[i] = buf;
		ret = rblk_qp_queue_recv(c->qp, (uintptr_t)buf, &sge, 1);
		if (ret) {
			fail("queueing a receive: %s", strerror(-ret));
			return ret;
		}
	}
	ret = rblk_qp_flush_recv(c->qp, NULL);
	if (ret)
		fail("ibv_post_recv: %s", strerror(-ret));
	return ret;
}

static void conn_cleanup(struct conn *c)
{
	struct rblk_wc wc[8];

	if (c->qp) {
		/* Drain flushed WRs so the pools are not destroyed under the NIC's feet. */
		while (rblk_cq_poll(c->cq, wc, 8) > 0)
			;
	}
	rblk_qp_destroy(c->qp);
	for (int i = 0; i < RECV_SLOTS; i++)
		if (c->recv_buf[i])
			rblk_mr_pool_put(c->msgs, c->recv_buf[i]);
	for (int i = 0; i < 2; i++)
		if (c->data_buf[i])
			rblk_mr_pool_put(c->data, c->data_buf[i]);
	rblk_mr_pool_destroy(c->msgs);
	rblk_mr_pool_destroy(c->data);
	rblk_cq_destroy(c->cq);
	rblk_pd_dealloc(c->pd);
	rblk_cm_id_destroy(c->id);
	rblk_cm_id_destroy(c->listen_id);
	rblk_cm_channel_destroy(c->ch);
	memset(c, 0, sizeof(*c));
}

/* Waits for a completion of @want with wr_id @wr_id; anything unexpected fails. */
static int wait_wc(struct conn *c, enum rblk_wc_opcode want, struct rblk_wc *out, int timeout_ms)
{
	uint64_t deadline = now_ms() + (uint64_t)timeout_ms;

	for (;;) {
		int64_t left = (int64_t)(deadline - now_ms());
		int n = rblk_cq_poll_wait(c->cq, out, 1, left > 0 ? (int)left : 0);

		if (n < 0) {
			fail("waiting for a %s completion: %s", rblk_wc_opcode_str(want),
			     strerror(-n));
			return n;
		}
		if (out->status != RBLK_WC_SUCCESS) {
			fail("work request %#" PRIx64 " completed with %s (vendor error %#x)",
			     out->wr_id, rblk_wc_status_str(out->status), out->vendor_err);
			return -EIO;
		}
		if (out->opcode == want)
			return 0;
		fail("expected a %s completion, got %s", rblk_wc_opcode_str(want),
		     rblk_wc_opcode_str(out->opcode));
		return -EPROTO;
	}
}

static int send_msg(struct conn *c, uint32_t kind, bool ok, uint64_t seed, uint64_t bad_offset)
{
	struct smoke_msg m;
	struct rblk_sge sge;
	struct rblk_send_wr wr;
	struct rblk_wc wc;
	int ret;

	memset(&m, 0, sizeof(m));
	memcpy(m.magic, smoke_magic, sizeof(m.magic));
	m.kind = htole32(kind);
	m.ok = htole32(ok);
	m.seed = htole64(seed);
	m.bad_offset = htole64(bad_offset);
	/* Inline: the WQE carries the bytes, so a stack buffer needs no registration. */
	sge = (struct rblk_sge){ (uintptr_t)&m, sizeof(m), 0 };
	wr = (struct rblk_send_wr){
		.wr_id = kind,
		.opcode = RBLK_WR_SEND,
		.flags = RBLK_SEND_SIGNALED | RBLK_SEND_INLINE,
		.sge = &sge,
		.num_sge = 1,
	};
	ret = rblk_qp_queue_send(c->qp, &wr);
	if (!ret)
		ret = rblk_qp_flush_send(c->qp, NULL);
	if (ret) {
		fail("posting a SEND: %s", strerror(-ret));
		return ret;
	}
	return wait_wc(c, RBLK_WC_SEND, &wc, 10000);
}

static int recv_msg(struct conn *c, uint32_t kind, struct smoke_msg *out, int timeout_ms)
{
	struct rblk_wc wc;
	int ret = wait_wc(c, RBLK_WC_RECV, &wc, timeout_ms);

	if (ret)
		return ret;
	if (wc.byte_len < sizeof(*out)) {
		fail("received %u bytes, expected a %zu-byte message", wc.byte_len, sizeof(*out));
		return -EPROTO;
	}
	memcpy(out, (void *)(uintptr_t)wc.wr_id, sizeof(*out));
	for (int i = 0; i < RECV_SLOTS; i++)
		if (c->recv_buf[i] == (void *)(uintptr_t)wc.wr_id)
			c->recv_buf[i] = NULL;
	rblk_mr_pool_put(c->msgs, (void *)(uintptr_t)wc.wr_id);
	if (memcmp(out->magic, smoke_magic, sizeof(out->magic)) || le32toh(out->kind) != kind) {
		fail("received a message that is not a %s", kind == MSG_DONE ? "done" : "verdict");
		return -EPROTO;
	}
	return 0;
}

/* Port counters now vs c->before; checks crossed >= @moved. */
static int check_counters(struct conn *c, const struct opts *o, uint64_t moved, char *summary,
			  size_t len)
{
	struct rblk_port_counters after, delta;
	struct rblk_port_bytes b;
	int ret;

	ret = rblk_port_counters_read(NULL, c->where.dev, (int)c->where.port_num, &after);
	if (ret) {
		fail("reading %s port %u counters: %s", c->where.dev, c->where.port_num,
		     strerror(-ret));
		return ret;
	}
	rblk_port_counters_delta(&c->before, &after, &delta);
	print_counter_delta(o, &delta);
	ret = rblk_port_bytes(&delta, c->where.active_mtu, &b);
	snprintf(summary, len, "%s/%u +%" PRIu64 " tx +%" PRIu64 " rx bytes%s (source: %s)",
		 c->where.dev, c->where.port_num, b.tx, b.rx, b.exact ? "" : " at most", b.desc);
	if (!o->check_counters)
		return 0;
	if (ret) {
		fail("%s port %u: no counter tells how many bytes crossed the device (%s)",
		     c->where.dev, c->where.port_num, b.desc);
		return ret;
	}
	if (b.tx + b.rx < moved) {
		fail("%s port %u: counters show %" PRIu64 " bytes crossed the device, but %" PRIu64
		     " were moved (source: %s)",
		     c->where.dev, c->where.port_num, b.tx + b.rx, moved, b.desc);
		return -EIO;
	}
	return 0;
}

static int bind_report(struct conn *c, const struct opts *o, const char *what)
{
	char buf[256], a[RBLK_ADDR_STRLEN];
	int ret = rblk_cm_id_port_info(c->id ? c->id : c->listen_id, &c->where);

	if (ret) {
		fail("%s: which RDMA port? %s", what, strerror(-ret));
		return ret;
	}
	rblk_addr_str(rblk_cm_id_local_addr(c->id ? c->id : c->listen_id), a, sizeof(a));
	printf("%s: %s %s on %s\n", role, what, a, rblk_cm_port_info_str(&c->where, buf, sizeof(buf)));
	fflush(stdout);
	ret = rblk_port_counters_read(NULL, c->where.dev, (int)c->where.port_num, &c->before);
	if (ret)
		fail("reading %s port %u counters: %s", c->where.dev, c->where.port_num,
		     strerror(-ret));
	return ret;
}

static int run_server(const struct opts *o)
{
	int timeout_ms = o->timeout_s * 1000;
	struct sockaddr_storage sa;
	struct rblk_cm_event ev;
	struct conn c = { 0 };
	struct smoke_req req;
	struct smoke_rep rep;
	struct smoke_msg m;
	struct rblk_conn_param p;
	char summary[512], peer[RBLK_ADDR_STRLEN];
	uint8_t *buf;
	int64_t bad;
	int ret;

	role = "rdma_smoke server";
	ret = rblk_addr_parse(o->addr, o->port, &sa);
	if (ret) {
		fail("bad address '%s'", o->addr);
		return 2;
	}
	ret = rblk_cm_channel_create(false, &c.ch);
	if (ret) {
		fail("rdma_create_event_channel: %s (is rdma_ucm loaded?)", strerror(-ret));
		goto out;
	}
	ret = rblk_cm_id_create(c.ch, NULL, &c.listen_id);
	if (!ret)
		ret = rblk_cm_listen(c.listen_id, (struct sockaddr *)&sa, 4);
	if (ret) {
		fail("listening on %s port %u: %s", o->addr, o->port, strerror(-ret));
		goto out;
	}
	ret = bind_report(&c, o, "listening on");
	if (ret)
		goto out;

	ret = expect_event(&c, RBLK_CM_EVENT_CONNECT_REQUEST, timeout_ms, &ev);
	if (ret) {
		if (ret == -ETIMEDOUT)
			fail("no client connected within %d s", o->timeout_s);
		goto out;
	}
	c.id = ev.id;
	rblk_cm_id_set_context(c.id, &c);
	memset(&req, 0, sizeof(req));
	memcpy(&req, ev.param.private_data,
	       ev.param.private_data_len < sizeof(req) ? ev.param.private_data_len : sizeof(req));
	p = ev.param;
	rblk_cm_ack_event(&ev);
	rblk_addr_str(rblk_cm_id_peer_addr(c.id), peer, sizeof(peer));
	if (memcmp(req.magic, smoke_magic, sizeof(req.magic)) || le32toh(req.size) != o->size) {
		fail("connection from %s is not an rdma_smoke client for %u bytes", peer, o->size);
		rblk_cm_reject(c.id, NULL, 0);
		ret = -EPROTO;
		goto out;
	}
	info(o, "connect request from %s: initiator_depth %u responder_resources %u", peer,
	     p.initiator_depth, p.responder_resources);
	ret = setup_resources(&c, o, true);
	if (ret) {
		rblk_cm_reject(c.id, NULL, 0);
		goto out;
	}
	buf = c.data_buf[0] = rblk_mr_pool_get(c.data);
	memset(buf, 0, o->size);
	memcpy(rep.magic, smoke_magic, sizeof(rep.magic));
	rep.addr = htole64((uintptr_t)buf);
	rep.rkey = htole32(rblk_mr_pool_rkey(c.data));
	rep.len = htole32(o->size);
	/* The peer's RDMA READs land on us: answer as many as both sides allow. */
	p = (struct rblk_conn_param){
		.private_data = &rep,
		.private_data_len = sizeof(rep),
		.responder_resources = (uint8_t)(p.initiator_depth < c.attr.max_qp_rd_atom
							 ? p.initiator_depth
							 : c.attr.max_qp_rd_atom),
		.initiator_depth = (uint8_t)(p.responder_resources < c.attr.max_qp_init_rd_atom
						     ? p.responder_resources
						     : c.attr.max_qp_init_rd_atom),
		.rnr_retry_count = 7,
	};
	ret = rblk_cm_accept(c.id, &p);
	if (ret) {
		fail("rdma_accept: %s", strerror(-ret));
		goto out;
	}
	ret = expect_event(&c, RBLK_CM_EVENT_ESTABLISHED, timeout_ms, &ev);
	if (ret) {
		fail("connection from %s not established: %s", peer, strerror(-ret));
		goto out;
	}
	rblk_cm_ack_event(&ev);
	c.connected = true;
	info(o, "established with %s, qp %#x", peer, rblk_qp_num(c.qp));

	ret = recv_msg(&c, MSG_DONE, &m, timeout_ms);
	if (ret)
		goto out;
	bad = pattern_check(buf, o->size, le64toh(m.seed));
	ret = send_msg(&c, MSG_VERDICT, bad < 0, le64toh(m.seed), bad < 0 ? 0 : (uint64_t)bad);
	if (ret)
		goto out;
	if (bad >= 0) {
		fail("the client's RDMA WRITE did not land: first wrong byte at offset %" PRId64, bad);
		ret = -EIO;
		goto out;
	}
	if (!le32toh(m.ok)) {
		fail("the client says its RDMA READ came back wrong at offset %" PRIu64,
		     le64toh(m.bad_offset));
		ret = -EIO;
		goto out;
	}
	ret = check_counters(&c, o, 2ull * o->size, summary, sizeof(summary));
	if (ret)
		goto out;
	ret = expect_event(&c, RBLK_CM_EVENT_DISCONNECTED, timeout_ms, &ev);
	if (ret) {
		fail("waiting for the client to disconnect: %s", strerror(-ret));
		goto out;
	}
	rblk_cm_ack_event(&ev);
	printf("%s: OK: %s wrote and read %u bytes of our memory; %s\n", role, peer, o->size,
	       summary);
out:
	conn_cleanup(&c);
	return ret ? 1 : 0;
}

/* One attempt: resolve, set up, connect. -ECONNREFUSED/-ENETUNREACH etc. are retried. */
static int client_connect(struct conn *c, const struct opts *o, const struct sockaddr *dst,
			  const struct sockaddr *src, struct smoke_rep *rep)
{
	struct smoke_req req;
	struct rblk_cm_event ev;
	struct rblk_conn_param p;
	int ret;

	ret = rblk_cm_channel_create(false, &c->ch);
	if (ret) {
		fail("rdma_create_event_channel: %s (is rdma_ucm loaded?)", strerror(-ret));
		return ret;
	}
	ret = rblk_cm_id_create(c->ch, c, &c->id);
	if (ret)
		return ret;
	ret = rblk_cm_resolve_addr(c->id, src, dst, 2000);
	if (!ret)
		ret = expect_event(c, RBLK_CM_EVENT_ADDR_RESOLVED, 5000, &ev);
	if (ret)
		return ret;
	rblk_cm_ack_event(&ev);
	ret = rblk_cm_resolve_route(c->id, 2000);
	if (!ret)
		ret = expect_event(c, RBLK_CM_EVENT_ROUTE_RESOLVED, 5000, &ev);
	if (ret)
		return ret;
	rblk_cm_ack_event(&ev);
	ret = bind_report(c, o, "connecting from");
	if (ret)
		return ret;
	ret = setup_resources(c, o, false);
	if (ret)
		return ret;
	memset(&req, 0, sizeof(req));
	memcpy(req.magic, smoke_magic, sizeof(req.magic));
	req.size = htole32(o->size);
	p = (struct rblk_conn_param){
		.private_data = &req,
		.private_data_len = sizeof(req),
		.responder_resources = (uint8_t)(c->attr.max_qp_rd_atom < 16 ? c->attr.max_qp_rd_atom : 16),
		.initiator_depth =
			(uint8_t)(c->attr.max_qp_init_rd_atom < 16 ? c->attr.max_qp_init_rd_atom : 16),
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	ret = rblk_cm_connect(c->id, &p);
	if (ret) {
		fail("rdma_connect: %s", strerror(-ret));
		return ret;
	}
	ret = expect_event(c, RBLK_CM_EVENT_ESTABLISHED, 10000, &ev);
	if (ret)
		return ret;
	if (ev.param.private_data_len < sizeof(*rep) ||
	    memcmp(ev.param.private_data, smoke_magic, sizeof(smoke_magic))) {
		rblk_cm_ack_event(&ev);
		fail("the server's accept carried no buffer description");
		return -EPROTO;
	}
	memcpy(rep, ev.param.private_data, sizeof(*rep));
	rblk_cm_ack_event(&ev);
	c->connected = true;
	return 0;
}

/* Queues one WR per CHUNK over [local, local+size) <-> [raddr, raddr+size), posts once. */
static int rdma_chain(struct conn *c, enum rblk_wr_opcode op, uint8_t *local, uint64_t raddr,
		      uint32_t rkey, uint32_t size)
{
	uint32_t lkey = rblk_mr_pool_lkey(c->data);
	unsigned posted = 0;
	int ret;

	for (uint32_t off = 0; off < size; off += CHUNK) {
		uint32_t len = size - off < CHUNK ? size - off : CHUNK;
		struct rblk_sge sge = { (uintptr_t)(local + off), len, lkey };
		struct rblk_send_wr wr = {
			.wr_id = off,
			.opcode = op,
			/* RC completes in order: signalling the last WR covers the chain. */
			.flags = off + len >= size ? RBLK_SEND_SIGNALED : 0,
			.sge = &sge,
			.num_sge = 1,
			.remote_addr = raddr + off,
			.rkey = rkey,
		};

		ret = rblk_qp_queue_send(c->qp, &wr);
		if (ret) {
			fail("queueing an RDMA %s: %s", op == RBLK_WR_RDMA_READ ? "READ" : "WRITE",
			     strerror(-ret));
			return ret;
		}
	}
	ret = rblk_qp_flush_send(c->qp, &posted);
	if (ret)
		fail("ibv_post_send of %u chained WRs: %s (%u posted)",
		     (size + CHUNK - 1) / CHUNK, strerror(-ret), posted);
	return ret;
}

static int run_client(const struct opts *o)
{
	int timeout_ms = o->timeout_s * 1000;
	struct sockaddr_storage dst, src;
	struct conn c = { 0 };
	struct smoke_rep rep;
	struct smoke_msg m;
	struct rblk_cm_event ev;
	struct rblk_wc wc;
	char summary[512], dst_s[RBLK_ADDR_STRLEN];
	uint64_t deadline, seed, raddr;
	uint8_t *wbuf, *rbuf;
	uint32_t rkey;
	unsigned chunks = (o->size + CHUNK - 1) / CHUNK;
	int64_t bad;
	int ret;

	role = "rdma_smoke client";
	if (rblk_addr_parse(o->addr, o->port, &dst) || rblk_addr_is_any((struct sockaddr *)&dst)) {
		fail("bad server address '%s'", o->addr);
		return 2;
	}
	if (o->src && rblk_addr_parse(o->src, 0, &src)) {
		fail("bad source address '%s'", o->src);
		return 2;
	}
	rblk_addr_str((struct sockaddr *)&dst, dst_s, sizeof(dst_s));

	/* The server may still be starting: retry refusals until --connect-timeout. */
	deadline = now_ms() + (uint64_t)o->connect_timeout_s * 1000;
	for (;;) {
		ret = client_connect(&c, o, (struct sockaddr *)&dst,
				     o->src ? (struct sockaddr *)&src : NULL, &rep);
		if (!ret)
			break;
		conn_cleanup(&c);
		if ((ret != -ECONNREFUSED && ret != -ETIMEDOUT && ret != -ENETUNREACH &&
		     ret != -EHOSTUNREACH && ret != -EPROTO) ||
		    now_ms() >= deadline) {
			fail("cannot connect to %s: %s", dst_s, strerror(-ret));
			goto out;
		}
		info(o, "connect to %s: %s; retrying", dst_s, strerror(-ret));
		usleep(250 * 1000);
	}
	raddr = le64toh(rep.addr);
	rkey = le32toh(rep.rkey);
	if (le32toh(rep.len) < o->size) {
		fail("the server offers %u bytes, we need %u", le32toh(rep.len), o->size);
		ret = -EPROTO;
		goto out;
	}
	info(o, "established: qp %#x, remote buffer %#" PRIx64 " rkey %#x len %u", rblk_qp_num(c.qp),
	     raddr, rkey, le32toh(rep.len));

	wbuf = c.data_buf[0] = rblk_mr_pool_get(c.data);
	rbuf = c.data_buf[1] = rblk_mr_pool_get(c.data);
	seed = ((uint64_t)getpid() << 32) ^ now_ms();
	pattern_fill(wbuf, o->size, seed);
	memset(rbuf, 0, o->size);

	ret = rdma_chain(&c, RBLK_WR_RDMA_WRITE, wbuf, raddr, rkey, o->size);
	if (!ret)
		ret = wait_wc(&c, RBLK_WC_RDMA_WRITE, &wc, timeout_ms);
	if (ret)
		goto out;
	ret = rdma_chain(&c, RBLK_WR_RDMA_READ, rbuf, raddr, rkey, o->size);
	if (!ret)
		ret = wait_wc(&c, RBLK_WC_RDMA_READ, &wc, timeout_ms);
	if (ret)
		goto out;
	bad = pattern_check(rbuf, o->size, seed);
	ret = send_msg(&c, MSG_DONE, bad < 0, seed, bad < 0 ? 0 : (uint64_t)bad);
	if (ret)
		goto out;
	if (bad >= 0) {
		fail("RDMA READ brought back wrong data: first wrong byte at offset %" PRId64, bad);
		ret = -EIO;
		goto out;
	}
	ret = recv_msg(&c, MSG_VERDICT, &m, timeout_ms);
	if (ret)
		goto out;
	if (!le32toh(m.ok)) {
		fail("the server found wrong data in its buffer at offset %" PRIu64,
		     le64toh(m.bad_offset));
		ret = -EIO;
		goto out;
	}
	ret = check_counters(&c, o, 2ull * o->size, summary, sizeof(summary));
	if (ret)
		goto out;
	ret = rblk_cm_disconnect(c.id);
	if (!ret)
		ret = expect_event(&c, RBLK_CM_EVENT_DISCONNECTED, timeout_ms, &ev);
	if (ret) {
		fail("disconnect: %s", strerror(-ret));
		goto out;
	}
	rblk_cm_ack_event(&ev);
	printf("%s: OK: %u bytes RDMA WRITE (%u WRs, 1 post) + READ (%u WRs, 1 post) to %s "
	       "verified on both sides; %s\n",
	       role, o->size, chunks, chunks, dst_s, summary);
out:
	conn_cleanup(&c);
	return ret ? 1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rdma_smoke --server ADDR [options]\n"
		"       rdma_smoke --client ADDR [--src ADDR] [options]\n"
		"\n"
		"End-to-end check of rblk's RDMA transport over a real RDMA device: the client\n"
		"RDMA WRITEs a pattern into the server's registered buffer, READs it back,\n"
		"both sides verify the bytes, and both check that their RDMA port counters\n"
		"grew by at least the bytes moved. Exit 0 on success, 1 on failure, 2 on usage.\n"
		"\n"
		"  -S, --server ADDR        listen on ADDR (IPv4 or IPv6) and serve one client\n"
		"  -C, --client ADDR        connect to the server at ADDR\n"
		"  -s, --src ADDR           client: source address (selects the local RDMA device)\n"
		"  -p, --port PORT          rdma_cm port (default %u)\n"
		"  -n, --size BYTES         bytes to write and read back (default %u; K/M suffix)\n"
		"  -t, --timeout SEC        give up waiting after SEC seconds (default 60)\n"
		"  -r, --connect-timeout SEC  client: keep retrying refused connects (default 20)\n"
		"      --no-counter-check   report the counters but do not require them to grow\n"
		"  -v, --verbose            say what happens, and print every counter that moved\n"
		"  -h, --help\n"
		"\n"
		"Example (Soft-RoCE VM): rdma_smoke --server 10.99.0.1 &\n"
		"                        rdma_smoke --client 10.99.0.1 --src 10.99.0.2\n"
		"\n"
		"When both addresses are on this host, the kernel routes between them through\n"
		"lo: without --src both ends land on the server's device (rxe loops the packets\n"
		"back inside the kernel, no netdev sees them); with --src, address resolution\n"
		"times out unless output policy routing sends the traffic over the wire, e.g.\n"
		"  ip rule add pref 100 lookup local; ip rule del pref 0 lookup local\n"
		"  ip rule add pref 10 iif lo from 10.99.0.2 to 10.99.0.1 lookup 101\n"
		"  ip rule add pref 11 iif lo from 10.99.0.1 to 10.99.0.2 lookup 102\n"
		"  ip route add 10.99.0.1 dev veth1 src 10.99.0.2 table 101\n"
		"  ip route add 10.99.0.2 dev veth0 src 10.99.0.1 table 102\n"
		"  sysctl net.ipv4.conf.{all,veth0,veth1}.{rp_filter=0,accept_local=1}\n",
		DEFAULT_PORT, DEFAULT_SIZE);
}

static int parse_size(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	if (*end == 'k' || *end == 'K') {
		v <<= 10;
		end++;
	} else if (*end == 'm' || *end == 'M') {
		v <<= 20;
		end++;
	}
	if (*end || !v || v > (1ull << 30))
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "server", required_argument, NULL, 'S' },
		{ "client", required_argument, NULL, 'C' },
		{ "src", required_argument, NULL, 's' },
		{ "port", required_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "connect-timeout", required_argument, NULL, 'r' },
		{ "no-counter-check", no_argument, NULL, 'N' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = {
		.port = DEFAULT_PORT,
		.size = DEFAULT_SIZE,
		.timeout_s = 60,
		.connect_timeout_s = 20,
		.check_counters = true,
	};
	bool have_role = false;
	int c;

	while ((c = getopt_long(argc, argv, "S:C:s:p:n:t:r:vh", lopts, NULL)) != -1) {
		char *end;
		long v;

		switch (c) {
		case 'S':
		case 'C':
			if (have_role) {
				fprintf(stderr, "rdma_smoke: give one of --server or --client\n");
				return 2;
			}
			have_role = true;
			o.server = c == 'S';
			o.addr = optarg;
			break;
		case 's':
			o.src = optarg;
			break;
		case 'p':
			v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 65535) {
				fprintf(stderr, "rdma_smoke: bad port '%s'\n", optarg);
				return 2;
			}
			o.port = (uint16_t)v;
			break;
		case 'n':
			if (parse_size(optarg, &o.size)) {
				fprintf(stderr, "rdma_smoke: bad size '%s'\n", optarg);
				return 2;
			}
			break;
		case 't':
		case 'r':
			v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 3600) {
				fprintf(stderr, "rdma_smoke: bad timeout '%s'\n", optarg);
				return 2;
			}
			if (c == 't')
				o.timeout_s = (int)v;
			else
				o.connect_timeout_s = (int)v;
			break;
		case 'N':
			o.check_counters = false;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!have_role || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (o.server && o.src) {
		fprintf(stderr, "rdma_smoke: --src is for the client\n");
		return 2;
	}
	verbose = o.verbose;
	if (o.verbose)
		rblk_log_set_level(RBLK_LOG_DEBUG);
	return o.server ? run_server(&o) : run_client(&o);
}

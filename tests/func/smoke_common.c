/* SPDX-License-Identifier: MIT */
/*
 * rdma_smoke's helpers over the transport seam: resource setup and
 * teardown, CM event and completion waits, SEND/RECV messages, and the
 * port-counter check (see smoke.h).
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "smoke.h"

const char smoke_magic[8] = "RBLKSMK1";
const char *smoke_role = "rdma_smoke";
bool smoke_verbose;

void smoke_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: FAIL: ", smoke_role);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void smoke_info(const struct opts *o, const char *fmt, ...)
{
	va_list ap;

	if (!o->verbose)
		return;
	printf("%s: ", smoke_role);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

uint64_t smoke_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* xorshift64*: a pattern both sides regenerate from the seed. */
void smoke_pattern_fill(uint8_t *buf, size_t len, uint64_t seed)
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
int64_t smoke_pattern_check(const uint8_t *buf, size_t len, uint64_t seed)
{
	uint8_t *want = malloc(len);
	int64_t bad = -1;

	if (!want)
		return 0;
	smoke_pattern_fill(want, len, seed);
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != want[i]) {
			bad = (int64_t)i;
			break;
		}
	}
	free(want);
	return bad;
}

int smoke_expect_event(struct conn *c, enum rblk_cm_event_type want, int timeout_ms,
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
			smoke_fail("waiting for %s, got %s (status %d)", rblk_cm_event_str(want),
			     rblk_cm_event_str(ev->type), status);
		else if (smoke_verbose)
			printf("%s: waiting for %s, got %s (status %d)\n", smoke_role,
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
			smoke_info(o, "  %s/%s +%" PRIu64, rblk_pc_source(i), rblk_pc_name(i), d->v[i]);
	}
}

/* Resources on the id's device: PD, CQ, QP, pools, receives posted. */
int smoke_setup_resources(struct conn *c, const struct opts *o, bool remote_data)
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
		smoke_fail("the connection is not bound to an RDMA device");
		return -ENODEV;
	}
	ret = rblk_device_query(dev, &c->attr);
	if (ret) {
		smoke_fail("ibv_query_device(%s): %s", rblk_device_name(dev), strerror(-ret));
		return ret;
	}
	ret = rblk_memlock_check(rblk_mr_pool_bytes_needed(o->size, remote_data ? 1 : 2) +
					 rblk_mr_pool_bytes_needed(MSG_SIZE, 2 * RECV_SLOTS),
				 msg, sizeof(msg));
	if (ret) {
		smoke_fail("%s", msg);
		return ret;
	}
	smoke_info(o, "%s", msg);
	ret = rblk_pd_alloc(dev, &c->pd);
	if (ret) {
		smoke_fail("ibv_alloc_pd: %s", strerror(-ret));
		return ret;
	}
	ret = rblk_cq_create(dev, (int)(caps.max_send_wr + caps.max_recv_wr), 0, true, &c->cq);
	if (ret) {
		smoke_fail("ibv_create_cq: %s", strerror(-ret));
		return ret;
	}
	ret = rblk_qp_create(c->id, c->pd, c->cq, c->cq, &caps, c, &c->qp);
	if (ret) {
		smoke_fail("rdma_create_qp: %s", strerror(-ret));
		return ret;
	}
	if (remote_data)
		access |= RBLK_ACCESS_REMOTE_READ | RBLK_ACCESS_REMOTE_WRITE;
	/* Server: one unit the client writes and reads. Client: source and sink. */
	ret = rblk_mr_pool_create(c->pd, o->size, remote_data ? 1 : 2, access, &c->data);
	if (ret) {
		smoke_fail("registering %u-byte data buffers: %s", o->size, strerror(-ret));
		return ret;
	}
	ret = rblk_mr_pool_create(c->pd, MSG_SIZE, 2 * RECV_SLOTS, RBLK_ACCESS_LOCAL_WRITE,
				  &c->msgs);
	if (ret) {
		smoke_fail("registering message buffers: %s", strerror(-ret));
		return ret;
	}
	smoke_info(o, "data pool: %u x %u bytes at %p (%s), lkey %#x rkey %#x", rblk_mr_pool_count(c->data),
	     o->size, rblk_mr_pool_base(c->data),
	     rblk_mr_pool_hugetlb(c->data) ? "hugetlb" : "normal pages", rblk_mr_pool_lkey(c->data),
	     rblk_mr_pool_rkey(c->data));
	for (int i = 0; i < RECV_SLOTS; i++) {
		void *buf = rblk_mr_pool_get(c->msgs);
		struct rblk_sge sge = { (uintptr_t)buf, MSG_SIZE, rblk_mr_pool_lkey(c->msgs) };

		c->recv_buf[i] = buf;
		ret = rblk_qp_queue_recv(c->qp, (uintptr_t)buf, &sge, 1);
		if (ret) {
			smoke_fail("queueing a receive: %s", strerror(-ret));
			return ret;
		}
	}
	ret = rblk_qp_flush_recv(c->qp, NULL);
	if (ret)
		smoke_fail("ibv_post_recv: %s", strerror(-ret));
	return ret;
}

void smoke_conn_cleanup(struct conn *c)
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
int smoke_wait_wc(struct conn *c, enum rblk_wc_opcode want, struct rblk_wc *out, int timeout_ms)
{
	uint64_t deadline = smoke_now_ms() + (uint64_t)timeout_ms;

	for (;;) {
		int64_t left = (int64_t)(deadline - smoke_now_ms());
		int n = rblk_cq_poll_wait(c->cq, out, 1, left > 0 ? (int)left : 0);

		if (n < 0) {
			smoke_fail("waiting for a %s completion: %s", rblk_wc_opcode_str(want),
			     strerror(-n));
			return n;
		}
		if (out->status != RBLK_WC_SUCCESS) {
			smoke_fail("work request %#" PRIx64 " completed with %s (vendor error %#x)",
			     out->wr_id, rblk_wc_status_str(out->status), out->vendor_err);
			return -EIO;
		}
		if (out->opcode == want)
			return 0;
		smoke_fail("expected a %s completion, got %s", rblk_wc_opcode_str(want),
		     rblk_wc_opcode_str(out->opcode));
		return -EPROTO;
	}
}

int smoke_send_msg(struct conn *c, uint32_t kind, bool ok, uint64_t seed, uint64_t bad_offset)
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
		smoke_fail("posting a SEND: %s", strerror(-ret));
		return ret;
	}
	return smoke_wait_wc(c, RBLK_WC_SEND, &wc, 10000);
}

int smoke_recv_msg(struct conn *c, uint32_t kind, struct smoke_msg *out, int timeout_ms)
{
	struct rblk_wc wc;
	int ret = smoke_wait_wc(c, RBLK_WC_RECV, &wc, timeout_ms);

	if (ret)
		return ret;
	if (wc.byte_len < sizeof(*out)) {
		smoke_fail("received %u bytes, expected a %zu-byte message", wc.byte_len, sizeof(*out));
		return -EPROTO;
	}
	memcpy(out, (void *)(uintptr_t)wc.wr_id, sizeof(*out));
	for (int i = 0; i < RECV_SLOTS; i++)
		if (c->recv_buf[i] == (void *)(uintptr_t)wc.wr_id)
			c->recv_buf[i] = NULL;
	rblk_mr_pool_put(c->msgs, (void *)(uintptr_t)wc.wr_id);
	if (memcmp(out->magic, smoke_magic, sizeof(out->magic)) || le32toh(out->kind) != kind) {
		smoke_fail("received a message that is not a %s", kind == MSG_DONE ? "done" : "verdict");
		return -EPROTO;
	}
	return 0;
}

/* Port counters now vs c->before; checks crossed >= @moved. */
int smoke_check_counters(struct conn *c, const struct opts *o, uint64_t moved, char *summary,
			  size_t len)
{
	struct rblk_port_counters after, delta;
	struct rblk_port_bytes b;
	int ret;

	ret = rblk_port_counters_read(NULL, c->where.dev, (int)c->where.port_num, &after);
	if (ret) {
		smoke_fail("reading %s port %u counters: %s", c->where.dev, c->where.port_num,
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
		smoke_fail("%s port %u: no counter tells how many bytes crossed the device (%s)",
		     c->where.dev, c->where.port_num, b.desc);
		return ret;
	}
	if (b.tx + b.rx < moved) {
		smoke_fail("%s port %u: counters show %" PRIu64 " bytes crossed the device, but %" PRIu64
		     " were moved (source: %s)",
		     c->where.dev, c->where.port_num, b.tx + b.rx, moved, b.desc);
		return -EIO;
	}
	return 0;
}

/*
 * Finds the RDMA port @id lives on, prints it (when @print), and reads the
 * "before" counters there. -ENOTCONN for a wildcard listener (no device yet).
 */
int smoke_bind_report(struct conn *c, struct rblk_cm_id *id, const char *what, bool print)
{
	char buf[256], a[RBLK_ADDR_STRLEN];
	int ret = rblk_cm_id_port_info(id, &c->where);

	if (ret)
		return ret;
	rblk_addr_str(rblk_cm_id_local_addr(id), a, sizeof(a));
	if (print) {
		printf("%s: %s %s on %s\n", smoke_role, what, a,
		       rblk_cm_port_info_str(&c->where, buf, sizeof(buf)));
		fflush(stdout);
	}
	ret = rblk_port_counters_read(NULL, c->where.dev, (int)c->where.port_num, &c->before);
	if (ret)
		smoke_fail("reading %s port %u counters: %s", c->where.dev, c->where.port_num,
		     strerror(-ret));
	return ret;
}


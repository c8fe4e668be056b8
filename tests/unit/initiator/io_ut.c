/* SPDX-License-Identifier: MIT */
/*
 * Tests for initiator/io.c with the queue engine of initiator/queue.c over
 * plain memory (no RDMA device): requests become commands (MDTS and NLB
 * splits, keyed vs in-capsule, registered vs bounced data, DSM range,
 * Write Zeroes), completions are fed in as work completions, and each
 * request completes once with its first error; bogus and stale completions
 * are rejected; a teardown requeues what got no answer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "initiator/ctrl.h"
#include "initiator/io.h"
#include "protocol/nvme_id.h"
#include "protocol/nvme_status.h"
#include "ut.h"

/*
 * The three CQ calls, replaced at link time (-Wl,--wrap, see CMakeLists.txt):
 * arming and reading the channel are counted (each is a system call on
 * Soft-RoCE), and polling returns the completions a test scripted.
 */
static struct {
	int notify_calls, event_calls;
	struct rblk_wc wc[8];
	int nwc;		/* scripted completions the next polls return */
	bool after_arm;		/* ... but only once the CQ was armed */
} F;

int __wrap_rblk_cq_req_notify(struct rblk_cq *cq, bool solicited_only);
int __wrap_rblk_cq_get_event(struct rblk_cq *cq);
int __wrap_rblk_cq_poll(struct rblk_cq *cq, struct rblk_wc *wc, int n);

int __wrap_rblk_cq_req_notify(struct rblk_cq *cq, bool solicited_only)
{
	(void)cq;
	(void)solicited_only;
	F.notify_calls++;
	return 0;
}

int __wrap_rblk_cq_get_event(struct rblk_cq *cq)
{
	(void)cq;
	F.event_calls++;
	return 0;
}

int __wrap_rblk_cq_poll(struct rblk_cq *cq, struct rblk_wc *wc, int n)
{
	int k = F.nwc < n ? F.nwc : n;

	(void)cq;
	if (F.after_arm && !F.notify_calls)
		return 0;
	memcpy(wc, F.wc, (size_t)k * sizeof(*wc));
	memmove(F.wc, F.wc + k, (size_t)(F.nwc - k) * sizeof(*wc));
	F.nwc -= k;
	return k;
}

/*
 * The four calls a teardown makes on the QP and the cm id, replaced the same
 * way: the order matters (error state first, destruction after every
 * request is back, and outside the queue's lock), so each records what it
 * saw.
 */
static struct {
	int set_error, disconnect, destroyed;
	unsigned busy_at_set_error;	/* slots still posted when the QP went to error */
	unsigned busy_at_destroy;	/* ... and when it was destroyed */
	bool locked_at_destroy;		/* the queue's lock held while destroying */
} T;
static struct rblk_qpair Q;

int __wrap_rblk_qp_set_error(struct rblk_qp *qp);
int __wrap_rblk_cm_disconnect(struct rblk_cm_id *id);
void __wrap_rblk_qp_destroy(struct rblk_qp *qp);
void __wrap_rblk_cm_id_destroy(struct rblk_cm_id *id);

static unsigned slots_posted(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < Q.hq.slots.n; i++)
		n += Q.hq.slots.s[i].state == RBLK_SLOT_POSTED;
	return n;
}

int __wrap_rblk_qp_set_error(struct rblk_qp *qp)
{
	(void)qp;
	T.set_error++;
	T.busy_at_set_error = slots_posted();
	return 0;
}

int __wrap_rblk_cm_disconnect(struct rblk_cm_id *id)
{
	(void)id;
	T.disconnect++;
	return -EINVAL;	/* as for a connection the CM already gave up on */
}

static void destroyed(void)
{
	T.destroyed++;
	T.busy_at_destroy = slots_posted();
	if (pthread_mutex_trylock(&Q.hq.lock))
		T.locked_at_destroy = true;
	else
		pthread_mutex_unlock(&Q.hq.lock);
}

void __wrap_rblk_qp_destroy(struct rblk_qp *qp)
{
	if (qp)
		destroyed();
}

void __wrap_rblk_cm_id_destroy(struct rblk_cm_id *id)
{
	if (id)
		destroyed();
}

/*
 * Memory registration, replaced the same way, for the device-change test: a
 * "registration" is a pair of keys that differ every time.
 */
struct fake_mr {
	uint32_t lkey, rkey;
};
static unsigned next_key;

int __wrap_rblk_mr_reg(struct rblk_pd *pd, void *addr, size_t len, int access,
		       struct rblk_mr **out);
int __wrap_rblk_mr_dereg(struct rblk_mr *mr);
uint32_t __wrap_rblk_mr_lkey(const struct rblk_mr *mr);
uint32_t __wrap_rblk_mr_rkey(const struct rblk_mr *mr);

int __wrap_rblk_mr_reg(struct rblk_pd *pd, void *addr, size_t len, int access,
		       struct rblk_mr **out)
{
	struct fake_mr *m;

	(void)access;
	*out = NULL;
	if (!pd || !addr || !len)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	next_key++;
	m->lkey = next_key;
	m->rkey = 0x1000u + next_key;
	*out = (struct rblk_mr *)m;
	return 0;
}

int __wrap_rblk_mr_dereg(struct rblk_mr *mr)
{
	free(mr);
	return 0;
}

uint32_t __wrap_rblk_mr_lkey(const struct rblk_mr *mr)
{
	return ((const struct fake_mr *)mr)->lkey;
}

uint32_t __wrap_rblk_mr_rkey(const struct rblk_mr *mr)
{
	return ((const struct fake_mr *)mr)->rkey;
}

static struct rblk_ctrl C;
static struct nvme_id_ctrl ID;		/* ONCS and FUSES as rblk-target reports them */
static struct nvme_id_ns ID_NS;		/* MSRC */
static struct rblk_ns NS, NS_RO;
static struct rblk_mr_pool *REG;	/* registered memory: a pool with a fake registration */
static uint8_t *regbuf;
static struct rblk_mem_region region;

struct done {
	unsigned calls;
	uint16_t status;
	int err;
};

static void cb(struct rblk_io *io, uint16_t status, int err, void *arg)
{
	struct done *d = arg;

	d->calls++;
	d->status = status;
	d->err = err;
}

static void env_init(unsigned depth, uint32_t max_xfer, uint32_t incap)
{
	struct rblk_hq *hq = &Q.hq;

	memset(&C, 0, sizeof(C));
	pthread_mutex_init(&C.lock, NULL);
	pthread_rwlock_init(&C.mem_lock, NULL);
	pthread_cond_init(&C.sync_cond, NULL);
	C.wake_fd = -1;
	atomic_init(&C.state, RBLK_CTRL_LIVE);
	atomic_init(&C.ka_next_ms, UINT64_MAX);
	memset(&ID, 0, sizeof(ID));
	ID.oncs = rblk_cpu_to_le16(NVME_CTRL_ONCS_COMPARE | NVME_CTRL_ONCS_VERIFY |
				   NVME_CTRL_ONCS_COPY);
	ID.fuses = rblk_cpu_to_le16(NVME_CTRL_FUSES_COMPARE_WRITE);
	C.id = &ID;
	memset(&ID_NS, 0, sizeof(ID_NS));
	ID_NS.msrc = 127;
	C.max_xfer = max_xfer;
	C.io_incapsule_max = incap;

	memset(&Q, 0, sizeof(Q));
	Q.ctrl = &C;
	CU_ASSERT_EQUAL_FATAL(rblk_wakefd_open(&Q.wake), 0);
	Q.epfd = -1;
	hq->ctrl = &C;
	hq->qid = 1;
	hq->depth = depth;
	pthread_mutex_init(&hq->lock, NULL);
	CU_ASSERT_EQUAL_FATAL(rblk_slots_init(&hq->slots, depth + 1, 1), 0);
	hq->data = aligned_alloc(4096, (size_t)(depth + 1) * RBLK_SLOT_DATA);
	hq->sqes = calloc(depth + 1, sizeof(struct nvme_sqe));
	hq->rsps = calloc(depth, sizeof(struct nvme_cqe));
	for (unsigned i = 0; i <= depth; i++) {
		hq->slots.s[i].sqe = &hq->sqes[i];
		hq->slots.s[i].data = hq->data + (size_t)i * RBLK_SLOT_DATA;
	}
	hq->state = RBLK_HQ_DOWN;
	hq->incapsule_max = incap;
	hq->bounce_unit = max_xfer < RBLK_BOUNCE_UNIT_MAX ? max_xfer : RBLK_BOUNCE_UNIT_MAX;

	NS = (struct rblk_ns){ .ctrl = &C, .nsid = 1, .nsze = 1ull << 30, .lba_shift = 9,
			       .id = &ID_NS };
	NS_RO = NS;
	NS_RO.read_only = true;

	CU_ASSERT_EQUAL_FATAL(rblk_mr_pool_create(NULL, 4u << 20, 1, 0, &REG), 0);
	/* Registered with the fake registration above (any PD but NULL will do). */
	CU_ASSERT_EQUAL_FATAL(rblk_mr_pool_rereg(REG, (struct rblk_pd *)(uintptr_t)0x1000), 0);
	regbuf = rblk_mr_pool_get(REG);
	region = (struct rblk_mem_region){ .start = (uintptr_t)regbuf, .len = 4u << 20, .pool = REG };
	C.regions = &region;
	C.nregions = C.regions_cap = 1;
}

static void env_fini(void)
{
	struct rblk_hq *hq = &Q.hq;

	rblk_mr_pool_put(REG, regbuf);
	rblk_mr_pool_destroy(REG);
	rblk_mr_pool_destroy(hq->bounce);
	free(hq->data);
	free(hq->sqes);
	free(hq->rsps);
	rblk_slots_fini(&hq->slots);
	rblk_wakefd_close(&Q.wake);
}

/* Takes the QUEUED slots (in order) and marks them posted, as going live would. */
static unsigned arm_queued(struct rblk_slot **out, unsigned max)
{
	struct rblk_hq *hq = &Q.hq;
	unsigned n = 0;

	while (hq->queued_head && n < max) {
		struct rblk_slot *s = hq->queued_head;

		hq->queued_head = s->next;
		if (!hq->queued_head)
			hq->queued_tail = NULL;
		rblk_slot_arm(s);
		out[n++] = s;
	}
	return n;
}

static void feed_rsp_dw0(uint16_t cid, uint16_t status, uint32_t dw0)
{
	struct rblk_wc wc = { .wr_id = rblk_hq_wr_id(&Q.hq, true, 0), .status = RBLK_WC_SUCCESS,
			      .opcode = RBLK_WC_RECV, .byte_len = 16 };

	nvme_cqe_build(&Q.hq.rsps[0], rblk_cpu_to_le16(cid), status, dw0, 0, 1, 1);
	rblk_hq_handle_wc(&Q.hq, &wc);
}

static void feed_rsp(uint16_t cid, uint16_t status)
{
	feed_rsp_dw0(cid, status, 0);
}

static void feed_send(const struct rblk_slot *s)
{
	struct rblk_wc wc = { .wr_id = rblk_hq_wr_id(&Q.hq, false, s->index),
			      .status = RBLK_WC_SUCCESS, .opcode = RBLK_WC_SEND };

	rblk_hq_handle_wc(&Q.hq, &wc);
}

static void complete(struct rblk_slot *s, uint16_t status)
{
	feed_rsp(rblk_le16(s->sqe->cid), status);
	feed_send(s);
}

static const uint8_t *sgl(const struct rblk_slot *s)
{
	return (const uint8_t *)&s->sqe->sgl1;
}

static void test_split_registered(void)
{
	struct rblk_io io = { .op = RBLK_OP_WRITE, .ns = &NS, .lba = 1000, .nlb = 2048,
			       };
	struct rblk_slot *s[16];
	struct done d = { 0 };

	env_init(16, 128u << 10, 8192);
	io.buf = regbuf;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), 0);
	CU_ASSERT_PTR_NULL(Q.pending);
	CU_ASSERT_EQUAL(rblk_qpair_inflight(&Q), 1);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 16), 8);	/* 1 MiB at 128 KiB per command */
	for (unsigned k = 0; k < 8; k++) {
		CU_ASSERT_EQUAL(s[k]->sqe->opc, 0x01);
		CU_ASSERT_EQUAL(s[k]->sqe->flags, 0x40);
		CU_ASSERT_EQUAL(rblk_le64(((struct nvme_rw_cmd *)s[k]->sqe)->slba), 1000 + 256 * k);
		CU_ASSERT_EQUAL(rblk_le16(((struct nvme_rw_cmd *)s[k]->sqe)->nlb), 255);
		/* Zero copy: keyed 0x40 straight at the caller's buffer. */
		CU_ASSERT_EQUAL(sgl(s[k])[15], 0x40);
		CU_ASSERT_EQUAL(rblk_get_le64(sgl(s[k])), (uintptr_t)regbuf + 131072 * k);
		CU_ASSERT_EQUAL(rblk_get_le24(sgl(s[k]) + 8), 131072);
		CU_ASSERT_EQUAL(s[k]->ic_len, 0);
	}
	/* Completions in any order; one callback at the very end. */
	for (int k = 7; k >= 0; k--) {
		complete(s[k], 0);
		CU_ASSERT_EQUAL(rblk_poll(&Q, 0), k == 0 ? 1 : 0);
	}
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, 0);
	CU_ASSERT_EQUAL(d.err, 0);
	CU_ASSERT_EQUAL(rblk_qpair_inflight(&Q), 0);
	CU_ASSERT_EQUAL(rblk_slots_busy(&Q.hq.slots), 0);
	env_fini();
}

static void test_incapsule_registered(void)
{
	struct rblk_io small = { .op = RBLK_OP_WRITE, .ns = &NS, .lba = 0, .nlb = 16,
				  };
	struct rblk_io big = { .op = RBLK_OP_WRITE, .ns = &NS, .lba = 0, .nlb = 17,  };
	struct rblk_io rd = { .op = RBLK_OP_READ, .ns = &NS, .lba = 0, .nlb = 1,  };
	struct rblk_slot *s[4];
	struct done d = { 0 };

	env_init(8, 128u << 10, 8192);
	small.buf = regbuf + 512;
	big.buf = regbuf;
	rd.buf = regbuf;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &small, cb, &d), 0);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &big, cb, &d), 0);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &rd, cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 4), 3);
	/* 8192 bytes fit IOCCSZ: in-capsule, the data SGE on the caller's memory. */
	CU_ASSERT_EQUAL(sgl(s[0])[15], 0x01);
	CU_ASSERT_EQUAL(rblk_get_le64(sgl(s[0])), 0);
	CU_ASSERT_EQUAL(rblk_get_le32(sgl(s[0]) + 8), 8192);
	CU_ASSERT_EQUAL(s[0]->ic_len, 8192);
	CU_ASSERT_EQUAL(s[0]->ic_addr, (uintptr_t)regbuf + 512);
	/* 8704 bytes do not: keyed. */
	CU_ASSERT_EQUAL(sgl(s[1])[15], 0x40);
	CU_ASSERT_EQUAL(s[1]->ic_len, 0);
	/* Reads are never in-capsule. */
	CU_ASSERT_EQUAL(sgl(s[2])[15], 0x40);
	for (int k = 0; k < 3; k++)
		complete(s[k], 0);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 3);
	CU_ASSERT_EQUAL(d.calls, 3);
	env_fini();
}

static void test_unregistered_read_copies_back(void)
{
	uint8_t *buf = malloc(4096);
	struct rblk_io io = { .op = RBLK_OP_READ, .ns = &NS, .lba = 7, .nlb = 8, .buf = buf };
	struct rblk_slot *s[2];
	struct done d = { 0 };

	env_init(8, 128u << 10, 8192);
	memset(buf, 0, 4096);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 2), 1);
	/* Bounced through the slot's own registered 4 KiB. */
	CU_ASSERT_EQUAL(rblk_get_le64(sgl(s[0])), (uintptr_t)s[0]->data);
	CU_ASSERT_EQUAL(rblk_get_le24(sgl(s[0]) + 8), 4096);
	memset(s[0]->data, 0x5A, 4096);
	complete(s[0], 0);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(buf[0], 0x5A);
	CU_ASSERT_EQUAL(buf[4095], 0x5A);
	free(buf);
	env_fini();
}

static void test_unregistered_bounce(void)
{
	uint8_t *buf = malloc(1u << 20);
	struct rblk_io w8k = { .op = RBLK_OP_WRITE, .ns = &NS, .lba = 0, .nlb = 16, .buf = buf };
	struct rblk_io w1m = { .op = RBLK_OP_WRITE, .ns = &NS, .lba = 0, .nlb = 2048, .buf = buf };
	struct rblk_slot *s[16];
	struct done d = { 0 };

	env_init(16, 1u << 20, 8192);
	for (unsigned i = 0; i < (1u << 20); i++)
		buf[i] = (uint8_t)(i * 7 + i / 4096);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &w8k, cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 16), 1);
	/* 8 KiB: more than the slot's 4 KiB, so a bounce unit, still in-capsule. */
	CU_ASSERT_PTR_NOT_NULL_FATAL(s[0]->bounce);
	CU_ASSERT_EQUAL(sgl(s[0])[15], 0x01);
	CU_ASSERT_EQUAL(s[0]->ic_addr, (uintptr_t)s[0]->bounce);
	CU_ASSERT_EQUAL(memcmp(s[0]->bounce, buf, 8192), 0);
	complete(s[0], 0);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(rblk_mr_pool_free_count(Q.hq.bounce), RBLK_BOUNCE_UNITS);

	/* 1 MiB with MDTS 1 MiB but unregistered: split at the 128 KiB bounce unit. */
	CU_ASSERT_EQUAL(rblk_submit(&Q, &w1m, cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 16), 8);
	for (unsigned k = 0; k < 8; k++) {
		CU_ASSERT_EQUAL(rblk_get_le24(sgl(s[k]) + 8), 131072);
		CU_ASSERT_EQUAL(rblk_get_le64(sgl(s[k])), (uintptr_t)s[k]->bounce);
		CU_ASSERT_EQUAL(memcmp(s[k]->bounce, buf + 131072 * k, 131072), 0);
	}
	CU_ASSERT_EQUAL(rblk_mr_pool_free_count(Q.hq.bounce), RBLK_BOUNCE_UNITS - 8);
	for (unsigned k = 0; k < 8; k++)
		complete(s[k], 0);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(rblk_mr_pool_free_count(Q.hq.bounce), RBLK_BOUNCE_UNITS);
	CU_ASSERT_EQUAL(d.calls, 2);
	free(buf);
	env_fini();
}

static void test_iov_gather(void)
{
	uint8_t a[1000], b[3000], c[96];
	struct iovec iov[3] = { { a, sizeof(a) }, { b, sizeof(b) }, { c, sizeof(c) } };
	struct rblk_io io = { .op = RBLK_OP_WRITE, .ns = &NS, .lba = 0, .nlb = 8, .iov = iov,
			      .iovcnt = 3 };
	struct rblk_slot *s[2];
	struct done d = { 0 };

	env_init(8, 128u << 10, 0);
	memset(a, 1, sizeof(a));
	memset(b, 2, sizeof(b));
	memset(c, 3, sizeof(c));
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 2), 1);
	CU_ASSERT_EQUAL(sgl(s[0])[15], 0x40);	/* no in-capsule offered */
	CU_ASSERT_EQUAL(s[0]->data[999], 1);
	CU_ASSERT_EQUAL(s[0]->data[1000], 2);
	CU_ASSERT_EQUAL(s[0]->data[3999], 2);
	CU_ASSERT_EQUAL(s[0]->data[4000], 3);
	CU_ASSERT_EQUAL(s[0]->data[4095], 3);
	complete(s[0], 0);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	env_fini();
}

static void test_dsm_and_write_zeroes(void)
{
	struct rblk_io dsm = { .op = RBLK_OP_DEALLOCATE, .ns = &NS, .lba = 5, .nlb = 100000 };
	struct rblk_io wz = { .op = RBLK_OP_WRITE_ZEROES, .ns = &NS, .lba = 10, .nlb = 100000 };
	struct rblk_io fl = { .op = RBLK_OP_FLUSH, .ns = &NS };
	struct rblk_slot *s[8];
	const uint8_t *r;
	struct done d = { 0 };

	env_init(8, 128u << 10, 4096);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &dsm, cb, &d), 0);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &wz, cb, &d), 0);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &fl, cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 8), 4);
	/* DSM: one range, AD, the 16-byte range in-capsule from the slot's buffer. */
	CU_ASSERT_EQUAL(s[0]->sqe->opc, 0x09);
	CU_ASSERT_EQUAL(rblk_le32(s[0]->sqe->cdw10), 0);
	CU_ASSERT_EQUAL(rblk_le32(s[0]->sqe->cdw11), 4);
	CU_ASSERT_EQUAL(sgl(s[0])[15], 0x01);
	CU_ASSERT_EQUAL(rblk_get_le32(sgl(s[0]) + 8), 16);
	CU_ASSERT_EQUAL(s[0]->ic_addr, (uintptr_t)s[0]->data);
	r = s[0]->data;
	CU_ASSERT_EQUAL(rblk_get_le32(r + 4), 100000);
	CU_ASSERT_EQUAL(rblk_get_le64(r + 8), 5);
	/* Write Zeroes: 16-bit NLB, so two commands. */
	CU_ASSERT_EQUAL(s[1]->sqe->opc, 0x08);
	CU_ASSERT_EQUAL(rblk_le64(((struct nvme_rw_cmd *)s[1]->sqe)->slba), 10);
	CU_ASSERT_EQUAL(rblk_le16(((struct nvme_rw_cmd *)s[1]->sqe)->nlb), 65535);
	CU_ASSERT_EQUAL(rblk_le64(((struct nvme_rw_cmd *)s[2]->sqe)->slba), 10 + 65536);
	CU_ASSERT_EQUAL(rblk_le16(((struct nvme_rw_cmd *)s[2]->sqe)->nlb), 100000 - 65536 - 1);
	CU_ASSERT_EQUAL(sgl(s[1])[15], 0x40);
	CU_ASSERT_EQUAL(rblk_get_le24(sgl(s[1]) + 8), 0);
	CU_ASSERT_EQUAL(s[3]->sqe->opc, 0x00);
	for (int k = 0; k < 4; k++)
		complete(s[k], 0);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 3);
	env_fini();

	/* Without in-capsule data, the DSM range goes keyed from the same buffer. */
	env_init(8, 128u << 10, 0);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &dsm, cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 8), 1);
	CU_ASSERT_EQUAL(sgl(s[0])[15], 0x40);
	CU_ASSERT_EQUAL(rblk_get_le64(sgl(s[0])), (uintptr_t)s[0]->data);
	CU_ASSERT_EQUAL(rblk_get_le24(sgl(s[0]) + 8), 16);
	complete(s[0], 0);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	env_fini();
}

static void test_first_error_once(void)
{
	struct rblk_io io = { .op = RBLK_OP_READ, .ns = &NS, .lba = 0, .nlb = 768,  };
	struct rblk_slot *s[4];
	struct done d = { 0 };

	env_init(8, 128u << 10, 8192);
	io.buf = regbuf;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 4), 3);
	complete(s[1], NVME_SC_LBA_RANGE | NVME_SC_DNR);
	complete(s[0], 0);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 0);
	complete(s[2], NVME_SC_INTERNAL);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, NVME_SC_LBA_RANGE | NVME_SC_DNR);
	CU_ASSERT_EQUAL(d.err, 0);
	env_fini();
}

static void test_pending_and_eagain(void)
{
	struct rblk_io big = { .op = RBLK_OP_WRITE, .ns = &NS, .lba = 0, .nlb = 2560,  };
	struct rblk_io other = { .op = RBLK_OP_FLUSH, .ns = &NS };
	struct rblk_slot *s[8];
	struct done d = { 0 }, d2 = { 0 };

	env_init(4, 128u << 10, 8192);
	big.buf = regbuf;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &big, cb, &d), 0);
	/* 10 commands, 4 slots: the rest waits, and the qpair pushes back. */
	CU_ASSERT_PTR_EQUAL(Q.pending, &big);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &other, cb, &d2), -EAGAIN);
	CU_ASSERT_EQUAL(rblk_qpair_inflight(&Q), 1);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 8), 4);
	/* The first command fails: nothing more is issued, the rest drains, one callback. */
	complete(s[0], NVME_SC_NS_WRITE_PROTECTED);
	complete(s[1], 0);
	complete(s[2], 0);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 0);
	CU_ASSERT_PTR_EQUAL(Q.pending, &big);
	complete(s[3], 0);
	CU_ASSERT_PTR_NULL(Q.pending);
	CU_ASSERT_PTR_NULL(Q.hq.queued_head);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, NVME_SC_NS_WRITE_PROTECTED);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &other, cb, &d2), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 8), 1);
	complete(s[0], 0);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	env_fini();
}

static void test_bogus_and_stale_completions(void)
{
	struct rblk_io io = { .op = RBLK_OP_READ, .ns = &NS, .lba = 0, .nlb = 8,  };
	struct rblk_slot *s[2];
	struct done d = { 0 };
	uint16_t cid;

	env_init(8, 128u << 10, 8192);
	io.buf = regbuf;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 2), 1);
	cid = rblk_le16(s[0]->sqe->cid);
	Q.hq.state = RBLK_HQ_LIVE;

	/* A completion of the previous connection (older epoch) is ignored altogether. */
	{
		struct rblk_wc wc = { .wr_id = rblk_hq_wr_id(&Q.hq, true, 0),
				      .status = RBLK_WC_SUCCESS, .byte_len = 16 };

		nvme_cqe_build(&Q.hq.rsps[0], rblk_cpu_to_le16(cid), 0, 0, 0, 1, 1);
		Q.hq.epoch++;
		rblk_hq_handle_wc(&Q.hq, &wc);
		CU_ASSERT_FALSE(s[0]->rsp_done);
		CU_ASSERT_EQUAL(Q.hq.state, RBLK_HQ_LIVE);
	}
	/* Right index, wrong generation: rejected, and the queue cannot be trusted. */
	feed_rsp((uint16_t)(cid ^ 0x3000), 0);
	CU_ASSERT_FALSE(s[0]->rsp_done);
	CU_ASSERT_EQUAL(Q.hq.state, RBLK_HQ_FAILED);
	CU_ASSERT_TRUE(atomic_load(&C.conn_lost));
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 0);
	CU_ASSERT_EQUAL(d.calls, 0);

	/* A CID naming no posted slot is rejected too. */
	Q.hq.state = RBLK_HQ_LIVE;
	atomic_store(&C.conn_lost, false);
	feed_rsp(rblk_cid_make(5, 1), 0);
	CU_ASSERT_EQUAL(Q.hq.state, RBLK_HQ_FAILED);
	CU_ASSERT_EQUAL(d.calls, 0);

	/* A short response is a failure, not a completion. */
	Q.hq.state = RBLK_HQ_LIVE;
	{
		struct rblk_wc wc = { .wr_id = rblk_hq_wr_id(&Q.hq, true, 0),
				      .status = RBLK_WC_SUCCESS, .byte_len = 8 };

		nvme_cqe_build(&Q.hq.rsps[0], rblk_cpu_to_le16(cid), 0, 0, 0, 1, 1);
		rblk_hq_handle_wc(&Q.hq, &wc);
	}
	CU_ASSERT_EQUAL(Q.hq.state, RBLK_HQ_FAILED);
	CU_ASSERT_FALSE(s[0]->rsp_done);

	/* The genuine completion still works (the slot was never lost). */
	Q.hq.state = RBLK_HQ_DOWN;
	complete(s[0], 0);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 1);
	env_fini();
}

static void test_teardown_requeues(void)
{
	struct rblk_io io = { .op = RBLK_OP_WRITE, .ns = &NS, .lba = 0, .nlb = 768,  };
	struct rblk_slot *s[4];
	struct done d = { 0 };

	env_init(8, 128u << 10, 8192);
	io.buf = regbuf;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 4), 3);
	/* Command 0: answered, its SEND completion lost. 1 and 2: no answer. */
	feed_rsp(rblk_le16(s[0]->sqe->cid), 0);
	rblk_hq_teardown(&Q.hq, true);
	CU_ASSERT_EQUAL(s[0]->state, RBLK_SLOT_FREE);
	CU_ASSERT_EQUAL(s[1]->state, RBLK_SLOT_QUEUED);
	CU_ASSERT_EQUAL(s[2]->state, RBLK_SLOT_QUEUED);
	CU_ASSERT_PTR_EQUAL(Q.hq.queued_head, s[1]);
	CU_ASSERT_PTR_EQUAL(Q.hq.queued_tail, s[2]);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 0);
	CU_ASSERT_EQUAL(d.calls, 0);

	/* Reposted under new CIDs, answered: the request completes once, cleanly. */
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 4), 2);
	complete(s[0], 0);
	complete(s[1], 0);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.err, 0);

	/* Without requeue (lost controller), what is left fails with -ENOTCONN. */
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 4), 3);
	rblk_hq_teardown(&Q.hq, false);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 2);
	CU_ASSERT_EQUAL(d.err, -ENOTCONN);
	CU_ASSERT_EQUAL(rblk_slots_busy(&Q.hq.slots), 0);
	env_fini();
}

/* fast_io_fail: nothing is submitted to a queue that is down, and a teardown fails what it had. */
static void test_fast_io_fail(void)
{
	struct rblk_io io = { .op = RBLK_OP_WRITE, .ns = &NS, .lba = 0, .nlb = 768,  };
	struct rblk_slot *s[4];
	struct done d = { 0 };

	env_init(8, 128u << 10, 8192);
	io.buf = regbuf;
	C.opts.fast_io_fail = true;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), -ENOTCONN);	/* DOWN: refused at once */
	CU_ASSERT_EQUAL(rblk_qpair_inflight(&Q), 0);
	CU_ASSERT_EQUAL(rblk_slots_busy(&Q.hq.slots), 0);
	Q.hq.state = RBLK_HQ_LIVE;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), 0);
	Q.hq.state = RBLK_HQ_FAILED;
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 4), 3);
	rblk_hq_teardown(&Q.hq, false);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.err, -ENOTCONN);
	CU_ASSERT_EQUAL(rblk_slots_busy(&Q.hq.slots), 0);
	env_fini();
}

/*
 * A connection lost on a broken device: rdma_disconnect() fails, so the
 * teardown moves the QP to the error state itself before any request goes
 * back to its owner, and destroys the QP and the id only after that, with
 * the lock released (destroying can block in the kernel there).
 */
static void test_teardown_order(void)
{
	struct rblk_io io = { .op = RBLK_OP_WRITE, .ns = &NS, .lba = 0, .nlb = 768 };
	struct rblk_slot *s[4];
	struct done d = { 0 };
	int fake;

	env_init(8, 128u << 10, 8192);
	memset(&T, 0, sizeof(T));
	io.buf = regbuf;
	C.opts.fast_io_fail = true;
	Q.hq.state = RBLK_HQ_LIVE;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 4), 3);
	Q.hq.qp = (struct rblk_qp *)&fake;	/* never dereferenced: the calls are replaced */
	Q.hq.id = (struct rblk_cm_id *)&fake;
	rblk_hq_teardown(&Q.hq, false);
	CU_ASSERT_EQUAL(T.disconnect, 1);
	CU_ASSERT_EQUAL(T.set_error, 1);
	CU_ASSERT_EQUAL(T.busy_at_set_error, 3);
	CU_ASSERT_EQUAL(T.destroyed, 2);
	CU_ASSERT_EQUAL(T.busy_at_destroy, 0);
	CU_ASSERT_FALSE(T.locked_at_destroy);
	CU_ASSERT_PTR_NULL(Q.hq.qp);
	CU_ASSERT_PTR_NULL(Q.hq.id);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(d.err, -ENOTCONN);
	env_fini();
}

/*
 * The I/O timeout: a command is old once the same posting has been seen
 * for the timeout; an answer waiting in the CQ is reaped first and is no
 * timeout; a command posted again starts over.
 */
static void test_io_timeout(void)
{
	struct rblk_io io = { .op = RBLK_OP_READ, .ns = &NS, .lba = 0, .nlb = 8 };
	struct rblk_io io2 = io;
	struct rblk_slot *s[4];
	struct done d = { 0 }, d2 = { 0 };
	int fake;

	env_init(8, 128u << 10, 8192);
	io.buf = regbuf;
	io2.buf = regbuf + 4096;
	Q.hq.cq = (struct rblk_cq *)&fake;	/* polled through the replaced rblk_cq_poll() */
	Q.hq.state = RBLK_HQ_LIVE;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 4), 1);
	CU_ASSERT_EQUAL(rblk_hq_check_timeout(&Q.hq, 1000, 30000), 0);	/* first seen */
	CU_ASSERT_EQUAL(rblk_hq_check_timeout(&Q.hq, 30999, 30000), 0);
	/* Due, but its answer is in the CQ: reaped, completed, no timeout. */
	nvme_cqe_build(&Q.hq.rsps[0], s[0]->sqe->cid, 0, 0, 0, 1, 1);
	F.wc[0] = (struct rblk_wc){ .wr_id = rblk_hq_wr_id(&Q.hq, true, 0),
				    .status = RBLK_WC_SUCCESS, .opcode = RBLK_WC_RECV,
				    .byte_len = 16 };
	F.wc[1] = (struct rblk_wc){ .wr_id = rblk_hq_wr_id(&Q.hq, false, s[0]->index),
				    .status = RBLK_WC_SUCCESS, .opcode = RBLK_WC_SEND };
	F.nwc = 2;
	CU_ASSERT_EQUAL(rblk_hq_check_timeout(&Q.hq, 31000, 30000), 1);
	CU_ASSERT_EQUAL(Q.hq.state, RBLK_HQ_LIVE);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.err, 0);

	/* The same slot posted again: its clock starts over at the next look. */
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io2, cb, &d2), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 4), 1);
	CU_ASSERT_EQUAL(rblk_hq_check_timeout(&Q.hq, 40000, 30000), 0);
	CU_ASSERT_EQUAL(rblk_hq_check_timeout(&Q.hq, 69999, 30000), 0);
	CU_ASSERT_EQUAL(Q.hq.state, RBLK_HQ_LIVE);
	CU_ASSERT_EQUAL(rblk_hq_check_timeout(&Q.hq, 70000, 30000), -ETIMEDOUT);
	CU_ASSERT_EQUAL(Q.hq.state, RBLK_HQ_FAILED);
	CU_ASSERT_TRUE(atomic_load(&C.conn_lost));
	/* A failed queue is the reconnect's business: no second report. */
	CU_ASSERT_EQUAL(rblk_hq_check_timeout(&Q.hq, 80000, 30000), 0);
	CU_ASSERT_EQUAL(d2.calls, 0);
	rblk_hq_teardown(&Q.hq, false);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(d2.err, -ENOTCONN);
	Q.hq.cq = NULL;
	env_fini();
}

static void test_submit_validation(void)
{
	struct iovec iov = { regbuf, 1000 };
	struct rblk_io io;
	struct done d = { 0 };

	env_init(8, 128u << 10, 8192);
	io = (struct rblk_io){ .op = RBLK_OP_READ, .ns = &NS, .nlb = 0, .buf = regbuf };
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), -EINVAL);
	io = (struct rblk_io){ .op = RBLK_OP_READ, .ns = &NS, .nlb = 2 };
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), -EINVAL);
	io = (struct rblk_io){ .op = RBLK_OP_READ, .ns = &NS, .nlb = 2, .iov = &iov, .iovcnt = 1 };
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), -EINVAL);
	io = (struct rblk_io){ .op = RBLK_OP_WRITE, .ns = &NS_RO, .nlb = 1, .buf = regbuf };
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), -EROFS);
	io = (struct rblk_io){ .op = RBLK_OP_DEALLOCATE, .ns = &NS_RO, .nlb = 1 };
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), -EROFS);
	io = (struct rblk_io){ .op = RBLK_OP_WRITE_ZEROES, .ns = &NS, .lba = UINT64_MAX, .nlb = 2 };
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), -EINVAL);
	io = (struct rblk_io){ .op = (enum rblk_io_op)42, .ns = &NS, .nlb = 1 };
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), -EINVAL);
	io = (struct rblk_io){ .op = RBLK_OP_FLUSH, .ns = &NS };
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, NULL, &d), -EINVAL);
	atomic_store(&C.state, RBLK_CTRL_LOST);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), -ENOTCONN);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), -ENOTCONN);
	atomic_store(&C.state, RBLK_CTRL_RECONNECTING);
	/* While reconnecting, requests are accepted and wait. */
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), 0);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 0);
	CU_ASSERT_PTR_NOT_NULL(Q.hq.queued_head);
	rblk_hq_teardown(&Q.hq, false);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(d.err, -ENOTCONN);
	CU_ASSERT_EQUAL(d.calls, 1);
	env_fini();
}

/*
 * The controller thread marks the controller lost, then fails what is
 * queued. A poll in between must not say "lost, nothing left": the caller
 * would reuse an rblk_io the library still holds (the NBD attach crash).
 */
static void test_poll_lost_with_requests_owned(void)
{
	struct rblk_io io = { .op = RBLK_OP_FLUSH, .ns = &NS };
	struct done d = { 0 };

	env_init(8, 128u << 10, 8192);
	atomic_store(&C.state, RBLK_CTRL_RECONNECTING);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), 0);
	CU_ASSERT_EQUAL(rblk_qpair_inflight(&Q), 1);
	atomic_store(&C.state, RBLK_CTRL_LOST);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 0);
	CU_ASSERT_EQUAL(d.calls, 0);
	rblk_hq_teardown(&Q.hq, false);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.err, -ENOTCONN);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), -ENOTCONN);
	env_fini();
}

static void test_mem_lookup(void)
{
	uint32_t l, r;

	env_init(8, 128u << 10, 0);
	CU_ASSERT_EQUAL(rblk_mem_lookup(&C, regbuf, 4u << 20, &l, &r), 0);
	CU_ASSERT_EQUAL(rblk_mem_lookup(&C, regbuf + 100, 4096, &l, &r), 0);
	CU_ASSERT_EQUAL(rblk_mem_lookup(&C, regbuf + (4u << 20) - 10, 11, &l, &r), -ENOENT);
	CU_ASSERT_EQUAL(rblk_mem_lookup(&C, regbuf - 1, 2, &l, &r), -ENOENT);
	env_fini();
}

/* The rkey of a keyed SGL1 (bytes 11-14 of the descriptor). */
static uint32_t sgl_key(const struct rblk_slot *s)
{
	return rblk_get_le32(sgl(s) + 11);
}

/*
 * The device goes away while requests wait for the reconnect, and the next
 * one registers the same memory with other keys: the lookups fail in
 * between (I/O then moves through bounce buffers), every queued request is
 * described again with the new keys, and one whose memory was unregistered
 * meanwhile fails instead of going out with a stale key.
 */
static void test_device_change_rekeys(void)
{
	struct rblk_pd *pd1 = (struct rblk_pd *)(uintptr_t)0x1000, *pd2 = (struct rblk_pd *)(uintptr_t)0x2000;
	uint8_t *user = aligned_alloc(4096, 64u << 10), *gone = aligned_alloc(4096, 64u << 10);
	struct rblk_io on_user = { .op = RBLK_OP_WRITE, .ns = &NS, .lba = 0, .nlb = 128, .buf = user };
	struct rblk_io on_pool = { .op = RBLK_OP_READ, .ns = &NS, .lba = 8, .nlb = 128 };
	struct rblk_io on_gone = { .op = RBLK_OP_WRITE, .ns = &NS, .lba = 16, .nlb = 128, .buf = gone };
	struct rblk_io in_gap = { .op = RBLK_OP_WRITE, .ns = &NS, .lba = 24, .nlb = 128, .buf = user };
	struct rblk_mem_region *regions = calloc(4, sizeof(*regions));
	struct done d1 = { 0 }, d2 = { 0 }, d3 = { 0 }, d4 = { 0 };
	uint32_t l, r_user, r_pool, r_bounce;
	struct rblk_slot *s[8];

	env_init(8, 128u << 10, 0);	/* no in-capsule data: every command is keyed */
	regions[0] = region;
	C.regions = regions;
	C.regions_cap = 4;
	rblk_mem_attach(&C, pd1);
	CU_ASSERT_PTR_EQUAL(C.pd, pd1);
	CU_ASSERT_EQUAL_FATAL(rblk_mem_register(&C, user, 64u << 10), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_mem_register(&C, gone, 64u << 10), 0);
	on_pool.buf = regbuf;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &on_user, cb, &d1), 0);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &on_pool, cb, &d2), 0);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &on_gone, cb, &d3), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_mem_lookup(&C, user, 4096, &l, &r_user), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_mem_lookup(&C, regbuf, 4096, &l, &r_pool), 0);
	CU_ASSERT_EQUAL(sgl_key(Q.hq.queued_head), r_user);
	CU_ASSERT_EQUAL(sgl_key(Q.hq.queued_head->next), r_pool);

	/* The device goes: nothing is registered, the memory stays. */
	CU_ASSERT_PTR_EQUAL(rblk_mem_detach(&C), pd1);
	CU_ASSERT_PTR_NULL(C.pd);
	rblk_hq_release_device(&Q.hq);
	CU_ASSERT_EQUAL(rblk_mem_lookup(&C, user, 4096, &l, &r_user), -ENOENT);
	CU_ASSERT_EQUAL(rblk_mem_lookup(&C, regbuf, 4096, &l, &r_pool), -ENOENT);
	/* Submitted in the gap: bounced, through a pool that is not registered yet. */
	CU_ASSERT_EQUAL(rblk_submit(&Q, &in_gap, cb, &d4), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(Q.hq.bounce);
	CU_ASSERT_FALSE(rblk_mr_pool_registered(Q.hq.bounce));
	/* The caller lets go of memory a queued request still uses. */
	CU_ASSERT_EQUAL(rblk_mem_unregister(&C, gone), 0);

	/* A new device: the same memory registered with new keys, the queue rekeyed. */
	rblk_mem_attach(&C, pd2);
	CU_ASSERT_EQUAL(rblk_mr_pool_rereg(Q.hq.bounce, pd2), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_mem_lookup(&C, user, 4096, &l, &r_user), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_mem_lookup(&C, regbuf, 4096, &l, &r_pool), 0);
	r_bounce = rblk_mr_pool_rkey(Q.hq.bounce);
	CU_ASSERT_NOT_EQUAL(r_bounce, 0);
	pthread_mutex_lock(&Q.hq.lock);
	rblk_hq_rekey(&Q.hq);
	pthread_mutex_unlock(&Q.hq.lock);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 8), 3);
	CU_ASSERT_EQUAL(sgl_key(s[0]), r_user);
	CU_ASSERT_EQUAL(rblk_get_le64(sgl(s[0])), (uintptr_t)user);
	CU_ASSERT_EQUAL(sgl_key(s[1]), r_pool);
	CU_ASSERT_EQUAL(sgl_key(s[2]), r_bounce);
	CU_ASSERT_EQUAL(rblk_get_le64(sgl(s[2])), (uintptr_t)s[2]->bounce);
	CU_ASSERT_EQUAL(rblk_get_le24(sgl(s[2]) + 8), 64u << 10);
	/* The one on unregistered memory failed at the rekey; the rest complete. */
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(d3.calls, 1);
	CU_ASSERT_EQUAL(d3.err, -EIO);
	for (unsigned k = 0; k < 3; k++)
		complete(s[k], 0);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 3);
	CU_ASSERT_EQUAL(d1.calls + d2.calls + d4.calls, 3);
	CU_ASSERT_EQUAL(d1.err + d2.err + d4.err, 0);
	CU_ASSERT_EQUAL(rblk_slots_busy(&Q.hq.slots), 0);

	CU_ASSERT_EQUAL(rblk_mem_unregister(&C, user), 0);
	CU_ASSERT_EQUAL(C.nregions, 1);
	C.regions = &region;
	C.regions_cap = 1;
	region = regions[0];
	free(regions);
	free(user);
	free(gone);
	env_fini();
}

static void test_record(void)
{
	struct rblk_io io;
	struct rblk_io_priv *p = rblk_io_priv(&io);

	memset(&io, 0, sizeof(io));
	p->total = 10;
	p->issued = 4;
	p->outstanding = 2;
	CU_ASSERT_FALSE(rblk_io_record(&io, 0, 0));
	CU_ASSERT_FALSE(rblk_io_record(&io, 0, 0));	/* 6 blocks still to issue */
	p->issued = 10;
	p->outstanding = 2;
	CU_ASSERT_FALSE(rblk_io_record(&io, 0, -EIO));
	CU_ASSERT_TRUE(rblk_io_record(&io, 0x81, 0));
	CU_ASSERT_EQUAL(p->err, -EIO);
	CU_ASSERT_EQUAL(p->status, 0);
}

/* A live queue whose CQ is the scripted one above. */
static void live_with_cq(void)
{
	memset(&F, 0, sizeof(F));
	Q.hq.cq = (struct rblk_cq *)&F;
	Q.hq.state = RBLK_HQ_LIVE;
}

/*
 * By default the first empty poll of an idle spell arms the CQ, so a caller
 * may sleep on the fd after any poll that returned 0. A lazy qpair's polls
 * never arm: a spinner that finds its completions makes no system call;
 * rblk_qpair_prepare_sleep() arms once, and again only after a wakeup.
 */
static void test_lazy_arm(void)
{
	env_init(8, 128u << 10, 8192);
	live_with_cq();
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 0);
	CU_ASSERT_EQUAL(F.notify_calls, 1);
	CU_ASSERT_TRUE(Q.hq.cq_armed);
	env_fini();

	env_init(8, 128u << 10, 8192);
	live_with_cq();
	rblk_qpair_set_lazy_arm(&Q, true);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 0);
	CU_ASSERT_EQUAL(F.notify_calls, 0);
	CU_ASSERT_EQUAL(F.event_calls, 0);
	CU_ASSERT_FALSE(Q.hq.cq_armed);
	CU_ASSERT_EQUAL(rblk_qpair_prepare_sleep(&Q), 0);
	CU_ASSERT_EQUAL(F.notify_calls, 1);
	CU_ASSERT_TRUE(Q.hq.cq_armed);
	CU_ASSERT_EQUAL(rblk_qpair_prepare_sleep(&Q), 0);	/* still armed: free */
	CU_ASSERT_EQUAL(F.notify_calls, 1);
	env_fini();
}

/*
 * A request that completes between the caller's last poll and its arm
 * raises no wakeup: rblk_qpair_prepare_sleep() finds it after arming and
 * says "poll", and the next poll delivers it.
 */
static void test_prepare_sleep_finds_completion(void)
{
	struct rblk_io io = { .op = RBLK_OP_READ, .ns = &NS, .lba = 0, .nlb = 8 };
	struct rblk_slot *s[2];
	struct done d = { 0 };

	env_init(8, 128u << 10, 8192);
	io.buf = regbuf;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 2), 1);
	live_with_cq();
	rblk_qpair_set_lazy_arm(&Q, true);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 0);
	nvme_cqe_build(&Q.hq.rsps[0], s[0]->sqe->cid, 0, 0, 0, 1, 1);
	F.wc[0] = (struct rblk_wc){ .wr_id = rblk_hq_wr_id(&Q.hq, true, 0),
				    .status = RBLK_WC_SUCCESS, .opcode = RBLK_WC_RECV, .byte_len = 16 };
	F.wc[1] = (struct rblk_wc){ .wr_id = rblk_hq_wr_id(&Q.hq, false, s[0]->index),
				    .status = RBLK_WC_SUCCESS, .opcode = RBLK_WC_SEND };
	F.nwc = 2;
	F.after_arm = true;	/* it lands just as the caller arms */
	CU_ASSERT_EQUAL(rblk_qpair_prepare_sleep(&Q), 1);
	CU_ASSERT_EQUAL(F.notify_calls, 1);
	CU_ASSERT_EQUAL(d.calls, 0);	/* callbacks run in rblk_poll() only */
	CU_ASSERT_EQUAL(rblk_qpair_prepare_sleep(&Q), 1);	/* still undelivered */
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, 0);
	env_fini();
}


/* Compare carries the expected data like a Write; Verify moves none and splits at NLB. */
static void test_compare_and_verify(void)
{
	uint8_t buf[4096];
	struct rblk_io cmp = { .op = RBLK_OP_COMPARE, .ns = &NS, .lba = 3, .nlb = 8, .buf = buf };
	struct rblk_io ver = { .op = RBLK_OP_VERIFY, .ns = &NS, .lba = 9, .nlb = 70000 };
	struct rblk_slot *s[4];
	struct done d = { 0 }, dv = { 0 };

	env_init(8, 128u << 10, 8192);
	memset(buf, 0xC3, sizeof(buf));
	CU_ASSERT_EQUAL(rblk_submit(&Q, &cmp, cb, &d), 0);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &ver, cb, &dv), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 4), 3);
	CU_ASSERT_EQUAL(s[0]->sqe->opc, 0x05);
	CU_ASSERT_EQUAL(s[0]->sqe->flags, 0x40);
	CU_ASSERT_EQUAL(rblk_le64(((struct nvme_rw_cmd *)s[0]->sqe)->slba), 3);
	CU_ASSERT_EQUAL(rblk_le16(((struct nvme_rw_cmd *)s[0]->sqe)->nlb), 7);
	CU_ASSERT_EQUAL(sgl(s[0])[15], 0x01);	/* to the controller: in-capsule */
	CU_ASSERT_EQUAL(s[0]->ic_len, 4096);
	CU_ASSERT_EQUAL(memcmp(s[0]->data, buf, 4096), 0);
	CU_ASSERT_EQUAL(s[1]->sqe->opc, 0x0C);
	CU_ASSERT_EQUAL(rblk_le16(((struct nvme_rw_cmd *)s[1]->sqe)->nlb), 65535);
	CU_ASSERT_EQUAL(rblk_le64(((struct nvme_rw_cmd *)s[2]->sqe)->slba), 9 + 65536);
	CU_ASSERT_EQUAL(rblk_le16(((struct nvme_rw_cmd *)s[2]->sqe)->nlb), 70000 - 65536 - 1);
	CU_ASSERT_EQUAL(rblk_get_le24(sgl(s[1]) + 8), 0);
	complete(s[0], NVME_SC_COMPARE_FAILED | NVME_SC_DNR);
	complete(s[1], 0);
	complete(s[2], 0);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 2);
	CU_ASSERT_EQUAL(d.status, NVME_SC_COMPARE_FAILED | NVME_SC_DNR);
	CU_ASSERT_EQUAL(dv.calls, 1);
	CU_ASSERT_EQUAL(dv.status, 0);

	/* A controller that does not report them is not sent them. */
	ID.oncs = 0;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &cmp, cb, &d), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &ver, cb, &d), -EOPNOTSUPP);
	env_fini();
}

/*
 * Compare and Write: two commands back to back, FUSE 01b then 10b, each
 * with its half of the data; the Compare's status is the request's whatever
 * order the two answers come in.
 */
static void test_compare_write_fused(void)
{
	uint8_t expect[4096], data[4096];
	struct iovec iov[2] = { { expect, sizeof(expect) }, { data, sizeof(data) } };
	struct rblk_io io = { .op = RBLK_OP_COMPARE_WRITE, .ns = &NS, .lba = 77, .nlb = 8,
			      .iov = iov, .iovcnt = 2 };
	struct rblk_slot *s[4];
	struct done d = { 0 };

	env_init(8, 128u << 10, 8192);
	memset(expect, 0x11, sizeof(expect));
	memset(data, 0x22, sizeof(data));
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 4), 2);
	CU_ASSERT_EQUAL(s[0]->sqe->opc, 0x05);
	CU_ASSERT_EQUAL(s[0]->sqe->flags, 0x41);
	CU_ASSERT_EQUAL(s[1]->sqe->opc, 0x01);
	CU_ASSERT_EQUAL(s[1]->sqe->flags, 0x42);
	CU_ASSERT_EQUAL(rblk_le64(((struct nvme_rw_cmd *)s[1]->sqe)->slba), 77);
	CU_ASSERT_EQUAL(rblk_le16(((struct nvme_rw_cmd *)s[1]->sqe)->nlb), 7);
	CU_ASSERT_EQUAL(memcmp(s[0]->data, expect, 4096), 0);
	CU_ASSERT_EQUAL(memcmp(s[1]->data, data, 4096), 0);
	complete(s[1], NVME_SC_FUSED_FAIL);
	complete(s[0], NVME_SC_COMPARE_FAILED | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, NVME_SC_COMPARE_FAILED | NVME_SC_DNR);

	/* Lost in flight: failed, never sent again (the Write may have happened). */
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 4), 2);
	rblk_hq_teardown(&Q.hq, true);
	CU_ASSERT_PTR_NULL(Q.hq.queued_head);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(d.err, -ENOTCONN);
	CU_ASSERT_EQUAL(rblk_slots_busy(&Q.hq.slots), 0);

	/* Never split: more than one command's worth is refused. */
	io.nlb = 257;
	iov[0].iov_len = iov[1].iov_len = 257 * 512;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), -EINVAL);
	io.nlb = 8;
	iov[0].iov_len = iov[1].iov_len = 4096;
	io.ns = &NS_RO;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), -EROFS);
	io.ns = &NS;
	ID.fuses = 0;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), -EOPNOTSUPP);
	env_fini();
}

/* Both halves or neither: with one slot free the pair waits as the pending request. */
static void test_compare_write_waits_for_two_slots(void)
{
	struct rblk_io fl = { .op = RBLK_OP_FLUSH, .ns = &NS };
	struct rblk_io cw = { .op = RBLK_OP_COMPARE_WRITE, .ns = &NS, .lba = 0, .nlb = 1 };
	struct rblk_slot *s[4];
	struct done d = { 0 }, dc = { 0 };

	env_init(2, 128u << 10, 8192);
	cw.buf = regbuf;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &fl, cb, &d), 0);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &cw, cb, &dc), 0);
	CU_ASSERT_PTR_EQUAL(Q.pending, &cw);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 4), 1);
	complete(s[0], 0);
	Q.hq.state = RBLK_HQ_LIVE;	/* a queue that is down issues nothing */
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	Q.hq.state = RBLK_HQ_DOWN;
	CU_ASSERT_PTR_NULL(Q.pending);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 4), 2);
	CU_ASSERT_EQUAL(s[0]->sqe->flags, 0x41);
	CU_ASSERT_EQUAL(s[1]->sqe->flags, 0x42);
	/* Registered: each half keyed or in-capsule straight from the caller's buffer. */
	CU_ASSERT_EQUAL(s[0]->ic_addr, (uintptr_t)regbuf);
	CU_ASSERT_EQUAL(s[1]->ic_addr, (uintptr_t)regbuf + 512);
	complete(s[0], 0);
	complete(s[1], 0);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);
	CU_ASSERT_EQUAL(dc.status, 0);
	env_fini();
}

static void test_copy(void)
{
	struct rblk_copy_range r[3] = { { 10, 1 }, { 100, 65536 }, { 7, 8 } };
	struct rblk_io io = { .op = RBLK_OP_COPY, .ns = &NS, .lba = 5000, .nlb = 3, .buf = r };
	struct rblk_slot *s[2];
	struct done d = { 0 };
	const uint8_t *e;

	env_init(8, 128u << 10, 8192);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 2), 1);
	CU_ASSERT_EQUAL(s[0]->sqe->opc, 0x19);
	CU_ASSERT_EQUAL(rblk_le64(((struct nvme_copy_cmd *)s[0]->sqe)->sdlba), 5000);
	CU_ASSERT_EQUAL(rblk_le32(((struct nvme_copy_cmd *)s[0]->sqe)->cdw12), 2);	/* NR 0-based, format 0 */
	CU_ASSERT_EQUAL(rblk_get_le32(sgl(s[0]) + 8), 96);
	e = s[0]->data;
	CU_ASSERT_EQUAL(rblk_get_le64(e + 8), 10);
	CU_ASSERT_EQUAL(rblk_get_le16(e + 16), 0);
	CU_ASSERT_EQUAL(rblk_get_le64(e + 32 + 8), 100);
	CU_ASSERT_EQUAL(rblk_get_le16(e + 32 + 16), 65535);
	CU_ASSERT_EQUAL(rblk_get_le64(e + 64 + 8), 7);
	complete(s[0], 0);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 1);

	/* Bad ranges, too many ranges (the namespace's MSRC), read-only: refused here. */
	r[1].nlb = 0;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), -EINVAL);
	r[1].nlb = 65537;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), -EINVAL);
	r[1].nlb = 1;
	ID_NS.msrc = 1;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), -EINVAL);
	ID_NS.msrc = 127;
	io.ns = &NS_RO;
	NS_RO.id = &ID_NS;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io, cb, &d), -EROFS);
	env_fini();
}

/* A caller-built command: opcode and CDWs as given, the rest the library's. */
static void test_raw_cmd(void)
{
	uint8_t key[16], report[24];
	struct rblk_cmd reg = { .data = key, .len = sizeof(key) };
	struct rblk_cmd rep = { .data = report, .len = sizeof(report) };
	struct rblk_io io1 = { .op = RBLK_OP_CMD, .ns = &NS_RO, .buf = &reg };
	struct rblk_io io2 = { .op = RBLK_OP_CMD, .ns = &NS, .buf = &rep };
	struct nvme_sqe *sqe = (struct nvme_sqe *)reg.sqe;
	struct rblk_slot *s[2];
	struct done d = { 0 };

	env_init(8, 128u << 10, 8192);
	memset(key, 0xAB, sizeof(key));
	sqe->opc = 0x0D;		/* Reservation Register */
	sqe->flags = 0x03;		/* a caller's FUSE bits are not sent */
	sqe->nsid = rblk_cpu_to_le32(99);
	sqe->cdw10 = rblk_cpu_to_le32(3u << 30);
	sqe->cdw15 = rblk_cpu_to_le32(0x1234);
	sqe = (struct nvme_sqe *)rep.sqe;
	sqe->opc = 0x0E;		/* Reservation Report */
	sqe->cdw10 = rblk_cpu_to_le32(sizeof(report) / 4 - 1);
	/* Not a write: a read-only namespace takes it (the target judges). */
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io1, cb, &d), 0);
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io2, cb, &d), 0);
	CU_ASSERT_EQUAL_FATAL(arm_queued(s, 2), 2);
	CU_ASSERT_EQUAL(s[0]->sqe->opc, 0x0D);
	CU_ASSERT_EQUAL(s[0]->sqe->flags, 0x40);
	CU_ASSERT_EQUAL(rblk_le32(s[0]->sqe->nsid), 1);
	CU_ASSERT_EQUAL(rblk_le32(s[0]->sqe->cdw10), 3u << 30);
	CU_ASSERT_EQUAL(rblk_le32(s[0]->sqe->cdw15), 0x1234);
	CU_ASSERT_EQUAL(sgl(s[0])[15], 0x01);
	CU_ASSERT_EQUAL(memcmp(s[0]->data, key, sizeof(key)), 0);
	CU_ASSERT_EQUAL(s[1]->sqe->opc, 0x0E);
	CU_ASSERT_EQUAL(sgl(s[1])[15], 0x40);	/* from the controller: keyed */
	CU_ASSERT_EQUAL(rblk_get_le24(sgl(s[1]) + 8), sizeof(report));
	memset(s[1]->data, 0x5C, sizeof(report));
	feed_rsp_dw0(rblk_le16(s[0]->sqe->cid), 0, 0xfeedu);
	feed_send(s[0]);
	complete(s[1], 0);
	CU_ASSERT_EQUAL(rblk_poll(&Q, 0), 2);
	CU_ASSERT_EQUAL(reg.dw0, 0xfeedu);
	CU_ASSERT_EQUAL(report[0], 0x5C);
	CU_ASSERT_EQUAL(report[23], 0x5C);

	/* Fabrics opcodes, data both ways, data with no direction, too much: refused. */
	((struct nvme_sqe *)reg.sqe)->opc = 0x7F;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io1, cb, &d), -EINVAL);
	((struct nvme_sqe *)reg.sqe)->opc = 0x03;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io1, cb, &d), -EINVAL);
	((struct nvme_sqe *)reg.sqe)->opc = 0x00;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io1, cb, &d), -EINVAL);
	((struct nvme_sqe *)reg.sqe)->opc = 0x0D;
	reg.len = (128u << 10) + 1;
	CU_ASSERT_EQUAL(rblk_submit(&Q, &io1, cb, &d), -EINVAL);
	env_fini();
}

static const struct ut_case cases[] = {
	UT_CASE(test_split_registered),
	UT_CASE(test_incapsule_registered),
	UT_CASE(test_unregistered_read_copies_back),
	UT_CASE(test_unregistered_bounce),
	UT_CASE(test_iov_gather),
	UT_CASE(test_dsm_and_write_zeroes),
	UT_CASE(test_first_error_once),
	UT_CASE(test_pending_and_eagain),
	UT_CASE(test_bogus_and_stale_completions),
	UT_CASE(test_teardown_requeues),
	UT_CASE(test_fast_io_fail),
	UT_CASE(test_teardown_order),
	UT_CASE(test_io_timeout),
	UT_CASE(test_submit_validation),
	UT_CASE(test_poll_lost_with_requests_owned),
	UT_CASE(test_mem_lookup),
	UT_CASE(test_device_change_rekeys),
	UT_CASE(test_record),
	UT_CASE(test_lazy_arm),
	UT_CASE(test_prepare_sleep_finds_completion),
	UT_CASE(test_compare_and_verify),
	UT_CASE(test_compare_write_fused),
	UT_CASE(test_compare_write_waits_for_two_slots),
	UT_CASE(test_copy),
	UT_CASE(test_raw_cmd),
	UT_END,
};

UT_MAIN("initiator/io", cases)

/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/rdma/req.c: the per-request state machine stepped one
 * transition at a time over a fake QP and pool (tests/unit/target/rdma/fake.c) with the real
 * target core and a RAM namespace: the admin Connect's keyed data pulled by
 * RDMA READ, in-capsule writes, reads answered by RDMA WRITE chained before
 * the response SEND, SEND_WITH_INV only for 0x4F, several units per request,
 * waiting for pool units / read depth / send slots, early capsules, length
 * errors, quiet flushes at teardown, a failed post, and what a hostile host
 * causes: receives in error or too short, a failed RDMA READ.
 */
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "fake.h"
#include "ut.h"

static struct tt_env *env;
static struct rblk_pg_dev *dev;
static uint32_t nsid;
static unsigned errors_logged;
static char last_error[512];

static void count_errors(enum rblk_log_level level, const char *msg, void *arg)
{
	(void)arg;
	if (level <= RBLK_LOG_ERR) {
		errors_logged++;
		snprintf(last_error, sizeof(last_error), "%s", msg);
	}
}

static void setup(size_t unit, uint32_t units)
{
	env = tt_env_create(NULL, 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tt_add_subsys(env, TT_SUBNQN, "mem:4M", &nsid));
	dev = fake_dev_create(unit, units, true);
	fake_fail_calls = 0;
	errors_logged = 0;
	last_error[0] = '\0';
	rblk_log_set_handler(count_errors, NULL);
}

static void teardown(void)
{
	rblk_log_set_handler(NULL, NULL);
	tt_env_destroy(env);
	fake_dev_destroy(dev);
	env = NULL;
	dev = NULL;
}

static const struct fake_q_opts admin_opts = {
	.qid = 0, .depth = 32, .icd_size = 0, .send_wr = 64, .max_sge = 4, .ird = 8, .live = true,
};

/* The last posted WR, and the CQE its request sent. */
static struct fake_wr *last_posted(struct rblk_rdma_queue *q)
{
	return q->qp->nposted ? &q->qp->posted[q->qp->nposted - 1] : NULL;
}

static uint16_t sent_status(struct rblk_rdma_req *r)
{
	return nvme_cqe_status(r->rsp);
}

/* An admin queue (rdma) bound to a new controller, enabled; returns its cntlid. */
static uint16_t admin_bringup(struct tt_queue **tq)
{
	uint16_t cntlid;

	*tq = tt_queue_create(env, 0, 32);
	cntlid = tt_admin_bringup(*tq, TT_SUBNQN, TT_HOSTNQN, 0);
	CU_ASSERT_NOT_EQUAL_FATAL(cntlid, 0);
	return cntlid;
}

/* An I/O queue connected through in-capsule Connect data. */
static struct rblk_rdma_queue *io_queue(uint16_t cntlid, const struct fake_q_opts *o)
{
	struct rblk_rdma_queue *q = fq_create(env, dev, o);
	struct nvmf_connect_data d;
	struct nvme_sqe sqe;
	struct fake_wr *w;

	fq_connect(&sqe, &d, o->qid, (uint16_t)(o->depth - 1), cntlid, env->hostid);
	fq_incapsule(&sqe, 0, sizeof(d));
	fq_send(q, &sqe, &d, sizeof(d));
	fq_pump(env, q);
	w = last_posted(q);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	/* In-capsule data has no key to invalidate: a plain SEND. */
	CU_ASSERT_EQUAL(w->wr.opcode, RBLK_WR_SEND);
	CU_ASSERT_EQUAL(sent_status(fq_wr_req(w)), 0);
	fq_complete_all(q);
	CU_ASSERT_EQUAL(q->sq.state, RBLK_SQ_LIVE);
	CU_ASSERT_EQUAL(q->reqs_busy, 0);
	return q;
}

static void fill(uint8_t *buf, size_t len, uint8_t seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(seed + i * 7 + (i >> 9));
}

/* ------------------------------------------------------------------------ */

static void test_admin_connect_stepwise(void)
{
	struct rblk_rdma_queue *q;
	struct nvmf_connect_data d;
	struct rblk_rdma_req *r;
	struct nvme_sqe sqe;
	struct fake_wr *w;

	setup(8192, 8);
	q = fq_create(env, dev, &admin_opts);
	/* Every receive is posted before anything else (before the accept). */
	CU_ASSERT_EQUAL(q->qp->nrposted, 32);
	CU_ASSERT_EQUAL(q->recv_posted, 32);

	/* The Linux host: admin Connect data by keyed SGL 0x4F (docs/interop.md §6.4). */
	fq_connect(&sqe, &d, 0, 31, 0xFFFF, env->hostid);
	fq_keyed(&sqe, 0x10000, sizeof(d), 0xABCD01, true);
	fq_send_nostep(q, &sqe, NULL, 0);
	CU_ASSERT_EQUAL(q->recv_posted, 31);
	r = fq_bind(q);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_NEW);

	CU_ASSERT_TRUE(rblk_rdma_req_step(r));
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_NEED_BUFFER);
	CU_ASSERT_EQUAL(r->req.data_len, 1024);
	CU_ASSERT_EQUAL(r->req.dir, RBLK_XFER_H2C);
	CU_ASSERT_EQUAL(r->sgl.kind, RBLK_SGL_KEYED_INV);

	CU_ASSERT_TRUE(rblk_rdma_req_step(r));
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_NEED_RDMA_READ);
	CU_ASSERT_EQUAL(r->req.iovcnt, 1);
	CU_ASSERT_EQUAL(r->req.iov[0].iov_len, 1024);
	CU_ASSERT_EQUAL(rblk_mr_pool_free_count(dev->pool), 7);
	/* One unit of a pool that is the backend's fixed buffers: its index. */
	CU_ASSERT_EQUAL(r->req.buf_index,
			(int)rblk_mr_pool_index(dev->pool, r->req.iov[0].iov_base));

	CU_ASSERT_TRUE(rblk_rdma_req_step(r));
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_TRANSFERRING_H2C);
	CU_ASSERT_EQUAL_FATAL(q->qp->nstaged, 1);
	w = &q->qp->staged[0];
	CU_ASSERT_EQUAL(w->wr.opcode, RBLK_WR_RDMA_READ);
	CU_ASSERT_EQUAL(w->wr.remote_addr, 0x10000);
	CU_ASSERT_EQUAL(w->wr.rkey, 0xABCD01);
	CU_ASSERT_TRUE(w->wr.flags & RBLK_SEND_SIGNALED);
	CU_ASSERT_EQUAL(w->wr.num_sge, 1);
	CU_ASSERT_EQUAL(w->sge[0].length, 1024);
	CU_ASSERT_EQUAL(w->sge[0].lkey, 0xD00D);
	CU_ASSERT_EQUAL(w->sge[0].addr, (uint64_t)(uintptr_t)r->req.iov[0].iov_base);
	/* Budgets debited before posting. */
	CU_ASSERT_EQUAL(q->reads_avail, 7);
	CU_ASSERT_EQUAL(q->send_slots, 63);
	CU_ASSERT_FALSE(rblk_rdma_req_step(r)); /* waits for the READ */

	rblk_rdma_queue_flush(q);
	CU_ASSERT_EQUAL(q->qp->nposted, 1);
	CU_ASSERT_EQUAL(q->signaled_inflight, 1);
	memcpy(r->req.iov[0].iov_base, &d, sizeof(d)); /* what the READ brought */
	fq_complete_nostep(r, RBLK_RDMA_WR_READ, RBLK_WC_SUCCESS);
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_READY_TO_EXECUTE);
	CU_ASSERT_EQUAL(q->reads_avail, 8);
	CU_ASSERT_EQUAL(q->send_slots, 64);
	CU_ASSERT_EQUAL(q->signaled_inflight, 0);

	/* Connect runs synchronously: the core's completion queues the response. */
	CU_ASSERT_TRUE(rblk_rdma_req_step(r));
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_READY_TO_COMPLETE);
	CU_ASSERT_EQUAL(nvme_cqe_status(&r->req.cqe), 0);
	CU_ASSERT_NOT_EQUAL(rblk_le32(r->req.cqe.dw0) & 0xFFFF, 0); /* the cntlid */

	CU_ASSERT_TRUE(rblk_rdma_req_step(r));
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_COMPLETING);
	/* The receive is reposted with the response (exactly once). */
	CU_ASSERT_EQUAL(q->qp->nrstaged, 1);
	CU_ASSERT_PTR_NULL(r->recv);
	CU_ASSERT_EQUAL_FATAL(q->qp->nstaged, 1);
	w = &q->qp->staged[0];
	CU_ASSERT_EQUAL(w->wr.opcode, RBLK_WR_SEND_WITH_INV);
	CU_ASSERT_EQUAL(w->wr.imm_or_inv_rkey, 0xABCD01);
	CU_ASSERT_TRUE(w->wr.flags & RBLK_SEND_SIGNALED);
	CU_ASSERT_EQUAL(w->sge[0].addr, (uint64_t)(uintptr_t)r->rsp);
	CU_ASSERT_EQUAL(w->sge[0].length, 16);
	CU_ASSERT_EQUAL(w->sge[0].lkey, 0x4E5);
	CU_ASSERT_EQUAL(memcmp(r->rsp, &r->req.cqe, 16), 0);
	CU_ASSERT_EQUAL(rblk_le16(r->rsp->cid), 0x4321);

	rblk_rdma_queue_flush(q);
	CU_ASSERT_EQUAL(q->recv_posted, 32);
	fq_complete(r, RBLK_RDMA_WR_SEND, RBLK_WC_SUCCESS);
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_FREE);
	CU_ASSERT_EQUAL(rblk_mr_pool_free_count(dev->pool), 8);
	CU_ASSERT_EQUAL(q->send_slots, 64);
	CU_ASSERT_EQUAL(q->reqs_busy, 0);
	CU_ASSERT_EQUAL(q->sq.state, RBLK_SQ_LIVE);
	CU_ASSERT_EQUAL(errors_logged, 0);
	fq_destroy(q);
	teardown();
}

static void test_read_write_chained_with_send(void)
{
	struct fake_q_opts o = { .qid = 1, .depth = 16, .icd_size = 8192, .send_wr = 64,
				 .max_sge = 4, .ird = 8, .live = true };
	uint8_t data[4096];
	struct rblk_rdma_queue *q;
	struct rblk_rdma_req *r;
	struct tt_queue *tq;
	struct nvme_sqe sqe;
	struct fake_wr *w;
	unsigned flushes, n;

	setup(8192, 8);
	q = io_queue(admin_bringup(&tq), &o);

	/* A 4 KiB write in-capsule: no READ, no pool unit. */
	fill(data, sizeof(data), 3);
	fq_rw(&sqe, NVME_IO_WRITE, 1, nsid, 8, 8);
	fq_incapsule(&sqe, 0, sizeof(data));
	fq_send(q, &sqe, data, sizeof(data));
	r = &q->reqs[0];
	for (unsigned i = 0; i < q->nreqs; i++)
		if (q->reqs[i].state != RBLK_RDMA_REQ_FREE)
			r = &q->reqs[i];
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_EXECUTING);
	CU_ASSERT_EQUAL(r->nunits, 0);
	CU_ASSERT_EQUAL(r->req.iov[0].iov_base, r->recv->icd);
	CU_ASSERT_EQUAL(rblk_mr_pool_free_count(dev->pool), 8);
	fq_pump(env, q);
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_COMPLETING);
	CU_ASSERT_EQUAL(sent_status(r), 0);
	fq_complete_all(q);

	/* Read it back: RDMA WRITE of the data, then the SEND, in one post. */
	fq_rw(&sqe, NVME_IO_READ, 2, nsid, 8, 8);
	fq_keyed(&sqe, 0x20000, sizeof(data), 0x77, false);
	flushes = q->qp->send_flushes;
	n = q->qp->nposted;
	fq_send(q, &sqe, NULL, 0);
	fq_pump(env, q);
	CU_ASSERT_EQUAL(q->qp->send_flushes, flushes + 1);
	CU_ASSERT_EQUAL_FATAL(q->qp->nposted, n + 2);
	w = &q->qp->posted[n];
	r = fq_wr_req(w);
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_COMPLETING);
	CU_ASSERT_EQUAL(w->wr.opcode, RBLK_WR_RDMA_WRITE);
	CU_ASSERT_FALSE(w->wr.flags & RBLK_SEND_SIGNALED);
	CU_ASSERT_EQUAL(w->wr.remote_addr, 0x20000);
	CU_ASSERT_EQUAL(w->wr.rkey, 0x77);
	CU_ASSERT_EQUAL(w->wr.num_sge, 1);
	CU_ASSERT_EQUAL(w->sge[0].length, 4096);
	CU_ASSERT_EQUAL(memcmp((void *)(uintptr_t)w->sge[0].addr, data, sizeof(data)), 0);
	w++;
	CU_ASSERT_EQUAL(w->wr.opcode, RBLK_WR_SEND); /* 0x40: no invalidation */
	CU_ASSERT_TRUE(w->wr.flags & RBLK_SEND_SIGNALED);
	CU_ASSERT_PTR_EQUAL(fq_wr_req(w), r);
	CU_ASSERT_EQUAL(q->send_slots, 62);
	CU_ASSERT_EQUAL(sent_status(r), 0);
	/* Only the response's completion is due, and nobody waits for it. */
	CU_ASSERT_EQUAL(q->signaled_inflight, 1);
	CU_ASSERT_FALSE(rblk_rdma_queue_send_awaited(q));
	fq_complete_all(q);
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_FREE);
	CU_ASSERT_EQUAL(q->send_slots, 64);
	CU_ASSERT_EQUAL(rblk_mr_pool_free_count(dev->pool), 8);
	CU_ASSERT_EQUAL(q->stats.bytes_c2h, 4096);
	CU_ASSERT_EQUAL(q->stats.bytes_h2c, 4096 + 1024);

	fq_destroy(q);
	tt_queue_destroy(tq);
	teardown();
}

static void test_send_with_invalidate_only_for_0x4f(void)
{
	struct fake_q_opts o = { .qid = 1, .depth = 16, .icd_size = 8192, .send_wr = 64,
				 .max_sge = 4, .ird = 8, .live = true };
	struct rblk_rdma_queue *q;
	struct tt_queue *tq;
	struct nvme_sqe sqe;
	struct fake_wr *w;
	unsigned n;

	setup(8192, 8);
	q = io_queue(admin_bringup(&tq), &o);

	fq_rw(&sqe, NVME_IO_READ, 5, nsid, 0, 8);
	fq_keyed(&sqe, 0x30000, 4096, 0x5A5A01, true);
	n = q->qp->nposted;
	fq_send(q, &sqe, NULL, 0);
	fq_pump(env, q);
	CU_ASSERT_EQUAL_FATAL(q->qp->nposted, n + 2);
	w = &q->qp->posted[n + 1];
	CU_ASSERT_EQUAL(q->qp->posted[n].wr.opcode, RBLK_WR_RDMA_WRITE);
	CU_ASSERT_EQUAL(w->wr.opcode, RBLK_WR_SEND_WITH_INV);
	CU_ASSERT_EQUAL(w->wr.imm_or_inv_rkey, 0x5A5A01);
	fq_complete_all(q);

	/*
	 * A command the core refuses at parse time (past the end) gets a plain
	 * SEND, as with nvmet: its SGL was never mapped; the host invalidates.
	 */
	fq_rw(&sqe, NVME_IO_READ, 6, nsid, 8191, 8); /* past the end of 4 MiB */
	fq_keyed(&sqe, 0x40000, 4096, 0x5A5A02, true);
	n = q->qp->nposted;
	fq_send(q, &sqe, NULL, 0);
	fq_pump(env, q);
	CU_ASSERT_EQUAL_FATAL(q->qp->nposted, n + 1);
	w = &q->qp->posted[n];
	CU_ASSERT_EQUAL(w->wr.opcode, RBLK_WR_SEND);
	CU_ASSERT_EQUAL(TT_SC(sent_status(fq_wr_req(w))), NVME_SC_LBA_RANGE | NVME_SC_DNR);
	fq_complete_all(q);

	fq_destroy(q);
	tt_queue_destroy(tq);
	teardown();
}

static void test_multi_unit_requests(void)
{
	/* 4 KiB units, 2 SGEs per WR: a 16 KiB I/O is 4 units over 2 WRs. */
	struct fake_q_opts o = { .qid = 1, .depth = 16, .icd_size = 8192, .send_wr = 64,
				 .max_sge = 2, .ird = 8, .live = true };
	static uint8_t data[16384];
	struct rblk_rdma_queue *q;
	struct rblk_rdma_req *r;
	struct tt_queue *tq;
	struct nvme_sqe sqe;
	struct fake_wr *w;
	unsigned n;

	setup(4096, 8);
	q = io_queue(admin_bringup(&tq), &o);
	CU_ASSERT_EQUAL(q->reqs_busy, 0);

	/* Write 16 KiB through keyed SGL: two RDMA READs of 2 units each. */
	fill(data, sizeof(data), 9);
	fq_rw(&sqe, NVME_IO_WRITE, 7, nsid, 64, 32);
	fq_keyed(&sqe, 0x100000, sizeof(data), 0x99, false);
	n = q->qp->nposted;
	fq_send(q, &sqe, NULL, 0);
	fq_pump(env, q);
	CU_ASSERT_EQUAL_FATAL(q->qp->nposted, n + 2);
	r = fq_wr_req(&q->qp->posted[n]);
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_TRANSFERRING_H2C);
	CU_ASSERT_EQUAL(r->nunits, 4);
	CU_ASSERT_EQUAL(r->req.buf_index, -1); /* several units: no fixed buffer */
	CU_ASSERT_EQUAL(r->reads_inflight, 2);
	CU_ASSERT_EQUAL(q->reads_avail, 6);
	for (int k = 0; k < 2; k++) {
		w = &q->qp->posted[n + k];
		CU_ASSERT_EQUAL(w->wr.opcode, RBLK_WR_RDMA_READ);
		CU_ASSERT_TRUE(w->wr.flags & RBLK_SEND_SIGNALED);
		CU_ASSERT_EQUAL(w->wr.num_sge, 2);
		CU_ASSERT_EQUAL(w->wr.remote_addr, 0x100000u + (uint64_t)k * 8192);
		CU_ASSERT_EQUAL(w->sge[0].length + w->sge[1].length, 8192);
		/* The READ lands in the units. */
		memcpy((void *)(uintptr_t)w->sge[0].addr, data + k * 8192, 4096);
		memcpy((void *)(uintptr_t)w->sge[1].addr, data + k * 8192 + 4096, 4096);
	}
	fq_complete(r, RBLK_RDMA_WR_READ, RBLK_WC_SUCCESS);
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_TRANSFERRING_H2C); /* one READ left */
	fq_complete(r, RBLK_RDMA_WR_READ, RBLK_WC_SUCCESS);
	CU_ASSERT_EQUAL(q->reads_avail, 8);
	fq_pump(env, q);
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_COMPLETING);
	CU_ASSERT_EQUAL(sent_status(r), 0);
	fq_complete_all(q);

	/* Read 12 KiB of it back: 3 units -> WRITE (2 SGEs) + WRITE (1 SGE) + SEND. */
	fq_rw(&sqe, NVME_IO_READ, 8, nsid, 64, 24);
	fq_keyed(&sqe, 0x200000, 12288, 0x98, false);
	n = q->qp->nposted;
	fq_send(q, &sqe, NULL, 0);
	fq_pump(env, q);
	CU_ASSERT_EQUAL_FATAL(q->qp->nposted, n + 3);
	w = &q->qp->posted[n];
	CU_ASSERT_EQUAL(w[0].wr.opcode, RBLK_WR_RDMA_WRITE);
	CU_ASSERT_EQUAL(w[0].wr.num_sge, 2);
	CU_ASSERT_EQUAL(w[0].wr.remote_addr, 0x200000);
	CU_ASSERT_EQUAL(w[1].wr.opcode, RBLK_WR_RDMA_WRITE);
	CU_ASSERT_EQUAL(w[1].wr.num_sge, 1);
	CU_ASSERT_EQUAL(w[1].wr.remote_addr, 0x200000 + 8192);
	CU_ASSERT_EQUAL(w[2].wr.opcode, RBLK_WR_SEND);
	CU_ASSERT_EQUAL(memcmp((void *)(uintptr_t)w[0].sge[0].addr, data, 4096), 0);
	CU_ASSERT_EQUAL(memcmp((void *)(uintptr_t)w[0].sge[1].addr, data + 4096, 4096), 0);
	CU_ASSERT_EQUAL(memcmp((void *)(uintptr_t)w[1].sge[0].addr, data + 8192, 4096), 0);
	CU_ASSERT_EQUAL(q->send_slots, 61);
	fq_complete_all(q);
	CU_ASSERT_EQUAL(q->send_slots, 64);
	CU_ASSERT_EQUAL(rblk_mr_pool_free_count(dev->pool), 8);

	fq_destroy(q);
	tt_queue_destroy(tq);
	teardown();
}

static void test_read_depth_queueing(void)
{
	struct fake_q_opts o = { .qid = 1, .depth = 16, .icd_size = 8192, .send_wr = 64,
				 .max_sge = 4, .ird = 1, .live = true };
	struct rblk_rdma_queue *q;
	struct rblk_rdma_req *a, *b;
	struct tt_queue *tq;
	struct nvme_sqe sqe;
	unsigned n;

	setup(8192, 8);
	q = io_queue(admin_bringup(&tq), &o);
	n = q->qp->nposted;
	fq_rw(&sqe, NVME_IO_WRITE, 10, nsid, 0, 8);
	fq_keyed(&sqe, 0x1000, 4096, 0x11, false);
	fq_send(q, &sqe, NULL, 0);
	fq_rw(&sqe, NVME_IO_WRITE, 11, nsid, 8, 8);
	fq_keyed(&sqe, 0x2000, 4096, 0x12, false);
	fq_send(q, &sqe, NULL, 0);
	fq_pump(env, q);
	/* Read depth 1: one READ posted, the other request waits its turn. */
	CU_ASSERT_EQUAL_FATAL(q->qp->nposted, n + 1);
	a = fq_wr_req(&q->qp->posted[n]);
	CU_ASSERT_EQUAL(q->reads_avail, 0);
	b = TAILQ_FIRST(&q->pending_read);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->state, RBLK_RDMA_REQ_NEED_RDMA_READ);
	CU_ASSERT_EQUAL(b->nunits, 1); /* it has its buffer already */
	CU_ASSERT_EQUAL(rblk_le16(b->req.cmd->cid), 11);
	/* A READ is in flight (and b waits for its credit): its completion must wake. */
	CU_ASSERT_TRUE(rblk_rdma_queue_send_awaited(q));

	fq_complete(a, RBLK_RDMA_WR_READ, RBLK_WC_SUCCESS);
	fq_pump(env, q);
	CU_ASSERT_TRUE(TAILQ_EMPTY(&q->pending_read));
	CU_ASSERT_EQUAL(b->state, RBLK_RDMA_REQ_TRANSFERRING_H2C);
	CU_ASSERT_EQUAL_FATAL(q->qp->nposted, n + 3); /* a's SEND and b's READ */
	for (unsigned i = n + 1; i < n + 3; i++) {
		if (fq_wr_req(&q->qp->posted[i]) != b)
			continue;
		CU_ASSERT_EQUAL(q->qp->posted[i].wr.opcode, RBLK_WR_RDMA_READ);
		CU_ASSERT_EQUAL(q->qp->posted[i].wr.rkey, 0x12);
	}
	fq_complete_all(q);
	fq_pump(env, q);
	fq_complete_all(q);
	CU_ASSERT_EQUAL(q->reqs_busy, 0);
	CU_ASSERT_EQUAL(q->reads_avail, 1);
	CU_ASSERT_FALSE(rblk_rdma_queue_send_awaited(q));

	fq_destroy(q);
	tt_queue_destroy(tq);
	teardown();
}

static void test_pool_and_send_slot_waits(void)
{
	/* One pool unit; a send budget of one response chain (WRITE + SEND). */
	struct fake_q_opts o = { .qid = 1, .depth = 16, .icd_size = 8192, .send_wr = 2,
				 .max_sge = 4, .ird = 8, .live = true };
	struct rblk_rdma_queue *q;
	struct rblk_rdma_req *a, *b;
	struct tt_queue *tq;
	struct nvme_sqe sqe;
	unsigned n;

	setup(8192, 1);
	q = io_queue(admin_bringup(&tq), &o);
	n = q->qp->nposted;
	fq_rw(&sqe, NVME_IO_READ, 20, nsid, 0, 8);
	fq_keyed(&sqe, 0x1000, 4096, 0x21, false);
	fq_send(q, &sqe, NULL, 0);
	fq_rw(&sqe, NVME_IO_READ, 21, nsid, 8, 8);
	fq_keyed(&sqe, 0x2000, 4096, 0x22, false);
	fq_send(q, &sqe, NULL, 0);
	b = TAILQ_FIRST(&dev->pending_buf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->state, RBLK_RDMA_REQ_NEED_BUFFER);
	fq_pump(env, q);
	CU_ASSERT_EQUAL_FATAL(q->qp->nposted, n + 2);
	a = fq_wr_req(&q->qp->posted[n]);
	CU_ASSERT_PTR_NOT_EQUAL(a, b);
	CU_ASSERT_EQUAL(q->send_slots, 0);
	CU_ASSERT_EQUAL(b->state, RBLK_RDMA_REQ_NEED_BUFFER);

	/* The first response completes: unit and slots come back, b proceeds. */
	fq_complete_all(q);
	fq_pump(env, q);
	CU_ASSERT_EQUAL(b->state, RBLK_RDMA_REQ_COMPLETING);
	CU_ASSERT_EQUAL(q->qp->posted[n + 2].wr.rkey, 0x22);
	fq_complete_all(q);
	CU_ASSERT_EQUAL(q->reqs_busy, 0);

	fq_destroy(q);
	tt_queue_destroy(tq);
	teardown();
}

/* A request that waits for pool units too long fails, retryable, and is counted. */
static void test_buffer_wait_bound(void)
{
	struct fake_q_opts o = { .qid = 1, .depth = 16, .icd_size = 8192, .send_wr = 16,
				 .max_sge = 4, .ird = 8, .live = true };
	struct rblk_rdma_queue *q;
	struct rblk_rdma_req *b;
	struct tt_queue *tq;
	struct nvme_sqe sqe;
	uint64_t since;

	setup(8192, 1);
	q = io_queue(admin_bringup(&tq), &o);
	/* a holds the only unit until its response completes; b waits. */
	fq_rw(&sqe, NVME_IO_READ, 30, nsid, 0, 8);
	fq_keyed(&sqe, 0x1000, 4096, 0x21, false);
	fq_send(q, &sqe, NULL, 0);
	fq_rw(&sqe, NVME_IO_READ, 31, nsid, 8, 8);
	fq_keyed(&sqe, 0x2000, 4096, 0x22, false);
	fq_send(q, &sqe, NULL, 0);
	b = TAILQ_FIRST(&dev->pending_buf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	since = b->wait_since_ms;
	CU_ASSERT_NOT_EQUAL(since, 0);
	CU_ASSERT_EQUAL(atomic_load(&dev->pg->r.core.buf_waits), 1);
	/* Not yet. */
	rblk_rdma_dev_expire_waits(dev, since + RBLK_RDMA_BUF_WAIT_MS - 1);
	CU_ASSERT_EQUAL(b->state, RBLK_RDMA_REQ_NEED_BUFFER);
	/* Now: Internal Error without DNR, so the host retries; nothing was moved. */
	rblk_rdma_dev_expire_waits(dev, since + RBLK_RDMA_BUF_WAIT_MS);
	CU_ASSERT_TRUE(TAILQ_EMPTY(&dev->pending_buf));
	CU_ASSERT_EQUAL(atomic_load(&dev->pg->stats.buf_timeouts), 1);
	CU_ASSERT_EQUAL(TT_SC(nvme_cqe_status(&b->req.cqe)), NVME_SC_INTERNAL);
	CU_ASSERT_EQUAL(b->nunits, 0);
	fq_pump(env, q);
	fq_complete_all(q);
	fq_pump(env, q);
	fq_complete_all(q);
	CU_ASSERT_EQUAL(q->reqs_busy, 0);
	CU_ASSERT_EQUAL(rblk_mr_pool_free_count(dev->pool), 1);

	fq_destroy(q);
	tt_queue_destroy(tq);
	teardown();
}

static void test_send_slot_wait(void)
{
	struct fake_q_opts o = { .qid = 1, .depth = 16, .icd_size = 8192, .send_wr = 8,
				 .max_sge = 4, .ird = 8, .live = true };
	uint8_t data[512];
	struct rblk_rdma_queue *q;
	struct rblk_rdma_req *r;
	struct tt_queue *tq;
	struct nvme_sqe sqe;
	unsigned n;

	setup(8192, 8);
	q = io_queue(admin_bringup(&tq), &o);
	q->send_slots = 0; /* as if others' WRs filled the send queue */
	memset(data, 0x5C, sizeof(data));
	fq_rw(&sqe, NVME_IO_WRITE, 30, nsid, 0, 1);
	fq_incapsule(&sqe, 0, sizeof(data));
	n = q->qp->nposted;
	fq_send(q, &sqe, data, sizeof(data));
	fq_pump(env, q);
	r = TAILQ_FIRST(&q->pending_send);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_READY_TO_COMPLETE);
	CU_ASSERT_EQUAL(q->qp->nposted, n);
	/* Its receive went back already: the host may send the next command. */
	CU_ASSERT_PTR_NULL(r->recv);
	CU_ASSERT_EQUAL(q->recv_posted, 16);
	q->send_slots = 8;
	fq_pump(env, q);
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_COMPLETING);
	CU_ASSERT_EQUAL(q->qp->nposted, n + 1);
	fq_complete_all(q);
	fq_destroy(q);
	tt_queue_destroy(tq);
	teardown();
}

static void test_early_capsule_waits_for_established(void)
{
	struct fake_q_opts o = admin_opts;
	struct rblk_rdma_queue *q;
	struct nvmf_connect_data d;
	struct nvme_sqe sqe;

	setup(8192, 8);
	o.live = false;
	q = fq_create(env, dev, &o);
	CU_ASSERT_EQUAL(q->state, RBLK_RDMA_Q_CONNECTING);
	fq_connect(&sqe, &d, 0, 31, 0xFFFF, env->hostid);
	fq_keyed(&sqe, 0x10000, sizeof(d), 0x31, true);
	fq_send(q, &sqe, NULL, 0);
	/* Received before ESTABLISHED: held, no request started. */
	CU_ASSERT_EQUAL(q->reqs_busy, 0);
	CU_ASSERT_FALSE(STAILQ_EMPTY(&q->incoming));
	fq_pump(env, q);
	CU_ASSERT_EQUAL(q->reqs_busy, 0);
	q->state = RBLK_RDMA_Q_LIVE; /* ESTABLISHED */
	rblk_rdma_queue_kick(q);
	CU_ASSERT_TRUE(STAILQ_EMPTY(&q->incoming));
	CU_ASSERT_EQUAL(q->reqs_busy, 1);
	CU_ASSERT_EQUAL(q->reqs[0].state, RBLK_RDMA_REQ_TRANSFERRING_H2C);
	fq_destroy(q);
	teardown();
}

static void test_length_and_sgl_errors(void)
{
	struct fake_q_opts o = { .qid = 1, .depth = 16, .icd_size = 8192, .send_wr = 64,
				 .max_sge = 4, .ird = 8, .live = true };
	uint8_t data[1024] = { 0 };
	struct rblk_rdma_queue *q;
	struct tt_queue *tq;
	struct nvme_sqe sqe;
	struct fake_wr *w;
	unsigned n;

	setup(8192, 8);
	q = io_queue(admin_bringup(&tq), &o);

	/* Keyed length != (NLB + 1) x 512: Data SGL Length Invalid, no data moves. */
	fq_rw(&sqe, NVME_IO_READ, 40, nsid, 0, 8);
	fq_keyed(&sqe, 0x1000, 2048, 0x41, true);
	n = q->qp->nposted;
	fq_send(q, &sqe, NULL, 0);
	fq_pump(env, q);
	CU_ASSERT_EQUAL_FATAL(q->qp->nposted, n + 1);
	w = &q->qp->posted[n];
	CU_ASSERT_EQUAL(w->wr.opcode, RBLK_WR_SEND);
	CU_ASSERT_EQUAL(TT_SC(sent_status(fq_wr_req(w))), NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	fq_complete_all(q);

	/* In-capsule data on a read: Invalid Field. */
	fq_rw(&sqe, NVME_IO_READ, 41, nsid, 0, 2);
	fq_incapsule(&sqe, 0, 1024);
	n = q->qp->nposted;
	fq_send(q, &sqe, NULL, 0);
	fq_pump(env, q);
	CU_ASSERT_EQUAL_FATAL(q->qp->nposted, n + 1);
	CU_ASSERT_EQUAL(TT_SC(sent_status(fq_wr_req(&q->qp->posted[n]))),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	fq_complete_all(q);

	/* The SGL promises 2048 in-capsule bytes, the SEND carried 1024. */
	fq_rw(&sqe, NVME_IO_WRITE, 42, nsid, 0, 4);
	fq_incapsule(&sqe, 0, 2048);
	n = q->qp->nposted;
	fq_send(q, &sqe, data, sizeof(data));
	fq_pump(env, q);
	CU_ASSERT_EQUAL_FATAL(q->qp->nposted, n + 1);
	CU_ASSERT_EQUAL(TT_SC(sent_status(fq_wr_req(&q->qp->posted[n]))),
			NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	fq_complete_all(q);

	/* Past the in-capsule size: SGL Offset Invalid. */
	fq_rw(&sqe, NVME_IO_WRITE, 43, nsid, 0, 17);
	fq_incapsule(&sqe, 0, 17 * 512);
	n = q->qp->nposted;
	fq_send(q, &sqe, data, sizeof(data));
	fq_pump(env, q);
	CU_ASSERT_EQUAL(TT_SC(sent_status(fq_wr_req(&q->qp->posted[n]))),
			NVME_SC_SGL_INVALID_OFFSET | NVME_SC_DNR);
	fq_complete_all(q);
	CU_ASSERT_EQUAL(q->reqs_busy, 0);
	CU_ASSERT_EQUAL(q->stats.errors, 4);
	CU_ASSERT_EQUAL(fake_fail_calls, 0);

	fq_destroy(q);
	tt_queue_destroy(tq);
	teardown();
}

/*
 * The halves of a fused Compare and Write carry their data in-capsule like
 * any write: the SGL decode leaves FUSE to the core, which pairs them. A
 * pair whose Compare matches writes; one that no longer matches fails with
 * Compare Failure and Failed Fused Command and writes nothing.
 */
static void test_fused_compare_write_incapsule(void)
{
	struct fake_q_opts o = { .qid = 1, .depth = 16, .icd_size = 8192, .send_wr = 64,
				 .max_sge = 4, .ird = 8, .live = true };
	uint8_t old[512], new[512];
	struct rblk_rdma_queue *q;
	struct tt_queue *tq;
	struct nvme_sqe cmp, wr;
	unsigned n;

	setup(8192, 8);
	q = io_queue(admin_bringup(&tq), &o);
	fill(old, sizeof(old), 1);
	fill(new, sizeof(new), 2);
	fq_rw(&wr, NVME_IO_WRITE, 50, nsid, 9, 1);
	fq_incapsule(&wr, 0, sizeof(old));
	fq_send(q, &wr, old, sizeof(old));
	fq_pump(env, q);
	fq_complete_all(q);

	for (unsigned round = 0; round < 2; round++) {
		fq_rw(&cmp, NVME_IO_COMPARE, (uint16_t)(51 + 2 * round), nsid, 9, 1);
		cmp.flags |= NVME_CMD_FUSE_FIRST;
		fq_incapsule(&cmp, 0, sizeof(old));
		fq_rw(&wr, NVME_IO_WRITE, (uint16_t)(52 + 2 * round), nsid, 9, 1);
		wr.flags |= NVME_CMD_FUSE_SECOND;
		fq_incapsule(&wr, 0, sizeof(new));
		n = q->qp->nposted;
		fq_send(q, &cmp, old, sizeof(old));
		fq_send(q, &wr, new, sizeof(new));
		fq_pump(env, q);
		CU_ASSERT_EQUAL_FATAL(q->qp->nposted, n + 2);
		for (unsigned k = 0; k < 2; k++) {
			struct rblk_rdma_req *r = fq_wr_req(&q->qp->posted[n + k]);
			uint16_t cid = rblk_le16(r->rsp->cid), st = TT_SC(sent_status(r));
			uint16_t want = !round ? 0
					: cid == 53 ? (NVME_SC_COMPARE_FAILED | NVME_SC_DNR)
						    : (NVME_SC_FUSED_FAIL | NVME_SC_DNR);

			CU_ASSERT_EQUAL(st, want);
		}
		fq_complete_all(q);
	}
	CU_ASSERT_EQUAL(q->reqs_busy, 0);

	fq_destroy(q);
	tt_queue_destroy(tq);
	teardown();
}

static void test_teardown_flushes_quietly(void)
{
	struct fake_q_opts o = { .qid = 1, .depth = 16, .icd_size = 8192, .send_wr = 64,
				 .max_sge = 4, .ird = 8, .live = true };
	struct rblk_rdma_queue *q;
	struct rblk_rdma_req *r, *w;
	struct tt_queue *tq;
	struct nvme_sqe sqe;

	setup(8192, 8);
	q = io_queue(admin_bringup(&tq), &o);
	/* One request with its response posted, one with its READ posted. */
	fq_rw(&sqe, NVME_IO_READ, 50, nsid, 0, 8);
	fq_keyed(&sqe, 0x1000, 4096, 0x51, true);
	fq_send(q, &sqe, NULL, 0);
	fq_rw(&sqe, NVME_IO_WRITE, 51, nsid, 0, 8);
	fq_keyed(&sqe, 0x2000, 4096, 0x52, true);
	fq_send(q, &sqe, NULL, 0);
	fq_pump(env, q);
	r = w = NULL;
	for (unsigned i = 0; i < q->nreqs; i++) {
		if (q->reqs[i].state == RBLK_RDMA_REQ_COMPLETING)
			r = &q->reqs[i];
		if (q->reqs[i].state == RBLK_RDMA_REQ_TRANSFERRING_H2C)
			w = &q->reqs[i];
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w);

	/* The host went away: the QP flushes everything. */
	rblk_rdma_queue_fail(q, "test");
	CU_ASSERT_EQUAL(q->sq.state, RBLK_SQ_CLOSING);
	fq_complete_all(q);
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_FREE);
	CU_ASSERT_EQUAL(w->state, RBLK_RDMA_REQ_FREE);
	CU_ASSERT_EQUAL(q->reqs_busy, 0);
	CU_ASSERT_EQUAL(q->signaled_inflight, 0);
	CU_ASSERT_EQUAL(q->recv_posted, 0);
	CU_ASSERT_EQUAL(rblk_mr_pool_free_count(dev->pool), 8);
	/* Flushes during teardown are debug-level noise, never errors. */
	CU_ASSERT_EQUAL(errors_logged, 0);
	CU_ASSERT_EQUAL(q->stats.wc_errors, 0);

	fq_destroy(q);
	tt_queue_destroy(tq);
	teardown();
}

static void test_failed_post_completes_unposted(void)
{
	struct fake_q_opts o = { .qid = 1, .depth = 16, .icd_size = 8192, .send_wr = 64,
				 .max_sge = 4, .ird = 8, .live = true };
	struct rblk_rdma_queue *q;
	struct tt_queue *tq;
	struct nvme_sqe sqe;
	unsigned n;

	setup(8192, 8);
	q = io_queue(admin_bringup(&tq), &o);
	n = q->qp->nposted;
	q->qp->fail_send = -EIO;
	q->qp->fail_send_after = 1; /* the WRITE gets out, its SEND does not */
	fq_rw(&sqe, NVME_IO_READ, 60, nsid, 0, 8);
	fq_keyed(&sqe, 0x1000, 4096, 0x61, false);
	fq_send(q, &sqe, NULL, 0);
	fq_pump(env, q);
	CU_ASSERT_EQUAL(q->qp->nposted, n + 1);
	CU_ASSERT_TRUE(fake_fail_calls >= 1);
	CU_ASSERT_EQUAL(q->state, RBLK_RDMA_Q_DRAINING);
	/* The SEND that never reached the QP was completed as flushed. */
	CU_ASSERT_EQUAL(q->reqs_busy, 0);
	CU_ASSERT_EQUAL(q->signaled_inflight, 0);
	CU_ASSERT_EQUAL(q->send_slots, 64);
	CU_ASSERT_EQUAL(rblk_mr_pool_free_count(dev->pool), 8);
	CU_ASSERT_EQUAL(errors_logged, 1); /* the failed post itself */

	fq_destroy(q);
	tt_queue_destroy(tq);
	teardown();
}

/* The host's next capsule lands in the next posted receive with this status and length. */
static void recv_wc(struct rblk_rdma_queue *q, enum rblk_wc_status st, uint32_t byte_len)
{
	struct rblk_wc wc;

	CU_ASSERT_FATAL(q->qp->rnext < q->qp->nrposted);
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = q->qp->rposted[q->qp->rnext++].wr_id;
	wc.status = st;
	wc.opcode = RBLK_WC_RECV;
	wc.byte_len = byte_len;
	rblk_rdma_handle_wc(&wc);
}

/*
 * What a hostile host does to receives (tests/func/evil_host rdma-long and
 * rdma-short): a capsule longer than the receive buffer completes it in
 * error, one shorter than an SQE completes it short. Either fails the queue,
 * and the log names the queue as it is (it once said "qid 10" for qid 1).
 */
static void test_bad_receives_fail_the_queue(void)
{
	struct fake_q_opts o = { .qid = 1, .depth = 16, .icd_size = 8192, .send_wr = 64,
				 .max_sge = 4, .ird = 8, .live = true };
	struct rblk_rdma_queue *q;
	struct tt_queue *tq;
	uint16_t cntlid;

	setup(8192, 8);
	cntlid = admin_bringup(&tq);
	q = io_queue(cntlid, &o);
	errors_logged = 0;
	recv_wc(q, RBLK_WC_LOC_LEN_ERR, 0);
	CU_ASSERT_EQUAL(q->state, RBLK_RDMA_Q_DRAINING);
	CU_ASSERT_EQUAL(fake_fail_calls, 1);
	CU_ASSERT_EQUAL(q->stats.wc_errors, 1);
	CU_ASSERT_EQUAL(errors_logged, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(last_error, " qid 1: receive failed: "));
	CU_ASSERT_EQUAL(q->reqs_busy, 0);
	fq_destroy(q);

	o.qid = 2;
	q = io_queue(cntlid, &o);
	errors_logged = 0;
	recv_wc(q, RBLK_WC_SUCCESS, 32);
	CU_ASSERT_EQUAL(q->state, RBLK_RDMA_Q_DRAINING);
	CU_ASSERT_EQUAL(errors_logged, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(last_error, " qid 2: short command capsule (32 bytes)"));
	/* Nothing was bound to a request: nothing to give back. */
	CU_ASSERT_EQUAL(q->reqs_busy, 0);
	CU_ASSERT_TRUE(STAILQ_EMPTY(&q->incoming));
	fq_destroy(q);
	tt_queue_destroy(tq);
	teardown();
}

/* The host's rkey is bad: the RDMA READ fails, the request and the queue with it. */
static void test_failed_rdma_read_fails_request_and_queue(void)
{
	struct fake_q_opts o = { .qid = 1, .depth = 16, .icd_size = 8192, .send_wr = 64,
				 .max_sge = 4, .ird = 8, .live = true };
	struct rblk_rdma_queue *q;
	struct rblk_rdma_req *r;
	struct tt_queue *tq;
	struct nvme_sqe sqe;
	unsigned n;

	setup(8192, 8);
	q = io_queue(admin_bringup(&tq), &o);
	n = q->qp->nposted;
	fq_rw(&sqe, NVME_IO_WRITE, 0x77, nsid, 0, 8);
	fq_keyed(&sqe, 0x1000, 4096, 0xBAD, false);
	fq_send(q, &sqe, NULL, 0);
	fq_pump(env, q);
	CU_ASSERT_EQUAL_FATAL(q->qp->nposted, n + 1);
	r = fq_wr_req(&q->qp->posted[n]);
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_TRANSFERRING_H2C);
	errors_logged = 0;
	fq_complete(r, RBLK_RDMA_WR_READ, RBLK_WC_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL(q->state, RBLK_RDMA_Q_DRAINING);
	CU_ASSERT_EQUAL(errors_logged, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(last_error, " qid 1 cid 0x77: RDMA READ failed: "));
	/* No response goes out on a failed queue; the request and its unit are back. */
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_FREE);
	CU_ASSERT_EQUAL(q->qp->nposted, n + 1);
	CU_ASSERT_EQUAL(q->reqs_busy, 0);
	CU_ASSERT_EQUAL(rblk_mr_pool_free_count(dev->pool), 8);
	fq_destroy(q);
	tt_queue_destroy(tq);
	teardown();
}

static const struct ut_case cases[] = {
	UT_CASE(test_admin_connect_stepwise),
	UT_CASE(test_read_write_chained_with_send),
	UT_CASE(test_send_with_invalidate_only_for_0x4f),
	UT_CASE(test_multi_unit_requests),
	UT_CASE(test_read_depth_queueing),
	UT_CASE(test_pool_and_send_slot_waits),
	UT_CASE(test_buffer_wait_bound),
	UT_CASE(test_send_slot_wait),
	UT_CASE(test_early_capsule_waits_for_established),
	UT_CASE(test_length_and_sgl_errors),
	UT_CASE(test_fused_compare_write_incapsule),
	UT_CASE(test_teardown_flushes_quietly),
	UT_CASE(test_failed_post_completes_unposted),
	UT_CASE(test_bad_receives_fail_the_queue),
	UT_CASE(test_failed_rdma_read_fails_request_and_queue),
	UT_END,
};

UT_MAIN("target/rdma_req", cases)

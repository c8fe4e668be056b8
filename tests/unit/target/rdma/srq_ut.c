/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/rdma/srq.c: the qp_num -> queue map (collisions, growth,
 * removal that keeps the other entries reachable), and shared receives on
 * the request path over a fake SRQ (tests/unit/target/rdma/fake.c) with the
 * real core: a capsule finds its queue by qp_num, in-capsule data lands in
 * the shared buffer, the receive goes back to the SRQ before the response
 * leaves, two queues draw from one set, completions of a destroyed QP are
 * reposted, a queue torn down gives back the capsules it held, and a host
 * that outruns the set finds no receive (RNR) rather than a lost command,
 * while one that overruns its own queue's depth loses that queue.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "fake.h"
#include "ut.h"

static struct tt_env *env;
static struct rblk_pg_dev *dev;
static uint32_t nsid;

static void setup(uint32_t srq_depth)
{
	env = tt_env_create(NULL, 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tt_add_subsys(env, TT_SUBNQN, "mem:4M", &nsid));
	dev = fake_dev_create_srq(8192, 8, srq_depth, 8192);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dev->srq);
	fake_fail_calls = 0;
}

static void teardown(void)
{
	tt_env_destroy(env);
	fake_dev_destroy(dev);
	env = NULL;
	dev = NULL;
}

static struct rblk_srq *fsrq(void)
{
	return dev->srq->srq;
}

/* Receives the "host" could still fill. */
static unsigned available(void)
{
	return fsrq()->nposted - fsrq()->next;
}

/* An I/O queue connected through in-capsule Connect data. */
static struct rblk_rdma_queue *io_queue(uint16_t cntlid, uint16_t qid)
{
	struct fake_q_opts o = { .qid = qid, .depth = 16, .icd_size = 8192, .send_wr = 64,
				 .max_sge = 4, .ird = 8, .live = true };
	struct rblk_rdma_queue *q = fq_create(env, dev, &o);
	struct nvmf_connect_data d;
	struct nvme_sqe sqe;

	CU_ASSERT_PTR_NULL(q->recvs);
	fq_connect(&sqe, &d, qid, 15, cntlid, env->hostid);
	fq_incapsule(&sqe, 0, sizeof(d));
	CU_ASSERT_PTR_NOT_NULL_FATAL(fq_send(q, &sqe, &d, sizeof(d)));
	fq_pump(env, q);
	fq_complete_all(q);
	CU_ASSERT_EQUAL(q->sq.state, RBLK_SQ_LIVE);
	CU_ASSERT_EQUAL(q->reqs_busy, 0);
	return q;
}

static uint16_t admin_bringup(struct tt_queue **tq)
{
	uint16_t cntlid;

	*tq = tt_queue_create(env, 0, 32);
	cntlid = tt_admin_bringup(*tq, TT_SUBNQN, TT_HOSTNQN, 0);
	CU_ASSERT_NOT_EQUAL_FATAL(cntlid, 0);
	return cntlid;
}

static struct rblk_rdma_req *busy_req(struct rblk_rdma_queue *q)
{
	for (unsigned i = 0; i < q->nreqs; i++)
		if (q->reqs[i].state != RBLK_RDMA_REQ_FREE)
			return &q->reqs[i];
	return NULL;
}

/* ------------------------------------------------------------------------ */

static void test_qpn_map(void)
{
	struct rblk_rdma_qpn_map m = { 0 };
	struct rblk_rdma_queue *qs = calloc(600, sizeof(*qs));
	uint32_t qpn[600];

	CU_ASSERT_PTR_NULL(rblk_rdma_qpn_map_get(&m, 17));
	rblk_rdma_qpn_map_del(&m, 17); /* empty: nothing to do */
	/* Dense numbers, as providers hand them out, and far ones 4096 apart. */
	for (unsigned i = 0; i < 600; i++) {
		qpn[i] = i < 400 ? 0x11 + i : 0x100000 + (i - 400) * 4096;
		CU_ASSERT_EQUAL_FATAL(rblk_rdma_qpn_map_add(&m, qpn[i], &qs[i]), 0);
	}
	CU_ASSERT_EQUAL(rblk_rdma_qpn_map_add(&m, qpn[5], &qs[6]), -EEXIST);
	CU_ASSERT_EQUAL(m.n, 600);
	CU_ASSERT(m.cap >= 2 * m.n);
	for (unsigned i = 0; i < 600; i++)
		CU_ASSERT_PTR_EQUAL(rblk_rdma_qpn_map_get(&m, qpn[i]), &qs[i]);
	CU_ASSERT_PTR_NULL(rblk_rdma_qpn_map_get(&m, 0x11 + 400));
	/* Remove every other one: the rest stay reachable across the holes. */
	for (unsigned i = 0; i < 600; i += 2)
		rblk_rdma_qpn_map_del(&m, qpn[i]);
	rblk_rdma_qpn_map_del(&m, qpn[0]); /* twice: nothing more happens */
	CU_ASSERT_EQUAL(m.n, 300);
	for (unsigned i = 0; i < 600; i++)
		CU_ASSERT_PTR_EQUAL(rblk_rdma_qpn_map_get(&m, qpn[i]), i % 2 ? &qs[i] : NULL);
	/* A removed number can come back (a provider reusing it). */
	CU_ASSERT_EQUAL(rblk_rdma_qpn_map_add(&m, qpn[0], &qs[1]), 0);
	CU_ASSERT_PTR_EQUAL(rblk_rdma_qpn_map_get(&m, qpn[0]), &qs[1]);
	rblk_rdma_qpn_map_fini(&m);
	CU_ASSERT_PTR_NULL(rblk_rdma_qpn_map_get(&m, qpn[1]));
	free(qs);
}

static void test_qpn_map_wraps(void)
{
	struct rblk_rdma_qpn_map m = { 0 };
	struct rblk_rdma_queue qs[40];
	uint32_t keys[40];
	unsigned n = 0;

	/* Keys that hash to the last slots, so probes wrap to slot 0. */
	CU_ASSERT_EQUAL(rblk_rdma_qpn_map_add(&m, 1, &qs[0]), 0);
	for (uint32_t k = 2; n < 20 && k < 100000; k++) {
		if (((k * 2654435761u) & (m.cap - 1)) < m.cap - 2)
			continue;
		keys[n] = k;
		CU_ASSERT_EQUAL_FATAL(rblk_rdma_qpn_map_add(&m, k, &qs[n + 1]), 0);
		n++;
	}
	CU_ASSERT_EQUAL_FATAL(n, 20);
	for (unsigned i = 0; i < n; i += 3)
		rblk_rdma_qpn_map_del(&m, keys[i]);
	for (unsigned i = 0; i < n; i++)
		CU_ASSERT_PTR_EQUAL(rblk_rdma_qpn_map_get(&m, keys[i]), i % 3 ? &qs[i + 1] : NULL);
	CU_ASSERT_PTR_EQUAL(rblk_rdma_qpn_map_get(&m, 1), &qs[0]);
	rblk_rdma_qpn_map_fini(&m);
}

static void test_shared_receive_round_trip(void)
{
	struct rblk_rdma_queue *a, *b;
	struct rblk_rdma_recv *rv;
	struct rblk_rdma_req *r;
	struct tt_queue *tq;
	struct nvme_sqe sqe;
	uint8_t data[4096];
	uint16_t cntlid;

	setup(8);
	CU_ASSERT_EQUAL(dev->srq->posted, 8);
	CU_ASSERT_EQUAL(available(), 8);
	cntlid = admin_bringup(&tq);
	a = io_queue(cntlid, 1);
	b = io_queue(cntlid, 2);
	/* Each Connect took a shared receive and gave it back. */
	CU_ASSERT_EQUAL(dev->srq->posted, 8);
	CU_ASSERT_EQUAL(available(), 8);

	/* A 4 KiB in-capsule write on b: the data sits in the shared buffer. */
	memset(data, 0xB2, sizeof(data));
	fq_rw(&sqe, NVME_IO_WRITE, 7, nsid, 0, 8);
	fq_incapsule(&sqe, 0, sizeof(data));
	rv = fq_send(b, &sqe, data, sizeof(data));
	CU_ASSERT_PTR_NOT_NULL_FATAL(rv);
	CU_ASSERT_PTR_EQUAL(rv->srq, dev->srq);
	CU_ASSERT_PTR_NULL(busy_req(a));
	r = busy_req(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_EQUAL(r->recv, rv);
	CU_ASSERT_PTR_EQUAL(rv->q, b);
	CU_ASSERT_EQUAL(r->req.iov[0].iov_base, rv->icd);
	CU_ASSERT_EQUAL(dev->srq->posted, 7);
	/* Executed: the receive is back on the SRQ with the response's post. */
	fq_pump(env, b);
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_COMPLETING);
	CU_ASSERT_EQUAL(nvme_cqe_status(r->rsp), 0);
	CU_ASSERT_PTR_NULL(r->recv);
	CU_ASSERT_TRUE(rv->posted);
	CU_ASSERT_PTR_NULL(rv->q);
	CU_ASSERT_EQUAL(dev->srq->posted, 8);
	CU_ASSERT_EQUAL(fsrq()->posted[fsrq()->nposted - 1].wr_id,
			rblk_rdma_wr_id(rv, RBLK_RDMA_WR_RECV));
	fq_complete_all(b);

	/* Read it back through a: the same namespace, a's own request. */
	fq_rw(&sqe, NVME_IO_READ, 8, nsid, 0, 8);
	fq_keyed(&sqe, 0x40000, sizeof(data), 0x99, false);
	rv = fq_send(a, &sqe, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rv);
	r = busy_req(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_NULL(busy_req(b));
	fq_pump(env, a);
	CU_ASSERT_EQUAL(r->state, RBLK_RDMA_REQ_COMPLETING);
	CU_ASSERT_EQUAL_FATAL(a->qp->nposted >= 2, true);
	CU_ASSERT_EQUAL(memcmp((void *)(uintptr_t)a->qp->posted[a->qp->nposted - 2].sge[0].addr,
			       data, sizeof(data)), 0);
	fq_complete_all(a);
	CU_ASSERT_EQUAL(dev->srq->posted, 8);
	CU_ASSERT_EQUAL(a->stats.cmds, 2);
	CU_ASSERT_EQUAL(b->stats.cmds, 2);

	fq_destroy(a);
	fq_destroy(b);
	CU_ASSERT_EQUAL(dev->srq->map.n, 0);
	CU_ASSERT_EQUAL(dev->srq->posted, 8);
	tt_queue_destroy(tq);
	teardown();
}

static void test_completion_of_a_gone_qp_is_reposted(void)
{
	struct rblk_rdma_recv *rv;
	unsigned flushes;

	setup(4);
	/* No queue has qp_num 0x999: the receive goes straight back. */
	rv = fq_srq_deliver(dev, 0x999, RBLK_WC_SUCCESS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rv);
	CU_ASSERT_TRUE(rv->posted);
	CU_ASSERT_PTR_NULL(rv->q);
	CU_ASSERT_EQUAL(dev->srq->posted, 3);
	CU_ASSERT_EQUAL(dev->srq->nstaged, 1);
	/* Flushed in errors too (a QP that went down with its last capsule). */
	CU_ASSERT_PTR_NOT_NULL(fq_srq_deliver(dev, 0x998, RBLK_WC_WR_FLUSH_ERR));
	CU_ASSERT_EQUAL(dev->srq->nstaged, 2);
	flushes = fsrq()->flushes;
	rblk_rdma_srq_flush(dev->srq);
	CU_ASSERT_EQUAL(fsrq()->flushes, flushes + 1); /* both in one post */
	CU_ASSERT_EQUAL(dev->srq->posted, 4);
	teardown();
}

static void test_teardown_gives_back_held_capsules(void)
{
	struct fake_q_opts o = { .qid = 1, .depth = 16, .icd_size = 8192, .send_wr = 64,
				 .max_sge = 4, .ird = 8, .live = false };
	struct rblk_rdma_queue *q;
	struct nvme_sqe sqe;

	setup(8);
	/* Capsules that beat ESTABLISHED wait unbound, holding shared receives. */
	q = fq_create(env, dev, &o);
	fq_rw(&sqe, NVME_IO_READ, 1, nsid, 0, 1);
	fq_keyed(&sqe, 0x1000, 512, 0x5, false);
	for (unsigned i = 0; i < 3; i++)
		CU_ASSERT_PTR_NOT_NULL(fq_send(q, &sqe, NULL, 0));
	CU_ASSERT_EQUAL(dev->srq->posted, 5);
	CU_ASSERT_PTR_NULL(busy_req(q));
	/* The host goes away before ESTABLISHED: the three go back to the SRQ. */
	rblk_rdma_queue_fail(q, "test");
	CU_ASSERT_EQUAL(dev->srq->nstaged, 3);
	rblk_rdma_srq_flush(dev->srq);
	CU_ASSERT_EQUAL(dev->srq->posted, 8);
	fq_destroy(q);
	CU_ASSERT_EQUAL(dev->srq->map.n, 0);
	teardown();
}

static void test_outrun_set_is_rnr_not_loss(void)
{
	struct fake_q_opts o = { .qid = 1, .depth = 16, .icd_size = 8192, .send_wr = 64,
				 .max_sge = 4, .ird = 8, .live = false };
	struct rblk_rdma_queue *q;
	struct nvme_sqe sqe;

	setup(4);
	q = fq_create(env, dev, &o);
	fq_rw(&sqe, NVME_IO_READ, 1, nsid, 0, 1);
	fq_keyed(&sqe, 0x1000, 512, 0x5, false);
	/* Four capsules fill the set; the fifth finds no receive (the NIC NAKs it). */
	for (unsigned i = 0; i < 4; i++)
		CU_ASSERT_PTR_NOT_NULL(fq_send(q, &sqe, NULL, 0));
	CU_ASSERT_PTR_NULL(fq_send(q, &sqe, NULL, 0));
	CU_ASSERT_EQUAL(dev->srq->posted, 0);
	/* ESTABLISHED: they run, their receives come back, the host's retry lands. */
	q->state = RBLK_RDMA_Q_LIVE;
	rblk_rdma_queue_kick(q);
	CU_ASSERT_EQUAL(q->reqs_busy, 4);
	fq_pump(env, q);
	CU_ASSERT_EQUAL(dev->srq->posted, 4);
	CU_ASSERT_PTR_NOT_NULL(fq_send(q, &sqe, NULL, 0));
	fq_pump(env, q);
	fq_complete_all(q);
	CU_ASSERT_EQUAL(q->reqs_busy, 0);
	/* Every command was answered (an error: this queue never sent a Connect). */
	CU_ASSERT_EQUAL(q->stats.cmds, 5);
	CU_ASSERT_EQUAL(q->qp->nposted, 5);
	CU_ASSERT_EQUAL(fake_fail_calls, 0);
	fq_destroy(q);
	teardown();
}

static void test_queue_overrun_fails_that_queue(void)
{
	struct fake_q_opts o = { .qid = 1, .depth = 4, .icd_size = 8192, .send_wr = 16,
				 .max_sge = 4, .ird = 8, .live = false };
	struct rblk_rdma_queue *q, *other;
	struct nvme_sqe sqe;

	setup(16);
	q = fq_create(env, dev, &o);
	other = fq_create(env, dev, &o);
	fq_rw(&sqe, NVME_IO_READ, 1, nsid, 0, 1);
	fq_keyed(&sqe, 0x1000, 512, 0x5, false);
	/* Its depth of commands is fine, even before ESTABLISHED... */
	for (unsigned i = 0; i < 4; i++)
		CU_ASSERT_PTR_NOT_NULL(fq_send(q, &sqe, NULL, 0));
	CU_ASSERT_EQUAL(q->recvs_held, 4);
	CU_ASSERT_EQUAL(fake_fail_calls, 0);
	/* ...one more is a host that ignores flow control: that queue goes. */
	CU_ASSERT_PTR_NOT_NULL(fq_send(q, &sqe, NULL, 0));
	CU_ASSERT_EQUAL(fake_fail_calls, 1);
	CU_ASSERT_EQUAL(q->state, RBLK_RDMA_Q_DRAINING);
	CU_ASSERT_EQUAL(q->recvs_held, 0);
	rblk_rdma_srq_flush(dev->srq);
	CU_ASSERT_EQUAL(dev->srq->posted, 16);
	/* The other connection on the SRQ is untouched. */
	CU_ASSERT_EQUAL(other->state, RBLK_RDMA_Q_CONNECTING);
	CU_ASSERT_PTR_NOT_NULL(fq_send(other, &sqe, NULL, 0));
	CU_ASSERT_EQUAL(other->recvs_held, 1);
	fq_destroy(q);
	fq_destroy(other);
	CU_ASSERT_EQUAL(dev->srq->map.n, 0);
	teardown();
}

static const struct ut_case cases[] = {
	UT_CASE(test_qpn_map),
	UT_CASE(test_qpn_map_wraps),
	UT_CASE(test_shared_receive_round_trip),
	UT_CASE(test_completion_of_a_gone_qp_is_reposted),
	UT_CASE(test_teardown_gives_back_held_capsules),
	UT_CASE(test_outrun_set_is_rnr_not_loss),
	UT_CASE(test_queue_overrun_fails_that_queue),
	UT_END,
};

UT_MAIN("target/rdma_srq", cases)

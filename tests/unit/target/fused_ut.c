/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/fused.c and target/range_lock.c: fused Compare and Write
 * (success, a compare that fails leaving the data unchanged, lone halves,
 * halves that disagree, a first half that failed), writes from another
 * queue that overlap an active compare and write waiting and landing after
 * it while other writes go, and a provider that compares and writes itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "test_transport.h"
#include "ut.h"

static struct tt_env *env;
static struct tt_queue *aq, *iq, *iq2;
static struct rblk_subsystem *ss;

static void setup_ns(const struct rblk_provider *prov)
{
	struct rblk_ns_opts no;
	uint16_t cntlid;

	env = tt_env_create(NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	ss = tt_add_subsys(env, TT_SUBNQN, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ss);
	rblk_ns_opts_init(&no);
	no.path = prov ? NULL : "mem:1M";
	no.provider = prov;
	CU_ASSERT_EQUAL_FATAL(rblk_subsystem_add_namespace(ss, &no, NULL), 0);
	aq = tt_queue_create(env, 0, 32);
	cntlid = tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 5000);
	CU_ASSERT_NOT_EQUAL_FATAL(cntlid, 0);
	iq = tt_queue_create(env, 1, 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid, 0, 0, NULL), 0);
	iq2 = tt_queue_create(env, 2, 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(iq2, TT_SUBNQN, TT_HOSTNQN, 2, 127, cntlid, 0, 0, NULL), 0);
}

static void setup(void)
{
	setup_ns(NULL);
}

static void teardown(void)
{
	tt_queue_destroy(iq2);
	tt_queue_destroy(iq);
	tt_queue_destroy(aq);
	iq = iq2 = aq = NULL;
	tt_env_destroy(env);
	env = NULL;
}

static void fill(uint8_t *p, size_t len, uint8_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 13 + (i >> 9));
}

/* One half: Compare (FUSE 01b) or Write (FUSE 10b), sent without waiting. */
static struct tt_req *half(struct tt_queue *q, uint8_t opc, uint8_t fuse, uint16_t cid,
			   uint64_t slba, uint32_t nlb, const void *data)
{
	struct nvme_rw_cmd c;
	struct tt_req *tr;

	tt_rw_sqe(&c, opc, cid, 1, slba, nlb);
	c.flags |= fuse;
	tr = tt_send(q, (struct nvme_sqe *)&c, data, (size_t)nlb * 512);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tr);
	return tr;
}

/* Pumps until every request given is done (10 s at most). */
static void wait_done(struct tt_req **tr, unsigned n)
{
	for (uint64_t deadline = rblk_clock_ms() + 10000; rblk_clock_ms() < deadline;) {
		bool all = true;

		tt_pump(env);
		for (unsigned i = 0; i < n; i++)
			all = all && tr[i]->done;
		if (all)
			return;
	}
}

static uint16_t st(struct tt_req *tr)
{
	uint16_t s = TT_SC(tt_status(&tr->cqe));

	tt_req_release(tr);
	return s;
}

/* Compare with cmp, then write wr, over 8 blocks at slba: the two statuses. */
static void cw(struct tt_queue *q, uint64_t slba, const uint8_t *cmp, const uint8_t *wr,
	       uint16_t *s1, uint16_t *s2)
{
	struct tt_req *tr[2];

	tr[0] = half(q, NVME_IO_COMPARE, NVME_CMD_FUSE_FIRST, 0x10, slba, 8, cmp);
	tr[1] = half(q, NVME_IO_WRITE, NVME_CMD_FUSE_SECOND, 0x11, slba, 8, wr);
	wait_done(tr, 2);
	*s1 = st(tr[0]);
	*s2 = st(tr[1]);
}

/* ------------------------------------------------------------------------ */

static void test_compare_and_write(void)
{
	uint8_t a[4096], b[4096], c[4096], r[4096];
	struct nvme_id_ctrl id;
	uint16_t s1, s2;

	setup();
	CU_ASSERT_EQUAL_FATAL(tt_identify(aq, NVME_ID_CNS_CTRL, 0, 0, &id), 0);
	CU_ASSERT_EQUAL(rblk_le16(id.fuses), 1);
	fill(a, sizeof(a), 1);
	fill(b, sizeof(b), 2);
	fill(c, sizeof(c), 3);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 40, 8, 0, a, 4096), 0);
	/* The range holds a: b replaces it. */
	cw(iq, 40, a, b, &s1, &s2);
	CU_ASSERT_EQUAL(s1, 0);
	CU_ASSERT_EQUAL(s2, 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 40, 8, 0, r, 4096), 0);
	CU_ASSERT_EQUAL(memcmp(r, b, 4096), 0);
	/* It holds b, not a: Compare Failure, the Write aborted, b stays. */
	cw(iq, 40, a, c, &s1, &s2);
	CU_ASSERT_EQUAL(s1, NVME_SC_COMPARE_FAILED | NVME_SC_DNR);
	CU_ASSERT_EQUAL(s2, NVME_SC_FUSED_FAIL | NVME_SC_DNR);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 40, 8, 0, r, 4096), 0);
	CU_ASSERT_EQUAL(memcmp(r, b, 4096), 0);
	/* The lock is given back and the gate open again. */
	CU_ASSERT_EQUAL(atomic_load(&ss->ns[0]->cw_active), 0);
	CU_ASSERT_EQUAL(ss->ns[0]->lk_gate, RBLK_GATE_OPEN);
	CU_ASSERT_EQUAL(rblk_tgt_bounce_free_count(&env->pg), RBLK_TGT_BOUNCE_UNITS);
	/* The counters: a Compare and a Write each time the write happened. */
	CU_ASSERT_EQUAL(ns_stats(ss->ns[0]).write_cmds, 2);
	teardown();
}

static void test_lone_halves(void)
{
	uint8_t a[4096] = { 0 };
	struct tt_req *tr[2];

	setup();
	/* A second half with no first. */
	tr[0] = half(iq, NVME_IO_WRITE, NVME_CMD_FUSE_SECOND, 1, 0, 8, a);
	CU_ASSERT_TRUE(tr[0]->done);
	CU_ASSERT_EQUAL(st(tr[0]), NVME_SC_FUSED_MISSING | NVME_SC_DNR);
	/* A first half followed by a plain Read: Missing Fused Command; the Read goes. */
	tr[0] = half(iq, NVME_IO_COMPARE, NVME_CMD_FUSE_FIRST, 2, 0, 8, a);
	CU_ASSERT_FALSE(tr[0]->done);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 0, 8, 0, a, 4096), 0);
	CU_ASSERT_TRUE(tr[0]->done);
	CU_ASSERT_EQUAL(st(tr[0]), NVME_SC_FUSED_MISSING | NVME_SC_DNR);
	/* Halves over different ranges: Invalid Field for both. */
	tr[0] = half(iq, NVME_IO_COMPARE, NVME_CMD_FUSE_FIRST, 3, 0, 8, a);
	tr[1] = half(iq, NVME_IO_WRITE, NVME_CMD_FUSE_SECOND, 4, 8, 8, a);
	wait_done(tr, 2);
	CU_ASSERT_EQUAL(st(tr[0]), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(st(tr[1]), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	/* A second half that is not a Write. */
	tr[0] = half(iq, NVME_IO_COMPARE, NVME_CMD_FUSE_FIRST, 5, 0, 8, a);
	tr[1] = half(iq, NVME_IO_COMPARE, NVME_CMD_FUSE_SECOND, 6, 0, 8, a);
	wait_done(tr, 2);
	CU_ASSERT_EQUAL(st(tr[0]), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(st(tr[1]), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	/* A first half that failed (past the end): its second fails with it. */
	tr[0] = half(iq, NVME_IO_COMPARE, NVME_CMD_FUSE_FIRST, 7, 2047, 8, a);
	tr[1] = half(iq, NVME_IO_WRITE, NVME_CMD_FUSE_SECOND, 8, 2047, 8, a);
	CU_ASSERT_EQUAL(st(tr[0]), NVME_SC_LBA_RANGE | NVME_SC_DNR);
	CU_ASSERT_EQUAL(st(tr[1]), NVME_SC_FUSED_FAIL | NVME_SC_DNR);
	/* Only a Compare may be a first half; FUSE 11b is reserved. */
	tr[0] = half(iq, NVME_IO_WRITE, NVME_CMD_FUSE_FIRST, 9, 0, 8, a);
	CU_ASSERT_EQUAL(st(tr[0]), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	tr[0] = half(iq, NVME_IO_COMPARE, NVME_CMD_FUSE_MASK, 10, 0, 8, a);
	CU_ASSERT_EQUAL(st(tr[0]), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	/* A malformed command after a first half is not its second half either. */
	tr[0] = half(iq, NVME_IO_COMPARE, NVME_CMD_FUSE_FIRST, 12, 0, 8, a);
	{
		struct nvme_rw_cmd c;

		tt_rw_sqe(&c, NVME_IO_READ, 13, 1, 0, 8);
		c.flags = NVME_CMD_PSDT_SGL_MPTR_SGL;
		CU_ASSERT_EQUAL(TT_SC(tt_cmd(iq, (struct nvme_sqe *)&c, NULL, 4096, NULL, a, 4096)),
				NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	}
	CU_ASSERT_EQUAL(st(tr[0]), NVME_SC_FUSED_MISSING | NVME_SC_DNR);
	/* The queue goes away under a waiting first half. */
	tr[0] = half(iq, NVME_IO_COMPARE, NVME_CMD_FUSE_FIRST, 11, 0, 8, a);
	CU_ASSERT_FALSE(tr[0]->done);
	rblk_sq_teardown(&iq->sq);
	CU_ASSERT_TRUE(tr[0]->done);
	CU_ASSERT_EQUAL(st(tr[0]), NVME_SC_FUSED_MISSING | NVME_SC_DNR);
	teardown();
}

/*
 * A Write from another queue over the range of a compare and write in
 * progress waits and lands after it; one elsewhere goes at once.
 */
static void test_overlapping_write_waits(void)
{
	uint8_t a[4096], b[4096], e[4096], f[4096], r[4096];
	struct tt_req *tr[4];
	struct rblk_tgt_ns *ns;

	setup();
	ns = ss->ns[0];
	fill(a, sizeof(a), 1);
	fill(b, sizeof(b), 2);
	fill(e, sizeof(e), 5);
	fill(f, sizeof(f), 6);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 100, 8, 0, a, 4096), 0);
	tr[0] = half(iq, NVME_IO_COMPARE, NVME_CMD_FUSE_FIRST, 0x20, 100, 8, a);
	tr[1] = half(iq, NVME_IO_WRITE, NVME_CMD_FUSE_SECOND, 0x21, 100, 8, b);
	/* Held: its read is at the storage, nothing completed yet. */
	CU_ASSERT_EQUAL(atomic_load(&ns->cw_active), 1);
	CU_ASSERT_EQUAL(ns->lk_gate, RBLK_GATE_CLOSED);
	/* Blocks 104..111 overlap 100..107: it waits in the queue. */
	tr[2] = half(iq2, NVME_IO_WRITE, 0, 0x22, 104, 8, e);
	CU_ASSERT_PTR_EQUAL(ns->lk_wait_head, &tr[2]->req);
	/* Blocks 200..207 do not: it goes, listed as in flight under the lock. */
	tr[3] = half(iq2, NVME_IO_WRITE, 0, 0x23, 200, 8, f);
	CU_ASSERT_PTR_EQUAL(ns->lk_writes, &tr[3]->req);
	CU_ASSERT_PTR_NULL(ns->lk_wait_head->wait_next);
	wait_done(tr, 4);
	CU_ASSERT_EQUAL(st(tr[0]), 0);
	CU_ASSERT_EQUAL(st(tr[1]), 0);
	CU_ASSERT_EQUAL(st(tr[2]), 0);
	CU_ASSERT_EQUAL(st(tr[3]), 0);
	/* 100..103 are b's first half, 104..111 e's: e landed after b. */
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 100, 8, 0, r, 4096), 0);
	CU_ASSERT_EQUAL(memcmp(r, b, 2048), 0);
	CU_ASSERT_EQUAL(memcmp(r + 2048, e, 2048), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 200, 8, 0, r, 4096), 0);
	CU_ASSERT_EQUAL(memcmp(r, f, 4096), 0);
	CU_ASSERT_PTR_NULL(ns->lk_writes);
	CU_ASSERT_PTR_NULL(ns->lk_wait_head);
	CU_ASSERT_EQUAL(ns->lk_gate, RBLK_GATE_OPEN);
	/* Every unlocked write was counted out again. */
	CU_ASSERT_EQUAL(atomic_load(&ns->pgstats[0].fast_writes), 0);
	teardown();
}

/* Every kind of write waits: a Copy into the range, a Write Zeroes, a deallocation. */
static void test_other_writes_wait(void)
{
	uint8_t a[4096], b[4096], r[4096], zero[4096] = { 0 };
	struct nvme_copy_range cr;
	struct nvme_copy_cmd cc;
	struct nvme_rw_cmd wz;
	struct tt_req *tr[4];
	struct rblk_tgt_ns *ns;

	setup();
	ns = ss->ns[0];
	fill(a, sizeof(a), 1);
	fill(b, sizeof(b), 2);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 600, 8, 0, a, 4096), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 700, 8, 0, a, 4096), 0);
	tr[0] = half(iq, NVME_IO_COMPARE, NVME_CMD_FUSE_FIRST, 0x50, 600, 8, a);
	tr[1] = half(iq, NVME_IO_WRITE, NVME_CMD_FUSE_SECOND, 0x51, 600, 8, b);
	/* Copy blocks 700..703 over 602..605. */
	memset(&cr, 0, sizeof(cr));
	cr.slba = rblk_cpu_to_le64(700);
	cr.nlb = rblk_cpu_to_le16(3);
	tt_sqe((struct nvme_sqe *)&cc, NVME_IO_COPY, 0x52, 1);
	cc.sdlba = rblk_cpu_to_le64(602);
	tr[2] = tt_send(iq2, (struct nvme_sqe *)&cc, &cr, sizeof(cr));
	CU_ASSERT_PTR_NOT_NULL_FATAL(tr[2]);
	CU_ASSERT_PTR_EQUAL(ns->lk_wait_head, &tr[2]->req);
	/* Zeroes over 606..607. */
	tt_rw_sqe(&wz, NVME_IO_WRITE_ZEROES, 0x53, 1, 606, 2);
	tr[3] = tt_send(iq2, (struct nvme_sqe *)&wz, NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tr[3]);
	CU_ASSERT_PTR_EQUAL(ns->lk_wait_head->wait_next, &tr[3]->req);
	wait_done(tr, 4);
	for (unsigned i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(st(tr[i]), 0);
	/* b, then a's first 4 blocks at 602, then zeroes at 606: both after b. */
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 600, 8, 0, r, 4096), 0);
	CU_ASSERT_EQUAL(memcmp(r, b, 1024), 0);
	CU_ASSERT_EQUAL(memcmp(r + 1024, a, 2048), 0);
	CU_ASSERT_EQUAL(memcmp(r + 3072, zero, 1024), 0);
	CU_ASSERT_EQUAL(ns->lk_gate, RBLK_GATE_OPEN);
	CU_ASSERT_PTR_NULL(ns->lk_writes);
	teardown();
}

/*
 * The gate closes only once the writes that passed it unlocked are done: a
 * compare and write that comes while one is in flight waits for it.
 */
static void test_gate_waits_for_unlocked_writes(void)
{
	uint8_t a[4096], b[4096], r[4096];
	struct tt_req *tr[3];
	struct rblk_tgt_ns *ns;

	setup();
	ns = ss->ns[0];
	fill(a, sizeof(a), 1);
	fill(b, sizeof(b), 2);
	/* An unlocked write, at the storage. */
	tr[0] = half(iq2, NVME_IO_WRITE, 0, 0x30, 300, 8, a);
	CU_ASSERT_EQUAL(atomic_load(&ns->pgstats[0].fast_writes), 1);
	/* The compare and write expects what that write puts there. */
	tr[1] = half(iq, NVME_IO_COMPARE, NVME_CMD_FUSE_FIRST, 0x31, 300, 8, a);
	tr[2] = half(iq, NVME_IO_WRITE, NVME_CMD_FUSE_SECOND, 0x32, 300, 8, b);
	CU_ASSERT_EQUAL(ns->lk_gate, RBLK_GATE_CLOSING);
	wait_done(tr, 3);
	CU_ASSERT_EQUAL(st(tr[0]), 0);
	CU_ASSERT_EQUAL(st(tr[1]), 0);
	CU_ASSERT_EQUAL(st(tr[2]), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 300, 8, 0, r, 4096), 0);
	CU_ASSERT_EQUAL(memcmp(r, b, 4096), 0);
	teardown();
}

/*
 * With the poll group online the gate closes only after a quiescent state:
 * until the group has passed one, a write it started may not have seen the
 * fused command, and the compare and write keeps polling.
 */
static void test_gate_waits_for_grace_period(void)
{
	uint8_t a[4096], b[4096], r[4096];
	struct tt_req *tr[2];
	struct rblk_tgt_ns *ns;
	struct tt_work w;

	setup();
	ns = ss->ns[0];
	fill(a, sizeof(a), 1);
	fill(b, sizeof(b), 2);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 500, 8, 0, a, 4096), 0);
	rblk_tgt_pg_quiescent(&env->pg); /* online */
	tr[0] = half(iq, NVME_IO_COMPARE, NVME_CMD_FUSE_FIRST, 0x40, 500, 8, a);
	tr[1] = half(iq, NVME_IO_WRITE, NVME_CMD_FUSE_SECOND, 0x41, 500, 8, b);
	CU_ASSERT_EQUAL(ns->lk_gate, RBLK_GATE_CLOSING);
	CU_ASSERT_EQUAL_FATAL(env->nr_work, 1);
	/* Its poll, without a quiescent state in between: still closing, polls again. */
	w = env->work[0];
	env->nr_work = 0;
	w.fn(w.arg);
	CU_ASSERT_EQUAL(ns->lk_gate, RBLK_GATE_CLOSING);
	CU_ASSERT_EQUAL(env->nr_work, 1);
	CU_ASSERT_FALSE(tr[0]->done);
	/* The group passes one: the next poll closes the gate and the pair runs. */
	rblk_tgt_pg_quiescent(&env->pg);
	wait_done(tr, 2);
	CU_ASSERT_EQUAL(st(tr[0]), 0);
	CU_ASSERT_EQUAL(st(tr[1]), 0);
	rblk_tgt_pg_offline(&env->pg);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 500, 8, 0, r, 4096), 0);
	CU_ASSERT_EQUAL(memcmp(r, b, 4096), 0);
	CU_ASSERT_EQUAL(ns->lk_gate, RBLK_GATE_OPEN);
	teardown();
}

/* ------------------------------------------------------------------------ */
/* A provider that compares and writes itself (as librbd's would).          */

struct cw_prov {
	uint8_t data[64 * 1024];
	unsigned cw_ios;
	int fail;               /* COMPARE_WRITE completes with this when not 0 */
};

static void iov_copy(uint8_t *dst, const struct iovec *iov, int n, bool to_iov)
{
	for (int i = 0; i < n; i++) {
		if (to_iov)
			memcpy(iov[i].iov_base, dst, iov[i].iov_len);
		else
			memcpy(dst, iov[i].iov_base, iov[i].iov_len);
		dst += iov[i].iov_len;
	}
}

static int cw_submit(void *ctx, struct rblk_provider_io *io)
{
	struct cw_prov *p = ctx;
	uint8_t tmp[8192];
	int res = 0;

	switch (io->op) {
	case RBLK_PROVIDER_READ:
		iov_copy(p->data + io->offset, io->iov, io->iovcnt, true);
		break;
	case RBLK_PROVIDER_WRITE:
		iov_copy(p->data + io->offset, io->iov, io->iovcnt, false);
		break;
	case RBLK_PROVIDER_COMPARE_WRITE:
		p->cw_ios++;
		if (p->fail) {
			res = p->fail;
			break;
		}
		iov_copy(tmp, io->cmp_iov, io->cmp_iovcnt, false);
		if (memcmp(tmp, p->data + io->offset, io->len))
			res = -EILSEQ;
		else
			iov_copy(p->data + io->offset, io->iov, io->iovcnt, false);
		break;
	default:
		break;
	}
	rblk_provider_complete(io, res);
	return 0;
}

static const struct rblk_provider_ops cw_ops = {
	.size = sizeof(cw_ops),
	.submit = cw_submit,
};

static void test_provider_compare_write(void)
{
	static struct cw_prov p;
	struct rblk_provider prov;
	uint8_t a[4096], b[4096], c[4096], r[4096];
	uint16_t s1, s2;

	rblk_provider_init(&prov);
	prov.ops = &cw_ops;
	prov.ctx = &p;
	prov.block_size = 512;
	prov.num_blocks = sizeof(p.data) / 512;
	prov.can_compare_write = true;
	setup_ns(&prov);
	fill(a, sizeof(a), 1);
	fill(b, sizeof(b), 2);
	fill(c, sizeof(c), 3);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 16, 8, 0, a, 4096), 0);
	cw(iq, 16, a, b, &s1, &s2);
	CU_ASSERT_EQUAL(s1, 0);
	CU_ASSERT_EQUAL(s2, 0);
	cw(iq, 16, a, c, &s1, &s2);
	CU_ASSERT_EQUAL(s1, NVME_SC_COMPARE_FAILED | NVME_SC_DNR);
	CU_ASSERT_EQUAL(s2, NVME_SC_FUSED_FAIL | NVME_SC_DNR);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 16, 8, 0, r, 4096), 0);
	CU_ASSERT_EQUAL(memcmp(r, b, 4096), 0);
	/* The provider did both; the core's lock was never taken. */
	CU_ASSERT_EQUAL(p.cw_ios, 2);
	/* A failure of the one io: the Write's error, the Compare aborted with it. */
	p.fail = -EIO;
	cw(iq, 16, b, c, &s1, &s2);
	CU_ASSERT_EQUAL(s1, NVME_SC_FUSED_FAIL | NVME_SC_DNR);
	CU_ASSERT_EQUAL(s2, NVME_SC_WRITE_FAULT);
	p.fail = 0;
	/*
	 * A provider with an atomic unit (librbd: one sector): a pair inside
	 * it goes to the provider, one that crosses a multiple of it is
	 * refused whole, never done under the core's gateway-local lock.
	 */
	ss->ns[0]->prov.compare_write_unit = 4096;
	cw(iq, 16, c, a, &s1, &s2);
	CU_ASSERT_EQUAL(s1, NVME_SC_COMPARE_FAILED | NVME_SC_DNR);	/* the Write failed above: b is there */
	cw(iq, 16, b, a, &s1, &s2);
	CU_ASSERT_EQUAL(s1, 0);
	CU_ASSERT_EQUAL(p.cw_ios, 5);
	cw(iq, 20, a, c, &s1, &s2);
	CU_ASSERT_EQUAL(s1, NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(s2, NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(p.cw_ios, 5);
	CU_ASSERT_EQUAL(ss->ns[0]->lk_gate, RBLK_GATE_OPEN);
	teardown();
}

static const struct ut_case cases[] = {
	UT_CASE(test_compare_and_write),
	UT_CASE(test_lone_halves),
	UT_CASE(test_overlapping_write_waits),
	UT_CASE(test_other_writes_wait),
	UT_CASE(test_gate_waits_for_unlocked_writes),
	UT_CASE(test_gate_waits_for_grace_period),
	UT_CASE(test_provider_compare_write),
	UT_END,
};

UT_MAIN("target/fused", cases)

/* SPDX-License-Identifier: MIT */
/*
 * Tests for provider engines on a poll group (target/pg_engine.c, the
 * engine path of target/io.c): an embedder's RAM provider whose ios go
 * through a per-thread engine that, like io_uring, only starts what was
 * flushed and only finishes what it is polled for. Attached once per group
 * at the first io, shared by namespaces naming it, given the group's
 * buffers, each io with its own private area; polled, flushed and put to
 * sleep by the loop's calls; detached once; bad engines refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "test_transport.h"
#include "ut.h"

#define NS_BLOCKS 2048
#define MAX_IOS 64

struct eng_thread {
	struct rblk_provider_io *queued[MAX_IOS]; /* submitted, not flushed */
	unsigned nqueued;
	struct rblk_provider_io *started[MAX_IOS]; /* flushed: poll() finishes them */
	unsigned nstarted;
	unsigned flushes, polls, nbufs;
	int efd;
	bool notify_on;
};

static struct {
	unsigned attaches, detaches, notifies_on;
	struct eng_thread *last;
	bool no_fd;
} st;

static uint8_t *ram;

static int e_attach(const struct rblk_provider_engine *e, void **out)
{
	struct eng_thread *t = calloc(1, sizeof(*t));

	(void)e;
	t->efd = st.no_fd ? -1 : eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	st.attaches++;
	st.last = t;
	*out = t;
	return 0;
}

static void e_detach(void *thread)
{
	struct eng_thread *t = thread;

	CU_ASSERT_EQUAL(t->nqueued + t->nstarted, 0);
	if (t->efd >= 0)
		close(t->efd);
	free(t);
	st.detaches++;
}

static int do_io(struct rblk_provider_io *io)
{
	uint8_t *p = ram + io->offset;

	for (int i = 0; i < io->iovcnt; i++) {
		if (io->op == RBLK_PROVIDER_READ)
			memcpy(io->iov[i].iov_base, p, io->iov[i].iov_len);
		else if (io->op == RBLK_PROVIDER_WRITE)
			memcpy(p, io->iov[i].iov_base, io->iov[i].iov_len);
		p += io->iov[i].iov_len;
	}
	return 0;
}

static int e_poll(void *thread, unsigned max)
{
	struct eng_thread *t = thread;
	unsigned n = 0;

	t->polls++;
	while (t->nstarted && n < max) {
		struct rblk_provider_io *io = t->started[--t->nstarted];
		uint64_t *priv = io->priv;

		/* The io's own area still holds what submit() put there. */
		CU_ASSERT_EQUAL(*priv, io->offset ^ 0x5A5A);
		rblk_provider_complete(io, do_io(io));
		n++;
	}
	return (int)n;
}

static int e_flush(void *thread)
{
	struct eng_thread *t = thread;

	t->flushes++;
	while (t->nqueued)
		t->started[t->nstarted++] = t->queued[--t->nqueued];
	return 0;
}

static unsigned e_inflight(void *thread, unsigned *local)
{
	struct eng_thread *t = thread;

	*local = t->nqueued + t->nstarted;
	return *local;
}

static int e_wait_fd(void *thread)
{
	struct eng_thread *t = thread;

	return t->efd >= 0 ? t->efd : -ENOSYS;
}

static int e_notify(void *thread, bool on)
{
	struct eng_thread *t = thread;

	t->notify_on = on;
	st.notifies_on += on;
	return 0;
}

static int e_register(void *thread, const struct iovec *iov, unsigned n)
{
	struct eng_thread *t = thread;

	(void)iov;
	t->nbufs = n;
	return 0;
}

static const struct rblk_provider_engine engine = {
	.size = sizeof(engine),
	.name = "test",
	.io_priv_size = 64,
	.attach = e_attach,
	.detach = e_detach,
	.poll = e_poll,
	.flush = e_flush,
	.inflight = e_inflight,
	.wait_fd = e_wait_fd,
	.notify = e_notify,
	.register_buffers = e_register,
};

static int p_submit(void *ctx, struct rblk_provider_io *io)
{
	struct eng_thread *t = io->thread;
	uint64_t *priv = io->priv;

	(void)ctx;
	/* The group's context of the engine, and a 16-aligned area of its own. */
	CU_ASSERT_PTR_EQUAL_FATAL(t, st.last);
	CU_ASSERT_PTR_NOT_NULL_FATAL(priv);
	CU_ASSERT_EQUAL((uintptr_t)priv % 16, 0);
	*priv = io->offset ^ 0x5A5A;
	t->queued[t->nqueued++] = io;
	return 0;
}

static const struct rblk_provider_ops p_ops = {
	.size = sizeof(p_ops),
	.submit = p_submit,
};

static struct tt_env *env;
static struct tt_queue *aq, *iq;
static struct rblk_subsystem *ss;

static int add_ns(const struct rblk_provider_engine *e, uint32_t *nsid)
{
	struct rblk_provider p;
	struct rblk_ns_opts no;

	rblk_provider_init(&p);
	p.ops = &p_ops;
	p.block_size = 512;
	p.num_blocks = NS_BLOCKS;
	p.engine = e;
	rblk_ns_opts_init(&no);
	no.provider = &p;
	*nsid = 0;
	return rblk_subsystem_add_namespace(ss, &no, nsid);
}

static void setup(void)
{
	struct rblk_subsystem_opts so;
	uint16_t cntlid;
	uint32_t nsid;

	memset(&st, 0, sizeof(st));
	ram = calloc(NS_BLOCKS, 512);
	env = tt_env_create(NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	rblk_subsystem_opts_init(&so);
	so.nqn = TT_SUBNQN;
	so.allow_any_host = true;
	CU_ASSERT_EQUAL_FATAL(rblk_target_add_subsystem(env->tgt, &so, &ss), 0);
	CU_ASSERT_EQUAL_FATAL(add_ns(&engine, &nsid), 0);
	CU_ASSERT_EQUAL_FATAL(add_ns(&engine, &nsid), 0);
	aq = tt_queue_create(env, 0, 32);
	cntlid = tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 5000);
	CU_ASSERT_NOT_EQUAL_FATAL(cntlid, 0);
	iq = tt_queue_create(env, 1, 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(iq, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid, 0, 0, NULL), 0);
}

static void teardown(void)
{
	tt_queue_destroy(iq);
	tt_queue_destroy(aq);
	tt_env_destroy(env);
	free(ram);
}

static void test_attached_once_at_first_io_and_shared(void)
{
	uint8_t w[4096], r[4096];

	setup();
	/* No io yet: nothing attached (admin commands need no storage). */
	CU_ASSERT_EQUAL(st.attaches, 0);
	for (unsigned i = 0; i < sizeof(w); i++)
		w[i] = (uint8_t)(i * 7 + 3);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 8, 8, 0, w, sizeof(w)), 0);
	CU_ASSERT_EQUAL(st.attaches, 1);
	/* Namespace 2 names the same engine: the same context. */
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 2, 64, 8, 0, w, sizeof(w)), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_READ, 1, 8, 8, 0, r, sizeof(r)), 0);
	CU_ASSERT_EQUAL(memcmp(r, w, sizeof(w)), 0);
	CU_ASSERT_EQUAL(st.attaches, 1);
	CU_ASSERT(st.last->flushes >= 3);
	teardown();
	CU_ASSERT_EQUAL(st.detaches, 1);
}

/* Submitted ios start at the flush and finish at a poll, as with io_uring. */
static void test_flush_then_poll(void)
{
	uint8_t w[512] = { 0x42 };
	struct nvme_rw_cmd c;
	struct tt_req *tr;
	unsigned local;

	setup();
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 0, 1, 0, w, sizeof(w)), 0);
	tt_rw_sqe(&c, NVME_IO_WRITE, 5, 1, 1, 1);
	tr = tt_send(iq, (struct nvme_sqe *)&c, w, sizeof(w));
	CU_ASSERT_PTR_NOT_NULL_FATAL(tr);
	CU_ASSERT_EQUAL(st.last->nqueued, 1);
	CU_ASSERT_EQUAL(rblk_tgt_pg_storage_inflight(&env->pg, &local), 1);
	CU_ASSERT_EQUAL(local, 1);
	/* Polled before the flush: nothing to finish. */
	CU_ASSERT_EQUAL(rblk_tgt_pg_storage_poll(&env->pg), 0);
	CU_ASSERT_FALSE(tr->done);
	rblk_tgt_pg_storage_flush(&env->pg);
	CU_ASSERT_EQUAL(st.last->nstarted, 1);
	CU_ASSERT_EQUAL(rblk_tgt_pg_storage_poll(&env->pg), 1);
	tt_pump(env);
	CU_ASSERT_TRUE(tr->done);
	CU_ASSERT_EQUAL(tt_status(&tr->cqe), 0);
	tt_req_release(tr);
	teardown();
}

/* Before sleeping the wait fd is switched on; awake it is off again. */
static void test_sleep_and_wake(void)
{
	uint8_t w[512] = { 0 };
	struct nvme_rw_cmd c;
	struct tt_req *tr;

	setup();
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 0, 1, 0, w, sizeof(w)), 0);
	CU_ASSERT_FALSE(st.last->notify_on);
	CU_ASSERT_FALSE(rblk_tgt_pg_storage_sleep(&env->pg, true));
	CU_ASSERT_TRUE(st.last->notify_on);
	CU_ASSERT_TRUE(rblk_tgt_pg_storage_event(&env->pg, &env->pg.eng[1].fd));
	CU_ASSERT_FALSE(rblk_tgt_pg_storage_event(&env->pg, &env->pg));
	rblk_tgt_pg_storage_awake(&env->pg);
	CU_ASSERT_FALSE(st.last->notify_on);
	/* Work finished before the sleep is found by its last poll. */
	tt_rw_sqe(&c, NVME_IO_WRITE, 6, 1, 2, 1);
	tr = tt_send(iq, (struct nvme_sqe *)&c, w, sizeof(w));
	rblk_tgt_pg_storage_flush(&env->pg);
	CU_ASSERT_TRUE(rblk_tgt_pg_storage_sleep(&env->pg, false));
	tt_pump(env);
	CU_ASSERT_TRUE(tr->done);
	tt_req_release(tr);
	teardown();
}

/* Without a wait fd nothing would wake the group: it must not sleep with ios out. */
static void test_no_wait_fd_keeps_polling(void)
{
	uint8_t w[512] = { 0 };
	struct nvme_rw_cmd c;
	struct tt_req *tr;

	setup();
	st.no_fd = true;
	tt_rw_sqe(&c, NVME_IO_WRITE, 6, 1, 2, 1);
	tr = tt_send(iq, (struct nvme_sqe *)&c, w, sizeof(w));
	CU_ASSERT_EQUAL(env->pg.eng[1].fd, -1);
	CU_ASSERT_TRUE(rblk_tgt_pg_storage_sleep(&env->pg, false));
	tt_pump(env);
	CU_ASSERT_TRUE(tr->done);
	CU_ASSERT_FALSE(rblk_tgt_pg_storage_sleep(&env->pg, false));
	tt_req_release(tr);
	teardown();
}

/* The group's buffers: registered at attach, and again when they change while idle. */
static void test_buffers_offered(void)
{
	static uint8_t pool[4][4096];
	struct iovec iov[4];
	uint8_t w[512] = { 0 };

	for (int i = 0; i < 4; i++)
		iov[i] = (struct iovec){ pool[i], sizeof(pool[i]) };
	setup();
	CU_ASSERT_EQUAL(rblk_tgt_pg_storage_buffers(&env->pg, iov, 4), 0);
	CU_ASSERT_EQUAL(tt_rw(iq, NVME_IO_WRITE, 1, 0, 1, 0, w, sizeof(w)), 0);
	CU_ASSERT_EQUAL(st.last->nbufs, 4);
	CU_ASSERT_TRUE(env->pg.eng[1].bufs);
	CU_ASSERT_EQUAL(rblk_tgt_pg_storage_buffers(&env->pg, iov, 2), 0);
	CU_ASSERT_EQUAL(st.last->nbufs, 2);
	teardown();
}

static void test_bad_engines_refused(void)
{
	struct rblk_provider_engine big = engine, nopoll = engine, more[3];
	uint32_t nsid;

	setup();
	big.io_priv_size = RBLK_PROVIDER_IO_PRIV_MAX + 1;
	CU_ASSERT_EQUAL(add_ns(&big, &nsid), -EINVAL);
	nopoll.poll = NULL;
	CU_ASSERT_EQUAL(add_ns(&nopoll, &nsid), -EINVAL);
	/*
	 * Four slots: the built-in storage's engine (registered at create) and
	 * the test engine hold two, two more fit, the fifth does not.
	 */
	for (int i = 0; i < 3; i++)
		more[i] = engine;
	for (int i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(add_ns(&more[i], &nsid), 0);
	CU_ASSERT_EQUAL(add_ns(&more[2], &nsid), -ENOSPC);
	teardown();
}

static const struct ut_case cases[] = {
	UT_CASE(test_attached_once_at_first_io_and_shared),
	UT_CASE(test_flush_then_poll),
	UT_CASE(test_sleep_and_wake),
	UT_CASE(test_no_wait_fd_keeps_polling),
	UT_CASE(test_buffers_offered),
	UT_CASE(test_bad_engines_refused),
	UT_END,
};

UT_MAIN("target/pg_engine", cases)

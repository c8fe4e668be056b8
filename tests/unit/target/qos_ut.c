/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/qos.c: the bucket arithmetic on a fake clock (an I/O
 * limit, a byte limit, both, the debt of a large I/O, refill and its cap, a
 * live change, 0 = off), then the command path through the test transport
 * on two poll groups: exactly the limit's commands start per slice across
 * both, in arrival order per group, another namespace unaffected, and the
 * waiters of a queue torn down or of a namespace removed answered.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_transport.h"
#include "ut.h"

#define UNIT 1000000000ull /* qos.c's credit per I/O or byte */
#define MS 1000000ull

static uint64_t fake_ns = 1000 * MS;

static uint64_t fake_clock(void)
{
	return fake_ns;
}

static struct tt_env *env;
static struct rblk_tgt_pg pg1; /* a second poll group, pumped by hand */
static struct tt_queue *aq, *q0, *q1;
static struct rblk_subsystem *ss;
static uint16_t cntlid;

static void setup(void)
{
	struct rblk_target_opts o;
	struct rblk_ns_opts no;

	rblk_qos_set_clock(fake_clock);
	rblk_target_opts_init(&o);
	o.num_poll_groups = 2;
	env = tt_env_create(&o, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	memset(&pg1, 0, sizeof(pg1));
	CU_ASSERT_EQUAL_FATAL(rblk_tgt_pg_register(env->tgt, &pg1, 1), 0);
	/* Like the test transport's group: grace periods do not wait for it. */
	rblk_tgt_pg_offline(&pg1);
	ss = tt_add_subsys(env, TT_SUBNQN, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ss);
	rblk_ns_opts_init(&no);
	no.path = "mem:1M";
	no.nsid = 1;
	CU_ASSERT_EQUAL_FATAL(rblk_subsystem_add_namespace(ss, &no, NULL), 0);
	no.nsid = 2;
	CU_ASSERT_EQUAL_FATAL(rblk_subsystem_add_namespace(ss, &no, NULL), 0);
	aq = tt_queue_create(env, 0, 32);
	cntlid = tt_admin_bringup(aq, TT_SUBNQN, TT_HOSTNQN, 5000);
	CU_ASSERT_NOT_EQUAL_FATAL(cntlid, 0);
	q0 = tt_queue_create(env, 1, 0);
	CU_ASSERT_EQUAL_FATAL(tt_connect(q0, TT_SUBNQN, TT_HOSTNQN, 1, 127, cntlid, 0, 0, NULL), 0);
	/* The same controller's second I/O queue, on the other poll group. */
	q1 = tt_queue_create(env, 2, 0);
	q1->sq.pg = &pg1;
	CU_ASSERT_EQUAL_FATAL(tt_connect(q1, TT_SUBNQN, TT_HOSTNQN, 2, 127, cntlid, 0, 0, NULL), 0);
}

/* Both groups' loops, once each, until nothing moves. */
static unsigned pump(void)
{
	unsigned n, total = 0;

	do {
		n = tt_pump(env);
		if (pg1.qos_waiting)
			n += rblk_tgt_pg_qos_poll(&pg1);
		rblk_tgt_pg_storage_flush(&pg1);
		n += rblk_tgt_pg_storage_poll(&pg1);
		n += tt_pump(env);
		total += n;
	} while (n);
	return total;
}

static void teardown(void)
{
	tt_queue_destroy(q1);
	tt_queue_destroy(q0);
	tt_queue_destroy(aq);
	q0 = q1 = aq = NULL;
	pump();
	rblk_tgt_pg_storage_detach(&pg1);
	rblk_tgt_pg_unregister(env->tgt, &pg1);
	tt_env_destroy(env);
	env = NULL;
	rblk_qos_set_clock(NULL);
}

static struct rblk_tgt_ns *ns_of(uint32_t nsid)
{
	return ss->ns[nsid - 1];
}

static void set_limits(uint32_t nsid, uint64_t ios, uint64_t rw_mb, uint64_t r_mb, uint64_t w_mb)
{
	struct rblk_ns_qos q;

	rblk_ns_qos_init(&q);
	q.rw_ios_per_sec = ios;
	q.rw_mbytes_per_sec = rw_mb;
	q.r_mbytes_per_sec = r_mb;
	q.w_mbytes_per_sec = w_mb;
	CU_ASSERT_EQUAL(rblk_subsystem_set_ns_qos(ss, nsid, &q), 0);
}

/* How many commands of cost (ios, bytes; a read) the bucket lets go at now. */
static unsigned takes(struct rblk_tgt_qos *q, uint64_t bytes, bool write, unsigned max)
{
	uint64_t cost[RBLK_QOS_NR] = {
		[RBLK_QOS_RW_IOS] = UNIT,
		[RBLK_QOS_RW_BYTES] = bytes * UNIT,
		[RBLK_QOS_R_BYTES] = write ? 0 : bytes * UNIT,
		[RBLK_QOS_W_BYTES] = write ? bytes * UNIT : 0,
	};
	unsigned n = 0;

	while (n < max && rblk_qos_take(q, cost, fake_ns))
		n++;
	return n;
}

/* ------------------------------------------------------------------------ */
/* The bucket.                                                               */

static void test_ios_limit_refill_and_cap(void)
{
	struct rblk_tgt_qos *q;

	setup();
	q = ns_of(1)->qos;
	set_limits(1, 10000, 0, 0, 0); /* 10 a slice */
	CU_ASSERT_TRUE(atomic_load(&ns_of(1)->qos_on));
	CU_ASSERT_FALSE(atomic_load(&ns_of(2)->qos_on));
	/* A new limit starts with one slice of credit, not a burst. */
	CU_ASSERT_EQUAL(takes(q, 4096, false, 1000), 10);
	/* Within the slice nothing comes back... */
	fake_ns += MS / 2;
	CU_ASSERT_EQUAL(takes(q, 4096, false, 1000), 0);
	/* ... then the time since the last refill does: 1.5 ms, 15. */
	fake_ns += MS;
	CU_ASSERT_EQUAL(takes(q, 4096, false, 1000), 15);
	for (int s = 0; s < 5; s++) {
		fake_ns += MS;
		CU_ASSERT_EQUAL(takes(q, 4096, false, 1000), 10);
	}
	/* Idle for a second: capped at RBLK_QOS_BURST_SLICES slices of it. */
	fake_ns += 1000 * MS;
	CU_ASSERT_EQUAL(takes(q, 4096, false, 100000), 10 * RBLK_QOS_BURST_SLICES);
	teardown();
}

/* 500 a second is half an I/O a slice: one every other slice, never early. */
static void test_ios_limit_below_one_a_slice(void)
{
	struct rblk_tgt_qos *q;
	unsigned total = 0;

	setup();
	q = ns_of(1)->qos;
	set_limits(1, 500, 0, 0, 0);
	for (int s = 0; s < 1000; s++) {
		total += takes(q, 512, false, 10);
		fake_ns += MS;
	}
	CU_ASSERT_EQUAL(total, 500);
	teardown();
}

static void test_bytes_limits(void)
{
	struct rblk_tgt_qos *q;
	unsigned total = 0;

	setup();
	q = ns_of(1)->qos;
	/* 4 MiB/s read: 1024 reads of 4 KiB a second; writes are free. */
	set_limits(1, 0, 0, 4, 0);
	for (int s = 0; s < 1000; s++) {
		total += takes(q, 4096, false, 100);
		fake_ns += MS;
	}
	CU_ASSERT(total >= 1023 && total <= 1025);
	CU_ASSERT_EQUAL(takes(q, 4096, true, 100), 100);
	/* Both kinds: rw 8 MiB/s and w 2 MiB/s; writes held at 2 MiB/s. */
	set_limits(1, 0, 8, 0, 2);
	total = 0;
	for (int s = 0; s < 1000; s++) {
		total += takes(q, 4096, true, 100);
		fake_ns += MS;
	}
	CU_ASSERT(total >= 511 && total <= 513);
	teardown();
}

static void test_ios_and_bytes_at_once(void)
{
	struct rblk_tgt_qos *q;
	unsigned small = 0, big = 0;

	setup();
	q = ns_of(1)->qos;
	/* 2000 IOPS and 16 MiB/s: small I/O meets the first, 128 KiB the second. */
	set_limits(1, 2000, 16, 0, 0);
	for (int s = 0; s < 1000; s++) {
		small += takes(q, 512, false, 100);
		fake_ns += MS;
	}
	CU_ASSERT(small >= 1999 && small <= 2001);
	/* Again: the byte credit small reads left unused is cut to a slice. */
	set_limits(1, 2000, 16, 0, 0);
	for (int s = 0; s < 1000; s++) {
		big += takes(q, 131072, false, 100);
		fake_ns += MS;
	}
	CU_ASSERT(big >= 127 && big <= 129);
	teardown();
}

/* An I/O larger than a second's budget goes, and the debt holds the next ones. */
static void test_large_io_goes_into_debt(void)
{
	struct rblk_tgt_qos *q;

	setup();
	q = ns_of(1)->qos;
	set_limits(1, 0, 1, 0, 0); /* 1 MiB/s */
	CU_ASSERT_EQUAL(takes(q, 2u << 20, false, 1), 1);
	CU_ASSERT(atomic_load(&q->avail[RBLK_QOS_RW_BYTES]) < 0);
	fake_ns += 1990 * MS;
	CU_ASSERT_EQUAL(takes(q, 512, false, 1), 0);
	fake_ns += 20 * MS;
	CU_ASSERT_EQUAL(takes(q, 512, false, 1), 1);
	teardown();
}

static void test_live_change_and_off(void)
{
	struct rblk_tgt_qos *q;
	struct rblk_ns_qos got;

	setup();
	q = ns_of(1)->qos;
	set_limits(1, 100000, 0, 0, 0);
	/* Credit saved at 100 a slice... */
	CU_ASSERT_EQUAL(takes(q, 512, false, 1), 1);
	fake_ns += 100 * MS;
	/* ... is cut to one slice of a lowered limit, and the time since counts at the new rate. */
	set_limits(1, 10000, 0, 0, 0);
	CU_ASSERT_EQUAL(takes(q, 512, false, 1000), 10);
	fake_ns += MS;
	CU_ASSERT_EQUAL(takes(q, 512, false, 1000), 10);
	/* Raised: the next refill is at the new rate. */
	set_limits(1, 50000, 0, 0, 0);
	fake_ns += MS;
	CU_ASSERT_EQUAL(takes(q, 512, false, 1000), 50);
	rblk_ns_qos_init(&got);
	CU_ASSERT_EQUAL(rblk_subsystem_get_ns_qos(ss, 1, &got), 0);
	CU_ASSERT_EQUAL(got.rw_ios_per_sec, 50000);
	CU_ASSERT_EQUAL(got.rw_mbytes_per_sec, 0);
	/* 0 everywhere: off, nothing is checked. */
	set_limits(1, 0, 0, 0, 0);
	CU_ASSERT_FALSE(atomic_load(&ns_of(1)->qos_on));
	teardown();
}

static void test_check_and_errors(void)
{
	struct rblk_ns_qos q;
	char why[128];

	setup();
	rblk_ns_qos_init(&q);
	q.rw_ios_per_sec = RBLK_NS_QOS_MAX_IOS_PER_SEC + 1;
	CU_ASSERT_EQUAL(rblk_ns_qos_check(&q, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "rw_ios_per_sec"));
	CU_ASSERT_EQUAL(rblk_subsystem_set_ns_qos(ss, 1, &q), -EINVAL);
	q.rw_ios_per_sec = 0;
	q.w_mbytes_per_sec = RBLK_NS_QOS_MAX_MBYTES_PER_SEC + 1;
	CU_ASSERT_EQUAL(rblk_ns_qos_check(&q, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "w_mbytes_per_sec"));
	q.w_mbytes_per_sec = 1;
	CU_ASSERT_EQUAL(rblk_subsystem_set_ns_qos(ss, 9, &q), -ENOENT);
	CU_ASSERT_EQUAL(rblk_subsystem_get_ns_qos(ss, 9, &q), -ENOENT);
	teardown();
}

/* ------------------------------------------------------------------------ */
/* The command path.                                                         */

#define PER_Q 20

static struct tt_req *send_read(struct tt_queue *q, uint16_t cid, uint32_t nsid)
{
	struct nvme_rw_cmd c;
	struct tt_req *tr;

	tt_rw_sqe(&c, NVME_IO_READ, cid, nsid, cid, 1);
	tr = tt_send(q, (struct nvme_sqe *)&c, NULL, 512);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tr);
	return tr;
}

static unsigned count_done(struct tt_req **tr, unsigned n)
{
	unsigned d = 0;

	for (unsigned i = 0; i < n; i++)
		d += tr[i]->done;
	return d;
}

/* Done commands are a prefix of the sent ones: arrival order per group. */
static bool done_in_order(struct tt_req **tr, unsigned n)
{
	unsigned i = 0;

	while (i < n && tr[i]->done)
		i++;
	while (i < n && !tr[i]->done)
		i++;
	return i == n;
}

static void test_limit_across_two_poll_groups(void)
{
	struct tt_req *a[PER_Q], *b[PER_Q];
	unsigned prev = 0;

	setup();
	set_limits(1, 10000, 0, 0, 0); /* 10 commands a slice over both groups */
	for (unsigned i = 0; i < PER_Q; i++) {
		a[i] = send_read(q0, (uint16_t)i, 1);
		b[i] = send_read(q1, (uint16_t)i, 1);
	}
	pump();
	CU_ASSERT_EQUAL(count_done(a, PER_Q) + count_done(b, PER_Q), 10);
	CU_ASSERT_EQUAL(ns_stats(ns_of(1)).qos_waits, 2 * PER_Q - 10);
	/* Another namespace on the same queues is not held. */
	CU_ASSERT_EQUAL(tt_rw(q0, NVME_IO_READ, 2, 0, 1, 0, NULL, 512), 0);
	CU_ASSERT_EQUAL(ns_stats(ns_of(2)).qos_waits, 0);
	prev = 10;
	for (int s = 1; s <= 3; s++) {
		unsigned now;

		/* Nothing before the slice is over... */
		fake_ns += MS - 1;
		pump();
		CU_ASSERT_EQUAL(count_done(a, PER_Q) + count_done(b, PER_Q), prev);
		/* ... then exactly the slice's 10, over both groups. */
		fake_ns += 1;
		pump();
		now = count_done(a, PER_Q) + count_done(b, PER_Q);
		CU_ASSERT_EQUAL(now - prev, 10);
		prev = now;
		CU_ASSERT_TRUE(done_in_order(a, PER_Q));
		CU_ASSERT_TRUE(done_in_order(b, PER_Q));
	}
	CU_ASSERT_EQUAL(prev, 2 * PER_Q);
	CU_ASSERT_PTR_NULL(env->pg.qos_waiting);
	CU_ASSERT_PTR_NULL(pg1.qos_waiting);
	for (unsigned i = 0; i < PER_Q; i++) {
		CU_ASSERT_EQUAL(tt_status(&a[i]->cqe), 0);
		CU_ASSERT_EQUAL(tt_status(&b[i]->cqe), 0);
		tt_req_release(a[i]);
		tt_req_release(b[i]);
	}
	CU_ASSERT_EQUAL(ns_stats(ns_of(1)).read_cmds, 2 * PER_Q);
	teardown();
}

/* Lifting the limit starts every waiter at once. */
static void test_waiters_go_when_limit_lifted(void)
{
	struct tt_req *a[PER_Q];

	setup();
	set_limits(1, 1000, 0, 0, 0);
	for (unsigned i = 0; i < PER_Q; i++)
		a[i] = send_read(q0, (uint16_t)i, 1);
	pump();
	CU_ASSERT_EQUAL(count_done(a, PER_Q), 1);
	set_limits(1, 0, 0, 0, 0);
	pump();
	CU_ASSERT_EQUAL(count_done(a, PER_Q), PER_Q);
	CU_ASSERT_TRUE(done_in_order(a, PER_Q));
	for (unsigned i = 0; i < PER_Q; i++)
		tt_req_release(a[i]);
	teardown();
}

/* A queue torn down: its waiters are aborted, the other queue's stay in line. */
static void test_teardown_aborts_waiters(void)
{
	struct tt_req *a[PER_Q], *b[PER_Q];

	setup();
	set_limits(1, 1000, 0, 0, 0);
	for (unsigned i = 0; i < PER_Q; i++) {
		a[i] = send_read(q0, (uint16_t)i, 1);
		b[i] = send_read(q1, (uint16_t)i, 1);
	}
	pump();
	CU_ASSERT_EQUAL(count_done(a, PER_Q) + count_done(b, PER_Q), 1);
	rblk_sq_teardown(&q1->sq);
	pump();
	CU_ASSERT_EQUAL(count_done(b, PER_Q), PER_Q);
	for (unsigned i = 0; i < PER_Q; i++)
		CU_ASSERT_EQUAL(TT_SC(tt_status(&b[i]->cqe)), NVME_SC_ABORT_QUEUE | NVME_SC_DNR);
	CU_ASSERT_PTR_NULL(pg1.qos_waiting);
	CU_ASSERT_PTR_NOT_NULL(env->pg.qos_waiting);
	CU_ASSERT_EQUAL(rblk_tgt_ns_inflight(ns_of(1)), PER_Q - 1);
	fake_ns += MS;
	pump();
	fake_ns += MS;
	pump();
	CU_ASSERT_EQUAL(count_done(a, PER_Q), 3);
	rblk_sq_teardown(&q0->sq);
	pump();
	CU_ASSERT_EQUAL(count_done(a, PER_Q), PER_Q);
	CU_ASSERT_PTR_NULL(env->pg.qos_waiting);
	CU_ASSERT_EQUAL(rblk_tgt_ns_inflight(ns_of(1)), 0);
	teardown();
}

struct remover {
	uint32_t nsid;
	int ret;
	_Atomic bool done;
};

static void *remove_thread(void *arg)
{
	struct remover *rm = arg;

	rm->ret = rblk_subsystem_remove_namespace(ss, rm->nsid);
	atomic_store(&rm->done, true);
	return NULL;
}

/* Removing a limited namespace does not wait for its waiters' credit. */
static void test_remove_ns_with_waiters(void)
{
	struct remover rm = { .nsid = 1 };
	struct tt_req *a[PER_Q];
	pthread_t th;

	setup();
	set_limits(1, 1, 0, 0, 0); /* one a second: at the limit, 19 s */
	for (unsigned i = 0; i < PER_Q; i++)
		a[i] = send_read(q0, (uint16_t)i, 1);
	pump();
	CU_ASSERT_EQUAL(count_done(a, PER_Q), 1);
	pthread_create(&th, NULL, remove_thread, &rm);
	while (!atomic_load(&rm.done))
		pump();
	pthread_join(th, NULL);
	CU_ASSERT_EQUAL(rm.ret, 0);
	CU_ASSERT_EQUAL(count_done(a, PER_Q), PER_Q);
	CU_ASSERT_PTR_NULL(env->pg.qos_waiting);
	for (unsigned i = 0; i < PER_Q; i++) {
		CU_ASSERT_EQUAL(tt_status(&a[i]->cqe), 0);
		tt_req_release(a[i]);
	}
	teardown();
}

static const struct ut_case cases[] = {
	UT_CASE(test_ios_limit_refill_and_cap),
	UT_CASE(test_ios_limit_below_one_a_slice),
	UT_CASE(test_bytes_limits),
	UT_CASE(test_ios_and_bytes_at_once),
	UT_CASE(test_large_io_goes_into_debt),
	UT_CASE(test_live_change_and_off),
	UT_CASE(test_check_and_errors),
	UT_CASE(test_limit_across_two_poll_groups),
	UT_CASE(test_waiters_go_when_limit_lifted),
	UT_CASE(test_teardown_aborts_waiters),
	UT_CASE(test_remove_ns_with_waiters),
	UT_END,
};

UT_MAIN("target/qos", cases)

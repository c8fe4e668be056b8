/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/rdma/poll_group.c without RDMA devices: the mailbox (run_on
 * runs on the group's thread, in order, exactly once, also when posted right
 * before a stop), adaptive and event polling sleep when idle and wake up for
 * a message, busy polling never sleeps. The adaptive spin's decisions are
 * spin_ut.c's.
 *
 * Every verdict is a count of the group's events (its stats: iterations,
 * sleeps, messages run), never a duration: the test waits for a count to be
 * reached, and the wait's bound (HANG_GUARD_MS) only keeps a broken group
 * from hanging the run. On a loaded machine the waits take longer; what
 * they wait for does not change.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "target/rdma/poll_group.h"
#include "ut.h"

#define HANG_GUARD_MS 10000

struct probe {
	_Atomic uint64_t runs;
	_Atomic int order_ok;
	_Atomic int last;
	pthread_t thread;
	int seq;
};

static void probe_fn(void *arg)
{
	struct probe *p = arg;

	p->thread = pthread_self();
	atomic_fetch_add(&p->runs, 1);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static struct rblk_poll_group *start(enum rblk_poll_mode mode)
{
	struct rblk_pg_opts o;
	struct rblk_poll_group *pg;
	int ret;

	memset(&o, 0, sizeof(o));
	o.id = 7;
	o.mode = mode;
	o.io_unit_size = 8192;
	o.num_units = 4;
	o.tick_ms = 100;
	CU_ASSERT_EQUAL_FATAL(rblk_poll_group_create(&o, NULL, &pg), 0);
	ret = rblk_reactor_start(&pg->r);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	return pg;
}

/* Waits for the event count *c to reach n. */
static bool reaches(_Atomic uint64_t *c, uint64_t n)
{
	for (unsigned i = 0; i < HANG_GUARD_MS && atomic_load(c) < n; i++)
		sleep_ms(1);
	return atomic_load(c) >= n;
}

static void test_run_on_runs_on_the_group_thread_in_order(void)
{
	struct rblk_poll_group *pg = start(RBLK_POLL_ADAPTIVE);
	static struct probe p[8];

	for (int i = 0; i < 8; i++) {
		memset(&p[i], 0, sizeof(p[i]));
		p[i].seq = i + 1;
	}
	for (int i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(rblk_reactor_run_on(&pg->r, probe_fn, &p[i]), 0);
	for (int i = 0; i < 8; i++) {
		CU_ASSERT_TRUE(reaches(&p[i].runs, 1));
		CU_ASSERT_EQUAL(atomic_load(&p[i].runs), 1);
		CU_ASSERT_FALSE(pthread_equal(p[i].thread, pthread_self()));
		CU_ASSERT_TRUE(pthread_equal(p[i].thread, p[0].thread));
	}
	rblk_poll_group_destroy(pg);
}

static void chain_fn(void *arg)
{
	struct probe *p = arg;

	/* Strictly increasing across calls means FIFO. */
	if (atomic_load(&p->last) + 1 == p->seq)
		atomic_fetch_add(&p->order_ok, 1);
	atomic_store(&p->last, p->seq);
	atomic_fetch_add(&p->runs, 1);
}

struct seq_arg {
	struct probe *shared;
	int seq;
};

static void seq_fn(void *arg)
{
	struct seq_arg *a = arg;

	a->shared->seq = a->seq;
	chain_fn(a->shared);
}

static void test_messages_before_stop_still_run_once(void)
{
	struct rblk_poll_group *pg = start(RBLK_POLL_EVENT);
	static struct seq_arg args[100];
	struct probe shared;

	memset(&shared, 0, sizeof(shared));
	for (int i = 0; i < 100; i++) {
		args[i].shared = &shared;
		args[i].seq = i + 1;
		CU_ASSERT_EQUAL(rblk_reactor_run_on(&pg->r, seq_fn, &args[i]), 0);
	}
	rblk_reactor_stop(&pg->r);
	CU_ASSERT_EQUAL(atomic_load(&shared.runs), 100);
	CU_ASSERT_EQUAL(atomic_load(&shared.order_ok), 100);
	rblk_poll_group_destroy(pg);
}

/*
 * Asleep for good: not one iteration nor sleep more while nothing happens.
 * A group without queues sleeps with no timeout, so any count here is a
 * wakeup without a cause. The pause only gives one the time to show; load
 * makes it shorter in effect, and cannot make the counts move.
 */
static bool stays_asleep(struct rblk_poll_group *pg)
{
	uint64_t iterations = atomic_load(&pg->r.stats.iterations);
	uint64_t sleeps = atomic_load(&pg->r.stats.sleeps);

	sleep_ms(20);
	return atomic_load(&pg->r.stats.iterations) == iterations &&
	       atomic_load(&pg->r.stats.sleeps) == sleeps;
}

static void idle_sleeps(enum rblk_poll_mode mode)
{
	struct rblk_poll_group *pg = start(mode);
	uint64_t sleeps, iterations;
	struct probe p;

	/* No queues, nothing in flight: it goes to sleep, and stays asleep. */
	CU_ASSERT_TRUE_FATAL(reaches(&pg->r.stats.sleeps, 1));
	CU_ASSERT_TRUE(stays_asleep(pg));
	CU_ASSERT_EQUAL(atomic_load(&pg->r.stats.msgs), 0);
	/* A message wakes it: the message runs, and the group sleeps again, once. */
	memset(&p, 0, sizeof(p));
	p.seq = 1;
	sleeps = atomic_load(&pg->r.stats.sleeps);
	iterations = atomic_load(&pg->r.stats.iterations);
	CU_ASSERT_EQUAL(rblk_reactor_run_on(&pg->r, probe_fn, &p), 0);
	CU_ASSERT_TRUE(reaches(&pg->r.stats.msgs, 1));
	CU_ASSERT_EQUAL(atomic_load(&p.runs), 1);
	CU_ASSERT_TRUE(reaches(&pg->r.stats.sleeps, sleeps + 1));
	CU_ASSERT_TRUE(stays_asleep(pg));
	CU_ASSERT_EQUAL(atomic_load(&pg->r.stats.sleeps), sleeps + 1);
	CU_ASSERT_EQUAL(atomic_load(&pg->r.stats.msgs), 1);
	/*
	 * Event mode polls no more than the message needs: the iteration that
	 * runs it and the empty one that sends the group back to sleep. (The
	 * adaptive mode spins a while first, for as long as its clock says.)
	 */
	if (mode == RBLK_POLL_EVENT)
		CU_ASSERT_EQUAL(atomic_load(&pg->r.stats.iterations), iterations + 2);
	rblk_poll_group_destroy(pg);
}

static void test_adaptive_sleeps_when_idle(void)
{
	idle_sleeps(RBLK_POLL_ADAPTIVE);
}

static void test_event_sleeps_when_idle(void)
{
	idle_sleeps(RBLK_POLL_EVENT);
}

static void test_busy_never_sleeps(void)
{
	struct rblk_poll_group *pg = start(RBLK_POLL_BUSY);
	struct probe p;

	/* Thousands of empty iterations, and not one sleep among them. */
	CU_ASSERT_TRUE(reaches(&pg->r.stats.iterations, 10000));
	CU_ASSERT_EQUAL(atomic_load(&pg->r.stats.sleeps), 0);
	memset(&p, 0, sizeof(p));
	p.seq = 1;
	CU_ASSERT_EQUAL(rblk_reactor_run_on(&pg->r, probe_fn, &p), 0);
	CU_ASSERT_TRUE(reaches(&pg->r.stats.msgs, 1));
	CU_ASSERT_EQUAL(atomic_load(&p.runs), 1);
	CU_ASSERT_EQUAL(atomic_load(&pg->r.stats.sleeps), 0);
	rblk_poll_group_destroy(pg);
}

static const struct ut_case cases[] = {
	UT_CASE(test_run_on_runs_on_the_group_thread_in_order),
	UT_CASE(test_messages_before_stop_still_run_once),
	UT_CASE(test_adaptive_sleeps_when_idle),
	UT_CASE(test_event_sleeps_when_idle),
	UT_CASE(test_busy_never_sleeps),
	UT_END,
};

UT_MAIN("target/poll_group", cases)

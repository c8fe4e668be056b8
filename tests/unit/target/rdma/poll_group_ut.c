/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/rdma/poll_group.c without RDMA devices: the mailbox (run_on
 * runs on the group's thread, in order, exactly once, also when posted right
 * before a stop), adaptive and event polling sleep when idle (the iteration
 * count stops growing) and wake up for a message, busy polling never sleeps.
 * The adaptive spin's decisions are spin_ut.c's.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "target/rdma/poll_group.h"
#include "ut.h"

struct probe {
	_Atomic int runs;
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
	o.backend = rblk_backend_auto_name(NULL, 0);
	o.bq_depth = 32;
	o.io_unit_size = 8192;
	o.num_units = 4;
	o.tick_ms = 100;
	CU_ASSERT_EQUAL_FATAL(rblk_poll_group_create(&o, NULL, &pg), 0);
	ret = rblk_poll_group_start(pg);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	return pg;
}

static bool wait_runs(struct probe *p, int n)
{
	for (int i = 0; i < 500 && atomic_load(&p->runs) < n; i++)
		sleep_ms(2);
	return atomic_load(&p->runs) >= n;
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
		CU_ASSERT_EQUAL(rblk_poll_group_run_on(pg, probe_fn, &p[i]), 0);
	for (int i = 0; i < 8; i++) {
		CU_ASSERT_TRUE(wait_runs(&p[i], 1));
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
		CU_ASSERT_EQUAL(rblk_poll_group_run_on(pg, seq_fn, &args[i]), 0);
	}
	rblk_poll_group_stop(pg);
	CU_ASSERT_EQUAL(atomic_load(&shared.runs), 100);
	CU_ASSERT_EQUAL(atomic_load(&shared.order_ok), 100);
	rblk_poll_group_destroy(pg);
}

/* Iterations during ms milliseconds of quiet. */
static uint64_t iterations_over(struct rblk_poll_group *pg, unsigned ms)
{
	uint64_t a = atomic_load(&pg->stats.iterations);

	sleep_ms(ms);
	return atomic_load(&pg->stats.iterations) - a;
}

static void idle_sleeps(enum rblk_poll_mode mode)
{
	struct rblk_poll_group *pg = start(mode);
	struct probe p;
	uint64_t sleeps;

	sleep_ms(50);
	/* No queues, nothing in flight: asleep, not spinning. */
	CU_ASSERT_TRUE(atomic_load(&pg->stats.sleeps) >= 1);
	CU_ASSERT_TRUE(iterations_over(pg, 200) <= 2);
	/* A message wakes it, then it sleeps again. */
	memset(&p, 0, sizeof(p));
	p.seq = 1;
	sleeps = atomic_load(&pg->stats.sleeps);
	CU_ASSERT_EQUAL(rblk_poll_group_run_on(pg, probe_fn, &p), 0);
	CU_ASSERT_TRUE(wait_runs(&p, 1));
	sleep_ms(50);
	CU_ASSERT_TRUE(atomic_load(&pg->stats.sleeps) > sleeps);
	CU_ASSERT_TRUE(iterations_over(pg, 200) <= 2);
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

	CU_ASSERT_TRUE(iterations_over(pg, 100) > 100);
	CU_ASSERT_EQUAL(atomic_load(&pg->stats.sleeps), 0);
	memset(&p, 0, sizeof(p));
	p.seq = 1;
	CU_ASSERT_EQUAL(rblk_poll_group_run_on(pg, probe_fn, &p), 0);
	CU_ASSERT_TRUE(wait_runs(&p, 1));
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

/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/rdma/poll_group.c without RDMA devices: the mailbox (run_on
 * runs on the group's thread, in order, exactly once, also when posted right
 * before a stop), adaptive and event polling sleep when idle (the iteration
 * count stops growing) and wake up for a message, busy polling never sleeps;
 * the adaptive spin's decisions (rblk_pg_spin_*), one step at a time.
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

/* A clock the test moves: an iteration's cache, valid and never reset. */
static struct rblk_clock_cache fake_clock(uint64_t ns)
{
	return (struct rblk_clock_cache){ .ns = ns, .valid = true, .on = true };
}

/* Empty iterations until the spin says sleep, the clock moving step_us per iteration. */
static unsigned spins(struct rblk_pg_spin *s, bool due, struct rblk_clock_cache *clk,
		      unsigned step_us)
{
	unsigned polls = 0;

	while (rblk_pg_spin_empty(s, RBLK_POLL_ADAPTIVE, due, clk) == RBLK_PG_NEXT_POLL) {
		clk->ns += step_us * 1000ull;
		if (++polls > 100000)
			break;
	}
	return polls;
}

/* Adaptive: a short window with nothing due, a longer one while completions are due. */
static void test_spin_adaptive_window(void)
{
	struct rblk_clock_cache clk = fake_clock(1000000000ull);
	struct rblk_pg_spin s = { 0 };
	unsigned n;

	/* 1 us per iteration, cost not yet known: the window starts at the first read. */
	n = spins(&s, false, &clk, 1);
	CU_ASSERT(n >= RBLK_PG_SPIN_IDLE_US + RBLK_PG_SPIN_CHECK - 1);
	CU_ASSERT(n <= RBLK_PG_SPIN_IDLE_US + 2 * RBLK_PG_SPIN_CHECK);
	/* Cost known: dated back to the first empty iteration, so exactly the window. */
	rblk_pg_spin_work(&s);
	n = spins(&s, true, &clk, 1);
	CU_ASSERT(n >= RBLK_PG_SPIN_DUE_US - 1);
	CU_ASSERT(n <= RBLK_PG_SPIN_DUE_US + 1);
	rblk_pg_spin_work(&s);
	n = spins(&s, false, &clk, 1);
	CU_ASSERT(n >= RBLK_PG_SPIN_IDLE_US - 1);
	CU_ASSERT(n <= RBLK_PG_SPIN_IDLE_US + 1);
	/* Work found: a new window. */
	rblk_pg_spin_work(&s);
	CU_ASSERT_EQUAL(rblk_pg_spin_empty(&s, RBLK_POLL_ADAPTIVE, false, &clk), RBLK_PG_NEXT_POLL);
}

/* Slow iterations (an emulated VM): the same time, far fewer of them. */
static void test_spin_slow_iterations(void)
{
	struct rblk_clock_cache clk = fake_clock(1000000000ull);
	struct rblk_pg_spin s = { 0 };
	unsigned n;

	n = spins(&s, false, &clk, 30);
	CU_ASSERT(n <= 3 * RBLK_PG_SPIN_CHECK);
	/*
	 * A stale estimate (1 us learnt, now 30 us): one gap of the idle window's
	 * worth of iterations overshoots, then the cost is learnt again.
	 */
	rblk_pg_spin_work(&s);
	s.iter_ns = 1000;
	n = spins(&s, false, &clk, 30);
	CU_ASSERT(n <= RBLK_PG_SPIN_IDLE_US + 1);
	rblk_pg_spin_work(&s);
	n = spins(&s, false, &clk, 30);
	CU_ASSERT(n <= 10);
}

/*
 * Clock reads in one window at step_ns per empty iteration, until the spin
 * says sleep or stop_after iterations. A read is seen as a new mark_ns (the
 * fake clock moves every iteration).
 */
static unsigned window_reads(struct rblk_pg_spin *s, bool due, uint64_t *ns, unsigned step_ns,
			     unsigned stop_after)
{
	unsigned reads = 0;

	rblk_pg_spin_work(s);
	for (unsigned i = 0; i < stop_after; i++) {
		struct rblk_clock_cache clk = fake_clock(*ns);
		uint64_t mark = s->mark_ns;
		enum rblk_pg_next next = rblk_pg_spin_empty(s, RBLK_POLL_ADAPTIVE, due, &clk);

		reads += s->mark_ns != mark;
		*ns += step_ns;
		if (next == RBLK_PG_NEXT_SLEEP)
			break;
	}
	return reads;
}

/* One preempted measurement (10 ms for an iteration) is forgotten at the next one. */
static void test_spin_forgets_a_preempted_measurement(void)
{
	struct rblk_pg_spin s = { .iter_ns = 10000000 };
	uint64_t ns = 1000000000ull;

	CU_ASSERT(window_reads(&s, false, &ns, 1000, 100000) <= 3);
	CU_ASSERT_EQUAL(s.iter_ns, 1000);
}

/*
 * The clock is read rarely: a window that work ends early reads it not at
 * all once the cost is known, and a whole window a few times, not once per
 * RBLK_PG_SPIN_CHECK iterations.
 */
static void test_spin_reads_the_clock_rarely(void)
{
	struct rblk_clock_cache clk = { 0 };
	struct rblk_pg_spin s = { 0 };
	uint64_t ns = 1000000000ull;

	clk.on = true; /* reset, as the loop does each iteration */
	for (unsigned i = 1; i < RBLK_PG_SPIN_CHECK; i++) {
		clk.valid = false;
		CU_ASSERT_EQUAL(rblk_pg_spin_empty(&s, RBLK_POLL_ADAPTIVE, false, &clk),
				RBLK_PG_NEXT_POLL);
		CU_ASSERT_FALSE(clk.valid); /* not read */
	}
	clk.valid = false;
	CU_ASSERT_EQUAL(rblk_pg_spin_empty(&s, RBLK_POLL_ADAPTIVE, false, &clk), RBLK_PG_NEXT_POLL);
	CU_ASSERT_TRUE(clk.valid); /* read once: the window starts */

	/* 2 us per iteration, the real pace of a TCG VM; the first window learns it. */
	memset(&s, 0, sizeof(s));
	CU_ASSERT(window_reads(&s, false, &ns, 2000, 100000) <= 4);
	CU_ASSERT(s.iter_ns >= 1900 && s.iter_ns <= 2100);
	CU_ASSERT(window_reads(&s, false, &ns, 2000, 100000) <= 2);
	CU_ASSERT(window_reads(&s, true, &ns, 2000, 100000) <= 5);
	/* Work after 20 empty iterations (40 us): no read at all. */
	CU_ASSERT_EQUAL(window_reads(&s, false, &ns, 2000, 20), 0);
	CU_ASSERT_EQUAL(window_reads(&s, true, &ns, 2000, 20), 0);
}

/* Completions stopped being due mid-window: decided at once, not at the old guess. */
static void test_spin_due_change_reads_now(void)
{
	struct rblk_pg_spin s = { .iter_ns = 1000 };
	struct rblk_clock_cache clk = fake_clock(1000000);
	uint64_t mark = 0;
	unsigned i, reads = 0;

	/* 150 iterations of 1 us with completions due: within the due window. */
	for (i = 0; i < 150; i++) {
		CU_ASSERT_EQUAL(rblk_pg_spin_empty(&s, RBLK_POLL_ADAPTIVE, true, &clk),
				RBLK_PG_NEXT_POLL);
		reads += s.mark_ns != mark;
		mark = s.mark_ns;
		clk.ns += 1000;
	}
	CU_ASSERT(reads <= 2);
	/* Nothing due any more: 150 us is past the idle window, so sleep now. */
	CU_ASSERT_EQUAL(rblk_pg_spin_empty(&s, RBLK_POLL_ADAPTIVE, false, &clk), RBLK_PG_NEXT_SLEEP);
	CU_ASSERT_EQUAL(s.mark_ns, clk.ns);
}

/* Woken by a tick (or for nothing): back to sleep at once, due or not. */
static void test_spin_after_sleep_sleeps_again(void)
{
	struct rblk_clock_cache clk = fake_clock(5000);
	struct rblk_pg_spin s = { 0 };

	rblk_pg_spin_slept(&s);
	CU_ASSERT_EQUAL(rblk_pg_spin_empty(&s, RBLK_POLL_ADAPTIVE, false, &clk), RBLK_PG_NEXT_SLEEP);
	rblk_pg_spin_slept(&s);
	CU_ASSERT_EQUAL(rblk_pg_spin_empty(&s, RBLK_POLL_ADAPTIVE, true, &clk), RBLK_PG_NEXT_SLEEP);
	/* ... unless the wakeup brought work. */
	rblk_pg_spin_slept(&s);
	rblk_pg_spin_work(&s);
	CU_ASSERT_EQUAL(rblk_pg_spin_empty(&s, RBLK_POLL_ADAPTIVE, true, &clk), RBLK_PG_NEXT_POLL);
}

static void test_spin_busy_and_event_modes(void)
{
	struct rblk_clock_cache clk = fake_clock(5000);
	struct rblk_pg_spin s = { 0 };

	for (unsigned i = 0; i < 1000; i++) {
		CU_ASSERT_EQUAL_FATAL(rblk_pg_spin_empty(&s, RBLK_POLL_BUSY, false, &clk),
				      RBLK_PG_NEXT_POLL);
		clk.ns += 1000000;
	}
	rblk_pg_spin_slept(&s);
	CU_ASSERT_EQUAL(rblk_pg_spin_empty(&s, RBLK_POLL_BUSY, false, &clk), RBLK_PG_NEXT_POLL);
	rblk_pg_spin_work(&s);
	CU_ASSERT_EQUAL(rblk_pg_spin_empty(&s, RBLK_POLL_EVENT, true, &clk), RBLK_PG_NEXT_SLEEP);
}

static const struct ut_case cases[] = {
	UT_CASE(test_run_on_runs_on_the_group_thread_in_order),
	UT_CASE(test_messages_before_stop_still_run_once),
	UT_CASE(test_adaptive_sleeps_when_idle),
	UT_CASE(test_event_sleeps_when_idle),
	UT_CASE(test_busy_never_sleeps),
	UT_CASE(test_spin_adaptive_window),
	UT_CASE(test_spin_slow_iterations),
	UT_CASE(test_spin_reads_the_clock_rarely),
	UT_CASE(test_spin_forgets_a_preempted_measurement),
	UT_CASE(test_spin_due_change_reads_now),
	UT_CASE(test_spin_after_sleep_sleeps_again),
	UT_CASE(test_spin_busy_and_event_modes),
	UT_END,
};

UT_MAIN("target/poll_group", cases)

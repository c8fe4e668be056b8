/* SPDX-License-Identifier: MIT */
/*
 * Tests for common/spin.c: the adaptive spin's decisions, one empty
 * iteration at a time, against a clock the test moves: the window's length
 * (idle, due, an owner's own, slow iterations), how rarely it reads the
 * clock, what it does after a sleep, and how it stops
 * spinning when windows keep running out and starts again when one pays.
 */
#include <string.h>

#include "common/spin.h"
#include "ut.h"

/* A clock the test moves: an iteration's cache, valid and never reset. */
static struct rblk_clock_cache fake_clock(uint64_t ns)
{
	return (struct rblk_clock_cache){ .ns = ns, .valid = true, .on = true };
}

/* Empty iterations until the spin says sleep, the clock moving step_us per iteration. */
static unsigned spins(struct rblk_spin *s, bool due, struct rblk_clock_cache *clk,
		      unsigned step_us)
{
	unsigned polls = 0;

	while (rblk_spin_empty(s, due, clk) == RBLK_SPIN_POLL) {
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
	struct rblk_spin s = { 0 };
	unsigned n;

	/* 1 us per iteration, cost not yet known: the window starts at the first read. */
	n = spins(&s, false, &clk, 1);
	CU_ASSERT(n >= RBLK_SPIN_IDLE_US + RBLK_SPIN_CHECK - 1);
	CU_ASSERT(n <= RBLK_SPIN_IDLE_US + 2 * RBLK_SPIN_CHECK);
	/* Cost known: dated back to the first empty iteration, so exactly the window. */
	rblk_spin_work(&s, true);
	n = spins(&s, true, &clk, 1);
	CU_ASSERT(n >= RBLK_SPIN_DUE_US - 1);
	CU_ASSERT(n <= RBLK_SPIN_DUE_US + 1);
	rblk_spin_work(&s, true);
	n = spins(&s, false, &clk, 1);
	CU_ASSERT(n >= RBLK_SPIN_IDLE_US - 1);
	CU_ASSERT(n <= RBLK_SPIN_IDLE_US + 1);
	/* Work found: a new window. */
	rblk_spin_work(&s, true);
	CU_ASSERT_EQUAL(rblk_spin_empty(&s, false, &clk), RBLK_SPIN_POLL);
}

/* Slow iterations (an emulated VM): the same time, far fewer of them. */
static void test_spin_slow_iterations(void)
{
	struct rblk_clock_cache clk = fake_clock(1000000000ull);
	struct rblk_spin s = { 0 };
	unsigned n;

	n = spins(&s, false, &clk, 30);
	CU_ASSERT(n <= 3 * RBLK_SPIN_CHECK);
	/*
	 * A stale estimate (1 us learnt, now 30 us): one gap of the idle window's
	 * worth of iterations overshoots, then the cost is learnt again.
	 */
	rblk_spin_work(&s, true);
	s.iter_ns = 1000;
	n = spins(&s, false, &clk, 30);
	CU_ASSERT(n <= RBLK_SPIN_IDLE_US + 1);
	rblk_spin_work(&s, true);
	n = spins(&s, false, &clk, 30);
	CU_ASSERT(n <= 10);
}

/*
 * Clock reads in one window at step_ns per empty iteration, until the spin
 * says sleep or stop_after iterations. A read is seen as a new mark_ns (the
 * fake clock moves every iteration).
 */
static unsigned window_reads(struct rblk_spin *s, bool due, uint64_t *ns, unsigned step_ns,
			     unsigned stop_after)
{
	unsigned reads = 0;

	rblk_spin_work(s, true);
	for (unsigned i = 0; i < stop_after; i++) {
		struct rblk_clock_cache clk = fake_clock(*ns);
		uint64_t mark = s->mark_ns;
		enum rblk_spin_next next = rblk_spin_empty(s, due, &clk);

		reads += s->mark_ns != mark;
		*ns += step_ns;
		if (next == RBLK_SPIN_SLEEP)
			break;
	}
	return reads;
}

/* One preempted measurement (10 ms for an iteration) is forgotten at the next one. */
static void test_spin_forgets_a_preempted_measurement(void)
{
	struct rblk_spin s = { .iter_ns = 10000000 };
	uint64_t ns = 1000000000ull;

	CU_ASSERT(window_reads(&s, false, &ns, 1000, 100000) <= 3);
	CU_ASSERT_EQUAL(s.iter_ns, 1000);
}

/*
 * The clock is read rarely: a window that work ends early reads it not at
 * all once the cost is known, and a whole window a few times, not once per
 * RBLK_SPIN_CHECK iterations.
 */
static void test_spin_reads_the_clock_rarely(void)
{
	struct rblk_clock_cache clk = { 0 };
	struct rblk_spin s = { 0 };
	uint64_t ns = 1000000000ull;

	clk.on = true; /* reset, as the loop does each iteration */
	for (unsigned i = 1; i < RBLK_SPIN_CHECK; i++) {
		clk.valid = false;
		CU_ASSERT_EQUAL(rblk_spin_empty(&s, false, &clk),
				RBLK_SPIN_POLL);
		CU_ASSERT_FALSE(clk.valid); /* not read */
	}
	clk.valid = false;
	CU_ASSERT_EQUAL(rblk_spin_empty(&s, false, &clk), RBLK_SPIN_POLL);
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
	struct rblk_spin s = { .iter_ns = 1000 };
	struct rblk_clock_cache clk = fake_clock(1000000);
	uint64_t mark = 0;
	unsigned i, reads = 0;

	/* 150 iterations of 1 us with completions due: within the due window. */
	for (i = 0; i < 150; i++) {
		CU_ASSERT_EQUAL(rblk_spin_empty(&s, true, &clk),
				RBLK_SPIN_POLL);
		reads += s.mark_ns != mark;
		mark = s.mark_ns;
		clk.ns += 1000;
	}
	CU_ASSERT(reads <= 2);
	/* Nothing due any more: 150 us is past the idle window, so sleep now. */
	CU_ASSERT_EQUAL(rblk_spin_empty(&s, false, &clk), RBLK_SPIN_SLEEP);
	CU_ASSERT_EQUAL(s.mark_ns, clk.ns);
}

/* Woken by a tick (or for nothing): back to sleep at once, due or not. */
static void test_spin_after_sleep_sleeps_again(void)
{
	struct rblk_clock_cache clk = fake_clock(5000);
	struct rblk_spin s = { 0 };

	rblk_spin_slept(&s);
	CU_ASSERT_EQUAL(rblk_spin_empty(&s, false, &clk), RBLK_SPIN_SLEEP);
	rblk_spin_slept(&s);
	CU_ASSERT_EQUAL(rblk_spin_empty(&s, true, &clk), RBLK_SPIN_SLEEP);
	/* ... unless the wakeup brought work. */
	rblk_spin_slept(&s);
	rblk_spin_work(&s, true);
	CU_ASSERT_EQUAL(rblk_spin_empty(&s, true, &clk), RBLK_SPIN_POLL);
}

/*
 * One window that runs out, as the loop lives it: spin to the end, sleep,
 * wake with work. The polls it made.
 */
static unsigned missed_window(struct rblk_spin *s, struct rblk_clock_cache *clk)
{
	unsigned n = spins(s, false, clk, 1);

	rblk_spin_slept(s);
	rblk_spin_work(s, true);
	return n;
}

/* n empty iterations of 1 us that must each say poll again (a window still open). */
static void polls(struct rblk_spin *s, bool due, struct rblk_clock_cache *clk, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(rblk_spin_empty(s, due, clk),
				RBLK_SPIN_POLL);
		clk->ns += 1000;
	}
}

/* Windows that keep running out stop being spun, but for a probe now and then. */
static void test_spin_stops_when_it_does_not_pay(void)
{
	struct rblk_clock_cache clk = fake_clock(1000000000ull);
	struct rblk_spin s = { .iter_ns = 1000 };

	for (unsigned i = 0; i < RBLK_SPIN_MISSES; i++)
		CU_ASSERT(missed_window(&s, &clk) >= RBLK_SPIN_IDLE_US - 1);
	/* Now: straight to sleep, without a clock read, due or not. */
	clk.valid = false;
	for (unsigned i = 1; i < RBLK_SPIN_PROBE; i++) {
		CU_ASSERT_EQUAL(rblk_spin_empty(&s, i & 1, &clk),
				RBLK_SPIN_SLEEP);
		rblk_spin_slept(&s);
		rblk_spin_work(&s, true);
	}
	CU_ASSERT_FALSE(clk.valid);
	/* The probe spins a whole window; missing again, the skipping goes on. */
	clk.valid = true;
	CU_ASSERT(missed_window(&s, &clk) >= RBLK_SPIN_IDLE_US - 1);
	CU_ASSERT_EQUAL(missed_window(&s, &clk), 0);
}

/* A probe that finds work brings the whole window back. */
static void test_spin_resumes_when_a_window_pays(void)
{
	struct rblk_clock_cache clk = fake_clock(1000000000ull);
	struct rblk_spin s = { .iter_ns = 1000 };

	for (unsigned i = 0; i < RBLK_SPIN_MISSES; i++)
		missed_window(&s, &clk);
	for (unsigned i = 1; i < RBLK_SPIN_PROBE; i++)
		CU_ASSERT_EQUAL(missed_window(&s, &clk), 0);
	/* The probe: work after 10 us of spinning. */
	polls(&s, false, &clk, 10);
	rblk_spin_work(&s, true);
	CU_ASSERT_EQUAL(s.misses, 0);
	CU_ASSERT(missed_window(&s, &clk) >= RBLK_SPIN_IDLE_US - 1);
}

/*
 * Work the arming finds just after a window ran out (the loop's last look
 * before epoll_wait) came too late for the spin: still a miss. Work found
 * right after the previous work, with no spin in between, neither.
 */
static void test_spin_late_work_is_a_miss(void)
{
	struct rblk_clock_cache clk = fake_clock(1000000000ull);
	struct rblk_spin s = { .iter_ns = 1000 };

	for (unsigned i = 0; i < RBLK_SPIN_MISSES; i++) {
		CU_ASSERT(spins(&s, false, &clk, 1) >= RBLK_SPIN_IDLE_US - 1);
		rblk_spin_work(&s, true); /* prepare_sleep found work */
	}
	CU_ASSERT_EQUAL(s.misses, RBLK_SPIN_MISSES);
	CU_ASSERT_EQUAL(rblk_spin_empty(&s, false, &clk), RBLK_SPIN_SLEEP);
	rblk_spin_work(&s, true);
	CU_ASSERT_EQUAL(rblk_spin_empty(&s, false, &clk), RBLK_SPIN_SLEEP);
	CU_ASSERT_EQUAL(s.misses, RBLK_SPIN_MISSES);
}

/*
 * Only a send's completion found while spinning (it frees a slot, nobody
 * waits for it): the window did not pay. The same in a window spun for due
 * completions (an RDMA READ's comes on the send CQ): it did.
 */
static void test_spin_send_completions_do_not_pay(void)
{
	struct rblk_clock_cache clk = fake_clock(1000000000ull);
	struct rblk_spin s = { .iter_ns = 1000 };

	for (unsigned i = 0; i < RBLK_SPIN_MISSES - 1; i++)
		missed_window(&s, &clk);
	polls(&s, false, &clk, 10);
	rblk_spin_work(&s, false);
	CU_ASSERT_EQUAL(s.misses, RBLK_SPIN_MISSES - 1);
	polls(&s, true, &clk, 10);
	rblk_spin_work(&s, false);
	CU_ASSERT_EQUAL(s.misses, 0);
}

/* An owner's idle window (the fio plugin's spin_us) replaces the default; due stays. */
static void test_spin_owner_idle_window(void)
{
	struct rblk_clock_cache clk = fake_clock(5000);
	struct rblk_spin s = { .idle_us = 20 };
	unsigned n;

	/* Learn the cost (1 us), then time windows from their first empty iteration. */
	spins(&s, false, &clk, 1);
	rblk_spin_work(&s, true);
	n = spins(&s, false, &clk, 1);
	CU_ASSERT(n >= 20 - 1);
	CU_ASSERT(n <= 20 + 1);
	rblk_spin_work(&s, true);
	n = spins(&s, true, &clk, 1);
	CU_ASSERT(n >= RBLK_SPIN_DUE_US - 1);
	CU_ASSERT(n <= RBLK_SPIN_DUE_US + 1);
	/* A longer idle window than the default is honoured too. */
	s.idle_us = 3 * RBLK_SPIN_IDLE_US;
	rblk_spin_work(&s, true);
	n = spins(&s, false, &clk, 1);
	CU_ASSERT(n >= 3 * RBLK_SPIN_IDLE_US - 1);
	CU_ASSERT(n <= 3 * RBLK_SPIN_IDLE_US + 1);
}

static const struct ut_case cases[] = {
	UT_CASE(test_spin_adaptive_window),
	UT_CASE(test_spin_slow_iterations),
	UT_CASE(test_spin_reads_the_clock_rarely),
	UT_CASE(test_spin_forgets_a_preempted_measurement),
	UT_CASE(test_spin_due_change_reads_now),
	UT_CASE(test_spin_after_sleep_sleeps_again),
	UT_CASE(test_spin_stops_when_it_does_not_pay),
	UT_CASE(test_spin_resumes_when_a_window_pays),
	UT_CASE(test_spin_late_work_is_a_miss),
	UT_CASE(test_spin_send_completions_do_not_pay),
	UT_CASE(test_spin_owner_idle_window),
	UT_END,
};

UT_MAIN("common/spin", cases)

/* SPDX-License-Identifier: MIT */
/*
 * Tests for common/clock.h: the per-iteration clock cache. What the cache
 * promises is a number of clock reads (one per iteration, none for an
 * iteration nobody asks), so the tests count reads on a clock they drive
 * instead of sleeping and comparing durations, which a loaded machine
 * stretches.
 */
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "ut.h"

/*
 * The clock, as clock.h's inline readers call it: while driven, each read of
 * CLOCK_MONOTONIC or CLOCK_MONOTONIC_COARSE is counted and returns 1 ms more
 * than the last one, so that a read shows in the value too. Otherwise (and
 * for other clocks) the kernel's.
 */
static bool driven;
static unsigned precise_reads, coarse_reads;
static uint64_t fake_ns = 1000000000ull;

int clock_gettime(clockid_t id, struct timespec *ts)
{
	if (!driven || (id != CLOCK_MONOTONIC && id != CLOCK_MONOTONIC_COARSE))
		return (int)syscall(SYS_clock_gettime, id, ts);
	if (id == CLOCK_MONOTONIC)
		precise_reads++;
	else
		coarse_reads++;
	fake_ns += 1000000;
	ts->tv_sec = (time_t)(fake_ns / 1000000000ull);
	ts->tv_nsec = (long)(fake_ns % 1000000000ull);
	return 0;
}

static void drive(void)
{
	driven = true;
	precise_reads = coarse_reads = 0;
}

static void test_cache_reads_once_per_iteration(void)
{
	struct rblk_clock_cache c = { 0 };
	uint64_t first, again, next;

	drive();
	rblk_clock_cache_reset(&c);
	first = rblk_clock_cache_ns(&c);
	CU_ASSERT_EQUAL(precise_reads, 1);
	again = rblk_clock_cache_ns(&c);
	CU_ASSERT_EQUAL(precise_reads, 1);
	CU_ASSERT_EQUAL(again, first);
	/* A new iteration reads the clock again, once. */
	rblk_clock_cache_reset(&c);
	next = rblk_clock_cache_ns(&c);
	CU_ASSERT_EQUAL(rblk_clock_cache_ns(&c), next);
	CU_ASSERT_EQUAL(precise_reads, 2);
	CU_ASSERT_EQUAL(next - first, 1000000);
	CU_ASSERT_EQUAL(coarse_reads, 0);
	driven = false;
}

static void test_cache_is_lazy(void)
{
	struct rblk_clock_cache c = { 0 };
	uint64_t got;

	drive();
	/* Reset does not read: the time is taken by the first reader. */
	rblk_clock_cache_reset(&c);
	CU_ASSERT_FALSE(c.valid);
	CU_ASSERT_EQUAL(precise_reads, 0);
	/* An iteration nobody asks costs nothing. */
	rblk_clock_cache_reset(&c);
	CU_ASSERT_EQUAL(precise_reads, 0);
	got = rblk_clock_cache_ns(&c);
	CU_ASSERT_EQUAL(precise_reads, 1);
	CU_ASSERT_EQUAL(got, fake_ns);
	CU_ASSERT_TRUE(c.valid);
	driven = false;
}

static void test_cache_nobody_resets_reads_the_clock(void)
{
	struct rblk_clock_cache c = { 0 };
	uint64_t a, b, d;

	drive();
	a = rblk_clock_cache_ns(&c);
	b = rblk_clock_cache_ns(&c);
	CU_ASSERT_EQUAL(precise_reads, 2);
	CU_ASSERT_EQUAL(b - a, 1000000);
	/* NULL: the clock itself. */
	d = rblk_clock_cache_ns(NULL);
	CU_ASSERT_EQUAL(precise_reads, 3);
	CU_ASSERT_EQUAL(d - b, 1000000);
	driven = false;
}

static void test_coarse_cache_reads_the_coarse_clock(void)
{
	struct rblk_clock_cache c = { .coarse = true };

	drive();
	rblk_clock_cache_reset(&c);
	rblk_clock_cache_ns(&c);
	rblk_clock_cache_ns(&c);
	CU_ASSERT_EQUAL(coarse_reads, 1);
	CU_ASSERT_EQUAL(precise_reads, 0);
	driven = false;
}

/*
 * The kernel's clocks: same epoch, the coarse one a few ticks behind at most
 * (it moves when timekeeping is updated, which a tickless or virtual CPU
 * does up to a tick or two late: 7 ms behind with a 4 ms tick was seen).
 * Both bounds come from precise reads taken around the coarse read, so a
 * preemption between the reads widens the bracket instead of failing it.
 */
static void test_coarse_ms_follows_the_precise_clock(void)
{
	struct timespec res;
	uint64_t before, ms, after, tick_ms;

	CU_ASSERT_EQUAL_FATAL(clock_getres(CLOCK_MONOTONIC_COARSE, &res), 0);
	tick_ms = (uint64_t)res.tv_sec * 1000 + ((uint64_t)res.tv_nsec + 999999) / 1000000;
	before = rblk_clock_ns() / 1000000;
	ms = rblk_clock_ms();
	after = rblk_clock_ns() / 1000000;
	CU_ASSERT(ms <= after);
	CU_ASSERT(ms + 5 * tick_ms >= before);
}

static const struct ut_case cases[] = {
	UT_CASE(test_cache_reads_once_per_iteration),
	UT_CASE(test_cache_is_lazy),
	UT_CASE(test_cache_nobody_resets_reads_the_clock),
	UT_CASE(test_coarse_cache_reads_the_coarse_clock),
	UT_CASE(test_coarse_ms_follows_the_precise_clock),
	UT_END
};

UT_MAIN("common/clock", cases)

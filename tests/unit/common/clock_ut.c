/* SPDX-License-Identifier: MIT */
/* Tests for common/clock.h: the per-iteration clock cache. */
#include <stdint.h>
#include <time.h>

#include "common/clock.h"
#include "ut.h"

/* Sleeps long enough for CLOCK_MONOTONIC to move on any machine. */
static void pause_a_little(void)
{
	struct timespec ts = { 0, 2 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

static void test_cache_reads_once_per_iteration(void)
{
	struct rblk_clock_cache c = { 0 };
	uint64_t first, again, next;

	rblk_clock_cache_reset(&c);
	first = rblk_clock_cache_ns(&c);
	pause_a_little();
	again = rblk_clock_cache_ns(&c);
	CU_ASSERT_EQUAL(again, first);
	/* A new iteration reads the clock again. */
	rblk_clock_cache_reset(&c);
	next = rblk_clock_cache_ns(&c);
	CU_ASSERT(next > first);
	CU_ASSERT(next - first >= 2 * 1000 * 1000);
}

static void test_cache_is_lazy(void)
{
	struct rblk_clock_cache c = { 0 };
	uint64_t before, got;

	/* Reset does not read: the time is taken by the first reader. */
	rblk_clock_cache_reset(&c);
	CU_ASSERT_FALSE(c.valid);
	pause_a_little();
	before = rblk_clock_ns();
	got = rblk_clock_cache_ns(&c);
	CU_ASSERT(got >= before);
	CU_ASSERT_TRUE(c.valid);
}

static void test_cache_nobody_resets_reads_the_clock(void)
{
	struct rblk_clock_cache c = { 0 };
	uint64_t a, b, d;

	a = rblk_clock_cache_ns(&c);
	pause_a_little();
	b = rblk_clock_cache_ns(&c);
	CU_ASSERT(b - a >= 2 * 1000 * 1000);
	/* NULL: the clock itself. */
	d = rblk_clock_cache_ns(NULL);
	CU_ASSERT(d >= b);
}

static void test_coarse_ms_follows_the_precise_clock(void)
{
	uint64_t ms = rblk_clock_ms(), ns = rblk_clock_ns();

	/* Same epoch (CLOCK_MONOTONIC), at most a jiffy (<= 10 ms) behind. */
	CU_ASSERT(ms <= ns / 1000000 + 1);
	CU_ASSERT(ns / 1000000 - ms <= 20);
}

static const struct ut_case cases[] = {
	UT_CASE(test_cache_reads_once_per_iteration),
	UT_CASE(test_cache_is_lazy),
	UT_CASE(test_cache_nobody_resets_reads_the_clock),
	UT_CASE(test_coarse_ms_follows_the_precise_clock),
	UT_END
};

UT_MAIN("common/clock", cases)

/* SPDX-License-Identifier: MIT */
/*
 * The clocks every rblk component reads, in one place so that the target, the
 * initiator and the tools agree on what "now" means.
 *
 * rblk_clock_ms() is for deadlines and timers (keep-alive, reconnect, stall
 * checks, SMART power-on time): CLOCK_MONOTONIC_COARSE, which the vDSO serves
 * from memory whatever the clocksource. With an HPET clocksource (QEMU VMs,
 * some hosts) the precise clock is a system call, and the poll loops ask for
 * the time on every iteration. Its resolution is one jiffy (1-10 ms), ample for
 * millisecond timers.
 *
 * rblk_clock_us() and rblk_clock_ns() are for measuring (latency, busy time):
 * CLOCK_MONOTONIC, a system call per read on such machines, so hot loops read
 * it through a struct rblk_clock_cache (below).
 */
#ifndef RBLK_COMMON_CLOCK_H
#define RBLK_COMMON_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

static inline uint64_t rblk_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * CLOCK_MONOTONIC_COARSE in ns: vDSO-served, one-jiffy steps. Enough for a
 * sum of service times: with a command's start at a random phase of the
 * tick, the coarse difference counts a whole tick with probability
 * duration / tick, so the sum over many commands is an unbiased estimate.
 */
static inline uint64_t rblk_clock_coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t rblk_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t rblk_clock_us(void)
{
	return rblk_clock_ns() / 1000;
}

/*
 * "Now" for one iteration of a poll loop, read at most once and only when
 * something asks: a loop that handles 32 commands in an iteration reads the
 * precise clock once instead of 64 times, and an empty iteration not at all.
 * What a reader gets may be as old as the iteration (microseconds): fine for
 * service-time sums, not for timing one operation. The owner calls
 * rblk_clock_cache_reset() at the top of each iteration; a cache that was
 * never reset (valid == false and on == false) reads the clock every time,
 * so code that may also run outside a loop can use it unconditionally.
 */
struct rblk_clock_cache {
	uint64_t ns;  /* the iteration's time, when valid */
	bool valid;
	bool on;      /* an owner resets it each iteration */
	bool coarse;  /* reads rblk_clock_coarse_ns() (sums of service times) */
};

static inline void rblk_clock_cache_reset(struct rblk_clock_cache *c)
{
	c->valid = false;
	c->on = true;
}

/*
 * The cached time (ns): CLOCK_MONOTONIC, or the coarse clock for a cache made
 * coarse; NULL or a cache nobody resets reads the precise clock.
 */
static inline uint64_t rblk_clock_cache_ns(struct rblk_clock_cache *c)
{
	if (!c || !c->on)
		return rblk_clock_ns();
	if (!c->valid) {
		c->ns = c->coarse ? rblk_clock_coarse_ns() : rblk_clock_ns();
		c->valid = true;
	}
	return c->ns;
}

#endif

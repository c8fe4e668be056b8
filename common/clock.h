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
 * rblk_clock_us() and rblk_clock_ns() are for measuring (latency, busy time,
 * adaptive polling windows): CLOCK_MONOTONIC.
 */
#ifndef RBLK_COMMON_CLOCK_H
#define RBLK_COMMON_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t rblk_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
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

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The spin (spin.h): how long a polling loop keeps polling after its last
 * work, with as few precise clock reads as the window allows; with an
 * hpet clocksource each one is a system call.
 */
#include "common/spin.h"

static uint64_t idle_ns(const struct rblk_spin *s)
{
	return (s->idle_us ? s->idle_us : RBLK_SPIN_IDLE_US) * 1000ull;
}

/*
 * Empty iterations until the clock should be read again to cover span_ns:
 * RBLK_SPIN_CHECK while an iteration's cost is unknown, else the
 * iterations span_ns (at most the idle window) is predicted to take.
 */
static unsigned spin_gap(const struct rblk_spin *s, uint64_t span_ns)
{
	uint64_t n;

	if (!s->iter_ns)
		return RBLK_SPIN_CHECK;
	if (span_ns > idle_ns(s))
		span_ns = idle_ns(s);
	n = span_ns / s->iter_ns;
	return n < 1 ? 1 : n > RBLK_SPIN_MAX_GAP ? RBLK_SPIN_MAX_GAP : (unsigned)n;
}

enum rblk_spin_next rblk_spin_empty(struct rblk_spin *s, bool due, struct rblk_clock_cache *clk)
{
	uint64_t now, window, elapsed, back;

	if (s->slept)
		return RBLK_SPIN_SLEEP;
	window = due ? RBLK_SPIN_DUE_US * 1000ull : idle_ns(s);
	if (++s->empty == 1) {
		/* Spinning has not paid lately: sleep now, but probe now and then. */
		if (s->misses >= RBLK_SPIN_MISSES && ++s->skipped < RBLK_SPIN_PROBE)
			return RBLK_SPIN_SLEEP;
		s->skipped = 0;
		s->due = due;
		s->next_read = spin_gap(s, window);
	}
	s->spinning = true;
	/* A change of due changes the window: decide now, not at the old guess. */
	if (s->empty < s->next_read && due == s->due)
		return RBLK_SPIN_POLL;
	s->due = due;
	now = rblk_clock_cache_ns(clk);
	if (!s->since_ns) {
		/* The window began at the first empty iteration: date it back. */
		back = s->iter_ns * (s->empty - 1);
		s->since_ns = back < now ? now - back : 1;
	} else if (s->empty > s->mark_empty && now > s->mark_ns) {
		uint64_t cost = (now - s->mark_ns) / (s->empty - s->mark_empty);

		/*
		 * Preemption only ever inflates a measurement: a lower one is
		 * taken at once, a higher one only halfway.
		 */
		if (!s->iter_ns || cost < s->iter_ns)
			s->iter_ns = cost;
		else
			s->iter_ns = (s->iter_ns + cost) / 2;
		if (!s->iter_ns)
			s->iter_ns = 1;
	}
	s->mark_ns = now;
	s->mark_empty = s->empty;
	elapsed = now - s->since_ns;
	if (elapsed >= window) {
		/* Work the arming finds from here on came too late for the spin. */
		s->spinning = false;
		if (s->misses < RBLK_SPIN_MISSES)
			s->misses++;
		return RBLK_SPIN_SLEEP;
	}
	s->next_read = s->empty + spin_gap(s, window - elapsed);
	return RBLK_SPIN_POLL;
}

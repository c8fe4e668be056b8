/* SPDX-License-Identifier: MIT */
/*
 * The decision a polling loop makes after an empty pass: poll again or
 * sleep. A loop spins for a short window after its last work, longer while
 * completions are due, then arms its wakeup sources and sleeps; this file
 * owns the window and when it reads the clock, nothing else. Used by the
 * target's poll groups in adaptive mode (target/rdma/poll_group.c) and by
 * the initiator's loops that wait for completions (rblk bench, the fio
 * plugin). Pure: no thread, no I/O, so the unit test steps it with a clock
 * it moves.
 */
#ifndef RBLK_COMMON_SPIN_H
#define RBLK_COMMON_SPIN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/clock.h"

/*
 * How long to keep polling after the last work (µs) before arming and
 * sleeping: the idle window (an owner may set its own in idle_us), longer
 * while completions are due (a target's local backend I/O in flight, RDMA
 * READs outstanding), since they come within microseconds on real hardware
 * and a sleep costs an arm, a wait and a wakeup; with nothing due the loop
 * spins briefly for the next message (a host's next command, a target's
 * response). The window is timed, since an iteration costs anything from a
 * few hundred nanoseconds (metal) to tens of microseconds (an emulated VM).
 * With an hpet clocksource each precise clock read is a system call, so the
 * spin reads it rarely: it learns what an empty iteration costs and counts
 * iterations between reads. The first read comes RBLK_SPIN_CHECK empty
 * iterations into a window while that cost is unknown, later ones where the
 * window is predicted to end, at most the idle window and RBLK_SPIN_MAX_GAP
 * iterations apart (a stale estimate overshoots by no more). A window that
 * work interrupts before its first read costs no read at all.
 */
#define RBLK_SPIN_IDLE_US 100
#define RBLK_SPIN_DUE_US 400
#define RBLK_SPIN_CHECK 4
#define RBLK_SPIN_MAX_GAP 256
/*
 * A spin pays only when work shows up within its window. When
 * RBLK_SPIN_MISSES windows in a row ran out without finding any, the
 * loop stops spinning and sleeps as soon as it runs out of work; every
 * RBLK_SPIN_PROBE-th window still spins, to notice when the traffic
 * comes close enough again, and any window that finds work restores the
 * spin. This matters most where the spin delays the work it waits for:
 * Soft-RoCE on 6.12 sends a userspace QP's packets from a kernel worker,
 * which needs a CPU just when the loop spins on one, so on a small machine
 * the spin holds back the message whose answer it waits for (at queue depth
 * 1: the target's response, the host's next command). Each window that
 * misses costs its length.
 */
#define RBLK_SPIN_MISSES 4
#define RBLK_SPIN_PROBE 16
/* What the loop does after an iteration that found no work. */
enum rblk_spin_next {
	RBLK_SPIN_POLL = 0, /* iterate again at once */
	RBLK_SPIN_SLEEP,    /* arm the wakeup sources, then wait for them */
};

/* The spin since the last work (or sleep). Zeroed to start. */
struct rblk_spin {
	unsigned idle_us;    /* the idle window, 0: RBLK_SPIN_IDLE_US (set by the owner) */
	unsigned empty;      /* empty iterations in a row */
	unsigned next_read;  /* the empty iteration that reads the clock next */
	unsigned mark_empty; /* empty at the last read */
	uint64_t mark_ns;    /* clock at the last read */
	uint64_t since_ns;   /* the window's start, 0: no read in this window yet */
	uint64_t iter_ns;    /* an empty iteration's cost, 0: unknown (kept across windows) */
	unsigned misses;     /* windows in a row that ran out without work (saturates) */
	unsigned skipped;    /* windows not spun since the last probe */
	bool due;            /* completions were due at the last decision */
	bool spinning;       /* the last decision was to poll again */
	bool slept;          /* nothing found since the last wakeup */
};

/*
 * The iteration did work: the next empty one starts a new spin window.
 * awaited: the work included what a spin waits for (a capsule, a response,
 * a backend completion; not just a send's completion, which only frees a
 * slot). Such
 * work found while the spin said poll again is a window that paid, and so
 * is any work in a window spun for due completions (an RDMA READ's
 * completion comes in on the send CQ).
 */
static inline void rblk_spin_work(struct rblk_spin *s, bool awaited)
{
	if (s->spinning && (awaited || s->due)) {
		s->misses = 0;
		s->skipped = 0;
	}
	s->spinning = false;
	s->empty = 0;
	s->since_ns = 0;
	s->slept = false;
}

/*
 * The loop slept: an iteration right after waking that finds nothing (a
 * timer tick, a spurious wakeup) sleeps again at once rather than spinning.
 */
static inline void rblk_spin_slept(struct rblk_spin *s)
{
	rblk_spin_work(s, false);
	s->slept = true;
}

/*
 * An empty iteration: poll again or sleep (due: completions are expected).
 * Reads the time through clk (the iteration's cache, or NULL: the precise
 * clock) only where the learnt iteration cost puts a decision, or when due
 * changes.
 */
enum rblk_spin_next rblk_spin_empty(struct rblk_spin *s, bool due, struct rblk_clock_cache *clk);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The requests of one attach queue (NBD connection or ublk queue) on its rblk
 * queue pair: one slot per device request, submitted to the library or parked
 * while the queue pair is full, and answered exactly once.
 *
 * The rule this exists for: once rblk_submit() took a slot's rblk_io, the
 * library owns it until its callback runs, even when the controller is lost
 * (rblk_poll() reports the loss only when nothing is left to call back). A
 * slot is reused only from FREE; a slot given up on while the library still
 * holds it (a drain that timed out) is ABANDONED, and its late callback is
 * swallowed here instead of answering a request that no longer exists.
 */
#ifndef RBLK_CLI_IO_PARK_H
#define RBLK_CLI_IO_PARK_H

#include <stddef.h>

#include "rblk/initiator.h"

enum rblk_park_state {
	RBLK_PARK_FREE,		/* no request: the owner may fill io and start it */
	RBLK_PARK_PARKED,	/* waiting for room on the queue pair; ours */
	RBLK_PARK_SUBMITTED,	/* the library holds io until the callback */
	RBLK_PARK_ABANDONED,	/* answered already; the callback still owed is swallowed */
};

struct rblk_park_slot {
	struct rblk_io io;	/* first: the library's callback finds the slot from it */
	enum rblk_park_state state;
	struct rblk_park_slot *next_parked;
};

struct rblk_park {
	struct rblk_qpair *qp;
	rblk_io_cb done;	/* answers a request: (io, NVMe status, -errno, arg) */
	void *arg;
	unsigned char *slots;	/* nr slots, each @stride bytes, rblk_park_slot first */
	size_t stride;
	unsigned nr;
	struct rblk_park_slot *parked_head, *parked_tail;
};

/*
 * @slots: @nr objects of @stride bytes, each starting with a struct
 * rblk_park_slot, zeroed (FREE). @done runs once per started request, from
 * rblk_park_start() callers' thread only (inside rblk_park_poll() or the
 * fail/abandon calls).
 */
void rblk_park_init(struct rblk_park *pk, struct rblk_qpair *qp, void *slots, size_t stride,
		    unsigned nr, rblk_io_cb done, void *arg);
const char *rblk_park_state_str(enum rblk_park_state st);
/*
 * Starts a FREE slot whose io is filled in: submitted, or parked when the
 * queue pair is full (0 either way; @done answers it later). Any other
 * -errno: refused, the slot stays FREE and @done will not run.
 */
int rblk_park_start(struct rblk_park *pk, struct rblk_park_slot *s);
/*
 * Polls the queue pair (up to @max completions, 0 = all), then starts parked
 * slots again in order. Requests answered, or -errno from rblk_poll()
 * (-ENOTCONN: the controller is lost and the library holds no request).
 */
int rblk_park_poll(struct rblk_park *pk, unsigned max);
/* Slots waiting for room on the queue pair. */
static inline int rblk_park_waiting(const struct rblk_park *pk)
{
	return pk->parked_head != NULL;
}
/* Answers every parked slot with @err (they never reached the library); count. */
unsigned rblk_park_fail_parked(struct rblk_park *pk, int err);
/*
 * Gives up: answers every parked and submitted slot with @err. Submitted
 * ones become ABANDONED until the library's callback, which is swallowed.
 */
unsigned rblk_park_abandon(struct rblk_park *pk, int err);

#endif

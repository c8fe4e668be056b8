/* SPDX-License-Identifier: MIT */
/*
 * Keep-alive: a Keep Alive command every KATO/2 on the admin queue, one at a
 * time; no answer within KATO means the connection is gone (the Linux host's
 * rule, docs/interop.md §12.2). Ticks come from the controller thread and,
 * opportunistically, from rblk_poll() (a try-lock: the I/O path never waits
 * for the admin queue). A Keep Alive that completes with an error status is
 * logged: the target's own KATO will then end the association.
 */
#include <errno.h>

#include "common/log.h"
#include "initiator/cmd.h"
#include "initiator/ctrl.h"
#include "protocol/names.h"

/* How often a late Keep Alive answer is looked for until KATO runs out. */
#define KA_RECHECK_MS 100

static void ka_done(struct rblk_hq *hq, struct rblk_slot *slot, int err)
{
	struct rblk_ctrl *c = hq->ctrl;
	uint16_t st;

	c->ka_outstanding = false;
	if (err)
		return;
	st = rblk_slot_status(slot);
	if (st)
		RBLK_WARN("Keep Alive: %s (%#x)", rblk_nvme_status_str(st), st);
}

void rblk_ka_start(struct rblk_ctrl *c, uint64_t now)
{
	c->ka_outstanding = false;
	c->ka_interval_ms = c->kato_ms / 2;
	if (c->ka_interval_ms < 50)
		c->ka_interval_ms = 50;
	atomic_store(&c->ka_next_ms, c->kato_ms ? now + c->ka_interval_ms : UINT64_MAX);
}

int rblk_ka_tick_locked(struct rblk_ctrl *c, uint64_t now)
{
	struct rblk_hq *a = &c->admin;
	struct rblk_slot *slot;

	if (a->state != RBLK_HQ_LIVE)
		return 0;
	/* Reap what came back (a previous Keep Alive's answer, above all). */
	while (rblk_hq_process(a, 32) > 0)
		;
	rblk_hq_flush(a);
	if (!c->kato_ms || a->state != RBLK_HQ_LIVE)
		return 0;
	if (c->ka_outstanding) {
		uint64_t expiry = c->ka_sent_ms + c->kato_ms;

		if (now >= expiry)
			return -ETIMEDOUT;
		/*
		 * The answer is late (the next Keep Alive is due): look again
		 * in a while. Left in the past, the due time made the
		 * controller thread's poll timeout 0 and every rblk_poll()
		 * tick, a spinning thread that took the CPU the answer needed.
		 */
		atomic_store(&c->ka_next_ms, now + KA_RECHECK_MS < expiry ? now + KA_RECHECK_MS : expiry);
		return 0;
	}
	if (now < atomic_load(&c->ka_next_ms))
		return 0;
	slot = rblk_slot_get(&a->slots);
	if (!slot)
		return 0;
	rblk_cmd_keep_alive(slot->sqe);
	rblk_hq_map(a, slot, NULL, 0, 0, 0);
	slot->done = ka_done;
	slot->ctx = c;
	c->ka_outstanding = true;
	c->ka_sent_ms = now;
	atomic_store(&c->ka_next_ms, now + c->ka_interval_ms);
	rblk_hq_post(a, slot);
	rblk_hq_flush(a);
	return 0;
}

void rblk_ka_poll_hook(struct rblk_ctrl *c)
{
	uint64_t next = atomic_load(&c->ka_next_ms), now;

	if (next == UINT64_MAX)
		return;
	now = rblk_clock_ms();
	if (now < next || pthread_mutex_trylock(&c->admin.lock))
		return;
	if (atomic_load(&c->state) == RBLK_CTRL_LIVE && rblk_ka_tick_locked(c, now) == -ETIMEDOUT) {
		/* the same words as the controller thread's: whichever notices first says it */
		RBLK_ERR("%s at %s:%s: Keep Alive unanswered for %u ms", c->subnqn, c->traddr,
			 c->trsvcid, c->kato_ms);
		atomic_store(&c->conn_lost, true);
		rblk_ctrl_wake(c);
	}
	pthread_mutex_unlock(&c->admin.lock);
}

uint64_t rblk_ka_deadline(struct rblk_ctrl *c)
{
	uint64_t next = atomic_load(&c->ka_next_ms);

	if (!c->kato_ms)
		return UINT64_MAX;
	if (c->ka_outstanding && c->ka_sent_ms + c->kato_ms < next)
		return c->ka_sent_ms + c->kato_ms;
	return next;
}

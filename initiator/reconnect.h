/* SPDX-License-Identifier: MIT */
/*
 * The controller's reconnect state machine, with the Linux host's semantics
 * and units (drivers/nvme/host/fabrics.c, rdma.c):
 *   - reconnect_delay (s, > 0) between attempts, the first one a delay after
 *     the loss;
 *   - ctrl_loss_tmo (s) becomes a number of attempts,
 *     max_reconnects = DIV_ROUND_UP(ctrl_loss_tmo, reconnect_delay), or
 *     "forever" for a negative value; 0 means no attempt at all;
 *   - after the last failed attempt the controller is LOST and its I/O fails.
 * And one bound the Linux host lacks: a failed attempt that ends when the
 * attempts would have been used up had each failed at once (max_reconnects x
 * reconnect_delay after the loss) is the last one too. Under a total outage an
 * attempt lasts as long as the CM waits for an answer (the Linux host's: about
 * 80 s), and counted in attempts alone a 120 s ctrl_loss_tmo held its I/O for
 * over an hour; bounded, it fails within one attempt of the time asked for.
 *
 * One function, rblk_rc_step(), advances it: it takes an event and the
 * current time (ms, any monotonic origin: tests pass a fake clock) and
 * returns the one action the caller must perform. No I/O, no clock reads.
 */
#ifndef RBLK_INITIATOR_RECONNECT_H
#define RBLK_INITIATOR_RECONNECT_H

#include <stdbool.h>
#include <stdint.h>

#include <rblk/initiator.h>

enum rblk_rc_event {
	RBLK_RC_EV_CONN_LOST,		/* QP error, CM DISCONNECTED, keep-alive timeout */
	RBLK_RC_EV_TICK,		/* time passed */
	RBLK_RC_EV_CONNECTED,		/* the attempt asked for succeeded */
	RBLK_RC_EV_CONNECT_FAILED,	/* the attempt asked for failed (queues torn down again) */
	RBLK_RC_EV_DELETE,		/* the user disconnects */
};

enum rblk_rc_action {
	RBLK_RC_ACT_NONE,
	RBLK_RC_ACT_TEARDOWN,		/* tear every queue down, keep I/O for resubmission */
	RBLK_RC_ACT_CONNECT,		/* run one full connect now, then report its result */
	RBLK_RC_ACT_RESUME,		/* connected again: resubmit the kept I/O */
	RBLK_RC_ACT_FAIL_IO,		/* give up: fail kept and new I/O with -ENOTCONN */
};

const char *rblk_rc_event_str(enum rblk_rc_event ev);
const char *rblk_rc_action_str(enum rblk_rc_action act);

struct rblk_rc {
	enum rblk_ctrl_state state;
	int64_t max_reconnects;		/* -1: forever */
	int64_t nr_reconnects;		/* failed attempts since the loss */
	uint64_t delay_ms;
	uint64_t next_attempt_ms;	/* RECONNECTING: when to attempt */
	bool attempting;		/* CONNECT returned, its result not reported yet */
	bool give_up;			/* RECONNECTING with no attempt left: LOST at the next tick */
	uint64_t lost_at_ms;		/* when the connection was lost */
	uint64_t loss_ms;		/* max_reconnects x delay_ms; UINT64_MAX: forever */
};

/*
 * Starts LIVE. -EINVAL for reconnect_delay <= 0 (the kernel refuses it too).
 * ctrl_loss_tmo < 0 reconnects forever.
 */
int rblk_rc_init(struct rblk_rc *rc, int32_t reconnect_delay_s, int32_t ctrl_loss_tmo_s);
enum rblk_rc_action rblk_rc_step(struct rblk_rc *rc, enum rblk_rc_event ev, uint64_t now_ms);
/* When the next TICK can change something (UINT64_MAX: nothing pending). */
uint64_t rblk_rc_deadline(const struct rblk_rc *rc);

#endif

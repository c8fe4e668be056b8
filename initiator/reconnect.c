/* SPDX-License-Identifier: MIT */
/*
 * The reconnect state machine (see reconnect.h). Each state says what it
 * waits for:
 *   LIVE          a connection loss (or the user's disconnect)
 *   RECONNECTING  the next attempt's time, then that attempt's result
 *   LOST          the user's disconnect; I/O fails meanwhile
 *   DELETING      nothing: terminal
 */
#include <errno.h>

#include "initiator/reconnect.h"

const char *rblk_ctrl_state_str(enum rblk_ctrl_state st)
{
	switch (st) {
	case RBLK_CTRL_LIVE:
		return "live";
	case RBLK_CTRL_RECONNECTING:
		return "reconnecting";
	case RBLK_CTRL_DELETING:
		return "deleting";
	case RBLK_CTRL_LOST:
		return "lost";
	}
	return "?";
}

const char *rblk_rc_event_str(enum rblk_rc_event ev)
{
	switch (ev) {
	case RBLK_RC_EV_CONN_LOST:
		return "connection lost";
	case RBLK_RC_EV_TICK:
		return "tick";
	case RBLK_RC_EV_CONNECTED:
		return "connected";
	case RBLK_RC_EV_CONNECT_FAILED:
		return "connect failed";
	case RBLK_RC_EV_DELETE:
		return "delete";
	}
	return "?";
}

const char *rblk_rc_action_str(enum rblk_rc_action act)
{
	switch (act) {
	case RBLK_RC_ACT_NONE:
		return "none";
	case RBLK_RC_ACT_TEARDOWN:
		return "teardown";
	case RBLK_RC_ACT_CONNECT:
		return "connect";
	case RBLK_RC_ACT_RESUME:
		return "resume";
	case RBLK_RC_ACT_FAIL_IO:
		return "fail I/O";
	}
	return "?";
}

int rblk_rc_init(struct rblk_rc *rc, int32_t reconnect_delay_s, int32_t ctrl_loss_tmo_s)
{
	*rc = (struct rblk_rc){ .state = RBLK_CTRL_LIVE };
	if (reconnect_delay_s <= 0)
		return -EINVAL;
	rc->delay_ms = (uint64_t)reconnect_delay_s * 1000;
	if (ctrl_loss_tmo_s < 0) {
		rc->max_reconnects = -1;
		rc->loss_ms = UINT64_MAX;
	} else {
		rc->max_reconnects = ((int64_t)ctrl_loss_tmo_s + reconnect_delay_s - 1) /
				     reconnect_delay_s;
		rc->loss_ms = (uint64_t)rc->max_reconnects * rc->delay_ms;
	}
	return 0;
}

/* nvmf_should_reconnect(): attempts left? */
static bool should_reconnect(const struct rblk_rc *rc)
{
	return rc->max_reconnects < 0 || rc->nr_reconnects < rc->max_reconnects;
}

/* The attempts' time is up (reconnect.h): slow attempts end the count early. */
static bool loss_time_up(const struct rblk_rc *rc, uint64_t now_ms)
{
	return rc->loss_ms != UINT64_MAX && now_ms >= rc->lost_at_ms &&
	       now_ms - rc->lost_at_ms >= rc->loss_ms;
}

static enum rblk_rc_action schedule_or_give_up(struct rblk_rc *rc, uint64_t now_ms)
{
	rc->attempting = false;
	if (should_reconnect(rc) && !loss_time_up(rc, now_ms)) {
		rc->next_attempt_ms = now_ms + rc->delay_ms;
		return RBLK_RC_ACT_NONE;
	}
	rc->state = RBLK_CTRL_LOST;
	return RBLK_RC_ACT_FAIL_IO;
}

static enum rblk_rc_action step_live(struct rblk_rc *rc, enum rblk_rc_event ev, uint64_t now_ms)
{
	switch (ev) {
	case RBLK_RC_EV_CONN_LOST:
		rc->state = RBLK_CTRL_RECONNECTING;
		rc->nr_reconnects = 0;
		rc->attempting = false;
		rc->lost_at_ms = now_ms;
		/*
		 * The queues go down first; with no attempt allowed
		 * (ctrl_loss_tmo 0) the next tick declares the loss.
		 */
		rc->give_up = !should_reconnect(rc);
		rc->next_attempt_ms = rc->give_up ? now_ms : now_ms + rc->delay_ms;
		return RBLK_RC_ACT_TEARDOWN;
	case RBLK_RC_EV_DELETE:
		rc->state = RBLK_CTRL_DELETING;
		return RBLK_RC_ACT_NONE;
	default:
		return RBLK_RC_ACT_NONE;
	}
}

static enum rblk_rc_action step_reconnecting(struct rblk_rc *rc, enum rblk_rc_event ev,
					     uint64_t now_ms)
{
	switch (ev) {
	case RBLK_RC_EV_TICK:
		if (rc->attempting)
			return RBLK_RC_ACT_NONE;
		if (rc->give_up) {
			rc->state = RBLK_CTRL_LOST;
			return RBLK_RC_ACT_FAIL_IO;
		}
		if (now_ms < rc->next_attempt_ms)
			return RBLK_RC_ACT_NONE;
		rc->attempting = true;
		return RBLK_RC_ACT_CONNECT;
	case RBLK_RC_EV_CONNECTED:
		if (!rc->attempting)
			return RBLK_RC_ACT_NONE;
		rc->attempting = false;
		rc->nr_reconnects = 0;
		rc->state = RBLK_CTRL_LIVE;
		return RBLK_RC_ACT_RESUME;
	case RBLK_RC_EV_CONNECT_FAILED:
		if (!rc->attempting)
			return RBLK_RC_ACT_NONE;
		rc->nr_reconnects++;
		return schedule_or_give_up(rc, now_ms);
	case RBLK_RC_EV_DELETE:
		rc->state = RBLK_CTRL_DELETING;
		rc->attempting = false;
		return RBLK_RC_ACT_FAIL_IO;
	case RBLK_RC_EV_CONN_LOST:
		/* Already down: queues of the failed connection report late. */
		return RBLK_RC_ACT_NONE;
	}
	return RBLK_RC_ACT_NONE;
}

enum rblk_rc_action rblk_rc_step(struct rblk_rc *rc, enum rblk_rc_event ev, uint64_t now_ms)
{
	switch (rc->state) {
	case RBLK_CTRL_LIVE:
		return step_live(rc, ev, now_ms);
	case RBLK_CTRL_RECONNECTING:
		return step_reconnecting(rc, ev, now_ms);
	case RBLK_CTRL_LOST:
		if (ev == RBLK_RC_EV_DELETE)
			rc->state = RBLK_CTRL_DELETING;
		return RBLK_RC_ACT_NONE;
	case RBLK_CTRL_DELETING:
		return RBLK_RC_ACT_NONE;
	}
	return RBLK_RC_ACT_NONE;
}

uint64_t rblk_rc_deadline(const struct rblk_rc *rc)
{
	if (rc->state != RBLK_CTRL_RECONNECTING || rc->attempting)
		return UINT64_MAX;
	return rc->next_attempt_ms;
}

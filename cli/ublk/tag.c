/* SPDX-License-Identifier: MIT */
/*
 * The per-tag state machine of a ublk queue (see cli/ublk/tag.h): the one
 * place that advances a tag's state.
 */
#include <errno.h>

#include "cli/ublk/tag.h"
#include "cli/ublk/uapi.h"

const char *rblk_ublk_tag_state_str(enum rblk_ublk_tag_state s)
{
	switch (s) {
	case RBLK_UBLK_TAG_IDLE: return "idle";
	case RBLK_UBLK_TAG_FETCHING: return "fetching";
	case RBLK_UBLK_TAG_IN_BACKEND: return "in-backend";
	case RBLK_UBLK_TAG_COMMIT_QUEUED: return "commit-queued";
	case RBLK_UBLK_TAG_ABORTED: return "aborted";
	}
	return "?";
}

int rblk_ublk_tag_fetch_sent(struct rblk_ublk_tag *t)
{
	if (t->state != RBLK_UBLK_TAG_IDLE)
		return -EINVAL;
	t->state = RBLK_UBLK_TAG_FETCHING;
	return 0;
}

int rblk_ublk_tag_cqe(struct rblk_ublk_tag *t, int32_t res)
{
	if (t->state != RBLK_UBLK_TAG_FETCHING)
		return -EINVAL;
	if (res == UBLK_IO_RES_OK) {
		t->state = RBLK_UBLK_TAG_IN_BACKEND;
		return 1;
	}
	/*
	 * UBLK_IO_RES_ABORT is the normal end (STOP_DEV, or the device's
	 * teardown); anything else means the kernel refused the command, which
	 * it will not take again either: the tag is done in both cases.
	 */
	t->state = RBLK_UBLK_TAG_ABORTED;
	return 0;
}

int rblk_ublk_tag_done(struct rblk_ublk_tag *t, int32_t result)
{
	if (t->state != RBLK_UBLK_TAG_IN_BACKEND)
		return -EINVAL;
	t->result = result;
	t->state = RBLK_UBLK_TAG_COMMIT_QUEUED;
	return 0;
}

int rblk_ublk_tag_commit_sent(struct rblk_ublk_tag *t)
{
	if (t->state != RBLK_UBLK_TAG_COMMIT_QUEUED)
		return -EINVAL;
	t->state = RBLK_UBLK_TAG_FETCHING;
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The life of one ublk tag (one request slot of a queue), as a state
 * machine apart from io_uring so that it can be stepped in tests:
 *
 *   IDLE --fetch_sent--> FETCHING --cqe(OK)--> IN_BACKEND --done(res)-->
 *   COMMIT_QUEUED --commit_sent--> FETCHING --cqe(OK)--> ...
 *
 * A FETCHING tag has a command with the kernel that completes when a request
 * for the tag arrives (UBLK_IO_RES_OK) or when the queue goes away
 * (UBLK_IO_RES_ABORT, or any other error: the command was refused); either
 * way an ending tag is ABORTED for good. A COMMIT_AND_FETCH both answers the
 * request and waits for the next, so the request's answer and the next
 * fetch are one command.
 */
#ifndef RBLK_CLI_UBLK_TAG_H
#define RBLK_CLI_UBLK_TAG_H

#include <stdint.h>

enum rblk_ublk_tag_state {
	RBLK_UBLK_TAG_IDLE = 0,		/* nothing sent yet */
	RBLK_UBLK_TAG_FETCHING,		/* a (COMMIT_AND_)FETCH is with the kernel: waits for a request */
	RBLK_UBLK_TAG_IN_BACKEND,	/* a request is ours: waits for the backend's result */
	RBLK_UBLK_TAG_COMMIT_QUEUED,	/* result known: waits for its COMMIT_AND_FETCH to be submitted */
	RBLK_UBLK_TAG_ABORTED,		/* the queue is going away: waits for nothing, ever */
};

struct rblk_ublk_tag {
	enum rblk_ublk_tag_state state;
	int32_t result;			/* COMMIT_QUEUED: bytes done or -errno */
};

const char *rblk_ublk_tag_state_str(enum rblk_ublk_tag_state s);

/* Each returns 0, or -EINVAL (state untouched) when the event does not fit the state. */
/* IDLE -> FETCHING: the initial FETCH_REQ went into the SQ. */
int rblk_ublk_tag_fetch_sent(struct rblk_ublk_tag *t);
/*
 * FETCHING -> IN_BACKEND on UBLK_IO_RES_OK (returns 1: a request to start),
 * FETCHING -> ABORTED on any error result (returns 0).
 */
int rblk_ublk_tag_cqe(struct rblk_ublk_tag *t, int32_t res);
/* IN_BACKEND -> COMMIT_QUEUED: the backend finished with @result (bytes or -errno). */
int rblk_ublk_tag_done(struct rblk_ublk_tag *t, int32_t result);
/* COMMIT_QUEUED -> FETCHING: the COMMIT_AND_FETCH_REQ went into the SQ. */
int rblk_ublk_tag_commit_sent(struct rblk_ublk_tag *t);

#endif

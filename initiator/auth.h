/* SPDX-License-Identifier: MIT */
/*
 * The host's DH-HMAC-CHAP transaction on one queue, as an explicit state
 * machine with no I/O: rblk_auth_host_next() says which command the current
 * state needs (an Authentication Send with the message it built, or an
 * Authentication Receive), the caller runs it on the queue, and
 * rblk_auth_host_advance() - the one place the state changes - takes the
 * outcome. Unit tests drive it with canned controller messages; the queue
 * driver is auth_queue.c.
 *
 *   NEGOTIATE --send--> CHALLENGE --recv--> REPLY --send--> SUCCESS1 --recv--+
 *                           |                                   |            |
 *                           +--bad challenge--> FAILURE2 <--bad-+     bidirectional?
 *                           |                      |                 no /   \ yes
 *                           +--AUTH_Failure1--> FAILED <--------+   DONE <- SUCCESS2
 *
 * Any failed command ends in FAILED without a Failure2: the queue is torn
 * down next, which ends the transaction on the controller too.
 */
#ifndef RBLK_INITIATOR_AUTH_H
#define RBLK_INITIATOR_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth/auth.h"

enum rblk_auth_host_state {
	RBLK_AUTH_HOST_NEGOTIATE,	/* send AUTH_Negotiate */
	RBLK_AUTH_HOST_CHALLENGE,	/* receive DH-HMAC-CHAP_Challenge (or AUTH_Failure1) */
	RBLK_AUTH_HOST_REPLY,		/* send DH-HMAC-CHAP_Reply */
	RBLK_AUTH_HOST_SUCCESS1,	/* receive DH-HMAC-CHAP_Success1 (or AUTH_Failure1) */
	RBLK_AUTH_HOST_SUCCESS2,	/* send DH-HMAC-CHAP_Success2 (bidirectional only) */
	RBLK_AUTH_HOST_FAILURE2,	/* send AUTH_Failure2, then FAILED */
	RBLK_AUTH_HOST_DONE,		/* authenticated */
	RBLK_AUTH_HOST_FAILED,		/* over; err says why */
};
const char *rblk_auth_host_state_str(enum rblk_auth_host_state st);

/* What one transaction needs to know; pointers must outlive it. */
struct rblk_auth_host_params {
	uint16_t qid;				/* for messages only */
	uint16_t t_id;				/* transaction ID (Linux: a per-controller counter) */
	uint32_t seqnum;			/* S2 for the controller's response; non-zero */
	const struct rblk_auth_secret *host_key;	/* required */
	const struct rblk_auth_secret *ctrl_key;	/* NULL: the controller is not authenticated */
	const char *hostnqn;
	const char *subnqn;
};

struct rblk_auth_host {
	enum rblk_auth_host_state state;
	int err;			/* FAILED: -EACCES, -EPROTO, or the command's -errno */
	uint8_t exp;			/* the explanation received (Failure1) or sent (Failure2) */
	bool failure1;			/* the controller ended it with AUTH_Failure1 */
	struct rblk_auth_host_params p;
	/* From the challenge. */
	enum rblk_auth_hash hash;
	enum rblk_auth_dhgroup dhgroup;
	uint8_t hl;
	/* What the Reply carries and what Success1 must carry. */
	uint8_t response[RBLK_AUTH_MAX_HASH_LEN];	/* ours */
	uint8_t c2[RBLK_AUTH_MAX_HASH_LEN];		/* our challenge to the controller */
	uint8_t expected[RBLK_AUTH_MAX_HASH_LEN];	/* the controller's response to it */
	uint8_t dhv[RBLK_AUTH_MAX_DH_LEN];		/* our public value */
	uint16_t dhvlen;
};

/* Starts a transaction in NEGOTIATE. -EINVAL without a host key, NQNs, or a seqnum when bidirectional. */
int rblk_auth_host_init(struct rblk_auth_host *a, const struct rblk_auth_host_params *p);
/* Overwrites everything derived from the keys. */
void rblk_auth_host_fini(struct rblk_auth_host *a);

enum rblk_auth_xfer {
	RBLK_AUTH_XFER_NONE,		/* DONE or FAILED: nothing to run */
	RBLK_AUTH_XFER_SEND,		/* Authentication Send of *len bytes built in @buf */
	RBLK_AUTH_XFER_RECV,		/* Authentication Receive of *len bytes into @buf */
};

/*
 * The command the current state needs, in @buf (@cap bytes; RBLK_AUTH_RECV_LEN
 * is enough for both directions). 0, or -ENOSPC: pass it to advance().
 */
int rblk_auth_host_next(struct rblk_auth_host *a, void *buf, size_t cap, enum rblk_auth_xfer *xfer,
			uint32_t *len);

/*
 * The command of the current state ended: @err 0 (for a receive, @len bytes
 * at @buf are the controller's message) or -errno. Moves to the next state
 * and returns it.
 */
enum rblk_auth_host_state rblk_auth_host_advance(struct rblk_auth_host *a, int err, const void *buf,
						 size_t len);

#endif

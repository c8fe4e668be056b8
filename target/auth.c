/* SPDX-License-Identifier: MIT */
/*
 * DH-HMAC-CHAP, the controller's side of one queue (target/auth.h): the
 * transaction's state machine, driven by Authentication Send (the host's
 * Negotiate, Reply, Success2, Failure2) and Authentication Receive (our
 * Challenge, Success1, Failure1). Message bytes are protocol/auth_ctrl.c's,
 * crypto is auth/'s; this file decides what happens next.
 *
 * The rules, and where they come from (nvmet: drivers/nvme/target/
 * fabrics-cmd-auth.c; SPDK: lib/nvmf/auth.c):
 *  - An Authentication Send completes successfully whatever its message: a
 *    refusal is an AUTH_Failure1 for the next Authentication Receive to
 *    read (both). Only a malformed command (SECP, SPSP, TL/AL) is an NVMe
 *    error, decided at parse (fabrics.c).
 *  - A message out of order is refused with "incorrect protocol message"; a
 *    wrong length, HL, DHVLEN or transaction id with "incorrect payload"; a
 *    wrong response with "authentication failed".
 *  - Once the host has read the Failure1, or sent an AUTH_Failure2, the
 *    controller fails and its queues disconnect (nvmet_ctrl_fatal_error in
 *    both places): a host retries by connecting again, never on a queue
 *    that failed. The queue stops being usable the moment the refusal is
 *    decided.
 *  - A Negotiate on an authenticated queue starts a re-authentication; the
 *    queue stays usable meanwhile (nvmet keeps sq->authenticated), the Linux
 *    host re-authenticates live queues under I/O.
 *  - A transaction must finish within the target's connect_timeout_ms
 *    (nvmet: KATO or 120 s per step; SPDK likewise): past it the controller
 *    fails, so a host cannot hold a controller it never authenticated.
 */
#include <errno.h>
#include <string.h>

#include "common/log.h"
#include "protocol/auth_ctrl.h"
#include "target/core.h"

/*
 * Between the failure and the controller's end: the completion of the
 * command that carried it (the Auth Receive that read our Failure1, the Auth
 * Send with the host's Failure2) must reach the host first. Disconnecting at
 * once flushed it from the send queue, and the Linux host then waited out its
 * admin timeout, six times over (six minutes for a wrong key). The host
 * disconnects by itself when it learns of the failure; the grace bounds the
 * time a host that does not can hold the queue, which serves nothing meanwhile.
 */
#define FAILED_GRACE_MS 2000

/* The hashes a host may fall back to when it does not offer the configured one. */
#define HASHES_OK ((1u << RBLK_AUTH_HASH_SHA256) | (1u << RBLK_AUTH_HASH_SHA384) | \
		   (1u << RBLK_AUTH_HASH_SHA512))
/* The largest message we send: a Challenge with SHA-512 and an ffdhe8192 value. */
#define RECV_MSG_MAX (sizeof(struct nvmf_auth_challenge) + RBLK_AUTH_MAX_HASH_LEN + \
		      RBLK_AUTH_MAX_DH_LEN)

const char *rblk_tgt_auth_state_str(enum rblk_tgt_auth_state s)
{
	switch (s) {
	case RBLK_TGT_AUTH_NEGOTIATE:
		return "negotiate";
	case RBLK_TGT_AUTH_CHALLENGE:
		return "challenge";
	case RBLK_TGT_AUTH_REPLY:
		return "reply";
	case RBLK_TGT_AUTH_SUCCESS1:
		return "success1";
	case RBLK_TGT_AUTH_SUCCESS2:
		return "success2";
	case RBLK_TGT_AUTH_DONE:
		return "done";
	case RBLK_TGT_AUTH_FAILURE1:
		return "failure1";
	case RBLK_TGT_AUTH_FAILED:
		return "failed";
	}
	return "?";
}

/* Drops what one transaction holds: our key pair, challenge and response. */
static void wipe(struct rblk_tgt_auth_q *a)
{
	rblk_auth_dh_destroy(a->dh);
	a->dh = NULL;
	explicit_bzero(a->c1, sizeof(a->c1));
	explicit_bzero(a->resp, sizeof(a->resp));
	a->bidirectional = false;
}

/*
 * The one place a queue's state changes, with what each state means on
 * entry: whether the queue is usable, what is wiped, who is told.
 */
static void enter(struct rblk_sq *sq, enum rblk_tgt_auth_state next)
{
	struct rblk_tgt_auth_q *a = &sq->auth;
	struct rblk_tgt_ctrl *ctrl = sq->ctrl;

	if (RBLK_LOG_ON(RBLK_LOG_DEBUG))
		RBLK_DEBUG("ctrl %u qid %u: authentication %s -> %s", ctrl->cntlid, sq->qid,
			   rblk_tgt_auth_state_str(a->state), rblk_tgt_auth_state_str(next));
	a->state = next;
	switch (next) {
	case RBLK_TGT_AUTH_DONE:
		wipe(a);
		rblk_stat_add(&sq->tgt->auth_successes, 1);
		if (!a->authenticated)
			RBLK_INFO("ctrl %u on %s (%s) qid %u: authenticated (%s, %s)",
				  ctrl->cntlid, ctrl->ss->nqn, ctrl->hostnqn, sq->qid,
				  rblk_auth_hash_name(a->hash), rblk_auth_dhgroup_name(a->dhgroup));
		a->authenticated = true;
		break;
	case RBLK_TGT_AUTH_FAILURE1:
		wipe(a);
		a->authenticated = false;
		RBLK_NOTICE("ctrl %u on %s (%s) qid %u: authentication refused: %s", ctrl->cntlid,
			    ctrl->ss->nqn, ctrl->hostnqn, sq->qid, rblk_auth_failure_str(a->reason));
		break;
	case RBLK_TGT_AUTH_FAILED:
		/* Every failure ends here once: refused, timed out, or ended by the host. */
		wipe(a);
		rblk_stat_add(&sq->tgt->auth_failures, 1);
		a->authenticated = false;
		a->deadline_ms = rblk_clock_ms() + FAILED_GRACE_MS;
		break;
	default:
		break;
	}
}

/* Refuses the transaction: Failure1 with @reason waits for the host. */
static void refuse(struct rblk_sq *sq, uint8_t reason)
{
	sq->auth.reason = reason;
	enter(sq, RBLK_TGT_AUTH_FAILURE1);
}

void rblk_tgt_auth_sq_start(struct rblk_sq *sq, uint64_t now_ms)
{
	struct rblk_tgt_auth_q *a = &sq->auth;

	wipe(a);
	a->state = RBLK_TGT_AUTH_NEGOTIATE;
	a->authenticated = false;
	a->deadline_ms = now_ms + sq->tgt->opts.connect_timeout_ms;
}

void rblk_tgt_auth_sq_release(struct rblk_sq *sq)
{
	wipe(&sq->auth);
}

bool rblk_tgt_auth_sq_open(const struct rblk_sq *sq)
{
	/* Decided by the controller's keys, so a queue never set up stays closed. */
	return !sq->ctrl->auth || sq->auth.authenticated;
}

void rblk_tgt_auth_tick(struct rblk_sq *sq, uint64_t now_ms)
{
	struct rblk_tgt_auth_q *a = &sq->auth;

	if (!sq->ctrl->auth || a->state == RBLK_TGT_AUTH_DONE || now_ms <= a->deadline_ms)
		return;
	if (a->state != RBLK_TGT_AUTH_FAILED) {
		RBLK_NOTICE("ctrl %u on %s (%s) qid %u: authentication unfinished after %u ms (%s)",
			    sq->ctrl->cntlid, sq->ctrl->ss->nqn, sq->ctrl->hostnqn, sq->qid,
			    sq->tgt->opts.connect_timeout_ms, rblk_tgt_auth_state_str(a->state));
		enter(sq, RBLK_TGT_AUTH_FAILED);
	}
	/* Nothing of ours in flight now, or the grace is over: the controller ends. */
	rblk_tgt_ctrl_fatal(sq->ctrl, "authentication failed");
}

uint64_t rblk_tgt_auth_next_ms(const struct rblk_sq *sq)
{
	const struct rblk_tgt_auth_q *a = &sq->auth;

	if (!sq->ctrl || !sq->ctrl->auth || a->state == RBLK_TGT_AUTH_DONE)
		return UINT64_MAX;
	/* The tick acts once now_ms is past the deadline. */
	return a->deadline_ms == UINT64_MAX ? UINT64_MAX : a->deadline_ms + 1;
}

/* ------------------------------------------------------------------------ */
/* What the host sends.                                                      */

/* A fresh sequence number: random start, then +1, never 0 (nvme_auth_get_seqnum). */
static uint32_t next_seqnum(struct rblk_target *tgt)
{
	uint32_t cur = atomic_load(&tgt->auth_seqnum), next;

	do {
		next = cur + 1;
		if (!cur && rblk_auth_random((uint8_t *)&next, sizeof(next)))
			next = (uint32_t)rblk_clock_ns();
		if (!next)
			next = 1;
	} while (!atomic_compare_exchange_weak(&tgt->auth_seqnum, &cur, next));
	return next;
}

static void on_negotiate(struct rblk_sq *sq, const uint8_t *msg, size_t len)
{
	const struct rblk_tgt_auth_keys *k = sq->ctrl->auth;
	struct rblk_tgt_auth_q *a = &sq->auth;
	struct rblk_auth_negotiate_info n;
	uint8_t hash, dh, r;

	r = rblk_auth_negotiate_parse(msg, len, &n);
	a->t_id = n.t_id;
	if (!r)
		r = rblk_auth_select(&n, (uint8_t)k->hash, HASHES_OK, (uint8_t)k->dhgroup, &hash, &dh);
	if (r) {
		refuse(sq, r);
		return;
	}
	wipe(a);
	a->hash = (enum rblk_auth_hash)hash;
	a->dhgroup = (enum rblk_auth_dhgroup)dh;
	a->hl = (uint8_t)rblk_auth_hash_len(a->hash);
	/* A re-authentication gets the same time as the first one. */
	a->deadline_ms = rblk_clock_ms() + sq->tgt->opts.connect_timeout_ms;
	enter(sq, RBLK_TGT_AUTH_CHALLENGE);
}

/*
 * The host's response checked, and ours computed when it asks for one.
 * 0 or the reason to refuse. @secret: the DH shared secret (NULL group:
 * NULL), turning both challenges into augmented ones.
 */
static uint8_t check_reply(struct rblk_sq *sq, const struct rblk_auth_reply_info *r,
			   const uint8_t *secret, size_t secret_len)
{
	struct rblk_tgt_ctrl *ctrl = sq->ctrl;
	const struct rblk_tgt_auth_keys *k = ctrl->auth;
	struct rblk_tgt_auth_q *a = &sq->auth;
	uint8_t chal[RBLK_AUTH_MAX_HASH_LEN], expect[RBLK_AUTH_MAX_HASH_LEN];
	const uint8_t *c1 = a->c1, *c2 = r->c2;
	uint8_t reason = NVMF_AUTH_FAIL_FAILED;

	if (secret) {
		if (rblk_auth_augmented_challenge(a->hash, secret, secret_len, a->c1, chal))
			goto out;
		c1 = chal;
	}
	if (rblk_auth_host_response(a->hash, k->host_key, k->host_key_len, c1, a->s1, a->t_id,
				    NVMF_AUTH_SC_C_NONE, ctrl->hostnqn, ctrl->ss->nqn, expect) ||
	    !rblk_auth_response_equal(expect, r->response, a->hl))
		goto out;
	if (r->c2) {
		if (!k->ctrl_key_len) {
			RBLK_NOTICE("ctrl %u on %s (%s) qid %u: the host asks for bidirectional "
				    "authentication and no controller key is configured",
				    ctrl->cntlid, ctrl->ss->nqn, ctrl->hostnqn, sq->qid);
			goto out;
		}
		if (secret) {
			if (rblk_auth_augmented_challenge(a->hash, secret, secret_len, r->c2, chal))
				goto out;
			c2 = chal;
		}
		/* Our response: the host's challenge and sequence number, our key. */
		if (rblk_auth_ctrl_response(a->hash, k->ctrl_key, k->ctrl_key_len, c2, r->seqnum,
					    a->t_id, NVMF_AUTH_SC_C_NONE, ctrl->hostnqn,
					    ctrl->ss->nqn, a->resp))
			goto out;
		a->bidirectional = true;
	}
	reason = 0;
out:
	explicit_bzero(chal, sizeof(chal));
	explicit_bzero(expect, sizeof(expect));
	return reason;
}

static void on_reply(struct rblk_sq *sq, const uint8_t *msg, size_t len)
{
	struct rblk_tgt_auth_q *a = &sq->auth;
	size_t glen = rblk_auth_dhgroup_len(a->dhgroup);
	uint8_t secret[RBLK_AUTH_MAX_DH_LEN];
	struct rblk_auth_reply_info r;
	uint8_t reason;

	reason = rblk_auth_reply_parse(msg, len, a->hl, (uint16_t)glen, &r);
	if (!reason && r.t_id != a->t_id)
		reason = NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
	if (reason) {
		refuse(sq, reason);
		return;
	}
	/* nvmet: a public value we cannot use (outside 2..p-2) makes the group unusable. */
	if (glen && rblk_auth_dh_derive(a->dh, r.dhv, glen, secret, glen)) {
		refuse(sq, NVMF_AUTH_FAIL_DHGROUP_UNUSABLE);
		return;
	}
	reason = check_reply(sq, &r, glen ? secret : NULL, glen);
	explicit_bzero(secret, sizeof(secret));
	if (reason)
		refuse(sq, reason);
	else
		enter(sq, RBLK_TGT_AUTH_SUCCESS1);
}

static void on_success2(struct rblk_sq *sq, const uint8_t *msg, size_t len)
{
	uint16_t t_id;
	uint8_t reason = rblk_auth_success2_parse(msg, len, &t_id);

	if (!reason && t_id != sq->auth.t_id)
		reason = NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
	if (reason)
		refuse(sq, reason);
	else
		enter(sq, RBLK_TGT_AUTH_DONE);
}

/* The host gave up (it did not accept our Challenge or our response). */
static void on_failure2(struct rblk_sq *sq, const uint8_t *msg, size_t len)
{
	uint16_t t_id;
	uint8_t exp = 0;

	if (rblk_auth_failure2_parse(msg, len, &t_id, &exp))
		exp = 0;
	RBLK_NOTICE("ctrl %u on %s (%s) qid %u: the host ended authentication: %s",
		    sq->ctrl->cntlid, sq->ctrl->ss->nqn, sq->ctrl->hostnqn, sq->qid,
		    exp ? rblk_auth_failure_str(exp) : "malformed AUTH_Failure2");
	enter(sq, RBLK_TGT_AUTH_FAILED);
}

/* Whether @h is the message the host may send in state @s. */
static bool expected(enum rblk_tgt_auth_state s, const struct rblk_auth_msg_hdr *h)
{
	switch (s) {
	case RBLK_TGT_AUTH_NEGOTIATE:
	case RBLK_TGT_AUTH_DONE:
		return h->type == NVMF_AUTH_TYPE_COMMON && h->id == NVMF_AUTH_ID_NEGOTIATE;
	case RBLK_TGT_AUTH_REPLY:
		return h->type == NVMF_AUTH_TYPE_DHCHAP && h->id == NVMF_AUTH_ID_REPLY;
	case RBLK_TGT_AUTH_SUCCESS2:
		return h->type == NVMF_AUTH_TYPE_DHCHAP && h->id == NVMF_AUTH_ID_SUCCESS2;
	default:
		/* A message of ours is waiting to be read: the host must read it first. */
		return false;
	}
}

static void on_message(struct rblk_sq *sq, const uint8_t *msg, size_t len)
{
	struct rblk_tgt_auth_q *a = &sq->auth;
	struct rblk_auth_msg_hdr h;
	bool in_transaction = a->state != RBLK_TGT_AUTH_NEGOTIATE && a->state != RBLK_TGT_AUTH_DONE;

	if (rblk_auth_msg_peek(msg, len, &h)) {
		if (a->state != RBLK_TGT_AUTH_FAILURE1)
			refuse(sq, NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
		return;
	}
	/* Between transactions the host's message opens one: its t_id is the one to echo. */
	if (!in_transaction)
		a->t_id = h.t_id;
	if (h.type == NVMF_AUTH_TYPE_COMMON && h.id == NVMF_AUTH_ID_FAILURE2 && in_transaction) {
		on_failure2(sq, msg, len);
		return;
	}
	if (a->state == RBLK_TGT_AUTH_FAILURE1)
		return; /* already refused: the host has yet to read why */
	if (!expected(a->state, &h)) {
		refuse(sq, NVMF_AUTH_FAIL_INCORRECT_PROTOCOL);
		return;
	}
	switch (a->state) {
	case RBLK_TGT_AUTH_NEGOTIATE:
	case RBLK_TGT_AUTH_DONE:
		on_negotiate(sq, msg, len);
		break;
	case RBLK_TGT_AUTH_REPLY:
		on_reply(sq, msg, len);
		break;
	case RBLK_TGT_AUTH_SUCCESS2:
		on_success2(sq, msg, len);
		break;
	default:
		break;
	}
}

void rblk_tgt_auth_send(struct rblk_req *req)
{
	uint8_t msg[RBLK_TGT_AUTH_SEND_MAX];
	uint16_t status;

	/* The controller is going away: nothing more to negotiate. */
	if (req->sq->auth.state == RBLK_TGT_AUTH_FAILED) {
		rblk_req_complete(req, NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR);
		return;
	}
	status = rblk_req_copy_from(req, 0, msg, req->data_len);
	if (!status)
		on_message(req->sq, msg, req->data_len);
	explicit_bzero(msg, req->data_len);
	rblk_req_complete(req, status);
}

/* ------------------------------------------------------------------------ */
/* What the controller sends.                                                */

/* Our Challenge into @buf: 0 with *n its length, or the reason to refuse. */
static uint8_t make_challenge(struct rblk_sq *sq, uint8_t *buf, size_t cap, int *n)
{
	struct rblk_tgt_auth_q *a = &sq->auth;
	size_t glen = rblk_auth_dhgroup_len(a->dhgroup);
	uint8_t pub[RBLK_AUTH_MAX_DH_LEN];
	int ret;

	/* Before any crypto: a buffer that cannot take it is the host's error. */
	if (cap < sizeof(struct nvmf_auth_challenge) + a->hl + glen)
		return NVMF_AUTH_FAIL_INCORRECT_PAYLOAD;
	ret = rblk_auth_random(a->c1, a->hl);
	if (!ret && glen) {
		/* A fresh key pair per transaction (nvmet keeps one per controller). */
		ret = rblk_auth_dh_create(a->dhgroup, &a->dh);
		if (!ret)
			ret = rblk_auth_dh_public(a->dh, pub, glen);
	}
	if (ret) {
		RBLK_ERR("ctrl %u qid %u: cannot make a challenge (%s, %s): %s", sq->ctrl->cntlid,
			 sq->qid, rblk_auth_hash_name(a->hash), rblk_auth_dhgroup_name(a->dhgroup),
			 strerror(-ret));
		return NVMF_AUTH_FAIL_FAILED;
	}
	a->s1 = next_seqnum(sq->tgt);
	*n = rblk_auth_challenge_build(buf, cap, a->t_id, (uint8_t)a->hash, a->hl, a->s1, a->c1,
				       (uint8_t)a->dhgroup, pub, (uint16_t)glen);
	return 0;
}

/*
 * The message the host reads now, into @buf (@cap bytes: min(AL, ours)),
 * and the state after it. Returns its length, or -ENOSPC when not even a
 * Failure1 fits.
 */
static int next_message(struct rblk_sq *sq, uint8_t *buf, size_t cap)
{
	struct rblk_tgt_auth_q *a = &sq->auth;
	uint8_t reason;
	int n = 0;

	switch (a->state) {
	case RBLK_TGT_AUTH_CHALLENGE:
		reason = make_challenge(sq, buf, cap, &n);
		if (!reason) {
			enter(sq, RBLK_TGT_AUTH_REPLY);
			return n;
		}
		refuse(sq, reason);
		break;
	case RBLK_TGT_AUTH_SUCCESS1:
		n = rblk_auth_success1_build(buf, cap, a->t_id, a->hl,
					     a->bidirectional ? a->resp : NULL);
		if (n >= 0) {
			enter(sq, a->bidirectional ? RBLK_TGT_AUTH_SUCCESS2 : RBLK_TGT_AUTH_DONE);
			return n;
		}
		refuse(sq, NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
		break;
	case RBLK_TGT_AUTH_FAILURE1:
	case RBLK_TGT_AUTH_FAILED:
		break;
	default:
		/* Nothing to read now (nvmet and SPDK answer the same way). */
		refuse(sq, NVMF_AUTH_FAIL_INCORRECT_PROTOCOL);
		break;
	}
	n = rblk_auth_failure1_build(buf, cap, a->t_id, a->reason);
	if (a->state != RBLK_TGT_AUTH_FAILED)
		enter(sq, RBLK_TGT_AUTH_FAILED);
	return n;
}

void rblk_tgt_auth_receive(struct rblk_req *req)
{
	uint8_t buf[RECV_MSG_MAX];
	size_t cap = req->data_len < sizeof(buf) ? req->data_len : sizeof(buf);
	uint16_t status;
	int n;

	n = next_message(req->sq, buf, cap);
	if (n < 0) {
		/* AL below 8 bytes: not even the Failure1 fits. */
		req->error_loc = offsetof(struct nvmf_auth_cmd, tl_al);
		rblk_req_complete(req, NVME_SC_INVALID_FIELD | NVME_SC_DNR);
		return;
	}
	status = rblk_req_zero(req, 0, req->data_len);
	if (!status)
		status = rblk_req_copy_to(req, 0, buf, (size_t)n);
	explicit_bzero(buf, (size_t)n);
	rblk_req_complete(req, status);
}

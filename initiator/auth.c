/* SPDX-License-Identifier: MIT */
/*
 * The host's DH-HMAC-CHAP transaction (see auth.h). The choices follow the
 * Linux host (drivers/nvme/host/auth.c), which is what controllers are
 * tested against: the response covers the (augmented) challenge, LE32 S1,
 * LE16 t_id, one zero byte for SC_C, "HostHost", the host NQN, a zero byte
 * and the subsystem NQN, keyed with the host secret transformed with the
 * host NQN; the controller's response is keyed with the controller secret
 * transformed with the subsystem NQN. Two deliberate differences: an
 * unexpected message is answered with AUTH_Failure2 (Linux just stops), and
 * a controller that was challenged but sends no response (rvalid clear)
 * fails, where Linux accepts it.
 *
 * Nothing secret is ever logged: no key, challenge, response or DH value.
 */
#include <errno.h>
#include <string.h>

#include "common/log.h"
#include "initiator/auth.h"
#include "protocol/auth_host.h"

const char *rblk_auth_host_state_str(enum rblk_auth_host_state st)
{
	switch (st) {
	case RBLK_AUTH_HOST_NEGOTIATE:
		return "negotiate";
	case RBLK_AUTH_HOST_CHALLENGE:
		return "challenge";
	case RBLK_AUTH_HOST_REPLY:
		return "reply";
	case RBLK_AUTH_HOST_SUCCESS1:
		return "success1";
	case RBLK_AUTH_HOST_SUCCESS2:
		return "success2";
	case RBLK_AUTH_HOST_FAILURE2:
		return "failure2";
	case RBLK_AUTH_HOST_DONE:
		return "done";
	case RBLK_AUTH_HOST_FAILED:
		return "failed";
	}
	return "?";
}

int rblk_auth_host_init(struct rblk_auth_host *a, const struct rblk_auth_host_params *p)
{
	memset(a, 0, sizeof(*a));
	if (!p->host_key || !p->hostnqn || !p->subnqn || (p->ctrl_key && !p->seqnum))
		return -EINVAL;
	a->p = *p;
	a->state = RBLK_AUTH_HOST_NEGOTIATE;
	return 0;
}

/* Through a volatile pointer: the buffers wiped are dead afterwards, a plain memset may vanish. */
static void wipe(void *p, size_t n)
{
	volatile uint8_t *v = p;

	while (n--)
		*v++ = 0;
}

void rblk_auth_host_fini(struct rblk_auth_host *a)
{
	wipe(a, sizeof(*a));
}

int rblk_auth_host_next(struct rblk_auth_host *a, void *buf, size_t cap, enum rblk_auth_xfer *xfer,
			uint32_t *len)
{
	struct rblk_auth_reply_info r;
	int n;

	*xfer = RBLK_AUTH_XFER_NONE;
	*len = 0;
	switch (a->state) {
	case RBLK_AUTH_HOST_NEGOTIATE:
		n = rblk_auth_negotiate_build(a->p.t_id, buf, cap);
		break;
	case RBLK_AUTH_HOST_REPLY:
		r = (struct rblk_auth_reply_info){
			.t_id = a->p.t_id,
			.hl = a->hl,
			.response = a->response,
			.c2 = a->p.ctrl_key ? a->c2 : NULL,
			.seqnum = a->p.ctrl_key ? a->p.seqnum : 0,
			.dhv = a->dhvlen ? a->dhv : NULL,
			.dhvlen = a->dhvlen,
		};
		n = rblk_auth_reply_build(&r, buf, cap);
		break;
	case RBLK_AUTH_HOST_SUCCESS2:
		n = rblk_auth_success2_build(a->p.t_id, buf, cap);
		break;
	case RBLK_AUTH_HOST_FAILURE2:
		n = rblk_auth_failure2_build(a->p.t_id, a->exp, buf, cap);
		break;
	case RBLK_AUTH_HOST_CHALLENGE:
	case RBLK_AUTH_HOST_SUCCESS1:
		if (cap < RBLK_AUTH_RECV_LEN)
			return -ENOSPC;
		/* A short transfer must not leave a previous message behind. */
		memset(buf, 0, RBLK_AUTH_RECV_LEN);
		*xfer = RBLK_AUTH_XFER_RECV;
		*len = RBLK_AUTH_RECV_LEN;
		return 0;
	default:
		return 0;
	}
	if (n < 0)
		return n;
	*xfer = RBLK_AUTH_XFER_SEND;
	*len = (uint32_t)n;
	return 0;
}

static enum rblk_auth_host_state fail(struct rblk_auth_host *a, int err)
{
	a->err = err;
	a->state = RBLK_AUTH_HOST_FAILED;
	return a->state;
}

/* We end the transaction: AUTH_Failure2 saying @exp goes out next. */
static enum rblk_auth_host_state fail2(struct rblk_auth_host *a, int err, uint8_t exp)
{
	a->err = err;
	a->exp = exp;
	a->state = RBLK_AUTH_HOST_FAILURE2;
	return a->state;
}

/* The controller ended the transaction (AUTH_Failure1), or sent what we cannot use. */
static enum rblk_auth_host_state rx_error(struct rblk_auth_host *a, int ret, uint8_t exp,
					  const char *what)
{
	if (ret == -EACCES) {
		RBLK_ERR("qid %u: %s refused authentication: AUTH_Failure1: %s (%#x)", a->p.qid,
			 a->p.subnqn, rblk_auth_failure_str(exp), exp);
		a->failure1 = true;
		a->exp = exp;
		return fail(a, -EACCES);
	}
	RBLK_ERR("qid %u: unusable %s from %s: %s; sending AUTH_Failure2", a->p.qid, what,
		 a->p.subnqn, rblk_auth_failure_str(exp));
	return fail2(a, -EPROTO, exp);
}

/*
 * The challenge to answer: c1 itself for the null group, else the augmented
 * challenge HMAC(H(g^xy), c1) with our ephemeral key (its public value kept
 * for the Reply).
 */
static int dh_step(struct rblk_auth_host *a, const struct rblk_auth_challenge_info *ch,
		   uint8_t *secret, size_t *secret_len)
{
	struct rblk_auth_dh *dh = NULL;
	size_t glen = ch->dhvlen;
	int ret;

	*secret_len = 0;
	if (ch->dhgroup == RBLK_AUTH_DHGROUP_NULL)
		return 0;
	ret = rblk_auth_dh_create(ch->dhgroup, &dh);
	if (!ret)
		ret = rblk_auth_dh_public(dh, a->dhv, glen);
	if (!ret)
		ret = rblk_auth_dh_derive(dh, ch->dhv, ch->dhvlen, secret, glen);
	rblk_auth_dh_destroy(dh);
	if (ret)
		return ret;
	a->dhvlen = (uint16_t)glen;
	*secret_len = glen;
	return 0;
}

static int challenge_for(const struct rblk_auth_host *a, const uint8_t *secret, size_t secret_len,
			 const uint8_t *chal, uint8_t *out)
{
	if (!secret_len) {
		memcpy(out, chal, a->hl);
		return 0;
	}
	return rblk_auth_augmented_challenge(a->hash, secret, secret_len, chal, out);
}

/* Our response to c1 and, when we challenge the controller, c2 and the answer we expect. */
static int responses(struct rblk_auth_host *a, const struct rblk_auth_challenge_info *ch,
		     const uint8_t *secret, size_t secret_len)
{
	uint8_t key[RBLK_AUTH_MAX_KEY_LEN], chal[RBLK_AUTH_MAX_HASH_LEN];
	size_t key_len = 0;
	int ret;

	ret = challenge_for(a, secret, secret_len, ch->c1, chal);
	if (!ret)
		ret = rblk_auth_secret_transform(a->p.host_key, a->p.hostnqn, key, &key_len);
	if (!ret)
		ret = rblk_auth_host_response(a->hash, key, key_len, chal, ch->seqnum, a->p.t_id,
					      NVMF_AUTH_SC_C_NONE, a->p.hostnqn, a->p.subnqn,
					      a->response);
	if (!ret && a->p.ctrl_key) {
		ret = rblk_auth_random(a->c2, a->hl);
		if (!ret)
			ret = challenge_for(a, secret, secret_len, a->c2, chal);
		if (!ret)
			ret = rblk_auth_secret_transform(a->p.ctrl_key, a->p.subnqn, key, &key_len);
		if (!ret)
			ret = rblk_auth_ctrl_response(a->hash, key, key_len, chal, a->p.seqnum,
						      a->p.t_id, NVMF_AUTH_SC_C_NONE, a->p.hostnqn,
						      a->p.subnqn, a->expected);
	}
	wipe(key, sizeof(key));
	wipe(chal, sizeof(chal));
	return ret;
}

static enum rblk_auth_host_state on_challenge(struct rblk_auth_host *a, const void *buf, size_t len)
{
	struct rblk_auth_challenge_info ch;
	uint8_t secret[RBLK_AUTH_MAX_DH_LEN];
	size_t secret_len = 0;
	uint8_t exp = 0;
	int ret;

	ret = rblk_auth_challenge_parse(buf, len, a->p.t_id, &ch, &exp);
	if (ret)
		return rx_error(a, ret, exp, "DH-HMAC-CHAP_Challenge");
	a->hash = ch.hash;
	a->dhgroup = ch.dhgroup;
	a->hl = ch.hl;
	RBLK_DEBUG("qid %u: challenge: %s, DH group %s", a->p.qid, rblk_auth_hash_name(a->hash),
		   rblk_auth_dhgroup_name(a->dhgroup));
	ret = dh_step(a, &ch, secret, &secret_len);
	if (ret == -EINVAL) {
		/* A degenerate public value (1, p - 1, ...): Linux says "incorrect payload". */
		RBLK_ERR("qid %u: the controller's %s value is unusable; sending AUTH_Failure2",
			 a->p.qid, rblk_auth_dhgroup_name(a->dhgroup));
		return fail2(a, -EPROTO, NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	}
	if (!ret)
		ret = responses(a, &ch, secret, secret_len);
	wipe(secret, sizeof(secret));
	if (ret) {
		RBLK_ERR("qid %u: computing the DH-HMAC-CHAP response: %s", a->p.qid, strerror(-ret));
		return fail2(a, ret, NVMF_AUTH_FAIL_FAILED);
	}
	a->state = RBLK_AUTH_HOST_REPLY;
	return a->state;
}

static enum rblk_auth_host_state on_success1(struct rblk_auth_host *a, const void *buf, size_t len)
{
	const uint8_t *rval;
	uint8_t exp = 0;
	int ret;

	ret = rblk_auth_success1_parse(buf, len, a->p.t_id, a->hl, &rval, &exp);
	if (ret)
		return rx_error(a, ret, exp, "DH-HMAC-CHAP_Success1");
	if (!a->p.ctrl_key) {
		a->state = RBLK_AUTH_HOST_DONE;
		return a->state;
	}
	/* We challenged the controller: a missing or wrong answer is a failed authentication. */
	if (!rval || !rblk_auth_response_equal(rval, a->expected, a->hl)) {
		RBLK_ERR("qid %u: controller authentication failed: %s %s (wrong controller secret, or not the controller it claims to be)",
			 a->p.qid, a->p.subnqn, rval ? "gave a wrong response" : "gave no response");
		return fail2(a, -EACCES, NVMF_AUTH_FAIL_FAILED);
	}
	a->state = RBLK_AUTH_HOST_SUCCESS2;
	return a->state;
}

enum rblk_auth_host_state rblk_auth_host_advance(struct rblk_auth_host *a, int err, const void *buf,
						 size_t len)
{
	if (a->state == RBLK_AUTH_HOST_DONE || a->state == RBLK_AUTH_HOST_FAILED)
		return a->state;
	if (a->state == RBLK_AUTH_HOST_FAILURE2)
		return fail(a, a->err);		/* whatever became of it, the transaction failed */
	if (err) {
		RBLK_ERR("qid %u: authentication (%s): %s", a->p.qid,
			 rblk_auth_host_state_str(a->state), strerror(-err));
		return fail(a, err);
	}
	switch (a->state) {
	case RBLK_AUTH_HOST_NEGOTIATE:
		a->state = RBLK_AUTH_HOST_CHALLENGE;
		break;
	case RBLK_AUTH_HOST_CHALLENGE:
		return on_challenge(a, buf, len);
	case RBLK_AUTH_HOST_REPLY:
		a->state = RBLK_AUTH_HOST_SUCCESS1;
		break;
	case RBLK_AUTH_HOST_SUCCESS1:
		return on_success1(a, buf, len);
	case RBLK_AUTH_HOST_SUCCESS2:
		a->state = RBLK_AUTH_HOST_DONE;
		break;
	default:
		break;
	}
	return a->state;
}

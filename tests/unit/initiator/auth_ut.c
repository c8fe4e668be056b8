/* SPDX-License-Identifier: MIT */
/*
 * Tests for initiator/auth.c: the host's DH-HMAC-CHAP state machine stepped
 * one transition at a time against a controller played here with the auth/
 * API (what target/auth.c computes): the challenge it sends, the host
 * response it expects, its own response when challenged.
 */
#include <errno.h>
#include <string.h>

#include "initiator/auth.h"
#include "protocol/auth_host.h"
#include "protocol/le.h"
#include "ut.h"

#define HOSTNQN "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-0000000000aa"
#define SUBNQN "nqn.2024-01.io.rblk:auth"
#define TID 7
#define S1 0x11223344u
#define S2 0x55667788u

/* The controller's side of one transaction. */
struct ctrl {
	enum rblk_auth_hash hash;
	enum rblk_auth_dhgroup group;
	size_t hl;
	uint8_t c1[64];
	struct rblk_auth_dh *dh;
	uint8_t secret[RBLK_AUTH_MAX_DH_LEN];
	size_t secret_len;
	uint8_t msg[RBLK_AUTH_RECV_LEN];
	size_t msg_len;
};

static struct rblk_auth_secret host_key, ctrl_key, other_key;
static uint8_t buf[RBLK_AUTH_RECV_LEN];

static int setup(void)
{
	uint8_t k[64];

	for (unsigned i = 0; i < sizeof(k); i++)
		k[i] = (uint8_t)(3 * i + 1);
	if (rblk_auth_secret_generate(RBLK_AUTH_HASH_SHA256, 32, k, &host_key) ||
	    rblk_auth_secret_generate(RBLK_AUTH_HASH_SHA384, 48, k + 1, &ctrl_key) ||
	    rblk_auth_secret_generate(RBLK_AUTH_HASH_NONE, 32, k + 2, &other_key))
		return 1;
	return 0;
}

static void start(struct rblk_auth_host *a, bool bidi)
{
	struct rblk_auth_host_params p = {
		.qid = 3, .t_id = TID, .seqnum = bidi ? S2 : 0, .host_key = &host_key,
		.ctrl_key = bidi ? &ctrl_key : NULL, .hostnqn = HOSTNQN, .subnqn = SUBNQN,
	};

	CU_ASSERT_EQUAL_FATAL(rblk_auth_host_init(a, &p), 0);
	CU_ASSERT_EQUAL(a->state, RBLK_AUTH_HOST_NEGOTIATE);
}

/* The host's next command must be @want; returns its length. */
static uint32_t next(struct rblk_auth_host *a, enum rblk_auth_xfer want)
{
	enum rblk_auth_xfer x;
	uint32_t len = 0;

	CU_ASSERT_EQUAL(rblk_auth_host_next(a, buf, sizeof(buf), &x, &len), 0);
	CU_ASSERT_EQUAL(x, want);
	return len;
}

/* NEGOTIATE -> CHALLENGE, the Negotiate checked. */
static void negotiate(struct rblk_auth_host *a)
{
	CU_ASSERT_EQUAL(next(a, RBLK_AUTH_XFER_SEND), 72);
	CU_ASSERT_EQUAL(buf[1], NVMF_AUTH_ID_NEGOTIATE);
	CU_ASSERT_EQUAL(rblk_get_le16(buf + 4), TID);
	CU_ASSERT_EQUAL(rblk_auth_host_advance(a, 0, NULL, 0), RBLK_AUTH_HOST_CHALLENGE);
	CU_ASSERT_EQUAL(next(a, RBLK_AUTH_XFER_RECV), RBLK_AUTH_RECV_LEN);
}

static void ctrl_challenge(struct ctrl *c, enum rblk_auth_hash h, enum rblk_auth_dhgroup g)
{
	struct nvmf_auth_challenge *m = (void *)c->msg;
	size_t glen = rblk_auth_dhgroup_len(g);

	memset(c, 0, sizeof(*c));
	c->hash = h;
	c->group = g;
	c->hl = rblk_auth_hash_len(h);
	CU_ASSERT_EQUAL_FATAL(rblk_auth_random(c->c1, c->hl), 0);
	m->auth_type = NVMF_AUTH_TYPE_DHCHAP;
	m->auth_id = NVMF_AUTH_ID_CHALLENGE;
	m->t_id = rblk_cpu_to_le16(TID);
	m->hl = (uint8_t)c->hl;
	m->hashid = h;
	m->dhgid = g;
	m->dhvlen = rblk_cpu_to_le16((uint16_t)glen);
	m->seqnum = rblk_cpu_to_le32(S1);
	memcpy(m->cval, c->c1, c->hl);
	if (g != RBLK_AUTH_DHGROUP_NULL) {
		CU_ASSERT_EQUAL_FATAL(rblk_auth_dh_create(g, &c->dh), 0);
		CU_ASSERT_EQUAL_FATAL(rblk_auth_dh_public(c->dh, m->cval + c->hl, glen), 0);
	}
	c->msg_len = sizeof(*m) + c->hl + glen;
}

/* The challenge (or augmented challenge) the way the controller sees it. */
static void ctrl_chal(struct ctrl *c, const uint8_t *chal, uint8_t *out)
{
	if (!c->secret_len)
		memcpy(out, chal, c->hl);
	else
		CU_ASSERT_EQUAL(rblk_auth_augmented_challenge(c->hash, c->secret, c->secret_len, chal,
							      out), 0);
}

/*
 * The controller checks the Reply of @len bytes in buf: layout, the host's
 * response; fills *cresp with its own response when challenged. Returns
 * whether the host's response was right.
 */
static bool ctrl_check_reply(struct ctrl *c, uint32_t len, bool bidi, uint8_t *cresp)
{
	const struct nvmf_auth_reply *r = (const void *)buf;
	size_t glen = rblk_auth_dhgroup_len(c->group);
	uint8_t key[64], chal[64], want[64];
	size_t klen;

	CU_ASSERT_EQUAL(len, 16 + 2 * c->hl + glen);
	CU_ASSERT_EQUAL(r->auth_type, NVMF_AUTH_TYPE_DHCHAP);
	CU_ASSERT_EQUAL(r->auth_id, NVMF_AUTH_ID_REPLY);
	CU_ASSERT_EQUAL(rblk_le16(r->t_id), TID);
	CU_ASSERT_EQUAL(r->hl, c->hl);
	CU_ASSERT_EQUAL(rblk_le16(r->dhvlen), glen);
	CU_ASSERT_EQUAL(r->cvalid, bidi ? 1 : 0);
	CU_ASSERT_EQUAL(rblk_le32(r->seqnum), bidi ? S2 : 0);
	if (c->dh) {
		c->secret_len = glen;
		CU_ASSERT_EQUAL_FATAL(rblk_auth_dh_derive(c->dh, r->rval + 2 * c->hl, glen, c->secret,
							  glen), 0);
	}
	ctrl_chal(c, c->c1, chal);
	CU_ASSERT_EQUAL_FATAL(rblk_auth_secret_transform(&host_key, HOSTNQN, key, &klen), 0);
	CU_ASSERT_EQUAL_FATAL(rblk_auth_host_response(c->hash, key, klen, chal, S1, TID, 0, HOSTNQN,
						      SUBNQN, want), 0);
	if (bidi) {
		ctrl_chal(c, r->rval + c->hl, chal);
		CU_ASSERT_EQUAL_FATAL(rblk_auth_secret_transform(&ctrl_key, SUBNQN, key, &klen), 0);
		CU_ASSERT_EQUAL_FATAL(rblk_auth_ctrl_response(c->hash, key, klen, chal,
							      rblk_le32(r->seqnum), TID, 0, HOSTNQN,
							      SUBNQN, cresp), 0);
	}
	return !memcmp(r->rval, want, c->hl);
}

static size_t success1(struct ctrl *c, const uint8_t *rval)
{
	struct nvmf_auth_success1 *m = (void *)c->msg;

	memset(c->msg, 0, sizeof(c->msg));
	m->auth_type = NVMF_AUTH_TYPE_DHCHAP;
	m->auth_id = NVMF_AUTH_ID_SUCCESS1;
	m->t_id = rblk_cpu_to_le16(TID);
	m->hl = (uint8_t)c->hl;
	if (rval) {
		m->rvalid = NVMF_AUTH_RVALID;
		memcpy(m->rval, rval, c->hl);
	}
	return sizeof(*m) + c->hl;
}

static void ctrl_fini(struct ctrl *c)
{
	rblk_auth_dh_destroy(c->dh);
	c->dh = NULL;
}

/* A whole exchange up to SUCCESS1 received; returns the state it leads to. */
static enum rblk_auth_host_state exchange(struct rblk_auth_host *a, struct ctrl *c, bool bidi,
					  bool good_ctrl, bool rvalid)
{
	uint8_t cresp[64] = { 0 };
	enum rblk_auth_host_state st;
	uint32_t len;

	negotiate(a);
	CU_ASSERT_EQUAL(rblk_auth_host_advance(a, 0, c->msg, c->msg_len), RBLK_AUTH_HOST_REPLY);
	CU_ASSERT_EQUAL(a->hash, c->hash);
	CU_ASSERT_EQUAL(a->dhgroup, c->group);
	len = next(a, RBLK_AUTH_XFER_SEND);
	CU_ASSERT(ctrl_check_reply(c, len, bidi, cresp));
	CU_ASSERT_EQUAL(rblk_auth_host_advance(a, 0, NULL, 0), RBLK_AUTH_HOST_SUCCESS1);
	CU_ASSERT_EQUAL(next(a, RBLK_AUTH_XFER_RECV), RBLK_AUTH_RECV_LEN);
	if (!good_ctrl)
		cresp[0] ^= 1;
	len = (uint32_t)success1(c, bidi && rvalid ? cresp : NULL);
	st = rblk_auth_host_advance(a, 0, c->msg, len);
	ctrl_fini(c);
	return st;
}

static void test_null_dh(void)
{
	struct rblk_auth_host a;
	struct ctrl c;

	start(&a, false);
	ctrl_challenge(&c, RBLK_AUTH_HASH_SHA256, RBLK_AUTH_DHGROUP_NULL);
	CU_ASSERT_EQUAL(exchange(&a, &c, false, true, false), RBLK_AUTH_HOST_DONE);
	CU_ASSERT_EQUAL(a.dhvlen, 0);
	CU_ASSERT_EQUAL(next(&a, RBLK_AUTH_XFER_NONE), 0);
	CU_ASSERT_EQUAL(a.err, 0);
	rblk_auth_host_fini(&a);
	CU_ASSERT_EQUAL(a.response[0] | a.response[31] | a.hl, 0);
}

static void test_ffdhe2048(void)
{
	struct rblk_auth_host a;
	struct ctrl c;

	start(&a, false);
	ctrl_challenge(&c, RBLK_AUTH_HASH_SHA384, RBLK_AUTH_DHGROUP_2048);
	CU_ASSERT_EQUAL(exchange(&a, &c, false, true, false), RBLK_AUTH_HOST_DONE);
	CU_ASSERT_EQUAL(a.dhvlen, 256);
	rblk_auth_host_fini(&a);
}

static void test_bidirectional(void)
{
	struct rblk_auth_host a;
	struct ctrl c;

	start(&a, true);
	ctrl_challenge(&c, RBLK_AUTH_HASH_SHA512, RBLK_AUTH_DHGROUP_3072);
	CU_ASSERT_EQUAL(exchange(&a, &c, true, true, true), RBLK_AUTH_HOST_SUCCESS2);
	CU_ASSERT_EQUAL(next(&a, RBLK_AUTH_XFER_SEND), 16);
	CU_ASSERT_EQUAL(buf[1], NVMF_AUTH_ID_SUCCESS2);
	CU_ASSERT_EQUAL(rblk_get_le16(buf + 4), TID);
	CU_ASSERT_EQUAL(rblk_auth_host_advance(&a, 0, NULL, 0), RBLK_AUTH_HOST_DONE);
	CU_ASSERT_EQUAL(a.err, 0);
	rblk_auth_host_fini(&a);

	/* Null group too: the plain c2 is what the controller answers. */
	start(&a, true);
	ctrl_challenge(&c, RBLK_AUTH_HASH_SHA256, RBLK_AUTH_DHGROUP_NULL);
	CU_ASSERT_EQUAL(exchange(&a, &c, true, true, true), RBLK_AUTH_HOST_SUCCESS2);
	rblk_auth_host_fini(&a);
}

/* The host sends Failure2 saying @exp, then the transaction is FAILED with @err. */
static void expect_failure2(struct rblk_auth_host *a, uint8_t exp, int err)
{
	CU_ASSERT_EQUAL(a->state, RBLK_AUTH_HOST_FAILURE2);
	CU_ASSERT_EQUAL(next(a, RBLK_AUTH_XFER_SEND), 8);
	CU_ASSERT_EQUAL(buf[0], NVMF_AUTH_TYPE_COMMON);
	CU_ASSERT_EQUAL(buf[1], NVMF_AUTH_ID_FAILURE2);
	CU_ASSERT_EQUAL(rblk_get_le16(buf + 4), TID);
	CU_ASSERT_EQUAL(buf[6], NVMF_AUTH_RESCODE_FAILED);
	CU_ASSERT_EQUAL(buf[7], exp);
	/* Even when the Failure2 itself cannot be sent, the error is the original one. */
	CU_ASSERT_EQUAL(rblk_auth_host_advance(a, -ECONNRESET, NULL, 0), RBLK_AUTH_HOST_FAILED);
	CU_ASSERT_EQUAL(a->err, err);
	CU_ASSERT_EQUAL(next(a, RBLK_AUTH_XFER_NONE), 0);
}

static void test_wrong_ctrl_response(void)
{
	struct rblk_auth_host a;
	struct ctrl c;

	start(&a, true);
	ctrl_challenge(&c, RBLK_AUTH_HASH_SHA256, RBLK_AUTH_DHGROUP_2048);
	CU_ASSERT_EQUAL(exchange(&a, &c, true, false, true), RBLK_AUTH_HOST_FAILURE2);
	expect_failure2(&a, NVMF_AUTH_FAIL_FAILED, -EACCES);
	CU_ASSERT_FALSE(a.failure1);
	rblk_auth_host_fini(&a);

	/* Challenged, the controller answers nothing (rvalid clear): also a failure. */
	start(&a, true);
	ctrl_challenge(&c, RBLK_AUTH_HASH_SHA256, RBLK_AUTH_DHGROUP_NULL);
	CU_ASSERT_EQUAL(exchange(&a, &c, true, true, false), RBLK_AUTH_HOST_FAILURE2);
	expect_failure2(&a, NVMF_AUTH_FAIL_FAILED, -EACCES);
	rblk_auth_host_fini(&a);
}

static void test_failure1(void)
{
	uint8_t f1[8] = { 0x00, 0xF1, 0, 0, TID, 0, 0x01, NVMF_AUTH_FAIL_FAILED };
	struct rblk_auth_host a;
	struct ctrl c;

	/* In place of the challenge: no Failure2, the connect fails with -EACCES. */
	start(&a, false);
	negotiate(&a);
	CU_ASSERT_EQUAL(rblk_auth_host_advance(&a, 0, f1, sizeof(f1)), RBLK_AUTH_HOST_FAILED);
	CU_ASSERT_EQUAL(a.err, -EACCES);
	CU_ASSERT(a.failure1);
	CU_ASSERT_EQUAL(a.exp, NVMF_AUTH_FAIL_FAILED);
	CU_ASSERT_EQUAL(next(&a, RBLK_AUTH_XFER_NONE), 0);

	/* In place of Success1 (the controller did not like our response). */
	start(&a, false);
	ctrl_challenge(&c, RBLK_AUTH_HASH_SHA256, RBLK_AUTH_DHGROUP_NULL);
	negotiate(&a);
	CU_ASSERT_EQUAL(rblk_auth_host_advance(&a, 0, c.msg, c.msg_len), RBLK_AUTH_HOST_REPLY);
	next(&a, RBLK_AUTH_XFER_SEND);
	CU_ASSERT_EQUAL(rblk_auth_host_advance(&a, 0, NULL, 0), RBLK_AUTH_HOST_SUCCESS1);
	next(&a, RBLK_AUTH_XFER_RECV);
	CU_ASSERT_EQUAL(rblk_auth_host_advance(&a, 0, f1, sizeof(f1)), RBLK_AUTH_HOST_FAILED);
	CU_ASSERT_EQUAL(a.err, -EACCES);
	CU_ASSERT(a.failure1);
	ctrl_fini(&c);
}

static void test_bad_challenge(void)
{
	struct rblk_auth_host a;
	struct ctrl c;

	/* hl that is not the hash's length: Failure2 "hash not usable", -EPROTO. */
	start(&a, false);
	ctrl_challenge(&c, RBLK_AUTH_HASH_SHA256, RBLK_AUTH_DHGROUP_NULL);
	c.msg[6] = 48;
	negotiate(&a);
	CU_ASSERT_EQUAL(rblk_auth_host_advance(&a, 0, c.msg, c.msg_len + 16),
			RBLK_AUTH_HOST_FAILURE2);
	expect_failure2(&a, NVMF_AUTH_FAIL_HASH_UNUSABLE, -EPROTO);

	/* An unknown group. */
	start(&a, false);
	ctrl_challenge(&c, RBLK_AUTH_HASH_SHA256, RBLK_AUTH_DHGROUP_NULL);
	c.msg[9] = 0x09;
	negotiate(&a);
	rblk_auth_host_advance(&a, 0, c.msg, c.msg_len);
	expect_failure2(&a, NVMF_AUTH_FAIL_DHGROUP_UNUSABLE, -EPROTO);

	/* A degenerate DH value (1): no shared secret from it. */
	start(&a, false);
	ctrl_challenge(&c, RBLK_AUTH_HASH_SHA256, RBLK_AUTH_DHGROUP_2048);
	memset(c.msg + 16 + 32, 0, 256);
	c.msg[16 + 32 + 255] = 1;
	negotiate(&a);
	rblk_auth_host_advance(&a, 0, c.msg, c.msg_len);
	expect_failure2(&a, NVMF_AUTH_FAIL_INCORRECT_PAYLOAD, -EPROTO);
	ctrl_fini(&c);

	/* Another transaction's message. */
	start(&a, false);
	ctrl_challenge(&c, RBLK_AUTH_HASH_SHA256, RBLK_AUTH_DHGROUP_NULL);
	c.msg[4] = TID + 1;
	negotiate(&a);
	rblk_auth_host_advance(&a, 0, c.msg, c.msg_len);
	expect_failure2(&a, NVMF_AUTH_FAIL_INCORRECT_PROTOCOL, -EPROTO);
}

static void test_command_errors(void)
{
	struct rblk_auth_host a;
	struct rblk_auth_host_params p = { .t_id = TID, .host_key = &host_key, .ctrl_key = &ctrl_key,
					   .hostnqn = HOSTNQN, .subnqn = SUBNQN };

	/* A failed command ends the transaction with its error, no Failure2. */
	start(&a, false);
	next(&a, RBLK_AUTH_XFER_SEND);
	CU_ASSERT_EQUAL(rblk_auth_host_advance(&a, -ETIMEDOUT, NULL, 0), RBLK_AUTH_HOST_FAILED);
	CU_ASSERT_EQUAL(a.err, -ETIMEDOUT);
	start(&a, false);
	negotiate(&a);
	CU_ASSERT_EQUAL(rblk_auth_host_advance(&a, -EREMOTEIO, NULL, 0), RBLK_AUTH_HOST_FAILED);
	CU_ASSERT_EQUAL(a.err, -EREMOTEIO);
	/* FAILED stays FAILED. */
	CU_ASSERT_EQUAL(rblk_auth_host_advance(&a, 0, NULL, 0), RBLK_AUTH_HOST_FAILED);
	/* A buffer too small for a receive is refused, not overrun. */
	start(&a, false);
	rblk_auth_host_advance(&a, 0, NULL, 0);
	{
		enum rblk_auth_xfer x;
		uint32_t len;

		CU_ASSERT_EQUAL(rblk_auth_host_next(&a, buf, 100, &x, &len), -ENOSPC);
	}
	/* Parameters: a bidirectional transaction needs a seqnum; a host key always. */
	CU_ASSERT_EQUAL(rblk_auth_host_init(&a, &p), -EINVAL);
	p.seqnum = 1;
	p.host_key = NULL;
	CU_ASSERT_EQUAL(rblk_auth_host_init(&a, &p), -EINVAL);
	CU_ASSERT_STRING_EQUAL(rblk_auth_host_state_str(RBLK_AUTH_HOST_SUCCESS1), "success1");
	CU_ASSERT_STRING_EQUAL(rblk_auth_host_state_str(RBLK_AUTH_HOST_FAILURE2), "failure2");
}

/* A controller holding another host key rejects us: our response is not what it computes. */
static void test_wrong_host_key(void)
{
	struct rblk_auth_host a;
	struct rblk_auth_host_params p = { .t_id = TID, .host_key = &other_key, .hostnqn = HOSTNQN,
					   .subnqn = SUBNQN };
	struct ctrl c;
	uint32_t len;

	CU_ASSERT_EQUAL_FATAL(rblk_auth_host_init(&a, &p), 0);
	ctrl_challenge(&c, RBLK_AUTH_HASH_SHA256, RBLK_AUTH_DHGROUP_NULL);
	negotiate(&a);
	rblk_auth_host_advance(&a, 0, c.msg, c.msg_len);
	len = next(&a, RBLK_AUTH_XFER_SEND);
	CU_ASSERT_FALSE(ctrl_check_reply(&c, len, false, NULL));
	rblk_auth_host_fini(&a);
}

static const struct ut_case cases[] = {
	UT_CASE(test_null_dh),
	UT_CASE(test_ffdhe2048),
	UT_CASE(test_bidirectional),
	UT_CASE(test_wrong_ctrl_response),
	UT_CASE(test_failure1),
	UT_CASE(test_bad_challenge),
	UT_CASE(test_command_errors),
	UT_CASE(test_wrong_host_key),
	UT_END,
};

UT_MAIN_INIT("initiator/auth", cases, setup, NULL)

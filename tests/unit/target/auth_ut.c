/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/auth.c: DH-HMAC-CHAP transactions through the test
 * transport, the host played with the auth/ library (auth_host.c). Whole
 * transactions (NULL group and FFDHE, uni- and bidirectional, admin and I/O
 * queues, re-authentication), what is refused before a queue authenticated,
 * and every way a transaction fails: the Failure1 the host reads, and the
 * controller failing after it.
 */
#include <string.h>

#include "auth_host.h"
#include "protocol/auth.h"
#include "protocol/le.h"
#include "ut.h"

static struct tt_env *env;
static struct rblk_subsystem *ss;
static struct tt_queue *aq;
static uint32_t nsid;
static char key[RBLK_AUTH_SECRET_STR_MAX], ckey[RBLK_AUTH_SECRET_STR_MAX];
static uint8_t m[AH_BUF];

/* hash / dhgroup: NULL for the defaults; ctrl_key: NULL for none. */
static void setup(const char *hash, const char *dhgroup, bool ctrl_key)
{
	struct rblk_target_opts o;
	struct rblk_host_auth a;

	rblk_target_opts_init(&o);
	o.max_io_queues = 4;
	env = tt_env_create(&o, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	ss = tt_add_subsys(env, TT_SUBNQN, "mem:1M", &nsid);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ss);
	ah_key(key, sizeof(key), RBLK_AUTH_HASH_SHA256, 32, 0x11);
	ah_key(ckey, sizeof(ckey), RBLK_AUTH_HASH_NONE, 48, 0x22);
	CU_ASSERT_EQUAL_FATAL(rblk_subsystem_allow_host(ss, TT_HOSTNQN), 0);
	rblk_host_auth_init(&a);
	a.key = key;
	a.ctrl_key = ctrl_key ? ckey : NULL;
	a.hash = hash;
	a.dhgroup = dhgroup;
	CU_ASSERT_EQUAL_FATAL(rblk_subsystem_set_host_auth(ss, TT_HOSTNQN, &a), 0);
	aq = tt_queue_create(env, 0, 32);
}

static void teardown(void)
{
	tt_queue_destroy(aq);
	aq = NULL;
	tt_env_destroy(env);
	env = NULL;
}

/* Admin Connect of @hostnqn: the CQE's DW0 (CNTLID | AUTHREQ), 0 on failure. */
static uint32_t connect_admin(const char *hostnqn)
{
	struct nvme_cqe cqe;

	if (tt_connect(aq, TT_SUBNQN, hostnqn, 0, 31, 0xFFFF, 0, 0, &cqe))
		return 0;
	return rblk_le32(cqe.dw0);
}

static void enable(void)
{
	uint64_t csts = 0;

	CU_ASSERT_EQUAL_FATAL(tt_prop_set(aq, NVME_REG_CC, 0x00460001), 0);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_CSTS, false, &csts), 0);
	CU_ASSERT_TRUE(csts & NVME_CSTS_RDY);
}

/*
 * The controller failed and its queues disconnected, once the grace that
 * lets the failing command's completion reach the host is over (a tick far
 * in the future ends it).
 */
static bool ctrl_failed(struct tt_queue *q)
{
	if (q->sq.ctrl && q->sq.auth.state == RBLK_TGT_AUTH_FAILED)
		rblk_tgt_auth_tick(&q->sq, UINT64_MAX);
	return q->sq.ctrl && __atomic_load_n(&q->sq.ctrl->fatal, __ATOMIC_RELAXED) &&
	       q->disconnects > 0;
}

/* ------------------------------------------------------------------------ */
/* Whole transactions.                                                       */

static void test_connect_asks_for_authentication(void)
{
	struct tt_queue *aq2;
	struct nvme_cqe cqe;

	setup(NULL, NULL, false);
	/* CNTLID in 15:0, ATR (bit 17) set, ASCR (bit 18) clear. */
	CU_ASSERT_EQUAL(connect_admin(TT_HOSTNQN), NVMF_CONNECT_AUTHREQ_ATR | 1);
	CU_ASSERT_EQUAL(NVMF_CONNECT_AUTHREQ_ATR, 0x20000);
	CU_ASSERT_PTR_NOT_NULL(aq->sq.ctrl->auth);
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_NEGOTIATE);
	/* A host without a key on the same subsystem (allow_any_host): no ATR. */
	aq2 = tt_queue_create(env, 0, 32);
	CU_ASSERT_EQUAL(tt_connect(aq2, TT_SUBNQN, TT_HOSTNQN2, 0, 31, 0xFFFF, 0, 0, &cqe), 0);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0) & NVMF_CONNECT_AUTHREQ_ATR, 0);
	CU_ASSERT_PTR_NULL(aq2->sq.ctrl->auth);
	tt_queue_destroy(aq2);
	teardown();
}

static void test_commands_refused_before_authentication(void)
{
	uint64_t v = 0;
	uint8_t id[NVME_IDENTIFY_DATA_SIZE];
	struct nvme_sqe ka;

	setup(NULL, NULL, false);
	connect_admin(TT_HOSTNQN);
	/* Property Get/Set included: nothing runs before the queue authenticated. */
	CU_ASSERT_EQUAL(TT_SC(tt_prop_get(aq, NVME_REG_VS, false, &v)),
			NVME_SC_AUTH_REQUIRED | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_prop_set(aq, NVME_REG_CC, 0x00460001)),
			NVME_SC_AUTH_REQUIRED | NVME_SC_DNR);
	CU_ASSERT_EQUAL(aq->sq.ctrl->cc, 0);
	CU_ASSERT_EQUAL(TT_SC(tt_identify(aq, NVME_ID_CNS_CTRL, 0, 0, id)),
			NVME_SC_AUTH_REQUIRED | NVME_SC_DNR);
	tt_sqe(&ka, NVME_ADMIN_KEEP_ALIVE, 3, 0);
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(aq, &ka, NULL, 0, NULL, NULL, 0)),
			NVME_SC_AUTH_REQUIRED | NVME_SC_DNR);
	CU_ASSERT_EQUAL(NVME_SC_AUTH_REQUIRED, 0x191);
	/* Refusals do not fail the controller: the host may still authenticate. */
	CU_ASSERT_FALSE(aq->sq.ctrl->fatal);
	teardown();
}

static void test_null_group_unidirectional(void)
{
	struct ah_host h;
	uint64_t v = 0;

	setup(NULL, NULL, false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, NULL);
	/* Step by step: Negotiate, Challenge, Reply, Success1. */
	CU_ASSERT_EQUAL(ah_send(aq, m, ah_negotiate(&h, m)), 0);
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_CHALLENGE);
	CU_ASSERT_EQUAL(ah_recv(aq, AH_BUF, m), 0);
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_REPLY);
	CU_ASSERT_EQUAL_FATAL(ah_challenge(&h, m), 0);
	CU_ASSERT_EQUAL(h.hashid, RBLK_AUTH_HASH_SHA256); /* the default hash */
	CU_ASSERT_EQUAL(h.hl, 32);
	CU_ASSERT_EQUAL(h.dhgid, RBLK_AUTH_DHGROUP_NULL);
	CU_ASSERT_EQUAL(h.dhvlen, 0);
	CU_ASSERT_NOT_EQUAL(h.s1, 0);
	/* AL bytes come back: the message, then zeroes (the buffer was poisoned). */
	CU_ASSERT_EQUAL(m[16 + 32], 0);
	CU_ASSERT_EQUAL(m[AH_BUF - 1], 0);
	CU_ASSERT_EQUAL(ah_send(aq, m, ah_reply(&h, m)), 0);
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_SUCCESS1);
	CU_ASSERT_FALSE(aq->sq.auth.authenticated);
	CU_ASSERT_EQUAL(ah_recv(aq, AH_BUF, m), 0);
	CU_ASSERT_EQUAL(ah_success1(&h, m), 0);
	CU_ASSERT_EQUAL(m[6], 32); /* HL even without a response: the Linux host checks it */
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_DONE);
	CU_ASSERT_TRUE(aq->sq.auth.authenticated);
	CU_ASSERT_PTR_NULL(aq->sq.auth.dh);
	/* Now the queue is open. */
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_VS, false, &v), 0);
	CU_ASSERT_EQUAL(v, 0x00010300);
	enable();
	teardown();
}

static void test_null_group_bidirectional(void)
{
	struct ah_host h;
	uint64_t v;

	setup("sha512", "null", true);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, ckey);
	ah_send(aq, m, ah_negotiate(&h, m));
	ah_recv(aq, AH_BUF, m);
	CU_ASSERT_EQUAL_FATAL(ah_challenge(&h, m), 0);
	CU_ASSERT_EQUAL(h.hashid, RBLK_AUTH_HASH_SHA512);
	CU_ASSERT_EQUAL(h.hl, 64);
	ah_send(aq, m, ah_reply(&h, m));
	CU_ASSERT_EQUAL(ah_recv(aq, AH_BUF, m), 0);
	/* RVALID and the controller's response as the host computes it. */
	CU_ASSERT_EQUAL(m[8], NVMF_AUTH_RVALID);
	CU_ASSERT_EQUAL(ah_success1(&h, m), 0);
	/* Until Success2 the queue is still closed. */
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_SUCCESS2);
	CU_ASSERT_EQUAL(TT_SC(tt_prop_get(aq, NVME_REG_VS, false, &v)),
			NVME_SC_AUTH_REQUIRED | NVME_SC_DNR);
	CU_ASSERT_EQUAL(ah_send(aq, m, ah_success2(&h, m)), 0);
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_DONE);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_VS, false, &v), 0);
	teardown();
}

static void test_ffdhe2048_bidirectional(void)
{
	struct ah_host h;

	setup("hmac(sha384)", "ffdhe2048", true);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, ckey);
	ah_send(aq, m, ah_negotiate(&h, m));
	CU_ASSERT_EQUAL(ah_recv(aq, AH_BUF, m), 0);
	CU_ASSERT_EQUAL_FATAL(ah_challenge(&h, m), 0);
	CU_ASSERT_EQUAL(h.hashid, RBLK_AUTH_HASH_SHA384);
	CU_ASSERT_EQUAL(h.dhgid, RBLK_AUTH_DHGROUP_2048);
	CU_ASSERT_EQUAL(h.dhvlen, 256);
	CU_ASSERT_PTR_NOT_NULL(aq->sq.auth.dh);
	/* Both responses over augmented challenges (the shared secret is right on both ends). */
	CU_ASSERT_EQUAL(ah_send(aq, m, ah_reply(&h, m)), 0);
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_SUCCESS1);
	CU_ASSERT_EQUAL(ah_recv(aq, AH_BUF, m), 0);
	CU_ASSERT_EQUAL(ah_success1(&h, m), 0);
	CU_ASSERT_EQUAL(ah_send(aq, m, ah_success2(&h, m)), 0);
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_DONE);
	CU_ASSERT_PTR_NULL(aq->sq.auth.dh);
	enable();
	teardown();
}

static void test_ffdhe2048_unidirectional(void)
{
	struct ah_host h;

	setup(NULL, "ffdhe2048", false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, NULL);
	CU_ASSERT_EQUAL(ah_authenticate(&h, aq), 0);
	CU_ASSERT_EQUAL(h.dhvlen, 256);
	CU_ASSERT_TRUE(aq->sq.auth.authenticated);
	teardown();
}

/* Each I/O queue authenticates on its own; no command runs on it before. */
static void test_io_queue(void)
{
	struct tt_queue *ioq;
	struct nvme_cqe cqe;
	struct ah_host h;
	uint8_t buf[512];
	uint32_t cntlid;

	setup(NULL, NULL, true);
	cntlid = connect_admin(TT_HOSTNQN) & 0xFFFF;
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, ckey);
	CU_ASSERT_EQUAL_FATAL(ah_authenticate(&h, aq), 0);
	enable();
	ioq = tt_queue_create(env, 1, 128);
	CU_ASSERT_EQUAL_FATAL(tt_connect(ioq, TT_SUBNQN, TT_HOSTNQN, 1, 127, (uint16_t)cntlid, 0, 0,
					 &cqe), 0);
	CU_ASSERT_EQUAL(rblk_le32(cqe.dw0), NVMF_CONNECT_AUTHREQ_ATR | cntlid);
	CU_ASSERT_EQUAL(TT_SC(tt_rw(ioq, NVME_IO_READ, nsid, 0, 1, 0, buf, sizeof(buf))),
			NVME_SC_AUTH_REQUIRED | NVME_SC_DNR);
	CU_ASSERT_EQUAL(TT_SC(tt_rw(ioq, NVME_IO_WRITE, nsid, 0, 1, 0, buf, sizeof(buf))),
			NVME_SC_AUTH_REQUIRED | NVME_SC_DNR);
	/* No namespace was reached. */
	CU_ASSERT_EQUAL(ns_stats(ss->ns[nsid - 1]).read_cmds, 0);
	CU_ASSERT_EQUAL(ns_stats(ss->ns[nsid - 1]).write_cmds, 0);
	h.t_id = 0x0202;
	CU_ASSERT_EQUAL(ah_authenticate(&h, ioq), 0);
	CU_ASSERT_EQUAL(ioq->sq.auth.state, RBLK_TGT_AUTH_DONE);
	CU_ASSERT_EQUAL(tt_rw(ioq, NVME_IO_READ, nsid, 0, 1, 0, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(ns_stats(ss->ns[nsid - 1]).read_cmds, 1);
	tt_queue_destroy(ioq);
	teardown();
}

/* A Negotiate on an authenticated queue re-authenticates; the queue stays usable meanwhile. */
static void test_reauthentication(void)
{
	struct ah_host h;
	uint64_t v;
	uint32_t s1;

	setup(NULL, "ffdhe2048", true);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, ckey);
	CU_ASSERT_EQUAL_FATAL(ah_authenticate(&h, aq), 0);
	s1 = h.s1;
	h.t_id++;
	ah_send(aq, m, ah_negotiate(&h, m));
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_CHALLENGE);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_VS, false, &v), 0);
	ah_recv(aq, AH_BUF, m);
	CU_ASSERT_EQUAL_FATAL(ah_challenge(&h, m), 0);
	/* A new sequence number: the next one (random start, +1). */
	CU_ASSERT_EQUAL(h.s1, s1 + 1);
	ah_send(aq, m, ah_reply(&h, m));
	ah_recv(aq, AH_BUF, m);
	CU_ASSERT_EQUAL(ah_success1(&h, m), 0);
	CU_ASSERT_EQUAL(tt_prop_get(aq, NVME_REG_VS, false, &v), 0);
	ah_send(aq, m, ah_success2(&h, m));
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_DONE);
	CU_ASSERT_FALSE(aq->sq.ctrl->fatal);
	teardown();
}

/* ------------------------------------------------------------------------ */
/* Failures.                                                                 */

/* The Failure1 the host reads now: its reason explanation (-1: not a Failure1 for t_id). */
static int read_failure1(uint16_t t_id)
{
	if (ah_recv(aq, AH_BUF, m) || m[0] != NVMF_AUTH_TYPE_COMMON ||
	    m[1] != NVMF_AUTH_ID_FAILURE1 || rblk_get_le16(m + 4) != t_id ||
	    m[6] != NVMF_AUTH_RESCODE_FAILED)
		return -1;
	return m[7];
}

static void test_wrong_response(void)
{
	struct ah_host h;
	uint64_t v;

	setup(NULL, NULL, false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, NULL);
	ah_send(aq, m, ah_negotiate(&h, m));
	ah_recv(aq, AH_BUF, m);
	ah_challenge(&h, m);
	ah_reply(&h, m);
	m[16] ^= 1;
	/* The Send itself succeeds: the refusal is a message. */
	CU_ASSERT_EQUAL(ah_send(aq, m, 16 + 2 * 32), 0);
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_FAILURE1);
	CU_ASSERT_FALSE(aq->sq.ctrl->fatal);
	CU_ASSERT_EQUAL(read_failure1(h.t_id), NVMF_AUTH_FAIL_FAILED);
	/*
	 * Read: the controller fails (nvmet), its queues disconnect; not at
	 * once, so that the Receive's completion reaches the host first.
	 */
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_FAILED);
	CU_ASSERT_FALSE(aq->sq.ctrl->fatal);
	CU_ASSERT_EQUAL(aq->disconnects, 0);
	rblk_tgt_auth_tick(&aq->sq, rblk_clock_ms());
	CU_ASSERT_FALSE(aq->sq.ctrl->fatal);
	CU_ASSERT_TRUE(ctrl_failed(aq));
	CU_ASSERT_EQUAL(TT_SC(tt_prop_get(aq, NVME_REG_VS, false, &v)),
			NVME_SC_AUTH_REQUIRED | NVME_SC_DNR);
	/* Nothing more to negotiate on it. */
	CU_ASSERT_EQUAL(TT_SC(ah_send(aq, m, ah_negotiate(&h, m))),
			NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR);
	teardown();
}

static void test_wrong_key(void)
{
	char other[RBLK_AUTH_SECRET_STR_MAX];
	struct ah_host h;

	setup(NULL, "ffdhe2048", false);
	connect_admin(TT_HOSTNQN);
	ah_key(other, sizeof(other), RBLK_AUTH_HASH_SHA256, 32, 0x12);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, other, NULL);
	CU_ASSERT_EQUAL(ah_authenticate(&h, aq), NVMF_AUTH_FAIL_FAILED);
	CU_ASSERT_TRUE(ctrl_failed(aq));
	teardown();
}

/* The host asks for the controller's response and none is configured. */
static void test_bidirectional_without_ctrl_key(void)
{
	struct ah_host h;

	setup(NULL, NULL, false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, ckey);
	CU_ASSERT_EQUAL(ah_authenticate(&h, aq), NVMF_AUTH_FAIL_FAILED);
	CU_ASSERT_FALSE(aq->sq.auth.authenticated);
	teardown();
}

/* The controller's response is checked by the host: a wrong controller key fails there. */
static void test_host_rejects_controller(void)
{
	char other[RBLK_AUTH_SECRET_STR_MAX];
	struct ah_host h;

	setup(NULL, NULL, true);
	connect_admin(TT_HOSTNQN);
	ah_key(other, sizeof(other), RBLK_AUTH_HASH_NONE, 48, 0x23);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, other);
	ah_send(aq, m, ah_negotiate(&h, m));
	ah_recv(aq, AH_BUF, m);
	ah_challenge(&h, m);
	ah_send(aq, m, ah_reply(&h, m));
	ah_recv(aq, AH_BUF, m);
	CU_ASSERT_EQUAL(ah_success1(&h, m), -1);
	/* The host says so with AUTH_Failure2: over. */
	memset(m, 0, 8);
	m[1] = NVMF_AUTH_ID_FAILURE2;
	m[4] = (uint8_t)h.t_id;
	m[5] = (uint8_t)(h.t_id >> 8);
	m[6] = NVMF_AUTH_RESCODE_FAILED;
	m[7] = NVMF_AUTH_FAIL_FAILED;
	CU_ASSERT_EQUAL(ah_send(aq, m, 8), 0);
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_FAILED);
	CU_ASSERT_TRUE(ctrl_failed(aq));
	teardown();
}

static void test_unexpected_messages(void)
{
	struct ah_host h;

	/* A Reply before any Negotiate. */
	setup(NULL, NULL, false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, NULL);
	h.hashid = RBLK_AUTH_HASH_SHA256;
	h.hl = 32;
	CU_ASSERT_EQUAL(ah_send(aq, m, ah_reply(&h, m)), 0);
	CU_ASSERT_EQUAL(read_failure1(h.t_id), NVMF_AUTH_FAIL_INCORRECT_PROTOCOL);
	CU_ASSERT_TRUE(ctrl_failed(aq));
	teardown();

	/* A Receive with nothing to read. */
	setup(NULL, NULL, false);
	connect_admin(TT_HOSTNQN);
	CU_ASSERT_EQUAL(read_failure1(0), NVMF_AUTH_FAIL_INCORRECT_PROTOCOL);
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_FAILED);
	teardown();

	/* A second Negotiate while the Challenge waits to be read. */
	setup(NULL, NULL, false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, NULL);
	ah_send(aq, m, ah_negotiate(&h, m));
	ah_send(aq, m, ah_negotiate(&h, m));
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_FAILURE1);
	CU_ASSERT_EQUAL(read_failure1(h.t_id), NVMF_AUTH_FAIL_INCORRECT_PROTOCOL);
	teardown();

	/* Success2 of a unidirectional transaction, after it is done: the queue closes. */
	setup(NULL, NULL, false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, NULL);
	CU_ASSERT_EQUAL_FATAL(ah_authenticate(&h, aq), 0);
	CU_ASSERT_EQUAL(ah_send(aq, m, ah_success2(&h, m)), 0);
	CU_ASSERT_FALSE(aq->sq.auth.authenticated);
	CU_ASSERT_EQUAL(read_failure1(h.t_id), NVMF_AUTH_FAIL_INCORRECT_PROTOCOL);
	teardown();
}

static void test_bad_payloads(void)
{
	struct ah_host h;
	size_t len;

	/* A truncated Reply. */
	setup(NULL, NULL, false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, NULL);
	ah_send(aq, m, ah_negotiate(&h, m));
	ah_recv(aq, AH_BUF, m);
	ah_challenge(&h, m);
	len = ah_reply(&h, m);
	CU_ASSERT_EQUAL(ah_send(aq, m, len - 1), 0);
	CU_ASSERT_EQUAL(read_failure1(h.t_id), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	teardown();

	/* An oversized Negotiate (a descriptor short of NAPD's count). */
	setup(NULL, NULL, false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, NULL);
	ah_negotiate(&h, m);
	memset(m + 72, 0, 64);
	CU_ASSERT_EQUAL(ah_send(aq, m, 72 + 64), 0);
	CU_ASSERT_EQUAL(read_failure1(h.t_id), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	teardown();

	/* A Reply of another transaction. */
	setup(NULL, NULL, false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, NULL);
	ah_send(aq, m, ah_negotiate(&h, m));
	ah_recv(aq, AH_BUF, m);
	ah_challenge(&h, m);
	h.t_id++;
	len = ah_reply(&h, m);
	CU_ASSERT_EQUAL(ah_send(aq, m, len), 0);
	CU_ASSERT_EQUAL(read_failure1(h.t_id - 1), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	teardown();

	/* A Reply whose DH value is for no group (NULL group chosen). */
	setup(NULL, NULL, false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, NULL);
	ah_send(aq, m, ah_negotiate(&h, m));
	ah_recv(aq, AH_BUF, m);
	ah_challenge(&h, m);
	len = ah_reply(&h, m);
	m[11] = 1; /* DHVLEN 256 */
	memset(m + len, 2, 256);
	CU_ASSERT_EQUAL(ah_send(aq, m, len + 256), 0);
	CU_ASSERT_EQUAL(read_failure1(h.t_id), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	teardown();
}

static void test_degenerate_dh_value(void)
{
	struct ah_host h;
	size_t len;

	setup(NULL, "ffdhe2048", false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, NULL);
	ah_send(aq, m, ah_negotiate(&h, m));
	ah_recv(aq, AH_BUF, m);
	ah_challenge(&h, m);
	len = ah_reply(&h, m);
	/* Public value 1: it would make the shared secret 1. */
	memset(m + len - 256, 0, 256);
	m[len - 1] = 1;
	CU_ASSERT_EQUAL(ah_send(aq, m, len), 0);
	CU_ASSERT_EQUAL(read_failure1(h.t_id), NVMF_AUTH_FAIL_DHGROUP_UNUSABLE);
	teardown();
}

static void test_negotiation_choices(void)
{
	struct ah_host h;

	/* SHA-512 configured, the host only offers SHA-256: its choice (nvmet). */
	setup("sha512", NULL, false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, NULL);
	h.nr_hashes = 1;
	CU_ASSERT_EQUAL(ah_authenticate(&h, aq), 0);
	CU_ASSERT_EQUAL(h.hashid, RBLK_AUTH_HASH_SHA256);
	teardown();

	/* ffdhe3072 configured, the host offers NULL and ffdhe2048 only: refused. */
	setup(NULL, "ffdhe3072", false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, NULL);
	h.nr_groups = 2;
	CU_ASSERT_EQUAL(ah_authenticate(&h, aq), NVMF_AUTH_FAIL_DHGROUP_UNUSABLE);
	teardown();

	/* No hash the target knows. */
	setup(NULL, NULL, false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, NULL);
	h.hashes[0] = 0x07;
	h.nr_hashes = 1;
	CU_ASSERT_EQUAL(ah_authenticate(&h, aq), NVMF_AUTH_FAIL_HASH_UNUSABLE);
	teardown();
}

/* A malformed command is an NVMe error, decided before any data moves; the transaction stays. */
static void test_command_fields(void)
{
	struct nvmf_auth_cmd c;
	struct nvme_cqe cqe;
	struct tt_queue *aq2;
	struct ah_host h;

	setup(NULL, NULL, false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, NULL);
	ah_sqe((struct nvme_sqe *)&c, true, 72);
	c.secp = 0xea;
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(aq, (struct nvme_sqe *)&c, m, 72, &cqe, NULL, 0)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	ah_sqe((struct nvme_sqe *)&c, false, 4096);
	c.spsp1 = 0;
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(aq, (struct nvme_sqe *)&c, NULL, 4096, &cqe, NULL, 0)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	ah_sqe((struct nvme_sqe *)&c, true, 0);
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(aq, (struct nvme_sqe *)&c, NULL, 0, &cqe, NULL, 0)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	/* No message is longer than 4 KiB. */
	ah_sqe((struct nvme_sqe *)&c, true, RBLK_TGT_AUTH_SEND_MAX + 1);
	CU_ASSERT_EQUAL(TT_SC(tt_cmd(aq, (struct nvme_sqe *)&c, m, RBLK_TGT_AUTH_SEND_MAX + 1, &cqe,
				     NULL, 0)),
			NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_NEGOTIATE);
	CU_ASSERT_EQUAL(ah_authenticate(&h, aq), 0);

	/* A host without a key: authentication commands are not for it. */
	aq2 = tt_queue_create(env, 0, 32);
	CU_ASSERT_EQUAL(tt_connect(aq2, TT_SUBNQN, TT_HOSTNQN2, 0, 31, 0xFFFF, 0, 0, &cqe), 0);
	CU_ASSERT_EQUAL(TT_SC(ah_send(aq2, m, ah_negotiate(&h, m))),
			NVME_SC_INVALID_OPCODE | NVME_SC_DNR);
	tt_queue_destroy(aq2);
	teardown();
}

/* An allocation length too small for the message. */
static void test_short_allocation_length(void)
{
	struct ah_host h;

	/* 16 + 32 + 256 bytes needed: a Failure1 instead, before any key pair is made. */
	setup(NULL, "ffdhe2048", false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, NULL);
	ah_send(aq, m, ah_negotiate(&h, m));
	CU_ASSERT_EQUAL(ah_recv(aq, 16 + 32 + 255, m), 0);
	CU_ASSERT_EQUAL(m[1], NVMF_AUTH_ID_FAILURE1);
	CU_ASSERT_EQUAL(m[7], NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	CU_ASSERT_EQUAL(m[8], 0); /* zeroes to AL */
	CU_ASSERT_EQUAL(m[16 + 32 + 254], 0);
	CU_ASSERT_TRUE(ctrl_failed(aq));
	teardown();

	/* Not even a Failure1 fits. */
	setup(NULL, NULL, false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, NULL);
	ah_send(aq, m, ah_negotiate(&h, m));
	CU_ASSERT_EQUAL(TT_SC(ah_recv(aq, 7, m)), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_FAILED);
	teardown();
}

/* A transaction left unfinished fails the controller at the next tick past the deadline. */
static void test_deadline(void)
{
	struct ah_host h;
	uint64_t deadline, before, after;

	setup(NULL, NULL, false);
	/* Connect's time plus connect_timeout_ms, bracketed by reads of the same clock. */
	before = rblk_clock_ms();
	connect_admin(TT_HOSTNQN);
	after = rblk_clock_ms();
	deadline = aq->sq.auth.deadline_ms;
	CU_ASSERT(deadline >= before + env->tgt->opts.connect_timeout_ms);
	CU_ASSERT(deadline <= after + env->tgt->opts.connect_timeout_ms);
	/* The tick asks to be called again just past the deadline (no KATO here). */
	CU_ASSERT_EQUAL(rblk_sq_tick(&aq->sq, deadline), deadline + 1);
	CU_ASSERT_FALSE(aq->sq.ctrl->fatal);
	rblk_sq_tick(&aq->sq, deadline + 1);
	CU_ASSERT_TRUE(ctrl_failed(aq));
	CU_ASSERT_EQUAL(aq->sq.auth.state, RBLK_TGT_AUTH_FAILED);
	teardown();

	/* An authenticated queue has no deadline. */
	setup(NULL, NULL, false);
	connect_admin(TT_HOSTNQN);
	ah_init(&h, TT_HOSTNQN, TT_SUBNQN, key, NULL);
	CU_ASSERT_EQUAL_FATAL(ah_authenticate(&h, aq), 0);
	CU_ASSERT_EQUAL(rblk_sq_tick(&aq->sq, aq->sq.auth.deadline_ms + 1), UINT64_MAX);
	CU_ASSERT_FALSE(aq->sq.ctrl->fatal);
	teardown();
}

static void test_state_names(void)
{
	CU_ASSERT_STRING_EQUAL(rblk_tgt_auth_state_str(RBLK_TGT_AUTH_NEGOTIATE), "negotiate");
	CU_ASSERT_STRING_EQUAL(rblk_tgt_auth_state_str(RBLK_TGT_AUTH_SUCCESS2), "success2");
	CU_ASSERT_STRING_EQUAL(rblk_tgt_auth_state_str(RBLK_TGT_AUTH_FAILED), "failed");
	CU_ASSERT_STRING_EQUAL(rblk_tgt_auth_state_str((enum rblk_tgt_auth_state)99), "?");
}

static const struct ut_case cases[] = {
	UT_CASE(test_connect_asks_for_authentication),
	UT_CASE(test_commands_refused_before_authentication),
	UT_CASE(test_null_group_unidirectional),
	UT_CASE(test_null_group_bidirectional),
	UT_CASE(test_ffdhe2048_bidirectional),
	UT_CASE(test_ffdhe2048_unidirectional),
	UT_CASE(test_io_queue),
	UT_CASE(test_reauthentication),
	UT_CASE(test_wrong_response),
	UT_CASE(test_wrong_key),
	UT_CASE(test_bidirectional_without_ctrl_key),
	UT_CASE(test_host_rejects_controller),
	UT_CASE(test_unexpected_messages),
	UT_CASE(test_bad_payloads),
	UT_CASE(test_degenerate_dh_value),
	UT_CASE(test_negotiation_choices),
	UT_CASE(test_command_fields),
	UT_CASE(test_short_allocation_length),
	UT_CASE(test_deadline),
	UT_CASE(test_state_names),
	UT_END,
};

UT_MAIN("target/auth", cases)

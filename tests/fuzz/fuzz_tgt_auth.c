/* SPDX-License-Identifier: MIT */
/*
 * Drives the target's DH-HMAC-CHAP state machine (target/auth.c) on the
 * admin queue of a host that has a key: any sequence of Authentication Send
 * and Receive commands and other commands. The record's sel picks (bits 1:0):
 *   0  Authentication Send of the record's data (TL = its length)
 *   1  Authentication Receive, AL = the record's length
 *   2  the record's SQE and data, raw
 *   3  a well-formed Negotiate (t_id and the hash/group lists from the SQE)
 * Bit 2 of the first record's sel picks ffdhe2048 over the NULL group.
 * Checks, after every command: without the key nothing authenticates, so the
 * queue never opens and a Property Get fails with Authentication Required;
 * the state is one of the enum's; FAILED means the controller failed; a
 * successful Receive returns a Challenge, Success1 or Failure1 echoing the
 * transaction id, zero-filled to AL.
 */
#include "tgt_env.h"

#include "protocol/auth.h"

static void set_key(struct tgt_env *t, bool dh)
{
	char key[RBLK_AUTH_SECRET_STR_MAX], ckey[RBLK_AUTH_SECRET_STR_MAX];
	struct rblk_auth_secret s;
	struct rblk_host_auth a;
	uint8_t raw[32];

	memset(raw, 0x42, sizeof(raw));
	FUZZ_CHECK(rblk_auth_secret_generate(RBLK_AUTH_HASH_SHA256, 32, raw, &s) == 0);
	FUZZ_CHECK(rblk_auth_secret_format(&s, key, sizeof(key)) == 0);
	raw[0] = 0x43;
	FUZZ_CHECK(rblk_auth_secret_generate(RBLK_AUTH_HASH_NONE, 32, raw, &s) == 0);
	FUZZ_CHECK(rblk_auth_secret_format(&s, ckey, sizeof(ckey)) == 0);
	FUZZ_CHECK(rblk_subsystem_allow_host(t->ss, TT_HOSTNQN) == 0);
	rblk_host_auth_init(&a);
	a.key = key;
	a.ctrl_key = ckey;
	a.dhgroup = dh ? "ffdhe2048" : "null";
	FUZZ_CHECK(rblk_subsystem_set_host_auth(t->ss, TT_HOSTNQN, &a) == 0);
}

static void auth_sqe(struct nvme_sqe *sqe, bool send, uint32_t len)
{
	struct nvmf_auth_cmd *c = (struct nvmf_auth_cmd *)sqe;

	tt_fabrics_sqe(sqe, send ? NVMF_FCTYPE_AUTH_SEND : NVMF_FCTYPE_AUTH_RECV, 0x77);
	c->secp = NVMF_AUTH_SECP_NVME;
	c->spsp0 = NVMF_AUTH_SPSP0;
	c->spsp1 = NVMF_AUTH_SPSP1;
	c->tl_al = rblk_cpu_to_le32(len);
}

static size_t negotiate(uint8_t *m, const uint8_t *b)
{
	memset(m, 0, 72);
	m[1] = NVMF_AUTH_ID_NEGOTIATE;
	m[4] = b[0];
	m[5] = b[1];
	m[7] = 1;
	m[8] = NVMF_AUTH_DHCHAP_AUTHID;
	m[10] = b[2] % 4;
	m[11] = b[3] % 7;
	for (int i = 0; i < 3; i++)
		m[12 + i] = (uint8_t)(b[4 + i] % 4);
	for (int i = 0; i < 6; i++)
		m[42 + i] = (uint8_t)(b[8 + i] % 6);
	return 72;
}

static void check_received(struct tgt_env *t, const uint8_t *out, uint32_t al)
{
	const struct rblk_tgt_auth_q *a = &t->aq->sq.auth;
	size_t n;

	FUZZ_CHECK(rblk_get_le16(out + 4) == a->t_id);
	switch (out[1]) {
	case NVMF_AUTH_ID_CHALLENGE:
		FUZZ_CHECK(out[0] == NVMF_AUTH_TYPE_DHCHAP && a->state == RBLK_TGT_AUTH_REPLY);
		n = 16 + (size_t)out[6] + rblk_get_le16(out + 10);
		break;
	case NVMF_AUTH_ID_SUCCESS1:
		/* Unreachable without the key; if it ever happens, fail loudly. */
		FUZZ_CHECK(!"Success1 without the host key");
		return;
	case NVMF_AUTH_ID_FAILURE1:
		FUZZ_CHECK(out[0] == NVMF_AUTH_TYPE_COMMON && out[6] == NVMF_AUTH_RESCODE_FAILED);
		FUZZ_CHECK(out[7] >= NVMF_AUTH_FAIL_FAILED &&
			   out[7] <= NVMF_AUTH_FAIL_INCORRECT_PROTOCOL);
		FUZZ_CHECK(a->state == RBLK_TGT_AUTH_FAILED);
		n = 8;
		break;
	default:
		FUZZ_CHECK(!"an unknown message");
		return;
	}
	FUZZ_CHECK(n <= al);
	for (size_t i = n; i < al && i < TGT_MAX_DATA; i++)
		FUZZ_CHECK(out[i] == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[TGT_MAX_DATA], msg[72];
	struct nvme_sqe sqe;
	struct tgt_env t;
	struct tgt_rec r;

	if (!size)
		return 0;
	FUZZ_CHECK(tgt_env_setup(&t, TGT_NOTHING) == 0);
	set_key(&t, data[0] & 4);
	FUZZ_CHECK(tt_connect(t.aq, TT_SUBNQN, TT_HOSTNQN, 0, 31, 0xFFFF, 0, 0, NULL) == 0);
	for (unsigned n = 0; n < TGT_MAX_CMDS && tgt_next(&data, &size, &r); n++) {
		const struct rblk_tgt_auth_q *a = &t.aq->sq.auth;
		const uint8_t *b = (const uint8_t *)&r.sqe;
		uint64_t v;
		uint32_t al;
		uint16_t st;

		switch (r.sel & 3) {
		case 0:
			auth_sqe(&sqe, true, r.len);
			tgt_exec(t.aq, &sqe, r.data, r.len, out, sizeof(out), NULL);
			break;
		case 1:
			al = (uint32_t)(b[44] | b[45] << 8) % (TGT_MAX_DATA + 1);
			auth_sqe(&sqe, false, al);
			memset(out, 0xEE, sizeof(out));
			st = tgt_exec(t.aq, &sqe, NULL, al, out, sizeof(out), NULL);
			if (!st)
				check_received(&t, out, al);
			break;
		case 2:
			tgt_exec(t.aq, &r.sqe, r.data, r.len, out, sizeof(out), NULL);
			break;
		case 3:
			auth_sqe(&sqe, true, 72);
			negotiate(msg, b);
			tgt_exec(t.aq, &sqe, msg, 72, out, sizeof(out), NULL);
			break;
		}
		/* Fail closed: nothing but the key opens the queue. */
		FUZZ_CHECK(!a->authenticated && a->state <= RBLK_TGT_AUTH_FAILED);
		FUZZ_CHECK(a->state != RBLK_TGT_AUTH_DONE && a->state != RBLK_TGT_AUTH_SUCCESS2);
		FUZZ_CHECK(TT_SC(tt_prop_get(t.aq, NVME_REG_VS, false, &v)) ==
			   (NVME_SC_AUTH_REQUIRED | NVME_SC_DNR));
		if (a->state == RBLK_TGT_AUTH_FAILED) {
			/* Failed after the grace that lets the last completion out. */
			rblk_tgt_auth_tick(&t.aq->sq, UINT64_MAX);
			FUZZ_CHECK(t.aq->sq.ctrl->fatal);
		}
		if (a->state != RBLK_TGT_AUTH_CHALLENGE && a->state != RBLK_TGT_AUTH_REPLY)
			FUZZ_CHECK(a->dh == NULL);
	}
	tgt_env_teardown(&t);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	uint8_t reply[16 + 64], *b;
	struct nvme_sqe s, rcv;
	size_t off = 0;

	memset(&s, 0, sizeof(s));
	b = (uint8_t *)&s;
	b[0] = 1;    /* t_id 1 */
	b[2] = 3;    /* three hashes */
	b[3] = 6;    /* six groups */
	for (int i = 0; i < 3; i++)
		b[4 + i] = (uint8_t)(i + 1);
	for (int i = 0; i < 6; i++)
		b[8 + i] = (uint8_t)i;
	memset(&rcv, 0, sizeof(rcv));
	((uint8_t *)&rcv)[45] = 0x10; /* AL 4096 */
	memset(reply, 0, sizeof(reply));
	reply[0] = NVMF_AUTH_TYPE_DHCHAP;
	reply[1] = NVMF_AUTH_ID_REPLY;
	reply[4] = 1;
	reply[6] = 32;
	switch (idx) {
	case 0: /* Negotiate, read the Challenge, a (wrong) Reply, read the Failure1 */
	case 1: /* the same with ffdhe2048 (sel bit 2): the Reply's DHVLEN is then wrong */
		tgt_seed_rec(buf, max, &off, (uint8_t)(3 | (idx ? 4 : 0)), &s, NULL, 0);
		tgt_seed_rec(buf, max, &off, 1, &rcv, NULL, 0);
		tgt_seed_rec(buf, max, &off, 0, &s, reply, sizeof(reply));
		tgt_seed_rec(buf, max, &off, 1, &rcv, NULL, 0);
		return off;
	case 2: /* a Receive before anything, then a Negotiate after the failure */
		tgt_seed_rec(buf, max, &off, 1, &rcv, NULL, 0);
		tgt_seed_rec(buf, max, &off, 3, &s, NULL, 0);
		return off;
	default:
		return 0;
	}
}

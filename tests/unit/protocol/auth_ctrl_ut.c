/* SPDX-License-Identifier: MIT */
/*
 * Tests for protocol/auth_ctrl.c: the Authentication Send/Receive SQE, the
 * messages a controller parses (every length rule), its choice of hash and
 * DH group, and the bytes of the messages it builds.
 */
#include <errno.h>
#include <string.h>

#include "protocol/auth_ctrl.h"
#include "protocol/le.h"
#include "ut.h"

/* An AUTH_Negotiate as the Linux host sends it: SHA-256/384/512, NULL + FFDHE 2048..8192. */
static size_t negotiate(uint8_t *m, uint16_t t_id)
{
	static const uint8_t hashes[] = { 1, 2, 3 };
	static const uint8_t groups[] = { 0, 1, 2, 3, 4, 5 };

	memset(m, 0, 72);
	m[0] = NVMF_AUTH_TYPE_COMMON;
	m[1] = NVMF_AUTH_ID_NEGOTIATE;
	m[4] = (uint8_t)t_id;
	m[5] = (uint8_t)(t_id >> 8);
	m[7] = 1; /* napd */
	m[8] = NVMF_AUTH_DHCHAP_AUTHID;
	m[10] = sizeof(hashes);
	m[11] = sizeof(groups);
	memcpy(m + 12, hashes, sizeof(hashes));
	memcpy(m + 12 + 30, groups, sizeof(groups));
	return 72;
}

static void test_cmd_decode(void)
{
	struct nvmf_auth_cmd c;
	uint32_t len = 0;
	uint16_t loc = 0;

	memset(&c, 0, sizeof(c));
	c.opcode = 0x7f;
	c.fctype = NVMF_FCTYPE_AUTH_SEND;
	c.secp = 0xe9;
	c.spsp0 = 1;
	c.spsp1 = 1;
	c.tl_al = rblk_cpu_to_le32(72);
	CU_ASSERT_EQUAL(rblk_auth_cmd_decode(&c, &len, &loc), 0);
	CU_ASSERT_EQUAL(len, 72);

	c.secp = 0xea;
	CU_ASSERT_EQUAL(rblk_auth_cmd_decode(&c, &len, &loc), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(loc, 43);
	c.secp = 0xe9;
	c.spsp0 = 0;
	CU_ASSERT_EQUAL(rblk_auth_cmd_decode(&c, &len, &loc), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(loc, 41);
	c.spsp0 = 1;
	c.spsp1 = 2;
	CU_ASSERT_EQUAL(rblk_auth_cmd_decode(&c, &len, &loc), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(loc, 42);
	c.spsp1 = 1;
	c.tl_al = 0;
	CU_ASSERT_EQUAL(rblk_auth_cmd_decode(&c, &len, &loc), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	CU_ASSERT_EQUAL(loc, 44);
}

static void test_peek(void)
{
	uint8_t m[72];
	struct rblk_auth_msg_hdr h;

	negotiate(m, 0x1234);
	CU_ASSERT_EQUAL(rblk_auth_msg_peek(m, 6, &h), 0);
	CU_ASSERT_EQUAL(h.type, NVMF_AUTH_TYPE_COMMON);
	CU_ASSERT_EQUAL(h.id, NVMF_AUTH_ID_NEGOTIATE);
	CU_ASSERT_EQUAL(h.t_id, 0x1234);
	CU_ASSERT_EQUAL(rblk_auth_msg_peek(m, 5, &h), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
}

static void test_negotiate_linux(void)
{
	uint8_t m[72];
	struct rblk_auth_negotiate_info n;

	CU_ASSERT_EQUAL(rblk_auth_negotiate_parse(m, negotiate(m, 7), &n), 0);
	CU_ASSERT_EQUAL(n.t_id, 7);
	CU_ASSERT_EQUAL(n.sc_c, 0);
	CU_ASSERT_EQUAL(n.halen, 3);
	CU_ASSERT_EQUAL(n.dhlen, 6);
	CU_ASSERT_EQUAL(n.hash_ids[2], 3);
	CU_ASSERT_EQUAL(n.dh_ids[5], 5);
}

static void test_negotiate_lengths(void)
{
	uint8_t m[8 + 3 * 64];
	struct rblk_auth_negotiate_info n;

	negotiate(m, 9);
	/* Short, long, truncated header. */
	CU_ASSERT_EQUAL(rblk_auth_negotiate_parse(m, 71, &n), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	CU_ASSERT_EQUAL(n.t_id, 9); /* still echoed in the Failure1 */
	CU_ASSERT_EQUAL(rblk_auth_negotiate_parse(m, 73, &n), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	CU_ASSERT_EQUAL(rblk_auth_negotiate_parse(m, 7, &n), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	/* NAPD 0. */
	m[7] = 0;
	CU_ASSERT_EQUAL(rblk_auth_negotiate_parse(m, 8, &n), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	/* HALEN / DHLEN past their 30-id halves. */
	negotiate(m, 9);
	m[10] = 31;
	CU_ASSERT_EQUAL(rblk_auth_negotiate_parse(m, 72, &n), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	m[10] = 30;
	CU_ASSERT_EQUAL(rblk_auth_negotiate_parse(m, 72, &n), 0);
	m[11] = 31;
	CU_ASSERT_EQUAL(rblk_auth_negotiate_parse(m, 72, &n), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	/* Wrong type or id. */
	negotiate(m, 9);
	m[0] = NVMF_AUTH_TYPE_DHCHAP;
	CU_ASSERT_EQUAL(rblk_auth_negotiate_parse(m, 72, &n), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
}

static void test_negotiate_descriptors(void)
{
	uint8_t m[8 + 3 * 64];
	struct rblk_auth_negotiate_info n;

	negotiate(m, 1);
	/* No DH-HMAC-CHAP descriptor at all. */
	m[8] = 0x02;
	CU_ASSERT_EQUAL(rblk_auth_negotiate_parse(m, 72, &n), NVMF_AUTH_FAIL_NOT_USABLE);
	/* Three descriptors, DH-HMAC-CHAP second: that one is used. */
	memset(m + 72, 0, 128);
	memcpy(m + 72, m + 8, 64);
	m[8 + 64] = NVMF_AUTH_DHCHAP_AUTHID;
	m[8 + 64 + 2] = 1;
	m[8 + 64 + 4] = 2; /* SHA-384 only */
	m[7] = 3;
	CU_ASSERT_EQUAL(rblk_auth_negotiate_parse(m, sizeof(m), &n), 0);
	CU_ASSERT_EQUAL(n.halen, 1);
	CU_ASSERT_EQUAL(n.hash_ids[0], 2);
	CU_ASSERT_EQUAL(n.dhlen, 6);
}

static void test_select(void)
{
	uint8_t m[72], hash = 0xff, dh = 0xff;
	struct rblk_auth_negotiate_info n;
	const uint32_t ok = (1u << 1) | (1u << 2) | (1u << 3);

	rblk_auth_negotiate_parse(m, negotiate(m, 1), &n);
	/* The configured hash and group when offered. */
	CU_ASSERT_EQUAL(rblk_auth_select(&n, 3, ok, 1, &hash, &dh), 0);
	CU_ASSERT_EQUAL(hash, 3);
	CU_ASSERT_EQUAL(dh, 1);
	CU_ASSERT_EQUAL(rblk_auth_select(&n, 1, ok, 0, &hash, &dh), 0);
	CU_ASSERT_EQUAL(hash, 1);
	CU_ASSERT_EQUAL(dh, 0);

	/* The host offers 0x09, SHA-512, SHA-384 but not SHA-256: its first usable one. */
	m[12] = 0x09;
	m[13] = 3;
	m[14] = 2;
	CU_ASSERT_EQUAL(rblk_auth_select(&n, 1, ok, 0, &hash, &dh), 0);
	CU_ASSERT_EQUAL(hash, 3);
	/* Nothing usable. */
	m[13] = 0x20;
	m[14] = 0x00;
	CU_ASSERT_EQUAL(rblk_auth_select(&n, 1, ok, 0, &hash, &dh), NVMF_AUTH_FAIL_HASH_UNUSABLE);

	/* The configured group must be offered: never a weaker one. */
	rblk_auth_negotiate_parse(m, negotiate(m, 1), &n);
	n.dhlen = 1; /* NULL only */
	CU_ASSERT_EQUAL(rblk_auth_select(&n, 1, ok, 1, &hash, &dh), NVMF_AUTH_FAIL_DHGROUP_UNUSABLE);
	n.dhlen = 0;
	CU_ASSERT_EQUAL(rblk_auth_select(&n, 1, ok, 0, &hash, &dh), NVMF_AUTH_FAIL_DHGROUP_UNUSABLE);
	/* Secure channel concatenation is not on offer. */
	n.dhlen = 6;
	n.sc_c = 1;
	CU_ASSERT_EQUAL(rblk_auth_select(&n, 1, ok, 0, &hash, &dh), NVMF_AUTH_FAIL_CONCAT_MISMATCH);
}

/* A Reply: hl bytes of response 0xAA, hl of challenge 0xBB, dhvlen of DH value 0xCC. */
static size_t reply(uint8_t *m, uint8_t hl, uint16_t dhvlen, uint8_t cvalid, uint32_t seqnum)
{
	size_t len = 16 + 2 * (size_t)hl + dhvlen;

	memset(m, 0, 16);
	m[0] = NVMF_AUTH_TYPE_DHCHAP;
	m[1] = NVMF_AUTH_ID_REPLY;
	m[4] = 0x34;
	m[5] = 0x12;
	m[6] = hl;
	m[8] = cvalid;
	m[10] = (uint8_t)dhvlen;
	m[11] = (uint8_t)(dhvlen >> 8);
	m[12] = (uint8_t)seqnum;
	m[13] = (uint8_t)(seqnum >> 8);
	m[14] = (uint8_t)(seqnum >> 16);
	m[15] = (uint8_t)(seqnum >> 24);
	memset(m + 16, 0xAA, hl);
	memset(m + 16 + hl, 0xBB, hl);
	memset(m + 16 + 2 * hl, 0xCC, dhvlen);
	return len;
}

static void test_reply(void)
{
	static uint8_t m[16 + 128 + 1024];
	struct rblk_auth_reply_info r;
	size_t len;

	len = reply(m, 32, 0, 0, 0);
	CU_ASSERT_EQUAL(len, 80);
	CU_ASSERT_EQUAL(rblk_auth_reply_parse(m, len, 32, 0, &r), 0);
	CU_ASSERT_EQUAL(r.t_id, 0x1234);
	CU_ASSERT_EQUAL(r.hl, 32);
	CU_ASSERT_PTR_EQUAL(r.response, m + 16);
	CU_ASSERT_PTR_NULL(r.c2); /* CVALID 0: the zeros are no challenge */
	CU_ASSERT_PTR_NULL(r.dhv);
	CU_ASSERT_EQUAL(r.dhvlen, 0);

	len = reply(m, 64, 256, 1, 0xdeadbeef);
	CU_ASSERT_EQUAL(rblk_auth_reply_parse(m, len, 64, 256, &r), 0);
	CU_ASSERT_PTR_EQUAL(r.c2, m + 16 + 64);
	CU_ASSERT_EQUAL(r.seqnum, 0xdeadbeef);
	CU_ASSERT_PTR_EQUAL(r.dhv, m + 16 + 128);
	CU_ASSERT_EQUAL(r.dhvlen, 256);
	CU_ASSERT_EQUAL(r.dhv[255], 0xCC);
}

static void test_reply_rejects(void)
{
	static uint8_t m[16 + 128 + 1024 + 1];
	struct rblk_auth_reply_info r;
	size_t len;

	len = reply(m, 32, 256, 1, 5);
	/* Truncated and oversized. */
	CU_ASSERT_EQUAL(rblk_auth_reply_parse(m, len - 1, 32, 256, &r), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	CU_ASSERT_EQUAL(rblk_auth_reply_parse(m, len + 1, 32, 256, &r), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	CU_ASSERT_EQUAL(rblk_auth_reply_parse(m, 15, 32, 256, &r), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	/* HL of another hash; DHVLEN of another group, or a value with the NULL group. */
	CU_ASSERT_EQUAL(rblk_auth_reply_parse(m, len, 48, 256, &r), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	CU_ASSERT_EQUAL(rblk_auth_reply_parse(m, len, 32, 384, &r), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	CU_ASSERT_EQUAL(rblk_auth_reply_parse(m, len, 32, 0, &r), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	/* CVALID 2; CVALID 1 with S2 = 0. */
	m[8] = 2;
	CU_ASSERT_EQUAL(rblk_auth_reply_parse(m, len, 32, 256, &r), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	len = reply(m, 32, 256, 1, 0);
	CU_ASSERT_EQUAL(rblk_auth_reply_parse(m, len, 32, 256, &r), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	/* Another message. */
	len = reply(m, 32, 0, 0, 0);
	m[1] = NVMF_AUTH_ID_SUCCESS2;
	CU_ASSERT_EQUAL(rblk_auth_reply_parse(m, len, 32, 0, &r), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
}

static void test_success2_failure2(void)
{
	uint8_t m[17];
	uint16_t t_id = 0;
	uint8_t exp = 0;

	memset(m, 0, sizeof(m));
	m[0] = NVMF_AUTH_TYPE_DHCHAP;
	m[1] = NVMF_AUTH_ID_SUCCESS2;
	m[4] = 0x02;
	m[5] = 0x01;
	CU_ASSERT_EQUAL(rblk_auth_success2_parse(m, 16, &t_id), 0);
	CU_ASSERT_EQUAL(t_id, 0x0102);
	CU_ASSERT_EQUAL(rblk_auth_success2_parse(m, 15, &t_id), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	CU_ASSERT_EQUAL(rblk_auth_success2_parse(m, 17, &t_id), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);

	m[0] = NVMF_AUTH_TYPE_COMMON;
	m[1] = NVMF_AUTH_ID_FAILURE2;
	m[4] = 0x09;
	m[5] = 0;
	m[6] = NVMF_AUTH_RESCODE_FAILED;
	m[7] = NVMF_AUTH_FAIL_FAILED;
	CU_ASSERT_EQUAL(rblk_auth_failure2_parse(m, 8, &t_id, &exp), 0);
	CU_ASSERT_EQUAL(t_id, 9);
	CU_ASSERT_EQUAL(exp, NVMF_AUTH_FAIL_FAILED);
	CU_ASSERT_EQUAL(rblk_auth_failure2_parse(m, 7, &t_id, &exp), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	CU_ASSERT_EQUAL(rblk_auth_failure2_parse(m, 16, &t_id, &exp), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	m[1] = NVMF_AUTH_ID_FAILURE1; /* a host never sends Failure1 */
	CU_ASSERT_EQUAL(rblk_auth_failure2_parse(m, 8, &t_id, &exp), NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
}

static void test_build_challenge(void)
{
	uint8_t buf[16 + 48 + 256], cval[48], dhv[256];

	memset(cval, 0x5A, sizeof(cval));
	memset(dhv, 0xC3, sizeof(dhv));
	memset(buf, 0xEE, sizeof(buf));
	CU_ASSERT_EQUAL(rblk_auth_challenge_build(buf, sizeof(buf) - 1, 0x0102, 2, 48, 0x11223344,
						  cval, 1, dhv, 256), -ENOSPC);
	CU_ASSERT_EQUAL(buf[0], 0xEE);
	CU_ASSERT_EQUAL(rblk_auth_challenge_build(buf, sizeof(buf), 0x0102, 2, 48, 0x11223344,
						  cval, 1, dhv, 256), 16 + 48 + 256);
	CU_ASSERT_EQUAL(buf[0], NVMF_AUTH_TYPE_DHCHAP);
	CU_ASSERT_EQUAL(buf[1], NVMF_AUTH_ID_CHALLENGE);
	CU_ASSERT_EQUAL(buf[2] | buf[3], 0);
	CU_ASSERT_EQUAL(buf[4], 0x02);
	CU_ASSERT_EQUAL(buf[5], 0x01);
	CU_ASSERT_EQUAL(buf[6], 48);   /* hl */
	CU_ASSERT_EQUAL(buf[7], 0);
	CU_ASSERT_EQUAL(buf[8], 2);    /* hashid */
	CU_ASSERT_EQUAL(buf[9], 1);    /* dhgid */
	CU_ASSERT_EQUAL(buf[10], 0x00); /* dhvlen 256 LE */
	CU_ASSERT_EQUAL(buf[11], 0x01);
	CU_ASSERT_EQUAL(rblk_get_le32(buf + 12), 0x11223344);
	CU_ASSERT_EQUAL(buf[16], 0x5A);
	CU_ASSERT_EQUAL(buf[16 + 47], 0x5A);
	CU_ASSERT_EQUAL(buf[16 + 48], 0xC3);
	CU_ASSERT_EQUAL(buf[sizeof(buf) - 1], 0xC3);

	/* NULL group: no DH value. */
	CU_ASSERT_EQUAL(rblk_auth_challenge_build(buf, 48, 1, 1, 32, 1, cval, 0, NULL, 0), 48);
	CU_ASSERT_EQUAL(buf[9], 0);
	CU_ASSERT_EQUAL(buf[10] | buf[11], 0);
}

static void test_build_success1_failure1(void)
{
	uint8_t buf[16 + 64], rval[64];

	memset(rval, 0x77, sizeof(rval));
	memset(buf, 0xEE, sizeof(buf));
	/* Unidirectional: HL set anyway, RVALID 0, 16 bytes. */
	CU_ASSERT_EQUAL(rblk_auth_success1_build(buf, sizeof(buf), 5, 64, NULL), 16);
	CU_ASSERT_EQUAL(buf[0], NVMF_AUTH_TYPE_DHCHAP);
	CU_ASSERT_EQUAL(buf[1], NVMF_AUTH_ID_SUCCESS1);
	CU_ASSERT_EQUAL(buf[4], 5);
	CU_ASSERT_EQUAL(buf[6], 64);
	CU_ASSERT_EQUAL(buf[8], 0);
	CU_ASSERT_EQUAL(buf[16], 0xEE);
	/* Bidirectional. */
	CU_ASSERT_EQUAL(rblk_auth_success1_build(buf, 79, 5, 64, rval), -ENOSPC);
	CU_ASSERT_EQUAL(rblk_auth_success1_build(buf, sizeof(buf), 5, 64, rval), 80);
	CU_ASSERT_EQUAL(buf[8], NVMF_AUTH_RVALID);
	CU_ASSERT_EQUAL(buf[16], 0x77);
	CU_ASSERT_EQUAL(buf[79], 0x77);

	CU_ASSERT_EQUAL(rblk_auth_failure1_build(buf, 7, 3, NVMF_AUTH_FAIL_FAILED), -ENOSPC);
	CU_ASSERT_EQUAL(rblk_auth_failure1_build(buf, 8, 0x0203, NVMF_AUTH_FAIL_HASH_UNUSABLE), 8);
	CU_ASSERT_EQUAL(buf[0], NVMF_AUTH_TYPE_COMMON);
	CU_ASSERT_EQUAL(buf[1], NVMF_AUTH_ID_FAILURE1);
	CU_ASSERT_EQUAL(buf[4], 0x03);
	CU_ASSERT_EQUAL(buf[5], 0x02);
	CU_ASSERT_EQUAL(buf[6], NVMF_AUTH_RESCODE_FAILED);
	CU_ASSERT_EQUAL(buf[7], NVMF_AUTH_FAIL_HASH_UNUSABLE);
}

static void test_reason_names(void)
{
	CU_ASSERT_STRING_EQUAL(rblk_auth_failure_str(NVMF_AUTH_FAIL_FAILED), "authentication failed");
	CU_ASSERT_STRING_EQUAL(rblk_auth_failure_str(NVMF_AUTH_FAIL_INCORRECT_PROTOCOL),
			       "incorrect protocol message");
	CU_ASSERT_STRING_EQUAL(rblk_auth_failure_str(0x42), "unknown reason");
}

static const struct ut_case cases[] = {
	UT_CASE(test_cmd_decode),
	UT_CASE(test_peek),
	UT_CASE(test_negotiate_linux),
	UT_CASE(test_negotiate_lengths),
	UT_CASE(test_negotiate_descriptors),
	UT_CASE(test_select),
	UT_CASE(test_reply),
	UT_CASE(test_reply_rejects),
	UT_CASE(test_success2_failure2),
	UT_CASE(test_build_challenge),
	UT_CASE(test_build_success1_failure1),
	UT_CASE(test_reason_names),
	UT_END,
};

UT_MAIN("protocol/auth_ctrl", cases)

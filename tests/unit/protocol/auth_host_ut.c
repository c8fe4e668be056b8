/* SPDX-License-Identifier: MIT */
/* Tests for protocol/auth_host.c: every byte the host sends, every check on what it receives. */
#include <errno.h>
#include <string.h>

#include "protocol/auth_host.h"
#include "protocol/le.h"
#include "ut.h"

#define TID 0x1234

/* A challenge of @hl challenge bytes and @dhvlen DH bytes in @buf; returns its length. */
static size_t challenge(uint8_t *buf, uint16_t tid, uint8_t hashid, uint8_t hl, uint8_t dhgid,
			uint16_t dhvlen)
{
	struct nvmf_auth_challenge *m = (void *)buf;

	memset(buf, 0, RBLK_AUTH_RECV_LEN);
	m->auth_type = NVMF_AUTH_TYPE_DHCHAP;
	m->auth_id = NVMF_AUTH_ID_CHALLENGE;
	m->t_id = rblk_cpu_to_le16(tid);
	m->hl = hl;
	m->hashid = hashid;
	m->dhgid = dhgid;
	m->dhvlen = rblk_cpu_to_le16(dhvlen);
	m->seqnum = rblk_cpu_to_le32(0xA1B2C3D4);
	for (unsigned i = 0; i < (unsigned)hl + dhvlen; i++)
		m->cval[i] = (uint8_t)(i + 1);
	return sizeof(*m) + hl + dhvlen;
}

static void test_negotiate(void)
{
	uint8_t b[80];
	struct nvmf_auth_negotiate *m = (void *)b;
	const uint8_t groups[] = { 0, 1, 2, 3, 4, 5 };

	memset(b, 0xEE, sizeof(b));
	CU_ASSERT_EQUAL(rblk_auth_negotiate_build(TID, b, 71), -ENOSPC);
	CU_ASSERT_EQUAL(rblk_auth_negotiate_build(TID, b, sizeof(b)), 72);
	CU_ASSERT_EQUAL(b[0], 0x00);	/* common messages */
	CU_ASSERT_EQUAL(b[1], 0x00);	/* negotiate */
	CU_ASSERT_EQUAL(b[4], 0x34);	/* t_id, little-endian */
	CU_ASSERT_EQUAL(b[5], 0x12);
	CU_ASSERT_EQUAL(m->sc_c, 0);
	CU_ASSERT_EQUAL(m->napd, 1);
	CU_ASSERT_EQUAL(b[8], 0x01);	/* authid DH-HMAC-CHAP */
	CU_ASSERT_EQUAL(b[10], 3);	/* halen */
	CU_ASSERT_EQUAL(b[11], 6);	/* dhlen */
	CU_ASSERT_EQUAL(b[12], 1);	/* sha256, sha384, sha512 */
	CU_ASSERT_EQUAL(b[13], 2);
	CU_ASSERT_EQUAL(b[14], 3);
	CU_ASSERT_EQUAL(b[15], 0);
	CU_ASSERT_EQUAL(memcmp(b + 12 + 30, groups, sizeof(groups)), 0);
	CU_ASSERT_EQUAL(b[12 + 36], 0);
	CU_ASSERT_EQUAL(b[72], 0xEE);	/* nothing past the message */
}

static void test_challenge_null(void)
{
	uint8_t b[RBLK_AUTH_RECV_LEN];
	struct rblk_auth_challenge_info ch;
	uint8_t exp = 0xFF;
	size_t n = challenge(b, TID, RBLK_AUTH_HASH_SHA384, 48, RBLK_AUTH_DHGROUP_NULL, 0);

	CU_ASSERT_EQUAL(rblk_auth_challenge_parse(b, n, TID, &ch, &exp), 0);
	CU_ASSERT_EQUAL(ch.hash, RBLK_AUTH_HASH_SHA384);
	CU_ASSERT_EQUAL(ch.dhgroup, RBLK_AUTH_DHGROUP_NULL);
	CU_ASSERT_EQUAL(ch.hl, 48);
	CU_ASSERT_EQUAL(ch.seqnum, 0xA1B2C3D4);
	CU_ASSERT_PTR_EQUAL(ch.c1, b + 16);
	CU_ASSERT_EQUAL(ch.c1[47], 48);
	CU_ASSERT_PTR_NULL(ch.dhv);
	CU_ASSERT_EQUAL(ch.dhvlen, 0);
	CU_ASSERT_EQUAL(exp, 0xFF);
}

static void test_challenge_dh(void)
{
	uint8_t b[RBLK_AUTH_RECV_LEN];
	struct rblk_auth_challenge_info ch;
	uint8_t exp;
	size_t n = challenge(b, TID, RBLK_AUTH_HASH_SHA512, 64, RBLK_AUTH_DHGROUP_8192, 1024);

	CU_ASSERT_EQUAL(n, 16 + 64 + 1024);
	CU_ASSERT_EQUAL(rblk_auth_challenge_parse(b, n, TID, &ch, &exp), 0);
	CU_ASSERT_EQUAL(ch.dhgroup, RBLK_AUTH_DHGROUP_8192);
	CU_ASSERT_PTR_EQUAL(ch.dhv, b + 16 + 64);
	CU_ASSERT_EQUAL(ch.dhvlen, 1024);
	/* One byte short of the DH value: lengths beyond the buffer. */
	CU_ASSERT_EQUAL(rblk_auth_challenge_parse(b, n - 1, TID, &ch, &exp), -EPROTO);
	CU_ASSERT_EQUAL(exp, NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	CU_ASSERT_PTR_NULL(ch.c1);
}

static void expect_fail2(uint8_t *b, size_t n, uint8_t want)
{
	struct rblk_auth_challenge_info ch;
	uint8_t exp = 0;

	CU_ASSERT_EQUAL(rblk_auth_challenge_parse(b, n, TID, &ch, &exp), -EPROTO);
	CU_ASSERT_EQUAL(exp, want);
}

static void test_challenge_bad(void)
{
	uint8_t b[RBLK_AUTH_RECV_LEN];
	size_t n;

	/* Unknown hash, hash 0, hl not the hash's length. */
	n = challenge(b, TID, 0x04, 32, 0, 0);
	expect_fail2(b, n, NVMF_AUTH_FAIL_HASH_UNUSABLE);
	n = challenge(b, TID, 0x00, 32, 0, 0);
	expect_fail2(b, n, NVMF_AUTH_FAIL_HASH_UNUSABLE);
	n = challenge(b, TID, RBLK_AUTH_HASH_SHA256, 48, 0, 0);
	expect_fail2(b, n, NVMF_AUTH_FAIL_HASH_UNUSABLE);
	/* Unknown group; a group without a value; a value of the wrong size; a value with null. */
	n = challenge(b, TID, RBLK_AUTH_HASH_SHA256, 32, 0x06, 256);
	expect_fail2(b, n, NVMF_AUTH_FAIL_DHGROUP_UNUSABLE);
	n = challenge(b, TID, RBLK_AUTH_HASH_SHA256, 32, RBLK_AUTH_DHGROUP_2048, 0);
	expect_fail2(b, n, NVMF_AUTH_FAIL_DHGROUP_UNUSABLE);
	n = challenge(b, TID, RBLK_AUTH_HASH_SHA256, 32, RBLK_AUTH_DHGROUP_2048, 255);
	expect_fail2(b, n, NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	n = challenge(b, TID, RBLK_AUTH_HASH_SHA256, 32, RBLK_AUTH_DHGROUP_NULL, 8);
	expect_fail2(b, n, NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	/* Another transaction, another message, truncated headers. */
	n = challenge(b, TID + 1, RBLK_AUTH_HASH_SHA256, 32, 0, 0);
	expect_fail2(b, n, NVMF_AUTH_FAIL_INCORRECT_PROTOCOL);
	n = challenge(b, TID, RBLK_AUTH_HASH_SHA256, 32, 0, 0);
	b[1] = NVMF_AUTH_ID_SUCCESS1;
	expect_fail2(b, n, NVMF_AUTH_FAIL_INCORRECT_PROTOCOL);
	b[1] = NVMF_AUTH_ID_CHALLENGE;
	b[0] = NVMF_AUTH_TYPE_COMMON;
	expect_fail2(b, n, NVMF_AUTH_FAIL_INCORRECT_PROTOCOL);
	b[0] = NVMF_AUTH_TYPE_DHCHAP;
	expect_fail2(b, 15, NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	expect_fail2(b, 7, NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	expect_fail2(b, 16 + 31, NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
}

static void test_failure1(void)
{
	uint8_t b[8] = { 0x00, 0xF1, 0, 0, 0x99, 0x99, 0x01, NVMF_AUTH_FAIL_FAILED };
	struct rblk_auth_challenge_info ch;
	const uint8_t *rval = (const uint8_t *)1;
	uint8_t exp = 0;

	/* Failure1 ends the transaction whatever its t_id (Linux does not check it either). */
	CU_ASSERT_EQUAL(rblk_auth_challenge_parse(b, sizeof(b), TID, &ch, &exp), -EACCES);
	CU_ASSERT_EQUAL(exp, NVMF_AUTH_FAIL_FAILED);
	b[7] = NVMF_AUTH_FAIL_HASH_UNUSABLE;
	CU_ASSERT_EQUAL(rblk_auth_success1_parse(b, sizeof(b), TID, 32, &rval, &exp), -EACCES);
	CU_ASSERT_EQUAL(exp, NVMF_AUTH_FAIL_HASH_UNUSABLE);
	CU_ASSERT_PTR_NULL(rval);
	CU_ASSERT_STRING_EQUAL(rblk_auth_failure_str(NVMF_AUTH_FAIL_FAILED), "authentication failed");
	CU_ASSERT_STRING_EQUAL(rblk_auth_failure_str(NVMF_AUTH_FAIL_DHGROUP_UNUSABLE),
			       "DH group not usable");
	CU_ASSERT_STRING_EQUAL(rblk_auth_failure_str(0x42), "unknown reason");
}

static void test_reply(void)
{
	uint8_t b[RBLK_AUTH_SEND_MAX], resp[32], c2[32], dhv[256];
	struct rblk_auth_reply_info r = { .t_id = TID, .hl = 32, .response = resp };
	struct nvmf_auth_reply *m = (void *)b;

	memset(resp, 0xAA, sizeof(resp));
	memset(c2, 0xBB, sizeof(c2));
	memset(dhv, 0xCC, sizeof(dhv));
	CU_ASSERT_EQUAL(RBLK_AUTH_SEND_MAX, 16 + 128 + 1024);
	/* Unidirectional, null group: the challenge slot is there, zeroed, cvalid and seqnum 0. */
	memset(b, 0xEE, sizeof(b));
	CU_ASSERT_EQUAL(rblk_auth_reply_build(&r, b, sizeof(b)), 16 + 64);
	CU_ASSERT_EQUAL(b[0], 0x01);
	CU_ASSERT_EQUAL(b[1], 0x02);
	CU_ASSERT_EQUAL(rblk_get_le16(b + 4), TID);
	CU_ASSERT_EQUAL(m->hl, 32);
	CU_ASSERT_EQUAL(m->cvalid, 0);
	CU_ASSERT_EQUAL(rblk_get_le16(b + 10), 0);
	CU_ASSERT_EQUAL(rblk_get_le32(b + 12), 0);
	CU_ASSERT_EQUAL(b[16], 0xAA);
	CU_ASSERT_EQUAL(b[47], 0xAA);
	CU_ASSERT_EQUAL(b[48], 0);
	CU_ASSERT_EQUAL(b[79], 0);
	CU_ASSERT_EQUAL(b[80], 0xEE);
	/* Bidirectional with ffdhe2048. */
	r.c2 = c2;
	r.seqnum = 0x01020304;
	r.dhv = dhv;
	r.dhvlen = 256;
	CU_ASSERT_EQUAL(rblk_auth_reply_build(&r, b, sizeof(b)), 16 + 64 + 256);
	CU_ASSERT_EQUAL(m->cvalid, 1);
	CU_ASSERT_EQUAL(rblk_get_le16(b + 10), 256);
	CU_ASSERT_EQUAL(b[12], 0x04);	/* seqnum little-endian */
	CU_ASSERT_EQUAL(b[15], 0x01);
	CU_ASSERT_EQUAL(b[48], 0xBB);
	CU_ASSERT_EQUAL(b[79], 0xBB);
	CU_ASSERT_EQUAL(b[80], 0xCC);
	CU_ASSERT_EQUAL(b[335], 0xCC);
	CU_ASSERT_EQUAL(rblk_auth_reply_build(&r, b, 335), -ENOSPC);
	/* Nonsense in: refused. */
	r.seqnum = 0;
	CU_ASSERT_EQUAL(rblk_auth_reply_build(&r, b, sizeof(b)), -EINVAL);
	r.seqnum = 1;
	r.hl = 20;
	CU_ASSERT_EQUAL(rblk_auth_reply_build(&r, b, sizeof(b)), -EINVAL);
	r.hl = 32;
	r.dhv = NULL;
	CU_ASSERT_EQUAL(rblk_auth_reply_build(&r, b, sizeof(b)), -EINVAL);
}

static void test_success1(void)
{
	uint8_t b[RBLK_AUTH_RECV_LEN] = { 0x01, 0x03, 0, 0, 0x34, 0x12, 48 };
	const uint8_t *rval;
	uint8_t exp = 0;

	CU_ASSERT_EQUAL(rblk_auth_success1_parse(b, 16, TID, 48, &rval, &exp), 0);
	CU_ASSERT_PTR_NULL(rval);
	b[8] = NVMF_AUTH_RVALID;
	CU_ASSERT_EQUAL(rblk_auth_success1_parse(b, 16 + 48, TID, 48, &rval, &exp), 0);
	CU_ASSERT_PTR_EQUAL(rval, b + 16);
	/* rvalid with no room for the response */
	CU_ASSERT_EQUAL(rblk_auth_success1_parse(b, 16 + 47, TID, 48, &rval, &exp), -EPROTO);
	CU_ASSERT_EQUAL(exp, NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
	CU_ASSERT_PTR_NULL(rval);
	/* hl other than the challenge's */
	CU_ASSERT_EQUAL(rblk_auth_success1_parse(b, sizeof(b), TID, 32, &rval, &exp), -EPROTO);
	CU_ASSERT_EQUAL(exp, NVMF_AUTH_FAIL_HASH_UNUSABLE);
	/* another transaction, a challenge again */
	CU_ASSERT_EQUAL(rblk_auth_success1_parse(b, sizeof(b), TID + 1, 48, &rval, &exp), -EPROTO);
	CU_ASSERT_EQUAL(exp, NVMF_AUTH_FAIL_INCORRECT_PROTOCOL);
	b[1] = NVMF_AUTH_ID_CHALLENGE;
	CU_ASSERT_EQUAL(rblk_auth_success1_parse(b, sizeof(b), TID, 48, &rval, &exp), -EPROTO);
	CU_ASSERT_EQUAL(exp, NVMF_AUTH_FAIL_INCORRECT_PROTOCOL);
}

static void test_success2_failure2(void)
{
	uint8_t b[16], want2[16] = { 0x01, 0x04, 0, 0, 0x34, 0x12 };
	uint8_t wantf[8] = { 0x00, 0xF0, 0, 0, 0x34, 0x12, 0x01, 0x05 };

	memset(b, 0xEE, sizeof(b));
	CU_ASSERT_EQUAL(rblk_auth_success2_build(TID, b, 15), -ENOSPC);
	CU_ASSERT_EQUAL(rblk_auth_success2_build(TID, b, sizeof(b)), 16);
	CU_ASSERT_EQUAL(memcmp(b, want2, 16), 0);
	memset(b, 0xEE, sizeof(b));
	CU_ASSERT_EQUAL(rblk_auth_failure2_build(TID, NVMF_AUTH_FAIL_DHGROUP_UNUSABLE, b, 7), -ENOSPC);
	CU_ASSERT_EQUAL(rblk_auth_failure2_build(TID, NVMF_AUTH_FAIL_DHGROUP_UNUSABLE, b, 16), 8);
	CU_ASSERT_EQUAL(memcmp(b, wantf, 8), 0);
	CU_ASSERT_EQUAL(b[8], 0xEE);
}

static const struct ut_case cases[] = {
	UT_CASE(test_negotiate),
	UT_CASE(test_challenge_null),
	UT_CASE(test_challenge_dh),
	UT_CASE(test_challenge_bad),
	UT_CASE(test_failure1),
	UT_CASE(test_reply),
	UT_CASE(test_success1),
	UT_CASE(test_success2_failure2),
	UT_END,
};

UT_MAIN("protocol/auth_host", cases)

/* SPDX-License-Identifier: MIT */
/*
 * Tests for auth/chap.c: host and controller responses and the augmented
 * challenge against vectors.h, the constant-time compare, the random source.
 */
#include <errno.h>
#include <string.h>

#include "auth/auth.h"
#include "ut.h"
#include "vec_util.h"
#include "vectors.h"

static unsigned checked_responses, checked_augmented;

struct resp_in {
	uint8_t key[RBLK_AUTH_MAX_HASH_LEN], chal[RBLK_AUTH_MAX_HASH_LEN];
	uint8_t host[RBLK_AUTH_MAX_HASH_LEN], ctrl[RBLK_AUTH_MAX_HASH_LEN];
	size_t key_len, hlen;
};

static void load(const struct vec_response *v, struct resp_in *in)
{
	in->key_len = vec_hex(v->key, in->key, sizeof(in->key));
	in->hlen = vec_hex(v->chal, in->chal, sizeof(in->chal));
	vec_hex(v->host, in->host, sizeof(in->host));
	vec_hex(v->ctrl, in->ctrl, sizeof(in->ctrl));
}

static void test_response_vectors(void)
{
	for (size_t i = 0; i < VEC_ARRAY_SIZE(vec_responses); i++) {
		const struct vec_response *v = &vec_responses[i];
		uint8_t out[RBLK_AUTH_MAX_HASH_LEN];
		struct resp_in in;

		load(v, &in);
		CU_ASSERT_EQUAL_FATAL(in.hlen, rblk_auth_hash_len(v->hash));
		memset(out, 0xa5, sizeof(out));
		CU_ASSERT_EQUAL(rblk_auth_host_response(v->hash, in.key, in.key_len, in.chal,
							v->seqnum, v->t_id, v->sc_c, VEC_HOSTNQN,
							VEC_SUBNQN, out), 0);
		CU_ASSERT_EQUAL(memcmp(out, in.host, in.hlen), 0);
		/* exactly hash_len bytes written */
		if (in.hlen < sizeof(out))
			CU_ASSERT_EQUAL(out[in.hlen], 0xa5);
		CU_ASSERT_EQUAL(rblk_auth_ctrl_response(v->hash, in.key, in.key_len, in.chal,
							v->seqnum, v->t_id, v->sc_c, VEC_HOSTNQN,
							VEC_SUBNQN, out), 0);
		CU_ASSERT_EQUAL(memcmp(out, in.ctrl, in.hlen), 0);
		checked_responses++;
	}
}

/* Every input takes part: changing any one of them changes the response. */
static void test_response_inputs_matter(void)
{
	const struct vec_response *v = &vec_responses[0];
	uint8_t out[RBLK_AUTH_MAX_HASH_LEN];
	struct resp_in in;

	load(v, &in);
	CU_ASSERT_EQUAL(rblk_auth_host_response(v->hash, in.key, in.key_len, in.chal, v->seqnum + 1,
						v->t_id, v->sc_c, VEC_HOSTNQN, VEC_SUBNQN, out), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(out, in.host, in.hlen), 0);
	CU_ASSERT_EQUAL(rblk_auth_host_response(v->hash, in.key, in.key_len, in.chal, v->seqnum,
						v->t_id ^ 1, v->sc_c, VEC_HOSTNQN, VEC_SUBNQN, out), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(out, in.host, in.hlen), 0);
	CU_ASSERT_EQUAL(rblk_auth_host_response(v->hash, in.key, in.key_len, in.chal, v->seqnum,
						v->t_id, 1, VEC_HOSTNQN, VEC_SUBNQN, out), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(out, in.host, in.hlen), 0);
	/* the NQNs swapped: the host response is not the controller's */
	CU_ASSERT_EQUAL(rblk_auth_host_response(v->hash, in.key, in.key_len, in.chal, v->seqnum,
						v->t_id, v->sc_c, VEC_SUBNQN, VEC_HOSTNQN, out), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(out, in.host, in.hlen), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(out, in.ctrl, in.hlen), 0);
	in.chal[in.hlen - 1] ^= 0x80;
	CU_ASSERT_EQUAL(rblk_auth_host_response(v->hash, in.key, in.key_len, in.chal, v->seqnum,
						v->t_id, v->sc_c, VEC_HOSTNQN, VEC_SUBNQN, out), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(out, in.host, in.hlen), 0);
}

static void test_response_errors(void)
{
	const struct vec_response *v = &vec_responses[0];
	uint8_t out[RBLK_AUTH_MAX_HASH_LEN];
	struct resp_in in;

	load(v, &in);
	CU_ASSERT_EQUAL(rblk_auth_host_response(RBLK_AUTH_HASH_NONE, in.key, in.key_len, in.chal,
						1, 1, 0, VEC_HOSTNQN, VEC_SUBNQN, out), -EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_ctrl_response((enum rblk_auth_hash)4, in.key, in.key_len, in.chal,
						1, 1, 0, VEC_HOSTNQN, VEC_SUBNQN, out), -EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_host_response(v->hash, in.key, 0, in.chal, 1, 1, 0, VEC_HOSTNQN,
						VEC_SUBNQN, out), -EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_host_response(v->hash, in.key, in.key_len, NULL, 1, 1, 0,
						VEC_HOSTNQN, VEC_SUBNQN, out), -EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_ctrl_response(v->hash, in.key, in.key_len, in.chal, 1, 1, 0,
						NULL, VEC_SUBNQN, out), -EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_ctrl_response(v->hash, in.key, in.key_len, in.chal, 1, 1, 0,
						VEC_HOSTNQN, VEC_SUBNQN, NULL), -EINVAL);
}

static void test_augmented_vectors(void)
{
	static uint8_t shared[RBLK_AUTH_MAX_DH_LEN];
	size_t slen = vec_hex(vec_dh[0].shared, shared, sizeof(shared));

	/* the vectors use the padded ffdhe2048 secret, which starts with 00 */
	CU_ASSERT_EQUAL_FATAL(slen, 256);
	CU_ASSERT_EQUAL(shared[0], 0);
	for (size_t i = 0; i < VEC_ARRAY_SIZE(vec_augmented); i++) {
		const struct vec_augmented *v = &vec_augmented[i];
		uint8_t chal[RBLK_AUTH_MAX_HASH_LEN], want[RBLK_AUTH_MAX_HASH_LEN];
		uint8_t out[RBLK_AUTH_MAX_HASH_LEN];
		size_t hlen = vec_hex(v->chal, chal, sizeof(chal));

		vec_hex(v->out, want, sizeof(want));
		CU_ASSERT_EQUAL(rblk_auth_augmented_challenge(v->hash, shared, slen, chal, out), 0);
		CU_ASSERT_EQUAL(memcmp(out, want, hlen), 0);
		/* without its leading zero byte the secret gives another challenge */
		CU_ASSERT_EQUAL(rblk_auth_augmented_challenge(v->hash, shared + 1, slen - 1, chal,
							      out), 0);
		CU_ASSERT_NOT_EQUAL(memcmp(out, want, hlen), 0);
		checked_augmented++;
	}
	CU_ASSERT_EQUAL(rblk_auth_augmented_challenge(RBLK_AUTH_HASH_NONE, shared, slen, shared,
						      shared), -EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_augmented_challenge(RBLK_AUTH_HASH_SHA256, shared, 0, shared,
						      shared), -EINVAL);
}

static void test_response_equal(void)
{
	uint8_t a[64], b[64];

	memset(a, 0x3c, sizeof(a));
	memcpy(b, a, sizeof(b));
	CU_ASSERT_TRUE(rblk_auth_response_equal(a, b, sizeof(a)));
	b[63] ^= 1;
	CU_ASSERT_FALSE(rblk_auth_response_equal(a, b, sizeof(a)));
	CU_ASSERT_TRUE(rblk_auth_response_equal(a, b, 63));
	b[0] ^= 0x80;
	CU_ASSERT_FALSE(rblk_auth_response_equal(a, b, 32));
}

static void test_random(void)
{
	uint8_t a[64] = { 0 }, b[64] = { 0 }, zero[64] = { 0 };

	CU_ASSERT_EQUAL(rblk_auth_random(a, sizeof(a)), 0);
	CU_ASSERT_EQUAL(rblk_auth_random(b, sizeof(b)), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(a, b, sizeof(a)), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(a, zero, sizeof(a)), 0);
	CU_ASSERT_EQUAL(rblk_auth_random(a, 0), 0);
	CU_ASSERT_EQUAL(rblk_auth_random(NULL, 1), -EINVAL);
}

static void test_no_vector_skipped(void)
{
	CU_ASSERT_EQUAL(checked_responses, VEC_N_RESPONSES);
	CU_ASSERT_EQUAL(checked_augmented, VEC_N_AUGMENTED);
}

static const struct ut_case cases[] = {
	UT_CASE(test_response_vectors),
	UT_CASE(test_response_inputs_matter),
	UT_CASE(test_response_errors),
	UT_CASE(test_augmented_vectors),
	UT_CASE(test_response_equal),
	UT_CASE(test_random),
	UT_CASE(test_no_vector_skipped),
	UT_END,
};

UT_MAIN("auth_chap", cases)

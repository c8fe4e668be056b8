/* SPDX-License-Identifier: MIT */
/*
 * Tests for auth/dh.c. Known answers: a key pair made from a fixed exponent
 * (the test-only constructor) must export the public value Python's pow()
 * computed, and derive Python's shared secret from the other side's public
 * value; for ffdhe2048 both start with a zero byte, so the left padding is
 * checked. Fresh random pairs must agree with each other, and degenerate
 * peer values are refused.
 */
#include <errno.h>
#include <string.h>

#include "auth/auth_int.h"
#include "ut.h"
#include "vec_util.h"
#include "vectors.h"

static unsigned checked_dh;
static uint8_t p[RBLK_AUTH_MAX_DH_LEN], pub_a[RBLK_AUTH_MAX_DH_LEN], pub_b[RBLK_AUTH_MAX_DH_LEN];
static uint8_t shared[RBLK_AUTH_MAX_DH_LEN], out[RBLK_AUTH_MAX_DH_LEN], out2[RBLK_AUTH_MAX_DH_LEN];

static void test_known_answers(void)
{
	for (size_t i = 0; i < VEC_ARRAY_SIZE(vec_dh); i++) {
		const struct vec_dh *v = &vec_dh[i];
		struct rblk_auth_dh *a = NULL, *b = NULL;
		uint8_t xa[32], xb[32];
		size_t len = v->len;

		CU_ASSERT_EQUAL_FATAL(rblk_auth_dhgroup_len(v->group), len);
		CU_ASSERT_EQUAL(vec_hex(v->pub_a, pub_a, sizeof(pub_a)), len);
		CU_ASSERT_EQUAL(vec_hex(v->pub_b, pub_b, sizeof(pub_b)), len);
		CU_ASSERT_EQUAL(vec_hex(v->shared, shared, sizeof(shared)), len);
		vec_hex(v->a, xa, sizeof(xa));
		vec_hex(v->b, xb, sizeof(xb));

		CU_ASSERT_EQUAL_FATAL(rblk_auth_dh_create_from_priv(v->group, xa, sizeof(xa), &a), 0);
		CU_ASSERT_EQUAL_FATAL(rblk_auth_dh_create_from_priv(v->group, xb, sizeof(xb), &b), 0);
		CU_ASSERT_EQUAL(rblk_auth_dh_public(a, out, len), 0);
		CU_ASSERT_EQUAL(memcmp(out, pub_a, len), 0);
		CU_ASSERT_EQUAL(rblk_auth_dh_public(b, out, len), 0);
		CU_ASSERT_EQUAL(memcmp(out, pub_b, len), 0);
		memset(out, 0xa5, sizeof(out));
		CU_ASSERT_EQUAL(rblk_auth_dh_derive(a, pub_b, len, out, len), 0);
		CU_ASSERT_EQUAL(memcmp(out, shared, len), 0);
		CU_ASSERT_EQUAL(rblk_auth_dh_derive(b, pub_a, len, out, len), 0);
		CU_ASSERT_EQUAL(memcmp(out, shared, len), 0);
		if (v->group == RBLK_AUTH_DHGROUP_2048) {
			/* the generator chose exponents so that both need their padding */
			CU_ASSERT_EQUAL(pub_a[0], 0);
			CU_ASSERT_EQUAL(shared[0], 0);
		}
		rblk_auth_dh_destroy(a);
		rblk_auth_dh_destroy(b);
		checked_dh++;
	}
}

static void test_random_pairs_agree(void)
{
	for (unsigned g = RBLK_AUTH_DHGROUP_2048; g <= RBLK_AUTH_DHGROUP_8192; g++) {
		size_t len = rblk_auth_dhgroup_len(g);
		struct rblk_auth_dh *a = NULL, *b = NULL;

		CU_ASSERT_EQUAL_FATAL(rblk_auth_dh_create(g, &a), 0);
		CU_ASSERT_EQUAL_FATAL(rblk_auth_dh_create(g, &b), 0);
		CU_ASSERT_EQUAL(rblk_auth_dh_public(a, pub_a, len), 0);
		CU_ASSERT_EQUAL(rblk_auth_dh_public(b, pub_b, len), 0);
		CU_ASSERT_NOT_EQUAL(memcmp(pub_a, pub_b, len), 0);
		CU_ASSERT_EQUAL(rblk_auth_dh_derive(a, pub_b, len, out, len), 0);
		CU_ASSERT_EQUAL(rblk_auth_dh_derive(b, pub_a, len, out2, len), 0);
		CU_ASSERT_EQUAL(memcmp(out, out2, len), 0);
		/* the secret is neither side's public value */
		CU_ASSERT_NOT_EQUAL(memcmp(out, pub_a, len), 0);
		CU_ASSERT_NOT_EQUAL(memcmp(out, pub_b, len), 0);
		rblk_auth_dh_destroy(a);
		rblk_auth_dh_destroy(b);
	}
}

/* A random key pair against the Python peer: derive twice, same answer. */
static void test_derive_is_repeatable(void)
{
	const struct vec_dh *v = &vec_dh[0];
	struct rblk_auth_dh *a = NULL;

	vec_hex(v->pub_b, pub_b, sizeof(pub_b));
	CU_ASSERT_EQUAL_FATAL(rblk_auth_dh_create(v->group, &a), 0);
	CU_ASSERT_EQUAL(rblk_auth_dh_derive(a, pub_b, v->len, out, v->len), 0);
	CU_ASSERT_EQUAL(rblk_auth_dh_derive(a, pub_b, v->len, out2, v->len), 0);
	CU_ASSERT_EQUAL(memcmp(out, out2, v->len), 0);
	rblk_auth_dh_destroy(a);
}

/* The peer value @val (big-endian, len bytes) against @dh: derive's result. */
static int derive_from(struct rblk_auth_dh *dh, const uint8_t *val, size_t len)
{
	return rblk_auth_dh_derive(dh, val, len, out, len);
}

static void test_degenerate_peers(void)
{
	for (size_t i = 0; i < VEC_ARRAY_SIZE(vec_dh); i++) {
		const struct vec_dh *v = &vec_dh[i];
		size_t len = v->len;
		struct rblk_auth_dh *dh = NULL;
		uint8_t val[RBLK_AUTH_MAX_DH_LEN + 1];

		vec_hex(v->p, p, sizeof(p));
		/* every RFC 7919 prime ends in 64 one bits: p-1, p-2 touch one byte */
		CU_ASSERT_EQUAL_FATAL(p[len - 1], 0xff);
		CU_ASSERT_EQUAL_FATAL(rblk_auth_dh_create(v->group, &dh), 0);

		memset(val, 0, len);
		CU_ASSERT_EQUAL(derive_from(dh, val, len), -EINVAL);		/* 0 */
		val[len - 1] = 1;
		CU_ASSERT_EQUAL(derive_from(dh, val, len), -EINVAL);		/* 1 */
		val[len - 1] = 2;
		CU_ASSERT_EQUAL(derive_from(dh, val, len), 0);			/* 2: the generator */
		memcpy(val, p, len);
		CU_ASSERT_EQUAL(derive_from(dh, val, len), -EINVAL);		/* p */
		val[len - 1] = 0xfe;
		CU_ASSERT_EQUAL(derive_from(dh, val, len), -EINVAL);		/* p - 1 */
		memset(val, 0xff, len);
		CU_ASSERT_EQUAL(derive_from(dh, val, len), -EINVAL);		/* > p */

		/* a valid value of the wrong length, either way */
		vec_hex(v->pub_b, pub_b, sizeof(pub_b));
		CU_ASSERT_EQUAL(rblk_auth_dh_derive(dh, pub_b, len - 1, out, len), -EINVAL);
		val[0] = 0;
		memcpy(val + 1, pub_b, len);
		CU_ASSERT_EQUAL(rblk_auth_dh_derive(dh, val, len + 1, out, len), -EINVAL);
		CU_ASSERT_EQUAL(rblk_auth_dh_derive(dh, pub_b, len, out, len - 1), -EINVAL);
		CU_ASSERT_EQUAL(rblk_auth_dh_derive(dh, pub_b, len, out, len), 0);
		rblk_auth_dh_destroy(dh);
	}
}

static void test_create_errors(void)
{
	struct rblk_auth_dh *dh = (struct rblk_auth_dh *)&dh;
	uint8_t x[32] = { [31] = 5 };

	CU_ASSERT_EQUAL(rblk_auth_dh_create(RBLK_AUTH_DHGROUP_NULL, &dh), -EINVAL);
	CU_ASSERT_PTR_NULL(dh);
	CU_ASSERT_EQUAL(rblk_auth_dh_create((enum rblk_auth_dhgroup)6, &dh), -EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_dh_create(RBLK_AUTH_DHGROUP_2048, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_dh_create_from_priv(RBLK_AUTH_DHGROUP_NULL, x, sizeof(x), &dh),
			-EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_dh_create_from_priv(RBLK_AUTH_DHGROUP_2048, x, 0, &dh), -EINVAL);

	CU_ASSERT_EQUAL_FATAL(rblk_auth_dh_create(RBLK_AUTH_DHGROUP_2048, &dh), 0);
	CU_ASSERT_EQUAL(rblk_auth_dh_public(dh, out, 255), -EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_dh_public(dh, out, 257), -EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_dh_public(dh, NULL, 256), -EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_dh_derive(NULL, out, 256, out2, 256), -EINVAL);
	rblk_auth_dh_destroy(dh);
	rblk_auth_dh_destroy(NULL);
}

static void test_no_vector_skipped(void)
{
	CU_ASSERT_EQUAL(checked_dh, VEC_N_DH);
}

static const struct ut_case cases[] = {
	UT_CASE(test_known_answers),
	UT_CASE(test_random_pairs_agree),
	UT_CASE(test_derive_is_repeatable),
	UT_CASE(test_degenerate_peers),
	UT_CASE(test_create_errors),
	UT_CASE(test_no_vector_skipped),
	UT_END,
};

UT_MAIN("auth_dh", cases)

/* SPDX-License-Identifier: MIT */
/*
 * Tests for auth/secret.c: DHHC-1 parse and format, generation and the NQN
 * transformation, against vectors.h (made by make_vectors.py without auth/).
 */
#include <errno.h>
#include <string.h>

#include "auth/auth.h"
#include "ut.h"
#include "vec_util.h"
#include "vectors.h"

static unsigned checked_secrets, checked_bad, checked_transforms, checked_gen_keys;

static void test_parse_vectors(void)
{
	for (size_t i = 0; i < VEC_ARRAY_SIZE(vec_secrets); i++) {
		const struct vec_secret *v = &vec_secrets[i];
		struct rblk_auth_secret s;
		uint8_t key[RBLK_AUTH_MAX_KEY_LEN];
		size_t len = vec_hex(v->key, key, sizeof(key));

		CU_ASSERT_EQUAL_FATAL(rblk_auth_secret_parse(v->str, &s), 0);
		CU_ASSERT_EQUAL(s.transform, v->transform);
		CU_ASSERT_EQUAL(s.len, len);
		CU_ASSERT_EQUAL(memcmp(s.key, key, len), 0);
		checked_secrets++;
	}
}

static void test_format_vectors(void)
{
	for (size_t i = 0; i < VEC_ARRAY_SIZE(vec_secrets); i++) {
		const struct vec_secret *v = &vec_secrets[i];
		struct rblk_auth_secret s = { .transform = v->transform };
		char buf[RBLK_AUTH_SECRET_STR_MAX];

		s.len = vec_hex(v->key, s.key, sizeof(s.key));
		CU_ASSERT_EQUAL(rblk_auth_secret_format(&s, buf, sizeof(buf)), 0);
		CU_ASSERT_STRING_EQUAL(buf, v->str);
	}
}

/* The kernel reads a secret without its closing ':' too. */
static void test_parse_without_closing_colon(void)
{
	for (size_t i = 0; i < VEC_ARRAY_SIZE(vec_secrets); i++) {
		char str[RBLK_AUTH_SECRET_STR_MAX];
		struct rblk_auth_secret s, want;

		snprintf(str, sizeof(str), "%s", vec_secrets[i].str);
		str[strlen(str) - 1] = '\0';
		CU_ASSERT_EQUAL(rblk_auth_secret_parse(str, &s), 0);
		CU_ASSERT_EQUAL(rblk_auth_secret_parse(vec_secrets[i].str, &want), 0);
		CU_ASSERT_EQUAL(memcmp(&s, &want, sizeof(s)), 0);
	}
}

static void test_parse_rejects(void)
{
	for (size_t i = 0; i < VEC_ARRAY_SIZE(vec_bad_secrets); i++) {
		struct rblk_auth_secret s;
		int ret = rblk_auth_secret_parse(vec_bad_secrets[i].str, &s);

		CU_ASSERT_EQUAL(ret, -EINVAL);
		if (ret != -EINVAL)
			fprintf(stderr, "accepted (%s): %s\n", vec_bad_secrets[i].why,
				vec_bad_secrets[i].str);
		/* nothing of a refused secret is left behind */
		CU_ASSERT_EQUAL(s.len, 0);
		checked_bad++;
	}
	CU_ASSERT_EQUAL(rblk_auth_secret_parse(NULL, &(struct rblk_auth_secret){ 0 }), -EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_secret_parse(vec_secrets[0].str, NULL), -EINVAL);
}

static void test_format_errors(void)
{
	struct rblk_auth_secret s = { .transform = RBLK_AUTH_HASH_SHA512, .len = 64 };
	char buf[RBLK_AUTH_SECRET_STR_MAX];

	/* the longest secret (id 03, 64 bytes) needs exactly RBLK_AUTH_SECRET_STR_MAX */
	CU_ASSERT_EQUAL(rblk_auth_secret_format(&s, buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(strlen(buf), RBLK_AUTH_SECRET_STR_MAX - 1);
	CU_ASSERT_EQUAL(rblk_auth_secret_format(&s, buf, sizeof(buf) - 1), -ENOSPC);
	CU_ASSERT_EQUAL(buf[0], '\0');
	s.len = 33;
	CU_ASSERT_EQUAL(rblk_auth_secret_format(&s, buf, sizeof(buf)), -EINVAL);
	s.len = 32;
	s.transform = (enum rblk_auth_hash)4;
	CU_ASSERT_EQUAL(rblk_auth_secret_format(&s, buf, sizeof(buf)), -EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_secret_format(NULL, buf, sizeof(buf)), -EINVAL);
}

static void test_generate(void)
{
	static const uint8_t key[48] = { 1, 2, 3, [47] = 0xee };
	struct rblk_auth_secret a, b;

	CU_ASSERT_EQUAL(rblk_auth_secret_generate(RBLK_AUTH_HASH_SHA384, 48, key, &a), 0);
	CU_ASSERT_EQUAL(a.transform, RBLK_AUTH_HASH_SHA384);
	CU_ASSERT_EQUAL(a.len, 48);
	CU_ASSERT_EQUAL(memcmp(a.key, key, 48), 0);

	/* random: two draws of 32 bytes are never equal in practice */
	CU_ASSERT_EQUAL(rblk_auth_secret_generate(RBLK_AUTH_HASH_NONE, 32, NULL, &a), 0);
	CU_ASSERT_EQUAL(rblk_auth_secret_generate(RBLK_AUTH_HASH_NONE, 32, NULL, &b), 0);
	CU_ASSERT_EQUAL(a.len, 32);
	CU_ASSERT_NOT_EQUAL(memcmp(a.key, b.key, 32), 0);

	CU_ASSERT_EQUAL(rblk_auth_secret_generate(RBLK_AUTH_HASH_SHA256, 31, NULL, &a), -EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_secret_generate(RBLK_AUTH_HASH_SHA256, 0, NULL, &a), -EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_secret_generate((enum rblk_auth_hash)4, 32, NULL, &a), -EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_secret_generate(RBLK_AUTH_HASH_SHA256, 32, NULL, NULL), -EINVAL);
}

static void test_transform_vectors(void)
{
	for (size_t i = 0; i < VEC_ARRAY_SIZE(vec_transforms); i++) {
		const struct vec_transform *v = &vec_transforms[i];
		struct rblk_auth_secret s = { .transform = v->hash };
		uint8_t want[RBLK_AUTH_MAX_KEY_LEN], out[RBLK_AUTH_MAX_KEY_LEN];
		size_t wlen = vec_hex(v->out, want, sizeof(want)), olen = 0;

		s.len = vec_hex(v->key, s.key, sizeof(s.key));
		CU_ASSERT_EQUAL(rblk_auth_secret_transform(&s, v->nqn, out, &olen), 0);
		CU_ASSERT_EQUAL(olen, wlen);
		CU_ASSERT_EQUAL(olen, rblk_auth_hash_len(v->hash));
		CU_ASSERT_EQUAL(memcmp(out, want, wlen), 0);
		checked_transforms++;
	}
}

static void test_transform_none_and_errors(void)
{
	struct rblk_auth_secret s;
	uint8_t out[RBLK_AUTH_MAX_KEY_LEN];
	size_t olen = 0;

	CU_ASSERT_EQUAL_FATAL(rblk_auth_secret_parse(vec_secrets[1].str, &s), 0);
	CU_ASSERT_EQUAL(s.transform, RBLK_AUTH_HASH_NONE);
	/* id 00: the key as is; the NQN plays no part */
	CU_ASSERT_EQUAL(rblk_auth_secret_transform(&s, NULL, out, &olen), 0);
	CU_ASSERT_EQUAL(olen, s.len);
	CU_ASSERT_EQUAL(memcmp(out, s.key, s.len), 0);

	s.transform = RBLK_AUTH_HASH_SHA256;
	CU_ASSERT_EQUAL(rblk_auth_secret_transform(&s, NULL, out, &olen), -EINVAL);
	s.transform = (enum rblk_auth_hash)4;
	CU_ASSERT_EQUAL(rblk_auth_secret_transform(&s, VEC_HOSTNQN, out, &olen), -EINVAL);
	s.transform = RBLK_AUTH_HASH_SHA256;
	s.len = 20;
	CU_ASSERT_EQUAL(rblk_auth_secret_transform(&s, VEC_HOSTNQN, out, &olen), -EINVAL);
}

/*
 * What `rblk gen-dhchap-key` does, at the library level: the raw secret,
 * transformed with the NQN when an HMAC is named (as nvme-cli 2.3 prints
 * it), then formatted. The same vectors run through the tool in
 * tests/unit/cli/main_test.sh.
 */
static void test_gen_key_vectors(void)
{
	for (size_t i = 0; i < VEC_ARRAY_SIZE(vec_gen_keys); i++) {
		const struct vec_gen_key *v = &vec_gen_keys[i];
		struct rblk_auth_secret raw, out, parsed;
		uint8_t key[RBLK_AUTH_MAX_KEY_LEN], t[RBLK_AUTH_MAX_KEY_LEN];
		char buf[RBLK_AUTH_SECRET_STR_MAX];
		size_t len = vec_hex(v->secret, key, sizeof(key)), tlen = 0;

		CU_ASSERT_EQUAL_FATAL(len, v->len);
		CU_ASSERT_EQUAL(rblk_auth_secret_generate(v->hmac, len, key, &raw), 0);
		CU_ASSERT_EQUAL(rblk_auth_secret_transform(&raw, v->nqn, t, &tlen), 0);
		CU_ASSERT_EQUAL(tlen, len);
		CU_ASSERT_EQUAL(rblk_auth_secret_generate(v->hmac, tlen, t, &out), 0);
		CU_ASSERT_EQUAL(rblk_auth_secret_format(&out, buf, sizeof(buf)), 0);
		CU_ASSERT_STRING_EQUAL(buf, v->out);
		CU_ASSERT_EQUAL(rblk_auth_secret_parse(v->out, &parsed), 0);
		CU_ASSERT_EQUAL(parsed.transform, v->hmac);
		CU_ASSERT_EQUAL(parsed.len, v->len);
		checked_gen_keys++;
	}
}

static void test_clear(void)
{
	static const uint8_t zero[sizeof(struct rblk_auth_secret)];
	struct rblk_auth_secret s;

	CU_ASSERT_EQUAL_FATAL(rblk_auth_secret_parse(vec_secrets[11].str, &s), 0);
	rblk_auth_secret_clear(&s);
	CU_ASSERT_EQUAL(memcmp(&s, zero, sizeof(s)), 0);
	rblk_auth_secret_clear(NULL);
}

/* Last: every vector of every group was checked, by this program or a sibling. */
static void test_no_vector_skipped(void)
{
	CU_ASSERT_EQUAL(checked_secrets, VEC_N_SECRETS);
	CU_ASSERT_EQUAL(checked_bad, VEC_N_BAD_SECRETS);
	CU_ASSERT_EQUAL(checked_transforms, VEC_N_TRANSFORMS);
	CU_ASSERT_EQUAL(checked_gen_keys, VEC_N_GEN_KEYS);
	/*
	 * The groups and who checks them: these four here, RESPONSES and
	 * AUGMENTED in chap_ut.c, DH in dh_ut.c (each asserts its own count).
	 * A group the generator gains changes these sums until a test takes it.
	 */
	CU_ASSERT_EQUAL(VEC_GROUPS, 7);
	CU_ASSERT_EQUAL(VEC_TOTAL, VEC_N_SECRETS + VEC_N_BAD_SECRETS + VEC_N_TRANSFORMS +
					   VEC_N_GEN_KEYS + VEC_N_RESPONSES + VEC_N_AUGMENTED +
					   VEC_N_DH);
}

static const struct ut_case cases[] = {
	UT_CASE(test_parse_vectors),
	UT_CASE(test_format_vectors),
	UT_CASE(test_parse_without_closing_colon),
	UT_CASE(test_parse_rejects),
	UT_CASE(test_format_errors),
	UT_CASE(test_generate),
	UT_CASE(test_transform_vectors),
	UT_CASE(test_transform_none_and_errors),
	UT_CASE(test_gen_key_vectors),
	UT_CASE(test_clear),
	UT_CASE(test_no_vector_skipped),
	UT_END,
};

UT_MAIN("auth_secret", cases)

/* SPDX-License-Identifier: MIT */
/* Tests for auth/names.c: hash and DH group ids, names and sizes. */
#include <errno.h>
#include <string.h>

#include "auth/auth_int.h"
#include "ut.h"

static void test_hash_ids_are_the_wire_values(void)
{
	/* NVMe Base 2.0 / Linux NVME_AUTH_HASH_*: these go on the wire as is */
	CU_ASSERT_EQUAL(RBLK_AUTH_HASH_NONE, 0);
	CU_ASSERT_EQUAL(RBLK_AUTH_HASH_SHA256, 1);
	CU_ASSERT_EQUAL(RBLK_AUTH_HASH_SHA384, 2);
	CU_ASSERT_EQUAL(RBLK_AUTH_HASH_SHA512, 3);
	CU_ASSERT_EQUAL(RBLK_AUTH_DHGROUP_NULL, 0);
	CU_ASSERT_EQUAL(RBLK_AUTH_DHGROUP_2048, 1);
	CU_ASSERT_EQUAL(RBLK_AUTH_DHGROUP_3072, 2);
	CU_ASSERT_EQUAL(RBLK_AUTH_DHGROUP_4096, 3);
	CU_ASSERT_EQUAL(RBLK_AUTH_DHGROUP_6144, 4);
	CU_ASSERT_EQUAL(RBLK_AUTH_DHGROUP_8192, 5);
}

static void test_hash_parse(void)
{
	static const struct {
		const char *name;
		enum rblk_auth_hash id;
	} good[] = {
		{ "sha256", RBLK_AUTH_HASH_SHA256 },
		{ "sha384", RBLK_AUTH_HASH_SHA384 },
		{ "sha512", RBLK_AUTH_HASH_SHA512 },
		{ "hmac(sha256)", RBLK_AUTH_HASH_SHA256 },
		{ "hmac(sha384)", RBLK_AUTH_HASH_SHA384 },
		{ "hmac(sha512)", RBLK_AUTH_HASH_SHA512 },
	};
	static const char *const bad[] = {
		"", "sha1", "md5", "none", "SHA256", "sha256 ", "hmac(sha256", "hmac(sha1)",
		"sha2", "sha5120", "hmac(sha256))",
	};
	enum rblk_auth_hash h;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		h = RBLK_AUTH_HASH_NONE;
		CU_ASSERT_EQUAL(rblk_auth_hash_parse(good[i].name, &h), 0);
		CU_ASSERT_EQUAL(h, good[i].id);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		h = RBLK_AUTH_HASH_SHA512;
		CU_ASSERT_EQUAL(rblk_auth_hash_parse(bad[i], &h), -EINVAL);
		CU_ASSERT_EQUAL(h, RBLK_AUTH_HASH_SHA512);
	}
	CU_ASSERT_EQUAL(rblk_auth_hash_parse(NULL, &h), -EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_hash_parse("sha256", NULL), -EINVAL);
}

static void test_hash_names_and_lengths(void)
{
	CU_ASSERT_STRING_EQUAL(rblk_auth_hash_name(RBLK_AUTH_HASH_SHA256), "hmac(sha256)");
	CU_ASSERT_STRING_EQUAL(rblk_auth_hash_name(RBLK_AUTH_HASH_SHA384), "hmac(sha384)");
	CU_ASSERT_STRING_EQUAL(rblk_auth_hash_name(RBLK_AUTH_HASH_SHA512), "hmac(sha512)");
	CU_ASSERT_STRING_EQUAL(rblk_auth_hash_name(RBLK_AUTH_HASH_NONE), "none");
	CU_ASSERT_STRING_EQUAL(rblk_auth_hash_name((enum rblk_auth_hash)4), "unknown");
	CU_ASSERT_EQUAL(rblk_auth_hash_len(RBLK_AUTH_HASH_SHA256), 32);
	CU_ASSERT_EQUAL(rblk_auth_hash_len(RBLK_AUTH_HASH_SHA384), 48);
	CU_ASSERT_EQUAL(rblk_auth_hash_len(RBLK_AUTH_HASH_SHA512), 64);
	CU_ASSERT_EQUAL(rblk_auth_hash_len(RBLK_AUTH_HASH_NONE), 0);
	CU_ASSERT_EQUAL(rblk_auth_hash_len((enum rblk_auth_hash)0xff), 0);
	CU_ASSERT_STRING_EQUAL(rblk_auth_md_name(RBLK_AUTH_HASH_SHA256), "SHA256");
	CU_ASSERT_STRING_EQUAL(rblk_auth_md_name(RBLK_AUTH_HASH_SHA384), "SHA384");
	CU_ASSERT_STRING_EQUAL(rblk_auth_md_name(RBLK_AUTH_HASH_SHA512), "SHA512");
	CU_ASSERT_PTR_NULL(rblk_auth_md_name(RBLK_AUTH_HASH_NONE));
	CU_ASSERT_PTR_NULL(rblk_auth_md_name((enum rblk_auth_hash)4));
	/* every name parses back to its id */
	for (unsigned h = 1; h <= 3; h++) {
		enum rblk_auth_hash back;

		CU_ASSERT_EQUAL(rblk_auth_hash_parse(rblk_auth_hash_name(h), &back), 0);
		CU_ASSERT_EQUAL(back, h);
	}
}

static void test_dhgroups(void)
{
	static const struct {
		const char *name;
		enum rblk_auth_dhgroup id;
		size_t len;
	} groups[] = {
		{ "null", RBLK_AUTH_DHGROUP_NULL, 0 },
		{ "ffdhe2048", RBLK_AUTH_DHGROUP_2048, 256 },
		{ "ffdhe3072", RBLK_AUTH_DHGROUP_3072, 384 },
		{ "ffdhe4096", RBLK_AUTH_DHGROUP_4096, 512 },
		{ "ffdhe6144", RBLK_AUTH_DHGROUP_6144, 768 },
		{ "ffdhe8192", RBLK_AUTH_DHGROUP_8192, 1024 },
	};
	static const char *const bad[] = {
		"", "NULL", "ffdhe1024", "ffdhe2048 ", "modp2048", "ffdhe", "2048", "ffdhe81920",
	};
	enum rblk_auth_dhgroup g;

	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		g = (enum rblk_auth_dhgroup)0x7f;
		CU_ASSERT_EQUAL(rblk_auth_dhgroup_parse(groups[i].name, &g), 0);
		CU_ASSERT_EQUAL(g, groups[i].id);
		CU_ASSERT_STRING_EQUAL(rblk_auth_dhgroup_name(groups[i].id), groups[i].name);
		CU_ASSERT_EQUAL(rblk_auth_dhgroup_len(groups[i].id), groups[i].len);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		g = RBLK_AUTH_DHGROUP_4096;
		CU_ASSERT_EQUAL(rblk_auth_dhgroup_parse(bad[i], &g), -EINVAL);
		CU_ASSERT_EQUAL(g, RBLK_AUTH_DHGROUP_4096);
	}
	CU_ASSERT_EQUAL(rblk_auth_dhgroup_parse(NULL, &g), -EINVAL);
	CU_ASSERT_EQUAL(rblk_auth_dhgroup_parse("null", NULL), -EINVAL);
	CU_ASSERT_STRING_EQUAL(rblk_auth_dhgroup_name((enum rblk_auth_dhgroup)6), "unknown");
	CU_ASSERT_EQUAL(rblk_auth_dhgroup_len((enum rblk_auth_dhgroup)6), 0);
	/* the largest group is what RBLK_AUTH_MAX_DH_LEN is sized for */
	CU_ASSERT_EQUAL(rblk_auth_dhgroup_len(RBLK_AUTH_DHGROUP_8192), RBLK_AUTH_MAX_DH_LEN);
}

static const struct ut_case cases[] = {
	UT_CASE(test_hash_ids_are_the_wire_values),
	UT_CASE(test_hash_parse),
	UT_CASE(test_hash_names_and_lengths),
	UT_CASE(test_dhgroups),
	UT_END,
};

UT_MAIN("auth_names", cases)

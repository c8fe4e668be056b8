/* SPDX-License-Identifier: MIT */
/* Tests for common/uuid.c: parse, check, format, random. */
#include <errno.h>
#include <string.h>

#include "common/uuid.h"
#include "ut.h"

static void test_parse_dashed_and_bare(void)
{
	uint8_t u[16], v[16];

	CU_ASSERT_EQUAL(rblk_uuid_parse("0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0", u), 0);
	CU_ASSERT_EQUAL(u[0], 0x0F);
	CU_ASSERT_EQUAL(u[4], 0x4B);
	CU_ASSERT_EQUAL(u[15], 0xF0);
	CU_ASSERT_EQUAL(rblk_uuid_parse("0f1e2d3c4b5a69788796a5b4c3d2e1f0", v), 0);
	CU_ASSERT_EQUAL(memcmp(u, v, 16), 0);
}

static void test_parse_rejects(void)
{
	uint8_t u[16];

	CU_ASSERT_EQUAL(rblk_uuid_parse("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f", u), -EINVAL);
	CU_ASSERT_EQUAL(rblk_uuid_parse("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f00", u), -EINVAL);
	CU_ASSERT_EQUAL(rblk_uuid_parse("0f1e2d3c_4b5a-6978-8796-a5b4c3d2e1f0", u), -EINVAL);
	CU_ASSERT_EQUAL(rblk_uuid_parse("0f1e2d3c+4b5a-4968-8776-a5b4c3d2e1f0", u), -EINVAL);
	CU_ASSERT_EQUAL(rblk_uuid_parse("0g1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", u), -EINVAL);
	CU_ASSERT_EQUAL(rblk_uuid_parse("0f1e2d3c4b5a69788796a5b4c3d2e1f", u), -EINVAL);
	CU_ASSERT_EQUAL(rblk_uuid_parse("", u), -EINVAL);
	CU_ASSERT_EQUAL(rblk_uuid_parse(NULL, u), -EINVAL);
}

static void test_valid_is_the_dashed_form_only(void)
{
	CU_ASSERT_TRUE(rblk_uuid_valid("5b0c1d7e-0000-4000-8000-000000000001"));
	CU_ASSERT_TRUE(rblk_uuid_valid("F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6"));
	CU_ASSERT_FALSE(rblk_uuid_valid("5b0c1d7e-0000-4000-8000-00000000000"));
	CU_ASSERT_FALSE(rblk_uuid_valid("5b0c1d7e-0000-4000-8000-0000000000001"));
	CU_ASSERT_FALSE(rblk_uuid_valid("5b0c1d7e-0000-4000-8000-00000000000g"));
	CU_ASSERT_FALSE(rblk_uuid_valid("5b0c1d7e00000-4000-8000-000000000001"));
	CU_ASSERT_FALSE(rblk_uuid_valid("5b0c1d7e000040008000000000000001"));
	CU_ASSERT_FALSE(rblk_uuid_valid(""));
}

static void test_format_is_lower_case(void)
{
	const uint8_t u[16] = { 0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78,
				0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0 };
	char s[RBLK_UUID_STRLEN];
	uint8_t back[16];

	CU_ASSERT_PTR_EQUAL(rblk_uuid_format(u, s), s);
	CU_ASSERT_STRING_EQUAL(s, "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
	CU_ASSERT_EQUAL(rblk_uuid_parse(s, back), 0);
	CU_ASSERT_EQUAL(memcmp(u, back, 16), 0);
}

static void test_random_is_version_4(void)
{
	uint8_t a[16], b[16];

	CU_ASSERT_EQUAL(rblk_uuid_random(a), 0);
	CU_ASSERT_EQUAL(rblk_uuid_random(b), 0);
	CU_ASSERT_EQUAL(a[6] >> 4, 4);
	CU_ASSERT_EQUAL(a[8] & 0xC0, 0x80);
	CU_ASSERT_NOT_EQUAL(memcmp(a, b, 16), 0);
}

static const struct ut_case cases[] = {
	UT_CASE(test_parse_dashed_and_bare),
	UT_CASE(test_parse_rejects),
	UT_CASE(test_valid_is_the_dashed_form_only),
	UT_CASE(test_format_is_lower_case),
	UT_CASE(test_random_is_version_4),
	UT_END
};

UT_MAIN("common/uuid", cases)

/* SPDX-License-Identifier: MIT */
/* Tests for common/util.h. */
#include <stdint.h>

#include "common/util.h"
#include "ut.h"

struct outer {
	uint8_t pad[3];
	uint64_t tag;
	int member;
};

static void test_container_of_finds_the_outer_object(void)
{
	struct outer o;

	CU_ASSERT_PTR_EQUAL(rblk_container_of(&o.member, struct outer, member), &o);
	CU_ASSERT_PTR_EQUAL(rblk_container_of(&o.tag, struct outer, tag), &o);
	CU_ASSERT_PTR_EQUAL(rblk_container_of(&o.pad[0], struct outer, pad), &o);
}

static const struct ut_case cases[] = {
	UT_CASE(test_container_of_finds_the_outer_object),
	UT_END
};

UT_MAIN("common/util", cases)

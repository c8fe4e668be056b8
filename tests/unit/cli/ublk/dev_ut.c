/* SPDX-License-Identifier: MIT */
/* Tests for cli/ublk/dev.c: the device names `rblk detach` takes. */
#include <errno.h>

#include "cli/ublk/dev.h"
#include "ut.h"

static void test_parse_device(void)
{
	int id = -1;

	CU_ASSERT_EQUAL(rblk_ublk_parse_device("/dev/ublkb0", &id), 0);
	CU_ASSERT_EQUAL(id, 0);
	CU_ASSERT_EQUAL(rblk_ublk_parse_device("ublkb17", &id), 0);
	CU_ASSERT_EQUAL(id, 17);
	CU_ASSERT_EQUAL(rblk_ublk_parse_device("/dev/ublkb1048575", &id), 0);
	CU_ASSERT_EQUAL(id, 1048575);
	id = -1;
	CU_ASSERT_EQUAL(rblk_ublk_parse_device("/dev/ublkb1048576", &id), -EINVAL);
	CU_ASSERT_EQUAL(rblk_ublk_parse_device("/dev/ublkc0", &id), -EINVAL);
	CU_ASSERT_EQUAL(rblk_ublk_parse_device("/dev/ublkb", &id), -EINVAL);
	CU_ASSERT_EQUAL(rblk_ublk_parse_device("/dev/ublkb-1", &id), -EINVAL);
	CU_ASSERT_EQUAL(rblk_ublk_parse_device("/dev/ublkb3p1", &id), -EINVAL);
	CU_ASSERT_EQUAL(rblk_ublk_parse_device("/dev/nbd0", &id), -EINVAL);
	CU_ASSERT_EQUAL(rblk_ublk_parse_device("/tmp/ublkb0", &id), -EINVAL);
	CU_ASSERT_EQUAL(id, -1);
}

static const struct ut_case cases[] = {
	UT_CASE(test_parse_device),
	UT_END,
};

UT_MAIN("cli/ublk/dev", cases)

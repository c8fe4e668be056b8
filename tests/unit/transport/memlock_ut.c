/* SPDX-License-Identifier: MIT */
/* Tests for transport/memlock.c: the decision and the operator's message. */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>

#include "transport/mr_pool.h"
#include "ut.h"

static void test_too_small_limit_says_how_much_and_how(void)
{
	char msg[512];

	CU_ASSERT_EQUAL(rblk_memlock_check_limit(24u << 20, 8u << 20, false, msg, sizeof(msg)),
			-ENOMEM);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "24.0 MiB"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "RLIMIT_MEMLOCK is 8.0 MiB"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "ulimit -l 24576"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "ulimit -l unlimited"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "LimitMEMLOCK=24M"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "LimitMEMLOCK=infinity"));
}

static void test_rounding_up_partial_units(void)
{
	char msg[512];

	/* 1 MiB + 1 byte: 1025 KiB, 2 MiB for systemd (whole units, rounded up). */
	CU_ASSERT_EQUAL(rblk_memlock_check_limit((1u << 20) + 1, 65536, false, msg, sizeof(msg)),
			-ENOMEM);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "ulimit -l 1025"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "LimitMEMLOCK=2M"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "is 64 KiB"));
}

static void test_enough_unlimited_or_capable_pass(void)
{
	char msg[256];

	CU_ASSERT_EQUAL(rblk_memlock_check_limit(8u << 20, 8u << 20, false, msg, sizeof(msg)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "8.0 MiB of RLIMIT_MEMLOCK 8.0 MiB"));
	CU_ASSERT_EQUAL(rblk_memlock_check_limit(1ull << 40, UINT64_MAX, false, msg, sizeof(msg)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "unlimited"));
	CU_ASSERT_EQUAL(rblk_memlock_check_limit(1ull << 40, 0, true, msg, sizeof(msg)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "CAP_IPC_LOCK"));
}

static void test_message_is_truncated_safely(void)
{
	char msg[16];

	CU_ASSERT_EQUAL(rblk_memlock_check_limit(24u << 20, 1, false, msg, sizeof(msg)), -ENOMEM);
	CU_ASSERT_EQUAL(strlen(msg), sizeof(msg) - 1);
}

static void test_this_process(void)
{
	struct rlimit rl;
	char msg[512];

	CU_ASSERT_EQUAL(rblk_memlock_check(0, msg, sizeof(msg)), 0);
	CU_ASSERT_NOT_EQUAL(msg[0], '\0');
	/* Lower our own soft limit: without CAP_IPC_LOCK the check must now refuse 1 GiB. */
	CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
	{
		struct rlimit low = { 65536, rl.rlim_max };
		int ret;

		/* Lowering one's own soft limit is always allowed: failing to is a failure. */
		CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_MEMLOCK, &low), 0);
		ret = rblk_memlock_check(1u << 30, msg, sizeof(msg));
		if (strstr(msg, "CAP_IPC_LOCK")) {
			CU_ASSERT_EQUAL(ret, 0);
		} else {
			CU_ASSERT_EQUAL(ret, -ENOMEM);
			CU_ASSERT_PTR_NOT_NULL(strstr(msg, "is 64 KiB"));
		}
		setrlimit(RLIMIT_MEMLOCK, &rl);
	}
}

static const struct ut_case cases[] = {
	UT_CASE(test_too_small_limit_says_how_much_and_how),
	UT_CASE(test_rounding_up_partial_units),
	UT_CASE(test_enough_unlimited_or_capable_pass),
	UT_CASE(test_message_is_truncated_safely),
	UT_CASE(test_this_process),
	UT_END,
};

UT_MAIN("transport/memlock", cases)

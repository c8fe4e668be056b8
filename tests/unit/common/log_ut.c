/* SPDX-License-Identifier: MIT */
/* Tests for common/log.c: the handler hook, level filtering, level names. */
#include <errno.h>
#include <string.h>

#include "common/log.h"
#include "ut.h"

static char last_msg[256];
static enum rblk_log_level last_level;
static int calls;

static void capture(enum rblk_log_level level, const char *msg, void *arg)
{
	(void)arg;
	last_level = level;
	snprintf(last_msg, sizeof(last_msg), "%s", msg);
	calls++;
}

static void test_handler_receives_formatted_message(void)
{
	rblk_log_set_handler(capture, NULL);
	rblk_log_set_level(RBLK_LOG_INFO);
	calls = 0;
	RBLK_WARN("queue %d cid %#x", 3, 0x1f);
	CU_ASSERT_EQUAL(calls, 1);
	CU_ASSERT_EQUAL(last_level, RBLK_LOG_WARN);
	CU_ASSERT_STRING_EQUAL(last_msg, "queue 3 cid 0x1f");
	rblk_log_set_handler(NULL, NULL);
}

static void test_level_filters_before_formatting(void)
{
	rblk_log_set_handler(capture, NULL);
	rblk_log_set_level(RBLK_LOG_NOTICE);
	calls = 0;
	RBLK_DEBUG("hidden");
	RBLK_INFO("hidden");
	CU_ASSERT_EQUAL(calls, 0);
	RBLK_ERR("shown");
	CU_ASSERT_EQUAL(calls, 1);
	rblk_log_set_handler(NULL, NULL);
}

static void test_level_names_round_trip(void)
{
	enum rblk_log_level l;

	for (int i = RBLK_LOG_ERR; i <= RBLK_LOG_DEBUG; i++) {
		CU_ASSERT_EQUAL(rblk_log_level_parse(rblk_log_level_str(i), &l), 0);
		CU_ASSERT_EQUAL(l, (enum rblk_log_level)i);
	}
	CU_ASSERT_EQUAL(rblk_log_level_parse("6", &l), 0);
	CU_ASSERT_EQUAL(l, RBLK_LOG_INFO);
	CU_ASSERT_EQUAL(rblk_log_level_parse("verbose", &l), -EINVAL);
	CU_ASSERT_EQUAL(rblk_log_level_parse("9", &l), -EINVAL);
}

static void test_level_is_clamped(void)
{
	rblk_log_set_level(99);
	CU_ASSERT_EQUAL(rblk_log_get_level(), RBLK_LOG_DEBUG);
	rblk_log_set_level(0);
	CU_ASSERT_EQUAL(rblk_log_get_level(), RBLK_LOG_ERR);
	rblk_log_set_level(RBLK_LOG_NOTICE);
}

static const struct ut_case cases[] = {
	UT_CASE(test_handler_receives_formatted_message),
	UT_CASE(test_level_filters_before_formatting),
	UT_CASE(test_level_names_round_trip),
	UT_CASE(test_level_is_clamped),
	UT_END,
};

UT_MAIN("common/log", cases)

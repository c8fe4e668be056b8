/* SPDX-License-Identifier: MIT */
/* Tests for protocol/nqn.c: accept/reject tables and the field conversions. */
#include <errno.h>
#include <string.h>

#include "protocol/nqn.h"
#include "ut.h"

static char long_nqn[300];

/* "nqn.2014-08.com.example:" padded with 'x' to len bytes. */
static const char *nqn_of_len(size_t len)
{
	static const char prefix[] = "nqn.2014-08.com.example:";

	memset(long_nqn, 0, sizeof(long_nqn));
	memcpy(long_nqn, prefix, sizeof(prefix) - 1);
	memset(long_nqn + sizeof(prefix) - 1, 'x', len - (sizeof(prefix) - 1));
	return long_nqn;
}

static void test_accept(void)
{
	static const char *const good[] = {
		"nqn.2014-08.org.nvmexpress.discovery",
		"nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
		"nqn.2014-08.org.nvmexpress:uuid:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6",
		"nqn.2016-06.io.spdk:cnode1",
		"nqn.2024-01.com.example",
		"nqn.2019-12.com.example-corp.storage:disk-1",
		"nqn.1999-12.a",
		"nqn.2014-08.com.example:nvme:nvm-subsystem-sn-d78432",
		"nqn.2020-02.io.rblk:anything goes: here/even spaces",
		"nqn.2014-08.com.example:", /* empty user part is tolerated */
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		CU_ASSERT_EQUAL(rblk_nqn_validate(good[i]), 0);
		if (rblk_nqn_validate(good[i]))
			fprintf(stderr, "rejected: %s\n", good[i]);
	}
	CU_ASSERT_EQUAL(rblk_nqn_validate(nqn_of_len(223)), 0);
}

static void test_reject(void)
{
	static const char *const bad[] = {
		"",
		"testnqn",
		"nqn.",
		"nqn.2014-8.com.example",
		"nqn.2014-13.com.example",
		"nqn.2014-00.com.example",
		"nqn.201a-01.com.example",
		"nqn.2014_01.com.example",
		"nqn.2014-01com.example",
		"nqn.2014-01.",
		"nqn.2014-01.:x",
		"nqn.2014-01.com..example",
		"nqn.2014-01..com",
		"nqn.2014-01.-com.example",
		"nqn.2014-01.com-.example",
		"nqn.2014-01.com.example-",
		"nqn.2014-01.com.",
		"nqn.2014-01.com_x.example",
		"NQN.2014-01.com.example",
		"nqn.2014-01.com.example:tab\there",
		"nqn.2014-01.com.example:del\x7f",
		"nqn.2014-08.org.nvmexpress:uuid:",
		"nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf",
		"nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6a",
		"nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bg6",
		"nqn.2014-08.org.nvmexpress:uuid:f81d4fae7dec-11d0-a765-00a0c91e6bf6-",
		"nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6:x",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT_EQUAL(rblk_nqn_validate(bad[i]), -EINVAL);
		if (rblk_nqn_validate(bad[i]) != -EINVAL)
			fprintf(stderr, "accepted: %s\n", bad[i]);
	}
	CU_ASSERT_EQUAL(rblk_nqn_validate(NULL), -EINVAL);
	CU_ASSERT_EQUAL(rblk_nqn_validate(nqn_of_len(224)), -EINVAL);
	CU_ASSERT_EQUAL(rblk_nqn_validate(nqn_of_len(290)), -EINVAL);
}

/* nvmet's looser rule, with the reason worded to follow the name. */
static void test_check_says_why(void)
{
	static const struct {
		const char *nqn;
		const char *why;
	} t[] = {
		{ "", "is empty" },
		{ "my disk", "contains a space" },
		{ "nqn.2024-01.org.ex\tample:x", "contains control characters" },
		{ "nqn.2024-01.org.example:a\x7f", "contains control characters" },
		{ "disk\xc3\xa9", "contains a byte that is not ASCII (0xc3)" },
		{ NULL, "is missing" },
	};
	char why[80];

	CU_ASSERT_EQUAL(rblk_nqn_policy_check("testnqn", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_nqn_policy_check("nqn.2014-08.org.nvmexpress:uuid:x", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_nqn_policy_check(nqn_of_len(223), why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_nqn_policy_check(nqn_of_len(224), why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "is 224 bytes long (at most 223)");
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		why[0] = '\0';
		CU_ASSERT_EQUAL(rblk_nqn_policy_check(t[i].nqn, why, sizeof(why)), -EINVAL);
		CU_ASSERT_STRING_EQUAL(why, t[i].why);
	}
}

static void test_is_discovery(void)
{
	CU_ASSERT_TRUE(rblk_nqn_is_discovery("nqn.2014-08.org.nvmexpress.discovery"));
	CU_ASSERT_TRUE(rblk_nqn_is_discovery(NVME_DISC_SUBSYS_NAME));
	CU_ASSERT_FALSE(rblk_nqn_is_discovery("nqn.2014-08.org.nvmexpress.discoveryx"));
	CU_ASSERT_FALSE(rblk_nqn_is_discovery("nqn.2014-08.org.nvmexpress.discover"));
	CU_ASSERT_FALSE(rblk_nqn_is_discovery(""));
	CU_ASSERT_FALSE(rblk_nqn_is_discovery(NULL));
}

static void test_copy_field(void)
{
	char field[NVMF_NQN_FIELD_LEN];

	memset(field, 0x55, sizeof(field));
	CU_ASSERT_EQUAL(rblk_nqn_copy_field(field, "nqn.2016-06.io.spdk:cnode1"), 0);
	CU_ASSERT_STRING_EQUAL(field, "nqn.2016-06.io.spdk:cnode1");
	for (size_t i = strlen("nqn.2016-06.io.spdk:cnode1"); i < sizeof(field); i++)
		CU_ASSERT_EQUAL(field[i], 0);

	CU_ASSERT_EQUAL(rblk_nqn_copy_field(field, nqn_of_len(223)), 0);
	CU_ASSERT_EQUAL(strlen(field), 223);
	CU_ASSERT_EQUAL(field[255], 0);

	memset(field, 0x55, sizeof(field));
	CU_ASSERT_EQUAL(rblk_nqn_copy_field(field, nqn_of_len(224)), -EINVAL);
	for (size_t i = 0; i < sizeof(field); i++)
		CU_ASSERT_EQUAL(field[i], 0);
	CU_ASSERT_EQUAL(rblk_nqn_copy_field(field, NULL), -EINVAL);
}

static void test_from_field(void)
{
	uint8_t field[NVMF_NQN_FIELD_LEN];
	char out[NVMF_NQN_FIELD_LEN];
	char small[8];

	memset(field, 0, sizeof(field));
	memcpy(field, "nqn.2024-01.com.example", 23);
	CU_ASSERT_EQUAL(rblk_nqn_from_field(out, sizeof(out), field), 0);
	CU_ASSERT_STRING_EQUAL(out, "nqn.2024-01.com.example");

	/* Exact fit: 7 characters + NUL in 8 bytes. */
	memset(field, 0, sizeof(field));
	memcpy(field, "abcdefg", 7);
	CU_ASSERT_EQUAL(rblk_nqn_from_field(small, sizeof(small), field), 0);
	CU_ASSERT_STRING_EQUAL(small, "abcdefg");
	memcpy(field, "abcdefgh", 8);
	CU_ASSERT_EQUAL(rblk_nqn_from_field(small, sizeof(small), field), -ENOSPC);
	CU_ASSERT_STRING_EQUAL(small, "");

	/* 255 characters + NUL in the last byte is terminated. */
	memset(field, 'a', sizeof(field));
	field[255] = 0;
	CU_ASSERT_EQUAL(rblk_nqn_from_field(out, sizeof(out), field), 0);
	CU_ASSERT_EQUAL(strlen(out), 255);

	/* No NUL anywhere: refused, never truncated. */
	memset(field, 'a', sizeof(field));
	strcpy(out, "junk");
	CU_ASSERT_EQUAL(rblk_nqn_from_field(out, sizeof(out), field), -EINVAL);
	CU_ASSERT_STRING_EQUAL(out, "");
}

static const struct ut_case cases[] = {
	UT_CASE(test_accept),
	UT_CASE(test_reject),
	UT_CASE(test_check_says_why),
	UT_CASE(test_is_discovery),
	UT_CASE(test_copy_field),
	UT_CASE(test_from_field),
	UT_END,
};

UT_MAIN("protocol/nqn", cases)

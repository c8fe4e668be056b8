/* SPDX-License-Identifier: MIT */
/* Tests for common/parse.c: the one port rule and the one size rule. */
#include <errno.h>
#include <string.h>

#include "common/parse.h"
#include "ut.h"

static char why[160];

static void test_port_bounds(void)
{
	uint16_t p = 7;

	CU_ASSERT_EQUAL(rblk_port_parse("1", &p, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(p, 1);
	CU_ASSERT_EQUAL(rblk_port_parse("4420", &p, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(p, 4420);
	CU_ASSERT_EQUAL(rblk_port_parse("65535", &p, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(p, 65535);
	p = 7;
	CU_ASSERT_EQUAL(rblk_port_parse("0", &p, why, sizeof(why)), -ERANGE);
	CU_ASSERT_EQUAL(rblk_port_parse("65536", &p, why, sizeof(why)), -ERANGE);
	CU_ASSERT_EQUAL(rblk_port_parse("99999999999999999999999", &p, why, sizeof(why)), -ERANGE);
	CU_ASSERT_STRING_EQUAL(why, "must be a decimal number 1-65535");
	CU_ASSERT_EQUAL(p, 7);
}

/* Everything strtoul would have let through, one way or another. */
static void test_port_refuses_what_strtoul_takes(void)
{
	static const char *const bad[] = {
		"0x1144", "+1", "-1", " 1", "1 ", "\t1", "1\n", "44a", "1.0", "4420,", "0o10", "",
	};
	uint16_t p = 7;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		CU_ASSERT_EQUAL(rblk_port_parse(bad[i], &p, why, sizeof(why)), -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, "must be a decimal number 1-65535"));
		if (!strstr(why, "1-65535"))
			printf("\n  '%s': '%s'\n", bad[i], why);
	}
	CU_ASSERT_EQUAL(rblk_port_parse(NULL, &p, why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "is empty: it must be a decimal number 1-65535");
	CU_ASSERT_EQUAL(p, 7);
}

/* The kernel's kstrtou16(.., 0) reads "04420" as octal 2320: refused, and said why. */
static void test_port_leading_zero(void)
{
	uint16_t p = 7;

	CU_ASSERT_EQUAL(rblk_port_parse("04420", &p, why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "must be a decimal number 1-65535 without leading zeros");
	CU_ASSERT_EQUAL(rblk_port_parse("00", &p, why, sizeof(why)), -ERANGE);
	CU_ASSERT_EQUAL(p, 7);
	/* @why is optional */
	CU_ASSERT_EQUAL(rblk_port_parse("x", &p, NULL, 0), -EINVAL);
}

static void test_size_suffixes_are_binary(void)
{
	static const struct {
		const char *in;
		uint64_t want;
	} ok[] = {
		{ "0", 0 },		{ "512", 512 },		{ "4k", 4096 },
		{ "4K", 4096 },		{ "4KiB", 4096 },	{ "4KB", 4096 },
		{ "64M", 64ull << 20 },	{ "64m", 64ull << 20 },	{ "2MiB", 2ull << 20 },
		{ "1G", 1ull << 30 },	{ "2GiB", 2ull << 30 },	{ "3gB", 3ull << 30 },
		{ "1T", 1ull << 40 },	{ "1TiB", 1ull << 40 },
		{ "010", 10 },		/* decimal, not octal */
		{ "18446744073709551615", UINT64_MAX },
		{ "16777215T", 16777215ull << 40 },
	};
	uint64_t v;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 1;
		CU_ASSERT_EQUAL(rblk_size_parse(ok[i].in, &v, why, sizeof(why)), 0);
		CU_ASSERT_EQUAL(v, ok[i].want);
		if (v != ok[i].want)
			printf("\n  '%s' -> %llu\n", ok[i].in, (unsigned long long)v);
	}
}

static void test_size_refusals_say_why(void)
{
	static const struct {
		const char *in;
		int err;
		const char *why;
	} bad[] = {
		{ "", -EINVAL, "is empty" },
		{ "1.5G", -EINVAL, "whole number" },
		{ "0x1000", -EINVAL, "unknown suffix 'x1000'" },
		{ "4kb", -EINVAL, "unknown suffix 'kb'" },
		{ "4Ki", -EINVAL, "unknown suffix 'Ki'" },
		{ "4P", -EINVAL, "unknown suffix 'P'" },
		{ "4 k", -EINVAL, "unknown suffix ' k'" },
		{ "-1", -EINVAL, "must be bytes" },
		{ "+1", -EINVAL, "must be bytes" },
		{ " 1", -EINVAL, "must be bytes" },
		{ "k", -EINVAL, "must be bytes" },
		{ "18446744073709551616", -ERANGE, "2^64" },
		{ "16777216T", -ERANGE, "2^64" },
		{ "17179869184G", -ERANGE, "2^64" },
	};
	uint64_t v = 7;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		CU_ASSERT_EQUAL(rblk_size_parse(bad[i].in, &v, why, sizeof(why)), bad[i].err);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, bad[i].why));
		if (!strstr(why, bad[i].why))
			printf("\n  '%s': '%s'\n", bad[i].in, why);
	}
	CU_ASSERT_EQUAL(v, 7);
}

static void test_nsid_decimal_or_hex(void)
{
	static const struct {
		const char *in;
		int err;
		uint32_t want;
	} t[] = {
		{ "1", 0, 1 },			{ "010", 0, 10 },
		{ "0x1f", 0, 31 },		{ "0X1F", 0, 31 },
		{ "4294967294", 0, 0xFFFFFFFEu }, { "0xfffffffe", 0, 0xFFFFFFFEu },
		{ "0", -ERANGE, 0 },		{ "0x0", -ERANGE, 0 },
		{ "4294967295", -ERANGE, 0 },	{ "0xffffffff", -ERANGE, 0 },
		{ "0x100000000", -ERANGE, 0 },	{ "99999999999999999999", -ERANGE, 0 },
		{ "0x", -EINVAL, 0 },		{ "0x1g", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },		{ "+1", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 },		{ "1 ", -EINVAL, 0 },
		{ "", -EINVAL, 0 },		{ "1k", -EINVAL, 0 },
	};
	uint32_t v;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		v = 7;
		why[0] = '\0';
		CU_ASSERT_EQUAL(rblk_nsid_parse(t[i].in, &v, why, sizeof(why)), t[i].err);
		CU_ASSERT_EQUAL(v, t[i].err ? 7 : t[i].want);
		if (t[i].err)
			CU_ASSERT_PTR_NOT_NULL(strstr(why, "1-4294967294"));
		if (t[i].err ? v != 7 : v != t[i].want)
			printf("\n  '%s' -> %u\n", t[i].in, v);
	}
}

static void test_u64_keys(void)
{
	static const struct {
		const char *in;
		int err;
		uint64_t want;
	} t[] = {
		{ "0", 0, 0 },			{ "1234", 0, 1234 },
		{ "0xdeadbeefcafe0001", 0, 0xdeadbeefcafe0001ull },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "0x10000000000000000", -ERANGE, 0 },
		{ "-1", -EINVAL, 0 },		{ "0x", -EINVAL, 0 },
		{ "12k", -EINVAL, 0 },		{ "", -EINVAL, 0 },
	};
	uint64_t v;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		v = 7;
		CU_ASSERT_EQUAL(rblk_u64_parse(t[i].in, &v, why, sizeof(why)), t[i].err);
		CU_ASSERT_EQUAL(v, t[i].err ? 7 : t[i].want);
	}
}

static const struct ut_case cases[] = {
	UT_CASE(test_port_bounds),
	UT_CASE(test_port_refuses_what_strtoul_takes),
	UT_CASE(test_port_leading_zero),
	UT_CASE(test_size_suffixes_are_binary),
	UT_CASE(test_size_refusals_say_why),
	UT_CASE(test_nsid_decimal_or_hex),
	UT_CASE(test_u64_keys),
	UT_END
};

UT_MAIN("common/parse", cases)

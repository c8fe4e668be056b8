/* SPDX-License-Identifier: MIT */
/* Tests for transport/sysfs.c: attribute readers and numeric directory listing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake_sysfs.h"
#include "transport/sysfs.h"
#include "ut.h"

static void test_read_str_trims_and_reports_missing(void)
{
	char *r = fs_create();
	char path[512], buf[32];

	fs_write(r, "a/state", "4: ACTIVE  ");
	snprintf(path, sizeof(path), "%s/a/state", r);
	CU_ASSERT_EQUAL(rblk_sysfs_read_str(path, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "4: ACTIVE");
	CU_ASSERT_EQUAL(rblk_sysfs_read_str(path, buf, 5), 0);	/* truncated, terminated */
	CU_ASSERT_STRING_EQUAL(buf, "4: A");
	snprintf(path, sizeof(path), "%s/a/nothing", r);
	CU_ASSERT_EQUAL(rblk_sysfs_read_str(path, buf, sizeof(buf)), -ENOENT);
	fs_destroy(r);
}

static void test_read_u64(void)
{
	char *r = fs_create();
	char path[512];
	uint64_t v = 0;

	fs_write(r, "n", "18446744073709551615");
	snprintf(path, sizeof(path), "%s/n", r);
	CU_ASSERT_EQUAL(rblk_sysfs_read_u64(path, &v), 0);
	CU_ASSERT_EQUAL(v, UINT64_MAX);
	fs_write(r, "n", "0x00010000");
	CU_ASSERT_EQUAL(rblk_sysfs_read_u64(path, &v), 0);
	CU_ASSERT_EQUAL(v, 0x10000);
	fs_write(r, "n", "-1");
	CU_ASSERT_EQUAL(rblk_sysfs_read_u64(path, &v), -EINVAL);
	fs_write(r, "n", "12 apples");
	CU_ASSERT_EQUAL(rblk_sysfs_read_u64(path, &v), -EINVAL);
	fs_write(r, "n", "%s", "");
	CU_ASSERT_EQUAL(rblk_sysfs_read_u64(path, &v), -EINVAL);
	fs_write(r, "n", "99999999999999999999999");
	CU_ASSERT_EQUAL(rblk_sysfs_read_u64(path, &v), -EINVAL);
	fs_destroy(r);
}

static void test_list_numeric_sorts_and_skips_names(void)
{
	char *r = fs_create();
	char path[512];
	unsigned *v, n;

	fs_write(r, "gids/10", "x");
	fs_write(r, "gids/2", "x");
	fs_write(r, "gids/0", "x");
	fs_write(r, "gids/foo", "x");
	fs_write(r, "gids/3a", "x");
	snprintf(path, sizeof(path), "%s/gids", r);
	CU_ASSERT_EQUAL_FATAL(rblk_sysfs_list_numeric(path, &v, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT_EQUAL(v[0], 0);
	CU_ASSERT_EQUAL(v[1], 2);
	CU_ASSERT_EQUAL(v[2], 10);
	free(v);
	snprintf(path, sizeof(path), "%s/none", r);
	CU_ASSERT_EQUAL(rblk_sysfs_list_numeric(path, &v, &n), -ENOENT);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_PTR_NULL(v);
	fs_destroy(r);
}

static void test_path_too_long(void)
{
	char buf[8];

	CU_ASSERT_EQUAL(rblk_sysfs_path(buf, sizeof(buf), "%s/%s", "/sys", "class"), -ENAMETOOLONG);
	CU_ASSERT_EQUAL(rblk_sysfs_path(buf, sizeof(buf), "%s", "/sys"), 0);
	CU_ASSERT_STRING_EQUAL(buf, "/sys");
}

static const struct ut_case cases[] = {
	UT_CASE(test_read_str_trims_and_reports_missing),
	UT_CASE(test_read_u64),
	UT_CASE(test_list_numeric_sorts_and_skips_names),
	UT_CASE(test_path_too_long),
	UT_END,
};

UT_MAIN("transport/sysfs", cases)

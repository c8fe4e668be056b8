/* SPDX-License-Identifier: MIT */
/* Tests for backend/rbd_path.c: which "rbd:" paths name an image, and how. */
#include <errno.h>
#include <string.h>

#include "backend/rbd_path.h"
#include "ut.h"

static void test_pool_image(void)
{
	struct rblk_rbd_path p;

	CU_ASSERT_TRUE(rblk_rbd_path_is("rbd:rbd/img0"));
	CU_ASSERT_FALSE(rblk_rbd_path_is("/dev/rbd0"));
	CU_ASSERT_FALSE(rblk_rbd_path_is(NULL));
	CU_ASSERT_EQUAL_FATAL(rblk_rbd_path_parse("rbd:rbd/img0", &p), 0);
	CU_ASSERT_STRING_EQUAL(p.pool, "rbd");
	CU_ASSERT_STRING_EQUAL(p.ns, "");
	CU_ASSERT_STRING_EQUAL(p.image, "img0");
	/* The prefix is optional for the engine, which gets it either way. */
	CU_ASSERT_EQUAL_FATAL(rblk_rbd_path_parse("pool-2/vm.disk", &p), 0);
	CU_ASSERT_STRING_EQUAL(p.pool, "pool-2");
	CU_ASSERT_STRING_EQUAL(p.image, "vm.disk");
}

static void test_pool_namespace_image(void)
{
	struct rblk_rbd_path p;

	CU_ASSERT_EQUAL_FATAL(rblk_rbd_path_parse("rbd:rbd/tenant1/img", &p), 0);
	CU_ASSERT_STRING_EQUAL(p.pool, "rbd");
	CU_ASSERT_STRING_EQUAL(p.ns, "tenant1");
	CU_ASSERT_STRING_EQUAL(p.image, "img");
}

static void test_refused(void)
{
	struct rblk_rbd_path p;
	char longname[RBLK_RBD_NAME_MAX + 8];

	CU_ASSERT_EQUAL(rblk_rbd_path_parse("rbd:", &p), -EINVAL);
	CU_ASSERT_EQUAL(rblk_rbd_path_parse("rbd:img", &p), -EINVAL);
	CU_ASSERT_EQUAL(rblk_rbd_path_parse("rbd:/img", &p), -EINVAL);
	CU_ASSERT_EQUAL(rblk_rbd_path_parse("rbd:pool/", &p), -EINVAL);
	CU_ASSERT_EQUAL(rblk_rbd_path_parse("rbd:pool//img", &p), -EINVAL);
	CU_ASSERT_EQUAL(rblk_rbd_path_parse("rbd:a/b/c/d", &p), -EINVAL);
	CU_ASSERT_EQUAL(rblk_rbd_path_parse("rbd:pool/img@snap1", &p), -EINVAL);
	CU_ASSERT_EQUAL(rblk_rbd_path_parse(NULL, &p), -EINVAL);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	memcpy(longname, "p/", 2);
	CU_ASSERT_EQUAL(rblk_rbd_path_parse(longname, &p), -EINVAL);
	/* The longest name that fits still does. */
	longname[2 + RBLK_RBD_NAME_MAX - 1] = '\0';
	CU_ASSERT_EQUAL_FATAL(rblk_rbd_path_parse(longname, &p), 0);
	CU_ASSERT_EQUAL(strlen(p.image), RBLK_RBD_NAME_MAX - 1);
}

static const struct ut_case cases[] = {
	UT_CASE(test_pool_image),
	UT_CASE(test_pool_namespace_image),
	UT_CASE(test_refused),
	UT_END,
};

UT_MAIN("backend/rbd_path", cases)

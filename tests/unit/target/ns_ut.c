/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/ns.c: stable generated identifiers, "mem:"/"null:" sizes,
 * block sizes, files (missing, empty, read-only), engine consistency, and
 * identifiers given by the caller.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "test_transport.h"
#include "ut.h"

static struct tt_env *env;
static struct rblk_subsystem *ss;

static void setup(void)
{
	env = tt_env_create(NULL, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(env);
	ss = tt_add_subsys(env, TT_SUBNQN, NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ss);
}

static void teardown(void)
{
	tt_env_destroy(env);
	env = NULL;
}

static int add(const char *path, uint32_t bs, bool ro, const char *backend)
{
	struct rblk_ns_opts o;

	rblk_ns_opts_init(&o);
	o.path = path;
	o.block_size = bs;
	o.read_only = ro;
	o.backend = backend;
	return rblk_subsystem_add_namespace(ss, &o, NULL);
}

static void test_stable_ids(void)
{
	uint8_t a[16], b[16], c[16];
	char s1[21], s2[21];

	rblk_gen_uuid(TT_SUBNQN, 1, a);
	rblk_gen_uuid(TT_SUBNQN, 1, b);
	CU_ASSERT_EQUAL(memcmp(a, b, 16), 0);
	rblk_gen_uuid(TT_SUBNQN, 2, c);
	CU_ASSERT_NOT_EQUAL(memcmp(a, c, 16), 0);
	rblk_gen_uuid(TT_SUBNQN2, 1, c);
	CU_ASSERT_NOT_EQUAL(memcmp(a, c, 16), 0);
	/* Version 8 (custom), RFC variant. */
	CU_ASSERT_EQUAL(a[6] >> 4, 8);
	CU_ASSERT_EQUAL(a[8] >> 6, 2);
	/* NGUID differs from the UUID of the same namespace. */
	rblk_gen_nguid(TT_SUBNQN, 1, b);
	CU_ASSERT_NOT_EQUAL(memcmp(a, b, 16), 0);
	rblk_gen_serial(TT_SUBNQN, s1);
	rblk_gen_serial(TT_SUBNQN, s2);
	CU_ASSERT_STRING_EQUAL(s1, s2);
	CU_ASSERT_EQUAL(strlen(s1), 16);
	CU_ASSERT_EQUAL(strspn(s1, "0123456789abcdef"), 16);
	rblk_gen_serial(TT_SUBNQN2, s2);
	CU_ASSERT_STRING_NOT_EQUAL(s1, s2);
}

static void test_mem_sizes(void)
{
	setup();
	CU_ASSERT_EQUAL(add("mem:64K", 0, false, NULL), 0);
	CU_ASSERT_EQUAL(ss->ns[0]->nlb, 128);
	CU_ASSERT_EQUAL(add("mem:1m", 4096, false, NULL), 0);
	CU_ASSERT_EQUAL(ss->ns[1]->nlb, 256);
	CU_ASSERT_EQUAL(ss->ns[1]->lbads, 12);
	CU_ASSERT_EQUAL(add("mem:2MiB", 0, false, NULL), 0);
	CU_ASSERT_EQUAL(ss->ns[2]->nlb, 4096);
	CU_ASSERT_EQUAL(add("null:1G", 0, false, NULL), 0);
	CU_ASSERT_EQUAL(ss->ns[3]->nlb, 2097152);
	CU_ASSERT_FALSE(ss->ns[0]->vwc);
	CU_ASSERT_EQUAL(add("mem:0", 0, false, NULL), -EINVAL);
	CU_ASSERT_EQUAL(add("mem:abc", 0, false, NULL), -EINVAL);
	CU_ASSERT_EQUAL(add("mem:12Q", 0, false, NULL), -EINVAL);
	CU_ASSERT_EQUAL(add("mem:", 0, false, NULL), -EINVAL);
	/* LBADS 9..12 only (the Linux host rejects others). */
	CU_ASSERT_NOT_EQUAL(add("mem:1M", 8192, false, NULL), 0);
	CU_ASSERT_NOT_EQUAL(add("", 0, false, NULL), 0);
	teardown();
}

static void test_files(void)
{
	char path[256];
	const char *other;

	setup();
	CU_ASSERT_EQUAL(add("/nonexistent/rblk-ut", 0, false, NULL), -ENOENT);
	CU_ASSERT_EQUAL_FATAL(tt_tempfile(path, sizeof(path), 0), 0);
	CU_ASSERT_EQUAL(add(path, 0, false, NULL), -EINVAL); /* empty */
	CU_ASSERT_EQUAL(truncate(path, 1 << 20), 0);
	/* The poll groups' backend queues serve one engine. */
	other = strcmp(env->tgt->backend, "uring") ? "uring" : "aio";
	CU_ASSERT_EQUAL(add(path, 0, false, other), -EINVAL);
	CU_ASSERT_EQUAL(add(path, 0, true, env->tgt->backend), 0);
	CU_ASSERT_TRUE(ss->ns[0]->read_only);
	CU_ASSERT_TRUE(ss->ns[0]->vwc);
	CU_ASSERT_EQUAL(ss->ns[0]->nlb, 2048);
	CU_ASSERT_STRING_EQUAL(ss->ns[0]->path, path);
	teardown();
	unlink(path);
}

static void test_given_ids(void)
{
	struct rblk_ns_opts o;
	uint8_t gen[16];

	setup();
	rblk_ns_opts_init(&o);
	o.path = "mem:64K";
	o.nsid = 5;
	o.has_nguid = true;
	memset(o.nguid, 0x11, 16);
	CU_ASSERT_EQUAL_FATAL(rblk_subsystem_add_namespace(ss, &o, NULL), 0);
	CU_ASSERT_EQUAL(ss->ns[4]->nguid[0], 0x11);
	rblk_gen_uuid(TT_SUBNQN, 5, gen);
	CU_ASSERT_EQUAL(memcmp(ss->ns[4]->uuid, gen, 16), 0);
	CU_ASSERT_FALSE(ss->ns[4]->has_eui64);
	/* nsid 0: identifiers generated once the nsid is known. */
	o.nsid = 0;
	o.has_nguid = false;
	CU_ASSERT_EQUAL_FATAL(rblk_subsystem_add_namespace(ss, &o, NULL), 0);
	rblk_gen_nguid(TT_SUBNQN, 1, gen);
	CU_ASSERT_EQUAL(memcmp(ss->ns[0]->nguid, gen, 16), 0);
	teardown();
}

/* The check before start (ns_path.c): the rules the open applies, without a target. */
static void test_path_check(void)
{
	char why[256];

	CU_ASSERT_EQUAL(rblk_ns_path_check("mem:1M", false, 0, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_ns_path_check("null:1G", true, 4096, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_ns_path_check("mem:lots", false, 0, why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "mem:lots: the size must be bytes, or a whole number with a "
			       "binary suffix k, M, G or T (KiB, MiB, ... alike)");
	CU_ASSERT_EQUAL(rblk_ns_path_check("mem:1.5G", false, 0, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "mem:1.5G: the size must be a whole number"));
	CU_ASSERT_EQUAL(rblk_ns_path_check("null:0", false, 0, why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "null:0: the size must not be 0");
	CU_ASSERT_EQUAL(rblk_ns_path_check("mem:1M", false, 8192, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "block size 8192: must be 0 (detect) or a power of two in 512..4096"));
	CU_ASSERT_EQUAL(rblk_ns_path_check("/nonexistent/a.img", true, 0, why, sizeof(why)), -ENOENT);
	CU_ASSERT_STRING_EQUAL(why, "/nonexistent/a.img: No such file or directory");
	/* rbd: only the form is checked here; whether the image opens needs the cluster. */
	CU_ASSERT_EQUAL(rblk_ns_path_check("rbd:pool/img@snap", false, 0, why, sizeof(why)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "rbd:pool/img@snap: must be rbd:POOL/IMAGE or "
			       "rbd:POOL/NAMESPACE/IMAGE (no @snapshot)");
	CU_ASSERT_EQUAL(rblk_ns_path_check("rbd:pool/img", false, 0, why, sizeof(why)),
			rblk_backend_built("rbd") ? 0 : -EOPNOTSUPP);
}

static const struct ut_case cases[] = {
	UT_CASE(test_stable_ids),
	UT_CASE(test_path_check),
	UT_CASE(test_mem_sizes),
	UT_CASE(test_files),
	UT_CASE(test_given_ids),
	UT_END,
};

UT_MAIN("target/ns", cases)

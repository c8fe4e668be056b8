/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/opts.c: each option's range and the relations between
 * options, with the option named in the message, and tt_target_create()
 * refusing what the check refuses; the public rblk_target_opts_check() and
 * bounds (target.c, rblk/target.h) agreeing with them.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "test_transport.h"
#include "ut.h"

static struct rblk_target_opts o;
static char why[256];
static const char *field;

/* The check's verdict on @o after rblk_target_opts_init() and @set. */
#define CHECK(set) (rblk_target_opts_init(&o), (set), rblk_tgt_opts_check(&o, &field, why, sizeof(why)))

static bool refused(int ret, const char *name, const char *msg)
{
	if (ret == -EINVAL && field && !strcmp(field, name) && strstr(why, msg))
		return true;
	fprintf(stderr, "\n  expected %s: %s\n  got %d %s: %s", name, msg, ret,
		field ? field : "(none)", why);
	return false;
}

static void test_defaults_pass(void)
{
	CU_ASSERT_EQUAL(CHECK((void)0), 0);
	CU_ASSERT_PTR_NULL(field);
}

static void test_in_capsule(void)
{
	CU_ASSERT(refused(CHECK(o.in_capsule_data_size = 3), "in_capsule_data_size",
			  "in_capsule_data_size 3: must be a multiple of 16 in 0..131072"));
	CU_ASSERT_EQUAL(CHECK(o.in_capsule_data_size = 0), 0);
	CU_ASSERT_EQUAL(CHECK(o.in_capsule_data_size = 131072), 0);
	/* Larger than a buffer unit. */
	CU_ASSERT(refused(CHECK(o.in_capsule_data_size = 131088), "in_capsule_data_size",
			  "at most io_unit_size and max_io_size"));
	/* Larger than the largest transfer. */
	CU_ASSERT(refused(CHECK((o.max_io_size = 16384, o.in_capsule_data_size = 32768)),
			  "in_capsule_data_size", "in 0..16384"));
}

static void test_queue_depths(void)
{
	/* 65536 would wrap the 16-bit queue depth to 0. */
	CU_ASSERT(refused(CHECK(o.max_queue_depth = 65536), "max_queue_depth",
			  "max_queue_depth 65536: must be in 2..65535"));
	CU_ASSERT_EQUAL(CHECK(o.max_queue_depth = 65535), 0);
	CU_ASSERT(refused(CHECK(o.max_queue_depth = 1), "max_queue_depth", "2..65535"));
	CU_ASSERT(refused(CHECK(o.max_admin_queue_depth = 33), "max_admin_queue_depth", "2..32"));
	CU_ASSERT(refused(CHECK(o.max_io_queues = 0), "max_io_queues", "1..65534"));
	CU_ASSERT(refused(CHECK(o.max_io_queues = 0xFFFF), "max_io_queues", "1..65534"));
	CU_ASSERT(refused(CHECK(o.num_poll_groups = 1025), "num_poll_groups", "0..1024"));
}

static void test_io_sizes(void)
{
	CU_ASSERT(refused(CHECK(o.max_io_size = 3u << 18), "max_io_size",
			  "max_io_size 786432: must be a power of two in 8192..16777216"));
	CU_ASSERT(refused(CHECK(o.max_io_size = 4096), "max_io_size", "power of two"));
	/* Near 4 GiB, max_io_size + io_unit_size used to wrap and pass. */
	CU_ASSERT(refused(CHECK(o.max_io_size = 1u << 31), "max_io_size", "8192..16777216"));
	CU_ASSERT(refused(CHECK(o.io_unit_size = 4096), "max_io_size",
			  "needs more than 16 buffer units of io_unit_size 4096"));
	CU_ASSERT(refused(CHECK(o.io_unit_size = 6144), "io_unit_size", "multiple of 4096"));
	CU_ASSERT(refused(CHECK(o.io_unit_size = 0), "io_unit_size", "4096..16777216"));
	CU_ASSERT_EQUAL(CHECK((o.max_io_size = 16u << 20, o.io_unit_size = 1u << 20)), 0);
}

static void test_pool_holds_one_io(void)
{
	/* 1 MiB in 128 KiB units needs 8: 7 would leave that request waiting forever. */
	CU_ASSERT(refused(CHECK(o.num_shared_buffers = 7), "num_shared_buffers",
			  "num_shared_buffers 7: the buffer pool"));
	CU_ASSERT(strstr(why, "must be 8..1048576 units") != NULL);
	CU_ASSERT_EQUAL(CHECK(o.num_shared_buffers = 8), 0);
	/* 0 = max_queue_depth units: 4 cannot hold 1 MiB either. */
	CU_ASSERT(refused(CHECK(o.max_queue_depth = 4), "num_shared_buffers", "num_shared_buffers 4"));
	CU_ASSERT(refused(CHECK(o.num_shared_buffers = (1u << 20) + 1), "num_shared_buffers",
			  "8..1048576"));
}

static void test_kato_and_enums(void)
{
	CU_ASSERT(refused(CHECK(o.kato_check_ms = 0), "kato_check_ms", "1..5000"));
	/* An hour would overflow the poll groups' int sleep bound (ms) soon after. */
	CU_ASSERT(refused(CHECK(o.kato_check_ms = 3600000), "kato_check_ms", "1..5000"));
	CU_ASSERT(refused(CHECK(o.poll_mode = (enum rblk_poll_mode)3), "poll_mode", "poll_mode 3"));
	CU_ASSERT(refused(CHECK(o.threads = (enum rblk_threads)2), "threads", "threads 2"));
}

/* tt_target_create() runs the same check. */
static void test_create_refuses(void)
{
	struct rblk_target *tgt = NULL;

	rblk_target_opts_init(&o);
	o.in_capsule_data_size = 3;
	CU_ASSERT_EQUAL(tt_target_create(&o, &tgt), -EINVAL);
	CU_ASSERT_PTR_NULL(tgt);
	rblk_target_opts_init(&o);
	o.kato_check_ms = 10000;
	CU_ASSERT_EQUAL(tt_target_create(&o, &tgt), -EINVAL);
}

/*
 * The public check: the same rules on a caller's sized struct, whose members
 * past its size are not read (an older program's shorter struct).
 */
static void test_public_check(void)
{
	rblk_target_opts_init(&o);
	CU_ASSERT_EQUAL(rblk_target_opts_check(&o, &field, why, sizeof(why)), 0);
	CU_ASSERT_PTR_NULL(field);
	o.max_queue_depth = RBLK_TARGET_QUEUE_DEPTH_MAX + 1;
	CU_ASSERT(refused(rblk_target_opts_check(&o, &field, why, sizeof(why)), "max_queue_depth",
			  "max_queue_depth 65536: must be in 2..65535"));
	CU_ASSERT_EQUAL(rblk_target_opts_check(&o, NULL, why, sizeof(why)), -EINVAL);

	rblk_target_opts_init(&o);
	o.srq_depth = RBLK_TARGET_SRQ_DEPTH_MIN - 1;
	CU_ASSERT(refused(rblk_target_opts_check(&o, &field, why, sizeof(why)), "srq_depth",
			  "srq_depth 15: must be in 16..65536"));
	o.size = offsetof(struct rblk_target_opts, srq_depth);
	CU_ASSERT_EQUAL(rblk_target_opts_check(&o, &field, why, sizeof(why)), 0);

	o.size = 0;
	CU_ASSERT_EQUAL(rblk_target_opts_check(&o, &field, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NULL(field);
	CU_ASSERT_EQUAL(rblk_target_opts_check(NULL, &field, why, sizeof(why)), -EINVAL);
}

/* The public bounds are the check's: each one passes, one past it is refused. */
static void test_public_bounds(void)
{
	CU_ASSERT_EQUAL(CHECK(o.num_poll_groups = RBLK_TARGET_POLL_GROUPS_MAX), 0);
	CU_ASSERT(refused(CHECK(o.num_poll_groups = RBLK_TARGET_POLL_GROUPS_MAX + 1),
			  "num_poll_groups", "0..1024"));
	CU_ASSERT_EQUAL(CHECK((o.max_io_size = RBLK_TARGET_IO_SIZE_MAX,
			       o.io_unit_size = RBLK_TARGET_IO_SIZE_MAX)), 0);
	CU_ASSERT(refused(CHECK(o.io_unit_size = RBLK_TARGET_IO_SIZE_MAX + 4096), "io_unit_size",
			  "4096..16777216"));
	CU_ASSERT_EQUAL(CHECK(o.num_shared_buffers = RBLK_TARGET_SHARED_BUFFERS_MAX), 0);
	CU_ASSERT(refused(CHECK(o.num_shared_buffers = RBLK_TARGET_SHARED_BUFFERS_MAX + 1),
			  "num_shared_buffers", "8..1048576"));
	CU_ASSERT_EQUAL(CHECK(o.kato_check_ms = RBLK_TARGET_KATO_CHECK_MS_MAX), 0);
	CU_ASSERT_EQUAL(CHECK(o.connect_timeout_ms = RBLK_TARGET_CONNECT_TIMEOUT_MS_MIN), 0);
	CU_ASSERT(refused(CHECK(o.connect_timeout_ms = RBLK_TARGET_CONNECT_TIMEOUT_MS_MIN - 1),
			  "connect_timeout_ms", "100..600000"));
	CU_ASSERT(refused(CHECK(o.connect_timeout_ms = RBLK_TARGET_CONNECT_TIMEOUT_MS_MAX + 1),
			  "connect_timeout_ms", "100..600000"));
	CU_ASSERT_EQUAL(CHECK(o.max_pending_per_addr = RBLK_TARGET_PENDING_MAX), 0);
	CU_ASSERT(refused(CHECK(o.max_pending_queues = RBLK_TARGET_PENDING_MAX + 1),
			  "max_pending_queues", "1..65536"));
	CU_ASSERT(refused(CHECK(o.max_ctrls_per_host = RBLK_TARGET_CTRLS_PER_HOST_MAX + 1),
			  "max_ctrls_per_host", "1..65519"));
	CU_ASSERT(refused(CHECK(o.max_queues = RBLK_TARGET_QUEUES_MAX + 1), "max_queues",
			  "2..1048576"));
	CU_ASSERT_EQUAL(CHECK(o.srq_depth = RBLK_TARGET_SRQ_DEPTH_MAX), 0);
	CU_ASSERT(refused(CHECK(o.srq_depth = RBLK_TARGET_SRQ_DEPTH_MAX + 1), "srq_depth",
			  "16..65536"));
}

static const struct ut_case cases[] = {
	UT_CASE(test_defaults_pass),
	UT_CASE(test_in_capsule),
	UT_CASE(test_queue_depths),
	UT_CASE(test_io_sizes),
	UT_CASE(test_pool_holds_one_io),
	UT_CASE(test_kato_and_enums),
	UT_CASE(test_create_refuses),
	UT_CASE(test_public_check),
	UT_CASE(test_public_bounds),
	UT_END,
};

UT_MAIN("target/opts", cases)

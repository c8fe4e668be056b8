/* SPDX-License-Identifier: MIT */
/*
 * Tests for transport/mr_pool.c without a device (pd == NULL): sizing,
 * alignment, get/put order, exhaustion, misuse, io_uring iovecs, hugepages,
 * a registration dropped (rblk_mr_pool_rereg; a new one is io_ut's).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#include "common/log.h"
#include "transport/rdma.h"
#include "ut.h"

static int errors_logged;

static void count_errors(enum rblk_log_level level, const char *msg, void *arg)
{
	(void)msg;
	(void)arg;
	if (level == RBLK_LOG_ERR)
		errors_logged++;
}

static void test_stride_and_bytes_needed(void)
{
	CU_ASSERT_EQUAL(rblk_mr_pool_stride(16), 64);
	CU_ASSERT_EQUAL(rblk_mr_pool_stride(64), 64);
	CU_ASSERT_EQUAL(rblk_mr_pool_stride(100), 128);
	CU_ASSERT_EQUAL(rblk_mr_pool_stride(4096), 4096);
	CU_ASSERT_EQUAL(rblk_mr_pool_stride(5000), 8192);
	CU_ASSERT_EQUAL(rblk_mr_pool_stride(64 + 8192), 12288);	/* capsule + in-capsule data */
	CU_ASSERT_EQUAL(rblk_mr_pool_stride(0), 0);
	CU_ASSERT_EQUAL(rblk_mr_pool_bytes_needed(4096, 10), 40960);
	CU_ASSERT_EQUAL(rblk_mr_pool_bytes_needed(128 << 10, 128), 16u << 20);
	CU_ASSERT_EQUAL(rblk_mr_pool_bytes_needed(100, 3), 4096);	/* whole pages */
	CU_ASSERT_EQUAL(rblk_mr_pool_bytes_needed(4096, 0), 0);
	CU_ASSERT_EQUAL(rblk_mr_pool_bytes_needed(0, 10), 0);
	CU_ASSERT_EQUAL(rblk_mr_pool_bytes_needed(SIZE_MAX / 4, UINT32_MAX), 0);
}

static void test_create_rejects_impossible_sizes(void)
{
	struct rblk_mr_pool *p = (void *)1;

	CU_ASSERT_EQUAL(rblk_mr_pool_create(NULL, 0, 4, 0, &p), -EINVAL);
	CU_ASSERT_PTR_NULL(p);
	CU_ASSERT_EQUAL(rblk_mr_pool_create(NULL, 4096, 0, 0, &p), -EINVAL);
	CU_ASSERT_EQUAL(rblk_mr_pool_create(NULL, SIZE_MAX / 4, UINT32_MAX, 0, &p), -EINVAL);
}

static void test_units_are_distinct_aligned_and_in_order(void)
{
	struct rblk_mr_pool *p;
	uint8_t *u[8];

	CU_ASSERT_EQUAL_FATAL(rblk_mr_pool_create(NULL, 8192, 8, RBLK_ACCESS_LOCAL_WRITE, &p), 0);
	CU_ASSERT_EQUAL(rblk_mr_pool_count(p), 8);
	CU_ASSERT_EQUAL(rblk_mr_pool_free_count(p), 8);
	CU_ASSERT_EQUAL(rblk_mr_pool_unit_size(p), 8192);
	CU_ASSERT_EQUAL(rblk_mr_pool_len(p), 8 * 8192);
	CU_ASSERT_EQUAL(rblk_mr_pool_lkey(p), 0);
	CU_ASSERT_EQUAL(rblk_mr_pool_rkey(p), 0);
	for (int i = 0; i < 8; i++) {
		u[i] = rblk_mr_pool_get(p);
		CU_ASSERT_PTR_NOT_NULL_FATAL(u[i]);
		CU_ASSERT_EQUAL((uintptr_t)u[i] % 4096, 0);
		CU_ASSERT_PTR_EQUAL(u[i], (uint8_t *)rblk_mr_pool_base(p) + i * 8192);
		CU_ASSERT_EQUAL(rblk_mr_pool_index(p, u[i]), (uint32_t)i);
		CU_ASSERT_PTR_EQUAL(rblk_mr_pool_unit(p, (uint32_t)i), u[i]);
		memset(u[i], i, 8192);	/* the memory is really there */
	}
	for (int i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(u[i][8191], i);
	CU_ASSERT_EQUAL(rblk_mr_pool_free_count(p), 0);
	CU_ASSERT_PTR_NULL(rblk_mr_pool_get(p));	/* exhausted: no fallback */
	for (int i = 0; i < 8; i++)
		rblk_mr_pool_put(p, u[i]);
	CU_ASSERT_EQUAL(rblk_mr_pool_free_count(p), 8);
	rblk_mr_pool_destroy(p);
}

static void test_put_then_get_is_lifo(void)
{
	struct rblk_mr_pool *p;
	void *a, *b, *c;

	CU_ASSERT_EQUAL_FATAL(rblk_mr_pool_create(NULL, 64, 3, 0, &p), 0);
	a = rblk_mr_pool_get(p);
	b = rblk_mr_pool_get(p);
	c = rblk_mr_pool_get(p);
	CU_ASSERT_EQUAL((uint8_t *)b - (uint8_t *)a, 64);
	rblk_mr_pool_put(p, a);
	rblk_mr_pool_put(p, c);
	/* The unit returned last is handed out first: it is the warm one. */
	CU_ASSERT_PTR_EQUAL(rblk_mr_pool_get(p), c);
	CU_ASSERT_PTR_EQUAL(rblk_mr_pool_get(p), a);
	CU_ASSERT_PTR_NULL(rblk_mr_pool_get(p));
	rblk_mr_pool_put(p, a);
	rblk_mr_pool_put(p, b);
	rblk_mr_pool_put(p, c);
	rblk_mr_pool_destroy(p);
}

static void test_index_of_interior_and_foreign_addresses(void)
{
	struct rblk_mr_pool *p;
	uint8_t *u;
	int x;

	CU_ASSERT_EQUAL_FATAL(rblk_mr_pool_create(NULL, 5000, 4, 0, &p), 0);	/* stride 8192 */
	u = rblk_mr_pool_unit(p, 2);
	CU_ASSERT_EQUAL(rblk_mr_pool_index(p, u + 4999), 2);
	CU_ASSERT_EQUAL(rblk_mr_pool_index(p, u + 8192), 3);
	CU_ASSERT_EQUAL(rblk_mr_pool_index(p, u + 3 * 8192), UINT32_MAX);
	CU_ASSERT_EQUAL(rblk_mr_pool_index(p, &x), UINT32_MAX);
	CU_ASSERT_PTR_NULL(rblk_mr_pool_unit(p, 4));
	rblk_mr_pool_destroy(p);
}

static void test_bad_puts_are_refused_and_logged(void)
{
	struct rblk_mr_pool *p;
	uint8_t *a;
	int x;

	rblk_log_set_handler(count_errors, NULL);
	errors_logged = 0;
	CU_ASSERT_EQUAL_FATAL(rblk_mr_pool_create(NULL, 4096, 2, 0, &p), 0);
	a = rblk_mr_pool_get(p);
	rblk_mr_pool_put(p, a);
	rblk_mr_pool_put(p, a);		/* double put */
	rblk_mr_pool_put(p, &x);	/* not ours */
	rblk_mr_pool_put(p, rblk_mr_pool_unit(p, 1));	/* ours but never handed out */
	a = rblk_mr_pool_get(p);
	rblk_mr_pool_put(p, a + 1);	/* inside a unit, not its start */
	CU_ASSERT_EQUAL(errors_logged, 4);
	CU_ASSERT_EQUAL(rblk_mr_pool_free_count(p), 1);
	rblk_mr_pool_put(p, a);
	CU_ASSERT_EQUAL(rblk_mr_pool_free_count(p), 2);
	/* Two gets must still return two different units. */
	CU_ASSERT_PTR_NOT_EQUAL(rblk_mr_pool_get(p), rblk_mr_pool_get(p));
	rblk_mr_pool_destroy(p);
	rblk_log_set_handler(NULL, NULL);
}

static void test_iovecs_for_io_uring(void)
{
	struct rblk_mr_pool *p;
	struct iovec iov[4];

	CU_ASSERT_EQUAL_FATAL(rblk_mr_pool_create(NULL, 12000, 4, 0, &p), 0);
	CU_ASSERT_EQUAL(rblk_mr_pool_iovecs(p, iov, 3), -EINVAL);
	CU_ASSERT_EQUAL(rblk_mr_pool_iovecs(p, iov, 4), 4);
	for (uint32_t i = 0; i < 4; i++) {
		CU_ASSERT_PTR_EQUAL(iov[i].iov_base, rblk_mr_pool_unit(p, i));
		CU_ASSERT_EQUAL(iov[i].iov_len, 12000);
		CU_ASSERT_EQUAL(rblk_mr_pool_index(p, iov[i].iov_base), i);
	}
	rblk_mr_pool_destroy(p);
}

static void test_large_pools_and_hugepages(void)
{
	struct rblk_mr_pool *p;
	uint8_t *u;

	CU_ASSERT_EQUAL_FATAL(rblk_mr_pool_create_ex(NULL, 128 << 10, 32, 0, RBLK_MR_POOL_NO_HUGETLB,
						     &p), 0);
	CU_ASSERT_FALSE(rblk_mr_pool_hugetlb(p));
	CU_ASSERT_EQUAL(rblk_mr_pool_len(p), 4u << 20);
	u = rblk_mr_pool_unit(p, 31);
	memset(u, 0xa5, 128 << 10);
	CU_ASSERT_EQUAL(u[(128 << 10) - 1], 0xa5);
	rblk_mr_pool_destroy(p);

	/* With reserved hugepages the base is 2 MiB aligned; without, it still works. */
	CU_ASSERT_EQUAL_FATAL(rblk_mr_pool_create(NULL, 128 << 10, 32, 0, &p), 0);
	if (rblk_mr_pool_hugetlb(p))
		CU_ASSERT_EQUAL((uintptr_t)rblk_mr_pool_base(p) % (2u << 20), 0);
	u = rblk_mr_pool_get(p);
	memset(u, 1, 128 << 10);
	rblk_mr_pool_put(p, u);
	rblk_mr_pool_destroy(p);
	rblk_mr_pool_destroy(NULL);
}

/* Dropping a registration keeps the memory, the units out and their data. */
static void test_rereg_keeps_memory(void)
{
	struct rblk_mr_pool *pool;
	uint8_t *a, *b;

	CU_ASSERT_EQUAL_FATAL(rblk_mr_pool_create(NULL, 4096, 4, 0, &pool), 0);
	CU_ASSERT_FALSE(rblk_mr_pool_registered(pool));
	a = rblk_mr_pool_get(pool);
	memset(a, 0xA5, 4096);
	CU_ASSERT_EQUAL(rblk_mr_pool_rereg(pool, NULL), 0);
	CU_ASSERT_FALSE(rblk_mr_pool_registered(pool));
	CU_ASSERT_EQUAL(rblk_mr_pool_lkey(pool), 0);
	CU_ASSERT_EQUAL(rblk_mr_pool_rkey(pool), 0);
	CU_ASSERT_EQUAL(rblk_mr_pool_free_count(pool), 3);
	CU_ASSERT_EQUAL(a[0], 0xA5);
	CU_ASSERT_EQUAL(a[4095], 0xA5);
	b = rblk_mr_pool_get(pool);
	CU_ASSERT_PTR_NOT_NULL(b);
	CU_ASSERT_PTR_NOT_EQUAL(a, b);
	rblk_mr_pool_put(pool, a);
	rblk_mr_pool_put(pool, b);
	rblk_mr_pool_destroy(pool);
}

static const struct ut_case cases[] = {
	UT_CASE(test_stride_and_bytes_needed),
	UT_CASE(test_create_rejects_impossible_sizes),
	UT_CASE(test_units_are_distinct_aligned_and_in_order),
	UT_CASE(test_put_then_get_is_lifo),
	UT_CASE(test_index_of_interior_and_foreign_addresses),
	UT_CASE(test_bad_puts_are_refused_and_logged),
	UT_CASE(test_iovecs_for_io_uring),
	UT_CASE(test_large_pools_and_hugepages),
	UT_CASE(test_rereg_keeps_memory),
	UT_END,
};

UT_MAIN("transport/mr_pool", cases)

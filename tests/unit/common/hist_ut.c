/* SPDX-License-Identifier: MIT */
/* Tests for common/hist.c: buckets, percentiles, merging. */
#include <stdlib.h>
#include <string.h>

#include "common/hist.h"
#include "ut.h"

static void test_buckets_are_contiguous(void)
{
	/* every bucket starts right after the previous one ends, up to 2^64 - 1 */
	CU_ASSERT_EQUAL(rblk_hist_lower(0), 0);
	for (unsigned i = 1; i < RBLK_HIST_BUCKETS; i++)
		CU_ASSERT_EQUAL_FATAL(rblk_hist_lower(i), rblk_hist_upper(i - 1) + 1);
	CU_ASSERT_EQUAL(rblk_hist_upper(RBLK_HIST_BUCKETS - 1), UINT64_MAX);
}

static void test_index_matches_bounds(void)
{
	static const uint64_t v[] = { 0, 1, 63, 64, 65, 127, 128, 129, 1000, 4095, 4096, 123456789,
				      1ULL << 40, (1ULL << 63) + 5, UINT64_MAX };

	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		unsigned i = rblk_hist_index(v[k]);

		CU_ASSERT_TRUE_FATAL(i < RBLK_HIST_BUCKETS);
		CU_ASSERT_TRUE(rblk_hist_lower(i) <= v[k]);
		CU_ASSERT_TRUE(rblk_hist_upper(i) >= v[k]);
	}
	/* exact below 64; 1/32 resolution above */
	CU_ASSERT_EQUAL(rblk_hist_index(63), 63);
	CU_ASSERT_EQUAL(rblk_hist_upper(rblk_hist_index(1000)) - rblk_hist_lower(rblk_hist_index(1000)), 15);
}

static void test_percentiles_small_values_exact(void)
{
	struct rblk_hist h;

	rblk_hist_init(&h);
	for (uint64_t v = 1; v <= 50; v++)
		rblk_hist_add(&h, v);
	CU_ASSERT_EQUAL(h.count, 50);
	CU_ASSERT_EQUAL(h.min, 1);
	CU_ASSERT_EQUAL(h.max, 50);
	CU_ASSERT_EQUAL(rblk_hist_pct(&h, 50), 25);
	CU_ASSERT_EQUAL(rblk_hist_pct(&h, 99), 50);
	CU_ASSERT_EQUAL(rblk_hist_pct(&h, 2), 1);
	CU_ASSERT_EQUAL(rblk_hist_pct(&h, 100), 50);
	CU_ASSERT_DOUBLE_EQUAL(rblk_hist_mean(&h), 25.5, 1e-9);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_percentiles_within_resolution(void)
{
	enum { N = 20000 };
	static const double pct[] = { 1, 50, 90, 99, 99.9, 99.99 };
	uint64_t *v = malloc(N * sizeof(*v)), seed = 12345;
	struct rblk_hist h;

	rblk_hist_init(&h);
	for (int i = 0; i < N; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		/* a long tail: 1 us .. ~1 s */
		v[i] = 1000 + (seed >> 33) % 1000 * (1 + (seed >> 20) % 1000);
		rblk_hist_add(&h, v[i]);
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	for (size_t k = 0; k < sizeof(pct) / sizeof(pct[0]); k++) {
		uint64_t rank = (uint64_t)((pct[k] / 100.0) * N + 0.999999);
		uint64_t exact = v[rank - 1], got = rblk_hist_pct(&h, pct[k]);
		double err = (double)(got > exact ? got - exact : exact - got) / (double)exact;

		CU_ASSERT_TRUE(err <= 1.0 / 32);
	}
	free(v);
}

static void test_merge_and_empty(void)
{
	struct rblk_hist a, b;

	rblk_hist_init(&a);
	rblk_hist_init(&b);
	CU_ASSERT_EQUAL(rblk_hist_pct(&a, 50), 0);
	CU_ASSERT_DOUBLE_EQUAL(rblk_hist_mean(&a), 0, 1e-9);
	rblk_hist_add(&a, 10);
	rblk_hist_add(&b, 5000);
	rblk_hist_add(&b, 7);
	rblk_hist_merge(&a, &b);
	CU_ASSERT_EQUAL(a.count, 3);
	CU_ASSERT_EQUAL(a.min, 7);
	CU_ASSERT_EQUAL(a.max, 5000);
	CU_ASSERT_EQUAL(a.sum, 5017);
	CU_ASSERT_EQUAL(rblk_hist_pct(&a, 100), 5000);	/* clamped to the real max */
}

static const struct ut_case cases[] = {
	UT_CASE(test_buckets_are_contiguous),
	UT_CASE(test_index_matches_bounds),
	UT_CASE(test_percentiles_small_values_exact),
	UT_CASE(test_percentiles_within_resolution),
	UT_CASE(test_merge_and_empty),
	UT_END
};

UT_MAIN("common/hist", cases)

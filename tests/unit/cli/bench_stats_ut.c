/* SPDX-License-Identifier: MIT */
/* Tests for cli/bench_stats.c: histogram buckets, percentiles, log2 summary, verify pattern. */
#include <stdlib.h>
#include <string.h>

#include "cli/bench.h"
#include "ut.h"

static void test_buckets_are_contiguous(void)
{
	/* every bucket starts right after the previous one ends, up to 2^64 - 1 */
	CU_ASSERT_EQUAL(rblk_cli_hist_lower(0), 0);
	for (unsigned i = 1; i < CLI_HIST_BUCKETS; i++)
		CU_ASSERT_EQUAL_FATAL(rblk_cli_hist_lower(i), rblk_cli_hist_upper(i - 1) + 1);
	CU_ASSERT_EQUAL(rblk_cli_hist_upper(CLI_HIST_BUCKETS - 1), UINT64_MAX);
}

static void test_index_matches_bounds(void)
{
	static const uint64_t v[] = { 0, 1, 63, 64, 65, 127, 128, 129, 1000, 4095, 4096, 123456789,
				      1ULL << 40, (1ULL << 63) + 5, UINT64_MAX };

	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		unsigned i = rblk_cli_hist_index(v[k]);

		CU_ASSERT_TRUE_FATAL(i < CLI_HIST_BUCKETS);
		CU_ASSERT_TRUE(rblk_cli_hist_lower(i) <= v[k]);
		CU_ASSERT_TRUE(rblk_cli_hist_upper(i) >= v[k]);
	}
	/* exact below 64; 1/32 resolution above */
	CU_ASSERT_EQUAL(rblk_cli_hist_index(63), 63);
	CU_ASSERT_EQUAL(rblk_cli_hist_upper(rblk_cli_hist_index(1000)) - rblk_cli_hist_lower(rblk_cli_hist_index(1000)), 15);
}

static void test_percentiles_small_values_exact(void)
{
	struct cli_hist h;

	rblk_cli_hist_init(&h);
	for (uint64_t v = 1; v <= 50; v++)
		rblk_cli_hist_add(&h, v);
	CU_ASSERT_EQUAL(h.count, 50);
	CU_ASSERT_EQUAL(h.min, 1);
	CU_ASSERT_EQUAL(h.max, 50);
	CU_ASSERT_EQUAL(rblk_cli_hist_pct(&h, 50), 25);
	CU_ASSERT_EQUAL(rblk_cli_hist_pct(&h, 99), 50);
	CU_ASSERT_EQUAL(rblk_cli_hist_pct(&h, 2), 1);
	CU_ASSERT_EQUAL(rblk_cli_hist_pct(&h, 100), 50);
	CU_ASSERT_DOUBLE_EQUAL(rblk_cli_hist_mean(&h), 25.5, 1e-9);
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
	struct cli_hist h;

	rblk_cli_hist_init(&h);
	for (int i = 0; i < N; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		/* a long tail: 1 us .. ~1 s */
		v[i] = 1000 + (seed >> 33) % 1000 * (1 + (seed >> 20) % 1000);
		rblk_cli_hist_add(&h, v[i]);
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	for (size_t k = 0; k < sizeof(pct) / sizeof(pct[0]); k++) {
		uint64_t rank = (uint64_t)((pct[k] / 100.0) * N + 0.999999);
		uint64_t exact = v[rank - 1], got = rblk_cli_hist_pct(&h, pct[k]);
		double err = (double)(got > exact ? got - exact : exact - got) / (double)exact;

		CU_ASSERT_TRUE(err <= 1.0 / 32);
	}
	free(v);
}

static void test_merge_and_empty(void)
{
	struct cli_hist a, b;

	rblk_cli_hist_init(&a);
	rblk_cli_hist_init(&b);
	CU_ASSERT_EQUAL(rblk_cli_hist_pct(&a, 50), 0);
	CU_ASSERT_DOUBLE_EQUAL(rblk_cli_hist_mean(&a), 0, 1e-9);
	rblk_cli_hist_add(&a, 10);
	rblk_cli_hist_add(&b, 5000);
	rblk_cli_hist_add(&b, 7);
	rblk_cli_hist_merge(&a, &b);
	CU_ASSERT_EQUAL(a.count, 3);
	CU_ASSERT_EQUAL(a.min, 7);
	CU_ASSERT_EQUAL(a.max, 5000);
	CU_ASSERT_EQUAL(a.sum, 5017);
	CU_ASSERT_EQUAL(rblk_cli_hist_pct(&a, 100), 5000);	/* clamped to the real max */
}

static void test_log2_rows(void)
{
	struct cli_hist h;
	uint64_t l2[64];
	struct json_object *a, *r, *v;
	char *out = NULL;
	size_t len;
	FILE *f;

	rblk_cli_hist_init(&h);
	rblk_cli_hist_add(&h, 0);
	rblk_cli_hist_add(&h, 1500);	/* [1024, 2048) */
	rblk_cli_hist_add(&h, 2047);
	rblk_cli_hist_add(&h, 3000000);	/* [2^21, 2^22) */
	rblk_cli_hist_log2(&h, l2);
	CU_ASSERT_EQUAL(l2[0], 1);
	CU_ASSERT_EQUAL(l2[10], 2);
	CU_ASSERT_EQUAL(l2[21], 1);
	a = rblk_cli_hist_log2_json(&h);
	CU_ASSERT_EQUAL(json_object_array_length(a), 3);
	r = json_object_array_get_idx(a, 1);
	CU_ASSERT_TRUE(json_object_object_get_ex(r, "from_us", &v));
	CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(v), 1.024, 1e-9);
	CU_ASSERT_TRUE(json_object_object_get_ex(r, "count", &v));
	CU_ASSERT_EQUAL(json_object_get_int(v), 2);
	CU_ASSERT_TRUE(json_object_object_get_ex(r, "pct", &v));
	CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(v), 50.0, 1e-9);
	json_object_put(a);
	f = open_memstream(&out, &len);
	rblk_cli_hist_print(f, &h, "  ");
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "  [    1.0,     2.0) us          2  50.00% ####"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "[ 2097.2,  4194.3) us          1  25.00% ####################\n"));
	free(out);
}

static void test_hist_json_in_us(void)
{
	struct cli_hist h;
	struct json_object *o, *v;

	rblk_cli_hist_init(&h);
	for (int i = 0; i < 100; i++)
		rblk_cli_hist_add(&h, 10000);	/* 10 us */
	o = rblk_cli_hist_json(&h);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "avg", &v));
	CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(v), 10.0, 1e-9);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "p99.9", &v));
	CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(v), 10.0, 1e-9);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "min", &v));
	CU_ASSERT_DOUBLE_EQUAL(json_object_get_double(v), 10.0, 1e-9);
	json_object_put(o);
}

static void test_pattern(void)
{
	uint64_t a[512], b[512];

	rblk_cli_pattern_fill(a, 4096, sizeof(a), 1);
	CU_ASSERT_EQUAL(rblk_cli_pattern_check(a, 4096, sizeof(a), 1), sizeof(a));
	/* another offset, another seed: different data */
	CU_ASSERT_EQUAL(rblk_cli_pattern_check(a, 8192, sizeof(a), 1), 0);
	CU_ASSERT_EQUAL(rblk_cli_pattern_check(a, 4096, sizeof(a), 2), 0);
	/* the same bytes whichever chunk writes them */
	rblk_cli_pattern_fill(b, 4096 + 2048, 2048, 1);
	CU_ASSERT_EQUAL(memcmp(&a[256], b, 2048), 0);
	((uint8_t *)a)[1000] ^= 1;
	CU_ASSERT_EQUAL(rblk_cli_pattern_check(a, 4096, sizeof(a), 1), 1000 / 8 * 8);
}

static const struct ut_case cases[] = {
	UT_CASE(test_buckets_are_contiguous),
	UT_CASE(test_index_matches_bounds),
	UT_CASE(test_percentiles_small_values_exact),
	UT_CASE(test_percentiles_within_resolution),
	UT_CASE(test_merge_and_empty),
	UT_CASE(test_log2_rows),
	UT_CASE(test_hist_json_in_us),
	UT_CASE(test_pattern),
	UT_END,
};

UT_MAIN("cli/bench_stats", cases)

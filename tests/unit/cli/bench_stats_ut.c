/* SPDX-License-Identifier: MIT */
/* Tests for cli/bench_stats.c: the histogram's log2 rows and JSON as shown, the verify pattern. */
#include <stdlib.h>
#include <string.h>

#include "cli/bench.h"
#include "ut.h"

static void test_log2_rows(void)
{
	struct rblk_hist h;
	uint64_t l2[64];
	struct json_object *a, *r, *v;
	char *out = NULL;
	size_t len;
	FILE *f;

	rblk_hist_init(&h);
	rblk_hist_add(&h, 0);
	rblk_hist_add(&h, 1500);	/* [1024, 2048) */
	rblk_hist_add(&h, 2047);
	rblk_hist_add(&h, 3000000);	/* [2^21, 2^22) */
	rblk_hist_log2(&h, l2);
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
	struct rblk_hist h;
	struct json_object *o, *v;

	rblk_hist_init(&h);
	for (int i = 0; i < 100; i++)
		rblk_hist_add(&h, 10000);	/* 10 us */
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
	UT_CASE(test_log2_rows),
	UT_CASE(test_hist_json_in_us),
	UT_CASE(test_pattern),
	UT_END,
};

UT_MAIN("cli/bench_stats", cases)

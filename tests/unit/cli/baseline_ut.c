/* SPDX-License-Identifier: MIT */
/* Tests for cli/baseline.c: figures, thresholds, save/load. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/bench.h"
#include "ut.h"

static void figures(struct cli_figures *fs, double iops, double lat)
{
	rblk_cli_figures_init(fs);
	rblk_cli_figures_add(fs, "randread.read.iops", iops, "IO/s", CLI_HIGHER_IS_BETTER);
	rblk_cli_figures_add(fs, "randread.read.lat_avg_us", lat, "us", CLI_LOWER_IS_BETTER);
}

static void test_add_find_grow(void)
{
	struct cli_figures fs;
	char n[32];

	rblk_cli_figures_init(&fs);
	for (int i = 0; i < 100; i++) {
		snprintf(n, sizeof(n), "f%d", i);
		CU_ASSERT_EQUAL(rblk_cli_figures_add(&fs, n, i, "x", CLI_HIGHER_IS_BETTER), 0);
	}
	CU_ASSERT_EQUAL(fs.n, 100);
	CU_ASSERT_PTR_NOT_NULL(rblk_cli_figures_find(&fs, "f77"));
	CU_ASSERT_DOUBLE_EQUAL(rblk_cli_figures_find(&fs, "f77")->value, 77, 1e-9);
	CU_ASSERT_PTR_NULL(rblk_cli_figures_find(&fs, "f100"));
	rblk_cli_figures_free(&fs);
}

static void test_threshold_both_directions(void)
{
	struct cli_figures base, cur;
	struct cli_delta d[4];
	unsigned n, worse;

	figures(&base, 1000, 100);
	/* 9% fewer IOPS: within 10%; 20% more latency: worse */
	figures(&cur, 910, 120);
	worse = rblk_cli_baseline_compare(&base, &cur, 10, d, &n);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(worse, 1);
	CU_ASSERT_FALSE(d[0].flagged);
	CU_ASSERT_DOUBLE_EQUAL(d[0].change_pct, -9.0, 1e-9);
	CU_ASSERT_TRUE(d[1].flagged);
	CU_ASSERT_TRUE(d[1].worse);
	CU_ASSERT_DOUBLE_EQUAL(d[1].change_pct, 20.0, 1e-9);
	rblk_cli_figures_free(&cur);

	/* better beyond the threshold: flagged, not worse */
	figures(&cur, 1200, 50);
	worse = rblk_cli_baseline_compare(&base, &cur, 10, d, &n);
	CU_ASSERT_EQUAL(worse, 0);
	CU_ASSERT_TRUE(d[0].flagged);
	CU_ASSERT_FALSE(d[0].worse);
	CU_ASSERT_TRUE(d[1].flagged);
	CU_ASSERT_FALSE(d[1].worse);
	rblk_cli_figures_free(&cur);

	/* exactly at the threshold is not beyond it; a custom threshold */
	figures(&cur, 900, 100);
	CU_ASSERT_EQUAL(rblk_cli_baseline_compare(&base, &cur, 10, d, &n), 0);
	CU_ASSERT_EQUAL(rblk_cli_baseline_compare(&base, &cur, 5, d, &n), 1);
	rblk_cli_figures_free(&cur);
	rblk_cli_figures_free(&base);
}

static void test_zero_base_and_missing(void)
{
	struct cli_figures base, cur;
	struct cli_delta d[4];
	unsigned n;

	rblk_cli_figures_init(&base);
	rblk_cli_figures_add(&base, "a", 0, "", CLI_LOWER_IS_BETTER);
	rblk_cli_figures_add(&base, "only-base", 1, "", CLI_HIGHER_IS_BETTER);
	rblk_cli_figures_init(&cur);
	rblk_cli_figures_add(&cur, "a", 3, "", CLI_LOWER_IS_BETTER);
	rblk_cli_figures_add(&cur, "only-cur", 1, "", CLI_HIGHER_IS_BETTER);
	CU_ASSERT_EQUAL(rblk_cli_baseline_compare(&base, &cur, 10, d, &n), 1);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_TRUE(isinf(d[0].change_pct));
	rblk_cli_figures_free(&cur);
	rblk_cli_figures_free(&base);
}

static void test_save_load_round_trip(void)
{
	char path[] = "/tmp/rblk-baseline-XXXXXX";
	struct json_object *params = json_object_new_object(), *p2 = NULL, *v;
	struct cli_figures fs, back;
	char why[128];
	int fd = mkstemp(path);

	close(fd);
	json_object_object_add(params, "rw", json_object_new_string("randread"));
	figures(&fs, 12345.5, 80.25);
	CU_ASSERT_EQUAL(rblk_cli_baseline_save(path, &fs, params), 0);
	CU_ASSERT_EQUAL(rblk_cli_baseline_load(path, &back, &p2, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(back.n, 2);
	CU_ASSERT_DOUBLE_EQUAL(rblk_cli_figures_find(&back, "randread.read.iops")->value, 12345.5, 1e-6);
	CU_ASSERT_EQUAL(rblk_cli_figures_find(&back, "randread.read.lat_avg_us")->better, CLI_LOWER_IS_BETTER);
	CU_ASSERT_STRING_EQUAL(rblk_cli_figures_find(&back, "randread.read.lat_avg_us")->unit, "us");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p2);
	CU_ASSERT_TRUE(json_object_object_get_ex(p2, "rw", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "randread");
	json_object_put(p2);
	json_object_put(params);
	rblk_cli_figures_free(&fs);
	rblk_cli_figures_free(&back);
	unlink(path);
}

static void test_load_errors(void)
{
	char path[] = "/tmp/rblk-baseline-XXXXXX";
	struct cli_figures fs;
	char why[128];
	int fd = mkstemp(path);
	FILE *f;

	close(fd);
	CU_ASSERT_EQUAL(rblk_cli_baseline_load("/nonexistent/base.json", &fs, NULL, why, sizeof(why)), -ENOENT);
	f = fopen(path, "w");
	fputs("{\"figures\": {}}", f);
	fclose(f);
	CU_ASSERT_EQUAL(rblk_cli_baseline_load(path, &fs, NULL, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "not an rblk bench baseline"));
	f = fopen(path, "w");
	fputs("{\"rblk_bench_baseline\": 1, \"figures\": {\"x\": {\"value\": \"fast\"}}}", f);
	fclose(f);
	CU_ASSERT_EQUAL(rblk_cli_baseline_load(path, &fs, NULL, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "figure \"x\""));
	f = fopen(path, "w");
	fputs("not json", f);
	fclose(f);
	CU_ASSERT_EQUAL(rblk_cli_baseline_load(path, &fs, NULL, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(fs.n, 0);
	unlink(path);
}

static void test_compare_output(void)
{
	struct cli_figures base, cur;
	struct cli_delta d[4];
	struct json_object *o, *v;
	char *out = NULL;
	size_t len;
	unsigned n;
	FILE *f;

	figures(&base, 1000, 100);
	figures(&cur, 800, 100);
	rblk_cli_baseline_compare(&base, &cur, 10, d, &n);
	f = open_memstream(&out, &len);
	rblk_cli_baseline_print(f, d, n, 10);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "randread.read.iops"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "-20.0% <-- WORSE"));
	o = rblk_cli_baseline_compare_json(d, n, 10, "b.json");
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "worse", &v));
	CU_ASSERT_EQUAL(json_object_get_int(v), 1);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "flagged", &v));
	CU_ASSERT_EQUAL(json_object_get_int(v), 1);
	json_object_put(o);
	free(out);
	rblk_cli_figures_free(&cur);
	rblk_cli_figures_free(&base);
}

static const struct ut_case cases[] = {
	UT_CASE(test_add_find_grow),
	UT_CASE(test_threshold_both_directions),
	UT_CASE(test_zero_base_and_missing),
	UT_CASE(test_save_load_round_trip),
	UT_CASE(test_load_errors),
	UT_CASE(test_compare_output),
	UT_END,
};

UT_MAIN("cli/baseline", cases)

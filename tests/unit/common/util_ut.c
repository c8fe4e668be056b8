/* SPDX-License-Identifier: MIT */
/* Tests for common/util.h. */
#include <stdint.h>
#include <stdlib.h>

#include "common/util.h"
#include "ut.h"

struct outer {
	uint8_t pad[3];
	uint64_t tag;
	int member;
};

static void test_container_of_finds_the_outer_object(void)
{
	struct outer o;

	CU_ASSERT_PTR_EQUAL(rblk_container_of(&o.member, struct outer, member), &o);
	CU_ASSERT_PTR_EQUAL(rblk_container_of(&o.tag, struct outer, tag), &o);
	CU_ASSERT_PTR_EQUAL(rblk_container_of(&o.pad[0], struct outer, pad), &o);
}

/* Whole lines of its own: aligned, zeroed, and padded so nothing else shares the last. */
static void test_calloc_lines_gives_whole_zeroed_lines(void)
{
	static const size_t sizes[][2] = { { 1, 1 }, { 1, 63 }, { 1, 64 }, { 1, 65 },
					   { 3, 904 }, { 128, 1032 } };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i][0], size = sizes[i][1];
		size_t padded = (n * size + RBLK_CACHE_LINE - 1) / RBLK_CACHE_LINE * RBLK_CACHE_LINE;
		unsigned char *p = rblk_calloc_lines(n, size);

		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		CU_ASSERT_EQUAL((uintptr_t)p % RBLK_CACHE_LINE, 0);
		/* The padding is the allocation's: writing all of it is legal (ASan says so). */
		size_t nonzero = 0;

		for (size_t b = 0; b < padded; b++)
			nonzero += p[b] != 0;
		CU_ASSERT_EQUAL(nonzero, 0);
		p[padded - 1] = 1;
		free(p);
	}
}

static void test_calloc_lines_refuses_overflow(void)
{
	void *p = rblk_calloc_lines(0, 8);

	/* Zero bytes still give a line, as calloc may give a unique pointer. */
	CU_ASSERT_PTR_NOT_NULL(p);
	free(p);
	CU_ASSERT_PTR_NULL(rblk_calloc_lines(SIZE_MAX / 2, 4));
	CU_ASSERT_PTR_NULL(rblk_calloc_lines(1, SIZE_MAX - 10));
}

static const struct ut_case cases[] = {
	UT_CASE(test_container_of_finds_the_outer_object),
	UT_CASE(test_calloc_lines_gives_whole_zeroed_lines),
	UT_CASE(test_calloc_lines_refuses_overflow),
	UT_END
};

UT_MAIN("common/util", cases)

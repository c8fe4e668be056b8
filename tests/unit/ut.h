/* SPDX-License-Identifier: MIT */
/*
 * A few lines over CUnit so each test program is a table of cases and a
 * UT_MAIN(). Programs exit 0 when every assertion held, 1 otherwise, and 77
 * (CTest's skip code) when the test cannot run on this machine.
 *
 * A case whose environment is legitimately optional (a loop device needs
 * root, io_uring may be disabled) calls ut_skip(why) and returns: the program
 * then exits 77 unless something failed, so CTest reports it as skipped with
 * the reasons printed, never as a silent pass (scripts/test.sh fails a skip in
 * CI unless tests/skip-allowed.list allows it). A case whose environment
 * should always be there fails instead.
 */
#ifndef RBLK_UT_H
#define RBLK_UT_H

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>

#define UT_SKIP 77

static unsigned ut_skipped;

/* The running case cannot test anything here: say why (see above). */
static inline void ut_skip(const char *why)
{
	CU_pTest t = CU_get_current_test();

	printf("\n  SKIP %s: %s\n", t ? t->pName : "?", why);
	ut_skipped++;
}

struct ut_case {
	const char *name;
	void (*fn)(void);
};

#define UT_CASE(f) { #f, f }
#define UT_END { NULL, NULL }

static inline int ut_run(const char *suite_name, const struct ut_case *cases,
			 int (*init)(void), int (*fini)(void))
{
	CU_pSuite suite;
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	suite = CU_add_suite(suite_name, init, fini);
	if (!suite) {
		CU_cleanup_registry();
		return 1;
	}
	for (const struct ut_case *c = cases; c->name; c++) {
		if (!CU_add_test(suite, c->name, c->fn)) {
			CU_cleanup_registry();
			return 1;
		}
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	if (failed)
		return 1;
	if (ut_skipped) {
		printf("%u case(s) skipped (SKIP lines above): exit %d\n", ut_skipped, UT_SKIP);
		return UT_SKIP;
	}
	return 0;
}

#define UT_MAIN(suite, cases) \
	int main(void) { return ut_run((suite), (cases), NULL, NULL); }
#define UT_MAIN_INIT(suite, cases, init, fini) \
	int main(void) { return ut_run((suite), (cases), (init), (fini)); }

#endif

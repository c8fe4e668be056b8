/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/names.c through its public face (rblk/target.h): the NQN
 * policy with its reasons and its once-per-name warning, the generated
 * namespace identifiers, and nvmet's names of the ANA states.
 */
#include <errno.h>
#include <string.h>

#include <rblk/target.h>

#include "target/core.h"
#include "ut.h"

static unsigned nr_warn;
static char last_warn[512];

static void capture(enum rblk_log_level level, const char *msg, void *arg)
{
	(void)arg;
	if (level != RBLK_LOG_WARN)
		return;
	nr_warn++;
	snprintf(last_warn, sizeof(last_warn), "%s", msg);
}

static int check(const char *nqn, const char *where, char *why, size_t len)
{
	nr_warn = 0;
	last_warn[0] = '\0';
	return rblk_nqn_check(nqn, where, why, len);
}

static void test_nqn_reasons(void)
{
	char why[128], big[226];

	CU_ASSERT_EQUAL(check(NULL, "w", why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "is missing");
	CU_ASSERT_EQUAL(check("", "w", why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "is empty");
	CU_ASSERT_EQUAL(check("nqn.2014-08.org.example:a b", "w", why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "contains a space");
	CU_ASSERT_EQUAL(check("nqn.2014-08.org.example:\x01", "w", why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "contains control characters");
	CU_ASSERT_EQUAL(check("nqn.2014-08.org.example:\xc3\xa9", "w", why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "contains a byte that is not ASCII (0xc3)");
	memset(big, 'a', 223);
	big[223] = '\0';
	CU_ASSERT_EQUAL(check(big, NULL, why, sizeof(why)), 0);
	big[223] = 'a';
	big[224] = '\0';
	CU_ASSERT_EQUAL(check(big, "w", why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "is 224 bytes long (at most 223)");
	/* A refused name is not warned about as well. */
	CU_ASSERT_EQUAL(nr_warn, 0);
}

/* nvmet accepts "testnqn": so does rblk, with one warning per name and process. */
static void test_nqn_form_warned_once(void)
{
	char why[128];

	CU_ASSERT_EQUAL(check("nqn.2014-08.org.example:disk0", "w", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(nr_warn, 0);
	/* No place to name: no warning, and the name is not marked as warned. */
	CU_ASSERT_EQUAL(check("names-ut-a", NULL, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(nr_warn, 0);
	CU_ASSERT_EQUAL(check("names-ut-a", "subsystems[0].nqn", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(nr_warn, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(last_warn, "subsystems[0].nqn: \"names-ut-a\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(last_warn, "does not start with \"nqn.\""));
	CU_ASSERT_EQUAL(check("names-ut-a", "hosts[1].nqn", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(nr_warn, 0);
	/* The library's own warning for the name is the same one. */
	CU_ASSERT_FALSE(rblk_tgt_nqn_warn_form("subsystem", "names-ut-a"));
	CU_ASSERT_EQUAL(nr_warn, 0);
	CU_ASSERT_EQUAL(check("names-ut-b", "--subsystem", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(nr_warn, 1);
}

static void test_ns_gen_ids(void)
{
	uint8_t u1[16], n1[16], u2[16], n2[16], u3[16], n3[16];
	const char *a = "nqn.2014-08.org.example:a", *b = "nqn.2014-08.org.example:b";

	rblk_ns_gen_ids(a, 1, u1, n1);
	rblk_ns_gen_ids(a, 1, u2, n2);
	CU_ASSERT_EQUAL(memcmp(u1, u2, 16), 0);
	CU_ASSERT_EQUAL(memcmp(n1, n2, 16), 0);
	/* What a namespace added without identifiers gets (ns_ut.c checks that side). */
	rblk_gen_uuid(a, 1, u3);
	rblk_gen_nguid(a, 1, n3);
	CU_ASSERT_EQUAL(memcmp(u1, u3, 16), 0);
	CU_ASSERT_EQUAL(memcmp(n1, n3, 16), 0);
	rblk_ns_gen_ids(a, 2, u2, n2);
	rblk_ns_gen_ids(b, 1, u3, n3);
	CU_ASSERT_NOT_EQUAL(memcmp(u1, u2, 16), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(n1, n2, 16), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(u1, u3, 16), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(n1, n3, 16), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(u1, n1, 16), 0);
	/* RFC 9562: version 8 in the high nibble of byte 6, variant 10 in byte 8. */
	CU_ASSERT_EQUAL(u1[6] >> 4, 8);
	CU_ASSERT_EQUAL(u1[8] >> 6, 2);
}

static void test_ana_state_names(void)
{
	static const struct {
		enum rblk_ana_state state;
		const char *name;
	} nvmet[] = {
		{ RBLK_ANA_OPTIMIZED, "optimized" },
		{ RBLK_ANA_NON_OPTIMIZED, "non-optimized" },
		{ RBLK_ANA_INACCESSIBLE, "inaccessible" },
		{ RBLK_ANA_PERSISTENT_LOSS, "persistent-loss" },
		{ RBLK_ANA_CHANGE, "change" },
	};
	enum rblk_ana_state st;

	for (size_t i = 0; i < sizeof(nvmet) / sizeof(nvmet[0]); i++) {
		CU_ASSERT_STRING_EQUAL(rblk_ana_state_name(nvmet[i].state), nvmet[i].name);
		st = 0;
		CU_ASSERT_EQUAL(rblk_ana_state_from_name(nvmet[i].name, &st), 0);
		CU_ASSERT_EQUAL(st, nvmet[i].state);
	}
	CU_ASSERT_STRING_EQUAL(rblk_ana_state_name((enum rblk_ana_state)5), "?");
	st = RBLK_ANA_CHANGE;
	CU_ASSERT_EQUAL(rblk_ana_state_from_name("Optimized", &st), -EINVAL);
	CU_ASSERT_EQUAL(rblk_ana_state_from_name("non_optimized", &st), -EINVAL);
	CU_ASSERT_EQUAL(st, RBLK_ANA_CHANGE);
}

static int setup(void)
{
	rblk_log_set_handler(capture, NULL);
	return 0;
}

static const struct ut_case cases[] = {
	UT_CASE(test_nqn_reasons),
	UT_CASE(test_nqn_form_warned_once),
	UT_CASE(test_ns_gen_ids),
	UT_CASE(test_ana_state_names),
	UT_END,
};

UT_MAIN_INIT("target/names", cases, setup, NULL)

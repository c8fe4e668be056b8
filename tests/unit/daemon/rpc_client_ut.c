/* SPDX-License-Identifier: MIT */
/*
 * Tests for daemon/rpc_client.c: `rblk-target rpc` arguments turned into a
 * request's params (nesting, value types, --json), and its refusals.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "daemon/rpc_client.h"
#include "ut.h"

static char errbuf[1024];

/* The params ARGS... build, as compact JSON, or the message on failure. */
static const char *params(const char *first, ...)
{
	static char out[2048];
	char *argv[32];
	struct json_object *p = NULL;
	int argc = 0, ret;
	va_list ap;
	FILE *err = fmemopen(errbuf, sizeof(errbuf), "w");

	va_start(ap, first);
	for (const char *s = first; s && argc < 31; s = va_arg(ap, const char *))
		argv[argc++] = (char *)s;
	va_end(ap);
	argv[argc] = NULL;
	memset(errbuf, 0, sizeof(errbuf));
	ret = rblk_tgt_rpc_client_params(argc, argv, &p, err);
	fclose(err);
	if (ret) {
		CU_ASSERT_EQUAL(ret, -EINVAL);
		CU_ASSERT_PTR_NULL(p);
		return errbuf;
	}
	snprintf(out, sizeof(out), "%s", json_object_to_json_string_ext(p, JSON_C_TO_STRING_PLAIN |
								     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(p);
	return out;
}

static void test_nesting_and_types(void)
{
	CU_ASSERT_STRING_EQUAL(params(NULL), "{}");
	CU_ASSERT_STRING_EQUAL(params("--nqn", "nqn.2024-01.io.rblk:a", "--namespace.path", "mem:1G",
				      "--namespace.nsid", "2", NULL),
			       "{\"nqn\":\"nqn.2024-01.io.rblk:a\",\"namespace\":{\"path\":\"mem:1G\","
			       "\"nsid\":2}}");
	/* An address is not a number; true is a boolean; a quoted value stays a string. */
	CU_ASSERT_STRING_EQUAL(params("--listen-address.traddr", "10.0.0.1",
				      "--listen-address.trsvcid", "\"4420\"", "--allow_any_host",
				      "true", NULL),
			       "{\"listen_address\":{\"traddr\":\"10.0.0.1\",\"trsvcid\":\"4420\"},"
			       "\"allow_any_host\":true}");
	CU_ASSERT_STRING_EQUAL(params("--a", "[1, 2]", "--b", "{\"c\": null}", "--d", "1.5x", NULL),
			       "{\"a\":[1,2],\"b\":{\"c\":null},\"d\":\"1.5x\"}");
}

static void test_json_merge(void)
{
	CU_ASSERT_STRING_EQUAL(params("--json", "{\"nqn\": \"x\", \"namespace\": {\"path\": \"/a\"}}",
				      "--namespace.nsid", "3", NULL),
			       "{\"nqn\":\"x\",\"namespace\":{\"path\":\"/a\",\"nsid\":3}}");
	CU_ASSERT_STRING_EQUAL(params("--namespace.nsid", "3", "--json",
				      "{\"namespace\": {\"path\": \"/a\"}}", NULL),
			       "{\"namespace\":{\"nsid\":3,\"path\":\"/a\"}}");
}

static void test_refusals(void)
{
	CU_ASSERT_PTR_NOT_NULL(strstr(params("nqn", "x", NULL), "nqn: expected --PARAM VALUE"));
	CU_ASSERT_PTR_NOT_NULL(strstr(params("--nqn", NULL), "--nqn: needs a value"));
	CU_ASSERT_PTR_NOT_NULL(strstr(params("--json", "[1]", NULL), "--json: not a JSON object"));
	CU_ASSERT_PTR_NOT_NULL(strstr(params("--a..b", "1", NULL), "an empty part"));
	CU_ASSERT_PTR_NOT_NULL(strstr(params("--a", "1", "--a.b", "2", NULL),
				      "--a is not an object here"));
	CU_ASSERT_PTR_NOT_NULL(strstr(params("--", "1", NULL), "expected --PARAM VALUE"));
}

static void test_usage_exit_codes(void)
{
	char *none[] = { "rpc", NULL };
	char *bad[] = { "rpc", "-t", "0", "m", NULL };
	char *nosock[] = { "rpc", "-s", "/nonexistent/rblk.sock", "rpc_get_methods", NULL };
	FILE *saved = stderr;

	stderr = fopen("/dev/null", "w");
	CU_ASSERT_EQUAL(rblk_tgt_rpc_client_main(1, none), 2);
	CU_ASSERT_EQUAL(rblk_tgt_rpc_client_main(4, bad), 2);
	CU_ASSERT_EQUAL(rblk_tgt_rpc_client_main(4, nosock), 1);
	fclose(stderr);
	stderr = saved;
}

static const struct ut_case cases[] = {
	UT_CASE(test_nesting_and_types),
	UT_CASE(test_json_merge),
	UT_CASE(test_refusals),
	UT_CASE(test_usage_exit_codes),
	UT_END,
};

UT_MAIN("daemon/rpc_client", cases)

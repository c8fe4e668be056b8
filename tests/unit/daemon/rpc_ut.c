/* SPDX-License-Identifier: MIT */
/*
 * Tests for daemon/rpc.c: the JSON-RPC 2.0 stream and dispatcher over a
 * small method table (no socket, no target). Every answer is parsed back
 * and its code, id and message checked.
 */
#include <errno.h>
#include <string.h>

#include <json-c/json.h>

#include "common/log.h"
#include "daemon/rpc.h"
#include "ut.h"

static int calls;

static int m_echo(void *ctx, struct json_object *params, struct json_object **result,
		  struct rblk_rpc_err *e)
{
	const char *s = "none";

	(void)ctx;
	calls++;
	if (rblk_rpc_param_str(params, "s", false, &s, NULL, e))
		return e->code;
	*result = json_object_new_string(s);
	return 0;
}

static int m_true(void *ctx, struct json_object *params, struct json_object **result,
		  struct rblk_rpc_err *e)
{
	(void)ctx;
	(void)params;
	(void)result;
	(void)e;
	calls++;
	return 0;
}

/* Fails with what it logged, as the configuration checks' messages reach a client. */
static int m_logs(void *ctx, struct json_object *params, struct json_object **result,
		  struct rblk_rpc_err *e)
{
	(void)ctx;
	(void)params;
	(void)result;
	RBLK_WARN("a warning is not the reason");
	RBLK_ERR("subsystems[0].nqn: the reason");
	RBLK_ERR("a second error");
	return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "%s", rblk_rpc_log_captured());
}

static int m_errno(void *ctx, struct json_object *params, struct json_object **result,
		   struct rblk_rpc_err *e)
{
	(void)ctx;
	(void)params;
	(void)result;
	return rblk_rpc_fail_errno(e, -EIO, "the disk said no");
}

static const struct rblk_rpc_method methods[] = {
	{ "echo", m_echo },
	{ "true", m_true },
	{ "logs", m_logs },
	{ "errno", m_errno },
};
static const struct rblk_rpc_table table = { methods, 4, NULL };

static void log_to_capture(enum rblk_log_level level, const char *msg, void *arg)
{
	(void)arg;
	rblk_rpc_log_capture(level, msg);
}

/* Feeds @text in one piece; the answers (one JSON text per line) in *out. */
static int feed(const char *text, struct rblk_rpc_buf *out)
{
	struct rblk_rpc_stream s;
	int ret;

	memset(out, 0, sizeof(*out));
	CU_ASSERT_EQUAL_FATAL(rblk_rpc_stream_init(&s), 0);
	ret = rblk_rpc_stream_feed(&s, &table, text, strlen(text), out);
	rblk_rpc_stream_fini(&s);
	CU_ASSERT_EQUAL(rblk_rpc_buf_append(out, "", 0), 0); /* NUL-terminated below */
	out->data[out->len] = '\0';
	return ret;
}

/* The @i-th answer line, parsed. */
static struct json_object *answer(const struct rblk_rpc_buf *b, int i)
{
	const char *p = b->data;

	for (; i > 0 && p; i--)
		if ((p = strchr(p, '\n')))
			p++;
	return p && *p ? json_tokener_parse(p) : NULL;
}

static int nr_answers(const struct rblk_rpc_buf *b)
{
	int n = 0;

	for (size_t i = 0; i < b->len; i++)
		n += b->data[i] == '\n';
	return n;
}

static int err_code(struct json_object *r)
{
	struct json_object *e, *c;

	if (!json_object_object_get_ex(r, "error", &e) || !json_object_object_get_ex(e, "code", &c))
		return 0;
	return json_object_get_int(c);
}

static const char *err_msg(struct json_object *r)
{
	struct json_object *e, *m;

	if (!json_object_object_get_ex(r, "error", &e) || !json_object_object_get_ex(e, "message", &m))
		return "";
	return json_object_get_string(m);
}

static const char *id_text(struct json_object *r)
{
	struct json_object *id;

	if (!json_object_object_get_ex(r, "id", &id))
		return "absent";
	return json_object_to_json_string_ext(id, JSON_C_TO_STRING_PLAIN);
}

/* One request in, its single answer's error code (0: a result) and the answer. */
static int one(const char *req, struct json_object **r)
{
	struct rblk_rpc_buf out;

	CU_ASSERT_EQUAL(feed(req, &out), 0);
	CU_ASSERT_EQUAL(nr_answers(&out), 1);
	*r = answer(&out, 0);
	rblk_rpc_buf_free(&out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*r);
	return err_code(*r);
}

static void test_result_and_id(void)
{
	struct json_object *r, *v;

	CU_ASSERT_EQUAL(one("{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":{\"s\":\"hi\"},"
			    "\"id\":\"abc\"}", &r), 0);
	CU_ASSERT_STRING_EQUAL(id_text(r), "\"abc\"");
	CU_ASSERT(json_object_object_get_ex(r, "result", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "hi");
	CU_ASSERT(json_object_object_get_ex(r, "jsonrpc", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "2.0");
	json_object_put(r);
	/* A change answers true, as SPDK's do. */
	CU_ASSERT_EQUAL(one("{\"jsonrpc\":\"2.0\",\"method\":\"true\",\"id\":7}", &r), 0);
	CU_ASSERT(json_object_object_get_ex(r, "result", &v));
	CU_ASSERT(json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v));
	CU_ASSERT_STRING_EQUAL(id_text(r), "7");
	json_object_put(r);
}

static void test_parse_error_closes(void)
{
	struct rblk_rpc_buf out;
	struct json_object *r;

	calls = 0;
	/* A good request, then garbage: the first is answered, then -32700 and close. */
	CU_ASSERT_EQUAL(feed("{\"jsonrpc\":\"2.0\",\"method\":\"true\",\"id\":1} {\"a\" 1}"
			     "{\"jsonrpc\":\"2.0\",\"method\":\"true\",\"id\":2}", &out), -EBADMSG);
	CU_ASSERT_EQUAL(nr_answers(&out), 2);
	CU_ASSERT_EQUAL(calls, 1);
	r = answer(&out, 1);
	CU_ASSERT_EQUAL(err_code(r), RBLK_RPC_PARSE_ERROR);
	CU_ASSERT_STRING_EQUAL(id_text(r), "null");
	json_object_put(r);
	rblk_rpc_buf_free(&out);
	/* Not a JSON text at all. */
	CU_ASSERT_EQUAL(feed("GET / HTTP/1.1\r\n", &out), -EBADMSG);
	rblk_rpc_buf_free(&out);
}

static void test_invalid_requests(void)
{
	static const struct {
		const char *req;
		const char *id;
		const char *msg;
	} cases[] = {
		{ "[]", "null", "an empty batch" },
		{ "\"rpc_get_methods\"", "null", "a request is a JSON object" },
		{ "42 ", "null", "a request is a JSON object" },
		{ "null\n", "null", "a request is a JSON object" },
		{ "{\"method\":\"true\",\"id\":1}", "1", "\"jsonrpc\" must be \"2.0\"" },
		{ "{\"jsonrpc\":2.0,\"method\":\"true\",\"id\":1}", "1", "\"jsonrpc\" must be" },
		{ "{\"jsonrpc\":\"2.0\",\"id\":1}", "1", "\"method\" must be a string" },
		{ "{\"jsonrpc\":\"2.0\",\"method\":5,\"id\":1}", "1", "\"method\" must be a string" },
		{ "{\"jsonrpc\":\"2.0\",\"method\":\"true\",\"id\":{}}", "null", "\"id\" must be" },
		{ "{\"jsonrpc\":\"2.0\",\"method\":\"true\",\"id\":1.5}", "null", "\"id\" must be" },
		{ "{\"jsonrpc\":\"2.0\",\"method\":\"true\",\"params\":\"x\",\"id\":1}", "1",
		  "\"params\" must be an object or an array" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct json_object *r;

		CU_ASSERT_EQUAL(one(cases[i].req, &r), RBLK_RPC_INVALID_REQUEST);
		CU_ASSERT_STRING_EQUAL(id_text(r), cases[i].id);
		CU_ASSERT_PTR_NOT_NULL(strstr(err_msg(r), cases[i].msg));
		json_object_put(r);
	}
}

static void test_method_not_found_and_params(void)
{
	struct json_object *r;

	CU_ASSERT_EQUAL(one("{\"jsonrpc\":\"2.0\",\"method\":\"nvmf_nope\",\"id\":3}", &r),
			RBLK_RPC_METHOD_NOT_FOUND);
	CU_ASSERT_STRING_EQUAL(err_msg(r), "nvmf_nope: no such method (see rpc_get_methods)");
	CU_ASSERT_STRING_EQUAL(id_text(r), "3");
	json_object_put(r);
	/* Positional params: every method here takes names. */
	CU_ASSERT_EQUAL(one("{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":[\"x\"],\"id\":1}",
			    &r), RBLK_RPC_INVALID_PARAMS);
	json_object_put(r);
	/* An empty array is no params at all; null too. */
	CU_ASSERT_EQUAL(one("{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":[],\"id\":1}", &r),
			0);
	json_object_put(r);
	CU_ASSERT_EQUAL(one("{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":{\"s\":1},\"id\":1}",
			    &r), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT_STRING_EQUAL(err_msg(r), "s: 1 is not a string");
	json_object_put(r);
}

static void test_errno_and_log_capture(void)
{
	struct json_object *r, *e, *d, *v;

	CU_ASSERT_EQUAL(one("{\"jsonrpc\":\"2.0\",\"method\":\"errno\",\"id\":1}", &r),
			RBLK_RPC_INTERNAL_ERROR);
	CU_ASSERT(json_object_object_get_ex(r, "error", &e) &&
		  json_object_object_get_ex(e, "data", &d) &&
		  json_object_object_get_ex(d, "errno", &v));
	CU_ASSERT_EQUAL(json_object_get_int(v), EIO);
	json_object_put(r);
	/* The first error the method logged, not a warning, not a later one. */
	CU_ASSERT_EQUAL(one("{\"jsonrpc\":\"2.0\",\"method\":\"logs\",\"id\":1}", &r),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT_STRING_EQUAL(err_msg(r), "subsystems[0].nqn: the reason");
	json_object_put(r);
	/* Outside a method nothing is kept. */
	RBLK_ERR("outside");
	CU_ASSERT_STRING_EQUAL(rblk_rpc_log_captured(), "");
	{
		struct rblk_rpc_err x = { 0 };

		CU_ASSERT_EQUAL(rblk_rpc_fail_errno(&x, -ENOENT, "a"), RBLK_RPC_INVALID_PARAMS);
		CU_ASSERT_EQUAL(rblk_rpc_fail_errno(&x, -EEXIST, "a"), RBLK_RPC_INVALID_PARAMS);
		CU_ASSERT_EQUAL(rblk_rpc_fail_errno(&x, -ENOMEM, "a"), RBLK_RPC_INTERNAL_ERROR);
		CU_ASSERT_EQUAL(x.errno_, -ENOMEM);
	}
}

static void test_several_in_one_stream_and_batch(void)
{
	struct rblk_rpc_buf out;
	struct json_object *r;

	calls = 0;
	/* Two objects back to back, whitespace between, a notification (no id): two answers. */
	CU_ASSERT_EQUAL(feed("{\"jsonrpc\":\"2.0\",\"method\":\"true\",\"id\":1}"
			     "{\"jsonrpc\":\"2.0\",\"method\":\"true\"}\n\n  "
			     "{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"id\":2}\n", &out), 0);
	CU_ASSERT_EQUAL(calls, 3);
	CU_ASSERT_EQUAL(nr_answers(&out), 2);
	r = answer(&out, 1);
	CU_ASSERT_STRING_EQUAL(id_text(r), "2");
	json_object_put(r);
	rblk_rpc_buf_free(&out);
	/* A batch: one array of answers, none for its notification, errors in place. */
	CU_ASSERT_EQUAL(feed("[{\"jsonrpc\":\"2.0\",\"method\":\"true\",\"id\":1},"
			     "{\"jsonrpc\":\"2.0\",\"method\":\"true\"},"
			     "{\"jsonrpc\":\"2.0\",\"method\":\"nope\",\"id\":3}, 5]", &out), 0);
	CU_ASSERT_EQUAL(nr_answers(&out), 1);
	r = answer(&out, 0);
	CU_ASSERT_FATAL(json_object_is_type(r, json_type_array));
	CU_ASSERT_EQUAL(json_object_array_length(r), 3);
	CU_ASSERT_EQUAL(err_code(json_object_array_get_idx(r, 0)), 0);
	CU_ASSERT_EQUAL(err_code(json_object_array_get_idx(r, 1)), RBLK_RPC_METHOD_NOT_FOUND);
	CU_ASSERT_EQUAL(err_code(json_object_array_get_idx(r, 2)), RBLK_RPC_INVALID_REQUEST);
	json_object_put(r);
	rblk_rpc_buf_free(&out);
	/* Notifications only: nothing to send. */
	CU_ASSERT_EQUAL(feed("[{\"jsonrpc\":\"2.0\",\"method\":\"true\"}]", &out), 0);
	CU_ASSERT_EQUAL(out.len, 0);
	rblk_rpc_buf_free(&out);
}

static void test_split_byte_by_byte(void)
{
	const char *req = "{\"jsonrpc\":\"2.0\",\"method\":\"echo\",\"params\":{\"s\":\"\xc3\xa9t\xc3\xa9\"},"
			  "\"id\":9}{\"jsonrpc\":\"2.0\",\"method\":\"true\",\"id\":10}";
	struct rblk_rpc_stream s;
	struct rblk_rpc_buf out = { 0 };
	struct json_object *r, *v;

	CU_ASSERT_EQUAL_FATAL(rblk_rpc_stream_init(&s), 0);
	for (size_t i = 0; i < strlen(req); i++)
		CU_ASSERT_EQUAL(rblk_rpc_stream_feed(&s, &table, req + i, 1, &out), 0);
	rblk_rpc_stream_fini(&s);
	CU_ASSERT_EQUAL(rblk_rpc_buf_append(&out, "", 0), 0);
	out.data[out.len] = '\0';
	CU_ASSERT_EQUAL_FATAL(nr_answers(&out), 2);
	r = answer(&out, 0);
	/* A character split between two reads is still one character. */
	CU_ASSERT_FATAL(json_object_object_get_ex(r, "result", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "\xc3\xa9t\xc3\xa9");
	json_object_put(r);
	rblk_rpc_buf_free(&out);
}

/* A request of @size bytes: {"jsonrpc":"2.0","method":"nope","id":1,"pad":"xxx..."}. */
static char *sized_request(size_t size)
{
	static const char head[] = "{\"jsonrpc\":\"2.0\",\"method\":\"nope\",\"id\":1,\"pad\":\"";
	char *p = malloc(size + 1);

	memcpy(p, head, sizeof(head) - 1);
	memset(p + sizeof(head) - 1, 'x', size - (sizeof(head) - 1) - 2);
	memcpy(p + size - 2, "\"}", 3);
	return p;
}

static void test_oversize(void)
{
	struct rblk_rpc_stream s;
	struct rblk_rpc_buf out = { 0 };
	char *big = sized_request(RBLK_RPC_REQUEST_MAX);
	struct json_object *r;
	int ret = 0;

	/* Exactly the limit, in 4 KiB pieces: answered (method not found). */
	CU_ASSERT_EQUAL_FATAL(rblk_rpc_stream_init(&s), 0);
	for (size_t off = 0; off < RBLK_RPC_REQUEST_MAX && !ret; off += 4096)
		ret = rblk_rpc_stream_feed(&s, &table, big + off, 4096, &out);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_EQUAL(s.pending, 0);
	rblk_rpc_stream_fini(&s);
	CU_ASSERT_EQUAL(rblk_rpc_buf_append(&out, "", 0), 0);
	out.data[out.len] = '\0';
	r = answer(&out, 0);
	CU_ASSERT_EQUAL(err_code(r), RBLK_RPC_METHOD_NOT_FOUND);
	json_object_put(r);
	rblk_rpc_buf_free(&out);
	free(big);

	/* One byte more: refused before the end arrives, and the stream is done. */
	big = sized_request(RBLK_RPC_REQUEST_MAX + 1);
	ret = 0;
	CU_ASSERT_EQUAL_FATAL(rblk_rpc_stream_init(&s), 0);
	for (size_t off = 0; off < RBLK_RPC_REQUEST_MAX + 1 && !ret; off += 4096) {
		size_t n = RBLK_RPC_REQUEST_MAX + 1 - off < 4096 ? RBLK_RPC_REQUEST_MAX + 1 - off : 4096;

		ret = rblk_rpc_stream_feed(&s, &table, big + off, n, &out);
	}
	CU_ASSERT_EQUAL(ret, -EMSGSIZE);
	rblk_rpc_stream_fini(&s);
	CU_ASSERT_EQUAL(rblk_rpc_buf_append(&out, "", 0), 0);
	out.data[out.len] = '\0';
	CU_ASSERT_EQUAL(nr_answers(&out), 1);
	r = answer(&out, 0);
	CU_ASSERT_EQUAL(err_code(r), RBLK_RPC_INVALID_REQUEST);
	CU_ASSERT_STRING_EQUAL(err_msg(r), "request larger than 1 MiB");
	json_object_put(r);
	rblk_rpc_buf_free(&out);
	free(big);
}

static void test_get_methods(void)
{
	struct json_object *r, *v;

	CU_ASSERT_EQUAL(one("{\"jsonrpc\":\"2.0\",\"method\":\"rpc_get_methods\",\"id\":1}", &r), 0);
	CU_ASSERT(json_object_object_get_ex(r, "result", &v));
	CU_ASSERT_EQUAL(json_object_array_length(v), 5);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(v, 0)),
			       "rpc_get_methods");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(v, 4)), "errno");
	json_object_put(r);
	/* SPDK's rpc.py sends current/include_aliases; anything else is refused. */
	CU_ASSERT_EQUAL(one("{\"jsonrpc\":\"2.0\",\"method\":\"rpc_get_methods\",\"params\":"
			    "{\"current\":true},\"id\":1}", &r), 0);
	json_object_put(r);
	CU_ASSERT_EQUAL(one("{\"jsonrpc\":\"2.0\",\"method\":\"rpc_get_methods\",\"params\":"
			    "{\"bogus\":1},\"id\":1}", &r), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT_STRING_EQUAL(err_msg(r), "params: unknown parameter \"bogus\"");
	json_object_put(r);
}

static void test_param_readers(void)
{
	struct json_object *o = json_tokener_parse(
		"{\"n\": 5, \"big\": 5000000000, \"neg\": -1, \"f\": 1.5, \"s\": \"x\", \"b\": true,"
		" \"nul\": null, \"obj\": {\"k\": 1}}");
	struct rblk_rpc_err e = { 0 };
	uint32_t u = 99;
	bool b = false, present = true;
	const char *s = NULL;
	struct json_object *sub = NULL;

	CU_ASSERT_EQUAL(rblk_rpc_param_u32(o, "n", true, 1, 10, &u, &present, &e), 0);
	CU_ASSERT_EQUAL(u, 5);
	CU_ASSERT(present);
	CU_ASSERT_EQUAL(rblk_rpc_param_u32(o, "n", true, 6, 10, &u, NULL, &e), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT_STRING_EQUAL(e.msg, "n: 5 is out of range (6..10)");
	CU_ASSERT_EQUAL(rblk_rpc_param_u32(o, "big", true, 0, 0xffffffffu, &u, NULL, &e),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT_EQUAL(rblk_rpc_param_u32(o, "neg", true, 0, 10, &u, NULL, &e),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT_EQUAL(rblk_rpc_param_u32(o, "f", true, 0, 10, &u, NULL, &e), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT_STRING_EQUAL(e.msg, "f: 1.5 is not an integer");
	CU_ASSERT_EQUAL(rblk_rpc_param_u32(o, "s", true, 0, 10, &u, NULL, &e), RBLK_RPC_INVALID_PARAMS);
	/* Absent or null: required is an error; optional leaves the value. */
	u = 42;
	CU_ASSERT_EQUAL(rblk_rpc_param_u32(o, "nul", false, 0, 10, &u, &present, &e), 0);
	CU_ASSERT_EQUAL(u, 42);
	CU_ASSERT(!present);
	CU_ASSERT_EQUAL(rblk_rpc_param_u32(o, "ns.nsid", true, 0, 10, &u, NULL, &e),
			RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT_STRING_EQUAL(e.msg, "ns.nsid: required");
	CU_ASSERT_EQUAL(rblk_rpc_param_u32(NULL, "n", false, 0, 10, &u, NULL, &e), 0);
	CU_ASSERT_EQUAL(rblk_rpc_param_bool(o, "b", true, &b, NULL, &e), 0);
	CU_ASSERT(b);
	CU_ASSERT_EQUAL(rblk_rpc_param_bool(o, "n", true, &b, NULL, &e), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT_STRING_EQUAL(e.msg, "n: 5 is not true or false");
	CU_ASSERT_EQUAL(rblk_rpc_param_str(o, "s", true, &s, NULL, &e), 0);
	CU_ASSERT_STRING_EQUAL(s, "x");
	CU_ASSERT_EQUAL(rblk_rpc_param_obj(o, "obj", true, &sub, &e), 0);
	CU_ASSERT_PTR_NOT_NULL(sub);
	CU_ASSERT_EQUAL(rblk_rpc_param_obj(o, "s", true, &sub, &e), RBLK_RPC_INVALID_PARAMS);
	CU_ASSERT_STRING_EQUAL(e.msg, "s: \"x\" is not an object");
	{
		static const char *const known[] = { "n", "big", "neg", "f", "s", "b", "nul", NULL };

		CU_ASSERT_EQUAL(rblk_rpc_param_only(o, "m", known, &e), RBLK_RPC_INVALID_PARAMS);
		CU_ASSERT_STRING_EQUAL(e.msg, "m: unknown parameter \"obj\"");
	}
	json_object_put(o);
}

static int setup(void)
{
	rblk_log_set_handler(log_to_capture, NULL);
	return 0;
}

static const struct ut_case cases[] = {
	UT_CASE(test_result_and_id),
	UT_CASE(test_parse_error_closes),
	UT_CASE(test_invalid_requests),
	UT_CASE(test_method_not_found_and_params),
	UT_CASE(test_errno_and_log_capture),
	UT_CASE(test_several_in_one_stream_and_batch),
	UT_CASE(test_split_byte_by_byte),
	UT_CASE(test_oversize),
	UT_CASE(test_get_methods),
	UT_CASE(test_param_readers),
	UT_END,
};

UT_MAIN_INIT("daemon/rpc", cases, setup, NULL)

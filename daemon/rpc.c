/* SPDX-License-Identifier: MIT */
/*
 * The JSON-RPC 2.0 protocol of rblk-target's management socket (rpc.h): a
 * client's byte stream cut into requests with json-c's incremental
 * tokener, each request checked and dispatched to a method table, each
 * answer written back as one JSON text. SPDK's socket takes requests the
 * same way (no length prefix, no delimiter), so its rpc.py talks to ours.
 *
 * What a client cannot do to the daemon: make it hold more than
 * RBLK_RPC_REQUEST_MAX bytes of one request, nest JSON deeper than the
 * tokener's 32 levels, or get a method called with anything but an object
 * for params. Bytes that are not JSON end the connection after one parse
 * error, because there is no framing to find the next request by.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "common/log.h"
#include "daemon/rpc.h"

int rblk_rpc_fail(struct rblk_rpc_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

int rblk_rpc_fail_errno(struct rblk_rpc_err *e, int err, const char *fmt, ...)
{
	va_list ap;

	switch (err) {
	case -EINVAL:
	case -ENOENT:
	case -EEXIST:
	case -ERANGE:
		e->code = RBLK_RPC_INVALID_PARAMS;
		break;
	default:
		e->code = RBLK_RPC_INTERNAL_ERROR;
		break;
	}
	e->errno_ = err;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return e->code;
}

/* ------------------------------------------------------------ log capture */

static __thread char *capture;
#define CAPTURE_LEN 400

void rblk_rpc_log_capture(int level, const char *msg)
{
	if (capture && level <= RBLK_LOG_ERR && !capture[0])
		snprintf(capture, CAPTURE_LEN, "%s", msg);
}

const char *rblk_rpc_log_captured(void)
{
	return capture ? capture : "";
}

static int call_method(const struct rblk_rpc_method *m, void *ctx, struct json_object *params,
		       struct json_object **result, struct rblk_rpc_err *e)
{
	char buf[CAPTURE_LEN];
	int ret;

	buf[0] = '\0';
	capture = buf;
	ret = m->call(ctx, params, result, e);
	capture = NULL;
	return ret;
}

/* ------------------------------------------------------------ responses */

static struct json_object *response(struct json_object *id)
{
	struct json_object *r = json_object_new_object();

	if (!r)
		return NULL;
	json_object_object_add(r, "jsonrpc", json_object_new_string("2.0"));
	/* The id as the client sent it (a new reference); null when unknown. */
	json_object_object_add(r, "id", json_object_get(id));
	return r;
}

static struct json_object *error_response(struct json_object *id, const struct rblk_rpc_err *e)
{
	struct json_object *r = response(id), *err = json_object_new_object();

	if (!r || !err) {
		json_object_put(r);
		json_object_put(err);
		return NULL;
	}
	json_object_object_add(err, "code", json_object_new_int(e->code));
	json_object_object_add(err, "message", json_object_new_string(e->msg));
	if (e->errno_) {
		struct json_object *data = json_object_new_object();

		json_object_object_add(data, "errno", json_object_new_int(-e->errno_));
		json_object_object_add(data, "strerror", json_object_new_string(strerror(-e->errno_)));
		json_object_object_add(err, "data", data);
	}
	json_object_object_add(r, "error", err);
	return r;
}

static struct json_object *error_simple(struct json_object *id, int code, const char *msg)
{
	struct rblk_rpc_err e = { .code = code };

	snprintf(e.msg, sizeof(e.msg), "%s", msg);
	return error_response(id, &e);
}

/* ------------------------------------------------------------ dispatch */

static int get_methods(const struct rblk_rpc_table *t, struct json_object *params,
		       struct json_object **result, struct rblk_rpc_err *e)
{
	static const char *const known[] = { "current", "include_aliases", NULL };
	struct json_object *a;

	/* SPDK's "current" (runtime methods only) and aliases: every method is both here. */
	if (rblk_rpc_param_only(params, "params", known, e))
		return e->code;
	if (!(a = json_object_new_array()))
		return rblk_rpc_fail_errno(e, -ENOMEM, "out of memory");
	json_object_array_add(a, json_object_new_string("rpc_get_methods"));
	for (size_t i = 0; i < t->nr; i++)
		json_object_array_add(a, json_object_new_string(t->methods[i].name));
	*result = a;
	return 0;
}

/* An id is a string, a number or null (section 4); a fraction SHOULD NOT be one. */
static bool id_valid(struct json_object *id)
{
	enum json_type ty = json_object_get_type(id);

	return ty == json_type_null || ty == json_type_string || ty == json_type_int;
}

static struct json_object *dispatch_one(const struct rblk_rpc_table *t, struct json_object *req)
{
	struct json_object *v, *id = NULL, *params = NULL, *result = NULL, *r;
	struct rblk_rpc_err e = { 0 };
	bool notification;
	const char *method;
	int ret = -1;

	if (!json_object_is_type(req, json_type_object))
		return error_simple(NULL, RBLK_RPC_INVALID_REQUEST, "a request is a JSON object");
	notification = !json_object_object_get_ex(req, "id", &id);
	if (!notification && !id_valid(id))
		return error_simple(NULL, RBLK_RPC_INVALID_REQUEST,
				    "\"id\" must be a string, an integer or null");
	if (!json_object_object_get_ex(req, "jsonrpc", &v) || !json_object_is_type(v, json_type_string) ||
	    strcmp(json_object_get_string(v), "2.0"))
		return error_simple(id, RBLK_RPC_INVALID_REQUEST, "\"jsonrpc\" must be \"2.0\"");
	if (!json_object_object_get_ex(req, "method", &v) || !json_object_is_type(v, json_type_string))
		return error_simple(id, RBLK_RPC_INVALID_REQUEST, "\"method\" must be a string");
	method = json_object_get_string(v);
	if (json_object_object_get_ex(req, "params", &params) &&
	    !json_object_is_type(params, json_type_object) &&
	    !json_object_is_type(params, json_type_array))
		return error_simple(id, RBLK_RPC_INVALID_REQUEST,
				    "\"params\" must be an object or an array");
	if (json_object_is_type(params, json_type_null))
		params = NULL;
	/* Every method here takes named parameters, as SPDK's. */
	if (json_object_is_type(params, json_type_array) && json_object_array_length(params) == 0)
		params = NULL;
	if (json_object_is_type(params, json_type_array)) {
		ret = rblk_rpc_fail(&e, RBLK_RPC_INVALID_PARAMS,
				    "%s: params must be an object (named parameters)", method);
	} else if (strcmp(method, "rpc_get_methods") == 0) {
		ret = get_methods(t, params, &result, &e);
	} else {
		for (size_t i = 0; i < t->nr; i++)
			if (strcmp(method, t->methods[i].name) == 0) {
				ret = call_method(&t->methods[i], t->ctx, params, &result, &e);
				break;
			}
		if (ret == -1)
			ret = rblk_rpc_fail(&e, RBLK_RPC_METHOD_NOT_FOUND, "%s: no such method (see "
					    "rpc_get_methods)", method);
	}
	if (notification) {
		json_object_put(result);
		return NULL;
	}
	if (ret)
		return error_response(id, &e);
	if (!(r = response(id))) {
		json_object_put(result);
		return NULL;
	}
	json_object_object_add(r, "result", result ? result : json_object_new_boolean(1));
	return r;
}

struct json_object *rblk_rpc_dispatch(const struct rblk_rpc_table *t, struct json_object *req)
{
	struct json_object *out;
	size_t n;

	if (!json_object_is_type(req, json_type_array))
		return dispatch_one(t, req);
	/* A batch (section 6): an array of answers, none for notifications. */
	n = json_object_array_length(req);
	if (n == 0)
		return error_simple(NULL, RBLK_RPC_INVALID_REQUEST, "an empty batch");
	if (!(out = json_object_new_array()))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct json_object *r = dispatch_one(t, json_object_array_get_idx(req, i));

		if (r)
			json_object_array_add(out, r);
	}
	if (json_object_array_length(out) == 0) {
		json_object_put(out);
		return NULL;
	}
	return out;
}

/* ------------------------------------------------------------ stream */

int rblk_rpc_buf_append(struct rblk_rpc_buf *b, const char *s, size_t n)
{
	size_t cap;
	char *p;

	/*
	 * Drop what was written once it is most of the buffer, and grow by
	 * doubling: a client that reads slowly gets many small answers
	 * appended, each must not cost a copy of all the others.
	 */
	if (b->off && b->off >= b->len / 2) {
		memmove(b->data, b->data + b->off, b->len - b->off);
		b->len -= b->off;
		b->off = 0;
	}
	if (b->len + n + 1 > b->cap) {
		for (cap = b->cap ? b->cap : 4096; cap < b->len + n + 1; cap *= 2)
			;
		p = realloc(b->data, cap);
		if (!p)
			return -ENOMEM;
		b->data = p;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	return 0;
}

void rblk_rpc_buf_free(struct rblk_rpc_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

int rblk_rpc_stream_init(struct rblk_rpc_stream *s)
{
	s->pending = 0;
	s->tok = json_tokener_new();
	if (!s->tok)
		return -ENOMEM;
	/*
	 * Not JSON_TOKENER_VALIDATE_UTF8: json-c 0.16 refuses a multi-byte
	 * character split between two reads with it. Names are checked where
	 * they are used (an NQN is printable ASCII).
	 */
	json_tokener_set_flags(s->tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
	return 0;
}

void rblk_rpc_stream_fini(struct rblk_rpc_stream *s)
{
	if (s->tok)
		json_tokener_free(s->tok);
	s->tok = NULL;
}

static int send_obj(struct rblk_rpc_buf *out, struct json_object *r)
{
	const char *text;
	int ret;

	if (!r)
		return 0;
	text = json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN |
						      JSON_C_TO_STRING_NOSLASHESCAPE);
	ret = text ? rblk_rpc_buf_append(out, text, strlen(text)) : -ENOMEM;
	if (!ret)
		ret = rblk_rpc_buf_append(out, "\n", 1);
	json_object_put(r);
	return ret;
}

static bool only_space(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
			return false;
	return true;
}

int rblk_rpc_stream_feed(struct rblk_rpc_stream *s, const struct rblk_rpc_table *t,
			 const char *data, size_t len, struct rblk_rpc_buf *out)
{
	while (len) {
		/* At most what keeps the request within the limit, plus one byte to tell. */
		size_t room = RBLK_RPC_REQUEST_MAX - s->pending + 1;
		size_t chunk = len < room ? len : room, used;
		struct json_object *req;
		enum json_tokener_error err;
		int ret;

		/* Whitespace between requests is no request: it never counts. */
		if (s->pending == 0 && only_space(data, chunk)) {
			data += chunk;
			len -= chunk;
			continue;
		}
		req = json_tokener_parse_ex(s->tok, data, (int)chunk);
		err = json_tokener_get_error(s->tok);
		used = err == json_tokener_continue ? chunk : json_tokener_get_parse_end(s->tok);
		if ((err == json_tokener_continue || err == json_tokener_success) &&
		    s->pending + used > RBLK_RPC_REQUEST_MAX) {
			json_object_put(req);
			ret = send_obj(out, error_simple(NULL, RBLK_RPC_INVALID_REQUEST,
							 "request larger than 1 MiB"));
			return ret ? ret : -EMSGSIZE;
		}
		if (!req && err == json_tokener_continue) {
			s->pending += chunk;
			data += chunk;
			len -= chunk;
			continue;
		}
		if (!req && err != json_tokener_success) {
			char msg[160];

			snprintf(msg, sizeof(msg), "not valid JSON: %s", json_tokener_error_desc(err));
			ret = send_obj(out, error_simple(NULL, RBLK_RPC_PARSE_ERROR, msg));
			return ret ? ret : -EBADMSG;
		}
		/* A complete text (a JSON null parses to NULL with success, too). */
		json_tokener_reset(s->tok);
		s->pending = 0;
		data += used;
		len -= used;
		ret = send_obj(out, req ? rblk_rpc_dispatch(t, req)
					: error_simple(NULL, RBLK_RPC_INVALID_REQUEST,
						       "a request is a JSON object"));
		json_object_put(req);
		if (ret)
			return ret;
	}
	return 0;
}

/* ------------------------------------------------------------ params */

static const char *last_key(const char *key)
{
	const char *dot = strrchr(key, '.');

	return dot ? dot + 1 : key;
}

/* The member, or NULL; a JSON null counts as absent, as SPDK's optional decoders take it. */
static struct json_object *member(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, last_key(key), &v) ||
	    json_object_is_type(v, json_type_null))
		return NULL;
	return v;
}

static int missing(const char *key, bool required, bool *present, struct rblk_rpc_err *e)
{
	if (present)
		*present = false;
	return required ? rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "%s: required", key) : 0;
}

static int wrong(struct rblk_rpc_err *e, const char *key, struct json_object *v, const char *what)
{
	return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "%s: %.200s is not %s", key,
			     json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN), what);
}

int rblk_rpc_param_str(struct json_object *o, const char *key, bool required, const char **out,
		       bool *present, struct rblk_rpc_err *e)
{
	struct json_object *v = member(o, key);

	if (!v)
		return missing(key, required, present, e);
	if (!json_object_is_type(v, json_type_string))
		return wrong(e, key, v, "a string");
	if (present)
		*present = true;
	*out = json_object_get_string(v);
	return 0;
}

int rblk_rpc_param_u32(struct json_object *o, const char *key, bool required, uint32_t min,
		       uint32_t max, uint32_t *out, bool *present, struct rblk_rpc_err *e)
{
	struct json_object *v = member(o, key);
	int64_t n;

	if (!v)
		return missing(key, required, present, e);
	if (!json_object_is_type(v, json_type_int))
		return wrong(e, key, v, "an integer");
	n = json_object_get_int64(v);
	/* json-c saturates what does not fit in 64 bits: still out of range. */
	if (n < (int64_t)min || n > (int64_t)max)
		return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "%s: %s is out of range (%u..%u)",
				     key, json_object_get_string(v), min, max);
	if (present)
		*present = true;
	*out = (uint32_t)n;
	return 0;
}

int rblk_rpc_param_bool(struct json_object *o, const char *key, bool required, bool *out,
			bool *present, struct rblk_rpc_err *e)
{
	struct json_object *v = member(o, key);

	if (!v)
		return missing(key, required, present, e);
	if (!json_object_is_type(v, json_type_boolean))
		return wrong(e, key, v, "true or false");
	if (present)
		*present = true;
	*out = json_object_get_boolean(v);
	return 0;
}

int rblk_rpc_param_obj(struct json_object *o, const char *key, bool required,
		       struct json_object **out, struct rblk_rpc_err *e)
{
	struct json_object *v = member(o, key);

	if (!v)
		return missing(key, required, NULL, e);
	if (!json_object_is_type(v, json_type_object))
		return wrong(e, key, v, "an object");
	*out = v;
	return 0;
}

int rblk_rpc_param_off(struct json_object *o, const char *key, const char *why,
		       struct rblk_rpc_err *e)
{
	bool on = false;

	if (rblk_rpc_param_bool(o, key, false, &on, NULL, e))
		return e->code;
	return on ? rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "%s: %s", key, why) : 0;
}

int rblk_rpc_param_only(struct json_object *o, const char *where, const char *const *known,
			struct rblk_rpc_err *e)
{
	if (!o)
		return 0;
	json_object_object_foreach(o, key, v) {
		size_t i;

		(void)v;
		for (i = 0; known[i] && strcmp(known[i], key); i++)
			;
		if (!known[i])
			return rblk_rpc_fail(e, RBLK_RPC_INVALID_PARAMS, "%s: unknown parameter \"%.100s\"",
					     where, key);
	}
	return 0;
}

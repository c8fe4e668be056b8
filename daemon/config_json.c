/* SPDX-License-Identifier: MIT */
/*
 * Value coercion for the config parser (see config_json.h): nvmetcli writes
 * every configfs attribute as a string, people write numbers and booleans;
 * both mean the same. Also JSON text -> json-c tree with positions in errors.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/uuid.h"
#include "daemon/config_json.h"

#define perr(c, skipped, ...) rblk_cfg_error((c)->mode, &(c)->errors, (skipped), __VA_ARGS__)

const char *rblk_cj_jstr(struct json_object *v)
{
	return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
						  JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* ------------------------------------------------------ value coercion */

/* Integers: JSON numbers or decimal strings ("4420"), within [min, max]. */
bool rblk_cj_get_u64(struct rblk_cj_ctx *c, const char *path, struct json_object *v, uint64_t min,
		    uint64_t max, const char *what, const char *skipped, uint64_t *out)
{
	const char *s;
	char *end;

	switch (json_object_get_type(v)) {
	case json_type_int:
		if (json_object_get_int64(v) < 0)
			goto bad;
		*out = json_object_get_uint64(v);
		break;
	case json_type_string:
		s = json_object_get_string(v);
		if (s[0] < '0' || s[0] > '9')
			goto bad;
		errno = 0;
		*out = strtoull(s, &end, 10);
		if (errno || *end)
			goto bad;
		break;
	default:
		goto bad;
	}
	if (*out < min || *out > max)
		goto bad;
	return true;
bad:
	perr(c, skipped, "%s: %s is not %s", path, rblk_cj_jstr(v), what);
	return false;
}

bool rblk_cj_get_u32(struct rblk_cj_ctx *c, const char *path, struct json_object *v, uint32_t min,
		    uint32_t max, const char *what, const char *skipped, uint32_t *out)
{
	uint64_t x;

	if (!rblk_cj_get_u64(c, path, v, min, max, what, skipped, &x))
		return false;
	*out = x;
	return true;
}

/* Booleans: true/false, 0/1, and the strings configfs accepts (kstrtobool). */
bool rblk_cj_get_bool(struct rblk_cj_ctx *c, const char *path, struct json_object *v,
		     const char *skipped, bool *out)
{
	static const char *const yes[] = { "1", "y", "yes", "true", "on" };
	static const char *const no[] = { "0", "n", "no", "false", "off" };
	const char *s;

	switch (json_object_get_type(v)) {
	case json_type_boolean:
		*out = json_object_get_boolean(v);
		return true;
	case json_type_int:
		if (json_object_get_int64(v) == 0 || json_object_get_int64(v) == 1) {
			*out = json_object_get_int64(v);
			return true;
		}
		break;
	case json_type_string:
		s = json_object_get_string(v);
		for (unsigned i = 0; i < 5; i++) {
			if (strcasecmp(s, yes[i]) == 0 || strcasecmp(s, no[i]) == 0) {
				*out = strcasecmp(s, yes[i]) == 0;
				return true;
			}
		}
		break;
	default:
		break;
	}
	perr(c, skipped, "%s: %s is not a boolean (0, 1, true or false)", path, rblk_cj_jstr(v));
	return false;
}

/* Strings; numbers are taken in their text form ("serial": 1234). */
bool rblk_cj_get_str(struct rblk_cj_ctx *c, const char *path, struct json_object *v,
		    const char *skipped, const char **out)
{
	enum json_type t = json_object_get_type(v);

	if (t != json_type_string && t != json_type_int) {
		perr(c, skipped, "%s: %s is not a string", path, rblk_cj_jstr(v));
		return false;
	}
	*out = json_object_get_string(v);
	return true;
}

bool rblk_cj_get_obj(struct rblk_cj_ctx *c, const char *path, struct json_object *v,
		    const char *skipped)
{
	if (json_object_is_type(v, json_type_object))
		return true;
	perr(c, skipped, "%s: %s is not an object", path, rblk_cj_jstr(v));
	return false;
}

bool rblk_cj_get_arr(struct rblk_cj_ctx *c, const char *path, struct json_object *v,
		    const char *skipped)
{
	if (json_object_is_type(v, json_type_array))
		return true;
	perr(c, skipped, "%s: %s is not an array", path, rblk_cj_jstr(v));
	return false;
}

/* UUID-shaped identifiers; all zeroes is nvmetcli's "not set". */
bool rblk_cj_get_uuid(struct rblk_cj_ctx *c, const char *path, struct json_object *v,
		     const char *skipped, bool *has, uint8_t out[16])
{
	static const uint8_t zero[16];
	const char *s;

	if (!rblk_cj_get_str(c, path, v, skipped, &s))
		return false;
	if (s[0] == '\0') {
		*has = false;
		return true;
	}
	if (rblk_uuid_parse(s, out)) {
		perr(c, skipped, "%s: %s is not a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)",
		     path, rblk_cj_jstr(v));
		return false;
	}
	*has = memcmp(out, zero, 16) != 0;
	return true;
}

/* -------------------------------------------------------- unknown keys */

static const struct rblk_cj_known *find_known(const struct rblk_cj_known *t, const char *key)
{
	for (; t && t->key; t++)
		if (strcmp(t->key, key) == 0)
			return t;
	return NULL;
}

bool rblk_cj_value_is(struct json_object *v, const char *dflt)
{
	switch (json_object_get_type(v)) {
	case json_type_string:
	case json_type_int:
		return strcmp(json_object_get_string(v), dflt) == 0;
	case json_type_array:
		return json_object_array_length(v) == 0 && strcmp(dflt, "[]") == 0;
	case json_type_null:
		return true;
	default:
		return false;
	}
}

void rblk_cj_other_key(const char *path, const char *key, struct json_object *v,
		      const struct rblk_cj_known *known)
{
	const struct rblk_cj_known *k = find_known(known, key);

	if (k && (!k->dflt || rblk_cj_value_is(v, k->dflt))) {
		RBLK_DEBUG("%s.%s: %s ignored (%s)", path, key, rblk_cj_jstr(v), k->note);
		return;
	}
	if (k)
		RBLK_WARN("%s.%s: %s ignored: %s", path, key, rblk_cj_jstr(v), k->note);
	else
		RBLK_WARN("%s.%s: unknown key, ignored", path, key);
}

bool rblk_cj_key_is(const char *key, const char *const *names)
{
	for (; *names; names++)
		if (strcmp(key, *names) == 0)
			return true;
	return false;
}

static void offset_to_line(const char *s, size_t off, unsigned *line, unsigned *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && s[i]; i++) {
		if (s[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

struct json_object *rblk_cj_parse_text(const char *json, const char *source)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *root;
	size_t len = strlen(json), end;
	unsigned line, col;

	if (!tok)
		return NULL;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, json, (int)len);
	end = json_tokener_get_parse_end(tok);
	if (!root) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		if (e == json_tokener_continue)
			end = len;
		offset_to_line(json, end, &line, &col);
		RBLK_ERR("%s:%u:%u: not valid JSON: %s", source, line, col,
			 e == json_tokener_continue ? "unexpected end of file"
						    : json_tokener_error_desc(e));
	}
	json_tokener_free(tok);
	return root;
}


void rblk_cj_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

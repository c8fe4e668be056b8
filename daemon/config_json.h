/* SPDX-License-Identifier: MIT */
/*
 * Private helpers of the config parser (config_parse.c): reading JSON text
 * with line:column errors, and coercing values the way nvmetcli files write
 * them (numbers and booleans as strings). Each helper that refuses a value
 * logs "<key path>: <value> is not <what>" through rblk_cfg_error() and
 * returns false.
 */
#ifndef RBLK_TARGET_CONFIG_JSON_H
#define RBLK_TARGET_CONFIG_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "daemon/config.h"

struct rblk_cj_ctx {
	enum rblk_cfg_mode mode;
	unsigned errors;
};

/*
 * Keys nvmetcli writes that rblk does not implement, with the value the
 * kernel has by default: those load silently; another value gets a warning
 * because the file asks for behaviour rblk will not provide. A NULL default
 * means any value is harmless.
 */
struct rblk_cj_known {
	const char *key;
	const char *dflt;
	const char *note;
};

/* Parses a whole JSON text; logs "SOURCE:LINE:COL: not valid JSON: why" on failure. */
struct json_object *rblk_cj_parse_text(const char *json, const char *source);
/* The value as JSON (strings quoted), for messages. */
const char *rblk_cj_jstr(struct json_object *v);
/* Integers: JSON numbers or decimal strings, within [min, max]. */
bool rblk_cj_get_u64(struct rblk_cj_ctx *c, const char *path, struct json_object *v,
		     uint64_t min, uint64_t max, const char *what, const char *skipped,
		     uint64_t *out);
bool rblk_cj_get_u32(struct rblk_cj_ctx *c, const char *path, struct json_object *v,
		     uint32_t min, uint32_t max, const char *what, const char *skipped,
		     uint32_t *out);
/* true/false, 0/1 and the strings configfs accepts (1/0, y/n, yes/no, on/off). */
bool rblk_cj_get_bool(struct rblk_cj_ctx *c, const char *path, struct json_object *v,
		      const char *skipped, bool *out);
/* Strings; numbers are taken in their text form. */
bool rblk_cj_get_str(struct rblk_cj_ctx *c, const char *path, struct json_object *v,
		     const char *skipped, const char **out);
bool rblk_cj_get_obj(struct rblk_cj_ctx *c, const char *path, struct json_object *v,
		     const char *skipped);
bool rblk_cj_get_arr(struct rblk_cj_ctx *c, const char *path, struct json_object *v,
		     const char *skipped);
/* UUID-shaped identifiers; "" and all zeroes (nvmetcli's "not set") give *has = false. */
bool rblk_cj_get_uuid(struct rblk_cj_ctx *c, const char *path, struct json_object *v,
		      const char *skipped, bool *has, uint8_t out[16]);
/* Whether a scalar's text (or an empty array for "[]") equals @dflt. */
bool rblk_cj_value_is(struct json_object *v, const char *dflt);
/* A key rblk does not handle: debug if @known lists it with its default, else a warning. */
void rblk_cj_other_key(const char *path, const char *key, struct json_object *v,
		       const struct rblk_cj_known *known);
bool rblk_cj_key_is(const char *key, const char *const *names);
/*
 * Formats a key path for messages. Paths of absurd depth are cut short,
 * which is harmless, so callers need not check (unlike snprintf's result).
 */
void rblk_cj_path(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif

/* SPDX-License-Identifier: MIT */
/*
 * rblk-target's management API: JSON-RPC 2.0 as SPDK's RPC socket speaks it
 * (one JSON object per request, no framing beyond the JSON itself, one
 * response object per request), so SPDK's scripts/rpc.py and scripts
 * written for it work for the methods both have (docs/rpc.md).
 *
 *   rpc.c         the protocol: a byte stream of requests -> responses, the
 *                 dispatcher over a method table, the error codes
 *   rpc_server.c  the Unix socket: nonblocking clients under one epoll fd
 *                 the daemon's main loop waits on (never an I/O thread)
 *   rpc_nvmf.c    the methods: changes of the running configuration, made
 *                 through live.h as a SIGHUP reload makes them
 *   rpc_client.c  `rblk-target rpc METHOD [--param value]...`
 *
 * The protocol part owns no socket and no target, so it is unit-tested and
 * fuzzed as it is.
 */
#ifndef RBLK_TARGET_RPC_H
#define RBLK_TARGET_RPC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;
struct json_tokener;

/* JSON-RPC 2.0 error codes (section 5.1). */
enum rblk_rpc_code {
	RBLK_RPC_PARSE_ERROR = -32700,     /* not JSON: the stream cannot resync, it is closed */
	RBLK_RPC_INVALID_REQUEST = -32600, /* JSON, but not a request object */
	RBLK_RPC_METHOD_NOT_FOUND = -32601,
	RBLK_RPC_INVALID_PARAMS = -32602,  /* the message names the parameter and what was wrong */
	RBLK_RPC_INTERNAL_ERROR = -32603,  /* the change failed on the target; data.errno says how */
};

/* A request (or batch) larger than this is refused and its connection closed. */
#define RBLK_RPC_REQUEST_MAX (1u << 20)
#define RBLK_RPC_DEFAULT_SOCKET "/run/rblk/rblk-target.sock"

struct rblk_rpc_err {
	int code;      /* enum rblk_rpc_code */
	int errno_;    /* -errno behind an internal error, 0 = none */
	char msg[512];
};

/*
 * Sets @e and returns @code, so a method can `return rblk_rpc_fail(...)`.
 * rblk_rpc_fail_errno() picks the code for a -errno from the target or the
 * configuration model: the caller's fault (-EINVAL, -ENOENT, -EEXIST,
 * -ERANGE) is invalid params, the rest internal, with data.errno.
 */
int rblk_rpc_fail(struct rblk_rpc_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int rblk_rpc_fail_errno(struct rblk_rpc_err *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * One method. @params is the request's "params" (an object, or NULL when
 * absent; an array is refused before the call). On success *result gets a
 * new reference (NULL: the method's result is `true`, as SPDK's changes
 * answer) and 0 is returned; on failure @err is set (rblk_rpc_fail()) and
 * its nonzero code returned.
 */
struct rblk_rpc_method {
	const char *name;
	int (*call)(void *ctx, struct json_object *params, struct json_object **result,
		    struct rblk_rpc_err *err);
};

struct rblk_rpc_table {
	const struct rblk_rpc_method *methods;
	size_t nr;
	void *ctx; /* passed to every call */
};

/*
 * One parsed request (object) or batch (array) -> the response object or
 * array, a new reference; NULL when nothing is to be sent (notifications:
 * requests without "id"). rpc_get_methods is answered here from @t.
 */
struct json_object *rblk_rpc_dispatch(const struct rblk_rpc_table *t, struct json_object *req);

/* Bytes waiting to be written to a client. */
struct rblk_rpc_buf {
	char *data;
	size_t len;  /* bytes held */
	size_t off;  /* bytes already written */
	size_t cap;  /* bytes allocated (one more than len can reach: room for a NUL) */
};

int rblk_rpc_buf_append(struct rblk_rpc_buf *b, const char *s, size_t n);
void rblk_rpc_buf_free(struct rblk_rpc_buf *b);

/* A client's incoming byte stream: requests may arrive split or several in one read. */
struct rblk_rpc_stream {
	struct json_tokener *tok;
	size_t pending; /* bytes of the request being parsed so far */
};

int rblk_rpc_stream_init(struct rblk_rpc_stream *s);
void rblk_rpc_stream_fini(struct rblk_rpc_stream *s);
/*
 * Feeds @len bytes; each complete request is dispatched and its response
 * appended to @out (one JSON text and "\n" each). 0 to go on; -EBADMSG
 * (not JSON) or -EMSGSIZE (a request over RBLK_RPC_REQUEST_MAX) after
 * appending the error response: send @out, then close; -ENOMEM.
 */
int rblk_rpc_stream_feed(struct rblk_rpc_stream *s, const struct rblk_rpc_table *t,
			 const char *data, size_t len, struct rblk_rpc_buf *out);

/*
 * The daemon's log handler passes every message here: while a method runs,
 * the first error it logs on this thread (the configuration checks say
 * exactly what they refused) is kept, so the method can answer with it.
 */
void rblk_rpc_log_capture(int level, const char *msg);
/* That message, or "" (inside a method only). */
const char *rblk_rpc_log_captured(void);

/* ---- parameter readers (rpc_params in rpc.c), for the methods ---- */
/*
 * Each reads member @key of object @o (NULL = no params); @required: absent
 * is an error. They return 0 with *out set (absent and optional: 0 and
 * *out untouched, *present false when given) or RBLK_RPC_INVALID_PARAMS with
 * "KEY: what was wrong" in @e. @key may be a path prefix ("namespace.nsid")
 * for messages; only its last component is looked up in @o.
 */
int rblk_rpc_param_str(struct json_object *o, const char *key, bool required, const char **out,
		       bool *present, struct rblk_rpc_err *e);
int rblk_rpc_param_u32(struct json_object *o, const char *key, bool required, uint32_t min,
		       uint32_t max, uint32_t *out, bool *present, struct rblk_rpc_err *e);
int rblk_rpc_param_bool(struct json_object *o, const char *key, bool required, bool *out,
			bool *present, struct rblk_rpc_err *e);
int rblk_rpc_param_obj(struct json_object *o, const char *key, bool required,
		       struct json_object **out, struct rblk_rpc_err *e);
/*
 * One of SPDK's switches rblk does not have (passthrough, no_auto_visible,
 * ...): SPDK's rpc.py sends them false by default, so false, null or
 * absent is taken; true is refused with "KEY: @why".
 */
int rblk_rpc_param_off(struct json_object *o, const char *key, const char *why,
		       struct rblk_rpc_err *e);
/* Members of @o not in @known (NULL-terminated): invalid params naming the first. */
int rblk_rpc_param_only(struct json_object *o, const char *where, const char *const *known,
			struct rblk_rpc_err *e);

#endif

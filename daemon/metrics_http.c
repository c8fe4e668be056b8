/* SPDX-License-Identifier: MIT */
/*
 * The HTTP side of the metrics (metrics_http.h): libmicrohttpd with its own
 * polling thread, a bounded number of connections with a timeout, and one
 * path. GET (and HEAD) /metrics answer the exposition, another path 404,
 * another method 405.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <microhttpd.h>

#include <rblk/common.h>
#include <rblk/target.h>

#include "common/clock.h"
#include "common/log.h"
#include "daemon/metrics.h"
#include "daemon/metrics_http.h"

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct rblk_metrics_server {
	struct MHD_Daemon *mhd;
	struct rblk_target *tgt;
	uint64_t started_ns;
};

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	rblk_vlog(RBLK_LOG_WARN, fmt, ap);
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, char *body, size_t len,
			     bool owned)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body,
					    owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (owned)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				code == MHD_HTTP_OK ? CONTENT_TYPE : "text/plain; charset=utf-8");
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

#define REPLY_CONST(c, code, text) reply(c, code, (char *)(text), sizeof(text) - 1, false)

/* The exposition, or NULL (logged). */
static char *scrape(struct rblk_metrics_server *s, size_t *len)
{
	struct rblk_metrics_info info = { .version = rblk_version(),
					  .uptime_ns = rblk_clock_ns() - s->started_ns };
	struct json_object *st;
	char *json = NULL, *text = NULL;
	int ret;

	ret = rblk_target_stats_json(s->tgt, &json);
	if (ret) {
		RBLK_WARN("metrics: statistics: %s", strerror(-ret));
		return NULL;
	}
	st = json_tokener_parse(json);
	free(json);
	if (!st) {
		RBLK_WARN("metrics: the statistics are not JSON");
		return NULL;
	}
	ret = rblk_metrics_format(st, &info, &text, len);
	json_object_put(st);
	if (ret)
		RBLK_WARN("metrics: %s", strerror(-ret));
	return ret ? NULL : text;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req_cls)
{
	struct rblk_metrics_server *s = cls;
	char *text;
	size_t len;

	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return REPLY_CONST(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET\n");
	if (strcmp(url, "/metrics"))
		return REPLY_CONST(c, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n");
	text = scrape(s, &len);
	if (!text)
		return REPLY_CONST(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "statistics unavailable\n");
	return reply(c, MHD_HTTP_OK, text, len, true);
}

int rblk_metrics_server_start(const char *addr, struct rblk_target *tgt, uint64_t started_ns,
			      struct rblk_metrics_server **out)
{
	struct rblk_metrics_server *s;
	struct sockaddr_storage sa;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;

	if (rblk_metrics_addr_parse(addr, &sa))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->tgt = tgt;
	s->started_ns = started_ns;
	if (sa.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	s->mhd = MHD_start_daemon(flags, 0, NULL, NULL, handle, s,
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned)RBLK_METRICS_MAX_CONNS,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)RBLK_METRICS_CONN_TIMEOUT_S,
				  MHD_OPTION_END);
	if (!s->mhd) {
		/* libmicrohttpd logged why through mhd_log; errno says what most often. */
		int ret = errno == EADDRINUSE ? -EADDRINUSE : -EIO;

		free(s);
		return ret;
	}
	*out = s;
	return 0;
}

void rblk_metrics_server_stop(struct rblk_metrics_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->mhd);
	free(s);
}

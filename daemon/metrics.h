/* SPDX-License-Identifier: MIT */
/*
 * rblk-target's Prometheus metrics (docs/metrics.md): the listening address
 * as users write it, and the text exposition format made from the target's
 * statistics document (rblk_target_stats_json()). Nothing here serves HTTP
 * (metrics_http.c does), so the configuration checks and the unit tests
 * use it without libmicrohttpd.
 */
#ifndef RBLK_TARGET_METRICS_H
#define RBLK_TARGET_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct json_object;

/*
 * "ADDR:PORT", ADDR an IPv4 address or an IPv6 one in brackets, PORT
 * 1..65535: 0, with the address in @out when not NULL; -EINVAL otherwise.
 */
int rblk_metrics_addr_parse(const char *s, struct sockaddr_storage *out);

/* What the exposition says beyond the statistics document. */
struct rblk_metrics_info {
	const char *version;       /* rblk_build_info{version} */
	uint64_t uptime_ns;        /* rblk_uptime_seconds */
};

/*
 * The exposition (text format 0.0.4) of @stats, the parsed statistics
 * document, into a new string (caller frees) of *@len bytes. Keys the
 * document lacks read as zero. 0 or -ENOMEM.
 */
int rblk_metrics_format(struct json_object *stats, const struct rblk_metrics_info *info,
			char **out, size_t *len);

/* @v as a label value: \, " and newline escaped. Writes at most @cap bytes, NUL included. */
void rblk_metrics_label_escape(const char *v, char *buf, size_t cap);

#endif

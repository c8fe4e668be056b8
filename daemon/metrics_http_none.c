/* SPDX-License-Identifier: MIT */
/*
 * metrics_http.h for a build without libmicrohttpd (RBLK_METRICS=OFF, or
 * AUTO without libmicrohttpd-dev): --metrics is refused with the reason.
 */
#include <errno.h>

#include "common/log.h"
#include "daemon/metrics_http.h"

int rblk_metrics_server_start(const char *addr, struct rblk_target *tgt, uint64_t started_ns,
			      struct rblk_metrics_server **out)
{
	RBLK_ERR("metrics %s: this rblk-target was built without the metrics endpoint "
		 "(libmicrohttpd-dev was missing at build time)", addr);
	return -EOPNOTSUPP;
}

void rblk_metrics_server_stop(struct rblk_metrics_server *s)
{
}

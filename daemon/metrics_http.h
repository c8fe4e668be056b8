/* SPDX-License-Identifier: MIT */
/*
 * The Prometheus endpoint (--metrics ADDR:PORT): GET /metrics served by
 * libmicrohttpd on its own thread. A scrape reads the target's statistics
 * through the public API (rblk_target_stats_json(): the control plane's
 * locks and relaxed loads of the poll groups' counters), so it never
 * stops an I/O thread, and it never touches the daemon's configuration.
 */
#ifndef RBLK_TARGET_METRICS_HTTP_H
#define RBLK_TARGET_METRICS_HTTP_H

#include <stdint.h>

struct rblk_target;
struct rblk_metrics_server;

/* Connections served at once; more wait in the kernel's backlog. */
#define RBLK_METRICS_MAX_CONNS 16
/* A client idle this long is dropped (seconds). */
#define RBLK_METRICS_CONN_TIMEOUT_S 10

/*
 * Listens on @addr ("ADDR:PORT", metrics.h) for @tgt, which must outlive
 * the server; @started_ns (rblk_clock_ns()) is the start the uptime counts
 * from. 0, -EINVAL for a bad address, -EADDRINUSE or -EIO (the reason is
 * logged) when it cannot listen.
 */
int rblk_metrics_server_start(const char *addr, struct rblk_target *tgt, uint64_t started_ns,
			      struct rblk_metrics_server **out);
/* Stops the thread and closes the socket. NULL is fine. */
void rblk_metrics_server_stop(struct rblk_metrics_server *s);

#endif

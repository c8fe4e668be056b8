/* SPDX-License-Identifier: MIT */
/*
 * The management socket (rpc.h): a Unix stream socket whose clients are all
 * nonblocking under one epoll fd. The daemon's main loop waits on that fd
 * with its signals and calls rblk_rpc_server_process() when it is readable,
 * so requests run on the main thread, one at a time, as a SIGHUP reload
 * does, and never on an I/O thread.
 */
#ifndef RBLK_TARGET_RPC_SERVER_H
#define RBLK_TARGET_RPC_SERVER_H

#include "daemon/rpc.h"

#define RBLK_RPC_MAX_CLIENTS 128
/* Answers a client has not read yet, beyond which its requests are not read either. */
#define RBLK_RPC_OUT_MAX (4u << 20)
/*
 * With every slot taken, a new client replaces the one idle the longest if
 * that one has been idle this long; otherwise the new one is refused.
 */
#define RBLK_RPC_IDLE_EVICT_MS 5000

struct rblk_rpc_server;

/*
 * Creates the directory of @path if missing (0700), replaces a stale
 * socket (one nobody answers on), binds, makes the socket 0600 and listens.
 * -EADDRINUSE when a running daemon answers on @path; other -errno from the
 * system calls. @t must outlive the server.
 */
int rblk_rpc_server_create(const char *path, const struct rblk_rpc_table *t,
			   struct rblk_rpc_server **out);
/* Closes every client and the socket, and removes the socket file. NULL is fine. */
void rblk_rpc_server_destroy(struct rblk_rpc_server *s);
/* The fd to wait on for reading: work is waiting when it is readable. */
int rblk_rpc_server_fd(const struct rblk_rpc_server *s);
/* Accepts, reads, answers and writes whatever is ready, without blocking. */
void rblk_rpc_server_process(struct rblk_rpc_server *s);
/* Clients connected now (for tests and logs). */
unsigned rblk_rpc_server_clients(const struct rblk_rpc_server *s);

#endif

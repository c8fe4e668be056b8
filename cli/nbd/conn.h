/* SPDX-License-Identifier: MIT */
/*
 * One NBD connection, server side, over a non-blocking stream socket: reads
 * requests (in any number of pieces), checks them (cli/nbd/proto.c), hands valid
 * ones to a backend through a small ops table, and writes the simple replies
 * as the backend completes them, in whatever order that is (the cookie ties
 * a reply to its request). A fixed array of slots bounds what is in flight;
 * when all are busy the connection stops reading, which is the backpressure.
 *
 * Single-threaded: the backend completes on the thread that calls
 * rblk_nbd_conn_process() (possibly from inside submit()).
 */
#ifndef RBLK_NBD_CONN_H
#define RBLK_NBD_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "cli/nbd/proto.h"

struct rblk_nbd_conn;

/* A request in flight: the backend reads r and buf, and keeps its own state in priv. */
struct rblk_nbd_req {
	struct rblk_nbd_request r;
	void *buf;		/* r.length bytes: a WRITE's data; where a READ's goes */
	unsigned index;		/* slot number, 0..nr_slots-1 (for backend-side arrays) */
	uint64_t priv[4];	/* the backend's */
};

struct rblk_nbd_backend {
	/*
	 * Starts @req: READ, WRITE (r.flags may hold FUA), FLUSH, TRIM,
	 * WRITE_ZEROES; never DISC or CACHE (the connection answers those).
	 * Finishes with rblk_nbd_conn_complete(), maybe before returning.
	 * Returns 0, or an NBD error to fail the request at once.
	 */
	uint32_t (*submit)(void *ctx, struct rblk_nbd_req *req);
	/* After a batch of submits: post what was queued. Optional. */
	void (*flush)(void *ctx);
	/* Slot buffers (e.g. registered memory). Optional: malloc/free. */
	void *(*buf_alloc)(void *ctx, size_t len);
	void (*buf_free)(void *ctx, void *buf);
};

struct rblk_nbd_conn_opts {
	int fd;				/* our end; made non-blocking; not closed by destroy */
	struct rblk_nbd_export exp;
	unsigned nr_slots;		/* requests in flight at most (default 64) */
	uint32_t slot_buf;		/* bytes per slot buffer (default 1 MiB); longer
					 * requests get a buffer of their own for their lifetime */
	const struct rblk_nbd_backend *ops;
	void *ctx;
};

enum {
	RBLK_NBD_CONN_RUN = 0,		/* keep calling */
	RBLK_NBD_CONN_DONE = 1,		/* the client sent DISC or hung up; everything is answered */
};

struct rblk_nbd_conn_stats {
	uint64_t requests[9];		/* per command type (0..8) */
	uint64_t bytes_read, bytes_written;
	uint64_t errors;		/* replies with an error */
};

int rblk_nbd_conn_create(const struct rblk_nbd_conn_opts *opts, struct rblk_nbd_conn **out);
/* Nothing may be in flight at the backend. NULL is fine. */
void rblk_nbd_conn_destroy(struct rblk_nbd_conn *c);
/*
 * Reads and dispatches requests while slots are free and writes finished
 * replies, until the socket would block. RBLK_NBD_CONN_RUN, RBLK_NBD_CONN_DONE,
 * or -errno: -EPROTO (a bad request magic: the stream is lost), or a socket
 * error. The connection is unusable after an error.
 */
int rblk_nbd_conn_process(struct rblk_nbd_conn *c);
/* The backend finished @req: @error is 0 or an NBD error. Queues the reply. */
void rblk_nbd_conn_complete(struct rblk_nbd_conn *c, struct rblk_nbd_req *req, uint32_t error);
/* poll(2) events to wait for: POLLIN when a slot is free, POLLOUT when replies wait. */
short rblk_nbd_conn_events(const struct rblk_nbd_conn *c);
/* Requests with the backend (submitted, not completed). */
unsigned rblk_nbd_conn_inflight(const struct rblk_nbd_conn *c);
const struct rblk_nbd_conn_stats *rblk_nbd_conn_stats(const struct rblk_nbd_conn *c);

#endif

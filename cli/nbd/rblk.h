/* SPDX-License-Identifier: MIT */
/*
 * The NBD backend over an rblk namespace, and the loop that serves one NBD
 * connection with it: the kernel's requests become rblk_io on the serving
 * thread's own queue pair (READ, WRITE with FUA, FLUSH, TRIM = Dataset
 * Management deallocate, WRITE_ZEROES), and completions become replies.
 *
 * While the library reconnects to the target, requests simply wait in it;
 * once the controller is lost (ctrl_loss_tmo), they fail and the kernel sees
 * EIO. With a multipath head, requests move to another path instead and
 * wait (no_path_tmo) only when no path is usable. A full queue (-EAGAIN) parks the request and retries after the next
 * poll.
 */
#ifndef RBLK_NBD_RBLK_H
#define RBLK_NBD_RBLK_H

#include <stdint.h>

#include <rblk/initiator.h>

#include "cli/nbd/conn.h"

/* An NVMe status as the NBD error the client gets. */
uint32_t rblk_nbd_status_error(uint16_t status);

struct rblk_nbd_serve_opts {
	int fd;				/* our end of the socket pair */
	struct rblk_nbd_export exp;
	struct rblk_ctrl *ctrl;		/* with mpath: one of its paths (buffers registered there) */
	struct rblk_ns *ns;
	struct rblk_mpath *mpath;	/* several paths: the queue pair comes from the head */
	unsigned nr_slots;		/* requests in flight (default 32) */
	uint32_t slot_buf;		/* registered bytes per slot (default 256 KiB) */
	int stop_fd;			/* readable = stop now (-1: none) */
};

/*
 * Serves the connection on the calling thread until the client disconnects
 * (NBD_CMD_DISC or hang-up: returns 0) or @stop_fd becomes readable
 * (returns 0 after the requests in flight finish, or 10 s), or a fatal
 * error (-errno). @stats (may be NULL) gets the connection's counts.
 */
int rblk_nbd_serve(const struct rblk_nbd_serve_opts *o, struct rblk_nbd_conn_stats *stats);

#endif

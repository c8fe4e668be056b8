/* SPDX-License-Identifier: MIT */
/*
 * The ublk backend over an rblk namespace, and the loop that serves one ublk
 * queue with it on the calling thread: the kernel's requests become rblk_io
 * on the thread's own queue pair (READ, WRITE with FUA, FLUSH, DISCARD =
 * Dataset Management deallocate, WRITE_ZEROES), and completions become the
 * answers (bytes done or -errno).
 *
 * The tag buffers are registered memory (rblk_buf_alloc), so data is copied
 * once, between the kernel's pages and the buffer, and never in the library.
 * While the library reconnects to the target, requests wait in it; once the
 * controller is lost (ctrl_loss_tmo) they fail with -EIO. A full queue pair
 * (-EAGAIN) parks the request until the next poll.
 */
#ifndef RBLK_CLI_UBLK_RBLK_H
#define RBLK_CLI_UBLK_RBLK_H

#include <stdint.h>

#include <rblk/initiator.h>

#include "cli/ublk/queue.h"
#include "cli/ublk/uapi.h"

/* An NVMe status as the -errno the kernel gets: -EIO unless a better one fits. */
int rblk_ublk_status_errno(uint16_t status);
/* What a finished rblk_io answers: @status (NVMe) or @err (-errno of the library). */
int rblk_ublk_io_errno(uint16_t status, int err);

/*
 * Fills @io (op, lba, nlb, flags, buf) for the request @iod with data in @buf
 * (@buf_bytes long) on @ns with @block_size-byte blocks. 0, or the -errno the
 * request fails with: -EOPNOTSUPP for operations we do not serve, -EINVAL
 * for a range that is not whole blocks or does not fit the buffer.
 * *@bytes gets what a success answers (the length for READ and WRITE, else 0).
 */
int rblk_ublk_io_from_desc(const struct ublksrv_io_desc *iod, struct rblk_ns *ns, uint32_t block_size,
			   void *buf, uint32_t buf_bytes, struct rblk_io *io, int32_t *bytes);

struct rblk_ublk_serve_opts {
	int char_fd;			/* /dev/ublkcN */
	unsigned q_id, depth;
	uint32_t buf_bytes;		/* per tag; max_sectors * 512 */
	struct rblk_ctrl *ctrl;
	struct rblk_ns *ns;
	struct rblk_mpath *mpath;	/* several paths: the queue pair comes from the head */
	int stop_fd;			/* readable = give up waiting for the kernel (-1: none) */
	/*
	 * Called once, on the serving thread: with 0 when every tag's
	 * FETCH_REQ is with the kernel (START_DEV may go), or with the -errno
	 * that ends the thread before that.
	 */
	void (*ready)(void *arg, int ret);
	void *ready_arg;
};

/*
 * Serves queue q_id on the calling thread until the kernel aborts every tag
 * (STOP_DEV, or the device's removal: returns 0), until @stop_fd becomes
 * readable and 10 s pass without the aborts (requests still with the
 * target then fail with -EIO; returns 0), or a fatal error (-errno).
 * @stats (may be NULL) gets the queue's counts.
 */
int rblk_ublk_serve(const struct rblk_ublk_serve_opts *o, struct rblk_ublk_queue_stats *stats);

#endif

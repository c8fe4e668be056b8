/* SPDX-License-Identifier: MIT */
/*
 * One ublk device for `rblk attach --ublk`, from ADD_DEV to DEL_DEV: the
 * parameters, /dev/ublkcN, one serving thread per queue (each with its own
 * queue pair and io_uring, cli/ublk/rblk.c), START_DEV once every queue has
 * fetched its tags; STOP_DEV, the threads' end and DEL_DEV on the way out.
 * Also what `rblk detach` and a new attach do to devices of others: stop
 * them, and delete those whose attach process died.
 *
 * UBLK_F_USER_RECOVERY is never set: when the serving process dies, the
 * kernel fails the requests in flight and removes /dev/ublkbN, so no task
 * hangs on a dead server; only the device's entry (/dev/ublkcN) stays until
 * someone sends DEL_DEV.
 */
#ifndef RBLK_CLI_UBLK_DEV_H
#define RBLK_CLI_UBLK_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rblk/initiator.h>

#include "cli/ublk/queue.h"

struct rblk_ublk_dev;

struct rblk_ublk_dev_opts {
	struct rblk_ctrl *ctrl;		/* with mpath: one of its paths (Identify, MDTS, buffers) */
	struct rblk_ns *ns;
	struct rblk_mpath *mpath;	/* several paths: queue pairs from the head (NULL: ctrl's) */
	int index;			/* /dev/ublkbN to create, -1: the kernel picks */
	unsigned nr_queues;		/* the kernel caps it at the number of CPUs */
	unsigned depth;			/* tags per queue */
	bool read_only;
	int done_fd;			/* eventfd: each serving thread adds 1 as it ends */
};

/*
 * Creates and starts the device; its queues are served from here on. 0, or
 * -errno with a message in @why (everything undone): -ENOENT no ublk in the
 * kernel, -EEXIST the index is taken, -EPERM not root.
 */
int rblk_ublk_dev_start(const struct rblk_ublk_dev_opts *o, struct rblk_ublk_dev **out, char *why,
			size_t whylen);
int rblk_ublk_dev_id(const struct rblk_ublk_dev *d);
unsigned rblk_ublk_dev_nr_queues(const struct rblk_ublk_dev *d);
/*
 * STOP_DEV: removes /dev/ublkbN once the requests in flight are answered
 * (those still with the target after 10 s fail with -EIO); the serving
 * threads then see every tag aborted and end. 0 or -errno.
 */
int rblk_ublk_dev_stop(struct rblk_ublk_dev *d);
/*
 * Ends the serving threads (waiting at most 10 s more for the kernel's
 * aborts), closes /dev/ublkcN, sends DEL_DEV and frees. @stats (may be NULL)
 * gets each queue's counts (nr_queues entries). Returns 0, or the first
 * error a serving thread ended with.
 */
int rblk_ublk_dev_destroy(struct rblk_ublk_dev *d, struct rblk_ublk_queue_stats *stats);

/* "/dev/ublkb3" or "ublkb3" -> 3. 0 or -EINVAL. */
int rblk_ublk_parse_device(const char *s, int *id);

/* /dev/ublk-control exists, or `modprobe ublk_drv` made it exist. */
bool rblk_ublk_available(void);

/*
 * `rblk detach`: STOP_DEV for device @id (its attach process then deletes
 * it) and waits up to @wait_s for it to be gone; a device whose attach
 * process is dead is deleted here. 0, -ENODEV (no such device),
 * -ETIMEDOUT, or -errno with a message in @why.
 */
int rblk_ublk_detach(int id, double wait_s, char *why, size_t whylen);

#endif

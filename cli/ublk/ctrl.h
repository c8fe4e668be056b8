/* SPDX-License-Identifier: MIT */
/*
 * The ublk control channel: /dev/ublk-control and the small io_uring
 * (128-byte SQEs) that carries its commands. Every call is synchronous: it
 * submits one URING_CMD and waits for its completion. One handle per thread.
 *
 * START_DEV blocks until every queue of the device has fetched all its tags
 * and the kernel has read the partition table through them; STOP_DEV blocks
 * until the requests in flight are answered; DEL_DEV blocks until nobody
 * holds /dev/ublkcN open. The queues must be served meanwhile by other
 * threads (or processes).
 */
#ifndef RBLK_CLI_UBLK_CTRL_H
#define RBLK_CLI_UBLK_CTRL_H

#include <stdint.h>

#include "cli/ublk/uapi.h"

struct io_uring_sqe;
struct rblk_ublk_ctrl;

/* Opens the control device: -ENOENT when the kernel has no ublk (module not loaded). */
int rblk_ublk_ctrl_open(struct rblk_ublk_ctrl **out);
void rblk_ublk_ctrl_close(struct rblk_ublk_ctrl *c);

/*
 * ADD_DEV: @info in (queues, depth, buffer size, flags, dev_id or
 * UBLK_DEV_ID_ANY) and out (what the kernel made of it: the id, queues
 * clamped to the CPUs, the flags it forces). -EEXIST: the id is taken.
 */
int rblk_ublk_ctrl_add(struct rblk_ublk_ctrl *c, struct ublksrv_ctrl_dev_info *info);
int rblk_ublk_ctrl_set_params(struct rblk_ublk_ctrl *c, uint32_t dev_id, const struct ublk_params *p);
/* START_DEV: @pid is the serving process (the kernel shows it in GET_DEV_INFO). */
int rblk_ublk_ctrl_start(struct rblk_ublk_ctrl *c, uint32_t dev_id, int32_t pid);
int rblk_ublk_ctrl_stop(struct rblk_ublk_ctrl *c, uint32_t dev_id);
int rblk_ublk_ctrl_del(struct rblk_ublk_ctrl *c, uint32_t dev_id);
/* GET_DEV_INFO: -ENODEV when there is no such device. */
int rblk_ublk_ctrl_get_info(struct rblk_ublk_ctrl *c, uint32_t dev_id, struct ublksrv_ctrl_dev_info *info);

/* The command in a 128-byte SQE, as the calls above send it (for tests). */
void rblk_ublk_ctrl_prep(struct io_uring_sqe *sqe, int fd, uint32_t op, const struct ublksrv_ctrl_cmd *cmd);
/* "ADD_DEV", ... for logs. */
const char *rblk_ublk_ctrl_op_str(uint32_t op);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The ublk control commands (see cli/ublk/ctrl.h): each one a URING_CMD on
 * /dev/ublk-control through a ring of 128-byte SQEs, since the kernel takes
 * control commands only from SQE128 rings (the command is 32 bytes, the
 * command area of a plain SQE only 16). liburing 2.3 has no helper for
 * URING_CMD, so the SQE is filled here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <liburing.h>

#include "cli/ublk/ctrl.h"

struct rblk_ublk_ctrl {
	int fd;
	struct io_uring ring;
};

int rblk_ublk_ctrl_open(struct rblk_ublk_ctrl **out)
{
	struct rblk_ublk_ctrl *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return -ENOMEM;
	c->fd = open(UBLK_CONTROL_PATH, O_RDWR | O_CLOEXEC);
	if (c->fd < 0) {
		ret = -errno;
		goto out_free;
	}
	ret = io_uring_queue_init(4, &c->ring, IORING_SETUP_SQE128);
	if (ret)
		goto out_close;
	*out = c;
	return 0;

out_close:
	close(c->fd);
out_free:
	free(c);
	return ret;
}

void rblk_ublk_ctrl_close(struct rblk_ublk_ctrl *c)
{
	if (!c)
		return;
	io_uring_queue_exit(&c->ring);
	close(c->fd);
	free(c);
}

void rblk_ublk_ctrl_prep(struct io_uring_sqe *sqe, int fd, uint32_t op, const struct ublksrv_ctrl_cmd *cmd)
{
	memset(sqe, 0, 2 * sizeof(*sqe));	/* an SQE128 slot is two plain SQEs long */
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = op;
	sqe->user_data = op;
	memcpy(sqe->cmd, cmd, sizeof(*cmd));
}

const char *rblk_ublk_ctrl_op_str(uint32_t op)
{
	switch (op) {
	case UBLK_U_CMD_GET_DEV_INFO: return "GET_DEV_INFO";
	case UBLK_U_CMD_ADD_DEV: return "ADD_DEV";
	case UBLK_U_CMD_DEL_DEV: return "DEL_DEV";
	case UBLK_U_CMD_START_DEV: return "START_DEV";
	case UBLK_U_CMD_STOP_DEV: return "STOP_DEV";
	case UBLK_U_CMD_SET_PARAMS: return "SET_PARAMS";
	}
	return "?";
}

/* One command, synchronously: the CQE's result (0 or -errno). */
static int exec(struct rblk_ublk_ctrl *c, uint32_t op, const struct ublksrv_ctrl_cmd *cmd)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&c->ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		return -EBUSY;	/* cannot happen: one command at a time */
	rblk_ublk_ctrl_prep(sqe, c->fd, op, cmd);
	ret = io_uring_submit(&c->ring);
	if (ret < 0)
		return ret;
	do
		ret = io_uring_wait_cqe(&c->ring, &cqe);
	while (ret == -EINTR);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(&c->ring, cqe);
	return ret < 0 ? ret : 0;
}

static struct ublksrv_ctrl_cmd cmd_for(uint32_t dev_id, void *buf, uint16_t len)
{
	return (struct ublksrv_ctrl_cmd){
		.dev_id = dev_id,
		.queue_id = UBLK_QUEUE_ID_NONE,	/* none of ours is a per-queue command */
		.len = len,
		.addr = (uint64_t)(uintptr_t)buf,
	};
}

int rblk_ublk_ctrl_add(struct rblk_ublk_ctrl *c, struct ublksrv_ctrl_dev_info *info)
{
	/* the kernel wants the id twice, in the command and in the info */
	struct ublksrv_ctrl_cmd cmd = cmd_for(info->dev_id, info, sizeof(*info));

	return exec(c, UBLK_U_CMD_ADD_DEV, &cmd);
}

int rblk_ublk_ctrl_set_params(struct rblk_ublk_ctrl *c, uint32_t dev_id, const struct ublk_params *p)
{
	struct ublksrv_ctrl_cmd cmd = cmd_for(dev_id, (void *)(uintptr_t)p, (uint16_t)p->len);

	return exec(c, UBLK_U_CMD_SET_PARAMS, &cmd);
}

int rblk_ublk_ctrl_start(struct rblk_ublk_ctrl *c, uint32_t dev_id, int32_t pid)
{
	struct ublksrv_ctrl_cmd cmd = cmd_for(dev_id, NULL, 0);

	cmd.data[0] = (uint64_t)pid;
	return exec(c, UBLK_U_CMD_START_DEV, &cmd);
}

int rblk_ublk_ctrl_stop(struct rblk_ublk_ctrl *c, uint32_t dev_id)
{
	struct ublksrv_ctrl_cmd cmd = cmd_for(dev_id, NULL, 0);

	return exec(c, UBLK_U_CMD_STOP_DEV, &cmd);
}

int rblk_ublk_ctrl_del(struct rblk_ublk_ctrl *c, uint32_t dev_id)
{
	struct ublksrv_ctrl_cmd cmd = cmd_for(dev_id, NULL, 0);

	return exec(c, UBLK_U_CMD_DEL_DEV, &cmd);
}

int rblk_ublk_ctrl_get_info(struct rblk_ublk_ctrl *c, uint32_t dev_id, struct ublksrv_ctrl_dev_info *info)
{
	struct ublksrv_ctrl_cmd cmd = cmd_for(dev_id, info, sizeof(*info));

	memset(info, 0, sizeof(*info));
	return exec(c, UBLK_U_CMD_GET_DEV_INFO, &cmd);
}

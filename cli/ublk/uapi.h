/* SPDX-License-Identifier: MIT */
/*
 * The part of the kernel's ublk ABI (Linux 6.0+, drivers/block/ublk_drv.c)
 * that `rblk attach --ublk` uses, restated here so that we build against any
 * distribution's headers (Debian 12 ships the 6.1 header, which lacks the
 * ioctl-encoded command numbers and UBLK_F_CMD_IOCTL_ENCODE).
 *
 * Two channels:
 *  - /dev/ublk-control takes control commands (add, parameters, start, stop,
 *    delete, info) as io_uring URING_CMDs in 128-byte SQEs: the 32-byte
 *    struct ublksrv_ctrl_cmd is the SQE's command area.
 *  - /dev/ublkcN (one per device) takes the I/O commands of every queue as
 *    URING_CMDs in ordinary 64-byte SQEs (struct ublksrv_io_cmd is 16 bytes),
 *    and maps each queue's array of request descriptors read-only.
 *
 * Layouts are pinned with _Static_assert: these are wire structs shared with
 * the kernel.
 */
#ifndef RBLK_CLI_UBLK_UAPI_H
#define RBLK_CLI_UBLK_UAPI_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/ioctl.h>

#define UBLK_CONTROL_PATH "/dev/ublk-control"
#define UBLK_CHAR_PREFIX "/dev/ublkc"	/* + device id */
#define UBLK_BLOCK_PREFIX "/dev/ublkb"	/* + device id */

/* Command numbers (the ioctl "nr"); ioctl-encoded forms below. */
#define UBLK_CMD_GET_DEV_INFO 0x02
#define UBLK_CMD_ADD_DEV 0x04
#define UBLK_CMD_DEL_DEV 0x05
#define UBLK_CMD_START_DEV 0x06
#define UBLK_CMD_STOP_DEV 0x07
#define UBLK_CMD_SET_PARAMS 0x08
#define UBLK_IO_FETCH_REQ 0x20
#define UBLK_IO_COMMIT_AND_FETCH_REQ 0x21

/* Control command, the SQE's command area on /dev/ublk-control (SQE128). */
struct ublksrv_ctrl_cmd {
	uint32_t dev_id;	/* the device; ADD_DEV: the wanted id or UBLK_DEV_ID_ANY */
	uint16_t queue_id;	/* UBLK_QUEUE_ID_NONE unless the command is per queue */
	uint16_t len;		/* bytes at addr */
	uint64_t addr;		/* the command's buffer (in or out) */
	uint64_t data[1];	/* inline argument: START_DEV takes the server's pid */
	uint16_t dev_path_len;	/* unprivileged devices only; 0 here */
	uint16_t pad;
	uint32_t reserved;
};
_Static_assert(sizeof(struct ublksrv_ctrl_cmd) == 32, "ublksrv_ctrl_cmd size");
_Static_assert(offsetof(struct ublksrv_ctrl_cmd, addr) == 8, "ublksrv_ctrl_cmd addr");
_Static_assert(offsetof(struct ublksrv_ctrl_cmd, data) == 16, "ublksrv_ctrl_cmd data");

#define UBLK_DEV_ID_ANY UINT32_MAX
#define UBLK_QUEUE_ID_NONE UINT16_MAX

/* I/O command, the SQE's command area on /dev/ublkcN. */
struct ublksrv_io_cmd {
	uint16_t q_id;
	uint16_t tag;
	int32_t result;		/* COMMIT_AND_FETCH: bytes done, or -errno */
	uint64_t addr;		/* the tag's data buffer in our address space */
};
_Static_assert(sizeof(struct ublksrv_io_cmd) == 16, "ublksrv_io_cmd size");

/* The ioctl-encoded opcodes (UBLK_F_CMD_IOCTL_ENCODE; the only form from 6.x on). */
#define UBLK_U_CMD_GET_DEV_INFO _IOR('u', UBLK_CMD_GET_DEV_INFO, struct ublksrv_ctrl_cmd)
#define UBLK_U_CMD_ADD_DEV _IOWR('u', UBLK_CMD_ADD_DEV, struct ublksrv_ctrl_cmd)
#define UBLK_U_CMD_DEL_DEV _IOWR('u', UBLK_CMD_DEL_DEV, struct ublksrv_ctrl_cmd)
#define UBLK_U_CMD_START_DEV _IOWR('u', UBLK_CMD_START_DEV, struct ublksrv_ctrl_cmd)
#define UBLK_U_CMD_STOP_DEV _IOWR('u', UBLK_CMD_STOP_DEV, struct ublksrv_ctrl_cmd)
#define UBLK_U_CMD_SET_PARAMS _IOWR('u', UBLK_CMD_SET_PARAMS, struct ublksrv_ctrl_cmd)
#define UBLK_U_IO_FETCH_REQ _IOWR('u', UBLK_IO_FETCH_REQ, struct ublksrv_io_cmd)
#define UBLK_U_IO_COMMIT_AND_FETCH_REQ _IOWR('u', UBLK_IO_COMMIT_AND_FETCH_REQ, struct ublksrv_io_cmd)

/* The result of a FETCH / COMMIT_AND_FETCH completion (cqe->res). */
#define UBLK_IO_RES_OK 0		/* a request for this tag: read its descriptor */
#define UBLK_IO_RES_ABORT (-ENODEV)	/* the queue is going away: no more requests */

/* Device flags (ADD_DEV info.flags). */
#define UBLK_F_URING_CMD_COMP_IN_TASK (1ull << 1)
#define UBLK_F_USER_RECOVERY (1ull << 3)	/* never set: see cli/ublk/dev.c */
#define UBLK_F_CMD_IOCTL_ENCODE (1ull << 6)

/* Device state (info.state). */
#define UBLK_S_DEV_DEAD 0
#define UBLK_S_DEV_LIVE 1
#define UBLK_S_DEV_QUIESCED 2

#define UBLK_MAX_QUEUE_DEPTH 4096	/* tags are 12 bits */

struct ublksrv_ctrl_dev_info {
	uint16_t nr_hw_queues;
	uint16_t queue_depth;
	uint16_t state;			/* UBLK_S_DEV_* */
	uint16_t pad0;
	uint32_t max_io_buf_bytes;
	uint32_t dev_id;
	int32_t ublksrv_pid;		/* the serving process; -1 once stopped */
	uint32_t pad1;
	uint64_t flags;			/* UBLK_F_* */
	uint64_t ublksrv_flags;		/* the server's own: the kernel keeps and returns it */
	uint32_t owner_uid, owner_gid;
	uint64_t reserved1, reserved2;
};
_Static_assert(sizeof(struct ublksrv_ctrl_dev_info) == 64, "ublksrv_ctrl_dev_info size");
_Static_assert(offsetof(struct ublksrv_ctrl_dev_info, ublksrv_pid) == 16, "dev_info ublksrv_pid");
_Static_assert(offsetof(struct ublksrv_ctrl_dev_info, ublksrv_flags) == 32, "dev_info ublksrv_flags");

/* Request operations (the low 8 bits of op_flags). */
#define UBLK_IO_OP_READ 0
#define UBLK_IO_OP_WRITE 1
#define UBLK_IO_OP_FLUSH 2
#define UBLK_IO_OP_DISCARD 3
#define UBLK_IO_OP_WRITE_SAME 4
#define UBLK_IO_OP_WRITE_ZEROES 5
/* Request flags, in op_flags as they are (not shifted). */
#define UBLK_IO_F_FUA (1u << 13)
#define UBLK_IO_F_NOUNMAP (1u << 15)

/* One request, in the queue's shared descriptor array, indexed by tag. */
struct ublksrv_io_desc {
	uint32_t op_flags;		/* op: bits 7:0, flags: the rest */
	uint32_t nr_sectors;		/* 512-byte sectors, whatever the block size */
	uint64_t start_sector;
	uint64_t addr;			/* the buffer FETCH gave for this tag */
};
_Static_assert(sizeof(struct ublksrv_io_desc) == 24, "ublksrv_io_desc size");

static inline unsigned ublk_iod_op(const struct ublksrv_io_desc *iod)
{
	return iod->op_flags & 0xff;
}

/*
 * Where queue Q's descriptor array is in /dev/ublkcN: each queue has room for
 * the largest depth, page-aligned; a queue maps only what its depth needs
 * (the kernel checks the length exactly).
 */
#define UBLK_DESC_OFFSET 0
static inline uint64_t ublk_desc_room(long page)
{
	uint64_t b = UBLK_MAX_QUEUE_DEPTH * sizeof(struct ublksrv_io_desc);

	return (b + (uint64_t)page - 1) / (uint64_t)page * (uint64_t)page;
}
static inline uint64_t ublk_desc_offset(unsigned q_id, long page)
{
	return UBLK_DESC_OFFSET + (uint64_t)q_id * ublk_desc_room(page);
}
static inline size_t ublk_desc_len(unsigned depth, long page)
{
	size_t b = depth * sizeof(struct ublksrv_io_desc);

	return (b + (size_t)page - 1) / (size_t)page * (size_t)page;
}

/* Parameters (SET_PARAMS). */
#define UBLK_ATTR_READ_ONLY (1u << 0)
#define UBLK_ATTR_ROTATIONAL (1u << 1)
#define UBLK_ATTR_VOLATILE_CACHE (1u << 2)
#define UBLK_ATTR_FUA (1u << 3)

struct ublk_param_basic {
	uint32_t attrs;			/* UBLK_ATTR_* */
	uint8_t logical_bs_shift;
	uint8_t physical_bs_shift;
	uint8_t io_opt_shift;
	uint8_t io_min_shift;
	uint32_t max_sectors;		/* at most max_io_buf_bytes / 512 */
	uint32_t chunk_sectors;
	uint64_t dev_sectors;
	uint64_t virt_boundary_mask;
};
_Static_assert(sizeof(struct ublk_param_basic) == 32, "ublk_param_basic size");

struct ublk_param_discard {
	uint32_t discard_alignment;
	uint32_t discard_granularity;	/* must not be 0 */
	uint32_t max_discard_sectors;
	uint32_t max_write_zeroes_sectors;
	uint16_t max_discard_segments;	/* the kernel takes only 1 */
	uint16_t reserved0;
};
_Static_assert(sizeof(struct ublk_param_discard) == 20, "ublk_param_discard size");

#define UBLK_PARAM_TYPE_BASIC (1u << 0)
#define UBLK_PARAM_TYPE_DISCARD (1u << 1)

/*
 * The parameters we send. Later kernels append more types after discard
 * (devt, zoned, ...): we send only up to discard (UBLK_PARAMS_LEN), and the
 * kernel zeroes what it has beyond.
 */
struct ublk_params {
	uint32_t len;			/* bytes of this struct sent: UBLK_PARAMS_LEN */
	uint32_t types;			/* UBLK_PARAM_TYPE_* present */
	struct ublk_param_basic basic;
	struct ublk_param_discard discard;
};
#define UBLK_PARAMS_LEN (offsetof(struct ublk_params, discard) + sizeof(struct ublk_param_discard))
_Static_assert(offsetof(struct ublk_params, basic) == 8, "ublk_params basic");
_Static_assert(offsetof(struct ublk_params, discard) == 40, "ublk_params discard");
_Static_assert(UBLK_PARAMS_LEN == 60, "ublk_params length sent");

#endif

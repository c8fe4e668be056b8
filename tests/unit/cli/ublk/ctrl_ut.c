/* SPDX-License-Identifier: MIT */
/*
 * Tests for cli/ublk/ctrl.c and cli/ublk/uapi.h: the opcodes are the numbers
 * the kernel's ioctl-encoded ublk commands have, and a control command lands
 * in a 128-byte SQE where the kernel reads it.
 */
#include <liburing.h>
#include <stddef.h>
#include <string.h>

#include "cli/ublk/ctrl.h"
#include "cli/ublk/uapi.h"
#include "ut.h"

static void test_opcode_numbers(void)
{
	/* _IOWR('u', nr, 32 bytes) = 0xc020_75nn; _IOR = 0x8020_75nn; the I/O ones carry 16 bytes */
	CU_ASSERT_EQUAL(UBLK_U_CMD_GET_DEV_INFO, 0x80207502u);
	CU_ASSERT_EQUAL(UBLK_U_CMD_ADD_DEV, 0xc0207504u);
	CU_ASSERT_EQUAL(UBLK_U_CMD_DEL_DEV, 0xc0207505u);
	CU_ASSERT_EQUAL(UBLK_U_CMD_START_DEV, 0xc0207506u);
	CU_ASSERT_EQUAL(UBLK_U_CMD_STOP_DEV, 0xc0207507u);
	CU_ASSERT_EQUAL(UBLK_U_CMD_SET_PARAMS, 0xc0207508u);
	CU_ASSERT_EQUAL(UBLK_U_IO_FETCH_REQ, 0xc0107520u);
	CU_ASSERT_EQUAL(UBLK_U_IO_COMMIT_AND_FETCH_REQ, 0xc0107521u);
}

static void test_descriptor_offsets(void)
{
	/* room for 4096 descriptors of 24 bytes per queue: 96 KiB with 4 KiB pages */
	CU_ASSERT_EQUAL(ublk_desc_room(4096), 98304);
	CU_ASSERT_EQUAL(ublk_desc_offset(0, 4096), 0);
	CU_ASSERT_EQUAL(ublk_desc_offset(3, 4096), 3 * 98304);
	/* a queue maps what its depth needs, in whole pages */
	CU_ASSERT_EQUAL(ublk_desc_len(32, 4096), 4096);
	CU_ASSERT_EQUAL(ublk_desc_len(171, 4096), 8192);
	CU_ASSERT_EQUAL(ublk_desc_len(170, 4096), 4096);
}

static void test_prep_fills_a_128_byte_sqe(void)
{
	struct io_uring_sqe sqe[2];
	struct ublksrv_ctrl_cmd cmd = { .dev_id = 7, .queue_id = UBLK_QUEUE_ID_NONE, .len = 64,
					.addr = 0x1122334455667788ull, .data = { 4242 } };
	struct ublksrv_ctrl_cmd got;

	memset(sqe, 0xa5, sizeof(sqe));
	rblk_ublk_ctrl_prep(sqe, 9, UBLK_U_CMD_START_DEV, &cmd);
	CU_ASSERT_EQUAL(sqe->opcode, IORING_OP_URING_CMD);
	CU_ASSERT_EQUAL(sqe->fd, 9);
	CU_ASSERT_EQUAL(sqe->cmd_op, UBLK_U_CMD_START_DEV);
	CU_ASSERT_EQUAL(sqe->flags, 0);
	CU_ASSERT_EQUAL(sqe->user_data, UBLK_U_CMD_START_DEV);
	/* the command area starts at byte 48 and runs into the second half */
	CU_ASSERT_EQUAL(offsetof(struct io_uring_sqe, cmd), 48);
	memcpy(&got, (uint8_t *)sqe + 48, sizeof(got));
	CU_ASSERT_EQUAL(memcmp(&got, &cmd, sizeof(cmd)), 0);
	CU_ASSERT_EQUAL(got.data[0], 4242);
	/* and nothing of the old bytes is left past it */
	for (size_t i = 48 + sizeof(cmd); i < sizeof(sqe); i++)
		CU_ASSERT_EQUAL_FATAL(((uint8_t *)sqe)[i], 0);
}

static void test_op_names(void)
{
	CU_ASSERT_STRING_EQUAL(rblk_ublk_ctrl_op_str(UBLK_U_CMD_ADD_DEV), "ADD_DEV");
	CU_ASSERT_STRING_EQUAL(rblk_ublk_ctrl_op_str(UBLK_U_CMD_STOP_DEV), "STOP_DEV");
	CU_ASSERT_STRING_EQUAL(rblk_ublk_ctrl_op_str(UBLK_CMD_ADD_DEV), "?");	/* the legacy form */
}

static const struct ut_case cases[] = {
	UT_CASE(test_opcode_numbers),
	UT_CASE(test_descriptor_offsets),
	UT_CASE(test_prep_fills_a_128_byte_sqe),
	UT_CASE(test_op_names),
	UT_END,
};

UT_MAIN("cli/ublk/ctrl", cases)

/* SPDX-License-Identifier: MIT */
/* Tests for cli/nbd/proto.c: wire bytes, request checks, flags, error values. */
#include <errno.h>
#include <string.h>

#include "cli/nbd/proto.h"
#include "ut.h"

static void test_request_wire_bytes(void)
{
	/* what the kernel sends for a 4 KiB FUA write at 1 MiB, cookie "ABCDEFGH" */
	static const uint8_t wire[28] = {
		0x25, 0x60, 0x95, 0x13, 0x00, 0x01, 0x00, 0x01, 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H',
		0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
	};
	struct rblk_nbd_request r;
	uint8_t back[28];

	CU_ASSERT_EQUAL(rblk_nbd_req_decode(wire, &r), 0);
	CU_ASSERT_EQUAL(r.type, RBLK_NBD_CMD_WRITE);
	CU_ASSERT_EQUAL(r.flags, RBLK_NBD_CMD_FLAG_FUA);
	CU_ASSERT_EQUAL(r.offset, 1 << 20);
	CU_ASSERT_EQUAL(r.length, 4096);
	CU_ASSERT_EQUAL(memcmp(&r.cookie, "ABCDEFGH", 8), 0);
	CU_ASSERT_TRUE(rblk_nbd_req_has_payload(&r));
	rblk_nbd_req_encode(back, &r);
	CU_ASSERT_EQUAL(memcmp(back, wire, 28), 0);
}

static void test_bad_magic(void)
{
	uint8_t wire[28] = { 0x25, 0x60, 0x95, 0x14 };
	struct rblk_nbd_request r;

	CU_ASSERT_EQUAL(rblk_nbd_req_decode(wire, &r), -EPROTO);
}

static void test_reply_wire_bytes(void)
{
	static const uint8_t want[16] = { 0x67, 0x44, 0x66, 0x98, 0, 0, 0, 22, 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t b[16];
	uint64_t cookie, back;
	uint32_t err;

	memcpy(&cookie, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	rblk_nbd_reply_encode(b, RBLK_NBD_EINVAL, cookie);
	CU_ASSERT_EQUAL(memcmp(b, want, 16), 0);
	CU_ASSERT_EQUAL(rblk_nbd_reply_decode(b, &err, &back), 0);
	CU_ASSERT_EQUAL(err, 22);
	CU_ASSERT_EQUAL(back, cookie);
	b[0] = 0;
	CU_ASSERT_EQUAL(rblk_nbd_reply_decode(b, &err, &back), -EPROTO);
}

static uint32_t check(uint16_t tflags, uint16_t type, uint16_t flags, uint64_t off, uint32_t len)
{
	struct rblk_nbd_export e = { .size = 1 << 20, .block_size = 512, .tflags = tflags };
	struct rblk_nbd_request r = { .type = type, .flags = flags, .offset = off, .length = len };

	return rblk_nbd_req_check(&e, &r);
}

static void test_checks(void)
{
	uint16_t all = rblk_nbd_tflags(false, true, true, false);
	uint16_t ro = rblk_nbd_tflags(true, true, true, false);
	uint16_t none = RBLK_NBD_FLAG_HAS_FLAGS;

	CU_ASSERT_EQUAL(check(all, RBLK_NBD_CMD_READ, 0, 0, 4096), RBLK_NBD_OK);
	CU_ASSERT_EQUAL(check(all, RBLK_NBD_CMD_READ, 0, (1 << 20) - 512, 512), RBLK_NBD_OK);
	CU_ASSERT_EQUAL(check(all, RBLK_NBD_CMD_READ, 0, (1 << 20) - 512, 1024), RBLK_NBD_EINVAL);
	CU_ASSERT_EQUAL(check(all, RBLK_NBD_CMD_READ, 0, UINT64_MAX - 100, 512), RBLK_NBD_EINVAL);
	CU_ASSERT_EQUAL(check(all, RBLK_NBD_CMD_WRITE, 0, (1 << 20), 512), RBLK_NBD_ENOSPC);
	CU_ASSERT_EQUAL(check(all, RBLK_NBD_CMD_WRITE_ZEROES, 0, (1 << 20), 512), RBLK_NBD_ENOSPC);
	CU_ASSERT_EQUAL(check(all, RBLK_NBD_CMD_TRIM, 0, (1 << 20), 512), RBLK_NBD_EINVAL);
	CU_ASSERT_EQUAL(check(all, RBLK_NBD_CMD_READ, 0, 100, 512), RBLK_NBD_EINVAL);
	CU_ASSERT_EQUAL(check(all, RBLK_NBD_CMD_WRITE, 0, 512, 100), RBLK_NBD_EINVAL);
	CU_ASSERT_EQUAL(check(all, RBLK_NBD_CMD_WRITE, RBLK_NBD_CMD_FLAG_FUA, 0, 512), RBLK_NBD_OK);
	CU_ASSERT_EQUAL(check(none, RBLK_NBD_CMD_WRITE, RBLK_NBD_CMD_FLAG_FUA, 0, 512), RBLK_NBD_EINVAL);
	CU_ASSERT_EQUAL(check(all, RBLK_NBD_CMD_READ, RBLK_NBD_CMD_FLAG_FUA, 0, 512), RBLK_NBD_EINVAL);
	CU_ASSERT_EQUAL(check(all, RBLK_NBD_CMD_READ, RBLK_NBD_CMD_FLAG_DF, 0, 512), RBLK_NBD_EINVAL);
	CU_ASSERT_EQUAL(check(all, RBLK_NBD_CMD_WRITE_ZEROES, RBLK_NBD_CMD_FLAG_NO_HOLE, 0, 512), RBLK_NBD_OK);
	CU_ASSERT_EQUAL(check(all, RBLK_NBD_CMD_FLUSH, 0, 0, 0), RBLK_NBD_OK);
	CU_ASSERT_EQUAL(check(none, RBLK_NBD_CMD_FLUSH, 0, 0, 0), RBLK_NBD_EINVAL);
	CU_ASSERT_EQUAL(check(none, RBLK_NBD_CMD_TRIM, 0, 0, 512), RBLK_NBD_EINVAL);
	CU_ASSERT_EQUAL(check(none, RBLK_NBD_CMD_WRITE_ZEROES, 0, 0, 512), RBLK_NBD_EINVAL);
	CU_ASSERT_EQUAL(check(all, RBLK_NBD_CMD_CACHE, 0, 0, 512), RBLK_NBD_OK);
	CU_ASSERT_EQUAL(check(all, RBLK_NBD_CMD_BLOCK_STATUS, 0, 0, 512), RBLK_NBD_EINVAL);
	CU_ASSERT_EQUAL(check(all, RBLK_NBD_CMD_RESIZE, 0, 0, 0), RBLK_NBD_EINVAL);
	CU_ASSERT_EQUAL(check(all, 42, 0, 0, 512), RBLK_NBD_EINVAL);
	/* read-only: every write-like command is refused, reads are not */
	CU_ASSERT_EQUAL(check(ro, RBLK_NBD_CMD_WRITE, 0, 0, 512), RBLK_NBD_EPERM);
	CU_ASSERT_EQUAL(check(ro, RBLK_NBD_CMD_TRIM, 0, 0, 512), RBLK_NBD_EINVAL);	/* not offered when ro */
	CU_ASSERT_EQUAL(check(ro | RBLK_NBD_FLAG_SEND_TRIM, RBLK_NBD_CMD_TRIM, 0, 0, 512), RBLK_NBD_EPERM);
	CU_ASSERT_EQUAL(check(ro, RBLK_NBD_CMD_READ, 0, 0, 512), RBLK_NBD_OK);
	/* longer than we ever accept */
	{
		struct rblk_nbd_export e = { .size = 1ULL << 40, .block_size = 512, .tflags = all };
		struct rblk_nbd_request r = { .type = RBLK_NBD_CMD_READ, .length = RBLK_NBD_MAX_LEN + 512 };

		CU_ASSERT_EQUAL(rblk_nbd_req_check(&e, &r), RBLK_NBD_EOVERFLOW);
		r.type = RBLK_NBD_CMD_TRIM;	/* trims may be long: nothing is transferred */
		CU_ASSERT_EQUAL(rblk_nbd_req_check(&e, &r), RBLK_NBD_OK);
	}
}

/* A namespace resized while served: the live size decides, not the size at connect. */
static void test_live_size(void)
{
	_Atomic uint64_t live = 2 << 20;
	struct rblk_nbd_export e = { .size = 1 << 20, .block_size = 512,
				     .tflags = rblk_nbd_tflags(false, true, true, false), .live_size = &live };
	struct rblk_nbd_request r = { .type = RBLK_NBD_CMD_WRITE, .offset = (2 << 20) - 4096, .length = 4096 };

	CU_ASSERT_EQUAL(rblk_nbd_req_check(&e, &r), RBLK_NBD_OK);	/* grown: past the old end */
	r.offset = 2 << 20;
	CU_ASSERT_EQUAL(rblk_nbd_req_check(&e, &r), RBLK_NBD_ENOSPC);
	atomic_store(&live, 512 << 10);					/* shrunk below the old size */
	r.offset = 512 << 10;
	CU_ASSERT_EQUAL(rblk_nbd_req_check(&e, &r), RBLK_NBD_ENOSPC);
	r.type = RBLK_NBD_CMD_READ;
	CU_ASSERT_EQUAL(rblk_nbd_req_check(&e, &r), RBLK_NBD_EINVAL);
	r.offset = 0;
	CU_ASSERT_EQUAL(rblk_nbd_req_check(&e, &r), RBLK_NBD_OK);
}

static void test_tflags(void)
{
	uint16_t f = rblk_nbd_tflags(false, true, false, true);

	CU_ASSERT_TRUE(f & RBLK_NBD_FLAG_HAS_FLAGS);
	CU_ASSERT_TRUE(f & RBLK_NBD_FLAG_SEND_FLUSH);
	CU_ASSERT_TRUE(f & RBLK_NBD_FLAG_SEND_FUA);
	CU_ASSERT_TRUE(f & RBLK_NBD_FLAG_SEND_TRIM);
	CU_ASSERT_FALSE(f & RBLK_NBD_FLAG_SEND_WRITE_ZEROES);
	CU_ASSERT_TRUE(f & RBLK_NBD_FLAG_CAN_MULTI_CONN);
	CU_ASSERT_FALSE(f & RBLK_NBD_FLAG_READ_ONLY);
	f = rblk_nbd_tflags(true, true, true, false);
	CU_ASSERT_TRUE(f & RBLK_NBD_FLAG_READ_ONLY);
	CU_ASSERT_FALSE(f & (RBLK_NBD_FLAG_SEND_TRIM | RBLK_NBD_FLAG_SEND_WRITE_ZEROES));
	CU_ASSERT_FALSE(f & RBLK_NBD_FLAG_CAN_MULTI_CONN);
}

static void test_errors_and_names(void)
{
	CU_ASSERT_EQUAL(rblk_nbd_error(0), 0);
	CU_ASSERT_EQUAL(rblk_nbd_error(-EROFS), RBLK_NBD_EPERM);
	CU_ASSERT_EQUAL(rblk_nbd_error(-ENOTCONN), RBLK_NBD_EIO);
	CU_ASSERT_EQUAL(rblk_nbd_error(-ENOSPC), RBLK_NBD_ENOSPC);
	CU_ASSERT_EQUAL(rblk_nbd_error(-ENOMEM), RBLK_NBD_ENOMEM);
	CU_ASSERT_STRING_EQUAL(rblk_nbd_cmd_str(RBLK_NBD_CMD_WRITE_ZEROES), "WRITE_ZEROES");
	CU_ASSERT_STRING_EQUAL(rblk_nbd_cmd_str(99), "?");
}

static const struct ut_case cases[] = {
	UT_CASE(test_request_wire_bytes),
	UT_CASE(test_bad_magic),
	UT_CASE(test_reply_wire_bytes),
	UT_CASE(test_checks),
	UT_CASE(test_live_size),
	UT_CASE(test_tflags),
	UT_CASE(test_errors_and_names),
	UT_END,
};

UT_MAIN("cli/nbd/proto", cases)

/* SPDX-License-Identifier: MIT */
/*
 * Drives the NBD request decoder and the server's request checks
 * (cli/nbd/proto.c) with a request from the input against an export whose
 * size, block size and flags also come from the input. Checks: decode and
 * encode round-trip; a request the checks accept is (when it has a range)
 * aligned and inside the export, a READ or WRITE no longer than
 * RBLK_NBD_MAX_LEN, a known command the flags
 * offered, and not a write to a read-only export; replies round-trip.
 *
 * With bit 7 of the block-shift byte set, the export follows a live size
 * (a namespace resized while served): half the size given.
 *
 * Input: [size u32 LE][block shift u8][tflags u16 LE][28-byte request].
 */
#include "cli/nbd/proto.h"
#include "fuzz.h"

#define HDR 7

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t req[RBLK_NBD_REQ_SIZE], again[RBLK_NBD_REQ_SIZE], rep[RBLK_NBD_REPLY_SIZE];
	struct rblk_nbd_export e = { 0 };
	struct rblk_nbd_request r;
	_Atomic uint64_t live = 0;
	uint64_t cookie, end;
	uint32_t err;

	if (size < HDR + RBLK_NBD_REQ_SIZE)
		return 0;
	e.size = (uint64_t)(data[0] | data[1] << 8 | data[2] << 16 | (uint32_t)data[3] << 24) << 9;
	e.block_size = 1u << (9 + data[4] % 4);
	e.tflags = (uint16_t)(data[5] | data[6] << 8);
	if (data[4] & 0x80) {
		live = e.size / 2;
		e.live_size = &live;
	}
	end = e.live_size ? live : e.size;
	memcpy(req, data + HDR, sizeof(req));

	if (rblk_nbd_req_decode(req, &r))
		return 0;
	rblk_nbd_req_encode(again, &r);
	FUZZ_CHECK(!memcmp(req, again, sizeof(req)));
	err = rblk_nbd_req_check(&e, &r);
	if (err == 0) {
		bool sized = r.type == RBLK_NBD_CMD_READ || r.type == RBLK_NBD_CMD_WRITE ||
			     r.type == RBLK_NBD_CMD_TRIM || r.type == RBLK_NBD_CMD_WRITE_ZEROES;

		FUZZ_CHECK(r.type <= RBLK_NBD_CMD_RESIZE);
		/* Only READ and WRITE carry data: a TRIM may be longer. */
		if (r.type == RBLK_NBD_CMD_READ || r.type == RBLK_NBD_CMD_WRITE)
			FUZZ_CHECK(r.length <= RBLK_NBD_MAX_LEN);
		if (sized) {
			FUZZ_CHECK(r.offset % e.block_size == 0 && r.length % e.block_size == 0);
			FUZZ_CHECK(r.offset <= end && r.length <= end - r.offset);
		}
		if (r.type == RBLK_NBD_CMD_WRITE || r.type == RBLK_NBD_CMD_TRIM ||
		    r.type == RBLK_NBD_CMD_WRITE_ZEROES)
			FUZZ_CHECK(!(e.tflags & RBLK_NBD_FLAG_READ_ONLY));
		if (r.type == RBLK_NBD_CMD_TRIM)
			FUZZ_CHECK(e.tflags & RBLK_NBD_FLAG_SEND_TRIM);
		if (r.type == RBLK_NBD_CMD_WRITE_ZEROES)
			FUZZ_CHECK(e.tflags & RBLK_NBD_FLAG_SEND_WRITE_ZEROES);
		if (r.flags & RBLK_NBD_CMD_FLAG_FUA)
			FUZZ_CHECK(e.tflags & RBLK_NBD_FLAG_SEND_FUA);
	}
	(void)rblk_nbd_cmd_str(r.type);
	rblk_nbd_reply_encode(rep, err, r.cookie);
	FUZZ_CHECK(rblk_nbd_reply_decode(rep, &err, &cookie) == 0 && cookie == r.cookie);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	static const uint16_t types[] = { RBLK_NBD_CMD_READ, RBLK_NBD_CMD_WRITE,
					  RBLK_NBD_CMD_TRIM, RBLK_NBD_CMD_FLUSH, RBLK_NBD_CMD_DISC };
	struct rblk_nbd_request r = { .cookie = 0x0102030405060708ull, .offset = 4096,
				      .length = 8192 };
	uint16_t tf = rblk_nbd_tflags(false, true, true, false);

	if (idx >= sizeof(types) / sizeof(types[0]) || max < HDR + RBLK_NBD_REQ_SIZE)
		return 0;
	r.type = types[idx];
	r.flags = idx == 1 ? RBLK_NBD_CMD_FLAG_FUA : 0;
	memset(buf, 0, HDR);
	buf[1] = 8; /* 2048 x 512 bytes: 1 MiB */
	buf[5] = (uint8_t)tf;
	buf[6] = (uint8_t)(tf >> 8);
	rblk_nbd_req_encode(buf + HDR, &r);
	return HDR + RBLK_NBD_REQ_SIZE;
}

/* SPDX-License-Identifier: MIT */
/*
 * Fuzz rblk_sgl_decode() on a 64-byte SQE. Two extra input bytes pick the
 * queue limits and the data direction. Checks: failures carry DNR and an error
 * location inside the SQE; successes respect the limits; keyed descriptors
 * re-encode to the same 16 bytes.
 */
#include "fuzz.h"
#include "protocol/sgl.h"

static void check(const struct nvme_sqe *sqe, const struct rblk_sgl_limits *lim, bool h2c)
{
	struct rblk_sgl s;
	struct nvme_sgl_desc again;
	uint16_t st = rblk_sgl_decode(sqe, lim, h2c, &s);

	if (st) {
		FUZZ_CHECK(st & NVME_SC_DNR);
		FUZZ_CHECK(s.err_loc < 64);
		FUZZ_CHECK(s.kind == RBLK_SGL_NONE);
		return;
	}
	/* PSDT SGL; FUSE is the target core's to judge, not the descriptor's. */
	FUZZ_CHECK((sqe->flags & 0xC0) == 0x40);
	switch (s.kind) {
	case RBLK_SGL_NONE:
		FUZZ_CHECK(s.len == 0);
		break;
	case RBLK_SGL_KEYED:
	case RBLK_SGL_KEYED_INV:
		FUZZ_CHECK(s.len > 0 && s.len <= lim->max_xfer && s.len <= NVME_SGL_KEYED_MAX_LEN);
		FUZZ_CHECK(rblk_sgl_encode_keyed(&again, s.addr, s.len, s.key,
						 s.kind == RBLK_SGL_KEYED_INV) == 0);
		FUZZ_CHECK(memcmp(&again, &sqe->sgl1, 16) == 0);
		break;
	case RBLK_SGL_INCAPSULE:
		FUZZ_CHECK(h2c);
		FUZZ_CHECK(s.len > 0);
		FUZZ_CHECK((uint64_t)s.offset + s.len <= lim->incapsule_max);
		break;
	default:
		FUZZ_CHECK(0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t incap[] = { 0, 1024, 4096, 16384 };
	static const uint32_t xfer[] = { 0, 4096, 1u << 20, NVME_SGL_KEYED_MAX_LEN };
	struct rblk_sgl_limits lim;
	uint8_t msg[64];
	struct nvme_sqe sqe;
	uint8_t mode, sel;

	if (size < 2)
		return 0;
	mode = data[0];
	sel = data[1];
	data += 2;
	size -= 2;
	memset(msg, 0, sizeof(msg));
	if (mode & 1) {
		msg[1] = 0x40;
		rblk_sgl_encode_keyed((struct nvme_sgl_desc *)(msg + 24), 0x1000, 4096, 0x1234, false);
		fuzz_patch(msg, sizeof(msg), data, size);
	} else {
		memcpy(msg, data, size < sizeof(msg) ? size : sizeof(msg));
	}
	memcpy(&sqe, msg, sizeof(sqe));
	lim.incapsule_max = incap[sel & 3];
	lim.max_xfer = xfer[(sel >> 2) & 3];
	check(&sqe, &lim, (sel >> 4) & 1);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	struct nvme_sqe sqe;

	if (max < 66)
		return 0;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opc = NVME_IO_WRITE;
	sqe.flags = 0x40;
	switch (idx) {
	case 0:
		rblk_sgl_encode_keyed(&sqe.sgl1, 0x7F0012340000ull, 0x20000, 0xABCD, true);
		break;
	case 1:
		rblk_sgl_encode_incapsule(&sqe.sgl1, 0, 4096);
		break;
	case 2:
		rblk_sgl_encode_null(&sqe.sgl1);
		break;
	default:
		return 0;
	}
	buf[0] = 0;
	buf[1] = 0x1A; /* 4096 in-capsule, 1 MiB, host to controller */
	memcpy(buf + 2, &sqe, sizeof(sqe));
	return 66;
}

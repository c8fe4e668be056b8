/* SPDX-License-Identifier: MIT */
/* Tests for protocol/sgl.c: encoders byte by byte, every decode rule and status. */
#include <errno.h>
#include <string.h>

#include "protocol/sgl.h"
#include "ut.h"

static const struct rblk_sgl_limits lim = { .incapsule_max = 4096, .max_xfer = 1 << 20 };

static void make_sqe(struct nvme_sqe *sqe, uint8_t flags, const uint8_t desc[16])
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->opc = 0x01;
	sqe->flags = flags;
	memcpy(&sqe->sgl1, desc, 16);
}

static void test_encode_keyed_bytes(void)
{
	static const uint8_t want[16] = { 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
					  0x56, 0x34, 0x12, 0xDD, 0xCC, 0xBB, 0xAA, 0x40 };
	struct nvme_sgl_desc d;

	memset(&d, 0xEE, sizeof(d));
	CU_ASSERT_EQUAL(rblk_sgl_encode_keyed(&d, 0x1122334455667788ull, 0x123456, 0xAABBCCDD, false), 0);
	CU_ASSERT_EQUAL(memcmp(&d, want, 16), 0);

	CU_ASSERT_EQUAL(rblk_sgl_encode_keyed(&d, 0x1122334455667788ull, 0x123456, 0xAABBCCDD, true), 0);
	CU_ASSERT_EQUAL(memcmp(&d, want, 15), 0);
	CU_ASSERT_EQUAL(((uint8_t *)&d)[15], 0x4F);
}

static void test_encode_keyed_len_limit(void)
{
	struct nvme_sgl_desc d;
	static const uint8_t zero[16];

	CU_ASSERT_EQUAL(rblk_sgl_encode_keyed(&d, 1, 0xFFFFFF, 2, false), 0);
	CU_ASSERT_EQUAL(rblk_get_le24(d.keyed.length), 0xFFFFFF);
	CU_ASSERT_EQUAL(rblk_sgl_encode_keyed(&d, 1, 0x1000000, 2, false), -EINVAL);
	CU_ASSERT_EQUAL(memcmp(&d, zero, 16), 0);
}

static void test_encode_incapsule_bytes(void)
{
	static const uint8_t want[16] = { 0x10, 0, 0, 0, 0, 0, 0, 0,
					  0x00, 0x10, 0x00, 0x00, 0, 0, 0, 0x01 };
	struct nvme_sgl_desc d;

	memset(&d, 0xEE, sizeof(d));
	rblk_sgl_encode_incapsule(&d, 0x10, 0x1000);
	CU_ASSERT_EQUAL(memcmp(&d, want, 16), 0);
}

static void test_encode_null_bytes(void)
{
	static const uint8_t want[16] = { [15] = 0x40 };
	struct nvme_sgl_desc d;

	memset(&d, 0xEE, sizeof(d));
	rblk_sgl_encode_null(&d);
	CU_ASSERT_EQUAL(memcmp(&d, want, 16), 0);
}

static void test_decode_keyed_round_trip(void)
{
	struct nvme_sqe sqe;
	struct rblk_sgl s;

	memset(&sqe, 0, sizeof(sqe));
	sqe.flags = 0x40;
	rblk_sgl_encode_keyed(&sqe.sgl1, 0xFFFF800012345678ull, 0x80000, 0xDEADBEEF, false);
	CU_ASSERT_EQUAL(rblk_sgl_decode(&sqe, &lim, false, &s), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(s.kind, RBLK_SGL_KEYED);
	CU_ASSERT_EQUAL(s.addr, 0xFFFF800012345678ull);
	CU_ASSERT_EQUAL(s.len, 0x80000);
	CU_ASSERT_EQUAL(s.key, 0xDEADBEEF);

	rblk_sgl_encode_keyed(&sqe.sgl1, 0x1000, 512, 7, true);
	CU_ASSERT_EQUAL(rblk_sgl_decode(&sqe, &lim, true, &s), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(s.kind, RBLK_SGL_KEYED_INV);
	CU_ASSERT_EQUAL(s.key, 7);
	CU_ASSERT_EQUAL(s.len, 512);
}

static void test_decode_keyed_from_bytes(void)
{
	static const uint8_t d[16] = { 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
				       0x56, 0x34, 0x02, 0xDD, 0xCC, 0xBB, 0xAA, 0x4F };
	struct nvme_sqe sqe;
	struct rblk_sgl s;

	make_sqe(&sqe, 0x40, d);
	CU_ASSERT_EQUAL(rblk_sgl_decode(&sqe, &lim, false, &s), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(s.kind, RBLK_SGL_KEYED_INV);
	CU_ASSERT_EQUAL(s.addr, 0x1122334455667788ull);
	CU_ASSERT_EQUAL(s.len, 0x023456);
	CU_ASSERT_EQUAL(s.key, 0xAABBCCDD);
}

static void test_decode_null_is_no_data(void)
{
	struct nvme_sqe sqe;
	struct rblk_sgl s;

	memset(&sqe, 0, sizeof(sqe));
	sqe.flags = 0x40;
	rblk_sgl_encode_null(&sqe.sgl1);
	CU_ASSERT_EQUAL(rblk_sgl_decode(&sqe, &lim, false, &s), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(s.kind, RBLK_SGL_NONE);
	CU_ASSERT_EQUAL(s.len, 0);
	/* A zero-length keyed descriptor is "no data" even with a key / address. */
	rblk_sgl_encode_keyed(&sqe.sgl1, 0x1000, 0, 0x55, true);
	CU_ASSERT_EQUAL(rblk_sgl_decode(&sqe, &lim, true, &s), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(s.kind, RBLK_SGL_NONE);
}

static void test_decode_keyed_too_long(void)
{
	struct nvme_sqe sqe;
	struct rblk_sgl s;

	memset(&sqe, 0, sizeof(sqe));
	sqe.flags = 0x40;
	rblk_sgl_encode_keyed(&sqe.sgl1, 0x1000, lim.max_xfer, 1, false);
	CU_ASSERT_EQUAL(rblk_sgl_decode(&sqe, &lim, false, &s), NVME_SC_SUCCESS);
	rblk_sgl_encode_keyed(&sqe.sgl1, 0x1000, lim.max_xfer + 1, 1, false);
	CU_ASSERT_EQUAL(rblk_sgl_decode(&sqe, &lim, false, &s), NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	CU_ASSERT_EQUAL(s.err_loc, 24);
	CU_ASSERT_EQUAL(s.kind, RBLK_SGL_NONE);
}

static void test_decode_flags(void)
{
	struct nvme_sqe sqe;
	struct rblk_sgl s;
	static const uint8_t bad_flags[] = { 0x00, 0x80, 0xC0, 0x01, 0x02, 0x83 };

	memset(&sqe, 0, sizeof(sqe));
	rblk_sgl_encode_keyed(&sqe.sgl1, 0x1000, 512, 1, false);
	for (size_t i = 0; i < sizeof(bad_flags); i++) {
		sqe.flags = bad_flags[i];
		CU_ASSERT_EQUAL(rblk_sgl_decode(&sqe, &lim, false, &s),
				NVME_SC_INVALID_FIELD | NVME_SC_DNR);
		CU_ASSERT_EQUAL(s.err_loc, 1);
	}
	/* Bits 5:2 are reserved but not checked by nvmet; only PSDT matters here. */
	sqe.flags = 0x40 | 0x04;
	CU_ASSERT_EQUAL(rblk_sgl_decode(&sqe, &lim, false, &s), NVME_SC_SUCCESS);
	/*
	 * The halves of a fused Compare and Write carry data like any command:
	 * FUSE is judged by the target core, not by the data's descriptor.
	 */
	for (uint8_t f = 0x41; f <= 0x43; f++) {
		sqe.flags = f;
		CU_ASSERT_EQUAL(rblk_sgl_decode(&sqe, &lim, false, &s), NVME_SC_SUCCESS);
	}
}

static void test_decode_incapsule(void)
{
	struct nvme_sqe sqe;
	struct rblk_sgl s;

	memset(&sqe, 0, sizeof(sqe));
	sqe.flags = 0x40;
	rblk_sgl_encode_incapsule(&sqe.sgl1, 0, 4096);
	CU_ASSERT_EQUAL(rblk_sgl_decode(&sqe, &lim, true, &s), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(s.kind, RBLK_SGL_INCAPSULE);
	CU_ASSERT_EQUAL(s.offset, 0);
	CU_ASSERT_EQUAL(s.len, 4096);

	rblk_sgl_encode_incapsule(&sqe.sgl1, 96, 4000);
	CU_ASSERT_EQUAL(rblk_sgl_decode(&sqe, &lim, true, &s), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(s.offset, 96);
	CU_ASSERT_EQUAL(s.len, 4000);

	/* Past the in-capsule area by one byte. */
	rblk_sgl_encode_incapsule(&sqe.sgl1, 1, 4096);
	CU_ASSERT_EQUAL(rblk_sgl_decode(&sqe, &lim, true, &s), NVME_SC_SGL_INVALID_OFFSET | NVME_SC_DNR);
	CU_ASSERT_EQUAL(s.err_loc, 24);

	/* A 64-bit offset that would wrap offset + len. */
	sqe.sgl1.addr = rblk_cpu_to_le64(UINT64_MAX);
	CU_ASSERT_EQUAL(rblk_sgl_decode(&sqe, &lim, true, &s), NVME_SC_SGL_INVALID_OFFSET | NVME_SC_DNR);
	sqe.sgl1.addr = rblk_cpu_to_le64(0);
	sqe.sgl1.data.length = rblk_cpu_to_le32(UINT32_MAX);
	CU_ASSERT_EQUAL(rblk_sgl_decode(&sqe, &lim, true, &s), NVME_SC_SGL_INVALID_OFFSET | NVME_SC_DNR);

	/* In-capsule data on a read: Invalid Field. */
	rblk_sgl_encode_incapsule(&sqe.sgl1, 0, 512);
	CU_ASSERT_EQUAL(rblk_sgl_decode(&sqe, &lim, false, &s), NVME_SC_INVALID_FIELD | NVME_SC_DNR);

	/* Admin queue: no in-capsule area at all. */
	{
		const struct rblk_sgl_limits admin = { .incapsule_max = 0, .max_xfer = 1 << 20 };

		rblk_sgl_encode_incapsule(&sqe.sgl1, 0, 1024);
		CU_ASSERT_EQUAL(rblk_sgl_decode(&sqe, &admin, true, &s),
				NVME_SC_SGL_INVALID_OFFSET | NVME_SC_DNR);
		rblk_sgl_encode_incapsule(&sqe.sgl1, 0, 0);
		CU_ASSERT_EQUAL(rblk_sgl_decode(&sqe, &admin, true, &s), NVME_SC_SUCCESS);
		CU_ASSERT_EQUAL(s.kind, RBLK_SGL_NONE);
	}
}

/* Every type byte lands in the class nvmet puts it in. */
static void test_decode_every_type_byte(void)
{
	struct nvme_sqe sqe;
	struct rblk_sgl s;

	for (unsigned t = 0; t < 256; t++) {
		uint16_t want, got;

		memset(&sqe, 0, sizeof(sqe));
		sqe.flags = 0x40;
		rblk_put_le32(&sqe.sgl1.data.length, 16); /* small for both layouts */
		sqe.sgl1.raw[7] = (uint8_t)t;
		if (t == 0x01 || t == 0x40 || t == 0x4F)
			want = NVME_SC_SUCCESS;
		else if ((t >> 4) == 0x0 || (t >> 4) == 0x4)
			want = NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		else
			want = NVME_SC_SGL_INVALID_TYPE | NVME_SC_DNR;
		got = rblk_sgl_decode(&sqe, &lim, true, &s);
		CU_ASSERT_EQUAL(got, want);
		if (got != want)
			fprintf(stderr, "type %#x: got %#x want %#x\n", t, got, want);
	}
}

static void test_check_len(void)
{
	struct rblk_sgl s = { .kind = RBLK_SGL_KEYED, .len = 4096 };

	CU_ASSERT_EQUAL(rblk_sgl_check_len(&s, 4096, false), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(rblk_sgl_check_len(&s, 4095, false), NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	CU_ASSERT_EQUAL(rblk_sgl_check_len(&s, 4097, false), NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	/* DSM: the Linux host sends 4096 bytes for one 16-byte range. */
	CU_ASSERT_EQUAL(rblk_sgl_check_len(&s, 16, true), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(rblk_sgl_check_len(&s, 4112, true), NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
	s.len = 0;
	s.kind = RBLK_SGL_NONE;
	CU_ASSERT_EQUAL(rblk_sgl_check_len(&s, 0, false), NVME_SC_SUCCESS);
	CU_ASSERT_EQUAL(rblk_sgl_check_len(&s, 4096, false), NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR);
}

static const struct ut_case cases[] = {
	UT_CASE(test_encode_keyed_bytes),
	UT_CASE(test_encode_keyed_len_limit),
	UT_CASE(test_encode_incapsule_bytes),
	UT_CASE(test_encode_null_bytes),
	UT_CASE(test_decode_keyed_round_trip),
	UT_CASE(test_decode_keyed_from_bytes),
	UT_CASE(test_decode_null_is_no_data),
	UT_CASE(test_decode_keyed_too_long),
	UT_CASE(test_decode_flags),
	UT_CASE(test_decode_incapsule),
	UT_CASE(test_decode_every_type_byte),
	UT_CASE(test_check_len),
	UT_END,
};

UT_MAIN("protocol/sgl", cases)

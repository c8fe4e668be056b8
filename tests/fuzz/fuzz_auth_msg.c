/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the rest of the controller's authentication parsing
 * (protocol/auth_ctrl.c): the Authentication Send/Receive SQE, the common
 * message header, DH-HMAC-CHAP_Success2 and AUTH_Failure2; and round-trip the
 * messages it builds. Checks: an accepted SQE has SECP 0xE9, SPSP 1/1 and a
 * non-zero length, a refusal is Invalid Field | DNR at one of those bytes;
 * Success2 is 16 bytes and Failure2 8; a built Failure1 reads back as sent.
 */
#include "fuzz.h"
#include "protocol/auth_ctrl.h"
#include "protocol/le.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nvmf_auth_cmd c;
	struct rblk_auth_msg_hdr h;
	uint8_t msg[64], out[64], exp, r;
	uint32_t len;
	uint16_t loc, t_id, st;
	size_t n;
	int built;

	if (size < 1)
		return 0;
	memset(msg, 0, sizeof(msg));
	if (data[0] & 1) {
		msg[0] = 0x7f;
		msg[4] = NVMF_FCTYPE_AUTH_SEND;
		msg[41] = 1;
		msg[42] = 1;
		msg[43] = 0xe9;
		msg[44] = 72;
		fuzz_patch(msg, sizeof(msg), data + 1, size - 1);
		n = 16;
	} else {
		n = size - 1 < sizeof(msg) ? size - 1 : sizeof(msg);
		memcpy(msg, data + 1, n);
	}

	memcpy(&c, msg, sizeof(c));
	st = rblk_auth_cmd_decode(&c, &len, &loc);
	if (st) {
		FUZZ_CHECK(st == (NVME_SC_INVALID_FIELD | NVME_SC_DNR));
		FUZZ_CHECK(loc >= 41 && loc <= 44);
	} else {
		FUZZ_CHECK(c.secp == 0xe9 && c.spsp0 == 1 && c.spsp1 == 1 && len != 0);
	}

	/* The same bytes as a message of n bytes. */
	r = rblk_auth_msg_peek(msg, n, &h);
	FUZZ_CHECK(r == 0 ? n >= 6 : n < 6);
	r = rblk_auth_success2_parse(msg, n, &t_id);
	if (!r)
		FUZZ_CHECK(n == 16 && msg[0] == 1 && msg[1] == NVMF_AUTH_ID_SUCCESS2 &&
			   t_id == rblk_get_le16(msg + 4));
	r = rblk_auth_failure2_parse(msg, n, &t_id, &exp);
	if (!r)
		FUZZ_CHECK(n == 8 && msg[0] == 0 && msg[1] == NVMF_AUTH_ID_FAILURE2 && exp == msg[7]);

	/* A Failure1 the controller builds from these values reads back the same. */
	built = rblk_auth_failure1_build(out, n, rblk_get_le16(msg), msg[2]);
	if (built < 0) {
		FUZZ_CHECK(n < 8);
	} else {
		FUZZ_CHECK(built == 8 && out[1] == NVMF_AUTH_ID_FAILURE1 && out[6] == 1);
		FUZZ_CHECK(rblk_get_le16(out + 4) == rblk_get_le16(msg) && out[7] == msg[2]);
	}
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	uint8_t m[64];

	memset(m, 0, sizeof(m));
	switch (idx) {
	case 0: /* Authentication Receive, AL 4096 */
		m[0] = 0x7f;
		m[4] = NVMF_FCTYPE_AUTH_RECV;
		m[41] = 1;
		m[42] = 1;
		m[43] = 0xe9;
		m[45] = 0x10;
		return fuzz_seed_raw(buf, max, m, 64);
	case 1: /* Success2 */
		m[0] = NVMF_AUTH_TYPE_DHCHAP;
		m[1] = NVMF_AUTH_ID_SUCCESS2;
		m[4] = 3;
		return fuzz_seed_raw(buf, max, m, 16);
	case 2: /* Failure2, authentication failed */
		m[1] = NVMF_AUTH_ID_FAILURE2;
		m[4] = 3;
		m[6] = 1;
		m[7] = 1;
		return fuzz_seed_raw(buf, max, m, 8);
	}
	return 0;
}

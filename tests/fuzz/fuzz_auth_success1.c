/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the host's parser of what answers DH-HMAC-CHAP_Reply
 * (protocol/auth_host.c: rblk_auth_success1_parse), for each hash length the
 * challenge may have set. The message sits in a buffer of exactly its length.
 * Checks: an accepted Success1 gives the controller's response only when
 * rvalid is set, as hl bytes inside the buffer; a refusal is AUTH_Failure1
 * (-EACCES) or an explanation the host may send in AUTH_Failure2 (-EPROTO).
 */
#include <errno.h>

#include "fuzz.h"
#include "protocol/auth_host.h"

#define TID 0x0304

static size_t valid(uint8_t *m, uint8_t hl, bool rvalid)
{
	memset(m, 0, 16 + 64);
	m[0] = NVMF_AUTH_TYPE_DHCHAP;
	m[1] = NVMF_AUTH_ID_SUCCESS1;
	m[4] = TID & 0xFF;
	m[5] = TID >> 8;
	m[6] = hl;
	m[8] = rvalid ? NVMF_AUTH_RVALID : 0;
	for (unsigned i = 0; i < hl; i++)
		m[16 + i] = (uint8_t)(i + 0x40);
	return 16 + (size_t)hl;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t hls[] = { 32, 48, 64 };
	static uint8_t msg[256];
	const uint8_t *rval = (const uint8_t *)1;
	uint8_t *copy, hl, exp = 0;
	size_t len;
	int ret;

	if (size < 2)
		return 0;
	hl = hls[data[1] % 3];
	if (data[0] & 1) {
		len = valid(msg, hl, true);
		fuzz_patch(msg, len, data + 2, size - 2);
	} else {
		len = size - 2 < sizeof(msg) ? size - 2 : sizeof(msg);
		memcpy(msg, data + 2, len);
	}
	copy = malloc(len ? len : 1);
	if (!copy)
		return 0;
	memcpy(copy, msg, len);
	ret = rblk_auth_success1_parse(copy, len, TID, hl, &rval, &exp);
	if (ret == 0) {
		FUZZ_CHECK(len >= 16 && copy[6] == hl);
		if (copy[8] & NVMF_AUTH_RVALID)
			FUZZ_CHECK(rval == copy + 16 && 16 + (size_t)hl <= len);
		else
			FUZZ_CHECK(rval == NULL);
	} else if (ret == -EACCES) {
		FUZZ_CHECK(copy[0] == NVMF_AUTH_TYPE_COMMON && copy[1] == NVMF_AUTH_ID_FAILURE1);
		FUZZ_CHECK(rval == NULL && exp == copy[7]);
	} else {
		FUZZ_CHECK(ret == -EPROTO && rval == NULL);
		FUZZ_CHECK(exp == NVMF_AUTH_FAIL_INCORRECT_PAYLOAD ||
			   exp == NVMF_AUTH_FAIL_INCORRECT_PROTOCOL ||
			   exp == NVMF_AUTH_FAIL_HASH_UNUSABLE);
	}
	free(copy);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	uint8_t m[16 + 64];
	size_t len;

	if (idx > 3 || max < 2 + sizeof(m))
		return 0;
	buf[0] = 0;
	buf[1] = (uint8_t)idx;	/* hl 32, 48, 64, 32 */
	switch (idx) {
	case 0:
		len = valid(m, 32, false);
		break;
	case 1:
		len = valid(m, 48, true);
		break;
	case 2:
		len = valid(m, 64, true);
		break;
	default:
		buf[0] = 1;	/* patch mode, no patches */
		return 2;
	}
	memcpy(buf + 2, m, len);
	return len + 2;
}

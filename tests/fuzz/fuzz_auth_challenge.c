/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the host's parser of what answers AUTH_Negotiate (protocol/auth_host.c:
 * rblk_auth_challenge_parse): a DH-HMAC-CHAP_Challenge, an AUTH_Failure1, or
 * anything a controller may send. The message sits in a buffer of exactly its
 * length, so any read past it is caught. Checks: an accepted challenge has a
 * known hash with hl its length, a DH value of exactly its group's size (none
 * for the null group), all inside the buffer, and a Reply can be built from
 * it; a refusal is either AUTH_Failure1 (-EACCES) or an AUTH_Failure2
 * explanation the host may send (-EPROTO).
 */
#include <errno.h>

#include "fuzz.h"
#include "protocol/auth_host.h"

#define TID 0x0102

/* A valid ffdhe2048 / SHA-256 challenge of transaction TID. */
static size_t valid(uint8_t *m, uint8_t hash, uint8_t hl, uint8_t group, uint16_t dhvlen)
{
	memset(m, 0, 16 + 64 + 1024);
	m[0] = NVMF_AUTH_TYPE_DHCHAP;
	m[1] = NVMF_AUTH_ID_CHALLENGE;
	m[4] = TID & 0xFF;
	m[5] = TID >> 8;
	m[6] = hl;
	m[8] = hash;
	m[9] = group;
	m[10] = dhvlen & 0xFF;
	m[11] = dhvlen >> 8;
	m[12] = 0x2A;
	for (unsigned i = 0; i < (unsigned)hl + dhvlen; i++)
		m[16 + i] = (uint8_t)(i * 7 + 3);
	return 16 + (size_t)hl + dhvlen;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t msg[16 + 64 + 1024], out[RBLK_AUTH_SEND_MAX];
	struct rblk_auth_challenge_info ch;
	struct rblk_auth_reply_info r;
	uint8_t *copy, exp = 0;
	size_t len;
	int ret;

	if (size < 1)
		return 0;
	if (data[0] & 1) {
		len = valid(msg, RBLK_AUTH_HASH_SHA256, 32, RBLK_AUTH_DHGROUP_2048, 256);
		fuzz_patch(msg, len, data + 1, size - 1);
	} else {
		len = size - 1 < sizeof(msg) ? size - 1 : sizeof(msg);
		memcpy(msg, data + 1, len);
	}
	copy = malloc(len ? len : 1);
	if (!copy)
		return 0;
	memcpy(copy, msg, len);
	ret = rblk_auth_challenge_parse(copy, len, TID, &ch, &exp);
	if (ret == 0) {
		FUZZ_CHECK(ch.hl == rblk_auth_hash_len(ch.hash) && ch.hl >= 32 && ch.hl <= 64);
		FUZZ_CHECK(ch.c1 == copy + 16);
		FUZZ_CHECK(16 + (size_t)ch.hl + ch.dhvlen <= len);
		FUZZ_CHECK(ch.dhvlen == rblk_auth_dhgroup_len(ch.dhgroup));
		FUZZ_CHECK(ch.dhgroup == RBLK_AUTH_DHGROUP_NULL ? ch.dhv == NULL
								: ch.dhv == copy + 16 + ch.hl);
		r = (struct rblk_auth_reply_info){ .t_id = TID, .hl = ch.hl, .response = ch.c1,
						   .c2 = ch.c1, .seqnum = 1, .dhv = ch.dhv,
						   .dhvlen = ch.dhvlen };
		FUZZ_CHECK(rblk_auth_reply_build(&r, out, sizeof(out)) ==
			   (int)(16 + 2 * ch.hl + ch.dhvlen));
	} else if (ret == -EACCES) {
		FUZZ_CHECK(len >= 8 && copy[0] == NVMF_AUTH_TYPE_COMMON &&
			   copy[1] == NVMF_AUTH_ID_FAILURE1 && exp == copy[7]);
	} else {
		FUZZ_CHECK(ret == -EPROTO);
		FUZZ_CHECK(exp == NVMF_AUTH_FAIL_INCORRECT_PAYLOAD ||
			   exp == NVMF_AUTH_FAIL_INCORRECT_PROTOCOL ||
			   exp == NVMF_AUTH_FAIL_HASH_UNUSABLE || exp == NVMF_AUTH_FAIL_DHGROUP_UNUSABLE);
		FUZZ_CHECK(ch.c1 == NULL);
	}
	free(copy);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	static uint8_t m[16 + 64 + 1024];
	size_t len;

	switch (idx) {
	case 0:
		len = valid(m, RBLK_AUTH_HASH_SHA256, 32, RBLK_AUTH_DHGROUP_NULL, 0);
		break;
	case 1:
		len = valid(m, RBLK_AUTH_HASH_SHA384, 48, RBLK_AUTH_DHGROUP_2048, 256);
		break;
	case 2:
		len = valid(m, RBLK_AUTH_HASH_SHA512, 64, RBLK_AUTH_DHGROUP_8192, 1024);
		break;
	case 3:
		/* AUTH_Failure1: authentication failed */
		memset(m, 0, 8);
		m[1] = NVMF_AUTH_ID_FAILURE1;
		m[6] = NVMF_AUTH_RESCODE_FAILED;
		m[7] = NVMF_AUTH_FAIL_FAILED;
		len = 8;
		break;
	case 4:
		/* patch mode, no patches: the valid ffdhe2048 challenge */
		if (max < 1)
			return 0;
		buf[0] = 1;
		return 1;
	default:
		return 0;
	}
	return fuzz_seed_raw(buf, max, m, len);
}

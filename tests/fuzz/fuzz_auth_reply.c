/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the controller's DH-HMAC-CHAP_Reply parser (protocol/auth_ctrl.c)
 * for each hash length and DH value size a transaction can have. Checks: an
 * accepted Reply is exactly 16 + 2 HL + DHVLEN bytes with the expected HL and
 * DHVLEN, its three fields lie in the message in order, CVALID is 0 or 1 and
 * a bidirectional request has a sequence number; refusals are
 * INCORRECT_PAYLOAD.
 */
#include "fuzz.h"
#include "protocol/auth_ctrl.h"

static const uint8_t hls[] = { 32, 48, 64 };
static const uint16_t dhvlens[] = { 0, 256, 384, 512, 768, 1024 };

static size_t valid_reply(uint8_t *m, uint8_t hl, uint16_t dhvlen)
{
	size_t len = 16 + 2 * (size_t)hl + dhvlen;

	memset(m, 0x5A, len);
	memset(m, 0, 16);
	m[0] = NVMF_AUTH_TYPE_DHCHAP;
	m[1] = NVMF_AUTH_ID_REPLY;
	m[6] = hl;
	m[8] = 1;
	m[10] = (uint8_t)dhvlen;
	m[11] = (uint8_t)(dhvlen >> 8);
	m[12] = 7;
	return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t msg[16 + 128 + 1024 + 64];
	struct rblk_auth_reply_info r;
	uint8_t hl, res;
	uint16_t dhvlen;
	size_t len;

	if (size < 3)
		return 0;
	hl = hls[data[1] % 3];
	dhvlen = dhvlens[data[2] % 6];
	memset(msg, 0, sizeof(msg));
	if (data[0] & 1) {
		len = valid_reply(msg, hl, dhvlen);
		fuzz_patch(msg, len, data + 3, size - 3);
		/* bits 1..2: trim or extend by a few bytes */
		len = len - 2 + (data[0] >> 1 & 3);
	} else {
		len = size - 3 < sizeof(msg) ? size - 3 : sizeof(msg);
		memcpy(msg, data + 3, len);
	}

	res = rblk_auth_reply_parse(msg, len, hl, dhvlen, &r);
	if (res) {
		FUZZ_CHECK(res == NVMF_AUTH_FAIL_INCORRECT_PAYLOAD);
		return 0;
	}
	FUZZ_CHECK(len == 16 + 2 * (size_t)hl + dhvlen);
	FUZZ_CHECK(msg[6] == hl && (msg[10] | msg[11] << 8) == dhvlen);
	FUZZ_CHECK(r.hl == hl && r.dhvlen == dhvlen && r.response == msg + 16);
	FUZZ_CHECK(msg[8] ? r.c2 == r.response + hl && r.seqnum : r.c2 == NULL);
	FUZZ_CHECK(msg[8] <= 1);
	FUZZ_CHECK(dhvlen ? r.dhv == r.response + 2 * hl : r.dhv == NULL);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	static uint8_t m[3 + 16 + 128 + 1024];
	size_t len;

	if (idx > 2)
		return 0;
	m[0] = 0;
	m[1] = (uint8_t)idx;          /* SHA-256, -384, -512 */
	m[2] = idx == 0 ? 0 : 1;      /* NULL, ffdhe2048 */
	len = 3 + valid_reply(m + 3, hls[idx], dhvlens[m[2]]);
	if (len > max)
		return 0;
	memcpy(buf, m, len);
	return len;
}

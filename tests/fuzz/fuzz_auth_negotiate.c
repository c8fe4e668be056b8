/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the controller's AUTH_Negotiate parser and its choice of hash and DH
 * group (protocol/auth_ctrl.c). Checks: an accepted message is exactly
 * 8 + 64 NAPD bytes with a DH-HMAC-CHAP descriptor whose lists lie inside
 * it; a choice is one the host offered (the configured hash when offered,
 * the configured group always); every refusal is a defined reason code.
 */
#include <stdbool.h>

#include "fuzz.h"
#include "protocol/auth_ctrl.h"

static void check_reason(uint8_t r)
{
	FUZZ_CHECK(r >= NVMF_AUTH_FAIL_FAILED && r <= NVMF_AUTH_FAIL_INCORRECT_PROTOCOL);
	FUZZ_CHECK(strcmp(rblk_auth_failure_str(r), "unknown reason") != 0);
}

static bool offered(const uint8_t *ids, unsigned n, uint8_t id)
{
	for (unsigned i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* A Linux host's Negotiate: SHA-256/384/512, NULL and FFDHE 2048..8192. */
static size_t linux_negotiate(uint8_t *m)
{
	memset(m, 0, 72);
	m[1] = NVMF_AUTH_ID_NEGOTIATE;
	m[4] = 1;
	m[7] = 1;
	m[8] = NVMF_AUTH_DHCHAP_AUTHID;
	m[10] = 3;
	m[11] = 6;
	for (int i = 0; i < 3; i++)
		m[12 + i] = (uint8_t)(i + 1);
	for (int i = 0; i < 6; i++)
		m[42 + i] = (uint8_t)i;
	return 72;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t msg[8 + 64 * 4];
	struct rblk_auth_negotiate_info n;
	size_t len;
	uint8_t r, hash, dh, want_hash, want_dh;

	if (size < 3)
		return 0;
	want_hash = data[1] & 3;
	want_dh = data[2] % 6;
	memset(msg, 0, sizeof(msg));
	if (data[0] & 1) {
		len = linux_negotiate(msg);
		fuzz_patch(msg, sizeof(msg), data + 3, size - 3);
		/* Patches may also grow the message by whole descriptors. */
		len += (size_t)(data[0] >> 1 & 3) * 64;
	} else {
		len = size - 3 < sizeof(msg) ? size - 3 : sizeof(msg);
		memcpy(msg, data + 3, len);
	}

	r = rblk_auth_negotiate_parse(msg, len, &n);
	if (r) {
		check_reason(r);
		return 0;
	}
	FUZZ_CHECK(len == 8 + (size_t)msg[7] * 64 && msg[7] > 0);
	FUZZ_CHECK(n.halen <= 30 && n.dhlen <= 30);
	FUZZ_CHECK(n.hash_ids > msg && n.hash_ids + n.halen <= msg + len);
	FUZZ_CHECK(n.dh_ids == n.hash_ids + 30 && n.dh_ids + n.dhlen <= msg + len);
	FUZZ_CHECK(n.hash_ids[-4] == NVMF_AUTH_DHCHAP_AUTHID);

	r = rblk_auth_select(&n, want_hash, 0xE, want_dh, &hash, &dh);
	if (r) {
		check_reason(r);
		if (r == NVMF_AUTH_FAIL_DHGROUP_UNUSABLE)
			FUZZ_CHECK(!offered(n.dh_ids, n.dhlen, want_dh));
		return 0;
	}
	FUZZ_CHECK(n.sc_c == 0);
	FUZZ_CHECK(dh == want_dh && offered(n.dh_ids, n.dhlen, dh));
	FUZZ_CHECK(offered(n.hash_ids, n.halen, hash));
	FUZZ_CHECK(hash == want_hash || (hash >= 1 && hash <= 3));
	if (offered(n.hash_ids, n.halen, want_hash))
		FUZZ_CHECK(hash == want_hash);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	uint8_t m[3 + 72];

	if (idx > 1 || max < sizeof(m))
		return 0;
	m[0] = 0;
	m[1] = 1;            /* SHA-256 */
	m[2] = idx ? 1 : 0;  /* NULL, or ffdhe2048 */
	linux_negotiate(m + 3);
	memcpy(buf, m, sizeof(m));
	return sizeof(m);
}

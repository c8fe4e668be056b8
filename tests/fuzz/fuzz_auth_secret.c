/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the DHHC-1 secret reader (rblk_auth_secret_parse), which takes
 * configuration text an administrator pasted. Checks: an accepted secret has
 * a 32/48/64-byte key and an id 00..03; formatting it gives back the input
 * (with the closing ':' the reader lets one leave out), so exactly one string
 * stands for each secret; a refused one leaves nothing in the output.
 */
#include <errno.h>

#include "auth/auth.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char str[RBLK_AUTH_SECRET_STR_MAX + 64], back[RBLK_AUTH_SECRET_STR_MAX];
	static const struct rblk_auth_secret zero;
	struct rblk_auth_secret s, again;
	size_t n = size < sizeof(str) - 1 ? size : sizeof(str) - 1;
	int ret;

	memcpy(str, data, n);
	str[n] = '\0';
	ret = rblk_auth_secret_parse(str, &s);
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL);
		FUZZ_CHECK(memcmp(&s, &zero, sizeof(s)) == 0);
		return 0;
	}
	FUZZ_CHECK(s.len == 32 || s.len == 48 || s.len == 64);
	FUZZ_CHECK((unsigned)s.transform <= RBLK_AUTH_HASH_SHA512);
	FUZZ_CHECK(rblk_auth_secret_format(&s, back, sizeof(back)) == 0);
	n = strlen(str);
	FUZZ_CHECK(strncmp(back, str, n) == 0);
	FUZZ_CHECK(strlen(back) == n || (strlen(back) == n + 1 && back[n] == ':'));
	FUZZ_CHECK(rblk_auth_secret_parse(back, &again) == 0);
	FUZZ_CHECK(memcmp(&s, &again, sizeof(s)) == 0);
	rblk_auth_secret_clear(&s);
	rblk_auth_secret_clear(&again);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	/* keys of 32, 48 and 64 bytes (CRC included), and one without its closing ':' */
	static const char *const s[] = {
		"DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:",
		"DHHC-1:01:V4shFVbSVJ1Y0iUI8MqeO9blSTOF2ncl5cEXwInSIheA6adbWSv81r61+dtAWyjr/8PwyQ==:",
		("DHHC-1:03:6dk6acszdWmoB5aGpu53PvBSgvmOOVosrY2hrY5A3qwn7RPVNE"
		 "AHcPWvGfIPTJ70rAWuUCxJwLLu/YZiT39CiJc0Ojc=:"),
		"DHHC-1:02:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR",
	};
	size_t len;

	if (idx >= sizeof(s) / sizeof(s[0]))
		return 0;
	len = strlen(s[idx]);
	if (len > max)
		return 0;
	memcpy(buf, s[idx], len);
	return len;
}

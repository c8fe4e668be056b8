/* SPDX-License-Identifier: MIT */
/*
 * DHHC-1 secrets: "DHHC-1:XX:<base64 of key || CRC-32 LE>:" as nvme-cli
 * prints them and the Linux host and target read them, and the NQN-based
 * transformation of the key before use.
 *
 * Parsing follows the kernel's reader where it is lenient on purpose (the
 * closing ':' may be left out; the key length need not match the
 * transformation hash) and is stricter where the kernel would only fail
 * later or not at all: exactly two digits 00..03, canonical padded base64,
 * nothing after the closing ':'.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "auth/auth_int.h"

#define DHHC_PREFIX "DHHC-1:"
#define DHHC_PREFIX_LEN (sizeof(DHHC_PREFIX) - 1)
#define CRC_LEN 4
/* 4 characters per 3 bytes, the last group padded */
#define B64_LEN(n) ((((n) + 2) / 3) * 4)
#define B64_MAX B64_LEN(RBLK_AUTH_MAX_KEY_LEN + CRC_LEN)
/* The transformation hashes "NQN || this" (NVMe Base 2.0, the DHHC-1 representation) */
static const char transform_seed[] = "NVMe-over-Fabrics";

_Static_assert(sizeof(DHHC_PREFIX) - 1 + 3 + B64_MAX + 1 + 1 == RBLK_AUTH_SECRET_STR_MAX,
	       "RBLK_AUTH_SECRET_STR_MAX fits the longest secret exactly");

static bool key_len_ok(size_t len)
{
	return len == 32 || len == 48 || len == 64;
}

/*
 * The CRC-32 of zlib and of the kernel's ~crc32_le(~0, ...): reflected
 * polynomial 0xedb88320, initial and final inversion. A checksum against
 * typing mistakes, not a security measure, and 68 bytes at most: bitwise.
 */
static uint32_t crc32_zlib(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
	}
	return ~c;
}

static bool b64_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '+' || c == '/';
}

/*
 * Decodes @n characters of padded base64 into @out (B64_MAX * 3 / 4 bytes).
 * EVP_DecodeBlock neither strips the padding from its count nor rejects
 * non-zero bits under it, so the alphabet and padding are checked first and
 * the result is re-encoded and compared: only the canonical form passes.
 */
static int b64_decode(const char *s, size_t n, uint8_t *out, size_t *outlen)
{
	char back[B64_MAX + 1];
	size_t pad = 0;
	int len;

	if (!n || n % 4 || n > B64_MAX)
		return -EINVAL;
	while (pad < 2 && s[n - 1 - pad] == '=')
		pad++;
	for (size_t i = 0; i < n - pad; i++)
		if (!b64_char(s[i]))
			return -EINVAL;
	len = EVP_DecodeBlock(out, (const unsigned char *)s, (int)n);
	if (len < 0 || (size_t)len != n / 4 * 3)
		return -EINVAL;
	len -= (int)pad;
	if (EVP_EncodeBlock((unsigned char *)back, out, len) != (int)n || memcmp(back, s, n))
		return -EINVAL;
	*outlen = (size_t)len;
	return 0;
}

int rblk_auth_secret_parse(const char *str, struct rblk_auth_secret *out)
{
	uint8_t raw[B64_MAX / 4 * 3];
	const char *b64;
	size_t n, len = 0;
	uint32_t crc;
	int ret = -EINVAL;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!str || strncmp(str, DHHC_PREFIX, DHHC_PREFIX_LEN))
		return -EINVAL;
	str += DHHC_PREFIX_LEN;
	if (str[0] != '0' || str[1] < '0' || str[1] > '3' || str[2] != ':')
		return -EINVAL;
	b64 = str + 3;
	n = strcspn(b64, ":");
	if (b64[n] == ':' && b64[n + 1] != '\0')
		return -EINVAL;
	if (b64_decode(b64, n, raw, &len))
		goto out_cleanse;
	if (len < CRC_LEN || !key_len_ok(len - CRC_LEN))
		goto out_cleanse;
	len -= CRC_LEN;
	crc = (uint32_t)raw[len] | (uint32_t)raw[len + 1] << 8 | (uint32_t)raw[len + 2] << 16 |
	      (uint32_t)raw[len + 3] << 24;
	if (crc != crc32_zlib(raw, len))
		goto out_cleanse;
	out->transform = (enum rblk_auth_hash)(str[1] - '0');
	out->len = len;
	memcpy(out->key, raw, len);
	ret = 0;
out_cleanse:
	OPENSSL_cleanse(raw, sizeof(raw));
	return ret;
}

int rblk_auth_secret_format(const struct rblk_auth_secret *s, char *buf, size_t len)
{
	uint8_t raw[RBLK_AUTH_MAX_KEY_LEN + CRC_LEN];
	char b64[B64_MAX + 1];
	uint32_t crc;
	int n, ret = 0;

	if (!s || !buf || !key_len_ok(s->len) || (unsigned)s->transform > RBLK_AUTH_HASH_SHA512)
		return -EINVAL;
	memcpy(raw, s->key, s->len);
	crc = crc32_zlib(s->key, s->len);
	for (int i = 0; i < CRC_LEN; i++)
		raw[s->len + i] = (uint8_t)(crc >> (8 * i));
	EVP_EncodeBlock((unsigned char *)b64, raw, (int)(s->len + CRC_LEN));
	n = snprintf(buf, len, DHHC_PREFIX "%02x:%s:", (unsigned)s->transform, b64);
	if (n < 0 || (size_t)n >= len) {
		if (len)
			OPENSSL_cleanse(buf, len);
		ret = -ENOSPC;
	}
	OPENSSL_cleanse(raw, sizeof(raw));
	OPENSSL_cleanse(b64, sizeof(b64));
	return ret;
}

int rblk_auth_secret_generate(enum rblk_auth_hash transform, size_t len, const uint8_t *key,
			      struct rblk_auth_secret *out)
{
	int ret;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!key_len_ok(len) || (unsigned)transform > RBLK_AUTH_HASH_SHA512)
		return -EINVAL;
	if (key) {
		memcpy(out->key, key, len);
	} else {
		ret = rblk_auth_random(out->key, len);
		if (ret)
			return ret;
	}
	out->transform = transform;
	out->len = len;
	return 0;
}

int rblk_auth_secret_transform(const struct rblk_auth_secret *s, const char *nqn, uint8_t *out,
			       size_t *outlen)
{
	int ret;

	if (!s || !out || !outlen || !key_len_ok(s->len))
		return -EINVAL;
	if (s->transform == RBLK_AUTH_HASH_NONE) {
		memcpy(out, s->key, s->len);
		*outlen = s->len;
		return 0;
	}
	if (!nqn)
		return -EINVAL;
	ret = rblk_auth_hmac(s->transform, s->key, s->len,
			     (const struct rblk_auth_part[]){
				     { nqn, strlen(nqn) },
				     { transform_seed, sizeof(transform_seed) - 1 },
			     },
			     2, out);
	if (ret)
		return ret;
	*outlen = rblk_auth_hash_len(s->transform);
	return 0;
}

void rblk_auth_secret_clear(struct rblk_auth_secret *s)
{
	if (s)
		OPENSSL_cleanse(s, sizeof(*s));
}

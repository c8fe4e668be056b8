/* SPDX-License-Identifier: MIT */
/*
 * UUID text (parse, check, format) and random UUIDs: see uuid.h. UUIDs are
 * printed in lower case: SPDK compares NQNs byte for byte.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "common/uuid.h"

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool dash_at(size_t i)
{
	return i == 8 || i == 13 || i == 18 || i == 23;
}

int rblk_uuid_parse(const char *s, uint8_t uuid[16])
{
	size_t len = s ? strlen(s) : 0;
	bool dashed = len == 36;
	unsigned j = 0;

	if (len != 36 && len != 32)
		return -EINVAL;
	for (size_t i = 0; i < len;) {
		int hi, lo;

		if (dashed && dash_at(i)) {
			if (s[i] != '-')
				return -EINVAL;
			i++;
			continue;
		}
		hi = hexval((unsigned char)s[i]);
		lo = hexval((unsigned char)s[i + 1]);
		if (hi < 0 || lo < 0 || j >= 16)
			return -EINVAL;
		uuid[j++] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	return j == 16 ? 0 : -EINVAL;
}

bool rblk_uuid_valid(const char *s)
{
	if (strlen(s) != 36)
		return false;
	for (size_t i = 0; i < 36; i++) {
		if (dash_at(i) ? s[i] != '-' : hexval((unsigned char)s[i]) < 0)
			return false;
	}
	return true;
}

char *rblk_uuid_format(const uint8_t u[16], char *buf)
{
	snprintf(buf, RBLK_UUID_STRLEN,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
		 u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
		 u[14], u[15]);
	return buf;
}

int rblk_uuid_random(uint8_t uuid[16])
{
	size_t got = 0;

	while (got < 16) {
		ssize_t n = getrandom(uuid + got, 16 - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	uuid[6] = (uint8_t)((uuid[6] & 0x0F) | 0x40);	/* version 4 */
	uuid[8] = (uint8_t)((uuid[8] & 0x3F) | 0x80);	/* RFC 4122 variant */
	return 0;
}

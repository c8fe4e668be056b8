/* SPDX-License-Identifier: MIT */
/* Helpers of the auth/ tests: hex strings of vectors.h to bytes. */
#ifndef RBLK_TESTS_AUTH_VEC_UTIL_H
#define RBLK_TESTS_AUTH_VEC_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline int vec_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decodes lower-case hex @hex into @out (@max bytes); returns the length, or aborts. */
static inline size_t vec_hex(const char *hex, uint8_t *out, size_t max)
{
	size_t n = strlen(hex);

	if (n % 2 || n / 2 > max)
		abort();
	for (size_t i = 0; i < n / 2; i++) {
		int hi = vec_nibble(hex[2 * i]), lo = vec_nibble(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			abort();
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return n / 2;
}

#define VEC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif

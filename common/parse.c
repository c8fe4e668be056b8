/* SPDX-License-Identifier: MIT */
/*
 * Ports and sizes as users type them (see parse.h). Hand-rolled rather than
 * strtoul: strtoul skips blanks, takes a sign and wraps "-1" to ULONG_MAX,
 * each of which a caller had to remember to refuse.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/parse.h"

static int fail(char *why, size_t len, int err, const char *what)
{
	if (why && len)
		snprintf(why, len, "%s", what);
	return err;
}

/*
 * The leading run of decimal digits of @s into *v; its length, or -ERANGE
 * when the value passes UINT64_MAX.
 */
static int digits(const char *s, uint64_t *v)
{
	int n = 0;

	*v = 0;
	for (; s[n] >= '0' && s[n] <= '9'; n++) {
		unsigned d = (unsigned)(s[n] - '0');

		if (*v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		*v = *v * 10 + d;
	}
	return n;
}

int rblk_port_parse(const char *s, uint16_t *out, char *why, size_t len)
{
	static const char rule[] = "must be " RBLK_PORT_RULE;
	uint64_t v;
	int n;

	if (!s || !*s)
		return fail(why, len, -EINVAL, "is empty: it must be " RBLK_PORT_RULE);
	n = digits(s, &v);
	if (n == 0 || (n > 0 && s[n]))
		return fail(why, len, -EINVAL, rule);
	if (n < 0 || v == 0 || v > 65535)
		return fail(why, len, -ERANGE, rule);
	if (s[0] == '0')
		return fail(why, len, -EINVAL, "must be " RBLK_PORT_RULE " without leading zeros");
	*out = (uint16_t)v;
	return 0;
}

/*
 * All of @s as a number: decimal, or hex after 0x with at most @max_hex
 * digits. 0, -EINVAL (not such a number) or -ERANGE (too many digits).
 */
static int dec_or_hex(const char *s, unsigned max_hex, uint64_t *v)
{
	int n = 0;

	*v = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (s += 2; s[n] && n <= (int)max_hex; n++) {
			char c = s[n];
			unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
				     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
				     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;

			if (d == 16)
				return -EINVAL;
			*v = *v << 4 | d;
		}
		if (n == 0)
			return -EINVAL;
		return n > (int)max_hex ? -ERANGE : 0;
	}
	n = digits(s, v);
	if (n == 0 || (n > 0 && s[n]))
		return -EINVAL;
	return n < 0 ? -ERANGE : 0;
}

int rblk_nsid_parse(const char *s, uint32_t *out, char *why, size_t len)
{
	static const char rule[] = "must be " RBLK_NSID_RULE;
	uint64_t v;
	int ret;

	if (!s || !*s)
		return fail(why, len, -EINVAL, "is empty: it must be " RBLK_NSID_RULE);
	ret = dec_or_hex(s, 8, &v);
	if (ret)
		return fail(why, len, ret, rule);
	if (v == 0 || v > 0xFFFFFFFEu)
		return fail(why, len, -ERANGE, rule);
	*out = (uint32_t)v;
	return 0;
}

int rblk_u64_parse(const char *s, uint64_t *out, char *why, size_t len)
{
	static const char rule[] = "must be " RBLK_U64_RULE;
	uint64_t v;
	int ret;

	if (!s || !*s)
		return fail(why, len, -EINVAL, "is empty: it must be " RBLK_U64_RULE);
	ret = dec_or_hex(s, 16, &v);
	if (ret)
		return fail(why, len, ret, rule);
	*out = v;
	return 0;
}

int rblk_size_parse(const char *s, uint64_t *out, char *why, size_t len)
{
	static const char rule[] = "must be " RBLK_SIZE_RULE;
	unsigned shift = 0;
	const char *end;
	uint64_t v;
	int n;

	if (!s || !*s)
		return fail(why, len, -EINVAL, "is empty: it must be " RBLK_SIZE_RULE);
	n = digits(s, &v);
	if (n < 0)
		return fail(why, len, -ERANGE, "is more than 2^64 - 1 bytes");
	if (n == 0)
		return fail(why, len, -EINVAL, rule);
	end = s + n;
	if (*end == '.' || *end == ',')
		return fail(why, len, -EINVAL, "must be a whole number (no fractions): " RBLK_SIZE_RULE);
	switch (*end) {
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	case 't': case 'T': shift = 40; break;
	default: break;
	}
	if (shift) {
		end++;
		if (!strcmp(end, "iB") || !strcmp(end, "B"))
			end += strlen(end);
	}
	if (*end) {
		if (why && len)
			snprintf(why, len, "has an unknown suffix '%s': it must be " RBLK_SIZE_RULE,
				 s + n);
		return -EINVAL;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return fail(why, len, -ERANGE, "is more than 2^64 - 1 bytes");
	*out = v << shift;
	return 0;
}

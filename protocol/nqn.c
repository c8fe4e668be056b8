/* SPDX-License-Identifier: MIT */
/*
 * NQN validation and field conversion. The rules are the NVMe base
 * specification's NQN formats; the 223-byte limit is also what the Linux host
 * enforces (it refuses longer NQNs), so a longer one can never interoperate.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/uuid.h"
#include "protocol/nqn.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_label_char(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

/* "yyyy-mm." at s; returns the length consumed (8) or 0. */
static size_t parse_date(const char *s)
{
	int month;

	for (int i = 0; i < 4; i++)
		if (!is_digit(s[i]))
			return 0;
	if (s[4] != '-' || !is_digit(s[5]) || !is_digit(s[6]) || s[7] != '.')
		return 0;
	month = (s[5] - '0') * 10 + (s[6] - '0');
	if (month < 1 || month > 12)
		return 0;
	return 8;
}

/* Reverse domain up to ':' or the end: non-empty labels, no leading/trailing '-'. */
static bool parse_domain(const char *s)
{
	size_t label = 0;
	char prev = '.';

	for (; *s && *s != ':'; s++) {
		if (*s == '.') {
			if (label == 0 || prev == '-')
				return false;
			label = 0;
		} else if (is_label_char(*s)) {
			if (label == 0 && *s == '-')
				return false;
			label++;
		} else {
			return false;
		}
		prev = *s;
	}
	return label > 0 && prev != '-';
}

int rblk_nqn_policy_check(const char *nqn, char *why, size_t len)
{
	size_t n;

	if (!nqn) {
		snprintf(why, len, "is missing");
		return -EINVAL;
	}
	n = strnlen(nqn, NVMF_NQN_SIZE + 1);
	if (n == 0) {
		snprintf(why, len, "is empty");
		return -EINVAL;
	}
	if (n > NVMF_NQN_SIZE) {
		snprintf(why, len, "is %zu bytes long (at most %d)", strlen(nqn), NVMF_NQN_SIZE);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)nqn[i];

		if (c < 0x20 || c == 0x7f) {
			snprintf(why, len, "contains control characters");
			return -EINVAL;
		}
		if (c == ' ') {
			snprintf(why, len, "contains a space");
			return -EINVAL;
		}
		if (c > 0x7f) {
			snprintf(why, len, "contains a byte that is not ASCII (0x%02x)", c);
			return -EINVAL;
		}
	}
	return 0;
}

int rblk_nqn_validate(const char *nqn)
{
	size_t len, i, n;

	if (!nqn)
		return -EINVAL;
	len = strnlen(nqn, NVMF_NQN_SIZE + 1);
	if (len == 0 || len > NVMF_NQN_SIZE)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)nqn[i];

		if (c < 0x20 || c == 0x7F)
			return -EINVAL;
	}
	if (rblk_nqn_is_discovery(nqn))
		return 0;
	if (strncmp(nqn, RBLK_NQN_UUID_PREFIX, strlen(RBLK_NQN_UUID_PREFIX)) == 0)
		return rblk_uuid_valid(nqn + strlen(RBLK_NQN_UUID_PREFIX)) ? 0 : -EINVAL;
	if (strncmp(nqn, "nqn.", 4) != 0)
		return -EINVAL;
	n = parse_date(nqn + 4);
	if (!n)
		return -EINVAL;
	return parse_domain(nqn + 4 + n) ? 0 : -EINVAL;
}

bool rblk_nqn_is_discovery(const char *nqn)
{
	return nqn && strcmp(nqn, NVME_DISC_SUBSYS_NAME) == 0;
}

int rblk_nqn_copy_field(char dst[NVMF_NQN_FIELD_LEN], const char *src)
{
	size_t len;

	memset(dst, 0, NVMF_NQN_FIELD_LEN);
	if (!src)
		return -EINVAL;
	len = strnlen(src, NVMF_NQN_SIZE + 1);
	if (len > NVMF_NQN_SIZE)
		return -EINVAL;
	memcpy(dst, src, len);
	return 0;
}

int rblk_nqn_from_field(char *dst, size_t dstlen, const uint8_t field[NVMF_NQN_FIELD_LEN])
{
	const uint8_t *nul = memchr(field, 0, NVMF_NQN_FIELD_LEN);
	size_t len;

	if (dstlen)
		dst[0] = '\0';
	if (!nul)
		return -EINVAL;
	len = (size_t)(nul - field);
	if (len + 1 > dstlen)
		return -ENOSPC;
	memcpy(dst, field, len + 1);
	return 0;
}

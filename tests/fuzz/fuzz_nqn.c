/* SPDX-License-Identifier: MIT */
/*
 * Fuzz NQN validation and the field conversions with arbitrary bytes. Checks:
 * an accepted NQN is 1..223 bytes; copy_field/from_field round-trip it; a
 * field without NUL is refused.
 */
#include <errno.h>

#include "fuzz.h"
#include "protocol/nqn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t field[NVMF_NQN_FIELD_LEN];
	static char str[400], back[NVMF_NQN_FIELD_LEN];
	size_t n = size < sizeof(str) - 1 ? size : sizeof(str) - 1;
	int ret;

	memcpy(str, data, n);
	str[n] = '\0';
	if (rblk_nqn_validate(str) == 0) {
		FUZZ_CHECK(strlen(str) >= 1 && strlen(str) <= NVMF_NQN_SIZE);
		FUZZ_CHECK(rblk_nqn_copy_field((char *)field, str) == 0);
		FUZZ_CHECK(rblk_nqn_from_field(back, sizeof(back), field) == 0);
		FUZZ_CHECK(strcmp(back, str) == 0);
	}
	(void)rblk_nqn_is_discovery(str);

	/* The raw bytes as a wire field. */
	memset(field, 0, sizeof(field));
	memcpy(field, data, size < sizeof(field) ? size : sizeof(field));
	ret = rblk_nqn_from_field(back, sizeof(back), field);
	if (memchr(field, 0, sizeof(field)))
		FUZZ_CHECK(ret == 0 && strlen(back) < sizeof(field));
	else
		FUZZ_CHECK(ret == -EINVAL && back[0] == '\0');
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	static const char *const s[] = {
		"nqn.2014-08.org.nvmexpress.discovery",
		"nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
		"nqn.2016-06.io.spdk:cnode1",
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

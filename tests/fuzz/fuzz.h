/* SPDX-License-Identifier: MIT */
/*
 * Shared bits of the protocol fuzz harnesses. Each harness defines
 * LLVMFuzzerTestOneInput() and rblk_fuzz_seed(); it checks invariants of what
 * the parser accepted (not just "does not crash") with FUZZ_CHECK.
 *
 * Input convention: byte 0 selects the mode. Odd: the rest is a list of
 * 3-byte patches (offset u16 LE, value) applied to a valid message, which
 * gets coverage deep past the validity checks quickly. Even: the rest is the
 * raw message.
 */
#ifndef RBLK_FUZZ_H
#define RBLK_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(c)                                                              \
	do {                                                                       \
		if (!(c)) {                                                        \
			fprintf(stderr, "fuzz check failed: %s (%s:%d)\n", #c,     \
				__FILE__, __LINE__);                               \
			abort();                                                   \
		}                                                                  \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Seed idx of the harness into buf (at most max bytes): returns its length,
 * 0 when there is no seed idx. Used by the standalone driver (gcc builds).
 */
size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max);

static inline void fuzz_patch(uint8_t *msg, size_t len, const uint8_t *data, size_t size)
{
	for (size_t i = 0; i + 3 <= size; i += 3) {
		size_t off = (size_t)(data[i] | (data[i + 1] << 8));

		if (len)
			msg[off % len] = data[i + 2];
	}
}

/* Build the input for "raw mode" or "patch mode with no patches" seeds. */
static inline size_t fuzz_seed_raw(uint8_t *buf, size_t max, const void *msg, size_t len)
{
	if (len + 1 > max)
		return 0;
	buf[0] = 0;
	memcpy(buf + 1, msg, len);
	return len + 1;
}

#endif

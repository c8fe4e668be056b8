/* SPDX-License-Identifier: MIT */
/*
 * What users type, read one way everywhere: ports, sizes, namespace IDs, keys.
 * The CLI, the fio
 * plugin, the target daemon, the initiator library and the benchmarks all
 * call these, so a value one of them accepts is never refused by the next
 * (`rblk -s 0x1144` used to pass the CLI and fail in the initiator).
 *
 * Numbers are decimal: no sign, no blanks, no 0x (but for NSIDs, which
 * nvme-cli prints in hex). strtoul's base 0 would read "010" as 8, and the
 * kernel's kstrtou16(.., 0) reads a trsvcid the same way, so a port with a
 * leading zero is refused rather than guessed at.
 *
 * On failure @why (may be NULL) gets a clause naming the rule, written to
 * follow the value: "port '0x1144': " + why.
 */
#ifndef RBLK_COMMON_PARSE_H
#define RBLK_COMMON_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* The port rule in words, for help texts. */
#define RBLK_PORT_RULE "a decimal number 1-65535"

/*
 * A TCP/RDMA port (trsvcid): decimal digits, 1..65535, no leading zero.
 * 0, -EINVAL (not such a number) or -ERANGE (0, above 65535).
 */
int rblk_port_parse(const char *s, uint16_t *out, char *why, size_t len);

/* The size rule in words, for help texts. */
#define RBLK_SIZE_RULE "bytes, or a whole number with a binary suffix k, M, G or T (KiB, MiB, ... alike)"

/*
 * A size in bytes: decimal digits with an optional suffix, binary as fio and
 * dd have it: k/K, m/M, g/G, t/T, each optionally followed by "iB" or "B"
 * ("4k" = "4KiB" = "4KB" = 4096). No fractions ("1.5G"): which byte they
 * round to would be a guess. 0 is accepted; callers check their own bounds.
 * 0, -EINVAL, or -ERANGE (above UINT64_MAX).
 */
int rblk_size_parse(const char *s, uint64_t *out, char *why, size_t len);

/* The NSID rule in words, for help texts. */
#define RBLK_NSID_RULE "a namespace ID 1-4294967294 (decimal, or hex after 0x)"

/*
 * A namespace ID: decimal ("010" is 10) or 0x hex, 1..0xFFFFFFFE (0 and the
 * broadcast 0xFFFFFFFF name no namespace). 0, -EINVAL or -ERANGE.
 */
int rblk_nsid_parse(const char *s, uint32_t *out, char *why, size_t len);

/* The rule for keys and other 64-bit values, in words. */
#define RBLK_U64_RULE "a number 0-18446744073709551615 (decimal, or hex after 0x)"

/*
 * A 64-bit value such as a reservation key, as nvme-cli takes it: decimal
 * or 0x hex (up to 16 digits). 0, -EINVAL or -ERANGE.
 */
int rblk_u64_parse(const char *s, uint64_t *out, char *why, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * NVMe Qualified Names: validation (NVMe base spec §4.5, "NVMe Qualified
 * Names") and the conversions between C strings and the fixed 256-byte,
 * NUL-terminated, NUL-padded NQN fields of the wire structures.
 */
#ifndef RBLK_PROTOCOL_NQN_H
#define RBLK_PROTOCOL_NQN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/nvmf.h"

#define RBLK_NQN_UUID_PREFIX "nqn.2014-08.org.nvmexpress:uuid:"

/*
 * The rule every configured or typed NQN meets (subsystems, allowed hosts,
 * rblk -n/-q, transport IDs), as nvmet and nvmetcli have it: 1..223 bytes
 * of printable ASCII without spaces. Looser than rblk_nqn_validate() on
 * purpose: a kernel config with "testnqn" moves over unchanged, and the wire
 * takes any terminated NQN. 0, or -EINVAL with the reason in @why, worded to
 * follow the name ("is empty", "contains a space", ...).
 */
int rblk_nqn_policy_check(const char *nqn, char *why, size_t len);

/*
 * 0 when nqn is a valid NQN, else -EINVAL. Accepted: 1..223 bytes, no ASCII
 * control characters, and one of
 *  - the well-known discovery NQN;
 *  - "nqn.2014-08.org.nvmexpress:uuid:" + a 36-character hex UUID
 *    (8-4-4-4-12), nothing after it;
 *  - "nqn.yyyy-mm.<reverse domain>[:<anything>]" with 4 digits, month 01..12
 *    and a domain of dot-separated non-empty labels of [A-Za-z0-9-] that do
 *    not start or end with '-'.
 */
int rblk_nqn_validate(const char *nqn);

/* True when nqn is exactly the well-known discovery NQN. NULL -> false. */
bool rblk_nqn_is_discovery(const char *nqn);

/*
 * Write src into a 256-byte wire field, NUL-padded. -EINVAL when src is NULL
 * or longer than NVMF_NQN_SIZE (223) bytes; dst is then all zero.
 */
int rblk_nqn_copy_field(char dst[NVMF_NQN_FIELD_LEN], const char *src);

/*
 * Copy a wire NQN field into a C string. -EINVAL when the field has no NUL
 * within its 256 bytes (never silently truncate), -ENOSPC when dst is too
 * small. dst is an empty string on failure (when dstlen > 0).
 */
int rblk_nqn_from_field(char *dst, size_t dstlen, const uint8_t field[NVMF_NQN_FIELD_LEN]);

#endif

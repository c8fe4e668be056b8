/* SPDX-License-Identifier: MIT */
/*
 * The paths of a transport ID (rblk_trid_parse, include/rblk/initiator.h):
 * for in-tree callers that merge a parsed ID with defaults of their own (the
 * fio plugin's engine options) and then need the paths one by one.
 */
#ifndef RBLK_INITIATOR_TRID_H
#define RBLK_INITIATOR_TRID_H

#include <stdbool.h>
#include <stddef.h>

#include <rblk/initiator.h>

struct rblk_trid_path {
	char traddr[RBLK_TRID_ADDR_MAX + 1];
	char trsvcid[RBLK_TRID_SVC_MAX + 1];
};

/*
 * Splits @traddr "A,B,..." and @trsvcid "P" (for every address) or
 * "P1,P2,..." (one per address) into @paths (RBLK_MPATH_MAX_PATHS of them).
 * The count, or -EINVAL with @why (an empty entry, too many, counts that
 * differ, a port that breaks the port rule).
 */
int rblk_trid_paths(const char *traddr, const char *trsvcid, struct rblk_trid_path *paths,
		    char *why, size_t len);

/*
 * False when @adrfam contradicts @traddr: a ':' is not IPv4, a dotted quad
 * is not IPv6. Host names fit either.
 */
bool rblk_trid_adrfam_fits(enum rblk_adrfam adrfam, const char *traddr);

#endif

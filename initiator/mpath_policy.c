/* SPDX-License-Identifier: MIT */
/*
 * The multipath I/O policies: which usable path an I/O goes to. Pure
 * functions of what the caller saw (usable paths, their ANA states, its own
 * in-flight counts), so the multipath queue pair (mpath_io.c) and the tests
 * share them; no state here.
 */
#include <errno.h>
#include <string.h>

#include "initiator/mpath.h"

const char *rblk_mpath_iopolicy_str(enum rblk_mpath_iopolicy pol)
{
	switch (pol) {
	case RBLK_MPATH_IOPOLICY_FIRST:
		return "first";
	case RBLK_MPATH_IOPOLICY_ROUND_ROBIN:
		return "round-robin";
	case RBLK_MPATH_IOPOLICY_QUEUE_DEPTH:
		return "queue-depth";
	}
	return "?";
}

int rblk_mpath_iopolicy_parse(const char *s, enum rblk_mpath_iopolicy *out)
{
	for (int p = RBLK_MPATH_IOPOLICY_FIRST; s && p <= RBLK_MPATH_IOPOLICY_QUEUE_DEPTH; p++) {
		if (!strcmp(s, rblk_mpath_iopolicy_str((enum rblk_mpath_iopolicy)p))) {
			*out = (enum rblk_mpath_iopolicy)p;
			return 0;
		}
	}
	return -EINVAL;
}

int rblk_mpath_pick(const bool *usable, const enum rblk_ana_state *ana, unsigned n,
		    enum rblk_mpath_iopolicy pol, const unsigned *inflight, unsigned *rr)
{
	enum rblk_ana_state want = RBLK_ANA_NON_OPTIMIZED;
	int best = -1;

	for (unsigned i = 0; i < n; i++)
		if (usable[i] && ana[i] == RBLK_ANA_OPTIMIZED)
			want = RBLK_ANA_OPTIMIZED;
	for (unsigned k = 0; k < n; k++) {
		/* round-robin starts where the last choice left off */
		unsigned i = pol == RBLK_MPATH_IOPOLICY_ROUND_ROBIN ? (*rr + k) % n : k;

		if (!usable[i] || ana[i] != want)
			continue;
		if (pol != RBLK_MPATH_IOPOLICY_QUEUE_DEPTH) {
			best = (int)i;
			break;
		}
		if (best < 0 || inflight[i] < inflight[best])
			best = (int)i;
	}
	if (best >= 0 && pol == RBLK_MPATH_IOPOLICY_ROUND_ROBIN)
		*rr = ((unsigned)best + 1) % n;
	return best;
}

/* SPDX-License-Identifier: MIT */
/*
 * The running configuration and the one way it changes while the target
 * serves: a new configuration, already validated, is diffed against the
 * running one, applied through the public target API, saved (--save), and
 * becomes the running one. A SIGHUP reload and every JSON-RPC change go
 * through here, so both have the same live effects (namespace-changed and
 * ANA-change events, a removed host's controllers failed, keys set before
 * a host is allowed) and leave the same file behind.
 */
#ifndef RBLK_TARGET_LIVE_H
#define RBLK_TARGET_LIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon/config.h"

struct rblk_tgt_live {
	struct rblk_target *tgt;
	struct rblk_config *running; /* what the target runs: diffs start from here */
	const char *save_path;       /* --save; NULL = none */
	unsigned long changes;       /* bumped each time @running is replaced */
};

enum rblk_live_mode {
	/*
	 * SIGHUP: apply what applies, report what needs a restart, save what
	 * was asked for (a namespace that failed to open stays in the file).
	 */
	RBLK_LIVE_RELOAD,
	/*
	 * One management request: a change that needs a restart is refused
	 * before anything is touched, the first failing step stops the rest,
	 * and nothing is saved unless everything applied.
	 */
	RBLK_LIVE_REQUEST,
};

/*
 * Makes the target run @next (ownership passes to @l in every case; it
 * becomes l->running, minus what failed). @changes (optional) gets the
 * number of changes the diff had and @failed the number that failed.
 * 0, or -errno with what went wrong in @why: the failing change and its
 * error, "needs a restart: ..." (-EBUSY, RBLK_LIVE_REQUEST only), or a
 * failed save (the change is live then).
 */
int rblk_tgt_live_apply(struct rblk_tgt_live *l, struct rblk_config *next, enum rblk_live_mode mode,
			size_t *changes, size_t *failed, char *why, size_t len);
/* --save: writes @cfg to l->save_path when there is one. 0 or -errno (logged). */
int rblk_tgt_live_save(struct rblk_tgt_live *l, const struct rblk_config *cfg);

#endif

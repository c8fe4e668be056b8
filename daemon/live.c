/* SPDX-License-Identifier: MIT */
/*
 * Changing the running configuration (live.h): the steps a SIGHUP reload
 * always took, shared with the JSON-RPC methods so that a change made
 * either way has the same effects and the same saved file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "daemon/live.h"

int rblk_tgt_live_save(struct rblk_tgt_live *l, const struct rblk_config *cfg)
{
	int ret;

	if (!l->save_path)
		return 0;
	ret = rblk_config_save(cfg, l->save_path);
	if (ret == 0)
		RBLK_INFO("saved the configuration to %s", l->save_path);
	else
		RBLK_ERR("%s: cannot save the configuration: %s", l->save_path, strerror(-ret));
	return ret;
}

/* The first op that failed (RBLK_LIVE_REQUEST stops there), described for the caller. */
static int first_failure(const struct rblk_config_diff *d, char *why, size_t len)
{
	for (size_t i = 0; i < d->nr; i++) {
		char what[400];

		if (!d->ops[i].result || d->ops[i].type == RBLK_CFG_OP_RESTART_NEEDED)
			continue;
		rblk_cfg_op_describe(&d->ops[i], what, sizeof(what));
		snprintf(why, len, "%s: %s", what, strerror(-d->ops[i].result));
		return d->ops[i].result;
	}
	return 0;
}

static const struct rblk_cfg_op *restart_needed(const struct rblk_config_diff *d)
{
	for (size_t i = 0; i < d->nr; i++)
		if (d->ops[i].type == RBLK_CFG_OP_RESTART_NEEDED)
			return &d->ops[i];
	return NULL;
}

int rblk_tgt_live_apply(struct rblk_tgt_live *l, struct rblk_config *next, enum rblk_live_mode mode,
			size_t *changes, size_t *failed, char *why, size_t len)
{
	bool request = mode == RBLK_LIVE_REQUEST;
	const struct rblk_cfg_op *restart;
	struct rblk_config_diff diff;
	size_t nfailed = 0;
	int ret, err;

	if (len)
		why[0] = '\0';
	ret = rblk_config_diff(l->running, next, &diff);
	if (ret) {
		snprintf(why, len, "out of memory");
		rblk_config_free(next);
		return ret;
	}
	if (changes)
		*changes = diff.nr;
	/* A request is all or nothing where it can be: refuse before touching anything. */
	if (request && (restart = restart_needed(&diff))) {
		snprintf(why, len, "needs a restart: %s", restart->why);
		rblk_config_diff_free(&diff);
		rblk_config_free(next);
		if (failed)
			*failed = 0;
		return -EBUSY;
	}
	for (size_t i = 0; i < diff.nr; i++) {
		char what[512];

		rblk_cfg_op_describe(&diff.ops[i], what, sizeof(what));
		RBLK_NOTICE("%s: %s", request ? "rpc" : "reload", what);
	}
	ret = rblk_config_apply(l->tgt, &diff, request);
	for (size_t i = 0; i < diff.nr; i++)
		nfailed += diff.ops[i].result != 0;
	if (failed)
		*failed = nfailed;
	err = ret ? first_failure(&diff, why, len) : 0;
	/*
	 * A reload saves what was asked for, so that a restart retries what
	 * failed; a request that failed changed nothing the file should keep.
	 */
	if (!request || !ret)
		ret = rblk_tgt_live_save(l, next);
	if (ret && !err)
		snprintf(why, len, "applied, but saving to %s failed: %s", l->save_path,
			 strerror(-ret));
	/* Then @next describes what actually runs. */
	rblk_config_drop_failed(next, &diff);
	if (rblk_config_keep_unapplied(next, l->running, &diff))
		RBLK_WARN("out of memory; the next change may repeat some steps");
	rblk_config_diff_free(&diff); /* points into running and next: free it first */
	rblk_config_free(l->running);
	l->running = next;
	l->changes++;
	return err ? err : ret;
}

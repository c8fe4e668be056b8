/* SPDX-License-Identifier: MIT */
/*
 * rblk_discover(): what `nvme discover` does (docs/interop.md §14.2) — connect
 * to the discovery controller (no keep-alive, no I/O queues), read the whole
 * log with generation-counter retries, disconnect (CC.SHN, CM disconnect).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "initiator/cmd.h"
#include "initiator/ctrl.h"
#include "initiator/disc_log.h"

static int disc_read(void *ctx, uint64_t lpo, void *buf, uint32_t len, bool rae,
		     uint16_t *status)
{
	struct rblk_ctrl *c = ctx;
	struct nvme_sqe sqe;
	uint16_t st;
	int ret;

	ret = rblk_cmd_get_log(&sqe, NVME_LOG_DISC, 0, lpo, len, rae);
	if (!ret)
		ret = rblk_admin_exec(c, &sqe, buf, len, false, RBLK_ADMIN_TIMEOUT_MS, NULL, NULL,
				      &st);
	if (ret)
		return ret;
	if (st) {
		if (status)
			*status = st;
		return -EREMOTEIO;
	}
	return 0;
}

int rblk_discover(const struct rblk_connect_opts *opts, struct rblk_disc_entry **entries,
		  unsigned *n, uint64_t *genctr, uint16_t *status)
{
	struct rblk_connect_opts o;
	struct rblk_ctrl *c;
	void *log = NULL;
	size_t len = 0;
	int ret;

	if (!opts || !entries || !n)
		return -EINVAL;
	*entries = NULL;
	*n = 0;
	rblk_connect_opts_init(&o);
	memcpy(&o, opts, opts->size < sizeof(o) ? opts->size : sizeof(o));
	o.size = sizeof(o);
	if (!o.subnqn)
		o.subnqn = RBLK_DISCOVERY_NQN;
	/* A one-shot discovery controller: no keep-alive (KATO 0), no I/O queues. */
	o.keep_alive_tmo = 0;
	o.nr_io_queues = 0;
	ret = rblk_ctrl_create(&o, true, &c, status);
	if (ret)
		return ret;
	ret = rblk_disc_log_fetch(disc_read, c, RBLK_DISC_RETRIES, &log, &len, status);
	if (!ret)
		ret = rblk_disc_log_entries(log, len, o.discover_all, entries, n, genctr);
	free(log);
	rblk_disconnect(c);
	return ret;
}

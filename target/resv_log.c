/* SPDX-License-Identifier: MIT */
/*
 * A controller's Reservation Notification log (80h): notices in arrival
 * order, one returned (and removed) per read, each with the Log Page Count
 * it got when it arrived. Every notice takes a count, kept or not, so one
 * lost to a full FIFO shows as a gap in the counts the host reads. A notice raises the "reservation log page available" event
 * (I/O command set specific), one at a time until the host reads the log.
 */
#include <stddef.h>
#include <string.h>

#include "protocol/le.h"
#include "protocol/nvme_log.h"
#include "target/core.h"

void rblk_resv_log_add(struct rblk_tgt_ctrl *ctrl, uint8_t type, uint32_t nsid)
{
	pthread_mutex_lock(&ctrl->lock);
	/* 0 means "empty": the count wraps to 1. */
	if (!++ctrl->resv_log_count)
		ctrl->resv_log_count = 1;
	if (ctrl->resv_log_nr < RBLK_RESV_LOG_ENTRIES) {
		struct rblk_resv_log_entry *e =
			&ctrl->resv_log[(ctrl->resv_log_head + ctrl->resv_log_nr) % RBLK_RESV_LOG_ENTRIES];

		e->count = ctrl->resv_log_count;
		e->type = type;
		e->nsid = nsid;
		ctrl->resv_log_nr++;
	}
	pthread_mutex_unlock(&ctrl->lock);
	rblk_tgt_ctrl_add_event(ctrl, RBLK_AEN_RESV,
				nvme_aen_dw0(NVME_AER_TYPE_IO_CMD_SET, NVME_AER_INFO_RESV_LOG,
					     NVME_LOG_RESERVATION));
}

uint16_t rblk_resv_log_read(struct rblk_req *req, uint64_t lpo, bool rae)
{
	struct rblk_tgt_ctrl *ctrl = req->sq->ctrl;
	struct nvme_resv_log log;

	memset(&log, 0, sizeof(log));
	pthread_mutex_lock(&ctrl->lock);
	if (ctrl->resv_log_nr) {
		const struct rblk_resv_log_entry *e = &ctrl->resv_log[ctrl->resv_log_head];

		log.count = rblk_cpu_to_le64(e->count);
		log.type = e->type;
		log.nsid = rblk_cpu_to_le32(e->nsid);
		ctrl->resv_log_head = (ctrl->resv_log_head + 1) % RBLK_RESV_LOG_ENTRIES;
		ctrl->resv_log_nr--;
		log.nalp = (uint8_t)(ctrl->resv_log_nr > 255 ? 255 : ctrl->resv_log_nr);
	}
	if (!rae)
		ctrl->aen_masked &= ~RBLK_AEN_RESV;
	pthread_mutex_unlock(&ctrl->lock);
	return rblk_req_copy_log(req, lpo, &log, sizeof(log));
}

/* SPDX-License-Identifier: MIT */
/*
 * The request lifecycle (the contract in target/core.h): init, parse
 * dispatch by queue and controller state, completion (CQE build, SQHD,
 * error log, statistics, namespace reference), and the data-buffer helpers
 * handlers use: copies over the transport's buffers and Get Log Page windows
 * (the rules are protocol/log_pages.c's and protocol/disc.c's).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "protocol/disc.h"
#include "protocol/log_pages.h"
#include "protocol/names.h"
#include "target/core.h"

void rblk_req_init(struct rblk_req *req, struct rblk_sq *sq, struct nvme_sqe *cmd)
{
	req->cmd = cmd;
	memset(&req->cqe, 0, sizeof(req->cqe));
	req->sq = sq;
	req->ns = NULL;
	req->data_len = 0;
	req->dir = RBLK_XFER_NONE;
	req->iovcnt = 0;
	req->buf_index = -1;
	req->execute = NULL;
	req->status = 0;
	req->error_loc = RBLK_NO_ERROR_LOC;
	req->start_ns = 0;
	if (sq->lat_clock)
		req->arrive_ns = rblk_clock_cache_ns(sq->lat_clock);
	req->err_lba = 0;
	req->bounce = NULL;
	req->fused_state = RBLK_FUSED_NONE;
	req->fused = NULL;
	req->wgate = RBLK_WGATE_NONE;
	/* Any command re-arms the keep-alive timer (TBKAS, CTRATT bit 6). */
	atomic_store_explicit(&sq->last_cmd_ms, rblk_clock_ms(), memory_order_relaxed);
}

static bool is_fabrics(const struct rblk_req *req, uint8_t fctype)
{
	return req->cmd->opc == NVME_ADMIN_FABRICS && rblk_req_fctype(req) == fctype;
}

uint16_t rblk_req_parse(struct rblk_req *req)
{
	struct rblk_sq *sq = req->sq;
	uint8_t flags = req->cmd->flags;
	uint16_t status;

	/*
	 * PSDT must say "SGL" (nvmet_req_init). FUSE: Compare and Write on I/O
	 * queues only (target/fused.c); 11b is reserved.
	 */
	if ((flags & NVME_CMD_FUSE_MASK) == NVME_CMD_FUSE_MASK ||
	    ((flags & NVME_CMD_FUSE_MASK) && (sq->state != RBLK_SQ_LIVE || !sq->qid)) ||
	    (flags & NVME_CMD_PSDT_MASK) != NVME_CMD_PSDT_SGL_MPTR_CONTIG) {
		req->error_loc = offsetof(struct nvme_sqe, flags);
		status = NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		goto out;
	}

	switch (sq->state) {
	case RBLK_SQ_NEW:
		status = rblk_fabrics_parse_connect(req);
		break;
	case RBLK_SQ_LIVE:
		if (is_fabrics(req, NVMF_FCTYPE_CONNECT)) {
			/* The queue already has an association (NVMe-oF 1.1 §3.3). */
			req->error_loc = offsetof(struct nvmf_connect_cmd, qid);
			status = NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
		} else if (is_fabrics(req, NVMF_FCTYPE_AUTH_SEND) ||
			   is_fabrics(req, NVMF_FCTYPE_AUTH_RECV)) {
			status = rblk_fabrics_parse_auth(req);
		} else if (!rblk_tgt_auth_sq_open(sq)) {
			/*
			 * Fail closed: until this queue authenticated, nothing
			 * else runs, Property Get/Set included (nvmet lets
			 * fabrics commands through; no host needs them first).
			 */
			req->error_loc = offsetof(struct nvme_sqe, opc);
			status = NVME_SC_AUTH_REQUIRED | NVME_SC_DNR;
		} else if (sq->qid == 0) {
			if (rblk_tgt_ctrl_is_disc(sq->ctrl))
				status = rblk_disc_parse(req);
			else
				status = rblk_admin_parse(req);
		} else {
			status = rblk_io_parse(req);
		}
		break;
	case RBLK_SQ_CLOSING:
	default:
		status = NVME_SC_ABORT_QUEUE | NVME_SC_DNR;
		break;
	}

	/* MDTS applies to every command that moves data. */
	if (!status && req->data_len > sq->tgt->opts.max_io_size) {
		req->error_loc = offsetof(struct nvme_sqe, sgl1);
		status = NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
out:
	/*
	 * A fused half, or any command after a first half (even a malformed
	 * one, which is not its second half either): pairing decides.
	 */
	if (sq->qid && sq->state == RBLK_SQ_LIVE &&
	    ((flags & NVME_CMD_FUSE_MASK) || sq->fused_first || sq->fused_first_failed))
		status = rblk_fused_parse(req, status);
	if (status && req->ns) {
		rblk_tgt_ns_io_put(req->ns, sq->pg);
		req->ns = NULL;
	}
	req->status = status;
	return status;
}

void rblk_req_complete(struct rblk_req *req, uint16_t status)
{
	struct rblk_sq *sq = req->sq;
	uint32_t dw0 = rblk_le32(req->cqe.dw0);
	uint32_t dw1 = rblk_le32(req->cqe.dw1);
	uint16_t sqhd = 0;

	/* Half of a fused pair completed alone (transport failure): the other is told. */
	if (req->fused_state)
		rblk_fused_abandon(req);
	if (status) {
		if (sq->ctrl && rblk_tgt_ctrl_log_error(sq->ctrl, req, status))
			status |= NVME_SC_MORE; /* nvmet: an error log entry exists */
		rblk_stat_inc(&sq->stats.errors, 1);
		if (RBLK_LOG_ON(RBLK_LOG_DEBUG))
			RBLK_DEBUG("qid %u cid %#x opc %#x: %s (%#x)", sq->qid,
				   rblk_le16(req->cmd->cid), req->cmd->opc,
				   rblk_nvme_cmd_status_str(status, req->cmd->opc), status);
	}
	req->status = status;

	/*
	 * SQHD advances on every completion once the queue has a size (Connect),
	 * unless the host disabled SQ flow control; the Connect response itself
	 * then carries 0xFFFF, set by the Connect handler (nvmet behaviour).
	 */
	if (sq->size && !sq->sqhd_disabled) {
		sq->sqhd = (uint16_t)((sq->sqhd + 1) % sq->size);
		sqhd = sq->sqhd;
	} else {
		sqhd = rblk_le16(req->cqe.sqhd);
	}
	nvme_cqe_build(&req->cqe, req->cmd->cid, status, dw0, dw1, sqhd, sq->qid);
	rblk_stat_inc(&sq->stats.completed, 1);

	if (req->ns) {
		rblk_tgt_ns_io_put(req->ns, sq->pg);
		req->ns = NULL;
	}
	sq->ops->queue_response(req);
}

/* ------------------------------------------------------------------------ */
/* Data buffer access.                                                       */

enum copy_dir { COPY_TO, COPY_FROM, COPY_ZERO };

static uint16_t req_copy(struct rblk_req *req, size_t off, void *buf, size_t len,
			 enum copy_dir dir)
{
	unsigned i = 0;

	if (!len)
		return 0;
	/* Skip whole buffers before off. */
	while (i < req->iovcnt && off >= req->iov[i].iov_len) {
		off -= req->iov[i].iov_len;
		i++;
	}
	for (; i < req->iovcnt && len; i++, off = 0) {
		size_t n = req->iov[i].iov_len - off;
		uint8_t *p = (uint8_t *)req->iov[i].iov_base + off;

		if (n > len)
			n = len;
		if (dir == COPY_TO)
			memcpy(p, buf, n);
		else if (dir == COPY_FROM)
			memcpy(buf, p, n);
		else
			memset(p, 0, n);
		if (buf)
			buf = (uint8_t *)buf + n;
		len -= n;
	}
	return len ? (NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR) : 0;
}

uint16_t rblk_req_copy_to(struct rblk_req *req, size_t off, const void *buf, size_t len)
{
	return req_copy(req, off, (void *)buf, len, COPY_TO);
}

uint16_t rblk_req_copy_from(struct rblk_req *req, size_t off, void *buf, size_t len)
{
	return req_copy(req, off, buf, len, COPY_FROM);
}

uint16_t rblk_req_zero(struct rblk_req *req, size_t off, size_t len)
{
	return req_copy(req, off, NULL, len, COPY_ZERO);
}

size_t rblk_req_data_cmp(const struct rblk_req *req, size_t off, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	size_t done = 0;
	unsigned i = 0;

	while (i < req->iovcnt && off >= req->iov[i].iov_len) {
		off -= req->iov[i].iov_len;
		i++;
	}
	for (; i < req->iovcnt && done < len; i++, off = 0) {
		const uint8_t *p = (const uint8_t *)req->iov[i].iov_base + off;
		size_t n = req->iov[i].iov_len - off;

		if (n > len - done)
			n = len - done;
		if (memcmp(p, b + done, n)) {
			while (p[0] == b[done]) {
				p++;
				done++;
			}
			return done;
		}
		done += n;
	}
	/* Short of len: the buffers ended there, which counts as a difference. */
	return done;
}

/*
 * A flat view of the command's data_len bytes, for the protocol/ helpers
 * that fill one buffer: the transport's own when it is a single buffer (the
 * usual case), else a temporary one that flat_put() copies out and frees.
 */
static void *flat_get(struct rblk_req *req)
{
	if (req->iovcnt == 1 && req->iov[0].iov_len >= req->data_len)
		return req->iov[0].iov_base;
	return malloc(req->data_len ? req->data_len : 1);
}

static uint16_t flat_put(struct rblk_req *req, void *flat, uint16_t status)
{
	if (req->iovcnt == 1 && flat == req->iov[0].iov_base)
		return status;
	if (!status)
		status = rblk_req_copy_to(req, 0, flat, req->data_len);
	free(flat);
	return status;
}

/* LPO is the only field a log window can reject (dword alignment, past the end). */
static uint16_t log_window_done(struct rblk_req *req, void *flat, uint16_t status)
{
	if (status)
		req->error_loc = offsetof(struct nvme_get_log_cmd, lpol);
	return flat_put(req, flat, status);
}

uint16_t rblk_req_copy_log(struct rblk_req *req, uint64_t lpo, const void *log, size_t log_len)
{
	void *flat = flat_get(req);

	if (!flat)
		return NVME_SC_INTERNAL;
	return log_window_done(req, flat, rblk_log_read(flat, req->data_len, lpo, log, log_len));
}

uint16_t rblk_req_copy_disc_log(struct rblk_req *req, uint64_t lpo, uint64_t genctr,
				const struct nvmf_disc_log_entry *entries, uint32_t numrec)
{
	void *flat = flat_get(req);

	if (!flat)
		return NVME_SC_INTERNAL;
	return log_window_done(req, flat, rblk_disc_log_read(flat, req->data_len, lpo, genctr,
							     entries, numrec));
}

const char *rblk_sq_state_str(enum rblk_sq_state s)
{
	switch (s) {
	case RBLK_SQ_NEW:
		return "new";
	case RBLK_SQ_LIVE:
		return "live";
	case RBLK_SQ_CLOSING:
		return "closing";
	}
	return "?";
}

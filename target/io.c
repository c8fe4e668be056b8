/* SPDX-License-Identifier: MIT */
/*
 * I/O commands -> backend: Read, Write (FUA), Flush, Write Zeroes, Dataset
 * Management (deallocate), each validated at parse (namespace, opcode, LBA
 * range, write protection) and executed as rblk_bio(s) on the poll group's
 * backend queue; the parking queue for a full backend queue; backend errno
 * -> NVMe status; the per-namespace counters behind SMART and statistics.
 *
 * Backend errors and why (the host retries a status without DNR up to 5
 * times, nvme_max_retries):
 *   -EIO                Unrecovered Read Error (reads) / Write Fault (others),
 *                       no DNR: media and transport hiccups are often
 *                       transient, and a retry is what a disk would get.
 *                       Counted as a SMART media error.
 *   -ENOSPC, -EDQUOT    Capacity Exceeded + DNR (a thin file ran out of room).
 *   -EROFS, -EPERM      Namespace Write Protected + DNR.
 *   -EOPNOTSUPP         Invalid Opcode + DNR (nvmet's mapping).
 *   -ENOMEM, -EAGAIN,
 *   -EBUSY, -EINTR      Internal Error without DNR (transient).
 *   anything else       Internal Error + DNR.
 */
#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "protocol/lba.h"
#include "target/core.h"

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint16_t errno_to_status(int res, enum rblk_bio_op op)
{
	switch (res) {
	case 0:
		return 0;
	case -EIO:
		return op == RBLK_BIO_READ ? NVME_SC_READ_ERROR : NVME_SC_WRITE_FAULT;
	case -ENOSPC:
	case -EDQUOT:
		return NVME_SC_CAP_EXCEEDED | NVME_SC_DNR;
	case -EROFS:
	case -EPERM:
		return NVME_SC_NS_WRITE_PROTECTED | NVME_SC_DNR;
	case -ERANGE:
		return NVME_SC_LBA_RANGE | NVME_SC_DNR;
	case -EOPNOTSUPP:
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	case -ENOMEM:
	case -EAGAIN:
	case -EBUSY:
	case -EINTR:
		return NVME_SC_INTERNAL;
	default:
		return NVME_SC_INTERNAL | NVME_SC_DNR;
	}
}

/* ------------------------------------------------------------------------ */
/* Submission and the parking queue.                                        */

void rblk_io_waitq_init(struct rblk_io_waitq *wq)
{
	wq->head = NULL;
	wq->tailp = &wq->head;
	wq->count = 0;
}

static void waitq_push(struct rblk_io_waitq *wq, struct rblk_req *req)
{
	req->next = NULL;
	*wq->tailp = req;
	wq->tailp = &req->next;
	wq->count++;
}

static void fail_bio(struct rblk_req *req, int res);

/* 0 submitted (or failed and completed), -EAGAIN full. */
static int try_submit(struct rblk_req *req)
{
	int ret = rblk_bqueue_submit(req->sq->bq, &req->bio);

	if (ret == -EAGAIN)
		return ret;
	if (ret)
		fail_bio(req, ret);
	return 0;
}

static void io_submit(struct rblk_req *req)
{
	struct rblk_io_waitq *wq = req->sq->waitq;

	/* Keep the order: nothing overtakes requests already parked. */
	if (wq && wq->count) {
		waitq_push(wq, req);
		return;
	}
	if (try_submit(req) == -EAGAIN) {
		if (wq)
			waitq_push(wq, req);
		else
			fail_bio(req, -EAGAIN);
	}
}

unsigned rblk_io_waitq_run(struct rblk_io_waitq *wq)
{
	unsigned n = 0;

	while (wq->head) {
		struct rblk_req *req = wq->head;

		if (try_submit(req) == -EAGAIN)
			break;
		wq->head = req->next;
		if (!wq->head)
			wq->tailp = &wq->head;
		wq->count--;
		n++;
	}
	return n;
}

/* ------------------------------------------------------------------------ */
/* Completion.                                                               */

static void account(struct rblk_req *req, int res)
{
	struct rblk_tgt_ns_stats *st = &req->ns->stats;
	struct rblk_bio *bio = &req->bio;

	rblk_stat_add(&st->busy_ns, now_ns() - req->start_ns);
	if (res) {
		rblk_stat_add(&st->errors, 1);
		if (res == -EIO)
			rblk_stat_add(&st->media_errors, 1);
		return;
	}
	switch (bio->op) {
	case RBLK_BIO_READ:
		rblk_stat_add(&st->read_cmds, 1);
		rblk_stat_add(&st->read_bytes, bio->len);
		break;
	case RBLK_BIO_WRITE:
		rblk_stat_add(&st->write_cmds, 1);
		rblk_stat_add(&st->write_bytes, bio->len);
		break;
	default:
		rblk_stat_add(&st->other_cmds, 1);
		break;
	}
}

static void fail_bio(struct rblk_req *req, int res)
{
	uint16_t status = errno_to_status(res, req->bio.op);

	if (status & NVME_SC_DNR)
		RBLK_ERR("nsid %u: %s at byte %llu len %llu failed: %s", req->ns->nsid,
			 rblk_bio_op_str(req->bio.op), (unsigned long long)req->bio.offset,
			 (unsigned long long)req->bio.len, strerror(-res));
	account(req, res);
	req->err_lba = req->bio.offset >> req->ns->lbads;
	rblk_req_complete(req, status);
}

static void bio_done(struct rblk_bio *bio)
{
	struct rblk_req *req = container_of(bio, struct rblk_req, bio);

	if (bio->res) {
		fail_bio(req, bio->res);
		return;
	}
	account(req, 0);
	rblk_req_complete(req, 0);
}

/* ------------------------------------------------------------------------ */
/* Commands.                                                                 */

static void bio_prep(struct rblk_req *req, enum rblk_bio_op op, uint64_t slba, uint64_t nlb)
{
	struct rblk_bio *bio = &req->bio;

	memset(bio, 0, sizeof(*bio));
	bio->op = op;
	bio->bdev = req->ns->bdev;
	bio->offset = slba << req->ns->lbads;
	bio->len = nlb << req->ns->lbads;
	bio->buf_index = -1;
	bio->cb = bio_done;
}

/*
 * A Write or Write Zeroes is FUA when the host asks, and always with the
 * volatile write cache turned off (feature 06h).
 */
static bool want_fua(const struct rblk_req *req, const struct nvme_rw_cmd *c)
{
	return (rblk_le16(c->control) & NVME_RW_FUA) ||
	       (req->ns->vwc && !__atomic_load_n(&req->sq->ctrl->vwc_enabled, __ATOMIC_RELAXED));
}

/* Read, Write and Write Zeroes: the bio for SLBA/NLB (checked at parse). */
static void rw_prep(struct rblk_req *req, enum rblk_bio_op op)
{
	const struct nvme_rw_cmd *c = (const struct nvme_rw_cmd *)req->cmd;

	req->start_ns = now_ns();
	bio_prep(req, op, rblk_rw_slba(c), rblk_rw_nlb(c));
	if (op != RBLK_BIO_READ && want_fua(req, c))
		req->bio.flags |= RBLK_BIO_FUA;
}

static void execute_rw(struct rblk_req *req)
{
	struct rblk_bio *bio = &req->bio;

	rw_prep(req, req->cmd->opc == NVME_IO_WRITE ? RBLK_BIO_WRITE : RBLK_BIO_READ);
	bio->iov = req->iov;
	bio->iovcnt = (int)req->iovcnt;
	bio->buf_index = req->iovcnt == 1 ? req->buf_index : -1;
	io_submit(req);
}

static void execute_write_zeroes(struct rblk_req *req)
{
	/* DEAC is a hint; zeroes are what the host reads back either way. */
	rw_prep(req, RBLK_BIO_WRITE_ZEROES);
	io_submit(req);
}

static void execute_flush(struct rblk_req *req)
{
	/* Nothing volatile to flush: done without a system call. */
	if (!req->ns->vwc) {
		rblk_stat_add(&req->ns->stats.other_cmds, 1);
		rblk_req_complete(req, 0);
		return;
	}
	req->start_ns = now_ns();
	bio_prep(req, RBLK_BIO_FLUSH, 0, 0);
	io_submit(req);
}

/* DSM deallocate: one discard per range, in order (ranges come in a 4 KiB buffer). */
static void dsm_next(struct rblk_bio *bio);

static void dsm_submit(struct rblk_req *req)
{
	struct nvme_dsm_range r;

	while (req->dsm_idx < req->dsm_nr) {
		rblk_req_copy_from(req, (size_t)req->dsm_idx * sizeof(r), &r, sizeof(r));
		req->dsm_idx++;
		if (!r.nlb)
			continue;
		bio_prep(req, RBLK_BIO_DISCARD, rblk_le64(r.slba), rblk_le32(r.nlb));
		req->bio.cb = dsm_next;
		io_submit(req);
		return;
	}
	account(req, 0);
	rblk_req_complete(req, 0);
}

static void dsm_next(struct rblk_bio *bio)
{
	struct rblk_req *req = container_of(bio, struct rblk_req, bio);

	if (bio->res) {
		fail_bio(req, bio->res);
		return;
	}
	dsm_submit(req);
}

static void execute_dsm(struct rblk_req *req)
{
	const struct nvme_dsm_cmd *c = (const struct nvme_dsm_cmd *)req->cmd;
	struct nvme_dsm_range r;
	uint16_t status;

	/* Every range is checked before anything is deallocated. */
	for (unsigned i = 0; i < req->dsm_nr; i++) {
		status = rblk_req_copy_from(req, (size_t)i * sizeof(r), &r, sizeof(r));
		if (status) {
			rblk_req_complete(req, status);
			return;
		}
		status = rblk_lba_range_check(rblk_le64(r.slba), rblk_le32(r.nlb), req->ns->nlb);
		if (status) {
			req->err_lba = rblk_le64(r.slba);
			rblk_req_complete(req, status);
			return;
		}
	}
	/* Without AD the attributes are access hints: nothing to do. */
	if (!(rblk_le32(c->attributes) & NVME_DSM_AD)) {
		rblk_stat_add(&req->ns->stats.other_cmds, 1);
		rblk_req_complete(req, 0);
		return;
	}
	req->dsm_idx = 0;
	req->start_ns = now_ns();
	dsm_submit(req);
}

/* ------------------------------------------------------------------------ */

static uint16_t parse_lba(struct rblk_req *req, uint64_t *nlb_out)
{
	const struct nvme_rw_cmd *c = (const struct nvme_rw_cmd *)req->cmd;
	uint64_t slba = rblk_rw_slba(c);
	uint16_t status;

	*nlb_out = rblk_rw_nlb(c);
	status = rblk_lba_range_check(slba, *nlb_out, req->ns->nlb);
	if (status) {
		req->error_loc = offsetof(struct nvme_rw_cmd, slba);
		req->err_lba = slba;
	}
	return status;
}

static uint16_t write_protected(struct rblk_req *req)
{
	/* Permanent until reconfigured, so DNR (the host already sees NSATTR.WP). */
	req->error_loc = offsetof(struct nvme_sqe, opc);
	return NVME_SC_NS_WRITE_PROTECTED | NVME_SC_DNR;
}

uint16_t rblk_io_parse(struct rblk_req *req)
{
	const struct nvme_sqe *cmd = req->cmd;
	struct rblk_tgt_ctrl *ctrl = req->sq->ctrl;
	uint64_t nlb;
	uint16_t status;

	if (cmd->opc == NVME_ADMIN_FABRICS) {
		/* Authentication is not supported; Connect was handled before. */
		req->error_loc = NVME_SQE_FCTYPE_OFFSET;
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
	if (!rblk_tgt_ctrl_ready(ctrl)) {
		req->error_loc = offsetof(struct nvme_sqe, opc);
		return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	}
	req->ns = rblk_subsys_get_ns(ctrl->ss, rblk_le32(cmd->nsid));
	if (!req->ns) {
		req->error_loc = offsetof(struct nvme_sqe, nsid);
		return NVME_SC_INVALID_NS | NVME_SC_DNR;
	}

	switch (cmd->opc) {
	case NVME_IO_READ:
	case NVME_IO_WRITE:
		if (cmd->opc == NVME_IO_WRITE && req->ns->read_only)
			return write_protected(req);
		status = parse_lba(req, &nlb);
		if (status)
			return status;
		if ((nlb << req->ns->lbads) > req->sq->tgt->opts.max_io_size) {
			req->error_loc = offsetof(struct nvme_rw_cmd, nlb);
			return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		}
		req->data_len = (uint32_t)(nlb << req->ns->lbads);
		req->dir = cmd->opc == NVME_IO_WRITE ? RBLK_XFER_H2C : RBLK_XFER_C2H;
		req->execute = execute_rw;
		return 0;
	case NVME_IO_FLUSH:
		req->execute = execute_flush;
		return 0;
	case NVME_IO_WRITE_ZEROES:
		if (req->ns->read_only)
			return write_protected(req);
		status = parse_lba(req, &nlb);
		if (status)
			return status;
		req->execute = execute_write_zeroes;
		return 0;
	case NVME_IO_DSM: {
		const struct nvme_dsm_cmd *c = (const struct nvme_dsm_cmd *)cmd;

		if (req->ns->read_only && (rblk_le32(c->attributes) & NVME_DSM_AD))
			return write_protected(req);
		req->dsm_nr = (uint16_t)((rblk_le32(c->nr) & NVME_DSM_NR_MASK) + 1);
		/* The transport accepts a longer SGL (Linux sends 4 KiB), docs/interop.md §4.3. */
		req->data_len = req->dsm_nr * (uint32_t)sizeof(struct nvme_dsm_range);
		req->dir = RBLK_XFER_H2C;
		req->execute = execute_dsm;
		return 0;
	}
	default:
		req->error_loc = offsetof(struct nvme_sqe, opc);
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
}

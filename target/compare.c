/* SPDX-License-Identifier: MIT */
/*
 * The I/O commands that read a range into target memory rather than into
 * the host's buffers: Compare (05h), Verify (0Ch) and Copy (19h, source
 * range format 0, within the namespace). Each holds one bounce unit of its
 * poll group (target/bounce.c) and goes through its range one unit at a
 * time, as provider READs (and, for Copy, WRITEs), so any length works in a
 * fixed amount of memory. io.c parses the common part (namespace, ANA) and
 * dispatches here.
 *
 *   Compare  reads the range and holds it against the host's data (pulled
 *            before execute, like a Write's): Compare Failure (02h/85h, DNR)
 *            at the first difference. Its reads are a Read's: a provider
 *            error is an Unrecovered Read Error.
 *   Verify   reads the range and throws it away: success when it is
 *            readable. No data moves, so MDTS does not apply; NLB does.
 *   Copy     reads each source range and writes it at SDLBA onwards, in
 *            order. Limits (Identify Namespace): MSRC + 1 = 128 ranges
 *            (their 4 KiB of entries fit one transfer), MCL = MDTS in
 *            blocks (a Copy takes no longer than the longest Write), MSSRL =
 *            MCL capped at 65535; beyond them Command Size Limit Exceeded.
 *            On a failure DW0 holds the lowest source range not copied. A
 *            destination that overlaps a later source range reads what the
 *            earlier writes left there (the specification leaves overlap to
 *            the host).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "common/clock.h"
#include "protocol/lba.h"
#include "target/core.h"

uint32_t rblk_copy_mcl(const struct rblk_target *tgt, const struct rblk_tgt_ns *ns)
{
	return tgt->opts.max_io_size >> ns->lbads;
}

uint16_t rblk_copy_mssrl(const struct rblk_target *tgt, const struct rblk_tgt_ns *ns)
{
	uint32_t mcl = rblk_copy_mcl(tgt, ns);

	return (uint16_t)(mcl > 0xFFFF ? 0xFFFF : mcl);
}

/* ------------------------------------------------------------------------ */
/* Reading a range through the bounce unit.                                  */

/*
 * The next piece of [x_next, x_end) into the unit, done(req, res) after it;
 * false when the range is done.
 */
static bool read_next(struct rblk_req *req, void (*done)(struct rblk_req *req, int res))
{
	struct rblk_provider_io *io = &req->pio;
	uint64_t left = req->x_end - req->x_next;
	int ret;

	if (!left)
		return false;
	req->x_len = (uint32_t)(left < RBLK_TGT_BOUNCE_SIZE ? left : RBLK_TGT_BOUNCE_SIZE);
	rblk_io_prep(req, RBLK_PROVIDER_READ, 0, 0, done);
	io->offset = req->x_next;
	io->len = req->x_len;
	req->biov.iov_base = req->bounce;
	req->biov.iov_len = req->x_len;
	io->iov = &req->biov;
	io->iovcnt = 1;
	req->x_next += req->x_len;
	/* A refusal goes the way a failed read does: the unit must come back. */
	ret = rblk_io_try_submit(req);
	if (ret)
		done(req, ret);
	return true;
}

/* The command ends: the unit goes back (maybe to a waiter) before the answer. */
static void bounce_finished(struct rblk_req *req, int res)
{
	rblk_tgt_bounce_put(req);
	rblk_io_finished(req, res);
}

static void range_start(struct rblk_req *req, uint64_t slba, uint64_t nlb)
{
	req->x_next = slba << req->ns->lbads;
	req->x_end = req->x_next + (nlb << req->ns->lbads);
	req->x_off = 0;
	req->x_len = 0;
}

/* ------------------------------------------------------------------------ */
/* Compare.                                                                  */

static void compare_next(struct rblk_req *req, int res)
{
	if (res) {
		req->x_done(req, res);
		return;
	}
	if (req->x_len) {
		size_t same = rblk_req_data_cmp(req, req->x_off, req->bounce, req->x_len);

		if (same != req->x_len) {
			req->err_lba = (req->pio.offset + same) >> req->ns->lbads;
			req->x_done(req, -EILSEQ);
			return;
		}
		req->x_off += req->x_len;
		req->x_len = 0;
	}
	if (!read_next(req, compare_next))
		req->x_done(req, 0);
}

void rblk_compare_run(struct rblk_req *req, void (*done)(struct rblk_req *req, int res))
{
	const struct nvme_rw_cmd *c = (const struct nvme_rw_cmd *)req->cmd;

	range_start(req, rblk_rw_slba(c), rblk_rw_nlb(c));
	req->x_done = done;
	compare_next(req, 0);
}

/* A plain Compare's end: the difference is its answer, not an error of the storage. */
static void compare_done(struct rblk_req *req, int res)
{
	if (res != -EILSEQ) {
		bounce_finished(req, res);
		return;
	}
	rblk_tgt_bounce_put(req);
	rblk_stat_inc(&req->ns->pgstats[req->sq->pg->id].other_cmds, 1);
	rblk_req_complete(req, NVME_SC_COMPARE_FAILED | NVME_SC_DNR);
}

static void compare_start(struct rblk_req *req)
{
	rblk_compare_run(req, compare_done);
}

static void execute_compare(struct rblk_req *req)
{
	req->start_ns = rblk_clock_cache_ns(req->sq->clock);
	if (rblk_tgt_bounce_get(req, compare_start))
		compare_start(req);
}

/* ------------------------------------------------------------------------ */
/* Verify.                                                                   */

static void verify_next(struct rblk_req *req, int res)
{
	if (res || !read_next(req, verify_next))
		bounce_finished(req, res);
}

static void verify_start(struct rblk_req *req)
{
	const struct nvme_rw_cmd *c = (const struct nvme_rw_cmd *)req->cmd;

	range_start(req, rblk_rw_slba(c), rblk_rw_nlb(c));
	verify_next(req, 0);
}

static void execute_verify(struct rblk_req *req)
{
	req->start_ns = rblk_clock_cache_ns(req->sq->clock);
	if (rblk_tgt_bounce_get(req, verify_start))
		verify_start(req);
}

/* ------------------------------------------------------------------------ */
/* Copy.                                                                     */

static void copy_read_done(struct rblk_req *req, int res);

/* Fails the Copy with DW0 = the lowest source range not (fully) copied. */
static void copy_failed(struct rblk_req *req, int res)
{
	rblk_req_set_dw0(req, req->dsm_idx ? req->dsm_idx - 1u : 0);
	bounce_finished(req, res);
}

/* The next source range, or the end: reads its first piece. */
static void copy_next_range(struct rblk_req *req)
{
	struct nvme_copy_range r;

	while (req->dsm_idx < req->dsm_nr) {
		rblk_req_copy_from(req, (size_t)req->dsm_idx * sizeof(r), &r, sizeof(r));
		req->dsm_idx++;
		range_start(req, rblk_le64(r.slba), rblk_le16(r.nlb) + 1u);
		if (read_next(req, copy_read_done))
			return;
	}
	bounce_finished(req, 0);
}

static void copy_write_done(struct rblk_req *req, int res)
{
	if (res) {
		copy_failed(req, res);
		return;
	}
	if (!read_next(req, copy_read_done))
		copy_next_range(req);
}

/* A piece of a source range is in the unit: write it at the destination. */
static void copy_read_done(struct rblk_req *req, int res)
{
	const struct nvme_copy_cmd *c = (const struct nvme_copy_cmd *)req->cmd;
	struct rblk_provider_io *io = &req->pio;

	if (res) {
		copy_failed(req, res);
		return;
	}
	rblk_io_prep(req, RBLK_PROVIDER_WRITE, 0, 0, copy_write_done);
	io->offset = req->x_dst;
	io->len = req->x_len;
	io->iov = &req->biov;
	io->iovcnt = 1;
	if (rblk_io_want_fua(req, rblk_le32(c->cdw12) & NVME_COPY_FUA))
		io->flags |= RBLK_PROVIDER_FUA;
	req->x_dst += req->x_len;
	res = rblk_io_try_submit(req);
	if (res)
		copy_failed(req, res);
}

static void copy_start(struct rblk_req *req)
{
	const struct nvme_copy_cmd *c = (const struct nvme_copy_cmd *)req->cmd;

	req->dsm_idx = 0;
	req->x_dst = rblk_le64(c->sdlba) << req->ns->lbads;
	copy_next_range(req);
}

/* Every limit is checked before anything is written. */
static uint16_t copy_check(struct rblk_req *req)
{
	const struct nvme_copy_cmd *c = (const struct nvme_copy_cmd *)req->cmd;
	const struct rblk_target *tgt = req->sq->tgt;
	uint64_t nsze = rblk_tgt_ns_nlb(req->ns), total = 0;
	uint32_t mcl = rblk_copy_mcl(tgt, req->ns), mssrl = rblk_copy_mssrl(tgt, req->ns);
	struct nvme_copy_range r;
	uint16_t status;

	for (unsigned i = 0; i < req->dsm_nr; i++) {
		uint64_t nlb;

		status = rblk_req_copy_from(req, (size_t)i * sizeof(r), &r, sizeof(r));
		if (status)
			return status;
		nlb = rblk_le16(r.nlb) + 1u;
		if (nlb > mssrl)
			return NVME_SC_CMD_SIZE_LIMIT | NVME_SC_DNR;
		total += nlb;
		status = rblk_lba_range_check(rblk_le64(r.slba), nlb, nsze);
		if (status) {
			req->err_lba = rblk_le64(r.slba);
			return status;
		}
	}
	if (total > mcl)
		return NVME_SC_CMD_SIZE_LIMIT | NVME_SC_DNR;
	/* The destination's bytes, which the range lock covers. */
	req->x_dst = rblk_le64(c->sdlba) << req->ns->lbads;
	req->x_end = req->x_dst + (total << req->ns->lbads);
	status = rblk_lba_range_check(rblk_le64(c->sdlba), total, nsze);
	if (status) {
		req->error_loc = offsetof(struct nvme_copy_cmd, sdlba);
		req->err_lba = rblk_le64(c->sdlba);
	}
	return status;
}

static void copy_bounce(struct rblk_req *req)
{
	if (rblk_tgt_bounce_get(req, copy_start))
		copy_start(req);
}

static void execute_copy(struct rblk_req *req)
{
	uint16_t status = copy_check(req);

	if (status) {
		rblk_req_complete(req, status);
		return;
	}
	req->start_ns = rblk_clock_cache_ns(req->sq->clock);
	if (rblk_range_write_begin(req, req->x_dst, req->x_end, copy_bounce))
		copy_bounce(req);
}

/* ------------------------------------------------------------------------ */
/* Parse.                                                                    */

static uint16_t parse_range(struct rblk_req *req)
{
	const struct nvme_rw_cmd *c = (const struct nvme_rw_cmd *)req->cmd;
	uint16_t status = rblk_lba_range_check(rblk_rw_slba(c), rblk_rw_nlb(c),
					       rblk_tgt_ns_nlb(req->ns));

	if (status) {
		req->error_loc = offsetof(struct nvme_rw_cmd, slba);
		req->err_lba = rblk_rw_slba(c);
	}
	return status;
}

uint16_t rblk_io_parse_compare(struct rblk_req *req)
{
	const struct nvme_rw_cmd *c = (const struct nvme_rw_cmd *)req->cmd;
	uint16_t status = parse_range(req);

	if (status)
		return status;
	/* The host's data comes as a Write's does: MDTS applies (rblk_req_parse). */
	req->data_len = (uint32_t)((uint64_t)rblk_rw_nlb(c) << req->ns->lbads);
	req->dir = RBLK_XFER_H2C;
	req->execute = execute_compare;
	return 0;
}

uint16_t rblk_io_parse_verify(struct rblk_req *req)
{
	uint16_t status = parse_range(req);

	if (status)
		return status;
	req->execute = execute_verify;
	return 0;
}

uint16_t rblk_io_parse_copy(struct rblk_req *req)
{
	const struct nvme_copy_cmd *c = (const struct nvme_copy_cmd *)req->cmd;
	uint32_t cdw12 = rblk_le32(c->cdw12);

	if (req->ns->read_only) {
		req->error_loc = offsetof(struct nvme_sqe, opc);
		return NVME_SC_NS_WRITE_PROTECTED | NVME_SC_DNR;
	}
	/* Format 0 only: 1 to 3 carry the 32/64-bit PI fields rblk has none of. */
	if ((cdw12 >> NVME_COPY_DESFMT_SHIFT) & NVME_COPY_DESFMT_MASK) {
		req->error_loc = offsetof(struct nvme_copy_cmd, cdw12);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	req->dsm_nr = (uint16_t)((cdw12 & NVME_COPY_NR_MASK) + 1);
	if (req->dsm_nr > RBLK_COPY_MAX_RANGES) {
		req->error_loc = offsetof(struct nvme_copy_cmd, cdw12);
		return NVME_SC_CMD_SIZE_LIMIT | NVME_SC_DNR;
	}
	req->data_len = req->dsm_nr * (uint32_t)sizeof(struct nvme_copy_range);
	req->dir = RBLK_XFER_H2C;
	req->execute = execute_copy;
	return 0;
}

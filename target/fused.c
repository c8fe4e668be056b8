/* SPDX-License-Identifier: MIT */
/*
 * Fused Compare and Write (NVM command set, fused operations): a Compare
 * with FUSE 01b followed, as the next command of the same submission
 * queue, by a Write with FUSE 10b over the same LBA range. The Write
 * happens only when the range holds the Compare's data, and nothing else
 * writes the range in between, from any queue of any controller.
 *
 * Pairing happens at parse, in the order the queue's capsules arrive
 * (rblk_fused_parse): a first half is parked on the queue until the next
 * command, which must be its second half. Each half then gets its data
 * (the transport pulls both), and whichever half executes last starts the
 * operation. Statuses:
 *   - compare differs: the Compare gets Compare Failure, the Write Command
 *     Aborted due to Failed Fused Command; the range is unchanged;
 *   - a first half not followed by a second (or a queue that goes away):
 *     Command Aborted due to Missing Fused Command; a second half with no
 *     first: the same; a second after a first that failed: Failed Fused
 *     Command;
 *   - halves that disagree (the second is not a Write, another namespace or
 *     another range): Invalid Field in Command for both, as the
 *     specification says;
 *   - a half that fails in transport (its data never arrived) takes the
 *     other with it: Failed Fused Command;
 *   - the Write fails after a matching compare: the Compare succeeded (the
 *     specification leaves it unaffected); a provider's one compare and
 *     write io that fails otherwise than by a difference: the Write gets the
 *     error, the Compare Failed Fused Command (whether it matched is unknown).
 * All of them with DNR: a retried half alone can only fail again.
 *
 * The operation: when the namespace's provider can compare and write
 * (can_compare_write: an RBD image, whose cluster makes it atomic across
 * gateways), one RBLK_PROVIDER_COMPARE_WRITE io. Otherwise the core takes
 * the range lock (target/range_lock.c), reads and compares through a
 * bounce unit (target/compare.c), writes, and lets go.
 */
#include <errno.h>
#include <stddef.h>

#include "common/clock.h"
#include "protocol/lba.h"
#include "target/core.h"

#define FUSED_ERR (NVME_SC_DNR)

static bool is_first(const struct rblk_req *req)
{
	return (req->cmd->flags & NVME_CMD_FUSE_MASK) == NVME_CMD_FUSE_FIRST;
}

/* Both halves done: neither is fused any more, so completion tells nobody. */
static void unpair(struct rblk_req *first, struct rblk_req *second)
{
	first->fused_state = RBLK_FUSED_NONE;
	first->fused = NULL;
	second->fused_state = RBLK_FUSED_NONE;
	second->fused = NULL;
}

/*
 * A half lost its partner before the operation started: it fails with
 * @status, now if it has executed, else when it does.
 */
static void lose_partner(struct rblk_req *req, uint16_t status)
{
	req->fused = NULL;
	if (req->fused_state == RBLK_FUSED_READY) {
		req->fused_state = RBLK_FUSED_NONE;
		rblk_req_complete(req, status);
		return;
	}
	req->fused_status = status;
}

/* ------------------------------------------------------------------------ */
/* The operation.                                                            */

/* The second half as a Write of the same range (checked equal at parse). */
static void second_prep(struct rblk_req *second, void (*done)(struct rblk_req *req, int res))
{
	const struct nvme_rw_cmd *c = (const struct nvme_rw_cmd *)second->cmd;

	second->start_ns = rblk_clock_cache_ns(second->sq->clock);
	rblk_io_prep(second, RBLK_PROVIDER_WRITE, rblk_rw_slba(c), rblk_rw_nlb(c), done);
	second->pio.iov = second->iov;
	second->pio.iovcnt = (int)second->iovcnt;
	if (rblk_io_want_fua(second, rblk_le16(c->control) & NVME_RW_FUA))
		second->pio.flags |= RBLK_PROVIDER_FUA;
}

/*
 * The end: the Compare's outcome (0, -EILSEQ, or its read's error) and the
 * Write's (when it ran). The range lock is already given back.
 */
static void finish(struct rblk_req *first, int cmp_res, int write_res, bool wrote)
{
	struct rblk_req *second = first->fused;

	unpair(first, second);
	if (cmp_res == -EILSEQ) {
		rblk_stat_inc(&first->ns->pgstats[first->sq->pg->id].other_cmds, 1);
		rblk_req_complete(first, NVME_SC_COMPARE_FAILED | NVME_SC_DNR);
	} else {
		rblk_io_finished(first, cmp_res);
	}
	if (wrote)
		rblk_io_finished(second, write_res);
	else
		rblk_req_complete(second, NVME_SC_FUSED_FAIL | FUSED_ERR);
}

/*
 * A refusal is the io's result: the pair ends through its own step, which
 * gives the range lock back and answers both halves.
 */
static void submit(struct rblk_req *second)
{
	int ret = rblk_io_try_submit(second);

	if (ret)
		second->pio_done(second, ret);
}

/* Provider path: one io does it all. */
static void provider_done(struct rblk_req *second, int res)
{
	struct rblk_req *first = second->fused;

	if (res == -EILSEQ) {
		first->err_lba = second->pio.offset >> second->ns->lbads;
		finish(first, -EILSEQ, 0, false);
		return;
	}
	if (res) {
		/*
		 * One io did both, so nothing tells whether the compare
		 * matched: the Write gets the error, the Compare is aborted
		 * with the pair rather than reported as a match.
		 */
		unpair(first, second);
		rblk_req_complete(first, NVME_SC_FUSED_FAIL | FUSED_ERR);
		rblk_io_finished(second, res);
		return;
	}
	finish(first, 0, 0, true);
}

static void provider_start(struct rblk_req *first, struct rblk_req *second)
{
	second_prep(second, provider_done);
	second->pio.op = RBLK_PROVIDER_COMPARE_WRITE;
	second->pio.cmp_iov = first->iov;
	second->pio.cmp_iovcnt = (int)first->iovcnt;
	submit(second);
}

/* Core path: lock, compare, write, unlock. */
static void core_written(struct rblk_req *second, int res)
{
	struct rblk_req *first = second->fused;

	rblk_range_cw_unlock(first);
	finish(first, 0, res, true);
}

static void core_compared(struct rblk_req *first, int res)
{
	struct rblk_req *second = first->fused;

	rblk_tgt_bounce_put(first);
	if (res) {
		rblk_range_cw_unlock(first);
		finish(first, res, 0, false);
		return;
	}
	second_prep(second, core_written);
	submit(second);
}

static void core_have_bounce(struct rblk_req *first)
{
	rblk_compare_run(first, core_compared);
}

static void core_locked(struct rblk_req *first)
{
	if (rblk_tgt_bounce_get(first, core_have_bounce))
		core_have_bounce(first);
}

/* The lock could not be waited for: a transient failure of both. */
static void core_lock_failed(struct rblk_req *first)
{
	struct rblk_req *second = first->fused;

	unpair(first, second);
	rblk_req_complete(first, NVME_SC_INTERNAL);
	rblk_req_complete(second, NVME_SC_FUSED_FAIL | FUSED_ERR);
}

static void start(struct rblk_req *first)
{
	struct rblk_req *second = first->fused;
	const struct nvme_rw_cmd *c = (const struct nvme_rw_cmd *)first->cmd;
	uint64_t off = rblk_rw_slba(c) << first->ns->lbads;

	first->fused_state = RBLK_FUSED_RUNNING;
	second->fused_state = RBLK_FUSED_RUNNING;
	first->start_ns = rblk_clock_cache_ns(first->sq->clock);
	if (first->ns->prov.can_compare_write) {
		provider_start(first, second);
		return;
	}
	rblk_range_cw_lock(first, off, off + ((uint64_t)rblk_rw_nlb(c) << first->ns->lbads),
			   core_locked, core_lock_failed);
}

/* Either half's execute: its data is here. The later of the two starts it. */
static void fused_execute(struct rblk_req *req)
{
	struct rblk_req *other = req->fused;

	if (req->fused_status) {
		uint16_t status = req->fused_status;

		req->fused_state = RBLK_FUSED_NONE;
		rblk_req_complete(req, status);
		return;
	}
	req->fused_state = RBLK_FUSED_READY;
	if (!other || other->fused_state != RBLK_FUSED_READY)
		return;
	start(is_first(req) ? req : other);
}

/* ------------------------------------------------------------------------ */
/* Parse and the lifecycle.                                                  */

/* The second half matches the first: a Write, same namespace, same range. */
static bool halves_match(const struct rblk_req *first, const struct rblk_req *second)
{
	const struct nvme_rw_cmd *a = (const struct nvme_rw_cmd *)first->cmd;
	const struct nvme_rw_cmd *b = (const struct nvme_rw_cmd *)second->cmd;

	return b->opc == NVME_IO_WRITE && first->ns == second->ns &&
	       rblk_rw_slba(a) == rblk_rw_slba(b) && rblk_rw_nlb(a) == rblk_rw_nlb(b);
}

/*
 * The range fits the provider's compare-and-write unit (NACWU), or the
 * provider has none. Beyond it the provider cannot make the pair atomic,
 * and falling back to the core's lock would be atomic for this gateway only.
 */
static bool fits_cw_unit(const struct rblk_req *first)
{
	const struct rblk_provider *p = &first->ns->prov;
	const struct nvme_rw_cmd *c = (const struct nvme_rw_cmd *)first->cmd;
	uint64_t unit = p->compare_write_unit, off, end;

	if (!p->can_compare_write || !unit)
		return true;
	off = rblk_rw_slba(c) << first->ns->lbads;
	end = off + ((uint64_t)rblk_rw_nlb(c) << first->ns->lbads);
	return end - off <= unit && off / unit == (end - 1) / unit;
}

uint16_t rblk_fused_parse(struct rblk_req *req, uint16_t status)
{
	struct rblk_sq *sq = req->sq;
	uint8_t fuse = req->cmd->flags & NVME_CMD_FUSE_MASK;
	struct rblk_req *first = sq->fused_first;
	bool first_failed = sq->fused_first_failed;

	req->fused_status = 0;
	sq->fused_first = NULL;
	sq->fused_first_failed = false;

	if (fuse == NVME_CMD_FUSE_SECOND) {
		if (!first) {
			req->error_loc = offsetof(struct nvme_sqe, flags);
			return (first_failed ? NVME_SC_FUSED_FAIL : NVME_SC_FUSED_MISSING) | FUSED_ERR;
		}
		if (status) {
			lose_partner(first, NVME_SC_FUSED_FAIL | FUSED_ERR);
			return status;
		}
		if (!halves_match(first, req)) {
			req->error_loc = offsetof(struct nvme_sqe, flags);
			lose_partner(first, NVME_SC_INVALID_FIELD | NVME_SC_DNR);
			return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		}
		if (!fits_cw_unit(first)) {
			req->error_loc = offsetof(struct nvme_rw_cmd, nlb);
			lose_partner(first, NVME_SC_INVALID_FIELD | NVME_SC_DNR);
			return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		}
		first->fused = req;
		req->fused = first;
		req->fused_state = RBLK_FUSED_PARSED;
		req->execute = fused_execute;
		return 0;
	}
	/* Anything else after a first half: that first half stays alone. */
	if (first)
		lose_partner(first, NVME_SC_FUSED_MISSING | FUSED_ERR);
	if (fuse != NVME_CMD_FUSE_FIRST)
		return status;
	if (!status && req->cmd->opc != NVME_IO_COMPARE) {
		/* Compare and Write is the one fused operation of the NVM command set. */
		req->error_loc = offsetof(struct nvme_sqe, flags);
		status = NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	if (status) {
		sq->fused_first_failed = true;
		return status;
	}
	sq->fused_first = req;
	req->fused = NULL;
	req->fused_state = RBLK_FUSED_PARSED;
	req->execute = fused_execute;
	return 0;
}

void rblk_fused_abandon(struct rblk_req *req)
{
	struct rblk_sq *sq = req->sq;
	struct rblk_req *other = req->fused;

	/* Only before the operation: once it runs, fused.c completes both itself. */
	req->fused_state = RBLK_FUSED_NONE;
	req->fused = NULL;
	if (sq->fused_first == req) {
		sq->fused_first = NULL;
		sq->fused_first_failed = true;
	}
	if (other)
		lose_partner(other, NVME_SC_FUSED_FAIL | FUSED_ERR);
}

void rblk_fused_sq_teardown(struct rblk_sq *sq)
{
	struct rblk_req *first = sq->fused_first;

	if (!first)
		return;
	/* No second half will come now. */
	sq->fused_first = NULL;
	lose_partner(first, NVME_SC_FUSED_MISSING | FUSED_ERR);
}

/* SPDX-License-Identifier: MIT */
/*
 * I/O commands -> backend: Read, Write (FUA), Flush, Write Zeroes, Dataset
 * Management (deallocate), and the parse of Compare, Verify and Copy
 * (executed by compare.c), each validated at parse (namespace, opcode, LBA
 * range, write protection) and executed as provider ios (include/rblk/
 * provider.h) on the namespace's provider: the built-in backends
 * (backend/provider.c) or the embedder's. Provider errno -> NVMe status; Write
 * Zeroes emulated with writes for providers that cannot zero; the
 * per-namespace counters behind SMART and statistics.
 *
 * Provider errors and why (the host retries a status without DNR up to 5
 * times, nvme_max_retries):
 *   -EIO                Unrecovered Read Error (reads) / Write Fault (others),
 *                       no DNR: media and transport hiccups are often
 *                       transient, and a retry is what a disk would get.
 *                       Counted as a SMART media error.
 *   -ENOSPC, -EDQUOT    Capacity Exceeded + DNR (a thin file ran out of room).
 *   -EROFS, -EPERM      Namespace Write Protected + DNR.
 *   -EOPNOTSUPP         Invalid Opcode + DNR (nvmet's mapping).
 *   -EILSEQ             a provider's COMPARE_WRITE found the range different:
 *                       Compare Failure + DNR (target/fused.c answers the
 *                       pair itself); from any other io, Internal Error + DNR.
 *   -ENOMEM, -EAGAIN,
 *   -EBUSY, -EINTR,
 *   -ETIMEDOUT          Internal Error without DNR (transient). A network
 *                       backend (rbd, with rados_osd_op_timeout set) times out
 *                       while OSDs are down or peering: a retry, or another
 *                       path, may well succeed. A fenced (blocklisted) Ceph
 *                       client's -ESHUTDOWN stays final, as below.
 *   anything else       Internal Error + DNR.
 */
#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/util.h"
#include "protocol/lba.h"
#include "target/core.h"

static uint16_t errno_to_status(int res, enum rblk_provider_op op)
{
	switch (res) {
	case 0:
		return 0;
	case -EIO:
		return op == RBLK_PROVIDER_READ ? NVME_SC_READ_ERROR : NVME_SC_WRITE_FAULT;
	case -ENOSPC:
	case -EDQUOT:
		return NVME_SC_CAP_EXCEEDED | NVME_SC_DNR;
	case -EROFS:
	case -EPERM:
		return NVME_SC_NS_WRITE_PROTECTED | NVME_SC_DNR;
	case -ERANGE:
		return NVME_SC_LBA_RANGE | NVME_SC_DNR;
	case -EILSEQ:
		/* A provider's compare and write: the range differs, as a final answer. */
		if (op == RBLK_PROVIDER_COMPARE_WRITE)
			return NVME_SC_COMPARE_FAILED | NVME_SC_DNR;
		return NVME_SC_INTERNAL | NVME_SC_DNR;
	case -EOPNOTSUPP:
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	case -ENOMEM:
	case -EAGAIN:
	case -EBUSY:
	case -EINTR:
	case -ETIMEDOUT:
		return NVME_SC_INTERNAL;
	default:
		return NVME_SC_INTERNAL | NVME_SC_DNR;
	}
}

static const char *const io_op_names[] = {
	[RBLK_PROVIDER_READ] = "read",
	[RBLK_PROVIDER_WRITE] = "write",
	[RBLK_PROVIDER_FLUSH] = "flush",
	[RBLK_PROVIDER_WRITE_ZEROES] = "write zeroes",
	[RBLK_PROVIDER_DISCARD] = "discard",
	[RBLK_PROVIDER_COMPARE_WRITE] = "compare and write",
};

/* ------------------------------------------------------------------------ */
/* Completion.                                                               */

/* The command's poll group's own slot of the namespace's counters: no shared cache line. */
static struct rblk_tgt_ns_pgstats *io_stats(const struct rblk_req *req)
{
	return &req->ns->pgstats[req->sq->pg->id];
}

/* The status code type an error is counted under (Status Field bits 11:9). */
static enum rblk_tgt_sct status_sct(uint16_t status)
{
	switch ((status >> 8) & 0x7) {
	case 0:
		return RBLK_TGT_SCT_GENERIC;
	case 1:
		return RBLK_TGT_SCT_CMD_SPECIFIC;
	case 2:
		return RBLK_TGT_SCT_MEDIA;
	case 3:
		return RBLK_TGT_SCT_PATH;
	default:
		return RBLK_TGT_SCT_OTHER;
	}
}

/* A read or write that succeeded, in its latency histogram ([0] reads, [1] writes). */
static void account_latency(struct rblk_req *req, unsigned dir)
{
	struct rblk_tgt_ns_pglat *h = &req->ns->pglat[req->sq->pg->id];
	uint64_t lat;

	if (!req->sq->lat_clock)
		return; /* latency_stats off */
	lat = rblk_clock_cache_ns(req->sq->lat_clock) - req->arrive_ns;

	rblk_stat_inc(&h->lat[dir][rblk_lat_bucket(lat)], 1);
	rblk_stat_inc(&h->lat_sum_ns[dir], lat);
}

static void account(struct rblk_req *req, int res, uint16_t status)
{
	struct rblk_tgt_ns_pgstats *st = io_stats(req);

	/*
	 * Both ends come from the poll iteration's coarse clock: a service-time
	 * sum (SMART busy time) needs neither a read per command nor
	 * precision (see rblk_clock_coarse_ns()).
	 */
	rblk_stat_inc(&st->busy_ns, rblk_clock_cache_ns(req->sq->clock) - req->start_ns);
	if (res) {
		rblk_stat_inc(&st->errors, 1);
		if (res == -EIO)
			rblk_stat_inc(&st->media_errors, 1);
		rblk_stat_inc(&req->ns->pglat[req->sq->pg->id].errors_sct[status_sct(status)], 1);
		return;
	}
	switch (req->cmd->opc) {
	case NVME_IO_READ:
		rblk_stat_inc(&st->read_cmds, 1);
		rblk_stat_inc(&st->read_bytes, req->data_len);
		account_latency(req, 0);
		break;
	case NVME_IO_WRITE:
		rblk_stat_inc(&st->write_cmds, 1);
		rblk_stat_inc(&st->write_bytes, req->data_len);
		account_latency(req, 1);
		break;
	default:
		rblk_stat_inc(&st->other_cmds, 1);
		break;
	}
}

void rblk_io_fail(struct rblk_req *req, int res)
{
	struct rblk_provider_io *io = &req->pio;
	uint16_t status = errno_to_status(res, io->op);

	if (status & NVME_SC_DNR)
		RBLK_ERR("nsid %u: %s at byte %llu len %llu failed: %s", req->ns->nsid,
			 (unsigned)io->op < sizeof(io_op_names) / sizeof(io_op_names[0])
				 ? io_op_names[io->op] : "?",
			 (unsigned long long)io->offset, (unsigned long long)io->len,
			 strerror(-res));
	if (req->wgate)
		rblk_range_write_end(req);
	account(req, res, status);
	req->err_lba = io->offset >> req->ns->lbads;
	rblk_req_complete(req, status);
}

/* The last step of a command: count it and answer the host. */
void rblk_io_finished(struct rblk_req *req, int res)
{
	if (res) {
		rblk_io_fail(req, res);
		return;
	}
	if (req->wgate)
		rblk_range_write_end(req);
	account(req, 0, 0);
	rblk_req_complete(req, 0);
}

void rblk_provider_complete(struct rblk_provider_io *io, int res)
{
	struct rblk_req *req = rblk_container_of(io, struct rblk_req, pio);

	/* Back to the queue's thread: the provider may be anywhere, even in submit(). */
	req->pio_res = res > 0 ? -EIO : res;
	req->sq->ops->complete_io(req);
}

void rblk_req_io_done(struct rblk_req *req)
{
	req->pio_done(req, req->pio_res);
}

/* ------------------------------------------------------------------------ */
/* Submission.                                                               */

void rblk_io_prep(struct rblk_req *req, enum rblk_provider_op op, uint64_t slba, uint64_t nlb,
		     void (*done)(struct rblk_req *req, int res))
{
	struct rblk_provider_io *io = &req->pio;

	/*
	 * Each member once, no memset: this runs for every read and write. A
	 * member added to the struct must be set here (the assert says when).
	 */
	_Static_assert(sizeof(*io) == 96, "set every member of rblk_provider_io");
	io->op = op;
	io->flags = 0;
	io->offset = slba << req->ns->lbads;
	io->len = nlb << req->ns->lbads;
	io->iov = NULL;
	io->iovcnt = 0;
	io->user[0] = io->user[1] = NULL;
	io->thread = NULL;
	io->buf_index = -1;
	io->priv = req->pio_priv;
	io->cmp_iov = NULL;
	io->cmp_iovcnt = 0;
	req->pio_done = done;
}

/*
 * The engine's context on this poll group (attached by the group's first io
 * of it), and the registered buffer when the io's data is one pool unit.
 */
static int pio_engine(struct rblk_req *req)
{
	struct rblk_tgt_pg *pg = req->sq->pg;
	struct rblk_provider_io *io = &req->pio;
	struct rblk_tgt_pg_engine *pe = &pg->eng[req->ns->eng_slot];

	if (__builtin_expect(!pe->e, 0)) {
		int ret = rblk_tgt_pg_engine_attach(pg, req->sq->tgt, req->ns->eng_slot);

		if (ret)
			return ret;
	}
	io->thread = pe->thread;
	if (pe->bufs && io->iov == req->iov && io->iovcnt == 1)
		io->buf_index = req->buf_index;
	return 0;
}

int rblk_io_try_submit(struct rblk_req *req)
{
	struct rblk_tgt_ns *ns = req->ns;
	int ret = ns->eng_slot >= 0 ? pio_engine(req) : 0;

	if (!ret)
		ret = ns->prov.ops->submit(ns->prov.ctx, &req->pio);
	return ret > 0 ? -EIO : ret;
}

void rblk_io_submit(struct rblk_req *req)
{
	int ret = rblk_io_try_submit(req);

	/* Refused: nothing started and no completion follows. */
	if (ret)
		rblk_io_fail(req, ret);
}

/*
 * A Write or Write Zeroes is FUA when the host asks, and always with the
 * volatile write cache turned off (feature 06h).
 */
bool rblk_io_want_fua(const struct rblk_req *req, bool host_fua)
{
	return host_fua ||
	       (req->ns->vwc && !__atomic_load_n(&req->sq->ctrl->vwc_enabled, __ATOMIC_RELAXED));
}

static bool want_fua(const struct rblk_req *req, const struct nvme_rw_cmd *c)
{
	return rblk_io_want_fua(req, rblk_le16(c->control) & NVME_RW_FUA);
}

/* Read, Write and Write Zeroes: the io for SLBA/NLB (checked at parse). */
static void rw_prep(struct rblk_req *req, enum rblk_provider_op op,
		    void (*done)(struct rblk_req *req, int res))
{
	const struct nvme_rw_cmd *c = (const struct nvme_rw_cmd *)req->cmd;

	req->start_ns = rblk_clock_cache_ns(req->sq->clock);
	rblk_io_prep(req, op, rblk_rw_slba(c), rblk_rw_nlb(c), done);
	if (op != RBLK_PROVIDER_READ && want_fua(req, c))
		req->pio.flags |= RBLK_PROVIDER_FUA;
}

/* ------------------------------------------------------------------------ */
/* Commands.                                                                 */

static void rw_go(struct rblk_req *req)
{
	rw_prep(req, req->cmd->opc == NVME_IO_WRITE ? RBLK_PROVIDER_WRITE : RBLK_PROVIDER_READ,
		rblk_io_finished);
	req->pio.iov = req->iov;
	req->pio.iovcnt = (int)req->iovcnt;
	rblk_io_submit(req);
}

/*
 * The bytes of SLBA/NLB, for the range lock (target/range_lock.c): every
 * write passes it, which costs one relaxed load while no fused Compare and
 * Write is active.
 */
static bool rw_range_lock(struct rblk_req *req, void (*go)(struct rblk_req *req))
{
	const struct nvme_rw_cmd *c = (const struct nvme_rw_cmd *)req->cmd;
	uint64_t start = rblk_rw_slba(c) << req->ns->lbads;

	return rblk_range_write_begin(req, start, start + ((uint64_t)rblk_rw_nlb(c) << req->ns->lbads),
				      go);
}

static void rw_admitted(struct rblk_req *req)
{
	if (req->cmd->opc == NVME_IO_WRITE && !rw_range_lock(req, rw_go))
		return;
	rw_go(req);
}

/* The namespace's QoS limits first (target/qos.c): a command over them waits there. */
static void execute_rw(struct rblk_req *req)
{
	if (!rblk_qos_admit(req, rw_admitted))
		return;
	rw_admitted(req);
}

/*
 * Write Zeroes for a provider that cannot zero: WRITEs of up to
 * RBLK_REQ_MAX_IOV x WZ_CHUNK bytes from one shared zero buffer, in order.
 * The command carries no data, so its iov array is free for this.
 */
#define WZ_CHUNK (64u * 1024)

static const uint8_t wz_zeroes[WZ_CHUNK];

static void wz_next(struct rblk_req *req, int res)
{
	struct rblk_provider_io *io = &req->pio;
	uint64_t len = req->wz_end - req->wz_next;
	uint32_t flags = io->flags;
	unsigned n = 0;

	if (res || !len) {
		rblk_io_finished(req, res);
		return;
	}
	if (len > (uint64_t)RBLK_REQ_MAX_IOV * WZ_CHUNK)
		len = (uint64_t)RBLK_REQ_MAX_IOV * WZ_CHUNK;
	for (uint64_t left = len; left; n++) {
		req->iov[n].iov_base = (void *)wz_zeroes;
		req->iov[n].iov_len = left < WZ_CHUNK ? left : WZ_CHUNK;
		left -= req->iov[n].iov_len;
	}
	memset(io, 0, sizeof(*io));
	io->op = RBLK_PROVIDER_WRITE;
	io->flags = flags;
	io->offset = req->wz_next;
	io->len = len;
	io->iov = req->iov;
	io->iovcnt = (int)n;
	req->iovcnt = n;
	req->buf_index = -1;
	req->wz_next += len;
	req->pio_done = wz_next;
	rblk_io_submit(req);
}

static void write_zeroes_go(struct rblk_req *req)
{
	/* DEAC is a hint; zeroes are what the host reads back either way. */
	rw_prep(req, RBLK_PROVIDER_WRITE_ZEROES, rblk_io_finished);
	if (req->ns->prov.can_write_zeroes) {
		rblk_io_submit(req);
		return;
	}
	req->wz_next = req->pio.offset;
	req->wz_end = req->pio.offset + req->pio.len;
	wz_next(req, 0);
}

static void execute_write_zeroes(struct rblk_req *req)
{
	if (rw_range_lock(req, write_zeroes_go))
		write_zeroes_go(req);
}

static void execute_flush(struct rblk_req *req)
{
	/* Nothing volatile to flush: done without reaching the provider. */
	if (!req->ns->vwc) {
		rblk_stat_inc(&io_stats(req)->other_cmds, 1);
		rblk_req_complete(req, 0);
		return;
	}
	req->start_ns = rblk_clock_cache_ns(req->sq->clock);
	rblk_io_prep(req, RBLK_PROVIDER_FLUSH, 0, 0, rblk_io_finished);
	rblk_io_submit(req);
}

/* DSM deallocate: one discard per range, in order (ranges come in a 4 KiB buffer). */
static void dsm_next(struct rblk_req *req, int res)
{
	struct nvme_dsm_range r;

	if (res) {
		rblk_io_fail(req, res);
		return;
	}
	while (req->dsm_idx < req->dsm_nr) {
		rblk_req_copy_from(req, (size_t)req->dsm_idx * sizeof(r), &r, sizeof(r));
		req->dsm_idx++;
		if (!r.nlb)
			continue;
		rblk_io_prep(req, RBLK_PROVIDER_DISCARD, rblk_le64(r.slba), rblk_le32(r.nlb), dsm_next);
		rblk_io_submit(req);
		return;
	}
	rblk_io_finished(req, 0);
}

static void dsm_go(struct rblk_req *req)
{
	req->dsm_idx = 0;
	req->start_ns = rblk_clock_cache_ns(req->sq->clock);
	/* pio still describes nothing: rblk_io_fail() must not report stale ranges. */
	rblk_io_prep(req, RBLK_PROVIDER_DISCARD, 0, 0, dsm_next);
	dsm_next(req, 0);
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
		status = rblk_lba_range_check(rblk_le64(r.slba), rblk_le32(r.nlb), rblk_tgt_ns_nlb(req->ns));
		if (status) {
			req->err_lba = rblk_le64(r.slba);
			rblk_req_complete(req, status);
			return;
		}
	}
	/*
	 * Without AD the attributes are access hints, and a provider that
	 * cannot discard takes deallocation as the hint it is: nothing to do.
	 */
	if (!(rblk_le32(c->attributes) & NVME_DSM_AD) || !req->ns->prov.can_discard) {
		rblk_stat_inc(&io_stats(req)->other_cmds, 1);
		rblk_req_complete(req, 0);
		return;
	}
	/* Up to 256 ranges: as one range lock over the whole namespace (rare enough). */
	if (rblk_range_write_begin(req, 0, UINT64_MAX, dsm_go))
		dsm_go(req);
}

/* ------------------------------------------------------------------------ */

static uint16_t parse_lba(struct rblk_req *req, uint64_t *nlb_out)
{
	const struct nvme_rw_cmd *c = (const struct nvme_rw_cmd *)req->cmd;
	uint64_t slba = rblk_rw_slba(c);
	uint16_t status;

	*nlb_out = rblk_rw_nlb(c);
	status = rblk_lba_range_check(slba, *nlb_out, rblk_tgt_ns_nlb(req->ns));
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
		/* Connect and authentication were dispatched before: nothing else on I/O queues. */
		req->error_loc = NVME_SQE_FCTYPE_OFFSET;
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
	if (!rblk_tgt_ctrl_ready(ctrl)) {
		req->error_loc = offsetof(struct nvme_sqe, opc);
		return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	}
	req->ns = rblk_subsys_io_ns(ctrl->ss, rblk_le32(cmd->nsid), req->sq->pg);
	if (!req->ns) {
		req->error_loc = offsetof(struct nvme_sqe, nsid);
		return NVME_SC_INVALID_NS | NVME_SC_DNR;
	}
	/* As nvmet: a path that cannot serve the namespace refuses every I/O command. */
	status = rblk_ana_check_io(req);
	if (status)
		return status;
	status = rblk_resv_check_io(req);
	if (status)
		return status;

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
	case NVME_IO_COMPARE:
		return rblk_io_parse_compare(req);
	case NVME_IO_VERIFY:
		return rblk_io_parse_verify(req);
	case NVME_IO_COPY:
		return rblk_io_parse_copy(req);
	case NVME_IO_RESV_REGISTER:
	case NVME_IO_RESV_ACQUIRE:
	case NVME_IO_RESV_RELEASE:
	case NVME_IO_RESV_REPORT:
		return rblk_io_parse_resv(req);
	default:
		req->error_loc = offsetof(struct nvme_sqe, opc);
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
}

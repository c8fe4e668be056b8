/* SPDX-License-Identifier: MIT */
/*
 * The rules for struct rblk_target_opts: every numeric option's range and the
 * relations between them. One function, rblk_tgt_opts_check(), that both
 * rblk_target_create() and rblk-target's start-up check (and --check) run,
 * so a configuration the daemon accepts is one the library accepts.
 *
 * Each rule guards an arithmetic or a wait further down: the 16-bit queue
 * depth of an RDMA queue, the uint32 sums of the buffer-unit arithmetic, the
 * int the poll groups' idle timeout is computed in, and a pool that must
 * hold one largest transfer or its requests wait for units that never come.
 * Messages name the option, its value and the allowed range.
 *
 * target.c's rblk_target_opts_check() runs it for programs, on a caller's
 * sized struct.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "target/core.h"

/* "NAME VALUE: <why>" into @why, NAME into *field; returns -EINVAL. */
static int refuse(const char **field, char *why, size_t len, const char *name, uint32_t val,
		  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int refuse(const char **field, char *why, size_t len, const char *name, uint32_t val,
		  const char *fmt, ...)
{
	va_list ap;
	int n;

	if (field)
		*field = name;
	n = snprintf(why, len, "%s %u: ", name, val);
	if (n >= 0 && (size_t)n < len) {
		va_start(ap, fmt);
		vsnprintf(why + n, len - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

#define RANGE(f, lo, hi)                                                                  \
	do {                                                                              \
		if (o->f < (lo) || o->f > (hi))                                           \
			return refuse(field, why, len, #f, o->f, "must be in %u..%u",      \
				      (uint32_t)(lo), (uint32_t)(hi));                    \
	} while (0)

static bool is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

int rblk_tgt_opts_check(const struct rblk_target_opts *o, const char **field, char *why,
			size_t len)
{
	uint32_t units_per_io, pool, icd_max;

	if (field)
		*field = NULL;
	if (o->num_poll_groups > RBLK_TARGET_POLL_GROUPS_MAX) /* 0: one per online CPU */
		return refuse(field, why, len, "num_poll_groups", o->num_poll_groups,
			      "must be in 0..%u", RBLK_TARGET_POLL_GROUPS_MAX);
	/* HSQSIZE + 1 is kept in a 16-bit count per queue (and CAP.MQES is 16 bits). */
	RANGE(max_queue_depth, 2, RBLK_TARGET_QUEUE_DEPTH_MAX);
	/* Fabrics: the admin queue is at most 32 entries (NVMe-oF 1.1, 7.4.2). */
	RANGE(max_admin_queue_depth, 2, 32);
	RANGE(max_io_queues, 1, 0xFFFE);
	/* Units are registered page by page: a partial page would misalign the next. */
	if (o->io_unit_size < 4096 || o->io_unit_size > RBLK_TARGET_IO_SIZE_MAX ||
	    o->io_unit_size % 4096)
		return refuse(field, why, len, "io_unit_size", o->io_unit_size,
			      "must be a multiple of 4096 in 4096..%u", RBLK_TARGET_IO_SIZE_MAX);
	/*
	 * MDTS is a power of two of 4 KiB pages and cannot express one page
	 * (MDTS 0 means "no limit"): any other size is advertised rounded
	 * down. The bound keeps max_io_size + io_unit_size in 32 bits.
	 */
	if (!is_pow2(o->max_io_size) || o->max_io_size < 8192 ||
	    o->max_io_size > RBLK_TARGET_IO_SIZE_MAX)
		return refuse(field, why, len, "max_io_size", o->max_io_size,
			      "must be a power of two in 8192..%u", RBLK_TARGET_IO_SIZE_MAX);
	units_per_io = (o->max_io_size + o->io_unit_size - 1) / o->io_unit_size;
	if (units_per_io > RBLK_REQ_MAX_IOV)
		return refuse(field, why, len, "max_io_size", o->max_io_size,
			      "needs more than %u buffer units of io_unit_size %u; raise "
			      "io_unit_size or lower max_io_size to at most %u",
			      RBLK_REQ_MAX_IOV, o->io_unit_size, RBLK_REQ_MAX_IOV * o->io_unit_size);
	/*
	 * IOCCSZ counts 16-byte units. More in-capsule data than one transfer
	 * can carry is never used; more than a buffer unit per receive pins
	 * more memory per queue entry than the shared pool spends on one unit.
	 */
	icd_max = o->io_unit_size < o->max_io_size ? o->io_unit_size : o->max_io_size;
	if (o->in_capsule_data_size % 16 || o->in_capsule_data_size > icd_max)
		return refuse(field, why, len, "in_capsule_data_size", o->in_capsule_data_size,
			      "must be a multiple of 16 in 0..%u (at most io_unit_size and "
			      "max_io_size)", icd_max);
	/* A pool smaller than one largest transfer: that request would wait forever. */
	pool = o->num_shared_buffers ? o->num_shared_buffers : o->max_queue_depth;
	if (pool < units_per_io || o->num_shared_buffers > RBLK_TARGET_SHARED_BUFFERS_MAX)
		return refuse(field, why, len, "num_shared_buffers", pool,
			      "the buffer pool (num_shared_buffers, or max_queue_depth units when "
			      "0) must be %u..%u units: at least one max_io_size transfer of "
			      "%u-byte units", units_per_io, RBLK_TARGET_SHARED_BUFFERS_MAX,
			      o->io_unit_size);
	/*
	 * The keep-alive check period: the poll groups sleep at most this long
	 * (an int of ms), and a coarser check than the Linux host's default
	 * KATO (5 s) would let a dead host's controller outlive it twice over.
	 */
	RANGE(kato_check_ms, 1, RBLK_TARGET_KATO_CHECK_MS_MAX);
	/* 0 takes the default (rblk_target_create fills it in before this check). */
	if (o->connect_timeout_ms)
		RANGE(connect_timeout_ms, RBLK_TARGET_CONNECT_TIMEOUT_MS_MIN,
		      RBLK_TARGET_CONNECT_TIMEOUT_MS_MAX);
	if (o->max_pending_queues)
		RANGE(max_pending_queues, 1, RBLK_TARGET_PENDING_MAX);
	if (o->max_pending_per_addr)
		RANGE(max_pending_per_addr, 1, RBLK_TARGET_PENDING_MAX);
	if (o->max_ctrls_per_host)
		RANGE(max_ctrls_per_host, 1, RBLK_TARGET_CTRLS_PER_HOST_MAX);
	if (o->max_queues)
		RANGE(max_queues, 2, RBLK_TARGET_QUEUES_MAX);
	if (o->srq_depth)
		RANGE(srq_depth, RBLK_TARGET_SRQ_DEPTH_MIN, RBLK_TARGET_SRQ_DEPTH_MAX);
	if ((unsigned)o->poll_mode > RBLK_POLL_EVENT)
		return refuse(field, why, len, "poll_mode", o->poll_mode,
			      "not adaptive (0), busy (1) or event (2)");
	if ((unsigned)o->threads > RBLK_THREADS_EMBEDDER)
		return refuse(field, why, len, "threads", o->threads,
			      "not RBLK_THREADS_OWN (0) or RBLK_THREADS_EMBEDDER (1)");
	return 0;
}

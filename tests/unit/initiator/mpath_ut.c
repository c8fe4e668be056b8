/* SPDX-License-Identifier: MIT */
/*
 * Tests for the multipath head's pure parts and its queue pair
 * (initiator/mpath_io.c, initiator/mpath_ana.c), over a fake per-path layer
 * (struct rblk_mpath_path_ops): path choice by ANA state and controller
 * state, failover of an I/O that fails for a path reason (transport error,
 * ANA status) with exactly one callback to the caller, non-path errors
 * passed through, the synchronous calls on the head's namespace, the no-path
 * wait and its timeout, back-pressure; and the
 * ANA log lookup against well-formed and hostile logs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "initiator/ctrl.h"
#include "initiator/mpath.h"
#include "protocol/le.h"
#include "protocol/nvme_id.h"
#include "protocol/nvme_log.h"
#include "protocol/nvme_status.h"
#include "ut.h"

/* ---- the fake path layer ------------------------------------------------- */

#define NPATHS 2
#define FAKE_Q 8

struct fake_cmd {
	struct rblk_io *io;
	rblk_io_cb cb;
	void *arg;
};

static struct fake_path {
	struct rblk_qpair qp;		/* identity only */
	enum rblk_ctrl_state state;
	int submit_ret;			/* what the next submit returns (0: accept) */
	struct fake_cmd q[FAKE_Q];
	unsigned n;
	uint16_t status;		/* how the next poll completes what it holds */
	int err;
	bool hold;			/* a slow path: polls complete nothing */
	unsigned submitted;
} FP[NPATHS];
static char fake_ctrl[NPATHS];		/* distinct addresses standing for controllers */

static int path_of_qp(struct rblk_qpair *qp)
{
	for (int i = 0; i < NPATHS; i++)
		if (qp == &FP[i].qp)
			return i;
	return -1;
}

static int path_of_ctrl(struct rblk_ctrl *c)
{
	for (int i = 0; i < NPATHS; i++)
		if ((char *)c == &fake_ctrl[i])
			return i;
	return -1;
}

static int f_qpair_alloc(struct rblk_ctrl *c, struct rblk_qpair **out)
{
	*out = &FP[path_of_ctrl(c)].qp;
	return 0;
}

static void f_qpair_free(struct rblk_qpair *qp) { (void)qp; }

static int f_submit(struct rblk_qpair *qp, struct rblk_io *io, rblk_io_cb cb, void *arg)
{
	struct fake_path *p = &FP[path_of_qp(qp)];

	if (p->submit_ret)
		return p->submit_ret;
	CU_ASSERT_FATAL(p->n < FAKE_Q);
	p->q[p->n++] = (struct fake_cmd){ io, cb, arg };
	p->submitted++;
	return 0;
}

static int f_poll(struct rblk_qpair *qp, unsigned max)
{
	struct fake_path *p = &FP[path_of_qp(qp)];
	struct fake_cmd q[FAKE_Q];
	unsigned n = p->n;

	(void)max;
	if (p->hold)
		return 0;
	memcpy(q, p->q, sizeof(q));
	p->n = 0;
	for (unsigned i = 0; i < n; i++)
		q[i].cb(q[i].io, p->status, p->err, q[i].arg);
	return (int)n;
}

static int f_flush(struct rblk_qpair *qp) { (void)qp; return 0; }
static int f_fd(struct rblk_qpair *qp) { (void)qp; return -1; }
static enum rblk_ctrl_state f_state(struct rblk_ctrl *c) { return FP[path_of_ctrl(c)].state; }

static const struct rblk_mpath_path_ops fake_ops = {
	.qpair_alloc = f_qpair_alloc,
	.qpair_free = f_qpair_free,
	.submit = f_submit,
	.poll = f_poll,
	.flush = f_flush,
	.fd = f_fd,
	.state = f_state,
};

static struct rblk_mpath MP;
static struct rblk_ns PATH_NS[NPATHS];

static void env_init(unsigned depth)
{
	memset(FP, 0, sizeof(FP));
	memset(&MP, 0, sizeof(MP));
	pthread_mutex_init(&MP.lock, NULL);
	MP.npaths = NPATHS;
	MP.ops = &fake_ops;
	MP.depth = depth;
	MP.wake_fd = -1;
	MP.no_path_ms = UINT64_MAX;
	MP.ns.mpath = &MP;
	for (int i = 0; i < NPATHS; i++) {
		FP[i].state = RBLK_CTRL_LIVE;
		MP.paths[i].index = (unsigned)i;
		MP.paths[i].ns = &PATH_NS[i];
		MP.paths[i].ana_supported = true;
		atomic_init(&MP.paths[i].ana, (int)RBLK_ANA_OPTIMIZED);
		atomic_init(&MP.paths[i].ctrl, (struct rblk_ctrl *)&fake_ctrl[i]);
	}
}

struct done {
	unsigned calls;
	uint16_t status;
	int err;
};

static void user_cb(struct rblk_io *io, uint16_t status, int err, void *arg)
{
	struct done *d = arg;

	(void)io;
	d->calls++;
	d->status = status;
	d->err = err;
}

static struct rblk_io write_io(void *buf)
{
	return (struct rblk_io){ .op = RBLK_OP_WRITE, .ns = &MP.ns, .lba = 8, .nlb = 1, .buf = buf };
}

/* ---- path choice ---------------------------------------------------------- */

static void test_pick_by_ana(void)
{
	bool all[3] = { true, true, true }, some[3] = { false, true, true };
	enum rblk_ana_state opt_opt[3] = { RBLK_ANA_OPTIMIZED, RBLK_ANA_OPTIMIZED, RBLK_ANA_OPTIMIZED };
	enum rblk_ana_state non_opt[3] = { RBLK_ANA_NON_OPTIMIZED, RBLK_ANA_OPTIMIZED, RBLK_ANA_NON_OPTIMIZED };
	enum rblk_ana_state non_non[3] = { RBLK_ANA_INACCESSIBLE, RBLK_ANA_NON_OPTIMIZED, RBLK_ANA_NON_OPTIMIZED };
	enum rblk_ana_state none[3] = { RBLK_ANA_INACCESSIBLE, RBLK_ANA_PERSISTENT_LOSS, RBLK_ANA_CHANGE };

	const enum rblk_mpath_iopolicy first = RBLK_MPATH_IOPOLICY_FIRST;
	unsigned depth[3] = { 0 }, rr = 0;

	CU_ASSERT_EQUAL(rblk_mpath_pick(all, opt_opt, 3, first, depth, &rr), 0);	/* the first optimized */
	CU_ASSERT_EQUAL(rblk_mpath_pick(some, opt_opt, 3, first, depth, &rr), 1);	/* not an unusable one */
	CU_ASSERT_EQUAL(rblk_mpath_pick(all, non_opt, 3, first, depth, &rr), 1);	/* optimized over non-optimized */
	CU_ASSERT_EQUAL(rblk_mpath_pick(all, non_non, 3, first, depth, &rr), 1);	/* non-optimized over inaccessible */
	CU_ASSERT_EQUAL(rblk_mpath_pick(all, none, 3, first, depth, &rr), -1);	/* never inaccessible/loss/change */
	CU_ASSERT_EQUAL(rblk_mpath_pick(all, opt_opt, 0, first, depth, &rr), -1);
	CU_ASSERT_EQUAL(rr, 0);
}

/* The policies choose among the usable paths of the best ANA state only. */
static void test_pick_by_policy(void)
{
	bool all[3] = { true, true, true }, some[3] = { true, false, true };
	enum rblk_ana_state opt_opt[3] = { RBLK_ANA_OPTIMIZED, RBLK_ANA_OPTIMIZED, RBLK_ANA_OPTIMIZED };
	enum rblk_ana_state non_opt[3] = { RBLK_ANA_OPTIMIZED, RBLK_ANA_NON_OPTIMIZED, RBLK_ANA_OPTIMIZED };
	const enum rblk_mpath_iopolicy rrp = RBLK_MPATH_IOPOLICY_ROUND_ROBIN;
	const enum rblk_mpath_iopolicy qd = RBLK_MPATH_IOPOLICY_QUEUE_DEPTH;
	unsigned depth[3] = { 0 }, rr = 0;
	enum rblk_mpath_iopolicy pol;

	/* round-robin: each in turn, skipping the unusable and the worse ANA state */
	CU_ASSERT_EQUAL(rblk_mpath_pick(all, opt_opt, 3, rrp, depth, &rr), 0);
	CU_ASSERT_EQUAL(rblk_mpath_pick(all, opt_opt, 3, rrp, depth, &rr), 1);
	CU_ASSERT_EQUAL(rblk_mpath_pick(all, opt_opt, 3, rrp, depth, &rr), 2);
	CU_ASSERT_EQUAL(rblk_mpath_pick(all, opt_opt, 3, rrp, depth, &rr), 0);
	CU_ASSERT_EQUAL(rblk_mpath_pick(some, opt_opt, 3, rrp, depth, &rr), 2);
	CU_ASSERT_EQUAL(rblk_mpath_pick(all, non_opt, 3, rrp, depth, &rr), 0);
	CU_ASSERT_EQUAL(rblk_mpath_pick(all, non_opt, 3, rrp, depth, &rr), 2);
	/* queue-depth: the fewest in flight, the first of equals, never a worse state */
	depth[0] = 3, depth[1] = 1, depth[2] = 2;
	CU_ASSERT_EQUAL(rblk_mpath_pick(all, opt_opt, 3, qd, depth, &rr), 1);
	CU_ASSERT_EQUAL(rblk_mpath_pick(some, opt_opt, 3, qd, depth, &rr), 2);
	CU_ASSERT_EQUAL(rblk_mpath_pick(all, non_opt, 3, qd, depth, &rr), 2);
	depth[2] = 3;
	CU_ASSERT_EQUAL(rblk_mpath_pick(all, non_opt, 3, qd, depth, &rr), 0);
	/* the names */
	CU_ASSERT_EQUAL(rblk_mpath_iopolicy_parse("queue-depth", &pol), 0);
	CU_ASSERT_EQUAL(pol, qd);
	CU_ASSERT_EQUAL(rblk_mpath_iopolicy_parse("round-robin", &pol), 0);
	CU_ASSERT_EQUAL(pol, rrp);
	CU_ASSERT_EQUAL(rblk_mpath_iopolicy_parse("first", &pol), 0);
	CU_ASSERT_EQUAL(pol, RBLK_MPATH_IOPOLICY_FIRST);
	CU_ASSERT_EQUAL(rblk_mpath_iopolicy_parse("numa", &pol), -EINVAL);
	CU_ASSERT_EQUAL(rblk_mpath_iopolicy_parse(NULL, &pol), -EINVAL);
	CU_ASSERT_STRING_EQUAL(rblk_mpath_iopolicy_str(qd), "queue-depth");
}

/*
 * queue-depth through the multipath queue pair: a path that completes
 * slowly keeps its I/Os in flight and gets no new ones until it catches up.
 */
static void test_queue_depth_avoids_slow_path(void)
{
	struct rblk_qpair *qp;
	struct done d = { 0 };
	char buf[512];
	struct rblk_io io[8];

	env_init(8);
	MP.opts.iopolicy = RBLK_MPATH_IOPOLICY_QUEUE_DEPTH;
	CU_ASSERT_EQUAL_FATAL(rblk_mpath_qp_create(&MP, &qp), 0);
	for (int i = 0; i < 8; i++)
		io[i] = write_io(buf);
	for (int i = 0; i < NPATHS + 1; i++)
		CU_ASSERT_EQUAL(rblk_submit(qp, &io[i], user_cb, &d), 0);
	CU_ASSERT_EQUAL(FP[0].submitted, 2);		/* 0, 1, 2, then 0 again */
	for (int i = 1; i < NPATHS; i++)
		CU_ASSERT_EQUAL(FP[i].submitted, 1);
	/* Path 0 is slow: the others complete, it holds its two. */
	FP[0].hold = true;
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), NPATHS - 1);
	for (int i = 0; i < NPATHS - 1; i++)
		CU_ASSERT_EQUAL(rblk_submit(qp, &io[i], user_cb, &d), 0);
	CU_ASSERT_EQUAL(FP[0].submitted, 2);		/* nothing new on the slow path */
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), NPATHS - 1);
	/* It catches up: it is the choice again. */
	FP[0].hold = false;
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 2);
	CU_ASSERT_EQUAL(rblk_submit(qp, &io[0], user_cb, &d), 0);
	CU_ASSERT_EQUAL(FP[0].submitted, 3);
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 1);
	/* every one completed once: NPATHS + 1, NPATHS - 1 more, then the last */
	CU_ASSERT_EQUAL(d.calls, 2 * NPATHS + 1);
	CU_ASSERT_EQUAL(d.err, 0);
	rblk_qpair_free(qp);
}

static void test_disposition(void)
{
	CU_ASSERT_EQUAL(rblk_mpath_disposition(0, 0), RBLK_MPATH_DONE);
	CU_ASSERT_EQUAL(rblk_mpath_disposition(0, -ENOTCONN), RBLK_MPATH_RETRY);
	CU_ASSERT_EQUAL(rblk_mpath_disposition(0, -ECONNRESET), RBLK_MPATH_RETRY);
	CU_ASSERT_EQUAL(rblk_mpath_disposition(NVME_SC_ANA_INACCESSIBLE, 0), RBLK_MPATH_RETRY);
	CU_ASSERT_EQUAL(rblk_mpath_disposition(NVME_SC_ANA_TRANSITION, 0), RBLK_MPATH_RETRY);
	CU_ASSERT_EQUAL(rblk_mpath_disposition(NVME_SC_HOST_PATH_ERROR | 0x4000, 0), RBLK_MPATH_RETRY);
	CU_ASSERT_EQUAL(rblk_mpath_disposition(NVME_SC_WRITE_FAULT, 0), RBLK_MPATH_DONE);
	CU_ASSERT_EQUAL(rblk_mpath_disposition(NVME_SC_LBA_RANGE | 0x4000, 0), RBLK_MPATH_DONE);
	CU_ASSERT_EQUAL(rblk_ana_state_of_status(NVME_SC_ANA_INACCESSIBLE), RBLK_ANA_INACCESSIBLE);
	CU_ASSERT_EQUAL(rblk_ana_state_of_status(NVME_SC_ANA_PERSISTENT_LOSS), RBLK_ANA_PERSISTENT_LOSS);
	CU_ASSERT_EQUAL(rblk_ana_state_of_status(NVME_SC_ANA_TRANSITION), RBLK_ANA_CHANGE);
	CU_ASSERT_EQUAL(rblk_ana_state_of_status(NVME_SC_WRITE_FAULT), 0);
}

/* ---- the multipath queue pair --------------------------------------------- */

static void test_io_goes_to_first_optimized(void)
{
	struct rblk_qpair *qp;
	struct done d = { 0 };
	char buf[512];
	struct rblk_io io = write_io(buf);

	env_init(4);
	atomic_store(&MP.paths[0].ana, (int)RBLK_ANA_NON_OPTIMIZED);
	CU_ASSERT_EQUAL_FATAL(rblk_mpath_qp_create(&MP, &qp), 0);
	CU_ASSERT_EQUAL(rblk_submit(qp, &io, user_cb, &d), 0);
	CU_ASSERT_EQUAL(FP[1].submitted, 1);
	CU_ASSERT_EQUAL(FP[0].submitted, 0);
	CU_ASSERT_PTR_EQUAL(FP[1].q[0].io->ns, &PATH_NS[1]);	/* the path's namespace */
	CU_ASSERT_EQUAL(FP[1].q[0].io->lba, 8);
	CU_ASSERT_PTR_EQUAL(FP[1].q[0].io->buf, buf);
	CU_ASSERT_EQUAL(rblk_qpair_inflight(qp), 1);
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, 0);
	CU_ASSERT_EQUAL(rblk_qpair_inflight(qp), 0);
	CU_ASSERT_EQUAL(atomic_load(&MP.paths[1].ios), 1);

	/* Path 1 goes down: the non-optimized path 0 carries the next one (no failback yet). */
	FP[1].state = RBLK_CTRL_RECONNECTING;
	CU_ASSERT_EQUAL(rblk_submit(qp, &io, user_cb, &d), 0);
	CU_ASSERT_EQUAL(FP[0].submitted, 1);
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 1);
	/* Path 1 back: failback. */
	FP[1].state = RBLK_CTRL_LIVE;
	CU_ASSERT_EQUAL(rblk_submit(qp, &io, user_cb, &d), 0);
	CU_ASSERT_EQUAL(FP[1].submitted, 2);
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 3);
	rblk_qpair_free(qp);
}

static void test_transport_error_fails_over(void)
{
	struct rblk_qpair *qp;
	struct done d = { 0 };
	char buf[512];
	struct rblk_io io = write_io(buf);

	env_init(4);
	CU_ASSERT_EQUAL_FATAL(rblk_mpath_qp_create(&MP, &qp), 0);
	CU_ASSERT_EQUAL(rblk_submit(qp, &io, user_cb, &d), 0);
	CU_ASSERT_EQUAL(FP[0].submitted, 1);
	/* Path 0's connection dies with the write on it (still "live" to the head). */
	FP[0].err = -ENOTCONN;
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 0);		/* nothing for the caller ... */
	CU_ASSERT_EQUAL(d.calls, 0);
	CU_ASSERT_EQUAL(FP[1].submitted, 1);		/* ... the write went to path 1 */
	CU_ASSERT_EQUAL(atomic_load(&MP.paths[0].failovers), 1);
	CU_ASSERT_EQUAL(rblk_qpair_inflight(qp), 1);
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 1);			/* once, with path 1's result */
	CU_ASSERT_EQUAL(d.status, 0);
	CU_ASSERT_EQUAL(d.err, 0);
	/* Path 0 is left alone for a while after a transport error. */
	CU_ASSERT_EQUAL(rblk_submit(qp, &io, user_cb, &d), 0);
	CU_ASSERT_EQUAL(FP[1].submitted, 2);
	CU_ASSERT_EQUAL(FP[0].submitted, 1);
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 1);
	rblk_qpair_free(qp);
}

static void test_ana_status_fails_over(void)
{
	struct rblk_qpair *qp;
	struct done d = { 0 };
	char buf[512];
	struct rblk_io io = write_io(buf);

	env_init(4);
	CU_ASSERT_EQUAL_FATAL(rblk_mpath_qp_create(&MP, &qp), 0);
	CU_ASSERT_EQUAL(rblk_submit(qp, &io, user_cb, &d), 0);
	FP[0].status = NVME_SC_ANA_INACCESSIBLE;
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 0);
	CU_ASSERT_EQUAL(atomic_load(&MP.paths[0].ana), RBLK_ANA_INACCESSIBLE);
	CU_ASSERT_TRUE(atomic_load(&MP.paths[0].ana_stale));	/* the head re-reads the log */
	CU_ASSERT_EQUAL(FP[1].submitted, 1);
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, 0);
	/* The log says optimized again: path 0 carries I/O again. */
	atomic_store(&MP.paths[0].ana, (int)RBLK_ANA_OPTIMIZED);
	FP[0].status = 0;
	CU_ASSERT_EQUAL(rblk_submit(qp, &io, user_cb, &d), 0);
	CU_ASSERT_EQUAL(FP[0].submitted, 2);
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 1);
	rblk_qpair_free(qp);
}

/*
 * A Compare and Write whose path dies under it may have written: it fails
 * with the transport error, never goes to another path. A path-state status
 * (the command did not run there) still fails over.
 */
static void test_compare_write_not_failed_over(void)
{
	struct rblk_qpair *qp;
	struct done d = { 0 };
	char buf[1024];
	struct rblk_io io = write_io(buf);

	env_init(4);
	io.op = RBLK_OP_COMPARE_WRITE;
	CU_ASSERT_EQUAL_FATAL(rblk_mpath_qp_create(&MP, &qp), 0);
	CU_ASSERT_EQUAL(rblk_submit(qp, &io, user_cb, &d), 0);
	FP[0].err = -ENOTCONN;
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.err, -ENOTCONN);
	CU_ASSERT_EQUAL(FP[1].submitted, 0);
	FP[0].err = 0;
	FP[0].status = NVME_SC_ANA_INACCESSIBLE;
	CU_ASSERT_EQUAL(rblk_submit(qp, &io, user_cb, &d), 0);
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 0);
	CU_ASSERT_EQUAL(FP[1].submitted, 1);
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 2);
	CU_ASSERT_EQUAL(d.status, 0);
	rblk_qpair_free(qp);
}

static void test_media_error_is_final(void)
{
	struct rblk_qpair *qp;
	struct done d = { 0 };
	char buf[512];
	struct rblk_io io = write_io(buf);

	env_init(4);
	CU_ASSERT_EQUAL_FATAL(rblk_mpath_qp_create(&MP, &qp), 0);
	CU_ASSERT_EQUAL(rblk_submit(qp, &io, user_cb, &d), 0);
	FP[0].status = NVME_SC_WRITE_FAULT;
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.status, NVME_SC_WRITE_FAULT);
	CU_ASSERT_EQUAL(FP[1].submitted, 0);		/* not a path's fault: not retried */
	rblk_qpair_free(qp);
}

/* rblk_read()/rblk_write() on the head's namespace: failover included, one queue pair reused. */
static void test_sync_calls(void)
{
	char buf[512];

	env_init(4);
	MP.ns.uid = 4242;
	memset(buf, 0x3C, sizeof(buf));
	/* Path 0's connection dies under the write: the call still succeeds, through path 1. */
	FP[0].err = -ENOTCONN;
	CU_ASSERT_EQUAL(rblk_write(&MP.ns, buf, 8, 1, 0), 0);
	CU_ASSERT_EQUAL(FP[0].submitted, 1);
	CU_ASSERT_EQUAL(FP[1].submitted, 1);
	CU_ASSERT_EQUAL(rblk_ns_last_status(&MP.ns), 0);
	/* The queue pair went back to the head, idle, and serves the next call. */
	CU_ASSERT_PTR_NOT_NULL_FATAL(MP.sync_free);
	CU_ASSERT_PTR_EQUAL(MP.qps, MP.sync_free);
	CU_ASSERT_PTR_NULL(rblk_mpath_qp_next(MP.qps));
	/* A media error is the caller's: -EREMOTEIO with its status, not retried. */
	FP[1].status = NVME_SC_WRITE_FAULT;
	CU_ASSERT_EQUAL(rblk_read(&MP.ns, buf, 8, 1), -EREMOTEIO);
	CU_ASSERT_EQUAL(rblk_ns_last_status(&MP.ns), NVME_SC_WRITE_FAULT);
	CU_ASSERT_EQUAL(FP[1].submitted, 2);
	CU_ASSERT_EQUAL(FP[0].submitted, 1);		/* path 0 still left alone */
	CU_ASSERT_PTR_NULL(rblk_mpath_qp_next(MP.qps));	/* still one queue pair */
	rblk_mpath_sync_qpairs_free(&MP);
	CU_ASSERT_PTR_NULL(MP.sync_free);
	CU_ASSERT_PTR_NULL(MP.qps);
}

static void test_no_path_waits_then_times_out(void)
{
	struct rblk_qpair *qp;
	struct done d = { 0 };
	char buf[512];
	struct rblk_io io = write_io(buf);

	env_init(4);
	FP[0].state = FP[1].state = RBLK_CTRL_RECONNECTING;
	CU_ASSERT_EQUAL_FATAL(rblk_mpath_qp_create(&MP, &qp), 0);
	CU_ASSERT_EQUAL(rblk_submit(qp, &io, user_cb, &d), 0);	/* queued, not failed */
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 0);
	CU_ASSERT_EQUAL(d.calls, 0);
	CU_ASSERT_EQUAL(FP[0].submitted + FP[1].submitted, 0);
	FP[1].state = RBLK_CTRL_LIVE;			/* a path comes back */
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 0);
	CU_ASSERT_EQUAL(FP[1].submitted, 1);
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 1);
	CU_ASSERT_EQUAL(d.err, 0);

	/* With no_path_tmo 0 a request with no path fails at the next poll. */
	FP[1].state = RBLK_CTRL_RECONNECTING;
	MP.no_path_ms = 0;
	CU_ASSERT_EQUAL(rblk_submit(qp, &io, user_cb, &d), 0);
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 1);
	CU_ASSERT_EQUAL(d.calls, 2);
	CU_ASSERT_EQUAL(d.err, -ENOTCONN);
	rblk_qpair_free(qp);
}

static void test_backpressure_and_refusals(void)
{
	struct rblk_qpair *qp;
	struct done d = { 0 };
	char buf[512];
	struct rblk_io io[3] = { write_io(buf), write_io(buf), write_io(buf) };
	struct rblk_ns other = { 0 };

	env_init(2);
	CU_ASSERT_EQUAL_FATAL(rblk_mpath_qp_create(&MP, &qp), 0);
	CU_ASSERT_EQUAL(rblk_qpair_depth(qp), 2);
	CU_ASSERT_EQUAL(rblk_submit(qp, &io[0], user_cb, &d), 0);
	CU_ASSERT_EQUAL(rblk_submit(qp, &io[1], user_cb, &d), 0);
	CU_ASSERT_EQUAL(rblk_submit(qp, &io[2], user_cb, &d), -EAGAIN);	/* every request taken */
	CU_ASSERT_EQUAL(rblk_poll(qp, 0), 2);
	/* A full path queue is back-pressure too, and the request is not lost. */
	FP[0].submit_ret = -EAGAIN;
	CU_ASSERT_EQUAL(rblk_submit(qp, &io[0], user_cb, &d), -EAGAIN);
	CU_ASSERT_EQUAL(rblk_qpair_inflight(qp), 0);
	/* A path that refuses the request itself: the caller hears it at once. */
	FP[0].submit_ret = -EINVAL;
	CU_ASSERT_EQUAL(rblk_submit(qp, &io[0], user_cb, &d), -EINVAL);
	FP[0].submit_ret = 0;
	io[0].ns = &other;
	CU_ASSERT_EQUAL(rblk_submit(qp, &io[0], user_cb, &d), -EINVAL);	/* another namespace */
	MP.ns.read_only = true;
	io[0].ns = NULL;
	CU_ASSERT_EQUAL(rblk_submit(qp, &io[0], user_cb, &d), -EROFS);
	CU_ASSERT_EQUAL(d.calls, 2);
	rblk_qpair_free(qp);
}

/* ---- the ANA log ------------------------------------------------------------ */

static size_t put_group(uint8_t *log, size_t off, uint32_t grpid, uint8_t state,
			const uint32_t *nsids, uint32_t n, uint32_t claimed)
{
	struct nvme_ana_group_desc d = { 0 };

	d.grpid = htole32(grpid);
	d.nnsids = htole32(claimed);
	d.state = state;
	memcpy(log + off, &d, sizeof(d));
	off += sizeof(d);
	for (uint32_t i = 0; i < n; i++, off += 4) {
		uint32_t v = htole32(nsids[i]);

		memcpy(log + off, &v, 4);
	}
	return off;
}

static void put_hdr(uint8_t *log, uint16_t ngrps)
{
	struct nvme_ana_log_hdr h = { 0 };

	h.ngrps = htole16(ngrps);
	memcpy(log, &h, sizeof(h));
}

static void test_ana_log_lookup(void)
{
	uint8_t log[512] = { 0 };
	uint32_t ns12[2] = { 1, 2 }, ns3 = 3, grp = 0;
	enum rblk_ana_state st = 0;
	size_t len;

	put_hdr(log, 2);
	len = put_group(log, 16, 1, RBLK_ANA_OPTIMIZED, ns12, 2, 2);
	len = put_group(log, len, 7, RBLK_ANA_INACCESSIBLE | 0xF0, &ns3, 1, 1);
	CU_ASSERT_EQUAL(rblk_ana_log_lookup(log, len, 2, 0, &grp, &st), 0);
	CU_ASSERT_EQUAL(grp, 1);
	CU_ASSERT_EQUAL(st, RBLK_ANA_OPTIMIZED);
	CU_ASSERT_EQUAL(rblk_ana_log_lookup(log, len, 3, 0, &grp, &st), 0);
	CU_ASSERT_EQUAL(grp, 7);
	CU_ASSERT_EQUAL(st, RBLK_ANA_INACCESSIBLE);	/* bits 3:0 only */
	CU_ASSERT_EQUAL(rblk_ana_log_lookup(log, len, 9, 0, &grp, &st), -ENOENT);

	/* Read with RGO (no NSIDs): the namespace's own ANAGRPID finds its group. */
	memset(log, 0, sizeof(log));
	put_hdr(log, 2);
	len = put_group(log, 16, 1, RBLK_ANA_OPTIMIZED, NULL, 0, 0);
	len = put_group(log, len, 2, RBLK_ANA_NON_OPTIMIZED, NULL, 0, 0);
	CU_ASSERT_EQUAL(rblk_ana_log_lookup(log, len, 5, 2, &grp, &st), 0);
	CU_ASSERT_EQUAL(grp, 2);
	CU_ASSERT_EQUAL(st, RBLK_ANA_NON_OPTIMIZED);
	CU_ASSERT_EQUAL(rblk_ana_log_lookup(log, len, 5, 3, &grp, &st), -ENOENT);
}

static void test_ana_log_hostile(void)
{
	uint8_t log[256] = { 0 };
	uint32_t ns1 = 1, grp = 0;
	enum rblk_ana_state st = 0;
	size_t len;

	/* Shorter than a header. */
	CU_ASSERT_EQUAL(rblk_ana_log_lookup(log, 10, 1, 0, &grp, &st), -EPROTO);
	/* 65535 groups claimed, one sent: stops at the buffer's end. */
	put_hdr(log, 0xFFFF);
	len = put_group(log, 16, 4, RBLK_ANA_OPTIMIZED, &ns1, 1, 1);
	CU_ASSERT_EQUAL(rblk_ana_log_lookup(log, len, 1, 0, &grp, &st), 0);
	CU_ASSERT_EQUAL(grp, 4);
	CU_ASSERT_EQUAL(rblk_ana_log_lookup(log, len, 2, 0, &grp, &st), -EPROTO);
	/* NNSIDS near 2^32 (would wrap a 32-bit size): only what is there is read. */
	memset(log, 0, sizeof(log));
	put_hdr(log, 1);
	len = put_group(log, 16, 5, RBLK_ANA_OPTIMIZED, &ns1, 1, 0x40000001u);
	CU_ASSERT_EQUAL(rblk_ana_log_lookup(log, len, 1, 0, &grp, &st), 0);
	CU_ASSERT_EQUAL(rblk_ana_log_lookup(log, len, 2, 0, &grp, &st), -EPROTO);
	/* A truncated descriptor. */
	CU_ASSERT_EQUAL(rblk_ana_log_lookup(log, 16 + 20, 1, 0, &grp, &st), -EPROTO);
	/* The hint's group was seen before the log broke off: good enough. */
	CU_ASSERT_EQUAL(rblk_ana_log_lookup(log, len, 2, 5, &grp, &st), 0);
	CU_ASSERT_EQUAL(grp, 5);
}

static void test_ana_log_len(void)
{
	struct nvme_id_ctrl id;

	memset(&id, 0, sizeof(id));
	CU_ASSERT_EQUAL(rblk_ana_log_len(&id), 4096);
	id.anagrpmax = htole32(128);
	id.nn = htole32(1024);
	CU_ASSERT_EQUAL(rblk_ana_log_len(&id), 16 + 128 * 32 + 1024 * 4);
	id.nanagrpid = htole32(2);		/* groups in use win over the maximum */
	CU_ASSERT_EQUAL(rblk_ana_log_len(&id), 16 + 2 * 32 + 1024 * 4);
	id.nn = htole32(0xFFFFFFFF);
	id.nanagrpid = htole32(0xFFFFFFFF);
	/* A hostile Identify cannot make us read megabytes: counts are capped. */
	CU_ASSERT_EQUAL(rblk_ana_log_len(&id), 16 + 1024 * 32 + 4096 * 4);
}

static const struct ut_case cases[] = {
	UT_CASE(test_pick_by_ana),
	UT_CASE(test_pick_by_policy),
	UT_CASE(test_queue_depth_avoids_slow_path),
	UT_CASE(test_disposition),
	UT_CASE(test_io_goes_to_first_optimized),
	UT_CASE(test_transport_error_fails_over),
	UT_CASE(test_ana_status_fails_over),
	UT_CASE(test_media_error_is_final),
	UT_CASE(test_compare_write_not_failed_over),
	UT_CASE(test_sync_calls),
	UT_CASE(test_no_path_waits_then_times_out),
	UT_CASE(test_backpressure_and_refusals),
	UT_CASE(test_ana_log_lookup),
	UT_CASE(test_ana_log_hostile),
	UT_CASE(test_ana_log_len),
	UT_END,
};

UT_MAIN("initiator/mpath", cases)

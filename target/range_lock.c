/* SPDX-License-Identifier: MIT */
/*
 * The per-namespace LBA range lock that makes the core's fused Compare and
 * Write atomic against every other write to its range, from any queue of
 * any controller, at no measurable cost to the I/O path while no fused
 * command is active.
 *
 * Who takes what:
 *   - A fused Compare and Write (target/fused.c) holds its range from before
 *     its first read to after its write completes.
 *   - A write (Write, Write Zeroes, deallocating DSM, Copy's destination)
 *     checks one counter, ns->cw_active, with a relaxed load. 0: it goes on
 *     at once and is counted in its own poll group's fast_writes slot (a
 *     plain store to a cache line only that group writes, the one its
 *     in-flight count already dirties). Not 0: it takes ns->lk_lock and,
 *     when its range overlaps a fused command's (held or wanted), waits on
 *     the namespace's FIFO until that command is done; never fails for it.
 *     Otherwise it is listed as in flight (lk_writes) and goes on.
 *
 * The ordering argument. A relaxed load may miss an increment that another
 * thread has just made, so a write can start unlocked right after a fused
 * command announced itself. The fused command therefore does not trust its
 * increment alone: the first one (cw_active 0 -> 1) closes the "gate"
 * (RBLK_GATE_CLOSING), snapshots every poll group's quiescent-state counter
 * (target/pg.c), and waits until (a) every poll group has passed a
 * quiescent state since (rblk_tgt_grace_over: a poll group loads cw_active
 * and counts the write within one loop iteration, and the seq_cst fences of
 * rblk_tgt_pg_quiescent() and of the snapshot make its next iteration see
 * the increment, exactly as the namespace tables' readers see an
 * unpublished entry), and (b) the fast_writes of every poll group are back
 * to 0 (release stores on completion, acquire loads here): after (a) no
 * write starts unlocked, so (b) is a count that only goes down. Then the
 * gate is CLOSED: every write goes through the lock until the last fused
 * command leaves (cw_active 0), which opens it again. Fused commands that
 * come while the gate is closed wait only for overlapping ranges.
 *
 * Waiting is by polling on the fused command's own thread through the
 * transport's run_on (one message per loop iteration) until the gate closes
 * and nothing overlapping is ahead of it; writes that wait are queued and
 * each goes again on its own thread when a fused command leaves (at once
 * when that is the leaving command's thread, else through run_on).
 * The RDMA reactor allocates a message per run_on, which is a cost only
 * fused commands pay, and a known rough edge.
 */
#include <errno.h>
#include <stdlib.h>

#include "common/log.h"
#include "target/core.h"

int rblk_range_lock_init(struct rblk_tgt_ns *ns, unsigned nr_pgs)
{
	ns->lk_snap = calloc(nr_pgs ? nr_pgs : 1, sizeof(*ns->lk_snap));
	if (!ns->lk_snap)
		return -ENOMEM;
	pthread_mutex_init(&ns->lk_lock, NULL);
	ns->lk_gate = RBLK_GATE_OPEN;
	ns->lk_wait_tail = &ns->lk_wait_head;
	atomic_init(&ns->cw_active, 0);
	return 0;
}

void rblk_range_lock_fini(struct rblk_tgt_ns *ns)
{
	if (!ns->lk_snap)
		return;
	pthread_mutex_destroy(&ns->lk_lock);
	free(ns->lk_snap);
	ns->lk_snap = NULL;
}

static bool overlaps(const struct rblk_req *a, uint64_t start, uint64_t end)
{
	return a->lk_start < end && start < a->lk_end;
}

/* A fused command in the list overlaps [start, end) (up to @stop, excluded). */
static bool cw_overlap_locked(const struct rblk_tgt_ns *ns, uint64_t start, uint64_t end,
			      const struct rblk_req *stop)
{
	for (const struct rblk_req *c = ns->lk_cws; c && c != stop; c = c->lk_next)
		if (overlaps(c, start, end))
			return true;
	return false;
}

static uint64_t fast_writes(const struct rblk_tgt_ns *ns)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < ns->ss->tgt->nr_pgs; i++)
		n += atomic_load_explicit(&ns->pgstats[i].fast_writes, memory_order_acquire);
	return n;
}

static void unlink_req(struct rblk_req **head, struct rblk_req *req)
{
	for (struct rblk_req **p = head; *p; p = &(*p)->lk_next) {
		if (*p == req) {
			*p = req->lk_next;
			return;
		}
	}
}

/* ------------------------------------------------------------------------ */
/* Writes.                                                                   */

static void write_retry(void *arg);

/* Listed in flight, or queued behind a fused command: lk_lock held. */
static bool write_admit_locked(struct rblk_req *req)
{
	struct rblk_tgt_ns *ns = req->ns;

	if (cw_overlap_locked(ns, req->lk_start, req->lk_end, NULL)) {
		req->wait_next = NULL;
		*ns->lk_wait_tail = req;
		ns->lk_wait_tail = &req->wait_next;
		return false;
	}
	req->lk_next = ns->lk_writes;
	ns->lk_writes = req;
	req->wgate = RBLK_WGATE_LOCKED;
	return true;
}

bool rblk_range_write_slow(struct rblk_req *req, uint64_t start, uint64_t end,
			   void (*resume)(struct rblk_req *req))
{
	struct rblk_tgt_ns *ns = req->ns;
	bool go;

	req->lk_start = start;
	req->lk_end = end;
	req->resume = resume;
	pthread_mutex_lock(&ns->lk_lock);
	/*
	 * The fused commands may all have left since the relaxed load: the gate
	 * is open again and the write counts as an unlocked one.
	 */
	if (ns->lk_gate == RBLK_GATE_OPEN) {
		rblk_stat_inc(&ns->pgstats[req->sq->pg->id].fast_writes, 1);
		req->wgate = RBLK_WGATE_FAST;
		go = true;
	} else {
		go = write_admit_locked(req);
	}
	pthread_mutex_unlock(&ns->lk_lock);
	return go;
}

/* On the write's own thread again, after a fused command left: try once more. */
static void write_retry(void *arg)
{
	struct rblk_req *req = arg;
	struct rblk_tgt_ns *ns = req->ns;
	bool go;

	pthread_mutex_lock(&ns->lk_lock);
	go = write_admit_locked(req);
	pthread_mutex_unlock(&ns->lk_lock);
	if (go)
		req->resume(req);
}

void rblk_range_write_end_slow(struct rblk_req *req)
{
	struct rblk_tgt_ns *ns = req->ns;

	pthread_mutex_lock(&ns->lk_lock);
	unlink_req(&ns->lk_writes, req);
	pthread_mutex_unlock(&ns->lk_lock);
	req->wgate = RBLK_WGATE_NONE;
}

/* ------------------------------------------------------------------------ */
/* Fused commands.                                                           */

static void cw_try(void *arg);

static void cw_wait(struct rblk_req *cw)
{
	int ret = cw->sq->ops->run_on(cw->sq, cw_try, cw);

	if (ret) {
		RBLK_WARN("nsid %u qid %u cid %#x: cannot wait for the range lock: %d",
			  cw->ns->nsid, cw->sq->qid, rblk_le16(cw->cmd->cid), ret);
		rblk_range_cw_unlock(cw);
		cw->resume = NULL;
		cw->lk_failed(cw);
	}
}

/* The gate is closed and nothing overlapping is ahead: the range is the command's. */
static void cw_try(void *arg)
{
	struct rblk_req *cw = arg;
	struct rblk_tgt_ns *ns = cw->ns;
	bool held = false;

	pthread_mutex_lock(&ns->lk_lock);
	if (ns->lk_gate == RBLK_GATE_CLOSING && rblk_tgt_grace_over(ns->ss->tgt, ns->lk_snap) &&
	    !fast_writes(ns))
		ns->lk_gate = RBLK_GATE_CLOSED;
	if (ns->lk_gate == RBLK_GATE_CLOSED && !cw_overlap_locked(ns, cw->lk_start, cw->lk_end, cw)) {
		held = true;
		for (const struct rblk_req *w = ns->lk_writes; w && held; w = w->lk_next)
			held = !overlaps(w, cw->lk_start, cw->lk_end);
	}
	pthread_mutex_unlock(&ns->lk_lock);
	if (held)
		cw->resume(cw);
	else
		cw_wait(cw);
}

void rblk_range_cw_lock(struct rblk_req *cw, uint64_t start, uint64_t end,
			void (*locked)(struct rblk_req *req), void (*failed)(struct rblk_req *req))
{
	struct rblk_tgt_ns *ns = cw->ns;
	struct rblk_req **tail;

	cw->lk_start = start;
	cw->lk_end = end;
	cw->resume = locked;
	cw->lk_failed = failed;
	cw->lk_next = NULL;
	pthread_mutex_lock(&ns->lk_lock);
	/* FIFO among fused commands: one waits only for those ahead of it. */
	for (tail = &ns->lk_cws; *tail; tail = &(*tail)->lk_next)
		;
	*tail = cw;
	/* seq_cst: ordered before the snapshot's loads (see the top of this file). */
	if (atomic_fetch_add_explicit(&ns->cw_active, 1, memory_order_seq_cst) == 0 &&
	    ns->lk_gate == RBLK_GATE_OPEN) {
		ns->lk_gate = RBLK_GATE_CLOSING;
		rblk_tgt_grace_start(ns->ss->tgt, ns->lk_snap);
	}
	pthread_mutex_unlock(&ns->lk_lock);
	cw_try(cw);
}

void rblk_range_cw_unlock(struct rblk_req *cw)
{
	struct rblk_tgt_ns *ns = cw->ns;
	struct rblk_req *waiting, *next;

	pthread_mutex_lock(&ns->lk_lock);
	unlink_req(&ns->lk_cws, cw);
	if (atomic_fetch_sub_explicit(&ns->cw_active, 1, memory_order_relaxed) == 1)
		ns->lk_gate = RBLK_GATE_OPEN;
	/* Every waiting write tries again on its own thread (most will go). */
	waiting = ns->lk_wait_head;
	ns->lk_wait_head = NULL;
	ns->lk_wait_tail = &ns->lk_wait_head;
	pthread_mutex_unlock(&ns->lk_lock);
	for (; waiting; waiting = next) {
		next = waiting->wait_next;
		/* The command is only ever touched on its own thread. */
		if (waiting->sq->pg == cw->sq->pg) {
			write_retry(waiting);
			continue;
		}
		if (!waiting->sq->ops->run_on(waiting->sq, write_retry, waiting))
			continue;
		/* Back in the queue: the next fused command to leave tries again. */
		RBLK_WARN("nsid %u qid %u cid %#x: a write that waited for a compare and write "
			  "cannot resume yet", ns->nsid, waiting->sq->qid, rblk_le16(waiting->cmd->cid));
		pthread_mutex_lock(&ns->lk_lock);
		waiting->wait_next = NULL;
		*ns->lk_wait_tail = waiting;
		ns->lk_wait_tail = &waiting->wait_next;
		pthread_mutex_unlock(&ns->lk_lock);
	}
}

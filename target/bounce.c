/* SPDX-License-Identifier: MIT */
/*
 * A poll group's bounce units: target-owned memory for the commands whose
 * data the provider must read into a buffer that is not the host's (Compare
 * reads the range to hold it against the host's data, Verify reads to throw
 * away, Copy reads a source range before writing it, the core's fused
 * Compare and Write reads before it writes).
 *
 * Where the memory comes from: RBLK_TGT_BOUNCE_UNITS units of
 * RBLK_TGT_BOUNCE_SIZE bytes per poll group, allocated when the transport
 * registers the group (rblk_tgt_pg_register), never on the I/O path, and
 * freed when it unregisters. The pages are touched only by the commands
 * that use them, so a target that never sees a Compare keeps them out of
 * its resident memory. A command holds one unit from start to completion
 * and goes through its range one unit at a time, so any length works with
 * a fixed amount of memory. They are not the transport's registered RDMA
 * pool on purpose: no host data ever moves through them, and the host's
 * transfers keep every unit of that pool.
 *
 * When every unit is taken a command waits, FIFO, on the group's wait list
 * (one thread: no lock), and resumes when a unit comes back: waiting is the
 * only answer to a dry pool (never a fallback allocation, never a failure).
 */
#include <errno.h>
#include <stdlib.h>

#include "target/core.h"

struct rblk_tgt_bounce {
	void *free[RBLK_TGT_BOUNCE_UNITS]; /* a stack of free units */
	unsigned nr_free;
	void *mem;                         /* every unit, one allocation */
	struct rblk_req *wait_head;        /* waiting for a unit, by wait_next */
	struct rblk_req **wait_tail;
};

int rblk_tgt_bounce_create(struct rblk_tgt_bounce **out)
{
	struct rblk_tgt_bounce *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	/* Page aligned: O_DIRECT files and block devices read into it as they are. */
	b->mem = aligned_alloc(4096, (size_t)RBLK_TGT_BOUNCE_UNITS * RBLK_TGT_BOUNCE_SIZE);
	if (!b->mem) {
		free(b);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < RBLK_TGT_BOUNCE_UNITS; i++)
		b->free[i] = (char *)b->mem + (size_t)i * RBLK_TGT_BOUNCE_SIZE;
	b->nr_free = RBLK_TGT_BOUNCE_UNITS;
	b->wait_tail = &b->wait_head;
	*out = b;
	return 0;
}

void rblk_tgt_bounce_destroy(struct rblk_tgt_bounce *b)
{
	if (!b)
		return;
	free(b->mem);
	free(b);
}

bool rblk_tgt_bounce_get(struct rblk_req *req, void (*resume)(struct rblk_req *req))
{
	struct rblk_tgt_bounce *b = req->sq->pg->bounce;

	/* Nobody overtakes a command already waiting. */
	if (b->nr_free && !b->wait_head) {
		req->bounce = b->free[--b->nr_free];
		return true;
	}
	req->bounce = NULL;
	req->resume = resume;
	req->wait_next = NULL;
	*b->wait_tail = req;
	b->wait_tail = &req->wait_next;
	return false;
}

void rblk_tgt_bounce_put(struct rblk_req *req)
{
	struct rblk_tgt_bounce *b = req->sq->pg->bounce;
	struct rblk_req *next = b->wait_head;

	if (!req->bounce)
		return;
	if (!next) {
		b->free[b->nr_free++] = req->bounce;
		req->bounce = NULL;
		return;
	}
	/* Straight to the oldest waiter, which goes on from where it stopped. */
	b->wait_head = next->wait_next;
	if (!b->wait_head)
		b->wait_tail = &b->wait_head;
	next->bounce = req->bounce;
	req->bounce = NULL;
	next->resume(next);
}

unsigned rblk_tgt_bounce_free_count(const struct rblk_tgt_pg *pg)
{
	return pg->bounce ? pg->bounce->nr_free : 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Per-queue request slots: one preallocated slot per queue entry, found by
 * index from the CID a completion echoes. CID = slot index (bits 11:0) +
 * a 4-bit generation (bits 15:12) bumped every time the slot is posted, as
 * the Linux host does (docs/interop.md §3.3): a CQE for a slot that is not
 * posted, or with a stale generation, is bogus and is rejected, never
 * completed.
 *
 * A slot completes when both its SEND and its response arrived: the SQE
 * buffer (and in-capsule data) may be reused only after the SEND completed,
 * and RC does not order a send completion against a receive completion.
 *
 * Pure bookkeeping, no RDMA: the queue engine (queue.c) and the unit tests
 * drive it. Not thread-safe: the queue's lock covers it.
 */
#ifndef RBLK_INITIATOR_SLOTS_H
#define RBLK_INITIATOR_SLOTS_H

#include <stdbool.h>
#include <stdint.h>

#include "protocol/nvme.h"

#define RBLK_CID_GEN_SHIFT 12
#define RBLK_CID_INDEX_MASK 0x0FFFu
#define RBLK_CID_GEN_MASK 0xFu
#define RBLK_SLOTS_MAX (RBLK_CID_INDEX_MASK + 1)

enum rblk_slot_state {
	RBLK_SLOT_FREE,		/* on the free list */
	RBLK_SLOT_QUEUED,	/* built; waits for the queue to be live to be posted */
	RBLK_SLOT_POSTED,	/* handed to the QP; waits for its SEND and its response */
};
const char *rblk_slot_state_str(enum rblk_slot_state st);

struct rblk_hq;
struct rblk_slot;
/* Runs once per completed slot. @err: 0 (status in slot->cqe) or -errno. */
typedef void (*rblk_slot_done_fn)(struct rblk_hq *hq, struct rblk_slot *slot, int err);

struct rblk_slot {
	uint16_t index;
	uint8_t gen;			/* 0..15 */
	enum rblk_slot_state state;
	bool send_done;
	bool rsp_done;
	bool user;			/* an I/O request: requeued across reconnects */
	bool fused;			/* half of a fused pair: never requeued (see queue.c) */
	struct nvme_cqe cqe;		/* the response as received (wire form) */
	rblk_slot_done_fn done;
	void *ctx;			/* the done function's object (an rblk_io, a waiter) */
	/* Data of this command, filled by the queue engine. */
	struct nvme_sqe *sqe;		/* in the queue's registered area */
	uint8_t *data;			/* RBLK_SLOT_DATA bytes, registered, for small payloads */
	void *bounce;			/* a unit of the bounce pool to give back, or NULL */
	uint8_t *local;			/* where bounced data lives (data or bounce), or NULL */
	uint32_t xfer_len;		/* bytes described by SGL1 */
	uint64_t map_addr;		/* where they are (for new keys after a device change) */
	uint32_t ic_len;		/* in-capsule bytes sent after the SQE */
	uint64_t ic_addr;		/* where they are (registered memory) */
	uint32_t ic_lkey;
	uint32_t io_off;		/* byte offset of this command inside its rblk_io */
	uint32_t posts;			/* times posted: tells one posting from the next */
	uint32_t watch_posts;		/* the I/O timeout's last look: posts then, */
	uint64_t watch_ms;		/* ... and when it first saw that posting */
	struct rblk_slot *next;		/* free list / queued list */
};

struct rblk_slots {
	struct rblk_slot *s;
	unsigned n;
	struct rblk_slot *free_head;
	unsigned nfree;
	unsigned reserved;		/* slots [n - reserved, n) never come from rblk_slot_get() */
};

/* @n slots (<= RBLK_SLOTS_MAX), the last @reserved of which only rblk_slot_get_reserved() hands out. */
int rblk_slots_init(struct rblk_slots *t, unsigned n, unsigned reserved);
void rblk_slots_fini(struct rblk_slots *t);

/* A free ordinary slot (state QUEUED, flags cleared), or NULL. */
struct rblk_slot *rblk_slot_get(struct rblk_slots *t);
/* Reserved slot @i (0-based among the reserved ones), NULL when it is busy. */
struct rblk_slot *rblk_slot_get_reserved(struct rblk_slots *t, unsigned i);
void rblk_slot_put(struct rblk_slots *t, struct rblk_slot *slot);
/* Slots in use (ordinary ones). */
unsigned rblk_slots_busy(const struct rblk_slots *t);

static inline uint16_t rblk_cid_make(uint16_t index, uint8_t gen)
{
	return (uint16_t)((index & RBLK_CID_INDEX_MASK) |
			  ((uint16_t)(gen & RBLK_CID_GEN_MASK) << RBLK_CID_GEN_SHIFT));
}

/*
 * Marks @slot posted under a new generation and returns its CID (also
 * written into slot->sqe when there is one). Clears send_done/rsp_done.
 */
uint16_t rblk_slot_arm(struct rblk_slot *slot);

/*
 * A response arrived: find its slot by CID and record the CQE. Returns
 *   1         the slot is complete (its SEND completed too): *out = slot
 *   0         recorded; the slot waits for its SEND completion
 *  -ENOENT    the index is out of range or the slot is not posted (bogus)
 *  -ESTALE    the generation does not match the slot's (bogus)
 *  -EALREADY  the slot already has its response (duplicate CQE)
 */
int rblk_slot_rsp(struct rblk_slots *t, const struct nvme_cqe *cqe, struct rblk_slot **out);
/* The SEND of @slot completed: 1 when the slot is complete, 0 when it waits for its response. */
int rblk_slot_send_done(struct rblk_slot *slot);

/* The NVMe status (kernel style) and DW0 of a completed slot's response. */
static inline uint16_t rblk_slot_status(const struct rblk_slot *slot)
{
	return nvme_cqe_status(&slot->cqe);
}

static inline uint32_t rblk_slot_dw0(const struct rblk_slot *slot)
{
	return rblk_le32(slot->cqe.dw0);
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The library-private state of a struct rblk_io (its priv[] words) and the
 * request bookkeeping of io.c that unit tests drive: one request becomes
 * several commands; it completes once, when every issued command has
 * completed and nothing is left to issue, with the first error seen.
 */
#ifndef RBLK_INITIATOR_IO_H
#define RBLK_INITIATOR_IO_H

#include <stdbool.h>
#include <stdint.h>

#include <rblk/initiator.h>

struct rblk_ctrl;
struct rblk_hq;
struct rblk_slot;

struct rblk_io_priv {
	rblk_io_cb cb;
	void *arg;
	struct rblk_io *next;		/* the qpair's done list */
	uint32_t total;			/* blocks to issue (1 for Flush and Deallocate) */
	uint32_t issued;		/* blocks handed to commands */
	uint32_t outstanding;		/* commands not yet completed */
	uint32_t max_nlb;		/* blocks per Read/Write command */
	int err;			/* first transport error */
	uint16_t status;		/* first NVMe error status */
	bool registered;		/* buf lies in registered memory: lkey/rkey valid */
	uint32_t lkey, rkey;
};
_Static_assert(sizeof(struct rblk_io_priv) <= sizeof(((struct rblk_io *)0)->priv),
	       "rblk_io.priv too small");

struct rblk_io_priv *rblk_io_priv(struct rblk_io *io);
/* @op changes the namespace (refused on a read-only one). */
bool rblk_io_op_writes(enum rblk_io_op op);
/*
 * Validates @io for @c and initialises its private state: totals, the split
 * size (MDTS for registered memory, the bounce unit otherwise), registration.
 * -EINVAL, -EROFS (a write to a read-only namespace).
 */
int rblk_io_prepare(struct rblk_ctrl *c, struct rblk_io *io, rblk_io_cb cb, void *arg);
/*
 * One command of @io finished with @status / @err: keeps the first error
 * (and stops further issuing), counts it down. True when @io is complete.
 */
bool rblk_io_record(struct rblk_io *io, uint16_t status, int err);
/* The slot completion function of I/O commands (copies bounced read data back). */
void rblk_io_part_done(struct rblk_hq *hq, struct rblk_slot *slot, int err);

#endif

/* SPDX-License-Identifier: MIT */
/* Submit-or-park for the attach backends (see cli/io_park.h). */
#include <errno.h>

#include "cli/io_park.h"

static struct rblk_park_slot *slot_at(struct rblk_park *pk, unsigned i)
{
	return (struct rblk_park_slot *)(pk->slots + (size_t)i * pk->stride);
}

void rblk_park_init(struct rblk_park *pk, struct rblk_qpair *qp, void *slots, size_t stride,
		    unsigned nr, rblk_io_cb done, void *arg)
{
	*pk = (struct rblk_park){
		.qp = qp,
		.done = done,
		.arg = arg,
		.slots = slots,
		.stride = stride,
		.nr = nr,
	};
}

const char *rblk_park_state_str(enum rblk_park_state st)
{
	switch (st) {
	case RBLK_PARK_FREE:
		return "free";
	case RBLK_PARK_PARKED:
		return "parked";
	case RBLK_PARK_SUBMITTED:
		return "submitted";
	case RBLK_PARK_ABANDONED:
		return "abandoned";
	}
	return "?";
}

/* The library's callback: the only way out of SUBMITTED. */
static void slot_done(struct rblk_io *io, uint16_t status, int err, void *arg)
{
	struct rblk_park *pk = arg;
	struct rblk_park_slot *s = (struct rblk_park_slot *)io;
	enum rblk_park_state was = s->state;

	s->state = RBLK_PARK_FREE;
	if (was == RBLK_PARK_ABANDONED)
		return;		/* answered when it was given up on */
	pk->done(io, status, err, pk->arg);
}

static void park(struct rblk_park *pk, struct rblk_park_slot *s)
{
	s->state = RBLK_PARK_PARKED;
	s->next_parked = NULL;
	if (pk->parked_tail)
		pk->parked_tail->next_parked = s;
	else
		pk->parked_head = s;
	pk->parked_tail = s;
}

static struct rblk_park_slot *unpark(struct rblk_park *pk)
{
	struct rblk_park_slot *s = pk->parked_head;

	pk->parked_head = s->next_parked;
	if (!pk->parked_head)
		pk->parked_tail = NULL;
	s->next_parked = NULL;
	return s;
}

/* One submission: 0 submitted, -EAGAIN (unchanged), or -errno with the slot FREE. */
static int submit(struct rblk_park *pk, struct rblk_park_slot *s)
{
	int ret = rblk_submit(pk->qp, &s->io, slot_done, pk);

	if (ret == -EAGAIN)
		return ret;
	s->state = ret ? RBLK_PARK_FREE : RBLK_PARK_SUBMITTED;
	return ret;
}

int rblk_park_start(struct rblk_park *pk, struct rblk_park_slot *s)
{
	int ret;

	if (s->state != RBLK_PARK_FREE)
		return -EBUSY;
	/* Behind parked requests, so that a full queue pair keeps their order. */
	if (pk->parked_head) {
		park(pk, s);
		return 0;
	}
	ret = submit(pk, s);
	if (ret == -EAGAIN) {
		park(pk, s);
		return 0;
	}
	return ret;
}

int rblk_park_poll(struct rblk_park *pk, unsigned max)
{
	int n = rblk_poll(pk->qp, max);

	if (n < 0)
		return n;
	while (pk->parked_head) {
		struct rblk_park_slot *s = pk->parked_head;
		int ret = submit(pk, s);

		if (ret == -EAGAIN)
			break;
		unpark(pk);
		if (ret) {
			pk->done(&s->io, 0, ret, pk->arg);
			n++;
		}
	}
	return n;
}

unsigned rblk_park_fail_parked(struct rblk_park *pk, int err)
{
	unsigned n = 0;

	while (pk->parked_head) {
		struct rblk_park_slot *s = unpark(pk);

		s->state = RBLK_PARK_FREE;
		pk->done(&s->io, 0, err, pk->arg);
		n++;
	}
	return n;
}

unsigned rblk_park_abandon(struct rblk_park *pk, int err)
{
	unsigned n = rblk_park_fail_parked(pk, err);

	for (unsigned i = 0; i < pk->nr; i++) {
		struct rblk_park_slot *s = slot_at(pk, i);

		if (s->state != RBLK_PARK_SUBMITTED)
			continue;
		s->state = RBLK_PARK_ABANDONED;
		pk->done(&s->io, 0, err, pk->arg);
		n++;
	}
	return n;
}

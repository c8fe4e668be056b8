/* SPDX-License-Identifier: MIT */
/*
 * Request slots: the free list, CID generations and response matching (see
 * slots.h). The free list is LIFO so a lightly loaded queue keeps touching
 * the same few slots (their SQE and data buffers stay in cache).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "initiator/slots.h"

const char *rblk_slot_state_str(enum rblk_slot_state st)
{
	switch (st) {
	case RBLK_SLOT_FREE:
		return "free";
	case RBLK_SLOT_QUEUED:
		return "queued";
	case RBLK_SLOT_POSTED:
		return "posted";
	}
	return "?";
}

int rblk_slots_init(struct rblk_slots *t, unsigned n, unsigned reserved)
{
	memset(t, 0, sizeof(*t));
	if (n == 0 || n > RBLK_SLOTS_MAX || reserved >= n)
		return -EINVAL;
	t->s = rblk_calloc_lines(n, sizeof(*t->s));
	if (!t->s)
		return -ENOMEM;
	t->n = n;
	t->reserved = reserved;
	/* Push in reverse so slot 0 comes out first. */
	for (unsigned i = n; i-- > 0;) {
		struct rblk_slot *s = &t->s[i];

		s->index = (uint16_t)i;
		s->state = RBLK_SLOT_FREE;
		if (i >= n - reserved)
			continue;
		s->next = t->free_head;
		t->free_head = s;
		t->nfree++;
	}
	return 0;
}

void rblk_slots_fini(struct rblk_slots *t)
{
	free(t->s);
	memset(t, 0, sizeof(*t));
}

static void slot_reset(struct rblk_slot *s)
{
	s->state = RBLK_SLOT_QUEUED;
	s->send_done = false;
	s->rsp_done = false;
	s->user = false;
	s->fused = false;
	s->done = NULL;
	s->ctx = NULL;
	s->bounce = NULL;
	s->local = NULL;
	s->xfer_len = 0;
	s->ic_len = 0;
	s->ic_addr = 0;
	s->ic_lkey = 0;
	s->io_off = 0;
	s->next = NULL;
}

struct rblk_slot *rblk_slot_get(struct rblk_slots *t)
{
	struct rblk_slot *s = t->free_head;

	if (!s)
		return NULL;
	t->free_head = s->next;
	t->nfree--;
	slot_reset(s);
	return s;
}

struct rblk_slot *rblk_slot_get_reserved(struct rblk_slots *t, unsigned i)
{
	struct rblk_slot *s;

	if (i >= t->reserved)
		return NULL;
	s = &t->s[t->n - t->reserved + i];
	if (s->state != RBLK_SLOT_FREE)
		return NULL;
	slot_reset(s);
	return s;
}

void rblk_slot_put(struct rblk_slots *t, struct rblk_slot *slot)
{
	slot->state = RBLK_SLOT_FREE;
	slot->done = NULL;
	slot->ctx = NULL;
	if (slot->index >= t->n - t->reserved)
		return;
	slot->next = t->free_head;
	t->free_head = slot;
	t->nfree++;
}

unsigned rblk_slots_busy(const struct rblk_slots *t)
{
	return t->n - t->reserved - t->nfree;
}

uint16_t rblk_slot_arm(struct rblk_slot *slot)
{
	uint16_t cid;

	slot->gen = (uint8_t)((slot->gen + 1) & RBLK_CID_GEN_MASK);
	slot->posts++;
	slot->state = RBLK_SLOT_POSTED;
	slot->send_done = false;
	slot->rsp_done = false;
	cid = rblk_cid_make(slot->index, slot->gen);
	if (slot->sqe)
		slot->sqe->cid = rblk_cpu_to_le16(cid);
	return cid;
}

int rblk_slot_rsp(struct rblk_slots *t, const struct nvme_cqe *cqe, struct rblk_slot **out)
{
	uint16_t cid = rblk_le16(cqe->cid);
	unsigned index = cid & RBLK_CID_INDEX_MASK;
	uint8_t gen = (uint8_t)(cid >> RBLK_CID_GEN_SHIFT);
	struct rblk_slot *s;

	*out = NULL;
	if (index >= t->n)
		return -ENOENT;
	s = &t->s[index];
	if (s->state != RBLK_SLOT_POSTED)
		return -ENOENT;
	if (s->gen != gen)
		return -ESTALE;
	if (s->rsp_done)
		return -EALREADY;
	s->cqe = *cqe;
	s->rsp_done = true;
	*out = s;
	return s->send_done ? 1 : 0;
}

int rblk_slot_send_done(struct rblk_slot *slot)
{
	slot->send_done = true;
	return slot->rsp_done ? 1 : 0;
}

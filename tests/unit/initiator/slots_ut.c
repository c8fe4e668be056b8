/* SPDX-License-Identifier: MIT */
/*
 * Tests for initiator/slots.c: the free list, reserved slots, CID
 * generations, and matching responses (good, stale generation, unknown
 * index, not posted, duplicate), with either completion order.
 */
#include <errno.h>
#include <string.h>

#include "initiator/slots.h"
#include "ut.h"

static struct nvme_cqe cqe_for(uint16_t cid, uint16_t status, uint32_t dw0)
{
	struct nvme_cqe c;

	nvme_cqe_build(&c, rblk_cpu_to_le16(cid), status, dw0, 0, 1, 1);
	return c;
}

static void test_init_limits(void)
{
	struct rblk_slots t;

	CU_ASSERT_EQUAL(rblk_slots_init(&t, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(rblk_slots_init(&t, RBLK_SLOTS_MAX + 1, 0), -EINVAL);
	CU_ASSERT_EQUAL(rblk_slots_init(&t, 4, 4), -EINVAL);
	CU_ASSERT_EQUAL(rblk_slots_init(&t, RBLK_SLOTS_MAX, 1), 0);
	rblk_slots_fini(&t);
}

static void test_get_put(void)
{
	struct rblk_slots t;
	struct rblk_slot *s[4];

	CU_ASSERT_EQUAL_FATAL(rblk_slots_init(&t, 5, 1), 0);
	CU_ASSERT_EQUAL(t.nfree, 4);
	for (int i = 0; i < 4; i++) {
		s[i] = rblk_slot_get(&t);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s[i]);
		CU_ASSERT_EQUAL(s[i]->index, i);
		CU_ASSERT_EQUAL(s[i]->state, RBLK_SLOT_QUEUED);
	}
	CU_ASSERT_EQUAL(rblk_slots_busy(&t), 4);
	/* The reserved slot (index 4) never comes from rblk_slot_get(). */
	CU_ASSERT_PTR_NULL(rblk_slot_get(&t));
	CU_ASSERT_PTR_EQUAL(rblk_slot_get_reserved(&t, 0), &t.s[4]);
	CU_ASSERT_PTR_NULL(rblk_slot_get_reserved(&t, 0));	/* busy */
	CU_ASSERT_PTR_NULL(rblk_slot_get_reserved(&t, 1));
	rblk_slot_put(&t, &t.s[4]);
	CU_ASSERT_EQUAL(t.nfree, 0);
	CU_ASSERT_PTR_EQUAL(rblk_slot_get_reserved(&t, 0), &t.s[4]);

	rblk_slot_put(&t, s[2]);
	CU_ASSERT_EQUAL(s[2]->state, RBLK_SLOT_FREE);
	CU_ASSERT_EQUAL(rblk_slots_busy(&t), 3);
	CU_ASSERT_PTR_EQUAL(rblk_slot_get(&t), s[2]);	/* LIFO */
	rblk_slots_fini(&t);
}

static void test_arm_generation(void)
{
	struct rblk_slots t;
	struct nvme_sqe sqe;
	struct rblk_slot *s;
	uint16_t cid;

	CU_ASSERT_EQUAL_FATAL(rblk_slots_init(&t, 8, 1), 0);
	s = rblk_slot_get(&t);
	s = rblk_slot_get(&t);	/* index 1 */
	s->sqe = &sqe;
	cid = rblk_slot_arm(s);
	CU_ASSERT_EQUAL(cid, 0x1001);
	CU_ASSERT_EQUAL(rblk_le16(sqe.cid), 0x1001);
	CU_ASSERT_EQUAL(s->state, RBLK_SLOT_POSTED);
	for (int i = 2; i <= 16; i++)
		cid = rblk_slot_arm(s);
	/* 4 bits: the 16th arm wraps to generation 0. */
	CU_ASSERT_EQUAL(cid, 0x0001);
	CU_ASSERT_EQUAL(rblk_cid_make(0x123, 0x1F), 0xF123);
	rblk_slots_fini(&t);
}

static void test_rsp_then_send(void)
{
	struct rblk_slots t;
	struct rblk_slot *s, *got;
	struct nvme_cqe c;
	uint16_t cid;

	CU_ASSERT_EQUAL_FATAL(rblk_slots_init(&t, 8, 1), 0);
	s = rblk_slot_get(&t);
	cid = rblk_slot_arm(s);
	c = cqe_for(cid, NVME_SC_LBA_RANGE | NVME_SC_DNR, 0xABCD);
	CU_ASSERT_EQUAL(rblk_slot_rsp(&t, &c, &got), 0);	/* waits for the SEND */
	CU_ASSERT_PTR_EQUAL(got, s);
	CU_ASSERT_TRUE(s->rsp_done);
	CU_ASSERT_EQUAL(rblk_slot_send_done(s), 1);
	CU_ASSERT_EQUAL(rblk_slot_status(s), 0x4080);
	CU_ASSERT_EQUAL(rblk_slot_dw0(s), 0xABCD);
	/* The same CQE again: duplicate. */
	CU_ASSERT_EQUAL(rblk_slot_rsp(&t, &c, &got), -EALREADY);
	rblk_slots_fini(&t);
}

static void test_send_then_rsp(void)
{
	struct rblk_slots t;
	struct rblk_slot *s, *got;
	struct nvme_cqe c;
	uint16_t cid;

	CU_ASSERT_EQUAL_FATAL(rblk_slots_init(&t, 8, 1), 0);
	s = rblk_slot_get(&t);
	cid = rblk_slot_arm(s);
	CU_ASSERT_EQUAL(rblk_slot_send_done(s), 0);
	c = cqe_for(cid, 0, 7);
	CU_ASSERT_EQUAL(rblk_slot_rsp(&t, &c, &got), 1);
	CU_ASSERT_PTR_EQUAL(got, s);
	CU_ASSERT_EQUAL(rblk_slot_status(s), 0);
	rblk_slots_fini(&t);
}

static void test_bogus(void)
{
	struct rblk_slots t;
	struct rblk_slot *s, *got = (void *)1;
	struct nvme_cqe c;
	uint16_t cid;

	CU_ASSERT_EQUAL_FATAL(rblk_slots_init(&t, 8, 1), 0);
	s = rblk_slot_get(&t);
	cid = rblk_slot_arm(s);

	/* Right index, previous generation: a stale completion. */
	c = cqe_for(rblk_cid_make(s->index, (uint8_t)(s->gen - 1)), 0, 0);
	CU_ASSERT_EQUAL(rblk_slot_rsp(&t, &c, &got), -ESTALE);
	CU_ASSERT_PTR_NULL(got);
	CU_ASSERT_FALSE(s->rsp_done);
	/* An index past the table. */
	c = cqe_for(rblk_cid_make(100, s->gen), 0, 0);
	CU_ASSERT_EQUAL(rblk_slot_rsp(&t, &c, &got), -ENOENT);
	/* A slot that exists but is not posted. */
	c = cqe_for(rblk_cid_make(3, 0), 0, 0);
	CU_ASSERT_EQUAL(rblk_slot_rsp(&t, &c, &got), -ENOENT);
	/* The real one still matches. */
	c = cqe_for(cid, 0, 0);
	CU_ASSERT_EQUAL(rblk_slot_rsp(&t, &c, &got), 0);
	rblk_slots_fini(&t);
}

static void test_state_str(void)
{
	CU_ASSERT_STRING_EQUAL(rblk_slot_state_str(RBLK_SLOT_FREE), "free");
	CU_ASSERT_STRING_EQUAL(rblk_slot_state_str(RBLK_SLOT_QUEUED), "queued");
	CU_ASSERT_STRING_EQUAL(rblk_slot_state_str(RBLK_SLOT_POSTED), "posted");
}

static const struct ut_case cases[] = {
	UT_CASE(test_init_limits),
	UT_CASE(test_get_put),
	UT_CASE(test_arm_generation),
	UT_CASE(test_rsp_then_send),
	UT_CASE(test_send_then_rsp),
	UT_CASE(test_bogus),
	UT_CASE(test_state_str),
	UT_END,
};

UT_MAIN("initiator/slots", cases)

/* SPDX-License-Identifier: MIT */
/*
 * Drives the initiator's completion matching (initiator/slots.c) with CQEs
 * whose CID, status and order come from the input, interleaved with the
 * host's own slot operations (get, arm, SEND completion, put). Checks,
 * against a model of each slot: a CQE completes only a posted slot whose
 * CID it carries, at most once, and only together with its SEND; every
 * other CQE is refused with the documented error; the busy count matches.
 *
 * Input: [slots-1 u8][reserved u8] then ops: [op u8][slot u8] (+ CID high
 * byte and status for a CQE). Ops 6 and 7 do nothing.
 */
#include <errno.h>

#include "fuzz.h"
#include "initiator/slots.h"

#define MAX_SLOTS 64

struct model {
	bool held;      /* taken by get / get_reserved, not put back */
	bool posted;
	uint16_t cid;
	bool rsp, send; /* what arrived since arm */
};

static uint8_t next(const uint8_t **d, size_t *n)
{
	uint8_t b = 0;

	if (*n) {
		b = **d;
		(*d)++;
		(*n)--;
	}
	return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct model m[MAX_SLOTS];
	struct rblk_slots t;
	unsigned n, reserved, busy = 0;

	if (size < 2)
		return 0;
	n = 1 + data[0] % MAX_SLOTS;
	reserved = data[1] % n;
	data += 2;
	size -= 2;
	FUZZ_CHECK(rblk_slots_init(&t, n, reserved) == 0);
	memset(m, 0, sizeof(m));
	while (size) {
		uint8_t op = next(&data, &size);
		unsigned i = next(&data, &size) % n;
		struct rblk_slot *s = NULL;
		struct nvme_cqe cqe;
		int ret;

		switch (op & 7) {
		case 0: /* the host takes a slot */
			s = rblk_slot_get(&t);
			if (!s) {
				FUZZ_CHECK(busy == n - reserved);
				break;
			}
			FUZZ_CHECK(!m[s->index].held && s->index < n - reserved);
			m[s->index] = (struct model){ .held = true };
			busy++;
			break;
		case 1: /* the host takes reserved slot i */
			s = rblk_slot_get_reserved(&t, i);
			if (s) {
				FUZZ_CHECK(!m[s->index].held && s->index >= n - reserved);
				m[s->index] = (struct model){ .held = true };
			}
			break;
		case 2: /* the host posts slot i */
			if (!m[i].held || m[i].posted)
				break;
			m[i].cid = rblk_slot_arm(&t.s[i]);
			m[i].posted = true;
			m[i].rsp = m[i].send = false;
			FUZZ_CHECK((m[i].cid & RBLK_CID_INDEX_MASK) == i);
			break;
		case 3: /* its SEND completes */
			if (!m[i].posted || m[i].send)
				break;
			m[i].send = true;
			FUZZ_CHECK(rblk_slot_send_done(&t.s[i]) == (m[i].rsp ? 1 : 0));
			break;
		case 4: /* a CQE from the wire, CID as given, or slot i's when op bit 7 is set */
			memset(&cqe, 0, sizeof(cqe));
			cqe.cid = (op & 0x80) ? rblk_cpu_to_le16(m[i].cid)
					   : (uint16_t)(i | next(&data, &size) << 8);
			cqe.status = (uint16_t)(next(&data, &size) << 1);
			ret = rblk_slot_rsp(&t, &cqe, &s);
			{
				uint16_t cid = rblk_le16(cqe.cid);
				unsigned k = cid & RBLK_CID_INDEX_MASK;
				bool posted = k < n && m[k].posted;

				if (!posted) {
					FUZZ_CHECK(ret == -ENOENT && !s);
				} else if (cid != m[k].cid) {
					FUZZ_CHECK(ret == -ESTALE && !s);
				} else if (m[k].rsp) {
					FUZZ_CHECK(ret == -EALREADY && !s);
				} else {
					FUZZ_CHECK(s == &t.s[k] && ret == (m[k].send ? 1 : 0));
					FUZZ_CHECK(rblk_slot_status(s) == nvme_cqe_status(&cqe));
					m[k].rsp = true;
				}
			}
			break;
		case 5: /* the host gives slot i back (complete, or never posted) */
			if (!m[i].held || (m[i].posted && !(m[i].rsp && m[i].send)))
				break;
			rblk_slot_put(&t, &t.s[i]);
			if (i < n - reserved)
				busy--;
			m[i] = (struct model){ 0 };
			break;
		}
		FUZZ_CHECK(rblk_slots_busy(&t) == busy);
	}
	rblk_slots_fini(&t);
	return 0;
}

size_t rblk_fuzz_seed(unsigned idx, uint8_t *buf, size_t max)
{
	/* 8 slots, 1 reserved: get, arm, its CQE, SEND, put; get, arm, a stale raw CQE. */
	static const uint8_t s0[] = { 7, 1, 0, 0, 2, 0, 0x84, 0, 0, 3, 0, 5, 0,
				      0, 0, 2, 0, 4, 0, 0x10, 0 };
	/* 2 reserved: reserved slot 0 (index 2), SEND first, its CQE, a duplicate, put. */
	static const uint8_t s1[] = { 3, 2, 1, 0, 2, 2, 3, 2, 0x84, 2, 0, 0x84, 2, 0, 5, 2 };
	const uint8_t *s = idx == 0 ? s0 : s1;
	size_t len = idx == 0 ? sizeof(s0) : sizeof(s1);

	if (idx > 1 || len > max)
		return 0;
	memcpy(buf, s, len);
	return len;
}

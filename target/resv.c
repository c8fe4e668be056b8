/* SPDX-License-Identifier: MIT */
/*
 * The reservation rules (NVMe base specification, Reservations): Register,
 * Acquire, Release and Report on a namespace's state, and which commands a
 * host may run under each reservation type. Pure functions on a state value:
 * resv_cmd.c copies the state, applies a command here, keeps the copy
 * durable where it must, then publishes it.
 *
 * Where the specification leaves a choice, rblk answers as the Linux
 * target (drivers/nvme/target, 6.13 and later) does, so that a host sees
 * one behaviour from both:
 *   - a registrant is a host (its 128-bit host ID): every controller of
 *     the host shares the registration and the reservation;
 *   - Register of a host already registered succeeds when NRKEY is its key,
 *     else Reservation Conflict; Replace of a non-registrant is a conflict
 *     even with IEKEY;
 *   - IEKEY is for Register only: set on Acquire or Release it is Invalid
 *     Field (later revisions of the specification made it obsolete there);
 *   - Release with an RTYPE that is not the reservation's is Invalid Field
 *     (the specification's answer);
 *   - the generation counts Register, Preempt and Clear.
 */
#include <string.h>

#include "protocol/nvme_status.h"
#include "protocol/nvme.h"
#include "protocol/le.h"
#include "target/resv.h"

#define CONFLICT (NVME_SC_RESERVATION_CONFLICT | NVME_SC_DNR)
#define INVALID (NVME_SC_INVALID_FIELD | NVME_SC_DNR)

static bool all_registrants(uint8_t rtype)
{
	return rtype == NVME_RESV_WE_AR || rtype == NVME_RESV_EA_AR;
}

static bool registrants_notified(uint8_t rtype)
{
	/* "Reservation released" goes out for every type but the two plain ones. */
	return rtype != NVME_RESV_WE && rtype != NVME_RESV_EA;
}

static int find_idx(const struct rblk_resv_state *s, const uint8_t hostid[16])
{
	for (unsigned i = 0; i < s->nr; i++)
		if (!memcmp(s->regs[i].hostid, hostid, 16))
			return (int)i;
	return -1;
}

const struct rblk_resv_reg *rblk_resv_find(const struct rblk_resv_state *s,
					   const uint8_t hostid[16])
{
	int i = find_idx(s, hostid);

	return i < 0 ? NULL : &s->regs[i];
}

bool rblk_resv_is_holder(const struct rblk_resv_state *s, const uint8_t hostid[16])
{
	if (s->rtype == NVME_RESV_NONE)
		return false;
	if (all_registrants(s->rtype))
		return find_idx(s, hostid) >= 0;
	return !memcmp(s->holder, hostid, 16);
}

static void notify(struct rblk_resv_events *ev, const uint8_t hostid[16], uint8_t type)
{
	if (ev->nr == sizeof(ev->n) / sizeof(ev->n[0]))
		return;
	memcpy(ev->n[ev->nr].hostid, hostid, 16);
	ev->n[ev->nr].type = type;
	ev->nr++;
}

/* Every registrant but @except (NULL: all) is told @type. */
static void notify_others(const struct rblk_resv_state *s, const uint8_t *except,
			  struct rblk_resv_events *ev, uint8_t type)
{
	for (unsigned i = 0; i < s->nr; i++)
		if (!except || memcmp(s->regs[i].hostid, except, 16))
			notify(ev, s->regs[i].hostid, type);
}

static void set_holder(struct rblk_resv_state *s, const uint8_t hostid[16], uint8_t rtype)
{
	s->rtype = rtype;
	memcpy(s->holder, hostid, 16);
}

/*
 * Removes registrant i. A holder's reservation goes with it, except for the
 * All Registrants types, which last while anyone is registered; the other
 * registrants of a Registrants Only reservation are told it was released.
 */
static void unregister_one(struct rblk_resv_state *s, unsigned i, struct rblk_resv_events *ev)
{
	uint8_t hostid[16];
	bool was_holder;

	memcpy(hostid, s->regs[i].hostid, 16);
	was_holder = rblk_resv_is_holder(s, hostid);
	memmove(&s->regs[i], &s->regs[i + 1], (s->nr - i - 1) * sizeof(s->regs[0]));
	s->nr--;
	if (!was_holder)
		return;
	if (all_registrants(s->rtype)) {
		if (!s->nr)
			s->rtype = NVME_RESV_NONE;
		return;
	}
	if (registrants_notified(s->rtype))
		notify_others(s, hostid, ev, NVME_RESV_LOG_RESV_RELEASED);
	s->rtype = NVME_RESV_NONE;
}

uint16_t rblk_resv_register(struct rblk_resv_state *s, const uint8_t hostid[16], uint32_t cdw10,
			    const struct nvme_resv_keys *k, struct rblk_resv_events *ev)
{
	unsigned act = NVME_RESV_ACTION(cdw10), cptpl = NVME_RESV_CPTPL(cdw10);
	bool iekey = cdw10 & NVME_RESV_IEKEY;
	int i = find_idx(s, hostid);

	if (act > NVME_RESV_REPLACE || cptpl == 1)
		return INVALID;
	switch (act) {
	case NVME_RESV_REGISTER:
		if (i >= 0) {
			if (s->regs[i].rkey != k->nkey)
				return CONFLICT;
			break;
		}
		if (s->nr == RBLK_RESV_MAX_REGS)
			return NVME_SC_NS_INSUFFICIENT_CAP | NVME_SC_DNR;
		memcpy(s->regs[s->nr].hostid, hostid, 16);
		s->regs[s->nr].rkey = k->nkey;
		s->nr++;
		break;
	case NVME_RESV_UNREGISTER:
		if (i < 0 || (!iekey && s->regs[i].rkey != k->crkey))
			return CONFLICT;
		unregister_one(s, (unsigned)i, ev);
		break;
	case NVME_RESV_REPLACE:
		if (i < 0 || (!iekey && s->regs[i].rkey != k->crkey))
			return CONFLICT;
		s->regs[i].rkey = k->nkey;
		break;
	}
	if (cptpl == NVME_RESV_CPTPL_SET)
		s->ptpl = true;
	else if (cptpl == NVME_RESV_CPTPL_CLEAR)
		s->ptpl = false;
	s->gen++;
	return 0;
}

/*
 * Unregisters every host registered with @key, telling each but @sender
 * its registration was preempted. Reservation Conflict when none is.
 */
static uint16_t unregister_by_key(struct rblk_resv_state *s, uint64_t key, const uint8_t *sender,
				  bool keep_sender, struct rblk_resv_events *ev)
{
	bool any = false;

	for (unsigned i = s->nr; i-- > 0;) {
		uint8_t hostid[16];
		bool self;

		if (s->regs[i].rkey != key)
			continue;
		memcpy(hostid, s->regs[i].hostid, 16);
		self = !memcmp(hostid, sender, 16);
		if (self && keep_sender)
			continue;
		any = true;
		unregister_one(s, i, ev);
		if (!self)
			notify(ev, hostid, NVME_RESV_LOG_REG_PREEMPTED);
	}
	return any ? 0 : CONFLICT;
}

static uint16_t preempt(struct rblk_resv_state *s, const uint8_t hostid[16], uint8_t rtype,
			uint64_t prkey, struct rblk_resv_events *ev)
{
	uint8_t old = s->rtype;
	int h;

	if (old == NVME_RESV_NONE)
		return unregister_by_key(s, prkey, hostid, false, ev);
	if (all_registrants(old)) {
		if (prkey)
			return unregister_by_key(s, prkey, hostid, false, ev);
		/* PRKEY 0: everyone else goes, the sender holds with the new type. */
		set_holder(s, hostid, rtype);
		for (unsigned i = s->nr; i-- > 0;) {
			uint8_t other[16];

			if (!memcmp(s->regs[i].hostid, hostid, 16))
				continue;
			memcpy(other, s->regs[i].hostid, 16);
			unregister_one(s, i, ev);
			notify(ev, other, NVME_RESV_LOG_REG_PREEMPTED);
		}
		return 0;
	}
	if (!memcmp(s->holder, hostid, 16)) {
		/* The holder preempting itself changes the type. */
		s->rtype = rtype;
		if (old != rtype)
			notify_others(s, hostid, ev, NVME_RESV_LOG_RESV_RELEASED);
		return 0;
	}
	h = find_idx(s, s->holder);
	if (h >= 0 && s->regs[h].rkey == prkey) {
		/* The new holder first, so that unregistering the old releases nothing. */
		set_holder(s, hostid, rtype);
		unregister_by_key(s, prkey, hostid, true, ev);
		if (old != rtype)
			notify_others(s, hostid, ev, NVME_RESV_LOG_RESV_RELEASED);
		return 0;
	}
	if (prkey)
		return unregister_by_key(s, prkey, hostid, false, ev);
	return INVALID;
}

uint16_t rblk_resv_acquire(struct rblk_resv_state *s, const uint8_t hostid[16], uint32_t cdw10,
			   const struct nvme_resv_keys *k, struct rblk_resv_events *ev)
{
	unsigned act = NVME_RESV_ACTION(cdw10);
	uint8_t rtype = (uint8_t)NVME_RESV_RTYPE(cdw10);
	int i = find_idx(s, hostid);
	uint16_t status;

	if (act > NVME_RESV_PREEMPT_ABORT || rtype < NVME_RESV_WE || rtype > NVME_RESV_EA_AR ||
	    (cdw10 & NVME_RESV_IEKEY))
		return INVALID;
	if (i < 0 || s->regs[i].rkey != k->crkey)
		return CONFLICT;
	if (act == NVME_RESV_ACQUIRE) {
		if (s->rtype == NVME_RESV_NONE) {
			set_holder(s, hostid, rtype);
			return 0;
		}
		/* Acquiring again is fine; changing the type takes a preempt. */
		if (rblk_resv_is_holder(s, hostid) && s->rtype == rtype)
			return 0;
		return CONFLICT;
	}
	status = preempt(s, hostid, rtype, k->nkey, ev);
	if (!status)
		s->gen++;
	return status;
}

uint16_t rblk_resv_release(struct rblk_resv_state *s, const uint8_t hostid[16], uint32_t cdw10,
			   uint64_t crkey, struct rblk_resv_events *ev)
{
	unsigned act = NVME_RESV_ACTION(cdw10);
	uint8_t rtype = (uint8_t)NVME_RESV_RTYPE(cdw10);
	int i = find_idx(s, hostid);
	uint8_t old = s->rtype;

	if (act > NVME_RESV_CLEAR || (cdw10 & NVME_RESV_IEKEY))
		return INVALID;
	if (i < 0 || s->regs[i].rkey != crkey)
		return CONFLICT;
	if (act == NVME_RESV_CLEAR) {
		notify_others(s, hostid, ev, NVME_RESV_LOG_RESV_PREEMPTED);
		s->nr = 0;
		s->rtype = NVME_RESV_NONE;
		s->gen++;
		return 0;
	}
	/* A registrant that holds nothing releases nothing, successfully. */
	if (!rblk_resv_is_holder(s, hostid))
		return 0;
	if (rtype != old)
		return INVALID;
	s->rtype = NVME_RESV_NONE;
	if (registrants_notified(old))
		notify_others(s, hostid, ev, NVME_RESV_LOG_RESV_RELEASED);
	return 0;
}

enum rblk_resv_access rblk_resv_access_of(uint8_t opc)
{
	switch (opc) {
	case NVME_IO_READ:
	case NVME_IO_COMPARE:
	case NVME_IO_VERIFY:
		return RBLK_RESV_ACC_READ;
	case NVME_IO_WRITE:
	case NVME_IO_WRITE_ZEROES:
	case NVME_IO_DSM:
	case NVME_IO_COPY:
	case NVME_IO_FLUSH:
		return RBLK_RESV_ACC_WRITE;
	default:
		return RBLK_RESV_ACC_NONE;
	}
}

bool rblk_resv_allows(const struct rblk_resv_state *s, const uint8_t hostid[16],
		      enum rblk_resv_access acc)
{
	bool registered;

	if (s->rtype == NVME_RESV_NONE || acc == RBLK_RESV_ACC_NONE)
		return true;
	if (rblk_resv_is_holder(s, hostid))
		return true;
	registered = find_idx(s, hostid) >= 0;
	switch (s->rtype) {
	case NVME_RESV_WE:
		return acc == RBLK_RESV_ACC_READ;
	case NVME_RESV_EA:
		return false;
	case NVME_RESV_WE_RO:
	case NVME_RESV_WE_AR:
		return registered || acc == RBLK_RESV_ACC_READ;
	case NVME_RESV_EA_RO:
	case NVME_RESV_EA_AR:
		return registered;
	default:
		return false;
	}
}

uint16_t rblk_resv_report(const struct rblk_resv_state *s, bool eds, void *buf, size_t len)
{
	uint8_t full[NVME_RESV_STATUS_EXT_LEN + RBLK_RESV_MAX_REGS * sizeof(struct nvme_resv_regctl_ext)];
	struct nvme_resv_status *hdr = (struct nvme_resv_status *)full;
	size_t off = NVME_RESV_STATUS_EXT_LEN;

	/*
	 * Host IDs on a fabric are 128-bit: the 64-bit form cannot name them,
	 * and the specification answers such a Report with this status.
	 */
	if (!eds)
		return NVME_SC_HOST_ID_INCONSIST | NVME_SC_DNR;
	memset(full, 0, sizeof(full));
	hdr->gen = rblk_cpu_to_le32(s->gen);
	hdr->rtype = s->rtype;
	hdr->regctl[0] = (uint8_t)s->nr;
	hdr->regctl[1] = (uint8_t)(s->nr >> 8);
	hdr->ptpls = s->ptpl ? 1 : 0;
	for (unsigned i = 0; i < s->nr; i++, off += sizeof(struct nvme_resv_regctl_ext)) {
		struct nvme_resv_regctl_ext *r = (struct nvme_resv_regctl_ext *)(full + off);

		r->cntlid = rblk_cpu_to_le16(NVME_CNTLID_DYNAMIC);
		r->rcsts = rblk_resv_is_holder(s, s->regs[i].hostid) ? NVME_RESV_RCSTS_HOLDER : 0;
		r->rkey = rblk_cpu_to_le64(s->regs[i].rkey);
		memcpy(r->hostid, s->regs[i].hostid, 16);
	}
	memset(buf, 0, len);
	memcpy(buf, full, len < off ? len : off);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * The ANA log page (LID 0Ch) on the host side: its size, a bounds-checked
 * lookup of one namespace's group and state, and one refresh of a path.
 *
 * Layout (NVMe base spec, Asymmetric Namespace Access log page): a 16-byte
 * header (change count, number of group descriptors), then per group a
 * 32-byte descriptor (group id, number of NSIDs, change count, state in
 * bits 3:0) followed by its NSIDs, 4 bytes each, unless the log was read
 * with RGO (groups only). A target may claim more groups or NSIDs than it
 * sent: nothing here reads past the bytes we have.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "initiator/ctrl.h"
#include "initiator/mpath.h"
#include "protocol/le.h"
#include "protocol/nvme_id.h"
#include "protocol/nvme_log.h"
#include "protocol/nvme_status.h"

#define ANA_LOG_MIN 4096u
#define ANA_LOG_MAX (64u << 10)

const char *rblk_ana_state_str(enum rblk_ana_state st)
{
	switch (st) {
	case RBLK_ANA_OPTIMIZED:
		return "optimized";
	case RBLK_ANA_NON_OPTIMIZED:
		return "non-optimized";
	case RBLK_ANA_INACCESSIBLE:
		return "inaccessible";
	case RBLK_ANA_PERSISTENT_LOSS:
		return "persistent-loss";
	case RBLK_ANA_CHANGE:
		return "change";
	}
	return "?";
}

enum rblk_ana_state rblk_ana_state_of_status(uint16_t status)
{
	switch (status & NVME_STATUS_CODE_MASK) {
	case NVME_SC_ANA_PERSISTENT_LOSS:
		return RBLK_ANA_PERSISTENT_LOSS;
	case NVME_SC_ANA_INACCESSIBLE:
		return RBLK_ANA_INACCESSIBLE;
	case NVME_SC_ANA_TRANSITION:
		return RBLK_ANA_CHANGE;
	default:
		return (enum rblk_ana_state)0;
	}
}

int rblk_ana_log_lookup(const void *log, size_t len, uint32_t nsid, uint32_t grpid_hint,
			uint32_t *grpid, enum rblk_ana_state *state)
{
	const uint8_t *p = log;
	struct nvme_ana_log_hdr hdr;
	bool hint_found = false, truncated = false;
	uint8_t hint_state = 0;
	size_t off;

	if (len < sizeof(hdr))
		return -EPROTO;
	memcpy(&hdr, p, sizeof(hdr));
	off = sizeof(hdr);
	for (unsigned g = 0; g < rblk_le16(hdr.ngrps) && !truncated; g++) {
		struct nvme_ana_group_desc d;
		uint32_t n;

		if (len - off < sizeof(d)) {
			truncated = true;
			break;
		}
		memcpy(&d, p + off, sizeof(d));
		off += sizeof(d);
		n = rblk_le32(d.nnsids);
		if (grpid_hint && rblk_le32(d.grpid) == grpid_hint) {
			hint_found = true;
			hint_state = d.state & 0x0F;
		}
		/* Division, not multiplication: a hostile count must not wrap. */
		if (n > (len - off) / 4) {
			truncated = true;
			n = (uint32_t)((len - off) / 4);
		}
		for (uint32_t i = 0; i < n; i++) {
			uint32_t v;

			memcpy(&v, p + off + (size_t)i * 4, 4);
			if (rblk_le32(v) == nsid) {
				*grpid = rblk_le32(d.grpid);
				*state = (enum rblk_ana_state)(d.state & 0x0F);
				return 0;
			}
		}
		off += (size_t)n * 4;
	}
	if (hint_found) {
		*grpid = grpid_hint;
		*state = (enum rblk_ana_state)hint_state;
		return 0;
	}
	return truncated ? -EPROTO : -ENOENT;
}

uint32_t rblk_ana_log_len(const void *id_ctrl)
{
	const struct nvme_id_ctrl *id = id_ctrl;
	uint64_t groups = rblk_le32(id->nanagrpid) ? rblk_le32(id->nanagrpid) : rblk_le32(id->anagrpmax);
	uint64_t nn = rblk_le32(id->nn);
	uint64_t len;

	if (groups > 1024)
		groups = 1024;
	if (nn > 4096)
		nn = 4096;
	len = sizeof(struct nvme_ana_log_hdr) + groups * sizeof(struct nvme_ana_group_desc) + nn * 4;
	len = (len + 3) & ~(uint64_t)3;
	return len < ANA_LOG_MIN ? ANA_LOG_MIN : len > ANA_LOG_MAX ? ANA_LOG_MAX : (uint32_t)len;
}

int rblk_mpath_ana_refresh(struct rblk_mpath_path *p, struct rblk_ctrl *c, uint32_t nsid)
{
	uint32_t len = rblk_ana_log_len(c->id), grpid = 0;
	enum rblk_ana_state st = RBLK_ANA_INACCESSIBLE;
	uint16_t status = 0;
	void *buf;
	int ret = -EPROTO;

	atomic_store(&p->ana_stale, false);
	buf = calloc(1, len);
	if (!buf)
		return -ENOMEM;
	/*
	 * The log is usually far shorter than the most it can take, and an
	 * offset past its end is an Invalid Field (as nvmet): read 4 KiB at a
	 * time, and only while what we have is cut short.
	 */
	for (uint32_t got = 0; got < len;) {
		uint32_t n = len - got < ANA_LOG_MIN ? len - got : ANA_LOG_MIN;

		ret = rblk_ctrl_get_log(c, NVME_LOG_ANA, 0, got, (uint8_t *)buf + got, n, &status);
		if (ret) {
			if (got && ret == -EREMOTEIO)
				ret = -EPROTO;	/* the log ends before it says it does */
			break;
		}
		got += n;
		ret = rblk_ana_log_lookup(buf, got, nsid, p->ns ? rblk_le32(p->ns->id->anagrpid) : 0,
					  &grpid, &st);
		if (ret != -EPROTO)
			break;
	}
	free(buf);
	p->ana_read_ms = rblk_clock_ms();
	if (ret) {
		RBLK_DEBUG("path %u (%s:%s): ANA log: %s%s%s", p->index, p->opts.traddr,
			   p->opts.trsvcid, strerror(-ret), status ? ", " : "",
			   status ? rblk_status_str(status) : "");
		if (ret == -ENOENT || ret == -EPROTO || ret == -EREMOTEIO) {
			/* No log that places our namespace: do not use the path on its word. */
			atomic_store(&p->ana, (int)RBLK_ANA_INACCESSIBLE);
			atomic_store(&p->ana_reported, true);
		}
		return ret;
	}
	if (atomic_load(&p->ana) != (int)st || atomic_load(&p->anagrpid) != grpid)
		RBLK_NOTICE("path %u (%s:%s): ANA group %u %s", p->index, p->opts.traddr,
			    p->opts.trsvcid, grpid, rblk_ana_state_str(st));
	atomic_store(&p->anagrpid, grpid);
	atomic_store(&p->ana, (int)st);
	atomic_store(&p->ana_reported, true);
	return 0;
}

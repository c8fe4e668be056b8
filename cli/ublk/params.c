/* SPDX-License-Identifier: MIT */
/*
 * Namespace geometry and controller capabilities as ublk parameters (see
 * cli/ublk/params.h).
 */
#include <errno.h>
#include <string.h>

#include "cli/ublk/params.h"
#include "protocol/le.h"

/* ublk takes sizes as shifts: the largest power of two not above @bytes (>= 1). */
static uint8_t floor_shift(uint64_t bytes)
{
	uint8_t s = 0;

	while (bytes >> (s + 1))
		s++;
	return s;
}

/* The largest multiple of @unit sectors that fits a 32-bit sector count. */
static uint32_t max_sectors_of(uint32_t unit)
{
	return UINT32_MAX / unit * unit;
}

int rblk_ublk_params_build(const struct nvme_id_ctrl *idc, const struct nvme_id_ns *idn,
			   const struct rblk_ublk_geometry *g, struct ublk_params *p)
{
	uint32_t lbs = g->block_size, spb, xfer;
	uint16_t oncs = rblk_le16(idc->oncs);
	uint64_t phys = lbs, opt = lbs;
	uint8_t lshift;

	if (lbs < 512 || lbs > 4096 || (lbs & (lbs - 1)))
		return -EINVAL;	/* the kernel takes 512 up to the page size */
	spb = lbs / 512;
	xfer = g->max_xfer && g->max_xfer < g->buf_bytes ? g->max_xfer : g->buf_bytes;
	xfer -= xfer % lbs;
	if (!xfer)
		return -EINVAL;
	lshift = floor_shift(lbs);

	/* NPWG and NOWS are 0's based and mean something only with NSFEAT bit 4 */
	if (idn->nsfeat & NVME_NS_FEAT_IO_OPT) {
		phys = (uint64_t)lbs * (rblk_le16(idn->npwg) + 1u);
		opt = (uint64_t)lbs * (rblk_le16(idn->nows) + 1u);
	}

	memset(p, 0, sizeof(*p));
	p->len = UBLK_PARAMS_LEN;
	p->types = UBLK_PARAM_TYPE_BASIC;
	p->basic.logical_bs_shift = lshift;
	p->basic.physical_bs_shift = floor_shift(phys);
	p->basic.io_min_shift = p->basic.physical_bs_shift;
	p->basic.io_opt_shift = floor_shift(opt);
	p->basic.max_sectors = xfer / 512;
	p->basic.dev_sectors = g->blocks * spb;
	/* FUA only counts with a volatile cache; the kernel ignores it otherwise */
	p->basic.attrs = UBLK_ATTR_FUA;
	if (idc->vwc & NVME_CTRL_VWC_PRESENT)
		p->basic.attrs |= UBLK_ATTR_VOLATILE_CACHE;
	if (g->read_only)
		p->basic.attrs |= UBLK_ATTR_READ_ONLY;

	if (oncs & (NVME_CTRL_ONCS_DSM | NVME_CTRL_ONCS_WRITE_ZEROES)) {
		p->types |= UBLK_PARAM_TYPE_DISCARD;
		/* the kernel refuses a discard section with granularity 0, even for write zeroes only */
		p->discard.discard_granularity = lbs;
		/*
		 * One DSM range holds up to 2^32 - 1 blocks, so one request is one
		 * range (the kernel allows one segment); Write Zeroes is split into
		 * 65536-block commands by the library.
		 */
		if (oncs & NVME_CTRL_ONCS_DSM) {
			p->discard.max_discard_sectors = max_sectors_of(spb);
			p->discard.max_discard_segments = 1;
		}
		if (oncs & NVME_CTRL_ONCS_WRITE_ZEROES)
			p->discard.max_write_zeroes_sectors = max_sectors_of(spb);
	}
	return 0;
}

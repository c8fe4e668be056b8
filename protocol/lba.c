/* SPDX-License-Identifier: MIT */
/* Overflow-safe LBA range and size computations for wire values. */
#include <errno.h>

#include "protocol/lba.h"

uint16_t rblk_lba_range_check(uint64_t slba, uint64_t nlb, uint64_t nsze)
{
	/* slba + nlb <= nsze, written so that nothing can wrap. */
	if (nlb > nsze || slba > nsze - nlb)
		return NVME_SC_LBA_RANGE | NVME_SC_DNR;
	return NVME_SC_SUCCESS;
}

int rblk_lba_to_bytes(uint64_t nlb, unsigned lba_shift, uint64_t *bytes)
{
	if (lba_shift >= 64)
		return -EINVAL;
	if (nlb > (UINT64_MAX >> lba_shift))
		return -EOVERFLOW;
	*bytes = nlb << lba_shift;
	return 0;
}

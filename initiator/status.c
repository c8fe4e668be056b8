/* SPDX-License-Identifier: MIT */
/* rblk_status_str(): the public name of an NVMe status, from protocol/names.c. */
#include <rblk/initiator.h>

#include "protocol/names.h"

const char *rblk_status_str(uint16_t status)
{
	return rblk_nvme_status_str(status);
}

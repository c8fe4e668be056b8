/* SPDX-License-Identifier: MIT */
/*
 * Fabrics properties (the controller registers of NVMe-oF): which offsets
 * exist and with what size, Property Get/Set decoding with nvmet's rules
 * (docs/interop.md §7.2), and the CC check a controller runs when the host
 * sets CC.EN (§7.5). Register bit layouts are in nvme.h (NVME_CAP_*, NVME_CC_*,
 * NVME_CSTS_*).
 */
#ifndef RBLK_PROTOCOL_PROPS_H
#define RBLK_PROTOCOL_PROPS_H

#include <stdbool.h>
#include <stdint.h>

#include "protocol/nvmf.h"

/* Size in bytes of the property at ofst (8 for CAP, 4 for VS, CC, CSTS, NSSR, CRTO), 0 if none. */
unsigned rblk_prop_size(uint32_t ofst);

/*
 * Property Get: *ofst and *size (4 or 8) of a valid request: CAP as 8 bytes,
 * VS, CC and CSTS as 4 (what nvmet serves). Invalid Field | DNR with
 * *err_loc = 40 (ATTRIB) when the size field is neither 4 nor 8 bytes or
 * does not match the property, or 44 (OFST) for any other offset.
 */
uint16_t rblk_prop_get_decode(const struct nvmf_property_get_cmd *cmd, uint32_t *ofst,
			      unsigned *size, uint16_t *err_loc);

/*
 * Property Set: only 4-byte CC is writable (nvmet). *value is the 4-byte
 * value (the upper half of VALUE is ignored, as nvmet does). Invalid Field |
 * DNR with *err_loc as for Get.
 */
uint16_t rblk_prop_set_decode(const struct nvmf_property_set_cmd *cmd, uint32_t *ofst,
			      uint32_t *value, uint16_t *err_loc);

/*
 * Whether cc is a configuration the controller can enable with: IOSQES 6 and
 * IOCQES 4 (I/O controllers only: a discovery controller has no I/O queues),
 * MPS within CAP.MPSMIN..MPSMAX, AMS 0 (round robin), CSS NVM, or CSI when
 * CAP.CSS advertises it. 0, or -EINVAL (the controller then sets CSTS.CFS).
 */
int rblk_cc_validate(uint32_t cc, uint64_t cap, bool io_ctrl);

#endif

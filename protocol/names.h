/* SPDX-License-Identifier: MIT */
/*
 * Human-readable names for log messages: NVMe status codes, admin / I/O
 * opcodes and fabrics command types. Every function returns a static string
 * and never NULL ("Unknown" for values it does not know).
 */
#ifndef RBLK_PROTOCOL_NAMES_H
#define RBLK_PROTOCOL_NAMES_H

#include <stdint.h>

/*
 * Name of a kernel-style status (More/DNR/CRD ignored), e.g. "LBA Out of
 * Range". SCT 1 codes 0x80..0x84 mean different things for fabrics and NVM
 * commands; without the opcode both meanings are given ("Connect Invalid
 * Parameters / Write to Read Only Range"). Use rblk_nvme_cmd_status_str() when
 * the failing command is known.
 */
const char *rblk_nvme_status_str(uint16_t status);

/* Same, disambiguated by the opcode of the failed command (0x7F = fabrics). */
const char *rblk_nvme_cmd_status_str(uint16_t status, uint8_t opc);

const char *rblk_nvme_admin_opc_str(uint8_t opc);
const char *rblk_nvme_io_opc_str(uint8_t opc);
const char *rblk_nvmf_fctype_str(uint8_t fctype);
/* A reservation type (0: none, 1-6 as Reservation Acquire's RTYPE), as nvme-cli names it. */
const char *rblk_nvme_resv_type_str(uint8_t rtype);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * NVMe status codes, kernel style: SC bits 7:0, SCT bits 10:8, CRD 12:11,
 * More 13, DNR 14 (not shifted). The wire STATUS field of a CQE is that value
 * << 1 (bit 0 is the phase tag, always 0 on fabrics).
 * Part of the NVMe wire definitions: protocol/nvme.h includes this file, so
 * code normally includes protocol/nvme.h. Same rules as there (raw
 * little-endian fields, no bitfields, _Static_assert on layouts).
 */
#ifndef RBLK_PROTOCOL_NVME_STATUS_H
#define RBLK_PROTOCOL_NVME_STATUS_H

#include <stdint.h>

/* ------------------------------------------------------------------------ */
/* Status codes (kernel style: not shifted, no phase bit).                   */

#define NVME_SCT_GENERIC 0x0
#define NVME_SCT_CMD_SPECIFIC 0x1
#define NVME_SCT_MEDIA 0x2
#define NVME_SCT_PATH 0x3
#define NVME_SCT_VENDOR 0x7

#define NVME_SC_MASK 0x00FF
#define NVME_SCT_MASK 0x0700
#define NVME_SCT_SHIFT 8
#define NVME_STATUS_CODE_MASK 0x07FF /* SCT + SC, the part that names the error */
#define NVME_SC_CRD 0x1800
#define NVME_SC_MORE 0x2000
#define NVME_SC_DNR 0x4000

#define NVME_STATUS(sct, sc) ((uint16_t)((((sct) & 0x7) << 8) | ((sc) & 0xFF)))
#define NVME_STATUS_SCT(s) (((s) & NVME_SCT_MASK) >> NVME_SCT_SHIFT)
#define NVME_STATUS_SC(s) ((s) & NVME_SC_MASK)

enum {
	/* SCT 0: generic command status */
	NVME_SC_SUCCESS = 0x000,
	NVME_SC_INVALID_OPCODE = 0x001,
	NVME_SC_INVALID_FIELD = 0x002,
	NVME_SC_CMDID_CONFLICT = 0x003,
	NVME_SC_DATA_XFER_ERROR = 0x004,
	NVME_SC_POWER_LOSS = 0x005,
	NVME_SC_INTERNAL = 0x006,
	NVME_SC_ABORT_REQ = 0x007,
	NVME_SC_ABORT_QUEUE = 0x008,
	NVME_SC_FUSED_FAIL = 0x009,
	NVME_SC_FUSED_MISSING = 0x00A,
	NVME_SC_INVALID_NS = 0x00B,
	NVME_SC_CMD_SEQ_ERROR = 0x00C,
	NVME_SC_SGL_INVALID_LAST = 0x00D,
	NVME_SC_SGL_INVALID_COUNT = 0x00E,
	NVME_SC_SGL_INVALID_DATA = 0x00F, /* Data SGL Length Invalid */
	NVME_SC_SGL_INVALID_METADATA = 0x010,
	NVME_SC_SGL_INVALID_TYPE = 0x011,
	NVME_SC_CMB_INVALID_USE = 0x012,
	NVME_SC_PRP_INVALID_OFFSET = 0x013,
	NVME_SC_ATOMIC_WU_EXCEEDED = 0x014,
	NVME_SC_OP_DENIED = 0x015,
	NVME_SC_SGL_INVALID_OFFSET = 0x016,
	NVME_SC_HOST_ID_INCONSIST = 0x018,
	NVME_SC_KA_TIMEOUT_EXPIRED = 0x019,
	NVME_SC_KA_TIMEOUT_INVALID = 0x01A,
	NVME_SC_ABORTED_PREEMPT_ABORT = 0x01B,
	NVME_SC_SANITIZE_FAILED = 0x01C,
	NVME_SC_SANITIZE_IN_PROGRESS = 0x01D,
	NVME_SC_SGL_INVALID_GRANULARITY = 0x01E,
	NVME_SC_CMD_NOT_SUP_CMB_QUEUE = 0x01F,
	NVME_SC_NS_WRITE_PROTECTED = 0x020,
	NVME_SC_CMD_INTERRUPTED = 0x021,
	NVME_SC_TRANSIENT_TR_ERR = 0x022,
	NVME_SC_ADMIN_CMD_MEDIA_NOT_READY = 0x024,
	NVME_SC_INVALID_IO_CMD_SET = 0x02C,

	/* SCT 0, NVM command set specific */
	NVME_SC_LBA_RANGE = 0x080,
	NVME_SC_CAP_EXCEEDED = 0x081,
	NVME_SC_NS_NOT_READY = 0x082,
	NVME_SC_RESERVATION_CONFLICT = 0x083,
	NVME_SC_FORMAT_IN_PROGRESS = 0x084,

	/* SCT 1: command specific (admin) */
	NVME_SC_CQ_INVALID = 0x100,
	NVME_SC_QID_INVALID = 0x101,
	NVME_SC_QUEUE_SIZE = 0x102,
	NVME_SC_ABORT_LIMIT = 0x103,
	NVME_SC_ABORT_MISSING = 0x104,
	NVME_SC_AER_LIMIT = 0x105,
	NVME_SC_FIRMWARE_SLOT = 0x106,
	NVME_SC_FIRMWARE_IMAGE = 0x107,
	NVME_SC_INVALID_VECTOR = 0x108,
	NVME_SC_INVALID_LOG_PAGE = 0x109,
	NVME_SC_INVALID_FORMAT = 0x10A,
	NVME_SC_FW_NEEDS_CONV_RESET = 0x10B,
	NVME_SC_INVALID_QUEUE = 0x10C,
	NVME_SC_FEATURE_NOT_SAVEABLE = 0x10D,
	NVME_SC_FEATURE_NOT_CHANGEABLE = 0x10E,
	NVME_SC_FEATURE_NOT_PER_NS = 0x10F,
	NVME_SC_FW_NEEDS_SUBSYS_RESET = 0x110,
	NVME_SC_FW_NEEDS_RESET = 0x111,
	NVME_SC_FW_NEEDS_MAX_TIME = 0x112,
	NVME_SC_FW_ACTIVATE_PROHIBITED = 0x113,
	NVME_SC_OVERLAPPING_RANGE = 0x114,
	NVME_SC_NS_INSUFFICIENT_CAP = 0x115,
	NVME_SC_NS_ID_UNAVAILABLE = 0x116,
	NVME_SC_NS_ALREADY_ATTACHED = 0x118,
	NVME_SC_NS_IS_PRIVATE = 0x119,
	NVME_SC_NS_NOT_ATTACHED = 0x11A,
	NVME_SC_THIN_PROV_NOT_SUPP = 0x11B,
	NVME_SC_CTRL_LIST_INVALID = 0x11C,
	NVME_SC_SELF_TEST_IN_PROGRESS = 0x11D,
	NVME_SC_BP_WRITE_PROHIBITED = 0x11E,
	NVME_SC_CTRL_ID_INVALID = 0x11F,
	NVME_SC_SEC_CTRL_STATE_INVALID = 0x120,
	NVME_SC_CTRL_RES_NUM_INVALID = 0x121,
	NVME_SC_RES_ID_INVALID = 0x122,
	NVME_SC_PMR_SAN_PROHIBITED = 0x123,
	NVME_SC_ANA_GROUP_ID_INVALID = 0x124,
	NVME_SC_ANA_ATTACH_FAILED = 0x125,

	/*
	 * SCT 1, codes 0x80.. are command-set / command specific and OVERLAP:
	 * the meaning depends on the command that failed. Fabrics (opcode 0x7F)
	 * commands use the CONNECT_* names; NVM I/O commands use the NVM names.
	 */
	NVME_SC_CONNECT_FORMAT = 0x180,        /* Connect: Incompatible Format */
	NVME_SC_CONNECT_CTRL_BUSY = 0x181,     /* Connect: Controller Busy */
	NVME_SC_CONNECT_INVALID_PARAM = 0x182, /* Connect: Invalid Parameters */
	NVME_SC_CONNECT_RESTART_DISC = 0x183,  /* Connect: Restart Discovery */
	NVME_SC_CONNECT_INVALID_HOST = 0x184,  /* Connect: Invalid Host */
	NVME_SC_DISCOVERY_RESTART = 0x190,
	NVME_SC_AUTH_REQUIRED = 0x191,

	NVME_SC_NVM_CONFLICTING_ATTRS = 0x180, /* NVM: DSM Conflicting Attributes */
	NVME_SC_NVM_INVALID_PI = 0x181,        /* NVM: Invalid Protection Information */
	NVME_SC_NVM_READ_ONLY = 0x182,         /* NVM: Write to Read Only Range */
	/* NVM: the kernel's code for an unsupported optional NVM command (DSM/WZ). */
	NVME_SC_ONCS_NOT_SUPPORTED = 0x183,
	/* NVM, Copy: Command Size Limit Exceeded (MSSRL, MCL, MSRC), NVMe 2.0's name of 0x183. */
	NVME_SC_CMD_SIZE_LIMIT = 0x183,

	/* SCT 2: media and data integrity errors */
	NVME_SC_WRITE_FAULT = 0x280,
	NVME_SC_READ_ERROR = 0x281,
	NVME_SC_GUARD_CHECK = 0x282,
	NVME_SC_APPTAG_CHECK = 0x283,
	NVME_SC_REFTAG_CHECK = 0x284,
	NVME_SC_COMPARE_FAILED = 0x285,
	NVME_SC_ACCESS_DENIED = 0x286,
	NVME_SC_UNWRITTEN_BLOCK = 0x287,

	/* SCT 3: path related */
	NVME_SC_INTERNAL_PATH_ERROR = 0x300,
	NVME_SC_ANA_PERSISTENT_LOSS = 0x301,
	NVME_SC_ANA_INACCESSIBLE = 0x302,
	NVME_SC_ANA_TRANSITION = 0x303,
	NVME_SC_CTRL_PATH_ERROR = 0x360,
	NVME_SC_HOST_PATH_ERROR = 0x370,
	NVME_SC_HOST_ABORTED_CMD = 0x371,
};

/* 15-bit status (with More/DNR) -> wire STATUS field (phase 0), and back. */
static inline uint16_t nvme_status_to_wire(uint16_t sc)
{
	return (uint16_t)((sc & 0x7FFF) << 1);
}

static inline uint16_t nvme_status_from_wire(uint16_t wire)
{
	return (uint16_t)(wire >> 1);
}

#endif

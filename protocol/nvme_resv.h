/* SPDX-License-Identifier: MIT */
/*
 * Reservations on the wire (NVMe base specification, Reservations): the
 * command dwords of Reservation Register, Acquire, Release and Report, their
 * data structures, the Reservation Notification log page (80h) and the
 * feature bits of 82h/83h. Little-endian fields, no bitfields.
 */
#ifndef RBLK_PROTOCOL_NVME_RESV_H
#define RBLK_PROTOCOL_NVME_RESV_H

#include <stddef.h>
#include <stdint.h>

/* Reservation types (RTYPE), 0: none. */
enum nvme_resv_type {
	NVME_RESV_NONE = 0,
	NVME_RESV_WE = 1,       /* Write Exclusive */
	NVME_RESV_EA = 2,       /* Exclusive Access */
	NVME_RESV_WE_RO = 3,    /* Write Exclusive - Registrants Only */
	NVME_RESV_EA_RO = 4,    /* Exclusive Access - Registrants Only */
	NVME_RESV_WE_AR = 5,    /* Write Exclusive - All Registrants */
	NVME_RESV_EA_AR = 6,    /* Exclusive Access - All Registrants */
};

/* CDW10 of Register (RREGA), Acquire (RACQA), Release (RRELA). */
#define NVME_RESV_ACTION(cdw10) ((cdw10) & 0x7u)
#define NVME_RESV_IEKEY (1u << 3)
#define NVME_RESV_RTYPE(cdw10) (((cdw10) >> 8) & 0xFFu)
#define NVME_RESV_CPTPL(cdw10) (((cdw10) >> 30) & 0x3u)

enum {
	NVME_RESV_REGISTER = 0,
	NVME_RESV_UNREGISTER = 1,
	NVME_RESV_REPLACE = 2,
};
enum {
	NVME_RESV_CPTPL_KEEP = 0,
	NVME_RESV_CPTPL_CLEAR = 2,
	NVME_RESV_CPTPL_SET = 3,
};
enum {
	NVME_RESV_ACQUIRE = 0,
	NVME_RESV_PREEMPT = 1,
	NVME_RESV_PREEMPT_ABORT = 2,
};
enum {
	NVME_RESV_RELEASE = 0,
	NVME_RESV_CLEAR = 1,
};

/* Report CDW11 bit 0: the extended data structure (128-bit host IDs). */
#define NVME_RESV_REPORT_EDS 1u

/* Register data: current and new key. Acquire: current and preempt key. */
struct nvme_resv_keys {
	uint64_t crkey;
	uint64_t nkey;          /* NRKEY (Register) or PRKEY (Acquire) */
};
_Static_assert(sizeof(struct nvme_resv_keys) == 16, "resv keys");

/* Report: the header (24 bytes; 64 with EDS, the rest reserved). */
struct nvme_resv_status {
	uint32_t gen;
	uint8_t rtype;
	uint8_t regctl[2];      /* unaligned little-endian */
	uint8_t rsvd7[2];
	uint8_t ptpls;
	uint8_t rsvd10[14];
};
_Static_assert(sizeof(struct nvme_resv_status) == 24, "resv status");
_Static_assert(offsetof(struct nvme_resv_status, ptpls) == 9, "resv status ptpls");
#define NVME_RESV_STATUS_EXT_LEN 64u

/* A registered controller, 64-bit host ID form. */
struct nvme_resv_regctl {
	uint16_t cntlid;
	uint8_t rcsts;          /* bit 0: holds the reservation */
	uint8_t rsvd3[5];
	uint8_t hostid[8];
	uint64_t rkey;
};
_Static_assert(sizeof(struct nvme_resv_regctl) == 24, "resv regctl");

/* A registered controller, extended form (EDS): 128-bit host ID. */
struct nvme_resv_regctl_ext {
	uint16_t cntlid;
	uint8_t rcsts;
	uint8_t rsvd3[5];
	uint64_t rkey;
	uint8_t hostid[16];
	uint8_t rsvd32[32];
};
_Static_assert(sizeof(struct nvme_resv_regctl_ext) == 64, "resv regctl ext");
_Static_assert(offsetof(struct nvme_resv_regctl_ext, hostid) == 16, "resv regctl ext hostid");
#define NVME_RESV_RCSTS_HOLDER 1u
/* A registrant of the dynamic controller model: any controller of the host. */
#define NVME_CNTLID_DYNAMIC 0xFFFFu

/* Reservation Notification log page (80h). */
enum {
	NVME_RESV_LOG_EMPTY = 0,
	NVME_RESV_LOG_REG_PREEMPTED = 1,
	NVME_RESV_LOG_RESV_RELEASED = 2,
	NVME_RESV_LOG_RESV_PREEMPTED = 3,
};
struct nvme_resv_log {
	uint64_t count;         /* log page count: never 0 once anything was logged */
	uint8_t type;
	uint8_t nalp;           /* available log pages after this one */
	uint8_t rsvd10[2];
	uint32_t nsid;
	uint8_t rsvd16[48];
};
_Static_assert(sizeof(struct nvme_resv_log) == 64, "resv log");
_Static_assert(offsetof(struct nvme_resv_log, nsid) == 12, "resv log nsid");

/* Asynchronous event: I/O command set specific, "reservation log page available". */
#define NVME_AER_INFO_RESV_LOG 0x00

/* Feature 82h (Reservation Notification Mask) CDW11: the notices masked. */
#define NVME_RESV_MASK_REGPRE (1u << 1)
#define NVME_RESV_MASK_RESREL (1u << 2)
#define NVME_RESV_MASK_RESPRE (1u << 3)
#define NVME_RESV_MASK_ALL (NVME_RESV_MASK_REGPRE | NVME_RESV_MASK_RESREL | NVME_RESV_MASK_RESPRE)
/* Feature 83h (Reservation Persistence) CDW11 / DW0 bit 0: PTPL. */
#define NVME_RESV_PTPL 1u

/* Identify Namespace RESCAP. */
#define NVME_NS_RESCAP_PTPL (1u << 0)
#define NVME_NS_RESCAP_TYPES (0x3Fu << 1) /* the six types, bits 6:1 */
#define NVME_NS_RESCAP_IEKEY (1u << 7)

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Log pages (identifiers, error log entry, SMART / health log with its
 * 128-bit counters, changed namespace list, commands supported and effects,
 * asymmetric namespace access),
 * feature identifiers, and asynchronous event encoding.
 * Part of the NVMe wire definitions: protocol/nvme.h includes this file, so
 * code normally includes protocol/nvme.h. Same rules as there (raw
 * little-endian fields, no bitfields, _Static_assert on layouts).
 */
#ifndef RBLK_PROTOCOL_NVME_LOG_H
#define RBLK_PROTOCOL_NVME_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/le.h"
#include "protocol/nvme_id.h"

/* ------------------------------------------------------------------------ */
/* Log pages.                                                                */

enum {
	NVME_LOG_SUPPORTED = 0x00,
	NVME_LOG_ERROR = 0x01,
	NVME_LOG_SMART = 0x02,
	NVME_LOG_FW_SLOT = 0x03,
	NVME_LOG_CHANGED_NS = 0x04,
	NVME_LOG_CMD_EFFECTS = 0x05,
	NVME_LOG_DEVICE_SELF_TEST = 0x06,
	NVME_LOG_TELEMETRY_HOST = 0x07,
	NVME_LOG_TELEMETRY_CTRL = 0x08,
	NVME_LOG_ENDURANCE_GROUP = 0x09,
	NVME_LOG_ANA = 0x0C,
	NVME_LOG_PERSISTENT_EVENT = 0x0D,
	NVME_LOG_DISC = 0x70,
	NVME_LOG_RESERVATION = 0x80,
	NVME_LOG_SANITIZE = 0x81,
};

/* Error Information log entry (LID 01h), 64 bytes. */
struct nvme_error_log_entry {
	uint64_t error_count; /* 0 = entry unused */
	uint16_t sqid;
	uint16_t cmdid;
	uint16_t status_field; /* wire format: status << 1 | phase */
	uint16_t parm_error_location; /* byte (7:0) and bit (10:8) in the SQE; 0xFFFF none */
	uint64_t lba;
	uint32_t nsid;
	uint8_t vs;
	uint8_t trtype;
	uint8_t rsvd30[2];
	uint64_t cs;
	uint16_t trtype_spec_info;
	uint8_t rsvd42[21];
	uint8_t lpv;
};
_Static_assert(sizeof(struct nvme_error_log_entry) == 64, "error log entry size");
_Static_assert(offsetof(struct nvme_error_log_entry, sqid) == 8, "err sqid");
_Static_assert(offsetof(struct nvme_error_log_entry, parm_error_location) == 14, "err loc");
_Static_assert(offsetof(struct nvme_error_log_entry, lba) == 16, "err lba");
_Static_assert(offsetof(struct nvme_error_log_entry, nsid) == 24, "err nsid");
_Static_assert(offsetof(struct nvme_error_log_entry, trtype) == 29, "err trtype");
_Static_assert(offsetof(struct nvme_error_log_entry, cs) == 32, "err cs");
_Static_assert(offsetof(struct nvme_error_log_entry, trtype_spec_info) == 40, "err tsi");

/* SMART / Health Information log (LID 02h), 512 bytes. */
struct nvme_smart_log {
	uint8_t critical_warning;
	uint8_t temperature[2]; /* Kelvin, unaligned */
	uint8_t avail_spare;
	uint8_t spare_thresh;
	uint8_t percent_used;
	uint8_t endu_grp_crit_warn_sumry;
	uint8_t rsvd7[25];
	uint8_t data_units_read[16]; /* 1000 x 512-byte units, 128-bit LE */
	uint8_t data_units_written[16];
	uint8_t host_reads[16];
	uint8_t host_writes[16];
	uint8_t ctrl_busy_time[16];
	uint8_t power_cycles[16];
	uint8_t power_on_hours[16];
	uint8_t unsafe_shutdowns[16];
	uint8_t media_errors[16];
	uint8_t num_err_log_entries[16];
	uint32_t warning_temp_time;
	uint32_t critical_comp_time;
	uint16_t temp_sensor[8];
	uint32_t thm_temp1_trans_count;
	uint32_t thm_temp2_trans_count;
	uint32_t thm_temp1_total_time;
	uint32_t thm_temp2_total_time;
	uint8_t rsvd232[280];
};
_Static_assert(sizeof(struct nvme_smart_log) == 512, "smart log size");
_Static_assert(offsetof(struct nvme_smart_log, data_units_read) == 32, "smart dur");
_Static_assert(offsetof(struct nvme_smart_log, host_reads) == 64, "smart host reads");
_Static_assert(offsetof(struct nvme_smart_log, power_on_hours) == 128, "smart poh");
_Static_assert(offsetof(struct nvme_smart_log, num_err_log_entries) == 176, "smart nerr");
_Static_assert(offsetof(struct nvme_smart_log, warning_temp_time) == 192, "smart wtt");
_Static_assert(offsetof(struct nvme_smart_log, temp_sensor) == 200, "smart ts");
_Static_assert(offsetof(struct nvme_smart_log, thm_temp1_trans_count) == 216, "smart tmt");

/* 128-bit little-endian counters of the SMART log. */
static inline void nvme_u128_add(uint8_t c[16], uint64_t v)
{
	unsigned carry = 0;

	for (int i = 0; i < 16; i++) {
		unsigned s = c[i] + (unsigned)(v & 0xFF) + carry;

		c[i] = (uint8_t)s;
		carry = s >> 8;
		v >>= 8;
	}
}

/* The counter as a uint64_t, saturated at UINT64_MAX when it does not fit. */
static inline uint64_t nvme_u128_get64(const uint8_t c[16])
{
	for (int i = 8; i < 16; i++)
		if (c[i])
			return UINT64_MAX;
	return rblk_get_le64(c);
}

static inline void nvme_u128_set64(uint8_t c[16], uint64_t v)
{
	rblk_put_le64(c, v);
	rblk_put_le64(c + 8, 0);
}

/* Changed Namespace List (LID 04h): up to 1024 NSIDs; nsid[0] = 0xFFFFFFFF on overflow. */
#define NVME_CHANGED_NS_MAX 1024
struct nvme_changed_ns_list {
	uint32_t nsid[NVME_CHANGED_NS_MAX];
};
_Static_assert(sizeof(struct nvme_changed_ns_list) == 4096, "changed ns list size");

/* Commands Supported and Effects (LID 05h). */
struct nvme_effects_log {
	uint32_t acs[256];
	uint32_t iocs[256];
	uint8_t rsvd[2048];
};
_Static_assert(sizeof(struct nvme_effects_log) == 4096, "effects log size");
_Static_assert(offsetof(struct nvme_effects_log, iocs) == 1024, "effects iocs");

#define NVME_CMD_EFFECTS_CSUPP (1u << 0)
#define NVME_CMD_EFFECTS_LBCC (1u << 1)
#define NVME_CMD_EFFECTS_NCC (1u << 2)
#define NVME_CMD_EFFECTS_NIC (1u << 3)
#define NVME_CMD_EFFECTS_CCC (1u << 4)
#define NVME_CMD_EFFECTS_CSE_SHIFT 16
#define NVME_CMD_EFFECTS_CSE_MASK (7u << 16)
#define NVME_CMD_EFFECTS_UUID_SEL (1u << 19)

/*
 * Asymmetric Namespace Access log (LID 0Ch): a header, then one group
 * descriptor per ANA group, each followed by its NSIDs (ascending), unless
 * the host set RGO (LSP bit 0: return groups only), then no NSIDs at all.
 */
#define NVME_ANA_LOG_RGO 0x01

enum nvme_ana_state {
	NVME_ANA_OPTIMIZED = 0x01,
	NVME_ANA_NONOPTIMIZED = 0x02,
	NVME_ANA_INACCESSIBLE = 0x03,
	NVME_ANA_PERSISTENT_LOSS = 0x04,
	NVME_ANA_CHANGE = 0x0F,
};

struct nvme_ana_log_hdr {
	uint64_t chgcnt;
	uint16_t ngrps;
	uint8_t rsvd10[6];
};
_Static_assert(sizeof(struct nvme_ana_log_hdr) == 16, "ana log header size");
_Static_assert(offsetof(struct nvme_ana_log_hdr, ngrps) == 8, "ana ngrps");

/* One group descriptor; nnsids 32-bit NSIDs follow it. */
struct nvme_ana_group_desc {
	uint32_t grpid;
	uint32_t nnsids;
	uint64_t chgcnt;
	uint8_t state;   /* enum nvme_ana_state in bits 3:0 */
	uint8_t rsvd17[15];
};
_Static_assert(sizeof(struct nvme_ana_group_desc) == 32, "ana group descriptor size");
_Static_assert(offsetof(struct nvme_ana_group_desc, nnsids) == 4, "ana nnsids");
_Static_assert(offsetof(struct nvme_ana_group_desc, chgcnt) == 8, "ana desc chgcnt");
_Static_assert(offsetof(struct nvme_ana_group_desc, state) == 16, "ana desc state");

/* ------------------------------------------------------------------------ */
/* Features.                                                                 */

enum {
	NVME_FEAT_ARBITRATION = 0x01,
	NVME_FEAT_POWER_MGMT = 0x02,
	NVME_FEAT_LBA_RANGE = 0x03,
	NVME_FEAT_TEMP_THRESH = 0x04,
	NVME_FEAT_ERR_RECOVERY = 0x05,
	NVME_FEAT_VOLATILE_WC = 0x06,
	NVME_FEAT_NUM_QUEUES = 0x07,
	NVME_FEAT_IRQ_COALESCE = 0x08,
	NVME_FEAT_IRQ_CONFIG = 0x09,
	NVME_FEAT_WRITE_ATOMIC = 0x0A,
	NVME_FEAT_ASYNC_EVENT = 0x0B,
	NVME_FEAT_AUTO_PST = 0x0C,
	NVME_FEAT_HOST_MEM_BUF = 0x0D,
	NVME_FEAT_TIMESTAMP = 0x0E,
	NVME_FEAT_KATO = 0x0F, /* milliseconds */
	NVME_FEAT_HCTM = 0x10,
	NVME_FEAT_NOPSC = 0x11,
	NVME_FEAT_RRL = 0x12,
	NVME_FEAT_PLM_CONFIG = 0x13,
	NVME_FEAT_PLM_WINDOW = 0x14,
	NVME_FEAT_HOST_BEHAVIOR = 0x16,
	NVME_FEAT_SANITIZE = 0x17,
	NVME_FEAT_SW_PROGRESS = 0x80,
	NVME_FEAT_HOST_ID = 0x81,
	NVME_FEAT_RESV_MASK = 0x82,
	NVME_FEAT_RESV_PERSIST = 0x83,
	NVME_FEAT_WRITE_PROTECT = 0x84,
};

/* Number of Queues: NSQR/NCQR (0-based) in CDW11 and NSQA/NCQA in DW0. */
static inline uint32_t nvme_num_queues_dw(uint16_t nsq_0based, uint16_t ncq_0based)
{
	return (uint32_t)nsq_0based | ((uint32_t)ncq_0based << 16);
}

/* ------------------------------------------------------------------------ */
/* Asynchronous events: completion DW0 = type | info << 8 | log page << 16.  */

enum {
	NVME_AER_TYPE_ERROR = 0,
	NVME_AER_TYPE_SMART = 1,
	NVME_AER_TYPE_NOTICE = 2,
	NVME_AER_TYPE_IMMEDIATE = 3,
	NVME_AER_TYPE_IO_CMD_SET = 6,
	NVME_AER_TYPE_VS = 7,
};

enum {
	NVME_AER_NOTICE_NS_CHANGED = 0x00,
	NVME_AER_NOTICE_FW_ACT_STARTING = 0x01,
	NVME_AER_NOTICE_TELEMETRY = 0x02,
	NVME_AER_NOTICE_ANA = 0x03,
	NVME_AER_NOTICE_PLM = 0x04,
	NVME_AER_NOTICE_LBA_STATUS = 0x05,
	NVME_AER_NOTICE_EG = 0x06,
	NVME_AER_NOTICE_DISC_CHANGED = 0xF0,
};

static inline uint32_t nvme_aen_dw0(uint8_t type, uint8_t info, uint8_t lid)
{
	return (uint32_t)(type & 0x7) | ((uint32_t)info << 8) | ((uint32_t)lid << 16);
}

#define NVME_AEN_DW0_TYPE(dw0) ((dw0) & 0x7)
#define NVME_AEN_DW0_INFO(dw0) (((dw0) >> 8) & 0xFF)
#define NVME_AEN_DW0_LID(dw0) (((dw0) >> 16) & 0xFF)

/* Async Event Configuration (feature 0Bh) bits that enable notices. */
#define NVME_AEN_CFG_NS_ATTR NVME_CTRL_OAES_NS_ATTR
#define NVME_AEN_CFG_FW_ACT NVME_CTRL_OAES_FW_ACT
#define NVME_AEN_CFG_ANA_CHANGE NVME_CTRL_OAES_ANA_CHANGE
#define NVME_AEN_CFG_DISC_CHANGE NVME_CTRL_OAES_DISC_CHANGE

#endif

/* SPDX-License-Identifier: MIT */
/*
 * NVMe base wire formats (NVMe Base Specification 1.4 / 2.0 and the NVM
 * Command Set): submission and completion queue entries, SGL descriptors,
 * command-specific SQE views, Identify / log page data structures, opcodes,
 * CNS / log / feature identifiers, controller register (property) layouts,
 * asynchronous event encoding and status codes.
 *
 * Rules for everything in this header:
 *  - Every multi-byte field is raw little-endian storage; read and write it
 *    with rblk_le16()/rblk_cpu_to_le16() & co. from protocol/le.h.
 *  - No bitfields; bit positions are constants/helpers next to the field.
 *  - Size and key offsets of every struct are pinned with _Static_assert.
 *  - Status codes are kernel-style 15-bit values (SC bits 7:0, SCT bits 10:8,
 *    CRD 12:11, More 13, DNR 14). The wire STATUS field is that value << 1
 *    (bit 0 is the phase tag, always 0 on fabrics).
 */
#ifndef RBLK_PROTOCOL_NVME_H
#define RBLK_PROTOCOL_NVME_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/le.h"

/* ------------------------------------------------------------------------ */
/* SGL descriptor (16 bytes). Byte 15: type in bits 7:4, subtype in 3:0.     */

enum {
	NVME_SGL_TYPE_DATA_BLOCK = 0x0,
	NVME_SGL_TYPE_BIT_BUCKET = 0x1,
	NVME_SGL_TYPE_SEGMENT = 0x2,
	NVME_SGL_TYPE_LAST_SEGMENT = 0x3,
	NVME_SGL_TYPE_KEYED_DATA_BLOCK = 0x4,
	NVME_SGL_TYPE_TRANSPORT_DATA_BLOCK = 0x5,
	NVME_SGL_TYPE_VENDOR = 0xF,
};

enum {
	NVME_SGL_SUBTYPE_ADDRESS = 0x0,
	NVME_SGL_SUBTYPE_OFFSET = 0x1,
	NVME_SGL_SUBTYPE_TRANSPORT = 0xA,
	NVME_SGL_SUBTYPE_INVALIDATE = 0xF, /* keyed: target may remotely invalidate the key */
};

/* Full type bytes (type << 4 | subtype) that matter on NVMe/RDMA. */
#define NVME_SGL_DATA 0x00           /* Data Block, address (not valid on RDMA) */
#define NVME_SGL_DATA_OFFSET 0x01    /* Data Block, offset: in-capsule data */
#define NVME_SGL_KEYED_DATA 0x40     /* Keyed Data Block, address */
#define NVME_SGL_KEYED_DATA_INV 0x4F /* Keyed Data Block, address + invalidate */

#define NVME_SGL_TYPE_BYTE(type, sub) ((uint8_t)(((type) << 4) | (sub)))
#define NVME_SGL_KEYED_MAX_LEN 0xFFFFFFu /* 24-bit length field */

/*
 * The two layouts that share the 16 bytes. Keyed: address, 24-bit length at
 * byte 8, 32-bit key at byte 11 (unaligned: use rblk_get_le24/le32). Data
 * block: address (or in-capsule offset), 32-bit length at byte 8.
 */
struct nvme_sgl_desc {
	uint64_t addr;
	union {
		struct {
			uint32_t length;
			uint8_t rsvd[3];
			uint8_t type;
		} data;
		struct {
			uint8_t length[3];
			uint8_t key[4];
			uint8_t type;
		} keyed;
		uint8_t raw[8];
	};
};
_Static_assert(sizeof(struct nvme_sgl_desc) == 16, "sgl desc size");
_Static_assert(offsetof(struct nvme_sgl_desc, data.length) == 8, "sgl data length");
_Static_assert(offsetof(struct nvme_sgl_desc, keyed.length) == 8, "sgl keyed length");
_Static_assert(offsetof(struct nvme_sgl_desc, keyed.key) == 11, "sgl keyed key");
_Static_assert(offsetof(struct nvme_sgl_desc, keyed.type) == 15, "sgl keyed type");
_Static_assert(offsetof(struct nvme_sgl_desc, data.type) == 15, "sgl data type");

static inline uint8_t nvme_sgl_type(const struct nvme_sgl_desc *d)
{
	return d->raw[7];
}

/* ------------------------------------------------------------------------ */
/* Submission queue entry (64 bytes) and its flags byte.                     */

#define NVME_CMD_FUSE_MASK 0x03
#define NVME_CMD_FUSE_FIRST 0x01
#define NVME_CMD_FUSE_SECOND 0x02
#define NVME_CMD_PSDT_MASK 0xC0
#define NVME_CMD_PSDT_PRP 0x00
#define NVME_CMD_PSDT_SGL_MPTR_CONTIG 0x40 /* the only value NVMe-oF allows */
#define NVME_CMD_PSDT_SGL_MPTR_SGL 0x80
#define NVME_CMD_SGL_METABUF NVME_CMD_PSDT_SGL_MPTR_CONTIG

struct nvme_sqe {
	uint8_t opc;
	uint8_t flags;
	uint16_t cid;
	uint32_t nsid;
	uint32_t cdw2;
	uint32_t cdw3;
	uint64_t mptr;
	struct nvme_sgl_desc sgl1;
	uint32_t cdw10;
	uint32_t cdw11;
	uint32_t cdw12;
	uint32_t cdw13;
	uint32_t cdw14;
	uint32_t cdw15;
};
_Static_assert(sizeof(struct nvme_sqe) == 64, "sqe size");
_Static_assert(offsetof(struct nvme_sqe, cid) == 2, "sqe cid");
_Static_assert(offsetof(struct nvme_sqe, nsid) == 4, "sqe nsid");
_Static_assert(offsetof(struct nvme_sqe, mptr) == 16, "sqe mptr");
_Static_assert(offsetof(struct nvme_sqe, sgl1) == 24, "sqe sgl1");
_Static_assert(offsetof(struct nvme_sqe, cdw10) == 40, "sqe cdw10");
_Static_assert(offsetof(struct nvme_sqe, cdw15) == 60, "sqe cdw15");

/* Byte 4 of a fabrics (opcode 0x7F) SQE is FCTYPE, in place of NSID byte 0. */
#define NVME_SQE_FCTYPE_OFFSET 4

/* ------------------------------------------------------------------------ */
/* Completion queue entry (16 bytes).                                        */

struct nvme_cqe {
	uint32_t dw0;
	uint32_t dw1;
	uint16_t sqhd;
	uint16_t sqid;
	uint16_t cid;
	uint16_t status; /* wire format: phase bit 0, then the 15-bit status */
};
_Static_assert(sizeof(struct nvme_cqe) == 16, "cqe size");
_Static_assert(offsetof(struct nvme_cqe, sqhd) == 8, "cqe sqhd");
_Static_assert(offsetof(struct nvme_cqe, cid) == 12, "cqe cid");
_Static_assert(offsetof(struct nvme_cqe, status) == 14, "cqe status");

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
	NVME_SC_RESERVED_17 = 0x017,
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

/* Status of a received CQE (converted from LE and wire form). */
static inline uint16_t nvme_cqe_status(const struct nvme_cqe *cqe)
{
	return nvme_status_from_wire(rblk_le16(cqe->status));
}

/* Fill a CQE for sending: every field converted to little-endian wire form. */
static inline void nvme_cqe_build(struct nvme_cqe *cqe, uint16_t cid, uint16_t status,
				  uint32_t dw0, uint32_t dw1, uint16_t sqhd, uint16_t sqid)
{
	cqe->dw0 = rblk_cpu_to_le32(dw0);
	cqe->dw1 = rblk_cpu_to_le32(dw1);
	cqe->sqhd = rblk_cpu_to_le16(sqhd);
	cqe->sqid = rblk_cpu_to_le16(sqid);
	cqe->cid = cid; /* echoed raw: the CID is opaque to the controller */
	cqe->status = rblk_cpu_to_le16(nvme_status_to_wire(status));
}

/* ------------------------------------------------------------------------ */
/* Opcodes.                                                                  */

enum nvme_admin_opcode {
	NVME_ADMIN_DELETE_SQ = 0x00,
	NVME_ADMIN_CREATE_SQ = 0x01,
	NVME_ADMIN_GET_LOG_PAGE = 0x02,
	NVME_ADMIN_DELETE_CQ = 0x04,
	NVME_ADMIN_CREATE_CQ = 0x05,
	NVME_ADMIN_IDENTIFY = 0x06,
	NVME_ADMIN_ABORT = 0x08,
	NVME_ADMIN_SET_FEATURES = 0x09,
	NVME_ADMIN_GET_FEATURES = 0x0A,
	NVME_ADMIN_ASYNC_EVENT = 0x0C,
	NVME_ADMIN_NS_MGMT = 0x0D,
	NVME_ADMIN_FW_COMMIT = 0x10,
	NVME_ADMIN_FW_DOWNLOAD = 0x11,
	NVME_ADMIN_DEV_SELF_TEST = 0x14,
	NVME_ADMIN_NS_ATTACH = 0x15,
	NVME_ADMIN_KEEP_ALIVE = 0x18,
	NVME_ADMIN_DIRECTIVE_SEND = 0x19,
	NVME_ADMIN_DIRECTIVE_RECV = 0x1A,
	NVME_ADMIN_VIRTUAL_MGMT = 0x1C,
	NVME_ADMIN_NVME_MI_SEND = 0x1D,
	NVME_ADMIN_NVME_MI_RECV = 0x1E,
	NVME_ADMIN_DBBUF = 0x7C,
	NVME_ADMIN_FABRICS = 0x7F,
	NVME_ADMIN_FORMAT_NVM = 0x80,
	NVME_ADMIN_SECURITY_SEND = 0x81,
	NVME_ADMIN_SECURITY_RECV = 0x82,
	NVME_ADMIN_SANITIZE = 0x84,
	NVME_ADMIN_GET_LBA_STATUS = 0x86,
};

enum nvme_io_opcode {
	NVME_IO_FLUSH = 0x00,
	NVME_IO_WRITE = 0x01,
	NVME_IO_READ = 0x02,
	NVME_IO_WRITE_UNCOR = 0x04,
	NVME_IO_COMPARE = 0x05,
	NVME_IO_WRITE_ZEROES = 0x08,
	NVME_IO_DSM = 0x09,
	NVME_IO_VERIFY = 0x0C,
	NVME_IO_RESV_REGISTER = 0x0D,
	NVME_IO_RESV_REPORT = 0x0E,
	NVME_IO_RESV_ACQUIRE = 0x11,
	NVME_IO_RESV_RELEASE = 0x15,
	NVME_IO_COPY = 0x19,
	NVME_IO_ZONE_MGMT_SEND = 0x79,
	NVME_IO_ZONE_MGMT_RECV = 0x7A,
	NVME_IO_ZONE_APPEND = 0x7D,
	NVME_IO_FABRICS = 0x7F, /* Connect on an I/O queue */
};

/* The fabrics command opcode, on any queue. */
#define NVME_FABRICS_COMMAND 0x7F

/*
 * Data direction for non-fabrics commands is encoded in the opcode (bit 0 =
 * host to controller, bit 1 = controller to host). Fabrics commands use FCTYPE
 * bit 0 instead (see nvmf.h).
 */
static inline int nvme_opc_is_write(uint8_t opc)
{
	return opc & 1;
}

static inline int nvme_opc_is_read(uint8_t opc)
{
	return (opc >> 1) & 1;
}

/* ------------------------------------------------------------------------ */
/* Command-specific SQE views (64 bytes each, same header as nvme_sqe).      */

/* Read / Write / Write Zeroes / Compare / Verify. */
struct nvme_rw_cmd {
	uint8_t opc;
	uint8_t flags;
	uint16_t cid;
	uint32_t nsid;
	uint64_t rsvd2; /* CDW2-3: 64-bit PI storage tag, unused */
	uint64_t mptr;
	struct nvme_sgl_desc sgl1;
	uint64_t slba;
	uint16_t nlb; /* 0-based */
	uint16_t control;
	uint32_t dsmgmt;
	uint32_t reftag;
	uint16_t apptag;
	uint16_t appmask;
};
_Static_assert(sizeof(struct nvme_rw_cmd) == 64, "rw cmd size");
_Static_assert(offsetof(struct nvme_rw_cmd, slba) == 40, "rw slba");
_Static_assert(offsetof(struct nvme_rw_cmd, nlb) == 48, "rw nlb");
_Static_assert(offsetof(struct nvme_rw_cmd, control) == 50, "rw control");
_Static_assert(offsetof(struct nvme_rw_cmd, dsmgmt) == 52, "rw dsmgmt");
_Static_assert(offsetof(struct nvme_rw_cmd, appmask) == 62, "rw appmask");

/* CONTROL (CDW12 bits 31:16) */
#define NVME_RW_DEAC 0x0200 /* Write Zeroes: deallocate */
#define NVME_RW_PRINFO_SHIFT 10
#define NVME_RW_PRINFO_MASK 0x3C00
#define NVME_RW_FUA 0x4000
#define NVME_RW_LR 0x8000

struct nvme_identify_cmd {
	uint8_t opc;
	uint8_t flags;
	uint16_t cid;
	uint32_t nsid;
	uint64_t rsvd2;
	uint64_t mptr;
	struct nvme_sgl_desc sgl1;
	uint8_t cns;
	uint8_t rsvd41;
	uint16_t cntid;
	uint16_t cnssid; /* CNS specific identifier (CDW11 15:0) */
	uint8_t rsvd46;
	uint8_t csi;
	uint32_t cdw12;
	uint32_t cdw13;
	uint32_t cdw14; /* bits 6:0 UUID index */
	uint32_t cdw15;
};
_Static_assert(sizeof(struct nvme_identify_cmd) == 64, "identify cmd size");
_Static_assert(offsetof(struct nvme_identify_cmd, cns) == 40, "identify cns");
_Static_assert(offsetof(struct nvme_identify_cmd, cntid) == 42, "identify cntid");
_Static_assert(offsetof(struct nvme_identify_cmd, csi) == 47, "identify csi");

struct nvme_get_log_cmd {
	uint8_t opc;
	uint8_t flags;
	uint16_t cid;
	uint32_t nsid;
	uint64_t rsvd2;
	uint64_t mptr;
	struct nvme_sgl_desc sgl1;
	uint8_t lid;
	uint8_t lsp; /* bits 6:0 LSP, bit 7 RAE */
	uint16_t numdl;
	uint16_t numdu;
	uint16_t lsi;
	uint32_t lpol;
	uint32_t lpou;
	uint8_t uuid_idx; /* bits 6:0 */
	uint8_t rsvd57;
	uint8_t ot; /* bit 7: offset type (index instead of byte offset) */
	uint8_t csi;
	uint32_t cdw15;
};
_Static_assert(sizeof(struct nvme_get_log_cmd) == 64, "get log cmd size");
_Static_assert(offsetof(struct nvme_get_log_cmd, lid) == 40, "get log lid");
_Static_assert(offsetof(struct nvme_get_log_cmd, numdl) == 42, "get log numdl");
_Static_assert(offsetof(struct nvme_get_log_cmd, numdu) == 44, "get log numdu");
_Static_assert(offsetof(struct nvme_get_log_cmd, lpol) == 48, "get log lpol");
_Static_assert(offsetof(struct nvme_get_log_cmd, csi) == 59, "get log csi");

#define NVME_LOG_LSP_MASK 0x7F
#define NVME_LOG_RAE 0x80 /* in lsp: retain asynchronous event */

/* Number of dwords (1-based: up to 2^32, hence 64-bit) and byte offset of a Get Log Page. */
static inline uint64_t nvme_get_log_numd(const struct nvme_get_log_cmd *c)
{
	return (((uint64_t)rblk_le16(c->numdu) << 16) | rblk_le16(c->numdl)) + 1;
}

static inline uint64_t nvme_get_log_lpo(const struct nvme_get_log_cmd *c)
{
	return ((uint64_t)rblk_le32(c->lpou) << 32) | rblk_le32(c->lpol);
}

/* Get Features / Set Features. */
struct nvme_features_cmd {
	uint8_t opc;
	uint8_t flags;
	uint16_t cid;
	uint32_t nsid;
	uint64_t rsvd2;
	uint64_t mptr;
	struct nvme_sgl_desc sgl1;
	uint8_t fid;
	uint8_t sel; /* Get: bits 2:0 SEL */
	uint8_t rsvd42;
	uint8_t sv; /* Set: bit 7 save */
	uint32_t cdw11;
	uint32_t cdw12;
	uint32_t cdw13;
	uint32_t cdw14; /* bits 6:0 UUID index */
	uint32_t cdw15;
};
_Static_assert(sizeof(struct nvme_features_cmd) == 64, "features cmd size");
_Static_assert(offsetof(struct nvme_features_cmd, fid) == 40, "features fid");
_Static_assert(offsetof(struct nvme_features_cmd, sv) == 43, "features sv");
_Static_assert(offsetof(struct nvme_features_cmd, cdw11) == 44, "features cdw11");

#define NVME_FEAT_SEL_MASK 0x07
#define NVME_FEAT_SV 0x80
enum {
	NVME_FEAT_SEL_CURRENT = 0,
	NVME_FEAT_SEL_DEFAULT = 1,
	NVME_FEAT_SEL_SAVED = 2,
	NVME_FEAT_SEL_SUPPORTED = 3,
};

/* Dataset Management. */
struct nvme_dsm_cmd {
	uint8_t opc;
	uint8_t flags;
	uint16_t cid;
	uint32_t nsid;
	uint64_t rsvd2;
	uint64_t mptr;
	struct nvme_sgl_desc sgl1;
	uint32_t nr; /* bits 7:0: number of ranges, 0-based */
	uint32_t attributes;
	uint32_t cdw12;
	uint32_t cdw13;
	uint32_t cdw14;
	uint32_t cdw15;
};
_Static_assert(sizeof(struct nvme_dsm_cmd) == 64, "dsm cmd size");
_Static_assert(offsetof(struct nvme_dsm_cmd, nr) == 40, "dsm nr");
_Static_assert(offsetof(struct nvme_dsm_cmd, attributes) == 44, "dsm attributes");

#define NVME_DSM_NR_MASK 0xFF
#define NVME_DSM_IDR (1u << 0)
#define NVME_DSM_IDW (1u << 1)
#define NVME_DSM_AD (1u << 2) /* deallocate */
#define NVME_DSM_MAX_RANGES 256

struct nvme_dsm_range {
	uint32_t cattr;
	uint32_t nlb; /* 1-based */
	uint64_t slba;
};
_Static_assert(sizeof(struct nvme_dsm_range) == 16, "dsm range size");
_Static_assert(offsetof(struct nvme_dsm_range, slba) == 8, "dsm range slba");

/* Abort: CDW10 = SQID (15:0) | CID (31:16). */
struct nvme_abort_cmd {
	uint8_t opc;
	uint8_t flags;
	uint16_t cid;
	uint32_t rsvd1[9];
	uint16_t sqid;
	uint16_t abort_cid;
	uint32_t rsvd11[5];
};
_Static_assert(sizeof(struct nvme_abort_cmd) == 64, "abort cmd size");
_Static_assert(offsetof(struct nvme_abort_cmd, sqid) == 40, "abort sqid");

/* ------------------------------------------------------------------------ */
/* Identify.                                                                 */

enum {
	NVME_ID_CNS_NS = 0x00,
	NVME_ID_CNS_CTRL = 0x01,
	NVME_ID_CNS_NS_ACTIVE_LIST = 0x02,
	NVME_ID_CNS_NS_DESC_LIST = 0x03,
	NVME_ID_CNS_NVMSET_LIST = 0x04,
	NVME_ID_CNS_CS_NS = 0x05,
	NVME_ID_CNS_CS_CTRL = 0x06,
	NVME_ID_CNS_NS_ACTIVE_LIST_CS = 0x07,
	NVME_ID_CNS_NS_CS_INDEP = 0x08,
	NVME_ID_CNS_NS_PRESENT_LIST = 0x10,
	NVME_ID_CNS_NS_PRESENT = 0x11,
	NVME_ID_CNS_CTRL_NS_LIST = 0x12,
	NVME_ID_CNS_CTRL_LIST = 0x13,
	NVME_ID_CNS_PRIMARY_CTRL_CAPS = 0x14,
	NVME_ID_CNS_SEC_CTRL_LIST = 0x15,
	NVME_ID_CNS_NS_GRANULARITY = 0x16,
	NVME_ID_CNS_UUID_LIST = 0x17,
	NVME_ID_CNS_CSI_CTRL = 0x1C,
};

/* Command set identifiers (CSI). */
enum {
	NVME_CSI_NVM = 0x00,
	NVME_CSI_KV = 0x01,
	NVME_CSI_ZNS = 0x02,
};

#define NVME_IDENTIFY_DATA_SIZE 4096
#define NVME_ID_NS_LIST_MAX 1024 /* u32 NSIDs in a CNS 02h buffer */

struct nvme_id_power_state {
	uint16_t max_power; /* centiwatts */
	uint8_t rsvd2;
	uint8_t flags;
	uint32_t entry_lat; /* microseconds */
	uint32_t exit_lat;
	uint8_t read_tput;
	uint8_t read_lat;
	uint8_t write_tput;
	uint8_t write_lat;
	uint16_t idle_power;
	uint8_t idle_scale;
	uint8_t rsvd19;
	uint16_t active_power;
	uint8_t active_work_scale;
	uint8_t rsvd23[9];
};
_Static_assert(sizeof(struct nvme_id_power_state) == 32, "psd size");

/* Identify Controller (CNS 01h), 4096 bytes. */
struct nvme_id_ctrl {
	uint16_t vid;
	uint16_t ssvid;
	char sn[20];
	char mn[40];
	char fr[8];
	uint8_t rab;
	uint8_t ieee[3];
	uint8_t cmic;
	uint8_t mdts;
	uint16_t cntlid;
	uint32_t ver;
	uint32_t rtd3r;
	uint32_t rtd3e;
	uint32_t oaes;
	uint32_t ctratt;
	uint16_t rrls;
	uint8_t rsvd102[9];
	uint8_t cntrltype;
	uint8_t fguid[16];
	uint16_t crdt1;
	uint16_t crdt2;
	uint16_t crdt3;
	uint8_t rsvd134[119];
	uint8_t nvmsr;
	uint8_t vwci;
	uint8_t mec;
	uint16_t oacs;
	uint8_t acl;
	uint8_t aerl;
	uint8_t frmw;
	uint8_t lpa;
	uint8_t elpe;
	uint8_t npss;
	uint8_t avscc;
	uint8_t apsta;
	uint16_t wctemp;
	uint16_t cctemp;
	uint16_t mtfa;
	uint32_t hmpre;
	uint32_t hmmin;
	uint8_t tnvmcap[16];
	uint8_t unvmcap[16];
	uint32_t rpmbs;
	uint16_t edstt;
	uint8_t dsto;
	uint8_t fwug;
	uint16_t kas; /* 100 ms units; must be non-zero for fabrics I/O controllers */
	uint16_t hctma;
	uint16_t mntmt;
	uint16_t mxtmt;
	uint32_t sanicap;
	uint32_t hmminds;
	uint16_t hmmaxd;
	uint16_t nsetidmax;
	uint16_t endgidmax;
	uint8_t anatt;
	uint8_t anacap;
	uint32_t anagrpmax;
	uint32_t nanagrpid;
	uint32_t pels;
	uint16_t domainid;
	uint8_t rsvd358[10];
	uint8_t megcap[16];
	uint8_t rsvd384[128];
	uint8_t sqes;
	uint8_t cqes;
	uint16_t maxcmd;
	uint32_t nn;
	uint16_t oncs;
	uint16_t fuses;
	uint8_t fna;
	uint8_t vwc;
	uint16_t awun;
	uint16_t awupf;
	uint8_t icsvscc;
	uint8_t nwpc;
	uint16_t acwu;
	uint16_t ocfs;
	uint32_t sgls;
	uint32_t mnan;
	uint8_t maxdna[16];
	uint32_t maxcna;
	uint8_t rsvd564[204];
	char subnqn[256];
	uint8_t rsvd1024[768];
	/* NVMe over Fabrics attributes (1792..2047) */
	uint32_t ioccsz; /* 16-byte units, >= 4 */
	uint32_t iorcsz; /* 16-byte units, must be 1 */
	uint16_t icdoff; /* must be 0 for the Linux host */
	uint8_t fcatt;
	uint8_t msdbd;
	uint16_t ofcs;
	uint8_t dctype;
	uint8_t rsvd1807[241];
	struct nvme_id_power_state psd[32];
	uint8_t vs[1024];
};
_Static_assert(sizeof(struct nvme_id_ctrl) == 4096, "id ctrl size");
_Static_assert(offsetof(struct nvme_id_ctrl, sn) == 4, "id ctrl sn");
_Static_assert(offsetof(struct nvme_id_ctrl, mn) == 24, "id ctrl mn");
_Static_assert(offsetof(struct nvme_id_ctrl, fr) == 64, "id ctrl fr");
_Static_assert(offsetof(struct nvme_id_ctrl, cmic) == 76, "id ctrl cmic");
_Static_assert(offsetof(struct nvme_id_ctrl, mdts) == 77, "id ctrl mdts");
_Static_assert(offsetof(struct nvme_id_ctrl, cntlid) == 78, "id ctrl cntlid");
_Static_assert(offsetof(struct nvme_id_ctrl, ver) == 80, "id ctrl ver");
_Static_assert(offsetof(struct nvme_id_ctrl, rtd3e) == 88, "id ctrl rtd3e");
_Static_assert(offsetof(struct nvme_id_ctrl, oaes) == 92, "id ctrl oaes");
_Static_assert(offsetof(struct nvme_id_ctrl, ctratt) == 96, "id ctrl ctratt");
_Static_assert(offsetof(struct nvme_id_ctrl, cntrltype) == 111, "id ctrl cntrltype");
_Static_assert(offsetof(struct nvme_id_ctrl, crdt1) == 128, "id ctrl crdt1");
_Static_assert(offsetof(struct nvme_id_ctrl, mec) == 255, "id ctrl mec");
_Static_assert(offsetof(struct nvme_id_ctrl, oacs) == 256, "id ctrl oacs");
_Static_assert(offsetof(struct nvme_id_ctrl, lpa) == 261, "id ctrl lpa");
_Static_assert(offsetof(struct nvme_id_ctrl, apsta) == 265, "id ctrl apsta");
_Static_assert(offsetof(struct nvme_id_ctrl, tnvmcap) == 280, "id ctrl tnvmcap");
_Static_assert(offsetof(struct nvme_id_ctrl, kas) == 320, "id ctrl kas");
_Static_assert(offsetof(struct nvme_id_ctrl, anatt) == 342, "id ctrl anatt");
_Static_assert(offsetof(struct nvme_id_ctrl, anagrpmax) == 344, "id ctrl anagrpmax");
_Static_assert(offsetof(struct nvme_id_ctrl, pels) == 352, "id ctrl pels");
_Static_assert(offsetof(struct nvme_id_ctrl, megcap) == 368, "id ctrl megcap");
_Static_assert(offsetof(struct nvme_id_ctrl, sqes) == 512, "id ctrl sqes");
_Static_assert(offsetof(struct nvme_id_ctrl, maxcmd) == 514, "id ctrl maxcmd");
_Static_assert(offsetof(struct nvme_id_ctrl, nn) == 516, "id ctrl nn");
_Static_assert(offsetof(struct nvme_id_ctrl, oncs) == 520, "id ctrl oncs");
_Static_assert(offsetof(struct nvme_id_ctrl, vwc) == 525, "id ctrl vwc");
_Static_assert(offsetof(struct nvme_id_ctrl, awupf) == 528, "id ctrl awupf");
_Static_assert(offsetof(struct nvme_id_ctrl, sgls) == 536, "id ctrl sgls");
_Static_assert(offsetof(struct nvme_id_ctrl, mnan) == 540, "id ctrl mnan");
_Static_assert(offsetof(struct nvme_id_ctrl, maxcna) == 560, "id ctrl maxcna");
_Static_assert(offsetof(struct nvme_id_ctrl, subnqn) == 768, "id ctrl subnqn");
_Static_assert(offsetof(struct nvme_id_ctrl, ioccsz) == 1792, "id ctrl ioccsz");
_Static_assert(offsetof(struct nvme_id_ctrl, iorcsz) == 1796, "id ctrl iorcsz");
_Static_assert(offsetof(struct nvme_id_ctrl, icdoff) == 1800, "id ctrl icdoff");
_Static_assert(offsetof(struct nvme_id_ctrl, fcatt) == 1802, "id ctrl fcatt");
_Static_assert(offsetof(struct nvme_id_ctrl, msdbd) == 1803, "id ctrl msdbd");
_Static_assert(offsetof(struct nvme_id_ctrl, ofcs) == 1804, "id ctrl ofcs");
_Static_assert(offsetof(struct nvme_id_ctrl, dctype) == 1806, "id ctrl dctype");
_Static_assert(offsetof(struct nvme_id_ctrl, psd) == 2048, "id ctrl psd");
_Static_assert(offsetof(struct nvme_id_ctrl, vs) == 3072, "id ctrl vs");

/* CMIC */
#define NVME_CTRL_CMIC_MULTI_PORT (1u << 0)
#define NVME_CTRL_CMIC_MULTI_CTRL (1u << 1)
#define NVME_CTRL_CMIC_SRIOV (1u << 2)
#define NVME_CTRL_CMIC_ANA (1u << 3)
/* OAES */
#define NVME_CTRL_OAES_NS_ATTR (1u << 8)
#define NVME_CTRL_OAES_FW_ACT (1u << 9)
#define NVME_CTRL_OAES_ANA_CHANGE (1u << 11)
#define NVME_CTRL_OAES_DISC_CHANGE (1u << 31)
/* CTRATT */
#define NVME_CTRL_CTRATT_128_ID (1u << 0)
#define NVME_CTRL_CTRATT_NON_OP_PSP (1u << 1)
#define NVME_CTRL_CTRATT_TBKAS (1u << 6)
#define NVME_CTRL_CTRATT_ELBAS (1u << 15)
/* CNTRLTYPE */
enum {
	NVME_CTRL_TYPE_UNSPECIFIED = 0,
	NVME_CTRL_TYPE_IO = 1,
	NVME_CTRL_TYPE_DISCOVERY = 2,
	NVME_CTRL_TYPE_ADMIN = 3,
};
/* OACS */
#define NVME_CTRL_OACS_SECURITY (1u << 0)
#define NVME_CTRL_OACS_FORMAT (1u << 1)
#define NVME_CTRL_OACS_FW (1u << 2)
#define NVME_CTRL_OACS_NS_MGMT (1u << 3)
#define NVME_CTRL_OACS_DIRECTIVES (1u << 5)
#define NVME_CTRL_OACS_DBBUF (1u << 8)
/* LPA */
#define NVME_CTRL_LPA_SMART_PER_NS (1u << 0)
#define NVME_CTRL_LPA_CMD_EFFECTS (1u << 1)
#define NVME_CTRL_LPA_EXT_DATA (1u << 2)
#define NVME_CTRL_LPA_TELEMETRY (1u << 3)
/* ONCS */
#define NVME_CTRL_ONCS_COMPARE (1u << 0)
#define NVME_CTRL_ONCS_WRITE_UNCOR (1u << 1)
#define NVME_CTRL_ONCS_DSM (1u << 2)
#define NVME_CTRL_ONCS_WRITE_ZEROES (1u << 3)
#define NVME_CTRL_ONCS_SAVE_FEAT (1u << 4)
#define NVME_CTRL_ONCS_RESERVATIONS (1u << 5)
#define NVME_CTRL_ONCS_TIMESTAMP (1u << 6)
#define NVME_CTRL_ONCS_VERIFY (1u << 7)
#define NVME_CTRL_ONCS_COPY (1u << 8)
/* VWC */
#define NVME_CTRL_VWC_PRESENT (1u << 0)
#define NVME_CTRL_VWC_FLUSH_NSID_ALL (3u << 1) /* broadcast flush supported */
/* SQES / CQES: required (3:0) and maximum (7:4) log2 entry sizes */
#define NVME_CTRL_SQES_64 0x66
#define NVME_CTRL_CQES_16 0x44
/* SGLS */
#define NVME_CTRL_SGLS_SUPPORTED (1u << 0)          /* bits 1:0 = 01b, no alignment */
#define NVME_CTRL_SGLS_SUPPORTED_DWORD (2u << 0)    /* bits 1:0 = 10b, dword aligned */
#define NVME_CTRL_SGLS_KEYED (1u << 2)              /* mandatory for RDMA */
#define NVME_CTRL_SGLS_BIT_BUCKET (1u << 16)
#define NVME_CTRL_SGLS_MPTR_BYTE_ALIGNED (1u << 17)
#define NVME_CTRL_SGLS_LARGER_THAN_DATA (1u << 18)
#define NVME_CTRL_SGLS_MPTR_SGL (1u << 19)
#define NVME_CTRL_SGLS_OFFSET (1u << 20)            /* in-capsule data */
#define NVME_CTRL_SGLS_TRANSPORT (1u << 21)

/* LBA format descriptor. */
struct nvme_lbaf {
	uint16_t ms; /* metadata bytes per LBA */
	uint8_t ds;  /* LBA data size, log2 */
	uint8_t rp;  /* relative performance, bits 1:0 */
};
_Static_assert(sizeof(struct nvme_lbaf) == 4, "lbaf size");

/* Identify Namespace (CNS 00h), 4096 bytes. */
struct nvme_id_ns {
	uint64_t nsze;
	uint64_t ncap; /* 0 = namespace absent for the Linux host */
	uint64_t nuse;
	uint8_t nsfeat;
	uint8_t nlbaf; /* 0-based */
	uint8_t flbas;
	uint8_t mc;
	uint8_t dpc;
	uint8_t dps;
	uint8_t nmic;
	uint8_t rescap;
	uint8_t fpi;
	uint8_t dlfeat;
	uint16_t nawun;
	uint16_t nawupf;
	uint16_t nacwu;
	uint16_t nabsn;
	uint16_t nabo;
	uint16_t nabspf;
	uint16_t noiob;
	uint8_t nvmcap[16];
	uint16_t npwg;
	uint16_t npwa;
	uint16_t npdg;
	uint16_t npda;
	uint16_t nows;
	uint16_t mssrl;
	uint32_t mcl;
	uint8_t msrc;
	uint8_t rsvd81;
	uint8_t nulbaf;
	uint8_t rsvd83[9];
	uint32_t anagrpid;
	uint8_t rsvd96[3];
	uint8_t nsattr;
	uint16_t nvmsetid;
	uint16_t endgid;
	uint8_t nguid[16];
	uint8_t eui64[8];
	struct nvme_lbaf lbaf[64];
	uint8_t vs[3712];
};
_Static_assert(sizeof(struct nvme_id_ns) == 4096, "id ns size");
_Static_assert(offsetof(struct nvme_id_ns, nsfeat) == 24, "id ns nsfeat");
_Static_assert(offsetof(struct nvme_id_ns, flbas) == 26, "id ns flbas");
_Static_assert(offsetof(struct nvme_id_ns, nmic) == 30, "id ns nmic");
_Static_assert(offsetof(struct nvme_id_ns, dlfeat) == 33, "id ns dlfeat");
_Static_assert(offsetof(struct nvme_id_ns, noiob) == 46, "id ns noiob");
_Static_assert(offsetof(struct nvme_id_ns, nvmcap) == 48, "id ns nvmcap");
_Static_assert(offsetof(struct nvme_id_ns, npwg) == 64, "id ns npwg");
_Static_assert(offsetof(struct nvme_id_ns, mcl) == 76, "id ns mcl");
_Static_assert(offsetof(struct nvme_id_ns, anagrpid) == 92, "id ns anagrpid");
_Static_assert(offsetof(struct nvme_id_ns, nsattr) == 99, "id ns nsattr");
_Static_assert(offsetof(struct nvme_id_ns, nguid) == 104, "id ns nguid");
_Static_assert(offsetof(struct nvme_id_ns, eui64) == 120, "id ns eui64");
_Static_assert(offsetof(struct nvme_id_ns, lbaf) == 128, "id ns lbaf");
_Static_assert(offsetof(struct nvme_id_ns, vs) == 384, "id ns vs");

#define NVME_NS_FLBAS_LBA_MASK 0x0F
#define NVME_NS_FLBAS_META_EXT 0x10
#define NVME_NS_FLBAS_LBA_UMASK 0x60 /* bits 6:5: upper index bits (nlbaf > 16) */
#define NVME_NS_FLBAS_LBA_USHIFT 1   /* (flbas & UMASK) >> USHIFT gives index bits 5:4 */
#define NVME_NS_NSFEAT_THIN (1u << 0)
#define NVME_NS_NSFEAT_NAWUPF (1u << 1)
#define NVME_NS_NSFEAT_DEALLOC_ERR (1u << 2)
#define NVME_NS_NSFEAT_IO_OPT (1u << 4)
#define NVME_NS_NMIC_SHARED (1u << 0)
#define NVME_NS_NSATTR_WP (1u << 0)
#define NVME_NS_DLFEAT_READ_ZEROES 0x01 /* bits 2:0 = 001b: deallocated reads zeroes */
#define NVME_NS_DLFEAT_WZ_DEAC (1u << 3)

/* The LBA format index in use (FLBAS bits 3:0 plus bits 6:5 as index 5:4). */
static inline unsigned nvme_ns_flbas_index(uint8_t flbas)
{
	return (flbas & NVME_NS_FLBAS_LBA_MASK) |
	       ((flbas & NVME_NS_FLBAS_LBA_UMASK) >> NVME_NS_FLBAS_LBA_USHIFT);
}

/* Namespace Identification Descriptor (CNS 03h): 4-byte header + NIDL bytes. */
struct nvme_ns_id_desc {
	uint8_t nidt;
	uint8_t nidl;
	uint16_t rsvd;
};
_Static_assert(sizeof(struct nvme_ns_id_desc) == 4, "ns id desc size");

enum {
	NVME_NIDT_EUI64 = 0x01,
	NVME_NIDT_NGUID = 0x02,
	NVME_NIDT_UUID = 0x03,
	NVME_NIDT_CSI = 0x04,
};
#define NVME_NIDT_EUI64_LEN 8
#define NVME_NIDT_NGUID_LEN 16
#define NVME_NIDT_UUID_LEN 16
#define NVME_NIDT_CSI_LEN 1

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

/* ------------------------------------------------------------------------ */
/* Controller registers (PCIe BAR0 offsets = NVMe-oF property offsets).      */

enum {
	NVME_REG_CAP = 0x00,   /* 8 bytes */
	NVME_REG_VS = 0x08,
	NVME_REG_INTMS = 0x0C,
	NVME_REG_INTMC = 0x10,
	NVME_REG_CC = 0x14,
	NVME_REG_CSTS = 0x1C,
	NVME_REG_NSSR = 0x20,
	NVME_REG_AQA = 0x24,
	NVME_REG_ASQ = 0x28,   /* 8 bytes */
	NVME_REG_ACQ = 0x30,   /* 8 bytes */
	NVME_REG_CMBLOC = 0x38,
	NVME_REG_CMBSZ = 0x3C,
	NVME_REG_CRTO = 0x68,
};

#define NVME_VS(major, minor, ter) \
	((uint32_t)(((major) << 16) | ((minor) << 8) | (ter)))
#define NVME_VS_MAJOR(vs) ((vs) >> 16)
#define NVME_VS_MINOR(vs) (((vs) >> 8) & 0xFF)
#define NVME_VS_TER(vs) ((vs) & 0xFF)

/* CAP fields. */
#define NVME_CAP_MQES(cap) ((uint16_t)((cap) & 0xFFFF)) /* 0-based */
#define NVME_CAP_CQR(cap) (((cap) >> 16) & 0x1)
#define NVME_CAP_AMS(cap) (((cap) >> 17) & 0x3)
#define NVME_CAP_TO(cap) (((cap) >> 24) & 0xFF) /* 500 ms units */
#define NVME_CAP_DSTRD(cap) (((cap) >> 32) & 0xF)
#define NVME_CAP_NSSRS(cap) (((cap) >> 36) & 0x1)
#define NVME_CAP_CSS(cap) (((cap) >> 37) & 0xFF)
#define NVME_CAP_BPS(cap) (((cap) >> 45) & 0x1)
#define NVME_CAP_MPSMIN(cap) (((cap) >> 48) & 0xF)
#define NVME_CAP_MPSMAX(cap) (((cap) >> 52) & 0xF)
#define NVME_CAP_CMBS(cap) (((cap) >> 57) & 0x1)
#define NVME_CAP_CRMS(cap) (((cap) >> 59) & 0x3)

#define NVME_CAP_CSS_NVM (1u << 0)  /* CAP bit 37 */
#define NVME_CAP_CSS_CSI (1u << 6)  /* CAP bit 43: I/O command sets */
#define NVME_CAP_CSS_NONE (1u << 7) /* CAP bit 44: admin only */

/* Build CAP from its fields (everything else 0: no CRMS, no NSSR, no CMB). */
static inline uint64_t nvme_cap_build(uint16_t mqes, int cqr, uint8_t to, uint8_t css,
				      uint8_t mpsmin, uint8_t mpsmax)
{
	return (uint64_t)mqes | ((uint64_t)(cqr ? 1 : 0) << 16) | ((uint64_t)to << 24) |
	       ((uint64_t)css << 37) | ((uint64_t)(mpsmin & 0xF) << 48) |
	       ((uint64_t)(mpsmax & 0xF) << 52);
}

/* CC fields. */
#define NVME_CC_EN (1u << 0)
#define NVME_CC_CSS_SHIFT 4
#define NVME_CC_CSS_MASK (7u << 4)
#define NVME_CC_CSS_NVM 0u
#define NVME_CC_CSS_CSI 6u
#define NVME_CC_CSS_ADMIN 7u
#define NVME_CC_MPS_SHIFT 7
#define NVME_CC_MPS_MASK (0xFu << 7)
#define NVME_CC_AMS_SHIFT 11
#define NVME_CC_AMS_MASK (7u << 11)
#define NVME_CC_SHN_SHIFT 14
#define NVME_CC_SHN_MASK (3u << 14)
#define NVME_CC_SHN_NONE 0u
#define NVME_CC_SHN_NORMAL 1u
#define NVME_CC_SHN_ABRUPT 2u
#define NVME_CC_IOSQES_SHIFT 16
#define NVME_CC_IOSQES_MASK (0xFu << 16)
#define NVME_CC_IOCQES_SHIFT 20
#define NVME_CC_IOCQES_MASK (0xFu << 20)
#define NVME_CC_CRIME (1u << 24)

#define NVME_CC_CSS(cc) (((cc) & NVME_CC_CSS_MASK) >> NVME_CC_CSS_SHIFT)
#define NVME_CC_MPS(cc) (((cc) & NVME_CC_MPS_MASK) >> NVME_CC_MPS_SHIFT)
#define NVME_CC_AMS(cc) (((cc) & NVME_CC_AMS_MASK) >> NVME_CC_AMS_SHIFT)
#define NVME_CC_SHN(cc) (((cc) & NVME_CC_SHN_MASK) >> NVME_CC_SHN_SHIFT)
#define NVME_CC_IOSQES(cc) (((cc) & NVME_CC_IOSQES_MASK) >> NVME_CC_IOSQES_SHIFT)
#define NVME_CC_IOCQES(cc) (((cc) & NVME_CC_IOCQES_MASK) >> NVME_CC_IOCQES_SHIFT)

#define NVME_SQE_SHIFT 6 /* 64-byte SQE: CC.IOSQES */
#define NVME_CQE_SHIFT 4 /* 16-byte CQE: CC.IOCQES */

/* CSTS fields. */
#define NVME_CSTS_RDY (1u << 0)
#define NVME_CSTS_CFS (1u << 1)
#define NVME_CSTS_SHST_SHIFT 2
#define NVME_CSTS_SHST_MASK (3u << 2)
#define NVME_CSTS_SHST_NORMAL 0u
#define NVME_CSTS_SHST_OCCUR 1u
#define NVME_CSTS_SHST_CMPLT 2u
#define NVME_CSTS_NSSRO (1u << 4)
#define NVME_CSTS_PP (1u << 5)
#define NVME_CSTS_ST (1u << 6)

#define NVME_CSTS_SHST(csts) (((csts) & NVME_CSTS_SHST_MASK) >> NVME_CSTS_SHST_SHIFT)

#endif

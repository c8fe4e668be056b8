/* SPDX-License-Identifier: MIT */
/*
 * NVMe base wire formats (NVMe Base Specification 1.4 / 2.0 and the NVM
 * Command Set). This file: SGL descriptors, submission and completion queue
 * entries, opcodes and command-specific SQE views. It includes the rest, so
 * one include gives everything:
 *   nvme_status.h  status codes and their wire form
 *   nvme_id.h      Identify structures, CNS / CSI, capability bits
 *   nvme_log.h     log pages, features, asynchronous events
 *   nvme_regs.h    controller registers (fabrics properties), CAP/CC/CSTS
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

#include "protocol/nvme_status.h"

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

/*
 * Copy (NVM command set): the source ranges come as data, the destination is
 * SDLBA. CDW12: NR 7:0 (0-based), DESFMT 11:8, PRINFOR 13:12, DTYPE 23:20,
 * PRINFOW 29:26, FUA 30, LR 31.
 */
struct nvme_copy_cmd {
	uint8_t opc;
	uint8_t flags;
	uint16_t cid;
	uint32_t nsid;
	uint64_t rsvd2;
	uint64_t mptr;
	struct nvme_sgl_desc sgl1;
	uint64_t sdlba;
	uint32_t cdw12;
	uint32_t cdw13;
	uint32_t cdw14;
	uint32_t cdw15;
};
_Static_assert(sizeof(struct nvme_copy_cmd) == 64, "copy cmd size");
_Static_assert(offsetof(struct nvme_copy_cmd, sdlba) == 40, "copy sdlba");
_Static_assert(offsetof(struct nvme_copy_cmd, cdw12) == 48, "copy cdw12");

#define NVME_COPY_NR_MASK 0xFFu
#define NVME_COPY_DESFMT_SHIFT 8
#define NVME_COPY_DESFMT_MASK 0xFu
#define NVME_COPY_FUA (1u << 30)

/* Source Range Entry, descriptor format 0 (32 bytes). */
struct nvme_copy_range {
	uint8_t rsvd0[8];
	uint64_t slba;
	uint16_t nlb; /* 0-based */
	uint8_t rsvd18[6];
	uint32_t eilbrt;
	uint16_t elbat;
	uint16_t elbatm;
};
_Static_assert(sizeof(struct nvme_copy_range) == 32, "copy range size");
_Static_assert(offsetof(struct nvme_copy_range, slba) == 8, "copy range slba");
_Static_assert(offsetof(struct nvme_copy_range, nlb) == 16, "copy range nlb");

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

#include "protocol/nvme_id.h"
#include "protocol/nvme_log.h"
#include "protocol/nvme_regs.h"

#endif

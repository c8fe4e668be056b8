/* SPDX-License-Identifier: MIT */
/*
 * NVMe over Fabrics wire formats (NVMe-oF 1.1 / NVMe 2.0 fabrics command
 * set): fabrics command SQE views (Connect, Property Get/Set), Connect data,
 * Connect response fields, the discovery log page header and entry, and the
 * transport / address-family / subtype constants used by discovery.
 *
 * Same rules as protocol/nvme.h: raw little-endian fields, no bitfields,
 * _Static_assert on sizes and key offsets.
 */
#ifndef RBLK_PROTOCOL_NVMF_H
#define RBLK_PROTOCOL_NVMF_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/nvme.h"

#define NVME_DISC_SUBSYS_NAME "nqn.2014-08.org.nvmexpress.discovery"
#define NVMF_NQN_SIZE 223      /* max NQN length in bytes, without the NUL */
#define NVMF_NQN_FIELD_LEN 256 /* NQN fields on the wire: NUL-terminated, NUL-padded */
#define NVMF_TRSVCID_SIZE 32
#define NVMF_TRADDR_SIZE 256
#define NVMF_TSAS_SIZE 256

/* ------------------------------------------------------------------------ */
/* Fabrics command types (SQE byte 4 of opcode 0x7F). Bit 0 = host->ctrl.    */

enum {
	NVMF_FCTYPE_PROP_SET = 0x00,
	NVMF_FCTYPE_CONNECT = 0x01,
	NVMF_FCTYPE_PROP_GET = 0x04,
	NVMF_FCTYPE_AUTH_SEND = 0x05,
	NVMF_FCTYPE_AUTH_RECV = 0x06,
	NVMF_FCTYPE_DISCONNECT = 0x08,
};

static inline int nvmf_fctype_is_write(uint8_t fctype)
{
	return fctype & 1;
}

/* Common header of every fabrics command. */
struct nvmf_common_cmd {
	uint8_t opc; /* 0x7F */
	uint8_t flags;
	uint16_t cid;
	uint8_t fctype;
	uint8_t rsvd5[19];
	struct nvme_sgl_desc sgl1;
	uint8_t ts[24]; /* fctype specific */
};
_Static_assert(sizeof(struct nvmf_common_cmd) == 64, "nvmf common cmd size");
_Static_assert(offsetof(struct nvmf_common_cmd, fctype) == 4, "nvmf fctype");
_Static_assert(offsetof(struct nvmf_common_cmd, sgl1) == 24, "nvmf sgl1");

/* ------------------------------------------------------------------------ */
/* Connect.                                                                  */

#define NVMF_CATTR_DISABLE_SQFLOW (1u << 2)
#define NVMF_CNTLID_DYNAMIC 0xFFFF /* admin Connect: allocate a controller */
#define NVMF_CNTLID_MIN 1
#define NVMF_CNTLID_MAX 0xFFEF
#define NVMF_RECFMT_1_0 0
#define NVMF_CONNECT_DATA_SIZE 1024
#define NVMF_ADMIN_SQSIZE_MAX 31 /* 0-based: the Linux host uses 32 admin entries */

struct nvmf_connect_cmd {
	uint8_t opc;
	uint8_t flags;
	uint16_t cid;
	uint8_t fctype;
	uint8_t rsvd5[19];
	struct nvme_sgl_desc sgl1;
	uint16_t recfmt;
	uint16_t qid;
	uint16_t sqsize; /* 0-based */
	uint8_t cattr;
	uint8_t rsvd47;
	uint32_t kato; /* milliseconds */
	uint8_t rsvd52[12];
};
_Static_assert(sizeof(struct nvmf_connect_cmd) == 64, "connect cmd size");
_Static_assert(offsetof(struct nvmf_connect_cmd, sgl1) == 24, "connect sgl1");
_Static_assert(offsetof(struct nvmf_connect_cmd, recfmt) == 40, "connect recfmt");
_Static_assert(offsetof(struct nvmf_connect_cmd, qid) == 42, "connect qid");
_Static_assert(offsetof(struct nvmf_connect_cmd, sqsize) == 44, "connect sqsize");
_Static_assert(offsetof(struct nvmf_connect_cmd, cattr) == 46, "connect cattr");
_Static_assert(offsetof(struct nvmf_connect_cmd, kato) == 48, "connect kato");

struct nvmf_connect_data {
	uint8_t hostid[16];
	uint16_t cntlid;
	uint8_t rsvd18[238];
	char subnqn[NVMF_NQN_FIELD_LEN];
	char hostnqn[NVMF_NQN_FIELD_LEN];
	uint8_t rsvd768[256];
};
_Static_assert(sizeof(struct nvmf_connect_data) == NVMF_CONNECT_DATA_SIZE, "connect data size");
_Static_assert(offsetof(struct nvmf_connect_data, cntlid) == 16, "connect data cntlid");
_Static_assert(offsetof(struct nvmf_connect_data, subnqn) == 256, "connect data subnqn");
_Static_assert(offsetof(struct nvmf_connect_data, hostnqn) == 512, "connect data hostnqn");

/*
 * Connect response DW0. Success: CNTLID in 15:0, AUTHREQ bits ATR (17) and
 * ASCR (18) as the Linux host and target place them (both 0
 * without authentication). Invalid Parameters: IPO in 15:0, IATTR in 23:16
 * (1 = IPO is an offset into the Connect data, 0 = into the SQE).
 */
#define NVMF_CONNECT_AUTHREQ_ASCR (1u << 18) /* secure channel concatenation (TLS) */
#define NVMF_CONNECT_AUTHREQ_ATR (1u << 17) /* authentication required */
#define NVMF_IATTR_SQE 0
#define NVMF_IATTR_DATA 1

static inline uint32_t nvmf_connect_ipo_dw0(uint8_t iattr, uint16_t ipo)
{
	return (uint32_t)ipo | ((uint32_t)iattr << 16);
}

/* ------------------------------------------------------------------------ */
/* Property Get / Set.                                                       */

/* ATTRIB bits 2:0: property size. */
#define NVMF_PROP_SIZE_MASK 0x07
#define NVMF_PROP_SIZE_4 0
#define NVMF_PROP_SIZE_8 1

struct nvmf_property_set_cmd {
	uint8_t opc;
	uint8_t flags;
	uint16_t cid;
	uint8_t fctype;
	uint8_t rsvd5[19];
	struct nvme_sgl_desc sgl1;
	uint8_t attrib;
	uint8_t rsvd41[3];
	uint32_t ofst;
	uint64_t value;
	uint8_t rsvd56[8];
};
_Static_assert(sizeof(struct nvmf_property_set_cmd) == 64, "prop set size");
_Static_assert(offsetof(struct nvmf_property_set_cmd, attrib) == 40, "prop set attrib");
_Static_assert(offsetof(struct nvmf_property_set_cmd, ofst) == 44, "prop set ofst");
_Static_assert(offsetof(struct nvmf_property_set_cmd, value) == 48, "prop set value");

struct nvmf_property_get_cmd {
	uint8_t opc;
	uint8_t flags;
	uint16_t cid;
	uint8_t fctype;
	uint8_t rsvd5[19];
	struct nvme_sgl_desc sgl1;
	uint8_t attrib;
	uint8_t rsvd41[3];
	uint32_t ofst;
	uint8_t rsvd48[16];
};
_Static_assert(sizeof(struct nvmf_property_get_cmd) == 64, "prop get size");
_Static_assert(offsetof(struct nvmf_property_get_cmd, attrib) == 40, "prop get attrib");
_Static_assert(offsetof(struct nvmf_property_get_cmd, ofst) == 44, "prop get ofst");

/* ------------------------------------------------------------------------ */
/* Discovery log page (LID 70h).                                             */

enum {
	NVMF_TRTYPE_RDMA = 1,
	NVMF_TRTYPE_FC = 2,
	NVMF_TRTYPE_TCP = 3,
	NVMF_TRTYPE_LOOP = 254,
};

enum {
	NVMF_ADRFAM_PCI = 0,
	NVMF_ADRFAM_IPV4 = 1,
	NVMF_ADRFAM_IPV6 = 2,
	NVMF_ADRFAM_IB = 3,
	NVMF_ADRFAM_FC = 4,
	NVMF_ADRFAM_LOOP = 254,
};

enum {
	NVMF_SUBTYPE_DISCOVERY = 1,         /* referral to another discovery subsystem */
	NVMF_SUBTYPE_NVME = 2,              /* NVM subsystem */
	NVMF_SUBTYPE_CURRENT_DISCOVERY = 3, /* the discovery subsystem answering */
};

/* TREQ: bits 1:0 secure channel, bit 2 SQ flow control disable supported. */
#define NVMF_TREQ_NOT_SPECIFIED 0
#define NVMF_TREQ_REQUIRED 1
#define NVMF_TREQ_NOT_REQUIRED 2
#define NVMF_TREQ_SECURE_MASK 3
#define NVMF_TREQ_DISABLE_SQFLOW 4

/* EFLAGS */
#define NVMF_DISC_EFLAGS_DUPRETINFO (1u << 0)
#define NVMF_DISC_EFLAGS_EPCSD (1u << 1)

/* RDMA transport specific address subtype (TSAS). */
enum {
	NVMF_RDMA_QPTYPE_CONNECTED = 1, /* RC */
	NVMF_RDMA_QPTYPE_DATAGRAM = 2,
};
enum {
	NVMF_RDMA_PRTYPE_NOT_SPECIFIED = 1,
	NVMF_RDMA_PRTYPE_IB = 2,
	NVMF_RDMA_PRTYPE_ROCE = 3,
	NVMF_RDMA_PRTYPE_ROCEV2 = 4,
	NVMF_RDMA_PRTYPE_IWARP = 5,
};
enum {
	NVMF_RDMA_CMS_RDMA_CM = 1,
};

#define NVMF_DISC_LOG_HDR_SIZE 1024
#define NVMF_DISC_ENTRY_SIZE 1024
#define NVMF_DISC_ASQSZ 32

struct nvmf_disc_log_hdr {
	uint64_t genctr;
	uint64_t numrec;
	uint16_t recfmt;
	uint8_t rsvd18[1006];
};
_Static_assert(sizeof(struct nvmf_disc_log_hdr) == NVMF_DISC_LOG_HDR_SIZE, "disc hdr size");
_Static_assert(offsetof(struct nvmf_disc_log_hdr, numrec) == 8, "disc hdr numrec");
_Static_assert(offsetof(struct nvmf_disc_log_hdr, recfmt) == 16, "disc hdr recfmt");

struct nvmf_tsas_rdma {
	uint8_t qptype;
	uint8_t prtype;
	uint8_t cms;
	uint8_t rsvd3[5];
	uint16_t pkey;
	uint8_t rsvd10[246];
};
_Static_assert(sizeof(struct nvmf_tsas_rdma) == NVMF_TSAS_SIZE, "tsas rdma size");
_Static_assert(offsetof(struct nvmf_tsas_rdma, pkey) == 8, "tsas rdma pkey");

struct nvmf_disc_log_entry {
	uint8_t trtype;
	uint8_t adrfam;
	uint8_t subtype;
	uint8_t treq;
	uint16_t portid;
	uint16_t cntlid;
	uint16_t asqsz;
	uint16_t eflags;
	uint8_t rsvd12[20];
	char trsvcid[NVMF_TRSVCID_SIZE];
	uint8_t rsvd64[192];
	char subnqn[NVMF_NQN_FIELD_LEN];
	char traddr[NVMF_TRADDR_SIZE];
	union {
		uint8_t common[NVMF_TSAS_SIZE];
		struct nvmf_tsas_rdma rdma;
	} tsas;
};
_Static_assert(sizeof(struct nvmf_disc_log_entry) == NVMF_DISC_ENTRY_SIZE, "disc entry size");
_Static_assert(offsetof(struct nvmf_disc_log_entry, portid) == 4, "disc portid");
_Static_assert(offsetof(struct nvmf_disc_log_entry, cntlid) == 6, "disc cntlid");
_Static_assert(offsetof(struct nvmf_disc_log_entry, asqsz) == 8, "disc asqsz");
_Static_assert(offsetof(struct nvmf_disc_log_entry, eflags) == 10, "disc eflags");
_Static_assert(offsetof(struct nvmf_disc_log_entry, trsvcid) == 32, "disc trsvcid");
_Static_assert(offsetof(struct nvmf_disc_log_entry, subnqn) == 256, "disc subnqn");
_Static_assert(offsetof(struct nvmf_disc_log_entry, traddr) == 512, "disc traddr");
_Static_assert(offsetof(struct nvmf_disc_log_entry, tsas) == 768, "disc tsas");
_Static_assert(offsetof(struct nvmf_disc_log_entry, tsas.rdma.pkey) == 776, "disc pkey");

#endif

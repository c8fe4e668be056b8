/* SPDX-License-Identifier: MIT */
/*
 * Identify data structures (Identify Controller, Identify Namespace, LBA
 * formats, Namespace Identification Descriptors), CNS and CSI values, and the
 * capability bits of Identify Controller.
 * Part of the NVMe wire definitions: protocol/nvme.h includes this file, so
 * code normally includes protocol/nvme.h. Same rules as there (raw
 * little-endian fields, no bitfields, _Static_assert on layouts).
 */
#ifndef RBLK_PROTOCOL_NVME_ID_H
#define RBLK_PROTOCOL_NVME_ID_H

#include <stddef.h>
#include <stdint.h>

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
/* FUSES: fused Compare and Write. */
#define NVME_CTRL_FUSES_COMPARE_WRITE (1u << 0)
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
#define NVME_NS_FEAT_ATOMICS (1u << 1)  /* NSFEAT: NAWUN, NAWUPF, NACWU are valid */
#define NVME_NS_FEAT_IO_OPT (1u << 4)   /* NSFEAT: NPWG, NPWA, NPDG, NPDA, NOWS are valid */
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

#endif

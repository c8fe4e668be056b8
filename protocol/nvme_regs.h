/* SPDX-License-Identifier: MIT */
/*
 * Controller registers, which NVMe over Fabrics exposes as properties:
 * offsets, VS encoding, and the CAP / CC / CSTS field layouts.
 * Part of the NVMe wire definitions: protocol/nvme.h includes this file, so
 * code normally includes protocol/nvme.h. Same rules as there (raw
 * little-endian fields, no bitfields, _Static_assert on layouts).
 */
#ifndef RBLK_PROTOCOL_NVME_REGS_H
#define RBLK_PROTOCOL_NVME_REGS_H

#include <stdint.h>

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

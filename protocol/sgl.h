/* SPDX-License-Identifier: MIT */
/*
 * The data pointer of an NVMe/RDMA command: decoding and validating SGL1 of a
 * received SQE (target side) with the exact rules nvmet-rdma applies
 * (docs/interop.md §4.2), and encoding it (initiator side).
 */
#ifndef RBLK_PROTOCOL_SGL_H
#define RBLK_PROTOCOL_SGL_H

#include <stdbool.h>
#include <stdint.h>

#include "protocol/nvme.h"

enum rblk_sgl_kind {
	RBLK_SGL_NONE,       /* no data (zero-length descriptor) */
	RBLK_SGL_KEYED,      /* host memory (addr, len, key): RDMA READ/WRITE */
	RBLK_SGL_KEYED_INV,  /* same; the response may SEND_WITH_INV this key */
	RBLK_SGL_INCAPSULE,  /* data follows the SQE in the same SEND, at offset */
};

struct rblk_sgl {
	enum rblk_sgl_kind kind;
	uint64_t addr;     /* keyed: remote virtual address */
	uint32_t len;      /* bytes described */
	uint32_t key;      /* keyed: remote key */
	uint32_t offset;   /* in-capsule: offset from the start of in-capsule data */
	uint16_t err_loc;  /* on failure: SQE byte offset of the offending field */
};

struct rblk_sgl_limits {
	uint32_t incapsule_max; /* in-capsule bytes this queue accepts (0: admin queue) */
	uint32_t max_xfer;      /* largest keyed transfer (MDTS in bytes) */
};

/*
 * Decode SGL1 of sqe. host_to_ctrl is the command's data direction (opcode
 * bit 0, or FCTYPE bit 0 for fabrics commands). Returns NVME_SC_SUCCESS and
 * fills out, or an NVMe status with DNR (out->err_loc set):
 *  - FLAGS.PSDT != 01b                            Invalid Field (loc 1)
 *    (FUSE is not looked at: the caller judges fused commands)
 *  - type 0x40 / 0x4F: keyed; len > max_xfer      Data SGL Length Invalid
 *    len 0 is "no data" (RBLK_SGL_NONE)
 *  - type 0x01: in-capsule; only host->ctrl       else Invalid Field
 *    offset + len > incapsule_max                 SGL Offset Invalid
 *  - other Data Block / Keyed subtypes            Invalid Field (loc 24)
 *  - any other descriptor type (segments, ...)    SGL Descriptor Type Invalid
 */
uint16_t rblk_sgl_decode(const struct nvme_sqe *sqe, const struct rblk_sgl_limits *lim,
			 bool host_to_ctrl, struct rblk_sgl *out);

/*
 * Transfer-length rule of nvmet (docs/interop.md §4.3): the SGL must describe exactly
 * data_len bytes, or at least data_len when at_least (DSM, whose Linux host
 * always sends 4096 bytes). Returns NVME_SC_SUCCESS or Data SGL Length
 * Invalid with DNR.
 */
uint16_t rblk_sgl_check_len(const struct rblk_sgl *sgl, uint32_t data_len, bool at_least);

/*
 * Keyed Data Block (0x40, or 0x4F with invalidate). -EINVAL when len does
 * not fit the 24-bit length field (the descriptor is then left zeroed).
 */
int rblk_sgl_encode_keyed(struct nvme_sgl_desc *d, uint64_t addr, uint32_t len, uint32_t rkey,
			  bool invalidate);

/* Data Block with offset (0x01): in-capsule data at offset, len bytes. */
void rblk_sgl_encode_incapsule(struct nvme_sgl_desc *d, uint32_t offset, uint32_t len);

/* The null descriptor for commands without data: keyed, 0 address/len/key. */
void rblk_sgl_encode_null(struct nvme_sgl_desc *d);

#endif

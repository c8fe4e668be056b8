/* SPDX-License-Identifier: MIT */
/*
 * SGL1 decode/encode for NVMe/RDMA. Only what nvmet-rdma accepts is valid:
 * one descriptor (MSDBD = 1), keyed data blocks and in-capsule offset data.
 * The keyed layout has a 24-bit length and a key at the unaligned byte 11,
 * so every access is byte-wise.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "protocol/sgl.h"

#define LOC_FLAGS ((uint16_t)offsetof(struct nvme_sqe, flags))
#define LOC_SGL ((uint16_t)offsetof(struct nvme_sqe, sgl1))

static uint16_t fail(struct rblk_sgl *out, uint16_t status, uint16_t loc)
{
	out->err_loc = loc;
	return status | NVME_SC_DNR;
}

static uint16_t decode_keyed(const struct nvme_sgl_desc *d, const struct rblk_sgl_limits *lim,
			     bool invalidate, struct rblk_sgl *out)
{
	uint32_t len = rblk_get_le24(d->keyed.length);

	if (len == 0)
		return NVME_SC_SUCCESS; /* the null descriptor: no data */
	if (len > lim->max_xfer)
		return fail(out, NVME_SC_SGL_INVALID_DATA, LOC_SGL);
	out->kind = invalidate ? RBLK_SGL_KEYED_INV : RBLK_SGL_KEYED;
	out->addr = rblk_le64(d->addr);
	out->len = len;
	out->key = rblk_get_le32(d->keyed.key);
	return NVME_SC_SUCCESS;
}

static uint16_t decode_incapsule(const struct nvme_sgl_desc *d, const struct rblk_sgl_limits *lim,
				 bool host_to_ctrl, struct rblk_sgl *out)
{
	uint64_t off = rblk_le64(d->addr);
	uint32_t len = rblk_get_le32(&d->data.length);

	/* In-capsule data can only travel with the command, i.e. host to ctrl. */
	if (!host_to_ctrl)
		return fail(out, NVME_SC_INVALID_FIELD, LOC_SGL);
	if (off > lim->incapsule_max || len > lim->incapsule_max - off)
		return fail(out, NVME_SC_SGL_INVALID_OFFSET, LOC_SGL);
	if (len == 0)
		return NVME_SC_SUCCESS;
	out->kind = RBLK_SGL_INCAPSULE;
	out->offset = (uint32_t)off;
	out->len = len;
	return NVME_SC_SUCCESS;
}

uint16_t rblk_sgl_decode(const struct nvme_sqe *sqe, const struct rblk_sgl_limits *lim,
			 bool host_to_ctrl, struct rblk_sgl *out)
{
	const struct nvme_sgl_desc *d = &sqe->sgl1;
	uint8_t type = nvme_sgl_type(d);

	memset(out, 0, sizeof(*out));
	out->kind = RBLK_SGL_NONE;
	out->err_loc = 0xFFFF;

	/*
	 * PSDT only: FUSE is the core's (target/req.c refuses it where it is
	 * wrong, target/fused.c pairs the halves of a Compare and Write).
	 */
	if ((sqe->flags & NVME_CMD_PSDT_MASK) != NVME_CMD_PSDT_SGL_MPTR_CONTIG)
		return fail(out, NVME_SC_INVALID_FIELD, LOC_FLAGS);

	switch (type >> 4) {
	case NVME_SGL_TYPE_DATA_BLOCK:
		if ((type & 0xF) == NVME_SGL_SUBTYPE_OFFSET)
			return decode_incapsule(d, lim, host_to_ctrl, out);
		return fail(out, NVME_SC_INVALID_FIELD, LOC_SGL);
	case NVME_SGL_TYPE_KEYED_DATA_BLOCK:
		if ((type & 0xF) == NVME_SGL_SUBTYPE_ADDRESS)
			return decode_keyed(d, lim, false, out);
		if ((type & 0xF) == NVME_SGL_SUBTYPE_INVALIDATE)
			return decode_keyed(d, lim, true, out);
		return fail(out, NVME_SC_INVALID_FIELD, LOC_SGL);
	default:
		return fail(out, NVME_SC_SGL_INVALID_TYPE, LOC_SGL);
	}
}

uint16_t rblk_sgl_check_len(const struct rblk_sgl *sgl, uint32_t data_len, bool at_least)
{
	if (sgl->len == data_len || (at_least && sgl->len > data_len))
		return NVME_SC_SUCCESS;
	return NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR;
}

int rblk_sgl_encode_keyed(struct nvme_sgl_desc *d, uint64_t addr, uint32_t len, uint32_t rkey,
			  bool invalidate)
{
	memset(d, 0, sizeof(*d));
	if (len > NVME_SGL_KEYED_MAX_LEN)
		return -EINVAL;
	d->addr = rblk_cpu_to_le64(addr);
	rblk_put_le24(d->keyed.length, len);
	rblk_put_le32(d->keyed.key, rkey);
	d->keyed.type = invalidate ? NVME_SGL_KEYED_DATA_INV : NVME_SGL_KEYED_DATA;
	return 0;
}

void rblk_sgl_encode_incapsule(struct nvme_sgl_desc *d, uint32_t offset, uint32_t len)
{
	memset(d, 0, sizeof(*d));
	d->addr = rblk_cpu_to_le64(offset);
	d->data.length = rblk_cpu_to_le32(len);
	d->data.type = NVME_SGL_DATA_OFFSET;
}

void rblk_sgl_encode_null(struct nvme_sgl_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->keyed.type = NVME_SGL_KEYED_DATA;
}

/* SPDX-License-Identifier: MIT */
/*
 * SQE builders, CC values, data-mapping and transfer-splitting rules of the
 * initiator (see cmd.h). Pure functions: every byte is unit-tested.
 */
#include <errno.h>
#include <string.h>

#include "initiator/cmd.h"
#include "protocol/auth.h"
#include "protocol/sgl.h"

static void sqe_init(struct nvme_sqe *sqe, uint8_t opc, uint32_t nsid)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->opc = opc;
	/* nvmet rejects anything but PSDT 01b with FUSE 0 (docs/interop.md §3.1). */
	sqe->flags = NVME_CMD_PSDT_SGL_MPTR_CONTIG;
	sqe->nsid = rblk_cpu_to_le32(nsid);
	rblk_sgl_encode_null(&sqe->sgl1);
}

void rblk_cmd_prop_get(struct nvme_sqe *sqe, uint32_t ofst)
{
	struct nvmf_property_get_cmd *c = (struct nvmf_property_get_cmd *)sqe;

	sqe_init(sqe, NVME_FABRICS_COMMAND, 0);
	c->fctype = NVMF_FCTYPE_PROP_GET;
	/* nvmet serves CAP only as an 8-byte property and the rest as 4-byte ones. */
	c->attrib = ofst == NVME_REG_CAP ? NVMF_PROP_SIZE_8 : NVMF_PROP_SIZE_4;
	c->ofst = rblk_cpu_to_le32(ofst);
}

void rblk_cmd_prop_set(struct nvme_sqe *sqe, uint32_t ofst, uint32_t value)
{
	struct nvmf_property_set_cmd *c = (struct nvmf_property_set_cmd *)sqe;

	sqe_init(sqe, NVME_FABRICS_COMMAND, 0);
	c->fctype = NVMF_FCTYPE_PROP_SET;
	c->attrib = NVMF_PROP_SIZE_4;
	c->ofst = rblk_cpu_to_le32(ofst);
	c->value = rblk_cpu_to_le64(value);
}

static void auth_cmd(struct nvme_sqe *sqe, uint8_t fctype, uint32_t len)
{
	struct nvmf_auth_cmd *c = (struct nvmf_auth_cmd *)sqe;

	sqe_init(sqe, NVME_FABRICS_COMMAND, 0);
	c->fctype = fctype;
	c->secp = NVMF_AUTH_SECP_NVME;
	c->spsp0 = NVMF_AUTH_SPSP0;
	c->spsp1 = NVMF_AUTH_SPSP1;
	c->tl_al = rblk_cpu_to_le32(len);
}

void rblk_cmd_auth_send(struct nvme_sqe *sqe, uint32_t len)
{
	auth_cmd(sqe, NVMF_FCTYPE_AUTH_SEND, len);
}

void rblk_cmd_auth_recv(struct nvme_sqe *sqe, uint32_t len)
{
	auth_cmd(sqe, NVMF_FCTYPE_AUTH_RECV, len);
}

uint32_t rblk_cc_enable_value(void)
{
	/* What nvmet checks on EN 0->1 for I/O controllers (docs/interop.md §7.5). */
	return ((uint32_t)NVME_SQE_SHIFT << NVME_CC_IOSQES_SHIFT) |
	       ((uint32_t)NVME_CQE_SHIFT << NVME_CC_IOCQES_SHIFT) |
	       (NVME_CC_CSS_NVM << NVME_CC_CSS_SHIFT) | NVME_CC_EN;
}

uint32_t rblk_cc_shutdown_value(uint32_t cc)
{
	return (cc & ~NVME_CC_SHN_MASK) | (NVME_CC_SHN_NORMAL << NVME_CC_SHN_SHIFT);
}

uint32_t rblk_cap_timeout_ms(uint64_t cap)
{
	return ((uint32_t)NVME_CAP_TO(cap) + 1) * 500;
}

void rblk_cmd_identify(struct nvme_sqe *sqe, uint8_t cns, uint32_t nsid, uint8_t csi)
{
	struct nvme_identify_cmd *c = (struct nvme_identify_cmd *)sqe;

	sqe_init(sqe, NVME_ADMIN_IDENTIFY, nsid);
	c->cns = cns;
	c->csi = csi;
}

int rblk_cmd_get_log(struct nvme_sqe *sqe, uint8_t lid, uint32_t nsid, uint64_t lpo,
		     uint32_t len, bool rae)
{
	struct nvme_get_log_cmd *c = (struct nvme_get_log_cmd *)sqe;
	uint32_t numd;

	memset(sqe, 0, sizeof(*sqe));
	/* NUMD and LPO count dwords and bytes: lengths and offsets are dword multiples. */
	if (len < 4 || (len & 3) || (lpo & 3))
		return -EINVAL;
	sqe_init(sqe, NVME_ADMIN_GET_LOG_PAGE, nsid);
	numd = len / 4 - 1;
	c->lid = lid;
	c->lsp = rae ? NVME_LOG_RAE : 0;
	c->numdl = rblk_cpu_to_le16((uint16_t)(numd & 0xFFFF));
	c->numdu = rblk_cpu_to_le16((uint16_t)(numd >> 16));
	c->lpol = rblk_cpu_to_le32((uint32_t)lpo);
	c->lpou = rblk_cpu_to_le32((uint32_t)(lpo >> 32));
	return 0;
}

void rblk_cmd_set_features(struct nvme_sqe *sqe, uint8_t fid, uint32_t cdw11)
{
	struct nvme_features_cmd *c = (struct nvme_features_cmd *)sqe;

	sqe_init(sqe, NVME_ADMIN_SET_FEATURES, 0);
	c->fid = fid;
	c->cdw11 = rblk_cpu_to_le32(cdw11);
}

void rblk_cmd_keep_alive(struct nvme_sqe *sqe)
{
	sqe_init(sqe, NVME_ADMIN_KEEP_ALIVE, 0);
}

void rblk_cmd_async_event(struct nvme_sqe *sqe)
{
	sqe_init(sqe, NVME_ADMIN_ASYNC_EVENT, 0);
}

uint32_t rblk_num_queues_cdw11(uint32_t n)
{
	uint32_t z = n ? n - 1 : 0;

	if (z > 0xFFFE)
		z = 0xFFFE;
	return z | (z << 16);
}

uint32_t rblk_num_queues_granted(uint32_t dw0)
{
	uint32_t nsqa = dw0 & 0xFFFF, ncqa = dw0 >> 16;

	return (nsqa < ncqa ? nsqa : ncqa) + 1;
}

/* The commands that name a range the same way (CDW10-11 SLBA, CDW12 NLB - 1). */
static struct nvme_rw_cmd *range_cmd(struct nvme_sqe *sqe, uint8_t opc, uint32_t nsid,
				     uint64_t slba, uint32_t nlb)
{
	struct nvme_rw_cmd *c = (struct nvme_rw_cmd *)sqe;

	sqe_init(sqe, opc, nsid);
	c->slba = rblk_cpu_to_le64(slba);
	c->nlb = rblk_cpu_to_le16((uint16_t)(nlb - 1));
	return c;
}

void rblk_cmd_rw(struct nvme_sqe *sqe, bool write, uint32_t nsid, uint64_t slba, uint32_t nlb,
		 bool fua)
{
	struct nvme_rw_cmd *c = range_cmd(sqe, write ? NVME_IO_WRITE : NVME_IO_READ, nsid, slba, nlb);

	c->control = rblk_cpu_to_le16(fua ? NVME_RW_FUA : 0);
}

void rblk_cmd_flush(struct nvme_sqe *sqe, uint32_t nsid)
{
	sqe_init(sqe, NVME_IO_FLUSH, nsid);
}

void rblk_cmd_write_zeroes(struct nvme_sqe *sqe, uint32_t nsid, uint64_t slba, uint32_t nlb)
{
	range_cmd(sqe, NVME_IO_WRITE_ZEROES, nsid, slba, nlb);
}

void rblk_cmd_compare(struct nvme_sqe *sqe, uint32_t nsid, uint64_t slba, uint32_t nlb)
{
	range_cmd(sqe, NVME_IO_COMPARE, nsid, slba, nlb);
}

void rblk_cmd_fuse(struct nvme_sqe *sqe, bool second)
{
	sqe->flags = (uint8_t)((sqe->flags & ~NVME_CMD_FUSE_MASK) |
			       (second ? NVME_CMD_FUSE_SECOND : NVME_CMD_FUSE_FIRST));
}

void rblk_cmd_verify(struct nvme_sqe *sqe, uint32_t nsid, uint64_t slba, uint32_t nlb)
{
	range_cmd(sqe, NVME_IO_VERIFY, nsid, slba, nlb);
}

void rblk_cmd_copy(struct nvme_sqe *sqe, uint32_t nsid, uint64_t sdlba, uint32_t nr)
{
	struct nvme_copy_cmd *c = (struct nvme_copy_cmd *)sqe;

	sqe_init(sqe, NVME_IO_COPY, nsid);
	c->sdlba = rblk_cpu_to_le64(sdlba);
	/* NR is 0-based; descriptor format 0 (DESFMT 0) is the only one sent. */
	c->cdw12 = rblk_cpu_to_le32((nr - 1) & NVME_COPY_NR_MASK);
}

void rblk_copy_desc(struct nvme_copy_range *r, uint64_t slba, uint32_t nlb)
{
	memset(r, 0, sizeof(*r));
	r->slba = rblk_cpu_to_le64(slba);
	r->nlb = rblk_cpu_to_le16((uint16_t)(nlb - 1));
}

void rblk_cmd_raw(struct nvme_sqe *sqe, const struct nvme_sqe *raw, uint32_t nsid)
{
	*sqe = *raw;
	/* What says how the data travels, and where, is ours to set. */
	sqe->flags = NVME_CMD_PSDT_SGL_MPTR_CONTIG;
	sqe->nsid = rblk_cpu_to_le32(nsid);
	sqe->mptr = 0;		/* no separate metadata on a fabric */
	rblk_sgl_encode_null(&sqe->sgl1);
}

void rblk_cmd_dsm_deallocate(struct nvme_sqe *sqe, uint32_t nsid, uint32_t nr)
{
	struct nvme_dsm_cmd *c = (struct nvme_dsm_cmd *)sqe;

	sqe_init(sqe, NVME_IO_DSM, nsid);
	c->nr = rblk_cpu_to_le32((nr - 1) & NVME_DSM_NR_MASK);
	c->attributes = rblk_cpu_to_le32(NVME_DSM_AD);
}

void rblk_dsm_range(struct nvme_dsm_range *r, uint64_t slba, uint32_t nlb)
{
	memset(r, 0, sizeof(*r));
	r->nlb = rblk_cpu_to_le32(nlb);
	r->slba = rblk_cpu_to_le64(slba);
}

uint32_t rblk_incapsule_max(uint16_t qid, uint32_t sgls, uint32_t ioccsz, bool no_incapsule)
{
	if (qid == 0 || no_incapsule || !(sgls & NVME_CTRL_SGLS_OFFSET) || ioccsz < 4)
		return 0;
	/* IOCCSZ is a 32-bit count of 16-byte units: keep the product in range. */
	if (ioccsz > (UINT32_MAX - 64) / 16)
		ioccsz = (UINT32_MAX - 64) / 16;
	return ioccsz * 16 - 64;
}

enum rblk_map_kind rblk_map_choose(bool host_to_ctrl, uint32_t len, uint32_t incapsule_max)
{
	if (len == 0)
		return RBLK_MAP_NONE;
	if (host_to_ctrl && len <= incapsule_max)
		return RBLK_MAP_INCAPSULE;
	return RBLK_MAP_KEYED;
}

int rblk_cmd_set_keyed(struct nvme_sqe *sqe, uint64_t addr, uint32_t len, uint32_t rkey)
{
	return rblk_sgl_encode_keyed(&sqe->sgl1, addr, len, rkey, false);
}

void rblk_cmd_set_incapsule(struct nvme_sqe *sqe, uint32_t len)
{
	rblk_sgl_encode_incapsule(&sqe->sgl1, 0, len);
}

bool rblk_cmd_host_to_ctrl(const struct nvme_sqe *sqe)
{
	if (sqe->opc == NVME_FABRICS_COMMAND)
		return nvmf_fctype_is_write(((const uint8_t *)sqe)[NVME_SQE_FCTYPE_OFFSET]);
	return nvme_opc_is_write(sqe->opc);
}

int rblk_cmd_map(struct nvme_sqe *sqe, uint64_t addr, uint32_t len, uint32_t rkey,
		 uint32_t incapsule_max)
{
	enum rblk_map_kind kind = rblk_map_choose(rblk_cmd_host_to_ctrl(sqe), len, incapsule_max);
	int ret = 0;

	switch (kind) {
	case RBLK_MAP_NONE:
		rblk_sgl_encode_null(&sqe->sgl1);
		break;
	case RBLK_MAP_INCAPSULE:
		rblk_cmd_set_incapsule(sqe, len);
		break;
	case RBLK_MAP_KEYED:
		ret = rblk_cmd_set_keyed(sqe, addr, len, rkey);
		break;
	default:
		ret = -EINVAL;
	}
	return ret ? ret : (int)kind;
}

uint32_t rblk_mdts_bytes(uint8_t mdts)
{
	if (mdts == 0)
		return RBLK_MAX_XFER_NO_MDTS;
	if (mdts >= 12 || (4096ull << mdts) > RBLK_MAX_XFER_CAP)
		return RBLK_MAX_XFER_CAP;
	return 4096u << mdts;
}

uint32_t rblk_split_max_nlb(uint32_t max_bytes, unsigned lba_shift)
{
	uint32_t n = lba_shift < 32 ? max_bytes >> lba_shift : 0;

	if (n > RBLK_MAX_NLB_PER_CMD)
		n = RBLK_MAX_NLB_PER_CMD;
	return n ? n : 1;
}

uint32_t rblk_split_count(uint64_t nlb, uint32_t max_nlb)
{
	if (!max_nlb)
		max_nlb = 1;
	return (uint32_t)((nlb + max_nlb - 1) / max_nlb);
}

/* SPDX-License-Identifier: MIT */
/*
 * Discovery log page build, windowed read and parse. The target never
 * materialises the whole log: a read of any window is assembled from the
 * header and the entry array, which is what lets nvme-cli read it in chunks.
 */
#include <errno.h>
#include <string.h>

#include "protocol/disc.h"
#include "protocol/le.h"

/* Copy a C string into a fixed field, NUL-padded, keeping a terminating NUL. */
static int put_str(char *field, size_t size, const char *s)
{
	size_t len;

	if (!s)
		return -EINVAL;
	len = strnlen(s, size);
	if (len >= size)
		return -EINVAL;
	memcpy(field, s, len);
	memset(field + len, 0, size - len);
	return 0;
}

int rblk_disc_entry_build(struct nvmf_disc_log_entry *e, const struct rblk_disc_entry_info *info)
{
	size_t nqn_len;

	memset(e, 0, sizeof(*e));
	nqn_len = strnlen(info->subnqn, sizeof(info->subnqn));
	if (nqn_len == 0 || nqn_len > NVMF_NQN_SIZE)
		return -EINVAL;
	if (put_str(e->trsvcid, sizeof(e->trsvcid), info->trsvcid) ||
	    put_str(e->traddr, sizeof(e->traddr), info->traddr) ||
	    put_str(e->subnqn, sizeof(e->subnqn), info->subnqn)) {
		memset(e, 0, sizeof(*e));
		return -EINVAL;
	}
	e->trtype = info->trtype;
	e->adrfam = info->adrfam;
	e->subtype = info->subtype;
	e->treq = info->treq;
	e->portid = rblk_cpu_to_le16(info->portid);
	e->cntlid = rblk_cpu_to_le16(NVMF_CNTLID_DYNAMIC);
	e->asqsz = rblk_cpu_to_le16(NVMF_DISC_ASQSZ);
	e->eflags = rblk_cpu_to_le16(info->eflags);
	if (info->trtype == NVMF_TRTYPE_RDMA) {
		e->tsas.rdma.qptype = NVMF_RDMA_QPTYPE_CONNECTED;
		e->tsas.rdma.prtype = NVMF_RDMA_PRTYPE_NOT_SPECIFIED;
		e->tsas.rdma.cms = NVMF_RDMA_CMS_RDMA_CM;
		e->tsas.rdma.pkey = 0;
	}
	return 0;
}

uint16_t rblk_disc_log_read(void *buf, uint32_t len, uint64_t lpo, uint64_t genctr,
			    const struct nvmf_disc_log_entry *entries, uint32_t numrec)
{
	uint64_t size = rblk_disc_log_size(numrec);
	struct nvmf_disc_log_hdr hdr;
	uint8_t *dst = buf;
	uint64_t pos = lpo;
	uint32_t done = 0;

	if ((lpo & 3) || lpo > size)
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;

	memset(&hdr, 0, sizeof(hdr));
	hdr.genctr = rblk_cpu_to_le64(genctr);
	hdr.numrec = rblk_cpu_to_le64(numrec);
	hdr.recfmt = rblk_cpu_to_le16(0);

	while (done < len && pos < size) {
		const uint8_t *src;
		uint64_t in_rec, avail;
		uint32_t n;

		if (pos < NVMF_DISC_LOG_HDR_SIZE) {
			src = (const uint8_t *)&hdr;
			in_rec = pos;
			avail = NVMF_DISC_LOG_HDR_SIZE - pos;
		} else {
			uint64_t idx = (pos - NVMF_DISC_LOG_HDR_SIZE) / NVMF_DISC_ENTRY_SIZE;

			src = (const uint8_t *)&entries[idx];
			in_rec = (pos - NVMF_DISC_LOG_HDR_SIZE) % NVMF_DISC_ENTRY_SIZE;
			avail = NVMF_DISC_ENTRY_SIZE - in_rec;
		}
		n = (uint32_t)(avail < (uint64_t)(len - done) ? avail : (uint64_t)(len - done));
		memcpy(dst + done, src + in_rec, n);
		done += n;
		pos += n;
	}
	if (done < len)
		memset(dst + done, 0, len - done);
	return NVME_SC_SUCCESS;
}

/* Copy a fixed, possibly unterminated field and drop trailing NUL/space padding. */
static size_t get_str(char *dst, const char *field, size_t size)
{
	size_t len = strnlen(field, size);

	while (len && field[len - 1] == ' ')
		len--;
	memcpy(dst, field, len);
	dst[len] = '\0';
	return len;
}

int rblk_disc_entry_parse(const struct nvmf_disc_log_entry *e, struct rblk_disc_entry_info *out)
{
	char nqn[NVMF_NQN_FIELD_LEN + 1];
	size_t nqn_len;

	memset(out, 0, sizeof(*out));
	out->trtype = e->trtype;
	out->adrfam = e->adrfam;
	out->subtype = e->subtype;
	out->treq = e->treq;
	out->portid = rblk_le16(e->portid);
	out->cntlid = rblk_le16(e->cntlid);
	out->asqsz = rblk_le16(e->asqsz);
	out->eflags = rblk_le16(e->eflags);
	get_str(out->trsvcid, e->trsvcid, sizeof(e->trsvcid));
	get_str(out->traddr, e->traddr, sizeof(e->traddr));
	nqn_len = get_str(nqn, e->subnqn, sizeof(e->subnqn));
	if (nqn_len == 0 || nqn_len > NVMF_NQN_SIZE)
		return -EINVAL;
	memcpy(out->subnqn, nqn, nqn_len + 1);
	if (e->trtype == NVMF_TRTYPE_RDMA) {
		out->rdma_qptype = e->tsas.rdma.qptype;
		out->rdma_prtype = e->tsas.rdma.prtype;
		out->rdma_cms = e->tsas.rdma.cms;
		out->rdma_pkey = rblk_le16(e->tsas.rdma.pkey);
	}
	return 0;
}

int rblk_disc_log_parse(const void *buf, size_t len, struct rblk_disc_log_info *hdr,
			struct rblk_disc_entry_info *entries, size_t max, size_t *count)
{
	const uint8_t *p = buf;
	struct nvmf_disc_log_entry e;
	uint64_t numrec;

	*count = 0;
	memset(hdr, 0, sizeof(*hdr));
	if (!p || len < NVMF_DISC_LOG_HDR_SIZE)
		return -EINVAL;
	hdr->genctr = rblk_get_le64(p + offsetof(struct nvmf_disc_log_hdr, genctr));
	hdr->numrec = numrec = rblk_get_le64(p + offsetof(struct nvmf_disc_log_hdr, numrec));
	if (rblk_get_le16(p + offsetof(struct nvmf_disc_log_hdr, recfmt)) != 0)
		return -EINVAL;
	if (numrec > (len - NVMF_DISC_LOG_HDR_SIZE) / NVMF_DISC_ENTRY_SIZE)
		return -EMSGSIZE;
	if (numrec > max) {
		*count = (size_t)numrec;
		return -ENOSPC;
	}
	for (size_t i = 0; i < numrec; i++) {
		/* Copy out: buf has no alignment guarantee. */
		memcpy(&e, p + NVMF_DISC_LOG_HDR_SIZE + i * NVMF_DISC_ENTRY_SIZE, sizeof(e));
		if (rblk_disc_entry_parse(&e, &entries[i]))
			return -EINVAL;
	}
	*count = (size_t)numrec;
	return 0;
}

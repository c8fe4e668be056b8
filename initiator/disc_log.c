/* SPDX-License-Identifier: MIT */
/*
 * Discovery log reassembly with generation-counter retries, and conversion
 * of the parsed records to the public struct rblk_disc_entry (see disc_log.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "initiator/disc_log.h"
#include "protocol/disc.h"

static int read_range(rblk_disc_read_fn read, void *ctx, uint8_t *buf, size_t len,
		      uint16_t *status)
{
	for (size_t off = 0; off < len; off += RBLK_DISC_CHUNK) {
		uint32_t n = (uint32_t)(len - off < RBLK_DISC_CHUNK ? len - off : RBLK_DISC_CHUNK);
		bool last = off + n >= len;
		int ret = read(ctx, off, buf + off, n, !last, status);

		if (ret)
			return ret;
	}
	return 0;
}

int rblk_disc_log_fetch(rblk_disc_read_fn read, void *ctx, unsigned max_retries, void **log,
			size_t *len, uint16_t *status)
{
	struct nvmf_disc_log_hdr hdr;
	uint8_t *buf = NULL;
	unsigned attempt = 0;
	int ret;

	*log = NULL;
	*len = 0;
	if (status)
		*status = 0;
	for (;;) {
		uint64_t genctr, numrec;
		size_t size;
		uint8_t *nb;

		ret = read(ctx, 0, &hdr, sizeof(hdr), true, status);
		if (ret)
			goto out_free;
		genctr = rblk_le64(hdr.genctr);
		numrec = rblk_le64(hdr.numrec);
		if (numrec > RBLK_DISC_MAX_RECORDS) {
			RBLK_ERR("discovery log: %llu records is more than %u",
				 (unsigned long long)numrec, RBLK_DISC_MAX_RECORDS);
			ret = -EBADMSG;
			goto out_free;
		}
		size = (size_t)rblk_disc_log_size(numrec);
		nb = realloc(buf, size);
		if (!nb) {
			ret = -ENOMEM;
			goto out_free;
		}
		buf = nb;
		if (numrec == 0) {
			memcpy(buf, &hdr, sizeof(hdr));
			*log = buf;
			*len = size;
			return 0;
		}
		ret = read_range(read, ctx, buf, size, status);
		if (ret)
			goto out_free;
		memcpy(&hdr, buf, sizeof(hdr));
		if (rblk_le64(hdr.genctr) == genctr) {
			if (rblk_le64(hdr.numrec) != numrec) {
				RBLK_ERR("discovery log: %llu records, then %llu under the same generation %llu",
					 (unsigned long long)numrec,
					 (unsigned long long)rblk_le64(hdr.numrec),
					 (unsigned long long)genctr);
				ret = -EBADMSG;
				goto out_free;
			}
			*log = buf;
			*len = size;
			return 0;
		}
		if (++attempt >= max_retries) {
			RBLK_ERR("discovery log: the generation counter kept changing (%u reads)",
				 attempt);
			ret = -EAGAIN;
			goto out_free;
		}
		RBLK_DEBUG("discovery log: generation %llu -> %llu while reading, again",
			   (unsigned long long)genctr, (unsigned long long)rblk_le64(hdr.genctr));
	}

out_free:
	free(buf);
	return ret;
}

static void copy_str(char *dst, size_t dstlen, const char *src)
{
	size_t n = strlen(src);

	if (n >= dstlen)
		n = dstlen - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

int rblk_disc_log_entries(const void *log, size_t len, bool all, struct rblk_disc_entry **entries,
			  unsigned *n, uint64_t *genctr)
{
	struct rblk_disc_entry_info *info = NULL;
	struct rblk_disc_log_info hdr;
	struct rblk_disc_entry *out = NULL;
	size_t count = 0, max;
	unsigned k = 0;
	int ret;

	*entries = NULL;
	*n = 0;
	max = len > NVMF_DISC_LOG_HDR_SIZE ? (len - NVMF_DISC_LOG_HDR_SIZE) / NVMF_DISC_ENTRY_SIZE : 0;
	if (max) {
		info = calloc(max, sizeof(*info));
		if (!info)
			return -ENOMEM;
	}
	ret = rblk_disc_log_parse(log, len, &hdr, info, max, &count);
	if (ret)
		goto out;
	if (genctr)
		*genctr = hdr.genctr;
	if (count) {
		out = calloc(count, sizeof(*out));
		if (!out) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (size_t i = 0; i < count; i++) {
		const struct rblk_disc_entry_info *e = &info[i];
		struct rblk_disc_entry *d = &out[k];

		if (e->subtype == NVMF_SUBTYPE_CURRENT_DISCOVERY && !all)
			continue;
		d->trtype = e->trtype;
		d->adrfam = e->adrfam;
		d->subtype = e->subtype;
		d->treq = e->treq;
		d->portid = e->portid;
		d->cntlid = e->cntlid;
		d->asqsz = e->asqsz;
		d->eflags = e->eflags;
		copy_str(d->trsvcid, sizeof(d->trsvcid), e->trsvcid);
		copy_str(d->traddr, sizeof(d->traddr), e->traddr);
		copy_str(d->subnqn, sizeof(d->subnqn), e->subnqn);
		d->rdma_qptype = e->rdma_qptype;
		d->rdma_prtype = e->rdma_prtype;
		d->rdma_cms = e->rdma_cms;
		d->rdma_pkey = e->rdma_pkey;
		k++;
	}
	if (k == 0) {
		free(out);
		out = NULL;
	}
	*entries = out;
	*n = k;
	out = NULL;
out:
	free(out);
	free(info);
	return ret;
}

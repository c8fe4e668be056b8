/* SPDX-License-Identifier: MIT */
/*
 * The discovery log page (LID 70h): building entries and serving any
 * [offset, offset + len) window of the log on the target (nvme discover reads
 * the header, then the whole log in 4 KiB chunks), and parsing a log buffer
 * on the initiator.
 */
#ifndef RBLK_PROTOCOL_DISC_H
#define RBLK_PROTOCOL_DISC_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/nvmf.h"

/* One entry in host-friendly form (build input, parse output). */
struct rblk_disc_entry_info {
	uint8_t trtype;   /* NVMF_TRTYPE_* */
	uint8_t adrfam;   /* NVMF_ADRFAM_* */
	uint8_t subtype;  /* NVMF_SUBTYPE_* */
	uint8_t treq;     /* NVMF_TREQ_* */
	uint16_t portid;
	uint16_t cntlid;  /* parse only; built entries carry 0xFFFF */
	uint16_t asqsz;   /* parse only; built entries carry 32 */
	uint16_t eflags;  /* NVMF_DISC_EFLAGS_* */
	char trsvcid[NVMF_TRSVCID_SIZE + 1];
	char traddr[NVMF_TRADDR_SIZE + 1];
	char subnqn[NVMF_NQN_FIELD_LEN];
	/* RDMA TSAS; parse only: built RDMA entries carry RC / not specified / RDMA_CM / 0 */
	uint8_t rdma_qptype;
	uint8_t rdma_prtype;
	uint8_t rdma_cms;
	uint16_t rdma_pkey;
};

struct rblk_disc_log_info {
	uint64_t genctr;
	uint64_t numrec;
};

/*
 * Fill e from info (trtype, adrfam, subtype, treq, portid, eflags, trsvcid,
 * traddr, subnqn), with CNTLID 0xFFFF, ASQSZ 32 and, for RDMA, the TSAS nvmet
 * sends. Strings are NUL-padded. -EINVAL when a string does not fit its field
 * with a terminating NUL or subnqn is empty or longer than 223 bytes.
 */
int rblk_disc_entry_build(struct nvmf_disc_log_entry *e, const struct rblk_disc_entry_info *info);

/* Bytes of a log with numrec entries (header included). */
static inline uint64_t rblk_disc_log_size(uint64_t numrec)
{
	return NVMF_DISC_LOG_HDR_SIZE + numrec * NVMF_DISC_ENTRY_SIZE;
}

/*
 * Copy bytes [lpo, lpo + len) of the virtual log "header(genctr, numrec) +
 * entries[0..numrec)" into buf; bytes past the end of the log read as zero.
 * Returns NVME_SC_SUCCESS, or Invalid Field | DNR when lpo is not dword
 * aligned or lies past the end of the log (as nvmet does).
 */
uint16_t rblk_disc_log_read(void *buf, uint32_t len, uint64_t lpo, uint64_t genctr,
			    const struct nvmf_disc_log_entry *entries, uint32_t numrec);

/*
 * Parse one entry. Fixed-width strings may be NUL- or space-padded (SPDK pads
 * with spaces); trailing padding is removed. -EINVAL when SUBNQN is empty or
 * longer than 223 bytes. The NQN format is not enforced here: kernel targets
 * are often configured with names like "testnqn", and discovery should show
 * them.
 */
int rblk_disc_entry_parse(const struct nvmf_disc_log_entry *e, struct rblk_disc_entry_info *out);

/*
 * Parse a log buffer read from offset 0 (buf may be unaligned). Fills hdr
 * whenever the header is readable. Returns 0 with *count = numrec entries in
 * entries[], or:
 *  -EINVAL    len < 1024, RECFMT != 0, or an entry fails rblk_disc_entry_parse
 *  -EMSGSIZE  buf is too short for NUMREC entries (read the full log again)
 *  -ENOSPC    more than max entries (*count = NUMREC, nothing parsed)
 */
int rblk_disc_log_parse(const void *buf, size_t len, struct rblk_disc_log_info *hdr,
			struct rblk_disc_entry_info *entries, size_t max, size_t *count);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Host-side SQE builders and the data-mapping rules of the initiator: every
 * command the library sends is built here (pure functions, no I/O), so unit
 * tests can check each byte. All builders zero the SQE and set FLAGS to
 * PSDT 01b (0x40), the only value NVMe-oF allows and nvmet insists on; the
 * CID is written by the queue when the command is posted.
 *
 * Data mapping (docs/interop.md §4.4, §17.1): commands without data carry the
 * null keyed SGL; data the controller writes to us, or that is too big for
 * the capsule, goes as a Keyed Data Block 0x40 (never 0x4F: rxe cannot
 * invalidate ibv_reg_mr memory); small host-to-controller data goes
 * in-capsule (0x01, offset 0) on I/O queues when the controller sets SGLS
 * bit 20 and IOCCSZ leaves room. rblk_cmd_map() is that whole decision;
 * the queue (rblk_hq_map) only records where in-capsule bytes come from.
 *
 * Layer: the bottom of initiator/. It includes no other initiator header
 * and calls nothing above it; every other file calls down into it.
 */
#ifndef RBLK_INITIATOR_CMD_H
#define RBLK_INITIATOR_CMD_H

#include <stdbool.h>
#include <stdint.h>

#include "protocol/nvme.h"
#include "protocol/nvmf.h"

/* The largest command the library sends at once, whatever MDTS says. */
#define RBLK_MAX_XFER_CAP (8u << 20)
/* MDTS 0 ("no limit"): what the Linux RDMA host can map (256 pages). */
#define RBLK_MAX_XFER_NO_MDTS (1u << 20)
/* NLB is a 16-bit 0-based field: 65536 blocks per Read/Write/Write Zeroes. */
#define RBLK_MAX_NLB_PER_CMD 65536u

/* ---- Fabrics ---------------------------------------------------------- */

/* Property Get: CAP with 8-byte size (ATTRIB 1), everything else 4 bytes. */
void rblk_cmd_prop_get(struct nvme_sqe *sqe, uint32_t ofst);
/* Property Set of a 4-byte property (only CC is writable on nvmet). */
void rblk_cmd_prop_set(struct nvme_sqe *sqe, uint32_t ofst, uint32_t value);

/*
 * Authentication Send / Receive for DH-HMAC-CHAP (SECP 0xE9, SPSP0 = SPSP1 =
 * 1, as the Linux host) with TL / AL = @len; SGL1 left null for the caller.
 */
void rblk_cmd_auth_send(struct nvme_sqe *sqe, uint32_t len);
void rblk_cmd_auth_recv(struct nvme_sqe *sqe, uint32_t len);

/* CC as the library enables the controller: IOSQES 6, IOCQES 4, MPS 0, CSS NVM, EN. */
uint32_t rblk_cc_enable_value(void);
/* The same with SHN = normal shutdown (EN kept, as the Linux host does). */
uint32_t rblk_cc_shutdown_value(uint32_t cc);
/* CAP.TO timeout in milliseconds, as the Linux host waits: (TO + 1) * 500. */
uint32_t rblk_cap_timeout_ms(uint64_t cap);

/* ---- Admin ------------------------------------------------------------ */

void rblk_cmd_identify(struct nvme_sqe *sqe, uint8_t cns, uint32_t nsid, uint8_t csi);
/*
 * Get Log Page of @len bytes (a multiple of 4, 4..2^32) at byte offset @lpo;
 * @rae sets Retain Asynchronous Event. -EINVAL for a bad length or offset.
 */
int rblk_cmd_get_log(struct nvme_sqe *sqe, uint8_t lid, uint32_t nsid, uint64_t lpo,
		     uint32_t len, bool rae);
void rblk_cmd_set_features(struct nvme_sqe *sqe, uint8_t fid, uint32_t cdw11);
void rblk_cmd_keep_alive(struct nvme_sqe *sqe);
/* Asynchronous Event Request: no data; it completes when the controller has an event. */
void rblk_cmd_async_event(struct nvme_sqe *sqe);
/* Number of Queues: CDW11 = (n - 1) | (n - 1) << 16 for @n I/O queues (1..65535). */
uint32_t rblk_num_queues_cdw11(uint32_t n);
/* Queues the controller granted (min(NSQA, NCQA) + 1) from the command's DW0. */
uint32_t rblk_num_queues_granted(uint32_t dw0);

/* ---- I/O -------------------------------------------------------------- */

/* Read or Write of @nlb blocks (1..65536) at @slba; @fua sets CONTROL bit 14. */
void rblk_cmd_rw(struct nvme_sqe *sqe, bool write, uint32_t nsid, uint64_t slba, uint32_t nlb,
		 bool fua);
void rblk_cmd_flush(struct nvme_sqe *sqe, uint32_t nsid);
void rblk_cmd_write_zeroes(struct nvme_sqe *sqe, uint32_t nsid, uint64_t slba, uint32_t nlb);
/* Compare of @nlb blocks (1..65536) at @slba: the host sends the expected data. */
void rblk_cmd_compare(struct nvme_sqe *sqe, uint32_t nsid, uint64_t slba, uint32_t nlb);
/*
 * The two halves of a fused Compare and Write: the Compare marked first
 * (FUSE 01b), the Write second (FUSE 10b). They must reach the controller
 * back to back on one queue.
 */
void rblk_cmd_fuse(struct nvme_sqe *sqe, bool second);
/* Verify of @nlb blocks (1..65536): no data moves. */
void rblk_cmd_verify(struct nvme_sqe *sqe, uint32_t nsid, uint64_t slba, uint32_t nlb);
/* Copy of @nr source ranges (1..256, descriptor format 0) to @sdlba onwards. */
void rblk_cmd_copy(struct nvme_sqe *sqe, uint32_t nsid, uint64_t sdlba, uint32_t nr);
/* One Copy source range (format 0): @nlb blocks (1..65536) from @slba. */
void rblk_copy_desc(struct nvme_copy_range *r, uint64_t slba, uint32_t nlb);
/*
 * A caller-built I/O command (@raw, 64 bytes) for @nsid: opcode and CDW2..15
 * as given; FLAGS (PSDT, FUSE 0), NSID, CID and SGL1 are the library's.
 */
void rblk_cmd_raw(struct nvme_sqe *sqe, const struct nvme_sqe *raw, uint32_t nsid);
/* Dataset Management with AD (deallocate) over @nr ranges (1..256). */
void rblk_cmd_dsm_deallocate(struct nvme_sqe *sqe, uint32_t nsid, uint32_t nr);
/* One DSM range: @nlb blocks (1-based on the wire) from @slba. */
void rblk_dsm_range(struct nvme_dsm_range *r, uint64_t slba, uint32_t nlb);

/* ---- Data mapping ------------------------------------------------------ */

enum rblk_map_kind {
	RBLK_MAP_NONE,		/* no data: null keyed SGL */
	RBLK_MAP_KEYED,		/* keyed SGL 0x40 to registered host memory */
	RBLK_MAP_INCAPSULE,	/* SGL 0x01: the data follows the SQE in the same SEND */
};

/*
 * In-capsule bytes an I/O queue may carry: IOCCSZ * 16 - 64 when the
 * controller sets SGLS bit 20, IOCCSZ >= 4 and the caller allows it; 0 on
 * the admin queue (nvmet takes 64-byte admin capsules only).
 */
uint32_t rblk_incapsule_max(uint16_t qid, uint32_t sgls, uint32_t ioccsz, bool no_incapsule);

/*
 * How @len bytes of a command travel: NONE for 0 bytes, IN-CAPSULE when the
 * data goes to the controller and fits @incapsule_max, else KEYED.
 */
enum rblk_map_kind rblk_map_choose(bool host_to_ctrl, uint32_t len, uint32_t incapsule_max);

/* SGL1 = keyed 0x40 (no invalidate). -EINVAL when @len does not fit 24 bits. */
int rblk_cmd_set_keyed(struct nvme_sqe *sqe, uint64_t addr, uint32_t len, uint32_t rkey);
/* SGL1 = in-capsule data at offset 0 (ICDOFF must be 0). */
void rblk_cmd_set_incapsule(struct nvme_sqe *sqe, uint32_t len);

/* Data direction of a command: fabrics by FCTYPE bit 0, others by opcode bit 0. */
bool rblk_cmd_host_to_ctrl(const struct nvme_sqe *sqe);

/*
 * The whole mapping decision for @sqe's data, @len bytes at @addr (@rkey for
 * a keyed SGL): rblk_map_choose() by the command's direction, then SGL1 set
 * to match. Returns the enum rblk_map_kind chosen (the queue then sends
 * in-capsule bytes after the SQE), or -EINVAL for a keyed length over 24 bits.
 */
int rblk_cmd_map(struct nvme_sqe *sqe, uint64_t addr, uint32_t len, uint32_t rkey,
		 uint32_t incapsule_max);

/* ---- Transfer limits and splitting ------------------------------------- */

/*
 * Bytes one command may move: 2^MDTS * 4 KiB (CAP.MPSMIN is 0 on fabrics),
 * RBLK_MAX_XFER_NO_MDTS for MDTS 0, never more than RBLK_MAX_XFER_CAP.
 */
uint32_t rblk_mdts_bytes(uint8_t mdts);
/*
 * Blocks per command for data commands: @max_bytes >> @lba_shift, capped by
 * the 16-bit NLB field; at least 1.
 */
uint32_t rblk_split_max_nlb(uint32_t max_bytes, unsigned lba_shift);
/* Commands needed for @nlb blocks at @max_nlb per command. */
uint32_t rblk_split_count(uint64_t nlb, uint32_t max_nlb);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Shared by the target command harnesses (fuzz_tgt_*.c): a target with one
 * subsystem and a RAM namespace, driven through the unit tests' transport
 * (tests/unit/target/test_transport.c: no RDMA, single-threaded), and a
 * command stream decoded from the fuzz input.
 *
 * Input: a sequence of records, each
 *   [sel u8][len u16 LE][SQE 64 bytes][len bytes of H2C data]
 * len is the SGL length (capped at TGT_MAX_DATA), the data is zero-padded
 * when the input ends early. What sel means is the harness's business.
 *
 * tgt_exec() checks what every completion must satisfy, whatever the
 * command: the CID echoed, the SQ ID of the queue, SQHD within the queue,
 * no C2H data on a failed command, no more C2H data than the SGL allows.
 */
#ifndef RBLK_TGT_ENV_H
#define RBLK_TGT_ENV_H

#include "fuzz.h"
#include "test_transport.h"

#define TGT_REC_HDR 3
#define TGT_REC_SQE 64
#define TGT_MAX_DATA 16384u
#define TGT_MAX_CMDS 64

struct tgt_rec {
	uint8_t sel;
	struct nvme_sqe sqe;
	const uint8_t *data; /* len bytes (a zero-padded copy when the input was short) */
	uint32_t len;
};

enum tgt_setup {
	TGT_NOTHING,     /* an admin queue that has not connected */
	TGT_ADMIN,       /* an enabled NVM controller: connected, CC.EN = 1, CSTS.RDY */
	TGT_IO,          /* TGT_ADMIN plus I/O queue 1 */
	TGT_DISCOVERY,   /* an enabled discovery controller, two ports, two subsystems */
};

struct tgt_env {
	struct tt_env *env;
	struct tt_queue *aq, *iq;
	struct rblk_subsystem *ss;
	uint16_t cntlid;
};

/* 0, or -errno when the environment cannot be built (a harness bug: it aborts). */
int tgt_env_setup(struct tgt_env *t, enum tgt_setup what);
void tgt_env_teardown(struct tgt_env *t);

/* The next record of the input; false at the end. */
bool tgt_next(const uint8_t **data, size_t *size, struct tgt_rec *r);

/*
 * Sends one command on @q and pumps until it completes. Returns its status
 * (kernel style), or TT_TIMEOUT_STATUS when it is held (an AER) or there was
 * no free slot. C2H data is copied to @out (up to @outlen).
 */
uint16_t tgt_exec(struct tt_queue *q, const struct nvme_sqe *sqe, const void *data, uint32_t len,
		  void *out, size_t outlen, struct nvme_cqe *cqe);

/* A record for a seed: header + SQE + data into buf at *off; returns false when it does not fit. */
bool tgt_seed_rec(uint8_t *buf, size_t max, size_t *off, uint8_t sel, const void *sqe,
		  const void *data, uint16_t len);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * evil_host: a hostile NVMe/RDMA host for rblk-target (see evil_host.c).
 * This header is shared by its pieces: the raw queue (evil_conn.c: rdma_cm
 * connect with arbitrary private data, capsules of any shape and length,
 * CQEs collected by CID) and the NVMe helpers (evil_nvme.c: SQE builders,
 * "send and expect this status", controller bring-up).
 */
#ifndef RBLK_FUNC_EVIL_H
#define RBLK_FUNC_EVIL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "protocol/nvme.h"
#include "transport/rdma.h"

#define EVIL_SLOTS 128                    /* capsules and receives per queue */
#define EVIL_SLOT_SIZE (64u + 24u * 1024) /* SQE + more in-capsule data than any target takes */
#define EVIL_DATA_UNIT (128u * 1024)      /* data area per command */
#define EVIL_DATA_SIZE (EVIL_SLOTS * EVIL_DATA_UNIT)
#define EVIL_TINY_SIZE 512                /* an MR too small for what we ask */
#define EVIL_CQE_RING 1024

struct evil_target {
	struct sockaddr_storage dst;
	struct sockaddr_storage src;
	bool have_src;
	const char *subnqn;
	const char *hostnqn;
	uint8_t hostid[16];
};

/* What the CONNECT_REQUEST carries: the private data byte for byte. */
struct evil_cm {
	uint8_t priv[56];
	uint8_t priv_len;
	uint8_t responder_resources; /* the target's read depth at us */
	uint8_t retry_count;
	uint8_t rnr_retry_count;
	unsigned nrecv;              /* receives posted for responses before connecting */
};

/* One queue: the rdma_cm id, its QP and the registered buffers. */
struct evil_conn {
	const char *name;            /* "admin", "io1", ... for messages */
	struct rblk_cm_channel *ch;
	struct rblk_cm_id *id;
	struct rblk_pd *pd;
	struct rblk_cq *cq;
	struct rblk_qp *qp;
	uint8_t *slots;              /* [EVIL_SLOTS] capsules */
	struct nvme_cqe *rsps;       /* [EVIL_SLOTS] receive buffers */
	uint8_t *data;               /* EVIL_DATA_SIZE, remote read + write */
	uint8_t *tiny;               /* EVIL_TINY_SIZE, remote write */
	struct rblk_mr *slots_mr, *rsps_mr, *data_mr, *tiny_mr;
	unsigned next_slot;
	unsigned sends_posted, sends_done;
	bool repost;                 /* repost receives as responses land */
	/* What happened to the connection. */
	bool established;
	bool broken;                 /* a WC error or a flushed WR: the QP is dead */
	bool disconnected;           /* the target disconnected (CM event) */
	int first_wc_status;         /* enum rblk_wc_status of the first error */
	uint16_t rej_sts;            /* NVMe/RDMA reject status, when rejected */
	bool rej_has_sts;
	/* CQEs received and not yet taken, by CID. */
	struct nvme_cqe got[EVIL_CQE_RING];
	bool got_valid[EVIL_CQE_RING];
	unsigned ngot;
};

/* A standard CM request: recfmt 0, qid, hrqsize, hsqsize (0-based). */
void evil_cm_std(struct evil_cm *cm, uint16_t qid, uint16_t hrqsize, uint16_t hsqsize);

/*
 * Resolves, sets up and connects. 0 when ESTABLISHED; -ECONNREFUSED when
 * rejected (c->rej_sts / rej_has_sts say with what); -errno otherwise.
 * c->name must be set. evil_conn_close() is needed either way.
 */
int evil_conn_open(struct evil_conn *c, const struct evil_target *t, const struct evil_cm *cm);
/* Disconnects (when connected) and frees everything. Safe on a partial open. */
void evil_conn_close(struct evil_conn *c);

/*
 * Stages one capsule: the 64-byte SQE followed by @icd_len bytes of @icd
 * (may be NULL: zeros), in one SEND. Nothing goes out until evil_flush().
 */
int evil_queue(struct evil_conn *c, const void *sqe, const void *icd, uint32_t icd_len);
int evil_flush(struct evil_conn *c);
/* evil_queue() + evil_flush(). */
int evil_send(struct evil_conn *c, const void *sqe, const void *icd, uint32_t icd_len);
/* Processes completions and CM events for up to @timeout_ms (0: what is there). */
void evil_poll(struct evil_conn *c, int timeout_ms);
/*
 * Waits for the CQE of @cid. 0 and *out; -ECONNRESET when the connection
 * broke first; -ETIMEDOUT.
 */
int evil_wait_cqe(struct evil_conn *c, uint16_t cid, struct nvme_cqe *out, int timeout_ms);

/* ------------------------------------------------------------------ */
/* NVMe helpers (evil_nvme.c).                                         */

extern int evil_failures;

/* "evil_host: " + message on stdout; evil_fail also counts a failure. */
void evil_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void evil_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* An SQE with PSDT = SGL and a null keyed SGL. */
void evil_sqe(struct nvme_sqe *s, uint8_t opc, uint16_t cid);
/* SGL1 = keyed (0x40) at c->data + off, @len bytes, the data MR's rkey. */
void evil_sgl_data(struct nvme_sqe *s, const struct evil_conn *c, size_t off, uint32_t len);
/* Raw SGL1: type byte, address, 24-bit length, key. */
void evil_sgl_raw(struct nvme_sqe *s, uint8_t type, uint64_t addr, uint32_t len, uint32_t key);
void evil_rw(struct nvme_sqe *s, uint8_t opc, uint16_t cid, uint64_t slba, uint32_t nblocks);

/*
 * Sends @sqe (+ in-capsule bytes) and checks the answer: @want is SCT|SC
 * (0 = success), and an error must carry DNR. Prints one line either way;
 * returns 0 when it matched, -1 when not (and counts a failure). With
 * @dw0_want >= 0 the CQE's DW0 must equal it too.
 */
int evil_expect(struct evil_conn *c, const char *what, const void *sqe, const void *icd,
		uint32_t icd_len, uint16_t want, int64_t dw0_want);

/* A controller as far as we bring it up: admin queue, maybe I/O queues. */
struct evil_ctrl {
	struct evil_conn admin;
	struct evil_conn io;
	uint16_t cntlid;
	uint32_t lba_size;
	uint16_t next_cid;
};

/* Fills the 1024-byte Connect data in c->data at offset 0 and the SQE. */
void evil_connect_cmd(struct nvme_sqe *s, struct evil_conn *c, const struct evil_target *t,
		      uint16_t cid, uint16_t qid, uint16_t sqsize, uint16_t cntlid);
/* Admin queue: CM connect, Connect, CC.EN = 1, CSTS.RDY, Identify NS 1. */
int evil_ctrl_up(struct evil_ctrl *x, const struct evil_target *t);
/* I/O queue @qid with @depth entries: CM connect (with @cm tweaks, may be NULL) + Connect. */
int evil_io_up(struct evil_ctrl *x, const struct evil_target *t, uint16_t qid, uint16_t depth,
	       const struct evil_cm *cm);
void evil_ctrl_down(struct evil_ctrl *x);
/* Writes @nblocks at @slba from a pattern, reads them back, compares. 0 or -1. */
int evil_verify_io(struct evil_ctrl *x, uint64_t slba, uint32_t nblocks, uint64_t seed);

#endif

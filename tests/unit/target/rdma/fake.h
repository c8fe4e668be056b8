/* SPDX-License-Identifier: MIT */
/*
 * A fake of the few transport/ functions target/rdma/req.c and target/rdma/xfer.c
 * call (QP staging and flushing, buffer pools, WC status names) and of
 * target/rdma/queue.c's rblk_rdma_queue_fail, so the request state machine and the
 * WR chains run without RDMA: staged WRs are kept for inspection, flushed
 * ones are logged, receives are "delivered" in the order they were posted,
 * and completions are handed in by the test.
 *
 * Queues are built here the way target/rdma/queue.c builds them, on a target from
 * the test transport (test_transport.h) for the core and the backend.
 */
#ifndef RBLK_TEST_RDMA_FAKE_H
#define RBLK_TEST_RDMA_FAKE_H

#include "target/rdma/rdma.h"
#include "test_transport.h"

#define FAKE_MAX_WR 512
#define FAKE_MAX_POSTED 4096

struct fake_wr {
	struct rblk_send_wr wr;           /* wr.sge points at sge below */
	struct rblk_sge sge[RBLK_REQ_MAX_IOV + 1];
	bool done;                        /* its completion was handed in */
};

struct fake_recv {
	uint64_t wr_id;
	struct rblk_sge sge[2];
	uint32_t num_sge;
};

struct rblk_qp {
	struct rblk_qp_caps caps;
	uint32_t qpn;                     /* on a fake SRQ: the completions' qp_num */
	struct fake_wr staged[FAKE_MAX_WR];
	unsigned nstaged;
	struct fake_recv rstaged[FAKE_MAX_WR];
	unsigned nrstaged;
	struct fake_wr posted[FAKE_MAX_POSTED];   /* every WR flushed, in order */
	unsigned nposted;
	struct fake_recv rposted[FAKE_MAX_POSTED];
	unsigned nrposted;
	unsigned rnext;                   /* next receive the "host" fills */
	unsigned send_flushes;            /* flush calls that posted something */
	int fail_send;                    /* next send flush: fail with this after... */
	unsigned fail_send_after;         /* ...posting this many */
};

/* A shared receive queue: receives delivered in the order they were posted. */
struct rblk_srq {
	uint32_t max_wr;
	uint32_t max_sge;
	struct fake_recv staged[FAKE_MAX_WR];
	unsigned nstaged;
	struct fake_recv posted[FAKE_MAX_POSTED];
	unsigned nposted;
	unsigned next;                    /* next receive the "host" fills */
	unsigned flushes;
};

struct rblk_mr_pool {
	size_t unit;
	uint32_t count;
	uint32_t nfree;
	uint32_t lkey;
	uint8_t *mem;
	bool *used;
};

extern unsigned fake_fail_calls;
extern unsigned fake_disconnects;
extern unsigned fake_rcq_drains;     /* rblk_pg_dev_drain_rcq() calls */

struct rblk_mr_pool *fake_pool_create(size_t unit, uint32_t count, uint32_t lkey);
void fake_pool_destroy(struct rblk_mr_pool *p);
void *rblk_mr_pool_unit(const struct rblk_mr_pool *pool, uint32_t index);

/* A device context with a pool of count units of unit bytes. */
struct rblk_pg_dev *fake_dev_create(size_t unit, uint32_t count, bool group_bufs);
/* The same with shared receives (the real target/rdma/srq.c over a fake SRQ). */
struct rblk_pg_dev *fake_dev_create_srq(size_t unit, uint32_t count, uint32_t srq_depth,
					uint32_t icd_size);
void fake_dev_destroy(struct rblk_pg_dev *dev);

struct fake_q_opts {
	uint16_t qid;
	uint16_t depth;
	uint32_t icd_size;
	uint32_t send_wr;      /* send-queue budget */
	unsigned max_sge;
	unsigned max_sge_rd;
	uint8_t ird;           /* RDMA READ depth */
	bool live;             /* else CONNECTING */
};

/*
 * A queue with every receive posted (and flushed); on a device with shared
 * receives, a queue attached to the SRQ (a new qp_num) with none of its own.
 */
struct rblk_rdma_queue *fq_create(struct tt_env *env, struct rblk_pg_dev *dev,
				  const struct fake_q_opts *o);
/* Fails it, runs the backend until every request is back, frees it. */
void fq_destroy(struct rblk_rdma_queue *q);

/*
 * The host sends a capsule: sqe plus len bytes of in-capsule data into the
 * next posted receive, and its completion is handled. Returns the receive.
 */
struct rblk_rdma_recv *fq_send(struct rblk_rdma_queue *q, const void *sqe, const void *data,
			       uint32_t len);
/* The same, but the state machine does not run (requests stay NEW). */
struct rblk_rdma_recv *fq_send_nostep(struct rblk_rdma_queue *q, const void *sqe,
				      const void *data, uint32_t len);
/* A receive completion on dev's SRQ for qp_num (a QP that may not exist). */
struct rblk_rdma_recv *fq_srq_deliver(struct rblk_pg_dev *dev, uint32_t qp_num,
				      enum rblk_wc_status st);
/* Binds a completed receive to a free request without processing it. */
struct rblk_rdma_req *fq_bind(struct rblk_rdma_queue *q);
/* A completion of kind for r (READ or SEND) with status. */
void fq_complete(struct rblk_rdma_req *r, enum rblk_rdma_wr_kind kind, enum rblk_wc_status st);
/* The same with the state machine held (r->in_process) so the test steps it. */
void fq_complete_nostep(struct rblk_rdma_req *r, enum rblk_rdma_wr_kind kind,
			enum rblk_wc_status st);
/* Completes every posted, not yet completed signaled WR in order, successfully. */
unsigned fq_complete_all(struct rblk_rdma_queue *q);
/* Backend, parking queue and run_on work until idle; then a flush of q. */
void fq_pump(struct tt_env *env, struct rblk_rdma_queue *q);

/* The request whose wr_id a posted WR carries. */
struct rblk_rdma_req *fq_wr_req(const struct fake_wr *w);

/* Builders. */
void fq_keyed(void *sqe, uint64_t addr, uint32_t len, uint32_t key, bool inv);
void fq_incapsule(void *sqe, uint32_t offset, uint32_t len);
void fq_rw(void *sqe, uint8_t opc, uint16_t cid, uint32_t nsid, uint64_t slba, uint32_t nlb);
void fq_connect(void *sqe, struct nvmf_connect_data *d, uint16_t qid, uint16_t sqsize,
		uint16_t cntlid, const uint8_t hostid[16]);

#endif

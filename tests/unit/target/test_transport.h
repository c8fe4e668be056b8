/* SPDX-License-Identifier: MIT */
/*
 * A test transport for the target core: capsules in, completions out.
 *
 * It implements the transport side of target/core.h the way the RDMA
 * transport does, minus the wire: rblk_req_init/parse, the SGL length rule
 * (rblk_sgl_check_len: exact, DSM >=), buffers in iov (optionally split into several), execute,
 * then it pumps the storage engines (the built-in backends' real queues)
 * and the run_on mailbox until the command completes, and captures the CQE and C2H data.
 * It also provides the rblk_transport_* entry points (listeners are only
 * counted), so rblk_target_create() works in unit tests.
 *
 * Single-threaded: run_on() work is queued and runs from tt_pump(), like a
 * poll group's mailbox; disconnect() only counts (tests then tear down).
 */
#ifndef RBLK_TEST_TRANSPORT_H
#define RBLK_TEST_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target/core.h"

#define TT_MAX_REQS 64
#define TT_HOSTNQN "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-4333-8444-555555555555"
#define TT_HOSTNQN2 "nqn.2014-08.org.nvmexpress:uuid:66666666-7777-4888-9999-aaaaaaaaaaaa"
#define TT_SUBNQN "nqn.2024-01.org.example:disk0"
#define TT_SUBNQN2 "nqn.2024-01.org.example:disk1"
#define TT_TIMEOUT_STATUS 0xFFFF

/* Status without the More bit (set whenever an error log entry was made). */
#define TT_SC(s) ((uint16_t)((s) & ~NVME_SC_MORE))

struct tt_env;
struct tt_queue;

struct tt_req {
	struct rblk_req req;
	struct tt_queue *q;
	bool busy;
	bool done;
	struct nvme_sqe sqe;
	uint8_t *buf;          /* data buffer handed over in iov */
	size_t buflen;
	struct nvme_cqe cqe;   /* the response */
	uint8_t *out;          /* C2H data as sent (malloc'd copy), outlen bytes */
	size_t outlen;
	bool data_sent;        /* C2H data went with the CQE */
};

struct tt_queue {
	struct rblk_sq sq;
	struct tt_env *env;
	struct tt_req reqs[TT_MAX_REQS];
	_Atomic unsigned disconnects; /* times the core asked to disconnect (any thread) */
};

struct tt_work {
	void (*fn)(void *arg);
	void *arg;
};

struct tt_env {
	struct rblk_target *tgt;
	struct rblk_tgt_pg pg; /* the test thread as the target's poll group 0 */
	struct tt_work work[256];
	unsigned nr_work;
	size_t iov_split;      /* > 0: data buffers split into iovs of this size */
	uint8_t hostid[16];
};

/* The test fabric's state (tt_fabric_*), reachable as tgt->transport. */
struct rblk_transport {
	struct rblk_target *tgt;
	unsigned listens;
	int listen_result;     /* what the fabric's listen() returns */
	bool started;
	unsigned stops;
	struct rblk_fabric_admit_stats admit; /* what the fabric's admit_stats() reports */
};

/* A namespace's counters, summed over the poll groups' slots. */
static inline struct rblk_tgt_ns_stats ns_stats(const struct rblk_tgt_ns *ns)
{
	struct rblk_tgt_ns_stats st = { 0 };

	rblk_tgt_ns_stats_read(ns, &st);
	return st;
}

/* rblk_target_create() on the test fabric instead of RDMA. */
int tt_target_create(const struct rblk_target_opts *opts, struct rblk_target **out);

/*
 * A target with opts (NULL = defaults) on the test fabric and the built-in
 * storage, whose backend queues are bq_depth deep (0: the default).
 */
struct tt_env *tt_env_create(const struct rblk_target_opts *opts, unsigned bq_depth);
/* Tears down every queue still open, then destroys the target. */
void tt_env_destroy(struct tt_env *env);
/* Runs mailbox work and completions, flushes and polls the storage engines; returns work done. */
unsigned tt_pump(struct tt_env *env);
/* The test transports' complete_io: queued, run by tt_pump(). */
void tt_complete_io(struct rblk_req *req);

struct tt_queue *tt_queue_create(struct tt_env *env, uint16_t cm_qid, uint16_t depth);
/* rblk_sq_teardown, drain, rblk_sq_destroy, free. */
void tt_queue_destroy(struct tt_queue *q);

/*
 * Sends one command. data/len: H2C payload (the SGL length is len, so a
 * mismatch tests the transport's length rule); for C2H commands len is the
 * SGL length and the data arrives in tr->out. Returns the request (done or,
 * for AERs, still held) or NULL when all slots are busy.
 */
struct tt_req *tt_send(struct tt_queue *q, const struct nvme_sqe *sqe, const void *data,
		       size_t len);
/* tt_send + pump until the CQE arrives; returns the kernel-style status (0xFFFF on timeout). */
uint16_t tt_cmd(struct tt_queue *q, const struct nvme_sqe *sqe, const void *data, size_t len,
		struct nvme_cqe *cqe, void *out, size_t outlen);
/* Frees a completed request's slot. */
void tt_req_release(struct tt_req *tr);
uint16_t tt_status(const struct nvme_cqe *cqe);

/* Command builders and one-call helpers. */
void tt_sqe(struct nvme_sqe *sqe, uint8_t opc, uint16_t cid, uint32_t nsid);
/* A fabrics command (opcode 0x7F) of that FCTYPE, otherwise as tt_sqe(). */
void tt_fabrics_sqe(struct nvme_sqe *sqe, uint8_t fctype, uint16_t cid);
/* Read / Write / Write Zeroes of nlb (1-based) blocks at slba. */
void tt_rw_sqe(struct nvme_rw_cmd *c, uint8_t opc, uint16_t cid, uint32_t nsid, uint64_t slba,
	       uint32_t nlb);
uint16_t tt_connect(struct tt_queue *q, const char *subnqn, const char *hostnqn, uint16_t qid,
		    uint16_t sqsize, uint16_t cntlid, uint32_t kato, uint8_t cattr,
		    struct nvme_cqe *cqe);
uint16_t tt_prop_get(struct tt_queue *q, uint32_t ofst, bool eight, uint64_t *val);
uint16_t tt_prop_set(struct tt_queue *q, uint32_t ofst, uint64_t val);
/*
 * After CC.SHN: reads CSTS (into *csts) until SHST is no longer 01b
 * (processing), for at most 10 s. The Property Get status.
 */
uint16_t tt_wait_shutdown(struct tt_queue *q, uint64_t *csts);
/* Connect qid 0 + enable (6.1.192 sequence); returns the cntlid or 0 on failure. */
uint16_t tt_admin_bringup(struct tt_queue *q, const char *subnqn, const char *hostnqn,
			  uint32_t kato);
uint16_t tt_identify(struct tt_queue *q, uint8_t cns, uint32_t nsid, uint8_t csi, void *buf);
uint16_t tt_get_log(struct tt_queue *q, uint8_t lid, uint32_t nsid, uint64_t lpo, uint32_t len,
		    bool rae, void *buf);
uint16_t tt_set_features(struct tt_queue *q, uint8_t fid, uint32_t cdw11, uint32_t *dw0);
uint16_t tt_get_features(struct tt_queue *q, uint8_t fid, uint8_t sel, uint32_t cdw11,
			 uint32_t *dw0, void *buf, size_t len);
uint16_t tt_rw(struct tt_queue *q, uint8_t opc, uint32_t nsid, uint64_t slba, uint32_t nlb,
	       uint16_t control, void *buf, size_t len);

/* A sparse temp file of size bytes; path written to buf (unlink it when done). */
int tt_tempfile(char *buf, size_t len, uint64_t size);

/* Adds TT_SUBNQN (any host) with a namespace at path; returns the subsystem. */
struct rblk_subsystem *tt_add_subsys(struct tt_env *env, const char *nqn, const char *path,
				     uint32_t *nsid);

#endif

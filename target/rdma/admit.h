/* SPDX-License-Identifier: MIT */
/*
 * Admission control for RDMA connections (target/rdma/admit.c): which
 * CONNECT_REQUESTs the target takes, and how long a connection may stay
 * without a Fabrics Connect.
 *
 * A connection costs its receive buffers, requests and CQ entries from the
 * moment the CM accepts it, before the host has said who it is. Without a
 * bound, a client that opens connections and never sends Connect exhausts
 * the target for everyone. So: a connection is "pending" from the accept
 * until its Connect succeeds; pending ones are bounded in all and per host
 * address, all connections are bounded in all, and a pending one older than
 * connect_timeout_ms is disconnected. The bounds come from
 * struct rblk_target_opts.
 */
#ifndef RBLK_TARGET_RDMA_ADMIT_H
#define RBLK_TARGET_RDMA_ADMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <rblk/target.h>

struct rblk_transport;
struct rblk_rdma_queue;

enum rblk_rdma_admit_verdict {
	RBLK_ADMIT_OK = 0,
	RBLK_ADMIT_QUEUES,        /* max_queues connections exist */
	RBLK_ADMIT_PENDING,       /* max_pending_queues wait for their Connect */
	RBLK_ADMIT_PENDING_ADDR,  /* max_pending_per_addr of them from this address */
	RBLK_ADMIT_NR_VERDICTS,
};

/* What the transport holds when a CONNECT_REQUEST comes. */
struct rblk_rdma_admit_view {
	unsigned queues;              /* connections alive */
	unsigned pending;             /* of which without a Connect yet */
	unsigned pending_from_addr;   /* of those, from the requester's address */
};

/* Pure: the verdict for one more connection. */
enum rblk_rdma_admit_verdict rblk_rdma_admit_decide(const struct rblk_target_opts *o,
						    const struct rblk_rdma_admit_view *v);
const char *rblk_rdma_admit_verdict_str(enum rblk_rdma_admit_verdict v);

/* A host address as admission compares it: the IP, not the port. */
struct rblk_rdma_admit_key {
	sa_family_t family;
	uint8_t addr[16];
};
void rblk_rdma_admit_key_of(const struct sockaddr *sa, struct rblk_rdma_admit_key *out);

/*
 * CM thread, for a CONNECT_REQUEST from @peer that passed the NVMe/RDMA
 * checks: 0, or -EBUSY after logging (at most once a second per bound, with
 * the count of those not logged) who was refused and by which bound.
 */
int rblk_rdma_admit(struct rblk_transport *t, const struct sockaddr *peer, const char *peer_str);

/* Queue allocation: the new queue counts as alive and pending from now. */
void rblk_rdma_admit_add(struct rblk_transport *t, struct rblk_rdma_queue *q);
/* The queue's Connect succeeded (its poll group's thread): no longer pending. */
void rblk_rdma_admit_connected(struct rblk_rdma_queue *q);
/* The queue is being freed (any thread): it no longer counts at all. */
void rblk_rdma_admit_release(struct rblk_transport *t, struct rblk_rdma_queue *q);
/*
 * Poll group tick: a queue still pending connect_timeout_ms after its accept
 * is disconnected, with a log line naming it; true if this did so.
 */
bool rblk_rdma_admit_tick(struct rblk_rdma_queue *q, uint64_t now_ms);

#endif

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
 *
 * A bound on pending connections does not lock an address out: a new
 * connection from an address that has pending ones takes the place of the
 * one of them that has waited longest (it is evicted: disconnected by its
 * poll group), so a host that sends its Connect at once gets in even when
 * it shares its address (NAT, a container host) with a client that never
 * does. A connection only ever displaces one from its own address, so
 * nobody can use this against another host; an address without pending
 * connections is refused at the global bound as before. Evicted connections
 * still being torn down are bounded per address too (max_pending_per_addr),
 * so a flood costs the target at most that much teardown work at a time.
 */
#ifndef RBLK_TARGET_RDMA_ADMIT_H
#define RBLK_TARGET_RDMA_ADMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <rblk/target.h>

struct rblk_transport;
struct rblk_rdma_queue;

enum rblk_rdma_admit_verdict {
	RBLK_ADMIT_OK = 0,
	RBLK_ADMIT_EVICT,         /* admitted in place of the address's oldest pending one */
	/* Refused: */
	RBLK_ADMIT_QUEUES,        /* max_queues connections exist (evicted ones included) */
	RBLK_ADMIT_PENDING,       /* max_pending_queues wait for their Connect, and this
				   * address has none to give up (or no room to evict) */
	RBLK_ADMIT_PENDING_ADDR,  /* max_pending_per_addr of them from this address, and
				   * as many of its evicted ones are still in teardown */
	RBLK_ADMIT_NR_VERDICTS,
};

/* What the transport holds when a CONNECT_REQUEST comes. */
struct rblk_rdma_admit_view {
	unsigned queues;              /* connections alive */
	unsigned pending;             /* of which without a Connect yet */
	unsigned pending_from_addr;   /* of those, from the requester's address */
	unsigned evicting_from_addr;  /* evicted from that address, not yet freed */
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

/* Where one connection stands in the table below. */
enum rblk_rdma_admit_state {
	RBLK_ADMIT_Q_NONE = 0,    /* not in the table yet */
	RBLK_ADMIT_Q_PENDING,     /* on `waiting`, counted in `pending` */
	RBLK_ADMIT_Q_EVICTED,     /* on `waiting`, counted in `evicting`: disconnect asked for */
	RBLK_ADMIT_Q_CONNECTED,   /* its Connect succeeded: off `waiting` */
	RBLK_ADMIT_Q_RELEASED,    /* freed: counted nowhere */
};
const char *rblk_rdma_admit_state_str(enum rblk_rdma_admit_state s);

/* A connection's place in the table, embedded in the transport's queue. */
struct rblk_rdma_admit_entry {
	enum rblk_rdma_admit_state state;
	struct rblk_rdma_admit_key key;
	uint64_t accepted_ms;
	TAILQ_ENTRY(rblk_rdma_admit_entry) link; /* on `waiting` */
};

/*
 * The counts admission decides on. No lock of its own: the transport holds
 * it under t->qlock. `waiting` is in accept order, oldest first, and holds
 * at most max_pending_queues pending entries and as many evicted ones per
 * address as that address may have pending (CONNECT_REQUESTs are rare, so
 * it is scanned for the requester's address rather than hashed).
 */
struct rblk_rdma_admit_table {
	unsigned queues;                  /* entries added and not released */
	unsigned pending;                 /* of which RBLK_ADMIT_Q_PENDING */
	unsigned evicting;                /* of which RBLK_ADMIT_Q_EVICTED */
	TAILQ_HEAD(, rblk_rdma_admit_entry) waiting; /* PENDING and EVICTED ones */
	uint64_t verdicts[RBLK_ADMIT_NR_VERDICTS]; /* per verdict since start, OK not counted */
	uint64_t quiet[RBLK_ADMIT_NR_VERDICTS];    /* not yet logged */
	uint64_t logged_ms[RBLK_ADMIT_NR_VERDICTS];
};

void rblk_rdma_admit_table_init(struct rblk_rdma_admit_table *tb);
/*
 * The verdict for a connection from @key (fills @v with what it saw) and
 * counts it. The caller adds the entry if the verdict admits it. On
 * RBLK_ADMIT_EVICT, *@victim is the address's oldest pending entry, now
 * RBLK_ADMIT_Q_EVICTED: the caller has its connection disconnected (the
 * entry stays until it is released); otherwise *@victim is NULL.
 */
enum rblk_rdma_admit_verdict rblk_rdma_admit_table_check(struct rblk_rdma_admit_table *tb,
							 const struct rblk_target_opts *o,
							 const struct rblk_rdma_admit_key *key,
							 struct rblk_rdma_admit_view *v,
							 struct rblk_rdma_admit_entry **victim);
/* A new connection: alive and pending from @now_ms, newest on `waiting`. */
void rblk_rdma_admit_table_add(struct rblk_rdma_admit_table *tb, struct rblk_rdma_admit_entry *e,
			       const struct rblk_rdma_admit_key *key, uint64_t now_ms);
/*
 * Its Connect succeeded: no longer pending. A no-op unless it was: an
 * evicted one whose Connect raced with the eviction is disconnected anyway
 * and stays counted as evicting until released.
 */
void rblk_rdma_admit_table_connected(struct rblk_rdma_admit_table *tb,
				     struct rblk_rdma_admit_entry *e);
/* It is freed: it counts nowhere. Exactly once per entry added (asserted). */
void rblk_rdma_admit_table_release(struct rblk_rdma_admit_table *tb,
				   struct rblk_rdma_admit_entry *e);
/*
 * A flood must not become a flood of log lines: true at most once a second
 * per verdict, with *@quiet the number counted since the previous true.
 */
bool rblk_rdma_admit_table_should_log(struct rblk_rdma_admit_table *tb,
				      enum rblk_rdma_admit_verdict verdict, uint64_t now_ms,
				      uint64_t *quiet);

/*
 * CM thread, for a CONNECT_REQUEST from @peer that passed the NVMe/RDMA
 * checks: 0, or -EBUSY after logging (at most once a second per bound, with
 * the count of those not logged) who was refused and by which bound. 0 may
 * come with an eviction: the evicted queue's poll group is asked to
 * disconnect it (logged like a refusal).
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

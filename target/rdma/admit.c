/* SPDX-License-Identifier: MIT */
/*
 * Admission control for RDMA connections (see target/rdma/admit.h): the
 * counts live in the transport under t->qlock, which already guards the
 * number of queue objects; pending queues are on a list there so a
 * CONNECT_REQUEST can count those from its own address (the list holds at
 * most max_pending_queues entries, and CONNECT_REQUESTs are rare).
 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "target/rdma/admit.h"
#include "target/rdma/listener.h"

enum rblk_rdma_admit_verdict rblk_rdma_admit_decide(const struct rblk_target_opts *o,
						    const struct rblk_rdma_admit_view *v)
{
	if (v->queues >= o->max_queues)
		return RBLK_ADMIT_QUEUES;
	if (v->pending >= o->max_pending_queues)
		return RBLK_ADMIT_PENDING;
	if (v->pending_from_addr >= o->max_pending_per_addr)
		return RBLK_ADMIT_PENDING_ADDR;
	return RBLK_ADMIT_OK;
}

const char *rblk_rdma_admit_verdict_str(enum rblk_rdma_admit_verdict v)
{
	switch (v) {
	case RBLK_ADMIT_OK:
		return "admitted";
	case RBLK_ADMIT_QUEUES:
		return "the target holds max_queues connections";
	case RBLK_ADMIT_PENDING:
		return "max_pending_queues connections wait for their Connect";
	case RBLK_ADMIT_PENDING_ADDR:
		return "max_pending_per_addr connections from this address wait for their Connect";
	case RBLK_ADMIT_NR_VERDICTS:
		break;
	}
	return "?";
}

void rblk_rdma_admit_key_of(const struct sockaddr *sa, struct rblk_rdma_admit_key *out)
{
	memset(out, 0, sizeof(*out));
	if (!sa)
		return;
	out->family = sa->sa_family;
	if (sa->sa_family == AF_INET)
		memcpy(out->addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else if (sa->sa_family == AF_INET6)
		memcpy(out->addr, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	/* AF_IB and others: one bucket per family (no such host here yet). */
}

static bool same_key(const struct rblk_rdma_admit_key *a, const struct rblk_rdma_admit_key *b)
{
	return a->family == b->family && !memcmp(a->addr, b->addr, sizeof(a->addr));
}

int rblk_rdma_admit(struct rblk_transport *t, const struct sockaddr *peer, const char *peer_str)
{
	const struct rblk_target_opts *o = rblk_tgt_opts(t->tgt);
	struct rblk_rdma_admit_view v = { 0 };
	struct rblk_rdma_admit_key key;
	enum rblk_rdma_admit_verdict verdict;
	struct rblk_rdma_queue *q;
	uint64_t now, quiet = 0;
	bool say = false;

	rblk_rdma_admit_key_of(peer, &key);
	pthread_mutex_lock(&t->qlock);
	v.queues = t->nr_queues;
	v.pending = t->nr_pending;
	TAILQ_FOREACH(q, &t->pending, pending_link)
		v.pending_from_addr += same_key(&q->peer_key, &key);
	verdict = rblk_rdma_admit_decide(o, &v);
	if (verdict != RBLK_ADMIT_OK) {
		/* A flood must not become a flood of log lines: one a second per bound. */
		now = rblk_clock_ms();
		t->admit_refused[verdict]++;
		if (now - t->admit_logged_ms[verdict] >= 1000) {
			say = true;
			quiet = t->admit_quiet[verdict];
			t->admit_quiet[verdict] = 0;
			t->admit_logged_ms[verdict] = now;
		} else {
			t->admit_quiet[verdict]++;
		}
	}
	pthread_mutex_unlock(&t->qlock);
	if (verdict == RBLK_ADMIT_OK)
		return 0;
	if (say && quiet)
		RBLK_NOTICE("%s: connection refused: %s (%u alive, %u pending, %u pending from "
			    "this address); %" PRIu64 " more refused since the last such line",
			    peer_str, rblk_rdma_admit_verdict_str(verdict), v.queues, v.pending,
			    v.pending_from_addr, quiet);
	else if (say)
		RBLK_NOTICE("%s: connection refused: %s (%u alive, %u pending, %u pending from "
			    "this address)", peer_str, rblk_rdma_admit_verdict_str(verdict),
			    v.queues, v.pending, v.pending_from_addr);
	return -EBUSY;
}

void rblk_rdma_admit_add(struct rblk_transport *t, struct rblk_rdma_queue *q)
{
	rblk_rdma_admit_key_of(rblk_cm_id_peer_addr(q->cm_id), &q->peer_key);
	q->accepted_ms = rblk_clock_ms();
	pthread_mutex_lock(&t->qlock);
	t->nr_queues++;
	t->nr_pending++;
	q->pending = true;
	TAILQ_INSERT_TAIL(&t->pending, q, pending_link);
	pthread_mutex_unlock(&t->qlock);
}

static void unlink_pending_locked(struct rblk_transport *t, struct rblk_rdma_queue *q)
{
	if (!q->pending)
		return;
	TAILQ_REMOVE(&t->pending, q, pending_link);
	t->nr_pending--;
	q->pending = false;
}

void rblk_rdma_admit_connected(struct rblk_rdma_queue *q)
{
	struct rblk_transport *t = q->t;

	pthread_mutex_lock(&t->qlock);
	unlink_pending_locked(t, q);
	pthread_mutex_unlock(&t->qlock);
}

void rblk_rdma_admit_release(struct rblk_transport *t, struct rblk_rdma_queue *q)
{
	pthread_mutex_lock(&t->qlock);
	unlink_pending_locked(t, q);
	t->nr_queues--;
	pthread_cond_broadcast(&t->queues_cv);
	pthread_mutex_unlock(&t->qlock);
}

bool rblk_rdma_admit_tick(struct rblk_rdma_queue *q, uint64_t now_ms)
{
	uint32_t limit = rblk_tgt_opts(q->t->tgt)->connect_timeout_ms;

	/* q->pending changes on this thread only, until the queue is freed. */
	if (!q->pending || now_ms - q->accepted_ms < limit || q->state > RBLK_RDMA_Q_LIVE)
		return false;
	RBLK_NOTICE("%s qid %u: no Fabrics Connect within %u ms of the accept (connect_timeout_ms): "
		    "disconnecting", q->peer, q->plan.qid, limit);
	rblk_rdma_queue_fail(q, "no Connect in time");
	return true;
}

/* SPDX-License-Identifier: MIT */
/*
 * Admission control for RDMA connections (see target/rdma/admit.h): the
 * verdicts, and the table of counts they are made on, which lives in the
 * transport under t->qlock (it already guards the number of queue objects).
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "target/rdma/admit.h"
#include "target/rdma/listener.h"

enum rblk_rdma_admit_verdict rblk_rdma_admit_decide(const struct rblk_target_opts *o,
						    const struct rblk_rdma_admit_view *v)
{
	/* An evicted connection is alive until its poll group frees it: no room here. */
	if (v->queues >= o->max_queues)
		return RBLK_ADMIT_QUEUES;
	if (v->pending < o->max_pending_queues && v->pending_from_addr < o->max_pending_per_addr)
		return RBLK_ADMIT_OK;
	/* Only ever at the expense of the requester's own address (admit.h). */
	if (v->pending_from_addr && v->evicting_from_addr < o->max_pending_per_addr)
		return RBLK_ADMIT_EVICT;
	if (v->pending >= o->max_pending_queues)
		return RBLK_ADMIT_PENDING;
	return RBLK_ADMIT_PENDING_ADDR;
}

const char *rblk_rdma_admit_verdict_str(enum rblk_rdma_admit_verdict v)
{
	switch (v) {
	case RBLK_ADMIT_OK:
		return "admitted";
	case RBLK_ADMIT_EVICT:
		return "admitted in place of this address's oldest connection without a Connect";
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

/* ------------------------------------------------------------------------ */
/* The table (no locks, no queues: the unit tests step it).                 */

const char *rblk_rdma_admit_state_str(enum rblk_rdma_admit_state s)
{
	switch (s) {
	case RBLK_ADMIT_Q_NONE:
		return "none";
	case RBLK_ADMIT_Q_PENDING:
		return "pending";
	case RBLK_ADMIT_Q_EVICTED:
		return "evicted";
	case RBLK_ADMIT_Q_CONNECTED:
		return "connected";
	case RBLK_ADMIT_Q_RELEASED:
		return "released";
	}
	return "?";
}

void rblk_rdma_admit_table_init(struct rblk_rdma_admit_table *tb)
{
	memset(tb, 0, sizeof(*tb));
	TAILQ_INIT(&tb->waiting);
}

enum rblk_rdma_admit_verdict rblk_rdma_admit_table_check(struct rblk_rdma_admit_table *tb,
							 const struct rblk_target_opts *o,
							 const struct rblk_rdma_admit_key *key,
							 struct rblk_rdma_admit_view *v,
							 struct rblk_rdma_admit_entry **victim)
{
	struct rblk_rdma_admit_entry *e, *oldest = NULL;
	enum rblk_rdma_admit_verdict verdict;

	memset(v, 0, sizeof(*v));
	v->queues = tb->queues;
	v->pending = tb->pending;
	TAILQ_FOREACH(e, &tb->waiting, link) {
		if (!same_key(&e->key, key))
			continue;
		if (e->state == RBLK_ADMIT_Q_EVICTED) {
			v->evicting_from_addr++;
			continue;
		}
		v->pending_from_addr++;
		/* In accept order: the first one has waited longest. */
		if (!oldest)
			oldest = e;
	}
	verdict = rblk_rdma_admit_decide(o, v);
	*victim = NULL;
	if (verdict == RBLK_ADMIT_EVICT) {
		/*
		 * Counted off pending here, under the lock that the Connect's
		 * rblk_rdma_admit_table_connected() takes too: the new connection
		 * takes its place at once, and a queue whose Connect got there
		 * first is no longer PENDING, so it is never chosen.
		 */
		oldest->state = RBLK_ADMIT_Q_EVICTED;
		tb->pending--;
		tb->evicting++;
		*victim = oldest;
	}
	if (verdict != RBLK_ADMIT_OK)
		tb->verdicts[verdict]++;
	return verdict;
}

void rblk_rdma_admit_table_add(struct rblk_rdma_admit_table *tb, struct rblk_rdma_admit_entry *e,
			       const struct rblk_rdma_admit_key *key, uint64_t now_ms)
{
	assert(e->state == RBLK_ADMIT_Q_NONE);
	e->key = *key;
	e->accepted_ms = now_ms;
	e->state = RBLK_ADMIT_Q_PENDING;
	TAILQ_INSERT_TAIL(&tb->waiting, e, link);
	tb->queues++;
	tb->pending++;
}

void rblk_rdma_admit_table_connected(struct rblk_rdma_admit_table *tb,
				     struct rblk_rdma_admit_entry *e)
{
	if (e->state != RBLK_ADMIT_Q_PENDING)
		return;
	TAILQ_REMOVE(&tb->waiting, e, link);
	assert(tb->pending);
	tb->pending--;
	e->state = RBLK_ADMIT_Q_CONNECTED;
}

void rblk_rdma_admit_table_release(struct rblk_rdma_admit_table *tb,
				   struct rblk_rdma_admit_entry *e)
{
	assert(e->state != RBLK_ADMIT_Q_NONE && e->state != RBLK_ADMIT_Q_RELEASED);
	/* Without asserts, a second release must still not count the slot off twice. */
	if (e->state == RBLK_ADMIT_Q_NONE || e->state == RBLK_ADMIT_Q_RELEASED)
		return;
	if (e->state == RBLK_ADMIT_Q_EVICTED) {
		TAILQ_REMOVE(&tb->waiting, e, link);
		assert(tb->evicting);
		tb->evicting--;
	} else {
		rblk_rdma_admit_table_connected(tb, e);
	}
	assert(tb->queues);
	tb->queues--;
	e->state = RBLK_ADMIT_Q_RELEASED;
}

bool rblk_rdma_admit_table_should_log(struct rblk_rdma_admit_table *tb,
				      enum rblk_rdma_admit_verdict verdict, uint64_t now_ms,
				      uint64_t *quiet)
{
	if (now_ms - tb->logged_ms[verdict] < 1000) {
		tb->quiet[verdict]++;
		return false;
	}
	*quiet = tb->quiet[verdict];
	tb->quiet[verdict] = 0;
	tb->logged_ms[verdict] = now_ms;
	return true;
}

/* ------------------------------------------------------------------------ */
/* The transport's side: the table under t->qlock.                          */

/* The log line for a verdict other than OK (the caller rate-limits it). */
static void log_verdict(const struct rblk_target_opts *o, const char *peer_str,
			enum rblk_rdma_admit_verdict verdict, const struct rblk_rdma_admit_view *v,
			const char *victim, uint64_t waited_ms, uint64_t quiet)
{
	char more[96] = "";

	if (quiet)
		snprintf(more, sizeof(more), "; %" PRIu64 " more since the last such line", quiet);
	if (verdict == RBLK_ADMIT_EVICT)
		RBLK_NOTICE("%s: %s reached (%u pending, %u from this address, %u from it being "
			    "evicted): evicting %s, which has waited %" PRIu64 " ms without a "
			    "Connect, for the new connection%s", peer_str,
			    v->pending_from_addr >= o->max_pending_per_addr ? "max_pending_per_addr"
									  : "max_pending_queues",
			    v->pending, v->pending_from_addr, v->evicting_from_addr, victim,
			    waited_ms, more);
	else
		RBLK_NOTICE("%s: connection refused: %s (%u alive, %u pending, %u pending from "
			    "this address, %u from it being evicted)%s", peer_str,
			    rblk_rdma_admit_verdict_str(verdict), v->queues, v->pending,
			    v->pending_from_addr, v->evicting_from_addr, more);
}

int rblk_rdma_admit(struct rblk_transport *t, const struct sockaddr *peer, const char *peer_str)
{
	const struct rblk_target_opts *o = rblk_tgt_opts(t->tgt);
	struct rblk_rdma_admit_entry *victim;
	struct rblk_rdma_queue *vq = NULL;
	struct rblk_rdma_admit_view v;
	struct rblk_rdma_admit_key key;
	enum rblk_rdma_admit_verdict verdict;
	char victim_str[RBLK_ADDR_STRLEN + 16] = "";
	uint64_t now = rblk_clock_ms(), quiet = 0, waited = 0;
	bool say = false;

	rblk_rdma_admit_key_of(peer, &key);
	pthread_mutex_lock(&t->qlock);
	verdict = rblk_rdma_admit_table_check(&t->admit, o, &key, &v, &victim);
	if (victim) {
		struct rblk_rdma_queue *q = rblk_container_of(victim, struct rblk_rdma_queue, admit);

		waited = now - victim->accepted_ms;
		snprintf(victim_str, sizeof(victim_str), "%s qid %u", q->peer, q->plan.qid);
		/*
		 * Its last reference may be gone already: then it is being freed
		 * (its release waits for this lock) and needs no disconnect. Else
		 * the reference keeps it until its poll group has the message.
		 */
		if (rblk_rdma_queue_tryget(q))
			vq = q;
	}
	if (verdict != RBLK_ADMIT_OK)
		say = rblk_rdma_admit_table_should_log(&t->admit, verdict, now, &quiet);
	pthread_mutex_unlock(&t->qlock);
	if (vq) {
		rblk_rdma_queue_request_disconnect(vq, RBLK_RDMA_DISC_EVICTED);
		rblk_rdma_queue_put(vq);
	}
	if (say)
		log_verdict(o, peer_str, verdict, &v, victim_str, waited, quiet);
	return verdict == RBLK_ADMIT_OK || verdict == RBLK_ADMIT_EVICT ? 0 : -EBUSY;
}

void rblk_rdma_admit_stats(struct rblk_transport *t, struct rblk_fabric_admit_stats *out)
{
	const struct rblk_rdma_admit_table *tb = &t->admit;

	pthread_mutex_lock(&t->qlock);
	out->connections = tb->queues;
	out->pending = tb->pending;
	out->evicting = tb->evicting;
	out->evicted = tb->verdicts[RBLK_ADMIT_EVICT];
	out->refused_queues = tb->verdicts[RBLK_ADMIT_QUEUES];
	out->refused_pending = tb->verdicts[RBLK_ADMIT_PENDING];
	out->refused_pending_addr = tb->verdicts[RBLK_ADMIT_PENDING_ADDR];
	pthread_mutex_unlock(&t->qlock);
}

void rblk_rdma_admit_add(struct rblk_transport *t, struct rblk_rdma_queue *q)
{
	struct rblk_rdma_admit_key key;

	rblk_rdma_admit_key_of(rblk_cm_id_peer_addr(q->cm_id), &key);
	pthread_mutex_lock(&t->qlock);
	rblk_rdma_admit_table_add(&t->admit, &q->admit, &key, rblk_clock_ms());
	pthread_mutex_unlock(&t->qlock);
}

void rblk_rdma_admit_connected(struct rblk_rdma_queue *q)
{
	struct rblk_transport *t = q->t;

	pthread_mutex_lock(&t->qlock);
	rblk_rdma_admit_table_connected(&t->admit, &q->admit);
	pthread_mutex_unlock(&t->qlock);
}

void rblk_rdma_admit_release(struct rblk_transport *t, struct rblk_rdma_queue *q)
{
	pthread_mutex_lock(&t->qlock);
	rblk_rdma_admit_table_release(&t->admit, &q->admit);
	pthread_cond_broadcast(&t->queues_cv);
	pthread_mutex_unlock(&t->qlock);
}

bool rblk_rdma_admit_tick(struct rblk_rdma_queue *q, uint64_t now_ms)
{
	uint32_t limit = rblk_tgt_opts(q->t->tgt)->connect_timeout_ms;

	/*
	 * The sq's state, not the table's: it is this thread's, and it leaves
	 * RBLK_SQ_NEW exactly when the Connect succeeds. accepted_ms is set
	 * before the queue reaches this thread and never changes.
	 */
	if (q->sq.state != RBLK_SQ_NEW || now_ms - q->admit.accepted_ms < limit ||
	    q->state > RBLK_RDMA_Q_LIVE)
		return false;
	RBLK_NOTICE("%s qid %u: no Fabrics Connect within %u ms of the accept (connect_timeout_ms): "
		    "disconnecting", q->peer, q->plan.qid, limit);
	rblk_rdma_queue_fail(q, "no Connect in time");
	return true;
}

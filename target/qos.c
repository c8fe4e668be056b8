/* SPDX-License-Identifier: MIT */
/*
 * Per-namespace QoS: rate limits on Reads and Writes with SPDK's names
 * (rw_ios_per_sec, rw_mbytes_per_sec, r_mbytes_per_sec, w_mbytes_per_sec),
 * held across every controller, queue and poll group of the namespace.
 *
 * Each limit is a token bucket shared by the poll groups (struct
 * rblk_tgt_qos, its own cache lines). Time refills it, at most once a
 * slice (RBLK_QOS_SLICE_NS) and by whichever group first finds it empty, so
 * no timer thread is needed and the shared line is written once per command
 * and once per slice. A command may go while every bucket it draws from
 * holds credit (> 0), and is then charged in full: a command larger than
 * the credit left, or than a whole second's budget, goes into debt that
 * later refills pay back, so it makes progress and the long-run rate holds
 * (SPDK does the same). Two groups racing for the last credit both go; the
 * debt evens it out.
 *
 * A command that finds no credit waits, never fails: it joins its poll
 * group's FIFO for the namespace (struct rblk_tgt_qos_pg, linked through
 * the request itself, nothing allocated), and the group's loop starts the
 * waiters in order once credit returns (rblk_tgt_pg_qos_poll, every
 * iteration while any wait; the loop sleeps at most a millisecond then).
 * A command that arrives while others of its group wait queues behind them.
 *
 * A namespace without limits pays one relaxed load of ns->qos_on, which
 * only a limit change writes (rblk_qos_admit in core.h).
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "target/core.h"

/* Credit units per I/O or byte: a refill is elapsed_ns x limit, exactly. */
#define UNIT 1000000000ull

static uint64_t clock_real(void)
{
	return rblk_clock_ns();
}

static uint64_t (*qos_now)(void) = clock_real;

void rblk_qos_set_clock(uint64_t (*now_ns)(void))
{
	qos_now = now_ns ? now_ns : clock_real;
}

int rblk_qos_init(struct rblk_tgt_ns *ns, unsigned nr_pgs)
{
	ns->qos = aligned_alloc(_Alignof(struct rblk_tgt_qos), sizeof(*ns->qos));
	ns->qos_pg = aligned_alloc(_Alignof(struct rblk_tgt_qos_pg), nr_pgs * sizeof(*ns->qos_pg));
	if (!ns->qos || !ns->qos_pg) {
		free(ns->qos);
		free(ns->qos_pg);
		ns->qos = NULL;
		ns->qos_pg = NULL;
		return -ENOMEM;
	}
	memset(ns->qos, 0, sizeof(*ns->qos));
	memset(ns->qos_pg, 0, nr_pgs * sizeof(*ns->qos_pg));
	for (unsigned i = 0; i < nr_pgs; i++) {
		ns->qos_pg[i].ns = ns;
		ns->qos_pg[i].tail = &ns->qos_pg[i].head;
	}
	atomic_init(&ns->qos_on, false);
	pthread_mutex_init(&ns->qos_lock, NULL);
	return 0;
}

void rblk_qos_fini(struct rblk_tgt_ns *ns)
{
	if (!ns->qos)
		return;
	/* Every waiter holds the namespace in flight: none is left now. */
	for (unsigned i = 0; i < ns->ss->tgt->nr_pgs; i++)
		assert(!ns->qos_pg[i].head);
	pthread_mutex_destroy(&ns->qos_lock);
	free(ns->qos);
	free(ns->qos_pg);
	ns->qos = NULL;
	ns->qos_pg = NULL;
}

void rblk_qos_set(struct rblk_tgt_ns *ns, const uint64_t per_sec[RBLK_QOS_NR])
{
	struct rblk_tgt_qos *q = ns->qos;
	bool was_on, on = false;

	pthread_mutex_lock(&ns->qos_lock);
	was_on = atomic_load_explicit(&ns->qos_on, memory_order_relaxed);
	/* Time before the change does not count at the new rate. */
	atomic_store_explicit(&q->refill_ns, qos_now(), memory_order_relaxed);
	for (int k = 0; k < RBLK_QOS_NR; k++) {
		uint64_t old = atomic_load_explicit(&q->per_sec[k], memory_order_relaxed);
		int64_t slice = (int64_t)(RBLK_QOS_SLICE_NS * per_sec[k]);

		atomic_store_explicit(&q->per_sec[k], per_sec[k], memory_order_relaxed);
		if (!per_sec[k])
			continue;
		on = true;
		/*
		 * A new limit starts with one slice of credit; a lowered one
		 * keeps at most that much of what was saved at the old rate.
		 * A store may lose a charge racing with it: one command's worth.
		 */
		if (!was_on || !old ||
		    atomic_load_explicit(&q->avail[k], memory_order_relaxed) > slice)
			atomic_store_explicit(&q->avail[k], slice, memory_order_relaxed);
	}
	/* Release: a group that sees qos_on sees the limits and the credit. */
	atomic_store_explicit(&ns->qos_on, on, memory_order_release);
	pthread_mutex_unlock(&ns->qos_lock);
}

void rblk_qos_get(const struct rblk_tgt_ns *ns, uint64_t per_sec[RBLK_QOS_NR])
{
	for (int k = 0; k < RBLK_QOS_NR; k++)
		per_sec[k] = atomic_load_explicit(&ns->qos->per_sec[k], memory_order_relaxed);
}

/* Whether every limited bucket the cost draws from holds credit. */
static bool has_credit(struct rblk_tgt_qos *q, const uint64_t cost[RBLK_QOS_NR])
{
	for (int k = 0; k < RBLK_QOS_NR; k++)
		if (cost[k] && atomic_load_explicit(&q->per_sec[k], memory_order_relaxed) &&
		    atomic_load_explicit(&q->avail[k], memory_order_relaxed) <= 0)
			return false;
	return true;
}

/*
 * Credit after @elapsed ns at @rate from @old, capped: old + elapsed x rate
 * without overflow, whatever the time (a debt is paid by all of it).
 */
static int64_t refilled(int64_t old, uint64_t elapsed, uint64_t rate)
{
	const uint64_t window = RBLK_QOS_BURST_SLICES * RBLK_QOS_SLICE_NS;
	/* Saturated far below INT64_MAX: a byte limit of tens of GB/s over the window. */
	int64_t cap = rate > (uint64_t)(INT64_MAX / 4) / window ? INT64_MAX / 4
								 : (int64_t)(window * rate);
	uint64_t room;

	if (old >= cap)
		return old; /* saved at a higher limit: cut by rblk_qos_set() */
	room = (uint64_t)(cap - old);
	if (elapsed >= room / rate)
		return cap;
	return old + (int64_t)(elapsed * rate);
}

/*
 * Adds the credit of the time since the last refill, at most once a slice:
 * the group that moves refill_ns forward adds it, the others see the result.
 * What nobody used is capped at RBLK_QOS_BURST_SLICES of the limit, so an
 * idle namespace does not save up a burst.
 */
static void refill(struct rblk_tgt_qos *q, uint64_t now)
{
	uint64_t last = atomic_load_explicit(&q->refill_ns, memory_order_relaxed);

	if (now < last + RBLK_QOS_SLICE_NS)
		return;
	if (!atomic_compare_exchange_strong_explicit(&q->refill_ns, &last, now,
						     memory_order_relaxed, memory_order_relaxed))
		return;
	for (int k = 0; k < RBLK_QOS_NR; k++) {
		uint64_t rate = atomic_load_explicit(&q->per_sec[k], memory_order_relaxed);
		int64_t old;

		if (!rate)
			continue;
		old = atomic_load_explicit(&q->avail[k], memory_order_relaxed);
		while (!atomic_compare_exchange_weak_explicit(&q->avail[k], &old,
							      refilled(old, now - last, rate),
							      memory_order_relaxed,
							      memory_order_relaxed))
			;
	}
}

bool rblk_qos_take(struct rblk_tgt_qos *q, const uint64_t cost[RBLK_QOS_NR], uint64_t now_ns)
{
	if (!has_credit(q, cost)) {
		/* The clock only when the credit ran out: once a slice per waiting group. */
		refill(q, now_ns ? now_ns : qos_now());
		if (!has_credit(q, cost))
			return false;
	}
	for (int k = 0; k < RBLK_QOS_NR; k++)
		if (cost[k] && atomic_load_explicit(&q->per_sec[k], memory_order_relaxed))
			atomic_fetch_sub_explicit(&q->avail[k], (int64_t)cost[k],
						  memory_order_relaxed);
	return true;
}

/* A Read or Write: one I/O, and its transfer length in bytes. */
static void req_cost(const struct rblk_req *req, uint64_t cost[RBLK_QOS_NR])
{
	uint64_t bytes = (uint64_t)req->data_len * UNIT;
	bool write = req->cmd->opc == NVME_IO_WRITE;

	cost[RBLK_QOS_RW_IOS] = UNIT;
	cost[RBLK_QOS_RW_BYTES] = bytes;
	cost[RBLK_QOS_R_BYTES] = write ? 0 : bytes;
	cost[RBLK_QOS_W_BYTES] = write ? bytes : 0;
}

static bool req_take(struct rblk_req *req)
{
	uint64_t cost[RBLK_QOS_NR];

	req_cost(req, cost);
	return rblk_qos_take(req->ns->qos, cost, 0);
}

static void list_waiting(struct rblk_tgt_pg *pg, struct rblk_tgt_qos_pg *w)
{
	w->next = pg->qos_waiting;
	pg->qos_waiting = w;
	w->listed = true;
}

static void unlist_waiting(struct rblk_tgt_pg *pg, struct rblk_tgt_qos_pg *w)
{
	struct rblk_tgt_qos_pg **pw;

	for (pw = &pg->qos_waiting; *pw; pw = &(*pw)->next) {
		if (*pw == w) {
			*pw = w->next;
			break;
		}
	}
	w->listed = false;
}

bool rblk_qos_admit_slow(struct rblk_req *req, void (*go)(struct rblk_req *req))
{
	struct rblk_tgt_pg *pg = req->sq->pg;
	struct rblk_tgt_qos_pg *w = &req->ns->qos_pg[pg->id];

	/* Behind the group's earlier waiters, whatever the credit: arrival order. */
	if (!w->head && req_take(req))
		return true;
	req->resume = go;
	req->wait_next = NULL;
	if (!w->listed)
		list_waiting(pg, w);
	*w->tail = req;
	w->tail = &req->wait_next;
	rblk_stat_inc(&req->ns->pgstats[pg->id].qos_waits, 1);
	return false;
}

static struct rblk_req *pop(struct rblk_tgt_qos_pg *w)
{
	struct rblk_req *req = w->head;

	w->head = req->wait_next;
	if (!w->head)
		w->tail = &w->head;
	req->wait_next = NULL;
	return req;
}

unsigned rblk_tgt_pg_qos_poll(struct rblk_tgt_pg *pg)
{
	struct rblk_tgt_qos_pg *w = pg->qos_waiting, *next;
	unsigned n = 0;

	/*
	 * Taken off the group first: a command started here may complete at
	 * once, and a new one of the same namespace may then wait (listing its
	 * FIFO again) before this pass is over.
	 */
	pg->qos_waiting = NULL;
	for (; w; w = next) {
		next = w->next;
		w->listed = false;
		while (w->head) {
			struct rblk_req *req = w->head;

			/* Limits removed (or the namespace going): everyone goes. */
			if (atomic_load_explicit(&w->ns->qos_on, memory_order_acquire) &&
			    !req_take(req))
				break;
			pop(w);
			req->resume(req);
			n++;
		}
		/*
		 * Listed again meanwhile only if a command came while it was
		 * empty. Never left listed empty: the namespace may be freed
		 * once its last waiter is done.
		 */
		if (w->head && !w->listed)
			list_waiting(pg, w);
		else if (!w->head && w->listed)
			unlist_waiting(pg, w);
	}
	return n;
}

void rblk_qos_sq_teardown(struct rblk_sq *sq)
{
	struct rblk_tgt_pg *pg = sq->pg;
	struct rblk_tgt_qos_pg **pw, *w;
	struct rblk_req *aborted = NULL, **atail = &aborted, *req;

	if (!pg)
		return;
	for (pw = &pg->qos_waiting; (w = *pw);) {
		struct rblk_req **pp = &w->head;

		while ((req = *pp)) {
			if (req->sq != sq) {
				pp = &req->wait_next;
				continue;
			}
			*pp = req->wait_next;
			req->wait_next = NULL;
			*atail = req;
			atail = &req->wait_next;
		}
		w->tail = pp;
		/* Unlisted now: the namespace may go as soon as its waiters are answered. */
		if (!w->head) {
			*pw = w->next;
			w->listed = false;
		} else {
			pw = &w->next;
		}
	}
	while ((req = aborted)) {
		aborted = req->wait_next;
		req->wait_next = NULL;
		rblk_req_complete(req, NVME_SC_ABORT_QUEUE | NVME_SC_DNR);
	}
}

/* ------------------------------------------------------------------------ */
/* The public API (include/rblk/target.h).                                   */

#define MIB (1024ull * 1024)

void rblk_ns_qos_init(struct rblk_ns_qos *qos)
{
	memset(qos, 0, sizeof(*qos));
	qos->size = sizeof(*qos);
}

/* The caller's struct, whatever its version, as this one (missing fields 0). */
static void qos_copy_in(struct rblk_ns_qos *dst, const struct rblk_ns_qos *src)
{
	rblk_ns_qos_init(dst);
	memcpy(dst, src, src->size < sizeof(*dst) ? src->size : sizeof(*dst));
	dst->size = sizeof(*dst);
}

int rblk_ns_qos_check(const struct rblk_ns_qos *qos, char *why, size_t len)
{
	static const char *const names[] = { "rw_ios_per_sec", "rw_mbytes_per_sec",
					      "r_mbytes_per_sec", "w_mbytes_per_sec" };
	struct rblk_ns_qos q;
	uint64_t v[4];

	if (!qos || qos->size < sizeof(size_t)) {
		snprintf(why, len, "no QoS limits given");
		return -EINVAL;
	}
	qos_copy_in(&q, qos);
	v[0] = q.rw_ios_per_sec;
	v[1] = q.rw_mbytes_per_sec;
	v[2] = q.r_mbytes_per_sec;
	v[3] = q.w_mbytes_per_sec;
	for (int i = 0; i < 4; i++) {
		uint64_t max = i ? RBLK_NS_QOS_MAX_MBYTES_PER_SEC : RBLK_NS_QOS_MAX_IOS_PER_SEC;

		if (v[i] > max) {
			snprintf(why, len, "%s %llu: must be at most %llu (0: no limit)", names[i],
				 (unsigned long long)v[i], (unsigned long long)max);
			return -EINVAL;
		}
	}
	return 0;
}

int rblk_tgt_ns_set_qos(struct rblk_tgt_ns *ns, const struct rblk_ns_qos *qos)
{
	uint64_t per_sec[RBLK_QOS_NR];
	struct rblk_ns_qos q;
	char why[128];

	if (rblk_ns_qos_check(qos, why, sizeof(why))) {
		RBLK_ERR("namespace %u: %s", ns->nsid, why);
		return -EINVAL;
	}
	qos_copy_in(&q, qos);
	per_sec[RBLK_QOS_RW_IOS] = q.rw_ios_per_sec;
	per_sec[RBLK_QOS_RW_BYTES] = q.rw_mbytes_per_sec * MIB;
	per_sec[RBLK_QOS_R_BYTES] = q.r_mbytes_per_sec * MIB;
	per_sec[RBLK_QOS_W_BYTES] = q.w_mbytes_per_sec * MIB;
	rblk_qos_set(ns, per_sec);
	return 0;
}

int rblk_subsystem_set_ns_qos(struct rblk_subsystem *ss, uint32_t nsid,
			      const struct rblk_ns_qos *qos)
{
	struct rblk_tgt_ns *ns;
	char why[128];
	int ret;

	if (!ss || rblk_ns_qos_check(qos, why, sizeof(why)))
		return -EINVAL;
	ns = rblk_subsys_get_ns(ss, nsid);
	if (!ns)
		return -ENOENT;
	ret = rblk_tgt_ns_set_qos(ns, qos);
	rblk_tgt_ns_put(ns);
	if (!ret)
		RBLK_NOTICE("subsystem %s: namespace %u QoS: rw_ios_per_sec %llu, "
			    "rw_mbytes_per_sec %llu, r_mbytes_per_sec %llu, w_mbytes_per_sec %llu",
			    ss->nqn, nsid, (unsigned long long)qos->rw_ios_per_sec,
			    (unsigned long long)qos->rw_mbytes_per_sec,
			    (unsigned long long)qos->r_mbytes_per_sec,
			    (unsigned long long)qos->w_mbytes_per_sec);
	return ret;
}

void rblk_tgt_ns_get_qos(const struct rblk_tgt_ns *ns, struct rblk_ns_qos *qos)
{
	uint64_t per_sec[RBLK_QOS_NR];
	struct rblk_ns_qos q;

	rblk_qos_get(ns, per_sec);
	rblk_ns_qos_init(&q);
	q.rw_ios_per_sec = per_sec[RBLK_QOS_RW_IOS];
	q.rw_mbytes_per_sec = per_sec[RBLK_QOS_RW_BYTES] / MIB;
	q.r_mbytes_per_sec = per_sec[RBLK_QOS_R_BYTES] / MIB;
	q.w_mbytes_per_sec = per_sec[RBLK_QOS_W_BYTES] / MIB;
	memcpy(qos, &q, qos->size < sizeof(q) ? qos->size : sizeof(q));
}

int rblk_subsystem_get_ns_qos(struct rblk_subsystem *ss, uint32_t nsid, struct rblk_ns_qos *qos)
{
	struct rblk_tgt_ns *ns;
	size_t size;

	if (!ss || !qos)
		return -EINVAL;
	ns = rblk_subsys_get_ns(ss, nsid);
	if (!ns)
		return -ENOENT;
	size = qos->size;
	rblk_tgt_ns_get_qos(ns, qos);
	qos->size = size;
	rblk_tgt_ns_put(ns);
	return 0;
}

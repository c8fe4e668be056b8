/* SPDX-License-Identifier: MIT */
/*
 * The core's share of a poll group (struct rblk_tgt_pg): its slot in every
 * namespace's counters, and the quiescent-state counter that lets the I/O
 * path read the namespace tables without a lock or a shared reference count.
 *
 * Why: on a machine with many cores, every write to memory that two poll
 * groups write (a read lock's reader count, a reference count, a counter)
 * moves a cache line between cores on every command and caps the target as
 * a whole. So a command writes only its own poll group's memory, and the
 * rare writer (namespace removal) pays instead:
 *   - the I/O path loads a table entry with an acquire load (ns.c publishes
 *     with a release store under the table's lock), and counts the command in
 *     its own slot of the namespace (inflight) until it completes;
 *   - every poll group passes a quiescent state at the top of each loop
 *     iteration (it holds no table pointer it did not count), and goes
 *     offline while it sleeps;
 *   - removal unpublishes the entry, waits for a grace period (every poll
 *     group quiescent or offline since), after which no poll group can still
 *     find the namespace, then waits for the inflight counts to drain.
 * This is quiescent-state-based reclamation, as user-space RCU's QSBR flavour
 * does it, with the poll loop's iterations as the quiescent states.
 */
#include <errno.h>
#include <unistd.h>

#include "common/log.h"
#include "target/core.h"

/*
 * qs: even while online (a count of quiescent states, by 2), odd while
 * offline. The fences pair with the writer's fence in
 * rblk_tgt_synchronize(): either the writer sees this state, or this thread's
 * next table load sees the writer's unpublished entry.
 */
void rblk_tgt_pg_quiescent(struct rblk_tgt_pg *pg)
{
	uint64_t qs = atomic_load_explicit(&pg->qs, memory_order_relaxed);

	atomic_thread_fence(memory_order_seq_cst);
	atomic_store_explicit(&pg->qs, (qs | 1) + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
}

void rblk_tgt_pg_offline(struct rblk_tgt_pg *pg)
{
	uint64_t qs = atomic_load_explicit(&pg->qs, memory_order_relaxed);

	atomic_thread_fence(memory_order_seq_cst);
	atomic_store_explicit(&pg->qs, qs | 1, memory_order_relaxed);
}

/*
 * The busy time: a sequence count around the sleep's two words, so that a
 * reader never sees a sleep both going on and already added (it would count
 * it twice, and the busy time would go back). One writer, the group.
 */
static void sleep_update(struct rblk_tgt_pg *pg, uint64_t add, uint64_t since)
{
	uint64_t seq = atomic_load_explicit(&pg->sleep_seq, memory_order_relaxed);

	atomic_store_explicit(&pg->sleep_seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	if (add)
		rblk_stat_inc(&pg->sleep_ns, add);
	atomic_store_explicit(&pg->sleep_since, since, memory_order_relaxed);
	atomic_store_explicit(&pg->sleep_seq, seq + 2, memory_order_release);
}

void rblk_tgt_pg_sleep_begin(struct rblk_tgt_pg *pg)
{
	sleep_update(pg, 0, rblk_clock_ns());
}

void rblk_tgt_pg_sleep_end(struct rblk_tgt_pg *pg)
{
	uint64_t since = atomic_load_explicit(&pg->sleep_since, memory_order_relaxed);

	if (since)
		sleep_update(pg, rblk_clock_ns() - since, 0);
}

uint64_t rblk_tgt_pg_busy_ns(const struct rblk_tgt_pg *pg)
{
	uint64_t seq, slept, since, start, now;

	start = atomic_load_explicit(&pg->start_ns, memory_order_relaxed);
	if (!start)
		return 0;
	do {
		seq = atomic_load_explicit(&pg->sleep_seq, memory_order_acquire);
		slept = atomic_load_explicit(&pg->sleep_ns, memory_order_relaxed);
		since = atomic_load_explicit(&pg->sleep_since, memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);
	} while ((seq & 1) || seq != atomic_load_explicit(&pg->sleep_seq, memory_order_relaxed));
	/* Asleep: the busy time stopped when the sleep began. */
	now = since ? since : rblk_clock_ns();
	return now > start + slept ? now - start - slept : 0;
}

int rblk_tgt_pg_register(struct rblk_target *tgt, struct rblk_tgt_pg *pg, unsigned id)
{
	struct rblk_tgt_bounce *bounce;
	int ret = 0;

	if (id >= tgt->nr_pgs)
		return -ERANGE;
	ret = rblk_tgt_bounce_create(&bounce);
	if (ret)
		return ret;
	pg->id = id;
	atomic_store_explicit(&pg->qs, 1, memory_order_relaxed); /* offline until it polls */
	pg->epfd = -1; /* until the group's loop has its epoll set */
	pthread_mutex_lock(&tgt->pg_lock);
	if (tgt->pgs[id])
		ret = -EEXIST;
	else
		tgt->pgs[id] = pg;
	pthread_mutex_unlock(&tgt->pg_lock);
	/* The group's own (a refused group may be another slot's, which keeps its units). */
	if (ret)
		rblk_tgt_bounce_destroy(bounce);
	else
		pg->bounce = bounce;
	return ret;
}

void rblk_tgt_pg_unregister(struct rblk_target *tgt, struct rblk_tgt_pg *pg)
{
	bool mine = false;

	pthread_mutex_lock(&tgt->pg_lock);
	if (pg->id < tgt->nr_pgs && tgt->pgs[pg->id] == pg) {
		tgt->pgs[pg->id] = NULL;
		mine = true;
	}
	pthread_mutex_unlock(&tgt->pg_lock);
	/* Only a registered group has units (a refused one may hold garbage). */
	if (mine) {
		rblk_tgt_bounce_destroy(pg->bounce);
		pg->bounce = NULL;
	}
}

/* Whether every poll group that was online at @snap has moved on since. */
static bool grace_over(struct rblk_target *tgt, const uint64_t *snap)
{
	bool over = true;

	pthread_mutex_lock(&tgt->pg_lock);
	for (unsigned i = 0; i < tgt->nr_pgs && over; i++) {
		struct rblk_tgt_pg *pg = tgt->pgs[i];

		/* Gone (unregistered after it stopped polling), offline, or past it. */
		if (pg && !(snap[i] & 1) &&
		    atomic_load_explicit(&pg->qs, memory_order_acquire) == snap[i])
			over = false;
	}
	pthread_mutex_unlock(&tgt->pg_lock);
	return over;
}

void rblk_tgt_grace_start(struct rblk_target *tgt, uint64_t *snap)
{
	/* Pairs with the fences of rblk_tgt_pg_quiescent(): see there. */
	atomic_thread_fence(memory_order_seq_cst);
	pthread_mutex_lock(&tgt->pg_lock);
	for (unsigned i = 0; i < tgt->nr_pgs; i++)
		snap[i] = tgt->pgs[i] ? atomic_load_explicit(&tgt->pgs[i]->qs,
							       memory_order_acquire)
				      : 1;
	pthread_mutex_unlock(&tgt->pg_lock);
}

bool rblk_tgt_grace_over(struct rblk_target *tgt, const uint64_t *snap)
{
	return grace_over(tgt, snap);
}

void rblk_tgt_synchronize(struct rblk_target *tgt)
{
	uint64_t snap[RBLK_TARGET_POLL_GROUPS_MAX];
	unsigned waits = 0;

	rblk_tgt_grace_start(tgt, snap);
	while (!grace_over(tgt, snap)) {
		if (++waits % 50000 == 0)
			RBLK_WARN("still waiting for the poll groups to pass a quiescent state");
		/* On the embedder's loop thread this polls, which is the progress awaited. */
		rblk_tgt_idle_wait(tgt, 20);
	}
}

unsigned rblk_tgt_default_poll_groups(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

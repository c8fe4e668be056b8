/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/rdma/admit.c: which bound refuses a connection, in which
 * order, that a host address is compared without its port, and the table of
 * counts stepped one connection event at a time: at a pending bound a new
 * connection evicts its own address's oldest pending one, never a connected
 * one nor another address's, a flood holds no more than the bounds, and an
 * evicted connection's slot is released exactly once. Then the transport
 * around the table: the eviction is a message in the victim's poll group's
 * mailbox holding a reference, and none for a queue already being freed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "backend/backend.h"
#include "common/clock.h"

#include "target/core.h"
#include "target/rdma/admit.h"
#include "target/rdma/listener.h"
#include "ut.h"

static struct rblk_target_opts opts(void)
{
	struct rblk_target_opts o;

	memset(&o, 0, sizeof(o));
	o.max_queues = 10;
	o.max_pending_queues = 4;
	o.max_pending_per_addr = 2;
	return o;
}

static void test_decide(void)
{
	struct rblk_target_opts o = opts();
	struct rblk_rdma_admit_view v = { .queues = 0, .pending = 0, .pending_from_addr = 0 };

	CU_ASSERT_EQUAL(rblk_rdma_admit_decide(&o, &v), RBLK_ADMIT_OK);
	v = (struct rblk_rdma_admit_view){ .queues = 9, .pending = 3, .pending_from_addr = 1 };
	CU_ASSERT_EQUAL(rblk_rdma_admit_decide(&o, &v), RBLK_ADMIT_OK);
	/* At the address's bound it displaces its own oldest... */
	v.pending_from_addr = 2;
	CU_ASSERT_EQUAL(rblk_rdma_admit_decide(&o, &v), RBLK_ADMIT_EVICT);
	/* ...while no more than that many of its evicted ones are still being torn down. */
	v.evicting_from_addr = 1;
	CU_ASSERT_EQUAL(rblk_rdma_admit_decide(&o, &v), RBLK_ADMIT_EVICT);
	v.evicting_from_addr = 2;
	CU_ASSERT_EQUAL(rblk_rdma_admit_decide(&o, &v), RBLK_ADMIT_PENDING_ADDR);
	v.pending = 4;
	CU_ASSERT_EQUAL(rblk_rdma_admit_decide(&o, &v), RBLK_ADMIT_PENDING);
	/* At the global bound too, if the address has a pending one of its own. */
	v.evicting_from_addr = 0;
	v.pending_from_addr = 1;
	CU_ASSERT_EQUAL(rblk_rdma_admit_decide(&o, &v), RBLK_ADMIT_EVICT);
	/* An address with none never displaces another's. */
	v.pending_from_addr = 0;
	CU_ASSERT_EQUAL(rblk_rdma_admit_decide(&o, &v), RBLK_ADMIT_PENDING);
	/* An evicted connection is alive until freed: max_queues is never exceeded. */
	v.pending_from_addr = 2;
	v.queues = 10;
	CU_ASSERT_EQUAL(rblk_rdma_admit_decide(&o, &v), RBLK_ADMIT_QUEUES);
	/* Connected queues do not count as pending: a busy host still gets in. */
	v = (struct rblk_rdma_admit_view){ .queues = 9, .pending = 0, .pending_from_addr = 0 };
	CU_ASSERT_EQUAL(rblk_rdma_admit_decide(&o, &v), RBLK_ADMIT_OK);
	CU_ASSERT_STRING_EQUAL(rblk_rdma_admit_verdict_str(RBLK_ADMIT_OK), "admitted");
	CU_ASSERT_PTR_NOT_NULL(strstr(rblk_rdma_admit_verdict_str(RBLK_ADMIT_PENDING_ADDR),
				      "max_pending_per_addr"));
}

static void test_key(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(4000) };
	struct sockaddr_in b = a, c = a;
	struct sockaddr_in6 d = { .sin6_family = AF_INET6, .sin6_port = htons(4000) };
	struct rblk_rdma_admit_key ka, kb, kc, kd;

	inet_pton(AF_INET, "10.99.0.2", &a.sin_addr);
	inet_pton(AF_INET, "10.99.0.2", &b.sin_addr);
	b.sin_port = htons(5000);
	inet_pton(AF_INET, "10.99.0.1", &c.sin_addr);
	inet_pton(AF_INET6, "fe80::2", &d.sin6_addr);
	rblk_rdma_admit_key_of((struct sockaddr *)&a, &ka);
	rblk_rdma_admit_key_of((struct sockaddr *)&b, &kb);
	rblk_rdma_admit_key_of((struct sockaddr *)&c, &kc);
	rblk_rdma_admit_key_of((struct sockaddr *)&d, &kd);
	CU_ASSERT_EQUAL(memcmp(&ka, &kb, sizeof(ka)), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(&ka, &kc, sizeof(ka)), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(&ka, &kd, sizeof(ka)), 0);
	CU_ASSERT_EQUAL(kd.family, AF_INET6);
	CU_ASSERT_EQUAL(kd.addr[15], 2);
	rblk_rdma_admit_key_of(NULL, &ka);
	CU_ASSERT_EQUAL(ka.family, 0);
}

static struct rblk_rdma_admit_key key(const char *ip)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(4420) };
	struct rblk_rdma_admit_key k;

	inet_pton(AF_INET, ip, &a.sin_addr);
	rblk_rdma_admit_key_of((struct sockaddr *)&a, &k);
	return k;
}

#define NQ 64

/* A table and the connections it counts, as the transport holds them. */
struct tab {
	struct rblk_target_opts o;
	struct rblk_rdma_admit_table tb;
	struct rblk_rdma_admit_entry e[NQ];
	unsigned n;
};

static void tab_init(struct tab *t)
{
	memset(t, 0, sizeof(*t));
	t->o = opts();
	rblk_rdma_admit_table_init(&t->tb);
}

/* A free entry: a new one, or a released one's memory (the queue was freed). */
static struct rblk_rdma_admit_entry *tab_entry(struct tab *t)
{
	for (unsigned i = 0; i < t->n; i++) {
		if (t->e[i].state == RBLK_ADMIT_Q_RELEASED) {
			memset(&t->e[i], 0, sizeof(t->e[i]));
			return &t->e[i];
		}
	}
	CU_ASSERT_FATAL(t->n < NQ);
	return &t->e[t->n++];
}

/*
 * A CONNECT_REQUEST from @ip at @now: the verdict, the entry if admitted,
 * and in *@victim (may be NULL if none is expected) the evicted one.
 */
static enum rblk_rdma_admit_verdict tab_connect_ev(struct tab *t, const char *ip, uint64_t now,
						   struct rblk_rdma_admit_entry **out,
						   struct rblk_rdma_admit_entry **victim)
{
	struct rblk_rdma_admit_key k = key(ip);
	struct rblk_rdma_admit_entry *vic, *oldest = NULL;
	struct rblk_rdma_admit_view v;
	enum rblk_rdma_admit_verdict verdict;

	/* What an eviction must pick: the address's pending one accepted first. */
	for (unsigned i = 0; i < t->n; i++)
		if (t->e[i].state == RBLK_ADMIT_Q_PENDING && !memcmp(&t->e[i].key, &k, sizeof(k)) &&
		    (!oldest || t->e[i].accepted_ms < oldest->accepted_ms))
			oldest = &t->e[i];
	*out = NULL;
	verdict = rblk_rdma_admit_table_check(&t->tb, &t->o, &k, &v, &vic);
	CU_ASSERT_EQUAL(vic != NULL, verdict == RBLK_ADMIT_EVICT);
	if (vic) {
		CU_ASSERT_PTR_EQUAL(vic, oldest);
		CU_ASSERT_EQUAL(vic->state, RBLK_ADMIT_Q_EVICTED);
	}
	if (victim)
		*victim = vic;
	else
		CU_ASSERT_PTR_NULL(vic);
	if (verdict != RBLK_ADMIT_OK && verdict != RBLK_ADMIT_EVICT)
		return verdict;
	*out = tab_entry(t);
	rblk_rdma_admit_table_add(&t->tb, *out, &k, now);
	return verdict;
}

static enum rblk_rdma_admit_verdict tab_connect(struct tab *t, const char *ip, uint64_t now,
						struct rblk_rdma_admit_entry **out)
{
	return tab_connect_ev(t, ip, now, out, NULL);
}

/* The pending and evicted entries from @ip, counted the slow way. */
static unsigned tab_count(struct tab *t, const char *ip, enum rblk_rdma_admit_state st)
{
	struct rblk_rdma_admit_key k = key(ip);
	unsigned n = 0;

	for (unsigned i = 0; i < t->n; i++)
		n += t->e[i].state == st && !memcmp(&t->e[i].key, &k, sizeof(k));
	return n;
}

static void test_table_counts(void)
{
	struct rblk_rdma_admit_entry *a, *b, *c, *d;
	struct tab t;

	tab_init(&t);
	CU_ASSERT_EQUAL(tab_connect(&t, "10.0.0.1", 1, &a), RBLK_ADMIT_OK);
	CU_ASSERT_EQUAL(tab_connect(&t, "10.0.0.1", 2, &b), RBLK_ADMIT_OK);
	CU_ASSERT_EQUAL(t.tb.queues, 2);
	CU_ASSERT_EQUAL(t.tb.pending, 2);
	CU_ASSERT_EQUAL(a->state, RBLK_ADMIT_Q_PENDING);
	CU_ASSERT_EQUAL(a->accepted_ms, 1);
	/* A Connect makes room for the address; the queue stays alive. */
	rblk_rdma_admit_table_connected(&t.tb, a);
	CU_ASSERT_EQUAL(a->state, RBLK_ADMIT_Q_CONNECTED);
	CU_ASSERT_EQUAL(t.tb.pending, 1);
	CU_ASSERT_EQUAL(t.tb.queues, 2);
	rblk_rdma_admit_table_connected(&t.tb, a);
	CU_ASSERT_EQUAL(t.tb.pending, 1);
	CU_ASSERT_EQUAL(tab_connect(&t, "10.0.0.1", 3, &c), RBLK_ADMIT_OK);
	/* Release of a pending one and of a connected one: each counted off once. */
	rblk_rdma_admit_table_release(&t.tb, b);
	CU_ASSERT_EQUAL(b->state, RBLK_ADMIT_Q_RELEASED);
	CU_ASSERT_EQUAL(t.tb.pending, 1);
	CU_ASSERT_EQUAL(t.tb.queues, 2);
	rblk_rdma_admit_table_release(&t.tb, a);
	CU_ASSERT_EQUAL(t.tb.pending, 1);
	CU_ASSERT_EQUAL(t.tb.queues, 1);
	rblk_rdma_admit_table_release(&t.tb, c);
	CU_ASSERT_EQUAL(t.tb.pending, 0);
	CU_ASSERT_EQUAL(t.tb.queues, 0);
	CU_ASSERT_TRUE(TAILQ_EMPTY(&t.tb.waiting));
	CU_ASSERT_EQUAL(tab_connect(&t, "10.0.0.1", 4, &d), RBLK_ADMIT_OK);
	CU_ASSERT_EQUAL(t.tb.verdicts[RBLK_ADMIT_PENDING_ADDR], 0);
}

static void test_table_log_rate(void)
{
	struct tab t;
	uint64_t quiet = 99;

	tab_init(&t);
	CU_ASSERT_TRUE(rblk_rdma_admit_table_should_log(&t.tb, RBLK_ADMIT_PENDING, 5000, &quiet));
	CU_ASSERT_EQUAL(quiet, 0);
	CU_ASSERT_FALSE(rblk_rdma_admit_table_should_log(&t.tb, RBLK_ADMIT_PENDING, 5100, &quiet));
	CU_ASSERT_FALSE(rblk_rdma_admit_table_should_log(&t.tb, RBLK_ADMIT_PENDING, 5999, &quiet));
	/* Each verdict has its own second. */
	CU_ASSERT_TRUE(rblk_rdma_admit_table_should_log(&t.tb, RBLK_ADMIT_QUEUES, 5999, &quiet));
	CU_ASSERT_TRUE(rblk_rdma_admit_table_should_log(&t.tb, RBLK_ADMIT_PENDING, 6000, &quiet));
	CU_ASSERT_EQUAL(quiet, 2);
}

/* Per-address bound 2: the third from an address evicts the first, not the second. */
static void test_evict_oldest(void)
{
	struct rblk_rdma_admit_entry *a, *b, *c, *victim;
	struct tab t;

	tab_init(&t);
	CU_ASSERT_EQUAL(tab_connect(&t, "10.0.0.1", 100, &a), RBLK_ADMIT_OK);
	CU_ASSERT_EQUAL(tab_connect(&t, "10.0.0.1", 200, &b), RBLK_ADMIT_OK);
	CU_ASSERT_EQUAL_FATAL(tab_connect_ev(&t, "10.0.0.1", 300, &c, &victim), RBLK_ADMIT_EVICT);
	CU_ASSERT_PTR_EQUAL(victim, a);
	CU_ASSERT_PTR_NOT_NULL(c);
	CU_ASSERT_EQUAL(a->state, RBLK_ADMIT_Q_EVICTED);
	CU_ASSERT_EQUAL(b->state, RBLK_ADMIT_Q_PENDING);
	CU_ASSERT_EQUAL(c->state, RBLK_ADMIT_Q_PENDING);
	/* The new one took its place: still 2 pending; a is alive until its group frees it. */
	CU_ASSERT_EQUAL(t.tb.pending, 2);
	CU_ASSERT_EQUAL(t.tb.evicting, 1);
	CU_ASSERT_EQUAL(t.tb.queues, 3);
	CU_ASSERT_EQUAL(t.tb.verdicts[RBLK_ADMIT_EVICT], 1);
	CU_ASSERT_EQUAL(t.tb.verdicts[RBLK_ADMIT_PENDING_ADDR], 0);
	/* The next one evicts b, now the oldest pending. */
	CU_ASSERT_EQUAL_FATAL(tab_connect_ev(&t, "10.0.0.1", 400, &a, &victim), RBLK_ADMIT_EVICT);
	CU_ASSERT_PTR_EQUAL(victim, b);
	CU_ASSERT_EQUAL(c->state, RBLK_ADMIT_Q_PENDING);
}

/* A queue whose Connect succeeded is never chosen, however old. */
static void test_connected_never_evicted(void)
{
	struct rblk_rdma_admit_entry *old, *a, *b, *c, *victim;
	struct tab t;

	tab_init(&t);
	CU_ASSERT_EQUAL(tab_connect(&t, "10.0.0.1", 1, &old), RBLK_ADMIT_OK);
	rblk_rdma_admit_table_connected(&t.tb, old);
	CU_ASSERT_EQUAL(tab_connect(&t, "10.0.0.1", 2, &a), RBLK_ADMIT_OK);
	CU_ASSERT_EQUAL(tab_connect(&t, "10.0.0.1", 3, &b), RBLK_ADMIT_OK);
	for (unsigned i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL_FATAL(tab_connect_ev(&t, "10.0.0.1", 4 + i, &c, &victim),
				RBLK_ADMIT_EVICT);
		CU_ASSERT_PTR_NOT_EQUAL(victim, old);
		if (i == 0)
			CU_ASSERT_PTR_EQUAL(victim, a);
		if (i == 1)
			CU_ASSERT_PTR_EQUAL(victim, b); /* a's memory now holds the first new one */
		CU_ASSERT_EQUAL(old->state, RBLK_ADMIT_Q_CONNECTED);
		/* Its group frees it at once. */
		rblk_rdma_admit_table_release(&t.tb, victim);
	}
	CU_ASSERT_EQUAL(t.tb.pending, 2);
	CU_ASSERT_EQUAL(t.tb.evicting, 0);
	CU_ASSERT_EQUAL(t.tb.queues, 3);

	/*
	 * A Connect that succeeds after its queue was chosen (the poll group ran
	 * it before the disconnect message): it stays evicted, the disconnect
	 * comes, and it is counted off once, as evicted.
	 */
	CU_ASSERT_EQUAL_FATAL(tab_connect_ev(&t, "10.0.0.1", 20, &c, &victim), RBLK_ADMIT_EVICT);
	rblk_rdma_admit_table_connected(&t.tb, victim);
	CU_ASSERT_EQUAL(victim->state, RBLK_ADMIT_Q_EVICTED);
	CU_ASSERT_EQUAL(t.tb.pending, 2);
	CU_ASSERT_EQUAL(t.tb.evicting, 1);
	rblk_rdma_admit_table_release(&t.tb, victim);
	CU_ASSERT_EQUAL(t.tb.evicting, 0);
	CU_ASSERT_EQUAL(t.tb.pending, 2);
}

/* A flood from one address changes nothing for another. */
static void test_other_addresses_unaffected(void)
{
	struct rblk_rdma_admit_entry *h1, *h2, *f, *victim;
	struct tab t;

	tab_init(&t);
	CU_ASSERT_EQUAL(tab_connect(&t, "10.0.0.2", 1, &h1), RBLK_ADMIT_OK);
	CU_ASSERT_EQUAL(tab_connect(&t, "10.0.0.1", 2, &f), RBLK_ADMIT_OK);
	CU_ASSERT_EQUAL(tab_connect(&t, "10.0.0.1", 3, &f), RBLK_ADMIT_OK);
	for (unsigned i = 0; i < 10; i++) {
		CU_ASSERT_EQUAL_FATAL(tab_connect_ev(&t, "10.0.0.1", 4 + i, &f, &victim),
				RBLK_ADMIT_EVICT);
		CU_ASSERT_PTR_NOT_EQUAL(victim, h1);
		CU_ASSERT_EQUAL(memcmp(&victim->key, &h1->key, sizeof(h1->key)) != 0, true);
		rblk_rdma_admit_table_release(&t.tb, victim);
	}
	CU_ASSERT_EQUAL(h1->state, RBLK_ADMIT_Q_PENDING);
	/* The other host still has its whole per-address bound. */
	CU_ASSERT_EQUAL(tab_connect(&t, "10.0.0.2", 20, &h2), RBLK_ADMIT_OK);
	CU_ASSERT_EQUAL(t.tb.pending, 4);
	CU_ASSERT_EQUAL(tab_count(&t, "10.0.0.2", RBLK_ADMIT_Q_PENDING), 2);
	CU_ASSERT_EQUAL(tab_count(&t, "10.0.0.1", RBLK_ADMIT_Q_PENDING), 2);
	/*
	 * Global bound (4) reached: an address with pending ones displaces its
	 * own; a third address with none is refused, evicting nobody.
	 */
	CU_ASSERT_EQUAL_FATAL(tab_connect_ev(&t, "10.0.0.2", 21, &h2, &victim), RBLK_ADMIT_EVICT);
	CU_ASSERT_PTR_EQUAL(victim, h1);
	CU_ASSERT_EQUAL(tab_connect(&t, "10.0.0.3", 22, &f), RBLK_ADMIT_PENDING);
	CU_ASSERT_PTR_NULL(f);
	CU_ASSERT_EQUAL(t.tb.pending, 4);
	CU_ASSERT_EQUAL(tab_count(&t, "10.0.0.1", RBLK_ADMIT_Q_PENDING), 2);
	CU_ASSERT_EQUAL(t.tb.verdicts[RBLK_ADMIT_PENDING], 1);
}

/*
 * A flood that never sends Connect: whatever the poll groups' speed, it
 * holds at most the bound pending, and at most as many more being torn down.
 */
static void test_flood_bounded(void)
{
	struct rblk_rdma_admit_entry *f, *victim, *legit;
	unsigned evictions = 0, refused = 0;
	struct tab t;

	tab_init(&t);
	t.o.max_pending_per_addr = 3;
	t.o.max_pending_queues = 8;
	t.o.max_queues = 40;
	for (unsigned i = 0; i < 200; i++) {
		enum rblk_rdma_admit_verdict v = tab_connect_ev(&t, "10.0.0.1", i, &f, &victim);

		evictions += v == RBLK_ADMIT_EVICT;
		refused += v == RBLK_ADMIT_PENDING_ADDR;
		CU_ASSERT(v == RBLK_ADMIT_OK || v == RBLK_ADMIT_EVICT || v == RBLK_ADMIT_PENDING_ADDR);
		CU_ASSERT(tab_count(&t, "10.0.0.1", RBLK_ADMIT_Q_PENDING) <= 3);
		CU_ASSERT(tab_count(&t, "10.0.0.1", RBLK_ADMIT_Q_EVICTED) <= 3);
		CU_ASSERT(t.tb.queues <= 6);
		CU_ASSERT_EQUAL(t.tb.pending, tab_count(&t, "10.0.0.1", RBLK_ADMIT_Q_PENDING));
		CU_ASSERT_EQUAL(t.tb.evicting, tab_count(&t, "10.0.0.1", RBLK_ADMIT_Q_EVICTED));
		/* A slow poll group: frees the oldest evicted one every fourth step. */
		if (i % 4 == 3) {
			for (unsigned k = 0; k < t.n; k++) {
				if (t.e[k].state == RBLK_ADMIT_Q_EVICTED) {
					rblk_rdma_admit_table_release(&t.tb, &t.e[k]);
					break;
				}
			}
		}
	}
	CU_ASSERT(evictions > 0);
	CU_ASSERT(refused > 0);
	CU_ASSERT_EQUAL(t.tb.verdicts[RBLK_ADMIT_EVICT], evictions);
	CU_ASSERT_EQUAL(t.tb.verdicts[RBLK_ADMIT_PENDING_ADDR], refused);

	/* The host behind the same NAT that sends its Connect at once gets in. */
	for (unsigned k = 0; k < t.n; k++)
		if (t.e[k].state == RBLK_ADMIT_Q_EVICTED)
			rblk_rdma_admit_table_release(&t.tb, &t.e[k]);
	CU_ASSERT_EQUAL_FATAL(tab_connect_ev(&t, "10.0.0.1", 500, &legit, &victim), RBLK_ADMIT_EVICT);
	rblk_rdma_admit_table_connected(&t.tb, legit);
	CU_ASSERT_EQUAL(legit->state, RBLK_ADMIT_Q_CONNECTED);
	for (unsigned i = 0; i < 20; i++) {
		tab_connect_ev(&t, "10.0.0.1", 501 + i, &f, &victim);
		CU_ASSERT_PTR_NOT_EQUAL(victim, legit);
		if (victim)
			rblk_rdma_admit_table_release(&t.tb, victim);
	}
	CU_ASSERT_EQUAL(legit->state, RBLK_ADMIT_Q_CONNECTED);
}

/* An evicted connection's slot: off pending at the eviction, off the rest once. */
static void test_evicted_released_once(void)
{
	struct rblk_rdma_admit_entry *a, *b, *c, *victim;
	struct tab t;

	tab_init(&t);
	CU_ASSERT_EQUAL(tab_connect(&t, "10.0.0.1", 1, &a), RBLK_ADMIT_OK);
	CU_ASSERT_EQUAL(tab_connect(&t, "10.0.0.1", 2, &b), RBLK_ADMIT_OK);
	CU_ASSERT_EQUAL_FATAL(tab_connect_ev(&t, "10.0.0.1", 3, &c, &victim), RBLK_ADMIT_EVICT);
	CU_ASSERT_PTR_EQUAL(victim, a);
	CU_ASSERT_EQUAL(t.tb.queues, 3);
	CU_ASSERT_EQUAL(t.tb.pending, 2);
	CU_ASSERT_EQUAL(t.tb.evicting, 1);
	rblk_rdma_admit_table_release(&t.tb, a);
	CU_ASSERT_EQUAL(a->state, RBLK_ADMIT_Q_RELEASED);
	CU_ASSERT_EQUAL(t.tb.queues, 2);
	CU_ASSERT_EQUAL(t.tb.pending, 2);
	CU_ASSERT_EQUAL(t.tb.evicting, 0);
#ifdef NDEBUG
	/* A second release (asserted against in debug builds) counts nothing. */
	rblk_rdma_admit_table_release(&t.tb, a);
	CU_ASSERT_EQUAL(t.tb.queues, 2);
	CU_ASSERT_EQUAL(t.tb.pending, 2);
	CU_ASSERT_EQUAL(t.tb.evicting, 0);
#endif
	/* It is off the list: the next eviction picks b, and nothing else is on it. */
	CU_ASSERT_EQUAL_FATAL(tab_connect_ev(&t, "10.0.0.1", 4, &a, &victim), RBLK_ADMIT_EVICT);
	CU_ASSERT_PTR_EQUAL(victim, b);
	rblk_rdma_admit_table_release(&t.tb, b);
	rblk_rdma_admit_table_release(&t.tb, c);
	rblk_rdma_admit_table_release(&t.tb, a);
	CU_ASSERT_EQUAL(t.tb.queues, 0);
	CU_ASSERT_EQUAL(t.tb.pending, 0);
	CU_ASSERT_EQUAL(t.tb.evicting, 0);
	CU_ASSERT_TRUE(TAILQ_EMPTY(&t.tb.waiting));
}

/*
 * The transport around the table: a real RDMA transport object (no
 * devices needed to create one) and a poll group that is never started, so
 * what admission posts to its mailbox stays there to be looked at.
 */
struct xport {
	struct rblk_target *tgt;
	struct rblk_transport *t;
	struct rblk_poll_group *pg;
	struct rblk_rdma_queue *q[6];
};

static void xport_init(struct xport *x)
{
	struct rblk_target_opts o;
	struct rblk_pg_opts po;

	memset(x, 0, sizeof(*x));
	rblk_target_opts_init(&o);
	o.max_pending_per_addr = 2;
	o.threads = RBLK_THREADS_EMBEDDER;
	CU_ASSERT_EQUAL_FATAL(rblk_target_create(&o, &x->tgt), 0);
	x->t = x->tgt->transport;
	memset(&po, 0, sizeof(po));
	po.io_unit_size = 8192;
	po.num_units = 4;
	po.tick_ms = 100;
	CU_ASSERT_EQUAL_FATAL(rblk_poll_group_create(&po, x->t, &x->pg), 0);
}

/*
 * A queue object as rblk_rdma_queue_alloc() leaves it, counted from @ip
 * (what follows an admitting verdict on the CM thread).
 */
static struct rblk_rdma_queue *xport_queue(struct xport *x, unsigned i, const char *ip)
{
	struct rblk_rdma_admit_key k = key(ip);
	struct rblk_rdma_queue *q = calloc(1, sizeof(*q));

	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	q->t = x->t;
	q->pg = x->pg;
	q->state = RBLK_RDMA_Q_CONNECTING;
	q->disconnect_reason = RBLK_RDMA_DISC_CTRL;
	atomic_init(&q->refs, 1);
	atomic_init(&q->disconnect_queued, false);
	snprintf(q->peer, sizeof(q->peer), "%s:%u", ip, 4000 + i);
	pthread_mutex_lock(&x->t->qlock);
	rblk_rdma_admit_table_add(&x->t->admit, &q->admit, &k, rblk_clock_ms());
	pthread_mutex_unlock(&x->t->qlock);
	x->q[i] = q;
	return q;
}

static int xport_admit(struct xport *x, const char *ip)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(5000) };

	inet_pton(AF_INET, ip, &a.sin_addr);
	return rblk_rdma_admit(x->t, (struct sockaddr *)&a, ip);
}

static void xport_fini(struct xport *x)
{
	/* The messages were never meant to run: these queues have no QP. */
	x->pg->r.mbox_head = NULL;
	x->pg->r.mbox_tail = &x->pg->r.mbox_head;
	for (unsigned i = 0; i < 6; i++) {
		if (!x->q[i])
			continue;
		rblk_rdma_admit_table_release(&x->t->admit, &x->q[i]->admit);
		free(x->q[i]);
	}
	CU_ASSERT_EQUAL(x->t->admit.queues, 0);
	rblk_poll_group_destroy(x->pg);
	rblk_target_destroy(x->tgt);
}

/* The eviction reaches the victim's own poll group, through its mailbox, once. */
static void test_transport_evicts_through_mailbox(void)
{
	struct rblk_rdma_queue *a, *b, *c, *d, *e;
	struct rblk_fabric_admit_stats st;
	struct xport x;

	xport_init(&x);
	c = xport_queue(&x, 2, "10.0.0.2");
	a = xport_queue(&x, 0, "10.0.0.1");
	b = xport_queue(&x, 1, "10.0.0.1");
	CU_ASSERT_EQUAL(xport_admit(&x, "10.0.0.1"), 0);
	/* a (the oldest of 10.0.0.1) is asked to disconnect; c, older, is another host's. */
	CU_ASSERT_EQUAL(a->admit.state, RBLK_ADMIT_Q_EVICTED);
	CU_ASSERT_TRUE(atomic_load(&a->disconnect_queued));
	CU_ASSERT_EQUAL(a->disconnect_reason, RBLK_RDMA_DISC_EVICTED);
	CU_ASSERT_PTR_EQUAL(x.pg->r.mbox_head, &a->msg_disconnect);
	CU_ASSERT_PTR_NULL(a->msg_disconnect.next);
	/* The message holds a reference; admission's own was dropped. */
	CU_ASSERT_EQUAL(atomic_load(&a->refs), 2);
	CU_ASSERT_EQUAL(b->admit.state, RBLK_ADMIT_Q_PENDING);
	CU_ASSERT_EQUAL(c->admit.state, RBLK_ADMIT_Q_PENDING);
	CU_ASSERT_FALSE(atomic_load(&c->disconnect_queued));
	d = xport_queue(&x, 3, "10.0.0.1");

	/*
	 * b's last reference is gone (its free waits for t->qlock): it is
	 * counted evicted but gets no message, and no reference is taken.
	 */
	atomic_store(&b->refs, 0);
	CU_ASSERT_EQUAL(xport_admit(&x, "10.0.0.1"), 0);
	CU_ASSERT_EQUAL(b->admit.state, RBLK_ADMIT_Q_EVICTED);
	CU_ASSERT_EQUAL(atomic_load(&b->refs), 0);
	CU_ASSERT_FALSE(atomic_load(&b->disconnect_queued));
	CU_ASSERT_PTR_NULL(a->msg_disconnect.next);
	e = xport_queue(&x, 4, "10.0.0.1");
	rblk_rdma_admit_stats(x.t, &st);
	CU_ASSERT_EQUAL(st.connections, 5);
	CU_ASSERT_EQUAL(st.pending, 3);
	CU_ASSERT_EQUAL(st.evicting, 2);
	CU_ASSERT_EQUAL(st.evicted, 2);
	CU_ASSERT_EQUAL(st.refused_pending_addr, 0);

	/*
	 * 10.0.0.1 at its bound again (d, e) while both evicted ones are still
	 * in teardown: refused, and nobody else is evicted.
	 */
	CU_ASSERT_EQUAL(xport_admit(&x, "10.0.0.1"), -EBUSY);
	CU_ASSERT_EQUAL(d->admit.state, RBLK_ADMIT_Q_PENDING);
	CU_ASSERT_EQUAL(e->admit.state, RBLK_ADMIT_Q_PENDING);
	CU_ASSERT_FALSE(atomic_load(&d->disconnect_queued));
	CU_ASSERT_PTR_NULL(a->msg_disconnect.next);
	rblk_rdma_admit_stats(x.t, &st);
	CU_ASSERT_EQUAL(st.refused_pending_addr, 1);
	CU_ASSERT_EQUAL(st.evicted, 2);

	/* b's free completes: the next one evicts d, now the oldest. */
	pthread_mutex_lock(&x.t->qlock);
	rblk_rdma_admit_table_release(&x.t->admit, &b->admit);
	pthread_mutex_unlock(&x.t->qlock);
	free(b);
	x.q[1] = NULL;
	CU_ASSERT_EQUAL(xport_admit(&x, "10.0.0.1"), 0);
	CU_ASSERT_EQUAL(d->admit.state, RBLK_ADMIT_Q_EVICTED);
	CU_ASSERT_EQUAL(e->admit.state, RBLK_ADMIT_Q_PENDING);
	CU_ASSERT_PTR_EQUAL(a->msg_disconnect.next, &d->msg_disconnect);
	xport_queue(&x, 5, "10.0.0.1");
	/* The other address was never touched, and still has its own room. */
	CU_ASSERT_EQUAL(c->admit.state, RBLK_ADMIT_Q_PENDING);
	CU_ASSERT_FALSE(atomic_load(&c->disconnect_queued));
	CU_ASSERT_EQUAL(xport_admit(&x, "10.0.0.2"), 0);
	CU_ASSERT_EQUAL(c->admit.state, RBLK_ADMIT_Q_PENDING);
	xport_fini(&x);
}

static const struct ut_case cases[] = {
	UT_CASE(test_decide),
	UT_CASE(test_key),
	UT_CASE(test_table_counts),
	UT_CASE(test_table_log_rate),
	UT_CASE(test_evict_oldest),
	UT_CASE(test_connected_never_evicted),
	UT_CASE(test_other_addresses_unaffected),
	UT_CASE(test_flood_bounded),
	UT_CASE(test_evicted_released_once),
	UT_CASE(test_transport_evicts_through_mailbox),
	UT_END,
};

UT_MAIN("target/rdma_admit", cases)

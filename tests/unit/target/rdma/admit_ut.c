/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/rdma/admit.c: which bound refuses a connection, in which
 * order, that a host address is compared without its port, and the table of
 * counts stepped one connection event at a time.
 */
#include <arpa/inet.h>
#include <sys/queue.h>
#include <netinet/in.h>
#include <string.h>

#include "target/rdma/admit.h"
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
	v.pending_from_addr = 2;
	CU_ASSERT_EQUAL(rblk_rdma_admit_decide(&o, &v), RBLK_ADMIT_PENDING_ADDR);
	v.pending = 4;
	CU_ASSERT_EQUAL(rblk_rdma_admit_decide(&o, &v), RBLK_ADMIT_PENDING);
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

#define NQ 16

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

/* A CONNECT_REQUEST from @ip at @now: the verdict, and the entry if admitted. */
static enum rblk_rdma_admit_verdict tab_connect(struct tab *t, const char *ip, uint64_t now,
						struct rblk_rdma_admit_entry **out)
{
	struct rblk_rdma_admit_key k = key(ip);
	struct rblk_rdma_admit_view v;
	enum rblk_rdma_admit_verdict verdict;

	*out = NULL;
	verdict = rblk_rdma_admit_table_check(&t->tb, &t->o, &k, &v);
	if (verdict != RBLK_ADMIT_OK)
		return verdict;
	CU_ASSERT_FATAL(t->n < NQ);
	*out = &t->e[t->n++];
	rblk_rdma_admit_table_add(&t->tb, *out, &k, now);
	return verdict;
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

static const struct ut_case cases[] = {
	UT_CASE(test_decide),
	UT_CASE(test_key),
	UT_CASE(test_table_counts),
	UT_CASE(test_table_log_rate),
	UT_END,
};

UT_MAIN("target/rdma_admit", cases)

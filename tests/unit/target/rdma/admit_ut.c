/* SPDX-License-Identifier: MIT */
/*
 * Tests for target/rdma/admit.c: which bound refuses a connection, in which
 * order, and that a host address is compared without its port.
 */
#include <arpa/inet.h>
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

static const struct ut_case cases[] = {
	UT_CASE(test_decide),
	UT_CASE(test_key),
	UT_END,
};

UT_MAIN("target/rdma_admit", cases)

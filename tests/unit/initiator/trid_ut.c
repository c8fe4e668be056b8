/* SPDX-License-Identifier: MIT */
/* Tests for initiator/trid.c: rblk_trid_parse, the paths of a list, adrfam. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "initiator/trid.h"
#include "ut.h"

static char why[256];

static int parse(const char *s, struct rblk_trid *t)
{
	memset(t, 0x5a, sizeof(*t));
	t->size = sizeof(*t);
	why[0] = '\0';
	return rblk_trid_parse(s, t, why, sizeof(why));
}

static void test_every_key(void)
{
	struct rblk_trid t;

	CU_ASSERT_EQUAL(parse("trtype=RDMA adrfam=IPv4 traddr=10.0.0.1 trsvcid=4421 "
			      "subnqn=nqn.2024-01.io.example:disk0 hostnqn=nqn.2024-01.io.example:h "
			      "hostid=5b0c1d7e-0000-4000-8000-000000000001 hostaddr=10.0.0.2 ns=7",
			      &t), 0);
	CU_ASSERT_EQUAL(t.size, sizeof(t));
	CU_ASSERT_EQUAL(t.set, RBLK_TRID_TRTYPE | RBLK_TRID_ADRFAM | RBLK_TRID_TRADDR |
			       RBLK_TRID_TRSVCID | RBLK_TRID_SUBNQN | RBLK_TRID_HOSTNQN |
			       RBLK_TRID_HOSTID | RBLK_TRID_HOSTADDR | RBLK_TRID_NS);
	CU_ASSERT_EQUAL(t.adrfam, RBLK_ADRFAM_IPV4);
	CU_ASSERT_STRING_EQUAL(t.traddr, "10.0.0.1");
	CU_ASSERT_STRING_EQUAL(t.trsvcid, "4421");
	CU_ASSERT_STRING_EQUAL(t.subnqn, "nqn.2024-01.io.example:disk0");
	CU_ASSERT_STRING_EQUAL(t.hostnqn, "nqn.2024-01.io.example:h");
	CU_ASSERT_STRING_EQUAL(t.hostid, "5b0c1d7e-0000-4000-8000-000000000001");
	CU_ASSERT_STRING_EQUAL(t.host_traddr, "10.0.0.2");
	CU_ASSERT_EQUAL(t.nsid, 7);
}

/* SPDK's forms: ':' for '=', any case in keys, tabs; values as typed. */
static void test_spdk_forms(void)
{
	struct rblk_trid t;

	CU_ASSERT_EQUAL(parse("\tTRTYPE:rdma  AdrFam:ipv6\ttraddr:fe80::1%eth0 "
			      "SubNQN:nqn.2014-08.org.nvmexpress:uuid:X host_traddr:fe80::2 ns:0x1f\n",
			      &t), 0);
	CU_ASSERT_EQUAL(t.adrfam, RBLK_ADRFAM_IPV6);
	CU_ASSERT_STRING_EQUAL(t.traddr, "fe80::1%eth0");
	CU_ASSERT_STRING_EQUAL(t.subnqn, "nqn.2014-08.org.nvmexpress:uuid:X");
	CU_ASSERT_STRING_EQUAL(t.host_traddr, "fe80::2");
	CU_ASSERT_EQUAL(t.nsid, 31);
	CU_ASSERT_EQUAL(t.trsvcid[0], '\0');
	CU_ASSERT_FALSE(t.set & RBLK_TRID_TRSVCID);
	/* '=' before ':' splits at '=': the value keeps its colon */
	CU_ASSERT_EQUAL(parse("subnqn=a:b", &t), 0);
	CU_ASSERT_STRING_EQUAL(t.subnqn, "a:b");
}

static void test_errors_name_the_key(void)
{
	static const struct {
		const char *in, *why;
	} bad[] = {
		{ "/dev/nvme0n1", "'/dev/nvme0n1' is not KEY=VALUE" },
		{ "=RDMA", "'=RDMA' is not KEY=VALUE" },
		{ "trtpye=RDMA", "unknown key 'trtpye'" },
		{ "trtype=TCP", "trtype TCP: only RDMA" },
		{ "adrfam=IB", "adrfam IB: IPv4 or IPv6" },
		{ "traddr=", "traddr has an empty value" },
		{ "traddr=1.2.3.4 TRADDR=1.2.3.5", "TRADDR is given twice" },
		{ "hostaddr=a host_traddr=b", "host_traddr is given twice" },
		{ "trsvcid=0x1144", "trsvcid '0x1144': must be a decimal number 1-65535" },
		{ "trsvcid=0", "trsvcid '0': must be a decimal number 1-65535" },
		{ "trsvcid=65536", "trsvcid '65536'" },
		{ "trsvcid=+1", "trsvcid '+1'" },
		{ "trsvcid=04420", "without leading zeros" },
		{ "ns=0", "ns 0: must be a namespace ID 1-4294967294" },
		{ "ns=4294967295", "ns 4294967295" },
		{ "ns=-1", "ns -1" },
		{ "subnqn=a\x01", "subnqn contains control characters" },
		{ "hostid=xyz", "hostid xyz: a UUID" },
		{ "adrfam=IPv4 traddr=fe80::1", "adrfam IPv4 does not match traddr fe80::1" },
		{ "traddr=10.0.0.1 adrfam=IPv6", "adrfam IPv6 does not match traddr 10.0.0.1" },
		{ "", "is empty" },
		{ " \t", "is empty" },
	};
	struct rblk_trid t;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT_EQUAL(parse(bad[i].in, &t), -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, bad[i].why));
		if (!strstr(why, bad[i].why))
			printf("\n  '%s': '%s'\n", bad[i].in, why);
	}
	CU_ASSERT_EQUAL(rblk_trid_parse(NULL, &t, why, sizeof(why)), -EINVAL);
}

static void test_lengths(void)
{
	struct rblk_trid t;
	char s[600];

	/* an NQN of 223 bytes fits, 224 does not */
	memcpy(s, "subnqn=", 7);
	memset(s + 7, 'a', 224);
	s[7 + 224] = '\0';
	CU_ASSERT_EQUAL(parse(s, &t), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "subnqn is 224 bytes long (at most 223)"));
	s[7 + 223] = '\0';
	CU_ASSERT_EQUAL(parse(s, &t), 0);
	CU_ASSERT_EQUAL(strlen(t.subnqn), 223);
	memcpy(s, "traddr=", 7);
	memset(s + 7, 'h', 257);
	s[7 + 257] = '\0';
	CU_ASSERT_EQUAL(parse(s, &t), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "traddr is longer than 256 bytes"));
}

/* A failed parse leaves the caller's struct as it was. */
static void test_failure_leaves_out_alone(void)
{
	struct rblk_trid t, before;

	parse("traddr=10.0.0.1", &t);
	before = t;
	CU_ASSERT_EQUAL(rblk_trid_parse("traddr=10.0.0.9 trsvcid=0", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(memcmp(&t, &before, sizeof(t)), 0);
}

/* An older caller's shorter struct gets only what it knows; a zero size is refused. */
static void test_size_field(void)
{
	struct rblk_trid t;

	memset(&t, 0x5a, sizeof(t));
	t.size = 0;
	CU_ASSERT_EQUAL(rblk_trid_parse("ns=1", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "size"));
	CU_ASSERT_EQUAL(t.nsid, 0x5a5a5a5a);
	t.size = offsetof(struct rblk_trid, nsid) + sizeof(t.nsid);
	CU_ASSERT_EQUAL(rblk_trid_parse("ns=1", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(t.size, offsetof(struct rblk_trid, nsid) + sizeof(t.nsid));
	CU_ASSERT_EQUAL(t.nsid, 1);
}

static void test_lists(void)
{
	struct rblk_trid t;
	struct rblk_trid_path p[RBLK_MPATH_MAX_PATHS];

	CU_ASSERT_EQUAL(parse("traddr=10.0.0.1,10.0.1.1 trsvcid=4420,4421", &t), 0);
	CU_ASSERT_EQUAL(rblk_trid_paths(t.traddr, t.trsvcid, p, why, sizeof(why)), 2);
	CU_ASSERT_STRING_EQUAL(p[0].traddr, "10.0.0.1");
	CU_ASSERT_STRING_EQUAL(p[0].trsvcid, "4420");
	CU_ASSERT_STRING_EQUAL(p[1].traddr, "10.0.1.1");
	CU_ASSERT_STRING_EQUAL(p[1].trsvcid, "4421");
	CU_ASSERT_EQUAL(rblk_trid_paths("a,b,c", "4430", p, why, sizeof(why)), 3);
	CU_ASSERT_STRING_EQUAL(p[2].traddr, "c");
	CU_ASSERT_STRING_EQUAL(p[2].trsvcid, "4430");

	CU_ASSERT_EQUAL(parse("traddr=a,b,c trsvcid=1,2", &t), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "one port for all paths, or one per traddr entry (3)"));
	CU_ASSERT_EQUAL(parse("traddr=a,,b", &t), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "an empty entry"));
	CU_ASSERT_EQUAL(parse("trsvcid=4420,0x10", &t), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "trsvcid '0x10'"));
	CU_ASSERT_EQUAL(parse("traddr=a,b,c,d,e,f,g,h,i", &t), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "at most 8 paths"));
	CU_ASSERT_EQUAL(parse("adrfam=IPv4 traddr=10.0.0.1,fe80::1", &t), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "does not match traddr fe80::1"));
}

static void test_adrfam_fits(void)
{
	CU_ASSERT_TRUE(rblk_trid_adrfam_fits(RBLK_ADRFAM_IPV4, "10.0.0.1"));
	CU_ASSERT_TRUE(rblk_trid_adrfam_fits(RBLK_ADRFAM_IPV4, "storage1"));
	CU_ASSERT_FALSE(rblk_trid_adrfam_fits(RBLK_ADRFAM_IPV4, "::1"));
	CU_ASSERT_TRUE(rblk_trid_adrfam_fits(RBLK_ADRFAM_IPV6, "::1"));
	CU_ASSERT_TRUE(rblk_trid_adrfam_fits(RBLK_ADRFAM_IPV6, "storage1"));
	CU_ASSERT_FALSE(rblk_trid_adrfam_fits(RBLK_ADRFAM_IPV6, "10.0.0.1"));
	CU_ASSERT_TRUE(rblk_trid_adrfam_fits(RBLK_ADRFAM_ANY, "10.0.0.1"));
}

static const struct ut_case cases[] = {
	UT_CASE(test_every_key),
	UT_CASE(test_spdk_forms),
	UT_CASE(test_errors_name_the_key),
	UT_CASE(test_lengths),
	UT_CASE(test_failure_leaves_out_alone),
	UT_CASE(test_size_field),
	UT_CASE(test_lists),
	UT_CASE(test_adrfam_fits),
	UT_END
};

UT_MAIN("initiator/trid", cases)

/* SPDX-License-Identifier: MIT */
/*
 * Tests for fio-plugin/trid.c: fio filenames as SPDK transport IDs, merged
 * with the engine options. The parser's own rules are tested with it
 * (tests/unit/initiator/trid_ut.c); here what the plugin adds.
 */
#include <errno.h>
#include <string.h>

#include "fio-plugin/trid.h"
#include "ut.h"

static char why[512];

static void test_spdk_form_all_keys(void)
{
	struct rblk_trid t;

	CU_ASSERT_EQUAL(rblk_fio_trid_parse("trtype=RDMA adrfam=IPv4 traddr=10.99.0.1 trsvcid=4421 "
					    "subnqn=nqn.2024-01.io.rblk:fio ns=3 hostnqn=nqn.h "
					    "hostid=5b0c1d7e-0000-4000-8000-000000000001 hostaddr=10.99.0.2",
					    &t, why, sizeof(why)), 0);
	CU_ASSERT_STRING_EQUAL(t.traddr, "10.99.0.1");
	CU_ASSERT_STRING_EQUAL(t.trsvcid, "4421");
	/* the first '=' ends the key: the NQN keeps its ':' */
	CU_ASSERT_STRING_EQUAL(t.subnqn, "nqn.2024-01.io.rblk:fio");
	CU_ASSERT_EQUAL(t.nsid, 3);
	CU_ASSERT_STRING_EQUAL(t.hostnqn, "nqn.h");
	CU_ASSERT_STRING_EQUAL(t.hostid, "5b0c1d7e-0000-4000-8000-000000000001");
	CU_ASSERT_STRING_EQUAL(t.host_traddr, "10.99.0.2");
	CU_ASSERT_EQUAL(t.adrfam, RBLK_ADRFAM_IPV4);
	CU_ASSERT_EQUAL(t.set & RBLK_TRID_NS, RBLK_TRID_NS);
}

static void test_colon_form_and_case(void)
{
	struct rblk_trid t;

	/* what fio hands over after turning '\:' into ':' */
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("TRTYPE:rdma adrfam:ipv6 traddr:fe80::1 "
					    "subnqn:nqn.x:y:z ns:0x10 host_traddr=::1",
					    &t, why, sizeof(why)), 0);
	CU_ASSERT_STRING_EQUAL(t.traddr, "fe80::1");
	CU_ASSERT_STRING_EQUAL(t.subnqn, "nqn.x:y:z");
	CU_ASSERT_EQUAL(t.nsid, 16);
	CU_ASSERT_STRING_EQUAL(t.host_traddr, "::1");
	CU_ASSERT_EQUAL(t.adrfam, RBLK_ADRFAM_IPV6);
	CU_ASSERT_EQUAL(t.trsvcid[0], '\0');
}

/* The library's sentence, and fio's ':' splitting named when a token lost its '='. */
static void test_bad_tokens_say_why(void)
{
	struct rblk_trid t;

	CU_ASSERT_EQUAL(rblk_fio_trid_parse("/dev/nvme0n1", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "'/dev/nvme0n1' is not KEY=VALUE"));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "\\:"));
	/* what fio leaves of subnqn=nqn.2014-08.org.nvmexpress:uuid:... */
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("uuid", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "fio splits filename= at every ':'"));
	/* other mistakes get no hint about ':' */
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("trtype=TCP traddr=1.2.3.4", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "only RDMA"));
	CU_ASSERT_PTR_NULL(strstr(why, "fio splits"));
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("trsvcid=0x1144", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "trsvcid '0x1144': must be a decimal number 1-65535"));
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "empty"));
}

static void test_too_long_values(void)
{
	struct rblk_trid t;
	char s[600];

	memset(s, 0, sizeof(s));
	strcpy(s, "subnqn=");
	memset(s + 7, 'a', 224);	/* one more than RBLK_NQN_MAX */
	CU_ASSERT_EQUAL(rblk_fio_trid_parse(s, &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "subnqn is 224 bytes long (at most 223)"));
	s[7 + 223] = '\0';
	CU_ASSERT_EQUAL(rblk_fio_trid_parse(s, &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(strlen(t.subnqn), 223);
}

static void test_complete_from_options(void)
{
	struct rblk_trid t, d;

	memset(&d, 0, sizeof(d));
	strcpy(d.traddr, "10.0.0.9");
	strcpy(d.subnqn, "nqn.opt");
	strcpy(d.hostnqn, "nqn.hostopt");
	d.nsid = 7;
	/* the filename wins over the options, field by field */
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("ns=2 hostnqn=nqn.file", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, &d, why, sizeof(why)), 0);
	CU_ASSERT_STRING_EQUAL(t.traddr, "10.0.0.9");
	CU_ASSERT_STRING_EQUAL(t.subnqn, "nqn.opt");
	CU_ASSERT_STRING_EQUAL(t.hostnqn, "nqn.file");
	CU_ASSERT_STRING_EQUAL(t.trsvcid, "4420");
	CU_ASSERT_EQUAL(t.nsid, 2);
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("trtype=RDMA", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, &d, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(t.nsid, 7);
	d.nsid = 0;
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("trtype=RDMA", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, &d, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(t.nsid, 1);
}

static void test_complete_reports_missing_and_mismatch(void)
{
	struct rblk_trid t, d;

	CU_ASSERT_EQUAL(rblk_fio_trid_parse("subnqn=nqn.a", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, NULL, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "no target address"));
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("traddr=10.0.0.1", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, NULL, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "no subsystem NQN"));
	/* the address from the options, the family from the filename */
	memset(&d, 0, sizeof(d));
	strcpy(d.traddr, "fe80::1");
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("adrfam=IPv4 subnqn=n", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, &d, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "adrfam IPv4 does not match traddr fe80::1"));
	strcpy(d.traddr, "10.0.0.1");
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("adrfam=IPv6 subnqn=n", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, &d, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "adrfam IPv6 does not match traddr 10.0.0.1"));
	/* a host name is fine with either family */
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("adrfam=IPv6 traddr=storage1 subnqn=n", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, NULL, why, sizeof(why)), 0);
}

/* traddr and trsvcid as comma lists: one path per address, one port for all or one each. */
static void test_paths_from_lists(void)
{
	struct rblk_trid_path p[RBLK_MPATH_MAX_PATHS];
	struct rblk_trid t, d;

	CU_ASSERT_EQUAL(rblk_fio_trid_parse("trtype=RDMA adrfam=IPv4 traddr=10.99.0.1,10.99.0.2 "
					    "trsvcid=4420,4421 subnqn=nqn.a ns=1", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, NULL, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_paths(&t, p, why, sizeof(why)), 2);
	CU_ASSERT_STRING_EQUAL(p[0].traddr, "10.99.0.1");
	CU_ASSERT_STRING_EQUAL(p[0].trsvcid, "4420");
	CU_ASSERT_STRING_EQUAL(p[1].traddr, "10.99.0.2");
	CU_ASSERT_STRING_EQUAL(p[1].trsvcid, "4421");

	/* One port for both. */
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("traddr=10.0.0.1,10.0.0.1 trsvcid=4420 subnqn=nqn.a", &t,
					    why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, NULL, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_paths(&t, p, why, sizeof(why)), 2);
	CU_ASSERT_STRING_EQUAL(p[1].trsvcid, "4420");

	/* A plain ID is one path. */
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("traddr=10.0.0.1 subnqn=nqn.a", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, NULL, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_paths(&t, p, why, sizeof(why)), 1);
	CU_ASSERT_STRING_EQUAL(p[0].trsvcid, "4420");

	/* Lists the options bring are checked once merged: the filename's parse never saw them. */
	memset(&d, 0, sizeof(d));
	strcpy(d.trsvcid, "1,2,3");
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("traddr=10.0.0.1,10.0.0.2 subnqn=nqn.a", &t, why,
					    sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, &d, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "one per traddr"));
	strcpy(d.trsvcid, "4420,0x10");
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("traddr=10.0.0.1,10.0.0.2 subnqn=nqn.a", &t, why,
					    sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, &d, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "trsvcid '0x10': must be a decimal number 1-65535"));
	memset(&d, 0, sizeof(d));
	strcpy(d.traddr, "10.0.0.1,,10.0.0.2");
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("subnqn=nqn.a", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, &d, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "empty entry"));
	strcpy(d.traddr, "10.0.0.1,fe80::1");
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("adrfam=IPv4 subnqn=nqn.a", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, &d, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "fe80::1"));
}

static void test_same_ctrl_ignores_nsid(void)
{
	struct rblk_trid a, b;

	CU_ASSERT_EQUAL(rblk_fio_trid_parse("traddr=10.0.0.1 subnqn=n ns=1", &a, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&a, NULL, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("traddr=10.0.0.1 subnqn=n ns=2 trsvcid=4420", &b, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&b, NULL, why, sizeof(why)), 0);
	CU_ASSERT_TRUE(rblk_fio_trid_same_ctrl(&a, &b));
	strcpy(b.hostnqn, "nqn.other");
	CU_ASSERT_FALSE(rblk_fio_trid_same_ctrl(&a, &b));
	b.hostnqn[0] = '\0';
	strcpy(b.trsvcid, "4421");
	CU_ASSERT_FALSE(rblk_fio_trid_same_ctrl(&a, &b));
}

static void test_str(void)
{
	struct rblk_trid t;
	char buf[512];

	CU_ASSERT_EQUAL(rblk_fio_trid_parse("traddr=10.0.0.1 subnqn=nqn.a ns=4 hostaddr=10.0.0.2", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, NULL, why, sizeof(why)), 0);
	rblk_fio_trid_str(&t, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "traddr=10.0.0.1 trsvcid=4420 subnqn=nqn.a ns=4 hostaddr=10.0.0.2");
}

static const struct ut_case cases[] = {
	UT_CASE(test_spdk_form_all_keys),
	UT_CASE(test_colon_form_and_case),
	UT_CASE(test_bad_tokens_say_why),
	UT_CASE(test_too_long_values),
	UT_CASE(test_complete_from_options),
	UT_CASE(test_complete_reports_missing_and_mismatch),
	UT_CASE(test_paths_from_lists),
	UT_CASE(test_same_ctrl_ignores_nsid),
	UT_CASE(test_str),
	UT_END,
};

UT_MAIN("fio_trid", cases)

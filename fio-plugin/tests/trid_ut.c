/* SPDX-License-Identifier: MIT */
/* Tests for fio-plugin/trid.c: fio filenames as SPDK transport IDs, merged with the engine options. */
#include <errno.h>
#include <string.h>

#include "fio-plugin/trid.h"
#include "ut.h"

static char why[512];

static void test_spdk_form_all_keys(void)
{
	struct rblk_fio_trid t;

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
	CU_ASSERT_EQUAL(t.adrfam, RBLK_FIO_ADRFAM_IPV4);
	CU_ASSERT_EQUAL(t.set & RBLK_FIO_TRID_NSID, RBLK_FIO_TRID_NSID);
}

static void test_colon_form_and_case(void)
{
	struct rblk_fio_trid t;

	/* what fio hands over after turning '\:' into ':' */
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("TRTYPE:rdma adrfam:ipv6 traddr:fe80::1 "
					    "subnqn:nqn.x:y:z ns:0x10 host_traddr=::1",
					    &t, why, sizeof(why)), 0);
	CU_ASSERT_STRING_EQUAL(t.traddr, "fe80::1");
	CU_ASSERT_STRING_EQUAL(t.subnqn, "nqn.x:y:z");
	CU_ASSERT_EQUAL(t.nsid, 16);
	CU_ASSERT_STRING_EQUAL(t.host_traddr, "::1");
	CU_ASSERT_EQUAL(t.adrfam, RBLK_FIO_ADRFAM_IPV6);
	CU_ASSERT_EQUAL(t.trsvcid[0], '\0');
}

static void test_bad_tokens_say_why(void)
{
	struct rblk_fio_trid t;

	CU_ASSERT_EQUAL(rblk_fio_trid_parse("/dev/nvme0n1", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "'/dev/nvme0n1' is not KEY=VALUE"));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "\\:"));
	/* the piece fio cut off an unescaped NQN */
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("fio ns=1", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "'fio' is not KEY=VALUE"));
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("trtype=TCP traddr=1.2.3.4", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "only RDMA"));
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("traddr=1.2.3.4 bogus=1", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "unknown key 'bogus'"));
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("traddr=1.2.3.4 traddr=1.2.3.5", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "twice"));
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("traddr=", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "empty value"));
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("ns=0", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("ns=4294967295", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("ns=-1", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("ns=1x", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("trsvcid=0", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("trsvcid=65536", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("trsvcid=44a", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("adrfam=IB", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("", &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "empty"));
}

static void test_too_long_values(void)
{
	struct rblk_fio_trid t;
	char s[600];

	memset(s, 0, sizeof(s));
	strcpy(s, "subnqn=");
	memset(s + 7, 'a', 224);	/* one more than RBLK_NQN_MAX */
	CU_ASSERT_EQUAL(rblk_fio_trid_parse(s, &t, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "longer than 223"));
	s[7 + 223] = '\0';
	CU_ASSERT_EQUAL(rblk_fio_trid_parse(s, &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(strlen(t.subnqn), 223);
}

static void test_complete_from_options(void)
{
	struct rblk_fio_trid t, d;

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
	struct rblk_fio_trid t;

	CU_ASSERT_EQUAL(rblk_fio_trid_parse("subnqn=nqn.a", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, NULL, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "no target address"));
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("traddr=10.0.0.1", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, NULL, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "no subsystem NQN"));
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("adrfam=IPv4 traddr=fe80::1 subnqn=n", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, NULL, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "adrfam IPv4 does not match"));
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("adrfam=IPv6 traddr=10.0.0.1 subnqn=n", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, NULL, why, sizeof(why)), -EINVAL);
	/* a host name is fine with either family */
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("adrfam=IPv6 traddr=storage1 subnqn=n", &t, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, NULL, why, sizeof(why)), 0);
}

/* traddr and trsvcid as comma lists: one path per address, one port for all or one each. */
static void test_paths_from_lists(void)
{
	struct rblk_fio_path p[RBLK_FIO_PATHS_MAX];
	struct rblk_fio_trid t;

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

	/* Three ports for two addresses, an empty entry, a bad port in a list, IPv6 in an IPv4 list. */
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("traddr=10.0.0.1,10.0.0.2 trsvcid=1,2,3 subnqn=nqn.a", &t,
					    why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, NULL, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "one per traddr"));
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("traddr=10.0.0.1,,10.0.0.2 subnqn=nqn.a", &t, why,
					    sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, NULL, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "empty entry"));
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("traddr=10.0.0.1,10.0.0.2 trsvcid=4420,0 subnqn=nqn.a", &t,
					    why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, NULL, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "trsvcid 0"));
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("adrfam=IPv4 traddr=10.0.0.1,fe80::1 subnqn=nqn.a", &t,
					    why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, NULL, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "fe80::1"));
	CU_ASSERT_EQUAL(rblk_fio_trid_parse("traddr=a,b,c,d,e,f,g,h,i subnqn=nqn.a", &t, why,
					    sizeof(why)), 0);
	CU_ASSERT_EQUAL(rblk_fio_trid_complete(&t, NULL, why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "at most 8"));
}

static void test_same_ctrl_ignores_nsid(void)
{
	struct rblk_fio_trid a, b;

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
	struct rblk_fio_trid t;
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

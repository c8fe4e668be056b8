/* SPDX-License-Identifier: MIT */
/* Tests for cli/counters.c: the "is it really RDMA?" verdict, on fake sysfs trees. */
#include <string.h>

#include "cli/bench.h"
#include "transport/fake_sysfs.h"
#include "ut.h"

static void set(struct rblk_port_counters *d, enum rblk_pc c, uint64_t v)
{
	d->avail |= 1ULL << c;
	d->v[c] = v;
}

static struct cli_rdma_check rxe_check(uint64_t sent, uint64_t rcvd)
{
	struct cli_rdma_check c;

	memset(&c, 0, sizeof(c));
	c.have_dev = true;
	strcpy(c.dev, "rxe1");
	c.port = 1;
	c.mtu = 1024;
	set(&c.delta, RBLK_PC_HW_SENT_PKTS, sent);
	set(&c.delta, RBLK_PC_HW_RCVD_PKTS, rcvd);
	return c;
}

static void test_packets_bound_ok(void)
{
	/* 1 MiB read in >= 1024 packets of 1 KiB: could have carried it */
	struct cli_rdma_check c = rxe_check(300, 1100);

	c.data_rx = 1 << 20;
	rblk_cli_rdma_verdict(&c);
	CU_ASSERT_EQUAL(c.verdict, CLI_RDMA_OK);
	CU_ASSERT_FALSE(c.bytes.exact);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.why, "carried at most"));
}

static void test_packets_bound_mismatch(void)
{
	/* 100 packets cannot carry 1 MiB at MTU 1024 */
	struct cli_rdma_check c = rxe_check(50, 100);

	c.data_rx = 1 << 20;
	rblk_cli_rdma_verdict(&c);
	CU_ASSERT_EQUAL(c.verdict, CLI_RDMA_MISMATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.why, "is it really RDMA?"));
	/* writes leave as tx: the same packets, the other direction */
	c = rxe_check(100, 5000);
	c.data_tx = 1 << 20;
	rblk_cli_rdma_verdict(&c);
	CU_ASSERT_EQUAL(c.verdict, CLI_RDMA_MISMATCH);
	c = rxe_check(0, 0);
	c.data_tx = 4096;
	rblk_cli_rdma_verdict(&c);
	CU_ASSERT_EQUAL(c.verdict, CLI_RDMA_MISMATCH);
}

static void test_exact_port_data(void)
{
	struct cli_rdma_check c;

	memset(&c, 0, sizeof(c));
	c.have_dev = true;
	strcpy(c.dev, "mlx5_0");
	c.port = 1;
	set(&c.delta, RBLK_PC_XMIT_BYTES, 2 << 20);
	set(&c.delta, RBLK_PC_RCV_BYTES, 64 << 10);
	set(&c.delta, RBLK_PC_RCV_ERRORS, 2);
	set(&c.delta, RBLK_PC_SYMBOL_ERROR, 0);
	c.data_tx = 2 << 20;
	rblk_cli_rdma_verdict(&c);
	CU_ASSERT_EQUAL(c.verdict, CLI_RDMA_OK);
	CU_ASSERT_TRUE(c.bytes.exact);
	CU_ASSERT_EQUAL(c.errors, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.error_names, "port_rcv_errors +2"));
	/* one byte more than the port counted: not over this port */
	c.data_tx = (2 << 20) + 1;
	rblk_cli_rdma_verdict(&c);
	CU_ASSERT_EQUAL(c.verdict, CLI_RDMA_MISMATCH);
}

static void test_unknown_cases(void)
{
	struct cli_rdma_check c;

	memset(&c, 0, sizeof(c));
	rblk_cli_rdma_verdict(&c);	/* no device */
	CU_ASSERT_EQUAL(c.verdict, CLI_RDMA_UNKNOWN);
	c.have_dev = true;
	c.data_rx = 100;
	rblk_cli_rdma_verdict(&c);	/* no counters */
	CU_ASSERT_EQUAL(c.verdict, CLI_RDMA_UNKNOWN);
	c = rxe_check(10, 10);
	rblk_cli_rdma_verdict(&c);	/* nothing moved */
	CU_ASSERT_EQUAL(c.verdict, CLI_RDMA_UNKNOWN);
	CU_ASSERT_STRING_EQUAL(rblk_cli_rdma_verdict_str(CLI_RDMA_MISMATCH), "mismatch");
}

static void test_begin_end_on_fake_sysfs(void)
{
	char *root = fs_create();
	struct cli_rdma_check c;
	struct json_object *o, *v;

	fs_add_rxe0(root, 1000, 2000);
	/* 10.99.0.1 is rxe0's GID 1 (::ffff:10.99.0.1) */
	rblk_cli_rdma_check_begin(&c, root, "10.99.0.2", "4420", "10.99.0.1");
	CU_ASSERT_TRUE_FATAL(c.have_dev);
	CU_ASSERT_STRING_EQUAL(c.dev, "rxe0");
	CU_ASSERT_EQUAL(c.port, 1);
	CU_ASSERT_STRING_EQUAL(c.local, "10.99.0.1");
	fs_add_rxe0(root, 1000 + 40, 2000 + 600);
	rblk_cli_rdma_check_end(&c, root, 0, 512 * 1024);
	CU_ASSERT_EQUAL(c.delta.v[RBLK_PC_HW_RCVD_PKTS], 600);
	/* no MTU from sysfs alone: the bound uses 4096, 600 x 4096 >= 512 KiB */
	CU_ASSERT_EQUAL(c.verdict, CLI_RDMA_OK);
	o = rblk_cli_rdma_check_json(&c);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "verdict", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "ok");
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "packets_rx", &v));
	CU_ASSERT_EQUAL(json_object_get_int(v), 600);
	CU_ASSERT_TRUE(json_object_object_get_ex(o, "device", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "rxe0");
	json_object_put(o);
	fs_destroy(root);
}

static void test_begin_without_device(void)
{
	char *root = fs_create();
	struct cli_rdma_check c;
	char *out = NULL;
	size_t len;
	FILE *f;

	rblk_cli_rdma_check_begin(&c, root, "10.99.0.2", "4420", "192.0.2.7");
	CU_ASSERT_FALSE(c.have_dev);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.why, "no RDMA device holds the local address 192.0.2.7"));
	rblk_cli_rdma_check_end(&c, root, 100, 100);
	CU_ASSERT_EQUAL(c.verdict, CLI_RDMA_UNKNOWN);
	f = open_memstream(&out, &len);
	rblk_cli_rdma_check_print(f, &c);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "RDMA check (is it really RDMA?): UNKNOWN"));
	free(out);
	fs_destroy(root);
}

static const struct ut_case cases[] = {
	UT_CASE(test_packets_bound_ok),
	UT_CASE(test_packets_bound_mismatch),
	UT_CASE(test_exact_port_data),
	UT_CASE(test_unknown_cases),
	UT_CASE(test_begin_end_on_fake_sysfs),
	UT_CASE(test_begin_without_device),
	UT_END,
};

UT_MAIN("cli/counters", cases)

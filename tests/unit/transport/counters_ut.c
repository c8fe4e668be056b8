/* SPDX-License-Identifier: MIT */
/* Tests for transport/counters.c on fake sysfs trees: sources, units, deltas, best byte source. */
#include <errno.h>
#include <string.h>

#include "fake_sysfs.h"
#include "transport/counters.h"
#include "ut.h"

static void test_rxe_tree_reads_hw_and_netdev_but_no_pma(void)
{
	char *r = fs_create();
	struct rblk_port_counters c;

	fs_add_rxe0(r, 6574, 6573);
	fs_add_netdev(r, "veth0", 1110204, 1109562, 1044, 1043);
	CU_ASSERT_EQUAL_FATAL(rblk_port_counters_read(r, "rxe0", 1, &c), 0);
	CU_ASSERT_STRING_EQUAL(c.netdev, "veth0");
	CU_ASSERT_TRUE(rblk_pc_avail(&c, RBLK_PC_HW_SENT_PKTS));
	CU_ASSERT_EQUAL(c.v[RBLK_PC_HW_SENT_PKTS], 6574);
	CU_ASSERT_EQUAL(c.v[RBLK_PC_HW_RCVD_PKTS], 6573);
	CU_ASSERT_EQUAL(c.v[RBLK_PC_HW_RDMA_SENDS], 42);
	CU_ASSERT_EQUAL(c.v[RBLK_PC_HW_RETRY_EXCEEDED_ERR], 3);
	CU_ASSERT_TRUE(rblk_pc_avail(&c, RBLK_PC_HW_DUPLICATE_REQUEST));
	CU_ASSERT_EQUAL(c.v[RBLK_PC_HW_DUPLICATE_REQUEST], 0);
	/* rxe has no counters/ directory and not every hw counter. */
	CU_ASSERT_FALSE(rblk_pc_avail(&c, RBLK_PC_XMIT_BYTES));
	CU_ASSERT_FALSE(rblk_pc_avail(&c, RBLK_PC_RCV_PACKETS));
	CU_ASSERT_FALSE(rblk_pc_avail(&c, RBLK_PC_HW_OUT_OF_BUFFER));
	CU_ASSERT_TRUE(rblk_pc_avail(&c, RBLK_PC_NET_TX_BYTES));
	CU_ASSERT_EQUAL(c.v[RBLK_PC_NET_TX_BYTES], 1110204);
	CU_ASSERT_EQUAL(c.v[RBLK_PC_NET_RX_PACKETS], 1043);
	CU_ASSERT_FALSE(rblk_pc_avail(&c, RBLK_PC_NET_TX_ERRORS));
	fs_destroy(r);
}

static void test_pma_data_counters_are_words_converted_to_bytes(void)
{
	char *r = fs_create();
	struct rblk_port_counters c;

	fs_add_mlx5(r, 1000, 250);
	CU_ASSERT_EQUAL_FATAL(rblk_port_counters_read(r, "mlx5_0", 1, &c), 0);
	CU_ASSERT_EQUAL(c.v[RBLK_PC_XMIT_BYTES], 4000);
	CU_ASSERT_EQUAL(c.v[RBLK_PC_RCV_BYTES], 1000);
	/* Packets and errors are not scaled. */
	CU_ASSERT_EQUAL(c.v[RBLK_PC_XMIT_PACKETS], 1000);
	CU_ASSERT_EQUAL(c.v[RBLK_PC_RCV_ERRORS], 2);
	CU_ASSERT_EQUAL(c.v[RBLK_PC_HW_OUT_OF_BUFFER], 7);
	/* An IB port has no netdev. */
	CU_ASSERT_STRING_EQUAL(c.netdev, "");
	CU_ASSERT_FALSE(rblk_pc_avail(&c, RBLK_PC_NET_TX_BYTES));
	fs_destroy(r);
}

static void test_netdev_falls_back_to_parent_and_garbage_is_unavailable(void)
{
	char *r = fs_create();
	struct rblk_port_counters c;

	fs_write(r, "class/infiniband/rxe9/parent", "eth7");
	fs_write(r, "class/infiniband/rxe9/ports/1/hw_counters/sent_pkts", "not a number");
	fs_write(r, "class/infiniband/rxe9/ports/1/hw_counters/rcvd_pkts", "0x10");
	fs_add_netdev(r, "eth7", 1, 2, 3, 4);
	CU_ASSERT_EQUAL_FATAL(rblk_port_counters_read(r, "rxe9", 1, &c), 0);
	CU_ASSERT_STRING_EQUAL(c.netdev, "eth7");
	CU_ASSERT_EQUAL(c.v[RBLK_PC_NET_RX_BYTES], 2);
	CU_ASSERT_FALSE(rblk_pc_avail(&c, RBLK_PC_HW_SENT_PKTS));
	CU_ASSERT_TRUE(rblk_pc_avail(&c, RBLK_PC_HW_RCVD_PKTS));
	CU_ASSERT_EQUAL(c.v[RBLK_PC_HW_RCVD_PKTS], 16);
	fs_destroy(r);
}

static void test_missing_device_or_port_and_bad_arguments(void)
{
	char *r = fs_create();
	struct rblk_port_counters c;

	fs_add_rxe0(r, 1, 1);
	CU_ASSERT_EQUAL(rblk_port_counters_read(r, "rxe7", 1, &c), -ENOENT);
	CU_ASSERT_EQUAL(rblk_port_counters_read(r, "rxe0", 2, &c), -ENOENT);
	CU_ASSERT_EQUAL(c.avail, 0);
	CU_ASSERT_EQUAL(rblk_port_counters_read(r, "rxe0", 0, &c), -EINVAL);
	CU_ASSERT_EQUAL(rblk_port_counters_read(r, "../rxe0", 1, &c), -EINVAL);
	CU_ASSERT_EQUAL(rblk_port_counters_read(r, "", 1, &c), -EINVAL);
	fs_destroy(r);
}

static void test_delta_subtracts_and_flags_resets(void)
{
	struct rblk_port_counters a, b, d;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.avail = b.avail = (1ULL << RBLK_PC_HW_SENT_PKTS) | (1ULL << RBLK_PC_HW_RCVD_PKTS);
	a.avail |= 1ULL << RBLK_PC_XMIT_BYTES;	/* only in before: not in the delta */
	a.v[RBLK_PC_HW_SENT_PKTS] = 100;
	b.v[RBLK_PC_HW_SENT_PKTS] = 1144;
	a.v[RBLK_PC_HW_RCVD_PKTS] = 5000;
	b.v[RBLK_PC_HW_RCVD_PKTS] = 7;	/* device re-created */
	rblk_port_counters_delta(&a, &b, &d);
	CU_ASSERT_EQUAL(d.v[RBLK_PC_HW_SENT_PKTS], 1044);
	CU_ASSERT_EQUAL(d.v[RBLK_PC_HW_RCVD_PKTS], 7);
	CU_ASSERT_EQUAL(d.reset, 1ULL << RBLK_PC_HW_RCVD_PKTS);
	CU_ASSERT_FALSE(rblk_pc_avail(&d, RBLK_PC_XMIT_BYTES));
	CU_ASSERT_TRUE(rblk_pc_avail(&d, RBLK_PC_HW_SENT_PKTS));
}

static void test_delta_drops_netdev_counters_when_the_netdev_changed(void)
{
	struct rblk_port_counters a, b, d;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.avail = b.avail = (1ULL << RBLK_PC_NET_TX_BYTES) | (1ULL << RBLK_PC_HW_SENT_PKTS);
	strcpy(a.netdev, "veth0");
	strcpy(b.netdev, "veth9");
	b.v[RBLK_PC_NET_TX_BYTES] = 10;
	b.v[RBLK_PC_HW_SENT_PKTS] = 10;
	rblk_port_counters_delta(&a, &b, &d);
	CU_ASSERT_FALSE(rblk_pc_avail(&d, RBLK_PC_NET_TX_BYTES));
	CU_ASSERT_TRUE(rblk_pc_avail(&d, RBLK_PC_HW_SENT_PKTS));
}

/* Two reads of a fake tree around "traffic", as the smoke test does. */
static void read_pair(const char *r, const char *dev, struct rblk_port_counters *d)
{
	struct rblk_port_counters a, b;

	CU_ASSERT_EQUAL_FATAL(rblk_port_counters_read(r, dev, 1, &a), 0);
	if (!strcmp(dev, "rxe0")) {
		fs_add_rxe0(r, 1044 + 10, 1043 + 20);
	} else {
		fs_add_mlx5(r, 1000 + 262144, 250 + 262144);
	}
	CU_ASSERT_EQUAL_FATAL(rblk_port_counters_read(r, dev, 1, &b), 0);
	rblk_port_counters_delta(&a, &b, d);
}

static void test_bytes_prefers_pma_data(void)
{
	char *r = fs_create();
	struct rblk_port_counters d;
	struct rblk_port_bytes b;

	fs_add_mlx5(r, 1000, 250);
	read_pair(r, "mlx5_0", &d);
	CU_ASSERT_EQUAL(rblk_port_bytes(&d, 4096, &b), 0);
	CU_ASSERT_EQUAL(b.source, RBLK_BYTES_PORT_DATA);
	CU_ASSERT_TRUE(b.exact);
	CU_ASSERT_EQUAL(b.tx, 262144ull * 4);
	CU_ASSERT_EQUAL(b.rx, 262144ull * 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(b.desc, "port_xmit_data"));
	CU_ASSERT_STRING_EQUAL(rblk_bytes_source_str(b.source), "port_data");
	fs_destroy(r);
}

static void test_bytes_uses_netdev_when_it_carried_the_rdma_packets(void)
{
	char *r = fs_create();
	struct rblk_port_counters a, b2, d;
	struct rblk_port_bytes b;

	fs_add_rxe0(r, 10, 20);
	fs_add_netdev(r, "veth0", 500, 600, 5, 6);
	CU_ASSERT_EQUAL_FATAL(rblk_port_counters_read(r, "rxe0", 1, &a), 0);
	fs_add_rxe0(r, 10 + 1044, 20 + 1043);
	fs_add_netdev(r, "veth0", 500 + 1110204, 600 + 1109562, 5 + 1044, 6 + 1045);
	CU_ASSERT_EQUAL_FATAL(rblk_port_counters_read(r, "rxe0", 1, &b2), 0);
	rblk_port_counters_delta(&a, &b2, &d);
	CU_ASSERT_EQUAL(rblk_port_bytes(&d, 1024, &b), 0);
	CU_ASSERT_EQUAL(b.source, RBLK_BYTES_NETDEV);
	CU_ASSERT_TRUE(b.exact);
	CU_ASSERT_EQUAL(b.tx, 1110204);
	CU_ASSERT_EQUAL(b.rx, 1109562);
	CU_ASSERT_PTR_NOT_NULL(strstr(b.desc, "veth0"));
	fs_destroy(r);
}

static void test_bytes_falls_back_to_packets_when_traffic_bypassed_the_netdev(void)
{
	char *r = fs_create();
	struct rblk_port_counters d;
	struct rblk_port_bytes b;

	/* rxe loopback between two local addresses: the netdev sees nothing. */
	fs_add_rxe0(r, 10, 20);
	fs_add_netdev(r, "veth0", 516, 516, 6, 6);
	read_pair(r, "rxe0", &d);
	CU_ASSERT_EQUAL(d.v[RBLK_PC_NET_TX_BYTES], 0);
	CU_ASSERT_EQUAL(rblk_port_bytes(&d, 1024, &b), 0);
	CU_ASSERT_EQUAL(b.source, RBLK_BYTES_PKTS_MTU);
	CU_ASSERT_FALSE(b.exact);
	CU_ASSERT_EQUAL(b.tx, 1044ull * 1024);
	CU_ASSERT_EQUAL(b.rx, 1043ull * 1024);
	CU_ASSERT_PTR_NOT_NULL(strstr(b.desc, "bypassed"));
	/* Unknown MTU: the largest IB MTU keeps it an upper bound. */
	CU_ASSERT_EQUAL(rblk_port_bytes(&d, 0, &b), 0);
	CU_ASSERT_EQUAL(b.tx, 1044ull * 4096);
	fs_destroy(r);
}

static void test_bytes_without_any_counter_is_enodata(void)
{
	struct rblk_port_counters d;
	struct rblk_port_bytes b;

	memset(&d, 0, sizeof(d));
	d.avail = 1ULL << RBLK_PC_SYMBOL_ERROR;
	CU_ASSERT_EQUAL(rblk_port_bytes(&d, 1024, &b), -ENODATA);
	CU_ASSERT_EQUAL(b.source, RBLK_BYTES_NONE);
	CU_ASSERT_EQUAL(b.tx + b.rx, 0);
	CU_ASSERT_STRING_EQUAL(rblk_bytes_source_str(b.source), "none");
}

static void test_counter_names_and_classes(void)
{
	CU_ASSERT_STRING_EQUAL(rblk_pc_name(RBLK_PC_XMIT_BYTES), "port_xmit_data");
	CU_ASSERT_STRING_EQUAL(rblk_pc_source(RBLK_PC_XMIT_BYTES), "counters");
	CU_ASSERT_STRING_EQUAL(rblk_pc_name(RBLK_PC_HW_RCVD_SEQ_ERR), "rcvd_seq_err");
	CU_ASSERT_STRING_EQUAL(rblk_pc_source(RBLK_PC_HW_RCVD_SEQ_ERR), "hw_counters");
	CU_ASSERT_STRING_EQUAL(rblk_pc_source(RBLK_PC_NET_RX_DROPPED), "netdev");
	CU_ASSERT_TRUE(rblk_pc_is_error(RBLK_PC_HW_RETRY_EXCEEDED_ERR));
	CU_ASSERT_FALSE(rblk_pc_is_error(RBLK_PC_HW_SENT_PKTS));
	CU_ASSERT_PTR_NULL(rblk_pc_name(RBLK_PC_COUNT));
	for (unsigned i = 0; i < RBLK_PC_COUNT; i++)
		CU_ASSERT_PTR_NOT_NULL(rblk_pc_name(i));
}

static const struct ut_case cases[] = {
	UT_CASE(test_rxe_tree_reads_hw_and_netdev_but_no_pma),
	UT_CASE(test_pma_data_counters_are_words_converted_to_bytes),
	UT_CASE(test_netdev_falls_back_to_parent_and_garbage_is_unavailable),
	UT_CASE(test_missing_device_or_port_and_bad_arguments),
	UT_CASE(test_delta_subtracts_and_flags_resets),
	UT_CASE(test_delta_drops_netdev_counters_when_the_netdev_changed),
	UT_CASE(test_bytes_prefers_pma_data),
	UT_CASE(test_bytes_uses_netdev_when_it_carried_the_rdma_packets),
	UT_CASE(test_bytes_falls_back_to_packets_when_traffic_bypassed_the_netdev),
	UT_CASE(test_bytes_without_any_counter_is_enodata),
	UT_CASE(test_counter_names_and_classes),
	UT_END,
};

UT_MAIN("transport/counters", cases)

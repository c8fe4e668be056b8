/* SPDX-License-Identifier: MIT */
/*
 * Tests for transport/device.c: enumeration over fake sysfs trees (an rxe
 * and an IB HCA), GID types and tables, address-to-device lookup, string
 * helpers, and enumeration on this host (which has no RDMA: zero devices,
 * not an error).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "fake_sysfs.h"
#include "transport/addr.h"
#include "transport/device.h"
#include "ut.h"

static void test_list_fake_tree(void)
{
	char *r = fs_create();
	struct rblk_rdma_dev_info *d;
	const struct rblk_port_info *p;
	int n = -1;

	fs_add_rxe0(r, 0, 0);
	fs_add_mlx5(r, 0, 0);
	CU_ASSERT_EQUAL_FATAL(rblk_rdma_dev_list_at(r, &d, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	/* Sorted by name. */
	CU_ASSERT_STRING_EQUAL(d[0].name, "mlx5_0");
	CU_ASSERT_STRING_EQUAL(d[1].name, "rxe0");

	CU_ASSERT_EQUAL(d[1].node_guid, 0xec984ffffe106a56ULL);
	CU_ASSERT_STRING_EQUAL(d[1].node_guid_str, "ec98:4fff:fe10:6a56");
	CU_ASSERT_EQUAL(d[1].node_type, 1);
	CU_ASSERT_STRING_EQUAL(d[1].node_type_str, "CA");
	CU_ASSERT_STRING_EQUAL(d[1].parent, "veth0");
	CU_ASSERT_FALSE(d[1].have_limits);	/* verbs is not asked about a fake tree */
	CU_ASSERT_EQUAL_FATAL(d[1].port_count, 1);
	p = &d[1].ports[0];
	CU_ASSERT_EQUAL(p->port_num, 1);
	CU_ASSERT_EQUAL(p->state, RBLK_PORT_ACTIVE);
	CU_ASSERT_EQUAL(p->phys_state, 5);
	CU_ASSERT_STRING_EQUAL(p->phys_state_str, "LinkUp");
	CU_ASSERT_EQUAL(p->link_layer, RBLK_LINK_ETHERNET);
	CU_ASSERT_STRING_EQUAL(p->rate, "10 Gb/sec (1X FDR10)");
	CU_ASSERT_STRING_EQUAL(p->netdev, "veth0");
	CU_ASSERT_EQUAL(p->active_mtu, 0);
	/* Zero GIDs (2 and 10) are skipped; entries keep their table index. */
	CU_ASSERT_EQUAL_FATAL(p->gid_count, 2);
	CU_ASSERT_EQUAL(p->gids[0].index, 0);
	CU_ASSERT_STRING_EQUAL(p->gids[0].str, "fe80::ec98:4fff:fe10:6a56");
	CU_ASSERT_EQUAL(p->gids[0].type, RBLK_GID_ROCE_V2);
	CU_ASSERT_EQUAL(p->gids[1].index, 1);
	CU_ASSERT_STRING_EQUAL(p->gids[1].str, "::ffff:10.99.0.1");
	CU_ASSERT_STRING_EQUAL(p->gids[1].netdev, "veth0");
	CU_ASSERT_EQUAL(p->gids[1].raw[15], 1);

	p = &d[0].ports[0];
	CU_ASSERT_EQUAL(p->state, RBLK_PORT_DOWN);
	CU_ASSERT_STRING_EQUAL(p->phys_state_str, "Disabled");
	CU_ASSERT_EQUAL(p->link_layer, RBLK_LINK_INFINIBAND);
	CU_ASSERT_STRING_EQUAL(p->netdev, "");
	CU_ASSERT_EQUAL_FATAL(p->gid_count, 1);
	/* "IB/RoCE v1" on an InfiniBand port is an IB GID. */
	CU_ASSERT_EQUAL(p->gids[0].type, RBLK_GID_IB);
	CU_ASSERT_STRING_EQUAL(d[0].fw_ver, "16.35.2000");
	rblk_rdma_dev_list_free(d, n);
	fs_destroy(r);
}

static void test_list_empty_and_missing_roots(void)
{
	char *r = fs_create();
	struct rblk_rdma_dev_info *d = (void *)1;
	char dir[512];
	int n = -1;

	/* No class/infiniband at all: a kernel without RDMA. */
	CU_ASSERT_EQUAL(rblk_rdma_dev_list_at(r, &d, &n), 0);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_PTR_NULL(d);
	snprintf(dir, sizeof(dir), "%s/class/infiniband", r);
	CU_ASSERT_EQUAL(fs_mkdirs(dir), 0);
	CU_ASSERT_EQUAL(rblk_rdma_dev_list_at(r, &d, &n), 0);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_PTR_NULL(d);
	fs_destroy(r);
}

static void test_list_on_this_host(void)
{
	struct rblk_rdma_dev_info *d;
	struct stat st;
	int n = -1;

	CU_ASSERT_EQUAL_FATAL(rblk_rdma_dev_list(&d, &n), 0);
	if (stat("/sys/class/infiniband", &st)) {
		/* The development and CI hosts: no RDMA in the kernel. */
		CU_ASSERT_EQUAL(n, 0);
		CU_ASSERT_PTR_NULL(d);
	} else {
		CU_ASSERT_TRUE(n >= 0);
	}
	rblk_rdma_dev_list_free(d, n);
}

static void test_gid_type_parse(void)
{
	enum rblk_gid_type t;

	CU_ASSERT_EQUAL(rblk_gid_type_parse("RoCE v2", RBLK_LINK_ETHERNET, &t), 0);
	CU_ASSERT_EQUAL(t, RBLK_GID_ROCE_V2);
	CU_ASSERT_EQUAL(rblk_gid_type_parse("IB/RoCE v1", RBLK_LINK_ETHERNET, &t), 0);
	CU_ASSERT_EQUAL(t, RBLK_GID_ROCE_V1);
	CU_ASSERT_EQUAL(rblk_gid_type_parse("IB/RoCE v1", RBLK_LINK_INFINIBAND, &t), 0);
	CU_ASSERT_EQUAL(t, RBLK_GID_IB);
	CU_ASSERT_EQUAL(rblk_gid_type_parse("RoCE v3", RBLK_LINK_ETHERNET, &t), -EINVAL);
	CU_ASSERT_EQUAL(t, RBLK_GID_UNKNOWN);
	CU_ASSERT_EQUAL(rblk_gid_type_parse("", RBLK_LINK_ETHERNET, &t), -EINVAL);
	CU_ASSERT_STRING_EQUAL(rblk_gid_type_str(RBLK_GID_ROCE_V2), "RoCE v2");
	CU_ASSERT_STRING_EQUAL(rblk_gid_type_str(RBLK_GID_ROCE_V1), "RoCE v1");
	CU_ASSERT_STRING_EQUAL(rblk_gid_type_str(RBLK_GID_IB), "IB");
}

static void test_string_helpers(void)
{
	char buf[64];

	CU_ASSERT_STRING_EQUAL(rblk_port_state_str(RBLK_PORT_ACTIVE), "ACTIVE");
	CU_ASSERT_STRING_EQUAL(rblk_port_state_str(RBLK_PORT_DOWN), "DOWN");
	CU_ASSERT_STRING_EQUAL(rblk_port_state_str(RBLK_PORT_INIT), "INIT");
	CU_ASSERT_STRING_EQUAL(rblk_port_state_str(RBLK_PORT_ARMED), "ARMED");
	CU_ASSERT_STRING_EQUAL(rblk_port_state_str((enum rblk_port_state)9), "?");
	CU_ASSERT_STRING_EQUAL(rblk_link_layer_str(RBLK_LINK_ETHERNET), "Ethernet");
	CU_ASSERT_STRING_EQUAL(rblk_link_layer_str(RBLK_LINK_INFINIBAND), "InfiniBand");
	CU_ASSERT_EQUAL(rblk_ib_mtu_bytes(1), 256);
	CU_ASSERT_EQUAL(rblk_ib_mtu_bytes(3), 1024);
	CU_ASSERT_EQUAL(rblk_ib_mtu_bytes(5), 4096);
	CU_ASSERT_EQUAL(rblk_ib_mtu_bytes(0), 0);
	CU_ASSERT_EQUAL(rblk_ib_mtu_bytes(6), 0);
	/* rxe reports width 1 (1X), speed 8 (FDR10). */
	CU_ASSERT_STRING_EQUAL(rblk_rate_str(1, 8, buf, sizeof(buf)), "10 Gb/s (1X FDR10)");
	CU_ASSERT_STRING_EQUAL(rblk_rate_str(2, 32, buf, sizeof(buf)), "100 Gb/s (4X EDR)");
	CU_ASSERT_STRING_EQUAL(rblk_rate_str(1, 1, buf, sizeof(buf)), "2.5 Gb/s (1X SDR)");
	CU_ASSERT_STRING_EQUAL(rblk_rate_str(3, 8, buf, sizeof(buf)), "unknown");
}

static void test_addr_to_device_by_gid_table(void)
{
	char *r = fs_create();
	struct sockaddr_storage sa;
	struct rblk_addr_dev ad;

	fs_add_rxe0(r, 0, 0);
	fs_add_mlx5(r, 0, 0);
	CU_ASSERT_EQUAL(rblk_addr_parse("10.99.0.1", 4420, &sa), 0);
	CU_ASSERT_EQUAL(rblk_rdma_dev_for_addr_sysfs(r, (struct sockaddr *)&sa, &ad), 0);
	CU_ASSERT_STRING_EQUAL(ad.dev, "rxe0");
	CU_ASSERT_EQUAL(ad.port_num, 1);
	CU_ASSERT_EQUAL(ad.gid_index, 1);
	CU_ASSERT_EQUAL(ad.gid_type, RBLK_GID_ROCE_V2);
	CU_ASSERT_STRING_EQUAL(ad.netdev, "veth0");

	CU_ASSERT_EQUAL(rblk_addr_parse("fe80::ec98:4fff:fe10:6a56", 0, &sa), 0);
	CU_ASSERT_EQUAL(rblk_rdma_dev_for_addr_sysfs(r, (struct sockaddr *)&sa, &ad), 0);
	CU_ASSERT_EQUAL(ad.gid_index, 0);

	CU_ASSERT_EQUAL(rblk_addr_parse("10.99.0.2", 0, &sa), 0);
	CU_ASSERT_EQUAL(rblk_rdma_dev_for_addr_sysfs(r, (struct sockaddr *)&sa, &ad), -ENODEV);
	CU_ASSERT_EQUAL(ad.gid_index, -1);
	CU_ASSERT_EQUAL(rblk_addr_parse(NULL, 0, &sa), 0);
	CU_ASSERT_EQUAL(rblk_rdma_dev_for_addr_sysfs(r, (struct sockaddr *)&sa, &ad), -EINVAL);
	fs_destroy(r);
}

static void test_addr_to_device_prefers_roce_v2(void)
{
	char *r = fs_create();
	struct sockaddr_storage sa;
	struct rblk_addr_dev ad;

	/* Real RoCE NICs list each address twice: RoCE v1 first, then v2. */
	fs_write(r, "class/infiniband/mlx5_1/ports/1/link_layer", "Ethernet");
	fs_write(r, "class/infiniband/mlx5_1/ports/1/gids/2", "0000:0000:0000:0000:0000:ffff:c000:020a");
	fs_write(r, "class/infiniband/mlx5_1/ports/1/gid_attrs/types/2", "IB/RoCE v1");
	fs_write(r, "class/infiniband/mlx5_1/ports/1/gids/3", "0000:0000:0000:0000:0000:ffff:c000:020a");
	fs_write(r, "class/infiniband/mlx5_1/ports/1/gid_attrs/types/3", "RoCE v2");
	fs_write(r, "class/infiniband/mlx5_1/ports/1/gid_attrs/ndevs/3", "ens1f1");
	CU_ASSERT_EQUAL(rblk_addr_parse("192.0.2.10", 0, &sa), 0);
	CU_ASSERT_EQUAL(rblk_rdma_dev_for_addr_sysfs(r, (struct sockaddr *)&sa, &ad), 0);
	CU_ASSERT_STRING_EQUAL(ad.dev, "mlx5_1");
	CU_ASSERT_EQUAL(ad.gid_index, 3);
	CU_ASSERT_EQUAL(ad.gid_type, RBLK_GID_ROCE_V2);
	CU_ASSERT_STRING_EQUAL(ad.netdev, "ens1f1");
	fs_destroy(r);
}

static void test_addr_to_device_on_this_host(void)
{
	struct sockaddr_storage sa;
	struct rblk_addr_dev ad;
	struct stat st;

	if (!stat("/sys/class/infiniband", &st)) {
		ut_skip("this host has RDMA: nothing to assert about 127.0.0.1");
		return;
	}
	CU_ASSERT_EQUAL(rblk_addr_parse("127.0.0.1", 0, &sa), 0);
	CU_ASSERT_EQUAL(rblk_rdma_dev_for_addr((struct sockaddr *)&sa, &ad), -ENODEV);
	CU_ASSERT_STRING_EQUAL(ad.dev, "");
}

static const struct ut_case cases[] = {
	UT_CASE(test_list_fake_tree),
	UT_CASE(test_list_empty_and_missing_roots),
	UT_CASE(test_list_on_this_host),
	UT_CASE(test_gid_type_parse),
	UT_CASE(test_string_helpers),
	UT_CASE(test_addr_to_device_by_gid_table),
	UT_CASE(test_addr_to_device_prefers_roce_v2),
	UT_CASE(test_addr_to_device_on_this_host),
	UT_END,
};

UT_MAIN("transport/device", cases)
